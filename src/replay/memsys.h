/* Everything below the L1s: L2 slices selected by address, and DRAM counters. */
#ifndef GCREPLAY_REPLAY_MEMSYS_H
#define GCREPLAY_REPLAY_MEMSYS_H

#include "gcreplay/cache.h"
#include "gcreplay/config.h"
#include "gcreplay/record.h"
#include "l2/request_coalescer.h"
#include "replay/bus.h"

/* Bytes crossing each boundary, cumulative. */
struct gcr_traffic {
    uint64_t l2_to_l1_bytes;       /* sectors filled into L1s */
    uint64_t l1_to_l2_write_bytes; /* store data written through/around L1 */
    uint64_t l1_writeback_bytes;   /* dirty L1 sectors written back */
    uint64_t l2_to_sm_bypass_bytes;/* loads that bypass L1 (.cg), sectors returned */
    uint64_t dram_read_bytes;      /* sectors filled into L2 from DRAM */
    uint64_t dram_write_bytes;     /* L2 write-backs and write-arounds */
};

/* Figures of the L2 behaviours that GPGPU-Sim lacks (config l2.counting,
 * l2.request_coalescer, l2.partitions), cumulative; zero when they are off. */
struct gcr_l2_extra {
    uint64_t merged_sectors;   /* read sectors the request coalescer answered */
    uint64_t atomic_sectors;   /* l2.counting "nsight": atomics, counted apart from reads */
    uint64_t atomic_hits;
    uint64_t far_lookups;      /* sectors missed in the near partition, looked up at home */
    uint64_t far_hits;         /* ... and found there */
    uint64_t fabric_bytes;     /* data crossing between partitions */
    uint64_t taken_sectors;    /* partly written sectors taken from another partition's copy */
    uint64_t promoted_sectors; /* l2.fetch_bytes: DRAM sectors read beyond the requests' */
};

struct gcr_chips;
struct gcr_timing;

struct gcr_memsys {
    const struct gcr_config *cfg;
    struct gcr_chips *chips; /* several chips (multichip/chips.c), else NULL */
    struct gcr_cache **slices;
    uint32_t nslices;
    struct gcr_bus *bus;
    /* The timing backend (src/timing/timing.h) in timing mode, else NULL: every
     * message sent (gcr_memsys_send) and every L1 lookup (l1org.h) is timed. */
    struct gcr_timing *timing;
    struct gcr_traffic traffic;
    struct gcr_l2_extra extra;
    /* Any of the behaviours above is on: accesses take the slower path that
     * models them (slice_access_silicon). */
    bool silicon;
    struct gcr_request_coalescer coalescer; /* table NULL: none */
    /* With l2.byte_masks: the bytes the current store writes in its line, worked out for
     * its first sector request and kept for the others (valid while written_valid). */
    bool written_valid;
    uint64_t written[4];
    /* Memory ports of the L1 organisation (its L1 instances; num_sms until the
     * organisation is created). With several chips, port p sits on chip
     * p * chips / num_ports, the way SMs are split: it places write-backs,
     * which have no requesting SM. */
    uint32_t num_ports;
};

int gcr_memsys_init(struct gcr_memsys *m, const struct gcr_config *cfg, struct gcr_bus *bus,
                    struct gcr_err *err);
void gcr_memsys_fini(struct gcr_memsys *m);

/* `sm` is the requesting SM (what analyses see); `port` the endpoint the
 * request leaves from on the L2 network (GCR_NET_L2 transfers): the SM itself
 * for private L1s and L1 bypasses, the node for DC-L1. */

/* An L1 (or an L1-bypassing load) reads sectors of a line. */
void gcr_memsys_read(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line,
                     uint32_t sectors, bool bypass_l1, const struct gcr_warp_insn *insn);
/* Store data leaving an SM or L1 (write-through, write-evict, write-around). */
void gcr_memsys_write(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line,
                      uint32_t sectors, uint32_t bytes, const struct gcr_warp_insn *insn);
/* A dirty L1 line being written back from port. */
void gcr_memsys_writeback(struct gcr_memsys *m, uint32_t port, uint64_t line, uint32_t dirty);
/* An atomic or reduction executed at L2 (read-modify-write). */
void gcr_memsys_atomic(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line,
                       uint32_t sectors, const struct gcr_warp_insn *insn);
/* Kernel boundaries (multi-chip: SM-side LLC flush, per-kernel counters). */
void gcr_memsys_kernel_begin(struct gcr_memsys *m);
void gcr_memsys_kernel_end(struct gcr_memsys *m);

/* Whether messages sent matter to anyone: the timing backend or an observer
 * of GCR_EV_TRANSFER. Senders test it before working out a message. */
static inline bool gcr_memsys_sends_messages(const struct gcr_memsys *m)
{
    return m->timing || gcr_bus_wants(m->bus, GCR_EV_TRANSFER);
}
/* One message on network net (gcreplay/analysis.h): timed by the timing
 * backend, if any, then published to observers as GCR_EV_TRANSFER. sm and
 * insn name the requester (for observers). Messages of one request are sent
 * in the order they travel (src/timing/timing.h). */
void gcr_memsys_send(struct gcr_memsys *m, enum gcr_net net, uint32_t from, uint32_t to,
                     uint32_t bytes, bool downstream, uint32_t sm,
                     const struct gcr_warp_insn *insn, uint64_t line);

/* gcr_cache_prefetch for the L2 slice of line (single chip only: with
 * several chips the route depends on the requester; h->cache is then NULL). */
void gcr_memsys_prefetch(const struct gcr_memsys *m, uint64_t line, struct gcr_cache_hint *h);

/* Host-to-device copy written into L2 before kernels (config l2.prefill_memcpy). */
void gcr_memsys_prefill(struct gcr_memsys *m, uint64_t dst, uint64_t bytes);

#endif
