#include "core/table_memory.h"
#include "replay/warpq.h"

#include <stdlib.h>
#include <string.h>

/* A pool hands out power-of-two buffers of 2^MIN_CLASS bytes and more. Each
 * class has a free list threaded through the free buffers themselves; new
 * buffers are cut from the current chunk, and a buffer larger than a chunk
 * gets a chunk of its own. */
enum { MIN_CLASS = 8, CLASSES = 48 };
#define CHUNK_BYTES ((size_t)32 << 20)

struct chunk {
    struct chunk *next;
    size_t bytes; /* of the whole mapping, this header included */
};

struct gcr_warpq_pool {
    struct chunk *chunks;
    uint8_t *bump, *bump_end; /* unused tail of the newest chunk */
    void *free_list[CLASSES];
};

struct gcr_warpq_pool *gcr_warpq_pool_create(void) { return calloc(1, sizeof(struct gcr_warpq_pool)); }

void gcr_warpq_pool_destroy(struct gcr_warpq_pool *pool)
{
    if (!pool)
        return;
    while (pool->chunks) {
        struct chunk *c = pool->chunks;
        pool->chunks = c->next;
        gcr_table_free(c, c->bytes);
    }
    free(pool);
}

static unsigned class_of(size_t cap)
{
    unsigned k = MIN_CLASS;
    while (((size_t)1 << k) < cap)
        k++;
    return k;
}

/* A chunk header takes one 64-byte line, so buffers stay line-aligned. */
static struct chunk *chunk_new(struct gcr_warpq_pool *pool, size_t payload)
{
    size_t bytes = 64 + payload;
    struct chunk *c = gcr_table_alloc(bytes);
    if (!c)
        return NULL;
    c->bytes = bytes;
    c->next = pool->chunks;
    pool->chunks = c;
    return c;
}

static void *pool_get(struct gcr_warpq_pool *pool, unsigned k)
{
    size_t bytes = (size_t)1 << k;
    void *p = pool->free_list[k];
    if (p) {
        memcpy(&pool->free_list[k], p, sizeof p);
        return p;
    }
    if (bytes > CHUNK_BYTES / 4) { /* large: a chunk of its own */
        struct chunk *c = chunk_new(pool, bytes);
        return c ? (uint8_t *)c + 64 : NULL;
    }
    if ((size_t)(pool->bump_end - pool->bump) < bytes) {
        /* The old chunk's tail is abandoned: at most a quarter of a chunk. */
        struct chunk *c = chunk_new(pool, CHUNK_BYTES);
        if (!c)
            return NULL;
        pool->bump = (uint8_t *)c + 64;
        pool->bump_end = pool->bump + CHUNK_BYTES;
    }
    p = pool->bump;
    pool->bump += bytes;
    return p;
}

static void pool_put(struct gcr_warpq_pool *pool, void *p, size_t cap)
{
    unsigned k = class_of(cap);
    memcpy(p, &pool->free_list[k], sizeof p);
    pool->free_list[k] = p;
}

/* Out of line: queues are reused from CTA to CTA, so growing is rare, and
 * keeping it out of the inline push functions keeps them small. */
int gcr_warpq_grow(struct gcr_warpq *q, size_t extra)
{
    size_t cap = q->cap ? q->cap : (size_t)1 << MIN_CLASS;
    while (cap < q->len + extra)
        cap *= 2;
    if (!q->pool) {
        uint8_t *b = realloc(q->buf, cap);
        if (!b)
            return -1;
        q->buf = b;
        q->cap = cap;
        return 0;
    }
    unsigned k = class_of(cap);
    if (k >= CLASSES)
        return -1;
    uint8_t *b = pool_get(q->pool, k);
    if (!b)
        return -1;
    if (q->buf) {
        memcpy(b, q->buf, q->len);
        pool_put(q->pool, q->buf, q->cap);
    }
    q->buf = b;
    q->cap = (size_t)1 << k;
    return 0;
}

void gcr_lane_shape_expand(const struct gcr_lane_shape *shape, struct gcr_warp_insn *in)
{
    if (!shape->strided)
        return;
    uint64_t a = shape->base;
    for (uint32_t m = in->active_mask; m; m &= m - 1, a += (uint64_t)shape->stride)
        in->addr[__builtin_ctz(m)] = a;
}

void gcr_warpq_free(struct gcr_warpq *q)
{
    if (q->pool && q->buf)
        pool_put(q->pool, q->buf, q->cap);
    else
        free(q->buf);
    q->buf = NULL;
    q->len = q->cap = q->pos = 0;
}
