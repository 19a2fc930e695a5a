/* Figures shared by the fine-grained L1 organisations (tsc, dsc): the
 * Tag-Split Cache paper's metrics, and reference caches replayed beside the
 * organisation so its figures can be normalised to the 128-B baseline of the
 * same run (src/orgs/common/granularity.md defines every figure). */
#ifndef GCREPLAY_ORGS_GRANULARITY_H
#define GCREPLAY_ORGS_GRANULARITY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/cache.h"
#include "gcreplay/config.h"
#include "gcreplay/error.h"
#include "core/bits.h"

/* Interconnect packets are 32 B (the paper's interconnect width and chunk). */
#define GCR_GRAN_PACKET_BYTES 32

struct gcr_gran_counts {
    uint64_t insns, miss_insns;           /* L1 memory instructions; those with a non-hit request */
    uint64_t load_insns, load_miss_insns; /* the same for loads */
    uint64_t requests, misses;            /* L1 requests; those not hits */
    uint64_t l2_reads;                    /* read requests sent to L2 (one per read miss) */
    uint64_t l1_to_l2_packets;            /* read requests (1 each) + store data packets */
    uint64_t l2_to_l1_packets;            /* read data packets */
    uint64_t sectors_left, sectors_used;  /* sectors leaving the L1, and those referenced */
};

/* Per-SM instruction boundaries: every SM issues at most one instruction per
 * replay step, so (step, SM) names an instruction. */
struct gcr_gran_tracker {
    uint64_t *step_plus1; /* per SM: step of the instruction seen last, + 1 (0: none) */
    bool *missed;         /* per SM: that instruction had a non-hit request */
    uint32_t n;
};

int gcr_gran_tracker_init(struct gcr_gran_tracker *t, uint32_t sms, struct gcr_err *err);
void gcr_gran_tracker_fini(struct gcr_gran_tracker *t);

/* Packets that carry the given sectors (sector_bytes each) in 32-B packets. */
static inline uint64_t gcr_gran_packets(uint32_t sectors, uint32_t sector_bytes)
{
    uint64_t bytes = (uint64_t)gcr_bits_popcount32(sectors) * sector_bytes;
    return (bytes + GCR_GRAN_PACKET_BYTES - 1) / GCR_GRAN_PACKET_BYTES;
}

/* Counts one L1 request of SM sm at replay step `step`: fetched = sectors read
 * from L2 (a read miss), written = sectors of store data sent below. */
void gcr_gran_count(struct gcr_gran_counts *c, struct gcr_gran_tracker *t, uint32_t sm,
                    uint64_t step, bool is_write, bool hit, uint32_t fetched, uint32_t written,
                    uint32_t sector_bytes);

/* The counts as a JSON object (per-instruction miss rates, packets, ...). */
json_t *gcr_gran_json(const struct gcr_gran_counts *c);
/* a / b, or null when b is 0. */
json_t *gcr_gran_ratio(uint64_t a, uint64_t b);

/* A conventional cache per SM replaying the organisation's requests as a
 * baseline would see them: `line32`, `line64` (fixed small lines, the
 * organisation's 128-B requests split at that size, as coalescing at it does),
 * `line128` (the 128-B baseline: whole lines fetched) and `sector` (128-B
 * lines, 32-B sectors fetched on demand). Same capacity and ways as the L1. */
struct gcr_gran_ref {
    char name[16];
    uint32_t unit_bytes; /* request/line size of the reference */
    uint32_t sector_bytes;
    bool sectored;
    struct gcr_cache **l1; /* per SM */
    uint32_t n;
    struct gcr_cache_geometry geo; /* of each L1 (seed per SM added) */
    struct gcr_gran_counts counts;
    struct gcr_gran_tracker tracker;
};

/* Reads the option `key` (an array of reference names, default ["line128"])
 * into *refs / *nrefs; errors name $.l1d.<org>.<key>. l1 is the organisation's
 * per-instance geometry (capacity, ways, replacement, index). */
int gcr_gran_refs_create(struct gcr_gran_ref **refs, uint32_t *nrefs, const json_t *value,
                         const char *org, const char *key, const struct gcr_config *cfg,
                         const struct gcr_cache_geometry *l1, struct gcr_err *err);
void gcr_gran_refs_destroy(struct gcr_gran_ref *refs, uint32_t nrefs);
/* One request of the organisation (a line of cfg line_bytes, its sector mask). */
void gcr_gran_refs_access(struct gcr_gran_ref *refs, uint32_t nrefs, uint32_t sm,
                          uint64_t step, uint64_t line, uint32_t sectors, bool is_write);
/* Kernel boundary: empty them (the organisation's invalidate_at_kernel_end). */
void gcr_gran_refs_invalidate(struct gcr_gran_ref *refs, uint32_t nrefs);
/* New ways per L1 (unified L1/shared carve-out): the references follow. */
int gcr_gran_refs_resize(struct gcr_gran_ref *refs, uint32_t nrefs, uint32_t ways,
                         struct gcr_err *err);
/* The reference named `name`, or NULL. */
const struct gcr_gran_ref *gcr_gran_refs_find(const struct gcr_gran_ref *refs, uint32_t nrefs,
                                              const char *name);
/* Fills section.references.<name> and, when line128 runs, section.normalised
 * (own / line128 figures). */
void gcr_gran_refs_report(const struct gcr_gran_ref *refs, uint32_t nrefs,
                          const struct gcr_gran_counts *own, json_t *section);
/* Adds section.summary, the figures the table prints under the report (see
 * src/orgs/README.md): own and 128-B baseline miss rate per instruction,
 * packets each way against the baseline, tag storage. Call it after the
 * section's metrics, references, normalised and tag_storage are set. */
void gcr_gran_summary(json_t *section);

/* The fine-grained L1s (and their reference caches) write-evict every store
 * without allocating; l1d.<org>.write_evict says what a store removes. An
 * l1d.write_policy other than write_evict is refused, naming its path, rather
 * than echoed in the report's config as if it had been replayed. */
int gcr_gran_check_write_policy(const struct gcr_config *cfg, const char *org,
                                struct gcr_err *err);

#endif
