/* The reduced timing backend: turns the messages of each executed instruction
 * into a completion cycle through bandwidth-limited resources.
 *
 * The functional replay stays the single source of cache behaviour; the
 * timing backend only times it. When an instruction issues, the timed issue
 * driver (timed.c) calls gcr_timing_insn_begin and executes it functionally.
 * Where the L1 organisation looks a request up in an L1, it calls
 * gcr_timing_l1_lookup; where it or the memory system sends a message on a
 * network, it calls gcr_timing_send (through the helpers of
 * src/replay/l1org.h and memsys.c, which also publish the matching events to
 * observers). The driver then asks gcr_timing_insn_end when the warp may issue
 * again. The model, its latencies and rates and its known sources of error
 * are described in src/timing/README.md.
 *
 * The calls of one instruction follow its requests, each in the order its
 * messages flow: for each request, its core-to-L1 message (if the L1 is
 * remote), its L1 lookup, then what the lookup sends below (request to the L2
 * slice, DRAM, the reply back up), then the next request. The backend
 * chains each message after the previous one of the same request; the
 * organisation contract (include/gcreplay/l1org.h) states this obligation and
 * tests/unit/replay/message_order.c checks it for every organisation. */
#ifndef GCREPLAY_TIMING_TIMING_H
#define GCREPLAY_TIMING_TIMING_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/analysis.h"
#include "gcreplay/cache.h"
#include "gcreplay/config.h"
#include "gcreplay/error.h"
#include "gcreplay/record.h"

struct gcr_timing;

/* The model of the GPU info->config describes (its timing section); reports
 * go into each kernel's and the run's "timing" section, not "analyses". */
int gcr_timing_create(struct gcr_timing **out, const struct gcr_sim_info *info,
                      struct gcr_err *err);
void gcr_timing_destroy(struct gcr_timing *t);

/* A kernel starts: returns the cycle of its first possible issue (the end of
 * the previous kernel plus the launch latency). */
double gcr_timing_kernel_begin(struct gcr_timing *t);
/* The kernel's last warp finished at `end`: its figures go into the kernel
 * section; warp_insns and issue-cycles feed IPC and issue utilisation. */
json_t *gcr_timing_kernel_end(struct gcr_timing *t, double end, uint64_t warp_insns);
/* The whole run. */
json_t *gcr_timing_report_total(struct gcr_timing *t);

/* The cycles a shared-memory access of the lanes in mask holds `banks` banks of 4-B words
 * (src/timing/README.md, "Shared-memory banks"): its busiest bank's distinct words. Lane k
 * (k-th active) reads base + k x stride when strided, else addr[lane]. */
uint32_t gcr_timing_shared_bank_cycles(uint32_t mask, const uint64_t *addr, bool strided,
                                       uint64_t base, int64_t stride, uint32_t banks);

/* A warp memory instruction issues on SM sm at cycle `now`; lane_bytes:
 * active lanes x access width (what a shared-memory access moves). */
void gcr_timing_insn_begin(struct gcr_timing *t, uint32_t sm, double now, enum gcr_op op,
                           enum gcr_space space, uint32_t lane_bytes);
/* The cycle at which the warp's data is back (a load's, an atomic's; for a store or a
 * reduction the cycle after issue), in *accepted the cycle after the instruction's last
 * access entered its L1 bank (the cycle after issue when none did): when the LD/ST
 * unit can take the warp's next memory instruction, and in *acked the cycle its writes (a
 * store's, a reduction's) are acknowledged (the cycle after issue when it has none): the warp
 * cannot end before. */
double gcr_timing_insn_end(struct gcr_timing *t, double *accepted, double *acked);

/* A request reaches the tags of L1 instance `unit` (sectors of line; a store
 * when is_write) with the given outcome, fetching the sectors `fetching` from
 * below. Its accesses (one per sector) enter the instance's banks; a read miss
 * takes one of the requesting SM's MSHRs until its data arrives, and a hit on
 * sectors still in flight waits for them. */
void gcr_timing_l1_lookup(struct gcr_timing *t, uint32_t unit, uint64_t line, uint32_t sectors,
                          bool is_write, enum gcr_outcome outcome, uint32_t fetching);
/* A message of `bytes` data bytes (plus timing.header_bytes) goes from `from`
 * to `to` on network `net` (gcreplay/analysis.h: endpoints per network), as
 * a request (downstream) or a reply, for line. It occupies the resources on
 * its way and moves the current request's time on. */
void gcr_timing_send(struct gcr_timing *t, enum gcr_net net, uint32_t from, uint32_t to,
                     uint32_t bytes, bool downstream, uint64_t line);

/* The current request's lookup in L2 slice `slice` (sectors of line) hit, or fetched
 * from DRAM (or across the fabric): a hit on sectors still on their way from DRAM waits
 * for them. Called before the request's messages below the slice. */
void gcr_timing_l2_lookup(struct gcr_timing *t, uint32_t slice, uint64_t line, uint32_t sectors,
                          bool hit);

/* The L2 request coalescer, timed (src/l2/request_coalescer.h): when the
 * current request reaches the coalescer in front of the slices (it leaves its
 * L1 plus the NoC's latency), and, after a request went on to its slice, the
 * cycle its reply's data left the slice (its data is back at the coalescer). */
double gcr_timing_l2_arrival(const struct gcr_timing *t);
double gcr_timing_reply_at_slice(const struct gcr_timing *t);
/* A read the coalescer answered: its `bytes` of data go from slice to port from
 * cycle `ready`, through the slice's output and the SM's ejection port. */
void gcr_timing_merged_reply(struct gcr_timing *t, uint32_t slice, uint32_t port, uint32_t bytes,
                             double ready);

/* A partitioned L2 (l2.partitions): the current request missed in slice `near` and
 * is looked up across the fabric in slice `far`; then the answer, with `bytes` of
 * data found on the far side, crosses back from `far` to `near`. */
void gcr_timing_fabric_lookup(struct gcr_timing *t, uint32_t near, uint32_t far);
void gcr_timing_fabric_return(struct gcr_timing *t, uint32_t far, uint32_t near, uint32_t bytes);

/* VWS (scheduling.warp_policy "vws"): the instruction just executed made
 * `accesses` L1 accesses, `new_misses` of them read misses to an address the
 * SM's address miss table had not seen (which sets it). */
void gcr_timing_insn_l1_counts(const struct gcr_timing *t, uint32_t *accesses,
                               uint32_t *new_misses);
/* Clears SM sm's address miss table (every N_pred warp completions). */
void gcr_timing_amt_clear(struct gcr_timing *t, uint32_t sm);

#endif
