/* The one record type that flows through the pipeline.
 *
 * Every trace reader turns its input into a stream of struct gcr_record and
 * every writer consumes one. Within a kernel (between KERNEL_BEGIN and
 * KERNEL_END) all records of one CTA are contiguous: the replay engine loads
 * a whole CTA when it dispatches it, exactly as a GPU's block scheduler and
 * Accel-Sim's trace parser do. Records of different warps of one CTA may be
 * interleaved in any order; per-warp order is program order. */
#ifndef GCREPLAY_RECORD_H
#define GCREPLAY_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GCR_WARP_SIZE 32

enum gcr_rec_kind {
    GCR_REC_KERNEL_BEGIN = 1,
    GCR_REC_KERNEL_END = 2,
    GCR_REC_WARP_INSN = 3, /* one warp memory instruction */
    GCR_REC_NONMEM = 4,    /* N non-memory instructions of one warp */
    GCR_REC_MEMCPY = 5     /* host-to-device copy before/between kernels */
};

/* Opcode class of a memory instruction. */
enum gcr_op {
    GCR_OP_LOAD = 0,
    GCR_OP_STORE = 1,
    GCR_OP_ATOMIC = 2,    /* returns a value (ATOM/ATOMG) */
    GCR_OP_REDUCTION = 3, /* no return value (RED) */
    GCR_OP_COUNT
};

enum gcr_space {
    GCR_SPACE_GLOBAL = 0,
    GCR_SPACE_LOCAL = 1,
    GCR_SPACE_SHARED = 2,  /* on-chip scratchpad: never reaches the caches */
    GCR_SPACE_CONST = 3,   /* constant cache: not modelled, counted only */
    GCR_SPACE_TEXTURE = 4, /* texture cache: not modelled, counted only */
    GCR_SPACE_COUNT
};

/* Cache operator carried by the instruction (PTX ld.ca / ld.cg ...). */
enum gcr_cache_op {
    GCR_CACHEOP_DEFAULT = 0,
    GCR_CACHEOP_BYPASS_L1 = 1, /* .cg / .STRONG.GPU: served by L2 only */
    GCR_CACHEOP_COUNT
};

struct gcr_kernel_begin {
    uint32_t id;
    uint32_t grid[3];  /* CTAs in x, y, z */
    uint32_t block[3]; /* threads per CTA in x, y, z */
    uint32_t shmem_bytes;     /* shared memory per CTA */
    uint32_t regs_per_thread;
    const char *name; /* NUL-terminated; owned by the reader, valid until its next call */
};

struct gcr_kernel_end {
    uint32_t id;
};

struct gcr_warp_insn {
    uint32_t cta;  /* linear CTA id: z*gx*gy + y*gx + x */
    uint32_t warp; /* warp index inside the CTA */
    uint64_t pc;
    uint8_t op;       /* enum gcr_op */
    uint8_t space;    /* enum gcr_space */
    uint8_t cache_op; /* enum gcr_cache_op */
    uint16_t width;   /* bytes accessed per active lane, 1..GCR_MAX_WIDTH */
    uint32_t active_mask;
    uint64_t addr[GCR_WARP_SIZE]; /* lane i meaningful iff bit i of active_mask */
    /* Optional hint from a reader whose input already says so: when true, the
     * k-th active lane (ascending lane order) accesses addr[first active] +
     * k*stride. addr[] is filled either way (except for a consumer that asked
     * for lazy addresses: gcr_reader_set_lazy_addresses); false only means "not known".
     * gcr_reader_next clears it for formats that do not declare they set it,
     * so the replay engine can trust it; writers ignore it. */
    bool strided;
    uint32_t waits; /* register dependencies: see GCR_WAITS_KNOWN */
    int64_t stride;
};

#define GCR_MAX_WIDTH 256

/* Register dependencies, for the timing backend's per-warp scoreboard
 * (src/timing/README.md). A trace that gives each instruction's registers
 * (Accel-Sim's) lets its reader say, per record, which of the warp's earlier
 * memory instructions must have returned their data before it issues: the
 * ones that wrote a register it reads or overwrites, and that no instruction
 * in between has waited for already. waits is 0 when the trace gives no
 * registers (the timing backend then keeps every load blocking its warp);
 * otherwise GCR_WAITS_KNOWN is set and bit k (k < GCR_WAIT_WINDOW) means
 * "the (k+1)-th memory instruction of this warp before this record", the last
 * bit standing for that one and every older one. For a NONMEM record the
 * waits belong to the first instruction of the run: a reader starts a new run
 * at an instruction that waits. */
#define GCR_WAITS_KNOWN (UINT32_C(1) << 31)
/* With GCR_WAITS_KNOWN: the instruction is a CTA-wide barrier (BAR.SYNC): the warp waits
 * there until every warp of its CTA that has not finished has reached one. */
#define GCR_WAITS_BARRIER (UINT32_C(1) << 30)
#define GCR_WAIT_WINDOW 16
#define GCR_WAITS_MASK ((UINT32_C(1) << GCR_WAIT_WINDOW) - 1)

/* With GCR_WAITS_KNOWN, a trace that names the registers of every instruction (Accel-Sim's)
 * may also give the dependencies on non-memory instructions, so the timing backend can issue
 * independent ones back to back (src/timing/README.md, "Non-memory instructions"):
 * - bit GCR_WAITS_ALU_SHIFT + k (k < GCR_ALU_WINDOW): the (k+1)-th non-memory instruction
 *   of this warp before this one wrote a register this one reads or overwrites (older
 *   producers are taken as done: each took at least a cycle to issue);
 * - the unit field (GCR_WAITS_UNIT_MASK): for a NONMEM record of one instruction, the
 *   execution unit that runs it (enum gcr_unit). A NONMEM record without a unit (every
 *   record of a trace that gives no units, and any run of several instructions) keeps the
 *   rule that each of its instructions waits for the one before; only such a record may
 *   count several instructions, so units and the ALU bits are per instruction.
 * The ALU bits may be set on a WARP_INSN (its address or data comes from an ALU result) and
 * on a NONMEM record with a unit; the unit only on a NONMEM record of count 1. A reader emits
 * them unless its consumer skips them (GCR_READ_SKIP_ALU, gcreplay/trace.h). */
#define GCR_ALU_WINDOW 10
#define GCR_WAITS_ALU_SHIFT 16
#define GCR_WAITS_ALU_MASK (((UINT32_C(1) << GCR_ALU_WINDOW) - 1) << GCR_WAITS_ALU_SHIFT)
#define GCR_WAITS_UNIT_SHIFT 26
#define GCR_WAITS_UNIT_MASK (UINT32_C(7) << GCR_WAITS_UNIT_SHIFT)
/* Every bit a valid waits may have. */
#define GCR_WAITS_ALL                                                                         \
    (GCR_WAITS_KNOWN | GCR_WAITS_BARRIER | GCR_WAITS_UNIT_MASK | GCR_WAITS_ALU_MASK |          \
     GCR_WAITS_MASK)

/* The execution units of non-memory instructions, as Accel-Sim's trace.config gives each
 * its latency and initiation interval (-trace_opcode_latency_initiation_*). */
enum gcr_unit {
    GCR_UNIT_NONE = 0, /* not given */
    GCR_UNIT_INT = 1,
    GCR_UNIT_SP = 2,
    GCR_UNIT_DP = 3,
    GCR_UNIT_SFU = 4,
    GCR_UNIT_TENSOR = 5,
    GCR_UNIT_BRANCH = 6, /* Accel-Sim's specialized unit 1 (BRA and other control) */
    GCR_UNIT_TEX = 7,    /* texture instructions (Accel-Sim's specialized unit 2) */
    GCR_UNIT_COUNT
};

static inline enum gcr_unit gcr_waits_unit(uint32_t waits)
{
    return (enum gcr_unit)((waits & GCR_WAITS_UNIT_MASK) >> GCR_WAITS_UNIT_SHIFT);
}
static inline uint32_t gcr_waits_with_unit(uint32_t waits, enum gcr_unit u)
{
    return (waits & ~GCR_WAITS_UNIT_MASK) | (uint32_t)u << GCR_WAITS_UNIT_SHIFT;
}

_Static_assert(GCR_UNIT_COUNT == (GCR_WAITS_UNIT_MASK >> GCR_WAITS_UNIT_SHIFT) + 1,
               "every value of the unit field names a unit");

/* What is wrong with the register dependencies of a warp instruction (insn) or of a NONMEM
 * record of count instructions, or NULL: the rules above, in gcr_record_invalid's words (which
 * it calls). For readers that check them where they decode them. A NONMEM count of 0 is not
 * judged here: gcr_record_invalid refuses the count itself. */
static inline const char *gcr_waits_invalid(uint32_t waits, bool insn, uint32_t count)
{
    if (waits & ~GCR_WAITS_ALL)
        return "register dependencies name memory instructions beyond the window";
    if (waits && !(waits & GCR_WAITS_KNOWN))
        return "register dependencies on a record whose registers are not known";
    bool unit = gcr_waits_unit(waits) != GCR_UNIT_NONE;
    if (insn)
        return unit ? "an execution unit on a memory instruction" : NULL;
    if (unit && count > 1)
        return "an execution unit on a run of several non-memory instructions";
    if (count && !unit && (waits & GCR_WAITS_ALU_MASK))
        return "non-memory dependencies on a non-memory run without an execution unit";
    return NULL;
}

struct gcr_nonmem {
    uint32_t cta;
    uint32_t warp;
    uint32_t count; /* >= 1 */
    uint32_t waits; /* of the run's first instruction: see GCR_WAITS_KNOWN */
};

struct gcr_memcpy {
    uint64_t dst;
    uint64_t bytes; /* at most GCR_MAX_MEMCPY_BYTES; dst + bytes does not wrap */
};

#define GCR_MAX_MEMCPY_BYTES (UINT64_C(1) << 40)

struct gcr_record {
    enum gcr_rec_kind kind;
    union {
        struct gcr_kernel_begin kbegin;
        struct gcr_kernel_end kend;
        struct gcr_warp_insn insn;
        struct gcr_nonmem nonmem;
        struct gcr_memcpy memcpy;
    } u;
};

/* Names used in every text interface (text trace, reports, configs). */
const char *gcr_op_name(enum gcr_op op);          /* "load" "store" "atomic" "reduction" */
const char *gcr_space_name(enum gcr_space space); /* "global" "local" "shared" "const" "texture" */
const char *gcr_cache_op_name(enum gcr_cache_op c); /* "default" "bypass_l1" */
int gcr_op_from_name(const char *s);              /* -1 if unknown */
int gcr_space_from_name(const char *s);
int gcr_cache_op_from_name(const char *s);
const char *gcr_unit_name(enum gcr_unit u); /* "int" "sp" "dp" "sfu" "tensor" "branch" "tex"; "?" */
int gcr_unit_from_name(const char *s);       /* -1 if unknown (GCR_UNIT_NONE has no name) */

/* Compact lane-address forms shared by every writer.
 * Active lanes are numbered k = 0, 1, ... in ascending lane order.
 * Returns true if the k-th active lane's address is base + k*stride for all
 * active lanes (always true for 0 or 1 active lanes, with stride 0). Derived
 * from the addresses alone: the strided hint is not consulted. */
bool gcr_insn_stride(const struct gcr_warp_insn *insn, uint64_t *base, int64_t *stride);

/* Whether two records say the same thing: every field a trace carries, the
 * kernel's name and the register dependencies (waits) included. Inactive lanes' addresses and the readers' strided
 * hint are not part of what a record says, and are not compared. For tests
 * and fuzzers that check readers and writers against each other. */
bool gcr_record_same(const struct gcr_record *a, const struct gcr_record *b);

/* CUDA's limits on a launch, which every trace must respect (gcr_record_invalid): a CTA of at
 * most 1024 threads, a grid of at most 2^31-1 CTAs in x and 65535 in y and z. Counts derived
 * from a kernel's dimensions therefore never overflow. */
#define GCR_MAX_THREADS_PER_CTA 1024u
#define GCR_MAX_GRID_X 0x7fffffffu
#define GCR_MAX_GRID_YZ 65535u

/* NULL if grid and block are dimensions CUDA can launch, else a static description of the
 * first limit they break. For readers that check a kernel header where they parse it; the
 * stream rules check every kernel begin with it again. */
const char *gcr_kernel_dims_invalid(const uint32_t grid[3], const uint32_t block[3]);

/* Number of CTAs, threads per CTA and warps per CTA of a kernel. The products are checked: on
 * dimensions gcr_kernel_dims_invalid() refuses they saturate (UINT64_MAX, UINT32_MAX) instead
 * of wrapping, so no caller divides by a count that wrapped to 0. */
uint64_t gcr_kernel_ctas(const struct gcr_kernel_begin *k);
uint64_t gcr_kernel_threads_per_cta(const struct gcr_kernel_begin *k);
uint32_t gcr_kernel_warps_per_cta(const struct gcr_kernel_begin *k);

/* Checks the invariants every reader must guarantee for a record
 * (enum ranges, width, CTA/warp inside the kernel's grid when kb != NULL).
 * Returns NULL if fine, else a static description of the first problem. */
const char *gcr_record_invalid(const struct gcr_record *rec, const struct gcr_kernel_begin *kb);

#endif
