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

/* How much of a report a file holds (--json-detail): the total only; the total and a summary
 * of every kernel (the default, gcr_report_kernel_summary); or everything. Below full, the
 * report is compact (no indentation) and leaves out every member that holds a figure per SM,
 * L2 slice, L1, node or channel: the members named per_<unit> and the arrays named
 * <figure>_per_<unit> or <figure>_of_<unit>, the convention every part of the report follows
 * (analyses/README.md, src/orgs/README.md). */
enum gcr_report_detail { GCR_REPORT_TOTALS = 0, GCR_REPORT_KERNELS, GCR_REPORT_FULL };
bool gcr_report_detail_parse(const char *s, enum gcr_report_detail *out);
/* A copy of a report's value without its per-unit members (NULL when out of memory). */
json_t *gcr_report_without_units(const json_t *v);
/* A kernel's report as --json-detail kernels keeps it, about 1 KB: its id, name, shape and
 * CTAs; warp, memory and non-memory instructions; per cache level the counts and rates of the
 * tables (accesses, hits, misses, miss_rate, mpki, line and sector misses, bytes fetched); the
 * traffic; each class's verdict and values (its rule is in the total); the timing figures
 * (not the resources); and the analyses and multi-chip sections without per-unit members. */
json_t *gcr_report_kernel_summary(const json_t *kernel);

/* A report written as the replay goes, kernel by kernel, so that no kernel
 * stays in memory once written (gcr_replay_set_kernel_sink): the head's
 * members (gcr_replay_report_head), "kernels" with each kernel handed to
 * gcr_report_writer_kernel, then the members of the final report
 * (gcr_replay_report) that are neither in the head nor "kernels". In full
 * detail the text is byte for byte what gcr_report_write_json writes for the
 * whole report with its members in that order, which is gcr_replay_report's
 * order; below it, what json_dumps writes in JSON_COMPACT for the report
 * without its per-unit members (and without "kernels" for totals), and a
 * newline. Like gcr_report_write_json's, the
 * file is complete or absent: it is a temporary file until _finish renames it
 * into place, and _abort (or any failure, which aborts) removes it; a writer
 * that failed refuses further calls. */
struct gcr_report_writer {
    struct gcr_atomic_file out;
    enum gcr_report_detail detail;
    json_t *head;   /* the members written before "kernels" (a reference) */
    size_t members; /* top-level members started */
    size_t kernels; /* kernels written */
    bool out_of_memory; /* why the last step failed, if it did: else I/O */
};
int gcr_report_writer_open(struct gcr_report_writer *w, const char *path, const json_t *head,
                           enum gcr_report_detail detail, struct gcr_err *err);
/* The same into descriptor fd, written in place (a scratch file, gcr_scratch_file); name is
 * the report's name in messages. */
int gcr_report_writer_open_fd(struct gcr_report_writer *w, int fd, const char *name,
                              const json_t *head, enum gcr_report_detail detail,
                              struct gcr_err *err);
int gcr_report_writer_kernel(struct gcr_report_writer *w, const json_t *kernel,
                             struct gcr_err *err);
int gcr_report_writer_finish(struct gcr_report_writer *w, const json_t *report,
                             struct gcr_err *err);
void gcr_report_writer_abort(struct gcr_report_writer *w);

/* ---- The tables for people (table.c) ------------------------------------------------------ */

/* --table: every table (the main one, analyses and classes, timing, LLC organisations), one
 * brief table of the figures that decide a screening, or none. */
enum gcr_table_style { GCR_TABLE_FULL = 0, GCR_TABLE_BRIEF, GCR_TABLE_NONE };
bool gcr_table_style_parse(const char *s, enum gcr_table_style *out);

/* What every column means, for --help and the README. */
extern const char gcr_table_legend[];

/* The tables of a run whose kernels are streamed (gcr_replay_set_kernel_sink): created from the
 * report's head (its config says which analyses ran, whether timing and several chips are on),
 * each kernel's rows formatted as it ends and kept as text, printed at the end with the total.
 * trace_column: the run has several traces, and add_kernel names the kernel's. Names are cut
 * so that a line fits in `width` characters (0: not cut). create and add_kernel return 0, or
 * -1 when out of memory. */
struct gcr_table;
int gcr_table_create(struct gcr_table **out, const json_t *head, enum gcr_table_style style,
                     bool trace_column);
int gcr_table_add_kernel(struct gcr_table *t, const json_t *kernel, const char *trace);
void gcr_table_print(struct gcr_table *t, const json_t *report, unsigned width, FILE *out);
void gcr_table_destroy(struct gcr_table *t);

/* The totals of the reports of a run with several configs side by side: a row per figure (the
 * main table's, the analyses' headlines, timing and SAC where some variant has them), a column
 * per variant headed by its name, in blocks of as many columns as fit in `width` characters
 * (0: all). Each report has the run's "variant" member. 0, or -1 out of memory. */
int gcr_table_print_variants(const json_t *const *reports, const char *const *names, size_t n,
                             unsigned width, FILE *out);

/* The full tables of a whole report (its "kernels" read): 0, or -1 out of memory. */
int gcr_report_print_table(const json_t *report, FILE *out);

/* The SAC table of a multi-chip report: per kernel, the EAB model's inputs, both EABs and the
 * choice, over the profiling window and the whole kernel. 0, or -1 out of memory. */
int gcr_report_print_sac(const json_t *report, unsigned width, FILE *out);

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
