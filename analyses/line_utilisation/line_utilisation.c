/* How much of each line leaving an L1 was used (README.md in this folder).
 *
 * Every figure comes from the L1_EVICT event alone (victim_valid, victim_used),
 * so the analysis keeps no per-line state: memory is constant. */
#include <stdlib.h>
#include <string.h>

#include "gcreplay/analysis.h"
#include "gcreplay/options.h"

enum { BUCKETS = 5 };   /* 0 %, (0,25], (25,50], (50,75], (75,100] */
enum { REASONS = 3 };   /* replaced, invalidated by a write, invalidated at a kernel's end */

static const char *const bucket_names[BUCKETS] = {"0", "0-25", "25-50", "50-75", "75-100"};
static const char *const reason_names[REASONS] = {"replaced", "write_invalidated",
                                                  "kernel_end_invalidated"};

struct period {
    uint64_t lines[REASONS][BUCKETS];
    uint64_t sectors_valid, sectors_used, sectors_unused; /* unused: valid and never used */
};

struct line_utilisation {
    uint32_t sectors_per_line;
    uint32_t sector_bytes;
    uint32_t full_mask;
    bool kernel_ended; /* between KERNEL_END and the next KERNEL_BEGIN */
    struct period kernel, total;
};

/* Bucket of used/n: 0 only when nothing was used, else the smallest k with
 * used/n <= k/4, computed exactly in integers. */
static unsigned bucket_of(uint32_t used, uint32_t n)
{
    if (used == 0)
        return 0;
    unsigned k = 1;
    while ((uint64_t)used * 4 > (uint64_t)k * n)
        k++;
    return k;
}

static void on_event(void *self, const struct gcr_event *ev)
{
    struct line_utilisation *u = self;
    if (ev->kind == GCR_EV_KERNEL_BEGIN) {
        u->kernel_ended = false;
        return;
    }
    if (ev->kind == GCR_EV_KERNEL_END) {
        u->kernel_ended = true;
        return;
    }
    const struct gcr_access *a = ev->access;
    uint32_t valid = a->victim_valid & u->full_mask;
    uint32_t used = a->victim_used & u->full_mask;
    unsigned reason = a->evicted ? 0u : u->kernel_ended ? 2u : 1u;
    unsigned b = bucket_of((uint32_t)__builtin_popcount(used), u->sectors_per_line);
    uint32_t nvalid = (uint32_t)__builtin_popcount(valid);
    uint32_t nused = (uint32_t)__builtin_popcount(valid & used);
    struct period *ps[2] = {&u->kernel, &u->total};
    for (int k = 0; k < 2; k++) {
        ps[k]->lines[reason][b]++;
        ps[k]->sectors_valid += nvalid;
        ps[k]->sectors_used += nused;
        ps[k]->sectors_unused += nvalid - nused;
    }
}

static json_t *ratio(uint64_t num, uint64_t den)
{
    return den ? json_real((double)num / (double)den) : json_null();
}

static int report_period(const struct line_utilisation *u, const struct period *p, json_t *s,
                         struct gcr_err *err)
{
    json_t *hist = json_object(), *frac = json_object(), *by_reason = json_object();
    uint64_t all = 0, per_bucket[BUCKETS] = {0};
    int rc = !hist || !frac || !by_reason;
    for (unsigned r = 0; r < REASONS; r++) {
        json_t *h = json_object();
        rc |= !h;
        for (unsigned b = 0; b < BUCKETS; b++) {
            per_bucket[b] += p->lines[r][b];
            all += p->lines[r][b];
            rc |= json_object_set_new(h, bucket_names[b], json_integer((json_int_t)p->lines[r][b]));
        }
        rc |= json_object_set_new(by_reason, reason_names[r], h);
    }
    for (unsigned b = 0; b < BUCKETS; b++) {
        rc |= json_object_set_new(hist, bucket_names[b], json_integer((json_int_t)per_bucket[b]));
        rc |= json_object_set_new(frac, bucket_names[b], ratio(per_bucket[b], all));
    }
    rc |= json_object_set_new(s, "lines", json_integer((json_int_t)all));
    rc |= json_object_set_new(s, "sectors_per_line", json_integer(u->sectors_per_line));
    rc |= json_object_set_new(s, "histogram", hist);
    rc |= json_object_set_new(s, "histogram_fraction", frac);
    rc |= json_object_set_new(s, "histogram_by_reason", by_reason);
    rc |= json_object_set_new(s, "bytes_valid",
                              json_integer((json_int_t)(p->sectors_valid * u->sector_bytes)));
    rc |= json_object_set_new(s, "bytes_used",
                              json_integer((json_int_t)(p->sectors_used * u->sector_bytes)));
    rc |= json_object_set_new(s, "bytes_unused",
                              json_integer((json_int_t)(p->sectors_unused * u->sector_bytes)));
    rc |= json_object_set_new(s, "unused_fraction", ratio(p->sectors_unused, p->sectors_valid));
    if (rc)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

static int report_kernel(void *self, json_t *section, struct gcr_err *err)
{
    struct line_utilisation *u = self;
    int rc = report_period(u, &u->kernel, section, err);
    memset(&u->kernel, 0, sizeof u->kernel);
    return rc;
}

static int report_total(void *self, json_t *section, struct gcr_err *err)
{
    struct line_utilisation *u = self;
    return report_period(u, &u->total, section, err);
}

static void destroy(void *self)
{
    free(self);
}

static int create(void **self, const json_t *options, const struct gcr_sim_info *info,
                  struct gcr_err *err)
{
    struct gcr_opts o;
    gcr_opts_begin(&o, info->config->origin, "$.analyses.line_utilisation", options);
    if (gcr_opts_done(&o, err) != 0) /* no options */
        return -1;
    struct line_utilisation *u = calloc(1, sizeof *u);
    if (!u)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    u->sector_bytes = info->sector_bytes;
    u->sectors_per_line = info->line_bytes / info->sector_bytes;
    u->full_mask = u->sectors_per_line >= 32 ? UINT32_MAX : (1u << u->sectors_per_line) - 1u;
    *self = u;
    return 0;
}

/* The run's table: the share of the bytes brought into L1s that nobody read. */
static const char *const headline_labels[] = {"unused%", NULL};

static void headline(const json_t *section, char text[][GCR_HEADLINE_TEXT])
{
    const json_t *f = json_object_get(section, "unused_fraction");
    snprintf(text[0], GCR_HEADLINE_TEXT, json_is_number(f) ? "%.1f" : "-",
             100.0 * json_number_value(f));
}

const struct gcr_analysis_ops gcr_analysis_line_utilisation = {
    .name = "line_utilisation",
    .summary = "fraction of each evicted L1 line's sectors that were used; bytes never used",
    .subscribe = GCR_EV_KERNEL_BEGIN | GCR_EV_KERNEL_END | GCR_EV_L1_EVICT,
    .create = create,
    .on_event = on_event,
    .report_kernel = report_kernel,
    .report_total = report_total,
    .destroy = destroy,
    .headline_labels = headline_labels,
    .headline = headline,
};
