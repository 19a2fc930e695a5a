/* Helpers shared by the cache unit tests. */
#ifndef GCR_TEST_CACHE_TEST_H
#define GCR_TEST_CACHE_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcreplay/cache.h"

/* The geometry most tests start from: `sets` x `ways` lines of 128 bytes in four 32-byte
 * sectors, sectored, linear indexing, LRU, write-back with validate-on-write. A test then sets
 * the fields it is about. */
static inline struct gcr_cache_geometry cache_test_geometry(uint32_t sets, uint32_t ways)
{
    struct gcr_cache_geometry g = {
        .sets = sets, .ways = ways, .line_bytes = 128, .sector_bytes = 32, .sectored = true,
        .repl = GCR_REPL_LRU, .index = GCR_INDEX_LINEAR, .write_policy = GCR_WRITE_BACK,
        .write_alloc = GCR_WALLOC_VALIDATE};
    return g;
}

/* Creates the cache or ends the test: none of its checks can run without it. */
static inline struct gcr_cache *cache_test_create(const struct gcr_cache_geometry *g)
{
    struct gcr_err err;
    struct gcr_cache *c = gcr_cache_create(g, &err);
    if (!c) {
        fprintf(stderr, "create: %s\n", err.msg);
        exit(1);
    }
    return c;
}

#endif
