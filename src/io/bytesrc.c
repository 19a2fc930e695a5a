/* Byte sources (plain, xz, gzip, zstd) and the line reader; see bytesrc.h. */
#include "io/bytesrc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* Compressed input is read in chunks of this size; plain content goes straight into the
 * caller's buffer instead. */
#define IN_CHUNK (256u * 1024u)
/* The line reader's initial buffer; it doubles for longer lines. Small enough that a chunk is
 * still in the core's cache when it is parsed, large enough that refills are rare. */
#define LINE_BUF_START (256u * 1024u)
/* Memory the threaded xz decoder may use for blocks in flight; beyond it, it decodes in the
 * calling thread. Bounds memory whatever the block size of the file. */
#define XZ_THREAD_MEMLIMIT (256ull << 20)

static const char *const codec_names[GCR_CODEC_COUNT] = {"none", "gzip", "xz", "zstd"};

const char *gcr_codec_name(enum gcr_codec codec)
{
    return (unsigned)codec < GCR_CODEC_COUNT ? codec_names[codec] : "?";
}

enum gcr_codec gcr_codec_detect(const unsigned char *head, size_t len)
{
    static const unsigned char xz[6] = {0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00};
    static const unsigned char gz[2] = {0x1F, 0x8B};
    static const unsigned char zs[4] = {0x28, 0xB5, 0x2F, 0xFD};
    if (len >= sizeof xz && memcmp(head, xz, sizeof xz) == 0)
        return GCR_CODEC_XZ;
    if (len >= sizeof gz && memcmp(head, gz, sizeof gz) == 0)
        return GCR_CODEC_GZIP;
    if (len >= sizeof zs && memcmp(head, zs, sizeof zs) == 0)
        return GCR_CODEC_ZSTD;
    return GCR_CODEC_NONE;
}

struct gcr_bytesrc {
    int fd;                   /* -1 for a file held in memory */
    const unsigned char *mem; /* the bytes of a file held in memory, mem_size of them */
    size_t mem_size;
    char *path;
    enum gcr_codec codec;
    unsigned char *in; /* compressed input, or the plain bytes read while detecting */
    size_t in_pos, in_len;
    bool in_eof;        /* the file has no more bytes */
    uint64_t file_read; /* bytes read from the file so far */
    uint64_t content;   /* bytes delivered so far */
    bool done;          /* the content has ended */
    bool failed;        /* err holds the (final) error */
    struct gcr_err err;
    /* Decoder state of the codec in use. */
    z_stream z;
    bool z_ready, z_in_member;
    lzma_stream x;
    bool x_ready;
    ZSTD_DCtx *zd;
    size_t zd_last; /* last ZSTD_decompressStream result: 0 at a frame boundary */
    uint64_t zd_frame; /* file offset where the frame being decoded starts */
};

/* Records the error once; every later call returns it. */
static ptrdiff_t src_fail(struct gcr_bytesrc *s, struct gcr_err *err, enum gcr_status st,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static ptrdiff_t src_fail(struct gcr_bytesrc *s, struct gcr_err *err, enum gcr_status st,
                          const char *fmt, ...)
{
    char what[GCR_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    s->failed = true;
    gcr_fail(&s->err, st, "%s: %s", s->path, what);
    if (err)
        *err = s->err;
    return -1;
}

static uint64_t file_consumed(const struct gcr_bytesrc *s)
{
    return s->file_read - (uint64_t)(s->in_len - s->in_pos);
}

/* The file's next bytes: read(2), retried after signals, or a copy of those held in memory.
 * Returns the number read, 0 at the end, -1 with errno. */
static ssize_t read_some(struct gcr_bytesrc *s, void *buf, size_t cap)
{
    if (!s->mem) {
        ssize_t n;
        do
            n = read(s->fd, buf, cap);
        while (n < 0 && errno == EINTR);
        return n;
    }
    size_t left = s->mem_size - (size_t)s->file_read;
    size_t n = left < cap ? left : cap;
    if (n > SSIZE_MAX)
        n = SSIZE_MAX;
    memcpy(buf, s->mem + s->file_read, n);
    return (ssize_t)n;
}

/* Refills the compressed input buffer when it is empty. */
static int fill_input(struct gcr_bytesrc *s, struct gcr_err *err)
{
    if (s->in_pos < s->in_len || s->in_eof)
        return 0;
    ssize_t n = read_some(s, s->in, IN_CHUNK);
    if (n < 0)
        return (int)src_fail(s, err, GCR_E_IO, "read error at byte offset %" PRIu64 ": %s",
                             s->file_read, strerror(errno));
    s->in_pos = 0;
    s->in_len = (size_t)n;
    s->file_read += (uint64_t)n;
    if (n == 0)
        s->in_eof = true;
    return 0;
}

static ptrdiff_t read_plain(struct gcr_bytesrc *s, unsigned char *buf, size_t cap,
                            struct gcr_err *err)
{
    /* Small reads (a binary format's headers) go through the input buffer, one read(2) per
     * chunk rather than per call; large ones straight into the caller's buffer. */
    if (s->in_pos == s->in_len && cap < IN_CHUNK / 4 && fill_input(s, err) != 0)
        return -1;
    if (s->in_pos < s->in_len) { /* bytes read ahead: for a magic number, or buffered */
        size_t n = s->in_len - s->in_pos;
        if (n > cap)
            n = cap;
        memcpy(buf, s->in + s->in_pos, n);
        s->in_pos += n;
        return (ptrdiff_t)n;
    }
    if (s->in_eof)
        return 0;
    ssize_t n = read_some(s, buf, cap);
    if (n < 0)
        return src_fail(s, err, GCR_E_IO, "read error at byte offset %" PRIu64 ": %s",
                        s->file_read, strerror(errno));
    s->file_read += (uint64_t)n;
    if (n == 0)
        s->in_eof = true;
    return n;
}

/* gzip: members follow each other until the file ends; anything else after a member is an
 * error (gzip(1) only warns about trailing bytes, but a trace with junk appended is damaged). */
static ptrdiff_t read_gzip(struct gcr_bytesrc *s, unsigned char *buf, size_t cap,
                           struct gcr_err *err)
{
    if (cap > UINT_MAX)
        cap = UINT_MAX;
    s->z.next_out = buf;
    s->z.avail_out = (uInt)cap;
    while (s->z.avail_out == cap) {
        if (fill_input(s, err) != 0)
            return -1;
        if (s->in_pos == s->in_len) {
            if (s->z_in_member)
                return src_fail(s, err, GCR_E_TRUNCATED,
                                "truncated gzip data: the file ends at byte offset %" PRIu64
                                " inside a member", s->file_read);
            s->done = true;
            break;
        }
        s->z.next_in = s->in + s->in_pos;
        s->z.avail_in = (uInt)(s->in_len - s->in_pos);
        s->z_in_member = true;
        int rc = inflate(&s->z, Z_NO_FLUSH);
        s->in_pos = s->in_len - s->z.avail_in;
        if (rc == Z_STREAM_END) {
            s->z_in_member = false;
            inflateReset(&s->z);
        } else if (rc == Z_MEM_ERROR) {
            return src_fail(s, err, GCR_E_NOMEM, "out of memory decompressing gzip data");
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            return src_fail(s, err, GCR_E_FORMAT,
                            "corrupt gzip data at compressed byte offset %" PRIu64 ": %s",
                            file_consumed(s), s->z.msg ? s->z.msg : "invalid data");
        }
    }
    return (ptrdiff_t)(cap - s->z.avail_out);
}

static const char *lzma_what(lzma_ret rc)
{
    switch (rc) {
    case LZMA_FORMAT_ERROR: return "not in the xz format";
    case LZMA_OPTIONS_ERROR: return "unsupported compression options";
    case LZMA_DATA_ERROR: return "compressed data is corrupt";
    case LZMA_UNSUPPORTED_CHECK: return "unsupported integrity check";
    case LZMA_MEMLIMIT_ERROR: return "memory limit reached";
    default: return "decoder error";
    }
}

static ptrdiff_t read_xz(struct gcr_bytesrc *s, unsigned char *buf, size_t cap,
                         struct gcr_err *err)
{
    s->x.next_out = buf;
    s->x.avail_out = cap;
    while (s->x.avail_out == cap && !s->done) {
        if (fill_input(s, err) != 0)
            return -1;
        s->x.next_in = s->in + s->in_pos;
        s->x.avail_in = s->in_len - s->in_pos;
        lzma_ret rc = lzma_code(&s->x, s->in_eof ? LZMA_FINISH : LZMA_RUN);
        s->in_pos = s->in_len - s->x.avail_in;
        if (rc == LZMA_STREAM_END) {
            s->done = true;
        } else if (rc == LZMA_MEM_ERROR) {
            return src_fail(s, err, GCR_E_NOMEM, "out of memory decompressing xz data");
        } else if (rc == LZMA_BUF_ERROR && s->in_eof) {
            return src_fail(s, err, GCR_E_TRUNCATED,
                            "truncated xz data: the file ends at byte offset %" PRIu64
                            " inside a stream", s->file_read);
        } else if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
            return src_fail(s, err, GCR_E_FORMAT,
                            "corrupt xz data at compressed byte offset %" PRIu64 ": %s",
                            file_consumed(s), lzma_what(rc));
        }
    }
    return (ptrdiff_t)(cap - s->x.avail_out);
}

static ptrdiff_t read_zstd(struct gcr_bytesrc *s, unsigned char *buf, size_t cap,
                           struct gcr_err *err)
{
    ZSTD_outBuffer out = {buf, cap, 0};
    while (out.pos == 0 && !s->done) {
        if (fill_input(s, err) != 0)
            return -1;
        bool at_end = s->in_pos == s->in_len;
        if (at_end && s->zd_last == 0) { /* the last frame is complete */
            s->done = true;
            break;
        }
        if (s->zd_last == 0)
            s->zd_frame = file_consumed(s);
        /* At the end of the file the decoder may still hold output to flush. */
        ZSTD_inBuffer in = {s->in, s->in_len, s->in_pos};
        size_t rc = ZSTD_decompressStream(s->zd, &out, &in);
        s->in_pos = in.pos;
        /* zstd takes input a buffer at a time and does not say where in it the damage is: the
         * frame it belongs to, and how far the file had been read, place it. */
        if (ZSTD_isError(rc))
            return src_fail(s, err, GCR_E_FORMAT,
                            "corrupt zstd data in the frame that starts at compressed byte "
                            "offset %" PRIu64 " (found with the file read to byte offset %"
                            PRIu64 "): %s", s->zd_frame, s->file_read, ZSTD_getErrorName(rc));
        s->zd_last = rc;
        if (at_end && out.pos == 0)
            return src_fail(s, err, GCR_E_TRUNCATED,
                            "truncated zstd data: the file ends at byte offset %" PRIu64
                            " inside a frame", s->file_read);
    }
    return (ptrdiff_t)out.pos;
}

ptrdiff_t gcr_bytesrc_read(struct gcr_bytesrc *s, void *buf, size_t cap, struct gcr_err *err)
{
    if (s->failed) {
        if (err)
            *err = s->err;
        return -1;
    }
    if (cap == 0 || (s->done && s->codec != GCR_CODEC_NONE))
        return 0;
    ptrdiff_t n;
    switch (s->codec) {
    case GCR_CODEC_GZIP: n = read_gzip(s, buf, cap, err); break;
    case GCR_CODEC_XZ: n = read_xz(s, buf, cap, err); break;
    case GCR_CODEC_ZSTD: n = read_zstd(s, buf, cap, err); break;
    default: n = read_plain(s, buf, cap, err); break;
    }
    if (n > 0)
        s->content += (uint64_t)n;
    return n;
}

void gcr_bytesrc_close(struct gcr_bytesrc *s)
{
    if (!s)
        return;
    if (s->z_ready)
        inflateEnd(&s->z);
    if (s->x_ready)
        lzma_end(&s->x);
    ZSTD_freeDCtx(s->zd);
    if (s->fd >= 0)
        close(s->fd);
    free(s->in);
    free(s->path);
    free(s);
}

static int start_decoder(struct gcr_bytesrc *s, struct gcr_err *err)
{
    switch (s->codec) {
    case GCR_CODEC_GZIP:
        /* 16 + MAX_WBITS: gzip wrapper only; a zlib or raw stream is corrupt data here. */
        if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK)
            return (int)src_fail(s, err, GCR_E_NOMEM, "cannot start the gzip decoder");
        s->z_ready = true;
        return 0;
    case GCR_CODEC_XZ: {
        const lzma_stream init = LZMA_STREAM_INIT;
        s->x = init;
#if LZMA_VERSION >= 50040002
        /* One worker thread decodes blocks while the caller parses the previous ones: the
         * tracer writes `xz -T0` files of independent blocks, and this halves the wall time
         * of reading them on two cores. Files of one block decode the same, in the worker. */
        lzma_mt mt;
        memset(&mt, 0, sizeof mt);
        mt.flags = LZMA_CONCATENATED;
        mt.threads = 1;
        mt.memlimit_threading = XZ_THREAD_MEMLIMIT;
        mt.memlimit_stop = UINT64_MAX;
        lzma_ret rc = lzma_stream_decoder_mt(&s->x, &mt);
#else
        lzma_ret rc = lzma_stream_decoder(&s->x, UINT64_MAX, LZMA_CONCATENATED);
#endif
        if (rc != LZMA_OK)
            return (int)src_fail(s, err, GCR_E_NOMEM, "cannot start the xz decoder");
        s->x_ready = true;
        return 0;
    }
    case GCR_CODEC_ZSTD:
        if (!(s->zd = ZSTD_createDCtx()))
            return (int)src_fail(s, err, GCR_E_NOMEM, "cannot start the zstd decoder");
        return 0;
    default:
        return 0;
    }
}

/* Opens path in the file system. Returns 0, or -1 with errno (EISDIR for a directory). */
static int open_file(struct gcr_bytesrc *s, const char *path)
{
    if ((s->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    struct stat st;
    if (fstat(s->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    return 0;
}

/* Finds path in a set of files held in memory. Returns 0, or -1 with errno EISDIR for a
 * directory of the set or ENOENT. */
static int open_memory(struct gcr_bytesrc *s, const struct gcr_files *files, const char *path)
{
    const struct gcr_memfile *f = gcr_files_find(files, path);
    if (!f) {
        struct stat st;
        errno = gcr_files_stat(files, path, &st) == 0 ? EISDIR : ENOENT;
        return -1;
    }
    s->mem = f->size ? f->data : (const unsigned char *)""; /* never NULL, for memcpy */
    s->mem_size = f->size;
    return 0;
}

int gcr_bytesrc_open(struct gcr_bytesrc **out, const struct gcr_files *files, const char *path,
                     struct gcr_err *err)
{
    *out = NULL;
    struct gcr_bytesrc *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path)) || !(s->in = malloc(IN_CHUNK))) {
        if (s)
            free(s->path);
        free(s);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }
    s->fd = -1;
    if ((files ? open_memory(s, files, path) : open_file(s, path)) != 0) {
        int e = errno;
        gcr_bytesrc_close(s);
        if (e == EISDIR)
            return gcr_fail(err, GCR_E_IO, "%s: is a directory, not a file", path);
        return gcr_fail(err, GCR_E_IO, "%s: cannot open: %s", path, strerror(e));
    }
    /* The longest magic number is 6 bytes; a shorter file is plain. */
    while (s->in_len < 6 && !s->in_eof) {
        ssize_t n = read_some(s, s->in + s->in_len, IN_CHUNK - s->in_len);
        if (n < 0) {
            int e = errno;
            uint64_t at = s->file_read;
            gcr_bytesrc_close(s);
            return gcr_fail(err, GCR_E_IO, "%s: read error at byte offset %" PRIu64 ": %s",
                            path, at, strerror(e));
        }
        s->in_len += (size_t)n;
        s->file_read += (uint64_t)n;
        s->in_eof = n == 0;
    }
    s->codec = gcr_codec_detect(s->in, s->in_len);
    if (start_decoder(s, err) != 0) {
        gcr_bytesrc_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

enum gcr_codec gcr_bytesrc_codec(const struct gcr_bytesrc *s) { return s->codec; }
uint64_t gcr_bytesrc_file_bytes(const struct gcr_bytesrc *s) { return file_consumed(s); }
uint64_t gcr_bytesrc_content_bytes(const struct gcr_bytesrc *s) { return s->content; }

size_t gcr_bytesrc_peek(const struct gcr_files *files, const char *path, void *buf, size_t cap)
{
    struct gcr_bytesrc *s;
    size_t got = 0;
    if (gcr_bytesrc_open(&s, files, path, NULL) != 0)
        return 0;
    while (got < cap) {
        ptrdiff_t n = gcr_bytesrc_read(s, (unsigned char *)buf + got, cap - got, NULL);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    gcr_bytesrc_close(s);
    return got;
}

/* ---- Line reader ---------------------------------------------------------------------------- */

struct gcr_lines {
    struct gcr_bytesrc *src;
    char *buf;
    size_t cap;
    size_t start; /* first byte of the next line */
    size_t scan;  /* bytes after start already known to hold no newline */
    size_t end;   /* end of the buffered content */
    bool eof;
    bool ended_inside; /* the last line returned had no line end (set once, at the end) */
    uint64_t number;
};

int gcr_lines_open(struct gcr_lines **out, const struct gcr_files *files, const char *path,
                   struct gcr_err *err)
{
    *out = NULL;
    struct gcr_lines *l = calloc(1, sizeof *l);
    if (!l || !(l->buf = malloc(LINE_BUF_START))) {
        free(l);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }
    l->cap = LINE_BUF_START;
    if (gcr_bytesrc_open(&l->src, files, path, err) != 0) {
        free(l->buf);
        free(l);
        return -1;
    }
    *out = l;
    return 0;
}

/* Returns the line of len bytes at start, without a final '\r', and puts the '\n' sentinel
 * after it (bytesrc.h). */
static void emit(struct gcr_lines *l, struct gcr_line *line, size_t len)
{
    char *text = l->buf + l->start;
    if (len && text[len - 1] == '\r')
        len--;
    text[len] = '\n';
    line->text = text;
    line->len = len;
    line->number = ++l->number;
}

/* A line longer than GCR_MAX_LINE_BYTES, starting at l->start (bytesrc.h). */
static int line_too_long(const struct gcr_lines *l, struct gcr_err *err) __attribute__((cold));
static int line_too_long(const struct gcr_lines *l, struct gcr_err *err)
{
    uint64_t offset = gcr_bytesrc_content_bytes(l->src) - (l->end - l->start);
    return gcr_fail(err, GCR_E_FORMAT, "%s:%" PRIu64 ": line longer than %u bytes (from byte "
                    "offset %" PRIu64 "%s): not a line of a text trace", l->src->path,
                    l->number + 1, GCR_MAX_LINE_BYTES, offset,
                    l->src->codec == GCR_CODEC_NONE ? "" : " of the decompressed content");
}

int gcr_lines_next(struct gcr_lines *l, struct gcr_line *line, struct gcr_err *err)
{
    for (;;) {
        size_t from = l->start + l->scan;
        const char *nl = memchr(l->buf + from, '\n', l->end - from);
        if (nl) {
            size_t len = (size_t)(nl - (l->buf + l->start));
            if (__builtin_expect(len > GCR_MAX_LINE_BYTES, 0))
                return line_too_long(l, err);
            emit(l, line, len);
            l->start += len + 1;
            l->scan = 0;
            return 1;
        }
        l->scan = l->end - l->start;
        if (l->scan > GCR_MAX_LINE_BYTES) /* before the buffer grows any further */
            return line_too_long(l, err);
        if (l->eof) {
            if (l->end == l->start)
                return 0;
            emit(l, line, l->end - l->start); /* a last line without a newline */
            l->ended_inside = true;
            l->start = l->end;
            l->scan = 0;
            return 1;
        }
        /* Keep the partial line, then append more content after it. */
        if (l->start > 0) {
            memmove(l->buf, l->buf + l->start, l->end - l->start);
            l->end -= l->start;
            l->start = 0;
        }
        if (l->end + 1 >= l->cap) { /* one byte stays free for the last line's sentinel */
            size_t cap = l->cap * 2;
            char *b = cap > l->cap ? realloc(l->buf, cap) : NULL;
            if (!b)
                return gcr_fail(err, GCR_E_NOMEM, "%s:%" PRIu64 ": out of memory for a line of "
                                "more than %zu bytes", l->src->path, l->number + 1, l->cap);
            l->buf = b;
            l->cap = cap;
        }
        ptrdiff_t n = gcr_bytesrc_read(l->src, l->buf + l->end, l->cap - l->end - 1, err);
        if (n < 0)
            return -1;
        if (n == 0)
            l->eof = true;
        l->end += (size_t)n;
    }
}

const struct gcr_bytesrc *gcr_lines_source(const struct gcr_lines *l) { return l->src; }
bool gcr_lines_ended_inside(const struct gcr_lines *l) { return l->ended_inside; }

void gcr_lines_close(struct gcr_lines *l)
{
    if (!l)
        return;
    gcr_bytesrc_close(l->src);
    free(l->buf);
    free(l);
}
