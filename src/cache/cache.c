/* The set-associative, optionally sectored cache model (see README.md).
 *
 * Layout: line (set, way) lives at lines[set * ways + way]. Resident lines are
 * found through a hash table keyed by line address (bucket heads plus chain
 * links in each line), so a lookup never scans a set. Per set there is a
 * valid-way bitmap (lowest invalid way in O(ways/64)), and, by policy, a
 * circular doubly linked list of ways (LRU, FIFO) or a reference bitmap (NRU). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache_internal.h"
#include "core/table_memory.h"

#define NO_WAY UINT16_MAX  /* list end; ways <= 65535 so way 65535 never exists */
#define NO_LINE UINT32_MAX /* hash chain end / lookup miss */
/* hash_prev of a chain's first line: this flag and the bucket (line indices
 * stay below 2^26 and buckets below 2^27, so neither is taken for the other). */
#define CHAIN_HEAD UINT32_C(0x80000000)

struct cache_line {
    uint64_t tag;       /* line address; meaningful only while the way is valid */
    uint32_t valid;     /* valid sectors */
    uint32_t dirty;     /* dirty sectors (subset of valid) */
    uint32_t used;      /* sectors requested by accesses since the fill */
    uint32_t hash_next; /* next line index in the same bucket */
    uint16_t prev;      /* LRU/FIFO list: toward the head (MRU / newest) */
    uint16_t next;      /* LRU/FIFO list: toward the tail (LRU / oldest) */
    uint32_t hash_prev; /* previous line index in the same bucket; the first: CHAIN_HEAD | bucket */
};
_Static_assert(sizeof(struct cache_line) == 32, "a line record should stay 32 bytes");

/* A set's bookkeeping, kept together so that an allocation reads one host
 * cache line for it. head/tail are used by LRU and FIFO only. */
struct set_state {
    uint32_t valid_count; /* valid ways */
    uint16_t head;        /* LRU: most recently used way; FIFO: newest way; NO_WAY if none */
    uint16_t tail;        /* LRU: least recently used way; FIFO: oldest way */
};

/* Ordered by use: with 80 L1s and dozens of L2 slices the cache objects do not
 * all stay in the host's L1 data cache, so what every access reads comes first
 * (one 64-byte line; the object is 64-byte aligned), then the counters every
 * access updates, then what only misses and set-up need. */
struct gcr_cache {
    _Alignas(64) struct cache_line *lines;
    uint32_t *buckets;     /* bucket -> first line index, NO_LINE if empty */
    struct set_state *set; /* per set */
    uint64_t line_mask;    /* ~(line_bytes - 1) */
    struct gcr_divider by_ways;
    uint32_t full_mask;    /* every sector of a line */
    uint32_t ways;
    uint8_t bucket_shift;  /* 64 - log2(bucket_count): the hash's top bits pick the bucket */
    /* Copies of geo fields the access path tests (geo itself is further away). */
    uint8_t repl;          /* enum gcr_repl_policy */
    bool sectored;
    uint8_t write_policy;  /* enum gcr_write_policy */
    uint8_t write_alloc;   /* enum gcr_write_alloc */
    bool track_bytes;      /* geometry.byte_masks: partly written sectors (bytes below) */
    bool writes_hit;       /* geometry.writes_hit */
    /* The line of the last gcr_cache_prefetch, its bucket and set: the access
     * that usually follows takes them from here instead of working them out
     * again. UINT64_MAX (not line-aligned) before any. */
    uint64_t hint_line;
    uint32_t hint_bucket, hint_set;
    struct gcr_cache_stats stats;
    struct gcr_set_index index; /* the geometry's index function, prepared */
    struct gcr_cache_geometry geo;
    uint32_t bucket_count;
    uint32_t words;       /* uint64 words per per-set bitmap */
    uint64_t pad_mask;    /* bits of a set's last bitmap word beyond the last way */
    uint64_t *valid_bits; /* sets x words; pad bits always set so they never look free */
    uint64_t *ref_bits;   /* NRU: sets x words; pad bits always set */
    uint32_t *ref_count;
    uint64_t rng;         /* RANDOM: splitmix64 state */
    struct gcr_byte_masks bytes; /* written bytes of partly written sectors (track_bytes) */
};
_Static_assert(offsetof(struct gcr_cache, hint_line) <= 64,
               "the fields every access reads should share one host cache line");

/* ---- hash table ------------------------------------------------------------------------- */

/* A 64-bit mixer (xor-shift-multiply, two rounds); the bucket is taken from the
 * top bits, which depend on every bit of the line address. */
static inline uint32_t bucket_of(const struct gcr_cache *c, uint64_t line_addr)
{
    uint64_t x = line_addr;
    x ^= x >> 32;
    x *= UINT64_C(0xd6e8feb86659fd93);
    x ^= x >> 32;
    x *= UINT64_C(0xd6e8feb86659fd93);
    return (uint32_t)(x >> c->bucket_shift);
}

/* The resident line of line_addr in bucket b (= bucket_of(line_addr)), or NO_LINE. */
static inline uint32_t lookup_in(const struct gcr_cache *c, uint32_t b, uint64_t line_addr)
{
    uint32_t i = c->buckets[b];
    while (i != NO_LINE && c->lines[i].tag != line_addr)
        i = c->lines[i].hash_next;
    return i;
}

static inline uint32_t lookup(const struct gcr_cache *c, uint64_t line_addr)
{
    return lookup_in(c, bucket_of(c, line_addr), line_addr);
}

/* Links line idx into bucket b, the bucket of its tag, as its first line. The
 * lookup that missed just read the bucket and its first line: both are cached. */
static void hash_insert(struct gcr_cache *c, uint32_t idx, uint32_t b)
{
    uint32_t head = c->buckets[b];
    struct cache_line *l = &c->lines[idx];
    l->hash_next = head;
    l->hash_prev = CHAIN_HEAD | b;
    if (head != NO_LINE)
        c->lines[head].hash_prev = idx;
    c->buckets[b] = idx;
}

/* Unlinks line idx from its bucket's chain. The chains are doubly linked so
 * that this only stores: the victim's bucket and neighbours are rarely in the
 * host's cache, and a store to a cold line does not stall the way walking the
 * chain from the bucket (loads) would. The first line names its bucket, so
 * the victim's tag need not be hashed again. */
static void hash_remove(struct gcr_cache *c, uint32_t idx)
{
    const struct cache_line *l = &c->lines[idx];
    if (l->hash_prev & CHAIN_HEAD)
        c->buckets[l->hash_prev & ~CHAIN_HEAD] = l->hash_next;
    else
        c->lines[l->hash_prev].hash_next = l->hash_next;
    if (l->hash_next != NO_LINE)
        c->lines[l->hash_next].hash_prev = l->hash_prev;
}

/* ---- per-set replacement state ---------------------------------------------------------- */

static inline struct cache_line *line_at(struct gcr_cache *c, uint32_t set, uint32_t way)
{
    return &c->lines[(size_t)set * c->ways + way];
}

/* The LRU/FIFO order of a set is a circular doubly linked list of its valid
 * ways: head is the most recently used (newest) way, tail = head's prev the
 * least recently used (oldest). Circular because the commonest change in a
 * full set, the tail replaced by a new line that becomes the head, is then a
 * rotation by one: two stores, no neighbour line touched. */
static void list_unlink(struct gcr_cache *c, uint32_t set, uint32_t way)
{
    struct cache_line *l = line_at(c, set, way);
    if (l->next == way) { /* the only way in the list */
        c->set[set].head = NO_WAY;
        c->set[set].tail = NO_WAY;
        return;
    }
    line_at(c, set, l->prev)->next = l->next;
    line_at(c, set, l->next)->prev = l->prev;
    if (c->set[set].head == way)
        c->set[set].head = l->next;
    if (c->set[set].tail == way)
        c->set[set].tail = l->prev;
}

/* Inserts a way that is not in the list at the head. */
static void list_push_head(struct gcr_cache *c, uint32_t set, uint32_t way)
{
    struct cache_line *l = line_at(c, set, way);
    uint16_t head = c->set[set].head;
    if (head == NO_WAY) {
        l->prev = l->next = (uint16_t)way;
        c->set[set].tail = (uint16_t)way;
    } else {
        uint16_t tail = c->set[set].tail;
        l->next = head;
        l->prev = tail;
        line_at(c, set, head)->prev = (uint16_t)way;
        line_at(c, set, tail)->next = (uint16_t)way;
    }
    c->set[set].head = (uint16_t)way;
}

/* Makes a way of the list its head. */
static inline void list_move_to_head(struct gcr_cache *c, uint32_t set, uint32_t way)
{
    if (c->set[set].head == way)
        return;
    struct cache_line *l = line_at(c, set, way);
    if (c->set[set].tail == way) { /* the rotation */
        c->set[set].head = (uint16_t)way;
        c->set[set].tail = l->prev;
        return;
    }
    /* Neither head nor tail: out of the middle, in between tail and head. */
    line_at(c, set, l->prev)->next = l->next;
    line_at(c, set, l->next)->prev = l->prev;
    list_push_head(c, set, way);
}

static void bitmap_reset(const struct gcr_cache *c, uint64_t *bits)
{
    memset(bits, 0, c->words * sizeof *bits);
    bits[c->words - 1] = c->pad_mask;
}

/* Lowest way whose bit is clear, or NO_WAY. Pad bits are set, so they never match. */
static uint32_t bitmap_first_clear(const struct gcr_cache *c, const uint64_t *bits)
{
    for (uint32_t w = 0; w < c->words; w++)
        if (~bits[w])
            return w * 64 + gcr_bits_ctz64(~bits[w]);
    return NO_WAY;
}

/* NRU: mark a way referenced; once every valid way is, only this one stays so. */
static void nru_reference(struct gcr_cache *c, uint32_t set, uint32_t way)
{
    uint64_t *bits = &c->ref_bits[(size_t)set * c->words];
    uint64_t bit = UINT64_C(1) << (way & 63);
    if (bits[way >> 6] & bit)
        return;
    bits[way >> 6] |= bit;
    if (++c->ref_count[set] >= c->set[set].valid_count) {
        bitmap_reset(c, bits);
        bits[way >> 6] |= bit;
        c->ref_count[set] = 1;
    }
}

static void nru_forget(struct gcr_cache *c, uint32_t set, uint32_t way)
{
    uint64_t *bits = &c->ref_bits[(size_t)set * c->words];
    uint64_t bit = UINT64_C(1) << (way & 63);
    if (bits[way >> 6] & bit) {
        bits[way >> 6] &= ~bit;
        c->ref_count[set]--;
    }
}

/* The way to replace in a full set. */
static uint32_t choose_victim(struct gcr_cache *c, uint32_t set)
{
    switch ((enum gcr_repl_policy)c->repl) {
    case GCR_REPL_LRU:
    case GCR_REPL_FIFO:
        return c->set[set].tail;
    case GCR_REPL_NRU: {
        uint32_t way = bitmap_first_clear(c, &c->ref_bits[(size_t)set * c->words]);
        return way == NO_WAY ? 0 : way; /* only when ways == 1: the one way is referenced */
    }
    case GCR_REPL_RANDOM:
    case GCR_REPL_COUNT:
        break;
    }
    /* Multiply-shift maps the top 32 random bits onto [0, ways) without a division. */
    return (uint32_t)(((gcr_splitmix64_next(&c->rng) >> 32) * c->ways) >> 32);
}

/* A hit or sector miss: the line was referenced. FIFO and RANDOM ignore it. */
static inline void touch(struct gcr_cache *c, uint32_t idx)
{
    if (c->repl == GCR_REPL_LRU) {
        uint32_t set = gcr_divider_div(c->by_ways, idx);
        list_move_to_head(c, set, idx - set * c->ways);
    } else if (c->repl == GCR_REPL_NRU) {
        uint32_t set = gcr_divider_div(c->by_ways, idx);
        nru_reference(c, set, idx - set * c->ways);
    }
}

/* ---- line installation and removal ------------------------------------------------------ */

/* Takes a resident line out of the cache (hash, replacement state, valid bitmap). */
static void remove_line(struct gcr_cache *c, uint32_t set, uint32_t way)
{
    uint32_t idx = set * c->ways + way;
    hash_remove(c, idx);
    if (c->repl == GCR_REPL_LRU || c->repl == GCR_REPL_FIFO)
        list_unlink(c, set, way);
    else if (c->repl == GCR_REPL_NRU)
        nru_forget(c, set, way);
    c->valid_bits[(size_t)set * c->words + (way >> 6)] &= ~(UINT64_C(1) << (way & 63));
    c->set[set].valid_count--;
    if (c->track_bytes)
        gcr_byte_masks_clear(&c->bytes, idx, c->full_mask);
}

static void report_victim(struct gcr_cache *c, const struct cache_line *l, struct gcr_access *out)
{
    out->victim_line = l->tag;
    out->victim_valid = l->valid;
    out->victim_dirty = l->dirty;
    out->victim_used = l->used;
    c->stats.sectors_written_back += gcr_bits_popcount32(l->dirty);
}

/* Makes room for line_addr in its set (evicting if the set is full, reported in
 * out) and installs it with no valid sectors. b is its bucket, known from the
 * lookup that missed. Returns the line index. Inline: a miss in a full set is
 * a replay's commonest access, and the call cost more than the copies. */
static inline __attribute__((always_inline)) uint32_t
allocate(struct gcr_cache *c, uint64_t line_addr, uint32_t b, struct gcr_access *out)
{
    uint32_t set = line_addr == c->hint_line ? c->hint_set : gcr_set_index_of(&c->index, line_addr);
    uint32_t way, idx;
    struct cache_line *l;
    out->allocated = true;
    if (c->set[set].valid_count == c->ways) {
        /* A full set: the new line takes the victim's way. The way stays valid,
         * so only the hash entry and the replacement order change. */
        bool listed = c->repl == GCR_REPL_LRU || c->repl == GCR_REPL_FIFO;
        /* LRU and FIFO evict the tail, read here rather than through a call. */
        way = listed ? c->set[set].tail : choose_victim(c, set);
        idx = set * c->ways + way;
        l = &c->lines[idx];
        out->evicted = true;
        report_victim(c, l, out);
        c->stats.evictions++;
        hash_remove(c, idx);
        if (listed) {
            /* The tail becomes the head: in the circular list, a rotation by
             * one (also right for a 1-way set, whose only way is both). */
            c->set[set].head = (uint16_t)way;
            c->set[set].tail = l->prev;
        } else if (c->repl == GCR_REPL_NRU) {
            nru_forget(c, set, way);
            nru_reference(c, set, way);
        }
    } else {
        way = bitmap_first_clear(c, &c->valid_bits[(size_t)set * c->words]);
        idx = set * c->ways + way;
        l = &c->lines[idx];
        c->valid_bits[(size_t)set * c->words + (way >> 6)] |= UINT64_C(1) << (way & 63);
        c->set[set].valid_count++;
        if (c->repl == GCR_REPL_LRU || c->repl == GCR_REPL_FIFO)
            list_push_head(c, set, way);
        else if (c->repl == GCR_REPL_NRU)
            nru_reference(c, set, way);
    }
    l->tag = line_addr;
    l->valid = 0;
    l->dirty = 0;
    l->used = 0;
    if (c->track_bytes) /* the victim's partly written sectors leave with it */
        gcr_byte_masks_clear(&c->bytes, idx, c->full_mask);
    hash_insert(c, idx, b);
    return idx;
}

/* ---- creation --------------------------------------------------------------------------- */

static void reset_state(struct gcr_cache *c)
{
    memset(c->buckets, 0xff, (size_t)c->bucket_count * sizeof *c->buckets);
    for (uint32_t s = 0; s < c->geo.sets; s++) {
        bitmap_reset(c, &c->valid_bits[(size_t)s * c->words]);
        c->set[s].valid_count = 0;
        if (c->ref_bits) {
            bitmap_reset(c, &c->ref_bits[(size_t)s * c->words]);
            c->ref_count[s] = 0;
        }
        c->set[s].head = NO_WAY;
        c->set[s].tail = NO_WAY;
    }
    if (c->track_bytes)
        gcr_byte_masks_reset(&c->bytes);
}

struct gcr_cache *gcr_cache_create(const struct gcr_cache_geometry *g, struct gcr_err *err)
{
    char why[256];
    if (gcr_cache_geometry_check(g, why, sizeof why) != 0) {
        gcr_fail(err, GCR_E_CONFIG, "impossible cache geometry: %s", why);
        return NULL;
    }
    struct gcr_cache *c = gcr_small_table_alloc(sizeof *c);
    if (!c) {
        gcr_fail(err, GCR_E_NOMEM, "out of memory for a cache");
        return NULL;
    }
    c->geo = *g;
    c->repl = (uint8_t)g->repl;
    c->sectored = g->sectored;
    c->write_policy = (uint8_t)g->write_policy;
    c->write_alloc = (uint8_t)g->write_alloc;
    c->track_bytes = g->byte_masks;
    c->writes_hit = g->writes_hit;
    c->ways = g->ways;
    c->words = (g->ways + 63) / 64;
    c->pad_mask = g->ways % 64 ? ~UINT64_C(0) << (g->ways % 64) : 0;
    c->by_ways = gcr_divider_make(g->ways);
    gcr_set_index_init(&c->index, g);
    c->line_mask = ~(uint64_t)(g->line_bytes - 1);
    uint32_t sectors = g->line_bytes / g->sector_bytes;
    c->full_mask = sectors == 32 ? UINT32_MAX : (UINT32_C(1) << sectors) - 1;
    c->rng = g->seed;
    c->hint_line = UINT64_MAX;

    size_t nlines = (size_t)g->sets * g->ways;
    /* At least two buckets per line: chains stay short (a lookup reads 1.25
     * lines on average when full) for 8 bytes per line. */
    unsigned bucket_log2 = 4;
    while ((UINT64_C(1) << bucket_log2) < 2 * (uint64_t)nlines)
        bucket_log2++;
    c->bucket_count = UINT32_C(1) << bucket_log2;
    c->bucket_shift = (uint8_t)(64 - bucket_log2);

    size_t nwords = (size_t)g->sets * c->words;
    /* Small-table memory (core/table_memory.h): the tables of every cache
     * share huge pages, and 64-byte alignment keeps each 32-byte line record
     * in one host cache line. */
    c->lines = gcr_small_table_alloc(nlines * sizeof *c->lines);
    c->buckets = gcr_small_table_alloc((size_t)c->bucket_count * sizeof *c->buckets);
    c->valid_bits = gcr_small_table_alloc(nwords * sizeof *c->valid_bits);
    c->set = gcr_small_table_alloc((size_t)g->sets * sizeof *c->set);
    bool ok = c->lines && c->buckets && c->valid_bits && c->set;
    if (g->repl == GCR_REPL_NRU) {
        c->ref_bits = gcr_small_table_alloc(nwords * sizeof *c->ref_bits);
        c->ref_count = gcr_small_table_alloc((size_t)g->sets * sizeof *c->ref_count);
        ok = ok && c->ref_bits && c->ref_count;
    }
    if (g->byte_masks)
        ok = ok && gcr_byte_masks_init(&c->bytes, nlines, g->line_bytes, g->sector_bytes) == 0;
    if (!ok) {
        gcr_cache_destroy(c);
        gcr_fail(err, GCR_E_NOMEM, "out of memory for a cache of %u sets x %u ways", g->sets,
                 g->ways);
        return NULL;
    }
    reset_state(c);
    return c;
}

void gcr_cache_destroy(struct gcr_cache *c)
{
    if (!c)
        return;
    size_t nwords = (size_t)c->geo.sets * c->words;
    gcr_small_table_free(c->lines, (size_t)c->geo.sets * c->geo.ways * sizeof *c->lines);
    gcr_small_table_free(c->buckets, (size_t)c->bucket_count * sizeof *c->buckets);
    gcr_small_table_free(c->valid_bits, nwords * sizeof *c->valid_bits);
    gcr_small_table_free(c->set, (size_t)c->geo.sets * sizeof *c->set);
    gcr_small_table_free(c->ref_bits, nwords * sizeof *c->ref_bits);
    gcr_small_table_free(c->ref_count, (size_t)c->geo.sets * sizeof *c->ref_count);
    gcr_byte_masks_free(&c->bytes);
    gcr_small_table_free(c, sizeof *c);
}

const struct gcr_cache_geometry *gcr_cache_geometry(const struct gcr_cache *c) { return &c->geo; }

const struct gcr_cache_stats *gcr_cache_stats(const struct gcr_cache *c) { return &c->stats; }

uint32_t gcr_cache_set_index(const struct gcr_cache *c, uint64_t line_addr)
{
    return gcr_set_index_of(&c->index, line_addr & c->line_mask);
}

/* ---- accesses --------------------------------------------------------------------------- */

/* A read, with its statistics: each outcome knows which counters it changes
 * and which masks are equal or empty, so a hit costs one population count
 * and a line miss of a sectored cache one too, instead of one per counter. */
static inline __attribute__((always_inline)) void
read_access(struct gcr_cache *c, uint32_t idx, uint64_t line_addr, uint32_t b, uint32_t mask,
            struct gcr_access *out)
{
    struct gcr_cache_stats *st = &c->stats;
    unsigned requested = gcr_bits_popcount32(mask);
    st->accesses[0]++;
    st->sectors_requested[0] += requested;
    if (idx != NO_LINE) {
        struct cache_line *l = &c->lines[idx];
        uint32_t missing = mask & ~l->valid;
        l->used |= mask;
        touch(c, idx);
        if (!missing) {
            out->outcome = GCR_HIT;
            st->outcomes[0][GCR_HIT]++;
            return;
        }
        /* A non-sectored cache refills whatever is missing, so its lines stay whole
         * (a partial line only arises from a write-validate allocation). */
        uint32_t fetch = c->sectored ? missing : c->full_mask & ~l->valid;
        out->outcome = GCR_MISS_SECTOR;
        out->fetch_mask = fetch;
        l->valid |= fetch;
        if (c->track_bytes) /* the fetch completes partly written sectors */
            gcr_byte_masks_clear(&c->bytes, idx, fetch);
        st->outcomes[0][GCR_MISS_SECTOR]++;
        st->sectors_missed[0] += gcr_bits_popcount32(missing);
        st->sectors_fetched += gcr_bits_popcount32(fetch);
        return;
    }
    out->outcome = GCR_MISS_LINE;
    idx = allocate(c, line_addr, b, out);
    struct cache_line *l = &c->lines[idx];
    out->fetch_mask = c->sectored ? mask : c->full_mask;
    l->valid = out->fetch_mask;
    l->used = mask;
    st->outcomes[0][GCR_MISS_LINE]++;
    st->sectors_missed[0] += requested;
    st->sectors_fetched += c->sectored ? requested : gcr_bits_popcount32(c->full_mask);
}

/* Write miss with allocation (FETCH or VALIDATE): installs the line and the
 * written sectors; dirty for write-back. */
static void write_allocate(struct gcr_cache *c, uint64_t line_addr, uint32_t b, uint32_t mask,
                           struct gcr_access *out)
{
    uint32_t idx = allocate(c, line_addr, b, out);
    struct cache_line *l = &c->lines[idx];
    if (c->write_alloc == GCR_WALLOC_FETCH)
        out->fetch_mask = c->sectored ? mask : c->full_mask;
    l->valid = out->fetch_mask | mask;
    if (c->write_policy == GCR_WRITE_BACK)
        l->dirty = mask;
    l->used = mask;
}

static void write_access(struct gcr_cache *c, uint32_t idx, uint64_t line_addr, uint32_t b,
                         uint32_t mask, struct gcr_access *out)
{
    switch ((enum gcr_write_policy)c->write_policy) {
    case GCR_WRITE_EVICT:
        out->forward_mask = mask;
        if (idx != NO_LINE) {
            struct cache_line *l = &c->lines[idx];
            /* The victim fields describe the removed line; dirty sectors (only
             * possible after a dirty fill) must still be written back. */
            l->used |= mask;
            report_victim(c, l, out);
            out->invalidated = true;
            c->stats.invalidations++;
            uint32_t set = gcr_divider_div(c->by_ways, idx);
            remove_line(c, set, idx - set * c->ways);
        }
        return;
    case GCR_WRITE_THROUGH:
        out->forward_mask = mask;
        if (idx != NO_LINE) {
            struct cache_line *l = &c->lines[idx];
            l->valid |= mask;
            l->used |= mask;
            touch(c, idx);
        } else if (c->write_alloc != GCR_WALLOC_NONE) {
            write_allocate(c, line_addr, b, mask, out);
        }
        return;
    case GCR_WRITE_BACK:
    case GCR_WRITE_POLICY_COUNT:
        if (idx != NO_LINE) {
            struct cache_line *l = &c->lines[idx];
            l->valid |= mask;
            l->dirty |= mask;
            l->used |= mask;
            touch(c, idx);
        } else if (c->write_alloc != GCR_WALLOC_NONE) {
            write_allocate(c, line_addr, b, mask, out);
        } else {
            out->forward_mask = mask; /* write-around */
        }
        return;
    }
}

/* The sectors of sector_mask were written whole: their line (if the write
 * left it resident) keeps no partly written bytes for them. */
static void written_whole(struct gcr_cache *c, uint64_t line_addr, uint32_t sector_mask)
{
    uint32_t idx = lookup(c, line_addr);
    if (idx != NO_LINE)
        gcr_byte_masks_clear(&c->bytes, idx, sector_mask);
}

/* Inline at every caller when the program is linked with link-time
 * optimisation (release builds): an L1 or L2 access is the replay's commonest
 * call (several per warp memory instruction, from only 8 call sites), and a
 * call saved and restored 6 registers and zeroed *out through memory, where
 * inline the result stays in registers. Other builds call it as before.
 * GCC only: its always_inline needs the inline keyword (cache.h declares the
 * function without it, so this stays its external definition), and clang
 * refuses an inline function of external linkage that calls this file's
 * static helpers (-Wstatic-in-inline); clang builds here (the fuzzer's) do
 * not need the speed. */
#if defined(__GNUC__) && !defined(__clang__)
#define INLINE_IN_LTO_CALLERS __attribute__((always_inline)) inline
#else
#define INLINE_IN_LTO_CALLERS
#endif
INLINE_IN_LTO_CALLERS void
gcr_cache_access(struct gcr_cache *c, uint64_t line_addr, uint32_t sector_mask, bool is_write,
                 struct gcr_access *out)
{
    line_addr &= c->line_mask;
    sector_mask &= c->full_mask;
    *out = (struct gcr_access){0};

    uint32_t b = line_addr == c->hint_line ? c->hint_bucket : bucket_of(c, line_addr);
    uint32_t idx = lookup_in(c, b, line_addr);
    if (!is_write) {
        read_access(c, idx, line_addr, b, sector_mask, out);
        return;
    }

    uint32_t valid_before = idx != NO_LINE ? c->lines[idx].valid : 0;
    uint32_t missed = sector_mask & ~valid_before;
    out->outcome = idx == NO_LINE ? GCR_MISS_LINE : missed ? GCR_MISS_SECTOR : GCR_HIT;
    write_access(c, idx, line_addr, b, sector_mask, out);
    if (c->writes_hit) {
        out->outcome = GCR_HIT;
        missed = 0;
    }
    if (c->track_bytes) /* whole sectors written: nothing of them is partly written now */
        written_whole(c, line_addr, sector_mask);

    struct gcr_cache_stats *st = &c->stats;
    st->accesses[1]++;
    st->outcomes[1][out->outcome]++;
    st->sectors_requested[1] += gcr_bits_popcount32(sector_mask);
    st->sectors_missed[1] += gcr_bits_popcount32(missed);
    st->sectors_fetched += gcr_bits_popcount32(out->fetch_mask);
    st->sectors_forwarded += gcr_bits_popcount32(out->forward_mask);
}

void gcr_cache_prefetch(struct gcr_cache *c, uint64_t line_addr, struct gcr_cache_hint *h)
{
    line_addr &= c->line_mask;
    *h = (struct gcr_cache_hint){c, bucket_of(c, line_addr), gcr_set_index_of(&c->index, line_addr)};
    c->hint_line = line_addr;
    c->hint_bucket = h->bucket;
    c->hint_set = h->set;
    __builtin_prefetch(&c->buckets[h->bucket]);
    __builtin_prefetch(&c->set[h->set]);
}

void gcr_cache_prefetch_follow(const struct gcr_cache_hint *h)
{
    const struct gcr_cache *c = h->cache;
    if (!c)
        return;
    uint32_t i = c->buckets[h->bucket];
    if (i != NO_LINE)
        __builtin_prefetch(&c->lines[i]);
    /* Only LRU and FIFO know their victim before the access: the tail. */
    const struct set_state *st = &c->set[h->set];
    if ((c->repl == GCR_REPL_LRU || c->repl == GCR_REPL_FIFO) && st->valid_count == c->ways)
        __builtin_prefetch(&c->lines[(size_t)h->set * c->ways + st->tail]);
}

void gcr_cache_fill(struct gcr_cache *c, uint64_t line_addr, uint32_t sector_mask, bool dirty,
                    struct gcr_access *out)
{
    line_addr &= c->line_mask;
    sector_mask &= c->full_mask;
    /* A non-sectored cache holds whole lines only; just the given sectors are dirty. */
    uint32_t install = c->sectored ? sector_mask : c->full_mask;
    *out = (struct gcr_access){0};

    uint32_t b = bucket_of(c, line_addr);
    uint32_t idx = lookup_in(c, b, line_addr);
    if (idx == NO_LINE) {
        out->outcome = GCR_MISS_LINE;
        idx = allocate(c, line_addr, b, out);
    } else {
        out->outcome = sector_mask & ~c->lines[idx].valid ? GCR_MISS_SECTOR : GCR_HIT;
    }
    struct cache_line *l = &c->lines[idx];
    l->valid |= install;
    if (dirty)
        l->dirty |= sector_mask;
    if (c->track_bytes)
        gcr_byte_masks_clear(&c->bytes, idx, install);
}

void gcr_cache_write_bytes(struct gcr_cache *c, uint64_t line_addr, uint32_t sector_mask,
                           const uint64_t *bytes, struct gcr_access *out)
{
    line_addr &= c->line_mask;
    sector_mask &= c->full_mask;
    if (!c->track_bytes) {
        gcr_cache_access(c, line_addr, sector_mask, true, out);
        return;
    }
    /* The sectors written in part, and what they held before: the write
     * below makes every written sector valid, which is then undone for those
     * that neither were valid nor become whole with these bytes. */
    uint32_t whole = gcr_byte_masks_whole(&c->bytes, bytes, sector_mask);
    uint32_t idx = lookup(c, line_addr);
    uint32_t valid_before = idx != NO_LINE ? c->lines[idx].valid : 0;
    uint64_t held[4] = {0}; /* up to 256-byte lines */
    if (idx != NO_LINE)
        memcpy(held, &c->bytes.bytes[(size_t)idx * c->bytes.words],
               c->bytes.words * sizeof *held);
    gcr_cache_access(c, line_addr, sector_mask, true, out);
    uint32_t part = sector_mask & ~whole & ~valid_before & ~out->fetch_mask;
    if (!part || (idx = lookup(c, line_addr)) == NO_LINE)
        return; /* whole sectors only, or nothing allocated (write-around, evict) */
    if (out->allocated)
        memset(held, 0, sizeof held); /* a new line: nothing was written before */
    /* The slot holds what was written before, plus these bytes. */
    gcr_byte_masks_add(&c->bytes, idx, part, held);
    uint32_t complete = gcr_byte_masks_add(&c->bytes, idx, part, bytes);
    c->lines[idx].valid &= ~(part & ~complete);
}

void gcr_cache_discard(struct gcr_cache *c, uint64_t line_addr, uint32_t sector_mask)
{
    line_addr &= c->line_mask;
    uint32_t idx = lookup(c, line_addr);
    if (idx == NO_LINE)
        return;
    struct cache_line *l = &c->lines[idx];
    l->valid &= ~sector_mask;
    l->dirty &= ~sector_mask;
    if (c->track_bytes)
        gcr_byte_masks_clear(&c->bytes, idx, sector_mask);
}

void gcr_cache_swap_stats(struct gcr_cache *c, struct gcr_cache_stats *other)
{
    struct gcr_cache_stats mine = c->stats;
    c->stats = *other;
    *other = mine;
}

int gcr_cache_probe(const struct gcr_cache *c, uint64_t line_addr, uint32_t *valid)
{
    uint32_t idx = lookup(c, line_addr & c->line_mask);
    if (idx == NO_LINE)
        return 0;
    if (valid)
        *valid = c->lines[idx].valid;
    return 1;
}

int64_t gcr_cache_slot(const struct gcr_cache *c, uint64_t line_addr)
{
    uint32_t idx = lookup(c, line_addr & c->line_mask);
    return idx == NO_LINE ? -1 : (int64_t)idx;
}

void gcr_cache_for_each_line(const struct gcr_cache *c,
                             void (*fn)(void *ctx, const struct gcr_line_state *line), void *ctx)
{
    for (uint32_t s = 0; s < c->geo.sets; s++) {
        if (!c->set[s].valid_count)
            continue;
        const uint64_t *bits = &c->valid_bits[(size_t)s * c->words];
        for (uint32_t w = 0; w < c->words; w++) {
            uint64_t word = w == c->words - 1 ? bits[w] & ~c->pad_mask : bits[w];
            for (; word; word &= word - 1) {
                const struct cache_line *l =
                    &c->lines[(size_t)s * c->ways + w * 64 + gcr_bits_ctz64(word)];
                struct gcr_line_state st = {l->tag, l->valid, l->dirty, l->used};
                fn(ctx, &st);
            }
        }
    }
}

struct invalidate_ctx {
    struct gcr_cache *c;
    void (*on_dirty)(void *ctx, uint64_t line_addr, uint32_t dirty);
    void *ctx;
};

static void invalidate_one(void *vctx, const struct gcr_line_state *line)
{
    struct invalidate_ctx *ic = vctx;
    if (line->dirty) {
        ic->c->stats.sectors_written_back += gcr_bits_popcount32(line->dirty);
        if (ic->on_dirty)
            ic->on_dirty(ic->ctx, line->line_addr, line->dirty);
    }
    ic->c->stats.invalidations++;
}

void gcr_cache_invalidate_all(struct gcr_cache *c,
                              void (*on_dirty)(void *ctx, uint64_t line_addr, uint32_t dirty),
                              void *ctx)
{
    struct invalidate_ctx ic = {c, on_dirty, ctx};
    gcr_cache_for_each_line(c, invalidate_one, &ic);
    reset_state(c);
}
