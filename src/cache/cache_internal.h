/* Internals shared by the cache model's source files and its unit tests. */
#ifndef GCR_CACHE_INTERNAL_H
#define GCR_CACHE_INTERNAL_H

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

/* Index-function constraints of a geometry (index.c); 0 if fine, else -1 with
 * the reason in why. Called by gcr_cache_geometry_check. */

#endif
