/* The bit helpers, at the edges where a shift loop would overflow: numbering
 * 2^32 - 1 things takes 32 bits, and 2^64 - 1 things 64. */
#include <stdint.h>

#include "check.h"
#include "core/bits.h"

int main(void)
{
    static const struct {
        uint64_t x;
        unsigned bits;
    } ceil_log2[] = {
        {0, 0},           {1, 0},          {2, 1},          {3, 2},          {4, 2},
        {5, 3},           {1024, 10},      {1025, 11},      {UINT32_MAX, 32}, {1ull << 32, 32},
        {(1ull << 32) + 1, 33}, {1ull << 63, 63}, {(1ull << 63) + 1, 64}, {UINT64_MAX, 64},
    };
    for (size_t i = 0; i < sizeof ceil_log2 / sizeof ceil_log2[0]; i++)
        CHECK_EQ_U(gcr_bits_ceil_log2(ceil_log2[i].x), ceil_log2[i].bits);
    for (unsigned b = 0; b < 64; b++)
        CHECK_EQ_U(gcr_bits_log2(1ull << b), b);
    CHECK_DONE();
}
