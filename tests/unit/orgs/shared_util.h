/* Drives an L1 organisation directly through its ops (no trace, no engine):
 * a config from JSON text, the memory system below, and an observer that
 * records the events the organisation publishes. */
#ifndef GCR_TEST_SHARED_UTIL_H
#define GCR_TEST_SHARED_UTIL_H

#include "check.h"
#include "gcreplay/config.h"
#include "replay/l1org.h"

#define SEEN_MAX 64

struct seen {
    int n;
    struct gcr_event ev[SEEN_MAX]; /* in order; access/insn pointers not kept */
};

static inline void seen_event(void *self, const struct gcr_event *ev)
{
    struct seen *s = self;
    if (s->n < SEEN_MAX) {
        s->ev[s->n] = *ev;
        s->ev[s->n].access = NULL;
        s->n++;
    }
}

static const struct gcr_analysis_ops seen_ops = {
    .name = "test", .subscribe = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT | GCR_EV_TRANSFER,
    .on_event = seen_event};

struct rig {
    struct gcr_config cfg;
    struct gcr_bus_sub sub;
    struct gcr_bus bus;
    struct gcr_memsys mem;
    struct gcr_sim_info info;
    const struct gcr_l1org_ops *ops;
    void *org;
    struct seen seen;
    struct gcr_err err;
};

/* 0 on success; else -1 with rig->err (the organisation's create failed). */
static inline int rig_open(struct rig *r, const struct gcr_l1org_ops *ops,
                           const char *config_json)
{
    memset(r, 0, sizeof *r);
    if (gcr_config_parse(&r->cfg, config_json, "test.json", &r->err) != 0) {
        fprintf(stderr, "config: %s\n", r->err.msg);
        exit(2);
    }
    r->bus = (struct gcr_bus){.subs = &r->sub};
    gcr_bus_add(&r->bus, &seen_ops, &r->seen, true);
    if (gcr_memsys_init(&r->mem, &r->cfg, &r->bus, &r->err) != 0)
        exit(2);
    r->info = (struct gcr_sim_info){.config = &r->cfg, .num_sms = r->cfg.num_sms,
                                    .num_l1s = r->cfg.num_sms,
                                    .num_l2_slices = r->cfg.l2_slices,
                                    .line_bytes = r->cfg.line_bytes,
                                    .sector_bytes = r->cfg.sector_bytes};
    struct gcr_l1org_ctx ctx = {.config = &r->cfg, .info = &r->info, .mem = &r->mem,
                                .bus = &r->bus};
    r->ops = ops;
    if (ops->create(&r->org, &ctx, r->cfg.l1_org_options, &r->err) != 0) {
        r->org = NULL;
        gcr_memsys_fini(&r->mem);
        gcr_config_free(&r->cfg);
        return -1;
    }
    return 0;
}

static inline void rig_close(struct rig *r)
{
    if (r->org)
        r->ops->destroy(r->org);
    gcr_memsys_fini(&r->mem);
    gcr_config_free(&r->cfg);
}

/* One request of `bytes` bytes in the given sectors of a line. */
static inline enum gcr_outcome rig_access(struct rig *r, uint32_t sm, uint64_t line,
                                          uint32_t sectors, uint32_t bytes, bool is_write)
{
    struct gcr_req q = {.line_addr = line, .sector_mask = sectors, .bytes = bytes,
                        .is_write = is_write, .sm = sm};
    return r->ops->access(r->org, &q);
}

static inline enum gcr_outcome rig_read(struct rig *r, uint32_t sm, uint64_t line)
{
    return rig_access(r, sm, line, 0xf, 128, false);
}

/* The organisation's report section (caller frees). */
static inline json_t *rig_report(struct rig *r)
{
    json_t *s = json_object();
    struct gcr_err err = {0};
    if (r->ops->report(r->org, s, &err) != 0) {
        fprintf(stderr, "report: %s\n", err.msg);
        exit(2);
    }
    return s;
}

/* The value at a dotted path ("a.b.0.c") of a JSON document, or NULL. */
static inline const json_t *jat(const json_t *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const json_t *x = root;
    for (char *tok = strtok(buf, "."); tok && x; tok = strtok(NULL, "."))
        x = json_is_array(x) ? json_array_get(x, (size_t)atoi(tok)) : json_object_get(x, tok);
    return x;
}

static inline long long jint(const json_t *root, const char *path)
{
    const json_t *x = jat(root, path);
    if (!json_is_integer(x))
        fprintf(stderr, "no integer at %s\n", path);
    return json_is_integer(x) ? (long long)json_integer_value(x) : -999999;
}

static inline const char *jstr(const json_t *root, const char *path)
{
    const json_t *x = jat(root, path);
    return json_is_string(x) ? json_string_value(x) : "(none)";
}

static inline double jnum(const json_t *root, const char *path)
{
    const json_t *x = jat(root, path);
    return json_is_number(x) ? json_number_value(x) : -1.0;
}

#define CHECK_STR(a, b) CHECK(strcmp((a), (b)) == 0 || (fprintf(stderr, "  got \"%s\"\n", (a)), 0))
#define CHECK_NEAR(a, b)                                                                     \
    CHECK(fabs((double)(a) - (double)(b)) < 1e-9 ||                                          \
          (fprintf(stderr, "  got %.12g want %.12g\n", (double)(a), (double)(b)), 0))

#endif
