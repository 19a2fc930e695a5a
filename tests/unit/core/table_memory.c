/* Block pools, and small tables: zero-filled, 64-byte aligned, disjoint, and
 * zero-filled again when a freed block is handed out anew. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "core/table_memory.h"

static const size_t sizes[] = {1, 64, 65, 4000, 4096, 100000, (size_t)1 << 20,
                               ((size_t)2 << 20) - 1, (size_t)3 << 20};
enum { N = sizeof sizes / sizeof sizes[0] };

static void check_zero(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && p[i] == 0)
        i++;
    CHECK_EQ_U(i, n);
}

/* A pool: blocks of the class size, zero-filled when new, recycled by size
 * class; a block over a quarter chunk is a mapping of its own. */
static void pool(void)
{
    struct gcr_pool *p = gcr_pool_create(8, (size_t)1 << 20);
    CHECK(p != NULL);
    CHECK_EQ_U(gcr_pool_block_bytes(p, 1), 256);
    CHECK_EQ_U(gcr_pool_block_bytes(p, 257), 512);
    bool recycled = true;
    unsigned char *a = gcr_pool_get(p, 100, &recycled);
    CHECK(a != NULL && !recycled);
    CHECK_EQ_U((uintptr_t)a % 64, 0);
    check_zero(a, 256);
    unsigned char *b = gcr_pool_get(p, 200, &recycled);
    CHECK(b != NULL && b != a && !recycled);
    memset(a, 7, 256);
    gcr_pool_put(p, a, 100);
    CHECK(gcr_pool_get(p, 256, &recycled) == a && recycled); /* the class's free block */
    CHECK(gcr_pool_get(p, 300, &recycled) != a && !recycled);
    unsigned char *big = gcr_pool_get(p, 600000, &recycled); /* 1 MB: its own mapping */
    CHECK(big != NULL && !recycled);
    check_zero(big, (size_t)1 << 20);
    gcr_pool_put(p, big, 600000);
    CHECK(gcr_pool_get(p, (size_t)1 << 20, &recycled) == big && recycled);
    for (int i = 0; i < 5000; i++) /* several chunks */
        CHECK(gcr_pool_get(p, 1024, &recycled) != NULL);
    gcr_pool_destroy(p);
}

int main(void)
{
    pool();
    unsigned char *t[N];
    for (int round = 0; round < 2; round++) { /* the second reuses freed blocks */
        for (int i = 0; i < N; i++) {
            t[i] = gcr_small_table_alloc(sizes[i]);
            CHECK(t[i] != NULL);
            CHECK_EQ_U((uintptr_t)t[i] % 64, 0);
            check_zero(t[i], sizes[i]);
            memset(t[i], i + 1, sizes[i]);
        }
        for (int i = 0; i < N; i++) { /* no table wrote over another */
            size_t k = 0;
            while (k < sizes[i] && t[i][k] == i + 1)
                k++;
            CHECK_EQ_U(k, sizes[i]);
        }
        for (int i = 0; i < N; i++)
            gcr_small_table_free(t[i], sizes[i]);
    }
    gcr_small_table_free(NULL, 64);
    CHECK_DONE();
}
