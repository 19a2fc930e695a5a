/* Text round trip: a generated trace (seeded random masks, addresses, names
 * and field values) written and read back must give the same records, and
 * writing what was read must give the same bytes (the canonical form is a
 * fixed point). The committed fixtures go read → write → read unchanged too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gcreplay/format.h"

extern const struct gcr_trace_format gcr_format_text;

#define FIXTURES GCR_SOURCE_ROOT "/trace-formats/text/fixtures/"

/* ---- deterministic generator ---- */

static uint64_t rng_state;

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n) /* 0..n-1 */
{
    return (uint32_t)(rnd() % n);
}

/* ---- a growable list of records owning its kernel names ---- */

struct trace {
    struct gcr_record *rec;
    size_t n, cap;
};

static void push(struct trace *t, const struct gcr_record *r)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->rec = realloc(t->rec, t->cap * sizeof *t->rec);
    }
    t->rec[t->n] = *r;
    if (r->kind == GCR_REC_KERNEL_BEGIN)
        t->rec[t->n].u.kbegin.name = strdup(r->u.kbegin.name);
    t->n++;
}

static void trace_free(struct trace *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->rec[i].kind == GCR_REC_KERNEL_BEGIN)
            free((char *)t->rec[i].u.kbegin.name);
    free(t->rec);
    memset(t, 0, sizeof *t);
}

static void random_name(char *name)
{
    switch (below(6)) {
    case 0:
        strcpy(name, "");
        return;
    case 1:
        strcpy(name, "-");
        return;
    case 2:
        strcpy(name, "_Z6vecaddPKfS0_Pfi");
        return;
    default: {
        uint32_t n = 1 + below(60);
        for (uint32_t i = 0; i < n; i++)
            name[i] = (char)(1 + below(255)); /* any byte but NUL */
        name[n] = '\0';
    }
    }
}

static uint32_t random_mask(void)
{
    switch (below(6)) {
    case 0: return 0;
    case 1: return 0xffffffffu;
    case 2: return 1u << below(32);
    case 3: return (uint32_t)rnd() & (uint32_t)rnd() & (uint32_t)rnd(); /* sparse */
    case 4: return 0xffffffffu >> below(32); /* a partial last warp */
    default: return (uint32_t)rnd();
    }
}

static void random_addresses(struct gcr_warp_insn *in)
{
    uint64_t base = below(4) ? 0x7f0000000000u + (rnd() & 0xfffffff) : rnd();
    int64_t stride;
    switch (below(5)) {
    case 0: stride = 4; break;
    case 1: stride = (int64_t)below(512) - 256; break;
    case 2: stride = (int64_t)rnd(); break; /* anything, including INT64_MIN by wrapping */
    case 3: stride = 0; break;
    default: stride = INT64_MIN; break;
    }
    bool explicit_list = below(3) == 0;
    int k = 0;
    for (int lane = 0; lane < GCR_WARP_SIZE; lane++) {
        if (!(in->active_mask >> lane & 1u))
            continue; /* inactive lanes stay 0: the reader sets them so */
        in->addr[lane] = explicit_list ? (below(2) ? rnd() : base + 64u * below(8))
                                       : base + (uint64_t)k * (uint64_t)stride;
        k++;
    }
}

/* Register dependencies: none known, known and none, or any set of them that record.h allows
 * on a warp instruction (insn) or on a non-memory record of count instructions: non-memory
 * dependencies on a warp instruction, or with a unit on a non-memory record of one. */
static uint32_t random_waits(bool insn, uint32_t count)
{
    switch (below(4)) {
    case 0:
        return 0;
    case 1:
        return GCR_WAITS_KNOWN;
    default: {
        uint32_t w = GCR_WAITS_KNOWN | (below(2) ? GCR_WAITS_BARRIER : 0) |
                     ((uint32_t)rnd() & GCR_WAITS_MASK);
        bool unit = !insn && count == 1 && below(3) != 0;
        if ((insn || unit) && below(2))
            w |= (uint32_t)rnd() & GCR_WAITS_ALU_MASK;
        if (unit)
            w = gcr_waits_with_unit(w, (enum gcr_unit)(1 + below(GCR_UNIT_COUNT - 1)));
        return w;
    }
    }
}

static void random_kernel(struct trace *t, uint32_t id)
{
    struct gcr_record r;
    char name[64];
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_KERNEL_BEGIN;
    struct gcr_kernel_begin *k = &r.u.kbegin;
    k->id = id;
    random_name(name);
    k->name = name;
    if (below(8) == 0) {
        k->grid[0] = 65535, k->grid[1] = 65535, k->grid[2] = 1; /* huge, sparse use */
    } else {
        for (int i = 0; i < 3; i++)
            k->grid[i] = 1 + below(i == 0 ? 40 : 3);
    }
    k->block[0] = 1 + below(1024);
    k->block[1] = 1 + below(1024 / k->block[0] < 4 ? 1024 / k->block[0] : 4);
    k->block[2] = 1;
    k->shmem_bytes = below(3) ? below(49153) : (uint32_t)rnd();
    k->regs_per_thread = below(3) ? below(256) : (uint32_t)rnd();
    push(t, &r);

    uint64_t ctas = gcr_kernel_ctas(k);
    uint32_t warps = gcr_kernel_warps_per_cta(k);
    /* Distinct CTAs in random order, each with a contiguous run of records. */
    uint32_t chosen[8];
    uint32_t nchosen = 1 + below(8);
    for (uint32_t i = 0; i < nchosen; i++) {
        bool dup;
        do {
            chosen[i] = (uint32_t)(rnd() % ctas);
            dup = false;
            for (uint32_t j = 0; j < i; j++)
                dup |= chosen[j] == chosen[i];
        } while (dup && ctas > nchosen);
        if (dup) {
            nchosen = i;
            break;
        }
    }
    for (uint32_t c = 0; c < nchosen; c++) {
        uint32_t nrec = 1 + below(40);
        for (uint32_t i = 0; i < nrec; i++) {
            memset(&r, 0, sizeof r);
            uint32_t warp = below(warps);
            if (below(4) == 0) {
                r.kind = GCR_REC_NONMEM;
                uint32_t count = below(3) == 0   ? 1
                                 : below(2) ? 1 + below(20)
                                                 : 1 + below(UINT32_MAX);
                r.u.nonmem = (struct gcr_nonmem){chosen[c], warp, count,
                                                 random_waits(false, count)};
            } else {
                r.kind = GCR_REC_WARP_INSN;
                struct gcr_warp_insn *in = &r.u.insn;
                in->cta = chosen[c];
                in->warp = warp;
                in->pc = below(2) ? 0x10u * below(4096) : rnd();
                in->op = (uint8_t)below(GCR_OP_COUNT);
                in->space = (uint8_t)below(GCR_SPACE_COUNT);
                in->cache_op = (uint8_t)below(GCR_CACHEOP_COUNT);
                in->width = (uint16_t)(1 + below(GCR_MAX_WIDTH));
                in->active_mask = random_mask();
                random_addresses(in);
                in->waits = random_waits(true, 0);
            }
            push(t, &r);
        }
    }
    memset(&r, 0, sizeof r);
    r.kind = GCR_REC_KERNEL_END;
    r.u.kend.id = id;
    push(t, &r);
}

static void random_trace(struct trace *t, uint64_t seed, int kernels)
{
    rng_state = seed;
    for (int i = 0; i < kernels; i++) {
        while (below(3) == 0) {
            struct gcr_record r;
            memset(&r, 0, sizeof r);
            r.kind = GCR_REC_MEMCPY;
            /* Any destination, any size up to 1 TiB that does not wrap. */
            r.u.memcpy.bytes = below(2) ? below(1 << 20) : rnd() % ((1ull << 40) + 1);
            r.u.memcpy.dst = rnd();
            if (r.u.memcpy.bytes && r.u.memcpy.dst > UINT64_MAX - r.u.memcpy.bytes + 1)
                r.u.memcpy.dst = UINT64_MAX - r.u.memcpy.bytes + 1;
            push(t, &r);
        }
        random_kernel(t, below(4) ? (uint32_t)i : (uint32_t)rnd());
    }
}

/* ---- files ---- */

static char *temp_path(void)
{
    const char *dir = getenv("TMPDIR");
    char *path = malloc(4096);
    snprintf(path, 4096, "%s/gcr-text-roundtrip-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        exit(1);
    }
    close(fd);
    return path;
}

static int write_trace(const char *path, const struct trace *t)
{
    struct gcr_err err;
    const struct gcr_write_opts opts = GCR_WRITE_OPTS_DEFAULT;
    void *st;
    FILE *f = fopen(path, "wb");
    int rc = f ? gcr_format_text.writer_open(&st, f, path, &opts, &err) : -1;
    if (rc == 0) {
        for (size_t i = 0; i < t->n && rc == 0; i++)
            rc = gcr_format_text.writer_write(st, &t->rec[i], &err);
        if (rc == 0)
            rc = gcr_format_text.writer_finish(st, &err);
        gcr_format_text.writer_close(st);
    }
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "writing %s: %s\n", path, err.msg);
    return rc;
}

static int read_trace(const char *path, struct trace *t)
{
    struct gcr_err err;
    struct gcr_record r;
    void *st;
    int rc = gcr_format_text.reader_open(&st, NULL, path, &err);
    if (rc == 0) {
        while ((rc = gcr_format_text.reader_next(st, &r, &err)) == 1)
            push(t, &r);
        gcr_format_text.reader_close(st);
    }
    if (rc != 0)
        fprintf(stderr, "reading %s: %s\n", path, err.msg);
    return rc;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (f && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    if (f)
        fclose(f);
    *len = n;
    return buf;
}

static void check_same_trace(const struct trace *want, const struct trace *got)
{
    CHECK_EQ_U(got->n, want->n);
    size_t n = got->n < want->n ? got->n : want->n;
    int reported = 0;
    for (size_t i = 0; i < n; i++) {
        if (!gcr_record_same(&want->rec[i], &got->rec[i])) {
            if (reported++ < 5)
                fprintf(stderr, "%s:%d: record %zu differs after the round trip\n", __FILE__,
                        __LINE__, i + 1);
            check_failures++;
        }
        /* The reader sets inactive lanes to 0. */
        if (got->rec[i].kind == GCR_REC_WARP_INSN)
            for (int lane = 0; lane < GCR_WARP_SIZE; lane++)
                if (!(got->rec[i].u.insn.active_mask >> lane & 1u))
                    CHECK_EQ_U(got->rec[i].u.insn.addr[lane], 0);
    }
}

/* Generated trace: write, read, compare; write again, compare bytes. */
static void test_generated(uint64_t seed, int kernels)
{
    struct trace want = {0}, got = {0}, again = {0};
    char *p1 = temp_path(), *p2 = temp_path();
    random_trace(&want, seed, kernels);
    CHECK(want.n > (size_t)kernels * 2);

    CHECK_EQ_U(write_trace(p1, &want), 0);
    CHECK_EQ_U(read_trace(p1, &got), 0);
    check_same_trace(&want, &got);

    CHECK_EQ_U(write_trace(p2, &got), 0);
    size_t l1, l2;
    char *b1 = slurp(p1, &l1), *b2 = slurp(p2, &l2);
    CHECK_EQ_U(l1, l2);
    CHECK(l1 == l2 && memcmp(b1, b2, l1) == 0);
    CHECK_EQ_U(read_trace(p2, &again), 0);
    check_same_trace(&want, &again);

    /* The generator must have produced every address form. */
    CHECK(strstr(b1, " -\n") != NULL);
    CHECK(strstr(b1, "+0\n") != NULL);
    CHECK(strstr(b1, "-9223372036854775808\n") != NULL);
    CHECK(strstr(b1, " cache=bypass_l1 ") != NULL);
    CHECK(strstr(b1, " - grid=") != NULL);
    CHECK(strstr(b1, " %2D grid=") != NULL);
    /* And the non-memory dependencies and units, on both kinds of line. */
    CHECK(strstr(b1, " compute 1 waits=tex,") != NULL);
    CHECK(strstr(b1, ",a10\n") != NULL);
    CHECK(strstr(b1, "+4 waits=") != NULL);

    free(b1);
    free(b2);
    unlink(p1);
    unlink(p2);
    free(p1);
    free(p2);
    trace_free(&want);
    trace_free(&got);
    trace_free(&again);
}

/* Committed fixtures: read, write canonically, read again. */
static void test_fixture(const char *name)
{
    char path[4096];
    struct trace first = {0}, second = {0};
    char *tmp = temp_path();
    snprintf(path, sizeof path, "%s%s", FIXTURES, name);
    CHECK_EQ_U(read_trace(path, &first), 0);
    CHECK(first.n > 0);
    CHECK_EQ_U(write_trace(tmp, &first), 0);
    CHECK_EQ_U(read_trace(tmp, &second), 0);
    check_same_trace(&first, &second);
    unlink(tmp);
    free(tmp);
    trace_free(&first);
    trace_free(&second);
}

/* A fixture written in the canonical form: the writer writes back exactly its bytes. */
static void test_canonical(const char *name)
{
    char path[4096];
    struct trace t = {0};
    char *tmp = temp_path();
    snprintf(path, sizeof path, "%s%s", FIXTURES, name);
    CHECK_EQ_U(read_trace(path, &t), 0);
    CHECK_EQ_U(write_trace(tmp, &t), 0);
    size_t l1, l2;
    char *b1 = slurp(path, &l1), *b2 = slurp(tmp, &l2);
    CHECK_EQ_U(l1, l2);
    CHECK(l1 == l2 && memcmp(b1, b2, l1) == 0);
    free(b1);
    free(b2);
    unlink(tmp);
    free(tmp);
    trace_free(&t);
}

int main(void)
{
    test_generated(1, 60);
    test_generated(0x5eed, 200);
    test_generated(20240611, 30);
    test_fixture("valid-example.txt");
    test_fixture("valid-forms.txt");
    test_fixture("valid-alu.txt");
    test_canonical("valid-alu.txt");
    CHECK_DONE();
}
