/* Choosing the issue loop's prefetch level by measuring (prefetch_tuner.h). */
#include "replay/prefetch_tuner.h"

#include <math.h>
#include <string.h>

/* Each level four times, in every position of a round of three once or
 * twice, so that no level always follows the same one. */
static const enum gcr_host_prefetch trial_order[GCR_TUNER_TRIALS] = {
    GCR_HOST_PREFETCH_L2,     GCR_HOST_PREFETCH_L1,     GCR_HOST_PREFETCH_QUEUES,
    GCR_HOST_PREFETCH_QUEUES, GCR_HOST_PREFETCH_L1,     GCR_HOST_PREFETCH_L2,
    GCR_HOST_PREFETCH_L1,     GCR_HOST_PREFETCH_QUEUES, GCR_HOST_PREFETCH_L2,
    GCR_HOST_PREFETCH_L2,     GCR_HOST_PREFETCH_QUEUES, GCR_HOST_PREFETCH_L1,
};
_Static_assert(GCR_HOST_PREFETCH_LEVELS == 3 && GCR_TUNER_TRIALS == 12,
               "trial_order gives each of the three levels four trials");

/* The first trial phase from phase on whose level adds something;
 * GCR_TUNER_TRIALS if none. */
static unsigned next_trial(const struct gcr_prefetch_tuner *t, unsigned phase)
{
    while (phase < GCR_TUNER_TRIALS && !(t->distinct & 1u << trial_order[phase]))
        phase++;
    return phase;
}

static void start_trials(struct gcr_prefetch_tuner *t)
{
    t->phase = next_trial(t, 0);
    t->level = trial_order[t->phase];
    for (int l = 0; l < GCR_HOST_PREFETCH_LEVELS; l++)
        t->trial_best[l] = INFINITY;
}

void gcr_prefetch_tuner_init(struct gcr_prefetch_tuner *t, enum gcr_host_prefetch mode,
                             unsigned distinct, uint64_t issues, uint64_t now_ns)
{
    memset(t, 0, sizeof *t);
    const unsigned all = (1u << GCR_HOST_PREFETCH_LEVELS) - 1;
    t->distinct = (distinct | 1u << GCR_HOST_PREFETCH_QUEUES) & all;
    t->epoch_issues = issues;
    t->epoch_ns = now_ns;
    t->use_issues = GCR_TUNER_USE_FIRST;
    /* With one distinct level there is nothing to choose. */
    t->fixed = mode != GCR_HOST_PREFETCH_AUTO || t->distinct == 1u << GCR_HOST_PREFETCH_QUEUES;
    if (t->fixed) {
        t->level = mode < GCR_HOST_PREFETCH_LEVELS ? mode : GCR_HOST_PREFETCH_QUEUES;
        t->epoch_end = UINT64_MAX;
        return;
    }
    start_trials(t);
    t->epoch_end = issues + GCR_TUNER_TRIAL_ISSUES;
}

/* The level whose fastest trial was fastest; on a tie, the one that
 * prefetches less (fewer instructions for the same time). Levels without
 * trials (adding nothing) stay at infinity and are never picked. */
static enum gcr_host_prefetch fastest(const struct gcr_prefetch_tuner *t)
{
    enum gcr_host_prefetch best = GCR_HOST_PREFETCH_QUEUES;
    for (int l = 1; l < GCR_HOST_PREFETCH_LEVELS; l++)
        if (t->trial_best[l] < t->trial_best[best])
            best = (enum gcr_host_prefetch)l;
    return best;
}

void gcr_prefetch_tuner_epoch(struct gcr_prefetch_tuner *t, uint64_t issues, uint64_t now_ns)
{
    uint64_t done = issues - t->epoch_issues;
    t->issues_at[t->level] += done;
    if (t->phase < GCR_TUNER_TRIALS && done) {
        /* A clock that went backwards (it should not) counts as no time. */
        double ns = now_ns > t->epoch_ns ? (double)(now_ns - t->epoch_ns) : 0.0;
        if (ns / (double)done < t->trial_best[t->level])
            t->trial_best[t->level] = ns / (double)done;
    }
    t->epoch_issues = issues;
    t->epoch_ns = now_ns;
    if (t->fixed) {
        t->epoch_end = UINT64_MAX;
        return;
    }
    if (t->phase == GCR_TUNER_TRIALS) { /* the use epoch is over: measure afresh */
        start_trials(t);
    } else if ((t->phase = next_trial(t, t->phase + 1)) < GCR_TUNER_TRIALS) {
        t->level = trial_order[t->phase];
    } else { /* the trials are over: use the fastest level */
        t->level = fastest(t);
        t->epoch_end = issues + t->use_issues;
        if (t->use_issues < GCR_TUNER_USE_MAX)
            t->use_issues *= 2;
        return;
    }
    t->epoch_end = issues + GCR_TUNER_TRIAL_ISSUES;
}

void gcr_prefetch_tuner_shares(const struct gcr_prefetch_tuner *t, uint64_t issues,
                               uint64_t out[GCR_HOST_PREFETCH_LEVELS])
{
    memcpy(out, t->issues_at, sizeof t->issues_at);
    out[t->level] += issues - t->epoch_issues;
}
