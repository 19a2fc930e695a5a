/* sharing: which SMs, clusters of SMs and chips touch each line of a kernel,
 * and SAC's true / false / not-shared split (see README.md for definitions).
 *
 * What decides the cost is not arithmetic but host cache lines: a kernel
 * touches millions of lines, so each line touched for the first time is a
 * miss. The design keeps that to one host line per touched line:
 *
 * - A line's state is one word in a column of the analysis's own line ids
 *   (gcreplay/idmap.h; its own, since it gets instructions as the replay
 *   emits them, at_emission, not through the bus's queue, whose per-event
 *   work would cost as much as the analysis's): the kernel it was last
 *   touched in, and everything about the common line, touched by one SM of one chip on one contiguous
 *   byte range (lo..hi). A line first touched just now
 *   finds its state next to that of the lines touched just before it. A line
 *   touched by a second SM or chip, or on bytes that are not one range, gets
 *   an extended record (X_* words in `exts`: chips, the union and the first
 *   chip's bytes, the set of SMs; 64 bytes for 128-byte lines and 80 SMs).
 *   Bytes of chips other than a line's first live in a table keyed by (line,
 *   chip), and only until the line is known to have a byte touched by two
 *   chips: after that, per-chip bytes no longer change any result.
 * - The state of a line from an earlier kernel is stale, not cleared: the
 *   kernel's lines are listed as they are first touched, and that list is
 *   all the kernel's end reads and clears.
 * - Each line an instruction touches is an update applied at least
 *   3 x PIPE_GAP updates later, once its slot in the id map, the word of its id and its
 *   state word were fetched (struct pending).
 * - Clusters, pages and histograms are derived at the kernel's end in one
 *   pass over the kernel's lines (page records are prefetched PREFETCH_AHEAD
 *   lines ahead). Every figure is a union, a set or a count, and the "some
 *   byte touched by two chips" test does not depend on the order in which
 *   chips came (the second chip to touch a byte always sees the first one's),
 *   so the order of the lines changes nothing. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "core/chunks.h"
#include "core/table_memory.h"
#include "gcreplay/analysis.h"
#include "gcreplay/options.h"

#define MASK_WORDS 4                /* byte masks: lines of up to 256 bytes */
#define MAX_CHIPS 64                /* chip sets are one 64-bit word */
#define MAX_BUCKETS 34              /* histogram buckets: 1, 2, 3-4, ..., up to 2^32 */
#define RING 128                    /* line updates in flight (a power of two) */
/* Updates wait PIPE_GAP updates between the stages of their line's lookup
 * (see struct pending), at most 3 x PIPE_GAP of them after the instruction
 * that made them. */
#define PIPE_GAP 8
#define PREFETCH_AHEAD 16           /* page slots prefetched ahead when summing up */

/* A table of fixed-size slots of `words` 64-bit words; word 0 is the key
 * (a line or page address with bit 0 set, so 0 marks a free slot and fresh
 * zeroed memory is an empty table), word 1 a second key part or payload, the
 * rest payload. Linear probing, never deleted from (cleared per kernel),
 * grown at 70% load. Callers pass the key's hash (table_hash) so that it can
 * be computed once, when the slot is prefetched.
 *
 * A key's probe starts at the slot given by the TOP bits of its hash, so the
 * slots hold keys in about hash order and doubling the table sends slot i to
 * about slot 2i: growing reads the old table and writes the new one
 * sequentially instead of missing the cache once per key. The price: a
 * table filled in the slot order of another table with the same hash would
 * get its keys in ascending home order, all piled into one run; so every
 * table has its own `seed` (the page table is filled in line-table order). */
struct table {
    uint64_t *slots;
    size_t cap;     /* power of two, slots */
    unsigned shift; /* 64 - log2(cap): a hash's home slot is hash >> shift */
    size_t count;
    size_t words;   /* per slot */
    bool key2;      /* word 1 is part of the key */
    uint64_t seed;  /* mixed into the hash */
};

static inline uint64_t key_of(uint64_t addr)
{
    return addr | 1; /* line and page addresses are aligned: bit 0 is free */
}

static inline uint64_t table_hash(const struct table *t, uint64_t k0, uint64_t k1)
{
    return gcr_hash_fmix64(k0 ^ t->seed ^ (k1 * 0x9e3779b97f4a7c15ull));
}

static int table_init(struct table *t, size_t cap, size_t words, bool key2, uint64_t seed)
{
    t->slots = gcr_table_alloc(cap * words * sizeof *t->slots);
    if (!t->slots)
        return -1;
    t->cap = cap;
    t->shift = 64 - gcr_bits_log2(cap);
    t->count = 0;
    t->words = words;
    t->key2 = key2;
    t->seed = seed;
    return 0;
}

static void table_free(struct table *t)
{
    gcr_table_free(t->slots, t->cap * t->words * sizeof *t->slots);
    t->slots = NULL;
}

/* Asks the CPU to fetch the slot a key's probe starts at (and the next one,
 * in case the probe runs into the following host line). */
static inline void table_prefetch(const struct table *t, uint64_t hash)
{
    size_t i = (size_t)(hash >> t->shift);
    __builtin_prefetch(t->slots + i * t->words, 1);
    __builtin_prefetch(t->slots + ((i + 1) & (t->cap - 1)) * t->words, 1);
}

static inline bool slot_is(const struct table *t, const uint64_t *s, uint64_t k0, uint64_t k1)
{
    return s[0] == k0 && (!t->key2 || s[1] == k1);
}

/* Copies a slot into a table that does not hold its key, at its first free
 * slot from `home`. */
static void table_put(struct table *t, const uint64_t *from, size_t home)
{
    size_t j = home;
    while (t->slots[j * t->words])
        j = (j + 1) & (t->cap - 1);
    memcpy(t->slots + j * t->words, from, t->words * sizeof *from);
}

/* Doubles the table, moving the slots in order (so, sequentially: see
 * struct table). */
static int table_grow(struct table *t)
{
    struct table bigger;
    if (table_init(&bigger, t->cap * 2, t->words, t->key2, t->seed) != 0)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        const uint64_t *s = t->slots + i * t->words;
        if (s[0])
            table_put(&bigger, s, (size_t)(table_hash(t, s[0], t->key2 ? s[1] : 0) >> bigger.shift));
    }
    bigger.count = t->count;
    table_free(t);
    *t = bigger;
    return 0;
}

/* The slot of (k0, k1) (k1 ignored without key2), inserted with a zero payload
 * if absent; NULL if out of memory. `hash` is table_hash(t, k0, k1) (k1 = 0
 * without key2). */
static uint64_t *table_get(struct table *t, uint64_t k0, uint64_t k1, uint64_t hash,
                           bool *inserted)
{
    size_t i = (size_t)(hash >> t->shift);
    for (;;) {
        uint64_t *s = t->slots + i * t->words;
        if (slot_is(t, s, k0, k1)) {
            *inserted = false;
            return s;
        }
        if (!s[0])
            break;
        i = (i + 1) & (t->cap - 1);
    }
    if ((t->count + 1) * 10 > t->cap * 7) {
        if (table_grow(t) != 0)
            return NULL;
        return table_get(t, k0, k1, hash, inserted);
    }
    uint64_t *s = t->slots + i * t->words;
    s[0] = k0;
    if (t->key2)
        s[1] = k1;
    t->count++;
    *inserted = true;
    return s;
}

/* Empties the table for the next kernel; a table much larger than what the
 * last kernel needed is replaced by a small one, so clearing and reporting a
 * kernel cost in proportion to that kernel's lines, not the largest kernel's. */
static int table_reset(struct table *t, size_t min_cap)
{
    if (t->cap > min_cap && t->count * 8 < t->cap) {
        size_t cap = min_cap;
        while (cap * 7 < t->count * 20)
            cap *= 2;
        table_free(t);
        return table_init(t, cap, t->words, t->key2, t->seed);
    }
    memset(t->slots, 0, t->cap * t->words * sizeof *t->slots);
    t->count = 0;
    return 0;
}

/* A line's state is one word: the kernel that last touched it (its stamp,
 * in bits 47-62; another stamp means untouched this kernel) and its entry.
 * The entry of a common line (one SM, one chip, one contiguous byte range)
 * packs all of it:
 *   bits 0-7 first byte touched, 8-15 last byte touched (lines <= 256 bytes),
 *   16-21 chip, 22-34 SM (the configuration allows at most 4096 SMs);
 * any other line's entry is ENTRY_EXT | the index of its extended record.
 * Stamps are 1..STAMP_MAX, kernel after kernel; when they run out, every
 * line's word is cleared, so a stale stamp is never mistaken for the
 * current one. */
#define STAMP_SHIFT 47
#define STAMP_MAX 0xffffu
#define ENTRY_EXT (1ull << 63)
#define ENTRY_BITS ((1ull << STAMP_SHIFT) - 1) /* of a common entry, or an index */
#define ENTRY_OWNER_SHIFT 16 /* chip and SM: the bits two updates must share to stay common */

static inline uint64_t entry_make(uint32_t sm, uint32_t chip, uint32_t lo, uint32_t hi)
{
    return lo | (uint64_t)hi << 8 | (uint64_t)chip << 16 | (uint64_t)sm << 22;
}
static inline uint64_t entry_of(uint64_t word) { return word & (ENTRY_EXT | ENTRY_BITS); }
static inline uint32_t stamp_of(uint64_t word) { return (uint32_t)(word >> STAMP_SHIFT) & STAMP_MAX; }
static inline uint32_t entry_lo(uint64_t e) { return (uint32_t)(e & 0xff); }
static inline uint32_t entry_hi(uint64_t e) { return (uint32_t)(e >> 8 & 0xff); }
static inline uint32_t entry_chip(uint64_t e) { return (uint32_t)(e >> 16 & 0x3f); }
static inline uint32_t entry_sm(uint64_t e) { return (uint32_t)(e >> 22 & 0x1fff); }

/* Extended line record (words of `exts`, ext_words each): the chips that
 * touched the line (bit per chip); the first chip (bits 0-7) and whether some
 * byte was touched by two chips (FLAG_BYTE_SHARED); then mask_words of bytes
 * touched by anyone, mask_words of bytes touched by the first chip, and
 * sm_words of SMs (bit per SM). */
enum { X_CHIPS = 0, X_FLAGS = 1, X_UNION = 2 };
#define FLAG_BYTE_SHARED (1ull << 8)

/* Bytes of the chips other than a line's first: key (line, chip), then the mask. */
enum { O_MASK = 2 };

/* Page slot (built at report time), 16 bytes: key (page) and P_INFO: the
 * chip of its first line seen (bits 0-5), whether any other chip touched it
 * (PAGE_SEVERAL_CHIPS), whether some byte of it was touched by two chips
 * (FLAG_BYTE_SHARED), and from bit PAGE_COUNT_SHIFT how many of its lines one
 * chip only touched (their SAC class is the page's). */
enum { P_INFO = 1, P_WORDS = 2 };
#define PAGE_SEVERAL_CHIPS (1ull << 6)
#define PAGE_COUNT_SHIFT 16

#define MIN_CAP 1024

/* Figures of one kernel or of the whole run (the sum of the kernels). */
struct sharing_counts {
    uint64_t lines, bytes;
    uint64_t sms_hist[MAX_BUCKETS], clusters_hist[MAX_BUCKETS], chips_hist[MAX_BUCKETS];
    /* [0] not shared, [1] false sharing, [2] true sharing, in bytes */
    uint64_t sac[3], line_cls[3], page_cls[3];
    uint64_t pages;
};
GCR_U64_COUNTERS(struct sharing_counts, 2 + 3 * MAX_BUCKETS + 9 + 1);

/* A line touched by one instruction, applied some updates later: this
 * analysis gets instructions as the replay emits them (at_emission), before
 * any of their lines' state is in the host's caches, so each update goes
 * through stages PIPE_GAP updates apart, each fetching what the next reads:
 * pushed (the line map's slot), found (`word`, the leaf word of its id),
 * resolved (`id`; its state word), applied. */
struct pending {
    uint64_t line;
    uint32_t *word; /* found: where the line map keeps the line's id + 1 */
    uint32_t id;    /* resolved: the line's id (GCR_IDMAP_NONE: out of memory) */
    uint32_t sm;
    uint8_t chip;
    uint8_t lo, hi;  /* first and last byte touched */
    bool contiguous; /* every byte lo..hi touched; otherwise `mask` says which */
    uint64_t mask[MASK_WORDS];
};

/* A line touched this kernel: its address (for its page) and id. */
struct touched {
    uint64_t line;
    uint32_t id;
};

struct sharing {
    uint32_t num_sms, cluster_size, num_clusters, chips;
    uint32_t line_bytes, page_bytes;
    uint32_t sm_words, mask_words;
    uint64_t kernel_ctas; /* of the current kernel: chips get contiguous blocks */
    struct gcr_idmap ids;    /* line -> id, of this analysis's own (at_emission) */
    struct gcr_column *col;  /* line id -> its word */
    uint64_t stamp;          /* this kernel's stamp, shifted to its bits */
    struct gcr_chunks touched; /* this kernel's lines (struct touched), in order of first touch */
    struct table others, pages;
    uint64_t *exts;           /* extended line records, ext_words each */
    size_t ext_count, ext_cap, ext_words;
    /* Updates in flight, ring[p % RING] for tail <= p < head, of which those
     * before `found` and `resolved` passed those stages (struct pending). */
    struct pending ring[RING];
    size_t head, found, resolved, tail;
    bool failed; /* out of memory while observing: reported at the kernel's end */
    struct sharing_counts kernel, total;
};

static unsigned bucket_of(uint64_t n)
{
    unsigned b = 0;
    while (b + 1 < MAX_BUCKETS && (1ull << b) < n)
        b++;
    return b;
}

static void sharing_destroy(void *self)
{
    struct sharing *s = self;
    if (!s)
        return;
    gcr_chunks_free(&s->touched);
    table_free(&s->others);
    table_free(&s->pages);
    gcr_table_free(s->exts, s->ext_cap * s->ext_words * sizeof *s->exts);
    gcr_idmap_fini(&s->ids);
    free(s);
}

static int sharing_create(void **self, const json_t *options, const struct gcr_sim_info *info,
                          struct gcr_err *err)
{
    struct gcr_opts o;
    uint64_t cluster_size = 4, chips = 4, page_bytes = 4096;
    gcr_opts_begin(&o, info->config->origin, "$.analyses.sharing", options);
    if (gcr_opts_uint(&o, "cluster_size", 1, UINT32_MAX, &cluster_size, err) != 0 ||
        gcr_opts_uint(&o, "chips", 1, MAX_CHIPS, &chips, err) != 0 ||
        gcr_opts_uint(&o, "page_bytes", info->line_bytes, UINT64_C(1) << 30, &page_bytes,
                      err) != 0 ||
        gcr_opts_done(&o, err) != 0)
        return -1;
    if (page_bytes & (page_bytes - 1))
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.sharing.page_bytes: expected a "
                        "power of two", info->config->origin);
    if (info->line_bytes > 64 * MASK_WORDS)
        return gcr_fail(err, GCR_E_UNSUPPORTED, "%s: analysis sharing: lines of %u bytes "
                        "(at most %u)", info->config->origin, info->line_bytes,
                        64 * MASK_WORDS);
    struct sharing *s = calloc(1, sizeof *s);
    if (!s)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    s->num_sms = info->num_sms;
    s->cluster_size = (uint32_t)cluster_size;
    s->num_clusters = (uint32_t)((info->num_sms + cluster_size - 1) / cluster_size);
    s->chips = (uint32_t)chips;
    s->line_bytes = info->line_bytes;
    s->page_bytes = (uint32_t)page_bytes;
    s->sm_words = (info->num_sms + 63) / 64;
    s->mask_words = (info->line_bytes + 63) / 64;
    s->ext_words = X_UNION + 2 * s->mask_words + s->sm_words;
    /* Seeds: any distinct constants (see struct table). */
    s->stamp = (uint64_t)1 << STAMP_SHIFT;
    gcr_chunks_init(&s->touched, sizeof(struct touched));
    /* Lines grouped by 64, as the replay's shared map does. */
    if (gcr_idmap_init(&s->ids, (unsigned)__builtin_ctz(info->line_bytes), 6, err) != 0) {
        free(s);
        return -1;
    }
    if (!(s->col = gcr_idmap_add_column(&s->ids, sizeof(uint64_t), err))) {
        sharing_destroy(s);
        return -1;
    }
    if (table_init(&s->others, MIN_CAP, O_MASK + s->mask_words, true, 0x5bd1e9955bd1e995ull) != 0 ||
        table_init(&s->pages, MIN_CAP, P_WORDS, false, 0xc2b2ae3d27d4eb4full) != 0) {
        sharing_destroy(s);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    *self = s;
    return 0;
}

static inline void mask_set_range(uint64_t *m, uint32_t lo, uint32_t hi)
{
    for (uint32_t w = lo / 64; w <= hi / 64; w++) {
        uint32_t a = w * 64 > lo ? 0 : lo - w * 64;
        uint32_t b = (w + 1) * 64 - 1 < hi ? 63 : hi - w * 64;
        uint64_t bits = (b - a == 63) ? ~0ull : (((1ull << (b - a + 1)) - 1) << a);
        m[w] |= bits;
    }
}

/* The bytes of a pending update as a mask. */
static inline void pending_mask(const struct pending *p, uint64_t *m)
{
    if (p->contiguous) {
        memset(m, 0, MASK_WORDS * sizeof *m);
        mask_set_range(m, p->lo, p->hi);
    } else {
        memcpy(m, p->mask, MASK_WORDS * sizeof *m);
    }
}

/* A new extended record, zero but for the first chip; NULL if out of memory. */
static uint64_t *ext_new(struct sharing *s, uint64_t *l, uint32_t first_chip)
{
    if (s->ext_count == s->ext_cap) {
        size_t cap = s->ext_cap ? 2 * s->ext_cap : 1024;
        uint64_t *bigger = gcr_table_alloc(cap * s->ext_words * sizeof *bigger);
        if (!bigger)
            return NULL;
        if (s->ext_count)
            memcpy(bigger, s->exts, s->ext_count * s->ext_words * sizeof *bigger);
        gcr_table_free(s->exts, s->ext_cap * s->ext_words * sizeof *s->exts);
        s->exts = bigger;
        s->ext_cap = cap;
    }
    uint64_t *x = s->exts + s->ext_count * s->ext_words;
    memset(x, 0, s->ext_words * sizeof *x);
    x[X_FLAGS] = first_chip;
    *l = s->stamp | ENTRY_EXT | s->ext_count;
    s->ext_count++;
    return x;
}

/* Turns a common line's entry into an extended record holding the same: one
 * SM and one chip touched it, so the first chip's bytes are all its bytes. */
static uint64_t *ext_from_entry(struct sharing *s, uint64_t *l)
{
    uint64_t e = entry_of(*l);
    uint64_t *x = ext_new(s, l, entry_chip(e));
    if (!x)
        return NULL;
    const uint32_t mw = s->mask_words;
    uint32_t sm = entry_sm(e);
    x[X_CHIPS] = 1ull << entry_chip(e);
    mask_set_range(x + X_UNION, entry_lo(e), entry_hi(e));
    mask_set_range(x + X_UNION + mw, entry_lo(e), entry_hi(e));
    x[X_UNION + 2 * mw + sm / 64] |= 1ull << (sm % 64);
    return x;
}

/* Adds one update to an extended record. */
static void ext_update(struct sharing *s, uint64_t *x, const struct pending *p)
{
    const uint32_t mw = s->mask_words;
    uint64_t m[MASK_WORDS];
    pending_mask(p, m);
    uint64_t *uni = x + X_UNION;
    /* Per-chip bytes only serve to find a byte touched by two chips: once
     * one is found, they are no longer kept. */
    if (!(x[X_FLAGS] & FLAG_BYTE_SHARED)) {
        uint64_t *own = x + X_UNION + mw;
        if ((x[X_FLAGS] & 0xff) != p->chip) {
            uint64_t k0 = key_of(p->line);
            bool fresh;
            uint64_t *o = table_get(&s->others, k0, p->chip, table_hash(&s->others, k0, p->chip), &fresh);
            if (!o) {
                s->failed = true;
                return;
            }
            own = o + O_MASK;
        }
        /* A byte this chip touches now that some chip touched before, and
         * this chip did not: it was another chip's, so the line is truly
         * shared. */
        uint64_t shared = 0;
        for (uint32_t w = 0; w < mw; w++) {
            shared |= m[w] & uni[w] & ~own[w];
            own[w] |= m[w];
        }
        if (shared)
            x[X_FLAGS] |= FLAG_BYTE_SHARED;
    }
    for (uint32_t w = 0; w < mw; w++)
        uni[w] |= m[w];
    x[X_CHIPS] |= 1ull << p->chip;
    x[X_UNION + 2 * mw + p->sm / 64] |= 1ull << (p->sm % 64);
}

/* The state of line `id` this kernel (a fresh one, listed, if the line was
 * not touched yet this kernel); NULL if out of memory. */
static uint64_t *line_state(struct sharing *s, uint64_t line, uint32_t id, bool *fresh)
{
    if (id == GCR_IDMAP_NONE)
        return NULL;
    uint64_t *l = gcr_column_at(s->col, id);
    *fresh = (*l & ((uint64_t)STAMP_MAX << STAMP_SHIFT)) != s->stamp;
    if (!*fresh)
        return l;
    struct touched *t = gcr_chunks_push(&s->touched);
    if (!t)
        return NULL;
    *t = (struct touched){line, id};
    *l = s->stamp;
    return l;
}

/* One line touched by one instruction: update the line's sets and bytes. */
static void apply(struct sharing *s, const struct pending *p)
{
    bool fresh;
    uint64_t *l = line_state(s, p->line, p->id, &fresh);
    if (!l) {
        s->failed = true;
        return;
    }
    uint64_t *x;
    uint64_t e = entry_of(*l);
    if (fresh) {
        if (p->contiguous) {
            *l = s->stamp | entry_make(p->sm, p->chip, p->lo, p->hi);
            return;
        }
        x = ext_new(s, l, p->chip);
    } else if (!(e & ENTRY_EXT)) {
        /* Still one SM and one chip on one byte range: only the range grows. */
        uint64_t owner = entry_make(p->sm, p->chip, 0, 0) >> ENTRY_OWNER_SHIFT;
        if (e >> ENTRY_OWNER_SHIFT == owner && p->contiguous && p->lo <= entry_hi(e) + 1 &&
            entry_lo(e) <= p->hi + 1u) {
            uint32_t lo = p->lo < entry_lo(e) ? p->lo : entry_lo(e);
            uint32_t hi = p->hi > entry_hi(e) ? p->hi : entry_hi(e);
            *l = s->stamp | entry_make(p->sm, p->chip, lo, hi);
            return;
        }
        x = ext_from_entry(s, l);
    } else {
        x = s->exts + (e & ENTRY_BITS) * s->ext_words;
    }
    if (!x) {
        s->failed = true;
        return;
    }
    ext_update(s, x, p);
}

/* Stage 2: the leaf word of the update's line id (its slot was fetched). */
static void pending_find(struct sharing *s, struct pending *p)
{
    uint32_t offset;
    uint32_t *ids = gcr_idmap_ids(&s->ids, p->line, true, &offset);
    p->word = ids ? ids + offset : NULL;
    if (p->word)
        __builtin_prefetch(p->word);
}

/* Stage 3: the line's id (a new line gets the next one), its state word fetched. */
static void pending_resolve(struct sharing *s, struct pending *p)
{
    p->id = p->word ? gcr_idmap_word_id(&s->ids, p->word) : GCR_IDMAP_NONE;
    if (p->id != GCR_IDMAP_NONE)
        __builtin_prefetch(gcr_column_at(s->col, p->id), 1);
}

/* Takes the updates through the stages, in order: found up to `found`,
 * resolved up to `resolved`, applied up to `applied` (positions, each at
 * most the one before). */
static void stages_to(struct sharing *s, size_t found, size_t resolved, size_t applied)
{
    for (; s->found < found; s->found++)
        pending_find(s, &s->ring[s->found % RING]);
    for (; s->resolved < resolved; s->resolved++)
        pending_resolve(s, &s->ring[s->resolved % RING]);
    for (; s->tail < applied; s->tail++)
        apply(s, &s->ring[s->tail % RING]);
}

/* Takes every update before `upto` through every stage. */
static void drain_until(struct sharing *s, size_t upto)
{
    stages_to(s, upto, upto, upto);
}

/* Every update moves on through the stages, those of stage k being at
 * least k x gap updates before the newest (gap 0: all of them, applied). */
static void advance_pending(struct sharing *s, size_t gap)
{
    size_t h = s->head;
    stages_to(s, h > gap ? h - gap : 0, h > 2 * gap ? h - 2 * gap : 0,
              h > 3 * gap ? h - 3 * gap : 0);
}

/* A new pending update of `line` by (sm, chip), bytes not yet set. */
static struct pending *pending_push(struct sharing *s, uint64_t line, uint32_t sm, uint32_t chip)
{
    if (s->head - s->tail == RING)
        drain_until(s, s->tail + 1); /* an instruction touching many lines */
    struct pending *p = &s->ring[s->head++ % RING];
    gcr_idmap_prefetch(&s->ids, line);
    p->line = line;
    p->sm = sm;
    p->chip = (uint8_t)chip;
    return p;
}

/* Sets lo, hi and contiguous from the mask of a pending update. */
static void pending_range_of_mask(struct pending *p, uint32_t mw)
{
    uint32_t lo = UINT32_MAX, hi = 0, n = 0;
    for (uint32_t w = 0; w < mw; w++) {
        if (!p->mask[w])
            continue;
        if (lo == UINT32_MAX)
            lo = w * 64 + gcr_bits_ctz64(p->mask[w]);
        hi = w * 64 + 63 - (uint32_t)__builtin_clzll(p->mask[w]);
        n += gcr_bits_popcount64(p->mask[w]);
    }
    p->lo = (uint8_t)lo;
    p->hi = (uint8_t)hi;
    p->contiguous = n == hi - lo + 1;
}

static void on_insn(struct sharing *s, const struct gcr_event *ev)
{
    const struct gcr_warp_insn *in = ev->insn;
    if (in->space != GCR_SPACE_GLOBAL && in->space != GCR_SPACE_LOCAL)
        return; /* shared memory never leaves the SM; const/texture are not modelled */
    if (s->failed || ev->sm >= s->num_sms || !in->active_mask)
        return;
    const uint32_t sm = ev->sm;
    const uint32_t chip = gcr_chip_of_cta(in->cta, s->kernel_ctas, s->chips);
    const uint64_t lb = s->line_bytes;
    const size_t first = s->head; /* this instruction's updates: first .. head */
    /* The common coalesced case: the replay's stride hint says the lanes
     * cover one contiguous byte range, so mark it line by line at once. */
    uint64_t span = (uint64_t)gcr_bits_popcount32(in->active_mask) - 1;
    uint64_t mag = in->stride < 0 ? 0 - (uint64_t)in->stride : (uint64_t)in->stride;
    bool done = false;
    if (in->strided && mag <= in->width && span * mag < (1ull << 40)) {
        uint64_t a0 = in->addr[gcr_bits_ctz32(in->active_mask)];
        uint64_t lo = in->stride < 0 ? a0 - span * mag : a0;
        uint64_t last = (in->stride < 0 ? a0 : a0 + span * mag) + in->width - 1;
        if (lo <= a0 && last >= lo) { /* no wrap-around */
            for (uint64_t a = lo;;) {
                uint64_t line = a & ~(lb - 1);
                uint64_t hi = last - line < lb ? last : line + lb - 1;
                struct pending *p = pending_push(s, line, sm, chip);
                p->lo = (uint8_t)(a - line);
                p->hi = (uint8_t)(hi - line);
                p->contiguous = true;
                if (hi == last)
                    break;
                a = hi + 1;
            }
            done = true;
        }
    }
    if (!done) {
        const uint32_t mw = s->mask_words;
        /* A strided instruction's lanes follow from its first one (only that
         * lane's address is filled: insn_stride_hint). */
        uint64_t a0 = in->addr[gcr_bits_ctz32(in->active_mask)], k = 0;
        for (uint32_t rest = in->active_mask; rest; rest &= rest - 1, k++) {
            uint64_t a = in->strided ? a0 + k * (uint64_t)in->stride
                                     : in->addr[gcr_bits_ctz32(rest)];
            uint64_t last = a + in->width - 1;
            if (last < a)
                last = UINT64_MAX; /* the access would wrap: keep what is addressable */
            for (;;) {
                uint64_t line = a & ~(lb - 1);
                uint64_t hi = last - line < lb ? last : line + lb - 1;
                /* Lanes of a warp mostly fall in the line of the previous
                 * lane; otherwise look through this instruction's lines. */
                size_t from = first > s->tail ? first : s->tail;
                struct pending *p = NULL;
                if (s->head > from && s->ring[(s->head - 1) % RING].line == line)
                    p = &s->ring[(s->head - 1) % RING];
                else
                    for (size_t j = from; j + 1 < s->head; j++)
                        if (s->ring[j % RING].line == line) {
                            p = &s->ring[j % RING];
                            break;
                        }
                if (!p) {
                    /* Complete as it stands (by its mask), as pending_push
                     * may apply it before this instruction's end. */
                    p = pending_push(s, line, sm, chip);
                    p->contiguous = false;
                    memset(p->mask, 0, sizeof p->mask);
                }
                mask_set_range(p->mask, (uint32_t)(a - line), (uint32_t)(hi - line));
                if (hi == last)
                    break;
                a = hi + 1;
            }
        }
        for (size_t j = first > s->tail ? first : s->tail; j < s->head; j++)
            pending_range_of_mask(&s->ring[j % RING], mw);
    }
    advance_pending(s, PIPE_GAP);
}

static void sharing_on_event(void *self, const struct gcr_event *ev)
{
    struct sharing *s = self;
    if (ev->kind == GCR_EV_INSN) {
        on_insn(s, ev);
    } else if (ev->kind == GCR_EV_KERNEL_BEGIN && ev->kernel) {
        /* Chips get contiguous blocks of CTAs, as SAC's distributed
         * scheduling (the replay's own rule, gcreplay/chips.h). */
        s->kernel_ctas = gcr_kernel_ctas(ev->kernel);
    }
}

/* One line's figures into s->kernel, and its chips into its page's slot
 * (`fresh`: just inserted). */
static void summarise_line(struct sharing *s, const uint64_t *l, uint64_t *page, bool fresh)
{
    struct sharing_counts *k = &s->kernel;
    const uint32_t mw = s->mask_words;
    uint64_t e = entry_of(*l);
    unsigned sms = 1, clusters = 1, chips = 1, nbytes;
    uint64_t chip_set;
    bool byte_shared = false;
    if (!(e & ENTRY_EXT)) {
        nbytes = entry_hi(e) - entry_lo(e) + 1;
        chip_set = 1ull << entry_chip(e);
    } else {
        const uint64_t *x = s->exts + (e & ENTRY_BITS) * s->ext_words;
        nbytes = 0;
        for (uint32_t w = 0; w < mw; w++)
            nbytes += gcr_bits_popcount64(x[X_UNION + w]);
        sms = clusters = 0;
        uint32_t last_cluster = UINT32_MAX;
        for (uint32_t w = 0; w < s->sm_words; w++)
            for (uint64_t b = x[X_UNION + 2 * mw + w]; b; b &= b - 1) {
                uint32_t sm = w * 64 + gcr_bits_ctz64(b);
                uint32_t c = sm / s->cluster_size;
                sms++;
                /* SMs come in increasing order, so their clusters do too. */
                if (c != last_cluster) {
                    clusters++;
                    last_cluster = c;
                }
            }
        chip_set = x[X_CHIPS];
        chips = gcr_bits_popcount64(chip_set);
        byte_shared = (x[X_FLAGS] & FLAG_BYTE_SHARED) != 0;
    }
    k->lines++;
    k->bytes += nbytes;
    k->sms_hist[bucket_of(sms)]++;
    k->clusters_hist[bucket_of(clusters)]++;
    k->chips_hist[bucket_of(chips)]++;
    k->line_cls[chips < 2 ? 0 : byte_shared ? 2 : 1] += s->line_bytes;
    uint64_t info = fresh ? gcr_bits_ctz64(chip_set) : page[P_INFO];
    if (chip_set != 1ull << (info & 0x3f))
        info |= PAGE_SEVERAL_CHIPS;
    if (byte_shared)
        info |= FLAG_BYTE_SHARED;
    if (chips > 1)
        k->sac[2] += s->line_bytes; /* two chips touched the line */
    else
        info += 1ull << PAGE_COUNT_SHIFT; /* false or not shared: the page decides */
    page[P_INFO] = info;
}

/* Classes of the kernel's lines and pages into s->kernel. */
static int summarise(struct sharing *s, struct gcr_err *err)
{
    struct sharing_counts *k = &s->kernel;
    uint64_t page_mask = ~((uint64_t)s->page_bytes - 1);
    /* The kernel's lines, in the order they were first touched; their
     * states and their pages' slots (at random) are prefetched
     * PREFETCH_AHEAD lines before they are needed. */
    const uint64_t *line[PREFETCH_AHEAD];
    uint64_t page_key[PREFETCH_AHEAD], page_hash[PREFETCH_AHEAD];
    size_t done = 0;
    const size_t n = s->touched.count;
    for (size_t i = 0; i <= n; i++) {
        if (i < n) {
            const struct touched *t = gcr_chunks_at(&s->touched, i);
            size_t j = i % PREFETCH_AHEAD;
            line[j] = gcr_column_at(s->col, t->id);
            __builtin_prefetch(line[j]);
            page_key[j] = key_of(t->line & page_mask);
            page_hash[j] = table_hash(&s->pages, page_key[j], 0);
            table_prefetch(&s->pages, page_hash[j]);
            if (i + 1 - done < PREFETCH_AHEAD)
                continue;
        }
        /* At the end, all the lines still waiting; otherwise the oldest. */
        while (done < i + (i < n)) {
            size_t j = done++ % PREFETCH_AHEAD;
            bool fresh;
            uint64_t *p = table_get(&s->pages, page_key[j], 0, page_hash[j], &fresh);
            if (!p)
                return gcr_fail(err, GCR_E_NOMEM, "analysis sharing: out of memory");
            summarise_line(s, line[j], p, fresh);
            if (i < n)
                break;
        }
    }
    for (size_t i = 0; i < s->pages.cap; i++) {
        const uint64_t *p = s->pages.slots + i * P_WORDS;
        if (!p[0])
            continue;
        k->pages++;
        bool several_chips = (p[P_INFO] & PAGE_SEVERAL_CHIPS) != 0;
        int cls = !several_chips ? 0 : (p[P_INFO] & FLAG_BYTE_SHARED) ? 2 : 1;
        k->page_cls[cls] += s->page_bytes;
        /* SAC: a line one chip touched is falsely shared if another chip
         * touched some other line of its page. */
        k->sac[several_chips ? 1 : 0] += (p[P_INFO] >> PAGE_COUNT_SHIFT) * s->line_bytes;
    }
    /* The next kernel's stamp leaves every line's state stale. */
    if (stamp_of(s->stamp) == STAMP_MAX) {
        for (uint32_t id = 0; id < s->ids.count; id++)
            *(uint64_t *)gcr_column_at(s->col, id) = 0;
        s->stamp = 0;
    }
    s->stamp += (uint64_t)1 << STAMP_SHIFT;
    gcr_chunks_clear(&s->touched);
    s->ext_count = 0;
    if (table_reset(&s->others, MIN_CAP) != 0 || table_reset(&s->pages, MIN_CAP) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "analysis sharing: out of memory");
    return 0;
}

/* Histogram buckets 1, 2, 3-4, 5-8, ... up to the one holding max (inclusive). */
static json_t *histogram_json(const uint64_t *hist, uint64_t max)
{
    json_t *o = json_object();
    unsigned top = bucket_of(max ? max : 1);
    for (unsigned b = 0; b <= top; b++) {
        uint64_t lo = b == 0 ? 1 : (1ull << (b - 1)) + 1;
        uint64_t hi = (1ull << b) < max ? (1ull << b) : max;
        if (hi < lo)
            hi = lo;
        char label[48];
        if (lo == hi)
            snprintf(label, sizeof label, "%llu", (unsigned long long)lo);
        else
            snprintf(label, sizeof label, "%llu-%llu", (unsigned long long)lo,
                     (unsigned long long)hi);
        json_object_set_new(o, label, json_integer((json_int_t)hist[b]));
    }
    return o;
}

static json_t *classes_json(const uint64_t *cls)
{
    return json_pack("{s:I, s:I, s:I}", "not_shared_bytes", (json_int_t)cls[0],
                     "false_shared_bytes", (json_int_t)cls[1], "true_shared_bytes",
                     (json_int_t)cls[2]);
}

static int fill(const struct sharing *s, const struct sharing_counts *k, json_t *section)
{
    int rc = 0;
    rc |= json_object_set_new(section, "chips", json_integer(s->chips));
    rc |= json_object_set_new(section, "cluster_size", json_integer(s->cluster_size));
    rc |= json_object_set_new(section, "page_bytes", json_integer(s->page_bytes));
    rc |= json_object_set_new(section, "lines", json_integer((json_int_t)k->lines));
    rc |= json_object_set_new(section, "pages", json_integer((json_int_t)k->pages));
    rc |= json_object_set_new(section, "bytes_touched", json_integer((json_int_t)k->bytes));
    rc |= json_object_set_new(section, "sms_per_line", histogram_json(k->sms_hist, s->num_sms));
    rc |= json_object_set_new(section, "clusters_per_line",
                              histogram_json(k->clusters_hist, s->num_clusters));
    rc |= json_object_set_new(section, "chips_per_line", histogram_json(k->chips_hist, s->chips));
    rc |= json_object_set_new(section, "sac", classes_json(k->sac));
    rc |= json_object_set_new(section, "line", classes_json(k->line_cls));
    rc |= json_object_set_new(section, "page", classes_json(k->page_cls));
    return rc;
}

static int sharing_report_kernel(void *self, json_t *section, struct gcr_err *err)
{
    struct sharing *s = self;
    advance_pending(s, 0); /* the kernel's last updates */
    if (s->failed)
        return gcr_fail(err, GCR_E_NOMEM, "analysis sharing: out of memory");
    memset(&s->kernel, 0, sizeof s->kernel);
    if (summarise(s, err) != 0)
        return -1;
    gcr_add_u64s((uint64_t *)&s->total, (const uint64_t *)&s->kernel,
                 sizeof(struct sharing_counts) / sizeof(uint64_t));
    if (fill(s, &s->kernel, section) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

static int sharing_report_total(void *self, json_t *section, struct gcr_err *err)
{
    struct sharing *s = self;
    if (fill(s, &s->total, section) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

static const struct gcr_analysis_speed sharing_speed = {
    .insn_stride_hint = true,
    .at_emission = true,
};

const struct gcr_analysis_ops gcr_analysis_sharing = {
    .name = "sharing",
    .summary = "SMs, clusters and chips per line; SAC true/false/not-shared bytes",
    .subscribe = GCR_EV_KERNEL_BEGIN | GCR_EV_INSN,
    .create = sharing_create,
    .on_event = sharing_on_event,
    .report_kernel = sharing_report_kernel,
    .report_total = sharing_report_total,
    .destroy = sharing_destroy,
    .speed = &sharing_speed,
};
