/* The event bus: delivers replay events to the analyses that subscribed.
 *
 * Analyses get their events late, in order, through a queue (the "lag"):
 * between an event's emission and its delivery the bus finds its line's id
 * in the shared line map (gcr_sim_info.lines) and fetches the analyses'
 * per-line state for it into the host's caches. Per-line state of millions
 * of lines does not fit those caches; read when the event is delivered, each
 * cold line would stall the replay for a DRAM latency. Read ahead, the
 * misses overlap the replay's own work.
 *
 * The queue moves in batches of BUS_BATCH events: each time a batch is
 * complete, every batch in flight moves one stage on (the newest first
 * gets its map slots prefetched):
 *
 *   1. prefetch each line's slot in the line map
 *   2. read the slot (now cached), prefetch the leaf word holding the id
 *   3. read the id (now cached); prefetch the elements of the columns that
 *      declare they are read for such events (gcr_column.prefetch_kinds);
 *      stage 0 of the analyses' prefetch hooks
 *   4. stage 1 of the hooks (state that a column element names)
 *   5. deliver, subscriber by subscriber
 *
 * so each stage's loads have a batch's worth of the replay's work to arrive.
 * Delivering a batch to one subscriber after the other keeps each analysis's
 * code and data hot while it runs, instead of switching between analyses at
 * every event. The queue is flushed before any report (gcr_bus_flush), so
 * results are those of immediate delivery. Synchronous subscribers (analyses
 * that ask for their events at emission, gcr_analysis_ops.at_emission) get
 * every event at once, on the replay's thread, without the queue. The timing
 * backend is not a subscriber: the memory system calls it directly
 * (src/timing/timing.h).
 *
 * Each event is unpacked once, when its id is known (stage 3), into a small
 * ring of events in delivered form (struct gcr_bus_delivery), which the
 * prefetch hooks and the delivery then read: unpacking it for each hook and
 * again for delivery took more x86 instructions than most analyses spend
 * on an event.
 *
 * Threaded (gcr_bus_start's `threaded`): the replay only fills the queue,
 * a larger ring, and a second thread (struct gcr_bus_worker) takes the
 * events through the stages and the analyses, in the same order, so the
 * results are the same. The replay publishes a batch when it is complete
 * and waits only when the ring is full; a flush waits until the worker has
 * delivered every event, after which the analyses can be read. */
#ifndef GCREPLAY_REPLAY_BUS_H
#define GCREPLAY_REPLAY_BUS_H

#include "gcreplay/analysis.h"

struct gcr_bus_sub {
    const struct gcr_analysis_ops *ops;
    void *self;
    bool sync; /* delivered at emission, not through the queue */
};

enum { BUS_KINDS = 8 }; /* event kinds, by bit number */

/* The queued subscribers' side of the queue, used by the thread that
 * delivers (threaded: the worker): per event kind (by bit number), the
 * subscribers with a prefetch hook and the columns of the line map to
 * prefetch, and the events between stages 3 and 5 in delivered form. Slot k
 * holds queue position p with p % BUS_SLOTS == k, unpacked at stage 3
 * ("opened") and read by the hooks and the delivery. */
struct gcr_bus_delivery {
    struct gcr_bus_sub **hooked[2][BUS_KINDS]; /* [stage][kind]: the subscribers to call */
    size_t nhooked[2][BUS_KINDS];
    struct gcr_column **fetch[BUS_KINDS];
    size_t nfetch[BUS_KINDS];
    struct gcr_event *ev;
    struct gcr_access *access;
    struct gcr_warp_insn *insn;
    uint8_t *kind_bit;             /* per slot: the event's kind, by bit number */
    uint64_t opened, staged, head; /* positions through stages 3, 4, 5 */
};

/* An event waiting in the queue, packed: its fields, what its access result
 * and instruction hold (the replay reuses both), in 88 bytes where a whole
 * gcr_event with its access takes about 150, which the replay would write
 * and the analyses' thread read at every event. Delivery unpacks it. The
 * lanes of an instruction whose analyses read them all (not strided, or no
 * stride hint) go to a ring of their own. */
struct gcr_bus_item {
    uint64_t line;
    uint64_t step;
    union {
        uint32_t *word; /* where the line map keeps the line's id + 1, once found */
        uint32_t id;    /* the line's id, once resolved */
    } id;
    uint32_t cta, sm, unit, warp;
    uint32_t mask;    /* sector mask, or an instruction's active mask */
    uint8_t kind_bit; /* log2 of the kind */
    uint8_t flags;    /* BUS_ITEM_* */
    uint8_t outcome;  /* of the access */
    uint8_t net;      /* of a transfer */
    union {
        struct {
            uint64_t victim_line;
            uint32_t fetch, forward, victim_valid, victim_dirty, victim_used;
        } cache;
        struct {
            uint64_t pc, lane0; /* lane0: the first active lane's address */
            int64_t stride;
            uint32_t lanes_at;  /* the other lanes, in the lane ring from here */
            uint16_t width;
            uint8_t op, space, cache_op;
        } insn;
        struct {
            const struct gcr_kernel_begin *kernel;
            uint64_t warp_insns;
            uint32_t from, to, bytes;
        } other;
    } u;
};

/* Threaded, the replay and the worker write different fields of the bus at
 * every event: each group of them gets host cache lines of its own (64-byte
 * gaps, since the bus lives inside the replay's calloc'ed state, which is
 * not 64-byte aligned), or every write would pull the line away from the
 * other core (false sharing, a cross-core transfer per event). */
struct gcr_bus {
    char apart_before[64]; /* from the replay's fields before the bus */
    unsigned mask;       /* union of every subscriber's kinds: a cheap "anyone listening?" */
    unsigned sync_mask;  /* kinds some synchronous subscriber wants */
    unsigned lag_mask;   /* kinds some queued subscriber wants */
    bool insn_all_lanes; /* a GCR_EV_INSN subscriber reads every lane's address */
    struct gcr_bus_sub *subs;
    size_t nsubs;
    /* Built by gcr_bus_start: every queued subscriber (in config order). */
    struct gcr_bus_sub **lagged;
    size_t nlagged;
    /* The queue: a ring of BUS_RING packed items (and instructions' lanes), with
     * monotonic counters, each up to which events went through a stage:
     * out.head <= out.staged <= out.opened <= found <= slotted <= tail. */
    struct gcr_idmap *lines;
    unsigned line_shift; /* lines->key_shift, read here: the worker writes *lines */
    struct gcr_bus_item *ring;
    uint64_t ring_mask; /* ring size - 1 */
    uint64_t *lanes;    /* lane addresses of instructions, 32 per ring item: never full */
    uint64_t lanes_mask;
    struct gcr_bus_worker *worker; /* threaded: the analyses' thread; else NULL */
    /* Not threaded, and no stage has work (no line ids, no prefetch hooks):
     * queued subscribers get each event at emission, without the queue's
     * copies. Results are the same: they are those of immediate delivery. */
    bool direct;
    char apart_replay[64];
    /* Written by the replay, at every step and event. */
    uint64_t step;
    const struct gcr_kernel_begin *kernel;
    uint64_t tail, lane_tail;
    char apart_stages[64];
    /* Written by whoever runs the stages (threaded: the worker). */
    uint64_t found, slotted;
    struct gcr_bus_delivery out;
    char apart_after[64]; /* from the replay's fields after the bus */
};

static inline bool gcr_bus_wants(const struct gcr_bus *bus, enum gcr_event_kind kind)
{
    return (bus->mask & (unsigned)kind) != 0;
}

/* Adds a subscriber (subs has room for it). */
void gcr_bus_add(struct gcr_bus *bus, const struct gcr_analysis_ops *ops, void *self, bool sync);

/* Allocates the queue if some subscriber needs one; lines is the shared
 * line map (NULL if none). Threaded: queued subscribers run on a thread of
 * their own. Returns -1 if out of memory (or no thread could be started). */
int gcr_bus_start(struct gcr_bus *bus, struct gcr_idmap *lines, bool threaded);
/* Stops the thread (pending events are dropped) and frees the queue. */
void gcr_bus_fini(struct gcr_bus *bus);

/* An instruction or cache event (GCR_EV_INSN, an L1 or L2 access or
 * eviction), every field assigned one by one: such events go out at every
 * access, and an initialiser list would zero-fill the whole ~100-byte
 * structure first. step and kernel are gcr_bus_emit's to fill; the TRANSFER
 * and KERNEL_END fields are zero. */
static inline void gcr_event_fill(struct gcr_event *ev, enum gcr_event_kind kind, uint32_t unit,
                                   uint32_t sm, uint32_t cta, uint32_t warp,
                                   const struct gcr_warp_insn *insn, uint64_t line,
                                   uint32_t sectors, bool is_write, const struct gcr_access *a)
{
    ev->kind = kind;
    ev->step = 0;
    ev->kernel = NULL;
    ev->insn = insn;
    ev->sm = sm;
    ev->cta = cta;
    ev->warp = warp;
    ev->unit = unit;
    ev->line_addr = line;
    ev->line_id = GCR_IDMAP_NONE;
    ev->sector_mask = sectors;
    ev->is_write = is_write;
    ev->access = a;
    ev->kernel_warp_insns = 0;
    ev->net = GCR_NET_L2;
    ev->from = ev->to = ev->bytes = 0;
    ev->downstream = false;
}

/* Fills step and kernel, delivers ev to the synchronous subscribers of its
 * kind and queues it for the others. */
void gcr_bus_emit(struct gcr_bus *bus, struct gcr_event *ev);

/* The same for an L1 or L2 access or eviction and for an instruction (the
 * events of every access), built straight in the queue slot rather than
 * copied there. */
void gcr_bus_emit_cache(struct gcr_bus *bus, enum gcr_event_kind kind, uint32_t unit,
                        uint32_t sm, uint32_t cta, uint32_t warp,
                        const struct gcr_warp_insn *insn, uint64_t line, uint32_t sectors,
                        bool is_write, const struct gcr_access *a);
void gcr_bus_emit_insn(struct gcr_bus *bus, uint32_t sm, const struct gcr_warp_insn *insn);

/* Delivers every queued event: before reading any subscriber's results. */
void gcr_bus_flush(struct gcr_bus *bus);

#endif
