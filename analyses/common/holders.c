#include "holders.h"

#include <stdlib.h>
#include <string.h>

void gcr_holders_pool_init(struct gcr_holders_pool *p, uint32_t instances)
{
    memset(p, 0, sizeof *p);
    p->words = instances > 64 ? (instances + 63) / 64 : 1;
}

void gcr_holders_pool_free(struct gcr_holders_pool *p)
{
    free(p->bits);
    free(p->free_list);
    memset(p, 0, sizeof *p);
}

/* A free bitset (zeroed), or UINT32_MAX if out of memory. */
static uint32_t take(struct gcr_holders_pool *p)
{
    if (p->nfree)
        return p->free_list[--p->nfree];
    if (p->top == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        if (cap > UINT32_MAX)
            return UINT32_MAX;
        uint64_t *bits = realloc(p->bits, cap * p->words * sizeof *bits);
        if (!bits)
            return UINT32_MAX;
        p->bits = bits;
        uint32_t *free_list = realloc(p->free_list, cap * sizeof *free_list);
        if (!free_list)
            return UINT32_MAX;
        p->free_list = free_list;
        p->cap = cap;
    }
    memset(p->bits + p->top * p->words, 0, p->words * sizeof *p->bits);
    return (uint32_t)p->top++;
}

bool gcr_holders_any_in(const struct gcr_holders_pool *p, uint64_t h, uint32_t first,
                        uint32_t n, uint32_t except)
{
    if (!gcr_holders_wide(h)) {
        for (unsigned i = 0; i < GCR_HOLDERS_LANES; i++) {
            uint32_t u = gcr_holders_lane(h, i) - 1u; /* a free lane: UINT32_MAX */
            if (u != except && u - first < n)
                return true;
        }
        return false;
    }
    const uint64_t *bits = gcr_holders_bits(p, h);
    for (uint32_t u = first; u < first + n; u++)
        if (u != except && ((bits[u >> 6] >> (u & 63)) & 1u))
            return true;
    return false;
}

int gcr_holders_add(struct gcr_holders_pool *p, uint64_t *hp, uint32_t unit)
{
    uint64_t h = *hp;
    if (gcr_holders_wide(h)) {
        p->bits[(size_t)(uint32_t)h * p->words + (unit >> 6)] |= 1ull << (unit & 63);
        *hp = h + (1ull << 32); /* lane 2: holders + 1 */
        return 0;
    }
    for (unsigned i = 0; i < GCR_HOLDERS_LANES; i++)
        if (!gcr_holders_lane(h, i)) {
            *hp = h | (uint64_t)(unit + 1) << (16 * i);
            return 0;
        }
    /* Lanes full: the holders move to a bitset. */
    uint32_t at = take(p);
    if (at == UINT32_MAX)
        return -1;
    uint64_t *bits = p->bits + (size_t)at * p->words;
    for (unsigned i = 0; i < GCR_HOLDERS_LANES; i++) {
        uint32_t u = gcr_holders_lane(h, i) - 1u;
        bits[u >> 6] |= 1ull << (u & 63);
    }
    bits[unit >> 6] |= 1ull << (unit & 63);
    *hp = (uint64_t)GCR_HOLDERS_WIDE << 48 | (uint64_t)(GCR_HOLDERS_LANES + 1) << 32 | at;
    return 0;
}

void gcr_holders_remove(struct gcr_holders_pool *p, uint64_t *hp, uint32_t unit)
{
    uint64_t h = *hp;
    if (gcr_holders_wide(h)) {
        p->bits[(size_t)(uint32_t)h * p->words + (unit >> 6)] &= ~(1ull << (unit & 63));
        h -= 1ull << 32;
        if (gcr_holders_lane(h, 2) == 0) { /* the last one left: the bitset is free */
            p->free_list[p->nfree++] = (uint32_t)h;
            h = 0;
        }
        *hp = h;
        return;
    }
    for (unsigned i = 0; i < GCR_HOLDERS_LANES; i++)
        if (gcr_holders_lane(h, i) == unit + 1) {
            *hp = h & ~(0xffffull << (16 * i));
            return;
        }
}
