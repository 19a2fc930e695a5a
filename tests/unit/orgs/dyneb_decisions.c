/* DynEB's decisions on hand-made request sequences: the halves a sampling SM
 * splits its requests into, the phase lengths, the < 10 % private-miss-rate
 * rule, the EB comparison (and its tie), the two ways of counting, the bounded
 * decision log, and option errors. */
#include <math.h>

#include "orgs/common/shared_l1.h"
#include "shared_util.h"

extern const struct gcr_l1org_ops gcr_l1org_dyneb;

/* 2 SMs, 2 sets x 8 ways of 128-B lines, write-through without write
 * allocation: the set is address bit 7 (even sets sample private, odd
 * shared) and the home is bit 8. Sampling ends at 2 local accesses per half;
 * execution lasts 3 local accesses. */
#define CONFIG(extra)                                                                        \
    "{\"gpu\": {\"sms\": 2}, \"l1d\": {\"organization\": \"dyneb\", \"sets\": 2, \"ways\": 8, " \
    "\"write_policy\": \"write_through\", \"write_allocate\": \"none\", \"dyneb\": "         \
    "{\"sample_accesses\": 2, \"execution_accesses\": 3" extra "}}, \"l2\": {\"slices\": 1}}"

#define P0 0x000u  /* even set, home 0 */
#define P1 0x400u  /* even set, home 0 */
#define S0 0x080u  /* odd set, home 0 */
#define S0B 0x880u /* odd set, home 0 */
#define R1 0x180u  /* odd set, home 1 */
#define E1 0x100u  /* even set, home 1 */

static bool holds(struct rig *r, uint32_t l1, uint64_t line)
{
    return gcr_cache_probe(((struct gcr_shared_l1 *)r->org)->l1[l1], line, NULL) != 0;
}

static void expect_error(const char *config, const char *text)
{
    struct rig r;
    CHECK(rig_open(&r, &gcr_l1org_dyneb, config) == -1);
    CHECK_STR_CONTAINS(r.err.msg, text);
}

int main(void)
{
    struct rig r;
    json_t *rep;

    /* A: the private half misses 1 in 11 (< 10 %): private, whatever EB says. */
    CHECK(rig_open(&r, &gcr_l1org_dyneb,
                   CONFIG(", \"eb_counting\": \"requester\", \"decision_log\": 1")) == 0);
    for (int i = 0; i < 11; i++)
        rig_read(&r, 0, P0);
    rig_read(&r, 0, S0); /* local (home 0): miss */
    rig_read(&r, 0, S0); /* hit; both halves have 2 local accesses: decide */
    rep = rig_report(&r);
    CHECK_EQ_U(jint(rep, "decisions.total"), 1);
    CHECK_EQ_U(jint(rep, "decisions.log.0.core"), 0);
    CHECK(json_is_null(jat(rep, "decisions.log.0.kernel")));
    CHECK_STR(jstr(rep, "decisions.log.0.mode"), "private");
    CHECK_STR(jstr(rep, "decisions.log.0.rule"), "private_miss_rate_below_threshold");
    CHECK_EQ_U(jint(rep, "decisions.log.0.private.local"), 11);
    CHECK_EQ_U(jint(rep, "decisions.log.0.private.misses"), 1);
    CHECK_NEAR(jnum(rep, "decisions.log.0.private.miss_rate"), 1.0 / 11.0);
    CHECK_NEAR(jnum(rep, "decisions.log.0.private.eb"), 11.0); /* 1 / (1/11) */
    CHECK_NEAR(jnum(rep, "decisions.log.0.shared.eb"), 2.0);   /* 1 / 0.5 + 0 */
    json_decref(rep);
    /* Executing private: a line homed at SM 1 is read and cached locally. */
    rig_read(&r, 0, R1);
    CHECK(holds(&r, 0, R1));
    CHECK(!holds(&r, 1, R1));
    rig_read(&r, 0, R1);
    rig_read(&r, 0, P0); /* third local access: sampling again */
    rig_read(&r, 0, R1); /* odd set while sampling: goes to home 1 */
    CHECK(holds(&r, 1, R1));
    rig_read(&r, 0, P0);
    rig_read(&r, 0, P0);
    rig_read(&r, 0, S0);
    rig_read(&r, 0, S0); /* second decision: private (no misses at all) */
    rep = rig_report(&r);
    CHECK_EQ_U(jint(rep, "requests.sampling"), 13 + 5);
    CHECK_EQ_U(jint(rep, "requests.private"), 3);
    CHECK_EQ_U(jint(rep, "requests.shared"), 0);
    CHECK_EQ_U(jint(rep, "accesses.remote.reads"), 1);
    CHECK_EQ_U(jint(rep, "decisions.total"), 2);
    CHECK_EQ_U(jint(rep, "decisions.below_threshold"), 2);
    CHECK_EQ_U(jint(rep, "decisions.logged"), 1); /* decision_log: 1 */
    CHECK_EQ_U(jint(rep, "per_core.decisions_private.0"), 2);
    CHECK_STR(jstr(rep, "per_core.phase_at_end.0"), "private");
    CHECK_STR(jstr(rep, "per_core.phase_at_end.1"), "sampling");
    json_decref(rep);
    rig_close(&r);

    /* B: both halves miss half the time or more; home replies make shared's
     * EB higher: private 2 / 1 = 2, shared 1 / 0.5 + 2 = 4. */
    CHECK(rig_open(&r, &gcr_l1org_dyneb, CONFIG(", \"eb_counting\": \"requester\"")) == 0);
    rig_read(&r, 0, P0);
    rig_read(&r, 0, P1);
    rig_read(&r, 0, R1); /* remote: a home reply */
    rig_read(&r, 0, R1);
    rig_read(&r, 0, S0);
    rig_read(&r, 0, S0);
    rep = rig_report(&r);
    CHECK_STR(jstr(rep, "decisions.log.0.mode"), "shared");
    CHECK_STR(jstr(rep, "decisions.log.0.rule"), "higher_eb");
    CHECK_EQ_U(jint(rep, "decisions.log.0.shared.home_replies"), 2);
    CHECK_NEAR(jnum(rep, "decisions.log.0.private.eb"), 2.0);
    CHECK_NEAR(jnum(rep, "decisions.log.0.shared.eb"), 4.0);
    json_decref(rep);
    /* Executing shared: an even-set line homed at SM 1 goes there. */
    rig_read(&r, 0, E1);
    CHECK(!holds(&r, 0, E1));
    CHECK(holds(&r, 1, E1));
    rep = rig_report(&r);
    CHECK_EQ_U(jint(rep, "requests.shared"), 1);
    CHECK_EQ_U(jint(rep, "accesses.remote.reads"), 3);
    json_decref(rep);
    rig_close(&r);

    /* C: a write acknowledged by L2 is an L2 reply too. Private: 5 accesses,
     * 2 misses, 3 L2 replies: EB 3 / 0.4 = 7.5 > shared's 1 / 0.5 = 2. */
    CHECK(rig_open(&r, &gcr_l1org_dyneb, CONFIG(", \"eb_counting\": \"requester\"")) == 0);
    rig_read(&r, 0, P0);
    rig_read(&r, 0, P0);
    rig_read(&r, 0, P1);
    rig_read(&r, 0, P1);
    rig_access(&r, 0, P0, 0x1, 4, true);
    rig_read(&r, 0, S0);
    rig_read(&r, 0, S0);
    rep = rig_report(&r);
    CHECK_STR(jstr(rep, "decisions.log.0.mode"), "private");
    CHECK_STR(jstr(rep, "decisions.log.0.rule"), "higher_eb");
    CHECK_EQ_U(jint(rep, "decisions.log.0.private.l2_replies"), 3);
    CHECK_NEAR(jnum(rep, "decisions.log.0.private.eb"), 7.5);
    json_decref(rep);
    rig_close(&r);

    /* D: SM 1 reads S0 at its home, SM 0, before SM 0 samples it. Counted by
     * the receiver (default), SM 0's shared half has 3 accesses, 2 misses and
     * 2 L2 replies: EB 2 / (2/3) = 3 > private's 1 / 0.5 = 2: shared. Counted
     * by the requester, it has 2, 1 and 1: EB 2, a tie, which stays private. */
    for (int counting = 0; counting < 2; counting++) {
        CHECK(rig_open(&r, &gcr_l1org_dyneb,
                       counting ? CONFIG(", \"eb_counting\": \"requester\"") : CONFIG("")) == 0);
        rig_read(&r, 1, S0);
        rig_read(&r, 0, P0);
        rig_read(&r, 0, P0);
        rig_read(&r, 0, S0);
        rig_read(&r, 0, S0B);
        rep = rig_report(&r);
        CHECK_EQ_U(jint(rep, "decisions.total"), 1);
        CHECK_EQ_U(jint(rep, "decisions.log.0.shared.accesses"), counting ? 2 : 3);
        CHECK_STR(jstr(rep, "decisions.log.0.mode"), counting ? "private" : "shared");
        CHECK_NEAR(jnum(rep, "decisions.log.0.shared.eb"), counting ? 2.0 : 3.0);
        CHECK_STR(jstr(rep, "policy.eb_counting"), counting ? "requester" : "receiver");
        json_decref(rep);
        rig_close(&r);
    }

    /* Options the seed gives as defaults. */
    CHECK(rig_open(&r, &gcr_l1org_dyneb,
                   "{\"gpu\": {\"sms\": 2}, \"l1d\": {\"organization\": \"dyneb\", \"sets\": 2},"
                   " \"l2\": {\"slices\": 1}}") == 0);
    rep = rig_report(&r);
    CHECK_EQ_U(jint(rep, "policy.sample_accesses"), 512);
    CHECK_EQ_U(jint(rep, "policy.execution_accesses"), 16384);
    CHECK_NEAR(jnum(rep, "policy.private_miss_rate_threshold"), 0.10);
    json_decref(rep);
    rig_close(&r);

    expect_error("{\"gpu\": {\"sms\": 2}, \"l1d\": {\"organization\": \"dyneb\", \"sets\": 1}}",
                 "$.l1d.sets: the dyneb organisation needs at least 2 L1 sets");
    expect_error(CONFIG(", \"bogus\": 1"), "$.l1d.dyneb.bogus: unknown key");
    expect_error(CONFIG(", \"private_miss_rate_threshold\": 1.5"),
                 "$.l1d.dyneb.private_miss_rate_threshold: expected a number between 0 and 1");
    expect_error(CONFIG(", \"eb_counting\": \"both\""), "$.l1d.dyneb.eb_counting: unknown value");
    expect_error("{\"gpu\": {\"sms\": 2}, \"l1d\": {\"organization\": \"dyneb\", \"sets\": 2, "
                 "\"dyneb\": {\"execution_accesses\": 0}}}",
                 "$.l1d.dyneb.execution_accesses: expected an integer between 1 and");
    expect_error(CONFIG(", \"home_bits\": 0"), "$.l1d.dyneb.home_bits: 0 bits name only 1");
    CHECK_DONE();
}
