/* scheduling.sm_order: the order in which round-robin dispatch deals CTAs to
 * the SMs, and the order in which the SMs then issue in a functional round. */
#include "replay_util.h"

#define B 0x10100ull /* homed in L2 slice 1, the second partition's */

static void config_for(char *buf, size_t n, unsigned sms, const char *order)
{
    snprintf(buf, n,
             "{\"gpu\": {\"sms\": %u, \"max_ctas_per_sm\": 1},"
             " \"scheduling\": {\"sm_order\": \"%s\"},"
             " \"coalescer\": {\"granularity\": \"sector\"},"
             " \"l1d\": {\"sets\": 4, \"ways\": 4, \"sectored\": true},"
             " \"l2\": {\"slices\": 2, \"sets\": 16, \"ways\": 4, \"sectored\": true,"
             "  \"interleave_bytes\": 256, \"write_policy\": \"write_back\","
             "  \"write_allocate\": \"validate\", \"partitions\": {\"count\": 2}}}",
             sms, order);
}

/* Five SMs, five CTAs; CTA c loads c + 1 lines of its own (4 sectors each), so
 * the L1 accesses of each SM name the CTA it ran. "linear" deals CTAs 0-4 to
 * SMs 0-4; "tpc_spread" to SMs 0, 2, 4 (the first SM of each two-SM TPC), then
 * 1, 3: SM 1 runs CTA 3 (16 sector accesses), SM 2 CTA 1 (8), SM 3 CTA 4 (20),
 * SM 4 CTA 2 (12). */
static void placement(void)
{
    struct tb t;
    tb_open(&t, "sm-order-place");
    tb_kernel(&t, 1, 5, 32, 0, 0);
    for (uint32_t c = 0; c < 5; c++)
        for (uint32_t k = 0; k <= c; k++)
            tb_load(&t, c, 0, 0x100000ull * (c + 1) + 128 * k);
    tb_end(&t, 1);
    tb_close(&t);
    static const struct {
        const char *order;
        unsigned per_sm[5];
    } cases[] = {{"linear", {4, 8, 12, 16, 20}}, {"tpc_spread", {4, 16, 8, 20, 12}}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[1024], path[64];
        config_for(cfg, sizeof cfg, 5, cases[i].order);
        json_t *r = must_replay(cfg, t.path);
        for (unsigned s = 0; s < 5; s++) {
            snprintf(path, sizeof path, "kernels.0.L1D.per_sm.accesses.%u", s);
            CHECK_EQ_U(jget(r, path), cases[i].per_sm[s]);
        }
        json_decref(r);
    }
    unlink(t.path);
}

/* Four SMs in two partitions (SMs 0-1, SMs 2-3); CTAs 1 and 2 each load
 * sector 0 of B, whose home is the second partition; CTAs 0 and 3 load nothing.
 * "linear": CTA 1 runs on SM 1 (first partition) and issues first: it misses
 * near and at home and comes from DRAM, filling both; CTA 2 on SM 2 hits near.
 * "tpc_spread": CTA 1 runs on SM 2 (second partition), CTA 2 on SM 1, and the
 * round follows the dispatch order, so CTA 1 still issues first: it misses
 * near, which is the home, and comes from DRAM; CTA 2 misses near and hits at
 * home across the fabric. Had SM 1 issued before SM 2, CTA 2 would have
 * brought the sector into both partitions and CTA 1 would have hit. */
static void partitions(void)
{
    struct tb t;
    tb_open(&t, "sm-order-part");
    tb_kernel(&t, 1, 4, 32, 0, 0);
    tb_nonmem(&t, 0, 0, 1);
    tb_access(&t, 1, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0x1, B, 4);
    tb_access(&t, 2, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0x1, B, 4);
    tb_nonmem(&t, 3, 0, 1);
    tb_end(&t, 1);
    tb_close(&t);
    static const struct {
        const char *order;
        unsigned hits, far_lookups, far_hits;
    } cases[] = {{"linear", 1, 1, 0}, {"tpc_spread", 0, 1, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[1024];
        config_for(cfg, sizeof cfg, 4, cases[i].order);
        json_t *r = must_replay(cfg, t.path);
        CHECK_EQ_U(jget(r, "kernels.0.L2.reads.accesses"), 2);
        CHECK_EQ_U(jget(r, "kernels.0.L2.reads.hits"), cases[i].hits);
        CHECK_EQ_U(jget(r, "kernels.0.traffic.dram_read_bytes"), 32);
        CHECK_EQ_U(jget(r, "kernels.0.L2.fabric.far_lookups"), cases[i].far_lookups);
        CHECK_EQ_U(jget(r, "kernels.0.L2.fabric.far_hits"), cases[i].far_hits);
        json_decref(r);
    }
    unlink(t.path);
}

int main(void)
{
    placement();
    partitions();
    CHECK_DONE();
}
