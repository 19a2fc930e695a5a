#include "table_memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* The x86-64 and AArch64 huge page size: below it a mapping of its own
 * would gain nothing. */
#define HUGE_PAGE ((size_t)2 << 20)

void *gcr_table_alloc(size_t bytes)
{
    if (bytes < HUGE_PAGE)
        return calloc(1, bytes ? bytes : 1);
    /* Anonymous mappings are zero-filled, and pages untouched stay unallocated. */
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE); /* advice only: failure just means 4-KB pages */
#endif
    return p;
}

void gcr_table_free(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes < HUGE_PAGE)
        free(p);
    else
        munmap(p, bytes);
}
