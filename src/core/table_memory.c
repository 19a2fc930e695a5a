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
    /* Anonymous mappings are zero-filled, and pages untouched stay unallocated.
     * The kernel backs only huge-page-aligned stretches with huge pages, so
     * the mapping starts at a multiple of HUGE_PAGE: map one huge page more
     * than needed and give back what lies before and after. */
    size_t len = (bytes + 4095) & ~(size_t)4095;
    char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *p = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    size_t head = (size_t)(p - raw);
    if (head)
        munmap(raw, head);
    if (HUGE_PAGE - head)
        munmap(p + len, HUGE_PAGE - head);
#ifdef MADV_HUGEPAGE
    madvise(p, len, MADV_HUGEPAGE); /* advice only: failure just means 4-KB pages */
#endif
    return p;
}

void *gcr_table_realloc(void *p, size_t old_bytes, size_t new_bytes)
{
    if (old_bytes < HUGE_PAGE && new_bytes < HUGE_PAGE) {
        unsigned char *q = realloc(p, new_bytes ? new_bytes : 1);
        if (q && new_bytes > old_bytes)
            memset(q + old_bytes, 0, new_bytes - old_bytes);
        return q;
    }
    void *q = gcr_table_alloc(new_bytes);
    if (!q)
        return NULL;
    if (p)
        memcpy(q, p, old_bytes < new_bytes ? old_bytes : new_bytes);
    gcr_table_free(p, old_bytes);
    return q;
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

/* Arena mappings: at least this large, so a few of them hold every chunk. */
#define ARENA_MAP ((size_t)32 << 20)

struct gcr_arena_map {
    struct gcr_arena_map *older;
    size_t bytes;
};

void *gcr_arena_alloc(struct gcr_arena *a, size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    if (bytes > a->left) {
        size_t map = sizeof(struct gcr_arena_map) + 64 + bytes;
        map = map < ARENA_MAP ? ARENA_MAP : (map + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        struct gcr_arena_map *m = gcr_table_alloc(map);
        if (!m)
            return NULL;
        m->older = a->maps;
        m->bytes = map;
        a->maps = m;
        a->next = (char *)m + 64; /* the header, then 64-byte aligned blocks */
        a->left = map - 64;
    }
    void *p = a->next;
    a->next += bytes;
    a->left -= bytes;
    return p;
}

void gcr_arena_free_all(struct gcr_arena *a)
{
    while (a->maps) {
        struct gcr_arena_map *m = a->maps;
        a->maps = m->older;
        gcr_table_free(m, m->bytes);
    }
    a->next = NULL;
    a->left = 0;
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
