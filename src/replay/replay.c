/* The replay engine: CTA dispatch, warp interleaving, coalescing, and the
 * per-kernel accounting that becomes the report. */
#include "core/bits.h"
#include "gcreplay/replay.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcreplay/analysis.h"
#include "replay/bus.h"
#include "replay/chips.h"
#include "replay/coalesce.h"
#include "replay/l1org.h"
#include "replay/memsys.h"
#include "replay/prefetch_tuner.h"
#include "replay/warpq.h"
#include "report/report.h"
#include "timing/timing.h"
#include "timing/vws.h"

/* ------------------------------------------------------------------ state */

struct cta;

struct warp {
    struct gcr_warpq q;
    struct cta *cta;
    uint32_t cta_id;      /* cta->id, kept here: every issue reads the warp, not the CTA */
    uint32_t id;          /* warp index inside the CTA */
    uint32_t nonmem_left; /* non-memory instructions still to issue before q's next item */
    uint64_t stall_until; /* GTO: SM issue slot at which the warp is ready again */
    double ready_at;      /* timing mode: cycle at which the warp may issue again */
    /* VWS: saturating L1 access and new-address miss counters, whether the
     * warp is in the first scheduling level, whether it waits on memory. */
    uint32_t vws_accesses, vws_misses;
    bool level1, mem_wait;
};

struct cta {
    uint32_t id;
    uint32_t nwarps, cap_warps;
    uint32_t warps_left;
    uint32_t sm;
    struct warp *warps;
    struct cta *next; /* free list / FIFO link */
};

struct sm {
    struct warp **active; /* resident warps with work, oldest first */
    uint32_t nactive;
    int32_t last;          /* LRR: index of the warp issued last */
    struct warp *current;  /* GTO: the warp being run greedily */
    uint32_t resident_ctas;
    uint64_t issued;       /* issue slots used: the SM's clock */
    double cycle;          /* timing mode: the SM's next issue cycle */
    uint32_t nonmem_steps; /* timing mode: issue steps since its last memory instruction */
    struct gcr_vws_sm vws; /* VWS throttling estimate */
};

/* What the prefetcher (prefetch_stages) predicted of an SM that issues this
 * round: the warp it will issue, guessed once (an SM's state changes only when
 * it issues, or at dispatch between rounds), and where that warp's access will
 * read the L1 and L2 (a NULL cache: nothing to follow). */
struct prefetch {
    const struct warp *next;
    const uint8_t *head; /* next's queue head; NULL: no access to predict */
    struct gcr_cache_hint l1, l2;
};

/* Per-kernel counters that are not cache statistics. */
struct insn_counts {
    uint64_t warp_insns; /* every warp instruction, memory or not */
    uint64_t nonmem;
    uint64_t mem[GCR_SPACE_COUNT][GCR_OP_COUNT];
    uint64_t bypass_requests; /* L1-bypassing loads/stores, in line requests */
    uint64_t atomic_requests;
    uint64_t ctas;
};
GCR_U64_COUNTERS(struct insn_counts, 2 + GCR_SPACE_COUNT * GCR_OP_COUNT + 3);

/* Records the loader asks the reader for at once (gcr_reader_next_run): enough
 * to spread the cost of a call over many records (32 cost 3 more x86
 * instructions per record on the bench's typical trace), few enough to stay in
 * the L1 data cache (a lazily filled record touches two of its five lines). */
#define LOAD_RUN_RECORDS 64

struct kernel_state {
    struct gcr_kernel_begin kb; /* name owned here */
    uint64_t nctas;
    uint32_t wpc;         /* warps per CTA */
    uint32_t fit;         /* CTAs one SM can hold */
    /* loading */
    struct gcr_reader *r;
    /* Records read but not loaded yet: run[run_next..run_count-1]. A record
     * that ends a CTA is left there for the next load_cta. */
    struct gcr_record run[LOAD_RUN_RECORDS];
    uint32_t run_next, run_count;
    bool ended;
    /* dispatch */
    struct cta **by_id;                  /* contiguous: loaded, not dispatched */
    uint64_t *next_id, *end_id;          /* contiguous: per-SM range */
    uint32_t rr_next;
    uint64_t resident;                   /* CTAs on SMs */
    bool cta_finished;
};

struct gcr_replay {
    const struct gcr_config *cfg;
    struct gcr_sim_info info;
    struct gcr_idmap lines; /* info.lines: the analyses' shared line ids */
    struct gcr_bus bus;
    struct gcr_memsys mem;
    const struct gcr_l1org_ops *org;
    void *org_self;
    struct gcr_cache_stats *l1_stats;   /* per SM, cumulative, as collected for a report */
    struct sm *sms;
    struct warp **warp_slots;           /* backing store of every sm.active */
    struct cta *free_ctas;
    struct gcr_pool *queues;            /* buffers of every warp queue */
    /* Functional replay: per SM, the round (bus step) of its next issue, later
     * than now while it sleeps through non-memory slots (sleep_nonmem) and
     * UINT64_MAX while it has no warps; the SMs issuing this round. One array
     * to scan every round, apart from the SMs' larger records. */
    uint64_t *wake;
    uint32_t *order;
    struct prefetch *pf;                /* per position in order: the access being prefetched */
    /* What prefetch_stages fetches: as set, or measured (prefetch_tuner.h);
     * the tuner starts when the first kernel's functional issue loop does
     * (never in timing mode, which does not prefetch). */
    enum gcr_host_prefetch host_prefetch;
    struct gcr_prefetch_tuner tuner;
    bool tuner_started;
    uint64_t issued;                    /* issue slots of functional rounds so far */
    struct gcr_line_req reqs[GCR_COALESCE_MAX];
    struct gcr_warp_insn insn;          /* the instruction being executed */
    struct insn_counts counts, kernel_counts;
    /* snapshots at kernel start */
    struct gcr_cache_stats *l1_then, *l2_then, *l2_now;
    struct gcr_traffic traffic_then;
    uint64_t memcpy_bytes;
    json_t *kernels;     /* finished kernels' reports, unless a sink takes them */
    uint64_t nkernels;   /* kernels finished */
    gcr_kernel_sink_fn kernel_sink;
    void *kernel_sink_ctx;
    json_t *traces;
    gcr_progress_fn progress;
    void *progress_ctx;
    uint64_t progress_tick;
    struct kernel_state *ks;
    /* Timing mode (src/timing): the model, the cycle being issued and the
     * cycle the current kernel's last warp finished. NULL when functional. */
    struct gcr_timing *timing;
    double now, kernel_end;
    uint32_t *sm_heap, *sm_heap_pos; /* SMs by next issue cycle (see heap_fix) */
    double *sm_heap_key;
    uint32_t l1_blocks;              /* VWS: lines of one L1 in this kernel */
    bool vws_spare;                  /* VWS: second-level warps could be promoted */
    struct skip_log *skip;           /* skip_nonmem_timed's record of an SM's states */
};

static void skip_log_free(struct skip_log *g);

/* ------------------------------------------------------------ create/free */

int gcr_replay_create(struct gcr_replay **out, const struct gcr_config *cfg, struct gcr_err *err)
{
    *out = NULL;
    const struct gcr_l1org_ops *org = NULL;
    for (size_t i = 0; gcr_l1orgs[i]; i++)
        if (strcmp(gcr_l1orgs[i]->name, cfg->l1_organization) == 0)
            org = gcr_l1orgs[i];
    if (!org) {
        char known[256] = "";
        for (size_t i = 0; gcr_l1orgs[i]; i++) {
            size_t u = strlen(known);
            snprintf(known + u, sizeof known - u, "%s\"%s\"", i ? ", " : "", gcr_l1orgs[i]->name);
        }
        return gcr_fail(err, GCR_E_CONFIG,
                        "%s: $.l1d.organization: unknown organisation \"%s\" (known: %s)",
                        cfg->origin, cfg->l1_organization, known);
    }

    if (cfg->warp_policy == GCR_WARP_VWS && !cfg->timing.enabled)
        return gcr_fail(err, GCR_E_CONFIG,
                        "%s: $.scheduling.warp_policy: \"vws\" throttles on timing; enable the "
                        "timing backend ($.timing.enabled or run --timing)", cfg->origin);
    struct gcr_replay *rp = calloc(1, sizeof *rp);
    if (!rp)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    rp->cfg = cfg;
    rp->org = org;
    rp->host_prefetch = GCR_HOST_PREFETCH_AUTO;
    uint32_t S = cfg->num_sms;
    rp->l1_stats = calloc(S, sizeof *rp->l1_stats);
    rp->l1_then = calloc(S, sizeof *rp->l1_then);
    rp->l2_then = calloc(cfg->l2_slices, sizeof *rp->l2_then);
    rp->l2_now = calloc(cfg->l2_slices, sizeof *rp->l2_now);
    rp->sms = calloc(S, sizeof *rp->sms);
    rp->warp_slots = calloc((size_t)S * cfg->max_warps_per_sm, sizeof *rp->warp_slots);
    rp->kernels = json_array();
    rp->traces = json_array();
    rp->queues = gcr_warpq_pool_create();
    rp->wake = malloc(S * sizeof *rp->wake);
    rp->order = calloc(S, sizeof *rp->order);
    rp->pf = calloc(S, sizeof *rp->pf);
    if (!rp->l1_stats || !rp->l1_then || !rp->l2_then || !rp->l2_now || !rp->sms ||
        !rp->warp_slots || !rp->kernels || !rp->traces || !rp->queues || !rp->wake ||
        !rp->order || !rp->pf) {
        gcr_replay_destroy(rp);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    for (uint32_t s = 0; s < S; s++) {
        rp->sms[s].active = rp->warp_slots + (size_t)s * cfg->max_warps_per_sm;
        rp->sms[s].last = -1;
        rp->wake[s] = UINT64_MAX;
    }

    /* Analyses named in the config, in the config's order (deterministic). */
    const char *name;
    json_t *opts;
    size_t nan = json_object_size(cfg->analyses);
    rp->bus.subs = calloc(nan + 1, sizeof *rp->bus.subs); /* + the timing model */
    if (!rp->bus.subs) {
        gcr_replay_destroy(rp);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    if (gcr_memsys_init(&rp->mem, cfg, &rp->bus, err) != 0) {
        gcr_replay_destroy(rp);
        return -1;
    }
    rp->info = (struct gcr_sim_info){.config = cfg, .num_sms = S, .num_l1s = S,
                                     .num_l2_slices = cfg->l2_slices,
                                     .l1_whole_line_evictions = org->whole_line_evictions,
                                     .line_bytes = cfg->line_bytes,
                                     .sector_bytes = cfg->sector_bytes};
    struct gcr_l1org_ctx ctx = {.config = cfg, .info = &rp->info, .mem = &rp->mem,
                                .bus = &rp->bus};
    if (org->create(&rp->org_self, &ctx, cfg->l1_org_options, err) != 0) {
        rp->org_self = NULL;
        gcr_replay_destroy(rp);
        return -1;
    }
    rp->info.num_l1s = org->num_instances(rp->org_self);
    rp->mem.num_ports = rp->info.num_l1s;

    /* Timing mode: the model observes the bus first, before any analysis. */
    if (cfg->timing.enabled) {
        void *self;
        if (gcr_timing_observer.create(&self, NULL, &rp->info, err) != 0) {
            gcr_replay_destroy(rp);
            return -1;
        }
        /* The replay consults the model as it goes: it needs every event at once. */
        gcr_bus_add(&rp->bus, &gcr_timing_observer, self, true);
        rp->timing = gcr_timing_of(self);
        rp->sm_heap = calloc(S, sizeof *rp->sm_heap);
        rp->sm_heap_pos = calloc(S, sizeof *rp->sm_heap_pos);
        rp->sm_heap_key = calloc(S, sizeof *rp->sm_heap_key);
        if (!rp->sm_heap || !rp->sm_heap_pos || !rp->sm_heap_key) {
            gcr_replay_destroy(rp);
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        }
    }

    if (nan) {
        /* Lines are grouped 64 to an entry: streams of lines probe once per 64. */
        if (gcr_idmap_init(&rp->lines, (unsigned)__builtin_ctz(cfg->line_bytes), 6, err) != 0) {
            gcr_replay_destroy(rp);
            return -1;
        }
        rp->info.lines = &rp->lines;
    }
    json_object_foreach(cfg->analyses, name, opts) {
        const struct gcr_analysis_ops *an = NULL;
        for (size_t i = 0; gcr_analyses[i]; i++)
            if (strcmp(gcr_analyses[i]->name, name) == 0)
                an = gcr_analyses[i];
        if (!an) {
            char known[512] = "";
            for (size_t i = 0; gcr_analyses[i]; i++) {
                size_t u = strlen(known);
                snprintf(known + u, sizeof known - u, "%s\"%s\"", i ? ", " : "",
                         gcr_analyses[i]->name);
            }
            gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.%s: unknown analysis (known: %s)",
                     cfg->origin, name, known[0] ? known : "none");
            gcr_replay_destroy(rp);
            return -1;
        }
        if (!json_is_object(opts)) {
            gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.%s: expected an object of options",
                     cfg->origin, name);
            gcr_replay_destroy(rp);
            return -1;
        }
        void *self;
        if (an->create(&self, opts, &rp->info, err) != 0) {
            gcr_replay_destroy(rp);
            return -1;
        }
        gcr_bus_add(&rp->bus, an, self, an->at_emission);
    }
    if (gcr_bus_start(&rp->bus, rp->info.lines, false) != 0) {
        gcr_replay_destroy(rp);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    *out = rp;
    return 0;
}

static void cta_free(struct cta *c)
{
    for (uint32_t w = 0; w < c->cap_warps; w++)
        gcr_warpq_free(&c->warps[w].q);
    free(c->warps);
    free(c);
}

void gcr_replay_destroy(struct gcr_replay *rp)
{
    if (!rp)
        return;
    gcr_bus_fini(&rp->bus); /* first: it may run the analyses on a thread */
    for (size_t i = 0; i < rp->bus.nsubs; i++)
        rp->bus.subs[i].ops->destroy(rp->bus.subs[i].self);
    free(rp->bus.subs);
    if (rp->info.lines)
        gcr_idmap_fini(rp->info.lines);
    if (rp->org_self)
        rp->org->destroy(rp->org_self);
    gcr_memsys_fini(&rp->mem);
    while (rp->free_ctas) {
        struct cta *c = rp->free_ctas;
        rp->free_ctas = c->next;
        cta_free(c);
    }
    gcr_warpq_pool_destroy(rp->queues);
    free(rp->wake);
    free(rp->order);
    free(rp->pf);
    free(rp->l1_stats);
    free(rp->l1_then);
    free(rp->l2_then);
    free(rp->l2_now);
    free(rp->sms);
    free(rp->warp_slots);
    free(rp->sm_heap);
    free(rp->sm_heap_pos);
    free(rp->sm_heap_key);
    skip_log_free(rp->skip);
    json_decref(rp->kernels);
    json_decref(rp->traces);
    free(rp);
}

int gcr_replay_set_analysis_thread(struct gcr_replay *rp, bool on, struct gcr_err *err)
{
    if (!rp->bus.lag_mask || (rp->bus.worker != NULL) == on)
        return 0;
    if (rp->bus.tail)
        return gcr_fail(err, GCR_E_INTERNAL, "the analysis thread is chosen before replaying");
    gcr_bus_fini(&rp->bus);
    if (gcr_bus_start(&rp->bus, rp->info.lines, on) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "could not start the analysis thread");
    return 0;
}

bool gcr_replay_analysis_thread_pays(const struct gcr_replay *rp)
{
    return rp->bus.lag_mask && rp->info.lines && rp->info.lines->ncolumns;
}

void gcr_replay_set_progress(struct gcr_replay *rp, gcr_progress_fn fn, void *ctx)
{
    rp->progress = fn;
    rp->progress_ctx = ctx;
}

/* ------------------------------------------------------------- CTA loading */

static struct cta *cta_get(struct gcr_replay *rp, uint32_t id, uint32_t nwarps)
{
    struct cta *c = rp->free_ctas;
    if (c) {
        rp->free_ctas = c->next;
    } else if (!(c = calloc(1, sizeof *c))) {
        return NULL;
    }
    if (c->cap_warps < nwarps) {
        struct warp *w = realloc(c->warps, nwarps * sizeof *w);
        if (!w) {
            c->next = rp->free_ctas;
            rp->free_ctas = c;
            return NULL;
        }
        memset(w + c->cap_warps, 0, (nwarps - c->cap_warps) * sizeof *w);
        for (uint32_t i = c->cap_warps; i < nwarps; i++)
            w[i].q.pool = rp->queues;
        c->warps = w;
        c->cap_warps = nwarps;
    }
    c->id = id;
    c->nwarps = nwarps;
    c->next = NULL;
    for (uint32_t w = 0; w < nwarps; w++) {
        gcr_warpq_reset(&c->warps[w].q);
        c->warps[w].cta = c;
        c->warps[w].cta_id = id;
        c->warps[w].id = w;
        c->warps[w].nonmem_left = 0;
        c->warps[w].stall_until = 0;
        c->warps[w].ready_at = 0;
        c->warps[w].vws_accesses = c->warps[w].vws_misses = 0;
        c->warps[w].level1 = c->warps[w].mem_wait = false;
    }
    return c;
}

static void cta_put(struct gcr_replay *rp, struct cta *c)
{
    c->next = rp->free_ctas;
    rp->free_ctas = c;
}

static int kernel_fail(struct gcr_replay *rp, struct gcr_err *err, enum gcr_status st,
                       const char *what, uint64_t cta)
{
    struct kernel_state *ks = rp->ks;
    return gcr_fail(err, st, "%s: kernel %u (%s), CTA %llu: %s", gcr_reader_path(ks->r),
                    ks->kb.id, ks->kb.name, (unsigned long long)cta, what);
}

/* Points *rec at the next record of the kernel without taking it (load_cta
 * takes it by advancing ks->run_next). Reads the next run of records when
 * none is left; 1, or -1 with err set. */
static inline int read_record(struct gcr_replay *rp, const struct gcr_record **rec,
                              struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    if (__builtin_expect(ks->run_next < ks->run_count, 1)) {
        *rec = &ks->run[ks->run_next];
        return 1;
    }
    int rc = gcr_reader_next_run(ks->r, ks->run, LOAD_RUN_RECORDS, err);
    if (rc == 0)
        return gcr_fail(err, GCR_E_TRUNCATED, "%s: trace ends inside kernel %u (%s)",
                        gcr_reader_path(ks->r), ks->kb.id, ks->kb.name);
    if (rc < 0)
        return -1;
    ks->run_next = 0;
    ks->run_count = (uint32_t)rc;
    *rec = ks->run;
    /* Progress once per 65536 records, as the run crosses such a multiple. */
    uint64_t before = rp->progress_tick;
    rp->progress_tick += (uint32_t)rc;
    if (rp->progress && (before ^ rp->progress_tick) >> 16) {
        struct gcr_progress p = {gcr_reader_path(ks->r), gcr_reader_bytes_done(ks->r),
                                 gcr_reader_bytes_total(ks->r),
                                 rp->counts.warp_insns + rp->kernel_counts.warp_insns,
                                 rp->nkernels};
        rp->progress(rp->progress_ctx, &p);
    }
    return 1;
}

/* Loads the next whole CTA of the kernel; *out = NULL at the kernel's end. */
static int load_cta(struct gcr_replay *rp, struct cta **out, struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    const struct gcr_record *rec = NULL;
    struct cta *c = NULL;
    *out = NULL;
    if (ks->ended)
        return 0;
    /* In locals, like the loop bounds below: the queue pushes store through
     * byte pointers, after which fields of *ks would have to be read again. */
    const uint64_t nctas = ks->nctas;
    const uint32_t wpc = ks->wpc;
    for (;;) {
        if (read_record(rp, &rec, err) != 1)
            goto fail;
        /* Every record read and not loaded yet, from rec on: a run of one CTA,
         * usually (gcr_reader_next_run). */
        const struct gcr_record *const end = ks->run + ks->run_count;
        for (; rec < end; rec++) {
            bool insn = rec->kind == GCR_REC_WARP_INSN;
            if (__builtin_expect(!insn && rec->kind != GCR_REC_NONMEM, 0)) {
                if (rec->kind != GCR_REC_KERNEL_END) {
                    gcr_fail(err, GCR_E_FORMAT,
                             "%s: kernel %u (%s): a %s record inside a kernel",
                             gcr_reader_path(ks->r), ks->kb.id, ks->kb.name,
                             rec->kind == GCR_REC_KERNEL_BEGIN ? "kernel-begin" : "memcpy");
                    goto fail;
                }
                if (rec->u.kend.id != ks->kb.id) {
                    gcr_fail(err, GCR_E_FORMAT,
                             "%s: kernel %u (%s) closed by the end of kernel %u",
                             gcr_reader_path(ks->r), ks->kb.id, ks->kb.name, rec->u.kend.id);
                    goto fail;
                }
                if (c)
                    goto done; /* left for the next call, which ends the kernel */
                ks->run_next = (uint32_t)(rec - ks->run) + 1;
                ks->ended = true;
                return 0;
            }
            uint32_t cta = insn ? rec->u.insn.cta : rec->u.nonmem.cta;
            uint32_t warp = insn ? rec->u.insn.warp : rec->u.nonmem.warp;
            /* Readers validate records; the engine re-checks only what it indexes
             * arrays with, cheaply, so no reader bug can corrupt memory. */
            if (__builtin_expect(cta >= nctas || warp >= wpc ||
                                     (insn && (rec->u.insn.op >= GCR_OP_COUNT ||
                                               rec->u.insn.space >= GCR_SPACE_COUNT ||
                                               rec->u.insn.width == 0 ||
                                               rec->u.insn.width > GCR_MAX_WIDTH)),
                                 0)) {
                const char *bad = gcr_record_invalid(rec, &ks->kb);
                if (bad) {
                    kernel_fail(rp, err, GCR_E_FORMAT, bad, cta);
                    goto fail;
                }
            }
            if (!c) {
                /* Readers guarantee that a CTA's records are contiguous (the shared
                 * stream rules), so a new CTA id starts a new CTA. */
                if (!(c = cta_get(rp, cta, wpc))) {
                    gcr_fail(err, GCR_E_NOMEM, "out of memory loading a CTA");
                    goto fail;
                }
            } else if (cta != c->id) {
                goto done; /* the next CTA's first record, left for the next call */
            }
            struct gcr_warpq *q = &c->warps[warp].q;
            int rc = insn ? gcr_warpq_push_insn(q, &rec->u.insn)
                          : gcr_warpq_push_nonmem(q, rec->u.nonmem.count);
            if (rc != 0) {
                gcr_fail(err, GCR_E_NOMEM, "out of memory loading CTA %u", cta);
                goto fail;
            }
        }
        ks->run_next = ks->run_count;
    }
done:
    ks->run_next = (uint32_t)(rec - ks->run);
    *out = c;
    return 0;
fail:
    if (c)
        cta_put(rp, c);
    return -1;
}

static void heap_fix(struct gcr_replay *rp, uint32_t s); /* timing mode */

static void place(struct gcr_replay *rp, uint32_t s, struct cta *c)
{
    struct sm *sm = &rp->sms[s];
    if (rp->timing && sm->cycle < rp->now)
        sm->cycle = rp->now; /* an idle SM starts the CTA when it arrives */
    /* An SM with warps is awake: only an SM that issued places a CTA (sleep_nonmem). */
    assert(!sm->nactive || rp->wake[s] <= rp->bus.step);
    if (!sm->nactive)
        rp->wake[s] = rp->bus.step;
    c->sm = s;
    c->warps_left = 0;
    for (uint32_t w = 0; w < c->nwarps; w++)
        if (!gcr_warpq_empty(&c->warps[w].q)) {
            sm->active[sm->nactive++] = &c->warps[w];
            c->warps_left++;
        }
    sm->resident_ctas++;
    if (rp->timing)
        heap_fix(rp, s);
    rp->ks->resident++;
    rp->kernel_counts.ctas++;
    /* A loaded CTA has at least one record, so at least one warp with work. */
    assert(c->warps_left > 0);
}

/* Next CTA for SM s, or NULL when the policy has nothing more for it. */
static int next_cta_for(struct gcr_replay *rp, uint32_t s, struct cta **out, struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    uint32_t chips = rp->cfg->chips.count;
    if (rp->cfg->cta_policy == GCR_CTA_ROUND_ROBIN && chips == 1)
        return load_cta(rp, out, err);
    /* Several chips under round-robin: SM s serves its chip's CTA range. */
    if (rp->cfg->cta_policy == GCR_CTA_ROUND_ROBIN)
        s = gcr_chip_of_sm(s, rp->cfg->num_sms, chips);
    *out = NULL;
    while (ks->next_id[s] < ks->end_id[s]) {
        uint64_t want = ks->next_id[s];
        while (!ks->by_id[want] && !ks->ended) {
            struct cta *c;
            if (load_cta(rp, &c, err) != 0)
                return -1;
            if (c)
                ks->by_id[c->id] = c;
        }
        ks->next_id[s]++;
        if (ks->by_id[want]) {
            *out = ks->by_id[want];
            ks->by_id[want] = NULL;
            return 0;
        }
        /* CTA absent from the trace: nothing to run. */
    }
    return 0;
}

static int dispatch(struct gcr_replay *rp, struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    uint32_t S = rp->cfg->num_sms;
    bool more = true;
    while (more) {
        more = false;
        for (uint32_t i = 0; i < S; i++) {
            uint32_t s = (ks->rr_next + i) % S;
            if (rp->sms[s].resident_ctas >= ks->fit)
                continue;
            struct cta *c;
            if (next_cta_for(rp, s, &c, err) != 0)
                return -1;
            if (!c) {
                if (rp->cfg->cta_policy == GCR_CTA_ROUND_ROBIN && rp->cfg->chips.count == 1)
                    return 0; /* the kernel has no more CTAs */
                continue;
            }
            place(rp, s, c);
            ks->rr_next = (s + 1) % S;
            more = true;
            /* Round-robin hands one CTA per SM per round, like a GPU's
             * block scheduler: restart the round after the SM just served. */
            break;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------- issue */

/* The sectors of coalesced request r of line `line`: its mask, or in sector
 * granularity (each request one sector-sized unit) the unit's one sector. */
static inline uint32_t unit_sectors(const struct gcr_line_req *r, uint64_t line, bool per_sector,
                                    unsigned sector_log2)
{
    return per_sector ? 1u << ((r->line_addr - line) >> sector_log2) : r->sector_mask;
}

/* Always inlined: the functional issue loop is the hot path, and a second
 * caller (timing mode) must not turn it into a call. */
static inline __attribute__((always_inline)) void execute(struct gcr_replay *rp, struct sm *sm,
                                                          uint32_t s, struct warp *w,
                                                          struct gcr_lane_shape *shape)
{
    const struct gcr_config *cfg = rp->cfg;
    struct gcr_warp_insn *in = &rp->insn;
    in->cta = w->cta_id;
    in->warp = w->id;
    rp->kernel_counts.mem[in->space][in->op]++;

    /* Observers of instructions see every lane address; the strided
     * coalescing path below does not need them. */
    if (gcr_bus_wants(&rp->bus, GCR_EV_INSN)) {
        if (!shape->strided || rp->bus.insn_all_lanes)
            gcr_lane_shape_expand(shape, in);
        else if (in->active_mask) /* every observer derives the rest from the stride */
            in->addr[__builtin_ctz(in->active_mask)] = shape->base;
        in->strided = shape->strided; /* the hint, for observers' fast paths */
        in->stride = shape->stride;
        gcr_bus_emit_insn(&rp->bus, s, in);
    }
    if (in->space != GCR_SPACE_GLOBAL && in->space != GCR_SPACE_LOCAL)
        return; /* shared memory is on-chip; const/texture caches are not modelled */

    /* In sector granularity the coalescer works in sector-sized units: each
     * unit becomes one single-sector request to the L1. */
    bool per_sector = cfg->granularity == GCR_GRAN_SECTOR;
    uint32_t unit = per_sector ? cfg->sector_bytes : cfg->line_bytes;
    bool atomic = in->op == GCR_OP_ATOMIC || in->op == GCR_OP_REDUCTION;
    uint32_t n = GCR_COALESCE_NOT_CONTIGUOUS;
    if (atomic) {
        gcr_lane_shape_expand(shape, in);
        n = gcr_coalesce_atomic(in, unit, cfg->sector_bytes, rp->reqs);
    } else if (shape->strided)
        n = gcr_coalesce_strided(in->active_mask, shape->base, shape->stride, in->width, unit,
                                 cfg->sector_bytes, rp->reqs);
    if (n == GCR_COALESCE_NOT_CONTIGUOUS) {
        gcr_lane_shape_expand(shape, in);
        n = gcr_coalesce(in, unit, cfg->sector_bytes, rp->reqs);
    }
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
            req.line_addr = rp->reqs[i].line_addr & line_mask;
            req.sector_mask = unit_sectors(&rp->reqs[i], req.line_addr, per_sector, sector_log2);
            req.bytes = rp->reqs[i].bytes;
            if (rp->org->access(rp->org_self, &req) != GCR_HIT && !is_write)
                waits = true;
        }
    } else {
        /* Atomics and reductions go to the L2; so does whatever bypasses the L1. */
        for (uint32_t i = 0; i < n; i++) {
            uint64_t line = rp->reqs[i].line_addr & line_mask;
            uint32_t sectors = unit_sectors(&rp->reqs[i], line, per_sector, sector_log2);
            if (atomic) {
                rp->kernel_counts.atomic_requests++;
                gcr_memsys_atomic(&rp->mem, s, s, line, sectors, in);
            } else {
                rp->kernel_counts.bypass_requests++;
                if (is_write)
                    gcr_memsys_write(&rp->mem, s, s, line, sectors, rp->reqs[i].bytes, in);
                else
                    gcr_memsys_read(&rp->mem, s, s, line, sectors, true, in);
            }
        }
    }
    if (waits && n && cfg->warp_policy == GCR_WARP_GTO)
        w->stall_until = sm->issued + cfg->gto_miss_stall;
}

/* Loose round-robin: the index of the resident warp after the one issued
 * last (sm->last, -1 before any), wrapping to 0. last < nactive, so no
 * division is needed. */
static inline uint32_t lrr_next(const struct sm *sm)
{
    uint32_t i = (uint32_t)(sm->last + 1);
    return i < sm->nactive ? i : 0;
}

static struct warp *pick_warp(struct gcr_replay *rp, struct sm *sm, uint32_t *index)
{
    if (rp->cfg->warp_policy == GCR_WARP_LRR) {
        *index = lrr_next(sm);
        return sm->active[*index];
    }
    /* GTO: stay on the current warp while it is ready, else the oldest ready
     * warp; if every warp waits on a miss, the one whose wait ends first. */
    uint32_t best = 0;
    for (uint32_t i = 0; i < sm->nactive; i++) {
        struct warp *w = sm->active[i];
        if (w == sm->current && w->stall_until <= sm->issued) {
            *index = i;
            return w;
        }
    }
    for (uint32_t i = 0; i < sm->nactive; i++) {
        if (sm->active[i]->stall_until <= sm->issued) {
            *index = i;
            return sm->active[i];
        }
        if (sm->active[i]->stall_until < sm->active[best]->stall_until)
            best = i;
    }
    *index = best;
    return sm->active[best];
}

/* The warp SM sm, which has warps, will probably issue next. A guess for
 * prefetching only: under GTO it is the current warp. */
static const struct warp *guess_next(const struct sm *sm, bool lrr)
{
    const struct warp *w = sm->current;
    if (lrr || !w)
        w = sm->active[lrr_next(sm)];
    return w;
}

/* Thousands of resident warps: neither the warp record, nor the queue head of
 * the warp an SM issues next, nor the L1 and L2 state its access will read is
 * likely to be in the host's cache, and each is found through the previous
 * one, so reading them when the SM issues would stall on a chain of misses.
 * Instead they are fetched in stages, ahead of the SM issuing in the round's
 * order of issuing SMs (issue_order), each stage PREFETCH_GAP SMs after the one
 * whose loads it reads: the record, then the head, then (through the
 * organisation's prefetch hint, when it has one, and the L2's) the caches'
 * bucket and set state, then their line record and LRU victim. The last two
 * stages run only at the host prefetch level that asks for them (the L1's at
 * GCR_HOST_PREFETCH_L1, both at _L2), which the tuner picks by measuring
 * (prefetch_tuner.h): they cost instructions, and pay only when the caches'
 * state does not stay in the host's caches anyway. rp->pf[k] belongs to the k-th
 * SM of the round's order; nothing in it outlives the round. One SM apart is
 * enough since SMs sleeping through non-memory runs no longer take slots
 * (each issue now spends a whole memory access), and is faster than two:
 * shorter rounds' first SMs wait less for the pipeline to fill, and fewer
 * fetches are in flight at once. */
enum { PREFETCH_GAP = 1, PREFETCH_FOLLOW = PREFETCH_GAP, PREFETCH_START = 2 * PREFETCH_GAP,
       PREFETCH_HEAD = 3 * PREFETCH_GAP, PREFETCH_WARP = 4 * PREFETCH_GAP };

/* Step j of the round's pipeline over its n issuing SMs: each stage works on
 * the SM its distance behind the warp stage's (j), so the SM at position k
 * issues at step k + PREFETCH_WARP, after every stage ran for it. Unsigned
 * positions: one before the round's first SM wraps past n. */
static void prefetch_stages(struct gcr_replay *rp, uint32_t j, uint32_t n, bool lrr,
                            enum gcr_host_prefetch level, bool org_prefetches)
{
    const struct warp *w;
    struct prefetch *pf;
    uint32_t k = j;
    if (k < n) {
        rp->pf[k].next = w = guess_next(&rp->sms[rp->order[k]], lrr);
        __builtin_prefetch(w); /* a warp record may straddle two host lines */
        __builtin_prefetch((const char *)(w + 1) - 1);
    }
    if ((k = j - (PREFETCH_WARP - PREFETCH_HEAD)) < n) {
        pf = &rp->pf[k];
        w = pf->next;
        /* Nothing to predict from in a non-memory run or an empty queue. */
        pf->head = w->nonmem_left ? NULL : gcr_warpq_head(&w->q);
        /* A strided instruction's item (the common one) may straddle two host lines. */
        __builtin_prefetch(w->q.buf + w->q.pos);
        __builtin_prefetch(w->q.buf + w->q.pos + GCR_WQ_STRIDED_BYTES - 1);
    }
    /* The level is the same for the whole round (read once per round), so a
     * position's follow stage below runs only after its start stage reset
     * its hints in the same round: no hint of an earlier round is followed. */
    if (level == GCR_HOST_PREFETCH_QUEUES)
        return;
    /* The hint's first stage predicts the SM's access from its queue head
     * (kept in rp->pf with each cache's hint); the second only follows it. */
    if ((k = j - (PREFETCH_WARP - PREFETCH_START)) < n) {
        pf = &rp->pf[k];
        pf->l1.cache = pf->l2.cache = NULL;
        uint64_t addr;
        if (pf->head && gcr_warpq_item_addr(pf->head, &addr)) {
            if (org_prefetches)
                rp->org->prefetch(rp->org_self, rp->order[k], addr, &pf->l1);
            if (level == GCR_HOST_PREFETCH_L2) /* most L1 misses go there */
                gcr_memsys_prefetch(&rp->mem, addr, &pf->l2);
        }
    }
    if ((k = j - (PREFETCH_WARP - PREFETCH_FOLLOW)) < n) {
        pf = &rp->pf[k];
        if (pf->l1.cache)
            gcr_cache_prefetch_follow(&pf->l1);
        if (pf->l2.cache)
            gcr_cache_prefetch_follow(&pf->l2);
    }
}

/* This thread's CPU time: what the prefetch tuner compares levels by. Wall
 * time would also count the time the host gave to other work. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0; /* no such clock: every level measures as free, the least one wins */
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void warp_done(struct gcr_replay *rp, struct sm *sm, uint32_t index)
{
    struct warp *w = sm->active[index];
    memmove(&sm->active[index], &sm->active[index + 1],
            (sm->nactive - index - 1) * sizeof sm->active[0]);
    if (--sm->nactive == 0)
        rp->wake[sm - rp->sms] = UINT64_MAX;
    if ((int32_t)index <= sm->last)
        sm->last--;
    if (sm->current == w)
        sm->current = NULL;
    struct cta *c = w->cta;
    if (--c->warps_left == 0) {
        sm->resident_ctas--;
        rp->ks->resident--;
        rp->ks->cta_finished = true;
        cta_put(rp, c);
    }
}

/* Takes a warp's next instruction, counting it: true when it is a memory
 * instruction (now in rp->insn, its lane shape in *shape), false when it is a
 * non-memory one. Shared by the functional and the timing issue paths. */
static inline bool next_insn(struct gcr_replay *rp, struct warp *w,
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
    return true;
}

/* Non-memory instructions a warp can issue without taking an item from its
 * queue and without finishing (its last instruction ends it: warp_done). */
static inline uint32_t nonmem_spare(const struct warp *w)
{
    return w->nonmem_left && gcr_warpq_empty(&w->q) ? w->nonmem_left - 1 : w->nonmem_left;
}

/* Functional replay: the policy picked the warp at `index` of SM sm's resident
 * warps, and it is inside a run of non-memory instructions. Issue slots that
 * take no item from a queue and end no warp touch no cache and change only this
 * SM's warps and counters, so the SM applies the longest run of them it can
 * see at once and sleeps until the round after (rp->wake). Nothing else reads
 * its warps meanwhile: dispatch places CTAs only on SMs whose own CTA just
 * finished (place), and the prefetcher skips sleeping SMs. False when not even
 * this slot qualifies (it issues the warp's last instruction).
 *
 * Under GTO the picked warp stays the current, ready one through its run. Under
 * LRR the j-th warp from `index` on (n resident) is picked
 * floor((R - 1 - j) / n) + 1 times in R rounds (j < R), so R rounds qualify
 * while R <= j + spare_j * n for each warp: the slots of a non-memory phase of
 * one SM's warps, or of rounds in which every warp is inside a long run (a
 * record may count up to 2^32 - 1 non-memory instructions). */
static bool sleep_nonmem(struct gcr_replay *rp, uint32_t s, uint32_t index, bool lrr)
{
    struct sm *sm = &rp->sms[s];
    uint32_t n = sm->nactive;
    uint64_t rounds = nonmem_spare(sm->active[index]);
    if (lrr) {
        rounds *= n;
        uint32_t i = index;
        for (uint32_t j = 1; j < n && j < rounds; j++) {
            if (++i == n)
                i = 0;
            uint64_t r = j + (uint64_t)nonmem_spare(sm->active[i]) * n;
            if (r < rounds)
                rounds = r;
        }
    }
    if (!rounds)
        return false;
    uint32_t last = index;
    if (lrr) {
        /* R = q * n + e rounds pick the j-th warp q + (j < e) times. */
        uint64_t q = rounds / n;
        uint32_t e = (uint32_t)(rounds % n), i = index;
        for (uint32_t j = 0; j < n && j < rounds; j++) {
            sm->active[i]->nonmem_left -= (uint32_t)q + (j < e);
            if (++i == n)
                i = 0;
        }
        last = index + (e ? e - 1 : n - 1);
        if (last >= n)
            last -= n;
    } else {
        sm->active[index]->nonmem_left -= (uint32_t)rounds;
    }
    sm->last = (int32_t)last;
    sm->current = sm->active[last];
    sm->issued += rounds;
    rp->wake[s] = rp->bus.step + rounds;
    rp->kernel_counts.warp_insns += rounds;
    rp->kernel_counts.nonmem += rounds;
    return true;
}

static void sm_issue(struct gcr_replay *rp, uint32_t s, bool lrr)
{
    struct sm *sm = &rp->sms[s];
    uint32_t index;
    struct warp *w = pick_warp(rp, sm, &index);
    if (w->nonmem_left && sleep_nonmem(rp, s, index, lrr))
        return;
    sm->last = (int32_t)index;
    sm->current = w;
    sm->issued++;
    struct gcr_lane_shape shape;
    if (next_insn(rp, w, &shape))
        execute(rp, sm, s, w, &shape);
    if (!w->nonmem_left && gcr_warpq_empty(&w->q))
        warp_done(rp, sm, index);
}

/* The SMs that issue in this round, in SM order, into rp->order; their number.
 * When every SM with warps sleeps, the rounds until the first one wakes are
 * skipped (rp->bus.step moves on). Functional replay only. */
static uint32_t issue_order(struct gcr_replay *rp)
{
    const uint32_t S = rp->cfg->num_sms;
    const uint64_t *const wake = rp->wake;
    uint32_t *const order = rp->order;
    for (;;) {
        uint32_t n = 0;
        const uint64_t step = rp->bus.step;
        /* Without a branch: about half the SMs issue in a round, in no
         * predictable pattern. Every SM is written at the end of the list and
         * kept only if awake (order has room for all of them). */
        for (uint32_t s = 0; s < S; s++) {
            order[n] = s;
            n += wake[s] <= step;
        }
        if (n)
            return n;
        uint64_t first_wake = UINT64_MAX;
        for (uint32_t s = 0; s < S; s++)
            if (rp->wake[s] < first_wake)
                first_wake = rp->wake[s];
        if (first_wake == UINT64_MAX)
            return 0;
        rp->bus.step = first_wake;
    }
}

/* ------------------------------------------------------------ timing mode */

/* With timing (src/timing/README.md), each SM has a clock; the SM with the
 * earliest next issue cycle issues next, so functional accesses interleave
 * across SMs in (approximate) time order. At one cycle an SM issues up to
 * timing.issue_per_cycle instructions, each from a different ready warp, in
 * the order of the warp policy; a warp is ready when its last instruction
 * allows (non-memory: the ALU latency; load: its data returned). */

/* SMs ordered by next issue cycle: a binary min-heap of SM ids (key: the
 * SM's cycle, +infinity while it has no warp), so picking the earliest SM
 * costs log(SMs). */
static double sm_key(const struct gcr_replay *rp, uint32_t s)
{
    return rp->sms[s].nactive ? rp->sms[s].cycle : INFINITY;
}

/* Heap order: the earlier cycle first and, at the same cycle, the lower SM id, so that the SMs
 * of one cycle issue in SM order (as GPGPU-Sim cycles its cores) whatever the heap's history:
 * an SM whose clock jumps ahead (skip_nonmem_timed) leaves the others' order as it was. */
static inline bool heap_before(double ka, uint32_t a, double kb, uint32_t b)
{
    return ka < kb || (ka == kb && a < b);
}

/* Restores the heap after SM s's key changed; keys are cached beside the
 * ids (sm_heap_key[i] is the key of sm_heap[i]) so sifting reads one array. */
static void heap_fix(struct gcr_replay *rp, uint32_t s)
{
    uint32_t *h = rp->sm_heap, *pos = rp->sm_heap_pos, n = rp->cfg->num_sms;
    double *key = rp->sm_heap_key;
    uint32_t i = pos[s];
    double k = sm_key(rp, s);
    while (i > 0 && heap_before(k, s, key[(i - 1) / 2], h[(i - 1) / 2])) { /* up */
        uint32_t p = (i - 1) / 2;
        h[i] = h[p];
        key[i] = key[p];
        pos[h[i]] = i;
        i = p;
    }
    for (;;) { /* down */
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        double mk = k;
        uint32_t ms = s;
        if (l < n && heap_before(key[l], h[l], mk, ms)) {
            m = l;
            mk = key[l];
            ms = h[l];
        }
        if (r < n && heap_before(key[r], h[r], mk, ms))
            m = r;
        if (m == i)
            break;
        h[i] = h[m];
        key[i] = key[m];
        pos[h[i]] = i;
        i = m;
    }
    h[i] = s;
    key[i] = k;
    pos[s] = i;
}

static void timed_kernel_begin(struct gcr_replay *rp, uint32_t l1_blocks)
{
    double start = gcr_timing_kernel_begin(rp->timing);
    uint32_t S = rp->cfg->num_sms;
    uint64_t warps = rp->ks->nctas * rp->ks->wpc;
    rp->now = rp->kernel_end = start;
    rp->l1_blocks = l1_blocks;
    for (uint32_t s = 0; s < S; s++) {
        rp->sms[s].cycle = start;
        gcr_vws_kernel_begin(&rp->sms[s].vws, (warps + S - 1) / S, rp->cfg->timing.vws_alpha);
        gcr_timing_amt_clear(rp->timing, s);
        rp->sm_heap[s] = s;
        rp->sm_heap_pos[s] = s;
        rp->sm_heap_key[s] = INFINITY; /* no warps yet: placing CTAs fixes it */
    }
}

/* VWS (seed 004, src/timing/README.md): IWL allows the oldest n_act warps
 * (IntraCL: contiguous slots, so the fewest CTAs); of those, at most
 * level1_warps form the first level of a two-level scheduler, issued
 * greedy-then-oldest. A first-level warp that waits on memory is demoted;
 * the warp promoted in its place belongs, by priority, to a CTA already in
 * the first level, to its predecessor CTA, to its successor, else is the
 * oldest (InterCL). */
static uint32_t pick_vws(struct gcr_replay *rp, struct sm *sm, double now, uint32_t max,
                         uint32_t *picks, double *next_ready)
{
    uint32_t n = sm->nactive;
    uint32_t nact = sm->vws.n_act < n ? sm->vws.n_act : n;
    uint32_t cap = rp->cfg->timing.vws_level1_warps, in1 = 0;
    uint32_t lo = UINT32_MAX, hi = 0; /* CTA ids present in the first level */
    for (uint32_t i = 0; i < n; i++) {
        struct warp *w = sm->active[i];
        if (w->level1 && (i >= nact || (w->mem_wait && w->ready_at > now)))
            w->level1 = false;
        if (w->level1) {
            in1++;
            lo = w->cta->id < lo ? w->cta->id : lo;
            hi = w->cta->id > hi ? w->cta->id : hi;
        }
    }
    while (in1 < cap) {
        uint32_t best = UINT32_MAX, best_rank = 4;
        for (uint32_t i = 0; i < nact && best_rank > 0; i++) {
            struct warp *w = sm->active[i];
            if (w->level1 || (w->mem_wait && w->ready_at > now))
                continue;
            uint32_t id = w->cta->id, rank = 3;
            if (in1 && id >= lo && id <= hi)
                rank = 0; /* first-level CTAs are consecutive ids: lo..hi */
            else if (in1 && id + 1 == lo)
                rank = 1;
            else if (in1 && id == hi + 1)
                rank = 2;
            if (rank < best_rank) {
                best_rank = rank;
                best = i;
            }
        }
        if (best == UINT32_MAX)
            break;
        struct warp *w = sm->active[best];
        w->level1 = true;
        in1++;
        lo = w->cta->id < lo ? w->cta->id : lo;
        hi = w->cta->id > hi ? w->cta->id : hi;
    }
    /* GTO inside the first level. The SM's next event: a first-level warp
     * becoming ready or, while the level has room, any allowed warp. */
    uint32_t got = 0, cur = UINT32_MAX;
    double next = INFINITY;
    for (uint32_t i = 0; i < nact; i++)
        if (sm->active[i] == sm->current && sm->active[i]->level1 &&
            sm->active[i]->ready_at <= now) {
            cur = i;
            picks[got++] = i;
        }
    for (uint32_t i = 0; i < nact; i++) {
        struct warp *w = sm->active[i];
        if (i == cur)
            continue;
        if (w->level1 && w->ready_at <= now && got < max)
            picks[got++] = i;
        else if ((w->level1 || in1 < cap) && w->ready_at < next)
            next = w->ready_at;
    }
    /* A picked warp that goes to memory is demoted at once, and a second-level
     * warp may take its place next cycle. */
    rp->vws_spare = in1 == cap && nact > cap;
    *next_ready = next > now ? next : now + 1;
    return got;
}

/* One pass over the SM's warps at cycle `now`: the warps to issue, in the
 * policy's order (at most `max`, each ready), and the earliest cycle at which
 * a warp not picked becomes ready (now + 1 if one is ready already). */
static uint32_t pick_ready(struct gcr_replay *rp, struct sm *sm, double now, uint32_t max,
                           uint32_t *picks, double *next_ready)
{
    uint32_t n = sm->nactive, got = 0;
    double next = INFINITY;
    if (rp->cfg->warp_policy == GCR_WARP_VWS)
        return pick_vws(rp, sm, now, max, picks, next_ready);
    if (rp->cfg->warp_policy == GCR_WARP_LRR) {
        /* Loose round-robin: from the warp after the one issued last. */
        uint32_t i = (uint32_t)(sm->last + 1);
        for (uint32_t k = 0; k < n; k++, i++) {
            if (i >= n)
                i = 0;
            double r = sm->active[i]->ready_at;
            if (r <= now && got < max)
                picks[got++] = i;
            else if (r < next)
                next = r;
        }
    } else {
        /* Greedy-then-oldest: the warp issued last while it stays ready, then
         * the oldest ready ones. */
        uint32_t cur = UINT32_MAX;
        for (uint32_t i = 0; i < n; i++)
            if (sm->active[i] == sm->current && sm->active[i]->ready_at <= now) {
                cur = i;
                picks[got++] = i;
            }
        for (uint32_t i = 0; i < n; i++) {
            double r = sm->active[i]->ready_at;
            if (i == cur)
                continue;
            if (r <= now && got < max)
                picks[got++] = i;
            else if (r < next)
                next = r;
        }
    }
    *next_ready = next > now ? next : now + 1;
    return got;
}

/* VWS bookkeeping after a memory instruction: the warp's saturating
 * counters, and whether it now waits on memory beyond an L1 hit. */
static void vws_count(struct gcr_replay *rp, struct warp *w, double now)
{
    uint32_t acc, miss;
    gcr_timing_insn_l1_counts(rp->timing, &acc, &miss);
    w->vws_accesses = w->vws_accesses + acc > GCR_VWS_COUNTER_MAX ? GCR_VWS_COUNTER_MAX
                                                                  : w->vws_accesses + acc;
    w->vws_misses = w->vws_misses + miss > GCR_VWS_COUNTER_MAX ? GCR_VWS_COUNTER_MAX
                                                               : w->vws_misses + miss;
    w->mem_wait = w->ready_at > now + rp->cfg->timing.l1_latency;
}

static void sm_step_timed(struct gcr_replay *rp, uint32_t s)
{
    struct sm *sm = &rp->sms[s];
    const struct gcr_timing_config *tc = &rp->cfg->timing;
    double now = sm->cycle, next;
    uint32_t picks[64];
    struct warp *picked[64];
    rp->now = now;
    rp->bus.step = (uint64_t)now;
    uint32_t got = pick_ready(rp, sm, now, tc->issue_per_cycle, picks, &next);
    bool memory = false;
    for (uint32_t k = 0; k < got; k++)
        picked[k] = sm->active[picks[k]];
    if (got) {
        sm->last = (int32_t)picks[got - 1];
        sm->current = picked[got - 1];
    }
    for (uint32_t k = 0; k < got; k++) {
        struct warp *w = picked[k];
        w->ready_at = now + tc->alu_latency;
        w->mem_wait = false;
        struct gcr_lane_shape shape;
        if (next_insn(rp, w, &shape)) {
            memory = true;
            gcr_timing_insn_begin(rp->timing, s, now, rp->insn.op, rp->insn.space,
                                  gcr_bits_popcount32(rp->insn.active_mask) *
                                      (uint32_t)rp->insn.width);
            execute(rp, sm, s, w, &shape);
            w->ready_at = gcr_timing_insn_end(rp->timing);
            if (rp->cfg->warp_policy == GCR_WARP_VWS) {
                vws_count(rp, w, now);
                if (w->mem_wait && rp->vws_spare)
                    next = now + 1;
            }
        }
        if (!w->nonmem_left && gcr_warpq_empty(&w->q)) {
            if (w->ready_at > rp->kernel_end)
                rp->kernel_end = w->ready_at;
            if (rp->cfg->warp_policy == GCR_WARP_VWS &&
                gcr_vws_warp_done(&sm->vws, w->vws_misses, w->vws_accesses,
                                  rp->cfg->timing.vws_beta, rp->l1_blocks))
                gcr_timing_amt_clear(rp->timing, s);
            /* Indices moved if warps before it left: find it (once per warp). */
            uint32_t index = 0;
            while (sm->active[index] != w)
                index++;
            warp_done(rp, sm, index);
            next = now + 1; /* the warps left may be picked differently (VWS window) */
        } else if (w->ready_at < next) {
            next = w->ready_at;
        }
    }
    sm->cycle = next > now ? next : now + 1;
    sm->nonmem_steps = memory ? 0 : sm->nonmem_steps + 1;
    heap_fix(rp, s);
}

/* Timing mode, inside long runs of non-memory instructions. A trace record may
 * count up to 2^32 - 1 of them, and issuing them one step at a time would take
 * minutes. While every warp of an SM is inside such a run, the SM touches no
 * cache and no shared resource, no warp of it ends, and no CTA is placed on it
 * (place), so its steps depend on its own state only: the warps' ready cycles
 * relative to its clock, their scheduling flags, and the policy's last and
 * current warp. That state comes back after a period of P cycles in which
 * each warp issued c_i instructions, and then repeats: skip_nonmem_timed steps
 * the SM until a state repeats and applies m whole periods at once, m as large
 * as every warp's run allows. The other SMs cannot tell: at equal cycles SMs
 * issue in SM order (heap_before), not in an order this SM's steps would have
 * left in the heap. The result is the one of stepping, instruction for
 * instruction, cycle for cycle; the unit test replay-engine checks it.
 *
 * Exactness of the cycle arithmetic: stepping adds whole cycles (latencies, or
 * 1) to the clock and the ready cycles. That is exact for whole numbers below
 * 2^53, and for fractional ones (a memory reply between clock domains) as long
 * as every value stays in one binade [2^e, 2^(e+1)), where a double's last
 * bit weighs at most one cycle. A jump is kept within those bounds, so it adds
 * exactly what the steps would have; beyond them the SM steps on. */
enum {
    SKIP_AFTER_STEPS = 256,   /* steps without a memory instruction before a try */
    SKIP_STEPS_PER_WARP = 16, /* a try records up to 16 * (warps + 4) steps */
};

/* An SM's states, step by step, for one try. Per step k: its clock, last and current warp, a
 * hash, and per warp i (index k * n + i) the ready cycle, flags and non-memory count left. */
struct skip_log {
    size_t cap_steps, cap_warps;
    double *now, *ready;
    int32_t *last, *current;
    uint64_t *hash;
    uint32_t *left;
    uint8_t *flags;
};

static void skip_log_free(struct skip_log *g)
{
    if (!g)
        return;
    free(g->now);
    free(g->ready);
    free(g->last);
    free(g->current);
    free(g->hash);
    free(g->left);
    free(g->flags);
    free(g);
}

static struct skip_log *skip_log_get(struct gcr_replay *rp, size_t steps, size_t warps)
{
    struct skip_log *g = rp->skip;
    if (g && g->cap_steps >= steps && g->cap_warps >= warps)
        return g;
    skip_log_free(g);
    rp->skip = g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->cap_steps = steps;
    g->cap_warps = warps;
    g->now = malloc(steps * sizeof *g->now);
    g->last = malloc(steps * sizeof *g->last);
    g->current = malloc(steps * sizeof *g->current);
    g->hash = malloc(steps * sizeof *g->hash);
    g->ready = malloc(steps * warps * sizeof *g->ready);
    g->left = malloc(steps * warps * sizeof *g->left);
    g->flags = malloc(steps * warps * sizeof *g->flags);
    if (!g->now || !g->last || !g->current || !g->hash || !g->ready || !g->left || !g->flags) {
        skip_log_free(g);
        rp->skip = NULL;
    }
    return rp->skip;
}

/* Records SM sm's state as step k of the log. A warp ready now is recorded as ready at the
 * clock: how long ago it became ready changes nothing the policies do. */
static void skip_log_record(struct skip_log *g, size_t k, const struct sm *sm)
{
    uint32_t n = sm->nactive;
    double now = sm->cycle;
    uint64_t h = 1469598103934665603ull ^ (uint64_t)(int64_t)sm->last;
    g->now[k] = now;
    g->last[k] = sm->last;
    g->current[k] = -1;
    for (uint32_t i = 0; i < n; i++) {
        const struct warp *w = sm->active[i];
        if (w == sm->current)
            g->current[k] = (int32_t)i;
        double r = w->ready_at > now ? w->ready_at : now;
        uint8_t f = (uint8_t)(w->level1 | w->mem_wait << 1);
        g->ready[k * n + i] = r;
        g->flags[k * n + i] = f;
        g->left[k * n + i] = w->nonmem_left;
        h = (h ^ f ^ (uint64_t)llround(r - now) << 8) * 1099511628211ull;
    }
    g->hash[k] = h ^ (uint64_t)(int64_t)g->current[k] << 32;
}

/* Whether step k's state is step j's moved on by P = now[k] - now[j] cycles, exactly. */
static bool skip_log_same(const struct skip_log *g, size_t j, size_t k, uint32_t n)
{
    double p = g->now[k] - g->now[j];
    if (g->hash[j] != g->hash[k] || g->last[j] != g->last[k] ||
        g->current[j] != g->current[k] || !(p > 0) || g->now[j] + p != g->now[k])
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (g->flags[j * n + i] != g->flags[k * n + i] ||
            g->ready[j * n + i] + p != g->ready[k * n + i])
            return false;
    return true;
}

/* Periods the SM may skip after step k repeated step j (see above); 0 if none. */
static uint64_t skip_periods(const struct skip_log *g, size_t j, size_t k, const struct sm *sm)
{
    uint32_t n = sm->nactive;
    double p = g->now[k] - g->now[j], lo = g->now[k], hi = lo;
    uint64_t m = UINT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = g->left[j * n + i] - g->left[k * n + i]; /* issued in a period */
        if (c)
            m = nonmem_spare(sm->active[i]) / c < m ? nonmem_spare(sm->active[i]) / c : m;
        hi = g->ready[k * n + i] > hi ? g->ready[k * n + i] : hi;
    }
    if (m == UINT64_MAX) /* no warp issued: cannot be, the clock moved on */
        return 0;
    const double exact = 9007199254740992.0; /* 2^53 */
    bool whole = p == floor(p) && lo == floor(lo);
    for (uint32_t i = 0; i < n && whole; i++)
        whole = g->ready[k * n + i] == floor(g->ready[k * n + i]);
    double limit = exact;
    if (!whole) { /* stay in lo's binade, where every step is exact too */
        if (!(lo >= 1))
            return 0;
        int e;
        frexp(lo, &e); /* lo in [2^(e-1), 2^e) */
        limit = ldexp(1.0, e);
    }
    if (!(hi < limit))
        return 0;
    double room = floor((limit - hi) / p);
    if (room < 1)
        return 0;
    /* Strictly below the limit after the jump. */
    uint64_t by_room = (uint64_t)room - ((limit - hi) == room * p);
    return m < by_room ? m : by_room;
}

/* Steps SM s (at least once) and, when its warps are all deep inside runs of non-memory
 * instructions, skips whole periods of its steps (see above). */
static void skip_nonmem_timed(struct gcr_replay *rp, uint32_t s)
{
    struct sm *sm = &rp->sms[s];
    uint32_t n = sm->nactive;
    size_t steps = (size_t)SKIP_STEPS_PER_WARP * (n + 4);
    /* Every try step issues at most one instruction of each warp, so a warp with more spare
     * instructions than the try's steps stays inside its run throughout. */
    bool deep = n > 0;
    for (uint32_t i = 0; i < n && deep; i++)
        deep = nonmem_spare(sm->active[i]) > 2 * steps;
    struct skip_log *g = deep ? skip_log_get(rp, steps + 1, n) : NULL;
    if (!g) {
        sm_step_timed(rp, s);
        sm->nonmem_steps = 0; /* try again after SKIP_AFTER_STEPS more */
        return;
    }
    skip_log_record(g, 0, sm);
    for (size_t k = 1; k <= steps; k++) {
        sm_step_timed(rp, s);
        skip_log_record(g, k, sm);
        for (size_t j = 0; j < k; j++) {
            if (!skip_log_same(g, j, k, n))
                continue;
            uint64_t m = skip_periods(g, j, k, sm);
            if (m) {
                double shift = (double)m * (g->now[k] - g->now[j]);
                uint64_t issued = 0;
                for (uint32_t i = 0; i < n; i++) {
                    struct warp *w = sm->active[i];
                    uint64_t c = (uint64_t)(g->left[j * n + i] - g->left[k * n + i]) * m;
                    w->nonmem_left -= (uint32_t)c;
                    issued += c;
                    if (w->ready_at > sm->cycle)
                        w->ready_at += shift;
                }
                sm->cycle += shift;
                rp->kernel_counts.warp_insns += issued;
                rp->kernel_counts.nonmem += issued;
                heap_fix(rp, s);
            }
            sm->nonmem_steps = 0;
            return;
        }
    }
    sm->nonmem_steps = 0;
}

static int run_timed(struct gcr_replay *rp, struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    for (uint32_t s = 0; s < rp->cfg->num_sms; s++)
        heap_fix(rp, s);
    while (ks->resident) {
        uint32_t s = rp->sm_heap[0];
        if (rp->sms[s].nonmem_steps >= SKIP_AFTER_STEPS)
            skip_nonmem_timed(rp, s);
        else
            sm_step_timed(rp, s);
        if (ks->cta_finished) {
            ks->cta_finished = false;
            if (dispatch(rp, err) != 0)
                return -1;
        }
    }
    return 0;
}

/* ----------------------------------------------------------------- kernels */

static void snapshot(struct gcr_replay *rp)
{
    rp->org->collect_stats(rp->org_self, rp->l1_then);
    for (uint32_t i = 0; i < rp->cfg->l2_slices; i++)
        rp->l2_then[i] = *gcr_cache_stats(rp->mem.slices[i]);
    rp->traffic_then = rp->mem.traffic;
    memset(&rp->kernel_counts, 0, sizeof rp->kernel_counts);
}

static json_t *counts_json(const struct insn_counts *c)
{
    json_t *by_space = json_object();
    uint64_t mem = 0;
    for (int s = 0; s < GCR_SPACE_COUNT; s++) {
        json_t *ops = json_object();
        for (int o = 0; o < GCR_OP_COUNT; o++) {
            json_object_set_new(ops, gcr_op_name((enum gcr_op)o),
                                json_integer((json_int_t)c->mem[s][o]));
            mem += c->mem[s][o];
        }
        json_object_set_new(by_space, gcr_space_name((enum gcr_space)s), ops);
    }
    return json_pack("{s:I, s:I, s:I, s:o, s:I, s:I}", "warp_total", (json_int_t)c->warp_insns,
                     "memory", (json_int_t)mem, "nonmemory", (json_int_t)c->nonmem,
                     "memory_by_space", by_space, "l1_bypass_requests",
                     (json_int_t)c->bypass_requests, "atomic_requests",
                     (json_int_t)c->atomic_requests);
}

static json_t *traffic_json(const struct gcr_traffic *now, const struct gcr_traffic *then)
{
    static const struct gcr_traffic zero;
    if (!then)
        then = &zero;
#define D(f) (json_int_t)(now->f - then->f)
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "l2_to_l1_bytes", D(l2_to_l1_bytes),
                     "l1_to_l2_write_bytes", D(l1_to_l2_write_bytes), "l1_writeback_bytes",
                     D(l1_writeback_bytes), "l2_to_sm_bypass_bytes", D(l2_to_sm_bypass_bytes),
                     "dram_read_bytes", D(dram_read_bytes), "dram_write_bytes",
                     D(dram_write_bytes));
#undef D
}

/* The statistics of a period (kernel or whole run) as a report object. */
static json_t *period_json(struct gcr_replay *rp, const struct insn_counts *counts, bool kernel)
{
    rp->org->collect_stats(rp->org_self, rp->l1_stats);
    for (uint32_t i = 0; i < rp->cfg->l2_slices; i++)
        rp->l2_now[i] = *gcr_cache_stats(rp->mem.slices[i]);
    json_t *o = json_object();
    json_object_set_new(o, "ctas", json_integer((json_int_t)counts->ctas));
    json_object_set_new(o, "instructions", counts_json(counts));
    json_object_set_new(o, "L1D",
                        gcr_report_level(rp->l1_stats, kernel ? rp->l1_then : NULL,
                                         rp->cfg->num_sms, "per_sm", counts->warp_insns,
                                         rp->cfg->sector_bytes));
    json_object_set_new(o, "L2",
                        gcr_report_level(rp->l2_now, kernel ? rp->l2_then : NULL,
                                         rp->cfg->l2_slices, "per_slice", counts->warp_insns,
                                         rp->cfg->sector_bytes));
    json_object_set_new(o, "traffic",
                        traffic_json(&rp->mem.traffic, kernel ? &rp->traffic_then : NULL));
    if (rp->mem.chips)
        json_object_set_new(o, "multichip", gcr_chips_report(rp->mem.chips, kernel));
    return o;
}

static int analyses_report(struct gcr_replay *rp, json_t *period, bool kernel,
                           struct gcr_err *err)
{
    if (rp->bus.nsubs == (rp->timing ? 1u : 0u)) /* the timing model reports apart */
        return 0;
    gcr_bus_flush(&rp->bus); /* every event reaches the analyses before they report */
    json_t *all = json_object();
    json_object_set_new(period, "analyses", all);
    for (size_t i = 0; i < rp->bus.nsubs; i++) {
        const struct gcr_analysis_ops *an = rp->bus.subs[i].ops;
        if (an == &gcr_timing_observer)
            continue;
        int (*fn)(void *, json_t *, struct gcr_err *) =
            kernel ? an->report_kernel : an->report_total;
        if (!fn)
            continue;
        json_t *section = json_object();
        json_object_set_new(all, an->name, section);
        if (fn(rp->bus.subs[i].self, section, err) != 0)
            return -1;
    }
    return 0;
}

static uint32_t ctas_per_sm(const struct gcr_config *cfg, const struct gcr_kernel_begin *kb,
                            uint32_t wpc, char *why, size_t n)
{
    uint64_t fit = cfg->max_ctas_per_sm;
    uint64_t by_warps = cfg->max_warps_per_sm / wpc;
    if (by_warps < fit)
        fit = by_warps;
    if (kb->shmem_bytes && cfg->shared_mem_per_sm / kb->shmem_bytes < fit)
        fit = cfg->shared_mem_per_sm / kb->shmem_bytes;
    uint64_t regs = (uint64_t)kb->regs_per_thread * wpc * GCR_WARP_SIZE;
    if (regs && cfg->registers_per_sm / regs < fit)
        fit = cfg->registers_per_sm / regs;
    if (!fit)
        snprintf(why, n,
                 "one CTA needs %u warps, %u bytes of shared memory and %llu registers; an SM "
                 "has %u warps, %u bytes and %u registers (%s: $.gpu.max_warps_per_sm, "
                 "$.gpu.shared_mem_per_sm, $.gpu.registers_per_sm)",
                 wpc, kb->shmem_bytes, (unsigned long long)regs, cfg->max_warps_per_sm,
                 cfg->shared_mem_per_sm, cfg->registers_per_sm, cfg->origin);
    return (uint32_t)fit;
}

static void kernel_state_free(struct gcr_replay *rp, struct kernel_state *ks)
{
    free((char *)ks->kb.name);
    if (ks->by_id)
        for (uint64_t i = 0; i < ks->nctas; i++)
            if (ks->by_id[i])
                cta_put(rp, ks->by_id[i]);
    free(ks->by_id);
    free(ks->next_id);
    free(ks->end_id);
    /* CTAs still resident after an error go back to the pool. */
    for (uint32_t s = 0; s < rp->cfg->num_sms; s++) {
        struct sm *sm = &rp->sms[s];
        while (sm->nactive) {
            struct warp *w = sm->active[sm->nactive - 1];
            sm->nactive--;
            if (--w->cta->warps_left == 0)
                cta_put(rp, w->cta);
        }
        sm->resident_ctas = 0;
        rp->wake[s] = UINT64_MAX;
        sm->last = -1;
        sm->current = NULL;
    }
}

/* Several chips (SAC's distributed CTA scheduling): chip c runs the CTAs
 * gcr_chip_of_cta gives it, a contiguous block. Under round-robin, range c is
 * the chip's block (its SMs take CTAs from it in order); under contiguous,
 * range s is SM s's contiguous share of its chip's block. */
static void chip_cta_ranges(const struct gcr_config *cfg, uint64_t nctas, uint64_t *next,
                            uint64_t *end)
{
    uint32_t N = cfg->chips.count, spc = cfg->num_sms / N;
    uint64_t per_chip = (nctas + N - 1) / N;
    for (uint32_t c = 0; c < N; c++) {
        uint64_t lo = c * per_chip < nctas ? c * per_chip : nctas;
        uint64_t hi = lo + per_chip < nctas ? lo + per_chip : nctas;
        if (cfg->cta_policy == GCR_CTA_ROUND_ROBIN) {
            next[c] = lo;
            end[c] = hi;
            continue;
        }
        uint64_t per_sm = (hi - lo + spc - 1) / spc;
        for (uint32_t i = 0; i < spc; i++) {
            uint64_t a = lo + i * per_sm, b = a + per_sm;
            next[c * spc + i] = a < hi ? a : hi;
            end[c * spc + i] = b < hi ? b : hi;
        }
    }
}

static int replay_kernel(struct gcr_replay *rp, struct gcr_reader *r,
                         const struct gcr_kernel_begin *kb, struct gcr_err *err)
{
    const struct gcr_config *cfg = rp->cfg;
    struct kernel_state ks = {.kb = *kb, .r = r};
    char why[512];
    int rc = -1;
    rp->ks = &ks;
    ks.kb.name = strdup(kb->name);
    ks.nctas = gcr_kernel_ctas(kb);
    ks.wpc = gcr_kernel_warps_per_cta(kb);
    if (!ks.kb.name) {
        gcr_fail(err, GCR_E_NOMEM, "out of memory");
        goto out;
    }
    const char *bad = gcr_record_invalid(&(struct gcr_record){.kind = GCR_REC_KERNEL_BEGIN,
                                                              .u.kbegin = ks.kb}, NULL);
    if (bad) {
        gcr_fail(err, GCR_E_FORMAT, "%s: kernel %u (%s): %s", gcr_reader_path(r), kb->id,
                 ks.kb.name, bad);
        goto out;
    }
    ks.fit = ctas_per_sm(cfg, kb, ks.wpc, why, sizeof why);
    if (!ks.fit) {
        gcr_fail(err, GCR_E_UNSUPPORTED, "%s: kernel %u (%s): %s", gcr_reader_path(r), kb->id,
                 ks.kb.name, why);
        goto out;
    }
    if (cfg->cta_policy == GCR_CTA_CONTIGUOUS || cfg->chips.count > 1) {
        uint32_t S = cfg->num_sms;
        uint64_t chunk = (ks.nctas + S - 1) / S;
        ks.by_id = calloc(ks.nctas, sizeof *ks.by_id);
        ks.next_id = calloc(S, sizeof *ks.next_id);
        ks.end_id = calloc(S, sizeof *ks.end_id);
        if (!ks.by_id || !ks.next_id || !ks.end_id) {
            gcr_fail(err, GCR_E_NOMEM, "out of memory for %llu CTAs",
                     (unsigned long long)ks.nctas);
            goto out;
        }
        for (uint32_t s = 0; s < S; s++) {
            ks.next_id[s] = s * chunk < ks.nctas ? s * chunk : ks.nctas;
            ks.end_id[s] = (s + 1) * chunk < ks.nctas ? (s + 1) * chunk : ks.nctas;
        }
        if (cfg->chips.count > 1)
            chip_cta_ranges(cfg, ks.nctas, ks.next_id, ks.end_id);
    }

    /* The L1 size for this kernel: with a unified L1/shared array, what its
     * resident CTAs' shared memory leaves (GPGPU-Sim's per-kernel carve-out). */
    struct gcr_cache_geometry l1 = cfg->l1;
    l1.ways = gcr_config_l1_ways_for(cfg, (uint64_t)kb->shmem_bytes * ks.fit);
    if (rp->org->kernel_begin && rp->org->kernel_begin(rp->org_self, &l1, err) != 0)
        goto out;

    snapshot(rp);
    gcr_memsys_kernel_begin(&rp->mem);
    rp->bus.kernel = &ks.kb;
    if (gcr_bus_wants(&rp->bus, GCR_EV_KERNEL_BEGIN)) {
        struct gcr_event ev = {.kind = GCR_EV_KERNEL_BEGIN, .sm = UINT32_MAX};
        gcr_bus_emit(&rp->bus, &ev);
    }

    if (rp->timing)
        timed_kernel_begin(rp, l1.sets * l1.ways);
    if (dispatch(rp, err) != 0)
        goto out;
    if (rp->timing) {
        if (run_timed(rp, err) != 0)
            goto out;
    }
    const bool lrr = cfg->warp_policy == GCR_WARP_LRR;
    /* Read once: the calls in the loop would make the compiler read it again. */
    const bool org_prefetches = rp->org->prefetch != NULL;
    struct gcr_prefetch_tuner *tuner = &rp->tuner;
    if (!rp->tuner_started && !rp->timing) {
        /* The L1 level adds nothing without the organisation's hook, nor
         * the L2 level with several chips (gcr_memsys_prefetch). */
        unsigned distinct = 1u << GCR_HOST_PREFETCH_QUEUES;
        if (org_prefetches)
            distinct |= 1u << GCR_HOST_PREFETCH_L1;
        if (!rp->mem.chips)
            distinct |= 1u << GCR_HOST_PREFETCH_L2;
        gcr_prefetch_tuner_init(tuner, rp->host_prefetch, distinct, rp->issued, cpu_ns());
        rp->tuner_started = true;
    }
    while (ks.resident) {
        uint32_t n = issue_order(rp);
        const enum gcr_host_prefetch level = tuner->level;
        for (uint32_t j = 0; j < n + PREFETCH_WARP; j++) {
            prefetch_stages(rp, j, n, lrr, level, org_prefetches);
            if (j >= PREFETCH_WARP)
                sm_issue(rp, rp->order[j - PREFETCH_WARP], lrr);
        }
        rp->issued += n;
        if (rp->issued >= tuner->epoch_end)
            gcr_prefetch_tuner_epoch(tuner, rp->issued, cpu_ns());
        rp->bus.step++;
        if (ks.cta_finished) {
            ks.cta_finished = false;
            if (dispatch(rp, err) != 0)
                goto out;
        }
    }
    /* Every CTA ran; the loader must have reached the kernel's end. */
    while (!ks.ended) {
        struct cta *c;
        if (load_cta(rp, &c, err) != 0)
            goto out;
        if (c) {
            cta_put(rp, c);
            gcr_fail(err, GCR_E_INTERNAL, "%s: kernel %u: CTA %u was loaded but never run",
                     gcr_reader_path(r), kb->id,
                     c->id);
            goto out;
        }
    }

    if (gcr_bus_wants(&rp->bus, GCR_EV_KERNEL_END)) {
        struct gcr_event ev = {.kind = GCR_EV_KERNEL_END, .sm = UINT32_MAX,
                               .kernel_warp_insns = rp->kernel_counts.warp_insns};
        gcr_bus_emit(&rp->bus, &ev);
    }
    rp->org->kernel_end(rp->org_self);
    gcr_memsys_kernel_end(&rp->mem);

    json_t *k = period_json(rp, &rp->kernel_counts, true);
    json_t *id = json_pack("{s:I, s:o, s:[I,I,I], s:[I,I,I], s:I, s:I, s:I, s:I}", "id",
                           (json_int_t)kb->id, "name", gcr_report_text(ks.kb.name), "grid",
                           (json_int_t)kb->grid[0], (json_int_t)kb->grid[1],
                           (json_int_t)kb->grid[2], "block", (json_int_t)kb->block[0],
                           (json_int_t)kb->block[1], (json_int_t)kb->block[2], "shmem_bytes",
                           (json_int_t)kb->shmem_bytes, "regs_per_thread",
                           (json_int_t)kb->regs_per_thread, "ctas_per_sm_limit",
                           (json_int_t)ks.fit, "l1d_ways", (json_int_t)l1.ways);
    json_object_update(id, k); /* identity first, then the figures */
    json_decref(k);
    if (rp->timing)
        json_object_set_new(id, "timing", gcr_timing_kernel_end(rp->timing, rp->kernel_end,
                                                                rp->kernel_counts.warp_insns));
    gcr_add_u64s((uint64_t *)&rp->counts, (const uint64_t *)&rp->kernel_counts,
                 sizeof rp->counts / sizeof(uint64_t));
    if (analyses_report(rp, id, true, err) != 0) {
        json_decref(id);
        goto out;
    }
    gcr_report_classes(id);
    rp->nkernels++;
    if (rp->kernel_sink) {
        /* Handed on and released: the replay's memory stays the same however
         * many kernels a trace has. */
        int sunk = rp->kernel_sink(rp->kernel_sink_ctx, id, err);
        json_decref(id);
        if (sunk != 0)
            goto out;
    } else {
        json_array_append_new(rp->kernels, id);
    }
    memset(&rp->kernel_counts, 0, sizeof rp->kernel_counts);
    rc = 0;
out:
    kernel_state_free(rp, &ks);
    rp->ks = NULL;
    rp->bus.kernel = NULL;
    return rc;
}

/* Every record of a trace: kernels are replayed, copies applied, anything else refused. */
static int replay_records(struct gcr_replay *rp, struct gcr_reader *r, struct gcr_err *err)
{
    struct gcr_record rec;
    int rc;
    while ((rc = gcr_reader_next(r, &rec, err)) == 1) {
        switch (rec.kind) {
        case GCR_REC_KERNEL_BEGIN:
            if (replay_kernel(rp, r, &rec.u.kbegin, err) != 0)
                return -1;
            break;
        case GCR_REC_MEMCPY:
            /* Saturating: the report keeps counters below 2^63. */
            rp->memcpy_bytes += rec.u.memcpy.bytes;
            if (rp->memcpy_bytes > (uint64_t)INT64_MAX)
                rp->memcpy_bytes = (uint64_t)INT64_MAX;
            if (rp->cfg->l2_prefill_memcpy)
                gcr_memsys_prefill(&rp->mem, rec.u.memcpy.dst, rec.u.memcpy.bytes);
            break;
        default:
            return gcr_fail(err, GCR_E_FORMAT, "%s: a %s record outside any kernel",
                            gcr_reader_path(r),
                            rec.kind == GCR_REC_KERNEL_END ? "kernel-end" : "warp");
        }
    }
    if (rc == 0 && rp->progress) {
        struct gcr_progress p = {gcr_reader_path(r), gcr_reader_bytes_total(r),
                                 gcr_reader_bytes_total(r), rp->counts.warp_insns,
                                 rp->nkernels};
        rp->progress(rp->progress_ctx, &p);
    }
    return rc;
}

int gcr_replay_trace(struct gcr_replay *rp, struct gcr_reader *r, struct gcr_err *err)
{
    json_array_append_new(rp->traces, json_pack("{s:o, s:s}", "path",
                                                gcr_report_text(gcr_reader_path(r)), "format",
                                                gcr_reader_format_name(r)));
    /* The warp queues take strided lanes from the hint (warpq.c) and observers
     * get expanded addresses at issue, so the reader need not expand them. */
    gcr_reader_set_lazy_addresses(r, true);
    uint64_t kernels_before = rp->nkernels;
    int rc = replay_records(rp, r, err);
    gcr_reader_set_lazy_addresses(r, false);
    /* A valid trace may hold no kernel (an empty file, copies only), but replaying one would
     * add nothing to the report: in a batch of runs an all-zero report goes unnoticed. */
    if (rc == 0 && rp->nkernels == kernels_before)
        rc = gcr_fail(err, GCR_E_FORMAT, "%s: the trace holds no kernel, so there is nothing "
                      "to replay", gcr_reader_path(r));
    /* What the reader has to say about the trace (e.g. Accel-Sim opcodes it did
     * not know) goes into the report beside the trace's path. */
    if (rc == 0)
        gcr_reader_describe(r, json_array_get(rp->traces, json_array_size(rp->traces) - 1));
    return rc;
}

json_t *gcr_replay_report(struct gcr_replay *rp, struct gcr_err *err)
{
    json_t *total = period_json(rp, &rp->counts, false);
    json_object_set_new(total, "kernels", json_integer((json_int_t)rp->nkernels));
    json_object_set_new(total, "memcpy_bytes", json_integer((json_int_t)rp->memcpy_bytes));
    if (rp->timing)
        json_object_set_new(total, "timing", gcr_timing_report_total(rp->timing));
    if (rp->org->report) {
        json_t *section = json_object();
        json_object_set_new(json_object_get(total, "L1D"), rp->org->name, section);
        if (rp->org->report(rp->org_self, section, err) != 0) {
            json_decref(total);
            return NULL;
        }
    }
    if (analyses_report(rp, total, false, err) != 0) {
        json_decref(total);
        return NULL;
    }
    gcr_report_classes(total);
    json_t *report = gcr_replay_report_head(rp);
    if (!report) {
        json_decref(total);
        gcr_fail(err, GCR_E_NOMEM, "out of memory building the report");
        return NULL;
    }
    bool bad = !rp->kernel_sink && json_object_set(report, "kernels", rp->kernels) != 0;
    bad |= json_object_set(report, "traces", rp->traces) != 0;
    bad |= json_object_set_new(report, "total", total) != 0; /* takes total either way */
    if (bad) {
        json_decref(report);
        gcr_fail(err, GCR_E_NOMEM, "out of memory building the report");
        return NULL;
    }
    return report;
}

json_t *gcr_replay_report_head(const struct gcr_replay *rp)
{
    return json_pack("{s:{s:s, s:I}, s:o}", "gcreplay", "version", GCR_VERSION,
                     "report_format", (json_int_t)1, "config", gcr_config_to_json(rp->cfg));
}

int gcr_replay_set_kernel_sink(struct gcr_replay *rp, gcr_kernel_sink_fn fn, void *ctx,
                               struct gcr_err *err)
{
    if (rp->nkernels)
        return gcr_fail(err, GCR_E_USAGE, "the kernel sink must be set before the first kernel");
    rp->kernel_sink = fn;
    rp->kernel_sink_ctx = ctx;
    return 0;
}

void gcr_replay_totals(struct gcr_replay *rp, struct gcr_replay_totals *t)
{
    memset(t, 0, sizeof *t);
    rp->org->collect_stats(rp->org_self, rp->l1_stats);
    t->warp_insns = rp->counts.warp_insns;
    for (int s = 0; s < GCR_SPACE_COUNT; s++)
        for (int o = 0; o < GCR_OP_COUNT; o++)
            t->mem_insns += rp->counts.mem[s][o];
    for (uint32_t i = 0; i < rp->cfg->num_sms; i++) {
        t->l1_requests += rp->l1_stats[i].accesses[0] + rp->l1_stats[i].accesses[1];
        const struct gcr_cache_stats *l1 = &rp->l1_stats[i];
        t->l1_sectors += l1->sectors_requested[0] + l1->sectors_requested[1];
        for (int w = 0; w < 2; w++)
            t->l1_misses += l1->outcomes[w][GCR_MISS_LINE] + l1->outcomes[w][GCR_MISS_SECTOR];
    }
    for (uint32_t i = 0; i < rp->cfg->l2_slices; i++) {
        const struct gcr_cache_stats *s = gcr_cache_stats(rp->mem.slices[i]);
        t->l2_accesses += s->accesses[0] + s->accesses[1];
    }
    if (rp->tuner_started)
        gcr_prefetch_tuner_shares(&rp->tuner, rp->issued, t->issues_at_prefetch);
}

int gcr_replay_set_host_prefetch(struct gcr_replay *rp, enum gcr_host_prefetch mode,
                                 struct gcr_err *err)
{
    if ((unsigned)mode > GCR_HOST_PREFETCH_AUTO)
        return gcr_fail(err, GCR_E_USAGE, "unknown host prefetch level %d", (int)mode);
    if (rp->tuner_started)
        return gcr_fail(err, GCR_E_INTERNAL, "the host prefetch level is chosen before replaying");
    rp->host_prefetch = mode;
    return 0;
}
