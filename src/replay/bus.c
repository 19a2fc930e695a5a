#include "replay/bus.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/table_memory.h"

/* Events per batch (see bus.h): at ~100 ns of replay work per event, a
 * stage's loads get 1.5 us to arrive, several DRAM latencies. BUS_RING holds
 * the five stages' batches and the one filling, a power of two. Threaded,
 * the ring is larger, so that the replay rarely waits for the worker. */
enum { BUS_BATCH = 16, BUS_STAGES = 5, BUS_RING = 128, BUS_RING_THREADED = 16384 };
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

static int worker_start(struct gcr_bus *bus);
static void worker_stop(struct gcr_bus *bus);

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
    /* Huge pages where large (the threaded ring): 4-KB page faults are slow here. */
    bus->ring = gcr_table_alloc(ring * sizeof *bus->ring);
    bus->insns = gcr_table_alloc(ring * sizeof *bus->insns);
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
    return threaded ? worker_start(bus) : 0;
}

void gcr_bus_fini(struct gcr_bus *bus)
{
    worker_stop(bus);
    gcr_table_free(bus->ring, (bus->ring_mask + 1) * sizeof *bus->ring);
    gcr_table_free(bus->insns, (bus->ring_mask + 1) * sizeof *bus->insns);
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
    bus->head = bus->staged = bus->resolved = bus->found = bus->slotted = bus->tail = 0;
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
        const struct gcr_bus_item *it = &bus->ring[(bus->head + k) & bus->ring_mask];
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
    for (; bus->resolved + 2 * lag < t; bus->resolved++)
        resolve(bus, &bus->ring[bus->resolved & bus->ring_mask]);
    for (; bus->staged + 3 * lag < t; bus->staged++)
        prefetch_stage(bus, &bus->ring[bus->staged & bus->ring_mask], 1);
    while (bus->head + 4 * lag < t) {
        uint64_t n = t - 4 * lag - bus->head;
        deliver(bus, n < BUS_BATCH ? n : BUS_BATCH);
    }
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
    /* Each side's counter on a host cache line of its own (see struct
     * gcr_bus): the other side's polling then reads a line that changes once
     * per batch, not one that the writer's own work keeps taking back. */
    _Alignas(64) _Atomic uint64_t published; /* events the replay has completed */
    _Atomic uint64_t flush_to;               /* a flush: take every event before it */
    _Alignas(64) _Atomic uint64_t consumed;  /* events the worker has delivered (its head) */
};

/* Waits until ready(bus) holds, asleep if it takes long; *asleep is the
 * waiter's flag. */
static void wait_until(struct gcr_bus *bus, bool (*ready)(struct gcr_bus *),
                       _Atomic bool *asleep)
{
    struct gcr_bus_worker *w = bus->worker;
    for (int spin = 0; spin < 4000; spin++) {
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
    return bus->head + (flush ? 0 : 4 * BUS_BATCH) < t || atomic_load(&w->stop);
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
        atomic_store(&w->consumed, bus->head);
        wake(w, &w->replay_asleep);
    }
}

static int worker_start(struct gcr_bus *bus)
{
    struct gcr_bus_worker *w = aligned_alloc(64, sizeof *w);
    if (!w)
        return -1;
    memset(w, 0, sizeof *w);
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
    uint64_t at = bus->tail & bus->ring_mask;
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
    struct gcr_bus_item *it = &bus->ring[bus->tail & bus->ring_mask];
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
    uint64_t at = bus->tail & bus->ring_mask;
    struct gcr_bus_item *it = &bus->ring[at];
    const struct gcr_warp_insn *in = &bus->insns[at];
    copy_insn(&bus->insns[at], insn, bus->insn_all_lanes);
    /* The line of the first active lane, for the accesses' spaces. */
    it->has_line = bus->lines && in->active_mask &&
                   (in->space == GCR_SPACE_GLOBAL || in->space == GCR_SPACE_LOCAL);
    uint64_t line = it->has_line ? in->addr[__builtin_ctz(in->active_mask)] >> bus->line_shift
                                       << bus->line_shift
                                 : 0;
    gcr_event_fill(&it->ev, GCR_EV_INSN, 0, sm, in->cta, in->warp, in, line, 0, false, NULL);
    it->ev.step = bus->step;
    it->ev.kernel = bus->kernel;
    commit(bus, it);
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
