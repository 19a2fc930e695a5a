/* The coalescer: one warp access -> line requests with sector masks. */
#ifndef GCREPLAY_REPLAY_COALESCE_H
#define GCREPLAY_REPLAY_COALESCE_H

#include <stdint.h>

#include "core/bits.h"
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
 * Returns GCR_COALESCE_NOT_CONTIGUOUS when the shape does not qualify.
 * Call gcr_coalesce_strided (below), which handles one-line ranges inline. */
#define GCR_COALESCE_NOT_CONTIGUOUS UINT32_MAX
uint32_t gcr_coalesce_strided_lines(uint32_t active_mask, uint64_t base, int64_t stride,
                                    uint16_t width, uint32_t line_bytes, uint32_t sector_bytes,
                                    struct gcr_line_req *out);

/* Bits first..last (inclusive, last - first < 32) of a sector mask for bytes
 * lo..hi of a line. */
static inline uint32_t gcr_coalesce_sector_range(uint32_t lo, uint32_t hi, unsigned sector_shift)
{
    uint32_t s0 = lo >> sector_shift, s1 = hi >> sector_shift;
    return (s1 - s0 == 31 ? ~0u : ((1u << (s1 - s0 + 1)) - 1)) << s0;
}

/* gcr_coalesce_strided_lines with its commonest case inline (it is asked for
 * nearly every global access): a non-negative stride whose lanes' bytes all lie
 * in one line, i.e. one fully coalesced request. */
static inline uint32_t gcr_coalesce_strided(uint32_t active_mask, uint64_t base, int64_t stride,
                                            uint16_t width, uint32_t line_bytes,
                                            uint32_t sector_bytes, struct gcr_line_req *out)
{
    if (active_mask && stride >= 0 && (uint64_t)stride <= width) {
        uint64_t span = (uint64_t)(gcr_bits_popcount32(active_mask) - 1);
        /* Computed modulo 2^64: a range that wraps ends below its start (span *
         * stride < 2^21 and width < 2^16 are far from 2^64), and takes the
         * general path. */
        uint64_t hi = base + span * (uint64_t)stride + width - 1;
        const uint64_t off_mask = line_bytes - 1;
        if (hi >= base && ((base ^ hi) & ~off_mask) == 0) {
            uint32_t first = (uint32_t)(base & off_mask), last = (uint32_t)(hi & off_mask);
            out[0].line_addr = base & ~off_mask;
            out[0].bytes = last - first + 1;
            out[0].sector_mask =
                gcr_coalesce_sector_range(first, last, gcr_bits_log2(sector_bytes));
            return 1;
        }
    }
    return gcr_coalesce_strided_lines(active_mask, base, stride, width, line_bytes, sector_bytes,
                                      out);
}

#endif
