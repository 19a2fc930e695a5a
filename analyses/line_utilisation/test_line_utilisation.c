/* Line utilisation analysis: lines leaving an L1 with a known number of used sectors. */

#include "replay/replay_util.h"

#define A 0x100000ull
#define P "kernels.0.analyses.line_utilisation."
#define T "total.analyses.line_utilisation."


/* A load of `sectors` consecutive 32-B sectors from the start of a line. */
static void load_sectors(struct tb *t, uint32_t cta, uint64_t line, uint32_t sectors)
{
    uint32_t lanes = sectors * 8;
    tb_access(t, cta, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4,
              lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1u, line, 4);
}

static json_t *run(const char *l1d, const char *path)
{
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"gpu\": {\"sms\": 1}, \"l1d\": {%s}, \"analyses\": {\"line_utilisation\": {}}}",
             l1d);
    return must_replay(cfg, path);
}

/* Lines 0..4 used by 0 (never: not loaded), 1, 2, 3 and 4 sectors; all leave
 * at the kernel's end. */
static void histogram(void)
{
    struct tb t;
    tb_open(&t, "lu-hist");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    for (uint32_t s = 1; s <= 4; s++)
        load_sectors(&t, 0, A + s * 128, s);
    tb_end(&t, 1);
    tb_close(&t);

    /* Non-sectored: every miss fetches the whole line (4 sectors). */
    json_t *r = run("\"sectored\": false", t.path);
    CHECK_EQ_U(jget(r, P "lines"), 4);
    CHECK_EQ_U(jget(r, P "sectors_per_line"), 4);
    CHECK_EQ_U(jget(r, P "histogram.0"), 0);
    CHECK_EQ_U(jget(r, P "histogram.0-25"), 1);
    CHECK_EQ_U(jget(r, P "histogram.25-50"), 1);
    CHECK_EQ_U(jget(r, P "histogram.50-75"), 1);
    CHECK_EQ_U(jget(r, P "histogram.75-100"), 1);
    CHECK_EQ_U(jget(r, P "histogram_by_reason.kernel_end_invalidated.0-25"), 1);
    CHECK_EQ_U(jget(r, P "histogram_by_reason.replaced.0-25"), 0);
    CHECK_REAL(r, P "histogram_fraction.0-25", 0.25);
    CHECK_EQ_U(jget(r, P "bytes_valid"), 4 * 128);
    CHECK_EQ_U(jget(r, P "bytes_used"), (1 + 2 + 3 + 4) * 32);
    CHECK_EQ_U(jget(r, P "bytes_unused"), (3 + 2 + 1 + 0) * 32);
    CHECK_REAL(r, P "unused_fraction", 6.0 / 16);
    CHECK_EQ_U(jget(r, T "lines"), 4);
    json_decref(r);

    /* Sectored: only the requested sectors are fetched, so nothing fetched
     * goes unused; the histogram is the same. */
    r = run("\"sectored\": true", t.path);
    CHECK_EQ_U(jget(r, P "histogram.0-25"), 1);
    CHECK_EQ_U(jget(r, P "histogram.75-100"), 1);
    CHECK_EQ_U(jget(r, P "bytes_valid"), 10 * 32);
    CHECK_EQ_U(jget(r, P "bytes_unused"), 0);
    CHECK_REAL(r, P "unused_fraction", 0.0);
    json_decref(r);
    unlink(t.path);
}

/* One-line L1: line 0 (1 sector) is replaced by line 1 (4 sectors); a store
 * to sector 3 of line 1 invalidates it (write-evict); line 2 (2 sectors)
 * leaves at the kernel's end. A second kernel loads one sector of line 3:
 * per-kernel counts restart, the total adds them. */
static void reasons(void)
{
    struct tb t;
    tb_open(&t, "lu-why");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    load_sectors(&t, 0, A, 1);
    load_sectors(&t, 0, A + 128, 4);
    tb_access(&t, 0, 0, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0xffu, A + 128 + 96, 4);
    load_sectors(&t, 0, A + 256, 2);
    tb_end(&t, 1);
    tb_kernel(&t, 2, 1, 32, 0, 0);
    load_sectors(&t, 0, A + 384, 1);
    tb_end(&t, 2);
    tb_close(&t);

    json_t *r = run("\"sets\": 1, \"ways\": 1, \"sectored\": false", t.path);
    CHECK_EQ_U(jget(r, P "lines"), 3);
    CHECK_EQ_U(jget(r, P "histogram_by_reason.replaced.0-25"), 1);
    CHECK_EQ_U(jget(r, P "histogram_by_reason.write_invalidated.75-100"), 1);
    CHECK_EQ_U(jget(r, P "histogram_by_reason.kernel_end_invalidated.25-50"), 1);
    CHECK_EQ_U(jget(r, P "bytes_valid"), 3 * 128);
    CHECK_EQ_U(jget(r, P "bytes_unused"), (3 + 0 + 2) * 32);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.line_utilisation.lines"), 1);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.line_utilisation.histogram.0-25"), 1);
    CHECK_EQ_U(jget(r, T "lines"), 4);
    CHECK_EQ_U(jget(r, T "histogram.0-25"), 2);
    CHECK_EQ_U(jget(r, T "bytes_unused"), (3 + 0 + 2 + 3) * 32);
    CHECK_REAL(r, T "unused_fraction", 8.0 / 16);
    json_decref(r);
    unlink(t.path);
}

/* 64-B lines of two sectors: used 1 of 2 is 50 %, in (25,50]. */
static void two_sectors(void)
{
    struct tb t;
    tb_open(&t, "lu-64");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    load_sectors(&t, 0, A, 1);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay("{\"gpu\": {\"sms\": 1}, \"coalescer\": {\"line_bytes\": 64},"
                            " \"l1d\": {\"sectored\": false},"
                            " \"analyses\": {\"line_utilisation\": {}}}", t.path);
    CHECK_EQ_U(jget(r, P "sectors_per_line"), 2);
    CHECK_EQ_U(jget(r, P "histogram.25-50"), 1);
    CHECK_EQ_U(jget(r, P "bytes_unused"), 32);
    json_decref(r);
    unlink(t.path);
}

static void bad_options(void)
{
    struct tb t;
    tb_open(&t, "lu-opt");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    load_sectors(&t, 0, A, 1);
    tb_end(&t, 1);
    tb_close(&t);
    struct gcr_err err = {0};
    CHECK(replay_with("{\"analyses\": {\"line_utilisation\": {\"bins\": 4}}}", t.path, &err) ==
          NULL);
    CHECK_STR_CONTAINS(err.msg, "$.analyses.line_utilisation.bins");
    unlink(t.path);
}

int main(void)
{
    (void)tb_nonmem; /* replay_util.h helpers this test does not use */
    (void)tb_load;
    histogram();
    reasons();
    two_sectors();
    bad_options();
    CHECK_DONE();
}
