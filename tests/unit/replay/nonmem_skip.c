/* Timing mode's skip through long runs of non-memory instructions (skip_nonmem_timed in
 * src/replay/replay.c) gives exactly the report of issuing them one by one. The same random
 * traces are written twice: with each run as one record, which the skip takes, and split into
 * records of at most 40 instructions, which it never takes (a warp must have more instructions
 * left in its current record than a try's steps). Every warp policy, clocks that make the
 * cycles fractional, several SMs whose memory accesses interleave with the skipping ones. Then
 * a warp issuing 2 x (2^32 - 1) non-memory instructions replays at once. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "replay_util.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t below(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void compute(struct tb *t, uint32_t cta, uint32_t warp, uint32_t n, bool split)
{
    while (n) {
        uint32_t part = split && n > 40 ? 40 : n;
        tb_nonmem(t, cta, warp, part);
        n -= part;
    }
}

/* One random kernel: per warp, memory accesses between runs of up to 6000 non-memory
 * instructions; the generator restarts from `seed` for both spellings. */
static void write_trace(struct tb *t, const char *name, uint64_t seed, bool split)
{
    rng = seed;
    uint32_t ctas = 1 + below(10), warps = 1 + below(6);
    tb_open(t, name);
    tb_kernel(t, 1, ctas, 32 * warps, 0, 0);
    for (uint32_t c = 0; c < ctas; c++)
        for (uint32_t w = 0; w < warps; w++) {
            uint32_t segments = 1 + below(5);
            for (uint32_t k = 0; k < segments; k++) {
                if (below(3))
                    compute(t, c, w, 1 + below(6000), split);
                if (below(4))
                    tb_access(t, c, w, below(3) ? GCR_OP_LOAD : GCR_OP_STORE,
                              GCR_SPACE_GLOBAL, 4, 0xffffffffu,
                              0x100000ull + 128ull * below(300), 4);
            }
            if (!segments || below(2))
                tb_load(t, c, w, 0x200000ull + 128ull * w);
        }
    tb_end(t, 1);
    tb_close(t);
}

static const char *const configs[] = {
    "{\"gpu\": {\"sms\": 3, \"max_ctas_per_sm\": 2}, \"timing\": {\"enabled\": true}, "
    "\"scheduling\": {\"warp_policy\": \"lrr\"}}",
    "{\"gpu\": {\"sms\": 3, \"max_ctas_per_sm\": 2}, \"timing\": {\"enabled\": true, "
    "\"issue_per_cycle\": 1}, \"scheduling\": {\"warp_policy\": \"gto\"}}",
    "{\"gpu\": {\"sms\": 2, \"max_ctas_per_sm\": 3}, \"timing\": {\"enabled\": true, "
    "\"clocks_mhz\": {\"core\": 1417, \"l2\": 1000, \"dram\": 877}, \"latency\": {\"alu\": 7}},"
    " \"scheduling\": {\"warp_policy\": \"vws\"}}",
    "{\"gpu\": {\"sms\": 4, \"max_ctas_per_sm\": 1}, \"timing\": {\"enabled\": true, "
    "\"issue_per_cycle\": 2, \"clocks_mhz\": {\"core\": 1530.3, \"noc\": 1111}}, "
    "\"scheduling\": {\"warp_policy\": \"gto\"}}",
};

static void same_as_one_by_one(void)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        struct tb whole, split;
        write_trace(&whole, "skip-whole", seed * 0x2545f4914f6cdd1dull, false);
        write_trace(&split, "skip-split", seed * 0x2545f4914f6cdd1dull, true);
        for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
            json_t *a = must_replay(configs[i], whole.path), *b = must_replay(configs[i], split.path);
            bool same = json_equal(json_object_get(a, "kernels"), json_object_get(b, "kernels")) &&
                        json_equal(json_object_get(a, "total"), json_object_get(b, "total"));
            if (!same) {
                fprintf(stderr, "seed %llu, config %zu: cycles %lld skipping, %lld one by one\n",
                        (unsigned long long)seed, i, jget(a, "total.timing.cycles"),
                        jget(b, "total.timing.cycles"));
                check_failures++;
            }
            json_decref(a);
            json_decref(b);
        }
        unlink(whole.path);
        unlink(split.path);
    }
}

/* 8.6 billion instructions of one warp: minutes one by one, at once here. */
static void longest_runs(void)
{
    struct tb t;
    tb_open(&t, "skip-longest");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_load(&t, 0, 0, 0x1000);
    tb_nonmem(&t, 0, 0, UINT32_MAX);
    tb_nonmem(&t, 0, 0, UINT32_MAX);
    tb_load(&t, 0, 0, 0x2000);
    tb_end(&t, 1);
    tb_close(&t);
    /* Whole cycles, then fractional ones (skipped a binade at a time). */
    const struct {
        const char *config;
        long long alu;
    } runs[] = {{configs[0], 4}, {configs[2], 7}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        json_t *r = must_replay(runs[i].config, t.path);
        CHECK_EQ_U(jget(r, "total.timing.warp_instructions"), 2ull * UINT32_MAX + 2);
        /* One warp: each instruction waits out the ALU latency of the one before. */
        long long least = runs[i].alu * 2ll * UINT32_MAX;
        CHECK(jget(r, "total.timing.cycles") > least);
        CHECK(jget(r, "total.timing.cycles") < least + 100000);
        json_decref(r);
    }
    unlink(t.path);
}

int main(void)
{
    same_as_one_by_one();
    longest_runs();
    return check_failures ? 1 : 0;
}
