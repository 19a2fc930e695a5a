/* The example traces in examples/traces/ read cleanly and contain what their
 * header comments promise (checked from the records, not from the text). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcreplay/format.h"

extern const struct gcr_trace_format gcr_format_text;

#define EXAMPLES GCR_SOURCE_ROOT "/examples/traces/"
#define MAX_RECS 4096

static struct gcr_record recs[MAX_RECS];
static char names[8][64];

/* Reads a whole example; kernel names are copied (up to 8 kernels). */
static size_t read_example(const char *file)
{
    void *st;
    struct gcr_err err;
    size_t n = 0;
    int rc, kernels = 0;
    CHECK_EQ_U(gcr_format_text.reader_open(&st, NULL, file, &err), 0);
    while (n < MAX_RECS && (rc = gcr_format_text.reader_next(st, &recs[n], &err)) == 1) {
        if (recs[n].kind == GCR_REC_KERNEL_BEGIN && kernels < 8) {
            snprintf(names[kernels], sizeof names[kernels], "%s", recs[n].u.kbegin.name);
            recs[n].u.kbegin.name = names[kernels++];
        }
        n++;
    }
    if (rc != 0)
        fprintf(stderr, "%s\n", err.msg);
    CHECK_EQ_U(rc, 0);
    gcr_format_text.reader_close(st);
    return n;
}

static int popcount(uint32_t m)
{
    return __builtin_popcount(m);
}

static void test_vecadd(void)
{
    const uint64_t a = 0x7f0000000000, b = 0x7f0000100000;
    size_t n = read_example(EXAMPLES "vecadd.txt");
    CHECK_EQ_U(n, 2 + 1 + 32 * 4 * 6 + 1);
    if (n != 2 + 1 + 32 * 4 * 6 + 1)
        return;
    CHECK_EQ_U(recs[0].kind, GCR_REC_MEMCPY);
    CHECK_EQ_U(recs[0].u.memcpy.dst, a);
    CHECK_EQ_U(recs[0].u.memcpy.bytes, 4096 * 4);
    CHECK_EQ_U(recs[1].u.memcpy.dst, b);
    CHECK_EQ_U(recs[2].kind, GCR_REC_KERNEL_BEGIN);
    CHECK_EQ_U(gcr_kernel_ctas(&recs[2].u.kbegin), 32);
    CHECK_EQ_U(gcr_kernel_warps_per_cta(&recs[2].u.kbegin), 4);
    CHECK_EQ_U(recs[n - 1].kind, GCR_REC_KERNEL_END);

    /* Each warp in order: compute, ld a, ld b, compute, st c, compute; all
     * lanes active, lane j of warp w of CTA t touches element 128t + 32w + j. */
    size_t at = 3;
    for (uint32_t cta = 0; cta < 32; cta++) {
        for (uint32_t warp = 0; warp < 4; warp++) {
            const struct gcr_record *r = &recs[at];
            uint64_t first = 4u * (128u * cta + 32u * warp);
            static const uint64_t bases[3] = {0x7f0000000000, 0x7f0000100000, 0x7f0000200000};
            static const enum gcr_op ops[3] = {GCR_OP_LOAD, GCR_OP_LOAD, GCR_OP_STORE};
            static const int slot[3] = {1, 2, 4};
            CHECK(r[0].kind == GCR_REC_NONMEM && r[3].kind == GCR_REC_NONMEM &&
                  r[5].kind == GCR_REC_NONMEM);
            CHECK_EQ_U(r[0].u.nonmem.count + r[3].u.nonmem.count + r[5].u.nonmem.count, 13);
            for (int k = 0; k < 3; k++) {
                const struct gcr_warp_insn *in = &r[slot[k]].u.insn;
                CHECK_EQ_U(r[slot[k]].kind, GCR_REC_WARP_INSN);
                CHECK(in->cta == cta && in->warp == warp && in->op == ops[k]);
                CHECK(in->space == GCR_SPACE_GLOBAL && in->width == 4);
                CHECK_EQ_U(in->active_mask, 0xffffffff);
                for (int lane = 0; lane < 32; lane++)
                    CHECK_EQ_U(in->addr[lane], bases[k] + first + 4u * (uint64_t)lane);
            }
            at += 6;
        }
    }
}

/* Index of the 128-byte line holding byte `offset` of an 800-byte array: 0..6. */
static uint32_t line_of(uint64_t offset)
{
    return (uint32_t)(offset / 128);
}

static void test_stencil(void)
{
    const uint64_t in_base = 0x7f0000000000, tmp = 0x7f0000100000, out = 0x7f0000200000;
    const uint64_t w = 0x7f0000300000;
    size_t n = read_example(EXAMPLES "stencil.txt");
    int kernels = 0;
    int stores[2][200] = {{0}};
    uint32_t tmp_lines_written = 0, tmp_lines_read = 0; /* bit l = line l of tmp */
    int explicit_loads = 0, partial_warps = 0, const_uniform = 0;
    /* Warps that read each line of `in` in kernel 1, as a bit set of 8 warps. */
    uint32_t readers[8] = {0};
    bool cta3_warp1_mem = false, cta3_warp1_compute = false;

    for (size_t i = 0; i < n; i++) {
        const struct gcr_record *r = &recs[i];
        if (r->kind == GCR_REC_KERNEL_BEGIN) {
            kernels++;
            CHECK_EQ_U(gcr_kernel_ctas(&r->u.kbegin), 4);
            CHECK_EQ_U(gcr_kernel_warps_per_cta(&r->u.kbegin), 2);
        }
        if (r->kind == GCR_REC_NONMEM && r->u.nonmem.cta == 3 && r->u.nonmem.warp == 1)
            cta3_warp1_compute = true;
        if (r->kind != GCR_REC_WARP_INSN)
            continue;
        const struct gcr_warp_insn *x = &r->u.insn;
        int k = kernels - 1;
        uint64_t base;
        int64_t stride;
        if (x->cta == 3 && x->warp == 1)
            cta3_warp1_mem = true;
        if (x->cta == 3 && x->warp == 0) {
            CHECK_EQ_U(x->active_mask, 0xff);
            partial_warps++;
        }
        if (!gcr_insn_stride(x, &base, &stride))
            explicit_loads++;
        for (int lane = 0; lane < 32; lane++) {
            if (!(x->active_mask >> lane & 1u))
                continue;
            uint64_t a = x->addr[lane];
            uint32_t elem = x->cta * 64 + x->warp * 32 + (uint32_t)lane;
            if (x->op == GCR_OP_STORE) {
                CHECK_EQ_U(a, (k == 0 ? tmp : out) + 4u * elem);
                if (k >= 0 && k < 2 && elem < 200)
                    stores[k][elem]++;
                if (k == 0)
                    tmp_lines_written |= 1u << line_of(a - tmp);
            } else if (x->space == GCR_SPACE_CONST) {
                CHECK(a >= w && a < w + 12);
                const_uniform += lane == 0 && stride == 0 && popcount(x->active_mask) > 1;
            } else if (k == 0) {
                CHECK(a >= in_base && a < in_base + 800);
                readers[line_of(a - in_base)] |= 1u << (x->cta * 2 + x->warp);
            } else {
                CHECK(a >= tmp && a < tmp + 800);
                tmp_lines_read |= 1u << line_of(a - tmp);
            }
        }
    }
    CHECK_EQ_U(kernels, 2);
    for (int k = 0; k < 2; k++)
        for (int e = 0; e < 200; e++)
            CHECK_EQ_U(stores[k][e], 1); /* every element written exactly once per pass */
    CHECK(cta3_warp1_compute);
    CHECK(!cta3_warp1_mem);
    CHECK_EQ_U(partial_warps, 2 * 4 + 3); /* 4 accesses in kernel 1, 7 in kernel 2 */
    CHECK_EQ_U(explicit_loads, 4);         /* i = 0 and i = 199 in both passes */
    CHECK(const_uniform > 0);
    /* Neighbour reuse: lines of `in` read by more than one warp. */
    int shared_lines = 0;
    for (int l = 0; l < 7; l++)
        shared_lines += popcount(readers[l]) > 1;
    CHECK(shared_lines >= 5);
    /* Kernel 2 reads exactly the tmp lines kernel 1 wrote: all 7 of them. */
    CHECK_EQ_U(tmp_lines_written, 0x7f);
    CHECK_EQ_U(tmp_lines_read, 0x7f);
}

int main(void)
{
    test_vecadd();
    test_stencil();
    CHECK_DONE();
}
