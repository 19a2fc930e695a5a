/* The replay configuration, loaded strictly from JSON.
 *
 * Every key is optional and has a documented default (examples/configs/README.md);
 * an unknown key, a value of the wrong type or out of range, or an impossible
 * geometry is an error whose message names the file and the JSON path. */
#ifndef GCREPLAY_CONFIG_H
#define GCREPLAY_CONFIG_H

/* Launches whose carve-out a config can fix (l1d.adaptive.carveout_bytes). */
#define GCR_MAX_CARVEOUTS 64

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/cache.h"
#include "gcreplay/chips.h"
#include "gcreplay/error.h"
#include "gcreplay/memfile.h"

enum gcr_cta_policy {
    GCR_CTA_ROUND_ROBIN = 0, /* GPU-like: next CTA to the next SM with room */
    GCR_CTA_CONTIGUOUS,      /* SM s runs CTAs [s*ceil(n/S), (s+1)*ceil(n/S)) */
    GCR_CTA_POLICY_COUNT
};

/* The order in which round-robin CTA dispatch visits the SMs. */
enum gcr_sm_order {
    GCR_SM_ORDER_LINEAR = 0, /* SM 0, 1, 2, ... (GPGPU-Sim's order) */
    GCR_SM_ORDER_TPC_SPREAD, /* one SM of every two-SM TPC first: 0, 2, 4, ..., then 1, 3, ... */
    GCR_SM_ORDER_COUNT
};

enum gcr_warp_policy {
    GCR_WARP_LRR = 0, /* loose round-robin over resident warps */
    GCR_WARP_GTO,     /* greedy-then-oldest, switching on an L1 miss */
    GCR_WARP_VWS,     /* seed 004's versatile warp scheduler (timing mode only) */
    GCR_WARP_POLICY_COUNT
};

enum gcr_granularity {
    GCR_GRAN_LINE = 0, /* one request per line with a sector mask */
    GCR_GRAN_SECTOR,   /* one request per sector (GPGPU-Sim sm_70+ L1 accounting) */
    GCR_GRAN_COUNT
};

enum gcr_slice_hash {
    GCR_SLICE_LINEAR = 0, /* slice = (addr / interleave) mod slices */
    GCR_SLICE_XOR,        /* slice bits XOR-folded with all higher granule bits */
    GCR_SLICE_IPOLY,      /* GPGPU-Sim IPOLY partition indexing (16, 32 or 64 slices) */
    GCR_SLICE_HASH_COUNT
};

/* Multi-chip GPU (config section "chips"; SAC, ISCA'23). count == 1 is the
 * single-chip GPU and leaves every other key without effect. */
struct gcr_chips_config {
    uint32_t count;            /* chips; SMs and L2 slices split evenly among them */
    uint32_t slices_per_chip;  /* derived: l2.slices / count (l2.slices is the total) */
    uint64_t page_bytes;       /* first-touch placement granule */
    uint32_t channels;         /* DRAM channels per chip (power of two) */
    enum gcr_llc_org llc;      /* the organisation replayed as the L2 of the report */
    bool shadow;               /* also replay the other organisation on the same L1 misses */
    uint32_t crd_sets, crd_ways; /* Chip Request Directory: sampled sets x ways, per chip */
    bool crd_at_requester;     /* one directory per requesting chip (else per home, SAC) */
    double theta;              /* EAB decision threshold, relative */
    bool lsu_per_chip;         /* LSU: mean of per-chip LSUs (else over all slices) */
    uint64_t profile_requests; /* LLC requests of a kernel's profiling window */
    struct gcr_eab_bandwidths bw; /* per chip, GB/s */
};

/* The timing backend (src/timing/README.md): off by default; a functional
 * replay ignores every field. Latencies are in core cycles; each bandwidth is
 * in bytes per cycle of its own clock domain (clocks in MHz, as GPGPU-Sim's
 * -gpgpu_clock_domains gives them). */
struct gcr_timing_config {
    bool enabled;
    double core_mhz, noc_mhz, l2_mhz, dram_mhz;
    uint32_t issue_per_cycle;        /* warp instructions an SM issues per cycle (schedulers) */
    uint32_t kernel_launch_latency;  /* cycles before a kernel's first issue */
    uint32_t alu_latency;            /* cycles before a warp issues after a non-memory insn */
    uint32_t shared_latency;         /* shared-memory access */
    uint32_t l1_latency;             /* L1 hit (also the L1 lookup before a miss leaves) */
    uint32_t noc_latency;            /* one traversal of a network (each way) */
    uint32_t l2_latency;             /* L2 slice access (ROP + tag + data) */
    uint32_t dram_latency;           /* DRAM access beyond its data transfer */
    uint32_t noc_port_bytes;         /* per NoC cycle, each SM port and each slice port */
    uint32_t l2_slice_bytes;         /* per L2 cycle, each slice's data array */
    uint32_t dram_channel_bytes;     /* per DRAM cycle, each channel's data bus */
    uint32_t link_bytes;             /* per NoC cycle, each inter-chip link / core-L1 port */
    uint32_t shared_bytes;           /* per core cycle, each SM's shared-memory banks */
    uint32_t header_bytes;           /* added to every message on a network */
    uint32_t resource_gaps;          /* idle gaps a resource remembers (0: strict FCFS) */
    uint32_t dram_channels;          /* 0 = one per L2 slice; else divides the slices */
    uint32_t l1_mshrs;               /* outstanding L1 misses per SM */
    uint32_t l1_banks;               /* L1 banks: each takes one 32-B access per cycle */
    uint32_t l1_miss_queue;          /* L1 requests waiting to enter the NoC */
    uint32_t l2_max_merge;           /* requests an L2 sector in flight serves (0: any) */
    /* Non-memory instructions whose trace gives their unit (gcreplay/record.h, enum
     * gcr_unit; src/timing/README.md): each unit's latency and initiation interval in
     * cycles, and how many an SM has (split among its issue_per_cycle schedulers); and the
     * cycles an instruction spends outside its unit from issue to the release of its
     * registers (operand collection, dispatch, writeback). Index GCR_UNIT_NONE unused. */
    struct gcr_timing_unit {
        uint32_t latency, initiation, count;
    } units[8];
    uint32_t unit_pipeline;
    /* Open-row DRAM model with first-ready, first-come-first-served
     * scheduling (off by default): timings in DRAM cycles. */
    bool dram_rows;
    uint32_t dram_banks, dram_row_bytes, t_rcd, t_rp, t_cl, t_ras;
    /* VWS (scheduling.warp_policy "vws"): sampling fraction alpha, throttle
     * factor beta, address-miss-table entries, first-level warps. */
    double vws_alpha, vws_beta;
    uint32_t vws_amt_entries, vws_level1_warps;
};

struct gcr_config {
    char *origin; /* file name, for messages */
    char *name;
    uint64_t seed;

    uint32_t num_sms;
    uint32_t max_ctas_per_sm;
    uint32_t max_warps_per_sm;
    uint32_t shared_mem_per_sm;  /* bytes */
    uint32_t registers_per_sm;

    enum gcr_cta_policy cta_policy;
    enum gcr_sm_order sm_order;
    enum gcr_warp_policy warp_policy;
    uint32_t gto_miss_stall; /* SM issue slots a warp waits after an L1 miss under GTO */

    uint32_t line_bytes;
    uint32_t sector_bytes;
    enum gcr_granularity granularity;

    char *l1_organization;            /* name of an L1 organisation (src/orgs/) */
    struct gcr_cache_geometry l1;
    bool l1_invalidate_at_kernel_end;
    bool l1_bypass_global; /* global accesses skip L1 (GPGPU-Sim -gpgpu_gmem_skip_L1D) */
    /* Unified L1/shared memory (Volta and later): when unified_bytes > 0, each
     * kernel's L1 gets the capacity left by the smallest shared-memory option
     * that holds its CTAs' shared memory; l1 geometry gives the sets and the
     * ways of l1_base_bytes. */
    uint64_t l1_unified_bytes;
    uint32_t l1_shmem_options[16]; /* bytes, ascending */
    uint32_t l1_shmem_option_count;
    uint32_t l1_carveouts[GCR_MAX_CARVEOUTS]; /* l1d.adaptive.carveout_bytes, per launch */
    uint32_t l1_carveout_count;
    json_t *l1_org_options;           /* l1d.<organization> object, or NULL */
    /* Fields a functional replay does not use, validated and kept for the
     * timing backend and for the report: {"allocation", "mshr"} per cache. */
    json_t *l1_kept, *l2_kept;

    uint32_t l2_slices;
    /* Behaviours of real GPUs (off: GPGPU-Sim's L2). l2.byte_masks and the
     * write-hit counting live in the l2 geometry. */
    bool l2_counting_nsight;       /* l2.counting "nsight": atomics apart, writes hit */
    uint32_t l2_merge_window;      /* l2.request_coalescer.window_requests; 0 = no coalescer */
    uint32_t l2_merge_window_cycles; /* ...window_cycles, under timing (0: while in flight) */
    uint32_t l2_partitions;        /* l2.partitions.count (1: one L2) */
    bool l2_partition_interleaved; /* SM s in partition s mod count, else contiguous ranges */
    bool l2_partial_writes_drop;   /* l2.partitions.partial_writes "drop" (else "take") */
    uint32_t l2_fetch_bytes;       /* l2.fetch_bytes: a read miss's DRAM fetch unit */
    uint64_t l2_interleave_bytes;
    unsigned l2_interleave_log2;  /* derived: interleave_bytes is a power of two */
    uint32_t l2_slice_mask;       /* derived: slices - 1 when a power of two, else 0 */
    enum gcr_slice_hash l2_slice_hash;
    struct gcr_cache_geometry l2;     /* geometry of one slice */
    bool l2_prefill_memcpy;

    struct gcr_chips_config chips;

    json_t *analyses; /* object: analysis name -> its options object */

    struct gcr_timing_config timing;
};

/* Loads and validates a config file. On error nothing needs freeing. */
int gcr_config_load(struct gcr_config *cfg, const char *path, struct gcr_err *err);
/* The same from a JSON text (origin names it in messages). */
int gcr_config_parse(struct gcr_config *cfg, const char *json_text, const char *origin,
                     struct gcr_err *err);
/* The same from a parsed JSON document (borrowed). */
int gcr_config_from_json(struct gcr_config *cfg, json_t *root, const char *origin,
                         struct gcr_err *err);
/* A config file's JSON document, not yet validated (NULL and err, with a hint for the usual
 * mistakes: a GPGPU-Sim option file, a byte-order mark, a directory). */
json_t *gcr_config_load_json(const char *path, struct gcr_err *err);

/* Overrides: `--set PATH=VALUE` on the command line (src/config/overrides.c). PATH is a
 * dotted path of object keys (l1d.ways, analyses.replication); VALUE is JSON, or a bare word
 * (letters, digits, '_', '-', '.', starting with a letter) taken as a string; null removes the
 * key, so that its default applies. Missing objects on the way are created. The result is
 * checked as a config file is, and an error caused by an override names it. */
struct gcr_config_override {
    char *text;  /* "PATH=VALUE", as given */
    char *path;  /* PATH */
    json_t *value; /* VALUE, parsed; JSON null to remove the key */
};
/* Parses "PATH=VALUE" (0, or -1 with err naming the text). */
int gcr_config_override_parse(struct gcr_config_override *o, const char *text,
                              struct gcr_err *err);
void gcr_config_override_free(struct gcr_config_override *o);
/* Applies the overrides to a config document, in order (0, or -1 with err). */
int gcr_config_override_apply(json_t *root, const struct gcr_config_override *o, size_t n,
                              struct gcr_err *err);
/* Loads the config file at path with the overrides ("PATH=VALUE" texts) applied. */
int gcr_config_load_with(struct gcr_config *cfg, const char *path, const char *const *sets,
                         size_t nsets, struct gcr_err *err);
/* Validates an overridden document (origin: the file it came from); an error that lies at or
 * under an override's path, or at an object that holds it, is reported as that override's. */
int gcr_config_from_json_overridden(struct gcr_config *cfg, json_t *root, const char *origin,
                                    const struct gcr_config_override *o, size_t n,
                                    struct gcr_err *err);
void gcr_config_free(struct gcr_config *cfg);

/* L1 ways for launch `launch` (0 = the first replayed) whose CTAs on one SM
 * use shmem_per_sm bytes of shared memory (unified L1/shared carve-out: the
 * launch's l1d.adaptive.carveout_bytes if given, else GPGPU-Sim's rule; the
 * configured ways when not unified). */
uint32_t gcr_config_l1_ways_for(const struct gcr_config *cfg, uint64_t launch,
                                uint64_t shmem_per_sm);

/* Builds a gcreplay config (JSON) from GPGPU-Sim / Accel-Sim option files
 * (gpgpusim.config, then trace.config...; later settings override earlier
 * ones). The result passes gcr_config_parse. NULL and err (file:line: -option)
 * on failure. */
json_t *gcr_config_import_gpgpusim(const char *const *paths, size_t npaths, const char *name,
                                   struct gcr_err *err);
/* The same from files held in memory (gcreplay/memfile.h), in that order, with distinct
 * names, which messages give as they would give paths. */
json_t *gcr_config_import_gpgpusim_memory(const struct gcr_memfile *files, size_t count,
                                          const char *name, struct gcr_err *err);

/* The effective configuration with every default filled in (for reports). */
json_t *gcr_config_to_json(const struct gcr_config *cfg);
/* The timing section alone (part of the above when timing is enabled). */
json_t *gcr_timing_config_to_json(const struct gcr_timing_config *t);

const char *gcr_cta_policy_name(enum gcr_cta_policy p);
const char *gcr_sm_order_name(enum gcr_sm_order o);
/* Whether the L2 fetches from DRAM in units larger than a sector (l2.fetch_bytes). */
static inline bool gcr_l2_promotes(const struct gcr_config *cfg)
{
    return cfg->l2_fetch_bytes > cfg->sector_bytes;
}
/* Whether any of the L2 behaviours of real GPUs is on (README, "Agreeing with silicon"):
 * l2.counting "nsight", byte_masks, request_coalescer, partitions, fetch_bytes. */
static inline bool gcr_l2_silicon(const struct gcr_config *cfg)
{
    return cfg->l2_counting_nsight || cfg->l2.byte_masks || cfg->l2_merge_window ||
           cfg->l2_partitions > 1 || gcr_l2_promotes(cfg);
}
/* The SM at position pos (0 <= pos < num_sms) of the CTA dispatch order. */
static inline uint32_t gcr_sm_at(const struct gcr_config *cfg, uint32_t pos)
{
    if (cfg->sm_order == GCR_SM_ORDER_LINEAR)
        return pos;
    uint32_t firsts = (cfg->num_sms + 1) / 2; /* SMs 0, 2, 4, ...: the first of each TPC */
    return pos < firsts ? 2 * pos : 2 * (pos - firsts) + 1;
}
const char *gcr_warp_policy_name(enum gcr_warp_policy p);
const char *gcr_granularity_name(enum gcr_granularity g);
const char *gcr_slice_hash_name(enum gcr_slice_hash h);

/* The XOR fold of gcr_config_slice_of: (g ^ g>>b ^ g>>2b ^ ...) in the low b
 * bits, computed by doubling (after the step with shift s, x is the XOR of
 * the shifts by 0..2s-b), log2(64/b) steps instead of one per group. Inline
 * with a constant b, the loop unrolls into shifts by constants. */
static inline __attribute__((always_inline)) uint64_t gcr_slice_xor_fold(uint64_t x, unsigned b)
{
    for (unsigned s = b; s < 64; s <<= 1)
        x ^= x >> s;
    return x;
}

/* L2 slice of a line address under this config (inline: every L2 access asks). */
static inline uint32_t gcr_config_slice_of(const struct gcr_config *cfg, uint64_t addr)
{
    uint64_t granule = addr >> cfg->l2_interleave_log2;
    if (cfg->l2_slices == 1)
        return 0;
    if (cfg->l2_slice_hash == GCR_SLICE_LINEAR)
        return cfg->l2_slice_mask ? (uint32_t)(granule & cfg->l2_slice_mask)
                                  : (uint32_t)(granule % cfg->l2_slices);
    if (cfg->l2_slice_hash == GCR_SLICE_IPOLY)
        return gcr_ipoly_hash(granule >> __builtin_ctz(cfg->l2_slices),
                              (uint32_t)(granule & cfg->l2_slice_mask), cfg->l2_slices);
    /* XOR-fold every group of log2(slices) granule bits into the slice bits,
     * so power-of-two strides spread over all slices. The usual slice counts
     * (2 to 256) take a fold unrolled for their group width: the loop with a
     * variable shift took twice the instructions, and the L2 prefetch and
     * every L2 access ask. */
    unsigned bits = (unsigned)__builtin_ctz(cfg->l2_slices);
    uint64_t x = granule;
    switch (bits) {
    case 1: x = gcr_slice_xor_fold(x, 1); break;
    case 2: x = gcr_slice_xor_fold(x, 2); break;
    case 3: x = gcr_slice_xor_fold(x, 3); break;
    case 4: x = gcr_slice_xor_fold(x, 4); break;
    case 5: x = gcr_slice_xor_fold(x, 5); break;
    case 6: x = gcr_slice_xor_fold(x, 6); break;
    case 7: x = gcr_slice_xor_fold(x, 7); break;
    case 8: x = gcr_slice_xor_fold(x, 8); break;
    default: x = gcr_slice_xor_fold(x, bits); break;
    }
    return (uint32_t)(x & (cfg->l2_slices - 1));
}

#endif
