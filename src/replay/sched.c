/* The warp schedulers, one per $.scheduling.warp_policy (sched.h). */
#include "replay/sched.h"

#include <stddef.h>

static const struct gcr_warp_sched *const gcr_warp_scheds[] = {&gcr_sched_lrr, &gcr_sched_gto,
                                                                &gcr_sched_vws};

const struct gcr_warp_sched *gcr_warp_sched_of(enum gcr_warp_policy policy)
{
    for (size_t i = 0; i < sizeof gcr_warp_scheds / sizeof gcr_warp_scheds[0]; i++)
        if (gcr_warp_scheds[i]->policy == policy)
            return gcr_warp_scheds[i];
    return NULL;
}
