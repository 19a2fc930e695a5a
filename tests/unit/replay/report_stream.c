/* Kernel sinks and the streamed report: a replay that hands each kernel's
 * report on as it ends writes, through gcr_report_writer, exactly the bytes
 * of the report kept whole; it keeps no kernels itself; sink errors stop the
 * replay; the streamed file is complete or absent. */
#include <errno.h>
#include <sys/stat.h>

#include "replay_util.h"

/* Every gcreplay report section a kernel can carry: caches and traffic, the
 * analyses' sections, timing. */
static const char *const configs[] = {
    "{\"gpu\": {\"sms\": 4}, \"l1d\": {\"sets\": 4, \"ways\": 4},"
    " \"l2\": {\"slices\": 2, \"sets\": 16, \"ways\": 4}}",
    "{\"gpu\": {\"sms\": 4}, \"l1d\": {\"sets\": 4, \"ways\": 4},"
    " \"analyses\": {\"replication\": {}, \"line_utilisation\": {}, \"reuse_distance\": {}}}",
    "{\"gpu\": {\"sms\": 4}, \"timing\": {\"enabled\": true}}",
};

/* Three kernels (loads shared across CTAs, stores, non-memory runs) or none. */
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
    return gcr_report_writer_kernel(&c->w, kernel, err);
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
static json_t *replay_streamed(const char *cfg_json, const char *trace, const char *out,
                               struct capture *c, struct gcr_err *err)
{
    struct gcr_config cfg;
    if (gcr_config_parse(&cfg, cfg_json, "test-config", err) != 0)
        return NULL;
    json_t *rep = NULL;
    struct gcr_replay *rp;
    if (gcr_replay_create(&rp, &cfg, err) == 0) {
        json_t *head = gcr_replay_report_head(rp);
        struct gcr_reader *r;
        if (gcr_report_writer_open(&c->w, out, head, err) == 0) {
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

static void same_bytes_as_whole(void)
{
    for (int kernels = 0; kernels <= 3; kernels += 3) {
        struct tb t;
        make_trace(&t, kernels ? "stream3" : "stream0", kernels);
        for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
            json_t *whole = must_replay(configs[i], t.path);
            char *want = gcr_report_dumps(whole);
            CHECK_EQ_U(json_array_size(json_object_get(whole, "kernels")), kernels);

            char out[64];
            snprintf(out, sizeof out, "stream-%d.json", (int)getpid());
            struct capture c = {0};
            struct gcr_err err = {0};
            json_t *rep = replay_streamed(configs[i], t.path, out, &c, &err);
            CHECK(rep != NULL);
            if (!rep) {
                fprintf(stderr, "streamed replay failed: %s\n", err.msg);
                free(want);
                json_decref(whole);
                continue;
            }
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

    /* A sink's error ends the replay with its message, and the file being
     * written is removed. */
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
    CHECK(gcr_report_writer_open(&w, "no-such-dir/r.json", head, &err) != 0);
    CHECK_STR_CONTAINS(err.msg, "no-such-dir/r.json");
    json_decref(head);
    unlink(t.path);
}

/* The table's slim copy of a kernel holds what the table prints, and prints
 * the same rows as the full kernel: with timing, and with several chips (the
 * table of both LLC organisations). */
static void table_kernel(void)
{
    static const char *const table_configs[] = {
        "{\"gpu\": {\"sms\": 4}, \"timing\": {\"enabled\": true}}",
        "{\"gpu\": {\"sms\": 4}, \"chips\": {\"count\": 2}}",
    };
    struct tb t;
    make_trace(&t, "streamtab", 3);
    for (size_t c = 0; c < sizeof table_configs / sizeof table_configs[0]; c++) {
        json_t *whole = must_replay(table_configs[c], t.path);
        json_t *slim_report = json_deep_copy(whole);
        json_t *slim = json_array();
        size_t i;
        json_t *k;
        json_array_foreach(json_object_get(whole, "kernels"), i, k)
            json_array_append_new(slim, gcr_report_table_kernel(k));
        json_object_set_new(slim_report, "kernels", slim);
        char *a = NULL, *b = NULL;
        size_t an = 0, bn = 0;
        FILE *fa = open_memstream(&a, &an), *fb = open_memstream(&b, &bn);
        gcr_report_print_table(whole, fa);
        gcr_report_print_table(slim_report, fb);
        fclose(fa);
        fclose(fb);
        CHECK(an > 0 && an == bn && memcmp(a, b, an) == 0);
        /* The extra table came out too. */
        CHECK_STR_CONTAINS(a, c == 0 ? "DRAM-lat" : "LLC organisations");
        const json_t *k0 = json_array_get(slim, 0);
        CHECK(json_object_get(json_object_get(k0, "L1D"), "per_sm") == NULL);
        CHECK(json_object_get(k0, "classes") == NULL);
        free(a);
        free(b);
        json_decref(slim_report);
        json_decref(whole);
    }
    unlink(t.path);
}

int main(void)
{
    same_bytes_as_whole();
    sink_errors();
    table_kernel();
    return check_failures ? 1 : 0;
}
