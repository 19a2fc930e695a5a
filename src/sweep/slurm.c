/* A sweep as a Slurm job array (sweep.h): the batch scripts, their submission with sbatch, and
 * what squeue and sacct say of the jobs.
 *
 * slurm/sweep.sbatch is one job array of K tasks; task i runs `gcreplay sweep --shard i/K DIR`,
 * which reads the plan from DIR/sweep.json, so that every task works from the identical plan
 * whatever happened on the command line since. slurm/collect.sbatch runs
 * `gcreplay sweep --collect DIR` once the array has ended, however its tasks ended
 * (afterany): it writes the tables of what is there and checks every shard's marker. The
 * scripts name the gcreplay that wrote them by its absolute path, and DIR and the folder the
 * plan was made in (where relative trace paths start) by theirs, so a task does not depend on
 * the environment of the node it lands on, beyond those paths being there. */
#include "sweep/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- Running Slurm's commands ------------------------------------------------------------- */

/* Runs argv (searched on PATH) with its standard output, and its standard error when
 * with_stderr, into *out; its standard error otherwise goes where ours does, for the user to
 * read. Returns 0 with *status (as waitpid gives it), or -1 when it could not be started. */
static int capture(const char *const *argv, bool with_stderr, char **out, int *status)
{
    *out = NULL;
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0 || dup2(fds[1], 1) < 0 ||
            (with_stderr && dup2(fds[1], 2) < 0))
            _exit(127);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], (char *const *)argv);
        dprintf(2, "%s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    struct sweep_text t = {0};
    char buf[4096];
    for (;;) {
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        sweep_put(&t, "%.*s", (int)n, buf);
    }
    close(fds[0]);
    while (waitpid(pid, status, 0) < 0)
        if (errno != EINTR) {
            *status = 127 << 8;
            break;
        }
    if (t.failed) {
        free(t.s);
        return -1;
    }
    *out = t.s ? t.s : strdup("");
    return *out ? 0 : -1;
}

/* The first line of text, at most cap - 1 bytes, for a message. */
static void first_line(const char *text, char *out, size_t cap)
{
    size_t n = text ? strcspn(text, "\r\n") : 0;
    snprintf(out, cap, "%.*s", (int)n, text ? text : "");
}

/* ---- The scripts -------------------------------------------------------------------------- */

/* A shell word that is s, whatever s holds: single-quoted, each ' as '\''. */
static void put_quoted(struct sweep_text *t, const char *s)
{
    sweep_put(t, "'");
    for (; *s; s++)
        sweep_put(t, *s == '\'' ? "'\\''" : "%c", *s);
    sweep_put(t, "'");
}

/* Whether a path can go into an #SBATCH line as it is: sbatch splits those lines at blanks and
 * reads quotes, and --output turns % into the job's numbers. */
static bool sbatch_safe(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= ' ' || *p == 0x7f || strchr("\"'\\%", *p))
            return false;
    return true;
}

int sweep_slurm_check_dir(const char *dir, struct gcr_err *err)
{
    char cwd[PATH_MAX] = "";
    if (dir[0] != '/' && !getcwd(cwd, sizeof cwd))
        return gcr_fail(err, GCR_E_IO, "cannot tell the current folder: %s", strerror(errno));
    char *abs = dir[0] == '/' ? strdup(dir) : sweep_path(cwd, dir, NULL, NULL);
    if (!abs)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    int rc = sbatch_safe(abs) ? 0
                              : gcr_fail(err, GCR_E_USAGE, "%s: with --slurm, the sweep's "
                                         "folder must have a path without blanks, quotes, "
                                         "backslashes or %% (sbatch reads it in the job "
                                         "script's #SBATCH lines); name another folder", abs);
    free(abs);
    return rc;
}

int sweep_slurm_check_option(const char *opt, struct gcr_err *err)
{
    if (opt[0] != '-')
        return gcr_fail(err, GCR_E_USAGE, "--slurm-opt %s: an sbatch option starts with '-' "
                        "(--partition=NAME, --account=NAME, --time=HH:MM:SS)", opt);
    for (const unsigned char *p = (const unsigned char *)opt; *p; p++)
        if (*p < ' ' || *p == 0x7f)
            return gcr_fail(err, GCR_E_USAGE, "--slurm-opt %s: holds a control character or "
                            "a line end, which an #SBATCH line cannot", opt);
    if (!strncmp(opt, "--array", 7) || !strncmp(opt, "-a", 2))
        return gcr_fail(err, GCR_E_USAGE, "--slurm-opt %s: the array is gcreplay's to set: "
                        "give --shards K and --max-running M", opt);
    return 0;
}

unsigned sweep_slurm_default_shards(size_t pairs)
{
    return pairs < SWEEP_DEFAULT_SHARDS ? (pairs ? (unsigned)pairs : 1) : SWEEP_DEFAULT_SHARDS;
}

/* The part both scripts share: the user's options, then the move to where the plan was made. */
static void put_common(struct sweep_text *t, const struct sweep_slurm_opts *o, const char *cwd)
{
    for (size_t i = 0; i < o->noptions; i++)
        sweep_put(t, "#SBATCH %s\n", o->options[i]);
    sweep_put(t, "\n# Relative trace paths in the plan start where it was made.\ncd ");
    put_quoted(t, cwd);
    sweep_put(t, " || exit 1\n");
}

int sweep_slurm_write(const struct sweep_plan *p, const char *dir,
                      const struct sweep_slurm_opts *o, struct sweep_slurm_layout *out,
                      struct gcr_err *err)
{
    *out = (struct sweep_slurm_layout){0};
    char self[PATH_MAX], cwd[PATH_MAX], abs[PATH_MAX];
    ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sn <= 0)
        return gcr_fail(err, GCR_E_IO, "cannot find the gcreplay program for the job "
                        "script: %s", strerror(errno));
    self[sn] = '\0';
    if (!getcwd(cwd, sizeof cwd))
        return gcr_fail(err, GCR_E_IO, "cannot tell the current folder: %s", strerror(errno));
    if (!realpath(dir, abs))
        return gcr_fail(err, GCR_E_IO, "%s: %s", dir, strerror(errno));
    if (!sbatch_safe(abs))
        return gcr_fail(err, GCR_E_USAGE, "%s: with --slurm, the sweep's folder must have a "
                        "path without blanks, quotes, backslashes or %% (sbatch reads it in "
                        "the job script's #SBATCH lines); name another folder", abs);
    size_t pairs = p->ntraces * p->nvariants, units = sweep_shard_units(p, err);
    if (units == SIZE_MAX)
        return -1;
    unsigned shards = o->shards ? o->shards : sweep_slurm_default_shards(pairs);
    if (units && shards > units)
        shards = (unsigned)units; /* a shard of no pair would be a task with nothing to do */
    out->shards = shards;
    out->pairs = pairs;
    char *slurm = sweep_path(abs, "slurm", NULL, NULL);
    char *logs = sweep_path(abs, "slurm/logs", NULL, NULL);
    out->array_script = sweep_path(abs, "slurm/sweep.sbatch", NULL, NULL);
    out->collect_script = sweep_path(abs, "slurm/collect.sbatch", NULL, NULL);
    out->dir = strdup(abs);
    int rc = slurm && logs && out->array_script && out->collect_script && out->dir
                 ? 0
                 : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = sweep_mkdir(slurm, err) || sweep_mkdir(logs, err) ? -1 : 0;

    struct sweep_text a = {0}, c = {0};
    sweep_put(&a, "#!/bin/bash\n"
                  "# A gcreplay sweep as one Slurm job array, written by `gcreplay sweep --slurm`:\n"
                  "# task I replays shard I of %u of the plan in %s/sweep.json, the pairs\n"
                  "# of it that are not done yet, as many at once as the task has CPUs.\n"
                  "# Submitted with collect.sbatch after it:\n"
                  "#   array=$(sbatch --parsable %s)\n"
                  "#   sbatch --dependency=afterany:${array%%%%;*} %s\n"
                  "# The folder must be on a filesystem that every node sees, and the gcreplay\n"
                  "# below at this path on every node.\n",
              shards, abs, out->array_script, out->collect_script);
    sweep_put(&a, "#SBATCH --job-name=gcreplay-sweep\n#SBATCH --array=0-%u", shards - 1);
    if (o->max_running)
        sweep_put(&a, "%%%u", o->max_running);
    sweep_put(&a, "\n#SBATCH --output=%s/shard-%%a-job-%%A.out\n", logs);
    if (o->cpus)
        sweep_put(&a, "#SBATCH --cpus-per-task=%u\n", o->cpus);
    put_common(&a, o, cwd);
    sweep_put(&a, "exec ");
    put_quoted(&a, self);
    sweep_put(&a, " sweep --shard \"$SLURM_ARRAY_TASK_ID/%u\" -j \"${SLURM_CPUS_PER_TASK:-1}\" %s",
              shards, o->one_pass ? "" : "--one-pass off ");
    put_quoted(&a, abs);
    sweep_put(&a, "\n");

    sweep_put(&c, "#!/bin/bash\n"
                  "# The collect step of the gcreplay sweep in %s, written by\n"
                  "# `gcreplay sweep --slurm`: after the job array of sweep.sbatch, however its\n"
                  "# tasks ended, the tables and the summary from the reports there, and a check\n"
                  "# that every shard left its marker (it did not, if it never ran or if it ran on\n"
                  "# a node that sees another folder at this path).\n"
                  "#   sbatch --dependency=afterany:ARRAY_JOB_ID %s\n",
              abs, out->collect_script);
    sweep_put(&c, "#SBATCH --job-name=gcreplay-collect\n#SBATCH --output=%s/collect-job-%%j.out\n",
              logs);
    put_common(&c, o, cwd);
    sweep_put(&c, "exec ");
    put_quoted(&c, self);
    sweep_put(&c, " sweep --collect ");
    put_quoted(&c, abs);
    sweep_put(&c, "\n");
    if (rc == 0 && (a.failed || c.failed))
        rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = sweep_write_text(out->array_script, a.s, err);
    if (rc == 0)
        rc = sweep_write_text(out->collect_script, c.s, err);
    /* Markers of an earlier submission would tell of shards that have not run yet. */
    if (rc == 0)
        rc = sweep_shard_forget_marks(abs, err);
    if (rc == 0) {
        struct sweep_submission s = {.shards = shards, .max_running = o->max_running,
                                     .pairs = pairs};
        rc = sweep_submission_save(abs, &s, err);
    }
    free(a.s);
    free(c.s);
    free(slurm);
    free(logs);
    if (rc != 0)
        sweep_slurm_layout_free(out);
    return rc;
}

void sweep_slurm_layout_free(struct sweep_slurm_layout *l)
{
    free(l->dir);
    free(l->array_script);
    free(l->collect_script);
    *l = (struct sweep_slurm_layout){0};
}

/* ---- The submission record ---------------------------------------------------------------- */

int sweep_submission_save(const char *dir, const struct sweep_submission *s,
                          struct gcr_err *err)
{
    char host[256], now[32];
    sweep_host_name(host, sizeof host);
    sweep_now_text(now, sizeof now);
    char *path = sweep_path(dir, "slurm/submission.json", NULL, NULL);
    json_t *j = json_pack("{s:I, s:I, s:o, s:s?, s:s?, s:s, s:s}", "shards",
                          (json_int_t)s->shards, "pairs", (json_int_t)s->pairs, "max_running",
                          s->max_running ? json_integer(s->max_running) : json_null(),
                          "array_job", s->array_job[0] ? s->array_job : NULL, "collect_job",
                          s->collect_job[0] ? s->collect_job : NULL, "written", now, "host",
                          host);
    int rc = path && j ? sweep_write_json(path, j, JSON_INDENT(1), err)
                       : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    json_decref(j);
    free(path);
    return rc;
}

int sweep_submission_load(const char *dir, struct sweep_submission *s, struct gcr_err *err)
{
    *s = (struct sweep_submission){0};
    char *path = sweep_path(dir, "slurm/submission.json", NULL, NULL);
    if (!path)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (access(path, F_OK) != 0) {
        free(path);
        return 0;
    }
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    json_int_t shards = 0, pairs = 0;
    json_t *max = NULL, *array_j = NULL, *collect_j = NULL;
    int rc = 1;
    if (!j)
        rc = gcr_fail(err, GCR_E_FORMAT, "%s:%d:%d: invalid JSON: %s", path, je.line,
                      je.column, je.text);
    else if (json_unpack(j, "{s:I, s:I, s:o, s?o, s?o}", "shards", &shards, "pairs", &pairs,
                         "max_running", &max, "array_job", &array_j, "collect_job",
                         &collect_j) != 0 ||
             shards < 1 || shards > SWEEP_MAX_SHARDS || pairs < 0)
        rc = gcr_fail(err, GCR_E_FORMAT, "%s: not a submission record gcreplay wrote", path);
    const char *array = json_string_value(array_j), *collect = json_string_value(collect_j);
    if (rc == 1) {
        s->shards = (unsigned)shards;
        s->pairs = (size_t)pairs;
        s->max_running = json_is_integer(max) ? (unsigned)json_integer_value(max) : 0;
        snprintf(s->array_job, sizeof s->array_job, "%s", array ? array : "");
        snprintf(s->collect_job, sizeof s->collect_job, "%s", collect ? collect : "");
    }
    json_decref(j);
    free(path);
    return rc;
}

/* ---- Submitting --------------------------------------------------------------------------- */

/* sbatch --parsable prints "JOBID" or "JOBID;CLUSTER"; its messages go to our standard error. */
static int submit(const char *dependency, const char *script, char *id, size_t cap,
                  struct gcr_err *err)
{
    const char *argv[5];
    int n = 0;
    argv[n++] = "sbatch";
    argv[n++] = "--parsable";
    if (dependency)
        argv[n++] = dependency;
    argv[n++] = script;
    argv[n] = NULL;
    char *out;
    int status;
    if (capture(argv, false, &out, &status) != 0)
        return gcr_fail(err, GCR_E_IO, "cannot run sbatch: %s", strerror(errno));
    size_t digits = strspn(out, "0123456789");
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && digits > 0 && digits < cap;
    if (ok)
        snprintf(id, cap, "%.*s", (int)digits, out);
    char said[256];
    first_line(out, said, sizeof said);
    free(out);
    if (ok)
        return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return gcr_fail(err, GCR_E_IO, "sbatch could not be run: is Slurm installed here, with "
                        "sbatch on the PATH? (--no-submit only writes the scripts)");
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return gcr_fail(err, GCR_E_IO, "sbatch %s: answered '%s', not a job id", script, said);
    return gcr_fail(err, GCR_E_IO, "sbatch %s failed (its message is above)", script);
}

int sweep_slurm_submit(const struct sweep_slurm_layout *l, unsigned max_running,
                       struct sweep_submission *s, struct gcr_err *err)
{
    *s = (struct sweep_submission){.shards = l->shards, .max_running = max_running,
                                   .pairs = l->pairs};
    if (submit(NULL, l->array_script, s->array_job, sizeof s->array_job, err) != 0)
        return -1;
    char dependency[64];
    snprintf(dependency, sizeof dependency, "--dependency=afterany:%s", s->array_job);
    int rc = submit(dependency, l->collect_script, s->collect_job, sizeof s->collect_job, err);
    if (rc != 0) {
        /* The array runs anyway: say how to collect after it. */
        char why[GCR_ERR_MSG_MAX];
        snprintf(why, sizeof why, "%s", err->msg);
        gcr_fail(err, GCR_E_IO, "%s; the job array %s is submitted: once it ends, run "
                 "`gcreplay sweep --collect %s`", why, s->array_job, l->dir);
    }
    struct gcr_err ignored = {0};
    sweep_submission_save(l->dir, s, rc == 0 ? err : &ignored);
    return rc;
}

/* ---- What Slurm says of the jobs ---------------------------------------------------------- */

static int add_job(struct sweep_queue *q, const char *id, const char *state, const char *where,
                   bool live)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 16;
        struct sweep_job_state *j = realloc(q->jobs, cap * sizeof *j);
        if (!j)
            return -1;
        q->jobs = j;
        q->cap = cap;
    }
    struct sweep_job_state *j = &q->jobs[q->n++];
    snprintf(j->id, sizeof j->id, "%s", id);
    snprintf(j->state, sizeof j->state, "%s", state);
    snprintf(j->where, sizeof j->where, "%s", where);
    j->live = live;
    return 0;
}

const struct sweep_job_state *sweep_queue_find(const struct sweep_queue *q, const char *id)
{
    /* squeue's word first: it is the live one. */
    for (int live = 1; live >= 0; live--)
        for (size_t i = 0; i < q->n; i++)
            if (q->jobs[i].live == live && !strcmp(q->jobs[i].id, id))
                return &q->jobs[i];
    return NULL;
}

/* Lines "ID|STATE|MORE" into q. */
static int read_lines(struct sweep_queue *q, char *text, bool live)
{
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *state = strchr(line, '|');
        char *more = state ? strchr(state + 1, '|') : NULL;
        if (!more)
            continue;
        *state++ = '\0';
        *more++ = '\0';
        more[strcspn(more, "\r")] = '\0';
        /* sacct writes "CANCELLED by 0": the state is the first word. */
        state[strcspn(state, " ")] = '\0';
        if (add_job(q, line, state, more, live) != 0)
            return -1;
    }
    return 0;
}

int sweep_slurm_query(const char *array_job, const char *collect_job, struct sweep_queue *q)
{
    *q = (struct sweep_queue){0};
    char ids[128];
    snprintf(ids, sizeof ids, "%s%s%s", array_job, array_job[0] && collect_job[0] ? "," : "",
             collect_job);
    if (!ids[0]) {
        snprintf(q->squeue_note, sizeof q->squeue_note, "no job id known");
        return 0;
    }
    /* -r: one line per task of the array, also of those still pending together. */
    const char *squeue[] = {"squeue", "-h", "-r", "-j", ids, "-o", "%i|%T|%R", NULL};
    char *out;
    int status;
    if (capture(squeue, true, &out, &status) != 0)
        return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        q->squeue_ok = true;
        if (read_lines(q, out, true) != 0) {
            free(out);
            return -1;
        }
    } else if (strstr(out, "Invalid job id")) {
        q->squeue_ok = true; /* none of them is in the queue any more */
    } else {
        first_line(out, q->squeue_note, sizeof q->squeue_note);
        if (!q->squeue_note[0])
            snprintf(q->squeue_note, sizeof q->squeue_note, "squeue failed");
    }
    free(out);
    /* -X: the tasks themselves, not their steps. */
    const char *sacct[] = {"sacct", "-n", "-P", "-X", "-j", ids, "-o", "JobID,State,ExitCode",
                           NULL};
    if (capture(sacct, true, &out, &status) != 0)
        return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        q->sacct_ok = true;
        if (read_lines(q, out, false) != 0) {
            free(out);
            return -1;
        }
    } else {
        first_line(out, q->sacct_note, sizeof q->sacct_note);
        if (!q->sacct_note[0])
            snprintf(q->sacct_note, sizeof q->sacct_note, "sacct failed");
    }
    free(out);
    return 0;
}

void sweep_queue_free(struct sweep_queue *q)
{
    free(q->jobs);
    *q = (struct sweep_queue){0};
}
