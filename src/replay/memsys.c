#include "replay/memsys.h"

#include <stdlib.h>

#include "core/bits.h"
#include "replay/chips.h"
#include "timing/timing.h"

static inline uint32_t popcount32(uint32_t x) { return gcr_bits_popcount32(x); }

int gcr_memsys_init(struct gcr_memsys *m, const struct gcr_config *cfg, struct gcr_bus *bus,
                    struct gcr_err *err)
{
    *m = (struct gcr_memsys){.cfg = cfg, .nslices = cfg->l2_slices, .bus = bus,
                             .num_ports = cfg->num_sms};
    m->slices = calloc(cfg->l2_slices, sizeof *m->slices);
    if (!m->slices)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory for %u L2 slices", cfg->l2_slices);
    for (uint32_t i = 0; i < cfg->l2_slices; i++) {
        struct gcr_cache_geometry g = cfg->l2;
        g.seed = cfg->l2.seed + i; /* independent random streams per slice */
        if (cfg->chips.count > 1) /* a slice sees every spc-th granule of its chip's lines */
            g.strip_count = cfg->chips.slices_per_chip;
        m->slices[i] = gcr_cache_create(&g, err);
        if (!m->slices[i]) {
            gcr_memsys_fini(m);
            return -1;
        }
    }
    if (cfg->chips.count > 1 && gcr_chips_create(&m->chips, m, err) != 0) {
        gcr_memsys_fini(m);
        return -1;
    }
    return 0;
}

void gcr_memsys_fini(struct gcr_memsys *m)
{
    gcr_chips_destroy(m->chips);
    m->chips = NULL;
    if (m->slices)
        for (uint32_t i = 0; i < m->nslices; i++)
            gcr_cache_destroy(m->slices[i]);
    free(m->slices);
    m->slices = NULL;
}

static void emit(struct gcr_memsys *m, enum gcr_event_kind kind, uint32_t slice, uint32_t sm,
                 uint64_t line, uint32_t sectors, bool is_write, const struct gcr_warp_insn *insn,
                 const struct gcr_access *a)
{
    gcr_bus_emit_cache(m->bus, kind, slice, sm, 0, 0, insn, line, sectors, is_write, a);
}

void gcr_memsys_send(struct gcr_memsys *m, enum gcr_net net, uint32_t from, uint32_t to,
                     uint32_t bytes, bool downstream, uint32_t sm,
                     const struct gcr_warp_insn *insn, uint64_t line)
{
    if (m->timing)
        gcr_timing_send(m->timing, net, from, to, bytes, downstream, line);
    if (gcr_bus_wants(m->bus, GCR_EV_TRANSFER)) {
        struct gcr_event ev = {.kind = GCR_EV_TRANSFER, .net = net, .from = from, .to = to,
                               .bytes = bytes, .downstream = downstream, .sm = sm,
                               .insn = insn, .line_addr = line};
        gcr_bus_emit(m->bus, &ev);
    }
}

/* One access to the slice owning the line, with everything it sends to DRAM.
 * The request and its reply cross the L2 network between port and slice.
 * Inline in each kind of request (l2_request): an L1 miss's read is the
 * commonest, and the call with its nine arguments cost about a third as much
 * as the work. */
static inline __attribute__((always_inline)) void
slice_access(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line, uint32_t sectors,
             bool is_write, uint32_t write_bytes, const struct gcr_warp_insn *insn,
             struct gcr_access *a)
{
    uint32_t slice = gcr_config_slice_of(m->cfg, line);
    bool timed = gcr_memsys_sends_messages(m);
    if (timed)
        gcr_memsys_send(m, GCR_NET_L2, port, slice, is_write ? write_bytes : 0, true, sm, insn, line);
    gcr_cache_access(m->slices[slice], line, sectors, is_write, a);
    uint32_t sb = m->cfg->sector_bytes;
    uint32_t dram_read = popcount32(a->fetch_mask) * sb;
    uint32_t dram_write = (popcount32(a->forward_mask) + popcount32(a->victim_dirty)) * sb;
    m->traffic.dram_read_bytes += dram_read;
    m->traffic.dram_write_bytes += dram_write;
    if (timed) {
        if (dram_write)
            gcr_memsys_send(m, GCR_NET_DRAM, slice, slice, dram_write, true, sm, insn, line);
        if (dram_read) {
            gcr_memsys_send(m, GCR_NET_DRAM, slice, slice, 0, true, sm, insn, line);
            gcr_memsys_send(m, GCR_NET_DRAM, slice, slice, dram_read, false, sm, insn, line);
        }
        if (!is_write) /* reads (and atomics) are answered with their sectors */
            gcr_memsys_send(m, GCR_NET_L2, slice, port, popcount32(sectors) * sb, false, sm, insn, line);
    }
    /* Observers are handed a copy, so *a never escapes and stays in registers. */
    struct gcr_access seen;
    if (gcr_bus_wants(m->bus, GCR_EV_L2_ACCESS)) {
        seen = *a;
        emit(m, GCR_EV_L2_ACCESS, slice, sm, line, sectors, is_write, insn, &seen);
    }
    if (a->evicted && gcr_bus_wants(m->bus, GCR_EV_L2_EVICT)) {
        seen = *a;
        emit(m, GCR_EV_L2_EVICT, slice, sm, a->victim_line, a->victim_valid, false, NULL, &seen);
    }
}

void gcr_memsys_prefetch(const struct gcr_memsys *m, uint64_t line, struct gcr_cache_hint *h)
{
    if (m->chips)
        h->cache = NULL;
    else
        gcr_cache_prefetch(m->slices[gcr_config_slice_of(m->cfg, line)], line, h);
}

/* In sector granularity every sector is its own L2 request, as GPGPU-Sim
 * breaks L1 misses into 32-B sector requests at the memory partition. */
static inline __attribute__((always_inline)) void
l2_request(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line, uint32_t sectors,
           bool is_write, uint32_t write_bytes, const struct gcr_warp_insn *insn)
{
    struct gcr_access a;
    if (m->cfg->granularity == GCR_GRAN_LINE) {
        slice_access(m, sm, port, line, sectors, is_write, write_bytes, insn, &a);
        return;
    }
    /* Store data is split evenly over the sector requests (whole bytes). */
    uint32_t n = popcount32(sectors), k = 0;
    for (uint32_t rest = sectors; rest; rest &= rest - 1, k++) {
        uint32_t share = write_bytes / n + (k < write_bytes % n);
        slice_access(m, sm, port, line, rest & -rest, is_write, share, insn, &a);
    }
}

void gcr_memsys_read(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line,
                     uint32_t sectors, bool bypass_l1, const struct gcr_warp_insn *insn)
{
    uint64_t bytes = (uint64_t)popcount32(sectors) * m->cfg->sector_bytes;
    if (bypass_l1)
        m->traffic.l2_to_sm_bypass_bytes += bytes;
    else
        m->traffic.l2_to_l1_bytes += bytes;
    /* Several chips: the chips route the request (tested here, not in
     * l2_request, so the single-chip path compiles as it always did). */
    if (m->chips)
        gcr_chips_request(m->chips, sm, port, line, sectors, GCR_CHIPS_READ, 0, insn);
    else
        l2_request(m, sm, port, line, sectors, false, 0, insn);
}

void gcr_memsys_write(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line,
                      uint32_t sectors, uint32_t bytes, const struct gcr_warp_insn *insn)
{
    m->traffic.l1_to_l2_write_bytes += bytes;
    if (m->chips)
        gcr_chips_request(m->chips, sm, port, line, sectors, GCR_CHIPS_WRITE, bytes, insn);
    else
        l2_request(m, sm, port, line, sectors, true, bytes, insn);
}

void gcr_memsys_writeback(struct gcr_memsys *m, uint32_t port, uint64_t line, uint32_t dirty)
{
    uint32_t bytes = popcount32(dirty) * m->cfg->sector_bytes;
    m->traffic.l1_writeback_bytes += bytes;
    if (m->chips)
        gcr_chips_request(m->chips, UINT32_MAX, port, line, dirty, GCR_CHIPS_WRITE, bytes, NULL);
    else
        l2_request(m, UINT32_MAX, port, line, dirty, true, bytes, NULL);
}

void gcr_memsys_atomic(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line,
                       uint32_t sectors, const struct gcr_warp_insn *insn)
{
    /* An atomic needs the old value: it is a read at L2 (fetching what is
     * missing from DRAM), after which a write-back L2 holds the line dirty. */
    if (m->chips) {
        gcr_chips_request(m->chips, sm, port, line, sectors, GCR_CHIPS_ATOMIC, 0, insn);
        return;
    }
    uint32_t slice = gcr_config_slice_of(m->cfg, line);
    struct gcr_access a;
    l2_request(m, sm, port, line, sectors, false, 0, insn);
    if (m->cfg->l2.write_policy == GCR_WRITE_BACK) {
        gcr_cache_fill(m->slices[slice], line, sectors, true, &a);
    } else {
        /* Write-through or write-evict L2: the result goes to DRAM. */
        m->traffic.dram_write_bytes += (uint64_t)popcount32(sectors) * m->cfg->sector_bytes;
    }
}

void gcr_memsys_prefill(struct gcr_memsys *m, uint64_t dst, uint64_t bytes)
{
    if (!bytes)
        return;
    /* A copy larger than a few times the L2 leaves only its tail resident
     * (every set has been refilled since): fill only the last 4 L2 capacities,
     * so a 1-TiB copy costs the same as a small one. */
    const struct gcr_cache_geometry *g = &m->cfg->l2;
    uint64_t keep = 4 * (uint64_t)m->nslices * g->sets * g->ways * g->line_bytes;
    if (bytes > keep) {
        dst += bytes - keep;
        bytes = keep;
    }
    uint64_t lb = m->cfg->line_bytes, sb = m->cfg->sector_bytes;
    uint64_t last_byte = dst + bytes - 1; /* records are checked not to wrap */
    for (uint64_t line = dst & ~(lb - 1);; line += lb) {
        uint64_t lo = line < dst ? dst - line : 0;
        uint64_t hi = last_byte - line < lb ? last_byte - line : lb - 1;
        uint32_t sectors = 0;
        for (uint64_t s = lo / sb; s <= hi / sb; s++)
            sectors |= 1u << s;
        struct gcr_access a;
        uint32_t slice = gcr_config_slice_of(m->cfg, line);
        gcr_cache_fill(m->slices[slice], line, sectors, false, &a);
        m->traffic.dram_write_bytes += (uint64_t)popcount32(a.victim_dirty) * sb;
        if (a.evicted && gcr_bus_wants(m->bus, GCR_EV_L2_EVICT))
            emit(m, GCR_EV_L2_EVICT, slice, UINT32_MAX, a.victim_line, a.victim_valid, false, NULL,
                 &a);
        if (last_byte - line < lb)
            break;
    }
}

void gcr_memsys_kernel_begin(struct gcr_memsys *m)
{
    if (m->chips)
        gcr_chips_kernel_begin(m->chips);
}

void gcr_memsys_kernel_end(struct gcr_memsys *m)
{
    if (m->chips)
        gcr_chips_kernel_end(m->chips);
}
