/* IWL throttling of the versatile warp scheduler (seed 004, Eq 4.1-4.6). */
#include "timing/vws.h"

#include <math.h>

void gcr_vws_kernel_begin(struct gcr_vws_sm *v, uint64_t warps_per_sm, double alpha)
{
    /* Eq 4.2 taken as alpha x (warps per SM): the footnote's N_CTA already
     * divides by the SM count, so the literal formula would divide twice. */
    double n = ceil(alpha * (double)warps_per_sm);
    *v = (struct gcr_vws_sm){.n_pred = n < 1 ? 1 : n > 1e9 ? 1000000000u : (uint32_t)n,
                             .n_act = UINT32_MAX};
}

bool gcr_vws_warp_done(struct gcr_vws_sm *v, uint32_t misses, uint32_t accesses, double beta,
                       uint32_t l1_blocks)
{
    v->finished++;
    /* A warp without new misses says nothing about its working set: skip it
     * (Eq 4.5 would divide by zero). The first estimate starts the averages. */
    if (misses > 0) {
        double rr_new = (double)accesses / misses; /* Eq 4.5 */
        if (!v->have_estimate) {
            v->ws = misses;
            v->rr = rr_new;
            v->have_estimate = true;
        } else {
            v->ws = 0.5 * v->ws + 0.5 * misses; /* Eq 4.1 */
            v->rr = 0.5 * v->rr + 0.5 * rr_new; /* Eq 4.4 */
        }
    }
    /* Sampling ends after n_pred completions; from then on, Eq 4.6. */
    if (v->finished >= v->n_pred && v->have_estimate) {
        double n = ceil(beta * l1_blocks / (v->ws * v->rr));
        v->n_act = n < 1 ? 1 : n > 1e9 ? 1000000000u : (uint32_t)n;
    }
    return v->finished % v->n_pred == 0;
}
