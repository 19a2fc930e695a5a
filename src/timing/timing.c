/* The timing model: resources with a next-free time, per-SM L1 ports and
 * MSHRs, and the walk of each request's message chain through them.
 * src/timing/README.md explains every figure; time is in core cycles
 * (double, so rates need not divide evenly). */
#include "timing/timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- resources */

/* A resource serves one message at a time at `cpb` core cycles per byte.
 *
 * Messages are presented in issue order, not in the order they reach the
 * resource: a reply timed far ahead (behind a DRAM queue) can be presented
 * before a request that arrives earlier. Serving strictly in presentation
 * order would leave the resource idle before the far one and delay the early
 * one behind it. So the resource remembers the idle gaps it has left behind
 * its next-free time (timing.resource_gaps of them) and a message that fits
 * in one at or after its arrival is served there: first come, first served
 * by arrival, up to that memory. Messages presented in arrival order are
 * served exactly FCFS. */
#define RES_GAPS 64 /* the most timing.resource_gaps allows */

struct res {
    double free_at;
    double cpb;
    double quantum;         /* bytes move in units of this many (a NoC port's flits); 0: any */
    double busy, busy_then; /* busy_then: at the current kernel's start */
    double wait;
    uint64_t msgs, bytes;
    double gap_start[RES_GAPS], gap_end[RES_GAPS];
    double gap_end_max; /* no gap ends later: most messages skip the scan */
    uint32_t ngaps, max_gaps;
};

static void gap_end_max_update(struct res *r)
{
    r->gap_end_max = 0;
    for (uint32_t k = 0; k < r->ngaps; k++)
        if (r->gap_end[k] > r->gap_end_max)
            r->gap_end_max = r->gap_end[k];
}

static void add_gap(struct res *r, double start, double end)
{
    uint32_t i = r->ngaps;
    if (!r->max_gaps)
        return;
    if (i == r->max_gaps) {
        /* Full: replace the gap that ended first if it ended before this one
         * starts (time has moved on), else the shortest if this one is longer. */
        uint32_t old = 0;
        i = 0;
        for (uint32_t k = 1; k < r->max_gaps; k++) {
            if (r->gap_end[k] < r->gap_end[old])
                old = k;
            if (r->gap_end[k] - r->gap_start[k] < r->gap_end[i] - r->gap_start[i])
                i = k;
        }
        if (r->gap_end[old] < start)
            i = old;
        else if (r->gap_end[i] - r->gap_start[i] >= end - start)
            return;
    } else {
        r->ngaps++;
    }
    r->gap_start[i] = start;
    r->gap_end[i] = end;
    gap_end_max_update(r);
}

/* How long r is busy with a message of `bytes`. */
static double duration(const struct res *r, uint32_t bytes)
{
    return (r->quantum > 0 ? ceil(bytes / r->quantum) * r->quantum : bytes) * r->cpb;
}

static double serve(struct res *r, double arrive, uint32_t bytes)
{
    double dur = duration(r, bytes);
    double start = arrive > r->free_at ? arrive : r->free_at;
    /* The earliest remembered gap that holds the whole message. */
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < r->ngaps && arrive + dur <= r->gap_end_max; i++) {
        double s = arrive > r->gap_start[i] ? arrive : r->gap_start[i];
        if (s + dur <= r->gap_end[i] && s < start) {
            start = s;
            best = i;
        }
    }
    if (best != UINT32_MAX) {
        /* Keep the larger of what is left before and after the message in
         * this slot; the other part becomes a gap of its own. */
        double gs = r->gap_start[best], ge = r->gap_end[best];
        if (ge - (start + dur) >= start - gs) {
            r->gap_start[best] = start + dur;
            if (start > gs)
                add_gap(r, gs, start);
        } else {
            r->gap_end[best] = start;
            if (ge > start + dur)
                add_gap(r, start + dur, ge);
        }
        gap_end_max_update(r);
    } else {
        if (start > r->free_at)
            add_gap(r, r->free_at, start);
        r->free_at = start + dur;
    }
    r->busy += dur;
    r->wait += start - arrive;
    r->msgs++;
    r->bytes += bytes;
    return start + dur;
}

/* A resource that takes one request a slot (an L1 bank, a miss queue, an L2 tag port)
 * used as a rate: the cycle the slot it gives a request arriving at `arrive` starts, when
 * the request goes on (the slot's latency is part of another figure). */
static double slot_start(struct res *r, double arrive)
{
    return serve(r, arrive, 1) - duration(r, 1);
}

enum res_class {
    RC_SM_INJECT,  /* memory port -> NoC (requests, store data) */
    RC_SM_EJECT,   /* NoC -> memory port (replies) */
    RC_SLICE_IN,   /* NoC -> L2 slice */
    RC_SLICE_OUT,  /* L2 slice -> NoC */
    RC_L2,         /* the slice's data array */
    RC_DRAM,       /* a DRAM channel's data bus */
    RC_CORE_L1,    /* core -> L1 network: input port of an L1 instance (DC-L1 NoC#1...) */
    RC_CORE_L1_UP, /* L1 -> core network: input port of the requesting SM */
    RC_CHIP_LINK,  /* inter-chip links, per sending chip: requests and written data */
    RC_CHIP_LINK_REPLY, /* inter-chip links, per sending chip: replies */
    RC_SHARED,     /* an SM's shared-memory banks */
    RC_L1_BANK,    /* an L1 bank's entry: one 32-B access per cycle ("bytes" = accesses) */
    RC_L2_TAGS,    /* an L2 slice's tag port: one request per L2 cycle ("bytes" = requests) */
    RC_L1_MQ,      /* an L1's miss queue: one request a cycle leaves for the NoC */
    RC_FABRIC,     /* an L2 slice's port to the fabric between L2 partitions (l2.partitions) */
    RC_COUNT
};

static const char *const class_names[RC_COUNT] = {
    "noc_sm_inject",     "noc_sm_eject",    "noc_slice_in",  "noc_slice_out", "l2_slice",
    "dram_channel",      "core_l1_in",      "core_l1_out",   "chip_link_request",
    "chip_link_reply",   "shared_memory",   "l1_bank",       "l2_tag_port",
    "l1_miss_queue",     "l2_fabric"};

struct res_class_state {
    struct res *r;
    uint32_t n;
    /* class totals at the current kernel's start */
    double wait_then;
    uint64_t msgs_then, bytes_then;
};

/* Memory latency per level where a read request was served. */
enum level { LV_L1, LV_L2, LV_DRAM, LV_COUNT };
static const char *const level_names[LV_COUNT] = {"l1_hit", "l2_hit", "dram"};

struct lat_stats {
    double sum[LV_COUNT];
    uint64_t n[LV_COUNT];
    uint64_t pending_hits;      /* L1 hits on a line still in flight (merged misses) */
    double mshr_stall;          /* cycles misses waited for a free MSHR */
    uint64_t mshr_stalls;
    uint64_t row_hits, row_misses;
    uint64_t bank_conflicts;    /* cycles an L1 access waited to enter its bank */
    uint64_t reservation_fails; /* cycles an L1 request waited for room in the miss queue */
    uint64_t merged_reads;      /* read sectors the L2 request coalescer answered */
    uint64_t l2_pending_hits;   /* L2 read hits on sectors still on their way from DRAM */
    uint64_t l2_reservation_fails; /* cycles L2 hits waited for a full fetch's data */
    uint64_t shared_bank_conflicts; /* cycles shared-memory accesses took beyond the first */
};

/* In-flight fetches per SM: key -> cycle its data arrives. Direct-mapped, so
 * a collision forgets an older fetch (its later hits then count as plain
 * hits); the table is 4x the MSHRs, so that is rare. */
struct pending {
    uint64_t key;
    double ready;
    uint32_t merged; /* the L2's: requests the fetch serves (the miss and its merges) */
};

/* The L2 keeps its sectors in flight from DRAM in a table of this many entries a slice
 * (direct-mapped: a collision forgets the older, whose later hits are then plain hits);
 * GPGPU-Sim's QV100 L2 has 192 MSHRs a slice. */
#define L2_PEND 1024u

struct sm_state {
    double ldst_free;  /* the LD/ST unit takes the SM's next memory instruction */
    double *mshr;      /* min-heap of the cycles each MSHR frees */
    struct pending *pend;
    uint64_t *amt;     /* VWS address miss table: one bit per entry */
};

/* The open-row DRAM model's state (see dram_access). */
#define DRAM_WINDOW_WORDS 1024u /* calendar: 65,536 DRAM cycles per channel */
#define DRAM_ROWS_KEPT 4        /* intervals remembered per bank */

struct dram_row_interval {
    int64_t row;   /* -1: none */
    int64_t act;   /* the activation's DRAM cycle */
    int64_t end;   /* its precharge (INT64_MAX while it is the bank's latest) */
};

struct dram_bank {
    struct dram_row_interval iv[DRAM_ROWS_KEPT];
    uint32_t latest;
    int64_t last_col; /* its last column command's slot */
};

struct dram_channel {
    uint64_t busy[DRAM_WINDOW_WORDS];  /* one bit per bus slot */
    uint64_t epoch[DRAM_WINDOW_WORDS]; /* which window a word describes */
};

struct gcr_timing {
    const struct gcr_config *cfg;
    const struct gcr_timing_config *tc;
    struct gcr_sim_info info;
    struct res_class_state cls[RC_COUNT];
    struct sm_state *sm;
    /* Per L2 slice, the sectors on their way from DRAM (as the L1's pend, L2_PEND each) */
    struct pending *l2pend;
    /* The L2 lookup of the current request (gcr_timing_l2_lookup), until its reply. */
    bool l2_known, l2_hit;
    uint32_t l2_slice, l2_sectors;
    uint64_t l2_line;
    /* Per L1 instance, its miss queue: the cycles its last l1_miss_queue requests
     * left it for the NoC (a ring; mq_next is the oldest). */
    double *mq;
    uint32_t *mq_next;
    uint32_t nl1;
    uint32_t pend_mask;
    uint32_t slices_per_channel;
    double dram_cycle; /* one DRAM clock in core cycles */
    /* open-row model: per channel x bank, per channel */
    struct dram_bank *dram_bank;
    struct dram_channel *dram_ch;

    /* time */
    double now;          /* end of the last kernel (start of the next) */
    double kernel_launch; /* when the current kernel was launched */
    double kernel_start;  /* its first possible issue: launch + launch latency */

    /* the instruction being executed */
    bool in_insn;
    uint32_t sm_id;
    double t_issue;
    enum gcr_op op;
    enum gcr_space space;
    double completion;   /* latest data return the warp waits for */
    double acked;        /* latest acknowledgement of its writes (a store's, a reduction's) */
    double accepted;     /* the cycle after its last access entered its L1 bank */
    double req_t;        /* where the current request stands before the L2 network */
    double req_leave;    /* when it left its L1 (or issued, when it bypasses the L1) */
    double chain_t;      /* where the current L2 request/reply chain stands */
    bool chain_dram;
    double reply_at_slice; /* when the last reply's data left its slice */
    bool at_l2;          /* the current request has reached an L2 slice (chain_t goes on) */
    bool core_l1_start;  /* a core->L1 hop preceded the L1 access */
    bool mshr_open;      /* the current miss holds the heap's root MSHR */
    bool from_l1;        /* the current request was looked up in an L1 (its misses and
                            write-throughs leave through that L1's miss queue) */
    uint32_t l1_unit;    /* that L1 instance */
    uint32_t l1_bank;    /* the bank resource of its last access */
    uint32_t req_sectors;/* its sectors */
    double l1_entry_at;  /* the cycle the instruction's last L1 access entered its bank */
    uint32_t l1_entered; /* its accesses that entered in that cycle */
    uint64_t miss_line;
    uint32_t miss_sectors; /* the sectors it fetches */
    double miss_ready;

    uint32_t insn_accesses, insn_new_misses; /* VWS counters of the instruction */
    uint32_t lane_bytes;                     /* bytes its active lanes access */

    struct lat_stats lat, lat_then;
    uint64_t run_warp_insns;
    uint64_t kernels;
};

void gcr_timing_destroy(struct gcr_timing *t)
{
    if (!t)
        return;
    for (int c = 0; c < RC_COUNT; c++)
        free(t->cls[c].r);
    if (t->sm)
        for (uint32_t s = 0; s < t->info.num_sms; s++) {
            free(t->sm[s].mshr);
            free(t->sm[s].pend);
            free(t->sm[s].amt);
        }
    free(t->sm);
    free(t->mq);
    free(t->mq_next);
    free(t->l2pend);
    free(t->dram_bank);
    free(t->dram_ch);
    free(t);
}

static int class_init(struct gcr_timing *t, enum res_class c, uint32_t n, double bytes_per_cycle,
                      double clock_mhz)
{
    t->cls[c].n = n;
    t->cls[c].r = calloc(n, sizeof(struct res));
    if (!t->cls[c].r)
        return -1;
    /* bytes per domain cycle -> core cycles per byte */
    double cpb = t->tc->core_mhz / (clock_mhz * bytes_per_cycle);
    for (uint32_t i = 0; i < n; i++) {
        t->cls[c].r[i].cpb = cpb;
        t->cls[c].r[i].max_gaps = t->tc->resource_gaps;
    }
    return 0;
}

/* A NoC port moves one flit (its bytes per cycle) a cycle, so a message takes
 * whole flits: GPGPU-Sim's crossbar moves one packet per port and cycle. */
static void class_in_flits(struct gcr_timing *t, enum res_class c, double flit_bytes)
{
    for (uint32_t i = 0; i < t->cls[c].n; i++)
        t->cls[c].r[i].quantum = flit_bytes;
}

/* Inter-chip links, one resource per sending chip (all its outgoing links
 * together) and direction of the protocol: requests (with written data) and
 * replies are timed far apart, so, as the NoC's ports, they do not queue
 * behind each other (src/timing/README.md). With several chips their bandwidth is the chips section's
 * eab.inter_gbs, so the timing backend and SAC's model see the same B_inter:
 * B GB/s is B bytes per nanosecond, i.e. B bytes per cycle of a 1000-MHz
 * clock. A single-chip GPU publishes no link messages; the class keeps one
 * idle instance at link_bytes so the report's classes stay the same. */
static int chip_links_init(struct gcr_timing *t)
{
    const struct gcr_chips_config *cc = &t->cfg->chips;
    for (int c = RC_CHIP_LINK; c <= RC_CHIP_LINK_REPLY; c++) {
        int bad = cc->count > 1
                      ? class_init(t, (enum res_class)c, cc->count, cc->bw.inter, 1000.0)
                      : class_init(t, (enum res_class)c, 1, t->tc->link_bytes, t->tc->noc_mhz);
        if (bad)
            return -1;
    }
    return 0;
}

int gcr_timing_create(struct gcr_timing **out, const struct gcr_sim_info *info,
                      struct gcr_err *err)
{
    struct gcr_timing *t = calloc(1, sizeof *t);
    if (!t)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    t->cfg = info->config;
    t->tc = &info->config->timing;
    t->info = *info;
    const struct gcr_timing_config *tc = t->tc;
    uint32_t S = info->num_sms, N = info->num_l2_slices;
    uint32_t ports = info->num_l1s > S ? info->num_l1s : S;
    uint32_t channels = tc->dram_channels ? tc->dram_channels : N;
    t->slices_per_channel = N / channels;
    t->dram_cycle = tc->core_mhz / tc->dram_mhz;
    t->nl1 = info->num_l1s;
    uint32_t pend = 4;
    while (pend < 4 * tc->l1_mshrs)
        pend <<= 1;
    t->pend_mask = pend - 1;
    int bad = class_init(t, RC_SM_INJECT, ports, tc->noc_port_bytes, tc->noc_mhz) ||
              class_init(t, RC_SM_EJECT, ports, tc->noc_port_bytes, tc->noc_mhz) ||
              class_init(t, RC_SLICE_IN, N, tc->noc_port_bytes, tc->noc_mhz) ||
              class_init(t, RC_SLICE_OUT, N, tc->noc_port_bytes, tc->noc_mhz) ||
              class_init(t, RC_L2, N, tc->l2_slice_bytes, tc->l2_mhz) ||
              class_init(t, RC_DRAM, channels, tc->dram_channel_bytes, tc->dram_mhz) ||
              class_init(t, RC_CORE_L1, ports, tc->link_bytes, tc->noc_mhz) ||
              class_init(t, RC_CORE_L1_UP, ports, tc->link_bytes, tc->noc_mhz) ||
              chip_links_init(t) ||
              class_init(t, RC_SHARED, S, tc->shared_bytes, tc->core_mhz);
    t->sm = calloc(S, sizeof *t->sm);
    if (tc->dram_rows) {
        t->dram_bank = calloc((size_t)channels * tc->dram_banks, sizeof *t->dram_bank);
        t->dram_ch = calloc(channels, sizeof *t->dram_ch);
        bad = bad || !t->dram_bank || !t->dram_ch;
    }
    bad = bad || class_init(t, RC_L1_BANK, t->nl1 * tc->l1_banks, 1, tc->core_mhz) ||
          class_init(t, RC_L2_TAGS, N, 1, tc->l2_mhz) ||
          class_init(t, RC_L1_MQ, t->nl1, 1, tc->core_mhz) ||
          class_init(t, RC_FABRIC, N, tc->noc_port_bytes, tc->noc_mhz);
    t->mq = calloc((size_t)t->nl1 * tc->l1_miss_queue, sizeof *t->mq);
    t->l2pend = malloc((size_t)N * L2_PEND * sizeof *t->l2pend);
    for (size_t i = 0; t->l2pend && i < (size_t)N * L2_PEND; i++)
        t->l2pend[i].key = UINT64_MAX;
    t->mq_next = calloc(t->nl1, sizeof *t->mq_next);
    if (bad || !t->sm || !t->mq || !t->mq_next || !t->l2pend) {
        gcr_timing_destroy(t);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory for the timing model");
    }
    for (int c = RC_SM_INJECT; c <= RC_SLICE_OUT; c++)
        class_in_flits(t, (enum res_class)c, tc->noc_port_bytes);
    class_in_flits(t, RC_CORE_L1, tc->link_bytes);
    class_in_flits(t, RC_FABRIC, tc->noc_port_bytes);
    class_in_flits(t, RC_CORE_L1_UP, tc->link_bytes);
    for (size_t i = 0; t->dram_bank && i < (size_t)channels * tc->dram_banks; i++) {
        for (uint32_t k = 0; k < DRAM_ROWS_KEPT; k++)
            t->dram_bank[i].iv[k].row = -1;
        t->dram_bank[i].last_col = -1;
    }
    for (uint32_t s = 0; s < S; s++) {
        t->sm[s].mshr = calloc(tc->l1_mshrs, sizeof(double));
        t->sm[s].pend = calloc(pend, sizeof(struct pending));
        if (t->cfg->warp_policy == GCR_WARP_VWS)
            t->sm[s].amt = calloc((tc->vws_amt_entries + 63) / 64, sizeof(uint64_t));
        if (!t->sm[s].mshr || !t->sm[s].pend ||
            (t->cfg->warp_policy == GCR_WARP_VWS && !t->sm[s].amt)) {
            gcr_timing_destroy(t);
            return gcr_fail(err, GCR_E_NOMEM, "out of memory for the timing model");
        }
        for (uint32_t i = 0; i < pend; i++)
            t->sm[s].pend[i].key = UINT64_MAX;
    }
    *out = t;
    return 0;
}

/* ------------------------------------------------------------- MSHRs */

/* The heap's root is the MSHR that frees first; a miss takes it and holds it
 * until its data arrives. */
static void mshr_replace_root(double *h, uint32_t n, double v)
{
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        double mv = v;
        if (l < n && h[l] < mv) {
            m = l;
            mv = h[l];
        }
        if (r < n && h[r] < mv)
            m = r;
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = v;
}

/* Sector caches track their fetches per sector (GPGPU-Sim's MSHRs are keyed by
 * the 32-B sector): a hit waits for the sectors it reads that are in flight,
 * and not for the line's other sectors. Lines are aligned, so the sector's
 * index fits in the line address's low bits. */
static uint64_t pend_key(const struct gcr_timing *t, uint64_t line, uint32_t sector)
{
    return t->cfg->granularity == GCR_GRAN_SECTOR ? line | sector : line;
}

/* The sectors a request tracks: each of them when the cache is sectored, else
 * just the line (as its sector 0). */
static uint32_t pend_sectors(const struct gcr_timing *t, uint32_t sectors)
{
    return t->cfg->granularity == GCR_GRAN_SECTOR && sectors ? sectors : 1;
}

/* A table of fetches in flight (an SM's L1 fetches, a slice's DRAM fetches): entries
 * direct-mapped by key, mask + 1 of them. */
static struct pending *pend_entry(struct pending *table, uint32_t mask, uint64_t key)
{
    uint64_t h = (key >> 5) * 0x9e3779b97f4a7c15ull;
    return &table[(h >> 40) & mask];
}

/* The cycle the sectors of line that are in flight in the table are back, or `from` if
 * none is later. */
static double pend_ready(const struct gcr_timing *t, struct pending *table, uint32_t mask,
                         uint64_t line, uint32_t sectors, double from)
{
    double ready = from;
    for (uint32_t rest = pend_sectors(t, sectors); rest; rest &= rest - 1) {
        uint64_t key = pend_key(t, line, (uint32_t)__builtin_ctz(rest));
        const struct pending *p = pend_entry(table, mask, key);
        if (p->key == key && p->ready > ready)
            ready = p->ready;
    }
    return ready;
}

/* The sectors of line are in flight until `ready`. */
static void pend_record(const struct gcr_timing *t, struct pending *table, uint32_t mask,
                        uint64_t line, uint32_t sectors, double ready)
{
    for (uint32_t rest = pend_sectors(t, sectors); rest; rest &= rest - 1) {
        uint64_t key = pend_key(t, line, (uint32_t)__builtin_ctz(rest));
        struct pending *p = pend_entry(table, mask, key);
        p->key = key;
        p->ready = ready;
        p->merged = 1;
    }
}

/* The request that took an MSHR is complete: the MSHR frees when its data
 * arrived, and later hits on the line wait until then. */
static void close_miss(struct gcr_timing *t)
{
    if (!t->mshr_open)
        return;
    t->mshr_open = false;
    mshr_replace_root(t->sm[t->sm_id].mshr, t->tc->l1_mshrs, t->miss_ready);
    pend_record(t, t->sm[t->sm_id].pend, t->pend_mask, t->miss_line, t->miss_sectors,
                t->miss_ready);
}

/* ------------------------------------------------------------- DRAM */

/* The open-row model stands for GPGPU-Sim's FR-FCFS scheduler (dram.cc,
 * dram_sched.cc): per bank, requests to the open row go first, then the
 * oldest request's row is opened. Requests reach the model in issue order,
 * not in the order they arrive at the channel, so the model does not keep a
 * queue: each channel keeps a calendar of its data-bus slots (one column
 * command of dram_channel_bytes per DRAM cycle) and each bank the last few
 * rows it opened, as intervals of DRAM cycles. A request arriving while its
 * row is (or will be) open takes the first free bus slots in that interval:
 * a row hit, whenever it was presented. Otherwise it opens its row after the
 * bank's latest interval: the latest row stays open while it has requests
 * (first ready), then is precharged no earlier than tRAS after its
 * activation; the new row's columns start tRP + tRCD later. The data of a
 * column command is on the bus CL after it. src/timing/README.md lists what
 * is left out. */

/* The calendar word of slot s, emptied when it last described another window. */
static uint64_t *dram_word(struct dram_channel *c, int64_t s)
{
    uint64_t w = (uint64_t)s / 64, i = w % DRAM_WINDOW_WORDS;
    if (c->epoch[i] != w / DRAM_WINDOW_WORDS + 1) {
        c->epoch[i] = w / DRAM_WINDOW_WORDS + 1;
        c->busy[i] = 0;
    }
    return &c->busy[i];
}

/* The first free bus slot at or after s, or `limit` if none is before it. */
static int64_t dram_free_slot(struct dram_channel *c, int64_t s, int64_t limit)
{
    while (s < limit) {
        uint64_t free = ~*dram_word(c, s) & (~0ull << (s % 64));
        if (free) {
            int64_t f = (s - s % 64) + __builtin_ctzll(free);
            return f < limit ? f : limit;
        }
        s += 64 - s % 64;
    }
    return limit;
}

/* Takes n bus slots in [from, limit) and returns the last, or -1 (nothing
 * taken) when they do not fit. */
static int64_t dram_take_slots(struct dram_channel *c, int64_t from, int64_t limit, uint32_t n,
                               int64_t *first)
{
    int64_t s = from, last = -1;
    for (uint32_t k = 0; k < n; k++, s = last + 1) {
        s = dram_free_slot(c, s, limit);
        if (s >= limit)
            return -1;
        last = s;
    }
    s = from;
    for (uint32_t k = 0; k < n; k++) {
        s = dram_free_slot(c, s, limit);
        if (k == 0)
            *first = s;
        *dram_word(c, s) |= 1ull << (s % 64);
        s++;
    }
    return last;
}

static double dram_access(struct gcr_timing *t, uint32_t slice, uint64_t line, double arrive,
                          uint32_t bytes)
{
    const struct gcr_timing_config *tc = t->tc;
    uint32_t ch = slice / t->slices_per_channel;
    struct res *bus = &t->cls[RC_DRAM].r[ch];
    if (!tc->dram_rows)
        return serve(bus, arrive, bytes);

    /* The address inside the channel: the granules of other slices removed. */
    uint64_t il = t->cfg->l2_interleave_bytes;
    uint64_t local = (line / il / t->info.num_l2_slices) * il + (line % il);
    uint64_t row_index = local / tc->dram_row_bytes;
    struct dram_bank *bank = &t->dram_bank[(size_t)ch * tc->dram_banks +
                                           (uint32_t)(row_index % tc->dram_banks)];
    int64_t row = (int64_t)(row_index / tc->dram_banks);
    struct dram_channel *c = &t->dram_ch[ch];
    uint32_t n = (bytes + tc->dram_channel_bytes - 1) / tc->dram_channel_bytes;
    if (!n)
        n = 1;
    int64_t a = (int64_t)ceil(arrive / t->dram_cycle), first = 0, last = -1;

    /* A row hit: the latest interval of its row on this bank that is still
     * open when the request arrives. */
    for (uint32_t k = 0; k < DRAM_ROWS_KEPT && last < 0; k++) {
        struct dram_row_interval *iv =
            &bank->iv[(bank->latest + DRAM_ROWS_KEPT - k) % DRAM_ROWS_KEPT];
        if (iv->row < 0 || iv->end <= a)
            break;
        if (iv->row != row)
            continue;
        int64_t from = iv->act + tc->t_rcd > a ? iv->act + tc->t_rcd : a;
        last = dram_take_slots(c, from, iv->end, n, &first);
        break;
    }
    if (last >= 0) {
        t->lat.row_hits++;
    } else {
        /* A row miss: precharge the latest row once its requests are served
         * and tRAS has passed, then activate this one. */
        t->lat.row_misses++;
        struct dram_row_interval *cur = &bank->iv[bank->latest];
        int64_t act = a;
        if (cur->row >= 0) {
            int64_t pre = a;
            if (cur->act + tc->t_ras > pre)
                pre = cur->act + tc->t_ras;
            if (bank->last_col + 1 > pre)
                pre = bank->last_col + 1;
            cur->end = pre;
            act = pre + tc->t_rp;
        }
        bank->latest = (bank->latest + 1) % DRAM_ROWS_KEPT;
        cur = &bank->iv[bank->latest];
        *cur = (struct dram_row_interval){.row = row, .act = act, .end = INT64_MAX};
        last = dram_take_slots(c, act + tc->t_rcd, INT64_MAX, n, &first);
    }
    if (last > bank->last_col)
        bank->last_col = last;

    /* The channel's statistics: its bus busy one DRAM cycle per slot. */
    double start = (double)first * t->dram_cycle;
    bus->busy += n * t->dram_cycle;
    bus->wait += start > arrive ? start - arrive : 0;
    bus->msgs++;
    bus->bytes += bytes;
    return (double)(last + 1 + tc->t_cl) * t->dram_cycle;
}

/* ------------------------------------------------------------- messages */

/* The data a write-through store sends per request: GPGPU-Sim's write
 * mem_fetch carries its 32-B sector whole, the bytes written marked in a byte
 * mask (data_cache::send_write_request), so a store of one word costs a
 * sector's bytes on the NoC and at the slice. */
static uint32_t store_wire_bytes(const struct gcr_timing *t, uint32_t bytes)
{
    uint32_t sb = t->cfg->sector_bytes;
    if (t->cfg->granularity == GCR_GRAN_SECTOR) /* a request a sector (memsys.c) */
        return sb;
    uint32_t whole = t->req_sectors ? (uint32_t)__builtin_popcount(t->req_sectors) * sb
                                    : (bytes + sb - 1) / sb * sb;
    return whole > bytes ? whole : bytes;
}

/* An L1 request that needs room in its L1's miss queue (GPGPU-Sim: data_cache's
 * m_miss_queue, drained onto the interconnect by baseline_cache::cycle) and is
 * ready at `ready`: returns when it has room. A store needs one free entry, a
 * read two (data_cache::wr_hit_wt and rd_miss_base test miss_queue_full(0)
 * and (1)), and so does a read that merges with a miss in flight, which
 * rd_miss_base also handles. While the queue is full the request stays at
 * its bank's head and retries every cycle, each retry a reservation failure,
 * and its bank takes nothing else. */
static double miss_queue_room(struct gcr_timing *t, double ready, bool store)
{
    uint32_t q = t->tc->l1_miss_queue, u = t->l1_unit;
    const double *ring = &t->mq[(size_t)u * q];
    uint32_t next = t->mq_next[u];
    /* ring[next] left the queue l1_miss_queue requests ago, ring[next + 1] one later. */
    double room = store ? ring[next] : ring[(next + 1) % q];
    if (room <= ready)
        return ready;
    t->lat.reservation_fails += (uint64_t)ceil(room - ready);
    struct res *bank = &t->cls[RC_L1_BANK].r[t->l1_bank];
    double head = room + 1 - t->tc->l1_latency; /* its bank's next access looks up after it */
    if (head > bank->free_at)
        bank->free_at = head;
    return room;
}

/* The request goes through the miss queue (miss_queue_room) onto the NoC port;
 * returns when it has crossed the port. */
static double miss_queue_inject(struct gcr_timing *t, struct res *port, double ready,
                                uint32_t msg, bool store)
{
    uint32_t q = t->tc->l1_miss_queue, u = t->l1_unit;
    double *ring = &t->mq[(size_t)u * q];
    uint32_t next = t->mq_next[u];
    ready = miss_queue_room(t, ready, store);
    /* One request a cycle leaves the queue, into the NoC's injection buffer
     * (deep enough, 512 packets in GPGPU-Sim, that it is not modelled). */
    double leave = slot_start(&t->cls[RC_L1_MQ].r[u], ready);
    ring[next] = leave;
    t->mq_next[u] = (next + 1) % q;
    return serve(port, leave, msg);
}

static bool waits_for_data(const struct gcr_timing *t)
{
    return t->op == GCR_OP_LOAD || t->op == GCR_OP_ATOMIC;
}

/* A reply of msg bytes whose data left slice `slice` at `left` crosses the
 * slice's output port, the SM's (port's) ejection port and the NoC: the data
 * is back, served at level lv. */
static void reply_from_slice(struct gcr_timing *t, uint32_t slice, uint32_t port, uint32_t msg,
                             double left, enum level lv)
{
    double x = serve(&t->cls[RC_SLICE_OUT].r[slice], left, msg);
    struct res_class_state *out = &t->cls[RC_SM_EJECT];
    x = serve(&out->r[port % out->n], x, msg) + t->tc->noc_latency;
    t->chain_t = x;
    t->at_l2 = false;
    if (!t->in_insn)
        return;
    t->lat.sum[lv] += x - t->t_issue;
    t->lat.n[lv]++;
    if (waits_for_data(t) && x > t->completion)
        t->completion = x;
    else if (!waits_for_data(t) && x > t->acked) /* a reduction's answer */
        t->acked = x;
    if (t->mshr_open && x > t->miss_ready)
        t->miss_ready = x;
}

/* The sectors an L2 miss fetched are on their way until its data is back from DRAM: a
 * later read that hits them waits for it (GPGPU-Sim: a hit on a reserved line merges into
 * the L2's MSHR and is answered with the fill). Called before the current request's reply. */
static void l2_in_flight(struct gcr_timing *t)
{
    struct pending *table = &t->l2pend[(size_t)t->l2_slice * L2_PEND];
    if (t->l2_hit) {
        /* Each fetch serves l2_max_merge requests at most (GPGPU-Sim's MSHR entry: the miss
         * and its merges). A hit on a sector whose fetch serves that many already cannot
         * merge: it fails and retries each cycle at the head of its slice's input queue,
         * holding every request behind it, until the data is there and it hits
         * (memory_sub_partition::cache_cycle leaves a RESERVATION_FAIL at the queue's
         * head). */
        double ready = t->chain_t, full = t->chain_t;
        uint32_t limit = t->tc->l2_max_merge;
        for (uint32_t rest = pend_sectors(t, t->l2_sectors); rest; rest &= rest - 1) {
            uint64_t key = pend_key(t, t->l2_line, (uint32_t)__builtin_ctz(rest));
            struct pending *p = pend_entry(table, L2_PEND - 1, key);
            if (p->key != key || p->ready <= t->chain_t)
                continue;
            if (limit && p->merged >= limit) {
                if (p->ready > full)
                    full = p->ready;
            } else {
                p->merged++;
                if (p->ready > ready)
                    ready = p->ready;
            }
        }
        if (full > t->chain_t) {
            uint64_t fails = (uint64_t)ceil(full - t->chain_t);
            t->lat.l2_reservation_fails += fails;
            /* The slice's tag port is held as long (in its own time: before the L2's
             * latency). */
            struct res *tags = &t->cls[RC_L2_TAGS].r[t->l2_slice];
            double held = full - t->tc->l2_latency;
            if (held > tags->free_at) {
                tags->busy += held - tags->free_at;
                tags->free_at = held;
            }
            t->chain_t = full > ready ? full : ready;
        } else if (ready > t->chain_t) {
            t->chain_t = ready;
            t->lat.l2_pending_hits++;
        }
    } else if (t->chain_dram) {
        pend_record(t, table, L2_PEND - 1, t->l2_line, t->l2_sectors, t->chain_t);
    }
}

void gcr_timing_l2_lookup(struct gcr_timing *t, uint32_t slice, uint64_t line, uint32_t sectors,
                          bool hit)
{
    t->l2_known = true;
    t->l2_slice = slice;
    t->l2_line = line;
    t->l2_sectors = sectors;
    t->l2_hit = hit;
}

double gcr_timing_l2_arrival(const struct gcr_timing *t)
{
    return (t->in_insn ? t->req_t : t->now) + t->tc->noc_latency;
}

double gcr_timing_reply_at_slice(const struct gcr_timing *t)
{
    return t->reply_at_slice;
}

/* The fabric between L2 partitions is taken as one more crossbar: a slice's port to
 * it moves noc_port_bytes a NoC cycle in whole flits, and a crossing takes
 * latency.noc. A lookup in a far slice crosses with the request (a header), takes
 * that slice's tag port and latency.l2; the answer crosses back with the data it
 * found. */
void gcr_timing_fabric_lookup(struct gcr_timing *t, uint32_t near, uint32_t far)
{
    const struct gcr_timing_config *tc = t->tc;
    double x = serve(&t->cls[RC_FABRIC].r[near], t->chain_t, tc->header_bytes) + tc->noc_latency;
    x = slot_start(&t->cls[RC_L2_TAGS].r[far], x);
    t->chain_t = x + tc->l2_latency;
}

void gcr_timing_fabric_return(struct gcr_timing *t, uint32_t far, uint32_t near, uint32_t bytes)
{
    (void)near; /* its port is the one the answer leaves the fabric by: the far one's is timed */
    t->chain_t = serve(&t->cls[RC_FABRIC].r[far], t->chain_t, bytes + t->tc->header_bytes) +
                 t->tc->noc_latency;
}

void gcr_timing_merged_reply(struct gcr_timing *t, uint32_t slice, uint32_t port, uint32_t bytes,
                             double ready)
{
    t->lat.merged_reads++;
    reply_from_slice(t, slice, port, bytes + t->tc->header_bytes, ready, LV_L2);
}

/* The L1's entry, as GPGPU-Sim's LD/ST unit feeds it
 * (ldst_unit::process_memory_access_queue_l1cache): an instruction's accesses
 * (one per 32-B sector; one per request when the L1 is not sectored) enter the
 * L1's banks in order, each bank one access per cycle (so at most l1_banks a
 * cycle), and the SM's LD/ST unit holds the instruction until its last access
 * has entered. An access whose bank is taken waits, and the instruction's
 * later accesses wait behind it. Every cycle it waits counts as a bank
 * conflict, except a cycle in which l1_banks accesses already entered: GPGPU-Sim
 * tries no more that cycle (a coalescing stall, not a conflict). Returns the
 * cycle the request's last access entered. */
static double l1_enter(struct gcr_timing *t, uint32_t unit, uint64_t line, uint32_t sectors,
                       double start)
{
    const struct gcr_config *cfg = t->cfg;
    uint32_t banks = t->tc->l1_banks, sb = cfg->sector_bytes;
    if (cfg->granularity != GCR_GRAN_SECTOR || !sectors)
        sectors = 1; /* one access, at the line's address */
    double last = start;
    for (uint32_t rest = sectors; rest; rest &= rest - 1) {
        uint64_t addr = line + (uint64_t)__builtin_ctz(rest) * sb;
        uint32_t b = unit * banks + (uint32_t)((addr / sb) % banks);
        double from = start > t->l1_entry_at ? start : t->l1_entry_at;
        double e = slot_start(&t->cls[RC_L1_BANK].r[b], from);
        if (e > from) {
            uint64_t waited = (uint64_t)(e - from + 0.5);
            bool full = from == t->l1_entry_at && t->l1_entered == banks;
            t->lat.bank_conflicts += waited - (full ? 1 : 0);
        }
        t->l1_entered = e == t->l1_entry_at ? t->l1_entered + 1 : 1;
        t->l1_entry_at = e;
        t->l1_bank = b;
        if (e > last)
            last = e;
    }
    return last;
}

void gcr_timing_l1_lookup(struct gcr_timing *t, uint32_t unit, uint64_t line, uint32_t sectors,
                          bool is_write, enum gcr_outcome outcome, uint32_t fetching)
{
    close_miss(t);
    t->from_l1 = false;
    if (!t->in_insn)
        return;
    double start = t->core_l1_start ? t->req_t : t->t_issue;
    t->core_l1_start = false;
    if (unit >= t->nl1)
        unit = 0;
    start = l1_enter(t, unit, line, sectors, start);
    if (start + 1 > t->accepted)
        t->accepted = start + 1;
    t->from_l1 = true;
    t->l1_unit = unit;
    t->req_sectors = sectors;
    t->insn_accesses++;
    uint64_t *amt = t->sm[t->sm_id].amt;
    if (amt && !is_write && outcome != GCR_HIT) {
        /* VWS: a read miss to an address not yet in the table counts once
         * toward the warp's working set (aliasing tolerated, as proposed). */
        uint64_t i = (line / t->cfg->line_bytes) % t->tc->vws_amt_entries;
        if (!(amt[i / 64] >> (i % 64) & 1)) {
            amt[i / 64] |= 1ull << (i % 64);
            t->insn_new_misses++;
        }
    }
    double done = start + t->tc->l1_latency;
    t->req_t = done;
    t->req_leave = done;
    t->chain_t = done; /* a new request: nothing of the previous one carries over */
    t->at_l2 = false;
    if (is_write) { /* an L1 that keeps the write acknowledges it (write-through sends it on) */
        if (done > t->acked)
            t->acked = done;
        return;
    }
    if (outcome == GCR_HIT) {
        double ready = pend_ready(t, t->sm[t->sm_id].pend, t->pend_mask, line, sectors, done);
        if (ready > done) { /* merged with the misses in flight, once it has room */
            double room = miss_queue_room(t, done, false);
            done = ready > room ? ready : room;
            t->lat.pending_hits++;
        }
        if (waits_for_data(t) && done > t->completion)
            t->completion = done;
        t->lat.sum[LV_L1] += done - t->t_issue;
        t->lat.n[LV_L1]++;
        return;
    }
    /* A miss needs an MSHR: the one that frees first. */
    double *heap = t->sm[t->sm_id].mshr;
    if (heap[0] > done) {
        t->lat.mshr_stall += heap[0] - done;
        t->lat.mshr_stalls++;
        done = heap[0];
        t->req_t = done;
    }
    t->mshr_open = true;
    t->miss_line = line;
    t->miss_sectors = fetching ? fetching : sectors;
    t->miss_ready = done;
}

void gcr_timing_send(struct gcr_timing *t, enum gcr_net net, uint32_t from, uint32_t to,
                     uint32_t bytes, bool downstream, uint64_t line)
{
    const struct gcr_timing_config *tc = t->tc;
    double base = t->in_insn ? t->req_t : t->now;
    bool store = t->in_insn && t->op == GCR_OP_STORE;
    if (store && bytes && downstream && net == GCR_NET_L2)
        bytes = store_wire_bytes(t, bytes);
    uint32_t msg = bytes + tc->header_bytes;
    switch (net) {
    case GCR_NET_L2:
        if (downstream) {
            struct res_class_state *in = &t->cls[RC_SM_INJECT];
            struct res *port = &in->r[from % in->n];
            double x;
            if (t->in_insn && t->from_l1) /* through the L1's miss queue */
                x = miss_queue_inject(t, port, base, msg, store);
            else
                x = serve(port, base, msg);
            x = serve(&t->cls[RC_SLICE_IN].r[to], x + tc->noc_latency, msg);
            /* One request per L2 cycle: it bounds the slice's rate; its
             * latency is part of latency.l2 (GPGPU-Sim's ROP latency). */
            x = slot_start(&t->cls[RC_L2_TAGS].r[to], x);
            if (bytes)
                x = serve(&t->cls[RC_L2].r[to], x, bytes);
            t->chain_t = x + tc->l2_latency;
            t->chain_dram = false;
            t->at_l2 = true;
            /* A store is acknowledged once its slice has taken it: the warp cannot end
             * before (GPGPU-Sim keeps a warp until its stores are acknowledged). The
             * acknowledgement is a packet of its own back to the SM, as in GPGPU-Sim
             * (memory_sub_partition::cache_cycle answers every write). A reduction's
             * answer comes as its reply; until then its slice's latency stands for it. */
            if (store) {
                struct res_class_state *out = &t->cls[RC_SM_EJECT];
                double a = serve(&t->cls[RC_SLICE_OUT].r[to], t->chain_t, tc->header_bytes);
                a = serve(&out->r[from % out->n], a, tc->header_bytes) + tc->noc_latency;
                if (a > t->acked)
                    t->acked = a;
            } else if (t->in_insn && !waits_for_data(t) &&
                       t->chain_t + tc->noc_latency > t->acked) {
                t->acked = t->chain_t + tc->noc_latency;
            }
            /* Link hops to a remote home moved req_t; the instruction's next
             * request (L1-bypassing ones have no L1 access to reset it)
             * leaves from where this one did, not after its hops. */
            t->req_t = t->req_leave;
        } else {
            if (t->l2_known && t->l2_slice == from)
                l2_in_flight(t);
            t->l2_known = false;
            t->reply_at_slice = serve(&t->cls[RC_L2].r[from], t->chain_t, bytes);
            reply_from_slice(t, from, to, msg, t->reply_at_slice, t->chain_dram ? LV_DRAM : LV_L2);
        }
        break;
    case GCR_NET_DRAM:
        if (downstream) {
            if (bytes) /* written data occupies the channel; nobody waits for it */
                dram_access(t, from, line, t->chain_t, bytes);
        } else {
            t->chain_t = dram_access(t, from, line, t->chain_t, bytes) +
                         tc->dram_latency;
            t->chain_dram = true;
        }
        break;
    case GCR_NET_CORE_L1: {
        struct res_class_state *c = &t->cls[RC_CORE_L1];
        if (downstream) {
            t->req_t = serve(&c->r[to % c->n], t->in_insn ? t->t_issue : t->now, msg) +
                       tc->noc_latency;
            t->chain_t = t->req_t;
            t->core_l1_start = true;
        } else {
            double from = t->chain_t > t->req_t ? t->chain_t : t->req_t;
            c = &t->cls[RC_CORE_L1_UP];
            t->chain_t = serve(&c->r[to % c->n], from, msg) + tc->noc_latency;
            if (t->in_insn && waits_for_data(t) && t->chain_t > t->completion)
                t->completion = t->chain_t;
        }
        break;
    }
    case GCR_NET_CHIP_LINK: {
        struct res_class_state *links = &t->cls[downstream ? RC_CHIP_LINK
                                                               : RC_CHIP_LINK_REPLY];
        struct res *link = &links->r[from % links->n];
        /* A request hop before any slice (memory-side: to the home chip's
         * slice, published before the slice is) delays the slice; one after
         * the requester's slice (SM-side: a miss going on to the home chip's
         * memory) delays the memory access. Written data leaving a slice for
         * its home memory occupies the link but nobody waits for it. */
        if (downstream && !t->at_l2) {
            t->req_t = serve(link, base, msg) + tc->noc_latency;
        } else if (downstream && bytes) {
            serve(link, t->chain_t, msg);
        } else if (downstream) {
            t->chain_t = serve(link, t->chain_t, msg) + tc->noc_latency;
        } else {
            t->chain_t = serve(link, t->chain_t, msg) + tc->noc_latency;
            if (t->in_insn && waits_for_data(t) && t->chain_t > t->completion)
                t->completion = t->chain_t;
        }
        break;
    }
    }
}

/* ------------------------------------------------------------- instructions */

/* The cycles a shared-memory access holds its SM's banks, as GPGPU-Sim counts them
 * (warp_inst_t::generate_mem_accesses, without limited broadcast): `banks` banks of 4-byte
 * words, word w in bank w mod banks; each bank serves one word a cycle and every lane that
 * reads a word it serves (a broadcast), so the access takes as many cycles as its busiest
 * bank has distinct words. Each lane counts with the word of its first byte, as there (an
 * access wider than 4 bytes is not split). */
uint32_t gcr_timing_shared_bank_cycles(uint32_t mask, const uint64_t *addr, bool strided,
                                       uint64_t base, int64_t stride, uint32_t banks)
{
    if (!mask)
        return 0;
    if (strided && stride == 0)
        return 1; /* one word: a broadcast */
    /* Lanes 4 bytes apart or more read distinct words; others may share one. */
    bool distinct = strided && (stride >= 4 || stride <= -4);
    uint64_t word[GCR_WARP_SIZE]; /* the distinct words the lanes read, in lane order */
    uint32_t n = 0, k = 0;
    for (uint32_t m = mask; m; m &= m - 1, k++) {
        uint64_t w = (strided ? base + (uint64_t)stride * k : addr[__builtin_ctz(m)]) / 4;
        uint32_t i = 0;
        if (!distinct)
            while (i < n && word[i] != w)
                i++;
        if (distinct || i == n)
            word[n++] = w;
    }
    uint32_t most = 0;
    if (banks <= 64) {
        uint8_t count[64] = {0};
        for (uint32_t i = 0; i < n; i++) {
            uint8_t c = ++count[word[i] % banks];
            if (c > most)
                most = c;
        }
        return most;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t in_bank = 1; /* word i and the distinct words before it in its bank */
        for (uint32_t j = 0; j < i; j++)
            in_bank += word[j] % banks == word[i] % banks;
        if (in_bank > most)
            most = in_bank;
    }
    return most;
}


void gcr_timing_insn_begin(struct gcr_timing *t, uint32_t sm, double now, enum gcr_op op,
                           enum gcr_space space, uint32_t lane_bytes)
{
    t->lane_bytes = lane_bytes;
    t->in_insn = true;
    t->sm_id = sm;
    t->from_l1 = false;
    t->req_sectors = 0;
    t->l1_entry_at = t->sm[sm].ldst_free > now ? t->sm[sm].ldst_free : now;
    t->l1_entered = 0;
    t->t_issue = now;
    t->op = op;
    t->space = space;
    t->completion = now + 1;
    t->accepted = now + 1;
    t->acked = now + 1;
    t->req_t = now; /* requests that skip the L1 leave at issue */
    t->req_leave = now;
    t->chain_t = now;
    t->core_l1_start = false;
    t->at_l2 = false;
    t->mshr_open = false;
    t->insn_accesses = t->insn_new_misses = 0;
}

void gcr_timing_insn_l1_counts(const struct gcr_timing *t, uint32_t *accesses,
                               uint32_t *new_misses)
{
    *accesses = t->insn_accesses;
    *new_misses = t->insn_new_misses;
}

void gcr_timing_amt_clear(struct gcr_timing *t, uint32_t sm)
{
    if (t->sm[sm].amt)
        memset(t->sm[sm].amt, 0, (t->tc->vws_amt_entries + 63) / 64 * sizeof(uint64_t));
}

double gcr_timing_insn_end(struct gcr_timing *t, double *accepted, double *acked)
{
    close_miss(t);
    if (t->accepted > t->sm[t->sm_id].ldst_free) /* the LD/ST unit takes the next one */
        t->sm[t->sm_id].ldst_free = t->accepted;
    *accepted = t->accepted;
    *acked = t->acked;
    t->in_insn = false;
    t->at_l2 = false;
    if (t->space == GCR_SPACE_SHARED) {
        /* The SM's LD/ST unit takes it after the memory instructions before it, as it takes
         * global ones (GPGPU-Sim's ldst_unit holds one instruction at a time, a shared one
         * for its banks' cycles); then a fixed latency. */
        struct res *banks = &t->cls[RC_SHARED].r[t->sm_id];
        uint32_t cycles = t->lane_bytes / t->tc->shared_bytes; /* the driver's: whole cycles */
        if (cycles > 1)
            t->lat.shared_bank_conflicts += cycles - 1;
        double banks_done = serve(banks, t->l1_entry_at, t->lane_bytes);
        t->sm[t->sm_id].ldst_free = banks_done;
        return banks_done + t->tc->shared_latency;
    }
    if (t->space != GCR_SPACE_GLOBAL && t->space != GCR_SPACE_LOCAL)
        return t->t_issue + t->tc->shared_latency; /* const/texture: not modelled */
    return waits_for_data(t) ? t->completion : t->t_issue + 1;
}

/* ------------------------------------------------------------- kernels */

double gcr_timing_kernel_begin(struct gcr_timing *t)
{
    t->kernel_launch = t->now;
    t->kernel_start = t->now + t->tc->kernel_launch_latency;
    for (int c = 0; c < RC_COUNT; c++) {
        struct res_class_state *k = &t->cls[c];
        k->wait_then = 0;
        k->msgs_then = k->bytes_then = 0;
        for (uint32_t i = 0; i < k->n; i++) {
            k->r[i].busy_then = k->r[i].busy;
            k->wait_then += k->r[i].wait;
            k->msgs_then += k->r[i].msgs;
            k->bytes_then += k->r[i].bytes;
        }
    }
    t->lat_then = t->lat;
    return t->kernel_start;
}

static json_t *ratio(double num, double den)
{
    return den > 0 ? json_real(num / den) : json_null();
}

/* Figures of a period of `cycles` cycles: since the kernel's launch (kernel)
 * or since the run's start. Utilisations are over the `active` cycles among
 * them, those after the launch latencies, when something can run. */
static json_t *period(struct gcr_timing *t, double cycles, double active, uint64_t warp_insns,
                      bool kernel)
{
    json_t *o = json_object();
    uint64_t whole = (uint64_t)ceil(cycles);
    json_object_set_new(o, "cycles", json_integer((json_int_t)whole));
    json_object_set_new(o, "active_cycles", json_integer((json_int_t)ceil(active)));
    json_object_set_new(o, "warp_instructions", json_integer((json_int_t)warp_insns));
    json_object_set_new(o, "ipc_warp", ratio((double)warp_insns, cycles));
    cycles = active;
    double issue_util = cycles > 0 ? (double)warp_insns /
                                         (cycles * t->info.num_sms * t->tc->issue_per_cycle)
                                   : 0;
    json_object_set_new(o, "issue_utilisation", json_real(issue_util));
    json_t *res = json_object();
    const char *limit = "issue";
    double limit_util = issue_util;
    for (int c = 0; c < RC_COUNT; c++) {
        struct res_class_state *k = &t->cls[c];
        double busy = 0, busy_max = 0, wait = 0;
        uint64_t msgs = 0, bytes = 0;
        for (uint32_t i = 0; i < k->n; i++) {
            double b = k->r[i].busy - (kernel ? k->r[i].busy_then : 0);
            busy += b;
            if (b > busy_max)
                busy_max = b;
            wait += k->r[i].wait;
            msgs += k->r[i].msgs;
            bytes += k->r[i].bytes;
        }
        if (kernel) {
            wait -= k->wait_then;
            msgs -= k->msgs_then;
            bytes -= k->bytes_then;
        }
        if (!msgs)
            continue; /* a network this organisation does not use */
        double umax = cycles > 0 ? busy_max / cycles : 0;
        json_object_set_new(
            res, class_names[c],
            json_pack("{s:I, s:I, s:I, s:o, s:o, s:o}", "instances", (json_int_t)k->n,
                      "messages", (json_int_t)msgs, "bytes", (json_int_t)bytes,
                      "utilisation_mean", ratio(busy, cycles * k->n), "utilisation_max",
                      json_real(umax), "queue_delay_mean", ratio(wait, (double)msgs)));
        if (umax > limit_util) {
            limit_util = umax;
            limit = class_names[c];
        }
    }
    /* Below half use, no resource limits the run: it is bound by latency
     * (too few warps or too little memory parallelism to hide it). */
    json_object_set_new(o, "limiting_resource", json_string(limit_util < 0.5 ? "latency" : limit));
    json_object_set_new(o, "resources", res);
    json_t *lat = json_object();
    const struct lat_stats *now = &t->lat, *then = kernel ? &t->lat_then : NULL;
    for (int l = 0; l < LV_COUNT; l++) {
        uint64_t n = now->n[l] - (then ? then->n[l] : 0);
        double sum = now->sum[l] - (then ? then->sum[l] : 0);
        json_object_set_new(lat, level_names[l],
                            json_pack("{s:I, s:o}", "requests", (json_int_t)n, "mean_cycles",
                                      ratio(sum, (double)n)));
    }
    json_object_set_new(o, "memory_latency", lat);
#define D(f) (now->f - (then ? then->f : 0))
    json_object_set_new(o, "l1_pending_hits", json_integer((json_int_t)D(pending_hits)));
    json_object_set_new(o, "mshr_stalls", json_integer((json_int_t)D(mshr_stalls)));
    json_object_set_new(o, "mshr_stall_cycles_mean",
                        ratio(D(mshr_stall), (double)D(mshr_stalls)));
    json_object_set_new(o, "l2_pending_hits", json_integer((json_int_t)D(l2_pending_hits)));
    json_object_set_new(o, "l2_reservation_fails",
                        json_integer((json_int_t)D(l2_reservation_fails)));
    json_object_set_new(o, "shared_bank_conflicts",
                        json_integer((json_int_t)D(shared_bank_conflicts)));
    json_object_set_new(o, "l1_bank_conflicts", json_integer((json_int_t)D(bank_conflicts)));
    json_object_set_new(o, "l1_reservation_fails",
                        json_integer((json_int_t)D(reservation_fails)));
    if (t->cfg->l2_merge_window)
        json_object_set_new(o, "l2_merged_reads", json_integer((json_int_t)D(merged_reads)));
    if (t->tc->dram_rows)
        json_object_set_new(o, "dram_row_hit_rate",
                            ratio((double)D(row_hits), (double)(D(row_hits) + D(row_misses))));
#undef D
    return o;
}

json_t *gcr_timing_kernel_end(struct gcr_timing *t, double end, uint64_t warp_insns)
{
    if (end < t->kernel_start)
        end = t->kernel_start;
    /* Kernels run one after another: the next starts when this one's last
     * warp is done (whole cycles, as a cycle-level simulator counts). */
    t->now = ceil(end);
    t->run_warp_insns += warp_insns;
    t->kernels++;
    /* A kernel's cycles count from its launch, launch latency included, as
     * Accel-Sim's per-kernel gpu_sim_cycle does. */
    json_t *o = period(t, t->now - t->kernel_launch, t->now - t->kernel_start, warp_insns, true);
    json_object_set_new(o, "start_cycle", json_integer((json_int_t)t->kernel_start));
    json_object_set_new(o, "launch_latency", json_integer((json_int_t)t->tc->kernel_launch_latency));
    return o;
}

json_t *gcr_timing_report_total(struct gcr_timing *t)
{
    /* The run's cycles include every kernel's launch latency, as Accel-Sim's
     * gpu_tot_sim_cycle does. */
    double active = t->now - (double)t->kernels * t->tc->kernel_launch_latency;
    return period(t, t->now, active > 0 ? active : 0, t->run_warp_insns, false);
}

