/* The real Accel-Sim traces in shared/traces/accelsim/: every record reads without error; the
 * totals agree with the statistics Accel-Sim printed for them (accelsim-qv100.json); converted
 * to gcrt they read back as the same records; and replaying the trace and its conversion gives
 * the same "kernels" and "total" in the report.
 *
 * What Accel-Sim counts (GPGPU-Sim shader.cc, mem_instruction_stats, and the issue counter):
 *   gpgpu_n_tot_w_icount  warp instructions issued, every trace line (any mask, any opcode);
 *   gpgpu_n_load_insn     active threads (lanes) of global/local instructions that are not
 *                         stores: loads, atomics and reductions;
 *   gpgpu_n_store_insn    active threads of global/local stores;
 *   gpgpu_n_shmem_insn    active threads of shared-memory instructions of any kind. */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accelsim_test.h"
#include "core/bits.h"
#include "gcreplay/config.h"
#include "gcreplay/replay.h"

#define TRACES GCR_SHARED_ROOT "/traces/accelsim"

struct totals {
    uint64_t warp_insns, load_lanes, store_lanes, shared_lanes;
};

static struct totals count(const struct recs *v)
{
    struct totals t = {0, 0, 0, 0};
    for (size_t i = 0; i < v->n; i++) {
        const struct gcr_record *r = &v->r[i];
        if (r->kind == GCR_REC_NONMEM)
            t.warp_insns += r->u.nonmem.count;
        if (r->kind != GCR_REC_WARP_INSN)
            continue;
        t.warp_insns++;
        uint64_t lanes = gcr_bits_popcount32(r->u.insn.active_mask);
        if (r->u.insn.space == GCR_SPACE_SHARED)
            t.shared_lanes += lanes;
        else if (r->u.insn.space == GCR_SPACE_GLOBAL || r->u.insn.space == GCR_SPACE_LOCAL)
            *(r->u.insn.op == GCR_OP_STORE ? &t.store_lanes : &t.load_lanes) += lanes;
    }
    return t;
}

static uint64_t stat_of(json_t *stats, const char *key)
{
    json_t *v = json_object_get(stats, key);
    CHECK(json_is_integer(v));
    return (uint64_t)json_integer_value(v);
}

/* The report of one replay, under the project's Volta-like example configuration. */
static json_t *replay(const char *path)
{
    struct gcr_err err = {0};
    struct gcr_config cfg;
    char *text = NULL;
    FILE *f = fopen(GCR_SOURCE_ROOT "/examples/configs/volta80.json", "rb");
    size_t len = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        len = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        text = calloc(1, len + 1);
        if (text && fread(text, 1, len, f) != len)
            len = 0;
        fclose(f);
    }
    CHECK(text && len);
    if (!text || gcr_config_parse(&cfg, text, "volta80.json", &err) != 0) {
        fprintf(stderr, "config: %s\n", err.msg);
        check_failures++;
        free(text);
        return NULL;
    }
    free(text);
    json_t *rep = NULL;
    struct gcr_replay *rp;
    struct gcr_reader *rd;
    if (gcr_replay_create(&rp, &cfg, &err) == 0) {
        if (gcr_reader_open(&rd, path, NULL, &err) == 0) {
            if (gcr_replay_trace(rp, rd, &err) == 0)
                rep = gcr_replay_report(rp, &err);
            gcr_reader_close(rd);
        }
        gcr_replay_destroy(rp);
    }
    gcr_config_free(&cfg);
    if (!rep) {
        fprintf(stderr, "replay of %s: %s\n", path, err.msg);
        check_failures++;
    }
    return rep;
}

static void write_gcrt(const struct recs *v, const char *path)
{
    struct gcr_err err = {0};
    struct gcr_writer *w;
    CHECK(gcr_writer_open(&w, path, "gcrt", NULL, &err) == 0);
    if (!w)
        return;
    for (size_t i = 0; i < v->n; i++)
        if (gcr_writer_write(w, &v->r[i], &err) != 0) {
            fprintf(stderr, "%s: %s\n", path, err.msg);
            check_failures++;
            gcr_writer_abort(w);
            return;
        }
    CHECK(gcr_writer_close(w, &err) == 0);
}

/* The strided hint survives the conversion where it is meaningful (two active lanes or more):
 * the gcrt writer finds the same stride in the addresses. */
static void check_hints(const struct recs *a, const struct recs *b)
{
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        const struct gcr_warp_insn *x = &a->r[i].u.insn, *y = &b->r[i].u.insn;
        if (a->r[i].kind == GCR_REC_WARP_INSN && x->strided &&
            gcr_bits_popcount32(x->active_mask) >= 2)
            CHECK(y->strided && y->stride == x->stride);
    }
}

static void test_trace(const char *name)
{
    char dir[512], json_path[600], gcrt[600];
    snprintf(dir, sizeof dir, TRACES "/%s", name);
    snprintf(json_path, sizeof json_path, "%s/accelsim-qv100.json", dir);
    snprintf(gcrt, sizeof gcrt, "accelsim-real-%s-%d.gcrt", name, (int)getpid());

    struct recs v = read_trace(dir, NULL, false);
    if (v.rc != 0) {
        fprintf(stderr, "%s: %s\n", name, v.err.msg);
        check_failures++;
        recs_free(&v);
        return;
    }
    json_error_t jerr;
    json_t *root = json_load_file(json_path, 0, &jerr);
    json_t *stats = json_object_get(root, "stats");
    CHECK(stats != NULL);
    struct totals t = count(&v);
    printf("%-16s warp insns %9llu (Accel-Sim %9llu)  load lanes %9llu (%9llu)  store lanes "
           "%8llu (%8llu)  shared lanes %9llu (%9llu)\n", name,
           (unsigned long long)t.warp_insns,
           (unsigned long long)stat_of(stats, "gpgpu_n_tot_w_icount"),
           (unsigned long long)t.load_lanes,
           (unsigned long long)stat_of(stats, "gpgpu_n_load_insn"),
           (unsigned long long)t.store_lanes,
           (unsigned long long)stat_of(stats, "gpgpu_n_store_insn"),
           (unsigned long long)t.shared_lanes,
           (unsigned long long)stat_of(stats, "gpgpu_n_shmem_insn"));
    CHECK_EQ_U(t.warp_insns, stat_of(stats, "gpgpu_n_tot_w_icount"));
    CHECK_EQ_U(t.load_lanes, stat_of(stats, "gpgpu_n_load_insn"));
    CHECK_EQ_U(t.store_lanes, stat_of(stats, "gpgpu_n_store_insn"));
    CHECK_EQ_U(t.shared_lanes, stat_of(stats, "gpgpu_n_shmem_insn"));
    json_decref(root);

    /* Round trip through the native format. */
    write_gcrt(&v, gcrt);
    struct recs back = read_trace(gcrt, NULL, false);
    CHECK_EQ_U(back.rc, 0);
    CHECK(same_records(&v, &back, false));
    check_hints(&v, &back);
    recs_free(&back);

    /* The same report from the trace and from its conversion. */
    json_t *a = replay(dir), *b = replay(gcrt);
    if (a && b) {
        CHECK(json_equal(json_object_get(a, "kernels"), json_object_get(b, "kernels")));
        CHECK(json_equal(json_object_get(a, "total"), json_object_get(b, "total")));
        CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(json_object_get(a,
                   "total"), "instructions"), "warp_total")), t.warp_insns);
    }
    json_decref(a);
    json_decref(b);
    unlink(gcrt);
    recs_free(&v);
}

int main(void)
{
    struct stat st;
    if (stat(TRACES, &st) != 0) {
        printf("no %s: skipped\n", TRACES);
        return 77; /* meson: skipped */
    }
    DIR *d = opendir(TRACES);
    struct dirent *de;
    int traces = 0;
    while (d && (de = readdir(d)) != NULL) {
        char p[600];
        snprintf(p, sizeof p, TRACES "/%s/kernelslist.g", de->d_name);
        if (de->d_name[0] == '.' || stat(p, &st) != 0)
            continue;
        test_trace(de->d_name);
        traces++;
    }
    if (d)
        closedir(d);
    CHECK(traces >= 5);
    CHECK_DONE();
}
