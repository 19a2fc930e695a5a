/* The building blocks of L1 organisations: what every organisation made of
 * gcr_cache L1 instances needs, so each one sends and publishes the same
 * messages the same way. The contract itself is public:
 * include/gcreplay/l1org.h (its "Message order" is what the helpers below
 * keep: the timing backend, mem->timing in timing mode, is called where
 * each lookup and message happens). */
#ifndef GCREPLAY_REPLAY_L1ORG_H
#define GCREPLAY_REPLAY_L1ORG_H

#include <jansson.h>

#include "gcreplay/analysis.h"
#include "gcreplay/cache.h"
#include "gcreplay/l1org.h"
#include "replay/memsys.h"
#include "timing/timing.h"

/* (src/replay/l1org.c) */

/* Publishes one L1 event (access or eviction) of instance `unit`; req names the
 * requester and may be NULL (write-backs, invalidations). */
void gcr_l1org_emit(struct gcr_bus *bus, enum gcr_event_kind kind, uint32_t unit,
                    const struct gcr_req *req, uint64_t line, uint32_t sectors, bool is_write,
                    const struct gcr_access *a);

/* A lookup of req in the tags of L1 instance `unit` (sectors of line; a
 * store when is_write) had the result *a: the timing backend, in timing
 * mode, times it (banks, MSHR, a hit on sectors in flight), and observers
 * see GCR_EV_L1_ACCESS. Every lookup of a request's line in an L1 goes
 * through here, once, at the point of the message order it takes
 * (include/gcreplay/l1org.h, "Message order"). */
static inline void gcr_l1org_lookup(struct gcr_memsys *mem, uint32_t unit,
                                    const struct gcr_req *req, uint64_t line, uint32_t sectors,
                                    bool is_write, const struct gcr_access *a)
{
    if (mem->timing)
        gcr_timing_l1_lookup(mem->timing, unit, line, sectors, is_write, a->outcome,
                             a->fetch_mask);
    if (gcr_bus_wants(mem->bus, GCR_EV_L1_ACCESS)) {
        /* Observers are handed a copy: when this is inline in an organisation's
         * access, *a then never escapes, and the compiler keeps it in registers. */
        struct gcr_access seen = *a;
        gcr_l1org_emit(mem->bus, GCR_EV_L1_ACCESS, unit, req, line, sectors, is_write, &seen);
    }
}

/* Sends one GCR_NET_CORE_L1 message of req between endpoints `from` and `to`
 * (an SM or an L1 instance), carrying `bytes` of data: a request toward the
 * L1 (downstream) or its reply. Timed by the timing backend and published
 * as GCR_EV_TRANSFER. For organisations whose requests cross a network to a
 * remote L1 (shared, DC-L1, COLAB); test gcr_memsys_sends_messages first to
 * skip the work when nobody needs the messages. */
void gcr_l1org_core_message(struct gcr_memsys *mem, const struct gcr_req *req, uint32_t from,
                            uint32_t to, uint32_t bytes, bool downstream);

/* Empties L1 instance `unit`: observers see every line leave (GCR_EV_L1_EVICT)
 * and dirty sectors are written back to memory from port `port`. */
void gcr_l1org_invalidate(struct gcr_cache *c, uint32_t unit, uint32_t port,
                          struct gcr_memsys *mem, struct gcr_bus *bus);

/* Replaces *c by an empty cache of geometry g (seed g->seed), invalidating the
 * old one as above and adding its counters to *retired so cumulative
 * statistics survive a resize (unified L1/shared carve-out). */
int gcr_l1org_resize(struct gcr_cache **c, const struct gcr_cache_geometry *g, uint32_t unit,
                     uint32_t port, struct gcr_cache_stats *retired, struct gcr_memsys *mem,
                     struct gcr_bus *bus, struct gcr_err *err);

/* Serves req at L1 instance `unit` (a gcr_cache) as a private L1 does: the
 * access, its GCR_EV_L1_ACCESS and GCR_EV_L1_EVICT events, the dirty victim's
 * write-back, the fetch of missing sectors and the store data sent below, all
 * from memory port `port`. The access result is left in *a. */
void gcr_l1org_serve(struct gcr_cache *c, uint32_t unit, uint32_t port,
                     const struct gcr_req *req, struct gcr_memsys *mem, struct gcr_bus *bus,
                     struct gcr_access *a);

/* L1 instance i of a bank is a gcr_cache of the bank's geometry with seed
 * geometry.seed + i (independent random streams); retired[i] keeps the
 * counters of the caches a resize replaced, so statistics are cumulative.
 * Instance i's memory port is i. */
struct gcr_l1_bank {
    struct gcr_cache **l1;
    struct gcr_cache_stats *retired;
    uint32_t n;
};
int gcr_l1_bank_init(struct gcr_l1_bank *b, uint32_t n, const struct gcr_cache_geometry *g,
                     struct gcr_err *err);
void gcr_l1_bank_fini(struct gcr_l1_bank *b);
/* Every instance gets geometry g (the unified L1/shared carve-out changes the
 * ways): 1 if they were resized (and start empty), 0 if the ways did not
 * change, -1 on error. */
int gcr_l1_bank_resize(struct gcr_l1_bank *b, const struct gcr_cache_geometry *g,
                       struct gcr_memsys *mem, struct gcr_bus *bus, struct gcr_err *err);
/* Empties every instance (gcr_l1org_invalidate). */
void gcr_l1_bank_invalidate(struct gcr_l1_bank *b, struct gcr_memsys *mem, struct gcr_bus *bus);
/* Cumulative counters of instance i: the retired caches' and the current one's. */
void gcr_l1_bank_stats(const struct gcr_l1_bank *b, uint32_t i, struct gcr_cache_stats *out);

/* out = a + b, counter by counter (out may be a or b). */
void gcr_cache_stats_sum(struct gcr_cache_stats *out, const struct gcr_cache_stats *a,
                         const struct gcr_cache_stats *b);

#endif
