/* Helpers for the Accel-Sim format tests: reading a trace into an array of records, and
 * comparing records field by field. */
#ifndef GCR_TEST_ACCELSIM_H
#define GCR_TEST_ACCELSIM_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcreplay/format.h"
#include "gcreplay/trace.h"

extern const struct gcr_trace_format gcr_format_accelsim;

#define FIXTURES GCR_SOURCE_ROOT "/trace-formats/accelsim/fixtures/"

/* The records of a trace, kernel names copied (the reader's pointer lives only until its next
 * call). */
struct recs {
    struct gcr_record *r;
    size_t n, cap;
    int rc; /* the reader's last result: 0 at a clean end */
    struct gcr_err err;
};

static inline void recs_add(struct recs *v, const struct gcr_record *rec)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 256;
        v->r = realloc(v->r, v->cap * sizeof *v->r);
        if (!v->r)
            exit(2);
    }
    v->r[v->n] = *rec;
    if (rec->kind == GCR_REC_KERNEL_BEGIN &&
        !(v->r[v->n].u.kbegin.name = strdup(rec->u.kbegin.name)))
        exit(2);
    v->n++;
}

static inline void recs_free(struct recs *v)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->r[i].kind == GCR_REC_KERNEL_BEGIN)
            free((char *)v->r[i].u.kbegin.name);
    free(v->r);
    memset(v, 0, sizeof *v);
}

/* Reads path through gcr_reader_open (format NULL: detected) to its end or first error. */
/* The records of a trace, read with the given GCR_READ_SKIP_* bits. */
static inline struct recs read_trace_skips(const char *path, const char *format, bool lazy,
                                           unsigned skips)
{
    struct recs v;
    memset(&v, 0, sizeof v);
    struct gcr_reader *rd;
    if (gcr_reader_open(&rd, path, format, &v.err) != 0) {
        v.rc = -1;
        return v;
    }
    gcr_reader_set_lazy_addresses(rd, lazy);
    gcr_reader_set_skips(rd, skips);
    struct gcr_record rec;
    while ((v.rc = gcr_reader_next(rd, &rec, &v.err)) == 1)
        recs_add(&v, &rec);
    gcr_reader_close(rd);
    return v;
}

/* The records as a functional replay reads them: non-memory instructions joined into runs,
 * without their units (GCR_READ_SKIP_ALU; read_trace_skips(..., 0) has them one a record). */
static inline struct recs read_trace(const char *path, const char *format, bool lazy)
{
    return read_trace_skips(path, format, lazy, GCR_READ_SKIP_ALU);
}

/* Equal records; hint: also compare the strided hint (when both readers set it). */
static inline bool same_record(const struct gcr_record *a, const struct gcr_record *b, bool hint)
{
    if (!gcr_record_same(a, b))
        return false;
    if (hint && a->kind == GCR_REC_WARP_INSN) {
        const struct gcr_warp_insn *x = &a->u.insn, *y = &b->u.insn;
        return x->strided == y->strided && (!x->strided || x->stride == y->stride);
    }
    return true;
}

static inline bool same_records(const struct recs *a, const struct recs *b, bool hint)
{
    if (a->n != b->n) {
        fprintf(stderr, "record counts differ: %zu vs %zu\n", a->n, b->n);
        return false;
    }
    for (size_t i = 0; i < a->n; i++)
        if (!same_record(&a->r[i], &b->r[i], hint)) {
            fprintf(stderr, "record %zu differs (kind %d)\n", i, (int)a->r[i].kind);
            return false;
        }
    return true;
}

#endif
