/* The structural rules of a record stream, implemented once for every trace reader and writer.
 *
 * A stream is valid when (include/gcreplay/record.h, trace-formats/README.md):
 *   - every record passes gcr_record_invalid() against the open kernel;
 *   - KERNEL_BEGIN appears only outside a kernel, KERNEL_END only inside one and with the open
 *     kernel's id; WARP_INSN and NONMEM only inside a kernel, MEMCPY only outside;
 *   - within a kernel all records of one CTA are contiguous: a CTA whose run of records has
 *     ended never reappears (the replay engine loads a whole CTA when it dispatches it);
 *   - the trace does not end inside a kernel.
 * A reader applies the rules to every record it decodes, so what it yields is a valid stream; a
 * writer applies them to every record it is given, so it never writes a file its reader would
 * reject. Messages carry no place: each format prefixes its own (line, block and record, record
 * number). */
#ifndef GCREPLAY_CORE_STREAM_H
#define GCREPLAY_CORE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcreplay/error.h"
#include "gcreplay/record.h"

/* The rule a refused record broke, for a format that adds a hint of its own after the shared
 * message (e.g. the text format names the missing `end` line of a nested kernel). */
enum gcr_stream_rule {
    GCR_STREAM_RULE_NONE = 0,      /* no rule: the refusal was for lack of memory */
    GCR_STREAM_RULE_VALID_RECORD,  /* gcr_record_invalid() found a problem */
    GCR_STREAM_RULE_NO_NESTING,    /* a kernel begins while another is open */
    GCR_STREAM_RULE_END_INSIDE,    /* a kernel end outside any kernel */
    GCR_STREAM_RULE_END_MATCHES,   /* a kernel end with another id than the open kernel's */
    GCR_STREAM_RULE_INSN_INSIDE,   /* a warp instruction or non-memory count outside a kernel */
    GCR_STREAM_RULE_MEMCPY_OUTSIDE, /* a memcpy inside a kernel */
    GCR_STREAM_RULE_CTA_CONTIGUOUS  /* a CTA reappears after its run of records ended */
};

/* The CTAs of the open kernel whose run of records has ended. A kernel may declare up to
 * 2^32-1 CTAs, so a flat bitmap sized from the grid could need 512 MiB for a trace of three
 * records. The set is two-level instead: a table of pointers sized from the grid (at most
 * 64 Ki entries) and 8-KiB chunks of bits allocated only when a CTA inside them finishes, so
 * memory grows with the CTAs actually present. Internal to stream.c. */
struct gcr_cta_set {
    uint64_t **chunks;
    size_t nchunks;
};

/* The stream so far. Zero-initialised it is ready for the first record; release it with
 * gcr_stream_rules_free(). Callers may read `broken`; the rest is reached through the
 * functions below. */
struct gcr_stream_rules {
    bool in_kernel;
    bool in_cta_run;                /* run_cta holds the CTA of the open kernel's latest record */
    uint32_t run_cta;
    struct gcr_kernel_begin kernel; /* the open kernel; its name is not kept (NULL) */
    uint32_t warps_per_cta;         /* of the open kernel, for the fast path */
    struct gcr_cta_set finished;    /* CTAs of the open kernel whose run has ended */
    enum gcr_stream_rule broken;    /* after a GCR_E_FORMAT refusal: the rule it enforced */
};

/* The general case of gcr_stream_rules_apply(); call that instead. */
enum gcr_status gcr_stream_rules_apply_slow(struct gcr_stream_rules *s,
                                            const struct gcr_record *rec, char *why,
                                            size_t why_len);

/* Checks rec against the stream so far and, if it is acceptable, advances the stream.
 * Returns GCR_OK, or GCR_E_FORMAT (a broken rule, named in s->broken) or GCR_E_NOMEM with a
 * message in why that has no place prefix. A refused record leaves the stream unchanged.
 *
 * Inline because readers call it for every record: the common case, one more instruction of the
 * current CTA's run, costs a few compares and the record's own validity check; everything else
 * (kernel boundaries, a new CTA, every refusal) takes the out-of-line path. */
/* The common case, decided without calling gcr_record_invalid(): another
 * record of the current CTA's run whose fields are all in range. It accepts
 * exactly what gcr_record_invalid() accepts for such a record (the CTA id was
 * checked against the grid when its run began); anything else takes the slow
 * path, which also words the refusal. */
static inline bool gcr_stream_rules_same_run_ok(const struct gcr_stream_rules *s,
                                                const struct gcr_record *rec)
{
    if (rec->kind == GCR_REC_WARP_INSN) {
        const struct gcr_warp_insn *in = &rec->u.insn;
        return in->cta == s->run_cta && in->warp < s->warps_per_cta && in->op < GCR_OP_COUNT &&
               in->space < GCR_SPACE_COUNT && in->cache_op < GCR_CACHEOP_COUNT &&
               in->width >= 1 && in->width <= GCR_MAX_WIDTH;
    }
    if (rec->kind == GCR_REC_NONMEM)
        return rec->u.nonmem.cta == s->run_cta && rec->u.nonmem.warp < s->warps_per_cta &&
               rec->u.nonmem.count != 0;
    return false;
}

static inline enum gcr_status gcr_stream_rules_apply(struct gcr_stream_rules *s,
                                                     const struct gcr_record *rec, char *why,
                                                     size_t why_len)
{
    if (__builtin_expect(s->in_cta_run && gcr_stream_rules_same_run_ok(s, rec), 1))
        return GCR_OK;
    return gcr_stream_rules_apply_slow(s, rec, why, why_len);
}

enum gcr_status gcr_stream_rules_finish(const struct gcr_stream_rules *s, char *why,
                                        size_t why_len);

/* The open kernel (its name is NULL), or NULL outside kernels. */
const struct gcr_kernel_begin *gcr_stream_rules_kernel(const struct gcr_stream_rules *s);

/* Releases the bookkeeping; s is zero-initialised (ready) again afterwards. */
void gcr_stream_rules_free(struct gcr_stream_rules *s);

#endif
