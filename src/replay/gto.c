/* Greedy-then-oldest (warp_policy "gto"): the SM stays on the warp it issued last while
 * that warp is ready, then takes the oldest ready warp. Functionally a warp is not ready
 * for scheduling.gto_miss_stall issue slots after an instruction that waits on data from
 * beyond its L1; timed, until its data returns. */
#include "replay/engine.h"

#include <math.h>

static uint32_t gto_pick(const struct sm *sm)
{
    /* If every warp waits on a miss, the one whose wait ends first. */
    uint32_t best = 0;
    for (uint32_t i = 0; i < sm->nactive; i++) {
        struct warp *w = sm->active[i];
        if (w == sm->current && w->sched.stall_until <= sm->issued)
            return i;
    }
    for (uint32_t i = 0; i < sm->nactive; i++) {
        if (sm->active[i]->sched.stall_until <= sm->issued)
            return i;
        if (sm->active[i]->sched.stall_until < sm->active[best]->sched.stall_until)
            best = i;
    }
    return best;
}

static const struct warp *gto_guess(const struct sm *sm)
{
    return sm->current ? sm->current : sm->active[gcr_sched_lrr_next(sm)];
}

/* The picked warp stays the current, ready one through its run. */
static uint64_t gto_sleep_nonmem(struct sm *sm, uint32_t index)
{
    uint64_t rounds = gcr_nonmem_spare(sm->active[index]);
    if (!rounds)
        return 0;
    sm->active[index]->nonmem_left -= (uint32_t)rounds;
    sm->last = (int32_t)index;
    sm->current = sm->active[index];
    return rounds;
}

static void gto_waited(const struct gcr_config *cfg, struct sm *sm, struct warp *w)
{
    w->sched.stall_until = sm->issued + cfg->gto_miss_stall;
}

/* Timed: the warp issued last while it stays ready, then the oldest ready ones. */
static uint32_t gto_pick_ready(struct gcr_replay *rp, struct sm *sm, double now, uint32_t max,
                               uint32_t *picks, double *next_ready)
{
    (void)rp;
    uint32_t n = sm->nactive, got = 0, cur = UINT32_MAX;
    double next = INFINITY;
    for (uint32_t i = 0; i < n; i++)
        if (sm->active[i] == sm->current && sm->active[i]->sched.ready_at <= now) {
            cur = i;
            picks[got++] = i;
        }
    for (uint32_t i = 0; i < n; i++) {
        double r = sm->active[i]->sched.ready_at;
        if (i == cur)
            continue;
        if (r <= now && got < max)
            picks[got++] = i;
        else if (r < next)
            next = r;
    }
    *next_ready = next > now ? next : now + 1;
    return got;
}

const struct gcr_warp_sched gcr_sched_gto = {
    .policy = GCR_WARP_GTO,
    .name = "gto",
    .pick = gto_pick,
    .guess = gto_guess,
    .sleep_nonmem = gto_sleep_nonmem,
    .waited = gto_waited,
    .pick_ready = gto_pick_ready,
};
