#include "table_memory.h"

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
