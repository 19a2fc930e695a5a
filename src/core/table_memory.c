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

/* ---- block pools ---- */

enum { POOL_CLASSES = 48 };

/* A chunk's header takes one 64-byte line, so blocks stay line-aligned. */
struct pool_chunk {
    struct pool_chunk *next;
    size_t bytes; /* of the whole mapping, this header included */
};

struct gcr_pool {
    unsigned min_class;
    size_t chunk_bytes;
    struct pool_chunk *chunks;
    char *bump, *bump_end; /* unused tail of the newest chunk */
    void *free_list[POOL_CLASSES];
};

struct gcr_pool *gcr_pool_create(unsigned min_class, size_t chunk_bytes)
{
    struct gcr_pool *p = calloc(1, sizeof *p);
    if (p) {
        p->min_class = min_class < 6 ? 6 : min_class; /* 64-byte aligned blocks */
        p->chunk_bytes = chunk_bytes;
    }
    return p;
}

void gcr_pool_destroy(struct gcr_pool *p)
{
    if (!p)
        return;
    while (p->chunks) {
        struct pool_chunk *c = p->chunks;
        p->chunks = c->next;
        gcr_table_free(c, c->bytes);
    }
    free(p);
}

size_t gcr_pool_block_bytes(const struct gcr_pool *p, size_t bytes)
{
    unsigned k = p->min_class;
    while (((size_t)1 << k) < bytes)
        k++;
    return (size_t)1 << k;
}

static struct pool_chunk *chunk_new(struct gcr_pool *p, size_t payload)
{
    /* At least a huge page, so the chunk is a mapping of its own, page
     * aligned (below that gcr_table_alloc would take it from calloc). */
    size_t bytes = 64 + payload < HUGE_PAGE ? HUGE_PAGE : 64 + payload;
    struct pool_chunk *c = gcr_table_alloc(bytes);
    if (!c)
        return NULL;
    c->bytes = bytes;
    c->next = p->chunks;
    p->chunks = c;
    return c;
}

void *gcr_pool_get(struct gcr_pool *p, size_t bytes, bool *recycled)
{
    size_t size = gcr_pool_block_bytes(p, bytes);
    unsigned k = (unsigned)__builtin_ctzll(size);
    *recycled = false;
    if (k >= POOL_CLASSES)
        return NULL;
    void *b = p->free_list[k];
    if (b) {
        memcpy(&p->free_list[k], b, sizeof b);
        *recycled = true;
        return b;
    }
    if (size > p->chunk_bytes / 4) { /* large: a mapping of its own */
        struct pool_chunk *c = chunk_new(p, size);
        return c ? (char *)c + 64 : NULL;
    }
    if ((size_t)(p->bump_end - p->bump) < size) {
        /* The old chunk's tail is abandoned: less than the block asked for,
         * so at most a quarter of a chunk. */
        struct pool_chunk *c = chunk_new(p, p->chunk_bytes);
        if (!c)
            return NULL;
        p->bump = (char *)c + 64;
        p->bump_end = p->bump + p->chunk_bytes;
    }
    b = p->bump;
    p->bump += size;
    return b;
}

void gcr_pool_put(struct gcr_pool *p, void *block, size_t bytes)
{
    if (!block)
        return;
    unsigned k = (unsigned)__builtin_ctzll(gcr_pool_block_bytes(p, bytes));
    memcpy(block, &p->free_list[k], sizeof block);
    p->free_list[k] = block;
}

/* Small tables: one process-wide pool of 64-byte and larger blocks in 8-MB
 * chunks, behind a lock. Its memory stays with the process. */
static pthread_mutex_t small_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gcr_pool *small_pool;

void *gcr_small_table_alloc(size_t bytes)
{
    pthread_mutex_lock(&small_lock);
    if (!small_pool)
        small_pool = gcr_pool_create(6, (size_t)8 << 20);
    bool recycled = false;
    void *b = small_pool ? gcr_pool_get(small_pool, bytes, &recycled) : NULL;
    pthread_mutex_unlock(&small_lock);
    if (b && recycled) /* the block is the caller's now: cleared outside the lock */
        memset(b, 0, bytes);
    return b;
}

void gcr_small_table_free(void *p, size_t bytes)
{
    if (!p)
        return;
    pthread_mutex_lock(&small_lock);
    gcr_pool_put(small_pool, p, bytes);
    pthread_mutex_unlock(&small_lock);
}
