/* reuse_distance: LRU stack distance of the L1 request stream, per SM and for
 * all SMs together, with the miss-ratio curve it predicts for fully
 * associative LRU caches. Definitions and report layout: README.md.
 *
 * Exact distances (Bennett-Kruskal): a hash map gives each key its last
 * access time, and the times that are still some key's last access are
 * marked in a bitmap with a Fenwick tree over 512-time blocks; the distance
 * of an access is the number of marked times after the key's previous time.
 * Times are renumbered (compacted) when they run out, so memory follows the
 * number of distinct keys, not the trace length. Accesses are prefetched on
 * arrival and applied RD_LAG accesses later (access_key). Sampling (SHARDS)
 * keeps a key iff hash(key) mod P < T. Why each structure touches few host
 * cache lines: struct rd_stack, access_key, and README.md ("Method", "Cost"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "core/table_memory.h"
#include "gcreplay/analysis.h"

#define RD_EXACT_MAX 16     /* distances 0..15 are counted one by one */
#define RD_LOG2_BUCKETS 65  /* bucket 0: d = 0; bucket k: 2^(k-1) <= d < 2^k */
#define RD_MAX_MRC 64
#define RD_SAMPLE_BITS 24   /* P = 2^24 */

/* --------------------------------------------------------- stack distance */

/* Times are grouped in blocks of 512, one 64-byte host line of the bitmap. */
#define RD_BLOCK_SHIFT 9
#define RD_BLOCK_WORDS ((1u << RD_BLOCK_SHIFT) / 64)
#define RD_MIN_CAP 1024 /* times; a multiple of the block size */
#define RD_MIN_SLOTS 1024

/* A key's entry in a stack's map: 16 bytes, four to a host line. */
struct rd_slot {
    uint64_t key;
    uint32_t time_p1; /* last access time + 1; 0 marks a free slot (so zeroed memory is empty) */
    uint32_t unused;
};

/* One access stream: key -> last time, and which times are still some key's
 * last access (the "live" times).
 *
 * Live times are a bitmap, bit t set iff t is some key's last access time,
 * with the number of live times of each 512-time block kept in a Fenwick tree
 * over blocks. The distance of a reuse whose previous access was at `last` is
 * the number of live times after `last`: live keys minus (the live times of
 * the blocks before last's, a Fenwick prefix) minus (the live times of last's
 * block up to last, a popcount of one host line). The block Fenwick has one
 * entry per 512 times (32 KB for 4 M times), so it stays in the host's caches;
 * a reuse touches about two host lines unlikely to be cached: the key's map
 * slot and the bitmap line of its previous time. (A Fenwick tree over single
 * times, as before, walked ~2 x log2(times) entries scattered over megabytes,
 * and an owner array time -> slot cost a third cold line; renumbering the
 * times now finds each slot's new time from the bitmap instead, see
 * stack_compact.) */
struct rd_stack {
    struct rd_slot *slots;
    uint32_t slot_mask; /* map capacity - 1 (a power of two) */
    uint32_t keys;      /* distinct keys = live times */
    uint64_t *live;     /* bitmap over times 0..cap-1, 64-byte aligned */
    uint32_t *fen;      /* Fenwick tree over blocks, 1-based: fen[1..cap/512] */
    uint32_t cap;       /* times available before a compaction (multiple of 512) */
    uint32_t now;       /* next time */
    /* The Fenwick tree counts only the blocks before folded_blocks, whose
     * times are all in the past; the block `now` is filling is added once,
     * when `now` leaves it, so the +1 of every access costs no tree update.
     * folded_live: live times in those blocks (the tree's total). */
    uint32_t folded_blocks;
    uint32_t folded_live;
};

/* Zero-filled, 64-byte aligned memory of `bytes`; free with gcr_table_free. */
static void *zalloc_aligned(size_t bytes)
{
    if (bytes >= ((size_t)2 << 20))
        return gcr_table_alloc(bytes); /* page-aligned mapping, huge pages where possible */
    bytes = (bytes + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

static size_t live_bytes(uint32_t cap) { return (size_t)cap / 8; }
static size_t fen_bytes(uint32_t cap) { return ((size_t)(cap >> RD_BLOCK_SHIFT) + 1) * sizeof(uint32_t); }
static size_t slot_bytes(uint32_t mask) { return ((size_t)mask + 1) * sizeof(struct rd_slot); }

/* Where the probe for a key hashed as h starts: the first slot of a host line
 * (the slots are 64-byte aligned, four to a line). Linear probing from there
 * finds most keys, and most free slots, in that one line; probing from h's
 * own slot would start, on average, 1.5 slots before the line's end and run
 * into the next line (a second miss, not prefetched) far more often. */
#define RD_SLOTS_PER_LINE (64 / sizeof(struct rd_slot))
static inline uint32_t home_slot(const struct rd_stack *s, uint64_t h)
{
    return (uint32_t)h & s->slot_mask & ~(uint32_t)(RD_SLOTS_PER_LINE - 1);
}

static int stack_init(struct rd_stack *s)
{
    memset(s, 0, sizeof *s);
    s->slot_mask = RD_MIN_SLOTS - 1;
    s->cap = RD_MIN_CAP;
    s->slots = zalloc_aligned(slot_bytes(s->slot_mask));
    s->live = zalloc_aligned(live_bytes(s->cap));
    s->fen = zalloc_aligned(fen_bytes(s->cap));
    return s->slots && s->live && s->fen ? 0 : -1;
}

static void stack_free(struct rd_stack *s)
{
    gcr_table_free(s->slots, slot_bytes(s->slot_mask));
    gcr_table_free(s->live, live_bytes(s->cap));
    gcr_table_free(s->fen, fen_bytes(s->cap));
}

static void stack_clear(struct rd_stack *s)
{
    memset(s->slots, 0, slot_bytes(s->slot_mask));
    memset(s->live, 0, live_bytes(s->cap));
    memset(s->fen, 0, fen_bytes(s->cap));
    s->keys = 0;
    s->now = 0;
    s->folded_blocks = 0;
    s->folded_live = 0;
}

static inline void fen_add(uint32_t *fen, uint32_t nblocks, uint32_t block, int32_t v)
{
    for (uint32_t i = block + 1; i <= nblocks; i += i & -i)
        fen[i] += (uint32_t)v;
}

/* Live times in the blocks before `block`. */
static inline uint32_t fen_before(const uint32_t *fen, uint32_t block)
{
    uint32_t sum = 0;
    for (uint32_t i = block; i; i &= i - 1)
        sum += fen[i];
    return sum;
}

/* Live times of t's block strictly before t (t's own bit excluded). */
static inline uint32_t live_in_block_before(const uint64_t *live, uint32_t t)
{
    const uint64_t *w = live + ((size_t)(t >> RD_BLOCK_SHIFT) * RD_BLOCK_WORDS);
    uint32_t word = (t >> 6) & (RD_BLOCK_WORDS - 1);
    uint64_t partial = (UINT64_C(1) << (t & 63)) - 1;
    /* All eight words, masked, rather than a loop over the words before t's:
     * a loop whose length is random mispredicts its exit on most calls. */
    uint32_t n = 0;
    for (uint32_t i = 0; i < RD_BLOCK_WORDS; i++) {
        uint64_t mask = -(uint64_t)(i < word) | (partial & -(uint64_t)(i == word));
        n += gcr_bits_popcount64(w[i] & mask);
    }
    return n;
}

/* Renumbers the live times 0..keys-1 in order and grows the time space so at
 * least three times as many new times are free as there are live ones
 * (amortised O(1)). A compaction scans the whole map, so it should be rare;
 * a time costs one bit (plus 1/128 byte of Fenwick tree), a key 32 bytes of
 * map, so spare times are cheap: with 3 x keys of them a compaction comes
 * at most every 3 x keys accesses instead of every keys.
 * A slot's new time is the rank of its old one among the live times: the live
 * times of the blocks before its block (a prefix sum over blocks) plus those
 * of its block before it (a popcount). */
static int stack_compact(struct rd_stack *s)
{
    uint32_t cap = s->cap;
    while (cap < 4 * (uint64_t)s->keys + RD_MIN_CAP) {
        if (cap > UINT32_MAX / 2)
            return -1; /* times are 32-bit: about 2^30 distinct keys at most */
        cap *= 2;
    }
    uint32_t old_blocks = s->cap >> RD_BLOCK_SHIFT, new_blocks = cap >> RD_BLOCK_SHIFT;
    uint32_t *before = malloc((size_t)old_blocks * sizeof *before);
    uint64_t *live = zalloc_aligned(live_bytes(cap));
    uint32_t *fen = zalloc_aligned(fen_bytes(cap));
    if (!before || !live || !fen) {
        free(before);
        gcr_table_free(live, live_bytes(cap));
        gcr_table_free(fen, fen_bytes(cap));
        return -1;
    }
    uint32_t sum = 0;
    for (uint32_t b = 0; b < old_blocks; b++) {
        before[b] = sum;
        for (uint32_t w = 0; w < RD_BLOCK_WORDS; w++)
            sum += gcr_bits_popcount64(s->live[(size_t)b * RD_BLOCK_WORDS + w]);
    }
    for (uint32_t i = 0; i <= s->slot_mask; i++) {
        uint32_t tp1 = s->slots[i].time_p1;
        if (tp1) {
            uint32_t t = tp1 - 1;
            s->slots[i].time_p1 = before[t >> RD_BLOCK_SHIFT] + live_in_block_before(s->live, t) + 1;
        }
    }
    /* The live times are now 0..keys-1: whole blocks, then a partial one. */
    for (uint32_t w = 0; w < s->keys / 64; w++)
        live[w] = UINT64_MAX;
    if (s->keys % 64)
        live[s->keys / 64] = (UINT64_C(1) << (s->keys % 64)) - 1;
    /* The whole blocks are folded into the tree; the partial one is where
     * `now` continues. */
    uint32_t folded = s->keys >> RD_BLOCK_SHIFT;
    for (uint32_t b = 0; b < folded; b++)
        fen[b + 1] = 1u << RD_BLOCK_SHIFT;
    /* Linear-time Fenwick build from the block counts. */
    for (uint32_t i = 1; i <= new_blocks; i++) {
        uint32_t parent = i + (i & -i);
        if (parent <= new_blocks)
            fen[parent] += fen[i];
    }
    free(before);
    gcr_table_free(s->live, live_bytes(s->cap));
    gcr_table_free(s->fen, fen_bytes(s->cap));
    s->live = live;
    s->fen = fen;
    s->cap = cap;
    s->now = s->keys;
    s->folded_blocks = folded;
    s->folded_live = folded << RD_BLOCK_SHIFT;
    return 0;
}

static int stack_grow_map(struct rd_stack *s)
{
    uint32_t n = (s->slot_mask + 1) * 2;
    struct rd_slot *slots = zalloc_aligned(slot_bytes(n - 1));
    if (!slots)
        return -1;
    for (uint32_t i = 0; i <= s->slot_mask; i++) {
        if (!s->slots[i].time_p1)
            continue;
        uint32_t j = (uint32_t)gcr_hash_splitmix64(s->slots[i].key) & (n - 1) &
                     ~(uint32_t)(RD_SLOTS_PER_LINE - 1); /* home_slot in the new map */
        while (slots[j].time_p1)
            j = (j + 1) & (n - 1);
        slots[j] = s->slots[i];
    }
    gcr_table_free(s->slots, slot_bytes(s->slot_mask));
    s->slots = slots;
    s->slot_mask = n - 1;
    return 0;
}

/* One access to key (hashed as h). Returns its stack distance: the number of
 * distinct other keys since its previous access, or UINT64_MAX if first. */
static uint64_t stack_access(struct rd_stack *s, uint64_t key, uint64_t h, int *oom)
{
    if (s->now == s->cap && stack_compact(s) != 0) {
        *oom = 1;
        return UINT64_MAX;
    }
    uint32_t j = home_slot(s, h);
    while (s->slots[j].time_p1 && s->slots[j].key != key)
        j = (j + 1) & s->slot_mask;
    uint64_t d;
    uint32_t t = s->now++;
    uint32_t nblocks = s->cap >> RD_BLOCK_SHIFT;
    if (t >> RD_BLOCK_SHIFT > s->folded_blocks) {
        /* t starts a new block: fold the previous one, now complete, into the
         * tree. (now advances one time per access and starts at a block's
         * start after a compaction or clear, so one block at most.) */
        uint32_t b = s->folded_blocks++;
        uint32_t n = 0;
        for (uint32_t w = 0; w < RD_BLOCK_WORDS; w++)
            n += gcr_bits_popcount64(s->live[(size_t)b * RD_BLOCK_WORDS + w]);
        fen_add(s->fen, nblocks, b, (int32_t)n);
        s->folded_live += n;
    }
    if (s->slots[j].time_p1) {
        uint32_t last = s->slots[j].time_p1 - 1;
        uint32_t block = last >> RD_BLOCK_SHIFT;
        bool folded = block < s->folded_blocks;
        /* Live times after last: all but those up to and including last. */
        uint32_t before = folded ? fen_before(s->fen, block) : s->folded_live;
        d = s->keys - before - live_in_block_before(s->live, last) - 1;
        s->live[last >> 6] &= ~(UINT64_C(1) << (last & 63));
        if (folded) {
            fen_add(s->fen, nblocks, block, -1);
            s->folded_live--;
        }
    } else {
        d = UINT64_MAX;
        s->keys++;
        s->slots[j].key = key;
    }
    s->slots[j].time_p1 = t + 1;
    s->live[t >> 6] |= UINT64_C(1) << (t & 63);
    /* Load at most 1/2 keeps linear probing short. */
    if (d == UINT64_MAX && 2 * s->keys > s->slot_mask && stack_grow_map(s) != 0)
        *oom = 1;
    return d;
}

/* ------------------------------------------------------------- histograms */

/* Counts of one stream over one period, in sampled units. */
struct rd_hist {
    uint64_t accesses; /* every access of the stream (sampled or not) */
    uint64_t sampled;
    uint64_t cold;
    uint64_t exact[RD_EXACT_MAX];
    uint64_t log2[RD_LOG2_BUCKETS];
    /* by_mrc[k]: reuses whose scaled distance d has exactly k MRC sizes <= d
     * (so it misses in the k smallest caches). */
    uint64_t by_mrc[RD_MAX_MRC + 1];
};

struct rd_stream {
    struct rd_stack stack;
    struct rd_hist kernel, total;
};

/* How many sampled accesses wait between the prefetch of their map slots and
 * their application to the stacks. The replay does roughly 100 ns of other
 * work per L1 access, and a slot missed in every host cache costs about as
 * much, so a few accesses of lag would do; 16 leaves margin for bursts
 * (one warp instruction emits up to 32 requests back to back). */
#define RD_LAG 16

struct rd_pending {
    uint64_t key, hash;
    uint32_t sm;
};

struct reuse_distance {
    const struct gcr_sim_info *info;
    bool sector;          /* granularity: each requested sector is one access */
    bool reset_at_kernel; /* start every kernel with empty stacks */
    double rate;          /* effective sampling rate T/P */
    uint64_t threshold;   /* T */
    double scale;         /* 1 / rate */
    uint32_t nmrc;
    uint64_t mrc_lines[RD_MAX_MRC]; /* ascending cache sizes in lines (option mrc_lines) */
    uint64_t mrc[RD_MAX_MRC];       /* the same in keys: lines, or sectors in sector mode */
    /* mrc_below_log2[b]: how many of mrc[] are <= the smallest distance of
     * log2 bucket b (0 for b = 0, else 2^(b-1)). */
    uint8_t mrc_below_log2[RD_LOG2_BUCKETS];
    uint32_t nstreams;        /* num_sms + 1; the last is the global stream */
    struct rd_stream *streams;
    /* Accesses of the current kernel per stream (hist.accesses), counted here
     * rather than in the streams' histograms so that an access the sample
     * drops touches one small array and no stream. */
    uint64_t *kernel_accesses;
    /* Sampled accesses not yet applied to the stacks, oldest first (a ring).
     * See access_key: applying an access RD_LAG accesses after its map slots
     * were prefetched hides the latency of those slots. */
    struct rd_pending pending[RD_LAG];
    uint32_t pending_head, pending_count;
    int oom;
};

static void hist_add(struct rd_hist *to, const struct rd_hist *from)
{
    uint64_t *a = (uint64_t *)to;
    const uint64_t *b = (const uint64_t *)from;
    for (size_t i = 0; i < sizeof *to / sizeof(uint64_t); i++)
        a[i] += b[i];
}

static inline void record(const struct reuse_distance *rd, struct rd_hist *h, uint64_t d)
{
    h->sampled++;
    if (d == UINT64_MAX) {
        h->cold++;
        return;
    }
    if (rd->rate < 1.0)
        d = (uint64_t)((double)d * rd->scale);
    if (d < RD_EXACT_MAX)
        h->exact[d]++;
    uint32_t bucket = d ? 64 - (uint32_t)__builtin_clzll(d) : 0;
    h->log2[bucket]++;
    /* The number of MRC sizes <= d: those <= the bucket's lower bound, then
     * the few (usually none) between it and d. */
    uint32_t k = rd->mrc_below_log2[bucket];
    while (k < rd->nmrc && rd->mrc[k] <= d)
        k++;
    h->by_mrc[k]++;
}

/* Second prefetch stage: if key's slot is in its home line (the line the
 * first stage prefetched), prefetch the bitmap line of the key's last time,
 * the one line its reuse will read besides the slot. Looks no further than
 * that line, so it never waits for memory it did not ask for. The slot may
 * change before the access is applied (an access in between to the same key
 * makes its last time recent, its bitmap line already cached); a stale hint
 * costs nothing but the prefetch. */
static inline void prefetch_last_time(const struct rd_stack *s, uint64_t key, uint64_t h)
{
    const struct rd_slot *line = &s->slots[home_slot(s, h)];
    for (uint32_t i = 0; i < RD_SLOTS_PER_LINE && line[i].time_p1; i++)
        if (line[i].key == key) {
            __builtin_prefetch(&s->live[(line[i].time_p1 - 1) >> 6], 1);
            return;
        }
}

/* Applies one sampled access to the global stream and to its SM's. */
static void apply_access(struct reuse_distance *rd, const struct rd_pending *a)
{
    struct rd_stream *g = &rd->streams[rd->nstreams - 1];
    record(rd, &g->kernel, stack_access(&g->stack, a->key, a->hash, &rd->oom));
    if (a->sm < rd->nstreams - 1) {
        struct rd_stream *p = &rd->streams[a->sm];
        record(rd, &p->kernel, stack_access(&p->stack, a->key, a->hash, &rd->oom));
    }
}

/* Applies every pending access, in order; needed before any report or reset. */
static void drain_pending(struct reuse_distance *rd)
{
    for (; rd->pending_count; rd->pending_count--) {
        apply_access(rd, &rd->pending[rd->pending_head]);
        rd->pending_head = (rd->pending_head + 1) % RD_LAG;
    }
}

/* One access by SM `sm` to `key`.
 *
 * The stacks' map slots are spread over tables much larger than the host's
 * caches (tens of MB for a run with millions of distinct lines), so reading
 * a key's slot is a miss to DRAM that the out-of-order core cannot hide
 * behind the replay's work: the dependent probe comes right after. The
 * access is therefore software-pipelined: its slots in the global and the
 * SM's map are prefetched now and the access is applied RD_LAG accesses
 * later, in the same order, so the results are exactly those of applying it
 * at once (drain_pending runs before every report and reset). A prefetch made
 * stale by a map growth in between only costs the miss it was meant to hide. */
static inline void access_key(struct reuse_distance *rd, uint32_t sm, uint64_t key)
{
    rd->kernel_accesses[rd->nstreams - 1]++;
    if (sm < rd->nstreams - 1)
        rd->kernel_accesses[sm]++;
    uint64_t h = gcr_hash_splitmix64(key);
    /* The sampling decision uses the high hash bits, the map the low ones, so
     * the sampled keys still spread over the whole map. It comes before any
     * stack is touched, so a dropped access costs only the hash. */
    if (rd->rate < 1.0 && (h >> (64 - RD_SAMPLE_BITS)) >= rd->threshold)
        return;
    const struct rd_stack *gs = &rd->streams[rd->nstreams - 1].stack;
    __builtin_prefetch(&gs->slots[home_slot(gs, h)], 1);
    if (sm < rd->nstreams - 1) {
        const struct rd_stack *ps = &rd->streams[sm].stack;
        __builtin_prefetch(&ps->slots[home_slot(ps, h)], 1);
    }
    if (rd->pending_count == RD_LAG) {
        apply_access(rd, &rd->pending[rd->pending_head]);
        rd->pending_head = (rd->pending_head + 1) % RD_LAG;
        rd->pending_count--;
    }
    rd->pending[(rd->pending_head + rd->pending_count) % RD_LAG] =
        (struct rd_pending){.key = key, .hash = h, .sm = sm};
    rd->pending_count++;
    /* The access queued RD_LAG / 2 ago: its slot lines have had time to
     * arrive; start fetching the bitmap lines its application will read. */
    if (rd->pending_count > RD_LAG / 2) {
        const struct rd_pending *a =
            &rd->pending[(rd->pending_head + rd->pending_count - 1 - RD_LAG / 2) % RD_LAG];
        prefetch_last_time(&rd->streams[rd->nstreams - 1].stack, a->key, a->hash);
        if (a->sm < rd->nstreams - 1)
            prefetch_last_time(&rd->streams[a->sm].stack, a->key, a->hash);
    }
}

static void rd_on_event(void *self, const struct gcr_event *ev)
{
    struct reuse_distance *rd = self;
    if (ev->kind == GCR_EV_KERNEL_BEGIN) {
        drain_pending(rd);
        if (rd->reset_at_kernel)
            for (uint32_t i = 0; i < rd->nstreams; i++)
                stack_clear(&rd->streams[i].stack);
        return;
    }
    if (ev->kind != GCR_EV_L1_ACCESS)
        return;
    if (!rd->sector) {
        access_key(rd, ev->sm, ev->line_addr);
        return;
    }
    for (uint32_t m = ev->sector_mask; m; m &= m - 1)
        access_key(rd, ev->sm,
                   ev->line_addr + (uint64_t)__builtin_ctz(m) * rd->info->sector_bytes);
}

/* ------------------------------------------------------------------ create */

static int opt_fail(struct gcr_err *err, const struct gcr_sim_info *info, const char *key,
                    const char *what)
{
    return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.reuse_distance.%s: %s",
                    info->config->origin, key, what);
}

static void rd_destroy(void *self)
{
    struct reuse_distance *rd = self;
    if (!rd)
        return;
    for (uint32_t i = 0; rd->streams && i < rd->nstreams; i++)
        stack_free(&rd->streams[i].stack);
    free(rd->streams);
    free(rd->kernel_accesses);
    free(rd);
}

static int parse_options(struct reuse_distance *rd, const json_t *options,
                         const struct gcr_sim_info *info, struct gcr_err *err)
{
    const char *key;
    json_t *v;
    double rate = 1.0;
    json_object_foreach((json_t *)options, key, v) {
        if (strcmp(key, "granularity") == 0) {
            const char *s = json_string_value(v);
            if (!s || (strcmp(s, "line") != 0 && strcmp(s, "sector") != 0))
                return opt_fail(err, info, key, "expected \"line\" or \"sector\"");
            rd->sector = strcmp(s, "sector") == 0;
        } else if (strcmp(key, "sampling_rate") == 0) {
            if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 1)
                return opt_fail(err, info, key, "expected a number in (0, 1]");
            rate = json_number_value(v);
        } else if (strcmp(key, "reset_at_kernel") == 0) {
            if (!json_is_boolean(v))
                return opt_fail(err, info, key, "expected true or false");
            rd->reset_at_kernel = json_is_true(v);
        } else if (strcmp(key, "mrc_lines") == 0) {
            size_t n = json_array_size(v);
            if (!json_is_array(v) || n < 1 || n > RD_MAX_MRC)
                return opt_fail(err, info, key, "expected an array of 1 to 64 sizes");
            for (size_t i = 0; i < n; i++) {
                json_t *x = json_array_get(v, i);
                if (!json_is_integer(x) || json_integer_value(x) < 1 ||
                    (i && json_integer_value(x) <= (json_int_t)rd->mrc_lines[i - 1]) ||
                    json_integer_value(x) > ((json_int_t)1 << 40))
                    return opt_fail(err, info, key,
                                    "expected ascending positive integers (cache lines)");
                rd->mrc_lines[i] = (uint64_t)json_integer_value(x);
            }
            rd->nmrc = (uint32_t)n;
        } else {
            return opt_fail(err, info, key,
                            "unknown option (known: granularity, sampling_rate, mrc_lines, "
                            "reset_at_kernel)");
        }
    }
    rd->threshold = (uint64_t)llround(rate * (double)(1u << RD_SAMPLE_BITS));
    if (rd->threshold == 0)
        return opt_fail(err, info, "sampling_rate", "below the smallest rate, 2^-24");
    rd->rate = (double)rd->threshold / (double)(1u << RD_SAMPLE_BITS);
    rd->scale = 1.0 / rd->rate;
    return 0;
}

static int rd_create(void **self, const json_t *options, const struct gcr_sim_info *info,
                     struct gcr_err *err)
{
    struct reuse_distance *rd = calloc(1, sizeof *rd);
    if (!rd)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    rd->info = info;
    /* Default MRC sizes: powers of two, 64..65536 lines. */
    for (uint64_t c = 64; c <= 65536; c *= 2)
        rd->mrc_lines[rd->nmrc++] = c;
    if (parse_options(rd, options, info, err) != 0) {
        rd_destroy(rd);
        return -1;
    }
    uint32_t keys_per_line = rd->sector ? info->line_bytes / info->sector_bytes : 1;
    for (uint32_t i = 0; i < rd->nmrc; i++)
        rd->mrc[i] = rd->mrc_lines[i] * keys_per_line;
    for (uint32_t b = 0; b < RD_LOG2_BUCKETS; b++) {
        uint64_t low = b ? UINT64_C(1) << (b - 1) : 0;
        uint32_t k = 0;
        while (k < rd->nmrc && rd->mrc[k] <= low)
            k++;
        rd->mrc_below_log2[b] = (uint8_t)k;
    }
    rd->nstreams = info->num_sms + 1;
    rd->streams = calloc(rd->nstreams, sizeof *rd->streams);
    rd->kernel_accesses = calloc(rd->nstreams, sizeof *rd->kernel_accesses);
    if (!rd->streams || !rd->kernel_accesses) {
        rd_destroy(rd);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < rd->nstreams; i++)
        if (stack_init(&rd->streams[i].stack) != 0) {
            rd_destroy(rd);
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        }
    *self = rd;
    return 0;
}

/* ------------------------------------------------------------------ report */

/* A count in sampled units as an estimate of the full stream's count. */
static json_t *estimate(const struct reuse_distance *rd, uint64_t n)
{
    return json_integer((json_int_t)llround((double)n * rd->scale));
}

static json_t *hist_json(const struct reuse_distance *rd, const struct rd_hist *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "accesses", json_integer((json_int_t)h->accesses));
    json_object_set_new(o, "sampled_accesses", json_integer((json_int_t)h->sampled));
    json_object_set_new(o, "cold", estimate(rd, h->cold));
    json_t *exact = json_array();
    for (int i = 0; i < RD_EXACT_MAX; i++)
        json_array_append_new(exact, estimate(rd, h->exact[i]));
    json_object_set_new(o, "distance_exact", exact);
    int top = RD_LOG2_BUCKETS;
    while (top > 0 && !h->log2[top - 1])
        top--;
    json_t *log2 = json_array();
    for (int i = 0; i < top; i++)
        json_array_append_new(log2, estimate(rd, h->log2[i]));
    json_object_set_new(o, "distance_log2", log2);
    /* Miss ratio of a C-key LRU cache: (cold + reuses at distance >= C) / accesses.
     * Sampled: sampled misses / sampled accesses. (SHARDS' alternative, dividing
     * by rate x accesses, is off by the relative error of the sample's size,
     * which is large for a stream with few distinct lines, as one SM's often is.) */
    json_t *mrc = json_array();
    uint64_t misses = h->cold;
    for (uint32_t k = rd->nmrc + 1; k-- > 1;)
        misses += h->by_mrc[k];
    double denom = (double)h->sampled;
    for (uint32_t i = 0; i < rd->nmrc; i++) {
        double ratio = denom > 0 ? (double)misses / denom : 0.0;
        if (ratio > 1.0)
            ratio = 1.0;
        json_array_append_new(mrc, json_pack("{s:I, s:f}", "lines", (json_int_t)rd->mrc_lines[i],
                                             "miss_ratio", ratio));
        misses -= h->by_mrc[i + 1];
    }
    json_object_set_new(o, "mrc", mrc);
    return o;
}

static int rd_report(struct reuse_distance *rd, json_t *section, bool kernel,
                     struct gcr_err *err)
{
    drain_pending(rd);
    if (rd->oom)
        return gcr_fail(err, GCR_E_NOMEM, "reuse_distance: out of memory");
    json_object_set_new(section, "granularity", json_string(rd->sector ? "sector" : "line"));
    json_object_set_new(section, "sampling_rate", json_real(rd->rate));
    json_t *per_sm = json_array();
    for (uint32_t i = 0; i < rd->nstreams; i++) {
        struct rd_stream *s = &rd->streams[i];
        json_t *h = hist_json(rd, kernel ? &s->kernel : &s->total);
        if (i + 1 < rd->nstreams)
            json_array_append_new(per_sm, h);
        else
            json_object_set_new(section, "global", h);
    }
    json_object_set_new(section, "per_sm", per_sm);
    return 0;
}

static int rd_report_kernel(void *self, json_t *section, struct gcr_err *err)
{
    struct reuse_distance *rd = self;
    for (uint32_t i = 0; i < rd->nstreams; i++) {
        rd->streams[i].kernel.accesses = rd->kernel_accesses[i];
        rd->kernel_accesses[i] = 0;
    }
    int rc = rd_report(rd, section, true, err);
    for (uint32_t i = 0; i < rd->nstreams; i++) {
        hist_add(&rd->streams[i].total, &rd->streams[i].kernel);
        memset(&rd->streams[i].kernel, 0, sizeof rd->streams[i].kernel);
    }
    return rc;
}

static int rd_report_total(void *self, json_t *section, struct gcr_err *err)
{
    return rd_report(self, section, false, err);
}

const struct gcr_analysis_ops gcr_analysis_reuse_distance = {
    .name = "reuse_distance",
    .summary = "LRU stack distance of L1 requests per SM and global; miss-ratio curves",
    .subscribe = GCR_EV_L1_ACCESS | GCR_EV_KERNEL_BEGIN,
    .create = rd_create,
    .on_event = rd_on_event,
    .report_kernel = rd_report_kernel,
    .report_total = rd_report_total,
    .destroy = rd_destroy,
};
