/* The reduced timing backend: turns the message chain of each executed
 * instruction into a completion cycle through bandwidth-limited resources.
 *
 * The functional replay stays the single source of cache behaviour. When an
 * instruction issues, the engine calls gcr_timing_insn_begin, executes it
 * functionally (the L1 organisation and the memory system publish
 * GCR_EV_L1_ACCESS and GCR_EV_TRANSFER events, which reach the model through
 * gcr_timing_observer on the event bus), then asks gcr_timing_insn_end when
 * the warp may issue again. The model, its latencies and rates and its known
 * sources of error are described in src/timing/README.md. */
#ifndef GCREPLAY_TIMING_TIMING_H
#define GCREPLAY_TIMING_TIMING_H

#include <jansson.h>
#include <stdint.h>

#include "gcreplay/analysis.h"
#include "gcreplay/config.h"
#include "gcreplay/error.h"
#include "gcreplay/record.h"

struct gcr_timing;

/* The bus subscriber: create() takes the sim info (options unused). Reports
 * go through gcr_timing_report, not through the analyses section. */
extern const struct gcr_analysis_ops gcr_timing_observer;

/* The model behind an observer created by gcr_timing_observer.create. */
struct gcr_timing *gcr_timing_of(void *observer_self);

/* A kernel starts: returns the cycle of its first possible issue (the end of
 * the previous kernel plus the launch latency). */
double gcr_timing_kernel_begin(struct gcr_timing *t);
/* The kernel's last warp finished at `end`: its figures go into the kernel
 * section; warp_insns and issue-cycles feed IPC and issue utilisation. */
json_t *gcr_timing_kernel_end(struct gcr_timing *t, double end, uint64_t warp_insns);
/* The whole run. */
json_t *gcr_timing_report_total(struct gcr_timing *t);

/* A warp memory instruction issues on SM sm at cycle `now`; lane_bytes:
 * active lanes x access width (what a shared-memory access moves). */
void gcr_timing_insn_begin(struct gcr_timing *t, uint32_t sm, double now, enum gcr_op op,
                           enum gcr_space space, uint32_t lane_bytes);
/* The cycle at which the warp may issue its next instruction. */
double gcr_timing_insn_end(struct gcr_timing *t);

/* VWS (scheduling.warp_policy "vws"): the instruction just executed made
 * `accesses` L1 accesses, `new_misses` of them read misses to an address the
 * SM's address miss table had not seen (which sets it). */
void gcr_timing_insn_l1_counts(const struct gcr_timing *t, uint32_t *accesses,
                               uint32_t *new_misses);
/* Clears SM sm's address miss table (every N_pred warp completions). */
void gcr_timing_amt_clear(struct gcr_timing *t, uint32_t sm);

#endif
