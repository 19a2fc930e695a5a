/* Where a sweep stands (sweep.h): each pair done, failed, running or pending, from what lies
 * under runs/; for a Slurm sweep also each shard, from its marker and from what squeue and
 * sacct say of its task. Only reads. */
#include "sweep/sweep.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int sweep_pair_states(const struct sweep_plan *p, const char *dir, unsigned char *states,
                      struct gcr_err *err)
{
    for (size_t t = 0; t < p->ntraces; t++) {
        char *tdir = sweep_path(dir, "runs", p->traces[t].id, NULL);
        if (!tdir)
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        unsigned char *row = states + t * p->nvariants;
        for (size_t v = 0; v < p->nvariants; v++) {
            char *report = sweep_path(tdir, p->variants[v].id, NULL, ".json");
            char *failed = sweep_path(tdir, p->variants[v].id, NULL, ".failed");
            struct stat st;
            if (!report || !failed) {
                free(report);
                free(failed);
                free(tdir);
                return gcr_fail(err, GCR_E_NOMEM, "out of memory");
            }
            row[v] = stat(report, &st) == 0   ? SWEEP_PAIR_DONE
                     : stat(failed, &st) == 0 ? SWEEP_PAIR_FAILED
                                              : SWEEP_PAIR_PENDING;
            free(report);
            free(failed);
        }
        /* A replay writes its report to VARIANT.json.tmp.XXXXXX and renames it when done
         * (src/core/atomic_file.h): while that file is there, the pair is running. */
        DIR *d = opendir(tdir);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            const char *tmp = strstr(e->d_name, ".json.tmp.");
            if (!tmp)
                continue;
            size_t n = (size_t)(tmp - e->d_name);
            for (size_t v = 0; v < p->nvariants; v++)
                if (row[v] == SWEEP_PAIR_PENDING && strlen(p->variants[v].id) == n &&
                    !strncmp(p->variants[v].id, e->d_name, n))
                    row[v] = SWEEP_PAIR_RUNNING;
        }
        if (d)
            closedir(d);
        free(tdir);
    }
    return 0;
}

/* Counts of each state, over the pairs of one shard (or all: shard_of NULL). */
struct tally {
    size_t pairs, by[4];
};

static struct tally count(const unsigned char *states, size_t n, const unsigned *shard_of,
                          unsigned shard)
{
    struct tally t = {0};
    for (size_t i = 0; i < n; i++)
        if (!shard_of || shard_of[i] == shard) {
            t.pairs++;
            t.by[states[i]]++;
        }
    return t;
}

static json_t *tally_json(const struct tally *t)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "pairs", (json_int_t)t->pairs, "done",
                     (json_int_t)t->by[SWEEP_PAIR_DONE], "failed",
                     (json_int_t)t->by[SWEEP_PAIR_FAILED], "running",
                     (json_int_t)t->by[SWEEP_PAIR_RUNNING], "pending",
                     (json_int_t)t->by[SWEEP_PAIR_PENDING]);
}

/* The array's job id: as submitted, else as a task wrote it in its marker ("123_4"). */
static void array_job_of(const struct sweep_submission *s, json_t *const *markers, char *out,
                         size_t cap)
{
    snprintf(out, cap, "%s", s->array_job);
    for (unsigned i = 0; !out[0] && i < s->shards; i++) {
        const char *job = json_string_value(json_object_get(markers[i], "job"));
        if (job)
            snprintf(out, cap, "%.*s", (int)strcspn(job, "_"), job);
    }
}

/* One shard's task as words: squeue's or sacct's state, else what its marker tells. */
static void task_words(const struct sweep_queue *q, const char *task, const json_t *marker,
                       char *out, size_t cap)
{
    const struct sweep_job_state *j = task[0] ? sweep_queue_find(q, task) : NULL;
    const char *host = json_string_value(json_object_get(marker, "host"));
    const char *started = json_string_value(json_object_get(marker, "started"));
    const char *ended = json_string_value(json_object_get(marker, "finished"));
    if (j && j->live && !strcmp(j->state, "PENDING"))
        snprintf(out, cap, "%s PENDING %s", j->id, j->where);
    else if (j && j->live)
        snprintf(out, cap, "%s %s on %s", j->id, j->state, j->where);
    else if (j)
        snprintf(out, cap, "%s %s, exit code %s", j->id, j->state, j->where);
    else if (ended)
        snprintf(out, cap, "%s ended on %s at %s: %lld replayed, %lld failed",
                 task[0] ? task : "shard", host ? host : "?", ended,
                 (long long)json_integer_value(json_object_get(marker, "replayed")),
                 (long long)json_integer_value(json_object_get(marker, "failed")));
    else if (started)
        snprintf(out, cap, "%s started on %s at %s, not ended: running, or stopped",
                 task[0] ? task : "shard", host ? host : "?", started);
    else
        snprintf(out, cap, "not started");
}

int sweep_status(const struct sweep_plan *p, const char *dir, bool as_json, char **out,
                 struct gcr_err *err)
{
    *out = NULL;
    size_t n = p->ntraces * p->nvariants;
    unsigned char *states = malloc(n ? n : 1);
    if (!states)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    struct sweep_submission sub;
    int rc = sweep_pair_states(p, dir, states, err);
    int slurm = rc == 0 ? sweep_submission_load(dir, &sub, err) : -1;
    if (slurm < 0)
        rc = -1;
    unsigned *shard_of = NULL;
    json_t **markers = NULL;
    struct sweep_queue q = {0};
    char array[32] = "";
    if (rc == 0 && slurm) {
        shard_of = malloc((n ? n : 1) * sizeof *shard_of);
        markers = calloc(sub.shards, sizeof *markers);
        rc = shard_of && markers ? sweep_shard_partition(p, sub.shards, shard_of, err)
                                 : gcr_fail(err, GCR_E_NOMEM, "out of memory");
        for (unsigned i = 0; rc == 0 && i < sub.shards; i++)
            markers[i] = sweep_shard_marker(dir, i);
        if (rc == 0)
            array_job_of(&sub, markers, array, sizeof array);
        if (rc == 0 && sweep_slurm_query(array, sub.collect_job, &q) != 0)
            rc = gcr_fail(err, GCR_E_IO, "cannot ask Slurm about the jobs: out of memory or "
                          "processes");
    }
    struct tally all = count(states, n, NULL, 0);
    struct sweep_text t = {0};
    json_t *j = NULL;
    if (rc == 0 && as_json) {
        j = json_pack("{s:s, s:I, s:I, s:o}", "dir", dir, "traces", (json_int_t)p->ntraces,
                      "variants", (json_int_t)p->nvariants, "pairs", tally_json(&all));
        json_t *slurm_j = json_null();
        if (j && slurm) {
            json_t *shards = json_array();
            for (unsigned i = 0; i < sub.shards; i++) {
                struct tally s = count(states, n, shard_of, i);
                char task[64] = "", words[512];
                if (array[0])
                    snprintf(task, sizeof task, "%s_%u", array, i);
                const struct sweep_job_state *js = task[0] ? sweep_queue_find(&q, task) : NULL;
                task_words(&q, task, markers[i], words, sizeof words);
                json_array_append_new(
                    shards, json_pack("{s:I, s:o, s:s?, s:s?, s:s?, s:O?, s:s}", "shard",
                                      (json_int_t)i, "pairs", tally_json(&s), "task",
                                      task[0] ? task : NULL, "state", js ? js->state : NULL,
                                      "where", js ? js->where : NULL, "marker", markers[i],
                                      "summary", words));
            }
            const struct sweep_job_state *cj =
                sub.collect_job[0] ? sweep_queue_find(&q, sub.collect_job) : NULL;
            slurm_j = json_pack("{s:I, s:o, s:s?, s:s?, s:o, s:s?, s:s?}", "shards",
                                (json_int_t)sub.shards, "max_running",
                                sub.max_running ? json_integer(sub.max_running) : json_null(),
                                "array_job", array[0] ? array : NULL, "collect_job",
                                sub.collect_job[0] ? sub.collect_job : NULL, "shard_states",
                                shards, "collect_state", cj ? cj->state : NULL, "collect_where",
                                cj ? cj->where : NULL);
            json_object_set_new(slurm_j, "squeue",
                                q.squeue_ok ? json_string("answered")
                                            : json_string(q.squeue_note));
            json_object_set_new(slurm_j, "sacct",
                                q.sacct_ok ? json_string("answered") : json_string(q.sacct_note));
        }
        if (j)
            json_object_set_new(j, "slurm", slurm_j);
        char *text = j ? json_dumps(j, JSON_INDENT(1)) : NULL;
        if (text)
            sweep_put(&t, "%s\n", text);
        else
            t.failed = true;
        free(text);
    } else if (rc == 0) {
        sweep_put(&t, "%s: %zu trace%s x %zu variant%s = %zu pairs: %zu done, %zu failed, "
                  "%zu running, %zu pending\n", dir, p->ntraces, p->ntraces == 1 ? "" : "s",
                  p->nvariants, p->nvariants == 1 ? "" : "s", all.pairs,
                  all.by[SWEEP_PAIR_DONE], all.by[SWEEP_PAIR_FAILED],
                  all.by[SWEEP_PAIR_RUNNING], all.by[SWEEP_PAIR_PENDING]);
        if (slurm) {
            if (array[0])
                sweep_put(&t, "Slurm: job array %s, %u shard%s", array, sub.shards,
                          sub.shards == 1 ? "" : "s");
            else
                sweep_put(&t, "Slurm: %u shard%s, no job id known (not submitted yet, or "
                          "by hand and no task has started)", sub.shards,
                          sub.shards == 1 ? "" : "s");
            if (sub.max_running)
                sweep_put(&t, ", at most %u at once", sub.max_running);
            if (sub.collect_job[0]) {
                const struct sweep_job_state *cj = sweep_queue_find(&q, sub.collect_job);
                sweep_put(&t, "; collect job %s", sub.collect_job);
                if (cj && cj->live)
                    sweep_put(&t, " %s %s", cj->state, cj->where);
                else if (cj)
                    sweep_put(&t, " %s, exit code %s", cj->state, cj->where);
                else if (q.squeue_ok)
                    sweep_put(&t, " no longer in the queue");
            }
            sweep_put(&t, "\n%5s  %6s  %6s  %6s  %7s  %7s  %s\n", "shard", "pairs", "done",
                      "failed", "running", "pending", "task");
            for (unsigned i = 0; i < sub.shards; i++) {
                struct tally s = count(states, n, shard_of, i);
                char task[64] = "", words[512];
                if (array[0])
                    snprintf(task, sizeof task, "%s_%u", array, i);
                task_words(&q, task, markers[i], words, sizeof words);
                sweep_put(&t, "%5u  %6zu  %6zu  %6zu  %7zu  %7zu  %s\n", i, s.pairs,
                          s.by[SWEEP_PAIR_DONE], s.by[SWEEP_PAIR_FAILED],
                          s.by[SWEEP_PAIR_RUNNING], s.by[SWEEP_PAIR_PENDING], words);
            }
            if (array[0] || sub.collect_job[0]) {
                if (!q.squeue_ok)
                    sweep_put(&t, "squeue did not answer: %s\n", q.squeue_note);
                if (!q.sacct_ok)
                    sweep_put(&t, "sacct did not answer (ended tasks are told by their "
                              "markers): %s\n", q.sacct_note);
            }
        }
    }
    json_decref(j);
    if (rc == 0 && t.failed)
        rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (unsigned i = 0; markers && i < sub.shards; i++)
        json_decref(markers[i]);
    free(markers);
    free(shard_of);
    free(states);
    sweep_queue_free(&q);
    if (rc != 0) {
        free(t.s);
        return -1;
    }
    *out = t.s;
    return 0;
}

int sweep_slurm_check(const struct sweep_plan *p, const char *dir,
                      const struct sweep_submission *sub, char **report, struct gcr_err *err)
{
    *report = NULL;
    size_t n = p->ntraces * p->nvariants;
    unsigned char *states = malloc(n ? n : 1);
    if (!states)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (sweep_pair_states(p, dir, states, err) != 0) {
        free(states);
        return -1;
    }
    struct sweep_text t = {0};
    int problems = 0;
    for (unsigned i = 0; i < sub->shards; i++) {
        json_t *m = sweep_shard_marker(dir, i);
        if (!m) {
            char *path = sweep_shard_marker_path(dir, i);
            sweep_put(&t, "shard %u of %u left no marker (%s): it never started (cancelled "
                      "before it ran), or it ran on a node that sees another folder at this "
                      "path; a sweep's folder must be on a filesystem that every node sees\n",
                      i, sub->shards, path ? path : "?");
            free(path);
            problems++;
        }
        json_decref(m);
    }
    struct tally all = count(states, n, NULL, 0);
    size_t missing = all.by[SWEEP_PAIR_PENDING] + all.by[SWEEP_PAIR_RUNNING];
    if (missing) {
        sweep_put(&t, "%zu of %zu pairs not run (a shard stopped before them: its time limit, "
                  "scancel, a node lost): submit again, with the same `gcreplay sweep --slurm` "
                  "command, to run only those\n", missing, all.pairs);
        problems++;
    }
    free(states);
    if (t.failed) {
        free(t.s);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    *report = t.s;
    return problems;
}
