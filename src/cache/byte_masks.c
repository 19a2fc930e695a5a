/* Partly written sectors: the written bytes of each sector that a write
 * covered only in part (geometry.byte_masks; src/cache/README.md, "Partly
 * written sectors"). A table beside the line records, one slot per line, so
 * that the records keep their size and the caches that do not track bytes
 * pay nothing. */
#include <stdlib.h>
#include <string.h>

#include "cache/cache_internal.h"
#include "core/table_memory.h"

int gcr_byte_masks_init(struct gcr_byte_masks *m, size_t lines, uint32_t line_bytes,
                        uint32_t sector_bytes)
{
    m->words = line_bytes >= 64 ? line_bytes / 64 : 1;
    m->sector_bytes = sector_bytes;
    m->sectors = line_bytes / sector_bytes;
    m->lines = lines;
    m->bytes = gcr_small_table_alloc(lines * m->words * sizeof *m->bytes);
    if (!m->bytes)
        return -1;
    memset(m->bytes, 0, lines * m->words * sizeof *m->bytes);
    return 0;
}

void gcr_byte_masks_free(struct gcr_byte_masks *m)
{
    if (m->bytes)
        gcr_small_table_free(m->bytes, m->lines * m->words * sizeof *m->bytes);
    m->bytes = NULL;
}

void gcr_byte_masks_reset(struct gcr_byte_masks *m)
{
    memset(m->bytes, 0, m->lines * m->words * sizeof *m->bytes);
}

/* The bits of sector s in a line's byte mask: word and mask within it. A
 * sector of 64 bytes or more spans whole words (handled by the callers' loops
 * over words_of). */
static inline uint64_t sector_bits(const struct gcr_byte_masks *m, uint32_t s, uint32_t *word)
{
    uint32_t first = s * m->sector_bytes;
    *word = first / 64;
    if (m->sector_bytes >= 64)
        return ~UINT64_C(0);
    return ((UINT64_C(1) << m->sector_bytes) - 1) << (first % 64);
}

/* Words of sector s: [first, first + count). */
static inline uint32_t words_of(const struct gcr_byte_masks *m, uint32_t s, uint32_t *first)
{
    *first = s * m->sector_bytes / 64;
    return m->sector_bytes >= 64 ? m->sector_bytes / 64 : 1;
}

void gcr_byte_masks_clear(struct gcr_byte_masks *m, uint32_t idx, uint32_t sector_mask)
{
    uint64_t *line = &m->bytes[(size_t)idx * m->words];
    for (uint32_t rest = sector_mask; rest; rest &= rest - 1) {
        uint32_t s = (uint32_t)__builtin_ctz(rest), w, first;
        uint64_t bits = sector_bits(m, s, &w);
        for (uint32_t k = 0, n = words_of(m, s, &first); k < n; k++)
            line[first + k] &= ~bits;
    }
}

uint32_t gcr_byte_masks_whole(const struct gcr_byte_masks *m, const uint64_t *bytes,
                              uint32_t sector_mask)
{
    uint32_t whole = 0;
    for (uint32_t rest = sector_mask; rest; rest &= rest - 1) {
        uint32_t s = (uint32_t)__builtin_ctz(rest), w, first;
        uint64_t bits = sector_bits(m, s, &w);
        bool all = true;
        for (uint32_t k = 0, n = words_of(m, s, &first); k < n; k++)
            all &= (bytes[first + k] & bits) == bits;
        whole |= (uint32_t)all << s;
    }
    return whole;
}

uint32_t gcr_byte_masks_add(struct gcr_byte_masks *m, uint32_t idx, uint32_t sector_mask,
                            const uint64_t *bytes)
{
    uint64_t *line = &m->bytes[(size_t)idx * m->words];
    for (uint32_t rest = sector_mask; rest; rest &= rest - 1) {
        uint32_t s = (uint32_t)__builtin_ctz(rest), w, first;
        uint64_t bits = sector_bits(m, s, &w);
        for (uint32_t k = 0, n = words_of(m, s, &first); k < n; k++)
            line[first + k] |= bytes[first + k] & bits;
    }
    uint32_t complete = gcr_byte_masks_whole(m, line, sector_mask);
    gcr_byte_masks_clear(m, idx, complete);
    return complete;
}

uint32_t gcr_byte_masks_sectors(const struct gcr_byte_masks *m, uint32_t idx)
{
    const uint64_t *line = &m->bytes[(size_t)idx * m->words];
    uint32_t any = 0;
    for (uint32_t s = 0; s < m->sectors; s++) {
        uint32_t w, first;
        uint64_t bits = sector_bits(m, s, &w);
        uint64_t seen = 0;
        for (uint32_t k = 0, n = words_of(m, s, &first); k < n; k++)
            seen |= line[first + k] & bits;
        any |= (uint32_t)(seen != 0) << s;
    }
    return any;
}
