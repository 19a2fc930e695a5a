/* Report building and output: the only code that formats results. */
#ifndef GCREPLAY_REPORT_REPORT_H
#define GCREPLAY_REPORT_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/atomic_file.h"
#include "gcreplay/cache.h"
#include "gcreplay/error.h"

/* A JSON string for text that may not be valid UTF-8 (kernel names and paths
 * come from traces and file systems): invalid bytes become "%XX", so the
 * report stays valid JSON and nothing is dropped. Never NULL except on OOM. */
json_t *gcr_report_text(const char *s);

/* One cache level over a period: now - then (then may be NULL = since start),
 * summed over n units, plus per-unit arrays under per_name. */
json_t *gcr_report_level(const struct gcr_cache_stats *now, const struct gcr_cache_stats *then,
                         uint32_t n, const char *per_name, uint64_t warp_insns,
                         uint32_t sector_bytes);

/* Adds "classes" to a period (a kernel or the total) from its L1D, L2 and
 * instruction figures and, when the replication analysis ran, its ratio:
 * replication-sensitive (seed 000), cache-sensitive and memory-intensive
 * (seed 004), each with the thresholds and the values it used. */
void gcr_report_classes(json_t *period);

/* The canonical JSON text of a report (sorted as built, indented, fixed precision). */
char *gcr_report_dumps(const json_t *report);

/* Writes the JSON to path atomically: complete or absent. */
int gcr_report_write_json(const json_t *report, const char *path, struct gcr_err *err);

/* A report written as the replay goes, kernel by kernel, so that no kernel
 * stays in memory once written (gcr_replay_set_kernel_sink): the head's
 * members (gcr_replay_report_head), "kernels" with each kernel handed to
 * gcr_report_writer_kernel, then the members of the final report
 * (gcr_replay_report) that are neither in the head nor "kernels". The text is
 * byte for byte what gcr_report_write_json writes for the whole report with
 * its members in that order, which is gcr_replay_report's order. Like it, the
 * file is complete or absent: it is a temporary file until _finish renames it
 * into place, and _abort (or any failure, which aborts) removes it; a writer
 * that failed refuses further calls. */
struct gcr_report_writer {
    struct gcr_atomic_file out;
    json_t *head;   /* the members written before "kernels" (a reference) */
    size_t members; /* top-level members started */
    size_t kernels; /* kernels written */
    bool out_of_memory; /* why the last step failed, if it did: else I/O */
};
int gcr_report_writer_open(struct gcr_report_writer *w, const char *path, const json_t *head,
                           struct gcr_err *err);
int gcr_report_writer_kernel(struct gcr_report_writer *w, const json_t *kernel,
                             struct gcr_err *err);
int gcr_report_writer_finish(struct gcr_report_writer *w, const json_t *report,
                             struct gcr_err *err);
void gcr_report_writer_abort(struct gcr_report_writer *w);

/* The readable table of a report (with a table of both LLC organisations
 * when the config has several chips): 0, or -1 out of memory (nothing
 * printed). */
int gcr_report_print_table(const json_t *report, FILE *out);

/* The same table for a caller that streams the kernels
 * (gcr_replay_set_kernel_sink) and prints at the end: each kernel's rows are
 * formatted as it ends and kept as text, a line or three per kernel instead
 * of the kernel's report. gcr_report_print_table is these calls over the
 * report's kernels. _init and _add return 0, or -1 out of memory. */
enum { GCR_REPORT_ROW_TABLES = 3 }; /* the main, timing and LLC organisations' tables */
struct gcr_report_rows {
    FILE *f[GCR_REPORT_ROW_TABLES]; /* memory streams into text/len */
    char *text[GCR_REPORT_ROW_TABLES];
    size_t len[GCR_REPORT_ROW_TABLES];
};
int gcr_report_rows_init(struct gcr_report_rows *r);
int gcr_report_rows_add(struct gcr_report_rows *r, const json_t *kernel);
/* The table of report's config and total, with the kernel rows of `rows`
 * (the report's own "kernels", if any, are not read). */
void gcr_report_print_table_rows(const json_t *report, struct gcr_report_rows *rows, FILE *out);
void gcr_report_rows_free(struct gcr_report_rows *r);

/* The SAC table of a multi-chip report: per kernel, the EAB model's inputs,
 * both EABs and the choice, over the profiling window and the whole kernel. */
void gcr_report_print_sac(const json_t *report, FILE *out);

/* SAC's runtime check (gcreplay sac --timing; examples/sac/README.md). The
 * organisation a period runs faster with: "sm_side" when it takes strictly
 * fewer cycles, else "memory_side" (a tie keeps the baseline). */
const char *gcr_sac_runtime_winner(uint64_t memory_side_cycles, uint64_t sm_side_cycles);

/* Adds to every kernel's and the total's multichip.sac of a functional
 * multi-chip report a "runtime" object (per organisation its timed cycles and
 * limiting resource, sm_side_speedup = memory-side / SM-side cycles, winner)
 * and sets runtime_winner, from timing reports of the same trace replayed
 * with chips.llc = memory_side and = sm_side. Fails when the kernel counts or
 * the timing sections do not match. */
int gcr_report_sac_runtime(json_t *report, const json_t *timed_memory_side,
                           const json_t *timed_sm_side, struct gcr_err *err);

#endif
