/* gcreplay sweep: many traces x many configuration variants, one replay each, in parallel,
 * resumable, collected into CSV tables and a ranked summary (README, "A worked screening").
 *
 * The work is split in three, one file each:
 *   plan.c    what to run: the traces found (with an identity that tells when one changed),
 *             the variants (configs x --vary axes, each with its effective config), and the
 *             plan file sweep.json that records both;
 *   runner.c  running it: every (trace, variant) pair whose report is missing or stale is
 *             replayed by a `gcreplay run` child process, N at a time, the pairs of a trace
 *             whose variants can share a pass together, in one pass; a failure is recorded
 *             beside the reports and stops nothing else;
 *   collect.c reading it back: the reports under runs/ become summary.csv, kernels.csv,
 *             failures.csv and summary.txt, sorted, so that the outputs do not depend on the
 *             order or the parallelism the pairs ran with.
 * and, for a sweep spread over the nodes of a cluster:
 *   shard.c   the plan's pairs split into K shards, computed from the plan alone (every task
 *             of a job array computes the same split from the same sweep.json), the pairs of
 *             a trace that can share a pass in the same shard, and the marker each shard
 *             writes when it starts and when it ends;
 *   slurm.c   the Slurm job array whose task i runs shard i (`gcreplay sweep --shard i/K`),
 *             and the collect job after it; submitted with sbatch;
 *   status.c  what is done, failed, running and pending, from runs/, the markers, and
 *             squeue/sacct where Slurm answers.
 * A shard's task replays its pairs exactly as a local sweep would (the same runner, the same
 * atomic reports), so a task killed by a time limit loses only the replays it had running,
 * and submitting again resumes.
 *
 * The output folder:
 *   sweep.json                    the plan
 *   variants/<variant>.json       each variant's effective config (`gcreplay run --config` it)
 *   runs/<trace>/<variant>.json   the report, exactly what `gcreplay run --json` writes; when
 *                                 the pair shared a pass with others, with the "variant"
 *                                 member that `run --json-dir` adds (which pass, with whom)
 *   runs/<trace>/<variant>.failed why the pair failed: {"exit_status", "message"}
 *   summary.csv kernels.csv failures.csv summary.txt
 *   slurm/sweep.sbatch slurm/collect.sbatch   the job array and the collect job (--slurm)
 *   slurm/submission.json         the shards and the job ids submitted
 *   slurm/shards/<i>.json         shard i's marker: where and when it ran, what it did
 *   slurm/logs/                   the jobs' standard output and error
 * Every file is written atomically (src/core/atomic_file.h). */
#ifndef GCREPLAY_SWEEP_H
#define GCREPLAY_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gcreplay/error.h"

/* One trace of the sweep. */
struct sweep_trace {
    char *id;       /* unique, file-name safe: runs/<id>/ */
    char *path;     /* as found */
    uint64_t bytes; /* all its files: for longest-first scheduling */
    char *identity; /* sizes and modification times of its files: changes when they do */
};

/* One --vary axis: a config path and its values (JSON). */
struct sweep_axis {
    char *path;
    json_t *values; /* array */
};

/* One variant: a config file with one value of each axis. */
struct sweep_variant {
    char *id;            /* unique, file-name safe: <variant>.json */
    char *config;        /* the config file, as given */
    json_t *values;      /* object: axis path -> the value used */
    json_t *effective;   /* the effective config (gcr_config_to_json) */
};

struct sweep_plan {
    struct sweep_trace *traces;
    size_t ntraces;
    struct sweep_variant *variants;
    size_t nvariants;
    struct sweep_axis *axes;
    size_t naxes;
    json_t *sets;      /* array of the --set texts applied to every variant */
    bool timing;
    char *format;      /* --format, or NULL */
    char *rank_by;     /* the summary's metric */
    char *json_detail; /* what each report holds: totals, kernels or full (run --json-detail) */
};

/* What the command line asked for. */
struct sweep_request {
    const char *const *configs;
    size_t nconfigs;
    const char *const *varies; /* "PATH=V1,V2,..." */
    size_t nvaries;
    const char *const *sets;   /* "PATH=VALUE" */
    size_t nsets;
    const char *const *traces; /* files or folders */
    size_t ntraces;
    const char *out_dir;       /* not searched for traces */
    const char *format;
    const char *rank_by;
    const char *json_detail; /* NULL: kernels */
    bool timing;
};

/* plan.c */
int sweep_plan_build(struct sweep_plan *p, const struct sweep_request *rq, struct gcr_err *err);
json_t *sweep_plan_to_json(const struct sweep_plan *p);
int sweep_plan_from_json(struct sweep_plan *p, const json_t *j, const char *origin,
                         struct gcr_err *err);
void sweep_plan_free(struct sweep_plan *p);
/* The identity of the trace at path now (sizes and mtimes of its files), and its bytes. */
char *sweep_trace_identity(const char *path, const char *format, uint64_t *bytes);
/* Whether a metric can rank variants, and whether less of it is better. */
bool sweep_metric_known(const char *name, bool *lower_is_better);
/* The metrics sweep_metric_known accepts, for messages. */
const char *sweep_metric_names(void);

/* plan.c: which variants can share a pass of a trace (gcreplay run with several --config),
 * by gcr_replay_pass_key of their effective configs: group_of[v] is the first variant of v's
 * group (v itself when it needs a pass of its own). Returns the number of groups, or -1. */
int sweep_pass_groups(const struct sweep_plan *p, size_t *group_of, struct gcr_err *err);

/* runner.c: removes the reports the plan `now` cannot use: of a trace whose identity differs
 * from the one `before` (the plan of the last run; NULL: none) recorded, and of a config other
 * than the variant's effective one. So every report left belongs to the new plan. */
int sweep_forget_stale(const struct sweep_plan *now, const struct sweep_plan *before,
                       const char *dir, struct gcr_err *err);
/* runner.c: replays every pair not done yet, jobs at a time (force: all of them); with shards,
 * only the pairs of shard `shard` of that many. Returns the number of pairs that failed in this
 * call, or -1 when the sweep itself cannot go on; counts (NULL: not wanted) tells more. */
struct sweep_run_opts {
    unsigned jobs;   /* processes at once */
    bool one_pass;   /* the pairs of a trace that can share a pass replayed in one (a process
                      * each pass); false: a process each pair */
    bool force;
    bool progress;   /* on standard error, when it is a terminal */
    unsigned shard;  /* with shards: this one, from 0 */
    unsigned shards; /* 0: all the pairs */
};
struct sweep_run_counts {
    size_t pairs;       /* of the call: all, or the shard's */
    size_t done_before; /* with a report already */
    size_t replayed;    /* replayed now, successfully */
    size_t failed;      /* failed now */
};
int sweep_run(const struct sweep_plan *p, const char *dir, const struct sweep_run_opts *o,
              struct sweep_run_counts *counts, struct gcr_err *err);

/* runner.c: variants/<variant>.json, each variant's effective config, which the replays
 * read. The tasks of a job array only write those missing (only_missing): on a network
 * filesystem, a file renamed over while another node reads it can fail that read. */
int sweep_write_variants(const struct sweep_plan *p, const char *dir, bool only_missing,
                         struct gcr_err *err);

/* shard.c: shard_of[t * nvariants + v] = the shard, from 0, of pair (t, v). What is split
 * are units, the pairs of a trace whose variants can share a pass (sweep_pass_groups): they
 * go to the same shard, whether the shard replays them in one pass or not. */
int sweep_shard_partition(const struct sweep_plan *p, unsigned shards, unsigned *shard_of,
                          struct gcr_err *err);
/* How many units the plan has (more shards than that would leave some empty): SIZE_MAX with
 * err on failure. */
size_t sweep_shard_units(const struct sweep_plan *p, struct gcr_err *err);
/* slurm/shards/<shard>.json: written when the shard starts (finished NULL) and again when it
 * ends, with its counts. Its presence shows the collect step that the shard ran and wrote to
 * this very folder. */
int sweep_shard_mark(const char *dir, unsigned shard, unsigned shards,
                     const struct sweep_run_counts *finished, struct gcr_err *err);
char *sweep_shard_marker_path(const char *dir, unsigned shard);
/* The marker (an object), or NULL when there is none or it cannot be read. */
json_t *sweep_shard_marker(const char *dir, unsigned shard);
/* Removes every marker, before a new submission. */
int sweep_shard_forget_marks(const char *dir, struct gcr_err *err);
void sweep_host_name(char *out, size_t cap);
void sweep_now_text(char *out, size_t cap); /* UTC, ISO 8601 */

/* slurm.c: the job array and the collect job. */
enum { SWEEP_MAX_SHARDS = 100000, SWEEP_DEFAULT_SHARDS = 100 };
struct sweep_slurm_opts {
    const char *const *options; /* --slurm-opt: #SBATCH lines of both scripts */
    size_t noptions;
    unsigned shards;      /* 0: the pairs, at most SWEEP_DEFAULT_SHARDS */
    unsigned max_running; /* tasks at once; 0: as many as Slurm runs */
    unsigned cpus;        /* --cpus-per-task of a task; 0: Slurm's default */
    bool one_pass;        /* the tasks' sweep --one-pass */
};
struct sweep_slurm_layout {
    char *dir;            /* absolute */
    char *array_script;   /* slurm/sweep.sbatch */
    char *collect_script; /* slurm/collect.sbatch */
    unsigned shards;      /* as written: never more than the units (sweep_shard_units) */
    size_t pairs;
};
/* What was submitted, in slurm/submission.json (job ids empty: not submitted by gcreplay). */
struct sweep_submission {
    unsigned shards, max_running;
    size_t pairs;
    char array_job[32], collect_job[32];
};
/* Before any work: refuses a --slurm-opt that is no sbatch option, or the array's own; and a
 * sweep's folder whose absolute path an #SBATCH line cannot carry. */
int sweep_slurm_check_option(const char *opt, struct gcr_err *err);
int sweep_slurm_check_dir(const char *dir, struct gcr_err *err);
unsigned sweep_slurm_default_shards(size_t pairs);
/* Writes both scripts and the submission record (not submitted), and forgets the markers of
 * an earlier submission. */
int sweep_slurm_write(const struct sweep_plan *p, const char *dir,
                      const struct sweep_slurm_opts *o, struct sweep_slurm_layout *out,
                      struct gcr_err *err);
void sweep_slurm_layout_free(struct sweep_slurm_layout *l);
/* sbatch the array, then the collect job after it; records the ids. */
int sweep_slurm_submit(const struct sweep_slurm_layout *l, unsigned max_running,
                       struct sweep_submission *s, struct gcr_err *err);
int sweep_submission_save(const char *dir, const struct sweep_submission *s,
                          struct gcr_err *err);
/* 1 with the record, 0 when there is none (not a Slurm sweep), -1 with err. */
int sweep_submission_load(const char *dir, struct sweep_submission *s, struct gcr_err *err);

/* A job or an array task ("123_4") as squeue (live) or sacct tells it. */
struct sweep_job_state {
    char id[48], state[32], where[128]; /* where: squeue's nodes or reason; sacct's exit code */
    bool live;
};
struct sweep_queue {
    struct sweep_job_state *jobs;
    size_t n, cap;
    bool squeue_ok, sacct_ok;
    char squeue_note[256], sacct_note[256]; /* why not, when not */
};
/* Asks squeue and sacct about the jobs; what they cannot answer goes into the notes.
 * -1: out of memory or no process could be started. */
int sweep_slurm_query(const char *array_job, const char *collect_job, struct sweep_queue *q);
const struct sweep_job_state *sweep_queue_find(const struct sweep_queue *q, const char *id);
void sweep_queue_free(struct sweep_queue *q);

/* status.c: each pair's state, states[t * nvariants + v]. Running: its report is being
 * written (the temporary file is there). */
enum sweep_pair_state { SWEEP_PAIR_PENDING, SWEEP_PAIR_RUNNING, SWEEP_PAIR_DONE, SWEEP_PAIR_FAILED };
int sweep_pair_states(const struct sweep_plan *p, const char *dir, unsigned char *states,
                      struct gcr_err *err);
/* The text (or, as_json, the JSON) of `gcreplay sweep --status`; free *out. */
int sweep_status(const struct sweep_plan *p, const char *dir, bool as_json, char **out,
                 struct gcr_err *err);
/* For the collect step of a Slurm sweep: what leaves it incomplete, a line each into *report
 * (free it): a shard without its marker, pairs not run. Returns how many, or -1 with err. */
int sweep_slurm_check(const struct sweep_plan *p, const char *dir,
                      const struct sweep_submission *sub, char **report, struct gcr_err *err);

/* collect.c: the tables and the summary from runs/; the summary text is also returned (for
 * printing; free it). Returns the number of failed pairs, or -1 with err. */
int sweep_collect(const struct sweep_plan *p, const char *dir, char **summary,
                  struct gcr_err *err);

/* Small helpers shared by them all (plan.c). */
char *sweep_path(const char *dir, const char *a, const char *b, const char *ext);
int sweep_mkdir(const char *path, struct gcr_err *err);
int sweep_write_text(const char *path, const char *text, struct gcr_err *err);
int sweep_write_json(const char *path, const json_t *j, size_t flags, struct gcr_err *err);
/* A growing text: failed tells that memory ran out on the way (s is then not all of it). */
struct sweep_text {
    char *s;
    size_t len, cap;
    bool failed;
};
void sweep_put(struct sweep_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
