/* LRU replacement on a 1-set x 4-way cache: hits and sector misses refresh a
 * line, the least recently used line is the victim. */
#include "check.h"
#include "cache_test.h"

#define A 0x1000
#define B 0x2000
#define C 0x3000
#define D 0x4000
#define E 0x5000

static struct gcr_cache *make(void)
{
    struct gcr_cache_geometry g = cache_test_geometry(1, 4);
    return cache_test_create(&g);
}

static void rd(struct gcr_cache *c, uint64_t line, uint32_t mask, struct gcr_access *a)
{
    gcr_cache_access(c, line, mask, false, a);
}

int main(void)
{
    struct gcr_access a;

    /* A B C D A E: the hit on A leaves B least recently used, so E evicts B. */
    struct gcr_cache *c = make();
    rd(c, A, 0xf, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_LINE);
    CHECK(!a.evicted);
    rd(c, B, 0xf, &a);
    rd(c, C, 0xf, &a);
    rd(c, D, 0xf, &a);
    CHECK(!a.evicted);
    rd(c, A, 0xf, &a);
    CHECK_EQ_U(a.outcome, GCR_HIT);
    CHECK_EQ_U(a.fetch_mask, 0);
    rd(c, E, 0xf, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_LINE);
    CHECK(a.evicted);
    CHECK_EQ_U(a.victim_line, B);
    CHECK_EQ_U(a.victim_valid, 0xf);
    CHECK_EQ_U(a.victim_dirty, 0);
    CHECK_EQ_U(a.victim_used, 0xf);
    /* Order now (MRU..LRU): E A D C. B comes back and evicts C, then C evicts D. */
    rd(c, B, 0xf, &a);
    CHECK_EQ_U(a.victim_line, C);
    rd(c, C, 0xf, &a);
    CHECK_EQ_U(a.victim_line, D);
    CHECK(gcr_cache_probe(c, A, NULL) == 1);
    CHECK(gcr_cache_probe(c, D, NULL) == 0);
    const struct gcr_cache_stats *st = gcr_cache_stats(c);
    CHECK_EQ_U(st->accesses[0], 8);
    CHECK_EQ_U(st->accesses[1], 0);
    CHECK_EQ_U(st->outcomes[0][GCR_HIT], 1);
    CHECK_EQ_U(st->outcomes[0][GCR_MISS_LINE], 7);
    CHECK_EQ_U(st->outcomes[0][GCR_MISS_SECTOR], 0);
    CHECK_EQ_U(st->evictions, 3);
    CHECK_EQ_U(st->sectors_requested[0], 32);
    CHECK_EQ_U(st->sectors_missed[0], 28);
    CHECK_EQ_U(st->sectors_fetched, 28);
    gcr_cache_destroy(c);

    /* A sector miss refreshes the line like a hit: A B C D A(other sector) E evicts B. */
    c = make();
    rd(c, A, 0x1, &a);
    rd(c, B, 0x1, &a);
    rd(c, C, 0x1, &a);
    rd(c, D, 0x1, &a);
    rd(c, A, 0x2, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_SECTOR);
    rd(c, E, 0x1, &a);
    CHECK_EQ_U(a.victim_line, B);
    gcr_cache_destroy(c);

    /* A write hit refreshes too (write-back): A B C D write(A) E evicts B. */
    c = make();
    rd(c, A, 0xf, &a);
    rd(c, B, 0xf, &a);
    rd(c, C, 0xf, &a);
    rd(c, D, 0xf, &a);
    gcr_cache_access(c, A, 0x1, true, &a);
    CHECK_EQ_U(a.outcome, GCR_HIT);
    rd(c, E, 0xf, &a);
    CHECK_EQ_U(a.victim_line, B);
    /* Without any reuse the order is fill order: next misses evict C then D then A. */
    rd(c, 0x6000, 0xf, &a);
    CHECK_EQ_U(a.victim_line, C);
    rd(c, 0x7000, 0xf, &a);
    CHECK_EQ_U(a.victim_line, D);
    rd(c, 0x8000, 0xf, &a);
    CHECK_EQ_U(a.victim_line, A);
    CHECK_EQ_U(a.victim_dirty, 0x1);
    gcr_cache_destroy(c);
    CHECK_DONE();
}
