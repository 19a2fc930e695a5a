/* miss_classes: every L1 and L2 miss split into compulsory / capacity /
 * conflict (the 3C model), and every L1 miss split by who last touched the
 * line in that L1: the same warp, another warp of the same CTA, another CTA,
 * or a previous kernel. Definitions and report layout: README.md.
 *
 * Cost design (the analysis is bound by host memory latency; see README.md,
 * Cost):
 *  - ONE record per (cache instance, line) ever requested holds everything
 *    the analysis remembers about the line: the sectors ever requested (for
 *    compulsory), the last requester (for locality) and the index of the
 *    shadow node holding the line. The record of the line's first instance
 *    is its element in a column of the shared line ids, which the event bus
 *    fetches before delivering the access (struct mc_rec).
 *  - The shadow fully associative LRU caches have no hash table of their own:
 *    the record names the node, so a shadow lookup is one node read, and an
 *    eviction needs no hash deletion. The evicted line's record is not
 *    touched: its node index goes stale and is recognised as such because
 *    the node then holds another line (see shadow_resident).
 *  - The prefetch hook (stage 1, once the record has arrived) fetches what
 *    it names: the shadow node, or the slot of the pair of another instance. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "gcreplay/analysis.h"
#include "gcreplay/options.h"

enum { MC_COMPULSORY, MC_CAPACITY, MC_CONFLICT, MC_3C };
enum { MC_INTRA_WARP = 1, MC_INTRA_CTA, MC_INTER_CTA, MC_INTER_KERNEL, MC_LOC };
enum { MC_L1, MC_L2, MC_LEVELS };

static const char *const names_3c[MC_3C] = {"compulsory", "capacity", "conflict"};
static const char *const names_loc[MC_LOC] = {"compulsory", "intra_warp", "intra_cta",
                                              "inter_cta", "inter_kernel"};
static const char *const level_names[MC_LEVELS] = {"L1D", "L2"};

/* Instances per level: record tags are 16 bits (instance + 1, 0 = free). */
#define MC_MAX_UNITS 65535u

/* Everything remembered about a line one cache instance has seen: 8 bytes
 * at the L2, 16 at an L1 (with the last requester, for locality). Records
 * live in columns indexed by dense ids (gcreplay/idmap.h): the line's id in
 * the replay's shared line map for the first instance that requests the line
 * (its owner, `unit_p1` in that record; with private L1s and one slice per
 * line, nearly every line's only instance), and for any other instance the
 * id of the pair (instance, line) in a private map. A zero record is a line
 * never requested (fresh column chunks are zero-filled). */
struct mc_rec {
    uint16_t unit_p1; /* owner records: the owning instance + 1; 0 = no owner yet */
    uint16_t node;    /* the shadow node that held the line when it was last
                         installed there, 0 = never; valid only while that node
                         still holds this line (shadow_resident) */
    uint32_t seen;    /* sectors ever requested (all ones for unsectored caches) */
};

/* The last request to the line (L1 records only: locality is an L1 split). */
struct mc_requester {
    uint32_t cta;
    uint16_t warp;
    uint16_t kernel; /* kernel sequence number of the last request, modulo 2^16 */
};

/* The requester part of an L1 record (stored right after its head). */
static inline struct mc_requester *record_requester(struct mc_rec *e)
{
    return (struct mc_requester *)(void *)((unsigned char *)e + sizeof *e);
}

/* The records of one level: owners by line id, other instances by pair id. */
struct mc_records {
    struct gcr_idmap *lines;   /* shared: line address -> line id */
    struct gcr_column *owners; /* line id -> record of the line's first instance */
    struct gcr_idmap pairs;    /* (instance, line id) -> pair id, other instances */
    struct gcr_column *others; /* pair id -> record */
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
    uint64_t line_mask;
    struct mc_records rec;
    struct mc_counts *kernel, *total; /* per unit */
};

struct miss_classes {
    const struct gcr_sim_info *info;
    struct mc_level lv[MC_LEVELS];
    uint16_t kernel_seq;
    int oom;
};

/* The record of (unit, line) at one level, created (zero but for the owner
 * mark) if absent; NULL if out of memory. `id` is the line's id. */
static struct mc_rec *record_get(struct mc_records *r, uint32_t id, uint32_t unit)
{
    if (id == GCR_IDMAP_NONE)
        return NULL;
    struct mc_rec *e = gcr_column_at(r->owners, id);
    if (e->unit_p1 == unit + 1)
        return e;
    if (!e->unit_p1) {
        e->unit_p1 = (uint16_t)(unit + 1);
        return e;
    }
    uint32_t pair = gcr_idmap_get(&r->pairs, (uint64_t)unit << 32 | id);
    return pair == GCR_IDMAP_NONE ? NULL : gcr_column_at(r->others, pair);
}

/* ------------------------------------------------------------ shadow LRU */

/* The shadow of one cache instance: a fully associative LRU cache with the
 * real cache's capacity, line and sector sizes and write handling, so that
 * its hit/miss outcome equals what gcr_cache_access would report for a
 * one-set LRU gcr_cache of the same geometry (the 3C definition needs only
 * that outcome). Dirty state is not kept: it never changes an outcome.
 *
 * Layout, chosen to touch few host cache lines per access:
 *  - nodes: one 16-byte node per line of capacity (line, valid sectors, time
 *    of its last access). A line is found through its mc_rec record's node
 *    index, never by a search, so a shadow hit reads one node.
 *  - ring: the LRU order as a time line. Each shadow counts its accesses
 *    (`now`); ring[t mod W] names the node whose last access was at time t,
 *    or 0 once that node has been accessed again, removed or reused. The LRU
 *    line is the first non-zero entry from `oldest` on, so an eviction scans
 *    forward over a few sequential 2-byte slots instead of following list
 *    links to random nodes, and a hit writes the slot at `now` (sequential)
 *    and clears its previous one: no neighbour nodes are touched (a doubly
 *    linked LRU list reads the previous and next nodes on every hit).
 *    All live times lie in [oldest, now); when that window reaches W slots
 *    (W >= 4 x capacity), shadow_compact renumbers the live entries
 *    0, 1, 2, ... in order, which keeps the order and so the LRU choice:
 *    at most one compaction per 3 x capacity accesses.
 * About 16 + 8 bytes per line of capacity: 24 KB for a 1024-line L1.
 * Node indices are 16 bits: level_init caps a shadow at 65535 lines.
 *
 * Why a stale record index cannot be mistaken for a resident line: a record
 * is unique per (instance, line), and every install writes the installed
 * node's index into the line's record. A node holds at most one line, so if
 * node i (in use: i <= high_water and not freed) holds line L, the last
 * install of L at this instance was into i, and L's record says i. Conversely
 * if L's record says i but L was evicted or removed since, node i is free
 * (its line set to MC_NO_LINE, never a line address since those are
 * multiples of line_bytes >= 16), beyond high_water after a reset, or reused
 * for another line: the line comparison fails. So "record.node names a node
 * in use holding L" is exactly "L is resident". */
struct mc_node {
    uint64_t line;
    uint32_t valid; /* valid sectors; for a freed node, the next free node */
    uint32_t time;  /* the shadow's access count at its last access (mod 2^32) */
};

#define MC_NO_LINE UINT64_C(1)

struct mc_shadow {
    struct mc_node *nodes; /* capacity + 1; node 0 unused (0 = none) */
    uint16_t *ring;        /* ring_mask + 1 slots, a power of two >= 4 x capacity */
    uint32_t ring_mask;
    uint32_t now, oldest;  /* live times are in [oldest, now), modulo 2^32 */
    uint32_t capacity, count;
    uint32_t high_water;   /* nodes 1..high_water have been used since the last reset */
    uint32_t free_head;    /* nodes freed by write-evict, 0: none */
    uint32_t full_mask;
    bool sectored;
    enum gcr_write_policy write_policy;
    enum gcr_write_alloc write_alloc;
};

static void shadow_reset(struct mc_shadow *s)
{
    memset(s->ring, 0, ((size_t)s->ring_mask + 1) * sizeof *s->ring);
    s->now = s->oldest = 0;
    s->count = s->high_water = s->free_head = 0;
}

static int shadow_init(struct mc_shadow *s, const struct gcr_cache_geometry *g, uint32_t lines)
{
    uint32_t ring = 4;
    while (ring < 4 * lines)
        ring *= 2;
    s->nodes = malloc(((size_t)lines + 1) * sizeof *s->nodes);
    s->ring = malloc((size_t)ring * sizeof *s->ring);
    if (!s->nodes || !s->ring)
        return -1;
    s->ring_mask = ring - 1;
    s->capacity = lines;
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
    free(s->ring);
}

/* The node holding line if the record's node index i still names it, else 0
 * (the proof is above struct mc_node). */
static inline uint32_t shadow_resident(const struct mc_shadow *s, uint32_t i, uint64_t line)
{
    return i && i <= s->high_water && s->nodes[i].line == line ? i : 0;
}

/* Renumbers the live ring entries oldest, oldest + 1, ... keeping their
 * order (so the LRU order), which shrinks the window to at most capacity. */
static void shadow_compact(struct mc_shadow *s)
{
    uint32_t to = s->oldest;
    for (uint32_t t = s->oldest; t != s->now; t++) {
        uint16_t i = s->ring[t & s->ring_mask];
        if (!i)
            continue;
        if (t != to) {
            s->ring[to & s->ring_mask] = i;
            s->ring[t & s->ring_mask] = 0;
            s->nodes[i].time = to;
        }
        to++;
    }
    s->now = to;
}

/* Node i becomes the most recently used. */
static inline void shadow_stamp(struct mc_shadow *s, uint32_t i)
{
    if (s->now - s->oldest > s->ring_mask)
        shadow_compact(s);
    s->ring[s->now & s->ring_mask] = (uint16_t)i;
    s->nodes[i].time = s->now++;
}

/* Installs rec's line (absent) as the most recently used, evicting the LRU
 * line if full, and names its node in the record. The evicted line's record
 * keeps its now stale index. */
static uint32_t shadow_allocate(struct mc_shadow *s, struct mc_rec *rec, uint64_t line)
{
    uint32_t i;
    if (s->count == s->capacity) {
        while (!s->ring[s->oldest & s->ring_mask]) /* count > 0: a live entry lies ahead */
            s->oldest++;
        i = s->ring[s->oldest & s->ring_mask];
        s->ring[s->oldest & s->ring_mask] = 0;
        s->oldest++;
        /* The next victim is usually the next slot's node: start loading it
         * now, the next eviction here is some events away. */
        uint16_t next = s->ring[s->oldest & s->ring_mask];
        if (next)
            __builtin_prefetch(&s->nodes[next], 1);
    } else {
        if (s->free_head) {
            i = s->free_head;
            s->free_head = s->nodes[i].valid;
        } else {
            i = ++s->high_water;
        }
        s->count++;
    }
    s->nodes[i].line = line;
    s->nodes[i].valid = 0;
    shadow_stamp(s, i);
    rec->node = (uint16_t)i;
    return i;
}

/* One request for rec's line; true if it hits (line present, every
 * requested sector valid). The state changes mirror src/cache/cache.c's
 * read_access / write_access. */
static bool shadow_access(struct mc_shadow *s, struct mc_rec *rec, uint64_t line, uint32_t mask,
                          bool is_write)
{
    mask &= s->full_mask;
    struct mc_node *n = s->nodes;
    uint32_t i = shadow_resident(s, rec->node, line);
    if (!i) { /* line absent */
        if (!is_write) {
            i = shadow_allocate(s, rec, line);
            n[i].valid = s->sectored ? mask : s->full_mask;
        } else if (s->write_policy != GCR_WRITE_EVICT && s->write_alloc != GCR_WALLOC_NONE) {
            i = shadow_allocate(s, rec, line);
            uint32_t fetched = s->write_alloc == GCR_WALLOC_FETCH
                                   ? (s->sectored ? mask : s->full_mask) : 0;
            n[i].valid = fetched | mask;
        }
        return false;
    }
    bool hit = (mask & ~n[i].valid) == 0;
    s->ring[n[i].time & s->ring_mask] = 0; /* its old place in the LRU order */
    if (is_write && s->write_policy == GCR_WRITE_EVICT) {
        n[i].line = MC_NO_LINE;
        n[i].valid = s->free_head;
        s->free_head = i;
        s->count--;
        return hit;
    }
    if (is_write)
        n[i].valid |= mask;
    else if (!hit) /* an unsectored cache refills the whole line */
        n[i].valid |= s->sectored ? mask : s->full_mask;
    shadow_stamp(s, i);
    return hit;
}

/* ------------------------------------------------------------------ events */

/* Classifies one access: finds its record, feeds the shadow, counts. */
static void mc_access(struct miss_classes *mc, const struct gcr_event *ev, int level)
{
    struct mc_level *lv = &mc->lv[level];
    uint32_t unit = ev->unit;
    /* Line addresses are multiples of the (single, coalescer-wide) line size
     * already; the mask only makes the shadow's assumption explicit. */
    uint64_t line = ev->line_addr & lv->line_mask;
    struct mc_rec *e = record_get(&lv->rec, ev->line_id, unit);
    if (!e) {
        mc->oom = 1;
        return;
    }
    bool shadow_hit = shadow_access(&lv->shadow[unit], e, line, ev->sector_mask, ev->is_write);
    struct mc_counts *c = &lv->kernel[unit];
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
        if (level == MC_L1) {
            const struct mc_requester *r = record_requester(e);
            int l = first ? MC_COMPULSORY
                    : r->kernel != mc->kernel_seq ? MC_INTER_KERNEL
                    : r->cta != ev->cta           ? MC_INTER_CTA
                    : r->warp != (uint16_t)ev->warp ? MC_INTRA_CTA
                                                  : MC_INTRA_WARP;
            c->loc[w][l]++;
        }
    }
    e->seen |= lv->sectored ? ev->sector_mask : UINT32_MAX;
    if (level == MC_L1)
        *record_requester(e) = (struct mc_requester){.cta = ev->cta, .warp = (uint16_t)ev->warp,
                                                      .kernel = mc->kernel_seq};
}

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
    int level = ev->kind == GCR_EV_L1_ACCESS ? MC_L1 : MC_L2;
    if (ev->unit < mc->lv[level].units)
        mc_access(mc, ev, level);
}

/* The record is a chain of loads from memory too large for the host's
 * caches: the owner record (which the bus fetches before stage 0), then
 * what it names (stage 1): the record of a pair, or the shadow node. */
static void mc_prefetch(void *self, const struct gcr_event *ev, int stage)
{
    struct miss_classes *mc = self;
    (void)stage; /* stage 1 only */
    if (ev->line_id == GCR_IDMAP_NONE)
        return;
    struct mc_level *lv = &mc->lv[ev->kind == GCR_EV_L1_ACCESS ? MC_L1 : MC_L2];
    if (ev->unit >= lv->units)
        return;
    const struct mc_rec *e = gcr_column_at(lv->rec.owners, ev->line_id);
    if (e->unit_p1 && e->unit_p1 != ev->unit + 1)
        gcr_idmap_prefetch(&lv->rec.pairs, (uint64_t)ev->unit << 32 | ev->line_id);
    else if (e->node)
        __builtin_prefetch(&lv->shadow[ev->unit].nodes[e->node]);
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
        if (lv->rec.others)
            gcr_idmap_fini(&lv->rec.pairs);
        free(lv->kernel);
        free(lv->total);
    }
    free(mc);
}

static int level_init(struct mc_level *lv, uint32_t units, const struct gcr_cache_geometry *real,
                      size_t record_bytes, unsigned access_kind, const char *level,
                      const struct gcr_sim_info *info, struct gcr_err *err)
{
    if (units > MC_MAX_UNITS)
        return gcr_fail(err, GCR_E_UNSUPPORTED,
                        "%s: miss_classes: %u %s instances; at most %u are supported",
                        info->config->origin, units, level, MC_MAX_UNITS);
    lv->units = units;
    lv->sectored = real->sectored;
    lv->line_mask = ~(uint64_t)(real->line_bytes - 1);
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
    if (!lv->shadow || !lv->kernel || !lv->total)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    lv->rec.lines = info->lines;
    if (!(lv->rec.owners = gcr_idmap_add_column(info->lines, record_bytes, err)))
        return -1;
    lv->rec.owners->prefetch_kinds = access_kind; /* the bus fetches the record ahead */
    if (gcr_idmap_init(&lv->rec.pairs, 0, 0, err) != 0)
        return -1;
    if (!(lv->rec.others = gcr_idmap_add_column(&lv->rec.pairs, record_bytes, err))) {
        gcr_idmap_fini(&lv->rec.pairs);
        return -1;
    }
    for (uint32_t u = 0; u < units; u++)
        if (shadow_init(&lv->shadow[u], real, lv->shadow_lines) != 0)
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

static int mc_create(void **self, const json_t *options, const struct gcr_sim_info *info,
                     struct gcr_err *err)
{
    struct gcr_opts o;
    gcr_opts_begin(&o, info->config->origin, "$.analyses.miss_classes", options);
    if (gcr_opts_done(&o, err) != 0) /* no options */
        return -1;
    struct miss_classes *mc = calloc(1, sizeof *mc);
    if (!mc)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    mc->info = info;
    const size_t l1_record = sizeof(struct mc_rec) + sizeof(struct mc_requester);
    if (level_init(&mc->lv[MC_L1], info->num_l1s, &info->config->l1, l1_record,
                   GCR_EV_L1_ACCESS, "L1D", info, err) != 0 ||
        level_init(&mc->lv[MC_L2], info->num_l2_slices, &info->config->l2,
                   sizeof(struct mc_rec), GCR_EV_L2_ACCESS, "L2 slice", info, err) != 0) {
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

static const struct gcr_analysis_speed mc_speed = {
    .prefetch = mc_prefetch,
    .prefetch_stage1 = GCR_EV_L1_ACCESS | GCR_EV_L2_ACCESS,
};

const struct gcr_analysis_ops gcr_analysis_miss_classes = {
    .name = "miss_classes",
    .summary = "3C split of L1 and L2 misses; L1 misses by last requester (warp, CTA, kernel)",
    .subscribe = GCR_EV_L1_ACCESS | GCR_EV_L2_ACCESS | GCR_EV_KERNEL_END,
    .create = mc_create,
    .on_event = mc_on_event,
    .report_kernel = mc_report_kernel,
    .report_total = mc_report_total,
    .destroy = mc_destroy,
    .speed = &mc_speed,
};
