#include "replay/bus.h"

#include <stdlib.h>
#include <string.h>

/* Events per batch (see bus.h): at ~100 ns of replay work per event, a
 * stage's loads get 1.5 us to arrive, several DRAM latencies. BUS_RING holds
 * the five stages' batches and the one filling, a power of two. */
enum { BUS_BATCH = 16, BUS_STAGES = 5, BUS_RING = 128 };
_Static_assert(BUS_BATCH * (BUS_STAGES + 1) <= BUS_RING, "the ring holds every stage");
_Static_assert(BUS_BATCH <= 32, "a batch's positions are bits of a 32-bit word");

/* Events about one cache line: they get the line's id (an instruction's is
 * the line of its first active lane, in the global or local space). */
#define LINE_KINDS (GCR_EV_L1_ACCESS | GCR_EV_L2_ACCESS | GCR_EV_L1_EVICT | GCR_EV_L2_EVICT | \
                    GCR_EV_INSN)

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

static inline void prefetch_stage(struct gcr_bus *bus, const struct gcr_bus_item *it, int stage)
{
    for (size_t i = 0; i < bus->nhooked[stage][it->kind_bit]; i++) {
        const struct gcr_bus_sub *sub = bus->hooked[stage][it->kind_bit][i];
        sub->ops->prefetch(sub->self, &it->ev, stage);
    }
}

/* Stage 1: the line's slot in the line map. */
static inline void fetch_slot(struct gcr_bus *bus, const struct gcr_bus_item *it)
{
    if (it->has_line)
        gcr_idmap_prefetch(bus->lines, it->ev.line_addr);
}

/* Stage 2: the event's id word, if its line's group is known: leaves never
 * move (the line map groups lines, so its ids are in leaves), so the pointer
 * stays valid until the event is resolved. */
static void find(struct gcr_bus *bus, struct gcr_bus_item *it)
{
    it->id_word = NULL;
    if (!it->has_line)
        return;
    uint32_t offset;
    uint32_t *ids = gcr_idmap_ids(bus->lines, it->ev.line_addr, false, &offset);
    if (ids) {
        it->id_word = ids + offset;
        __builtin_prefetch(it->id_word);
    }
}

/* Stage 3: the line id (a new line gets one now), the columns its kind
 * reads, then the hooks' stage 0. */
static void resolve(struct gcr_bus *bus, struct gcr_bus_item *it)
{
    if (it->has_line) {
        uint32_t id = it->id_word && *it->id_word ? *it->id_word - 1
                                                  : gcr_idmap_get(bus->lines, it->ev.line_addr);
        it->ev.line_id = id;
        if (id != GCR_IDMAP_NONE) {
            size_t chunk = id >> GCR_COLUMN_CHUNK_SHIFT, at = id & (GCR_COLUMN_CHUNK_IDS - 1);
            struct gcr_column *const *cols = bus->fetch[it->kind_bit];
            for (size_t c = 0; c < bus->nfetch[it->kind_bit]; c++)
                __builtin_prefetch(cols[c]->chunks[chunk] + at * cols[c]->elem, 1);
        }
    }
    prefetch_stage(bus, it, 0);
}

/* Stage 5: the n <= BUS_BATCH events from head, to each queued subscriber
 * in turn: the positions of the batch's events of each kind are bits of one
 * word, so a subscriber visits only its own events, in order. */
static void deliver(struct gcr_bus *bus, uint64_t n)
{
    const struct gcr_event *evs[BUS_BATCH];
    uint32_t at_kind[8] = {0};
    for (uint64_t k = 0; k < n; k++) {
        const struct gcr_bus_item *it = &bus->ring[(bus->head + k) % BUS_RING];
        evs[k] = &it->ev;
        at_kind[it->kind_bit] |= UINT32_C(1) << k;
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

/* A batch is complete: every event in flight moves one stage on, the
 * events of stage k being those emitted at least k batches ago (after a
 * flush, which takes every event through every stage, the stages wait for
 * the tail to pass them again). */
static void advance(struct gcr_bus *bus)
{
    const uint64_t t = bus->tail;
    for (; bus->slotted < t; bus->slotted++)
        fetch_slot(bus, &bus->ring[bus->slotted % BUS_RING]);
    for (; bus->found + BUS_BATCH < t; bus->found++)
        find(bus, &bus->ring[bus->found % BUS_RING]);
    for (; bus->resolved + 2 * BUS_BATCH < t; bus->resolved++)
        resolve(bus, &bus->ring[bus->resolved % BUS_RING]);
    for (; bus->staged + 3 * BUS_BATCH < t; bus->staged++)
        prefetch_stage(bus, &bus->ring[bus->staged % BUS_RING], 1);
    while (bus->head + 4 * BUS_BATCH < t) {
        uint64_t n = t - 4 * BUS_BATCH - bus->head;
        deliver(bus, n < BUS_BATCH ? n : BUS_BATCH);
    }
}

/* The item at the tail is complete: queue it. */
static inline void commit(struct gcr_bus *bus, struct gcr_bus_item *it)
{
    it->kind_bit = (uint8_t)__builtin_ctz((unsigned)it->ev.kind);
    if (++bus->tail % BUS_BATCH == 0)
        advance(bus);
}

/* ---- emission ---- */

void gcr_bus_emit(struct gcr_bus *bus, struct gcr_event *ev)
{
    if (ev->kind == GCR_EV_INSN) {
        gcr_bus_emit_insn(bus, ev->sm, ev->insn);
        return;
    }
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
    /* Cache events come through gcr_bus_emit_cache: the others are about
     * no line. */
    it->has_line = false;
    commit(bus, it);
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
    it->has_line = bus->lines != NULL;
    commit(bus, it);
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
    const struct gcr_warp_insn *in = &bus->insns[at];
    copy_insn(&bus->insns[at], insn, bus->insn_all_lanes);
    /* The line of the first active lane, for the accesses' spaces. */
    it->has_line = bus->lines && in->active_mask &&
                   (in->space == GCR_SPACE_GLOBAL || in->space == GCR_SPACE_LOCAL);
    uint64_t line = it->has_line ? in->addr[__builtin_ctz(in->active_mask)] >>
                                       bus->lines->key_shift << bus->lines->key_shift
                                 : 0;
    gcr_event_fill(&it->ev, GCR_EV_INSN, 0, sm, in->cta, in->warp, in, line, 0, false, NULL);
    it->ev.step = bus->step;
    it->ev.kernel = bus->kernel;
    commit(bus, it);
}

void gcr_bus_flush(struct gcr_bus *bus)
{
    for (; bus->slotted < bus->tail; bus->slotted++)
        fetch_slot(bus, &bus->ring[bus->slotted % BUS_RING]);
    for (; bus->found < bus->tail; bus->found++)
        find(bus, &bus->ring[bus->found % BUS_RING]);
    for (; bus->resolved < bus->tail; bus->resolved++)
        resolve(bus, &bus->ring[bus->resolved % BUS_RING]);
    for (; bus->staged < bus->tail; bus->staged++)
        prefetch_stage(bus, &bus->ring[bus->staged % BUS_RING], 1);
    while (bus->head < bus->tail)
        deliver(bus, bus->tail - bus->head < BUS_BATCH ? bus->tail - bus->head : BUS_BATCH);
}
