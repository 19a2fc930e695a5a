/* SAC's runtime check: the organisation each kernel runs faster with, from
 * two timing replays of the same trace (examples/sac/README.md, "Runtime
 * winner"). */
#include <string.h>

#include "gcreplay/chips.h"
#include "report/report.h"

const char *gcr_sac_runtime_winner(uint64_t memory_side_cycles, uint64_t sm_side_cycles)
{
    /* Equal cycles keep memory-side: it is the baseline organisation, as in
     * SAC's decision, which switches only when SM-side is better. */
    return gcr_llc_org_name(sm_side_cycles < memory_side_cycles ? GCR_LLC_SM_SIDE
                                                                : GCR_LLC_MEMORY_SIDE);
}

/* The cycles of one timed period (a kernel or the total), or -1. */
static json_int_t period_cycles(const json_t *period)
{
    const json_t *c = json_object_get(json_object_get(period, "timing"), "cycles");
    return json_is_integer(c) && json_integer_value(c) >= 0 ? json_integer_value(c) : -1;
}

/* Fills period.multichip.sac from the same period of both timed replays. */
static int fill_period(json_t *period, const json_t *const timed[GCR_LLC_ORG_COUNT],
                       const char *where, struct gcr_err *err)
{
    json_t *sac = json_object_get(json_object_get(period, "multichip"), "sac");
    if (!json_is_object(sac))
        return gcr_fail(err, GCR_E_INTERNAL, "%s: the functional report has no multichip.sac",
                        where);
    json_t *rt = json_object();
    json_int_t cycles[GCR_LLC_ORG_COUNT];
    for (int o = 0; o < GCR_LLC_ORG_COUNT; o++) {
        const char *name = gcr_llc_org_name((enum gcr_llc_org)o);
        if ((cycles[o] = period_cycles(timed[o])) < 0) {
            json_decref(rt);
            return gcr_fail(err, GCR_E_INTERNAL, "%s: the %s timing replay has no cycles",
                            where, name);
        }
        const json_t *lim = json_object_get(json_object_get(timed[o], "timing"),
                                            "limiting_resource");
        json_object_set_new(rt, name,
                            json_pack("{s:I, s:O}", "cycles", cycles[o], "limiting_resource",
                                      lim ? (json_t *)lim : json_null()));
    }
    const char *winner = gcr_sac_runtime_winner((uint64_t)cycles[GCR_LLC_MEMORY_SIDE],
                                                (uint64_t)cycles[GCR_LLC_SM_SIDE]);
    /* memory-side cycles over SM-side cycles: > 1 when SM-side is faster. */
    json_object_set_new(rt, "sm_side_speedup",
                        cycles[GCR_LLC_SM_SIDE]
                            ? json_real((double)cycles[GCR_LLC_MEMORY_SIDE] /
                                        (double)cycles[GCR_LLC_SM_SIDE])
                            : json_null());
    json_object_set_new(rt, "winner", json_string(winner));
    json_object_set_new(sac, "runtime", rt);
    json_object_set_new(sac, "runtime_winner", json_string(winner));
    return 0;
}

int gcr_report_sac_runtime(json_t *report, const json_t *timed_memory_side,
                           const json_t *timed_sm_side, struct gcr_err *err)
{
    const json_t *timed[GCR_LLC_ORG_COUNT] = {[GCR_LLC_MEMORY_SIDE] = timed_memory_side,
                                              [GCR_LLC_SM_SIDE] = timed_sm_side};
    json_t *kernels = json_object_get(report, "kernels");
    size_t n = json_array_size(kernels);
    for (int o = 0; o < GCR_LLC_ORG_COUNT; o++) {
        size_t m = json_array_size(json_object_get(timed[o], "kernels"));
        if (m != n)
            return gcr_fail(err, GCR_E_INTERNAL,
                            "the %s timing replay has %zu kernels, the functional one %zu",
                            gcr_llc_org_name((enum gcr_llc_org)o), m, n);
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *tk[GCR_LLC_ORG_COUNT];
        char where[32];
        snprintf(where, sizeof where, "kernel %zu", i);
        for (int o = 0; o < GCR_LLC_ORG_COUNT; o++)
            tk[o] = json_array_get(json_object_get(timed[o], "kernels"), i);
        if (fill_period(json_array_get(kernels, i), tk, where, err) != 0)
            return -1;
    }
    const json_t *tt[GCR_LLC_ORG_COUNT];
    for (int o = 0; o < GCR_LLC_ORG_COUNT; o++)
        tt[o] = json_object_get(timed[o], "total");
    return fill_period(json_object_get(report, "total"), tt, "total", err);
}
