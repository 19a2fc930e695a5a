/* Format-independent trace opening: detection, progress, atomic writer output. */
#include "gcreplay/format.h"
#include "gcreplay/trace.h"

#include "core/atomic_file.h"
#include "io/bytesrc.h"
#include "io/files.h"
#include "trace/decode_ahead.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct gcr_reader {
    /* fmt->reader_next and fmt->sets_stride_hint, copied here because every
     * record passes through gcr_reader_next (one load fewer per record). */
    int (*next)(void *state, struct gcr_record *rec, struct gcr_err *err);
    bool sets_stride_hint;
    /* fmt->reader_next_run, or NULL when the format has none or does not set
     * the stride hint (whose clearing then happens record by record). */
    int (*next_run)(void *state, struct gcr_record *recs, size_t max, struct gcr_err *err);
    const struct gcr_trace_format *fmt;
    void *state;
    char *path;
    struct gcr_files *files; /* NULL: the file system */
    uint64_t total_bytes;
    /* What runs_one_by_one read beyond a run, for the next call: a record of
     * another CTA or kind (ahead), else the error or end met after the run's
     * records (held_rc 0 or -1, with held_err). */
    bool has_ahead, has_held;
    int held_rc;
    struct gcr_record ahead;
    struct gcr_err held_err;
    /* Not NULL: the records come from a thread of their own (gcr_reader_decode_ahead),
     * which alone calls the format and uses the fields above until it stops. */
    struct gcr_decode_ahead *decoder;
};

struct gcr_writer {
    const struct gcr_trace_format *fmt;
    void *state;
    struct gcr_atomic_file out;
};

const struct gcr_trace_format *gcr_trace_format_find(const char *name)
{
    for (size_t i = 0; gcr_trace_formats[i]; i++)
        if (strcmp(gcr_trace_formats[i]->name, name) == 0)
            return gcr_trace_formats[i];
    return NULL;
}

static void list_formats(char *buf, size_t n, int need_writer)
{
    buf[0] = '\0';
    for (size_t i = 0; gcr_trace_formats[i]; i++) {
        if (need_writer && !gcr_trace_formats[i]->writer_open)
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%s", used ? ", " : "", gcr_trace_formats[i]->name);
    }
}

static int unknown_format(const char *name, int need_writer, struct gcr_err *err)
{
    char known[256];
    list_formats(known, sizeof known, need_writer);
    return gcr_fail(err, GCR_E_USAGE, "unknown trace format '%s' (known: %s)", name, known);
}

/* How many bytes of a file's content the probes see: enough for every format's magic, and for
 * the first line of an Accel-Sim kernel file or list (a kernel name may be long). */
#define HEAD_BYTES 4096

/* The head of a regular file's content, decompressed (src/io/bytesrc.h): what the probes look
 * at, so that every format reads compressed files. A decoder error met within it is kept in
 * *damage (status GCR_OK if none) and only reported when no format recognises what came
 * before it: a damaged file whose first bytes are a trace's goes to its reader, which reports
 * the damage where it meets it. */
static int read_head(const struct gcr_files *files, const char *path, unsigned char *head,
                     size_t *len, enum gcr_codec *codec, struct gcr_err *damage,
                     struct gcr_err *err)
{
    struct gcr_bytesrc *src;
    *len = 0;
    *codec = GCR_CODEC_NONE;
    damage->status = GCR_OK;
    if (gcr_bytesrc_open(&src, files, path, err) != 0)
        return -1;
    *codec = gcr_bytesrc_codec(src);
    while (*len < HEAD_BYTES) {
        ptrdiff_t n = gcr_bytesrc_read(src, head + *len, HEAD_BYTES - *len, damage);
        if (n <= 0)
            break;
        *len += (size_t)n;
    }
    gcr_bytesrc_close(src);
    return 0;
}

/* The format of the trace at path: the one named, or the first whose probe accepts it. */
static int find_format(const struct gcr_files *files, const char *path, const struct stat *st,
                       const char *format, const struct gcr_trace_format **out,
                       struct gcr_err *err)
{
    const struct gcr_trace_format *fmt = NULL;
    *out = NULL;
    const struct gcr_trace_format *forced = NULL;
    if (format && !(forced = gcr_trace_format_find(format)))
        return unknown_format(format, 0, err);
    unsigned char head[HEAD_BYTES];
    size_t len = 0;
    enum gcr_codec codec = GCR_CODEC_NONE;
    struct gcr_err damage = {GCR_OK, ""};
    if (S_ISREG(st->st_mode) && read_head(files, path, head, &len, &codec, &damage, err) != 0)
        return -1;
    /* A named format overrides detection (a file its probe does not recognise may still be
     * one), but not when the content is plainly another format's. */
    if (forced && forced->probe(files, path, head, len) == 1) {
        *out = forced;
        return 0;
    }
    for (size_t i = 0; gcr_trace_formats[i] && !fmt; i++)
        if (gcr_trace_formats[i]->probe(files, path, head, len) == 1)
            fmt = gcr_trace_formats[i];
    if (forced && fmt)
        return gcr_fail(err, GCR_E_FORMAT, "%s: --format %s was given, but this is a %s trace",
                        path, forced->name, fmt->name);
    if (forced) {
        *out = forced;
        return 0;
    }
    if (!fmt) {
        char known[256];
        list_formats(known, sizeof known, 0);
        if (S_ISDIR(st->st_mode)) /* only Accel-Sim's traces are directories */
            return gcr_fail(err, GCR_E_FORMAT,
                            "%s: no kernelslist.g in this directory (an Accel-Sim trace "
                            "directory holds one; traces of the other formats are files)", path);
        /* A compressed file no format recognised may be damaged: the decoder's error says where,
         * which "not a trace" would hide. */
        if (damage.status != GCR_OK) {
            if (err)
                *err = damage;
            return -1;
        }
        if (codec != GCR_CODEC_NONE)
            return gcr_fail(err, GCR_E_FORMAT, "%s: %s-compressed, but what it holds is not a "
                            "trace in any known format (known: %s)", path, gcr_codec_name(codec),
                            known);
        return gcr_fail(err, GCR_E_FORMAT,
                        "%s: not a trace in any known format (known: %s)", path, known);
    }
    *out = fmt;
    return 0;
}

const char *gcr_trace_detect(const char *path)
{
    struct stat st;
    const struct gcr_trace_format *fmt;
    if (stat(path, &st) != 0 || find_format(NULL, path, &st, NULL, &fmt, NULL) != 0)
        return NULL;
    return fmt->name;
}

void gcr_trace_input_files(const char *path, const char *format,
                           void (*visit)(void *ctx, const char *file), void *ctx)
{
    visit(ctx, path);
    struct stat st;
    const struct gcr_trace_format *fmt;
    if (stat(path, &st) == 0 && find_format(NULL, path, &st, format, &fmt, NULL) == 0 &&
        fmt->input_files)
        fmt->input_files(path, visit, ctx);
}

/* Opens path in files (NULL: the file system), which the reader keeps once open. */
static int open_reader(struct gcr_reader **out, struct gcr_files *files, const char *path,
                       const char *format, struct gcr_err *err)
{
    *out = NULL;
    struct stat st;
    if (gcr_files_stat(files, path, &st) != 0)
        return gcr_fail(err, GCR_E_IO, "%s: %s", path, strerror(errno));
    const struct gcr_trace_format *fmt;
    if (find_format(files, path, &st, format, &fmt, err) != 0)
        return -1;

    struct gcr_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }
    r->fmt = fmt;
    r->next = fmt->reader_next;
    r->sets_stride_hint = fmt->sets_stride_hint;
    r->next_run = fmt->sets_stride_hint ? fmt->reader_next_run : NULL;
    r->total_bytes = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    if (fmt->reader_open(&r->state, files, path, err) != 0) {
        free(r->path);
        free(r);
        return -1;
    }
    r->files = files;
    *out = r;
    return 0;
}

int gcr_reader_open(struct gcr_reader **out, const char *path, const char *format,
                    struct gcr_err *err)
{
    return open_reader(out, NULL, path, format, err);
}

int gcr_reader_open_memory_files(struct gcr_reader **out, const char *path,
                                 const struct gcr_memfile *files, size_t count,
                                 const char *format, struct gcr_err *err)
{
    struct gcr_files *set;
    *out = NULL;
    if (gcr_files_create(&set, files, count) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    int rc = open_reader(out, set, path, format, err);
    if (rc != 0)
        gcr_files_free(set);
    return rc;
}

int gcr_reader_open_memory(struct gcr_reader **out, const char *name, const void *data,
                           size_t size, const char *format, struct gcr_err *err)
{
    const struct gcr_memfile file = {name, data, size};
    return gcr_reader_open_memory_files(out, name, &file, 1, format, err);
}

/* Returns what runs_one_by_one kept for the next call. */
static __attribute__((noinline)) int take_held(struct gcr_reader *r, struct gcr_record *rec,
                                                struct gcr_err *err)
{
    if (r->has_ahead) {
        r->has_ahead = false;
        *rec = r->ahead;
        return 1;
    }
    r->has_held = false;
    if (r->held_rc < 0 && err)
        *err = r->held_err;
    return r->held_rc;
}

/* The format's next record, with the stride hint cleared for a format that
 * does not set it. */
static inline int format_next(struct gcr_reader *r, struct gcr_record *rec, struct gcr_err *err)
{
    if (r->sets_stride_hint) /* the common case: a tail call, no frame of its own */
        return r->next(r->state, rec, err);
    int rc = r->next(r->state, rec, err);
    if (rc == 1 && rec->kind == GCR_REC_WARP_INSN)
        rec->u.insn.strided = false;
    return rc;
}

/* The reader's own next record, without a decoding thread. */
static int direct_next(struct gcr_reader *r, struct gcr_record *rec, struct gcr_err *err)
{
    if (__builtin_expect(r->has_ahead | r->has_held, 0))
        return take_held(r, rec, err);
    return format_next(r, rec, err);
}

int gcr_reader_next(struct gcr_reader *r, struct gcr_record *rec, struct gcr_err *err)
{
    if (__builtin_expect(r->decoder != NULL, 0))
        return gcr_decode_ahead_next_run(r->decoder, rec, 1, err);
    return direct_next(r, rec, err);
}

static bool cta_record(const struct gcr_record *rec, uint32_t *cta)
{
    if (rec->kind == GCR_REC_WARP_INSN)
        *cta = rec->u.insn.cta;
    else if (rec->kind == GCR_REC_NONMEM)
        *cta = rec->u.nonmem.cta;
    else
        return false;
    return true;
}

/* A run for a format without reader_next_run, from its records one at a
 * time. The record that ends the run (another CTA, another kind), or the error
 * or end after it, is kept for the next call; a kernel begin is never kept
 * past a call of the format, so its name stays valid. */
static int runs_one_by_one(struct gcr_reader *r, struct gcr_record *recs, size_t max,
                           struct gcr_err *err)
{
    uint32_t cta, other;
    int rc = direct_next(r, &recs[0], err);
    if (rc != 1 || !cta_record(&recs[0], &cta))
        return rc;
    if (max > INT_MAX)
        max = INT_MAX;
    size_t n = 1;
    for (; n < max; n++) {
        /* Nothing is kept at this point: straight to the format. The contract
         * does not require a reader to repeat an error on later calls, so an
         * error is kept here, for the next call, and the format not called again. */
        rc = format_next(r, &recs[n], &r->held_err);
        if (rc != 1) {
            r->held_rc = rc;
            r->has_held = true;
            break;
        }
        if (!cta_record(&recs[n], &other) || other != cta) {
            r->ahead = recs[n];
            r->has_ahead = true;
            break;
        }
    }
    return (int)n;
}

/* The reader's own next run, without a decoding thread. */
static int direct_next_run(void *reader, struct gcr_record *recs, size_t max,
                           struct gcr_err *err)
{
    struct gcr_reader *r = reader;
    if (r->next_run && !r->has_ahead && !r->has_held)
        return r->next_run(r->state, recs, max, err);
    return runs_one_by_one(r, recs, max, err);
}

int gcr_reader_next_run(struct gcr_reader *r, struct gcr_record *recs, size_t max,
                        struct gcr_err *err)
{
    if (max == 0)
        return gcr_fail(err, GCR_E_INTERNAL, "%s: asked for a run of 0 records", r->path);
    if (r->decoder)
        return gcr_decode_ahead_next_run(r->decoder, recs, max, err);
    return direct_next_run(r, recs, max, err);
}

static uint64_t format_bytes_done(void *reader)
{
    const struct gcr_reader *r = reader;
    return r->fmt->reader_bytes_done ? r->fmt->reader_bytes_done(r->state) : 0;
}

int gcr_reader_decode_ahead(struct gcr_reader *r, bool on, struct gcr_err *err)
{
    if (!on) {
        gcr_decode_ahead_stop(r->decoder);
        r->decoder = NULL;
        return 0;
    }
    if (r->decoder)
        return 0;
    const struct gcr_decode_source src = {direct_next_run, format_bytes_done, r};
    return gcr_decode_ahead_start(&r->decoder, &src, err);
}

const char *gcr_reader_format_name(const struct gcr_reader *r) { return r->fmt->name; }
const char *gcr_reader_path(const struct gcr_reader *r) { return r->path; }
uint64_t gcr_reader_bytes_total(const struct gcr_reader *r) { return r->total_bytes; }

uint64_t gcr_reader_bytes_done(const struct gcr_reader *r)
{
    if (r->decoder)
        return gcr_decode_ahead_bytes_done(r->decoder);
    return format_bytes_done((void *)r);
}

void gcr_reader_set_lazy_addresses(struct gcr_reader *r, bool lazy)
{
    if (r->decoder) /* the format is the decoding thread's until it stops */
        return;
    if (r->fmt->reader_set_lazy_addresses && r->fmt->sets_stride_hint)
        r->fmt->reader_set_lazy_addresses(r->state, lazy);
}

void gcr_reader_set_skips(struct gcr_reader *r, unsigned skips)
{
    if (r->decoder) /* the format is the decoding thread's until it stops */
        return;
    if (r->fmt->reader_set_skips)
        r->fmt->reader_set_skips(r->state, skips);
}

void gcr_reader_describe(struct gcr_reader *r, json_t *info)
{
    gcr_reader_decode_ahead(r, false, NULL); /* the consumer is done: the format is ours */
    if (!r->fmt->reader_describe)
        return;
    json_t *details = json_object();
    r->fmt->reader_describe(r->state, details);
    json_object_set_new(info, "format_details", details);
}

void gcr_reader_close(struct gcr_reader *r)
{
    if (!r)
        return;
    gcr_decode_ahead_stop(r->decoder);
    r->fmt->reader_close(r->state);
    gcr_files_free(r->files);
    free(r->path);
    free(r);
}

static const struct gcr_trace_format *format_for_path(const char *path)
{
    size_t plen = strlen(path);
    for (size_t i = 0; gcr_trace_formats[i]; i++) {
        const struct gcr_trace_format *f = gcr_trace_formats[i];
        if (!f->writer_open || !f->extension)
            continue;
        size_t elen = strlen(f->extension);
        if (plen > elen && strcmp(path + plen - elen, f->extension) == 0)
            return f;
    }
    return NULL;
}

int gcr_writer_open(struct gcr_writer **out, const char *path, const char *format,
                    const struct gcr_write_opts *opts, struct gcr_err *err)
{
    *out = NULL;
    const struct gcr_trace_format *fmt;
    if (format) {
        fmt = gcr_trace_format_find(format);
        if (!fmt || !fmt->writer_open)
            return unknown_format(format, 1, err);
    } else {
        fmt = format_for_path(path);
        if (!fmt) {
            char known[256];
            list_formats(known, sizeof known, 1);
            return gcr_fail(err, GCR_E_USAGE,
                            "%s: cannot tell the output format from the extension; "
                            "name one of: %s", path, known);
        }
    }
    struct gcr_write_opts defaults = GCR_WRITE_OPTS_DEFAULT;
    if (!opts)
        opts = &defaults;

    struct gcr_writer *w = calloc(1, sizeof *w);
    if (!w)
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    if (gcr_atomic_file_open(&w->out, path, err) != 0) {
        free(w);
        return -1;
    }
    w->fmt = fmt;
    if (fmt->writer_open(&w->state, w->out.f, path, opts, err) != 0) {
        w->state = NULL;
        gcr_writer_abort(w);
        return -1;
    }
    *out = w;
    return 0;
}

int gcr_writer_write(struct gcr_writer *w, const struct gcr_record *rec, struct gcr_err *err)
{
    return w->fmt->writer_write(w->state, rec, err);
}

int gcr_writer_close(struct gcr_writer *w, struct gcr_err *err)
{
    int rc = w->fmt->writer_finish(w->state, err);
    w->fmt->writer_close(w->state);
    if (rc == 0)
        rc = gcr_atomic_file_commit(&w->out, err);
    else
        gcr_atomic_file_abort(&w->out);
    free(w);
    return rc;
}

void gcr_writer_abort(struct gcr_writer *w)
{
    if (!w)
        return;
    if (w->state)
        w->fmt->writer_close(w->state);
    gcr_atomic_file_abort(&w->out);
    free(w);
}
