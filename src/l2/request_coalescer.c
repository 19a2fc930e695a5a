#include "l2/request_coalescer.h"

#include <stdlib.h>

static inline uint64_t slot(const struct gcr_request_coalescer *rc, uint64_t sector_addr)
{
    uint64_t x = sector_addr * UINT64_C(0x9e3779b97f4a7c15);
    return (x >> 32) & rc->mask;
}

/* Fewest entries: under the timing backend the reads in flight fill the
 * table, not the window of requests, and 132 SMs keep hundreds in flight. */
#define MIN_ENTRIES 1024

int gcr_request_coalescer_init(struct gcr_request_coalescer *rc, uint32_t window)
{
    uint64_t n = MIN_ENTRIES;
    while (n < 4 * (uint64_t)window)
        n <<= 1;
    *rc = (struct gcr_request_coalescer){.mask = n - 1, .window = window};
    rc->table = calloc(n, sizeof *rc->table);
    return rc->table ? 0 : -1;
}

void gcr_request_coalescer_fini(struct gcr_request_coalescer *rc)
{
    free(rc->table);
    rc->table = NULL;
}

bool gcr_request_coalescer_read(struct gcr_request_coalescer *rc, uint64_t sector_addr,
                                uint32_t sm, uint32_t partition)
{
    struct gcr_rc_entry *e = &rc->table[slot(rc, sector_addr)];
    uint64_t now = rc->seq++;
    if (e->sector_plus_1 == sector_addr + 1 && now - e->seq <= rc->window && e->sm != sm &&
        e->partition == partition)
        return true; /* the window runs from the request that went to the L2 */
    *e = (struct gcr_rc_entry){.sector_plus_1 = sector_addr + 1, .seq = now, .sm = sm,
                               .partition = partition};
    return false;
}

bool gcr_request_coalescer_read_timed(const struct gcr_request_coalescer *rc,
                                      uint64_t sector_addr, uint32_t sm, uint32_t partition,
                                      double arrive, double *ready)
{
    const struct gcr_rc_entry *e = &rc->table[slot(rc, sector_addr)];
    if (e->sector_plus_1 != sector_addr + 1 || e->sm == sm || e->partition != partition ||
        e->ready <= arrive || (rc->window_cycles > 0 && arrive - e->arrive > rc->window_cycles))
        return false;
    *ready = e->ready;
    return true;
}

void gcr_request_coalescer_sent(struct gcr_request_coalescer *rc, uint64_t sector_addr,
                                uint32_t sm, uint32_t partition, double arrive, double ready)
{
    rc->table[slot(rc, sector_addr)] =
        (struct gcr_rc_entry){.sector_plus_1 = sector_addr + 1, .arrive = arrive, .ready = ready,
                              .sm = sm, .partition = partition};
}

void gcr_request_coalescer_write(struct gcr_request_coalescer *rc, uint64_t sector_addr)
{
    struct gcr_rc_entry *e = &rc->table[slot(rc, sector_addr)];
    if (e->sector_plus_1 == sector_addr + 1)
        e->sector_plus_1 = 0;
}

void gcr_request_coalescer_drain(struct gcr_request_coalescer *rc)
{
    for (uint64_t i = 0; i <= rc->mask; i++)
        rc->table[i].sector_plus_1 = 0;
}
