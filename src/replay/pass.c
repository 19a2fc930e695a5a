/* One trace pass, many memory systems. Variants of a GPU that differ only below the
 * coalescer (the L1 organisation and geometry, the L2, the chips' LLCs, the analyses)
 * see the same request stream: the trace's records, the CTAs, the warps' issue order
 * and the coalesced requests do not depend on them. One replay's front end (cta.c,
 * issue.c, execute.h) then drives the memory systems of the others, its variants,
 * each a replay of its own whose front end stays idle: every coalesced request, every
 * instruction its observers see, every kernel boundary and host copy reaches each
 * memory system in the order a replay of its own would give it, so each variant's
 * report is the one it would have alone.
 *
 * What a memory system tells the front end must then not steer it: that is true of a
 * functional replay with loose round-robin scheduling (the scheduler never asks), and
 * of greedy-then-oldest without a miss stall. The pass key (gcr_replay_pass_key) is
 * what the front end reads of a config; configs with equal keys can share a pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/engine.h"
#include "replay/execute.h"

const char *gcr_replay_pass_key(const struct gcr_config *cfg, char *key, size_t cap)
{
    /* Not in the key, each read only by the memory system or its observers: the L1
     * organisation, geometry, options, carve-outs, bypass_global (it picks where a
     * request goes, not which requests there are) and invalidation; the L2 but for
     * byte_masks; the chips but for their count; the analyses (the loader keeps the
     * lanes of on-chip instructions when any variant observes instructions); the seed
     * (random replacement); the name. */

    /* The timed driver issues each warp when its memory replies arrive, as the
     * variant's own memory system and timing backend time them (VWS needs it too). */
    if (cfg->timing.enabled)
        return "timing mode: warps issue when the variant's own memory system lets them";
    /* GTO stalls a warp for gto_miss_stall issue slots after an L1 miss: the issue
     * order follows the variant's own L1. Without a stall it never looks. */
    if (cfg->warp_policy == GCR_WARP_GTO && cfg->gto_miss_stall)
        return "scheduling.warp_policy \"gto\" with a miss stall: the issue order follows "
               "the variant's own L1 misses";
    int n = snprintf(key, cap,
                     /* CTA placement: how many fit on an SM (cta.c, ctas_per_sm), over
                      * which SMs, in which order, split by chip (chip_cta_ranges). */
                     "sms=%u max_ctas_per_sm=%u max_warps_per_sm=%u shared_mem_per_sm=%u "
                     "registers_per_sm=%u cta_policy=%s chips=%u "
                     /* Which warp of an SM issues (sched.h). */
                     "warp_policy=%s "
                     /* The coalescer: the units requests are made of (execute.h). */
                     "line_bytes=%u sector_bytes=%u granularity=%s "
                     /* Stores take the per-lane coalescing path for the L2's byte
                      * masks, which read every lane's address. */
                     "l2_byte_masks=%d",
                     cfg->num_sms, cfg->max_ctas_per_sm, cfg->max_warps_per_sm,
                     cfg->shared_mem_per_sm, cfg->registers_per_sm,
                     gcr_cta_policy_name(cfg->cta_policy), cfg->chips.count,
                     gcr_warp_policy_name(cfg->warp_policy), cfg->line_bytes, cfg->sector_bytes,
                     gcr_granularity_name(cfg->granularity), (int)cfg->l2.byte_masks);
    if (n < 0 || (size_t)n >= cap)
        return "the pass key does not fit its buffer";
    return NULL;
}

/* The first setting of key a that key b gives differently ("name=value" of a). */
static void first_difference(const char *a, const char *b, char *out, size_t cap)
{
    while (*a) {
        size_t la = strcspn(a, " "), lb = strcspn(b, " ");
        if (la != lb || strncmp(a, b, la)) {
            snprintf(out, cap, "%.*s, not %.*s", (int)lb, b, (int)la, a);
            return;
        }
        a += la + (a[la] == ' ');
        b += lb + (b[lb] == ' ');
    }
    snprintf(out, cap, "?");
}

int gcr_replay_share_pass(struct gcr_replay *rp, struct gcr_replay *variant, struct gcr_err *err)
{
    if (variant == rp || rp->driven_by || variant->driven_by || variant->nvariants)
        return gcr_fail(err, GCR_E_USAGE, "a replay drives the variants of its pass, and is "
                        "none itself");
    if (rp->nkernels || json_array_size(rp->traces) || variant->nkernels ||
        json_array_size(variant->traces))
        return gcr_fail(err, GCR_E_USAGE, "variants share a pass from its first trace on");
    char mine[GCR_PASS_KEY_MAX], theirs[GCR_PASS_KEY_MAX];
    const char *why = gcr_replay_pass_key(rp->cfg, mine, sizeof mine);
    const struct gcr_config *alone = rp->cfg;
    if (!why) {
        why = gcr_replay_pass_key(variant->cfg, theirs, sizeof theirs);
        alone = variant->cfg;
    }
    if (why)
        return gcr_fail(err, GCR_E_USAGE, "%s: needs a pass of its own (%s)", alone->origin,
                        why);
    if (strcmp(mine, theirs) != 0) {
        char diff[128];
        first_difference(mine, theirs, diff, sizeof diff);
        return gcr_fail(err, GCR_E_USAGE, "%s cannot share a pass with %s: %s",
                        variant->cfg->origin, rp->cfg->origin, diff);
    }
    struct gcr_replay **more = realloc(rp->variants, (rp->nvariants + 1) * sizeof *more);
    if (!more)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    rp->variants = more;
    rp->variants[rp->nvariants++] = variant;
    variant->driven_by = rp;
    rp->variants_observe_insns |= gcr_bus_wants(&variant->bus, GCR_EV_INSN);
    return 0;
}

void gcr_pass_forget(struct gcr_replay *rp)
{
    for (uint32_t v = 0; v < rp->nvariants; v++)
        rp->variants[v]->driven_by = NULL;
    free(rp->variants);
    rp->variants = NULL;
    rp->nvariants = 0;
    struct gcr_replay *d = rp->driven_by;
    if (!d)
        return;
    /* Destroyed first: the driver's pass goes on without it. */
    uint32_t k = 0;
    for (uint32_t v = 0; v < d->nvariants; v++)
        if (d->variants[v] != rp)
            d->variants[k++] = d->variants[v];
    d->nvariants = k;
    rp->driven_by = NULL;
}

void gcr_pass_take_counts(struct gcr_replay *variant, const struct gcr_replay *rp)
{
    /* The instructions, CTAs and non-memory runs are the front end's; where the
     * requests went (past the L1 or to the L2's atomic units) is the variant's own. */
    uint64_t bypass = variant->kernel_counts.bypass_requests;
    uint64_t atomic = variant->kernel_counts.atomic_requests;
    variant->kernel_counts = rp->kernel_counts;
    variant->kernel_counts.bypass_requests = bypass;
    variant->kernel_counts.atomic_requests = atomic;
}

bool gcr_execute_variants(struct gcr_replay *rp, uint32_t s, struct gcr_lane_shape *shape)
{
    struct gcr_warp_insn *in = &rp->insn;
    rp->kernel_counts.mem[in->space][in->op]++;
    /* Each memory system's observers see the instruction before its requests, at
     * the front end's step, as they would alone. */
    for (uint32_t v = 0; v <= rp->nvariants; v++) {
        struct gcr_replay *be = v ? rp->variants[v - 1] : rp;
        be->bus.step = rp->bus.step;
        if (gcr_bus_wants(&be->bus, GCR_EV_INSN))
            gcr_publish_insn(&be->bus, s, in, shape);
    }
    if (in->space != GCR_SPACE_GLOBAL && in->space != GCR_SPACE_LOCAL)
        return false; /* shared memory is on-chip; const/texture caches are not modelled */
    uint32_t n = gcr_coalesce_insn(rp, rp->cfg, in, shape);
    bool waits = gcr_send_requests(rp, rp->cfg, s, in, rp->reqs, n);
    for (uint32_t v = 0; v < rp->nvariants; v++)
        gcr_send_requests(rp->variants[v], rp->variants[v]->cfg, s, in, rp->reqs, n);
    return waits;
}
