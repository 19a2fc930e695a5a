/* Report building and output: the only code that formats results. */
#ifndef GCREPLAY_REPORT_REPORT_H
#define GCREPLAY_REPORT_REPORT_H

#include <jansson.h>
#include <stdio.h>

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

/* The readable table of a report (with a table of both LLC organisations
 * when the config has several chips). */
void gcr_report_print_table(const json_t *report, FILE *out);

/* The SAC table of a multi-chip report: per kernel, the EAB model's inputs,
 * both EABs and the choice, over the profiling window and the whole kernel. */
void gcr_report_print_sac(const json_t *report, FILE *out);

#endif
