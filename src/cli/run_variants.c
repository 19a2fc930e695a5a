/* gcreplay run with several configs (or --json-dir): each config is a variant. Variants
 * whose front ends are the same (gcr_replay_pass_key) share one pass of the traces, the
 * first of them driving the others' memory systems (gcr_replay_share_pass); the others
 * have passes of their own. Each variant's report is the one its own run would write,
 * with a "variant" member after "gcreplay" saying how it was replayed; the table shows
 * the variants' totals side by side. Outputs are complete or absent, all of them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "core/atomic_file.h"
#include "gcreplay/config.h"

struct variant {
    const char *path; /* the config file */
    char *name;       /* its file name without .json, made unique */
    struct gcr_config cfg;
    bool loaded;
    struct gcr_replay *rp;
    size_t pass;       /* its pass, numbered from 0 in --config order */
    const char *alone; /* why it needs a pass of its own, or NULL */
    char key[GCR_PASS_KEY_MAX];
    struct gcr_report_writer dir_json, json; /* --json-dir's file; --json's (a scratch file
                                              * with several variants) */
    bool dir_open, json_open, dir_done;
    char *dir_path;
    int scratch; /* --json with several variants: the descriptor of its report, else -1 */
    json_t *report;
};

/* The variant's name: the config's file name without its folder and .json. */
static char *stem(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t n = strlen(name);
    if (n > 5 && !strcmp(name + n - 5, ".json"))
        n -= 5;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, name, n);
        s[n] = '\0';
    }
    return s;
}

/* Names variants[i] by its config's stem; a name already taken gets ~2, ~3... */
static int name_variants(struct variant *vs, size_t n, struct gcr_err *err)
{
    for (size_t i = 0; i < n; i++) {
        char *base = stem(vs[i].path);
        if (!base)
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        size_t cap = strlen(base) + 16;
        if (!(vs[i].name = malloc(cap))) {
            free(base);
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        }
        for (unsigned k = 1;; k++) {
            if (k == 1)
                snprintf(vs[i].name, cap, "%s", base);
            else
                snprintf(vs[i].name, cap, "%s~%u", base, k);
            bool taken = false;
            for (size_t j = 0; j < i && !taken; j++)
                taken = !strcmp(vs[j].name, vs[i].name);
            if (!taken)
                break;
        }
        free(base);
    }
    return 0;
}

/* Each variant's pass: the first earlier variant's with the same pass key, else a new one. */
static size_t assign_passes(struct variant *vs, size_t n)
{
    size_t passes = 0;
    for (size_t i = 0; i < n; i++) {
        vs[i].alone = gcr_replay_pass_key(&vs[i].cfg, vs[i].key, sizeof vs[i].key);
        vs[i].pass = passes;
        for (size_t j = 0; j < i && !vs[i].alone; j++)
            if (!vs[j].alone && !strcmp(vs[j].key, vs[i].key)) {
                vs[i].pass = vs[j].pass;
                break;
            }
        if (vs[i].pass == passes)
            passes++;
    }
    return passes;
}

/* How the variant was replayed, the report's "variant" member: its name, its pass, the
 * variants replayed in that pass, and why it needed a pass of its own when it did. */
static json_t *variant_member(const struct variant *vs, size_t n, size_t i)
{
    json_t *names = json_array();
    for (size_t j = 0; j < n; j++)
        if (vs[j].pass == vs[i].pass)
            json_array_append_new(names, json_string(vs[j].name));
    json_t *m = json_pack("{s:s, s:I, s:o}", "name", vs[i].name, "pass", (json_int_t)vs[i].pass,
                          "pass_variants", names);
    if (m && vs[i].alone)
        json_object_set_new(m, "own_pass", json_string(vs[i].alone));
    return m;
}

/* The report's head: gcr_replay_report_head's, with the "variant" member after "gcreplay"
 * when the run has several variants. */
static json_t *variant_head(const struct variant *vs, size_t n, size_t i)
{
    json_t *plain = gcr_replay_report_head(vs[i].rp);
    if (!plain || n == 1)
        return plain;
    json_t *head = json_object();
    if (head) {
        json_object_set(head, "gcreplay", json_object_get(plain, "gcreplay"));
        json_object_set_new(head, "variant", variant_member(vs, n, i));
        json_object_set(head, "config", json_object_get(plain, "config"));
    }
    json_decref(plain);
    return head;
}

static int take_kernel(void *ctx, json_t *kernel, struct gcr_err *err)
{
    struct variant *v = ctx;
    if (v->dir_open && gcr_report_writer_kernel(&v->dir_json, kernel, err) != 0)
        return -1;
    if (v->json_open && gcr_report_writer_kernel(&v->json, kernel, err) != 0)
        return -1;
    return 0;
}

/* Where the scratch reports of --json OUT go: beside OUT, or in the temporary folder when
 * OUT is standard output or a device. */
static char *scratch_dir(const char *out)
{
    struct stat st;
    bool file = strcmp(out, "-") != 0 && (stat(out, &st) != 0 || S_ISREG(st.st_mode));
    const char *slash = file ? strrchr(out, '/') : NULL;
    if (file && !slash)
        return strdup(".");
    if (file)
        return slash == out ? strdup("/") : strndup(out, (size_t)(slash - out));
    const char *tmp = getenv("TMPDIR");
    return strdup(tmp && *tmp ? tmp : "/tmp");
}

/* Opens the variant's outputs with its head: 0, or -1 with err. */
static int open_outputs(const struct run_args *a, struct variant *vs, size_t n, size_t i,
                        const char *scratch, struct gcr_err *err)
{
    struct variant *v = &vs[i];
    json_t *head = variant_head(vs, n, i);
    if (!head)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory building the report");
    int rc = 0;
    if (a->json_dir) {
        size_t len = strlen(a->json_dir) + strlen(v->name) + 7;
        const char *inputs[] = {v->path};
        if (!(v->dir_path = malloc(len)))
            rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
        else
            snprintf(v->dir_path, len, "%s/%s.json", a->json_dir, v->name);
        if (rc == 0)
            rc = cli_check_output(v->dir_path, inputs, 1, a->traces, a->ntraces, a->format, err);
        if (rc == 0 && gcr_report_writer_open(&v->dir_json, v->dir_path, head, a->detail,
                                              err) == 0)
            v->dir_open = true;
        else
            rc = -1;
    }
    if (rc == 0 && a->json_path && n == 1) {
        if (gcr_report_writer_open(&v->json, a->json_path, head, a->detail, err) == 0)
            v->json_open = true;
        else
            rc = -1;
    } else if (rc == 0 && a->json_path) {
        if ((v->scratch = gcr_scratch_file(scratch, err)) < 0)
            rc = -1;
        else if (gcr_report_writer_open_fd(&v->json, v->scratch, a->json_path, head, a->detail,
                                           err) == 0)
            v->json_open = true;
        else
            rc = -1;
    }
    json_decref(head);
    return rc;
}

/* Replays pass p: its first variant's front end drives every variant of the pass. */
static int replay_pass(const struct run_args *a, struct variant *vs, size_t n, size_t p,
                       struct gcr_err *err)
{
    struct gcr_replay *lead = NULL;
    for (size_t i = 0; i < n; i++) {
        if (vs[i].pass != p)
            continue;
        if (!lead) {
            lead = vs[i].rp;
            gcr_replay_set_decode_ahead(lead, a->decode); /* the lead reads the trace */
            if (gcr_replay_set_host_prefetch(lead, a->prefetch, err) != 0)
                return -1;
        } else if (gcr_replay_share_pass(lead, vs[i].rp, err) != 0) {
            return -1;
        }
    }
    struct cli_progress prog;
    cli_progress_init(&prog, a->quiet);
    gcr_replay_set_progress(lead, cli_progress_cb, &prog);
    int rc = 0;
    for (size_t t = 0; t < a->ntraces && rc == 0; t++) {
        struct gcr_reader *r = NULL;
        if (gcr_reader_open(&r, a->traces[t], a->format, err) != 0) {
            rc = -1;
            break;
        }
        rc = gcr_replay_trace(lead, r, err);
        gcr_reader_close(r);
    }
    cli_progress_done(&prog);
    return rc;
}

/* Copies the report in scratch file fd, without its last newline, to out. */
static int copy_report(int fd, FILE *out)
{
    char buf[65536];
    off_t at = 0;
    bool newline = false; /* held back: the last byte read, when a newline */
    for (;;) {
        ssize_t got = pread(fd, buf, sizeof buf, at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            return 0;
        if (newline && fputc('\n', out) == EOF)
            return -1;
        newline = buf[got - 1] == '\n';
        size_t keep = (size_t)got - newline;
        if (fwrite(buf, 1, keep, out) != keep)
            return -1;
        at += got;
    }
}

/* --json OUT with several variants: {"gcreplay": {...}, "variants": [report, ...]}, each
 * report as its own run writes it (with its "variant" member), a line each. */
static int write_combined(const struct run_args *a, const struct variant *vs, size_t n,
                          struct gcr_err *err)
{
    struct gcr_atomic_file out;
    if (gcr_atomic_file_open(&out, a->json_path, err) != 0)
        return -1;
    const json_t *version = json_object_get(vs[0].report, "gcreplay");
    char *top = json_dumps(version, JSON_COMPACT);
    bool bad = !top || fprintf(out.f, "{\"gcreplay\":%s,\"variants\":[\n", top) < 0;
    free(top);
    for (size_t i = 0; i < n && !bad; i++)
        bad = copy_report(vs[i].scratch, out.f) != 0 ||
              fputs(i + 1 < n ? ",\n" : "\n", out.f) == EOF;
    if (bad || fputs("]}\n", out.f) == EOF) {
        gcr_fail(err, GCR_E_IO, "%s: write failed: %s", a->json_path, strerror(errno));
        gcr_atomic_file_abort(&out);
        return -1;
    }
    return gcr_atomic_file_commit(&out, err);
}

/* Finishes every output: the --json-dir files, then --json. On a failure the files already
 * in place are removed again, so that the run leaves all of its outputs or none. */
static int finish_outputs(const struct run_args *a, struct variant *vs, size_t n,
                          struct gcr_err *err)
{
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (vs[i].dir_open && gcr_report_writer_finish(&vs[i].dir_json, vs[i].report, err) != 0)
            rc = -1;
        vs[i].dir_done = rc == 0 && vs[i].dir_open;
        if (rc == 0 && vs[i].json_open &&
            gcr_report_writer_finish(&vs[i].json, vs[i].report, err) != 0)
            rc = -1;
    }
    if (rc == 0 && a->json_path && n > 1)
        rc = write_combined(a, vs, n, err);
    for (size_t i = 0; i < n && rc != 0; i++)
        if (vs[i].dir_done)
            unlink(vs[i].dir_path);
    return rc;
}

int run_variants(const struct run_args *a)
{
    struct gcr_err err = {0};
    size_t n = a->nconfigs;
    struct variant *vs = calloc(n, sizeof *vs);
    if (!vs) {
        gcr_fail(&err, GCR_E_NOMEM, "out of memory");
        return cli_error(&err);
    }
    for (size_t i = 0; i < n; i++) {
        vs[i].path = a->configs[i];
        vs[i].scratch = -1;
    }
    int rc = name_variants(vs, n, &err);
    /* Every config is checked before any replay: a bad one names its file and JSON path. */
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (gcr_config_load_with(&vs[i].cfg, vs[i].path, a->sets, a->nsets, &err) != 0) {
            rc = -1;
            break;
        }
        vs[i].loaded = true;
        if (a->timing)
            vs[i].cfg.timing.enabled = true;
    }
    size_t passes = rc == 0 ? assign_passes(vs, n) : 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (gcr_replay_create(&vs[i].rp, &vs[i].cfg, &err) != 0 ||
            gcr_replay_set_analysis_thread(vs[i].rp, run_analysis_thread(a, vs[i].rp),
                                           &err) != 0 ||
            gcr_replay_set_kernel_sink(vs[i].rp, take_kernel, &vs[i], &err) != 0)
            rc = -1;
    }
    /* Every output is open before the replays, so that a bad path fails first. */
    char *scratch = rc == 0 && a->json_path && n > 1 ? scratch_dir(a->json_path) : NULL;
    if (rc == 0 && a->json_path && n > 1 && !scratch)
        rc = gcr_fail(&err, GCR_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = open_outputs(a, vs, n, i, scratch, &err);
    free(scratch);
    for (size_t p = 0; p < passes && rc == 0; p++)
        rc = replay_pass(a, vs, n, p, &err);
    for (size_t i = 0; i < n && rc == 0; i++)
        if (!(vs[i].report = gcr_replay_report(vs[i].rp, &err)))
            rc = -1;
    if (rc == 0)
        rc = finish_outputs(a, vs, n, &err);
    FILE *table_out = a->json_path && !strcmp(a->json_path, "-") ? stderr : stdout;
    if (rc == 0 && !a->quiet && a->style != GCR_TABLE_NONE) {
        const json_t **reports = calloc(n, sizeof *reports);
        const char **names = calloc(n, sizeof *names);
        for (size_t i = 0; reports && names && i < n; i++) {
            json_object_set_new(vs[i].report, "variant", variant_member(vs, n, i));
            reports[i] = vs[i].report;
            names[i] = vs[i].name;
        }
        if (!reports || !names ||
            gcr_table_print_variants(reports, names, n, cli_terminal_width(table_out),
                                     table_out) != 0)
            rc = gcr_fail(&err, GCR_E_NOMEM, "out of memory printing the table");
        free(reports);
        free(names);
    }
    for (size_t i = 0; i < n; i++) {
        /* No partial report; nothing to do once finished, failed or never opened. */
        gcr_report_writer_abort(&vs[i].dir_json);
        gcr_report_writer_abort(&vs[i].json);
        if (vs[i].scratch >= 0)
            close(vs[i].scratch);
        json_decref(vs[i].report);
        gcr_replay_destroy(vs[i].rp);
        if (vs[i].loaded)
            gcr_config_free(&vs[i].cfg);
        free(vs[i].name);
        free(vs[i].dir_path);
    }
    free(vs);
    return rc == 0 ? CLI_OK : cli_error(&err);
}
