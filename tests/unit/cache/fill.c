/* gcr_cache_fill installs sectors without counting an access; gcr_cache_probe
 * changes nothing. */
#include "check.h"
#include "cache_test.h"

#define A 0x1000
#define B 0x2000
#define C 0x3000

static struct gcr_cache *make(bool sectored)
{
    struct gcr_cache_geometry g = cache_test_geometry(1, 2);
    g.sectored = sectored;
    return cache_test_create(&g);
}

int main(void)
{
    struct gcr_access a;
    uint32_t valid = 0;
    struct gcr_cache *c = make(true);
    const struct gcr_cache_stats *st = gcr_cache_stats(c);

    gcr_cache_fill(c, A, 0x3, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_LINE);
    CHECK_EQ_U(a.fetch_mask, 0);
    CHECK(gcr_cache_probe(c, A, &valid) == 1);
    CHECK_EQ_U(valid, 0x3);
    gcr_cache_fill(c, A, 0x4, true, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_SECTOR);
    CHECK(gcr_cache_probe(c, A + 0x10, &valid) == 1);
    CHECK_EQ_U(valid, 0x7);
    CHECK_EQ_U(st->accesses[0] + st->accesses[1], 0);
    CHECK_EQ_U(st->sectors_fetched, 0);

    /* A read of a filled sector hits. */
    gcr_cache_access(c, A, 0x1, false, &a);
    CHECK_EQ_U(a.outcome, GCR_HIT);
    gcr_cache_access(c, B, 0x1, false, &a);
    /* Filling a resident line does not refresh it, nor does probing: A stays
     * least recently used and C evicts it, with the filled dirty sector. */
    gcr_cache_fill(c, A, 0x8, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_SECTOR);
    CHECK(!a.evicted);
    CHECK(gcr_cache_probe(c, A, NULL) == 1);
    gcr_cache_access(c, C, 0x1, false, &a);
    CHECK(a.evicted);
    CHECK_EQ_U(a.victim_line, A);
    CHECK_EQ_U(a.victim_valid, 0xf);
    CHECK_EQ_U(a.victim_dirty, 0x4);
    CHECK_EQ_U(a.victim_used, 0x1);
    CHECK_EQ_U(st->sectors_written_back, 1);

    /* A fill into a full set evicts (LRU B) and reports it; the filled line has
     * no used sectors until an access touches it. */
    gcr_cache_fill(c, A, 0x1, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_LINE);
    CHECK(a.evicted);
    CHECK_EQ_U(a.victim_line, B);
    CHECK_EQ_U(st->evictions, 2);
    gcr_cache_access(c, B, 0x1, false, &a); /* C was older than the filled A */
    CHECK_EQ_U(a.victim_line, C);
    gcr_cache_access(c, C, 0x1, false, &a);
    CHECK_EQ_U(a.victim_line, A);
    CHECK_EQ_U(a.victim_used, 0);
    CHECK_EQ_U(st->accesses[0], 5);

    /* Probe of an absent line leaves *valid alone and returns 0. */
    valid = 0xdead;
    CHECK(gcr_cache_probe(c, 0x9000, &valid) == 0);
    CHECK_EQ_U(valid, 0xdead);
    gcr_cache_destroy(c);

    /* Non-sectored: a fill installs the whole line. */
    c = make(false);
    gcr_cache_fill(c, A, 0x2, true, &a);
    CHECK(gcr_cache_probe(c, A, &valid) == 1);
    CHECK_EQ_U(valid, 0xf);
    gcr_cache_access(c, A, 0x1, false, &a);
    CHECK_EQ_U(a.outcome, GCR_HIT);
    gcr_cache_destroy(c);
    CHECK_DONE();
}
