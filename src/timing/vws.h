/* The versatile warp scheduler's throttling estimator (seed 004, Ch. 4:
 * IWL), one per SM. The engine feeds it each finished warp's counters; it
 * answers how many warps may be active (N_act). The two-level scheduler
 * that uses N_act lives with the timed issue loop (src/replay/replay.c);
 * the address miss table that fills the miss counters lives in the timing
 * model (timing.c). Formulas and the readings chosen where the dissertation
 * is silent: src/timing/README.md, "VWS". */
#ifndef GCREPLAY_TIMING_VWS_H
#define GCREPLAY_TIMING_VWS_H

#include <stdbool.h>
#include <stdint.h>

/* Warp counters saturate at 10 bits, as in the hardware proposal. */
#define GCR_VWS_COUNTER_MAX 1023u

struct gcr_vws_sm {
    double ws;          /* smoothed working set per warp (Eq 4.1), in L1 blocks */
    double rr;          /* smoothed re-reference degree (Eq 4.4) */
    bool have_estimate; /* a warp with misses has finished */
    uint32_t finished;  /* warps finished in this kernel */
    uint32_t n_pred;    /* sampling length (Eq 4.2) and AMT clearing period */
    uint32_t n_act;     /* warps allowed to be active (UINT32_MAX: no limit) */
};

/* A kernel starts on an SM that will run about warps_per_sm warps:
 * sampling runs until ceil(alpha * warps_per_sm) of them finish. */
void gcr_vws_kernel_begin(struct gcr_vws_sm *v, uint64_t warps_per_sm, double alpha);

/* A warp finished with `misses` new-address L1 misses and `accesses` L1
 * accesses (both saturated). Returns true when the SM's address miss table
 * must be cleared (every n_pred completions). l1_blocks: L1 lines. */
bool gcr_vws_warp_done(struct gcr_vws_sm *v, uint32_t misses, uint32_t accesses, double beta,
                       uint32_t l1_blocks);

#endif
