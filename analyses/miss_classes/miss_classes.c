/* miss_classes: every L1 and L2 miss split into compulsory / capacity /
 * conflict (the 3C model), and every L1 miss split by who last touched the
 * line in that L1: the same warp, another warp of the same CTA, another CTA,
 * or a previous kernel. Definitions and report layout: README.md.
 *
 * Per cache instance the analysis keeps a table of the lines it has seen
 * (requested sectors and the last requester) and a shadow fully associative
 * LRU cache of the same capacity, fed the same requests. */
#include <stdlib.h>
#include <string.h>

#include "core/table_memory.h"
#include "core/bits.h"
#include "gcreplay/analysis.h"

enum { MC_COMPULSORY, MC_CAPACITY, MC_CONFLICT, MC_3C };
enum { MC_INTRA_WARP = 1, MC_INTRA_CTA, MC_INTER_CTA, MC_INTER_KERNEL, MC_LOC };
enum { MC_L1, MC_L2, MC_LEVELS };

static const char *const names_3c[MC_3C] = {"compulsory", "capacity", "conflict"};
static const char *const names_loc[MC_LOC] = {"compulsory", "intra_warp", "intra_cta",
                                              "inter_cta", "inter_kernel"};
static const char *const level_names[MC_LEVELS] = {"L1D", "L2"};

/* A line one cache instance has seen. tag == 0: free slot, so freshly
 * allocated (zero-filled) memory is an empty table with no pass over it. */
struct mc_line {
    uint64_t line;
    uint32_t tag;    /* the instance's index + 1 */
    uint32_t seen;   /* sectors ever requested (all ones for unsectored caches) */
    uint32_t cta;    /* last requester (L1 only) */
    uint16_t warp;
    uint16_t kernel; /* kernel sequence number of the last request, modulo 2^16 */
};

struct mc_table {
    struct mc_line *slots;
    uint32_t mask;
    uint32_t count;
};

/* Misses of one instance over one period: [read/write][class]. */
struct mc_counts {
    uint64_t accesses[2];
    uint64_t misses[2];
    uint64_t c3[2][MC_3C];
    uint64_t loc[2][MC_LOC]; /* L1 only */
};

struct mc_level {
    uint32_t units;
    struct mc_shadow *shadow; /* one per unit */
    uint32_t shadow_lines;
    bool sectored;
    struct mc_table seen;
    struct mc_counts *kernel, *total; /* per unit */
};

struct miss_classes {
    const struct gcr_sim_info *info;
    struct mc_level lv[MC_LEVELS];
    uint16_t kernel_seq;
    int oom;
};

static int table_init(struct mc_table *t, uint32_t n)
{
    t->slots = gcr_table_alloc((size_t)n * sizeof *t->slots); /* zero-filled: all free */
    if (!t->slots)
        return -1;
    t->mask = n - 1;
    t->count = 0;
    return 0;
}

/* The hash of (instance tag, line); its low bits are the home slot. */
static inline uint64_t table_hash(uint64_t line, uint32_t tag)
{
    uint32_t unit = tag - 1;
    return gcr_hash_splitmix64(line ^ ((uint64_t)unit << 56) ^ unit);
}

static int table_grow(struct mc_table *t)
{
    struct mc_table n;
    if (table_init(&n, (t->mask + 1) * 2) != 0)
        return -1;
    for (uint32_t i = 0; i <= t->mask; i++) {
        const struct mc_line *e = &t->slots[i];
        if (!e->tag)
            continue;
        uint32_t j = (uint32_t)table_hash(e->line, e->tag) & n.mask;
        while (n.slots[j].tag)
            j = (j + 1) & n.mask;
        n.slots[j] = *e;
    }
    n.count = t->count;
    gcr_table_free(t->slots, ((size_t)t->mask + 1) * sizeof *t->slots);
    *t = n;
    return 0;
}

/* The entry of (tag, line) whose table_hash is hash, created (seen = 0) if
 * absent; NULL if out of memory. */
static struct mc_line *table_get(struct mc_table *t, uint64_t line, uint32_t tag, uint64_t hash)
{
    if (2 * (t->count + 1) > t->mask && table_grow(t) != 0)
        return NULL;
    uint32_t j = (uint32_t)hash & t->mask;
    for (;; j = (j + 1) & t->mask) {
        struct mc_line *e = &t->slots[j];
        if (e->tag == tag && e->line == line)
            return e;
        if (!e->tag) {
            *e = (struct mc_line){.line = line, .tag = tag};
            t->count++;
            return e;
        }
    }
}

/* ------------------------------------------------------------ shadow LRU */

/* The shadow of one cache instance: a fully associative LRU cache with the
 * real cache's capacity, line and sector sizes and write handling, so that
 * its hit/miss outcome equals what gcr_cache_access would report for a
 * one-set LRU gcr_cache of the same geometry (the 3C definition needs only
 * that outcome). A general gcr_cache with thousands of ways works too but
 * its state (32-byte line records, hash buckets, list links) overflows the
 * host's last-level cache when there is one shadow per L1 and per L2 slice.
 * This one is 16 bytes per line plus a 2-byte hash slot: a node array
 * forming the LRU list with 16-bit links (level_init caps a shadow at 65535
 * lines, so node indices fit) and an open-addressing hash of line -> node
 * index, zero = free slot. Dirty state is not kept: it never changes an
 * outcome. */
struct mc_node {
    uint64_t line;
    uint16_t prev, next; /* node 0 is the list head: next = MRU, prev = LRU; next
                            also links the free list of nodes removed by write-evict */
    uint32_t valid;      /* valid sectors */
};

struct mc_shadow {
    struct mc_node *nodes; /* capacity + 1, node 0 the list head */
    uint16_t *slots;       /* node index, 0 = free; a power of two >= 2 x capacity
                              so linear probes stay short */
    uint32_t slot_mask;
    unsigned slot_shift;   /* 64 - log2(slots), for Fibonacci hashing */
    uint32_t capacity, count;
    uint32_t high_water;   /* nodes 1..high_water have been used */
    uint32_t free_head;    /* nodes freed by write-evict, 0: none */
    uint64_t line_mask;
    uint32_t full_mask;
    bool sectored;
    enum gcr_write_policy write_policy;
    enum gcr_write_alloc write_alloc;
};

static inline uint32_t shadow_home(const struct mc_shadow *s, uint64_t line)
{
    return (uint32_t)((line * UINT64_C(0x9E3779B97F4A7C15)) >> s->slot_shift);
}

static void shadow_reset(struct mc_shadow *s)
{
    memset(s->slots, 0, ((size_t)s->slot_mask + 1) * sizeof *s->slots);
    s->nodes[0].prev = s->nodes[0].next = 0;
    s->count = s->high_water = s->free_head = 0;
}

static int shadow_init(struct mc_shadow *s, const struct gcr_cache_geometry *g, uint32_t lines)
{
    uint32_t slots = 2;
    unsigned bits = 1;
    while (slots < 2 * lines) {
        slots *= 2;
        bits++;
    }
    s->nodes = malloc(((size_t)lines + 1) * sizeof *s->nodes);
    s->slots = malloc((size_t)slots * sizeof *s->slots);
    if (!s->nodes || !s->slots)
        return -1;
    s->slot_mask = slots - 1;
    s->slot_shift = 64 - bits;
    s->capacity = lines;
    s->line_mask = ~(uint64_t)(g->line_bytes - 1);
    uint32_t sectors = g->line_bytes / g->sector_bytes;
    s->full_mask = sectors == 32 ? UINT32_MAX : (UINT32_C(1) << sectors) - 1;
    s->sectored = g->sectored;
    s->write_policy = g->write_policy;
    s->write_alloc = g->write_alloc;
    shadow_reset(s);
    return 0;
}

static void shadow_free(struct mc_shadow *s)
{
    free(s->nodes);
    free(s->slots);
}

static inline void list_unlink(struct mc_node *n, uint32_t i)
{
    n[n[i].prev].next = n[i].next;
    n[n[i].next].prev = n[i].prev;
}

static inline void list_push_mru(struct mc_node *n, uint32_t i)
{
    n[i].prev = 0;
    n[i].next = n[0].next;
    n[n[0].next].prev = (uint16_t)i;
    n[0].next = (uint16_t)i;
}

/* Empties slot j by backward-shift deletion, so no tombstones ever lengthen
 * the probes. */
static void shadow_slot_remove(struct mc_shadow *s, uint32_t j)
{
    for (uint32_t k = (j + 1) & s->slot_mask; s->slots[k]; k = (k + 1) & s->slot_mask) {
        uint32_t home = shadow_home(s, s->nodes[s->slots[k]].line);
        /* Slot k may move to the hole j unless its home lies cyclically in (j, k]. */
        if (((k - home) & s->slot_mask) >= ((k - j) & s->slot_mask)) {
            s->slots[j] = s->slots[k];
            j = k;
        }
    }
    s->slots[j] = 0;
}

/* The slot holding line, or the free slot where it would go. */
static inline uint32_t shadow_find(const struct mc_shadow *s, uint64_t line)
{
    uint32_t j = shadow_home(s, line);
    while (s->slots[j] && s->nodes[s->slots[j]].line != line)
        j = (j + 1) & s->slot_mask;
    return j;
}

/* Installs line (absent) at the MRU end, evicting the LRU line if full;
 * free_slot is shadow_find's answer for it. Returns the node. */
static uint32_t shadow_allocate(struct mc_shadow *s, uint64_t line, uint32_t free_slot)
{
    struct mc_node *n = s->nodes;
    uint32_t i;
    if (s->count == s->capacity) {
        i = n[0].prev;
        list_unlink(n, i);
        shadow_slot_remove(s, shadow_find(s, n[i].line));
        free_slot = shadow_find(s, line); /* the shift may have moved the free slot */
    } else {
        if (s->free_head) {
            i = s->free_head;
            s->free_head = n[i].next;
        } else {
            i = ++s->high_water;
        }
        s->count++;
    }
    n[i].line = line;
    n[i].valid = 0;
    list_push_mru(n, i);
    s->slots[free_slot] = (uint16_t)i;
    return i;
}

/* One request; true if it hits (line present, every requested sector valid).
 * The state changes mirror src/cache/cache.c's read_access / write_access. */
static bool shadow_access(struct mc_shadow *s, uint64_t line, uint32_t mask, bool is_write)
{
    line &= s->line_mask;
    mask &= s->full_mask;
    struct mc_node *n = s->nodes;
    uint32_t j = shadow_find(s, line);
    if (!s->slots[j]) { /* line absent */
        if (!is_write) {
            uint32_t i = shadow_allocate(s, line, j);
            n[i].valid = s->sectored ? mask : s->full_mask;
        } else if (s->write_policy != GCR_WRITE_EVICT && s->write_alloc != GCR_WALLOC_NONE) {
            uint32_t i = shadow_allocate(s, line, j);
            uint32_t fetched = s->write_alloc == GCR_WALLOC_FETCH
                                   ? (s->sectored ? mask : s->full_mask) : 0;
            n[i].valid = fetched | mask;
        }
        return false;
    }
    uint32_t i = s->slots[j];
    bool hit = (mask & ~n[i].valid) == 0;
    if (is_write && s->write_policy == GCR_WRITE_EVICT) {
        list_unlink(n, i);
        shadow_slot_remove(s, j);
        n[i].next = (uint16_t)s->free_head;
        s->free_head = i;
        s->count--;
        return hit;
    }
    if (is_write)
        n[i].valid |= mask;
    else if (!hit) /* an unsectored cache refills the whole line */
        n[i].valid |= s->sectored ? mask : s->full_mask;
    if (n[0].next != i) {
        list_unlink(n, i);
        list_push_mru(n, i);
    }
    return hit;
}

/* ------------------------------------------------------------------ events */

static void mc_on_event(void *self, const struct gcr_event *ev)
{
    struct miss_classes *mc = self;
    if (ev->kind == GCR_EV_KERNEL_END) {
        mc->kernel_seq++;
        /* The L1s are invalidated right after this event: so are their shadows. */
        if (mc->info->config->l1_invalidate_at_kernel_end)
            for (uint32_t u = 0; u < mc->lv[MC_L1].units; u++)
                shadow_reset(&mc->lv[MC_L1].shadow[u]);
        return;
    }
    struct mc_level *lv = &mc->lv[ev->kind == GCR_EV_L1_ACCESS ? MC_L1 : MC_L2];
    if (ev->unit >= lv->units)
        return;
    /* Both the seen-table probe and the shadow access usually miss the CPU
     * caches: start loading the slot now so the two misses overlap. */
    uint32_t tag = ev->unit + 1;
    uint64_t hash = table_hash(ev->line_addr, tag);
    __builtin_prefetch(&lv->seen.slots[(uint32_t)hash & lv->seen.mask], 1);
    bool shadow_hit = shadow_access(&lv->shadow[ev->unit], ev->line_addr, ev->sector_mask,
                                    ev->is_write);
    struct mc_line *e = table_get(&lv->seen, ev->line_addr, tag, hash);
    if (!e) {
        mc->oom = 1;
        return;
    }
    struct mc_counts *c = &lv->kernel[ev->unit];
    int w = ev->is_write;
    c->accesses[w]++;
    if (ev->access->outcome != GCR_HIT) {
        c->misses[w]++;
        /* Compulsory: a requested sector (in an unsectored cache: the line) this
         * instance was never asked for since the run began. */
        bool first = lv->sectored ? (ev->sector_mask & ~e->seen) != 0 : e->seen == 0;
        int k = first ? MC_COMPULSORY
                      : !shadow_hit ? MC_CAPACITY : MC_CONFLICT;
        c->c3[w][k]++;
        if (ev->kind == GCR_EV_L1_ACCESS) {
            int l = first ? MC_COMPULSORY
                    : e->kernel != mc->kernel_seq ? MC_INTER_KERNEL
                    : e->cta != ev->cta           ? MC_INTER_CTA
                    : e->warp != (uint16_t)ev->warp ? MC_INTRA_CTA
                                                    : MC_INTRA_WARP;
            c->loc[w][l]++;
        }
    }
    e->seen |= lv->sectored ? ev->sector_mask : UINT32_MAX;
    e->cta = ev->cta;
    e->warp = (uint16_t)ev->warp;
    e->kernel = mc->kernel_seq;
}

/* ------------------------------------------------------------------ create */

static void mc_destroy(void *self)
{
    struct miss_classes *mc = self;
    if (!mc)
        return;
    for (int l = 0; l < MC_LEVELS; l++) {
        struct mc_level *lv = &mc->lv[l];
        for (uint32_t u = 0; lv->shadow && u < lv->units; u++)
            shadow_free(&lv->shadow[u]);
        free(lv->shadow);
        gcr_table_free(lv->seen.slots, ((size_t)lv->seen.mask + 1) * sizeof *lv->seen.slots);
        free(lv->kernel);
        free(lv->total);
    }
    free(mc);
}

static int level_init(struct mc_level *lv, uint32_t units, const struct gcr_cache_geometry *real,
                      const char *level, const struct gcr_sim_info *info, struct gcr_err *err)
{
    lv->units = units;
    lv->sectored = real->sectored;
    uint64_t lines = (uint64_t)real->sets * real->ways;
    if (lines > 65535)
        return gcr_fail(err, GCR_E_UNSUPPORTED,
                        "%s: miss_classes: the %s has %llu lines; its fully associative shadow "
                        "is limited to 65535",
                        info->config->origin, level, (unsigned long long)lines);
    lv->shadow_lines = (uint32_t)lines;
    lv->shadow = calloc(units ? units : 1, sizeof *lv->shadow);
    lv->kernel = calloc(units ? units : 1, sizeof *lv->kernel);
    lv->total = calloc(units ? units : 1, sizeof *lv->total);
    if (!lv->shadow || !lv->kernel || !lv->total || table_init(&lv->seen, 4096) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (uint32_t u = 0; u < units; u++)
        if (shadow_init(&lv->shadow[u], real, lv->shadow_lines) != 0)
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

static int mc_create(void **self, const json_t *options, const struct gcr_sim_info *info,
                     struct gcr_err *err)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)options, key, v) {
        return gcr_fail(err, GCR_E_CONFIG,
                        "%s: $.analyses.miss_classes.%s: unknown option (miss_classes has none)",
                        info->config->origin, key);
    }
    struct miss_classes *mc = calloc(1, sizeof *mc);
    if (!mc)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    mc->info = info;
    if (level_init(&mc->lv[MC_L1], info->num_l1s, &info->config->l1, "L1D", info, err) != 0 ||
        level_init(&mc->lv[MC_L2], info->num_l2_slices, &info->config->l2, "L2 slice", info,
                   err) != 0) {
        mc_destroy(mc);
        return -1;
    }
    *self = mc;
    return 0;
}

/* ------------------------------------------------------------------ report */

static void counts_add(struct mc_counts *to, const struct mc_counts *from)
{
    uint64_t *a = (uint64_t *)to;
    const uint64_t *b = (const uint64_t *)from;
    for (size_t i = 0; i < sizeof *to / sizeof(uint64_t); i++)
        a[i] += b[i];
}

static json_t *classes_json(const uint64_t *n, const char *const *names, int count)
{
    json_t *o = json_object();
    for (int i = 0; i < count; i++)
        json_object_set_new(o, names[i], json_integer((json_int_t)n[i]));
    return o;
}

static json_t *rw_json(const struct mc_counts *c, int w, bool l1)
{
    json_t *o = json_object();
    json_object_set_new(o, "accesses", json_integer((json_int_t)c->accesses[w]));
    json_object_set_new(o, "misses", json_integer((json_int_t)c->misses[w]));
    json_object_set_new(o, "3c", classes_json(c->c3[w], names_3c, MC_3C));
    if (l1)
        json_object_set_new(o, "locality", classes_json(c->loc[w], names_loc, MC_LOC));
    return o;
}

static json_t *level_json(const struct mc_level *lv, const struct mc_counts *per_unit, bool l1)
{
    struct mc_counts sum = {0};
    json_t *units = json_array();
    for (uint32_t u = 0; u < lv->units; u++) {
        counts_add(&sum, &per_unit[u]);
        /* Per instance: reads and writes together, 3C only. */
        uint64_t c3[MC_3C];
        for (int k = 0; k < MC_3C; k++)
            c3[k] = per_unit[u].c3[0][k] + per_unit[u].c3[1][k];
        json_array_append_new(units, classes_json(c3, names_3c, MC_3C));
    }
    json_t *o = json_object();
    json_object_set_new(o, "shadow_lines", json_integer(lv->shadow_lines));
    json_object_set_new(o, "reads", rw_json(&sum, 0, l1));
    json_object_set_new(o, "writes", rw_json(&sum, 1, l1));
    json_object_set_new(o, "per_unit", units);
    return o;
}

static int mc_report(struct miss_classes *mc, json_t *section, bool kernel, struct gcr_err *err)
{
    if (mc->oom)
        return gcr_fail(err, GCR_E_NOMEM, "miss_classes: out of memory");
    for (int l = 0; l < MC_LEVELS; l++) {
        struct mc_level *lv = &mc->lv[l];
        json_object_set_new(section, level_names[l],
                            level_json(lv, kernel ? lv->kernel : lv->total, l == MC_L1));
    }
    return 0;
}

static int mc_report_kernel(void *self, json_t *section, struct gcr_err *err)
{
    struct miss_classes *mc = self;
    int rc = mc_report(mc, section, true, err);
    for (int l = 0; l < MC_LEVELS; l++) {
        struct mc_level *lv = &mc->lv[l];
        for (uint32_t u = 0; u < lv->units; u++) {
            counts_add(&lv->total[u], &lv->kernel[u]);
            memset(&lv->kernel[u], 0, sizeof lv->kernel[u]);
        }
    }
    return rc;
}

static int mc_report_total(void *self, json_t *section, struct gcr_err *err)
{
    return mc_report(self, section, false, err);
}

const struct gcr_analysis_ops gcr_analysis_miss_classes = {
    .name = "miss_classes",
    .summary = "3C split of L1 and L2 misses; L1 misses by last requester (warp, CTA, kernel)",
    .subscribe = GCR_EV_L1_ACCESS | GCR_EV_L2_ACCESS | GCR_EV_KERNEL_END,
    .create = mc_create,
    .on_event = mc_on_event,
    .report_kernel = mc_report_kernel,
    .report_total = mc_report_total,
    .destroy = mc_destroy,
};
