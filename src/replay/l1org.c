/* Building blocks shared by the L1 organisations (see l1org.h). */
#include "replay/l1org.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "timing/timing.h"

void gcr_l1org_emit(struct gcr_bus *bus, enum gcr_event_kind kind, uint32_t unit,
                    const struct gcr_req *req, uint64_t line, uint32_t sectors, bool is_write,
                    const struct gcr_access *a)
{
    if (req)
        gcr_bus_emit_cache(bus, kind, unit, req->sm, req->cta, req->warp, req->insn, line,
                           sectors, is_write, a);
    else
        gcr_bus_emit_cache(bus, kind, unit, UINT32_MAX, 0, 0, NULL, line, sectors, is_write, a);
}

void gcr_l1org_core_message(struct gcr_memsys *mem, const struct gcr_req *req, uint32_t from,
                            uint32_t to, uint32_t bytes, bool downstream)
{
    if (mem->timing)
        gcr_timing_send(mem->timing, GCR_NET_CORE_L1, from, to, bytes, downstream,
                        req->line_addr);
    if (!gcr_bus_wants(mem->bus, GCR_EV_TRANSFER))
        return;
    struct gcr_event ev = {.kind = GCR_EV_TRANSFER, .net = GCR_NET_CORE_L1, .from = from,
                           .to = to, .bytes = bytes, .downstream = downstream, .sm = req->sm,
                           .cta = req->cta, .warp = req->warp, .insn = req->insn,
                           .line_addr = req->line_addr, .sector_mask = req->sector_mask,
                           .is_write = req->is_write};
    gcr_bus_emit(mem->bus, &ev);
}

struct leaving {
    struct gcr_bus *bus;
    struct gcr_memsys *mem;
    uint32_t unit, port;
};

static void publish_line(void *vctx, const struct gcr_line_state *line)
{
    struct leaving *l = vctx;
    struct gcr_access a = {.invalidated = true, .victim_line = line->line_addr,
                           .victim_valid = line->valid, .victim_dirty = line->dirty,
                           .victim_used = line->used};
    gcr_l1org_emit(l->bus, GCR_EV_L1_EVICT, l->unit, NULL, line->line_addr, line->valid, false,
                   &a);
}

static void write_back(void *vctx, uint64_t line, uint32_t dirty)
{
    struct leaving *l = vctx;
    gcr_memsys_writeback(l->mem, l->port, line, dirty);
}

void gcr_l1org_invalidate(struct gcr_cache *c, uint32_t unit, uint32_t port,
                          struct gcr_memsys *mem, struct gcr_bus *bus)
{
    struct leaving l = {bus, mem, unit, port};
    if (gcr_bus_wants(bus, GCR_EV_L1_EVICT))
        gcr_cache_for_each_line(c, publish_line, &l);
    gcr_cache_invalidate_all(c, write_back, &l);
}

void gcr_cache_stats_sum(struct gcr_cache_stats *out, const struct gcr_cache_stats *a,
                         const struct gcr_cache_stats *b)
{
    /* gcr_cache_stats is a plain block of uint64_t counters. */
    struct gcr_cache_stats sum = *a;
    gcr_add_u64s((uint64_t *)&sum, (const uint64_t *)b, sizeof sum / sizeof(uint64_t));
    *out = sum;
}

int gcr_l1org_resize(struct gcr_cache **c, const struct gcr_cache_geometry *g, uint32_t unit,
                     uint32_t port, struct gcr_cache_stats *retired, struct gcr_memsys *mem,
                     struct gcr_bus *bus, struct gcr_err *err)
{
    struct gcr_cache *fresh = gcr_cache_create(g, err);
    if (!fresh)
        return -1;
    gcr_l1org_invalidate(*c, unit, port, mem, bus);
    gcr_cache_stats_sum(retired, retired, gcr_cache_stats(*c));
    gcr_cache_destroy(*c);
    *c = fresh;
    return 0;
}

int gcr_l1_bank_init(struct gcr_l1_bank *b, uint32_t n, const struct gcr_cache_geometry *g,
                     struct gcr_err *err)
{
    *b = (struct gcr_l1_bank){.n = n};
    b->l1 = calloc(n, sizeof *b->l1);
    b->retired = calloc(n, sizeof *b->retired);
    if (!b->l1 || !b->retired) {
        gcr_l1_bank_fini(b);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory for %u L1s", n);
    }
    for (uint32_t i = 0; i < n; i++) {
        struct gcr_cache_geometry gi = *g;
        gi.seed = g->seed + i;
        if (!(b->l1[i] = gcr_cache_create(&gi, err))) {
            gcr_l1_bank_fini(b);
            return -1;
        }
    }
    return 0;
}

void gcr_l1_bank_fini(struct gcr_l1_bank *b)
{
    if (b->l1)
        for (uint32_t i = 0; i < b->n; i++)
            gcr_cache_destroy(b->l1[i]);
    free(b->l1);
    free(b->retired);
    *b = (struct gcr_l1_bank){0};
}

int gcr_l1_bank_resize(struct gcr_l1_bank *b, const struct gcr_cache_geometry *g,
                       struct gcr_memsys *mem, struct gcr_bus *bus, struct gcr_err *err)
{
    if (gcr_cache_geometry(b->l1[0])->ways == g->ways)
        return 0;
    for (uint32_t i = 0; i < b->n; i++) {
        struct gcr_cache_geometry gi = *g;
        gi.seed = g->seed + i;
        if (gcr_l1org_resize(&b->l1[i], &gi, i, i, &b->retired[i], mem, bus, err) != 0)
            return -1;
    }
    return 1;
}

void gcr_l1_bank_invalidate(struct gcr_l1_bank *b, struct gcr_memsys *mem, struct gcr_bus *bus)
{
    for (uint32_t i = 0; i < b->n; i++)
        gcr_l1org_invalidate(b->l1[i], i, i, mem, bus);
}

void gcr_l1_bank_stats(const struct gcr_l1_bank *b, uint32_t i, struct gcr_cache_stats *out)
{
    gcr_cache_stats_sum(out, &b->retired[i], gcr_cache_stats(b->l1[i]));
}

void gcr_l1org_serve(struct gcr_cache *c, uint32_t unit, uint32_t port,
                     const struct gcr_req *req, struct gcr_memsys *mem, struct gcr_bus *bus,
                     struct gcr_access *a)
{
    gcr_cache_access(c, req->line_addr, req->sector_mask, req->is_write, a);
    gcr_l1org_lookup(mem, unit, req, req->line_addr, req->sector_mask, req->is_write, a);
    /* A line left the L1: replaced (evicted) or removed by write-evict
     * (invalidated); the victim fields describe it either way. */
    if (a->evicted || a->invalidated) {
        if (gcr_bus_wants(bus, GCR_EV_L1_EVICT)) {
            struct gcr_access seen = *a; /* a copy, as in gcr_l1org_lookup */
            gcr_l1org_emit(bus, GCR_EV_L1_EVICT, unit, NULL, a->victim_line, a->victim_valid,
                           false, &seen);
        }
        if (a->victim_dirty)
            gcr_memsys_writeback(mem, port, a->victim_line, a->victim_dirty);
    }
    if (a->fetch_mask)
        gcr_memsys_read(mem, req->sm, port, req->line_addr, a->fetch_mask, false, req->insn);
    if (a->forward_mask)
        gcr_memsys_write(mem, req->sm, port, req->line_addr, a->forward_mask, req->bytes,
                         req->insn);
}
