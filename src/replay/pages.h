/* First-touch page placement: page number -> home chip, an open-addressing
 * table that grows as pages are touched. */
#ifndef GCREPLAY_REPLAY_PAGES_H
#define GCREPLAY_REPLAY_PAGES_H

#include <stdint.h>

struct gcr_pages {
    uint64_t *keys; /* page number + 1; 0 = empty */
    uint8_t *home;
    uint64_t cap, used;
};

/* Home chip of a page; a page nobody touched yet is placed on `toucher`.
 * Returns -1 only when out of memory. */
int gcr_pages_home(struct gcr_pages *p, uint64_t page, uint32_t toucher);
/* Home of a page already placed (UINT32_MAX if none). */
uint32_t gcr_pages_lookup(const struct gcr_pages *p, uint64_t page);
void gcr_pages_fini(struct gcr_pages *p);

#endif
