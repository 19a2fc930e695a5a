/* NRU replacement: one reference bit per way; the victim is the lowest way
 * whose bit is clear; when a reference makes every valid way referenced, all
 * other bits are cleared. The victim sequence below is derived by hand. */
#include "check.h"
#include "cache_test.h"

static struct gcr_cache *make(uint32_t ways)
{
    struct gcr_cache_geometry g = cache_test_geometry(1, ways);
    g.repl = GCR_REPL_NRU;
    g.write_policy = GCR_WRITE_EVICT;
    g.write_alloc = GCR_WALLOC_NONE;
    return cache_test_create(&g);
}

/* Reads line x (line address x * 0x1000); returns the victim's letter or '-'. */
static char rd(struct gcr_cache *c, char x, enum gcr_outcome expect)
{
    struct gcr_access a;
    gcr_cache_access(c, (uint64_t)(x - 'A' + 1) * 0x1000, 0x1, false, &a);
    CHECK_EQ_U(a.outcome, expect);
    return a.evicted ? (char)('A' + a.victim_line / 0x1000 - 1) : '-';
}

int main(void)
{
    struct gcr_cache *c = make(4);
    /* Reference bits by way, after each access (valid ways in brackets):
     * A -> w0 {0}          (all 1 valid referenced: others cleared, none)
     * B -> w1 {1}          (both valid referenced: clear w0)
     * C -> w2 {1,2}
     * D -> w3 {1,2,3}
     * E evicts w0=A, refs {0,1,2,3} all set -> {0}
     * B hit (w1)      {0,1}
     * F evicts w2=C   {0,1,2}
     * G evicts w3=D   all set -> {3}
     * H evicts w0=E   {0,3}
     * B hit           {0,1,3}
     * F hit (w2)      all set -> {2}
     * I evicts w0=H   {0,2}
     * J evicts w1=B   {0,1,2}
     * K evicts w3=G   all set -> {3} */
    CHECK(rd(c, 'A', GCR_MISS_LINE) == '-');
    CHECK(rd(c, 'B', GCR_MISS_LINE) == '-');
    CHECK(rd(c, 'C', GCR_MISS_LINE) == '-');
    CHECK(rd(c, 'D', GCR_MISS_LINE) == '-');
    CHECK(rd(c, 'E', GCR_MISS_LINE) == 'A');
    CHECK(rd(c, 'B', GCR_HIT) == '-');
    CHECK(rd(c, 'F', GCR_MISS_LINE) == 'C');
    CHECK(rd(c, 'G', GCR_MISS_LINE) == 'D');
    CHECK(rd(c, 'H', GCR_MISS_LINE) == 'E');
    CHECK(rd(c, 'B', GCR_HIT) == '-');
    CHECK(rd(c, 'F', GCR_HIT) == '-');
    CHECK(rd(c, 'I', GCR_MISS_LINE) == 'H');
    CHECK(rd(c, 'J', GCR_MISS_LINE) == 'B');
    CHECK(rd(c, 'K', GCR_MISS_LINE) == 'G');
    CHECK_EQ_U(gcr_cache_stats(c)->evictions, 7);

    /* A write-evict invalidation frees w2 (F); the next miss refills w2 without
     * evicting, and then, with refs {3} plus the new w2, L evicts w0=I. */
    struct gcr_access a;
    gcr_cache_access(c, ('F' - 'A' + 1) * 0x1000, 0x1, true, &a);
    CHECK(a.invalidated);
    CHECK(rd(c, 'M', GCR_MISS_LINE) == '-');
    CHECK(rd(c, 'L', GCR_MISS_LINE) == 'I');
    gcr_cache_destroy(c);

    /* One way: every miss evicts the only line. */
    c = make(1);
    CHECK(rd(c, 'A', GCR_MISS_LINE) == '-');
    CHECK(rd(c, 'A', GCR_HIT) == '-');
    CHECK(rd(c, 'B', GCR_MISS_LINE) == 'A');
    CHECK(rd(c, 'C', GCR_MISS_LINE) == 'B');
    gcr_cache_destroy(c);
    CHECK_DONE();
}
