/* Kernel sinks and the streamed report: a replay that hands each kernel's
 * report on as it ends writes, through gcr_report_writer, exactly the bytes
 * of the report kept whole, and prints the same table from rows kept as
 * kernels end; it keeps no kernels itself; sink errors stop the replay. */
#include <errno.h>
#include <sys/stat.h>

#include "replay_util.h"

/* Every gcreplay report section a kernel can carry: caches and traffic, the
 * analyses' sections, timing, several chips. */
static const char *const configs[] = {
    "{\"gpu\": {\"sms\": 4}, \"l1d\": {\"sets\": 4, \"ways\": 4},"
    " \"l2\": {\"slices\": 2, \"sets\": 16, \"ways\": 4}}",
    "{\"gpu\": {\"sms\": 4}, \"l1d\": {\"sets\": 4, \"ways\": 4},"
    " \"analyses\": {\"replication\": {}, \"line_utilisation\": {}, \"reuse_distance\": {}}}",
    "{\"gpu\": {\"sms\": 4}, \"timing\": {\"enabled\": true}}",
    "{\"gpu\": {\"sms\": 4}, \"chips\": {\"count\": 2}}",
};

/* `kernels` kernels (loads shared across CTAs, stores, non-memory runs); 0: an empty trace. */
static void make_trace(struct tb *t, const char *name, int kernels)
{
    tb_open(t, name);
    for (int k = 1; k <= kernels; k++) {
        tb_kernel(t, (uint32_t)k, 6, 64, 0, 0);
        for (uint32_t c = 0; c < 6; c++)
            for (uint32_t w = 0; w < 2; w++) {
                tb_load(t, c, w, 0x10000ull * (uint64_t)k + (c / 2) * 128);
                tb_nonmem(t, c, w, 3);
                tb_access(t, c, w, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0x0000ffffu,
                          0x900000ull + c * 256 + w * 64, 4);
            }
        tb_end(t, (uint32_t)k);
    }
    tb_close(t);
}

struct capture {
    struct gcr_report_writer w;
    bool want_table;
    struct gcr_table *table; /* the rows of the table, when wanted */
    int seen;
    int fail_at; /* the kernel whose hand-over fails, 0: none */
};

static int capture_kernel(void *ctx, json_t *kernel, struct gcr_err *err)
{
    struct capture *c = ctx;
    if (++c->seen == c->fail_at)
        return gcr_fail(err, GCR_E_IO, "sink refused kernel %d", c->seen);
    CHECK(json_is_object(kernel));
    CHECK(json_is_object(json_object_get(kernel, "classes"))); /* handed over complete */
    if (c->table)
        CHECK(gcr_table_add_kernel(c->table, kernel, NULL) == 0);
    return gcr_report_writer_kernel(&c->w, kernel, err);
}

/* The table of a whole report, and of a streamed one from its rows. */
static char *table_of(const json_t *report, struct gcr_table *rows)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (rows)
        gcr_table_print(rows, report, 0, f);
    else
        CHECK(gcr_report_print_table(report, f) == 0);
    fclose(f);
    return text;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Replays trace under cfg with a sink writing to out; the replay's report. */
static json_t *replay_streamed_at(const char *cfg_json, const char *trace, const char *out,
                                  struct capture *c, enum gcr_report_detail detail,
                                  struct gcr_err *err)
{
    struct gcr_config cfg;
    if (gcr_config_parse(&cfg, cfg_json, "test-config", err) != 0)
        return NULL;
    json_t *rep = NULL;
    struct gcr_replay *rp;
    if (gcr_replay_create(&rp, &cfg, err) == 0) {
        json_t *head = gcr_replay_report_head(rp);
        struct gcr_reader *r;
        if (c->want_table)
            CHECK(gcr_table_create(&c->table, head, GCR_TABLE_FULL, false) == 0);
        if (gcr_report_writer_open(&c->w, out, head, detail, err) == 0) {
            CHECK(gcr_replay_set_kernel_sink(rp, capture_kernel, c, err) == 0);
            if (gcr_reader_open(&r, trace, NULL, err) == 0) {
                if (gcr_replay_trace(rp, r, err) == 0)
                    rep = gcr_replay_report(rp, err);
                gcr_reader_close(r);
            }
            if (rep && gcr_report_writer_finish(&c->w, rep, err) != 0) {
                json_decref(rep);
                rep = NULL;
            } else if (!rep) {
                gcr_report_writer_abort(&c->w);
            }
        }
        json_decref(head);
        gcr_replay_destroy(rp);
    }
    gcr_config_free(&cfg);
    return rep;
}

static json_t *replay_streamed(const char *cfg_json, const char *trace, const char *out,
                               struct capture *c, struct gcr_err *err)
{
    return replay_streamed_at(cfg_json, trace, out, c, GCR_REPORT_FULL, err);
}

/* Below full detail the file is the compact text of the whole report with every kernel
 * summarised and no per-unit member (and no kernels at all for totals only). */
static void compact_details(void)
{
    struct tb t;
    make_trace(&t, "streamc", 3);
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        for (int d = GCR_REPORT_TOTALS; d <= GCR_REPORT_KERNELS; d++) {
            json_t *whole = must_replay(configs[i], t.path);
            json_t *want = gcr_report_without_units(whole);
            json_t *kernels = json_array();
            size_t k;
            json_t *kern;
            json_array_foreach(json_object_get(whole, "kernels"), k, kern)
                json_array_append_new(kernels, gcr_report_kernel_summary(kern));
            if (d == GCR_REPORT_KERNELS)
                json_object_set_new(want, "kernels", kernels);
            else {
                json_object_del(want, "kernels");
                json_decref(kernels);
            }
            char *text = json_dumps(want, JSON_COMPACT | JSON_REAL_PRECISION(10));
            char out[64];
            snprintf(out, sizeof out, "streamc-%d.json", (int)getpid());
            struct capture c = {0};
            struct gcr_err err = {0};
            json_t *rep = replay_streamed_at(configs[i], t.path, out, &c,
                                             (enum gcr_report_detail)d, &err);
            CHECK(rep != NULL);
            const char *got = slurp(out);
            size_t n = text ? strlen(text) : 0;
            if (!got || !text || strncmp(got, text, n) != 0 || strcmp(got + n, "\n") != 0) {
                fprintf(stderr, "config %zu, detail %d: the compact report differs\n", i, d);
                check_failures++;
            }
            /* A kernel's summary is about a kilobyte (README, "The JSON report"). */
            if (d == GCR_REPORT_KERNELS && i == 0) {
                char *one = json_dumps(json_array_get(json_object_get(want, "kernels"), 0),
                                       JSON_COMPACT | JSON_REAL_PRECISION(10));
                CHECK(one && strlen(one) < 1200);
                free(one);
            }
            unlink(out);
            free(text);
            json_decref(rep);
            json_decref(want);
            json_decref(whole);
        }
    unlink(t.path);
}

static void same_bytes_as_whole(void)
{
    for (int kernels = 1; kernels <= 3; kernels += 2) {
        struct tb t;
        make_trace(&t, kernels == 3 ? "stream3" : "stream1", kernels);
        for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
            json_t *whole = must_replay(configs[i], t.path);
            char *want = gcr_report_dumps(whole);
            CHECK_EQ_U(json_array_size(json_object_get(whole, "kernels")), kernels);

            char out[64];
            snprintf(out, sizeof out, "stream-%d.json", (int)getpid());
            struct capture c = {.want_table = true};
            struct gcr_err err = {0};
            json_t *rep = replay_streamed(configs[i], t.path, out, &c, &err);
            CHECK(rep != NULL);
            if (!rep) {
                fprintf(stderr, "streamed replay failed: %s\n", err.msg);
                gcr_table_destroy(c.table);
                free(want);
                json_decref(whole);
                continue;
            }
            /* The table from rows kept as kernels ended is the whole report's,
             * the extra tables included. */
            char *table_whole = table_of(whole, NULL), *table_rows = table_of(rep, c.table);
            CHECK(table_whole && table_rows && strcmp(table_whole, table_rows) == 0);
            if (i == 2)
                CHECK_STR_CONTAINS(table_rows, "DRAM-lat");
            if (i == 3)
                CHECK_STR_CONTAINS(table_rows, "LLC organisations");
            /* Kernel 2's rows: one in the main table, one in the analyses and classes,
             * one in the timing table, one (the first of two) in the LLC organisations'. */
            int rows_of_2 = 0;
            for (const char *p = table_rows; p && (p = strstr(p, "\n     2  ")); p++)
                rows_of_2++;
            CHECK_EQ_U(rows_of_2, kernels < 2 ? 0 : i == 2 || i == 3 ? 3 : 2);
            free(table_whole);
            free(table_rows);
            gcr_table_destroy(c.table);
            CHECK_EQ_U(c.seen, kernels);
            /* The replay kept no kernel; the total still counts them. */
            CHECK(json_object_get(rep, "kernels") == NULL);
            CHECK_EQ_U(jget(rep, "total.kernels"), kernels);
            const char *got = slurp(out);
            CHECK(got != NULL);
            /* The file is the whole report's text and its final newline. */
            size_t n = strlen(want);
            if (got && (strncmp(got, want, n) != 0 || strcmp(got + n, "\n") != 0)) {
                fprintf(stderr, "config %zu, %d kernels: streamed report differs\n", i, kernels);
                check_failures++;
            }
            unlink(out);
            free(want);
            json_decref(rep);
            json_decref(whole);
        }
        unlink(t.path);
    }
}

static void sink_errors(void)
{
    struct tb t;
    make_trace(&t, "streamerr", 3);
    char out[64];
    snprintf(out, sizeof out, "streamerr-%d.json", (int)getpid());

    /* A trace of no kernel is an error, and its report is abandoned too. */
    struct tb empty;
    make_trace(&empty, "stream0", 0);
    struct capture none = {0};
    struct gcr_err err0 = {0};
    CHECK(replay_streamed(configs[0], empty.path, out, &none, &err0) == NULL);
    CHECK_STR_CONTAINS(err0.msg, "the trace holds no kernel");
    CHECK_STR_CONTAINS(err0.msg, empty.path);
    struct stat st0;
    CHECK(stat(out, &st0) != 0 && errno == ENOENT);
    unlink(empty.path);

    /* A sink's error ends the replay with its message; the writer, abandoned,
     * leaves no file. */
    struct capture c = {.fail_at = 2};
    struct gcr_err err = {0};
    CHECK(replay_streamed(configs[0], t.path, out, &c, &err) == NULL);
    CHECK_STR_CONTAINS(err.msg, "sink refused kernel 2");
    CHECK_EQ_U(c.seen, 2);
    struct stat st;
    CHECK(stat(out, &st) != 0 && errno == ENOENT);

    /* The sink is chosen before the first kernel. */
    struct gcr_config cfg;
    CHECK(gcr_config_parse(&cfg, configs[0], "test-config", &err) == 0);
    struct gcr_replay *rp;
    CHECK(gcr_replay_create(&rp, &cfg, &err) == 0);
    struct gcr_reader *r;
    CHECK(gcr_reader_open(&r, t.path, NULL, &err) == 0);
    CHECK(gcr_replay_trace(rp, r, &err) == 0);
    gcr_reader_close(r);
    CHECK(gcr_replay_set_kernel_sink(rp, capture_kernel, &c, &err) != 0);
    CHECK_STR_CONTAINS(err.msg, "before the first kernel");
    gcr_replay_destroy(rp);
    gcr_config_free(&cfg);

    /* A report that cannot be created fails at open, naming the file. */
    struct gcr_report_writer w;
    json_t *head = json_pack("{s:i}", "gcreplay", 1);
    CHECK(gcr_report_writer_open(&w, "no-such-dir/r.json", head, GCR_REPORT_FULL, &err) != 0);
    CHECK_STR_CONTAINS(err.msg, "no-such-dir/r.json");
    json_decref(head);
    unlink(t.path);
}

int main(void)
{
    same_bytes_as_whole();
    compact_details();
    sink_errors();
    return check_failures ? 1 : 0;
}
