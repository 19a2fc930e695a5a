/* Streaming byte sources and a line reader on top of them.
 *
 * A byte source opens a file, from the file system or from memory (files.h: files NULL is the
 * file system), and delivers its content: the bytes themselves, or, when the file
 * starts with the magic bytes of xz (FD 37 7A 58 5A 00), gzip (1F 8B) or zstd (28 B5 2F FD),
 * the bytes it decompresses to. Decompression runs in-process (liblzma, zlib, libzstd); the
 * extension plays no part. Concatenated streams, members and frames are read as one content,
 * as the xz, gzip and zstd tools do.
 *
 * Errors name the path and a byte offset of the file: a read error, corrupt compressed data,
 * or compressed data that stops inside a stream, member or frame (GCR_E_TRUNCATED). An error
 * is final: later calls return the same error.
 *
 * The line reader splits the content into lines for text formats. It returns each line as a
 * pointer and a length into its own buffer, valid until the next call, without the line end
 * ("\n", or "\r\n"). A last line without a newline is a line; lines are numbered from 1. A line
 * longer than GCR_MAX_LINE_BYTES is an error naming the line and its byte offset: no trace line
 * comes near it, so such a line means the input is not a text trace at all (binary data, a
 * device that never ends a line), and reading on would only grow the buffer without bound. Memory
 * stays bounded by that limit plus a fixed buffer, whatever the file size.
 *
 * After each line's last byte the reader puts a '\n' (text[len] == '\n'), and a line never holds
 * one, so a parser may scan a line until '\n' without checking its length. */
#ifndef GCREPLAY_IO_BYTESRC_H
#define GCREPLAY_IO_BYTESRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcreplay/error.h"
#include "io/files.h"

enum gcr_codec {
    GCR_CODEC_NONE = 0, /* plain bytes */
    GCR_CODEC_GZIP,
    GCR_CODEC_XZ,
    GCR_CODEC_ZSTD,
    GCR_CODEC_COUNT
};

/* "none", "gzip", "xz", "zstd". */
const char *gcr_codec_name(enum gcr_codec codec);

/* The codec whose magic bytes begin head (GCR_CODEC_NONE if none does). */
enum gcr_codec gcr_codec_detect(const unsigned char *head, size_t len);

struct gcr_bytesrc;

int gcr_bytesrc_open(struct gcr_bytesrc **out, const struct gcr_files *files, const char *path,
                     struct gcr_err *err);

/* Copies up to cap bytes of content into buf. Returns the number copied, 0 only at the end of
 * the content, or -1 with err filled. */
ptrdiff_t gcr_bytesrc_read(struct gcr_bytesrc *src, void *buf, size_t cap, struct gcr_err *err);

enum gcr_codec gcr_bytesrc_codec(const struct gcr_bytesrc *src);
/* Bytes of the file consumed so far, and bytes of content delivered so far. */
uint64_t gcr_bytesrc_file_bytes(const struct gcr_bytesrc *src);
uint64_t gcr_bytesrc_content_bytes(const struct gcr_bytesrc *src);
void gcr_bytesrc_close(struct gcr_bytesrc *src);

/* Reads up to cap bytes from the start of the content of path (decompressed), for format
 * detection. Returns the number of bytes read; on any error, what was read before it (so a
 * damaged file can still be recognised and then reported properly by its reader). */
size_t gcr_bytesrc_peek(const struct gcr_files *files, const char *path, void *buf, size_t cap);

/* ---- Line reader ---------------------------------------------------------------------------- */

struct gcr_lines;

/* 1 MiB: a 32-lane Accel-Sim instruction line is under 1 KiB, a kernel name at most 64 KiB. */
#define GCR_MAX_LINE_BYTES (1u << 20)

struct gcr_line {
    const char *text; /* followed by '\n', not NUL; valid until the next gcr_lines_next() call */
    size_t len;
    uint64_t number; /* 1-based */
};

int gcr_lines_open(struct gcr_lines **out, const struct gcr_files *files, const char *path,
                   struct gcr_err *err);

/* 1 with the next line, 0 at the end of the content, -1 with err filled. */
int gcr_lines_next(struct gcr_lines *lines, struct gcr_line *line, struct gcr_err *err);

/* Whether the content ended inside the line returned last: it had no line end. Such a line is
 * still a line, but a parser that cannot make sense of it should say the file may be cut short
 * there rather than only what the line lacks. */
bool gcr_lines_ended_inside(const struct gcr_lines *lines);

/* The byte source underneath (codec, byte counts). */
const struct gcr_bytesrc *gcr_lines_source(const struct gcr_lines *lines);
void gcr_lines_close(struct gcr_lines *lines);

#endif
