/* LINEAR, XOR and FERMI set indexing, values computed by hand. */
#include "check.h"
#include "gcreplay/cache.h"

static struct gcr_cache_geometry geo(uint32_t sets, enum gcr_index_fn index)
{
    struct gcr_cache_geometry g = {
        .sets = sets, .ways = 4, .line_bytes = 128, .sector_bytes = 32, .sectored = true,
        .repl = GCR_REPL_LRU, .index = index, .write_policy = GCR_WRITE_EVICT,
        .write_alloc = GCR_WALLOC_NONE};
    char why[128] = "";
    if (gcr_cache_geometry_check(&g, why, sizeof why) != 0) {
        fprintf(stderr, "geometry: %s\n", why);
        exit(1);
    }
    return g;
}

int main(void)
{
    /* LINEAR, 4 sets of 128-byte lines: set = (addr / 128) mod 4. */
    struct gcr_cache_geometry g = geo(4, GCR_INDEX_LINEAR);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x0), 0);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x80), 1);  /* line 1 */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x180), 3); /* line 3 */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x200), 0); /* line 4 */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x1280), 1); /* line 37 = 9*4 + 1 */
    /* LINEAR with 3 sets (not a power of two): line 5 -> 2, line 37 -> 1. */
    g = geo(3, GCR_INDEX_LINEAR);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x280), 2);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x1280), 1);
    /* Line 2^57 - 1: 2^57 = 2 mod 3 (odd powers of 2 are), so the set is 1. */
    CHECK_EQ_U(gcr_cache_set_of(&g, UINT64_C(0xffffffffffffff80)), 1);

    /* XOR, 4 sets: set = line[1:0] ^ line[3:2]. */
    g = geo(4, GCR_INDEX_XOR);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x280), 0);  /* line 0b0101: 01 ^ 01 */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x380), 2);  /* line 0b0111: 11 ^ 01 */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x1280), 0); /* line 0b100101: 01 ^ (0b1001 & 3 = 01) */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x180), 3);  /* line 3: 11 ^ 00 */
    /* XOR, 64 sets: 0x12345680 is line 0x2468ad; low 6 bits 0x2d, next 6 bits
     * (0x2468ad >> 6 = 0x91a2) & 0x3f = 0x22; 0x2d ^ 0x22 = 0x0f. */
    g = geo(64, GCR_INDEX_XOR);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x12345680), 0x0f);
    /* Only the next log2(sets) bits take part: bits above 2^(7+12) do not change it. */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x12345680 + (UINT64_C(1) << 40)), 0x0f);

    /* FERMI, 32 sets: lower = addr bits 7..11, upper = bits 13,14,15,17,19.
     * 0x2a080: bits 7, 13, 15, 17 -> lower 0b00001, upper 0b01101 -> 0b01100 = 12. */
    g = geo(32, GCR_INDEX_FERMI);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x2a080), 12);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x2b080), 12); /* bit 12 is ignored with 32 sets */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x80000), 16); /* bit 19 -> set bit 4 */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0xfff80), 0);  /* bits 7..19: lower 0x1f ^ upper 0x1f */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x14000), 2); /* bits 14, 16: upper 0b010; 16 is unused */
    /* FERMI, 64 sets: bit 12 becomes set bit 5. */
    g = geo(64, GCR_INDEX_FERMI);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x2a080), 12);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x2b080), 44);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0xfff80), 32);
    CHECK_DONE();
}
