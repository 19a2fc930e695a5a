/* Dense ids for 64-bit keys, and per-id state in columns.
 *
 * An analysis that remembers something about every line it ever sees needs a
 * map line -> state with millions of entries. Kept as one hash table per
 * analysis, each event probes every table once, each table is larger than
 * the host's caches, and each line seen for the first time is a miss to DRAM
 * in every one of them. An idmap instead gives each key a small integer, the
 * next one at the key's first lookup, and per-key state lives in columns:
 * arrays indexed by that id. So
 *  - one probe finds a line's id for every analysis (the replay shares one
 *    idmap of line addresses, gcr_sim_info.lines, and hands each event's id
 *    to the analyses: gcr_event.line_id);
 *  - a new line's state is the next element of each column, next to the
 *    state of the lines first seen just before it: warm in the host's caches,
 *    not a miss at a random place;
 *  - columns never move or rehash: they grow by chunks of ids, and a chunk
 *    starts zero-filled (0 is every column's "nothing yet");
 *  - state is as compact as its fields: a column has no load factor.
 * Analyses also use private idmaps, e.g. for (SM, line id) pairs.
 *
 * Keys are grouped: keys that differ only in bits [key_shift, key_shift +
 * group_bits) share one entry of a hash table of groups, which holds their
 * 2^group_bits ids (a "leaf"). The line map groups 64 consecutive lines (8
 * KB of 128-byte lines), so a stream of lines probes the table once per 64
 * lines, and costs 4 bytes of leaf per line instead of a 16-byte slot at a
 * load below 0.6 (and a table of groups small enough to stay in the host's
 * caches). With group_bits 0 the table holds the ids themselves.
 *
 * Keys are multiples of 2^key_shift whose group (key >> (key_shift +
 * group_bits)) is not UINT64_MAX. Ids are 0, 1, 2, ... in order of first
 * lookup, at most 2^32 - 2 of them. Nothing is ever removed. */
#ifndef GCREPLAY_IDMAP_H
#define GCREPLAY_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcreplay/error.h"

#define GCR_IDMAP_NONE UINT32_MAX /* out of memory (or of ids) */

struct gcr_arena;

/* Ids per chunk of every column. */
#define GCR_COLUMN_CHUNK_SHIFT 16
#define GCR_COLUMN_CHUNK_IDS (UINT32_C(1) << GCR_COLUMN_CHUNK_SHIFT)

/* Per-id state of `elem` bytes, zero until written. Owned by its idmap. */
struct gcr_column {
    unsigned char **chunks; /* chunk c holds ids c * GCR_COLUMN_CHUNK_IDS ... */
    size_t elem;
    /* For columns of the replay's shared line map: the event kinds
     * (gcr_event_kind) whose handling reads the element of the event's line.
     * The event bus fetches it into the host's caches before delivering
     * such an event (src/replay/bus.h). 0 = none; the analysis sets it. */
    unsigned prefetch_kinds;
};

static inline void *gcr_column_at(const struct gcr_column *c, uint32_t id)
{
    return c->chunks[id >> GCR_COLUMN_CHUNK_SHIFT] +
           (size_t)(id & (GCR_COLUMN_CHUNK_IDS - 1)) * c->elem;
}

/* The table of groups: open addressing with linear probing. A slot is the
 * stored group (group + 1, so a zero slot is free and fresh zero-filled
 * memory is an empty table) and its ids: with group_bits 0 the id + 1 of its
 * one key, else the group's leaf, 2^group_bits words of id + 1 (0: no id
 * yet) that never move. Four slots to a 64-byte host line. A group's probe
 * starts at the TOP bits of its hash, so doubling the table sends slot i to
 * about 2i and is two sequential streams, not one cache miss per group. */
struct gcr_idmap_slot {
    uint64_t stored; /* group + 1; 0 = free */
    union {
        uint32_t *leaf; /* group_bits > 0 */
        uint32_t id_p1; /* group_bits == 0 */
    } ids;
};

struct gcr_idmap {
    struct gcr_idmap_slot *slots;
    uint32_t mask;      /* slots - 1 */
    unsigned shift;     /* 64 - log2(slots): home = hash >> shift */
    uint32_t groups;    /* slots in use */
    uint32_t grow_at;   /* groups at which the table doubles */
    unsigned key_shift, group_bits;
    uint32_t count;     /* ids handed out */
    /* The group looked up last and where its ids are (a leaf, or the id + 1
     * inside its slot, which a doubling moves: it clears the memo). */
    uint64_t memo_stored; /* 0: none */
    uint32_t *memo_ids;
    struct gcr_column **columns;
    size_t ncolumns;
    uint32_t chunks;         /* chunks allocated in every column */
    uint32_t chunk_slots;    /* length of every column's chunk array */
    struct gcr_arena *arena; /* leaves and column chunks (huge pages) */
};

/* Fibonacci hashing: one multiply, the top bits mix every key bit. */
static inline uint64_t gcr_idmap_hash(uint64_t stored)
{
    return stored * UINT64_C(0x9e3779b97f4a7c15);
}

/* An empty map of keys that are multiples of 2^key_shift, grouped by
 * 2^group_bits consecutive multiples (group_bits <= 12). */
int gcr_idmap_init(struct gcr_idmap *m, unsigned key_shift, unsigned group_bits,
                   struct gcr_err *err);
void gcr_idmap_fini(struct gcr_idmap *m);

/* A new column of `elem` bytes per id (zero-filled, including for ids already
 * handed out); NULL with err filled if out of memory. */
struct gcr_column *gcr_idmap_add_column(struct gcr_idmap *m, size_t elem, struct gcr_err *err);

/* Out of line (rare): adds the group whose probe ended at free slot `slot`
 * and returns where its ids are, or NULL if out of memory. */
uint32_t *gcr_idmap_add_group(struct gcr_idmap *m, uint64_t stored, uint32_t slot);
/* Out of line (once per key): gives *ids the next id. */
uint32_t gcr_idmap_new_id(struct gcr_idmap *m, uint32_t *ids);

/* Where the ids of key's group are (NULL if the group is new and `add` is
 * false, or out of memory); *offset is key's place among them. */
static inline uint32_t *gcr_idmap_ids(struct gcr_idmap *m, uint64_t key, bool add,
                                      uint32_t *offset)
{
    uint64_t k = key >> m->key_shift;
    *offset = (uint32_t)k & ((UINT32_C(1) << m->group_bits) - 1);
    uint64_t stored = (k >> m->group_bits) + 1;
    if (stored == m->memo_stored)
        return m->memo_ids;
    for (uint32_t i = (uint32_t)(gcr_idmap_hash(stored) >> m->shift);; i = (i + 1) & m->mask) {
        struct gcr_idmap_slot *s = &m->slots[i];
        if (s->stored == stored) {
            m->memo_stored = stored;
            return m->memo_ids = m->group_bits ? s->ids.leaf : &s->ids.id_p1;
        }
        if (!s->stored)
            return add ? gcr_idmap_add_group(m, stored, i) : NULL;
    }
}

/* The id kept in a key's word (&ids[offset] of gcr_idmap_ids), the next id
 * if it has none yet: for callers that find the word ahead (prefetching it)
 * and read it later. GCR_IDMAP_NONE if out of memory. */
static inline uint32_t gcr_idmap_word_id(struct gcr_idmap *m, uint32_t *word)
{
    return *word ? *word - 1 : gcr_idmap_new_id(m, word);
}

/* The id of key, given the next id if the key is new; GCR_IDMAP_NONE if out
 * of memory (every column then stays as it was). */
static inline uint32_t gcr_idmap_get(struct gcr_idmap *m, uint64_t key)
{
    uint32_t offset;
    uint32_t *ids = gcr_idmap_ids(m, key, true, &offset);
    return ids ? gcr_idmap_word_id(m, &ids[offset]) : GCR_IDMAP_NONE;
}

/* The id of key if it has one, else GCR_IDMAP_NONE (nothing is added). */
static inline uint32_t gcr_idmap_find(struct gcr_idmap *m, uint64_t key)
{
    uint32_t offset;
    const uint32_t *ids = gcr_idmap_ids(m, key, false, &offset);
    return ids && ids[offset] ? ids[offset] - 1 : GCR_IDMAP_NONE;
}

/* Asks the CPU to fetch the host line where key's probe starts: call it some
 * hundreds of nanoseconds before the lookup of a key likely to be cold. */
static inline void gcr_idmap_prefetch(const struct gcr_idmap *m, uint64_t key)
{
    uint64_t stored = (key >> (m->key_shift + m->group_bits)) + 1;
    __builtin_prefetch(&m->slots[(uint32_t)(gcr_idmap_hash(stored) >> m->shift)]);
}

#endif
