#include "replay/bus.h"

#include <stdlib.h>
#include <string.h>

/* Events between the stages (see bus.h). At ~100 ns of replay work per
 * event, BUS_LAG events give a prefetch about 1.5 us to arrive: several DRAM
 * latencies, for bursts (one instruction emits up to 32 accesses back to
 * back). BUS_RING holds every stage and a batch, a power of two. */
enum { BUS_LAG = 16, BUS_BATCH = 16, BUS_RING = 64 };
_Static_assert(2 * BUS_LAG + BUS_BATCH < BUS_RING, "the ring holds every stage");

/* Events about one cache line: they get the line's id. */
#define LINE_KINDS (GCR_EV_L1_ACCESS | GCR_EV_L2_ACCESS | GCR_EV_L1_EVICT | GCR_EV_L2_EVICT)

void gcr_bus_add(struct gcr_bus *bus, const struct gcr_analysis_ops *ops, void *self, bool sync)
{
    bus->subs[bus->nsubs++] = (struct gcr_bus_sub){ops, self, sync};
    bus->mask |= ops->subscribe;
    if (sync)
        bus->sync_mask |= ops->subscribe;
    else
        bus->lag_mask |= ops->subscribe;
    if ((ops->subscribe & GCR_EV_INSN) && !ops->insn_stride_hint)
        bus->insn_all_lanes = true;
}

int gcr_bus_start(struct gcr_bus *bus, struct gcr_idmap *lines)
{
    /* Ids are for per-line state: without a column, no analysis keeps any in
     * the shared map, and events need no id. */
    bus->lines = lines && lines->ncolumns ? lines : NULL;
    if (!bus->lag_mask)
        return 0;
    bus->ring = calloc(BUS_RING, sizeof *bus->ring);
    bus->insns = calloc(BUS_RING, sizeof *bus->insns);
    bus->lagged = calloc(bus->nsubs, sizeof *bus->lagged);
    if (!bus->ring || !bus->insns || !bus->lagged)
        return -1;
    for (size_t i = 0; i < bus->nsubs; i++)
        if (!bus->subs[i].sync)
            bus->lagged[bus->nlagged++] = &bus->subs[i];
    for (int stage = 0; stage < 2; stage++)
        for (unsigned b = 0; b < 8; b++) {
            struct gcr_bus_sub **list = bus->hooked[stage][b] = calloc(bus->nsubs + 1, sizeof *list);
            if (!list)
                return -1;
            for (size_t i = 0; i < bus->nlagged; i++) {
                const struct gcr_analysis_ops *ops = bus->lagged[i]->ops;
                unsigned kinds = stage ? ops->prefetch_stage1 : ops->prefetch_stage0;
                if (ops->prefetch && (kinds & ops->subscribe & (1u << b)))
                    list[bus->nhooked[stage][b]++] = bus->lagged[i];
            }
        }
    for (unsigned b = 0; bus->lines && b < 8; b++) {
        if (!((1u << b) & LINE_KINDS))
            continue;
        bus->fetch[b] = calloc(bus->lines->ncolumns + 1, sizeof *bus->fetch[b]);
        if (!bus->fetch[b])
            return -1;
        for (size_t c = 0; c < bus->lines->ncolumns; c++)
            if (bus->lines->columns[c]->prefetch_kinds & (1u << b))
                bus->fetch[b][bus->nfetch[b]++] = bus->lines->columns[c];
    }
    return 0;
}

void gcr_bus_fini(struct gcr_bus *bus)
{
    free(bus->ring);
    free(bus->insns);
    free(bus->lagged);
    for (unsigned b = 0; b < 8; b++) {
        free(bus->fetch[b]);
        free(bus->hooked[0][b]);
        free(bus->hooked[1][b]);
    }
    memset(bus->fetch, 0, sizeof bus->fetch);
    memset(bus->nfetch, 0, sizeof bus->nfetch);
    memset(bus->hooked, 0, sizeof bus->hooked);
    memset(bus->nhooked, 0, sizeof bus->nhooked);
    bus->ring = NULL;
    bus->insns = NULL;
    bus->lagged = NULL;
    bus->nlagged = 0;
}

static void deliver_sync(struct gcr_bus *bus, const struct gcr_event *ev)
{
    for (size_t i = 0; i < bus->nsubs; i++)
        if (bus->subs[i].sync && (bus->subs[i].ops->subscribe & (unsigned)ev->kind))
            bus->subs[i].ops->on_event(bus->subs[i].self, ev);
}

/* ---- copies into the queue ---- */

/* Copies of an event and of an access result, field by field. The replay
 * has just written the source one field at a time; a whole-struct copy
 * would read it with wider loads, each spanning several of those pending
 * stores, and such a load cannot take its data from them: it waits until
 * they reach the cache (a stall at every event). Loads of the size of the
 * stores get their data at once; reading through a volatile pointer keeps
 * the compiler from merging them into wider ones. */
static void copy_event(struct gcr_event *to, const volatile struct gcr_event *from)
{
    to->kind = from->kind;
    to->step = from->step;
    to->kernel = from->kernel;
    to->sm = from->sm;
    to->cta = from->cta;
    to->warp = from->warp;
    to->unit = from->unit;
    to->line_addr = from->line_addr;
    to->sector_mask = from->sector_mask;
    to->is_write = from->is_write;
    to->kernel_warp_insns = from->kernel_warp_insns;
    to->net = from->net;
    to->from = from->from;
    to->to = from->to;
    to->bytes = from->bytes;
    to->downstream = from->downstream;
}

static inline void copy_access(struct gcr_access *to, const volatile struct gcr_access *from)
{
    to->outcome = from->outcome;
    to->fetch_mask = from->fetch_mask;
    to->forward_mask = from->forward_mask;
    to->invalidated = from->invalidated;
    to->allocated = from->allocated;
    to->evicted = from->evicted;
    to->victim_line = from->victim_line;
    to->victim_valid = from->victim_valid;
    to->victim_dirty = from->victim_dirty;
    to->victim_used = from->victim_used;
}

/* What a queued subscriber may read of an instruction: every field, and the
 * lane addresses the replay filled (only the first active lane of a strided
 * one when no subscriber reads all lanes: insn_stride_hint). */
static void copy_insn(struct gcr_warp_insn *to, const volatile struct gcr_warp_insn *from,
                      bool all_lanes)
{
    to->cta = from->cta;
    to->warp = from->warp;
    to->pc = from->pc;
    to->op = from->op;
    to->space = from->space;
    to->cache_op = from->cache_op;
    to->width = from->width;
    to->active_mask = from->active_mask;
    to->strided = from->strided;
    to->stride = from->stride;
    if (!to->active_mask)
        return;
    if (to->strided && !all_lanes) {
        unsigned first = (unsigned)__builtin_ctz(to->active_mask);
        to->addr[first] = from->addr[first];
        return;
    }
    for (uint32_t m = to->active_mask; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        to->addr[lane] = from->addr[lane];
    }
}

/* ---- the stages ---- */

static inline void prefetch_stage(struct gcr_bus *bus, const struct gcr_event *ev, int stage)
{
    unsigned b = (unsigned)__builtin_ctz((unsigned)ev->kind) & 7;
    for (size_t i = 0; i < bus->nhooked[stage][b]; i++) {
        const struct gcr_bus_sub *sub = bus->hooked[stage][b][i];
        sub->ops->prefetch(sub->self, ev, stage);
    }
}

/* The oldest just-emitted event's id word, if its line's group is known:
 * leaves never move (the line map groups lines, so its ids are in leaves),
 * so the pointer stays valid until the event is resolved. */
static void find(struct gcr_bus *bus)
{
    struct gcr_bus_item *it = &bus->ring[bus->found++ % BUS_RING];
    it->id_word = NULL;
    if (!((unsigned)it->ev.kind & LINE_KINDS) || !bus->lines || !bus->lines->group_bits)
        return;
    uint32_t offset;
    uint32_t *ids = gcr_idmap_ids(bus->lines, it->ev.line_addr, false, &offset);
    if (ids) {
        it->id_word = ids + offset;
        __builtin_prefetch(it->id_word);
    }
}

/* Stage 0 of the oldest found event: its line id (a new line gets one now),
 * the columns its kind reads, then the hooks' first prefetches. */
static void resolve(struct gcr_bus *bus)
{
    struct gcr_bus_item *it = &bus->ring[bus->stage0++ % BUS_RING];
    struct gcr_event *ev = &it->ev;
    unsigned kind = (unsigned)ev->kind;
    if ((kind & LINE_KINDS) && bus->lines) {
        uint32_t id = it->id_word && *it->id_word ? *it->id_word - 1
                                                  : gcr_idmap_get(bus->lines, ev->line_addr);
        ev->line_id = id;
        if (id != GCR_IDMAP_NONE) {
            unsigned b = (unsigned)__builtin_ctz(kind);
            size_t chunk = id >> GCR_COLUMN_CHUNK_SHIFT, at = id & (GCR_COLUMN_CHUNK_IDS - 1);
            for (size_t c = 0; c < bus->nfetch[b]; c++)
                __builtin_prefetch(bus->fetch[b][c]->chunks[chunk] + at * bus->fetch[b][c]->elem,
                                   1);
        }
    }
    prefetch_stage(bus, ev, 0);
}

/* Delivers the n <= BUS_BATCH events from head to each queued subscriber in
 * turn: the positions of the batch's events of each kind are bits of one
 * word, so a subscriber visits only its own events, in order. */
static void deliver(struct gcr_bus *bus, uint64_t n)
{
    _Static_assert(BUS_BATCH <= 32, "positions are bits of a 32-bit word");
    const struct gcr_event *evs[BUS_BATCH];
    uint32_t at_kind[8] = {0};
    for (uint64_t k = 0; k < n; k++) {
        evs[k] = &bus->ring[(bus->head + k) % BUS_RING].ev;
        at_kind[__builtin_ctz((unsigned)evs[k]->kind) & 7] |= UINT32_C(1) << k;
    }
    for (size_t i = 0; i < bus->nlagged; i++) {
        const struct gcr_bus_sub *sub = bus->lagged[i];
        uint32_t mine = 0;
        for (unsigned want = sub->ops->subscribe & 0xffu; want; want &= want - 1)
            mine |= at_kind[__builtin_ctz(want)];
        void (*on_event)(void *, const struct gcr_event *) = sub->ops->on_event;
        for (; mine; mine &= mine - 1)
            on_event(sub->self, evs[__builtin_ctz(mine)]);
    }
    bus->head += n;
}

/* The item at the tail is complete: queue it and move every stage on. */
static inline void advance(struct gcr_bus *bus, const struct gcr_bus_item *it)
{
    if (((unsigned)it->ev.kind & LINE_KINDS) && bus->lines)
        gcr_idmap_prefetch(bus->lines, it->ev.line_addr);
    bus->tail++;
    if (bus->tail - bus->found > BUS_LAG / 2)
        find(bus);
    if (bus->found - bus->stage0 > BUS_LAG / 2)
        resolve(bus);
    if (bus->stage0 - bus->stage1 > BUS_LAG)
        prefetch_stage(bus, &bus->ring[bus->stage1++ % BUS_RING].ev, 1);
    if (bus->stage1 - bus->head >= BUS_BATCH)
        deliver(bus, BUS_BATCH);
}

/* ---- emission ---- */

void gcr_bus_emit(struct gcr_bus *bus, struct gcr_event *ev)
{
    ev->step = bus->step;
    ev->kernel = bus->kernel;
    if (bus->sync_mask & (unsigned)ev->kind)
        deliver_sync(bus, ev);
    if (!(bus->lag_mask & (unsigned)ev->kind))
        return;
    uint64_t at = bus->tail % BUS_RING;
    struct gcr_bus_item *it = &bus->ring[at];
    copy_event(&it->ev, ev);
    it->ev.line_id = GCR_IDMAP_NONE; /* set at stage 0 for events about a line */
    it->ev.access = NULL;
    if (ev->access) {
        copy_access(&it->access, ev->access);
        it->ev.access = &it->access;
    }
    /* The instruction an access came from is the replay's, overwritten by the
     * next one: queued subscribers see it with GCR_EV_INSN only. */
    it->ev.insn = NULL;
    if (ev->kind == GCR_EV_INSN) {
        copy_insn(&bus->insns[at], ev->insn, bus->insn_all_lanes);
        it->ev.insn = &bus->insns[at];
    }
    advance(bus, it);
}

void gcr_bus_emit_cache(struct gcr_bus *bus, enum gcr_event_kind kind, uint32_t unit,
                        uint32_t sm, uint32_t cta, uint32_t warp,
                        const struct gcr_warp_insn *insn, uint64_t line, uint32_t sectors,
                        bool is_write, const struct gcr_access *a)
{
    if (bus->sync_mask & (unsigned)kind) {
        struct gcr_event ev;
        gcr_event_fill(&ev, kind, unit, sm, cta, warp, insn, line, sectors, is_write, a);
        ev.step = bus->step;
        ev.kernel = bus->kernel;
        deliver_sync(bus, &ev);
    }
    if (!(bus->lag_mask & (unsigned)kind))
        return;
    struct gcr_bus_item *it = &bus->ring[bus->tail % BUS_RING];
    /* Without the instruction, as in gcr_bus_emit. */
    gcr_event_fill(&it->ev, kind, unit, sm, cta, warp, NULL, line, sectors, is_write,
                   a ? &it->access : NULL);
    it->ev.step = bus->step;
    it->ev.kernel = bus->kernel;
    if (a)
        copy_access(&it->access, a);
    advance(bus, it);
}

void gcr_bus_emit_insn(struct gcr_bus *bus, uint32_t sm, const struct gcr_warp_insn *insn)
{
    if (bus->sync_mask & GCR_EV_INSN) {
        struct gcr_event ev;
        gcr_event_fill(&ev, GCR_EV_INSN, 0, sm, insn->cta, insn->warp, insn, 0, 0, false, NULL);
        ev.step = bus->step;
        ev.kernel = bus->kernel;
        deliver_sync(bus, &ev);
    }
    if (!(bus->lag_mask & GCR_EV_INSN))
        return;
    uint64_t at = bus->tail % BUS_RING;
    struct gcr_bus_item *it = &bus->ring[at];
    copy_insn(&bus->insns[at], insn, bus->insn_all_lanes);
    gcr_event_fill(&it->ev, GCR_EV_INSN, 0, sm, bus->insns[at].cta, bus->insns[at].warp,
                   &bus->insns[at], 0, 0, false, NULL);
    it->ev.step = bus->step;
    it->ev.kernel = bus->kernel;
    advance(bus, it);
}

void gcr_bus_flush(struct gcr_bus *bus)
{
    while (bus->found < bus->tail)
        find(bus);
    while (bus->stage0 < bus->found)
        resolve(bus);
    while (bus->stage1 < bus->stage0)
        prefetch_stage(bus, &bus->ring[bus->stage1++ % BUS_RING].ev, 1);
    while (bus->head < bus->stage1)
        deliver(bus, bus->stage1 - bus->head < BUS_BATCH ? bus->stage1 - bus->head : BUS_BATCH);
}
