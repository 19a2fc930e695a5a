/* The replay configuration, loaded strictly from JSON.
 *
 * Every key is optional and has a documented default (examples/configs/README.md);
 * an unknown key, a value of the wrong type or out of range, or an impossible
 * geometry is an error whose message names the file and the JSON path. */
#ifndef GCREPLAY_CONFIG_H
#define GCREPLAY_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/cache.h"
#include "gcreplay/error.h"

enum gcr_cta_policy {
    GCR_CTA_ROUND_ROBIN = 0, /* GPU-like: next CTA to the next SM with room */
    GCR_CTA_CONTIGUOUS,      /* SM s runs CTAs [s*ceil(n/S), (s+1)*ceil(n/S)) */
    GCR_CTA_POLICY_COUNT
};

enum gcr_warp_policy {
    GCR_WARP_LRR = 0, /* loose round-robin over resident warps */
    GCR_WARP_GTO,     /* greedy-then-oldest, switching on an L1 miss */
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
    json_t *l1_org_options;           /* l1d.<organization> object, or NULL */
    /* Fields a functional replay does not use, validated and kept for the
     * timing backend and for the report: {"allocation", "mshr"} per cache. */
    json_t *l1_kept, *l2_kept;

    uint32_t l2_slices;
    uint64_t l2_interleave_bytes;
    unsigned l2_interleave_log2;  /* derived: interleave_bytes is a power of two */
    uint32_t l2_slice_mask;       /* derived: slices - 1 when a power of two, else 0 */
    enum gcr_slice_hash l2_slice_hash;
    struct gcr_cache_geometry l2;     /* geometry of one slice */
    bool l2_prefill_memcpy;

    json_t *analyses; /* object: analysis name -> its options object */
};

/* Loads and validates a config file. On error nothing needs freeing. */
int gcr_config_load(struct gcr_config *cfg, const char *path, struct gcr_err *err);
/* The same from a JSON text (origin names it in messages). */
int gcr_config_parse(struct gcr_config *cfg, const char *json_text, const char *origin,
                     struct gcr_err *err);
void gcr_config_free(struct gcr_config *cfg);

/* L1 ways for a kernel whose CTAs on one SM use shmem_per_sm bytes of shared
 * memory (unified L1/shared carve-out; the configured ways when not unified). */
uint32_t gcr_config_l1_ways_for(const struct gcr_config *cfg, uint64_t shmem_per_sm);

/* Builds a gcreplay config (JSON) from GPGPU-Sim / Accel-Sim option files
 * (gpgpusim.config, then trace.config...; later settings override earlier
 * ones). The result passes gcr_config_parse. NULL and err (file:line: -option)
 * on failure. */
json_t *gcr_config_import_gpgpusim(const char *const *paths, size_t npaths, const char *name,
                                   struct gcr_err *err);

/* The effective configuration with every default filled in (for reports). */
json_t *gcr_config_to_json(const struct gcr_config *cfg);

const char *gcr_cta_policy_name(enum gcr_cta_policy p);
const char *gcr_warp_policy_name(enum gcr_warp_policy p);
const char *gcr_granularity_name(enum gcr_granularity g);
const char *gcr_slice_hash_name(enum gcr_slice_hash h);

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
     * so power-of-two strides spread over all slices. The fold is
     * (g ^ g>>b ^ g>>2b ^ ...) & mask with b = log2(slices); it is computed by
     * doubling (after the step with shift s, x is the XOR of the shifts by
     * 0..2s-b), a fixed log2(64/b) steps instead of one per group. */
    unsigned bits = (unsigned)__builtin_ctz(cfg->l2_slices);
    uint64_t x = granule;
    for (unsigned s = bits; s < 64; s <<= 1)
        x ^= x >> s;
    return (uint32_t)(x & (cfg->l2_slices - 1));
}

#endif
