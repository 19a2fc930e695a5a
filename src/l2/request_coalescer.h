/* The L2 request coalescer: reads of the same sector from different SMs that
 * reach the L2 close together become one L2 lookup (Hopper's "LRC", which
 * Nsight Compute's lrc__* metrics count). "Close together" is a window of
 * read-sector requests, the replay's measure of time without the timing
 * backend: a read merges with an earlier one of the same sector, from another
 * SM and the same L2 partition, at most `window` requests before it. With the
 * timing backend it is time itself: a read merges with such a read whose data
 * is still on its way when it reaches the coalescer (gcr_request_coalescer_
 * read_timed), as a miss merges with a miss in flight. */
#ifndef GCREPLAY_L2_REQUEST_COALESCER_H
#define GCREPLAY_L2_REQUEST_COALESCER_H

#include <stdbool.h>
#include <stdint.h>

struct gcr_request_coalescer {
    /* Direct-mapped by sector address, a power of two of entries, at least
     * 1,024 and 4 x window: a collision forgets the older request, so merges
     * are never invented, at worst a few missed. */
    struct gcr_rc_entry {
        uint64_t sector_plus_1; /* 0: empty */
        uint64_t seq;
        double arrive, ready; /* timed: the cycles it reached the coalescer and its
                                 data is back there */
        uint32_t sm, partition;
    } *table;
    uint64_t mask, seq, window;
    double window_cycles; /* timed: merges span at most this many cycles (0: while in flight) */
};

int gcr_request_coalescer_init(struct gcr_request_coalescer *rc, uint32_t window);
void gcr_request_coalescer_fini(struct gcr_request_coalescer *rc);
/* A read of sector_addr (a sector's first byte) from sm to partition: true if
 * it merges with a request in flight, which then answers it. */
bool gcr_request_coalescer_read(struct gcr_request_coalescer *rc, uint64_t sector_addr,
                                uint32_t sm, uint32_t partition);
/* The same, timed: a read of sector_addr from sm to partition reaching the
 * coalescer at cycle `arrive` merges, and true is returned with *ready the
 * cycle its data is back, when a read of the sector from another SM and the
 * same partition was sent and its data is not back by then. A read that does
 * not merge goes on to its slice, and the caller tells when its data is back
 * (gcr_request_coalescer_sent). */
bool gcr_request_coalescer_read_timed(const struct gcr_request_coalescer *rc,
                                      uint64_t sector_addr, uint32_t sm, uint32_t partition,
                                      double arrive, double *ready);
void gcr_request_coalescer_sent(struct gcr_request_coalescer *rc, uint64_t sector_addr,
                                uint32_t sm, uint32_t partition, double arrive, double ready);
/* A write of the sector: a later read cannot take the data in flight. */
void gcr_request_coalescer_write(struct gcr_request_coalescer *rc, uint64_t sector_addr);
/* A kernel boundary: nothing stays in flight across it. */
void gcr_request_coalescer_drain(struct gcr_request_coalescer *rc);

#endif
