/* The coalescer: one warp access -> line requests with sector masks. */
#ifndef GCREPLAY_REPLAY_COALESCE_H
#define GCREPLAY_REPLAY_COALESCE_H

#include <stdint.h>

#include "gcreplay/record.h"

/* The smallest coalescing unit: lines are at least 16 B, and in sector
 * granularity the unit is a sector, at least 8 B (config check). */
#define GCR_COALESCE_MIN_UNIT 8
/* A lane of up to GCR_MAX_WIDTH bytes spans at most 256/8 + 1 units. */
#define GCR_COALESCE_MAX (GCR_WARP_SIZE * (GCR_MAX_WIDTH / GCR_COALESCE_MIN_UNIT + 1))

struct gcr_line_req {
    uint64_t line_addr;
    uint32_t sector_mask;
    uint32_t bytes; /* distinct bytes touched in the line */
};

/* Fills out[] (capacity GCR_COALESCE_MAX) with the distinct lines the active
 * lanes touch, in ascending line address order (as GPGPU-Sim's coalescer
 * emits them), and returns how many. A lane whose bytes cross a sector or line
 * boundary touches both. unit sizes: line_bytes a power of two 8..256; sector_bytes:
 * power of two dividing it. */
uint32_t gcr_coalesce(const struct gcr_warp_insn *insn, uint32_t line_bytes,
                      uint32_t sector_bytes, struct gcr_line_req *out);

/* Atomics and reductions: as gcr_coalesce, except that lanes whose bytes
 * overlap (the same word updated by several lanes) go in separate requests,
 * since each update is its own read-modify-write at L2. A lane joins the first
 * request of its line it does not overlap (GPGPU-Sim's
 * memory_coalescing_arch_atomic). */
uint32_t gcr_coalesce_atomic(const struct gcr_warp_insn *insn, uint32_t line_bytes,
                             uint32_t sector_bytes, struct gcr_line_req *out);

/* The fast path for strided accesses whose lanes cover one contiguous byte
 * range (|stride| <= width, the coalesced case): the same result as
 * gcr_coalesce for those lane addresses, computed from the range alone.
 * Returns GCR_COALESCE_NOT_CONTIGUOUS when the shape does not qualify. */
#define GCR_COALESCE_NOT_CONTIGUOUS UINT32_MAX
uint32_t gcr_coalesce_strided(uint32_t active_mask, uint64_t base, int64_t stride,
                              uint16_t width, uint32_t line_bytes, uint32_t sector_bytes,
                              struct gcr_line_req *out);

#endif
