/* Private L1s: one cache per SM, the baseline GPU organisation. */
#include <stdlib.h>

#include "replay/l1org.h"

struct private_l1 {
    struct gcr_l1org_ctx ctx;
    struct gcr_l1_bank bank; /* one L1 per SM */
};

static void private_destroy(void *self)
{
    struct private_l1 *p = self;
    if (!p)
        return;
    gcr_l1_bank_fini(&p->bank);
    free(p);
}

static int private_create(void **self, const struct gcr_l1org_ctx *ctx, const json_t *options,
                          struct gcr_err *err)
{
    if (options && json_object_size(options) > 0) {
        const char *key = json_object_iter_key(json_object_iter((json_t *)options));
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.private.%s: unknown key (the private "
                        "organisation has no options)", ctx->config->origin, key);
    }
    struct private_l1 *p = calloc(1, sizeof *p);
    if (!p)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    p->ctx = *ctx;
    if (gcr_l1_bank_init(&p->bank, ctx->config->num_sms, &ctx->config->l1, err) != 0) {
        private_destroy(p);
        return -1;
    }
    *self = p;
    return 0;
}

static enum gcr_outcome private_access(void *self, const struct gcr_req *req)
{
    struct private_l1 *p = self;
    struct gcr_access a;
    gcr_l1org_serve(p->bank.l1[req->sm], req->sm, req->sm, req, p->ctx.mem, p->ctx.bus, &a);
    return a.outcome;
}

static void private_prefetch(void *self, uint32_t sm, uint64_t line_addr,
                             struct gcr_cache_hint *h)
{
    gcr_cache_prefetch(((struct private_l1 *)self)->bank.l1[sm], line_addr, h);
}

/* A new size for every L1 (unified L1/shared carve-out). The L1s are empty at
 * a kernel boundary when invalidation is on; otherwise resizing still starts
 * them empty, like the hardware reconfiguring its L1. Counts carry over. */
static int private_kernel_begin(void *self, const struct gcr_cache_geometry *l1,
                                struct gcr_err *err)
{
    struct private_l1 *p = self;
    return gcr_l1_bank_resize(&p->bank, l1, p->ctx.mem, p->ctx.bus, err) < 0 ? -1 : 0;
}

static void private_kernel_end(void *self)
{
    struct private_l1 *p = self;
    if (p->ctx.config->l1_invalidate_at_kernel_end)
        gcr_l1_bank_invalidate(&p->bank, p->ctx.mem, p->ctx.bus);
}

static uint32_t private_instances(void *self)
{
    return ((struct private_l1 *)self)->bank.n;
}

/* Each SM has its own L1, so the requester's view is that cache's counters. */
static void private_collect_stats(void *self, struct gcr_cache_stats *per_sm)
{
    struct private_l1 *p = self;
    for (uint32_t i = 0; i < p->bank.n; i++)
        gcr_l1_bank_stats(&p->bank, i, &per_sm[i]);
}

const struct gcr_l1org_ops gcr_l1org_private = {
    .name = "private",
    .summary = "one L1 per SM (the baseline GPU)",
    .whole_line_evictions = true,
    .create = private_create,
    .access = private_access,
    .prefetch = private_prefetch,
    .kernel_begin = private_kernel_begin,
    .kernel_end = private_kernel_end,
    .num_instances = private_instances,
    .collect_stats = private_collect_stats,
    .report = NULL,
    .destroy = private_destroy,
};
