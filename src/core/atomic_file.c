#include "core/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary files open now, for gcr_atomic_file_remove_pending, which a
 * signal handler may run at any moment, on any thread. They are a list of
 * entries that is only ever pushed onto and whose entries are never freed
 * (nothing a handler reads goes away): each holds a copy of a name behind a
 * lock-free atomic state, so a handler reads only names written whole. An
 * entry whose file is gone is reused for a name that fits it. A file is
 * registered once mkstemp has created it, so an entry never names someone
 * else's file, and dropped when its struct is released, after the rename: a
 * handler that runs in between unlinks a name that no longer exists. There is
 * no limit on how many files are pending at once (a run of many variants
 * writes one per variant). */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler may read only lock-free atomics");
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "a signal handler may read only lock-free atomics");
enum { SLOT_FREE, SLOT_FILLING, SLOT_SET };
struct gcr_pending_output {
    _Atomic int state;
    struct gcr_pending_output *_Atomic next;
    size_t capacity;
    char name[];
};
static struct gcr_pending_output *_Atomic pending_list;

/* The entry now naming tmp, or NULL when out of memory (the file is then not covered). */
static struct gcr_pending_output *pending_add(const char *tmp)
{
    size_t n = strlen(tmp) + 1;
    for (struct gcr_pending_output *p = atomic_load(&pending_list); p; p = atomic_load(&p->next)) {
        int expect = SLOT_FREE;
        if (p->capacity >= n &&
            atomic_compare_exchange_strong(&p->state, &expect, SLOT_FILLING)) {
            memcpy(p->name, tmp, n);
            atomic_store(&p->state, SLOT_SET);
            return p;
        }
    }
    struct gcr_pending_output *p = malloc(sizeof *p + n);
    if (!p)
        return NULL;
    atomic_init(&p->state, SLOT_SET);
    p->capacity = n;
    memcpy(p->name, tmp, n);
    struct gcr_pending_output *head = atomic_load(&pending_list);
    do
        atomic_store(&p->next, head);
    while (!atomic_compare_exchange_weak(&pending_list, &head, p));
    return p;
}

void gcr_atomic_file_stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGXCPU);
}

void gcr_atomic_file_remove_pending(void)
{
    for (struct gcr_pending_output *p = atomic_load(&pending_list); p; p = atomic_load(&p->next))
        if (atomic_load(&p->state) == SLOT_SET)
            unlink(p->name);
}

static void release(struct gcr_atomic_file *a)
{
    if (a->pending)
        atomic_store(&a->pending->state, SLOT_FREE);
    a->pending = NULL;
    free(a->path);
    free(a->target);
    free(a->tmp);
    a->path = a->target = a->tmp = NULL;
    a->f = NULL;
}

/* A name under which the kernel hands out an open file descriptor of the process: opening it
 * reaches whatever that descriptor is (a pipe, a terminal, a file opened for appending), which
 * a rename could never replace. */
static bool names_a_descriptor(const char *p)
{
    if (!strncmp(p, "/dev/fd/", 8) || !strncmp(p, "/proc/self/fd/", 14) ||
        !strncmp(p, "/proc/thread-self/fd/", 21))
        return true;
    if (strncmp(p, "/proc/", 6) != 0)
        return false;
    p += 6;
    if (*p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    return !strncmp(p, "/fd/", 4);
}

/* Where an output named `path` really goes. A chain of symlinks is followed link by link
 * (realpath would refuse a chain that ends at a name not created yet): *final is the last
 * name, which is not a symlink and may not exist. *descriptor is set when the chain passes
 * through a descriptor name (names_a_descriptor), where it must not be followed further. */
static int resolve_output(const char *path, char **final, bool *descriptor, struct gcr_err *err)
{
    *final = NULL;
    *descriptor = false;
    char *cur = strdup(path);
    if (!cur)
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    for (int hops = 0;; hops++) {
        struct stat st;
        if (names_a_descriptor(cur)) {
            *descriptor = true;
            break;
        }
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            break;
        if (hops == 40) {
            free(cur);
            return gcr_fail(err, GCR_E_IO, "%s: cannot write the output: %s", path,
                            strerror(ELOOP));
        }
        char link[4096];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0 || (size_t)n >= sizeof link - 1) {
            int e = n < 0 ? errno : ENAMETOOLONG;
            free(cur);
            return gcr_fail(err, GCR_E_IO, "%s: cannot follow the symbolic link: %s", path,
                            strerror(e));
        }
        link[n] = '\0';
        /* A relative target is relative to the directory holding the link. */
        const char *slash = strrchr(cur, '/');
        size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dir + (size_t)n + 1);
        if (!next) {
            free(cur);
            return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
        }
        memcpy(next, cur, dir);
        memcpy(next + dir, link, (size_t)n + 1);
        free(cur);
        cur = next;
    }
    *final = cur;
    return 0;
}

/* How the output at `path` is written (gcr_atomic_file.h), or -1 with the refusal. */
static int classify_output(const char *path, char **target, enum gcr_output_mode *mode,
                           mode_t *existing_mode, struct gcr_err *err)
{
    *target = NULL;
    *existing_mode = 0;
    if (!strcmp(path, "-")) {
        *mode = GCR_OUTPUT_STDOUT;
        return 0;
    }
    bool descriptor;
    char *final;
    if (resolve_output(path, &final, &descriptor, err) != 0)
        return -1;
    struct stat st;
    /* A descriptor name is stat'ed through the kernel's own link, the rest at the chain's end. */
    if (stat(descriptor ? path : final, &st) != 0) {
        if (descriptor) {
            int e = errno;
            free(final);
            return gcr_fail(err, GCR_E_IO, "%s: cannot write the output: %s", path,
                            strerror(e));
        }
        *mode = GCR_OUTPUT_RENAMED; /* a new file (or an error that creating it will name) */
        *target = final;
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        free(final);
        return gcr_fail(err, GCR_E_IO, "%s: is a directory; the output must name a file", path);
    }
    if (S_ISBLK(st.st_mode)) {
        free(final);
        return gcr_fail(err, GCR_E_IO, "%s: is a block device; gcreplay writes no output "
                        "over one", path);
    }
    if (descriptor || !S_ISREG(st.st_mode)) {
        free(final);
        *mode = GCR_OUTPUT_IN_PLACE;
        return 0;
    }
    *mode = GCR_OUTPUT_RENAMED;
    *target = final;
    *existing_mode = st.st_mode & 07777;
    return 0;
}

int gcr_output_check(const char *path, struct gcr_err *err)
{
    char *target;
    enum gcr_output_mode mode;
    mode_t existing;
    if (classify_output(path, &target, &mode, &existing, err) != 0)
        return -1;
    free(target);
    return 0;
}

bool gcr_output_is_input(const char *out, const char *input)
{
    struct stat so, si;
    return strcmp(out, "-") != 0 && stat(out, &so) == 0 && S_ISREG(so.st_mode) &&
           stat(input, &si) == 0 && so.st_dev == si.st_dev && so.st_ino == si.st_ino;
}

static int open_renamed(struct gcr_atomic_file *a, mode_t existing_mode, struct gcr_err *err)
{
    size_t n = strlen(a->target) + sizeof ".tmp.XXXXXX";
    if (!(a->tmp = malloc(n)))
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", a->path);
    snprintf(a->tmp, n, "%s.tmp.XXXXXX", a->target);
    /* A stop signal between creating the file and registering it would leave it behind: the
     * signals that remove pending files wait until it is registered. */
    sigset_t stops, before;
    gcr_atomic_file_stop_signals(&stops);
    pthread_sigmask(SIG_BLOCK, &stops, &before);
    int fd = mkstemp(a->tmp);
    int e = errno;
    if (fd >= 0)
        a->pending = pending_add(a->tmp);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (fd < 0) {
        free(a->tmp);
        a->tmp = NULL;
        return gcr_fail(err, GCR_E_IO, "%s: cannot create output: %s", a->path, strerror(e));
    }
    /* mkstemp makes the file private (0600): give a replaced file its old mode, a new one the
     * mode fopen would. */
    mode_t mode = existing_mode;
    if (!mode) {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0 || !(a->f = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        unlink(a->tmp);
        return gcr_fail(err, GCR_E_IO, "%s: cannot create output: %s", a->path, strerror(e));
    }
    return 0;
}

int gcr_atomic_file_open(struct gcr_atomic_file *a, const char *path, struct gcr_err *err)
{
    *a = (struct gcr_atomic_file){0};
    mode_t existing_mode;
    if (!(a->path = strdup(path))) {
        release(a);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }
    if (classify_output(path, &a->target, &a->mode, &existing_mode, err) != 0) {
        release(a);
        return -1;
    }
    int rc = 0;
    if (a->mode == GCR_OUTPUT_RENAMED) {
        rc = open_renamed(a, existing_mode, err);
    } else {
        /* In place: no O_CREAT (it exists), no O_TRUNC (a device has nothing to cut, and a file
         * reached through a descriptor keeps what its opener asked, `>>` included). */
        int fd = a->mode == GCR_OUTPUT_STDOUT
                     ? dup(STDOUT_FILENO)
                     : open(path, O_WRONLY | O_NOCTTY | O_APPEND | O_CLOEXEC);
        if (fd < 0 || !(a->f = fdopen(fd, "wb"))) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            rc = gcr_fail(err, GCR_E_IO, "%s: cannot write the output: %s", path, strerror(e));
        }
    }
    if (rc != 0)
        release(a);
    return rc;
}

int gcr_atomic_file_commit(struct gcr_atomic_file *a, struct gcr_err *err)
{
    int rc = 0;
    if (fflush(a->f) != 0)
        rc = gcr_fail(err, GCR_E_IO, "%s: write failed: %s", a->path, strerror(errno));
    if (fclose(a->f) != 0 && rc == 0)
        rc = gcr_fail(err, GCR_E_IO, "%s: write failed: %s", a->path, strerror(errno));
    if (a->mode == GCR_OUTPUT_RENAMED) {
        /* Still pending through the rename: a signal after it only unlinks a name that no
         * longer exists. release() drops it. */
        if (rc == 0 && rename(a->tmp, a->target) != 0)
            rc = gcr_fail(err, GCR_E_IO, "%s: cannot move output into place: %s", a->path,
                          strerror(errno));
        if (rc != 0)
            unlink(a->tmp);
    }
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

int gcr_scratch_file(const char *dir, struct gcr_err *err)
{
    size_t n = strlen(dir) + sizeof "/.scratch.XXXXXX";
    char *path = malloc(n);
    if (!path)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    snprintf(path, n, "%s/.scratch.XXXXXX", dir);
    /* No stop signal between creating the name and removing it. */
    sigset_t stops, before;
    gcr_atomic_file_stop_signals(&stops);
    pthread_sigmask(SIG_BLOCK, &stops, &before);
    int fd = mkstemp(path);
    int e = errno;
    if (fd >= 0) {
        unlink(path);
        fcntl(fd, F_SETFD, FD_CLOEXEC); /* not for the processes this one starts */
    }
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    free(path);
    if (fd < 0)
        return gcr_fail(err, GCR_E_IO, "%s: cannot create a scratch file: %s", dir, strerror(e));
    return fd;
}

int gcr_atomic_file_open_fd(struct gcr_atomic_file *a, int fd, const char *name,
                            struct gcr_err *err)
{
    *a = (struct gcr_atomic_file){.mode = GCR_OUTPUT_IN_PLACE};
    int mine = -1;
    if (!(a->path = strdup(name)))
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", name);
    if ((mine = dup(fd)) < 0 || !(a->f = fdopen(mine, "wb"))) {
        int e = errno;
        if (mine >= 0)
            close(mine);
        release(a);
        return gcr_fail(err, GCR_E_IO, "%s: cannot write the output: %s", name, strerror(e));
    }
    return 0;
}
