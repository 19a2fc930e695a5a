/* Strict JSON configuration: every key is known, typed and range-checked, and
 * every error names the file and the JSON path ($.l1d.ways).
 *
 * One file for one schema: each section's reader and the effective config it
 * is echoed as (gcr_config_to_json) must agree key for key (a described
 * config reads back to the same one, which fuzz-config checks), so they stay
 * side by side rather than split by section. */
#include "gcreplay/config.h"
#include "gcreplay/record.h"

#include "core/bits.h"
#include "core/json_kind.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_KEYS 64

/* One JSON object being read: remembers which keys were asked for so that
 * anything else can be reported as unknown, with the list of known keys. A
 * section asking for more than MAX_KEYS keys is a bug of this file, reported by
 * jobj_finish rather than letting a valid key past the list read as unknown. */
struct jobj {
    json_t *obj; /* NULL when the section is absent: every key takes its default */
    char path[160];
    const char *origin;
    const char *known[MAX_KEYS];
    int nknown;
    bool too_many_keys;
};

static int fail_at(const struct jobj *o, const char *key, struct gcr_err *err, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));

static int fail_at(const struct jobj *o, const char *key, struct gcr_err *err, const char *fmt,
                   ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (key)
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: %s", o->origin, o->path, key, what);
    return gcr_fail(err, GCR_E_CONFIG, "%s: %s: %s", o->origin, o->path, what);
}

static json_t *jobj_get(struct jobj *o, const char *key)
{
    if (o->nknown < MAX_KEYS)
        o->known[o->nknown++] = key;
    else
        o->too_many_keys = true;
    return o->obj ? json_object_get(o->obj, key) : NULL;
}

static int jobj_sub(struct jobj *parent, const char *key, struct jobj *child, struct gcr_err *err)
{
    json_t *v = jobj_get(parent, key);
    memset(child, 0, sizeof *child);
    child->origin = parent->origin;
    int n = snprintf(child->path, sizeof child->path, "%s.%s", parent->path, key);
    if (n < 0 || (size_t)n >= sizeof child->path) /* absurdly deep: keep the prefix */
        child->path[sizeof child->path - 1] = '\0';
    if (v && !json_is_object(v))
        return fail_at(parent, key, err, "expected an object, got %s", gcr_json_kind(v));
    child->obj = v;
    return 0;
}

/* Every key present must have been asked for. */
static int jobj_finish(const struct jobj *o, struct gcr_err *err)
{
    if (o->too_many_keys)
        return gcr_fail(err, GCR_E_INTERNAL, "%s: %s: the config reader asks for more than %d "
                        "keys in one section; raise MAX_KEYS in src/config/config.c", o->origin,
                        o->path, MAX_KEYS);
    if (!o->obj)
        return 0;
    const char *key;
    json_t *v;
    json_object_foreach(o->obj, key, v) {
        int seen = 0;
        for (int i = 0; i < o->nknown && !seen; i++)
            seen = strcmp(o->known[i], key) == 0;
        if (!seen) {
            char list[512] = "";
            for (int i = 0; i < o->nknown; i++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", o->known[i]);
            }
            return fail_at(o, key, err, "unknown key (known keys here: %s)", list);
        }
    }
    return 0;
}

static int get_u64(struct jobj *o, const char *key, uint64_t def, uint64_t min, uint64_t max,
                   uint64_t *out, struct gcr_err *err)
{
    json_t *v = jobj_get(o, key);
    if (!v) {
        *out = def;
        return 0;
    }
    /* 4.0 is a real to JSON: say how to write it rather than only that it is not an integer. */
    if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
        fabs(json_real_value(v)) < 1e15)
        return fail_at(o, key, err, "expected an integer between %llu and %llu, got %s (write "
                       "it as %.0f)", (unsigned long long)min, (unsigned long long)max,
                       gcr_json_kind(v), json_real_value(v));
    if (!json_is_integer(v))
        return fail_at(o, key, err, "expected an integer between %llu and %llu, got %s",
                       (unsigned long long)min, (unsigned long long)max, gcr_json_kind(v));
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x < min || (uint64_t)x > max)
        return fail_at(o, key, err, "expected an integer between %llu and %llu, got %lld",
                       (unsigned long long)min, (unsigned long long)max, (long long)x);
    *out = (uint64_t)x;
    return 0;
}

static int get_u32(struct jobj *o, const char *key, uint32_t def, uint32_t min, uint32_t max,
                   uint32_t *out, struct gcr_err *err)
{
    uint64_t x;
    if (get_u64(o, key, def, min, max, &x, err) != 0)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

static int get_bool(struct jobj *o, const char *key, bool def, bool *out, struct gcr_err *err)
{
    json_t *v = jobj_get(o, key);
    if (!v) {
        *out = def;
        return 0;
    }
    if (!json_is_boolean(v))
        return fail_at(o, key, err, "expected true or false, got %s", gcr_json_kind(v));
    *out = json_is_true(v);
    return 0;
}

static int get_str(struct jobj *o, const char *key, const char *def, const char **out,
                   struct gcr_err *err)
{
    json_t *v = jobj_get(o, key);
    if (!v) {
        *out = def;
        return 0;
    }
    if (!json_is_string(v))
        return fail_at(o, key, err, "expected a string, got %s", gcr_json_kind(v));
    *out = json_string_value(v);
    return 0;
}

/* A number (integer or not) in [min, max]. */
static int get_real(struct jobj *o, const char *key, double def, double min, double max,
                    double *out, struct gcr_err *err)
{
    json_t *v = jobj_get(o, key);
    if (!v) {
        *out = def;
        return 0;
    }
    if (!json_is_number(v))
        return fail_at(o, key, err, "expected a number between %g and %g, got %s", min, max,
                       gcr_json_kind(v));
    double x = json_number_value(v);
    if (!(x >= min && x <= max))
        return fail_at(o, key, err, "expected a number between %g and %g, got %g", min, max, x);
    *out = x;
    return 0;
}

/* A string naming one of the values of an enum; names() maps value -> name. */
static int get_enum(struct jobj *o, const char *key, int def, int count,
                    const char *(*names)(int), int *out, struct gcr_err *err)
{
    const char *s;
    if (get_str(o, key, NULL, &s, err) != 0)
        return -1;
    if (!s) {
        *out = def;
        return 0;
    }
    for (int i = 0; i < count; i++)
        if (strcmp(names(i), s) == 0) {
            *out = i;
            return 0;
        }
    char list[256] = "";
    for (int i = 0; i < count; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "", names(i));
    }
    return fail_at(o, key, err, "unknown value \"%s\" (expected one of %s)", s, list);
}

static const char *const cta_names[] = {"round_robin", "contiguous"};
static const char *const sm_order_names[] = {"linear", "tpc_spread"};
static const char *const warp_names[] = {"lrr", "gto", "vws"};
static const char *const gran_names[] = {"line", "sector"};
static const char *const slice_names[] = {"linear", "xor", "ipoly"};

const char *gcr_cta_policy_name(enum gcr_cta_policy p) { return cta_names[p]; }
const char *gcr_sm_order_name(enum gcr_sm_order o) { return sm_order_names[o]; }
const char *gcr_warp_policy_name(enum gcr_warp_policy p) { return warp_names[p]; }
const char *gcr_granularity_name(enum gcr_granularity g) { return gran_names[g]; }
const char *gcr_slice_hash_name(enum gcr_slice_hash h) { return slice_names[h]; }

static const char *cta_name_i(int i) { return cta_names[i]; }
static const char *sm_order_name_i(int i) { return sm_order_names[i]; }
static const char *warp_name_i(int i) { return warp_names[i]; }
static const char *gran_name_i(int i) { return gran_names[i]; }
static const char *slice_name_i(int i) { return slice_names[i]; }
static const char *const crd_at_names[] = {"home", "requester"};
static const char *crd_at_i(int i) { return crd_at_names[i]; }
static const char *const lsu_scope_names[] = {"system", "chip"};
static const char *lsu_scope_i(int i) { return lsu_scope_names[i]; }
static const char *llc_name_i(int i) { return gcr_llc_org_name((enum gcr_llc_org)i); }
static const char *repl_name_i(int i) { return gcr_repl_name((enum gcr_repl_policy)i); }
static const char *index_name_i(int i) { return gcr_index_name((enum gcr_index_fn)i); }
static const char *wpol_name_i(int i) { return gcr_write_policy_name((enum gcr_write_policy)i); }
static const char *walloc_name_i(int i) { return gcr_write_alloc_name((enum gcr_write_alloc)i); }


/* Keys shared by every cache section. Capacity is given either as "sets" or as
 * "size_bytes" (sets = size / (ways * line)), never both. */
static int parse_cache(struct jobj *o, const struct gcr_cache_geometry *def, uint32_t line_bytes,
                       uint32_t sector_bytes, uint64_t seed, struct gcr_cache_geometry *g,
                       struct gcr_err *err)
{
    *g = *def;
    g->line_bytes = line_bytes;
    g->sector_bytes = sector_bytes;
    g->seed = seed;
    int e = 0;
    uint64_t size = 0;
    bool has_sets = o->obj && json_object_get(o->obj, "sets");
    bool has_size = o->obj && json_object_get(o->obj, "size_bytes");
    if (get_u32(o, "ways", def->ways, 1, 65535, &g->ways, err) ||
        get_u32(o, "sets", def->sets, 1, 1u << 24, &g->sets, err) ||
        get_u64(o, "size_bytes", 0, 1, 1ull << 36, &size, err) ||
        get_bool(o, "sectored", def->sectored, &g->sectored, err))
        return -1;
    if (has_sets && has_size)
        return fail_at(o, NULL, err, "give either \"sets\" or \"size_bytes\", not both");
    if (has_size) {
        uint64_t per_set = (uint64_t)g->ways * line_bytes;
        if (size % per_set != 0)
            return fail_at(o, "size_bytes", err,
                           "%llu bytes is not a whole number of sets of %u ways x %u-byte lines",
                           (unsigned long long)size, g->ways, line_bytes);
        if (size / per_set > (1u << 24))
            return fail_at(o, "size_bytes", err, "too many sets (%llu)",
                           (unsigned long long)(size / per_set));
        g->sets = (uint32_t)(size / per_set);
    }
    if (get_enum(o, "replacement", def->repl, GCR_REPL_COUNT, repl_name_i, &e, err))
        return -1;
    g->repl = (enum gcr_repl_policy)e;
    if (get_enum(o, "index", def->index, GCR_INDEX_COUNT, index_name_i, &e, err))
        return -1;
    g->index = (enum gcr_index_fn)e;
    if (get_enum(o, "write_policy", def->write_policy, GCR_WRITE_POLICY_COUNT, wpol_name_i, &e,
                 err))
        return -1;
    g->write_policy = (enum gcr_write_policy)e;
    /* The allocation default follows the write policy, as on GPUs:
     * write-evict and write-through L1s do not allocate, write-back L2s do. */
    int walloc_def = g->write_policy == GCR_WRITE_BACK ? GCR_WALLOC_VALIDATE : GCR_WALLOC_NONE;
    if (get_enum(o, "write_allocate", walloc_def, GCR_WALLOC_COUNT, walloc_name_i, &e, err))
        return -1;
    g->write_alloc = (enum gcr_write_alloc)e;
    return 0;
}

static const char *const alloc_names[] = {"on_miss", "on_fill", "streaming"};
static const char *alloc_name_i(int i) { return alloc_names[i]; }
static const char *const mshr_type_names[] = {"assoc", "sector_assoc", "tex_fifo",
                                              "sector_tex_fifo"};
static const char *mshr_type_name_i(int i) { return mshr_type_names[i]; }

/* Fields of a cache that only timing uses: GPGPU-Sim's allocation point and
 * MSHR parameters. Checked strictly here, kept as JSON for later stages. */
static int parse_kept(struct jobj *cache, json_t **kept, struct gcr_err *err)
{
    int e = 0;
    struct jobj m;
    *kept = json_object();
    if (get_enum(cache, "allocation", 0, 3, alloc_name_i, &e, err))
        return -1;
    json_object_set_new(*kept, "allocation", json_string(alloc_names[e]));
    if (jobj_sub(cache, "mshr", &m, err))
        return -1;
    if (!m.obj)
        return 0;
    uint32_t entries, merge, queue, fifo, port;
    if (get_enum(&m, "type", 0, 4, mshr_type_name_i, &e, err) ||
        get_u32(&m, "entries", 32, 1, 1u << 20, &entries, err) ||
        get_u32(&m, "max_merge", 8, 1, 1u << 20, &merge, err) ||
        get_u32(&m, "miss_queue", 8, 0, 1u << 20, &queue, err) ||
        get_u32(&m, "result_fifo", 0, 0, 1u << 20, &fifo, err) ||
        get_u32(&m, "data_port_width", 0, 0, 1u << 20, &port, err) || jobj_finish(&m, err))
        return -1;
    json_object_set_new(*kept, "mshr",
                        json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "type", mshr_type_names[e],
                                  "entries", (json_int_t)entries, "max_merge", (json_int_t)merge,
                                  "miss_queue", (json_int_t)queue, "result_fifo",
                                  (json_int_t)fifo, "data_port_width", (json_int_t)port));
    return 0;
}

/* A positive number (integer or with a fraction) in (0, max]. */
static int get_positive_real(struct jobj *o, const char *key, double def, double max,
                             double *out, struct gcr_err *err)
{
    json_t *v = jobj_get(o, key);
    if (v && json_is_number(v) && json_number_value(v) <= 0)
        return fail_at(o, key, err, "expected a number above 0 and at most %g", max);
    return get_real(o, key, def, 0, max, out, err);
}

/* timing.units: the execution units of non-memory instructions whose trace gives them
 * (gcreplay/record.h, enum gcr_unit). Defaults: Accel-Sim's SM7_QV100 trace.config (latency
 * and initiation interval per unit) and gpgpusim.config (four of each unit, one per
 * scheduler), and the five cycles GPGPU-Sim's pipeline adds from issue to writeback
 * (src/timing/README.md, "Non-memory instructions"). */
static int parse_units(struct jobj *t, struct gcr_timing_config *tc, struct gcr_err *err)
{
    static const struct gcr_timing_unit defaults[GCR_UNIT_COUNT] = {
        [GCR_UNIT_INT] = {2, 2, 4},    [GCR_UNIT_SP] = {2, 2, 4},
        [GCR_UNIT_DP] = {8, 4, 4},     [GCR_UNIT_SFU] = {20, 8, 4},
        [GCR_UNIT_TENSOR] = {2, 2, 4}, [GCR_UNIT_BRANCH] = {4, 4, 4},
        [GCR_UNIT_TEX] = {200, 4, 4},
    };
    _Static_assert(GCR_UNIT_COUNT <= sizeof tc->units / sizeof tc->units[0],
                   "a timing unit per execution unit");
    struct jobj units;
    if (jobj_sub(t, "units", &units, err) ||
        get_u32(&units, "pipeline", 5, 0, 1u << 16, &tc->unit_pipeline, err))
        return -1;
    memset(tc->units, 0, sizeof tc->units);
    for (int u = GCR_UNIT_NONE + 1; u < GCR_UNIT_COUNT; u++) {
        struct jobj one;
        struct gcr_timing_unit *tu = &tc->units[u];
        if (jobj_sub(&units, gcr_unit_name((enum gcr_unit)u), &one, err) ||
            get_u32(&one, "latency", defaults[u].latency, 1, 1u << 16, &tu->latency, err) ||
            get_u32(&one, "initiation", defaults[u].initiation, 1, 1u << 16, &tu->initiation,
                    err) ||
            get_u32(&one, "count", defaults[u].count, 1, 1024, &tu->count, err) ||
            jobj_finish(&one, err))
            return -1;
    }
    return jobj_finish(&units, err);
}

/* timing: the timing backend's clocks, latencies, bandwidths, MSHRs and DRAM
 * row model (src/timing/README.md). Defaults: a 1-GHz GPU with Volta-like
 * latencies (GPGPU-Sim's QV100 config) and a 32-B/cycle DRAM channel per slice. */
static int parse_timing(struct jobj *top, struct gcr_config *cfg, struct gcr_err *err)
{
    struct jobj t, clk, lat, bw, rows, vws;
    struct gcr_timing_config *tc = &cfg->timing;
    /* The L1's MSHR count defaults to l1d.mshr.entries when the config has it. */
    json_t *mshr = json_object_get(cfg->l1_kept, "mshr");
    uint32_t mshr_def = mshr ? (uint32_t)json_integer_value(json_object_get(mshr, "entries"))
                             : 32;
    /* Its miss queue likewise defaults to l1d.mshr.miss_queue (GPGPU-Sim's default 8). */
    uint32_t queue_def =
        mshr ? (uint32_t)json_integer_value(json_object_get(mshr, "miss_queue")) : 8;
    /* The L2's merge limit defaults to l2.mshr.max_merge (none without it). */
    json_t *l2_mshr = json_object_get(cfg->l2_kept, "mshr");
    uint32_t merge_def =
        l2_mshr ? (uint32_t)json_integer_value(json_object_get(l2_mshr, "max_merge")) : 0;
    if (jobj_sub(top, "timing", &t, err) || get_bool(&t, "enabled", false, &tc->enabled, err) ||
        jobj_sub(&t, "clocks_mhz", &clk, err) ||
        get_positive_real(&clk, "core", 1000, 1e6, &tc->core_mhz, err) ||
        get_positive_real(&clk, "noc", 1000, 1e6, &tc->noc_mhz, err) ||
        get_positive_real(&clk, "l2", 1000, 1e6, &tc->l2_mhz, err) ||
        get_positive_real(&clk, "dram", 1000, 1e6, &tc->dram_mhz, err) ||
        jobj_finish(&clk, err) ||
        get_u32(&t, "issue_per_cycle", 4, 1, 64, &tc->issue_per_cycle, err) ||
        get_u32(&t, "kernel_launch_latency", 0, 0, 1u << 30, &tc->kernel_launch_latency, err) ||
        jobj_sub(&t, "latency", &lat, err) ||
        get_u32(&lat, "alu", 4, 1, 1u << 20, &tc->alu_latency, err) ||
        get_u32(&lat, "shared", 20, 1, 1u << 20, &tc->shared_latency, err) ||
        get_u32(&lat, "l1", 20, 1, 1u << 20, &tc->l1_latency, err) ||
        get_u32(&lat, "noc", 8, 0, 1u << 20, &tc->noc_latency, err) ||
        get_u32(&lat, "l2", 160, 0, 1u << 20, &tc->l2_latency, err) ||
        get_u32(&lat, "dram", 100, 0, 1u << 20, &tc->dram_latency, err) ||
        jobj_finish(&lat, err) || jobj_sub(&t, "bandwidth", &bw, err) ||
        get_u32(&bw, "noc_port_bytes", 40, 1, 1u << 20, &tc->noc_port_bytes, err) ||
        get_u32(&bw, "l2_slice_bytes", 32, 1, 1u << 20, &tc->l2_slice_bytes, err) ||
        get_u32(&bw, "dram_channel_bytes", 32, 1, 1u << 20, &tc->dram_channel_bytes, err) ||
        get_u32(&bw, "link_bytes", 40, 1, 1u << 20, &tc->link_bytes, err) ||
        get_u32(&bw, "shared_bytes", 128, 1, 1u << 20, &tc->shared_bytes, err) ||
        get_u32(&bw, "header_bytes", 8, 0, 1u << 20, &tc->header_bytes, err) ||
        jobj_finish(&bw, err) ||
        get_u32(&t, "dram_channels", 0, 0, 4096, &tc->dram_channels, err) ||
        get_u32(&t, "resource_gaps", 4, 0, 64, &tc->resource_gaps, err) ||
        get_u32(&t, "l1_mshrs", mshr_def, 1, 1u << 16, &tc->l1_mshrs, err) ||
        get_u32(&t, "l1_banks", 4, 1, 64, &tc->l1_banks, err) ||
        get_u32(&t, "l1_miss_queue", queue_def >= 2 ? queue_def : 8, 2, 1u << 16,
                &tc->l1_miss_queue, err) ||
        get_u32(&t, "l2_max_merge", merge_def, 0, 1u << 20, &tc->l2_max_merge, err) ||
        jobj_sub(&t, "dram_rows", &rows, err) ||
        get_bool(&rows, "enabled", false, &tc->dram_rows, err) ||
        get_u32(&rows, "banks", 16, 1, 1024, &tc->dram_banks, err) ||
        get_u32(&rows, "row_bytes", 2048, 1, 1u << 24, &tc->dram_row_bytes, err) ||
        get_u32(&rows, "tRCD", 12, 0, 1u << 16, &tc->t_rcd, err) ||
        get_u32(&rows, "tRP", 12, 0, 1u << 16, &tc->t_rp, err) ||
        get_u32(&rows, "CL", 12, 0, 1u << 16, &tc->t_cl, err) ||
        get_u32(&rows, "tRAS", 28, 0, 1u << 16, &tc->t_ras, err) || jobj_finish(&rows, err) ||
        jobj_sub(&t, "vws", &vws, err) ||
        get_positive_real(&vws, "alpha", 0.1, 1.0, &tc->vws_alpha, err) ||
        get_positive_real(&vws, "beta", 4.0, 1e6, &tc->vws_beta, err) ||
        get_u32(&vws, "amt_entries", 8192, 1, 1u << 24, &tc->vws_amt_entries, err) ||
        get_u32(&vws, "level1_warps", 16, 1, 4096, &tc->vws_level1_warps, err) ||
        jobj_finish(&vws, err) || parse_units(&t, tc, err) || jobj_finish(&t, err))
        return -1;
    if (tc->dram_channels && (tc->dram_channels > cfg->l2_slices ||
                              cfg->l2_slices % tc->dram_channels != 0))
        return fail_at(&t, "dram_channels", err,
                       "must divide the number of L2 slices (%u) evenly, got %u",
                       cfg->l2_slices, tc->dram_channels);
    if (!gcr_is_pow2(tc->dram_row_bytes) || tc->dram_row_bytes < cfg->line_bytes)
        return fail_at(&rows, "row_bytes", err,
                       "must be a power of two no smaller than a line (%u bytes), got %u",
                       cfg->line_bytes, tc->dram_row_bytes);
    return 0;
}

static const char *const counting_names[] = {"gpgpusim", "nsight"};
static const char *counting_name_i(int i) { return counting_names[i]; }
static const char *const sm_assignment_names[] = {"contiguous", "interleaved"};
static const char *sm_assignment_name_i(int i) { return sm_assignment_names[i]; }
static const char *const partial_writes_names[] = {"take", "drop"};
static const char *partial_writes_name_i(int i) { return partial_writes_names[i]; }

/* The L2 behaviours of real GPUs that GPGPU-Sim lacks (README, "Agreeing with
 * silicon"), each off unless asked for: l2.counting, l2.byte_masks,
 * l2.fetch_bytes, l2.request_coalescer {"window_requests"}, l2.partitions
 * {"count", "sm_assignment", "partial_writes"}. */
static int parse_l2_silicon(struct jobj *l2, struct gcr_config *cfg, struct gcr_err *err)
{
    int e = 0;
    if (get_enum(l2, "counting", 0, 2, counting_name_i, &e, err) ||
        get_bool(l2, "byte_masks", false, &cfg->l2.byte_masks, err) ||
        get_u32(l2, "fetch_bytes", cfg->sector_bytes, 1, 1u << 20, &cfg->l2_fetch_bytes, err))
        return -1;
    if (!gcr_is_pow2(cfg->l2_fetch_bytes) || cfg->l2_fetch_bytes < cfg->sector_bytes ||
        cfg->l2_fetch_bytes > cfg->line_bytes)
        return fail_at(l2, "fetch_bytes", err,
                       "must be a power of two from a sector (%u bytes) to a line (%u bytes), "
                       "got %u", cfg->sector_bytes, cfg->line_bytes, cfg->l2_fetch_bytes);
    cfg->l2_counting_nsight = e == 1;
    cfg->l2.writes_hit = cfg->l2_counting_nsight;
    struct jobj rc, parts;
    if (jobj_sub(l2, "request_coalescer", &rc, err))
        return -1;
    if (rc.obj && (get_u32(&rc, "window_requests", 0, 1, 1u << 20, &cfg->l2_merge_window, err) ||
                   get_u32(&rc, "window_cycles", 0, 0, 1u << 20, &cfg->l2_merge_window_cycles,
                           err) ||
                   jobj_finish(&rc, err)))
        return -1;
    if (rc.obj && !cfg->l2_merge_window)
        return fail_at(&rc, "window_requests", err, "required: the requests a merge may span");
    cfg->l2_partitions = 1;
    if (jobj_sub(l2, "partitions", &parts, err))
        return -1;
    if (!parts.obj)
        return 0;
    int pw = 0;
    if (get_u32(&parts, "count", 2, 1, 64, &cfg->l2_partitions, err) ||
        get_enum(&parts, "sm_assignment", 0, 2, sm_assignment_name_i, &e, err) ||
        get_enum(&parts, "partial_writes", 0, 2, partial_writes_name_i, &pw, err) ||
        jobj_finish(&parts, err))
        return -1;
    cfg->l2_partition_interleaved = e == 1;
    cfg->l2_partial_writes_drop = pw == 1;
    if (cfg->l2_slices % cfg->l2_partitions)
        return fail_at(&parts, "count", err, "must divide l2.slices (%u), got %u", cfg->l2_slices,
                       cfg->l2_partitions);
    return 0;
}

/* l1d.adaptive: {"unified_bytes": N, "shmem_options_bytes": [ascending...]} */
static int parse_adaptive(struct jobj *l1, struct gcr_config *cfg, struct gcr_err *err)
{
    struct jobj a;
    if (jobj_sub(l1, "adaptive", &a, err))
        return -1;
    if (!a.obj)
        return 0;
    if (get_u64(&a, "unified_bytes", 0, 1, 1ull << 31, &cfg->l1_unified_bytes, err))
        return -1;
    json_t *opts = jobj_get(&a, "shmem_options_bytes");
    if (!opts || !json_is_array(opts) || json_array_size(opts) == 0 ||
        json_array_size(opts) > 16)
        return fail_at(&a, "shmem_options_bytes", err,
                       "expected an array of 1 to 16 shared-memory sizes in bytes");
    size_t i;
    json_t *v;
    json_array_foreach(opts, i, v) {
        json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;
        if (x < 0 || (uint64_t)x > cfg->l1_unified_bytes ||
            (i > 0 && (uint32_t)x <= cfg->l1_shmem_options[i - 1])) {
            char key[64];
            snprintf(key, sizeof key, "shmem_options_bytes[%zu]", i);
            return fail_at(&a, key, err,
                           "expected sizes in ascending order, each at most unified_bytes "
                           "(%llu)", (unsigned long long)cfg->l1_unified_bytes);
        }
        cfg->l1_shmem_options[i] = (uint32_t)x;
    }
    cfg->l1_shmem_option_count = (uint32_t)json_array_size(opts);
    /* The carve-out the driver chose for each launch, as a profiler reports
     * it (Nsight Compute's launch__shared_mem_config_size): one of the
     * options, per launch in replay order; later launches take the rule. */
    json_t *fixed = jobj_get(&a, "carveout_bytes");
    if (fixed) {
        if (!json_is_array(fixed) || json_array_size(fixed) > GCR_MAX_CARVEOUTS)
            return fail_at(&a, "carveout_bytes", err,
                           "expected an array of at most %d shared-memory sizes in bytes, one "
                           "per launch", GCR_MAX_CARVEOUTS);
        json_array_foreach(fixed, i, v) {
            json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;
            uint32_t k = 0;
            while (k < cfg->l1_shmem_option_count && cfg->l1_shmem_options[k] != x)
                k++;
            if (k == cfg->l1_shmem_option_count) {
                char key[64];
                snprintf(key, sizeof key, "carveout_bytes[%zu]", i);
                return fail_at(&a, key, err, "expected one of shmem_options_bytes");
            }
            cfg->l1_carveouts[i] = (uint32_t)x;
        }
        cfg->l1_carveout_count = (uint32_t)json_array_size(fixed);
    }
    return jobj_finish(&a, err);
}

static int check_geometry(const struct jobj *o, const struct gcr_cache_geometry *g,
                          struct gcr_err *err)
{
    char why[256];
    if (gcr_cache_geometry_check(g, why, sizeof why) != 0)
        return fail_at(o, NULL, err, "impossible cache geometry: %s", why);
    return 0;
}

/* The model keeps about 40 bytes per line; refuse configs that would need
 * more than about 5 GB rather than be killed for lack of memory. */
#define MAX_LINES_PER_LEVEL (UINT64_C(1) << 27)

static int check_total(const struct jobj *o, uint64_t instances, const char *what,
                       uint64_t lines_each, struct gcr_err *err)
{
    if (instances * lines_each > MAX_LINES_PER_LEVEL)
        return fail_at(o, NULL, err,
                       "%llu %s x %llu lines = %llu lines in all; at most %llu can be modelled",
                       (unsigned long long)instances, what, (unsigned long long)lines_each,
                       (unsigned long long)(instances * lines_each),
                       (unsigned long long)MAX_LINES_PER_LEVEL);
    return 0;
}

/* The "chips" section (examples/configs/README.md, "Multi-chip GPUs"). */
static int parse_chips(struct jobj *top, const struct jobj *l2, struct gcr_config *cfg,
                       struct gcr_err *err)
{
    struct gcr_chips_config *c = &cfg->chips;
    struct jobj ch, crd, eab;
    int e = 0;
    if (jobj_sub(top, "chips", &ch, err) ||
        get_u32(&ch, "count", 1, 1, GCR_MAX_CHIPS, &c->count, err) ||
        get_u64(&ch, "page_bytes", 4096, 1, 1ull << 40, &c->page_bytes, err) ||
        get_u32(&ch, "channels", 8, 1, 1024, &c->channels, err) ||
        get_enum(&ch, "llc", GCR_LLC_MEMORY_SIDE, GCR_LLC_ORG_COUNT, llc_name_i, &e, err))
        return -1;
    c->llc = (enum gcr_llc_org)e;
    if (get_bool(&ch, "shadow", true, &c->shadow, err) || jobj_sub(&ch, "crd", &crd, err) ||
        get_u32(&crd, "sets", 8, 1, 1u << 20, &c->crd_sets, err) ||
        get_u32(&crd, "ways", 16, 1, 256, &c->crd_ways, err) ||
        get_enum(&crd, "at", 0, 2, crd_at_i, &e, err) || jobj_finish(&crd, err))
        return -1;
    c->crd_at_requester = e == 1;
    if (jobj_sub(&ch, "eab", &eab, err) ||
        get_real(&eab, "theta", 0.05, 0.0, 100.0, &c->theta, err) ||
        get_u64(&eab, "profile_requests", 65536, 1, UINT64_MAX >> 1, &c->profile_requests, err) ||
        get_enum(&eab, "lsu_scope", 0, 2, lsu_scope_i, &e, err) ||
        get_real(&eab, "intra_gbs", 4000.0, 1e-9, 1e12, &c->bw.intra, err) ||
        get_real(&eab, "inter_gbs", 192.0, 1e-9, 1e12, &c->bw.inter, err) ||
        get_real(&eab, "llc_gbs", 4000.0, 1e-9, 1e12, &c->bw.llc, err) ||
        get_real(&eab, "mem_gbs", 437.5, 1e-9, 1e12, &c->bw.mem, err) ||
        jobj_finish(&eab, err) || jobj_finish(&ch, err))
        return -1;
    c->lsu_per_chip = e == 1;
    if (cfg->num_sms % c->count)
        return fail_at(&ch, "count", err, "%u chips do not split the %u SMs ($.gpu.sms) evenly",
                       c->count, cfg->num_sms);
    if (cfg->l2_slices % c->count)
        return fail_at(&ch, "count", err,
                       "%u chips do not split the %u L2 slices ($.l2.slices, the total over "
                       "all chips) evenly", c->count, cfg->l2_slices);
    c->slices_per_chip = cfg->l2_slices / c->count;
    if (!gcr_is_pow2(c->page_bytes) || c->page_bytes < cfg->line_bytes)
        return fail_at(&ch, "page_bytes", err,
                       "must be a power of two no smaller than a line (%u bytes), got %llu",
                       cfg->line_bytes, (unsigned long long)c->page_bytes);
    if (!gcr_is_pow2(c->channels))
        return fail_at(&ch, "channels", err, "must be a power of two, got %u", c->channels);
    if (c->count == 1)
        return 0;
    /* Within a chip the slice comes from l2.slice_hash over that chip's slices
     * (a power-of-two total split by a divisor is a power of two, so "xor"
     * always fits; "ipoly" needs 16, 32 or 64 per chip). */
    uint32_t spc = c->slices_per_chip;
    if (cfg->l2_slice_hash == GCR_SLICE_IPOLY && spc != 16 && spc != 32 && spc != 64)
        return fail_at(l2, "slice_hash", err,
                       "\"ipoly\" needs 16, 32 or 64 slices per chip (%u slices / %u chips = "
                       "%u)", cfg->l2_slices, c->count, spc);
    if (cfg->l2_prefill_memcpy)
        return fail_at(l2, "prefill_memcpy", err,
                       "not available with several chips ($.chips.count = %u): pages get their "
                       "home chip when a kernel first touches them", c->count);
    uint64_t chip_sets = (uint64_t)spc * cfg->l2.sets;
    if (c->crd_sets > chip_sets)
        return fail_at(&crd, "sets", err,
                       "%u sampled sets but a chip's LLC has only %llu sets (%u slices x %u sets)",
                       c->crd_sets, (unsigned long long)chip_sets, spc, cfg->l2.sets);
    return 0;
}

static void config_zero(struct gcr_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
}

void gcr_config_free(struct gcr_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->origin);
    free(cfg->name);
    free(cfg->l1_organization);
    json_decref(cfg->l1_org_options);
    json_decref(cfg->l1_kept);
    json_decref(cfg->l2_kept);
    json_decref(cfg->analyses);
    config_zero(cfg);
}

static int from_json(struct gcr_config *cfg, json_t *root, struct gcr_err *err)
{
    struct jobj top = {.obj = root, .path = "$", .origin = cfg->origin};
    struct jobj gpu, sched, coal, l1, l2;
    const char *s;
    int e = 0;

    if (!json_is_object(root))
        return fail_at(&top, NULL, err, "the configuration must be a JSON object, got %s",
                       gcr_json_kind(root));
    if (get_str(&top, "name", "unnamed", &s, err))
        return -1;
    if (!(cfg->name = strdup(s)))
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", cfg->origin);
    if (get_u64(&top, "seed", 1, 0, UINT64_MAX >> 1, &cfg->seed, err))
        return -1;
    json_t *comment = jobj_get(&top, "comment"); /* free text, ignored */
    if (comment && !json_is_string(comment))
        return fail_at(&top, "comment", err, "expected a string, got %s", gcr_json_kind(comment));

    if (jobj_sub(&top, "gpu", &gpu, err) ||
        get_u32(&gpu, "sms", 80, 1, 4096, &cfg->num_sms, err) ||
        get_u32(&gpu, "max_ctas_per_sm", 32, 1, 1024, &cfg->max_ctas_per_sm, err) ||
        get_u32(&gpu, "max_warps_per_sm", 64, 1, 4096, &cfg->max_warps_per_sm, err) ||
        get_u32(&gpu, "shared_mem_per_sm", 98304, 0, UINT32_MAX, &cfg->shared_mem_per_sm, err) ||
        get_u32(&gpu, "registers_per_sm", 65536, 1, UINT32_MAX, &cfg->registers_per_sm, err) ||
        jobj_finish(&gpu, err))
        return -1;

    if (jobj_sub(&top, "scheduling", &sched, err) ||
        get_enum(&sched, "cta_policy", GCR_CTA_ROUND_ROBIN, GCR_CTA_POLICY_COUNT, cta_name_i, &e,
                 err))
        return -1;
    cfg->cta_policy = (enum gcr_cta_policy)e;
    if (get_enum(&sched, "sm_order", GCR_SM_ORDER_LINEAR, GCR_SM_ORDER_COUNT, sm_order_name_i, &e,
                 err))
        return -1;
    cfg->sm_order = (enum gcr_sm_order)e;
    if (cfg->sm_order != GCR_SM_ORDER_LINEAR && cfg->cta_policy != GCR_CTA_ROUND_ROBIN)
        return fail_at(&sched, "sm_order", err,
                       "orders round-robin dispatch; cta_policy \"%s\" gives each SM its own CTAs",
                       gcr_cta_policy_name(cfg->cta_policy));
    if (get_enum(&sched, "warp_policy", GCR_WARP_LRR, GCR_WARP_POLICY_COUNT, warp_name_i, &e,
                 err))
        return -1;
    cfg->warp_policy = (enum gcr_warp_policy)e;
    if (get_u32(&sched, "gto_miss_stall", 8, 0, 1u << 20, &cfg->gto_miss_stall, err) ||
        jobj_finish(&sched, err))
        return -1;

    if (jobj_sub(&top, "coalescer", &coal, err) ||
        get_u32(&coal, "line_bytes", 128, 1, 1u << 20, &cfg->line_bytes, err) ||
        get_u32(&coal, "sector_bytes", 32, 1, 1u << 20, &cfg->sector_bytes, err) ||
        get_enum(&coal, "granularity", GCR_GRAN_LINE, GCR_GRAN_COUNT, gran_name_i, &e, err))
        return -1;
    cfg->granularity = (enum gcr_granularity)e;
    if (jobj_finish(&coal, err))
        return -1;
    if (!gcr_is_pow2(cfg->line_bytes) || cfg->line_bytes < 16 || cfg->line_bytes > 256)
        return fail_at(&coal, "line_bytes", err, "must be a power of two from 16 to 256 (got %u)",
                       cfg->line_bytes);
    if (!gcr_is_pow2(cfg->sector_bytes) || cfg->sector_bytes < 8 ||
        cfg->sector_bytes > cfg->line_bytes ||
        cfg->line_bytes / cfg->sector_bytes > 32)
        return fail_at(&coal, "sector_bytes", err,
                       "must be a power of two of at least 8 dividing line_bytes (%u) into at "
                       "most 32 sectors (got %u)", cfg->line_bytes, cfg->sector_bytes);

    /* L1 defaults: the GPU L1 of the issue's baseline, 4 sets x 64 ways
     * write-evict without allocation. */
    static const struct gcr_cache_geometry l1_def = {
        .sets = 4, .ways = 64, .sectored = true, .repl = GCR_REPL_LRU,
        .index = GCR_INDEX_LINEAR, .write_policy = GCR_WRITE_EVICT,
        .write_alloc = GCR_WALLOC_NONE};
    if (jobj_sub(&top, "l1d", &l1, err) ||
        get_str(&l1, "organization", "private", &s, err))
        return -1;
    if (!(cfg->l1_organization = strdup(s)))
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", cfg->origin);
    if (parse_cache(&l1, &l1_def, cfg->line_bytes, cfg->sector_bytes, cfg->seed, &cfg->l1, err) ||
        get_bool(&l1, "invalidate_at_kernel_end", true, &cfg->l1_invalidate_at_kernel_end, err) ||
        get_bool(&l1, "bypass_global", false, &cfg->l1_bypass_global, err) ||
        parse_adaptive(&l1, cfg, err) || parse_kept(&l1, &cfg->l1_kept, err))
        return -1;
    /* Organisation-specific options live in l1d.<organization>; the
     * organisation checks them itself when it is created. A name that is one
     * of l1d's own keys would make that object ambiguous (and the effective
     * config would not read back). */
    for (int i = 0; i < l1.nknown; i++)
        if (strcmp(l1.known[i], cfg->l1_organization) == 0)
            return fail_at(&l1, "organization", err,
                           "\"%s\" is one of l1d's own keys, not an organisation",
                           cfg->l1_organization);
    json_t *org_opts = jobj_get(&l1, cfg->l1_organization);
    if (org_opts && !json_is_object(org_opts))
        return fail_at(&l1, cfg->l1_organization, err, "expected an object, got %s",
                       gcr_json_kind(org_opts));
    cfg->l1_org_options = json_incref(org_opts);
    if (jobj_finish(&l1, err) || check_geometry(&l1, &cfg->l1, err) ||
        check_total(&l1, cfg->num_sms, "SMs",
                    (uint64_t)cfg->l1.sets *
                        (cfg->l1_unified_bytes ? cfg->l1_unified_bytes / cfg->line_bytes /
                                                     cfg->l1.sets
                                               : cfg->l1.ways),
                    err))
        return -1;

    static const struct gcr_cache_geometry l2_def = {
        .sets = 32, .ways = 24, .sectored = true, .repl = GCR_REPL_LRU,
        .index = GCR_INDEX_LINEAR, .write_policy = GCR_WRITE_BACK,
        .write_alloc = GCR_WALLOC_VALIDATE};
    if (jobj_sub(&top, "l2", &l2, err) ||
        get_u32(&l2, "slices", 64, 1, 4096, &cfg->l2_slices, err) ||
        get_u64(&l2, "interleave_bytes", 256, 1, 1ull << 40, &cfg->l2_interleave_bytes, err) ||
        get_enum(&l2, "slice_hash", GCR_SLICE_LINEAR, GCR_SLICE_HASH_COUNT, slice_name_i, &e, err))
        return -1;
    cfg->l2_slice_hash = (enum gcr_slice_hash)e;
    if (parse_cache(&l2, &l2_def, cfg->line_bytes, cfg->sector_bytes, cfg->seed ^ 0x9e3779b9u,
                    &cfg->l2, err) ||
        get_bool(&l2, "prefill_memcpy", false, &cfg->l2_prefill_memcpy, err) ||
        parse_l2_silicon(&l2, cfg, err) ||
        parse_kept(&l2, &cfg->l2_kept, err) || jobj_finish(&l2, err))
        return -1;
    if (!gcr_is_pow2(cfg->l2_interleave_bytes) || cfg->l2_interleave_bytes < cfg->line_bytes)
        return fail_at(&l2, "interleave_bytes", err,
                       "must be a power of two no smaller than a line (%u bytes), got %llu",
                       cfg->line_bytes, (unsigned long long)cfg->l2_interleave_bytes);
    if (cfg->l2_slice_hash == GCR_SLICE_XOR && !gcr_is_pow2(cfg->l2_slices))
        return fail_at(&l2, "slice_hash", err,
                       "\"xor\" needs a power-of-two number of slices (got %u)", cfg->l2_slices);
    if (cfg->l2_slice_hash == GCR_SLICE_IPOLY && cfg->l2_slices != 16 && cfg->l2_slices != 32 &&
        cfg->l2_slices != 64)
        return fail_at(&l2, "slice_hash", err, "\"ipoly\" needs 16, 32 or 64 slices (got %u)",
                       cfg->l2_slices);
    cfg->l2_interleave_log2 = (unsigned)__builtin_ctzll(cfg->l2_interleave_bytes);
    cfg->l2_slice_mask = gcr_is_pow2(cfg->l2_slices) ? cfg->l2_slices - 1 : 0;
    cfg->l2.strip_bytes = cfg->l2_interleave_bytes;
    cfg->l2.strip_count = cfg->l2_slices;
    if (check_geometry(&l2, &cfg->l2, err) ||
        check_total(&l2, cfg->l2_slices, "slices", (uint64_t)cfg->l2.sets * cfg->l2.ways, err))
        return -1;

    if (parse_chips(&top, &l2, cfg, err))
        return -1;
    if (cfg->sm_order != GCR_SM_ORDER_LINEAR && cfg->chips.count > 1)
        return fail_at(&sched, "sm_order", err, "orders one chip's SMs; not with chips.count > 1");
    if (cfg->chips.count > 1 && gcr_l2_silicon(cfg))
        return fail_at(&l2, cfg->l2_partitions > 1 ? "partitions" : cfg->l2_merge_window
                                ? "request_coalescer" : cfg->l2.byte_masks ? "byte_masks"
                                : gcr_l2_promotes(cfg) ? "fetch_bytes" : "counting", err,
                       "models one chip's L2; not with chips.count > 1");

    json_t *an = jobj_get(&top, "analyses");
    if (an && !json_is_object(an))
        return fail_at(&top, "analyses", err, "expected an object, got %s", gcr_json_kind(an));
    cfg->analyses = an ? json_incref(an) : json_object();

    if (parse_timing(&top, cfg, err))
        return -1;
    return jobj_finish(&top, err);
}

int gcr_config_from_json(struct gcr_config *cfg, json_t *root, const char *origin,
                         struct gcr_err *err)
{
    config_zero(cfg);
    if (!(cfg->origin = strdup(origin)))
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", origin);
    int rc = from_json(cfg, root, err);
    if (rc != 0)
        gcr_config_free(cfg);
    return rc;
}

int gcr_config_parse(struct gcr_config *cfg, const char *json_text, const char *origin,
                     struct gcr_err *err)
{
    config_zero(cfg);
    json_error_t je;
    json_t *root = json_loads(json_text, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return gcr_fail(err, GCR_E_CONFIG, "%s:%d:%d: invalid JSON: %s", origin, je.line,
                        je.column, je.text);
    int rc = gcr_config_from_json(cfg, root, origin, err);
    json_decref(root);
    return rc;
}

/* A config file jansson refused, worded for its author: the mistakes made most (a GPGPU-Sim
 * option file where a JSON config belongs, a byte-order mark an editor added) get a hint. */
static int load_failed(const char *path, const json_error_t *je, struct gcr_err *err)
{
    unsigned char head[4096];
    size_t n = 0;
    FILE *f = fopen(path, "rb");
    if (f) {
        n = fread(head, 1, sizeof head - 1, f);
        fclose(f);
    }
    head[n] = '\0';
    if (n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf)
        return gcr_fail(err, GCR_E_CONFIG, "%s:1:1: invalid JSON: the file starts with a UTF-8 "
                        "byte-order mark, which JSON does not allow; save it without one", path);
    /* GPGPU-Sim's options: `-gpgpu_...` lines, often after `#` comments. */
    if (strstr((const char *)head, "\n-gpgpu_") || !strncmp((const char *)head, "-gpgpu_", 7) ||
        strstr((const char *)head, "\n-trace_"))
        return gcr_fail(err, GCR_E_CONFIG, "%s:%d:%d: invalid JSON: %s; this is a GPGPU-Sim "
                        "config, which `gcreplay import-config -o OUT.json %s` turns into a "
                        "gcreplay config", path, je->line, je->column, je->text, path);
    if (je->line <= 0)
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s", path, je->text);
    return gcr_fail(err, GCR_E_CONFIG, "%s:%d:%d: invalid JSON: %s", path, je->line, je->column,
                    je->text);
}

json_t *gcr_config_load_json(const char *path, struct gcr_err *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        gcr_fail(err, GCR_E_CONFIG, "%s: is a directory, not a JSON config file", path);
        return NULL;
    }
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        load_failed(path, &je, err);
    return root;
}

int gcr_config_load(struct gcr_config *cfg, const char *path, struct gcr_err *err)
{
    return gcr_config_load_with(cfg, path, NULL, 0, err);
}

/* Written so that the effective config in a report can be used as a config
 * again: capacity appears as sets and ways only (size_bytes would conflict). */
static json_t *cache_to_json(const struct gcr_cache_geometry *g)
{
    return json_pack("{s:I, s:I, s:b, s:s, s:s, s:s, s:s}", "sets", (json_int_t)g->sets, "ways",
                     (json_int_t)g->ways, "sectored", g->sectored, "replacement",
                     gcr_repl_name(g->repl), "index", gcr_index_name(g->index), "write_policy",
                     gcr_write_policy_name(g->write_policy), "write_allocate",
                     gcr_write_alloc_name(g->write_alloc));
}

json_t *gcr_config_to_json(const struct gcr_config *cfg)
{
    json_t *l1 = cache_to_json(&cfg->l1);
    json_object_set_new(l1, "organization", json_string(cfg->l1_organization));
    json_object_set_new(l1, "invalidate_at_kernel_end",
                        json_boolean(cfg->l1_invalidate_at_kernel_end));
    json_object_set_new(l1, "bypass_global", json_boolean(cfg->l1_bypass_global));
    if (cfg->l1_unified_bytes) {
        json_t *opts = json_array();
        for (uint32_t i = 0; i < cfg->l1_shmem_option_count; i++)
            json_array_append_new(opts, json_integer(cfg->l1_shmem_options[i]));
        json_t *adaptive = json_pack("{s:I, s:o}", "unified_bytes",
                                     (json_int_t)cfg->l1_unified_bytes, "shmem_options_bytes",
                                     opts);
        if (cfg->l1_carveout_count) {
            json_t *fixed = json_array();
            for (uint32_t i = 0; i < cfg->l1_carveout_count; i++)
                json_array_append_new(fixed, json_integer(cfg->l1_carveouts[i]));
            json_object_set_new(adaptive, "carveout_bytes", fixed);
        }
        json_object_set_new(l1, "adaptive", adaptive);
    }
    json_object_update(l1, cfg->l1_kept);
    if (cfg->l1_org_options)
        json_object_set(l1, cfg->l1_organization, cfg->l1_org_options);
    json_t *l2 = cache_to_json(&cfg->l2);
    json_object_set_new(l2, "slices", json_integer(cfg->l2_slices));
    json_object_set_new(l2, "interleave_bytes", json_integer((json_int_t)cfg->l2_interleave_bytes));
    json_object_set_new(l2, "slice_hash", json_string(gcr_slice_hash_name(cfg->l2_slice_hash)));
    json_object_set_new(l2, "prefill_memcpy", json_boolean(cfg->l2_prefill_memcpy));
    /* Echoed only when on, so that reports of configs without them stay as they were. */
    if (cfg->l2_counting_nsight)
        json_object_set_new(l2, "counting", json_string("nsight"));
    if (cfg->l2.byte_masks)
        json_object_set_new(l2, "byte_masks", json_true());
    if (gcr_l2_promotes(cfg))
        json_object_set_new(l2, "fetch_bytes", json_integer(cfg->l2_fetch_bytes));
    if (cfg->l2_merge_window) {
        json_t *rc = json_pack("{s:I}", "window_requests", (json_int_t)cfg->l2_merge_window);
        if (cfg->l2_merge_window_cycles) /* given: an echo without it reads as before */
            json_object_set_new(rc, "window_cycles",
                                json_integer((json_int_t)cfg->l2_merge_window_cycles));
        json_object_set_new(l2, "request_coalescer", rc);
    }
    if (cfg->l2_partitions > 1)
        json_object_set_new(l2, "partitions",
                            json_pack("{s:I, s:s, s:s}", "count",
                                      (json_int_t)cfg->l2_partitions, "sm_assignment",
                                      sm_assignment_names[cfg->l2_partition_interleaved],
                                      "partial_writes",
                                      partial_writes_names[cfg->l2_partial_writes_drop]));
    json_object_update(l2, cfg->l2_kept);
    json_t *root = json_pack(
        "{s:s, s:I, s:{s:I, s:I, s:I, s:I, s:I}, s:{s:s, s:s, s:I}, s:{s:I, s:I, s:s}, "
        "s:o, s:o, s:O}",
        "name", cfg->name, "seed", (json_int_t)cfg->seed,
        "gpu", "sms", (json_int_t)cfg->num_sms, "max_ctas_per_sm", (json_int_t)cfg->max_ctas_per_sm,
        "max_warps_per_sm", (json_int_t)cfg->max_warps_per_sm,
        "shared_mem_per_sm", (json_int_t)cfg->shared_mem_per_sm,
        "registers_per_sm", (json_int_t)cfg->registers_per_sm,
        "scheduling", "cta_policy", gcr_cta_policy_name(cfg->cta_policy),
        "warp_policy", gcr_warp_policy_name(cfg->warp_policy),
        "gto_miss_stall", (json_int_t)cfg->gto_miss_stall,
        "coalescer", "line_bytes", (json_int_t)cfg->line_bytes,
        "sector_bytes", (json_int_t)cfg->sector_bytes,
        "granularity", gcr_granularity_name(cfg->granularity),
        "l1d", l1, "l2", l2, "analyses", cfg->analyses);
    /* The dispatch order appears where it is not the default, so reports of
     * configs that never set it stay as they were. */
    if (root && cfg->sm_order != GCR_SM_ORDER_LINEAR)
        json_object_set_new(json_object_get(root, "scheduling"), "sm_order",
                            json_string(gcr_sm_order_name(cfg->sm_order)));
    /* Single-chip reports stay as they were: the section appears with chips only. */
    const struct gcr_chips_config *c = &cfg->chips;
    if (root && c->count > 1)
        json_object_set_new(
            root, "chips",
            json_pack("{s:I, s:I, s:I, s:s, s:b, s:{s:I, s:I, s:s}, s:{s:f, s:I, s:s, s:f, s:f, s:f, s:f}}",
                      "count", (json_int_t)c->count, "page_bytes", (json_int_t)c->page_bytes,
                      "channels", (json_int_t)c->channels, "llc", gcr_llc_org_name(c->llc),
                      "shadow", c->shadow, "crd", "sets", (json_int_t)c->crd_sets, "ways",
                      (json_int_t)c->crd_ways, "at", crd_at_names[c->crd_at_requester], "eab", "theta", c->theta, "profile_requests",
                      (json_int_t)c->profile_requests, "lsu_scope",
                      lsu_scope_names[c->lsu_per_chip], "intra_gbs", c->bw.intra, "inter_gbs",
                      c->bw.inter, "llc_gbs", c->bw.llc, "mem_gbs", c->bw.mem));
    /* Only a timing run shows its timing section, so functional reports stay
     * as they were before the timing backend existed. */
    if (root && cfg->timing.enabled)
        json_object_set_new(root, "timing", gcr_timing_config_to_json(&cfg->timing));
    return root;
}

json_t *gcr_timing_config_to_json(const struct gcr_timing_config *t)
{
    json_t *units = json_pack("{s:I}", "pipeline", (json_int_t)t->unit_pipeline);
    for (int u = GCR_UNIT_NONE + 1; units && u < GCR_UNIT_COUNT; u++)
        json_object_set_new(units, gcr_unit_name((enum gcr_unit)u),
                            json_pack("{s:I, s:I, s:I}", "latency",
                                      (json_int_t)t->units[u].latency, "initiation",
                                      (json_int_t)t->units[u].initiation, "count",
                                      (json_int_t)t->units[u].count));
    if (!units)
        return NULL;
    json_t *out = json_pack(
        "{s:b, s:{s:f, s:f, s:f, s:f}, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I}, "
        "s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:I, s:I, s:I, s:I, s:I, "
        "s:{s:b, s:I, s:I, s:I, s:I, s:I, s:I}, s:{s:f, s:f, s:I, s:I}}",
        "enabled", t->enabled, "clocks_mhz", "core", t->core_mhz, "noc", t->noc_mhz, "l2",
        t->l2_mhz, "dram", t->dram_mhz, "issue_per_cycle", (json_int_t)t->issue_per_cycle,
        "kernel_launch_latency", (json_int_t)t->kernel_launch_latency, "latency", "alu",
        (json_int_t)t->alu_latency, "shared", (json_int_t)t->shared_latency, "l1",
        (json_int_t)t->l1_latency, "noc", (json_int_t)t->noc_latency, "l2",
        (json_int_t)t->l2_latency, "dram", (json_int_t)t->dram_latency, "bandwidth",
        "noc_port_bytes", (json_int_t)t->noc_port_bytes, "l2_slice_bytes",
        (json_int_t)t->l2_slice_bytes, "dram_channel_bytes", (json_int_t)t->dram_channel_bytes,
        "link_bytes", (json_int_t)t->link_bytes, "shared_bytes", (json_int_t)t->shared_bytes,
        "header_bytes", (json_int_t)t->header_bytes,
        "dram_channels", (json_int_t)t->dram_channels, "resource_gaps",
        (json_int_t)t->resource_gaps, "l1_mshrs", (json_int_t)t->l1_mshrs, "l1_banks",
        (json_int_t)t->l1_banks, "l1_miss_queue", (json_int_t)t->l1_miss_queue,
        "dram_rows", "enabled", t->dram_rows, "banks", (json_int_t)t->dram_banks, "row_bytes",
        (json_int_t)t->dram_row_bytes, "tRCD", (json_int_t)t->t_rcd, "tRP", (json_int_t)t->t_rp,
        "CL", (json_int_t)t->t_cl, "tRAS", (json_int_t)t->t_ras, "vws", "alpha", t->vws_alpha, "beta", t->vws_beta,
        "amt_entries", (json_int_t)t->vws_amt_entries, "level1_warps",
        (json_int_t)t->vws_level1_warps);
    if (out) {
        json_object_set_new(out, "units", units);
        json_object_set_new(out, "l2_max_merge", json_integer((json_int_t)t->l2_max_merge));
    }
    else
        json_decref(units);
    return out;
}

uint32_t gcr_config_l1_ways_for(const struct gcr_config *cfg, uint64_t launch,
                                uint64_t shmem_per_sm)
{
    if (!cfg->l1_unified_bytes)
        return cfg->l1.ways;
    uint64_t way_bytes = (uint64_t)cfg->l1.sets * cfg->line_bytes;
    if (launch < cfg->l1_carveout_count) {
        uint64_t ways = (cfg->l1_unified_bytes - cfg->l1_carveouts[launch] + way_bytes / 2) /
                        way_bytes;
        return ways ? (uint32_t)ways : 1;
    }
    /* GPGPU-Sim (shader_core_config::max_cta): the smallest option that holds
     * the shared memory of the CTAs resident on an SM; the L1 keeps the rest of
     * the unified array, in ways of the configured sets and line size, rounded
     * to the nearest way. */
    uint64_t option = cfg->l1_shmem_options[cfg->l1_shmem_option_count - 1];
    for (uint32_t i = 0; i < cfg->l1_shmem_option_count; i++)
        if (cfg->l1_shmem_options[i] >= shmem_per_sm) {
            option = cfg->l1_shmem_options[i];
            break;
        }
    uint64_t ways = (cfg->l1_unified_bytes - option + way_bytes / 2) / way_bytes;
    return ways ? (uint32_t)ways : 1;
}
