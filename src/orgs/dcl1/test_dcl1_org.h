/* A DC-L1 organisation driven request by request, with every event it (and
 * the memory system below it) publishes recorded, for tests with
 * hand-computed expectations. */
#ifndef GCR_TEST_DCL1_ORG_H
#define GCR_TEST_DCL1_ORG_H

#include <math.h>

#include "check.h"
#include "gcreplay/config.h"
#include "replay/l1org.h"

extern const struct gcr_l1org_ops gcr_l1org_dcl1;

enum { MAX_SEEN = 256 };

struct seen {
    struct gcr_event ev[MAX_SEEN];
    int n;
};

static void record_event(void *self, const struct gcr_event *ev)
{
    struct seen *s = self;
    if (s->n < MAX_SEEN)
        s->ev[s->n++] = *ev;
}

static const struct gcr_analysis_ops recorder = {
    .name = "test",
    .subscribe = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT | GCR_EV_TRANSFER,
    .on_event = record_event};

struct org {
    struct gcr_config cfg;
    struct gcr_memsys mem;
    struct gcr_sim_info info;
    struct gcr_bus_sub sub;
    struct gcr_bus bus;
    struct seen seen;
    void *self;
    struct gcr_err err;
};

/* Creates the organisation for a config given as JSON text; 0 or -1 (err). */
static int org_open(struct org *o, const char *config_json)
{
    memset(o, 0, sizeof *o);
    if (gcr_config_parse(&o->cfg, config_json, "test-config", &o->err) != 0)
        return -1;
    o->bus = (struct gcr_bus){.subs = &o->sub};
    gcr_bus_add(&o->bus, &recorder, &o->seen, true);
    if (gcr_memsys_init(&o->mem, &o->cfg, &o->bus, &o->err) != 0) {
        gcr_config_free(&o->cfg);
        return -1;
    }
    o->info = (struct gcr_sim_info){.config = &o->cfg, .num_sms = o->cfg.num_sms,
                                    .num_l1s = o->cfg.num_sms,
                                    .num_l2_slices = o->cfg.l2_slices,
                                    .line_bytes = o->cfg.line_bytes,
                                    .sector_bytes = o->cfg.sector_bytes};
    struct gcr_l1org_ctx ctx = {.config = &o->cfg, .info = &o->info, .mem = &o->mem,
                                .bus = &o->bus};
    if (gcr_l1org_dcl1.create(&o->self, &ctx, o->cfg.l1_org_options, &o->err) != 0) {
        gcr_memsys_fini(&o->mem);
        gcr_config_free(&o->cfg);
        return -1;
    }
    return 0;
}

static inline void org_must_open(struct org *o, const char *config_json)
{
    if (org_open(o, config_json) != 0) {
        fprintf(stderr, "dcl1 create failed: %s\n", o->err.msg);
        exit(2);
    }
}

static void org_close(struct org *o)
{
    gcr_l1org_dcl1.destroy(o->self);
    gcr_memsys_fini(&o->mem);
    gcr_config_free(&o->cfg);
}

/* One request; returns the node (unit of its L1_ACCESS event). */
static inline uint32_t org_access(struct org *o, uint32_t sm, uint64_t line, uint32_t sectors,
                           bool is_write, uint32_t bytes)
{
    struct gcr_req r = {.line_addr = line, .sector_mask = sectors, .bytes = bytes,
                        .is_write = is_write, .sm = sm};
    if (o->seen.n > MAX_SEEN - 32) /* long loops look only at their latest events */
        o->seen.n = 0;
    int before = o->seen.n;
    gcr_l1org_dcl1.access(o->self, &r);
    for (int i = before; i < o->seen.n; i++)
        if (o->seen.ev[i].kind == GCR_EV_L1_ACCESS) {
            CHECK_EQ_U(o->seen.ev[i].sm, sm);
            return o->seen.ev[i].unit;
        }
    CHECK(!"no L1_ACCESS event");
    return UINT32_MAX;
}

static inline uint32_t org_read(struct org *o, uint32_t sm, uint64_t line)
{
    return org_access(o, sm, line, 0x1, false, 0);
}

/* The org's report section (caller decrefs). */
static inline json_t *org_report(struct org *o)
{
    json_t *s = json_object();
    CHECK(gcr_l1org_dcl1.report(o->self, s, &o->err) == 0);
    return s;
}

static inline long long sect_int(const json_t *s, const char *a, const char *b)
{
    const json_t *x = json_object_get(s, a);
    if (b)
        x = json_object_get(x, b);
    if (!json_is_integer(x)) {
        fprintf(stderr, "no integer at %s.%s\n", a, b ? b : "");
        return -999999;
    }
    return (long long)json_integer_value(x);
}

#endif
