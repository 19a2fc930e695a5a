/* The functional issue driver's host-cache prefetch pipeline (host_prefetch.c): ahead
 * of each SM's issue, the host memory that issue will read is fetched into the host's
 * caches, in stages, so that the loads of one SM's issue overlap the work of the SMs
 * before it. It changes nothing but the host's caches: reports are the same at every
 * level (gcr_replay_set_host_prefetch). How much it fetches is measured as the replay
 * goes (prefetch_tuner.h). */
#ifndef GCREPLAY_REPLAY_HOST_PREFETCH_H
#define GCREPLAY_REPLAY_HOST_PREFETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/cache.h"
#include "gcreplay/replay.h"
#include "replay/prefetch_tuner.h"

struct gcr_replay;
struct warp;

/* What the prefetcher (gcr_host_prefetch_stages) predicted of an SM that issues this
 * round: the warp it will issue, guessed once (an SM's state changes only when
 * it issues, or at dispatch between rounds), and where that warp's access will
 * read the L1 and L2 (a NULL cache: nothing to follow). */
struct prefetch_slot {
    const struct warp *next;
    const uint8_t *head; /* next's queue head; NULL: no access to predict */
    struct gcr_cache_hint l1, l2;
};

struct host_prefetch {
    struct prefetch_slot *slots;  /* per position in the round's order of issuing SMs */
    /* What the stages fetch: as set, or measured (prefetch_tuner.h); the tuner
     * starts when the first kernel's functional issue loop does (never with the
     * timed driver, which does not prefetch). */
    enum gcr_host_prefetch mode;
    struct gcr_prefetch_tuner tuner;
    bool tuner_started;
};

/* The pipeline's depth: the SM at position k of a round's order issues at step
 * k + PREFETCH_WARP, after every stage ran for it (gcr_host_prefetch_stages). */
enum { PREFETCH_GAP = 1, PREFETCH_FOLLOW = PREFETCH_GAP, PREFETCH_START = 2 * PREFETCH_GAP,
       PREFETCH_HEAD = 3 * PREFETCH_GAP, PREFETCH_WARP = 4 * PREFETCH_GAP };

/* Allocates the slots for num_sms SMs (0, or -1 out of memory); fini frees them. */
int gcr_host_prefetch_init(struct host_prefetch *hp, uint32_t num_sms);
void gcr_host_prefetch_fini(struct host_prefetch *hp);
/* The functional driver starts a kernel's rounds (the first time, the tuner starts). */
void gcr_host_prefetch_begin(struct gcr_replay *rp);
/* Step j of a round of n issuing SMs (rp->order), at the round's level. */
void gcr_host_prefetch_stages(struct gcr_replay *rp, uint32_t j, uint32_t n,
                              enum gcr_host_prefetch level, bool org_prefetches);
/* After a round: rp->issued issue slots so far (the tuner's epochs). */
void gcr_host_prefetch_round_end(struct gcr_replay *rp);

#endif
