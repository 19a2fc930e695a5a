/* In-memory compression for tests of what reads compressed input (src/io/bytesrc.h): a
 * growable byte buffer and one function per codec appending a compressed copy to it. */
#ifndef GCR_TESTS_COMPRESS_UTIL_H
#define GCR_TESTS_COMPRESS_UTIL_H

#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "io/bytesrc.h"

struct buf {
    unsigned char *p;
    size_t len, cap;
};

static inline void buf_add(struct buf *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            exit(2);
    }
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
}

/* A gzip member of the bytes at a zlib level (0 stores them: a 10-byte header, 5-byte stored
 * block headers, the bytes, an 8-byte trailer), with no name or time in its header, so the same
 * bytes every time. */
static inline void gzip_level_into(struct buf *out, const unsigned char *data, size_t len,
                                   int level)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        exit(2);
    size_t cap = deflateBound(&z, (uLong)len) + 64;
    unsigned char *tmp = malloc(cap);
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)len;
    z.next_out = tmp;
    z.avail_out = (uInt)cap;
    if (!tmp || deflate(&z, Z_FINISH) != Z_STREAM_END)
        exit(2);
    buf_add(out, tmp, cap - z.avail_out);
    deflateEnd(&z);
    free(tmp);
}

static inline void gzip_into(struct buf *out, const unsigned char *data, size_t len)
{
    gzip_level_into(out, data, len, 6);
}

static inline void xz_into(struct buf *out, const unsigned char *data, size_t len)
{
    size_t cap = lzma_stream_buffer_bound(len), pos = 0;
    unsigned char *tmp = malloc(cap);
    if (!tmp || lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, data, len, tmp, &pos, cap) !=
                    LZMA_OK)
        exit(2);
    buf_add(out, tmp, pos);
    free(tmp);
}

static inline void zstd_into(struct buf *out, const unsigned char *data, size_t len)
{
    size_t cap = ZSTD_compressBound(len);
    unsigned char *tmp = malloc(cap);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    if (!tmp || !c)
        exit(2);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    size_t n = ZSTD_compress2(c, tmp, cap, data, len);
    if (ZSTD_isError(n))
        exit(2);
    buf_add(out, tmp, n);
    ZSTD_freeCCtx(c);
    free(tmp);
}

typedef void (*compress_fn)(struct buf *, const unsigned char *, size_t);

static const struct {
    const char *ext;
    compress_fn fn;
    enum gcr_codec codec;
} codecs[] = {
    {"gz", gzip_into, GCR_CODEC_GZIP},
    {"xz", xz_into, GCR_CODEC_XZ},
    {"zst", zstd_into, GCR_CODEC_ZSTD},
};

#endif
