/* Loose round-robin (warp_policy "lrr"): every resident warp in turn, from the one after
 * the warp issued last, whether or not it waits on memory. */
#include "replay/engine.h"

#include <math.h>

uint32_t gcr_sched_lrr_next(const struct sm *sm)
{
    /* last < nactive, so no division is needed. */
    uint32_t i = (uint32_t)(sm->last + 1);
    return i < sm->nactive ? i : 0;
}

static uint32_t lrr_pick(const struct sm *sm)
{
    return gcr_sched_lrr_next(sm);
}

static const struct warp *lrr_guess(const struct sm *sm)
{
    return sm->active[gcr_sched_lrr_next(sm)];
}

/* The j-th warp from `index` on (n resident) is picked floor((R - 1 - j) / n) + 1 times
 * in R rounds (j < R), so R rounds qualify while R <= j + spare_j * n for each warp: the
 * slots of a non-memory phase of one SM's warps, or of rounds in which every warp is
 * inside a long run (a record may count up to 2^32 - 1 non-memory instructions). */
static uint64_t lrr_sleep_nonmem(struct sm *sm, uint32_t index)
{
    uint32_t n = sm->nactive;
    uint64_t rounds = (uint64_t)gcr_nonmem_spare(sm->active[index]) * n;
    uint32_t i = index;
    for (uint32_t j = 1; j < n && j < rounds; j++) {
        if (++i == n)
            i = 0;
        uint64_t r = j + (uint64_t)gcr_nonmem_spare(sm->active[i]) * n;
        if (r < rounds)
            rounds = r;
    }
    if (!rounds)
        return 0;
    /* R = q * n + e rounds pick the j-th warp q + (j < e) times. */
    uint64_t q = rounds / n;
    uint32_t e = (uint32_t)(rounds % n);
    i = index;
    for (uint32_t j = 0; j < n && j < rounds; j++) {
        sm->active[i]->nonmem_left -= (uint32_t)q + (j < e);
        if (++i == n)
            i = 0;
    }
    uint32_t last = index + (e ? e - 1 : n - 1);
    if (last >= n)
        last -= n;
    sm->last = (int32_t)last;
    sm->current = sm->active[last];
    return rounds;
}

/* Timed: the ready warps from the one after the warp issued last. */
static uint32_t lrr_pick_ready(struct gcr_replay *rp, struct sm *sm, double now, uint32_t max,
                               uint32_t *picks, double *next_ready)
{
    (void)rp;
    uint32_t n = sm->nactive, got = 0;
    double next = INFINITY;
    uint32_t i = (uint32_t)(sm->last + 1);
    for (uint32_t k = 0; k < n; k++, i++) {
        if (i >= n)
            i = 0;
        double r = sm->active[i]->sched.ready_at;
        if (r <= now && got < max)
            picks[got++] = i;
        else if (r < next)
            next = r;
    }
    *next_ready = next > now ? next : now + 1;
    return got;
}

const struct gcr_warp_sched gcr_sched_lrr = {
    .policy = GCR_WARP_LRR,
    .name = "lrr",
    .pick = lrr_pick,
    .guess = lrr_guess,
    .sleep_nonmem = lrr_sleep_nonmem,
    .pick_ready = lrr_pick_ready,
};
