/* Helpers shared by the gcrt unit tests: temporary files, writing and reading whole traces
 * through the format's ops, comparing records, and a small independent encoder of the
 * on-disk layout (written from README.md, not from gcrt.c) used to build corrupt inputs. */
#ifndef GCR_TEST_GCRT_H
#define GCR_TEST_GCRT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "check.h"
#include "compress_util.h"
#include "gcreplay/format.h"

extern const struct gcr_trace_format gcr_format_gcrt;

#define FIXTURES GCR_SOURCE_ROOT "/trace-formats/gcrt/fixtures"

/* ---- Files ------------------------------------------------------------------------------ */

/* A fresh temporary path (the file exists, empty). */
static inline void tmp_path(char *buf, size_t n, const char *tag)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, n, "%s/gcrt-%s-XXXXXX", dir && *dir ? dir : "/tmp", tag);
    int fd = mkstemp(buf);
    if (fd < 0) {
        perror("mkstemp");
        exit(2);
    }
    close(fd);
}

static inline unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf)
        exit(2);
    *len = n;
    return buf;
}

static inline void spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
}

/* ---- Writing and reading through the ops ---------------------------------------------------- */

/* Writes recs to path; returns the writer's status (0 or -1, err filled). */
static inline int write_trace(const char *path, const struct gcr_record *recs, size_t n,
                              int level, uint32_t block_bytes, struct gcr_err *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    struct gcr_write_opts opts = {level, block_bytes};
    void *w = NULL;
    int rc = gcr_format_gcrt.writer_open(&w, f, path, &opts, err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = gcr_format_gcrt.writer_write(w, &recs[i], err);
    if (rc == 0)
        rc = gcr_format_gcrt.writer_finish(w, err);
    if (w)
        gcr_format_gcrt.writer_close(w);
    if (fclose(f) != 0 && rc == 0)
        rc = gcr_fail(err, GCR_E_IO, "%s: close failed", path);
    return rc;
}

/* Reads a whole trace, counting records; returns the final status of next (0 or -1) or -1 if
 * open failed. If out is not NULL, records (kernel names copied) are stored up to max. */
struct read_result {
    int rc;
    size_t count;
    uint64_t bytes_done;
    struct gcr_err err;
};

static inline struct read_result read_trace(const char *path, struct gcr_record *out, size_t max,
                                            char (*names)[64])
{
    struct read_result res = {0, 0, 0, {GCR_OK, ""}};
    void *r = NULL;
    if (gcr_format_gcrt.reader_open(&r, NULL, path, &res.err) < 0) {
        res.rc = -1;
        return res;
    }
    struct gcr_record rec;
    int rc;
    while ((rc = gcr_format_gcrt.reader_next(r, &rec, &res.err)) == 1) {
        if (out && res.count < max) {
            out[res.count] = rec;
            if (rec.kind == GCR_REC_KERNEL_BEGIN && names) {
                snprintf(names[res.count], 64, "%s", rec.u.kbegin.name);
                out[res.count].u.kbegin.name = names[res.count];
            }
        }
        res.count++;
    }
    res.rc = rc;
    /* A failed reader keeps failing, and a finished one keeps returning 0. */
    struct gcr_err again = {GCR_OK, ""};
    int rc2 = gcr_format_gcrt.reader_next(r, &rec, &again);
    CHECK_EQ_U(rc2, rc);
    if (rc < 0) {
        CHECK_EQ_U(again.status, res.err.status);
        CHECK(strcmp(again.msg, res.err.msg) == 0);
    }
    res.bytes_done = gcr_format_gcrt.reader_bytes_done(r);
    gcr_format_gcrt.reader_close(r);
    return res;
}

/* ---- Records ---------------------------------------------------------------------------- */

static inline struct gcr_record kbegin(uint32_t id, const char *name, uint32_t gx, uint32_t gy,
                                       uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz)
{
    struct gcr_record r;
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_KERNEL_BEGIN;
    r.u.kbegin = (struct gcr_kernel_begin){id, {gx, gy, gz}, {bx, by, bz}, 0, 0, name};
    return r;
}

static inline struct gcr_record kend(uint32_t id)
{
    struct gcr_record r;
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_KERNEL_END;
    r.u.kend.id = id;
    return r;
}

static inline struct gcr_record nonmem(uint32_t cta, uint32_t warp, uint32_t count)
{
    struct gcr_record r;
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_NONMEM;
    r.u.nonmem = (struct gcr_nonmem){cta, warp, count, 0};
    return r;
}

static inline struct gcr_record mcpy(uint64_t dst, uint64_t bytes)
{
    struct gcr_record r;
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_MEMCPY;
    r.u.memcpy = (struct gcr_memcpy){dst, bytes};
    return r;
}

/* A warp instruction whose k-th active lane accesses base + k*stride. */
static inline struct gcr_record insn_stride(uint32_t cta, uint32_t warp, uint64_t pc, int op,
                                            int space, int width, uint32_t mask, uint64_t base,
                                            int64_t stride)
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
    in->width = (uint16_t)width;
    in->active_mask = mask;
    uint64_t a = base;
    for (int lane = 0; lane < GCR_WARP_SIZE; lane++)
        if (mask >> lane & 1) {
            in->addr[lane] = a;
            a += (uint64_t)stride;
        }
    return r;
}

/* Compares two records field by field, naming the first difference. */
static inline int record_diff(const struct gcr_record *a, const struct gcr_record *b, size_t i)
{
#define DIFF(field)                                                                          \
    if (a->field != b->field) {                                                              \
        fprintf(stderr, "record %zu: %s differs: %llu != %llu\n", i, #field,                 \
                (unsigned long long)a->field, (unsigned long long)b->field);                 \
        return 1;                                                                            \
    }
    DIFF(kind);
    switch (a->kind) {
    case GCR_REC_KERNEL_BEGIN:
        DIFF(u.kbegin.id);
        for (int d = 0; d < 3; d++) {
            DIFF(u.kbegin.grid[d]);
            DIFF(u.kbegin.block[d]);
        }
        DIFF(u.kbegin.shmem_bytes);
        DIFF(u.kbegin.regs_per_thread);
        if (strcmp(a->u.kbegin.name, b->u.kbegin.name) != 0) {
            fprintf(stderr, "record %zu: name differs: %s != %s\n", i, a->u.kbegin.name,
                    b->u.kbegin.name);
            return 1;
        }
        break;
    case GCR_REC_KERNEL_END:
        DIFF(u.kend.id);
        break;
    case GCR_REC_WARP_INSN:
        DIFF(u.insn.cta);
        DIFF(u.insn.warp);
        DIFF(u.insn.pc);
        DIFF(u.insn.op);
        DIFF(u.insn.space);
        DIFF(u.insn.cache_op);
        DIFF(u.insn.width);
        DIFF(u.insn.active_mask);
        DIFF(u.insn.waits);
        /* Inactive lanes must read back as 0 whatever the writer was given. */
        for (int lane = 0; lane < GCR_WARP_SIZE; lane++) {
            uint64_t want = (a->u.insn.active_mask >> lane & 1) ? a->u.insn.addr[lane] : 0;
            if (b->u.insn.addr[lane] != want) {
                fprintf(stderr, "record %zu: lane %d address differs: %llx != %llx\n", i, lane,
                        (unsigned long long)want, (unsigned long long)b->u.insn.addr[lane]);
                return 1;
            }
        }
        break;
    case GCR_REC_NONMEM:
        DIFF(u.nonmem.cta);
        DIFF(u.nonmem.warp);
        DIFF(u.nonmem.count);
        DIFF(u.nonmem.waits);
        break;
    case GCR_REC_MEMCPY:
        DIFF(u.memcpy.dst);
        DIFF(u.memcpy.bytes);
        break;
    }
    return 0;
#undef DIFF
}

/* ---- An independent encoder of the container layout (README.md) --------------------------- */

/* struct buf and buf_add come from compress_util.h. */

static inline void buf_u8(struct buf *b, unsigned v)
{
    unsigned char c = (unsigned char)v;
    buf_add(b, &c, 1);
}

static inline void buf_le(struct buf *b, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        buf_u8(b, (unsigned)(v >> (8 * i)) & 0xff);
}

static inline void buf_varint(struct buf *b, uint64_t v)
{
    do {
        buf_u8(b, (unsigned)(v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

static inline uint32_t test_crc(const unsigned char *p, size_t n)
{
    return (uint32_t)crc32(0, p, (uInt)n);
}

/* Little-endian 32-bit fields of an encoded file, for tests that patch one. */
static inline uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Recomputes every block's checksums of a whole file f (header of 32 bytes,
 * then blocks), so that changes made to payloads reach the record decoder. */
static inline void rehash(unsigned char *f, size_t len)
{
    size_t off = 32;
    while (off + 40 <= len && memcmp(f + off, "GBLK", 4) == 0) {
        uint32_t stored = get32(f + off + 12);
        if (off + 40 + stored > len)
            break;
        put32(f + off + 32, test_crc(f + off + 40, stored));
        put32(f + off + 36, test_crc(f + off, 36));
        off += 40 + stored;
    }
}

/* Rewrites the header of a file the writer wrote (version 1.2) as version 1.0 wrote it: for
 * records without register dependencies the rest of the file is the same in both versions. */
static inline void as_version_1_0(unsigned char *f)
{
    f[10] = 0; /* version_minor */
    put32(f + 20, 0); /* flags */
    put32(f + 28, test_crc(f, 28));
}

/* The same as version 1.1 wrote it (flag bit 0 only): for records without non-memory
 * dependencies or units the rest of the file is the same in versions 1.1 and 1.2. */
static inline void as_version_1_1(unsigned char *f)
{
    f[10] = 1; /* version_minor */
    put32(f + 20, 1); /* flags */
    put32(f + 28, test_crc(f, 28));
}

/* Header as version 1.0 writes it, 1.1 with its flag for register dependencies (bit 0), or
 * 1.2 with that one and its flag for non-memory dependencies and units (bit 1). */
static inline void enc_header_version(struct buf *b, unsigned minor)
{
    static const unsigned char magic[8] = {0x89, 'G', 'C', 'R', 'T', '\r', '\n', '\n'};
    size_t start = b->len;
    buf_add(b, magic, 8);
    buf_le(b, 1, 2);
    buf_le(b, minor, 2);
    buf_le(b, 0x01020304, 4);
    buf_le(b, 32, 4);
    buf_le(b, minor >= 2 ? 3 : minor >= 1 ? 1 : 0, 4);
    buf_le(b, 0, 4);
    buf_le(b, test_crc(b->p + start, 28), 4);
}

static inline void enc_header(struct buf *b)
{
    enc_header_version(b, 0);
}

/* One uncompressed block holding payload (count records, first at index first). */
static inline void enc_block(struct buf *b, uint32_t index, const unsigned char *payload,
                             uint32_t len, uint32_t count, uint64_t first)
{
    size_t start = b->len;
    buf_add(b, "GBLK", 4);
    buf_le(b, 0, 4); /* codec none + reserved */
    buf_le(b, index, 4);
    buf_le(b, len, 4);
    buf_le(b, len, 4);
    buf_le(b, count, 4);
    buf_le(b, first, 8);
    buf_le(b, test_crc(payload, len), 4);
    buf_le(b, test_crc(b->p + start, 36), 4);
    buf_add(b, payload, len);
}

static inline void enc_trailer(struct buf *b, uint64_t records, uint64_t blocks)
{
    size_t start = b->len;
    buf_add(b, "GEND", 4);
    buf_le(b, 0, 4);
    buf_le(b, records, 8);
    buf_le(b, blocks, 8);
    buf_le(b, test_crc(b->p + start, 24), 4);
}

#endif
