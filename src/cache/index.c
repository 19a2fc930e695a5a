/* Set-index functions: which set a line address maps to.
 *
 * LINEAR, XOR, FERMI and IPOLY reproduce GPGPU-Sim's LINEAR_SET_FUNCTION,
 * BITWISE_XORING_FUNCTION, FERMI_HASH_SET_FUNCTION and HASH_IPOLY_FUNCTION
 * (src/gpgpu-sim/gpu-cache.cc and hashing.cc) bit for bit, so set conflicts
 * match the simulator's. src/cache/README.md gives the equations and sources. */
#include <stdio.h>

#include "cache/cache_internal.h"

#define BIT(n) (UINT64_C(1) << (n))

/* IPOLY: output bit i of the set index is index bit i XOR the parity of the
 * "higher bits" (the line number above the index bits) selected by mask i.
 * Column j of these masks is x^(n+j) mod P(x) over GF(2), with n = log2(sets)
 * and P the irreducible polynomial of degree n (Rau, ISCA'91); the masks are
 * cut off where GPGPU-Sim's equations stop (higher bit 12, 14 and 18). */

/* 16 sets: P(x) = x^4 + x + 1. */
static const uint64_t ipoly16_masks[4] = {
    BIT(11) | BIT(10) | BIT(9) | BIT(8) | BIT(6) | BIT(4) | BIT(3) | BIT(0),
    BIT(12) | BIT(8) | BIT(7) | BIT(6) | BIT(5) | BIT(3) | BIT(1) | BIT(0),
    BIT(9) | BIT(8) | BIT(7) | BIT(6) | BIT(4) | BIT(2) | BIT(1),
    BIT(10) | BIT(9) | BIT(8) | BIT(7) | BIT(5) | BIT(3) | BIT(2),
};

/* 32 sets: P(x) = x^5 + x^2 + 1 (GPGPU-Sim's "IPOLY(37)"). */
static const uint64_t ipoly32_masks[5] = {
    BIT(13) | BIT(12) | BIT(11) | BIT(10) | BIT(9) | BIT(6) | BIT(5) | BIT(3) | BIT(0),
    BIT(14) | BIT(13) | BIT(12) | BIT(11) | BIT(10) | BIT(7) | BIT(6) | BIT(4) | BIT(1),
    BIT(14) | BIT(10) | BIT(9) | BIT(8) | BIT(7) | BIT(6) | BIT(3) | BIT(2) | BIT(0),
    BIT(11) | BIT(10) | BIT(9) | BIT(8) | BIT(7) | BIT(4) | BIT(3) | BIT(1),
    BIT(12) | BIT(11) | BIT(10) | BIT(9) | BIT(8) | BIT(5) | BIT(4) | BIT(2),
};

/* 64 sets: P(x) = x^6 + x + 1 (GPGPU-Sim's "IPOLY(67)"). */
static const uint64_t ipoly64_masks[6] = {
    BIT(18) | BIT(17) | BIT(16) | BIT(15) | BIT(12) | BIT(10) | BIT(6) | BIT(5) | BIT(0),
    BIT(15) | BIT(13) | BIT(12) | BIT(11) | BIT(10) | BIT(7) | BIT(5) | BIT(1) | BIT(0),
    BIT(16) | BIT(14) | BIT(13) | BIT(12) | BIT(11) | BIT(8) | BIT(6) | BIT(2) | BIT(1),
    BIT(17) | BIT(15) | BIT(14) | BIT(13) | BIT(12) | BIT(9) | BIT(7) | BIT(3) | BIT(2),
    BIT(18) | BIT(16) | BIT(15) | BIT(14) | BIT(13) | BIT(10) | BIT(8) | BIT(4) | BIT(3),
    BIT(17) | BIT(16) | BIT(15) | BIT(14) | BIT(11) | BIT(9) | BIT(5) | BIT(4),
};

/* The IPOLY hash is linear over GF(2), so it splits byte by byte:
 * hash(h) = T0[h & 0xff] ^ T1[(h >> 8) & 0xff] ^ T2[(h >> 16) & 0xff], three
 * lookups instead of one parity per output bit. The masks use higher bits
 * 0..18 only, so three bytes cover them. The tables are built before main
 * (a constructor) and never change: the hash, which picks the slice of every
 * L2 access on an IPOLY-hashed GPU, reads them without a check or a lock. */
static uint8_t ipoly_tables[3][3][256]; /* [16/32/64 sets][byte][value] */

static uint32_t ipoly_slow(uint64_t higher, const uint64_t *masks, unsigned bits)
{
    uint32_t h = 0;
    for (unsigned i = 0; i < bits; i++)
        h ^= gcr_bits_parity64(higher & masks[i]) << i;
    return h;
}

__attribute__((constructor)) static void ipoly_build(void)
{
    static const uint64_t *const all[3] = {ipoly16_masks, ipoly32_masks, ipoly64_masks};
    for (unsigned t = 0; t < 3; t++)
        for (unsigned byte = 0; byte < 3; byte++)
            for (uint64_t v = 0; v < 256; v++)
                ipoly_tables[t][byte][v] = (uint8_t)ipoly_slow(v << (8 * byte), all[t], 4 + t);
}

uint32_t gcr_ipoly_hash(uint64_t higher, uint32_t index, uint32_t sets)
{
    uint8_t(*t)[256] = ipoly_tables[sets == 16 ? 0 : sets == 32 ? 1 : 2];
    return index ^ t[0][higher & 0xff] ^ t[1][(higher >> 8) & 0xff] ^ t[2][(higher >> 16) & 0xff];
}

/* Everything of the index function that does not depend on the address. */
void gcr_set_index_init(struct gcr_set_index *ix, const struct gcr_cache_geometry *g)
{
    *ix = (struct gcr_set_index){.fn = g->index, .sets = g->sets,
                                 .line_log2 = gcr_bits_log2(g->line_bytes)};
    ix->sets_pow2 = (g->sets & (g->sets - 1)) == 0;
    if (ix->sets_pow2) {
        ix->set_mask = g->sets - 1;
        ix->sets_log2 = gcr_bits_log2(g->sets);
    }
    ix->linear_pow2 = ix->fn == GCR_INDEX_LINEAR && ix->sets_pow2;
    if (g->strip_count > 1) {
        ix->strip_low = g->strip_bytes - 1;
        ix->strip_log2 = gcr_bits_log2(g->strip_bytes);
        if ((g->strip_count & (g->strip_count - 1)) == 0) { /* shifts, not a division */
            ix->strip = GCR_STRIP_SHIFT;
            ix->strip_drop = ix->strip_log2 + gcr_bits_log2(g->strip_count);
        } else {
            ix->strip = GCR_STRIP_DIVIDE;
            ix->strip_bytes = g->strip_bytes;
            ix->strip_span = g->strip_bytes * g->strip_count;
        }
    }
    if (g->index == GCR_INDEX_IPOLY) {
        unsigned t = g->sets == 16 ? 0 : g->sets == 32 ? 1 : 2;
        for (unsigned byte = 0; byte < 3; byte++)
            ix->ipoly[byte] = ipoly_tables[t][byte];
    }
}

uint32_t gcr_cache_set_of(const struct gcr_cache_geometry *g, uint64_t line_addr)
{
    struct gcr_set_index ix;
    gcr_set_index_init(&ix, g);
    return gcr_set_index_of(&ix, line_addr);
}
