#include "core/bits.h"
#include "replay/warpq.h"

#include <stdlib.h>
#include <string.h>

/* Out of line: queues are reused from CTA to CTA, so growing is rare, and
 * keeping realloc out of the inline push functions keeps them small. */
int gcr_warpq_grow(struct gcr_warpq *q, size_t extra)
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
    free(q->buf);
    q->buf = NULL;
    q->len = q->cap = q->pos = 0;
}
