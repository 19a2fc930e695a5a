/* Replication across L1 instances (README.md in this folder defines every figure).
 *
 * The analysis keeps, for every line, the set of L1 instances holding it,
 * built only from L1_ACCESS (access->allocated) and L1_EVICT events, so it
 * works with any L1 organisation. Per-line state is a 16-byte record in a
 * column of the replay's shared line ids (gcreplay/idmap.h): the event
 * brings the id, and a line first seen just now finds its record next to
 * those of the lines seen just before it. A record holds the line's holders
 * (../common/holders.h: up to four in the record itself), and two indices:
 *  - while the line is held, its slot in the array of live lines, where its
 *    time integrals are (running sums, see struct live): an array as large
 *    as the L1s' contents, so it stays in the host's caches;
 *  - once it has left every L1 during the current kernel, its entry in the
 *    kernel's array of stays, where every later stay of the line this
 *    kernel adds its integrals, so that copies_per_line can average each
 *    line over all its stays: no log of stays to sort or merge by line.
 *    Stays are numbered across kernels, so an entry of an earlier kernel is
 *    recognised as such without clearing the records that name it. */
#include <stdlib.h>
#include <string.h>

#include "../common/holders.h"
#include "core/bits.h"
#include "core/chunks.h"
#include "core/table_memory.h"
#include "gcreplay/analysis.h"
#include "gcreplay/options.h"

/* A line's record. */
struct line_rec {
    uint64_t holders; /* the L1s holding it (../common/holders.h) */
    uint32_t live_p1; /* slot + 1 in the live array while copies >= 1, else 0 */
    uint32_t stay_p1; /* number + 1 of its last stay entry (this kernel's if >= stays_base) */
};

/* The time integrals of a held line this kernel, kept as running sums that
 * need no update while its copies stay constant: with `now` the current
 * step, the area so far this kernel is acc + copies * now and the steps
 * held are now - start. A change of copies by d at step t subtracts d * t
 * from acc, which keeps acc + copies * t (the area up to t) unchanged, so the
 * area adds copies * dt over each interval exactly as summing copies *
 * (t' - t) at every change would: the same integers. The clock (`now`)
 * stands still between kernels, so changes there add nothing; a kernel's
 * start sets acc = -copies * start and start to its step (area and held 0
 * there), as the report at its end does for lines kept. Arithmetic is modulo
 * 2^64 (acc may wrap below 0); the areas it gives are the true ones, which
 * fit 64 bits. A free slot has id_p1 0 and, in acc, the next free slot + 1. */
struct live {
    uint32_t id_p1;   /* the line's id + 1; 0 = free slot */
    uint32_t copies;
    uint64_t acc;     /* area this kernel = acc + copies * now (mod 2^64) */
    uint64_t start;   /* step the line's stay began, or the kernel's start if later */
};

/* A line's stays this kernel, summed: area (copies x steps) and steps held. */
struct stay {
    uint64_t area, held;
};

/* Sum of per-line averages a(x) = area / held, each rounded to a double once,
 * kept exactly as an integer count of 2^-52: a(x) >= 1 (a held line has at
 * least one copy), so its ulp is at least 2^-52 and a(x) * 2^52 is an integer,
 * below 2^84 since a(x) <= num_l1s < 2^32. The sum is therefore exact and
 * independent of the order in which lines are added (the order of a hash
 * table's slots must not leak into the figures); it is rounded once when
 * reported. 2^128 leaves room for 2^44 lines. */
__extension__ typedef unsigned __int128 exact_sum;
#define EXACT_SCALE 4503599627370496.0 /* 2^52 */

static void exact_add(exact_sum *sum, double avg)
{
    /* avg >= 1 is finite and normal: avg = (2^52 + fraction) * 2^(e - 52) with
     * e >= 0 its unbiased exponent, so avg * 2^52 = (2^52 + fraction) << e. */
    uint64_t bits;
    memcpy(&bits, &avg, sizeof bits);
    unsigned e = (unsigned)((bits >> 52) & 0x7ff) - 1023u;
    uint64_t mant = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    *sum += (exact_sum)mant << e;
}

static double exact_value(exact_sum sum)
{
    return (double)sum / EXACT_SCALE; /* one rounding; dividing by 2^52 is exact */
}

/* Counters of one period (a kernel or the whole run). */
struct period {
    uint64_t misses[2];            /* [0] reads, [1] writes */
    uint64_t replicated_misses[2]; /* of which the line was resident in another L1 */
    uint64_t steps;                /* clock span integrated */
    uint64_t area_copies;          /* sum over steps of all resident line copies */
    uint64_t area_lines;           /* sum over steps of distinct resident lines */
    uint64_t area_replicated;      /* sum over steps of copies of lines with >= 2 copies */
    uint32_t max_copies;
    uint64_t lines_held;           /* lines resident for >= 1 step (per-line average) */
    exact_sum line_avg_sum;        /* sum over those lines of their time-averaged copies */
};


struct replication {
    uint32_t num_l1s;
    bool skip_hits;          /* gcr_sim_info.l1_whole_line_evictions */
    struct gcr_idmap *lines; /* the shared line ids */
    struct gcr_column *recs; /* line id -> struct line_rec */

    struct live *live;  /* held lines, at their line_rec's live_p1 - 1 */
    size_t live_cap, live_top; /* slots allocated; first never used */
    uint32_t live_free_p1;     /* first free slot + 1 (a list through acc) */

    struct gcr_holders_pool pool; /* holder sets of lines held by many L1s */

    struct gcr_chunks stays; /* this kernel's lines that left every L1, one entry each */
    uint32_t stays_base;     /* the number of this kernel's first entry */

    /* Live totals, integrated lazily over the clock. */
    uint64_t now;              /* step up to which the areas are integrated */
    uint64_t resident_copies;  /* sum over lines of copies */
    uint64_t resident_lines;   /* lines with copies >= 1 */
    uint64_t replicated_copies; /* sum of copies over lines with copies >= 2 */
    bool in_kernel;
    bool oom;                  /* a line could not be recorded */

    struct period kernel, total;
};

/* ---- live lines and stays ---- */

/* A slot for a line starting to be held (its stay starting now); NULL if out
 * of memory. */
static struct live *live_take(struct replication *r, struct line_rec *e, uint32_t id)
{
    size_t i;
    if (r->live_free_p1) {
        i = r->live_free_p1 - 1;
        r->live_free_p1 = (uint32_t)r->live[i].acc;
    } else {
        if (r->live_top == r->live_cap) {
            size_t cap = r->live_cap ? 2 * r->live_cap : 4096;
            if (cap > UINT32_MAX - 1)
                return NULL;
            struct live *bigger =
                gcr_table_realloc(r->live, r->live_cap * sizeof *bigger, cap * sizeof *bigger);
            if (!bigger)
                return NULL;
            r->live = bigger;
            r->live_cap = cap;
        }
        i = r->live_top++;
    }
    r->live[i] = (struct live){.id_p1 = id + 1, .start = r->now};
    e->live_p1 = (uint32_t)i + 1;
    return &r->live[i];
}

static void live_put(struct replication *r, struct line_rec *e)
{
    size_t i = e->live_p1 - 1;
    r->live[i].id_p1 = 0;
    r->live[i].acc = r->live_free_p1;
    r->live_free_p1 = (uint32_t)i + 1;
    e->live_p1 = 0;
}

/* Adds a stay (area, held this kernel) to the line's entry in the kernel's
 * stays, made at its first stay. */
static void stay_add(struct replication *r, struct line_rec *e, uint64_t area, uint64_t held)
{
    if (e->stay_p1 > r->stays_base) {
        struct stay *st = gcr_chunks_at(&r->stays, e->stay_p1 - 1 - r->stays_base);
        st->area += area;
        st->held += held;
        return;
    }
    struct stay *st = r->stays.count < UINT32_MAX - 1 - r->stays_base ? gcr_chunks_push(&r->stays)
                                                                        : NULL;
    if (!st) {
        r->oom = true;
        return;
    }
    *st = (struct stay){area, held};
    e->stay_p1 = r->stays_base + (uint32_t)r->stays.count;
}

/* Adds the time from the last event to step to every area. */
static void advance(struct replication *r, uint64_t step)
{
    if (!r->in_kernel || step <= r->now)
        return;
    uint64_t dt = step - r->now;
    struct period *ps[2] = {&r->kernel, &r->total};
    for (int k = 0; k < 2; k++) {
        ps[k]->steps += dt;
        ps[k]->area_copies += r->resident_copies * dt;
        ps[k]->area_lines += r->resident_lines * dt;
        ps[k]->area_replicated += r->replicated_copies * dt;
    }
    r->now = step;
}

/* Moves a held line from `before` to `after` copies (one more or one fewer)
 * at step now: keeps acc + copies * now, the area so far, unchanged (see
 * struct live), and the live totals. */
static void line_change(struct replication *r, struct live *l, uint32_t before, uint32_t after)
{
    if (after > before)
        l->acc -= r->now;
    else
        l->acc += r->now;
    l->copies = after;
    r->resident_copies = r->resident_copies + after - before;
    r->resident_lines = r->resident_lines + (after >= 1) - (before >= 1);
    r->replicated_copies = r->replicated_copies + (after >= 2 ? after : 0) -
                           (before >= 2 ? before : 0);
    if (after > r->kernel.max_copies)
        r->kernel.max_copies = after;
    if (after > r->total.max_copies)
        r->total.max_copies = after;
}

/* unit stops holding the line (it did). A line that leaves its last L1 adds
 * its stay (area and steps held this kernel), if it lasted any time. */
static void line_leave(struct replication *r, struct line_rec *e, uint32_t unit)
{
    struct live *l = &r->live[e->live_p1 - 1];
    uint32_t copies = l->copies;
    gcr_holders_remove(&r->pool, &e->holders, unit);
    line_change(r, l, copies, copies - 1);
    if (copies > 1)
        return;
    uint64_t held = r->now - l->start;
    if (held)
        stay_add(r, e, l->acc, held); /* no copies left: the area is acc */
    live_put(r, e);
}

static void on_access(struct replication *r, const struct gcr_event *ev)
{
    const struct gcr_access *a = ev->access;
    uint32_t unit = ev->unit;
    if (unit >= r->num_l1s)
        return;
    /* A hit finds the line where the events installed it (the organisation
     * says so): it is no miss and installs nothing, so the record is left
     * alone. */
    if (a->outcome == GCR_HIT && r->skip_hits)
        return;
    if (ev->line_id == GCR_IDMAP_NONE) {
        r->oom = true;
        return;
    }
    struct line_rec *e = gcr_column_at(r->recs, ev->line_id);
    bool here = e->live_p1 && gcr_holders_has(&r->pool, e->holders, unit);
    if (a->outcome != GCR_HIT) {
        /* Held elsewhere: copies other than a (stale or sector-missing) copy in this L1. */
        uint32_t others = e->live_p1 ? r->live[e->live_p1 - 1].copies - (here ? 1u : 0u) : 0u;
        int w = ev->is_write ? 1 : 0;
        r->kernel.misses[w]++;
        r->total.misses[w]++;
        if (others) {
            r->kernel.replicated_misses[w]++;
            r->total.replicated_misses[w]++;
        }
    }
    /* A line miss means this L1 does not hold the line, whatever we believed
     * (an organisation may drop lines without events, e.g. when resized). */
    if (a->outcome == GCR_MISS_LINE && here) {
        line_leave(r, e, unit);
        here = false;
    }
    bool installs = a->allocated || a->outcome != GCR_MISS_LINE;
    if (installs && !here) {
        struct live *l = e->live_p1 ? &r->live[e->live_p1 - 1] : live_take(r, e, ev->line_id);
        if (!l || gcr_holders_add(&r->pool, &e->holders, unit) != 0) {
            r->oom = true;
            return;
        }
        line_change(r, l, l->copies, l->copies + 1);
    }
}

static void on_evict(struct replication *r, const struct gcr_event *ev)
{
    uint32_t unit = ev->unit;
    if (unit >= r->num_l1s || ev->line_id == GCR_IDMAP_NONE)
        return;
    struct line_rec *e = gcr_column_at(r->recs, ev->line_id);
    if (e->live_p1 && gcr_holders_has(&r->pool, e->holders, unit))
        line_leave(r, e, unit);
}

static void on_event(void *self, const struct gcr_event *ev)
{
    struct replication *r = self;
    switch (ev->kind) {
    case GCR_EV_KERNEL_BEGIN:
        /* Lines kept from the previous kernel start their stays now: area
         * and held 0 at this step. */
        r->in_kernel = true;
        r->now = ev->step;
        memset(&r->kernel, 0, sizeof r->kernel);
        for (size_t i = 0; i < r->live_top; i++) {
            struct live *l = &r->live[i];
            if (!l->id_p1)
                continue;
            l->start = ev->step;
            l->acc = 0 - (uint64_t)l->copies * ev->step;
            if (l->copies > r->kernel.max_copies)
                r->kernel.max_copies = l->copies;
        }
        break;
    case GCR_EV_KERNEL_END:
        advance(r, ev->step);
        /* Kernel-boundary invalidations come at the same step: no time passes. */
        break;
    case GCR_EV_L1_ACCESS:
        advance(r, ev->step);
        on_access(r, ev);
        break;
    case GCR_EV_L1_EVICT:
        advance(r, ev->step);
        on_evict(r, ev);
        break;
    default:
        break;
    }
}

/* The bus fetches the line's record before stage 0; stage 1, once it is
 * cached, fetches the live slot it names. */
static void prefetch(void *self, const struct gcr_event *ev, int stage)
{
    struct replication *r = self;
    (void)stage; /* stage 1 of L1 accesses and evictions only */
    if (ev->line_id == GCR_IDMAP_NONE ||
        (ev->kind == GCR_EV_L1_ACCESS && ev->access->outcome == GCR_HIT && r->skip_hits))
        return;
    const struct line_rec *e = gcr_column_at(r->recs, ev->line_id);
    if (e->live_p1)
        __builtin_prefetch(&r->live[e->live_p1 - 1], 1);
}

static json_t *ratio(uint64_t num, uint64_t den)
{
    return den ? json_real((double)num / (double)den) : json_null();
}

static json_t *split(uint64_t reads, uint64_t writes)
{
    return json_pack("{s:I, s:I, s:I}", "reads", (json_int_t)reads, "writes",
                     (json_int_t)writes, "all", (json_int_t)(reads + writes));
}

static int report_period(const struct period *p, json_t *s, struct gcr_err *err)
{
    const uint64_t *m = p->misses, *rm = p->replicated_misses;
    json_t *copies = ratio(p->area_copies, p->area_lines);
    json_t *per_line = p->lines_held
                           ? json_real(exact_value(p->line_avg_sum) / (double)p->lines_held)
                           : json_null();
    int rc = 0;
    rc |= json_object_set_new(s, "misses", split(m[0], m[1]));
    rc |= json_object_set_new(s, "replicated_misses", split(rm[0], rm[1]));
    rc |= json_object_set_new(s, "replication_ratio",
                              json_pack("{s:o, s:o, s:o}", "reads", ratio(rm[0], m[0]), "writes",
                                        ratio(rm[1], m[1]), "all",
                                        ratio(rm[0] + rm[1], m[0] + m[1])));
    rc |= json_object_set_new(s, "steps", json_integer((json_int_t)p->steps));
    rc |= json_object_set_new(s, "copies_per_resident_line", copies);
    rc |= json_object_set_new(s, "replicas_per_resident_line",
                              json_is_real(copies) ? json_real(json_real_value(copies) - 1.0)
                                                   : json_null());
    rc |= json_object_set_new(s, "lines_resident", json_integer((json_int_t)p->lines_held));
    rc |= json_object_set_new(s, "copies_per_line", per_line);
    rc |= json_object_set_new(s, "replicas_per_line",
                              json_is_real(per_line) ? json_real(json_real_value(per_line) - 1.0)
                                                     : json_null());
    rc |= json_object_set_new(s, "max_copies", json_integer((json_int_t)p->max_copies));
    rc |= json_object_set_new(s, "resident_copies_avg",
                              ratio(p->area_copies, p->steps));
    rc |= json_object_set_new(s, "replicated_copies_avg",
                              ratio(p->area_replicated, p->steps));
    rc |= json_object_set_new(s, "replicated_fraction",
                              ratio(p->area_replicated, p->area_copies));
    if (rc)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

static int report_kernel(void *self, json_t *section, struct gcr_err *err)
{
    struct replication *r = self;
    /* Close every held line's interval at the kernel's end; with the departed
     * lines' stays, every stay of this kernel is then in the stays. */
    for (size_t i = 0; i < r->live_top; i++) {
        struct live *l = &r->live[i];
        if (!l->id_p1)
            continue;
        uint64_t held = r->now - l->start;
        if (held)
            stay_add(r, gcr_column_at(r->recs, l->id_p1 - 1), l->acc + (uint64_t)l->copies * r->now,
                     held);
        /* Area and held 0 from here (the clock stands still until the next kernel). */
        l->acc = 0 - (uint64_t)l->copies * r->now;
        l->start = r->now;
    }
    if (r->oom)
        return gcr_fail(err, GCR_E_NOMEM, "analysis replication: out of memory");
    /* One entry per line held this kernel. */
    size_t n = r->stays.count;
    for (size_t i = 0; i < n; i++) {
        const struct stay *st = gcr_chunks_at(&r->stays, i);
        exact_add(&r->kernel.line_avg_sum, (double)st->area / (double)st->held);
    }
    r->kernel.lines_held = n;
    r->total.lines_held += n;
    r->total.line_avg_sum += r->kernel.line_avg_sum;
    r->in_kernel = false;
    /* Stays matter only within their kernel: the next kernel's are numbered
     * after these (recs naming these are then stale), or, once the numbers
     * run out, every record's is cleared. */
    if (r->stays_base + n < UINT32_MAX / 2) {
        r->stays_base += (uint32_t)n;
    } else {
        for (uint32_t id = 0; id < r->lines->count; id++)
            ((struct line_rec *)gcr_column_at(r->recs, id))->stay_p1 = 0;
        r->stays_base = 0;
    }
    gcr_chunks_clear(&r->stays);
    return report_period(&r->kernel, section, err);
}

static int report_total(void *self, json_t *section, struct gcr_err *err)
{
    struct replication *r = self;
    return report_period(&r->total, section, err);
}

static void destroy(void *self)
{
    struct replication *r = self;
    if (!r)
        return;
    gcr_table_free(r->live, r->live_cap * sizeof *r->live);
    gcr_chunks_free(&r->stays);
    gcr_holders_pool_free(&r->pool);
    free(r);
}

static int create(void **self, const json_t *options, const struct gcr_sim_info *info,
                  struct gcr_err *err)
{
    struct gcr_opts o;
    gcr_opts_begin(&o, info->config->origin, "$.analyses.replication", options);
    if (gcr_opts_done(&o, err) != 0) /* no options */
        return -1;
    /* Holder sets keep units in 16-bit lanes (the config allows far fewer
     * SMs, hence L1s, than that). */
    if (info->num_l1s > GCR_HOLDERS_MAX_INSTANCES)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.replication: at most %u L1 "
                        "instances (the organisation has %u)", info->config->origin,
                        GCR_HOLDERS_MAX_INSTANCES, info->num_l1s);
    struct replication *r = calloc(1, sizeof *r);
    if (!r)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    r->num_l1s = info->num_l1s;
    r->skip_hits = info->l1_whole_line_evictions;
    gcr_holders_pool_init(&r->pool, info->num_l1s);
    gcr_chunks_init(&r->stays, sizeof(struct stay));
    r->lines = info->lines;
    if (!(r->recs = gcr_idmap_add_column(info->lines, sizeof(struct line_rec), err))) {
        free(r);
        return -1;
    }
    r->recs->prefetch_kinds = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT; /* fetched by the bus */
    *self = r;
    return 0;
}

/* The run's table: the share of L1 misses to lines another L1 held, and copies per line. */
static const char *const headline_labels[] = {"repl%", "copies", NULL};

static void headline(const json_t *section, char text[][GCR_HEADLINE_TEXT])
{
    const json_t *ratio = json_object_get(json_object_get(section, "replication_ratio"), "all");
    const json_t *copies = json_object_get(section, "copies_per_line");
    snprintf(text[0], GCR_HEADLINE_TEXT, json_is_number(ratio) ? "%.1f" : "-",
             100.0 * json_number_value(ratio));
    snprintf(text[1], GCR_HEADLINE_TEXT, json_is_number(copies) ? "%.2f" : "-",
             json_number_value(copies));
}

/* Workload classes (the report's "classes"; seed 000): replication-sensitive
 * when the replication ratio is above 25 % and the L1 miss rate above 50 %
 * (Ch. 5), or, by Ch. 4's looser rule, above 10 % alone. */
static void classify(const json_t *section, const json_t *period, json_t *classes)
{
    bool rep_ok = section != NULL, have_rate = true;
    double ratio = gcr_report_figure(section, "replication_ratio", "all", &rep_ok);
    double l1_miss_rate = gcr_report_figure(period, "L1D", "miss_rate", &have_rate);
    json_object_set_new(
        classes, "replication_sensitive",
        gcr_class_verdict(
            rep_ok && have_rate ? (ratio > 0.25 && l1_miss_rate > 0.5) : -1,
            "replication ratio > 0.25 and L1D miss rate > 0.5 (DC-L1 dissertation, Ch. 5); "
            "needs the replication analysis",
            json_pack("{s:o, s:o}", "replication_ratio", rep_ok ? json_real(ratio) : json_null(),
                      "l1d_miss_rate", have_rate ? json_real(l1_miss_rate) : json_null())));
    json_object_set_new(
        classes, "replication_sensitive_ch4",
        gcr_class_verdict(rep_ok ? ratio > 0.10 : -1,
                          "replication ratio > 0.10 (DC-L1 dissertation, Ch. 4); needs the "
                          "replication analysis",
                          json_pack("{s:o}", "replication_ratio",
                                    rep_ok ? json_real(ratio) : json_null())));
}

static const struct gcr_analysis_speed speed = {
    .prefetch = prefetch,
    .prefetch_stage1 = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT,
};

const struct gcr_analysis_ops gcr_analysis_replication = {
    .name = "replication",
    .summary = "L1 misses whose line another L1 holds, and copies per line across L1s",
    .subscribe = GCR_EV_KERNEL_BEGIN | GCR_EV_KERNEL_END | GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT,
    .create = create,
    .on_event = on_event,
    .report_kernel = report_kernel,
    .report_total = report_total,
    .destroy = destroy,
    .headline_labels = headline_labels,
    .headline = headline,
    .classify = classify,
    .speed = &speed,
};
