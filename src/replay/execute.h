/* One warp instruction through the engine: taken from the warp's queue, then, for a
 * memory instruction, published to the observers, coalesced into line requests and
 * sent to the L1 organisation or the memory system. Shared by both issue drivers
 * (issue.c, src/timing/timed.c). */
#ifndef GCREPLAY_REPLAY_EXECUTE_H
#define GCREPLAY_REPLAY_EXECUTE_H

#include "replay/engine.h"

/* Takes a warp's next instruction, counting it: true when it is a memory
 * instruction (now in rp->insn with its CTA and warp, its lane shape in *shape), false when it is a
 * non-memory one. Shared by the functional and the timing issue paths. */
static inline bool gcr_next_insn(struct gcr_replay *rp, struct warp *w,
                                 struct gcr_lane_shape *shape)
{
    rp->kernel_counts.warp_insns++;
    if (w->nonmem_left) {
        w->nonmem_left--;
        rp->kernel_counts.nonmem++;
        return false;
    }
    uint32_t count;
    if (gcr_warpq_pop(&w->q, &rp->insn, &count, shape) == GCR_WQ_NONMEM) {
        w->nonmem_left = count - 1;
        rp->kernel_counts.nonmem++;
        return false;
    }
    rp->insn.cta = w->cta_id;
    rp->insn.warp = w->id;
    return true;
}

/* The sectors of coalesced request r of line `line`: its mask, or in sector
 * granularity (each request one sector-sized unit) the unit's one sector. */
static inline uint32_t gcr_unit_sectors(const struct gcr_line_req *r, uint64_t line, bool per_sector,
                                    unsigned sector_log2)
{
    return per_sector ? 1u << ((r->line_addr - line) >> sector_log2) : r->sector_mask;
}

/* Publishes memory instruction in (lane addresses as *shape gives them) to the
 * observers of instructions on bus: every lane's address when one of them reads
 * them all, else the first active lane's and the stride hint they derive the
 * rest from. */
static inline __attribute__((always_inline)) void gcr_publish_insn(struct gcr_bus *bus, uint32_t s,
                                                                   struct gcr_warp_insn *in,
                                                                   struct gcr_lane_shape *shape)
{
    if (!shape->strided || bus->insn_all_lanes)
        gcr_lane_shape_expand(shape, in);
    else if (in->active_mask) /* every observer derives the rest from the stride */
        in->addr[__builtin_ctz(in->active_mask)] = shape->base;
    in->strided = shape->strided; /* the hint, for observers' fast paths */
    in->stride = shape->stride;
    gcr_bus_emit_insn(bus, s, in);
}

/* Coalesces memory instruction in (of the global or local space) into rp->reqs:
 * their number (cfg: rp->cfg, as the caller read it). In sector granularity the coalescer works in sector-sized
 * units: each unit becomes one single-sector request to the L1. */
static inline __attribute__((always_inline)) uint32_t
gcr_coalesce_insn(struct gcr_replay *rp, const struct gcr_config *cfg, struct gcr_warp_insn *in,
                  struct gcr_lane_shape *shape)
{
    bool per_sector = cfg->granularity == GCR_GRAN_SECTOR;
    uint32_t unit = per_sector ? cfg->sector_bytes : cfg->line_bytes;
    bool atomic = in->op == GCR_OP_ATOMIC || in->op == GCR_OP_REDUCTION;
    uint32_t n = GCR_COALESCE_NOT_CONTIGUOUS;
    /* The instruction says where its lanes are to what reads it below (the
     * L2's fetch units ask which sectors of a line it reads): its addresses,
     * filled below where the coalescer needs them, or the strided hint. */
    in->strided = shape->strided;
    in->stride = shape->stride;
    if (shape->strided && in->active_mask)
        in->addr[__builtin_ctz(in->active_mask)] = shape->base;
    if (atomic) {
        gcr_lane_shape_expand(shape, in);
        n = gcr_coalesce_atomic(in, unit, cfg->sector_bytes, rp->reqs);
    } else if (shape->strided)
        n = gcr_coalesce_strided(in->active_mask, shape->base, shape->stride, in->width, unit,
                                 cfg->sector_bytes, rp->reqs);
    if (n == GCR_COALESCE_NOT_CONTIGUOUS || (cfg->l2.byte_masks && in->op == GCR_OP_STORE)) {
        /* The L2 keeps a store's bytes (l2.byte_masks): it reads every lane. */
        gcr_lane_shape_expand(shape, in);
        n = gcr_coalesce(in, unit, cfg->sector_bytes, rp->reqs);
    }
    return n;
}

/* Sends the n coalesced requests reqs of memory instruction in, issued by SM s, into
 * the memory system of replay `to` (cfg: to->cfg, as the caller read it): each goes to
 * its L1 organisation or, for atomics and L1 bypasses, below it. True when the warp must wait for data from beyond its
 * L1 (a load that missed or bypassed it, an atomic): what the schedulers stall on. */
static inline __attribute__((always_inline)) bool
gcr_send_requests(struct gcr_replay *to, const struct gcr_config *cfg, uint32_t s,
                  const struct gcr_warp_insn *in, const struct gcr_line_req *reqs, uint32_t n)
{
    bool per_sector = cfg->granularity == GCR_GRAN_SECTOR;
    bool atomic = in->op == GCR_OP_ATOMIC || in->op == GCR_OP_REDUCTION;
    bool bypass = in->cache_op == GCR_CACHEOP_BYPASS_L1 ||
                  (cfg->l1_bypass_global && in->space == GCR_SPACE_GLOBAL);
    bool is_write = in->op == GCR_OP_STORE;
    /* Under GTO a warp stalls when it waits for data from beyond its L1: a
     * load that misses or bypasses the L1, or an atomic (which returns the
     * old value from L2). Stores and reductions return nothing to wait for. */
    bool waits = in->op == GCR_OP_ATOMIC || (bypass && in->op == GCR_OP_LOAD);
    uint64_t line_mask = ~(uint64_t)(cfg->line_bytes - 1);
    const unsigned sector_log2 = gcr_bits_log2(cfg->sector_bytes); /* a power of two */

    if (!atomic && !bypass) {
        /* The common case in a loop of its own (the general one below keeps
         * more values live across the call): every request goes to the L1
         * organisation, and only its line, sectors and bytes change. In
         * sector granularity each request is one sector-sized unit. */
        struct gcr_req req = {.is_write = is_write, .sm = s, .cta = in->cta, .warp = in->warp,
                              .insn = in};
        for (uint32_t i = 0; i < n; i++) {
            req.line_addr = reqs[i].line_addr & line_mask;
            req.sector_mask = gcr_unit_sectors(&reqs[i], req.line_addr, per_sector, sector_log2);
            req.bytes = reqs[i].bytes;
            if (to->org->access(to->org_self, &req) != GCR_HIT && !is_write)
                waits = true;
        }
    } else {
        /* Atomics and reductions go to the L2; so does whatever bypasses the L1. */
        for (uint32_t i = 0; i < n; i++) {
            uint64_t line = reqs[i].line_addr & line_mask;
            uint32_t sectors = gcr_unit_sectors(&reqs[i], line, per_sector, sector_log2);
            if (atomic) {
                to->kernel_counts.atomic_requests++;
                gcr_memsys_atomic(&to->mem, s, s, line, sectors, in);
            } else {
                to->kernel_counts.bypass_requests++;
                if (is_write)
                    gcr_memsys_write(&to->mem, s, s, line, sectors, reqs[i].bytes, in);
                else
                    gcr_memsys_read(&to->mem, s, s, line, sectors, true, in);
            }
        }
    }
    return waits && n;
}

/* The same for a replay that drives other variants' memory systems (pass.c): the
 * instruction and its requests are kept for every memory system, rp's included, to
 * see in a batch; false, since none has answered yet (the schedulers of a shared
 * pass never ask). */
bool gcr_execute_variants(struct gcr_replay *rp, uint32_t s, struct gcr_lane_shape *shape);

/* Executes warp w's memory instruction (rp->insn, lane addresses as *shape gives
 * them) on SM s: observers see it, the coalescer turns it into line requests, and
 * each goes to the L1 organisation or, for atomics and L1 bypasses, to the memory
 * system. True when the warp must wait for data from beyond its L1 (a load that
 * missed or bypassed it, an atomic): what the schedulers stall on. `variants` is a
 * constant: whether rp drives other variants' memory systems too (rp->nvariants >
 * 0). The issue loops know it per kernel, so the one without variants (the hot
 * path) tests nothing for them.
 *
 * Always inlined: the functional issue loop is the hot path, and a second
 * caller (the timed driver) must not turn it into a call. */
static inline __attribute__((always_inline)) bool
gcr_execute_with(struct gcr_replay *rp, uint32_t s, struct gcr_lane_shape *shape,
                 const bool variants)
{
    if (variants)
        return gcr_execute_variants(rp, s, shape);
    const struct gcr_config *cfg = rp->cfg;
    struct gcr_warp_insn *in = &rp->insn;
    rp->kernel_counts.mem[in->space][in->op]++;

    /* Observers of instructions see every lane address; the strided
     * coalescing path below does not need them. */
    if (gcr_bus_wants(&rp->bus, GCR_EV_INSN))
        gcr_publish_insn(&rp->bus, s, in, shape);
    if (in->space != GCR_SPACE_GLOBAL && in->space != GCR_SPACE_LOCAL)
        return false; /* shared memory is on-chip; const/texture caches are not modelled */
    uint32_t n = gcr_coalesce_insn(rp, cfg, in, shape);
    return gcr_send_requests(rp, cfg, s, in, rp->reqs, n);
}

/* The same without variants: the timed driver's (a timed replay has a pass of its
 * own, gcr_replay_pass_key). */
static inline __attribute__((always_inline)) bool gcr_execute(struct gcr_replay *rp, uint32_t s,
                                                              struct gcr_lane_shape *shape)
{
    return gcr_execute_with(rp, s, shape, false);
}

#endif
