#include "core/bits.h"
#include "report/report.h"

#include "gcreplay/analysis.h"
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
json_t *gcr_class_verdict(int member, const char *rule, json_t *values)
{
    return json_pack("{s:o, s:s, s:o}", "member",
                     member < 0 ? json_null() : json_boolean(member), "rule", rule, "values",
                     values);
}

double gcr_report_figure(const json_t *o, const char *a, const char *b, bool *ok)
{
    const json_t *x = json_object_get(o, a);
    if (b)
        x = json_object_get(x, b);
    if (!json_is_number(x)) {
        *ok = false;
        return 0;
    }
    return json_number_value(x);
}

void gcr_report_classes(json_t *period)
{
    bool ok = true;
    double warp = gcr_report_figure(period, "instructions", "warp_total", &ok);
    double l1_acc = gcr_report_figure(period, "L1D", "accesses", &ok);
    ok = true;
    double l2_misses = gcr_report_figure(period, "L2", "misses", &ok);
    bool have_l2 = ok && warp > 0;

    /* The classes analyses decide come first (registry order), then the
     * ones the cache figures alone decide. */
    json_t *classes = json_object();
    const json_t *sections = json_object_get(period, "analyses");
    for (size_t i = 0; gcr_analyses[i]; i++)
        if (gcr_analyses[i]->classify)
            gcr_analyses[i]->classify(json_object_get(sections, gcr_analyses[i]->name), period,
                                      classes);
    double apki = warp > 0 ? 1000.0 * l1_acc / warp : 0;
    json_object_set_new(classes, "cache_sensitive",
                        gcr_class_verdict(warp > 0 ? apki > 10 : -1,
                                "L1D accesses per 1000 warp instructions (APKI) > 10 (VWS "
                                "dissertation)",
                                json_pack("{s:o}", "l1d_apki",
                                          warp > 0 ? json_real(apki) : json_null())));
    double mpki = have_l2 ? 1000.0 * l2_misses / warp : 0;
    json_object_set_new(classes, "memory_intensive",
                        gcr_class_verdict(have_l2 ? mpki > 2 : -1,
                                "L2 misses per 1000 warp instructions (MPKI) > 2",
                                json_pack("{s:o}", "l2_mpki",
                                          have_l2 ? json_real(mpki) : json_null())));
    json_object_set_new(period, "classes", classes);
}

/* One set of dump flags for every report text, whole or streamed; the
 * streamed report indents by REPORT_INDENT too. */
#define REPORT_INDENT 1
#define REPORT_JSON_FLAGS (JSON_INDENT(REPORT_INDENT) | JSON_REAL_PRECISION(10))
#define REPORT_COMPACT_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(10))

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

bool gcr_report_detail_parse(const char *s, enum gcr_report_detail *out)
{
    static const char *const names[] = {"totals", "kernels", "full"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *out = (enum gcr_report_detail)i;
            return true;
        }
    return false;
}

/* Whether a member holds figures per SM, slice, L1, node or channel (report.h). */
static bool per_unit(const char *key, const json_t *v)
{
    return !strncmp(key, "per_", 4) ||
           (json_is_array(v) && (strstr(key, "_per_") || strstr(key, "_of_")));
}

json_t *gcr_report_without_units(const json_t *v)
{
    if (json_is_array(v)) {
        json_t *a = json_array();
        size_t i;
        const json_t *e;
        json_array_foreach((json_t *)v, i, e)
            if (!a || json_array_append_new(a, gcr_report_without_units(e)) != 0) {
                json_decref(a);
                return NULL;
            }
        return a;
    }
    if (!json_is_object(v))
        return json_deep_copy(v);
    json_t *o = json_object();
    const char *key;
    const json_t *e;
    json_object_foreach((json_t *)v, key, e) {
        if (per_unit(key, e))
            continue;
        if (!o || json_object_set_new(o, key, gcr_report_without_units(e)) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* The members of a cache level a kernel summary keeps: the counts and rates of the tables. */
static const char *const level_keys[] = {"accesses", "hits", "misses", "miss_rate", "mpki",
                                         "line_misses", "sector_misses", "bytes_fetched", NULL};

static int copy_keys(json_t *to, const json_t *from, const char *const *keys)
{
    for (size_t i = 0; keys[i]; i++) {
        json_t *v = json_object_get(from, keys[i]);
        if (v && json_object_set(to, keys[i], v) != 0)
            return -1;
    }
    return 0;
}

json_t *gcr_report_kernel_summary(const json_t *kernel)
{
    static const char *const top[] = {"id", "name", "grid", "block", "ctas", "traffic", NULL};
    static const char *const insns[] = {"warp_total", "memory", "nonmemory", NULL};
    json_t *s = json_object(), *o;
    if (!s || copy_keys(s, kernel, top) != 0)
        goto fail;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)kernel, key, v) {
        o = NULL;
        if (!strcmp(key, "instructions")) {
            if (!(o = json_object()) || copy_keys(o, v, insns) != 0)
                goto fail_o;
        } else if (!strcmp(key, "L1D") || !strcmp(key, "L2")) {
            if (!(o = json_object()) || copy_keys(o, v, level_keys) != 0)
                goto fail_o;
        } else if (!strcmp(key, "classes")) {
            /* Each class's verdict and values; its rule is in the total (and in full). */
            const char *name;
            json_t *c;
            if (!(o = json_object()))
                goto fail;
            json_object_foreach(v, name, c) {
                json_t *verdict = json_object();
                if (!verdict || json_object_set_new(o, name, verdict) != 0 ||
                    copy_keys(verdict, c, (const char *const[]){"member", "values", NULL}) != 0)
                    goto fail_o;
            }
        } else if (!strcmp(key, "timing")) { /* its figures, not its resources */
            const char *name;
            json_t *x;
            if (!(o = json_object()))
                goto fail;
            json_object_foreach(v, name, x)
                if (!json_is_object(x) && !json_is_array(x) && json_object_set(o, name, x) != 0)
                    goto fail_o;
        } else if (!strcmp(key, "analyses") || !strcmp(key, "multichip")) {
            if (!(o = gcr_report_without_units(v)))
                goto fail;
        } else {
            continue;
        }
        if (json_object_set_new(s, key, o) != 0)
            goto fail;
    }
    return s;
fail_o:
    json_decref(o);
fail:
    json_decref(s);
    return NULL;
}

/* ---- streamed report ------------------------------------------------------------------ */

/* A line break and the indentation of depth `depth`, as jansson writes them; nothing in a
 * compact report. */
static int put_break(const struct gcr_report_writer *w, unsigned depth)
{
    if (w->detail != GCR_REPORT_FULL)
        return 0;
    return fprintf(w->out.f, "\n%*s", (int)(depth * REPORT_INDENT), "") < 0 ? -1 : 0;
}

/* jansson indents a value's lines by its depth (REPORT_INDENT spaces per
 * level) and writes no raw newline inside a string, so a value dumped on its
 * own becomes the text it has at depth `depth` of the whole report by
 * indenting each of its line breaks `depth` levels more. */
static int put_at_depth(struct gcr_report_writer *w, const json_t *v, unsigned depth,
                        bool kernel)
{
    bool full = w->detail == GCR_REPORT_FULL;
    json_t *shown = full     ? json_incref((json_t *)v)
                    : kernel ? gcr_report_kernel_summary(v)
                             : gcr_report_without_units(v);
    char *text = shown ? json_dumps(shown, JSON_ENCODE_ANY | (full ? REPORT_JSON_FLAGS
                                                                   : REPORT_COMPACT_FLAGS))
                       : NULL;
    json_decref(shown);
    if (!text) {
        w->out_of_memory = true;
        return -1;
    }
    int rc = 0;
    const char *p = text;
    for (const char *nl; rc == 0 && (nl = strchr(p, '\n')); p = nl + 1)
        if (fwrite(p, 1, (size_t)(nl - p), w->out.f) != (size_t)(nl - p) ||
            put_break(w, depth) != 0)
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
    int rc = fputs(w->members++ ? "," : "{", w->out.f) == EOF || put_break(w, 1) != 0 ||
                     put_at_depth(w, k, 1, false) != 0 ||
                     fputs(w->detail == GCR_REPORT_FULL ? ": " : ":", w->out.f) == EOF
                 ? -1
                 : 0;
    json_decref(k);
    return rc;
}

static int put_member(struct gcr_report_writer *w, const char *key, const json_t *v)
{
    return put_key(w, key) != 0 || put_at_depth(w, v, 1, false) != 0 ? -1 : 0;
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

/* The head's members and the start of the kernels' list, into w->out (open). */
static int writer_start(struct gcr_report_writer *w, const json_t *head, struct gcr_err *err)
{
    w->head = json_incref((json_t *)head);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)head, key, v) {
        if (put_member(w, key, v) != 0)
            return writer_fail(w, err);
    }
    /* The list follows, a kernel at a time (with totals only, none). */
    if (w->detail != GCR_REPORT_TOTALS && put_key(w, "kernels") != 0)
        return writer_fail(w, err);
    return 0;
}

int gcr_report_writer_open(struct gcr_report_writer *w, const char *path, const json_t *head,
                           enum gcr_report_detail detail, struct gcr_err *err)
{
    *w = (struct gcr_report_writer){.detail = detail};
    if (gcr_atomic_file_open(&w->out, path, err) != 0)
        return -1;
    return writer_start(w, head, err);
}

int gcr_report_writer_open_fd(struct gcr_report_writer *w, int fd, const char *name,
                              const json_t *head, enum gcr_report_detail detail,
                              struct gcr_err *err)
{
    *w = (struct gcr_report_writer){.detail = detail};
    if (gcr_atomic_file_open_fd(&w->out, fd, name, err) != 0)
        return -1;
    return writer_start(w, head, err);
}

int gcr_report_writer_kernel(struct gcr_report_writer *w, const json_t *kernel,
                             struct gcr_err *err)
{
    if (!w->out.f)
        return writer_gone(err);
    if (w->detail == GCR_REPORT_TOTALS)
        return 0;
    if (fputs(w->kernels++ ? "," : "[", w->out.f) == EOF || put_break(w, 2) != 0 ||
        put_at_depth(w, kernel, 2, true) != 0)
        return writer_fail(w, err);
    return 0;
}

int gcr_report_writer_finish(struct gcr_report_writer *w, const json_t *report,
                             struct gcr_err *err)
{
    if (!w->out.f)
        return writer_gone(err);
    if (w->detail != GCR_REPORT_TOTALS &&
        (w->kernels ? put_break(w, 1) != 0 || fputs("]", w->out.f) == EOF
                    : fputs("[]", w->out.f) == EOF))
        return writer_fail(w, err);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)report, key, v) {
        if (json_object_get(w->head, key) || !strcmp(key, "kernels"))
            continue;
        if (put_member(w, key, v) != 0)
            return writer_fail(w, err);
    }
    if (put_break(w, 0) != 0 || fputs("}\n", w->out.f) == EOF)
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
