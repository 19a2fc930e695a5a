/* Timing backend: cycle counts computed by hand on tiny traces. */
#include "../replay/replay_util.h"
#include "timing/vws.h"

#define A 0x100000ull

/* One SM, one L2 slice, every clock 1 GHz, no headers. Each line's chain:
 * L1 lookup 10, NoC 5 each way, L2 20, DRAM 50 plus 128 B / 32 B per cycle,
 * and 1 cycle (128 B at 128 B/cycle) at each of L2 data array, slice output
 * port and SM ejection port on the way back. `extra` adds timing keys. */
static char *cfg_with(const char *extra, const char *scheduling, const char *l1, int dram_bytes)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"gpu\": {\"sms\": 1, \"max_ctas_per_sm\": 8},"
             " \"scheduling\": {\"warp_policy\": \"%s\"},"
             " \"l1d\": %s,"
             " \"l2\": {\"slices\": 1, \"sets\": 64, \"ways\": 8},"
             " \"timing\": {\"enabled\": true, \"issue_per_cycle\": 1,"
             "  \"latency\": {\"alu\": 1, \"shared\": 3, \"l1\": 10, \"noc\": 5, \"l2\": 20,"
             "   \"dram\": 50},"
             "  \"bandwidth\": {\"noc_port_bytes\": 128, \"l2_slice_bytes\": 128,"
             "   \"dram_channel_bytes\": %d, \"header_bytes\": 0}%s}}",
             scheduling, l1, dram_bytes, extra);
    return buf;
}
#define L1_DEFAULT "{\"sets\": 4, \"ways\": 64}"
/* one_load's timing as a JSON member (cfg_with's but for latency.shared and the extra keys;
 * DRAM at `dram` bytes a cycle), for the configs of several SMs, slices or chips that tests
 * below write themselves. */
#define ONE_LOAD_TIMING(dram)                                                               \
    " \"timing\": {\"enabled\": true, \"issue_per_cycle\": 1,"                                 \
    "  \"latency\": {\"alu\": 1, \"l1\": 10, \"noc\": 5, \"l2\": 20, \"dram\": 50},"             \
    "  \"bandwidth\": {\"noc_port_bytes\": 128, \"l2_slice_bytes\": 128,"                      \
    "   \"dram_channel_bytes\": " #dram ", \"header_bytes\": 0}}"
#define CFG(extra) cfg_with(extra, "lrr", L1_DEFAULT, 32)
#define CFG_FAST_DRAM(extra) cfg_with(extra, "lrr", L1_DEFAULT, 128)

/* One warp, one load of one line: 10 (L1) + 5 (NoC) + 20 (L2) + 4 (DRAM
 * transfer) + 50 (DRAM) + 3 (1 cycle at each of 3 resources) + 5 (NoC) = 97. */
static void one_load(void)
{
    struct tb t;
    tb_open(&t, "one-load");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay(CFG(""), t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 97);
    CHECK_EQ_U(jget(r, "kernels.0.timing.memory_latency.dram.requests"), 1);
    CHECK_REAL(r, "kernels.0.timing.memory_latency.dram.mean_cycles", 97);
    CHECK_EQ_U(jget(r, "total.timing.cycles"), 97);
    CHECK_EQ_U(jget(r, "kernels.0.timing.resources.dram_channel.bytes"), 128);
    json_decref(r);
    unlink(t.path);

    /* The same line again after it arrived hits: 97 + 10. A launch latency
     * of 100 comes first. */
    tb_open(&t, "two-loads");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 0, A);
    tb_end(&t, 1);
    tb_close(&t);
    r = must_replay(CFG(", \"kernel_launch_latency\": 100"), t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 100 + 97 + 10);
    CHECK_EQ_U(jget(r, "kernels.0.timing.start_cycle"), 100);
    CHECK_EQ_U(jget(r, "kernels.0.timing.memory_latency.l1_hit.requests"), 1);
    json_decref(r);
    unlink(t.path);
}

/* Four warps load four lines, one issue per cycle: warp i reaches DRAM at
 * 35 + i, but the channel moves one line per 4 cycles, so the lines leave at
 * 39, 43, 47, 51 and the last returns at 51 + 50 + 3 + 5 = 109. */
static void dram_bandwidth(void)
{
    struct tb t;
    tb_open(&t, "bw");
    tb_kernel(&t, 1, 1, 4 * 32, 0, 0);
    for (uint32_t w = 0; w < 4; w++)
        tb_load(&t, 0, w, A + w * 128);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay(CFG(""), t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 109);
    /* waits at DRAM: 3 + 6 + 9 cycles over 4 messages */
    CHECK_REAL(r, "kernels.0.timing.resources.dram_channel.queue_delay_mean", 18.0 / 4);
    json_decref(r);
    unlink(t.path);

    /* A long stream: 64 warps x 32 lines = 256 KiB at 32 B/cycle is 8192
     * cycles of DRAM transfer; the run must reach the configured bandwidth
     * within 5 % (only the first request's latency and the last reply's are
     * not overlapped). */
    tb_open(&t, "stream");
    tb_kernel(&t, 1, 2, 1024, 0, 0);
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t w = 0; w < 32; w++)
            for (uint32_t i = 0; i < 32; i++)
                tb_load(&t, c, w, A + ((uint64_t)(c * 32 + w) * 32 + i) * 128);
    tb_end(&t, 1);
    tb_close(&t);
    r = must_replay(CFG(", \"l1_mshrs\": 256"), t.path);
    long long cycles = jget(r, "kernels.0.timing.cycles");
    CHECK(cycles >= 8192 && cycles <= 8192 * 105 / 100);
    CHECK(jreal(r, "kernels.0.timing.resources.dram_channel.utilisation_max") >= 0.95);
    json_t *lim = json_object_get(json_object_get(json_array_get(json_object_get(r, "kernels"), 0),
                                                  "timing"), "limiting_resource");
    CHECK(json_is_string(lim) && strcmp(json_string_value(lim), "dram_channel") == 0);
    json_decref(r);
    unlink(t.path);
}

/* A reply timed late (behind DRAM) does not hold up one that reaches the
 * same resources earlier. Kernel 1 brings line B into L2 (97 cycles, as in
 * one_load). In kernel 2 (from cycle 97) warp 0 misses to DRAM on A: its
 * reply uses the slice and SM ports at 186-189. Warp 1, issued at 98, hits B
 * in L2: L1 port 98, lookup to 108, NoC to 113, L2 to 133, then 1 cycle at
 * each of 3 resources and the NoC: back at 141, 43 cycles after issue, in
 * the idle time before warp 0's reply, although presented after it. */
static void out_of_order_arrivals(void)
{
    struct tb t;
    tb_open(&t, "gaps");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_load(&t, 0, 0, A + 4096);
    tb_end(&t, 1);
    tb_kernel(&t, 2, 1, 64, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 1, A + 4096);
    tb_end(&t, 2);
    tb_close(&t);
    json_t *r = must_replay(CFG(""), t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 97);
    CHECK_EQ_U(jget(r, "kernels.1.timing.start_cycle"), 97);
    CHECK_EQ_U(jget(r, "kernels.1.timing.memory_latency.l2_hit.requests"), 1);
    CHECK_REAL(r, "kernels.1.timing.memory_latency.l2_hit.mean_cycles", 43);
    CHECK_REAL(r, "kernels.1.timing.memory_latency.dram.mean_cycles", 194 - 97);
    CHECK_EQ_U(jget(r, "kernels.1.timing.cycles"), 194 - 97);
    CHECK_EQ_U(jget(r, "total.timing.cycles"), 194);
    json_decref(r);
    /* Without remembered gaps, resources serve in presentation order: warp
     * 1's reply queues behind warp 0's at each of the 3 resources (187-190)
     * and is back at 195, 97 cycles after issue; the kernel ends there. */
    r = must_replay(CFG(", \"resource_gaps\": 0"), t.path);
    CHECK_REAL(r, "kernels.1.timing.memory_latency.l2_hit.mean_cycles", 97);
    CHECK_EQ_U(jget(r, "kernels.1.timing.cycles"), 195 - 97);
    json_decref(r);
    unlink(t.path);
}

/* One MSHR, fast DRAM (1 cycle per line): each miss holds the MSHR for its
 * whole chain of 5 + 20 + 1 + 50 + 3 + 5 = 84 cycles, so the four misses
 * finish at 10 + 84 = 94, 178, 262 and 346. */
static void mshr_bound(void)
{
    struct tb t;
    tb_open(&t, "mshr");
    tb_kernel(&t, 1, 1, 4 * 32, 0, 0);
    for (uint32_t w = 0; w < 4; w++)
        tb_load(&t, 0, w, A + w * 128);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay(CFG_FAST_DRAM(", \"l1_mshrs\": 1"), t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 346);
    CHECK_EQ_U(jget(r, "kernels.0.timing.mshr_stalls"), 3);
    json_decref(r);
    unlink(t.path);

    /* Two warps load the same line: the second access hits the line in
     * flight and waits for it (merged), arriving with it at 94. */
    tb_open(&t, "merge");
    tb_kernel(&t, 1, 1, 2 * 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 1, A);
    tb_end(&t, 1);
    tb_close(&t);
    r = must_replay(CFG_FAST_DRAM(""), t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 94);
    CHECK_EQ_U(jget(r, "kernels.0.timing.l1_pending_hits"), 1);
    json_decref(r);
    unlink(t.path);
}

/* Two warps, two stores each to their own line, one write-back allocating
 * 1-line L1: stores do not stall a warp, so GTO runs warp 0's two stores
 * back to back (miss, hit, miss, hit) while LRR alternates (4 misses). Both
 * issue one store per cycle, the last at cycle 3, and a warp ends once its stores are
 * acknowledged: when the line fetched for its last miss is in the L1. Under GTO that is
 * the second line's fetch from DRAM, at 101. Under LRR the third and fourth misses find
 * their lines in the L2 still on their way from DRAM (at the slice at 89 and 93) and wait
 * for them: the fourth's reply follows the second's through the slice's data array and
 * output port (94-96) and SM 0's ejection port (96-97), NoC 5: 102. */
static void scheduler_order(void)
{
    struct tb t;
    tb_open(&t, "order");
    tb_kernel(&t, 1, 1, 2 * 32, 0, 0);
    for (uint32_t w = 0; w < 2; w++)
        for (int k = 0; k < 2; k++)
            tb_access(&t, 0, w, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0xffffffffu, A + w * 128, 4);
    tb_end(&t, 1);
    tb_close(&t);
    const char *l1 = "{\"sets\": 1, \"ways\": 1, \"write_policy\": \"write_back\","
                     " \"write_allocate\": \"fetch\"}";
    json_t *r = must_replay(cfg_with("", "lrr", l1, 32), t.path);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 4);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 102);
    CHECK_EQ_U(jget(r, "kernels.0.timing.l2_pending_hits"), 2);
    json_decref(r);
    r = must_replay(cfg_with("", "gto", l1, 32), t.path);
    CHECK_EQ_U(jget(r, "total.L1D.misses"), 2);
    CHECK_EQ_U(jget(r, "total.L1D.hits"), 2);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 101);
    json_decref(r);
    unlink(t.path);
}

/* Compute only: 8 warps x 1000 instructions, 4 issued per cycle, ALU
 * latency 2: warps 0-3 issue at even cycles, 4-7 at odd ones, the last at
 * 1999, ready at 2001: IPC 8000 / 2001, the issue rate within 0.05 %. */
static void compute_only(void)
{
    struct tb t;
    tb_open(&t, "alu");
    tb_kernel(&t, 1, 1, 8 * 32, 0, 0);
    for (uint32_t w = 0; w < 8; w++)
        tb_nonmem(&t, 0, w, 1000);
    tb_end(&t, 1);
    tb_close(&t);
    char cfg[2048];
    snprintf(cfg, sizeof cfg, "%s", CFG(""));
    char *p = strstr(cfg, "\"issue_per_cycle\": 1");
    p[19] = '4';
    p = strstr(cfg, "\"alu\": 1");
    p[7] = '2';
    json_t *r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 2001);
    CHECK_REAL(r, "kernels.0.timing.ipc_warp", 8000.0 / 2001);
    json_t *lim = json_object_get(json_object_get(r, "total"), "timing");
    CHECK(strcmp(json_string_value(json_object_get(lim, "limiting_resource")), "issue") == 0);
    json_decref(r);
    unlink(t.path);
}

/* Shared memory: 32 lanes x 16 B at 16-B strides read words 4 apart: 8 of the 32 banks
 * (128 B a cycle), 4 words each, so 4 cycles, then the latency of 3. Warp 0 loads at 0
 * (banks 0-4, back at 7); warp 1 at 1 waits for the SM's LD/ST unit, busy with the first
 * until 4 (banks 4-8, back at 11); warp 0's second load at 7 waits for it until 8 (8-12,
 * back at 15). The waits are the LD/ST unit's, before the banks. Then, by GPGPU-Sim's rule,
 * the busiest bank's distinct words: 32 lanes of 4 B at 128-B strides all in bank 0, 32
 * cycles (31 conflicts) + 3; a 16-B broadcast, one word, 1 + 3. */
static void shared_memory(void)
{
    struct tb t;
    tb_open(&t, "shared");
    tb_kernel(&t, 1, 1, 64, 0, 0);
    for (int k = 0; k < 2; k++)
        tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_SHARED, 16, 0xffffffffu, 0x100, 16);
    tb_access(&t, 0, 1, GCR_OP_LOAD, GCR_SPACE_SHARED, 16, 0xffffffffu, 0x100, 16);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay(CFG(""), t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 15);
    CHECK_EQ_U(jget(r, "kernels.0.timing.resources.shared_memory.bytes"), 3 * 512);
    CHECK_REAL(r, "kernels.0.timing.resources.shared_memory.queue_delay_mean", 0);
    CHECK_EQ_U(jget(r, "kernels.0.timing.shared_bank_conflicts"), 3 * 3);
    json_decref(r);
    unlink(t.path);

    static const struct {
        uint16_t width;
        int64_t stride;
        long long cycles, conflicts;
    } cases[] = {{4, 128, 35, 31}, {16, 0, 4, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tb_open(&t, "shared-banks");
        tb_kernel(&t, 1, 1, 32, 0, 0);
        tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_SHARED, cases[i].width, 0xffffffffu, 0x100,
                  cases[i].stride);
        tb_end(&t, 1);
        tb_close(&t);
        /* The same with an instruction observer (the sharing analysis), whose queues keep
         * the lanes and carry the bank cycles in an item of their own. */
        for (int observed = 0; observed < 2; observed++) {
            char cfg[2200];
            snprintf(cfg, sizeof cfg, "%s", CFG(""));
            if (observed)
                snprintf(cfg + strlen(cfg) - 1, sizeof cfg - strlen(cfg) + 1,
                         ", \"analyses\": {\"sharing\": {\"cluster_size\": 1}}}");
            r = must_replay(cfg, t.path);
            CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), cases[i].cycles);
            CHECK_EQ_U(jget(r, "kernels.0.timing.shared_bank_conflicts"), cases[i].conflicts);
            json_decref(r);
        }
        unlink(t.path);
    }
}

#define CHECK_REAL_V(got, want)                                                              \
    do {                                                                                     \
        if (fabs((got) - (want)) > 1e-9) {                                                   \
            fprintf(stderr, "%s:%d: %s = %.12g, want %.12g\n", __FILE__, __LINE__, #got,     \
                    (double)(got), (double)(want));                                          \
            check_failures++;                                                                \
        }                                                                                    \
    } while (0)

/* Open rows (tRCD 10, tRP 7, CL 5, tRAS 28; 2,048-B rows, 16 banks): the
 * first load reaches DRAM at 35 (10 + 5 + 20), activates its row, its four
 * column commands take bus slots 45-48 (tRCD later) and its data is out at
 * 49 + CL = 54; + 50 + 3 + 5 = 112. The next line of the same row, issued at
 * 112, reaches DRAM at 147 and only pays CL: slots 147-150, 151 + 5 + 50 +
 * 8 = 214. */
#define ROWS_CFG CFG(", \"dram_rows\": {\"enabled\": true, \"tRCD\": 10, \"tRP\": 7, \"CL\": 5}")
#define ROW_STRIDE (2048ull * 16) /* the next row of the same bank */

static long long rows_cycles(const char *name, const uint64_t *addr, uint32_t n, bool dependent,
                             double *hit_rate, double *dram_mean)
{
    struct tb t;
    tb_open(&t, name);
    tb_kernel(&t, 1, 1, dependent ? 32 : 32 * n, 0, 0);
    for (uint32_t i = 0; i < n; i++)
        tb_load(&t, 0, dependent ? 0 : i, addr[i]);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay(ROWS_CFG, t.path);
    long long cycles = (long long)jget(r, "kernels.0.timing.cycles");
    *hit_rate = jreal(r, "kernels.0.timing.dram_row_hit_rate");
    *dram_mean = jreal(r, "kernels.0.timing.memory_latency.dram.mean_cycles");
    json_decref(r);
    unlink(t.path);
    return cycles;
}

static void dram_rows(void)
{
    double hits, lat;
    const uint64_t same_row[] = {A, A + 128};
    CHECK_EQ_U(rows_cycles("rows-hit", same_row, 2, true, &hits, &lat), 214);
    CHECK_REAL_V(hits, 0.5);
    /* Another row of the same bank: at 147 the open row is precharged (its
     * tRAS ended at 63), the new one activated at 154, its columns at
     * 164-167: 168 + 5 + 50 + 8 = 231. */
    const uint64_t conflict[] = {A, A + ROW_STRIDE};
    CHECK_EQ_U(rows_cycles("rows-conflict", conflict, 2, true, &hits, &lat), 231);
    CHECK_REAL_V(hits, 0.0);
    /* Two warps (issued at 0 and 1) on two banks overlap: the second row
     * opens at 36 and its columns take the free slots 49-52 after the
     * first's 45-48: out at 58, back at 58 + 50 + 3 + 5 = 116. */
    const uint64_t two_banks[] = {A, A + 2048};
    CHECK_EQ_U(rows_cycles("rows-two-banks", two_banks, 2, false, &hits, &lat), 116);
    /* On one bank the second row waits for the first's tRAS: precharge at
     * 63, activate at 70, columns 80-83, back at 84 + 5 + 50 + 8 = 147. */
    const uint64_t one_bank[] = {A, A + ROW_STRIDE};
    CHECK_EQ_U(rows_cycles("rows-one-bank", one_bank, 2, false, &hits, &lat), 147);
    /* First ready: a third warp (issued at 2, at DRAM at 37) reads the first
     * row again. It is presented after the second row was scheduled, but
     * arrives while the first row is still open (until 63), so it is a row
     * hit in slots 49-52 and back at 58 + 50 + 8 = 116; its reply follows
     * the first warp's through the 3 resources, 108-110, so at 116: 114
     * cycles after issue (the others 112 and 146). The kernel still ends
     * with the second warp at 147. */
    const uint64_t first_ready[] = {A, A + ROW_STRIDE, A + 128};
    CHECK_EQ_U(rows_cycles("rows-first-ready", first_ready, 3, false, &hits, &lat), 147);
    CHECK_REAL_V(hits, 1.0 / 3);
    CHECK_REAL_V(lat, (112.0 + 146 + 114) / 3);
}


static void config_errors(void)
{
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"{\"timing\": {\"latency\": {\"l3\": 4}}}", "$.timing.latency.l3: unknown key"},
        {"{\"timing\": {\"clocks_mhz\": {\"core\": 0}}}", "$.timing.clocks_mhz.core"},
        {"{\"timing\": {\"issue_per_cycle\": 0}}", "$.timing.issue_per_cycle"},
        {"{\"l2\": {\"slices\": 6}, \"timing\": {\"dram_channels\": 4}}",
         "$.timing.dram_channels: must divide"},
        {"{\"timing\": {\"dram_rows\": {\"row_bytes\": 1000}}}", "$.timing.dram_rows.row_bytes"},
        {"{\"timing\": {\"enabled\": 1}}", "$.timing.enabled"},
        {"{\"timing\": {\"l1_banks\": 0}}",
         "$.timing.l1_banks: expected an integer between 1 and 64, got 0"},
        {"{\"timing\": {\"l1_miss_queue\": 1}}",
         "$.timing.l1_miss_queue: expected an integer between 2 and 65536, got 1"},
        {"{\"timing\": {\"units\": {\"fp\": {}}}}", "$.timing.units.fp: unknown key"},
        {"{\"timing\": {\"units\": {\"sfu\": {\"initiation\": 0}}}}",
         "$.timing.units.sfu.initiation: expected an integer between 1 and 65536, got 0"},
        {"{\"timing\": {\"units\": {\"sp\": {\"count\": 2000}}}}",
         "$.timing.units.sp.count: expected an integer between 1 and 1024, got 2000"},
        {"{\"timing\": {\"units\": {\"pipeline\": -1}}}",
         "$.timing.units.pipeline: expected an integer between 0 and 65536, got -1"},
        {"{\"timing\": {\"l2_max_merge\": \"4\"}}", "$.timing.l2_max_merge"},
        {"{\"l2\": {\"request_coalescer\": {\"window_requests\": 8, \"window_cycles\": -1}}}",
         "$.l2.request_coalescer.window_cycles: expected an integer between 0 and 1048576"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gcr_config cfg;
        struct gcr_err err = {0};
        CHECK(gcr_config_parse(&cfg, cases[i].json, "t.json", &err) != 0);
        if (!strstr(err.msg, cases[i].want)) {
            fprintf(stderr, "case %zu: got \"%s\", want \"%s\"\n", i, err.msg, cases[i].want);
            check_failures++;
        }
    }
    /* The MSHR count follows l1d.mshr.entries unless timing gives it. */
    struct gcr_config cfg;
    struct gcr_err err = {0};
    CHECK(gcr_config_parse(&cfg, "{\"l1d\": {\"mshr\": {\"entries\": 48}}}", "t", &err) == 0);
    CHECK_EQ_U(cfg.timing.l1_mshrs, 48);
    CHECK(!cfg.timing.enabled);
    gcr_config_free(&cfg);
    /* So does the miss queue's size l1d.mshr.miss_queue; the L1 has 4 banks unless told. */
    CHECK(gcr_config_parse(&cfg, "{\"l1d\": {\"mshr\": {\"miss_queue\": 16}}}", "t", &err) == 0);
    CHECK_EQ_U(cfg.timing.l1_miss_queue, 16);
    CHECK_EQ_U(cfg.timing.l1_banks, 4);
    /* Units default to Accel-Sim's QV100; the L2 merges without limit unless l2.mshr says. */
    CHECK_EQ_U(cfg.timing.units[GCR_UNIT_SFU].latency, 20);
    CHECK_EQ_U(cfg.timing.units[GCR_UNIT_SFU].initiation, 8);
    CHECK_EQ_U(cfg.timing.units[GCR_UNIT_SP].count, 4);
    CHECK_EQ_U(cfg.timing.unit_pipeline, 5);
    CHECK_EQ_U(cfg.timing.l2_max_merge, 0);
    gcr_config_free(&cfg);
    CHECK(gcr_config_parse(&cfg, "{\"l2\": {\"mshr\": {\"max_merge\": 4}}}", "t", &err) == 0);
    CHECK_EQ_U(cfg.timing.l2_max_merge, 4);
    gcr_config_free(&cfg);
}

/* The IWL estimator (seed 004 Eq 4.1-4.6) with alpha 0.1, beta 4 and a
 * 256-line L1, by hand. */
static void vws_estimator(void)
{
    struct gcr_vws_sm v;
    gcr_vws_kernel_begin(&v, 100, 0.1); /* N_pred = ceil(0.1 x 100) = 10 */
    CHECK_EQ_U(v.n_pred, 10);
    for (int i = 0; i < 9; i++) /* sampling: no throttling, no clearing */
        CHECK(!gcr_vws_warp_done(&v, 8, 64, 4.0, 256));
    CHECK_EQ_U(v.n_act, UINT32_MAX);
    /* 10th warp: sampling ends, AMT cleared; WS = 8, RRDegr = 64/8 = 8:
     * N_act = ceil(4 x 256 / (8 x 8)) = 16. */
    CHECK(gcr_vws_warp_done(&v, 8, 64, 4.0, 256));
    CHECK_EQ_U(v.n_act, 16);
    /* WS = (8 + 16)/2 = 12, RRDegr = (8 + 64/16)/2 = 6: ceil(1024/72) = 15. */
    CHECK(!gcr_vws_warp_done(&v, 16, 64, 4.0, 256));
    CHECK_EQ_U(v.n_act, 15);
    CHECK_REAL_V(v.ws, 12.0);
    CHECK_REAL_V(v.rr, 6.0);
    /* A warp without new misses leaves the estimate alone. */
    CHECK(!gcr_vws_warp_done(&v, 0, 50, 4.0, 256));
    CHECK_EQ_U(v.n_act, 15);
    /* A huge footprint throttles to one warp, never zero: WS = (12 + 1023)/2
     * = 517.5, RRDegr = (6 + 1)/2 = 3.5, 1024 / 1811.25 -> 1. */
    CHECK(!gcr_vws_warp_done(&v, 1023, 1023, 4.0, 256));
    CHECK_EQ_U(v.n_act, 1);
}

/* Intra-warp locality thrashing a 32-line L1: 32 CTAs of 4 warps, 8 resident
 * at a time (32 warps); each warp reads its own 8 lines 8 times. All 32
 * warps together need 256 lines, so LRR misses nearly always; VWS samples
 * ceil(0.1 x 128 / 1) = 13 warp completions (WS = 8 lines, RRDegr = 8), then
 * allows ceil(4 x 32 / 64) = 2 warps, whose 16 lines fit: far fewer misses. */
static void vws_throttles(void)
{
    struct tb t;
    tb_open(&t, "vws");
    tb_kernel(&t, 1, 32, 128, 0, 0);
    for (uint32_t c = 0; c < 32; c++)
        for (uint32_t w = 0; w < 4; w++)
            for (int rep = 0; rep < 8; rep++)
                for (uint64_t l = 0; l < 8; l++)
                    tb_load(&t, c, w, A + (((uint64_t)c * 4 + w) * 8 + l) * 128);
    tb_end(&t, 1);
    tb_close(&t);
    const char *l1 = "{\"sets\": 4, \"ways\": 8}";
    json_t *lrr = must_replay(cfg_with(", \"l1_mshrs\": 64", "lrr", l1, 32), t.path);
    json_t *vws = must_replay(cfg_with(", \"l1_mshrs\": 64", "vws", l1, 32), t.path);
    long long m_lrr = jget(lrr, "total.L1D.misses"), m_vws = jget(vws, "total.L1D.misses");
    CHECK_EQ_U(jget(lrr, "total.L1D.accesses"), 32 * 4 * 64);
    CHECK(m_lrr > 32 * 4 * 64 * 9 / 10);
    CHECK(m_vws < m_lrr / 2);
    json_decref(lrr);
    json_decref(vws);
    /* VWS without timing is refused, naming the key. */
    struct gcr_err err = {0};
    CHECK(replay_with("{\"scheduling\": {\"warp_policy\": \"vws\"}}", t.path, &err) == NULL);
    CHECK(strstr(err.msg, "$.scheduling.warp_policy: \"vws\"") != NULL);
    unlink(t.path);
}

/* Two chips of one SM and one slice each (the timing of one_load; links at
 * chips.eab.inter_gbs: 12.8 GB/s at 1 GHz is 12.8 B per cycle, 10 cycles per
 * 128-B reply; requests are headers only, 0 B here). CTA 0 (chip 0) and CTA
 * 1 (chip 1) both load A at cycle 0; SM 0 goes first, so A is homed on chip 0
 * and SM 0's load is a local DRAM miss: 97 cycles, as in one_load.
 *
 * Memory-side, SM 1's load is a remote LLC hit: L1 10, link 1->0 0 + NoC 5
 * (15), SM port + NoC 5 (20), L2 20 (40), link 0->1 10 + NoC 5 (55), 3
 * resources of 1 cycle (58), NoC 5: 63. At 1.28 GB/s the reply takes 100
 * cycles on the link: 153, which then ends the kernel.
 *
 * SM-side, SM 1's load misses in its own chip's slice: 10 + 5 + 20 (35), link
 * 1->0 0 + 5 (40), DRAM channel of chip 0 4 (free again at 39) + 50 (94),
 * link 0->1 10 + 5 (109), 3 x 1 (112), NoC 5: 117, the kernel's end. */
static void chip_links(void)
{
    struct tb t;
    tb_open(&t, "chip-links");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 1, 0, A);
    tb_end(&t, 1);
    tb_close(&t);
    static const struct {
        const char *llc, *gbs;
        long long cycles, l2_hit; /* -1: no LLC hit */
        double dram_mean;         /* SM-side: both loads, (97 + 117) / 2 */
    } cases[] = {{"memory_side", "12.8", 97, 63, 97},
                 {"memory_side", "1.28", 153, 153, 97},
                 {"sm_side", "12.8", 117, -1, 107}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[1024];
        snprintf(cfg, sizeof cfg,
                 "{\"gpu\": {\"sms\": 2, \"max_ctas_per_sm\": 8},"
                 " \"l1d\": " L1_DEFAULT ", \"l2\": {\"slices\": 2, \"sets\": 64, \"ways\": 8},"
                 " \"chips\": {\"count\": 2, \"llc\": \"%s\", \"shadow\": false,"
                 "  \"eab\": {\"inter_gbs\": %s}},"
                 ONE_LOAD_TIMING(32) "}",
                 cases[i].llc, cases[i].gbs);
        json_t *r = must_replay(cfg, t.path);
        CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), cases[i].cycles);
        if (cases[i].l2_hit >= 0)
            CHECK_REAL(r, "kernels.0.timing.memory_latency.l2_hit.mean_cycles", cases[i].l2_hit);
        CHECK_REAL(r, "kernels.0.timing.memory_latency.dram.mean_cycles", cases[i].dram_mean);
        /* one request and one 128-B reply cross the links, once each */
        CHECK_EQ_U(jget(r, "kernels.0.timing.resources.chip_link_request.messages"), 1);
        CHECK_EQ_U(jget(r, "kernels.0.timing.resources.chip_link_request.bytes"), 0);
        CHECK_EQ_U(jget(r, "kernels.0.timing.resources.chip_link_reply.messages"), 1);
        CHECK_EQ_U(jget(r, "kernels.0.timing.resources.chip_link_reply.bytes"), 128);
        CHECK_EQ_U(jget(r, "kernels.0.timing.resources.chip_link_reply.instances"), 2);
        json_decref(r);
    }
    unlink(t.path);
}

/* The same two chips, memory-side, L1s bypassed (sector requests): SM 0
 * loads A's 128 B (homed on chip 0; a DRAM miss: 87 cycles, one_load without
 * the L1 lookup), SM 1 one instruction of two lanes, 32-B sectors of A and A +
 * 128. Each of its requests leaves at issue and crosses the ring first: A hits
 * at 0 + 5 (link) + 5 (NoC) + 20 (L2) = 30, reply 2.5 + 5 on the link, 0.25 at
 * the slice's data array and a whole 128-B flit (1 cycle) at each of the two
 * NoC ports, 5: 44.75. A + 128 leaves at 0 too (not after A's hop: that would
 * end 5 cycles later) and reaches the same slice at 10, where A holds the tag
 * port that cycle: looked up at 11, it misses at 31, DRAM 1 + 50 (82), link
 * 2.5 + 5 (89.5), 0.25 + 1 + 1 (91.75), NoC 5: 96.75, the kernel's end (97). */
static void chip_links_bypass(void)
{
    struct tb t;
    tb_open(&t, "chip-links-bypass");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_access(&t, 1, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0x3, A, 128);
    tb_end(&t, 1);
    tb_close(&t);
    const char *cfg =
        "{\"gpu\": {\"sms\": 2, \"max_ctas_per_sm\": 8},"
        " \"l1d\": {\"sets\": 4, \"ways\": 64, \"bypass_global\": true},"
        " \"l2\": {\"slices\": 2, \"sets\": 64, \"ways\": 8},"
        " \"chips\": {\"count\": 2, \"shadow\": false, \"eab\": {\"inter_gbs\": 12.8}},"
        ONE_LOAD_TIMING(32) "}";
    json_t *r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 97);
    CHECK_REAL(r, "kernels.0.timing.memory_latency.l2_hit.mean_cycles", 44.75);
    CHECK_REAL(r, "kernels.0.timing.memory_latency.dram.mean_cycles", (87 + 96.75) / 2.0);
    json_decref(r);
    unlink(t.path);
}

/* An Accel-Sim kernel file of `ctas` CTAs of `warps` warps each (warp w's instruction lines
 * in bodies[w], the same in every CTA), written to a file of its own: its lines carry
 * registers, so the replay has their dependencies (the per-warp scoreboard). */
static void accelsim_kernel_ctas(char *path, size_t n, const char *name, uint32_t ctas,
                                 uint32_t warps, const char *const *bodies)
{
    snprintf(path, n, "%s-%d.traceg", name, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f)
        exit(2);
    fprintf(f, "-kernel name = %s\n-kernel id = 1\n-grid dim = (%u,1,1)\n"
               "-block dim = (%u,1,1)\n-shmem = 0\n-nregs = 16\n-binary version = 70\n"
               "-accelsim tracer version = 4\n\n#traces format = ...\n",
            name, ctas, 32 * warps);
    for (uint32_t c = 0; c < ctas; c++) {
        fprintf(f, "\n#BEGIN_TB\n\nthread block = %u,0,0\n", c);
        for (uint32_t w = 0; w < warps; w++) {
            unsigned lines = 0;
            for (const char *p = bodies[w]; *p; p++)
                lines += *p == '\n';
            fprintf(f, "\nwarp = %u\ninsts = %u\n%s", w, lines, bodies[w]);
        }
        fprintf(f, "\n#END_TB\n");
    }
    fclose(f);
}

/* The same of one CTA. */
static void accelsim_kernel(char *path, size_t n, const char *name, uint32_t warps,
                            const char *const *bodies)
{
    accelsim_kernel_ctas(path, n, name, 1, warps, bodies);
}

/* The cycles of such a kernel (accelsim_kernel) under CFG(""). */
static long long accelsim_cycles(const char *name, uint32_t warps, const char *const *bodies)
{
    char path[256];
    accelsim_kernel(path, sizeof path, name, warps, bodies);
    json_t *r = must_replay(CFG(""), path);
    long long cycles = jget(r, "kernels.0.timing.cycles");
    CHECK_EQ_U(jget(r, "total.timing.cycles"), cycles);
    json_decref(r);
    unlink(path);
    return cycles;
}

/* Independent loads overlap (GPGPU-Sim's scoreboard): the warp issues the second load the
 * cycle after the first left the L1 tag port (1), and its FADD waits for both. The lines
 * reach DRAM at 35 and 36, leave the channel at 39 and 43, and are back at 97 and 101
 * (one_load, dram_bandwidth); FADD issues at 101, EXIT at 102 (alu 1): 103 cycles, where
 * serialised loads take 97 + 97 + 2 (the same trace without registers, as gcrt). A load
 * whose address comes from the first (a pointer chase) waits for it: it issues at 97, its
 * line leaves DRAM at 97 + 35 + 4 and is back at 194. EXIT, which needs nothing, issues at
 * 98, but a warp ends when its last data is back: 194 cycles. */
static void scoreboard(void)
{
    char path[256];
    const char *independent[] = {"0000 ffffffff 1 R2 LDG.E 1 R10 4 1 0x100000 4\n"
                                 "0010 ffffffff 1 R3 LDG.E 1 R10 4 1 0x100080 4\n"
                                 "0020 ffffffff 1 R4 FADD 2 R2 R3 0\n"
                                 "0030 ffffffff 0 EXIT 0 0\n"};
    accelsim_kernel(path, sizeof path, "independent-loads", 1, independent);
    json_t *r = must_replay(CFG(""), path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 103);
    CHECK_EQ_U(jget(r, "kernels.0.timing.warp_instructions"), 4);
    json_decref(r);
    unlink(path);

    /* The same from a native trace without registers: each load blocks its warp. */
    struct tb t;
    tb_open(&t, "serial-loads");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 0, 0, A + 128);
    tb_nonmem(&t, 0, 0, 2);
    tb_end(&t, 1);
    tb_close(&t);
    r = must_replay(CFG(""), t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 97 + 97 + 2);
    json_decref(r);
    unlink(t.path);

    const char *chase[] = {"0000 ffffffff 1 R2 LDG.E 1 R10 4 1 0x100000 4\n"
                           "0010 ffffffff 1 R3 LDG.E 1 R2 4 1 0x100080 4\n"
                           "0030 ffffffff 0 EXIT 0 0\n"};
    CHECK_EQ_U(accelsim_cycles("pointer-chase", 1, chase), 194);

    /* A store of a loaded value waits for it; a store does not block its warp, but the warp
     * ends only once it is acknowledged: LDG back at 97, STG at 97, EXIT at 98; the store
     * reaches the slice at 97 + 38 and its acknowledgement is back at 140. */
    const char *copy[] = {"0000 ffffffff 1 R2 LDG.E 1 R10 4 1 0x100000 4\n"
                          "0010 ffffffff 0 STG.E 2 R12 R2 4 1 0x200000 4\n"
                          "0030 ffffffff 0 EXIT 0 0\n"};
    CHECK_EQ_U(accelsim_cycles("copy", 1, copy), 140);
}

/* The cycles of an Accel-Sim kernel under CFG(extra). */
static long long accelsim_cycles_with(const char *name, const char *extra, const char *body)
{
    char path[256];
    const char *bodies[] = {body};
    accelsim_kernel(path, sizeof path, name, 1, bodies);
    json_t *r = must_replay(CFG(extra), path);
    long long cycles = jget(r, "kernels.0.timing.cycles");
    json_decref(r);
    unlink(path);
    return cycles;
}

/* Non-memory instructions with units (the defaults: int and sp 2 cycles of latency, an
 * initiation interval of 2, four units each; sfu 20; five cycles of pipeline from issue to
 * writeback). Independent FFMAs issue a cycle apart (the unit's four units take one each
 * half cycle): 0-3, EXIT at 4, 5 cycles. A chain of three waits for each result: 0, 7, 14,
 * EXIT at 15: 16. MUFU's result is back at 25, the FADD reading it issues then, EXIT at 26:
 * 27. With one DP unit, DADDs take it 4 cycles each: issued at 0, 1 (enters at 4, the warp
 * waits for it) and 4 (enters at 8), EXIT at 8: 9. A load whose address an IMAD computes
 * issues once that result is back (7) and its data is back 97 later: 104. */
static void alu_units(void)
{
    CHECK_EQ_U(accelsim_cycles_with("independent", "",
                                    "0000 ffffffff 1 R1 FFMA 3 R10 R11 R12 0\n"
                                    "0010 ffffffff 1 R2 FFMA 3 R10 R11 R12 0\n"
                                    "0020 ffffffff 1 R3 FFMA 3 R10 R11 R12 0\n"
                                    "0030 ffffffff 1 R4 FFMA 3 R10 R11 R12 0\n"
                                    "0040 ffffffff 0 EXIT 0 0\n"),
               5);
    CHECK_EQ_U(accelsim_cycles_with("chain", "",
                                    "0000 ffffffff 1 R1 FFMA 3 R10 R11 R12 0\n"
                                    "0010 ffffffff 1 R2 FFMA 3 R1 R11 R12 0\n"
                                    "0020 ffffffff 1 R3 FFMA 3 R2 R11 R12 0\n"
                                    "0030 ffffffff 0 EXIT 0 0\n"),
               16);
    CHECK_EQ_U(accelsim_cycles_with("sfu", "",
                                    "0000 ffffffff 1 R1 MUFU.RCP 1 R10 0\n"
                                    "0010 ffffffff 1 R2 FADD 2 R1 R11 0\n"
                                    "0020 ffffffff 0 EXIT 0 0\n"),
               27);
    CHECK_EQ_U(accelsim_cycles_with("one-dp-unit", ", \"units\": {\"dp\": {\"count\": 1}}",
                                    "0000 ffffffff 1 R2 DADD 2 R10 R12 0\n"
                                    "0010 ffffffff 1 R4 DADD 2 R10 R12 0\n"
                                    "0020 ffffffff 1 R6 DADD 2 R10 R12 0\n"
                                    "0030 ffffffff 0 EXIT 0 0\n"),
               9);
    CHECK_EQ_U(accelsim_cycles_with("address", "",
                                    "0000 ffffffff 1 R10 IMAD 3 R11 R12 R13 0\n"
                                    "0010 ffffffff 1 R2 LDG.E 1 R10 4 1 0x100000 4\n"
                                    "0020 ffffffff 0 EXIT 0 0\n"),
               104);

    /* Schedulers own warp slots: two CTAs of one warp on one SM (issue_per_cycle 2, so two
     * schedulers; two SP units taking an FFMA every 4 cycles each) take hardware slots 0 and
     * 1, warp slots 0 and 1, so each warp has its scheduler's SP unit: FFMAs at 0 and 1 (it
     * enters at 4), EXIT at 4: 5 cycles. (Were both warps on one scheduler's unit, the
     * second warp's FFMAs would enter at 4 and 12: 13.) */
    char path[256];
    const char *body[] = {"0000 ffffffff 1 R1 FFMA 3 R10 R11 R12 0\n"
                          "0010 ffffffff 1 R2 FFMA 3 R10 R11 R12 0\n"
                          "0020 ffffffff 0 EXIT 0 0\n"};
    accelsim_kernel_ctas(path, sizeof path, "two-ctas", 2, 1, body);
    char cfg[2048];
    snprintf(cfg, sizeof cfg, "%s",
             CFG(", \"units\": {\"sp\": {\"count\": 2, \"initiation\": 4}}"));
    char *p = strstr(cfg, "\"issue_per_cycle\": 1");
    p[19] = '2';
    json_t *r = must_replay(cfg, path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 5);
    json_decref(r);
    unlink(path);
}

/* The L2's merge limit (timing.l2_max_merge 2, from l2.mshr.max_merge): four SMs, one slice (coalescer_timed's
 * timing), SMs 0-2 loading one sector of A at 0, SM 3 one of B. They reach the slice at 15
 * and take its tag port in turn: SM 0 misses at 35 (DRAM until 85.25); SM 1 (36) merges
 * with it; SM 2 (37) finds the fetch serving two requests already and retries until the
 * data is there (85.25: 49 reservation failures), holding the tag port until 65.25, so SM
 * 3's miss reaches DRAM only at 85.25, is back from it at 135.5, leaves the data array at
 * 135.75, the slice's output port at 136.75 and SM 3's ejection port at 137.75; NoC 5:
 * 142.75. Without the limit SM 2 merges too and SM 3 misses at 38: its reply leaves the
 * slice behind the others' (88.5, 89.5), ejected at 90.5, back at 95.5. */
static void l2_merge_limit(void)
{
    static const struct {
        const char *mshr; /* the limit, as timing.l2_max_merge takes it from l2.mshr */
        long long cycles, fails, pending;
    } cases[] = {{", \"mshr\": {\"max_merge\": 2}", 143, 49, 1}, {"", 96, 0, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct tb t;
        tb_open(&t, "l2-merge");
        tb_kernel(&t, 1, 4, 32, 0, 0);
        for (uint32_t c = 0; c < 4; c++)
            tb_access(&t, c, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0x1u, c < 3 ? A : A + 128, 4);
        tb_end(&t, 1);
        tb_close(&t);
        char cfg[1024];
        snprintf(cfg, sizeof cfg,
                 "{\"gpu\": {\"sms\": 4, \"max_ctas_per_sm\": 8}, \"l1d\": " L1_DEFAULT ","
                 " \"l2\": {\"slices\": 1, \"sets\": 64, \"ways\": 8%s}," ONE_LOAD_TIMING(128) "}",
                 cases[i].mshr);
        json_t *r = must_replay(cfg, t.path);
        CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), cases[i].cycles);
        CHECK_EQ_U(jget(r, "kernels.0.timing.l2_reservation_fails"), cases[i].fails);
        CHECK_EQ_U(jget(r, "kernels.0.timing.l2_pending_hits"), cases[i].pending);
        json_decref(r);
        unlink(t.path);
    }
}

/* The ALU bits count every non-memory instruction, those without a unit too (a trace may mix
 * them): MUFU (sfu, result at 25), a run of three without units (1, 2, 3; latency.alu 1),
 * then an integer instruction reading the run's last (a1): it issues at 4, not at 25: 5
 * cycles. */
static void alu_mixed(void)
{
    struct tb t;
    tb_open(&t, "alu-mixed");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    static const uint32_t counts[] = {1, 3, 1};
    const uint32_t waits[] = {
        gcr_waits_with_unit(GCR_WAITS_KNOWN, GCR_UNIT_SFU), GCR_WAITS_KNOWN,
        gcr_waits_with_unit(GCR_WAITS_KNOWN | UINT32_C(1) << GCR_WAITS_ALU_SHIFT, GCR_UNIT_INT)};
    for (int i = 0; i < 3; i++) {
        struct gcr_record r = {.kind = GCR_REC_NONMEM};
        r.u.nonmem = (struct gcr_nonmem){0, 0, counts[i], waits[i]};
        tb_write(&t, &r);
    }
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay(CFG(""), t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 5);
    json_decref(r);
    unlink(t.path);
}

/* VWS with a barrier: a CTA of four warps, two first-level slots. The two warps in the first
 * level reach BAR.SYNC and wait there: they leave the first level (as a warp waiting on
 * memory does) so that the other two can issue, reach it and release them all. With the
 * waiters keeping their slots, no warp could issue again. */
static void vws_barrier(void)
{
    const char *body = "0000 ffffffff 1 R1 MOV 0 0\n0010 ffffffff 0 BAR.SYNC 0 0\n"
                       "0020 ffffffff 0 EXIT 0 0\n";
    const char *warps[] = {body, body, body, body};
    char path[256];
    accelsim_kernel(path, sizeof path, "vws-barrier", 4, warps);
    json_t *r = must_replay(cfg_with(", \"vws\": {\"level1_warps\": 2}", "vws", L1_DEFAULT, 32),
                            path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.warp_instructions"), 12);
    CHECK(jget(r, "kernels.0.timing.cycles") > 0);
    json_decref(r);
    unlink(path);
}

/* BAR.SYNC holds a CTA's warps until all have reached it (LRR, one issue per cycle, alu 1).
 * Warp 0: five MOVs, BAR, EXIT; warp 1: BAR, EXIT. Cycle 0: warp 0's MOV; 1: warp 1 reaches
 * the barrier (it waits); 2-5: warp 0's other MOVs, after which it arrives, ready at 6: both
 * go on at 6. Warp 1 issues BAR at 6, warp 0 at 7, then EXITs at 8 and 9: 10 cycles. */
static void barrier(void)
{
    const char *warps[] = {"0000 ffffffff 1 R1 MOV 0 0\n0008 ffffffff 1 R2 MOV 0 0\n"
                           "0010 ffffffff 1 R3 MOV 0 0\n0018 ffffffff 1 R4 MOV 0 0\n"
                           "0020 ffffffff 1 R5 MOV 0 0\n0028 ffffffff 0 BAR.SYNC 0 0\n"
                           "0030 ffffffff 0 EXIT 0 0\n",
                           "0028 ffffffff 0 BAR.SYNC 0 0\n0030 ffffffff 0 EXIT 0 0\n"};
    CHECK_EQ_U(accelsim_cycles("barrier", 2, warps), 10);
    /* BAR.ARV only arrives: warp 1 issues at 1 and 3, warp 0 at 0, 2 and 4 to 8: 9 cycles. */
    const char *arrive[] = {"0000 ffffffff 1 R1 MOV 0 0\n0008 ffffffff 1 R2 MOV 0 0\n"
                            "0010 ffffffff 1 R3 MOV 0 0\n0018 ffffffff 1 R4 MOV 0 0\n"
                            "0020 ffffffff 1 R5 MOV 0 0\n0028 ffffffff 0 BAR.ARV 0 0\n"
                            "0030 ffffffff 0 EXIT 0 0\n",
                            "0028 ffffffff 0 BAR.ARV 0 0\n0030 ffffffff 0 EXIT 0 0\n"};
    CHECK_EQ_U(accelsim_cycles("barrier-arrive", 2, arrive), 9);
}

/* A warp ends once its writes are acknowledged, as in GPGPU-Sim, which keeps a warp until its
 * stores are acknowledged. One store of a line through the write-through L1: L1 10, the SM's
 * NoC port 1 + NoC 5, the slice's input port 1 and data array 1, L2 20: the slice has it at
 * 38, and the acknowledgement is back 5 cycles later, at 43. Reductions (RED: no value
 * returned) are acknowledged by their answer: 64 warps reducing into one word queue at one
 * slice's tag port (one request a cycle), and the kernel lasts until the last answer is back,
 * so that no resource is busy for longer than the kernel. */
static void writes_acknowledged(void)
{
    struct tb t;
    tb_open(&t, "store-ack");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_access(&t, 0, 0, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0xffffffffu, A, 4);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay(CFG(""), t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 43);
    json_decref(r);
    unlink(t.path);

    tb_open(&t, "reductions");
    tb_kernel(&t, 1, 2, 1024, 0, 0);
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t w = 0; w < 32; w++)
            tb_access(&t, c, w, GCR_OP_REDUCTION, GCR_SPACE_GLOBAL, 4, 0xffffffffu, A, 0);
    tb_end(&t, 1);
    tb_close(&t);
    r = must_replay(CFG(""), t.path);
    static const char *const resources[] = {"noc_sm_inject", "noc_slice_in", "l2_tag_port",
                                            "l2_slice", "noc_slice_out", "noc_sm_eject"};
    for (size_t i = 0; i < sizeof resources / sizeof *resources; i++) {
        char path[128];
        snprintf(path, sizeof path, "kernels.0.timing.resources.%s.utilisation_max",
                 resources[i]);
        CHECK(jreal(r, path) <= 1.0);
    }
    CHECK(jreal(r, "kernels.0.timing.resources.l2_tag_port.utilisation_max") >= 0.9);
    json_decref(r);
    unlink(t.path);
}

/* The L1 under pressure, as GPGPU-Sim's LD/ST unit and L1 treat it (src/timing/README.md,
 * "The L1 under pressure"): a sectored L1 of 4 banks (bank = the sector's place in its
 * line), a miss queue of 4 entries that one request a cycle leaves for the NoC. One
 * write-through store of 8 lanes, each in a line of its own:
 * - at one offset, all 8 sectors are in bank 0 and enter one a cycle, at 0 to 7: 7 bank
 *   conflicts. Looked up 10 cycles later, each finds room in the queue and leaves it at once
 *   (10 to 17): no reservation failure;
 * - at rotating offsets (stride 160: banks 0, 1, 2, 3, 0, ...), 4 enter at cycle 0 and 4 at
 *   cycle 1, where the fifth's wait is a coalescing stall (4 entered that cycle), not a
 *   conflict: 0 conflicts. Looked up at 10 (4) and 11 (4), they leave the queue one a cycle
 *   (10 to 17), so the 7th and 8th, ready at 11, find it full until 12 and 13: 1 + 2 = 3
 *   reservation failures.
 * Either way the queue's drain bounds the store: the last request crosses the SM's port at
 * 17-18 (a sector of 32 B in one 128-B flit), the NoC (23) and the slice's input port (24), is
 * written into the data array (32 B at 128 B a cycle: 24.25) and after L2 20 (44.25) the slice
 * acknowledges it (0-byte messages here) across the NoC: 49.25, 50 cycles. Each request
 * carries its sector whole: 8 x 32 bytes, though the lanes wrote 4 bytes each. */
static void l1_pressure(void)
{
    static const struct {
        const char *name;
        int64_t stride;
        uint64_t conflicts, fails;
    } cases[] = {{"one-bank", 128, 7, 0}, {"rotating-banks", 160, 0, 3}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct tb t;
        tb_open(&t, cases[i].name);
        tb_kernel(&t, 1, 1, 32, 0, 0);
        tb_access(&t, 0, 0, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0xffu, A, cases[i].stride);
        tb_end(&t, 1);
        tb_close(&t);
        char cfg[2048];
        snprintf(cfg, sizeof cfg, "%s", CFG(", \"l1_banks\": 4, \"l1_miss_queue\": 4"));
        /* sector requests: the coalescer's granularity */
        char *at = strstr(cfg, " \"l1d\"");
        char with[2200];
        snprintf(with, sizeof with, "%.*s \"coalescer\": {\"granularity\": \"sector\"},%s",
                 (int)(at - cfg), cfg, at);
        json_t *r = must_replay(with, t.path);
        CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 50);
        CHECK_EQ_U(jget(r, "kernels.0.timing.l1_bank_conflicts"), cases[i].conflicts);
        CHECK_EQ_U(jget(r, "kernels.0.timing.l1_reservation_fails"), cases[i].fails);
        CHECK_EQ_U(jget(r, "kernels.0.timing.resources.l1_bank.messages"), 8);
        CHECK_EQ_U(jget(r, "kernels.0.timing.resources.noc_sm_inject.bytes"), 8 * 32);
        CHECK_EQ_U(jget(r, "kernels.0.timing.resources.l2_slice.bytes"), 8 * 32);
        json_decref(r);
        unlink(t.path);
    }
}

/* The L2 request coalescer, timed: a read merges with a read of the same sector from
 * another SM while that one's data is on its way (and, with window_cycles, only if it
 * reached the coalescer at most that many cycles later). Two SMs, one slice (the timing of
 * one_load, DRAM at 128 B a cycle), each loading one sector of A. SM 0's read, issued at
 * 0, reaches the coalescer at 15 (L1 10, NoC 5), the slice misses at 35, DRAM 0.25 + 50
 * (85.25), and its data leaves the slice at 85.5 (32 B at 128 B a cycle), then a whole flit
 * at the slice's output port (86.5) and SM 0's ejection port (87.5), NoC 5: 92.5. SM 1's
 * read, issued at 0 or after 30 non-memory instructions (at 30), reaches the coalescer at
 * 15 or 45, while SM 0's data is on its way: merged, its data leaves with SM 0's at 85.5,
 * queues behind it at the output port (87.5), SM 1's ejection port (88.5), NoC 5: 93.5, the
 * kernel's end (94). With window_cycles 16, the read arriving 30 cycles after SM 0's goes
 * on to the slice and hits (at 65) on the sector still on its way from DRAM, so it waits for
 * it (85.25), then follows SM 0's reply through the data array (85.75) and the output port
 * (87.5), SM 1's ejection port (88.5), NoC 5: 93.5, 94 again, with an L2 pending hit. */
static void coalescer_timed(void)
{
    static const struct {
        uint32_t delay, window_cycles;
        uint64_t cycles, merged, l2_reads;
    } cases[] = {{0, 0, 94, 1, 1}, {30, 0, 94, 1, 1}, {30, 16, 94, 0, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct tb t;
        tb_open(&t, "coalescer-timed");
        tb_kernel(&t, 1, 2, 32, 0, 0);
        tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0x1u, A, 4);
        if (cases[i].delay)
            tb_nonmem(&t, 1, 0, cases[i].delay);
        tb_access(&t, 1, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0x1u, A, 4);
        tb_end(&t, 1);
        tb_close(&t);
        char cfg[1024];
        snprintf(cfg, sizeof cfg,
                 "{\"gpu\": {\"sms\": 2, \"max_ctas_per_sm\": 8}, \"l1d\": " L1_DEFAULT ","
                 " \"l2\": {\"slices\": 1, \"sets\": 64, \"ways\": 8,"
                 "  \"request_coalescer\": {\"window_requests\": 8, \"window_cycles\": %u}},"
                 ONE_LOAD_TIMING(128) "}",
                 cases[i].window_cycles);
        json_t *r = must_replay(cfg, t.path);
        CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), cases[i].cycles);
        CHECK_EQ_U(jget(r, "kernels.0.timing.l2_merged_reads"), cases[i].merged);
        CHECK_EQ_U(jget(r, "total.L2.reads.accesses"), cases[i].l2_reads);
        json_decref(r);
        unlink(t.path);
    }
}

/* A partitioned L2 (l2.partitions: 2 partitions of one slice; SM 0 in partition 0, SM 1 in
 * partition 1). Line A + 256 is homed in partition 1 (slices interleave 256-B granules).
 * SM 1 loads it at 0: it misses in its near (home) slice at 35 (L1 10, NoC 5, L2 20); the
 * other partition may hold data written there, so it is asked across the fabric (the
 * request a header, 0 B here, NoC 5, that slice's L2 20: 60) and misses too; the line comes
 * from DRAM (4 + 50: 114), the answer crosses back (no data found far, NoC 5: 119), and the
 * reply as in one_load (3 + 5): 127, 30 cycles more than one_load. SM 0 loads it at 200
 * (after 200 non-memory instructions): near miss at 235, asked across the fabric at its home
 * (260), which has it and sends the line back (128 B, one flit, NoC 5: 266); reply: 274, the
 * kernel's end. Four fabric messages, one with data. */
static void l2_fabric(void)
{
    struct tb t;
    tb_open(&t, "fabric");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_nonmem(&t, 0, 0, 200);
    tb_load(&t, 0, 0, A + 256);
    tb_load(&t, 1, 0, A + 256);
    tb_end(&t, 1);
    tb_close(&t);
    const char *cfg =
        "{\"gpu\": {\"sms\": 2, \"max_ctas_per_sm\": 8}, \"l1d\": " L1_DEFAULT ","
        " \"l2\": {\"slices\": 2, \"sets\": 64, \"ways\": 8, \"interleave_bytes\": 256,"
        "  \"partitions\": {\"count\": 2}},"
        ONE_LOAD_TIMING(32) "}";
    json_t *r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "kernels.0.timing.cycles"), 274);
    CHECK_EQ_U(jget(r, "kernels.0.timing.resources.l2_fabric.messages"), 4);
    CHECK_EQ_U(jget(r, "kernels.0.timing.resources.l2_fabric.bytes"), 128);
    CHECK_REAL(r, "kernels.0.timing.memory_latency.dram.mean_cycles", 127);
    CHECK_REAL(r, "kernels.0.timing.memory_latency.l2_hit.mean_cycles", 274 - 200);
    json_decref(r);
    unlink(t.path);
}

int main(void)
{
    chip_links_bypass();
    chip_links();
    vws_estimator();
    vws_throttles();
    one_load();
    dram_bandwidth();
    mshr_bound();
    out_of_order_arrivals();
    scheduler_order();
    compute_only();
    dram_rows();
    shared_memory();
    config_errors();
    scoreboard();
    barrier();
    writes_acknowledged();
    l1_pressure();
    coalescer_timed();
    l2_fabric();
    alu_units();
    l2_merge_limit();
    vws_barrier();
    alu_mixed();
    CHECK_DONE();
}
