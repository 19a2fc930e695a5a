/* reuse_distance: LRU stack distance of the L1 request stream, per SM and for
 * all SMs together, with the miss-ratio curve it predicts for fully
 * associative LRU caches. Definitions and report layout: README.md.
 *
 * Exact distances (Bennett-Kruskal): each key (a line, or a sector in sector
 * mode) remembers its last access time in each stream, and the times that
 * are still some key's last access are marked in a bitmap with a Fenwick tree
 * over 512-time blocks; the distance of an access is the number of marked
 * times after the key's previous time. Sampling (SHARDS) keeps a key iff
 * hash(key) mod P < T.
 *
 * Where the last times live (README.md, "Method" and "Cost"): in columns
 * indexed by line ids (gcreplay/idmap.h), so an access reads no hash table of
 * its own. Exact mode uses the replay's shared line ids, which the event
 * brings; sampled mode numbers only the sampled lines, in a map of its own.
 *  - global stream: one word per key, `global[id]`;
 *  - per-SM streams: the line's first SM keeps its times inline in
 *    `owners[id]` (most lines are only ever requested by one SM), any other
 *    SM's in a column of (SM, line) pairs found through a private idmap.
 * The time space of a stream grows with its accesses (1 bit each); when all
 * streams together hold many more times than live keys, every stream is
 * renumbered at once in one pass over the columns (compact_all). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "core/table_memory.h"
#include "gcreplay/analysis.h"
#include "gcreplay/options.h"

#define RD_EXACT_MAX 16     /* distances 0..15 are counted one by one */
#define RD_LOG2_BUCKETS 65  /* bucket 0: d = 0; bucket k: 2^(k-1) <= d < 2^k */
#define RD_MAX_MRC 64
#define RD_SAMPLE_BITS 24   /* P = 2^24 */

/* --------------------------------------------------------- stack distance */

/* Times are grouped in blocks of 512, one 64-byte host line of the bitmap. */
#define RD_BLOCK_SHIFT 9
#define RD_BLOCK_WORDS ((1u << RD_BLOCK_SHIFT) / 64)
#define RD_MIN_CAP 4096u /* times; a power of two, a multiple of the block size */
/* A stream's clock may not pass this (times are 32-bit; a request adds at
 * most 32 times to a stream, so the check before each one leaves room). */
#define RD_MAX_TIME (UINT32_C(1) << 31)
/* Every stream is renumbered once the streams' clocks add up to more than
 * RD_SLACK times their live keys plus RD_SLACK_FLOOR: a renumbering costs a
 * pass over every key, so it comes at most every (RD_SLACK - 1) x keys
 * accesses, while the bitmaps stay within about RD_SLACK bits per key. */
#define RD_SLACK 16u
#define RD_SLACK_FLOOR (UINT64_C(1) << 20)

/* One access stream's live times: bit t of `live` is set iff t is some key's
 * last access time, and the number of live times of each 512-time block is
 * kept in a Fenwick tree over blocks. The distance of a reuse whose previous
 * access was at `last` is the number of live times after `last`: live keys
 * minus (the live times of the blocks before last's, a Fenwick prefix) minus
 * (the live times of last's block up to last, a popcount of one host line).
 * The block Fenwick has one entry per 512 times, so it stays in the host's
 * caches; a reuse touches one host line unlikely to be cached besides the
 * key's own time: the bitmap line of its previous time.
 *
 * The clock runs on (`now`), the space doubling when it fills (a doubled
 * Fenwick tree is the old one, zeros, and the total in its last entry).
 * Times below `base` are dead: reset_at_kernel empties a stack by clearing
 * its bits and moving base to now, without touching the keys' words. */
struct rd_stack {
    uint64_t *live;     /* bitmap over times 0..cap-1 */
    uint32_t *fen;      /* Fenwick tree over blocks, 1-based: fen[1..cap/512] */
    uint32_t cap;       /* a power of two >= RD_MIN_CAP */
    uint32_t now;       /* next time */
    uint32_t base;      /* times before it belong to no key */
    uint32_t keys;      /* live keys = live times */
    /* The Fenwick tree counts only the blocks before folded_blocks, whose
     * times are all in the past; the block `now` is filling is added once,
     * when `now` leaves it, so the +1 of every access costs no tree update.
     * folded_live: live times in those blocks (the tree's total). */
    uint32_t folded_blocks;
    uint32_t folded_live;
};

static size_t live_bytes(uint32_t cap) { return (size_t)cap / 8; }
static size_t fen_bytes(uint32_t cap) { return ((size_t)(cap >> RD_BLOCK_SHIFT) + 1) * sizeof(uint32_t); }

/* Zero-filled memory (huge pages for the large ones); free with gcr_table_free. */
static void *zalloc(size_t bytes)
{
    return gcr_table_alloc(bytes);
}

static void stack_free(struct rd_stack *s)
{
    gcr_table_free(s->live, live_bytes(s->cap));
    gcr_table_free(s->fen, fen_bytes(s->cap));
    s->live = NULL;
    s->fen = NULL;
}

/* A zero-filled time space of cap times (bitmap and tree) in *live and
 * *fen, or -1 with nothing allocated. */
static int space_alloc(uint32_t cap, uint64_t **live, uint32_t **fen)
{
    *live = zalloc(live_bytes(cap));
    *fen = zalloc(fen_bytes(cap));
    if (*live && *fen)
        return 0;
    gcr_table_free(*live, live_bytes(cap));
    gcr_table_free(*fen, fen_bytes(cap));
    return -1;
}

/* s's time space becomes (live, fen) of cap times, the old one freed. */
static void space_replace(struct rd_stack *s, uint64_t *live, uint32_t *fen, uint32_t cap)
{
    stack_free(s);
    s->live = live;
    s->fen = fen;
    s->cap = cap;
}

static int stack_init(struct rd_stack *s, uint32_t cap)
{
    memset(s, 0, sizeof *s);
    s->cap = cap;
    return space_alloc(cap, &s->live, &s->fen);
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

static uint32_t block_live(const uint64_t *live, uint32_t b)
{
    uint32_t n = 0;
    for (uint32_t w = 0; w < RD_BLOCK_WORDS; w++)
        n += gcr_bits_popcount64(live[(size_t)b * RD_BLOCK_WORDS + w]);
    return n;
}

/* Doubles the time space. */
static int stack_grow(struct rd_stack *s)
{
    uint32_t cap = s->cap * 2;
    uint64_t *live;
    uint32_t *fen;
    if (space_alloc(cap, &live, &fen) != 0)
        return -1;
    memcpy(live, s->live, live_bytes(s->cap));
    memcpy(fen, s->fen, fen_bytes(s->cap));
    /* Entry 2n covers every block: the total; those between n and 2n cover
     * only new, empty blocks. */
    fen[cap >> RD_BLOCK_SHIFT] = s->folded_live;
    space_replace(s, live, fen, cap);
    return 0;
}

/* One access to the key whose last time + 1 is *tp1 (0: none). Returns its
 * stack distance: the number of distinct other keys since its previous
 * access, or UINT64_MAX if first. */
static uint64_t stack_access(struct rd_stack *s, uint32_t *tp1, int *oom)
{
    if (s->now == s->cap && stack_grow(s) != 0) {
        *oom = 1;
        return UINT64_MAX;
    }
    uint64_t d;
    uint32_t t = s->now++;
    uint32_t nblocks = s->cap >> RD_BLOCK_SHIFT;
    if (t >> RD_BLOCK_SHIFT > s->folded_blocks) {
        /* t starts a new block: fold the previous one, now complete, into the
         * tree. (now advances one time per access and starts at a block's
         * start after a renumbering, so one block at most.) */
        uint32_t b = s->folded_blocks++;
        uint32_t n = block_live(s->live, b);
        fen_add(s->fen, nblocks, b, (int32_t)n);
        s->folded_live += n;
    }
    uint32_t v = *tp1;
    if (v && v - 1 >= s->base) {
        uint32_t last = v - 1;
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
    }
    *tp1 = t + 1;
    s->live[t >> 6] |= UINT64_C(1) << (t & 63);
    return d;
}

/* Empties the stack (reset_at_kernel): no live time, every key's word dead. */
static void stack_reset(struct rd_stack *s)
{
    memset(s->live, 0, live_bytes(s->cap));
    memset(s->fen, 0, fen_bytes(s->cap));
    s->base = s->now;
    s->keys = 0;
    s->folded_live = 0;
}

/* The rank of each block's first time among the live times: what a key's
 * time becomes when the stack is renumbered 0, 1, 2, ... in order. */
static uint32_t *stack_ranks(const struct rd_stack *s)
{
    uint32_t blocks = s->cap >> RD_BLOCK_SHIFT;
    uint32_t *before = malloc((size_t)blocks * sizeof *before);
    if (!before)
        return NULL;
    uint32_t sum = 0;
    for (uint32_t b = 0; b < blocks; b++) {
        before[b] = sum;
        sum += block_live(s->live, b);
    }
    return before;
}

/* The key word *tp1 in the renumbered stack: its rank + 1, or 0 if dead. */
static inline void renumber(const struct rd_stack *s, const uint32_t *before, uint32_t *tp1)
{
    uint32_t v = *tp1;
    if (!v || v - 1 < s->base) {
        *tp1 = 0;
        return;
    }
    uint32_t t = v - 1;
    *tp1 = before[t >> RD_BLOCK_SHIFT] + live_in_block_before(s->live, t) + 1;
}

/* After every key word of s was renumbered: the live times are now
 * 0..keys-1 (whole blocks, then a partial one) in a space of its own size. */
static int stack_rebuild(struct rd_stack *s)
{
    uint32_t cap = RD_MIN_CAP;
    while (cap < 2 * (uint64_t)s->keys)
        cap *= 2;
    uint64_t *live;
    uint32_t *fen;
    if (space_alloc(cap, &live, &fen) != 0)
        return -1;
    for (uint32_t w = 0; w < s->keys / 64; w++)
        live[w] = UINT64_MAX;
    if (s->keys % 64)
        live[s->keys / 64] = (UINT64_C(1) << (s->keys % 64)) - 1;
    /* The whole blocks are folded into the tree; the partial one is where
     * `now` continues. */
    uint32_t folded = s->keys >> RD_BLOCK_SHIFT, blocks = cap >> RD_BLOCK_SHIFT;
    for (uint32_t b = 0; b < folded; b++)
        fen[b + 1] = 1u << RD_BLOCK_SHIFT;
    /* Linear-time Fenwick build from the block counts. */
    for (uint32_t i = 1; i <= blocks; i++) {
        uint32_t parent = i + (i & -i);
        if (parent <= blocks)
            fen[parent] += fen[i];
    }
    space_replace(s, live, fen, cap);
    s->now = s->keys;
    s->base = 0;
    s->folded_blocks = folded;
    s->folded_live = folded << RD_BLOCK_SHIFT;
    return 0;
}

/* ------------------------------------------------------------- histograms */

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

    /* Where the keys' last times are (see the top of the file). A column
     * word holds a time + 1 (0: none); `spl` words per line, one per
     * sector in sector mode. */
    uint32_t spl;
    struct gcr_idmap *ids;     /* the shared line ids, or own_ids when sampling */
    struct gcr_idmap own_ids;  /* sampled mode: sampled lines only */
    bool own_ids_used;
    struct gcr_column *global; /* line id -> spl words of the global stream */
    struct gcr_column *owners; /* line id -> its first SM + 1, then spl words of its stream */
    struct gcr_idmap pairs;    /* (SM, line id) -> pair id, for the other SMs */
    bool pairs_used;
    struct gcr_column *others; /* pair id -> spl words of that SM's stream */
    /* For renumbering: the clocks of all streams together and their keys. */
    uint64_t clock_total, keys_total;
    uint32_t clock_max;
    int oom;
};

/* The word of the key (line `id`, sector `k`) in SM sm's stream. */
static uint32_t *sm_word(struct reuse_distance *rd, uint32_t id, uint32_t sm, uint32_t k)
{
    uint32_t *o = gcr_column_at(rd->owners, id);
    if (o[0] == sm + 1)
        return &o[1 + k];
    if (!o[0]) {
        o[0] = sm + 1;
        return &o[1 + k];
    }
    uint32_t pair = gcr_idmap_get(&rd->pairs, (uint64_t)sm << 32 | id);
    if (pair == GCR_IDMAP_NONE)
        return NULL;
    return (uint32_t *)gcr_column_at(rd->others, pair) + k;
}

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

/* One access of stream `st` to the key whose word is w. */
static void stream_access(struct reuse_distance *rd, uint32_t st, uint32_t *w)
{
    struct rd_stream *s = &rd->streams[st];
    if (!w) {
        rd->oom = 1;
        return;
    }
    uint32_t keys = s->stack.keys;
    record(rd, &s->kernel, stack_access(&s->stack, w, &rd->oom));
    rd->keys_total += s->stack.keys - keys;
    rd->clock_total++;
    if (s->stack.now > rd->clock_max)
        rd->clock_max = s->stack.now;
}

/* Renumbers every stream at once (struct rd_stack): one pass over each
 * column's key words, each turned into its rank among its stream's live
 * times. */
static int compact_all(struct reuse_distance *rd)
{
    uint32_t **before = calloc(rd->nstreams, sizeof *before);
    int rc = before ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < rd->nstreams; i++)
        if (!(before[i] = stack_ranks(&rd->streams[i].stack)))
            rc = -1;
    const struct rd_stack *g = &rd->streams[rd->nstreams - 1].stack;
    for (uint32_t id = 0; rc == 0 && id < rd->ids->count; id++) {
        uint32_t *w = gcr_column_at(rd->global, id);
        for (uint32_t k = 0; k < rd->spl; k++)
            renumber(g, before[rd->nstreams - 1], &w[k]);
        uint32_t *o = gcr_column_at(rd->owners, id);
        for (uint32_t k = 0; o[0] && k < rd->spl; k++)
            renumber(&rd->streams[o[0] - 1].stack, before[o[0] - 1], &o[1 + k]);
    }
    /* Pairs: the map's keys say which SM's stream a pair's words belong to. */
    for (uint32_t i = 0; rc == 0 && rd->pairs_used && i <= rd->pairs.mask; i++) {
        const struct gcr_idmap_slot *slot = &rd->pairs.slots[i];
        if (!slot->stored || !slot->ids.id_p1)
            continue;
        uint32_t sm = (uint32_t)((slot->stored - 1) >> 32);
        uint32_t *w = gcr_column_at(rd->others, slot->ids.id_p1 - 1);
        for (uint32_t k = 0; k < rd->spl; k++)
            renumber(&rd->streams[sm].stack, before[sm], &w[k]);
    }
    rd->clock_total = rd->clock_max = 0;
    for (uint32_t i = 0; rc == 0 && i < rd->nstreams; i++) {
        struct rd_stack *s = &rd->streams[i].stack;
        rc = stack_rebuild(s);
        rd->clock_total += s->now;
        if (s->now > rd->clock_max)
            rd->clock_max = s->now;
    }
    for (uint32_t i = 0; before && i < rd->nstreams; i++)
        free(before[i]);
    free(before);
    return rc;
}

/* One L1 request: each of its keys is an access of the global stream and of
 * the requesting SM's. */
static void on_access(struct reuse_distance *rd, const struct gcr_event *ev)
{
    uint32_t sm = ev->sm;
    bool per_sm = sm < rd->nstreams - 1;
    uint32_t keys = rd->sector ? (uint32_t)__builtin_popcount(ev->sector_mask) : 1;
    rd->kernel_accesses[rd->nstreams - 1] += keys;
    if (per_sm)
        rd->kernel_accesses[sm] += keys;
    /* Room for this request's times in every stream, and a renumbering once
     * the clocks run far ahead of the live keys. */
    if (rd->clock_max >= RD_MAX_TIME - 64 ||
        rd->clock_total > RD_SLACK * rd->keys_total + RD_SLACK_FLOOR) {
        if (compact_all(rd) != 0) {
            rd->oom = 1;
            return;
        }
    }
    uint32_t id = GCR_IDMAP_NONE;
    for (uint32_t m = rd->sector ? ev->sector_mask : 1; m; m &= m - 1) {
        uint32_t k = rd->sector ? (uint32_t)__builtin_ctz(m) : 0;
        uint64_t key = ev->line_addr + (uint64_t)k * rd->info->sector_bytes;
        /* The sampling decision uses the high hash bits; it comes before any
         * stack is touched, so a dropped access costs only the hash. */
        if (rd->rate < 1.0 &&
            (gcr_hash_splitmix64(key) >> (64 - RD_SAMPLE_BITS)) >= rd->threshold)
            continue;
        if (id == GCR_IDMAP_NONE)
            id = rd->own_ids_used ? gcr_idmap_get(&rd->own_ids, ev->line_addr) : ev->line_id;
        if (id == GCR_IDMAP_NONE) {
            rd->oom = 1;
            return;
        }
        stream_access(rd, rd->nstreams - 1, (uint32_t *)gcr_column_at(rd->global, id) + k);
        if (per_sm)
            stream_access(rd, sm, sm_word(rd, id, sm, k));
    }
}

static void rd_on_event(void *self, const struct gcr_event *ev)
{
    struct reuse_distance *rd = self;
    if (ev->kind == GCR_EV_KERNEL_BEGIN) {
        if (rd->reset_at_kernel)
            for (uint32_t i = 0; i < rd->nstreams; i++) {
                rd->keys_total -= rd->streams[i].stack.keys;
                stack_reset(&rd->streams[i].stack);
            }
        return;
    }
    if (ev->kind == GCR_EV_L1_ACCESS)
        on_access(rd, ev);
}

/* An access reads, per stream, the key's word (the bus fetches the line's
 * column entries before stage 0) and the bitmap line of the key's previous
 * time (stage 1, once the word is cached); another SM's word is in a pair,
 * whose map slot stage 1 fetches instead. Exact mode only: a sampled access
 * is cheap. */
/* Sampled, the hook has nothing to fetch: no calls at all. */
static unsigned rd_prefetch_kinds(const void *self, int stage)
{
    const struct reuse_distance *rd = self;
    return stage == 1 && !rd->own_ids_used ? GCR_EV_L1_ACCESS : 0;
}

static void rd_prefetch(void *self, const struct gcr_event *ev, int stage)
{
    struct reuse_distance *rd = self;
    (void)stage; /* stage 1 of L1 accesses only */
    if (ev->line_id == GCR_IDMAP_NONE || rd->own_ids_used)
        return;
    uint32_t id = ev->line_id, sm = ev->sm;
    bool per_sm = sm < rd->nstreams - 1;
    const uint32_t *g = gcr_column_at(rd->global, id);
    const uint32_t *o = gcr_column_at(rd->owners, id);
    uint32_t k = rd->sector && ev->sector_mask ? (uint32_t)__builtin_ctz(ev->sector_mask) : 0;
    const struct rd_stack *gs = &rd->streams[rd->nstreams - 1].stack;
    if (g[k] && g[k] - 1 >= gs->base && g[k] - 1 < gs->cap)
        __builtin_prefetch(&gs->live[(g[k] - 1) >> 6], 1);
    if (!per_sm || !o[0])
        return;
    if (o[0] != sm + 1) {
        gcr_idmap_prefetch(&rd->pairs, (uint64_t)sm << 32 | id);
        return;
    }
    const struct rd_stack *ps = &rd->streams[sm].stack;
    if (o[1 + k] && o[1 + k] - 1 >= ps->base && o[1 + k] - 1 < ps->cap)
        __builtin_prefetch(&ps->live[(o[1 + k] - 1) >> 6], 1);
}

/* ------------------------------------------------------------------ create */

static int opt_fail(struct gcr_err *err, const struct gcr_sim_info *info, const char *key,
                    const char *what)
{
    return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.reuse_distance.%s: %s",
                    info->config->origin, key, what);
}

static int parse_options(struct reuse_distance *rd, const json_t *options,
                         const struct gcr_sim_info *info, struct gcr_err *err)
{
    static const char *const granularities[] = {"line", "sector"};
    struct gcr_opts o;
    int granularity = rd->sector ? 1 : 0;
    double rate = 1.0;
    gcr_opts_begin(&o, info->config->origin, "$.analyses.reuse_distance", options);
    if (gcr_opts_enum(&o, "granularity", granularities, 2, &granularity, err) != 0)
        return -1;
    rd->sector = granularity == 1;
    /* The rate is in (0, 1]: gcr_opts_real's closed interval would take 0. */
    const json_t *v = gcr_opts_get(&o, "sampling_rate");
    if (v) {
        if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 1)
            return opt_fail(err, info, "sampling_rate", "expected a number in (0, 1]");
        rate = json_number_value(v);
    }
    if ((v = gcr_opts_get(&o, "mrc_lines"))) {
        size_t n = json_array_size(v);
        if (!json_is_array(v) || n < 1 || n > RD_MAX_MRC)
            return opt_fail(err, info, "mrc_lines", "expected an array of 1 to 64 sizes");
        for (size_t i = 0; i < n; i++) {
            json_t *x = json_array_get(v, i);
            if (!json_is_integer(x) || json_integer_value(x) < 1 ||
                (i && json_integer_value(x) <= (json_int_t)rd->mrc_lines[i - 1]) ||
                json_integer_value(x) > ((json_int_t)1 << 40))
                return opt_fail(err, info, "mrc_lines",
                                "expected ascending positive integers (cache lines)");
            rd->mrc_lines[i] = (uint64_t)json_integer_value(x);
        }
        rd->nmrc = (uint32_t)n;
    }
    if (gcr_opts_bool(&o, "reset_at_kernel", &rd->reset_at_kernel, err) != 0 ||
        gcr_opts_done(&o, err) != 0)
        return -1;
    rd->threshold = (uint64_t)llround(rate * (double)(1u << RD_SAMPLE_BITS));
    if (rd->threshold == 0)
        return opt_fail(err, info, "sampling_rate", "below the smallest rate, 2^-24");
    rd->rate = (double)rd->threshold / (double)(1u << RD_SAMPLE_BITS);
    rd->scale = 1.0 / rd->rate;
    return 0;
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
    if (rd->pairs_used)
        gcr_idmap_fini(&rd->pairs);
    if (rd->own_ids_used)
        gcr_idmap_fini(&rd->own_ids);
    free(rd);
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
        if (stack_init(&rd->streams[i].stack, RD_MIN_CAP) != 0) {
            rd_destroy(rd);
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        }
    /* The keys' words: in columns of the shared line ids, or, sampling, of
     * ids of the sampled lines only (so memory follows the sample). */
    rd->spl = keys_per_line;
    rd->ids = info->lines;
    if (rd->rate < 1.0) {
        unsigned shift = (unsigned)__builtin_ctz(info->line_bytes ? info->line_bytes : 1);
        if (gcr_idmap_init(&rd->own_ids, shift, 0, err) != 0) {
            rd_destroy(rd);
            return -1;
        }
        rd->own_ids_used = true;
        rd->ids = &rd->own_ids;
    }
    if (gcr_idmap_init(&rd->pairs, 0, 0, err) != 0) {
        rd_destroy(rd);
        return -1;
    }
    rd->pairs_used = true;
    if (!(rd->global = gcr_idmap_add_column(rd->ids, rd->spl * sizeof(uint32_t), err)) ||
        !(rd->owners = gcr_idmap_add_column(rd->ids, (1 + rd->spl) * sizeof(uint32_t), err)) ||
        !(rd->others = gcr_idmap_add_column(&rd->pairs, rd->spl * sizeof(uint32_t), err))) {
        rd_destroy(rd);
        return -1;
    }
    /* The bus fetches a request's words ahead (columns of the shared map only). */
    rd->global->prefetch_kinds = rd->owners->prefetch_kinds = GCR_EV_L1_ACCESS;
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

/* The run's table: the median reuse distance of the global stream, as the power of two it is
 * below (the histogram's resolution): half of the reuses find their line (or sector) among
 * fewer distinct ones since its last use. Cold accesses are no reuses and do not count. */
static const char *const rd_headline_labels[] = {"RD-med", NULL};

static void rd_headline(const json_t *section, char text[][GCR_HEADLINE_TEXT])
{
    const json_t *log2 = json_object_get(json_object_get(section, "global"), "distance_log2");
    double total = 0, seen = 0;
    size_t b;
    const json_t *n;
    json_array_foreach(log2, b, n)
        total += json_number_value(n);
    snprintf(text[0], GCR_HEADLINE_TEXT, "-");
    if (!(total > 0))
        return;
    json_array_foreach(log2, b, n) {
        seen += json_number_value(n);
        if (2 * seen >= total) { /* bucket 0: distance 0; bucket b: [2^(b-1), 2^b) */
            if (b == 0)
                snprintf(text[0], GCR_HEADLINE_TEXT, "0");
            else
                snprintf(text[0], GCR_HEADLINE_TEXT, "<%llu", 1ull << (b < 63 ? b : 63));
            return;
        }
    }
}

static const struct gcr_analysis_speed rd_speed = {
    .prefetch = rd_prefetch,
    .prefetch_stage1 = GCR_EV_L1_ACCESS,
    .prefetch_kinds = rd_prefetch_kinds,
};

const struct gcr_analysis_ops gcr_analysis_reuse_distance = {
    .name = "reuse_distance",
    .summary = "LRU stack distance of L1 requests per SM and global; miss-ratio curves",
    .subscribe = GCR_EV_L1_ACCESS | GCR_EV_KERNEL_BEGIN,
    .create = rd_create,
    .on_event = rd_on_event,
    .report_kernel = rd_report_kernel,
    .report_total = rd_report_total,
    .destroy = rd_destroy,
    .headline_labels = rd_headline_labels,
    .headline = rd_headline,
    .speed = &rd_speed,
};
