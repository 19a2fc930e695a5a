/* Multi-chip GPUs: the EAB model on the worked example of the SAC notes, the
 * Chip Request Directory's bit logic, first-touch placement, CTA -> chip
 * dispatch and both LLC routing paths on tiny hand-made traces. */
#include "replay_util.h"

#include "gcreplay/chips.h"
#include "multichip/chips.h"
#include "replay/memsys.h"

#define EPS 1e-9
#define CHECK_NEAR(got, want)                                                                \
    do {                                                                                     \
        double g_ = (got), w_ = (want);                                                      \
        if (fabs(g_ - w_) > EPS) {                                                           \
            fprintf(stderr, "%s:%d: %s = %.12g, want %.12g\n", __FILE__, __LINE__, #got, g_, \
                    w_);                                                                     \
            check_failures++;                                                                \
        }                                                                                    \
    } while (0)

/* ../shared/reference/seed-002-003-sac-colab.md §1.9, per-chip GB/s. */
static void eab_worked_example(void)
{
    const struct gcr_eab_bandwidths bw = {.intra = 4000, .inter = 192, .llc = 4000, .mem = 437.5};
    struct gcr_eab_inputs mem = {.r_local = 0.4, .llc_hit = 0.8, .lsu = 0.5};
    struct gcr_eab m = gcr_eab_model(GCR_LLC_MEMORY_SIDE, &mem, &bw);
    /* local = min(4000, 640 + min(160, inf, 175)); remote = min(192, 960 + ...) */
    CHECK_NEAR(m.local, 800);
    CHECK_NEAR(m.remote, 192);
    CHECK_NEAR(m.total, 992);

    struct gcr_eab_inputs sm = {.r_local = 0.4, .llc_hit = 0.6, .lsu = 0.9};
    struct gcr_eab s = gcr_eab_model(GCR_LLC_SM_SIDE, &sm, &bw);
    /* local = min(1600, 864 + min(576, inf, 175)); remote = min(2400, 1296 + min(864, 192, 262.5)) */
    CHECK_NEAR(s.local, 1039);
    CHECK_NEAR(s.remote, 1488);
    CHECK_NEAR(s.total, 2527);
    CHECK(gcr_eab_decide(m.total, s.total, 0.05) == GCR_LLC_SM_SIDE);

    sm.llc_hit = 0.1; /* local = 144 + 175; remote = 216 + 192 */
    s = gcr_eab_model(GCR_LLC_SM_SIDE, &sm, &bw);
    CHECK_NEAR(s.local, 319);
    CHECK_NEAR(s.remote, 408);
    CHECK_NEAR(s.total, 727);
    CHECK(gcr_eab_decide(m.total, s.total, 0.05) == GCR_LLC_MEMORY_SIDE);

    /* Under memory-side the remote part never exceeds B_inter. */
    mem.r_local = 0.0;
    mem.llc_hit = 1.0;
    mem.lsu = 1.0;
    CHECK_NEAR(gcr_eab_model(GCR_LLC_MEMORY_SIDE, &mem, &bw).remote, 192);

    /* theta is relative and strict: 5 % more is not "more than 5 %". */
    CHECK(gcr_eab_decide(1000, 1050, 0.05) == GCR_LLC_MEMORY_SIDE);
    CHECK(gcr_eab_decide(1000, 1050.5, 0.05) == GCR_LLC_SM_SIDE);

    /* LSU: 1 when uniform, 1/N when one slice takes everything. */
    uint64_t uni[4] = {7, 7, 7, 7}, one[4] = {0, 9, 0, 0}, mix[4] = {4, 2, 2, 0};
    CHECK_NEAR(gcr_eab_lsu(uni, 4), 1.0);
    CHECK_NEAR(gcr_eab_lsu(one, 4), 0.25);
    CHECK_NEAR(gcr_eab_lsu(mix, 4), 0.5); /* mean 2 / max 4 */
}

static void crd_bits(void)
{
    struct gcr_crd d;
    struct gcr_err err = {0};
    CHECK(gcr_crd_init(&d, 2, 2, 4, &err) == 0);
    const uint64_t A = 0x1000, B = 0x2000, C = 0x3000;
    CHECK(!gcr_crd_access(&d, 0, A, 0, 0xf)); /* chip 0 first touch: bit set, a miss */
    CHECK(gcr_crd_access(&d, 0, A, 0, 0xf));  /* bit 0 set: an SM-side hit */
    CHECK(!gcr_crd_access(&d, 0, A, 1, 0xf)); /* chip 1 has its own bit */
    CHECK(gcr_crd_access(&d, 0, A, 1, 0xf));
    CHECK(!gcr_crd_access(&d, 1, A, 0, 0xf)); /* another sampled set is another entry */
    CHECK(!gcr_crd_access(&d, 0, B, 0, 0xf)); /* second way of set 0 */
    CHECK(gcr_crd_access(&d, 0, B, 0, 0xf));
    /* Set 0 is full: C replaces the least recently used tag (A), whose bits go. */
    CHECK(!gcr_crd_access(&d, 0, C, 2, 0xf));
    CHECK(!gcr_crd_access(&d, 0, A, 0, 0xf));
    CHECK(gcr_crd_access(&d, 0, A, 0, 0xf));
    /* Sectors: a hit needs every requested sector touched by that chip. */
    CHECK(!gcr_crd_access(&d, 1, B, 3, 0x1));
    CHECK(!gcr_crd_access(&d, 1, B, 3, 0x3));
    CHECK(gcr_crd_access(&d, 1, B, 3, 0x2));
    CHECK_EQ_U(d.requests, 13);
    CHECK_EQ_U(d.hits, 5);
    gcr_crd_clear(&d);
    CHECK(!gcr_crd_access(&d, 0, A, 0, 0xf)); /* cleared at a kernel start */
    CHECK_EQ_U(d.requests, 14); /* counters survive clearing */
    gcr_crd_fini(&d);
}

/* n samples over m places of one dimension (slices or set indices). With
 * n <= m they are stratified: every run of consecutive places holds its share
 * of the samples, n x run / m, within less than 2 (one partial stratum at
 * each end). With n > m every place holds floor(n/m) or ceil(n/m). */
static void check_spread(const uint32_t *per_place, uint32_t m, uint32_t n)
{
    bool ok = true;
    if (n > m) {
        for (uint32_t i = 0; i < m; i++)
            ok &= per_place[i] == n / m || per_place[i] == (n + m - 1) / m;
    } else {
        for (uint32_t first = 0; first < m; first++) {
            uint32_t got = 0;
            for (uint32_t end = first + 1; end <= m; end++) {
                got += per_place[end - 1];
                ok &= fabs(got - (double)n * (end - first) / m) < 2;
            }
        }
    }
    if (!ok)
        fprintf(stderr, "%u samples unevenly spread over %u places\n", n, m);
    CHECK(ok);
}

/* Where the directory's sampled sets lie: distinct sets of the chip, spread
 * over the slices and over the set indices. SAC's 8 sets in a chip of 16
 * slices x 32 sets take one eighth of each, never all one set index as every
 * 64th set (a multiple of a slice's 32 sets) did. */
static void crd_sample_positions(void)
{
    static const uint32_t want_slice[8] = {0, 3, 4, 7, 8, 11, 12, 15};
    static const uint32_t want_set[8] = {0, 5, 10, 15, 16, 21, 26, 31};
    for (uint32_t k = 0; k < 8; k++) {
        uint32_t slice, set;
        gcr_crd_sample(k, 8, 16, 32, &slice, &set);
        CHECK_EQ_U(slice, want_slice[k]);
        CHECK_EQ_U(set, want_set[k]);
    }
    enum { MAX_SLICES = 12, MAX_SETS = 40 };
    static uint8_t taken[MAX_SLICES * MAX_SETS];
    for (uint32_t slices = 1; slices <= MAX_SLICES; slices++)
        for (uint32_t sets = 1; sets <= MAX_SETS; sets++)
            for (uint32_t n = 1; n <= slices * sets; n++) {
                uint32_t per_slice[MAX_SLICES] = {0}, per_set[MAX_SETS] = {0};
                memset(taken, 0, sizeof taken);
                for (uint32_t k = 0; k < n; k++) {
                    uint32_t slice, set;
                    gcr_crd_sample(k, n, slices, sets, &slice, &set);
                    if (slice >= slices || set >= sets) {
                        CHECK(slice < slices && set < sets);
                        return;
                    }
                    CHECK(!taken[slice * sets + set]);
                    taken[slice * sets + set] = 1;
                    per_slice[slice]++;
                    per_set[set]++;
                }
                check_spread(per_slice, slices, n);
                check_spread(per_set, sets, n);
            }
}

static void first_touch_pages(void)
{
    struct gcr_pages p = {0};
    CHECK_EQ_U(gcr_pages_lookup(&p, 5), UINT32_MAX);
    CHECK_EQ_U(gcr_pages_home(&p, 5, 2), 2); /* first toucher becomes home */
    CHECK_EQ_U(gcr_pages_home(&p, 5, 0), 2); /* later touches do not move it */
    CHECK_EQ_U(gcr_pages_lookup(&p, 5), 2);
    for (uint64_t i = 0; i < 5000; i++) /* through several table growths */
        CHECK_EQ_U(gcr_pages_home(&p, 1000 + i, (uint32_t)(i % 3)), i % 3);
    for (uint64_t i = 0; i < 5000; i++)
        CHECK_EQ_U(gcr_pages_lookup(&p, 1000 + i), i % 3);
    CHECK_EQ_U(gcr_pages_lookup(&p, 5), 2);
    CHECK_EQ_U(p.used, 5001);
    /* Pages far apart, each in its own leaf, through several table growths. */
    for (uint64_t i = 0; i < 300; i++)
        CHECK_EQ_U(gcr_pages_home(&p, (i + 100) * 100003, (uint32_t)(i % 4)), i % 4);
    for (uint64_t i = 0; i < 300; i++)
        CHECK_EQ_U(gcr_pages_lookup(&p, (i + 100) * 100003), i % 4);
    CHECK_EQ_U(gcr_pages_lookup(&p, 100 * 100003 + 1), UINT32_MAX); /* same leaf, not placed */
    CHECK_EQ_U(p.used, 5301);
    gcr_pages_fini(&p);

    /* CTA -> chip: contiguous blocks of ceil(n / chips). */
    CHECK_EQ_U(gcr_chip_of_cta(0, 10, 4), 0);
    CHECK_EQ_U(gcr_chip_of_cta(2, 10, 4), 0);
    CHECK_EQ_U(gcr_chip_of_cta(3, 10, 4), 1);
    CHECK_EQ_U(gcr_chip_of_cta(9, 10, 4), 3);
    CHECK_EQ_U(gcr_chip_of_cta(7, 10, 1), 0);
    CHECK_EQ_U(gcr_chip_of_sm(39, 80, 4), 1);
    CHECK_EQ_U(gcr_chip_of_sm(40, 80, 4), 2);
}

/* 2 chips of 1 SM, 1 slice each; L1s bypassed, so every load reaches the LLC.
 * Every line has 4 sectors of 32 B. */
static const char *two_chips =
    "{\"gpu\": {\"sms\": 2}, \"l1d\": {\"sets\": 4, \"ways\": 4, \"bypass_global\": true},"
    " \"l2\": {\"slices\": 2, \"sets\": 16, \"ways\": 4},"
    " \"chips\": {\"count\": 2, \"crd\": {\"sets\": 16, \"ways\": 4}}}";

static void store(struct tb *t, uint32_t cta, uint64_t base)
{
    tb_access(t, cta, 0, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0xffffffffu, base, 4);
}

/* Issue order (one instruction per SM per step, SM 0 first):
 *   step 0: chip 0 loads A (A's page homed on 0)   chip 1 loads B (homed on 1)
 *   step 1: chip 0 loads B (remote)                 chip 1 loads A (remote)
 *   step 2: chip 0 loads B                          chip 1 loads A
 *   step 3:                                         chip 1 stores A (128 B) */
static void routing(void)
{
    const uint64_t A = 0x100000, B = 0x200000;
    struct tb t;
    tb_open(&t, "chips-route");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 0, B);
    tb_load(&t, 0, 0, B);
    tb_load(&t, 1, 0, B);
    tb_load(&t, 1, 0, A);
    tb_load(&t, 1, 0, A);
    store(&t, 1, A);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay(two_chips, t.path);
    const char *k = "kernels.0.multichip";
    char p[128];
#define P(sfx) (snprintf(p, sizeof p, "%s.%s", k, sfx), p)
    CHECK_EQ_U(jget(r, P("pages_placed_per_chip.0")), 1);
    CHECK_EQ_U(jget(r, P("pages_placed_per_chip.1")), 1);

    /* Memory-side: A lives in chip 0's slice, B in chip 1's. Misses: the
     * first touch of each; the 3 remote loads and the remote store hit. Each
     * remote load crosses the single link twice (request 0 B, reply 128 B);
     * the store crosses once with its 128 B. */
    CHECK_EQ_U(jget(r, P("memory_side.requests")), 7);
    CHECK_EQ_U(jget(r, P("memory_side.local_requests")), 2);
    CHECK_EQ_U(jget(r, P("memory_side.remote_requests")), 5);
    CHECK_EQ_U(jget(r, P("memory_side.llc_hits")), 5);
    CHECK_EQ_U(jget(r, P("memory_side.per_slice_requests.0")), 4);
    CHECK_EQ_U(jget(r, P("memory_side.per_slice_requests.1")), 3);
    CHECK_EQ_U(jget(r, P("memory_side.link_bytes")), 4 * 128 + 128);
    CHECK_EQ_U(jget(r, P("memory_side.link_messages")), 9);
    CHECK_EQ_U(jget(r, P("memory_side.link_bytes_out_per_chip.0")), 2 * 128);
    CHECK_EQ_U(jget(r, P("memory_side.link_bytes_out_per_chip.1")), 2 * 128 + 128);
    CHECK_EQ_U(jget(r, P("memory_side.dram_read_bytes_per_chip.0")), 128);
    CHECK_EQ_U(jget(r, P("memory_side.dram_read_bytes_per_chip.1")), 128);
    CHECK_EQ_U(jget(r, P("memory_side.dram_write_bytes")), 0); /* dirty A stays */
    /* The report's L2 is the memory-side LLC. */
    CHECK_EQ_U(jget(r, "kernels.0.L2.accesses"), 7);
    CHECK_EQ_U(jget(r, "kernels.0.L2.hits"), 5);
    CHECK_EQ_U(jget(r, "kernels.0.traffic.dram_read_bytes"), 256);

    /* SM-side: each chip's own slice. Misses: both first touches (local
     * memory) and the first remote load of each chip (past the home LLC to
     * its memory: request 0 B and reply 128 B on the link); the second remote
     * loads and the store hit. At the kernel's end chip 1's dirty copy of A
     * goes home over the link to chip 0's memory. */
    CHECK_EQ_U(jget(r, P("sm_side.requests")), 7);
    CHECK_EQ_U(jget(r, P("sm_side.llc_hits")), 3);
    CHECK_EQ_U(jget(r, P("sm_side.per_slice_requests.0")), 3);
    CHECK_EQ_U(jget(r, P("sm_side.per_slice_requests.1")), 4);
    CHECK_EQ_U(jget(r, P("sm_side.link_bytes")), 2 * 128 + 128);
    CHECK_EQ_U(jget(r, P("sm_side.link_messages")), 5);
    CHECK_EQ_U(jget(r, P("sm_side.dram_read_bytes_per_chip.0")), 256);
    CHECK_EQ_U(jget(r, P("sm_side.dram_read_bytes_per_chip.1")), 256);
    CHECK_EQ_U(jget(r, P("sm_side.dram_write_bytes_per_chip.0")), 128);
    CHECK_EQ_U(jget(r, P("sm_side.dram_write_bytes_per_chip.1")), 0);

    /* Every set sampled: chip 0's CRD sees A (chip 0 miss, chip 1 miss, hit,
     * hit for the store), chip 1's sees B (miss, miss, hit): 3 of 7, as the
     * replayed SM-side LLC. */
    CHECK_EQ_U(jget(r, P("sac.kernel.crd_requests")), 7);
    CHECK_EQ_U(jget(r, P("sac.kernel.crd_hits")), 3);
    CHECK_REAL(r, P("sac.kernel.replayed_sm_hit_rate"), 3.0 / 7);
    CHECK_REAL(r, P("sac.kernel.r_local"), 2.0 / 7);
    /* LSU over all slices (eab.lsu_scope "system"): mean 3.5 / max 4. */
    CHECK_REAL(r, P("sac.kernel.lsu_memory_side"), 0.875);
    CHECK_REAL(r, P("sac.kernel.lsu_sm_side"), 0.875);
    CHECK_REAL(r, P("memory_side.lsu_per_chip.0"), 1.0); /* one slice per chip */
    json_decref(r);

    /* Directories at the requesters: chip 0's sees A (miss), B (miss), B
     * (hit); chip 1's B (miss), A (miss), A (hit), the store to A (hit). */
    r = must_replay("{\"gpu\": {\"sms\": 2}, \"l1d\": {\"bypass_global\": true},"
                    " \"l2\": {\"slices\": 2, \"sets\": 16, \"ways\": 4},"
                    " \"chips\": {\"count\": 2, \"crd\": {\"sets\": 16, \"at\": \"requester\"}}}",
                    t.path);
    CHECK_EQ_U(jget(r, P("sac.kernel.crd_requests")), 7);
    CHECK_EQ_U(jget(r, P("sac.kernel.crd_hits")), 3);
    json_decref(r);

    /* The same trace with the SM-side LLC as the report's L2. */
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"gpu\": {\"sms\": 2}, \"l1d\": {\"sets\": 4, \"ways\": 4, \"bypass_global\": true},"
             " \"l2\": {\"slices\": 2, \"sets\": 16, \"ways\": 4},"
             " \"chips\": {\"count\": 2, \"llc\": \"sm_side\", \"shadow\": false}}");
    r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "kernels.0.L2.accesses"), 7);
    CHECK_EQ_U(jget(r, "kernels.0.L2.hits"), 3);
    CHECK_EQ_U(jget(r, "kernels.0.traffic.dram_read_bytes"), 512);
    CHECK_EQ_U(jget(r, "kernels.0.traffic.dram_write_bytes"), 128);
    CHECK(json_is_false(json_object_get(
        json_object_get(json_object_get(json_array_get(json_object_get(r, "kernels"), 0),
                                        "multichip"),
                        "memory_side"),
        "replayed")));
    json_decref(r);
#undef P
    unlink(t.path);
}

/* Where the CRD sits. 2 chips, one 16-set direct-mapped LLC slice each;
 * A (home 0) and C (home 1, touched first by chip 1) share set 0.
 *   step 0: chip 0 loads A       chip 1 loads C
 *   step 1: chip 0 loads C
 *   step 2: chip 0 loads A
 * Chip 0's SM-side LLC loses A to C: no SM-side hit. SAC's directory at the
 * home chip 0 sees only A and predicts a hit; one at the requester sees A, C,
 * A in its one way and does not. */
static void crd_capacity(void)
{
    const uint64_t A = 0x100000, C = 0x300000;
    struct tb t;
    tb_open(&t, "chips-crd");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 0, C);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 1, 0, C);
    tb_end(&t, 1);
    tb_close(&t);
    static const char *const where[] = {"home", "requester"};
    for (int i = 0; i < 2; i++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg,
                 "{\"gpu\": {\"sms\": 2}, \"l1d\": {\"bypass_global\": true},"
                 " \"l2\": {\"slices\": 2, \"sets\": 16, \"ways\": 1},"
                 " \"chips\": {\"count\": 2, \"crd\": {\"sets\": 16, \"ways\": 1,"
                 " \"at\": \"%s\"}}}", where[i]);
        json_t *r = must_replay(cfg, t.path);
        CHECK_EQ_U(jget(r, "kernels.0.multichip.sm_side.llc_hits"), 0);
        CHECK_EQ_U(jget(r, "kernels.0.multichip.sac.kernel.crd_requests"), 4);
        CHECK_EQ_U(jget(r, "kernels.0.multichip.sac.kernel.crd_hits"), i == 0 ? 1 : 0);
        json_decref(r);
    }
    unlink(t.path);
}

/* 8 CTAs on 4 SMs of 2 chips: CTAs 0-3 run on chip 0 and all load X, CTAs
 * 4-7 on chip 1 and load Y, so every request is local (both policies). */
static void cta_dispatch(void)
{
    const uint64_t X = 0x100000, Y = 0x300000;
    struct tb t;
    tb_open(&t, "chips-cta");
    tb_kernel(&t, 1, 8, 32, 0, 0);
    for (uint32_t c = 0; c < 8; c++) {
        tb_load(&t, c, 0, c < 4 ? X : Y);
        tb_nonmem(&t, c, 0, 2);
    }
    tb_end(&t, 1);
    tb_close(&t);
    static const char *const policies[] = {"round_robin", "contiguous"};
    for (int i = 0; i < 2; i++) {
        char cfg[512];
        snprintf(cfg, sizeof cfg,
                 "{\"gpu\": {\"sms\": 4, \"max_ctas_per_sm\": 1},"
                 " \"scheduling\": {\"cta_policy\": \"%s\"},"
                 " \"l1d\": {\"bypass_global\": true}, \"l2\": {\"slices\": 4},"
                 " \"chips\": {\"count\": 2}}", policies[i]);
        json_t *r = must_replay(cfg, t.path);
        CHECK_EQ_U(jget(r, "total.ctas"), 8);
        CHECK_EQ_U(jget(r, "total.multichip.memory_side.requests"), 8);
        CHECK_EQ_U(jget(r, "total.multichip.memory_side.local_requests"), 8);
        CHECK_EQ_U(jget(r, "total.multichip.pages_placed_per_chip.0"), 1);
        CHECK_EQ_U(jget(r, "total.multichip.pages_placed_per_chip.1"), 1);
        json_decref(r);
    }
    unlink(t.path);
}

/* Link messages are published hop by hop for the timing backend. */
struct hops {
    int n;
    uint32_t from[8], to[8], bytes[8];
    bool down[8];
    uint32_t l2_to; /* slice of the last GCR_NET_L2 request */
};

static void on_transfer(void *self, const struct gcr_event *ev)
{
    struct hops *h = self;
    if (ev->net == GCR_NET_L2 && ev->downstream)
        h->l2_to = ev->to;
    if (ev->net != GCR_NET_CHIP_LINK || h->n >= 8)
        return;
    h->from[h->n] = ev->from;
    h->to[h->n] = ev->to;
    h->bytes[h->n] = ev->bytes;
    h->down[h->n] = ev->downstream;
    h->n++;
}

static void link_events(void)
{
    static const struct gcr_analysis_ops observer = {
        .name = "test", .subscribe = GCR_EV_TRANSFER, .on_event = on_transfer};
    struct gcr_err err = {0};
    struct gcr_config cfg;
    /* 4 chips of 1 SM and 2 slices; a ring 0-1-2-3-0. */
    CHECK(gcr_config_parse(&cfg, "{\"gpu\": {\"sms\": 4}, \"l2\": {\"slices\": 8},"
                                 " \"chips\": {\"count\": 4}}", "t", &err) == 0);
    struct hops h = {0};
    struct gcr_bus_sub sub;
    struct gcr_bus bus = {.subs = &sub};
    gcr_bus_add(&bus, &observer, &h, true);
    struct gcr_memsys mem;
    CHECK(gcr_memsys_init(&mem, &cfg, &bus, &err) == 0);
    const uint64_t L = 0x40000;
    gcr_memsys_read(&mem, 2, 2, L, 0xf, false, NULL); /* chip 2 touches first: home 2 */
    CHECK_EQ_U(h.n, 0);
    CHECK(h.l2_to >= 4 && h.l2_to < 6); /* chip 2's slices: 4 and 5 */
    gcr_memsys_read(&mem, 0, 0, L, 0xf, false, NULL);
    /* Chip 0 -> 2 is 2 hops either way: clockwise. The request goes 0->1->2,
     * the 128-B reply 2->3->0 (clockwise again). */
    CHECK_EQ_U(h.n, 4);
    CHECK(h.from[0] == 0 && h.to[0] == 1 && h.down[0] && h.bytes[0] == 0);
    CHECK(h.from[1] == 1 && h.to[1] == 2 && h.down[1]);
    CHECK(h.from[2] == 2 && h.to[2] == 3 && !h.down[2] && h.bytes[2] == 128);
    CHECK(h.from[3] == 3 && h.to[3] == 0 && h.bytes[3] == 128);
    CHECK(h.l2_to >= 4 && h.l2_to < 6); /* memory-side: the home chip's slice */
    h.n = 0;
    gcr_memsys_read(&mem, 3, 3, L, 0xf, false, NULL); /* 3 -> 2: one hop back */
    CHECK_EQ_U(h.n, 2);
    CHECK(h.from[0] == 3 && h.to[0] == 2 && h.from[1] == 2 && h.to[1] == 3);
    gcr_memsys_fini(&mem);
    gcr_config_free(&cfg);
}

/* A write-back has no requesting SM: it leaves from its memory port, and
 * ports are split over the chips like SMs, whatever their number (DC-L1 has
 * fewer nodes than SMs). */
static void writeback_ports(void)
{
    static const struct gcr_analysis_ops observer = {
        .name = "test", .subscribe = GCR_EV_TRANSFER, .on_event = on_transfer};
    struct gcr_err err = {0};
    struct gcr_config cfg;
    CHECK(gcr_config_parse(&cfg, "{\"gpu\": {\"sms\": 8}, \"l2\": {\"slices\": 8},"
                                 " \"chips\": {\"count\": 4}}", "t", &err) == 0);
    struct hops h = {0};
    struct gcr_bus_sub sub;
    struct gcr_bus bus = {.subs = &sub};
    gcr_bus_add(&bus, &observer, &h, true);
    struct gcr_memsys mem;
    CHECK(gcr_memsys_init(&mem, &cfg, &bus, &err) == 0);
    CHECK_EQ_U(mem.num_ports, 8); /* SMs until an organisation says otherwise */
    const uint64_t L = 0x80000;
    gcr_memsys_read(&mem, 0, 0, L, 0xf, false, NULL); /* SM 0 (chip 0) homes the page */
    h.n = 0;
    gcr_memsys_writeback(&mem, 7, L, 0x1); /* port 7 of 8: chip 3, one hop to chip 0 */
    CHECK_EQ_U(h.n, 1);
    CHECK(h.from[0] == 3 && h.to[0] == 0 && h.down[0] && h.bytes[0] == 32);
    mem.num_ports = 2; /* two DC-L1 nodes: node 1 sits on chip 2 */
    h.n = 0;
    gcr_memsys_writeback(&mem, 1, L, 0x1);
    CHECK_EQ_U(h.n, 2); /* 2 -> 0: two hops, clockwise 2 -> 3 -> 0 */
    CHECK(h.from[0] == 2 && h.to[0] == 3 && h.from[1] == 3 && h.to[1] == 0);
    h.n = 0;
    gcr_memsys_writeback(&mem, 0, L, 0x1); /* node 0: chip 0, local */
    CHECK_EQ_U(h.n, 0);
    gcr_memsys_fini(&mem);
    gcr_config_free(&cfg);
}

int main(void)
{
    link_events();
    writeback_ports();
    eab_worked_example();
    crd_bits();
    crd_sample_positions();
    first_touch_pages();
    routing();
    crd_capacity();
    cta_dispatch();
    CHECK_DONE();
}
