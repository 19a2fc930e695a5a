/* The stream rules shared by every trace format (see stream.h). */
#include "core/stream.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Set of finished CTAs ------------------------------------------------------------------ */

#define CTA_CHUNK_BITS 65536u /* 8 KiB of bits */
#define CTA_CHUNK_WORDS (CTA_CHUNK_BITS / 64u)

/* Sizes the pointer table for a kernel of `ctas` CTAs (at most 2^32-1: gcr_record_invalid). */
static int cta_set_init(struct gcr_cta_set *set, uint64_t ctas)
{
    size_t nchunks = (size_t)((ctas + CTA_CHUNK_BITS - 1) / CTA_CHUNK_BITS);
    uint64_t **chunks = calloc(nchunks ? nchunks : 1, sizeof *chunks);
    if (!chunks)
        return -1;
    set->chunks = chunks;
    set->nchunks = nchunks;
    return 0;
}

static void cta_set_free(struct gcr_cta_set *set)
{
    if (set->chunks)
        for (size_t i = 0; i < set->nchunks; i++)
            free(set->chunks[i]);
    free(set->chunks);
    set->chunks = NULL;
    set->nchunks = 0;
}

/* cta is inside the grid: gcr_record_invalid() has checked it. */
static bool cta_set_has(const struct gcr_cta_set *set, uint32_t cta)
{
    const uint64_t *chunk = set->chunks[cta / CTA_CHUNK_BITS];
    uint32_t bit = cta % CTA_CHUNK_BITS;
    return chunk && (chunk[bit / 64] >> (bit % 64) & 1u);
}

static int cta_set_add(struct gcr_cta_set *set, uint32_t cta)
{
    uint64_t **chunk = &set->chunks[cta / CTA_CHUNK_BITS];
    uint32_t bit = cta % CTA_CHUNK_BITS;
    if (!*chunk && !(*chunk = calloc(CTA_CHUNK_WORDS, sizeof **chunk)))
        return -1;
    (*chunk)[bit / 64] |= (uint64_t)1 << (bit % 64);
    return 0;
}

/* ---- Rules --------------------------------------------------------------------------------- */

static enum gcr_status refuse(struct gcr_stream_rules *s, enum gcr_stream_rule rule)
{
    s->broken = rule;
    return GCR_E_FORMAT;
}

static enum gcr_status out_of_memory(struct gcr_stream_rules *s, uint32_t kernel_id, char *why,
                                     size_t why_len)
{
    snprintf(why, why_len, "out of memory for the CTA bookkeeping of kernel %" PRIu32,
             kernel_id);
    s->broken = GCR_STREAM_RULE_NONE;
    return GCR_E_NOMEM;
}

/* Where the record stands relative to kernels, checked before the record itself: a record in
 * the wrong place is reported as such even if its fields are also wrong. */
static enum gcr_status check_placement(struct gcr_stream_rules *s, const struct gcr_record *rec,
                                       char *why, size_t why_len)
{
    switch (rec->kind) {
    case GCR_REC_KERNEL_BEGIN:
        if (s->in_kernel) {
            snprintf(why, why_len, "kernel %" PRIu32 " begins before kernel %" PRIu32
                     " has ended", rec->u.kbegin.id, s->kernel.id);
            return refuse(s, GCR_STREAM_RULE_NO_NESTING);
        }
        break;
    case GCR_REC_KERNEL_END:
        if (!s->in_kernel) {
            snprintf(why, why_len, "kernel end (id %" PRIu32 ") outside any kernel",
                     rec->u.kend.id);
            return refuse(s, GCR_STREAM_RULE_END_INSIDE);
        }
        if (rec->u.kend.id != s->kernel.id) {
            snprintf(why, why_len, "kernel end id %" PRIu32 " does not match the open kernel %"
                     PRIu32, rec->u.kend.id, s->kernel.id);
            return refuse(s, GCR_STREAM_RULE_END_MATCHES);
        }
        break;
    case GCR_REC_WARP_INSN:
    case GCR_REC_NONMEM:
        if (!s->in_kernel) {
            snprintf(why, why_len, "%s outside any kernel",
                     rec->kind == GCR_REC_WARP_INSN ? "warp instruction"
                                                    : "non-memory instruction count");
            return refuse(s, GCR_STREAM_RULE_INSN_INSIDE);
        }
        break;
    case GCR_REC_MEMCPY:
        if (s->in_kernel) {
            snprintf(why, why_len, "memcpy inside kernel %" PRIu32
                     " (copies are allowed only outside kernels)", s->kernel.id);
            return refuse(s, GCR_STREAM_RULE_MEMCPY_OUTSIDE);
        }
        break;
    }
    return GCR_OK;
}

/* The record's own fields. An out-of-range CTA or warp id is shown with the kernel's shape,
 * which is what one needs to see the mistake. (A record that is valid when checked without a
 * kernel has no problem but its CTA or warp id.) */
static enum gcr_status check_record(struct gcr_stream_rules *s, const struct gcr_record *rec,
                                    char *why, size_t why_len)
{
    const struct gcr_kernel_begin *kb = s->in_kernel ? &s->kernel : NULL;
    const char *invalid = gcr_record_invalid(rec, kb);
    if (!invalid)
        return GCR_OK;
    snprintf(why, why_len, "%s", invalid);
    if (rec->kind == GCR_REC_KERNEL_BEGIN) {
        const struct gcr_kernel_begin *k = &rec->u.kbegin;
        snprintf(why, why_len, "%s (kernel %" PRIu32 ": grid %" PRIu32 ",%" PRIu32 ",%" PRIu32
                 ", block %" PRIu32 ",%" PRIu32 ",%" PRIu32 ")", invalid, k->id, k->grid[0],
                 k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2]);
    }
    if (kb && (rec->kind == GCR_REC_WARP_INSN || rec->kind == GCR_REC_NONMEM) &&
        !gcr_record_invalid(rec, NULL)) {
        uint32_t cta = rec->kind == GCR_REC_WARP_INSN ? rec->u.insn.cta : rec->u.nonmem.cta;
        uint32_t warp = rec->kind == GCR_REC_WARP_INSN ? rec->u.insn.warp : rec->u.nonmem.warp;
        uint64_t ctas = gcr_kernel_ctas(kb);
        uint32_t warps = gcr_kernel_warps_per_cta(kb);
        snprintf(why, why_len, "%s (CTA %" PRIu32 ", warp %" PRIu32 "; kernel %" PRIu32
                 " has %" PRIu64 " CTA%s of %" PRIu32 " warp%s)", invalid, cta, warp, kb->id,
                 ctas, ctas == 1 ? "" : "s", warps, warps == 1 ? "" : "s");
    }
    return refuse(s, GCR_STREAM_RULE_VALID_RECORD);
}

/* An instruction record of another CTA than the current run's (or the kernel's first). */
static enum gcr_status start_cta_run(struct gcr_stream_rules *s, uint32_t cta, char *why,
                                     size_t why_len)
{
    /* cta differs from run_cta, so asking first leaves the stream untouched on a refusal. */
    if (cta_set_has(&s->finished, cta)) {
        snprintf(why, why_len, "CTA %" PRIu32 " reappears after its records ended; all records"
                 " of one CTA must be contiguous", cta);
        return refuse(s, GCR_STREAM_RULE_CTA_CONTIGUOUS);
    }
    if (s->in_cta_run && cta_set_add(&s->finished, s->run_cta) != 0)
        return out_of_memory(s, s->kernel.id, why, why_len);
    s->in_cta_run = true;
    s->run_cta = cta;
    return GCR_OK;
}

enum gcr_status gcr_stream_rules_apply_slow(struct gcr_stream_rules *s,
                                            const struct gcr_record *rec, char *why,
                                            size_t why_len)
{
    enum gcr_status st = check_placement(s, rec, why, why_len);
    if (st == GCR_OK)
        st = check_record(s, rec, why, why_len);
    if (st != GCR_OK)
        return st;

    switch (rec->kind) {
    case GCR_REC_KERNEL_BEGIN:
        if (cta_set_init(&s->finished, gcr_kernel_ctas(&rec->u.kbegin)) != 0)
            return out_of_memory(s, rec->u.kbegin.id, why, why_len);
        s->in_kernel = true;
        s->kernel = rec->u.kbegin;
        s->kernel.name = NULL; /* owned by the caller and only valid until its next record */
        s->warps_per_cta = gcr_kernel_warps_per_cta(&s->kernel);
        s->in_cta_run = false;
        break;
    case GCR_REC_KERNEL_END:
        cta_set_free(&s->finished);
        s->in_kernel = false;
        s->in_cta_run = false;
        break;
    case GCR_REC_WARP_INSN:
        if (!s->in_cta_run || rec->u.insn.cta != s->run_cta)
            return start_cta_run(s, rec->u.insn.cta, why, why_len);
        break;
    case GCR_REC_NONMEM:
        if (!s->in_cta_run || rec->u.nonmem.cta != s->run_cta)
            return start_cta_run(s, rec->u.nonmem.cta, why, why_len);
        break;
    case GCR_REC_MEMCPY:
        break;
    }
    return GCR_OK;
}

enum gcr_status gcr_stream_rules_finish(const struct gcr_stream_rules *s, char *why,
                                        size_t why_len)
{
    if (!s->in_kernel)
        return GCR_OK;
    snprintf(why, why_len, "trace ends inside kernel %" PRIu32 " before its kernel end",
             s->kernel.id);
    return GCR_E_FORMAT;
}

const struct gcr_kernel_begin *gcr_stream_rules_kernel(const struct gcr_stream_rules *s)
{
    return s->in_kernel ? &s->kernel : NULL;
}

void gcr_stream_rules_free(struct gcr_stream_rules *s)
{
    cta_set_free(&s->finished);
    memset(s, 0, sizeof *s);
}
