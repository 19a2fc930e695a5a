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
/* The L2 map stores the filling SM + 1 in 32 bits: a write-back's NO_SM
 * (UINT32_MAX) becomes 0, SM k becomes k + 1 (at most 4096 SMs: 13 bits). */
#define L2_VALUE_BITS 13

/* A map line -> value (L2: filling SM; L1: bit per L1 of the cluster holding
 * the line) in open addressing: linear probing, backward-shift deletion.
 *
 * A slot is one 64-bit word, eight to a host cache line, whenever the line
 * fits: the line number (line address / line bytes) plus one in the high
 * 64 - vbits bits, the value in the low vbits (0 = empty slot, so fresh zeroed
 * memory is an empty table). The L2 map's values are SM + 1 (13 bits); an L1
 * map's are the cluster's bitmask (cluster_size bits). That halves the tables
 * against a key word plus a value word, so they compete less with the caches
 * the replay itself models for the host's cache. A line that does not fit (an
 * unaligned address, a line number too large, a cluster wider than the key
 * leaves room for) turns the table "wide" for good: two words per slot, key =
 * line address | 1 and the value. Both layouts hold the same map. */
struct table {
    uint64_t *slots;
    size_t cap;     /* power of two, slots */
    size_t count;
    unsigned shift; /* log2 of the line size */
    unsigned vbits; /* value bits of a one-word slot */
    bool wide;      /* two words per slot */
};

#define NOT_FOUND SIZE_MAX

static inline size_t words_of(const struct table *t)
{
    return t->wide ? 2 : 1;
}

/* The key of line in t's layout (never 0), or 0 if the line does not fit a one-word slot. */
static inline uint64_t key_of(const struct table *t, uint64_t line)
{
    if (t->wide)
        return line | 1; /* line addresses are aligned, so bit 0 is free */
    uint64_t number = line >> t->shift;
    if ((number << t->shift) != line || number + 1 >= (1ull << (64 - t->vbits)))
        return 0;
    return number + 1;
}

static inline uint64_t slot_key(const struct table *t, size_t i)
{
    return t->wide ? t->slots[2 * i] : t->slots[i] >> t->vbits;
}

static inline uint64_t slot_value(const struct table *t, size_t i)
{
    return t->wide ? t->slots[2 * i + 1] : t->slots[i] & ((1ull << t->vbits) - 1);
}

static inline void slot_set_value(struct table *t, size_t i, uint64_t v)
{
    if (t->wide)
        t->slots[2 * i + 1] = v;
    else
        t->slots[i] = (t->slots[i] >> t->vbits << t->vbits) | v;
}

static inline size_t home(const struct table *t, uint64_t key)
{
    return (size_t)gcr_hash_fmix64(key) & (t->cap - 1);
}

static int table_init(struct table *t, size_t cap, unsigned shift, unsigned vbits, bool wide)
{
    *t = (struct table){.cap = cap, .shift = shift, .vbits = vbits, .wide = wide || vbits >= 32};
    t->slots = gcr_table_alloc(cap * words_of(t) * sizeof *t->slots);
    return t->slots ? 0 : -1;
}

static void table_free(struct table *t)
{
    gcr_table_free(t->slots, t->cap * words_of(t) * sizeof *t->slots);
    t->slots = NULL;
}

/* Rebuilds t at capacity cap, wide if asked (or already). */
static int table_rebuild(struct table *t, size_t cap, bool wide)
{
    struct table bigger;
    if (table_init(&bigger, cap, t->shift, t->vbits, wide || t->wide) != 0)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (!slot_key(t, i))
            continue;
        /* The line back from the key in t's layout. */
        uint64_t line = t->wide ? slot_key(t, i) & ~1ull : (slot_key(t, i) - 1) << t->shift;
        uint64_t key = key_of(&bigger, line);
        size_t j = home(&bigger, key);
        while (slot_key(&bigger, j))
            j = (j + 1) & (bigger.cap - 1);
        if (bigger.wide) {
            bigger.slots[2 * j] = key;
            bigger.slots[2 * j + 1] = slot_value(t, i);
        } else {
            bigger.slots[j] = key << bigger.vbits | slot_value(t, i);
        }
    }
    bigger.count = t->count;
    table_free(t);
    *t = bigger;
    return 0;
}

static size_t table_find(const struct table *t, uint64_t line)
{
    uint64_t key = key_of(t, line);
    if (!key)
        return NOT_FOUND; /* a one-word table holds only lines that fit */
    size_t mask = t->cap - 1;
    if (!t->wide) { /* the common layout, without the per-slot layout test */
        for (size_t i = home(t, key);; i = (i + 1) & mask) {
            uint64_t k = t->slots[i] >> t->vbits;
            if (k == key)
                return i;
            if (!k)
                return NOT_FOUND;
        }
    }
    for (size_t i = home(t, key);; i = (i + 1) & mask) {
        uint64_t k = t->slots[2 * i];
        if (k == key)
            return i;
        if (!k)
            return NOT_FOUND;
    }
}

/* The slot of line, inserted with value 0 if absent; NOT_FOUND if out of
 * memory. The tables are sized for the caches' contents, so growing is rare. */
static size_t table_get(struct table *t, uint64_t line)
{
    uint64_t key = key_of(t, line);
    if (!key) {
        if (table_rebuild(t, t->cap, true) != 0)
            return NOT_FOUND;
        key = key_of(t, line);
    }
    /* One probe run: the line's slot, or the free slot that ends the run. */
    size_t mask = t->cap - 1, i = home(t, key);
    if (t->wide) {
        for (; t->slots[2 * i]; i = (i + 1) & mask)
            if (t->slots[2 * i] == key)
                return i;
    } else {
        for (; t->slots[i]; i = (i + 1) & mask)
            if (t->slots[i] >> t->vbits == key)
                return i;
    }
    if ((t->count + 1) * 10 > t->cap * 7) {
        if (table_rebuild(t, t->cap * 2, false) != 0)
            return NOT_FOUND;
        return table_get(t, line);
    }
    if (t->wide) {
        t->slots[2 * i] = key;
        t->slots[2 * i + 1] = 0;
    } else {
        t->slots[i] = key << t->vbits;
    }
    t->count++;
    return i;
}

/* Removes slot hole, shifting later members of its probe run back so that
 * lookups never need tombstones. */
static void table_remove(struct table *t, size_t hole)
{
    size_t mask = t->cap - 1;
    if (!t->wide) { /* the common layout: move whole words */
        uint64_t *w = t->slots;
        for (size_t j = (hole + 1) & mask; w[j]; j = (j + 1) & mask) {
            size_t h = home(t, w[j] >> t->vbits);
            /* The entry at j may move to the hole only if its home is not in (hole, j]. */
            bool stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
            if (!stays) {
                w[hole] = w[j];
                hole = j;
            }
        }
        w[hole] = 0;
        t->count--;
        return;
    }
    for (size_t j = (hole + 1) & mask; t->slots[2 * j]; j = (j + 1) & mask) {
        size_t h = home(t, t->slots[2 * j]);
        bool stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
        if (!stays) {
            t->slots[2 * hole] = t->slots[2 * j];
            t->slots[2 * hole + 1] = t->slots[2 * j + 1];
            hole = j;
        }
    }
    t->slots[2 * hole] = 0;
    t->slots[2 * hole + 1] = 0;
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
    unsigned shift = gcr_bits_ctz32(info->line_bytes ? info->line_bytes : 1);
    bool ok = lo->l1 && table_init(&lo->l2, pow2_at_least(2 * l2_lines), shift, L2_VALUE_BITS,
                                   false) == 0;
    for (uint32_t c = 0; ok && c < lo->num_clusters; c++)
        ok = table_init(&lo->l1[c], pow2_at_least(2 * cluster_lines), shift, lo->cluster_size,
                        false) == 0;
    if (!ok) {
        locality_destroy(lo);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    *self = lo;
    return 0;
}

/* Stores v in slot i of line's entry, turning the table wide first if v does
 * not fit a one-word slot; returns false if out of memory. */
static bool table_put(struct table *t, size_t i, uint64_t line, uint64_t v)
{
    if (!t->wide && v >> t->vbits) {
        if (table_rebuild(t, t->cap, true) != 0)
            return false;
        i = table_find(t, line);
    }
    slot_set_value(t, i, v);
    return true;
}

static void on_l2_access(struct locality *lo, const struct gcr_event *ev)
{
    const struct gcr_access *a = ev->access;
    if (ev->sm != NO_SM && !ev->is_write) {
        lo->kernel.l2_reads++;
        if (a->outcome == GCR_HIT) {
            lo->kernel.l2_read_hits++;
            size_t i = table_find(&lo->l2, ev->line_addr);
            uint32_t filler = i == NOT_FOUND ? NO_SM : (uint32_t)slot_value(&lo->l2, i) - 1u;
            if (filler == NO_SM)
                lo->kernel.l2_no_sm++;
            else if (filler == ev->sm)
                lo->kernel.l2_intra++;
            else
                lo->kernel.l2_inter++;
        }
    }
    if (a->allocated) {
        size_t i = table_get(&lo->l2, ev->line_addr);
        if (i == NOT_FOUND || !table_put(&lo->l2, i, ev->line_addr, (uint32_t)(ev->sm + 1u)))
            lo->failed = true;
    }
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
    struct table *t = &lo->l1[ev->unit / lo->cluster_size];
    uint64_t me = 1ull << (ev->unit % lo->cluster_size);
    if (!a->allocated) {
        size_t i = table_find(t, ev->line_addr);
        if (i != NOT_FOUND && (slot_value(t, i) & ~me))
            lo->kernel.l1_servable++;
        return;
    }
    /* One probe finds the holders before the install adds this L1 (none for a new entry). */
    size_t i = table_get(t, ev->line_addr);
    if (i == NOT_FOUND) {
        lo->failed = true;
        return;
    }
    uint64_t holders = slot_value(t, i);
    if (read_miss && (holders & ~me))
        lo->kernel.l1_servable++;
    if (!table_put(t, i, ev->line_addr, holders | me))
        lo->failed = true;
}

static void on_l1_evict(struct locality *lo, const struct gcr_event *ev)
{
    if (ev->unit >= lo->num_l1s)
        return;
    struct table *t = &lo->l1[ev->unit / lo->cluster_size];
    size_t i = table_find(t, ev->line_addr);
    if (i == NOT_FOUND)
        return;
    uint64_t left = slot_value(t, i) & ~(1ull << (ev->unit % lo->cluster_size));
    if (left)
        slot_set_value(t, i, left);
    else
        table_remove(t, i);
}

static void locality_on_event(void *self, const struct gcr_event *ev)
{
    struct locality *lo = self;
    switch (ev->kind) {
    case GCR_EV_L2_ACCESS:
        on_l2_access(lo, ev);
        break;
    case GCR_EV_L2_EVICT: {
        size_t i = table_find(&lo->l2, ev->line_addr);
        if (i != NOT_FOUND)
            table_remove(&lo->l2, i);
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
