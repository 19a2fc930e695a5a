/* Internals shared by the cache model's source files and its unit tests. */
#ifndef GCR_CACHE_INTERNAL_H
#define GCR_CACHE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/bits.h"
#include "gcreplay/cache.h"

/* Largest number of lines one cache may hold (sets x ways), so a line index
 * fits in 26 bits and the exact multiply-shift division below stays in 64 bits. */
#define GCR_CACHE_MAX_LINES_LOG2 26
#define GCR_CACHE_MAX_LINES (UINT64_C(1) << GCR_CACHE_MAX_LINES_LOG2)

/* Exact division of a line index (< 2^26) by a fixed divisor (the number of
 * ways) with one multiply and one shift: with l = ceil(log2 d) and
 * m = ceil(2^(26+l) / d), floor(n / d) == (n * m) >> (26 + l) for every
 * n < 2^26 (Granlund & Montgomery, PLDI'94, theorem 4.2). n * m < 2^53. */
struct gcr_divider {
    uint64_t magic;
    unsigned shift;
};

static inline struct gcr_divider gcr_divider_make(uint32_t d)
{
    unsigned l = 0;
    while ((UINT64_C(1) << l) < d)
        l++;
    struct gcr_divider dv;
    dv.shift = GCR_CACHE_MAX_LINES_LOG2 + l;
    dv.magic = ((UINT64_C(1) << dv.shift) + d - 1) / d;
    return dv;
}

static inline uint32_t gcr_divider_div(struct gcr_divider dv, uint32_t n)
{
    return (uint32_t)(((uint64_t)n * dv.magic) >> dv.shift);
}

/* A geometry's set-index function (index.c) with everything that does not
 * depend on the address worked out once, when the cache is created: an access
 * then costs a few shifts, masks and, for IPOLY, three table lookups. */
struct gcr_set_index {
    enum gcr_index_fn fn;
    uint32_t sets;
    uint32_t set_mask;     /* sets - 1 when sets is a power of two (required by xor, ipoly) */
    bool sets_pow2;
    unsigned line_log2;
    unsigned sets_log2;    /* when sets is a power of two */
    /* A linear index over a power-of-two number of sets (the commonest), tested
     * before the others: the line number's low bits. */
    bool linear_pow2;
    /* Strip removal (gcr_cache_geometry.strip_*): none, by shifts (power-of-two
     * strip count) or by a division (any other count). */
    enum { GCR_STRIP_NONE, GCR_STRIP_SHIFT, GCR_STRIP_DIVIDE } strip;
    /* The shifts' fields are 0 without strips, which makes the shift form the
     * identity: one path without a branch for both. */
    uint64_t strip_low;    /* strip_bytes - 1 */
    unsigned strip_log2;   /* log2(strip_bytes) */
    unsigned strip_drop;   /* GCR_STRIP_SHIFT: log2(strip_bytes * strip_count) */
    uint64_t strip_bytes, strip_span; /* GCR_STRIP_DIVIDE: strip_bytes, strip_bytes * strip_count */
    const uint8_t *ipoly[3]; /* IPOLY: per-byte tables (256 entries) of the higher bits' hash */
};

void gcr_set_index_init(struct gcr_set_index *ix, const struct gcr_cache_geometry *g);

/* FERMI (Nugteren et al., HPCA'14, as in GPGPU-Sim): 128-byte lines; the line
 * number's low five bits XOR address bits 13, 14, 15, 17, 19; a 64-set cache
 * takes address bit 12 as set bit 5. */
static inline uint32_t gcr_set_index_fermi(uint64_t a, uint32_t sets)
{
    uint32_t lower = (uint32_t)(a >> 7) & 0x1f;
    uint32_t upper = (uint32_t)((a >> 13) & 0x7)     /* bits 13..15 -> 0..2 */
                     | (uint32_t)((a >> 14) & 0x8)   /* bit 17 -> 3 */
                     | (uint32_t)((a >> 15) & 0x10); /* bit 19 -> 4 */
    uint32_t set = lower ^ upper;
    if (sets == 64)
        set |= (uint32_t)((a >> 7) & 0x20); /* bit 12 -> 5 */
    return set;
}

/* The set line_addr maps to: gcr_cache_set_of() with the geometry prepared. */
static inline uint32_t gcr_set_index_of(const struct gcr_set_index *ix, uint64_t line_addr)
{
    uint64_t a = line_addr;
    /* Keep only this slice's granules back to back: drop the slice-select
     * digits so consecutive granules of one slice use consecutive sets. */
    if (__builtin_expect(ix->strip != GCR_STRIP_DIVIDE, 1))
        a = ((a >> ix->strip_drop) << ix->strip_log2) | (a & ix->strip_low);
    else
        a = (a / ix->strip_span) * ix->strip_bytes + (a & ix->strip_low);
    uint64_t line_no = a >> ix->line_log2;
    if (ix->linear_pow2)
        return (uint32_t)(line_no & ix->set_mask);
    switch (ix->fn) {
    case GCR_INDEX_LINEAR:
        return ix->sets_pow2 ? (uint32_t)(line_no & ix->set_mask) : (uint32_t)(line_no % ix->sets);
    case GCR_INDEX_XOR:
        return (uint32_t)((line_no ^ (line_no >> ix->sets_log2)) & ix->set_mask);
    case GCR_INDEX_FERMI:
        return gcr_set_index_fermi(a, ix->sets);
    case GCR_INDEX_IPOLY: {
        /* The hash is linear over GF(2), so it splits byte by byte (index.c). */
        uint64_t higher = line_no >> ix->sets_log2;
        return (uint32_t)(line_no & ix->set_mask) ^ ix->ipoly[0][higher & 0xff] ^
               ix->ipoly[1][(higher >> 8) & 0xff] ^ ix->ipoly[2][(higher >> 16) & 0xff];
    }
    case GCR_INDEX_COUNT:
        break;
    }
    return 0;
}

/* Index-function constraints of a geometry (index.c); 0 if fine, else -1 with
 * the reason in why. Called by gcr_cache_geometry_check. */

/* Written bytes of partly written sectors (byte_masks.c), one slot of `words`
 * 64-bit words per line record (slot = the line's index in the cache). A
 * sector's bytes are kept only while it is partly written: a sector that
 * becomes valid, or whose line leaves, is cleared. */
struct gcr_byte_masks {
    uint64_t *bytes; /* NULL: the cache does not track bytes */
    size_t lines;
    uint32_t words, sector_bytes, sectors;
};
int gcr_byte_masks_init(struct gcr_byte_masks *m, size_t lines, uint32_t line_bytes,
                        uint32_t sector_bytes);
void gcr_byte_masks_free(struct gcr_byte_masks *m);
void gcr_byte_masks_reset(struct gcr_byte_masks *m);
/* Forgets the written bytes of sector_mask's sectors of slot idx. */
void gcr_byte_masks_clear(struct gcr_byte_masks *m, uint32_t idx, uint32_t sector_mask);
/* The sectors of sector_mask that bytes[] covers whole. */
uint32_t gcr_byte_masks_whole(const struct gcr_byte_masks *m, const uint64_t *bytes,
                              uint32_t sector_mask);
/* Adds bytes[] of sector_mask's sectors to slot idx; returns the sectors this
 * completes (which are cleared: they become valid). */
uint32_t gcr_byte_masks_add(struct gcr_byte_masks *m, uint32_t idx, uint32_t sector_mask,
                            const uint64_t *bytes);
/* The sectors of slot idx with written bytes. */
uint32_t gcr_byte_masks_sectors(const struct gcr_byte_masks *m, uint32_t idx);

#endif
