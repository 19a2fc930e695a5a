/* Config parsing: defaults, derived values and every error path with its JSON path. */
#include "check.h"
#include "gcreplay/config.h"

static void expect_error(const char *json, const char *needle)
{
    struct gcr_config cfg;
    struct gcr_err err = {0};
    if (gcr_config_parse(&cfg, json, "cfg.json", &err) == 0) {
        fprintf(stderr, "accepted: %s\n", json);
        check_failures++;
        gcr_config_free(&cfg);
        return;
    }
    CHECK_EQ_U(err.status, GCR_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, "cfg.json");
    CHECK_STR_CONTAINS(err.msg, needle);
}

int main(void)
{
    struct gcr_config cfg;
    struct gcr_err err = {0};
    CHECK(gcr_config_parse(&cfg, "{}", "cfg.json", &err) == 0);
    CHECK_EQ_U(cfg.num_sms, 80);
    CHECK_EQ_U(cfg.l1.sets, 4);
    CHECK_EQ_U(cfg.l1.ways, 64);
    CHECK_EQ_U(cfg.l1.write_policy, GCR_WRITE_EVICT);
    CHECK_EQ_U(cfg.l1.write_alloc, GCR_WALLOC_NONE);
    CHECK_EQ_U(cfg.l2.write_policy, GCR_WRITE_BACK);
    CHECK_EQ_U(cfg.l2.write_alloc, GCR_WALLOC_VALIDATE);
    CHECK_EQ_U(cfg.l2_slices, 64);
    CHECK_EQ_U(cfg.l2.strip_count, 64);
    CHECK_EQ_U(cfg.l2.strip_bytes, 256);
    gcr_config_free(&cfg);

    /* size_bytes: 16 KB, 4 ways, 128-B lines = 32 sets. */
    CHECK(gcr_config_parse(&cfg, "{\"l1d\": {\"size_bytes\": 16384, \"ways\": 4}}", "c", &err) ==
          0);
    CHECK_EQ_U(cfg.l1.sets, 32);
    gcr_config_free(&cfg);

    /* Slice selection: linear and XOR-folded. */
    CHECK(gcr_config_parse(&cfg, "{\"l2\": {\"slices\": 4, \"interleave_bytes\": 256}}", "c",
                           &err) == 0);
    CHECK_EQ_U(gcr_config_slice_of(&cfg, 0x0), 0);
    CHECK_EQ_U(gcr_config_slice_of(&cfg, 0x1ff), 1);
    CHECK_EQ_U(gcr_config_slice_of(&cfg, 0x400), 0); /* granule 4 */
    gcr_config_free(&cfg);
    CHECK(gcr_config_parse(&cfg, "{\"l2\": {\"slices\": 4, \"slice_hash\": \"xor\"}}", "c",
                           &err) == 0);
    /* granule 4 = 0b0100: groups 00 ^ 01 = 1; granule 5 = 0b0101: 01 ^ 01 = 0. */
    CHECK_EQ_U(gcr_config_slice_of(&cfg, 4 * 256), 1);
    CHECK_EQ_U(gcr_config_slice_of(&cfg, 5 * 256), 0);
    CHECK_EQ_U(gcr_config_slice_of(&cfg, 0x3f * 256), 3); /* 11 ^ 11 ^ 11 = 11 */
    gcr_config_free(&cfg);
    /* The fold reaches the top of the address: 64 slices (6-bit groups), 256-B
     * granules. Address bit 63 is granule bit 55 = bit 1 of group 9. */
    CHECK(gcr_config_parse(&cfg, "{\"l2\": {\"slices\": 64, \"slice_hash\": \"xor\"}}", "c",
                           &err) == 0);
    CHECK_EQ_U(gcr_config_slice_of(&cfg, UINT64_C(1) << 63), 2);
    /* Granule bits 55, 6, 2 and 0: groups 9 = 2, 1 = 1, 0 = 5; 2 ^ 1 ^ 5 = 6. */
    CHECK_EQ_U(gcr_config_slice_of(&cfg, ((UINT64_C(1) << 55) | 0x40 | 5) << 8), 6);
    /* Granule of 56 one bits: nine full groups of 0x3f (odd: 0x3f) and 0b11: 0x3c. */
    CHECK_EQ_U(gcr_config_slice_of(&cfg, UINT64_MAX), 0x3c);
    gcr_config_free(&cfg);

    expect_error("{\"gpu\": {\"sms\": 80,}}", "cfg.json:1:");
    expect_error("{\"gpu\": {\"sms\": 8}, \"gpu\": {}}", "duplicate");
    expect_error("[1]", "$: the configuration must be a JSON object");
    expect_error("{\"l1d\": {\"wayz\": 4}}", "$.l1d.wayz: unknown key");
    expect_error("{\"gpuu\": {}}", "$.gpuu: unknown key");
    expect_error("{\"l1d\": {\"ways\": \"four\"}}", "$.l1d.ways: expected an integer");
    expect_error("{\"l1d\": {\"ways\": 0}}", "$.l1d.ways: expected an integer between 1");
    expect_error("{\"l1d\": {\"ways\": 4.5}}", "$.l1d.ways");
    expect_error("{\"gpu\": {\"sms\": -1}}", "$.gpu.sms");
    expect_error("{\"gpu\": 3}", "$.gpu: expected an object");
    expect_error("{\"l1d\": {\"replacement\": \"plru\"}}", "$.l1d.replacement: unknown value");
    expect_error("{\"l1d\": {\"sectored\": 1}}", "$.l1d.sectored: expected true or false");
    expect_error("{\"l1d\": {\"index\": \"fermi\", \"sets\": 16}}",
                 "$.l1d: impossible cache geometry");
    expect_error("{\"l2\": {\"index\": \"ipoly\", \"sets\": 8}}",
                 "$.l2: impossible cache geometry");
    expect_error("{\"l1d\": {\"write_allocate\": \"fetch\"}}", "$.l1d: impossible cache geometry");
    expect_error("{\"l1d\": {\"sets\": 4, \"size_bytes\": 65536}}", "not both");
    expect_error("{\"l1d\": {\"size_bytes\": 1000, \"ways\": 4}}", "$.l1d.size_bytes");
    expect_error("{\"coalescer\": {\"line_bytes\": 96}}", "$.coalescer.line_bytes");
    expect_error("{\"coalescer\": {\"sector_bytes\": 256}}", "$.coalescer.sector_bytes");
    expect_error("{\"coalescer\": {\"granularity\": \"warp\"}}", "$.coalescer.granularity");
    expect_error("{\"l2\": {\"interleave_bytes\": 64}}", "$.l2.interleave_bytes");
    expect_error("{\"l2\": {\"slices\": 6, \"slice_hash\": \"xor\"}}", "$.l2.slice_hash");
    expect_error("{\"scheduling\": {\"warp_policy\": \"two_level\"}}",
                 "$.scheduling.warp_policy");
    expect_error("{\"analyses\": []}", "$.analyses: expected an object");
    expect_error("{\"l1d\": {\"private\": 3}}", "$.l1d.private: expected an object");
    expect_error("{\"name\": 5}", "$.name: expected a string");
    expect_error("{\"l2\": {\"sets\": 16777216, \"ways\": 4}}",
                 "$.l2: 64 slices x 67108864 lines = 4294967296 lines in all");
    expect_error("{\"l1d\": {\"adaptive\": {\"unified_bytes\": 4294967296, "
                 "\"shmem_options_bytes\": [0]}}}", "$.l1d.adaptive.unified_bytes");
    expect_error("{\"l1d\": {\"adaptive\": {\"unified_bytes\": 131072, "
                 "\"shmem_options_bytes\": [0, 8192, 8192]}}}",
                 "$.l1d.adaptive.shmem_options_bytes[2]");
    expect_error("{\"l2\": {\"slices\": 48, \"slice_hash\": \"ipoly\"}}",
                 "\"ipoly\" needs 16, 32 or 64 slices");
    /* chips: defaults, derived slices per chip, the report shows the section only with chips. */
    CHECK(gcr_config_parse(&cfg, "{\"chips\": {\"count\": 4}}", "cfg.json", &err) == 0);
    CHECK_EQ_U(cfg.chips.count, 4);
    CHECK_EQ_U(cfg.chips.slices_per_chip, 16);
    CHECK_EQ_U(cfg.chips.page_bytes, 4096);
    CHECK_EQ_U(cfg.chips.crd_sets, 8);
    CHECK_EQ_U(cfg.chips.crd_ways, 16);
    CHECK(cfg.chips.llc == GCR_LLC_MEMORY_SIDE && cfg.chips.shadow);
    CHECK(cfg.chips.theta == 0.05 && cfg.chips.bw.inter == 192.0 && cfg.chips.bw.mem == 437.5);
    CHECK(!cfg.chips.lsu_per_chip);
    CHECK(!cfg.chips.crd_at_requester);
    CHECK_EQ_U(cfg.chips.profile_requests, 65536);
    CHECK_EQ_U(cfg.chips.channels, 8);
    json_t *cj = gcr_config_to_json(&cfg);
    CHECK(json_integer_value(json_object_get(json_object_get(cj, "chips"), "count")) == 4);
    json_decref(cj);
    gcr_config_free(&cfg);
    CHECK(gcr_config_parse(&cfg, "{}", "cfg.json", &err) == 0);
    CHECK_EQ_U(cfg.chips.count, 1);
    cj = gcr_config_to_json(&cfg);
    CHECK(json_object_get(cj, "chips") == NULL);
    json_decref(cj);
    gcr_config_free(&cfg);
    expect_error("{\"chips\": {\"count\": 3}}", "$.chips.count: 3 chips do not split the 80 SMs");
    expect_error("{\"gpu\": {\"sms\": 12}, \"chips\": {\"count\": 3}}",
                 "$.chips.count: 3 chips do not split the 64 L2 slices");
    expect_error("{\"chips\": {\"count\": 0}}", "$.chips.count: expected an integer between 1 and 64");
    expect_error("{\"chips\": {\"count\": 2, \"page_bytes\": 1000}}", "$.chips.page_bytes");
    expect_error("{\"chips\": {\"count\": 2, \"page_bytes\": 64}}",
                 "$.chips.page_bytes: must be a power of two no smaller than a line");
    expect_error("{\"chips\": {\"channels\": 6}}", "$.chips.channels: must be a power of two");
    expect_error("{\"chips\": {\"llc\": \"both\"}}", "$.chips.llc: unknown value");
    expect_error("{\"chips\": {\"pages\": 1}}", "$.chips.pages: unknown key");
    expect_error("{\"chips\": {\"crd\": {\"size\": 1}}}", "$.chips.crd.size: unknown key");
    expect_error("{\"chips\": {\"crd\": {\"at\": \"slice\"}}}", "$.chips.crd.at: unknown value");
    expect_error("{\"chips\": {\"eab\": {\"theta\": -0.1}}}", "$.chips.eab.theta");
    expect_error("{\"chips\": {\"eab\": {\"lsu_scope\": \"slice\"}}}",
                 "$.chips.eab.lsu_scope: unknown value \"slice\"");
    expect_error("{\"chips\": {\"eab\": {\"mem_gbs\": \"fast\"}}}",
                 "$.chips.eab.mem_gbs: expected a number");
    expect_error("{\"chips\": {\"count\": 4, \"crd\": {\"sets\": 1000}}}",
                 "$.chips.crd.sets: 1000 sampled sets but a chip's LLC has only 512 sets");
    expect_error("{\"l2\": {\"slice_hash\": \"ipoly\"}, \"chips\": {\"count\": 8}}",
                 "$.l2.slice_hash: \"ipoly\" needs 16, 32 or 64 slices per chip");
    expect_error("{\"chips\": {\"count\": 2}, \"l2\": {\"prefill_memcpy\": true}}",
                 "$.l2.prefill_memcpy: not available with several chips");
    CHECK_DONE();
}
