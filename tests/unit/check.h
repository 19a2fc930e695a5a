/* A minimal test harness: each unit test is one executable run by meson.
 * CHECK* failures print file:line and the values, and the test exits 1. */
#ifndef GCR_TEST_CHECK_H
#define GCR_TEST_CHECK_H

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);         \
            check_failures++;                                                                \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                     \
    do {                                                                                     \
        unsigned long long check_a_ = (unsigned long long)(a);                               \
        unsigned long long check_b_ = (unsigned long long)(b);                               \
        if (check_a_ != check_b_) {                                                          \
            fprintf(stderr, "%s:%d: %s == %s failed: %llu != %llu\n", __FILE__, __LINE__,    \
                    #a, #b, check_a_, check_b_);                                             \
            check_failures++;                                                                \
        }                                                                                    \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                      \
    do {                                                                                     \
        const char *check_h_ = (hay);                                                        \
        if (!check_h_ || !strstr(check_h_, (needle))) {                                      \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,   \
                    check_h_ ? check_h_ : "(null)", (needle));                               \
            check_failures++;                                                                \
        }                                                                                    \
    } while (0)

/* Every bad-* file of a fixtures directory is listed exactly once in a table
 * whose entries start with a NUL-terminated file name (entries of `stride`
 * bytes, as read from that directory's README). */
static inline void check_bad_fixtures_listed(const char *dir, const void *entries, size_t stride,
                                             int n)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int bad_files = 0;
    CHECK(d != NULL);
    while (d && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "bad-", 4) != 0)
            continue;
        bad_files++;
        int found = 0;
        for (int i = 0; i < n; i++)
            found += strcmp((const char *)entries + (size_t)i * stride, de->d_name) == 0;
        if (found != 1) {
            fprintf(stderr, "%s:%d: %s is listed %d times in fixtures/README.md\n", __FILE__,
                    __LINE__, de->d_name, found);
            check_failures++;
        }
    }
    if (d)
        closedir(d);
    CHECK_EQ_U(bad_files, n);
}

/* End of main(): the exit status meson reads. */
#define CHECK_DONE()                                                                         \
    do {                                                                                     \
        if (check_failures) {                                                                \
            fprintf(stderr, "%d check(s) failed\n", check_failures);                         \
            return 1;                                                                        \
        }                                                                                    \
        return 0;                                                                            \
    } while (0)

#endif
