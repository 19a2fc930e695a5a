/* The host-cache prefetch pipeline of the functional issue driver (host_prefetch.h). */
#include "replay/host_prefetch.h"

#include <stdlib.h>
#include <time.h>

#include "replay/engine.h"

int gcr_host_prefetch_init(struct host_prefetch *hp, uint32_t num_sms)
{
    hp->mode = GCR_HOST_PREFETCH_AUTO;
    hp->slots = calloc(num_sms, sizeof *hp->slots);
    return hp->slots ? 0 : -1;
}

void gcr_host_prefetch_fini(struct host_prefetch *hp)
{
    free(hp->slots);
    hp->slots = NULL;
}

/* Thousands of resident warps: neither the warp record, nor the queue head of
 * the warp an SM issues next, nor the L1 and L2 state its access will read is
 * likely to be in the host's cache, and each is found through the previous
 * one, so reading them when the SM issues would stall on a chain of misses.
 * Instead they are fetched in stages, ahead of the SM issuing in the round's
 * order of issuing SMs (issue.c), each stage PREFETCH_GAP SMs after the one
 * whose loads it reads: the record, then the head, then (through the
 * organisation's prefetch hint, when it has one, and the L2's) the caches'
 * bucket and set state, then their line record and LRU victim. The last two
 * stages run only at the host prefetch level that asks for them (the L1's at
 * GCR_HOST_PREFETCH_L1, both at _L2), which the tuner picks by measuring
 * (prefetch_tuner.h): they cost instructions, and pay only when the caches'
 * state does not stay in the host's caches anyway. rp->hp.slots[k] belongs to the k-th
 * SM of the round's order; nothing in it outlives the round. One SM apart is
 * enough since SMs sleeping through non-memory runs no longer take slots
 * (each issue now spends a whole memory access), and is faster than two:
 * shorter rounds' first SMs wait less for the pipeline to fill, and fewer
 * fetches are in flight at once. */

/* Step j of the round's pipeline over its n issuing SMs: each stage works on
 * the SM its distance behind the warp stage's (j), so the SM at position k
 * issues at step k + PREFETCH_WARP, after every stage ran for it. Unsigned
 * positions: one before the round's first SM wraps past n. */
void gcr_host_prefetch_stages(struct gcr_replay *rp, uint32_t j, uint32_t n,
                              enum gcr_host_prefetch level, bool org_prefetches)
{
    const struct warp *w;
    struct prefetch_slot *pf;
    uint32_t k = j;
    if (k < n) {
        rp->hp.slots[k].next = w = rp->sched->guess(&rp->sms[rp->order[k]]);
        __builtin_prefetch(w); /* a warp record may straddle two host lines */
        __builtin_prefetch((const char *)(w + 1) - 1);
    }
    if ((k = j - (PREFETCH_WARP - PREFETCH_HEAD)) < n) {
        pf = &rp->hp.slots[k];
        w = pf->next;
        /* Nothing to predict from in a non-memory run or an empty queue. */
        pf->head = w->nonmem_left ? NULL : gcr_warpq_head(&w->q);
        /* A strided instruction's item (the common one) may straddle two host lines. */
        __builtin_prefetch(w->q.buf + w->q.pos);
        __builtin_prefetch(w->q.buf + w->q.pos + GCR_WQ_STRIDED_BYTES - 1);
    }
    /* The level is the same for the whole round (read once per round), so a
     * position's follow stage below runs only after its start stage reset
     * its hints in the same round: no hint of an earlier round is followed. */
    if (level == GCR_HOST_PREFETCH_QUEUES)
        return;
    /* The hint's first stage predicts the SM's access from its queue head
     * (kept in its slot with each cache's hint); the second only follows it. */
    if ((k = j - (PREFETCH_WARP - PREFETCH_START)) < n) {
        pf = &rp->hp.slots[k];
        pf->l1.cache = pf->l2.cache = NULL;
        uint64_t addr;
        if (pf->head && gcr_warpq_item_addr(pf->head, &addr)) {
            if (org_prefetches)
                rp->org->prefetch(rp->org_self, rp->order[k], addr, &pf->l1);
            if (level == GCR_HOST_PREFETCH_L2) /* most L1 misses go there */
                gcr_memsys_prefetch(&rp->mem, addr, &pf->l2);
        }
    }
    if ((k = j - (PREFETCH_WARP - PREFETCH_FOLLOW)) < n) {
        pf = &rp->hp.slots[k];
        if (pf->l1.cache)
            gcr_cache_prefetch_follow(&pf->l1);
        if (pf->l2.cache)
            gcr_cache_prefetch_follow(&pf->l2);
    }
}

/* This thread's CPU time: what the prefetch tuner compares levels by. Wall
 * time would also count the time the host gave to other work. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0; /* no such clock: every level measures as free, the least one wins */
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void gcr_host_prefetch_begin(struct gcr_replay *rp)
{
    struct host_prefetch *hp = &rp->hp;
    if (hp->tuner_started)
        return;
    /* The L1 level adds nothing without the organisation's hook, nor
     * the L2 level with several chips (gcr_memsys_prefetch). */
    unsigned distinct = 1u << GCR_HOST_PREFETCH_QUEUES;
    if (rp->org->prefetch)
        distinct |= 1u << GCR_HOST_PREFETCH_L1;
    if (!rp->mem.chips)
        distinct |= 1u << GCR_HOST_PREFETCH_L2;
    gcr_prefetch_tuner_init(&hp->tuner, hp->mode, distinct, rp->issued, cpu_ns());
    hp->tuner_started = true;
}

void gcr_host_prefetch_round_end(struct gcr_replay *rp)
{
    if (rp->issued >= rp->hp.tuner.epoch_end)
        gcr_prefetch_tuner_epoch(&rp->hp.tuner, rp->issued, cpu_ns());
}
