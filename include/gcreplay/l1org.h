/* The contract of an L1 organisation (private L1s, shared L1, DC-L1, ...):
 * src/orgs/README.md describes it, and each organisation is a folder under
 * src/orgs/ with one entry in src/orgs/meson.build.
 *
 * The replay engine hands each coalesced request of an SM to the organisation;
 * the organisation decides which L1 instance serves it and sends fetches and
 * writes below through the memory system. When the engine reports, it asks the
 * organisation for the L1 statistics seen from each requesting SM (the L1D
 * figures of the report), so nothing is counted twice on the hot path.
 *
 * Message order. In timing mode everything an organisation sends is timed as
 * it is sent: L1 lookups, core-to-L1 messages and what goes below through the
 * memory system (the building blocks of src/replay/l1org.h). The timing
 * backend chains each message after the previous one of the same request, so
 * an organisation sends a request's messages in the order they travel: the
 * request to a remote L1 first, then the lookup, then what the lookup sends
 * below (victim write-back, fetch, store data), then the reply to the core.
 * Every lookup is reported once. Observers see the same sequence as
 * GCR_EV_L1_ACCESS and GCR_EV_TRANSFER events. The replay-message-order test
 * (tests/unit/replay/message_order.c) checks this for every registered
 * organisation. */
#ifndef GCREPLAY_L1ORG_H
#define GCREPLAY_L1ORG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/analysis.h"
#include "gcreplay/cache.h"
#include "gcreplay/config.h"
#include "gcreplay/error.h"
#include "gcreplay/record.h"

struct gcr_memsys; /* what lies below the L1s: src/replay/memsys.h */
struct gcr_bus;    /* the observers' event bus: src/replay/bus.h */

/* One coalesced request of one warp instruction. */
struct gcr_req {
    uint64_t line_addr;
    uint32_t sector_mask;
    uint32_t bytes; /* distinct bytes of the line the instruction touches */
    bool is_write;
    uint32_t sm, cta, warp;
    const struct gcr_warp_insn *insn;
};

struct gcr_l1org_ctx {
    const struct gcr_config *config;
    const struct gcr_sim_info *info;
    struct gcr_memsys *mem;               /* L2 slices and DRAM below */
    struct gcr_bus *bus;                  /* for L1 events */
};

struct gcr_l1org_ops {
    const char *name; /* same as its folder and symbol gcr_l1org_<name> */
    const char *summary;
    /* Every line leaving an L1 instance is published as an eviction of the
     * whole line (gcr_sim_info.l1_whole_line_evictions). */
    bool whole_line_evictions;
    /* options: the l1d.<name> object of the config, or NULL. */
    int (*create)(void **self, const struct gcr_l1org_ctx *ctx, const json_t *options,
                  struct gcr_err *err);
    /* Serves one request; returns its outcome as seen by the requester. */
    enum gcr_outcome (*access)(void *self, const struct gcr_req *req);
    /* A kernel starts; l1 is the geometry of each L1 instance for it (its ways
     * change with the unified L1/shared carve-out). May be NULL if the
     * organisation has nothing to do. */
    int (*kernel_begin)(void *self, const struct gcr_cache_geometry *l1, struct gcr_err *err);
    /* Kernel boundary: invalidate (writing dirty lines back) if configured. */
    void (*kernel_end)(void *self);
    uint32_t (*num_instances)(void *self);
    /* Cumulative L1 statistics per requesting SM, into per_sm[num_sms]. */
    void (*collect_stats)(void *self, struct gcr_cache_stats *per_sm);
    /* A hint that SM sm will soon access line_addr (may be NULL): calls
     * gcr_cache_prefetch on the L1 instance the access will read first; the
     * engine follows *h in the later stages. Only the host's caches change,
     * never a result. */
    void (*prefetch)(void *self, uint32_t sm, uint64_t line_addr, struct gcr_cache_hint *h);
    /* Organisation-specific figures (may be NULL): filled into L1D.<name>. */
    int (*report)(void *self, json_t *section, struct gcr_err *err);
    void (*destroy)(void *self);
};

extern const struct gcr_l1org_ops *const gcr_l1orgs[];

#endif
