/* Writing numbers into a text buffer without printf (trace writers emit
 * millions of them). Each returns the position after what it wrote; the
 * caller makes room (at most 21 bytes for a number). */
#ifndef GCREPLAY_CORE_NUMFMT_H
#define GCREPLAY_CORE_NUMFMT_H

#include <stdint.h>
#include <string.h>

static inline char *gcr_put_udec(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static inline char *gcr_put_sdec(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return gcr_put_udec(p, 0 - (uint64_t)v);
    }
    return gcr_put_udec(p, (uint64_t)v);
}

/* Lower-case hex digits, at least min_digits of them, no prefix. */
static inline char *gcr_put_hex(char *p, uint64_t v, int min_digits)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = digits[v & 15];
        v >>= 4;
    } while (v || n < min_digits);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static inline char *gcr_put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

#endif
