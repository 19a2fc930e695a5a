/* The committed fixtures in trace-formats/gcrt/fixtures/.
 *
 * Run without arguments (as the unit test), it checks that every fixture file still has the
 * exact bytes this program generates, that the ok ones read back to the expected records and
 * that each bad one fails with the expected status and a message naming the file and place.
 * Run with `--write DIR` it (re)generates the fixture files into DIR. */
#include <stdbool.h>

#include "gcrt_test.h"

#define MAX_RECS 64

/* ---- ok fixtures --------------------------------------------------------------------------- */

static size_t ok_small_records(struct gcr_record *r)
{
    size_t n = 0;
    r[n++] = mcpy(0x10000, 4096);
    r[n] = kbegin(1, "saxpy", 2, 1, 1, 64, 1, 1);
    r[n++].u.kbegin.regs_per_thread = 24;
    r[n++] = nonmem(0, 0, 4);
    r[n++] = insn_stride(0, 0, 0x80, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu, 0x10000, 4);
    r[n++] = insn_stride(0, 1, 0x80, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu, 0x10080, 4);
    r[n++] = nonmem(0, 1, 2);
    r[n++] = insn_stride(0, 0, 0x90, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0xffffffffu, 0x20000, 4);
    r[n++] = insn_stride(1, 0, 0x80, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 8, 0x0000ffffu, 0x10100, -8);
    r[n] = insn_stride(1, 1, 0xa0, GCR_OP_ATOMIC, GCR_SPACE_GLOBAL, 4, 0x00000111u, 0, 0);
    r[n].u.insn.addr[0] = 0x30000;
    r[n].u.insn.addr[4] = 0x30040;
    r[n++].u.insn.addr[8] = 0x30010; /* irregular: stored as deltas */
    r[n++] = kend(1);
    return n;
}

static size_t ok_zstd_records(struct gcr_record *r)
{
    size_t n = 0;
    r[n++] = kbegin(3, "copy", 4, 1, 1, 128, 1, 1);
    for (uint32_t i = 0; i < 40; i++)
        r[n++] = insn_stride(i / 10, i % 4, 0x100, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu,
                             0x7f0000000000ull + 128ull * i, 4);
    r[n++] = kend(3);
    return n;
}

/* Register dependencies (version 1.1) in each encoding: none known, known and waiting for
 * nothing, explicit (the previous memory instruction; a barrier; the window's last bit). */
static size_t ok_waits_records(struct gcr_record *r)
{
    size_t n = 0;
    r[n++] = kbegin(2, "waits", 1, 1, 1, 64, 1, 1);
    r[n] = nonmem(0, 0, 3);
    r[n++].u.nonmem.waits = GCR_WAITS_KNOWN;
    r[n] = insn_stride(0, 0, 0x40, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu, 0x10000, 4);
    r[n++].u.insn.waits = GCR_WAITS_KNOWN;
    r[n] = insn_stride(0, 0, 0x50, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu, 0x20000, 4);
    r[n++].u.insn.waits = GCR_WAITS_KNOWN;
    r[n] = nonmem(0, 0, 2);
    r[n++].u.nonmem.waits = GCR_WAITS_KNOWN | 3u; /* both loads */
    r[n] = insn_stride(0, 0, 0x70, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0xffffffffu, 0x30000, 4);
    r[n++].u.insn.waits = GCR_WAITS_KNOWN | 1u << (GCR_WAIT_WINDOW - 1);
    r[n] = nonmem(0, 1, 1);
    r[n++].u.nonmem.waits = GCR_WAITS_KNOWN | GCR_WAITS_BARRIER;
    r[n++] = nonmem(0, 1, 5); /* registers not known */
    r[n++] = kend(2);
    return n;
}

/* Non-memory dependencies and execution units (version 1.2): the records of the text fixture
 * trace-formats/text/fixtures/valid-alu.txt, so ok-alu.gcrt is what `gcreplay convert --level 0`
 * makes of it. */
extern const struct gcr_trace_format gcr_format_text;
#define TEXT_ALU GCR_SOURCE_ROOT "/trace-formats/text/fixtures/valid-alu.txt"

static size_t ok_alu_records(struct gcr_record *r)
{
    static char name[64];
    struct gcr_err err = {GCR_OK, ""};
    void *st = NULL;
    size_t n = 0;
    int rc = gcr_format_text.reader_open(&st, NULL, TEXT_ALU, &err);
    while (rc == 0 && n < MAX_RECS && (rc = gcr_format_text.reader_next(st, &r[n], &err)) == 1) {
        if (r[n].kind == GCR_REC_KERNEL_BEGIN) {
            snprintf(name, sizeof name, "%s", r[n].u.kbegin.name);
            r[n].u.kbegin.name = name;
        }
        n++;
        rc = 0;
    }
    if (st)
        gcr_format_text.reader_close(st);
    if (rc != 0) {
        fprintf(stderr, "cannot read %s: %s\n", TEXT_ALU, err.msg);
        exit(2);
    }
    return n;
}

static unsigned char *written(const struct gcr_record *recs, size_t n, int level,
                              uint32_t block_bytes, size_t *len)
{
    char path[256];
    tmp_path(path, sizeof path, "fixture");
    struct gcr_err err = {GCR_OK, ""};
    if (write_trace(path, recs, n, level, block_bytes, &err) != 0) {
        fprintf(stderr, "cannot write fixture: %s\n", err.msg);
        exit(2);
    }
    unsigned char *bytes = slurp(path, len);
    remove(path);
    return bytes;
}

/* ---- bad fixtures ---------------------------------------------------------------------------- */

/* Offset of block `index`'s header in a file with a 32-byte header (the trailer's offset if
 * index equals the number of blocks). */
static size_t block_at(const unsigned char *f, size_t index)
{
    size_t off = 32;
    for (size_t i = 0; i < index; i++)
        off += 40 + get32(f + off + 12);
    return off;
}

static void rehash_block_header(unsigned char *f, size_t off)
{
    put32(f + off + 36, test_crc(f + off, 36));
}

struct fixture {
    const char *name;
    unsigned char *bytes;
    size_t len;
    int status;       /* expected reader status (GCR_OK for ok fixtures) */
    const char *where; /* substring naming the place */
    const char *what;  /* substring describing the problem */
    size_t records;    /* records yielded before the error (or in total) */
};

#define MAX_FIXTURES 40
static struct fixture fixtures[MAX_FIXTURES];
static size_t nfixtures;

static void add(const char *name, struct buf b, int status, const char *where, const char *what,
                size_t records)
{
    fixtures[nfixtures++] = (struct fixture){name, b.p, b.len, status, where, what, records};
}

static struct buf copy_of(const unsigned char *p, size_t len)
{
    struct buf b = {0};
    buf_add(&b, p, len);
    return b;
}

static struct buf gzipped(const unsigned char *p, size_t len, int level)
{
    struct buf b = {0};
    gzip_level_into(&b, p, len, level);
    return b;
}

static struct gcr_record small[MAX_RECS], zrec[MAX_RECS], wrec[MAX_RECS], arec[MAX_RECS];
static size_t nsmall, nzrec, nwrec, narec;

/* A file of one uncompressed block of hand-assembled records, with a version 1.0 header, a 1.1
 * one (which sets the flag for register dependencies) or a 1.2 one (and the flag for
 * non-memory dependencies and units). */
static struct buf hand_made(unsigned minor, const unsigned char *payload, uint32_t len,
                            uint32_t records)
{
    struct buf b = {0};
    enc_header_version(&b, minor);
    enc_block(&b, 0, payload, len, records, 0);
    enc_trailer(&b, records, 1);
    return b;
}

static void build(void)
{
    nsmall = ok_small_records(small);
    nzrec = ok_zstd_records(zrec);
    size_t slen, zlen;
    /* 48-byte blocks: several blocks, each of a few records. */
    unsigned char *s = written(small, nsmall, 0, 48, &slen);
    unsigned char *z = written(zrec, nzrec, 3, 0, &zlen);
    /* The writer writes version 1.2 with the flags for register dependencies and non-memory
     * ones; without any, its blocks are those of version 1.0, and these fixtures stay the 1.0
     * files they were. */
    if (get32(s + 8) != 0x00020001u || get32(s + 20) != 3u) {
        fprintf(stderr, "the writer no longer writes version 1.2 with flag bits 0 and 1\n");
        exit(1);
    }
    as_version_1_0(s);
    as_version_1_0(z);
    size_t b1 = block_at(s, 1), end = slen - 28;
    /* The messages below name these places: check the layout did not move. */
    if (b1 != 128 || end != 261 || block_at(s, 3) != end) {
        fprintf(stderr, "ok-small layout changed: block 1 at %zu, trailer at %zu\n", b1, end);
        exit(1);
    }

    add("ok-small.gcrt", copy_of(s, slen), GCR_OK, NULL, NULL, nsmall);
    add("ok-zstd.gcrt", copy_of(z, zlen), GCR_OK, NULL, NULL, nzrec);
    nwrec = ok_waits_records(wrec);
    size_t wlen;
    /* Without non-memory dependencies the blocks are those of version 1.1: it stays the 1.1
     * file it was. */
    unsigned char *wb = written(wrec, nwrec, 0, 0, &wlen);
    as_version_1_1(wb);
    add("ok-waits.gcrt", (struct buf){wb, wlen, wlen}, GCR_OK, NULL, NULL, nwrec);
    narec = ok_alu_records(arec);
    size_t alen;
    add("ok-alu.gcrt", (struct buf){written(arec, narec, 0, 0, &alen), alen, alen}, GCR_OK, NULL,
        NULL, narec);

    struct buf b = copy_of(s, slen);
    b.p[1] = 'X';
    add("bad-magic.gcrt", b, GCR_E_FORMAT, "header (byte offset 0)", "bad magic", 0);

    b = copy_of(s, slen);
    b.p[8] = 2;
    put32(b.p + 28, test_crc(b.p, 28));
    add("bad-version.gcrt", b, GCR_E_UNSUPPORTED, "header (byte offset 0)",
        "unsupported gcrt version 2.0", 0);

    b = copy_of(s, slen);
    put32(b.p + 12, 0x04030201u);
    put32(b.p + 28, test_crc(b.p, 28));
    add("big-endian.gcrt", b, GCR_E_FORMAT, "header (byte offset 0)",
        "bad byte-order mark 0x04030201 (expected 0x01020304 read little-endian; the file was "
        "written big-endian)",
        0);

    b = copy_of(s, slen);
    b.p[24] ^= 0x01; /* a reserved byte: only the checksum can notice */
    add("bad-header-checksum.gcrt", b, GCR_E_CHECKSUM, "header (byte offset 0)",
        "header checksum mismatch", 0);

    /* Cut in the middle of block 1's payload. */
    size_t records_b0 = get32(s + 32 + 20);
    b = copy_of(s, b1 + 40 + 5);
    add("truncated-block.gcrt", b, GCR_E_TRUNCATED, "block 1 (byte offset 128)",
        "file ends inside the block payload", records_b0);

    /* One payload byte of block 1 changed: the payload CRC no longer matches. */
    b = copy_of(s, slen);
    b.p[b1 + 40 + 2] ^= 0x10;
    add("bad-checksum.gcrt", b, GCR_E_CHECKSUM, "block 1 (byte offset 128)",
        "payload checksum mismatch", records_b0);

    /* Everything but the trailer: a file cut exactly at a block boundary. */
    b = copy_of(s, end);
    add("no-trailer.gcrt", b, GCR_E_TRUNCATED, "block 3 (byte offset 261)", "without a trailer",
        nsmall);

    b = copy_of(s, slen);
    buf_add(&b, "junk", 4);
    add("trailing-data.gcrt", b, GCR_E_FORMAT, "trailer (byte offset 261)",
        "unexpected data after the trailer at byte offset 289", nsmall);

    /* Block 1 claims one more record than its payload holds (header CRC recomputed). */
    size_t records_b1 = get32(s + b1 + 20);
    b = copy_of(s, slen);
    put32(b.p + b1 + 20, (uint32_t)records_b1 + 1);
    rehash_block_header(b.p, b1);
    add("bad-count.gcrt", b, GCR_E_FORMAT, "block 1 (byte offset 128), record 9",
        "block payload ends after 4 of its 5 records", records_b0 + records_b1);

    /* A block header whose sizes are absurd, with a valid header CRC: the reader must refuse
     * it without trying to allocate 4 GiB. */
    b = (struct buf){0};
    enc_header(&b);
    size_t at = b.len;
    enc_block(&b, 0, (const unsigned char *)"\x05\x00\x00", 3, 1, 0);
    put32(b.p + at + 12, 0xfffffff0u);
    put32(b.p + at + 16, 0xfffffff0u);
    rehash_block_header(b.p, at);
    add("huge-length.gcrt", b, GCR_E_FORMAT, "block 0 (byte offset 32)",
        "payload size (stored 4294967280, raw 4294967280 bytes) exceeds the 67108864-byte limit",
        0);

    /* The zstd block's raw size is one byte more than its frame decompresses to. */
    b = copy_of(z, zlen);
    put32(b.p + 32 + 16, get32(b.p + 32 + 16) + 1);
    rehash_block_header(b.p, 32);
    add("bad-zstd-size.gcrt", b, GCR_E_FORMAT, "block 0 (byte offset 32)",
        "zstd payload decompresses to", 0);

    /* Hand-assembled payloads: checksums are right, the records are not. */
    static const unsigned char bad_record[] = {
        0x01, 0x01, 0x01, 0x01, 0x01, 0x20, 0x01, 0x01, 0x00, 0x00, 0x01, 'k', /* 1 CTA */
        0x03, 0x05, 0x00, 0x10, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, /* CTA 5 */
        0x02, 0x01};
    b = (struct buf){0};
    enc_header(&b);
    enc_block(&b, 0, bad_record, sizeof bad_record, 3, 0);
    enc_trailer(&b, 3, 1);
    add("bad-record.gcrt", b, GCR_E_FORMAT, "block 0 (byte offset 32), record 1",
        "CTA id outside the kernel's grid", 1);

    static const unsigned char bad_varint[] = {0x05, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                               0x80, 0x80, 0x80, 0x01, 0x00};
    b = (struct buf){0};
    enc_header(&b);
    enc_block(&b, 0, bad_varint, sizeof bad_varint, 1, 0);
    enc_trailer(&b, 1, 1);
    add("bad-varint.gcrt", b, GCR_E_FORMAT, "block 0 (byte offset 32), record 0",
        "varint longer than 10 bytes", 0);

    static const unsigned char bad_nesting[] = {
        0x01, 0x01, 0x01, 0x01, 0x01, 0x20, 0x01, 0x01, 0x00, 0x00, 0x01, 'k', /* begin 1 */
        0x04, 0x00, 0x00, 0x05,                                                 /* nonmem */
        0x02, 0x02};                                                            /* end 2 */
    b = (struct buf){0};
    enc_header(&b);
    enc_block(&b, 0, bad_nesting, sizeof bad_nesting, 3, 0);
    enc_trailer(&b, 3, 1);
    add("bad-nesting.gcrt", b, GCR_E_FORMAT, "block 0 (byte offset 32), record 2",
        "kernel end id 2 does not match the open kernel 1", 2);

    static const unsigned char cta_order[] = {
        0x01, 0x01, 0x02, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x00, 0x01, 'k', /* 2 CTAs */
        0x04, 0x00, 0x00, 0x01, 0x04, 0x01, 0x00, 0x01, 0x04, 0x00, 0x01, 0x01, /* 0, 1, 0 */
        0x02, 0x01};
    b = (struct buf){0};
    enc_header(&b);
    enc_block(&b, 0, cta_order, sizeof cta_order, 5, 0);
    enc_trailer(&b, 5, 1);
    add("bad-cta-order.gcrt", b, GCR_E_FORMAT, "block 0 (byte offset 32), record 3",
        "CTA 0 reappears after its records ended; all records of one CTA must be contiguous", 3);

    static const unsigned char unclosed[] = {0x01, 0x01, 0x01, 0x01, 0x01, 0x20, 0x01,
                                             0x01, 0x00, 0x00, 0x01, 'k'};
    b = (struct buf){0};
    enc_header(&b);
    enc_block(&b, 0, unclosed, sizeof unclosed, 1, 0);
    enc_trailer(&b, 1, 1);
    add("unclosed-kernel.gcrt", b, GCR_E_FORMAT, "trailer (byte offset 84)",
        "trace ends inside kernel 1", 1);

    /* Register dependencies (version 1.1). A kernel of one CTA of two warps, then records
     * whose dependency field is wrong. */
#define WAITS_KERNEL 0x01, 0x01, 0x01, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x00, 0x01, 'k'
    static const unsigned char waits_zero[] = {
        WAITS_KERNEL, 0x44, 0x00, 0x00, 0x01, /* nonmem, code 1 */
        0x84, 0x00, 0x01, 0x02, 0x00,         /* nonmem, code 2, value 0 */
        0x02, 0x01};
    add("bad-waits.gcrt", hand_made(1, waits_zero, sizeof waits_zero, 4), GCR_E_FORMAT,
        "block 0 (byte offset 32), record 2", "register dependencies value 0", 2);
    static const unsigned char waits_range[] = {
        WAITS_KERNEL, 0x83, 0x00, 0x01, 0x10, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0x80, 0x20,
        0x00, 0x80, 0x80, 0x08, /* a load, code 2, value 2^17: no such bit */
        0x02, 0x01};
    add("bad-waits-range.gcrt", hand_made(1, waits_range, sizeof waits_range, 3), GCR_E_FORMAT,
        "block 0 (byte offset 32), record 1",
        "register dependencies value above 131071 (16 memory instructions and a barrier bit)", 1);
    static const unsigned char waits_code3[] = {WAITS_KERNEL, 0xc4, 0x00, 0x00, 0x01, 0x02, 0x01};
    add("bad-waits-code.gcrt", hand_made(1, waits_code3, sizeof waits_code3, 3), GCR_E_FORMAT,
        "block 0 (byte offset 32), record 1", "register dependency code 3 is reserved", 1);
    /* Without the header flag (a 1.0 file) the top bits of a type byte are part of the type,
     * as they were for version 1.0's reader; and the flag is not defined in version 1.0. */
    static const unsigned char waits_unflagged[] = {WAITS_KERNEL, 0x44, 0x00, 0x00, 0x01,
                                                    0x02, 0x01};
    add("waits-in-1.0.gcrt", hand_made(0, waits_unflagged, sizeof waits_unflagged, 3),
        GCR_E_FORMAT, "block 0 (byte offset 32), record 1", "unknown record type 68", 1);
    b = hand_made(0, waits_unflagged, sizeof waits_unflagged, 3);
    put32(b.p + 20, 1);
    put32(b.p + 28, test_crc(b.p, 28));
    add("bad-flags.gcrt", b, GCR_E_UNSUPPORTED, "header (byte offset 0)",
        "unknown header flags 0x00000001 (version 1.0)", 0);

    /* Non-memory dependencies and execution units (version 1.2). */
    static const unsigned char alu_unit_insn[] = {
        WAITS_KERNEL, 0x83, 0x00, 0x01, 0x10, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0x80, 0x20,
        0x00, 0x80, 0x80, 0x80, 0x40, /* a load, code 2, value 2^27: unit 1 (int) */
        0x02, 0x01};
    add("bad-alu-unit.gcrt", hand_made(2, alu_unit_insn, sizeof alu_unit_insn, 3),
        GCR_E_FORMAT, "block 0 (byte offset 32), record 1",
        "register dependencies: an execution unit on a memory instruction", 1);
    static const unsigned char alu_range[] = {
        WAITS_KERNEL, 0x84, 0x00, 0x00, 0x01, 0x80, 0x80, 0x80, 0x80, 0x04, /* value 2^30 */
        0x02, 0x01};
    add("bad-alu-range.gcrt", hand_made(2, alu_range, sizeof alu_range, 3), GCR_E_FORMAT,
        "block 0 (byte offset 32), record 1",
        "register dependencies value above 1073741823 (16 memory instructions, a barrier bit, "
        "10 non-memory instructions and a 3-bit unit)",
        1);
    /* Without flag bit 1 (a 1.1 file) a value with a unit and non-memory dependencies is out of
     * range, as it was for version 1.1's reader; and the flag is not defined in version 1.1. */
    static const unsigned char alu_unflagged[] = {
        WAITS_KERNEL, 0x84, 0x00, 0x00, 0x01, 0x80, 0x80, 0x88, 0x80, 0x01, /* sp, a1 */
        0x02, 0x01};
    add("alu-in-1.1.gcrt", hand_made(1, alu_unflagged, sizeof alu_unflagged, 3), GCR_E_FORMAT,
        "block 0 (byte offset 32), record 1",
        "register dependencies value above 131071 (16 memory instructions and a barrier bit)", 1);
    b = hand_made(1, alu_unflagged, sizeof alu_unflagged, 3);
    put32(b.p + 20, 3);
    put32(b.p + 28, test_crc(b.p, 28));
    add("bad-flags-1.1.gcrt", b, GCR_E_UNSUPPORTED, "header (byte offset 0)",
        "unknown header flags 0x00000002 (version 1.1)", 0);
#undef WAITS_KERNEL

    /* A whole file compressed (src/io/bytesrc.h): it reads the same, and places are offsets of
     * the decompressed content, or, for damaged compressed data, of the file. */
    add("ok-small.gcrt.gz", gzipped(s, slen, 9), GCR_OK, NULL, NULL, nsmall);
    b = copy_of(s, slen);
    b.p[b1 + 40 + 2] ^= 0x10;
    struct buf gz = gzipped(b.p, b.len, 9);
    free(b.p);
    add("bad-checksum.gcrt.gz", gz, GCR_E_CHECKSUM,
        "block 1 (byte offset 128 of the decompressed content)", "payload checksum mismatch",
        records_b0);
    /* Stored: cut 165 bytes in, the content stops 150 bytes in, inside block 1's payload. */
    gz = gzipped(s, slen, 0);
    gz.len = 165;
    add("truncated.gcrt.gz", gz, GCR_E_TRUNCATED, "truncated gzip data",
        "the file ends at byte offset 165 inside a member", records_b0);
    /* Stored, with the gzip trailer's CRC-32 of the content damaged: the gcrt content is
     * whole, and the decompressor finds the damage as the reader looks past the trailer. */
    gz = gzipped(s, slen, 0);
    gz.p[gz.len - 8] ^= 0x01;
    add("bad-gzip-crc.gcrt.gz", gz, GCR_E_FORMAT, "corrupt gzip data at compressed byte offset",
        "incorrect data check", nsmall);

    free(s);
    free(z);
}

/* ---- checks ------------------------------------------------------------------------------ */

static void check_fixture(const struct fixture *fx)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FIXTURES, fx->name);
    size_t len;
    unsigned char *committed = slurp(path, &len);
    if (len != fx->len || memcmp(committed, fx->bytes, len) != 0) {
        /* zstd and zlib output may change between library versions: for compressed fixtures
         * only the reading checks below count. */
        size_t n = strlen(fx->name);
        bool compressed = (len > 36 && committed[36] == 1) ||
                          (n > 3 && strcmp(fx->name + n - 3, ".gz") == 0);
        fprintf(stderr, "%s differs from what gcrt_fixtures generates%s\n", path,
                compressed ? " (compressed output of another library version?)"
                           : " (regenerate with --write)");
        if (!compressed)
            check_failures++;
    }
    free(committed);

    static struct gcr_record back[MAX_RECS];
    static char names[MAX_RECS][64];
    struct read_result res = read_trace(path, back, MAX_RECS, names);
    CHECK_EQ_U(res.count, fx->records);
    if (fx->status == GCR_OK) {
        if (res.rc != 0)
            fprintf(stderr, "%s: %s\n", fx->name, res.err.msg);
        CHECK_EQ_U(res.rc, 0);
        CHECK_EQ_U(res.bytes_done, len);
        const struct gcr_record *want = strncmp(fx->name, "ok-small.", 9) == 0 ? small
                                        : strcmp(fx->name, "ok-waits.gcrt") == 0 ? wrec
                                        : strcmp(fx->name, "ok-alu.gcrt") == 0   ? arec
                                                                                  : zrec;
        for (size_t i = 0; i < res.count && i < MAX_RECS; i++)
            CHECK_EQ_U(record_diff(&want[i], &back[i], i), 0);
        return;
    }
    if (res.rc != -1 || (int)res.err.status != fx->status)
        fprintf(stderr, "%s: rc %d, status %s, message: %s\n", fx->name, res.rc,
                gcr_status_name(res.err.status), res.err.msg);
    CHECK(res.rc == -1);
    CHECK_EQ_U(res.err.status, fx->status);
    /* The message starts with the path, then names the place, then the problem. */
    CHECK(strncmp(res.err.msg, path, strlen(path)) == 0);
    CHECK_STR_CONTAINS(res.err.msg, fx->where);
    CHECK_STR_CONTAINS(res.err.msg, fx->what);
    if (getenv("GCRT_SHOW"))
        printf("%-26s %-18s %s\n", fx->name, gcr_status_name(res.err.status), res.err.msg);
}

int main(int argc, char **argv)
{
    build();
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        for (size_t i = 0; i < nfixtures; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", argv[2], fixtures[i].name);
            spit(path, fixtures[i].bytes, fixtures[i].len);
            printf("%s: %zu bytes\n", path, fixtures[i].len);
        }
        return 0;
    }
    for (size_t i = 0; i < nfixtures; i++)
        check_fixture(&fixtures[i]);
    /* The zstd fixture really is compressed (codec byte of block 0). */
    CHECK_EQ_U(fixtures[1].bytes[32 + 4], 1);
    for (size_t i = 0; i < nfixtures; i++)
        free(fixtures[i].bytes);
    CHECK_DONE();
}
