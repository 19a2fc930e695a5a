/* COLAB (Cache line Ownership Lookup tABLE, seed 003): private L1s plus, per
 * cluster of SMs, a set-associative table that remembers which SM of the
 * cluster last filled each line from L2. An L1 read miss that finds an entry
 * naming another SM is redirected to that SM's L1, which serves it if it still
 * holds every requested sector; the requester does not cache what it gets.
 * Otherwise the miss goes to L2 as with private L1s, and the fill makes the
 * requester the line's owner. README.md in this folder and the l1d.colab section
 * of examples/configs/README.md define every figure and option.
 *
 * The table is a gcr_cache used as a tag store, so it has the replacement
 * policies and hashed lookups of every cache; the owner of each entry is kept
 * in an array parallel to the tag store's ways (gcr_cache_slot), so an entry
 * and its owner come and go together. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "gcreplay/options.h"
#include "replay/l1org.h"

struct cluster {
    struct gcr_cache *table; /* tag store: which lines have an entry, and replacement */
    uint32_t *owner;         /* per table slot (gcr_cache_slot): the owner SM */
    uint64_t valid;          /* entries in the table */
    uint32_t *members;       /* SM indices */
    uint32_t nmembers;
};

/* Figures of L1D.colab (definitions in README.md). */
struct colab_counts {
    uint64_t lookups, table_hits, table_misses, self_pointers;
    uint64_t redirected, served, stale;
    uint64_t false_negatives, stale_held_elsewhere;
    uint64_t l2_read_requests_avoided, l2_read_bytes_avoided, redirect_reply_bytes;
    uint64_t table_updates;
    uint64_t occupancy_samples, valid_entries_max;
    double occupancy_sum;
};

enum assignment { ASSIGN_CONTIGUOUS, ASSIGN_INTERLEAVED };
static const char *const assignment_names[] = {"contiguous", "interleaved"};

struct colab {
    struct gcr_l1org_ctx ctx;
    uint32_t n; /* SMs = L1 instances */
    struct gcr_l1_bank bank;             /* one L1 per SM */
    struct gcr_cache_stats *served_for;  /* per owner SM: lookups it served for others */
    struct gcr_cache_stats *served_by;   /* per requester SM: its misses a peer served */
    uint32_t *cluster_of;                /* per SM */
    struct cluster *clusters;
    uint32_t nclusters;

    /* Options in effect. */
    uint32_t cluster_size;
    enum assignment assignment;
    uint32_t table_sets, table_ways; /* table_ways 0: the members' L1 lines per set */
    enum gcr_repl_policy table_repl;
    enum gcr_index_fn table_index;
    bool table_invalidate;
    uint64_t table_entries; /* over all clusters */

    struct colab_counts c;
};

/* --------------------------------------------------------------- options */

static int parse_options(struct colab *cb, const json_t *options, struct gcr_err *err)
{
    const struct gcr_config *cfg = cb->ctx.config;
    /* The values the caches' replacement and index options take, in enum order. */
    const char *repl_names[GCR_REPL_COUNT], *index_names[GCR_INDEX_COUNT];
    for (int i = 0; i < GCR_REPL_COUNT; i++)
        repl_names[i] = gcr_repl_name((enum gcr_repl_policy)i);
    for (int i = 0; i < GCR_INDEX_COUNT; i++)
        index_names[i] = gcr_index_name((enum gcr_index_fn)i);
    cb->cluster_size = 8; /* the paper's best cluster size */
    cb->assignment = ASSIGN_CONTIGUOUS;
    cb->table_sets = cfg->l1.sets;
    cb->table_ways = 0;
    cb->table_repl = GCR_REPL_LRU;
    cb->table_index = cfg->l1.index;
    cb->table_invalidate = cfg->l1_invalidate_at_kernel_end;
    struct gcr_opts o;
    int assignment = (int)cb->assignment, repl = (int)cb->table_repl,
        index = (int)cb->table_index;
    gcr_opts_begin(&o, cfg->origin, "$.l1d.colab", options);
    if (gcr_opts_u32(&o, "cluster_size", 1, 4096, &cb->cluster_size, err) ||
        gcr_opts_enum(&o, "cluster_assignment", assignment_names, 2, &assignment, err) ||
        gcr_opts_u32(&o, "table_sets", 1, 1u << 24, &cb->table_sets, err) ||
        gcr_opts_u32(&o, "table_ways", 1, 65535, &cb->table_ways, err) ||
        gcr_opts_enum(&o, "table_replacement", repl_names, GCR_REPL_COUNT, &repl, err) ||
        gcr_opts_enum(&o, "table_index", index_names, GCR_INDEX_COUNT, &index, err) ||
        gcr_opts_bool(&o, "table_invalidate_at_kernel_end", &cb->table_invalidate, err) ||
        gcr_opts_done(&o, err))
        return -1;
    cb->assignment = (enum assignment)assignment;
    cb->table_repl = (enum gcr_repl_policy)repl;
    cb->table_index = (enum gcr_index_fn)index;
    return 0;
}

/* ------------------------------------------------------------ life cycle */

static void colab_destroy(void *self)
{
    struct colab *cb = self;
    if (!cb)
        return;
    gcr_l1_bank_fini(&cb->bank);
    if (cb->clusters)
        for (uint32_t c = 0; c < cb->nclusters; c++) {
            gcr_cache_destroy(cb->clusters[c].table);
            free(cb->clusters[c].owner);
            free(cb->clusters[c].members);
        }
    free(cb->clusters);
    free(cb->cluster_of);
    free(cb->served_for);
    free(cb->served_by);
    free(cb);
}

/* Clusters and their tables. Contiguous: SM s is in cluster s / cluster_size;
 * interleaved: s mod (number of clusters). The last contiguous cluster may be
 * smaller; its default table is sized to its own L1 lines. */
static int build_clusters(struct colab *cb, struct gcr_err *err)
{
    const struct gcr_config *cfg = cb->ctx.config;
    uint32_t size = cb->cluster_size < cb->n ? cb->cluster_size : cb->n;
    cb->cluster_size = size;
    cb->nclusters = (cb->n + size - 1) / size;
    cb->clusters = calloc(cb->nclusters, sizeof *cb->clusters);
    cb->cluster_of = calloc(cb->n, sizeof *cb->cluster_of);
    if (!cb->clusters || !cb->cluster_of)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (uint32_t s = 0; s < cb->n; s++)
        cb->cluster_of[s] = cb->assignment == ASSIGN_CONTIGUOUS ? s / size : s % cb->nclusters;
    for (uint32_t c = 0; c < cb->nclusters; c++)
        if (!(cb->clusters[c].members = calloc(size, sizeof(uint32_t))))
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (uint32_t s = 0; s < cb->n; s++) {
        struct cluster *cl = &cb->clusters[cb->cluster_of[s]];
        cl->members[cl->nmembers++] = s;
    }
    for (uint32_t c = 0; c < cb->nclusters; c++) {
        struct cluster *cl = &cb->clusters[c];
        uint64_t ways = cb->table_ways ? cb->table_ways : (uint64_t)cfg->l1.ways * cl->nmembers;
        struct gcr_cache_geometry g = {
            .sets = cb->table_sets, .ways = ways > 65535 ? 0 : (uint32_t)ways,
            .line_bytes = cfg->line_bytes, .sector_bytes = cfg->line_bytes,
            .sectored = false, .repl = cb->table_repl, .index = cb->table_index,
            .write_policy = GCR_WRITE_EVICT, .write_alloc = GCR_WALLOC_NONE,
            .seed = cfg->seed ^ (0xc01abull << 20) ^ c};
        char why[160];
        if (g.ways == 0 || gcr_cache_geometry_check(&g, why, sizeof why) != 0) {
            if (g.ways == 0)
                snprintf(why, sizeof why, "%llu ways is more than 65535",
                         (unsigned long long)ways);
            return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.colab: impossible ownership table "
                            "(%u sets x %llu ways, index \"%s\"): %s; set table_sets, "
                            "table_ways or table_index", cfg->origin, g.sets,
                            (unsigned long long)ways, gcr_index_name(g.index), why);
        }
        if (!(cl->table = gcr_cache_create(&g, err)))
            return -1;
        if (!(cl->owner = calloc((size_t)g.sets * g.ways, sizeof *cl->owner)))
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        cb->table_entries += (uint64_t)g.sets * g.ways;
    }
    return 0;
}

static int colab_create(void **self, const struct gcr_l1org_ctx *ctx, const json_t *options,
                        struct gcr_err *err)
{
    struct colab *cb = calloc(1, sizeof *cb);
    if (!cb)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    cb->ctx = *ctx;
    cb->n = ctx->config->num_sms;
    if (parse_options(cb, options, err) != 0) {
        colab_destroy(cb);
        return -1;
    }
    cb->served_for = calloc(cb->n, sizeof *cb->served_for);
    cb->served_by = calloc(cb->n, sizeof *cb->served_by);
    if (!cb->served_for || !cb->served_by) {
        colab_destroy(cb);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    if (gcr_l1_bank_init(&cb->bank, cb->n, &ctx->config->l1, err) != 0) {
        colab_destroy(cb);
        return -1;
    }
    if (build_clusters(cb, err) != 0) {
        colab_destroy(cb);
        return -1;
    }
    *self = cb;
    return 0;
}

/* ---------------------------------------------------------------- access */

/* The line now belongs to `owner` (an L2 fill into its L1), or a served
 * redirect re-confirms it: one table access, which also refreshes the
 * entry's replacement state. */
static void table_update(struct colab *cb, struct cluster *cl, uint64_t line, uint32_t owner)
{
    struct gcr_access ta;
    gcr_cache_access(cl->table, line, 1u, false, &ta);
    if (ta.allocated && !ta.evicted)
        cl->valid++;
    /* The entry's slot: a replaced entry's owner is overwritten with it. */
    cl->owner[gcr_cache_slot(cl->table, line)] = owner;
    cb->c.table_updates++;
}

static void table_clear(struct colab *cb)
{
    for (uint32_t c = 0; c < cb->nclusters; c++) {
        gcr_cache_invalidate_all(cb->clusters[c].table, NULL, NULL);
        cb->clusters[c].valid = 0;
    }
}

static bool holds_all(const struct gcr_cache *c, uint64_t line, uint32_t sectors)
{
    uint32_t valid = 0;
    return gcr_cache_probe(c, line, &valid) && (sectors & ~valid) == 0;
}

/* Could another L1 of the cluster have served this miss (every requested
 * sector valid there)? The oracle behind false negatives. */
static bool held_elsewhere(const struct colab *cb, const struct cluster *cl, uint32_t sm,
                           uint64_t line, uint32_t sectors)
{
    for (uint32_t i = 0; i < cl->nmembers; i++)
        if (cl->members[i] != sm && holds_all(cb->bank.l1[cl->members[i]], line, sectors))
            return true;
    return false;
}

/* The owner's L1 serves the requester's read miss (every sector valid there). */
static enum gcr_outcome serve_remote(struct colab *cb, struct cluster *cl,
                                     const struct gcr_req *req, uint32_t owner, bool present,
                                     uint32_t valid)
{
    const struct gcr_config *cfg = cb->ctx.config;
    uint32_t s = req->sm, sb = cfg->sector_bytes;
    uint32_t requested = gcr_bits_popcount32(req->sector_mask);
    uint32_t missing = req->sector_mask & ~valid;
    struct gcr_access a;
    /* A normal lookup at the owner: a hit, refreshing its replacement state. */
    gcr_cache_access(cb->bank.l1[owner], req->line_addr, req->sector_mask, false, &a);
    gcr_l1org_lookup(cb->ctx.mem, owner, req, req->line_addr, req->sector_mask, false, &a);
    if (gcr_memsys_sends_messages(cb->ctx.mem))
        gcr_l1org_core_message(cb->ctx.mem, req, owner, s, requested * sb, false);
    table_update(cb, cl, req->line_addr, owner);

    /* The owner's counters now include a lookup that was not its own. */
    struct gcr_cache_stats *f = &cb->served_for[owner];
    f->accesses[0]++;
    f->outcomes[0][GCR_HIT]++;
    f->sectors_requested[0] += requested;
    /* From the requester: its own L1 missed; nothing was fetched from L2. */
    enum gcr_outcome seen = present ? GCR_MISS_SECTOR : GCR_MISS_LINE;
    struct gcr_cache_stats *b = &cb->served_by[s];
    b->accesses[0]++;
    b->outcomes[0][seen]++;
    b->sectors_requested[0] += requested;
    b->sectors_missed[0] += gcr_bits_popcount32(missing);

    /* What the requester's L1 would have fetched: the missing sectors, or the
     * whole line for a non-sectored L1 without the tag. */
    const struct gcr_cache_geometry *g = gcr_cache_geometry(cb->bank.l1[s]);
    uint32_t line_mask = (uint32_t)((1ull << (g->line_bytes / g->sector_bytes)) - 1);
    uint32_t fetch = !g->sectored && !present ? line_mask : missing;
    cb->c.served++;
    cb->c.l2_read_requests_avoided +=
        cfg->granularity == GCR_GRAN_LINE ? 1u : gcr_bits_popcount32(fetch);
    cb->c.l2_read_bytes_avoided += (uint64_t)gcr_bits_popcount32(fetch) * sb;
    cb->c.redirect_reply_bytes += (uint64_t)requested * sb;
    return seen;
}

/* The requester's own L1 is probed first, whatever the ownership table says. */
static void colab_prefetch(void *self, uint32_t sm, uint64_t line_addr,
                           struct gcr_cache_hint *h)
{
    gcr_cache_prefetch(((struct colab *)self)->bank.l1[sm], line_addr, h);
}

static enum gcr_outcome colab_access(void *self, const struct gcr_req *req)
{
    struct colab *cb = self;
    uint32_t s = req->sm;
    struct cluster *cl = &cb->clusters[cb->cluster_of[s]];
    struct gcr_access a;
    uint32_t valid = 0;
    bool present = gcr_cache_probe(cb->bank.l1[s], req->line_addr, &valid);

    /* Writes and own-L1 hits never consult the table. */
    if (!req->is_write && !(present && (req->sector_mask & ~valid) == 0)) {
        int64_t slot = gcr_cache_slot(cl->table, req->line_addr);
        bool found = slot >= 0;
        uint32_t owner = found ? cl->owner[slot] : 0;
        cb->c.lookups++;
        if (found && owner != s) {
            cb->c.table_hits++;
            cb->c.redirected++;
            if (gcr_memsys_sends_messages(cb->ctx.mem))
                gcr_l1org_core_message(cb->ctx.mem, req, s, owner, 0, true);
            if (holds_all(cb->bank.l1[owner], req->line_addr, req->sector_mask))
                return serve_remote(cb, cl, req, owner, present, valid);
            cb->c.stale++;
        } else if (found) {
            /* The entry names the requester, whose own L1 just missed: no redirect. */
            cb->c.table_hits++;
            cb->c.self_pointers++;
        } else {
            cb->c.table_misses++;
        }
        if (held_elsewhere(cb, cl, s, req->line_addr, req->sector_mask)) {
            if (found && owner != s)
                cb->c.stale_held_elsewhere++;
            else
                cb->c.false_negatives++;
        }
    }
    gcr_l1org_serve(cb->bank.l1[s], s, s, req, cb->ctx.mem, cb->ctx.bus, &a);
    /* Only fills from L2 update the table (reads, and writes that fetch). */
    if (a.fetch_mask && !a.invalidated)
        table_update(cb, cl, req->line_addr, s);
    return a.outcome;
}

/* ------------------------------------------------------ kernel boundaries */

/* A new L1 size for the kernel (unified L1/shared carve-out): the L1s start
 * empty, so the table, which would only name lines nobody holds, does too. */
static int colab_kernel_begin(void *self, const struct gcr_cache_geometry *l1, struct gcr_err *err)
{
    struct colab *cb = self;
    int resized = gcr_l1_bank_resize(&cb->bank, l1, cb->ctx.mem, cb->ctx.bus, err);
    if (resized > 0)
        table_clear(cb);
    return resized < 0 ? -1 : 0;
}

static void colab_kernel_end(void *self)
{
    struct colab *cb = self;
    uint64_t valid = 0;
    for (uint32_t c = 0; c < cb->nclusters; c++)
        valid += cb->clusters[c].valid;
    cb->c.occupancy_samples++;
    cb->c.occupancy_sum += (double)valid / (double)cb->table_entries;
    if (valid > cb->c.valid_entries_max)
        cb->c.valid_entries_max = valid;
    if (cb->ctx.config->l1_invalidate_at_kernel_end)
        gcr_l1_bank_invalidate(&cb->bank, cb->ctx.mem, cb->ctx.bus);
    if (cb->table_invalidate)
        table_clear(cb);
}

static uint32_t colab_instances(void *self)
{
    return ((struct colab *)self)->n;
}

/* out -= sub, counter by counter (gcr_cache_stats is a block of uint64_t). */
static void stats_subtract(struct gcr_cache_stats *out, const struct gcr_cache_stats *sub)
{
    uint64_t *o = (uint64_t *)out;
    const uint64_t *s = (const uint64_t *)sub;
    for (size_t i = 0; i < sizeof *out / sizeof(uint64_t); i++)
        o[i] -= s[i];
}

/* Seen from each requesting SM: its own L1's counters, without the lookups it
 * served for other SMs, plus its misses that another L1 served (counted as
 * the misses they were in its own L1, with nothing fetched from L2). */
static void colab_collect_stats(void *self, struct gcr_cache_stats *per_sm)
{
    struct colab *cb = self;
    for (uint32_t i = 0; i < cb->n; i++) {
        gcr_l1_bank_stats(&cb->bank, i, &per_sm[i]);
        stats_subtract(&per_sm[i], &cb->served_for[i]);
        gcr_cache_stats_sum(&per_sm[i], &per_sm[i], &cb->served_by[i]);
    }
}

static json_t *share(uint64_t num, uint64_t den)
{
    return den ? json_real((double)num / (double)den) : json_null();
}

static int colab_report(void *self, json_t *section, struct gcr_err *err)
{
    struct colab *cb = self;
    const struct colab_counts *c = &cb->c;
    uint64_t evictions = 0;
    for (uint32_t i = 0; i < cb->nclusters; i++)
        evictions += gcr_cache_stats(cb->clusters[i].table)->evictions;
    uint32_t full_ways = cb->table_ways ? cb->table_ways
                                        : cb->ctx.config->l1.ways * cb->cluster_size;
    uint64_t servable = c->served + c->false_negatives + c->stale_held_elsewhere;
    json_t *table = json_pack(
        "{s:I, s:I, s:s, s:s, s:b, s:I, s:I, s:I, s:I, s:o}", "sets",
        (json_int_t)cb->table_sets, "ways", (json_int_t)full_ways, "replacement",
        gcr_repl_name(cb->table_repl), "index", gcr_index_name(cb->table_index),
        "invalidate_at_kernel_end", cb->table_invalidate, "entries",
        (json_int_t)cb->table_entries, "updates", (json_int_t)c->table_updates, "evictions",
        (json_int_t)evictions, "valid_entries_max", (json_int_t)c->valid_entries_max,
        "occupancy_at_kernel_end",
        c->occupancy_samples ? json_real(c->occupancy_sum / (double)c->occupancy_samples)
                             : json_null());
    int rc = table ? 0 : -1;
    rc |= json_object_set_new(section, "cluster_size", json_integer(cb->cluster_size));
    rc |= json_object_set_new(section, "clusters", json_integer(cb->nclusters));
    rc |= json_object_set_new(section, "cluster_assignment",
                              json_string(assignment_names[cb->assignment]));
    rc |= json_object_set_new(section, "table", table);
#define SET(k, v) rc |= json_object_set_new(section, k, json_integer((json_int_t)(v)))
    SET("read_misses", c->lookups);
    SET("table_hits", c->table_hits);
    SET("table_misses", c->table_misses);
    SET("self_pointers", c->self_pointers);
    SET("redirected", c->redirected);
    SET("served", c->served);
    SET("stale", c->stale);
    SET("false_negatives", c->false_negatives);
    SET("stale_held_elsewhere", c->stale_held_elsewhere);
    SET("servable_in_cluster", servable);
    SET("l2_read_requests_avoided", c->l2_read_requests_avoided);
    SET("noc_read_bytes_saved", c->l2_read_bytes_avoided);
    SET("redirect_reply_bytes", c->redirect_reply_bytes);
#undef SET
    rc |= json_object_set_new(section, "served_share", share(c->served, c->lookups));
    rc |= json_object_set_new(section, "captured_share", share(c->served, servable));
    rc |= json_object_set_new(section, "stale_share", share(c->stale, c->redirected));
    /* The figures printed under the text table. */
    json_t *summary = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I}", "read_misses", (json_int_t)c->lookups, "redirected",
        (json_int_t)c->redirected, "served", (json_int_t)c->served, "stale",
        (json_int_t)c->stale, "false_negatives", (json_int_t)c->false_negatives,
        "l2_reads_avoided", (json_int_t)c->l2_read_requests_avoided);
    rc |= summary ? json_object_set_new(section, "summary", summary) : -1;
    if (rc)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

const struct gcr_l1org_ops gcr_l1org_colab = {
    .name = "colab",
    .summary = "private L1s; a per-cluster ownership table redirects misses to a peer L1",
    .whole_line_evictions = true,
    .create = colab_create,
    .access = colab_access,
    .prefetch = colab_prefetch,
    .kernel_begin = colab_kernel_begin,
    .kernel_end = colab_kernel_end,
    .num_instances = colab_instances,
    .collect_stats = colab_collect_stats,
    .report = colab_report,
    .destroy = colab_destroy,
};
