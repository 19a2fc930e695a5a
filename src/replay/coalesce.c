#include "replay/coalesce.h"

#include <stdbool.h>
#include <string.h>

#include "core/bits.h"

/* Byte mask of one line (up to 256 bytes): counts the distinct bytes touched. */
struct line_bytes {
    uint64_t w[4];
};

static inline uint64_t bit_range(uint32_t a, uint32_t b) /* bits a..b of a word, a <= b < 64 */
{
    return (b - a == 63) ? ~0ull : (((1ull << (b - a + 1)) - 1) << a);
}

static inline void mark_bytes(struct line_bytes *m, uint32_t lo, uint32_t hi) /* inclusive */
{
    uint32_t wl = lo >> 6, wh = hi >> 6;
    if (wl == wh) { /* the usual case: a lane of at most 64 bytes inside one word */
        m->w[wl] |= bit_range(lo & 63, hi & 63);
        return;
    }
    m->w[wl] |= bit_range(lo & 63, 63);
    for (uint32_t w = wl + 1; w < wh; w++)
        m->w[w] = ~0ull;
    m->w[wh] |= bit_range(0, hi & 63);
}

/* Whether bytes lo..hi (inclusive) of a line are already marked. */
static bool overlaps(const struct line_bytes *m, uint32_t lo, uint32_t hi)
{
    struct line_bytes want = {{0}};
    mark_bytes(&want, lo, hi);
    return (m->w[0] & want.w[0]) | (m->w[1] & want.w[1]) | (m->w[2] & want.w[2]) |
           (m->w[3] & want.w[3]);
}

/* The sectors of a line that hold any byte marked in b: a request's sector
 * mask, worked out once per request rather than once per lane. */
static uint32_t sectors_of(const struct line_bytes *b, uint32_t line_bytes, unsigned sector_shift)
{
    const uint32_t sectors = line_bytes >> sector_shift, sector_bytes = 1u << sector_shift;
    uint32_t mask = 0;
    if (sector_bytes >= 64) { /* whole words per sector */
        const uint32_t words = sector_bytes / 64;
        for (uint32_t s = 0; s < sectors; s++) {
            uint64_t any = 0;
            for (uint32_t w = s * words; w < (s + 1) * words; w++)
                any |= b->w[w];
            mask |= (uint32_t)(any != 0) << s;
        }
        return mask;
    }
    if (sector_bytes == 32) { /* GPGPU-Sim's sectors: two per word */
        for (uint32_t w = 0; w < (line_bytes + 63) / 64; w++)
            mask |= ((uint32_t)((uint32_t)b->w[w] != 0) | (uint32_t)(b->w[w] >> 32 != 0) << 1)
                    << 2 * w;
        return mask; /* a 32-byte line marks no byte of its word's upper half */
    }
    const uint64_t field = (UINT64_C(1) << sector_bytes) - 1;
    for (uint32_t s = 0; s < sectors; s++) {
        uint32_t bit = s << sector_shift;
        mask |= (uint32_t)(((b->w[bit >> 6] >> (bit & 63)) & field) != 0) << s;
    }
    return mask;
}

/* The request bytes lo..hi of `line` join: the most recent one (*last) when
 * it is that line's, the usual case; else the first of that line (with
 * split_conflicts, the first none of whose bytes lo..hi are marked); else a
 * new one, appended with no byte marked. *last becomes the request taken. */
static inline uint32_t request_for(struct gcr_line_req *out, struct line_bytes *masks,
                                   uint32_t *n, uint32_t *last, uint64_t line, uint32_t lo,
                                   uint32_t hi, bool split_conflicts)
{
    if (*n && out[*last].line_addr == line && !split_conflicts)
        return *last;
    uint32_t i;
    for (i = 0; i < *n && (out[i].line_addr != line ||
                           (split_conflicts && overlaps(&masks[i], lo, hi)));
         i++)
        ;
    if (i == *n) {
        out[i].line_addr = line;
        memset(&masks[i], 0, sizeof masks[i]);
        (*n)++;
    }
    *last = i;
    return i;
}

/* split_conflicts: a lane whose bytes overlap those of every request already
 * made for its line starts another request for that line (atomics). */
static uint32_t coalesce(const struct gcr_warp_insn *insn, uint32_t line_bytes,
                         uint32_t sector_bytes, struct gcr_line_req *out, bool split_conflicts)
{
    struct line_bytes masks[GCR_COALESCE_MAX];
    uint32_t n = 0;
    uint32_t last = 0; /* most recent entry: consecutive lanes usually share a line */
    const uint64_t off_mask = line_bytes - 1;
    const uint32_t width = insn->width;
    /* The usual lane of a gather lies inside one line and one 64-bit word of
     * its line's byte mask, where its bytes are one shifted run of bits. */
    const uint32_t word = line_bytes < 64 ? line_bytes : 64;
    const uint64_t run = width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1;

    for (uint32_t m = insn->active_mask; m; m &= m - 1) {
        uint64_t a = insn->addr[gcr_bits_ctz32(m)];
        const uint32_t first = (uint32_t)(a & off_mask);
        /* Atomics take the general path below: they split conflicts. */
        if (!split_conflicts && (first & (word - 1)) + width <= word) {
            uint32_t i = request_for(out, masks, &n, &last, a & ~off_mask, 0, 0, false);
            masks[i].w[first >> 6] |= run << (first & 63);
            continue;
        }
        uint64_t end = a + width - 1;
        if (end < a) /* the lane wraps past 2^64: clamp to the last byte */
            end = UINT64_MAX;
        for (uint64_t line = a & ~off_mask;; line += line_bytes) {
            uint32_t lo = line < a ? (uint32_t)(a - line) : 0;
            uint32_t hi = (end - line > off_mask) ? (uint32_t)off_mask : (uint32_t)(end - line);
            uint32_t i = request_for(out, masks, &n, &last, line, lo, hi, split_conflicts);
            mark_bytes(&masks[i], lo, hi);
            if (end - line <= off_mask)
                break;
        }
    }

    const unsigned sector_shift = gcr_bits_log2(sector_bytes);
    for (uint32_t i = 0; i < n; i++) {
        const struct line_bytes *b = &masks[i];
        out[i].bytes = gcr_bits_popcount64(b->w[0]) + gcr_bits_popcount64(b->w[1]) +
                       gcr_bits_popcount64(b->w[2]) + gcr_bits_popcount64(b->w[3]);
        out[i].sector_mask = sectors_of(b, line_bytes, sector_shift);
    }
    /* Ascending line order (stable: requests of one line keep their order);
     * n is small and usually already sorted. */
    for (uint32_t i = 1; i < n; i++) {
        struct gcr_line_req key = out[i];
        uint32_t j = i;
        while (j > 0 && out[j - 1].line_addr > key.line_addr) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = key;
    }
    return n;
}

uint32_t gcr_coalesce(const struct gcr_warp_insn *insn, uint32_t line_bytes,
                      uint32_t sector_bytes, struct gcr_line_req *out)
{
    return coalesce(insn, line_bytes, sector_bytes, out, false);
}

uint32_t gcr_coalesce_atomic(const struct gcr_warp_insn *insn, uint32_t line_bytes,
                             uint32_t sector_bytes, struct gcr_line_req *out)
{
    return coalesce(insn, line_bytes, sector_bytes, out, true);
}

uint32_t gcr_coalesce_strided_lines(uint32_t active_mask, uint64_t base, int64_t stride,
                                    uint16_t width, uint32_t line_bytes, uint32_t sector_bytes,
                                    struct gcr_line_req *out)
{
    if (!active_mask)
        return 0;
    uint64_t span = (uint64_t)(gcr_bits_popcount32(active_mask) - 1);
    uint64_t mag = stride < 0 ? (uint64_t)0 - (uint64_t)stride : (uint64_t)stride;
    /* span * mag cannot overflow: span < 32 and mag <= width < 2^16. */
    if (mag > width)
        return GCR_COALESCE_NOT_CONTIGUOUS;
    uint64_t lo = stride < 0 ? base - span * mag : base;
    uint64_t hi_start = stride < 0 ? base : base + span * mag;
    uint64_t hi = hi_start + width - 1;
    /* Ranges that wrap around the address space take the general path. */
    if ((stride < 0 && lo > base) || (stride > 0 && hi_start < base) || hi < hi_start)
        return GCR_COALESCE_NOT_CONTIGUOUS;
    const uint64_t off_mask = line_bytes - 1;
    const unsigned sector_shift = gcr_bits_log2(sector_bytes);
    if (((lo ^ hi) & ~off_mask) == 0) { /* the usual coalesced access: inside one line */
        uint32_t first = (uint32_t)(lo & off_mask), last = (uint32_t)(hi & off_mask);
        out[0].line_addr = lo & ~off_mask;
        out[0].bytes = last - first + 1;
        out[0].sector_mask = gcr_coalesce_sector_range(first, last, sector_shift);
        return 1;
    }
    /* Several lines (or sectors, in sector granularity: a 128-byte access is
     * four units): every line between the first and the last is whole, so
     * they are written alike and only the two ends trimmed. */
    const uint64_t last_line = hi & ~off_mask;
    /* Units of one sector (sector granularity) have the mask 1 throughout. */
    const bool unit_is_sector = line_bytes == sector_bytes;
    const uint32_t whole =
        unit_is_sector ? 1 : gcr_coalesce_sector_range(0, (uint32_t)off_mask, sector_shift);
    uint32_t n = 0;
    for (uint64_t line = lo & ~off_mask;; line += line_bytes) {
        out[n].line_addr = line;
        out[n].bytes = line_bytes;
        out[n].sector_mask = whole;
        n++;
        if (line == last_line)
            break;
    }
    uint32_t first = (uint32_t)(lo & off_mask), last = (uint32_t)(hi & off_mask);
    out[0].bytes -= first;
    out[n - 1].bytes = last + 1;
    if (!unit_is_sector) {
        out[0].sector_mask = gcr_coalesce_sector_range(first, (uint32_t)off_mask, sector_shift);
        out[n - 1].sector_mask = gcr_coalesce_sector_range(0, last, sector_shift);
    }
    return n;
}
