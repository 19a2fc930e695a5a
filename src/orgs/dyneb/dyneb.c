/* DynEB (seed 000, §4.4): each SM chooses, by itself and again and again,
 * whether its requests use the L1s as private caches or as one shared L1.
 *
 * An SM alternates a sampling phase and an execution phase. While sampling,
 * requests to even sets of its L1 behave as private (they use its own L1 and
 * may replicate lines) and requests to odd sets as shared (they go to the
 * line's home L1, see src/orgs/shared/). Sampling ends when each half has seen
 * sample_accesses local accesses (requester = serving L1); the SM then picks
 * private if the private half's miss rate is below the threshold, else the
 * half with the higher effective bandwidth
 *     EB = L2_Replies / L1_MissRate + Home_Replies,
 * and runs in that mode for execution_accesses local accesses before sampling
 * again. A request in shared mode always goes to its home, whatever mode the
 * home SM is in; lines left over from private mode are not flushed (the seed's
 * lazy invalidation). Every decision is logged (bounded) for the report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orgs/common/shared_l1.h"

enum { MODE_PRIVATE = 0, MODE_SHARED = 1 }; /* also the sampling halves: even, odd sets */

/* Whose counters an access updates while sampling (the seed says "replies
 * received by the core" without saying whether fills a home receives for
 * other SMs count). */
enum eb_counting {
    COUNT_RECEIVER = 0, /* the serving L1's: every access it serves, every L2 reply it installs */
    COUNT_REQUESTER,    /* the requester's: only its own local accesses and their L2 replies */
    COUNT_KINDS
};
static const char *const counting_names[COUNT_KINDS] = {"receiver", "requester"};

/* One sampling half's counters. */
struct half {
    uint64_t local;        /* the SM's own requests served by its own L1 (phase length) */
    uint64_t accesses;     /* accesses counted for the miss rate */
    uint64_t misses;       /* of those, line or sector misses */
    uint64_t l2_replies;   /* replies from L2: fills and write acknowledgements */
    uint64_t home_replies; /* replies from remote homes to the SM's own requests */
};

struct core {
    bool sampling;
    uint8_t mode;        /* while executing */
    uint64_t exec_local; /* local accesses of the current execution phase */
    struct half half[2];
    uint64_t decisions[2], below_threshold;
    uint64_t requests[3]; /* its requests while sampling, executing private, executing shared */
};

struct decision {
    uint64_t step;
    int64_t kernel; /* -1 outside a kernel */
    uint32_t core;
    uint8_t mode;
    bool below_threshold;
    struct half half[2];
};

struct dyneb {
    struct gcr_shared_l1 sh;
    uint64_t sample_accesses, execution_accesses;
    double threshold;
    enum eb_counting counting;
    uint64_t log_cap;
    struct core *core;
    struct decision *log;
    uint64_t nlog, ndecisions;
};

static void dyneb_destroy(void *self)
{
    struct dyneb *d = self;
    if (!d)
        return;
    gcr_shared_l1_fini(&d->sh);
    free(d->core);
    free(d->log);
    free(d);
}

/* $.l1d.dyneb: the shared machinery's keys and the decision's. */
static int parse_options(struct dyneb *d, struct gcr_shared_opts *so, const char *origin,
                         const json_t *options, struct gcr_err *err)
{
    struct gcr_opts o;
    int counting = (int)d->counting;
    gcr_opts_begin(&o, origin, "$.l1d.dyneb", options);
    if (gcr_shared_opts_read(so, &o, err) != 0 ||
        gcr_opts_uint(&o, "sample_accesses", 1, UINT64_C(1) << 40, &d->sample_accesses, err) ||
        gcr_opts_uint(&o, "execution_accesses", 1, UINT64_C(1) << 40, &d->execution_accesses,
                      err) ||
        gcr_opts_real(&o, "private_miss_rate_threshold", 0.0, 1.0, &d->threshold, err) ||
        gcr_opts_enum(&o, "eb_counting", counting_names, COUNT_KINDS, &counting, err) ||
        gcr_opts_uint(&o, "decision_log", 0, 1000000, &d->log_cap, err) ||
        gcr_opts_done(&o, err))
        return -1;
    d->counting = (enum eb_counting)counting;
    return 0;
}

static int dyneb_create(void **self, const struct gcr_l1org_ctx *ctx, const json_t *options,
                        struct gcr_err *err)
{
    const struct gcr_config *cfg = ctx->config;
    if (cfg->l1.sets < 2)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.sets: the dyneb organisation needs at "
                        "least 2 L1 sets (even sets sample private mode, odd sets shared mode)",
                        cfg->origin);
    struct dyneb *d = calloc(1, sizeof *d);
    if (!d)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    /* The seed's values: R_S = 512, R_Ex = 16384, L1MR_Threshold = 10 %. */
    d->sample_accesses = 512;
    d->execution_accesses = 16384;
    d->threshold = 0.10;
    d->counting = COUNT_RECEIVER;
    d->log_cap = 4096;
    struct gcr_shared_opts so;
    gcr_shared_opts_default(&so);
    if (parse_options(d, &so, cfg->origin, options, err) != 0 ||
        gcr_shared_l1_init(&d->sh, ctx, "dyneb", &so, err) != 0) {
        free(d);
        return -1;
    }
    d->core = calloc(d->sh.n, sizeof *d->core);
    d->log = d->log_cap ? calloc(d->log_cap, sizeof *d->log) : NULL;
    if (!d->core || (d->log_cap && !d->log)) {
        dyneb_destroy(d);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < d->sh.n; i++)
        d->core[i].sampling = true; /* every SM starts by sampling */
    *self = d;
    return 0;
}

/* ------------------------------------------------------------ the decision */

static double miss_rate(const struct half *h)
{
    return h->accesses ? (double)h->misses / (double)h->accesses : 0.0;
}

/* EB = L2_Replies / L1_MissRate + Home_Replies (seed 000, Eq. 4.3); a half
 * that never missed has unbounded effective bandwidth. */
static double effective_bandwidth(const struct half *h)
{
    double mr = miss_rate(h);
    return mr > 0 ? (double)h->l2_replies / mr + (double)h->home_replies : INFINITY;
}

static void decide(struct dyneb *d, uint32_t r)
{
    struct core *c = &d->core[r];
    bool below = miss_rate(&c->half[MODE_PRIVATE]) < d->threshold;
    /* A tie keeps the private baseline: shared mode only pays off if it wins. */
    uint8_t mode = !below && effective_bandwidth(&c->half[MODE_SHARED]) >
                                 effective_bandwidth(&c->half[MODE_PRIVATE])
                       ? MODE_SHARED
                       : MODE_PRIVATE;
    if (d->nlog < d->log_cap) {
        const struct gcr_bus *bus = d->sh.ctx.bus;
        struct decision *e = &d->log[d->nlog++];
        *e = (struct decision){.step = bus->step, .core = r, .mode = mode,
                               .below_threshold = below,
                               .kernel = bus->kernel ? (int64_t)bus->kernel->id : -1};
        memcpy(e->half, c->half, sizeof e->half);
    }
    d->ndecisions++;
    c->decisions[mode]++;
    c->below_threshold += below;
    c->sampling = false;
    c->mode = mode;
    c->exec_local = 0;
}

static void count_access(struct half *h, const struct gcr_served *out)
{
    h->accesses++;
    h->misses += out->a.outcome != GCR_HIT;
    h->l2_replies += out->l2_replies;
}

static enum gcr_outcome dyneb_access(void *self, const struct gcr_req *req)
{
    struct dyneb *d = self;
    uint32_t r = req->sm;
    struct core *me = &d->core[r];
    /* While sampling the set decides (the LSB of the set index, set indexing
     * itself unchanged); while executing, the chosen mode. */
    int half = me->sampling ? (int)(gcr_cache_set_index(d->sh.l1[r], req->line_addr) & 1)
                            : (int)me->mode;
    uint32_t u = half == MODE_SHARED ? gcr_home_of(&d->sh.home, req->line_addr) : r;
    struct gcr_served out;
    gcr_shared_l1_serve(&d->sh, req, u, &out);
    bool local = u == r;
    me->requests[me->sampling ? 0 : 1 + me->mode]++;

    if (me->sampling) {
        if (local)
            me->half[half].local++;
        else
            me->half[half].home_replies++; /* a read reply or a write acknowledgement */
        if (local && d->counting == COUNT_REQUESTER)
            count_access(&me->half[half], &out);
    }
    if (d->counting == COUNT_RECEIVER && d->core[u].sampling) {
        /* Same geometry everywhere, so the home's set has the requester's parity. */
        int at_u = me->sampling ? half : (int)(gcr_cache_set_index(d->sh.l1[u],
                                                                   req->line_addr) & 1);
        count_access(&d->core[u].half[at_u], &out);
    }

    if (local) {
        if (me->sampling) {
            if (me->half[0].local >= d->sample_accesses &&
                me->half[1].local >= d->sample_accesses)
                decide(d, r);
        } else if (++me->exec_local >= d->execution_accesses) {
            me->sampling = true;
            memset(me->half, 0, sizeof me->half);
        }
    }
    return out.a.outcome;
}

/* ------------------------------------------------------------ the rest of the contract */

static int dyneb_kernel_begin(void *self, const struct gcr_cache_geometry *l1,
                              struct gcr_err *err)
{
    return gcr_shared_l1_kernel_begin(&((struct dyneb *)self)->sh, l1, err);
}

/* L1s are flushed at kernel boundaries whatever each SM's phase (seed 000
 * §4.4.1); phases and counters carry on into the next kernel. */
static void dyneb_kernel_end(void *self)
{
    gcr_shared_l1_kernel_end(&((struct dyneb *)self)->sh);
}

static uint32_t dyneb_instances(void *self)
{
    return ((struct dyneb *)self)->sh.n;
}

static void dyneb_collect_stats(void *self, struct gcr_cache_stats *per_sm)
{
    gcr_shared_l1_collect_stats(&((struct dyneb *)self)->sh, per_sm);
}

static json_t *real_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *half_json(const struct half *h)
{
    return json_pack("{s:I, s:I, s:I, s:o, s:I, s:I, s:o}", "local", (json_int_t)h->local,
                     "accesses", (json_int_t)h->accesses, "misses", (json_int_t)h->misses,
                     "miss_rate", real_or_null(miss_rate(h)), "l2_replies",
                     (json_int_t)h->l2_replies, "home_replies", (json_int_t)h->home_replies,
                     "eb", real_or_null(effective_bandwidth(h)));
}

static const char *mode_name(uint8_t mode)
{
    return mode == MODE_SHARED ? "shared" : "private";
}

static int dyneb_report(void *self, json_t *section, struct gcr_err *err)
{
    struct dyneb *d = self;
    uint32_t n = d->sh.n;
    if (gcr_shared_l1_report(&d->sh, section) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    json_object_set_new(section, "policy",
                        json_pack("{s:I, s:I, s:f, s:s, s:I}", "sample_accesses",
                                  (json_int_t)d->sample_accesses, "execution_accesses",
                                  (json_int_t)d->execution_accesses,
                                  "private_miss_rate_threshold", d->threshold, "eb_counting",
                                  counting_names[d->counting], "decision_log",
                                  (json_int_t)d->log_cap));

    uint64_t req[3] = {0}, dec[2] = {0}, below = 0;
    json_t *pc_priv = json_array(), *pc_shared = json_array(), *pc_below = json_array(),
           *pc_now = json_array(), *log = json_array();
    for (uint32_t i = 0; i < n; i++) {
        const struct core *c = &d->core[i];
        for (int k = 0; k < 3; k++)
            req[k] += c->requests[k];
        dec[0] += c->decisions[0];
        dec[1] += c->decisions[1];
        below += c->below_threshold;
        json_array_append_new(pc_priv, json_integer((json_int_t)c->decisions[MODE_PRIVATE]));
        json_array_append_new(pc_shared, json_integer((json_int_t)c->decisions[MODE_SHARED]));
        json_array_append_new(pc_below, json_integer((json_int_t)c->below_threshold));
        json_array_append_new(pc_now,
                              json_string(c->sampling ? "sampling" : mode_name(c->mode)));
    }
    for (uint64_t i = 0; i < d->nlog; i++) {
        const struct decision *e = &d->log[i];
        json_array_append_new(
            log, json_pack("{s:I, s:o, s:I, s:s, s:s, s:o, s:o}", "step", (json_int_t)e->step,
                           "kernel", e->kernel >= 0 ? json_integer(e->kernel) : json_null(),
                           "core", (json_int_t)e->core, "mode", mode_name(e->mode), "rule",
                           e->below_threshold ? "private_miss_rate_below_threshold"
                                              : "higher_eb",
                           "private", half_json(&e->half[MODE_PRIVATE]), "shared",
                           half_json(&e->half[MODE_SHARED])));
    }
    json_object_set_new(section, "requests",
                        json_pack("{s:I, s:I, s:I}", "sampling", (json_int_t)req[0],
                                  "private", (json_int_t)req[1], "shared", (json_int_t)req[2]));
    json_object_set_new(section, "decisions",
                        json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}", "total",
                                  (json_int_t)d->ndecisions, "private", (json_int_t)dec[0],
                                  "shared", (json_int_t)dec[1], "below_threshold",
                                  (json_int_t)below, "logged", (json_int_t)d->nlog, "log", log));
    json_object_set_new(section, "per_core",
                        json_pack("{s:o, s:o, s:o, s:o}", "decisions_private", pc_priv,
                                  "decisions_shared", pc_shared, "below_threshold", pc_below,
                                  "phase_at_end", pc_now));

    json_t *summary = json_object();
    gcr_shared_l1_summary(&d->sh, summary);
    json_object_set_new(summary, "decisions", json_integer((json_int_t)d->ndecisions));
    json_object_set_new(summary, "chose_shared", json_integer((json_int_t)dec[1]));
    json_object_set_new(summary, "chose_private", json_integer((json_int_t)dec[0]));
    json_object_set_new(summary, "below_threshold", json_integer((json_int_t)below));
    uint64_t all = req[0] + req[1] + req[2];
    json_object_set_new(summary, "sampling_share",
                        all ? json_real((double)req[0] / (double)all) : json_null());
    json_object_set_new(section, "summary", summary);
    return 0;
}

const struct gcr_l1org_ops gcr_l1org_dyneb = {
    .name = "dyneb",
    .summary = "per-SM choice between private and shared L1 by set sampling and effective "
               "bandwidth (DynEB)",
    .whole_line_evictions = true,
    .create = dyneb_create,
    .access = dyneb_access,
    .kernel_begin = dyneb_kernel_begin,
    .kernel_end = dyneb_kernel_end,
    .num_instances = dyneb_instances,
    .collect_stats = dyneb_collect_stats,
    .report = dyneb_report,
    .destroy = dyneb_destroy,
};
