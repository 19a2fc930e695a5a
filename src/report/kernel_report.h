/* The report's figures of a period (a kernel or the whole run), read from the replay
 * engine's state (src/replay/engine.h): what gcr_replay_report and each kernel's report
 * hold besides the timing model's and the organisation's own sections. */
#ifndef GCREPLAY_REPORT_KERNEL_REPORT_H
#define GCREPLAY_REPORT_KERNEL_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/error.h"
#include "gcreplay/record.h"

struct gcr_replay;
struct insn_counts;

/* A kernel starts: its figures count from the statistics as they are now. */
void gcr_report_period_begin(struct gcr_replay *rp);
/* ctas, instructions, L1D, L2, traffic and (several chips) multichip of the period:
 * since the kernel's start (kernel) or since the run's. */
json_t *gcr_report_period(struct gcr_replay *rp, const struct insn_counts *counts, bool kernel);
/* Adds "analyses" to the period, each analysis's kernel or total section. */
int gcr_report_analyses(struct gcr_replay *rp, json_t *period, bool kernel, struct gcr_err *err);
/* A kernel's identity, the first members of its report: id, name, grid, block, shared
 * memory, registers, the CTAs an SM could hold and the L1's ways for it. */
json_t *gcr_report_kernel_head(const struct gcr_kernel_begin *kb, const char *name, uint32_t fit,
                               uint32_t l1d_ways);

#endif
