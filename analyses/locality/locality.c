/* locality: (a) whether an L2 read hit finds a line brought into L2 by the
 * same SM (intra-core) or by another SM (inter-core); (b) how many L1 read
 * misses another L1 of the same cluster could have served (the line was
 * resident there at that moment). See README.md for the exact definitions.
 *
 * Two open-addressing tables follow residency through the replay's events:
 * L2-resident line -> SM whose request installed it, and (line, cluster) ->
 * the L1s of the cluster holding the line. Entries are deleted when lines
 * leave (backward-shift deletion, no tombstones), so both stay as large as the
 * caches' contents. */
#include <stdlib.h>
#include <string.h>

#include "core/table_memory.h"
#include "core/bits.h"
#include "gcreplay/analysis.h"

#define NO_SM UINT32_MAX     /* installed by a write-back: no requesting SM */
#define MAX_CLUSTER 64       /* members of a cluster are bits of one word */

/* 16 bytes, four to a host cache line. */
struct slot {
    uint64_t key;   /* line address | 1 (aligned, so bit 0 is free); 0 = empty */
    uint64_t value; /* L2: filling SM; L1: bit per L1 of the cluster holding the line */
};

struct table {
    struct slot *slots;
    size_t cap; /* power of two */
    size_t count;
};

static inline size_t home(const struct table *t, uint64_t key)
{
    return (size_t)gcr_hash_fmix64(key) & (t->cap - 1);
}

static int table_init(struct table *t, size_t cap)
{
    t->slots = gcr_table_alloc(cap * sizeof *t->slots);
    if (!t->slots)
        return -1;
    t->cap = cap;
    t->count = 0;
    return 0;
}

static void table_free(struct table *t)
{
    gcr_table_free(t->slots, t->cap * sizeof *t->slots);
    t->slots = NULL;
}

static int table_grow(struct table *t)
{
    struct table bigger;
    if (table_init(&bigger, t->cap * 2) != 0)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        const struct slot *s = &t->slots[i];
        if (!s->key)
            continue;
        size_t j = home(&bigger, s->key);
        while (bigger.slots[j].key)
            j = (j + 1) & (bigger.cap - 1);
        bigger.slots[j] = *s;
    }
    bigger.count = t->count;
    table_free(t);
    *t = bigger;
    return 0;
}

static struct slot *table_find(struct table *t, uint64_t line)
{
    uint64_t key = line | 1;
    for (size_t i = home(t, key);; i = (i + 1) & (t->cap - 1)) {
        struct slot *s = &t->slots[i];
        if (s->key == key)
            return s;
        if (!s->key)
            return NULL;
    }
}

/* The slot of line, inserted with value 0 if absent; NULL if out of memory.
 * The tables are sized for the caches' contents, so growing is rare. */
static struct slot *table_get(struct table *t, uint64_t line)
{
    uint64_t key = line | 1;
    size_t i = home(t, key);
    for (;; i = (i + 1) & (t->cap - 1)) {
        struct slot *s = &t->slots[i];
        if (s->key == key)
            return s;
        if (!s->key)
            break;
    }
    if ((t->count + 1) * 10 > t->cap * 7) {
        if (table_grow(t) != 0)
            return NULL;
        return table_get(t, line);
    }
    t->slots[i] = (struct slot){.key = key};
    t->count++;
    return &t->slots[i];
}

/* Removes a slot, shifting later members of its probe run back so that
 * lookups never need tombstones. */
static void table_remove(struct table *t, struct slot *s)
{
    size_t hole = (size_t)(s - t->slots);
    size_t mask = t->cap - 1;
    for (size_t j = (hole + 1) & mask; t->slots[j].key; j = (j + 1) & mask) {
        size_t h = home(t, t->slots[j].key);
        /* The entry at j may move to the hole only if its home is not in (hole, j]. */
        bool stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
        if (!stays) {
            t->slots[hole] = t->slots[j];
            hole = j;
        }
    }
    t->slots[hole].key = 0;
    t->count--;
}

struct locality_counts {
    uint64_t l2_reads;      /* L2 read requests from SMs */
    uint64_t l2_read_hits;
    uint64_t l2_intra;      /* hits on lines the same SM installed */
    uint64_t l2_inter;      /* hits on lines another SM installed */
    uint64_t l2_no_sm;      /* hits on lines installed without a requesting SM */
    uint64_t l1_read_misses;
    uint64_t l1_servable;   /* misses whose line another L1 of the cluster held */
};

struct locality {
    uint32_t cluster_size, num_l1s, num_clusters;
    struct table l2;
    struct table *l1; /* per cluster: line -> the cluster's L1s holding it */
    bool failed; /* out of memory while observing: reported at the kernel's end */
    struct locality_counts kernel, total;
};

static size_t pow2_at_least(uint64_t n)
{
    size_t c = 1024;
    while (c < n && c < ((size_t)1 << 40))
        c *= 2;
    return c;
}

static void locality_destroy(void *self)
{
    struct locality *lo = self;
    if (!lo)
        return;
    table_free(&lo->l2);
    for (uint32_t c = 0; lo->l1 && c < lo->num_clusters; c++)
        table_free(&lo->l1[c]);
    free(lo->l1);
    free(lo);
}

static int locality_create(void **self, const json_t *options, const struct gcr_sim_info *info,
                           struct gcr_err *err)
{
    const char *key;
    const json_t *v;
    uint64_t cluster_size = 4;
    json_object_foreach((json_t *)options, key, v) {
        if (strcmp(key, "cluster_size") != 0)
            return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.locality.%s: unknown key "
                            "(known: cluster_size)", info->config->origin, key);
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > MAX_CLUSTER)
            return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.locality.cluster_size: expected "
                            "an integer from 1 to %d", info->config->origin, MAX_CLUSTER);
        cluster_size = (uint64_t)json_integer_value(v);
    }
    struct locality *lo = calloc(1, sizeof *lo);
    if (!lo)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    lo->cluster_size = (uint32_t)cluster_size;
    lo->num_l1s = info->num_l1s;
    /* Start at twice the caches' line capacity: no growth in a normal run. */
    const struct gcr_config *cfg = info->config;
    uint64_t l2_lines = (uint64_t)info->num_l2_slices * cfg->l2.sets * cfg->l2.ways;
    uint64_t cluster_lines = (uint64_t)lo->cluster_size * cfg->l1.sets * cfg->l1.ways;
    lo->num_clusters = (info->num_l1s + lo->cluster_size - 1) / lo->cluster_size;
    lo->l1 = calloc(lo->num_clusters ? lo->num_clusters : 1, sizeof *lo->l1);
    bool ok = lo->l1 && table_init(&lo->l2, pow2_at_least(2 * l2_lines)) == 0;
    for (uint32_t c = 0; ok && c < lo->num_clusters; c++)
        ok = table_init(&lo->l1[c], pow2_at_least(2 * cluster_lines)) == 0;
    if (!ok) {
        locality_destroy(lo);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    *self = lo;
    return 0;
}

static void on_l2_access(struct locality *lo, const struct gcr_event *ev)
{
    const struct gcr_access *a = ev->access;
    if (ev->sm != NO_SM && !ev->is_write) {
        lo->kernel.l2_reads++;
        if (a->outcome == GCR_HIT) {
            lo->kernel.l2_read_hits++;
            const struct slot *s = table_find(&lo->l2, ev->line_addr);
            if (!s || s->value == NO_SM)
                lo->kernel.l2_no_sm++;
            else if (s->value == ev->sm)
                lo->kernel.l2_intra++;
            else
                lo->kernel.l2_inter++;
        }
    }
    if (a->allocated) {
        struct slot *s = table_get(&lo->l2, ev->line_addr);
        if (!s) {
            lo->failed = true;
            return;
        }
        s->value = ev->sm;
    }
}

static void on_l1_access(struct locality *lo, const struct gcr_event *ev)
{
    const struct gcr_access *a = ev->access;
    if (!ev->is_write && a->outcome != GCR_HIT)
        lo->kernel.l1_read_misses++;
    if (ev->unit >= lo->num_l1s)
        return; /* not an L1 instance of the organisation: nothing to track */
    struct table *t = &lo->l1[ev->unit / lo->cluster_size];
    uint64_t me = 1ull << (ev->unit % lo->cluster_size);
    if (!ev->is_write && a->outcome != GCR_HIT) {
        const struct slot *s = table_find(t, ev->line_addr);
        if (s && (s->value & ~me))
            lo->kernel.l1_servable++;
    }
    if (a->allocated) {
        struct slot *s = table_get(t, ev->line_addr);
        if (!s) {
            lo->failed = true;
            return;
        }
        s->value |= me;
    }
}

static void on_l1_evict(struct locality *lo, const struct gcr_event *ev)
{
    if (ev->unit >= lo->num_l1s)
        return;
    struct table *t = &lo->l1[ev->unit / lo->cluster_size];
    struct slot *s = table_find(t, ev->line_addr);
    if (!s)
        return;
    s->value &= ~(1ull << (ev->unit % lo->cluster_size));
    if (!s->value)
        table_remove(t, s);
}

static void locality_on_event(void *self, const struct gcr_event *ev)
{
    struct locality *lo = self;
    switch (ev->kind) {
    case GCR_EV_L2_ACCESS:
        on_l2_access(lo, ev);
        break;
    case GCR_EV_L2_EVICT: {
        struct slot *s = table_find(&lo->l2, ev->line_addr);
        if (s)
            table_remove(&lo->l2, s);
        break;
    }
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

const struct gcr_analysis_ops gcr_analysis_locality = {
    .name = "locality",
    .summary = "intra/inter-core L2 hits; L1 misses servable by another L1 of the cluster",
    .subscribe = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT | GCR_EV_L2_ACCESS | GCR_EV_L2_EVICT,
    .create = locality_create,
    .on_event = locality_on_event,
    .report_kernel = locality_report_kernel,
    .report_total = locality_report_total,
    .destroy = locality_destroy,
};
