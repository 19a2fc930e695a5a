/* Multi-chip GPUs: see chips.h; user documentation and the reasons for every
 * choice the paper leaves open: examples/sac/README.md.
 *
 * A functional replay's L1 behaviour does not depend on the LLC, so both LLC
 * organisations are fed the same L1 miss stream in one pass: the configured
 * one (chips.llc) is the report's L2 (its slices are the memory system's, it
 * publishes events and counts the traffic section); the other, when
 * chips.shadow is on, is replayed beside it on its own slices and only shows
 * in the "multichip" section. */
#include "multichip/chips.h"

#include <stdlib.h>
#include <string.h>

#include "cache/cache_internal.h" /* the set index of a line, computed once per geometry */
#include "core/bits.h"
#include "replay/memsys.h"

/* --------------------------------------------------------------- chips */

/* Per-chip counters of one organisation; each is an array of N (chips). */
enum {
    C_REQ,       /* LLC requests from the chip's SMs */
    C_LOCAL,     /* ... of them to lines homed on the chip */
    C_ACC,       /* accesses to the chip's LLC slices */
    C_HIT,       /* ... that hit */
    C_DRAM_RD,   /* bytes read from the chip's DRAM */
    C_DRAM_WR,   /* bytes written to the chip's DRAM */
    C_LINK_OUT,  /* payload bytes sent on the chip's outgoing links (per hop) */
    C_LINK_MSGS, /* messages sent on the chip's outgoing links (per hop) */
    C_PER_CHIP
};

struct org {
    enum gcr_llc_org kind;
    bool primary;  /* the report's L2: events, traffic section */
    bool replayed; /* has slices (primary or shadow) */
    struct gcr_cache **slices; /* N * slices_per_chip, global numbering */
    size_t base;   /* its counters: C_PER_CHIP*N per-chip, then per-slice requests */
};

struct gcr_chips {
    struct gcr_memsys *m;
    const struct gcr_config *cfg;
    uint32_t n, spc, nslices; /* chips, slices per chip, slices in all */
    unsigned page_log2;
    struct gcr_cache_geometry geom; /* one slice */
    struct gcr_set_index set_index; /* of geom */
    unsigned line_log2, chan_log2;
    struct org org[GCR_LLC_ORG_COUNT];
    struct gcr_pages pages;
    struct gcr_crd *crd; /* per chip */
    /* Per set of a chip (slice by slice): its directory set, or NOT_SAMPLED;
     * the same in every chip. */
    uint32_t *crd_set_of;
    /* Counters: both organisations, then CRD hits/requests and pages per chip. */
    uint64_t *now, *kernel_then, *window;
    size_t nctr, crd_base;
    uint64_t kernel_requests;
    bool window_taken;
};

#define CTR(x, o, k, chip) ((x)->now[(o)->base + (size_t)(k) * (x)->n + (chip)])
#define SLICE_CTR(x, o, slice) ((x)->now[(o)->base + (size_t)C_PER_CHIP * (x)->n + (slice)])
/* DRAM bytes (read + written) per channel, chip by chip, after the slices. */
#define CHAN_BASE(x, o) ((o)->base + (size_t)C_PER_CHIP * (x)->n + (x)->nslices)
enum { K_CRD_HITS, K_CRD_REQ, K_PAGES, K_COUNT };
#define NOT_SAMPLED UINT32_MAX
#define XCTR(x, k, chip) ((x)->now[(x)->crd_base + (size_t)(k) * (x)->n + (chip)])

int gcr_chips_create(struct gcr_chips **out, struct gcr_memsys *m, struct gcr_err *err)
{
    const struct gcr_config *cfg = m->cfg;
    const struct gcr_chips_config *cc = &cfg->chips;
    struct gcr_chips *x = calloc(1, sizeof *x);
    *out = NULL;
    if (!x)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    x->m = m;
    x->cfg = cfg;
    x->n = cc->count;
    x->spc = cc->slices_per_chip;
    x->nslices = cfg->l2_slices;
    x->page_log2 = (unsigned)__builtin_ctzll(cc->page_bytes);
    x->geom = *gcr_cache_geometry(m->slices[0]);
    gcr_set_index_init(&x->set_index, &x->geom);
    x->line_log2 = (unsigned)__builtin_ctz(cfg->line_bytes);
    x->chan_log2 = (unsigned)__builtin_ctz(cc->channels);
    size_t per_org = (size_t)C_PER_CHIP * x->n + x->nslices + (size_t)x->n * cc->channels;
    for (int o = 0; o < GCR_LLC_ORG_COUNT; o++) {
        struct org *g = &x->org[o];
        g->kind = (enum gcr_llc_org)o;
        g->primary = g->kind == cc->llc;
        g->replayed = g->primary || cc->shadow;
        g->base = per_org * (size_t)o;
    }
    x->crd_base = per_org * GCR_LLC_ORG_COUNT;
    x->nctr = x->crd_base + (size_t)K_COUNT * x->n;
    x->now = calloc(x->nctr, sizeof *x->now);
    x->kernel_then = calloc(x->nctr, sizeof *x->now);
    x->window = calloc(x->nctr, sizeof *x->now);
    x->crd = calloc(x->n, sizeof *x->crd);
    if (!x->now || !x->kernel_then || !x->window || !x->crd) {
        gcr_chips_destroy(x);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    x->org[cc->llc].slices = m->slices;
    struct org *shadow = &x->org[cc->llc == GCR_LLC_SM_SIDE ? GCR_LLC_MEMORY_SIDE
                                                            : GCR_LLC_SM_SIDE];
    if (shadow->replayed) {
        if (!(shadow->slices = calloc(x->nslices, sizeof *shadow->slices))) {
            gcr_chips_destroy(x);
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        }
        for (uint32_t i = 0; i < x->nslices; i++) {
            struct gcr_cache_geometry g = x->geom;
            g.seed = x->geom.seed + i + 0x5ac;
            if (!(shadow->slices[i] = gcr_cache_create(&g, err))) {
                gcr_chips_destroy(x);
                return -1;
            }
        }
    }
    size_t chip_sets = (size_t)x->spc * x->geom.sets;
    if (!(x->crd_set_of = malloc(chip_sets * sizeof *x->crd_set_of))) {
        gcr_chips_destroy(x);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < chip_sets; i++)
        x->crd_set_of[i] = NOT_SAMPLED;
    for (uint32_t k = 0; k < cc->crd_sets; k++) {
        uint32_t slice, set;
        gcr_crd_sample(k, cc->crd_sets, x->spc, x->geom.sets, &slice, &set);
        x->crd_set_of[(size_t)slice * x->geom.sets + set] = k;
    }
    /* At the home (SAC): one bit set per chip. At the requester: the chip's
     * own requests only, so one "chip" per directory. */
    uint32_t bits = cc->crd_at_requester ? 1 : x->n;
    for (uint32_t c = 0; c < x->n; c++)
        if (gcr_crd_init(&x->crd[c], cc->crd_sets, cc->crd_ways, bits, err) != 0) {
            gcr_chips_destroy(x);
            return -1;
        }
    *out = x;
    return 0;
}

void gcr_chips_destroy(struct gcr_chips *x)
{
    if (!x)
        return;
    for (int o = 0; o < GCR_LLC_ORG_COUNT; o++) {
        struct org *g = &x->org[o];
        if (g->slices && !g->primary) {
            for (uint32_t i = 0; i < x->nslices; i++)
                gcr_cache_destroy(g->slices[i]);
            free(g->slices);
        }
    }
    if (x->crd)
        for (uint32_t c = 0; c < x->n; c++)
            gcr_crd_fini(&x->crd[c]);
    free(x->crd);
    free(x->crd_set_of);
    gcr_pages_fini(&x->pages);
    free(x->now);
    free(x->kernel_then);
    free(x->window);
    free(x);
}

/* The configured l2.slice_hash over n slices (the chip's), as
 * gcr_config_slice_of does over all slices of a single chip. */
static uint32_t hash_of(const struct gcr_config *cfg, uint64_t granule, uint32_t n)
{
    if (n == 1)
        return 0;
    if (cfg->l2_slice_hash == GCR_SLICE_LINEAR)
        return (uint32_t)(granule % n);
    if (cfg->l2_slice_hash == GCR_SLICE_IPOLY)
        return gcr_ipoly_hash(granule >> __builtin_ctz(n), (uint32_t)(granule & (n - 1)), n);
    unsigned bits = (unsigned)__builtin_ctz(n);
    uint64_t h = 0;
    for (uint64_t g = granule; g; g >>= bits)
        h ^= g & (n - 1);
    return (uint32_t)h;
}

/* DRAM channel of a line inside its chip: the top bits of a xor-shift-multiply
 * mix of the line number, so any stride spreads over all channels (SAC's PAE
 * mapping is not specified beyond spreading accesses evenly). */
static uint32_t channel_of(const struct gcr_chips *x, uint64_t line)
{
    if (!x->chan_log2)
        return 0;
    return (uint32_t)(gcr_hash_fmix64(line >> x->line_log2) >> (64 - x->chan_log2));
}

/* A message from chip a to chip b over the ring, hop by hop on the shortest
 * way (clockwise, i.e. increasing chip number, when both ways are equal). */
static void link_path(struct gcr_chips *x, struct org *o, uint32_t a, uint32_t b, uint32_t bytes,
                      bool downstream, uint32_t sm, const struct gcr_warp_insn *insn)
{
    uint32_t n = x->n, fwd = (b + n - a) % n;
    bool clockwise = fwd <= n - fwd;
    bool timed = o->primary && gcr_memsys_sends_messages(x->m);
    while (a != b) {
        uint32_t next = clockwise ? (a + 1) % n : (a + n - 1) % n;
        CTR(x, o, C_LINK_OUT, a) += bytes;
        CTR(x, o, C_LINK_MSGS, a)++;
        if (timed)
            gcr_memsys_send(x->m, GCR_NET_CHIP_LINK, a, next, bytes, downstream, sm, insn, 0);
        a = next;
    }
}

/* DRAM traffic of chip `chip`, on behalf of global slice `slice`. */
static void dram(struct gcr_chips *x, struct org *o, uint32_t chip, uint32_t slice, uint64_t line,
                 uint32_t rd, uint32_t wr, uint32_t sm, const struct gcr_warp_insn *insn)
{
    if (!(rd | wr))
        return; /* an LLC hit: nothing reaches the memory */
    CTR(x, o, C_DRAM_RD, chip) += rd;
    CTR(x, o, C_DRAM_WR, chip) += wr;
    x->now[CHAN_BASE(x, o) + (size_t)chip * x->cfg->chips.channels + channel_of(x, line)] +=
        rd + wr;
    if (!o->primary)
        return;
    x->m->traffic.dram_read_bytes += rd;
    x->m->traffic.dram_write_bytes += wr;
    if (gcr_memsys_sends_messages(x->m)) {
        if (wr)
            gcr_memsys_send(x->m, GCR_NET_DRAM, slice, slice, wr, true, sm, insn, line);
        if (rd) {
            gcr_memsys_send(x->m, GCR_NET_DRAM, slice, slice, 0, true, sm, insn, line);
            gcr_memsys_send(x->m, GCR_NET_DRAM, slice, slice, rd, false, sm, insn, line);
        }
    }
}

static uint32_t home_of_line(struct gcr_chips *x, uint64_t line)
{
    uint32_t h = gcr_pages_lookup(&x->pages, line >> x->page_log2);
    return h == UINT32_MAX ? 0 : h; /* a resident line's page is always placed */
}

/* Dirty sectors leaving chip c's LLC for their home's DRAM. */
static void write_home(struct gcr_chips *x, struct org *o, uint32_t c, uint32_t ls, uint64_t line,
                       uint32_t bytes, uint32_t sm, const struct gcr_warp_insn *insn)
{
    if (!bytes)
        return;
    uint32_t h = home_of_line(x, line);
    if (h != c)
        link_path(x, o, c, h, bytes, true, sm, insn);
    dram(x, o, h, h * x->spc + ls, line, 0, bytes, sm, insn);
}

static void emit_access(struct gcr_chips *x, enum gcr_event_kind kind, uint32_t slice, uint32_t sm,
                        uint64_t line, uint32_t sectors, bool is_write,
                        const struct gcr_warp_insn *insn, const struct gcr_access *a)
{
    gcr_bus_emit_cache(x->m->bus, kind, slice, sm, 0, 0, insn, line, sectors, is_write, a);
}

/* One request of chip c for a line homed on chip h, through organisation o. */
static void org_request(struct gcr_chips *x, struct org *o, uint32_t c, uint32_t h, uint32_t ls,
                        uint32_t sm, uint32_t port, uint64_t line, uint32_t sectors,
                        enum gcr_chips_kind kind, uint32_t write_bytes,
                        const struct gcr_warp_insn *insn)
{
    uint32_t sb = x->cfg->sector_bytes;
    bool is_write = kind == GCR_CHIPS_WRITE;
    uint32_t req_bytes = is_write ? write_bytes : 0;
    uint32_t reply_bytes = is_write ? 0 : gcr_bits_popcount32(sectors) * sb;
    bool mem_side = o->kind == GCR_LLC_MEMORY_SIDE;
    /* Memory-side: the home chip's slice; SM-side: the requester's own. */
    uint32_t at = mem_side ? h : c;
    uint32_t slice = at * x->spc + ls;
    bool timed = o->primary && gcr_memsys_sends_messages(x->m);
    CTR(x, o, C_REQ, c)++;
    if (c == h)
        CTR(x, o, C_LOCAL, c)++;
    SLICE_CTR(x, o, slice)++;
    if (!o->replayed)
        return; /* routing counters only (the LSU needs no cache) */
    CTR(x, o, C_ACC, at)++;
    /* Messages are published in the order they travel, so that a timing
     * backend can chain them: a memory-side remote request crosses the ring
     * before it reaches the home chip's slice. */
    if (mem_side && c != h)
        link_path(x, o, c, h, req_bytes, true, sm, insn);
    if (timed)
        gcr_memsys_send(x->m, GCR_NET_L2, port, slice, req_bytes, true, sm, insn, line);

    if (!mem_side && c != h && kind == GCR_CHIPS_ATOMIC) {
        /* An SM-side atomic on a remote line cannot use the requester's copy
         * (software coherence): it bypasses both LLCs and is performed at the
         * home chip's memory, a read and a write there. It counts as a miss. */
        link_path(x, o, c, h, 0, true, sm, insn);
        dram(x, o, h, h * x->spc + ls, line, reply_bytes, reply_bytes, sm, insn);
        link_path(x, o, h, c, reply_bytes, false, sm, insn);
        if (timed)
            gcr_memsys_send(x->m, GCR_NET_L2, slice, port, reply_bytes, false, sm, insn, line);
        return;
    }
    struct gcr_access a;
    gcr_cache_access(o->slices[slice], line, sectors, is_write, &a);
    if (a.outcome == GCR_HIT)
        CTR(x, o, C_HIT, at)++;
    uint32_t fetch = gcr_bits_popcount32(a.fetch_mask) * sb;
    uint32_t forward = gcr_bits_popcount32(a.forward_mask) * sb;
    uint32_t victim = gcr_bits_popcount32(a.victim_dirty) * sb;
    if (mem_side) {
        /* Everything in a memory-side slice is homed on its chip: all its
         * misses and write-backs use the local memory. */
        dram(x, o, h, slice, line, fetch, forward + victim, sm, insn);
    } else {
        if (fetch) {
            if (h == c) {
                dram(x, o, c, slice, line, fetch, 0, sm, insn);
            } else {
                /* SR miss: to the home chip, past its LLC, to its memory; the
                 * reply is inserted in the requester's slice (done above). */
                link_path(x, o, c, h, 0, true, sm, insn);
                dram(x, o, h, h * x->spc + ls, line, fetch, 0, sm, insn);
                link_path(x, o, h, c, fetch, false, sm, insn);
            }
        }
        write_home(x, o, c, ls, line, forward, sm, insn);
        if (a.evicted)
            write_home(x, o, c, ls, a.victim_line, victim, sm, insn);
    }
    if (o->primary && gcr_bus_wants(x->m->bus, GCR_EV_L2_ACCESS))
        emit_access(x, GCR_EV_L2_ACCESS, slice, sm, line, sectors, is_write, insn, &a);
    if (o->primary && a.evicted && gcr_bus_wants(x->m->bus, GCR_EV_L2_EVICT))
        emit_access(x, GCR_EV_L2_EVICT, slice, sm, a.victim_line, a.victim_valid, false, NULL, &a);
    if (kind == GCR_CHIPS_ATOMIC) {
        /* As on one chip: the result stays dirty in a write-back LLC, else
         * it is written to the line's home memory. */
        if (x->geom.write_policy == GCR_WRITE_BACK) {
            struct gcr_access f;
            gcr_cache_fill(o->slices[slice], line, sectors, true, &f);
        } else if (mem_side) {
            dram(x, o, h, slice, line, 0, reply_bytes, sm, insn);
        } else {
            write_home(x, o, c, ls, line, reply_bytes, sm, insn);
        }
    }
    if (mem_side && c != h && !is_write)
        link_path(x, o, h, c, reply_bytes, false, sm, insn);
    if (timed && !is_write)
        gcr_memsys_send(x->m, GCR_NET_L2, slice, port, reply_bytes, false, sm, insn, line);
}

static void take_window(struct gcr_chips *x)
{
    memcpy(x->window, x->now, x->nctr * sizeof *x->now);
    x->window_taken = true;
}

static void one_request(struct gcr_chips *x, uint32_t c, uint32_t sm, uint32_t port,
                        uint64_t line, uint32_t sectors, enum gcr_chips_kind kind,
                        uint32_t write_bytes, const struct gcr_warp_insn *insn)
{
    int h = gcr_pages_home(&x->pages, line >> x->page_log2, c);
    if (h < 0)
        h = (int)c; /* out of memory for the page table: treat the page as local */
    uint64_t granule = line >> x->cfg->l2_interleave_log2;
    uint32_t ls = hash_of(x->cfg, granule, x->spc);
    /* The CRD samples sets of a chip's LLC: SAC's at the home chip sees every
     * chip's requests to its lines (a bit per chip); crd.at = "requester"
     * keeps one at each requesting chip for its own requests to any home,
     * which sees the capacity its SM-side LLC would have. Every chip's slices
     * have the same sets, so the sampled set of a line is the same in both. */
    uint32_t crd_set =
        x->crd_set_of[(size_t)ls * x->geom.sets + gcr_set_index_of(&x->set_index, line)];
    if (crd_set != NOT_SAMPLED) {
        bool at_req = x->cfg->chips.crd_at_requester;
        uint32_t dir = at_req ? c : (uint32_t)h;
        if (gcr_crd_access(&x->crd[dir], crd_set, line, at_req ? 0 : c, sectors))
            XCTR(x, K_CRD_HITS, dir)++;
        XCTR(x, K_CRD_REQ, dir)++;
    }
    for (int o = 0; o < GCR_LLC_ORG_COUNT; o++)
        org_request(x, &x->org[o], c, (uint32_t)h, ls, sm, port, line, sectors, kind, write_bytes,
                    insn);
    if (++x->kernel_requests == x->cfg->chips.profile_requests)
        take_window(x);
}

void gcr_chips_request(struct gcr_chips *x, uint32_t sm, uint32_t port, uint64_t line,
                       uint32_t sectors, enum gcr_chips_kind kind, uint32_t write_bytes,
                       const struct gcr_warp_insn *insn)
{
    /* Write-backs have no SM: they come from the chip of their memory port
     * (an L1 instance: the SM itself for private L1s, a DC-L1 node). */
    uint32_t c = sm != UINT32_MAX ? gcr_chip_of_sm(sm, x->cfg->num_sms, x->n)
                                  : (uint32_t)((uint64_t)port * x->n / x->m->num_ports);
    uint64_t used = x->pages.used;
    if (x->cfg->granularity == GCR_GRAN_LINE) {
        one_request(x, c, sm, port, line, sectors, kind, write_bytes, insn);
    } else {
        /* Store data is split evenly over the sector requests (whole bytes). */
        uint32_t n = gcr_bits_popcount32(sectors), k = 0;
        for (uint32_t rest = sectors; rest; rest &= rest - 1, k++) {
            uint32_t share = write_bytes / n + (k < write_bytes % n);
            one_request(x, c, sm, port, line, rest & -rest, kind, share, insn);
        }
    }
    if (x->pages.used != used) /* first touch: the page was placed on c */
        XCTR(x, K_PAGES, c) += x->pages.used - used;
}

void gcr_chips_kernel_begin(struct gcr_chips *x)
{
    memcpy(x->kernel_then, x->now, x->nctr * sizeof *x->now);
    x->kernel_requests = 0;
    x->window_taken = false;
    /* The SM-side LLCs start every kernel empty, so does the directory. */
    for (uint32_t c = 0; c < x->n; c++)
        gcr_crd_clear(&x->crd[c]);
}

struct flush_ctx {
    struct gcr_chips *x;
    struct org *o;
    uint32_t chip, ls;
};

static void flush_dirty(void *ctx, uint64_t line, uint32_t dirty)
{
    struct flush_ctx *f = ctx;
    write_home(f->x, f->o, f->chip, f->ls, line,
               gcr_bits_popcount32(dirty) * f->x->cfg->sector_bytes, UINT32_MAX, NULL);
}

void gcr_chips_kernel_end(struct gcr_chips *x)
{
    if (!x->window_taken) /* a kernel shorter than the window: the window is the kernel */
        take_window(x);
    /* Software coherence: SM-side LLCs may hold stale copies of other chips'
     * lines, so they are written back and invalidated at kernel boundaries. */
    struct org *o = &x->org[GCR_LLC_SM_SIDE];
    if (!o->replayed)
        return;
    for (uint32_t c = 0; c < x->n; c++)
        for (uint32_t ls = 0; ls < x->spc; ls++) {
            struct flush_ctx f = {x, o, c, ls};
            gcr_cache_invalidate_all(o->slices[c * x->spc + ls], flush_dirty, &f);
        }
}

/* ------------------------------------------------------------- report */

/* Counters of a period: now - then. */
struct period {
    const struct gcr_chips *x;
    const uint64_t *now, *then;
};

static uint64_t pget(const struct period *p, size_t i) { return p->now[i] - p->then[i]; }

static uint64_t org_sum(const struct period *p, const struct org *o, int k)
{
    uint64_t s = 0;
    for (uint32_t c = 0; c < p->x->n; c++)
        s += pget(p, o->base + (size_t)k * p->x->n + c);
    return s;
}

static uint64_t extra_sum(const struct period *p, int k)
{
    uint64_t s = 0;
    for (uint32_t c = 0; c < p->x->n; c++)
        s += pget(p, p->x->crd_base + (size_t)k * p->x->n + c);
    return s;
}

static json_t *ratio(uint64_t a, uint64_t b)
{
    return b ? json_real((double)a / (double)b) : json_null();
}

/* LSU of one chip's slices in organisation o. */
static double chip_lsu(const struct period *p, const struct org *o, uint32_t chip, bool *any)
{
    const struct gcr_chips *x = p->x;
    uint32_t n = x->spc;
    uint64_t *r = malloc(n * sizeof *r);
    *any = false;
    if (!r)
        return 1.0;
    for (uint32_t i = 0; i < n; i++) {
        r[i] = pget(p, o->base + (size_t)C_PER_CHIP * x->n + chip * n + i);
        *any |= r[i] != 0;
    }
    double lsu = gcr_eab_lsu(r, n);
    free(r);
    return lsu;
}

/* The LSU the model uses (eab.lsu_scope): over all slices of the system, so
 * that lines homed on few chips count as unevenly spread ("system"), or the
 * mean over the chips whose slices saw requests of each chip's LSU ("chip"). */
static double org_lsu(const struct period *p, const struct org *o)
{
    const struct gcr_chips *x = p->x;
    if (!x->cfg->chips.lsu_per_chip) {
        uint64_t *r = malloc(x->nslices * sizeof *r);
        if (!r)
            return 1.0;
        for (uint32_t i = 0; i < x->nslices; i++)
            r[i] = pget(p, o->base + (size_t)C_PER_CHIP * x->n + i);
        double lsu = gcr_eab_lsu(r, x->nslices);
        free(r);
        return lsu;
    }
    double sum = 0;
    uint32_t chips = 0;
    for (uint32_t c = 0; c < x->n; c++) {
        bool any;
        double l = chip_lsu(p, o, c, &any);
        if (any) {
            sum += l;
            chips++;
        }
    }
    return chips ? sum / chips : 1.0;
}

static json_t *per_chip(const struct period *p, const struct org *o, int k)
{
    json_t *a = json_array();
    for (uint32_t c = 0; c < p->x->n; c++)
        json_array_append_new(a, json_integer((json_int_t)pget(p, o->base + (size_t)k * p->x->n + c)));
    return a;
}

static json_t *org_json(const struct period *p, const struct org *o)
{
    const struct gcr_chips *x = p->x;
    json_t *j = json_object();
    uint64_t req = org_sum(p, o, C_REQ), local = org_sum(p, o, C_LOCAL);
    json_object_set_new(j, "replayed", json_boolean(o->replayed));
    json_object_set_new(j, "role", json_string(o->primary ? "l2" : o->replayed ? "shadow" : "routing_only"));
    json_object_set_new(j, "requests", json_integer((json_int_t)req));
    json_object_set_new(j, "local_requests", json_integer((json_int_t)local));
    json_object_set_new(j, "remote_requests", json_integer((json_int_t)(req - local)));
    json_t *slices = json_array();
    for (uint32_t i = 0; i < x->nslices; i++)
        json_array_append_new(slices, json_integer((json_int_t)pget(
                                          p, o->base + (size_t)C_PER_CHIP * x->n + i)));
    json_object_set_new(j, "per_slice_requests", slices);
    json_t *lsu = json_array();
    for (uint32_t c = 0; c < x->n; c++) {
        bool any;
        json_array_append_new(lsu, json_real(chip_lsu(p, o, c, &any)));
    }
    json_object_set_new(j, "lsu_per_chip", lsu);
    json_object_set_new(j, "lsu", json_real(org_lsu(p, o)));
    if (!o->replayed)
        return j;
    uint64_t acc = org_sum(p, o, C_ACC), hit = org_sum(p, o, C_HIT);
    json_object_set_new(j, "llc_accesses", json_integer((json_int_t)acc));
    json_object_set_new(j, "llc_hits", json_integer((json_int_t)hit));
    json_object_set_new(j, "llc_hit_rate", ratio(hit, acc));
    json_object_set_new(j, "link_bytes", json_integer((json_int_t)org_sum(p, o, C_LINK_OUT)));
    json_object_set_new(j, "link_messages", json_integer((json_int_t)org_sum(p, o, C_LINK_MSGS)));
    json_object_set_new(j, "link_bytes_out_per_chip", per_chip(p, o, C_LINK_OUT));
    json_object_set_new(j, "dram_read_bytes_per_chip", per_chip(p, o, C_DRAM_RD));
    json_object_set_new(j, "dram_write_bytes_per_chip", per_chip(p, o, C_DRAM_WR));
    json_t *chan = json_array();
    for (uint32_t i = 0; i < x->n * x->cfg->chips.channels; i++)
        json_array_append_new(chan, json_integer((json_int_t)pget(p, CHAN_BASE(x, o) + i)));
    json_object_set_new(j, "dram_bytes_per_channel", chan);
    json_object_set_new(j, "dram_read_bytes", json_integer((json_int_t)org_sum(p, o, C_DRAM_RD)));
    json_object_set_new(j, "dram_write_bytes", json_integer((json_int_t)org_sum(p, o, C_DRAM_WR)));
    return j;
}

static json_t *eab_json(struct gcr_eab e)
{
    return json_pack("{s:f, s:f, s:f}", "local", e.local, "remote", e.remote, "total", e.total);
}

/* The EAB model on a period's counters. The SM-side hit rate comes from the
 * CRD (what SAC's hardware knows) or from the replayed SM-side LLC. */
static json_t *sac_json(const struct period *p, bool use_replayed)
{
    const struct gcr_chips *x = p->x;
    const struct gcr_chips_config *cc = &x->cfg->chips;
    const struct org *mem = &x->org[GCR_LLC_MEMORY_SIDE], *sm = &x->org[GCR_LLC_SM_SIDE];
    uint64_t req = org_sum(p, mem, C_REQ), local = org_sum(p, mem, C_LOCAL);
    uint64_t crd_h = extra_sum(p, K_CRD_HITS), crd_r = extra_sum(p, K_CRD_REQ);
    json_t *j = json_object();
    json_object_set_new(j, "requests", json_integer((json_int_t)req));
    json_object_set_new(j, "r_local", ratio(local, req));
    json_object_set_new(j, "crd_requests", json_integer((json_int_t)crd_r));
    json_object_set_new(j, "crd_hits", json_integer((json_int_t)crd_h));
    json_object_set_new(j, "crd_sm_hit_rate", ratio(crd_h, crd_r));
    uint64_t sm_acc = org_sum(p, sm, C_ACC), sm_hit = org_sum(p, sm, C_HIT);
    uint64_t mem_acc = org_sum(p, mem, C_ACC), mem_hit = org_sum(p, mem, C_HIT);
    json_object_set_new(j, "replayed_sm_hit_rate",
                        sm->replayed ? ratio(sm_hit, sm_acc) : json_null());
    json_object_set_new(j, "memory_side_hit_rate",
                        mem->replayed ? ratio(mem_hit, mem_acc) : json_null());
    json_object_set_new(j, "lsu_memory_side", json_real(org_lsu(p, mem)));
    json_object_set_new(j, "lsu_sm_side", json_real(org_lsu(p, sm)));
    bool replayed = use_replayed && sm->replayed && sm_acc;
    json_object_set_new(j, "sm_hit_source", json_string(replayed ? "replayed" : "crd"));
    if (!req || !mem->replayed || !mem_acc || (!replayed && !crd_r)) {
        /* Not enough to evaluate the model (no requests, or no sample). */
        json_object_set_new(j, "eab_memory_side", json_null());
        json_object_set_new(j, "eab_sm_side", json_null());
        json_object_set_new(j, "choice", json_null());
        return j;
    }
    struct gcr_eab_inputs in_mem = {.r_local = (double)local / (double)req,
                                    .llc_hit = (double)mem_hit / (double)mem_acc,
                                    .lsu = org_lsu(p, mem)};
    struct gcr_eab_inputs in_sm = {.r_local = in_mem.r_local,
                                   .llc_hit = replayed ? (double)sm_hit / (double)sm_acc
                                                       : (double)crd_h / (double)crd_r,
                                   .lsu = org_lsu(p, sm)};
    struct gcr_eab em = gcr_eab_model(GCR_LLC_MEMORY_SIDE, &in_mem, &cc->bw);
    struct gcr_eab es = gcr_eab_model(GCR_LLC_SM_SIDE, &in_sm, &cc->bw);
    json_object_set_new(j, "eab_memory_side", eab_json(em));
    json_object_set_new(j, "eab_sm_side", eab_json(es));
    json_object_set_new(j, "choice",
                        json_string(gcr_llc_org_name(gcr_eab_decide(em.total, es.total,
                                                                    cc->theta))));
    return j;
}

json_t *gcr_chips_report(struct gcr_chips *x, bool kernel)
{
    uint64_t *zero = calloc(x->nctr, sizeof *zero);
    if (!zero)
        return NULL;
    struct period p = {x, x->now, kernel ? x->kernel_then : zero};
    json_t *j = json_object();
    json_object_set_new(j, "chips", json_integer(x->n));
    json_object_set_new(j, "llc", json_string(gcr_llc_org_name(x->cfg->chips.llc)));
    json_t *pages = json_array();
    for (uint32_t c = 0; c < x->n; c++)
        json_array_append_new(pages, json_integer((json_int_t)pget(
                                         &p, x->crd_base + (size_t)K_PAGES * x->n + c)));
    json_object_set_new(j, "pages_placed_per_chip", pages);
    for (int o = 0; o < GCR_LLC_ORG_COUNT; o++)
        json_object_set_new(j, gcr_llc_org_name((enum gcr_llc_org)o), org_json(&p, &x->org[o]));
    json_t *sac = json_object();
    if (kernel) {
        struct period w = {x, x->window, x->kernel_then};
        json_object_set_new(sac, "window", sac_json(&w, false));
        json_object_set_new(sac, "kernel", sac_json(&p, true));
    } else {
        json_object_set_new(sac, "run", sac_json(&p, true));
    }
    /* Filled by a timing backend when one runs: the organisation with the
     * shorter estimated runtime, to validate the model's choice against. */
    json_object_set_new(sac, "runtime_winner", json_null());
    json_object_set_new(j, "sac", sac);
    free(zero);
    return j;
}
