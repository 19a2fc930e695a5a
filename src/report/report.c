#include "core/bits.h"
#include "report/report.h"

#include "gcreplay/chips.h"

#include "core/atomic_file.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if the byte there does
 * not start one (overlong forms, surrogates and values above U+10FFFF included). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (!n || c > 0xf4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
        (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

json_t *gcr_report_text(const char *s)
{
    size_t len = strlen(s);
    json_t *j = json_stringn(s, len);
    if (j)
        return j;
    char *out = malloc(3 * len + 1), *o = out;
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (n) {
            memcpy(o, p, n);
            o += n;
            p += n;
        } else {
            o += sprintf(o, "%%%02X", *p++);
        }
    }
    *o = '\0';
    j = json_string(out);
    free(out);
    return j;
}

#define NSTATS (sizeof(struct gcr_cache_stats) / sizeof(uint64_t))

/* The stats struct is all uint64_t, so periods are plain element-wise differences. */
static void diff(const struct gcr_cache_stats *now, const struct gcr_cache_stats *then,
                 struct gcr_cache_stats *out)
{
    const uint64_t *a = (const uint64_t *)now;
    const uint64_t *b = then ? (const uint64_t *)then : NULL;
    uint64_t *o = (uint64_t *)out;
    for (size_t i = 0; i < NSTATS; i++)
        o[i] = a[i] - (b ? b[i] : 0);
}

static json_t *ratio(uint64_t num, uint64_t den)
{
    return den ? json_real((double)num / (double)den) : json_null();
}

static json_t *direction(const struct gcr_cache_stats *s, int w)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "accesses", (json_int_t)s->accesses[w],
                     "hits", (json_int_t)s->outcomes[w][GCR_HIT], "misses",
                     (json_int_t)(s->outcomes[w][GCR_MISS_LINE] + s->outcomes[w][GCR_MISS_SECTOR]),
                     "line_misses", (json_int_t)s->outcomes[w][GCR_MISS_LINE], "sector_misses",
                     (json_int_t)s->outcomes[w][GCR_MISS_SECTOR]);
}

json_t *gcr_report_level(const struct gcr_cache_stats *now, const struct gcr_cache_stats *then,
                         uint32_t n, const char *per_name, uint64_t warp_insns,
                         uint32_t sector_bytes)
{
    struct gcr_cache_stats sum = {0};
    /* Per-unit columns: one array per figure, index = SM or slice. */
    static const char *const cols[] = {"accesses", "hits", "misses", "line_misses",
                                       "sector_misses", "bytes_fetched"};
    enum { NCOLS = sizeof cols / sizeof cols[0] };
    json_t *arr[NCOLS];
    for (int k = 0; k < NCOLS; k++)
        arr[k] = json_array();
    for (uint32_t i = 0; i < n; i++) {
        struct gcr_cache_stats d;
        diff(&now[i], then ? &then[i] : NULL, &d);
        gcr_add_u64s((uint64_t *)&sum, (const uint64_t *)&d, NSTATS);
        uint64_t line_m = d.outcomes[0][GCR_MISS_LINE] + d.outcomes[1][GCR_MISS_LINE];
        uint64_t sect_m = d.outcomes[0][GCR_MISS_SECTOR] + d.outcomes[1][GCR_MISS_SECTOR];
        uint64_t v[NCOLS] = {d.accesses[0] + d.accesses[1],
                             d.outcomes[0][GCR_HIT] + d.outcomes[1][GCR_HIT],
                             line_m + sect_m,
                             line_m,
                             sect_m,
                             d.sectors_fetched * sector_bytes};
        for (int k = 0; k < NCOLS; k++)
            json_array_append_new(arr[k], json_integer((json_int_t)v[k]));
    }
    uint64_t accesses = sum.accesses[0] + sum.accesses[1];
    uint64_t hits = sum.outcomes[0][GCR_HIT] + sum.outcomes[1][GCR_HIT];
    uint64_t line_m = sum.outcomes[0][GCR_MISS_LINE] + sum.outcomes[1][GCR_MISS_LINE];
    uint64_t sect_m = sum.outcomes[0][GCR_MISS_SECTOR] + sum.outcomes[1][GCR_MISS_SECTOR];
    uint64_t misses = line_m + sect_m;
    json_t *o = json_object();
    json_object_set_new(o, "accesses", json_integer((json_int_t)accesses));
    json_object_set_new(o, "hits", json_integer((json_int_t)hits));
    json_object_set_new(o, "misses", json_integer((json_int_t)misses));
    json_object_set_new(o, "miss_rate", ratio(misses, accesses));
    json_object_set_new(o, "mpki", warp_insns ? json_real(1000.0 * (double)misses /
                                                          (double)warp_insns)
                                              : json_null());
    json_object_set_new(o, "line_misses", json_integer((json_int_t)line_m));
    json_object_set_new(o, "sector_misses", json_integer((json_int_t)sect_m));
    json_object_set_new(o, "reads", direction(&sum, 0));
    json_object_set_new(o, "writes", direction(&sum, 1));
    json_object_set_new(
        o, "sectors",
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:o}", "requested",
                  (json_int_t)(sum.sectors_requested[0] + sum.sectors_requested[1]), "missed",
                  (json_int_t)(sum.sectors_missed[0] + sum.sectors_missed[1]), "fetched",
                  (json_int_t)sum.sectors_fetched, "forwarded", (json_int_t)sum.sectors_forwarded,
                  "written_back", (json_int_t)sum.sectors_written_back, "sector_miss_rate",
                  ratio(sum.sectors_missed[0] + sum.sectors_missed[1],
                        sum.sectors_requested[0] + sum.sectors_requested[1])));
    json_object_set_new(o, "bytes_fetched",
                        json_integer((json_int_t)(sum.sectors_fetched * sector_bytes)));
    json_object_set_new(o, "evictions", json_integer((json_int_t)sum.evictions));
    json_object_set_new(o, "invalidations", json_integer((json_int_t)sum.invalidations));
    json_t *per = json_object();
    for (int k = 0; k < NCOLS; k++)
        json_object_set_new(per, cols[k], arr[k]);
    json_object_set_new(o, per_name, per);
    return o;
}

/* A class verdict: {"member": true/false/null, "rule": text, "values": {...}}.
 * member is null when a figure it needs is missing (e.g. no accesses). */
static json_t *verdict(int member, const char *rule, json_t *values)
{
    return json_pack("{s:o, s:s, s:o}", "member",
                     member < 0 ? json_null() : json_boolean(member), "rule", rule, "values",
                     values);
}

static double number_at(const json_t *o, const char *a, const char *b, int *ok)
{
    const json_t *x = json_object_get(o, a);
    if (b)
        x = json_object_get(x, b);
    if (!json_is_number(x)) {
        *ok = 0;
        return 0;
    }
    return json_number_value(x);
}

void gcr_report_classes(json_t *period)
{
    int ok = 1;
    double warp = number_at(period, "instructions", "warp_total", &ok);
    double l1_acc = number_at(period, "L1D", "accesses", &ok);
    double l1_miss_rate = number_at(period, "L1D", "miss_rate", &ok);
    int have_rate = ok;
    ok = 1;
    double l2_misses = number_at(period, "L2", "misses", &ok);
    int have_l2 = ok && warp > 0;
    int rep_ok = 1;
    const json_t *rep = json_object_get(json_object_get(period, "analyses"), "replication");
    double ratio = number_at(rep, "replication_ratio", "all", &rep_ok);
    rep_ok = rep_ok && rep;

    json_t *classes = json_object();
    /* Seed 000 Ch. 5: replication-sensitive = replication ratio > 25 % and L1
     * miss rate > 50 %; Ch. 4 uses a replication ratio above 10 % alone. */
    json_object_set_new(
        classes, "replication_sensitive",
        verdict(rep_ok && have_rate ? (ratio > 0.25 && l1_miss_rate > 0.5) : -1,
                "replication ratio > 0.25 and L1D miss rate > 0.5 (DC-L1 dissertation, Ch. 5); "
                "needs the replication analysis",
                json_pack("{s:o, s:o}", "replication_ratio",
                          rep_ok ? json_real(ratio) : json_null(), "l1d_miss_rate",
                          have_rate ? json_real(l1_miss_rate) : json_null())));
    json_object_set_new(
        classes, "replication_sensitive_ch4",
        verdict(rep_ok ? ratio > 0.10 : -1,
                "replication ratio > 0.10 (DC-L1 dissertation, Ch. 4); needs the replication "
                "analysis",
                json_pack("{s:o}", "replication_ratio", rep_ok ? json_real(ratio) : json_null())));
    double apki = warp > 0 ? 1000.0 * l1_acc / warp : 0;
    json_object_set_new(classes, "cache_sensitive",
                        verdict(warp > 0 ? apki > 10 : -1,
                                "L1D accesses per 1000 warp instructions (APKI) > 10 (VWS "
                                "dissertation)",
                                json_pack("{s:o}", "l1d_apki",
                                          warp > 0 ? json_real(apki) : json_null())));
    double mpki = have_l2 ? 1000.0 * l2_misses / warp : 0;
    json_object_set_new(classes, "memory_intensive",
                        verdict(have_l2 ? mpki > 2 : -1,
                                "L2 misses per 1000 warp instructions (MPKI) > 2",
                                json_pack("{s:o}", "l2_mpki",
                                          have_l2 ? json_real(mpki) : json_null())));
    json_object_set_new(period, "classes", classes);
}

/* One set of dump flags for every report text, whole or streamed; the
 * streamed report indents by REPORT_INDENT too. */
#define REPORT_INDENT 1
#define REPORT_JSON_FLAGS (JSON_INDENT(REPORT_INDENT) | JSON_REAL_PRECISION(10))

char *gcr_report_dumps(const json_t *report)
{
    return json_dumps(report, REPORT_JSON_FLAGS);
}

int gcr_report_write_json(const json_t *report, const char *path, struct gcr_err *err)
{
    char *text = gcr_report_dumps(report);
    if (!text)
        return gcr_fail(err, GCR_E_NOMEM, "%s: cannot format the report", path);
    struct gcr_atomic_file out;
    int rc = gcr_atomic_file_open(&out, path, err);
    if (rc == 0) {
        if (fputs(text, out.f) == EOF || fputc('\n', out.f) == EOF) {
            rc = gcr_fail(err, GCR_E_IO, "%s: write failed: %s", path, strerror(errno));
            gcr_atomic_file_abort(&out);
        } else {
            rc = gcr_atomic_file_commit(&out, err);
        }
    }
    free(text);
    return rc;
}

/* ---- streamed report ------------------------------------------------------------------ */

/* A line break and the indentation of depth `depth`, as jansson writes them. */
static int put_break(FILE *f, unsigned depth)
{
    return fprintf(f, "\n%*s", (int)(depth * REPORT_INDENT), "") < 0 ? -1 : 0;
}

/* jansson indents a value's lines by its depth (REPORT_INDENT spaces per
 * level) and writes no raw newline inside a string, so a value dumped on its
 * own becomes the text it has at depth `depth` of the whole report by
 * indenting each of its line breaks `depth` levels more. */
static int put_at_depth(struct gcr_report_writer *w, const json_t *v, unsigned depth)
{
    char *text = json_dumps(v, JSON_ENCODE_ANY | REPORT_JSON_FLAGS);
    if (!text) {
        w->out_of_memory = true;
        return -1;
    }
    int rc = 0;
    const char *p = text;
    for (const char *nl; rc == 0 && (nl = strchr(p, '\n')); p = nl + 1)
        if (fwrite(p, 1, (size_t)(nl - p), w->out.f) != (size_t)(nl - p) ||
            put_break(w->out.f, depth) != 0)
            rc = -1;
    if (rc == 0 && fputs(p, w->out.f) == EOF)
        rc = -1;
    free(text);
    return rc;
}

/* The start of a member of the report's top-level object: a comma after an
 * earlier member (an opening brace before the first), then `"key": `. */
static int put_key(struct gcr_report_writer *w, const char *key)
{
    json_t *k = json_string(key);
    if (!k) {
        w->out_of_memory = true;
        return -1;
    }
    int rc = fputs(w->members++ ? "," : "{", w->out.f) == EOF || put_break(w->out.f, 1) != 0 ||
                     put_at_depth(w, k, 1) != 0 || fputs(": ", w->out.f) == EOF
                 ? -1
                 : 0;
    json_decref(k);
    return rc;
}

static int put_member(struct gcr_report_writer *w, const char *key, const json_t *v)
{
    return put_key(w, key) != 0 || put_at_depth(w, v, 1) != 0 ? -1 : 0;
}

/* Every failure abandons the report: the message, then no file. */
static int writer_fail(struct gcr_report_writer *w, struct gcr_err *err)
{
    if (w->out_of_memory)
        gcr_fail(err, GCR_E_NOMEM, "%s: out of memory formatting the report", w->out.path);
    else
        gcr_fail(err, GCR_E_IO, "%s: write failed: %s", w->out.path, strerror(errno));
    gcr_report_writer_abort(w);
    return -1;
}

static int writer_gone(struct gcr_err *err)
{
    return gcr_fail(err, GCR_E_INTERNAL, "the report writer was used after it failed");
}

int gcr_report_writer_open(struct gcr_report_writer *w, const char *path, const json_t *head,
                           struct gcr_err *err)
{
    *w = (struct gcr_report_writer){0};
    if (gcr_atomic_file_open(&w->out, path, err) != 0)
        return -1;
    w->head = json_incref((json_t *)head);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)head, key, v) {
        if (put_member(w, key, v) != 0)
            return writer_fail(w, err);
    }
    if (put_key(w, "kernels") != 0) /* the list follows, a kernel at a time */
        return writer_fail(w, err);
    return 0;
}

int gcr_report_writer_kernel(struct gcr_report_writer *w, const json_t *kernel,
                             struct gcr_err *err)
{
    if (!w->out.f)
        return writer_gone(err);
    if (fputs(w->kernels++ ? "," : "[", w->out.f) == EOF || put_break(w->out.f, 2) != 0 ||
        put_at_depth(w, kernel, 2) != 0)
        return writer_fail(w, err);
    return 0;
}

int gcr_report_writer_finish(struct gcr_report_writer *w, const json_t *report,
                             struct gcr_err *err)
{
    if (!w->out.f)
        return writer_gone(err);
    if (w->kernels ? put_break(w->out.f, 1) != 0 || fputs("]", w->out.f) == EOF
                   : fputs("[]", w->out.f) == EOF)
        return writer_fail(w, err);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)report, key, v) {
        if (json_object_get(w->head, key) || !strcmp(key, "kernels"))
            continue;
        if (put_member(w, key, v) != 0)
            return writer_fail(w, err);
    }
    if (put_break(w->out.f, 0) != 0 || fputs("}\n", w->out.f) == EOF)
        return writer_fail(w, err);
    json_decref(w->head);
    w->head = NULL;
    return gcr_atomic_file_commit(&w->out, err);
}

void gcr_report_writer_abort(struct gcr_report_writer *w)
{
    if (w->out.f)
        gcr_atomic_file_abort(&w->out);
    json_decref(w->head);
    w->head = NULL;
}

static json_int_t geti(const json_t *o, const char *a, const char *b)
{
    const json_t *x = json_object_get(o, a);
    if (b)
        x = json_object_get(x, b);
    return json_integer_value(x);
}

static void pct(char *buf, size_t n, const json_t *level)
{
    const json_t *r = json_object_get(level, "miss_rate");
    if (json_is_real(r))
        snprintf(buf, n, "%.2f", 100.0 * json_real_value(r));
    else
        snprintf(buf, n, "-");
}

static void mpki(char *buf, size_t n, const json_t *level)
{
    const json_t *r = json_object_get(level, "mpki");
    if (json_is_real(r))
        snprintf(buf, n, "%.2f", json_real_value(r));
    else
        snprintf(buf, n, "-");
}

static void row(FILE *out, const char *id, const char *name, const json_t *p)
{
    const json_t *l1 = json_object_get(p, "L1D"), *l2 = json_object_get(p, "L2");
    const json_t *tr = json_object_get(p, "traffic");
    char l1m[16], l1k[16], l2m[16], l2k[16];
    pct(l1m, sizeof l1m, l1);
    mpki(l1k, sizeof l1k, l1);
    pct(l2m, sizeof l2m, l2);
    mpki(l2k, sizeof l2k, l2);
    fprintf(out, "%6s  %-22.22s %7lld %11lld %10lld %10lld %7s %8s %10lld %7s %8s %10.1f %10.1f\n",
            id, name, (long long)geti(p, "ctas", NULL),
            (long long)geti(p, "instructions", "warp_total"),
            (long long)geti(p, "instructions", "memory"), (long long)geti(l1, "accesses", NULL),
            l1m, l1k, (long long)geti(l2, "accesses", NULL), l2m, l2k,
            (double)geti(tr, "dram_read_bytes", NULL) / 1024.0,
            (double)geti(tr, "dram_write_bytes", NULL) / 1024.0);
}

/* An L1 organisation's key figures: the scalars of total.L1D.<org>.summary
 * (src/orgs/README.md), a few per line. */
static void org_summary(FILE *out, const json_t *report)
{
    const char *org = json_string_value(
        json_object_get(json_object_get(json_object_get(report, "config"), "l1d"),
                        "organization"));
    const json_t *total_l1 = json_object_get(json_object_get(report, "total"), "L1D");
    const json_t *summary = json_object_get(json_object_get(total_l1, org ? org : ""), "summary");
    if (!json_is_object(summary) || !json_object_size(summary))
        return;
    const char *key;
    const json_t *v;
    int col = 0;
    json_object_foreach((json_t *)summary, key, v) {
        char val[32];
        if (json_is_integer(v))
            snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v) && fabs(json_real_value(v)) < 10) /* shares: 4 digits */
            snprintf(val, sizeof val, "%.4g", json_real_value(v));
        else if (json_is_real(v)) /* sizes: to a tenth */
            snprintf(val, sizeof val, "%.1f", json_real_value(v));
        else if (json_is_string(v))
            snprintf(val, sizeof val, "%s", json_string_value(v));
        else
            snprintf(val, sizeof val, "-");
        if (col == 0)
            col = fprintf(out, "L1D %s:", org);
        col += fprintf(out, "  %s %s", key, val);
        if (col > 90) {
            fputc('\n', out);
            col = 0;
        }
    }
    if (col)
        fputc('\n', out);
}

/* A latency or "-" when no request was served at that level. */
static void latency(char *buf, size_t n, const json_t *lat, const char *level)
{
    const json_t *m = json_object_get(json_object_get(lat, level), "mean_cycles");
    if (json_is_real(m))
        snprintf(buf, n, "%.0f", json_real_value(m));
    else
        snprintf(buf, n, "-");
}

/* The timing figures of a period: cycles, IPC in warp instructions, issue
 * slots used, the most used resource and its use, mean latency per level. */
static void timing_row(FILE *out, const char *id, const char *name, const json_t *t)
{
    const json_t *lat = json_object_get(t, "memory_latency");
    const char *limit = json_string_value(json_object_get(t, "limiting_resource"));
    double limit_use = json_real_value(json_object_get(t, "issue_utilisation"));
    const char *key;
    const json_t *r;
    json_object_foreach((json_t *)json_object_get(t, "resources"), key, r) {
        double u = json_real_value(json_object_get(r, "utilisation_max"));
        if (u > limit_use)
            limit_use = u;
    }
    char l1[16], l2[16], dr[16];
    latency(l1, sizeof l1, lat, "l1_hit");
    latency(l2, sizeof l2, lat, "l2_hit");
    latency(dr, sizeof dr, lat, "dram");
    fprintf(out, "%6s  %-22.22s %10lld %8.2f %7.1f %-14s %7.1f %7s %7s %8s %7lld\n", id, name,
            (long long)geti(t, "cycles", NULL),
            json_is_real(json_object_get(t, "ipc_warp"))
                ? json_real_value(json_object_get(t, "ipc_warp"))
                : 0.0,
            100.0 * json_real_value(json_object_get(t, "issue_utilisation")), limit,
            100.0 * limit_use, l1, l2, dr, (long long)geti(t, "mshr_stalls", NULL));
}

/* A rate in percent, or "-" when it is null or absent. */
static void pct_of(char *buf, size_t n, const json_t *v)
{
    if (json_is_number(v))
        snprintf(buf, n, "%.2f", 100.0 * json_number_value(v));
    else
        snprintf(buf, n, "-");
}

static void num_of(char *buf, size_t n, const json_t *v, const char *fmt)
{
    if (json_is_number(v))
        snprintf(buf, n, fmt, json_number_value(v));
    else
        snprintf(buf, n, "-");
}

/* One row per LLC organisation of a period with several chips. */
static void multichip_rows(FILE *out, const char *id, const json_t *mc)
{
    for (int o = 0; o < GCR_LLC_ORG_COUNT; o++) {
        const char *name = gcr_llc_org_name((enum gcr_llc_org)o);
        const json_t *g = json_object_get(mc, name);
        char hit[16], lsu[16];
        pct_of(hit, sizeof hit, json_object_get(g, "llc_hit_rate"));
        num_of(lsu, sizeof lsu, json_object_get(g, "lsu"), "%.3f");
        bool replayed = json_is_true(json_object_get(g, "replayed"));
        fprintf(out, "%6s  %-12s %-8s %10lld %10lld %7s %6s", id, name,
                json_string_value(json_object_get(g, "role")), (long long)geti(g, "local_requests", NULL),
                (long long)geti(g, "remote_requests", NULL), hit, lsu);
        if (replayed)
            fprintf(out, " %11.1f %11.1f %11.1f\n", (double)geti(g, "link_bytes", NULL) / 1024.0,
                    (double)geti(g, "dram_read_bytes", NULL) / 1024.0,
                    (double)geti(g, "dram_write_bytes", NULL) / 1024.0);
        else
            fprintf(out, " %11s %11s %11s\n", "-", "-", "-");
    }
}

/* The kernel rows of the three tables, in memory streams. */
enum { ROWS_MAIN, ROWS_TIMING, ROWS_MULTICHIP };

int gcr_report_rows_init(struct gcr_report_rows *r)
{
    *r = (struct gcr_report_rows){0};
    for (int i = 0; i < GCR_REPORT_ROW_TABLES; i++)
        if (!(r->f[i] = open_memstream(&r->text[i], &r->len[i]))) {
            gcr_report_rows_free(r);
            return -1;
        }
    return 0;
}

int gcr_report_rows_add(struct gcr_report_rows *r, const json_t *kernel)
{
    char id[16];
    snprintf(id, sizeof id, "%lld", (long long)geti(kernel, "id", NULL));
    const char *name = json_string_value(json_object_get(kernel, "name"));
    row(r->f[ROWS_MAIN], id, name, kernel);
    const json_t *timing = json_object_get(kernel, "timing");
    if (timing)
        timing_row(r->f[ROWS_TIMING], id, name, timing);
    const json_t *mc = json_object_get(kernel, "multichip");
    if (mc)
        multichip_rows(r->f[ROWS_MULTICHIP], id, mc);
    for (int i = 0; i < GCR_REPORT_ROW_TABLES; i++)
        if (ferror(r->f[i]))
            return -1;
    return 0;
}

void gcr_report_rows_free(struct gcr_report_rows *r)
{
    for (int i = 0; i < GCR_REPORT_ROW_TABLES; i++) {
        if (r->f[i])
            fclose(r->f[i]);
        free(r->text[i]);
        r->f[i] = NULL;
        r->text[i] = NULL;
    }
}

/* The rows of one table so far. */
static void put_rows(struct gcr_report_rows *r, int table, FILE *out)
{
    fflush(r->f[table]); /* text and len are up to date after a flush */
    fwrite(r->text[table], 1, r->len[table], out);
}

void gcr_report_print_table_rows(const json_t *report, struct gcr_report_rows *rows, FILE *out)
{
    const json_t *cfg = json_object_get(report, "config");
    const json_t *total = json_object_get(report, "total");
    fprintf(out, "gcreplay %s  config: %s  L1D: %s\n",
            json_string_value(json_object_get(json_object_get(report, "gcreplay"), "version")),
            json_string_value(json_object_get(cfg, "name")),
            json_string_value(json_object_get(json_object_get(cfg, "l1d"), "organization")));
    fprintf(out, "%6s  %-22s %7s %11s %10s %10s %7s %8s %10s %7s %8s %10s %10s\n", "kernel",
            "name", "CTAs", "warp-insns", "mem-insns", "L1D-acc", "L1D-m%", "L1D-MPKI",
            "L2-acc", "L2-m%", "L2-MPKI", "DRAM-rd-KB", "DRAM-wr-KB");
    put_rows(rows, ROWS_MAIN, out);
    row(out, "total", "", total);
    org_summary(out, report);
    if (json_object_get(total, "timing")) {
        fputs("timing\n", out);
        fprintf(out, "%6s  %-22s %10s %8s %7s %-14s %7s %7s %7s %8s %7s\n", "kernel", "name",
                "cycles", "IPC", "issue%", "limit", "limit%", "L1-lat", "L2-lat", "DRAM-lat",
                "MSHR-st");
        put_rows(rows, ROWS_TIMING, out);
        timing_row(out, "total", "", json_object_get(total, "timing"));
    }
    if (json_object_get(total, "multichip")) {
        fprintf(out, "\nLLC organisations on %lld chips (role l2: the L2 of the table above)\n",
                (long long)geti(json_object_get(total, "multichip"), "chips", NULL));
        fprintf(out, "%6s  %-12s %-8s %10s %10s %7s %6s %11s %11s %11s\n", "kernel", "llc",
                "role", "local-req", "remote-req", "hit%", "LSU", "link-KB", "DRAM-rd-KB",
                "DRAM-wr-KB");
        put_rows(rows, ROWS_MULTICHIP, out);
        multichip_rows(out, "total", json_object_get(total, "multichip"));
    }
}

int gcr_report_print_table(const json_t *report, FILE *out)
{
    struct gcr_report_rows rows;
    if (gcr_report_rows_init(&rows) != 0)
        return -1;
    size_t i;
    const json_t *k;
    json_array_foreach(json_object_get(report, "kernels"), i, k) {
        if (gcr_report_rows_add(&rows, k) != 0) {
            gcr_report_rows_free(&rows);
            return -1;
        }
    }
    gcr_report_print_table_rows(report, &rows, out);
    gcr_report_rows_free(&rows);
    return 0;
}

/* One scope's row; the timed cycles of both organisations (gcreplay sac
 * --timing) go on the kernel row, as they are a whole kernel's. */
static void sac_row(FILE *out, const char *id, const char *name, const char *scope,
                    const json_t *s, const json_t *sac, bool cycles)
{
    char rl[16], hm[16], hs[16], hc[16], lm[16], ls[16], em[16], es[16], cm[24], cs[24];
    pct_of(rl, sizeof rl, json_object_get(s, "r_local"));
    pct_of(hm, sizeof hm, json_object_get(s, "memory_side_hit_rate"));
    pct_of(hs, sizeof hs, json_object_get(s, "replayed_sm_hit_rate"));
    pct_of(hc, sizeof hc, json_object_get(s, "crd_sm_hit_rate"));
    num_of(lm, sizeof lm, json_object_get(s, "lsu_memory_side"), "%.3f");
    num_of(ls, sizeof ls, json_object_get(s, "lsu_sm_side"), "%.3f");
    num_of(em, sizeof em, json_object_get(json_object_get(s, "eab_memory_side"), "total"), "%.1f");
    num_of(es, sizeof es, json_object_get(json_object_get(s, "eab_sm_side"), "total"), "%.1f");
    const json_t *rt = json_object_get(sac, "runtime");
    const json_t *winner = json_object_get(sac, "runtime_winner");
    snprintf(cm, sizeof cm, "%s", "-");
    snprintf(cs, sizeof cs, "%s", "-");
    if (cycles && rt) {
        snprintf(cm, sizeof cm, "%lld",
                 (long long)geti(json_object_get(rt, "memory_side"), "cycles", NULL));
        snprintf(cs, sizeof cs, "%lld",
                 (long long)geti(json_object_get(rt, "sm_side"), "cycles", NULL));
    }
    const char *choice = json_string_value(json_object_get(s, "choice"));
    const char *src = json_string_value(json_object_get(s, "sm_hit_source"));
    fprintf(out, "%6s  %-18.18s %-6s %9lld %7s %7s %7s %7s %7s %7s %9s %9s %-8s %-11s %-11s %9s %9s\n",
            id, name, scope, (long long)geti(s, "requests", NULL), rl, hm, hs, hc, lm, ls, em, es,
            src ? src : "-", choice ? choice : "-",
            json_is_string(winner) ? json_string_value(winner) : "-", cm, cs);
}

void gcr_report_print_sac(const json_t *report, FILE *out)
{
    const json_t *cfg = json_object_get(report, "config");
    const json_t *chips = json_object_get(cfg, "chips");
    const json_t *eab = json_object_get(chips, "eab");
    size_t i;
    const json_t *t;
    fprintf(out, "config: %s  chips: %lld  theta: %.3g  window: %lld LLC requests\n",
            json_string_value(json_object_get(cfg, "name")), (long long)geti(chips, "count", NULL),
            json_number_value(json_object_get(eab, "theta")),
            (long long)geti(eab, "profile_requests", NULL));
    json_array_foreach(json_object_get(report, "traces"), i, t)
        fprintf(out, "trace: %s\n", json_string_value(json_object_get(t, "path")));
    fprintf(out, "%6s  %-18s %-6s %9s %7s %7s %7s %7s %7s %7s %9s %9s %-8s %-11s %-11s %9s %9s\n",
            "kernel", "name", "scope", "requests", "Rloc%", "hitM%", "hitS%", "crdS%", "LSU-M",
            "LSU-S", "EAB-M", "EAB-S", "S-from", "choice", "runtime", "cycles-M", "cycles-S");
    const json_t *k;
    json_array_foreach(json_object_get(report, "kernels"), i, k) {
        char id[16];
        snprintf(id, sizeof id, "%lld", (long long)geti(k, "id", NULL));
        const json_t *sac = json_object_get(json_object_get(k, "multichip"), "sac");
        const char *name = json_string_value(json_object_get(k, "name"));
        sac_row(out, id, name, "window", json_object_get(sac, "window"), sac, false);
        sac_row(out, "", "", "kernel", json_object_get(sac, "kernel"), sac, true);
    }
}
