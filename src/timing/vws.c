/* The versatile warp scheduler (seed 004): IWL throttling (Eq 4.1-4.6) and the
 * two-level scheduler that uses it (timed only). */
#include "timing/vws.h"

#include <math.h>

#include "replay/engine.h"
#include "timing/timing.h"

void gcr_vws_kernel_begin(struct gcr_vws_sm *v, uint64_t warps_per_sm, double alpha)
{
    /* Eq 4.2 taken as alpha x (warps per SM): the footnote's N_CTA already
     * divides by the SM count, so the literal formula would divide twice. */
    double n = ceil(alpha * (double)warps_per_sm);
    *v = (struct gcr_vws_sm){.n_pred = n < 1 ? 1 : n > 1e9 ? 1000000000u : (uint32_t)n,
                             .n_act = UINT32_MAX};
}

bool gcr_vws_warp_done(struct gcr_vws_sm *v, uint32_t misses, uint32_t accesses, double beta,
                       uint32_t l1_blocks)
{
    v->finished++;
    /* A warp without new misses says nothing about its working set: skip it
     * (Eq 4.5 would divide by zero). The first estimate starts the averages. */
    if (misses > 0) {
        double rr_new = (double)accesses / misses; /* Eq 4.5 */
        if (!v->have_estimate) {
            v->ws = misses;
            v->rr = rr_new;
            v->have_estimate = true;
        } else {
            v->ws = 0.5 * v->ws + 0.5 * misses; /* Eq 4.1 */
            v->rr = 0.5 * v->rr + 0.5 * rr_new; /* Eq 4.4 */
        }
    }
    /* Sampling ends after n_pred completions; from then on, Eq 4.6. */
    if (v->finished >= v->n_pred && v->have_estimate) {
        double n = ceil(beta * l1_blocks / (v->ws * v->rr));
        v->n_act = n < 1 ? 1 : n > 1e9 ? 1000000000u : (uint32_t)n;
    }
    return v->finished % v->n_pred == 0;
}

/* ------------------------------------------------------------- the scheduler */

/* VWS (seed 004, src/timing/README.md): IWL allows the oldest n_act warps
 * (IntraCL: contiguous slots, so the fewest CTAs); of those, at most
 * level1_warps form the first level of a two-level scheduler, issued
 * greedy-then-oldest. A first-level warp that waits on memory is demoted;
 * the warp promoted in its place belongs, by priority, to a CTA already in
 * the first level, to its predecessor CTA, to its successor, else is the
 * oldest (InterCL). */
static uint32_t vws_pick_ready(struct gcr_replay *rp, struct sm *sm, double now, uint32_t max,
                               uint32_t *picks, double *next_ready)
{
    uint32_t n = sm->nactive;
    /* The oldest n_act warps are allowed, not counting warps waiting at a barrier: those wait
     * for others of their CTA, which must be able to issue (with the barrier's waiters
     * counted, a window of warps all at a barrier would stop the SM for good). */
    uint32_t nact = 0;
    for (uint32_t allowed = 0; nact < n && allowed < sm->vws.n_act; nact++)
        allowed += !sm->active[nact]->sched.at_barrier;
    uint32_t cap = rp->cfg->timing.vws_level1_warps, in1 = 0;
    uint32_t lo = UINT32_MAX, hi = 0; /* CTA ids present in the first level */
    for (uint32_t i = 0; i < n; i++) {
        struct warp *w = sm->active[i];
        if (w->sched.level1 && (i >= nact || w->sched.at_barrier ||
                                (w->sched.mem_wait && w->sched.ready_at > now)))
            w->sched.level1 = false; /* demoted: it waits (memory, a barrier) or left the window */
        if (w->sched.level1) {
            in1++;
            lo = w->cta->id < lo ? w->cta->id : lo;
            hi = w->cta->id > hi ? w->cta->id : hi;
        }
    }
    while (in1 < cap) {
        uint32_t best = UINT32_MAX, best_rank = 4;
        for (uint32_t i = 0; i < nact && best_rank > 0; i++) {
            struct warp *w = sm->active[i];
            if (w->sched.level1 || w->sched.at_barrier ||
                (w->sched.mem_wait && w->sched.ready_at > now))
                continue;
            uint32_t id = w->cta->id, rank = 3;
            if (in1 && id >= lo && id <= hi)
                rank = 0; /* first-level CTAs are consecutive ids: lo..hi */
            else if (in1 && id + 1 == lo)
                rank = 1;
            else if (in1 && id == hi + 1)
                rank = 2;
            if (rank < best_rank) {
                best_rank = rank;
                best = i;
            }
        }
        if (best == UINT32_MAX)
            break;
        struct warp *w = sm->active[best];
        w->sched.level1 = true;
        in1++;
        lo = w->cta->id < lo ? w->cta->id : lo;
        hi = w->cta->id > hi ? w->cta->id : hi;
    }
    /* GTO inside the first level. The SM's next event: a first-level warp
     * becoming ready or, while the level has room, any allowed warp. */
    uint32_t got = 0, cur = UINT32_MAX;
    double next = INFINITY;
    for (uint32_t i = 0; i < nact; i++)
        if (sm->active[i] == sm->current && sm->active[i]->sched.level1 &&
            sm->active[i]->sched.ready_at <= now) {
            cur = i;
            picks[got++] = i;
        }
    for (uint32_t i = 0; i < nact; i++) {
        struct warp *w = sm->active[i];
        if (i == cur)
            continue;
        if (w->sched.level1 && w->sched.ready_at <= now && got < max)
            picks[got++] = i;
        else if ((w->sched.level1 || in1 < cap) && w->sched.ready_at < next)
            next = w->sched.ready_at;
    }
    /* A picked warp that goes to memory is demoted at once, and a second-level
     * warp may take its place next cycle. */
    rp->vws_spare = in1 == cap && nact > cap;
    *next_ready = next > now ? next : now + 1;
    return got;
}

/* After a memory instruction: the warp's saturating counters, and whether it
 * now waits on memory beyond an L1 hit. */
static void vws_after_memory(struct gcr_replay *rp, struct sm *sm, struct warp *w, double now,
                             double *next)
{
    (void)sm;
    uint32_t acc, miss;
    gcr_timing_insn_l1_counts(rp->timing, &acc, &miss);
    struct gcr_warp_sched_state *st = &w->sched;
    st->vws_accesses = st->vws_accesses + acc > GCR_VWS_COUNTER_MAX ? GCR_VWS_COUNTER_MAX
                                                                    : st->vws_accesses + acc;
    st->vws_misses = st->vws_misses + miss > GCR_VWS_COUNTER_MAX ? GCR_VWS_COUNTER_MAX
                                                                 : st->vws_misses + miss;
    st->mem_wait = st->ready_at > now + rp->cfg->timing.l1_latency;
    if (st->mem_wait && rp->vws_spare)
        *next = now + 1;
}

static void vws_warp_finished(struct gcr_replay *rp, uint32_t s, const struct warp *w)
{
    if (gcr_vws_warp_done(&rp->sms[s].vws, w->sched.vws_misses, w->sched.vws_accesses,
                          rp->cfg->timing.vws_beta, rp->l1_blocks))
        gcr_timing_amt_clear(rp->timing, s);
}

const struct gcr_warp_sched gcr_sched_vws = {
    .policy = GCR_WARP_VWS,
    .name = "vws",
    .pick_ready = vws_pick_ready,
    .after_memory = vws_after_memory,
    .warp_finished = vws_warp_finished,
};
