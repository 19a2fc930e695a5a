/* Runs of records (gcr_reader_next_run, the replay's way of reading): for every input, valid
 * or damaged, reading with runs of any length yields exactly the records and the final status
 * and message of reading one record at a time, lazily or not; and a run of more than one
 * record holds warp instructions and non-memory counts of one CTA only. The inputs are the
 * fixtures of every format (gcrt has its own run decoder, the others get runs from the core),
 * a generated multi-block gcrt trace, and that trace with payload bytes changed behind the
 * checksums' back, so that gcrt's runs stop at every kind of bad record. */
#include "gcrt_test.h"

#include <dirent.h>

#include "gcreplay/trace.h"

/* What reading a trace gave: records (names dropped: compared via kind and fields) and the
 * end status. */
struct outcome {
    struct gcr_record *recs;
    size_t n, cap;
    int rc;
    struct gcr_err err;
    int contract_broken; /* runs of n > 1 mixing CTAs or record kinds */
};

static void keep(struct outcome *o, const struct gcr_record *r)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 256;
        o->recs = realloc(o->recs, o->cap * sizeof *o->recs);
        if (!o->recs)
            exit(2);
    }
    o->recs[o->n] = *r;
    if (r->kind == GCR_REC_KERNEL_BEGIN) /* the name is only valid until the next call */
        o->recs[o->n].u.kbegin.name = "";
    o->n++;
}

/* max == 0: one record at a time (gcr_reader_next); else runs of up to max records
 * (gcr_reader_next_run). Through the core, which hands gcrt's runs to its reader_next_run
 * and builds runs for the other formats from their records one at a time. */
static struct outcome read_with(const char *path, bool lazy, size_t max)
{
    struct outcome o = {0};
    struct gcr_reader *r = NULL;
    if (gcr_reader_open(&r, path, NULL, &o.err) < 0) {
        o.rc = -1;
        return o;
    }
    gcr_reader_set_lazy_addresses(r, lazy);
    struct gcr_record *buf = calloc(max ? max : 1, sizeof *buf);
    int rc;
    for (;;) {
        /* Stale bytes in the buffer must not leak into what a reader fills. */
        memset(buf, 0x5a, (max ? max : 1) * sizeof *buf);
        rc = max ? gcr_reader_next_run(r, buf, max, &o.err) : gcr_reader_next(r, buf, &o.err);
        if (rc <= 0)
            break;
        CHECK((size_t)rc <= (max ? max : 1));
        for (int i = 0; i < rc; i++) {
            keep(&o, &buf[i]);
            if (rc > 1 && ((buf[i].kind != GCR_REC_WARP_INSN && buf[i].kind != GCR_REC_NONMEM) ||
                           (buf[i].kind == GCR_REC_WARP_INSN ? buf[i].u.insn.cta
                                                              : buf[i].u.nonmem.cta) !=
                               (buf[0].kind == GCR_REC_WARP_INSN ? buf[0].u.insn.cta
                                                                  : buf[0].u.nonmem.cta)))
                o.contract_broken++;
        }
    }
    o.rc = rc;
    free(buf);
    gcr_reader_close(r);
    return o;
}

/* The lane addresses a record stands for: from the hint when it is set (lazy reads fill only
 * the first active lane), else from addr[]; inactive lanes 0. */
static void lanes(const struct gcr_warp_insn *in, uint64_t out[GCR_WARP_SIZE])
{
    memset(out, 0, GCR_WARP_SIZE * sizeof *out);
    if (in->strided && in->active_mask) {
        uint64_t a = in->addr[__builtin_ctz(in->active_mask)];
        for (uint32_t m = in->active_mask; m; m &= m - 1, a += (uint64_t)in->stride)
            out[__builtin_ctz(m)] = a;
        return;
    }
    for (uint32_t m = in->active_mask; m; m &= m - 1)
        out[__builtin_ctz(m)] = in->addr[__builtin_ctz(m)];
}

/* Same records, same hints, same end, same message. */
static int same(const struct outcome *a, const struct outcome *b, const char *what)
{
    int bad = 0;
    if (a->n != b->n || a->rc != b->rc || a->err.status != b->err.status ||
        (a->rc < 0 && strcmp(a->err.msg, b->err.msg) != 0)) {
        fprintf(stderr, "%s: %zu records, rc %d (%s) vs %zu records, rc %d (%s)\n", what, a->n,
                a->rc, a->err.msg, b->n, b->rc, b->err.msg);
        bad = 1;
    }
    for (size_t i = 0; !bad && i < a->n; i++) {
        const struct gcr_record *x = &a->recs[i], *y = &b->recs[i];
        if (x->kind == GCR_REC_WARP_INSN && y->kind == GCR_REC_WARP_INSN) {
            uint64_t lx[GCR_WARP_SIZE], ly[GCR_WARP_SIZE];
            lanes(&x->u.insn, lx);
            lanes(&y->u.insn, ly);
            if (memcmp(lx, ly, sizeof lx) != 0 || x->u.insn.strided != y->u.insn.strided ||
                (x->u.insn.strided && x->u.insn.stride != y->u.insn.stride)) {
                fprintf(stderr, "%s: record %zu: lanes or stride hint differ\n", what, i);
                bad = 1;
            }
            /* record_diff checks every lane of addr[]: give it the expanded lanes. */
            struct gcr_record ex = *x, ey = *y;
            memcpy(ex.u.insn.addr, lx, sizeof lx);
            memcpy(ey.u.insn.addr, ly, sizeof ly);
            bad |= record_diff(&ex, &ey, i);
        } else {
            bad |= record_diff(x, y, i);
        }
    }
    return bad;
}

static const size_t run_lengths[] = {1, 2, 32, 3, 7, 1000};

/* Compares reading path in runs of the first `lengths` run_lengths (lazily and not) with
 * reading one record at a time, not lazily. */
static int check_file_runs(const char *path, const char *what, size_t lengths)
{
    struct outcome ref = read_with(path, false, 0);
    int bad = 0;
    for (int lazy = 0; lazy < 2; lazy++) {
        struct outcome one = read_with(path, lazy, 0);
        bad |= same(&ref, &one, what);
        free(one.recs);
        for (size_t k = 0; k < lengths; k++) {
            struct outcome o = read_with(path, lazy, run_lengths[k]);
            char label[600];
            snprintf(label, sizeof label, "%s (lazy %d, runs of %zu)", what, lazy,
                     run_lengths[k]);
            bad |= same(&ref, &o, label);
            if (o.contract_broken) {
                fprintf(stderr, "%s: %d records in runs that mix CTAs or kinds\n", label,
                        o.contract_broken);
                bad = 1;
            }
            free(o.recs);
        }
    }
    free(ref.recs);
    return bad;
}

static int check_file(const char *path, const char *what)
{
    return check_file_runs(path, what, sizeof run_lengths / sizeof *run_lengths);
}

/* A kernel with 3 CTAs of 2 warps present, whose ids take 1, 2 and 3 bytes: every address
 * mode and mask shape, interleaved warps, non-memory counts; then an empty kernel, a copy
 * and a one-record kernel. */
static size_t build(struct gcr_record *recs)
{
    size_t n = 0;
    recs[n++] = mcpy(0x1000, 4096);
    recs[n++] = kbegin(1, "k1", 70000, 1, 1, 64, 1, 1);
    static const uint32_t ctas[] = {2, 300, 69999};
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 40; i++) {
            uint32_t cta = ctas[c], warp = (uint32_t)(i % 2);
            uint64_t base = 0x7f0000000000ull + (uint64_t)(c * 40 + i) * 4096;
            switch (i % 8) {
            case 0: /* full warp, strided: the inline case */
            case 1:
            case 2:
                recs[n++] = insn_stride(cta, warp, 0x100 + 16 * (uint64_t)i, i % 4, i % 5, 4,
                                        0xffffffffu, base, 4);
                break;
            case 3: /* partial warp, strided */
                recs[n++] = insn_stride(cta, warp, 0x200, 0, 0, 8, 0x00ff00f0u, base, -8);
                break;
            case 4: { /* scattered: deltas or list */
                struct gcr_record r = insn_stride(cta, warp, 0x300, 1, 1, 4, 0xffff0000u, 0, 0);
                for (int lane = 16; lane < 32; lane++)
                    r.u.insn.addr[lane] = base + (uint64_t)(lane * lane) * (i % 3 ? 8 : 1ull << 40);
                recs[n++] = r;
                break;
            }
            case 5: /* no active lane */
                recs[n++] = insn_stride(cta, warp, 0x400, 0, 2, 4, 0, 0, 0);
                break;
            default:
                recs[n++] = nonmem(cta, warp, (uint32_t)(1 + i * 37));
            }
        }
    /* Register dependencies on some of them, in each of their encodings (README.md, section
     * 6.3): the run decoder reads them too. */
    for (size_t i = 2; i < n; i++) {
        uint32_t waits = i % 3 == 0    ? 0
                         : i % 3 == 1  ? GCR_WAITS_KNOWN
                         : i % 16 == 2 ? GCR_WAITS_KNOWN | 1u << (GCR_WAIT_WINDOW - 1)
                                       : GCR_WAITS_KNOWN | (i % 2 ? GCR_WAITS_BARRIER : 0) |
                                             (uint32_t)(i % 31);
        /* Non-memory dependencies (version 1.2) on some warp instructions, and units with
         * them on some non-memory records, made single instructions. */
        uint32_t alu = waits && i % 4 != 0 ? (uint32_t)(i * 0x9e37u) & GCR_WAITS_ALU_MASK : 0;
        if (recs[i].kind == GCR_REC_WARP_INSN) {
            recs[i].u.insn.waits = waits | alu;
        } else if (waits && i % 5 != 0) {
            recs[i].u.nonmem.count = 1;
            recs[i].u.nonmem.waits = gcr_waits_with_unit(
                waits | alu, (enum gcr_unit)(1 + i % (GCR_UNIT_COUNT - 1)));
        } else {
            recs[i].u.nonmem.waits = waits;
        }
    }
    recs[n++] = kend(1);
    recs[n++] = kbegin(2, "empty", 1, 1, 1, 32, 1, 1);
    recs[n++] = kend(2);
    recs[n++] = mcpy(0x2000, 64);
    recs[n++] = kbegin(3, "k3", 200, 1, 1, 32, 1, 1);
    recs[n++] = insn_stride(150, 0, 0x10, 0, 0, 4, 0xffffffffu, 0x9000, 4);
    recs[n++] = kend(3);
    return n;
}

int main(void)
{
    char path[256];
    tmp_path(path, sizeof path, "run");

    /* The fixtures of every format, valid and damaged (gcrt's runs, and the core's runs
     * for the formats without them). */
    static const char *const dirs[] = {"gcrt", "text", "accelsim"};
    size_t files = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/trace-formats/%s/fixtures", GCR_SOURCE_ROOT, dirs[d]);
        DIR *dp = opendir(dir);
        CHECK(dp != NULL);
        struct dirent *de;
        while (dp && (de = readdir(dp)) != NULL) {
            if (de->d_name[0] == '.' || strcmp(de->d_name, "README.md") == 0)
                continue;
            char src[1024];
            snprintf(src, sizeof src, "%s/%s", dir, de->d_name);
            CHECK_EQ_U(check_file(src, src), 0);
            files++;
        }
        if (dp)
            closedir(dp);
    }
    CHECK(files > 80);

    /* A generated trace in small blocks (runs end at block ends too), stored and zstd. */
    static struct gcr_record recs[256];
    size_t n = build(recs);
    struct gcr_err err = {0};
    for (int level = 0; level <= 3; level += 3) {
        CHECK(write_trace(path, recs, n, level, 300, &err) == 0);
        CHECK_EQ_U(check_file(path, level ? "generated, zstd" : "generated"), 0);
        /* And they are the records written (kernel names aside: keep() drops them). */
        struct outcome o = read_with(path, false, 32);
        CHECK_EQ_U(o.rc, 0);
        CHECK_EQ_U(o.n, n);
        for (size_t i = 0; i < n && i < o.n; i++)
            if (recs[i].kind != GCR_REC_KERNEL_BEGIN)
                CHECK_EQ_U(record_diff(&recs[i], &o.recs[i], i), 0);
        free(o.recs);
    }

    /* The stored trace with each payload byte changed in a few ways, checksums fixed up:
     * every kind of bad record (overlong or oversized varints, unknown types and modes,
     * warps and CTAs out of range, a CTA that reappears) inside a run. */
    CHECK(write_trace(path, recs, n, 0, 300, &err) == 0);
    size_t len;
    unsigned char *full = slurp(path, &len);
    unsigned char *work = malloc(len);
    static const unsigned char patterns[] = {0x01, 0x80, 0x7f};
    size_t tried = 0, rejected = 0, bad = 0;
    for (size_t off = 32; off + 40 <= len && memcmp(full + off, "GBLK", 4) == 0;) {
        uint32_t stored = get32(full + off + 12);
        for (size_t i = off + 40; i < off + 40 + stored; i++)
            for (size_t k = 0; k < sizeof patterns; k++) {
                memcpy(work, full, len);
                work[i] ^= patterns[k];
                rehash(work, len);
                spit(path, work, len);
                char what[64];
                snprintf(what, sizeof what, "byte %zu ^ 0x%02x", i, patterns[k]);
                bad += check_file_runs(path, what, 3) != 0; /* runs of 1, 2, 32 */
                struct outcome o = read_with(path, false, 0);
                rejected += o.rc < 0;
                free(o.recs);
                tried++;
            }
        off += 40 + stored;
    }
    CHECK_EQ_U(bad, 0);
    /* Many changes must reach a rejected record, or the test would show little (changes
     * inside addresses and counts only change values). */
    CHECK(rejected > tried / 4);
    printf("payload changes: %zu tried, %zu rejected, runs agree on all\n", tried, rejected);
    free(work);
    free(full);

    /* The examples, longer than the fixtures: text read by the core's runs. */
    CHECK_EQ_U(check_file(GCR_SOURCE_ROOT "/examples/traces/stencil.txt", "stencil.txt"), 0);
    CHECK_EQ_U(check_file(GCR_SOURCE_ROOT "/examples/traces/broadcast.txt", "broadcast.txt"), 0);

    /* A run of 0 records is refused. */
    struct gcr_reader *rd;
    struct gcr_record one;
    CHECK(gcr_reader_open(&rd, GCR_SOURCE_ROOT "/examples/traces/stencil.txt", NULL, &err) == 0);
    CHECK_EQ_U(gcr_reader_next_run(rd, &one, 0, &err), -1);
    CHECK_EQ_U(err.status, GCR_E_INTERNAL);
    gcr_reader_close(rd);

    remove(path);
    CHECK_DONE();
}
