/* Reading and writing traces, whatever their format.
 *
 * A reader yields struct gcr_record one at a time: gcr_reader_next returns
 * 1 (a record), 0 (clean end of trace) or -1 (error, err filled with file and
 * place). A reader never returns a short or partial trace silently: input that
 * ends early is an error.
 *
 * A writer writes to a temporary file beside the destination and renames it
 * into place only on gcr_writer_close() success, so the output is complete or
 * absent. */
#ifndef GCREPLAY_TRACE_H
#define GCREPLAY_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "gcreplay/error.h"
#include "gcreplay/memfile.h"
#include "gcreplay/record.h"

struct gcr_reader;
struct gcr_writer;

/* format: a registered format name, or NULL to detect from the content. */
int gcr_reader_open(struct gcr_reader **out, const char *path, const char *format,
                    struct gcr_err *err);
/* The same for a trace held in memory: size bytes at data, read as the file name would be
 * (compressed or not, detected or of the format named), and named so in messages. The bytes
 * are read in place: they must stay unchanged until gcr_reader_close. */
int gcr_reader_open_memory(struct gcr_reader **out, const char *name, const void *data,
                           size_t size, const char *format, struct gcr_err *err);
/* The same for a trace of several files held in memory (gcreplay/memfile.h): path is one of
 * them, or a directory of them, and the files it names are found among them (an Accel-Sim
 * kernel list and its kernel files); the file system is never read. The names and the array
 * are copied; the bytes must stay unchanged until gcr_reader_close. */
int gcr_reader_open_memory_files(struct gcr_reader **out, const char *path,
                                 const struct gcr_memfile *files, size_t count,
                                 const char *format, struct gcr_err *err);
int gcr_reader_next(struct gcr_reader *r, struct gcr_record *rec, struct gcr_err *err);
/* Several records at once, for a consumer that loads a CTA at a time (the
 * replay engine): up to max records into recs[], exactly those that as many
 * gcr_reader_next calls would return, in order. Returns their number n >= 1,
 * 0 at the end of the trace, or -1 on error; an error (or the end) met after
 * some records is returned by the next call. When n > 1 every record is a
 * WARP_INSN or NONMEM of one CTA. A format may decode runs itself (gcrt: no
 * call per record, its position kept in registers across a CTA's records);
 * for the others the core builds runs from their records one at a time. */
int gcr_reader_next_run(struct gcr_reader *r, struct gcr_record *recs, size_t max,
                        struct gcr_err *err);
const char *gcr_reader_format_name(const struct gcr_reader *r);
const char *gcr_reader_path(const struct gcr_reader *r);
/* Input bytes consumed so far and total input size (0 if unknown): progress. */
uint64_t gcr_reader_bytes_done(const struct gcr_reader *r);
uint64_t gcr_reader_bytes_total(const struct gcr_reader *r);
/* For consumers that read lane addresses of strided instructions only through
 * the record's strided/stride hint (the replay engine): lets the reader skip
 * filling addr[] beyond the first active lane for them. Off by default. */
void gcr_reader_set_lazy_addresses(struct gcr_reader *r, bool lazy);
/* Parts of the records a consumer never reads (a set of GCR_READ_SKIP_* bits), so that the
 * reader may leave them out, and leave unread the fields of the trace that carry nothing
 * else. What is left unread is left unchecked too: a trace whose only fault lies there reads
 * without error. 0 (the default) reads and checks everything, as `gcreplay info` and
 * `convert` do; the replay engine sets what its observers and its timing model do not need
 * (src/replay/replay.c). Set before reading and before decoding ahead; formats without such
 * a fast path ignore it. */
void gcr_reader_set_skips(struct gcr_reader *r, unsigned skips);
/* The lane addresses of accesses that reach no modelled cache (shared memory, constants) and
 * of instructions whose addresses the format ignores: such a record's addr[] is unspecified
 * and its strided hint false; the rest of it (mask, width, op, space, pc, waits) is kept. */
#define GCR_READ_SKIP_ONCHIP_LANES (1u << 0)
/* The dependencies on non-memory instructions and their units (gcreplay/record.h,
 * GCR_WAITS_ALU_MASK, GCR_WAITS_UNIT_MASK): a reader that computes them (Accel-Sim's) may
 * leave them out of waits and join a warp's consecutive non-memory instructions into one
 * NONMEM run as their units and dependencies no longer part them (the functional replay,
 * whose counts they do not change); readers that only decode them (gcrt, text) pass them on. */
#define GCR_READ_SKIP_ALU (1u << 1)
/* Decoding ahead (on): from now on the trace is decompressed and parsed on a
 * thread of its own, a few thousand records ahead of the consumer, who gets
 * exactly the records, end and error it would have read itself (runs may be
 * split differently). Set any lazy addresses first. Off joins the thread and
 * drops what it decoded and was not read: meant for when the consumer is done
 * (gcr_reader_close also stops it). Returns 0, or -1 with err when the thread
 * cannot start; the reader then goes on without one. */
int gcr_reader_decode_ahead(struct gcr_reader *r, bool on, struct gcr_err *err);
/* Adds "format_details" (format-specific facts: version, blocks...) to info, if
 * the format has any. Meant for after the whole trace was read; it stops
 * decoding ahead. */
void gcr_reader_describe(struct gcr_reader *r, json_t *info);
void gcr_reader_close(struct gcr_reader *r);

/* The name of the format the content at path is in, or NULL when no format recognises it
 * (no error message: for searching a folder for traces). */
const char *gcr_trace_detect(const char *path);

/* Calls visit for every file that reading the trace at path would read: path itself and, for
 * a format that names other files (an Accel-Sim directory or kernel list), each of those. For
 * refusing an output that would overwrite an input before any work; what cannot be listed
 * (a missing file, an unknown format) is left for gcr_reader_open to report. */
void gcr_trace_input_files(const char *path, const char *format,
                           void (*visit)(void *ctx, const char *file), void *ctx);

struct gcr_write_opts {
    int compression_level; /* 0 = store uncompressed; 1..19 = zstd level (formats that compress) */
    uint32_t block_bytes;  /* target uncompressed block size for block formats; 0 = default */
};
/* Level 9 by default: traces are written once and replayed many times, and
 * zstd decodes level 9's longer matches faster than level 3's (on the bench's
 * typical trace: 109 against 203 x86 instructions per warp memory
 * instruction, 2.4 against 3.6 MB) for about 2.3x the writing time. */
#define GCR_WRITE_OPTS_DEFAULT {9, 0}

/* format: a registered format name, or NULL to choose by the path's extension. */
int gcr_writer_open(struct gcr_writer **out, const char *path, const char *format,
                    const struct gcr_write_opts *opts, struct gcr_err *err);
int gcr_writer_write(struct gcr_writer *w, const struct gcr_record *rec, struct gcr_err *err);
/* Finishes the trace and renames it into place; the writer is freed either way. */
int gcr_writer_close(struct gcr_writer *w, struct gcr_err *err);
/* Drops the partial output; the writer is freed. */
void gcr_writer_abort(struct gcr_writer *w);

/* Registered trace formats (NULL-terminated), generated from trace-formats/meson.build. */
struct gcr_trace_format;
extern const struct gcr_trace_format *const gcr_trace_formats[];
const struct gcr_trace_format *gcr_trace_format_find(const char *name);

#endif
