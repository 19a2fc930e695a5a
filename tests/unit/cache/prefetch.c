/* gcr_cache_prefetch is only a hint: a replacement sequence gives the same
 * outcomes and counters with hints between its accesses (fresh, stale, or
 * made on another, much larger cache) as without them; a hint is followed
 * into the cache it was made on only (ASan would see an out-of-range read),
 * and one with no cache is ignored. */
#include <string.h>

#include "check.h"
#include "cache_test.h"

static const uint64_t seq[] = {0, 4, 8, 0, 12, 16, 4, 20, 0, 24, 8, 28, 32, 0};
enum { N = sizeof seq / sizeof seq[0] };

/* Replays seq (in lines) on a 2-set x 4-way cache; with hints, each access is
 * preceded by both stages for the next access's line (every third access: for
 * its own line, whose bucket and set the access then takes from the cache's
 * copy), and by the second stage of the hint made one access earlier (now
 * stale), of a hint made on `other` and of an empty hint. */
static void run(bool hints, struct gcr_cache *other, enum gcr_outcome *out,
                struct gcr_cache_stats *st)
{
    struct gcr_cache_geometry g = cache_test_geometry(2, 4);
    struct gcr_cache *c = cache_test_create(&g);
    struct gcr_cache_hint h, stale = {0}, foreign, none = {0};
    gcr_cache_prefetch(other, 0xfff80, &foreign);
    CHECK(foreign.cache == other);
    for (int i = 0; i < N; i++) {
        if (hints) {
            gcr_cache_prefetch_follow(&stale);
            gcr_cache_prefetch_follow(&foreign);
            gcr_cache_prefetch_follow(&none);
            uint64_t line = seq[(i + (i % 3 != 0)) % N];
            gcr_cache_prefetch(c, line * g.line_bytes, &h);
            CHECK(h.cache == c && h.set == (uint32_t)(line % 2));
            gcr_cache_prefetch_follow(&h);
            stale = h;
        }
        struct gcr_access a;
        gcr_cache_access(c, seq[i] * g.line_bytes, 0x3, i % 5 == 4, &a);
        out[i] = a.outcome;
    }
    *st = *gcr_cache_stats(c);
    gcr_cache_destroy(c);
}

int main(void)
{
    struct gcr_cache_geometry big = cache_test_geometry(1024, 16);
    struct gcr_cache *other = cache_test_create(&big);
    enum gcr_outcome plain[N], hinted[N];
    struct gcr_cache_stats s1, s2;
    run(false, other, plain, &s1);
    run(true, other, hinted, &s2);
    for (int i = 0; i < N; i++)
        CHECK_EQ_U(hinted[i], plain[i]);
    CHECK(memcmp(&s1, &s2, sizeof s1) == 0);
    /* The sequence does exercise replacement: 9 distinct lines in 8 ways. */
    CHECK(s1.evictions > 0);
    gcr_cache_destroy(other);
    CHECK_DONE();
}
