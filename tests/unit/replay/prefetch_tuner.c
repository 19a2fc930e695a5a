/* The prefetch tuner tries every level, keeps the one whose best trial was
 * fastest, measures again after a use epoch, and never moves a fixed level;
 * its shares add up to every issue. Driven with a made-up clock. */
#include "check.h"
#include "replay/prefetch_tuner.h"

/* ns per issue of each level on the made-up host. */
struct host {
    double cost[GCR_HOST_PREFETCH_LEVELS];
    uint64_t issues, ns;
};

/* Runs rounds of `per_round` issues until the tuner's epoch ends, the way
 * the replay does (an epoch may overshoot its end by part of a round); a
 * disturbed epoch costs `spike` times more. */
static void run_epoch(struct gcr_prefetch_tuner *t, struct host *h, uint64_t per_round,
                      double spike)
{
    while (h->issues < t->epoch_end) {
        h->issues += per_round;
        h->ns += (uint64_t)(h->cost[t->level] * spike * (double)per_round);
    }
    gcr_prefetch_tuner_epoch(t, h->issues, h->ns);
}

#define ALL_LEVELS 7u

static enum gcr_host_prefetch tune(double q, double l1, double l2, int disturbed_trial)
{
    struct host h = {.cost = {q, l1, l2}, .issues = 1000, .ns = 5000};
    struct gcr_prefetch_tuner t;
    gcr_prefetch_tuner_init(&t, GCR_HOST_PREFETCH_AUTO, ALL_LEVELS, h.issues, h.ns);
    bool seen[GCR_HOST_PREFETCH_LEVELS] = {false};
    for (int k = 0; k < GCR_TUNER_TRIALS; k++) {
        CHECK(t.phase == (unsigned)k);
        seen[t.level] = true;
        run_epoch(&t, &h, 77, k == disturbed_trial ? 5.0 : 1.0);
    }
    for (int l = 0; l < GCR_HOST_PREFETCH_LEVELS; l++)
        CHECK(seen[l]);
    CHECK_EQ_U(t.epoch_end, h.issues + GCR_TUNER_USE_FIRST);
    return t.level;
}

int main(void)
{
    /* The fastest level wins, whichever it is. */
    CHECK_EQ_U(tune(10, 11, 12, -1), GCR_HOST_PREFETCH_QUEUES);
    CHECK_EQ_U(tune(10, 9, 12, -1), GCR_HOST_PREFETCH_L1);
    CHECK_EQ_U(tune(10, 11, 8, -1), GCR_HOST_PREFETCH_L2);
    /* A tie goes to the level that prefetches less. */
    CHECK_EQ_U(tune(10, 10, 10, -1), GCR_HOST_PREFETCH_QUEUES);
    CHECK_EQ_U(tune(12, 10, 10, -1), GCR_HOST_PREFETCH_L1);
    /* One disturbed trial (the host busy elsewhere), whichever it is, does not
     * sink a level: each level's best trial counts. */
    for (int k = 0; k < GCR_TUNER_TRIALS; k++) {
        CHECK_EQ_U(tune(10, 11, 8, k), GCR_HOST_PREFETCH_L2);
        CHECK_EQ_U(tune(10, 9, 12, k), GCR_HOST_PREFETCH_L1);
        CHECK_EQ_U(tune(10, 11, 12, k), GCR_HOST_PREFETCH_QUEUES);
    }

    /* After the use epoch it measures again, and follows a change. */
    {
        struct host h = {.cost = {10, 11, 12}};
        struct gcr_prefetch_tuner t;
        gcr_prefetch_tuner_init(&t, GCR_HOST_PREFETCH_AUTO, ALL_LEVELS, 0, 0);
        for (int k = 0; k < GCR_TUNER_TRIALS; k++)
            run_epoch(&t, &h, 64, 1.0);
        CHECK_EQ_U(t.level, GCR_HOST_PREFETCH_QUEUES);
        h.cost[GCR_HOST_PREFETCH_L2] = 5;   /* the host's caches got busier */
        run_epoch(&t, &h, 1 << 12, 1.0);    /* the use epoch */
        CHECK_EQ_U(t.phase, 0);
        for (int k = 0; k < GCR_TUNER_TRIALS; k++)
            run_epoch(&t, &h, 64, 1.0);
        CHECK_EQ_U(t.level, GCR_HOST_PREFETCH_L2);
        /* Use epochs double, up to the most. */
        CHECK_EQ_U(t.epoch_end - h.issues, 2 * (uint64_t)GCR_TUNER_USE_FIRST);
        for (int cycle = 0; cycle < 6; cycle++)
            for (int k = 0; k <= GCR_TUNER_TRIALS; k++)
                run_epoch(&t, &h, 64, 1.0);
        CHECK_EQ_U(t.epoch_end - h.issues, GCR_TUNER_USE_MAX);
        /* The chosen level gets slower: the next trials start afresh. */
        h.cost[GCR_HOST_PREFETCH_L2] = 20;
        for (int k = 0; k <= GCR_TUNER_TRIALS; k++)
            run_epoch(&t, &h, 64, 1.0);
        CHECK_EQ_U(t.level, GCR_HOST_PREFETCH_QUEUES);

        /* Shares: every issue since the start, at the level it ran at. */
        uint64_t at[GCR_HOST_PREFETCH_LEVELS];
        h.issues += 123; /* part of an epoch */
        gcr_prefetch_tuner_shares(&t, h.issues, at);
        CHECK_EQ_U(at[0] + at[1] + at[2], h.issues);
        CHECK(at[GCR_HOST_PREFETCH_L2] > at[GCR_HOST_PREFETCH_L1]);
    }

    /* A fixed level stays, whatever the clock says, and gets every issue. */
    for (int l = 0; l < GCR_HOST_PREFETCH_LEVELS; l++) {
        struct host h = {.cost = {1, 50, 99}, .issues = 10};
        struct gcr_prefetch_tuner t;
        gcr_prefetch_tuner_init(&t, (enum gcr_host_prefetch)l, ALL_LEVELS, h.issues, 0);
        CHECK_EQ_U(t.level, (unsigned)l);
        CHECK_EQ_U(t.epoch_end, UINT64_MAX);
        gcr_prefetch_tuner_epoch(&t, h.issues + 5000, 77); /* as if an epoch ended */
        CHECK_EQ_U(t.level, (unsigned)l);
        uint64_t at[GCR_HOST_PREFETCH_LEVELS];
        gcr_prefetch_tuner_shares(&t, h.issues + 9000, at);
        CHECK_EQ_U(at[l], 9000);
        CHECK_EQ_U(at[0] + at[1] + at[2], 9000);
    }

    /* A clock that does not move (no CPU-time clock): every trial is free,
     * and the least prefetching level is kept. */
    {
        struct gcr_prefetch_tuner t;
        gcr_prefetch_tuner_init(&t, GCR_HOST_PREFETCH_AUTO, ALL_LEVELS, 0, 0);
        uint64_t issues = 0;
        for (int k = 0; k < GCR_TUNER_TRIALS; k++) {
            issues = t.epoch_end;
            gcr_prefetch_tuner_epoch(&t, issues, 0);
        }
        CHECK_EQ_U(t.level, GCR_HOST_PREFETCH_QUEUES);
    }

    /* A clock that goes backwards during a level's trials counts them as
     * free (no negative or huge time): that level is kept. */
    {
        struct gcr_prefetch_tuner t;
        uint64_t ns = 1000000000;
        gcr_prefetch_tuner_init(&t, GCR_HOST_PREFETCH_AUTO, ALL_LEVELS, 0, ns);
        for (int k = 0; k < GCR_TUNER_TRIALS; k++) {
            ns = t.level == GCR_HOST_PREFETCH_L1 ? ns - 1000 : ns + 1000000;
            gcr_prefetch_tuner_epoch(&t, t.epoch_end, ns);
        }
        CHECK_EQ_U(t.level, GCR_HOST_PREFETCH_L1);
    }

    /* Levels that add nothing get no trials: without an L1 hook, only the
     * queues and L2 levels are tried; with nothing beyond the queues, the
     * tuner stays there without trials. */
    {
        struct host h = {.cost = {10, 1, 12}};
        struct gcr_prefetch_tuner t;
        gcr_prefetch_tuner_init(&t, GCR_HOST_PREFETCH_AUTO, 1u << GCR_HOST_PREFETCH_L2, 0, 0);
        int trials = 0;
        while (t.phase < GCR_TUNER_TRIALS) {
            CHECK(t.level != GCR_HOST_PREFETCH_L1);
            run_epoch(&t, &h, 64, 1.0);
            trials++;
        }
        CHECK_EQ_U(trials, 8);
        CHECK_EQ_U(t.level, GCR_HOST_PREFETCH_QUEUES);
        gcr_prefetch_tuner_init(&t, GCR_HOST_PREFETCH_AUTO, 0, 0, 0);
        CHECK_EQ_U(t.level, GCR_HOST_PREFETCH_QUEUES);
        CHECK_EQ_U(t.epoch_end, UINT64_MAX);
    }
    return check_failures ? 1 : 0;
}
