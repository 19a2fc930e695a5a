/* The run's tables for people (gcreplay run --table): what report.c puts in the JSON, a row per
 * kernel and the total, in columns sized to what they hold, the kernel's name last (demangled,
 * cut to the terminal). The columns are defined once, in the legend below and the cell functions
 * beside it. Kernels are added as they end, so only their rows are kept, never their reports. */
#include "report/report.h"

#include <libiberty/demangle.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcreplay/analysis.h"
#include "gcreplay/chips.h"

const char gcr_table_legend[] =
    "Columns of the tables (a row per kernel, then the total):\n"
    "  kernel      the kernel's id in its trace; trace: which trace (with several)\n"
    "  CTAs        thread blocks run\n"
    "  warp-insns  warp instructions, memory or not; mem-insns: memory ones\n"
    "  L1D-acc     L1 data cache accesses: requests of 128-B lines, or of 32-B sectors\n"
    "              under coalescer.granularity \"sector\" (as GPGPU-Sim counts them)\n"
    "  L1D-m%      L1D misses (line and sector) per access; L1D-MPKI: per 1000 warp-insns\n"
    "  L2-acc      L2 accesses: L1 misses, write-throughs and bypasses reaching the slices\n"
    "  L2-m%       L2 misses per access; L2-MPKI: per 1000 warp-insns\n"
    "  DRAM-rd-KB  bytes read from DRAM; DRAM-wr-KB: written back to it (dirty L2 lines\n"
    "              evicted during the run; lines still dirty at the end are not flushed)\n"
    "  name        the kernel's name, demangled, cut to the terminal's width\n"
    "  repl%       (replication analysis) L1 misses to a line another L1 held; copies:\n"
    "              L1 copies per line, averaged over the lines held\n"
    "  RD-med      (reuse_distance) median reuse distance, in lines (sectors in sector mode)\n"
    "  unused%     (line_utilisation) bytes brought into L1s and never read\n"
    "  L2-inter%   (locality) L2 read hits on lines another SM brought in\n"
    "  classes     R replication-sensitive, C cache-sensitive, M memory-intensive; '-' not,\n"
    "              '?' not known (R needs the replication analysis); rules in the report\n"
    "  SAC         (several chips) the LLC organisation SAC's model picks for the kernel\n"
    "  cycles      (--timing) estimated cycles; IPC: warp instructions per cycle; limit:\n"
    "              the busiest resource, limit%: its use; issue%: issue slots used;\n"
    "              L1-lat, L2-lat, DRAM-lat: mean cycles of a request served there;\n"
    "              MSHR-st: requests that waited for a free L1 MSHR; L1-bkc, L1-rsv:\n"
    "              cycles L1 accesses waited for their bank (bank conflicts) and for room\n"
    "              in the L1's miss queue (reservation failures), as Accel-Sim counts them\n";

/* ---- A table of text cells ---------------------------------------------------------------- */

enum { MAX_COLUMNS = 40, MAX_CELL = 32 };

struct tab {
    const char *title; /* a line before the header, or NULL */
    size_t ncols;
    const char *heads[MAX_COLUMNS];
    bool left[MAX_COLUMNS];  /* text columns align left, numbers right */
    char *cells;             /* nrows x ncols x MAX_CELL */
    char **names;            /* per row: the last column, any length */
    size_t nrows, cap;
    bool failed;
};

static void tab_column(struct tab *t, const char *head, bool left)
{
    if (t->ncols < MAX_COLUMNS) {
        t->heads[t->ncols] = head;
        t->left[t->ncols++] = left;
    }
}

/* A new row: its cells, to be filled with cell(). NULL when out of memory. */
static char *tab_row(struct tab *t, const char *name)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char *cells = realloc(t->cells, cap * t->ncols * MAX_CELL);
        char **names = cells ? realloc(t->names, cap * sizeof *names) : NULL;
        if (cells)
            t->cells = cells;
        if (!names) {
            t->failed = true;
            return NULL;
        }
        t->names = names;
        t->cap = cap;
    }
    char *row = t->cells + t->nrows * t->ncols * MAX_CELL;
    memset(row, 0, t->ncols * MAX_CELL);
    if (!(t->names[t->nrows] = strdup(name ? name : ""))) {
        t->failed = true;
        return NULL;
    }
    t->nrows++;
    return row;
}

static void cell(char *row, size_t col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cell(char *row, size_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row + col * MAX_CELL, MAX_CELL, fmt, ap);
    va_end(ap);
}

static void tab_free(struct tab *t)
{
    for (size_t i = 0; i < t->nrows; i++)
        free(t->names[i]);
    free(t->names);
    free(t->cells);
    t->names = NULL;
    t->cells = NULL;
    t->nrows = t->cap = 0;
}

/* Prints the table: columns as wide as their widest cell, two spaces apart, the name last and
 * cut so that a line is at most `width` characters (0: not cut). */
static void tab_print(const struct tab *t, unsigned width, FILE *out)
{
    if (t->title)
        fprintf(out, "%s\n", t->title);
    size_t w[MAX_COLUMNS], line = 0;
    for (size_t c = 0; c < t->ncols; c++) {
        w[c] = strlen(t->heads[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t n = strlen(t->cells + (r * t->ncols + c) * MAX_CELL);
            w[c] = n > w[c] ? n : w[c];
        }
        line += w[c] + 2;
    }
    /* The name keeps at least 16 characters, whatever the terminal. */
    size_t room = width > line + 16 ? width - line : width ? 16 : SIZE_MAX;
    char buf[4096];
    for (size_t r = 0; r <= t->nrows; r++) {
        size_t used = 0;
        for (size_t c = 0; c < t->ncols && used < sizeof buf; c++) {
            const char *v = r ? t->cells + ((r - 1) * t->ncols + c) * MAX_CELL : t->heads[c];
            used += (size_t)snprintf(buf + used, sizeof buf - used,
                                     t->left[c] ? "%-*s  " : "%*s  ", (int)w[c], v);
        }
        used = used < sizeof buf ? used : sizeof buf - 1;
        const char *name = r ? t->names[r - 1] : "name";
        size_t n = strlen(name);
        if (n > room)
            snprintf(buf + used, sizeof buf - used, "%.*s~", (int)(room - 1), name);
        else
            snprintf(buf + used, sizeof buf - used, "%s", name);
        /* No blanks at the end of a line (the total has no name). */
        size_t end = strlen(buf);
        while (end && buf[end - 1] == ' ')
            end--;
        fprintf(out, "%.*s\n", (int)end, buf);
    }
}

/* ---- Figures of a period (a kernel's report, or the total) -------------------------------- */

static const json_t *at(const json_t *j, const char *a, const char *b)
{
    j = json_object_get(j, a);
    return b ? json_object_get(j, b) : j;
}

static long long integer(const json_t *j, const char *a, const char *b)
{
    return (long long)json_integer_value(at(j, a, b));
}

/* A rate as a percentage, "-" when there is none (no accesses). */
static void put_pct(char *row, size_t col, const json_t *v)
{
    if (json_is_number(v))
        cell(row, col, "%.2f", 100.0 * json_number_value(v));
    else
        cell(row, col, "-");
}

static void put_num(char *row, size_t col, const json_t *v, const char *fmt)
{
    if (json_is_number(v))
        cell(row, col, fmt, json_number_value(v));
    else
        cell(row, col, "-");
}

/* The classes as flags: R, C, M a member, '-' not, '?' not known. */
static void put_classes(char *row, size_t col, const json_t *period)
{
    static const struct {
        const char *name;
        char flag;
    } classes[] = {{"replication_sensitive", 'R'}, {"cache_sensitive", 'C'},
                   {"memory_intensive", 'M'}};
    char flags[4];
    for (size_t i = 0; i < 3; i++) {
        const json_t *m = at(at(period, "classes", classes[i].name), "member", NULL);
        flags[i] = json_is_true(m) ? classes[i].flag : json_is_false(m) ? '-' : '?';
    }
    flags[3] = '\0';
    cell(row, col, "%s", flags);
}

/* SAC's choice for a kernel (its whole-kernel scope) or the run. */
static void put_sac(char *row, size_t col, const json_t *period, bool total)
{
    const json_t *sac = at(at(period, "multichip", "sac"), total ? "run" : "kernel", NULL);
    const char *choice = json_string_value(json_object_get(sac, "choice"));
    cell(row, col, "%s", !choice ? "-" : !strcmp(choice, "sm_side") ? "sm" : "memory");
}

/* The busiest resource's use: the issue slots or a resource's largest utilisation. */
static double limit_use(const json_t *t)
{
    double use = json_real_value(json_object_get(t, "issue_utilisation"));
    const char *key;
    const json_t *r;
    json_object_foreach((json_t *)json_object_get(t, "resources"), key, r) {
        double u = json_real_value(json_object_get(r, "utilisation_max"));
        use = u > use ? u : use;
    }
    return use;
}

static void put_latency(char *row, size_t col, const json_t *t, const char *level)
{
    put_num(row, col, at(at(t, "memory_latency", level), "mean_cycles", NULL), "%.0f");
}

/* ---- The tables --------------------------------------------------------------------------- */

struct headline_analysis {
    const struct gcr_analysis_ops *ops;
    size_t nlabels;
};

struct gcr_table {
    enum gcr_table_style style;
    bool trace_column, timing, chips;
    struct headline_analysis analyses[16];
    size_t nanalyses;
    struct tab main, findings, timed, multichip, brief;
};

/* The first columns of every table: the kernel, and its trace when there are several. */
static void id_columns(const struct gcr_table *t, struct tab *tab)
{
    tab_column(tab, "kernel", false);
    if (t->trace_column)
        tab_column(tab, "trace", true);
}

static size_t put_id(const struct gcr_table *t, char *row, const char *id, const char *trace)
{
    cell(row, 0, "%s", id);
    if (t->trace_column)
        cell(row, 1, "%s", trace ? trace : "");
    return t->trace_column ? 2 : 1;
}

static size_t put_headlines(const struct gcr_table *t, char *row, size_t col,
                            const json_t *period)
{
    for (size_t a = 0; a < t->nanalyses; a++) {
        char text[GCR_HEADLINE_MAX][GCR_HEADLINE_TEXT];
        for (size_t i = 0; i < GCR_HEADLINE_MAX; i++)
            snprintf(text[i], sizeof text[i], "-");
        const json_t *section = at(period, "analyses", t->analyses[a].ops->name);
        if (section)
            t->analyses[a].ops->headline(section, text);
        for (size_t i = 0; i < t->analyses[a].nlabels; i++)
            cell(row, col++, "%s", text[i]);
    }
    return col;
}

static void add_rows(struct gcr_table *t, const json_t *p, const char *id, const char *trace,
                     const char *name, bool total)
{
    const json_t *l1 = json_object_get(p, "L1D"), *l2 = json_object_get(p, "L2");
    const json_t *tr = json_object_get(p, "traffic"), *tm = json_object_get(p, "timing");
    char *row;
    size_t c;
    if (t->style == GCR_TABLE_BRIEF) {
        if (!(row = tab_row(&t->brief, name)))
            return;
        c = put_id(t, row, id, trace);
        cell(row, c++, "%lld", integer(p, "instructions", "warp_total"));
        put_pct(row, c++, json_object_get(l1, "miss_rate"));
        cell(row, c++, "%lld", integer(l2, "accesses", NULL));
        put_pct(row, c++, json_object_get(l2, "miss_rate"));
        cell(row, c++, "%.1f", (double)integer(tr, "dram_read_bytes", NULL) / 1024.0);
        c = put_headlines(t, row, c, p);
        put_classes(row, c++, p);
        if (t->timing) {
            cell(row, c++, "%lld", integer(tm, "cycles", NULL));
            put_num(row, c++, json_object_get(tm, "ipc_warp"), "%.2f");
            const char *limit = json_string_value(json_object_get(tm, "limiting_resource"));
            cell(row, c++, "%s", limit ? limit : "-");
        }
        if (t->chips)
            put_sac(row, c++, p, total);
        return;
    }
    if ((row = tab_row(&t->main, name))) {
        c = put_id(t, row, id, trace);
        cell(row, c++, "%lld", integer(p, "ctas", NULL));
        cell(row, c++, "%lld", integer(p, "instructions", "warp_total"));
        cell(row, c++, "%lld", integer(p, "instructions", "memory"));
        cell(row, c++, "%lld", integer(l1, "accesses", NULL));
        put_pct(row, c++, json_object_get(l1, "miss_rate"));
        put_num(row, c++, json_object_get(l1, "mpki"), "%.2f");
        cell(row, c++, "%lld", integer(l2, "accesses", NULL));
        put_pct(row, c++, json_object_get(l2, "miss_rate"));
        put_num(row, c++, json_object_get(l2, "mpki"), "%.2f");
        cell(row, c++, "%.1f", (double)integer(tr, "dram_read_bytes", NULL) / 1024.0);
        cell(row, c++, "%.1f", (double)integer(tr, "dram_write_bytes", NULL) / 1024.0);
    }
    if ((row = tab_row(&t->findings, name))) {
        c = put_headlines(t, row, put_id(t, row, id, trace), p);
        put_classes(row, c++, p);
        if (t->chips)
            put_sac(row, c++, p, total);
    }
    if (t->timing && tm && (row = tab_row(&t->timed, name))) {
        c = put_id(t, row, id, trace);
        cell(row, c++, "%lld", integer(tm, "cycles", NULL));
        put_num(row, c++, json_object_get(tm, "ipc_warp"), "%.2f");
        cell(row, c++, "%.1f", 100.0 * json_real_value(json_object_get(tm, "issue_utilisation")));
        const char *limit = json_string_value(json_object_get(tm, "limiting_resource"));
        cell(row, c++, "%s", limit ? limit : "-");
        cell(row, c++, "%.1f", 100.0 * limit_use(tm));
        put_latency(row, c++, tm, "l1_hit");
        put_latency(row, c++, tm, "l2_hit");
        put_latency(row, c++, tm, "dram");
        cell(row, c++, "%lld", integer(tm, "mshr_stalls", NULL));
        cell(row, c++, "%lld", integer(tm, "l1_bank_conflicts", NULL));
        cell(row, c++, "%lld", integer(tm, "l1_reservation_fails", NULL));
    }
    const json_t *mc = json_object_get(p, "multichip");
    for (int o = 0; t->chips && mc && o < GCR_LLC_ORG_COUNT; o++) {
        const char *llc = gcr_llc_org_name((enum gcr_llc_org)o);
        const json_t *g = json_object_get(mc, llc);
        if (!(row = tab_row(&t->multichip, o ? "" : name)))
            return;
        c = put_id(t, row, o ? "" : id, o ? "" : trace);
        const char *role = json_string_value(json_object_get(g, "role"));
        cell(row, c++, "%s", llc);
        cell(row, c++, "%s", role ? role : "-");
        cell(row, c++, "%lld", integer(g, "local_requests", NULL));
        cell(row, c++, "%lld", integer(g, "remote_requests", NULL));
        put_pct(row, c++, json_object_get(g, "llc_hit_rate"));
        put_num(row, c++, json_object_get(g, "lsu"), "%.3f");
        bool replayed = json_is_true(json_object_get(g, "replayed"));
        static const char *const kb[] = {"link_bytes", "dram_read_bytes", "dram_write_bytes"};
        for (size_t k = 0; k < 3; k++) {
            if (replayed)
                cell(row, c++, "%.1f", (double)integer(g, kb[k], NULL) / 1024.0);
            else
                cell(row, c++, "-");
        }
    }
}

int gcr_table_create(struct gcr_table **out, const json_t *head, enum gcr_table_style style,
                     bool trace_column)
{
    struct gcr_table *t = calloc(1, sizeof *t);
    if (!(*out = t))
        return -1;
    const json_t *cfg = json_object_get(head, "config");
    t->style = style;
    t->trace_column = trace_column;
    t->timing = json_is_true(at(cfg, "timing", "enabled"));
    t->chips = integer(at(cfg, "chips", NULL), "count", NULL) > 1;
    const json_t *enabled = json_object_get(cfg, "analyses");
    for (size_t i = 0; gcr_analyses[i] && t->nanalyses < 16; i++) {
        const struct gcr_analysis_ops *ops = gcr_analyses[i];
        if (!ops->headline || !ops->headline_labels || !json_object_get(enabled, ops->name))
            continue;
        size_t n = 0;
        while (n < GCR_HEADLINE_MAX && ops->headline_labels[n])
            n++;
        t->analyses[t->nanalyses++] = (struct headline_analysis){ops, n};
    }

    struct tab *b = &t->brief;
    id_columns(t, b);
    tab_column(b, "warp-insns", false);
    tab_column(b, "L1D-m%", false);
    tab_column(b, "L2-acc", false);
    tab_column(b, "L2-m%", false);
    tab_column(b, "DRAM-rd-KB", false);

    struct tab *m = &t->main;
    id_columns(t, m);
    static const char *const main_heads[] = {"CTAs", "warp-insns", "mem-insns", "L1D-acc",
                                             "L1D-m%", "L1D-MPKI", "L2-acc", "L2-m%",
                                             "L2-MPKI", "DRAM-rd-KB", "DRAM-wr-KB"};
    for (size_t i = 0; i < sizeof main_heads / sizeof main_heads[0]; i++)
        tab_column(m, main_heads[i], false);

    struct tab *f = &t->findings;
    f->title = "analyses and classes";
    id_columns(t, f);
    for (size_t a = 0; a < t->nanalyses; a++)
        for (size_t i = 0; i < t->analyses[a].nlabels; i++) {
            tab_column(f, t->analyses[a].ops->headline_labels[i], false);
            tab_column(b, t->analyses[a].ops->headline_labels[i], false);
        }
    tab_column(f, "classes", true);
    tab_column(b, "classes", true);
    if (t->timing) {
        tab_column(b, "cycles", false);
        tab_column(b, "IPC", false);
        tab_column(b, "limit", true);
    }
    if (t->chips) {
        tab_column(f, "SAC", true);
        tab_column(b, "SAC", true);
    }

    struct tab *tm = &t->timed;
    tm->title = "timing";
    id_columns(t, tm);
    static const char *const timing_heads[] = {"cycles", "IPC", "issue%", "limit", "limit%",
                                               "L1-lat", "L2-lat", "DRAM-lat", "MSHR-st",
                                               "L1-bkc", "L1-rsv"};
    for (size_t i = 0; i < sizeof timing_heads / sizeof timing_heads[0]; i++)
        tab_column(tm, timing_heads[i], !strcmp(timing_heads[i], "limit"));

    struct tab *mc = &t->multichip;
    id_columns(t, mc);
    static const char *const mc_heads[] = {"llc", "role", "local-req", "remote-req", "hit%",
                                           "LSU", "link-KB", "DRAM-rd-KB", "DRAM-wr-KB"};
    for (size_t i = 0; i < sizeof mc_heads / sizeof mc_heads[0]; i++)
        tab_column(mc, mc_heads[i], i < 2);
    return 0;
}

/* The kernel's name as people read it: demangled when it is a C++ name. */
static char *readable_name(const char *name)
{
    char *d = name ? cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI) : NULL;
    return d ? d : strdup(name ? name : "");
}

int gcr_table_add_kernel(struct gcr_table *t, const json_t *kernel, const char *trace)
{
    if (t->style == GCR_TABLE_NONE)
        return 0;
    char id[24];
    snprintf(id, sizeof id, "%lld", integer(kernel, "id", NULL));
    char *name = readable_name(json_string_value(json_object_get(kernel, "name")));
    if (!name)
        return -1;
    add_rows(t, kernel, id, trace, name, false);
    free(name);
    return t->main.failed || t->findings.failed || t->timed.failed || t->multichip.failed ||
                   t->brief.failed
               ? -1
               : 0;
}

/* An L1 organisation's key figures: the scalars of total.L1D.<org>.summary
 * (src/orgs/README.md), a few per line. */
static void org_summary(FILE *out, const json_t *report)
{
    const char *org = json_string_value(at(at(report, "config", "l1d"), "organization", NULL));
    const json_t *summary = at(at(at(report, "total", "L1D"), org ? org : "", NULL), "summary",
                               NULL);
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

void gcr_table_print(struct gcr_table *t, const json_t *report, unsigned width, FILE *out)
{
    if (t->style == GCR_TABLE_NONE)
        return;
    const json_t *cfg = json_object_get(report, "config");
    const json_t *total = json_object_get(report, "total");
    fprintf(out, "gcreplay %s  config: %s  L1D: %s\n",
            json_string_value(at(report, "gcreplay", "version")),
            json_string_value(json_object_get(cfg, "name")),
            json_string_value(at(cfg, "l1d", "organization")));
    add_rows(t, total, "total", "", "", true);
    if (t->style == GCR_TABLE_BRIEF) {
        tab_print(&t->brief, width, out);
        return;
    }
    tab_print(&t->main, width, out);
    org_summary(out, report);
    tab_print(&t->findings, width, out);
    if (t->timing && json_object_get(total, "timing"))
        tab_print(&t->timed, width, out);
    if (t->chips && json_object_get(total, "multichip")) {
        fprintf(out, "LLC organisations on %lld chips (role l2: the L2 of the table above)\n",
                integer(json_object_get(total, "multichip"), "chips", NULL));
        tab_print(&t->multichip, width, out);
    }
}

void gcr_table_destroy(struct gcr_table *t)
{
    if (!t)
        return;
    tab_free(&t->main);
    tab_free(&t->findings);
    tab_free(&t->timed);
    tab_free(&t->multichip);
    tab_free(&t->brief);
    free(t);
}

bool gcr_table_style_parse(const char *s, enum gcr_table_style *out)
{
    static const char *const names[] = {"full", "brief", "none"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *out = (enum gcr_table_style)i;
            return true;
        }
    return false;
}

int gcr_report_print_table(const json_t *report, FILE *out)
{
    struct gcr_table *t;
    if (gcr_table_create(&t, report, GCR_TABLE_FULL, false) != 0)
        return -1;
    size_t i;
    const json_t *k;
    int rc = 0;
    json_array_foreach(json_object_get(report, "kernels"), i, k)
        if (rc == 0)
            rc = gcr_table_add_kernel(t, k, NULL);
    if (rc == 0)
        gcr_table_print(t, report, 0, out);
    gcr_table_destroy(t);
    return rc;
}

/* ---- gcreplay sac's table ----------------------------------------------------------------- */

/* One scope's row; the timed cycles of both organisations (gcreplay sac
 * --timing) go on the kernel row, as they are a whole kernel's. */
static void sac_row(struct tab *tab, const char *id, const char *name, const char *scope,
                    const json_t *s, const json_t *sac, bool cycles)
{
    char *row = tab_row(tab, name);
    if (!row)
        return;
    size_t c = 0;
    cell(row, c++, "%s", id);
    cell(row, c++, "%s", scope);
    cell(row, c++, "%lld", integer(s, "requests", NULL));
    put_pct(row, c++, json_object_get(s, "r_local"));
    put_pct(row, c++, json_object_get(s, "memory_side_hit_rate"));
    put_pct(row, c++, json_object_get(s, "replayed_sm_hit_rate"));
    put_pct(row, c++, json_object_get(s, "crd_sm_hit_rate"));
    put_num(row, c++, json_object_get(s, "lsu_memory_side"), "%.3f");
    put_num(row, c++, json_object_get(s, "lsu_sm_side"), "%.3f");
    put_num(row, c++, at(s, "eab_memory_side", "total"), "%.1f");
    put_num(row, c++, at(s, "eab_sm_side", "total"), "%.1f");
    const char *src = json_string_value(json_object_get(s, "sm_hit_source"));
    const char *choice = json_string_value(json_object_get(s, "choice"));
    const json_t *winner = json_object_get(sac, "runtime_winner");
    const json_t *rt = json_object_get(sac, "runtime");
    cell(row, c++, "%s", src ? src : "-");
    cell(row, c++, "%s", choice ? choice : "-");
    cell(row, c++, "%s", json_is_string(winner) ? json_string_value(winner) : "-");
    if (cycles && rt) {
        cell(row, c++, "%lld", integer(json_object_get(rt, "memory_side"), "cycles", NULL));
        cell(row, c++, "%lld", integer(json_object_get(rt, "sm_side"), "cycles", NULL));
    } else {
        cell(row, c++, "-");
        cell(row, c++, "-");
    }
}

int gcr_report_print_sac(const json_t *report, unsigned width, FILE *out)
{
    const json_t *cfg = json_object_get(report, "config");
    const json_t *chips = json_object_get(cfg, "chips");
    const json_t *eab = json_object_get(chips, "eab");
    size_t i;
    const json_t *t;
    fprintf(out, "config: %s  chips: %lld  theta: %.3g  window: %lld LLC requests\n",
            json_string_value(json_object_get(cfg, "name")), integer(chips, "count", NULL),
            json_number_value(json_object_get(eab, "theta")),
            integer(eab, "profile_requests", NULL));
    json_array_foreach(json_object_get(report, "traces"), i, t)
        fprintf(out, "trace: %s\n", json_string_value(json_object_get(t, "path")));
    struct tab tab = {0};
    static const char *const heads[] = {"kernel", "scope", "requests", "Rloc%", "hitM%",
                                        "hitS%", "crdS%", "LSU-M", "LSU-S", "EAB-M", "EAB-S",
                                        "S-from", "choice", "runtime", "cycles-M", "cycles-S"};
    for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++)
        tab_column(&tab, heads[h], h == 1 || (h >= 11 && h <= 13));
    const json_t *k;
    json_array_foreach(json_object_get(report, "kernels"), i, k) {
        char id[24];
        snprintf(id, sizeof id, "%lld", integer(k, "id", NULL));
        const json_t *sac = at(k, "multichip", "sac");
        char *name = readable_name(json_string_value(json_object_get(k, "name")));
        if (!name) {
            tab.failed = true;
            break;
        }
        sac_row(&tab, id, name, "window", json_object_get(sac, "window"), sac, false);
        sac_row(&tab, "", "", "kernel", json_object_get(sac, "kernel"), sac, true);
        free(name);
    }
    int rc = tab.failed ? -1 : 0;
    if (rc == 0)
        tab_print(&tab, width, out);
    tab_free(&tab);
    return rc;
}

/* ---- Variants side by side (gcreplay run with several configs) ---------------------------- */

enum { VARIANT_ROWS = 96 };

/* The figures of the variants' totals: a row per figure, a cell per variant. */
struct variant_rows {
    const char *label[VARIANT_ROWS];
    char *cells; /* VARIANT_ROWS x n x MAX_CELL */
    size_t nrows, n;
};

/* A new row labelled `label`: its first cell (NULL when the rows are full). */
static char *variant_row(struct variant_rows *r, const char *label)
{
    if (r->nrows == VARIANT_ROWS)
        return NULL;
    r->label[r->nrows] = label;
    return r->cells + r->nrows++ * r->n * MAX_CELL;
}

/* Prints the rows in blocks of as many variants as fit in `width` characters (0: all). */
static void variant_rows_print(const struct variant_rows *r, const char *const *names,
                               unsigned width, FILE *out)
{
    size_t lw = strlen("variant");
    for (size_t i = 0; i < r->nrows; i++)
        lw = strlen(r->label[i]) > lw ? strlen(r->label[i]) : lw;
    for (size_t first = 0; first < r->n;) {
        size_t last = first, line = lw;
        for (; last < r->n; last++) {
            size_t w = strlen(names[last]);
            for (size_t i = 0; i < r->nrows; i++) {
                size_t k = strlen(r->cells + (i * r->n + last) * MAX_CELL);
                w = k > w ? k : w;
            }
            if (width && last > first && line + 2 + w > width)
                break;
            line += 2 + w;
        }
        if (first)
            fputc('\n', out);
        for (size_t i = 0; i <= r->nrows; i++) {
            fprintf(out, "%-*s", (int)lw, i ? r->label[i - 1] : "variant");
            for (size_t v = first; v < last; v++) {
                size_t w = strlen(names[v]);
                for (size_t k = 0; k < r->nrows; k++) {
                    size_t m = strlen(r->cells + (k * r->n + v) * MAX_CELL);
                    w = m > w ? m : w;
                }
                fprintf(out, "  %*s", (int)w,
                        i ? r->cells + ((i - 1) * r->n + v) * MAX_CELL : names[v]);
            }
            fputc('\n', out);
        }
        first = last;
    }
}

int gcr_table_print_variants(const json_t *const *reports, const char *const *names, size_t n,
                             unsigned width, FILE *out)
{
    struct variant_rows r = {.n = n, .cells = calloc(VARIANT_ROWS * (n ? n : 1), MAX_CELL)};
    if (!r.cells)
        return -1;
    bool timing = false, chips = false;
    const struct gcr_analysis_ops *shown[16];
    size_t nshown = 0;
    for (size_t i = 0; gcr_analyses[i] && nshown < 16; i++) {
        const struct gcr_analysis_ops *ops = gcr_analyses[i];
        bool used = false;
        for (size_t v = 0; v < n && ops->headline && ops->headline_labels; v++)
            used |= json_object_get(at(reports[v], "config", "analyses"), ops->name) != NULL;
        if (used)
            shown[nshown++] = ops;
    }
    for (size_t v = 0; v < n; v++) {
        timing |= json_object_get(at(reports[v], "total", NULL), "timing") != NULL;
        chips |= json_object_get(at(reports[v], "total", NULL), "multichip") != NULL;
    }
    char *row;
    if ((row = variant_row(&r, "pass")))
        for (size_t v = 0; v < n; v++)
            cell(row, v, "%lld", integer(reports[v], "variant", "pass"));
    if ((row = variant_row(&r, "L1D")))
        for (size_t v = 0; v < n; v++)
            cell(row, v, "%s", json_string_value(at(at(reports[v], "config", "l1d"),
                                                    "organization", NULL)));
    static const char *const heads[] = {"CTAs", "warp-insns", "mem-insns", "L1D-acc",
                                        "L1D-m%", "L1D-MPKI", "L2-acc", "L2-m%",
                                        "L2-MPKI", "DRAM-rd-KB", "DRAM-wr-KB", "classes"};
    for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++) {
        if (!(row = variant_row(&r, heads[h])))
            break;
        for (size_t v = 0; v < n; v++) {
            const json_t *p = json_object_get(reports[v], "total");
            const json_t *l1 = json_object_get(p, "L1D"), *l2 = json_object_get(p, "L2");
            const json_t *tr = json_object_get(p, "traffic");
            switch (h) {
            case 0: cell(row, v, "%lld", integer(p, "ctas", NULL)); break;
            case 1: cell(row, v, "%lld", integer(p, "instructions", "warp_total")); break;
            case 2: cell(row, v, "%lld", integer(p, "instructions", "memory")); break;
            case 3: cell(row, v, "%lld", integer(l1, "accesses", NULL)); break;
            case 4: put_pct(row, v, json_object_get(l1, "miss_rate")); break;
            case 5: put_num(row, v, json_object_get(l1, "mpki"), "%.2f"); break;
            case 6: cell(row, v, "%lld", integer(l2, "accesses", NULL)); break;
            case 7: put_pct(row, v, json_object_get(l2, "miss_rate")); break;
            case 8: put_num(row, v, json_object_get(l2, "mpki"), "%.2f"); break;
            case 9:
                cell(row, v, "%.1f", (double)integer(tr, "dram_read_bytes", NULL) / 1024.0);
                break;
            case 10:
                cell(row, v, "%.1f", (double)integer(tr, "dram_write_bytes", NULL) / 1024.0);
                break;
            default: put_classes(row, v, p); break;
            }
        }
    }
    /* Each analysis's headline figures, '-' for a variant that did not run it. */
    for (size_t a = 0; a < nshown; a++)
        for (size_t i = 0; i < GCR_HEADLINE_MAX && shown[a]->headline_labels[i]; i++) {
            if (!(row = variant_row(&r, shown[a]->headline_labels[i])))
                break;
            for (size_t v = 0; v < n; v++) {
                char text[GCR_HEADLINE_MAX][GCR_HEADLINE_TEXT];
                for (size_t k = 0; k < GCR_HEADLINE_MAX; k++)
                    snprintf(text[k], sizeof text[k], "-");
                const json_t *section = at(at(reports[v], "total", "analyses"), shown[a]->name,
                                           NULL);
                if (section)
                    shown[a]->headline(section, text);
                cell(row, v, "%s", text[i]);
            }
        }
    if (timing && (row = variant_row(&r, "cycles")))
        for (size_t v = 0; v < n; v++) {
            const json_t *tm = at(reports[v], "total", "timing");
            if (tm)
                cell(row, v, "%lld", integer(tm, "cycles", NULL));
            else
                cell(row, v, "-");
        }
    if (timing && (row = variant_row(&r, "IPC")))
        for (size_t v = 0; v < n; v++)
            put_num(row, v, json_object_get(at(reports[v], "total", "timing"), "ipc_warp"),
                    "%.2f");
    if (chips && (row = variant_row(&r, "SAC")))
        for (size_t v = 0; v < n; v++)
            put_sac(row, v, json_object_get(reports[v], "total"), true);
    fprintf(out, "gcreplay %s  %zu variants, totals (pass: the trace pass that replayed it)\n",
            json_string_value(at(reports[0], "gcreplay", "version")), n);
    variant_rows_print(&r, names, width, out);
    free(r.cells);
    return 0;
}
