/* Write-back: dirty victims are handed back for write-back; invalidate_all
 * flushes dirty lines through the callback and resets replacement state. */
#include "check.h"
#include "cache_test.h"

#define A 0x1000
#define B 0x2000
#define C 0x3000
#define D 0x4000
#define E 0x5000

struct flushed {
    int calls;
    uint64_t lines[8];
    uint32_t dirty[8];
};

static void on_dirty(void *ctx, uint64_t line, uint32_t dirty)
{
    struct flushed *f = ctx;
    if (f->calls < 8) {
        f->lines[f->calls] = line;
        f->dirty[f->calls] = dirty;
    }
    f->calls++;
}

int main(void)
{
    struct gcr_cache_geometry g = cache_test_geometry(1, 2);
    struct gcr_cache *c = cache_test_create(&g);
    struct gcr_access a;
    const struct gcr_cache_stats *st = gcr_cache_stats(c);

    gcr_cache_access(c, A, 0x5, true, &a); /* A: valid+dirty 0x5 */
    gcr_cache_access(c, B, 0xf, false, &a);
    CHECK_EQ_U(a.fetch_mask, 0xf);
    gcr_cache_access(c, C, 0x1, false, &a); /* evicts A, dirty */
    CHECK(a.evicted);
    CHECK_EQ_U(a.victim_line, A);
    CHECK_EQ_U(a.victim_valid, 0x5);
    CHECK_EQ_U(a.victim_dirty, 0x5);
    CHECK_EQ_U(a.victim_used, 0x5);
    CHECK_EQ_U(st->sectors_written_back, 2);
    gcr_cache_access(c, B, 0x2, true, &a); /* hit: B dirty 0x2, now MRU */
    CHECK_EQ_U(a.outcome, GCR_HIT);
    CHECK_EQ_U(a.forward_mask, 0);
    gcr_cache_access(c, D, 0x1, false, &a); /* evicts C, clean */
    CHECK_EQ_U(a.victim_line, C);
    CHECK_EQ_U(a.victim_dirty, 0);
    CHECK_EQ_U(a.victim_valid, 0x1);
    gcr_cache_access(c, E, 0x1, false, &a); /* evicts B, dirty 0x2 */
    CHECK_EQ_U(a.victim_line, B);
    CHECK_EQ_U(a.victim_dirty, 0x2);
    CHECK_EQ_U(a.victim_used, 0xf);
    CHECK_EQ_U(st->sectors_written_back, 3);
    CHECK_EQ_U(st->evictions, 3);

    /* Flush: D gets dirty 0x8; E stays clean. */
    gcr_cache_access(c, D, 0x8, true, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_SECTOR);
    struct flushed f = {0};
    gcr_cache_invalidate_all(c, on_dirty, &f);
    CHECK_EQ_U(f.calls, 1);
    CHECK_EQ_U(f.lines[0], D);
    CHECK_EQ_U(f.dirty[0], 0x8);
    CHECK_EQ_U(st->invalidations, 2);
    CHECK_EQ_U(st->sectors_written_back, 4);
    CHECK_EQ_U(st->evictions, 3);
    CHECK(gcr_cache_probe(c, D, NULL) == 0);
    CHECK(gcr_cache_probe(c, E, NULL) == 0);

    /* Replacement state starts over: X, Y fill the two ways, Z evicts X. */
    gcr_cache_access(c, 0x7000, 0x1, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_LINE);
    CHECK(!a.evicted);
    gcr_cache_access(c, 0x8000, 0x1, false, &a);
    CHECK(!a.evicted);
    gcr_cache_access(c, 0x9000, 0x1, false, &a);
    CHECK(a.evicted);
    CHECK_EQ_U(a.victim_line, 0x7000);

    /* A second flush without a callback still counts, and an empty cache flushes nothing. */
    gcr_cache_access(c, 0x9000, 0x3, true, &a);
    gcr_cache_invalidate_all(c, NULL, NULL);
    CHECK_EQ_U(st->invalidations, 4);
    CHECK_EQ_U(st->sectors_written_back, 6);
    f.calls = 0;
    gcr_cache_invalidate_all(c, on_dirty, &f);
    CHECK_EQ_U(f.calls, 0);
    CHECK_EQ_U(st->invalidations, 4);
    gcr_cache_destroy(c);
    CHECK_DONE();
}
