#include "table_memory.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

/* Small tables are power-of-two blocks of 2^MIN_CLASS bytes and more (so
 * 64-byte aligned within page-aligned chunks), cut from shared huge-page
 * chunks, with a free list per class threaded through the free blocks.
 * Chunks stay mapped for the life of the process. */
enum { MIN_CLASS = 6, MAX_CLASS = 21 }; /* 64 B .. 2 MB (HUGE_PAGE) */
#define CHUNK ((size_t)8 << 20)

static struct {
    pthread_mutex_t lock;
    void *free_list[MAX_CLASS + 1];
    char *bump, *bump_end; /* unused tail of the newest chunk */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

static unsigned class_of(size_t bytes)
{
    unsigned k = MIN_CLASS;
    while (((size_t)1 << k) < bytes)
        k++;
    return k;
}

static void *pool_get(unsigned k)
{
    size_t size = (size_t)1 << k;
    void *p = pool.free_list[k];
    if (p) {
        memcpy(&pool.free_list[k], p, sizeof p);
        memset(p, 0, size);
        return p;
    }
    if ((size_t)(pool.bump_end - pool.bump) < size) {
        /* The old chunk's tail is abandoned: less than the block asked for. */
        char *c = gcr_table_alloc(CHUNK);
        if (!c)
            return NULL;
        pool.bump = c;
        pool.bump_end = c + CHUNK;
    }
    p = pool.bump;
    pool.bump += size;
    return p;
}

void *gcr_small_table_alloc(size_t bytes)
{
    if (bytes >= HUGE_PAGE)
        return gcr_table_alloc(bytes); /* a mapping of its own */
    pthread_mutex_lock(&pool.lock);
    void *p = pool_get(class_of(bytes));
    pthread_mutex_unlock(&pool.lock);
    return p;
}

void gcr_small_table_free(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes >= HUGE_PAGE) {
        gcr_table_free(p, bytes);
        return;
    }
    unsigned k = class_of(bytes);
    pthread_mutex_lock(&pool.lock);
    memcpy(p, &pool.free_list[k], sizeof p);
    pool.free_list[k] = p;
    pthread_mutex_unlock(&pool.lock);
}
