/* miss_classes: hand-made event sequences with known classes, then traces
 * replayed through the engine whose 3C split is known by construction. */
#include <math.h>

#include "replay/replay_util.h"
#include "analyses/analysis_util.h"
#include "gcreplay/analysis.h"

extern const struct gcr_analysis_ops gcr_analysis_miss_classes;
static const struct gcr_analysis_ops *const ops = &gcr_analysis_miss_classes;

static struct gcr_config cfg;
static struct gcr_sim_info info;

static void *make(const char *config_json)
{
    struct gcr_err err = {0};
    if (gcr_config_parse(&cfg, config_json, "cfg.json", &err) != 0) {
        fprintf(stderr, "config: %s\n", err.msg);
        exit(2);
    }
    info = (struct gcr_sim_info){.config = &cfg, .num_sms = cfg.num_sms, .num_l1s = cfg.num_sms,
                                 .num_l2_slices = cfg.l2_slices, .line_bytes = cfg.line_bytes,
                                 .sector_bytes = cfg.sector_bytes, .lines = test_lines()};
    json_t *o = json_object();
    void *self = NULL;
    if (ops->create(&self, o, &info, &err) != 0) {
        fprintf(stderr, "create: %s\n", err.msg);
        exit(2);
    }
    json_decref(o);
    return self;
}

static void ev(void *self, enum gcr_event_kind kind, uint32_t cta, uint32_t warp,
               uint64_t line, uint32_t sectors, bool write, enum gcr_outcome outcome)
{
    struct gcr_access a = {.outcome = outcome};
    struct gcr_event e = {.kind = kind, .sm = 0, .unit = 0, .cta = cta, .warp = warp,
                          .line_addr = line, .sector_mask = sectors, .is_write = write,
                          .access = &a};
    test_deliver(ops, self, &e);
}

static void kernel_end(void *self)
{
    struct gcr_event e = {.kind = GCR_EV_KERNEL_END, .sm = UINT32_MAX};
    test_deliver(ops, self, &e);
}

#define L1(c, w, line, out) ev(mc, GCR_EV_L1_ACCESS, c, w, line, 0xf, false, out)
#define A 0x1000
#define B 0x2000
#define C 0x3000
#define D 0x4000

/* A one-line L1 (so its shadow holds one line); outcomes as the real cache
 * would have reported them. Expected classes in the comments: 3C / locality. */
static void events(void)
{
    void *mc = make("{\"gpu\": {\"sms\": 1}, \"l1d\": {\"sets\": 1, \"ways\": 1},"
                    " \"l2\": {\"slices\": 1, \"sets\": 1, \"ways\": 4, \"sectored\": true}}");
    struct gcr_err err = {0};
    L1(0, 0, A, GCR_MISS_LINE); /* compulsory / compulsory */
    L1(0, 0, A, GCR_MISS_LINE); /* shadow holds A: conflict / intra-warp */
    L1(0, 1, A, GCR_MISS_LINE); /* conflict / intra-CTA */
    L1(1, 1, A, GCR_MISS_LINE); /* conflict / inter-CTA (same warp index, other CTA) */
    L1(1, 1, B, GCR_MISS_LINE); /* compulsory / compulsory */
    ev(mc, GCR_EV_L1_ACCESS, 0, 0, C, 0x1, true, GCR_MISS_LINE); /* write: compulsory */
    kernel_end(mc);
    json_t *k0 = json_object();
    CHECK(ops->report_kernel(mc, k0, &err) == 0);
    L1(1, 1, A, GCR_MISS_LINE); /* shadow flushed at kernel end: capacity / inter-kernel */
    L1(0, 0, A, GCR_HIT);       /* a hit is not classified, but becomes the last requester */
    L1(0, 0, A, GCR_MISS_LINE); /* conflict / intra-warp */
    /* L2, sectored: a new sector is compulsory even when the line was seen. */
    ev(mc, GCR_EV_L2_ACCESS, 0, 0, D, 0x1, false, GCR_MISS_LINE);   /* compulsory */
    ev(mc, GCR_EV_L2_ACCESS, 0, 0, D, 0x2, false, GCR_MISS_SECTOR); /* compulsory */
    ev(mc, GCR_EV_L2_ACCESS, 0, 0, D, 0x1, false, GCR_MISS_SECTOR); /* shadow hit: conflict */
    ev(mc, GCR_EV_L2_ACCESS, 0, 0, D, 0x3, false, GCR_HIT);
    kernel_end(mc);
    json_t *k1 = json_object(), *t = json_object();
    CHECK(ops->report_kernel(mc, k1, &err) == 0);
    CHECK(ops->report_total(mc, t, &err) == 0);

    CHECK_EQ_U(jget(k0, "L1D.shadow_lines"), 1);
    CHECK_EQ_U(jget(k0, "L1D.reads.accesses"), 5);
    CHECK_EQ_U(jget(k0, "L1D.reads.misses"), 5);
    CHECK_EQ_U(jget(k0, "L1D.reads.3c.compulsory"), 2);
    CHECK_EQ_U(jget(k0, "L1D.reads.3c.capacity"), 0);
    CHECK_EQ_U(jget(k0, "L1D.reads.3c.conflict"), 3);
    CHECK_EQ_U(jget(k0, "L1D.reads.locality.compulsory"), 2);
    CHECK_EQ_U(jget(k0, "L1D.reads.locality.intra_warp"), 1);
    CHECK_EQ_U(jget(k0, "L1D.reads.locality.intra_cta"), 1);
    CHECK_EQ_U(jget(k0, "L1D.reads.locality.inter_cta"), 1);
    CHECK_EQ_U(jget(k0, "L1D.reads.locality.inter_kernel"), 0);
    CHECK_EQ_U(jget(k0, "L1D.writes.misses"), 1);
    CHECK_EQ_U(jget(k0, "L1D.writes.3c.compulsory"), 1);
    CHECK_EQ_U(jget(k0, "L1D.writes.locality.compulsory"), 1);
    CHECK_EQ_U(jget(k0, "L1D.per_unit.0.compulsory"), 3);
    CHECK_EQ_U(jget(k0, "L2.reads.misses"), 0);

    CHECK_EQ_U(jget(k1, "L1D.reads.accesses"), 3);
    CHECK_EQ_U(jget(k1, "L1D.reads.misses"), 2);
    CHECK_EQ_U(jget(k1, "L1D.reads.3c.compulsory"), 0);
    CHECK_EQ_U(jget(k1, "L1D.reads.3c.capacity"), 1);
    CHECK_EQ_U(jget(k1, "L1D.reads.3c.conflict"), 1);
    CHECK_EQ_U(jget(k1, "L1D.reads.locality.inter_kernel"), 1);
    CHECK_EQ_U(jget(k1, "L1D.reads.locality.intra_warp"), 1);
    CHECK_EQ_U(jget(k1, "L2.shadow_lines"), 4);
    CHECK_EQ_U(jget(k1, "L2.reads.accesses"), 4);
    CHECK_EQ_U(jget(k1, "L2.reads.misses"), 3);
    CHECK_EQ_U(jget(k1, "L2.reads.3c.compulsory"), 2);
    CHECK_EQ_U(jget(k1, "L2.reads.3c.conflict"), 1);
    CHECK(json_object_get(json_object_get(json_object_get(k1, "L2"), "reads"), "locality") ==
          NULL);

    CHECK_EQ_U(jget(t, "L1D.reads.misses"), 7);
    CHECK_EQ_U(jget(t, "L1D.reads.3c.compulsory"), 2);
    CHECK_EQ_U(jget(t, "L1D.reads.3c.capacity"), 1);
    CHECK_EQ_U(jget(t, "L1D.reads.3c.conflict"), 4);
    CHECK_EQ_U(jget(t, "L1D.reads.locality.intra_warp"), 2);
    CHECK_EQ_U(jget(t, "L1D.writes.accesses"), 1);
    CHECK_EQ_U(jget(t, "L2.reads.3c.compulsory"), 2);
    json_decref(k0);
    json_decref(k1);
    json_decref(t);
    ops->destroy(mc);
    gcr_config_free(&cfg);
}

/* The shadow against the cache model itself: random requests on a small pool
 * of lines through miss_classes and through a one-set LRU gcr_cache of the
 * same geometry (what the shadow must behave exactly like), with kernel-end
 * flushes, under each write policy, sectored or not. The capacity / conflict
 * split the model implies must be what the analysis reports. A 3- or 5-line
 * shadow with ~20000 requests between flushes also exercises the shadow's
 * ring compaction thousands of times. */
static void shadow_matches_cache_model(const char *l1_json, uint32_t pool, uint32_t flush_every)
{
    char config[512];
    snprintf(config, sizeof config,
             "{\"gpu\": {\"sms\": 1}, \"l1d\": %s, \"l2\": {\"slices\": 1}}", l1_json);
    void *mc = make(config);
    struct gcr_err err = {0};
    struct gcr_cache *model = gcr_cache_create(&cfg.l1, &err);
    CHECK(model != NULL);
    uint32_t full = (UINT32_C(1) << (cfg.l1.line_bytes / cfg.l1.sector_bytes)) - 1;
    uint32_t seen[64] = {0};
    uint64_t want[2][3] = {{0}}; /* [read/write][compulsory, capacity, conflict] */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (uint32_t n = 1; n <= 20000; n++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t k = (uint32_t)(x % pool);
        uint32_t mask = (uint32_t)(x >> 8) & full;
        if (!mask)
            mask = 1;
        bool write = (x >> 20) % 4 == 0;
        /* The real cache's outcome is an input: any value is possible. */
        enum gcr_outcome real = (x >> 24) % 3 == 0 ? GCR_HIT : GCR_MISS_LINE;
        struct gcr_access a;
        gcr_cache_access(model, 0x10000 + (uint64_t)k * cfg.l1.line_bytes, mask, write, &a);
        if (real != GCR_HIT) {
            bool first = cfg.l1.sectored ? (mask & ~seen[k]) != 0 : seen[k] == 0;
            want[write][first ? 0 : a.outcome == GCR_HIT ? 2 : 1]++;
        }
        seen[k] |= cfg.l1.sectored ? mask : full;
        ev(mc, GCR_EV_L1_ACCESS, 0, 0, 0x10000 + (uint64_t)k * cfg.l1.line_bytes, mask, write,
           real);
        if (n % flush_every == 0 || n == 20000) { /* the run ends with a kernel end */
            kernel_end(mc);
            gcr_cache_invalidate_all(model, NULL, NULL);
            json_t *kernel = json_object();
            CHECK(ops->report_kernel(mc, kernel, &err) == 0);
            json_decref(kernel);
        }
    }
    json_t *t = json_object();
    CHECK(ops->report_total(mc, t, &err) == 0);
    static const char *const rw[2] = {"reads", "writes"};
    static const char *const c3[3] = {"compulsory", "capacity", "conflict"};
    for (int w = 0; w < 2; w++)
        for (int c = 0; c < 3; c++) {
            char path[64];
            snprintf(path, sizeof path, "L1D.%s.3c.%s", rw[w], c3[c]);
            CHECK_EQ_U(jget(t, path), want[w][c]);
        }
    /* Enough of each class for the comparison to mean something. */
    CHECK(want[0][1] > 100 && want[0][2] > 100);
    json_decref(t);
    gcr_cache_destroy(model);
    ops->destroy(mc);
    gcr_config_free(&cfg);
}

static json_t *run(const char *path)
{
    return must_replay("{\"gpu\": {\"sms\": 1}, \"l1d\": {\"sets\": 2, \"ways\": 1,"
                       " \"index\": \"linear\"}, \"analyses\": {\"miss_classes\": {}}}",
                       path);
}

#define P "total.analyses.miss_classes."

/* Lines 0 and 256 share set 0 of a 2-set direct-mapped L1: alternating them
 * misses every time, though a 2-line fully associative cache would hit. */
static void replay_conflict(void)
{
    struct tb t;
    tb_open(&t, "mc-conflict");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    for (int i = 0; i < 4; i++)
        tb_load(&t, 0, 0, 0x100000 + (uint64_t)(i % 2) * 256);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 4);
    CHECK_EQ_U(jget(r, P "L1D.reads.misses"), 4);
    CHECK_EQ_U(jget(r, P "L1D.reads.3c.compulsory"), 2);
    CHECK_EQ_U(jget(r, P "L1D.reads.3c.capacity"), 0);
    CHECK_EQ_U(jget(r, P "L1D.reads.3c.conflict"), 2);
    CHECK_EQ_U(jget(r, P "L1D.reads.locality.intra_warp"), 2);
    CHECK_EQ_U(jget(r, "kernels.0.analyses.miss_classes.L1D.reads.3c.conflict"), 2);
    /* The L2 holds both lines: two compulsory misses, then hits. */
    CHECK_EQ_U(jget(r, P "L2.reads.misses"), 2);
    CHECK_EQ_U(jget(r, P "L2.reads.3c.compulsory"), 2);
    json_decref(r);
    unlink(t.path);
}

/* Lines 0, 128, 256, then 0 again: 256 evicts 0 from set 0, and a 2-line
 * fully associative LRU cache has lost 0 too (it holds 128 and 256). */
static void replay_capacity(void)
{
    struct tb t;
    tb_open(&t, "mc-capacity");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    const uint64_t seq[4] = {0, 128, 256, 0};
    for (int i = 0; i < 4; i++)
        tb_load(&t, 0, 0, 0x100000 + seq[i]);
    tb_end(&t, 1);
    /* A second kernel: the L1 was flushed, so the first load misses, and so
     * does the flushed shadow: capacity, from a previous kernel. */
    tb_kernel(&t, 2, 1, 32, 0, 0);
    tb_load(&t, 0, 0, 0x100000 + 128);
    tb_end(&t, 2);
    tb_close(&t);
    json_t *r = run(t.path);
    CHECK_EQ_U(jget(r, P "L1D.reads.misses"), 5);
    CHECK_EQ_U(jget(r, P "L1D.reads.3c.compulsory"), 3);
    CHECK_EQ_U(jget(r, P "L1D.reads.3c.capacity"), 2);
    CHECK_EQ_U(jget(r, P "L1D.reads.3c.conflict"), 0);
    CHECK_EQ_U(jget(r, P "L1D.reads.locality.intra_warp"), 1);
    CHECK_EQ_U(jget(r, P "L1D.reads.locality.inter_kernel"), 1);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.miss_classes.L1D.reads.3c.capacity"), 1);
    CHECK_EQ_U(jget(r, P "L1D.shadow_lines"), 2);
    json_decref(r);
    unlink(t.path);
}

static void options(void)
{
    struct gcr_err err = {0};
    CHECK(gcr_config_parse(&cfg, "{\"analyses\": {\"miss_classes\": {\"x\": 1}}}", "cfg.json",
                           &err) == 0);
    struct gcr_replay *rp = NULL;
    CHECK(gcr_replay_create(&rp, &cfg, &err) != 0);
    CHECK(err.status == GCR_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "cfg.json: $.analyses.miss_classes.x");
    gcr_config_free(&cfg);
}

int main(void)
{
    (void)jreal; /* shared helpers this test does not need */
    (void)tb_nonmem;
    events();
    shadow_matches_cache_model("{\"sets\": 1, \"ways\": 3, \"sectored\": true,"
                               " \"write_policy\": \"write_through\","
                               " \"write_allocate\": \"validate\"}", 7, 5000);
    shadow_matches_cache_model("{\"sets\": 1, \"ways\": 5, \"sectored\": true,"
                               " \"write_policy\": \"write_evict\","
                               " \"write_allocate\": \"none\"}", 9, 20000);
    shadow_matches_cache_model("{\"sets\": 1, \"ways\": 4, \"sectored\": false,"
                               " \"write_policy\": \"write_back\","
                               " \"write_allocate\": \"fetch\"}", 7, 777);
    shadow_matches_cache_model("{\"sets\": 1, \"ways\": 6, \"sectored\": true,"
                               " \"write_policy\": \"write_back\","
                               " \"write_allocate\": \"fetch\"}", 11, 3000);
    replay_conflict();
    replay_capacity();
    options();
    CHECK_DONE();
}
