/* Shared L1 (seed 000, Ch. 4): every line has one home L1, chosen by address
 * bits; an SM reads and writes a line it is not the home of at the home's L1
 * (a remote access) and does not keep what comes back, so a line is cached
 * in at most one L1. The machinery lives in shared_l1.c. */
#include <stdlib.h>

#include "orgs/common/shared_l1.h"

static void shared_destroy(void *self)
{
    if (!self)
        return;
    gcr_shared_l1_fini(self);
    free(self);
}

static int shared_create(void **self, const struct gcr_l1org_ctx *ctx, const json_t *options,
                         struct gcr_err *err)
{
    struct gcr_shared_opts so;
    struct gcr_opts o;
    gcr_shared_opts_default(&so);
    gcr_opts_begin(&o, ctx->config->origin, "$.l1d.shared", options);
    if (gcr_shared_opts_read(&so, &o, err) != 0 || gcr_opts_done(&o, err) != 0)
        return -1;
    struct gcr_shared_l1 *s = malloc(sizeof *s);
    if (!s)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (gcr_shared_l1_init(s, ctx, "shared", &so, err) != 0) {
        free(s);
        return -1;
    }
    *self = s;
    return 0;
}

static enum gcr_outcome shared_access(void *self, const struct gcr_req *req)
{
    struct gcr_shared_l1 *s = self;
    struct gcr_served out;
    gcr_shared_l1_serve(s, req, gcr_home_of(&s->home, req->line_addr), &out);
    return out.a.outcome;
}

/* The line's home L1 is the one the access will read. */
static void shared_prefetch(void *self, uint32_t sm, uint64_t line_addr,
                            struct gcr_cache_hint *h)
{
    (void)sm;
    struct gcr_shared_l1 *s = self;
    gcr_cache_prefetch(s->l1[gcr_home_of(&s->home, line_addr)], line_addr, h);
}

static int shared_kernel_begin(void *self, const struct gcr_cache_geometry *l1,
                               struct gcr_err *err)
{
    return gcr_shared_l1_kernel_begin(self, l1, err);
}

static void shared_kernel_end(void *self)
{
    gcr_shared_l1_kernel_end(self);
}

static uint32_t shared_instances(void *self)
{
    return ((struct gcr_shared_l1 *)self)->n;
}

static void shared_collect_stats(void *self, struct gcr_cache_stats *per_sm)
{
    gcr_shared_l1_collect_stats(self, per_sm);
}

static int shared_report(void *self, json_t *section, struct gcr_err *err)
{
    json_t *summary = json_object();
    if (!summary || gcr_shared_l1_report(self, section) != 0) {
        json_decref(summary);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    gcr_shared_l1_summary(self, summary);
    json_object_set_new(section, "summary", summary);
    return 0;
}

const struct gcr_l1org_ops gcr_l1org_shared = {
    .name = "shared",
    .summary = "one home L1 per line chosen by address bits; remote accesses are not cached",
    .whole_line_evictions = true,
    .create = shared_create,
    .access = shared_access,
    .prefetch = shared_prefetch,
    .kernel_begin = shared_kernel_begin,
    .kernel_end = shared_kernel_end,
    .num_instances = shared_instances,
    .collect_stats = shared_collect_stats,
    .report = shared_report,
    .destroy = shared_destroy,
};
