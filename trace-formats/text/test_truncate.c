/* Text reader robustness: a valid trace cut at every byte length reads
 * cleanly exactly when the cut leaves no kernel open (and the header whole),
 * and otherwise fails with a placed error; seeded random byte mutations of
 * the fixtures never crash and never yield a record breaking the rules. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gcreplay/format.h"

extern const struct gcr_trace_format gcr_format_text;

#define FIXTURES GCR_SOURCE_ROOT "/trace-formats/text/fixtures/"

static char tmp_path[4096];

static void write_file(const char *data, size_t len)
{
    FILE *f = fopen(tmp_path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        perror(tmp_path);
        exit(1);
    }
}

struct outcome {
    int rc; /* 0 clean end, -1 error */
    int records;
    struct gcr_err err;
    int invalid_records; /* records breaking gcr_record_invalid: must stay 0 */
};

/* Reads tmp_path to its end, checking each record against the open kernel. */
static struct outcome read_back(void)
{
    struct outcome o = {0, 0, {GCR_OK, ""}, 0};
    struct gcr_kernel_begin kb;
    bool in_kernel = false;
    struct gcr_record rec;
    void *st;
    o.rc = gcr_format_text.reader_open(&st, NULL, tmp_path, &o.err);
    if (o.rc != 0)
        return o;
    while ((o.rc = gcr_format_text.reader_next(st, &rec, &o.err)) == 1) {
        o.records++;
        if (gcr_record_invalid(&rec, in_kernel ? &kb : NULL))
            o.invalid_records++;
        if (rec.kind == GCR_REC_KERNEL_BEGIN) {
            kb = rec.u.kbegin;
            in_kernel = true;
        } else if (rec.kind == GCR_REC_KERNEL_END) {
            in_kernel = false;
        }
        if (o.records > 100000)
            break; /* cannot happen for these inputs; bounds a broken reader */
    }
    gcr_format_text.reader_close(st);
    return o;
}

/* An error must be placed: `<path>:<line>: ` with a line inside the input. */
static void check_placed(const struct outcome *o, size_t lines_in_input)
{
    char prefix[4200];
    unsigned long line = 0;
    int n = snprintf(prefix, sizeof prefix, "%s:", tmp_path);
    CHECK(strncmp(o->err.msg, prefix, (size_t)n) == 0);
    CHECK(sscanf(o->err.msg + n, "%lu: ", &line) == 1);
    CHECK(line >= 1 && line <= (lines_in_input ? lines_in_input : 1));
    CHECK(o->err.status == GCR_E_FORMAT || o->err.status == GCR_E_TRUNCATED);
}

static size_t count_lines(const char *s, size_t len)
{
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += s[i] == '\n';
    return lines + (len && s[len - 1] != '\n');
}

/* The trace cut at every length. A cut is clean iff the header is whole, the
 * cut is not strictly inside [start of a `kernel` line, end of the id of its
 * `end` line], and a cut `memcpy` line keeps at least one digit of its size
 * (it is then a valid, smaller copy). A clean cut yields exactly the records
 * whose lines are whole, counting such a cut `memcpy`. */
static void test_every_prefix(const char *text)
{
    size_t len = strlen(text);
    size_t header_len = strlen("#gcreplay-text 1");
    size_t kernel_start[8], end_done[8], record_end[64], copy_start[8], size_start[8];
    int kernels = 0, ends = 0, records = 0, copies = 0;
    for (size_t at = 0; at < len;) {
        size_t eol = at;
        while (eol < len && text[eol] != '\n')
            eol++;
        size_t stop = eol > at && text[eol - 1] == '\r' ? eol - 1 : eol;
        if (strncmp(text + at, "kernel ", 7) == 0)
            kernel_start[kernels++] = at;
        if (strncmp(text + at, "end ", 4) == 0)
            end_done[ends++] = stop;
        if (strncmp(text + at, "memcpy ", 7) == 0) {
            copy_start[copies] = at;
            size_t space = stop;
            while (text[space - 1] != ' ')
                space--;
            size_start[copies] = space; /* first byte of the size field */
            record_end[records++] = size_start[copies++] + 1;
        } else if (text[at] != '#') {
            record_end[records++] = stop;
        }
        at = eol + 1;
    }
    CHECK_EQ_U(kernels, ends);

    for (size_t p = 0; p <= len; p++) {
        bool clean = p >= header_len;
        for (int k = 0; k < kernels; k++)
            if (p > kernel_start[k] && p < end_done[k])
                clean = false;
        for (int c = 0; c < copies; c++)
            if (p > copy_start[c] && p <= size_start[c])
                clean = false;
        int whole = 0;
        for (int r = 0; r < records; r++)
            whole += record_end[r] <= p;

        write_file(text, p);
        struct outcome o = read_back();
        CHECK_EQ_U(o.invalid_records, 0);
        if (clean) {
            if (o.rc != 0 || o.records != whole)
                fprintf(stderr, "%s:%d: cut at %zu: rc %d, %d records (want %d): %s\n",
                        __FILE__, __LINE__, p, o.rc, o.records, whole, o.err.msg);
            CHECK_EQ_U(o.rc, 0);
            CHECK_EQ_U(o.records, whole);
        } else {
            if (o.rc != -1)
                fprintf(stderr, "%s:%d: cut at %zu read cleanly\n", __FILE__, __LINE__, p);
            CHECK_EQ_U(o.rc, (unsigned long long)-1);
            check_placed(&o, count_lines(text, p));
        }
    }
}

static const char trace_lf[] =
    "#gcreplay-text 1\n"
    "# a comment before the first kernel\n"
    "memcpy 0x7f0000000000 4096\n"
    "kernel 1 k grid=2,1,1 block=64,1,1 shmem=0 regs=8\n"
    "0 0 compute 3\n"
    "0 1 0x10 load global 4 0xffffffff 0x1000+4   # comment\n"
    "1 0 0x20 store global cache=bypass_l1 8 0x3 0x2000 0x2010\n"
    "end 1\n"
    "# between kernels\n"
    "kernel 22 k2 grid=1,1,1 block=32,1,1 shmem=16 regs=2\n"
    "0 0 0x30 atomic shared 4 0x0 -\n"
    "end 22\n";

static const char trace_crlf[] =
    "#gcreplay-text 1\r\n"
    "kernel 1 k grid=2,1,1 block=64,1,1 shmem=0 regs=8\r\n"
    "1 0 0x20 store global 8 0x3 0x2000 0x2010\r\n"
    "end 1\r\n"
    "# between kernels\r\n"
    "kernel 2 k2 grid=1,1,1 block=32,1,1 shmem=16 regs=2\r\n"
    "0 0 compute 1\r\n"
    "end 2\r\n";

/* ---- random mutations ---- */

static uint64_t rng_state = 12345;

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
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

static void test_mutations(const char *fixture, int rounds)
{
    static const char interesting[] = "\n\r\t #%-+=,0x9fFz\0";
    char path[4096];
    size_t len;
    snprintf(path, sizeof path, "%s%s", FIXTURES, fixture);
    char *orig = slurp(path, &len);
    char *buf = malloc(len + 1);
    CHECK(len > 0);
    int clean = 0, failed = 0;
    for (int round = 0; round < rounds && len > 0; round++) {
        memcpy(buf, orig, len);
        int edits = 1 + (int)(rnd() % 3);
        for (int e = 0; e < edits; e++) {
            size_t at = (size_t)(rnd() % len);
            buf[at] = rnd() % 2 ? interesting[rnd() % (sizeof interesting - 1)] : (char)rnd();
        }
        write_file(buf, len);
        struct outcome o = read_back();
        CHECK_EQ_U(o.invalid_records, 0);
        CHECK(o.rc == 0 || o.rc == -1);
        if (o.rc == 0) {
            clean++;
        } else {
            failed++;
            check_placed(&o, count_lines(buf, len));
        }
    }
    /* Both outcomes occur: the mutations are neither all fatal nor all harmless. */
    CHECK(clean > 0);
    CHECK(failed > 0);
    free(buf);
    free(orig);
}

int main(void)
{
    const char *dir = getenv("TMPDIR");
    snprintf(tmp_path, sizeof tmp_path, "%s/gcr-text-truncate-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp_path);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(fd);

    test_every_prefix(trace_lf);
    test_every_prefix(trace_crlf);
    test_mutations("valid-forms.txt", 3000);
    test_mutations("valid-example.txt", 2000);

    unlink(tmp_path);
    CHECK_DONE();
}
