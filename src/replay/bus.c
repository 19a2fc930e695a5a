#include "replay/bus.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpus.h"
#include "core/table_memory.h"

/* Events per batch (see bus.h): at ~100 ns of replay work per event, a
 * stage's loads get 1.5 us to arrive, several DRAM latencies. BUS_RING holds
 * the five stages' batches and the one filling, a power of two. Threaded,
 * the ring is larger, so that each side rides out the other's slow phases
 * (new lines, first touches of memory) instead of waiting: 65,536 packed
 * events (5.5 MB, about 2 ms of replay) took the median of 8 interleaved
 * runs of all six analyses from 1.75 s to 1.27 s, then from 1.67 s to
 * 1.56 s, against 16,384 (262,144 read 1.48 s for 20 MB more). */
enum { BUS_BATCH = 16, BUS_STAGES = 5, BUS_RING = 128, BUS_RING_THREADED = 65536 };
_Static_assert(BUS_BATCH * (BUS_STAGES + 1) <= BUS_RING, "the ring holds every stage");
_Static_assert(BUS_BATCH <= 32, "a batch's positions are bits of a 32-bit word");
/* Events in delivered form: stage 3 opens at most one batch past the two
 * held back for the hooks' stage 1 and the delivery (open_and_deliver), so
 * 3 batches are in the slots. */
enum { BUS_SLOTS = 64 };
_Static_assert(3 * BUS_BATCH <= BUS_SLOTS && (BUS_SLOTS & (BUS_SLOTS - 1)) == 0,
               "the slots hold the events between stages 3 and 5");

/* struct gcr_bus_item's flags. */
enum {
    BUS_ITEM_WRITE = 1u << 0,
    BUS_ITEM_HAS_LINE = 1u << 1,   /* the event is about a line: it gets an id */
    BUS_ITEM_HAS_ACCESS = 1u << 2,
    BUS_ITEM_INVALIDATED = 1u << 3,
    BUS_ITEM_ALLOCATED = 1u << 4,
    BUS_ITEM_EVICTED = 1u << 5,
    BUS_ITEM_STRIDED = 1u << 6,
    BUS_ITEM_DOWNSTREAM = 1u << 7,
};

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
    if ((ops->subscribe & GCR_EV_INSN) && !(ops->speed && ops->speed->insn_stride_hint))
        bus->insn_all_lanes = true;
}

static int worker_start(struct gcr_bus *bus);
static void worker_stop(struct gcr_bus *bus);

/* The delivery's lists, built from the queued subscribers, and its slots.
 * -1 if out of memory. */
static int delivery_build(struct gcr_bus *bus, struct gcr_bus_delivery *out)
{
    out->ev = calloc(BUS_SLOTS, sizeof *out->ev);
    out->access = calloc(BUS_SLOTS, sizeof *out->access);
    out->insn = calloc(BUS_SLOTS, sizeof *out->insn);
    out->kind_bit = calloc(BUS_SLOTS, sizeof *out->kind_bit);
    if (!out->ev || !out->access || !out->insn || !out->kind_bit)
        return -1;
    for (int stage = 0; stage < 2; stage++)
        for (unsigned b = 0; b < BUS_KINDS; b++) {
            struct gcr_bus_sub **list = out->hooked[stage][b] =
                calloc(bus->nlagged + 1, sizeof *list);
            if (!list)
                return -1;
            for (size_t i = 0; i < bus->nlagged; i++) {
                const struct gcr_analysis_ops *ops = bus->lagged[i]->ops;
                const struct gcr_analysis_speed *sp = ops->speed;
                if (!sp || !sp->prefetch)
                    continue;
                unsigned kinds = sp->prefetch_kinds ? sp->prefetch_kinds(bus->lagged[i]->self, stage)
                                 : stage ? sp->prefetch_stage1
                                         : sp->prefetch_stage0;
                if (kinds & ops->subscribe & (1u << b))
                    list[out->nhooked[stage][b]++] = bus->lagged[i];
            }
        }
    for (unsigned b = 0; bus->lines && b < BUS_KINDS; b++) {
        if (!((1u << b) & LINE_KINDS))
            continue;
        out->fetch[b] = calloc(bus->lines->ncolumns + 1, sizeof *out->fetch[b]);
        if (!out->fetch[b])
            return -1;
        for (size_t c = 0; c < bus->lines->ncolumns; c++)
            if (bus->lines->columns[c]->prefetch_kinds & (1u << b))
                out->fetch[b][out->nfetch[b]++] = bus->lines->columns[c];
    }
    return 0;
}

static void delivery_free(struct gcr_bus_delivery *out)
{
    free(out->ev);
    free(out->access);
    free(out->insn);
    free(out->kind_bit);
    for (unsigned b = 0; b < BUS_KINDS; b++) {
        free(out->fetch[b]);
        free(out->hooked[0][b]);
        free(out->hooked[1][b]);
    }
    memset(out, 0, sizeof *out);
}

int gcr_bus_start(struct gcr_bus *bus, struct gcr_idmap *lines, bool threaded)
{
    /* Ids are for per-line state: without a column, no analysis keeps any in
     * the shared map, and events need no id. */
    bus->lines = lines && lines->ncolumns ? lines : NULL;
    bus->line_shift = bus->lines ? bus->lines->key_shift : 0;
    if (!bus->lag_mask)
        return 0;
    size_t ring = threaded ? BUS_RING_THREADED : BUS_RING;
    bus->ring_mask = ring - 1;
    bus->lanes_mask = ring * GCR_WARP_SIZE - 1;
    bus->ring = gcr_table_alloc(ring * sizeof *bus->ring);
    bus->lanes = gcr_table_alloc(ring * GCR_WARP_SIZE * sizeof *bus->lanes);
    bus->lagged = calloc(bus->nsubs, sizeof *bus->lagged);
    if (!bus->ring || !bus->lanes || !bus->lagged)
        return -1;
    for (size_t i = 0; i < bus->nsubs; i++)
        if (!bus->subs[i].sync)
            bus->lagged[bus->nlagged++] = &bus->subs[i];
    if (delivery_build(bus, &bus->out) != 0)
        return -1;
    /* Nothing to do between emission and delivery (no line ids, no hooks)
     * and no thread to hand events to: the queue would only copy them. */
    bus->direct = !threaded && !bus->lines;
    for (int stage = 0; stage < 2; stage++)
        for (unsigned b = 0; b < BUS_KINDS; b++)
            if (bus->out.nhooked[stage][b])
                bus->direct = false;
    return threaded ? worker_start(bus) : 0;
}

void gcr_bus_fini(struct gcr_bus *bus)
{
    worker_stop(bus);
    gcr_table_free(bus->ring, (bus->ring_mask + 1) * sizeof *bus->ring);
    gcr_table_free(bus->lanes, (bus->lanes_mask + 1) * sizeof *bus->lanes);
    free(bus->lagged);
    delivery_free(&bus->out);
    bus->ring = NULL;
    bus->lanes = NULL;
    bus->lagged = NULL;
    bus->nlagged = 0;
    bus->direct = false;
    bus->found = bus->slotted = bus->tail = 0;
    bus->lane_tail = 0;
}

static void deliver_sync(struct gcr_bus *bus, const struct gcr_event *ev)
{
    for (size_t i = 0; i < bus->nsubs; i++)
        if (bus->subs[i].sync && (bus->subs[i].ops->subscribe & (unsigned)ev->kind))
            bus->subs[i].ops->on_event(bus->subs[i].self, ev);
}

/* Direct mode (bus->direct): the queued subscribers get the event at once,
 * as it would reach them from the queue (no instruction on a cache event). */
static void deliver_direct(struct gcr_bus *bus, const struct gcr_event *ev)
{
    for (size_t i = 0; i < bus->nlagged; i++)
        if (bus->lagged[i]->ops->subscribe & (unsigned)ev->kind)
            bus->lagged[i]->ops->on_event(bus->lagged[i]->self, ev);
}

/* ---- packing into the queue, unpacking for delivery ---- */

/* The replay has just written what an item packs one field at a time, and
 * packing reads it back at once: a load spanning several pending stores
 * cannot take its data from them and waits until they reach the cache (a
 * stall at every event), so every field is read on its own, through a
 * volatile pointer, which keeps the compiler from merging the loads. */
static void pack_access(struct gcr_bus_item *it, const volatile struct gcr_access *a)
{
    it->flags |= BUS_ITEM_HAS_ACCESS | (a->invalidated ? BUS_ITEM_INVALIDATED : 0) |
                 (a->allocated ? BUS_ITEM_ALLOCATED : 0) | (a->evicted ? BUS_ITEM_EVICTED : 0);
    it->outcome = (uint8_t)a->outcome;
    it->u.cache.victim_line = a->victim_line;
    it->u.cache.fetch = a->fetch_mask;
    it->u.cache.forward = a->forward_mask;
    it->u.cache.victim_valid = a->victim_valid;
    it->u.cache.victim_dirty = a->victim_dirty;
    it->u.cache.victim_used = a->victim_used;
}

/* What a queued subscriber may read of an instruction: every field, and the
 * lane addresses the replay filled (only the first active lane of a strided
 * one when no subscriber reads all lanes: insn_stride_hint). */
static void pack_insn(struct gcr_bus *bus, struct gcr_bus_item *it,
                      const volatile struct gcr_warp_insn *in)
{
    uint32_t mask = in->active_mask;
    bool strided = in->strided;
    it->cta = in->cta;
    it->warp = in->warp;
    it->mask = mask;
    it->flags |= strided ? BUS_ITEM_STRIDED : 0;
    it->u.insn.pc = in->pc;
    it->u.insn.stride = in->stride;
    it->u.insn.width = in->width;
    it->u.insn.op = in->op;
    it->u.insn.space = in->space;
    it->u.insn.cache_op = in->cache_op;
    it->u.insn.lane0 = mask ? in->addr[__builtin_ctz(mask)] : 0;
    it->u.insn.lanes_at = (uint32_t)bus->lane_tail;
    if (mask && (!strided || bus->insn_all_lanes))
        for (uint32_t m = mask & (mask - 1); m; m &= m - 1)
            bus->lanes[bus->lane_tail++ & bus->lanes_mask] = in->addr[__builtin_ctz(m)];
}

/* The event an item packs, into ev (and a, in for what it points to). */
static void unpack(const struct gcr_bus *bus, const struct gcr_bus_item *it, struct gcr_event *ev,
                   struct gcr_access *a, struct gcr_warp_insn *in)
{
    unsigned kind = 1u << it->kind_bit;
    bool is_insn = kind == GCR_EV_INSN;
    gcr_event_fill(ev, (enum gcr_event_kind)kind, it->unit, it->sm, it->cta, it->warp, NULL,
                   it->line, is_insn ? 0 : it->mask, it->flags & BUS_ITEM_WRITE, NULL);
    ev->step = it->step;
    ev->kernel = kind & (GCR_EV_KERNEL_BEGIN | GCR_EV_KERNEL_END) ? it->u.other.kernel : NULL;
    if (it->flags & BUS_ITEM_HAS_LINE)
        ev->line_id = it->id.id;
    if (it->flags & BUS_ITEM_HAS_ACCESS) {
        a->outcome = (enum gcr_outcome)it->outcome;
        a->fetch_mask = it->u.cache.fetch;
        a->forward_mask = it->u.cache.forward;
        a->invalidated = it->flags & BUS_ITEM_INVALIDATED;
        a->allocated = it->flags & BUS_ITEM_ALLOCATED;
        a->evicted = it->flags & BUS_ITEM_EVICTED;
        a->victim_line = it->u.cache.victim_line;
        a->victim_valid = it->u.cache.victim_valid;
        a->victim_dirty = it->u.cache.victim_dirty;
        a->victim_used = it->u.cache.victim_used;
        ev->access = a;
    } else if (is_insn) {
        in->cta = it->cta;
        in->warp = it->warp;
        in->pc = it->u.insn.pc;
        in->op = it->u.insn.op;
        in->space = it->u.insn.space;
        in->cache_op = it->u.insn.cache_op;
        in->width = it->u.insn.width;
        in->active_mask = it->mask;
        in->strided = it->flags & BUS_ITEM_STRIDED;
        in->stride = it->u.insn.stride;
        if (it->mask) {
            in->addr[__builtin_ctz(it->mask)] = it->u.insn.lane0;
            if (!in->strided || bus->insn_all_lanes) {
                uint64_t at = it->u.insn.lanes_at;
                for (uint32_t m = it->mask & (it->mask - 1); m; m &= m - 1)
                    in->addr[__builtin_ctz(m)] = bus->lanes[at++ & bus->lanes_mask];
            }
        }
        ev->insn = in;
    } else {
        ev->kernel_warp_insns = it->u.other.warp_insns;
        ev->net = (enum gcr_net)it->net;
        ev->from = it->u.other.from;
        ev->to = it->u.other.to;
        ev->bytes = it->u.other.bytes;
        ev->downstream = it->flags & BUS_ITEM_DOWNSTREAM;
    }
}

/* ---- the stages ---- */

/* Stages 3 and 4 run once per queued event, from loops: inlined there, they
 * save a call's register saving and restoring at every event (1 % of all
 * six analyses' x86 instructions on one thread, by callgrind). */
#define PER_EVENT static inline __attribute__((always_inline))

/* Stage 1: the line's slot in the line map. */
static inline void fetch_slot(struct gcr_bus *bus, const struct gcr_bus_item *it)
{
    if (it->flags & BUS_ITEM_HAS_LINE)
        gcr_idmap_prefetch(bus->lines, it->line);
}

/* Stage 2: the event's id word, if its line's group is known: leaves never
 * move (the line map groups lines, so its ids are in leaves), so the pointer
 * stays valid until the event is resolved. */
static void find(struct gcr_bus *bus, struct gcr_bus_item *it)
{
    if (!(it->flags & BUS_ITEM_HAS_LINE))
        return;
    uint32_t offset;
    uint32_t *ids = gcr_idmap_ids(bus->lines, it->line, false, &offset);
    it->id.word = ids ? ids + offset : NULL;
    if (ids)
        __builtin_prefetch(it->id.word);
}

/* Stage 3: the event at position p gets its line id (a new line gets one
 * now) and is unpacked into its slot once, for the hooks and the delivery;
 * the columns its kind reads are fetched, then the hooks run their stage 0.
 * (Only kinds some queued subscriber wants are queued: bus->lag_mask.) */
PER_EVENT void open_event(struct gcr_bus *bus, uint64_t p)
{
    struct gcr_bus_delivery *out = &bus->out;
    struct gcr_bus_item *it = &bus->ring[p & bus->ring_mask];
    size_t k = p & (BUS_SLOTS - 1);
    unsigned b = it->kind_bit;
    if (it->flags & BUS_ITEM_HAS_LINE) {
        uint32_t *word = it->id.word;
        it->id.id = word ? gcr_idmap_word_id(bus->lines, word)
                         : gcr_idmap_get(bus->lines, it->line);
    }
    out->kind_bit[k] = (uint8_t)b;
    struct gcr_event *ev = &out->ev[k];
    unpack(bus, it, ev, &out->access[k], &out->insn[k]);
    uint32_t id = ev->line_id;
    if (id != GCR_IDMAP_NONE && out->nfetch[b]) {
        size_t chunk = id >> GCR_COLUMN_CHUNK_SHIFT, at = id & (GCR_COLUMN_CHUNK_IDS - 1);
        struct gcr_column *const *cols = out->fetch[b];
        for (size_t c = 0; c < out->nfetch[b]; c++)
            __builtin_prefetch(cols[c]->chunks[chunk] + at * cols[c]->elem, 1);
    }
    for (size_t i = 0; i < out->nhooked[0][b]; i++) {
        const struct gcr_bus_sub *sub = out->hooked[0][b][i];
        sub->ops->speed->prefetch(sub->self, ev, 0);
    }
}

/* Stage 4: the hooks' stage 1. */
PER_EVENT void stage1_event(struct gcr_bus_delivery *out, uint64_t p)
{
    size_t k = p & (BUS_SLOTS - 1);
    unsigned b = out->kind_bit[k];
    for (size_t i = 0; i < out->nhooked[1][b]; i++) {
        const struct gcr_bus_sub *sub = out->hooked[1][b][i];
        sub->ops->speed->prefetch(sub->self, &out->ev[k], 1);
    }
}

/* Stage 5: the n <= BUS_BATCH events from the head, to each queued
 * subscriber in turn: the positions of the batch's events of each kind are
 * bits of one word, so a subscriber visits only its own events, in order.
 * Delivering a batch to one subscriber after the other keeps each
 * analysis's code and data hot while it runs. */
static void deliver(struct gcr_bus *bus, uint64_t n)
{
    struct gcr_bus_delivery *out = &bus->out;
    uint32_t at_kind[BUS_KINDS] = {0};
    for (uint64_t k = 0; k < n; k++)
        at_kind[out->kind_bit[(out->head + k) & (BUS_SLOTS - 1)]] |= UINT32_C(1) << k;
    size_t first = out->head & (BUS_SLOTS - 1);
    for (size_t i = 0; i < bus->nlagged; i++) {
        const struct gcr_bus_sub *sub = bus->lagged[i];
        uint32_t mine = 0;
        for (unsigned want = sub->ops->subscribe & 0xffu; want; want &= want - 1)
            mine |= at_kind[__builtin_ctz(want)];
        void (*on_event)(void *, const struct gcr_event *) = sub->ops->on_event;
        for (; mine; mine &= mine - 1)
            on_event(sub->self, &out->ev[(first + (size_t)__builtin_ctz(mine)) & (BUS_SLOTS - 1)]);
    }
    out->head += n;
}

/* Stages 3 to 5 for the events before `upto`, found: those of stage 4 at
 * least lag before it, of stage 5 at least 2 x lag. */
static void open_and_deliver_to(struct gcr_bus *bus, uint64_t upto, uint64_t lag)
{
    struct gcr_bus_delivery *out = &bus->out;
    for (; out->opened < upto; out->opened++)
        open_event(bus, out->opened);
    for (; out->staged + lag < upto; out->staged++)
        stage1_event(out, out->staged);
    while (out->head + 2 * lag < upto) {
        uint64_t n = upto - 2 * lag - out->head;
        deliver(bus, n < BUS_BATCH ? n : BUS_BATCH);
    }
}

/* The same, opening at most a batch at a time, so that the slots hold every
 * event between stages 3 and 5 (the worker may take many batches at once). */
static void open_and_deliver(struct gcr_bus *bus, uint64_t upto, uint64_t lag)
{
    while (bus->out.opened + BUS_BATCH < upto)
        open_and_deliver_to(bus, bus->out.opened + BUS_BATCH, BUS_BATCH);
    open_and_deliver_to(bus, upto, lag);
}

/* Every event before t moves on through the stages, those of stage k
 * being the events at least k x lag before t: lag BUS_BATCH while the queue
 * runs (each stage's loads then have a batch's worth of work to arrive), 0
 * to take every event through every stage (a flush). After a flush the
 * stages wait for t to pass them again. */
static void run_stages(struct gcr_bus *bus, uint64_t t, uint64_t lag)
{
    for (; bus->slotted < t; bus->slotted++)
        fetch_slot(bus, &bus->ring[bus->slotted & bus->ring_mask]);
    for (; bus->found + lag < t; bus->found++)
        find(bus, &bus->ring[bus->found & bus->ring_mask]);
    if (t >= 2 * lag)
        open_and_deliver(bus, t - 2 * lag, lag);
}

/* ---- the analyses' thread ---- */

/* The worker takes events through the stages as the replay publishes them.
 * Each side waits for the other only when it must (the worker: no new event;
 * the replay: a full ring, or a flush), first spinning briefly, then asleep
 * on a condition variable: a sleeper sets its flag and checks again before
 * sleeping, a waker updates its counter and then checks the flag (both
 * sequentially consistent), so a wake-up is never lost. */
struct gcr_bus_worker {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;       /* either side waits here */
    _Atomic bool stop;
    _Atomic bool worker_asleep, replay_asleep;
    int spins; /* polls before a waiter sleeps (see worker_start) */
    /* Each side's counter on a host cache line of its own (see struct
     * gcr_bus): the other side's polling then reads a line that changes once
     * per batch, not one that the writer's own work keeps taking back. */
    _Alignas(64) _Atomic uint64_t published; /* events the replay has completed */
    _Atomic uint64_t flush_to;               /* a flush: take every event before it */
    _Alignas(64) _Atomic uint64_t consumed;  /* events the worker has delivered (out.head) */
};

/* Waits until ready(bus) holds, asleep if it takes long; *asleep is the
 * waiter's flag. */
static void wait_until(struct gcr_bus *bus, bool (*ready)(struct gcr_bus *),
                       _Atomic bool *asleep)
{
    struct gcr_bus_worker *w = bus->worker;
    for (int spin = 0; spin < w->spins; spin++) {
        if (ready(bus))
            return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&w->lock);
    atomic_store(asleep, true);
    while (!ready(bus))
        pthread_cond_wait(&w->wake, &w->lock);
    atomic_store(asleep, false);
    pthread_mutex_unlock(&w->lock);
}

static void wake(struct gcr_bus_worker *w, _Atomic bool *asleep)
{
    if (atomic_load(asleep)) {
        pthread_mutex_lock(&w->lock);
        pthread_cond_broadcast(&w->wake);
        pthread_mutex_unlock(&w->lock);
    }
}

/* The worker has something to do: events to take on, or an order to stop. */
static bool work_ready(struct gcr_bus *bus)
{
    struct gcr_bus_worker *w = bus->worker;
    uint64_t t = atomic_load(&w->published);
    bool flush = atomic_load(&w->flush_to) == t;
    return bus->out.head + (flush ? 0 : 4 * BUS_BATCH) < t || atomic_load(&w->stop);
}

static void *worker_main(void *arg)
{
    struct gcr_bus *bus = arg;
    struct gcr_bus_worker *w = bus->worker;
    for (;;) {
        wait_until(bus, work_ready, &w->worker_asleep);
        /* Stopping drops what is pending: the replay stops without a flush
         * only when it gives up (an error), and the events may name state
         * it has freed. */
        if (atomic_load(&w->stop))
            return NULL;
        uint64_t t = atomic_load(&w->published);
        bool flush = atomic_load(&w->flush_to) == t;
        run_stages(bus, t, flush ? 0 : BUS_BATCH);
        atomic_store(&w->consumed, bus->out.head);
        wake(w, &w->replay_asleep);
    }
}

static int worker_start(struct gcr_bus *bus)
{
    struct gcr_bus_worker *w = aligned_alloc(64, sizeof *w);
    if (!w)
        return -1;
    memset(w, 0, sizeof *w);
    /* Sleeping costs a futex wait and a futex wake, tens of microseconds
     * on a virtualised host, more than a batch of replay work: with a CPU
     * each, a side that waits polls for some milliseconds first (500,000
     * pauses), and rarely sleeps. Sharing one CPU, polling would only keep
     * the other side from running: it sleeps almost at once. */
    w->spins = gcr_cpus_usable() >= 2 ? 500000 : 100;
    if (pthread_mutex_init(&w->lock, NULL) != 0) {
        free(w);
        return -1;
    }
    if (pthread_cond_init(&w->wake, NULL) != 0) {
        pthread_mutex_destroy(&w->lock);
        free(w);
        return -1;
    }
    bus->worker = w;
    if (pthread_create(&w->thread, NULL, worker_main, bus) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        bus->worker = NULL;
        return -1;
    }
    return 0;
}

static void worker_stop(struct gcr_bus *bus)
{
    struct gcr_bus_worker *w = bus->worker;
    if (!w)
        return;
    atomic_store(&w->stop, true);
    wake(w, &w->worker_asleep);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
    bus->worker = NULL;
}

/* The ring has room for the next batch: the worker delivered far enough. */
static bool room_ready(struct gcr_bus *bus)
{
    return bus->tail + BUS_BATCH <= atomic_load(&bus->worker->consumed) + bus->ring_mask + 1;
}

static bool flush_done(struct gcr_bus *bus)
{
    return atomic_load(&bus->worker->consumed) == bus->tail;
}

/* A batch is complete: threaded, the worker may take it; otherwise every
 * event in flight moves one stage on. */
static void advance(struct gcr_bus *bus)
{
    struct gcr_bus_worker *w = bus->worker;
    if (!w) {
        run_stages(bus, bus->tail, BUS_BATCH);
        return;
    }
    atomic_store(&w->published, bus->tail);
    wake(w, &w->worker_asleep);
    if (!room_ready(bus))
        wait_until(bus, room_ready, &w->replay_asleep);
}

/* The item at the tail is complete: queue it. */
static inline void commit(struct gcr_bus *bus)
{
    if (++bus->tail % BUS_BATCH == 0)
        advance(bus);
}

/* ---- emission ---- */

/* The queue's next item, its fields common to every kind filled. */
static inline struct gcr_bus_item *item_start(struct gcr_bus *bus, enum gcr_event_kind kind,
                                              uint32_t unit, uint32_t sm, uint32_t cta,
                                              uint32_t warp, uint64_t line, uint32_t mask,
                                              bool is_write)
{
    struct gcr_bus_item *it = &bus->ring[bus->tail & bus->ring_mask];
    it->line = line;
    it->step = bus->step;
    it->cta = cta;
    it->sm = sm;
    it->unit = unit;
    it->warp = warp;
    it->mask = mask;
    it->kind_bit = (uint8_t)__builtin_ctz((unsigned)kind);
    it->flags = is_write ? BUS_ITEM_WRITE : 0;
    return it;
}

void gcr_bus_emit(struct gcr_bus *bus, struct gcr_event *ev)
{
    if (ev->kind == GCR_EV_INSN) {
        gcr_bus_emit_insn(bus, ev->sm, ev->insn);
        return;
    }
    if ((unsigned)ev->kind & (LINE_KINDS & ~GCR_EV_INSN)) {
        gcr_bus_emit_cache(bus, ev->kind, ev->unit, ev->sm, ev->cta, ev->warp, ev->insn,
                           ev->line_addr, ev->sector_mask, ev->is_write, ev->access);
        return;
    }
    ev->step = bus->step;
    ev->kernel = bus->kernel;
    ev->line_id = GCR_IDMAP_NONE; /* no line: as the queue delivers it */
    if (bus->sync_mask & (unsigned)ev->kind)
        deliver_sync(bus, ev);
    if (!(bus->lag_mask & (unsigned)ev->kind))
        return;
    if (bus->direct) {
        struct gcr_event e = *ev;
        e.insn = NULL;
        deliver_direct(bus, &e);
        return;
    }
    const volatile struct gcr_event *v = ev; /* field by field: see pack_access */
    struct gcr_bus_item *it = item_start(bus, ev->kind, v->unit, v->sm, v->cta, v->warp,
                                         v->line_addr, v->sector_mask, v->is_write);
    it->net = (uint8_t)v->net;
    it->flags |= v->downstream ? BUS_ITEM_DOWNSTREAM : 0;
    it->u.other.kernel = bus->kernel;
    it->u.other.warp_insns = v->kernel_warp_insns;
    it->u.other.from = v->from;
    it->u.other.to = v->to;
    it->u.other.bytes = v->bytes;
    if (ev->access)
        pack_access(it, ev->access); /* (no such event is emitted: for the contract) */
    commit(bus);
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
    if (bus->direct) {
        struct gcr_event ev;
        gcr_event_fill(&ev, kind, unit, sm, cta, warp, NULL, line, sectors, is_write, a);
        ev.step = bus->step;
        ev.kernel = bus->kernel;
        deliver_direct(bus, &ev);
        return;
    }
    /* Without the instruction: the replay reuses it for the next one, so
     * queued subscribers see it with GCR_EV_INSN only. */
    struct gcr_bus_item *it = item_start(bus, kind, unit, sm, cta, warp, line, sectors, is_write);
    if (bus->lines)
        it->flags |= BUS_ITEM_HAS_LINE;
    if (a)
        pack_access(it, a);
    commit(bus);
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
    if (bus->direct) {
        struct gcr_event ev;
        gcr_event_fill(&ev, GCR_EV_INSN, 0, sm, insn->cta, insn->warp, insn, 0, 0, false, NULL);
        ev.step = bus->step;
        ev.kernel = bus->kernel;
        deliver_direct(bus, &ev);
        return;
    }
    struct gcr_bus_item *it = item_start(bus, GCR_EV_INSN, 0, sm, 0, 0, 0, 0, false);
    pack_insn(bus, it, insn);
    /* The line of the first active lane, for the accesses' spaces. */
    if (bus->lines && it->mask &&
        (it->u.insn.space == GCR_SPACE_GLOBAL || it->u.insn.space == GCR_SPACE_LOCAL)) {
        it->flags |= BUS_ITEM_HAS_LINE;
        it->line = it->u.insn.lane0 >> bus->line_shift << bus->line_shift;
    }
    commit(bus);
}

void gcr_bus_flush(struct gcr_bus *bus)
{
    struct gcr_bus_worker *w = bus->worker;
    if (w) {
        atomic_store(&w->flush_to, bus->tail);
        atomic_store(&w->published, bus->tail);
        wake(w, &w->worker_asleep);
        wait_until(bus, flush_done, &w->replay_asleep);
        return;
    }
    run_stages(bus, bus->tail, 0);
}
