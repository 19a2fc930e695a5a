/* Text reader: every field of every record of the committed fixtures, each
 * address form, line-end variants, long lines, name escapes, probe, progress
 * and the errors that do not fit in a fixture file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/bytesrc.h"
#include "gcreplay/format.h"

extern const struct gcr_trace_format gcr_format_text;

#define FIXTURES GCR_SOURCE_ROOT "/trace-formats/text/fixtures/"
#define MAX_RECS 64

/* Records read from one file, with kernel names copied out of the reader. */
struct readout {
    int rc; /* last reader_open/reader_next result: 0 = clean end */
    struct gcr_err err;
    size_t n;
    struct gcr_record rec[MAX_RECS];
    char *names[MAX_RECS];
    uint64_t bytes_done; /* progress reported at the end */
};

static void read_all(const char *path, struct readout *out)
{
    void *st = NULL;
    memset(out, 0, sizeof *out);
    out->rc = gcr_format_text.reader_open(&st, NULL, path, &out->err);
    if (out->rc != 0)
        return;
    uint64_t last_progress = 0;
    while (out->n < MAX_RECS) {
        struct gcr_record *r = &out->rec[out->n];
        out->rc = gcr_format_text.reader_next(st, r, &out->err);
        uint64_t progress = gcr_format_text.reader_bytes_done(st);
        CHECK(progress >= last_progress);
        last_progress = progress;
        if (out->rc != 1)
            break;
        if (r->kind == GCR_REC_KERNEL_BEGIN) {
            out->names[out->n] = strdup(r->u.kbegin.name);
            r->u.kbegin.name = out->names[out->n];
        }
        out->n++;
    }
    out->bytes_done = gcr_format_text.reader_bytes_done(st);
    gcr_format_text.reader_close(st);
}

static void readout_free(struct readout *out)
{
    for (size_t i = 0; i < out->n; i++)
        free(out->names[i]);
}

static char *temp_path(void)
{
    const char *dir = getenv("TMPDIR");
    char *path = malloc(4096);
    snprintf(path, 4096, "%s/gcr-text-reader-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        exit(1);
    }
    close(fd);
    return path;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Reads a trace given as a string. */
static void read_text(const char *text, size_t len, struct readout *out)
{
    char *path = temp_path();
    write_file(path, text, len);
    read_all(path, out);
    unlink(path);
    free(path);
}

/* ---- field checkers: each names the test line on failure ---- */

#define NOTE_FAILURE(before, line)                                                           \
    do {                                                                                     \
        if (check_failures != (before))                                                      \
            fprintf(stderr, "  ^ in the record checked at %s:%d\n", __FILE__, (line));       \
    } while (0)

static void check_memcpy(const struct gcr_record *r, uint64_t dst, uint64_t bytes, int line)
{
    int before = check_failures;
    CHECK_EQ_U(r->kind, GCR_REC_MEMCPY);
    CHECK_EQ_U(r->u.memcpy.dst, dst);
    CHECK_EQ_U(r->u.memcpy.bytes, bytes);
    NOTE_FAILURE(before, line);
}

static void check_kernel(const struct gcr_record *r, uint32_t id, const char *name,
                         const uint32_t grid[3], const uint32_t block[3], uint32_t shmem,
                         uint32_t regs, int line)
{
    int before = check_failures;
    CHECK_EQ_U(r->kind, GCR_REC_KERNEL_BEGIN);
    CHECK_EQ_U(r->u.kbegin.id, id);
    CHECK(r->u.kbegin.name && strcmp(r->u.kbegin.name, name) == 0);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_U(r->u.kbegin.grid[i], grid[i]);
        CHECK_EQ_U(r->u.kbegin.block[i], block[i]);
    }
    CHECK_EQ_U(r->u.kbegin.shmem_bytes, shmem);
    CHECK_EQ_U(r->u.kbegin.regs_per_thread, regs);
    NOTE_FAILURE(before, line);
}

static void check_end(const struct gcr_record *r, uint32_t id, int line)
{
    int before = check_failures;
    CHECK_EQ_U(r->kind, GCR_REC_KERNEL_END);
    CHECK_EQ_U(r->u.kend.id, id);
    NOTE_FAILURE(before, line);
}

static void check_nonmem(const struct gcr_record *r, uint32_t cta, uint32_t warp,
                         uint32_t count, int line)
{
    int before = check_failures;
    CHECK_EQ_U(r->kind, GCR_REC_NONMEM);
    CHECK_EQ_U(r->u.nonmem.cta, cta);
    CHECK_EQ_U(r->u.nonmem.warp, warp);
    CHECK_EQ_U(r->u.nonmem.count, count);
    NOTE_FAILURE(before, line);
}

/* addrs: the addresses of the active lanes in ascending lane order. Inactive
 * lanes must read as 0. */
static void check_insn(const struct gcr_record *r, uint32_t cta, uint32_t warp, uint64_t pc,
                       enum gcr_op op, enum gcr_space space, enum gcr_cache_op cache,
                       uint16_t width, uint32_t mask, const uint64_t *addrs, int line)
{
    int before = check_failures;
    const struct gcr_warp_insn *in = &r->u.insn;
    CHECK_EQ_U(r->kind, GCR_REC_WARP_INSN);
    CHECK_EQ_U(in->cta, cta);
    CHECK_EQ_U(in->warp, warp);
    CHECK_EQ_U(in->pc, pc);
    CHECK_EQ_U(in->op, op);
    CHECK_EQ_U(in->space, space);
    CHECK_EQ_U(in->cache_op, cache);
    CHECK_EQ_U(in->width, width);
    CHECK_EQ_U(in->active_mask, mask);
    int k = 0;
    for (int lane = 0; lane < GCR_WARP_SIZE; lane++)
        CHECK_EQ_U(in->addr[lane], (mask >> lane & 1u) ? addrs[k++] : 0);
    NOTE_FAILURE(before, line);
}

/* Addresses base + k*stride for n lanes. */
static const uint64_t *strided(uint64_t base, int64_t stride, int n)
{
    static uint64_t a[GCR_WARP_SIZE];
    for (int k = 0; k < n; k++)
        a[k] = base + (uint64_t)k * (uint64_t)stride;
    return a;
}

/* ---- the committed fixtures ---- */

static void check_example_records(const struct readout *o)
{
    const uint32_t grid[3] = {32, 1, 1}, block[3] = {128, 1, 1};
    CHECK_EQ_U(o->rc, 0);
    CHECK_EQ_U(o->n, 11);
    if (o->n != 11)
        return;
    check_memcpy(&o->rec[0], 0x7f0000000000, 16384, __LINE__);
    check_kernel(&o->rec[1], 1, "vecadd", grid, block, 0, 16, __LINE__);
    check_nonmem(&o->rec[2], 0, 0, 8, __LINE__);
    check_insn(&o->rec[3], 0, 0, 0x80, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
               0xffffffff, strided(0x7f0000000000, 4, 32), __LINE__);
    check_insn(&o->rec[4], 0, 0, 0x90, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
               0xffffffff, strided(0x7f0000100000, 4, 32), __LINE__);
    check_nonmem(&o->rec[5], 0, 0, 1, __LINE__);
    check_insn(&o->rec[6], 0, 0, 0xb0, GCR_OP_STORE, GCR_SPACE_GLOBAL, GCR_CACHEOP_BYPASS_L1,
               4, 0xffffffff, strided(0x7f0000200000, 4, 32), __LINE__);
    const uint64_t two[] = {0x7f0000000100, 0x7f0000000400};
    check_insn(&o->rec[7], 0, 1, 0xc0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 8,
               0x5, two, __LINE__);
    const uint64_t one[] = {0x7f0000300000};
    check_insn(&o->rec[8], 0, 2, 0xd0, GCR_OP_ATOMIC, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
               0x1, one, __LINE__);
    check_insn(&o->rec[9], 0, 3, 0xe0, GCR_OP_REDUCTION, GCR_SPACE_SHARED, GCR_CACHEOP_DEFAULT,
               4, 0, NULL, __LINE__);
    check_end(&o->rec[10], 1, __LINE__);
}

static void check_forms_records(const struct readout *o)
{
    CHECK_EQ_U(o->rc, 0);
    CHECK_EQ_U(o->n, 17);
    if (o->n != 17)
        return;
    check_memcpy(&o->rec[0], 0x7f0000000000, 0, __LINE__);
    check_memcpy(&o->rec[1], 0xffffff0000000000ull, 1ull << 40, __LINE__);
    const uint32_t g1[3] = {3, 2, 2}, b1[3] = {16, 4, 2};
    check_kernel(&o->rec[2], UINT32_MAX, "vec<float>(float*, int)", g1, b1, 49152, 255,
                 __LINE__);
    check_insn(&o->rec[3], 5, 1, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 1,
               0xffffffff, strided(0x1000, 1, 32), __LINE__);
    const uint64_t ends[] = {0x100, 0x100ff};
    check_insn(&o->rec[4], 5, 0, 0x1f0, GCR_OP_STORE, GCR_SPACE_LOCAL, GCR_CACHEOP_BYPASS_L1, 16,
               0x80000001, ends, __LINE__);
    const uint64_t down[] = {0x2000, 0x1ff8};
    check_insn(&o->rec[5], 5, 2, 0x200, GCR_OP_ATOMIC, GCR_SPACE_SHARED, GCR_CACHEOP_DEFAULT, 8,
               0x6, down, __LINE__);
    check_insn(&o->rec[6], 5, 3, 0x210, GCR_OP_REDUCTION, GCR_SPACE_CONST, GCR_CACHEOP_DEFAULT,
               256, 0, NULL, __LINE__);
    check_nonmem(&o->rec[7], 5, 1, UINT32_MAX, __LINE__);
    const uint64_t top[] = {UINT64_MAX};
    check_insn(&o->rec[8], 11, 0, UINT64_MAX, GCR_OP_LOAD, GCR_SPACE_TEXTURE,
               GCR_CACHEOP_DEFAULT, 4, 0x1, top, __LINE__);
    const uint64_t list[] = {0x1000, 0x1010, 0x1004};
    check_insn(&o->rec[9], 11, 1, 0x220, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
               0x7, list, __LINE__);
    const uint64_t same[] = {0x40, 0x40};
    check_insn(&o->rec[10], 11, 1, 0x230, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
               0x00010001, same, __LINE__);
    const uint64_t wrap[] = {0xfffffffffffffff0, 0x10};
    check_insn(&o->rec[11], 11, 1, 0x240, GCR_OP_STORE, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
               0x3, wrap, __LINE__);
    check_end(&o->rec[12], UINT32_MAX, __LINE__);
    const uint32_t g2[3] = {1, 1, 1};
    check_kernel(&o->rec[13], 0, "", g2, g2, 0, 0, __LINE__);
    const uint64_t abc[] = {0xabc};
    check_insn(&o->rec[14], 0, 0, 0x10, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
               0x1, abc, __LINE__);
    const uint64_t far[] = {0, 0x8000000000000000};
    check_insn(&o->rec[15], 0, 0, 0x20, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
               0x3, far, __LINE__);
    check_end(&o->rec[16], 0, __LINE__);
}

/* Each committed fixture, then the same bytes with CRLF line ends and without
 * the final line end: the records must not change. */
static void test_fixture(const char *name, void (*check)(const struct readout *))
{
    char path[4096];
    struct readout o;
    size_t len;
    snprintf(path, sizeof path, "%s%s", FIXTURES, name);
    read_all(path, &o);
    if (o.rc != 0)
        fprintf(stderr, "%s: %s\n", name, o.err.msg);
    check(&o);
    char *text = slurp(path, &len);
    CHECK_EQ_U(o.bytes_done, len);
    readout_free(&o);

    CHECK(len > 0 && text[len - 1] == '\n');
    read_text(text, len - 1, &o); /* no final LF */
    check(&o);
    CHECK_EQ_U(o.bytes_done, len - 1);
    readout_free(&o);

    char *crlf = malloc(2 * len);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            crlf[n++] = '\r';
        crlf[n++] = text[i];
    }
    read_text(crlf, n, &o);
    check(&o);
    CHECK_EQ_U(o.bytes_done, n);
    readout_free(&o);
    read_text(crlf, n - 1, &o); /* ends with a CR and no LF */
    check(&o);
    readout_free(&o);
    free(crlf);
    free(text);
}

/* ---- small traces written inline ---- */

#define HDR "#gcreplay-text 1\n"
#define K1 "kernel 1 k grid=2,1,1 block=64,1,1 shmem=0 regs=8\n"

static void read_str(const char *text, struct readout *o)
{
    read_text(text, strlen(text), o);
}

static void expect_error(const char *text, enum gcr_status status, const char *what)
{
    struct readout o;
    read_str(text, &o);
    CHECK_EQ_U(o.rc, (unsigned long long)-1);
    CHECK_EQ_U(o.err.status, status);
    CHECK_STR_CONTAINS(o.err.msg, what);
    CHECK_STR_CONTAINS(o.err.msg, "/gcr-text-reader-");
    readout_free(&o);
}

static void test_address_forms(void)
{
    struct readout o;
    read_str(HDR K1
             "0 0 0x10 load global 4 ffffffff 100+8\n"    /* stride, no 0x anywhere */
             "0 0 0x10 load global 4 0xf0 0x100-3\n"       /* negative stride */
             "0 0 0x10 load global 4 0x8 0x77\n"           /* single lane, bare address */
             "0 0 0x10 load global 4 0x8 0x77+12345\n"     /* single lane, stride ignored */
             "0 0 0x10 load global 4 0x0 -\n"              /* no lane */
             "0 0 0x10 load global 4 0x81 0x5 0x3\n"       /* explicit, two lanes */
             "0 0 0x10 load global 4 0x3 0x5 0x5\n"        /* explicit, equal addresses */
             "0 0 0x10 load global 4 0x3 0x5+0\n"          /* stride 0 */
             "end 1\n",
             &o);
    CHECK_EQ_U(o.rc, 0);
    CHECK_EQ_U(o.n, 10);
    if (o.n == 10) {
        check_insn(&o.rec[1], 0, 0, 0x10, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
                   0xffffffff, strided(0x100, 8, 32), __LINE__);
        check_insn(&o.rec[2], 0, 0, 0x10, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
                   0xf0, strided(0x100, -3, 4), __LINE__);
        const uint64_t a77[] = {0x77};
        check_insn(&o.rec[3], 0, 0, 0x10, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
                   0x8, a77, __LINE__);
        check_insn(&o.rec[4], 0, 0, 0x10, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
                   0x8, a77, __LINE__);
        check_insn(&o.rec[5], 0, 0, 0x10, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
                   0x0, NULL, __LINE__);
        const uint64_t l53[] = {0x5, 0x3};
        check_insn(&o.rec[6], 0, 0, 0x10, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
                   0x81, l53, __LINE__);
        const uint64_t l55[] = {0x5, 0x5};
        check_insn(&o.rec[7], 0, 0, 0x10, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
                   0x3, l55, __LINE__);
        check_insn(&o.rec[8], 0, 0, 0x10, GCR_OP_LOAD, GCR_SPACE_GLOBAL, GCR_CACHEOP_DEFAULT, 4,
                   0x3, l55, __LINE__);
    }
    readout_free(&o);

    /* Explicit lists of every length 1..32 with a full-warp mask of that many lanes. */
    for (int n = 1; n <= 32; n++) {
        char text[2048];
        int len = snprintf(text, sizeof text, HDR K1 "1 1 0x20 store global 4 0x%x",
                           n == 32 ? 0xffffffffu : (1u << n) - 1);
        uint64_t want[32];
        for (int k = 0; k < n; k++) {
            want[k] = 0x1000u + (uint64_t)((k * 37) % 11) * 64u; /* not strided for n >= 3 */
            len += snprintf(text + len, sizeof text - (size_t)len, " 0x%llx",
                            (unsigned long long)want[k]);
        }
        snprintf(text + len, sizeof text - (size_t)len, "\nend 1\n");
        read_str(text, &o);
        CHECK_EQ_U(o.rc, 0);
        CHECK_EQ_U(o.n, 3);
        if (o.n == 3)
            check_insn(&o.rec[1], 1, 1, 0x20, GCR_OP_STORE, GCR_SPACE_GLOBAL,
                       GCR_CACHEOP_DEFAULT, 4, n == 32 ? 0xffffffffu : (1u << n) - 1, want,
                       __LINE__);
        readout_free(&o);
    }
}

static void test_names(void)
{
    struct readout o;
    /* Escapes of both cases, raw UTF-8 and a raw `#` inside the field. */
    read_str(HDR "kernel 1 a%2fb%2F%25%23%0a%C3%A9\xc3\xa9#x grid=1,1,1 block=1,1,1 shmem=0 "
                 "regs=0\nend 1\n",
             &o);
    CHECK_EQ_U(o.rc, 0);
    CHECK_EQ_U(o.n, 2);
    if (o.n == 2)
        CHECK(strcmp(o.rec[0].u.kbegin.name, "a/b/%#\n\xc3\xa9\xc3\xa9#x") == 0);
    readout_free(&o);

    read_str(HDR "kernel 1 %2D grid=1,1,1 block=1,1,1 shmem=0 regs=0\nend 1\n", &o);
    CHECK_EQ_U(o.rc, 0);
    if (o.n == 2)
        CHECK(strcmp(o.rec[0].u.kbegin.name, "-") == 0);
    readout_free(&o);

    expect_error(HDR "kernel 1 ab%00 grid=1,1,1 block=1,1,1 shmem=0 regs=0\nend 1\n",
                 GCR_E_FORMAT, ":2: bad kernel name 'ab%00'");
    expect_error(HDR "kernel 1 ab% grid=1,1,1 block=1,1,1 shmem=0 regs=0\nend 1\n",
                 GCR_E_FORMAT, ":2: bad kernel name 'ab%'");
    expect_error(HDR "kernel 1 ab%4 grid=1,1,1 block=1,1,1 shmem=0 regs=0\nend 1\n",
                 GCR_E_FORMAT, ":2: bad kernel name 'ab%4'");
    expect_error(HDR "kernel 1 a\x01z grid=1,1,1 block=1,1,1 shmem=0 regs=0\nend 1\n",
                 GCR_E_FORMAT,
                 ":2: bad kernel name 'a?z': control byte 0x01 must be written as %01");
    expect_error(HDR "kernel 1\n", GCR_E_FORMAT, ":2: missing kernel name");
}

/* Lines far longer than any fixed buffer: a 1 MiB comment, a 100 KiB kernel
 * name and an access line padded with 200 KiB of blanks. */
static void test_long_lines(void)
{
    size_t big = 1 << 20;
    char *text = malloc(4 * big);
    size_t n = 0;
    n += (size_t)sprintf(text + n, HDR "#");
    memset(text + n, 'c', GCR_MAX_LINE_BYTES - 1), n += GCR_MAX_LINE_BYTES - 1; /* the longest */
    n += (size_t)sprintf(text + n, "\nkernel 3 ");
    memset(text + n, 'k', 100000), n += 100000;
    n += (size_t)sprintf(text + n, " grid=1,1,1 block=32,1,1 shmem=0 regs=1\n0 0 0x8 load");
    memset(text + n, ' ', 200000), n += 200000;
    n += (size_t)sprintf(text + n, "global\t\t4 0x3 0x10+4   \t# done\nend 3");
    struct readout o;
    read_text(text, n, &o);
    CHECK_EQ_U(o.rc, 0);
    CHECK_EQ_U(o.n, 3);
    CHECK_EQ_U(o.bytes_done, n);
    if (o.n == 3) {
        CHECK_EQ_U(strlen(o.rec[0].u.kbegin.name), 100000);
        CHECK_EQ_U(o.rec[1].u.insn.addr[1], 0x14);
    }
    readout_free(&o);

    /* A line one byte over the limit, ended or not (a file of endless zeros never ends one):
     * an error naming it and its byte offset, read no further. */
    for (int ended = 0; ended <= 1; ended++) {
        n = (size_t)sprintf(text, HDR);
        memset(text + n, 'x', GCR_MAX_LINE_BYTES + 1), n += GCR_MAX_LINE_BYTES + 1;
        if (ended)
            text[n++] = '\n';
        read_text(text, n, &o);
        CHECK_EQ_U(o.rc, (unsigned long long)-1);
        CHECK_EQ_U(o.err.status, GCR_E_FORMAT);
        CHECK_STR_CONTAINS(o.err.msg, ":2: line longer than 1048576 bytes (from byte offset 17): "
                                      "not a line of a text trace");
        readout_free(&o);
    }

    /* An error in a long line: the message stays bounded and names the line. */
    n = (size_t)sprintf(text, HDR K1 "0 0 0x8 load global 4 0x1 0x");
    memset(text + n, 'z', big - 64), n += big - 64;
    text[n++] = '\n';
    read_text(text, n, &o);
    CHECK_EQ_U(o.rc, (unsigned long long)-1);
    CHECK_STR_CONTAINS(o.err.msg, ":3: bad address '0xzzzzzzzzzzzzzzzzzz");
    CHECK_STR_CONTAINS(o.err.msg, "zzz...': expected a hexadecimal number");
    CHECK(strlen(o.err.msg) < 300);
    readout_free(&o);
    free(text);
}

static void test_header_and_blank_lines(void)
{
    struct readout o;
    read_str("#gcreplay-text 1   # comment after the version\n\n \t\n# c\nmemcpy 0x1 2\n", &o);
    CHECK_EQ_U(o.rc, 0);
    CHECK_EQ_U(o.n, 1);
    readout_free(&o);
    read_str("#gcreplay-text 1", &o); /* header only, no line end: an empty trace */
    CHECK_EQ_U(o.rc, 0);
    CHECK_EQ_U(o.n, 0);
    readout_free(&o);

    expect_error("\n#gcreplay-text 1\n", GCR_E_FORMAT, ":1: missing header");
    expect_error(" #gcreplay-text 1\n", GCR_E_FORMAT, ":1: missing header");
    expect_error("#gcreplay-text\n", GCR_E_FORMAT, ":1: missing header");
    expect_error("#gcreplay-text \n", GCR_E_FORMAT, ":1: header lacks the version");
    expect_error("#gcreplay-text 10\n", GCR_E_FORMAT, ":1: unsupported text trace version '10'");
    expect_error("#gcreplay-text 1 2\n", GCR_E_FORMAT, ":1: unexpected extra field '2'");
    expect_error("#gcreplay-text 1\nmemcpy 0x1 2 # ok\nmemcpy 0x1 2#x\n", GCR_E_FORMAT,
                 ":3: bad memcpy size '2#x': expected a decimal number");
}

/* Errors that the fixtures do not cover: number spellings and field limits. */
static void test_more_errors(void)
{
    expect_error(HDR K1 "0 0 0x load global 4 0x1 0x10\nend 1\n", GCR_E_FORMAT,
                 ":3: bad pc '0x': expected a hexadecimal number");
    expect_error(HDR K1 "0 0 0x10000000000000000 load global 4 0x1 0x10\nend 1\n",
                 GCR_E_FORMAT, ":3: pc '0x10000000000000000' is out of range");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x100000000 0x10\nend 1\n", GCR_E_FORMAT,
                 ":3: active mask '0x100000000' is out of range (maximum 4294967295)");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x1 0x10+-4\nend 1\n", GCR_E_FORMAT,
                 ":3: bad stride '-4': expected a decimal number");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x3 0x10+\nend 1\n", GCR_E_FORMAT,
                 ":3: bad stride '': expected a decimal number");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x3 +4\nend 1\n", GCR_E_FORMAT,
                 ":3: bad base address '': expected a hexadecimal number");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x3 0x10-9223372036854775809\nend 1\n",
                 GCR_E_FORMAT, ":3: stride '9223372036854775809' is out of range");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x3 0x10+4 0x20\nend 1\n", GCR_E_FORMAT,
                 ":3: unexpected extra field '0x20'");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x3 0x10\nend 1\n", GCR_E_FORMAT,
                 ":3: mask 0x00000003 has 2 active lanes but the line lists 1 address");
    expect_error(HDR K1 "0 0 0x10 LOAD global 4 0x1 0x10\nend 1\n", GCR_E_FORMAT,
                 ":3: unknown operation 'LOAD'");
    expect_error(HDR K1 "0 0 0x10 load global cache=bypass_l1 cache=default 4 0x1 0x10\n",
                 GCR_E_FORMAT, ":3: bad width 'cache=default'");
    expect_error(HDR K1 "0 0 0x10 load cache=bypass_l1 global 4 0x1 0x10\n", GCR_E_FORMAT,
                 ":3: unknown memory space 'cache=bypass_l1'");
    expect_error(HDR K1 "0 -1 compute 1\nend 1\n", GCR_E_FORMAT,
                 ":3: bad warp id '-1': expected a decimal number");
    expect_error(HDR K1 "0 0 compute\nend 1\n", GCR_E_FORMAT, ":3: missing instruction count");
    expect_error(HDR K1 "0\nend 1\n", GCR_E_FORMAT, ":3: missing warp id");
    expect_error(HDR K1 "0 0\nend 1\n", GCR_E_FORMAT, ":3: missing pc or `compute`");
    expect_error(HDR K1 "end\n", GCR_E_FORMAT, ":3: missing kernel id");
    expect_error(HDR "memcpy 0x10\n", GCR_E_FORMAT, ":2: missing memcpy size");
    expect_error(HDR "memcpy 0x10 18446744073709551616\n", GCR_E_FORMAT,
                 ":2: memcpy size '18446744073709551616' is out of range");
    expect_error(HDR "kernel 1 k grid=1,1,1, block=1,1,1 shmem=0 regs=0\n", GCR_E_FORMAT,
                 ":2: bad grid '1,1,1,': expected three decimal numbers x,y,z");
    expect_error(HDR "kernel 1 k grid=1,,1 block=1,1,1 shmem=0 regs=0\n", GCR_E_FORMAT,
                 ":2: bad grid '': expected a decimal number");
    expect_error(HDR "kernel 1 k grid=2147483647,3,1 block=1,1,1 shmem=0 regs=0\n", GCR_E_FORMAT,
                 ":2: kernel grid has more than 2^32-1 CTAs");
    expect_error(HDR "kernel 1 k grid=1,1,1 block=1,1,1 shmem=0 regs=0 =4\n", GCR_E_FORMAT,
                 ":2: unknown kernel field '=4'");
    expect_error(HDR "kernel 1 k grid=1,1,1 block=1,1,1 shmem=0 regs=0 regs\n", GCR_E_FORMAT,
                 ":2: unknown kernel field 'regs'");
    expect_error(HDR "kernel 1 k grid=1,1,1 block=1,1,1 shmem=0 regs=4294967296\n",
                 GCR_E_FORMAT, ":2: regs '4294967296' is out of range");
    /* A NUL byte is an ordinary (bad) byte of its field. */
    {
        static const char nul[] = HDR K1 "0 0 compute 1\0\nend 1\n";
        struct readout o;
        read_text(nul, sizeof nul - 1, &o);
        CHECK_EQ_U(o.rc, (unsigned long long)-1);
        CHECK_STR_CONTAINS(o.err.msg, ":3: bad instruction count '1?': expected a decimal");
        readout_free(&o);
    }
    /* A CR that is not directly before the LF belongs to its field. */
    expect_error(HDR K1 "0 0 compute 1\r\r\nend 1\n", GCR_E_FORMAT,
                 ":3: bad instruction count '1?'");
    /* Huge but valid grids do not allocate per CTA up front. */
    {
        struct readout o;
        read_str(HDR "kernel 1 k grid=65535,65535,1 block=32,1,1 shmem=0 regs=0\n"
                     "4294836224 0 compute 1\n0 0 compute 1\n4294836224 0 compute 1\nend 1\n",
                 &o);
        CHECK_EQ_U(o.rc, (unsigned long long)-1);
        CHECK_STR_CONTAINS(o.err.msg, ":5: CTA 4294836224 reappears");
        readout_free(&o);
    }
}

/* Register dependencies: the optional last field `waits=` of compute and access lines. */
static void test_waits(void)
{
    struct readout o;
    read_str(HDR K1
             "0 0 compute 3\n"                                     /* none known */
             "0 0 compute 3 waits=-\n"                             /* known, none */
             "0 0 0x10 load global 4 0xffffffff 0x100+4 waits=1\n" /* after a stride */
             "0 0 0x20 load global 4 0x3 0x100 0x900 waits=16,bar,2\n" /* after a list */
             "0 1 0x30 load global 4 0 - waits=bar\n"              /* after `-` */
             "0 1 0x40 load global 4 0x1 0x100 waits=-   # comment\n"
             "1 0 compute 1 waits=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,bar\n"
             "end 1\n",
             &o);
    CHECK_EQ_U(o.rc, 0);
    CHECK_EQ_U(o.n, 9);
    if (o.n == 9) {
        CHECK_EQ_U(o.rec[1].u.nonmem.waits, 0);
        CHECK_EQ_U(o.rec[2].u.nonmem.waits, GCR_WAITS_KNOWN);
        CHECK_EQ_U(o.rec[3].u.insn.waits, GCR_WAITS_KNOWN | 1u);
        CHECK_EQ_U(o.rec[3].u.insn.addr[31], 0x100 + 31 * 4);
        CHECK_EQ_U(o.rec[4].u.insn.waits, GCR_WAITS_KNOWN | GCR_WAITS_BARRIER | 1u << 15 | 2u);
        CHECK_EQ_U(o.rec[4].u.insn.addr[1], 0x900);
        CHECK_EQ_U(o.rec[5].u.insn.waits, GCR_WAITS_KNOWN | GCR_WAITS_BARRIER);
        CHECK_EQ_U(o.rec[6].u.insn.waits, GCR_WAITS_KNOWN);
        CHECK_EQ_U(o.rec[7].u.nonmem.waits, GCR_WAITS_KNOWN | GCR_WAITS_BARRIER | GCR_WAITS_MASK);
    }
    readout_free(&o);
    expect_error(HDR K1 "0 0 compute 1 waits=17\nend 1\n", GCR_E_FORMAT,
                 ":3: malformed register dependencies 'waits=17'");
    expect_error(HDR K1 "0 0 compute 1 waits=,1\nend 1\n", GCR_E_FORMAT,
                 ":3: malformed register dependencies 'waits=,1'");
    expect_error(HDR K1 "0 0 compute 1 waits=bar,bar\nend 1\n", GCR_E_FORMAT,
                 ":3: register dependencies 'waits=bar,bar' name one item twice");
    expect_error(HDR K1 "0 0 compute 1 waits=- 4\nend 1\n", GCR_E_FORMAT,
                 ":3: unexpected extra field '4'");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x3 0x100 waits=1 0x200\nend 1\n",
                 GCR_E_FORMAT, ":3: unexpected extra field '0x200'");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x3 waits=1\nend 1\n", GCR_E_FORMAT,
                 ":3: mask 0x00000003 has 2 active lanes but the line lists 0 addresses");
    expect_error(HDR K1 "end 1 waits=1\n", GCR_E_FORMAT, ":3: unexpected extra field 'waits=1'");

    /* Dependencies on non-memory instructions (a1..a10) and execution units. */
    read_str(HDR K1
             "0 0 compute 1 waits=int\n"
             "0 0 compute 1 waits=a1,sp\n"                          /* any order */
             "0 0 compute 1 waits=a10,bar,16,tex,a01,1\n"           /* leading zero */
             "0 0 0x10 load global 4 0xffffffff 0x100+4 waits=a2\n" /* after a stride */
             "0 0 0x20 load global 4 0x3 0x100 0x900 waits=1,a3\n"  /* after a list */
             "0 1 0x30 load global 4 0 - waits=a10\n"               /* after `-` */
             "0 1 compute 1 waits=branch,bar\n"
             "end 1\n",
             &o);
    CHECK_EQ_U(o.rc, 0);
    CHECK_EQ_U(o.n, 9);
    if (o.n == 9) {
        const uint32_t a1 = 1u << GCR_WAITS_ALU_SHIFT;
        CHECK_EQ_U(o.rec[1].u.nonmem.waits, gcr_waits_with_unit(GCR_WAITS_KNOWN, GCR_UNIT_INT));
        CHECK_EQ_U(o.rec[2].u.nonmem.waits,
                   gcr_waits_with_unit(GCR_WAITS_KNOWN | a1, GCR_UNIT_SP));
        CHECK_EQ_U(o.rec[3].u.nonmem.waits,
                   gcr_waits_with_unit(GCR_WAITS_KNOWN | GCR_WAITS_BARRIER | 1u << 15 | 1u | a1 |
                                           a1 << 9,
                                       GCR_UNIT_TEX));
        CHECK_EQ_U(o.rec[4].u.insn.waits, GCR_WAITS_KNOWN | a1 << 1);
        CHECK_EQ_U(o.rec[5].u.insn.waits, GCR_WAITS_KNOWN | 1u | a1 << 2);
        CHECK_EQ_U(o.rec[6].u.insn.waits, GCR_WAITS_KNOWN | a1 << 9);
        CHECK_EQ_U(o.rec[7].u.nonmem.waits,
                   gcr_waits_with_unit(GCR_WAITS_KNOWN | GCR_WAITS_BARRIER, GCR_UNIT_BRANCH));
    }
    readout_free(&o);
    static const char *const malformed[] = {"a0", "a11", "a", "aa1", "a-1", "a1x", "INT",
                                            "unit", "?", "sfu2", "a 1"};
    for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++) {
        char text[256], want[128];
        snprintf(text, sizeof text, HDR K1 "0 0 compute 1 waits=int,%s\nend 1\n", malformed[i]);
        snprintf(want, sizeof want, ":3: malformed register dependencies 'waits=int,%s' (expected",
                 malformed[i]);
        if (strchr(malformed[i], ' ')) /* "a 1": the field ends at the blank */
            snprintf(want, sizeof want, ":3: malformed register dependencies 'waits=int,a'");
        expect_error(text, GCR_E_FORMAT, want);
    }
    expect_error(HDR K1 "0 0 compute 1 waits=bar,x\nend 1\n", GCR_E_FORMAT,
                 "(expected waits=- or a comma-separated list of bar, distances 1..16, a1..a10 "
                 "and an execution unit: int, sp, dp, sfu, tensor, branch or tex)");
    expect_error(HDR K1 "0 0 compute 1 waits=sp,a1,a1\nend 1\n", GCR_E_FORMAT,
                 ":3: register dependencies 'waits=sp,a1,a1' name one item twice");
    expect_error(HDR K1 "0 0 compute 1 waits=sp,sp\nend 1\n", GCR_E_FORMAT,
                 ":3: register dependencies 'waits=sp,sp' name two execution units");
    expect_error(HDR K1 "0 0 compute 1 waits=dp,a1,int\nend 1\n", GCR_E_FORMAT,
                 ":3: register dependencies 'waits=dp,a1,int' name two execution units");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x3 0x100 0x200 waits=sfu\nend 1\n",
                 GCR_E_FORMAT,
                 ":3: register dependencies 'waits=sfu': an execution unit on a memory "
                 "instruction");
    expect_error(HDR K1 "0 0 0x10 load global 4 0x3 0x100+4 waits=1,tensor\nend 1\n",
                 GCR_E_FORMAT, ":3: register dependencies 'waits=1,tensor': an execution unit");
    expect_error(HDR K1 "0 0 0x10 load global 4 0 - waits=int\nend 1\n", GCR_E_FORMAT,
                 ":3: register dependencies 'waits=int': an execution unit");
    expect_error(HDR K1 "0 0 compute 2 waits=int\nend 1\n", GCR_E_FORMAT,
                 ":3: register dependencies 'waits=int': an execution unit on a run of several "
                 "non-memory instructions");
    expect_error(HDR K1 "0 0 compute 3 waits=a2\nend 1\n", GCR_E_FORMAT,
                 ":3: register dependencies 'waits=a2': non-memory dependencies on a non-memory "
                 "run without an execution unit");
    expect_error(HDR K1 "0 0 compute 1 waits=bar,a2\nend 1\n", GCR_E_FORMAT,
                 ":3: register dependencies 'waits=bar,a2': non-memory dependencies on a "
                 "non-memory run without an execution unit");
    /* A count of 0 is refused for its count, whatever the dependencies. */
    expect_error(HDR K1 "0 0 compute 0 waits=int\nend 1\n", GCR_E_FORMAT,
                 ":3: non-memory instruction count must be >= 1");
}

/* After an error the reader keeps returning it; it does not resume. */
static void test_sticky_error(void)
{
    char *path = temp_path();
    const char *text = HDR K1 "0 0 compute x\n0 0 compute 1\nend 1\n";
    write_file(path, text, strlen(text));
    void *st;
    struct gcr_err err;
    struct gcr_record rec;
    CHECK_EQ_U(gcr_format_text.reader_open(&st, NULL, path, &err), 0);
    CHECK_EQ_U(gcr_format_text.reader_next(st, &rec, &err), 1);
    CHECK_EQ_U(gcr_format_text.reader_next(st, &rec, &err), (unsigned long long)-1);
    CHECK_STR_CONTAINS(err.msg, ":3: bad instruction count 'x'");
    gcr_err_clear(&err);
    CHECK_EQ_U(gcr_format_text.reader_next(st, &rec, &err), (unsigned long long)-1);
    CHECK_STR_CONTAINS(err.msg, ":3: bad instruction count 'x'");
    CHECK_EQ_U(err.status, GCR_E_FORMAT);
    gcr_format_text.reader_close(st);
    unlink(path);
    free(path);
}

static void test_io_errors(void)
{
    void *st = (void *)&st;
    struct gcr_err err;
    CHECK_EQ_U(gcr_format_text.reader_open(&st, NULL, "/nonexistent/trace.txt", &err),
               (unsigned long long)-1);
    CHECK(st == NULL);
    CHECK_EQ_U(err.status, GCR_E_IO);
    CHECK_STR_CONTAINS(err.msg, "/nonexistent/trace.txt: cannot open: ");
    /* A directory opens but cannot be read. */
    CHECK_EQ_U(gcr_format_text.reader_open(&st, NULL, FIXTURES, &err), (unsigned long long)-1);
    CHECK_EQ_U(err.status, GCR_E_IO);
    CHECK_STR_CONTAINS(err.msg, "fixtures/");
}

static void test_probe(void)
{
    const unsigned char good[] = "#gcreplay-text 1\n";
    CHECK_EQ_U(gcr_format_text.probe(NULL, "x", good, sizeof good - 1), 1);
    CHECK_EQ_U(gcr_format_text.probe(NULL, "x", good, 15), 1);
    CHECK_EQ_U(gcr_format_text.probe(NULL, "x", good, 14), 0);
    CHECK_EQ_U(gcr_format_text.probe(NULL, "x", (const unsigned char *)"#gcreplay-text2", 15), 0);
    CHECK_EQ_U(gcr_format_text.probe(NULL, "x", (const unsigned char *)"\n#gcreplay-text 1", 17), 0);
    CHECK_EQ_U(gcr_format_text.probe(NULL, "x", (const unsigned char *)"GCRT", 4), 0);
    CHECK_EQ_U(gcr_format_text.probe(NULL, "dir", NULL, 0), 0);
    CHECK(strcmp(gcr_format_text.name, "text") == 0);
    CHECK(strcmp(gcr_format_text.extension, ".txt") == 0);
}

/* The same trace gzipped reads to the same records; progress counts the file's bytes. */
static void test_compressed(void)
{
    char path[4096];
    struct readout o;
    size_t len;
    snprintf(path, sizeof path, "%s%s", FIXTURES, "valid-forms.txt.gz");
    read_all(path, &o);
    if (o.rc != 0)
        fprintf(stderr, "valid-forms.txt.gz: %s\n", o.err.msg);
    check_forms_records(&o);
    free(slurp(path, &len));
    CHECK_EQ_U(o.bytes_done, len);
    readout_free(&o);
}

int main(void)
{
    test_fixture("valid-example.txt", check_example_records);
    test_fixture("valid-forms.txt", check_forms_records);
    test_compressed();
    test_address_forms();
    test_names();
    test_long_lines();
    test_header_and_blank_lines();
    test_more_errors();
    test_waits();
    test_sticky_error();
    test_io_errors();
    test_probe();
    CHECK_DONE();
}
