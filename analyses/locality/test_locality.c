/* Locality analysis: tiny traces whose L2-hit origin and in-cluster remote
 * hits are known by construction. One one-warp CTA per SM (round-robin puts
 * CTA c on SM c); each step SM 0 issues before SM 1, and so on. */

#include "replay/replay_util.h"

#define A 0x100000ull
#define B 0x900000ull
#define P "kernels.0.analyses.locality."


static json_t *run(const char *path, uint32_t sms, const char *l1d, const char *options)
{
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"gpu\": {\"sms\": %u}, \"l1d\": {%s}, \"analyses\": {\"locality\": %s}}", sms,
             l1d, options);
    return must_replay(cfg, path);
}

/* SMs 0 and 1 read the same 4 lines in turn: SM 0 misses in L2 and fills it,
 * SM 1 hits lines SM 0 brought in (inter-core), and SM 0's L1 holds each line
 * when SM 1 misses on it. */
static void two_sms_in_turn(void)
{
    struct tb t;
    tb_open(&t, "locality-turn");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t i = 0; i < 4; i++)
            tb_load(&t, c, 0, A + i * 128);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, 2, "", "{\"cluster_size\": 2}");
    CHECK_EQ_U(jget(r, P "l2_hits.read_accesses"), 8);
    CHECK_EQ_U(jget(r, P "l2_hits.read_hits"), 4);
    CHECK_EQ_U(jget(r, P "l2_hits.inter_core_hits"), 4);
    CHECK_EQ_U(jget(r, P "l2_hits.intra_core_hits"), 0);
    CHECK_EQ_U(jget(r, P "l2_hits.no_sm_hits"), 0);
    CHECK_REAL(r, P "l2_hits.inter_core_share", 1.0);
    CHECK_EQ_U(jget(r, P "l1_remote.cluster_size"), 2);
    CHECK_EQ_U(jget(r, P "l1_remote.read_misses"), 8);
    CHECK_EQ_U(jget(r, P "l1_remote.servable_in_cluster"), 4);
    CHECK_REAL(r, P "l1_remote.servable_share", 0.5);
    CHECK_EQ_U(jget(r, "total.analyses.locality.l2_hits.inter_core_hits"), 4);
    CHECK_EQ_U(jget(r, "total.analyses.locality.l1_remote.servable_in_cluster"), 4);
    json_decref(r);
    /* Clusters of one SM: nobody else to ask. */
    r = run(t.path, 2, "", "{\"cluster_size\": 1}");
    CHECK_EQ_U(jget(r, P "l1_remote.servable_in_cluster"), 0);
    json_decref(r);
    unlink(t.path);
}

/* SMs 0 and 2 share lines, SM 1 reads its own: with clusters of 2, SMs 0 and
 * 2 are in different clusters, so no miss is servable; with clusters of 4, SM
 * 2's 4 misses are. */
static void other_cluster(void)
{
    struct tb t;
    tb_open(&t, "locality-other");
    tb_kernel(&t, 1, 3, 32, 0, 0);
    for (uint32_t c = 0; c < 3; c++)
        for (uint32_t i = 0; i < 4; i++)
            tb_load(&t, c, 0, (c == 1 ? B : A) + i * 128);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, 4, "", "{\"cluster_size\": 2}");
    CHECK_EQ_U(jget(r, P "l1_remote.read_misses"), 12);
    CHECK_EQ_U(jget(r, P "l1_remote.servable_in_cluster"), 0);
    CHECK_EQ_U(jget(r, P "l2_hits.inter_core_hits"), 4);
    json_decref(r);
    r = run(t.path, 4, "", "{}"); /* default cluster_size 4 */
    CHECK_EQ_U(jget(r, P "l1_remote.cluster_size"), 4);
    CHECK_EQ_U(jget(r, P "l1_remote.servable_in_cluster"), 4);
    json_decref(r);
    unlink(t.path);
}

/* One SM reads 4 lines in kernel 1 and again in kernel 2: its L1 was flushed
 * at the kernel boundary, so kernel 2 hits L2 on lines it brought in itself. */
static void intra_core_across_kernels(void)
{
    struct tb t;
    tb_open(&t, "locality-intra");
    for (uint32_t k = 1; k <= 2; k++) {
        tb_kernel(&t, k, 1, 32, 0, 0);
        for (uint32_t i = 0; i < 4; i++)
            tb_load(&t, 0, 0, A + i * 128);
        tb_end(&t, k);
    }
    tb_close(&t);
    json_t *r = run(t.path, 1, "", "{}");
    CHECK_EQ_U(jget(r, P "l2_hits.read_hits"), 0);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.locality.l2_hits.read_hits"), 4);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.locality.l2_hits.intra_core_hits"), 4);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.locality.l2_hits.inter_core_hits"), 0);
    CHECK_REAL(r, "kernels.1.analyses.locality.l2_hits.inter_core_share", 0.0);
    CHECK_EQ_U(jget(r, "total.analyses.locality.l2_hits.intra_core_hits"), 4);
    CHECK_EQ_U(jget(r, "total.analyses.locality.l1_remote.read_misses"), 8);
    json_decref(r);
    unlink(t.path);
}

/* Residency follows L1 evictions: SM 0 reads X then Y, SM 1 reads Z then X.
 * With a one-line L1, Y has evicted X from SM 0 by the time SM 1 misses on X;
 * with the default L1 it has not. */
static void follows_evictions(void)
{
    struct tb t;
    tb_open(&t, "locality-evict");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 0, A + 128);
    tb_load(&t, 1, 0, B);
    tb_load(&t, 1, 0, A);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, 2, "\"sets\": 1, \"ways\": 1", "{\"cluster_size\": 2}");
    CHECK_EQ_U(jget(r, P "l1_remote.read_misses"), 4);
    CHECK_EQ_U(jget(r, P "l1_remote.servable_in_cluster"), 0);
    json_decref(r);
    r = run(t.path, 2, "", "{\"cluster_size\": 2}");
    CHECK_EQ_U(jget(r, P "l1_remote.servable_in_cluster"), 1);
    json_decref(r);
    unlink(t.path);
}

/* 20000 distinct lines through small L1s and L2: entries come and go
 * (evictions delete from the middle of probe runs). SM 1 reads each line
 * right after SM 0 brought it into SM 0's L1 and the L2, so each of SM 1's
 * misses is servable and each of its L2 hits inter-core. */
static void churn_with(uint64_t high, uint32_t cluster_size)
{
    struct tb t;
    tb_open(&t, "locality-churn");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t i = 0; i < 20000; i++)
            tb_load(&t, c, 0, (i % 2 ? high : A) + (uint64_t)(i * 7919u % 50000u) * 128);
    tb_end(&t, 1);
    tb_close(&t);
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"gpu\": {\"sms\": 2}, \"l1d\": {\"sets\": 4, \"ways\": 4}, "
             "\"l2\": {\"slices\": 2, \"sets\": 4, \"ways\": 4}, "
             "\"analyses\": {\"locality\": {\"cluster_size\": %u}}}",
             cluster_size);
    json_t *r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, P "l1_remote.read_misses"), 40000);
    CHECK_EQ_U(jget(r, P "l2_hits.read_hits"), 20000);
    CHECK_EQ_U(jget(r, P "l1_remote.servable_in_cluster"), 20000);
    CHECK_EQ_U(jget(r, P "l2_hits.inter_core_hits"), 20000);
    json_decref(r);
    unlink(t.path);
}

/* 20000 distinct lines through small L1s and L2: entries come and go
 * (evictions delete from the middle of probe runs). SM 1 reads each line
 * right after SM 0 brought it into SM 0's L1 and the L2, so each of SM 1's
 * misses is servable and each of its L2 hits inter-core. */
static void churn(void)
{
    churn_with(A, 2);
    /* The same map in two-word slots: from the start (a cluster wider than a
     * one-word slot leaves room for), or from the first line whose number
     * does not fit beside the L2's 13 value bits (every other line is at
     * 2^60 and up), the table then turning wide in the middle of the run. */
    churn_with(A, 40);
    churn_with(1ull << 60, 2);
}

static void bad_options(void)
{
    struct tb t;
    tb_open(&t, "locality-opts");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_end(&t, 1);
    tb_close(&t);
    const char *bad[][2] = {
        {"{\"analyses\": {\"locality\": {\"chips\": 1}}}", "$.analyses.locality.chips"},
        {"{\"analyses\": {\"locality\": {\"cluster_size\": 0}}}",
         "$.analyses.locality.cluster_size"},
        {"{\"analyses\": {\"locality\": {\"cluster_size\": 65}}}",
         "$.analyses.locality.cluster_size"},
        {"{\"analyses\": {\"locality\": {\"cluster_size\": 2.5}}}",
         "$.analyses.locality.cluster_size"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct gcr_err err = {0};
        json_t *r = replay_with(bad[i][0], t.path, &err);
        CHECK(r == NULL);
        CHECK(err.status == GCR_E_CONFIG);
        CHECK_STR_CONTAINS(err.msg, bad[i][1]);
        json_decref(r);
    }
    unlink(t.path);
}

int main(void)
{
    (void)tb_nonmem;
    two_sms_in_turn();
    other_cluster();
    intra_core_across_kernels();
    follows_evictions();
    churn();
    bad_options();
    CHECK_DONE();
}
