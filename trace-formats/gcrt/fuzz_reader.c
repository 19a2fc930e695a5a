/* Fuzz target for the gcrt reader (libFuzzer's LLVMFuzzerTestOneInput).
 *
 * Each input is read from memory, record by record until the end or an error. Besides "no
 * crash, no sanitizer report" it checks what the reader promises:
 *   - an error has a status and a message starting with the path;
 *   - every record it yields passes gcr_record_invalid() and has its inactive lanes zeroed;
 *   - it never consumes more bytes than the file holds;
 *   - a trace it accepts is accepted by the writer, and writing and re-reading it gives the
 *     same records (so the reader and the writer agree on what a valid trace is);
 *   - reading in runs (reader_next_run, lazily or not) gives the same records, the same end
 *     and the same error message as reading record by record.
 *
 * This file is built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which makes the gcrt
 * reader ignore checksum mismatches so that mutated inputs reach the decoders behind them.
 *
 * Builds without libFuzzer link it with fuzz_standalone.c, which replays files through it. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* open_memstream, strdup (normally set by the build) */
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcreplay/format.h"
#include "io/files.h"

#define FUZZ_TARGET "fuzz-gcrt"
#include "fuzz_util.h"

extern const struct gcr_trace_format gcr_format_gcrt;

#define MAX_KEPT 4096 /* records kept for the write/re-read check */

static const char in_path[] = "fuzz-in.gcrt";
static const char out_path[] = "fuzz-out.gcrt";

/* A set holding one file, for the reader. */
static struct gcr_files *one_file(const char *name, const void *data, size_t size)
{
    const struct gcr_memfile file = {name, data, size};
    struct gcr_files *files;
    if (gcr_files_create(&files, &file, 1) != 0)
        abort();
    return files;
}

/* Kept records; kernel names are copied because the reader's pointer is only valid until its
 * next call. */
static struct gcr_record kept[MAX_KEPT];
static char *kept_names[MAX_KEPT];

static void check_record(const struct gcr_record *rec, const struct gcr_err *err)
{
    if (gcr_record_invalid(rec, NULL))
        fail("reader yielded an invalid record", err);
    if (rec->kind == GCR_REC_WARP_INSN) {
        for (int lane = 0; lane < GCR_WARP_SIZE; lane++)
            if (!(rec->u.insn.active_mask >> lane & 1) && rec->u.insn.addr[lane] != 0)
                fail("inactive lane address not zeroed", err);
    } else if (rec->kind == GCR_REC_KERNEL_BEGIN) {
        if (strlen(rec->u.kbegin.name) > 65535)
            fail("kernel name too long", err);
    }
}

/* Writes the kept records (uncompressed, tiny blocks, then zstd) and reads them back. */
static void rewrite(size_t n)
{
    for (int level = 0; level <= 1; level++) {
        struct gcr_err err = {GCR_OK, ""};
        char *written = NULL;
        size_t written_size = 0;
        FILE *f = open_memstream(&written, &written_size);
        if (!f)
            abort();
        struct gcr_write_opts opts = {level, level ? 0 : 64};
        void *w = NULL;
        if (gcr_format_gcrt.writer_open(&w, f, out_path, &opts, &err) < 0)
            fail("writer_open failed", &err);
        for (size_t i = 0; i < n; i++)
            if (gcr_format_gcrt.writer_write(w, &kept[i], &err) < 0)
                fail("writer refused a record the reader accepted", &err);
        if (gcr_format_gcrt.writer_finish(w, &err) < 0)
            fail("writer refused a trace the reader accepted", &err);
        gcr_format_gcrt.writer_close(w);
        if (fclose(f) != 0)
            abort();

        struct gcr_files *files = one_file(out_path, written, written_size);
        void *r = NULL;
        if (gcr_format_gcrt.reader_open(&r, files, out_path, &err) < 0)
            fail("cannot reopen a written trace", &err);
        struct gcr_record rec;
        size_t i = 0;
        int rc;
        while ((rc = gcr_format_gcrt.reader_next(r, &rec, &err)) == 1) {
            if (i >= n || !gcr_record_same(&rec, &kept[i]))
                fail("written trace reads back differently", &err);
            i++;
        }
        if (rc != 0 || i != n)
            fail("written trace does not read back completely", &err);
        gcr_format_gcrt.reader_close(r);
        gcr_files_free(files);
        free(written);
    }
}

/* Reads the input again in runs of up to max records and compares with the n records (the
 * first MAX_KEPT of them kept), end status rc and error want of reading one at a time. Lazily,
 * strided lanes are only given by the hint, so only counts and the end are compared. */
static void reread_in_runs(const struct gcr_files *input, size_t max, bool lazy, size_t n, int rc,
                           const struct gcr_err *want)
{
    static struct gcr_record run[64];
    struct gcr_err err = {GCR_OK, ""};
    void *r = NULL;
    if (gcr_format_gcrt.reader_open(&r, input, in_path, &err) < 0)
        fail("the input opens only once", &err);
    gcr_format_gcrt.reader_set_lazy_addresses(r, lazy);
    size_t i = 0;
    int got;
    while ((got = gcr_format_gcrt.reader_next_run(r, run, max, &err)) > 0) {
        if ((size_t)got > max)
            fail("run longer than asked for", &err);
        for (int k = 0; k < got; k++, i++)
            if (!lazy && i < n && i < MAX_KEPT && !gcr_record_same(&run[k], &kept[i]))
                fail("a run reads a record differently", &err);
    }
    if (got != rc || i != n)
        fail("runs read a different number of records or end differently", &err);
    if (rc < 0 && (err.status != want->status || strcmp(err.msg, want->msg) != 0))
        fail("runs report a different error", &err);
    gcr_format_gcrt.reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gcr_files *input = one_file(in_path, data, size);
    struct gcr_err err = {GCR_OK, ""};
    void *r = NULL;
    size_t plen = strlen(in_path);
    if (gcr_format_gcrt.reader_open(&r, input, in_path, &err) < 0) {
        if (r || err.status == GCR_OK || strncmp(err.msg, in_path, plen) != 0)
            fail("bad open failure", &err);
        gcr_files_free(input);
        return 0;
    }
    struct gcr_record rec;
    size_t n = 0;
    int rc;
    while ((rc = gcr_format_gcrt.reader_next(r, &rec, &err)) == 1) {
        check_record(&rec, &err);
        if (n < MAX_KEPT) {
            kept[n] = rec;
            if (rec.kind == GCR_REC_KERNEL_BEGIN) {
                kept_names[n] = strdup(rec.u.kbegin.name);
                if (!kept_names[n])
                    abort();
                kept[n].u.kbegin.name = kept_names[n];
            }
        }
        n++;
    }
    if (gcr_format_gcrt.reader_bytes_done(r) > size)
        fail("reader consumed more bytes than the file holds", &err);
    if (rc < 0 && (err.status == GCR_OK || strncmp(err.msg, in_path, plen) != 0))
        fail("bad error report", &err);
    gcr_format_gcrt.reader_close(r);

    size_t max = 1 + size % 64; /* a run length that varies with the input */
    reread_in_runs(input, max, false, n, rc, &err);
    reread_in_runs(input, max, true, n, rc, &err);
    if (rc == 0 && n <= MAX_KEPT)
        rewrite(n);
    for (size_t i = 0; i < n && i < MAX_KEPT; i++)
        if (kept[i].kind == GCR_REC_KERNEL_BEGIN) {
            free(kept_names[i]);
            kept_names[i] = NULL;
        }
    gcr_files_free(input);
    return 0;
}
