/* Throughput check of the cache model (a measurement, not a test; not built by
 * meson). Build and run from the repository root:
 *   cc -std=c17 -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc src/core/error.c \
 *      src/cache/cache.c src/cache/geometry.c src/cache/index.c \
 *      tests/unit/cache/throughput.c -o /tmp/cache-throughput
 *   /tmp/cache-throughput
 * Streams: one 4 x 256 LRU L1 with a random-ish stream (a hot region plus
 * scattered lines, ~25% writes); then 80 such L1s accessed round-robin, so the
 * working set of the model itself exceeds the host's L1/L2 caches; then 64
 * write-back L2 slices of 32 x 24 ways with IPOLY indexing. Each is run three
 * times on fresh caches and the best rate in process CPU time is printed, as
 * the host may be busy. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gcreplay/cache.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x853c49e6748fea9bull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A line address: 3/4 of the accesses go to a hot set of 1024 lines (the L1's
 * capacity), the rest anywhere in 64 MiB. */
static uint64_t addr_of(uint64_t x)
{
    uint64_t line = (x & 3) ? (x >> 8) % 1024 : (x >> 8) % (1u << 19);
    return line * 128;
}

/* Runs n accesses spread round-robin over ncaches fresh caches of geometry g;
 * returns accesses per second. */
static double run_once(const struct gcr_cache_geometry *g, unsigned ncaches, long n,
                       double *hit_rate)
{
    static uint64_t xs[1 << 16];
    static struct gcr_cache *caches[128];
    for (unsigned i = 0; i < (1u << 16); i++)
        xs[i] = next();
    for (unsigned k = 0; k < ncaches; k++)
        caches[k] = gcr_cache_create(g, NULL);
    struct gcr_access a;
    uint64_t sink = 0;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        uint64_t x = xs[i & 0xffff] ^ (uint64_t)i * 0x9e3779b97f4a7c15ull;
        struct gcr_cache *c = caches[(unsigned long)i % ncaches];
        uint32_t mask = (uint32_t)(x >> 40) & 0xf;
        gcr_cache_access(c, addr_of(x), mask ? mask : 1, ((x >> 4) & 3) == 0, &a);
        sink += a.fetch_mask;
    }
    double dt = now() - t0;
    uint64_t hits = 0, acc = 0;
    for (unsigned k = 0; k < ncaches; k++) {
        const struct gcr_cache_stats *st = gcr_cache_stats(caches[k]);
        hits += st->outcomes[0][GCR_HIT] + st->outcomes[1][GCR_HIT];
        acc += st->accesses[0] + st->accesses[1];
        gcr_cache_destroy(caches[k]);
    }
    *hit_rate = (double)hits / (double)acc;
    if (sink == 1)
        fputs("", stdout); /* keeps the fetch masks live */
    return (double)n / dt;
}

static void run(const struct gcr_cache_geometry *g, unsigned ncaches, long n, const char *what)
{
    double best = 0, hit_rate = 0;
    for (int rep = 0; rep < 3; rep++) {
        double r = run_once(g, ncaches, n, &hit_rate);
        if (r > best)
            best = r;
    }
    printf("%-44s %6.1f M accesses/s  (%.0f ns/access, hit rate %.2f)\n", what, best * 1e-6,
           1e9 / best, hit_rate);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    struct gcr_cache_geometry l1 = {
        .sets = 4, .ways = 256, .line_bytes = 128, .sector_bytes = 32, .sectored = true,
        .repl = GCR_REPL_LRU, .index = GCR_INDEX_LINEAR, .write_policy = GCR_WRITE_EVICT,
        .write_alloc = GCR_WALLOC_NONE};
    run(&l1, 1, n, "1 L1 4x256 LRU write-evict");
    run(&l1, 80, n, "80 L1s 4x256 LRU, round-robin");
    struct gcr_cache_geometry l2 = {
        .sets = 32, .ways = 24, .line_bytes = 128, .sector_bytes = 32, .sectored = true,
        .repl = GCR_REPL_LRU, .index = GCR_INDEX_IPOLY, .write_policy = GCR_WRITE_BACK,
        .write_alloc = GCR_WALLOC_VALIDATE, .strip_bytes = 256, .strip_count = 64};
    run(&l2, 64, n, "64 L2 slices 32x24 LRU ipoly write-back");
    return 0;
}
