/* Replication analysis: tiny traces whose replication is known by construction. */

#include "replay/replay_util.h"

#define A 0x100000ull
#define STORE(t, cta, mask, base) \
    tb_access(t, cta, 0, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, mask, base, 4)


#define P "kernels.0.analyses.replication."
#define T "total.analyses.replication."

/* n one-warp CTAs (one per SM, round-robin); CTA c loads `lines` lines from
 * base + c * stride (stride 0: every CTA reads the same array). */
static void stream_trace(struct tb *t, const char *name, uint32_t n, uint32_t lines,
                         uint64_t stride)
{
    tb_open(t, name);
    tb_kernel(t, 1, n, 32, 0, 0);
    for (uint32_t c = 0; c < n; c++)
        for (uint32_t i = 0; i < lines; i++)
            tb_load(t, c, 0, A + c * stride + i * 128);
    tb_end(t, 1);
    tb_close(t);
}

static json_t *run(uint32_t sms, const char *l1d, const char *path)
{
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"gpu\": {\"sms\": %u}, \"l1d\": {%s}, \"analyses\": {\"replication\": {}}}", sms,
             l1d);
    return must_replay(cfg, path);
}

/* N SMs reading one array: the first miss on each line finds no copy, the
 * N-1 others find one; every line ends with N copies installed at one step. */
static void shared_array(uint32_t n)
{
    struct tb t;
    stream_trace(&t, "repl-shared", n, 10, 0);
    json_t *r = run(n, "\"sets\": 4, \"ways\": 4", t.path);
    CHECK_EQ_U(jget(r, P "misses.reads"), 10 * n);
    CHECK_EQ_U(jget(r, P "misses.writes"), 0);
    CHECK_EQ_U(jget(r, P "replicated_misses.reads"), 10 * (n - 1));
    CHECK_REAL(r, P "replication_ratio.reads", (double)(n - 1) / n);
    CHECK_REAL(r, P "replication_ratio.all", (double)(n - 1) / n);
    /* No write missed: the write ratio is undefined (null, which jreal reads as -1). */
    CHECK_REAL(r, P "replication_ratio.writes", -1.0);
    CHECK_REAL(r, P "copies_per_resident_line", n);
    CHECK_REAL(r, P "replicas_per_resident_line", n - 1);
    CHECK_REAL(r, P "copies_per_line", n);
    CHECK_REAL(r, P "replicas_per_line", n - 1);
    CHECK_EQ_U(jget(r, P "lines_resident"), 10);
    CHECK_EQ_U(jget(r, P "max_copies"), n);
    CHECK_REAL(r, P "replicated_fraction", n > 1 ? 1.0 : 0.0);
    CHECK_EQ_U(jget(r, T "replicated_misses.all"), 10 * (n - 1));
    CHECK_REAL(r, T "copies_per_resident_line", n);
    json_decref(r);
    unlink(t.path);
}

/* Disjoint streams: no miss finds its line elsewhere; one copy per line. */
static void disjoint(void)
{
    struct tb t;
    stream_trace(&t, "repl-disjoint", 4, 10, 0x10000);
    json_t *r = run(4, "\"sets\": 4, \"ways\": 4", t.path);
    CHECK_EQ_U(jget(r, P "misses.all"), 40);
    CHECK_EQ_U(jget(r, P "replicated_misses.all"), 0);
    CHECK_REAL(r, P "replication_ratio.all", 0.0);
    CHECK_REAL(r, P "copies_per_resident_line", 1.0);
    CHECK_REAL(r, P "copies_per_line", 1.0);
    CHECK_REAL(r, P "replicated_fraction", 0.0);
    CHECK_EQ_U(jget(r, P "lines_resident"), 40);
    CHECK_EQ_U(jget(r, P "max_copies"), 1);
    json_decref(r);
    unlink(t.path);
}

/* One-line L1s: two SMs alternate over lines 0 and 1 in lockstep. Each access
 * evicts the SM's previous line, so the first SM never finds a copy elsewhere
 * (the other SM still holds the previous line) and the second always does.
 * Evictions must be tracked, or stale copies would count. */
static void evictions(void)
{
    struct tb t;
    tb_open(&t, "repl-evict");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t i = 0; i < 6; i++)
            tb_load(&t, c, 0, A + (i % 2) * 128);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(2, "\"sets\": 1, \"ways\": 1", t.path);
    CHECK_EQ_U(jget(r, P "misses.reads"), 12);
    CHECK_EQ_U(jget(r, P "replicated_misses.reads"), 6);
    CHECK_REAL(r, P "copies_per_resident_line", 2.0);
    CHECK_EQ_U(jget(r, P "max_copies"), 2);
    json_decref(r);
    unlink(t.path);
}

/* Reads and writes apart (write-evict, no write allocation), 4 SMs:
 *   load sector 0 of line 0:  4 read misses, 3 find a copy;
 *   store sector 3 of line 0: 4 write (sector) misses, each invalidating its
 *     own copy, so all but the last to write find a copy: 3;
 *   store to line 1 (never resident): 4 write misses, none replicated. */
static void reads_writes(void)
{
    struct tb t;
    tb_open(&t, "repl-rw");
    tb_kernel(&t, 1, 4, 32, 0, 0);
    for (uint32_t c = 0; c < 4; c++) {
        tb_access(&t, c, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffu, A, 4);
        STORE(&t, c, 0xffu, A + 96);
        STORE(&t, c, 0xffu, A + 128);
    }
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(4, "\"sets\": 4, \"ways\": 4", t.path);
    CHECK_EQ_U(jget(r, P "misses.reads"), 4);
    CHECK_EQ_U(jget(r, P "misses.writes"), 8);
    CHECK_EQ_U(jget(r, P "misses.all"), 12);
    CHECK_EQ_U(jget(r, P "replicated_misses.reads"), 3);
    CHECK_EQ_U(jget(r, P "replicated_misses.writes"), 3);
    CHECK_REAL(r, P "replication_ratio.reads", 0.75);
    CHECK_REAL(r, P "replication_ratio.writes", 3.0 / 8);
    CHECK_REAL(r, P "replication_ratio.all", 0.5);
    json_decref(r);
    unlink(t.path);
}

/* Two kernels: per-kernel figures restart, the total adds them; with the L1s
 * kept across kernels, the second kernel's lines are already resident (hits). */
static void two_kernels(void)
{
    struct tb t;
    tb_open(&t, "repl-2k");
    for (uint32_t k = 1; k <= 2; k++) {
        tb_kernel(&t, k, 2, 32, 0, 0);
        for (uint32_t c = 0; c < 2; c++)
            for (uint32_t i = 0; i < 3; i++)
                tb_load(&t, c, 0, A + i * 128);
        tb_end(&t, k);
    }
    tb_close(&t);
    json_t *r = run(2, "\"sets\": 4, \"ways\": 4", t.path);
    CHECK_EQ_U(jget(r, "kernels.0.analyses.replication.misses.all"), 6);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.replication.misses.all"), 6);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.replication.replicated_misses.all"), 3);
    CHECK_EQ_U(jget(r, T "misses.all"), 12);
    CHECK_EQ_U(jget(r, T "replicated_misses.all"), 6);
    CHECK_EQ_U(jget(r, T "lines_resident"), 6);
    CHECK_REAL(r, T "copies_per_line", 2.0);
    json_decref(r);

    r = run(2, "\"sets\": 4, \"ways\": 4, \"invalidate_at_kernel_end\": false", t.path);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.replication.misses.all"), 0);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.replication.lines_resident"), 3);
    CHECK_REAL(r, "kernels.1.analyses.replication.copies_per_line", 2.0);
    CHECK_REAL(r, "kernels.1.analyses.replication.copies_per_resident_line", 2.0);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.replication.max_copies"), 2);
    json_decref(r);
    unlink(t.path);
}

/* Different residence times: line 0 is held by both SMs from the first step,
 * line 1 only by SM 0 and only from its second instruction, so the per-line
 * and the per-resident-line averages differ in a known way. */
static void averages(void)
{
    struct tb t;
    tb_open(&t, "repl-avg");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 0, A + 128);
    tb_load(&t, 1, 0, A);
    tb_load(&t, 1, 0, A);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(2, "\"sets\": 4, \"ways\": 4", t.path);
    /* Step s0: both SMs install line 0; s0+1: SM 0 installs line 1. The kernel
     * ends at step e, so line 0 has 2 copies for (e - s0) steps and line 1
     * one copy for (e - s0 - 1) steps. */
    long long steps = jget(r, P "steps");
    CHECK(steps >= 2);
    double d0 = (double)steps, d1 = (double)(steps - 1);
    CHECK_REAL(r, P "copies_per_resident_line", (2 * d0 + d1) / (d0 + d1));
    CHECK_REAL(r, P "copies_per_line", 1.5);
    CHECK_REAL(r, P "replicated_fraction", 2 * d0 / (2 * d0 + d1));
    CHECK_REAL(r, P "resident_copies_avg", (2 * d0 + d1) / d0);
    CHECK_REAL(r, P "replicated_copies_avg", 2.0);
    json_decref(r);
    unlink(t.path);
}

/* A line that leaves every L1 and comes back in the same kernel is one line
 * whose copies are averaged over both stays, not two lines. One-line L1s:
 *   CTA 0 (SM 0): A, B, A      CTA 1 (SM 1): A, B, C
 * step s0: A has 2 copies; s0+1: both SMs replace A by B (A has none, B 2);
 * s0+2: SM 0 brings A back (1 copy), SM 1 replaces B by C (1 copy). With the
 * kernel ending n = steps - 2 steps later: a(A) = (2*1 + 1*n) / (1 + n),
 * a(B) = 2, a(C) = 1, three lines. */
static void line_returns(void)
{
    struct tb t;
    tb_open(&t, "repl-return");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    const uint64_t lines[2][3] = {{A, A + 128, A}, {A, A + 128, A + 256}};
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t i = 0; i < 3; i++)
            tb_load(&t, c, 0, lines[c][i]);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(2, "\"sets\": 1, \"ways\": 1", t.path);
    long long steps = jget(r, P "steps");
    CHECK(steps >= 3);
    double n = (double)(steps - 2);
    CHECK_EQ_U(jget(r, P "lines_resident"), 3);
    CHECK_REAL(r, P "copies_per_line", ((2 + n) / (1 + n) + 2 + 1) / 3);
    CHECK_EQ_U(jget(r, P "max_copies"), 2);
    json_decref(r);
    unlink(t.path);
}

/* Lines that leave and return many times in one kernel: more stays (75000)
 * than the log takes before it starts merging (65536 for these tiny L1s), so
 * stays are merged by line while the kernel runs. Two SMs with one-line L1s read lines 0..L-1 in lockstep, R
 * times over: every stay has 2 copies, each line is one line however often
 * it returned. */
static void many_returns(void)
{
    enum { L = 3000, R = 25 };
    struct tb t;
    tb_open(&t, "repl-many-returns");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t i = 0; i < L * R; i++)
            tb_load(&t, c, 0, A + (i % L) * 128);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(2, "\"sets\": 1, \"ways\": 1", t.path);
    CHECK_EQ_U(jget(r, P "misses.reads"), 2 * L * R);
    CHECK_EQ_U(jget(r, P "lines_resident"), L);
    CHECK_REAL(r, P "copies_per_line", 2.0);
    CHECK_REAL(r, P "copies_per_resident_line", 2.0);
    CHECK_EQ_U(jget(r, T "lines_resident"), L);
    json_decref(r);
    unlink(t.path);
}

/* More holders than an entry keeps inline (4): six SMs with one-line L1s,
 * each CTA c loading X, Y_c, X, Z_c in lockstep. X has 6 copies for one step,
 * leaves every L1, comes back with 6 copies for one step (its holders move to
 * a bitset twice, the second time reusing the first one's) and leaves again:
 * a(X) = 6, a(Y_c) = a(Z_c) = 1, 13 lines; each round of X has 5 misses that
 * find a copy. */
static void wide_holders(void)
{
    struct tb t;
    tb_open(&t, "repl-wide");
    tb_kernel(&t, 1, 6, 32, 0, 0);
    for (uint32_t c = 0; c < 6; c++) {
        tb_load(&t, c, 0, A);
        tb_load(&t, c, 0, A + (1 + c) * 128);
        tb_load(&t, c, 0, A);
        tb_load(&t, c, 0, A + (7 + c) * 128);
    }
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(6, "\"sets\": 1, \"ways\": 1", t.path);
    CHECK_EQ_U(jget(r, P "misses.reads"), 24);
    CHECK_EQ_U(jget(r, P "replicated_misses.reads"), 10);
    CHECK_EQ_U(jget(r, P "lines_resident"), 13);
    CHECK_REAL(r, P "copies_per_line", 18.0 / 13);
    CHECK_EQ_U(jget(r, P "max_copies"), 6);
    json_decref(r);
    unlink(t.path);
}

static void bad_options(void)
{
    struct tb t;
    stream_trace(&t, "repl-opt", 1, 1, 0);
    struct gcr_err err = {0};
    CHECK(replay_with("{\"analyses\": {\"replication\": {\"bogus\": 1}}}", t.path, &err) == NULL);
    CHECK_STR_CONTAINS(err.msg, "$.analyses.replication.bogus");
    unlink(t.path);
}

int main(void)
{
    (void)tb_nonmem; /* replay_util.h helpers this test does not use */
    (void)tb_load;
    shared_array(4);
    shared_array(100); /* more than 4 copies: a pool bitset of two words per line */
    shared_array(1);
    disjoint();
    evictions();
    reads_writes();
    two_kernels();
    averages();
    line_returns();
    many_returns();
    wide_holders();
    bad_options();
    CHECK_DONE();
}
