/* The three equivalences of the DC-L1 designs, on stored Accel-Sim traces
 * (../shared/traces: the two launches of jacobi2d, sgemm_tiled), comparing
 * whole reports: every
 * kernel and the total, all L1D/L2/traffic counters and every analysis.
 *   PrY with Y = cores      == private L1s (the DC-L1 section aside);
 *   ShY+CZ with Z = Y       == PrY          (the DC-L1 section's mode aside);
 *   ShY+C1                  == ShY          (the same).
 * Each is checked under two setups: the Volta example (write-through, LRU,
 * line requests; jacobi2d, whose L1s are flushed between its launches) and a
 * small write-back L1 with seeded random replacement, sector requests, a
 * unified L1/shared carve-out (which resizes the L1s) and every analysis
 * (sgemm_tiled). Under the sanitizers each replay costs about a second, so
 * the setups share the work rather than repeat all of it. */
/* replay_util.h is a file of static helpers for trace-building tests; this
 * one replays a stored trace and uses only a few of them. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "replay/replay_util.h"

#define TRACES GCR_SHARED_ROOT "/traces/accelsim/"

#define ANALYSES                                                                           \
    "\"analyses\": {\"replication\": {}, \"line_utilisation\": {}, \"sharing\": {},"        \
    " \"locality\": {\"cluster_size\": 4}, \"reuse_distance\": {}, \"miss_classes\": {}}"

static const struct {
    const char *trace, *config;
} setups[] = {
    /* The Volta example's L1 and L2. */
    {"jacobi2d", "{\"gpu\": {\"sms\": 80},"
    " \"l1d\": {\"sets\": 4, \"ways\": 256, \"write_policy\": \"write_through\","
    " \"write_allocate\": \"validate\", \"organization\": \"%s\"%s},"
    " \"l2\": {\"slices\": 64, \"slice_hash\": \"xor\", \"sets\": 32, \"ways\": 24,"
    " \"index\": \"ipoly\"}}"},
    /* Small write-back L1s that evict often, random replacement, sector
     * requests, and a 16-KB unified L1/shared array: sgemm's 6 CTAs of 2 KB
     * take the 8-KB option, leaving the L1 16 ways instead of the configured
     * 8, so kernel_begin resizes every L1 (node). */
    {"sgemm_tiled", "{\"gpu\": {\"sms\": 80}, \"coalescer\": {\"granularity\": \"sector\"}, "
     ANALYSES ","
    " \"l1d\": {\"sets\": 4, \"ways\": 8, \"write_policy\": \"write_back\","
    " \"replacement\": \"random\", \"adaptive\": {\"unified_bytes\": 16384,"
    " \"shmem_options_bytes\": [0, 8192]}, \"organization\": \"%s\"%s},"
    " \"l2\": {\"slices\": 32, \"sets\": 16, \"ways\": 8}}"},
};

static size_t setup;

static json_t *run(const char *org, const char *dcl1)
{
    char cfg[2048], opts[256] = "", trace[512];
    if (dcl1)
        snprintf(opts, sizeof opts, ", \"dcl1\": %s", dcl1);
    snprintf(cfg, sizeof cfg, setups[setup].config, org, opts);
    snprintf(trace, sizeof trace, "%s%s", TRACES, setups[setup].trace);
    return must_replay(cfg, trace);
}

/* Prints the first path where a and b differ; 1 if they are equal. */
static int same(const json_t *a, const json_t *b, const char *path)
{
    if (json_equal((json_t *)a, (json_t *)b))
        return 1;
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s.%s", path, k);
            if (!same(v, json_object_get(b, k), sub))
                return 0;
        }
        if (json_object_size(a) != json_object_size(b))
            fprintf(stderr, "%s: keys differ\n", path);
        return 0;
    }
    if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
        for (size_t i = 0; i < json_array_size(a); i++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            if (!same(json_array_get(a, i), json_array_get(b, i), sub))
                return 0;
        }
    }
    char *x = json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT);
    char *y = json_dumps(b, JSON_ENCODE_ANY | JSON_COMPACT);
    fprintf(stderr, "%s: %.200s != %.200s\n", path, x ? x : "(none)", y ? y : "(none)");
    free(x);
    free(y);
    return 0;
}

/* Every kernel and the total, after removing what the designs may differ in. */
static int same_results(json_t *a, json_t *b, const char *what)
{
    fprintf(stderr, "%s\n", what);
    return same(json_object_get(a, "kernels"), json_object_get(b, "kernels"), "kernels") &&
           same(json_object_get(a, "total"), json_object_get(b, "total"), "total");
}

static json_t *dcl1_section(json_t *report)
{
    return json_object_get(json_object_get(json_object_get(report, "total"), "L1D"), "dcl1");
}

/* Names the design as the report of the design it must equal does. */
static void rename_mode(json_t *report, const char *mode)
{
    json_t *d = dcl1_section(report);
    json_object_set_new(d, "mode", json_string(mode));
    json_object_set_new(json_object_get(d, "summary"), "mode", json_string(mode));
}

int main(void)
{
    for (setup = 0; setup < sizeof setups / sizeof *setups; setup++) {
        json_t *priv = run("private", NULL);
        json_t *pr80 = run("dcl1", "{\"mode\": \"pr\", \"nodes\": 80}");
        CHECK(dcl1_section(pr80) != NULL);
        CHECK(json_integer_value(json_object_get(json_object_get(dcl1_section(pr80), "noc1"),
                                                 "bytes")) > 0);
        json_object_del(json_object_get(json_object_get(pr80, "total"), "L1D"), "dcl1");
        CHECK(same_results(priv, pr80, "Pr80 == private"));
        /* The trace gives the caches real work. */
        CHECK(jget(priv, "total.L1D.misses") > 1000);
        CHECK(jget(priv, "total.L2.accesses") > 1000);
        if (setup == 1)
            CHECK_EQ_U(jget(priv, "kernels.0.l1d_ways"), 16);

        /* The comparison does see a different organisation. */
        json_t *pr40 = run("dcl1", "{\"mode\": \"pr\", \"nodes\": 40}");
        CHECK(jget(pr40, "total.L1D.misses") != jget(priv, "total.L1D.misses"));

        json_t *c40 = run("dcl1", "{\"mode\": \"shc\", \"nodes\": 40, \"clusters\": 40}");
        rename_mode(c40, "pr");
        CHECK(same_results(pr40, c40, "Sh40+C40 == Pr40"));

        json_t *sh40 = run("dcl1", "{\"mode\": \"sh\", \"nodes\": 40}");
        json_t *c1 = run("dcl1", "{\"mode\": \"shc\", \"nodes\": 40, \"clusters\": 1}");
        rename_mode(c1, "sh");
        CHECK(same_results(sh40, c1, "Sh40+C1 == Sh40"));
        /* One copy of each line in ShY. */
        CHECK_EQ_U(jget(sh40, "total.L1D.dcl1.copies_at_kernel_end.max"), 1);
        CHECK(jget(sh40, "total.L1D.misses") != jget(pr40, "total.L1D.misses"));

        json_t *all[] = {priv, pr80, pr40, c40, sh40, c1};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++)
            json_decref(all[i]);
        if (setup > 0)
            continue;

        /* Interleaved assignment: PrY's core -> node is ShY+CY's core -> cluster. */
        json_t *pr20i = run("dcl1", "{\"mode\": \"pr\", \"nodes\": 20,"
                                    " \"assignment\": \"interleaved\"}");
        json_t *c20i = run("dcl1", "{\"mode\": \"shc\", \"nodes\": 20, \"clusters\": 20,"
                                   " \"assignment\": \"interleaved\"}");
        rename_mode(c20i, "pr");
        CHECK(same_results(pr20i, c20i, "Sh20+C20 == Pr20 (interleaved)"));

        /* Clustering keeps at most Z copies. */
        json_t *c10 = run("dcl1", "{\"mode\": \"shc\", \"nodes\": 40, \"clusters\": 10}");
        CHECK(jget(c10, "total.L1D.dcl1.copies_at_kernel_end.max") <= 10);
        CHECK(jget(c10, "total.L1D.dcl1.copies_at_kernel_end.max") > 1);
        json_decref(pr20i);
        json_decref(c20i);
        json_decref(c10);
    }
    CHECK_DONE();
}
