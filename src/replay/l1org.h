/* The contract of an L1 organisation (private L1s, shared L1, DC-L1, ...).
 *
 * The replay engine hands each coalesced request of an SM to the organisation;
 * the organisation decides which L1 instance serves it and sends fetches and
 * writes below through the memory system. When the engine reports, it asks the
 * organisation for the L1 statistics seen from each requesting SM (the L1D
 * figures of the report), so nothing is counted twice on the hot path.
 *
 * Message order. In timing mode the memory system holds the timing backend
 * (mem->timing), and everything an organisation sends is timed as it is sent:
 * L1 lookups (gcr_l1org_lookup), core-to-L1 messages (gcr_l1org_core_message)
 * and what goes below (gcr_memsys_read/write/writeback/atomic). The backend
 * chains each message after the previous one of the same request, so an
 * organisation sends a request's messages in the order they travel: the
 * request to a remote L1 first, then the lookup, then what the lookup sends
 * below (victim write-back, fetch, store data), then the reply to the core.
 * Every lookup goes through gcr_l1org_lookup, once; observers see the same
 * sequence as GCR_EV_L1_ACCESS and GCR_EV_TRANSFER events.
 * tests/unit/replay/message_order.c checks this for every registered
 * organisation. */
#ifndef GCREPLAY_REPLAY_L1ORG_H
#define GCREPLAY_REPLAY_L1ORG_H

#include <jansson.h>

#include "gcreplay/analysis.h"
#include "gcreplay/cache.h"
#include "replay/memsys.h"
#include "timing/timing.h"

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

/* Building blocks every organisation made of gcr_cache L1 instances needs
 * (src/replay/l1org.c), so each one publishes the same events the same way. */

/* Publishes one L1 event (access or eviction) of instance `unit`; req names the
 * requester and may be NULL (write-backs, invalidations). */
void gcr_l1org_emit(struct gcr_bus *bus, enum gcr_event_kind kind, uint32_t unit,
                    const struct gcr_req *req, uint64_t line, uint32_t sectors, bool is_write,
                    const struct gcr_access *a);

/* A lookup of req in the tags of L1 instance `unit` (sectors of line; a
 * store when is_write) had the result *a: the timing backend, in timing
 * mode, times it (tag port, MSHR, a hit on a line in flight), and observers
 * see GCR_EV_L1_ACCESS. Every lookup of a request's line in an L1 goes
 * through here, once, at the point of the message order it takes (see
 * "Message order" above). */
static inline void gcr_l1org_lookup(struct gcr_memsys *mem, uint32_t unit,
                                    const struct gcr_req *req, uint64_t line, uint32_t sectors,
                                    bool is_write, const struct gcr_access *a)
{
    if (mem->timing)
        gcr_timing_l1_lookup(mem->timing, unit, line, sectors, is_write, a->outcome);
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

/* Strict parsers for an organisation's options (the l1d.<org> object): each
 * returns 0, or -1 with an error naming the file and $.l1d.<org>.<key>. */
int gcr_l1org_opt_uint(const char *origin, const char *org, const char *key, const json_t *v,
                       uint64_t min, uint64_t max, uint64_t *out, struct gcr_err *err);
int gcr_l1org_opt_real(const char *origin, const char *org, const char *key, const json_t *v,
                       double min, double max, double *out, struct gcr_err *err);
/* v must be one of names[0..count-1]; *out is its index. */
int gcr_l1org_opt_enum(const char *origin, const char *org, const char *key, const json_t *v,
                       const char *const *names, int count, int *out, struct gcr_err *err);
/* The error for a key the organisation does not know; known lists its keys. */
int gcr_l1org_unknown_key(const char *origin, const char *org, const char *key,
                          const char *known, struct gcr_err *err);

#endif
