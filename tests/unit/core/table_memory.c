/* Small tables: zero-filled, 64-byte aligned, disjoint, and zero-filled again
 * when a freed block is handed out anew. */
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

int main(void)
{
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
