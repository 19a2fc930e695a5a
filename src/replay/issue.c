/* The functional issue driver: the SMs issue in rounds, each SM with warps one
 * instruction per round (the bus step is the round), in the order dispatch deals the
 * SMs CTAs ($.scheduling.sm_order; SM order by default). An SM inside a run
 * of non-memory instructions applies the whole run at once and sleeps through its
 * rounds. The warp scheduler (sched.h) picks the warp; the host prefetch pipeline
 * (host_prefetch.h) runs a few SMs ahead of the one issuing. */
#include <assert.h>

#include "replay/engine.h"
#include "replay/execute.h"

/* The picked warp at `index` of SM s is inside a run of non-memory instructions.
 * Issue slots that take no item from a queue and end no warp touch no cache and
 * change only this SM's warps and counters, so the SM applies the longest run of
 * them the scheduler can see at once (gcr_warp_sched.sleep_nonmem) and sleeps until
 * the round after (rp->wake). Nothing else reads its warps meanwhile: dispatch
 * places CTAs only on SMs whose own CTA just finished (placed), and the prefetcher
 * skips sleeping SMs. False when not even this slot qualifies (it issues the warp's
 * last instruction). */
static bool sleep_nonmem(struct gcr_replay *rp, uint32_t s, uint32_t index)
{
    uint64_t rounds = rp->sched->sleep_nonmem(&rp->sms[s], index);
    if (!rounds)
        return false;
    rp->sms[s].issued += rounds;
    rp->wake[s] = rp->bus.step + rounds;
    rp->kernel_counts.warp_insns += rounds;
    rp->kernel_counts.nonmem += rounds;
    return true;
}

/* variants: a constant, as gcr_execute_with takes it. */
static inline __attribute__((always_inline)) void sm_issue(struct gcr_replay *rp, uint32_t s,
                                                           const bool variants)
{
    struct sm *sm = &rp->sms[s];
    uint32_t index = rp->sched->pick(sm);
    struct warp *w = sm->active[index];
    if (w->nonmem_left && sleep_nonmem(rp, s, index))
        return;
    sm->last = (int32_t)index;
    sm->current = w;
    sm->issued++;
    struct gcr_lane_shape shape;
    if (gcr_next_insn(rp, w, &shape) && gcr_execute_with(rp, s, &shape, variants) &&
        rp->sched->waited)
        rp->sched->waited(rp->cfg, sm, w);
    if (!w->nonmem_left && gcr_warpq_empty(&w->q))
        gcr_warp_done(rp, sm, index);
}

/* The SMs that issue in this round, in the order dispatch deals them CTAs
 * ($.scheduling.sm_order: with it, CTAs dealt earlier issue earlier in a round,
 * whatever SMs run them), into rp->order; their number.
 * When every SM with warps sleeps, the rounds until the first one wakes are
 * skipped (rp->bus.step moves on). Functional replay only. */
static uint32_t issue_order(struct gcr_replay *rp)
{
    const struct gcr_config *const cfg = rp->cfg;
    const uint32_t S = cfg->num_sms;
    const uint64_t *const wake = rp->wake;
    uint32_t *const order = rp->order;
    for (;;) {
        uint32_t n = 0;
        const uint64_t step = rp->bus.step;
        /* Without a branch: about half the SMs issue in a round, in no
         * predictable pattern. Every SM is written at the end of the list and
         * kept only if awake (order has room for all of them). */
        for (uint32_t pos = 0; pos < S; pos++) {
            uint32_t s = gcr_sm_at(cfg, pos);
            order[n] = s;
            n += wake[s] <= step;
        }
        if (n)
            return n;
        uint64_t first_wake = UINT64_MAX;
        for (uint32_t s = 0; s < S; s++)
            if (rp->wake[s] < first_wake)
                first_wake = rp->wake[s];
        if (first_wake == UINT64_MAX)
            return 0;
        rp->bus.step = first_wake;
    }
}

static void functional_placed(struct gcr_replay *rp, uint32_t s, bool was_idle)
{
    /* An SM with warps is awake: only an SM that issued places a CTA (sleep_nonmem). */
    assert(was_idle || rp->wake[s] <= rp->bus.step);
    if (was_idle)
        rp->wake[s] = rp->bus.step;
}

/* A round ended: the next one's step, and new CTAs on the SMs where one finished. */
static inline int next_round(struct gcr_replay *rp, struct kernel_state *ks, struct gcr_err *err)
{
    rp->bus.step++;
    if (!ks->cta_finished)
        return 0;
    ks->cta_finished = false;
    return gcr_cta_dispatch(rp, err);
}

/* The rounds of a replay that drives other variants' memory systems (pass.c): the
 * same rounds, each SM's issue also reaching every variant. Without the host prefetch
 * pipeline, whose stages follow one memory system's caches (and whose one call site
 * keeps it inline in the loop below). */
static __attribute__((noinline)) int run_with_variants(struct gcr_replay *rp, struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    while (ks->resident) {
        uint32_t n = issue_order(rp);
        for (uint32_t j = 0; j < n; j++)
            sm_issue(rp, rp->order[j], true);
        rp->issued += n;
        if (next_round(rp, ks, err) != 0)
            return -1;
    }
    return 0;
}

static int functional_run(struct gcr_replay *rp, struct gcr_err *err)
{
    if (rp->nvariants)
        return run_with_variants(rp, err);
    struct kernel_state *ks = rp->ks;
    /* Read once: the calls in the loop would make the compiler read it again. */
    const bool org_prefetches = rp->org->prefetch != NULL;
    gcr_host_prefetch_begin(rp);
    while (ks->resident) {
        uint32_t n = issue_order(rp);
        const enum gcr_host_prefetch level = rp->hp.tuner.level;
        for (uint32_t j = 0; j < n + PREFETCH_WARP; j++) {
            gcr_host_prefetch_stages(rp, j, n, level, org_prefetches);
            if (j >= PREFETCH_WARP)
                sm_issue(rp, rp->order[j - PREFETCH_WARP], false);
        }
        rp->issued += n;
        gcr_host_prefetch_round_end(rp);
        if (next_round(rp, ks, err) != 0)
            return -1;
    }
    return 0;
}

const struct gcr_issue_driver gcr_issue_functional = {
    .name = "functional",
    .placed = functional_placed,
    .run = functional_run,
};
