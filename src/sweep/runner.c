/* Running a sweep's pairs (sweep.h): the pairs whose reports are missing are replayed by
 * `gcreplay run` child processes, up to `jobs` at a time. The pairs of a trace whose variants
 * can share a pass (sweep_pass_groups) are replayed by one process in one pass, each report
 * written with --json-dir; a pair alone (its variant needs a pass of its own, or is the only
 * one of its group left to replay) by `run --json`. A process per pass keeps one replay's
 * failure, crash or memory from touching the others, and each report is exactly what `gcreplay
 * run` writes, because that is what writes it. When a shared pass fails, its pairs are
 * replayed again one by one, so that a failure is told for the pair it belongs to, as a run of
 * that variant alone tells it. */
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
struct pair {
    size_t variant;
    char *report, *failed, *config;
};

/* One process: a pair, or pairs of one trace that share a pass. */
struct job {
    size_t trace;
    struct pair *pairs;
    size_t npairs;
    char *dir;    /* runs/<trace>: where --json-dir writes */
    pid_t pid;    /* while running */
    int messages; /* while running: the child's standard error, a file with no name */
};

/* At most this many variants in one pass: a pass's memory grows with each variant's caches,
 * and a pass of 8 variants measured slower for each variant than a pass of 4
 * (tests/bench/README.md, "One pass, many memory systems"), so larger passes gain nothing. */
enum { PASS_MAX_VARIANTS = 8 };

static void pair_free(struct pair *x)
{
    free(x->report);
    free(x->failed);
    free(x->config);
}

static void job_free(struct job *j)
{
    for (size_t i = 0; i < j->npairs; i++)
        pair_free(&j->pairs[i]);
    free(j->pairs);
    free(j->dir);
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

/* The job's one pair failed: why, as the child said last, into its .failed file. */
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
    sweep_write_json(j->pairs[0].failed, f, JSON_INDENT(1), NULL);
    json_decref(f);
    free(msg);
}

static pid_t start(const struct sweep_plan *p, struct job *j, const char *self, bool thread)
{
    const char **argv = malloc((16 + 2 * j->npairs) * sizeof *argv);
    if (!argv)
        return -1;
    int n = 0;
    argv[n++] = self;
    argv[n++] = "run";
    argv[n++] = "-q";
    for (size_t i = 0; i < j->npairs; i++) {
        argv[n++] = "--config";
        argv[n++] = j->pairs[i].config;
    }
    /* A pass of several variants writes runs/<trace>/<variant>.json for each: --json-dir
     * names each report by its config's file name, variants/<variant>.json. */
    argv[n++] = j->npairs > 1 ? "--json-dir" : "--json";
    argv[n++] = j->npairs > 1 ? j->dir : j->pairs[0].report;
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
    if (pid != 0) {
        free(argv);
        return pid;
    }
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
    size_t vx = x->pairs[0].variant, vy = y->pairs[0].variant;
    return vx < vy ? -1 : vx > vy;
}

/* The pairs of trace t to replay, of this call (its shard's) and not done yet (all of them
 * with o->force), in plan order: into pairs, their number into *n. */
static int pending_pairs(const struct sweep_plan *p, const struct sweep_run_opts *o, size_t t,
                         const unsigned *shard_of, const char *tdir, const char *variants,
                         struct pair *pairs, size_t *n, struct gcr_err *err)
{
    *n = 0;
    for (size_t v = 0; v < p->nvariants; v++) {
        if (o->shards && shard_of[t * p->nvariants + v] != o->shard)
            continue; /* another shard's */
        struct pair x = {.variant = v};
        const char *id = p->variants[v].id;
        x.report = sweep_path(tdir, id, NULL, ".json");
        x.failed = sweep_path(tdir, id, NULL, ".failed");
        x.config = sweep_path(variants, id, NULL, ".json");
        if (!x.report || !x.failed || !x.config) {
            pair_free(&x);
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        }
        if (!o->force && exists(x.report))
            pair_free(&x); /* done before (sweep_forget_stale kept only matching reports) */
        else
            pairs[(*n)++] = x;
    }
    return 0;
}

/* A job of trace t for the pairs given (moved into it). */
static int add_job(struct job *jobs, size_t *njobs, size_t t, const char *tdir,
                   const struct pair *pairs, size_t n, struct gcr_err *err)
{
    struct job *j = &jobs[*njobs];
    *j = (struct job){.trace = t, .npairs = n};
    if (!(j->pairs = malloc(n * sizeof *j->pairs)) || !(j->dir = strdup(tdir))) {
        free(j->pairs);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    memcpy(j->pairs, pairs, n * sizeof *pairs);
    (*njobs)++;
    return 0;
}

/* The jobs of trace t: its pending pairs, those of a pass group together in passes of at
 * most `most` variants as even as can be (one pair a job when most is 1). */
static int trace_jobs(size_t t, const char *tdir,
                      const size_t *group_of, struct pair *pending, size_t npending,
                      size_t most, struct job *jobs, size_t *njobs, struct gcr_err *err)
{
    struct pair *group = malloc((npending ? npending : 1) * sizeof *group);
    bool *taken = calloc(npending ? npending : 1, sizeof *taken);
    int rc = group && taken ? 0 : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t i = 0; i < npending && rc == 0; i++) {
        if (taken[i])
            continue;
        size_t m = 0;
        for (size_t k = i; k < npending; k++)
            if (!taken[k] && group_of[pending[k].variant] == group_of[pending[i].variant]) {
                group[m++] = pending[k];
                taken[k] = true;
            }
        size_t passes = (m + most - 1) / most;
        for (size_t q = 0, from = 0; q < passes && rc == 0; q++) {
            size_t size = m / passes + (q < m % passes);
            rc = add_job(jobs, njobs, t, tdir, group + from, size, err);
            for (size_t k = from; rc == 0 && k < from + size; k++)
                group[k] = (struct pair){0}; /* moved */
            from += size;
        }
        for (size_t k = 0; k < m; k++)
            pair_free(&group[k]);
    }
    for (size_t i = 0; i < npending; i++)
        if (!taken[i])
            pair_free(&pending[i]);
    free(group);
    free(taken);
    return rc;
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
    size_t total = p->ntraces * p->nvariants, njobs = 0, pending = 0;
    size_t nv = p->nvariants ? p->nvariants : 1;
    /* Room for a job per pair, and for each pair of a failed pass replayed again alone. */
    struct job *jobs = rc == 0 ? calloc(2 * total + 1, sizeof *jobs) : NULL;
    unsigned *shard_of = rc == 0 && o->shards ? malloc((total ? total : 1) * sizeof *shard_of)
                                              : NULL;
    size_t *group_of = rc == 0 ? malloc(nv * sizeof *group_of) : NULL;
    struct pair *todo = rc == 0 ? malloc((total ? total : 1) * sizeof *todo) : NULL;
    size_t *ntodo = rc == 0 ? calloc(p->ntraces ? p->ntraces : 1, sizeof *ntodo) : NULL;
    char **tdirs = rc == 0 ? calloc(p->ntraces ? p->ntraces : 1, sizeof *tdirs) : NULL;
    if (rc == 0 && (!jobs || !group_of || !todo || !ntodo || !tdirs ||
                    (o->shards && !shard_of)))
        rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (rc == 0 && sweep_pass_groups(p, group_of, err) < 0)
        rc = -1;
    if (rc == 0 && o->shards)
        rc = sweep_shard_partition(p, o->shards, shard_of, err);
    size_t mine = o->shards ? 0 : total; /* the pairs this call is for */
    for (size_t i = 0; o->shards && rc == 0 && i < total; i++)
        mine += shard_of[i] == o->shard;
    for (size_t t = 0; t < p->ntraces && rc == 0; t++) {
        tdirs[t] = sweep_path(runs, p->traces[t].id, NULL, NULL);
        if (!tdirs[t])
            rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
        else if (sweep_mkdir(tdirs[t], err) != 0)
            rc = -1;
        else
            rc = pending_pairs(p, o, t, shard_of, tdirs[t], variants, todo + pending, &ntodo[t],
                               err);
        pending += ntodo[t];
    }
    /* Passes of fewer variants rather than fewer processes than -j allows: a pass measured
     * from about half the time of its variants one by one (small traces) to about all of it
     * (tests/bench/README.md), so CPUs left idle would cost more than the pass saves. */
    size_t most = o->one_pass ? pending / (o->jobs ? o->jobs : 1) : 1;
    most = most < 1 ? 1 : most > PASS_MAX_VARIANTS ? PASS_MAX_VARIANTS : most;
    for (size_t t = 0, from = 0; t < p->ntraces; t++) {
        if (rc == 0)
            rc = trace_jobs(t, tdirs[t], group_of, todo + from, ntodo[t], most, jobs, &njobs,
                            err);
        else
            for (size_t k = from; k < from + ntodo[t]; k++)
                pair_free(&todo[k]);
        from += ntodo[t];
    }
    sort_plan = p;
    if (rc == 0)
        qsort(jobs, njobs, sizeof *jobs, by_size);

    /* A second thread per replay only while the CPUs are not all taken by replays. */
    unsigned cpus = (unsigned)gcr_cpus_usable();
    bool thread = o->jobs < cpus;
    /* procs: processes running; running: their pairs. */
    size_t next = 0, procs = 0, running = 0, finished = mine - pending, failed = 0;
    double t0 = now_s();
    if (counts)
        *counts = (struct sweep_run_counts){.pairs = mine, .done_before = mine - pending};
    progress(o->progress && rc == 0, finished, mine, failed, running, t0);
    while (rc == 0 && (next < njobs || procs)) {
        while (next < njobs && procs < o->jobs) {
            struct job *j = &jobs[next++];
            for (size_t i = 0; i < j->npairs; i++)
                unlink(j->pairs[i].failed);
            j->messages = gcr_scratch_file(runs, NULL);
            j->pid = j->messages >= 0 ? start(p, j, self, thread) : -1;
            if (j->pid < 0) {
                rc = gcr_fail(err, GCR_E_IO, "cannot start a replay: %s", strerror(errno));
                if (j->messages >= 0)
                    close(j->messages);
                break;
            }
            procs++;
            running += j->npairs;
        }
        if (!procs)
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
            procs--;
            running -= j->npairs;
            bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            for (size_t i = 0; ok && i < j->npairs; i++)
                ok = exists(j->pairs[i].report);
            if (ok) {
                finished += j->npairs;
            } else if (j->npairs == 1) {
                record_failure(j, status);
                finished++;
                failed++;
            } else {
                /* A pass that failed: its pairs again, one by one (a run writes all of its
                 * reports or none, so none is there). */
                for (size_t i = 0; i < j->npairs && rc == 0; i++) {
                    rc = add_job(jobs, &njobs, j->trace, j->dir, &j->pairs[i], 1, err);
                    if (rc == 0)
                        j->pairs[i] = (struct pair){0}; /* moved */
                }
            }
            close(j->messages);
            break;
        }
        progress(o->progress, finished, mine, failed, running, t0);
    }
    /* Only when the sweep itself failed can replays still run: let them finish. */
    while (procs && waitpid(-1, NULL, 0) > 0)
        procs--;
    if (o->progress && rc == 0)
        fputs("\r\033[K", stderr);
    if (counts) {
        counts->replayed = finished - counts->done_before - failed;
        counts->failed = failed;
    }
    for (size_t k = 0; k < njobs; k++)
        job_free(&jobs[k]);
    for (size_t t = 0; tdirs && t < p->ntraces; t++)
        free(tdirs[t]);
    free(tdirs);
    free(ntodo);
    free(todo);
    free(jobs);
    free(shard_of);
    free(group_of);
    free(runs);
    free(variants);
    return rc == 0 ? (int)failed : -1;
}
