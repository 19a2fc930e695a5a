/* Coalescing: hand-computed line requests and sector masks. */
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

int main(void)
{
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
