/* RANDOM replacement: reproducible for a seed, different for another seed,
 * victims always resident lines of the set, every way chosen eventually. */
#include "check.h"
#include "cache_test.h"

#define WAYS 8
#define LINES 32   /* distinct lines cycled through the one set */
#define STEPS 2000

/* Runs a fixed access pattern; records victim line addresses in victims[] and
 * how often each way was the victim. Returns the number of evictions. */
static int run(uint64_t seed, uint64_t *victims, unsigned *per_way)
{
    struct gcr_cache_geometry g = cache_test_geometry(1, WAYS);
    g.repl = GCR_REPL_RANDOM;
    g.write_policy = GCR_WRITE_THROUGH;
    g.write_alloc = GCR_WALLOC_NONE;
    g.seed = seed;
    struct gcr_cache *c = cache_test_create(&g);
    /* way_of[i]: the way line i occupies (ways fill lowest-invalid first and a
     * new line takes its victim's way), -1 if not resident. */
    int way_of[LINES];
    for (int i = 0; i < LINES; i++)
        way_of[i] = -1;
    int next_free = 0, n = 0;
    uint64_t x = 12345;
    for (int s = 0; s < STEPS; s++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int i = (int)((x >> 33) % LINES);
        uint64_t line = (uint64_t)(i + 1) * 128;
        struct gcr_access a;
        gcr_cache_access(c, line, 0xf, false, &a);
        CHECK_EQ_U(a.outcome == GCR_HIT, way_of[i] >= 0);
        if (a.outcome != GCR_MISS_LINE)
            continue;
        if (!a.evicted) {
            CHECK(next_free < WAYS);
            way_of[i] = next_free++;
            continue;
        }
        CHECK_EQ_U(next_free, WAYS);
        int v = (int)(a.victim_line / 128) - 1;
        CHECK(v >= 0 && v < LINES && way_of[v] >= 0); /* the victim was resident */
        if (v < 0 || v >= LINES || way_of[v] < 0)
            break;
        per_way[way_of[v]]++;
        way_of[i] = way_of[v];
        way_of[v] = -1;
        victims[n++] = a.victim_line;
    }
    int resident = 0;
    for (int i = 0; i < LINES; i++)
        resident += gcr_cache_probe(c, (uint64_t)(i + 1) * 128, NULL);
    CHECK_EQ_U(resident, WAYS);
    gcr_cache_destroy(c);
    return n;
}

int main(void)
{
    static uint64_t v1[STEPS], v2[STEPS], v3[STEPS];
    unsigned w1[WAYS] = {0}, w2[WAYS] = {0}, w3[WAYS] = {0};
    int n1 = run(42, v1, w1);
    int n2 = run(42, v2, w2);
    int n3 = run(43, v3, w3);
    CHECK(n1 > 1000); /* 8 of 32 lines resident: most accesses miss */
    CHECK_EQ_U(n1, n2);
    CHECK(memcmp(v1, v2, (size_t)n1 * sizeof v1[0]) == 0);
    int same = n1 == n3 && memcmp(v1, v3, (size_t)n1 * sizeof v1[0]) == 0;
    CHECK(!same);
    for (int w = 0; w < WAYS; w++) {
        CHECK(w1[w] > 0);
        CHECK(w3[w] > 0);
        /* Roughly uniform: each way gets 1/8 of the evictions, give or take half. */
        CHECK(w1[w] > (unsigned)n1 / WAYS / 2 && w1[w] < (unsigned)n1 / WAYS * 3 / 2);
    }
    CHECK_DONE();
}
