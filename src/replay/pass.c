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
 * The memory systems, the driving replay's included, get the pass's memory
 * instructions in batches (struct gcr_pass_batch), one memory system after the other,
 * with their L1 and L2 state prefetched a few instructions ahead, rather than each
 * request in turn: handed every request at once, the memory systems' state (a few MB
 * each) took turns in the host's caches and the pass ran slower than the variants one
 * by one. So no memory system answers the front end at once: the schedulers of a
 * shared pass never ask (gcr_replay_pass_key).
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

/* Memory instructions of the pass that the memory systems have not seen yet: each with
 * its SM, the step it issued at, its lane shape and its coalesced requests (in reqs,
 * from first_req on). The instruction is copied as the coalescer left it. 256 of them
 * ran faster than 64 or 1024 (4 variants, the bench's typical trace). */
enum { PASS_BATCH = 256, PREFETCH_AHEAD = 4, PREFETCH_RING = 2 * PREFETCH_AHEAD };
struct pass_item {
    struct gcr_warp_insn insn;
    struct gcr_lane_shape shape;
    uint64_t step;
    uint32_t sm, nreqs;
    size_t first_req;
};
struct gcr_pass_batch {
    struct pass_item items[PASS_BATCH];
    size_t n;
    struct gcr_line_req *reqs; /* PASS_BATCH * GCR_COALESCE_MAX: room for the worst case */
    size_t nreqs;
};

static struct gcr_pass_batch *batch_new(void)
{
    struct gcr_pass_batch *b = calloc(1, sizeof *b);
    if (b && !(b->reqs = malloc((size_t)PASS_BATCH * GCR_COALESCE_MAX * sizeof *b->reqs))) {
        free(b);
        b = NULL;
    }
    return b;
}

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
     * order follows the variant's own L1. Without a stall a miss changes nothing (the
     * warp is ready again in the slot it issued in), so a shared pass, whose memory
     * systems answer later in a batch, tells it of none. */
    if (cfg->warp_policy == GCR_WARP_GTO && cfg->gto_miss_stall)
        return "scheduling.warp_policy \"gto\" with a miss stall: the issue order follows "
               "the variant's own L1 misses";
    int n = snprintf(key, cap,
                     /* CTA placement: how many fit on an SM (cta.c, ctas_per_sm), over
                      * which SMs, in which order, split by chip (chip_cta_ranges). */
                     "sms=%u max_ctas_per_sm=%u max_warps_per_sm=%u shared_mem_per_sm=%u "
                     "registers_per_sm=%u cta_policy=%s sm_order=%s chips=%u "
                     /* Which warp of an SM issues (sched.h). */
                     "warp_policy=%s "
                     /* The coalescer: the units requests are made of (execute.h). */
                     "line_bytes=%u sector_bytes=%u granularity=%s "
                     /* Stores take the per-lane coalescing path for the L2's byte
                      * masks, which read every lane's address. */
                     "l2_byte_masks=%d",
                     cfg->num_sms, cfg->max_ctas_per_sm, cfg->max_warps_per_sm,
                     cfg->shared_mem_per_sm, cfg->registers_per_sm,
                     gcr_cta_policy_name(cfg->cta_policy), gcr_sm_order_name(cfg->sm_order),
                     cfg->chips.count,
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
    if (!rp->batch && !(rp->batch = batch_new()))
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
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
    if (rp->batch)
        free(rp->batch->reqs);
    free(rp->batch);
    rp->batch = NULL;
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

void gcr_pass_flush(struct gcr_replay *rp)
{
    struct gcr_pass_batch *b = rp->batch;
    if (!b || !b->n)
        return;
    const uint64_t now = rp->bus.step; /* the front end's, which the loop below moves */
    for (uint32_t v = 0; v <= rp->nvariants; v++) {
        struct gcr_replay *be = v ? rp->variants[v - 1] : rp;
        const struct gcr_config *cfg = be->cfg;
        const uint64_t line_mask = ~(uint64_t)(cfg->line_bytes - 1);
        struct gcr_cache_hint l1[PREFETCH_RING] = {{0}}, l2[PREFETCH_RING] = {{0}};
        /* Each memory system's observers see an instruction before its requests, at
         * the front end's step, as they would alone. */
        for (size_t i = 0; i < b->n; i++) {
            /* The batch says what comes: the L1 and L2 state of the instruction
             * 2 * PREFETCH_AHEAD on is fetched into the host's caches, and what it
             * names PREFETCH_AHEAD on (host_prefetch.c does so for one memory system
             * as the SMs issue). Only the host's caches change. */
            size_t k = i + 2 * PREFETCH_AHEAD;
            if (k < b->n) {
                const struct pass_item *ahead = &b->items[k];
                struct gcr_cache_hint *h1 = &l1[k % PREFETCH_RING], *h2 = &l2[k % PREFETCH_RING];
                h1->cache = h2->cache = NULL;
                if (ahead->nreqs) {
                    uint64_t line = b->reqs[ahead->first_req].line_addr & line_mask;
                    if (be->org->prefetch)
                        be->org->prefetch(be->org_self, ahead->sm, line, h1);
                    gcr_memsys_prefetch(&be->mem, line, h2);
                }
            }
            k = i + PREFETCH_AHEAD;
            if (k < b->n && l1[k % PREFETCH_RING].cache)
                gcr_cache_prefetch_follow(&l1[k % PREFETCH_RING]);
            if (k < b->n && l2[k % PREFETCH_RING].cache)
                gcr_cache_prefetch_follow(&l2[k % PREFETCH_RING]);
            struct pass_item *it = &b->items[i];
            be->bus.step = it->step;
            if (gcr_bus_wants(&be->bus, GCR_EV_INSN))
                gcr_publish_insn(&be->bus, it->sm, &it->insn, &it->shape);
            gcr_send_requests(be, cfg, it->sm, &it->insn, b->reqs + it->first_req, it->nreqs);
        }
    }
    rp->bus.step = now;
    b->n = b->nreqs = 0;
}

bool gcr_execute_variants(struct gcr_replay *rp, uint32_t s, struct gcr_lane_shape *shape)
{
    struct gcr_warp_insn *in = &rp->insn;
    rp->kernel_counts.mem[in->space][in->op]++;
    uint32_t n = 0;
    if (in->space == GCR_SPACE_GLOBAL || in->space == GCR_SPACE_LOCAL)
        n = gcr_coalesce_insn(rp, rp->cfg, in, shape);
    struct gcr_pass_batch *b = rp->batch;
    struct pass_item *it = &b->items[b->n++];
    it->insn = *in;
    it->shape = *shape;
    it->step = rp->bus.step;
    it->sm = s;
    it->nreqs = n;
    it->first_req = b->nreqs;
    memcpy(b->reqs + b->nreqs, rp->reqs, n * sizeof *rp->reqs);
    b->nreqs += n;
    if (b->n == PASS_BATCH)
        gcr_pass_flush(rp);
    /* The memory systems answer later, in the batch: what the warp would wait on is
     * asked by no scheduler of a shared pass (gcr_replay_pass_key). */
    return false;
}
