/* The multiply-shift division of line indices by the number of ways is exact
 * for every index a cache can have (< 2^26). */
#include "check.h"
#include "cache/cache_internal.h"

int main(void)
{
    const uint32_t divisors[] = {1, 2, 3, 5, 7, 24, 100, 255, 256, 257, 1000, 4095,
                                 32767, 40000, 65534, 65535};
    const uint32_t limit = (uint32_t)GCR_CACHE_MAX_LINES;
    for (size_t i = 0; i < sizeof divisors / sizeof divisors[0]; i++) {
        uint32_t d = divisors[i];
        struct gcr_divider dv = gcr_divider_make(d);
        int bad = 0;
        /* All small indices, then around every multiple of d near the top,
         * where rounding errors of the magic number would show first. */
        for (uint32_t n = 0; n < (1u << 16); n++)
            bad += gcr_divider_div(dv, n) != n / d;
        for (uint32_t q = (limit - (1u << 20)) / d; q <= (limit - 1) / d; q++) {
            for (uint32_t n = q * d - (q ? 1 : 0); n <= q * d + 1 && n < limit; n++)
                bad += gcr_divider_div(dv, n) != n / d;
        }
        bad += gcr_divider_div(dv, limit - 1) != (limit - 1) / d;
        CHECK_EQ_U(bad, 0);
    }
    CHECK_DONE();
}
