/* Every reader check, one hand-assembled file each: a valid container (correct checksums)
 * around one flaw, and the status and message the reader must report. Also varints of every
 * length and the forward-compatible header extension. */
#include "gcrt_test.h"

static char path[256];

/* A header with chosen fields (checksum correct), followed by `ext` extension bytes. */
static void header(struct buf *b, unsigned major, unsigned minor, uint32_t bom,
                   uint32_t header_bytes, uint32_t flags, size_t ext)
{
    static const unsigned char magic[8] = {0x89, 'G', 'C', 'R', 'T', '\r', '\n', '\n'};
    size_t start = b->len;
    buf_add(b, magic, 8);
    buf_le(b, major, 2);
    buf_le(b, minor, 2);
    buf_le(b, bom, 4);
    buf_le(b, header_bytes, 4);
    buf_le(b, flags, 4);
    buf_le(b, 0, 4);
    buf_le(b, test_crc(b->p + start, 28), 4);
    for (size_t i = 0; i < ext; i++)
        buf_u8(b, 0xee);
}

/* A whole file: standard header, one uncompressed block with `count` records, trailer. */
static struct buf file1(const unsigned char *payload, uint32_t len, uint32_t count)
{
    struct buf b = {0};
    enc_header(&b);
    enc_block(&b, 0, payload, len, count, 0);
    enc_trailer(&b, count, 1);
    return b;
}

/* Reads b; expects rc (0 or -1), and for -1 the status and both substrings. */
static void expect(const char *label, struct buf b, int rc, int status, const char *where,
                   const char *what)
{
    spit(path, b.p, b.len);
    struct read_result res = read_trace(path, NULL, 0, NULL);
    int ok = res.rc == rc && (rc == 0 || ((int)res.err.status == status &&
                                          strstr(res.err.msg, path) && strstr(res.err.msg, where) &&
                                          strstr(res.err.msg, what)));
    if (!ok) {
        fprintf(stderr, "%s: rc %d, %s: %s\n  wanted rc %d, %s, \"%s\", \"%s\"\n", label, res.rc,
                gcr_status_name(res.err.status), res.err.msg, rc,
                gcr_status_name((enum gcr_status)status), where ? where : "",
                what ? what : "");
        check_failures++;
    }
    free(b.p);
}

#define KB1 0x01, 0x01, 0x01, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x00, 0x01, 'k' /* 2 warps */
#define KE1 0x02, 0x01

static void records(void)
{
    static const struct {
        const char *label;
        unsigned char payload[48];
        uint32_t len, count;
        const char *where, *what;
    } cases[] = {
        {"unknown type", {0x09, 0x00}, 2, 1, "record 0", "unknown record type 9"},
        {"type zero", {0x00, 0x00}, 2, 1, "record 0", "unknown record type 0"},
        {"overlong 2-byte varint", {0x05, 0x80, 0x00, 0x00}, 4, 1, "record 0",
         "redundant trailing zero byte"},
        {"overlong 8-byte varint", {0x05, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00},
         10, 1, "record 0", "redundant trailing zero byte"},
        {"overlong 10-byte varint",
         {0x05, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00}, 12, 1,
         "record 0", "redundant trailing zero byte"},
        {"varint above 2^64-1",
         {0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00}, 12, 1,
         "record 0", "varint longer than 10 bytes or above 2^64-1"},
        {"kernel id above 2^32-1", {0x01, 0x80, 0x80, 0x80, 0x80, 0x10}, 6, 1, "record 0",
         "value does not fit in 32 bits"},
        {"cta above 2^32-1",
         {KB1, 0x03, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, KE1}, 30, 3,
         "record 1", "value does not fit in 32 bits"},
        {"address mode 3", {KB1, 0x03, 0x00, 0x00, 0x00, 0xc0, 0x03, 0x01, 0, 0, 0, 0x00, KE1},
         25, 3, "record 1", "unknown address mode 3"},
        {"space 5", {KB1, 0x03, 0x00, 0x00, 0x00, 0x14, 0x03, 0x01, 0, 0, 0, 0x00, 0x00, KE1}, 26,
         3, "record 1", "unknown memory space"},
        {"no active lane, mode 1", {KB1, 0x03, 0x00, 0x00, 0x00, 0x40, 0x03, 0, 0, 0, 0, KE1}, 24,
         3, "record 1", "no active lane must use address mode 0"},
        {"warp out of CTA",
         {KB1, 0x03, 0x00, 0x02, 0x00, 0x00, 0x03, 0x01, 0, 0, 0, 0x00, 0x00, KE1}, 26, 3,
         "record 1", "warp id outside the kernel's CTA"},
        {"nonmem count 0", {KB1, 0x04, 0x00, 0x00, 0x00, KE1}, 18, 3, "record 1",
         "count must be >= 1"},
        {"zero grid", {0x01, 0x01, 0x00, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x00, 0x00, KE1}, 13,
         2, "record 0", "dimensions must be >= 1"},
        {"name with NUL",
         {0x01, 0x01, 0x01, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x00, 0x02, 'k', 0x00, KE1}, 15, 2,
         "record 0", "kernel name contains a NUL byte"},
        {"name too long",
         {0x01, 0x01, 0x01, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x00, 0x80, 0x80, 0x04, 'k'}, 14,
         1, "record 0", "kernel name of 65536 bytes (at most 65535 allowed)"},
        {"name past the payload",
         {0x01, 0x01, 0x01, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x00, 0x05, 'k'}, 12, 1,
         "record 0", "runs past the end of the block payload"},
        {"insn past the payload", {KB1, 0x03, 0x00, 0x00, 0x00, 0x00, 0x03, 0xff, 0xff}, 20, 2,
         "record 1", "runs past the end of the block payload"},
        {"bytes after the last record", {0x05, 0x00, 0x00, 0x05}, 4, 1, "block 0 (byte offset 32)",
         "1 unused bytes after its last record"},
        {"control: one valid memcpy", {0x05, 0x00, 0x00}, 3, 1, "", ""},
        {"nested kernel", {KB1, KB1}, 24, 2, "record 1",
         "kernel 1 begins before kernel 1 has ended"},
        {"end outside kernel", {KE1}, 2, 1, "record 0", "kernel end (id 1) outside any kernel"},
        {"insn outside kernel", {0x03, 0x00, 0x00, 0x00, 0x00, 0x03, 0, 0, 0, 0}, 10, 1,
         "record 0", "warp instruction outside any kernel"},
        {"nonmem outside kernel", {0x04, 0x00, 0x00, 0x01}, 4, 1, "record 0",
         "non-memory instruction count outside any kernel"},
        {"memcpy inside kernel", {KB1, 0x05, 0x00, 0x00, KE1}, 17, 3, "record 1",
         "memcpy inside kernel 1"},
        {"CTA comes back",
         {0x01, 0x01, 0x03, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x00, 0x01, 'k', /* 3 CTAs */
          0x04, 0x00, 0x01, 0x01, 0x04, 0x01, 0x00, 0x01, 0x04, 0x00, 0x00, 0x01, KE1},
         26, 5, "record 3", "CTA 0 reappears after its records ended"},
        {"control: CTAs in any order, warps interleaved",
         {0x01, 0x01, 0x03, 0x01, 0x01, 0x40, 0x01, 0x01, 0x00, 0x00, 0x01, 'k', /* 3 CTAs */
          0x04, 0x02, 0x01, 0x01, 0x04, 0x02, 0x00, 0x01, 0x04, 0x02, 0x01, 0x01, 0x04, 0x00,
          0x00, 0x01, KE1},
         30, 6, "", ""},
        {"end id mismatch", {KB1, 0x02, 0x02}, 14, 2, "record 1",
         "kernel end id 2 does not match the open kernel 1"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct buf b = file1(cases[c].payload, cases[c].len, cases[c].count);
        if (!*cases[c].what)
            expect(cases[c].label, b, 0, 0, NULL, NULL); /* the control case: valid */
        else
            expect(cases[c].label, b, -1, GCR_E_FORMAT, cases[c].where, cases[c].what);
    }
    /* The record count may not exceed what the payload holds. */
    static const unsigned char two[] = {0x05, 0x00, 0x00, 0x05, 0x00, 0x00};
    struct buf b = {0};
    enc_header(&b);
    enc_block(&b, 0, two, sizeof two, 3, 0);
    enc_trailer(&b, 3, 1);
    expect("count too high", b, -1, GCR_E_FORMAT, "block 0 (byte offset 32), record 2",
           "block payload ends after 2 of its 3 records");
}

/* A whole file of version 1.`minor` (enc_header_version: 1.2 sets flag bits 0 and 1). */
static struct buf file_v(unsigned minor, const unsigned char *payload, uint32_t len,
                         uint32_t count)
{
    struct buf b = {0};
    enc_header_version(&b, minor);
    enc_block(&b, 0, payload, len, count, 0);
    enc_trailer(&b, count, 1);
    return b;
}

/* Non-memory dependencies and units (version 1.2, README.md section 6.3): every check of a
 * dependency value, in a 1.2 file and, where it differs, in a 1.1 one. */
static void alu(void)
{
    static const struct {
        const char *label;
        unsigned minor;
        unsigned char payload[40];
        uint32_t len, count;
        const char *what; /* "" for a valid file */
    } cases[] = {
        /* NONMEM cta 0 warp 0 count 1, code 2, value 0x10020000: unit sp, a1. */
        {"unit on a run of one", 2,
         {KB1, 0x84, 0x00, 0x00, 0x01, 0x80, 0x80, 0x88, 0x80, 0x01, KE1}, 23, 3, ""},
        {"unit in a 1.1 file", 1, {KB1, 0x84, 0x00, 0x00, 0x01, 0x80, 0x80, 0x88, 0x80, 0x01, KE1},
         23, 3, "register dependencies value above 131071 (16 memory instructions and a barrier"},
        /* The largest value, 2^30 - 1: unit 7 (tex) and every other bit. */
        {"largest value", 2, {KB1, 0x84, 0x00, 0x00, 0x01, 0xff, 0xff, 0xff, 0xff, 0x03, KE1},
         23, 3, ""},
        {"value 2^30", 2, {KB1, 0x84, 0x00, 0x00, 0x01, 0x80, 0x80, 0x80, 0x80, 0x04, KE1}, 23, 3,
         "register dependencies value above 1073741823 (16 memory instructions, a barrier bit, "
         "10 non-memory instructions and a 3-bit unit)"},
        {"unit on a run of two", 2,
         {KB1, 0x84, 0x00, 0x00, 0x02, 0x80, 0x80, 0x80, 0x40, KE1}, 22, 3,
         "register dependencies: an execution unit on a run of several non-memory instructions"},
        {"a1 without a unit", 2, {KB1, 0x84, 0x00, 0x00, 0x01, 0x80, 0x80, 0x08, KE1}, 21, 3,
         "register dependencies: non-memory dependencies on a non-memory run without an "
         "execution unit"},
        /* A count of 0 is refused for its count, as without dependencies. */
        {"unit on a run of none", 2, {KB1, 0x84, 0x00, 0x00, 0x00, 0x80, 0x80, 0x80, 0x40, KE1},
         22, 3, "non-memory instruction count must be >= 1"},
        /* WARP_INSN cta 0 warp 0 pc 0 load global width 4 mask 1 base 0 stride 0. */
        {"a10 on a warp instruction", 2,
         {KB1, 0x83, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0, 0, 0, 0x00, 0x00, 0x80, 0x80, 0x80,
          0x20, KE1},
         30, 3, ""},
        {"unit on a warp instruction", 2,
         {KB1, 0x83, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0, 0, 0, 0x00, 0x00, 0x80, 0x80, 0x80,
          0x40, KE1},
         30, 3, "register dependencies: an execution unit on a memory instruction"},
        {"a1 in a 1.1 file", 1,
         {KB1, 0x83, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0, 0, 0, 0x00, 0x00, 0x80, 0x80, 0x08,
          KE1},
         29, 3, "register dependencies value above 131071"},
        /* A 1.1 value reads the same in a 1.2 file: window bit 15 and a barrier, count 5. */
        {"1.1 value in 1.2", 2, {KB1, 0x84, 0x00, 0x00, 0x05, 0x81, 0x80, 0x04, KE1}, 21, 3, ""},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct buf b = file_v(cases[c].minor, cases[c].payload, cases[c].len, cases[c].count);
        if (!*cases[c].what)
            expect(cases[c].label, b, 0, 0, NULL, NULL);
        else
            expect(cases[c].label, b, -1, GCR_E_FORMAT, "block 0 (byte offset 32), record 1",
                   cases[c].what);
    }

    /* The decoded values (test_run.c checks that the run decoder decodes the same). */
    static const unsigned char ok[] = {KB1, 0x84, 0x00, 0x00, 0x01, 0xff, 0xff, 0xff, 0xff, 0x03,
                                       0x84, 0x00, 0x01, 0x01, 0x80, 0x80, 0x88, 0x80, 0x01,
                                       KE1};
    struct buf b = file_v(2, ok, sizeof ok, 4);
    spit(path, b.p, b.len);
    free(b.p);
    struct gcr_record back[4];
    char names[4][64];
    struct read_result res = read_trace(path, back, 4, names);
    CHECK_EQ_U(res.rc, 0);
    CHECK_EQ_U(res.count, 4);
    CHECK_EQ_U(back[1].u.nonmem.waits, GCR_WAITS_ALL);
    CHECK_EQ_U(back[2].u.nonmem.waits,
               gcr_waits_with_unit(GCR_WAITS_KNOWN | 1u << GCR_WAITS_ALU_SHIFT, GCR_UNIT_SP));
    CHECK_EQ_U(gcr_waits_unit(back[1].u.nonmem.waits), GCR_UNIT_COUNT - 1);

    /* Header flag bit 1: defined from version 1.2 on, and only with bit 0. */
    b = (struct buf){0};
    header(&b, 1, 1, 0x01020304, 32, 3, 0);
    expect("flag bit 1 in 1.1", b, -1, GCR_E_UNSUPPORTED, "header (byte offset 0)",
           "unknown header flags 0x00000002 (version 1.1)");
    b = (struct buf){0};
    header(&b, 1, 0, 0x01020304, 32, 2, 0);
    expect("flag bit 1 in 1.0", b, -1, GCR_E_UNSUPPORTED, "header (byte offset 0)",
           "unknown header flags 0x00000002 (version 1.0)");
    b = (struct buf){0};
    header(&b, 1, 2, 0x01020304, 32, 2, 0);
    expect("flag bit 1 alone", b, -1, GCR_E_FORMAT, "header (byte offset 0)",
           "header flag bit 1 (non-memory dependencies) without bit 0 (register dependencies)");
    b = (struct buf){0};
    header(&b, 1, 2, 0x01020304, 32, 4, 0);
    expect("flag bit 2 in 1.2", b, -1, GCR_E_UNSUPPORTED, "header (byte offset 0)",
           "unknown header flags 0x00000004 (version 1.2)");
}

static void container(void)
{
    static const unsigned char one[] = {0x05, 0x00, 0x00};
    struct buf b;

    b = (struct buf){0};
    header(&b, 1, 7, 0x01020304, 40, 0, 8); /* a later minor version with 8 more bytes */
    enc_block(&b, 0, one, 3, 1, 0);
    enc_trailer(&b, 1, 1);
    expect("header extension", b, 0, 0, NULL, NULL);

    b = (struct buf){0};
    header(&b, 3, 1, 0x01020304, 32, 0, 0);
    expect("major 3", b, -1, GCR_E_UNSUPPORTED, "header (byte offset 0)",
           "unsupported gcrt version 3.1");
    b = (struct buf){0};
    header(&b, 1, 0, 0x01020304, 32, 4, 0);
    expect("flags", b, -1, GCR_E_UNSUPPORTED, "header (byte offset 0)",
           "unknown header flags 0x00000004");
    b = (struct buf){0};
    header(&b, 1, 0, 0x01020304, 16, 0, 0);
    expect("small header", b, -1, GCR_E_FORMAT, "header (byte offset 0)", "header size 16");
    b = (struct buf){0};
    header(&b, 1, 0, 0x01020304, 48, 0, 4);
    expect("header extension cut", b, -1, GCR_E_TRUNCATED, "header (byte offset 0)",
           "file ends inside the 48-byte header");
    b = (struct buf){0};
    header(&b, 1, 0, 0x11223344, 32, 0, 0);
    expect("bom", b, -1, GCR_E_FORMAT, "header (byte offset 0)", "bad byte-order mark 0x11223344");

    /* Block header fields, each with a recomputed header checksum. */
    struct {
        const char *label;
        size_t field;
        uint32_t value;
        int status;
        const char *what;
    } fields[] = {
        {"codec 2", 4, 2, GCR_E_FORMAT, "unknown codec 2"},
        {"block index", 8, 1, GCR_E_FORMAT, "block header says block 1, expected 0"},
        {"stored != raw", 12, 4, GCR_E_FORMAT, "uncompressed block with stored size 4 != raw"},
        {"empty block", 20, 0, GCR_E_FORMAT, "empty block (0 records"},
        {"zero sizes", 12, 0, GCR_E_FORMAT, "empty block"},
        {"first index", 24, 5, GCR_E_FORMAT, "first record index 5, expected 0"},
        {"raw over limit", 16, (64u << 20) + 1, GCR_E_FORMAT, "exceeds the 67108864-byte limit"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        b = file1(one, 3, 1);
        unsigned char *h = b.p + 32;
        if (fields[i].field == 4)
            h[4] = (unsigned char)fields[i].value;
        else
            for (int k = 0; k < 4; k++)
                h[fields[i].field + (size_t)k] = (unsigned char)(fields[i].value >> (8 * k));
        if (fields[i].field == 12 && fields[i].value == 0)
            memset(h + 16, 0, 4);
        uint32_t crc = test_crc(h, 36);
        for (int k = 0; k < 4; k++)
            h[36 + k] = (unsigned char)(crc >> (8 * k));
        expect(fields[i].label, b, -1, fields[i].status, "block 0 (byte offset 32)",
               fields[i].what);
    }

    /* A stored size beyond the end of the file is reported as truncation before any
     * allocation, even when it is within the limit. */
    b = file1(one, 3, 1);
    b.len = 32 + 40 + 2;
    expect("payload cut", b, -1, GCR_E_TRUNCATED, "block 0 (byte offset 32)",
           "file ends inside the block payload (3 bytes declared, 2 left)");

    /* A block marked zstd whose payload is not a zstd frame. */
    b = file1(one, 3, 1);
    b.p[32 + 4] = 1;
    uint32_t crc = test_crc(b.p + 32, 36);
    for (int k = 0; k < 4; k++)
        b.p[32 + 36 + k] = (unsigned char)(crc >> (8 * k));
    expect("zstd garbage", b, -1, GCR_E_FORMAT, "block 0 (byte offset 32)",
           "zstd payload is not exactly one frame");

    b = (struct buf){0};
    enc_header(&b);
    buf_add(&b, "GBLX", 4);
    expect("block magic", b, -1, GCR_E_FORMAT, "block 0 (byte offset 32)", "bad block magic");
    b = (struct buf){0};
    enc_header(&b);
    enc_block(&b, 0, one, 3, 1, 0);
    enc_trailer(&b, 2, 1);
    expect("trailer records", b, -1, GCR_E_FORMAT, "trailer (byte offset 75)",
           "trailer counts 2 records in 1 blocks, but the file holds 1 records in 1 blocks");
    b = (struct buf){0};
    enc_header(&b);
    enc_trailer(&b, 0, 0);
    expect("empty trace", b, 0, 0, NULL, NULL);
    b = (struct buf){0};
    enc_header(&b);
    enc_trailer(&b, 0, 0);
    b.p[b.len - 1] ^= 1;
    expect("trailer crc", b, -1, GCR_E_CHECKSUM, "trailer (byte offset 32)",
           "trailer checksum mismatch");
    b = (struct buf){0};
    expect("empty file", b, -1, GCR_E_TRUNCATED, "header (byte offset 0)", "0 bytes long");
    b = (struct buf){0};
    buf_add(&b, "hello, world\n", 13);
    expect("text file", b, -1, GCR_E_FORMAT, "header (byte offset 0)", "bad magic");

    /* A missing file. */
    struct gcr_err err = {GCR_OK, ""};
    void *r = NULL;
    CHECK(gcr_format_gcrt.reader_open(&r, NULL, "/nonexistent/x.gcrt", &err) == -1);
    CHECK(r == NULL);
    CHECK_EQ_U(err.status, GCR_E_IO);
    CHECK_STR_CONTAINS(err.msg, "/nonexistent/x.gcrt: cannot open");
}

/* Values at every varint length boundary survive a round trip through the writer:
 * destinations over all 64 bits, sizes up to the largest valid copy (1 TiB); so do
 * pseudo-random values of every bit length. */
static void varints(void)
{
    static struct gcr_record recs[512];
    size_t n = 0;
    uint64_t seed = 0x2545f4914f6cdd1dull;
    for (int k = 1; k <= 64; k++)
        for (int i = 0; i < 4; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t v = (seed ^ seed >> 29) | 1ull << (k - 1); /* exactly k bits */
            recs[n++] = mcpy(k == 64 ? v : v & ((1ull << k) - 1), (uint64_t)i << 20);
        }
    for (int k = 0; k < 64; k++) {
        recs[n++] = mcpy(1ull << k, 0);
        recs[n++] = mcpy(~0ull >> k, 1);
    }
    for (int k = 0; k < 40; k++) {
        recs[n++] = mcpy(0, (1ull << k) - 1);
        recs[n++] = mcpy(1ull << 63, (1ull << k) + 1);
    }
    recs[n++] = mcpy(0, 1ull << 40);
    struct gcr_err err = {GCR_OK, ""};
    CHECK_EQ_U(write_trace(path, recs, n, 0, 0, &err), 0);
    static struct gcr_record back[512];
    struct read_result res = read_trace(path, back, 512, NULL);
    CHECK_EQ_U(res.rc, 0);
    CHECK_EQ_U(res.count, n);
    for (size_t i = 0; i < n && i < res.count; i++)
        CHECK_EQ_U(record_diff(&recs[i], &back[i], i), 0);
}

/* A redundant trailing zero byte is refused at every varint length (each length takes its
 * own path through the decoder's fast cases). */
static void overlong_varints(void)
{
    for (int len = 2; len <= 10; len++) {
        unsigned char payload[16] = {GCR_REC_MEMCPY};
        for (int i = 1; i < len; i++)
            payload[i] = i == 1 ? 0x81 : 0x80;
        payload[len] = 0x00;     /* the redundant last byte of dst */
        payload[len + 1] = 0x00; /* bytes */
        struct buf b = file1(payload, (uint32_t)len + 2, 1);
        spit(path, b.p, b.len);
        struct read_result res = read_trace(path, NULL, 0, NULL);
        CHECK_EQ_U(res.rc, -1);
        CHECK_EQ_U(res.err.status, GCR_E_FORMAT);
        CHECK_STR_CONTAINS(res.err.msg, "redundant trailing zero byte");
        free(b.p);
    }
}

int main(void)
{
    tmp_path(path, sizeof path, "decode");
    records();
    alu();
    overlong_varints();
    container();
    varints();
    remove(path);
    CHECK_DONE();
}
