/* locality: (a) whether an L2 read hit finds a line brought into L2 by the
 * same SM (intra-core) or by another SM (inter-core); (b) how many L1 read
 * misses another L1 of the same cluster could have served (the line was
 * resident there at that moment). See README.md for the exact definitions.
 *
 * Residency follows the replay's events, in columns of the shared line ids
 * (gcreplay/idmap.h): the SM whose request installed each L2-resident line,
 * and which L1s hold each line (../common/holders.h: one word per line, up
 * to four holders in it). */
#include <stdlib.h>
#include <string.h>

#include "../common/holders.h"
#include "core/bits.h"
#include "gcreplay/analysis.h"
#include "gcreplay/options.h"

#define NO_SM UINT32_MAX     /* installed by a write-back: no requesting SM */
#define MAX_CLUSTER 64       /* members of a cluster are bits of one word */

struct locality_counts {
    uint64_t l2_reads;      /* L2 read requests from SMs */
    uint64_t l2_read_hits;
    uint64_t l2_intra;      /* hits on lines the same SM installed */
    uint64_t l2_inter;      /* hits on lines another SM installed */
    uint64_t l2_no_sm;      /* hits on lines installed without a requesting SM */
    uint64_t l1_read_misses;
    uint64_t l1_servable;   /* misses whose line another L1 of the cluster held */
};
GCR_U64_COUNTERS(struct locality_counts, 7);

struct locality {
    uint32_t cluster_size, num_l1s, num_clusters;
    struct gcr_column *filler;  /* line id -> SM that installed it in L2 + 1 (0: none) */
    struct gcr_column *holders; /* line id -> the L1s holding it */
    struct gcr_holders_pool pool;
    bool failed; /* out of memory while observing: reported at the kernel's end */
    struct locality_counts kernel, total;
};

static void locality_destroy(void *self)
{
    struct locality *lo = self;
    if (!lo)
        return;
    gcr_holders_pool_free(&lo->pool);
    free(lo);
}

static int locality_create(void **self, const json_t *options, const struct gcr_sim_info *info,
                           struct gcr_err *err)
{
    struct gcr_opts o;
    uint32_t cluster_size = 4;
    gcr_opts_begin(&o, info->config->origin, "$.analyses.locality", options);
    if (gcr_opts_u32(&o, "cluster_size", 1, MAX_CLUSTER, &cluster_size, err) != 0 ||
        gcr_opts_done(&o, err) != 0)
        return -1;
    struct locality *lo = calloc(1, sizeof *lo);
    if (!lo)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    lo->cluster_size = cluster_size;
    lo->num_l1s = info->num_l1s;
    lo->num_clusters = (info->num_l1s + lo->cluster_size - 1) / lo->cluster_size;
    if (info->num_l1s > GCR_HOLDERS_MAX_INSTANCES) {
        free(lo);
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.locality: at most %u L1 instances "
                        "(the organisation has %u)", info->config->origin,
                        GCR_HOLDERS_MAX_INSTANCES, info->num_l1s);
    }
    gcr_holders_pool_init(&lo->pool, info->num_l1s);
    if (!(lo->filler = gcr_idmap_add_column(info->lines, sizeof(uint32_t), err)) ||
        !(lo->holders = gcr_idmap_add_column(info->lines, sizeof(uint64_t), err))) {
        locality_destroy(lo);
        return -1;
    }
    /* The bus fetches what an event reads before delivering it. */
    lo->filler->prefetch_kinds = GCR_EV_L2_ACCESS | GCR_EV_L2_EVICT;
    lo->holders->prefetch_kinds = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT;
    *self = lo;
    return 0;
}

static void on_l2_access(struct locality *lo, const struct gcr_event *ev)
{
    const struct gcr_access *a = ev->access;
    bool counted = ev->sm != NO_SM && !ev->is_write;
    if (counted)
        lo->kernel.l2_reads++;
    if (!(counted && a->outcome == GCR_HIT) && !a->allocated)
        return;
    if (ev->line_id == GCR_IDMAP_NONE) {
        lo->failed = true;
        return;
    }
    uint32_t *filler = gcr_column_at(lo->filler, ev->line_id);
    if (counted && a->outcome == GCR_HIT) {
        lo->kernel.l2_read_hits++;
        uint32_t sm = *filler - 1u; /* 0: none, NO_SM */
        if (sm == NO_SM)
            lo->kernel.l2_no_sm++;
        else if (sm == ev->sm)
            lo->kernel.l2_intra++;
        else
            lo->kernel.l2_inter++;
    }
    if (a->allocated)
        *filler = ev->sm + 1u; /* a write-back's NO_SM becomes 0: none */
}

static void on_l1_access(struct locality *lo, const struct gcr_event *ev)
{
    const struct gcr_access *a = ev->access;
    bool read_miss = !ev->is_write && a->outcome != GCR_HIT;
    if (read_miss)
        lo->kernel.l1_read_misses++;
    if (ev->unit >= lo->num_l1s)
        return; /* not an L1 instance of the organisation: nothing to track */
    if (!read_miss && !a->allocated)
        return; /* a hit (or a write that installs nothing) changes no residency */
    if (ev->line_id == GCR_IDMAP_NONE) {
        lo->failed = true;
        return;
    }
    uint64_t *h = gcr_column_at(lo->holders, ev->line_id);
    /* The holders before the install adds this L1. */
    uint32_t first = ev->unit - ev->unit % lo->cluster_size;
    if (read_miss && gcr_holders_any_in(&lo->pool, *h, first, lo->cluster_size, ev->unit))
        lo->kernel.l1_servable++;
    if (a->allocated && !gcr_holders_has(&lo->pool, *h, ev->unit) &&
        gcr_holders_add(&lo->pool, h, ev->unit) != 0)
        lo->failed = true;
}

static void on_l1_evict(struct locality *lo, const struct gcr_event *ev)
{
    if (ev->unit >= lo->num_l1s || ev->line_id == GCR_IDMAP_NONE)
        return;
    uint64_t *h = gcr_column_at(lo->holders, ev->line_id);
    if (gcr_holders_has(&lo->pool, *h, ev->unit))
        gcr_holders_remove(&lo->pool, h, ev->unit);
}

static void locality_on_event(void *self, const struct gcr_event *ev)
{
    struct locality *lo = self;
    switch (ev->kind) {
    case GCR_EV_L2_ACCESS:
        on_l2_access(lo, ev);
        break;
    case GCR_EV_L2_EVICT:
        if (ev->line_id != GCR_IDMAP_NONE)
            *(uint32_t *)gcr_column_at(lo->filler, ev->line_id) = 0;
        break;
    case GCR_EV_L1_ACCESS:
        on_l1_access(lo, ev);
        break;
    case GCR_EV_L1_EVICT:
        on_l1_evict(lo, ev);
        break;
    default:
        break;
    }
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : 0.0;
}

static int fill(const struct locality *lo, const struct locality_counts *k, json_t *section)
{
    json_t *l2 = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:f}", "read_accesses", (json_int_t)k->l2_reads,
        "read_hits", (json_int_t)k->l2_read_hits, "intra_core_hits", (json_int_t)k->l2_intra,
        "inter_core_hits", (json_int_t)k->l2_inter, "no_sm_hits", (json_int_t)k->l2_no_sm,
        "inter_core_share", share(k->l2_inter, k->l2_intra + k->l2_inter));
    json_t *l1 = json_pack("{s:I, s:I, s:I, s:f}", "cluster_size", (json_int_t)lo->cluster_size,
                           "read_misses", (json_int_t)k->l1_read_misses, "servable_in_cluster",
                           (json_int_t)k->l1_servable, "servable_share",
                           share(k->l1_servable, k->l1_read_misses));
    int rc = json_object_set_new(section, "l2_hits", l2);
    rc |= json_object_set_new(section, "l1_remote", l1);
    return rc;
}

static int locality_report_kernel(void *self, json_t *section, struct gcr_err *err)
{
    struct locality *lo = self;
    if (lo->failed)
        return gcr_fail(err, GCR_E_NOMEM, "analysis locality: out of memory");
    int rc = fill(lo, &lo->kernel, section);
    gcr_add_u64s((uint64_t *)&lo->total, (const uint64_t *)&lo->kernel,
                 sizeof(struct locality_counts) / sizeof(uint64_t));
    memset(&lo->kernel, 0, sizeof lo->kernel);
    return rc ? gcr_fail(err, GCR_E_NOMEM, "out of memory") : 0;
}

static int locality_report_total(void *self, json_t *section, struct gcr_err *err)
{
    struct locality *lo = self;
    if (lo->failed)
        return gcr_fail(err, GCR_E_NOMEM, "analysis locality: out of memory");
    /* Kernels are reported as they end; anything after the last one is added here. */
    struct locality_counts t = lo->total;
    gcr_add_u64s((uint64_t *)&t, (const uint64_t *)&lo->kernel,
                 sizeof(struct locality_counts) / sizeof(uint64_t));
    return fill(lo, &t, section) ? gcr_fail(err, GCR_E_NOMEM, "out of memory") : 0;
}

/* The run's table: the share of L2 read hits on lines another SM brought in (inter-core
 * locality). */
static const char *const headline_labels[] = {"L2-inter%", NULL};

static void headline(const json_t *section, char text[][GCR_HEADLINE_TEXT])
{
    const json_t *f = json_object_get(json_object_get(section, "l2_hits"), "inter_core_share");
    snprintf(text[0], GCR_HEADLINE_TEXT, json_is_number(f) ? "%.1f" : "-",
             100.0 * json_number_value(f));
}

const struct gcr_analysis_ops gcr_analysis_locality = {
    .name = "locality",
    .summary = "intra/inter-core L2 hits; L1 misses servable by another L1 of the cluster",
    .subscribe = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT | GCR_EV_L2_ACCESS | GCR_EV_L2_EVICT,
    .create = locality_create,
    .on_event = locality_on_event,
    .report_kernel = locality_report_kernel,
    .report_total = locality_report_total,
    .destroy = locality_destroy,
    .headline_labels = headline_labels,
    .headline = headline,
};
