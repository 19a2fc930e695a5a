/* Equivalences that pin the tag-split and decoupled sectored caches to the
 * sector cache (the private organisation with sectors):
 *  - TSC with a 0-bit private tag is a sector cache (paper Sec. 5.1): every
 *    counter equal on random reads and writes, wherever replacement has no
 *    choice to make (one group per set; or a working set that fits), since TSC
 *    replaces by chunk-level NRU and the sector cache by line LRU;
 *  - DSC-1 (one tag per frame) is a sector cache with LRU, replacement
 *    included;
 *  - requests: TSC and DSC see exactly the private L1's request count on a
 *    whole replay (coalescing stays at 128 B), and a 32-B-line reference more. */
#include "check.h"
#include "gcreplay/config.h"
#include "replay/l1org.h"
#include "replay/replay_util.h"

extern const struct gcr_l1org_ops gcr_l1org_private, gcr_l1org_tsc, gcr_l1org_dsc;

struct side {
    struct gcr_config cfg;
    struct gcr_bus bus;
    struct gcr_memsys mem;
    struct gcr_sim_info info;
    struct gcr_l1org_ctx ctx;
    const struct gcr_l1org_ops *ops;
    void *org;
};

static void side_open(struct side *s, const struct gcr_l1org_ops *ops, const char *json)
{
    struct gcr_err err = {0};
    memset(s, 0, sizeof *s);
    s->ops = ops;
    if (gcr_config_parse(&s->cfg, json, "t", &err) != 0 ||
        gcr_memsys_init(&s->mem, &s->cfg, &s->bus, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
    s->info = (struct gcr_sim_info){.config = &s->cfg, .num_sms = 2, .num_l1s = 2,
                                    .num_l2_slices = 1, .line_bytes = 128, .sector_bytes = 32};
    s->ctx = (struct gcr_l1org_ctx){.config = &s->cfg, .info = &s->info, .mem = &s->mem,
                                    .bus = &s->bus};
    if (ops->create(&s->org, &s->ctx, s->cfg.l1_org_options, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
}

static void side_close(struct side *s)
{
    s->ops->destroy(s->org);
    gcr_memsys_fini(&s->mem);
    gcr_config_free(&s->cfg);
}

static uint64_t rng_next(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* n random requests of 2 SMs over `lines` lines; every counter must agree. */
static void compare(const char *base_json, const char *other_json,
                    const struct gcr_l1org_ops *other, uint32_t lines, uint32_t n)
{
    struct side a, b;
    side_open(&a, &gcr_l1org_private, base_json);
    side_open(&b, other, other_json);
    uint64_t x = 42;
    uint32_t mismatched = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t r = rng_next(&x);
        struct gcr_req q = {.line_addr = (r % lines) * 128, .sector_mask = (uint32_t)(r >> 20) & 0xf,
                            .is_write = ((r >> 30) & 7) == 0, .sm = (uint32_t)(r >> 40) & 1};
        if (!q.sector_mask)
            q.sector_mask = 0x1;
        q.bytes = 4 * (uint32_t)__builtin_popcount(q.sector_mask);
        a.bus.step = b.bus.step = i;
        mismatched += a.ops->access(a.org, &q) != b.ops->access(b.org, &q);
    }
    CHECK_EQ_U(mismatched, 0);
    a.ops->kernel_end(a.org);
    b.ops->kernel_end(b.org);
    struct gcr_cache_stats sa[2], sb[2];
    a.ops->collect_stats(a.org, sa);
    b.ops->collect_stats(b.org, sb);
    for (int sm = 0; sm < 2; sm++) {
        for (int w = 0; w < 2; w++) {
            CHECK_EQ_U(sa[sm].accesses[w], sb[sm].accesses[w]);
            for (int o = 0; o < GCR_OUTCOME_COUNT; o++)
                CHECK_EQ_U(sa[sm].outcomes[w][o], sb[sm].outcomes[w][o]);
            CHECK_EQ_U(sa[sm].sectors_requested[w], sb[sm].sectors_requested[w]);
            CHECK_EQ_U(sa[sm].sectors_missed[w], sb[sm].sectors_missed[w]);
        }
        CHECK_EQ_U(sa[sm].sectors_fetched, sb[sm].sectors_fetched);
        CHECK_EQ_U(sa[sm].sectors_forwarded, sb[sm].sectors_forwarded);
        CHECK_EQ_U(sa[sm].evictions, sb[sm].evictions);
        CHECK_EQ_U(sa[sm].invalidations, sb[sm].invalidations);
    }
    CHECK(sa[0].outcomes[0][GCR_MISS_SECTOR] > 0 && sa[0].outcomes[0][GCR_HIT] > 0);
    CHECK_EQ_U(a.mem.traffic.l2_to_l1_bytes, b.mem.traffic.l2_to_l1_bytes);
    CHECK_EQ_U(a.mem.traffic.l1_to_l2_write_bytes, b.mem.traffic.l1_to_l2_write_bytes);
    side_close(&a);
    side_close(&b);
}

#define COMMON "\"gpu\": {\"sms\": 2}, \"l2\": {\"slices\": 1}, "
#define SECTOR(sets, ways) \
    "{" COMMON "\"l1d\": {\"sets\": " #sets ", \"ways\": " #ways ", \"replacement\": \"lru\"}}"
#define TSC0(sets, ways)                                                                    \
    "{" COMMON "\"l1d\": {\"organization\": \"tsc\", \"sets\": " #sets ", \"ways\": " #ways \
    ", \"tsc\": {\"private_tag_bits\": 0, \"shared_tag_bits\": 20, \"index\": \"linear\"}}}"

static void request_counts(void)
{
    /* Per iteration a scattered load, every lane reading 4 bytes 36 B apart
     * (1,120 B from a 4-B aligned start below 32: 9 lines, each lane in its own
     * sector, 32 sectors), and a coalesced one (1 line, 4 sectors). */
    struct tb t;
    tb_open(&t, "tsc-requests");
    tb_kernel(&t, 1, 4, 64, 0, 16);
    for (uint32_t cta = 0; cta < 4; cta++)
        for (uint32_t w = 0; w < 2; w++)
            for (uint32_t i = 0; i < 8; i++) {
                tb_access(&t, cta, w, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu,
                          0x100000 + (uint64_t)(cta * 2 + w) * 8192 + i * 4, 36);
                tb_load(&t, cta, w, 0x800000 + (uint64_t)(cta * 16 + w * 8 + i) * 128);
                tb_nonmem(&t, cta, w, 2);
            }
    tb_end(&t, 1);
    tb_close(&t);
    json_t *p = must_replay(SECTOR(32, 4), t.path);
    json_t *ts = must_replay("{" COMMON "\"l1d\": {\"organization\": \"tsc\", \"sets\": 32, "
                             "\"ways\": 4, \"tsc\": {\"baselines\": [\"line32\", \"line128\"]}}}",
                             t.path);
    json_t *ds = must_replay("{" COMMON "\"l1d\": {\"organization\": \"dsc\", \"sets\": 32, "
                             "\"ways\": 4}}", t.path);
    long long acc = jget(p, "total.L1D.accesses");
    CHECK_EQ_U(acc, 8 * 8 * (9 + 1));
    CHECK_EQ_U(jget(ts, "total.L1D.accesses"), acc);
    CHECK_EQ_U(jget(ds, "total.L1D.accesses"), acc);
    CHECK_EQ_U(jget(ts, "total.L1D.tsc.metrics.requests"), acc);
    CHECK_EQ_U(jget(ts, "total.L1D.tsc.references.line128.requests"), acc);
    /* At 32 B: one request per sector. */
    CHECK_EQ_U(jget(ts, "total.L1D.tsc.references.line32.requests"), 8 * 8 * (32 + 4));
    CHECK_EQ_U(jget(ts, "total.L1D.tsc.metrics.memory_insns"), 2 * 8 * 8);
    CHECK_REAL(ts, "total.L1D.tsc.normalised.requests", 1.0);
    json_decref(p);
    json_decref(ts);
    json_decref(ds);
    unlink(t.path);
}

int main(void)
{
    /* Direct-mapped: one group per set, nothing to choose. */
    compare(SECTOR(16, 1), TSC0(16, 1), &gcr_l1org_tsc, 80, 20000);
    /* 4 ways, 16 lines spread evenly over 4 sets: everything fits. */
    compare(SECTOR(4, 4), TSC0(4, 4), &gcr_l1org_tsc, 16, 20000);
    /* DSC-1 vs LRU sector cache with replacement at work. */
    compare(SECTOR(4, 4),
            "{" COMMON "\"l1d\": {\"organization\": \"dsc\", \"sets\": 4, \"ways\": 4, "
            "\"dsc\": {\"tags_per_frame\": 1, \"index\": \"linear\"}}}",
            &gcr_l1org_dsc, 40, 20000);
    request_counts();
    CHECK_DONE();
}
