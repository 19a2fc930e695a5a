/* First-touch page placement: see pages.h. */
#include "multichip/pages.h"

#include <stdlib.h>
#include <string.h>

#include "core/bits.h"

#define UNPLACED 0xff

static uint64_t slot_of(const uint64_t *keys, uint64_t cap, uint64_t key)
{
    uint64_t i = gcr_hash_fmix64(key) & (cap - 1);
    while (keys[i] && keys[i] != key)
        i = (i + 1) & (cap - 1);
    return i;
}

/* The leaf holding `key` (leaf number + 1), or NULL. */
static uint8_t *leaf_find(const struct gcr_pages *p, uint64_t key)
{
    if (key == p->last_key)
        return p->last_leaf;
    if (!p->cap)
        return NULL;
    uint64_t i = slot_of(p->keys, p->cap, key);
    return p->keys[i] ? p->leaves[i] : NULL;
}

static int grow(struct gcr_pages *p)
{
    uint64_t cap = p->cap ? p->cap * 2 : 64;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint8_t **leaves = calloc(cap, sizeof *leaves);
    if (!keys || !leaves) {
        free(keys);
        free(leaves);
        return -1;
    }
    for (uint64_t i = 0; i < p->cap; i++)
        if (p->keys[i]) {
            uint64_t j = slot_of(keys, cap, p->keys[i]);
            keys[j] = p->keys[i];
            leaves[j] = p->leaves[i];
        }
    free(p->keys);
    free(p->leaves);
    p->keys = keys;
    p->leaves = leaves;
    p->cap = cap;
    return 0;
}

uint32_t gcr_pages_lookup(const struct gcr_pages *p, uint64_t page)
{
    const uint8_t *leaf = leaf_find(p, page / GCR_PAGES_LEAF + 1);
    if (!leaf || leaf[page % GCR_PAGES_LEAF] == UNPLACED)
        return UINT32_MAX;
    return leaf[page % GCR_PAGES_LEAF];
}

int gcr_pages_home(struct gcr_pages *p, uint64_t page, uint32_t toucher)
{
    uint64_t key = page / GCR_PAGES_LEAF + 1;
    uint8_t *leaf = leaf_find(p, key);
    if (!leaf) {
        if ((p->nleaves + 1) * 2 > p->cap && grow(p) != 0)
            return -1;
        if (!(leaf = malloc(GCR_PAGES_LEAF)))
            return -1;
        memset(leaf, UNPLACED, GCR_PAGES_LEAF);
        uint64_t i = slot_of(p->keys, p->cap, key);
        p->keys[i] = key;
        p->leaves[i] = leaf;
        p->nleaves++;
    }
    p->last_key = key;
    p->last_leaf = leaf;
    uint8_t *home = &leaf[page % GCR_PAGES_LEAF];
    if (*home == UNPLACED) {
        *home = (uint8_t)toucher;
        p->used++;
    }
    return *home;
}

void gcr_pages_fini(struct gcr_pages *p)
{
    for (uint64_t i = 0; i < p->cap; i++)
        free(p->leaves[i]);
    free(p->keys);
    free(p->leaves);
    *p = (struct gcr_pages){0};
}
