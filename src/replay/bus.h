/* The event bus: delivers replay events to the analyses that subscribed. */
#ifndef GCREPLAY_REPLAY_BUS_H
#define GCREPLAY_REPLAY_BUS_H

#include "gcreplay/analysis.h"

struct gcr_bus_sub {
    const struct gcr_analysis_ops *ops;
    void *self;
};

struct gcr_bus {
    unsigned mask; /* union of every subscriber's kinds: a cheap "anyone listening?" */
    bool insn_all_lanes; /* a GCR_EV_INSN subscriber reads every lane's address */
    struct gcr_bus_sub *subs;
    size_t nsubs;
    uint64_t step;
    const struct gcr_kernel_begin *kernel;
};

static inline bool gcr_bus_wants(const struct gcr_bus *bus, enum gcr_event_kind kind)
{
    return (bus->mask & (unsigned)kind) != 0;
}

/* An instruction or cache event (GCR_EV_INSN, an L1 or L2 access or
 * eviction), every field assigned one by one: such events go out at every
 * access, and an initialiser list would zero-fill the whole ~100-byte
 * structure first. step and kernel are gcr_bus_emit's to fill; the TRANSFER
 * and KERNEL_END fields are zero. */
static inline void gcr_event_fill(struct gcr_event *ev, enum gcr_event_kind kind, uint32_t unit,
                                   uint32_t sm, uint32_t cta, uint32_t warp,
                                   const struct gcr_warp_insn *insn, uint64_t line,
                                   uint32_t sectors, bool is_write, const struct gcr_access *a)
{
    ev->kind = kind;
    ev->step = 0;
    ev->kernel = NULL;
    ev->insn = insn;
    ev->sm = sm;
    ev->cta = cta;
    ev->warp = warp;
    ev->unit = unit;
    ev->line_addr = line;
    ev->sector_mask = sectors;
    ev->is_write = is_write;
    ev->access = a;
    ev->kernel_warp_insns = 0;
    ev->net = GCR_NET_L2;
    ev->from = ev->to = ev->bytes = 0;
    ev->downstream = false;
}

/* Fills step and kernel, then calls every subscriber of ev->kind. */
void gcr_bus_emit(struct gcr_bus *bus, struct gcr_event *ev);

#endif
