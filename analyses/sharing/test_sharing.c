/* Sharing analysis: tiny traces whose sharing is known by construction.
 * One one-warp CTA per SM (round-robin puts CTA c on SM c); with the default
 * 4 chips and n CTAs, chip = c / ceil(n / 4). */
#include "analyses/analysis_util.h"
#include "replay/replay_util.h"

#define A 0x100000ull /* 4-KB aligned */
#define P "kernels.0.analyses.sharing."
#define T "total.analyses.sharing."

/* One lane (4 bytes, or `width`) of a global access at addr. */
static void one_lane(struct tb *t, uint32_t cta, enum gcr_op op, uint16_t width, uint64_t addr)
{
    tb_access(t, cta, 0, op, GCR_SPACE_GLOBAL, width, 1u, addr, 0);
}

static json_t *run(const char *path, const char *options)
{
    char cfg[512];
    snprintf(cfg, sizeof cfg, "{\"gpu\": {\"sms\": 8}, \"analyses\": {\"sharing\": %s}}",
             options);
    return must_replay(cfg, path);
}

static void check_classes(json_t *r, const char *cls, long long not_shared,
                          long long false_shared, long long true_shared)
{
    char path[128];
    snprintf(path, sizeof path, P "%s.not_shared_bytes", cls);
    CHECK_EQ_U(jget(r, path), not_shared);
    snprintf(path, sizeof path, P "%s.false_shared_bytes", cls);
    CHECK_EQ_U(jget(r, path), false_shared);
    snprintf(path, sizeof path, P "%s.true_shared_bytes", cls);
    CHECK_EQ_U(jget(r, path), true_shared);
}

/* 8 SMs (2 clusters of 4, 4 chips of 2 CTAs) all read the same 4 lines. */
static void read_by_all(void)
{
    struct tb t;
    tb_open(&t, "sharing-all");
    tb_kernel(&t, 1, 8, 32, 0, 0);
    for (uint32_t c = 0; c < 8; c++)
        for (uint32_t i = 0; i < 4; i++)
            tb_load(&t, c, 0, A + i * 128);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "{}");
    CHECK_EQ_U(jget(r, P "lines"), 4);
    CHECK_EQ_U(jget(r, P "pages"), 1);
    CHECK_EQ_U(jget(r, P "bytes_touched"), 512);
    CHECK_EQ_U(jget(r, P "sms_per_line.1"), 0);
    CHECK_EQ_U(jget(r, P "sms_per_line.5-8"), 4);
    CHECK_EQ_U(jget(r, P "clusters_per_line.2"), 4);
    CHECK_EQ_U(jget(r, P "chips_per_line.3-4"), 4);
    CHECK_EQ_U(jget(r, P "chips_per_line.1"), 0);
    check_classes(r, "sac", 0, 0, 512);
    check_classes(r, "line", 0, 0, 512);
    check_classes(r, "page", 0, 0, 4096);
    /* One cluster of 8: every line in exactly one cluster. */
    json_decref(r);
    r = run(t.path, "{\"cluster_size\": 8, \"chips\": 1}");
    CHECK_EQ_U(jget(r, P "clusters_per_line.1"), 4);
    CHECK_EQ_U(jget(r, P "chips_per_line.1"), 4);
    check_classes(r, "sac", 512, 0, 0);
    check_classes(r, "page", 4096, 0, 0);
    json_decref(r);
    unlink(t.path);
}

/* Strided instructions with gaps between lanes: the replay fills only the
 * first lane's address for sharing (insn_stride_hint), which derives the
 * rest. Lane k of CTA 0 reads 4 bytes at A + 256k (32 lines, 2 pages, 128
 * bytes); CTA 7 (another chip) reads 4 bytes at A + 2 + 256k, downward from
 * its last lane: the same lines, overlapping bytes. A second warp of CTA 0
 * reads the odd lines between (A + 128 + 256k) with a negative stride. For
 * SAC every odd line is falsely shared (another chip read its page), every
 * even line truly shared. */
static void strided_gaps(void)
{
    struct tb t;
    tb_open(&t, "sharing-gaps");
    tb_kernel(&t, 1, 8, 64, 0, 0);
    tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu, A, 256);
    tb_access(&t, 0, 1, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu, A + 128 + 31 * 256,
              -256);
    tb_access(&t, 7, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu, A + 2 + 31 * 256, -256);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "{}");
    CHECK_EQ_U(jget(r, P "lines"), 64);
    CHECK_EQ_U(jget(r, P "pages"), 2);
    CHECK_EQ_U(jget(r, P "bytes_touched"), 64 * 4 + 32 * 2); /* CTA 7 adds 2 new bytes a line */
    CHECK_EQ_U(jget(r, P "sms_per_line.1"), 32);
    CHECK_EQ_U(jget(r, P "sms_per_line.2"), 32);
    check_classes(r, "sac", 0, 32 * 128, 32 * 128);
    /* Byte level: an odd line has one chip (not shared); an even line has
     * bytes 2-3 read by both chips (truly shared). */
    check_classes(r, "line", 32 * 128, 0, 32 * 128);
    json_decref(r);
    unlink(t.path);
}

/* 4 CTAs = 4 chips, each reading 2 lines of its own page: nothing shared. */
static void disjoint_chips(void)
{
    struct tb t;
    tb_open(&t, "sharing-disjoint");
    tb_kernel(&t, 1, 4, 32, 0, 0);
    for (uint32_t c = 0; c < 4; c++)
        for (uint32_t i = 0; i < 2; i++)
            tb_load(&t, c, 0, A + c * 4096 + i * 128);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "{}");
    CHECK_EQ_U(jget(r, P "lines"), 8);
    CHECK_EQ_U(jget(r, P "pages"), 4);
    CHECK_EQ_U(jget(r, P "sms_per_line.1"), 8);
    CHECK_EQ_U(jget(r, P "chips_per_line.1"), 8);
    check_classes(r, "sac", 1024, 0, 0);
    check_classes(r, "line", 1024, 0, 0);
    check_classes(r, "page", 4 * 4096, 0, 0);
    json_decref(r);
    unlink(t.path);
}

/* 2 chips on disjoint halves of one line: SAC calls the line truly shared
 * (two chips access it); at byte level it is false sharing. */
static void halves_of_a_line(void)
{
    struct tb t;
    tb_open(&t, "sharing-halves");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffu, A, 4);
    tb_access(&t, 1, 0, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0xffffu, A + 64, 4);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "{\"chips\": 2}");
    CHECK_EQ_U(jget(r, P "lines"), 1);
    CHECK_EQ_U(jget(r, P "bytes_touched"), 128);
    CHECK_EQ_U(jget(r, P "chips_per_line.2"), 1);
    check_classes(r, "sac", 0, 0, 128);
    check_classes(r, "line", 0, 128, 0);
    check_classes(r, "page", 0, 4096, 0);
    json_decref(r);
    unlink(t.path);
}

/* 2 chips on different lines of one page: SAC false sharing for both lines. */
static void lines_of_a_page(void)
{
    struct tb t;
    tb_open(&t, "sharing-page");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_load(&t, 1, 0, A + 128);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "{\"chips\": 2}");
    check_classes(r, "sac", 0, 256, 0);
    check_classes(r, "line", 256, 0, 0);
    check_classes(r, "page", 0, 4096, 0);
    json_decref(r);
    /* 128-B pages: each line is its own page, nobody shares. */
    r = run(t.path, "{\"chips\": 2, \"page_bytes\": 128}");
    check_classes(r, "sac", 256, 0, 0);
    check_classes(r, "page", 256, 0, 0);
    json_decref(r);
    unlink(t.path);
}

/* The same word from 2 chips (a load and a store): true sharing. */
static void same_word(void)
{
    struct tb t;
    tb_open(&t, "sharing-word");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    one_lane(&t, 0, GCR_OP_LOAD, 4, A + 8);
    one_lane(&t, 1, GCR_OP_STORE, 4, A + 8);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "{\"chips\": 2}");
    CHECK_EQ_U(jget(r, P "bytes_touched"), 4);
    check_classes(r, "sac", 0, 0, 128);
    check_classes(r, "line", 0, 0, 128);
    check_classes(r, "page", 0, 0, 4096);
    json_decref(r);
    unlink(t.path);
}

/* Overlaps between chips other than the line's first one (3 chips, 1 CTA each):
 * line A: chip 0 bytes 0-3, chips 1 and 2 both bytes 8-11 -> true;
 * line A+128: chip 0 bytes 0-3, chip 1 bytes 8-11, chip 2 bytes 12-15 -> false;
 * chip 1 then re-reads its own bytes of A+128: still false. */
static void later_chips(void)
{
    struct tb t;
    tb_open(&t, "sharing-later");
    tb_kernel(&t, 1, 3, 32, 0, 0);
    one_lane(&t, 0, GCR_OP_LOAD, 4, A);
    one_lane(&t, 0, GCR_OP_LOAD, 4, A + 128);
    one_lane(&t, 1, GCR_OP_LOAD, 4, A + 8);
    one_lane(&t, 1, GCR_OP_LOAD, 4, A + 128 + 8);
    one_lane(&t, 1, GCR_OP_LOAD, 4, A + 128 + 8);
    one_lane(&t, 2, GCR_OP_LOAD, 4, A + 8);
    one_lane(&t, 2, GCR_OP_LOAD, 4, A + 128 + 12);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "{\"chips\": 3}");
    CHECK_EQ_U(jget(r, P "chips_per_line.3"), 2);
    CHECK_EQ_U(jget(r, P "bytes_touched"), 8 + 12);
    check_classes(r, "line", 0, 128, 128);
    check_classes(r, "page", 0, 0, 4096);
    json_decref(r);
    unlink(t.path);
}

/* An 8-byte access at the last 4 bytes of a line touches two lines; shared
 * memory never counts. Two kernels: per-kernel figures restart, total sums. */
static void spans_and_kernels(void)
{
    struct tb t;
    tb_open(&t, "sharing-span");
    for (uint32_t k = 1; k <= 2; k++) {
        tb_kernel(&t, k, 1, 32, 0, 0);
        one_lane(&t, 0, GCR_OP_LOAD, 8, A + 124);
        tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_SHARED, 4, 0xffffffffu, 0, 4);
        tb_end(&t, k);
    }
    tb_close(&t);
    json_t *r = run(t.path, "{}");
    CHECK_EQ_U(jget(r, P "lines"), 2);
    CHECK_EQ_U(jget(r, P "bytes_touched"), 8);
    CHECK_EQ_U(jget(r, "kernels.1.analyses.sharing.lines"), 2);
    CHECK_EQ_U(jget(r, T "lines"), 4);
    CHECK_EQ_U(jget(r, T "bytes_touched"), 16);
    CHECK_EQ_U(jget(r, T "sac.not_shared_bytes"), 4 * 128);
    CHECK_EQ_U(jget(r, T "page.not_shared_bytes"), 2 * 4096);
    json_decref(r);
    unlink(t.path);
}

/* Many lines touched by many SMs: the tables grow past their first size. */
static void many_lines(void)
{
    struct tb t;
    tb_open(&t, "sharing-many");
    tb_kernel(&t, 1, 8, 32, 0, 0);
    for (uint32_t c = 0; c < 8; c++)
        for (uint32_t i = 0; i < 1500; i++)
            tb_access(&t, c, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu,
                      A + (uint64_t)i * 256 + c * 4, 256);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = run(t.path, "{}");
    /* Lane k of instruction i reads word c of line 2(i + k): lines 0, 2, ...,
     * 2*1530, each touched by every CTA, at a different word per CTA. */
    CHECK_EQ_U(jget(r, P "lines"), 1531);
    CHECK_EQ_U(jget(r, P "sms_per_line.5-8"), 1531);
    CHECK_EQ_U(jget(r, P "line.true_shared_bytes"), 0);
    CHECK_EQ_U(jget(r, P "line.false_shared_bytes"), 1531 * 128);
    json_decref(r);
    unlink(t.path);
}

/* One instruction touching more lines than the analysis keeps pending (it
 * applies some before the instruction is fully read), after enough coalesced
 * loads that the pending entries it reuses held other byte ranges. 32-byte
 * lines, so that one instruction touches 288 of them. */
static void lines_beyond_pending(void)
{
    struct tb t;
    tb_open(&t, "sharing-pending");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    for (uint32_t i = 0; i < 80; i++)
        tb_load(&t, 0, 0, A + 0x100000 + i * 128); /* 80 x 4 whole lines */
    /* Lane k reads 256 bytes at 512k + 16: bytes 16-31 of line 16k, all of
     * lines 16k+1 to 16k+7, bytes 0-15 of line 16k+8. */
    tb_access(&t, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 256, 0xffffffffu, A + 16, 512);
    tb_end(&t, 1);
    tb_close(&t);
    json_t *r = must_replay("{\"gpu\": {\"sms\": 8}, \"coalescer\": {\"line_bytes\": 32},"
                            " \"analyses\": {\"sharing\": {}}}", t.path);
    CHECK_EQ_U(jget(r, P "lines"), 320 + 288);
    CHECK_EQ_U(jget(r, P "bytes_touched"), 320 * 32 + 32 * 256);
    CHECK_EQ_U(jget(r, P "sms_per_line.1"), 320 + 288);
    check_classes(r, "line", (320 + 288) * 32, 0, 0);
    json_decref(r);
    unlink(t.path);
}

static void bad_options(void)
{
    struct tb t;
    tb_open(&t, "sharing-opts");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    tb_load(&t, 0, 0, A);
    tb_end(&t, 1);
    tb_close(&t);
    const char *bad[][2] = {
        {"{\"analyses\": {\"sharing\": {\"colour\": 1}}}", "$.analyses.sharing.colour"},
        {"{\"analyses\": {\"sharing\": {\"chips\": 0}}}", "$.analyses.sharing.chips"},
        {"{\"analyses\": {\"sharing\": {\"chips\": 65}}}", "$.analyses.sharing.chips"},
        {"{\"analyses\": {\"sharing\": {\"cluster_size\": \"4\"}}}",
         "$.analyses.sharing.cluster_size"},
        {"{\"analyses\": {\"sharing\": {\"page_bytes\": 3000}}}", "$.analyses.sharing.page_bytes"},
        {"{\"analyses\": {\"sharing\": {\"page_bytes\": 64}}}", "$.analyses.sharing.page_bytes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct gcr_err err = {0};
        json_t *r = replay_with(bad[i][0], t.path, &err);
        CHECK(r == NULL);
        CHECK(err.status == GCR_E_CONFIG);
        CHECK_STR_CONTAINS(err.msg, bad[i][1]);
        json_decref(r);
    }
    unlink(t.path);
}

/* A line's state names the kernel that last touched it with a 16-bit stamp;
 * when the stamps wrap, every state is cleared. Line X is touched by SM 0 in
 * the first kernel and by SM 1 in the 65536th, which has the first kernel's
 * stamp again: one SM, not two. (Driven directly: 65536 replays would take
 * minutes.) */
static void stamps_wrap(void)
{
    extern const struct gcr_analysis_ops gcr_analysis_sharing;
    const struct gcr_analysis_ops *ops = &gcr_analysis_sharing;
    struct gcr_config cfg = {.origin = "cfg.json"};
    struct gcr_sim_info info = {.config = &cfg, .num_sms = 2, .num_l1s = 2, .num_l2_slices = 1,
                                .line_bytes = 128, .sector_bytes = 32, .lines = test_lines()};
    struct gcr_err err = {0};
    json_t *o = json_object();
    void *sh = NULL;
    CHECK(ops->create(&sh, o, &info, &err) == 0);
    json_decref(o);
    struct gcr_kernel_begin kb = {.grid = {2, 1, 1}, .block = {32, 1, 1}, .name = "k"};
    struct gcr_warp_insn in = {.space = GCR_SPACE_GLOBAL, .width = 4, .active_mask = 1};
    for (uint32_t k = 1; k <= 65536; k++) {
        struct gcr_event begin = {.kind = GCR_EV_KERNEL_BEGIN, .kernel = &kb, .sm = UINT32_MAX};
        test_deliver(ops, sh, &begin);
        uint32_t sm = k == 65536 ? 1 : 0;
        in.cta = sm;
        in.addr[0] = k == 1 || k == 65536 ? A : A + 0x10000;
        struct gcr_event ev = {.kind = GCR_EV_INSN, .insn = &in, .sm = sm, .cta = sm};
        test_deliver(ops, sh, &ev);
        json_t *section = json_object();
        CHECK(ops->report_kernel(sh, section, &err) == 0);
        if (k == 65536) {
            CHECK_EQ_U(jget(section, "lines"), 1);
            CHECK_EQ_U(jget(section, "sms_per_line.1"), 1);
            CHECK_EQ_U(jget(section, "sms_per_line.2"), 0);
        }
        json_decref(section);
    }
    ops->destroy(sh);
}

int main(void)
{
    stamps_wrap();
    (void)tb_nonmem;
    (void)jreal;
    read_by_all();
    strided_gaps();
    disjoint_chips();
    halves_of_a_line();
    lines_of_a_page();
    same_word();
    later_chips();
    spans_and_kernels();
    many_lines();
    lines_beyond_pending();
    bad_options();
    CHECK_DONE();
}
