/* Running a sweep's pairs (sweep.h): each (trace, variant) whose report is missing is replayed
 * by a `gcreplay run` child process, up to `jobs` at a time. A process per replay keeps one
 * replay's failure, crash or memory from touching the others, and its report is exactly what
 * `gcreplay run --json` writes, because that is what writes it. */
#include "sweep/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/atomic_file.h"
#include "core/cpus.h"

/* One pair to replay. */
struct job {
    size_t trace, variant;
    pid_t pid;     /* while running */
    int messages;  /* while running: the child's standard error, a file with no name */
    char *report, *failed, *config;
};

static void job_free(struct job *j)
{
    free(j->report);
    free(j->failed);
    free(j->config);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Whether the report at path was made with this effective config. */
static bool report_matches(const char *path, const json_t *effective)
{
    json_t *r = json_load_file(path, 0, NULL);
    bool ok = r && json_equal(json_object_get(r, "config"), effective);
    json_decref(r);
    return ok;
}

int sweep_forget_stale(const struct sweep_plan *now, const struct sweep_plan *before,
                       const char *dir, struct gcr_err *err)
{
    for (size_t t = 0; t < now->ntraces; t++) {
        const struct sweep_trace *tr = &now->traces[t];
        /* Reports of another detail level are as stale as those of another trace. */
        bool same_trace = false, same_detail = before && !strcmp(before->json_detail,
                                                                 now->json_detail);
        for (size_t k = 0; same_detail && k < before->ntraces && !same_trace; k++)
            same_trace = !strcmp(before->traces[k].id, tr->id) &&
                         !strcmp(before->traces[k].path, tr->path) &&
                         !strcmp(before->traces[k].identity, tr->identity);
        for (size_t v = 0; v < now->nvariants; v++) {
            const struct sweep_variant *var = &now->variants[v];
            char *report = sweep_path(dir, "runs", tr->id, NULL);
            char *path = report ? sweep_path(report, var->id, NULL, ".json") : NULL;
            char *failed = report ? sweep_path(report, var->id, NULL, ".failed") : NULL;
            free(report);
            if (!path || !failed) {
                free(path);
                free(failed);
                return gcr_fail(err, GCR_E_NOMEM, "out of memory");
            }
            /* A report of another trace (it changed since) or of another config goes. (A
             * failure stays until its pair runs again, as every failed pair does.) */
            if (exists(path) && (!same_trace || !report_matches(path, var->effective)) &&
                unlink(path) != 0 && errno != ENOENT) {
                gcr_fail(err, GCR_E_IO, "%s: cannot remove the stale report: %s", path,
                         strerror(errno));
                free(path);
                free(failed);
                return -1;
            }
            free(path);
            free(failed);
        }
    }
    return 0;
}

int sweep_write_variants(const struct sweep_plan *p, const char *dir, bool only_missing,
                         struct gcr_err *err)
{
    char *variants = sweep_path(dir, "variants", NULL, NULL);
    int rc = variants ? sweep_mkdir(variants, err) : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t v = 0; v < p->nvariants && rc == 0; v++) {
        char *cfg = sweep_path(variants, p->variants[v].id, NULL, ".json");
        if (!cfg)
            rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
        else if (!only_missing || !exists(cfg))
            rc = sweep_write_json(cfg, p->variants[v].effective, JSON_INDENT(2), err);
        free(cfg);
    }
    free(variants);
    return rc;
}

/* The last line the child wrote to standard error, without its "gcreplay: " prefix. */
static char *last_message(int fd)
{
    char buf[8192] = "";
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
    ssize_t got = size > 0 ? pread(fd, buf, sizeof buf - 1, from) : 0;
    size_t n = got > 0 ? (size_t)got : 0;
    buf[n] = '\0';
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    char *line = strrchr(buf, '\n');
    line = line ? line + 1 : buf;
    if (!strncmp(line, "gcreplay: ", 10))
        line += 10;
    return strdup(line);
}

static void record_failure(struct job *j, int status)
{
    char why[128];
    int code;
    if (WIFEXITED(status)) {
        code = WEXITSTATUS(status);
        snprintf(why, sizeof why, "exit status %d", code);
    } else {
        code = 128 + WTERMSIG(status);
        snprintf(why, sizeof why, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    }
    char *msg = last_message(j->messages);
    json_t *f = json_pack("{s:i, s:s}", "exit_status", code, "message",
                          msg && msg[0] ? msg : why);
    sweep_write_json(j->failed, f, JSON_INDENT(1), NULL);
    json_decref(f);
    free(msg);
}

static pid_t start(const struct sweep_plan *p, struct job *j, const char *self, bool thread)
{
    const char *argv[16];
    int n = 0;
    argv[n++] = self;
    argv[n++] = "run";
    argv[n++] = "-q";
    argv[n++] = "--config";
    argv[n++] = j->config;
    argv[n++] = "--json";
    argv[n++] = j->report;
    argv[n++] = "--analysis-thread";
    argv[n++] = thread ? "auto" : "off";
    argv[n++] = "--json-detail";
    argv[n++] = p->json_detail;
    if (p->format) {
        argv[n++] = "--format";
        argv[n++] = p->format;
    }
    argv[n++] = p->traces[j->trace].path;
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* The child: its messages into the file the parent reads afterwards. */
    int in = open("/dev/null", O_RDONLY), out = open("/dev/null", O_WRONLY);
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(j->messages, 2) < 0)
        _exit(127);
    execv(self, (char *const *)argv);
    dprintf(2, "gcreplay: cannot run %s: %s\n", self, strerror(errno));
    _exit(127);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress(bool on, size_t done, size_t total, size_t failed, size_t running,
                     double start)
{
    if (!on)
        return;
    double spent = now_s() - start;
    fprintf(stderr, "\r\033[Kgcreplay sweep: %zu/%zu done, %zu failed, %zu running", done, total,
            failed, running);
    if (done && done < total) {
        long eta = (long)(spent / (double)done * (double)(total - done) + 0.5);
        fprintf(stderr, ", about %ld:%02ld left", eta / 60, eta % 60);
    }
    fflush(stderr);
}

/* Longest traces first, so that the last jobs to start are short ones. */
static const struct sweep_plan *sort_plan;
static int by_size(const void *a, const void *b)
{
    const struct job *x = a, *y = b;
    uint64_t bx = sort_plan->traces[x->trace].bytes, by = sort_plan->traces[y->trace].bytes;
    if (bx != by)
        return bx > by ? -1 : 1;
    if (x->trace != y->trace)
        return x->trace < y->trace ? -1 : 1;
    return x->variant < y->variant ? -1 : x->variant > y->variant;
}

int sweep_run(const struct sweep_plan *p, const char *dir, const struct sweep_run_opts *o,
              struct sweep_run_counts *counts, struct gcr_err *err)
{
    char self[4096];
    ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sn <= 0)
        return gcr_fail(err, GCR_E_IO, "cannot find the gcreplay program to run: %s",
                        strerror(errno));
    self[sn] = '\0';

    char *runs = sweep_path(dir, "runs", NULL, NULL);
    char *variants = sweep_path(dir, "variants", NULL, NULL);
    int rc = runs && variants ? 0 : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = sweep_mkdir(runs, err) ? -1 : sweep_write_variants(p, dir, o->shards != 0, err);
    size_t total = p->ntraces * p->nvariants, njobs = 0;
    struct job *jobs = rc == 0 ? calloc(total ? total : 1, sizeof *jobs) : NULL;
    unsigned *shard_of = rc == 0 && o->shards ? malloc((total ? total : 1) * sizeof *shard_of)
                                              : NULL;
    if (rc == 0 && (!jobs || (o->shards && !shard_of)))
        rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (rc == 0 && o->shards)
        rc = sweep_shard_partition(p, o->shards, shard_of, err);
    size_t mine = o->shards ? 0 : total; /* the pairs this call is for */
    for (size_t i = 0; o->shards && rc == 0 && i < total; i++)
        mine += shard_of[i] == o->shard;
    for (size_t t = 0; t < p->ntraces && rc == 0; t++) {
        char *tdir = sweep_path(runs, p->traces[t].id, NULL, NULL);
        if (!tdir || sweep_mkdir(tdir, err) != 0) {
            free(tdir);
            rc = -1;
            break;
        }
        for (size_t v = 0; v < p->nvariants && rc == 0; v++) {
            if (o->shards && shard_of[t * p->nvariants + v] != o->shard)
                continue; /* another shard's */
            struct job *j = &jobs[njobs];
            const char *id = p->variants[v].id;
            j->trace = t;
            j->variant = v;
            j->report = sweep_path(tdir, id, NULL, ".json");
            j->failed = sweep_path(tdir, id, NULL, ".failed");
            j->config = sweep_path(variants, id, NULL, ".json");
            if (!j->report || !j->failed || !j->config) {
                job_free(j);
                rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
            } else if (!o->force && exists(j->report)) {
                job_free(j); /* done before (sweep_forget_stale kept only matching reports) */
            } else {
                njobs++;
            }
        }
        free(tdir);
    }
    sort_plan = p;
    if (rc == 0)
        qsort(jobs, njobs, sizeof *jobs, by_size);

    /* A second thread per replay only while the CPUs are not all taken by replays. */
    unsigned cpus = (unsigned)gcr_cpus_usable();
    bool thread = o->jobs < cpus;
    size_t next = 0, running = 0, finished = mine - njobs, failed = 0;
    double t0 = now_s();
    if (counts)
        *counts = (struct sweep_run_counts){.pairs = mine, .done_before = mine - njobs};
    progress(o->progress && rc == 0, finished, mine, failed, running, t0);
    while (rc == 0 && (next < njobs || running)) {
        while (next < njobs && running < o->jobs) {
            struct job *j = &jobs[next++];
            unlink(j->failed);
            j->messages = gcr_scratch_file(runs, NULL);
            j->pid = j->messages >= 0 ? start(p, j, self, thread) : -1;
            if (j->pid < 0) {
                rc = gcr_fail(err, GCR_E_IO, "cannot start a replay: %s", strerror(errno));
                if (j->messages >= 0)
                    close(j->messages);
                break;
            }
            running++;
        }
        if (!running)
            break;
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            rc = gcr_fail(err, GCR_E_IO, "waiting for a replay: %s", strerror(errno));
            break;
        }
        for (size_t k = 0; k < next; k++) {
            struct job *j = &jobs[k];
            if (j->pid != pid)
                continue;
            j->pid = 0;
            running--;
            finished++;
            if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0 && exists(j->report))) {
                record_failure(j, status);
                failed++;
            }
            close(j->messages);
            break;
        }
        progress(o->progress, finished, mine, failed, running, t0);
    }
    /* Only when the sweep itself failed can replays still run: let them finish. */
    while (running && waitpid(-1, NULL, 0) > 0)
        running--;
    if (o->progress && rc == 0)
        fputs("\r\033[K", stderr);
    if (counts) {
        counts->replayed = finished - counts->done_before - failed;
        counts->failed = failed;
    }
    for (size_t k = 0; k < njobs; k++)
        job_free(&jobs[k]);
    free(jobs);
    free(shard_of);
    free(runs);
    free(variants);
    return rc == 0 ? (int)failed : -1;
}
