/* gcr_cache_prefetch is only a hint: a replacement sequence gives the same
 * outcomes and counters with hints between its accesses (right, stale or made
 * on another cache) as without them, and a hint is never followed into a cache
 * it was not made on (ASan would see an out-of-range read). */
#include <string.h>

#include "check.h"
#include "cache_test.h"

static const uint64_t seq[] = {0, 4, 8, 0, 12, 16, 4, 20, 0, 24, 8, 28, 32, 0};
enum { N = sizeof seq / sizeof seq[0] };

/* Replays seq (in lines) on a 2-set x 4-way cache; with hints, each access is
 * preceded by all three stages for the next access's line, and by stages 2
 * and 3 of a hint made on `other` (a much larger cache). */
static void run(bool hints, struct gcr_cache *other, enum gcr_outcome *out,
                struct gcr_cache_stats *st)
{
    struct gcr_cache_geometry g = cache_test_geometry(2, 4);
    struct gcr_cache *c = cache_test_create(&g);
    struct gcr_cache_hint h, foreign;
    gcr_cache_prefetch(other, 0xfff80, &foreign, 1);
    for (int i = 0; i < N; i++) {
        if (hints) {
            uint64_t next = seq[(i + 1) % N] * g.line_bytes;
            for (int stage = 1; stage <= 3; stage++)
                gcr_cache_prefetch(c, next, &h, stage);
            gcr_cache_prefetch(c, next, &foreign, 2);
            gcr_cache_prefetch(c, next, &foreign, 3);
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
