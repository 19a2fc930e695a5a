#include "gcreplay/idmap.h"

#include <stdlib.h>
#include <string.h>

#include "core/table_memory.h"

#define MIN_SLOTS 1024u
/* Ids at most 2^32 - 2, so id + 1 fits a word and GCR_IDMAP_NONE is never an id. */
#define MAX_IDS (UINT32_MAX - 1u)
#define MAX_GROUP_BITS 12u

static size_t slots_bytes(uint32_t mask)
{
    return ((size_t)mask + 1) * sizeof(struct gcr_idmap_slot);
}

static size_t chunk_bytes(const struct gcr_column *c)
{
    return (size_t)GCR_COLUMN_CHUNK_IDS * c->elem;
}

/* Linear probing stays short up to a load of about 0.6. */
static uint32_t grow_point(uint32_t mask)
{
    return (uint32_t)(((uint64_t)mask + 1) * 3 / 5);
}

static int table_alloc(struct gcr_idmap *m, uint32_t slots)
{
    m->slots = gcr_table_alloc((size_t)slots * sizeof *m->slots);
    if (!m->slots)
        return -1;
    m->mask = slots - 1;
    m->shift = 64u - (unsigned)__builtin_ctz(slots);
    m->grow_at = grow_point(m->mask);
    return 0;
}

int gcr_idmap_init(struct gcr_idmap *m, unsigned key_shift, unsigned group_bits,
                   struct gcr_err *err)
{
    memset(m, 0, sizeof *m);
    if (key_shift > 63 || group_bits > MAX_GROUP_BITS)
        return gcr_fail(err, GCR_E_INTERNAL, "idmap: key shift %u or group bits %u out of range",
                        key_shift, group_bits);
    m->key_shift = key_shift;
    m->group_bits = group_bits;
    m->arena = calloc(1, sizeof *m->arena);
    if (!m->arena || table_alloc(m, MIN_SLOTS) != 0) {
        free(m->arena);
        m->arena = NULL;
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    return 0;
}

void gcr_idmap_fini(struct gcr_idmap *m)
{
    gcr_table_free(m->slots, slots_bytes(m->mask));
    for (size_t i = 0; i < m->ncolumns; i++) {
        free(m->columns[i]->chunks);
        free(m->columns[i]);
    }
    free(m->columns);
    if (m->arena)
        gcr_arena_free_all(m->arena);
    free(m->arena);
    memset(m, 0, sizeof *m);
}

/* Makes room for one more chunk pointer in every column. */
static int columns_reserve(struct gcr_idmap *m)
{
    if (m->chunks < m->chunk_slots)
        return 0;
    uint32_t n = m->chunk_slots ? 2 * m->chunk_slots : 16;
    for (size_t i = 0; i < m->ncolumns; i++) {
        unsigned char **p = realloc(m->columns[i]->chunks, n * sizeof *p);
        if (!p)
            return -1;
        m->columns[i]->chunks = p;
    }
    m->chunk_slots = n;
    return 0;
}

/* One more chunk in every column. A failure leaves m->chunks as it was (the
 * chunks some columns got stay in the arena until the map goes). */
static int columns_add_chunk(struct gcr_idmap *m)
{
    if (columns_reserve(m) != 0)
        return -1;
    for (size_t i = 0; i < m->ncolumns; i++) {
        struct gcr_column *c = m->columns[i];
        c->chunks[m->chunks] = gcr_arena_alloc(m->arena, chunk_bytes(c));
        if (!c->chunks[m->chunks])
            return -1;
    }
    m->chunks++;
    return 0;
}

struct gcr_column *gcr_idmap_add_column(struct gcr_idmap *m, size_t elem, struct gcr_err *err)
{
    struct gcr_column *c = calloc(1, sizeof *c);
    struct gcr_column **cols = realloc(m->columns, (m->ncolumns + 1) * sizeof *cols);
    if (cols)
        m->columns = cols;
    if (c && cols && m->chunk_slots)
        c->chunks = calloc(m->chunk_slots, sizeof *c->chunks);
    if (!c || !cols || (m->chunk_slots && !c->chunks)) {
        free(c);
        gcr_fail(err, GCR_E_NOMEM, "out of memory");
        return NULL;
    }
    c->elem = elem ? elem : 1;
    for (uint32_t k = 0; k < m->chunks; k++) {
        c->chunks[k] = gcr_arena_alloc(m->arena, chunk_bytes(c));
        if (!c->chunks[k]) {
            free(c->chunks);
            free(c);
            gcr_fail(err, GCR_E_NOMEM, "out of memory");
            return NULL;
        }
    }
    m->columns[m->ncolumns++] = c;
    return c;
}

/* Doubles the table. Slots are visited in order and homes are the top hash
 * bits, so the new table is written nearly in order too. */
static int grow(struct gcr_idmap *m)
{
    struct gcr_idmap_slot *old = m->slots;
    uint32_t old_mask = m->mask;
    if (old_mask >= UINT32_MAX / 2 || table_alloc(m, (old_mask + 1) * 2) != 0) {
        m->slots = old;
        m->mask = old_mask;
        return -1;
    }
    for (uint32_t i = 0; i <= old_mask; i++) {
        if (!old[i].stored)
            continue;
        uint32_t j = (uint32_t)(gcr_idmap_hash(old[i].stored) >> m->shift);
        while (m->slots[j].stored)
            j = (j + 1) & m->mask;
        m->slots[j] = old[i];
    }
    gcr_table_free(old, slots_bytes(old_mask));
    m->memo_stored = 0; /* it may point into the old table */
    return 0;
}

uint32_t *gcr_idmap_add_group(struct gcr_idmap *m, uint64_t stored, uint32_t slot)
{
    uint32_t *leaf = NULL;
    if (m->group_bits) {
        leaf = gcr_arena_alloc(m->arena, sizeof *leaf << m->group_bits);
        if (!leaf)
            return NULL;
    }
    if (m->groups >= m->grow_at) {
        if (grow(m) != 0)
            return NULL; /* the leaf stays unused in the arena */
        slot = (uint32_t)(gcr_idmap_hash(stored) >> m->shift);
        while (m->slots[slot].stored)
            slot = (slot + 1) & m->mask;
    }
    struct gcr_idmap_slot *s = &m->slots[slot];
    s->stored = stored;
    if (leaf)
        s->ids.leaf = leaf;
    m->groups++;
    m->memo_stored = stored;
    return m->memo_ids = leaf ? leaf : &s->ids.id_p1;
}

uint32_t gcr_idmap_new_id(struct gcr_idmap *m, uint32_t *ids)
{
    if (m->count >= MAX_IDS)
        return GCR_IDMAP_NONE;
    if (m->count % GCR_COLUMN_CHUNK_IDS == 0 && m->count / GCR_COLUMN_CHUNK_IDS == m->chunks &&
        columns_add_chunk(m) != 0)
        return GCR_IDMAP_NONE;
    *ids = m->count + 1;
    return m->count++;
}
