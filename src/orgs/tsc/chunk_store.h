/* The tag-split storage of one L1 (Li et al., ICS'16, Sec. 3.1-3.3).
 *
 * A set holds `groups` chunk groups of `chunks` chunk slots each (a group is
 * the size of one line). A group has one shared tag; a slot has a private tag,
 * its chunk's position in the line, a valid bit and an NRU bit. A chunk may sit
 * in any slot of any group whose shared tag is its line's, so a line's chunks
 * can spread over groups and one group can hold chunks of several lines.
 *
 * The model keeps each slot's full line address rather than its private tag:
 * within a set, shared tag + private tag = the line's whole tag, so comparing
 * line addresses is the same comparison (the set index, hashed or not, and the
 * tag together determine the line). Shared tags are kept whole (all address
 * bits above the private tag), so a trace's 64-bit addresses never alias; the
 * configured shared-tag width only enters the storage figures. */
#ifndef GCREPLAY_ORGS_TSC_CHUNK_STORE_H
#define GCREPLAY_ORGS_TSC_CHUNK_STORE_H

#include <stdint.h>

#include "cache/cache_internal.h" /* the set-index functions, prepared once */
#include "gcreplay/cache.h"
#include "gcreplay/error.h"

#define TSC_NO_LINE UINT64_MAX

struct tsc_geometry {
    uint32_t sets;
    uint32_t groups;      /* chunk groups per set (the L1's ways) */
    uint32_t chunks;      /* chunks per group = chunks per line */
    uint32_t line_bytes;
    enum gcr_index_fn index;
    unsigned private_bits;
    uint64_t seed;        /* victim choice among equal NRU bits is random, seeded */
};

/* Chunks of one line leaving the store together (masks by chunk position). */
struct tsc_victim {
    uint64_t line;
    uint32_t chunks; /* chunks that left */
    uint32_t used;   /* of those, requested by some access while resident */
    uint32_t reused; /* of those, hit by an access after their fill */
};

struct tsc_store {
    struct tsc_geometry geo;
    uint32_t slots;       /* per set: groups x chunks */
    unsigned tag_shift;   /* line address >> tag_shift = the line's tag */
    struct gcr_set_index index;
    uint64_t *line;       /* [set][slot]: line of the chunk there, TSC_NO_LINE if invalid */
    uint8_t *pos;         /* [set][slot]: the chunk's position in its line */
    uint8_t *nru;         /* [set][slot]: NRU reference bit */
    uint8_t *used;        /* [set][slot]: requested since the fill */
    uint8_t *reused;      /* [set][slot]: hit since the fill */
    uint64_t *gtag;       /* [set][group]: shared tag (TSC_NO_LINE: never tagged) */
    uint16_t *gcount;     /* [set][group]: valid chunks */
    uint32_t *valid_count, *nru_count; /* per set */
    uint64_t rng;
    uint32_t *avail;      /* scratch: slots to fill */
    struct tsc_victim *victims; /* scratch: lines losing chunks in one allocation */
    uint16_t *candidates; /* scratch: victim candidates, clear NRU bits then set ones */

    /* What allocation did, cumulative. */
    uint64_t replacements;      /* allocations that had to invalidate valid chunks */
    uint64_t multi_line_replacements; /* ... chunks of more than one line at once */
    uint64_t chunks_replaced;   /* valid chunks invalidated to make room */
    uint64_t group_flushes;     /* groups emptied so they could take another shared tag */
    uint64_t group_retags;      /* groups given a shared tag different from their last */
};

int tsc_store_init(struct tsc_store *s, const struct tsc_geometry *g, struct gcr_err *err);
void tsc_store_fini(struct tsc_store *s);

static inline uint32_t tsc_store_set(const struct tsc_store *s, uint64_t line)
{
    return gcr_set_index_of(&s->index, line);
}

/* Chunks of `line` held in its set (bit = chunk position). No state change. */
uint32_t tsc_store_lookup(const struct tsc_store *s, uint32_t set, uint64_t line);

/* An access found `hit` chunks of line: they become referenced (NRU, reuse). */
void tsc_store_touch(struct tsc_store *s, uint32_t set, uint64_t line, uint32_t hit);

/* Places the `missing` chunks of line, first in free slots of groups with the
 * line's shared tag, then in empty groups, and otherwise invalidates valid
 * chunks chosen by NRU (random among equal bits); a chunk in a group of another
 * shared tag takes its whole group with it, so the group can be retagged.
 * `requested` marks which placed chunks the access asked for (coarse mode
 * places others too). The lines that lost chunks go to s->victims; returns
 * how many. Chunks of `line` itself are never chosen. */
uint32_t tsc_store_allocate(struct tsc_store *s, uint32_t set, uint64_t line, uint32_t missing,
                            uint32_t requested);

/* Removes the chunks `mask` of line (write-evict); what left goes to *out.
 * Returns the number of chunks removed. */
uint32_t tsc_store_invalidate(struct tsc_store *s, uint32_t set, uint64_t line, uint32_t mask,
                              struct tsc_victim *out);

/* Empties the store, calling fn once per line that held chunks. */
void tsc_store_clear(struct tsc_store *s, void (*fn)(void *ctx, const struct tsc_victim *v),
                     void *ctx);

#endif
