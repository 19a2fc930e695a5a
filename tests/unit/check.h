/* A minimal test harness: each unit test is one executable run by meson.
 * CHECK* failures print file:line and the values, and the test exits 1. */
#ifndef GCR_TEST_CHECK_H
#define GCR_TEST_CHECK_H

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
