/* DC-L1 (seed 000, Ch. 5): the L1s leave the cores and become Y nodes beside
 * the network. X cores reach the nodes over NoC#1; the nodes reach the L2
 * slices over NoC#2.
 *
 * One model covers the three designs of the dissertation. The Y nodes form Z
 * clusters of M = Y/Z nodes; every core belongs to one cluster, and within a
 * cluster each line has one home node chosen from its address. So
 *   PrY    = Z = Y, M = 1: X/Y cores share one private, aggregated node;
 *   ShY    = Z = 1, M = Y: every node is the only home of its lines (one copy);
 *   ShY+CZ = Z clusters: shared inside a cluster, replicated across clusters
 *            (at most Z copies of a line).
 * A node is a gcr_cache whose capacity is size_factor per-core L1s (default
 * X/Y, the aggregated capacity). Options and the choices the dissertation
 * leaves open are documented in src/orgs/README.md. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "gcreplay/options.h"
#include "replay/l1org.h"

enum dcl1_mode { MODE_PR, MODE_SH, MODE_SHC };
static const char *const mode_names[] = {"pr", "sh", "shc"};

/* How a cluster picks the home node of a line among its M nodes. */
enum dcl1_home {
    HOME_SLICE, /* home = L2 slice of the line / (slices / M): a node talks to L/M slices */
    HOME_BITS,  /* home = (address / home_granule_bytes) mod M: the "home bits" */
    HOME_HASH,  /* home = mix(address / home_granule_bytes) mod M */
};
/* "auto", accepted in the config, resolves to slice or bits at creation. */
static const char *const home_names[] = {"slice", "bits", "hash", "auto"};

/* Traffic of one node, and in total; bytes are data payload, as in
 * GCR_EV_TRANSFER (a read request carries none). */
struct dcl1_traffic {
    uint64_t noc1_requests, noc1_request_bytes; /* core -> node, store data */
    uint64_t noc1_replies, noc1_reply_bytes;    /* node -> core, requested sectors */
    uint64_t noc2_read_requests;                /* node -> L2 fetches */
    uint64_t noc2_fill_bytes;                   /* L2 -> node, fetched sectors */
    uint64_t noc2_write_bytes;                  /* node -> L2, store data */
    uint64_t noc2_writeback_bytes;              /* node -> L2, dirty sectors */
};
GCR_U64_COUNTERS(struct dcl1_traffic, 8);

struct dcl1 {
    struct gcr_l1org_ctx ctx;
    enum dcl1_mode mode;
    uint32_t cores, nodes, clusters, nodes_per_cluster; /* X, Y, Z, M */
    uint32_t size_factor;      /* node capacity in per-core L1s */
    bool grow_sets;            /* the factor multiplies sets (else ways) */
    enum dcl1_home home;
    unsigned home_granule_log2;
    uint32_t slices_per_node;  /* HOME_SLICE: O = L / M */
    char assignment[16];       /* "contiguous", "interleaved" or "explicit" */

    uint32_t *cluster_of;      /* [X] cluster of each core */
    uint32_t *owner;           /* [Y] lowest core of the node's cluster */
    struct gcr_cache **node;   /* [Y] */
    struct gcr_cache_stats *retired;  /* [Y] counts of node caches replaced by a resize */
    /* Per-requester statistics: each access adds what it changed in its
     * node's counters (now - seen) to the requester, so the L1D figures are
     * exactly the node counters split by requesting core. */
    struct gcr_cache_stats *seen;     /* [Y] node counters already attributed */
    struct gcr_cache_stats *per_core; /* [X] */
    struct dcl1_traffic *node_traffic; /* [Y] */

    /* Copies per line, sampled at every kernel end before the invalidation. */
    uint64_t copy_samples, line_copies, distinct_lines, max_copies;
    uint64_t *lines;           /* scratch for the sample */
    size_t nlines, cap_lines;
};

/* ------------------------------------------------------------- options */

static int opt_fail(const struct dcl1 *d, struct gcr_err *err, const char *key, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));

static int opt_fail(const struct dcl1 *d, struct gcr_err *err, const char *key, const char *fmt,
                    ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.dcl1.%s: %s", d->ctx.config->origin, key,
                    what);
}

/* An integer option in [1, max] given as v (a value the reader handed over
 * before the options it depends on were known). */
static int opt_u32(const struct dcl1 *d, const json_t *v, const char *key, uint32_t max,
                   uint32_t *out, struct gcr_err *err)
{
    uint64_t x;
    if (gcr_opt_uint(d->ctx.config->origin, "$.l1d.dcl1", key, v, 1, max, &x, err) != 0)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

static int parse_assignment(struct dcl1 *d, const json_t *v, struct gcr_err *err)
{
    uint32_t X = d->cores, Z = d->clusters;
    if (!v || (json_is_string(v) && strcmp(json_string_value(v), "contiguous") == 0)) {
        /* Neighbouring cores share a cluster ("a nearby cluster of 8 GPU cores"). */
        strcpy(d->assignment, "contiguous");
        for (uint32_t c = 0; c < X; c++)
            d->cluster_of[c] = c / (X / Z);
        return 0;
    }
    if (json_is_string(v) && strcmp(json_string_value(v), "interleaved") == 0) {
        strcpy(d->assignment, "interleaved");
        for (uint32_t c = 0; c < X; c++)
            d->cluster_of[c] = c % Z;
        return 0;
    }
    if (!json_is_array(v)) {
        if (json_is_string(v))
            return opt_fail(d, err, "assignment",
                            "unknown value \"%s\" (expected \"contiguous\", \"interleaved\" "
                            "or an array of one cluster index per core)", json_string_value(v));
        return opt_fail(d, err, "assignment", "expected \"contiguous\", \"interleaved\" or an "
                        "array of one cluster index per core");
    }
    if (json_array_size(v) != X)
        return opt_fail(d, err, "assignment", "expected one cluster index per core: %u "
                        "entries, got %zu", X, json_array_size(v));
    strcpy(d->assignment, "explicit");
    for (uint32_t c = 0; c < X; c++) {
        json_t *e = json_array_get(v, c);
        if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) >= Z) {
            char key[48];
            snprintf(key, sizeof key, "assignment[%u]", c);
            return opt_fail(d, err, key, "expected a cluster index between 0 and %u", Z - 1);
        }
        d->cluster_of[c] = (uint32_t)json_integer_value(e);
    }
    return 0;
}

/* The geometry of one node for a per-core L1 geometry. */
static struct gcr_cache_geometry node_geometry(const struct dcl1 *d,
                                               const struct gcr_cache_geometry *core_l1,
                                               uint32_t node)
{
    struct gcr_cache_geometry g = *core_l1;
    if (d->grow_sets)
        g.sets *= d->size_factor;
    else
        g.ways *= d->size_factor;
    g.seed = core_l1->seed + node; /* as private L1 i: PrX is then identical to private */
    return g;
}

static int parse_options(struct dcl1 *d, const json_t *opts, struct gcr_err *err)
{
    static const char *const grow_names[] = {"ways", "sets"};
    const struct gcr_config *cfg = d->ctx.config;
    uint32_t X = d->cores;
    int mode = MODE_PR, home = -1, grow = 0;
    uint32_t granule = (uint32_t)cfg->l2_interleave_bytes;
    /* Y: half the cores by default, the dissertation's 80 cores -> 40 nodes. */
    d->nodes = X % 2 == 0 ? X / 2 : X;

    /* Every key is read before the options are checked against each other, so
     * that a misspelt key is named before what its absence implies. The keys
     * whose range depends on others are kept as values and checked below. */
    struct gcr_opts o;
    gcr_opts_begin(&o, cfg->origin, "$.l1d.dcl1", opts);
    if (gcr_opts_enum(&o, "mode", mode_names, 3, &mode, err) ||
        gcr_opts_u32(&o, "nodes", 1, X, &d->nodes, err))
        return -1;
    const json_t *clusters = gcr_opts_get(&o, "clusters");
    const json_t *assignment = gcr_opts_get(&o, "assignment");
    if (gcr_opts_enum(&o, "home", home_names, 4, &home, err) ||
        gcr_opts_u32(&o, "home_granule_bytes", 1, 1u << 30, &granule, err))
        return -1;
    const json_t *size_factor = gcr_opts_get(&o, "size_factor");
    if (gcr_opts_enum(&o, "grow", grow_names, 2, &grow, err) || gcr_opts_done(&o, err))
        return -1;

    d->mode = (enum dcl1_mode)mode;
    if (X % d->nodes != 0)
        return opt_fail(d, err, "nodes", "%u nodes do not divide the %u cores (gpu.sms) into "
                        "equal groups", d->nodes, X);

    uint32_t Y = d->nodes;
    d->clusters = mode == MODE_PR ? Y : 1;
    if (clusters && opt_u32(d, clusters, "clusters", Y, &d->clusters, err))
        return -1;
    if (mode == MODE_PR && d->clusters != Y)
        return opt_fail(d, err, "clusters", "mode \"pr\" has one cluster per node (%u); got %u "
                        "(use mode \"shc\" for clusters of several nodes)", Y, d->clusters);
    if (mode == MODE_SH && d->clusters != 1)
        return opt_fail(d, err, "clusters", "mode \"sh\" is one cluster of every node; got %u "
                        "(use mode \"shc\" for several clusters)", d->clusters);
    if (mode == MODE_SHC && !clusters)
        return opt_fail(d, err, "clusters", "mode \"shc\" needs the number of clusters Z "
                        "(a divisor of nodes = %u)", Y);
    if (Y % d->clusters != 0)
        return opt_fail(d, err, "clusters", "%u clusters do not divide the %u nodes into equal "
                        "clusters", d->clusters, Y);
    d->nodes_per_cluster = Y / d->clusters; /* and Z divides X, since Y does */

    d->cluster_of = calloc(X, sizeof *d->cluster_of);
    if (!d->cluster_of)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (parse_assignment(d, assignment, err))
        return -1;

    /* Home within a cluster. By default the L2 slice decides (each node then
     * talks to its own L/M slices, the clustered design's NoC#2) whenever M
     * divides the slices; otherwise the address bits above the L2 interleave. */
    uint32_t M = d->nodes_per_cluster, L = cfg->l2_slices;
    if (home < 0 || home == 3)
        home = L % M == 0 ? HOME_SLICE : HOME_BITS;
    if (home == HOME_SLICE && L % M != 0)
        return opt_fail(d, err, "home", "\"slice\" needs the %u nodes of a cluster to divide "
                        "the %u L2 slices (use \"bits\" or \"hash\")", M, L);
    d->home = (enum dcl1_home)home;
    d->slices_per_node = d->home == HOME_SLICE ? L / M : L;
    if (!gcr_is_pow2(granule) || granule < cfg->line_bytes)
        return opt_fail(d, err, "home_granule_bytes", "must be a power of two no smaller than "
                        "a line (%u bytes), got %u", cfg->line_bytes, granule);
    d->home_granule_log2 = gcr_bits_log2(granule);

    d->size_factor = X / Y;
    if (size_factor && opt_u32(d, size_factor, "size_factor", 65535, &d->size_factor, err))
        return -1;
    d->grow_sets = grow == 1;
    struct gcr_cache_geometry g = node_geometry(d, &cfg->l1, 0);
    char why[256];
    if (gcr_cache_geometry_check(&g, why, sizeof why) != 0)
        return opt_fail(d, err, "size_factor", "a node of %u per-core L1s grown in %s is "
                        "impossible: %s", d->size_factor, grow_names[grow], why);
    return 0;
}

/* ------------------------------------------------------------ lifetime */

static void dcl1_destroy(void *self)
{
    struct dcl1 *d = self;
    if (!d)
        return;
    if (d->node)
        for (uint32_t i = 0; i < d->nodes; i++)
            gcr_cache_destroy(d->node[i]);
    free(d->node);
    free(d->cluster_of);
    free(d->owner);
    free(d->retired);
    free(d->seen);
    free(d->per_core);
    free(d->node_traffic);
    free(d->lines);
    free(d);
}

static int dcl1_create(void **self, const struct gcr_l1org_ctx *ctx, const json_t *options,
                       struct gcr_err *err)
{
    struct dcl1 *d = calloc(1, sizeof *d);
    if (!d)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    d->ctx = *ctx;
    d->cores = ctx->config->num_sms;
    if (parse_options(d, options, err) != 0) {
        dcl1_destroy(d);
        return -1;
    }
    uint32_t Y = d->nodes;
    d->node = calloc(Y, sizeof *d->node);
    d->owner = calloc(Y, sizeof *d->owner);
    d->retired = calloc(Y, sizeof *d->retired);
    d->seen = calloc(Y, sizeof *d->seen);
    d->per_core = calloc(d->cores, sizeof *d->per_core);
    d->node_traffic = calloc(Y, sizeof *d->node_traffic);
    if (!d->node || !d->owner || !d->retired || !d->seen || !d->per_core || !d->node_traffic) {
        dcl1_destroy(d);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    /* A node's owner takes the counts no request caused (the flush at a
     * kernel boundary): the lowest core of its cluster. */
    for (uint32_t n = 0; n < Y; n++)
        d->owner[n] = UINT32_MAX;
    for (uint32_t c = d->cores; c-- > 0;)
        for (uint32_t h = 0; h < d->nodes_per_cluster; h++)
            d->owner[d->cluster_of[c] * d->nodes_per_cluster + h] = c;
    for (uint32_t n = 0; n < Y; n++) {
        if (d->owner[n] == UINT32_MAX) {
            /* Only an explicit assignment can leave a cluster without cores. */
            int rc = opt_fail(d, err, "assignment", "cluster %u has no core",
                              n / d->nodes_per_cluster);
            dcl1_destroy(d);
            return rc;
        }
        struct gcr_cache_geometry g = node_geometry(d, &ctx->config->l1, n);
        if (!(d->node[n] = gcr_cache_create(&g, err))) {
            dcl1_destroy(d);
            return -1;
        }
    }
    *self = d;
    return 0;
}

/* ----------------------------------------------------------- hot path */

static inline uint32_t home_of(const struct dcl1 *d, uint64_t line)
{
    uint32_t M = d->nodes_per_cluster;
    if (M == 1)
        return 0;
    switch (d->home) {
    case HOME_SLICE:
        return gcr_config_slice_of(d->ctx.config, line) / d->slices_per_node;
    case HOME_BITS:
        return (uint32_t)((line >> d->home_granule_log2) % M);
    case HOME_HASH:
        break;
    }
    return (uint32_t)(gcr_hash_fmix64(line >> d->home_granule_log2) % M);
}

/* Adds what node n counted since the last attribution to core c's figures. */
static inline void attribute(struct dcl1 *d, uint32_t n, uint32_t c)
{
    enum { N = sizeof(struct gcr_cache_stats) / sizeof(uint64_t) };
    const uint64_t *now = (const uint64_t *)gcr_cache_stats(d->node[n]);
    uint64_t *seen = (uint64_t *)&d->seen[n], *to = (uint64_t *)&d->per_core[c];
    for (int i = 0; i < N; i++) {
        to[i] += now[i] - seen[i];
        seen[i] = now[i];
    }
}

static enum gcr_outcome dcl1_access(void *self, const struct gcr_req *req)
{
    struct dcl1 *d = self;
    struct gcr_memsys *mem = d->ctx.mem;
    uint32_t sb = d->ctx.config->sector_bytes;
    uint32_t n = d->cluster_of[req->sm] * d->nodes_per_cluster + home_of(d, req->line_addr);
    struct dcl1_traffic *t = &d->node_traffic[n];
    bool transfers = gcr_memsys_sends_messages(mem);

    /* NoC#1: the request, carrying store data. */
    uint32_t store_bytes = req->is_write ? req->bytes : 0;
    t->noc1_requests++;
    t->noc1_request_bytes += store_bytes;
    if (transfers)
        gcr_l1org_core_message(mem, req, req->sm, n, store_bytes, true);

    struct gcr_access a;
    gcr_cache_access(d->node[n], req->line_addr, req->sector_mask, req->is_write, &a);
    attribute(d, n, req->sm);
    gcr_l1org_lookup(mem, n, req, req->line_addr, req->sector_mask, req->is_write, &a);
    /* NoC#2 (memsys publishes its messages with port = node), in the same
     * order as private L1s so that PrX replays exactly like them. */
    if (a.evicted || a.invalidated) {
        if (gcr_bus_wants(d->ctx.bus, GCR_EV_L1_EVICT))
            gcr_l1org_emit(d->ctx.bus, GCR_EV_L1_EVICT, n, NULL, a.victim_line, a.victim_valid,
                           false, &a);
        if (a.victim_dirty) {
            t->noc2_writeback_bytes += (uint64_t)gcr_bits_popcount32(a.victim_dirty) * sb;
            gcr_memsys_writeback(mem, n, a.victim_line, a.victim_dirty);
        }
    }
    if (a.fetch_mask) {
        t->noc2_read_requests++;
        t->noc2_fill_bytes += (uint64_t)gcr_bits_popcount32(a.fetch_mask) * sb;
        gcr_memsys_read(mem, req->sm, n, req->line_addr, a.fetch_mask, false, req->insn);
    }
    if (a.forward_mask) {
        t->noc2_write_bytes += req->bytes;
        gcr_memsys_write(mem, req->sm, n, req->line_addr, a.forward_mask, req->bytes,
                         req->insn);
    }
    /* NoC#1: a read is answered with the sectors it asked for (sectoring);
     * stores are not acknowledged, as on the L2 network. */
    if (!req->is_write) {
        uint32_t reply = gcr_bits_popcount32(req->sector_mask) * sb;
        t->noc1_replies++;
        t->noc1_reply_bytes += reply;
        if (transfers)
            gcr_l1org_core_message(mem, req, n, req->sm, reply, false);
    }
    return a.outcome;
}

/* ------------------------------------------------------ kernel boundaries */

/* Empties node n; what the flush counts (invalidations, write-backs) goes to
 * the node's owner, since no request caused it. */
static void flush_node(struct dcl1 *d, uint32_t n)
{
    uint64_t before = gcr_cache_stats(d->node[n])->sectors_written_back;
    gcr_l1org_invalidate(d->node[n], n, n, d->ctx.mem, d->ctx.bus);
    uint64_t written = gcr_cache_stats(d->node[n])->sectors_written_back - before;
    d->node_traffic[n].noc2_writeback_bytes += written * d->ctx.config->sector_bytes;
    attribute(d, n, d->owner[n]);
}

static int dcl1_kernel_begin(void *self, const struct gcr_cache_geometry *l1,
                             struct gcr_err *err)
{
    struct dcl1 *d = self;
    struct gcr_cache_geometry g0 = node_geometry(d, l1, 0);
    const struct gcr_cache_geometry *cur = gcr_cache_geometry(d->node[0]);
    if (cur->ways == g0.ways && cur->sets == g0.sets)
        return 0;
    for (uint32_t n = 0; n < d->nodes; n++) {
        struct gcr_cache_geometry g = node_geometry(d, l1, n);
        flush_node(d, n);
        if (gcr_l1org_resize(&d->node[n], &g, n, n, &d->retired[n], d->ctx.mem, d->ctx.bus,
                             err) != 0)
            return -1;
        memset(&d->seen[n], 0, sizeof d->seen[n]); /* the new cache counts from zero */
    }
    return 0;
}

static void collect_line(void *vctx, const struct gcr_line_state *line)
{
    struct dcl1 *d = vctx;
    d->lines[d->nlines++] = line->line_addr;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Copies per line at this moment: every resident line of every node, sorted,
 * so equal addresses are neighbours. */
static void sample_copies(struct dcl1 *d)
{
    size_t cap = 0;
    for (uint32_t n = 0; n < d->nodes; n++) {
        const struct gcr_cache_geometry *g = gcr_cache_geometry(d->node[n]);
        cap += (size_t)g->sets * g->ways;
    }
    if (cap > d->cap_lines) {
        uint64_t *p = realloc(d->lines, cap * sizeof *p);
        if (!p)
            return; /* no sample rather than a wrong one */
        d->lines = p;
        d->cap_lines = cap;
    }
    d->nlines = 0;
    for (uint32_t n = 0; n < d->nodes; n++)
        gcr_cache_for_each_line(d->node[n], collect_line, d);
    qsort(d->lines, d->nlines, sizeof *d->lines, cmp_u64);
    d->copy_samples++;
    d->line_copies += d->nlines;
    for (size_t i = 0, j; i < d->nlines; i = j) {
        for (j = i + 1; j < d->nlines && d->lines[j] == d->lines[i]; j++)
            ;
        d->distinct_lines++;
        if (j - i > d->max_copies)
            d->max_copies = j - i;
    }
}

static void dcl1_kernel_end(void *self)
{
    struct dcl1 *d = self;
    sample_copies(d);
    if (!d->ctx.config->l1_invalidate_at_kernel_end)
        return;
    for (uint32_t n = 0; n < d->nodes; n++)
        flush_node(d, n);
}

/* -------------------------------------------------------------- figures */

static uint32_t dcl1_instances(void *self)
{
    return ((struct dcl1 *)self)->nodes;
}

static void dcl1_collect_stats(void *self, struct gcr_cache_stats *per_sm)
{
    struct dcl1 *d = self;
    memcpy(per_sm, d->per_core, d->cores * sizeof *per_sm);
}

static json_t *ratio(uint64_t num, uint64_t den)
{
    return den ? json_real((double)num / (double)den) : json_null();
}

static int dcl1_report(void *self, json_t *section, struct gcr_err *err)
{
    struct dcl1 *d = self;
    uint32_t Y = d->nodes, M = d->nodes_per_cluster;
    const struct gcr_cache_geometry *g = gcr_cache_geometry(d->node[0]);
    json_t *acc = json_array(), *miss = json_array(), *n1 = json_array(), *n2 = json_array();
    json_t *slices = json_array();
    struct dcl1_traffic sum = {0};
    uint64_t max_acc = 0, total_acc = 0;
    uint32_t busiest = 0;
    for (uint32_t n = 0; n < Y; n++) {
        struct gcr_cache_stats s;
        gcr_cache_stats_sum(&s, &d->retired[n], gcr_cache_stats(d->node[n]));
        uint64_t a = s.accesses[0] + s.accesses[1];
        uint64_t m = 0;
        for (int w = 0; w < 2; w++)
            m += s.outcomes[w][GCR_MISS_LINE] + s.outcomes[w][GCR_MISS_SECTOR];
        const struct dcl1_traffic *t = &d->node_traffic[n];
        gcr_add_u64s((uint64_t *)&sum, (const uint64_t *)t, sizeof sum / sizeof(uint64_t));
        json_array_append_new(acc, json_integer((json_int_t)a));
        json_array_append_new(miss, json_integer((json_int_t)m));
        json_array_append_new(n1, json_integer((json_int_t)(t->noc1_request_bytes +
                                                             t->noc1_reply_bytes)));
        json_array_append_new(n2, json_integer((json_int_t)(t->noc2_fill_bytes +
                                                             t->noc2_write_bytes +
                                                             t->noc2_writeback_bytes)));
        uint32_t first = d->home == HOME_SLICE && M > 1 ? (n % M) * d->slices_per_node : 0;
        uint32_t count = d->home == HOME_SLICE && M > 1 ? d->slices_per_node
                                                         : d->ctx.config->l2_slices;
        json_array_append_new(slices, json_pack("[I,I]", (json_int_t)first,
                                                (json_int_t)(first + count - 1)));
        if (a > max_acc) {
            max_acc = a;
            busiest = n;
        }
        total_acc += a;
    }
    json_t *cores = json_array();
    for (uint32_t c = 0; c < d->cores; c++)
        json_array_append_new(cores, json_integer(d->cluster_of[c]));
    json_t *home = json_pack("{s:s}", "rule", home_names[d->home]);
    if (d->home != HOME_SLICE)
        json_object_set_new(home, "granule_bytes",
                            json_integer((json_int_t)1 << d->home_granule_log2));
    json_t *mean = Y ? json_real((double)total_acc / Y) : json_null();
    json_t *figures = json_pack(
        "{s:s, s:I, s:I, s:I, s:I, s:s, s:o, s:o, s:{s:I, s:s, s:I, s:I, s:I},"
        " s:{s:I, s:I, s:I, s:I, s:I},"
        " s:{s:I, s:I, s:I, s:I, s:I},"
        " s:{s:o, s:o, s:o, s:o}, s:{s:I, s:o, s:o, s:I}, s:o,"
        " s:{s:I, s:I, s:I, s:o, s:I, s:I}}",
        "mode", mode_names[d->mode], "cores", (json_int_t)d->cores, "nodes", (json_int_t)Y,
        "clusters", (json_int_t)d->clusters, "nodes_per_cluster", (json_int_t)M,
        "assignment", d->assignment, "cluster_of_core", cores, "home", home,
        "node_geometry", "size_factor", (json_int_t)d->size_factor, "grow",
        d->grow_sets ? "sets" : "ways", "sets", (json_int_t)g->sets, "ways",
        (json_int_t)g->ways, "size_bytes",
        (json_int_t)((uint64_t)g->sets * g->ways * g->line_bytes),
        "noc1", "requests", (json_int_t)sum.noc1_requests, "request_bytes",
        (json_int_t)sum.noc1_request_bytes, "replies", (json_int_t)sum.noc1_replies,
        "reply_bytes", (json_int_t)sum.noc1_reply_bytes, "bytes",
        (json_int_t)(sum.noc1_request_bytes + sum.noc1_reply_bytes),
        "noc2", "read_requests", (json_int_t)sum.noc2_read_requests, "fill_bytes",
        (json_int_t)sum.noc2_fill_bytes, "write_bytes", (json_int_t)sum.noc2_write_bytes,
        "writeback_bytes", (json_int_t)sum.noc2_writeback_bytes, "bytes",
        (json_int_t)(sum.noc2_fill_bytes + sum.noc2_write_bytes + sum.noc2_writeback_bytes),
        "per_node", "accesses", acc, "misses", miss, "noc1_bytes", n1, "noc2_bytes", n2,
        "load", "max_accesses", (json_int_t)max_acc, "mean_accesses", mean, "max_over_mean",
        ratio(max_acc * (uint64_t)Y, total_acc), "busiest_node", (json_int_t)busiest,
        "node_l2_slices", slices,
        "copies_at_kernel_end", "samples", (json_int_t)d->copy_samples, "line_copies",
        (json_int_t)d->line_copies, "distinct_lines", (json_int_t)d->distinct_lines,
        "mean", ratio(d->line_copies, d->distinct_lines), "max", (json_int_t)d->max_copies,
        "limit", (json_int_t)d->clusters);
    /* The key scalars, printed under the text table (src/orgs/README.md). */
    json_t *summary = json_pack(
        "{s:s, s:I, s:I, s:s, s:f, s:f, s:o, s:o, s:I}", "mode", mode_names[d->mode], "nodes",
        (json_int_t)Y, "clusters", (json_int_t)d->clusters, "home", home_names[d->home],
        "noc1_KB", (double)(sum.noc1_request_bytes + sum.noc1_reply_bytes) / 1024.0, "noc2_KB",
        (double)(sum.noc2_fill_bytes + sum.noc2_write_bytes + sum.noc2_writeback_bytes) / 1024.0,
        "load_max_over_mean", ratio(max_acc * (uint64_t)Y, total_acc), "copies_per_line",
        ratio(d->line_copies, d->distinct_lines), "max_copies", (json_int_t)d->max_copies);
    if (figures && summary)
        json_object_set_new(figures, "summary", summary);
    else
        json_decref(summary);
    int rc = figures && summary ? json_object_update(section, figures) : -1;
    json_decref(figures);
    if (rc != 0)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory for the dcl1 report");
    return 0;
}

const struct gcr_l1org_ops gcr_l1org_dcl1 = {
    .name = "dcl1",
    .summary = "DC-L1: L1s as Y nodes beside the NoC, private (PrY), shared (ShY) or "
               "shared in Z clusters (ShY+CZ)",
    .whole_line_evictions = true,
    .create = dcl1_create,
    .access = dcl1_access,
    .kernel_begin = dcl1_kernel_begin,
    .kernel_end = dcl1_kernel_end,
    .num_instances = dcl1_instances,
    .collect_stats = dcl1_collect_stats,
    .report = dcl1_report,
    .destroy = dcl1_destroy,
};
