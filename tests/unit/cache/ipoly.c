/* IPOLY set indexing (GPGPU-Sim HASH_IPOLY) for 16, 32 and 64 sets. */
#include "check.h"
#include "gcreplay/cache.h"

static struct gcr_cache_geometry geo(uint32_t sets, enum gcr_index_fn index)
{
    struct gcr_cache_geometry g = {
        .sets = sets, .ways = 4, .line_bytes = 128, .sector_bytes = 32, .sectored = true,
        .repl = GCR_REPL_LRU, .index = index, .write_policy = GCR_WRITE_EVICT,
        .write_alloc = GCR_WALLOC_NONE};
    return g;
}

/* x^e mod P(x) over GF(2); P has degree n. */
static uint32_t xpow_mod(unsigned e, uint32_t poly, unsigned n)
{
    uint32_t r = 1;
    for (unsigned i = 0; i < e; i++) {
        r <<= 1;
        if (r & (1u << n))
            r ^= poly;
    }
    return r;
}

/* The IPOLY index derived from the polynomial instead of the equations: line
 * number bit k contributes x^k mod P(x), for the bits the equations cover
 * (index bits plus higher bits 0..top). */
static uint32_t ipoly_from_poly(uint64_t line_no, uint32_t poly, unsigned n, unsigned top)
{
    uint32_t set = 0;
    for (unsigned k = 0; k <= n + top; k++)
        if (line_no >> k & 1)
            set ^= xpow_mod(k, poly, n);
    return set;
}

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

int main(void)
{
    struct gcr_cache_geometry g16 = geo(16, GCR_INDEX_IPOLY);
    struct gcr_cache_geometry g32 = geo(32, GCR_INDEX_IPOLY);
    struct gcr_cache_geometry g64 = geo(64, GCR_INDEX_IPOLY);

    /* Hand values for address 0x12345680 (line 0x2468ad), from the equations
     * (README.md). 32 sets: index = 0x0d, higher = 0x12345 (bits 0,2,6,8,9,13,16):
     *   s0 = h13^h9^h6^h0 ^ b0 = 0^1 = 1     s1 = h13^h6 ^ b1 = 0^0 = 0
     *   s2 = h9^h8^h6^h2^h0 ^ b2 = 1^1 = 0   s3 = h9^h8 ^ b3 = 0^1 = 1
     *   s4 = h9^h8^h2 ^ b4 = 1^0 = 1          -> 0b11001 = 25 */
    CHECK_EQ_U(gcr_cache_set_of(&g32, 0x12345680), 25);
    /* 16 sets: index = 0xd, higher = 0x2468a (bits 1,3,7,9,10 in range):
     *   s0 = h10^h9^h3 ^ 1 = 0   s1 = h7^h3^h1 ^ 0 = 1
     *   s2 = h9^h7^h1 ^ 1 = 0    s3 = h10^h9^h7^h3 ^ 1 = 1   -> 0b1010 = 10 */
    CHECK_EQ_U(gcr_cache_set_of(&g16, 0x12345680), 10);
    /* 64 sets: index = 0x2d, higher = 0x91a2 (bits 1,5,7,8,12,15):
     *   s0 = h15^h12^h5 ^ 1 = 0        s1 = h15^h12^h7^h5^h1 ^ 0 = 1
     *   s2 = h12^h8^h1 ^ 1 = 0         s3 = h15^h12^h7 ^ 1 = 0
     *   s4 = h15^h8 ^ 0 = 0            s5 = h15^h5 ^ 1 = 1   -> 0b100010 = 34 */
    CHECK_EQ_U(gcr_cache_set_of(&g64, 0x12345680), 34);
    /* Single higher bits: h0 alone gives x^n mod P: 16 sets x^4 = x+1 -> 3;
     * 32 sets x^5 = x^2+1 -> 5; 64 sets x^6 = x+1 -> 3. 32 sets, h5: x^10 = x^4+1 -> 17. */
    CHECK_EQ_U(gcr_cache_set_of(&g16, UINT64_C(1) << (7 + 4)), 3);
    CHECK_EQ_U(gcr_cache_set_of(&g32, UINT64_C(1) << (7 + 5)), 5);
    CHECK_EQ_U(gcr_cache_set_of(&g64, UINT64_C(1) << (7 + 6)), 3);
    CHECK_EQ_U(gcr_cache_set_of(&g32, UINT64_C(1) << (7 + 10)), 17);
    /* Bits past the equations' reach are ignored (32 sets: higher bits above 14). */
    CHECK_EQ_U(gcr_cache_set_of(&g32, UINT64_C(1) << (7 + 5 + 15)), 0);
    CHECK_EQ_U(gcr_cache_set_of(&g32, 0x12345680 | UINT64_C(1) << 40), 25);

    /* Every equation against the polynomial: P = x^4+x+1, x^5+x^2+1, x^6+x+1,
     * covering higher bits 0..12, 0..14 and 0..18. */
    for (int i = 0; i < 20000; i++) {
        uint64_t addr = rnd() & ~UINT64_C(127);
        uint64_t line_no = addr >> 7;
        CHECK_EQ_U(gcr_cache_set_of(&g16, addr), ipoly_from_poly(line_no, 0x13, 4, 12));
        CHECK_EQ_U(gcr_cache_set_of(&g32, addr), ipoly_from_poly(line_no, 0x25, 5, 14));
        CHECK_EQ_U(gcr_cache_set_of(&g64, addr), ipoly_from_poly(line_no, 0x43, 6, 18));
    }

    /* Conflict-free power-of-two strides: n lines at a stride of 2^k lines from
     * an aligned base map to n distinct sets, for every k the equations reach. */
    struct {
        const struct gcr_cache_geometry *g;
        unsigned sets, log2_sets, max_k;
    } cases[] = {{&g16, 16, 4, 13}, {&g32, 32, 5, 15}, {&g64, 64, 6, 19}};
    for (unsigned ci = 0; ci < 3; ci++) {
        for (unsigned k = 0; k <= cases[ci].max_k; k++) {
            for (int trial = 0; trial < 20; trial++) {
                unsigned span = k + cases[ci].log2_sets;
                uint64_t base = (rnd() >> 24) >> span << span; /* in lines */
                uint64_t seen = 0;
                for (uint64_t j = 0; j < cases[ci].sets; j++)
                    seen |= UINT64_C(1) << gcr_cache_set_of(cases[ci].g, (base + (j << k)) * 128);
                uint64_t all = cases[ci].sets == 64 ? ~UINT64_C(0)
                                                    : (UINT64_C(1) << cases[ci].sets) - 1;
                CHECK_EQ_U(seen, all);
            }
        }
    }
    /* The contrast: LINEAR puts 32 lines at a stride of 32 lines into one set. */
    struct gcr_cache_geometry lin = geo(32, GCR_INDEX_LINEAR);
    uint64_t seen = 0;
    for (uint64_t j = 0; j < 32; j++)
        seen |= UINT64_C(1) << gcr_cache_set_of(&lin, (j << 5) * 128);
    CHECK_EQ_U(seen, 1);
    CHECK_DONE();
}
