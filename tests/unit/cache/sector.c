/* Sector misses versus line misses, in a sectored and a non-sectored cache. */
#include "check.h"
#include "cache_test.h"

static struct gcr_cache *make(bool sectored, enum gcr_write_policy wp, enum gcr_write_alloc wa)
{
    struct gcr_cache_geometry g = cache_test_geometry(4, 2);
    g.sectored = sectored;
    g.write_policy = wp;
    g.write_alloc = wa;
    return cache_test_create(&g);
}

int main(void)
{
    struct gcr_access a;
    const uint64_t L = 0x4200;

    /* Sectored: line miss, then sector miss, then hit. */
    struct gcr_cache *c = make(true, GCR_WRITE_EVICT, GCR_WALLOC_NONE);
    gcr_cache_access(c, L, 0x1, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_LINE);
    CHECK_EQ_U(a.fetch_mask, 0x1);
    gcr_cache_access(c, L, 0x3, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_SECTOR);
    CHECK_EQ_U(a.fetch_mask, 0x2);
    gcr_cache_access(c, L, 0x3, false, &a);
    CHECK_EQ_U(a.outcome, GCR_HIT);
    CHECK_EQ_U(a.fetch_mask, 0);
    /* Unaligned addresses name the same line; bits above the sector count are ignored. */
    gcr_cache_access(c, L + 0x44, 0x3 | 0x30, false, &a);
    CHECK_EQ_U(a.outcome, GCR_HIT);
    gcr_cache_access(c, L, 0xc, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_SECTOR);
    CHECK_EQ_U(a.fetch_mask, 0xc);
    uint32_t valid = 0;
    CHECK(gcr_cache_probe(c, L, &valid) == 1);
    CHECK_EQ_U(valid, 0xf);
    const struct gcr_cache_stats *st = gcr_cache_stats(c);
    CHECK_EQ_U(st->accesses[0], 5);
    CHECK_EQ_U(st->outcomes[0][GCR_MISS_LINE], 1);
    CHECK_EQ_U(st->outcomes[0][GCR_MISS_SECTOR], 2);
    CHECK_EQ_U(st->outcomes[0][GCR_HIT], 2);
    CHECK_EQ_U(st->sectors_requested[0], 1 + 2 + 2 + 2 + 2);
    CHECK_EQ_U(st->sectors_missed[0], 1 + 1 + 0 + 0 + 2);
    CHECK_EQ_U(st->sectors_fetched, 4);
    /* A write of a sector that is not valid is a sector miss too (write-evict). */
    gcr_cache_access(c, 0x8000, 0x1, false, &a);
    gcr_cache_access(c, 0x8000, 0x6, true, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_SECTOR);
    CHECK_EQ_U(st->outcomes[1][GCR_MISS_SECTOR], 1);
    CHECK_EQ_U(st->sectors_missed[1], 2);
    CHECK_EQ_U(st->sectors_requested[1], 2);
    gcr_cache_destroy(c);

    /* Non-sectored: a line miss fetches every sector; later sectors hit. */
    c = make(false, GCR_WRITE_EVICT, GCR_WALLOC_NONE);
    gcr_cache_access(c, L, 0x1, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_LINE);
    CHECK_EQ_U(a.fetch_mask, 0xf);
    gcr_cache_access(c, L, 0x6, false, &a);
    CHECK_EQ_U(a.outcome, GCR_HIT);
    st = gcr_cache_stats(c);
    CHECK_EQ_U(st->sectors_fetched, 4);
    CHECK_EQ_U(st->sectors_missed[0], 1);
    gcr_cache_destroy(c);

    /* Non-sectored write-validate leaves a partial line; a read of a missing
     * sector then refetches everything missing, making the line whole again. */
    c = make(false, GCR_WRITE_BACK, GCR_WALLOC_VALIDATE);
    gcr_cache_access(c, L, 0x2, true, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_LINE);
    CHECK_EQ_U(a.fetch_mask, 0);
    gcr_cache_access(c, L, 0x2, false, &a);
    CHECK_EQ_U(a.outcome, GCR_HIT);
    gcr_cache_access(c, L, 0x1, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_SECTOR);
    CHECK_EQ_U(a.fetch_mask, 0xd);
    CHECK(gcr_cache_probe(c, L, &valid) == 1);
    CHECK_EQ_U(valid, 0xf);
    gcr_cache_destroy(c);

    /* 32 sectors per line (256-byte lines of 8-byte sectors): the full mask is all ones. */
    struct gcr_cache_geometry g = {
        .sets = 1, .ways = 1, .line_bytes = 256, .sector_bytes = 8, .sectored = false,
        .repl = GCR_REPL_LRU, .index = GCR_INDEX_LINEAR, .write_policy = GCR_WRITE_EVICT,
        .write_alloc = GCR_WALLOC_NONE};
    c = gcr_cache_create(&g, NULL);
    CHECK(c != NULL);
    if (c) {
        gcr_cache_access(c, 0x100, 0x80000000u, false, &a);
        CHECK_EQ_U(a.fetch_mask, 0xffffffffu);
        CHECK_EQ_U(gcr_cache_stats(c)->sectors_fetched, 32);
        gcr_cache_destroy(c);
    }
    CHECK_DONE();
}
