/* The stream rules shared by every trace format (src/core/stream.h): every rule with its exact
 * message and the rule it names, the end-of-trace check, refusals that leave the stream as it
 * was, a 2^32-1-CTA grid that allocates only for the CTAs present, and the fast path of one CTA's
 * run. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "core/stream.h"

static struct gcr_record kbegin(uint32_t id, uint32_t gx, uint32_t gy, uint32_t threads)
{
    struct gcr_record r = {.kind = GCR_REC_KERNEL_BEGIN};
    r.u.kbegin = (struct gcr_kernel_begin){
        .id = id, .grid = {gx, gy, 1}, .block = {threads, 1, 1}, .name = "k"};
    return r;
}

static struct gcr_record kend(uint32_t id)
{
    struct gcr_record r = {.kind = GCR_REC_KERNEL_END};
    r.u.kend.id = id;
    return r;
}

static struct gcr_record load(uint32_t cta, uint32_t warp)
{
    struct gcr_record r = {.kind = GCR_REC_WARP_INSN};
    r.u.insn.cta = cta;
    r.u.insn.warp = warp;
    r.u.insn.op = GCR_OP_LOAD;
    r.u.insn.space = GCR_SPACE_GLOBAL;
    r.u.insn.width = 4;
    r.u.insn.active_mask = 1;
    r.u.insn.addr[0] = 0x1000;
    return r;
}

static struct gcr_record nonmem(uint32_t cta, uint32_t warp, uint32_t count)
{
    struct gcr_record r = {.kind = GCR_REC_NONMEM};
    r.u.nonmem = (struct gcr_nonmem){.cta = cta, .warp = warp, .count = count};
    return r;
}

static struct gcr_record copy(void)
{
    struct gcr_record r = {.kind = GCR_REC_MEMCPY};
    r.u.memcpy = (struct gcr_memcpy){.dst = 0x1000, .bytes = 64};
    return r;
}

/* Applies a record the rules must accept. */
static void expect_accept(struct gcr_stream_rules *s, struct gcr_record r, int line)
{
    char why[256] = "";
    enum gcr_status st = gcr_stream_rules_apply(s, &r, why, sizeof why);
    if (st != GCR_OK) {
        fprintf(stderr, "%s:%d: record refused: %s\n", __FILE__, line, why);
        check_failures++;
    }
}

/* Applies a record the rules must refuse with exactly this message. */
static void expect_refuse(struct gcr_stream_rules *s, struct gcr_record r,
                          enum gcr_stream_rule rule, const char *msg, int line)
{
    char why[256] = "";
    enum gcr_status st = gcr_stream_rules_apply(s, &r, why, sizeof why);
    if (st != GCR_E_FORMAT || s->broken != rule || strcmp(why, msg) != 0) {
        fprintf(stderr, "%s:%d: status %d, rule %d, \"%s\"\n  wanted %d, %d, \"%s\"\n", __FILE__,
                line, (int)st, (int)s->broken, why, (int)GCR_E_FORMAT, (int)rule, msg);
        check_failures++;
    }
}

#define ACCEPT(s, r) expect_accept((s), (r), __LINE__)
#define REFUSE(s, r, rule, msg) expect_refuse((s), (r), (rule), (msg), __LINE__)

/* Chunks of the finished-CTA set that hold bits (the set allocates them on demand). */
static size_t chunks_in_use(const struct gcr_stream_rules *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->finished.nchunks; i++)
        n += s->finished.chunks[i] != NULL;
    return n;
}

/* A valid stream: copies between kernels, CTAs in any order, warps interleaved. */
static void test_valid_stream(void)
{
    struct gcr_stream_rules s = {0};
    char why[256] = "";
    CHECK(gcr_stream_rules_kernel(&s) == NULL);
    CHECK_EQ_U(gcr_stream_rules_finish(&s, why, sizeof why), GCR_OK); /* an empty trace */
    ACCEPT(&s, copy());
    struct gcr_record kb = kbegin(1, 4, 1, 64); /* 4 CTAs of 2 warps */
    ACCEPT(&s, kb);
    const struct gcr_kernel_begin *open = gcr_stream_rules_kernel(&s);
    CHECK(open != NULL);
    if (open) {
        CHECK_EQ_U(open->id, 1);
        CHECK_EQ_U(open->grid[0], 4);
        CHECK_EQ_U(open->block[0], 64);
        CHECK(open->name == NULL); /* the caller's name is valid only until its next record */
    }
    ACCEPT(&s, load(2, 0));
    ACCEPT(&s, nonmem(2, 1, 3));
    ACCEPT(&s, load(2, 1));
    ACCEPT(&s, load(0, 1));
    ACCEPT(&s, load(3, 0));
    CHECK_EQ_U(gcr_stream_rules_finish(&s, why, sizeof why), GCR_E_FORMAT);
    CHECK(strcmp(why, "trace ends inside kernel 1 before its kernel end") == 0);
    ACCEPT(&s, kend(1));
    CHECK(gcr_stream_rules_kernel(&s) == NULL);
    ACCEPT(&s, copy());
    /* Kernel ids may repeat, and a new kernel starts with no finished CTA. */
    ACCEPT(&s, kbegin(1, 4, 1, 64));
    ACCEPT(&s, load(2, 0));
    ACCEPT(&s, load(0, 0));
    ACCEPT(&s, kend(1));
    why[0] = '\0';
    CHECK_EQ_U(gcr_stream_rules_finish(&s, why, sizeof why), GCR_OK);
    CHECK(why[0] == '\0');
    gcr_stream_rules_free(&s);
}

/* Each rule with its message. Every refusal leaves the stream as it was, which the records
 * accepted after it show. */
static void test_rules(void)
{
    struct gcr_stream_rules s = {0};
    REFUSE(&s, kend(2), GCR_STREAM_RULE_END_INSIDE, "kernel end (id 2) outside any kernel");
    REFUSE(&s, load(0, 0), GCR_STREAM_RULE_INSN_INSIDE, "warp instruction outside any kernel");
    REFUSE(&s, nonmem(0, 0, 1), GCR_STREAM_RULE_INSN_INSIDE,
           "non-memory instruction count outside any kernel");
    /* Where a record stands is checked before its fields. */
    struct gcr_record bad_width = load(0, 0);
    bad_width.u.insn.width = 0;
    REFUSE(&s, bad_width, GCR_STREAM_RULE_INSN_INSIDE, "warp instruction outside any kernel");
    REFUSE(&s, kbegin(1, 0, 1, 64), GCR_STREAM_RULE_VALID_RECORD,
           "kernel grid and block dimensions must be >= 1 (kernel 1: grid 0,1,1, block 64,1,1)");
    struct gcr_record unknown = copy();
    unknown.kind = (enum gcr_rec_kind)99;
    REFUSE(&s, unknown, GCR_STREAM_RULE_VALID_RECORD, "unknown record kind");
    CHECK(gcr_stream_rules_kernel(&s) == NULL);
    ACCEPT(&s, copy());

    ACCEPT(&s, kbegin(1, 4, 1, 64));
    REFUSE(&s, kbegin(2, 1, 1, 32), GCR_STREAM_RULE_NO_NESTING,
           "kernel 2 begins before kernel 1 has ended");
    REFUSE(&s, kbegin(2, 0, 1, 32), GCR_STREAM_RULE_NO_NESTING,
           "kernel 2 begins before kernel 1 has ended");
    REFUSE(&s, kend(2), GCR_STREAM_RULE_END_MATCHES,
           "kernel end id 2 does not match the open kernel 1");
    REFUSE(&s, copy(), GCR_STREAM_RULE_MEMCPY_OUTSIDE,
           "memcpy inside kernel 1 (copies are allowed only outside kernels)");
    REFUSE(&s, bad_width, GCR_STREAM_RULE_VALID_RECORD, "access width must be 1..256 bytes");
    REFUSE(&s, nonmem(0, 0, 0), GCR_STREAM_RULE_VALID_RECORD,
           "non-memory instruction count must be >= 1");
    /* An out-of-range id is shown with the kernel's shape... */
    REFUSE(&s, load(4, 0), GCR_STREAM_RULE_VALID_RECORD,
           "CTA id outside the kernel's grid (CTA 4, warp 0; kernel 1 has 4 CTAs of 2 warps)");
    REFUSE(&s, nonmem(0, 2, 1), GCR_STREAM_RULE_VALID_RECORD,
           "warp id outside the kernel's CTA (CTA 0, warp 2; kernel 1 has 4 CTAs of 2 warps)");
    /* ...but not when the record has another problem first. */
    struct gcr_record bad_op = load(4, 0);
    bad_op.u.insn.op = GCR_OP_COUNT;
    REFUSE(&s, bad_op, GCR_STREAM_RULE_VALID_RECORD, "unknown opcode class");
    const struct gcr_kernel_begin *open = gcr_stream_rules_kernel(&s);
    CHECK(open != NULL && open->id == 1);

    ACCEPT(&s, load(0, 0));
    ACCEPT(&s, nonmem(1, 1, 2));
    REFUSE(&s, load(0, 1), GCR_STREAM_RULE_CTA_CONTIGUOUS,
           "CTA 0 reappears after its records ended; all records of one CTA must be contiguous");
    REFUSE(&s, nonmem(0, 0, 1), GCR_STREAM_RULE_CTA_CONTIGUOUS,
           "CTA 0 reappears after its records ended; all records of one CTA must be contiguous");
    ACCEPT(&s, load(1, 0)); /* CTA 1's run goes on after the refusals */
    ACCEPT(&s, load(3, 1));
    REFUSE(&s, load(1, 1), GCR_STREAM_RULE_CTA_CONTIGUOUS,
           "CTA 1 reappears after its records ended; all records of one CTA must be contiguous");
    ACCEPT(&s, kend(1));

    /* Singular shapes read as such. */
    ACCEPT(&s, kbegin(3, 1, 1, 32));
    REFUSE(&s, load(1, 0), GCR_STREAM_RULE_VALID_RECORD,
           "CTA id outside the kernel's grid (CTA 1, warp 0; kernel 3 has 1 CTA of 1 warp)");
    ACCEPT(&s, kend(3));

    /* A message is cut to the caller's buffer. */
    char small[8];
    struct gcr_record end9 = kend(9);
    CHECK_EQ_U(gcr_stream_rules_apply(&s, &end9, small, sizeof small), GCR_E_FORMAT);
    CHECK(strcmp(small, "kernel ") == 0);
    gcr_stream_rules_free(&s);
}

/* The most CTAs a kernel may declare: 65537 x 65535 = 2^32-1. Memory follows the CTAs present,
 * not the grid: one table of 64 Ki pointers and one chunk of bits per finished CTA's chunk. */
static void test_huge_grid(void)
{
    struct gcr_stream_rules s = {0};
    ACCEPT(&s, kbegin(5, 65537, 65535, 32));
    CHECK_EQ_U(s.finished.nchunks, 65536);
    CHECK_EQ_U(chunks_in_use(&s), 0);
    ACCEPT(&s, load(0, 0));
    ACCEPT(&s, load(UINT32_MAX - 1, 0)); /* the last CTA */
    ACCEPT(&s, nonmem(123456789, 0, 1));
    CHECK_EQ_U(chunks_in_use(&s), 2); /* CTAs 0 and 2^32-2 have finished */
    REFUSE(&s, load(UINT32_MAX - 1, 0), GCR_STREAM_RULE_CTA_CONTIGUOUS,
           "CTA 4294967294 reappears after its records ended; all records of one CTA must be"
           " contiguous");
    REFUSE(&s, load(UINT32_MAX, 0), GCR_STREAM_RULE_VALID_RECORD,
           "CTA id outside the kernel's grid (CTA 4294967295, warp 0; kernel 5 has 4294967295"
           " CTAs of 1 warp)");
    ACCEPT(&s, load(1, 0));
    ACCEPT(&s, kend(5));
    CHECK(s.finished.chunks == NULL);
    gcr_stream_rules_free(&s);
}

/* One CTA's run, with warps and record kinds interleaved, needs no bookkeeping at all; freeing
 * mid-kernel releases everything and leaves the rules ready for a new trace. */
static void test_same_cta_run(void)
{
    struct gcr_stream_rules s = {0};
    ACCEPT(&s, kbegin(7, 1000, 1, 256)); /* 8 warps per CTA */
    for (uint32_t i = 0; i < 10000; i++) {
        ACCEPT(&s, load(42, i % 8));
        ACCEPT(&s, nonmem(42, (i + 3) % 8, 1 + i % 5));
    }
    CHECK_EQ_U(chunks_in_use(&s), 0);
    ACCEPT(&s, load(43, 0));
    CHECK_EQ_U(chunks_in_use(&s), 1);
    gcr_stream_rules_free(&s);
    CHECK(gcr_stream_rules_kernel(&s) == NULL);
    CHECK(s.finished.chunks == NULL);
    char why[256] = "";
    CHECK_EQ_U(gcr_stream_rules_finish(&s, why, sizeof why), GCR_OK);
    ACCEPT(&s, copy());
    ACCEPT(&s, kbegin(8, 2, 1, 32));
    ACCEPT(&s, load(1, 0));
    ACCEPT(&s, kend(8));
    gcr_stream_rules_free(&s);
}

int main(void)
{
    test_valid_stream();
    test_rules();
    test_huge_grid();
    test_same_cta_run();
    CHECK_DONE();
}
