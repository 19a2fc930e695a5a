/* How much of the next accesses' host state the functional issue loop
 * prefetches (replay.c, prefetch_stages), chosen by measuring.
 *
 * Prefetching the L1 and L2 models' state ahead of each SM's issue hides
 * host cache misses when that state is larger than the host's caches, and
 * is pure overhead when it is not: about 160 of the replay's ~1,100 x86
 * instructions per warp memory instruction. Which side wins depends on the
 * config (the bench's built-in 80-SM GPU with 32-KB L1s runs faster
 * without the L1 and L2 stages, QV100's 128-KB L1s slower) and on the
 * host, so with GCR_HOST_PREFETCH_AUTO the replay measures. It runs each
 * level for four short trial epochs, interleaved with the others', and
 * takes each level's fastest trial: on a shared machine the slower ones
 * measure other work more than this one. It keeps the level whose best
 * trial took the least CPU time per issue for a use epoch, then measures
 * again. Use epochs start short, so that a choice made while the replay
 * warms up (first page faults, the first CTAs) is soon checked, and double
 * up to GCR_TUNER_USE_MAX issues, so that trials cost little on long runs
 * (under 1 % when the other levels are 10 % slower). Prefetching changes
 * nothing but the host's caches, so reports are the same at every level.
 *
 * What an epoch's CPU time also holds is noise the best-trial rule has to
 * absorb, not a bias: the work between kernels falls into whichever epoch
 * spans it, and with the analysis thread (replay/bus.h) the time the
 * replay's thread spins waiting for room in the event queue falls into the
 * level that happens to run then.
 *
 * The tuner is pure logic: the replay gives it the issue count and the
 * clock, so tests can drive it with made-up times. */
#ifndef GCREPLAY_REPLAY_PREFETCH_TUNER_H
#define GCREPLAY_REPLAY_PREFETCH_TUNER_H

#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/replay.h"

/* Issues per trial epoch (about 15 ms at this replay's speed: long enough
 * for the CPU-time clock, short enough for the host's speed to stay put),
 * and per use epoch: the first, and the most (256 trials' worth). */
enum {
    GCR_TUNER_TRIAL_ISSUES = 1 << 17,
    GCR_TUNER_TRIALS = 12,
    GCR_TUNER_USE_FIRST = 1 << 22,
    GCR_TUNER_USE_MAX = 1 << 25,
};

struct gcr_prefetch_tuner {
    enum gcr_host_prefetch level; /* in use now */
    bool fixed;                   /* set by the caller, or the only distinct level */
    unsigned distinct;            /* bit l: level l prefetches more than the levels below */
    unsigned phase;               /* 0..GCR_TUNER_TRIALS-1: trial epochs; GCR_TUNER_TRIALS: use */
    uint64_t epoch_end;           /* the issue count that ends the epoch */
    uint64_t use_issues;          /* length of the next use epoch */
    uint64_t epoch_issues, epoch_ns; /* issue count and clock when the epoch began */
    double trial_best[GCR_HOST_PREFETCH_LEVELS]; /* least ns per issue of a trial, per level */
    uint64_t issues_at[GCR_HOST_PREFETCH_LEVELS]; /* issues of finished epochs, per level */
};

/* mode: a level, or GCR_HOST_PREFETCH_AUTO. distinct: bit l set when level
 * l does more than the level below it for this replay (the queues level's
 * bit is implied): without an L1 organisation prefetch hook, the L1 level
 * adds nothing, and with several chips neither does the L2 level. Trials
 * skip the levels that add nothing. issues and now_ns: the counts at which
 * the first epoch begins. */
void gcr_prefetch_tuner_init(struct gcr_prefetch_tuner *t, enum gcr_host_prefetch mode,
                             unsigned distinct, uint64_t issues, uint64_t now_ns);

/* The epoch that issues reached ends (issues >= t->epoch_end): books it and
 * starts the next, possibly at another level (t->level). */
void gcr_prefetch_tuner_epoch(struct gcr_prefetch_tuner *t, uint64_t issues, uint64_t now_ns);

/* Issues run at each level so far, the current epoch's included. */
void gcr_prefetch_tuner_shares(const struct gcr_prefetch_tuner *t, uint64_t issues,
                               uint64_t out[GCR_HOST_PREFETCH_LEVELS]);

#endif
