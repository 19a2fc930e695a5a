/* Bit helpers for hot paths. Built for generic x86-64 (no POPCNT), the
 * compiler's __builtin_popcount becomes a library call slower than these. */
#ifndef GCREPLAY_CORE_BITS_H
#define GCREPLAY_CORE_BITS_H

#include <stdbool.h>
#include <stddef.h>
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

/* 64-bit mixers for hash tables and sampling: MurmurHash3's finaliser and
 * SplitMix64's. Each user keeps the one it was written with, so tables and
 * samples stay as they were. */
static inline uint64_t gcr_hash_fmix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static inline uint64_t gcr_hash_splitmix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The SplitMix64 generator: advances *state by the golden-ratio increment
 * and returns the mix of the new state (seeded random choices). */
static inline uint64_t gcr_splitmix64_next(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ull;
    return gcr_hash_splitmix64(*state);
}

/* Declares that struct `type` is a block of exactly `n` uint64_t counters, which
 * gcr_add_u64s relies on when it sums such structs as arrays. A field of another
 * type changes the size or the alignment, and a field added without counting it
 * in n changes the size: either fails the build here, by the struct. */
#define GCR_U64_COUNTERS(type, n)                                                                 \
    _Static_assert(sizeof(type) == (n) * sizeof(uint64_t) &&                                    \
                       _Alignof(type) == _Alignof(uint64_t),                                    \
                   #type " must be exactly " #n " uint64_t counters (summed by gcr_add_u64s)")

/* Element-wise sum of two arrays of counters (statistics structs declared with
 * GCR_U64_COUNTERS, summed over kernels or units). */
static inline void gcr_add_u64s(uint64_t *to, const uint64_t *from, size_t n)
{
    for (size_t i = 0; i < n; i++)
        to[i] += from[i];
}

/* log2 of a power of two. */
static inline unsigned gcr_bits_log2(uint64_t pow2) { return gcr_bits_ctz64(pow2); }

/* Bits needed to number x things: the least b with 2^b >= x (0 for x <= 1, at
 * most 64). Written without a shift loop, which overflows once x > 2^31 in
 * 32-bit arithmetic and is undefined at a shift of the type's width. */
static inline unsigned gcr_bits_ceil_log2(uint64_t x)
{
    return x <= 1 ? 0 : 64u - (unsigned)__builtin_clzll(x - 1);
}

#endif
