/* Per-warp instruction queues: a CTA's records are packed into one compact
 * byte queue per warp when the CTA is loaded and unpacked when issued.
 * Strided accesses (the common case) take 28 bytes instead of 300. */
#ifndef GCREPLAY_REPLAY_WARPQ_H
#define GCREPLAY_REPLAY_WARPQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gcreplay/record.h"

struct gcr_pool;

struct gcr_warpq {
    uint8_t *buf;
    size_t len, cap, pos;
    size_t nonmem_end; /* len right after a run of non-memory instructions was pushed (else 0) */
    struct gcr_pool *pool; /* where buf comes from; NULL: malloc */
};

/* Buffers for many queues, carved from large huge-page-backed chunks
 * (core/table_memory.h). The replay keeps thousands of queues and reads the
 * head of a different one at every issue: with 4-KB pages nearly every such
 * read would also miss the TLB. Buffers are recycled by size class and go
 * back to the system only when the pool is destroyed. NULL when out of memory. */
struct gcr_pool *gcr_warpq_pool_create(void);
void gcr_warpq_pool_destroy(struct gcr_pool *pool);

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

static inline void gcr_warpq_reset(struct gcr_warpq *q) { q->len = q->pos = q->nonmem_end = 0; }
/* Gives the buffer back (to q->pool, or to malloc); q is then empty. */
void gcr_warpq_free(struct gcr_warpq *q);

/* ---- The hot functions, inline: the replay pushes every record of a trace
 * and pops every one again. */

/* A packed instruction starts with the image of struct gcr_warp_insn's bytes
 * from pc to active_mask as they lie in memory (op, space, cache_op and width
 * between them), so that a push and a pop copy them in one piece. The image's
 * padding carries the item's own fields: after cache_op its tag, after width
 * the stride of a GCR_WQ_TAG_STRIDE item. Then come the lanes: the first
 * active lane's address (strided forms; GCR_WQ_TAG_STRIDE_WIDE: then the
 * stride, 8 bytes) or each active lane's address (GCR_WQ_TAG_LIST), 8 bytes
 * each. So a strided instruction, nearly every one, takes 28 bytes: the
 * queues of the resident CTAs hold all their instructions from loading to
 * issue, far more than the host's last-level cache, and the fewer bytes they
 * stream through it the more of the cache models' state stays there. A run of
 * non-memory instructions is its count (4 bytes) and, at the tag's place, its
 * tag. Fields are in the host's byte order: a queue never leaves the process. */
enum {
    GCR_WQ_TAG_STRIDE,
    GCR_WQ_TAG_STRIDE_WIDE,
    GCR_WQ_TAG_LIST,
    GCR_WQ_TAG_NONMEM,
    GCR_WQ_TAG_WAITS, /* timed only: the next item's register dependencies (gcr_warpq_take_waits) */
    GCR_WQ_TAG_UNIT,  /* timed only: one non-memory instruction with a unit, and its waits */
    GCR_WQ_TAG_BANKS  /* timed only: the shared-memory bank cycles of the next item */
};

#define GCR_WQ_IMAGE_START offsetof(struct gcr_warp_insn, pc)
#define GCR_WQ_OFFSET(field) (offsetof(struct gcr_warp_insn, field) - GCR_WQ_IMAGE_START)
#define GCR_WQ_IMAGE_BYTES (GCR_WQ_OFFSET(active_mask) + 4)
#define GCR_WQ_TAG_AT (GCR_WQ_OFFSET(cache_op) + 1)
#define GCR_WQ_STRIDE_AT (GCR_WQ_OFFSET(width) + 2)
enum { GCR_WQ_STRIDED_BYTES = GCR_WQ_IMAGE_BYTES + 8, GCR_WQ_NONMEM_BYTES = GCR_WQ_TAG_AT + 1 };
_Static_assert(GCR_WQ_OFFSET(op) == 8 && GCR_WQ_OFFSET(space) == 9 &&
                   GCR_WQ_OFFSET(cache_op) == 10 && GCR_WQ_OFFSET(width) == 12 &&
                   GCR_WQ_OFFSET(active_mask) == 16,
               "a packed instruction's tag and stride use struct gcr_warp_insn's padding");

/* Makes room for extra more bytes (warpq.c); 0, or -1 when out of memory. */
int gcr_warpq_grow(struct gcr_warpq *q, size_t extra);

static inline int gcr_warpq_reserve(struct gcr_warpq *q, size_t extra)
{
    if (__builtin_expect(q->len + extra <= q->cap, 1))
        return 0;
    return gcr_warpq_grow(q, extra);
}

/* The image part of a packed instruction, then returns where its lanes go. */
static inline uint8_t *gcr_warpq_put_image(uint8_t *p, unsigned tag, int16_t stride,
                                           const struct gcr_warp_insn *in)
{
    memcpy(p, (const char *)in + GCR_WQ_IMAGE_START, GCR_WQ_IMAGE_BYTES);
    p[GCR_WQ_TAG_AT] = (uint8_t)tag;
    memcpy(p + GCR_WQ_STRIDE_AT, &stride, 2);
    return p + GCR_WQ_IMAGE_BYTES;
}

/* Appends a strided instruction, the stride in the image when it fits. */
static inline int gcr_warpq_push_strided(struct gcr_warpq *q, const struct gcr_warp_insn *in,
                                         uint64_t base, int64_t stride)
{
    bool narrow = stride == (int16_t)stride;
    size_t bytes = GCR_WQ_STRIDED_BYTES + (narrow ? 0 : 8);
    if (gcr_warpq_reserve(q, bytes) != 0)
        return -1;
    uint8_t *p = gcr_warpq_put_image(q->buf + q->len,
                                     narrow ? GCR_WQ_TAG_STRIDE : GCR_WQ_TAG_STRIDE_WIDE,
                                     (int16_t)stride, in);
    memcpy(p, &base, 8);
    if (!narrow)
        memcpy(p + 8, &stride, 8);
    q->len += bytes;
    return 0;
}

/* Appends an instruction; 0, or -1 when out of memory. */
static inline int gcr_warpq_push_insn(struct gcr_warpq *q, const struct gcr_warp_insn *in)
{
    uint32_t mask = in->active_mask;
    /* The reader already knows the shape (the common case): no address to
     * look at but the first active lane's. */
    if (__builtin_expect(in->strided && mask, 1))
        return gcr_warpq_push_strided(q, in, in->addr[__builtin_ctz(mask)], in->stride);
    uint64_t base;
    int64_t stride;
    if (gcr_insn_stride(in, &base, &stride))
        return gcr_warpq_push_strided(q, in, base, stride);
    if (gcr_warpq_reserve(q, GCR_WQ_IMAGE_BYTES + 8 * (size_t)__builtin_popcount(mask)) != 0)
        return -1;
    uint8_t *p = gcr_warpq_put_image(q->buf + q->len, GCR_WQ_TAG_LIST, 0, in);
    if (mask == UINT32_MAX) { /* every lane, as a gather's usually are: one copy */
        memcpy(p, in->addr, sizeof in->addr);
        p += sizeof in->addr;
    } else {
        for (uint32_t m = mask; m; m &= m - 1) {
            memcpy(p, &in->addr[__builtin_ctz(m)], 8);
            p += 8;
        }
    }
    q->len = (size_t)(p - q->buf);
    return 0;
}

/* Appends an instruction whose lane addresses nobody will read (an on-chip access when no
 * observer takes instructions): as a strided item from address 0, the smallest there is, its
 * stride carrying `note` (the bank cycles of a timed shared-memory access, else 0). */
static inline int gcr_warpq_push_unaddressed(struct gcr_warpq *q, const struct gcr_warp_insn *in,
                                             uint32_t note)
{
    return gcr_warpq_push_strided(q, in, 0, (int64_t)note);
}

/* Appends an item of one 32-bit word and its tag; 0, or -1 when out of memory. */
static inline int gcr_warpq_push_word(struct gcr_warpq *q, uint32_t word, unsigned tag)
{
    if (gcr_warpq_reserve(q, GCR_WQ_NONMEM_BYTES) != 0)
        return -1;
    memcpy(q->buf + q->len, &word, 4);
    q->buf[q->len + GCR_WQ_TAG_AT] = (uint8_t)tag;
    q->len += GCR_WQ_NONMEM_BYTES;
    return 0;
}

/* Appends a run of count non-memory instructions; 0, or -1 when out of memory. A run pushed
 * right after another joins it (as a gcrt file converted from an Accel-Sim trace gives each
 * non-memory instruction a record of its own, for the timing model's units). */
static inline int gcr_warpq_push_nonmem(struct gcr_warpq *q, uint32_t count)
{
    if (q->nonmem_end == q->len && q->len) {
        uint8_t *last = q->buf + q->len - GCR_WQ_NONMEM_BYTES;
        uint32_t before;
        memcpy(&before, last, 4);
        if (count <= UINT32_MAX - before) {
            before += count;
            memcpy(last, &before, 4);
            return 0;
        }
    }
    if (gcr_warpq_push_word(q, count, GCR_WQ_TAG_NONMEM) != 0)
        return -1;
    q->nonmem_end = q->len;
    return 0;
}

/* Appends the register dependencies of the item pushed next (gcreplay/record.h,
 * GCR_WAITS_KNOWN). Only the timed driver pushes them, and takes them off the queue
 * (gcr_warpq_take_waits) before it pops the item they belong to, so gcr_warpq_pop never
 * meets one. 0, or -1 when out of memory. */
static inline int gcr_warpq_push_waits(struct gcr_warpq *q, uint32_t waits)
{
    return gcr_warpq_push_word(q, waits, GCR_WQ_TAG_WAITS);
}

/* Appends one non-memory instruction whose waits give its unit (gcreplay/record.h,
 * GCR_WAITS_UNIT_MASK): one item where a waits item and a run of one would take two, as an
 * Accel-Sim trace gives every non-memory instruction its own. Timed only, like
 * gcr_warpq_push_waits. 0, or -1 when out of memory. */
static inline int gcr_warpq_push_unit(struct gcr_warpq *q, uint32_t waits)
{
    return gcr_warpq_push_word(q, waits, GCR_WQ_TAG_UNIT);
}

/* Appends the cycles the shared-memory access pushed next holds its SM's banks (timed only,
 * for an access queued with its lanes; one without them carries the cycles as its stride;
 * taken off by gcr_warpq_take_banks before the access is popped). 0, or -1 when out of
 * memory. */
static inline int gcr_warpq_push_banks(struct gcr_warpq *q, uint32_t cycles)
{
    return gcr_warpq_push_word(q, cycles, GCR_WQ_TAG_BANKS);
}

/* The bank cycles at the head of q, taken off it; UINT32_MAX when the head is no such item
 * (the timed driver then finds them in an access without lanes: its stride). */
static inline uint32_t gcr_warpq_take_banks(struct gcr_warpq *q)
{
    if (gcr_warpq_empty(q) || q->buf[q->pos + GCR_WQ_TAG_AT] != GCR_WQ_TAG_BANKS)
        return UINT32_MAX;
    uint32_t cycles;
    memcpy(&cycles, q->buf + q->pos, 4);
    q->pos += GCR_WQ_NONMEM_BYTES;
    return cycles;
}

/* The register dependencies at the head of q, taken off it; 0 when the head is no such item.
 * The waits of a GCR_WQ_TAG_UNIT item are taken and the item left as a run of one. */
static inline uint32_t gcr_warpq_take_waits(struct gcr_warpq *q)
{
    if (gcr_warpq_empty(q))
        return 0;
    uint8_t *p = q->buf + q->pos;
    if (p[GCR_WQ_TAG_AT] != GCR_WQ_TAG_WAITS && p[GCR_WQ_TAG_AT] != GCR_WQ_TAG_UNIT)
        return 0;
    uint32_t waits;
    memcpy(&waits, p, 4);
    if (p[GCR_WQ_TAG_AT] == GCR_WQ_TAG_UNIT) {
        const uint32_t one = 1;
        memcpy(p, &one, 4);
        p[GCR_WQ_TAG_AT] = GCR_WQ_TAG_NONMEM;
    } else {
        q->pos += GCR_WQ_NONMEM_BYTES;
    }
    return waits;
}

static inline enum gcr_warpq_item gcr_warpq_pop(struct gcr_warpq *q, struct gcr_warp_insn *in,
                                                uint32_t *count, struct gcr_lane_shape *shape)
{
    const uint8_t *p = q->buf + q->pos;
    unsigned tag = p[GCR_WQ_TAG_AT];
    if (tag == GCR_WQ_TAG_NONMEM) {
        memcpy(count, p, 4);
        q->pos += GCR_WQ_NONMEM_BYTES;
        return GCR_WQ_NONMEM;
    }
    /* The tag and stride land in the instruction's padding, meaning nothing there. */
    memcpy((char *)in + GCR_WQ_IMAGE_START, p, GCR_WQ_IMAGE_BYTES);
    shape->strided = tag != GCR_WQ_TAG_LIST;
    if (tag == GCR_WQ_TAG_STRIDE) {
        int16_t stride;
        memcpy(&stride, p + GCR_WQ_STRIDE_AT, 2);
        shape->stride = stride;
        memcpy(&shape->base, p + GCR_WQ_IMAGE_BYTES, 8);
        p += GCR_WQ_STRIDED_BYTES;
    } else if (tag == GCR_WQ_TAG_STRIDE_WIDE) {
        memcpy(&shape->base, p + GCR_WQ_IMAGE_BYTES, 8);
        memcpy(&shape->stride, p + GCR_WQ_STRIDED_BYTES, 8);
        p += GCR_WQ_STRIDED_BYTES + 8;
    } else {
        p += GCR_WQ_IMAGE_BYTES;
        if (in->active_mask == UINT32_MAX) {
            memcpy(in->addr, p, sizeof in->addr);
            p += sizeof in->addr;
        } else {
            for (uint32_t m = in->active_mask; m; m &= m - 1, p += 8)
                memcpy(&in->addr[__builtin_ctz(m)], p, 8);
        }
    }
    q->pos = (size_t)(p - q->buf);
    return GCR_WQ_INSN;
}

static inline bool gcr_warpq_item_addr(const uint8_t *p, uint64_t *addr)
{
    /* The tag first: a non-memory item ends there, and may end the buffer. */
    if (p[GCR_WQ_TAG_AT] == GCR_WQ_TAG_NONMEM || p[GCR_WQ_OFFSET(space)] > GCR_SPACE_LOCAL)
        return false;
    uint32_t mask;
    memcpy(&mask, p + GCR_WQ_OFFSET(active_mask), 4);
    if (!mask)
        return false;
    memcpy(addr, p + GCR_WQ_IMAGE_BYTES, 8); /* the strided forms' base, or the list's first */
    return true;
}

#endif
