/* Replay engine: tiny traces with hand-computed outcomes. */
#include "replay_util.h"

#define A 0x10000ull
#define B 0x20000ull

static const char *small_cfg =
    "{\"gpu\": {\"sms\": 4, \"max_ctas_per_sm\": 8},"
    " \"l1d\": {\"sets\": 4, \"ways\": 4}, \"l2\": {\"slices\": 2, \"sets\": 16, \"ways\": 4}}";

/* 8 one-warp CTAs on 4 SMs; CTAs 2k and 2k+1 load the same line. */
static void cta_policies(void)
{
    struct tb t;
    tb_open(&t, "cta");
    tb_kernel(&t, 1, 8, 32, 0, 0);
    for (uint32_t c = 0; c < 8; c++)
        tb_load(&t, c, 0, A + (c / 2) * 128);
    tb_end(&t, 1);
    tb_close(&t);

    /* Round-robin: SM s runs CTAs s and s+4, which load different lines:
     * 8 L1 misses; L2 sees each line twice: 4 misses, 4 hits. */
    json_t *r = must_replay(small_cfg, t.path);
    CHECK_EQ_U(jget(r, "total.L1D.accesses"), 8);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 8);
    for (int s = 0; s < 4; s++) {
        char p[64];
        snprintf(p, sizeof p, "total.L1D.per_sm.accesses.%d", s);
        CHECK_EQ_U(jget(r, p), 2);
    }
    CHECK_EQ_U(jget(r, "total.L2.accesses"), 8);
    CHECK_EQ_U(jget(r, "total.L2.misses"), 4);
    CHECK_EQ_U(jget(r, "total.ctas"), 8);
    json_decref(r);

    /* Contiguous: SM s runs CTAs 2s and 2s+1, which share a line: 4 misses, 4 hits. */
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"gpu\": {\"sms\": 4}, \"scheduling\": {\"cta_policy\": \"contiguous\"},"
             " \"l1d\": {\"sets\": 4, \"ways\": 4}, \"l2\": {\"slices\": 2}}");
    r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 4);
    CHECK_EQ_U(jget(r, "total.L1D.hits"), 4);
    CHECK_EQ_U(jget(r, "total.L2.accesses"), 4);
    CHECK_EQ_U(jget(r, "total.L2.misses"), 4);
    json_decref(r);

    /* Round-robin with one CTA per SM at a time: same placement as above
     * (CTA 4 waits for SM 0). */
    r = must_replay("{\"gpu\": {\"sms\": 4, \"max_ctas_per_sm\": 1}}", t.path);
    CHECK_EQ_U(jget(r, "total.L1D.per_sm.accesses.0"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 8);
    json_decref(r);
    unlink(t.path);
}

/* One SM, a one-line L1, two warps: warp 0 loads A twice, warp 1 B twice. */
static void warp_policies(void)
{
    struct tb t;
    tb_open(&t, "warps");
    tb_kernel(&t, 1, 1, 64, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 1, B);
    tb_load(&t, 0, 1, B);
    tb_end(&t, 1);
    tb_close(&t);
    const char *base = "{\"gpu\": {\"sms\": 1}, \"l1d\": {\"sets\": 1, \"ways\": 1}, "
                       "\"scheduling\": {\"warp_policy\": \"%s\", \"gto_miss_stall\": %d}}";
    char cfg[256];

    /* LRR: A B A B, each evicting the other: 4 misses. */
    snprintf(cfg, sizeof cfg, base, "lrr", 0);
    json_t *r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 4);
    json_decref(r);

    /* GTO, no stall: A A B B: 2 misses, 2 hits. */
    snprintf(cfg, sizeof cfg, base, "gto", 0);
    r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.hits"), 2);
    json_decref(r);

    /* GTO, 8-slot stall: A (w0 waits to slot 9), B (w1 waits to 10), then
     * the earliest-ready warp each time: A, B: 4 misses. */
    snprintf(cfg, sizeof cfg, base, "gto", 8);
    r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 4);
    json_decref(r);
    unlink(t.path);

    /* Stores never stall a GTO warp. Warp 0: load A, store X, load A; warp 1:
     * load B twice; one-line L1, 8-slot stall. Slot 1: w0 loads A (stalls to
     * 9); 2: w1 loads B, evicting A (stalls to 10); 3: both wait, w0 is ready
     * first: store X (write-evict miss, no stall); 4: w0 again: load A misses,
     * evicting B; 5: w1 loads B: miss. No hit. (Were stores to stall, w1 would
     * run at slot 4 and hit B.) */
    tb_open(&t, "gto-store");
    tb_kernel(&t, 1, 1, 64, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_access(&t, 0, 0, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0xffffffffu, 0x30000, 4);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 1, B);
    tb_load(&t, 0, 1, B);
    tb_end(&t, 1);
    tb_close(&t);
    r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "total.L1D.hits"), 0);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 5);
    json_decref(r);
    unlink(t.path);
}

static void kernel_boundary(void)
{
    struct tb t;
    tb_open(&t, "kb");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_end(&t, 1);
    tb_kernel(&t, 2, 1, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_end(&t, 2);
    tb_close(&t);

    json_t *r = must_replay("{\"gpu\": {\"sms\": 1}}", t.path);
    CHECK_EQ_U(jget(r, "kernels.0.L1D.misses"), 1);
    CHECK_EQ_U(jget(r, "kernels.1.L1D.misses"), 1); /* invalidated in between */
    CHECK_EQ_U(jget(r, "kernels.1.L2.hits"), 1);
    CHECK_EQ_U(jget(r, "kernels.0.id"), 1);
    CHECK_EQ_U(jget(r, "kernels.1.id"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 2);
    CHECK_EQ_U(jget(r, "total.kernels"), 2);
    json_decref(r);

    r = must_replay("{\"gpu\": {\"sms\": 1}, \"l1d\": {\"invalidate_at_kernel_end\": false}}",
                    t.path);
    CHECK_EQ_U(jget(r, "kernels.1.L1D.hits"), 1);
    json_decref(r);
    unlink(t.path);
}

static void write_policies(void)
{
    struct tb t;
    tb_open(&t, "wr");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_access(&t, 0, 0, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0xffffffffu, A, 4);
    tb_load(&t, 0, 0, A);
    tb_end(&t, 1);
    tb_close(&t);

    /* Write-evict (default): load miss, store hits and evicts, load misses again. */
    json_t *r = must_replay("{\"gpu\": {\"sms\": 1}}", t.path);
    CHECK_EQ_U(jget(r, "total.L1D.accesses"), 3);
    CHECK_EQ_U(jget(r, "total.L1D.reads.line_misses"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.writes.hits"), 1);
    /* The store's invalidation, then the reloaded line at the kernel end. */
    CHECK_EQ_U(jget(r, "total.L1D.invalidations"), 2);
    CHECK_EQ_U(jget(r, "total.traffic.l1_to_l2_write_bytes"), 128);
    CHECK_EQ_U(jget(r, "total.traffic.l2_to_l1_bytes"), 256);
    /* L2 (write-back): fetch miss, write hit (dirty), fetch hit; 4 sectors from DRAM. */
    CHECK_EQ_U(jget(r, "total.L2.accesses"), 3);
    CHECK_EQ_U(jget(r, "total.L2.misses"), 1);
    CHECK_EQ_U(jget(r, "total.traffic.dram_read_bytes"), 128);
    CHECK_EQ_U(jget(r, "total.traffic.dram_write_bytes"), 0);
    json_decref(r);

    /* Write-through: the store updates the line, the second load hits. */
    r = must_replay("{\"gpu\": {\"sms\": 1}, \"l1d\": {\"write_policy\": \"write_through\"}}",
                    t.path);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 1);
    CHECK_EQ_U(jget(r, "total.L1D.hits"), 2);
    CHECK_EQ_U(jget(r, "total.traffic.l1_to_l2_write_bytes"), 128);
    json_decref(r);

    /* Write-back L1: the store dirties the line; the kernel-end invalidation
     * writes its 4 sectors back. */
    r = must_replay("{\"gpu\": {\"sms\": 1}, \"l1d\": {\"write_policy\": \"write_back\"}}",
                    t.path);
    CHECK_EQ_U(jget(r, "total.traffic.l1_to_l2_write_bytes"), 0);
    CHECK_EQ_U(jget(r, "total.traffic.l1_writeback_bytes"), 128);
    json_decref(r);
    unlink(t.path);
}

static void sectors(void)
{
    struct tb t;
    tb_open(&t, "sect");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffu, A, 4);        /* sector 0 */
    tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffu, A + 32, 4);   /* sector 1 */
    tb_load(&t, 0, 0, A);                                                       /* 2 missing */
    tb_load(&t, 0, 0, A);                                                       /* hit */
    tb_end(&t, 1);
    tb_close(&t);

    json_t *r = must_replay("{\"gpu\": {\"sms\": 1}}", t.path);
    CHECK_EQ_U(jget(r, "total.L1D.line_misses"), 1);
    CHECK_EQ_U(jget(r, "total.L1D.sector_misses"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.hits"), 1);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 3);
    CHECK_EQ_U(jget(r, "total.L1D.sectors.requested"), 1 + 1 + 4 + 4);
    CHECK_EQ_U(jget(r, "total.L1D.sectors.fetched"), 4);
    CHECK_EQ_U(jget(r, "total.L1D.bytes_fetched"), 128);
    CHECK_EQ_U(jget(r, "total.L2.accesses"), 3);
    json_decref(r);

    /* Per-sector requests: 1 + 1 + 4 + 4 = 10 accesses; the first is a line
     * miss, sectors 1, 2, 3 first touched are sector misses, the rest hit. */
    r = must_replay("{\"gpu\": {\"sms\": 1}, \"coalescer\": {\"granularity\": \"sector\"}}",
                    t.path);
    CHECK_EQ_U(jget(r, "total.L1D.accesses"), 10);
    CHECK_EQ_U(jget(r, "total.L1D.line_misses"), 1);
    CHECK_EQ_U(jget(r, "total.L1D.sector_misses"), 3);
    CHECK_EQ_U(jget(r, "total.L1D.hits"), 6);
    CHECK_EQ_U(jget(r, "total.L2.accesses"), 4);
    json_decref(r);
    unlink(t.path);
}

static void spaces_and_atomics(void)
{
    struct tb t;
    tb_open(&t, "atom");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_nonmem(&t, 0, 0, 6);
    tb_access(&t, 0, 0, GCR_OP_ATOMIC, GCR_SPACE_GLOBAL, 4, 0xffffffffu, A, 4);
    tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_SHARED, 4, 0xffffffffu, 0, 4);
    tb_access(&t, 0, 0, GCR_OP_REDUCTION, GCR_SPACE_GLOBAL, 4, 0xffffffffu, A, 4);
    tb_nonmem(&t, 0, 0, 1);
    tb_end(&t, 1);
    tb_close(&t);

    json_t *r = must_replay("{\"gpu\": {\"sms\": 1}}", t.path);
    CHECK_EQ_U(jget(r, "total.L1D.accesses"), 0);
    CHECK_EQ_U(jget(r, "total.L2.accesses"), 2);
    CHECK_EQ_U(jget(r, "total.L2.misses"), 1);
    CHECK_EQ_U(jget(r, "total.instructions.atomic_requests"), 2);
    CHECK_EQ_U(jget(r, "total.instructions.memory_by_space.shared.load"), 1);
    CHECK_EQ_U(jget(r, "total.instructions.memory_by_space.global.atomic"), 1);
    CHECK_EQ_U(jget(r, "total.instructions.memory"), 3);
    CHECK_EQ_U(jget(r, "total.instructions.nonmemory"), 7);
    CHECK_EQ_U(jget(r, "total.instructions.warp_total"), 10);
    /* L2 MPKI = 1000 * 1 miss / 10 instructions. */
    CHECK(jreal(r, "total.L2.mpki") > 99.999 && jreal(r, "total.L2.mpki") < 100.001);
    /* Classes: no L1 accesses (APKI 0), L2 MPKI 100 > 2; replication unknown. */
    CHECK(json_is_false(json_object_get(
        json_object_get(json_object_get(json_object_get(r, "total"), "classes"),
                        "cache_sensitive"), "member")));
    CHECK(json_is_true(json_object_get(
        json_object_get(json_object_get(json_object_get(r, "total"), "classes"),
                        "memory_intensive"), "member")));
    CHECK(json_is_null(json_object_get(
        json_object_get(json_object_get(json_object_get(r, "total"), "classes"),
                        "replication_sensitive"), "member")));
    /* The atomic leaves the line dirty in the write-back L2. */
    json_decref(r);
    unlink(t.path);
}

static void slices(void)
{
    struct tb t;
    tb_open(&t, "slices");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 1, 0x0, 0);
    tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 1, 0x80, 0);
    tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 1, 0x100, 0);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay("{\"gpu\": {\"sms\": 1}, \"l2\": {\"slices\": 2, \"interleave_bytes\":"
                            " 256}}", t.path);
    CHECK_EQ_U(jget(r, "total.L2.per_slice.accesses.0"), 2);
    CHECK_EQ_U(jget(r, "total.L2.per_slice.accesses.1"), 1);
    json_decref(r);
    unlink(t.path);
}

/* -gpgpu_gmem_skip_L1D and the unified L1/shared carve-out. */
static void bypass_and_carveout(void)
{
    struct tb t;
    tb_open(&t, "carve");
    tb_kernel(&t, 1, 1, 32, 0, 0); /* no shared memory: the whole 128 KB */
    tb_load(&t, 0, 0, A);
    tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_LOCAL, 4, 0xffffffffu, B, 4);
    tb_end(&t, 1);
    tb_kernel(&t, 2, 64, 32, 1024, 0); /* 32 resident 1-KB CTAs: 32 KB of shared memory */
    for (uint32_t c = 0; c < 64; c++)
        tb_load(&t, c, 0, A);
    tb_end(&t, 2);
    tb_close(&t);

    const char *cfg = "{\"gpu\": {\"sms\": 1}, \"l1d\": {\"sets\": 4, \"ways\": 64, \"adaptive\":"
                      " {\"unified_bytes\": 131072, \"shmem_options_bytes\": [0, 8192, 16384,"
                      " 32768, 65536, 98304]}}}";
    json_t *r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "kernels.0.l1d_ways"), 256); /* 128 KB / (4 sets x 128 B) */
    CHECK_EQ_U(jget(r, "kernels.1.ctas_per_sm_limit"), 32);
    CHECK_EQ_U(jget(r, "kernels.1.l1d_ways"), 192); /* (128 - 32) KB / 512 B */
    /* 64 loads of one line in kernel 2 on the resized L1: 1 miss, 63 hits. */
    CHECK_EQ_U(jget(r, "kernels.1.L1D.misses"), 1);
    CHECK_EQ_U(jget(r, "kernels.1.L1D.hits"), 63);
    CHECK_EQ_U(jget(r, "total.L1D.accesses"), 2 + 64); /* counts survive the resize */
    json_decref(r);

    /* Global accesses skip L1; local ones still use it. */
    r = must_replay("{\"gpu\": {\"sms\": 1}, \"l1d\": {\"bypass_global\": true}}", t.path);
    CHECK_EQ_U(jget(r, "total.L1D.accesses"), 1);
    CHECK_EQ_U(jget(r, "total.instructions.l1_bypass_requests"), 1 + 64);
    CHECK_EQ_U(jget(r, "total.L2.accesses"), 1 + 64 + 1);
    json_decref(r);
    unlink(t.path);
}

/* Workload classes with the replication analysis: 4 SMs each read the same 8
 * lines once: 32 L1 misses, 24 with the line already in another L1 (ratio
 * 0.75), L1 miss rate 1: replication-sensitive by both rules. */
static void classes_with_replication(void)
{
    struct tb t;
    tb_open(&t, "classes");
    tb_kernel(&t, 1, 4, 32, 0, 0);
    for (uint32_t c = 0; c < 4; c++)
        for (uint64_t l = 0; l < 8; l++)
            tb_load(&t, c, 0, A + l * 128);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay("{\"gpu\": {\"sms\": 4}, \"analyses\": {\"replication\": {}}}",
                            t.path);
    const json_t *cl = json_object_get(json_object_get(r, "total"), "classes");
    const json_t *rs = json_object_get(cl, "replication_sensitive");
    CHECK(json_is_true(json_object_get(rs, "member")));
    double ratio = json_real_value(json_object_get(json_object_get(rs, "values"),
                                                   "replication_ratio"));
    CHECK(ratio > 0.7499 && ratio < 0.7501);
    CHECK(json_is_true(json_object_get(json_object_get(cl, "replication_sensitive_ch4"),
                                       "member")));
    json_decref(r);
    unlink(t.path);
}

static void errors_and_determinism(void)
{
    struct tb t;
    struct gcr_err err = {0};

    /* A CTA bigger than an SM. */
    tb_open(&t, "big");
    tb_kernel(&t, 7, 1, 1024, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_end(&t, 7);
    tb_close(&t);
    CHECK(replay_with("{\"gpu\": {\"max_warps_per_sm\": 24}}", t.path, &err) == NULL);
    CHECK_STR_CONTAINS(err.msg, "kernel 7");
    CHECK_STR_CONTAINS(err.msg, "one CTA needs 32 warps");
    CHECK_STR_CONTAINS(err.msg, t.path);
    unlink(t.path);

    /* Same trace and config: the same bytes. */
    tb_open(&t, "det");
    tb_kernel(&t, 1, 64, 128, 0, 0);
    for (uint32_t c = 0; c < 64; c++)
        for (uint32_t w = 0; w < 4; w++) {
            tb_load(&t, c, w, A + ((c * 7 + w * 13) % 50) * 128);
            tb_access(&t, c, w, GCR_OP_STORE, GCR_SPACE_GLOBAL, 8, 0x0f0f0f0fu,
                      B + c * 4096 + w * 256, 24);
        }
    tb_end(&t, 1);
    tb_close(&t);
    const char *cfg = "{\"gpu\": {\"sms\": 8}, \"l1d\": {\"replacement\": \"random\"}}";
    json_t *r1 = must_replay(cfg, t.path), *r2 = must_replay(cfg, t.path);
    char *s1 = gcr_report_dumps(r1), *s2 = gcr_report_dumps(r2);
    CHECK(strcmp(s1, s2) == 0);
    free(s1);
    free(s2);
    json_decref(r1);
    json_decref(r2);
    unlink(t.path);
}

/* --analysis-thread auto asks whether a thread pays: only for analyses that
 * keep state for every line (a column of the shared line map). */
static bool thread_pays(const char *analyses)
{
    char json[512];
    snprintf(json, sizeof json, "{\"gpu\": {\"sms\": 4}, \"analyses\": {%s}}", analyses);
    struct gcr_err err = {0};
    struct gcr_config cfg;
    CHECK(gcr_config_parse(&cfg, json, "t.json", &err) == 0);
    struct gcr_replay *rp = NULL;
    CHECK(gcr_replay_create(&rp, &cfg, &err) == 0);
    bool pays = rp && gcr_replay_analysis_thread_pays(rp);
    gcr_replay_destroy(rp);
    gcr_config_free(&cfg);
    return pays;
}

static void analysis_thread_choice(void)
{
    CHECK(!thread_pays(""));
    CHECK(!thread_pays("\"line_utilisation\": {}"));
    CHECK(!thread_pays("\"reuse_distance\": {\"sampling_rate\": 0.01}"));
    CHECK(!thread_pays("\"line_utilisation\": {}, "
                       "\"reuse_distance\": {\"sampling_rate\": 0.01}"));
    CHECK(thread_pays("\"reuse_distance\": {}"));
    CHECK(thread_pays("\"replication\": {}"));
    CHECK(thread_pays("\"miss_classes\": {}"));
    CHECK(thread_pays("\"locality\": {}"));
    /* sharing runs on the replay's thread (at_emission): alone, or beside
     * analyses without per-line state, it leaves the thread nothing worth it. */
    CHECK(!thread_pays("\"sharing\": {}"));
    CHECK(!thread_pays("\"line_utilisation\": {}, \"sharing\": {}"));
    CHECK(thread_pays("\"sharing\": {}, \"replication\": {}"));
}

int main(void)
{
    analysis_thread_choice();
    cta_policies();
    warp_policies();
    kernel_boundary();
    write_policies();
    sectors();
    spaces_and_atomics();
    slices();
    bypass_and_carveout();
    classes_with_replication();
    errors_and_determinism();
    CHECK_DONE();
}
