/* remote_probe: tiny traces whose holders at each L1 read miss are known by
 * construction, probed under several IP(C,S,P) policies. One one-warp CTA per
 * SM (round-robin puts CTA c on SM c); each step SM 0 issues before SM 1, and
 * so on. Private L1s, so L1 instance = SM. Every load is a full-warp 4-byte
 * load: one 128-B line, 4 sectors. */

#include "replay/replay_util.h"

#define A 0x100000ull
#define B 0x200000ull
#define C 0x300000ull
#define D 0x400000ull
#define R "total.analyses.remote_probe."

static json_t *run(const char *path, const char *l1d, const char *options)
{
    char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "{\"gpu\": {\"sms\": 4}, \"l1d\": {%s}, \"analyses\": {\"remote_probe\": %s}}", l1d,
             options);
    return must_replay(cfg, path);
}

static long long pol(const json_t *r, int p, const char *key)
{
    char path[160];
    snprintf(path, sizeof path, R "policies.%d.%s", p, key);
    return jget(r, path);
}

/* Step 1: SMs 0, 1, 2, 3 read A, B, C, D (nobody else holds them yet).
 * Steps 2-4: SM 3 reads A, B, C, held by SM 0, 1, 2 respectively. */
static void one_holder_each(void)
{
    struct tb t;
    tb_open(&t, "remote-probe-one");
    tb_kernel(&t, 1, 4, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 1, 0, B);
    tb_load(&t, 2, 0, C);
    tb_load(&t, 3, 0, D);
    tb_load(&t, 3, 0, A);
    tb_load(&t, 3, 0, B);
    tb_load(&t, 3, 0, C);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "",
                    "{\"policies\": [{\"C\": 3, \"S\": 1, \"P\": 1}, {\"C\": 2, \"S\": 2, "
                    "\"P\": 1}, {\"C\": 3, \"S\": 2, \"P\": 0}, {\"S\": 1, \"selector\": "
                    "\"random\"}]}");
    CHECK_EQ_U(jget(r, R "group_size"), 4);
    CHECK_EQ_U(jget(r, R "read_misses"), 7);
    CHECK_EQ_U(jget(r, R "oracle_hits"), 3);

    /* IP(3,1,1): one probe over the 3 others in ring order after the
     * requester. Step 1: 4 misses x 3 visits, 4 NACKs. SM 3's ring is 0, 1, 2:
     * A found at the 1st visit, B at the 2nd, C at the 3rd. */
    CHECK_EQ_U(pol(r, 0, "C"), 3);
    CHECK_EQ_U(pol(r, 0, "probes_sent"), 7);
    CHECK_EQ_U(pol(r, 0, "targets_visited"), 12 + 1 + 2 + 3);
    CHECK_EQ_U(pol(r, 0, "probe_hits"), 3);
    CHECK_EQ_U(pol(r, 0, "nacks"), 4);
    CHECK_EQ_U(pol(r, 0, "remote_hits"), 3);
    CHECK_REAL(r, R "policies.0.recall", 1.0);
    CHECK_REAL(r, R "policies.0.remote_hits_per_probe", 3.0 / 7.0);
    /* Defaults: 32-B probes and NACKs, replies 8 B + the 4 requested sectors. */
    CHECK_EQ_U(pol(r, 0, "traffic_bytes.probe_requests"), 18 * 32);
    CHECK_EQ_U(pol(r, 0, "traffic_bytes.nacks"), 4 * 32);
    CHECK_EQ_U(pol(r, 0, "traffic_bytes.data_replies"), 3 * (8 + 128));
    CHECK_EQ_U(pol(r, 0, "traffic_bytes.total"), 18 * 32 + 4 * 32 + 3 * 136);

    /* IP(2,2,1): two probes of one target each, the first 2 of the ring.
     * Step 1: 2 NACKs per miss. SM 3: A (SM 0) found by probe 0, B (SM 1) by
     * probe 1, C (SM 2) is not a target. */
    CHECK_EQ_U(pol(r, 1, "probes_sent"), 14);
    CHECK_EQ_U(pol(r, 1, "targets_visited"), 14);
    CHECK_EQ_U(pol(r, 1, "probe_hits"), 2);
    CHECK_EQ_U(pol(r, 1, "nacks"), 12);
    CHECK_EQ_U(pol(r, 1, "remote_hits"), 2);
    CHECK_EQ_U(pol(r, 1, "hits_by_probe.0"), 1);
    CHECK_EQ_U(pol(r, 1, "hits_by_probe.1"), 1);
    CHECK_REAL(r, R "policies.1.recall", 2.0 / 3.0);

    /* IP(3,2,0): with P = 0 always S - 1 = 1 probe: the same as IP(3,1,1). */
    CHECK_EQ_U(pol(r, 2, "probes_sent"), 7);
    CHECK_EQ_U(pol(r, 2, "targets_visited"), 18);
    CHECK_EQ_U(pol(r, 2, "remote_hits"), 3);

    /* Random order over every other SM (C defaults to the group): a single
     * probe still finds every held line; only the visits depend on the draw. */
    CHECK_EQ_U(pol(r, 3, "C"), 3);
    CHECK_EQ_U(pol(r, 3, "remote_hits"), 3);
    CHECK_EQ_U(pol(r, 3, "nacks"), 4);
    CHECK(pol(r, 3, "targets_visited") >= 12 + 3 && pol(r, 3, "targets_visited") <= 12 + 9);
    CHECK_EQ_U(jget(r, "kernels.0.analyses.remote_probe.read_misses"), 7);
    json_decref(r);

    /* Groups of 2 ({0,1}, {2,3}): only C, held by SM 2, is in SM 3's group. */
    r = run(t.path, "", "{\"group_size\": 2}");
    CHECK_EQ_U(jget(r, R "group_size"), 2);
    CHECK_EQ_U(jget(r, R "oracle_hits"), 1);
    CHECK_EQ_U(pol(r, 0, "C"), 1);
    CHECK_EQ_U(pol(r, 0, "remote_hits"), 1);
    CHECK_EQ_U(pol(r, 0, "targets_visited"), 7);
    json_decref(r);

    /* Custom sizes; replies carrying the whole line. */
    r = run(t.path, "", "{\"probe_bytes\": 16, \"nack_bytes\": 8, \"reply_header_bytes\": 0, "
                        "\"reply_data\": \"line\"}");
    CHECK_EQ_U(pol(r, 0, "traffic_bytes.total"), 18 * 16 + 4 * 8 + 3 * 128);
    json_decref(r);

    unlink(t.path);
}

/* All 4 SMs read A in step 1: SM 1 finds 1 holder, SM 2 two, SM 3 three.
 * IP(2,2,1): SM 0's probes {1}, {2} find nothing; SM 1's {2}, {3} nothing;
 * SM 2's {3}, {0}: probe 1 hits; SM 3's {0}, {1}: both hit (one redundant). */
static void several_holders(void)
{
    struct tb t;
    tb_open(&t, "remote-probe-several");
    tb_kernel(&t, 1, 4, 32, 0, 0);
    for (uint32_t c = 0; c < 4; c++)
        tb_load(&t, c, 0, A);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "", "{\"policies\": [{\"C\": 2, \"S\": 2, \"P\": 1}]}");
    CHECK_EQ_U(jget(r, R "read_misses"), 4);
    CHECK_EQ_U(jget(r, R "oracle_hits"), 3);
    CHECK_EQ_U(pol(r, 0, "probes_sent"), 8);
    CHECK_EQ_U(pol(r, 0, "probe_hits"), 3);
    CHECK_EQ_U(pol(r, 0, "nacks"), 5);
    CHECK_EQ_U(pol(r, 0, "remote_hits"), 2);
    CHECK_EQ_U(pol(r, 0, "redundant_replies"), 1);
    CHECK_EQ_U(pol(r, 0, "hits_by_probe.0"), 1);
    CHECK_EQ_U(pol(r, 0, "hits_by_probe.1"), 2);
    json_decref(r);
    unlink(t.path);
}

/* A line leaves its L1 (one-line L1s): SM 0 reads A then B, so when SM 1
 * misses on A in step 2, SM 0 no longer holds it; B is held. */
static void follows_evictions(void)
{
    struct tb t;
    tb_open(&t, "remote-probe-evict");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 0, B);
    tb_load(&t, 1, 0, C);
    tb_load(&t, 1, 0, A);
    tb_load(&t, 1, 0, B);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "\"sets\": 1, \"ways\": 1", "{}");
    CHECK_EQ_U(jget(r, R "read_misses"), 5);
    CHECK_EQ_U(jget(r, R "oracle_hits"), 1);
    json_decref(r);
    r = run(t.path, "", "{}");
    CHECK_EQ_U(jget(r, R "oracle_hits"), 2);
    json_decref(r);
    unlink(t.path);
}

static void expect_error(const char *options, const char *text)
{
    char cfg[512];
    struct gcr_err err = {0};
    snprintf(cfg, sizeof cfg, "{\"gpu\": {\"sms\": 4}, \"analyses\": {\"remote_probe\": %s}}",
             options);
    struct tb t;
    tb_open(&t, "remote-probe-bad");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_nonmem(&t, 0, 0, 2);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = replay_with(cfg, t.path, &err);
    CHECK(r == NULL);
    CHECK_STR_CONTAINS(err.msg, text);
    CHECK_STR_CONTAINS(err.msg, "test-config");
    json_decref(r);
    unlink(t.path);
}

static void bad_options(void)
{
    expect_error("{\"group\": 2}", "$.analyses.remote_probe.group: unknown key");
    expect_error("{\"group_size\": 0}", "$.analyses.remote_probe.group_size: expected an integer");
    expect_error("{\"policies\": []}", "$.analyses.remote_probe.policies: expected an array");
    expect_error("{\"policies\": [3]}", "$.analyses.remote_probe.policies[0]: expected an object");
    expect_error("{\"policies\": [{}, {\"S\": 0}]}",
                 "$.analyses.remote_probe.policies[1].S: expected an integer between 1 and 32");
    expect_error("{\"policies\": [{\"P\": 1.5}]}",
                 "$.analyses.remote_probe.policies[0].P: expected a number between 0 and 1");
    expect_error("{\"policies\": [{\"C\": 0}]}", "$.analyses.remote_probe.policies[0].C");
    expect_error("{\"policies\": [{\"selector\": \"supplier\"}]}",
                 "$.analyses.remote_probe.policies[0].selector");
    expect_error("{\"policies\": [{\"Q\": 1}]}",
                 "$.analyses.remote_probe.policies[0].Q: unknown key");
    expect_error("{\"reply_data\": \"bytes\"}", "$.analyses.remote_probe.reply_data");
    expect_error("{\"probe_bytes\": -1}", "$.analyses.remote_probe.probe_bytes");
}

int main(void)
{
    one_holder_each();
    several_holders();
    follows_evictions();
    bad_options();
    CHECK_DONE();
}
