/* Per-warp queues give back exactly what was pushed, in order. */
#include "check.h"
#include "replay/warpq.h"

static bool peek(const struct gcr_warpq *q, uint64_t *addr)
{
    const uint8_t *head = gcr_warpq_head(q);
    return head && gcr_warpq_item_addr(head, addr);
}

int main(void)
{
    struct gcr_warpq q = {0};
    struct gcr_warp_insn a = {.pc = 0x1234, .op = GCR_OP_STORE, .space = GCR_SPACE_LOCAL,
                              .cache_op = GCR_CACHEOP_BYPASS_L1, .width = 16,
                              .active_mask = 0x80000101u};
    a.addr[0] = 100;
    a.addr[8] = 80; /* stride -20 */
    a.addr[31] = 60;
    struct gcr_warp_insn b = {.pc = 0x99, .width = 4, .active_mask = 0x7};
    b.addr[0] = 5;
    b.addr[1] = 1000;
    b.addr[2] = 7; /* not strided: explicit list */
    for (int round = 0; round < 3; round++) { /* reuse after reset */
        gcr_warpq_reset(&q);
        for (int i = 0; i < 50; i++) {
            CHECK(gcr_warpq_push_insn(&q, &a) == 0);
            CHECK(gcr_warpq_push_nonmem(&q, (uint32_t)i + 1) == 0);
            CHECK(gcr_warpq_push_insn(&q, &b) == 0);
        }
        for (int i = 0; i < 50; i++) {
            struct gcr_warp_insn x = {0};
            uint32_t n = 0;
            struct gcr_lane_shape sh;
            CHECK(gcr_warpq_pop(&q, &x, &n, &sh) == GCR_WQ_INSN);
            CHECK(sh.strided);
            CHECK_EQ_U(sh.base, 100);
            CHECK_EQ_U(sh.stride, (uint64_t)-20);
            gcr_lane_shape_expand(&sh, &x);
            CHECK_EQ_U(x.pc, 0x1234);
            CHECK_EQ_U(x.op, GCR_OP_STORE);
            CHECK_EQ_U(x.space, GCR_SPACE_LOCAL);
            CHECK_EQ_U(x.cache_op, GCR_CACHEOP_BYPASS_L1);
            CHECK_EQ_U(x.width, 16);
            CHECK_EQ_U(x.active_mask, 0x80000101u);
            CHECK_EQ_U(x.addr[0], 100);
            CHECK_EQ_U(x.addr[8], 80);
            CHECK_EQ_U(x.addr[31], 60);
            CHECK(gcr_warpq_pop(&q, &x, &n, &sh) == GCR_WQ_NONMEM);
            CHECK_EQ_U(n, (unsigned)i + 1);
            CHECK(gcr_warpq_pop(&q, &x, &n, &sh) == GCR_WQ_INSN);
            CHECK(!sh.strided);
            CHECK_EQ_U(x.addr[0], 5);
            CHECK_EQ_U(x.addr[1], 1000);
            CHECK_EQ_U(x.addr[2], 7);
        }
        CHECK(gcr_warpq_empty(&q));
    }

    /* A list of all 32 lanes (a gather) and one of 31 come back lane for lane,
     * after a non-memory run so that the list does not start the buffer. */
    gcr_warpq_reset(&q);
    struct gcr_warp_insn g = {.pc = 0x40, .width = 8, .active_mask = UINT32_MAX};
    for (int l = 0; l < 32; l++)
        g.addr[l] = 0x7000 + (uint64_t)((l * 37) % 32) * 128 + (uint64_t)l;
    CHECK(gcr_warpq_push_nonmem(&q, 3) == 0);
    CHECK(gcr_warpq_push_insn(&q, &g) == 0);
    struct gcr_warp_insn g31 = g;
    g31.active_mask = 0xfffffffeu;
    g31.addr[0] = 0;
    CHECK(gcr_warpq_push_insn(&q, &g31) == 0);
    for (int k = 0; k < 2; k++) {
        struct gcr_warp_insn x = {0};
        uint32_t n;
        struct gcr_lane_shape sh;
        if (k == 0)
            CHECK(gcr_warpq_pop(&q, &x, &n, &sh) == GCR_WQ_NONMEM);
        CHECK(gcr_warpq_pop(&q, &x, &n, &sh) == GCR_WQ_INSN);
        CHECK(!sh.strided);
        CHECK_EQ_U(x.active_mask, k ? 0xfffffffeu : UINT32_MAX);
        for (int l = k; l < 32; l++)
            CHECK_EQ_U(x.addr[l], g.addr[l]);
    }
    CHECK(gcr_warpq_empty(&q));

    /* A reader's stride hint is taken as given (addresses are not re-derived). */
    gcr_warpq_reset(&q);
    struct gcr_warp_insn h = {.width = 4, .active_mask = 0xf0, .strided = true, .stride = 64};
    h.addr[4] = 0x1000;
    CHECK(gcr_warpq_push_insn(&q, &h) == 0);
    struct gcr_warp_insn y = {0};
    struct gcr_lane_shape sh;
    uint32_t cnt;
    CHECK(gcr_warpq_pop(&q, &y, &cnt, &sh) == GCR_WQ_INSN);
    CHECK(sh.strided);
    CHECK_EQ_U(sh.base, 0x1000);
    CHECK_EQ_U(sh.stride, 64);
    gcr_lane_shape_expand(&sh, &y);
    CHECK_EQ_U(y.addr[7], 0x1000 + 3 * 64);

    /* Strides that do not fit in 16 bits take the wide form; both come back exact. */
    static const int64_t strides[] = {32767, -32768, 32768, -32769, INT64_C(1) << 40,
                                      -(INT64_C(1) << 40)};
    gcr_warpq_reset(&q);
    for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
        h.stride = strides[i];
        CHECK(gcr_warpq_push_insn(&q, &h) == 0);
        CHECK(gcr_warpq_push_nonmem(&q, 3) == 0);
    }
    CHECK_EQ_U(q.len, 2 * (GCR_WQ_STRIDED_BYTES + GCR_WQ_NONMEM_BYTES) +
                          4 * (GCR_WQ_STRIDED_BYTES + 8 + GCR_WQ_NONMEM_BYTES));
    for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
        CHECK(gcr_warpq_pop(&q, &y, &cnt, &sh) == GCR_WQ_INSN);
        CHECK(sh.strided);
        CHECK_EQ_U(sh.base, 0x1000);
        CHECK_EQ_U(sh.stride, (uint64_t)strides[i]);
        CHECK_EQ_U(y.active_mask, 0xf0);
        CHECK(gcr_warpq_pop(&q, &y, &cnt, &sh) == GCR_WQ_NONMEM);
        CHECK_EQ_U(cnt, 3);
    }
    CHECK(gcr_warpq_empty(&q));
    gcr_warpq_free(&q);

    /* Pooled queues: growing moves the contents, and freed buffers are
     * recycled by size class (a queue freed then regrown reuses its buffer). */
    struct gcr_pool *pool = gcr_warpq_pool_create();
    CHECK(pool != NULL);
    struct gcr_warpq p1 = {.pool = pool}, p2 = {.pool = pool};
    _Static_assert(GCR_WQ_NONMEM_BYTES == 12, "the sizes below");
    for (uint32_t i = 1; i <= 1000; i++) { /* 12 bytes each: grows 256 -> 16384 */
        /* (items of their own: gcr_warpq_push_nonmem would join consecutive runs) */
        CHECK(gcr_warpq_push_word(&p1, i, GCR_WQ_TAG_NONMEM) == 0);
        CHECK(gcr_warpq_push_word(&p2, 2 * i, GCR_WQ_TAG_NONMEM) == 0);
    }
    CHECK_EQ_U(p1.cap, 16384);
    for (uint32_t i = 1; i <= 1000; i++) {
        struct gcr_warp_insn x;
        uint32_t n1 = 0, n2 = 0;
        CHECK(gcr_warpq_pop(&p1, &x, &n1, &sh) == GCR_WQ_NONMEM);
        CHECK(gcr_warpq_pop(&p2, &x, &n2, &sh) == GCR_WQ_NONMEM);
        CHECK_EQ_U(n1, i);
        CHECK_EQ_U(n2, 2 * i);
    }
    /* Consecutive runs join into one item, up to a count of 2^32 - 1; an item between, or a
     * reset, parts them. */
    struct gcr_warpq jq = {0};
    CHECK(gcr_warpq_push_nonmem(&jq, 1) == 0);
    CHECK(gcr_warpq_push_nonmem(&jq, 2) == 0);
    CHECK(gcr_warpq_push_nonmem(&jq, UINT32_MAX - 3) == 0);
    CHECK(gcr_warpq_push_nonmem(&jq, 1) == 0); /* would pass 2^32 - 1 */
    CHECK(gcr_warpq_push_insn(&jq, &a) == 0);
    CHECK(gcr_warpq_push_nonmem(&jq, 5) == 0);
    CHECK_EQ_U(jq.len, 3 * GCR_WQ_NONMEM_BYTES + GCR_WQ_STRIDED_BYTES);
    static const uint32_t joined[] = {UINT32_MAX, 1, 0, 5};
    for (size_t k = 0; k < sizeof joined / sizeof joined[0]; k++) {
        struct gcr_warp_insn x;
        uint32_t n = 0;
        CHECK(gcr_warpq_pop(&jq, &x, &n, &sh) == (joined[k] ? GCR_WQ_NONMEM : GCR_WQ_INSN));
        if (joined[k])
            CHECK_EQ_U(n, joined[k]);
    }
    gcr_warpq_reset(&jq);
    CHECK(gcr_warpq_push_nonmem(&jq, 7) == 0);
    CHECK_EQ_U(jq.len, GCR_WQ_NONMEM_BYTES);
    gcr_warpq_free(&jq);

    uint8_t *old = p1.buf;
    gcr_warpq_free(&p1);
    CHECK(p1.buf == NULL && p1.cap == 0);
    CHECK(gcr_warpq_grow(&p1, 10000) == 0);
    CHECK(p1.buf == old); /* the 16384-byte class's free buffer */
    gcr_warpq_free(&p1);
    gcr_warpq_free(&p2);
    gcr_warpq_pool_destroy(pool);

    /* The prefetcher's peek (the head, then its address): the first lane
     * address of a global or local instruction at the head, nothing for
     * anything else; no state change. */
    struct gcr_warpq pq = {0};
    uint64_t addr = 0;
    CHECK(!peek(&pq, &addr)); /* empty */
    struct gcr_warp_insn sh_load = {.width = 4, .active_mask = 1, .space = GCR_SPACE_SHARED};
    sh_load.addr[0] = 0x40;
    CHECK(gcr_warpq_push_insn(&pq, &sh_load) == 0);
    CHECK(gcr_warpq_push_nonmem(&pq, 3) == 0);
    CHECK(gcr_warpq_push_insn(&pq, &a) == 0); /* local, strided from lane 0 */
    CHECK(gcr_warpq_push_insn(&pq, &b) == 0); /* global, a list */
    CHECK(!peek(&pq, &addr)); /* shared memory never reaches the L1 */
    struct gcr_warp_insn x;
    uint32_t n;
    CHECK(gcr_warpq_pop(&pq, &x, &n, &sh) == GCR_WQ_INSN);
    CHECK(!peek(&pq, &addr)); /* a non-memory run */
    CHECK(gcr_warpq_pop(&pq, &x, &n, &sh) == GCR_WQ_NONMEM);
    CHECK(peek(&pq, &addr));
    CHECK_EQ_U(addr, 100);
    CHECK(peek(&pq, &addr)); /* again: nothing consumed */
    CHECK_EQ_U(addr, 100);
    CHECK(gcr_warpq_pop(&pq, &x, &n, &sh) == GCR_WQ_INSN);
    CHECK(peek(&pq, &addr));
    CHECK_EQ_U(addr, 5);
    CHECK(gcr_warpq_pop(&pq, &x, &n, &sh) == GCR_WQ_INSN);
    CHECK(!peek(&pq, &addr));
    gcr_warpq_free(&pq);

    /* A non-memory item ending a full buffer: the peek reads its tag only
     * (under ASan, reading the mask of an instruction would go past it). */
    struct gcr_warpq full = {0};
    CHECK(gcr_warpq_grow(&full, 1) == 0);
    while (full.len + GCR_WQ_NONMEM_BYTES <= full.cap)
        CHECK(gcr_warpq_push_word(&full, 1, GCR_WQ_TAG_NONMEM) == 0);
    full.pos = full.len - GCR_WQ_NONMEM_BYTES;
    CHECK(full.buf != NULL);
    CHECK(!peek(&full, &addr));
    gcr_warpq_free(&full);
    CHECK_DONE();
}
