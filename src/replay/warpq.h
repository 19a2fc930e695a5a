/* Per-warp instruction queues: a CTA's records are packed into one compact
 * byte queue per warp when the CTA is loaded and unpacked when issued.
 * Strided accesses (the common case) take 32 bytes instead of 300. */
#ifndef GCREPLAY_REPLAY_WARPQ_H
#define GCREPLAY_REPLAY_WARPQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcreplay/record.h"

struct gcr_warpq {
    uint8_t *buf;
    size_t len, cap, pos;
};

enum gcr_warpq_item { GCR_WQ_INSN, GCR_WQ_NONMEM };

int gcr_warpq_push_insn(struct gcr_warpq *q, const struct gcr_warp_insn *in);
int gcr_warpq_push_nonmem(struct gcr_warpq *q, uint32_t count);

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
enum gcr_warpq_item gcr_warpq_pop(struct gcr_warpq *q, struct gcr_warp_insn *in,
                                  uint32_t *count, struct gcr_lane_shape *shape);

/* Fills in->addr[] from a strided shape (no-op for explicit lists). */
void gcr_lane_shape_expand(const struct gcr_lane_shape *shape, struct gcr_warp_insn *in);

static inline void gcr_warpq_reset(struct gcr_warpq *q) { q->len = q->pos = 0; }
void gcr_warpq_free(struct gcr_warpq *q);

#endif
