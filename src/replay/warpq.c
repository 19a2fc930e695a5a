#include "core/bits.h"
#include "replay/warpq.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_STRIDE = 0, TAG_LIST = 1, TAG_NONMEM = 2 };

/* Fixed part of a packed instruction: tag, op, space, cache_op, width, mask, pc. */
#define INSN_FIXED (1 + 3 + 2 + 4 + 8)

/* Out of line: queues are reused from CTA to CTA, so growing is rare, and
 * keeping realloc out of the push functions keeps them leaf functions. */
static __attribute__((noinline)) int grow(struct gcr_warpq *q, size_t extra)
{
    size_t cap = q->cap ? q->cap : 256;
    while (cap < q->len + extra)
        cap *= 2;
    uint8_t *b = realloc(q->buf, cap);
    if (!b)
        return -1;
    q->buf = b;
    q->cap = cap;
    return 0;
}

static inline int reserve(struct gcr_warpq *q, size_t extra)
{
    if (__builtin_expect(q->len + extra <= q->cap, 1))
        return 0;
    return grow(q, extra);
}

int gcr_warpq_push_insn(struct gcr_warpq *q, const struct gcr_warp_insn *in)
{
    uint64_t base;
    int64_t stride;
    bool strided;
    if (in->strided && in->active_mask) { /* the reader already knows */
        base = in->addr[__builtin_ctz(in->active_mask)];
        stride = in->stride;
        strided = true;
    } else {
        strided = gcr_insn_stride(in, &base, &stride);
    }
    size_t n = (size_t)gcr_bits_popcount32(in->active_mask);
    if (reserve(q, INSN_FIXED + (strided ? 16 : 8 * n)) != 0)
        return -1;
    uint8_t *p = q->buf + q->len;
    p[0] = strided ? TAG_STRIDE : TAG_LIST;
    p[1] = in->op;
    p[2] = in->space;
    p[3] = in->cache_op;
    memcpy(p + 4, &in->width, 2);
    memcpy(p + 6, &in->active_mask, 4);
    memcpy(p + 10, &in->pc, 8);
    p += INSN_FIXED;
    if (strided) {
        memcpy(p, &base, 8);
        memcpy(p + 8, &stride, 8);
        p += 16;
    } else {
        for (uint32_t m = in->active_mask; m; m &= m - 1) {
            memcpy(p, &in->addr[__builtin_ctz(m)], 8);
            p += 8;
        }
    }
    q->len = (size_t)(p - q->buf);
    return 0;
}

int gcr_warpq_push_nonmem(struct gcr_warpq *q, uint32_t count)
{
    if (reserve(q, 5) != 0)
        return -1;
    q->buf[q->len] = TAG_NONMEM;
    memcpy(q->buf + q->len + 1, &count, 4);
    q->len += 5;
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

enum gcr_warpq_item gcr_warpq_pop(struct gcr_warpq *q, struct gcr_warp_insn *in,
                                  uint32_t *count, struct gcr_lane_shape *shape)
{
    const uint8_t *p = q->buf + q->pos;
    /* The warp issues again only after the SM's other warps: fetch its next
     * cache line now so it has arrived by then. */
    __builtin_prefetch(p + 64);
    if (p[0] == TAG_NONMEM) {
        memcpy(count, p + 1, 4);
        q->pos += 5;
        return GCR_WQ_NONMEM;
    }
    in->op = p[1];
    in->space = p[2];
    in->cache_op = p[3];
    memcpy(&in->width, p + 4, 2);
    memcpy(&in->active_mask, p + 6, 4);
    memcpy(&in->pc, p + 10, 8);
    p += INSN_FIXED;
    shape->strided = q->buf[q->pos] == TAG_STRIDE;
    if (shape->strided) {
        memcpy(&shape->base, p, 8);
        memcpy(&shape->stride, p + 8, 8);
        p += 16;
    } else {
        for (uint32_t m = in->active_mask; m; m &= m - 1, p += 8)
            memcpy(&in->addr[__builtin_ctz(m)], p, 8);
    }
    q->pos = (size_t)(p - q->buf);
    return GCR_WQ_INSN;
}

void gcr_warpq_free(struct gcr_warpq *q)
{
    free(q->buf);
    q->buf = NULL;
    q->len = q->cap = q->pos = 0;
}
