/* First-touch page placement: see pages.h. */
#include "replay/pages.h"

#include <stdlib.h>

#include "core/bits.h"

static uint64_t page_slot(const struct gcr_pages *p, uint64_t key)
{
    uint64_t i = gcr_hash_fmix64(key) & (p->cap - 1);
    while (p->keys[i] && p->keys[i] != key)
        i = (i + 1) & (p->cap - 1);
    return i;
}

uint32_t gcr_pages_lookup(const struct gcr_pages *p, uint64_t page)
{
    if (!p->cap)
        return UINT32_MAX;
    uint64_t i = page_slot(p, page + 1);
    return p->keys[i] ? p->home[i] : UINT32_MAX;
}

static int pages_grow(struct gcr_pages *p)
{
    struct gcr_pages n = {.cap = p->cap ? p->cap * 2 : 1024};
    n.keys = calloc(n.cap, sizeof *n.keys);
    n.home = malloc(n.cap);
    if (!n.keys || !n.home) {
        free(n.keys);
        free(n.home);
        return -1;
    }
    for (uint64_t i = 0; i < p->cap; i++)
        if (p->keys[i]) {
            uint64_t j = page_slot(&n, p->keys[i]);
            n.keys[j] = p->keys[i];
            n.home[j] = p->home[i];
            n.used++;
        }
    gcr_pages_fini(p);
    *p = n;
    return 0;
}

int gcr_pages_home(struct gcr_pages *p, uint64_t page, uint32_t toucher)
{
    if (p->cap) {
        uint64_t i = page_slot(p, page + 1);
        if (p->keys[i])
            return p->home[i];
    }
    if ((p->used + 1) * 2 > p->cap && pages_grow(p) != 0)
        return -1;
    uint64_t i = page_slot(p, page + 1);
    p->keys[i] = page + 1;
    p->home[i] = (uint8_t)toucher;
    p->used++;
    return (int)toucher;
}

void gcr_pages_fini(struct gcr_pages *p)
{
    free(p->keys);
    free(p->home);
    p->keys = NULL;
    p->home = NULL;
    p->cap = p->used = 0;
}
