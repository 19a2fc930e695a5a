#include "core/atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary files open now, for gcr_atomic_file_remove_pending: slots a
 * signal handler may read at any moment. A slot names the file from just
 * before it is created until just before it is renamed or removed; a handler
 * that removes it in between leaves at worst nothing to rename. */
#define PENDING_SLOTS 8
static const char *volatile pending[PENDING_SLOTS];

static void pending_add(const char *tmp)
{
    for (int i = 0; i < PENDING_SLOTS; i++)
        if (!pending[i]) {
            pending[i] = tmp;
            return;
        }
}

static void pending_drop(const char *tmp)
{
    for (int i = 0; i < PENDING_SLOTS; i++)
        if (pending[i] == tmp)
            pending[i] = NULL;
}

void gcr_atomic_file_remove_pending(void)
{
    for (int i = 0; i < PENDING_SLOTS; i++) {
        const char *tmp = pending[i];
        if (tmp)
            unlink(tmp);
    }
}

static void release(struct gcr_atomic_file *a)
{
    pending_drop(a->tmp);
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
    pending_add(a->tmp);
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        int e = errno;
        release(a);
        return gcr_fail(err, GCR_E_IO, "%s: cannot create output: %s", path, strerror(e));
    }
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
