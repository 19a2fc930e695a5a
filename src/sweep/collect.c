/* Reading a sweep back (sweep.h): the reports under runs/ become tables and a summary. Rows go
 * by trace id, then by the plan's variant order (the baseline first), then by the report's
 * kernel order; nothing depends on when or how parallel the pairs ran. */
#include "sweep/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One CSV field, RFC 4180: quoted when it holds a comma, a quote or a line end. */
static void put_field(struct sweep_text *t, bool first, const char *v)
{
    if (!first)
        sweep_put(t, ",");
    if (!strpbrk(v, ",\"\r\n")) {
        sweep_put(t, "%s", v);
        return;
    }
    sweep_put(t, "\"");
    for (const char *p = v; *p; p++) {
        if (*p == '"')
            sweep_put(t, "\"\"");
        else
            sweep_put(t, "%c", *p);
    }
    sweep_put(t, "\"");
}

/* ---- The columns -------------------------------------------------------------------------- */

/* A figure of a period (the total, or a kernel) of a report: where it is, for the total and for
 * a kernel (the SAC choice lives in different places), and how it is written. */
enum kind { K_INT, K_REAL, K_MEMBER, K_TEXT };
static const struct column {
    const char *name, *total_at, *kernel_at;
    enum kind kind;
} columns[] = {
    {"instructions", "instructions.warp_total", NULL, K_INT},
    {"l1d_accesses", "L1D.accesses", NULL, K_INT},
    {"l1d_hits", "L1D.hits", NULL, K_INT},
    {"l1d_misses", "L1D.misses", NULL, K_INT},
    {"l1d_miss_rate", "L1D.miss_rate", NULL, K_REAL},
    {"l2_accesses", "L2.accesses", NULL, K_INT},
    {"l2_misses", "L2.misses", NULL, K_INT},
    {"l2_miss_rate", "L2.miss_rate", NULL, K_REAL},
    {"dram_read_bytes", "traffic.dram_read_bytes", NULL, K_INT},
    {"dram_write_bytes", "traffic.dram_write_bytes", NULL, K_INT},
    {"replication_ratio", "analyses.replication.replication_ratio.all", NULL, K_REAL},
    {"copies_per_line", "analyses.replication.copies_per_line", NULL, K_REAL},
    {"replication_sensitive", "classes.replication_sensitive.member", NULL, K_MEMBER},
    {"cache_sensitive", "classes.cache_sensitive.member", NULL, K_MEMBER},
    {"memory_intensive", "classes.memory_intensive.member", NULL, K_MEMBER},
    {"cycles", "timing.cycles", NULL, K_INT},
    {"ipc", "timing.ipc_warp", NULL, K_REAL},
    {"limiting_resource", "timing.limiting_resource", NULL, K_TEXT},
    {"sac_choice", "multichip.sac.run.choice", "multichip.sac.kernel.choice", K_TEXT},
};
enum { NCOLUMNS = sizeof columns / sizeof columns[0] };

static const json_t *at(const json_t *j, const char *path)
{
    char key[128];
    while (j && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        j = json_object_get(j, key);
        path += n + (dot ? 1 : 0);
    }
    return j;
}

/* The column's text for a period: "" when not measured. */
static void field(const struct column *c, const json_t *period, bool kernel, char *out,
                  size_t cap)
{
    const json_t *v = at(period, kernel && c->kernel_at ? c->kernel_at : c->total_at);
    out[0] = '\0';
    if (c->kind == K_INT && json_is_integer(v))
        snprintf(out, cap, "%lld", (long long)json_integer_value(v));
    else if (c->kind == K_REAL && json_is_number(v))
        snprintf(out, cap, "%.10g", json_number_value(v));
    else if (c->kind == K_MEMBER && json_is_boolean(v))
        snprintf(out, cap, "%d", json_is_true(v));
    else if (c->kind == K_TEXT && json_is_string(v))
        snprintf(out, cap, "%s", json_string_value(v));
}

static const struct column *column_named(const char *name)
{
    for (size_t i = 0; i < NCOLUMNS; i++)
        if (!strcmp(columns[i].name, name))
            return &columns[i];
    return NULL;
}

/* The value of an axis, as it is written in the variant's id and the tables. */
static void axis_text(const json_t *v, char *out, size_t cap)
{
    if (json_is_string(v)) {
        snprintf(out, cap, "%s", json_string_value(v));
        return;
    }
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(out, cap, "%s", s ? s : "");
    free(s);
}

static void put_head(struct sweep_text *t, const struct sweep_plan *p, bool kernels, bool failures)
{
    put_field(t, true, "trace");
    put_field(t, false, "variant");
    put_field(t, false, "config");
    for (size_t a = 0; a < p->naxes; a++)
        put_field(t, false, p->axes[a].path);
    if (failures) {
        put_field(t, false, "exit_status");
        put_field(t, false, "message");
    } else {
        if (kernels) {
            put_field(t, false, "kernel");
            put_field(t, false, "kernel_name");
        }
        for (size_t i = 0; i < NCOLUMNS; i++)
            put_field(t, false, columns[i].name);
    }
    sweep_put(t, "\r\n");
}

static void put_pair(struct sweep_text *t, const struct sweep_plan *p, size_t tr, size_t v)
{
    const struct sweep_variant *var = &p->variants[v];
    put_field(t, true, p->traces[tr].id);
    put_field(t, false, var->id);
    put_field(t, false, var->config);
    for (size_t a = 0; a < p->naxes; a++) {
        char buf[1024];
        axis_text(json_object_get(var->values, p->axes[a].path), buf, sizeof buf);
        put_field(t, false, buf);
    }
}

static void put_period(struct sweep_text *t, const json_t *period, bool kernel)
{
    for (size_t i = 0; i < NCOLUMNS; i++) {
        char buf[256];
        field(&columns[i], period, kernel, buf, sizeof buf);
        put_field(t, false, buf);
    }
    sweep_put(t, "\r\n");
}

/* ---- The summary -------------------------------------------------------------------------- */

static void put_number(struct sweep_text *t, const struct column *c, double v, int width)
{
    if (c->kind == K_INT) {
        /* Thousands separated: counts of millions are read, not parsed. */
        char digits[32], grouped[48];
        snprintf(digits, sizeof digits, "%.0f", v);
        size_t n = strlen(digits), k = 0;
        for (size_t i = 0; i < n; i++) {
            if (i && (n - i) % 3 == 0 && digits[i - 1] != '-')
                grouped[k++] = ',';
            grouped[k++] = digits[i];
        }
        grouped[k] = '\0';
        sweep_put(t, "%*s", width, grouped);
    } else {
        sweep_put(t, "%*.4f", width, v);
    }
}

/* The workload classes of a trace: each as the first report that could tell (the baseline's
 * first; replication sensitivity needs a variant with the replication analysis). */
static const char *const class_names[] = {"replication_sensitive", "cache_sensitive",
                                          "memory_intensive"};
enum { NCLASSES = sizeof class_names / sizeof class_names[0] };

static void learn_classes(int known[NCLASSES], const json_t *report)
{
    const json_t *cls = at(report, "total.classes");
    for (size_t i = 0; i < NCLASSES; i++) {
        const json_t *m = json_object_get(json_object_get(cls, class_names[i]), "member");
        if (known[i] < 0 && json_is_boolean(m))
            known[i] = json_is_true(m);
    }
}

static void put_classes(struct sweep_text *t, const int known[NCLASSES])
{
    int shown = 0;
    for (size_t i = 0; i < NCLASSES; i++)
        if (known[i] == 1)
            sweep_put(t, "%s%s", shown++ ? ", " : "", class_names[i]);
    if (!shown)
        sweep_put(t, "none");
}

int sweep_collect(const struct sweep_plan *p, const char *dir, char **summary,
                  struct gcr_err *err)
{
    *summary = NULL;
    bool lower = true;
    const struct column *rank = column_named(p->rank_by);
    if (!rank || !sweep_metric_known(p->rank_by, &lower))
        return gcr_fail(err, GCR_E_USAGE, "--rank-by %s: not a metric that ranks (known: %s)",
                        p->rank_by, sweep_metric_names());
    /* Traces in id order. */
    size_t *order = malloc((p->ntraces ? p->ntraces : 1) * sizeof *order);
    if (!order)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t i = 0; i < p->ntraces; i++)
        order[i] = i;
    for (size_t i = 1; i < p->ntraces; i++) /* insertion sort: a few hundred traces */
        for (size_t k = i; k > 0 && strcmp(p->traces[order[k - 1]].id,
                                           p->traces[order[k]].id) > 0; k--) {
            size_t x = order[k];
            order[k] = order[k - 1];
            order[k - 1] = x;
        }

    struct sweep_text sum = {0}, ker = {0}, fail = {0}, txt = {0};
    put_head(&sum, p, false, false);
    put_head(&ker, p, true, false);
    put_head(&fail, p, false, true);
    size_t done = 0, failed = 0, pending = 0;
    struct sweep_text ranks = {0}, failed_lines = {0}, matrix = {0};
    /* Each variant's figure, for the table of changes from the baseline. */
    size_t pairs = p->ntraces * p->nvariants;
    double *figure = malloc((pairs ? pairs : 1) * sizeof *figure);
    if (!figure) {
        free(order);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < pairs; i++)
        figure[i] = NAN;
    int width = (int)strlen(p->rank_by) > 12 ? (int)strlen(p->rank_by) : 12;
    size_t idw = 5, vw = 12;
    for (size_t i = 0; i < p->ntraces; i++)
        idw = strlen(p->traces[i].id) > idw ? strlen(p->traces[i].id) : idw;
    for (size_t i = 0; i < p->nvariants; i++)
        vw = strlen(p->variants[i].id) > vw ? strlen(p->variants[i].id) : vw;
    idw = idw > 40 ? 40 : idw;
    vw = vw > 48 ? 48 : vw;
    sweep_put(&ranks, "%-*s  %-*s  %*s  %*s  %9s  %11s  %s\n", (int)idw, "trace", (int)vw,
        "best variant", width, p->rank_by, width, "baseline", "change", "copies/line",
        "classes");

    int rc = 0;
    for (size_t oi = 0; oi < p->ntraces && rc == 0; oi++) {
        size_t tr = order[oi];
        const char *tid = p->traces[tr].id;
        double best = NAN, base = NAN;
        size_t best_v = 0;
        int classes[NCLASSES] = {-1, -1, -1};
        double copies = NAN; /* copies per line, from the first report that measured it */
        bool any_report = false;
        for (size_t v = 0; v < p->nvariants; v++) {
            char *tdir = sweep_path(dir, "runs", tid, NULL);
            char *rpath = tdir ? sweep_path(tdir, p->variants[v].id, NULL, ".json") : NULL;
            char *fpath = tdir ? sweep_path(tdir, p->variants[v].id, NULL, ".failed") : NULL;
            free(tdir);
            if (!rpath || !fpath) {
                free(rpath);
                free(fpath);
                rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
                break;
            }
            struct stat st;
            json_error_t je;
            if (stat(rpath, &st) == 0) {
                json_t *r = json_load_file(rpath, 0, &je);
                if (!r) {
                    rc = gcr_fail(err, GCR_E_FORMAT, "%s:%d: not a report: %s", rpath, je.line,
                                  je.text);
                } else {
                    done++;
                    put_pair(&sum, p, tr, v);
                    put_period(&sum, json_object_get(r, "total"), false);
                    size_t k;
                    json_t *kern;
                    json_array_foreach(json_object_get(r, "kernels"), k, kern) {
                        char id[32];
                        snprintf(id, sizeof id, "%lld",
                                 (long long)json_integer_value(json_object_get(kern, "id")));
                        put_pair(&ker, p, tr, v);
                        put_field(&ker, false, id);
                        const char *name = json_string_value(json_object_get(kern, "name"));
                        put_field(&ker, false, name ? name : "");
                        put_period(&ker, kern, true);
                    }
                    char buf[64];
                    field(rank, json_object_get(r, "total"), false, buf, sizeof buf);
                    if (buf[0]) {
                        double x = strtod(buf, NULL);
                        figure[oi * p->nvariants + v] = x;
                        if (v == 0)
                            base = x;
                        if (isnan(best) || (lower ? x < best : x > best)) {
                            best = x;
                            best_v = v;
                        }
                    }
                    learn_classes(classes, r);
                    const json_t *cp = at(r, "total.analyses.replication.copies_per_line");
                    if (isnan(copies) && json_is_number(cp))
                        copies = json_number_value(cp);
                    any_report = true;
                    json_decref(r);
                }
            } else if (stat(fpath, &st) == 0) {
                json_t *f = json_load_file(fpath, 0, &je);
                failed++;
                put_pair(&fail, p, tr, v);
                char code[16] = "";
                const json_t *ex = json_object_get(f, "exit_status");
                if (json_is_integer(ex))
                    snprintf(code, sizeof code, "%lld", (long long)json_integer_value(ex));
                const char *msg = json_string_value(json_object_get(f, "message"));
                put_field(&fail, false, code);
                put_field(&fail, false, msg ? msg : "");
                sweep_put(&fail, "\r\n");
                sweep_put(&failed_lines, "  %s / %s: %s\n", tid, p->variants[v].id,
                    msg ? msg : "(no message)");
                json_decref(f);
            } else {
                pending++;
            }
            free(rpath);
            free(fpath);
        }
        if (rc != 0)
            break;
        sweep_put(&ranks, "%-*s  ", (int)idw, tid);
        if (isnan(best)) {
            sweep_put(&ranks, "%-*s  %*s  %*s  %9s  ", (int)vw, "-", width, "-", width, "-", "-");
            sweep_put(&ranks, "%11s  ", "-");
        } else {
            sweep_put(&ranks, "%-*s  ", (int)vw, p->variants[best_v].id);
            put_number(&ranks, rank, best, width);
            sweep_put(&ranks, "  ");
            if (isnan(base)) {
                sweep_put(&ranks, "%*s  %9s  ", width, "-", "-");
            } else {
                put_number(&ranks, rank, base, width);
                if (base != 0)
                    sweep_put(&ranks, "  %+8.1f%%  ", 100.0 * (best - base) / base);
                else
                    sweep_put(&ranks, "  %9s  ", best == 0 ? "0" : "-");
            }
            if (isnan(copies))
                sweep_put(&ranks, "%11s  ", "-");
            else
                sweep_put(&ranks, "%11.2f  ", copies);
        }
        if (any_report)
            put_classes(&ranks, classes);
        else
            sweep_put(&ranks, "-");
        sweep_put(&ranks, "\n");
    }

    sweep_put(&txt, "gcreplay sweep: %zu trace%s x %zu variant%s = %zu runs: %zu done, %zu failed",
        p->ntraces, p->ntraces == 1 ? "" : "s", p->nvariants, p->nvariants == 1 ? "" : "s",
        p->ntraces * p->nvariants, done, failed);
    if (pending)
        sweep_put(&txt, ", %zu not run", pending);
    sweep_put(&txt, "\nranked by %s (%s is better); the baseline is %s; change = best vs baseline\n\n",
        p->rank_by, lower ? "lower" : "higher", p->nvariants ? p->variants[0].id : "-");
    sweep_put(&txt, "%s", ranks.s ? ranks.s : "");
    /* Every variant beside the baseline: the change, trace by trace. */
    if (p->nvariants > 1) {
        sweep_put(&matrix, "\n%s of each variant, change from the baseline (%%):\n%-*s", p->rank_by,
            (int)idw, "trace");
        for (size_t v = 0; v < p->nvariants; v++)
            sweep_put(&matrix, "  %7s%zu", "v", v + 1);
        sweep_put(&matrix, "\n");
        for (size_t oi = 0; oi < p->ntraces; oi++) {
            sweep_put(&matrix, "%-*s", (int)idw, p->traces[order[oi]].id);
            double base = figure[oi * p->nvariants];
            for (size_t v = 0; v < p->nvariants; v++) {
                double x = figure[oi * p->nvariants + v];
                if (isnan(x) || isnan(base) || (base == 0 && x != 0))
                    sweep_put(&matrix, "  %8s", "-");
                else
                    sweep_put(&matrix, "  %+8.1f", base == 0 ? 0.0 : 100.0 * (x - base) / base);
            }
            sweep_put(&matrix, "\n");
        }
        sweep_put(&matrix, "\nvariants:\n");
        for (size_t v = 0; v < p->nvariants; v++)
            sweep_put(&matrix, "  v%-3zu %s%s\n", v + 1, p->variants[v].id, v ? "" : " (baseline)");
        sweep_put(&txt, "%s", matrix.s);
    }
    if (failed)
        sweep_put(&txt, "\nfailed (failures.csv):\n%s", failed_lines.s);
    bool oom = sum.failed || ker.failed || fail.failed || txt.failed || ranks.failed ||
               failed_lines.failed || matrix.failed;
    if (rc == 0 && oom)
        rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    static const char *const names[] = {"summary.csv", "kernels.csv", "failures.csv",
                                        "summary.txt"};
    const struct sweep_text *texts[] = {&sum, &ker, &fail, &txt};
    for (size_t i = 0; i < 4 && rc == 0; i++) {
        char *path = sweep_path(dir, names[i], NULL, NULL);
        rc = path ? sweep_write_text(path, texts[i]->s, err)
                  : gcr_fail(err, GCR_E_NOMEM, "out of memory");
        free(path);
    }
    free(sum.s);
    free(ker.s);
    free(fail.s);
    free(ranks.s);
    free(failed_lines.s);
    free(matrix.s);
    free(figure);
    free(order);
    if (rc != 0) {
        free(txt.s);
        return -1;
    }
    *summary = txt.s;
    return (int)failed;
}
