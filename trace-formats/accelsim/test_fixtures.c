/* The valid Accel-Sim fixtures, record by record and field by field: every address mode, partial
 * and empty masks, every opcode class, tracer versions 3 to 6, line numbers, kernel lists (as a
 * directory, a kernelslist.g path and a list under another name), compressed copies, lazy
 * addresses, detection, and what `gcreplay info` reports. */
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accelsim_test.h"
#include "core/bits.h"

enum { L = GCR_OP_LOAD, S = GCR_OP_STORE, A = GCR_OP_ATOMIC, R = GCR_OP_REDUCTION };
enum { GLO = GCR_SPACE_GLOBAL, LOC = GCR_SPACE_LOCAL, SHA = GCR_SPACE_SHARED };
enum { DEF = GCR_CACHEOP_DEFAULT, BYP = GCR_CACHEOP_BYPASS_L1 };

/* One expected record. For WARP_INSN, addrs is "base+stride" (active lane k at base + k*stride,
 * the reader's strided hint set) or the active lanes' addresses separated by spaces. */
struct want {
    char kind; /* 'B' kernel begin, 'E' end, 'N' nonmem, 'I' insn, 'M' memcpy */
    uint32_t cta, warp;
    uint64_t pc;
    int op, space, cache_op, width;
    uint32_t mask;
    const char *addrs;
};

#define NONMEM(cta, warp, n) {'N', cta, warp, 0, 0, 0, 0, (int)(n), 0, NULL}
#define INSN(cta, warp, pc, op, space, cache, width, mask, addrs)                              \
    {'I', cta, warp, pc, op, space, cache, width, mask, addrs}

static void check_insn(const struct gcr_warp_insn *in, const struct want *w, size_t i)
{
    uint64_t addr[GCR_WARP_SIZE] = {0};
    bool strided = strchr(w->addrs, '+') != NULL;
    int64_t stride = 0;
    const char *p = w->addrs;
    char *end;
    if (strided) {
        uint64_t a = strtoull(p, &end, 16);
        stride = strtoll(end + 1, NULL, 10);
        for (uint32_t m = w->mask; m; m &= m - 1) {
            addr[gcr_bits_ctz32(m)] = a;
            a += (uint64_t)stride;
        }
    } else {
        for (uint32_t m = w->mask; m; m &= m - 1) {
            addr[gcr_bits_ctz32(m)] = strtoull(p, &end, 16);
            p = end;
        }
    }
    bool ok = in->cta == w->cta && in->warp == w->warp && in->pc == w->pc && in->op == w->op &&
              in->space == w->space && in->cache_op == w->cache_op && in->width == w->width &&
              in->active_mask == w->mask && !memcmp(in->addr, addr, sizeof addr) &&
              in->strided == strided && (!strided || in->stride == stride);
    if (!ok) {
        fprintf(stderr, "record %zu: got cta %" PRIu32 " warp %" PRIu32 " pc 0x%" PRIx64 " op %d "
                "space %d cache %d width %d mask %08" PRIx32 " strided %d stride %" PRId64
                " lane0 0x%" PRIx64 "; expected pc 0x%" PRIx64 " %s\n", i, in->cta, in->warp,
                in->pc, in->op, in->space, in->cache_op, in->width, in->active_mask, in->strided,
                in->stride, in->addr[0], w->pc, w->addrs);
        check_failures++;
    }
}

/* Compares the records of a trace with the expected list (kernel begin/end checked for id). */
static void check_records(const char *what, const struct recs *v, const struct want *w,
                          size_t n, uint32_t kernel_id)
{
    if (v->rc != 0)
        fprintf(stderr, "%s: %s\n", what, v->err.msg);
    CHECK_EQ_U(v->rc, 0);
    if (v->n != n) {
        fprintf(stderr, "%s: %zu records, expected %zu\n", what, v->n, n);
        check_failures++;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const struct gcr_record *r = &v->r[i];
        switch (w[i].kind) {
        case 'B':
            CHECK_EQ_U(r->kind, GCR_REC_KERNEL_BEGIN);
            CHECK_EQ_U(r->u.kbegin.id, kernel_id);
            break;
        case 'E':
            CHECK_EQ_U(r->kind, GCR_REC_KERNEL_END);
            CHECK_EQ_U(r->u.kend.id, kernel_id);
            break;
        case 'N':
            CHECK_EQ_U(r->kind, GCR_REC_NONMEM);
            if (r->u.nonmem.cta != w[i].cta || r->u.nonmem.warp != w[i].warp ||
                r->u.nonmem.count != (uint32_t)w[i].width) {
                fprintf(stderr, "%s record %zu: nonmem %u %u %u, expected %u %u %d\n", what, i,
                        r->u.nonmem.cta, r->u.nonmem.warp, r->u.nonmem.count, w[i].cta,
                        w[i].warp, w[i].width);
                check_failures++;
            }
            break;
        default:
            CHECK_EQ_U(r->kind, GCR_REC_WARP_INSN);
            if (r->kind == GCR_REC_WARP_INSN)
                check_insn(&r->u.insn, &w[i], i);
        }
    }
}

static void check_kernel(const struct gcr_record *r, uint32_t id, const char *name,
                         uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t shmem,
                         uint32_t regs)
{
    CHECK_EQ_U(r->kind, GCR_REC_KERNEL_BEGIN);
    const struct gcr_kernel_begin *k = &r->u.kbegin;
    CHECK_EQ_U(k->id, id);
    CHECK(strcmp(k->name, name) == 0);
    CHECK(k->grid[0] == gx && k->grid[1] == gy && k->grid[2] == gz);
    CHECK(k->block[0] == bx && k->block[1] == 1 && k->block[2] == 1);
    CHECK_EQ_U(k->shmem_bytes, shmem);
    CHECK_EQ_U(k->regs_per_thread, regs);
}

/* ok-modes.traceg: tracer version 4, every address mode and opcode class. */
static const struct want modes[] = {
    {'B', 0, 0, 0, 0, 0, 0, 0, 0, NULL},
    NONMEM(1, 0, 2),
    INSN(1, 0, 0x20, L, GLO, DEF, 4, 0xffffffffu, "7f2000000000+4"),
    INSN(1, 0, 0x30, L, GLO, BYP, 8, 0x0000ff00u, "7f2000001000+8"),
    INSN(1, 0, 0x40, S, GLO, DEF, 1, 0x00000005u, "7f2000002000 7f2000002003"),
    INSN(1, 0, 0x50, L, GLO, DEF, 16, 0x80000001u, "7f2000003000 7f2000002000"),
    NONMEM(1, 0, 1),
    INSN(1, 1, 0x00, S, SHA, DEF, 4, 0x0000000fu, "100+4"),
    INSN(1, 1, 0x10, L, SHA, DEF, 16, 0x0000000fu, "100 110 120 130"),
    INSN(1, 1, 0x20, A, GLO, DEF, 4, 0xffffffffu, "7f2000004000+0"),
    INSN(1, 1, 0x30, R, GLO, DEF, 4, 0x00000003u, "7f2000005000 7f2000005004"),
    INSN(1, 1, 0x40, A, SHA, DEF, 4, 0x00000001u, "200"),
    INSN(1, 1, 0x50, L, GLO, DEF, 4, 0x00000000u, ""),
    NONMEM(1, 1, 1),
    INSN(2, 1, 0x00, L, LOC, DEF, 8, 0xffffffffu, "7f1000000010+8"),
    INSN(2, 1, 0x10, S, LOC, DEF, 16, 0xffffffffu, "7f1000000100+16"),
    INSN(2, 1, 0x20, L, SHA, DEF, 4, 0x00000001u, "7f0000000040"),
    INSN(2, 1, 0x30, L, LOC, DEF, 8, 0x00000001u, "7f1000000040"),
    INSN(2, 1, 0x40, S, GLO, DEF, 2, 0x00000001u, "7f3000000000"),
    INSN(2, 1, 0x50, L, SHA, DEF, 2, 0xffffffffu, "300+16"),
    INSN(2, 1, 0x60, L, GLO, DEF, 16, 0xffffffffu, "7f2000006000+16"),
    NONMEM(2, 1, 5),
    NONMEM(2, 0, 1),
    {'E', 0, 0, 0, 0, 0, 0, 0, 0, NULL},
};

/* ok-v3.traceg: version 3 header (no lineinfo line), Kepler binary: generic LD/ST are global. */
static const struct want v3[] = {
    {'B', 0, 0, 0, 0, 0, 0, 0, 0, NULL},
    INSN(0, 0, 0x08, L, GLO, DEF, 4, 0xffffffffu, "1000010+4"),
    INSN(0, 0, 0x10, S, GLO, DEF, 8, 0xffffffffu, "1000100+8"),
    NONMEM(0, 0, 1),
    {'E', 0, 0, 0, 0, 0, 0, 0, 0, NULL},
};

/* ok-v5.traceg: immediates, CRLF line ends, no address windows (generic is shared), a base
 * without 0x, a partial last warp. */
static const struct want v5[] = {
    {'B', 0, 0, 0, 0, 0, 0, 0, 0, NULL},
    NONMEM(0, 0, 1),
    INSN(0, 0, 0x10, L, SHA, DEF, 4, 0xffffffffu, "1000+4"),
    INSN(0, 0, 0x20, L, GLO, DEF, 4, 0x00000005u, "1000 1040"),
    NONMEM(0, 0, 1),
    INSN(0, 1, 0x00, L, GLO, DEF, 2, 0x000000ffu, "2000 2002 2004 2006 2008 200a 200c 200e"),
    NONMEM(0, 1, 1),
    {'E', 0, 0, 0, 0, 0, 0, 0, 0, NULL},
};

/* ok-v6.traceg: uniform and predicate registers, register values, a second immediate, a GMMA
 * commit flag, a TMA copy (not a record), cluster lines. */
static const struct want v6[] = {
    {'B', 0, 0, 0, 0, 0, 0, 0, 0, NULL},
    NONMEM(1, 3, 1),
    INSN(1, 3, 0x10, L, GLO, DEF, 8, 0xffffffffu, "7f0000000000+8"),
    NONMEM(1, 3, 3),
    INSN(1, 3, 0x50, S, GLO, DEF, 4, 0xffffffffu,
         "7f0000200000 7f0000200004 7f0000200008 7f000020000c 7f0000200010 7f0000200014 "
         "7f0000200018 7f000020001c 7f0000200020 7f0000200024 7f0000200028 7f000020002c "
         "7f0000200030 7f0000200034 7f0000200038 7f000020003c 7f0000200040 7f0000200044 "
         "7f0000200048 7f000020004c 7f0000200050 7f0000200054 7f0000200058 7f000020005c "
         "7f0000200060 7f0000200064 7f0000200068 7f000020006c 7f0000200070 7f0000200074 "
         "7f0000200078 7f000020007c"),
    {'E', 0, 0, 0, 0, 0, 0, 0, 0, NULL},
};

/* ok-lineinfo.traceg: a source line number before every instruction. */
static const struct want lineinfo[] = {
    {'B', 0, 0, 0, 0, 0, 0, 0, 0, NULL},
    NONMEM(0, 0, 1),
    INSN(0, 0, 0x10, L, GLO, DEF, 4, 0xffffffffu, "3000+4"),
    NONMEM(0, 0, 1),
    {'E', 0, 0, 0, 0, 0, 0, 0, 0, NULL},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_single_files(void)
{
    struct recs v = read_trace(FIXTURES "ok-modes.traceg", NULL, false);
    check_records("ok-modes", &v, modes, N(modes), 7);
    if (v.n)
        check_kernel(&v.r[0], 7, "_Z5modesPfS_", 2, 2, 1, 64, 1024, 24);
    /* The same content through each codec. */
    static const char *const copies[] = {"ok-modes.traceg.gz", "ok-modes.traceg.xz",
                                         "ok-modes.traceg.zst"};
    for (size_t i = 0; i < N(copies); i++) {
        char path[512];
        snprintf(path, sizeof path, FIXTURES "%s", copies[i]);
        struct recs c = read_trace(path, NULL, false);
        CHECK_EQ_U(c.rc, 0);
        CHECK(same_records(&v, &c, true));
        recs_free(&c);
    }
    /* Lazy addresses: strided full warps keep only their first lane, the rest is the same. */
    struct recs lz = read_trace(FIXTURES "ok-modes.traceg", NULL, true);
    CHECK_EQ_U(lz.n, v.n);
    for (size_t i = 0; i < lz.n && i < v.n; i++) {
        struct gcr_record a = v.r[i], b = lz.r[i];
        if (a.kind == GCR_REC_WARP_INSN && a.u.insn.strided && a.u.insn.active_mask == ~0u)
            memcpy(&b.u.insn.addr[1], &a.u.insn.addr[1], sizeof a.u.insn.addr - 8);
        CHECK(same_record(&a, &b, true));
    }
    recs_free(&lz);
    recs_free(&v);

    v = read_trace(FIXTURES "ok-v3.traceg", NULL, false);
    check_records("ok-v3", &v, v3, N(v3), 1);
    if (v.n)
        check_kernel(&v.r[0], 1, "kepler_kernel", 1, 1, 1, 32, 0, 8);
    recs_free(&v);
    v = read_trace(FIXTURES "ok-v5.traceg", NULL, false);
    check_records("ok-v5", &v, v5, N(v5), 3);
    if (v.n)
        check_kernel(&v.r[0], 3, "v5_kernel", 1, 1, 1, 40, 256, 16);
    recs_free(&v);
    v = read_trace(FIXTURES "ok-v6.traceg", NULL, false);
    check_records("ok-v6", &v, v6, N(v6), 2);
    if (v.n)
        check_kernel(&v.r[0], 2, "_Z9hopper_kernv", 2, 1, 1, 128, 49152, 168);
    recs_free(&v);
    v = read_trace(FIXTURES "ok-lineinfo.traceg", NULL, false);
    check_records("ok-lineinfo", &v, lineinfo, N(lineinfo), 4);
    recs_free(&v);
}

/* ok-units.traceg: each non-memory instruction's unit and the non-memory instructions whose
 * registers it reads (GCR_WAITS_UNIT_MASK, GCR_WAITS_ALU_MASK), one a record; a functional
 * reader (GCR_READ_SKIP_ALU) joins them into runs without them. MOV (int); FFMA reads R1 (the
 * MOV: a1); MUFU reads R2 (the FFMA: a1); LDG reads R3 (the MUFU: a1); DADD reads R4 (the
 * load: memory distance 1) and R2 (the FFMA, two non-memory instructions back: a2); BRA and
 * EXIT read nothing. */
static void test_units(void)
{
#define ALU(k) (UINT32_C(1) << (GCR_WAITS_ALU_SHIFT + (k) - 1))
#define UNIT(u) ((uint32_t)(u) << GCR_WAITS_UNIT_SHIFT)
    static const struct {
        enum gcr_rec_kind kind;
        uint32_t count, waits;
    } want[] = {
        {GCR_REC_KERNEL_BEGIN, 0, 0},
        {GCR_REC_NONMEM, 1, GCR_WAITS_KNOWN | UNIT(GCR_UNIT_INT)},
        {GCR_REC_NONMEM, 1, GCR_WAITS_KNOWN | UNIT(GCR_UNIT_SP) | ALU(1)},
        {GCR_REC_NONMEM, 1, GCR_WAITS_KNOWN | UNIT(GCR_UNIT_SFU) | ALU(1)},
        {GCR_REC_WARP_INSN, 0, GCR_WAITS_KNOWN | ALU(1)},
        {GCR_REC_NONMEM, 1, GCR_WAITS_KNOWN | UNIT(GCR_UNIT_DP) | 1 | ALU(2)},
        {GCR_REC_NONMEM, 1, GCR_WAITS_KNOWN | UNIT(GCR_UNIT_BRANCH)},
        {GCR_REC_NONMEM, 1, GCR_WAITS_KNOWN | UNIT(GCR_UNIT_INT)},
        {GCR_REC_KERNEL_END, 0, 0},
    }, joined[] = {
        {GCR_REC_KERNEL_BEGIN, 0, 0},
        {GCR_REC_NONMEM, 3, GCR_WAITS_KNOWN},
        {GCR_REC_WARP_INSN, 0, GCR_WAITS_KNOWN},
        {GCR_REC_NONMEM, 3, GCR_WAITS_KNOWN | 1},
        {GCR_REC_KERNEL_END, 0, 0},
    };
#undef ALU
#undef UNIT
    for (int skip = 0; skip < 2; skip++) {
        struct recs v = read_trace_skips(FIXTURES "ok-units.traceg", NULL, false,
                                         skip ? GCR_READ_SKIP_ALU : 0);
        size_t n = skip ? N(joined) : N(want);
        CHECK_EQ_U(v.rc, 0);
        CHECK_EQ_U(v.n, n);
        for (size_t i = 0; i < n && i < v.n; i++) {
            const struct gcr_record *r = &v.r[i];
            uint32_t kind = skip ? joined[i].kind : want[i].kind;
            uint32_t count = skip ? joined[i].count : want[i].count;
            uint32_t waits = skip ? joined[i].waits : want[i].waits;
            CHECK_EQ_U(r->kind, kind);
            if (r->kind == GCR_REC_NONMEM) {
                CHECK_EQ_U(r->u.nonmem.count, count);
                CHECK_EQ_U(r->u.nonmem.waits, waits);
                CHECK(gcr_record_invalid(r, NULL) == NULL);
            } else if (r->kind == GCR_REC_WARP_INSN) {
                CHECK_EQ_U(r->u.insn.waits, waits);
            }
        }
        recs_free(&v);
    }
}

/* ok-list/: memcpys, an ignored line, a plain and a gzip kernel (the second has no thread
 * blocks), read as a directory, as a directory with a trailing slash and as kernelslist.g. */
static void test_lists(void)
{
    static const char *const paths[] = {FIXTURES "ok-list", FIXTURES "ok-list/",
                                        FIXTURES "ok-list/kernelslist.g"};
    for (size_t i = 0; i < N(paths); i++) {
        struct recs v = read_trace(paths[i], NULL, false);
        CHECK_EQ_U(v.rc, 0);
        CHECK_EQ_U(v.n, 9);
        if (v.n != 9)
            continue;
        CHECK(v.r[0].kind == GCR_REC_MEMCPY && v.r[0].u.memcpy.dst == 0x7f2b2d500000ull &&
              v.r[0].u.memcpy.bytes == 400);
        CHECK(v.r[1].kind == GCR_REC_MEMCPY && v.r[1].u.memcpy.dst == 0x7f2b2d500200ull);
        check_kernel(&v.r[2], 1, "first", 1, 1, 1, 32, 0, 8);
        CHECK(v.r[3].kind == GCR_REC_WARP_INSN &&
              v.r[3].u.insn.addr[31] == 0x7f2b2d500000ull + 124);
        CHECK(v.r[4].kind == GCR_REC_NONMEM && v.r[4].u.nonmem.count == 1);
        CHECK(v.r[5].kind == GCR_REC_KERNEL_END && v.r[5].u.kend.id == 1);
        CHECK(v.r[6].kind == GCR_REC_MEMCPY && v.r[6].u.memcpy.dst == 0x1000 &&
              v.r[6].u.memcpy.bytes == 0);
        check_kernel(&v.r[7], 2, "empty_grid", 1, 1, 1, 32, 0, 8);
        CHECK(v.r[8].kind == GCR_REC_KERNEL_END && v.r[8].u.kend.id == 2);
        recs_free(&v);
    }
}

/* Detection by gcr_reader_open with no format named, and what the probe refuses. */
static void test_detection(void)
{
    struct gcr_err err = {0};
    struct gcr_reader *rd;
    static const char *const ours[] = {
        FIXTURES "ok-list", FIXTURES "ok-list/kernelslist.g", FIXTURES "ok-modes.traceg",
        FIXTURES "ok-modes.traceg.xz", FIXTURES "ok-modes.traceg.gz", FIXTURES "ok-v5.traceg",
    };
    for (size_t i = 0; i < N(ours); i++) {
        CHECK(gcr_reader_open(&rd, ours[i], NULL, &err) == 0);
        if (rd) {
            CHECK(strcmp(gcr_reader_format_name(rd), "accelsim") == 0);
            gcr_reader_close(rd);
        }
    }
    /* A kernel list under another name is recognised by its first line. */
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "%s/gcr-accelsim-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR")
                                                                          : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/my-list.txt", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("\n\nMemcpyHtoD,0x10,4\n", f);
        fclose(f);
    }
    /* Read as a list: its copy comes out, then the error a list naming no kernel is. */
    struct recs v = read_trace(path, NULL, false);
    CHECK_EQ_U(v.rc, (unsigned long long)-1);
    CHECK(v.n == 1 && v.r[0].kind == GCR_REC_MEMCPY && v.r[0].u.memcpy.dst == 0x10);
    CHECK_STR_CONTAINS(v.err.msg, "my-list.txt: the kernel list names no kernel file");
    recs_free(&v);
    unlink(path);
    /* A directory without kernelslist.g is not an Accel-Sim trace. */
    CHECK_EQ_U(gcr_format_accelsim.probe(NULL, dir, NULL, 0), 0);
    CHECK(gcr_reader_open(&rd, dir, "accelsim", &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "no kernelslist.g");
    rmdir(dir);
    /* Other formats' files are not ours. */
    CHECK_EQ_U(gcr_format_accelsim.probe(NULL, GCR_SOURCE_ROOT "/examples/traces/vecadd.txt", NULL, 0),
               0);
}

/* reader_describe after a whole trace. */
static void test_describe(void)
{
    struct gcr_err err = {0};
    struct gcr_reader *rd;
    struct gcr_record rec;
    CHECK(gcr_reader_open(&rd, FIXTURES "ok-modes.traceg.xz", NULL, &err) == 0);
    if (!rd)
        return;
    while (gcr_reader_next(rd, &rec, &err) == 1)
        ;
    struct stat st;
    CHECK(stat(FIXTURES "ok-modes.traceg.xz", &st) == 0);
    CHECK_EQ_U(gcr_reader_bytes_done(rd), (uint64_t)st.st_size);
    json_t *info = json_object();
    gcr_reader_describe(rd, info);
    json_t *d = json_object_get(info, "format_details");
    CHECK_EQ_U(json_integer_value(json_object_get(d, "instructions")), 27);
    CHECK_EQ_U(json_integer_value(json_object_get(d, "memory_instructions")), 17);
    CHECK_EQ_U(json_integer_value(json_object_get(d, "nonmemory_instructions")), 10);
    CHECK_EQ_U(json_integer_value(json_object_get(d, "tracer_version")), 4);
    CHECK_EQ_U(json_integer_value(json_object_get(d, "binary_version")), 70);
    CHECK_EQ_U(json_integer_value(json_object_get(d, "thread_blocks")), 2);
    CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(d, "unknown_opcodes"),
                                                  "FOOBAR")), 2);
    CHECK_EQ_U(json_object_size(json_object_get(d, "unknown_opcodes")), 1);
    CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(d,
                                  "ignored_addresses_by_opcode"), "CCTL")), 1);
    CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(d,
                                  "kernel_files_by_compression"), "xz")), 1);
    json_decref(info);
    gcr_reader_close(rd);

    CHECK(gcr_reader_open(&rd, FIXTURES "ok-v6.traceg", NULL, &err) == 0);
    if (!rd)
        return;
    while (gcr_reader_next(rd, &rec, &err) == 1)
        ;
    info = json_object();
    gcr_reader_describe(rd, info);
    d = json_object_get(info, "format_details");
    CHECK_EQ_U(json_integer_value(json_object_get(d, "tma_instructions")), 1);
    CHECK_EQ_U(json_integer_value(json_object_get(d, "tracer_version")), 6);
    json_decref(info);
    gcr_reader_close(rd);
}

int main(void)
{
    test_single_files();
    test_units();
    test_lists();
    test_detection();
    test_describe();
    CHECK_DONE();
}
