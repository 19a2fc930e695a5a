/* The tsc organisation through its L1 contract: what a partial miss fetches
 * from L2, write-evict, chunks larger than a sector, and TSC+ set dueling
 * (counters, halving, the mode switch and its effect on other SMs). */
#include "check.h"
#include "gcreplay/config.h"
#include "replay/l1org.h"

extern const struct gcr_l1org_ops gcr_l1org_tsc;

struct rig {
    struct gcr_config cfg;
    struct gcr_bus bus;
    struct gcr_memsys mem;
    struct gcr_sim_info info;
    struct gcr_l1org_ctx ctx;
    void *org;
};

static void rig_open(struct rig *r, const char *json)
{
    struct gcr_err err = {0};
    memset(r, 0, sizeof *r);
    if (gcr_config_parse(&r->cfg, json, "t", &err) != 0 ||
        gcr_memsys_init(&r->mem, &r->cfg, &r->bus, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
    r->info = (struct gcr_sim_info){.config = &r->cfg, .num_sms = r->cfg.num_sms,
                                    .num_l1s = r->cfg.num_sms, .num_l2_slices = 1,
                                    .line_bytes = 128, .sector_bytes = r->cfg.sector_bytes};
    r->ctx = (struct gcr_l1org_ctx){.config = &r->cfg, .info = &r->info, .mem = &r->mem,
                                    .bus = &r->bus};
    if (gcr_l1org_tsc.create(&r->org, &r->ctx, r->cfg.l1_org_options, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
}

static void rig_close(struct rig *r)
{
    gcr_l1org_tsc.destroy(r->org);
    gcr_memsys_fini(&r->mem);
    gcr_config_free(&r->cfg);
}

/* One request; each is its own instruction (the step advances). */
static enum gcr_outcome req(struct rig *r, uint32_t sm, uint64_t line, uint32_t sectors,
                            bool write)
{
    struct gcr_req q = {.line_addr = line, .sector_mask = sectors, .is_write = write, .sm = sm,
                        .bytes = 32 * (uint32_t)__builtin_popcount(sectors)};
    r->bus.step++;
    return gcr_l1org_tsc.access(r->org, &q);
}

static json_t *section(struct rig *r)
{
    json_t *s = json_object();
    struct gcr_err err = {0};
    CHECK(gcr_l1org_tsc.report(r->org, s, &err) == 0);
    return s;
}

static long long at(json_t *s, const char *a, const char *b)
{
    return json_integer_value(json_object_get(json_object_get(s, a), b));
}

static void partial_misses(void)
{
    struct rig r;
    rig_open(&r, "{\"gpu\": {\"sms\": 1}, \"l1d\": {\"organization\": \"tsc\", \"sets\": 32, "
                 "\"ways\": 4}, \"l2\": {\"slices\": 1}}");
    CHECK_EQ_U(req(&r, 0, 0x1000, 0x1, false), GCR_MISS_LINE);
    CHECK_EQ_U(r.mem.traffic.l2_to_l1_bytes, 32); /* chunk 0 only */
    CHECK_EQ_U(req(&r, 0, 0x1000, 0x3, false), GCR_MISS_SECTOR); /* partial: chunk 1 fetched */
    CHECK_EQ_U(r.mem.traffic.l2_to_l1_bytes, 64);
    CHECK_EQ_U(req(&r, 0, 0x1000, 0x3, false), GCR_HIT);
    /* None of chunks 2, 3 cached: a miss in the paper's sense, but the line has
     * chunks here, so the cache counters call it a sector miss, as a sector
     * cache would (outcomes as the report's L1D section counts them). */
    CHECK_EQ_U(req(&r, 0, 0x1000, 0xc, false), GCR_MISS_SECTOR);
    CHECK_EQ_U(r.mem.traffic.l2_to_l1_bytes, 128);
    /* A store evicts the line's chunks (write-evict) and goes below. */
    CHECK_EQ_U(req(&r, 0, 0x1000, 0x1, true), GCR_HIT);
    CHECK_EQ_U(r.mem.traffic.l1_to_l2_write_bytes, 32);
    CHECK_EQ_U(req(&r, 0, 0x1000, 0x2, false), GCR_MISS_LINE);
    json_t *s = section(&r);
    /* Reads: miss, partial, hit, miss (paper's sense: no requested chunk
     * there), miss. */
    CHECK_EQ_U(at(s, "reads", "hits"), 1);
    CHECK_EQ_U(at(s, "reads", "partial_misses"), 1);
    CHECK_EQ_U(at(s, "reads", "misses"), 3);
    CHECK_EQ_U(at(s, "chunks", "fetched"), 5);
    CHECK_EQ_U(at(s, "chunks", "write_evicted"), 4);
    /* Packets: 4 read misses x (1 request + data) + 1 store packet. */
    json_t *m = json_object_get(s, "metrics");
    CHECK_EQ_U(at(m, "packets", "l1_to_l2"), 5);
    CHECK_EQ_U(at(m, "packets", "l2_to_l1"), 5);
    CHECK_EQ_U(json_integer_value(json_object_get(m, "miss_insns")), 4);
    /* The 128-B baseline beside it fetched whole lines: 0x1000 twice (after
     * the store evicted it): 2 x 4 data packets. */
    json_t *b = json_object_get(json_object_get(s, "references"), "line128");
    CHECK_EQ_U(at(b, "packets", "l2_to_l1"), 8);
    CHECK_EQ_U(json_integer_value(json_object_get(b, "misses")), 2); /* the store hit */
    json_decref(s);
    struct gcr_cache_stats st;
    gcr_l1org_tsc.collect_stats(r.org, &st);
    CHECK_EQ_U(st.accesses[0], 5);
    CHECK_EQ_U(st.accesses[1], 1);
    CHECK_EQ_U(st.outcomes[0][GCR_MISS_SECTOR], 2);
    CHECK_EQ_U(st.outcomes[0][GCR_MISS_LINE], 2);
    CHECK_EQ_U(st.sectors_fetched, 5);
    CHECK_EQ_U(st.invalidations, 1);

    /* A kernel with another carve-out: 8 groups per set, the L1 restarts
     * empty (the resident line leaves, counted), the counts carry over. */
    CHECK_EQ_U(req(&r, 0, 0x1000, 0x2, false), GCR_HIT);
    struct gcr_cache_geometry g = r.cfg.l1;
    g.ways = 8;
    struct gcr_err err = {0};
    CHECK(gcr_l1org_tsc.kernel_begin(r.org, &g, &err) == 0);
    CHECK_EQ_U(req(&r, 0, 0x1000, 0x2, false), GCR_MISS_LINE);
    gcr_l1org_tsc.collect_stats(r.org, &st);
    CHECK_EQ_U(st.accesses[0], 7);
    CHECK_EQ_U(st.invalidations, 2);
    s = section(&r);
    CHECK_EQ_U(at(s, "geometry", "groups_per_set"), 8);
    json_decref(s);
    rig_close(&r);
}

static void big_chunks(void)
{
    struct rig r;
    rig_open(&r, "{\"gpu\": {\"sms\": 1}, \"l1d\": {\"organization\": \"tsc\", \"sets\": 32, "
                 "\"ways\": 4, \"tsc\": {\"chunk_bytes\": 64}}, \"l2\": {\"slices\": 1}}");
    CHECK_EQ_U(req(&r, 0, 0x2000, 0x2, false), GCR_MISS_LINE); /* sector 1 = chunk 0 */
    CHECK_EQ_U(r.mem.traffic.l2_to_l1_bytes, 64);
    CHECK_EQ_U(req(&r, 0, 0x2000, 0x1, false), GCR_HIT);
    CHECK_EQ_U(req(&r, 0, 0x2000, 0x4, false), GCR_MISS_SECTOR);
    CHECK_EQ_U(r.mem.traffic.l2_to_l1_bytes, 128);
    rig_close(&r);
}

/* Linear index, 32 sets: line (set s, k-th line) = k * 4096 + s * 128. */
static uint64_t line_in(uint32_t set, uint32_t k)
{
    return (uint64_t)k * 4096 + (uint64_t)set * 128;
}

static void dueling(void)
{
    struct rig r;
    rig_open(&r, "{\"gpu\": {\"sms\": 2}, \"l1d\": {\"organization\": \"tsc\", \"sets\": 32, "
                 "\"ways\": 4, \"tsc\": {\"mode\": \"adaptive\", \"index\": \"linear\", "
                 "\"sampler_sets\": 1, \"halve_above\": 4, \"baselines\": []}}, "
                 "\"l2\": {\"slices\": 1}}");
    json_t *s = section(&r);
    json_t *ad = json_object_get(s, "adaptive");
    json_t *samplers = json_object_get(ad, "sampler_sets_sm0");
    uint32_t fine = (uint32_t)json_integer_value(json_array_get(json_object_get(samplers, "fine"), 0));
    uint32_t coarse =
        (uint32_t)json_integer_value(json_array_get(json_object_get(samplers, "coarse"), 0));
    CHECK(fine != coarse);
    CHECK(json_object_get(s, "normalised") == NULL); /* no baseline replayed */
    json_decref(s);
    uint32_t follower = 0;
    while (follower == fine || follower == coarse)
        follower++;

    /* Fine sampler: 3 misses of one chunk -> miss 3, traffic 3 x (1 + 1) = 6. */
    for (uint32_t k = 0; k < 3; k++)
        req(&r, 0, line_in(fine, k), 0x1, false);
    /* Coarse sampler: one miss of one chunk fetches all 4: miss 1, traffic 5. */
    req(&r, 0, line_in(coarse, 0), 0x1, false);
    CHECK_EQ_U(r.mem.traffic.l2_to_l1_bytes, 3 * 32 + 128);
    /* Coarse won at the very first fine miss (fine 1 x 2 > coarse 0 x 0) and
     * still does: 3 x 6 = 18 > 1 x 5 = 5. */
    s = section(&r);
    ad = json_object_get(s, "adaptive");
    CHECK_EQ_U(at(ad, "counters", "miss_fine"), 3);
    CHECK_EQ_U(at(ad, "counters", "traffic_fine"), 6);
    CHECK_EQ_U(at(ad, "counters", "miss_coarse"), 1);
    CHECK_EQ_U(at(ad, "counters", "traffic_coarse"), 5);
    CHECK_STR_CONTAINS(json_string_value(json_object_get(ad, "mode_now")), "coarse");
    CHECK_EQ_U(json_integer_value(json_object_get(ad, "switches")), 1);
    json_t *sw = json_array_get(json_object_get(ad, "timeline"), 0);
    CHECK_EQ_U(json_integer_value(json_object_get(sw, "request")), 1);
    json_decref(s);

    /* Followers (SM 1, any set; SM 0's other sets) now fetch whole lines. */
    uint64_t before = r.mem.traffic.l2_to_l1_bytes;
    req(&r, 1, line_in(fine, 0), 0x1, false);
    req(&r, 0, line_in(follower, 0), 0x1, false);
    CHECK_EQ_U(r.mem.traffic.l2_to_l1_bytes - before, 2 * 128);
    /* The fine sampler stays fine whatever wins. */
    before = r.mem.traffic.l2_to_l1_bytes;
    req(&r, 0, line_in(fine, 3), 0x1, false);
    CHECK_EQ_U(r.mem.traffic.l2_to_l1_bytes - before, 32);

    /* That was fine miss 4 (traffic 8); one more passes 4: all four counters
     * halve: fine 5 -> 2, 10 -> 5; coarse 1 -> 0, 5 -> 2. Coarse: 0 < 10. */
    req(&r, 0, line_in(fine, 4), 0x1, false);
    s = section(&r);
    ad = json_object_get(s, "adaptive");
    CHECK_EQ_U(json_integer_value(json_object_get(ad, "halvings")), 1);
    CHECK_EQ_U(at(ad, "counters", "miss_fine"), 2);
    CHECK_EQ_U(at(ad, "counters", "traffic_fine"), 5);
    CHECK_EQ_U(at(ad, "counters", "miss_coarse"), 0);
    CHECK_EQ_U(at(ad, "counters", "traffic_coarse"), 2);
    json_decref(s);

    /* Coarse sampler misses make coarse costly: 4 more misses -> coarse miss
     * 4, traffic 2 + 4 x 5 = 22: 88 > fine 2 x 5 = 10: back to fine. The
     * first of them, 1 x 7 = 7 < 10, keeps coarse; the second (2 x 12 = 24)
     * switches: it is request 10 (3 fine, 1 coarse, 2 followers, 2 fine, 2
     * coarse). */
    for (uint32_t k = 1; k <= 4; k++)
        req(&r, 0, line_in(coarse, k), 0x1, false);
    s = section(&r);
    ad = json_object_get(s, "adaptive");
    CHECK_EQ_U(at(ad, "counters", "miss_coarse"), 4);
    CHECK_EQ_U(at(ad, "counters", "traffic_coarse"), 22);
    CHECK_STR_CONTAINS(json_string_value(json_object_get(ad, "mode_now")), "fine");
    CHECK_EQ_U(json_integer_value(json_object_get(ad, "switches")), 2);
    sw = json_array_get(json_object_get(ad, "timeline"), 1);
    CHECK_EQ_U(json_integer_value(json_object_get(sw, "request")), 10);
    CHECK_EQ_U(at(ad, "follower_requests", "coarse"), 2);
    json_decref(s);
    before = r.mem.traffic.l2_to_l1_bytes;
    req(&r, 1, line_in(follower, 7), 0x1, false);
    CHECK_EQ_U(r.mem.traffic.l2_to_l1_bytes - before, 32);
    rig_close(&r);
}

int main(void)
{
    partial_misses();
    big_chunks();
    dueling();
    CHECK_DONE();
}
