/* The plan of a sweep: which traces, which variants (sweep.h). */
#include "sweep/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/atomic_file.h"
#include "gcreplay/config.h"
#include "gcreplay/replay.h"
#include "gcreplay/trace.h"

/* ---- Small helpers ------------------------------------------------------------------------ */

char *sweep_path(const char *dir, const char *a, const char *b, const char *ext)
{
    size_t n = strlen(dir) + strlen(a) + (b ? strlen(b) : 0) + (ext ? strlen(ext) : 0) + 4;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s%s%s%s", dir, a, b ? "/" : "", b ? b : "", ext ? ext : "");
    return p;
}

int sweep_mkdir(const char *path, struct gcr_err *err)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return 0;
        return gcr_fail(err, GCR_E_IO, "%s: exists and is not a directory", path);
    }
    return gcr_fail(err, GCR_E_IO, "%s: cannot create the directory: %s", path, strerror(errno));
}

int sweep_write_text(const char *path, const char *text, struct gcr_err *err)
{
    struct gcr_atomic_file f;
    if (gcr_atomic_file_open(&f, path, err) != 0)
        return -1;
    if (fputs(text, f.f) == EOF) {
        gcr_fail(err, GCR_E_IO, "%s: write failed: %s", path, strerror(errno));
        gcr_atomic_file_abort(&f);
        return -1;
    }
    return gcr_atomic_file_commit(&f, err);
}

int sweep_write_json(const char *path, const json_t *j, size_t flags, struct gcr_err *err)
{
    char *text = json_dumps(j, flags | JSON_REAL_PRECISION(10));
    if (!text)
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    size_t n = strlen(text);
    char *line = realloc(text, n + 2);
    if (!line) {
        free(text);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }
    memcpy(line + n, "\n", 2);
    int rc = sweep_write_text(path, line, err);
    free(line);
    return rc;
}

void sweep_put(struct sweep_text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap ? 2 * t->cap : 4096) + (size_t)n;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

/* An id safe as a file name and in a CSV: letters, digits and ._+=,- kept, the rest '_'. */
static char *safe_id(const char *s, size_t n)
{
    char *id = malloc(n + 1);
    if (!id)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  strchr("._+=,-", c);
        id[i] = ok && !(i == 0 && c == '.') ? c : '_';
    }
    id[n] = '\0';
    return id;
}

/* Makes ids[i] unique by appending ~2, ~3 ... to later repeats (the order is the plan's). */
static int make_unique(char **ids, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        unsigned k = 1;
        for (bool clash = true; clash;) {
            clash = false;
            for (size_t j = 0; j < i && !clash; j++)
                clash = !strcmp(ids[i], ids[j]);
            if (!clash)
                break;
            size_t len = strlen(ids[i]);
            char *again = malloc(len + 16);
            if (!again)
                return -1;
            /* Strip a suffix of our own before adding the next one. */
            char *tilde = strrchr(ids[i], '~');
            size_t base = tilde && k > 1 ? (size_t)(tilde - ids[i]) : len;
            snprintf(again, len + 16, "%.*s~%u", (int)base, ids[i], ++k);
            free(ids[i]);
            ids[i] = again;
        }
    }
    return 0;
}

/* ---- Traces ------------------------------------------------------------------------------- */

struct found {
    char **paths, **ids;
    size_t n, cap;
};

static int found_add(struct found *f, const char *path, const char *id_text, size_t id_len)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        char **p = realloc(f->paths, cap * sizeof *p), **q;
        if (!p)
            return -1;
        f->paths = p;
        if (!(q = realloc(f->ids, cap * sizeof *q)))
            return -1;
        f->ids = q;
        f->cap = cap;
    }
    if (!(f->paths[f->n] = strdup(path)))
        return -1;
    if (!(f->ids[f->n] = safe_id(id_text, id_len))) {
        free(f->paths[f->n]);
        return -1;
    }
    f->n++;
    return 0;
}

/* A trace's id from its name: the file name without the extensions traces have. */
static size_t id_length(const char *name)
{
    static const char *const exts[] = {".xz", ".gz", ".zst", ".traceg", ".gcrt", ".txt", ".g"};
    size_t n = strlen(name);
    for (bool cut = true; cut;) {
        cut = false;
        for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
            size_t k = strlen(exts[i]);
            if (n > k && !strncmp(name + n - k, exts[i], k)) {
                n -= k;
                cut = true;
            }
        }
    }
    return n;
}

static bool has_list(const char *dir)
{
    char *list = sweep_path(dir, "kernelslist.g", NULL, NULL);
    struct stat st;
    bool yes = list && stat(list, &st) == 0 && S_ISREG(st.st_mode);
    free(list);
    return yes;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Searches dir (not itself a trace) for traces, in name order; rel is the id prefix. */
static int search(struct found *f, const char *dir, const char *rel, const char *out_dir,
                  int depth, struct gcr_err *err)
{
    if (depth > 32)
        return gcr_fail(err, GCR_E_IO, "%s: folders nested more than 32 deep", dir);
    DIR *d = opendir(dir);
    if (!d)
        return gcr_fail(err, GCR_E_IO, "%s: cannot read the folder: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') /* ., .., and hidden files */
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **p = realloc(names, cap * sizeof *p);
            if (!p) {
                rc = -1;
                break;
            }
            names = p;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(d);
    if (rc == 0)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *path = sweep_path(dir, names[i], NULL, NULL);
        size_t rl = strlen(rel);
        char *id = malloc(rl + strlen(names[i]) + 2);
        struct stat st;
        if (!path || !id) {
            rc = -1;
        } else if (snprintf(id, rl + strlen(names[i]) + 2, "%s%s%s", rel, rl ? "." : "",
                            names[i]) < 0 ||
                   stat(path, &st) != 0 || same_file(path, out_dir)) {
            /* a dangling link, or the sweep's own output: not a trace */
        } else if (S_ISDIR(st.st_mode)) {
            rc = has_list(path) ? found_add(f, path, id, strlen(id))
                                : search(f, path, id, out_dir, depth + 1, err);
        } else if (S_ISREG(st.st_mode) && gcr_trace_detect(path)) {
            /* Kernel files of a list belong to its folder, found above as one trace. */
            size_t base = strlen(id) - strlen(names[i]);
            rc = found_add(f, path, id, base + id_length(names[i]));
        }
        free(path);
        free(id);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc != 0 && err && err->status == GCR_OK)
        gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return rc;
}

static int find_traces(struct found *f, const struct sweep_request *rq, struct gcr_err *err)
{
    for (size_t i = 0; i < rq->ntraces; i++) {
        const char *t = rq->traces[i];
        struct stat st;
        if (stat(t, &st) != 0)
            return gcr_fail(err, GCR_E_IO, "%s: %s", t, strerror(errno));
        /* A trace named on the command line is its own id: its name. */
        size_t len = strlen(t);
        while (len > 1 && t[len - 1] == '/')
            len--;
        const char *name = t;
        for (size_t k = 0; k < len; k++)
            if (t[k] == '/')
                name = t + k + 1;
        char base[4096];
        snprintf(base, sizeof base, "%.*s", (int)(len - (size_t)(name - t)), name);
        if (S_ISDIR(st.st_mode) && !has_list(t)) {
            size_t before = f->n;
            if (search(f, t, "", rq->out_dir, 0, err) != 0)
                return -1;
            if (f->n == before)
                return gcr_fail(err, GCR_E_FORMAT, "%s: no trace in this folder or below it "
                                "(traces are Accel-Sim folders with a kernelslist.g, and "
                                "files of a format gcreplay reads)", t);
        } else if (found_add(f, t, base, S_ISDIR(st.st_mode) ? strlen(base)
                                                             : id_length(base)) != 0) {
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        }
    }
    if (make_unique(f->ids, f->n) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

/* FNV-1a over the bytes of s. */
static uint64_t fnv(uint64_t h, const void *s, size_t n)
{
    const unsigned char *p = s;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

struct identity {
    uint64_t hash, bytes;
    unsigned files;
};

static void identity_visit(void *ctx, const char *file)
{
    struct identity *id = ctx;
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    uint64_t fields[3] = {(uint64_t)st.st_size, (uint64_t)st.st_mtim.tv_sec,
                          (uint64_t)st.st_mtim.tv_nsec};
    id->hash = fnv(fnv(id->hash, base, strlen(base) + 1), fields, sizeof fields);
    id->bytes += (uint64_t)st.st_size;
    id->files++;
}

char *sweep_trace_identity(const char *path, const char *format, uint64_t *bytes)
{
    struct identity id = {1469598103934665603ull, 0, 0};
    gcr_trace_input_files(path, format, identity_visit, &id);
    char text[96];
    snprintf(text, sizeof text, "%u files, %llu bytes, %016llx", id.files,
             (unsigned long long)id.bytes, (unsigned long long)id.hash);
    *bytes = id.bytes;
    return strdup(text);
}

/* ---- Variants ----------------------------------------------------------------------------- */

/* "PATH=V1,V2,...": the values split at the commas outside brackets and quotes. */
static int parse_axis(struct sweep_axis *a, const char *text, struct gcr_err *err)
{
    *a = (struct sweep_axis){0};
    const char *eq = strchr(text, '=');
    if (!eq || eq == text)
        return gcr_fail(err, GCR_E_USAGE, "--vary %s: expected PATH=V1,V2,...", text);
    if (!(a->path = strndup(text, (size_t)(eq - text))) || !(a->values = json_array()))
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    const char *p = eq + 1, *start = p;
    int depth = 0;
    bool quoted = false;
    for (;; p++) {
        if (quoted) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                quoted = false;
            else if (!*p)
                return gcr_fail(err, GCR_E_USAGE, "--vary %s: a string is not closed", text);
            continue;
        }
        if (*p == '"')
            quoted = true;
        else if (*p == '[' || *p == '{')
            depth++;
        else if (*p == ']' || *p == '}')
            depth--;
        if ((*p == ',' && depth == 0) || !*p) {
            /* Each value is read as a --set value would be. */
            char *one = malloc(strlen(a->path) + (size_t)(p - start) + 2);
            if (!one)
                return gcr_fail(err, GCR_E_NOMEM, "out of memory");
            sprintf(one, "%s=%.*s", a->path, (int)(p - start), start);
            struct gcr_config_override o;
            int rc = gcr_config_override_parse(&o, one, err);
            free(one);
            if (rc != 0) {
                char msg[GCR_ERR_MSG_MAX];
                snprintf(msg, sizeof msg, "%s", err->msg + strlen("--set "));
                return gcr_fail(err, GCR_E_USAGE, "--vary %s: %s", text, msg);
            }
            json_array_append(a->values, o.value);
            gcr_config_override_free(&o);
            if (!*p)
                break;
            start = p + 1;
        }
    }
    return 0;
}

/* The compact JSON text of a value, as it goes into an override and into a variant's id. */
static char *value_text(const json_t *v)
{
    if (json_is_string(v))
        return strdup(json_string_value(v));
    return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

/* Variant k of the cross product: config index and the axes' value indices. */
static int build_variant(struct sweep_variant *v, const struct sweep_request *rq,
                         const struct sweep_axis *axes, size_t naxes, size_t config,
                         const size_t *pick, struct gcr_err *err)
{
    *v = (struct sweep_variant){0};
    size_t nsets = (rq->timing ? 1 : 0) + rq->nsets + naxes;
    char **sets = calloc(nsets ? nsets : 1, sizeof *sets);
    char id[1024];
    const char *cfg = rq->configs[config];
    const char *slash = strrchr(cfg, '/');
    const char *name = slash ? slash + 1 : cfg;
    size_t len = strlen(name), k = 0;
    if (len > 5 && !strcmp(name + len - 5, ".json"))
        len -= 5;
    /* The id: the config's file name, then +path=value for each axis. */
    int used = snprintf(id, sizeof id, "%.*s", (int)len, name);
    int rc = sets ? 0 : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (rc == 0 && !(v->values = json_object()))
        rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (rc == 0 && rq->timing && !(sets[k++] = strdup("timing.enabled=true")))
        rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t i = 0; i < rq->nsets && rc == 0; i++)
        if (!(sets[k++] = strdup(rq->sets[i])))
            rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t a = 0; a < naxes && rc == 0; a++) {
        json_t *val = json_array_get(axes[a].values, pick[a]);
        char *shown = value_text(val);
        char *json = json_dumps(val, JSON_ENCODE_ANY | JSON_COMPACT);
        size_t n = strlen(axes[a].path) + (json ? strlen(json) : 0) + 2;
        if (!shown || !json || !(sets[k] = malloc(n))) {
            rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
        } else {
            snprintf(sets[k++], n, "%s=%s", axes[a].path, json);
            json_object_set(v->values, axes[a].path, val);
            if (used >= 0 && (size_t)used < sizeof id)
                used += snprintf(id + used, sizeof id - (size_t)used, "+%s=%s", axes[a].path,
                                 shown);
        }
        free(shown);
        free(json);
    }
    struct gcr_config c;
    if (rc == 0 &&
        (rc = gcr_config_load_with(&c, cfg, (const char *const *)sets, k, err)) == 0) {
        v->effective = gcr_config_to_json(&c);
        gcr_config_free(&c);
        if (!v->effective)
            rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    } else if (rc != 0 && err) {
        /* An axis's value at fault is named as the --vary value it is. */
        for (size_t a = 0, first = k - naxes; a < naxes; a++) {
            size_t n = strlen(sets[first + a]);
            if (strncmp(err->msg, "--set ", 6) || strncmp(err->msg + 6, sets[first + a], n) ||
                strncmp(err->msg + 6 + n, ": ", 2))
                continue;
            char rest[GCR_ERR_MSG_MAX];
            snprintf(rest, sizeof rest, "%s", err->msg + 6 + n + 2);
            gcr_fail(err, GCR_E_CONFIG, "--vary %s, value %s: %s", axes[a].path,
                     strchr(sets[first + a], '=') + 1, rest);
            break;
        }
    }
    if (rc == 0 && (!(v->config = strdup(cfg)) || !(v->id = safe_id(id, strlen(id)))))
        rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t i = 0; i < k; i++)
        free(sets[i]);
    free(sets);
    return rc;
}

static int build_variants(struct sweep_plan *p, const struct sweep_request *rq,
                          struct gcr_err *err)
{
    size_t combos = 1;
    for (size_t a = 0; a < p->naxes; a++) {
        combos *= json_array_size(p->axes[a].values);
        if (combos > 100000)
            return gcr_fail(err, GCR_E_USAGE, "--vary: more than 100000 variants");
    }
    size_t total = rq->nconfigs * combos;
    if (!(p->variants = calloc(total, sizeof *p->variants)))
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    size_t pick[64] = {0};
    if (p->naxes > 64)
        return gcr_fail(err, GCR_E_USAGE, "at most 64 --vary axes");
    /* Configs in the order given; within one, the first axis varies slowest. */
    for (size_t c = 0; c < rq->nconfigs; c++)
        for (size_t k = 0; k < combos; k++) {
            size_t rest = k;
            for (size_t a = p->naxes; a-- > 0;) {
                size_t m = json_array_size(p->axes[a].values);
                pick[a] = rest % m;
                rest /= m;
            }
            /* Counted first: a variant built halfway is freed with the plan. */
            if (build_variant(&p->variants[p->nvariants++], rq, p->axes, p->naxes, c, pick,
                              err) != 0)
                return -1;
        }
    char **ids = malloc(p->nvariants * sizeof *ids);
    if (!ids)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t i = 0; i < p->nvariants; i++)
        ids[i] = p->variants[i].id;
    int rc = make_unique(ids, p->nvariants);
    for (size_t i = 0; i < p->nvariants; i++)
        p->variants[i].id = ids[i];
    free(ids);
    return rc == 0 ? 0 : gcr_fail(err, GCR_E_NOMEM, "out of memory");
}

/* ---- Passes ------------------------------------------------------------------------------- */

int sweep_pass_groups(const struct sweep_plan *p, size_t *group_of, struct gcr_err *err)
{
    size_t nv = p->nvariants ? p->nvariants : 1, groups = 0;
    char (*keys)[GCR_PASS_KEY_MAX] = malloc(nv * sizeof *keys);
    bool *alone = malloc(nv * sizeof *alone);
    int rc = keys && alone ? 0 : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t v = 0; v < p->nvariants && rc == 0; v++) {
        struct gcr_config c;
        /* The effective config was checked when the plan was made: a failure now is the
         * plan's (a sweep.json edited by hand), named by the variant. */
        char origin[1100];
        snprintf(origin, sizeof origin, "sweep.json: variant %s", p->variants[v].id);
        if (gcr_config_from_json(&c, p->variants[v].effective, origin, err) != 0) {
            rc = -1;
            break;
        }
        alone[v] = gcr_replay_pass_key(&c, keys[v], sizeof keys[v]) != NULL;
        gcr_config_free(&c);
        group_of[v] = v;
        for (size_t w = 0; w < v && !alone[v]; w++)
            if (!alone[w] && !strcmp(keys[w], keys[v])) {
                group_of[v] = group_of[w];
                break;
            }
        groups += group_of[v] == v;
    }
    free(keys);
    free(alone);
    return rc == 0 ? (int)groups : -1;
}

/* ---- Metrics ------------------------------------------------------------------------------ */

static const struct {
    const char *name;
    bool lower_is_better;
} metrics[] = {
    {"l2_accesses", true},       {"l2_misses", true},   {"l2_miss_rate", true},
    {"l1d_misses", true},        {"l1d_miss_rate", true}, {"l1d_hits", false},
    {"dram_read_bytes", true},   {"dram_write_bytes", true}, {"cycles", true},
    {"ipc", false},              {"replication_ratio", true}, {"copies_per_line", true},
};

bool sweep_metric_known(const char *name, bool *lower_is_better)
{
    for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
        if (!strcmp(metrics[i].name, name)) {
            if (lower_is_better)
                *lower_is_better = metrics[i].lower_is_better;
            return true;
        }
    return false;
}

const char *sweep_metric_names(void)
{
    static char names[512];
    if (!names[0])
        for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", metrics[i].name);
        }
    return names;
}

/* ---- The plan ----------------------------------------------------------------------------- */

int sweep_plan_build(struct sweep_plan *p, const struct sweep_request *rq, struct gcr_err *err)
{
    *p = (struct sweep_plan){0};
    p->timing = rq->timing;
    if (!(p->rank_by = strdup(rq->rank_by ? rq->rank_by : "l2_accesses")) ||
        !(p->json_detail = strdup(rq->json_detail ? rq->json_detail : "kernels")) ||
        (rq->format && !(p->format = strdup(rq->format))) || !(p->sets = json_array()))
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (!sweep_metric_known(p->rank_by, NULL))
        return gcr_fail(err, GCR_E_USAGE, "--rank-by %s: not a metric that ranks (known: %s)",
                        p->rank_by, sweep_metric_names());
    for (size_t i = 0; i < rq->nsets; i++)
        json_array_append_new(p->sets, json_string(rq->sets[i]));
    if (rq->nvaries && !(p->axes = calloc(rq->nvaries, sizeof *p->axes)))
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    p->naxes = rq->nvaries; /* all freed with the plan, parsed or not */
    for (size_t i = 0; i < rq->nvaries; i++)
        if (parse_axis(&p->axes[i], rq->varies[i], err) != 0)
            return -1;
    if (build_variants(p, rq, err) != 0)
        return -1;

    struct found f = {0};
    int rc = find_traces(&f, rq, err);
    if (rc == 0 && !(p->traces = calloc(f.n ? f.n : 1, sizeof *p->traces)))
        rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t i = 0; i < f.n; i++) {
        if (rc == 0) {
            struct sweep_trace *t = &p->traces[p->ntraces++];
            t->path = f.paths[i];
            t->id = f.ids[i];
            if (!(t->identity = sweep_trace_identity(t->path, rq->format, &t->bytes)))
                rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
        } else {
            free(f.paths[i]);
            free(f.ids[i]);
        }
    }
    free(f.paths);
    free(f.ids);
    return rc;
}

json_t *sweep_plan_to_json(const struct sweep_plan *p)
{
    json_t *traces = json_array(), *variants = json_array(), *axes = json_array();
    for (size_t i = 0; i < p->ntraces; i++) {
        const struct sweep_trace *t = &p->traces[i];
        json_array_append_new(traces, json_pack("{s:s, s:s, s:I, s:s}", "id", t->id, "path",
                                                t->path, "bytes", (json_int_t)t->bytes,
                                                "identity", t->identity));
    }
    for (size_t i = 0; i < p->naxes; i++)
        json_array_append_new(axes, json_pack("{s:s, s:O}", "path", p->axes[i].path, "values",
                                              p->axes[i].values));
    for (size_t i = 0; i < p->nvariants; i++) {
        const struct sweep_variant *v = &p->variants[i];
        json_array_append_new(variants,
                              json_pack("{s:s, s:s, s:O, s:O}", "id", v->id, "config", v->config,
                                        "values", v->values, "effective_config", v->effective));
    }
    return json_pack("{s:{s:s, s:I}, s:b, s:s?, s:O, s:o, s:s, s:s, s:o, s:o}", "gcreplay",
                     "version", GCR_VERSION, "sweep_format", (json_int_t)1, "timing", p->timing,
                     "format", p->format, "sets", p->sets, "vary", axes, "rank_by", p->rank_by,
                     "json_detail", p->json_detail, "traces", traces, "variants", variants);
}

static int bad_plan(const char *origin, const char *what, struct gcr_err *err)
{
    return gcr_fail(err, GCR_E_FORMAT, "%s: not a sweep plan gcreplay wrote: %s", origin, what);
}

int sweep_plan_from_json(struct sweep_plan *p, const json_t *j, const char *origin,
                         struct gcr_err *err)
{
    *p = (struct sweep_plan){0};
    json_t *traces, *variants, *axes, *sets, *fmt = NULL;
    const char *rank_by, *format = NULL, *detail = "kernels";
    int timing;
    json_error_t je;
    if (json_unpack_ex((json_t *)j, &je, 0, "{s:b, s?o, s:o, s:o, s:s, s?s, s:o, s:o}",
                       "timing", &timing, "format", &fmt, "sets", &sets, "vary", &axes,
                       "rank_by", &rank_by, "json_detail", &detail, "traces", &traces,
                       "variants", &variants) != 0 ||
        !json_is_array(traces) || !json_is_array(variants) || !json_is_array(axes) ||
        (fmt && !json_is_null(fmt) && !json_is_string(fmt)))
        return bad_plan(origin, je.text[0] ? je.text : "unexpected shape", err);
    format = json_string_value(fmt);
    p->timing = timing;
    p->sets = json_incref(sets);
    if (!(p->rank_by = strdup(rank_by)) || !(p->json_detail = strdup(detail)) ||
        (format && !(p->format = strdup(format))))
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    p->traces = calloc(json_array_size(traces) + 1, sizeof *p->traces);
    p->variants = calloc(json_array_size(variants) + 1, sizeof *p->variants);
    p->axes = calloc(json_array_size(axes) + 1, sizeof *p->axes);
    if (!p->traces || !p->variants || !p->axes)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    size_t i;
    json_t *e;
    json_array_foreach(traces, i, e) {
        const char *id, *path, *identity;
        json_int_t bytes;
        if (json_unpack(e, "{s:s, s:s, s:I, s:s}", "id", &id, "path", &path, "bytes", &bytes,
                        "identity", &identity) != 0)
            return bad_plan(origin, "a trace lacks id, path, bytes or identity", err);
        struct sweep_trace *t = &p->traces[p->ntraces++];
        t->bytes = (uint64_t)bytes;
        if (!(t->id = strdup(id)) || !(t->path = strdup(path)) ||
            !(t->identity = strdup(identity)))
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    json_array_foreach(axes, i, e) {
        const char *path;
        json_t *values;
        if (json_unpack(e, "{s:s, s:o}", "path", &path, "values", &values) != 0)
            return bad_plan(origin, "a --vary axis lacks path or values", err);
        struct sweep_axis *a = &p->axes[p->naxes++];
        a->values = json_incref(values);
        if (!(a->path = strdup(path)))
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    json_array_foreach(variants, i, e) {
        const char *id, *config;
        json_t *values, *eff;
        if (json_unpack(e, "{s:s, s:s, s:o, s:o}", "id", &id, "config", &config, "values",
                        &values, "effective_config", &eff) != 0)
            return bad_plan(origin, "a variant lacks id, config, values or effective_config",
                            err);
        struct sweep_variant *v = &p->variants[p->nvariants++];
        v->values = json_incref(values);
        v->effective = json_incref(eff);
        if (!(v->id = strdup(id)) || !(v->config = strdup(config)))
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    return 0;
}

void sweep_plan_free(struct sweep_plan *p)
{
    for (size_t i = 0; i < p->ntraces; i++) {
        free(p->traces[i].id);
        free(p->traces[i].path);
        free(p->traces[i].identity);
    }
    for (size_t i = 0; i < p->nvariants; i++) {
        free(p->variants[i].id);
        free(p->variants[i].config);
        json_decref(p->variants[i].values);
        json_decref(p->variants[i].effective);
    }
    for (size_t i = 0; i < p->naxes; i++) {
        free(p->axes[i].path);
        json_decref(p->axes[i].values);
    }
    free(p->traces);
    free(p->variants);
    free(p->axes);
    json_decref(p->sets);
    free(p->format);
    free(p->rank_by);
    free(p->json_detail);
    *p = (struct sweep_plan){0};
}
