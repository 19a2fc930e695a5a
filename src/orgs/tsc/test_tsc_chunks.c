/* The tag-split storage, chunk by chunk, against a hand-worked sequence:
 * placement in groups of the line's shared tag, spreading over groups, a
 * partial miss filling only the missing chunks, NRU ageing, a whole group
 * flushed and retagged, and several lines evicted in one replacement.
 *
 * One set of 2 groups x 4 chunks, 128-B lines, a 1-bit private tag: the tag is
 * the line number (one set), so lines A=0x000 and B=0x080 share shared tag 0,
 * C=0x100 and D=0x180 shared tag 1. */
#include "check.h"
#include "orgs/tsc/chunk_store.h"

enum { A = 0x000, B = 0x080, C = 0x100, D = 0x180 };

static struct tsc_victim *find(struct tsc_store *s, uint32_t nv, uint64_t line)
{
    for (uint32_t i = 0; i < nv; i++)
        if (s->victims[i].line == line)
            return &s->victims[i];
    return NULL;
}

int main(void)
{
    struct gcr_err err = {0};
    struct tsc_store s;
    struct tsc_geometry g = {.sets = 1, .groups = 2, .chunks = 4, .line_bytes = 128,
                             .index = GCR_INDEX_LINEAR, .private_bits = 1, .seed = 7};
    CHECK(tsc_store_init(&s, &g, &err) == 0);

    /* A chunk 0: into empty group 0, which takes shared tag 0. */
    CHECK_EQ_U(tsc_store_allocate(&s, 0, A, 0x1, 0x1), 0);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, A), 0x1);
    /* B chunks 0-2: the free slots of group 0 (same shared tag), not group 1. */
    CHECK_EQ_U(tsc_store_allocate(&s, 0, B, 0x7, 0x7), 0);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, B), 0x7);
    CHECK_EQ_U(s.gcount[0], 4);
    CHECK_EQ_U(s.gcount[1], 0);
    /* Every valid chunk referenced -> NRU bits cleared but B's (just filled). */
    CHECK_EQ_U(s.nru[0], 0);
    CHECK_EQ_U(s.nru_count[0], 3);

    /* A asks for chunks 0 and 1: a partial miss; only chunk 1 is placed, in
     * group 1 (group 0 is full): A now spans two groups. */
    uint32_t cached = tsc_store_lookup(&s, 0, A);
    CHECK_EQ_U(cached, 0x1);
    tsc_store_touch(&s, 0, A, 0x3 & cached);
    CHECK_EQ_U(tsc_store_allocate(&s, 0, A, 0x3 & ~cached, 0x3), 0);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, A), 0x3);
    CHECK_EQ_U(s.gtag[1], 0);
    CHECK_EQ_U(s.replacements, 0);
    CHECK_EQ_U(s.group_retags, 0); /* first tag of an unused group is no retag */

    /* C (shared tag 1) needs chunks 0 and 1: no group has its tag and none is
     * empty. The only chunk with a clear NRU bit is... A chunk 0 was touched
     * by the partial miss, so every valid chunk is referenced: the touch aged
     * the bits to A's chunk 0 only, the fill of A chunk 1 set its own. NRU 0:
     * B0, B1, B2. Any of them lies in group 0 (shared tag 0), so the whole group
     * goes: A0, B0, B1, B2 in one replacement of two lines, and group 0 is
     * retagged to 1 for C. */
    CHECK_EQ_U(s.nru_count[0], 2); /* A0 and A1 */
    uint32_t nv = tsc_store_allocate(&s, 0, C, 0x3, 0x3);
    CHECK_EQ_U(nv, 2);
    struct tsc_victim *va = find(&s, nv, A), *vb = find(&s, nv, B);
    CHECK(va && va->chunks == 0x1 && va->reused == 0x1 && va->used == 0x1);
    CHECK(vb && vb->chunks == 0x7 && vb->reused == 0 && vb->used == 0x7);
    CHECK_EQ_U(s.replacements, 1);
    CHECK_EQ_U(s.multi_line_replacements, 1);
    CHECK_EQ_U(s.chunks_replaced, 4);
    CHECK_EQ_U(s.group_flushes, 1);
    CHECK_EQ_U(s.group_retags, 1);
    CHECK_EQ_U(s.gtag[0], 1);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, A), 0x2); /* A keeps chunk 1 in group 1 */
    CHECK_EQ_U(tsc_store_lookup(&s, 0, B), 0);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, C), 0x3);

    /* D (shared tag 1) chunks 2, 3: the two free slots of C's group. */
    CHECK_EQ_U(tsc_store_allocate(&s, 0, D, 0xc, 0xc), 0);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, D), 0xc);
    CHECK_EQ_U(s.gcount[0], 4);
    /* B chunk 3 and A chunks 2, 3 go to group 1 (shared tag 0). */
    CHECK_EQ_U(tsc_store_allocate(&s, 0, B, 0x8, 0x8), 0);
    CHECK_EQ_U(tsc_store_allocate(&s, 0, A, 0xc, 0xc), 0);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, A), 0xe);
    CHECK_EQ_U(s.valid_count[0], 8);
    /* NRU: after C's fill every valid chunk (A1, C0, C1) was referenced, so
     * only C's stayed; D2, D3, B3, A2, A3 were set by their fills: A1 alone
     * is clear. */
    CHECK_EQ_U(s.nru_count[0], 7);

    /* C chunk 2: the victim is A1 (the one clear NRU bit), in group 1 of
     * shared tag 0, so group 1 is flushed (A1, A2, A3, B3: two lines) and
     * retagged; C2 goes there. */
    nv = tsc_store_allocate(&s, 0, C, 0x4, 0x4);
    CHECK_EQ_U(nv, 2);
    va = find(&s, nv, A);
    vb = find(&s, nv, B);
    CHECK(va && va->chunks == 0xe);
    CHECK(vb && vb->chunks == 0x8);
    CHECK_EQ_U(s.multi_line_replacements, 2);
    CHECK_EQ_U(s.group_retags, 2);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, C), 0x7);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, A), 0);

    /* A victim in a group of the requester's shared tag goes alone: D needs
     * chunk 0; every slot holds shared tag 1 now (C0-C2 and D2, D3 in groups
     * 0 and 1, three free slots in group 1) -> no replacement at all. */
    CHECK_EQ_U(tsc_store_allocate(&s, 0, D, 0x1, 0x1), 0);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, D), 0xd);

    /* Write-evict: removing D's chunks leaves C alone. */
    struct tsc_victim out;
    CHECK_EQ_U(tsc_store_invalidate(&s, 0, D, 0xf, &out), 3);
    CHECK_EQ_U(out.chunks, 0xd);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, D), 0);
    CHECK_EQ_U(tsc_store_lookup(&s, 0, C), 0x7);
    tsc_store_fini(&s);
    CHECK_DONE();
}
