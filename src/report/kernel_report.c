/* The report's figures of a period, a kernel or the whole run, read from the engine:
 * instruction counts, each cache level (now minus the kernel's start), the traffic,
 * the multi-chip section and each analysis's section. */
#include <string.h>

#include "multichip/chips.h"
#include "replay/engine.h"
#include "report/kernel_report.h"
#include "report/report.h"

void gcr_report_period_begin(struct gcr_replay *rp)
{
    rp->org->collect_stats(rp->org_self, rp->l1_then);
    for (uint32_t i = 0; i < rp->cfg->l2_slices; i++)
        rp->l2_then[i] = *gcr_cache_stats(rp->mem.slices[i]);
    rp->traffic_then = rp->mem.traffic;
    rp->l2_extra_then = rp->mem.extra;
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

/* The figures of the L2 behaviours that are on (config l2.counting,
 * l2.request_coalescer, l2.partitions, l2.fetch_bytes) into the L2 section. */
static void l2_extra_json(const struct gcr_config *cfg, const struct gcr_l2_extra *now,
                          const struct gcr_l2_extra *then, json_t *l2)
{
    static const struct gcr_l2_extra zero;
    if (!then)
        then = &zero;
#define D(f) (json_int_t)(now->f - then->f)
    if (cfg->l2_counting_nsight)
        json_object_set_new(l2, "atomics", json_pack("{s:I, s:I}", "sectors", D(atomic_sectors),
                                                     "hits", D(atomic_hits)));
    if (cfg->l2_merge_window)
        json_object_set_new(l2, "request_coalescer",
                            json_pack("{s:I}", "merged_sectors", D(merged_sectors)));
    if (cfg->l2_partitions > 1)
        json_object_set_new(l2, "fabric",
                            json_pack("{s:I, s:I, s:I, s:I}", "far_lookups", D(far_lookups),
                                      "far_hits", D(far_hits), "taken_sectors",
                                      D(taken_sectors), "bytes", D(fabric_bytes)));
    if (gcr_l2_promotes(cfg))
        json_object_set_new(l2, "fetch",
                            json_pack("{s:I}", "promoted_sectors", D(promoted_sectors)));
#undef D
}

/* The statistics of a period (kernel or whole run) as a report object. */
json_t *gcr_report_period(struct gcr_replay *rp, const struct insn_counts *counts, bool kernel)
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
    l2_extra_json(rp->cfg, &rp->mem.extra, kernel ? &rp->l2_extra_then : NULL,
                  json_object_get(o, "L2"));
    json_object_set_new(o, "traffic",
                        traffic_json(&rp->mem.traffic, kernel ? &rp->traffic_then : NULL));
    if (rp->mem.chips)
        json_object_set_new(o, "multichip", gcr_chips_report(rp->mem.chips, kernel));
    return o;
}

int gcr_report_analyses(struct gcr_replay *rp, json_t *period, bool kernel, struct gcr_err *err)
{
    if (!rp->bus.nsubs)
        return 0;
    gcr_bus_flush(&rp->bus); /* every event reaches the analyses before they report */
    json_t *all = json_object();
    json_object_set_new(period, "analyses", all);
    for (size_t i = 0; i < rp->bus.nsubs; i++) {
        const struct gcr_analysis_ops *an = rp->bus.subs[i].ops;
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

json_t *gcr_report_kernel_head(const struct gcr_kernel_begin *kb, const char *name, uint32_t fit,
                               uint32_t l1d_ways)
{
    return json_pack("{s:I, s:o, s:[I,I,I], s:[I,I,I], s:I, s:I, s:I, s:I}", "id",
                     (json_int_t)kb->id, "name", gcr_report_text(name), "grid",
                     (json_int_t)kb->grid[0], (json_int_t)kb->grid[1], (json_int_t)kb->grid[2],
                     "block", (json_int_t)kb->block[0], (json_int_t)kb->block[1],
                     (json_int_t)kb->block[2], "shmem_bytes", (json_int_t)kb->shmem_bytes,
                     "regs_per_thread", (json_int_t)kb->regs_per_thread, "ctas_per_sm_limit",
                     (json_int_t)fit, "l1d_ways", (json_int_t)l1d_ways);
}
