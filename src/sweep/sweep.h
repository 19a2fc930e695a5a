/* gcreplay sweep: many traces x many configuration variants, one replay each, in parallel,
 * resumable, collected into CSV tables and a ranked summary (README, "Screening a suite").
 *
 * The work is split in three, one file each:
 *   plan.c    what to run: the traces found (with an identity that tells when one changed),
 *             the variants (configs x --vary axes, each with its effective config), and the
 *             plan file sweep.json that records both;
 *   runner.c  running it: every (trace, variant) pair whose report is missing or stale is
 *             replayed by a `gcreplay run` child process, N at a time; a failure is recorded
 *             beside the reports and stops nothing else;
 *   collect.c reading it back: the reports under runs/ become summary.csv, kernels.csv,
 *             failures.csv and summary.txt, sorted, so that the outputs do not depend on the
 *             order or the parallelism the pairs ran with.
 *
 * The output folder:
 *   sweep.json                    the plan
 *   variants/<variant>.json       each variant's effective config (`gcreplay run --config` it)
 *   runs/<trace>/<variant>.json   the report, exactly what `gcreplay run --json` writes
 *   runs/<trace>/<variant>.failed why the pair failed: {"exit_status", "message"}
 *   summary.csv kernels.csv failures.csv summary.txt
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

/* runner.c: removes the reports the plan `now` cannot use: of a trace whose identity differs
 * from the one `before` (the plan of the last run; NULL: none) recorded, and of a config other
 * than the variant's effective one. So every report left belongs to the new plan. */
int sweep_forget_stale(const struct sweep_plan *now, const struct sweep_plan *before,
                       const char *dir, struct gcr_err *err);
/* runner.c: replays every pair not done yet, jobs at a time (force: all of them). Returns the
 * number of pairs that failed in this call, or -1 when the sweep itself cannot go on. */
struct sweep_run_opts {
    unsigned jobs;
    bool force;
    bool progress; /* on standard error, when it is a terminal */
};
int sweep_run(const struct sweep_plan *p, const char *dir, const struct sweep_run_opts *o,
              struct gcr_err *err);

/* collect.c: the tables and the summary from runs/; the summary text is also returned (for
 * printing; free it). Returns the number of failed pairs, or -1 with err. */
int sweep_collect(const struct sweep_plan *p, const char *dir, char **summary,
                  struct gcr_err *err);

/* Small helpers shared by the three. */
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
