/* SAC's Effective Available Bandwidth model (ISCA'23 §3.3, Tables 1 and 2).
 * Pure arithmetic on measured inputs: the replay measures, this predicts. */
#include "gcreplay/chips.h"

#include <math.h>

static double min2(double a, double b) { return a < b ? a : b; }

/* Eq. (2) for one request class: min(B_SM_LLC, B_LLC_hit + min(B_LLC_miss, B_LLC_mem, B_mem)). */
static double eab_part(double sm_llc, double llc_hit, double llc_miss, double llc_mem, double mem)
{
    return min2(sm_llc, llc_hit + min2(llc_miss, min2(llc_mem, mem)));
}

struct gcr_eab gcr_eab_model(enum gcr_llc_org org, const struct gcr_eab_inputs *in,
                             const struct gcr_eab_bandwidths *bw)
{
    double rl = in->r_local, rr = 1.0 - in->r_local;
    double hit = bw->llc * in->lsu * in->llc_hit;          /* eq. (3) */
    double miss = bw->llc * in->lsu * (1.0 - in->llc_hit); /* eq. (5) */
    struct gcr_eab e;
    if (org == GCR_LLC_MEMORY_SIDE) {
        /* Table 1: local requests see the whole intra-chip network, remote
         * ones the whole inter-chip bandwidth; LLC misses use the home
         * chip's point-to-point slice -> memory links (not a limit). */
        e.local = eab_part(bw->intra, hit * rl, miss * rl, INFINITY, bw->mem * rl);
        e.remote = eab_part(bw->inter, hit * rr, miss * rr, INFINITY, bw->mem * rr);
    } else {
        /* Every request goes to a local slice, so the intra-chip network is
         * split by R; only remote misses cross the links (B_LLC_mem = B_inter). */
        e.local = eab_part(bw->intra * rl, hit * rl, miss * rl, INFINITY, bw->mem * rl);
        e.remote = eab_part(bw->intra * rr, hit * rr, miss * rr, bw->inter, bw->mem * rr);
    }
    e.total = e.local + e.remote; /* eq. (1) */
    return e;
}

double gcr_eab_lsu(const uint64_t *requests, uint32_t n)
{
    uint64_t max = 0;
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += (double)requests[i];
        if (requests[i] > max)
            max = requests[i];
    }
    if (!max || !n)
        return 1.0; /* no load: nothing is unbalanced */
    return sum / n / (double)max; /* eq. (4) */
}

const char *gcr_llc_org_name(enum gcr_llc_org org)
{
    return org == GCR_LLC_SM_SIDE ? "sm_side" : "memory_side";
}
