/* COLAB through the whole replay: a broadcast trace (every SM reads the same
 * lines) against private L1s, cluster sizes and assignments, sector
 * granularity, and option errors naming their JSON path.
 *
 * One one-warp CTA per SM (round-robin puts CTA c on SM c); each step SM 0
 * issues first, then SM 1, and so on, so SM 0 fetches each line from L2 and
 * the others ask for it right after. */
#include "replay/replay_util.h"

#define A 0x100000ull
#define LINES 16u

static void broadcast_trace(struct tb *t, uint32_t sms, uint32_t sharers)
{
    tb_open(t, "colab-broadcast");
    tb_kernel(t, 1, sms, 32, 0, 0);
    /* SMs below `sharers` read the same lines; the others read lines of their own. */
    for (uint32_t c = 0; c < sms; c++)
        for (uint32_t i = 0; i < LINES; i++) {
            tb_load(t, c, 0, (c < sharers ? A : A + (uint64_t)(c + 1) * 0x100000) + i * 128);
            tb_nonmem(t, c, 0, 3); /* the same on every SM: they stay in step */
        }
    tb_end(t, 1);
    tb_close(t);
}

static json_t *run(const char *path, const char *l1d, const char *extra)
{
    char cfg[768];
    snprintf(cfg, sizeof cfg, "{\"gpu\": {\"sms\": 8}, \"l1d\": {%s}%s}", l1d, extra);
    return must_replay(cfg, path);
}

#define T "total.L1D.colab."

static void broadcast(void)
{
    struct tb t;
    broadcast_trace(&t, 8, 8);
    json_t *p = run(t.path, "\"organization\": \"private\"", "");
    json_t *c = run(t.path, "\"organization\": \"colab\"", ""); /* clusters of 8 */
    /* Private: each SM fetches all 16 lines. COLAB: SM 0 fetches them, the 7
     * others are served by SM 0's L1. */
    CHECK_EQ_U(jget(p, "total.L2.reads.accesses"), 8 * LINES);
    CHECK_EQ_U(jget(c, "total.L2.reads.accesses"), LINES);
    CHECK_EQ_U(jget(p, "total.traffic.l2_to_l1_bytes"), 8 * LINES * 128);
    CHECK_EQ_U(jget(c, "total.traffic.l2_to_l1_bytes"), LINES * 128);
    /* Seen from the requesters every access missed its own L1, in both. */
    CHECK_EQ_U(jget(c, "total.L1D.accesses"), 8 * LINES);
    CHECK_EQ_U(jget(c, "total.L1D.misses"), 8 * LINES);
    CHECK_EQ_U(jget(p, "total.L1D.misses"), 8 * LINES);
    CHECK_EQ_U(jget(c, "kernels.0.L1D.per_sm.accesses.3"), LINES);
    CHECK_EQ_U(jget(c, T "clusters"), 1);
    CHECK_EQ_U(jget(c, T "read_misses"), 8 * LINES);
    CHECK_EQ_U(jget(c, T "served"), 7 * LINES);
    CHECK_EQ_U(jget(c, T "redirected"), 7 * LINES);
    CHECK_EQ_U(jget(c, T "stale"), 0);
    CHECK_EQ_U(jget(c, T "l2_read_requests_avoided"), 7 * LINES);
    CHECK_EQ_U(jget(c, T "noc_read_bytes_saved"), 7 * LINES * 128);
    CHECK_REAL(c, T "served_share", 7.0 / 8.0);
    CHECK_REAL(c, T "captured_share", 1.0);
    /* The default table: the L1 geometry's 4 sets x (64 ways x 8 SMs). */
    CHECK_EQ_U(jget(c, T "table.sets"), 4);
    CHECK_EQ_U(jget(c, T "table.ways"), 512);
    CHECK_EQ_U(jget(c, T "table.valid_entries_max"), LINES);
    json_decref(p);
    json_decref(c);

    /* Two clusters of 4: SMs 0 and 4 fetch, 6 SMs are served. */
    c = run(t.path, "\"organization\": \"colab\", \"colab\": {\"cluster_size\": 4}", "");
    CHECK_EQ_U(jget(c, "total.L2.reads.accesses"), 2 * LINES);
    CHECK_EQ_U(jget(c, T "served"), 6 * LINES);
    CHECK_EQ_U(jget(c, T "clusters"), 2);
    json_decref(c);

    /* Sector granularity: every line request is 4 sector requests. */
    const char *sector = ", \"coalescer\": {\"granularity\": \"sector\"}";
    p = run(t.path, "\"organization\": \"private\"", sector);
    c = run(t.path, "\"organization\": \"colab\"", sector);
    CHECK_EQ_U(jget(p, "total.L2.reads.accesses"), 8 * LINES * 4);
    CHECK_EQ_U(jget(c, "total.L2.reads.accesses"), LINES * 4);
    CHECK_EQ_U(jget(c, T "l2_read_requests_avoided"), 7 * LINES * 4);
    json_decref(p);
    json_decref(c);
    unlink(t.path);
}

/* SMs 0 and 1 share lines, the others do not. Contiguous clusters of 2 put
 * them together ({0,1}); interleaved ones ({0,4}, {1,5}, ...) do not. */
static void assignment(void)
{
    struct tb t;
    broadcast_trace(&t, 8, 2);
    json_t *c = run(t.path, "\"organization\": \"colab\", \"colab\": {\"cluster_size\": 2}", "");
    CHECK_EQ_U(jget(c, T "served"), LINES);
    CHECK_EQ_U(jget(c, "total.L2.reads.accesses"), 7 * LINES);
    json_decref(c);
    c = run(t.path, "\"organization\": \"colab\", \"colab\": {\"cluster_size\": 2, "
                    "\"cluster_assignment\": \"interleaved\"}", "");
    CHECK_EQ_U(jget(c, T "clusters"), 4);
    CHECK_EQ_U(jget(c, T "served"), 0);
    CHECK_EQ_U(jget(c, "total.L2.reads.accesses"), 8 * LINES);
    json_decref(c);
    unlink(t.path);
}

/* Every analysis runs beside COLAB; remote_probe sees the misses that went
 * to L2 (SM 0's), the served ones being hits at SM 0's L1. */
static void with_analyses(void)
{
    struct tb t;
    broadcast_trace(&t, 8, 8);
    json_t *c = run(t.path, "\"organization\": \"colab\"",
                    ", \"analyses\": {\"replication\": {}, \"line_utilisation\": {}, "
                    "\"sharing\": {}, \"locality\": {}, \"reuse_distance\": {}, "
                    "\"miss_classes\": {}, \"remote_probe\": {}}");
    CHECK_EQ_U(jget(c, "total.analyses.remote_probe.read_misses"), LINES);
    CHECK_EQ_U(jget(c, "total.analyses.remote_probe.oracle_hits"), 0);
    json_decref(c);
    unlink(t.path);
}

static void expect_error(const char *colab, const char *text)
{
    char cfg[512];
    struct gcr_err err = {0};
    snprintf(cfg, sizeof cfg, "{\"gpu\": {\"sms\": 8}, \"l1d\": {\"organization\": \"colab\", "
                              "\"colab\": %s}}", colab);
    struct tb t;
    broadcast_trace(&t, 1, 1);
    json_t *r = replay_with(cfg, t.path, &err);
    CHECK(r == NULL);
    CHECK_STR_CONTAINS(err.msg, text);
    CHECK_STR_CONTAINS(err.msg, "test-config");
    json_decref(r);
    unlink(t.path);
}

static void bad_options(void)
{
    expect_error("{\"cluster_size\": 0}", "$.l1d.colab.cluster_size: expected an integer");
    expect_error("{\"cluster_sise\": 4}", "$.l1d.colab.cluster_sise: unknown key");
    expect_error("{\"cluster_assignment\": \"random\"}", "$.l1d.colab.cluster_assignment");
    expect_error("{\"table_replacement\": \"plru\"}", "$.l1d.colab.table_replacement");
    expect_error("{\"table_index\": \"modulo\"}", "$.l1d.colab.table_index");
    expect_error("{\"table_ways\": 70000}", "$.l1d.colab.table_ways");
    expect_error("{\"table_invalidate_at_kernel_end\": 1}",
                 "$.l1d.colab.table_invalidate_at_kernel_end");
    /* The Fermi hash needs 32 or 64 sets. */
    expect_error("{\"table_index\": \"fermi\"}", "$.l1d.colab: impossible ownership table");
    expect_error("[]", "$.l1d.colab: expected an object");
}

int main(void)
{
    broadcast();
    assignment();
    with_analyses();
    bad_options();
    CHECK_DONE();
}
