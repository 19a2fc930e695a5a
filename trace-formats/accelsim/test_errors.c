/* Accel-Sim reader errors: every bad fixture gives exactly the status and message listed in
 * trace-formats/accelsim/fixtures/README.md, every bad-* in the fixture folder is listed there,
 * and an error is final (the reader keeps returning it). A few entries are also pinned here,
 * so that an edited README cannot weaken them. Runs in the fixture folder, so that messages
 * carry the bare names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelsim_test.h"

#define MAX_ENTRIES 128

struct entry {
    char name[128];
    char status[64];
    char msg[1024];
};

static void copy(char *dst, size_t cap, const char *src)
{
    if (strlen(src) >= cap) {
        fprintf(stderr, "%s:%d: '%s' is too long for the test\n", __FILE__, __LINE__, src);
        check_failures++;
        dst[0] = '\0';
        return;
    }
    strcpy(dst, src);
}

/* README layout per fixture: "### <name>", prose, then two indented lines: the status name and
 * the message. */
static int parse_readme(struct entry *e, int max)
{
    FILE *f = fopen("README.md", "r");
    char line[2048];
    int n = -1, indented = 0;
    if (!f) {
        perror("README.md");
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "### ", 4) == 0) {
            if (n + 1 >= max)
                break;
            n++;
            memset(&e[n], 0, sizeof e[n]);
            copy(e[n].name, sizeof e[n].name, line + 4);
            indented = 0;
        } else if (n >= 0 && strncmp(line, "    ", 4) == 0) {
            if (indented == 0)
                copy(e[n].status, sizeof e[n].status, line + 4);
            else if (indented == 1)
                copy(e[n].msg, sizeof e[n].msg, line + 4);
            indented++;
        }
    }
    fclose(f);
    return n + 1;
}

static enum gcr_status status_from_name(const char *s)
{
    static const struct {
        const char *name;
        enum gcr_status st;
    } names[] = {{"GCR_E_FORMAT", GCR_E_FORMAT}, {"GCR_E_TRUNCATED", GCR_E_TRUNCATED},
                 {"GCR_E_IO", GCR_E_IO}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0)
            return names[i].st;
    return GCR_OK; /* never expected: makes the check fail */
}

/* Reads a fixture with the accelsim format to its end or first error. */
static int read_to_end(const char *path, struct gcr_err *err)
{
    struct gcr_reader *rd;
    struct gcr_record rec;
    int rc = gcr_reader_open(&rd, path, "accelsim", err);
    if (rc != 0)
        return rc;
    while ((rc = gcr_reader_next(rd, &rec, err)) == 1)
        ;
    if (rc < 0) { /* the error is final */
        struct gcr_err again = {GCR_OK, ""};
        CHECK_EQ_U(gcr_reader_next(rd, &rec, &again), (unsigned long long)-1);
        CHECK(again.status == err->status && strcmp(again.msg, err->msg) == 0);
    }
    gcr_reader_close(rd);
    return rc;
}

static void test_listed(const struct entry *e, int n)
{
    for (int i = 0; i < n; i++) {
        struct gcr_err err = {GCR_OK, ""};
        CHECK_EQ_U(read_to_end(e[i].name, &err), (unsigned long long)-1);
        CHECK_EQ_U(err.status, status_from_name(e[i].status));
        CHECK(strncmp(err.msg, e[i].name, strlen(e[i].name)) == 0);
        if (strcmp(err.msg, e[i].msg) != 0) {
            fprintf(stderr, "%s:%d: %s\n  got:      %s\n  expected: %s\n", __FILE__, __LINE__,
                    e[i].name, err.msg, e[i].msg);
            check_failures++;
        }
    }
}

static void test_pinned(void)
{
    static const struct {
        const char *name;
        enum gcr_status status;
        const char *where_what;
    } pinned[] = {
        {"bad-truncated-warp.traceg", GCR_E_TRUNCATED,
         "bad-truncated-warp.traceg:20: file ends inside warp 0 of thread block (0,0,0) after 2 "
         "of its 3 instruction lines"},
        {"bad-truncated.traceg.xz", GCR_E_TRUNCATED, "bad-truncated.traceg.xz: truncated xz data"},
        {"bad-hex.traceg", GCR_E_FORMAT, "bad-hex.traceg:20: bad PC '0g10'"},
        {"bad-lanes-list.traceg", GCR_E_FORMAT,
         "bad-lanes-list.traceg:20: mask 0x00000003 has 2 active lanes but the line lists 3"},
        {"bad-lanes-delta.traceg", GCR_E_FORMAT, "bad-lanes-delta.traceg:20: mask 0x0000000f"},
        {"bad-missing-kernel", GCR_E_IO,
         "bad-missing-kernel/kernelslist.g:3: cannot open kernel file "
         "bad-missing-kernel/kernel-2.traceg"},
        {"bad-version.traceg", GCR_E_FORMAT,
         "bad-version.traceg:10: unsupported Accel-Sim tracer version 2"},
    };
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++) {
        struct gcr_err err = {GCR_OK, ""};
        CHECK_EQ_U(read_to_end(pinned[i].name, &err), (unsigned long long)-1);
        CHECK_EQ_U(err.status, pinned[i].status);
        CHECK_STR_CONTAINS(err.msg, pinned[i].where_what);
    }
}

int main(void)
{
    static struct entry entries[MAX_ENTRIES];
    if (chdir(FIXTURES) != 0) {
        perror(FIXTURES);
        return 1;
    }
    int n = parse_readme(entries, MAX_ENTRIES);
    CHECK(n >= 30);
    for (int i = 0; i < n; i++)
        CHECK(entries[i].status[0] != '\0' && entries[i].msg[0] != '\0');
    test_listed(entries, n);
    check_bad_fixtures_listed(".", entries, sizeof *entries, n);
    test_pinned();
    CHECK_DONE();
}
