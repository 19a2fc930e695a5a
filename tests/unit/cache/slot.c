/* gcr_cache_slot: a resident line's place (set x ways + way) stays its own
 * while it is resident, and is handed to the line that replaces it. */
#include "check.h"
#include "cache_test.h"

int main(void)
{
    /* 2 sets x 2 ways, linear index, LRU: lines 0x000 and 0x100 share set 0. */
    struct gcr_cache_geometry g = cache_test_geometry(2, 2);
    struct gcr_cache *c = cache_test_create(&g);
    struct gcr_access a;
    const uint64_t line = g.line_bytes;
    CHECK(gcr_cache_slot(c, 0) == -1);
    gcr_cache_access(c, 0, 0x1, false, &a);          /* set 0 */
    gcr_cache_access(c, line, 0x1, false, &a);       /* set 1 */
    gcr_cache_access(c, 2 * line, 0x1, false, &a);   /* set 0, second way */
    int64_t s0 = gcr_cache_slot(c, 0), s1 = gcr_cache_slot(c, line);
    int64_t s2 = gcr_cache_slot(c, 2 * line);
    CHECK(s0 >= 0 && s0 < 2 && s2 >= 0 && s2 < 2 && s0 != s2); /* set 0: slots 0, 1 */
    CHECK(s1 >= 2 && s1 < 4);                                  /* set 1: slots 2, 3 */
    /* Any address inside the line names the same slot; hits do not move it. */
    gcr_cache_access(c, 0, 0x1, false, &a);
    CHECK(gcr_cache_slot(c, 5) == s0);
    /* 4*line replaces the LRU line of set 0 (2*line) and takes its slot. */
    gcr_cache_access(c, 4 * line, 0x1, false, &a);
    CHECK(gcr_cache_slot(c, 2 * line) == -1);
    CHECK(gcr_cache_slot(c, 4 * line) == s2);
    CHECK(gcr_cache_slot(c, 0) == s0);
    gcr_cache_destroy(c);
    CHECK_DONE();
}
