/* Round trip: every record kind and every address form written and read back field by field,
 * uncompressed and zstd, with one big block and with tiny blocks; plus the writer's refusals. */
#include "gcrt_test.h"

#define MAX_RECS 4096

static struct gcr_record recs[MAX_RECS];
static struct gcr_record back[MAX_RECS];
static char names[MAX_RECS][64];
static size_t nrecs;

static void add(struct gcr_record r)
{
    if (nrecs == MAX_RECS)
        exit(2);
    recs[nrecs++] = r;
}

/* Register dependencies in every form the format encodes (README.md, section 6.3): none
 * known, known and none, and explicit values of one to three bytes, with and without the
 * barrier bit. */
static const uint32_t waits_forms[] = {
    0,
    GCR_WAITS_KNOWN,
    GCR_WAITS_KNOWN | 1u,
    GCR_WAITS_KNOWN | GCR_WAITS_BARRIER,
    GCR_WAITS_KNOWN | GCR_WAITS_BARRIER | 0x3fu,
    GCR_WAITS_KNOWN | 0x40u,
    GCR_WAITS_KNOWN | 1u << (GCR_WAIT_WINDOW - 1),
    GCR_WAITS_KNOWN | GCR_WAITS_BARRIER | GCR_WAITS_MASK,
};
#define WAITS_FORMS (sizeof waits_forms / sizeof *waits_forms)

/* Pseudo-random numbers from a fixed seed. */
static uint64_t rng = 0x853c49e6748fea9bull;
static uint32_t rnd32(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

/* Random valid register dependencies naming non-memory instructions (version 1.2): any window,
 * barrier and non-memory bits on a warp instruction (insn), and those with a random unit on a
 * non-memory record of one instruction. */
static uint32_t random_alu_waits(bool insn)
{
    uint32_t w = GCR_WAITS_KNOWN | (rnd32() % 2 ? GCR_WAITS_BARRIER : 0) |
                 (rnd32() % 3 ? 0 : rnd32() & GCR_WAITS_MASK) | (rnd32() & GCR_WAITS_ALU_MASK);
    if (insn)
        return w;
    return gcr_waits_with_unit(w, (enum gcr_unit)(1 + rnd32() % (GCR_UNIT_COUNT - 1)));
}

/* A trace exercising every record kind, address mode, width, mask shape and form of register
 * dependencies. */
static void build(void)
{
    add(mcpy(0x7f0000000000ull, 1 << 20));
    add(mcpy(0, 0));
    add(mcpy(0xffffff0000000000ull, 1ull << 40)); /* the largest copy, ending at 2^64 - 1 */

    struct gcr_record k = kbegin(1, "vector_add<float>", 40, 2, 3, 32, 4, 2);
    k.u.kbegin.shmem_bytes = 49152;
    k.u.kbegin.regs_per_thread = 255;
    add(k);
    const int widths[] = {1, 4, 16, 128, 256, 2, 8};
    const int64_t strides[] = {4, -4, 0, 128, -1, 1 << 20, INT64_MIN / 64, 7};
    const uint32_t masks[] = {0xffffffffu, 0x0000ffffu, 0x80000001u, 0x00000001u,
                              0x80000000u, 0x0f0f0f0fu, 0xfffffffeu, 0};
    unsigned n = 0;
    for (unsigned mi = 0; mi < sizeof masks / sizeof *masks; mi++)
        for (unsigned si = 0; si < sizeof strides / sizeof *strides; si++) {
            struct gcr_record r =
                insn_stride(n / 4, n % 8, 0x100 + 16 * n, (int)(n % GCR_OP_COUNT),
                            (int)(n % GCR_SPACE_COUNT), widths[n % 7], masks[mi],
                            0x10000000ull * (si + 1) + mi, strides[si]);
            r.u.insn.cache_op = (uint8_t)(n % 2);
            r.u.insn.waits = waits_forms[n % WAITS_FORMS];
            add(r);
            n++;
        }
    /* Inactive lanes given garbage: the reader must still return them as 0. */
    struct gcr_record g = insn_stride(16, 1, 0x40, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0x0000ff00u,
                                      0x5000, 4);
    for (int lane = 0; lane < 8; lane++)
        g.u.insn.addr[lane] = 0xdeadbeef;
    add(g);
    /* Deltas: small irregular steps, incl. negative ones. */
    struct gcr_record d = insn_stride(17, 2, 0x80, GCR_OP_STORE, GCR_SPACE_LOCAL, 8, 0xffffffffu,
                                      0, 0);
    for (int lane = 0; lane < 32; lane++)
        d.u.insn.addr[lane] = 0x20000000ull + (uint64_t)((lane * 37) % 11) * 64 - 8u * lane;
    add(d);
    struct gcr_record d2 = d;
    d2.u.insn.active_mask = 0x00f0f00fu;
    add(d2);
    /* Two active lanes never need deltas (any pair is a stride) but three can. */
    struct gcr_record d3 = insn_stride(17, 3, 0x84, GCR_OP_ATOMIC, GCR_SPACE_GLOBAL, 4,
                                       0x00010101u, 0, 0);
    d3.u.insn.addr[0] = 100;
    d3.u.insn.addr[8] = 50;
    d3.u.insn.addr[16] = 1000;
    add(d3);
    /* A scattered list: lanes alternate between distant regions, so deltas are huge. */
    struct gcr_record l = insn_stride(18, 0, 0x7fffffff0ull, GCR_OP_REDUCTION, GCR_SPACE_GLOBAL,
                                      16, 0xffffffffu, 0, 0);
    for (int lane = 0; lane < 32; lane++)
        l.u.insn.addr[lane] = (lane & 1) ? 0x10ull + (uint64_t)lane : 0xfff0000000000000ull;
    add(l);
    struct gcr_record l2 = l;
    l2.u.insn.active_mask = 0xaaaa5555u;
    add(l2);
    /* Extreme field values. */
    add(insn_stride(239, 7, UINT64_MAX, GCR_OP_LOAD, GCR_SPACE_TEXTURE, 256, 0xffffffffu,
                    UINT64_MAX - 10, 3));
    add(nonmem(239, 0, 1));
    add(nonmem(239, 7, UINT32_MAX));
    for (unsigned i = 0; i < WAITS_FORMS; i++) {
        struct gcr_record w = nonmem(239, i % 8, 1 + i);
        w.u.nonmem.waits = waits_forms[i];
        add(w);
    }
    /* Non-memory dependencies and units: every unit, the extreme values (the largest value,
     * 2^30 - 1: the last unit and every other bit; a10 alone), then random ones. */
    for (unsigned u = 1; u < GCR_UNIT_COUNT; u++) {
        struct gcr_record w = nonmem(239, u % 8, 1);
        w.u.nonmem.waits = gcr_waits_with_unit(GCR_WAITS_KNOWN, (enum gcr_unit)u);
        add(w);
    }
    struct gcr_record wmax = nonmem(239, 1, 1);
    wmax.u.nonmem.waits = gcr_waits_with_unit(GCR_WAITS_ALL, (enum gcr_unit)(GCR_UNIT_COUNT - 1));
    add(wmax);
    struct gcr_record a10 = insn_stride(239, 2, 0x50, GCR_OP_STORE, GCR_SPACE_SHARED, 4,
                                        0xffffffffu, 0x100, 4);
    a10.u.insn.waits = GCR_WAITS_KNOWN | 1u << (GCR_WAITS_ALU_SHIFT + GCR_ALU_WINDOW - 1);
    add(a10);
    for (unsigned i = 0; i < 200; i++) {
        if (i % 2) {
            struct gcr_record w = nonmem(239, i % 8, 1);
            w.u.nonmem.waits = random_alu_waits(false);
            add(w);
        } else {
            struct gcr_record w = insn_stride(239, i % 8, 0x60 + 16 * i, GCR_OP_LOAD,
                                              GCR_SPACE_GLOBAL, 4, rnd32() | 1u, 0x1000 * i, 8);
            w.u.insn.waits = random_alu_waits(true);
            add(w);
        }
    }
    add(kend(1));

    add(mcpy(0x1000, 4096));
    struct gcr_record k2 = kbegin(UINT32_MAX, "", 1, 1, 1, 1, 1, 1);
    k2.u.kbegin.shmem_bytes = UINT32_MAX;
    k2.u.kbegin.regs_per_thread = UINT32_MAX;
    add(k2);
    add(insn_stride(0, 0, 0, GCR_OP_LOAD, GCR_SPACE_SHARED, 4, 1, 0, 0));
    add(kend(UINT32_MAX));

    /* Many similar records so zstd has something to compress. */
    add(kbegin(2, "stream", 1000, 1, 1, 256, 1, 1));
    for (uint32_t i = 0; i < 2000; i++) {
        add(insn_stride(i / 8, i % 8, 0x200 + 16 * (i % 4), GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4,
                        0xffffffffu, 0x7f0000000000ull + 128ull * i, 4));
        if (i % 4 == 3)
            add(nonmem(i / 8, i % 8, 12));
    }
    add(kend(2));
}

static void roundtrip(int level, uint32_t block_bytes)
{
    char path[256];
    tmp_path(path, sizeof path, "roundtrip");
    struct gcr_err err = {GCR_OK, ""};
    int rc = write_trace(path, recs, nrecs, level, block_bytes, &err);
    if (rc != 0)
        fprintf(stderr, "write: %s\n", err.msg);
    CHECK_EQ_U(rc, 0);

    struct read_result res = read_trace(path, back, MAX_RECS, names);
    if (res.rc != 0)
        fprintf(stderr, "read: %s\n", res.err.msg);
    CHECK_EQ_U(res.rc, 0);
    CHECK_EQ_U(res.count, nrecs);
    size_t bad = 0;
    for (size_t i = 0; i < nrecs && i < res.count && bad < 5; i++)
        bad += (size_t)record_diff(&recs[i], &back[i], i);
    CHECK_EQ_U(bad, 0);

    size_t len;
    unsigned char *bytes = slurp(path, &len);
    CHECK_EQ_U(res.bytes_done, len);
    /* Count blocks and codecs by walking the layout. */
    size_t off = 32, blocks = 0, zstd_blocks = 0;
    while (off + 4 <= len && memcmp(bytes + off, "GBLK", 4) == 0) {
        uint32_t stored = (uint32_t)bytes[off + 12] | (uint32_t)bytes[off + 13] << 8 |
                          (uint32_t)bytes[off + 14] << 16 | (uint32_t)bytes[off + 15] << 24;
        zstd_blocks += bytes[off + 4] == 1;
        blocks++;
        off += 40 + stored;
    }
    CHECK(off + 28 == len && memcmp(bytes + off, "GEND", 4) == 0);
    if (block_bytes && block_bytes < 64)
        CHECK(blocks > nrecs / 4);
    if (!block_bytes)
        CHECK_EQ_U(blocks, 1);
    if (level == 0)
        CHECK_EQ_U(zstd_blocks, 0);
    else if (!block_bytes)
        CHECK_EQ_U(zstd_blocks, 1);
    printf("level %d, block_bytes %u: %zu records, %zu blocks (%zu zstd), %zu bytes\n", level,
           block_bytes, nrecs, blocks, zstd_blocks, len);
    free(bytes);
    remove(path);
}

/* The writer refuses streams the reader would reject, naming the record. */
static void writer_refusals(void)
{
    struct {
        struct gcr_record recs[4];
        size_t n;
        const char *msg;
    } cases[] = {
        {{kbegin(1, "a", 1, 1, 1, 32, 1, 1), kbegin(2, "b", 1, 1, 1, 32, 1, 1)}, 2,
         "record 1: cannot write: kernel 2 begins before kernel 1 has ended"},
        {{kend(1)}, 1, "record 0: cannot write: kernel end (id 1) outside any kernel"},
        {{kbegin(1, "a", 1, 1, 1, 32, 1, 1), kend(2)}, 2, "does not match the open kernel 1"},
        {{nonmem(0, 0, 3)}, 1, "outside any kernel"},
        {{kbegin(1, "a", 1, 1, 1, 32, 1, 1), nonmem(0, 0, 0)}, 2, "count must be >= 1"},
        {{kbegin(1, "a", 2, 1, 1, 64, 1, 1),
          insn_stride(2, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 1, 0, 0)},
         2, "CTA id outside"},
        {{kbegin(1, "a", 2, 1, 1, 64, 1, 1),
          insn_stride(1, 2, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 1, 0, 0)},
         2, "warp id outside"},
        {{kbegin(1, "a", 2, 1, 1, 64, 1, 1),
          insn_stride(1, 1, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 0, 1, 0, 0)},
         2, "width"},
        {{kbegin(1, "a", 2, 1, 1, 64, 1, 1), mcpy(0, 8)}, 2, "memcpy inside kernel 1"},
        {{mcpy(UINT64_MAX, 2)}, 1, "memcpy range wraps past the end of the address space"},
        {{mcpy(0, (1ull << 40) + 1)}, 1, "memcpy larger than 1 TiB"},
        {{kbegin(1, "a", 0, 1, 1, 64, 1, 1)}, 1, "dimensions"},
        {{kbegin(1, "a", 3, 1, 1, 64, 1, 1), nonmem(0, 1, 1), nonmem(1, 0, 1), nonmem(0, 0, 1)},
         4, "record 3: cannot write: CTA 0 reappears after its records ended"},
        /* Register dependencies the format cannot carry, even in the middle of a CTA's run
         * (the stream rules' fast path does not look at them). */
        {{kbegin(1, "a", 1, 1, 1, 64, 1, 1), nonmem(0, 0, 1), nonmem(0, 1, 1)},
         3, "record 2: cannot write: register dependencies on a record whose registers are not"},
        {{kbegin(1, "a", 1, 1, 1, 64, 1, 1), nonmem(0, 0, 1),
          insn_stride(0, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 1, 0, 0)},
         3, "record 2: cannot write: register dependencies name memory instructions beyond"},
        /* Units and non-memory dependencies where record.h does not allow them. */
        {{kbegin(1, "a", 1, 1, 1, 64, 1, 1), nonmem(0, 0, 1),
          insn_stride(0, 0, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 1, 0, 0)},
         3, "record 2: cannot write: an execution unit on a memory instruction"},
        {{kbegin(1, "a", 1, 1, 1, 64, 1, 1), nonmem(0, 0, 1), nonmem(0, 1, 2)},
         3, "record 2: cannot write: an execution unit on a run of several non-memory"},
        {{kbegin(1, "a", 1, 1, 1, 64, 1, 1), nonmem(0, 0, 1), nonmem(0, 1, 1)},
         3, "record 2: cannot write: non-memory dependencies on a non-memory run without an "
            "execution unit"},
    };
    cases[13].recs[2].u.nonmem.waits = 1u;
    /* Bit 29: neither a dependency nor part of the unit. */
    cases[14].recs[2].u.insn.waits = GCR_WAITS_KNOWN | 1u << 29;
    cases[15].recs[2].u.insn.waits = gcr_waits_with_unit(GCR_WAITS_KNOWN, GCR_UNIT_INT);
    cases[16].recs[2].u.nonmem.waits = gcr_waits_with_unit(GCR_WAITS_KNOWN, GCR_UNIT_SP);
    cases[17].recs[2].u.nonmem.waits = GCR_WAITS_KNOWN | 1u << GCR_WAITS_ALU_SHIFT;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char path[256];
        tmp_path(path, sizeof path, "refuse");
        struct gcr_err err = {GCR_OK, ""};
        CHECK(write_trace(path, cases[c].recs, cases[c].n, 0, 0, &err) == -1);
        CHECK_EQ_U(err.status, GCR_E_FORMAT);
        CHECK_STR_CONTAINS(err.msg, path);
        CHECK_STR_CONTAINS(err.msg, cases[c].msg);
        remove(path);
    }

    /* Ending inside a kernel is refused by finish. */
    char path[256];
    tmp_path(path, sizeof path, "refuse");
    struct gcr_record open_kernel[] = {kbegin(9, "k", 1, 1, 1, 32, 1, 1)};
    struct gcr_err err = {GCR_OK, ""};
    CHECK(write_trace(path, open_kernel, 1, 3, 0, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "trace ends inside kernel 9");

    /* An overlong kernel name. */
    char *longname = malloc(70000);
    memset(longname, 'x', 69999);
    longname[69999] = '\0';
    struct gcr_record big[] = {kbegin(1, longname, 1, 1, 1, 32, 1, 1), kend(1)};
    CHECK(write_trace(path, big, 2, 0, 0, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "kernel name longer than 65535 bytes");
    /* The longest allowed name round-trips (it spans far more than the block target). */
    longname[65535] = '\0';
    CHECK_EQ_U(write_trace(path, big, 2, 3, 16, &err), 0);
    void *r = NULL;
    struct gcr_record rec;
    CHECK_EQ_U(gcr_format_gcrt.reader_open(&r, NULL, path, &err), 0);
    if (r) {
        CHECK_EQ_U(gcr_format_gcrt.reader_next(r, &rec, &err), 1);
        CHECK(rec.kind == GCR_REC_KERNEL_BEGIN && strcmp(rec.u.kbegin.name, longname) == 0);
        CHECK_EQ_U(gcr_format_gcrt.reader_next(r, &rec, &err), 1);
        CHECK_EQ_U(gcr_format_gcrt.reader_next(r, &rec, &err), 0);
        gcr_format_gcrt.reader_close(r);
    }
    free(longname);

    /* Bad compression levels are refused up front. */
    void *w = NULL;
    FILE *f = fopen(path, "wb");
    struct gcr_write_opts bad = {99, 0};
    CHECK(gcr_format_gcrt.writer_open(&w, f, path, &bad, &err) == -1);
    CHECK(w == NULL);
    CHECK_STR_CONTAINS(err.msg, "compression level 99");
    fclose(f);
    remove(path);
}

static void probe(void)
{
    static const unsigned char magic[8] = {0x89, 'G', 'C', 'R', 'T', '\r', '\n', '\n'};
    unsigned char head[16] = {0};
    memcpy(head, magic, 8);
    CHECK_EQ_U(gcr_format_gcrt.probe(NULL, "x", head, 16), 1);
    CHECK_EQ_U(gcr_format_gcrt.probe(NULL, "x", head, 8), 1);
    CHECK_EQ_U(gcr_format_gcrt.probe(NULL, "x", head, 7), 0);
    CHECK_EQ_U(gcr_format_gcrt.probe(NULL, "x", head, 0), 0);
    head[7] = '\r';
    CHECK_EQ_U(gcr_format_gcrt.probe(NULL, "x", head, 16), 0);
    CHECK(strcmp(gcr_format_gcrt.name, "gcrt") == 0);
    CHECK(strcmp(gcr_format_gcrt.extension, ".gcrt") == 0);
}

int main(void)
{
    build();
    roundtrip(0, 0);
    roundtrip(3, 0);
    roundtrip(0, 1);
    roundtrip(3, 1);
    roundtrip(0, 40);
    roundtrip(3, 200);
    roundtrip(19, 4096);
    writer_refusals();
    probe();
    CHECK_DONE();
}
