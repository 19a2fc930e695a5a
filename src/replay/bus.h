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
    struct gcr_bus_sub *subs;
    size_t nsubs;
    uint64_t step;
    const struct gcr_kernel_begin *kernel;
};

static inline bool gcr_bus_wants(const struct gcr_bus *bus, enum gcr_event_kind kind)
{
    return (bus->mask & (unsigned)kind) != 0;
}

/* Fills step and kernel, then calls every subscriber of ev->kind. */
void gcr_bus_emit(struct gcr_bus *bus, struct gcr_event *ev);

#endif
