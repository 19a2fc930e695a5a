/* FIFO replacement on a 1-set x 4-way cache: only fills order the lines. */
#include "check.h"
#include "cache_test.h"

#define A 0x1000
#define B 0x2000
#define C 0x3000
#define D 0x4000
#define E 0x5000
#define F 0x6000

int main(void)
{
    struct gcr_cache_geometry g = cache_test_geometry(1, 4);
    g.repl = GCR_REPL_FIFO;
    struct gcr_cache *c = cache_test_create(&g);
    struct gcr_access a;
    uint64_t seq[] = {A, B, C, D};
    for (int i = 0; i < 4; i++)
        gcr_cache_access(c, seq[i], 0x1, false, &a);
    /* The hit and the sector miss on A do not reorder: E still evicts A, the oldest. */
    gcr_cache_access(c, A, 0x1, false, &a);
    CHECK_EQ_U(a.outcome, GCR_HIT);
    gcr_cache_access(c, A, 0x2, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_SECTOR);
    gcr_cache_access(c, E, 0x1, false, &a);
    CHECK(a.evicted);
    CHECK_EQ_U(a.victim_line, A);
    CHECK_EQ_U(a.victim_valid, 0x3);
    CHECK_EQ_U(a.victim_used, 0x3);
    /* Fill order now B C D E: A returns and evicts B, then F evicts C. */
    gcr_cache_access(c, A, 0x1, false, &a);
    CHECK_EQ_U(a.outcome, GCR_MISS_LINE);
    CHECK_EQ_U(a.victim_line, B);
    gcr_cache_access(c, B, 0x1, true, &a); /* write-allocate is a fill too */
    CHECK_EQ_U(a.victim_line, C);
    gcr_cache_access(c, D, 0x1, true, &a); /* write hit: no reorder */
    CHECK_EQ_U(a.outcome, GCR_HIT);
    gcr_cache_access(c, F, 0x1, false, &a);
    CHECK_EQ_U(a.victim_line, D);
    CHECK_EQ_U(a.victim_dirty, 0x1);
    const struct gcr_cache_stats *st = gcr_cache_stats(c);
    CHECK_EQ_U(st->evictions, 4);
    CHECK_EQ_U(st->outcomes[0][GCR_HIT], 1);
    CHECK_EQ_U(st->outcomes[0][GCR_MISS_SECTOR], 1);
    CHECK_EQ_U(st->outcomes[0][GCR_MISS_LINE], 7);
    CHECK_EQ_U(st->outcomes[1][GCR_MISS_LINE], 1);
    CHECK_EQ_U(st->outcomes[1][GCR_HIT], 1);
    CHECK_EQ_U(st->sectors_written_back, 1);
    gcr_cache_destroy(c);
    CHECK_DONE();
}
