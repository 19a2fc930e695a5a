/* Strip removal before set indexing: an L2 slice sees only every
 * strip_count-th granule of strip_bytes and must still use all its sets. */
#include "check.h"
#include "gcreplay/cache.h"

int main(void)
{
    /* 4 slices interleaved every 256 bytes; slice 0 owns 0x000-0x0ff, 0x400-0x4ff, ...
     * a = (addr / 1024) * 256 + addr % 256; 4 sets of 128-byte lines, linear. */
    struct gcr_cache_geometry g = {
        .sets = 4, .ways = 4, .line_bytes = 128, .sector_bytes = 32, .sectored = true,
        .repl = GCR_REPL_LRU, .index = GCR_INDEX_LINEAR, .write_policy = GCR_WRITE_BACK,
        .write_alloc = GCR_WALLOC_VALIDATE, .strip_bytes = 256, .strip_count = 4};
    char why[128] = "";
    CHECK(gcr_cache_geometry_check(&g, why, sizeof why) == 0);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x000), 0); /* a = 0x000 */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x080), 1); /* a = 0x080 */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x400), 2); /* a = 0x100 */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x480), 3); /* a = 0x180 */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x800), 0); /* a = 0x200 */
    /* Slice 1's granules (0x100, 0x500, ...) map the same way. */
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x100), 0);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x580), 3);
    /* Without strip removal slice 0's lines would use sets 0 and 1 only. */
    struct gcr_cache_geometry plain = g;
    plain.strip_count = 1;
    CHECK_EQ_U(gcr_cache_set_of(&plain, 0x400), 0);
    CHECK_EQ_U(gcr_cache_set_of(&plain, 0x480), 1);
    unsigned used_strip = 0, used_plain = 0;
    for (uint64_t gran = 0; gran < 64; gran++) {
        for (uint64_t half = 0; half < 2; half++) {
            uint64_t addr = gran * 1024 + half * 128; /* slice 0 */
            used_strip |= 1u << gcr_cache_set_of(&g, addr);
            used_plain |= 1u << gcr_cache_set_of(&plain, addr);
        }
    }
    CHECK_EQ_U(used_strip, 0xf);
    CHECK_EQ_U(used_plain, 0x3);

    /* Three slices (not a power of two) of 256 bytes: 0x300 is slice 0's second
     * granule: a = (0x300 / 0x300) * 0x100 + 0 = 0x100 -> line 2 -> set 2. */
    g.strip_count = 3;
    CHECK(gcr_cache_geometry_check(&g, why, sizeof why) == 0);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x300), 2);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x680), 1); /* a = 2*0x100 + 0x80 = 0x280 -> line 5 */

    /* Strip removal composes with a hashed index: 16 slices x 512 B, ipoly 32 sets.
     * 0x12345680: a = (0x12345680 >> 13) << 9 | (0x12345680 & 0x1ff) = 0x1234480;
     * line 0x24689: index 0x09, higher 0x1234 (bits 2,4,5,9,12):
     *   s0 = h12^h9^h5 ^ 1 = 0   s1 = h12^h4 ^ 0 = 0   s2 = h9^h2 ^ 0 = 0
     *   s3 = h9^h4 ^ 1 = 1       s4 = h12^h9^h5^h4^h2 ^ 0 = 1   -> 0b11000 = 24 */
    g.index = GCR_INDEX_IPOLY;
    g.sets = 32;
    g.strip_bytes = 512;
    g.strip_count = 16;
    CHECK(gcr_cache_geometry_check(&g, why, sizeof why) == 0);
    CHECK_EQ_U(gcr_cache_set_of(&g, 0x12345680), 24);
    CHECK_DONE();
}
