/* The L2 request coalescer: reads of the same sector from different SMs that
 * reach the L2 close together become one L2 lookup (Hopper's "LRC", which
 * Nsight Compute's lrc__* metrics count). "Close together" is a window of
 * read-sector requests, the replay's measure of time without the timing
 * backend: a read merges with an earlier one of the same sector, from another
 * SM and the same L2 partition, at most `window` requests before it. */
#ifndef GCREPLAY_L2_REQUEST_COALESCER_H
#define GCREPLAY_L2_REQUEST_COALESCER_H

#include <stdbool.h>
#include <stdint.h>

struct gcr_request_coalescer {
    /* Direct-mapped by sector address, 4 x window entries (a power of two): a
     * collision forgets the older request, so merges are never invented, at
     * worst a few missed. */
    struct gcr_rc_entry {
        uint64_t sector_plus_1; /* 0: empty */
        uint64_t seq;
        uint32_t sm, partition;
    } *table;
    uint64_t mask, seq, window;
};

int gcr_request_coalescer_init(struct gcr_request_coalescer *rc, uint32_t window);
void gcr_request_coalescer_fini(struct gcr_request_coalescer *rc);
/* A read of sector_addr (a sector's first byte) from sm to partition: true if
 * it merges with a request in flight, which then answers it. */
bool gcr_request_coalescer_read(struct gcr_request_coalescer *rc, uint64_t sector_addr,
                                uint32_t sm, uint32_t partition);
/* A write of the sector: a later read cannot take the data in flight. */
void gcr_request_coalescer_write(struct gcr_request_coalescer *rc, uint64_t sector_addr);
/* A kernel boundary: nothing stays in flight across it. */
void gcr_request_coalescer_drain(struct gcr_request_coalescer *rc);

#endif
