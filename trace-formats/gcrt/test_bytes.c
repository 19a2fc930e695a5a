/* Pins the specification: the exact bytes of a tiny uncompressed file, written out by hand
 * from README.md (checksums computed independently with CRC-32/ISO-HDLC), must equal what the
 * writer produces, and the reader must decode those hand-written bytes back. The worked
 * examples of the earlier versions (1.1: without non-memory dependencies and units; 1.0:
 * without any register dependencies) must still read back to their records. */
#include "gcrt_test.h"

#define MAX_EXAMPLE_RECS 9

static const unsigned char expected[] = {
    /* File header (32 bytes). */
    0x89, 'G', 'C', 'R', 'T', 0x0d, 0x0a, 0x0a, /* magic */
    0x01, 0x00,                                 /* version_major 1 */
    0x02, 0x00,                                 /* version_minor 2 */
    0x04, 0x03, 0x02, 0x01,                     /* byte-order mark 0x01020304 */
    0x20, 0x00, 0x00, 0x00,                     /* header_bytes 32 */
    0x03, 0x00, 0x00, 0x00,                     /* flags: bit 0, register dependencies; bit 1,
                                                 * non-memory ones and units */
    0x00, 0x00, 0x00, 0x00,                     /* reserved */
    0x2b, 0x52, 0x88, 0x91,                     /* crc32 of bytes 0..27 = 0x9188522b */

    /* Block 0 header (40 bytes). */
    'G', 'B', 'L', 'K',     /* magic */
    0x00,                   /* codec none */
    0x00, 0x00, 0x00,       /* reserved */
    0x00, 0x00, 0x00, 0x00, /* block_index 0 */
    0x64, 0x00, 0x00, 0x00, /* stored_bytes 100 */
    0x64, 0x00, 0x00, 0x00, /* raw_bytes 100 */
    0x09, 0x00, 0x00, 0x00, /* record_count 9 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* first_record_index 0 */
    0x92, 0x1c, 0xf4, 0x20, /* payload crc32 0x20f41c92 */
    0x91, 0x4d, 0xef, 0xfc, /* header crc32 0xfcef4d91 */

    /* Payload (100 bytes). */
    /* memcpy: type 5, dst 0x1000, bytes 256 */
    0x05, 0x80, 0x20, 0x80, 0x02,
    /* kernel begin: type 1, id 7, grid 2 1 1, block 64 1 1, shmem 0, regs 16, name "k" */
    0x01, 0x07, 0x02, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x10, 0x01, 'k',
    /* warp insn, type byte 0x43 (3 | code 1 << 6: registers known, waits for nothing), stride
     * mode: cta 0, warp 1, pc 0x10, info 0x00 (load, global, default, stride), width 4
     * (stored 3), mask 0x0000000f, base 0x1000, stride +4 (zigzag 8) */
    0x43, 0x00, 0x01, 0x10, 0x00, 0x03, 0x0f, 0x00, 0x00, 0x00, 0x80, 0x20, 0x08,
    /* warp insn, type byte 0x83 (3 | code 2 << 6: explicit dependencies), deltas mode: cta 0,
     * warp 0, pc 0x20, info 0x65 (store=1 | local=1<<2 | bypass_l1=1<<5 | deltas=1<<6),
     * width 8, mask 0x7, base 0x100, deltas -16 (zigzag 31) and +0x110 (zigzag 544), then
     * waits value 2 (bit 0 of the mask: the previous memory instruction) */
    0x83, 0x00, 0x00, 0x20, 0x65, 0x07, 0x07, 0x00, 0x00, 0x00, 0x80, 0x02, 0x1f, 0xa0, 0x04,
    0x02,
    /* warp insn, type byte 0x03 (code 0: registers not known), list mode: cta 1, warp 0,
     * pc 0x30, info 0x82 (atomic=2 | global | list=2<<6), width 16, mask 0x80010001,
     * addresses 1, 2^63 (ten bytes), 2 */
    0x03, 0x01, 0x00, 0x30, 0x82, 0x0f, 0x01, 0x00, 0x01, 0x80, 0x01, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x02,
    /* non-memory, type byte 0x84 (4 | code 2 << 6): cta 1, warp 1, count 300, waits value
     * 0x10001 (mask bit 15, the 16th memory instruction back and older, << 1 | barrier) */
    0x84, 0x01, 0x01, 0xac, 0x02, 0x81, 0x80, 0x04,
    /* non-memory, type byte 0x84: cta 1, warp 1, count 1, waits value 0x10020002 = (unit 2
     * (sp) << 10 | a1) << 17 | (window bit 0, the previous memory instruction) << 1 */
    0x84, 0x01, 0x01, 0x01, 0x82, 0x80, 0x88, 0x80, 0x01,
    /* warp insn with no active lane, type byte 0x83: cta 1, warp 1, pc 0x40, info 0x0c (load,
     * const), width 1, mask 0, no address fields, waits value 0x20000 (a1: the sp instruction
     * just before it) */
    0x83, 0x01, 0x01, 0x40, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x80, 0x08,
    /* kernel end: type 2, id 7 */
    0x02, 0x07,

    /* Trailer (28 bytes). */
    'G', 'E', 'N', 'D',
    0x00, 0x00, 0x00, 0x00,                         /* reserved */
    0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* total_records 9 */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* total_blocks 1 */
    0xd8, 0x4d, 0xd5, 0xdc,                         /* crc32 0xdcd54dd8 */
};

/* Version 1.1's worked example: the records without the non-memory one of count 1, and no
 * non-memory dependencies. */
static const unsigned char expected_1_1[] = {
    /* File header (32 bytes). */
    0x89, 'G', 'C', 'R', 'T', 0x0d, 0x0a, 0x0a, /* magic */
    0x01, 0x00,                                 /* version_major 1 */
    0x01, 0x00,                                 /* version_minor 1 */
    0x04, 0x03, 0x02, 0x01,                     /* byte-order mark 0x01020304 */
    0x20, 0x00, 0x00, 0x00,                     /* header_bytes 32 */
    0x01, 0x00, 0x00, 0x00,                     /* flags: bit 0, register dependencies */
    0x00, 0x00, 0x00, 0x00,                     /* reserved */
    0x34, 0x88, 0x2b, 0x39,                     /* crc32 of bytes 0..27 = 0x392b8834 */

    /* Block 0 header (40 bytes). */
    'G', 'B', 'L', 'K',     /* magic */
    0x00,                   /* codec none */
    0x00, 0x00, 0x00,       /* reserved */
    0x00, 0x00, 0x00, 0x00, /* block_index 0 */
    0x58, 0x00, 0x00, 0x00, /* stored_bytes 88 */
    0x58, 0x00, 0x00, 0x00, /* raw_bytes 88 */
    0x08, 0x00, 0x00, 0x00, /* record_count 8 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* first_record_index 0 */
    0x1b, 0x4b, 0x1c, 0xa3, /* payload crc32 0xa31c4b1b */
    0x99, 0x53, 0x89, 0x5a, /* header crc32 0x5a895399 */

    /* Payload (88 bytes). */
    /* memcpy: type 5, dst 0x1000, bytes 256 */
    0x05, 0x80, 0x20, 0x80, 0x02,
    /* kernel begin: type 1, id 7, grid 2 1 1, block 64 1 1, shmem 0, regs 16, name "k" */
    0x01, 0x07, 0x02, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x10, 0x01, 'k',
    /* warp insn, type byte 0x43 (3 | code 1 << 6: registers known, waits for nothing), stride
     * mode: cta 0, warp 1, pc 0x10, info 0x00 (load, global, default, stride), width 4
     * (stored 3), mask 0x0000000f, base 0x1000, stride +4 (zigzag 8) */
    0x43, 0x00, 0x01, 0x10, 0x00, 0x03, 0x0f, 0x00, 0x00, 0x00, 0x80, 0x20, 0x08,
    /* warp insn, type byte 0x83 (3 | code 2 << 6: explicit dependencies), deltas mode: cta 0,
     * warp 0, pc 0x20, info 0x65 (store=1 | local=1<<2 | bypass_l1=1<<5 | deltas=1<<6),
     * width 8, mask 0x7, base 0x100, deltas -16 (zigzag 31) and +0x110 (zigzag 544), then
     * waits value 2 (bit 0 of the mask: the previous memory instruction) */
    0x83, 0x00, 0x00, 0x20, 0x65, 0x07, 0x07, 0x00, 0x00, 0x00, 0x80, 0x02, 0x1f, 0xa0, 0x04,
    0x02,
    /* warp insn, type byte 0x03 (code 0: registers not known), list mode: cta 1, warp 0,
     * pc 0x30, info 0x82 (atomic=2 | global | list=2<<6), width 16, mask 0x80010001,
     * addresses 1, 2^63 (ten bytes), 2 */
    0x03, 0x01, 0x00, 0x30, 0x82, 0x0f, 0x01, 0x00, 0x01, 0x80, 0x01, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x02,
    /* non-memory, type byte 0x84 (4 | code 2 << 6): cta 1, warp 1, count 300, waits value
     * 0x10001 (mask bit 15, the 16th memory instruction back and older, << 1 | barrier) */
    0x84, 0x01, 0x01, 0xac, 0x02, 0x81, 0x80, 0x04,
    /* warp insn with no active lane, type byte 0x43: cta 1, warp 1, pc 0x40, info 0x0c (load,
     * const), width 1, mask 0, no address fields */
    0x43, 0x01, 0x01, 0x40, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00,
    /* kernel end: type 2, id 7 */
    0x02, 0x07,

    /* Trailer (28 bytes). */
    'G', 'E', 'N', 'D',
    0x00, 0x00, 0x00, 0x00,                         /* reserved */
    0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* total_records 8 */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* total_blocks 1 */
    0x49, 0xdc, 0xbd, 0x72,                         /* crc32 0x72bddc49 */
};

/* Version 1.0's worked example: the same records without register dependencies. */
static const unsigned char expected_1_0[] = {
    /* File header (32 bytes). */
    0x89, 'G', 'C', 'R', 'T', 0x0d, 0x0a, 0x0a, /* magic */
    0x01, 0x00,                                 /* version_major 1 */
    0x00, 0x00,                                 /* version_minor 0 */
    0x04, 0x03, 0x02, 0x01,                     /* byte-order mark 0x01020304 */
    0x20, 0x00, 0x00, 0x00,                     /* header_bytes 32 */
    0x00, 0x00, 0x00, 0x00,                     /* flags */
    0x00, 0x00, 0x00, 0x00,                     /* reserved */
    0x4b, 0x3e, 0xd3, 0x1a,                     /* crc32 of bytes 0..27 = 0x1ad33e4b */

    /* Block 0 header (40 bytes). */
    'G', 'B', 'L', 'K',     /* magic */
    0x00,                   /* codec none */
    0x00, 0x00, 0x00,       /* reserved */
    0x00, 0x00, 0x00, 0x00, /* block_index 0 */
    0x54, 0x00, 0x00, 0x00, /* stored_bytes 84 */
    0x54, 0x00, 0x00, 0x00, /* raw_bytes 84 */
    0x08, 0x00, 0x00, 0x00, /* record_count 8 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* first_record_index 0 */
    0x46, 0xee, 0xe6, 0x43, /* payload crc32 0x43e6ee46 */
    0x28, 0x6f, 0x39, 0x9a, /* header crc32 0x9a396f28 */

    /* Payload (84 bytes). */
    /* memcpy: type 5, dst 0x1000, bytes 256 */
    0x05, 0x80, 0x20, 0x80, 0x02,
    /* kernel begin: type 1, id 7, grid 2 1 1, block 64 1 1, shmem 0, regs 16, name "k" */
    0x01, 0x07, 0x02, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x10, 0x01, 'k',
    /* warp insn, stride mode: cta 0, warp 1, pc 0x10, info 0x00 (load, global, default,
     * stride), width 4 (stored 3), mask 0x0000000f, base 0x1000, stride +4 (zigzag 8) */
    0x03, 0x00, 0x01, 0x10, 0x00, 0x03, 0x0f, 0x00, 0x00, 0x00, 0x80, 0x20, 0x08,
    /* warp insn, deltas mode: cta 0, warp 0, pc 0x20, info 0x65 (store=1 | local=1<<2 |
     * bypass_l1=1<<5 | deltas=1<<6), width 8, mask 0x7, base 0x100, deltas -16 (zigzag 31)
     * and +0x110 (zigzag 544) */
    0x03, 0x00, 0x00, 0x20, 0x65, 0x07, 0x07, 0x00, 0x00, 0x00, 0x80, 0x02, 0x1f, 0xa0, 0x04,
    /* warp insn, list mode: cta 1, warp 0, pc 0x30, info 0x82 (atomic=2 | global | list=2<<6),
     * width 16, mask 0x80010001, addresses 1, 2^63 (ten bytes), 2 */
    0x03, 0x01, 0x00, 0x30, 0x82, 0x0f, 0x01, 0x00, 0x01, 0x80, 0x01, 0x80, 0x80, 0x80, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x02,
    /* non-memory: type 4, cta 1, warp 1, count 300 */
    0x04, 0x01, 0x01, 0xac, 0x02,
    /* warp insn with no active lane: cta 1, warp 1, pc 0x40, info 0x0c (load, const), width 1,
     * mask 0, no address fields */
    0x03, 0x01, 0x01, 0x40, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00,
    /* kernel end: type 2, id 7 */
    0x02, 0x07,

    /* Trailer (28 bytes). */
    'G', 'E', 'N', 'D',
    0x00, 0x00, 0x00, 0x00,                         /* reserved */
    0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* total_records 8 */
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* total_blocks 1 */
    0x49, 0xdc, 0xbd, 0x72,                         /* crc32 0x72bddc49 */
};

/* The records of the example of version 1.`minor`; returns their number. */
static size_t build(struct gcr_record *r, unsigned minor)
{
    bool with_waits = minor >= 1;
    r[0] = mcpy(0x1000, 256);
    r[1] = kbegin(7, "k", 2, 1, 1, 64, 1, 1);
    r[1].u.kbegin.regs_per_thread = 16;
    r[2] = insn_stride(0, 1, 0x10, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xf, 0x1000, 4);
    r[3] = insn_stride(0, 0, 0x20, GCR_OP_STORE, GCR_SPACE_LOCAL, 8, 0x7, 0, 0);
    r[3].u.insn.cache_op = GCR_CACHEOP_BYPASS_L1;
    r[3].u.insn.addr[0] = 0x100;
    r[3].u.insn.addr[1] = 0xf0;
    r[3].u.insn.addr[2] = 0x200;
    r[4] = insn_stride(1, 0, 0x30, GCR_OP_ATOMIC, GCR_SPACE_GLOBAL, 16, 0x80010001u, 0, 0);
    r[4].u.insn.addr[0] = 1;
    r[4].u.insn.addr[16] = 1ull << 63;
    r[4].u.insn.addr[31] = 2;
    r[5] = nonmem(1, 1, 300);
    r[6] = insn_stride(1, 1, 0x40, GCR_OP_LOAD, GCR_SPACE_CONST, 1, 0, 0, 0);
    r[7] = kend(7);
    if (with_waits) {
        r[2].u.insn.waits = GCR_WAITS_KNOWN;
        r[3].u.insn.waits = GCR_WAITS_KNOWN | 1u;
        r[5].u.nonmem.waits = GCR_WAITS_KNOWN | GCR_WAITS_BARRIER | 1u << 15;
        r[6].u.insn.waits = GCR_WAITS_KNOWN;
    }
    if (minor < 2)
        return 8;
    /* Version 1.2: a non-memory instruction on the sp unit, after the previous memory
     * instruction and the previous non-memory one, then the instruction without lanes after
     * it. */
    r[8] = r[7];
    r[7] = r[6];
    r[6] = nonmem(1, 1, 1);
    r[6].u.nonmem.waits = gcr_waits_with_unit(GCR_WAITS_KNOWN | 1u | 1u << GCR_WAITS_ALU_SHIFT,
                                              GCR_UNIT_SP);
    r[7].u.insn.waits = GCR_WAITS_KNOWN | 1u << GCR_WAITS_ALU_SHIFT;
    return 9;
}

/* The reader decodes the hand-written bytes back to the records. */
static void check_reads_back(const unsigned char *bytes, size_t len,
                             const struct gcr_record *recs, size_t n)
{
    char path[256];
    tmp_path(path, sizeof path, "bytes-read");
    spit(path, bytes, len);
    struct gcr_record back[MAX_EXAMPLE_RECS];
    char names[MAX_EXAMPLE_RECS][64];
    struct read_result res = read_trace(path, back, MAX_EXAMPLE_RECS, names);
    CHECK_EQ_U(res.rc, 0);
    CHECK_EQ_U(res.count, n);
    CHECK_EQ_U(res.bytes_done, len);
    for (size_t i = 0; i < n && i < res.count; i++)
        CHECK_EQ_U(record_diff(&recs[i], &back[i], i), 0);
    remove(path);
}

int main(void)
{
    struct gcr_record recs[MAX_EXAMPLE_RECS], recs_1_1[MAX_EXAMPLE_RECS],
        recs_1_0[MAX_EXAMPLE_RECS];
    size_t n = build(recs, 2), n_1_1 = build(recs_1_1, 1), n_1_0 = build(recs_1_0, 0);
    char path[256];
    tmp_path(path, sizeof path, "bytes");
    struct gcr_err err = {GCR_OK, ""};
    CHECK_EQ_U(write_trace(path, recs, n, 0, 0, &err), 0);
    size_t len;
    unsigned char *got = slurp(path, &len);
    CHECK_EQ_U(len, sizeof expected);
    for (size_t i = 0; i < len && i < sizeof expected; i++)
        if (got[i] != expected[i]) {
            fprintf(stderr, "byte %zu: wrote 0x%02x, spec says 0x%02x\n", i, got[i],
                    expected[i]);
            check_failures++;
        }
    free(got);
    remove(path);

    check_reads_back(expected, sizeof expected, recs, n);
    check_reads_back(expected_1_1, sizeof expected_1_1, recs_1_1, n_1_1);
    check_reads_back(expected_1_0, sizeof expected_1_0, recs_1_0, n_1_0);
    CHECK_DONE();
}
