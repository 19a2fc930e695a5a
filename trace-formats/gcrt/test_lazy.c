/* Lazy addresses (gcr_reader_set_lazy_addresses): a full-warp strided
 * instruction comes back with its hint and first lane only; switching lazy
 * off restores full expansion; other address modes are always expanded. */
#include <unistd.h>

#include "check.h"
#include "gcreplay/trace.h"

static void put(struct gcr_writer *w, const struct gcr_record *r)
{
    struct gcr_err err = {0};
    if (gcr_writer_write(w, r, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
}

int main(void)
{
    char path[64];
    snprintf(path, sizeof path, "lazy-%d.gcrt", (int)getpid());
    struct gcr_err err = {0};
    struct gcr_writer *w;
    CHECK(gcr_writer_open(&w, path, "gcrt", NULL, &err) == 0);
    struct gcr_record r = {.kind = GCR_REC_KERNEL_BEGIN};
    r.u.kbegin = (struct gcr_kernel_begin){.id = 1, .grid = {1, 1, 1}, .block = {32, 1, 1},
                                           .name = "k"};
    put(w, &r);
    for (int i = 0; i < 4; i++) {
        r = (struct gcr_record){.kind = GCR_REC_WARP_INSN};
        r.u.insn.width = 4;
        r.u.insn.active_mask = 0xffffffffu;
        for (int lane = 0; lane < 32; lane++) /* records 1, 3: strided; 2, 4: scattered */
            r.u.insn.addr[lane] = 0x1000 + (uint64_t)lane * (i % 2 ? 4 : 4 + (lane % 3));
        put(w, &r);
    }
    r = (struct gcr_record){.kind = GCR_REC_KERNEL_END};
    r.u.kend.id = 1;
    put(w, &r);
    CHECK(gcr_writer_close(w, &err) == 0);

    struct gcr_reader *rd;
    CHECK(gcr_reader_open(&rd, path, NULL, &err) == 0);
    CHECK(gcr_reader_next(rd, &r, &err) == 1); /* kernel */
    gcr_reader_set_lazy_addresses(rd, true);
    for (int i = 0; i < 4; i++) {
        memset(&r, 0xab, sizeof r); /* stale bytes must not leak into what is filled */
        CHECK(gcr_reader_next(rd, &r, &err) == 1);
        bool strided = i % 2 == 1;
        CHECK(r.u.insn.strided == strided);
        CHECK_EQ_U(r.u.insn.addr[0], 0x1000);
        if (strided) {
            CHECK_EQ_U(r.u.insn.stride, 4);
        } else {
            for (int lane = 0; lane < 32; lane++)
                CHECK_EQ_U(r.u.insn.addr[lane], 0x1000 + (uint64_t)lane * (4 + (lane % 3)));
        }
        if (i == 1)
            gcr_reader_set_lazy_addresses(rd, false);
        if (i == 3) /* lazy is off again: a strided record is fully expanded */
            for (int lane = 0; lane < 32; lane++)
                CHECK_EQ_U(r.u.insn.addr[lane], 0x1000 + (uint64_t)lane * 4);
    }
    gcr_reader_close(rd);
    unlink(path);
    CHECK_DONE();
}
