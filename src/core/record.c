#include "gcreplay/record.h"

#include <string.h>

static const char *const op_names[GCR_OP_COUNT] = {"load", "store", "atomic", "reduction"};
static const char *const space_names[GCR_SPACE_COUNT] = {"global", "local", "shared", "const",
                                                         "texture"};
static const char *const cache_op_names[GCR_CACHEOP_COUNT] = {"default", "bypass_l1"};
static const char *const unit_names[GCR_UNIT_COUNT] = {"?", "int", "sp", "dp", "sfu", "tensor",
                                                            "branch", "tex"};

const char *gcr_op_name(enum gcr_op op)
{
    return (unsigned)op < GCR_OP_COUNT ? op_names[op] : "?";
}

const char *gcr_space_name(enum gcr_space space)
{
    return (unsigned)space < GCR_SPACE_COUNT ? space_names[space] : "?";
}

const char *gcr_cache_op_name(enum gcr_cache_op c)
{
    return (unsigned)c < GCR_CACHEOP_COUNT ? cache_op_names[c] : "?";
}

static int lookup(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

int gcr_op_from_name(const char *s) { return lookup(op_names, GCR_OP_COUNT, s); }
int gcr_space_from_name(const char *s) { return lookup(space_names, GCR_SPACE_COUNT, s); }
int gcr_cache_op_from_name(const char *s) { return lookup(cache_op_names, GCR_CACHEOP_COUNT, s); }

const char *gcr_unit_name(enum gcr_unit u)
{
    return (unsigned)u < GCR_UNIT_COUNT ? unit_names[u] : "?";
}

int gcr_unit_from_name(const char *s)
{
    int u = lookup(unit_names, GCR_UNIT_COUNT, s);
    return u > 0 ? u : -1;
}

bool gcr_insn_stride(const struct gcr_warp_insn *insn, uint64_t *base, int64_t *stride)
{
    uint32_t m = insn->active_mask;
    *base = 0;
    *stride = 0;
    if (!m)
        return true;
    if (m == 0xffffffffu) { /* the common full warp: a straight loop the compiler unrolls */
        uint64_t s = insn->addr[1] - insn->addr[0];
        bool same = true;
        for (int lane = 2; lane < GCR_WARP_SIZE; lane++)
            same &= insn->addr[lane] - insn->addr[lane - 1] == s;
        if (!same)
            return false;
        *base = insn->addr[0];
        *stride = (int64_t)s;
        return true;
    }
    int first = __builtin_ctz(m);
    *base = insn->addr[first];
    m &= m - 1;
    if (!m)
        return true;
    int second = __builtin_ctz(m);
    uint64_t s = insn->addr[second] - insn->addr[first];
    uint64_t expect = insn->addr[second];
    m &= m - 1;
    while (m) {
        int lane = __builtin_ctz(m);
        expect += s;
        if (insn->addr[lane] != expect)
            return false;
        m &= m - 1;
    }
    *stride = (int64_t)s;
    return true;
}

/* x * y * z, or UINT64_MAX if it does not fit. */
static uint64_t product3(const uint32_t d[3])
{
    uint64_t xy, xyz;
    if (__builtin_mul_overflow((uint64_t)d[0], (uint64_t)d[1], &xy) ||
        __builtin_mul_overflow(xy, (uint64_t)d[2], &xyz))
        return UINT64_MAX;
    return xyz;
}

uint64_t gcr_kernel_ctas(const struct gcr_kernel_begin *k) { return product3(k->grid); }
uint64_t gcr_kernel_threads_per_cta(const struct gcr_kernel_begin *k) { return product3(k->block); }

uint32_t gcr_kernel_warps_per_cta(const struct gcr_kernel_begin *k)
{
    uint64_t warps = gcr_kernel_threads_per_cta(k) / GCR_WARP_SIZE +
                     (gcr_kernel_threads_per_cta(k) % GCR_WARP_SIZE != 0);
    return warps > UINT32_MAX ? UINT32_MAX : (uint32_t)warps;
}

const char *gcr_kernel_dims_invalid(const uint32_t grid[3], const uint32_t block[3])
{
    for (int i = 0; i < 3; i++)
        if (grid[i] == 0 || block[i] == 0)
            return "kernel grid and block dimensions must be >= 1";
    if (product3(block) > GCR_MAX_THREADS_PER_CTA)
        return "kernel block has more than 1024 threads (CUDA's limit)";
    if (grid[0] > GCR_MAX_GRID_X)
        return "kernel grid's x dimension is above 2147483647 (CUDA's limit: below 2^31)";
    if (grid[1] > GCR_MAX_GRID_YZ || grid[2] > GCR_MAX_GRID_YZ)
        return "kernel grid's y or z dimension is above 65535 (CUDA's limit)";
    if (product3(grid) > UINT32_MAX)
        return "kernel grid has more than 2^32-1 CTAs";
    return NULL;
}

const char *gcr_record_invalid(const struct gcr_record *rec, const struct gcr_kernel_begin *kb)
{
    switch (rec->kind) {
    case GCR_REC_KERNEL_BEGIN: {
        const struct gcr_kernel_begin *k = &rec->u.kbegin;
        const char *dims = gcr_kernel_dims_invalid(k->grid, k->block);
        if (dims)
            return dims;
        if (!k->name)
            return "kernel has no name";
        return NULL;
    }
    case GCR_REC_KERNEL_END:
        return NULL;
    case GCR_REC_MEMCPY:
        if (rec->u.memcpy.bytes > GCR_MAX_MEMCPY_BYTES)
            return "memcpy larger than 1 TiB";
        if (rec->u.memcpy.bytes && rec->u.memcpy.dst + (rec->u.memcpy.bytes - 1) <
                                       rec->u.memcpy.dst)
            return "memcpy range wraps past the end of the address space";
        return NULL;
    case GCR_REC_WARP_INSN: {
        const struct gcr_warp_insn *in = &rec->u.insn;
        if (in->op >= GCR_OP_COUNT)
            return "unknown opcode class";
        if (in->space >= GCR_SPACE_COUNT)
            return "unknown memory space";
        if (in->cache_op >= GCR_CACHEOP_COUNT)
            return "unknown cache operator";
        if (in->width == 0 || in->width > GCR_MAX_WIDTH)
            return "access width must be 1..256 bytes";
        const char *bad_waits = gcr_waits_invalid(in->waits, true, 0);
        if (bad_waits)
            return bad_waits;
        if (kb && in->cta >= gcr_kernel_ctas(kb))
            return "CTA id outside the kernel's grid";
        if (kb && in->warp >= gcr_kernel_warps_per_cta(kb))
            return "warp id outside the kernel's CTA";
        return NULL;
    }
    case GCR_REC_NONMEM: {
        const struct gcr_nonmem *nm = &rec->u.nonmem;
        if (nm->count == 0)
            return "non-memory instruction count must be >= 1";
        const char *bad_waits = gcr_waits_invalid(nm->waits, false, nm->count);
        if (bad_waits)
            return bad_waits;
        if (kb && nm->cta >= gcr_kernel_ctas(kb))
            return "CTA id outside the kernel's grid";
        if (kb && nm->warp >= gcr_kernel_warps_per_cta(kb))
            return "warp id outside the kernel's CTA";
        return NULL;
    }
    }
    return "unknown record kind";
}

bool gcr_record_same(const struct gcr_record *a, const struct gcr_record *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case GCR_REC_KERNEL_BEGIN: {
        const struct gcr_kernel_begin *x = &a->u.kbegin, *y = &b->u.kbegin;
        return x->id == y->id && memcmp(x->grid, y->grid, sizeof x->grid) == 0 &&
               memcmp(x->block, y->block, sizeof x->block) == 0 &&
               x->shmem_bytes == y->shmem_bytes && x->regs_per_thread == y->regs_per_thread &&
               strcmp(x->name, y->name) == 0;
    }
    case GCR_REC_KERNEL_END:
        return a->u.kend.id == b->u.kend.id;
    case GCR_REC_MEMCPY:
        return a->u.memcpy.dst == b->u.memcpy.dst && a->u.memcpy.bytes == b->u.memcpy.bytes;
    case GCR_REC_NONMEM:
        return a->u.nonmem.cta == b->u.nonmem.cta && a->u.nonmem.warp == b->u.nonmem.warp &&
               a->u.nonmem.count == b->u.nonmem.count && a->u.nonmem.waits == b->u.nonmem.waits;
    case GCR_REC_WARP_INSN: {
        const struct gcr_warp_insn *x = &a->u.insn, *y = &b->u.insn;
        if (x->cta != y->cta || x->warp != y->warp || x->pc != y->pc || x->op != y->op ||
            x->space != y->space || x->cache_op != y->cache_op || x->width != y->width ||
            x->active_mask != y->active_mask || x->waits != y->waits)
            return false;
        for (int lane = 0; lane < GCR_WARP_SIZE; lane++)
            if ((x->active_mask >> lane & 1u) && x->addr[lane] != y->addr[lane])
                return false;
        return true;
    }
    }
    return false;
}
