#include "replay/memsys.h"

#include <stdlib.h>

#include "core/bits.h"
#include "multichip/chips.h"
#include "timing/timing.h"

static inline uint32_t popcount32(uint32_t x) { return gcr_bits_popcount32(x); }

int gcr_memsys_init(struct gcr_memsys *m, const struct gcr_config *cfg, struct gcr_bus *bus,
                    struct gcr_err *err)
{
    *m = (struct gcr_memsys){.cfg = cfg, .nslices = cfg->l2_slices, .bus = bus,
                             .num_ports = cfg->num_sms};
    m->silicon = gcr_l2_silicon(cfg);
    if (cfg->l2_merge_window &&
        gcr_request_coalescer_init(&m->coalescer, cfg->l2_merge_window) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory for the L2 request coalescer");
    m->coalescer.window_cycles = cfg->l2_merge_window_cycles;
    m->slices = calloc(cfg->l2_slices, sizeof *m->slices);
    if (!m->slices) {
        gcr_memsys_fini(m); /* the request coalescer */
        return gcr_fail(err, GCR_E_NOMEM, "out of memory for %u L2 slices", cfg->l2_slices);
    }
    for (uint32_t i = 0; i < cfg->l2_slices; i++) {
        struct gcr_cache_geometry g = cfg->l2;
        g.seed = cfg->l2.seed + i; /* independent random streams per slice */
        if (cfg->chips.count > 1) /* a slice sees every spc-th granule of its chip's lines */
            g.strip_count = cfg->chips.slices_per_chip;
        else if (cfg->l2_partitions > 1) /* ... every slices-per-partition-th granule */
            g.strip_count = cfg->l2_slices / cfg->l2_partitions;
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
    gcr_request_coalescer_fini(&m->coalescer);
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

/* What an access of slice sends on: to DRAM (from_dram: the sectors read
 * there; the access's write-arounds and dirty victim), the reply to a read,
 * and the events observers asked for. Timed, when what it missed was looked up
 * across the L2 fabric, last in slice `far` (NO_FAR: it was not), the answer
 * and far_bytes of data cross back before the reply. Inline in both kinds of
 * access. */
#define NO_FAR UINT32_MAX
static inline __attribute__((always_inline)) void
after_access(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint32_t slice, uint64_t line,
             uint32_t sectors, bool is_write, const struct gcr_warp_insn *insn,
             const struct gcr_access *a, uint32_t from_dram, bool timed, uint32_t far,
             uint32_t far_bytes)
{
    uint32_t sb = m->cfg->sector_bytes;
    uint32_t dram_read = popcount32(from_dram) * sb;
    uint32_t dram_write = (popcount32(a->forward_mask) + popcount32(a->victim_dirty)) * sb;
    m->traffic.dram_read_bytes += dram_read;
    m->traffic.dram_write_bytes += dram_write;
    if (timed) {
        if (m->timing && !is_write)
            gcr_timing_l2_lookup(m->timing, slice, line, sectors, !a->fetch_mask);
        if (dram_write)
            gcr_memsys_send(m, GCR_NET_DRAM, slice, slice, dram_write, true, sm, insn, line);
        if (dram_read) {
            gcr_memsys_send(m, GCR_NET_DRAM, slice, slice, 0, true, sm, insn, line);
            gcr_memsys_send(m, GCR_NET_DRAM, slice, slice, dram_read, false, sm, insn, line);
        }
        if (far != NO_FAR && m->timing)
            gcr_timing_fabric_return(m->timing, far, slice, far_bytes);
        if (!is_write) /* reads (and atomics) are answered with their sectors */
            gcr_memsys_send(m, GCR_NET_L2, slice, port, popcount32(sectors) * sb, false, sm,
                            insn, line);
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

/* The bytes of the line that insn's active lanes write, bit i of words[i / 64]
 * = byte i; every byte of the line for a write without an instruction (an L1
 * write-back holds whole sectors). */
static void written_bytes(const struct gcr_memsys *m, uint64_t line,
                          const struct gcr_warp_insn *insn, uint64_t words[4])
{
    uint32_t lb = m->cfg->line_bytes;
    for (uint32_t w = 0; w < 4; w++)
        words[w] = 0;
    if (!insn) {
        for (uint32_t b = 0; b < lb; b += 64)
            words[b / 64] = lb - b >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << (lb - b)) - 1;
        return;
    }
    /* Every lane's address is there: the engine expands stores' addresses
     * when l2.byte_masks is on (execute.h). */
    for (uint32_t rest = insn->active_mask; rest; rest &= rest - 1) {
        /* The lane's bytes that fall in the line, [lo, hi), set a word's run at a time:
         * a store of every imported config's replay goes through here per sector. */
        int64_t start = (int64_t)(insn->addr[__builtin_ctz(rest)] - line);
        if (start >= 0 && insn->width < 64 && (start & 63) + insn->width <= 64 &&
            start + insn->width <= (int64_t)lb) {
            /* the usual lane: within one word of the line */
            words[start / 64] |= ((UINT64_C(1) << insn->width) - 1) << (start & 63);
            continue;
        }
        int64_t lo = start > 0 ? start : 0, hi = start + insn->width;
        if (hi > (int64_t)lb)
            hi = lb;
        while (lo < hi) {
            int64_t end = (lo / 64 + 1) * 64 < hi ? (lo / 64 + 1) * 64 : hi, n = end - lo;
            words[lo / 64] |= (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1) << (lo % 64);
            lo = end;
        }
    }
}

/* The L2 partition of a port: ports (SMs) in contiguous ranges or interleaved. */
static inline uint32_t partition_of_port(const struct gcr_memsys *m, uint32_t port)
{
    uint32_t p = m->cfg->l2_partitions;
    if (p <= 1)
        return 0;
    return m->cfg->l2_partition_interleaved ? port % p
                                            : (uint32_t)((uint64_t)port * p / m->num_ports);
}

/* The sectors of `line` that insn's active lanes read or write (each lane its
 * width in bytes from its address; with the strided hint, from the first
 * active lane's address on). */
static uint32_t insn_line_sectors(const struct gcr_config *cfg, const struct gcr_warp_insn *insn,
                                  uint64_t line)
{
    uint32_t sectors = 0, mask = insn->active_mask;
    uint64_t lb = cfg->line_bytes, sb = cfg->sector_bytes;
    uint64_t first = mask ? insn->addr[__builtin_ctz(mask)] : 0;
    for (uint32_t k = 0; mask; mask &= mask - 1, k++) {
        uint64_t lo = insn->strided ? first + k * (uint64_t)insn->stride
                                    : insn->addr[__builtin_ctz(mask)];
        uint64_t hi = lo + insn->width; /* exclusive */
        if (hi <= line || lo >= line + lb)
            continue;
        uint64_t a = lo > line ? lo - line : 0, b = hi < line + lb ? hi - line : lb;
        for (uint64_t s = a / sb; s * sb < b; s++)
            sectors |= UINT32_C(1) << s;
    }
    return sectors;
}

/* Fills a slice with the sectors a fetch unit brought beyond the request's. The access
 * before left the line there, unless the slice does not allocate on a miss: then the fill
 * allocates, and its dirty victim goes to DRAM. */
static void fill_promoted(struct gcr_memsys *m, uint32_t slice, uint64_t line, uint32_t extra)
{
    struct gcr_access f;
    gcr_cache_fill(m->slices[slice], line, extra, false, &f);
    if (f.evicted && f.victim_dirty)
        m->traffic.dram_write_bytes += popcount32(f.victim_dirty) * (uint64_t)m->cfg->sector_bytes;
}

/* l2.fetch_bytes: a read's sectors that come from DRAM (from_dram) are fetched
 * in aligned units of fetch_bytes. The unit's other sectors are read too,
 * except those the near slice holds and those the same instruction asks of
 * this line: on the GPU one L1 request carries all of them, so they miss
 * together rather than one fetching the others (gcreplay's sector requests
 * come one by one). The extra sectors fill the near slice and the home one,
 * as the home keeps what it reads from DRAM. Returns from_dram with them. */
static uint32_t promote_fetch(struct gcr_memsys *m, uint32_t slice, uint32_t home_slice,
                              uint64_t line, uint32_t from_dram, const struct gcr_warp_insn *insn)
{
    const struct gcr_config *cfg = m->cfg;
    uint32_t per_unit = cfg->l2_fetch_bytes / cfg->sector_bytes;
    uint32_t unit = (UINT32_C(1) << per_unit) - 1, want = 0;
    for (uint32_t s = 0; s < cfg->line_bytes / cfg->sector_bytes; s += per_unit)
        if (from_dram & unit << s)
            want |= unit << s;
    uint32_t held = 0;
    gcr_cache_probe(m->slices[slice], line, &held);
    uint32_t extra = want & ~from_dram & ~held & ~(insn ? insn_line_sectors(cfg, insn, line) : 0);
    if (!extra)
        return from_dram;
    fill_promoted(m, slice, line, extra);
    if (home_slice != NO_FAR)
        fill_promoted(m, home_slice, line, extra);
    m->extra.promoted_sectors += popcount32(extra);
    return from_dram | extra;
}

/* slice_access with the L2 behaviours of real GPUs (m->silicon):
 * - partitions: the request goes to the slice of the line in the requester's
 *   partition (the near one); sectors it misses, when the line's home (the
 *   partition of its slice in one L2) is another partition, are looked up
 *   there across the fabric, and only what the home misses comes from DRAM.
 *   Writes and atomics complete at the near partition, and the copies of
 *   the written sectors in other partitions are dropped; with byte masks, a
 *   sector the store writes in part and the near partition lacks is first
 *   taken from such a copy (l2.partitions.partial_writes "take");
 * - byte masks: a store writes only its bytes (gcr_cache_write_bytes);
 * - fetch units: a read's DRAM sectors are fetched in l2.fetch_bytes units
 *   (promote_fetch);
 * - nsight counting: writes count as hits (in the geometry) and atomics are
 *   counted apart (the caller swaps the account). */
static void slice_access_silicon(struct gcr_memsys *m, uint32_t sm, uint32_t port,
                                 uint64_t line, uint32_t sectors, bool is_write,
                                 uint32_t write_bytes, const struct gcr_warp_insn *insn,
                                 struct gcr_access *a)
{
    const struct gcr_config *cfg = m->cfg;
    uint32_t global = gcr_config_slice_of(cfg, line);
    uint32_t per_part = cfg->l2_slices / cfg->l2_partitions;
    uint32_t home = global / per_part, near = partition_of_port(m, port);
    uint32_t slice = near * per_part + global % per_part;
    bool timed = gcr_memsys_sends_messages(m);
    if (timed)
        gcr_memsys_send(m, GCR_NET_L2, port, slice, is_write ? write_bytes : 0, true, sm, insn,
                        line);
    if (is_write && cfg->l2.byte_masks && (!insn || insn->op == GCR_OP_STORE)) {
        if (!m->written_valid) { /* a store's sector requests share its line's bytes */
            written_bytes(m, line, insn, m->written);
            m->written_valid = true;
        }
        gcr_cache_write_bytes(m->slices[slice], line, sectors, m->written, a);
    } else {
        gcr_cache_access(m->slices[slice], line, sectors, is_write, a);
    }
    uint32_t sb = cfg->sector_bytes;
    uint32_t from_dram = a->fetch_mask, far_slice = NO_FAR, far_bytes = 0;
    uint32_t home_slice = home != near ? home * per_part + global % per_part : NO_FAR;
    if (is_write && cfg->l2_partitions > 1) {
        /* A partly written sector the near slice lacks: its other bytes come
         * from the copy about to be dropped, not later from DRAM. */
        uint32_t held = 0;
        bool take = cfg->l2.byte_masks && !cfg->l2_partial_writes_drop;
        if (take)
            gcr_cache_probe(m->slices[slice], line, &held);
        for (uint32_t p = 0; p < cfg->l2_partitions; p++) {
            if (p == near)
                continue;
            uint32_t other = p * per_part + global % per_part, there = 0, taken;
            if (take && gcr_cache_probe(m->slices[other], line, &there) &&
                (taken = sectors & there & ~held) != 0) {
                struct gcr_access f;
                if (m->timing)
                    gcr_timing_fabric_lookup(m->timing, slice, other);
                gcr_cache_fill(m->slices[slice], line, taken, true, &f);
                held |= taken;
                m->extra.taken_sectors += popcount32(taken);
                far_slice = other;
                far_bytes += popcount32(taken) * sb;
            }
            gcr_cache_discard(m->slices[other], line, sectors);
        }
        m->extra.fabric_bytes += far_bytes;
    } else if (a->fetch_mask && cfg->l2_partitions > 1) {
        /* Missed near: the other partitions answer across the fabric, each
         * looked up for what is still missing. Written data lives where it
         * was written, so every partition is asked; the home partition, which
         * the line's DRAM sits behind, keeps a copy of what it reads. */
        uint32_t missing = a->fetch_mask;
        for (uint32_t p = 0; p < cfg->l2_partitions && missing; p++) {
            uint32_t valid;
            if (p == near || p == home)
                continue;
            far_slice = p * per_part + global % per_part;
            if (m->timing)
                gcr_timing_fabric_lookup(m->timing, slice, far_slice);
            if (!gcr_cache_probe(m->slices[far_slice], line, &valid))
                continue;
            m->extra.far_lookups += popcount32(missing);
            m->extra.far_hits += popcount32(missing & valid);
            missing &= ~valid;
        }
        if (missing && home != near) {
            struct gcr_cache_stats far = {0};
            far_slice = home_slice;
            if (m->timing)
                gcr_timing_fabric_lookup(m->timing, slice, far_slice);
            struct gcr_cache *hs = m->slices[far_slice];
            struct gcr_access fa;
            gcr_cache_swap_stats(hs, &far); /* the fabric's lookups, not the SMs' */
            gcr_cache_access(hs, line, missing, false, &fa);
            gcr_cache_swap_stats(hs, &far);
            m->extra.far_lookups += popcount32(missing);
            m->extra.far_hits += popcount32(missing & ~fa.fetch_mask);
            m->traffic.dram_write_bytes +=
                (uint64_t)(popcount32(fa.forward_mask) + popcount32(fa.victim_dirty)) * sb;
            missing = fa.fetch_mask;
        }
        far_bytes = popcount32(a->fetch_mask & ~missing) * sb;
        m->extra.fabric_bytes += far_bytes;
        from_dram = missing;
    }
    if (from_dram && !is_write && gcr_l2_promotes(cfg) && (!insn || insn->op == GCR_OP_LOAD))
        from_dram = promote_fetch(m, slice, home_slice, line, from_dram, insn);
    after_access(m, sm, port, slice, line, sectors, is_write, insn, a, from_dram, timed, far_slice,
                 far_bytes);
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
    if (m->silicon) {
        slice_access_silicon(m, sm, port, line, sectors, is_write, write_bytes, insn, a);
        return;
    }
    uint32_t slice = gcr_config_slice_of(m->cfg, line);
    bool timed = gcr_memsys_sends_messages(m);
    if (timed)
        gcr_memsys_send(m, GCR_NET_L2, port, slice, is_write ? write_bytes : 0, true, sm, insn,
                        line);
    gcr_cache_access(m->slices[slice], line, sectors, is_write, a);
    after_access(m, sm, port, slice, line, sectors, is_write, insn, a, a->fetch_mask, timed, NO_FAR,
                 0);
}

void gcr_memsys_prefetch(const struct gcr_memsys *m, uint64_t line, struct gcr_cache_hint *h)
{
    if (m->chips)
        h->cache = NULL;
    else
        gcr_cache_prefetch(m->slices[gcr_config_slice_of(m->cfg, line)], line, h);
}

/* The slice a request from port goes to for line: the line's slice, in the
 * port's own partition when the L2 has several (slice_access_silicon). */
static uint32_t slice_for_port(const struct gcr_memsys *m, uint32_t port, uint64_t line)
{
    uint32_t global = gcr_config_slice_of(m->cfg, line);
    if (m->cfg->l2_partitions <= 1)
        return global;
    uint32_t per_part = m->cfg->l2_slices / m->cfg->l2_partitions;
    return partition_of_port(m, port) * per_part + global % per_part;
}

/* Timed, the request coalescer merges a read with one in flight
 * (request_coalescer.h): each sector it answers gets its reply from the
 * slice's side when the data in flight is back. Returns the sectors that go
 * on to their slice. */
static uint32_t coalesce_timed(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line,
                               uint32_t sectors)
{
    uint32_t sb = m->cfg->sector_bytes, part = partition_of_port(m, port), left = sectors;
    double arrive = gcr_timing_l2_arrival(m->timing), ready;
    for (uint32_t rest = sectors; rest; rest &= rest - 1)
        if (gcr_request_coalescer_read_timed(&m->coalescer,
                                             line + (uint64_t)__builtin_ctz(rest) * sb, sm, part,
                                             arrive, &ready)) {
            gcr_timing_merged_reply(m->timing, slice_for_port(m, port, line), port, sb, ready);
            left &= ~(rest & -rest);
        }
    return left;
}

/* Timed, the reads that went on to their slice: in flight until their data,
 * just timed, is back at the coalescer. */
static void coalescer_sent(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line,
                           uint32_t sectors)
{
    uint32_t sb = m->cfg->sector_bytes, part = partition_of_port(m, port);
    double arrive = gcr_timing_l2_arrival(m->timing), ready = gcr_timing_reply_at_slice(m->timing);
    for (uint32_t rest = sectors; rest; rest &= rest - 1)
        gcr_request_coalescer_sent(&m->coalescer, line + (uint64_t)__builtin_ctz(rest) * sb, sm,
                                   part, arrive, ready);
}

/* In sector granularity every sector is its own L2 request, as GPGPU-Sim
 * breaks L1 misses into 32-B sector requests at the memory partition. */
static inline __attribute__((always_inline)) void
l2_request(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line, uint32_t sectors,
           bool is_write, uint32_t write_bytes, const struct gcr_warp_insn *insn, bool atomic)
{
    struct gcr_access a;
    bool timed_merging = false;
    if (m->coalescer.table) {
        /* Reads the coalescer answers never reach a slice; writes and atomics
         * end what is in flight for their sectors. */
        uint32_t sb = m->cfg->sector_bytes, part = partition_of_port(m, port), left = sectors;
        timed_merging = m->timing && !is_write && !atomic;
        if (timed_merging)
            left = coalesce_timed(m, sm, port, line, sectors);
        else
            for (uint32_t rest = sectors; rest; rest &= rest - 1) {
                uint64_t sector_addr = line + (uint64_t)__builtin_ctz(rest) * sb;
                if (is_write || atomic)
                    gcr_request_coalescer_write(&m->coalescer, sector_addr);
                else if (gcr_request_coalescer_read(&m->coalescer, sector_addr, sm, part))
                    left &= ~(rest & -rest);
            }
        m->extra.merged_sectors += popcount32(sectors & ~left);
        sectors = left;
        if (!sectors)
            return;
    }
    if (m->cfg->granularity == GCR_GRAN_LINE) {
        slice_access(m, sm, port, line, sectors, is_write, write_bytes, insn, &a);
        if (timed_merging)
            coalescer_sent(m, sm, port, line, sectors);
        return;
    }
    /* Store data is split evenly over the sector requests (whole bytes). */
    uint32_t n = popcount32(sectors), k = 0;
    for (uint32_t rest = sectors; rest; rest &= rest - 1, k++) {
        uint32_t share = write_bytes / n + (k < write_bytes % n);
        slice_access(m, sm, port, line, rest & -rest, is_write, share, insn, &a);
        if (timed_merging)
            coalescer_sent(m, sm, port, line, rest & -rest);
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
        l2_request(m, sm, port, line, sectors, false, 0, insn, false);
}

void gcr_memsys_write(struct gcr_memsys *m, uint32_t sm, uint32_t port, uint64_t line,
                      uint32_t sectors, uint32_t bytes, const struct gcr_warp_insn *insn)
{
    m->traffic.l1_to_l2_write_bytes += bytes;
    m->written_valid = false; /* another line, or another store */
    if (m->chips)
        gcr_chips_request(m->chips, sm, port, line, sectors, GCR_CHIPS_WRITE, bytes, insn);
    else
        l2_request(m, sm, port, line, sectors, true, bytes, insn, false);
}

void gcr_memsys_writeback(struct gcr_memsys *m, uint32_t port, uint64_t line, uint32_t dirty)
{
    uint32_t bytes = popcount32(dirty) * m->cfg->sector_bytes;
    m->traffic.l1_writeback_bytes += bytes;
    m->written_valid = false;
    if (m->chips)
        gcr_chips_request(m->chips, UINT32_MAX, port, line, dirty, GCR_CHIPS_WRITE, bytes, NULL);
    else
        l2_request(m, UINT32_MAX, port, line, dirty, true, bytes, NULL, false);
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
    if (m->cfg->l2_partitions > 1) { /* the near copy, as slice_access_silicon */
        uint32_t per_part = m->cfg->l2_slices / m->cfg->l2_partitions;
        slice = partition_of_port(m, port) * per_part + slice % per_part;
    }
    struct gcr_access a;
    struct gcr_cache_stats apart = {0};
    if (m->cfg->l2_counting_nsight) /* counted as atomics, not as reads */
        gcr_cache_swap_stats(m->slices[slice], &apart);
    l2_request(m, sm, port, line, sectors, false, 0, insn, true);
    if (m->cfg->l2_counting_nsight) {
        gcr_cache_swap_stats(m->slices[slice], &apart);
        m->extra.atomic_sectors += apart.sectors_requested[0];
        m->extra.atomic_hits += apart.sectors_requested[0] - apart.sectors_missed[0];
    }
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
    if (m->coalescer.table)
        gcr_request_coalescer_drain(&m->coalescer);
    if (m->chips)
        gcr_chips_kernel_begin(m->chips);
}

void gcr_memsys_kernel_end(struct gcr_memsys *m)
{
    if (m->chips)
        gcr_chips_kernel_end(m->chips);
}
