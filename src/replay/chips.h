/* Multi-chip GPUs (SAC, ISCA'23): first-touch page placement, the memory-side
 * and SM-side LLC organisations, inter-chip ring links, the Chip Request
 * Directory and the counters the EAB model needs. The memory system hands
 * every L1 -> LLC request here when the config has more than one chip. */
#ifndef GCREPLAY_REPLAY_CHIPS_H
#define GCREPLAY_REPLAY_CHIPS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/cache.h"
#include "gcreplay/chips.h"
#include "gcreplay/config.h"
#include "gcreplay/error.h"
#include "gcreplay/record.h"

struct gcr_memsys;

/* ---- Chip Request Directory (SAC §3.4): one per chip, set-sampled. ------
 * It sees every request to lines homed on its chip (from any chip) and keeps,
 * for each tag, which chips have touched which sectors. A request from chip i
 * hits iff chip i already touched every requested sector of that tag: what
 * chip i's own (SM-side) LLC would hold. On a tag miss the LRU way is
 * replaced and its bits cleared (ATD-style; the paper does not say). */
struct gcr_crd {
    uint32_t sets, ways, nchips;
    uint64_t *tags;    /* sets*ways; UINT64_MAX = empty */
    uint64_t *stamp;   /* LRU stamps */
    uint32_t *touched; /* sets*ways*nchips sector masks */
    uint64_t clock;
    uint64_t hits, requests;
};

int gcr_crd_init(struct gcr_crd *d, uint32_t sets, uint32_t ways, uint32_t nchips,
                 struct gcr_err *err);
void gcr_crd_fini(struct gcr_crd *d);
void gcr_crd_clear(struct gcr_crd *d); /* tags and bits; the counters stay */
/* One request from chip to a sampled set; true if SM-side would hit. */
bool gcr_crd_access(struct gcr_crd *d, uint32_t set, uint64_t line, uint32_t chip,
                    uint32_t sectors);

/* ---- First-touch page table: page -> home chip. ------------------------- */
struct gcr_pages {
    uint64_t *keys; /* page number + 1; 0 = empty */
    uint8_t *home;
    uint64_t cap, used;
};

/* Home chip of the page holding addr; a page nobody touched yet is placed on
 * `toucher`. Returns -1 only when out of memory. */
int gcr_pages_home(struct gcr_pages *p, uint64_t page, uint32_t toucher);
/* Home of a page already placed (UINT32_MAX if none). */
uint32_t gcr_pages_lookup(const struct gcr_pages *p, uint64_t page);
void gcr_pages_fini(struct gcr_pages *p);

/* ---- The chips. ---------------------------------------------------------- */
enum gcr_chips_kind { GCR_CHIPS_READ, GCR_CHIPS_WRITE, GCR_CHIPS_ATOMIC };

struct gcr_chips;

int gcr_chips_create(struct gcr_chips **out, struct gcr_memsys *m, struct gcr_err *err);
void gcr_chips_destroy(struct gcr_chips *x);

/* One L1 -> LLC request (a line with its sectors; split per sector here in
 * sector granularity). sm may be UINT32_MAX (write-back): port gives the chip. */
void gcr_chips_request(struct gcr_chips *x, uint32_t sm, uint32_t port, uint64_t line,
                       uint32_t sectors, enum gcr_chips_kind kind, uint32_t write_bytes,
                       const struct gcr_warp_insn *insn);

void gcr_chips_kernel_begin(struct gcr_chips *x);
/* Flushes the SM-side LLCs (software coherence) at the kernel's end. */
void gcr_chips_kernel_end(struct gcr_chips *x);
/* The "multichip" section of a kernel (since kernel_begin) or of the whole run. */
json_t *gcr_chips_report(struct gcr_chips *x, bool kernel);

#endif
