/* Bit helpers for hot paths. Built for generic x86-64 (no POPCNT), the
 * compiler's __builtin_popcount becomes a library call slower than these. */
#ifndef GCREPLAY_CORE_BITS_H
#define GCREPLAY_CORE_BITS_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__POPCNT__)
/* The build machine has POPCNT (meson adds -mpopcnt only then). */
static inline unsigned gcr_bits_popcount32(uint32_t x) { return (unsigned)__builtin_popcount(x); }
static inline unsigned gcr_bits_popcount64(uint64_t x) { return (unsigned)__builtin_popcountll(x); }
#else
static inline unsigned gcr_bits_popcount32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

static inline unsigned gcr_bits_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}
#endif

static inline unsigned gcr_bits_parity64(uint64_t x)
{
    x ^= x >> 32;
    x ^= x >> 16;
    x ^= x >> 8;
    x ^= x >> 4;
    return (unsigned)(0x6996u >> (x & 0xf)) & 1; /* parity of a nibble from a 16-bit table */
}

/* Index of the lowest set bit; x must not be 0. */
static inline unsigned gcr_bits_ctz64(uint64_t x) { return (unsigned)__builtin_ctzll(x); }
static inline unsigned gcr_bits_ctz32(uint32_t x) { return (unsigned)__builtin_ctz(x); }

static inline bool gcr_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* log2 of a power of two. */
static inline unsigned gcr_bits_log2(uint64_t pow2) { return gcr_bits_ctz64(pow2); }

#endif
