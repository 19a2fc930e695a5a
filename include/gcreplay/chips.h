/* Multi-chip GPUs (SAC, ISCA'23): which chip runs a CTA, and the Effective
 * Available Bandwidth (EAB) model that picks the LLC organisation per kernel.
 *
 * The replay of the chips themselves (first-touch pages, memory-side and
 * SM-side LLCs, links, the Chip Request Directory) lives in src/multichip/chips.c;
 * what is here is shared with analyses and tests. */
#ifndef GCREPLAY_CHIPS_H
#define GCREPLAY_CHIPS_H

#include <stdbool.h>
#include <stdint.h>

#define GCR_MAX_CHIPS 64 /* chip sets are one 64-bit word (CRD bits, sharing analysis) */

/* SAC's distributed CTA scheduling: chips get contiguous blocks of CTAs,
 * chip = cta / ceil(nctas / chips). Every user of a CTA's chip (the replay's
 * dispatch, the sharing analysis) calls this one function. */
static inline uint32_t gcr_chip_of_cta(uint64_t cta, uint64_t nctas, uint32_t chips)
{
    if (chips <= 1 || nctas == 0)
        return 0;
    uint64_t per_chip = (nctas + chips - 1) / chips;
    uint64_t chip = cta / per_chip;
    return chip < chips ? (uint32_t)chip : chips - 1;
}

/* SMs are split evenly: chip c has SMs [c*S/N, (c+1)*S/N). */
static inline uint32_t gcr_chip_of_sm(uint32_t sm, uint32_t num_sms, uint32_t chips)
{
    if (chips <= 1)
        return 0;
    uint32_t chip = sm / (num_sms / chips);
    return chip < chips ? chip : chips - 1;
}

/* Bandwidths of ONE chip, all in the same unit (the config uses GB/s):
 *  intra: SM <-> LLC network of the chip (NoC bisection)
 *  inter: everything the chip's inter-chip links can carry out of the chip
 *         (SAC baseline: 6 links x 32 GB/s per direction = 192 GB/s)
 *  llc:   raw bandwidth of all the chip's LLC slices
 *  mem:   raw DRAM bandwidth of the chip's memory partition */
struct gcr_eab_bandwidths {
    double intra, inter, llc, mem;
};

enum gcr_llc_org {
    GCR_LLC_MEMORY_SIDE = 0, /* a line lives only in its home chip's LLC */
    GCR_LLC_SM_SIDE,         /* a chip's LLC caches any line, for its own SMs only */
    GCR_LLC_ORG_COUNT
};

/* Measured inputs of one organisation (SAC Table 2). */
struct gcr_eab_inputs {
    double r_local; /* fraction of LLC requests whose line is homed on the requesting chip */
    double llc_hit; /* LLC hit rate under this organisation */
    double lsu;     /* LLC slice uniformity under this organisation, 1/N..1 */
};

struct gcr_eab {
    double local, remote, total; /* SAC eq. (1)-(2), per chip */
};

/* SAC §3.3 eq. (1)-(5) with Table 1's split of every term between local and
 * remote requests for organisation org. */
struct gcr_eab gcr_eab_model(enum gcr_llc_org org, const struct gcr_eab_inputs *in,
                             const struct gcr_eab_bandwidths *bw);

/* SAC §3.5: SM-side iff its EAB exceeds the memory-side EAB by more than
 * theta, relatively (EAB_SM > (1 + theta) * EAB_mem). */
static inline enum gcr_llc_org gcr_eab_decide(double eab_mem, double eab_sm, double theta)
{
    return eab_sm > (1.0 + theta) * eab_mem ? GCR_LLC_SM_SIDE : GCR_LLC_MEMORY_SIDE;
}

/* SAC eq. (4): LSU = mean(R_i) / max(R_i) over n slices; 1 when nothing was requested. */
double gcr_eab_lsu(const uint64_t *requests, uint32_t n);

const char *gcr_llc_org_name(enum gcr_llc_org org); /* "memory_side" "sm_side" */

#endif
