/* Geometry validation (one case per rule, message checked) and the name tables. */
#include "check.h"
#include "gcreplay/cache.h"

static struct gcr_cache_geometry base(void)
{
    struct gcr_cache_geometry g = {
        .sets = 4, .ways = 256, .line_bytes = 128, .sector_bytes = 32, .sectored = true,
        .repl = GCR_REPL_LRU, .index = GCR_INDEX_LINEAR, .write_policy = GCR_WRITE_EVICT,
        .write_alloc = GCR_WALLOC_NONE};
    return g;
}

/* Expects the geometry to be rejected with a message containing needle, and
 * gcr_cache_create to fail the same way. */
static void reject(const struct gcr_cache_geometry *g, const char *needle)
{
    char why[256] = "";
    CHECK(gcr_cache_geometry_check(g, why, sizeof why) == -1);
    CHECK_STR_CONTAINS(why, needle);
    struct gcr_err err = {0};
    struct gcr_cache *c = gcr_cache_create(g, &err);
    CHECK(c == NULL);
    gcr_cache_destroy(c);
    CHECK_EQ_U(err.status, GCR_E_CONFIG);
    CHECK_STR_CONTAINS(err.msg, needle);
}

int main(void)
{
    struct gcr_cache_geometry g = base();
    char why[256] = "";
    CHECK(gcr_cache_geometry_check(&g, why, sizeof why) == 0);

    g = base(); g.sets = 0;
    reject(&g, "sets must be at least 1 (got 0)");
    g = base(); g.ways = 0;
    reject(&g, "ways must be between 1 and 65535 (got 0)");
    g = base(); g.ways = 65536;
    reject(&g, "ways must be between 1 and 65535 (got 65536)");
    g = base(); g.line_bytes = 96;
    reject(&g, "line_bytes must be a power of two between 16 and 256 (got 96)");
    g = base(); g.line_bytes = 8; g.sector_bytes = 8;
    reject(&g, "line_bytes must be a power of two between 16 and 256 (got 8)");
    g = base(); g.line_bytes = 512;
    reject(&g, "(got 512)");
    g = base(); g.sector_bytes = 24;
    reject(&g, "sector_bytes must be a power of two dividing line_bytes 128 (got 24)");
    g = base(); g.sector_bytes = 256;
    reject(&g, "sector_bytes must be a power of two dividing line_bytes 128 (got 256)");
    g = base(); g.sector_bytes = 2;
    reject(&g, "at most 32 sectors (got 64 sectors)");
    g = base(); g.sets = 1u << 20; g.ways = 128;
    reject(&g, "sets x ways must be at most 2^26 lines (got 134217728)");
    g = base(); g.repl = GCR_REPL_COUNT;
    reject(&g, "replacement must be lru, fifo, random or nru (got 4)");
    g = base(); g.index = (enum gcr_index_fn)7;
    reject(&g, "index must be linear, xor, fermi or ipoly (got 7)");
    g = base(); g.write_policy = GCR_WRITE_POLICY_COUNT;
    reject(&g, "write_policy must be write_evict, write_through or write_back (got 3)");
    g = base(); g.write_policy = GCR_WRITE_BACK; g.write_alloc = GCR_WALLOC_COUNT;
    reject(&g, "write_allocate must be none, fetch or validate (got 3)");
    g = base(); g.write_alloc = GCR_WALLOC_FETCH;
    reject(&g, "write_allocate must be none with write_evict (got fetch)");
    g = base(); g.write_alloc = GCR_WALLOC_VALIDATE;
    reject(&g, "write_allocate must be none with write_evict (got validate)");
    g = base(); g.strip_count = 4; g.strip_bytes = 64;
    reject(&g, "strip_bytes must be a power of two of at least line_bytes 128 (got 64)");
    g = base(); g.strip_count = 4; g.strip_bytes = 384;
    reject(&g, "(got 384)");
    g = base(); g.strip_count = 1u << 31; g.strip_bytes = UINT64_C(1) << 40;
    reject(&g, "strip_bytes x strip_count must be below 2^63");
    g = base(); g.strip_count = 1; g.strip_bytes = 3; /* ignored when strip_count <= 1 */
    CHECK(gcr_cache_geometry_check(&g, why, sizeof why) == 0);
    g = base(); g.index = GCR_INDEX_XOR; g.sets = 12;
    reject(&g, "index xor needs a power-of-two number of sets (got 12)");
    g = base(); g.index = GCR_INDEX_FERMI; g.sets = 16;
    reject(&g, "index fermi needs 32 or 64 sets (got 16)");
    g = base(); g.index = GCR_INDEX_FERMI; g.sets = 64; g.line_bytes = 64;
    reject(&g, "index fermi needs line_bytes 128 (got 64)");
    g = base(); g.index = GCR_INDEX_IPOLY; g.sets = 128;
    reject(&g, "index ipoly needs 16, 32 or 64 sets (got 128)");
    /* The accepted corners. */
    g = base(); g.sets = 12;
    CHECK(gcr_cache_geometry_check(&g, why, sizeof why) == 0);
    g = base(); g.ways = 65535; g.sets = 1; g.line_bytes = 256; g.sector_bytes = 8;
    CHECK(gcr_cache_geometry_check(&g, why, sizeof why) == 0);
    g = base(); g.index = GCR_INDEX_IPOLY; g.sets = 16; g.line_bytes = 32;
    CHECK(gcr_cache_geometry_check(&g, why, sizeof why) == 0);
    g = base(); g.index = GCR_INDEX_FERMI; g.sets = 64;
    CHECK(gcr_cache_geometry_check(&g, why, sizeof why) == 0);
    /* A short buffer still gets a terminated prefix; NULL is allowed. */
    char tiny[8];
    g = base(); g.ways = 0;
    CHECK(gcr_cache_geometry_check(&g, tiny, sizeof tiny) == -1);
    CHECK(strcmp(tiny, "ways mu") == 0);
    CHECK(gcr_cache_geometry_check(&g, NULL, 0) == -1);

    /* Names round-trip; unknown names give -1. */
    for (int i = 0; i < GCR_REPL_COUNT; i++)
        CHECK_EQ_U(gcr_repl_from_name(gcr_repl_name((enum gcr_repl_policy)i)), i);
    for (int i = 0; i < GCR_INDEX_COUNT; i++)
        CHECK_EQ_U(gcr_index_from_name(gcr_index_name((enum gcr_index_fn)i)), i);
    for (int i = 0; i < GCR_WRITE_POLICY_COUNT; i++)
        CHECK_EQ_U(gcr_write_policy_from_name(gcr_write_policy_name((enum gcr_write_policy)i)),
                   i);
    for (int i = 0; i < GCR_WALLOC_COUNT; i++)
        CHECK_EQ_U(gcr_write_alloc_from_name(gcr_write_alloc_name((enum gcr_write_alloc)i)), i);
    CHECK(strcmp(gcr_repl_name(GCR_REPL_NRU), "nru") == 0);
    CHECK(strcmp(gcr_index_name(GCR_INDEX_IPOLY), "ipoly") == 0);
    CHECK(strcmp(gcr_write_policy_name(GCR_WRITE_THROUGH), "write_through") == 0);
    CHECK(strcmp(gcr_write_alloc_name(GCR_WALLOC_VALIDATE), "validate") == 0);
    CHECK(gcr_repl_from_name("LRU") == -1);
    CHECK(gcr_repl_from_name("") == -1);
    CHECK(gcr_index_from_name("hash") == -1);
    CHECK(gcr_write_policy_from_name("writeback") == -1);
    CHECK(gcr_write_alloc_from_name(NULL) == -1);
    CHECK_DONE();
}
