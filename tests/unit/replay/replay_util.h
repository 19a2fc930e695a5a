/* Helpers for replay tests: build a small native trace record by record, run
 * it under a config given as JSON text, and read figures out of the report. */
#ifndef GCR_TEST_REPLAY_UTIL_H
#define GCR_TEST_REPLAY_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <unistd.h>

#include "check.h"
#include "gcreplay/config.h"
#include "gcreplay/replay.h"
#include "gcreplay/trace.h"
#include "report/report.h"

struct tb {
    struct gcr_writer *w;
    struct gcr_err err;
    char path[256];
};

static void tb_write(struct tb *t, const struct gcr_record *r)
{
    if (gcr_writer_write(t->w, r, &t->err) != 0) {
        fprintf(stderr, "write: %s\n", t->err.msg);
        exit(2);
    }
}

static void tb_open(struct tb *t, const char *name)
{
    snprintf(t->path, sizeof t->path, "%s-%d.gcrt", name, (int)getpid());
    if (gcr_writer_open(&t->w, t->path, "gcrt", NULL, &t->err) != 0) {
        fprintf(stderr, "open: %s\n", t->err.msg);
        exit(2);
    }
}

static void tb_kernel(struct tb *t, uint32_t id, uint32_t ctas, uint32_t threads,
                      uint32_t shmem, uint32_t regs)
{
    struct gcr_record r = {.kind = GCR_REC_KERNEL_BEGIN};
    r.u.kbegin = (struct gcr_kernel_begin){.id = id, .grid = {ctas, 1, 1},
                                           .block = {threads, 1, 1}, .shmem_bytes = shmem,
                                           .regs_per_thread = regs, .name = "k"};
    tb_write(t, &r);
}

static void tb_end(struct tb *t, uint32_t id)
{
    struct gcr_record r = {.kind = GCR_REC_KERNEL_END};
    r.u.kend.id = id;
    tb_write(t, &r);
}

/* One access: lanes in mask at base + k*stride (k-th active lane). */
static void tb_access(struct tb *t, uint32_t cta, uint32_t warp, enum gcr_op op,
                      enum gcr_space space, uint16_t width, uint32_t mask, uint64_t base,
                      int64_t stride)
{
    struct gcr_record r = {.kind = GCR_REC_WARP_INSN};
    struct gcr_warp_insn *in = &r.u.insn;
    in->cta = cta;
    in->warp = warp;
    in->pc = 0x80;
    in->op = (uint8_t)op;
    in->space = (uint8_t)space;
    in->width = width;
    in->active_mask = mask;
    uint64_t a = base;
    for (int lane = 0; lane < 32; lane++)
        if (mask & (1u << lane)) {
            in->addr[lane] = a;
            a += (uint64_t)stride;
        }
    tb_write(t, &r);
}

static void tb_load(struct tb *t, uint32_t cta, uint32_t warp, uint64_t base)
{
    tb_access(t, cta, warp, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, 0xffffffffu, base, 4);
}

static void tb_nonmem(struct tb *t, uint32_t cta, uint32_t warp, uint32_t n)
{
    struct gcr_record r = {.kind = GCR_REC_NONMEM};
    r.u.nonmem = (struct gcr_nonmem){cta, warp, n, 0};
    tb_write(t, &r);
}

static void tb_close(struct tb *t)
{
    if (gcr_writer_close(t->w, &t->err) != 0) {
        fprintf(stderr, "close: %s\n", t->err.msg);
        exit(2);
    }
}

/* Replays path under the config; returns the report (NULL and err on failure). */
static json_t *replay_with(const char *config_json, const char *path, struct gcr_err *err)
{
    struct gcr_config cfg;
    if (gcr_config_parse(&cfg, config_json, "test-config", err) != 0)
        return NULL;
    struct gcr_replay *rp;
    json_t *rep = NULL;
    if (gcr_replay_create(&rp, &cfg, err) == 0) {
        struct gcr_reader *r;
        if (gcr_reader_open(&r, path, NULL, err) == 0) {
            if (gcr_replay_trace(rp, r, err) == 0)
                rep = gcr_replay_report(rp, err);
            gcr_reader_close(r);
        }
        gcr_replay_destroy(rp);
    }
    gcr_config_free(&cfg);
    return rep;
}

static json_t *must_replay(const char *config_json, const char *path)
{
    struct gcr_err err = {0};
    json_t *rep = replay_with(config_json, path, &err);
    if (!rep) {
        fprintf(stderr, "replay failed: %s\n", err.msg);
        exit(2);
    }
    return rep;
}

/* Integer at a dotted path like "total.L1D.misses" or "kernels.1.L2.hits". */
static long long jget(const json_t *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const json_t *x = root;
    for (char *tok = strtok(buf, "."); tok && x; tok = strtok(NULL, ".")) {
        if (json_is_array(x))
            x = json_array_get(x, (size_t)atoi(tok));
        else
            x = json_object_get(x, tok);
    }
    if (!json_is_integer(x)) {
        fprintf(stderr, "no integer at %s\n", path);
        return -999999;
    }
    return (long long)json_integer_value(x);
}

static inline double jreal(const json_t *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const json_t *x = root;
    for (char *tok = strtok(buf, "."); tok && x; tok = strtok(NULL, "."))
        x = json_is_array(x) ? json_array_get(x, (size_t)atoi(tok)) : json_object_get(x, tok);
    return json_is_number(x) ? json_number_value(x) : -1.0;
}

/* A real number of the report at path equals want (within 1e-9). */
#define CHECK_REAL(r, path, want)                                                            \
    do {                                                                                     \
        double got_ = jreal(r, path);                                                        \
        if (fabs(got_ - (want)) > 1e-9) {                                                    \
            fprintf(stderr, "%s:%d: %s = %.12g, want %.12g\n", __FILE__, __LINE__, path,     \
                    got_, (double)(want));                                                   \
            check_failures++;                                                                \
        }                                                                                    \
    } while (0)

#endif
