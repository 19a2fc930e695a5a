/* The Accel-Sim trace format: kernelslist.g and kernel-N.traceg files written by Accel-Sim's
 * NVBit tracer and its post-processor, tracer versions 3 to 6. Read-only.
 *
 * trace-formats/accelsim/README.md specifies what is accepted and how each instruction becomes
 * records; this file is its only implementation. The reader streams: a kernel list line by
 * line, each kernel file line by line through a byte source that decompresses xz, gzip and zstd
 * in-process (src/io/bytesrc.h). Memory is bounded by the longest line, one record held back,
 * the opcode cache and the stream rules' set of finished CTAs.
 *
 * Instruction lines are the hot path (a trace holds billions of them): fields are scanned by
 * hand, opcodes are classified once per distinct opcode string and then found in a small hash
 * table, a line that repeats an earlier one of its PC is not parsed again (the line memo), and
 * nothing is allocated per line. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/bits.h"
#include "core/stream.h"
#include "gcreplay/format.h"
#include "io/bytesrc.h"

/* ---- Opcodes -------------------------------------------------------------------------------- */

/* What an opcode's mnemonic (its text before the first '.') makes of a line. */
enum op_class {
    CL_OTHER = 0,     /* a known opcode that is not a modelled memory access */
    CL_UNKNOWN,       /* in no Accel-Sim opcode map: counted, treated as CL_OTHER */
    CL_LOAD_GLOBAL,   /* LDG, LDGSTS */
    CL_LOAD_LOCAL,    /* LDL */
    CL_STORE_GLOBAL,  /* STG */
    CL_STORE_LOCAL,   /* STL */
    CL_LOAD_SHARED,   /* LDS, LDSM */
    CL_STORE_SHARED,  /* STS */
    CL_ATOMIC_GLOBAL, /* ATOM, ATOMG */
    CL_ATOMIC_SHARED, /* ATOMS */
    CL_REDUCTION,     /* RED */
    CL_LOAD_GENERIC,  /* LD: space from the header's address windows */
    CL_STORE_GENERIC, /* ST */
    CL_LOAD_CONST,    /* LDC */
    CL_TMA            /* Hopper bulk copies, with their own address grammar */
};

/* The SASS mnemonics of Accel-Sim's opcode maps (gpu-simulator/ISA_Def/{kepler,pascal,volta,
 * turing,ampere,hopper}_opcode.h), merged, in strcmp order for bsearch. Anything else is an
 * unknown opcode. */
static const char *const known_mnemonics[] = {
    "ARRIVES", "ATOM", "ATOMG", "ATOMS", "B2R", "BAR", "BFE", "BFI", "BMMA", "BMOV", "BMSK", "BPT",
    "BRA", "BREAK", "BREV", "BRK", "BRX", "BRXU", "BSSY", "BSYNC", "CAL", "CALL", "CCTL", "CCTLL",
    "CCTLT", "CGAERRBAR", "CONT", "CS2R", "CSET", "CSETP", "CSMTEST", "DADD", "DEPBAR", "DFMA",
    "DMMA", "DMNMX", "DMUL", "DSET", "DSETP", "ELECT", "ERRBAR", "EXIT", "F2F", "F2FP", "F2I",
    "F2IP", "FADD", "FADD32I", "FCHK", "FCMP", "FENCE", "FFMA", "FFMA32I", "FLO", "FMNMX", "FMUL",
    "FMUL32I", "FRND", "FSEL", "FSET", "FSETP", "FSWZ", "FSWZADD", "GETLMEMBASE", "HADD2",
    "HADD2_32I", "HFMA2", "HFMA2_32I", "HGMMA", "HMMA", "HMNMX2", "HMUL2", "HMUL2_32I", "HSET2",
    "HSETP2", "I2F", "I2FP", "I2I", "I2IP", "IABS", "IADD", "IADD3", "IADD32I", "ICMP", "IDP",
    "IDP4A", "IMAD", "IMADSP", "IMMA", "IMNMX", "IMUL", "IMUL32I", "ISAD", "ISCADD", "ISCADD32I",
    "ISET", "ISETP", "ISUB", "JCAL", "JMP", "JMX", "JMXU", "KILL", "LD", "LDC", "LDG", "LDGDEPBAR",
    "LDGSTS", "LDL", "LDS", "LDSLK", "LDSM", "LEA", "LEPC", "LOP", "LOP3", "LOP32I", "MATCH",
    "MEMBAR", "MOV", "MOV32I", "MOVM", "MUFU", "NANOSLEEP", "NOP", "P2R", "PBK", "PCNT", "PEXIT",
    "PLOP3", "PMTRIG", "POPC", "PRET", "PRMT", "PSET", "PSETP", "QGMMA", "QSPC", "R2B", "R2P",
    "R2UR", "RED", "REDUX", "RET", "RPCMOV", "RRO", "RTT", "S2R", "S2UR", "SEL", "SETCTAID",
    "SETLMEMBASE", "SGXT", "SHF", "SHFL", "SHL", "SHR", "SSY", "ST", "STG", "STL", "STS", "STSCUL",
    "SUATOM", "SUBFM", "SUCLAMP", "SUEAU", "SULD", "SULDGA", "SUQUERY", "SURED", "SUST", "SUSTGA",
    "SYNC", "SYNCS", "TEX", "TEXS", "TLD", "TLD4", "TLD4S", "TLDS", "TMML", "TXD", "TXQ", "UBLKCP",
    "UBLKPF", "UBLKRED", "UBMSK", "UBREV", "UCGABAR_ARV", "UCGABAR_WAIT", "UCLEA", "UF2FP", "UFLO",
    "UIADD3", "UIMAD", "UISETP", "ULDC", "ULEA", "ULOP", "ULOP3", "ULOP32I", "UMOV", "UP2UR",
    "UPLOP3", "UPOPC", "UPRMT", "UPSETP", "UR2UP", "USEL", "USETMAXREG", "USGXT", "USHF", "USHL",
    "USHR", "UTMACCTL", "UTMACMDFLUSH", "UTMALDG", "UTMAPF", "UTMAREDG", "UTMASTG", "VABSDIFF",
    "VABSDIFF4", "VADD", "VIADD", "VIADDMNMX", "VIMNMX", "VIMNMX3", "VMNMX", "VOTE", "VOTEU",
    "VOTE_VTG", "WARPGROUP", "WARPSYNC", "XMAD", "YIELD",
};

/* The mnemonics Accel-Sim's trace_driven.cc turns into memory accesses. */
static const struct {
    const char *mnemonic;
    enum op_class cls;
} memory_mnemonics[] = {
    {"ATOM", CL_ATOMIC_GLOBAL}, {"ATOMG", CL_ATOMIC_GLOBAL}, {"ATOMS", CL_ATOMIC_SHARED},
    {"LD", CL_LOAD_GENERIC},    {"LDC", CL_LOAD_CONST},      {"LDG", CL_LOAD_GLOBAL},
    {"LDGSTS", CL_LOAD_GLOBAL}, {"LDL", CL_LOAD_LOCAL},      {"LDS", CL_LOAD_SHARED},
    {"LDSM", CL_LOAD_SHARED},   {"RED", CL_REDUCTION},       {"ST", CL_STORE_GENERIC},
    {"STG", CL_STORE_GLOBAL},   {"STL", CL_STORE_LOCAL},     {"STS", CL_STORE_SHARED},
};

/* The execution unit of each non-memory mnemonic, as Accel-Sim's opcode maps
 * (gpu-simulator/ISA_Def/ *_opcode.h) categorise it and its trace_driven.cc gives each category
 * a latency and initiation interval from trace.config; in strcmp order for bsearch (the
 * maps merged: IMMA, for one, is a tensor-core instruction from Turing on). The rest runs on
 * the integer unit, as GPGPU-Sim runs Accel-Sim's INTP_OP and ALU_OP instructions (MOV, S2R,
 * conversions...) and EXIT and BAR there when the config has integer units (unit_of). */
static const struct unit_mnemonic {
    const char *mnemonic;
    enum gcr_unit unit;
} unit_mnemonics[] = {
    {"BMMA", GCR_UNIT_TENSOR},   {"BMOV", GCR_UNIT_BRANCH},     {"BPT", GCR_UNIT_BRANCH},
    {"BRA", GCR_UNIT_BRANCH},    {"BREAK", GCR_UNIT_BRANCH},    {"BRX", GCR_UNIT_BRANCH},
    {"BRXU", GCR_UNIT_BRANCH},   {"BSSY", GCR_UNIT_BRANCH},     {"BSYNC", GCR_UNIT_BRANCH},
    {"CALL", GCR_UNIT_BRANCH},   {"DADD", GCR_UNIT_DP},         {"DFMA", GCR_UNIT_DP},
    {"DMMA", GCR_UNIT_TENSOR},   {"DMNMX", GCR_UNIT_DP},        {"DMUL", GCR_UNIT_DP},
    {"DSET", GCR_UNIT_DP},       {"DSETP", GCR_UNIT_DP},        {"FADD", GCR_UNIT_SP},
    {"FADD32I", GCR_UNIT_SP},    {"FCHK", GCR_UNIT_SP},         {"FFMA", GCR_UNIT_SP},
    {"FFMA32I", GCR_UNIT_SP},    {"FMNMX", GCR_UNIT_SP},        {"FMUL", GCR_UNIT_SP},
    {"FMUL32I", GCR_UNIT_SP},    {"FSEL", GCR_UNIT_SP},         {"FSET", GCR_UNIT_SP},
    {"FSETP", GCR_UNIT_SP},      {"FSWZADD", GCR_UNIT_SP},      {"HADD2", GCR_UNIT_SP},
    {"HADD2_32I", GCR_UNIT_SP},  {"HFMA2", GCR_UNIT_SP},        {"HFMA2_32I", GCR_UNIT_SP},
    {"HGMMA", GCR_UNIT_TENSOR},  {"HMMA", GCR_UNIT_TENSOR},     {"HMNMX2", GCR_UNIT_SP},
    {"HMUL2", GCR_UNIT_SP},      {"HMUL2_32I", GCR_UNIT_SP},    {"HSET2", GCR_UNIT_SP},
    {"HSETP2", GCR_UNIT_SP},     {"IMMA", GCR_UNIT_TENSOR},     {"JMP", GCR_UNIT_BRANCH},
    {"JMX", GCR_UNIT_BRANCH},    {"KILL", GCR_UNIT_BRANCH},     {"MUFU", GCR_UNIT_SFU},
    {"NANOSLEEP", GCR_UNIT_BRANCH}, {"QGMMA", GCR_UNIT_TENSOR}, {"RET", GCR_UNIT_BRANCH},
    {"RPCMOV", GCR_UNIT_BRANCH}, {"RTT", GCR_UNIT_BRANCH},      {"TEX", GCR_UNIT_TEX},
    {"TEXS", GCR_UNIT_TEX},      {"TLD", GCR_UNIT_TEX},         {"TLD4", GCR_UNIT_TEX},
    {"TLD4S", GCR_UNIT_TEX},     {"TLDS", GCR_UNIT_TEX},        {"TMML", GCR_UNIT_TEX},
    {"TXD", GCR_UNIT_TEX},       {"TXQ", GCR_UNIT_TEX},         {"WARPSYNC", GCR_UNIT_BRANCH},
    {"YIELD", GCR_UNIT_BRANCH},
};

static int cmp_unit_mnemonic(const void *key, const void *elem)
{
    return strcmp(key, ((const struct unit_mnemonic *)elem)->mnemonic);
}

static enum gcr_unit unit_of(const char *mnemonic)
{
    const struct unit_mnemonic *u =
        bsearch(mnemonic, unit_mnemonics, sizeof unit_mnemonics / sizeof unit_mnemonics[0],
                sizeof unit_mnemonics[0], cmp_unit_mnemonic);
    return u ? u->unit : GCR_UNIT_INT;
}

/* Opcodes whose lines carry Accel-Sim's TMA address fields (trace_parser.cc matches them
 * anywhere in the opcode). */
static const char *const tma_opcodes[] = {"UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG",
                                          "UBLKCP",  "UBLKPF",  "UBLKRED"};

/* Accel-Sim's size of the local-memory window for generic accesses (GPGPU-Sim 4.x
 * abstract_hardware_model.h: LOCAL_MEM_SIZE_MAX = 1 << 14). */
#define LOCAL_WINDOW_BYTES (1u << 14)

/* Everything the reader needs to know about one opcode string. */
struct opinfo {
    uint8_t cls;        /* enum op_class */
    uint8_t cache_op;   /* enum gcr_cache_op */
    bool gmma;          /* a GMMA commit-group field follows the sources (tracer version 6) */
    bool barrier;       /* BAR (not BAR.ARV): a CTA-wide barrier its warps wait at */
    uint8_t unit;       /* enum gcr_unit of a non-memory instruction (unit_of) */
    uint16_t width;     /* bytes per lane by Accel-Sim's rule; 0 if outside 1..GCR_MAX_WIDTH */
    uint64_t width_raw; /* the rule's value before the range check, for the message */
    int counter;        /* index in the unknown or ignored-address counters; -1 until needed */
};

#define NAME_MAX_LEN 47 /* longest opcode kept in the cache / mnemonic in the counters */

/* Open-addressing cache of opcode strings (with modifiers) to their opinfo. Distinct opcode
 * strings are few (a few hundred in a large application); a table filled to three quarters
 * stops caching and classifies each further new string on every line. The table holds 16-bit
 * numbers of entries taken in order (their array untouched beyond them), so the memory used
 * grows with the strings met, not with the slots, which a hash spreads over every page. */
#define OPCACHE_SLOTS 4096u
#define OPCACHE_ENTRIES (OPCACHE_SLOTS / 4 * 3)
struct opslot {
    uint32_t hash;
    uint8_t len;
    char name[NAME_MAX_LEN + 1];
    struct opinfo info;
};

/* Per-mnemonic counts for the report of `gcreplay info`; bounded, the rest share one entry. */
#define COUNTERS_MAX 256
struct counters {
    struct {
        char name[NAME_MAX_LEN + 1];
        uint64_t count;
    } e[COUNTERS_MAX];
    int n;
};

static int counter_index(struct counters *c, const char *name, size_t len)
{
    if (len > NAME_MAX_LEN)
        len = NAME_MAX_LEN;
    for (int i = 0; i < c->n; i++)
        if (strlen(c->e[i].name) == len && memcmp(c->e[i].name, name, len) == 0)
            return i;
    if (c->n == COUNTERS_MAX - 1) { /* the last entry gathers every further name */
        snprintf(c->e[c->n].name, sizeof c->e[c->n].name, "(others)");
        c->e[c->n].count = 0;
        c->n++;
    }
    if (c->n == COUNTERS_MAX)
        return COUNTERS_MAX - 1;
    memcpy(c->e[c->n].name, name, len);
    c->e[c->n].name[len] = '\0';
    c->e[c->n].count = 0;
    return c->n++;
}

static int cmp_mnemonic(const void *key, const void *elem)
{
    return strcmp(key, *(const char *const *)elem);
}

/* Does the '.'-separated token list of op contain tok? */
static bool has_token(const char *op, size_t n, const char *tok)
{
    size_t tl = strlen(tok);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && op[j] != '.')
            j++;
        if (j - i == tl && memcmp(op + i, tok, tl) == 0)
            return true;
        i = j + 1;
    }
    return false;
}

static bool contains(const char *op, size_t n, const char *s)
{
    size_t sl = strlen(s);
    for (size_t i = 0; i + sl <= n; i++)
        if (memcmp(op + i, s, sl) == 0)
            return true;
    return false;
}

/* Accel-Sim's access width (get_datawidth_from_opcode): the first '.'-token that is a decimal
 * number gives the width in bits, or the first "U<number>" token; otherwise 4 bytes. Bytes are
 * bits / 8, rounded down as Accel-Sim does. Saturates instead of overflowing. */
static uint64_t opcode_width(const char *op, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && op[j] != '.')
            j++;
        size_t k = i < j && op[i] == 'U' ? i + 1 : i;
        bool number = k < j;
        uint64_t bits = 0;
        for (size_t m = k; m < j && number; m++) {
            if (op[m] < '0' || op[m] > '9')
                number = false;
            else if (bits < UINT64_MAX / 100)
                bits = bits * 10 + (uint64_t)(op[m] - '0');
        }
        if (number)
            return bits / 8;
        i = j + 1;
    }
    return 4;
}

/* Classifies an opcode string (the slow path, once per distinct string). */
static void classify(const char *op, size_t n, struct opinfo *info)
{
    char mnemonic[NAME_MAX_LEN + 1];
    size_t i = 0, m = 0;
    while (i < n && op[i] == '.') /* Accel-Sim drops empty tokens */
        i++;
    while (i < n && op[i] != '.' && m < NAME_MAX_LEN)
        mnemonic[m++] = op[i++];
    mnemonic[m] = '\0';

    memset(info, 0, sizeof *info);
    info->counter = -1;
    info->cls = CL_UNKNOWN;
    if (bsearch(mnemonic, known_mnemonics, sizeof known_mnemonics / sizeof known_mnemonics[0],
                sizeof known_mnemonics[0], cmp_mnemonic))
        info->cls = CL_OTHER;
    for (size_t k = 0; k < sizeof memory_mnemonics / sizeof memory_mnemonics[0]; k++)
        if (strcmp(mnemonic, memory_mnemonics[k].mnemonic) == 0)
            info->cls = (uint8_t)memory_mnemonics[k].cls;
    for (size_t k = 0; k < sizeof tma_opcodes / sizeof tma_opcodes[0]; k++)
        if (contains(op, n, tma_opcodes[k]))
            info->cls = CL_TMA;
    info->unit = (uint8_t)unit_of(mnemonic);
    info->gmma = contains(op, n, "GMMA");
    info->barrier = strcmp(mnemonic, "BAR") == 0 && !has_token(op, n, "ARV");

    /* Accel-Sim: LDG, LDGSTS and LDL with both .STRONG and .GPU use CACHE_GLOBAL (L1 bypass). */
    if ((info->cls == CL_LOAD_GLOBAL || info->cls == CL_LOAD_LOCAL) &&
        has_token(op, n, "STRONG") && has_token(op, n, "GPU"))
        info->cache_op = GCR_CACHEOP_BYPASS_L1;
    /* LDC: Accel-Sim sets 4 bytes whatever the modifiers say. */
    info->width_raw = info->cls == CL_LOAD_CONST ? 4 : opcode_width(op, n);
    info->width = info->width_raw >= 1 && info->width_raw <= GCR_MAX_WIDTH
                      ? (uint16_t)info->width_raw : 0;
}

/* ---- Reader state --------------------------------------------------------------------------- */

enum header_key {
    HK_NAME, HK_ID, HK_GRID, HK_BLOCK, HK_SHMEM, HK_NREGS, HK_BINARY, HK_SHMEM_BASE,
    HK_LOCAL_BASE, HK_VERSION, HK_LINEINFO, HK_COUNT
};

static const char *const header_keys[HK_COUNT] = {
    "kernel name", "kernel id", "grid dim", "block dim", "shmem", "nregs", "binary version",
    "shmem base_addr", "local mem base_addr", "accelsim tracer version", "enable lineinfo",
};

/* How the header lines look, for messages about missing ones. */
static const char *const header_forms[HK_COUNT] = {
    "-kernel name = <name>", "-kernel id = <n>", "-grid dim = (<x>,<y>,<z>)",
    "-block dim = (<x>,<y>,<z>)", "-shmem = <bytes>", "-nregs = <n>", "-binary version = <n>",
    "-shmem base_addr = <hex>", "-local mem base_addr = <hex>",
    "-accelsim tracer version = <n>", "-enable lineinfo = <0|1>",
};

#define REQUIRED_KEYS                                                                            \
    ((1u << HK_NAME) | (1u << HK_ID) | (1u << HK_GRID) | (1u << HK_BLOCK) | (1u << HK_SHMEM) |  \
     (1u << HK_NREGS) | (1u << HK_VERSION))

struct kheader {
    char *name;
    uint32_t id, grid[3], block[3], shmem, nregs, binary_version, version;
    bool lineinfo;
    uint64_t shmem_base, local_base;
    uint32_t seen; /* bit per enum header_key */
};

/* Where the kernel file's body is. */
enum body_state {
    B_BETWEEN,   /* outside thread blocks */
    B_TB,        /* after #BEGIN_TB, before the first `warp =` */
    B_WARP_HEAD, /* after `warp = w`, expecting `insts = n` */
    B_WARP       /* instruction lines of a warp */
};

#define MAX_WARPS_PER_CTA (65536 / GCR_WARP_SIZE)

/* Register dependencies of one warp (gcreplay/record.h, GCR_WAITS_KNOWN): which general
 * registers (R0..R254; R255 is RZ) wait for the data of one of the warp's memory
 * instructions, numbered 0, 1, ... in program order. An instruction that reads or
 * overwrites such a register waits for that memory instruction, as GPGPU-Sim's scoreboard
 * checks both an instruction's sources and its destinations; once one has waited, the data is
 * there for every later reader. */
#define NUM_REGS 255
struct reg_deps {
    uint32_t writer[NUM_REGS]; /* 1 + the memory instruction whose data the register awaits; 0: none */
    uint32_t mem_seq;          /* memory instructions of the warp so far */
    uint32_t recent_done;      /* bit k: the (k+1)-th memory instruction back was waited for */
    uint32_t done_below;       /* every memory instruction numbered below was waited for */
    uint32_t waits;            /* of the instruction being parsed */
    uint8_t dst[8];            /* its first destination registers */
    uint32_t ndst;
    /* The same for non-memory instructions (GCR_WAITS_ALU_MASK): 1 + the number of the
     * non-memory instruction that last wrote each register (0: none, or a memory one), and
     * how many the warp has issued. Unlike a load's data, an ALU result needs no waiting
     * for: every reader within the window names its producer. */
    uint32_t alu_writer[NUM_REGS];
    uint32_t alu_seq;
    bool track_alu; /* the consumer reads them (no GCR_READ_SKIP_ALU); kept across resets */
};

/* The line memo. Every warp of every thread block runs the same code, so the line of a PC comes
 * back again and again with the same mask, registers and opcode, often with the same address
 * deltas too, only the base address differing. The reader keeps, per slot (a hash of the line's
 * first field, its PC, or of its first 8 bytes; direct mapped), the last line that parsed
 * without error there and what it parsed to. A line whose bytes up to the end of its memory width field
 * are those of the memo, followed by a separator, parses to the same fields (same kernel file,
 * so the same header): they are taken from the memo, and only the register dependencies are
 * applied again. Past that, a base+deltas line whose bytes after the base address (deltas and
 * tail) are the memo's takes its lanes' offsets from the memo, and a non-memory line whose
 * whole rest is the memo's is complete. Equal bytes parse equally, so nothing a full parse
 * would reject gets through, and the records are the same. The slots hold indices into lines
 * allocated in blocks as they are first needed, so the memory taken grows with the lines a
 * trace has, not with the slots. */
#define MEMO_SLOTS 512u
#define MEMO_TEXT 256 /* longest line kept, its '\n' included */
#define MEMO_REGS 16  /* register operands kept (those below NUM_REGS) */
struct line_memo {
    uint32_t gen;  /* the kernel file's memo_gen when it holds a line */
    uint16_t len;  /* bytes of text: the line and its '\n' */
    uint16_t head; /* bytes of the line through its memory width field */
    uint16_t rest; /* where the part compared whole starts (0: none): after the base address of
                    * a base+deltas line, after head for a non-memory line */
    uint16_t op_at;
    uint8_t op_len;
    uint8_t ndst_field, nsrc_field; /* the register counts the line gives */
    uint8_t ndst, nregs; /* regs[0..ndst): destinations, then sources, in line order */
    uint8_t regs[MEMO_REGS];
    uint32_t mask;
    uint64_t pc, memw;
    struct opinfo *info; /* in the opcode cache, which lives as long as the reader */
    int32_t lane_off[GCR_WARP_SIZE]; /* with rest, a base+deltas line's: lane's address - base */
    char text[MEMO_TEXT];
};

#define MEMO_BLOCK 16u
struct line_memos {
    uint16_t slot[MEMO_SLOTS]; /* 1 + the number of the slot's line; 0: none yet */
    uint32_t used;             /* lines given to a slot */
    struct line_memo *block[MEMO_SLOTS / MEMO_BLOCK]; /* line i: block[i / MEMO_BLOCK] */
};

static inline struct line_memo *memo_line(const struct line_memos *ms, uint32_t i)
{
    return &ms->block[i / MEMO_BLOCK][i % MEMO_BLOCK];
}

static void memo_free(struct line_memos *ms)
{
    if (!ms)
        return;
    for (uint32_t b = 0; b < MEMO_SLOTS / MEMO_BLOCK; b++)
        free(ms->block[b]);
    free(ms);
}

struct accelsim_reader {
    char *path; /* as given */
    const struct gcr_files *files; /* where path and the kernel files it names are read */
    /* The kernel list, or NULL for a single kernel file. */
    struct gcr_lines *list;
    char *list_path;
    char *list_dir; /* prefix for kernel file names: "" or ending in '/' */
    uint64_t list_line, list_pos;
    bool directory;
    /* The open kernel file. */
    struct gcr_lines *kf;
    char *kpath;
    struct kheader h;
    bool begin_pending; /* a single kernel file's KERNEL_BEGIN is still to be returned */
    uint64_t line; /* number of the kernel file's current line */
    uint64_t header_end_line;
    enum body_state st;
    bool have_tb;
    uint32_t tb[3], cta, warps_per_cta;
    uint64_t tb_line;
    uint32_t warp, insts, insts_seen;
    uint64_t insts_line;
    uint64_t warp_seen[MAX_WARPS_PER_CTA / 64];
    uint32_t pending; /* non-memory instructions of the current warp not yet returned */
    uint32_t pending_waits; /* the register dependencies of the pending run's first one */
    struct reg_deps deps;   /* the current warp's registers (GCR_WAITS_KNOWN) */
    bool held_valid;  /* a memory instruction waits behind a NONMEM record */
    uint64_t held_line;
    struct gcr_record held;
    bool lazy;
    unsigned skips; /* GCR_READ_SKIP_*: what the consumer does not read */
    struct line_memos *memo; /* allocated with the first kernel file */
    uint32_t memo_gen;      /* of the open kernel file: a slot of another one is empty */
    struct gcr_stream_rules rules;
    uint16_t *op_slots;  /* OPCACHE_SLOTS: 1 + the number of the slot's entry in ops; 0: empty */
    struct opslot *ops;  /* OPCACHE_ENTRIES */
    unsigned ops_used;
    struct counters *unknown, *ignored;
    /* Totals for reader_describe. */
    uint64_t kernels, memcpys, thread_blocks, insns, mem_insns, tma_insns, list_ignored;
    uint64_t codec_files[GCR_CODEC_COUNT];
    uint32_t last_version, last_binary;
    uint64_t files_bytes_done; /* of kernel files already closed */
    bool failed;
    struct gcr_err err;
};

/* ---- Errors --------------------------------------------------------------------------------- */

static int fail_at(struct accelsim_reader *r, struct gcr_err *err, enum gcr_status st,
                   const char *file, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 6, 7), cold));

static int fail_at(struct accelsim_reader *r, struct gcr_err *err, enum gcr_status st,
                   const char *file, uint64_t line, const char *fmt, ...)
{
    char what[GCR_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    /* A line the file ends inside, with no line end, was most likely cut short. */
    const struct gcr_lines *lines = r->kf && file == r->kpath && line == r->line ? r->kf
                                    : r->list && file == r->list_path && line == r->list_line
                                        ? r->list
                                        : NULL;
    bool cut = lines && gcr_lines_ended_inside(lines) && st != GCR_E_TRUNCATED; /* said so */
    r->failed = true;
    gcr_fail(&r->err, st, "%s:%" PRIu64 ": %s%s", file, line, what,
             cut ? " (the file ends inside this line, without a line end: is it cut short?)"
                 : "");
    if (err)
        *err = r->err;
    return -1;
}

/* An error from below (byte source, line reader) that already names its place. */
static int fail_with(struct accelsim_reader *r, struct gcr_err *err, const struct gcr_err *e)
{
    r->failed = true;
    r->err = *e;
    if (err)
        *err = r->err;
    return -1;
}

#define KFAIL(r, err, st, ...) fail_at((r), (err), (st), (r)->kpath, (r)->line, __VA_ARGS__)

/* A printable, bounded rendition of a field for messages: lines may hold any byte. */
#define SHOW_MAX 40
static const char *show(const char *t, const char *q, char buf[SHOW_MAX + 4])
{
    size_t n = (size_t)(q - t), k = n < SHOW_MAX ? n : SHOW_MAX;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)t[i];
        buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (n > SHOW_MAX)
        memcpy(buf + k, "...", 3), k += 3;
    buf[k] = '\0';
    return buf;
}

/* ---- Fields and numbers --------------------------------------------------------------------- */

/* Bounded scanning of [p, end), for header, kernel-list and block lines, instruction tails and
 * the cold paths; instruction fields have faster readers below. */

static inline const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static inline const char *field_end(const char *p, const char *end)
{
    while (p < end && *p != ' ' && *p != '\t')
        p++;
    return p;
}

/* The next field of the line, [*t, *q); false at the end of the line. */
static inline bool next_field(const char **p, const char *end, const char **t, const char **q)
{
    *t = skip_blanks(*p, end);
    *q = field_end(*t, end);
    *p = *q;
    return *t < *q;
}

enum num_result { NUM_OK, NUM_SYNTAX, NUM_RANGE };

static const unsigned char hex_value[256] = {
#define H16 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, \
            0xff, 0xff
    H16, H16, H16,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    H16,
    0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    H16, H16, H16, H16, H16, H16, H16, H16, H16
#undef H16
};

/* Hexadecimal with or without 0x (Accel-Sim reads with std::hex, which accepts both). */
static inline enum num_result parse_hex(const char *t, const char *q, uint64_t *out)
{
    if (q - t >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
        t += 2;
    if (t == q)
        return NUM_SYNTAX;
    while (q - t > 1 && *t == '0')
        t++;
    uint64_t v = 0;
    enum num_result res = q - t > 16 ? NUM_RANGE : NUM_OK;
    for (; t < q; t++) {
        unsigned d = hex_value[(unsigned char)*t];
        if (d > 15)
            return NUM_SYNTAX;
        v = v << 4 | d;
    }
    *out = v;
    return res;
}

static inline enum num_result parse_dec(const char *t, const char *q, uint64_t max, uint64_t *out)
{
    if (t == q)
        return NUM_SYNTAX;
    uint64_t v = 0;
    enum num_result res = NUM_OK;
    for (; t < q; t++) {
        unsigned d = (unsigned)(*t - '0');
        if (d > 9)
            return NUM_SYNTAX;
        if (v > (max - d) / 10)
            res = NUM_RANGE; /* keep scanning: junk after the digits is the worse problem */
        else
            v = v * 10 + d;
    }
    *out = v;
    return res;
}

/* A signed decimal in [-max_neg, max_pos]; '+' and '-' signs as C++ streams accept them. */
static inline enum num_result parse_sdec(const char *t, const char *q, uint64_t max_neg,
                                         uint64_t max_pos, int64_t *out)
{
    bool neg = t < q && *t == '-';
    if (t < q && (*t == '-' || *t == '+'))
        t++;
    uint64_t v;
    enum num_result res = parse_dec(t, q, neg ? max_neg : max_pos, &v);
    if (res == NUM_OK)
        *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return res;
}

static int bad_number(struct accelsim_reader *r, struct gcr_err *err, enum num_result res,
                      const char *t, const char *q, const char *what, const char *kind,
                      const char *range) __attribute__((cold));

static int bad_number(struct accelsim_reader *r, struct gcr_err *err, enum num_result res,
                      const char *t, const char *q, const char *what, const char *kind,
                      const char *range)
{
    char b[SHOW_MAX + 4];
    if (res == NUM_SYNTAX)
        return KFAIL(r, err, GCR_E_FORMAT, "bad %s '%s': expected a %s number", what,
                     show(t, q, b), kind);
    return KFAIL(r, err, GCR_E_FORMAT, "%s '%s' is out of range (%s)", what, show(t, q, b), range);
}

static int missing(struct accelsim_reader *r, struct gcr_err *err, const char *what)
    __attribute__((cold));

static int missing(struct accelsim_reader *r, struct gcr_err *err, const char *what)
{
    return KFAIL(r, err, GCR_E_FORMAT, "missing %s", what);
}

/* ---- Instruction fields --------------------------------------------------------------------- */

/* Instruction lines are the hot path. The line reader puts a '\n' after every line and a line
 * holds none (bytesrc.h), so these helpers scan until a separator without checking the line's
 * length, and read each number in the same pass that finds its end. Anything unusual (a
 * syntax error, a long number) takes a cold path that rescans the field with the bounded
 * parsers above and words the error. */
static const unsigned char separator[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1};

static inline const char *blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static inline const char *word_end(const char *p)
{
    while (!separator[(unsigned char)*p])
        p++;
    return p;
}

static int field_slow(struct accelsim_reader *r, struct gcr_err *err, const char **pp,
                      const char *what, char kind, uint64_t max_neg, uint64_t max_pos,
                      const char *range, uint64_t *v) __attribute__((cold, noinline));

/* The cold path of the field readers: kind 'x' hexadecimal, 'u' decimal, 's' signed decimal. */
static int field_slow(struct accelsim_reader *r, struct gcr_err *err, const char **pp,
                      const char *what, char kind, uint64_t max_neg, uint64_t max_pos,
                      const char *range, uint64_t *v)
{
    const char *t = blanks(*pp), *q = word_end(t);
    if (t == q)
        return missing(r, err, what);
    enum num_result res;
    int64_t sv = 0;
    if (kind == 'x')
        res = parse_hex(t, q, v);
    else if (kind == 'u')
        res = parse_dec(t, q, max_pos, v);
    else if ((res = parse_sdec(t, q, max_neg, max_pos, &sv)) == NUM_OK)
        *v = (uint64_t)sv;
    if (res != NUM_OK)
        return bad_number(r, err, res, t, q, what, kind == 'x' ? "hexadecimal" : "decimal",
                          range);
    *pp = q;
    return 0;
}

/* The next field as a hexadecimal number, with or without 0x (Accel-Sim reads with std::hex,
 * which accepts both). 0, or -1 with the error reported. */
static inline int hex_field(struct accelsim_reader *r, struct gcr_err *err, const char **pp,
                            const char *what, uint64_t *v)
{
    const char *p = blanks(*pp);
    if (p[0] == '0' && (p[1] | 0x20) == 'x')
        p += 2;
    const char *digits = p;
    uint64_t x = 0;
    unsigned d;
    while ((d = hex_value[(unsigned char)*p]) < 16) {
        x = x << 4 | d;
        p++;
    }
    if (__builtin_expect(p == digits || p - digits > 16 || !separator[(unsigned char)*p], 0))
        return field_slow(r, err, pp, what, 'x', 0, 0, "more than 64 bits", v);
    *v = x;
    *pp = p;
    return 0;
}

/* The next field as a decimal number of at most max. */
static inline int dec_field(struct accelsim_reader *r, struct gcr_err *err, const char **pp,
                            const char *what, uint64_t max, const char *range, uint64_t *v)
{
    const char *p = blanks(*pp), *digits = p;
    uint64_t x = 0;
    unsigned d;
    while ((d = (unsigned)(*p - '0')) < 10) {
        x = x * 10 + d;
        p++;
    }
    /* Up to 18 digits cannot overflow 64 bits. */
    if (__builtin_expect(p == digits || p - digits > 18 || x > max ||
                         !separator[(unsigned char)*p], 0))
        return field_slow(r, err, pp, what, 'u', 0, max, range, v);
    *v = x;
    *pp = p;
    return 0;
}

/* The next field as a signed decimal in [-max_neg, max_pos] ('+' and '-' as C++ streams take
 * them). */
static inline int sdec_field(struct accelsim_reader *r, struct gcr_err *err, const char **pp,
                             const char *what, uint64_t max_neg, uint64_t max_pos,
                             const char *range, int64_t *v)
{
    const char *p = blanks(*pp);
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    const char *digits = p;
    uint64_t x = 0;
    unsigned d;
    while ((d = (unsigned)(*p - '0')) < 10) {
        x = x * 10 + d;
        p++;
    }
    if (__builtin_expect(p == digits || p - digits > 18 || x > (neg ? max_neg : max_pos) ||
                         !separator[(unsigned char)*p], 0)) {
        uint64_t u = 0;
        int rc = field_slow(r, err, pp, what, 's', max_neg, max_pos, range, &u);
        *v = (int64_t)u;
        return rc;
    }
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    *pp = p;
    return 0;
}

#define DEC_RANGE_U32 "maximum 4294967295"

static void deps_reset(struct reg_deps *d)
{
    bool track_alu = d->track_alu;
    memset(d, 0, sizeof *d);
    d->track_alu = track_alu;
}

/* Adds to the instruction's waits the memory instruction register reg awaits, unless an
 * earlier instruction has waited for it already, and the non-memory instruction within the
 * window that wrote it. */
static inline void deps_use(struct reg_deps *d, unsigned reg)
{
    uint32_t a = d->track_alu ? d->alu_writer[reg] : 0;
    if (a) {
        uint32_t dist = d->alu_seq - (a - 1); /* 1: the last non-memory instruction */
        if (dist <= GCR_ALU_WINDOW)
            d->waits |= UINT32_C(1) << (GCR_WAITS_ALU_SHIFT + dist - 1);
        else
            d->alu_writer[reg] = 0; /* done long ago */
    }
    uint32_t w = d->writer[reg];
    if (!w)
        return;
    uint32_t dist = d->mem_seq - (w - 1); /* 1: the last memory instruction */
    bool done = dist <= GCR_WAIT_WINDOW ? d->recent_done >> (dist - 1) & 1
                                        : w - 1 < d->done_below;
    if (done) {
        d->writer[reg] = 0;
        return;
    }
    d->waits |= UINT32_C(1) << (dist < GCR_WAIT_WINDOW ? dist - 1 : GCR_WAIT_WINDOW - 1);
}

/* The instruction is complete: what it waited for has arrived, its destinations await its
 * own data if it is a memory instruction (else nothing), and it takes the next number if so. */
static inline void deps_issue(struct reg_deps *d, bool memory)
{
    uint32_t m = d->waits & GCR_WAITS_MASK;
    d->recent_done |= m;
    if (m >> (GCR_WAIT_WINDOW - 1)) /* the last bit: that one and every older one */
        d->done_below = d->mem_seq - (GCR_WAIT_WINDOW - 1); /* never lower: see below */
    for (uint32_t i = 0; i < d->ndst; i++)
        if (d->dst[i] < NUM_REGS) {
            d->writer[d->dst[i]] = memory ? d->mem_seq + 1 : 0;
            if (d->track_alu)
                d->alu_writer[d->dst[i]] = memory ? 0 : d->alu_seq + 1;
        }
    if (!memory)
        d->alu_seq++;
    if (memory) {
        /* The oldest of the window leaves it: if it was waited for and the ones before it
         * too, the watermark covers it. */
        if (d->recent_done >> (GCR_WAIT_WINDOW - 1) & 1 &&
            d->done_below == d->mem_seq - GCR_WAIT_WINDOW)
            d->done_below++;
        d->recent_done = (d->recent_done << 1) & GCR_WAITS_MASK;
        d->mem_seq++;
    }
}

/* The next field, a register name, which must exist: its number for R0..R254, else NUM_REGS
 * (RZ, uniform and predicate registers, which no memory instruction of this model writes). */
static inline int reg_field(struct accelsim_reader *r, struct gcr_err *err, const char **pp,
                            const char *what, unsigned *reg)
{
    const char *p = blanks(*pp);
    if (__builtin_expect(*p == '\n', 0))
        return missing(r, err, what);
    unsigned n = NUM_REGS;
    if (p[0] == 'R' && (unsigned)(p[1] - '0') < 10) {
        const char *q = p + 1;
        n = 0;
        while ((unsigned)(*q - '0') < 10 && n < NUM_REGS)
            n = n * 10 + (unsigned)(*q++ - '0');
        if (!separator[(unsigned char)*q] || n > NUM_REGS)
            n = NUM_REGS;
    }
    *reg = n;
    *pp = word_end(p);
    return 0;
}

/* ---- Opcode cache --------------------------------------------------------------------------- */

/* A cheap hash of an opcode string (rotate and xor: no multiply chain on the hot path). */
static inline uint32_t hash_step(uint32_t h, unsigned char c)
{
    return ((h << 5) | (h >> 27)) ^ c;
}

/* The opinfo of an opcode string of hash h; *scratch holds it when the cache does not. */
static inline struct opinfo *lookup_opcode(struct accelsim_reader *r, const char *op, size_t n,
                                           uint32_t h, struct opinfo *scratch)
{
    if (__builtin_expect(n <= NAME_MAX_LEN, 1)) {
        for (uint32_t i = (h ^ h >> 12) & (OPCACHE_SLOTS - 1);; i = (i + 1) & (OPCACHE_SLOTS - 1)) {
            uint16_t k = r->op_slots[i];
            if (k) {
                struct opslot *s = &r->ops[k - 1];
                if (__builtin_expect(s->hash == h && s->len == n, 1) &&
                    memcmp(s->name, op, n) == 0)
                    return &s->info;
                continue;
            }
            if (r->ops_used >= OPCACHE_ENTRIES)
                break;
            struct opslot *s = &r->ops[r->ops_used++];
            r->op_slots[i] = (uint16_t)r->ops_used;
            s->hash = h;
            s->len = (uint8_t)n;
            memcpy(s->name, op, n);
            classify(op, n, &s->info);
            return &s->info;
        }
    }
    classify(op, n, scratch);
    return scratch;
}

/* Counts an unknown opcode, or a known one whose addresses are ignored, by its mnemonic. */
static void count_opcode(struct counters *c, struct opinfo *info, const char *op, size_t n)
{
    if (info->counter < 0) {
        size_t i = 0;
        while (i < n && op[i] == '.')
            i++;
        size_t m = i;
        while (m < n && op[m] != '.')
            m++;
        info->counter = counter_index(c, op + i, m - i);
    }
    c->e[info->counter].count++;
}

/* ---- Instruction lines ---------------------------------------------------------------------- */

/* The rest of a line after the address fields: tracer versions 5 and 6 end every instruction
 * with an immediate; version 6 may add a second one and register values ("Val" blocks) or
 * "NoVal". Nothing else may follow: on anything else, *clean is false and *p is left at it. */
static int parse_tail(struct accelsim_reader *r, struct gcr_err *err, const char **p,
                      const char *end, uint32_t ndst, uint32_t nsrc, bool *clean)
{
    const char *t, *q, *save;
    uint64_t v;
    *clean = true;
    if (r->h.version >= 5) {
        if (!next_field(p, end, &t, &q))
            return KFAIL(r, err, GCR_E_FORMAT, "missing immediate (tracer version %" PRIu32
                         " ends every instruction line with one)", r->h.version);
        /* Accel-Sim reads it in the base its stream was left in: accept either. */
        const char *d = *t == '-' || *t == '+' ? t + 1 : t;
        enum num_result res = parse_hex(d, q, &v);
        if (res != NUM_OK)
            return bad_number(r, err, res, t, q, "immediate", "integer", "more than 64 bits");
    }
    if (r->h.version >= 6) {
        save = *p;
        if (next_field(p, end, &t, &q) && parse_dec(t, q, UINT64_MAX, &v) == NUM_OK)
            save = *p; /* the second immediate */
        *p = save;
        if (next_field(p, end, &t, &q)) {
            if (q - t == 3 && memcmp(t, "Val", 3) == 0) {
                for (uint32_t i = 0; i < ndst + nsrc; i++) {
                    if (dec_field(r, err, p, "register value count", 32, "maximum 32", &v) != 0)
                        return -1;
                    if (v != 1 && v != 32)
                        return KFAIL(r, err, GCR_E_FORMAT, "register value count %" PRIu64
                                     " must be 1 (one value for all lanes) or 32", v);
                    uint64_t value;
                    for (uint64_t k = 0; k < v; k++)
                        if (hex_field(r, err, p, "register value", &value) != 0)
                            return -1;
                }
            } else if (!(q - t == 5 && memcmp(t, "NoVal", 5) == 0)) {
                *p = t;
            }
        }
    }
    const char *rest = skip_blanks(*p, end);
    if (rest < end) {
        *p = rest;
        *clean = false;
    }
    return 0;
}

static int count_fields(const char *p, const char *end)
{
    const char *t, *q;
    int n = 0;
    while (next_field(&p, end, &t, &q))
        n++;
    return n;
}

static int extra_field(struct accelsim_reader *r, struct gcr_err *err, const char *p,
                       const char *end) __attribute__((cold));

static int extra_field(struct accelsim_reader *r, struct gcr_err *err, const char *p,
                       const char *end)
{
    char b[SHOW_MAX + 4];
    const char *t, *q;
    next_field(&p, end, &t, &q);
    return KFAIL(r, err, GCR_E_FORMAT, "unexpected extra field '%s'", show(t, q, b));
}

/* A line whose address list is too long or too short; listed counts the address (or delta)
 * fields the line really has. */
static int lane_count_error(struct accelsim_reader *r, struct gcr_err *err, unsigned mode,
                            uint32_t mask, unsigned listed) __attribute__((cold));

static int lane_count_error(struct accelsim_reader *r, struct gcr_err *err, unsigned mode,
                            uint32_t mask, unsigned listed)
{
    unsigned lanes = gcr_bits_popcount32(mask);
    if (mode == 0)
        return KFAIL(r, err, GCR_E_FORMAT,
                     "mask 0x%08" PRIx32 " has %u active lane%s but the line lists %u address%s",
                     mask, lanes, lanes == 1 ? "" : "s", listed, listed == 1 ? "" : "es");
    unsigned need = lanes ? lanes - 1 : 0;
    return KFAIL(r, err, GCR_E_FORMAT,
                 "mask 0x%08" PRIx32 " has %u active lane%s, so address mode 2 needs %u "
                 "delta%s after the base address, but the line has %u", mask, lanes,
                 lanes == 1 ? "" : "s", need, need == 1 ? "" : "s", listed);
}

/* Address fields of a memory line (after the memory width) into in->addr. Returns 0, or -1 on
 * error; *mode_out is the address mode, *listed the addresses or deltas read, and *p the
 * position after them. For base+deltas, *base_end is where the base address ends, and when
 * same (a memo whose head the line repeats) holds the same bytes from there to the line's end,
 * the lanes come from its offsets, *p is the line's end and *whole is set: the line is known
 * to be complete and well-formed. */
static int parse_addresses(struct accelsim_reader *r, struct gcr_err *err, const char **p,
                           const char *end, struct gcr_warp_insn *in, bool lazy,
                           const struct line_memo *same, unsigned *mode_out, unsigned *listed,
                           const char **base_end, bool *whole)
{
    uint64_t mode, base;
    uint32_t mask = in->active_mask;
    if (dec_field(r, err, p, "address mode", UINT32_MAX, DEC_RANGE_U32, &mode) != 0)
        return -1;
    *mode_out = (unsigned)mode;
    *listed = 0;
    in->strided = false;
    in->stride = 0;
    switch (mode) {
    case 0: /* one address per active lane */
        memset(in->addr, 0, sizeof in->addr);
        for (uint32_t m = mask; m; m &= m - 1) {
            if (*blanks(*p) == '\n')
                return lane_count_error(r, err, 0, mask, *listed);
            if (hex_field(r, err, p, "address", &in->addr[gcr_bits_ctz32(m)]) != 0)
                return -1;
            (*listed)++;
        }
        return 0;
    case 1: { /* base and stride: the active lanes are one run, lane k at base + k*stride */
        int64_t stride;
        if (hex_field(r, err, p, "base address", &base) != 0 ||
            sdec_field(r, err, p, "stride", (uint64_t)INT32_MAX + 1, INT32_MAX,
                       "the tracer writes a 32-bit signed stride", &stride) != 0)
            return -1;
        if (mask) {
            /* The tracer uses this mode only for one run of active lanes; Accel-Sim's reader
             * gives every lane after a gap address 0, so such a line cannot be meant. */
            uint32_t run = mask >> gcr_bits_ctz32(mask);
            if (run & (run + 1))
                return KFAIL(r, err, GCR_E_FORMAT,
                             "address mode 1 (base+stride) needs one run of active lanes, but "
                             "mask 0x%08" PRIx32 " has gaps", mask);
            in->strided = true;
        }
        in->stride = stride;
        if (mask == 0xffffffffu) {
            in->addr[0] = base;
            if (!lazy)
                for (int lane = 1; lane < GCR_WARP_SIZE; lane++)
                    in->addr[lane] = base + (uint64_t)stride * (uint64_t)lane;
            return 0;
        }
        memset(in->addr, 0, sizeof in->addr);
        for (uint32_t m = mask; m; m &= m - 1) {
            in->addr[gcr_bits_ctz32(m)] = base;
            base += (uint64_t)stride;
        }
        return 0;
    }
    case 2: { /* base, then the difference of each further active lane to the previous one */
        if (hex_field(r, err, p, "base address", &base) != 0)
            return -1;
        *base_end = *p;
        memset(in->addr, 0, sizeof in->addr);
        if (!mask)
            return 0;
        uint32_t m = mask;
        in->addr[gcr_bits_ctz32(m)] = base;
        size_t rest = (size_t)(end - *p) + 1; /* with the '\n' */
        if (same && same->rest && rest == (size_t)(same->len - same->rest) &&
            memcmp(*p, same->text + same->rest, rest) == 0) {
            for (m &= m - 1; m; m &= m - 1)
                in->addr[gcr_bits_ctz32(m)] = base + (uint64_t)(int64_t)same->lane_off[gcr_bits_ctz32(m)];
            *listed = gcr_bits_popcount32(mask) - 1;
            *p = end;
            *whole = true;
            return 0;
        }
        /* Up to 31 deltas a line, most of the bytes of a trace heavy in shared memory: each
         * field is scanned once. Up to 18 digits are in range whatever the sign; anything else
         * (more digits, junk, no digit) takes sdec_field, which rescans it and words the error. */
        const char *q = *p;
        for (m &= m - 1; m; m &= m - 1) {
            const char *t = blanks(q);
            if (*t == '\n')
                return lane_count_error(r, err, 2, mask, *listed);
            bool neg = *t == '-';
            const char *digits = t + (neg || *t == '+');
            uint64_t x = 0;
            unsigned d;
            for (q = digits; (d = (unsigned)(*q - '0')) < 10; q++)
                x = x * 10 + d;
            if (__builtin_expect(q == digits || q - digits > 18 || !separator[(unsigned char)*q],
                                 0)) {
                int64_t delta;
                *p = t;
                if (sdec_field(r, err, p, "delta", (uint64_t)INT64_MAX + 1, INT64_MAX,
                               "a 64-bit signed integer", &delta) != 0)
                    return -1;
                q = *p; /* a long number with leading zeros: in range after all */
                x = (uint64_t)delta;
                neg = false;
            }
            base += neg ? 0 - x : x;
            in->addr[gcr_bits_ctz32(m)] = base;
            (*listed)++;
        }
        *p = q;
        return 0;
    }
    default:
        return KFAIL(r, err, GCR_E_FORMAT,
                     "unknown address mode %" PRIu64 " (expected 0 for a list of addresses, 1 "
                     "for base+stride, 2 for base+deltas)", mode);
    }
}

/* The address fields of a TMA instruction (Accel-Sim's trace_parser.cc): validated, then
 * ignored, as the record type has no bulk copies. */
static int skip_tma(struct accelsim_reader *r, struct gcr_err *err, const char **p)
{
    uint64_t v, multicast, mode, count;
    if (hex_field(r, err, p, "TMA barrier address", &v) != 0 ||
        dec_field(r, err, p, "TMA multicast flag", 1, "0 or 1", &multicast) != 0 ||
        (multicast && hex_field(r, err, p, "TMA CTA mask", &v) != 0) ||
        dec_field(r, err, p, "TMA byte count", UINT32_MAX, DEC_RANGE_U32, &v) != 0 ||
        dec_field(r, err, p, "TMA out-of-bounds byte count", UINT32_MAX, DEC_RANGE_U32, &v) != 0 ||
        dec_field(r, err, p, "TMA address mode", UINT32_MAX, DEC_RANGE_U32, &mode) != 0)
        return -1;
    if (mode == 3) {
        if (dec_field(r, err, p, "TMA transfer count", INT32_MAX, "maximum 2147483647",
                      &count) != 0)
            return -1;
        for (uint64_t i = 0; i < count; i++)
            if (hex_field(r, err, p, "TMA address", &v) != 0)
                return -1;
        return 0;
    }
    if (mode == 4) {
        if (hex_field(r, err, p, "TMA base address", &v) != 0 ||
            dec_field(r, err, p, "TMA transfer count", INT32_MAX, "maximum 2147483647",
                      &count) != 0)
            return -1;
        for (uint64_t i = 1; i < count; i++) {
            int64_t d;
            if (sdec_field(r, err, p, "TMA delta", (uint64_t)INT64_MAX + 1, INT64_MAX,
                           "a 64-bit signed integer", &d) != 0)
                return -1;
        }
        return 0;
    }
    return KFAIL(r, err, GCR_E_FORMAT,
                 "unknown TMA address mode %" PRIu64 " (expected 3 for a list, 4 for base+deltas)",
                 mode);
}

/* Space of a generic LD/ST, as Accel-Sim's trace_driven.cc decides it from the first active
 * lane's address and the header's windows. */
static uint8_t generic_space(const struct accelsim_reader *r, const struct gcr_warp_insn *in)
{
    const struct kheader *h = &r->h;
    if (h->binary_version > 0 && h->binary_version < 50)
        return GCR_SPACE_GLOBAL; /* Kepler's opcode map makes LD and ST global accesses */
    if (h->shmem_base == 0 || h->local_base == 0)
        return GCR_SPACE_SHARED; /* Accel-Sim: no windows known, assume shared */
    if (!in->active_mask)
        return GCR_SPACE_GLOBAL; /* no address to look at; no access either */
    uint64_t a = in->addr[gcr_bits_ctz32(in->active_mask)];
    if (a >= h->shmem_base && a < h->local_base)
        return GCR_SPACE_SHARED;
    if (a >= h->local_base && a - h->local_base < LOCAL_WINDOW_BYTES)
        return GCR_SPACE_LOCAL;
    return GCR_SPACE_GLOBAL;
}

/* The memo slot of the line at p (end: its '\n'), or NULL for a line too short to have one. */
static inline uint16_t *memo_slot(const struct accelsim_reader *r, const char *p,
                                  const char *end)
{
    if (end - p < 16 || !r->memo)
        return NULL;
    uint64_t a;
    memcpy(&a, p, 8);
    /* Up to its first blank (bytes in memory order: little-endian), so that the lines of a PC
     * with different masks share a slot and the memo's size follows the kernel's code. */
    uint64_t x = a ^ UINT64_C(0x2020202020202020), blank = (x - UINT64_C(0x0101010101010101)) &
                                                           ~x & UINT64_C(0x8080808080808080);
    if (blank)
        a &= (blank & (0 - blank)) - 1;
    uint64_t h = a * UINT64_C(0x9e3779b97f4a7c15);
    return &r->memo->slot[(h ^ h >> 29) >> 32 & (MEMO_SLOTS - 1)];
}

/* What a line's head (its fields through the memory width) parsed to, and whether a memo can
 * keep it. */
struct head {
    uint64_t pc, mask, ndst, nsrc, memw;
    const char *op;
    size_t oplen;
    struct opinfo *info;
    bool keep;
    uint8_t nd, nregs, regs[MEMO_REGS];
};

static inline void head_reg(struct head *hd, unsigned reg)
{
    if (hd->nregs < MEMO_REGS)
        hd->regs[hd->nregs++] = (uint8_t)reg;
    else
        hd->keep = false;
}

/* Parses a line's head from *pp on: 0, or -1 with the error reported. */
static int parse_head(struct accelsim_reader *r, const char **pp, struct head *hd,
                      struct opinfo *scratch, struct gcr_err *err)
{
    const char *p = *pp;
    uint64_t v;
    struct reg_deps *deps = &r->deps;
    hd->keep = true;
    hd->nregs = 0;
    if (r->h.lineinfo &&
        dec_field(r, err, &p, "source line number", UINT32_MAX, DEC_RANGE_U32, &v) != 0)
        return -1;
    if (hex_field(r, err, &p, "PC", &hd->pc) != 0 ||
        hex_field(r, err, &p, "active mask", &hd->mask) != 0)
        return -1;
    if (__builtin_expect(hd->mask > UINT32_MAX, 0))
        return KFAIL(r, err, GCR_E_FORMAT, "active mask 0x%" PRIx64 " has more than 32 bits",
                     hd->mask);
    if (dec_field(r, err, &p, "destination register count", 255, "maximum 255", &hd->ndst) != 0)
        return -1;
    for (uint64_t i = 0; i < hd->ndst; i++) {
        unsigned reg = NUM_REGS;
        if (reg_field(r, err, &p, "destination register", &reg) != 0)
            return -1;
        if (reg < NUM_REGS) {
            deps_use(deps, reg);
            if (deps->ndst < sizeof deps->dst)
                deps->dst[deps->ndst++] = (uint8_t)reg;
            head_reg(hd, reg);
        }
    }
    hd->nd = hd->nregs;

    /* The opcode, hashed while it is scanned. */
    const char *op = blanks(p);
    if (__builtin_expect(*op == '\n', 0))
        return missing(r, err, "opcode");
    uint32_t h = 0;
    for (p = op; !separator[(unsigned char)*p]; p++)
        h = hash_step(h, (unsigned char)*p);
    hd->op = op;
    hd->oplen = (size_t)(p - op);

    if (dec_field(r, err, &p, "source register count", 255, "maximum 255", &hd->nsrc) != 0)
        return -1;
    for (uint64_t i = 0; i < hd->nsrc; i++) {
        unsigned reg = NUM_REGS;
        if (reg_field(r, err, &p, "source register", &reg) != 0)
            return -1;
        if (reg < NUM_REGS) {
            deps_use(deps, reg);
            head_reg(hd, reg);
        }
    }

    hd->info = lookup_opcode(r, op, hd->oplen, h, scratch);
    if (hd->info == scratch) /* the opcode cache is full: this opinfo lives on the stack */
        hd->keep = false;
    if (hd->info->gmma && r->h.version >= 6 &&
        dec_field(r, err, &p, "GMMA commit-group flag", UINT32_MAX, DEC_RANGE_U32, &v) != 0)
        return -1;
    if (dec_field(r, err, &p, "memory width", UINT32_MAX, DEC_RANGE_U32, &hd->memw) != 0)
        return -1;
    *pp = p;
    return 0;
}

/* The head of memo m, which the line repeats: its register dependencies applied again. */
static inline void memo_head(struct accelsim_reader *r, const struct line_memo *m,
                             const char *line, struct head *hd)
{
    struct reg_deps *deps = &r->deps;
    for (unsigned i = 0; i < m->nregs; i++)
        deps_use(deps, m->regs[i]);
    deps->ndst = m->ndst < sizeof deps->dst ? m->ndst : (uint32_t)sizeof deps->dst;
    memcpy(deps->dst, m->regs, deps->ndst);
    hd->pc = m->pc;
    hd->mask = m->mask;
    hd->ndst = m->ndst_field;
    hd->nsrc = m->nsrc_field;
    hd->memw = m->memw;
    hd->info = m->info;
    hd->op = line + m->op_at;
    hd->oplen = m->op_len;
    hd->keep = true;
    hd->nd = m->ndst;
    hd->nregs = m->nregs;
    memcpy(hd->regs, m->regs, m->nregs);
}

/* Keeps a line that parsed without error in its memo slot (m: the slot's line, NULL when it
 * has none yet): its head, and with rest_at (not NULL) the part from there on for comparing
 * whole: the rest of a non-memory line, or with lanes (the record of a base+deltas line) its
 * deltas and tail, and its lanes' offsets. */
static void memo_keep(struct accelsim_reader *r, uint16_t *slot, struct line_memo *m,
                      const char *line, const char *end, const char *head_end,
                      const struct head *hd, const char *rest_at,
                      const struct gcr_warp_insn *lanes)
{
    size_t len = (size_t)(end - line) + 1;
    if (!hd->keep || len > MEMO_TEXT)
        return;
    if (!m) {
        struct line_memos *ms = r->memo;
        uint32_t b = ms->used / MEMO_BLOCK;
        if (ms->used == MEMO_SLOTS ||
            (!ms->block[b] && !(ms->block[b] = malloc(MEMO_BLOCK * sizeof *m))))
            return; /* the line is not kept: the next one of its slot is parsed in full */
        m = memo_line(ms, ms->used++);
        *slot = (uint16_t)ms->used;
    }
    m->rest = rest_at ? (uint16_t)(rest_at - line) : 0;
    if (lanes && m->rest) {
        uint32_t mask = lanes->active_mask;
        uint64_t base = mask ? lanes->addr[gcr_bits_ctz32(mask)] : 0;
        if (!mask)
            m->rest = 0;
        for (uint32_t k = mask; k; k &= k - 1) {
            int64_t off = (int64_t)(lanes->addr[gcr_bits_ctz32(k)] - base);
            if (off < INT32_MIN || off > INT32_MAX) {
                m->rest = 0;
                break;
            }
            m->lane_off[gcr_bits_ctz32(k)] = (int32_t)off;
        }
    }
    m->gen = r->memo_gen;
    m->len = (uint16_t)len;
    m->head = (uint16_t)(head_end - line);
    m->op_at = (uint16_t)(hd->op - line);
    m->op_len = (uint8_t)hd->oplen;
    m->ndst_field = (uint8_t)hd->ndst;
    m->nsrc_field = (uint8_t)hd->nsrc;
    m->ndst = hd->nd;
    m->nregs = hd->nregs;
    memcpy(m->regs, hd->regs, hd->nregs);
    m->mask = (uint32_t)hd->mask;
    m->pc = hd->pc;
    m->memw = hd->memw;
    m->info = hd->info;
    memcpy(m->text, line, len);
}

/* Classes whose lane addresses no consumer that skips GCR_READ_SKIP_ONCHIP_LANES reads:
 * on-chip accesses, and addresses of instructions this reader ignores. */
static inline bool lanes_onchip(enum op_class cls)
{
    return cls == CL_LOAD_SHARED || cls == CL_STORE_SHARED || cls == CL_ATOMIC_SHARED ||
           cls == CL_LOAD_CONST || cls == CL_OTHER || cls == CL_UNKNOWN;
}

/* Parses one instruction line [p, end) (end points at the line reader's '\n'). Returns 1 for a
 * memory instruction (rec holds it), 0 for any other instruction, -1 on error. */
static int parse_insn(struct accelsim_reader *r, const char *p, const char *end,
                      struct gcr_record *rec, struct gcr_err *err)
{
    struct gcr_warp_insn *in = &rec->u.insn;
    struct reg_deps *deps = &r->deps;
    const char *const line = p;
    struct head hd;
    struct opinfo scratch;
    deps->waits = 0;
    deps->ndst = 0;

    uint16_t *slot = memo_slot(r, p, end);
    struct line_memo *m = slot && *slot ? memo_line(r->memo, *slot - 1u) : NULL;
    const struct line_memo *same = NULL; /* m, when the line repeats its head */
    if (m && m->gen == r->memo_gen && (size_t)(end - p) >= m->head &&
        separator[(unsigned char)p[m->head]] && memcmp(p, m->text, m->head) == 0) {
        same = m;
        memo_head(r, m, line, &hd);
        p += m->head;
    } else if (parse_head(r, &p, &hd, &scratch, err) != 0) {
        return -1;
    }
    const char *const head_end = p;
    struct opinfo *info = hd.info;
    const char *op = hd.op;
    size_t oplen = hd.oplen;
    uint64_t memw = hd.memw;
    r->insns++;
    if (info->barrier)
        deps->waits |= GCR_WAITS_BARRIER;

    enum op_class cls = (enum op_class)info->cls;
    bool memory = false, clean, whole = false;
    unsigned mode = 0, listed = 0;
    const char *rest_at = NULL;
    const struct gcr_warp_insn *lanes = NULL;
    in->active_mask = (uint32_t)hd.mask;
    if (__builtin_expect(cls == CL_TMA, 0)) {
        if (skip_tma(r, err, &p) != 0)
            return -1;
        r->tma_insns++;
    } else if (memw > 0) {
        /* Non-memory opcodes with addresses are checked as carefully, then ignored. */
        bool modelled = cls >= CL_LOAD_GLOBAL && cls <= CL_LOAD_CONST;
        memory = modelled;
        if (cls == CL_UNKNOWN)
            count_opcode(r->unknown, info, op, oplen);
        else if (!modelled)
            count_opcode(r->ignored, info, op, oplen);
        if ((r->skips & GCR_READ_SKIP_ONCHIP_LANES) && lanes_onchip(cls)) {
            /* The consumer reads none of these lanes: the rest of the line goes unread. */
            in->strided = false;
            in->stride = 0;
            whole = true;
        } else {
            if (parse_addresses(r, err, &p, end, in, modelled && r->lazy, same, &mode, &listed,
                                &rest_at, &whole) != 0)
                return -1;
            lanes = rest_at ? in : NULL; /* base+deltas: the memo keeps their offsets */
        }
    } else {
        if (cls == CL_UNKNOWN)
            count_opcode(r->unknown, info, op, oplen);
        else if (cls >= CL_LOAD_GLOBAL && cls < CL_LOAD_CONST) {
            char b[SHOW_MAX + 4];
            return KFAIL(r, err, GCR_E_FORMAT,
                         "memory instruction %s has no addresses (its memory width field is 0)",
                         show(op, op + oplen, b));
        }
        /* LDC without addresses: the constant bank operand is not a memory reference for the
         * tracer, so there is nothing to replay. */
        rest_at = p;
        size_t rest = (size_t)(end - p) + 1;
        whole = same && same->rest == same->head && rest == (size_t)(same->len - same->rest) &&
                memcmp(p, same->text + same->rest, rest) == 0;
    }

    /* The end of the line: nothing more in versions 3 and 4 (the common case, decided here). */
    if (!whole) {
        p = blanks(p);
        if (__builtin_expect(r->h.version >= 5 || p != end, 0)) {
            if (parse_tail(r, err, &p, end, (uint32_t)hd.ndst, (uint32_t)hd.nsrc, &clean) != 0)
                return -1;
            if (!clean) {
                if ((memory || (memw > 0 && cls != CL_TMA)) && (mode == 0 || mode == 2)) {
                    /* The fields after the addresses were taken for the tail: count them
                     * back. */
                    int extra = count_fields(p, end);
                    return lane_count_error(r, err, mode, in->active_mask,
                                            listed + (unsigned)extra);
                }
                return extra_field(r, err, p, end);
            }
        }
    }
    if (__builtin_expect(memory && info->width == 0, 0)) {
        char b[SHOW_MAX + 4];
        return KFAIL(r, err, GCR_E_FORMAT,
                     "opcode %s gives an access width of %" PRIu64 " bytes per lane (Accel-Sim "
                     "takes it from the first numeric modifier); widths must be 1..%d",
                     show(op, op + oplen, b), info->width_raw, GCR_MAX_WIDTH);
    }
    deps_issue(deps, memory);
    /* A line whose lanes were skipped keeps its head only (rest_at NULL): its rest was not
     * checked. A line that repeated its memo whole leaves it as it is. */
    if (slot && !(same && (whole || !rest_at)))
        memo_keep(r, slot, m, line, end, head_end, &hd, rest_at, lanes);
    if (r->skips & GCR_READ_SKIP_ALU)
        deps->waits &= ~(GCR_WAITS_ALU_MASK | GCR_WAITS_UNIT_MASK);
    if (!memory) {
        /* Its own NONMEM record then (the waits' unit parts it from its neighbours). */
        if (!(r->skips & GCR_READ_SKIP_ALU))
            deps->waits = gcr_waits_with_unit(deps->waits, (enum gcr_unit)info->unit);
        return 0;
    }
    rec->kind = GCR_REC_WARP_INSN;
    in->cta = r->cta;
    in->warp = r->warp;
    in->waits = GCR_WAITS_KNOWN | deps->waits;
    in->pc = hd.pc;
    in->width = info->width;
    in->cache_op = info->cache_op;
    switch (cls) {
    case CL_LOAD_GLOBAL: in->op = GCR_OP_LOAD; in->space = GCR_SPACE_GLOBAL; break;
    case CL_LOAD_LOCAL: in->op = GCR_OP_LOAD; in->space = GCR_SPACE_LOCAL; break;
    case CL_STORE_GLOBAL: in->op = GCR_OP_STORE; in->space = GCR_SPACE_GLOBAL; break;
    case CL_STORE_LOCAL: in->op = GCR_OP_STORE; in->space = GCR_SPACE_LOCAL; break;
    case CL_LOAD_SHARED: in->op = GCR_OP_LOAD; in->space = GCR_SPACE_SHARED; break;
    case CL_STORE_SHARED: in->op = GCR_OP_STORE; in->space = GCR_SPACE_SHARED; break;
    case CL_ATOMIC_GLOBAL: in->op = GCR_OP_ATOMIC; in->space = GCR_SPACE_GLOBAL; break;
    case CL_ATOMIC_SHARED: in->op = GCR_OP_ATOMIC; in->space = GCR_SPACE_SHARED; break;
    case CL_REDUCTION: in->op = GCR_OP_REDUCTION; in->space = GCR_SPACE_GLOBAL; break;
    case CL_LOAD_GENERIC: in->op = GCR_OP_LOAD; in->space = generic_space(r, in); break;
    case CL_STORE_GENERIC: in->op = GCR_OP_STORE; in->space = generic_space(r, in); break;
    default: in->op = GCR_OP_LOAD; in->space = GCR_SPACE_CONST; break; /* CL_LOAD_CONST */
    }
    r->mem_insns++;
    return 1;
}

/* ---- Keyword lines -------------------------------------------------------------------------- */

/* Does [t, q) hold the given words, separated by any blanks? */
static bool words_are(const char *t, const char *q, const char *words)
{
    while (*words) {
        t = skip_blanks(t, q);
        const char *w = words;
        while (*w && *w != ' ')
            w++;
        size_t n = (size_t)(w - words);
        if ((size_t)(q - t) < n || memcmp(t, words, n) != 0)
            return false;
        t += n;
        if (t < q && *t != ' ' && *t != '\t')
            return false;
        words = *w ? w + 1 : w;
    }
    return skip_blanks(t, q) == q;
}

/* Splits `key = value` at the first '='; both sides trimmed. */
static bool split_kv(const char *p, const char *end, const char **kt, const char **kq,
                     const char **vt, const char **vq)
{
    const char *eq = memchr(p, '=', (size_t)(end - p));
    if (!eq)
        return false;
    *kt = skip_blanks(p, eq);
    *kq = eq;
    while (*kq > *kt && ((*kq)[-1] == ' ' || (*kq)[-1] == '\t'))
        (*kq)--;
    *vt = skip_blanks(eq + 1, end);
    *vq = end;
    while (*vq > *vt && ((*vq)[-1] == ' ' || (*vq)[-1] == '\t'))
        (*vq)--;
    return true;
}

/* Three decimal numbers "x,y,z", optionally in parentheses, blanks allowed around them. */
static bool parse_triple(const char *t, const char *q, bool parens, uint32_t out[3])
{
    if (parens) {
        if (q - t < 2 || *t != '(' || q[-1] != ')')
            return false;
        t++, q--;
    }
    for (int i = 0; i < 3; i++) {
        const char *c = i < 2 ? memchr(t, ',', (size_t)(q - t)) : q;
        if (!c)
            return false;
        const char *a = skip_blanks(t, c), *b = c;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        uint64_t v;
        if (parse_dec(a, b, UINT32_MAX, &v) != NUM_OK)
            return false;
        out[i] = (uint32_t)v;
        t = c + 1;
    }
    return true;
}

/* A NONMEM record of the pending run, whose first instruction waits as r->pending_waits says. */
static void make_nonmem(const struct accelsim_reader *r, struct gcr_record *rec, uint32_t count)
{
    rec->kind = GCR_REC_NONMEM;
    rec->u.nonmem.cta = r->cta;
    rec->u.nonmem.warp = r->warp;
    rec->u.nonmem.count = count;
    rec->u.nonmem.waits = r->pending_waits;
}

/* Ends the current warp's run of non-memory instructions: 1 with a NONMEM record, else 0. */
static int flush_pending(struct accelsim_reader *r, struct gcr_record *rec)
{
    if (!r->pending)
        return 0;
    make_nonmem(r, rec, r->pending);
    r->pending = 0;
    return 1;
}

static int too_few_insts(struct accelsim_reader *r, struct gcr_err *err) __attribute__((cold));

static int too_few_insts(struct accelsim_reader *r, struct gcr_err *err)
{
    return KFAIL(r, err, GCR_E_FORMAT,
                 "warp %" PRIu32 " of thread block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") ends "
                 "after %" PRIu32 " instruction line%s, but line %" PRIu64 " says `insts = %" PRIu32
                 "`", r->warp, r->tb[0], r->tb[1], r->tb[2], r->insts_seen,
                 r->insts_seen == 1 ? "" : "s", r->insts_line, r->insts);
}

/* An instruction line where the block structure allows none. */
static int misplaced_line(struct accelsim_reader *r, struct gcr_err *err, const char *p,
                          const char *end) __attribute__((cold));

static int misplaced_line(struct accelsim_reader *r, struct gcr_err *err, const char *p,
                          const char *end)
{
    char b[SHOW_MAX + 4];
    show(p, end, b);
    switch (r->st) {
    case B_BETWEEN:
        return KFAIL(r, err, GCR_E_FORMAT,
                     "expected #BEGIN_TB, found '%s' (a kernel file lists each thread block "
                     "between #BEGIN_TB and #END_TB; a raw .trace file must first go through "
                     "Accel-Sim's post-traces-processing)", b);
    case B_TB:
        if (!r->have_tb)
            return KFAIL(r, err, GCR_E_FORMAT,
                         "expected `thread block = <x>,<y>,<z>` after #BEGIN_TB, found '%s'", b);
        return KFAIL(r, err, GCR_E_FORMAT, "expected `warp = <n>` in thread block (%" PRIu32
                     ",%" PRIu32 ",%" PRIu32 "), found '%s'", r->tb[0], r->tb[1], r->tb[2], b);
    case B_WARP_HEAD:
        return KFAIL(r, err, GCR_E_FORMAT, "expected `insts = <n>` after `warp = %" PRIu32
                     "`, found '%s'", r->warp, b);
    default:
        if (r->insts_seen < r->insts)
            return KFAIL(r, err, GCR_E_FORMAT, "expected an instruction line of warp %" PRIu32
                         ", found '%s'", r->warp, b);
        return KFAIL(r, err, GCR_E_FORMAT,
                     "warp %" PRIu32 " of thread block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") has "
                     "more instruction lines than line %" PRIu64 " says (`insts = %" PRIu32 "`)",
                     r->warp, r->tb[0], r->tb[1], r->tb[2], r->insts_line, r->insts);
    }
}

/* A line of the thread-block structure. Returns 1 with a record (the NONMEM run a new warp or
 * the end of the block closes), 0 without, -1 on error. */
static int structure_line(struct accelsim_reader *r, const char *p, const char *end,
                          struct gcr_record *rec, struct gcr_err *err)
{
    char b[SHOW_MAX + 4];
    const char *kt, *kq, *vt, *vq;
    uint64_t v;
    bool warp_open = r->st == B_WARP && r->insts_seen < r->insts;

    if (words_are(p, end, "#BEGIN_TB")) {
        if (warp_open)
            return too_few_insts(r, err);
        if (r->st != B_BETWEEN)
            return KFAIL(r, err, GCR_E_FORMAT, "#BEGIN_TB inside the thread block begun at line "
                         "%" PRIu64 " (missing #END_TB)", r->tb_line);
        r->st = B_TB;
        r->have_tb = false;
        r->tb_line = r->line;
        memset(r->warp_seen, 0, sizeof r->warp_seen);
        return 0;
    }
    if (words_are(p, end, "#END_TB")) {
        if (warp_open)
            return too_few_insts(r, err);
        if (r->st == B_BETWEEN)
            return KFAIL(r, err, GCR_E_FORMAT, "#END_TB outside any thread block");
        if (r->st == B_WARP_HEAD)
            return KFAIL(r, err, GCR_E_FORMAT, "expected `insts = <n>` after `warp = %" PRIu32
                         "`, found #END_TB", r->warp);
        if (!r->have_tb)
            return KFAIL(r, err, GCR_E_FORMAT, "thread block begun at line %" PRIu64 " has no "
                         "`thread block = <x>,<y>,<z>` line", r->tb_line);
        r->st = B_BETWEEN;
        return flush_pending(r, rec);
    }
    if (!split_kv(p, end, &kt, &kq, &vt, &vq))
        return misplaced_line(r, err, p, end);

    if (words_are(kt, kq, "thread block")) {
        if (warp_open)
            return too_few_insts(r, err);
        if (r->st != B_TB || r->have_tb)
            return KFAIL(r, err, GCR_E_FORMAT, "unexpected `thread block` line (it must follow "
                         "#BEGIN_TB, once per thread block)");
        if (!parse_triple(vt, vq, false, r->tb))
            return KFAIL(r, err, GCR_E_FORMAT, "bad thread block '%s': expected <x>,<y>,<z>",
                         show(vt, vq, b));
        const uint32_t *g = r->h.grid;
        if (r->tb[0] >= g[0] || r->tb[1] >= g[1] || r->tb[2] >= g[2])
            return KFAIL(r, err, GCR_E_FORMAT, "thread block (%" PRIu32 ",%" PRIu32 ",%" PRIu32
                         ") is outside the grid (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")", r->tb[0],
                         r->tb[1], r->tb[2], g[0], g[1], g[2]);
        /* CUDA's linear block id; the header check keeps it below 2^32. */
        r->cta = (uint32_t)(((uint64_t)r->tb[2] * g[1] + r->tb[1]) * g[0] + r->tb[0]);
        r->have_tb = true;
        r->thread_blocks++;
        return 0;
    }
    if (words_are(kt, kq, "cluster id") || words_are(kt, kq, "cluster cta") ||
        words_are(kt, kq, "cluster rank")) {
        uint32_t xyz[3];
        bool rank = words_are(kt, kq, "cluster rank");
        if (warp_open)
            return too_few_insts(r, err);
        if (r->st != B_TB)
            return KFAIL(r, err, GCR_E_FORMAT, "unexpected cluster line (cluster lines belong "
                         "between #BEGIN_TB and the first `warp =` line)");
        if (rank ? parse_dec(vt, vq, UINT32_MAX, &v) != NUM_OK : !parse_triple(vt, vq, false, xyz))
            return KFAIL(r, err, GCR_E_FORMAT, "bad cluster value '%s': expected %s",
                         show(vt, vq, b), rank ? "a decimal number" : "<x>,<y>,<z>");
        return 0; /* thread block clusters do not change what the caches see */
    }
    if (words_are(kt, kq, "warp")) {
        if (warp_open)
            return too_few_insts(r, err);
        if (r->st == B_BETWEEN)
            return KFAIL(r, err, GCR_E_FORMAT, "`warp =` line outside any thread block");
        if (r->st == B_WARP_HEAD)
            return KFAIL(r, err, GCR_E_FORMAT, "expected `insts = <n>` after `warp = %" PRIu32
                         "`, found another `warp =` line", r->warp);
        if (!r->have_tb)
            return KFAIL(r, err, GCR_E_FORMAT,
                         "`warp =` line before the `thread block = <x>,<y>,<z>` line");
        enum num_result res = parse_dec(vt, vq, UINT32_MAX, &v);
        if (res != NUM_OK)
            return bad_number(r, err, res, vt, vq, "warp id", "decimal", "maximum 4294967295");
        if (v >= r->warps_per_cta)
            return KFAIL(r, err, GCR_E_FORMAT, "warp %" PRIu64 " is outside the thread block: "
                         "blocks of (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") threads have %" PRIu32
                         " warp%s", v, r->h.block[0], r->h.block[1], r->h.block[2],
                         r->warps_per_cta, r->warps_per_cta == 1 ? "" : "s");
        if (r->warp_seen[v / 64] >> (v % 64) & 1)
            return KFAIL(r, err, GCR_E_FORMAT, "warp %" PRIu64 " appears twice in thread block (%"
                         PRIu32 ",%" PRIu32 ",%" PRIu32 ")", v, r->tb[0], r->tb[1], r->tb[2]);
        r->warp_seen[v / 64] |= 1ull << (v % 64);
        int flushed = flush_pending(r, rec); /* the previous warp's run, with its warp id */
        deps_reset(&r->deps);
        r->warp = (uint32_t)v;
        r->st = B_WARP_HEAD;
        return flushed;
    }
    if (words_are(kt, kq, "insts")) {
        if (r->st != B_WARP_HEAD)
            return KFAIL(r, err, GCR_E_FORMAT, "`insts =` line without a `warp =` line before it");
        enum num_result res = parse_dec(vt, vq, UINT32_MAX, &v);
        if (res != NUM_OK)
            return bad_number(r, err, res, vt, vq, "instruction count", "decimal",
                              "maximum 4294967295");
        r->insts = (uint32_t)v;
        r->insts_seen = 0;
        r->insts_line = r->line;
        r->st = B_WARP;
        return 0;
    }
    return misplaced_line(r, err, p, end);
}

/* ---- Kernel files --------------------------------------------------------------------------- */

static void close_kernel(struct accelsim_reader *r)
{
    if (r->kf) {
        r->files_bytes_done += gcr_bytesrc_file_bytes(gcr_lines_source(r->kf));
        gcr_lines_close(r->kf);
        r->kf = NULL;
    }
}

static int header_line(struct accelsim_reader *r, const char *p, const char *end,
                       struct gcr_err *err)
{
    char b[SHOW_MAX + 4];
    const char *kt, *kq, *vt, *vq;
    struct kheader *h = &r->h;
    uint64_t v;
    int key = -1;
    bool has_eq = split_kv(p + 1, end, &kt, &kq, &vt, &vq);
    if (!has_eq) { /* a key without a value: only a problem for keys this reader uses */
        kt = skip_blanks(p + 1, end);
        kq = end;
    }
    for (int k = 0; k < HK_COUNT; k++)
        if (words_are(kt, kq, header_keys[k]))
            key = k;
    if (key < 0)
        return 0; /* Accel-Sim ignores unknown header lines (cuda stream id, nvbit version...) */
    if (!has_eq)
        return KFAIL(r, err, GCR_E_FORMAT, "header line lacks its value: expected `%s`",
                     header_forms[key]);
    if (h->seen >> key & 1)
        return KFAIL(r, err, GCR_E_FORMAT, "duplicate header line `-%s`", header_keys[key]);
    h->seen |= 1u << key;

    enum num_result res;
    switch (key) {
    case HK_NAME: {
        size_t n = (size_t)(vq - vt);
        if (n == 0)
            return KFAIL(r, err, GCR_E_FORMAT, "empty kernel name");
        if (memchr(vt, '\0', n))
            return KFAIL(r, err, GCR_E_FORMAT, "kernel name contains a NUL byte");
        if (n > 65535)
            return KFAIL(r, err, GCR_E_FORMAT, "kernel name of %zu bytes is longer than 65535", n);
        if (!(h->name = malloc(n + 1)))
            return KFAIL(r, err, GCR_E_NOMEM, "out of memory for the kernel name");
        memcpy(h->name, vt, n);
        h->name[n] = '\0';
        return 0;
    }
    case HK_GRID:
    case HK_BLOCK: {
        uint32_t *d = key == HK_GRID ? h->grid : h->block;
        if (!parse_triple(vt, vq, true, d))
            return KFAIL(r, err, GCR_E_FORMAT, "bad %s '%s': expected (<x>,<y>,<z>) with three "
                         "decimal numbers", header_keys[key], show(vt, vq, b));
        if (!d[0] || !d[1] || !d[2])
            return KFAIL(r, err, GCR_E_FORMAT, "%s (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") has a "
                         "zero dimension", header_keys[key], d[0], d[1], d[2]);
        /* CUDA's limits, checked here to name this line; the stream rules check them too. */
        static const uint32_t one[3] = {1, 1, 1};
        const char *why = key == HK_GRID ? gcr_kernel_dims_invalid(d, one)
                                         : gcr_kernel_dims_invalid(one, d);
        if (why)
            return KFAIL(r, err, GCR_E_FORMAT, "%s (%s (%" PRIu32 ",%" PRIu32 ",%" PRIu32 "))",
                         why, header_keys[key], d[0], d[1], d[2]);
        return 0;
    }
    case HK_SHMEM_BASE:
    case HK_LOCAL_BASE:
        if ((res = parse_hex(vt, vq, &v)) != NUM_OK)
            return bad_number(r, err, res, vt, vq, header_keys[key], "hexadecimal",
                              "more than 64 bits");
        *(key == HK_SHMEM_BASE ? &h->shmem_base : &h->local_base) = v;
        return 0;
    default:
        break;
    }
    if ((res = parse_dec(vt, vq, UINT32_MAX, &v)) != NUM_OK)
        return bad_number(r, err, res, vt, vq, header_keys[key], "decimal", "maximum 4294967295");
    switch (key) {
    case HK_ID: h->id = (uint32_t)v; break;
    case HK_SHMEM: h->shmem = (uint32_t)v; break;
    case HK_NREGS: h->nregs = (uint32_t)v; break;
    case HK_BINARY: h->binary_version = (uint32_t)v; break;
    case HK_VERSION:
        if (v < 3 || v > 6)
            return KFAIL(r, err, GCR_E_FORMAT, "unsupported Accel-Sim tracer version %" PRIu64
                         " (this reader knows versions 3 to 6)", v);
        h->version = (uint32_t)v;
        break;
    default: /* HK_LINEINFO */
        if (v > 1)
            return KFAIL(r, err, GCR_E_FORMAT, "bad enable lineinfo '%s': expected 0 or 1",
                         show(vt, vq, b));
        h->lineinfo = v == 1;
        break;
    }
    return 0;
}

/* For a kernel file the list names that does not exist: the same file with a compression
 * suffix added or removed (kernel-1.traceg for kernel-1.traceg.xz, or the other way round), when
 * that one exists. */
static bool compressed_sibling(const struct gcr_files *files, const char *path, char *out,
                               size_t cap)
{
    static const char *const suffixes[] = {".xz", ".gz", ".zst"};
    struct stat st;
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && !strcmp(path + n - k, suffixes[i])) {
            if (n - k < cap) {
                memcpy(out, path, n - k);
                out[n - k] = '\0';
                if (gcr_files_stat(files, out, &st) == 0)
                    return true;
            }
        } else if ((size_t)snprintf(out, cap, "%s%s", path, suffixes[i]) < cap &&
                   gcr_files_stat(files, out, &st) == 0) {
            return true;
        }
    }
    return false;
}

/* Opens a kernel file and reads its header, up to the `#traces format` line. Errors opening it
 * are reported at (where, where_line) when a kernel list names it. */
static int open_kernel(struct accelsim_reader *r, const char *path, const char *where,
                       uint64_t where_line, struct gcr_err *err)
{
    struct gcr_err e = {GCR_OK, ""};
    struct gcr_line ln;
    free(r->kpath);
    free(r->h.name);
    memset(&r->h, 0, sizeof r->h);
    if (!(r->kpath = strdup(path)))
        return fail_at(r, err, GCR_E_NOMEM, where ? where : path, where_line, "out of memory");
    if (where) {
        struct stat st;
        if (gcr_files_stat(r->files, path, &st) != 0) {
            int en = errno;
            char other[4096];
            bool similar = en == ENOENT && compressed_sibling(r->files, path, other, sizeof other);
            return fail_at(r, err, GCR_E_IO, where, where_line, "cannot open kernel file %s: %s%s%s%s",
                           path, strerror(en), similar ? " (but " : "", similar ? other : "",
                           similar ? " exists: the list must name the file as it is)" : "");
        }
    }
    if (gcr_lines_open(&r->kf, r->files, path, &e) != 0) {
        if (where)
            return fail_at(r, err, e.status, where, where_line, "%s", e.msg);
        return fail_with(r, err, &e);
    }
    r->codec_files[gcr_bytesrc_codec(gcr_lines_source(r->kf))]++;
    r->line = 0;
    for (;;) {
        int rc = gcr_lines_next(r->kf, &ln, &e);
        if (rc < 0)
            return fail_with(r, err, &e);
        if (rc == 0) {
            if (r->line == 0) {
                r->line = 1;
                return KFAIL(r, err, GCR_E_FORMAT, "empty kernel file (expected the header "
                             "`-kernel name = ...`, `-kernel id = ...`, ...)");
            }
            return KFAIL(r, err, GCR_E_TRUNCATED, "file ends inside the kernel header (before "
                         "its `#traces format` line)");
        }
        r->line = ln.number;
        const char *p = skip_blanks(ln.text, ln.text + ln.len), *end = ln.text + ln.len;
        if (p == end)
            continue;
        if (*p == '#')
            break; /* Accel-Sim: the first '#' line ends the header */
        if (*p != '-')
            return KFAIL(r, err, GCR_E_FORMAT, "unexpected line in the kernel header (expected "
                         "`-<key> = <value>` lines, then the `#traces format` line)");
        if (header_line(r, p, end, err) != 0)
            return -1;
    }
    uint32_t missing_keys = REQUIRED_KEYS & ~r->h.seen;
    if (missing_keys)
        return KFAIL(r, err, GCR_E_FORMAT, "the kernel header lacks `%s`",
                     header_forms[gcr_bits_ctz32(missing_keys)]);
    r->header_end_line = r->line;
    r->warps_per_cta = gcr_kernel_warps_per_cta(&(struct gcr_kernel_begin){
        .grid = {r->h.grid[0], r->h.grid[1], r->h.grid[2]},
        .block = {r->h.block[0], r->h.block[1], r->h.block[2]}});
    r->st = B_BETWEEN;
    r->have_tb = false;
    r->pending = 0;
    r->kernels++;
    /* A new header: lines of the last kernel file no longer parse the same. Without memory for
     * the memo, every line is parsed in full. */
    if (!r->memo)
        r->memo = calloc(1, sizeof *r->memo);
    r->memo_gen++;
    r->last_version = r->h.version;
    r->last_binary = r->h.binary_version;
    return 0;
}

static void kernel_begin(const struct accelsim_reader *r, struct gcr_record *rec)
{
    rec->kind = GCR_REC_KERNEL_BEGIN;
    struct gcr_kernel_begin *k = &rec->u.kbegin;
    k->id = r->h.id;
    memcpy(k->grid, r->h.grid, sizeof k->grid);
    memcpy(k->block, r->h.block, sizeof k->block);
    k->shmem_bytes = r->h.shmem;
    k->regs_per_thread = r->h.nregs;
    k->name = r->h.name;
}

/* The end of a kernel file: fine between thread blocks, truncation anywhere else. */
static int body_end(struct accelsim_reader *r, struct gcr_err *err)
{
    if (r->line == 0)
        r->line = 1;
    if (r->st == B_BETWEEN)
        return 0;
    if (r->st == B_WARP && r->insts_seen < r->insts)
        return KFAIL(r, err, GCR_E_TRUNCATED,
                     "file ends inside warp %" PRIu32 " of thread block (%" PRIu32 ",%" PRIu32
                     ",%" PRIu32 ") after %" PRIu32 " of its %" PRIu32 " instruction lines",
                     r->warp, r->tb[0], r->tb[1], r->tb[2], r->insts_seen, r->insts);
    return KFAIL(r, err, GCR_E_TRUNCATED, "file ends inside the thread block begun at line %"
                 PRIu64 " (missing #END_TB)", r->tb_line);
}

/* The next record of the kernel file's body: 1 with rec (and *line, where it comes from), 0 at
 * the end of the file, -1 on error. */
static int body_next(struct accelsim_reader *r, struct gcr_record *rec, uint64_t *line,
                     struct gcr_err *err)
{
    struct gcr_err e;
    struct gcr_line ln;
    for (;;) {
        int rc = gcr_lines_next(r->kf, &ln, &e);
        if (__builtin_expect(rc <= 0, 0)) {
            if (rc < 0)
                return fail_with(r, err, &e);
            return body_end(r, err);
        }
        r->line = *line = ln.number;
        const char *end = ln.text + ln.len, *p = skip_blanks(ln.text, end);
        if (p == end)
            continue; /* blank lines are allowed anywhere */
        char c = *p;
        bool structure = c == '#' || c == 'w' || c == 'i' || c == 't' ||
                         (c == 'c' && end - p >= 7 && memcmp(p, "cluster", 7) == 0);
        if (__builtin_expect(!structure, 1)) {
            if (__builtin_expect(r->st != B_WARP || r->insts_seen == r->insts, 0))
                return misplaced_line(r, err, p, end);
            r->insts_seen++;
            rc = parse_insn(r, p, end, rec, err);
            if (rc < 0)
                return -1;
            if (rc == 0) {
                uint32_t waits = GCR_WAITS_KNOWN | r->deps.waits;
                /* A run ends before an instruction that waits for memory (the waits belong to
                 * a run's first instruction), or when its 32-bit count is full. */
                if (__builtin_expect(r->pending && (waits != GCR_WAITS_KNOWN ||
                                                    r->pending == UINT32_MAX), 0)) {
                    make_nonmem(r, rec, r->pending);
                    r->pending = 1;
                    r->pending_waits = waits;
                    return 1;
                }
                if (!r->pending++)
                    r->pending_waits = waits;
                continue;
            }
            if (r->pending) { /* the run of non-memory instructions before it comes first */
                memcpy(&r->held, rec, sizeof *rec);
                r->held_valid = true;
                r->held_line = ln.number;
                make_nonmem(r, rec, r->pending);
                r->pending = 0;
            }
            return 1;
        }
        rc = structure_line(r, p, end, rec, err);
        if (rc != 0)
            return rc;
    }
}

/* ---- Kernel lists --------------------------------------------------------------------------- */

#define LFAIL(r, err, st, ...)                                                                   \
    fail_at((r), (err), (st), (r)->list_path, (r)->list_line, __VA_ARGS__)

/* Whether `dir` + `name` (name of n bytes, no NUL) is an existing regular file. */
static bool file_in_dir(const struct gcr_files *files, const char *dir, const char *name,
                        size_t n)
{
    char path[4096];
    struct stat st;
    return (size_t)snprintf(path, sizeof path, "%s%.*s", dir, (int)n, name) < sizeof path &&
           gcr_files_stat(files, path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A line that is none of the list's commands. Accel-Sim would skip it, and the kernel it meant to
 * name with it: an error here, with a hint when the line names a file after all. */
static int unknown_list_line(struct accelsim_reader *r, const char *p, const char *end,
                             struct gcr_err *err)
{
    char b[SHOW_MAX + 4];
    const char *t = skip_blanks(p, end);
    const char *hint = "";
    if (file_in_dir(r->files, r->list_dir, t, (size_t)(end - t)))
        hint = t != p ? "; it names a kernel file, but a kernel line must start with `kernel`, "
                        "without blanks before it"
                      : "; it names a file, but a kernel line must start with `kernel` (in "
                        "lower case)";
    return LFAIL(r, err, GCR_E_FORMAT, "unknown line '%s' (expected `MemcpyHtoD,...`, "
                 "`MemcpyDtoH,...`, or a kernel file name starting with `kernel`)%s",
                 show(p, end, b), hint);
}

/* MemcpyHtoD,<hex address>,<decimal bytes> (the tracer's "MemcpyHtoD,0x%016lx,%lld"). */
static int parse_memcpy(struct accelsim_reader *r, const char *p, const char *end,
                        struct gcr_record *rec, struct gcr_err *err)
{
    char b[SHOW_MAX + 4];
    const char *f[3], *fe[3];
    const char *s = p;
    int n = 0;
    for (;;) { /* up to three comma-separated fields; n becomes 4 if there are more */
        const char *c = memchr(s, ',', (size_t)(end - s));
        if (n == 3) {
            n = 4;
            break;
        }
        f[n] = skip_blanks(s, c ? c : end);
        fe[n] = c ? c : end;
        while (fe[n] > f[n] && (fe[n][-1] == ' ' || fe[n][-1] == '\t'))
            fe[n]--;
        n++;
        if (!c)
            break;
        s = c + 1;
    }
    uint64_t dst, bytes;
    if (n != 3 || !words_are(f[0], fe[0], "MemcpyHtoD") ||
        parse_hex(f[1], fe[1], &dst) != NUM_OK ||
        parse_dec(f[2], fe[2], UINT64_MAX, &bytes) != NUM_OK)
        return LFAIL(r, err, GCR_E_FORMAT, "bad MemcpyHtoD line '%s': expected "
                     "MemcpyHtoD,<hex address>,<decimal byte count>", show(p, end, b));
    rec->kind = GCR_REC_MEMCPY;
    rec->u.memcpy.dst = dst;
    rec->u.memcpy.bytes = bytes;
    r->memcpys++;
    return 1;
}

/* The next MEMCPY or KERNEL_BEGIN of the kernel list: 1, 0 at its end, -1 on error. */
static int list_next(struct accelsim_reader *r, struct gcr_record *rec, struct gcr_err *err)
{
    struct gcr_err e;
    struct gcr_line ln;
    for (;;) {
        int rc = gcr_lines_next(r->list, &ln, &e);
        if (rc < 0)
            return fail_with(r, err, &e);
        if (rc == 0)
            return 0;
        r->list_line = ln.number;
        r->list_pos += ln.len + 1;
        const char *p = ln.text, *end = p + ln.len;
        while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (skip_blanks(p, end) == end)
            continue;
        /* Accel-Sim compares the line's first bytes, leading blanks included. */
        if (end - p >= 10 && memcmp(p, "MemcpyHtoD", 10) == 0)
            return parse_memcpy(r, p, end, rec, err);
        if (end - p >= 6 && memcmp(p, "kernel", 6) == 0) {
            size_t dl = strlen(r->list_dir), n = (size_t)(end - p);
            if (memchr(p, '\0', n))
                return LFAIL(r, err, GCR_E_FORMAT, "kernel file name contains a NUL byte");
            char *path = malloc(dl + n + 1);
            if (!path)
                return LFAIL(r, err, GCR_E_NOMEM, "out of memory");
            memcpy(path, r->list_dir, dl);
            memcpy(path + dl, p, n);
            path[dl + n] = '\0';
            rc = open_kernel(r, path, r->list_path, r->list_line, err);
            free(path);
            if (rc != 0)
                return -1;
            kernel_begin(r, rec);
            return 1;
        }
        /* A device-to-host copy leaves the caches as they are (Accel-Sim skips it too). */
        if (end - p >= 10 && memcmp(p, "MemcpyDtoH", 10) == 0) {
            r->list_ignored++;
            continue;
        }
        return unknown_list_line(r, p, end, err);
    }
}

/* ---- The format's entry points -------------------------------------------------------------- */

/* Where the first non-blank line of buf[0..n) starts; returns the bytes from there on. */
static size_t skip_to_text(const char *buf, size_t n, const char **line)
{
    const char *p = buf, *end = buf + n;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    *line = p;
    return (size_t)(end - p);
}

/* The first non-blank line of up to 4 KiB of content (decompressed). */
static size_t first_line(const struct gcr_files *files, const char *path, char *buf, size_t cap,
                         const char **line)
{
    return skip_to_text(buf, gcr_bytesrc_peek(files, path, buf, cap), line);
}

static bool starts_with(const char *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    return n >= k && memcmp(p, s, k) == 0;
}

static bool is_dir_with_list(const struct gcr_files *files, const char *path)
{
    struct stat st;
    char list[4096];
    if (gcr_files_stat(files, path, &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    if ((size_t)snprintf(list, sizeof list, "%s/kernelslist.g", path) >= sizeof list)
        return false;
    return gcr_files_stat(files, list, &st) == 0 && S_ISREG(st.st_mode);
}

static int accelsim_probe(const struct gcr_files *files, const char *path,
                          const unsigned char *head, size_t len)
{
    struct stat st;
    if (is_dir_with_list(files, path))
        return 1;
    if (gcr_files_stat(files, path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0; /* reading a pipe to look at it would consume it */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strcmp(base, "kernelslist.g") == 0)
        return 1;
    const char *line;
    size_t n = skip_to_text((const char *)head, len, &line);
    return starts_with(line, n, "-kernel name") || starts_with(line, n, "MemcpyHtoD") ||
           starts_with(line, n, "kernel-");
}

static void accelsim_close(void *state)
{
    struct accelsim_reader *r = state;
    if (!r)
        return;
    close_kernel(r);
    gcr_lines_close(r->list);
    gcr_stream_rules_free(&r->rules);
    free(r->h.name);
    free(r->kpath);
    free(r->list_path);
    free(r->list_dir);
    free(r->path);
    free(r->ops);
    free(r->op_slots);
    memo_free(r->memo);
    free(r->unknown);
    free(r->ignored);
    free(r);
}

/* Where the kernel list of the trace at path is, if it has one: *list_path and *list_dir (the
 * prefix of the kernel file names it holds: "" or ending in '/') for a directory, or for a file
 * that does not start with a kernel header; both NULL for a single kernel file. 0, or -1 when
 * out of memory or when the path is neither a regular file nor a directory (`why` says). */
static int find_list(const struct gcr_files *files, const char *path, const struct stat *st,
                     char **list_path, char **list_dir, const char **why)
{
    *list_path = *list_dir = NULL;
    *why = "out of memory";
    size_t plen = strlen(path);
    if (S_ISDIR(st->st_mode)) {
        bool slash = plen && path[plen - 1] == '/';
        *list_path = malloc(plen + 16);
        *list_dir = malloc(plen + 2);
        if (*list_path && *list_dir) {
            snprintf(*list_path, plen + 16, "%s%skernelslist.g", path, slash ? "" : "/");
            snprintf(*list_dir, plen + 2, "%s%s", path, slash ? "" : "/");
            return 0;
        }
    } else if (!S_ISREG(st->st_mode)) {
        *why = "not a regular file or a directory";
        return -1;
    } else {
        /* A kernel file starts with its header; anything else is read as a kernel list. */
        char buf[4096];
        const char *line;
        size_t n = first_line(files, path, buf, sizeof buf, &line);
        if (n && line[0] == '-')
            return 0;
        const char *slash = strrchr(path, '/');
        size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
        *list_path = strdup(path);
        if ((*list_dir = malloc(dl + 1))) {
            memcpy(*list_dir, path, dl);
            (*list_dir)[dl] = '\0';
        }
        if (*list_path && *list_dir)
            return 0;
    }
    free(*list_path);
    free(*list_dir);
    *list_path = *list_dir = NULL;
    return -1;
}

static int accelsim_open(void **state, const struct gcr_files *files, const char *path,
                         struct gcr_err *err)
{
    *state = NULL;
    struct accelsim_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path)) ||
        !(r->op_slots = calloc(OPCACHE_SLOTS, sizeof *r->op_slots)) ||
        !(r->ops = malloc(OPCACHE_ENTRIES * sizeof *r->ops)) ||
        !(r->unknown = calloc(1, sizeof *r->unknown)) ||
        !(r->ignored = calloc(1, sizeof *r->ignored))) {
        accelsim_close(r);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }
    r->deps.track_alu = true; /* everything is read unless the consumer says otherwise */
    r->files = files;
    struct stat st;
    if (gcr_files_stat(files, path, &st) != 0) {
        int e = errno;
        accelsim_close(r);
        return gcr_fail(err, GCR_E_IO, "%s: %s", path, strerror(e));
    }
    const char *why;
    if (find_list(files, path, &st, &r->list_path, &r->list_dir, &why) != 0) {
        accelsim_close(r);
        return gcr_fail(err, GCR_E_IO, "%s: %s", path, why);
    }
    r->directory = S_ISDIR(st.st_mode);
    bool list = r->list_path != NULL;
    if (r->directory && gcr_files_stat(files, r->list_path, &st) != 0) {
        accelsim_close(r);
        return gcr_fail(err, GCR_E_IO, "%s: no kernelslist.g in this directory", path);
    }
    if (list ? gcr_lines_open(&r->list, files, r->list_path, err) != 0
             : open_kernel(r, path, NULL, 0, err) != 0) {
        accelsim_close(r);
        return -1;
    }
    r->begin_pending = !list;
    *state = r;
    return 0;
}

/* The list itself (for a directory) and every kernel file it names. */
static void accelsim_input_files(const char *path, void (*visit)(void *ctx, const char *file),
                                 void *ctx)
{
    struct stat st;
    char *list_path, *list_dir;
    const char *why;
    struct gcr_lines *lines;
    struct gcr_line ln;
    if (stat(path, &st) != 0 || find_list(NULL, path, &st, &list_path, &list_dir, &why) != 0 ||
        !list_path)
        return;
    if (S_ISDIR(st.st_mode))
        visit(ctx, list_path);
    if (gcr_lines_open(&lines, NULL, list_path, NULL) == 0) {
        size_t dl = strlen(list_dir);
        while (gcr_lines_next(lines, &ln, NULL) == 1) {
            size_t n = ln.len;
            while (n && (ln.text[n - 1] == ' ' || ln.text[n - 1] == '\t'))
                n--;
            char *file;
            if (n < 6 || memcmp(ln.text, "kernel", 6) != 0 || memchr(ln.text, '\0', n) ||
                !(file = malloc(dl + n + 1)))
                continue;
            memcpy(file, list_dir, dl);
            memcpy(file + dl, ln.text, n);
            file[dl + n] = '\0';
            visit(ctx, file);
            free(file);
        }
        gcr_lines_close(lines);
    }
    free(list_path);
    free(list_dir);
}

static inline int apply_rules(struct accelsim_reader *r, const struct gcr_record *rec,
                              const char *file, uint64_t line, struct gcr_err *err)
{
    char why[GCR_ERR_MSG_MAX / 2];
    enum gcr_status st = gcr_stream_rules_apply(&r->rules, rec, why, sizeof why);
    if (__builtin_expect(st == GCR_OK, 1))
        return 1;
    return fail_at(r, err, st, file, line, "%s", why);
}

static int accelsim_next(void *state, struct gcr_record *rec, struct gcr_err *err)
{
    struct accelsim_reader *r = state;
    uint64_t line = 0;
    if (__builtin_expect(r->failed, 0)) {
        if (err)
            *err = r->err;
        return -1;
    }
    if (r->held_valid) {
        memcpy(rec, &r->held, sizeof *rec);
        r->held_valid = false;
        return apply_rules(r, rec, r->kpath, r->held_line, err);
    }
    if (r->begin_pending) {
        r->begin_pending = false;
        kernel_begin(r, rec);
        return apply_rules(r, rec, r->kpath, r->header_end_line, err);
    }
    if (r->kf) {
        int rc = body_next(r, rec, &line, err);
        if (rc != 0)
            return rc < 0 ? -1 : apply_rules(r, rec, r->kpath, line, err);
        rec->kind = GCR_REC_KERNEL_END;
        rec->u.kend.id = r->h.id;
        rc = apply_rules(r, rec, r->kpath, r->line, err);
        close_kernel(r);
        return rc;
    }
    if (r->list) {
        int rc = list_next(r, rec, err);
        if (rc < 0)
            return -1;
        if (rc == 1)
            return rec->kind == GCR_REC_MEMCPY
                       ? apply_rules(r, rec, r->list_path, r->list_line, err)
                       : apply_rules(r, rec, r->kpath, r->header_end_line, err);
    }
    if (r->kernels == 0) { /* only a list can name no kernel: it may be empty */
        r->failed = true;
        gcr_fail(&r->err, GCR_E_FORMAT, "%s: the kernel list names no kernel file (%s; a "
                 "kernel line names its file, e.g. `kernel-1.traceg`)", r->list_path,
                 r->list_line ? "it holds only copies and blank lines" : "it is empty");
        if (err)
            *err = r->err;
        return -1;
    }
    char why[GCR_ERR_MSG_MAX / 2];
    enum gcr_status st = gcr_stream_rules_finish(&r->rules, why, sizeof why);
    if (st != GCR_OK)
        return fail_at(r, err, st, r->list_path ? r->list_path : r->path, r->list_line, "%s", why);
    return 0;
}

/* Progress in bytes of what gcr_reader_bytes_total measures: the kernel file, or the kernel
 * list (up to its current line); for a directory, whose total is unknown, the kernel files. */
static uint64_t accelsim_bytes_done(void *state)
{
    const struct accelsim_reader *r = state;
    if (!r)
        return 0;
    if (r->list && !r->directory) { /* the last line may lack its newline */
        uint64_t read = gcr_bytesrc_file_bytes(gcr_lines_source(r->list));
        return r->list_pos < read ? r->list_pos : read;
    }
    return r->files_bytes_done + (r->kf ? gcr_bytesrc_file_bytes(gcr_lines_source(r->kf)) : 0);
}

static void accelsim_set_lazy(void *state, bool lazy)
{
    ((struct accelsim_reader *)state)->lazy = lazy;
}

static void accelsim_set_skips(void *state, unsigned skips)
{
    struct accelsim_reader *r = state;
    r->skips = skips;
    r->deps.track_alu = !(skips & GCR_READ_SKIP_ALU);
}

static json_t *counters_json(const struct counters *c)
{
    json_t *o = json_object();
    for (int i = 0; i < c->n; i++)
        json_object_set_new(o, c->e[i].name, json_integer((json_int_t)c->e[i].count));
    return o;
}

static void accelsim_describe(void *state, json_t *info)
{
    const struct accelsim_reader *r = state;
    json_object_set_new(info, "source", json_string(r->directory ? "directory"
                                                    : r->list ? "kernel list" : "kernel file"));
    json_object_set_new(info, "tracer_version", json_integer(r->last_version));
    json_object_set_new(info, "binary_version", json_integer(r->last_binary));
    json_object_set_new(info, "kernels", json_integer((json_int_t)r->kernels));
    json_object_set_new(info, "memcpys", json_integer((json_int_t)r->memcpys));
    json_object_set_new(info, "thread_blocks", json_integer((json_int_t)r->thread_blocks));
    json_object_set_new(info, "instructions", json_integer((json_int_t)r->insns));
    json_object_set_new(info, "memory_instructions", json_integer((json_int_t)r->mem_insns));
    json_object_set_new(info, "nonmemory_instructions",
                        json_integer((json_int_t)(r->insns - r->mem_insns)));
    json_object_set_new(info, "tma_instructions", json_integer((json_int_t)r->tma_insns));
    json_object_set_new(info, "unknown_opcodes", counters_json(r->unknown));
    json_object_set_new(info, "ignored_addresses_by_opcode", counters_json(r->ignored));
    json_t *files = json_object();
    for (int c = 0; c < GCR_CODEC_COUNT; c++)
        if (r->codec_files[c])
            json_object_set_new(files, gcr_codec_name((enum gcr_codec)c),
                                json_integer((json_int_t)r->codec_files[c]));
    json_object_set_new(info, "kernel_files_by_compression", files);
    json_object_set_new(info, "list_lines_ignored", json_integer((json_int_t)r->list_ignored));
}

const struct gcr_trace_format gcr_format_accelsim = {
    .name = "accelsim",
    .summary = "Accel-Sim traces: a directory or kernelslist.g, or one kernel-N.traceg "
               "(plain, xz, gz, zst)",
    .extension = NULL, /* nothing is written in this format */
    .sets_stride_hint = true,
    .probe = accelsim_probe,
    .reader_open = accelsim_open,
    .reader_next = accelsim_next,
    .reader_bytes_done = accelsim_bytes_done,
    .reader_close = accelsim_close,
    .reader_set_lazy_addresses = accelsim_set_lazy,
    .reader_set_skips = accelsim_set_skips,
    .reader_describe = accelsim_describe,
    .input_files = accelsim_input_files,
};
