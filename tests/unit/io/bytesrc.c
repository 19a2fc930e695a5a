/* Byte sources and the line reader (src/io/bytesrc.h): every codec, concatenated streams,
 * members and frames, reads in odd chunk sizes, line edge cases (CRLF, no final newline, lines
 * longer than the buffer, NUL bytes, empty files), and errors for missing files, directories,
 * truncated, corrupt and trailing data, each naming the path and a byte offset. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compress_util.h"
#include "io/bytesrc.h"

static char tmpdir[256];

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmpdir, name);
}

static void put(const char *name, const void *data, size_t len)
{
    char p[512];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        perror(p);
        exit(2);
    }
}

/* Reads the whole content of path in chunks of cap bytes. */
static int slurp(const char *path, size_t cap, struct buf *out, struct gcr_err *err)
{
    struct gcr_bytesrc *s;
    if (gcr_bytesrc_open(&s, NULL, path, err) != 0)
        return -1;
    unsigned char *chunk = malloc(cap);
    ptrdiff_t n;
    while ((n = gcr_bytesrc_read(s, chunk, cap, err)) > 0)
        buf_add(out, chunk, (size_t)n);
    free(chunk);
    CHECK(gcr_bytesrc_content_bytes(s) == out->len || n < 0);
    gcr_bytesrc_close(s);
    return n < 0 ? -1 : 0;
}

/* A content with every line shape: CRLF, blank, long (over the line reader's buffer), with a
 * NUL byte, and a last line without a newline. */
static struct buf make_content(void)
{
    struct buf b = {0};
    const char *head = "first line\r\n\nthird\tline  \n";
    buf_add(&b, head, strlen(head));
    for (unsigned i = 0; i < GCR_MAX_LINE_BYTES / 16; i++) /* the longest line allowed */
        buf_add(&b, "0123456789abcdef", 16);
    buf_add(&b, "\n", 1);
    buf_add(&b, "nul\0byte\n", 9);
    for (int i = 0; i < 20000; i++) {
        char line[64];
        int n = snprintf(line, sizeof line, "%04x ffffffff 1 R%d MOV 0 0\n", i, i % 255);
        buf_add(&b, line, (size_t)n);
    }
    buf_add(&b, "last without newline", 20);
    return b;
}

/* Checks the lines of path against the content's lines. */
static void check_lines(const char *path, const struct buf *c)
{
    struct gcr_err err = {0};
    struct gcr_lines *l;
    CHECK(gcr_lines_open(&l, NULL, path, &err) == 0);
    if (!l)
        return;
    size_t pos = 0;
    uint64_t number = 0;
    struct gcr_line ln;
    int rc;
    while ((rc = gcr_lines_next(l, &ln, &err)) == 1) {
        number++;
        const unsigned char *nl = memchr(c->p + pos, '\n', c->len - pos);
        size_t len = nl ? (size_t)(nl - (c->p + pos)) : c->len - pos;
        size_t want = len && c->p[pos + len - 1] == '\r' ? len - 1 : len;
        if (ln.len != want || memcmp(ln.text, c->p + pos, want) != 0 || ln.number != number ||
            ln.text[ln.len] != '\n') {
            fprintf(stderr, "%s: line %llu differs\n", path, (unsigned long long)number);
            check_failures++;
            break;
        }
        pos += len + (nl ? 1 : 0);
    }
    CHECK_EQ_U(rc, 0);
    CHECK_EQ_U(pos, c->len);
    CHECK_EQ_U(number, 20006);
    gcr_lines_close(l);
}

/* Reads path to its end and expects an error of one of two statuses naming path. */
static void expect_failure(const char *path, enum gcr_status a, enum gcr_status b,
                           const char *needle)
{
    struct gcr_err err = {0};
    struct buf got = {0};
    CHECK(slurp(path, 4096, &got, &err) == -1);
    CHECK(err.status == a || err.status == b);
    CHECK_STR_CONTAINS(err.msg, path);
    CHECK_STR_CONTAINS(err.msg, needle);
    free(got.p);
}

/* Truncated, corrupt and trailing data of one compressed content. */
static void test_damage(const unsigned char *z, size_t len, const char *ext)
{
    char name[64], p[512], needle[96];
    const size_t cuts[] = {7, 10, len / 2, len - 1}; /* each past the magic number */
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        snprintf(name, sizeof name, "cut%zu.%s", i, ext);
        put(name, z, cuts[i]);
        path_of(p, sizeof p, name);
        snprintf(needle, sizeof needle, "the file ends at byte offset %zu", cuts[i]);
        expect_failure(p, GCR_E_TRUNCATED, GCR_E_TRUNCATED, needle);
    }

    unsigned char *bad = malloc(len + 16);
    memcpy(bad, z, len);
    bad[len / 2] ^= 0x5a;
    snprintf(name, sizeof name, "flip.%s", ext);
    put(name, bad, len);
    path_of(p, sizeof p, name);
    expect_failure(p, GCR_E_FORMAT, GCR_E_TRUNCATED, "byte offset");

    memcpy(bad, z, len);
    memcpy(bad + len, "junkjunkjunkjunk", 16); /* more than a stream header */
    snprintf(name, sizeof name, "junk.%s", ext);
    put(name, bad, len + 16);
    path_of(p, sizeof p, name);
    expect_failure(p, GCR_E_FORMAT, GCR_E_FORMAT, "corrupt");
    free(bad);
}

/* Lines of a small plain content, joined with '|'. */
static void lines_of(const char *data, size_t len, const char *want)
{
    char p[512], got[256] = "";
    put("small.txt", data, len);
    path_of(p, sizeof p, "small.txt");
    struct gcr_err err = {0};
    struct gcr_lines *l;
    struct gcr_line ln;
    CHECK(gcr_lines_open(&l, NULL, p, &err) == 0);
    if (!l)
        return;
    int rc, n = 0;
    while ((rc = gcr_lines_next(l, &ln, &err)) == 1) {
        CHECK(ln.text[ln.len] == '\n'); /* the sentinel, whatever the line end was */
        size_t used = strlen(got);
        snprintf(got + used, sizeof got - used, "%s%.*s", n++ ? "|" : "", (int)ln.len, ln.text);
    }
    CHECK_EQ_U(rc, 0);
    CHECK_EQ_U(gcr_lines_next(l, &ln, &err), 0); /* the end stays the end */
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%s:%d: lines '%s', expected '%s'\n", __FILE__, __LINE__, got, want);
        check_failures++;
    }
    CHECK_EQ_U(gcr_bytesrc_file_bytes(gcr_lines_source(l)), len);
    CHECK_EQ_U(gcr_bytesrc_codec(gcr_lines_source(l)), GCR_CODEC_NONE);
    gcr_lines_close(l);
}

static void test_small_files(void)
{
    lines_of("", 0, "");
    lines_of("a", 1, "a");
    lines_of("\n", 1, "");
    lines_of("\r\n\r\n", 4, "|");
    lines_of("x\ny", 3, "x|y");
    lines_of("x\r", 2, "x");
    lines_of("\x1f", 1, "\x1f"); /* shorter than any magic number: plain */

    char p[512];
    put("gzhead.gz", "\x1f\x8b\x08", 3);
    path_of(p, sizeof p, "gzhead.gz");
    expect_failure(p, GCR_E_TRUNCATED, GCR_E_TRUNCATED, "truncated gzip data");

    static const unsigned char xz[] = {0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00};
    static const unsigned char gz[] = {0x1F, 0x8B};
    static const unsigned char zs[] = {0x28, 0xB5, 0x2F, 0xFD};
    CHECK_EQ_U(gcr_codec_detect(xz, sizeof xz), GCR_CODEC_XZ);
    CHECK_EQ_U(gcr_codec_detect(xz, 5), GCR_CODEC_NONE);
    CHECK_EQ_U(gcr_codec_detect(gz, sizeof gz), GCR_CODEC_GZIP);
    CHECK_EQ_U(gcr_codec_detect(zs, sizeof zs), GCR_CODEC_ZSTD);
    CHECK_EQ_U(gcr_codec_detect((const unsigned char *)"-kernel", 7), GCR_CODEC_NONE);
    CHECK(strcmp(gcr_codec_name(GCR_CODEC_XZ), "xz") == 0);
    CHECK(strcmp(gcr_codec_name(GCR_CODEC_NONE), "none") == 0);
}

static void test_errors(void)
{
    char p[512];
    struct gcr_err err = {0};
    struct gcr_bytesrc *s = (struct gcr_bytesrc *)&err;
    struct gcr_lines *l = (struct gcr_lines *)&err;
    path_of(p, sizeof p, "no-such-file");
    CHECK(gcr_bytesrc_open(&s, NULL, p, &err) == -1 && s == NULL);
    CHECK_EQ_U(err.status, GCR_E_IO);
    CHECK_STR_CONTAINS(err.msg, p);
    CHECK_STR_CONTAINS(err.msg, "No such file");
    CHECK(gcr_lines_open(&l, NULL, p, &err) == -1 && l == NULL);
    CHECK_EQ_U(gcr_bytesrc_peek(NULL, p, p, 4), 0);

    CHECK(gcr_bytesrc_open(&s, NULL, tmpdir, &err) == -1);
    CHECK_EQ_U(err.status, GCR_E_IO);
    CHECK_STR_CONTAINS(err.msg, "is a directory");

    /* A line one byte over the limit is an error naming its line and offset, whether its
     * newline comes in the same read or never (as from a device of endless zeros). */
    for (int newline = 0; newline <= 1; newline++) {
        size_t n = 3 + GCR_MAX_LINE_BYTES + 1;
        char *data = malloc(n + 1);
        memcpy(data, "ok\n", 3);
        memset(data + 3, 'x', GCR_MAX_LINE_BYTES + 1);
        data[n] = '\n';
        put("long.txt", data, n + (size_t)newline);
        free(data);
        path_of(p, sizeof p, "long.txt");
        CHECK(gcr_lines_open(&l, NULL, p, &err) == 0);
        struct gcr_line ln;
        CHECK_EQ_U(gcr_lines_next(l, &ln, &err), 1);
        CHECK_EQ_U(gcr_lines_next(l, &ln, &err), (unsigned long long)-1);
        CHECK_EQ_U(err.status, GCR_E_FORMAT);
        char want[600];
        snprintf(want, sizeof want, "%s:2: line longer than 1048576 bytes (from byte offset 3): "
                 "not a line of a text trace", p);
        CHECK_STR_CONTAINS(err.msg, want);
        gcr_lines_close(l);
    }
}

static void test_codecs(const struct buf *content)
{
    char p[512];
    path_of(p, sizeof p, "plain.txt");
    put("plain.txt", content->p, content->len);
    check_lines(p, content);
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
        /* One stream, then the content split in two concatenated streams/members/frames. */
        for (int parts = 1; parts <= 2; parts++) {
            struct buf z = {0};
            size_t half = parts == 1 ? content->len : content->len / 3;
            codecs[i].fn(&z, content->p, half);
            if (parts == 2)
                codecs[i].fn(&z, content->p + half, content->len - half);
            char name[64];
            snprintf(name, sizeof name, "c%d.%s", parts, codecs[i].ext);
            put(name, z.p, z.len);
            path_of(p, sizeof p, name);

            struct gcr_bytesrc *s;
            struct gcr_err err = {0};
            CHECK(gcr_bytesrc_open(&s, NULL, p, &err) == 0);
            if (s) {
                CHECK_EQ_U(gcr_bytesrc_codec(s), codecs[i].codec);
                gcr_bytesrc_close(s);
            }
            const size_t caps[] = {1, 7, 4096, 1 << 20};
            for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
                if (caps[k] == 1 && parts == 2)
                    continue; /* byte by byte once per codec is enough */
                struct buf got = {0};
                CHECK(slurp(p, caps[k], &got, &err) == 0);
                CHECK(got.len == content->len && memcmp(got.p, content->p, got.len) == 0);
                free(got.p);
            }
            check_lines(p, content);

            char head[64];
            CHECK_EQ_U(gcr_bytesrc_peek(NULL, p, head, sizeof head), sizeof head);
            CHECK(memcmp(head, content->p, sizeof head) == 0);

            if (parts == 1)
                test_damage(z.p, z.len, codecs[i].ext);
            free(z.p);
        }
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/gcr-bytesrc-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR")
                                                                              : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    struct buf content = make_content();
    test_codecs(&content);
    test_small_files();
    test_errors();
    free(content.p);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    CHECK(system(cmd) == 0);
    CHECK_DONE();
}
