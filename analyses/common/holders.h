/* Which cache instances hold a line, in one 64-bit word per line.
 *
 * Most lines are held by few instances: up to four sit in the word as 16-bit
 * lanes of instance + 1 (0 = free lane). A fifth moves the set to a bitset of
 * one bit per instance in a pool (one more host line for that line's
 * events), the word then saying so: lane 3 GCR_HOLDERS_WIDE, lane 2 how many
 * hold it, lanes 0-1 the bitset's index. A wide set stays wide until the
 * line has no holder left (gcr_holders_remove returns it to the pool then).
 * A zero word is the empty set, so zero-filled columns start empty.
 *
 * Used by the analyses that follow L1 residency from events (replication,
 * locality). */
#ifndef GCR_ANALYSES_HOLDERS_H
#define GCR_ANALYSES_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GCR_HOLDERS_LANES 4
#define GCR_HOLDERS_WIDE 0xffffu
/* Instances are kept as instance + 1 below GCR_HOLDERS_WIDE. */
#define GCR_HOLDERS_MAX_INSTANCES 0xfffeu

/* The bitsets of wide sets. */
struct gcr_holders_pool {
    uint32_t words;      /* per bitset: ceil(instances / 64) */
    uint64_t *bits;
    uint32_t *free_list; /* indexes of free bitsets */
    size_t cap, top, nfree; /* bitsets allocated; first never used; free */
};

void gcr_holders_pool_init(struct gcr_holders_pool *p, uint32_t instances);
void gcr_holders_pool_free(struct gcr_holders_pool *p);

static inline unsigned gcr_holders_lane(uint64_t h, unsigned i)
{
    return (unsigned)(h >> (16 * i)) & 0xffffu;
}

static inline bool gcr_holders_wide(uint64_t h)
{
    return gcr_holders_lane(h, 3) == GCR_HOLDERS_WIDE;
}

static inline const uint64_t *gcr_holders_bits(const struct gcr_holders_pool *p, uint64_t h)
{
    return p->bits + (size_t)(uint32_t)h * p->words;
}

static inline bool gcr_holders_has(const struct gcr_holders_pool *p, uint64_t h, uint32_t unit)
{
    if (gcr_holders_wide(h))
        return (gcr_holders_bits(p, h)[unit >> 6] >> (unit & 63)) & 1u;
    for (unsigned i = 0; i < GCR_HOLDERS_LANES; i++)
        if (gcr_holders_lane(h, i) == unit + 1)
            return true;
    return false;
}

/* Whether some instance of [first, first + n) other than `except` holds it. */
bool gcr_holders_any_in(const struct gcr_holders_pool *p, uint64_t h, uint32_t first,
                        uint32_t n, uint32_t except);

/* Adds unit (not a holder yet); -1 if out of memory (the set is unchanged). */
int gcr_holders_add(struct gcr_holders_pool *p, uint64_t *h, uint32_t unit);
/* Removes unit (a holder); the last one's leaving empties the word. */
void gcr_holders_remove(struct gcr_holders_pool *p, uint64_t *h, uint32_t unit);

#endif
