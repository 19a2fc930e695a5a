/* Per-warp instruction queues: a CTA's records are packed into one compact
 * byte queue per warp when the CTA is loaded and unpacked when issued.
 * Strided accesses (the common case) take 37 bytes instead of 300. */
#ifndef GCREPLAY_REPLAY_WARPQ_H
#define GCREPLAY_REPLAY_WARPQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gcreplay/record.h"

struct gcr_warpq_pool;

struct gcr_warpq {
    uint8_t *buf;
    size_t len, cap, pos;
    struct gcr_warpq_pool *pool; /* where buf comes from; NULL: malloc */
};

/* Buffers for many queues, carved from large huge-page-backed chunks
 * (core/table_memory.h). The replay keeps thousands of queues and reads the
 * head of a different one at every issue: with 4-KB pages nearly every such
 * read would also miss the TLB. Buffers are recycled by size class and go
 * back to the system only when the pool is destroyed. NULL when out of memory. */
struct gcr_warpq_pool *gcr_warpq_pool_create(void);
void gcr_warpq_pool_destroy(struct gcr_warpq_pool *pool);

enum gcr_warpq_item { GCR_WQ_INSN, GCR_WQ_NONMEM };

/* gcr_warpq_push_insn(q, in) and gcr_warpq_push_nonmem(q, count) append an item
 * (0, or -1 when out of memory); gcr_warpq_pop (below) takes the oldest. All
 * three are inline at the end of this file. */

static inline bool gcr_warpq_empty(const struct gcr_warpq *q) { return q->pos >= q->len; }

/* How the lane addresses of a popped instruction are given. */
struct gcr_lane_shape {
    bool strided;    /* true: in->addr[] is NOT filled; k-th active lane = base + k*stride */
    uint64_t base;
    int64_t stride;
};

/* Pops the next item: an instruction (into *in, with cta/warp left untouched,
 * addresses per *shape) or a non-memory count (into *count). Strided
 * instructions leave addr[] unfilled, because the coalescer handles them
 * without it; gcr_lane_shape_expand() fills it when needed. */
static inline enum gcr_warpq_item gcr_warpq_pop(struct gcr_warpq *q, struct gcr_warp_insn *in,
                                                uint32_t *count, struct gcr_lane_shape *shape);

/* Fills in->addr[] from a strided shape (no-op for explicit lists). */
void gcr_lane_shape_expand(const struct gcr_lane_shape *shape, struct gcr_warp_insn *in);

/* For prefetching, no state change: the head item (NULL if q is empty), and
 * the first lane address of an item when it is an instruction of the global
 * or local space with an active lane (what will reach the L1), else false. */
static inline const uint8_t *gcr_warpq_head(const struct gcr_warpq *q)
{
    return gcr_warpq_empty(q) ? NULL : q->buf + q->pos;
}
static inline bool gcr_warpq_item_addr(const uint8_t *item, uint64_t *addr);

static inline void gcr_warpq_reset(struct gcr_warpq *q) { q->len = q->pos = 0; }
/* Gives the buffer back (to q->pool, or to malloc); q is then empty. */
void gcr_warpq_free(struct gcr_warpq *q);

/* ---- The hot functions, inline: the replay pushes every record of a trace
 * and pops every one again. */

enum { GCR_WQ_TAG_STRIDE = 0, GCR_WQ_TAG_LIST = 1, GCR_WQ_TAG_NONMEM = 2 };

/* Fixed part of a packed instruction: the tag, then struct gcr_warp_insn's
 * bytes from pc to active_mask (op, space, cache_op and width lie between,
 * with padding) as they are in memory, so that a push and a pop copy them in
 * one piece. GCR_WQ_AT(field): where a field of the image is in an item. */
#define GCR_WQ_IMAGE_START offsetof(struct gcr_warp_insn, pc)
#define GCR_WQ_IMAGE_END (offsetof(struct gcr_warp_insn, active_mask) + 4)
#define GCR_WQ_IMAGE_BYTES (GCR_WQ_IMAGE_END - GCR_WQ_IMAGE_START)
#define GCR_WQ_INSN_FIXED (1 + GCR_WQ_IMAGE_BYTES)
#define GCR_WQ_AT(field) (1 + offsetof(struct gcr_warp_insn, field) - GCR_WQ_IMAGE_START)
#define GCR_WQ_IN_IMAGE(field)                                                                     \
    (offsetof(struct gcr_warp_insn, field) > GCR_WQ_IMAGE_START &&                                 \
     offsetof(struct gcr_warp_insn, field) < offsetof(struct gcr_warp_insn, active_mask))
_Static_assert(GCR_WQ_IN_IMAGE(op) && GCR_WQ_IN_IMAGE(space) && GCR_WQ_IN_IMAGE(cache_op) &&
                   GCR_WQ_IN_IMAGE(width) && GCR_WQ_IMAGE_BYTES == 20,
               "the packed image assumes struct gcr_warp_insn's field order");

/* Makes room for extra more bytes (warpq.c); 0, or -1 when out of memory. */
int gcr_warpq_grow(struct gcr_warpq *q, size_t extra);

static inline int gcr_warpq_reserve(struct gcr_warpq *q, size_t extra)
{
    if (__builtin_expect(q->len + extra <= q->cap, 1))
        return 0;
    return gcr_warpq_grow(q, extra);
}

/* The fixed part of a packed instruction, then returns where its lane part goes. */
static inline uint8_t *gcr_warpq_put_fixed(uint8_t *p, unsigned tag, const struct gcr_warp_insn *in)
{
    p[0] = (uint8_t)tag;
    memcpy(p + 1, (const char *)in + GCR_WQ_IMAGE_START, GCR_WQ_IMAGE_BYTES);
    return p + GCR_WQ_INSN_FIXED;
}

/* Appends an instruction; 0, or -1 when out of memory. */
static inline int gcr_warpq_push_insn(struct gcr_warpq *q, const struct gcr_warp_insn *in)
{
    uint32_t mask = in->active_mask;
    if (__builtin_expect(in->strided && mask, 1)) {
        /* The reader already knows the shape (the common case): no address to
         * look at but the first active lane's. Its own branch, so that base and
         * stride stay in registers. */
        if (gcr_warpq_reserve(q, GCR_WQ_INSN_FIXED + 16) != 0)
            return -1;
        uint8_t *p = gcr_warpq_put_fixed(q->buf + q->len, GCR_WQ_TAG_STRIDE, in);
        memcpy(p, &in->addr[__builtin_ctz(mask)], 8);
        memcpy(p + 8, &in->stride, 8);
        q->len += GCR_WQ_INSN_FIXED + 16;
        return 0;
    }
    uint64_t base;
    int64_t stride;
    bool strided = gcr_insn_stride(in, &base, &stride);
    size_t n = (size_t)__builtin_popcount(mask);
    if (gcr_warpq_reserve(q, GCR_WQ_INSN_FIXED + (strided ? 16 : 8 * n)) != 0)
        return -1;
    uint8_t *p = gcr_warpq_put_fixed(q->buf + q->len,
                                     strided ? GCR_WQ_TAG_STRIDE : GCR_WQ_TAG_LIST, in);
    if (strided) {
        memcpy(p, &base, 8);
        memcpy(p + 8, &stride, 8);
        p += 16;
    } else {
        for (uint32_t m = mask; m; m &= m - 1) {
            memcpy(p, &in->addr[__builtin_ctz(m)], 8);
            p += 8;
        }
    }
    q->len = (size_t)(p - q->buf);
    return 0;
}

/* Appends a run of count non-memory instructions; 0, or -1 when out of memory. */
static inline int gcr_warpq_push_nonmem(struct gcr_warpq *q, uint32_t count)
{
    if (gcr_warpq_reserve(q, 5) != 0)
        return -1;
    q->buf[q->len] = GCR_WQ_TAG_NONMEM;
    memcpy(q->buf + q->len + 1, &count, 4);
    q->len += 5;
    return 0;
}

static inline enum gcr_warpq_item gcr_warpq_pop(struct gcr_warpq *q, struct gcr_warp_insn *in,
                                                uint32_t *count, struct gcr_lane_shape *shape)
{
    const uint8_t *p = q->buf + q->pos;
    if (p[0] == GCR_WQ_TAG_NONMEM) {
        memcpy(count, p + 1, 4);
        q->pos += 5;
        return GCR_WQ_NONMEM;
    }
    memcpy((char *)in + GCR_WQ_IMAGE_START, p + 1, GCR_WQ_IMAGE_BYTES);
    shape->strided = p[0] == GCR_WQ_TAG_STRIDE;
    p += GCR_WQ_INSN_FIXED;
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

static inline bool gcr_warpq_item_addr(const uint8_t *p, uint64_t *addr)
{
    /* The tag first: a non-memory item is 5 bytes, and may end the buffer. */
    if (p[0] == GCR_WQ_TAG_NONMEM || p[GCR_WQ_AT(space)] > GCR_SPACE_LOCAL)
        return false;
    uint32_t mask;
    memcpy(&mask, p + GCR_WQ_AT(active_mask), 4);
    if (!mask)
        return false;
    memcpy(addr, p + GCR_WQ_INSN_FIXED, 8); /* the stride form's base, or the list's first */
    return true;
}

#endif
