/* COLAB driven request by request: redirects served and stale (false
 * positives), table misses while a peer held the line (false negatives), an
 * entry naming the requester itself, the events and transfers of a redirect,
 * and the L1 statistics seen from each requesting SM.
 *
 * L1s: 1 set x 2 ways, 4 sectors of 32 B, LRU, write-evict. 4 SMs in
 * clusters of 2 ({0,1}, {2,3}); one L2 slice. */
#include <math.h>

#include "check.h"
#include "gcreplay/config.h"
#include "replay/l1org.h"

extern const struct gcr_l1org_ops gcr_l1org_colab;

#define A 0x1000u
#define B 0x2000u
#define C 0x3000u
#define D 0x4000u
#define E 0x5000u

struct seen {
    struct gcr_event ev[64];
    struct gcr_access access[64]; /* ev[i].access points here: the event's lives only as long */
    int n;
};

static void on_event(void *self, const struct gcr_event *ev)
{
    struct seen *s = self;
    /* L2-network transfers of fills are the memory system's, not COLAB's. */
    if (ev->kind == GCR_EV_TRANSFER && ev->net != GCR_NET_CORE_L1)
        return;
    if (s->n < 64) {
        s->ev[s->n] = *ev;
        if (ev->access) {
            s->access[s->n] = *ev->access;
            s->ev[s->n].access = &s->access[s->n];
        }
        s->n++;
    }
}

static const struct gcr_analysis_ops observer = {
    .name = "test", .subscribe = GCR_EV_L1_ACCESS | GCR_EV_TRANSFER, .on_event = on_event};

struct rig {
    struct gcr_config cfg;
    struct seen seen;
    struct gcr_bus_sub sub;
    struct gcr_bus bus;
    struct gcr_memsys mem;
    struct gcr_sim_info info;
    void *org;
};

static void rig_open(struct rig *r, const char *colab_options)
{
    struct gcr_err err = {0};
    char json[512];
    snprintf(json, sizeof json,
             "{\"gpu\": {\"sms\": 4}, \"l1d\": {\"organization\": \"colab\", \"sets\": 1, "
             "\"ways\": 2, \"colab\": %s}, \"l2\": {\"slices\": 1}}", colab_options);
    CHECK(gcr_config_parse(&r->cfg, json, "t", &err) == 0);
    memset(&r->seen, 0, sizeof r->seen);
    r->bus = (struct gcr_bus){.subs = &r->sub};
    gcr_bus_add(&r->bus, &observer, &r->seen, true);
    CHECK(gcr_memsys_init(&r->mem, &r->cfg, &r->bus, &err) == 0);
    r->info = (struct gcr_sim_info){.config = &r->cfg, .num_sms = 4, .num_l1s = 4,
                                    .num_l2_slices = 1, .line_bytes = 128, .sector_bytes = 32};
    struct gcr_l1org_ctx ctx = {.config = &r->cfg, .info = &r->info, .mem = &r->mem,
                                .bus = &r->bus};
    CHECK(gcr_l1org_colab.create(&r->org, &ctx, r->cfg.l1_org_options, &err) == 0);
}

static void rig_close(struct rig *r)
{
    gcr_l1org_colab.destroy(r->org);
    gcr_memsys_fini(&r->mem);
    gcr_config_free(&r->cfg);
}

static enum gcr_outcome rd(struct rig *r, uint32_t sm, uint64_t line, uint32_t sectors)
{
    struct gcr_req q = {.line_addr = line, .sector_mask = sectors, .bytes = 32, .sm = sm};
    return gcr_l1org_colab.access(r->org, &q);
}

static uint64_t l2_reads(const struct rig *r)
{
    return gcr_cache_stats(r->mem.slices[0])->accesses[0];
}

static json_t *report(struct rig *r)
{
    struct gcr_err err = {0};
    json_t *s = json_object();
    CHECK(gcr_l1org_colab.report(r->org, s, &err) == 0);
    return s;
}

static uint64_t num(const json_t *o, const char *key)
{
    return (uint64_t)json_integer_value(json_object_get(o, key));
}

/* The default table mirrors the cluster's L1s: 1 set x (2 ways x 2 SMs). */
static void served_and_stale(void)
{
    struct rig r;
    rig_open(&r, "{\"cluster_size\": 2}");

    /* SM 0 misses everywhere and fills A from L2: A -> SM 0. */
    CHECK_EQ_U(rd(&r, 0, A, 0xf), GCR_MISS_LINE);
    CHECK_EQ_U(l2_reads(&r), 1);

    /* SM 1 misses; the table names SM 0, which holds sector 0: served. */
    r.seen.n = 0;
    CHECK_EQ_U(rd(&r, 1, A, 0x1), GCR_MISS_LINE);
    CHECK_EQ_U(l2_reads(&r), 1);
    /* Request 1 -> 0, the owner's L1 access (a hit, requester SM 1), reply 0 -> 1. */
    CHECK_EQ_U(r.seen.n, 3);
    CHECK(r.seen.ev[0].kind == GCR_EV_TRANSFER && r.seen.ev[0].net == GCR_NET_CORE_L1);
    CHECK_EQ_U(r.seen.ev[0].from, 1);
    CHECK_EQ_U(r.seen.ev[0].to, 0);
    CHECK_EQ_U(r.seen.ev[0].bytes, 0);
    CHECK(r.seen.ev[0].downstream);
    CHECK(r.seen.ev[1].kind == GCR_EV_L1_ACCESS);
    CHECK_EQ_U(r.seen.ev[1].unit, 0);
    CHECK_EQ_U(r.seen.ev[1].sm, 1);
    CHECK_EQ_U(r.seen.ev[1].access->outcome, GCR_HIT);
    CHECK(r.seen.ev[2].kind == GCR_EV_TRANSFER && !r.seen.ev[2].downstream);
    CHECK_EQ_U(r.seen.ev[2].from, 0);
    CHECK_EQ_U(r.seen.ev[2].to, 1);
    CHECK_EQ_U(r.seen.ev[2].bytes, 32);

    /* The requester did not cache A: asking again is served again. */
    CHECK_EQ_U(rd(&r, 1, A, 0x1), GCR_MISS_LINE);
    CHECK_EQ_U(l2_reads(&r), 1);

    /* SM 2 is in the other cluster: its table has no entry, and SM 0's copy
     * does not count (not a false negative). */
    CHECK_EQ_U(rd(&r, 2, A, 0x1), GCR_MISS_LINE);
    CHECK_EQ_U(l2_reads(&r), 2);

    /* SM 0 reads B and C: its 2-way L1 evicts A (LRU: A was last used by the
     * second served redirect, before B). The table still says A -> SM 0. */
    rd(&r, 0, B, 0xf);
    rd(&r, 0, C, 0xf);
    CHECK_EQ_U(l2_reads(&r), 4);

    /* SM 1 is redirected to SM 0, which no longer holds A: stale. SM 1 then
     * fetches A from L2 and caches it: A -> SM 1. */
    r.seen.n = 0;
    CHECK_EQ_U(rd(&r, 1, A, 0x1), GCR_MISS_LINE);
    CHECK_EQ_U(l2_reads(&r), 5);
    CHECK_EQ_U(r.seen.n, 2); /* the request 1 -> 0, then SM 1's own L1 access */
    CHECK_EQ_U(r.seen.ev[1].unit, 1);

    /* SM 0 asks for sector 1 of A: the table names SM 1, which holds only
     * sector 0: stale as well (a sector the owner lacks). */
    CHECK_EQ_U(rd(&r, 0, A, 0x2), GCR_MISS_LINE);
    CHECK_EQ_U(l2_reads(&r), 6);

    /* Now A -> SM 0 again. SM 1 reads D and E, evicting its A; the table
     * (4 ways: B, C, A, D by last update) evicts B for E. */
    rd(&r, 1, D, 0xf);
    rd(&r, 1, E, 0xf);
    /* SM 0 reads B (its L1 evicts C): B is not in the table any more, and no
     * other L1 holds it: a table miss, not a false negative. */
    rd(&r, 0, B, 0xf);
    /* SM 0 reads D: the table names SM 1, which filled D and holds it: served. */
    CHECK_EQ_U(rd(&r, 0, D, 0xf), GCR_MISS_LINE);
    CHECK_EQ_U(l2_reads(&r), 9);

    json_t *s = report(&r);
    /* Read misses: SM0 A, SM1 A x2, SM2 A, SM0 B, C, SM1 A, SM0 A, SM1 D, E,
     * SM0 B, D = 12. */
    CHECK_EQ_U(num(s, "read_misses"), 12);
    CHECK_EQ_U(num(s, "redirected"), 5);
    CHECK_EQ_U(num(s, "served"), 3);
    CHECK_EQ_U(num(s, "stale"), 2);
    CHECK_EQ_U(num(s, "self_pointers"), 0);
    CHECK_EQ_U(num(s, "table_hits"), 5);
    CHECK_EQ_U(num(s, "table_misses"), 7);
    CHECK_EQ_U(num(s, "false_negatives"), 0);
    CHECK_EQ_U(num(s, "stale_held_elsewhere"), 0);
    CHECK_EQ_U(num(s, "servable_in_cluster"), 3);
    /* Served: sector 0 of A twice, the 4 sectors of D (a line miss at SM 0). */
    CHECK_EQ_U(num(s, "l2_read_requests_avoided"), 3);
    CHECK_EQ_U(num(s, "noc_read_bytes_saved"), 32 + 32 + 128);
    CHECK_EQ_U(num(s, "redirect_reply_bytes"), 32 + 32 + 128);
    json_t *t = json_object_get(s, "table");
    CHECK_EQ_U(num(t, "sets"), 1);
    CHECK_EQ_U(num(t, "ways"), 4);
    CHECK_EQ_U(num(t, "entries"), 8); /* two clusters */
    /* 9 fills (one per L2 read) + 3 served redirects refreshing their entry. */
    CHECK_EQ_U(num(t, "updates"), 12);
    CHECK_EQ_U(num(t, "evictions"), 2); /* B for E, C for B */
    json_decref(s);

    /* Seen from the requesters: each of the 12 reads missed the requester's
     * own L1 (SM 0: 6, SM 1: 5, SM 2: 1); the lookups SM 0 and SM 1 served
     * for others are not theirs; served ones fetched nothing. */
    struct gcr_cache_stats st[4];
    gcr_l1org_colab.collect_stats(r.org, st);
    CHECK_EQ_U(st[0].accesses[0], 6);
    CHECK_EQ_U(st[0].outcomes[0][GCR_MISS_LINE], 6);
    CHECK_EQ_U(st[0].outcomes[0][GCR_HIT], 0);
    CHECK_EQ_U(st[0].sectors_requested[0], 21);
    CHECK_EQ_U(st[0].sectors_fetched, 17);
    CHECK_EQ_U(st[1].accesses[0], 5);
    CHECK_EQ_U(st[1].outcomes[0][GCR_MISS_LINE], 5);
    CHECK_EQ_U(st[1].outcomes[0][GCR_HIT], 0);
    CHECK_EQ_U(st[1].sectors_fetched, 9);
    CHECK_EQ_U(st[2].accesses[0], 1);
    CHECK_EQ_U(st[3].accesses[0], 0);
    rig_close(&r);
}

/* The entry names the requester, which filled the line and lost it. */
static void self_pointer(void)
{
    struct rig r;
    rig_open(&r, "{\"cluster_size\": 2}");
    rd(&r, 0, A, 0xf);
    rd(&r, 0, B, 0xf);
    rd(&r, 0, C, 0xf); /* SM 0's L1 evicts A; the table keeps A -> 0 */
    r.seen.n = 0;
    CHECK_EQ_U(rd(&r, 0, A, 0xf), GCR_MISS_LINE);
    CHECK_EQ_U(r.seen.n, 1); /* no redirect: only SM 0's own L1 access */
    json_t *s = report(&r);
    CHECK_EQ_U(num(s, "self_pointers"), 1);
    CHECK_EQ_U(num(s, "table_hits"), 1);
    CHECK_EQ_U(num(s, "redirected"), 0);
    json_decref(s);
    rig_close(&r);
}

/* A stale entry while another L1 of the cluster holds the line: SM 1 holds
 * sector 0 of A; SM 0's redirect to it for sector 1 is stale, so SM 0 fills
 * A and owns it; SM 0 then loses A, and SM 2's redirect to SM 0 is stale
 * although SM 1 could have served it. */
static void stale_but_held_elsewhere(void)
{
    struct rig r;
    rig_open(&r, "{\"cluster_size\": 4}");
    rd(&r, 1, A, 0x1);
    rd(&r, 0, A, 0x2);
    rd(&r, 0, B, 0xf);
    rd(&r, 0, C, 0xf);
    rd(&r, 2, A, 0x1);
    json_t *s = report(&r);
    CHECK_EQ_U(num(s, "read_misses"), 5);
    CHECK_EQ_U(num(s, "redirected"), 2);
    CHECK_EQ_U(num(s, "stale"), 2);
    CHECK_EQ_U(num(s, "stale_held_elsewhere"), 1);
    CHECK_EQ_U(num(s, "false_negatives"), 0);
    CHECK_EQ_U(num(s, "servable_in_cluster"), 1);
    CHECK_EQ_U(num(s, "table_misses"), 3);
    json_decref(s);
    rig_close(&r);
}

/* A one-entry table forgets lines the L1s still hold: false negatives. */
static void false_negative(void)
{
    struct rig r;
    rig_open(&r, "{\"cluster_size\": 2, \"table_ways\": 1}");
    rd(&r, 0, A, 0xf); /* table: A -> 0 */
    rd(&r, 0, B, 0xf); /* table: B -> 0 (A's entry evicted); SM 0 holds A and B */
    CHECK_EQ_U(rd(&r, 1, A, 0xf), GCR_MISS_LINE); /* table miss, SM 0 held A */
    CHECK_EQ_U(rd(&r, 1, C, 0xf), GCR_MISS_LINE); /* table miss, nobody held C */
    json_t *s = report(&r);
    CHECK_EQ_U(num(s, "read_misses"), 4);
    CHECK_EQ_U(num(s, "table_misses"), 4);
    CHECK_EQ_U(num(s, "false_negatives"), 1);
    CHECK_EQ_U(num(s, "served"), 0);
    CHECK_EQ_U(num(s, "servable_in_cluster"), 1);
    CHECK_EQ_U(num(json_object_get(s, "table"), "evictions"), 3);
    json_decref(s);
    rig_close(&r);
}

/* The table's replacement policy decides which entry a fill evicts: a
 * served redirect refreshes its entry under LRU, not under FIFO. */
static void replacement(void)
{
    const char *opts[2] = {"{\"cluster_size\": 2, \"table_ways\": 2}",
                           "{\"cluster_size\": 2, \"table_ways\": 2, "
                           "\"table_replacement\": \"fifo\"}"};
    for (int fifo = 0; fifo < 2; fifo++) {
        struct rig r;
        rig_open(&r, opts[fifo]);
        rd(&r, 0, A, 0xf); /* table: A */
        rd(&r, 0, B, 0xf); /* table: A, B */
        rd(&r, 1, A, 0xf); /* served by SM 0; LRU refreshes A, FIFO does not */
        rd(&r, 0, C, 0xf); /* the table evicts B (LRU) or A (FIFO); SM 0's L1 evicts B */
        rd(&r, 1, A, 0xf); /* LRU: served again; FIFO: table miss while SM 0 holds A */
        json_t *s = report(&r);
        CHECK_EQ_U(num(s, "served"), fifo ? 1 : 2);
        CHECK_EQ_U(num(s, "false_negatives"), fifo ? 1 : 0);
        CHECK_EQ_U(num(s, "servable_in_cluster"), 2);
        CHECK_STR_CONTAINS(json_string_value(json_object_get(json_object_get(s, "table"),
                                                             "replacement")),
                           fifo ? "fifo" : "lru");
        json_decref(s);
        rig_close(&r);
    }
}

/* Writes never consult or update the table under write-evict; the kernel
 * boundary empties L1s and table together. */
static void writes_and_kernel_end(void)
{
    struct rig r;
    rig_open(&r, "{\"cluster_size\": 4}");
    rd(&r, 0, A, 0xf);
    struct gcr_req w = {.line_addr = B, .sector_mask = 0x1, .bytes = 4, .sm = 1,
                        .is_write = true};
    gcr_l1org_colab.access(r.org, &w);
    gcr_l1org_colab.kernel_end(r.org);
    rd(&r, 1, A, 0xf); /* the table was cleared: a table miss, not a stale redirect */
    json_t *s = report(&r);
    CHECK_EQ_U(num(s, "read_misses"), 2);
    CHECK_EQ_U(num(s, "table_misses"), 2);
    CHECK_EQ_U(num(s, "redirected"), 0);
    CHECK_EQ_U(num(json_object_get(s, "table"), "valid_entries_max"), 1);
    CHECK(fabs(json_real_value(json_object_get(json_object_get(s, "table"),
                                               "occupancy_at_kernel_end")) - 1.0 / 8) < 1e-12);
    json_decref(s);
    rig_close(&r);

    /* Kept across kernels: the entry outlives the flushed L1: stale. */
    rig_open(&r, "{\"cluster_size\": 4, \"table_invalidate_at_kernel_end\": false}");
    rd(&r, 0, A, 0xf);
    gcr_l1org_colab.kernel_end(r.org);
    rd(&r, 1, A, 0xf);
    s = report(&r);
    CHECK_EQ_U(num(s, "stale"), 1);
    json_decref(s);
    rig_close(&r);
}

int main(void)
{
    served_and_stale();
    self_pointer();
    stale_but_held_elsewhere();
    false_negative();
    replacement();
    writes_and_kernel_end();
    CHECK_DONE();
}
