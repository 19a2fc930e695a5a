/* First-touch page placement: page number -> home chip.
 *
 * Pages are kept in leaves of 512 consecutive pages (one byte each), found
 * through an open-addressing table of leaves: a GPU kernel streams through
 * consecutive pages, so most look-ups hit the leaf of the one before (kept
 * aside) or one that is still in the CPU cache, where a table of single pages
 * would miss on nearly every new page. */
#ifndef GCREPLAY_MULTICHIP_PAGES_H
#define GCREPLAY_MULTICHIP_PAGES_H

#include <stdint.h>

#define GCR_PAGES_LEAF 512 /* pages per leaf */

struct gcr_pages {
    uint64_t *keys;   /* leaf number + 1; 0 = empty slot */
    uint8_t **leaves; /* per slot: GCR_PAGES_LEAF homes, 0xff = not placed */
    uint64_t cap, nleaves;
    uint64_t used;    /* pages placed */
    uint64_t last_key; /* the leaf of the last look-up, and its homes */
    uint8_t *last_leaf;
};

/* Home chip of a page; a page nobody touched yet is placed on `toucher`
 * (< 255). Returns -1 only when out of memory. */
int gcr_pages_home(struct gcr_pages *p, uint64_t page, uint32_t toucher);
/* Home of a page already placed (UINT32_MAX if none). */
uint32_t gcr_pages_lookup(const struct gcr_pages *p, uint64_t page);
void gcr_pages_fini(struct gcr_pages *p);

#endif
