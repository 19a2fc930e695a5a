/* The contract of an L1 organisation (private L1s, shared L1, DC-L1, ...).
 *
 * The replay engine hands each coalesced request of an SM to the organisation;
 * the organisation decides which L1 instance serves it and sends fetches and
 * writes below through the memory system. When the engine reports, it asks the
 * organisation for the L1 statistics seen from each requesting SM (the L1D
 * figures of the report), so nothing is counted twice on the hot path. */
#ifndef GCREPLAY_REPLAY_L1ORG_H
#define GCREPLAY_REPLAY_L1ORG_H

#include <jansson.h>

#include "gcreplay/analysis.h"
#include "gcreplay/cache.h"
#include "replay/memsys.h"

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
    /* Organisation-specific figures (may be NULL): filled into L1D.<name>. */
    int (*report)(void *self, json_t *section, struct gcr_err *err);
    void (*destroy)(void *self);
};

extern const struct gcr_l1org_ops *const gcr_l1orgs[];

#endif
