/* The private L1 organisation publishes a GCR_EV_L1_EVICT for every line that
 * leaves an L1: replacement, write-evict invalidation, and each resident line
 * at a kernel boundary. */
#include "check.h"
#include "gcreplay/config.h"
#include "replay/l1org.h"

extern const struct gcr_l1org_ops gcr_l1org_private;

struct seen {
    int evict, access;
    uint32_t masks;
};

static void on_event(void *self, const struct gcr_event *ev)
{
    struct seen *s = self;
    if (ev->kind == GCR_EV_L1_EVICT) {
        s->evict++;
        s->masks |= ev->sector_mask;
        CHECK(ev->access && ev->access->victim_line == ev->line_addr);
    } else if (ev->kind == GCR_EV_L1_ACCESS) {
        s->access++;
    }
}

static const struct gcr_analysis_ops observer = {
    .name = "test", .subscribe = GCR_EV_L1_EVICT | GCR_EV_L1_ACCESS, .on_event = on_event};

int main(void)
{
    struct gcr_err err = {0};
    struct gcr_config cfg;
    /* 2 SMs, one 2-way set each, write-evict. */
    CHECK(gcr_config_parse(&cfg, "{\"gpu\": {\"sms\": 2}, \"l1d\": {\"sets\": 1, \"ways\": 2},"
                                 " \"l2\": {\"slices\": 1}}", "t", &err) == 0);
    struct seen seen = {0};
    struct gcr_bus_sub sub;
    struct gcr_bus bus = {.subs = &sub};
    gcr_bus_add(&bus, &observer, &seen, true);
    struct gcr_memsys mem;
    CHECK(gcr_memsys_init(&mem, &cfg, &bus, &err) == 0);
    struct gcr_sim_info info = {.config = &cfg, .num_sms = 2, .num_l1s = 2, .num_l2_slices = 1,
                                .line_bytes = 128, .sector_bytes = 32};
    struct gcr_l1org_ctx ctx = {.config = &cfg, .info = &info, .mem = &mem, .bus = &bus};
    void *org;
    CHECK(gcr_l1org_private.create(&org, &ctx, NULL, &err) == 0);

    struct gcr_req r = {.sector_mask = 0x3, .bytes = 64};
    r.line_addr = 0x000;
    gcr_l1org_private.access(org, &r); /* SM 0: A */
    r.line_addr = 0x080;
    gcr_l1org_private.access(org, &r); /* SM 0: B */
    r.line_addr = 0x100;
    gcr_l1org_private.access(org, &r); /* SM 0: C evicts A */
    CHECK_EQ_U(seen.evict, 1);
    r.is_write = true;
    r.line_addr = 0x080;
    gcr_l1org_private.access(org, &r); /* SM 0: write-evict removes B */
    CHECK_EQ_U(seen.evict, 2);
    r.is_write = false;
    r.sm = 1;
    r.sector_mask = 0x4;
    gcr_l1org_private.access(org, &r); /* SM 1: B, sector 2 */
    CHECK_EQ_U(seen.access, 5);
    /* Kernel boundary: SM 0 holds C, SM 1 holds B: two more. */
    gcr_l1org_private.kernel_end(org);
    CHECK_EQ_U(seen.evict, 4);
    CHECK_EQ_U(seen.masks, 0x7);

    struct gcr_cache_stats st[2];
    gcr_l1org_private.collect_stats(org, st);
    CHECK_EQ_U(st[0].accesses[0] + st[0].accesses[1], 4);
    CHECK_EQ_U(st[1].accesses[0], 1);
    gcr_l1org_private.destroy(org);
    gcr_memsys_fini(&mem);
    gcr_config_free(&cfg);
    CHECK_DONE();
}
