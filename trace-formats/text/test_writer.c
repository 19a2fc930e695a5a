/* Text writer: the exact bytes written for specific records (the canonical
 * form of trace-formats/text/README.md) and the records it refuses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcreplay/format.h"

extern const struct gcr_trace_format gcr_format_text;

/* A writer on an in-memory stream. */
struct mem_writer {
    FILE *f;
    char *buf;
    size_t len;
    void *st;
};

static void mw_open(struct mem_writer *m)
{
    struct gcr_err err;
    const struct gcr_write_opts opts = GCR_WRITE_OPTS_DEFAULT;
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    CHECK(m->f != NULL);
    CHECK_EQ_U(gcr_format_text.writer_open(&m->st, m->f, "out.txt", &opts, &err), 0);
}

/* Returns what was written since the previous call. */
static const char *mw_take(struct mem_writer *m, size_t *from)
{
    fflush(m->f);
    const char *s = m->buf + *from;
    *from = m->len;
    return s;
}

static void mw_close(struct mem_writer *m)
{
    gcr_format_text.writer_close(m->st);
    fclose(m->f);
    free(m->buf);
}

static int write_rec(struct mem_writer *m, const struct gcr_record *r, struct gcr_err *err)
{
    return gcr_format_text.writer_write(m->st, r, err);
}

/* Writes one record and compares its line with `want`. */
static void expect_line(struct mem_writer *m, size_t *from, const struct gcr_record *r,
                        const char *want, int line)
{
    struct gcr_err err = {GCR_OK, ""};
    int rc = write_rec(m, r, &err);
    CHECK_EQ_U(rc, 0);
    if (rc != 0)
        fprintf(stderr, "  writer error: %s\n", err.msg);
    const char *got = mw_take(m, from);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%s:%d: wrote \"%s\", expected \"%s\"\n", __FILE__, line, got, want);
        check_failures++;
    }
}

static struct gcr_record kernel(uint32_t id, const char *name, uint32_t gx, uint32_t gy,
                                uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz,
                                uint32_t shmem, uint32_t regs)
{
    struct gcr_record r;
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_KERNEL_BEGIN;
    r.u.kbegin = (struct gcr_kernel_begin){id, {gx, gy, gz}, {bx, by, bz}, shmem, regs, name};
    return r;
}

static struct gcr_record end(uint32_t id)
{
    struct gcr_record r;
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_KERNEL_END;
    r.u.kend.id = id;
    return r;
}

static struct gcr_record copy(uint64_t dst, uint64_t bytes)
{
    struct gcr_record r;
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_MEMCPY;
    r.u.memcpy.dst = dst;
    r.u.memcpy.bytes = bytes;
    return r;
}

static struct gcr_record nonmem(uint32_t cta, uint32_t warp, uint32_t count)
{
    struct gcr_record r;
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_NONMEM;
    r.u.nonmem = (struct gcr_nonmem){cta, warp, count, 0};
    return r;
}

/* addrs: addresses of the active lanes in ascending lane order. */
static struct gcr_record insn(uint32_t cta, uint32_t warp, uint64_t pc, enum gcr_op op,
                              enum gcr_space space, enum gcr_cache_op cache, uint16_t width,
                              uint32_t mask, const uint64_t *addrs)
{
    struct gcr_record r;
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_WARP_INSN;
    struct gcr_warp_insn *in = &r.u.insn;
    in->cta = cta;
    in->warp = warp;
    in->pc = pc;
    in->op = (uint8_t)op;
    in->space = (uint8_t)space;
    in->cache_op = (uint8_t)cache;
    in->width = width;
    in->active_mask = mask;
    int k = 0;
    for (int lane = 0; lane < GCR_WARP_SIZE; lane++)
        if (mask >> lane & 1u)
            in->addr[lane] = addrs[k++];
        else
            in->addr[lane] = 0xdeadbeef; /* inactive lanes must not be written */
    return r;
}

static void test_canonical_lines(void)
{
    struct mem_writer m;
    size_t from = 0;
    struct gcr_err err;
    mw_open(&m);
    CHECK(strcmp(mw_take(&m, &from), "#gcreplay-text 1\n") == 0);

    /* The lines shown in the README. */
    struct gcr_record r = kernel(7, "-", 2, 3, 4, 32, 4, 1, 49152, 255);
    expect_line(&m, &from, &r, "kernel 7 %2D grid=2,3,4 block=32,4,1 shmem=49152 regs=255\n",
                __LINE__);
    const uint64_t ends[] = {0x100, 0x100 + 65535};
    r = insn(0, 3, 0x1a0, GCR_OP_STORE, GCR_SPACE_LOCAL, GCR_CACHEOP_BYPASS_L1, 16, 0x80000001,
             ends);
    expect_line(&m, &from, &r, "0 3 0x1a0 store local cache=bypass_l1 16 0x80000001 0x100+65535\n",
                __LINE__);
    const uint64_t list[] = {0x1000, 0x1010, 0x1004};
    r = insn(12, 0, 0x4f0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4, 0x7, list);
    expect_line(&m, &from, &r, "12 0 0x4f0 load global 4 0x00000007 0x1000 0x1010 0x1004\n",
                __LINE__);
    r = nonmem(5, 1, 42);
    expect_line(&m, &from, &r, "5 1 compute 42\n", __LINE__);
    r = end(7);
    expect_line(&m, &from, &r, "end 7\n", __LINE__);
    r = copy(0x7f0000000000, 4096);
    expect_line(&m, &from, &r, "memcpy 0x7f0000000000 4096\n", __LINE__);

    /* Extreme values and every address form. */
    r = copy(0, 0);
    expect_line(&m, &from, &r, "memcpy 0x0 0\n", __LINE__);
    r = copy(0xffffff0000000000ull, 1ull << 40); /* the largest copy, ending at 2^64 - 1 */
    expect_line(&m, &from, &r, "memcpy 0xffffff0000000000 1099511627776\n", __LINE__);
    /* The largest launch CUDA allows: 2^32-1 CTAs of 1024 threads. */
    r = kernel(UINT32_MAX, "", 1431655765, 3, 1, 1024, 1, 1, UINT32_MAX, 0);
    expect_line(&m, &from, &r,
                "kernel 4294967295 - grid=1431655765,3,1 block=1024,1,1 shmem=4294967295"
                " regs=0\n",
                __LINE__);
    r = insn(UINT32_MAX - 1, 31, UINT64_MAX, GCR_OP_ATOMIC, GCR_SPACE_SHARED,
             GCR_CACHEOP_DEFAULT, 256, 0, NULL);
    expect_line(&m, &from, &r,
                "4294967294 31 0xffffffffffffffff atomic shared 256 0x00000000 -\n", __LINE__);
    const uint64_t one[] = {0xdead};
    r = insn(UINT32_MAX - 1, 0, 0, GCR_OP_REDUCTION, GCR_SPACE_CONST, GCR_CACHEOP_DEFAULT, 1,
             0x100, one);
    expect_line(&m, &from, &r, "4294967294 0 0x0 reduction const 1 0x00000100 0xdead\n",
                __LINE__);
    const uint64_t same[] = {0x40, 0x40, 0x40, 0x40};
    r = insn(3, 0, 0x8, GCR_OP_LOAD, GCR_SPACE_TEXTURE, GCR_CACHEOP_DEFAULT, 4, 0xf0000000,
             same);
    expect_line(&m, &from, &r, "3 0 0x8 load texture 4 0xf0000000 0x40+0\n", __LINE__);
    const uint64_t down[] = {0x100, 0xfc, 0xf8};
    r = insn(3, 1, 0x18, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_BYPASS_L1, 8, 0x00010101,
             down);
    expect_line(&m, &from, &r, "3 1 0x18 load global cache=bypass_l1 8 0x00010101 0x100-4\n",
                __LINE__);
    const uint64_t pair[] = {0x10, 0x5};
    r = insn(3, 1, 0x20, GCR_OP_STORE, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4, 0x9, pair);
    expect_line(&m, &from, &r, "3 1 0x20 store global 4 0x00000009 0x10-11\n", __LINE__);
    const uint64_t far[] = {0, 0x8000000000000000};
    r = insn(3, 1, 0x28, GCR_OP_STORE, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4, 0x3, far);
    expect_line(&m, &from, &r, "3 1 0x28 store global 4 0x00000003 0x0-9223372036854775808\n",
                __LINE__);
    const uint64_t wrap[] = {0xfffffffffffffff0, 0x10, 0x30};
    r = insn(3, 1, 0x30, GCR_OP_STORE, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4, 0x7, wrap);
    expect_line(&m, &from, &r, "3 1 0x30 store global 4 0x00000007 0xfffffffffffffff0+32\n",
                __LINE__);
    uint64_t full[32];
    char want[2048];
    int n = snprintf(want, sizeof want, "3 1 0x38 load local 4 0xffffffff");
    for (int k = 0; k < 32; k++) {
        full[k] = 0x7f0000000000u + (uint64_t)(k ^ 1) * 4u; /* pairs swapped: not strided */
        n += snprintf(want + n, sizeof want - (size_t)n, " 0x%llx",
                      (unsigned long long)full[k]);
    }
    snprintf(want + n, sizeof want - (size_t)n, "\n");
    r = insn(3, 1, 0x38, GCR_OP_LOAD, GCR_SPACE_LOCAL, GCR_CACHEOP_DEFAULT, 4, 0xffffffff, full);
    expect_line(&m, &from, &r, want, __LINE__);
    r = nonmem(3, 0, UINT32_MAX);
    expect_line(&m, &from, &r, "3 0 compute 4294967295\n", __LINE__);
    /* Register dependencies: `-` for none, else the unit, the barrier, the distances
     * ascending, then the non-memory distances ascending. */
    r = nonmem(3, 0, 2);
    r.u.nonmem.waits = GCR_WAITS_KNOWN;
    expect_line(&m, &from, &r, "3 0 compute 2 waits=-\n", __LINE__);
    r.u.nonmem.waits = GCR_WAITS_KNOWN | GCR_WAITS_BARRIER | 1u << 15 | 5u;
    expect_line(&m, &from, &r, "3 0 compute 2 waits=bar,1,3,16\n", __LINE__);
    r = insn(3, 1, 0x40, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4, 0, NULL);
    r.u.insn.waits = GCR_WAITS_KNOWN | 2u;
    expect_line(&m, &from, &r, "3 1 0x40 load global 4 0x00000000 - waits=2\n", __LINE__);
    r.u.insn.waits = GCR_WAITS_KNOWN | 2u | 1u << (GCR_WAITS_ALU_SHIFT + 9) |
                     1u << GCR_WAITS_ALU_SHIFT;
    expect_line(&m, &from, &r, "3 1 0x40 load global 4 0x00000000 - waits=2,a1,a10\n",
                __LINE__);
    r.u.insn.waits = GCR_WAITS_KNOWN | 1u << (GCR_WAITS_ALU_SHIFT + 2);
    expect_line(&m, &from, &r, "3 1 0x40 load global 4 0x00000000 - waits=a3\n", __LINE__);
    r = nonmem(3, 0, 1);
    static const char *const unit_lines[GCR_UNIT_COUNT] = {
        "", "3 0 compute 1 waits=int\n", "3 0 compute 1 waits=sp\n", "3 0 compute 1 waits=dp\n",
        "3 0 compute 1 waits=sfu\n", "3 0 compute 1 waits=tensor\n",
        "3 0 compute 1 waits=branch\n", "3 0 compute 1 waits=tex\n"};
    for (int u = 1; u < GCR_UNIT_COUNT; u++) {
        r.u.nonmem.waits = gcr_waits_with_unit(GCR_WAITS_KNOWN, (enum gcr_unit)u);
        expect_line(&m, &from, &r, unit_lines[u], __LINE__);
    }
    r.u.nonmem.waits = gcr_waits_with_unit(GCR_WAITS_ALL, GCR_UNIT_SFU);
    expect_line(&m, &from, &r,
                "3 0 compute 1 waits=sfu,bar,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,a1,a2,a3,a4,"
                "a5,a6,a7,a8,a9,a10\n",
                __LINE__);
    r = end(UINT32_MAX);
    expect_line(&m, &from, &r, "end 4294967295\n", __LINE__);

    /* Names: blanks, controls, bytes >= 0x80, `%` and `#` are escaped. */
    r = kernel(2, "vecadd<float>(float*, int)", 1, 1, 1, 1, 1, 1, 0, 0);
    expect_line(&m, &from, &r,
                "kernel 2 vecadd<float>(float*,%20int) grid=1,1,1 block=1,1,1 shmem=0 regs=0\n",
                __LINE__);
    r = end(2);
    expect_line(&m, &from, &r, "end 2\n", __LINE__);
    r = kernel(3, "#a%b\tc\x7f\xc3\xa9-_=~", 1, 1, 1, 1, 1, 1, 0, 0);
    expect_line(&m, &from, &r,
                "kernel 3 %23a%25b%09c%7F%C3%A9-_=~ grid=1,1,1 block=1,1,1 shmem=0 regs=0\n",
                __LINE__);
    r = end(3);
    expect_line(&m, &from, &r, "end 3\n", __LINE__);

    CHECK_EQ_U(gcr_format_text.writer_finish(m.st, &err), 0);
    mw_close(&m);
}

/* A long name is written in full (the writer has no fixed line buffer for it). */
static void test_long_name(void)
{
    struct mem_writer m;
    size_t from = 0;
    struct gcr_err err;
    char *name = malloc(70001);
    for (int i = 0; i < 70000; i++)
        name[i] = i % 3 == 0 ? ' ' : 'n';
    name[70000] = '\0';
    mw_open(&m);
    mw_take(&m, &from);
    struct gcr_record r = kernel(1, name, 1, 1, 1, 1, 1, 1, 0, 0);
    CHECK_EQ_U(write_rec(&m, &r, &err), 0);
    const char *got = mw_take(&m, &from);
    CHECK_EQ_U(strlen(got), strlen("kernel 1  grid=1,1,1 block=1,1,1 shmem=0 regs=0\n") +
                                70000 / 3 * 2 + (70000 / 3 + 1) * 3);
    CHECK(strncmp(got, "kernel 1 %20nn%20nn", 19) == 0);
    mw_close(&m);
    free(name);
}

/* Records breaking the stream rules are refused with the record number, and
 * nothing is written for them. */
static void expect_refused(struct mem_writer *m, size_t *from, const struct gcr_record *r,
                           const char *what)
{
    struct gcr_err err = {GCR_OK, ""};
    CHECK_EQ_U(write_rec(m, r, &err), (unsigned long long)-1);
    CHECK_EQ_U(err.status, GCR_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, what);
    CHECK_STR_CONTAINS(err.msg, "out.txt: record ");
    CHECK(strcmp(mw_take(m, from), "") == 0);
}

static void test_refused(void)
{
    struct mem_writer m;
    size_t from = 0;
    struct gcr_err err;
    mw_open(&m);
    mw_take(&m, &from);

    struct gcr_record r = nonmem(0, 0, 1);
    expect_refused(&m, &from, &r, "record 1: non-memory instruction count outside any kernel");
    const uint64_t a[] = {0x10};
    r = insn(0, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4, 1, a);
    expect_refused(&m, &from, &r, "record 2: warp instruction outside any kernel");
    r = end(1);
    expect_refused(&m, &from, &r, "record 3: kernel end (id 1) outside any kernel");
    r = kernel(1, NULL, 1, 1, 1, 1, 1, 1, 0, 0);
    expect_refused(&m, &from, &r, "record 4: kernel has no name");
    r = kernel(1, "k", 0, 1, 1, 1, 1, 1, 0, 0);
    expect_refused(&m, &from, &r, "record 5: kernel grid and block dimensions must be >= 1");

    r = kernel(1, "k", 4, 1, 1, 64, 1, 1, 0, 0);
    CHECK_EQ_U(write_rec(&m, &r, &err), 0);
    mw_take(&m, &from);
    r = copy(0, 1);
    expect_refused(&m, &from, &r, "record 7: memcpy inside kernel 1");
    r = kernel(2, "k", 1, 1, 1, 1, 1, 1, 0, 0);
    expect_refused(&m, &from, &r, "record 8: kernel 2 begins before kernel 1 has ended");
    r = insn(0, 0, 0, GCR_OP_COUNT, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4, 1, a);
    expect_refused(&m, &from, &r, "record 9: unknown opcode class");
    r = insn(0, 0, 0, GCR_OP_LOAD, GCR_SPACE_COUNT, GCR_CACHEOP_DEFAULT, 4, 1, a);
    expect_refused(&m, &from, &r, "record 10: unknown memory space");
    r = insn(0, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_COUNT, 4, 1, a);
    expect_refused(&m, &from, &r, "record 11: unknown cache operator");
    r = insn(0, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 257, 1, a);
    expect_refused(&m, &from, &r, "record 12: access width must be 1..256 bytes");
    r = insn(4, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4, 1, a);
    expect_refused(&m, &from, &r, "record 13: CTA id outside the kernel's grid (CTA 4, warp 0;"
                                  " kernel 1 has 4 CTAs of 2 warps)");
    r = nonmem(0, 2, 1);
    expect_refused(&m, &from, &r, "record 14: warp id outside the kernel's CTA");
    r = nonmem(0, 0, 0);
    expect_refused(&m, &from, &r, "record 15: non-memory instruction count must be >= 1");
    r = nonmem(0, 0, 1);
    r.u.nonmem.waits = GCR_WAITS_BARRIER;
    expect_refused(&m, &from, &r,
                   "record 16: register dependencies on a record whose registers are not known");
    r = insn(0, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4, 1, a);
    r.u.insn.waits = GCR_WAITS_KNOWN | 1u << 29; /* no such bit */
    expect_refused(&m, &from, &r, "record 17: register dependencies name memory instructions");
    r.u.insn.waits = gcr_waits_with_unit(GCR_WAITS_KNOWN, GCR_UNIT_INT);
    expect_refused(&m, &from, &r, "record 18: an execution unit on a memory instruction");
    r = nonmem(0, 0, 2);
    r.u.nonmem.waits = gcr_waits_with_unit(GCR_WAITS_KNOWN, GCR_UNIT_SP);
    expect_refused(&m, &from, &r,
                   "record 19: an execution unit on a run of several non-memory instructions");
    r = nonmem(0, 0, 1);
    r.u.nonmem.waits = GCR_WAITS_KNOWN | 1u << GCR_WAITS_ALU_SHIFT;
    expect_refused(&m, &from, &r, "record 20: non-memory dependencies on a non-memory run "
                                  "without an execution unit");

    r = nonmem(1, 0, 1);
    CHECK_EQ_U(write_rec(&m, &r, &err), 0);
    r = nonmem(0, 1, 1);
    CHECK_EQ_U(write_rec(&m, &r, &err), 0);
    mw_take(&m, &from);
    r = nonmem(1, 1, 1);
    expect_refused(&m, &from, &r, "record 23: CTA 1 reappears after its records ended");
    r = end(2);
    expect_refused(&m, &from, &r, "record 24: kernel end id 2 does not match the open kernel 1");

    CHECK_EQ_U(gcr_format_text.writer_finish(m.st, &err), (unsigned long long)-1);
    CHECK_STR_CONTAINS(err.msg, "out.txt: trace ends inside kernel 1");
    r = end(1);
    CHECK_EQ_U(write_rec(&m, &r, &err), 0);
    CHECK_EQ_U(gcr_format_text.writer_finish(m.st, &err), 0);
    CHECK(strcmp(m.buf, "#gcreplay-text 1\nkernel 1 k grid=4,1,1 block=64,1,1 shmem=0 regs=0\n"
                        "1 0 compute 1\n0 1 compute 1\nend 1\n") == 0);
    mw_close(&m);
}

/* Output errors surface as GCR_E_IO by finish at the latest. */
static void test_write_failure(void)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        return; /* not on this system */
    void *st;
    struct gcr_err err;
    const struct gcr_write_opts opts = GCR_WRITE_OPTS_DEFAULT;
    int rc = gcr_format_text.writer_open(&st, f, "full.txt", &opts, &err);
    if (rc == 0) {
        struct gcr_record r = copy(1, 2);
        for (int i = 0; i < 10000 && rc == 0; i++)
            rc = gcr_format_text.writer_write(st, &r, &err);
        if (rc == 0)
            rc = gcr_format_text.writer_finish(st, &err);
        gcr_format_text.writer_close(st);
    }
    CHECK_EQ_U(rc, (unsigned long long)-1);
    CHECK_EQ_U(err.status, GCR_E_IO);
    CHECK_STR_CONTAINS(err.msg, "full.txt: write failed: ");
    fclose(f);
}

int main(void)
{
    test_canonical_lines();
    test_long_name();
    test_refused();
    test_write_failure();
    CHECK_DONE();
}
