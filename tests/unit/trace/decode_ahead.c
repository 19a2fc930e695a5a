/* Decoding ahead (gcr_reader_decode_ahead) hands the consumer exactly what it
 * would have read itself: every fixture of every format, good and bad, and a
 * generated trace long enough to go round the chunk ring many times, read
 * with and without the decoding thread, in runs of every length, give the same
 * records, the same end and the same error. Stopping early, and closing
 * without stopping, join the thread (ThreadSanitizer runs this too). */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcreplay/trace.h"

struct reading {
    struct gcr_record *recs;
    char **names; /* kernel names, copied: the reader's are valid until its next call */
    size_t n, cap;
    int end_rc;
    char msg[sizeof ((struct gcr_err *)0)->msg];
};

static void keep(struct reading *rd, const struct gcr_record *rec)
{
    if (rd->n == rd->cap) {
        rd->cap = rd->cap ? 2 * rd->cap : 256;
        rd->recs = realloc(rd->recs, rd->cap * sizeof *rd->recs);
        rd->names = realloc(rd->names, rd->cap * sizeof *rd->names);
        if (!rd->recs || !rd->names)
            abort();
    }
    rd->recs[rd->n] = *rec;
    rd->names[rd->n] = NULL;
    if (rec->kind == GCR_REC_KERNEL_BEGIN) {
        rd->names[rd->n] = strdup(rec->u.kbegin.name);
        rd->recs[rd->n].u.kbegin.name = rd->names[rd->n];
    }
    rd->n++;
}

static void forget(struct reading *rd)
{
    for (size_t i = 0; i < rd->n; i++)
        free(rd->names[i]);
    free(rd->names);
    free(rd->recs);
}

/* Reads r to its end or error; step picks how many records each call asks for
 * (1 means gcr_reader_next). */
static struct reading read_all(struct gcr_reader *r, unsigned (*step)(size_t call))
{
    struct reading rd = {0};
    struct gcr_record run[64];
    struct gcr_err err = {GCR_OK, ""};
    for (size_t call = 0;; call++) {
        unsigned max = step(call);
        int rc = max == 1 ? gcr_reader_next(r, run, &err)
                          : gcr_reader_next_run(r, run, max, &err);
        if (rc <= 0) {
            rd.end_rc = rc;
            if (rc < 0)
                snprintf(rd.msg, sizeof rd.msg, "%s", err.msg);
            break;
        }
        CHECK(rc >= 1 && (unsigned)rc <= max);
        for (int i = 0; i < rc; i++)
            keep(&rd, &run[i]);
    }
    return rd;
}

static unsigned runs_of_64(size_t call) { (void)call; return 64; }
static unsigned one_by_one(size_t call) { (void)call; return 1; }
static unsigned mixed(size_t call) { return (unsigned)(call * 7 % 64) + 1; }

static void same_reading(const char *what, const struct reading *a, const struct reading *b)
{
    bool same = a->n == b->n && a->end_rc == b->end_rc && strcmp(a->msg, b->msg) == 0;
    for (size_t i = 0; same && i < a->n; i++)
        same = gcr_record_same(&a->recs[i], &b->recs[i]);
    if (!same)
        fprintf(stderr, "%s: %zu records, end %d \"%s\" without the thread; %zu, %d \"%s\" "
                "with it\n", what, a->n, a->end_rc, a->msg, b->n, b->end_rc, b->msg);
    CHECK(same);
}

typedef int (*open_fn)(struct gcr_reader **r, const void *arg, struct gcr_err *err);

/* Compares the readings; returns the records read and *end_rc, or 0 and -2
 * for what does not open as a trace at all (nothing to decode). */
static size_t compare(const char *what, open_fn open, const void *arg, int *end_rc)
{
    struct gcr_err err;
    struct gcr_reader *r;
    *end_rc = -2;
    if (open(&r, arg, &err) != 0)
        return 0;
    struct reading want = read_all(r, runs_of_64);
    *end_rc = want.end_rc;
    gcr_reader_close(r);
    unsigned (*steps[])(size_t) = {runs_of_64, one_by_one, mixed};
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        CHECK(open(&r, arg, &err) == 0);
        CHECK(gcr_reader_decode_ahead(r, true, &err) == 0);
        struct reading got = read_all(r, steps[s]);
        same_reading(what, &want, &got);
        /* The end, or the error, again on a later call. */
        struct gcr_record rec;
        CHECK(gcr_reader_next(r, &rec, &err) == want.end_rc);
        CHECK(gcr_reader_decode_ahead(r, false, &err) == 0);
        gcr_reader_close(r);
        forget(&got);
    }
    /* Stopped after a few records, and closed while decoding. */
    CHECK(open(&r, arg, &err) == 0);
    CHECK(gcr_reader_decode_ahead(r, true, &err) == 0);
    struct gcr_record rec;
    for (int i = 0; i < 3 && gcr_reader_next(r, &rec, &err) == 1; i++)
        ;
    CHECK(gcr_reader_decode_ahead(r, false, &err) == 0);
    gcr_reader_close(r);
    CHECK(open(&r, arg, &err) == 0);
    CHECK(gcr_reader_decode_ahead(r, true, &err) == 0);
    gcr_reader_close(r);
    size_t n = want.n;
    forget(&want);
    return n;
}

static int open_path(struct gcr_reader **r, const void *path, struct gcr_err *err)
{
    return gcr_reader_open(r, path, NULL, err);
}

struct text {
    const char *data;
    size_t size;
};

static int open_text(struct gcr_reader **r, const void *arg, struct gcr_err *err)
{
    const struct text *t = arg;
    return gcr_reader_open_memory(r, "long.txt", t->data, t->size, NULL, err);
}

/* Three kernels of 300 CTAs of 4 warps with 6 instructions each: about 22,000
 * records, the chunk ring's size many times over; the last kernel is cut
 * short when truncate is set, which must end in the same error. */
static char *long_trace(size_t *size, bool truncate)
{
    char *buf;
    FILE *f = open_memstream(&buf, size);
    if (!f)
        abort();
    fprintf(f, "#gcreplay-text 1\n");
    for (int k = 1; k <= 3; k++) {
        fprintf(f, "kernel %d k%d grid=300,1,1 block=128,1,1 shmem=0 regs=16\n", k, k);
        for (int c = 0; c < 300; c++)
            for (int w = 0; w < 4; w++) {
                for (int i = 0; i < 5; i++)
                    fprintf(f, "%d %d 0x%x load global 4 0xffffffff 0x%llx+4\n", c, w,
                            0x100 + 16 * i,
                            0x10000000ull + (unsigned long long)(c * 4 + w) * 4096 + i * 128u);
                fprintf(f, "%d %d compute 3\n", c, w);
            }
        if (!(truncate && k == 3))
            fprintf(f, "end %d\n", k);
    }
    fclose(f);
    return buf;
}

int main(void)
{
    static const char *const formats[] = {"gcrt", "text", "accelsim"};
    int opened = 0;
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/trace-formats/%s/fixtures", GCR_SOURCE_ROOT, formats[f]);
        DIR *d = opendir(dir);
        CHECK(d != NULL);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.' || strstr(e->d_name, ".md") ||
                strcmp(e->d_name, "errors.txt") == 0)
                continue;
            char path[1024];
            int end_rc;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            compare(path, open_path, path, &end_rc);
            opened += end_rc != -2;
        }
        if (d)
            closedir(d);
    }
    for (int truncate = 0; truncate <= 1; truncate++) {
        struct text t;
        char *buf = long_trace(&t.size, truncate);
        t.data = buf;
        int end_rc;
        size_t n = compare(truncate ? "long trace, cut short" : "long trace", open_text, &t,
                           &end_rc);
        CHECK(n > 20000);
        CHECK_EQ_U(end_rc, truncate ? -1 : 0);
        free(buf);
    }
    CHECK(opened > 60); /* the fixtures were found, and most open */
    CHECK_DONE();
}
