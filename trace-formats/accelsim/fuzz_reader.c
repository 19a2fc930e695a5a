/* Fuzz target for the Accel-Sim trace reader (libFuzzer's LLVMFuzzerTestOneInput).
 *
 * Each input is read from memory, as the file fuzz/kernel-1.traceg, until its end or an error;
 * inputs starting with a kernel header are kernel files, others are kernel lists, whose kernel
 * names then resolve inside fuzz/, where that file is the only one. Compressed inputs go
 * through the xz, gzip and zstd decoders. Besides "no crash, no sanitizer report" it checks
 * what the reader promises:
 *   - an error has a status and a message starting with the path, and is final;
 *   - every record passes gcr_record_invalid(), has its inactive lanes zeroed, and the records
 *     form a valid stream (checked again here with the shared stream rules);
 *   - it never reports more bytes consumed than the file holds;
 *   - its description of the trace can be built at any point.
 *
 * Builds without libFuzzer link it with fuzz_standalone.c, which replays files through it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stream.h"
#include "gcreplay/format.h"
#include "io/files.h"

#define FUZZ_TARGET "fuzz-accelsim"
#include "fuzz_util.h"

extern const struct gcr_trace_format gcr_format_accelsim;

static const char dir_path[] = "fuzz/";
static const char in_path[] = "fuzz/kernel-1.traceg";

static void check_record(const struct gcr_record *rec, struct gcr_stream_rules *rules,
                         const struct gcr_err *err)
{
    char why[GCR_ERR_MSG_MAX];
    if (gcr_record_invalid(rec, NULL))
        fail("reader yielded an invalid record", err);
    if (gcr_stream_rules_apply(rules, rec, why, sizeof why) != GCR_OK)
        fail("reader yielded a record that breaks the stream rules", err);
    if (rec->kind == GCR_REC_WARP_INSN) {
        for (int lane = 0; lane < GCR_WARP_SIZE; lane++)
            if (!(rec->u.insn.active_mask >> lane & 1) && rec->u.insn.addr[lane] != 0)
                fail("inactive lane address not zeroed", err);
    } else if (rec->kind == GCR_REC_KERNEL_BEGIN) {
        if (!rec->u.kbegin.name || strlen(rec->u.kbegin.name) > 65535)
            fail("bad kernel name", err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct gcr_memfile file = {in_path, data, size};
    struct gcr_files *files;
    if (gcr_files_create(&files, &file, 1) != 0)
        abort();
    struct gcr_err err = {GCR_OK, ""};
    void *r = NULL;
    size_t plen = strlen(in_path);
    if (gcr_format_accelsim.reader_open(&r, files, in_path, &err) < 0) {
        if (r || err.status == GCR_OK || strncmp(err.msg, in_path, plen) != 0)
            fail("bad open failure", &err);
        gcr_files_free(files);
        return 0;
    }
    struct gcr_stream_rules rules = {0};
    struct gcr_record rec;
    int rc;
    while ((rc = gcr_format_accelsim.reader_next(r, &rec, &err)) == 1)
        check_record(&rec, &rules, &err);
    if (gcr_format_accelsim.reader_bytes_done(r) > size)
        fail("reader reports more bytes than the file holds", &err);
    if (rc < 0) {
        /* Paths of kernel files named by a list start with the directory, like the input's. */
        if (err.status == GCR_OK || strncmp(err.msg, dir_path, strlen(dir_path)) != 0)
            fail("bad error report", &err);
        struct gcr_err again = {GCR_OK, ""};
        if (gcr_format_accelsim.reader_next(r, &rec, &again) != -1 ||
            strcmp(again.msg, err.msg) != 0)
            fail("an error is not final", &err);
    } else {
        char why[GCR_ERR_MSG_MAX];
        if (gcr_stream_rules_finish(&rules, why, sizeof why) != GCR_OK)
            fail("reader ended a trace inside a kernel", &err);
    }
    json_t *info = json_object();
    gcr_format_accelsim.reader_describe(r, info);
    json_decref(info);
    gcr_stream_rules_free(&rules);
    gcr_format_accelsim.reader_close(r);
    gcr_files_free(files);
    return 0;
}
