/* Text reader errors: every bad fixture gives exactly the status and message
 * listed in trace-formats/text/fixtures/README.md, and every bad-*.txt in the
 * fixture folder is listed there (so the documentation cannot drift). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcreplay/format.h"

extern const struct gcr_trace_format gcr_format_text;

#define FIXTURES GCR_SOURCE_ROOT "/trace-formats/text/fixtures/"
#define MAX_ENTRIES 128

struct entry {
    char name[128];
    char status[64];
    char msg[512]; /* with the bare file name as path */
};

/* dst = a + b; fails the test instead of truncating. */
static void join(char *dst, size_t cap, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la + lb >= cap) {
        fprintf(stderr, "%s:%d: '%s%s' is too long for the test\n", __FILE__, __LINE__, a, b);
        check_failures++;
        dst[0] = '\0';
        return;
    }
    memcpy(dst, a, la);
    memcpy(dst + la, b, lb + 1);
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

/* README layout per fixture: "### <name>", prose, then two indented lines:
 * the status name and the message. */
static int parse_readme(struct entry *e, int max)
{
    FILE *f = fopen(FIXTURES "README.md", "r");
    char line[1024];
    int n = -1, indented = 0;
    if (!f) {
        perror(FIXTURES "README.md");
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        chomp(line);
        if (strncmp(line, "### ", 4) == 0) {
            if (n + 1 >= max)
                break;
            n++;
            memset(&e[n], 0, sizeof e[n]);
            join(e[n].name, sizeof e[n].name, "", line + 4);
            indented = 0;
        } else if (n >= 0 && strncmp(line, "    ", 4) == 0) {
            if (indented == 0)
                join(e[n].status, sizeof e[n].status, "", line + 4);
            else if (indented == 1)
                join(e[n].msg, sizeof e[n].msg, "", line + 4);
            indented++;
        }
    }
    fclose(f);
    return n + 1;
}

static enum gcr_status status_from_name(const char *s)
{
    if (strcmp(s, "GCR_E_FORMAT") == 0)
        return GCR_E_FORMAT;
    if (strcmp(s, "GCR_E_TRUNCATED") == 0)
        return GCR_E_TRUNCATED;
    if (strcmp(s, "GCR_E_IO") == 0)
        return GCR_E_IO;
    return GCR_OK; /* never expected: makes the check fail */
}

/* Reads a file to its end or first error; returns the final result. */
static int read_to_end(const char *path, struct gcr_err *err, int *records)
{
    void *st;
    struct gcr_record rec;
    int rc = gcr_format_text.reader_open(&st, NULL, path, err);
    *records = 0;
    if (rc != 0)
        return rc;
    while ((rc = gcr_format_text.reader_next(st, &rec, err)) == 1)
        (*records)++;
    gcr_format_text.reader_close(st);
    return rc;
}

static void test_listed_fixtures(const struct entry *e, int n)
{
    for (int i = 0; i < n; i++) {
        char path[1024], want[2048];
        struct gcr_err err = {GCR_OK, ""};
        int records;
        join(path, sizeof path, FIXTURES, e[i].name);
        join(want, sizeof want, FIXTURES, e[i].msg);
        int rc = read_to_end(path, &err, &records);
        CHECK_EQ_U(rc, (unsigned long long)-1);
        CHECK_EQ_U(err.status, status_from_name(e[i].status));
        /* The message names the file as given to the reader and the line. */
        CHECK_STR_CONTAINS(err.msg, path);
        CHECK(strncmp(e[i].msg, e[i].name, strlen(e[i].name)) == 0 &&
              e[i].msg[strlen(e[i].name)] == ':');
        if (strcmp(err.msg, want) != 0) {
            fprintf(stderr, "%s:%d: %s\n  got:      %s\n  expected: %s\n", __FILE__, __LINE__,
                    e[i].name, err.msg, want);
            check_failures++;
        }
    }
}

/* A few entries checked against values written here, independently of the
 * README, so that an edited README cannot weaken them. */
static void test_pinned(void)
{
    static const struct {
        const char *name;
        enum gcr_status status;
        const char *where_what;
    } pinned[] = {
        {"bad-empty.txt", GCR_E_FORMAT, "bad-empty.txt:1: empty file"},
        {"bad-truncated.txt", GCR_E_TRUNCATED,
         "bad-truncated.txt:5: trace ends inside kernel 1 before its kernel end (begun at line 3"},
        {"bad-cta-reappears.txt", GCR_E_FORMAT, "bad-cta-reappears.txt:7: CTA 0 reappears"},
        {"bad-number-junk.txt", GCR_E_FORMAT, "bad-number-junk.txt:3: bad CTA id '12abc'"},
        {"bad-address-count.txt", GCR_E_FORMAT,
         "bad-address-count.txt:4: mask 0x00000003 has 2 active lanes but the line lists 3"},
        {"bad-nested-kernel.txt", GCR_E_FORMAT,
         "bad-nested-kernel.txt:4: kernel 2 begins before kernel 1 has ended"},
        {"bad-op.txt", GCR_E_FORMAT, "bad-op.txt:3: unknown operation 'ld'"},
    };
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++) {
        char path[1024];
        struct gcr_err err = {GCR_OK, ""};
        int records;
        join(path, sizeof path, FIXTURES, pinned[i].name);
        CHECK_EQ_U(read_to_end(path, &err, &records), (unsigned long long)-1);
        CHECK_EQ_U(err.status, pinned[i].status);
        CHECK_STR_CONTAINS(err.msg, pinned[i].where_what);
    }
}

int main(void)
{
    static struct entry entries[MAX_ENTRIES];
    int n = parse_readme(entries, MAX_ENTRIES);
    CHECK(n >= 30);
    for (int i = 0; i < n; i++)
        CHECK(entries[i].status[0] != '\0' && entries[i].msg[0] != '\0');
    test_listed_fixtures(entries, n);
    check_bad_fixtures_listed(FIXTURES, entries, sizeof *entries, n);
    test_pinned();
    CHECK_DONE();
}
