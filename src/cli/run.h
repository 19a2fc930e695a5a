/* gcreplay run, shared by its two halves: cmd_run.c (the options, one config) and
 * run_variants.c (several configs, side by side). */
#ifndef GCREPLAY_CLI_RUN_H
#define GCREPLAY_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "gcreplay/replay.h"
#include "report/report.h"

/* --config options one command line may give. */
enum { CLI_MAX_CONFIGS = 256 };

/* The command line, checked. */
struct run_args {
    const char **configs;
    size_t nconfigs;
    const char **sets;
    size_t nsets;
    char *const *traces;
    size_t ntraces;
    const char *json_path, *json_dir, *format, *thread_mode;
    enum gcr_table_style style;
    enum gcr_report_detail detail;
    enum gcr_host_prefetch prefetch;
    enum gcr_decode_ahead_mode decode;
    bool quiet, timing;
};

/* Whether a replay runs its analyses on a thread of their own (--analysis-thread). */
bool run_analysis_thread(const struct run_args *a, const struct gcr_replay *rp);

/* Several configs, or --json-dir: each a variant, the variants in passes (run_variants.c). */
int run_variants(const struct run_args *a);

#endif
