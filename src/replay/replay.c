/* The replay engine's entry points: create a replay for a config, replay traces kernel
 * by kernel, report. How a kernel runs is spread over the engine's files by stage of
 * the data flow (engine.h lists them). */
#include "gcreplay/replay.h"

#include <stdlib.h>
#include <string.h>

#include "core/cpus.h"
#include "replay/engine.h"
#include "report/kernel_report.h"
#include "report/report.h"
#include "timing/timing.h"

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

    const struct gcr_warp_sched *sched = gcr_warp_sched_of(cfg->warp_policy);
    if (!sched)
        return gcr_fail(err, GCR_E_INTERNAL, "no scheduler for warp policy %d",
                        (int)cfg->warp_policy);
    if (!sched->pick && !cfg->timing.enabled)
        return gcr_fail(err, GCR_E_CONFIG,
                        "%s: $.scheduling.warp_policy: \"vws\" throttles on timing; enable the "
                        "timing backend ($.timing.enabled or run --timing)", cfg->origin);
    struct gcr_replay *rp = calloc(1, sizeof *rp);
    if (!rp)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    rp->cfg = cfg;
    rp->org = org;
    rp->sched = sched;
    rp->driver = cfg->timing.enabled ? &gcr_issue_timed : &gcr_issue_functional;
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
    if (!rp->l1_stats || !rp->l1_then || !rp->l2_then || !rp->l2_now || !rp->sms ||
        !rp->warp_slots || !rp->kernels || !rp->traces || !rp->queues || !rp->wake ||
        !rp->order || gcr_host_prefetch_init(&rp->hp, S) != 0) {
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
    rp->bus.subs = calloc(nan ? nan : 1, sizeof *rp->bus.subs);
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

    /* The issue driver's own state (the timed one: the timing backend, which
     * the memory system and the organisation call as they send messages). */
    if (rp->driver->init && rp->driver->init(rp, err) != 0) {
        gcr_replay_destroy(rp);
        return -1;
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
        gcr_bus_add(&rp->bus, an, self, an->speed && an->speed->at_emission);
    }
    if (gcr_bus_start(&rp->bus, rp->info.lines, false) != 0) {
        gcr_replay_destroy(rp);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    *out = rp;
    return 0;
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
    gcr_cta_pool_free(rp);
    gcr_warpq_pool_destroy(rp->queues);
    free(rp->wake);
    free(rp->order);
    gcr_host_prefetch_fini(&rp->hp);
    free(rp->l1_stats);
    free(rp->l1_then);
    free(rp->l2_then);
    free(rp->l2_now);
    free(rp->sms);
    free(rp->warp_slots);
    if (rp->driver->fini)
        rp->driver->fini(rp);
    json_decref(rp->kernels);
    json_decref(rp->traces);
    gcr_pass_forget(rp);
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

void gcr_replay_set_decode_ahead(struct gcr_replay *rp, enum gcr_decode_ahead_mode mode)
{
    rp->decode_ahead = mode;
}

/* AUTO does not decode ahead: measured on an idle 2-core machine, the thread made
 * every reference trace and the native benchmark slower, by up to a third (each
 * record crosses from one core's caches to the other's, and the replay's share of
 * the work, all the overlap can hide, is the smaller one; tests/bench/README.md). */
static bool decodes_ahead(const struct gcr_replay *rp)
{
    return rp->decode_ahead == GCR_DECODE_AHEAD_ON;
}

void gcr_replay_set_progress(struct gcr_replay *rp, gcr_progress_fn fn, void *ctx)
{
    rp->progress = fn;
    rp->progress_ctx = ctx;
}

/* The kernel starts in replay be's memory system: be is the replay whose front end
 * runs the kernel (rp) or one of its variants (pass.c). *l1 is be's L1 geometry for
 * the kernel. */
static int memory_kernel_begin(struct gcr_replay *be, const struct gcr_replay *rp,
                               struct gcr_cache_geometry *l1, struct gcr_err *err)
{
    const struct kernel_state *ks = rp->ks;
    /* The L1 size for this kernel: with a unified L1/shared array, what its
     * resident CTAs' shared memory leaves (GPGPU-Sim's per-kernel carve-out). */
    *l1 = be->cfg->l1;
    l1->ways = gcr_config_l1_ways_for(be->cfg, be->nkernels,
                                      (uint64_t)ks->kb.shmem_bytes * ks->fit);
    if (be->org->kernel_begin && be->org->kernel_begin(be->org_self, l1, err) != 0)
        return -1;
    be->kernel_l1_ways = l1->ways;

    gcr_report_period_begin(be);
    gcr_memsys_kernel_begin(&be->mem);
    be->bus.kernel = &ks->kb;
    be->bus.step = rp->bus.step;
    if (gcr_bus_wants(&be->bus, GCR_EV_KERNEL_BEGIN)) {
        struct gcr_event ev = {.kind = GCR_EV_KERNEL_BEGIN, .sm = UINT32_MAX};
        gcr_bus_emit(&be->bus, &ev);
    }
    return 0;
}

/* The kernel rp's front end ran (kb, as the trace gave it) ends in replay be's
 * memory system (rp itself or one of its variants): be's kernel report goes out. */
static int memory_kernel_end(struct gcr_replay *be, const struct gcr_replay *rp,
                             const struct gcr_kernel_begin *kb, struct gcr_err *err)
{
    const struct kernel_state *ks = rp->ks;
    if (be != rp)
        gcr_pass_take_counts(be, rp);
    be->bus.step = rp->bus.step;
    if (gcr_bus_wants(&be->bus, GCR_EV_KERNEL_END)) {
        struct gcr_event ev = {.kind = GCR_EV_KERNEL_END, .sm = UINT32_MAX,
                               .kernel_warp_insns = be->kernel_counts.warp_insns};
        gcr_bus_emit(&be->bus, &ev);
    }
    be->org->kernel_end(be->org_self);
    gcr_memsys_kernel_end(&be->mem);

    json_t *k = gcr_report_period(be, &be->kernel_counts, true);
    json_t *id = gcr_report_kernel_head(kb, ks->kb.name, ks->fit, be->kernel_l1_ways);
    json_object_update(id, k); /* identity first, then the figures */
    json_decref(k);
    if (be->timing)
        json_object_set_new(id, "timing", gcr_timing_kernel_end(be->timing, be->kernel_end,
                                                                be->kernel_counts.warp_insns));
    gcr_add_u64s((uint64_t *)&be->counts, (const uint64_t *)&be->kernel_counts,
                 sizeof be->counts / sizeof(uint64_t));
    if (gcr_report_analyses(be, id, true, err) != 0) {
        json_decref(id);
        return -1;
    }
    gcr_report_classes(id);
    be->nkernels++;
    if (be->kernel_sink) {
        /* Handed on and released: the replay's memory stays the same however
         * many kernels a trace has. */
        int sunk = be->kernel_sink(be->kernel_sink_ctx, id, err);
        json_decref(id);
        if (sunk != 0)
            return -1;
    } else {
        json_array_append_new(be->kernels, id);
    }
    return 0;
}

static int replay_kernel(struct gcr_replay *rp, struct gcr_reader *r,
                         const struct gcr_kernel_begin *kb, struct gcr_err *err)
{
    struct kernel_state ks = {.kb = *kb, .r = r};
    int rc = -1;
    rp->ks = &ks;
    ks.kb.name = strdup(kb->name);
    if (!ks.kb.name) {
        gcr_fail(err, GCR_E_NOMEM, "out of memory");
        goto out;
    }
    if (gcr_cta_kernel_init(rp, &ks, err) != 0)
        goto out;
    struct gcr_cache_geometry l1, variant_l1;
    if (memory_kernel_begin(rp, rp, &l1, err) != 0)
        goto out;
    /* Each variant's L1 has its own ways: only the memory systems see them. */
    for (uint32_t v = 0; v < rp->nvariants; v++)
        if (memory_kernel_begin(rp->variants[v], rp, &variant_l1, err) != 0)
            goto out;

    /* The engine: CTAs onto SMs, then pick (SM, warp) -> execute -> coalesce ->
     * memory system, until every CTA ran. */
    if (rp->driver->kernel_begin)
        rp->driver->kernel_begin(rp, l1.sets * l1.ways);
    if (gcr_cta_dispatch(rp, err) != 0 || rp->driver->run(rp, err) != 0 ||
        gcr_cta_check_ended(rp, err) != 0)
        goto out;

    gcr_pass_flush(rp);
    if (memory_kernel_end(rp, rp, kb, err) != 0)
        goto out;
    for (uint32_t v = 0; v < rp->nvariants; v++)
        if (memory_kernel_end(rp->variants[v], rp, kb, err) != 0)
            goto out;
    memset(&rp->kernel_counts, 0, sizeof rp->kernel_counts);
    rc = 0;
out:
    gcr_cta_kernel_free(rp, &ks);
    rp->ks = NULL;
    rp->bus.kernel = NULL;
    for (uint32_t v = 0; v < rp->nvariants; v++)
        rp->variants[v]->bus.kernel = NULL;
    return rc;
}

/* A host-to-device copy, as replay be's memory system sees it. */
static void memory_copy(struct gcr_replay *be, const struct gcr_memcpy *copy)
{
    /* Saturating: the report keeps counters below 2^63. */
    be->memcpy_bytes += copy->bytes;
    if (be->memcpy_bytes > (uint64_t)INT64_MAX)
        be->memcpy_bytes = (uint64_t)INT64_MAX;
    if (be->cfg->l2_prefill_memcpy)
        gcr_memsys_prefill(&be->mem, copy->dst, copy->bytes);
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
            memory_copy(rp, &rec.u.memcpy);
            for (uint32_t v = 0; v < rp->nvariants; v++)
                memory_copy(rp->variants[v], &rec.u.memcpy);
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

/* The trace r, as replay be's report lists it. */
static void list_trace(struct gcr_replay *be, struct gcr_reader *r)
{
    json_array_append_new(be->traces, json_pack("{s:o, s:s}", "path",
                                                gcr_report_text(gcr_reader_path(r)), "format",
                                                gcr_reader_format_name(r)));
}

/* What the replay never reads of the records, for the reader to leave out
 * (gcr_reader_set_skips), decided here once:
 * - the lanes of on-chip accesses, unless an instruction observer reads them
 *   (gcr_replay_reads_onchip_lanes, which load_cta follows too) or the replay or one of its
 *   variants is timed (load_cta counts the shared-memory banks they use);
 * - the units of non-memory instructions and the dependencies on them, unless the replay or
 *   one of its variants is timed: without them the reader joins a warp's non-memory
 *   instructions into runs again (one record, one queue item, for many instructions);
 * - nothing else. The dependencies on memory instructions (waits) matter to the timed
 *   driver only, but a functional replay keeps them as well: they decide where the reader
 *   ends runs of non-memory instructions, and the Accel-Sim reader's per-line memo makes them
 *   cheap. */
static unsigned reader_skips(const struct gcr_replay *rp)
{
    bool timed = rp->cfg->timing.enabled;
    for (uint32_t v = 0; v < rp->nvariants; v++)
        timed |= rp->variants[v]->cfg->timing.enabled;
    /* The timing backend counts the banks of shared-memory accesses from their lanes. */
    return (gcr_replay_reads_onchip_lanes(rp) || timed ? 0 : GCR_READ_SKIP_ONCHIP_LANES) |
           (timed ? 0 : GCR_READ_SKIP_ALU);
}

int gcr_replay_trace(struct gcr_replay *rp, struct gcr_reader *r, struct gcr_err *err)
{
    if (rp->driven_by)
        return gcr_fail(err, GCR_E_USAGE, "this replay's memory system is driven by another "
                        "replay's pass: replay the trace there");
    list_trace(rp, r);
    for (uint32_t v = 0; v < rp->nvariants; v++)
        list_trace(rp->variants[v], r);
    /* The warp queues take strided lanes from the hint (warpq.c) and observers
     * get expanded addresses at issue, so the reader need not expand them. */
    gcr_reader_set_lazy_addresses(r, true);
    gcr_reader_set_skips(r, reader_skips(rp));
    /* A decoding thread that cannot start is no error: the replay reads the trace itself. */
    if (decodes_ahead(rp))
        gcr_reader_decode_ahead(r, true, NULL);
    uint64_t kernels_before = rp->nkernels;
    int rc = replay_records(rp, r, err);
    gcr_reader_decode_ahead(r, false, NULL);
    gcr_reader_set_lazy_addresses(r, false);
    gcr_reader_set_skips(r, 0);
    /* A valid trace may hold no kernel (an empty file, copies only), but replaying one would
     * add nothing to the report: in a batch of runs an all-zero report goes unnoticed. */
    if (rc == 0 && rp->nkernels == kernels_before)
        rc = gcr_fail(err, GCR_E_FORMAT, "%s: the trace holds no kernel, so there is nothing "
                      "to replay", gcr_reader_path(r));
    /* What the reader has to say about the trace (e.g. Accel-Sim opcodes it did
     * not know) goes into the report beside the trace's path. */
    for (uint32_t v = 0; v <= rp->nvariants && rc == 0; v++) {
        struct gcr_replay *be = v ? rp->variants[v - 1] : rp;
        gcr_reader_describe(r, json_array_get(be->traces, json_array_size(be->traces) - 1));
    }
    return rc;
}

json_t *gcr_replay_report(struct gcr_replay *rp, struct gcr_err *err)
{
    json_t *total = gcr_report_period(rp, &rp->counts, false);
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
    if (gcr_report_analyses(rp, total, false, err) != 0) {
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
    if (rp->hp.tuner_started)
        gcr_prefetch_tuner_shares(&rp->hp.tuner, rp->issued, t->issues_at_prefetch);
}

int gcr_replay_set_host_prefetch(struct gcr_replay *rp, enum gcr_host_prefetch mode,
                                 struct gcr_err *err)
{
    if ((unsigned)mode > GCR_HOST_PREFETCH_AUTO)
        return gcr_fail(err, GCR_E_USAGE, "unknown host prefetch level %d", (int)mode);
    if (rp->hp.tuner_started)
        return gcr_fail(err, GCR_E_INTERNAL, "the host prefetch level is chosen before replaying");
    rp->hp.mode = mode;
    return 0;
}
