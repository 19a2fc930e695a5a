/* One set-associative, optionally sectored cache (one L1 of one SM, one L2 slice).
 *
 * The cache only keeps tags and per-sector state and counts what happens; it
 * does not talk to other levels. Each access returns what the caller must send
 * to the next level (sectors to fetch, write sectors to forward, a dirty victim
 * to write back), so the same model serves every level and organisation.
 *
 * Lines are identified by their full line address (addr & ~(line_bytes-1)).
 * Lookups use a hash of the line address, never a scan of the set, so a
 * 4-set x 256-way cache costs the same per access as a 4-way one. */
#ifndef GCREPLAY_CACHE_H
#define GCREPLAY_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcreplay/error.h"

enum gcr_repl_policy {
    GCR_REPL_LRU = 0,
    GCR_REPL_FIFO,
    GCR_REPL_RANDOM, /* seeded, reproducible */
    GCR_REPL_NRU,    /* one reference bit per way */
    GCR_REPL_COUNT
};

enum gcr_index_fn {
    GCR_INDEX_LINEAR = 0, /* (addr / line) mod sets */
    GCR_INDEX_XOR,        /* GPGPU-Sim BITWISE_XORING: linear ^ (higher bits & (sets-1)) */
    GCR_INDEX_FERMI,      /* GPGPU-Sim FERMI_HASH_SET_FUNCTION (32 or 64 sets, 128-B lines) */
    GCR_INDEX_IPOLY,      /* GPGPU-Sim HASH_IPOLY (16, 32 or 64 sets) */
    GCR_INDEX_COUNT
};

enum gcr_write_policy {
    GCR_WRITE_EVICT = 0, /* a write invalidates a resident line and goes to the next level */
    GCR_WRITE_THROUGH,   /* a write updates a resident line and also goes to the next level */
    GCR_WRITE_BACK,      /* a write marks sectors dirty; dirty victims are written back */
    GCR_WRITE_POLICY_COUNT
};

enum gcr_write_alloc {
    GCR_WALLOC_NONE = 0, /* write miss: no line allocated; the write goes to the next level */
    GCR_WALLOC_FETCH,    /* write miss: allocate and fetch the written sectors, then write */
    GCR_WALLOC_VALIDATE, /* write miss: allocate; written sectors become valid without a fetch */
    GCR_WALLOC_COUNT
};

struct gcr_cache_geometry {
    uint32_t sets;
    uint32_t ways;
    uint32_t line_bytes;   /* power of two, 16..256 */
    uint32_t sector_bytes; /* power of two dividing line_bytes; at most 32 sectors per line */
    bool sectored;         /* false: a line miss fetches the whole line */
    enum gcr_repl_policy repl;
    enum gcr_index_fn index;
    enum gcr_write_policy write_policy;
    enum gcr_write_alloc write_alloc;
    uint64_t seed; /* for GCR_REPL_RANDOM */
    /* Address interleaving removed before set indexing (an L2 slice sees only
     * every strip_count-th granule of strip_bytes): the set index is computed
     * from (addr / (strip_bytes*strip_count)) * strip_bytes + addr % strip_bytes.
     * strip_count <= 1 disables it. */
    uint64_t strip_bytes;
    uint32_t strip_count;
    /* A write that covers only part of a sector leaves it partly valid: the
     * written bytes are kept (gcr_cache_write_bytes names them), the sector
     * stays not valid, and a read of it misses and fetches it, the written
     * bytes merged in. False: a written sector becomes wholly valid. */
    bool byte_masks;
    /* Every write counts as a hit (a write never waits for data; Nsight
     * Compute's L2 counters count writes so). False: a write hits only when
     * its line and sectors are present (GPGPU-Sim's counting). */
    bool writes_hit;
};

/* Returns 0 if the geometry is possible, else -1 with a reason in why. */
int gcr_cache_geometry_check(const struct gcr_cache_geometry *g, char *why, size_t why_len);

/* GPGPU-Sim's IPOLY hash for n = 16, 32 or 64 buckets: index (the low log2(n)
 * bits) XORed with polynomial combinations of the higher bits. Used for set
 * indices and for memory-partition (L2 slice) selection. */
uint32_t gcr_ipoly_hash(uint64_t higher, uint32_t index, uint32_t n);

/* The set a line address maps to (after strip removal and the index function). */
uint32_t gcr_cache_set_of(const struct gcr_cache_geometry *g, uint64_t line_addr);

enum gcr_outcome {
    GCR_HIT = 0,         /* tag present and every requested sector valid */
    GCR_MISS_SECTOR = 1, /* tag present, some requested sector not valid */
    GCR_MISS_LINE = 2,   /* tag absent */
    GCR_OUTCOME_COUNT
};

struct gcr_access {
    enum gcr_outcome outcome;
    uint32_t fetch_mask;   /* sectors to read from the next level */
    uint32_t forward_mask; /* write sectors to send to the next level */
    bool invalidated;      /* write-evict removed the accessed line */
    bool allocated;        /* the access installed its line (a line miss that allocates) */
    bool evicted;          /* a valid line was replaced to make room */
    uint64_t victim_line;
    uint32_t victim_valid; /* sectors the victim held */
    uint32_t victim_dirty; /* dirty sectors the caller must write back */
    uint32_t victim_used;  /* sectors referenced while the victim was resident */
};

struct gcr_cache_stats {
    uint64_t accesses[2];                       /* [0] reads, [1] writes */
    uint64_t outcomes[2][GCR_OUTCOME_COUNT];    /* reads/writes x outcome */
    uint64_t sectors_requested[2];
    uint64_t sectors_missed[2];                 /* requested sectors not valid at access */
    uint64_t sectors_fetched;                   /* sum of fetch_mask sizes */
    uint64_t sectors_forwarded;                 /* sum of forward_mask sizes */
    uint64_t sectors_written_back;              /* dirty sectors of victims and flushes */
    uint64_t evictions;                         /* valid lines replaced */
    uint64_t invalidations;                     /* lines removed by write-evict or invalidate_all */
};
/* Summed as an array of counters (gcr_add_u64s; core/bits.h's GCR_U64_COUNTERS checks it). */
_Static_assert(sizeof(struct gcr_cache_stats) ==
                   (2 + 2 * GCR_OUTCOME_COUNT + 2 + 2 + 5) * sizeof(uint64_t),
               "struct gcr_cache_stats must be uint64_t counters only");

struct gcr_cache;

struct gcr_cache *gcr_cache_create(const struct gcr_cache_geometry *g, struct gcr_err *err);
void gcr_cache_destroy(struct gcr_cache *c);
const struct gcr_cache_geometry *gcr_cache_geometry(const struct gcr_cache *c);
/* gcr_cache_set_of() for this cache, with its index function already prepared
 * (cheap enough to ask on every access). */
uint32_t gcr_cache_set_index(const struct gcr_cache *c, uint64_t line_addr);

/* One request: line address plus the sectors it touches (bit i = sector i). */
void gcr_cache_access(struct gcr_cache *c, uint64_t line_addr, uint32_t sector_mask, bool is_write,
                      struct gcr_access *out);

/* A write of exactly the bytes set in bytes[] (bit i of word i / 64 is byte i
 * of the line; line_bytes / 64 words, at least one) to the sectors of
 * sector_mask: as gcr_cache_access's write, except that with
 * geometry.byte_masks a sector the bytes cover only in part, and that was not
 * valid, becomes partly valid instead of valid (src/cache/README.md,
 * "Partly written sectors"). */
void gcr_cache_write_bytes(struct gcr_cache *c, uint64_t line_addr, uint32_t sector_mask,
                           const uint64_t *bytes, struct gcr_access *out);

/* Drops sectors of a resident line (another copy of it was written), without
 * counting an access and without writing anything back: for copies the caller
 * knows hold no data of their own. The line stays resident, perhaps with no
 * valid sector. */
void gcr_cache_discard(struct gcr_cache *c, uint64_t line_addr, uint32_t sector_mask);

/* Exchanges the cache's counters with *other: accesses made between two swaps
 * are counted in *other (a second account for the same cache). */
void gcr_cache_swap_stats(struct gcr_cache *c, struct gcr_cache_stats *other);

/* A hint that line_addr will be accessed soon: no effect on results, only on
 * the host's caches. The state an access reads is a chain of dependent loads
 * (hash bucket -> line record; set state -> replacement victim), so the hint
 * comes in two stages, the second issued once the first one's loads have had
 * time to arrive: gcr_cache_prefetch fetches the bucket and the set state and
 * records where they are in *h; gcr_cache_prefetch_follow(h) then fetches the
 * line record and the victim they name. (A third stage for the victim's own
 * bucket cost more instructions than it saved.) A hint with a NULL cache is
 * ignored. Valid until the cache is destroyed. The cache keeps the bucket and
 * set of the last line prefetched, for the access to it. */
struct gcr_cache_hint {
    const struct gcr_cache *cache;
    uint32_t bucket, set;
};
void gcr_cache_prefetch(struct gcr_cache *c, uint64_t line_addr, struct gcr_cache_hint *h);
void gcr_cache_prefetch_follow(const struct gcr_cache_hint *h);

/* Installs sectors without counting an access (e.g. memcpy pre-fill of L2). */
void gcr_cache_fill(struct gcr_cache *c, uint64_t line_addr, uint32_t sector_mask, bool dirty,
                    struct gcr_access *out);

/* 1 if the line is resident (valid sectors in *valid if not NULL), else 0. No state change. */
int gcr_cache_probe(const struct gcr_cache *c, uint64_t line_addr, uint32_t *valid);

/* Where a resident line lives: set x ways + way, in [0, sets x ways), or -1
 * if it is not resident. The slot stays the line's until the line leaves, so
 * a cache used as a tag store can keep per-line data in an array parallel to
 * its ways (COLAB's owner pointers). No state change. */
int64_t gcr_cache_slot(const struct gcr_cache *c, uint64_t line_addr);

/* A resident line as gcr_cache_for_each_line shows it. */
struct gcr_line_state {
    uint64_t line_addr;
    uint32_t valid, dirty, used; /* sector masks */
};

/* Calls fn for every resident line (set by set, way by way). No state change. */
void gcr_cache_for_each_line(const struct gcr_cache *c,
                             void (*fn)(void *ctx, const struct gcr_line_state *line), void *ctx);

/* Invalidates every line (L1 at a kernel boundary); dirty lines are handed to
 * on_dirty (may be NULL) for write-back before they go. */
void gcr_cache_invalidate_all(struct gcr_cache *c,
                              void (*on_dirty)(void *ctx, uint64_t line_addr, uint32_t dirty),
                              void *ctx);

const struct gcr_cache_stats *gcr_cache_stats(const struct gcr_cache *c);

/* Names used in configs and reports. */
const char *gcr_repl_name(enum gcr_repl_policy p);     /* "lru" "fifo" "random" "nru" */
const char *gcr_index_name(enum gcr_index_fn f);       /* "linear" "xor" "fermi" "ipoly" */
/* "write_evict" "write_through" "write_back" */
const char *gcr_write_policy_name(enum gcr_write_policy p);
const char *gcr_write_alloc_name(enum gcr_write_alloc a);   /* "none" "fetch" "validate" */
int gcr_repl_from_name(const char *s);                  /* -1 if unknown */
int gcr_index_from_name(const char *s);
int gcr_write_policy_from_name(const char *s);
int gcr_write_alloc_from_name(const char *s);

#endif
