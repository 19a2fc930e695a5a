#include "core/table_memory.h"
#include "replay/warpq.h"

#include <stdlib.h>
#include <string.h>

/* Buffers of 2^MIN_CLASS bytes and more, from 32-MB chunks (core/table_memory.h). */
enum { MIN_CLASS = 8 };

struct gcr_pool *gcr_warpq_pool_create(void)
{
    return gcr_pool_create(MIN_CLASS, (size_t)32 << 20);
}

void gcr_warpq_pool_destroy(struct gcr_pool *pool)
{
    gcr_pool_destroy(pool);
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
    struct gcr_pool *pool = q->pool;
    bool recycled;
    uint8_t *b = gcr_pool_get(pool, cap, &recycled);
    if (!b)
        return -1;
    if (q->buf) {
        memcpy(b, q->buf, q->len);
        gcr_pool_put(pool, q->buf, q->cap);
    }
    q->buf = b;
    q->cap = gcr_pool_block_bytes(pool, cap);
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
        gcr_pool_put(q->pool, q->buf, q->cap);
    else
        free(q->buf);
    q->buf = NULL;
    q->len = q->cap = q->pos = q->nonmem_end = 0;
}
