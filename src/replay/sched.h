/* Warp schedulers: which resident warp of an SM issues. One interface for every
 * policy of $.scheduling.warp_policy: lrr (lrr.c), gto (gto.c) and vws
 * (src/timing/vws.c, timed only). The issue drivers (engine.h) decide which SM
 * issues when; the scheduler only picks inside the SM.
 *
 * A policy is functional, timed or both. The functional driver calls pick, guess,
 * sleep_nonmem and waited; the timed driver calls pick_ready and the optional
 * after_memory and warp_finished. A policy without pick needs the timing backend,
 * which the replay checks at create. Adding a policy: a file with its
 * struct gcr_warp_sched and one entry in gcr_warp_scheds (sched.c). */
#ifndef GCREPLAY_REPLAY_SCHED_H
#define GCREPLAY_REPLAY_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/config.h"
#include "gcreplay/record.h"

struct gcr_replay;
struct sm;
struct warp;

/* What the schedulers keep per warp (reset when its CTA is loaded). */
struct gcr_warp_sched_state {
    uint64_t stall_until; /* gto, functional: SM issue slot at which the warp is ready again */
    double ready_at;      /* timed: the cycle at which the warp may issue again */
    /* vws: saturating L1 access and new-address miss counters, whether the
     * warp is in the first scheduling level, whether it waits on memory. */
    uint32_t vws_accesses, vws_misses;
    bool level1, mem_wait;
    /* timed, with register dependencies from the trace (regs_known); at a barrier. */
    bool regs_known, at_barrier;
    double writes_acked; /* timed: when the warp's last store or reduction is acknowledged */
    struct gcr_warp_scoreboard *sb; /* timed only (NULL in a functional replay): below */
};

/* The per-warp scoreboard of src/timing/README.md, for the timed driver: kept beside the
 * warps (struct cta), so that a functional replay's warps do not carry it. */
struct gcr_warp_scoreboard {
    /* mem_done[i % GCR_WAIT_WINDOW]: the cycle the data of the warp's memory instruction i is
     * back (mem_count issued so far); mem_done_older the latest of those that left the
     * window. */
    uint32_t mem_count;
    double mem_done_older;
    double mem_done[GCR_WAIT_WINDOW];
    /* The waits of the warp's next instruction, taken off its queue once the one before
     * issued; and when the results of its last GCR_ALU_WINDOW non-memory instructions are
     * written back (alu_done[i % GCR_ALU_WINDOW], alu_count issued so far). */
    uint32_t next_waits;
    uint32_t alu_count;
    double alu_done[GCR_ALU_WINDOW];
};

struct gcr_warp_sched {
    enum gcr_warp_policy policy;
    const char *name; /* as $.scheduling.warp_policy spells it */

    /* Functional. The index in sm->active of the warp the SM issues now
     * (sm->nactive > 0; sm->issued is the slot). NULL: timed only. */
    uint32_t (*pick)(const struct sm *sm);
    /* The warp the SM will probably issue next: a guess for host prefetching only. */
    const struct warp *(*guess)(const struct sm *sm);
    /* The picked warp `index` is inside a run of non-memory instructions.
     * Applies the longest run of the SM's next issue slots that take no item from
     * a queue and end no warp, as issuing them one by one would (the warps'
     * nonmem_left, sm->last and sm->current), and returns how many (0: not even
     * this slot qualifies). The driver accounts for the slots (issue.c). */
    uint64_t (*sleep_nonmem)(struct sm *sm, uint32_t index);
    /* Warp w's memory instruction waits for data from beyond its L1 (a load that
     * missed or bypassed it, an atomic). May be NULL. */
    void (*waited)(const struct gcr_config *cfg, struct sm *sm, struct warp *w);

    /* Timed. Up to `max` warps ready at cycle `now`, each once, in the policy's
     * order, into picks (indices in sm->active); *next_ready: the earliest cycle
     * at which a warp not picked becomes ready (now + 1 if one is ready already).
     * NULL: functional only. */
    uint32_t (*pick_ready)(struct gcr_replay *rp, struct sm *sm, double now, uint32_t max,
                           uint32_t *picks, double *next_ready);
    /* Optional: warp w issued a memory instruction at `now`; may bring *next (the
     * SM's next issue cycle) forward. */
    void (*after_memory)(struct gcr_replay *rp, struct sm *sm, struct warp *w, double now,
                         double *next);
    /* Optional: warp w of SM s issued its last instruction. */
    void (*warp_finished)(struct gcr_replay *rp, uint32_t s, const struct warp *w);
};

extern const struct gcr_warp_sched gcr_sched_lrr, gcr_sched_gto, gcr_sched_vws;

/* The scheduler of a policy (every enum gcr_warp_policy has one). */
const struct gcr_warp_sched *gcr_warp_sched_of(enum gcr_warp_policy policy);

/* Loose round-robin order: the index of the resident warp after the one issued last
 * (sm->last, -1 before any), wrapping to 0. Shared by the policies that fall back to it. */
uint32_t gcr_sched_lrr_next(const struct sm *sm);

#endif
