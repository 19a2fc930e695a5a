/* The event bus delivers only subscribed kinds, with the fields filled in;
 * the memory system publishes L2 accesses and evictions through it. */
#include "check.h"
#include "gcreplay/config.h"
#include "replay/bus.h"
#include "replay/memsys.h"

struct seen {
    int l2_access, l2_evict, other;
    uint64_t last_line;
    uint32_t last_unit;
    uint64_t last_step;
};

static void on_event(void *self, const struct gcr_event *ev)
{
    struct seen *s = self;
    if (ev->kind == GCR_EV_L2_ACCESS) {
        s->l2_access++;
        s->last_line = ev->line_addr;
        s->last_unit = ev->unit;
        s->last_step = ev->step;
    } else if (ev->kind == GCR_EV_L2_EVICT) {
        s->l2_evict++;
    } else {
        s->other++;
    }
}

struct transfers {
    struct gcr_event ev[8];
    int n;
};

static void on_transfer(void *self, const struct gcr_event *ev)
{
    struct transfers *t = self;
    if (ev->kind == GCR_EV_TRANSFER && t->n < 8)
        t->ev[t->n++] = *ev;
}

static const struct gcr_analysis_ops transfer_observer = {
    .name = "transfers", .subscribe = GCR_EV_TRANSFER, .on_event = on_transfer};

static const struct gcr_analysis_ops test_observer = {
    .name = "test", .subscribe = GCR_EV_L2_ACCESS | GCR_EV_L2_EVICT, .on_event = on_event};

int main(void)
{
    struct gcr_err err = {0};
    struct gcr_config cfg;
    /* Two slices of one 1-way set: every new line of a slice evicts the old one. */
    CHECK(gcr_config_parse(&cfg, "{\"l2\": {\"slices\": 2, \"sets\": 1, \"ways\": 1}}", "t",
                           &err) == 0);
    struct seen seen = {0};
    struct gcr_bus_sub sub;
    struct gcr_bus bus = {.subs = &sub, .step = 42};
    gcr_bus_add(&bus, &test_observer, &seen, true);
    struct gcr_memsys m;
    CHECK(gcr_memsys_init(&m, &cfg, &bus, &err) == 0);

    gcr_memsys_read(&m, 0, 0, 0x000, 0xf, false, NULL); /* slice 0 */
    gcr_memsys_read(&m, 0, 0, 0x100, 0xf, false, NULL); /* slice 1 */
    gcr_memsys_read(&m, 0, 0, 0x200, 0xf, false, NULL); /* slice 0 again: evicts 0x000 */
    CHECK_EQ_U(seen.l2_access, 3);
    CHECK_EQ_U(seen.l2_evict, 1);
    CHECK_EQ_U(seen.other, 0);
    CHECK_EQ_U(seen.last_line, 0x200);
    CHECK_EQ_U(seen.last_unit, 0);
    CHECK_EQ_U(seen.last_step, 42);
    CHECK_EQ_U(m.traffic.dram_read_bytes, 3 * 128);
    CHECK_EQ_U(m.traffic.l2_to_l1_bytes, 3 * 128);

    /* Nobody subscribed: nothing is delivered. */
    bus = (struct gcr_bus){.subs = &sub};
    gcr_bus_add(&bus, &(struct gcr_analysis_ops){.subscribe = 0, .on_event = on_event}, &seen,
                true);
    gcr_memsys_read(&m, 0, 0, 0x300, 0xf, false, NULL);
    CHECK_EQ_U(seen.l2_access, 3);

    /* Memcpy pre-fill makes the lines resident without counting accesses. */
    gcr_memsys_prefill(&m, 0x1000, 100); /* one line, sectors 0..3 (bytes 0..99) */
    uint32_t valid = 0;
    CHECK(gcr_cache_probe(m.slices[gcr_config_slice_of(&cfg, 0x1000)], 0x1000, &valid) == 1);
    CHECK_EQ_U(valid, 0xf);
    gcr_memsys_prefill(&m, 0x1180, 40); /* bytes 0..39 of line 0x1180: sectors 0, 1 */
    CHECK(gcr_cache_probe(m.slices[gcr_config_slice_of(&cfg, 0x1180)], 0x1180, &valid) == 1);
    CHECK_EQ_U(valid, 0x3);

    /* Transfers: a read miss from port 5 crosses the L2 network down (no data),
     * goes to DRAM and back, and returns its sectors to the port. */
    struct transfers tr = {0};
    bus = (struct gcr_bus){.subs = &sub};
    gcr_bus_add(&bus, &transfer_observer, &tr, true);
    gcr_memsys_read(&m, 3, 5, 0x2000, 0x3, false, NULL);
    CHECK_EQ_U(tr.n, 4);
    uint32_t slice = gcr_config_slice_of(&cfg, 0x2000);
    CHECK(tr.ev[0].net == GCR_NET_L2 && tr.ev[0].downstream && tr.ev[0].bytes == 0);
    CHECK_EQ_U(tr.ev[0].from, 5);
    CHECK_EQ_U(tr.ev[0].to, slice);
    CHECK_EQ_U(tr.ev[0].sm, 3);
    CHECK(tr.ev[1].net == GCR_NET_DRAM && tr.ev[1].downstream && tr.ev[1].bytes == 0);
    CHECK(tr.ev[2].net == GCR_NET_DRAM && !tr.ev[2].downstream && tr.ev[2].bytes == 64);
    CHECK(tr.ev[3].net == GCR_NET_L2 && !tr.ev[3].downstream && tr.ev[3].bytes == 64);
    CHECK_EQ_U(tr.ev[3].from, slice);
    CHECK_EQ_U(tr.ev[3].to, 5);
    /* A store of 12 bytes carries them down; a hit read goes no further than L2. */
    tr.n = 0;
    gcr_memsys_write(&m, 3, 5, 0x2000, 0x1, 12, NULL);
    CHECK(tr.n >= 1 && tr.ev[0].net == GCR_NET_L2 && tr.ev[0].downstream);
    CHECK_EQ_U(tr.ev[0].bytes, 12);
    tr.n = 0;
    gcr_memsys_read(&m, 3, 5, 0x2000, 0x2, false, NULL);
    CHECK_EQ_U(tr.n, 2);
    CHECK(tr.ev[1].net == GCR_NET_L2 && tr.ev[1].bytes == 32);

    gcr_memsys_fini(&m);
    gcr_config_free(&cfg);
    CHECK_DONE();
}
