/* Coalescing: hand-computed line requests and sector masks. */
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "replay/coalesce.h"

static struct gcr_line_req out[GCR_COALESCE_MAX];

static struct gcr_warp_insn strided(uint64_t base, int64_t stride, uint16_t width, uint32_t mask)
{
    struct gcr_warp_insn in = {.width = width, .active_mask = mask};
    uint64_t a = base;
    for (int l = 0; l < 32; l++)
        if (mask & (1u << l)) {
            in.addr[l] = a;
            a += (uint64_t)stride;
        }
    return in;
}

/* The coalescer's definition, byte by byte and without shortcuts: each
 * active lane in ascending order marks its bytes (clamped at 2^64 - 1) in the
 * request of each line it touches, the first request of that line or, for
 * atomics, the first of that line none of whose marked bytes it overlaps (a
 * new one if none); a request's sectors are those holding a marked byte; the
 * requests come out in ascending line order, stable. */
static uint32_t reference(const struct gcr_warp_insn *in, uint32_t line_bytes,
                          uint32_t sector_bytes, bool atomic, struct gcr_line_req *req)
{
    static uint8_t marked[GCR_COALESCE_MAX][256];
    uint32_t n = 0;
    for (int lane = 0; lane < 32; lane++) {
        if (!(in->active_mask >> lane & 1))
            continue;
        uint64_t a = in->addr[lane], end = a + in->width - 1;
        if (end < a)
            end = UINT64_MAX;
        for (uint64_t line = a & ~(uint64_t)(line_bytes - 1);; line += line_bytes) {
            uint32_t lo = line < a ? (uint32_t)(a - line) : 0;
            uint32_t hi = end - line >= line_bytes ? line_bytes - 1 : (uint32_t)(end - line);
            uint32_t i = 0;
            for (; i < n; i++) {
                if (req[i].line_addr != line)
                    continue;
                bool clash = false;
                for (uint32_t b = lo; atomic && b <= hi; b++)
                    clash = clash || marked[i][b];
                if (!clash)
                    break;
            }
            if (i == n) {
                req[n].line_addr = line;
                memset(marked[n], 0, sizeof marked[n]);
                n++;
            }
            for (uint32_t b = lo; b <= hi; b++)
                marked[i][b] = 1;
            if (end - line < line_bytes)
                break;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        req[i].bytes = 0;
        req[i].sector_mask = 0;
        for (uint32_t b = 0; b < line_bytes; b++)
            if (marked[i][b]) {
                req[i].bytes++;
                req[i].sector_mask |= 1u << (b / sector_bytes);
            }
    }
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && req[j - 1].line_addr > req[j].line_addr; j--) {
            struct gcr_line_req t = req[j];
            req[j] = req[j - 1];
            req[j - 1] = t;
        }
    return n;
}

/* gcr_coalesce and gcr_coalesce_atomic against the reference on random
 * instructions: gathers over a few lines, repeated words, lanes across line
 * and word boundaries, the top of the address space, twelve line and sector
 * sizes down to one-sector units of 8 B. */
static void random_against_reference(void)
{
    static struct gcr_line_req want[GCR_COALESCE_MAX];
    static const uint32_t sizes[][2] = {{128, 32}, {128, 8}, {128, 128}, {32, 8},   {32, 32},
                                        {16, 8},   {64, 16}, {256, 8},   {256, 64}, {256, 256},
                                        {8, 8},    {16, 16}};
    const uint32_t nsizes = sizeof sizes / sizeof sizes[0];
    static const uint16_t widths[] = {1, 2, 4, 8, 12, 16, 32, 64, 100, 128, 256};
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (int iter = 0; iter < 20000 && !check_failures; iter++) {
        struct gcr_warp_insn in = {0};
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        in.width = widths[x % 11];
        in.active_mask = (x >> 8) & 1 ? 0xffffffffu : (uint32_t)(x >> 16);
        uint64_t region = (x >> 48) % 4 == 0 ? UINT64_MAX - 1023 : (x >> 20) & 0xfffff000;
        uint64_t span = (x >> 9) % 3 == 0 ? 64 : (x >> 9) % 3 == 1 ? 1024 : 1 << 20;
        uint64_t y = x;
        for (int lane = 0; lane < 32; lane++) {
            y = y * 6364136223846793005ull + 1442695040888963407ull;
            /* Lanes repeat a lower lane's address now and then (atomics' conflicts). */
            in.addr[lane] = lane && (y >> 60) < 3 ? in.addr[(y >> 32) % (uint64_t)lane]
                                                  : region + (y >> 20) % span;
        }
        const uint32_t *sz = sizes[(x >> 40) % nsizes];
        for (int atomic = 0; atomic < 2; atomic++) {
            uint32_t got = atomic ? gcr_coalesce_atomic(&in, sz[0], sz[1], out)
                                  : gcr_coalesce(&in, sz[0], sz[1], out);
            uint32_t n = reference(&in, sz[0], sz[1], atomic, want);
            CHECK_EQ_U(got, n);
            for (uint32_t i = 0; i < n && i < got; i++) {
                CHECK_EQ_U(out[i].line_addr, want[i].line_addr);
                CHECK_EQ_U(out[i].sector_mask, want[i].sector_mask);
                CHECK_EQ_U(out[i].bytes, want[i].bytes);
            }
        }
    }
}

int main(void)
{
    random_against_reference();

    /* 32 lanes x 4 B, stride 4, aligned: one line, all four sectors, 128 bytes. */
    struct gcr_warp_insn in = strided(0x1000, 4, 4, 0xffffffffu);
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 1);
    CHECK_EQ_U(out[0].line_addr, 0x1000);
    CHECK_EQ_U(out[0].sector_mask, 0xf);
    CHECK_EQ_U(out[0].bytes, 128);

    /* Stride 8: 256 bytes span two lines, 4 B used of every 8: 64 bytes each. */
    in = strided(0x1000, 8, 4, 0xffffffffu);
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 2);
    CHECK_EQ_U(out[0].line_addr, 0x1000);
    CHECK_EQ_U(out[1].line_addr, 0x1080);
    CHECK_EQ_U(out[0].bytes, 64);
    CHECK_EQ_U(out[1].sector_mask, 0xf);

    /* Misaligned by 16: lanes 0..27 in line 0x1000 (sectors 0..3), lanes 28..31
     * in line 0x1080 sector 0. */
    in = strided(0x1010, 4, 4, 0xffffffffu);
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 2);
    CHECK_EQ_U(out[0].sector_mask, 0xf);
    CHECK_EQ_U(out[0].bytes, 112);
    CHECK_EQ_U(out[1].sector_mask, 0x1);
    CHECK_EQ_U(out[1].bytes, 16);

    /* Partial mask: lanes 0..7 only, 32 bytes from 0x2040: sector 2 only. */
    in = strided(0x2040, 4, 4, 0xffu);
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 1);
    CHECK_EQ_U(out[0].sector_mask, 0x4);
    CHECK_EQ_U(out[0].bytes, 32);

    /* Empty mask: nothing. */
    in = strided(0x2040, 4, 4, 0);
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 0);

    /* All lanes the same word: one sector, 4 distinct bytes. */
    in = strided(0x3004, 0, 4, 0xffffffffu);
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 1);
    CHECK_EQ_U(out[0].sector_mask, 0x1);
    CHECK_EQ_U(out[0].bytes, 4);

    /* 16-byte lanes (LDG.128), stride 16: 512 bytes = 4 full lines. */
    in = strided(0x4000, 16, 16, 0xffffffffu);
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 4);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_U(out[i].line_addr, 0x4000 + 128 * (unsigned)i);
        CHECK_EQ_U(out[i].sector_mask, 0xf);
    }

    /* A lane straddling sectors and lines: 8 bytes at 0x10fc touch line 0x1080
     * sector 3 (4 bytes) and line 0x1100 sector 0 (4 bytes). */
    in = strided(0x10fc, 0, 8, 0x1u);
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 2);
    CHECK_EQ_U(out[0].line_addr, 0x1080);
    CHECK_EQ_U(out[0].sector_mask, 0x8);
    CHECK_EQ_U(out[0].bytes, 4);
    CHECK_EQ_U(out[1].line_addr, 0x1100);
    CHECK_EQ_U(out[1].sector_mask, 0x1);

    /* Scattered, descending addresses come out in ascending line order. */
    in = (struct gcr_warp_insn){.width = 4, .active_mask = 0x7};
    in.addr[0] = 0x9000;
    in.addr[1] = 0x5000;
    in.addr[2] = 0x7020;
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 3);
    CHECK_EQ_U(out[0].line_addr, 0x5000);
    CHECK_EQ_U(out[1].line_addr, 0x7000);
    CHECK_EQ_U(out[1].sector_mask, 0x2);
    CHECK_EQ_U(out[2].line_addr, 0x9000);

    /* Negative stride: lanes walk down through two lines. */
    in = strided(0x107c, -4, 4, 0xffffffffu);
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 1);
    CHECK_EQ_U(out[0].line_addr, 0x1000);
    CHECK_EQ_U(out[0].bytes, 128);

    /* Other sizes: 64-B lines of 16-B sectors, stride 4 from 0: 2 lines, all 4 sectors. */
    in = strided(0, 4, 4, 0xffffffffu);
    CHECK_EQ_U(gcr_coalesce(&in, 64, 16, out), 2);
    CHECK_EQ_U(out[1].sector_mask, 0xf);

    /* The top of the address space does not wrap. */
    in = strided(UINT64_MAX - 3, 0, 16, 0x1u);
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 1);
    CHECK_EQ_U(out[0].line_addr, UINT64_MAX - 127);

    /* Atomics: lanes updating the same word are separate requests (each is its
     * own read-modify-write); non-overlapping lanes of a line share one. */
    in = strided(0x5000, 0, 4, 0xffffffffu); /* 32 lanes, one word */
    CHECK_EQ_U(gcr_coalesce_atomic(&in, 128, 32, out), 32);
    CHECK_EQ_U(out[31].line_addr, 0x5000);
    CHECK_EQ_U(out[31].sector_mask, 0x1);
    CHECK_EQ_U(out[31].bytes, 4);
    in = strided(0x5000, 4, 4, 0xffffffffu); /* 32 distinct words of one line */
    CHECK_EQ_U(gcr_coalesce_atomic(&in, 128, 32, out), 1);
    CHECK_EQ_U(out[0].sector_mask, 0xf);
    /* Lanes A, A, B, C (B, C in another line): {A, B}, {A}, {C}... in line order:
     * line 0x5000: {A, B} then {A}; line 0x6000: {C}. */
    in = (struct gcr_warp_insn){.width = 4, .active_mask = 0xf};
    in.addr[0] = 0x5004;
    in.addr[1] = 0x5004;
    in.addr[2] = 0x5040;
    in.addr[3] = 0x6000;
    CHECK_EQ_U(gcr_coalesce_atomic(&in, 128, 32, out), 3);
    CHECK_EQ_U(out[0].line_addr, 0x5000);
    CHECK_EQ_U(out[0].sector_mask, 0x5);
    CHECK_EQ_U(out[0].bytes, 8);
    CHECK_EQ_U(out[1].line_addr, 0x5000);
    CHECK_EQ_U(out[1].sector_mask, 0x1);
    CHECK_EQ_U(out[2].line_addr, 0x6000);
    /* Loads of the same words merge as before. */
    CHECK_EQ_U(gcr_coalesce(&in, 128, 32, out), 2);

    /* The strided fast path equals the general coalescer wherever it applies,
     * and declines the shapes it must not handle. */
    static struct gcr_line_req fast[GCR_COALESCE_MAX];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int applied = 0;
    for (int iter = 0; iter < 20000; iter++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        static const uint16_t widths[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
        uint16_t width = widths[x % 9];
        int64_t stride = (int64_t)((x >> 8) % 600) - 300;
        uint32_t mask = (x >> 20) & 1 ? 0xffffffffu : (uint32_t)(x >> 24);
        uint64_t base = (x >> 3) % 4 ? (x >> 16) & 0xffffff : UINT64_MAX - (x & 0x3fff);
        /* Lines of 128 and 32 bytes, and 32-byte units of one sector each
         * (what sector granularity asks for). */
        static const uint32_t units[3][2] = {{128, 32}, {32, 8}, {32, 32}};
        uint32_t line = units[(x >> 40) % 3][0], sector = units[(x >> 40) % 3][1];
        in = strided(base, stride, width, mask);
        uint32_t nf = gcr_coalesce_strided(mask, base, stride, width, line, sector, fast);
        if (nf == GCR_COALESCE_NOT_CONTIGUOUS) {
            CHECK((stride < 0 ? -stride : stride) > width || base > UINT64_MAX - 0x8000);
            continue;
        }
        applied++;
        uint32_t ng = gcr_coalesce(&in, line, sector, out);
        CHECK_EQ_U(nf, ng);
        for (uint32_t i = 0; i < nf && i < ng; i++) {
            CHECK_EQ_U(fast[i].line_addr, out[i].line_addr);
            CHECK_EQ_U(fast[i].sector_mask, out[i].sector_mask);
            CHECK_EQ_U(fast[i].bytes, out[i].bytes);
        }
        if (check_failures)
            break;
    }
    CHECK(applied > 1000);
    CHECK_DONE();
}
