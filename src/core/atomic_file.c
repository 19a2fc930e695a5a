#include "core/atomic_file.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary files open now, for gcr_atomic_file_remove_pending, which a
 * signal handler may run at any moment, on any thread. Each slot holds a copy
 * of the name (nothing a handler reads is ever freed) behind a lock-free
 * atomic state, so a handler reads only names written whole. A file is
 * registered once mkstemp has created it, so a slot never names someone
 * else's file, and dropped when its struct is released, after the rename: a
 * handler that runs in between unlinks a name that no longer exists. Longer
 * names, and files beyond the slots, are not covered. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler may read only lock-free atomics");
enum { PENDING_SLOTS = 8, PENDING_NAME = 4096 };
enum { SLOT_FREE, SLOT_FILLING, SLOT_SET };
static struct {
    _Atomic int state;
    char name[PENDING_NAME];
} pending[PENDING_SLOTS];

/* 1 + the slot now naming tmp, or 0 if none could. */
static int pending_add(const char *tmp)
{
    size_t n = strlen(tmp) + 1;
    if (n > PENDING_NAME)
        return 0;
    for (int i = 0; i < PENDING_SLOTS; i++) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&pending[i].state, &expect, SLOT_FILLING)) {
            memcpy(pending[i].name, tmp, n);
            atomic_store(&pending[i].state, SLOT_SET);
            return i + 1;
        }
    }
    return 0;
}

void gcr_atomic_file_remove_pending(void)
{
    for (int i = 0; i < PENDING_SLOTS; i++)
        if (atomic_load(&pending[i].state) == SLOT_SET)
            unlink(pending[i].name);
}

static void release(struct gcr_atomic_file *a)
{
    if (a->slot)
        atomic_store(&pending[a->slot - 1].state, SLOT_FREE);
    a->slot = 0;
    free(a->path);
    free(a->tmp);
    a->path = a->tmp = NULL;
    a->f = NULL;
}

int gcr_atomic_file_open(struct gcr_atomic_file *a, const char *path, struct gcr_err *err)
{
    *a = (struct gcr_atomic_file){0};
    size_t n = strlen(path) + sizeof ".tmp.XXXXXX";
    if (!(a->path = strdup(path)) || !(a->tmp = malloc(n))) {
        release(a);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }
    snprintf(a->tmp, n, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        int e = errno;
        release(a);
        return gcr_fail(err, GCR_E_IO, "%s: cannot create output: %s", path, strerror(e));
    }
    a->slot = pending_add(a->tmp);
    /* mkstemp makes the file private (0600); give it the mode fopen would. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(a->f = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        unlink(a->tmp);
        release(a);
        return gcr_fail(err, GCR_E_IO, "%s: cannot create output: %s", path, strerror(e));
    }
    return 0;
}

int gcr_atomic_file_commit(struct gcr_atomic_file *a, struct gcr_err *err)
{
    int rc = 0;
    if (fflush(a->f) != 0)
        rc = gcr_fail(err, GCR_E_IO, "%s: write failed: %s", a->path, strerror(errno));
    if (fclose(a->f) != 0 && rc == 0)
        rc = gcr_fail(err, GCR_E_IO, "%s: write failed: %s", a->path, strerror(errno));
    /* Still pending through the rename: a signal after it only unlinks a name
     * that no longer exists. release() drops it. */
    if (rc == 0 && rename(a->tmp, a->path) != 0)
        rc = gcr_fail(err, GCR_E_IO, "%s: cannot move output into place: %s", a->path,
                      strerror(errno));
    if (rc != 0)
        unlink(a->tmp);
    release(a);
    return rc;
}

void gcr_atomic_file_abort(struct gcr_atomic_file *a)
{
    if (a->f)
        fclose(a->f);
    if (a->tmp)
        unlink(a->tmp);
    release(a);
}
