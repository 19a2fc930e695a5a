/* The contract a trace format implements (one folder in trace-formats/).
 *
 * A format provides a reader and, optionally, a writer. It never prints.
 * The reader state is private to the format; the core adds path handling,
 * detection, progress and the atomic-output rule for writers.
 *
 * A reader reads its path, and any file the path names, from the set of files
 * it is given: NULL for the file system, or files held in memory
 * (gcreplay/memfile.h). It opens them only through src/io/files.h and
 * src/io/bytesrc.h with that set, which stays valid until reader_close, so
 * that one code path reads both. */
#ifndef GCREPLAY_FORMAT_H
#define GCREPLAY_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "gcreplay/error.h"
#include "gcreplay/record.h"
#include "gcreplay/trace.h"

struct gcr_files; /* src/io/files.h */

struct gcr_trace_format {
    const char *name;      /* same as its folder and its symbol gcr_format_<name> */
    const char *summary;   /* one line for `gcreplay help formats` */
    const char *extension; /* e.g. ".gcrt"; the writer is chosen by it */
    /* True if reader_next sets gcr_warp_insn.strided/stride reliably (always
     * assigning both); otherwise the core clears the hint after each record. */
    bool sets_stride_hint;

    /* Is this file ours? head holds the first bytes of a regular file's content,
     * decompressed when the file is xz, gzip or zstd (src/io/bytesrc.h), so that
     * every format reads compressed files: up to 4096, fewer for small files, 0 for
     * a directory. 1 = yes, 0 = no. */
    int (*probe)(const struct gcr_files *files, const char *path, const unsigned char *head,
                 size_t len);

    /* Reader. open returns 0 or -1; next returns 1 record, 0 end, -1 error. Every
     * error message starts with the path and names the place (line, block, offset).
     * bytes_done reports progress in input bytes. */
    int (*reader_open)(void **state, const struct gcr_files *files, const char *path,
                       struct gcr_err *err);
    int (*reader_next)(void *state, struct gcr_record *rec, struct gcr_err *err);
    uint64_t (*reader_bytes_done)(void *state);
    void (*reader_close)(void *state);
    /* Optional, for speed: what up to max calls of reader_next would return, in one call.
     * Returns the number n >= 1 of records written to recs[0..n-1], 0 at the end, -1 on
     * error; an error (or the end) after some records is left to the next call, so the
     * records and errors come in the same order as through reader_next. When n > 1, every
     * record is a WARP_INSN or NONMEM record of one CTA (the first record's). Without it the
     * core's gcr_reader_next_run builds runs from reader_next's records. */
    int (*reader_next_run)(void *state, struct gcr_record *recs, size_t max,
                           struct gcr_err *err);
    /* Optional: when lazy, an instruction the reader marks strided may come back
     * with only addr[first active lane] filled (the others unspecified), which
     * saves expanding 32 addresses for consumers that only use the hint. */
    void (*reader_set_lazy_addresses)(void *state, bool lazy);
    /* Optional: what the consumer does not read (GCR_READ_SKIP_*, gcreplay/trace.h). */
    void (*reader_set_skips)(void *state, unsigned skips);
    /* Optional: format-specific facts for `gcreplay info` (version, blocks,
     * compression...), added to `info` after the whole trace was read. */
    void (*reader_describe)(void *state, json_t *info);
    /* Optional, for a format whose trace names other files (a kernel list): calls visit for
     * each file reading the trace at path would open besides path itself, so that no output
     * overwrites one. Best effort and silent: what cannot be listed is left to the reader. */
    void (*input_files)(const char *path, void (*visit)(void *ctx, const char *file), void *ctx);

    /* Writer (all NULL for a read-only format). The core opens `out` on a
     * temporary file and renames it after a successful finish. */
    int (*writer_open)(void **state, FILE *out, const char *path, const struct gcr_write_opts *opts,
                       struct gcr_err *err);
    int (*writer_write)(void *state, const struct gcr_record *rec, struct gcr_err *err);
    int (*writer_finish)(void *state, struct gcr_err *err); /* writes trailers, flushes */
    void (*writer_close)(void *state);                     /* frees; never fails */
};

#endif
