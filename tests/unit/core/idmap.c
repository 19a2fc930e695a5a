/* Dense ids (gcreplay/idmap.h) and the huge-page helpers behind them
 * (src/core/table_memory.h): ids in order of first lookup, the same id at
 * every later lookup through any path (memo, probe, after the table
 * doubles), grouped and ungrouped keys, find without adding, columns added
 * before and after ids exist (zero-filled, across chunk boundaries, never
 * moving), and gcr_table_realloc keeping contents across the 2-MB switch. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "core/table_memory.h"
#include "gcreplay/idmap.h"

/* A reproducible sequence of distinct keys: multiples of 128 spread so that
 * groups of 32 lines hold between one and many keys. */
static uint64_t key_of(uint32_t i)
{
    uint64_t group = (uint64_t)(i / 3) * 2654435761u % 1000003u;
    return (group * 32 + (i % 3) * 7 + (i % 5)) * 128 + 0x7f0000000000ull;
}

static void ids_in_order(unsigned key_shift, unsigned group_bits)
{
    /* More than a chunk of ids (65536) and many doublings of the table. */
    enum { N = 200000 };
    struct gcr_err err = {0};
    struct gcr_idmap m;
    CHECK(gcr_idmap_init(&m, key_shift, group_bits, &err) == 0);
    struct gcr_column *early = gcr_idmap_add_column(&m, 12, &err);
    CHECK(early != NULL);
    for (uint32_t i = 0; i < N; i++) {
        CHECK_EQ_U(gcr_idmap_find(&m, key_of(i)), GCR_IDMAP_NONE);
        uint32_t id = gcr_idmap_get(&m, key_of(i));
        CHECK_EQ_U(id, i);
        CHECK_EQ_U(gcr_idmap_get(&m, key_of(i)), i); /* memo */
        uint32_t *e = gcr_column_at(early, id);
        CHECK(e[0] == 0 && e[1] == 0 && e[2] == 0); /* a new id's state is zero */
        e[0] = i + 1;
        e[2] = ~i;
    }
    CHECK_EQ_U(m.count, N);
    /* Every key again, in another order: probes after the doublings. */
    for (uint32_t i = 0; i < N; i++) {
        uint32_t k = (uint32_t)((uint64_t)i * 7919 % N);
        CHECK_EQ_U(gcr_idmap_find(&m, key_of(k)), k);
        CHECK_EQ_U(gcr_idmap_get(&m, key_of(k)), k);
    }
    /* A column added late covers every id, zero-filled; the early one kept
     * what was written. */
    struct gcr_column *late = gcr_idmap_add_column(&m, 8, &err);
    CHECK(late != NULL);
    int bad = 0;
    for (uint32_t i = 0; i < N; i++) {
        const uint32_t *e = gcr_column_at(early, i);
        const uint64_t *l = gcr_column_at(late, i);
        bad += e[0] != i + 1 || e[1] != 0 || e[2] != ~i || *l != 0;
    }
    CHECK_EQ_U(bad, 0);
    /* Elements never move: a pointer taken now is still valid after
     * thousands of new ids (and new chunks). */
    uint64_t *kept = gcr_column_at(late, 12345);
    *kept = 42;
    for (uint32_t i = N; i < N + 70000; i++)
        CHECK_EQ_U(gcr_idmap_get(&m, key_of(i)), i);
    CHECK(kept == gcr_column_at(late, 12345) && *kept == 42);
    CHECK_EQ_U(*(uint64_t *)gcr_column_at(late, N + 69999), 0);
    gcr_idmap_fini(&m);
}

/* Group leaves: keys of one group share one table slot; the leaf offsets
 * come from the key bits below the group. */
static void groups(void)
{
    struct gcr_err err = {0};
    struct gcr_idmap m;
    CHECK(gcr_idmap_init(&m, 7, 5, &err) == 0); /* 128-byte lines, 32 to a group */
    CHECK_EQ_U(gcr_idmap_get(&m, 0x1000 * 128), 0);
    CHECK_EQ_U(gcr_idmap_get(&m, 0x1001 * 128), 1);
    CHECK_EQ_U(gcr_idmap_get(&m, 0x101f * 128), 2);
    CHECK_EQ_U(gcr_idmap_get(&m, 0x1020 * 128), 3); /* the next group */
    CHECK_EQ_U(m.groups, 2);
    CHECK_EQ_U(gcr_idmap_get(&m, 0x1001 * 128), 1);
    uint32_t offset = 99;
    uint32_t *ids = gcr_idmap_ids(&m, 0x101f * 128, false, &offset);
    CHECK(ids != NULL);
    CHECK_EQ_U(offset, 31);
    CHECK_EQ_U(ids[31], 3); /* id + 1 */
    CHECK_EQ_U(ids[2], 0);  /* no id yet */
    CHECK(gcr_idmap_ids(&m, 0x5000 * 128, false, &offset) == NULL);
    CHECK_EQ_U(m.groups, 2);
    /* Key 0 and the largest group work like any other. */
    CHECK_EQ_U(gcr_idmap_get(&m, 0), 4);
    CHECK_EQ_U(gcr_idmap_get(&m, UINT64_MAX & ~(uint64_t)127), 5);
    CHECK_EQ_U(gcr_idmap_find(&m, 0), 4);
    gcr_idmap_fini(&m);
    struct gcr_idmap bad;
    CHECK(gcr_idmap_init(&bad, 0, 13, &err) != 0);
}

static void table_realloc(void)
{
    /* Grow across the 2-MB line (malloc to a mapping) and back down. */
    size_t sizes[] = {100, 1 << 20, 3 << 20, 9 << 20, 1 << 19};
    unsigned char *p = NULL;
    size_t have = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        unsigned char *q = gcr_table_realloc(p, have, sizes[k]);
        CHECK(q != NULL);
        size_t keep = have < sizes[k] ? have : sizes[k];
        int bad = 0;
        for (size_t i = 0; i < keep; i++)
            bad += q[i] != (unsigned char)(i * 31 + 7);
        for (size_t i = keep; i < sizes[k]; i++)
            bad += q[i] != 0;
        CHECK_EQ_U(bad, 0);
        for (size_t i = 0; i < sizes[k]; i++)
            q[i] = (unsigned char)(i * 31 + 7);
        p = q;
        have = sizes[k];
    }
    gcr_table_free(p, have);
    /* Arena blocks: zero-filled, 64-byte aligned, and larger than a mapping. */
    struct gcr_arena a = {0};
    unsigned char *b1 = gcr_arena_alloc(&a, 100);
    unsigned char *b2 = gcr_arena_alloc(&a, (size_t)40 << 20);
    unsigned char *b3 = gcr_arena_alloc(&a, 64);
    CHECK(b1 && b2 && b3);
    CHECK(((uintptr_t)b1 | (uintptr_t)b2 | (uintptr_t)b3) % 64 == 0);
    CHECK(b1[99] == 0 && b2[((size_t)40 << 20) - 1] == 0 && b3[0] == 0);
    memset(b1, 1, 100);
    CHECK(b3[0] == 0 && b2[0] == 0);
    gcr_arena_free_all(&a);
}

int main(void)
{
    ids_in_order(0, 0);
    ids_in_order(7, 5);
    groups();
    table_realloc();
    return check_failures ? 1 : 0;
}
