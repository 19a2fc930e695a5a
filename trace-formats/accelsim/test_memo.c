/* The reader's fast paths give the records a full parse gives.
 *
 * - The line memo (a line that repeats an earlier one of its PC is not parsed again): each
 *   trace is read twice, once as usual and once without the memo, which parses every line in
 *   full; the records, register
 *   dependencies and `info` details must be the same. The traces: a generated one whose warps
 *   repeat, vary and break each part of a line the memo keeps (masks, registers, bases,
 *   deltas, immediates, register values, long lines, many registers), every ok-* fixture, and
 *   the smallest real capture when shared/ is there.
 * - GCR_READ_SKIP_ONCHIP_LANES: the same records but for the lanes of on-chip accesses.
 * - The trade-off it makes: a fault in the skipped lanes of a shared-memory line goes unseen
 *   with the skip (a replay without instruction observers), and is an error without it (info,
 *   convert, and a replay with an observer).
 *
 * The reader's own functions are compiled into this test (accelsim.c is included) to reach its
 * memo. */
#include "accelsim.c"

#include <dirent.h>
#include <unistd.h>

#include "accelsim_test.h"

/* Reads path to its end or first error; without memo, with no memo for any line (one call may
 * parse several lines). */
static struct recs read_raw(const char *path, bool memo, unsigned skips, json_t **details)
{
    struct recs v;
    memset(&v, 0, sizeof v);
    void *state;
    if (accelsim_open(&state, NULL, path, &v.err) != 0) {
        v.rc = -1;
        return v;
    }
    struct accelsim_reader *r = state;
    accelsim_set_skips(state, skips);
    struct gcr_record rec;
    for (;;) {
        if (!memo) { /* a kernel file opened by this call gets one, for lines of later calls */
            memo_free(r->memo);
            r->memo = NULL;
        }
        if ((v.rc = accelsim_next(state, &rec, &v.err)) != 1)
            break;
        recs_add(&v, &rec);
    }
    if (details) {
        *details = json_object();
        accelsim_describe(state, *details);
    }
    accelsim_close(state);
    return v;
}

static bool onchip(const struct gcr_record *r)
{
    return r->kind == GCR_REC_WARP_INSN && r->u.insn.space != GCR_SPACE_GLOBAL &&
           r->u.insn.space != GCR_SPACE_LOCAL;
}

/* Equal records, register dependencies and strided hints included; with skipped, the lanes
 * of on-chip accesses are not compared. */
static bool same_as_full(const struct recs *a, const struct recs *b, bool skipped)
{
    if (a->n != b->n || a->rc != b->rc) {
        fprintf(stderr, "%zu records (rc %d) against %zu (rc %d)\n", a->n, a->rc, b->n, b->rc);
        return false;
    }
    for (size_t i = 0; i < a->n; i++) {
        struct gcr_record x = a->r[i], y = b->r[i];
        if (skipped && onchip(&x)) {
            memset(x.u.insn.addr, 0, sizeof x.u.insn.addr);
            memset(y.u.insn.addr, 0, sizeof y.u.insn.addr);
            x.u.insn.strided = y.u.insn.strided = false;
        }
        bool waits = x.kind == GCR_REC_WARP_INSN   ? x.u.insn.waits == y.u.insn.waits
                     : x.kind == GCR_REC_NONMEM ? x.u.nonmem.waits == y.u.nonmem.waits
                                                  : true;
        if (!same_record(&x, &y, !(skipped && onchip(&x))) || !waits) {
            fprintf(stderr, "record %zu (kind %d) differs\n", i, (int)x.kind);
            return false;
        }
    }
    return true;
}

/* Equal details, or none for both (a trace that fails to open has none). */
static bool same_json(json_t *a, json_t *b)
{
    return a && b ? json_equal(a, b) : a == b;
}

static void check_trace(const char *path)
{
    json_t *d_memo = NULL, *d_full = NULL, *d_skip = NULL;
    struct recs full = read_raw(path, false, 0, &d_full);
    struct recs memo = read_raw(path, true, 0, &d_memo);
    struct recs skip = read_raw(path, true, GCR_READ_SKIP_ONCHIP_LANES, &d_skip);
    if (!same_as_full(&memo, &full, false) || !same_as_full(&skip, &full, true) ||
        !same_json(d_memo, d_full) || !same_json(d_skip, d_full) ||
        strcmp(memo.err.msg, full.err.msg) != 0) {
        fprintf(stderr, "%s: the fast paths read differently (%s | %s)\n", path, memo.err.msg,
                full.err.msg);
        check_failures++;
    }
    json_decref(d_memo);
    json_decref(d_full);
    json_decref(d_skip);
    recs_free(&full);
    recs_free(&memo);
    recs_free(&skip);
}

/* A v6 kernel of 3 thread blocks of 4 warps whose lines repeat across warps, each with a
 * variation on some warps: the memo must hit, miss and half-hit. */
static void write_varied(const char *path, bool lanes_fault)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("-kernel name = varied\n-kernel id = 1\n-grid dim = (3,1,1)\n-block dim = (128,1,1)\n"
          "-shmem = 4096\n-nregs = 32\n-binary version = 70\n"
          "-shmem base_addr = 0x00007f2b5a000000\n-local mem base_addr = 0x00007f2b58000000\n"
          "-accelsim tracer version = 6\n-enable lineinfo = 0\n\n#traces format = ...\n\n",
          f);
    for (int tb = 0; tb < 3; tb++) {
        fprintf(f, "#BEGIN_TB\nthread block = %d,0,0\n", tb);
        for (int w = 0; w < 4; w++) {
            int g = tb * 4 + w;
            fprintf(f, "warp = %d\ninsts = 14\n", w);
            fputs("0000 ffffffff 1 R1 MOV 0 0 0 NoVal \n", f);
            /* the immediate differs on odd warps */
            fprintf(f, "0010 ffffffff 1 R2 IADD3 2 R1 R1 0 %d NoVal \n", g & 1);
            /* same deltas, another base; the deltas differ on warp 2 */
            fprintf(f, "0020 ffffffff 1 R4 LDG.E 1 R2 4 2 0x%x", 0x7f0000 + 0x1000 * g);
            for (int k = 1; k < 32; k++)
                fprintf(f, " %d", k == 16 ? -60 + (w == 2 ? 8 : 0) : 4);
            fputs(" 0 NoVal\n", f);
            /* a mask that differs on warp 3, a stride */
            fprintf(f, "0030 %s 1 R5 LDG.E 1 R4 4 1 0x%x 4 0 NoVal \n",
                    w == 3 ? "0000ffff" : "ffffffff", 0x7f8000 + 0x80 * g);
            /* registers that wait for the loads; another destination on warp 1 */
            fprintf(f, "0040 ffffffff 1 R%d FFMA 3 R4 R5 R2 0 0 NoVal \n", w == 1 ? 7 : 6);
            /* shared memory: deltas, a stride, values of registers that differ by warp */
            fprintf(f, "0050 ffffffff 1 R8 LDS.U.32 1 R6 4 2 0x%x", 0x400 + 0x40 * w);
            for (int k = 1; k < 32; k++) /* with lanes_fault, junk only a full parse sees */
                fputs(k == 16 ? " -60" : lanes_fault && g == 5 && k == 5 ? " 4x" : " 4", f);
            fprintf(f, " 0 Val 1 %x 1 6\n", g);
            fprintf(f, "0060 ffffffff 0 STS 2 R6 R8 4 1 0x%x 4 0 NoVal \n", 0x200 * w);
            /* an atomic in shared memory, a constant load */
            fputs("0070 0000000f 1 R9 ATOMS.ADD 2 R6 R8 4 0 0x10 0x14 0x18 0x1c 0 NoVal \n", f);
            fprintf(f, "0080 ffffffff 1 R10 LDC 1 R1 4 1 0x%x 0 0 NoVal \n", 0x100 + w);
            /* more registers than the memo keeps */
            fputs("0090 ffffffff 8 R11 R12 R13 R14 R15 R16 R17 R18 HMMA.1688.F32 10 R4 R5 R6 "
                  "R7 R8 R9 R10 R11 R12 R13 0 0 NoVal \n", f);
            /* a line longer than the memo keeps: 32 full addresses */
            fputs("00a0 ffffffff 1 R19 LDG.E.64 1 R4 8 0", f);
            for (int k = 0; k < 32; k++)
                fprintf(f, " 0x%016x", 0x7f900000 + 0x100 * k + g);
            fputs(" 0 NoVal\n", f);
            /* a generic load into the local window, a barrier, the end */
            fputs("00b0 ffffffff 1 R20 LD.E 1 R4 4 1 0x7f2b58000010 4 0 NoVal \n", f);
            fputs("00c0 ffffffff 0 BAR.SYNC 0 0 0 NoVal \n", f);
            fputs("00d0 ffffffff 0 EXIT 0 0 0 NoVal \n", f);
        }
        fputs("#END_TB\n", f);
    }
    CHECK(fclose(f) == 0);
}

int main(void)
{
    char path[4096];
    snprintf(path, sizeof path, "accelsim-memo-%d.traceg", (int)getpid());
    write_varied(path, false);
    check_trace(path);

    /* The trade-off of skipping lanes: read in full, the bad delta is an error; skipped, it
     * goes unseen, and the records are those of the trace without it. */
    struct recs clean = read_raw(path, true, GCR_READ_SKIP_ONCHIP_LANES, NULL);
    write_varied(path, true);
    struct recs checked = read_raw(path, true, 0, NULL);
    CHECK(checked.rc == -1 && strstr(checked.err.msg, ":107: bad delta '4x': expected a decimal "
                                                      "number"));
    struct recs skipped = read_raw(path, true, GCR_READ_SKIP_ONCHIP_LANES, NULL);
    CHECK(skipped.rc == 0 && same_as_full(&skipped, &clean, true));
    recs_free(&clean);
    recs_free(&checked);
    recs_free(&skipped);
    unlink(path);

    DIR *d = opendir(FIXTURES);
    CHECK(d != NULL);
    struct dirent *de;
    int fixtures = 0;
    while (d && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "ok-", 3) != 0 && strncmp(de->d_name, "bad-", 4) != 0)
            continue;
        snprintf(path, sizeof path, FIXTURES "%s", de->d_name);
        check_trace(path);
        fixtures++;
    }
    if (d)
        closedir(d);
    CHECK(fixtures >= 10);

    struct stat st;
    const char *real = GCR_SHARED_ROOT "/traces/accelsim/matrixmul-32x32";
    if (stat(real, &st) == 0)
        check_trace(real);
    CHECK_DONE();
}
