/* How much of the next accesses' host state the functional issue loop
 * prefetches (replay.c, prefetch_stages), chosen by measuring.
 *
 * Prefetching the L1 and L2 models' state ahead of each SM's issue hides
 * host cache misses when that state is larger than the host's caches, and
 * is pure overhead when it is not: about 160 of the replay's ~1,100 x86
 * instructions per warp memory instruction. Which side wins depends on the
 * config (an 80-SM GPU with 32-KB L1s runs about 10 % faster without the
 * L2 hint, QV100's geometry about 20 % slower without it) and on the host,
 * so with GCR_HOST_PREFETCH_AUTO the replay measures: it runs each level
 * for a short trial epoch, twice, in the order L2, L1, queues, queues, L1,
 * L2 (a drift in the host's speed then weighs on every level alike), keeps
 * the level with the least CPU time per issued instruction for a long
 * epoch, and measures again. Prefetching changes nothing but the host's
 * caches, so reports are the same at every level.
 *
 * The tuner is pure logic: the replay gives it the issue count and the
 * clock, so tests can drive it with made-up times. */
#ifndef GCREPLAY_REPLAY_PREFETCH_TUNER_H
#define GCREPLAY_REPLAY_PREFETCH_TUNER_H

#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/replay.h"

/* Issues per trial epoch (about 10 ms at this replay's speed: long enough
 * for the CPU-time clock, short enough for the host's speed to stay put),
 * and per epoch of using the chosen level (32 trials' worth, so that trying
 * the other levels costs about 1 % when they are 10 % slower). */
enum { GCR_TUNER_TRIAL_ISSUES = 1 << 17, GCR_TUNER_USE_ISSUES = 1 << 25, GCR_TUNER_TRIALS = 12 };

struct gcr_prefetch_tuner {
    enum gcr_host_prefetch level; /* in use now */
    bool fixed;                   /* set by the caller: never changed */
    unsigned phase;               /* 0..GCR_TUNER_TRIALS-1: trial epochs; GCR_TUNER_TRIALS: use */
    uint64_t epoch_end;           /* the issue count that ends the epoch */
    uint64_t epoch_issues, epoch_ns; /* issue count and clock when the epoch began */
    double trial_best[GCR_HOST_PREFETCH_LEVELS]; /* least ns per issue of a trial, per level */
    uint64_t issues_at[GCR_HOST_PREFETCH_LEVELS]; /* issues of finished epochs, per level */
};

/* mode: a level, or GCR_HOST_PREFETCH_AUTO. issues and now_ns: the counts
 * at which the first epoch begins. */
void gcr_prefetch_tuner_init(struct gcr_prefetch_tuner *t, enum gcr_host_prefetch mode,
                             uint64_t issues, uint64_t now_ns);

/* The epoch that issues reached ends (issues >= t->epoch_end): books it and
 * starts the next, possibly at another level (t->level). */
void gcr_prefetch_tuner_epoch(struct gcr_prefetch_tuner *t, uint64_t issues, uint64_t now_ns);

/* Issues run at each level so far, the current epoch's included. */
void gcr_prefetch_tuner_shares(const struct gcr_prefetch_tuner *t, uint64_t issues,
                               uint64_t out[GCR_HOST_PREFETCH_LEVELS]);

#endif
