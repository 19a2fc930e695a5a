/* gcrt: the native binary trace format (specified in trace-formats/gcrt/README.md).
 *
 * A file is a 32-byte header, a sequence of checksummed blocks of records
 * (optionally zstd-compressed) and a trailer. The reader streams: it holds one
 * block in memory at a time, decodes records straight from that buffer and
 * reuses every buffer, so memory is bounded by the largest block, not the file.
 * It reads through a byte source (src/io/bytesrc.h), so a whole file compressed
 * with xz, gzip or zstd reads too; offsets are then those of the decompressed
 * content, and messages say so.
 *
 * Decoding speed matters (the replayer wants well over 10 M records/s), so the
 * record decoder does not bounds-check every byte. Instead the decode buffer
 * carries GCRT_PAD zero bytes after the payload: a record that starts inside
 * the payload can read at most GCRT_MAX_FIXED_READ bytes before it either ends
 * or fails, so it can never leave the buffer, and the decoder checks once per
 * record that it did not end past the payload. The only variable-length field
 * (the kernel name) is checked explicitly before it is copied. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fileno, strdup (normally set by the build) */
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>
#include <zstd.h>

#include "core/stream.h"
#include "gcreplay/error.h"
#include "gcreplay/format.h"
#include "gcreplay/record.h"
#include "io/bytesrc.h"
#include "io/files.h"

/* ---- Layout constants (see README.md) ------------------------------------------------------ */

/* High bit set (catches 7-bit channels), then CR LF and a lone LF (catch line-ending rewrites). */
static const unsigned char gcrt_magic[8] = {0x89, 'G', 'C', 'R', 'T', '\r', '\n', '\n'};
static const unsigned char block_magic[4] = {'G', 'B', 'L', 'K'};
static const unsigned char trailer_magic[4] = {'G', 'E', 'N', 'D'};

#define GCRT_MAGIC_BYTES 8
#define GCRT_VERSION_MAJOR 1
#define GCRT_VERSION_MINOR 2
#define GCRT_BYTE_ORDER_MARK 0x01020304u
#define GCRT_HEADER_BYTES 32u
#define GCRT_MAX_HEADER_BYTES 65536u
#define GCRT_BLOCK_HEADER_BYTES 40u
#define GCRT_TRAILER_BYTES 28u

/* Header flag (version 1.1 on): warp instructions and non-memory runs may carry register
 * dependencies, in the top two bits of their type byte (README.md, section 6.3). */
#define GCRT_FLAG_WAITS 1u
#define GCRT_WAITS_SHIFT 6          /* the dependency code's place in the type byte */
#define GCRT_WAITS_NONE 0           /* no registers known: waits 0 */
#define GCRT_WAITS_NOTHING 1        /* registers known, waits for nothing: GCR_WAITS_KNOWN */
#define GCRT_WAITS_EXPLICIT 2       /* a waits varint follows the record */
#define GCRT_MAX_WAITS_VALUE 0x1ffffu /* 16 memory instructions and a barrier bit */
/* Header flag (version 1.2 on): the register dependencies may also name non-memory
 * instructions and execution units (GCR_WAITS_ALU_MASK, GCR_WAITS_UNIT_MASK), in the bits of
 * the waits value above GCRT_MAX_WAITS_VALUE's (README.md, section 6.3). */
#define GCRT_FLAG_ALU 2u
#define GCRT_MAX_ALU_WAITS_VALUE 0x3fffffffu /* and 10 non-memory instructions, a 3-bit unit */

#define GCRT_CODEC_NONE 0
#define GCRT_CODEC_ZSTD 1

/* Limit on stored and raw payload sizes: a corrupt length can cost at most this much memory. */
#define GCRT_MAX_PAYLOAD (64u << 20)
#define GCRT_DEFAULT_BLOCK_BYTES 65536u
#define GCRT_MAX_NAME 65535u

/* Address modes of a warp instruction (bits 6-7 of its info byte). */
#define GCRT_ADDR_STRIDE 0
#define GCRT_ADDR_DELTAS 1
#define GCRT_ADDR_LIST 2

/* Largest encoded record: a kernel begin with a maximal name (type, 9 u32 varints, 3-byte
 * length, name). A warp instruction is at most 1+5+5+10+1+1+4+32*10+3 = 350 bytes. */
#define GCRT_MAX_RECORD (1 + 9 * 5 + 3 + GCRT_MAX_NAME)

/* Bytes a record decoder may read from its start before it finishes or fails, not counting
 * the explicitly checked name: varints are read up to 10 bytes before they are rejected, so a
 * warp instruction reads at most 1 + 3*10 + 1 + 1 + 4 + 32*10 + 10 = 367 bytes (the last 10:
 * its register dependencies). */
#define GCRT_MAX_FIXED_READ 367
#define GCRT_PAD 512

_Static_assert(GCRT_PAD >= GCRT_MAX_FIXED_READ, "decode padding too small");

/* ---- Little-endian helpers ----------------------------------------------------------------- */

static inline uint16_t get_le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

/* One unaligned load each (memcpy), byte-swapped on a big-endian host: the decoder reads a mask
 * and an 8-byte varint window per record, and byte-by-byte assembly costs several instructions
 * more when the compiler does not merge it. */
static inline uint32_t get_le32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline uint64_t get_le64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline void put_le16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void put_le64(unsigned char *p, uint64_t v)
{
    put_le32(p, (uint32_t)v);
    put_le32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    /* zlib's crc32 takes a uInt length; payloads are capped far below 4 GiB. */
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

/* When built for fuzzing, checksum mismatches are ignored so the fuzzer can reach the decoders
 * behind them; such a build is never used for real input. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CRC_MISMATCH(stored, computed) ((void)(stored), (void)(computed), false)
#else
#define CRC_MISMATCH(stored, computed) ((stored) != (computed))
#endif

/* ---- Varints --------------------------------------------------------------------------------- */

static inline uint64_t zigzag_encode(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline uint64_t zigzag_decode(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

static inline unsigned char *put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static inline size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Why the last varint was rejected; set only on failure (a cold path). */
static const char *const varint_overflow = "varint longer than 10 bytes or above 2^64-1";
static const char *const varint_overlong = "varint has a redundant trailing zero byte";

/* Nine- and ten-byte varints, and every malformed one (kept out of line: rare). */
static const unsigned char *get_varint_slow(const unsigned char *p, uint64_t *out,
                                            const char **why)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint64_t b = *p++;
        if (shift == 63 && b > 1) {
            *why = varint_overflow;
            return NULL;
        }
        v |= (b & 0x7f) << shift;
        if (b < 0x80) {
            if (b == 0 && shift != 0) {
                *why = varint_overlong;
                return NULL;
            }
            *out = v;
            return p;
        }
    }
    *why = varint_overflow;
    return NULL;
}

/* Decodes a varint of up to 8 bytes without a loop: load 8 bytes, find the terminating byte
 * (high bit clear), drop the bytes after it and squeeze out the continuation bits in three
 * shift-and-mask steps. Reading 8 bytes past a short varint is safe thanks to the padding
 * after the payload (and a varint is read up to 10 bytes anyway). */
static inline __attribute__((always_inline)) const unsigned char *
get_varint(const unsigned char *p, uint64_t *out, const char **why)
{
    if (__builtin_expect(p[0] < 0x80, 1)) {
        *out = p[0];
        return p + 1;
    }
    /* Two bytes (CTA ids, PCs, counts of a few thousand) are common enough for their own
     * branch: a few instructions instead of the general squeeze below. */
    if (p[1] < 0x80) {
        if (__builtin_expect(p[1] == 0, 0)) {
            *why = varint_overlong;
            return NULL;
        }
        *out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
        return p + 2;
    }
    uint64_t w = get_le64(p);
    uint64_t stops = ~w & 0x8080808080808080ull;
    if (__builtin_expect(stops == 0, 0))
        return get_varint_slow(p, out, why);
    unsigned len = ((unsigned)__builtin_ctzll(stops) >> 3) + 1; /* 3..8 bytes */
    uint64_t keep = stops ^ (stops - 1); /* the bits of the varint's bytes */
    w &= keep & 0x7f7f7f7f7f7f7f7full;
    /* A redundant last byte is a zero one: then the kept bytes are below the value of that
     * byte's position, 2^(8*(len-1)), that is at most keep >> 8. */
    if (__builtin_expect(w <= keep >> 8, 0)) {
        *why = varint_overlong;
        return NULL;
    }
    /* Squeeze out the gaps: 8 x 7 bits -> 4 x 14 -> 2 x 28 -> 56. In each lane the upper
     * group moves down by subtracting the difference (no borrow crosses lanes), which takes
     * fewer instructions and constants than masking both halves and or-ing them. */
    w -= (w & 0x7f007f007f007f00ull) >> 1;       /* a + b*2^8 -> a + b*2^7 per 16 bits */
    w -= ((w & 0x3fff00003fff0000ull) >> 2) * 3; /* c + d*2^16 -> c + d*2^14 per 32 bits */
    w = (w & 0xffffffffull) | (w >> 32) << 28;   /* e + f*2^32 -> e + f*2^28 */
    *out = w;
    return p + len;
}

static const char *const u32_overflow = "value does not fit in 32 bits";

static inline __attribute__((always_inline)) const unsigned char *
get_varint32(const unsigned char *p, uint32_t *out, const char **why)
{
    uint64_t v;
    p = get_varint(p, &v, why);
    if (!p)
        return NULL;
    if (v > UINT32_MAX) {
        *why = u32_overflow;
        return NULL;
    }
    *out = (uint32_t)v;
    return p;
}

/* Two 64-bit lanes (GNU vector extension, lowered to SSE2/NEON or scalar code as available). */
typedef uint64_t u64x2 __attribute__((vector_size(16)));

/* ---- Record decoding ------------------------------------------------------------------------ */

/* The lane addresses of a warp instruction whose fixed fields decode_insn has read (p points
 * after its mask), in every case but its inline one. Out of line: partial masks, explicit
 * addresses and eager expansion are rarer, and keeping them out of the decoding loops leaves
 * those loops small enough to keep their state in registers. */
static __attribute__((noinline)) const unsigned char *
decode_lanes(const unsigned char *p, struct gcr_warp_insn *in, unsigned mode, bool lazy,
             const char **why)
{
    uint64_t base, v;
    uint32_t mask = in->active_mask;
    if (mask == 0xffffffffu && mode == GCRT_ADDR_STRIDE) {
        /* A fully active warp with a uniform stride, expanded (not lazy). */
        if (!(p = get_varint(p, &base, why)) || !(p = get_varint(p, &v, why)))
            return NULL;
        /* Two lanes per step with a vector type (plain C would be a serial chain of 32 adds
         * that compilers do not unroll at -O2). One vector induction variable on purpose:
         * gcc 12.2 at -O2 miscompiles the same loop written with four scalar ones. */
        uint64_t stride = zigzag_decode(v);
        in->strided = true;
        in->stride = (int64_t)stride;
        u64x2 lanes = {base, base + stride};
        const u64x2 step = {2 * stride, 2 * stride};
        const u64x2 step2 = step + step;
        for (int k = 0; k < GCR_WARP_SIZE; k += 4) {
            u64x2 next = lanes + step;
            memcpy(&in->addr[k], &lanes, sizeof lanes);
            memcpy(&in->addr[k + 2], &next, sizeof next);
            lanes += step2;
        }
        return p;
    }
    /* The stride hint (record.h): set for mode 0, cleared otherwise. */
    in->strided = mode == GCRT_ADDR_STRIDE;
    in->stride = 0;
    if (mask == 0) {
        memset(in->addr, 0, sizeof in->addr);
        if (mode != GCRT_ADDR_STRIDE) {
            *why = "warp instruction with no active lane must use address mode 0";
            return NULL;
        }
        return p;
    }
    if (lazy && mode == GCRT_ADDR_STRIDE) {
        /* A partial warp with a uniform stride: the consumer reads the hint, and the first
         * active lane's address, only (gcr_reader_set_lazy_addresses). */
        if (!(p = get_varint(p, &base, why)) || !(p = get_varint(p, &v, why)))
            return NULL;
        in->stride = (int64_t)zigzag_decode(v);
        in->addr[__builtin_ctz(mask)] = base;
        return p;
    }
    memset(in->addr, 0, sizeof in->addr);
    switch (mode) {
    case GCRT_ADDR_STRIDE: {
        if (!(p = get_varint(p, &base, why)) || !(p = get_varint(p, &v, why)))
            return NULL;
        uint64_t stride = zigzag_decode(v);
        in->stride = (int64_t)stride;
        for (uint32_t m = mask; m; m &= m - 1) {
            in->addr[__builtin_ctz(m)] = base;
            base += stride;
        }
        return p;
    }
    case GCRT_ADDR_DELTAS: {
        if (!(p = get_varint(p, &base, why)))
            return NULL;
        uint32_t m = mask;
        in->addr[__builtin_ctz(m)] = base;
        for (m &= m - 1; m; m &= m - 1) {
            if (!(p = get_varint(p, &v, why)))
                return NULL;
            base += zigzag_decode(v);
            in->addr[__builtin_ctz(m)] = base;
        }
        return p;
    }
    case GCRT_ADDR_LIST:
        for (uint32_t m = mask; m; m &= m - 1)
            if (!(p = get_varint(p, &in->addr[__builtin_ctz(m)], why)))
                return NULL;
        return p;
    default:
        *why = "unknown address mode 3";
        return NULL;
    }
}

/* Decodes the body of a warp instruction (decode_insn: after its type byte; _after_cta: after
 * its CTA id too). Returns the position after it, or NULL with *why set. Inline: the fixed
 * fields, and the lanes of the replay's common case (a fully active warp with a uniform
 * stride, read lazily); decode_lanes does the rest. */
static inline __attribute__((always_inline)) const unsigned char *
decode_insn_after_cta(const unsigned char *p, struct gcr_warp_insn *in, bool lazy,
                      const char **why)
{
    if (!(p = get_varint32(p, &in->warp, why)) || !(p = get_varint(p, &in->pc, why)))
        return NULL;
    unsigned info = p[0];
    in->op = (uint8_t)(info & 3);
    in->space = (uint8_t)((info >> 2) & 7);
    in->cache_op = (uint8_t)((info >> 5) & 1);
    unsigned mode = info >> 6;
    in->width = (uint16_t)(p[1] + 1);
    uint32_t mask = get_le32(p + 2);
    in->active_mask = mask;
    in->waits = 0;
    p += 6;
    if (__builtin_expect(!(mask == 0xffffffffu && mode == GCRT_ADDR_STRIDE && lazy), 0))
        return decode_lanes(p, in, mode, lazy, why);
    uint64_t base, v;
    if (!(p = get_varint(p, &base, why)) || !(p = get_varint(p, &v, why)))
        return NULL;
    in->strided = true;
    in->stride = (int64_t)zigzag_decode(v);
    in->addr[0] = base;
    return p;
}

static inline __attribute__((always_inline)) const unsigned char *
decode_insn(const unsigned char *p, struct gcr_warp_insn *in, bool lazy, const char **why)
{
    if (!(p = get_varint32(p, &in->cta, why)))
        return NULL;
    return decode_insn_after_cta(p, in, lazy, why);
}

/* The reader's words for waits that gcr_waits_invalid refused (`bad`): "register
 * dependencies: " and its words. The message lives in a buffer of the calling thread, which
 * formats it (finish_record) before it decodes anything else. Cold: only a damaged or hand-made
 * file gets here. */
static __attribute__((noinline, cold)) const char *waits_refusal(const char *bad)
{
    static _Thread_local char msg[GCR_ERR_MSG_MAX / 4];
    snprintf(msg, sizeof msg, "register dependencies: %s", bad);
    return msg;
}

/* An explicit register-dependency value (README.md, section 6.3), or the reserved code 3, of a
 * warp instruction (insn) or a non-memory run of `count` instructions. max: the largest value
 * the file's header flags allow. Out of line: most instructions wait for nothing, which costs no
 * byte and no call. */
static __attribute__((noinline)) const unsigned char *
decode_waits_value(const unsigned char *p, unsigned code, uint32_t max, bool insn,
                   uint32_t count, uint32_t *waits, const char **why)
{
    if (code != GCRT_WAITS_EXPLICIT) {
        *why = "register dependency code 3 is reserved";
        return NULL;
    }
    uint64_t v;
    if (!(p = get_varint(p, &v, why)))
        return NULL;
    if (v == 0 || v > max) {
        *why = v == 0 ? "register dependencies value 0 (code 1 stands for no dependency)"
               : max == GCRT_MAX_WAITS_VALUE
                   ? "register dependencies value above 131071 (16 memory instructions and a "
                     "barrier bit)"
                   : "register dependencies value above 1073741823 (16 memory instructions, a "
                     "barrier bit, 10 non-memory instructions and a 3-bit unit)";
        return NULL;
    }
    /* value = (alu_unit << 17) | (window << 1) | barrier, so value >> 1 is exactly the bits
     * 0..28 of waits. */
    uint32_t w = GCR_WAITS_KNOWN | (uint32_t)(v >> 1) | (v & 1 ? GCR_WAITS_BARRIER : 0);
    const char *bad = v > GCRT_MAX_WAITS_VALUE ? gcr_waits_invalid(w, insn, count) : NULL;
    if (bad) {
        *why = waits_refusal(bad);
        return NULL;
    }
    *waits = w;
    return p;
}

/* The register dependencies of a record whose type byte carried the code `code` (not 0) and
 * whose other fields end at p (NULL: they failed, and so does this); the other arguments as
 * for decode_waits_value. */
static inline __attribute__((always_inline)) const unsigned char *
decode_waits(const unsigned char *p, unsigned code, uint32_t max, bool insn, uint32_t count,
             uint32_t *waits, const char **why)
{
    if (p && code == GCRT_WAITS_NOTHING) {
        *waits = GCR_WAITS_KNOWN;
        return p;
    }
    return p ? decode_waits_value(p, code, max, insn, count, waits, why) : NULL;
}

/* ---- Reader ------------------------------------------------------------------------------- */

struct gcrt_reader {
    struct gcr_bytesrc *src;
    char *path;
    const char *of_content; /* after an offset in messages: "" or " of the decompressed content" */
    bool size_known;    /* an uncompressed regular file: payload sizes are checked against it */
    uint64_t file_size;
    uint64_t offset;    /* content bytes consumed */

    /* Current block. */
    uint64_t block_no;    /* ordinal of the current (or next) block */
    uint64_t block_off;   /* byte offset of its header */
    uint64_t first_index; /* global index of its first record */
    uint32_t block_records;
    uint32_t left; /* records of the current block not yet returned */
    const unsigned char *pos, *end;

    uint64_t records; /* records in fully or partly decoded blocks: next expected first index */
    uint16_t version_major, version_minor;
    /* The bits of a type byte that give the record's type: 0xff, or 0x3f when the header flag
     * says the top two give its register dependencies (GCRT_FLAG_WAITS). */
    unsigned type_mask;
    /* The largest explicit register-dependency value: GCRT_MAX_ALU_WAITS_VALUE when the header
     * flag says the dependencies may name non-memory instructions (GCRT_FLAG_ALU), else
     * GCRT_MAX_WAITS_VALUE. */
    uint32_t waits_max;
    bool lazy_addresses; /* see gcr_reader_set_lazy_addresses */
    uint64_t blocks_zstd, blocks_raw, payload_raw_bytes; /* for gcreplay info */
    struct gcr_stream_rules rules; /* the stream so far: open kernel, finished CTAs */
    bool done;
    bool failed;
    struct gcr_err saved; /* the first error, repeated on later calls */

    unsigned char *raw; /* decoded payload + GCRT_PAD zero bytes */
    size_t raw_cap;
    unsigned char *stored; /* compressed payload */
    size_t stored_cap;
    ZSTD_DCtx *dctx;
    char name_buf[GCRT_MAX_NAME + 1];
};

/* Formats "<prefix><what>" into the reader's saved error and the caller's. */
static int reader_vfail(struct gcrt_reader *r, struct gcr_err *err, enum gcr_status status,
                        const char *prefix, const char *fmt, va_list ap)
{
    char what[GCR_ERR_MSG_MAX];
    vsnprintf(what, sizeof what, fmt, ap);
    r->failed = true;
    r->left = 0; /* sends later calls to the slow path, which repeats the error */
    gcr_fail(&r->saved, status, "%s%s", prefix, what);
    if (err)
        *err = r->saved;
    return -1;
}

static int header_fail(struct gcrt_reader *r, struct gcr_err *err, enum gcr_status status,
                       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int header_fail(struct gcrt_reader *r, struct gcr_err *err, enum gcr_status status,
                       const char *fmt, ...)
{
    char prefix[GCR_ERR_MSG_MAX];
    snprintf(prefix, sizeof prefix, "%s: header (byte offset 0%s): ", r->path, r->of_content);
    va_list ap;
    va_start(ap, fmt);
    reader_vfail(r, err, status, prefix, fmt, ap);
    va_end(ap);
    return -1;
}

static int block_fail(struct gcrt_reader *r, struct gcr_err *err, enum gcr_status status,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int block_fail(struct gcrt_reader *r, struct gcr_err *err, enum gcr_status status,
                      const char *fmt, ...)
{
    char prefix[GCR_ERR_MSG_MAX];
    snprintf(prefix, sizeof prefix, "%s: block %llu (byte offset %llu%s): ", r->path,
             (unsigned long long)r->block_no, (unsigned long long)r->block_off, r->of_content);
    va_list ap;
    va_start(ap, fmt);
    reader_vfail(r, err, status, prefix, fmt, ap);
    va_end(ap);
    return -1;
}

static int trailer_fail(struct gcrt_reader *r, struct gcr_err *err, enum gcr_status status,
                        const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int trailer_fail(struct gcrt_reader *r, struct gcr_err *err, enum gcr_status status,
                        const char *fmt, ...)
{
    char prefix[GCR_ERR_MSG_MAX];
    snprintf(prefix, sizeof prefix, "%s: trailer (byte offset %llu%s): ", r->path,
             (unsigned long long)r->block_off, r->of_content);
    va_list ap;
    va_start(ap, fmt);
    reader_vfail(r, err, status, prefix, fmt, ap);
    va_end(ap);
    return -1;
}

/* Record-level errors name the block, its start and the record's global index. */
static int record_fail(struct gcrt_reader *r, struct gcr_err *err, enum gcr_status status,
                       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int record_fail(struct gcrt_reader *r, struct gcr_err *err, enum gcr_status status,
                       const char *fmt, ...)
{
    char prefix[GCR_ERR_MSG_MAX];
    uint64_t index = r->first_index + (r->block_records - r->left);
    snprintf(prefix, sizeof prefix, "%s: block %llu (byte offset %llu%s), record %llu: ",
             r->path, (unsigned long long)r->block_no, (unsigned long long)r->block_off,
             r->of_content, (unsigned long long)index);
    va_list ap;
    va_start(ap, fmt);
    reader_vfail(r, err, status, prefix, fmt, ap);
    va_end(ap);
    return -1;
}

/* Reads exactly n bytes. Returns n, or the (smaller) count read at the end of the content, or
 * -1 when the byte source fails (a read error, damaged compressed data): its message, which
 * names the file and the offset, becomes the reader's error (source_fail). */
static long long read_exact(struct gcrt_reader *r, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ptrdiff_t k = gcr_bytesrc_read(r->src, (unsigned char *)buf + got, n - got, NULL);
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        got += (size_t)k;
    }
    r->offset += got;
    return (long long)got;
}

/* The byte source's error (read_exact returned -1), as the reader's. */
static int source_fail(struct gcrt_reader *r, struct gcr_err *err)
{
    unsigned char byte;
    gcr_bytesrc_read(r->src, &byte, 1, &r->saved); /* a failed source repeats its error */
    r->failed = true;
    r->left = 0;
    if (err)
        *err = r->saved;
    return -1;
}

static int grow(unsigned char **buf, size_t *cap, size_t need)
{
    if (*cap >= need)
        return 0;
    unsigned char *p = realloc(*buf, need);
    if (!p)
        return -1;
    *buf = p;
    *cap = need;
    return 0;
}

static void gcrt_reader_close(void *state)
{
    struct gcrt_reader *r = state;
    if (!r)
        return;
    gcr_bytesrc_close(r->src);
    ZSTD_freeDCtx(r->dctx);
    gcr_stream_rules_free(&r->rules);
    free(r->raw);
    free(r->stored);
    free(r->path);
    free(r);
}

static int read_header(struct gcrt_reader *r, struct gcr_err *err)
{
    unsigned char h[GCRT_HEADER_BYTES];
    long long got = read_exact(r, h, sizeof h);
    if (got < 0)
        return source_fail(r, err);
    size_t n = (size_t)got;
    size_t cmp = n < GCRT_MAGIC_BYTES ? n : GCRT_MAGIC_BYTES;
    if (memcmp(h, gcrt_magic, cmp) != 0)
        return header_fail(r, err, GCR_E_FORMAT, "bad magic: not a gcrt trace");
    /* The version (bytes 8-11) is read before anything else a later major version may move. */
    if (n < 12)
        return header_fail(r, err, GCR_E_TRUNCATED,
                           "file is %zu bytes long, shorter than the %u-byte header", n,
                           GCRT_HEADER_BYTES);
    uint16_t major = get_le16(h + 8), minor = get_le16(h + 10);
    if (major != GCRT_VERSION_MAJOR)
        return header_fail(r, err, GCR_E_UNSUPPORTED,
                           "unsupported gcrt version %u.%u (this reader reads version %u.x)",
                           major, minor, GCRT_VERSION_MAJOR);
    if (n < GCRT_HEADER_BYTES)
        return header_fail(r, err, GCR_E_TRUNCATED,
                           "file is %zu bytes long, shorter than the %u-byte header", n,
                           GCRT_HEADER_BYTES);
    uint32_t bom = get_le32(h + 12);
    if (bom != GCRT_BYTE_ORDER_MARK)
        return header_fail(r, err, GCR_E_FORMAT,
                           "bad byte-order mark 0x%08x (expected 0x%08x read little-endian%s)",
                           bom, GCRT_BYTE_ORDER_MARK,
                           bom == 0x04030201u ? "; the file was written big-endian" : "");
    uint32_t want = get_le32(h + 28), crc = crc32_of(h, 28);
    if (CRC_MISMATCH(want, crc))
        return header_fail(r, err, GCR_E_CHECKSUM,
                           "header checksum mismatch (stored 0x%08x, computed 0x%08x)", want,
                           crc);
    uint32_t header_bytes = get_le32(h + 16), flags = get_le32(h + 20);
    if (header_bytes < GCRT_HEADER_BYTES || header_bytes > GCRT_MAX_HEADER_BYTES)
        return header_fail(r, err, GCR_E_FORMAT, "header size %u outside %u..%u", header_bytes,
                           GCRT_HEADER_BYTES, GCRT_MAX_HEADER_BYTES);
    /* Flag bit 0 is defined from version 1.1 on, bit 1 from 1.2 on: in a file that says an
     * older version they are as unknown as they were to that version's reader. */
    uint32_t known_flags = (minor >= 1 ? GCRT_FLAG_WAITS : 0) | (minor >= 2 ? GCRT_FLAG_ALU : 0);
    if (flags & ~known_flags)
        return header_fail(r, err, GCR_E_UNSUPPORTED,
                           "unknown header flags 0x%08x (version %u.%u)", flags & ~known_flags,
                           major, minor);
    /* Bit 1 widens the dependencies that bit 0 lets records carry: alone it says nothing. */
    if ((flags & GCRT_FLAG_ALU) && !(flags & GCRT_FLAG_WAITS))
        return header_fail(r, err, GCR_E_FORMAT,
                           "header flag bit 1 (non-memory dependencies) without bit 0 (register "
                           "dependencies)");
    r->version_major = major;
    r->version_minor = minor;
    r->type_mask = flags & GCRT_FLAG_WAITS ? 0xff >> (8 - GCRT_WAITS_SHIFT) : 0xff;
    r->waits_max = flags & GCRT_FLAG_ALU ? GCRT_MAX_ALU_WAITS_VALUE : GCRT_MAX_WAITS_VALUE;
    /* A later minor version may append header fields this reader does not need: skip them. */
    for (uint32_t skip = header_bytes - GCRT_HEADER_BYTES; skip > 0;) {
        unsigned char tmp[4096];
        size_t chunk = skip < sizeof tmp ? skip : sizeof tmp;
        got = read_exact(r, tmp, chunk);
        if (got < 0)
            return source_fail(r, err);
        if ((size_t)got < chunk)
            return header_fail(r, err, GCR_E_TRUNCATED, "file ends inside the %u-byte header",
                               header_bytes);
        skip -= (uint32_t)chunk;
    }
    return 0;
}

static int gcrt_reader_open(void **state, const struct gcr_files *files, const char *path,
                            struct gcr_err *err)
{
    *state = NULL;
    struct gcrt_reader *r = calloc(1, sizeof *r);
    if (!r)
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    r->path = strdup(path);
    r->dctx = ZSTD_createDCtx();
    if (!r->path || !r->dctx || grow(&r->raw, &r->raw_cap, GCRT_DEFAULT_BLOCK_BYTES + GCRT_PAD)) {
        gcrt_reader_close(r);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }
    if (gcr_bytesrc_open(&r->src, files, path, err) != 0) {
        gcrt_reader_close(r);
        return -1;
    }
    bool plain = gcr_bytesrc_codec(r->src) == GCR_CODEC_NONE;
    r->of_content = plain ? "" : " of the decompressed content";
    struct stat st;
    if (plain && gcr_files_stat(files, path, &st) == 0 && S_ISREG(st.st_mode)) {
        r->size_known = true;
        r->file_size = (uint64_t)st.st_size;
    }
    if (read_header(r, err) < 0) {
        gcrt_reader_close(r);
        return -1;
    }
    r->block_off = r->offset;
    *state = r;
    return 0;
}

/* Bytes left in a regular file after the current offset (UINT64_MAX if unknown). */
static uint64_t bytes_left(const struct gcrt_reader *r)
{
    if (!r->size_known)
        return UINT64_MAX;
    return r->file_size > r->offset ? r->file_size - r->offset : 0;
}

/* After the trailer only the end of the file may follow. */
static int read_trailer(struct gcrt_reader *r, const unsigned char *magic4,
                        struct gcr_err *err)
{
    unsigned char t[GCRT_TRAILER_BYTES];
    memcpy(t, magic4, 4);
    long long got = read_exact(r, t + 4, sizeof t - 4);
    if (got < 0)
        return source_fail(r, err);
    if ((size_t)got < sizeof t - 4)
        return trailer_fail(r, err, GCR_E_TRUNCATED, "file ends inside the %u-byte trailer",
                            GCRT_TRAILER_BYTES);
    uint32_t want = get_le32(t + 24), crc = crc32_of(t, 24);
    if (CRC_MISMATCH(want, crc))
        return trailer_fail(r, err, GCR_E_CHECKSUM,
                            "trailer checksum mismatch (stored 0x%08x, computed 0x%08x)", want,
                            crc);
    uint64_t total_records = get_le64(t + 8), total_blocks = get_le64(t + 16);
    if (total_records != r->records || total_blocks != r->block_no)
        return trailer_fail(r, err, GCR_E_FORMAT,
                            "trailer counts %llu records in %llu blocks, but the file holds "
                            "%llu records in %llu blocks",
                            (unsigned long long)total_records, (unsigned long long)total_blocks,
                            (unsigned long long)r->records, (unsigned long long)r->block_no);
    char why[GCR_ERR_MSG_MAX / 2];
    enum gcr_status st = gcr_stream_rules_finish(&r->rules, why, sizeof why);
    if (st != GCR_OK)
        return trailer_fail(r, err, st, "%s", why);
    unsigned char c;
    got = read_exact(r, &c, 1);
    if (got < 0)
        return source_fail(r, err);
    if (got > 0)
        return trailer_fail(r, err, GCR_E_FORMAT,
                            "unexpected data after the trailer at byte offset %llu%s",
                            (unsigned long long)(r->offset - 1), r->of_content);
    r->done = true;
    return 0;
}

/* Reads the next block (returns 1) or the trailer (returns 0). */
static int load_block(struct gcrt_reader *r, struct gcr_err *err)
{
    unsigned char h[GCRT_BLOCK_HEADER_BYTES];
    r->block_off = r->offset;
    long long got = read_exact(r, h, 4);
    if (got < 0)
        return source_fail(r, err);
    if (got == 0)
        return block_fail(r, err, GCR_E_TRUNCATED,
                          "file ends without a trailer (truncated at a block boundary)");
    if (got < 4)
        return block_fail(r, err, GCR_E_TRUNCATED, "file ends inside a block header");
    if (memcmp(h, trailer_magic, 4) == 0) {
        if (read_trailer(r, h, err) < 0)
            return -1;
        return 0;
    }
    if (memcmp(h, block_magic, 4) != 0)
        return block_fail(r, err, GCR_E_FORMAT,
                          "bad block magic %02x %02x %02x %02x (expected \"GBLK\" or \"GEND\")",
                          h[0], h[1], h[2], h[3]);
    got = read_exact(r, h + 4, sizeof h - 4);
    if (got < 0)
        return source_fail(r, err);
    if ((size_t)got < sizeof h - 4)
        return block_fail(r, err, GCR_E_TRUNCATED, "file ends inside the %u-byte block header",
                          GCRT_BLOCK_HEADER_BYTES);
    uint32_t want = get_le32(h + 36), crc = crc32_of(h, 36);
    if (CRC_MISMATCH(want, crc))
        return block_fail(r, err, GCR_E_CHECKSUM,
                          "block header checksum mismatch (stored 0x%08x, computed 0x%08x)", want,
                          crc);
    unsigned codec = h[4];
    uint32_t index = get_le32(h + 8), stored_bytes = get_le32(h + 12),
             raw_bytes = get_le32(h + 16), count = get_le32(h + 20);
    uint64_t first = get_le64(h + 24);
    uint32_t payload_crc = get_le32(h + 32);

    if (index != (uint32_t)r->block_no) /* the field holds the low 32 bits */
        return block_fail(r, err, GCR_E_FORMAT, "block header says block %u, expected %u",
                          index, (uint32_t)r->block_no);
    if (first != r->records)
        return block_fail(r, err, GCR_E_FORMAT, "first record index %llu, expected %llu",
                          (unsigned long long)first, (unsigned long long)r->records);
    if (codec != GCRT_CODEC_NONE && codec != GCRT_CODEC_ZSTD)
        return block_fail(r, err, GCR_E_FORMAT, "unknown codec %u", codec);
    if (stored_bytes > GCRT_MAX_PAYLOAD || raw_bytes > GCRT_MAX_PAYLOAD)
        return block_fail(r, err, GCR_E_FORMAT,
                          "payload size (stored %u, raw %u bytes) exceeds the %u-byte limit",
                          stored_bytes, raw_bytes, GCRT_MAX_PAYLOAD);
    if (count == 0 || raw_bytes == 0 || stored_bytes == 0)
        return block_fail(r, err, GCR_E_FORMAT,
                          "empty block (%u records, stored %u, raw %u bytes)", count,
                          stored_bytes, raw_bytes);
    if (codec == GCRT_CODEC_NONE && stored_bytes != raw_bytes)
        return block_fail(r, err, GCR_E_FORMAT,
                          "uncompressed block with stored size %u != raw size %u", stored_bytes,
                          raw_bytes);
    if (count > raw_bytes / 2)
        return block_fail(r, err, GCR_E_FORMAT,
                          "%u records cannot fit in %u payload bytes (2 bytes at least each)",
                          count, raw_bytes);
    /* Check the size against the file before allocating anything for it. */
    if (stored_bytes > bytes_left(r))
        return block_fail(r, err, GCR_E_TRUNCATED,
                          "file ends inside the block payload (%u bytes declared, %llu left)",
                          stored_bytes, (unsigned long long)bytes_left(r));

    if (grow(&r->raw, &r->raw_cap, (size_t)raw_bytes + GCRT_PAD))
        return block_fail(r, err, GCR_E_NOMEM, "out of memory for a %u-byte block", raw_bytes);
    unsigned char *payload = r->raw;
    if (codec == GCRT_CODEC_ZSTD) {
        if (grow(&r->stored, &r->stored_cap, stored_bytes))
            return block_fail(r, err, GCR_E_NOMEM, "out of memory for a %u-byte block",
                              stored_bytes);
        payload = r->stored;
    }
    got = read_exact(r, payload, stored_bytes);
    if (got < 0)
        return source_fail(r, err);
    if ((size_t)got < stored_bytes)
        return block_fail(r, err, GCR_E_TRUNCATED,
                          "file ends inside the block payload (%u bytes declared, %llu left)",
                          stored_bytes, (unsigned long long)got);
    crc = crc32_of(payload, stored_bytes);
    if (CRC_MISMATCH(payload_crc, crc))
        return block_fail(r, err, GCR_E_CHECKSUM,
                          "payload checksum mismatch (stored 0x%08x, computed 0x%08x)",
                          payload_crc, crc);
    if (codec == GCRT_CODEC_ZSTD) {
        size_t frame = ZSTD_findFrameCompressedSize(payload, stored_bytes);
        if (ZSTD_isError(frame) || frame != stored_bytes)
            return block_fail(r, err, GCR_E_FORMAT,
                              "zstd payload is not exactly one frame of %u bytes%s%s",
                              stored_bytes, ZSTD_isError(frame) ? ": " : "",
                              ZSTD_isError(frame) ? ZSTD_getErrorName(frame) : "");
        size_t n = ZSTD_decompressDCtx(r->dctx, r->raw, raw_bytes, payload, stored_bytes);
        if (ZSTD_isError(n))
            return block_fail(r, err, GCR_E_FORMAT, "zstd decompression failed: %s",
                              ZSTD_getErrorName(n));
        if (n != raw_bytes)
            return block_fail(r, err, GCR_E_FORMAT,
                              "zstd payload decompresses to %zu bytes, header says %u", n,
                              raw_bytes);
    }
    if (codec == GCRT_CODEC_ZSTD)
        r->blocks_zstd++;
    else
        r->blocks_raw++;
    r->payload_raw_bytes += raw_bytes;
    /* The decoders may read into this padding; it must be zero so they stop there. */
    memset(r->raw + raw_bytes, 0, GCRT_PAD);
    r->pos = r->raw;
    r->end = r->raw + raw_bytes;
    r->first_index = first;
    r->block_records = count;
    r->left = count;
    r->records = first + count;
    return 1;
}

/* The end of decoding a record whose body was read up to p (NULL: failed, why says why):
 * checks that it stayed inside the payload and applies the stream rules. The general case,
 * out of line so that the hot path below keeps a small stack frame. */
static __attribute__((noinline)) int finish_record(struct gcrt_reader *r, struct gcr_record *rec,
                                                   const unsigned char *p, const char *why,
                                                   struct gcr_err *err)
{
    if (!p)
        return record_fail(r, err, GCR_E_FORMAT, "%s", why);
    if (p > r->end)
        return record_fail(r, err, GCR_E_FORMAT,
                           "record runs past the end of the block payload");

    char refusal[GCR_ERR_MSG_MAX / 2];
    enum gcr_status st = gcr_stream_rules_apply(&r->rules, rec, refusal, sizeof refusal);
    if (st != GCR_OK)
        return record_fail(r, err, st, "%s", refusal);
    r->pos = p;
    r->left--;
    return 1;
}

/* Decodes a record of the rare kinds (kernel boundaries, copies) or an unknown type, whose
 * type byte was just read; p points after it. Only warp instructions and non-memory runs carry
 * register dependencies: a dependency code on any other type makes an unknown type byte. */
static __attribute__((noinline)) int decode_other(struct gcrt_reader *r, struct gcr_record *rec,
                                                  unsigned type, const unsigned char *p,
                                                  struct gcr_err *err)
{
    const char *why = NULL;
    switch (type) {
    case GCR_REC_KERNEL_BEGIN: {
        rec->kind = GCR_REC_KERNEL_BEGIN;
        struct gcr_kernel_begin *k = &rec->u.kbegin;
        uint32_t *fields[9] = {&k->id,       &k->grid[0],  &k->grid[1],
                               &k->grid[2],  &k->block[0], &k->block[1],
                               &k->block[2], &k->shmem_bytes, &k->regs_per_thread};
        uint64_t len = 0;
        for (int i = 0; i < 9 && p; i++)
            p = get_varint32(p, fields[i], &why);
        if (p)
            p = get_varint(p, &len, &why);
        if (!p)
            break;
        if (p > r->end)
            return record_fail(r, err, GCR_E_FORMAT,
                               "record runs past the end of the block payload");
        if (len > GCRT_MAX_NAME)
            return record_fail(r, err, GCR_E_FORMAT,
                               "kernel name of %llu bytes (at most %u allowed)",
                               (unsigned long long)len, GCRT_MAX_NAME);
        if (len > (uint64_t)(r->end - p))
            return record_fail(r, err, GCR_E_FORMAT,
                               "record runs past the end of the block payload");
        if (memchr(p, 0, (size_t)len))
            return record_fail(r, err, GCR_E_FORMAT, "kernel name contains a NUL byte");
        memcpy(r->name_buf, p, (size_t)len);
        r->name_buf[len] = '\0';
        k->name = r->name_buf;
        p += len;
        break;
    }
    case GCR_REC_KERNEL_END:
        rec->kind = GCR_REC_KERNEL_END;
        p = get_varint32(p, &rec->u.kend.id, &why);
        break;
    case GCR_REC_MEMCPY:
        rec->kind = GCR_REC_MEMCPY;
        if ((p = get_varint(p, &rec->u.memcpy.dst, &why)))
            p = get_varint(p, &rec->u.memcpy.bytes, &why);
        break;
    default:
        return record_fail(r, err, GCR_E_FORMAT, "unknown record type %u", type);
    }
    return finish_record(r, rec, p, why, err);
}

/* Decodes one record at r->pos (there is at least one byte of payload left). Warp
 * instructions and non-memory counts are nearly every record: they are decoded here, and
 * one more record of the current CTA's run that stays inside the payload is accepted
 * without leaving this function (the stream rules' own fast path). */
static inline int decode_record(struct gcrt_reader *r, struct gcr_record *rec,
                                struct gcr_err *err)
{
    const unsigned char *p = r->pos;
    const char *why = NULL;
    unsigned byte = *p++, type = byte & r->type_mask, code = byte >> GCRT_WAITS_SHIFT;
    if (type == GCR_REC_WARP_INSN) {
        rec->kind = GCR_REC_WARP_INSN;
        struct gcr_warp_insn *in = &rec->u.insn;
        p = decode_insn(p, in, r->lazy_addresses, &why);
        if (__builtin_expect(code != GCRT_WAITS_NONE, 0)) /* never without the header flag */
            p = decode_waits(p, code, r->waits_max, true, 0, &in->waits, &why);
        /* gcr_stream_rules_same_run_ok() for a decoded instruction, minus the
         * checks its encoding makes redundant: op has 2 bits, cache_op 1, and
         * width is a byte plus one. */
        _Static_assert(GCR_OP_COUNT == 4 && GCR_CACHEOP_COUNT == 2 && GCR_MAX_WIDTH == 256,
                       "the fast path below relies on the field widths of decode_insn");
        if (__builtin_expect(p && p <= r->end && r->rules.in_cta_run &&
                                 in->cta == r->rules.run_cta &&
                                 in->warp < r->rules.warps_per_cta &&
                                 in->space < GCR_SPACE_COUNT, 1)) {
            r->pos = p;
            r->left--;
            return 1;
        }
        return finish_record(r, rec, p, why, err);
    } else if (type == GCR_REC_NONMEM) {
        rec->kind = GCR_REC_NONMEM;
        if ((p = get_varint32(p, &rec->u.nonmem.cta, &why)) &&
            (p = get_varint32(p, &rec->u.nonmem.warp, &why)))
            p = get_varint32(p, &rec->u.nonmem.count, &why);
        rec->u.nonmem.waits = 0;
        if (__builtin_expect(code != GCRT_WAITS_NONE, 0))
            p = decode_waits(p, code, r->waits_max, false, rec->u.nonmem.count,
                             &rec->u.nonmem.waits, &why);
    } else {
        return decode_other(r, rec, byte, p, err);
    }
    if (__builtin_expect(p && p <= r->end && r->rules.in_cta_run &&
                             gcr_stream_rules_same_run_ok(&r->rules, rec), 1)) {
        r->pos = p;
        r->left--;
        return 1;
    }
    return finish_record(r, rec, p, why, err);
}

/* The current block is used up: the error seen before, the end, or the next block (1). */
static __attribute__((noinline)) int next_block(struct gcrt_reader *r, struct gcr_err *err)
{
    if (r->failed) {
        if (err)
            *err = r->saved;
        return -1;
    }
    if (r->done)
        return 0;
    if (r->pos != r->end)
        return block_fail(r, err, GCR_E_FORMAT, "%llu unused bytes after its last record",
                          (unsigned long long)(r->end - r->pos));
    if (r->block_records)
        r->block_no++; /* the current block is finished */
    r->block_records = 0;
    return load_block(r, err); /* a loaded block has at least one payload byte */
}

static int gcrt_reader_next(void *state, struct gcr_record *rec, struct gcr_err *err)
{
    struct gcrt_reader *r = state;
    if (__builtin_expect(r->left == 0, 0)) {
        int rc = next_block(r, err);
        if (rc <= 0)
            return rc;
    } else if (__builtin_expect(r->pos >= r->end, 0)) {
        return record_fail(r, err, GCR_E_FORMAT, "block payload ends after %u of its %u records",
                           r->block_records - r->left, r->block_records);
    }
    return decode_record(r, rec, err);
}

/* The loop of gcrt_reader_next_run after its first record: reads records from recs[n] on and
 * returns the number of records read, from n to max. Inline four times, with lazy and waits
 * constants each time, so the test of decode_insn's inline case has one condition less, and so
 * that records without register dependencies are read by the loop that read them before there
 * were any (waits false: a type byte is a type, so a record with dependencies stops it). */
static inline __attribute__((always_inline)) size_t
run_rest(struct gcrt_reader *r, struct gcr_record *recs, size_t n, size_t max, const bool lazy,
         const bool waits)
{
    const unsigned char *p = r->pos;
    const unsigned char *const end = r->end;
    const uint32_t cta = r->rules.run_cta, warps = r->rules.warps_per_cta;
    const uint32_t waits_max = r->waits_max;
    /* The run's CTA id as it is encoded, to compare instead of decoding it: varints are
     * minimal, so the same bytes mean the same id, and other bytes another id or a redundant
     * encoding, which the general path then reads (and refuses) next call. */
    unsigned char enc[8] = {0};
    const unsigned cta_len = (unsigned)(put_varint(enc, cta) - enc); /* 1..5 */
    const uint64_t cta_bytes = get_le64(enc), cta_mask = (UINT64_C(1) << (8 * cta_len)) - 1;
    const size_t first = n;
    /* No p < end test: at the end of the payload the type byte is the zero padding, which
     * ends the loop like any other type would; the CTA bytes read after it are padding too. */
    for (; n < max; n++) {
        struct gcr_record *rec = &recs[n];
        const char *why; /* unused: a failing record is read again, and reported, next call */
        const unsigned char *q;
        if ((get_le64(p + 1) & cta_mask) != cta_bytes)
            break;
        const unsigned code = waits ? *p >> GCRT_WAITS_SHIFT : GCRT_WAITS_NONE;
        const unsigned type = waits ? *p & (0xff >> (8 - GCRT_WAITS_SHIFT)) : *p;
        if (type == GCR_REC_WARP_INSN) {
            q = decode_insn_after_cta(p + 1 + cta_len, &rec->u.insn, lazy, &why);
            if (code != GCRT_WAITS_NONE)
                q = decode_waits(q, code, waits_max, true, 0, &rec->u.insn.waits, &why);
            /* The test of decode_record's fast path (same reasoning about the field widths). */
            if (!(q && q <= end && rec->u.insn.warp < warps &&
                  rec->u.insn.space < GCR_SPACE_COUNT))
                break;
            rec->u.insn.cta = cta;
            rec->kind = GCR_REC_WARP_INSN;
        } else if (type == GCR_REC_NONMEM) {
            struct gcr_nonmem *nm = &rec->u.nonmem;
            if (!(q = get_varint32(p + 1 + cta_len, &nm->warp, &why)) ||
                !(q = get_varint32(q, &nm->count, &why)))
                break;
            nm->waits = 0;
            if (code != GCRT_WAITS_NONE &&
                !(q = decode_waits(q, code, waits_max, false, nm->count, &nm->waits, &why)))
                break;
            if (!(q <= end && nm->warp < warps && nm->count != 0))
                break;
            nm->cta = cta;
            rec->kind = GCR_REC_NONMEM;
        } else {
            break;
        }
        p = q;
    }
    r->pos = p;
    r->left -= (uint32_t)(n - first);
    return n;
}

/* Up to max records of the current CTA's run (format.h, reader_next_run). The first goes through
 * gcrt_reader_next, which loads blocks, starts CTA runs and reports errors; the others are the
 * records that decode_record's fast path would accept, decoded by the same code but with the
 * block position, the run's CTA and its warp count held in locals for the whole loop. The loop
 * stops before any other record (another CTA, a kernel boundary, the end of the block, or a
 * record that fails), which the next call then reads through gcrt_reader_next: so the records,
 * the errors and their order are exactly those of calling gcrt_reader_next max times. */
static int gcrt_reader_next_run(void *state, struct gcr_record *recs, size_t max,
                                struct gcr_err *err)
{
    struct gcrt_reader *r = state;
    int rc = gcrt_reader_next(r, recs, err);
    if (rc != 1 || !r->rules.in_cta_run ||
        (recs[0].kind != GCR_REC_WARP_INSN && recs[0].kind != GCR_REC_NONMEM))
        return rc;
    /* Records left in this block bound the run too: the next block starts with a check. */
    if (max > (size_t)r->left + 1)
        max = (size_t)r->left + 1;
    if (max > INT_MAX)
        max = INT_MAX;
    bool lazy = r->lazy_addresses;
    size_t n = lazy ? run_rest(r, recs, 1, max, true, false) : run_rest(r, recs, 1, max, false, false);
    /* In a file that may carry register dependencies, the first record with some stopped that
     * loop: the rest of the run goes on in the loop that reads them (which stops at once where
     * the first one stopped for another reason). */
    if (r->type_mask != 0xff && n < max)
        n = lazy ? run_rest(r, recs, n, max, true, true) : run_rest(r, recs, n, max, false, true);
    return (int)n;
}

/* Bytes of the file (compressed or not) consumed: what gcr_reader_bytes_total measures. */
static uint64_t gcrt_reader_bytes_done(void *state)
{
    const struct gcrt_reader *r = state;
    return gcr_bytesrc_file_bytes(r->src);
}

/* ---- Writer ------------------------------------------------------------------------------- */

struct gcrt_writer {
    FILE *out;
    char *path;
    int level;
    size_t target; /* flush a block once its payload reaches this size */
    unsigned char *raw;
    size_t raw_len;
    unsigned char *zbuf;
    size_t zcap;
    ZSTD_CCtx *cctx;
    uint32_t block_records;
    uint64_t records; /* records written, including the current block */
    uint64_t blocks;  /* blocks written */
    uint64_t offset;  /* bytes written */
    struct gcr_stream_rules rules; /* the stream written so far */
    bool failed;
};

static int write_bytes(struct gcrt_writer *w, const void *p, size_t n, struct gcr_err *err)
{
    if (n && fwrite(p, 1, n, w->out) != n) {
        w->failed = true;
        return gcr_fail(err, GCR_E_IO, "%s: write failed at byte offset %llu: %s", w->path,
                        (unsigned long long)w->offset, strerror(errno));
    }
    w->offset += n;
    return 0;
}

static void gcrt_writer_close(void *state)
{
    struct gcrt_writer *w = state;
    if (!w)
        return;
    ZSTD_freeCCtx(w->cctx);
    gcr_stream_rules_free(&w->rules);
    free(w->raw);
    free(w->zbuf);
    free(w->path);
    free(w);
}

static int gcrt_writer_open(void **state, FILE *out, const char *path,
                            const struct gcr_write_opts *opts, struct gcr_err *err)
{
    *state = NULL;
    if (!path)
        path = "(output)";
    struct gcr_write_opts o = GCR_WRITE_OPTS_DEFAULT;
    if (opts)
        o = *opts;
    if (o.compression_level < 0 || o.compression_level > ZSTD_maxCLevel())
        return gcr_fail(err, GCR_E_USAGE, "%s: compression level %d outside 0..%d", path,
                        o.compression_level, ZSTD_maxCLevel());
    size_t target = o.block_bytes ? o.block_bytes : GCRT_DEFAULT_BLOCK_BYTES;
    /* A block is flushed once it reaches target, so it can exceed it by one record. */
    if (target > GCRT_MAX_PAYLOAD - GCRT_MAX_RECORD)
        target = GCRT_MAX_PAYLOAD - GCRT_MAX_RECORD;

    struct gcrt_writer *w = calloc(1, sizeof *w);
    if (!w)
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    w->out = out;
    w->level = o.compression_level;
    w->target = target;
    w->path = strdup(path);
    w->raw = malloc(target + GCRT_MAX_RECORD);
    if (w->level > 0) {
        w->zcap = ZSTD_compressBound(target + GCRT_MAX_RECORD);
        w->zbuf = malloc(w->zcap);
        w->cctx = ZSTD_createCCtx();
    }
    if (!w->path || !w->raw || (w->level > 0 && (!w->zbuf || !w->cctx))) {
        gcrt_writer_close(w);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }

    unsigned char h[GCRT_HEADER_BYTES] = {0};
    memcpy(h, gcrt_magic, sizeof gcrt_magic);
    put_le16(h + 8, GCRT_VERSION_MAJOR);
    put_le16(h + 10, GCRT_VERSION_MINOR);
    put_le32(h + 12, GCRT_BYTE_ORDER_MARK);
    put_le32(h + 16, GCRT_HEADER_BYTES);
    /* flags: records may carry register dependencies, non-memory ones and units included */
    put_le32(h + 20, GCRT_FLAG_WAITS | GCRT_FLAG_ALU);
    put_le32(h + 24, 0); /* reserved */
    put_le32(h + 28, crc32_of(h, 28));
    if (write_bytes(w, h, sizeof h, err) < 0) {
        gcrt_writer_close(w);
        return -1;
    }
    *state = w;
    return 0;
}

static int flush_block(struct gcrt_writer *w, struct gcr_err *err)
{
    if (w->block_records == 0)
        return 0;
    const unsigned char *payload = w->raw;
    size_t stored = w->raw_len;
    unsigned codec = GCRT_CODEC_NONE;
    if (w->level > 0) {
        size_t n = ZSTD_compressCCtx(w->cctx, w->zbuf, w->zcap, w->raw, w->raw_len, w->level);
        if (ZSTD_isError(n)) {
            w->failed = true;
            return gcr_fail(err, GCR_E_INTERNAL, "%s: zstd compression failed: %s", w->path,
                            ZSTD_getErrorName(n));
        }
        if (n < w->raw_len) { /* keep the raw payload unless compression actually helps */
            payload = w->zbuf;
            stored = n;
            codec = GCRT_CODEC_ZSTD;
        }
    }
    unsigned char h[GCRT_BLOCK_HEADER_BYTES] = {0};
    memcpy(h, block_magic, 4);
    h[4] = (unsigned char)codec;
    put_le32(h + 8, (uint32_t)w->blocks);
    put_le32(h + 12, (uint32_t)stored);
    put_le32(h + 16, (uint32_t)w->raw_len);
    put_le32(h + 20, w->block_records);
    put_le64(h + 24, w->records - w->block_records);
    put_le32(h + 32, crc32_of(payload, stored));
    put_le32(h + 36, crc32_of(h, 36));
    if (write_bytes(w, h, sizeof h, err) < 0 || write_bytes(w, payload, stored, err) < 0)
        return -1;
    w->blocks++;
    w->block_records = 0;
    w->raw_len = 0;
    return 0;
}

/* The dependency code of a record's type byte for its waits (README.md, section 6.3). */
static inline unsigned waits_code(uint32_t waits)
{
    return waits == 0                 ? GCRT_WAITS_NONE
           : waits == GCR_WAITS_KNOWN ? GCRT_WAITS_NOTHING
                                      : GCRT_WAITS_EXPLICIT;
}

/* The type byte of a warp instruction or non-memory run. */
static inline unsigned char type_byte(enum gcr_rec_kind kind, uint32_t waits)
{
    return (unsigned char)(kind | waits_code(waits) << GCRT_WAITS_SHIFT);
}

/* The explicit register dependencies that follow a record's other fields (end: the position
 * after them), if its code says so. */
static inline unsigned char *encode_waits(unsigned char *end, uint32_t waits)
{
    if (waits_code(waits) != GCRT_WAITS_EXPLICIT)
        return end;
    /* (alu_unit << 17) | (window << 1) | barrier: bits 0..28 of waits, shifted by one. */
    const uint32_t bits = GCR_WAITS_UNIT_MASK | GCR_WAITS_ALU_MASK | GCR_WAITS_MASK;
    return put_varint(end, (uint64_t)(waits & bits) << 1 | (waits & GCR_WAITS_BARRIER ? 1 : 0));
}

static unsigned char *encode_insn(unsigned char *p, const struct gcr_warp_insn *in)
{
    uint64_t base;
    int64_t stride;
    uint32_t mask = in->active_mask;
    *p++ = type_byte(GCR_REC_WARP_INSN, in->waits);
    p = put_varint(p, in->cta);
    p = put_varint(p, in->warp);
    p = put_varint(p, in->pc);
    unsigned char *info = p;
    *p++ = (unsigned char)(in->op | (in->space << 2) | (in->cache_op << 5));
    *p++ = (unsigned char)(in->width - 1);
    put_le32(p, mask);
    p += 4;
    if (mask == 0)
        return encode_waits(p, in->waits);
    if (gcr_insn_stride(in, &base, &stride)) {
        *info |= GCRT_ADDR_STRIDE << 6;
        p = put_varint(p, base);
        return encode_waits(put_varint(p, zigzag_encode(stride)), in->waits);
    }
    /* Deltas first; an explicit list only when it is strictly smaller (e.g. addresses that
     * jump between distant regions, where deltas are as large as the addresses). */
    unsigned char *start = p;
    uint32_t m = mask;
    uint64_t prev = in->addr[__builtin_ctz(m)];
    size_t list_len = varint_len(prev);
    p = put_varint(p, prev);
    for (m &= m - 1; m; m &= m - 1) {
        uint64_t a = in->addr[__builtin_ctz(m)];
        p = put_varint(p, zigzag_encode((int64_t)(a - prev)));
        list_len += varint_len(a);
        prev = a;
    }
    if (list_len < (size_t)(p - start)) {
        p = start;
        for (m = mask; m; m &= m - 1)
            p = put_varint(p, in->addr[__builtin_ctz(m)]);
        *info |= GCRT_ADDR_LIST << 6;
    } else {
        *info |= GCRT_ADDR_DELTAS << 6;
    }
    return encode_waits(p, in->waits);
}

/* The writer refuses what the reader would reject, so it never produces an unreadable file: the
 * stream rules every format shares, and this format's limit on name lengths (checked first, so
 * that a record refused for it leaves the stream rules untouched). */
static int write_check(struct gcrt_writer *w, const struct gcr_record *rec, struct gcr_err *err)
{
    char why[GCR_ERR_MSG_MAX / 2];
    enum gcr_status st;
    uint32_t waits = rec->kind == GCR_REC_WARP_INSN ? rec->u.insn.waits
                     : rec->kind == GCR_REC_NONMEM  ? rec->u.nonmem.waits
                                                    : 0;
    const char *bad;
    if (rec->kind == GCR_REC_KERNEL_BEGIN && rec->u.kbegin.name &&
        strlen(rec->u.kbegin.name) > GCRT_MAX_NAME) {
        snprintf(why, sizeof why, "kernel name longer than %u bytes", GCRT_MAX_NAME);
        st = GCR_E_FORMAT;
    } else if (waits_code(waits) == GCRT_WAITS_EXPLICIT && (bad = gcr_record_invalid(rec, NULL))) {
        /* The stream rules' fast path leaves register dependencies unchecked. */
        snprintf(why, sizeof why, "%s", bad);
        st = GCR_E_FORMAT;
    } else {
        st = gcr_stream_rules_apply(&w->rules, rec, why, sizeof why);
    }
    if (st != GCR_OK)
        return gcr_fail(err, st, "%s: record %llu: cannot write: %s", w->path,
                        (unsigned long long)w->records, why);
    return 0;
}

static int gcrt_writer_write(void *state, const struct gcr_record *rec, struct gcr_err *err)
{
    struct gcrt_writer *w = state;
    if (w->failed)
        return gcr_fail(err, GCR_E_IO, "%s: write after an earlier write error", w->path);
    if (write_check(w, rec, err) < 0)
        return -1;
    unsigned char *p = w->raw + w->raw_len;
    switch (rec->kind) {
    case GCR_REC_WARP_INSN:
        p = encode_insn(p, &rec->u.insn);
        break;
    case GCR_REC_NONMEM:
        *p++ = type_byte(GCR_REC_NONMEM, rec->u.nonmem.waits);
        p = put_varint(p, rec->u.nonmem.cta);
        p = put_varint(p, rec->u.nonmem.warp);
        p = put_varint(p, rec->u.nonmem.count);
        p = encode_waits(p, rec->u.nonmem.waits);
        break;
    case GCR_REC_KERNEL_BEGIN: {
        const struct gcr_kernel_begin *k = &rec->u.kbegin;
        size_t len = strlen(k->name);
        *p++ = GCR_REC_KERNEL_BEGIN;
        p = put_varint(p, k->id);
        for (int i = 0; i < 3; i++)
            p = put_varint(p, k->grid[i]);
        for (int i = 0; i < 3; i++)
            p = put_varint(p, k->block[i]);
        p = put_varint(p, k->shmem_bytes);
        p = put_varint(p, k->regs_per_thread);
        p = put_varint(p, len);
        memcpy(p, k->name, len);
        p += len;
        break;
    }
    case GCR_REC_KERNEL_END:
        *p++ = GCR_REC_KERNEL_END;
        p = put_varint(p, rec->u.kend.id);
        break;
    case GCR_REC_MEMCPY:
        *p++ = GCR_REC_MEMCPY;
        p = put_varint(p, rec->u.memcpy.dst);
        p = put_varint(p, rec->u.memcpy.bytes);
        break;
    }
    w->raw_len = (size_t)(p - w->raw);
    w->block_records++;
    w->records++;
    if (w->raw_len >= w->target)
        return flush_block(w, err);
    return 0;
}

static int gcrt_writer_finish(void *state, struct gcr_err *err)
{
    struct gcrt_writer *w = state;
    if (w->failed)
        return gcr_fail(err, GCR_E_IO, "%s: cannot finish after an earlier write error",
                        w->path);
    char why[GCR_ERR_MSG_MAX / 2];
    enum gcr_status st = gcr_stream_rules_finish(&w->rules, why, sizeof why);
    if (st != GCR_OK)
        return gcr_fail(err, st, "%s: %s", w->path, why);
    if (flush_block(w, err) < 0)
        return -1;
    unsigned char t[GCRT_TRAILER_BYTES] = {0};
    memcpy(t, trailer_magic, 4);
    put_le32(t + 4, 0); /* reserved */
    put_le64(t + 8, w->records);
    put_le64(t + 16, w->blocks);
    put_le32(t + 24, crc32_of(t, 24));
    if (write_bytes(w, t, sizeof t, err) < 0)
        return -1;
    if (fflush(w->out) != 0 || ferror(w->out)) {
        w->failed = true;
        return gcr_fail(err, GCR_E_IO, "%s: write failed: %s", w->path, strerror(errno));
    }
    return 0;
}

/* ---- Registration ---------------------------------------------------------------------------- */

static int gcrt_probe(const struct gcr_files *files, const char *path, const unsigned char *head,
                      size_t len)
{
    (void)files;
    (void)path;
    return len >= GCRT_MAGIC_BYTES && memcmp(head, gcrt_magic, GCRT_MAGIC_BYTES) == 0;
}

static void gcrt_reader_set_lazy_addresses(void *state, bool lazy)
{
    ((struct gcrt_reader *)state)->lazy_addresses = lazy;
}

/* Facts for `gcreplay info`, once the trace has been read. */
static void gcrt_reader_describe(void *state, json_t *info)
{
    struct gcrt_reader *r = state;
    char version[16];
    snprintf(version, sizeof version, "%u.%u", r->version_major, r->version_minor);
    json_object_set_new(info, "version", json_string(version));
    json_object_set_new(info, "byte_order", json_string("little-endian"));
    json_object_set_new(info, "blocks", json_integer((json_int_t)(r->blocks_zstd + r->blocks_raw)));
    json_object_set_new(info, "blocks_zstd", json_integer((json_int_t)r->blocks_zstd));
    json_object_set_new(info, "blocks_uncompressed", json_integer((json_int_t)r->blocks_raw));
    json_object_set_new(info, "records", json_integer((json_int_t)r->records));
    json_object_set_new(info, "uncompressed_payload_bytes",
                        json_integer((json_int_t)r->payload_raw_bytes));
}

const struct gcr_trace_format gcr_format_gcrt = {
    .name = "gcrt",
    .summary = "native binary trace: checksummed blocks of compact records, optionally zstd",
    .extension = ".gcrt",
    .sets_stride_hint = true,
    .reader_describe = gcrt_reader_describe,
    .reader_set_lazy_addresses = gcrt_reader_set_lazy_addresses,
    .probe = gcrt_probe,
    .reader_open = gcrt_reader_open,
    .reader_next = gcrt_reader_next,
    .reader_next_run = gcrt_reader_next_run,
    .reader_bytes_done = gcrt_reader_bytes_done,
    .reader_close = gcrt_reader_close,
    .writer_open = gcrt_writer_open,
    .writer_write = gcrt_writer_write,
    .writer_finish = gcrt_writer_finish,
    .writer_close = gcrt_writer_close,
};
