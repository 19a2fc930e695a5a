/* Every write policy x write-allocate combination, with exact fetch, forward,
 * valid and dirty masks. Dirty sectors are observed through invalidate_all. */
#include "check.h"
#include "cache_test.h"

#define L 0x10000u

static struct gcr_cache *make(enum gcr_write_policy wp, enum gcr_write_alloc wa, bool sectored)
{
    struct gcr_cache_geometry g = cache_test_geometry(2, 2);
    g.sectored = sectored;
    g.write_policy = wp;
    g.write_alloc = wa;
    return cache_test_create(&g);
}

struct flushed {
    int calls;
    uint64_t line;
    uint32_t dirty;
};

static void on_dirty(void *ctx, uint64_t line, uint32_t dirty)
{
    struct flushed *f = ctx;
    f->calls++;
    f->line = line;
    f->dirty = dirty;
}

/* Checks the line's valid sectors (0 = not resident) and its dirty sectors. */
static void expect_line(struct gcr_cache *c, uint32_t valid, uint32_t dirty)
{
    uint32_t v = 0;
    int resident = gcr_cache_probe(c, L, &v);
    CHECK_EQ_U(resident, valid != 0);
    CHECK_EQ_U(v, valid);
    struct flushed f = {0};
    gcr_cache_invalidate_all(c, on_dirty, &f);
    CHECK_EQ_U(f.calls, dirty != 0);
    CHECK_EQ_U(f.dirty, dirty);
    if (dirty)
        CHECK_EQ_U(f.line, L);
}

static void wr(struct gcr_cache *c, uint32_t mask, enum gcr_outcome outcome, uint32_t fetch,
               uint32_t forward)
{
    struct gcr_access a;
    gcr_cache_access(c, L, mask, true, &a);
    CHECK_EQ_U(a.outcome, outcome);
    CHECK_EQ_U(a.fetch_mask, fetch);
    CHECK_EQ_U(a.forward_mask, forward);
    CHECK(!a.evicted);
}

static void rd(struct gcr_cache *c, uint32_t mask)
{
    struct gcr_access a;
    gcr_cache_access(c, L, mask, false, &a);
}

/* Scenario per combination:
 *   1. write miss of sectors 0-1 (0x3) to an absent line;
 *   2. (fresh) read sector 0 (0x1), then write sectors 1-2 (0x6): tag present,
 *      sector 2 invalid -> MISS_SECTOR. */
int main(void)
{
    struct gcr_cache *c;
    struct gcr_access a;

    /* write_evict / none */
    c = make(GCR_WRITE_EVICT, GCR_WALLOC_NONE, true);
    wr(c, 0x3, GCR_MISS_LINE, 0, 0x3);
    expect_line(c, 0, 0);
    rd(c, 0x1);
    gcr_cache_access(c, L, 0x6, true, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_SECTOR); /* judged before the invalidation */
    CHECK(a.invalidated);
    CHECK(!a.evicted);
    CHECK_EQ_U(a.forward_mask, 0x6);
    CHECK_EQ_U(a.fetch_mask, 0);
    CHECK_EQ_U(a.victim_line, L);
    CHECK_EQ_U(a.victim_valid, 0x1);
    CHECK_EQ_U(a.victim_dirty, 0);
    CHECK_EQ_U(a.victim_used, 0x7);
    expect_line(c, 0, 0);
    rd(c, 0x1);
    gcr_cache_access(c, L, 0x1, true, &a);
    CHECK_EQ_U(a.outcome, GCR_HIT);
    CHECK(a.invalidated);
    CHECK_EQ_U(gcr_cache_stats(c)->invalidations, 2);
    CHECK_EQ_U(gcr_cache_stats(c)->sectors_forwarded, 2 + 2 + 1);
    gcr_cache_destroy(c);

    /* write_through / none */
    c = make(GCR_WRITE_THROUGH, GCR_WALLOC_NONE, true);
    wr(c, 0x3, GCR_MISS_LINE, 0, 0x3);
    expect_line(c, 0, 0);
    rd(c, 0x1);
    wr(c, 0x6, GCR_MISS_SECTOR, 0, 0x6);
    expect_line(c, 0x7, 0);
    gcr_cache_destroy(c);

    /* write_through / fetch: fetches the written sectors (a non-sectored cache the line) */
    c = make(GCR_WRITE_THROUGH, GCR_WALLOC_FETCH, true);
    wr(c, 0x3, GCR_MISS_LINE, 0x3, 0x3);
    expect_line(c, 0x3, 0);
    rd(c, 0x1);
    wr(c, 0x6, GCR_MISS_SECTOR, 0, 0x6); /* tag present: write-validate, no fetch */
    expect_line(c, 0x7, 0);
    gcr_cache_destroy(c);
    c = make(GCR_WRITE_THROUGH, GCR_WALLOC_FETCH, false);
    wr(c, 0x3, GCR_MISS_LINE, 0xf, 0x3);
    expect_line(c, 0xf, 0);
    gcr_cache_destroy(c);

    /* write_through / validate */
    c = make(GCR_WRITE_THROUGH, GCR_WALLOC_VALIDATE, true);
    wr(c, 0x3, GCR_MISS_LINE, 0, 0x3);
    expect_line(c, 0x3, 0);
    rd(c, 0x1);
    wr(c, 0x6, GCR_MISS_SECTOR, 0, 0x6);
    expect_line(c, 0x7, 0);
    gcr_cache_destroy(c);

    /* write_back / none: write-around on a miss, dirty on a hit */
    c = make(GCR_WRITE_BACK, GCR_WALLOC_NONE, true);
    wr(c, 0x3, GCR_MISS_LINE, 0, 0x3);
    expect_line(c, 0, 0);
    rd(c, 0x1);
    wr(c, 0x6, GCR_MISS_SECTOR, 0, 0);
    expect_line(c, 0x7, 0x6);
    gcr_cache_destroy(c);

    /* write_back / fetch */
    c = make(GCR_WRITE_BACK, GCR_WALLOC_FETCH, true);
    wr(c, 0x3, GCR_MISS_LINE, 0x3, 0);
    expect_line(c, 0x3, 0x3);
    rd(c, 0x1);
    wr(c, 0x6, GCR_MISS_SECTOR, 0, 0);
    expect_line(c, 0x7, 0x6);
    gcr_cache_destroy(c);
    c = make(GCR_WRITE_BACK, GCR_WALLOC_FETCH, false);
    wr(c, 0x3, GCR_MISS_LINE, 0xf, 0);
    expect_line(c, 0xf, 0x3);
    gcr_cache_destroy(c);

    /* write_back / validate */
    c = make(GCR_WRITE_BACK, GCR_WALLOC_VALIDATE, true);
    wr(c, 0x3, GCR_MISS_LINE, 0, 0);
    expect_line(c, 0x3, 0x3);
    rd(c, 0x1);
    wr(c, 0x6, GCR_MISS_SECTOR, 0, 0);
    wr(c, 0x4, GCR_HIT, 0, 0);
    expect_line(c, 0x7, 0x6);
    const struct gcr_cache_stats *st = gcr_cache_stats(c);
    CHECK_EQ_U(st->accesses[1], 3);
    CHECK_EQ_U(st->outcomes[1][GCR_MISS_LINE], 1);
    CHECK_EQ_U(st->outcomes[1][GCR_MISS_SECTOR], 1);
    CHECK_EQ_U(st->outcomes[1][GCR_HIT], 1);
    CHECK_EQ_U(st->sectors_requested[1], 2 + 2 + 1);
    CHECK_EQ_U(st->sectors_missed[1], 2 + 2); /* 0x6 against valid 0x1 misses 2 */
    CHECK_EQ_U(st->sectors_forwarded, 0);
    CHECK_EQ_U(st->sectors_fetched, 1);
    CHECK_EQ_U(st->sectors_written_back, 2 + 2);
    gcr_cache_destroy(c);
    CHECK_DONE();
}
