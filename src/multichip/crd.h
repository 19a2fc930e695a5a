/* The Chip Request Directory (SAC, ISCA'23 §3.4), a set-sampled shadow tag
 * directory that predicts the SM-side LLC hit rate while another organisation
 * runs. Where the directories sit and which requests they see is the chips'
 * business (chips.c); this is one directory. */
#ifndef GCREPLAY_MULTICHIP_CRD_H
#define GCREPLAY_MULTICHIP_CRD_H

#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/error.h"

/* Sampled sets of `ways` tags each; for every tag, the sectors each of
 * `nchips` requesters has touched. A request from requester i hits iff i
 * already touched every requested sector of that tag: what i's own (SM-side)
 * LLC would hold. On a tag miss the least recently used way is replaced and
 * its bits cleared (ATD-style; SAC does not give the policy). SAC puts one
 * directory at each home chip with a bit per chip; chips.c can also keep one
 * per requesting chip with a single bit (config crd.at). */
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

/* Which set of a chip's LLC (`slices` slices of `sets` sets each) is the
 * k-th of the n sets the directory samples (n <= slices x sets); SAC does not
 * say. Sample k lies in the k-th n-th of the slices and in the k-th n-th of
 * the set indices, at offset k modulo the stratum's width in each (a
 * diagonal, like the dedicated sets of set-dueling caches). So the samples
 * cover all parts of both alike, and lines at a power-of-two stride of set
 * indices (up to that width) meet some of them. Taking every (slices x sets
 * / n)-th set instead puts all samples at one set index whenever that step
 * is a multiple of `sets`, as in SAC's geometries. With more samples than
 * slices, sample k is in slice k x slices / n; with more than set indices,
 * at set index k mod sets. Distinct k give distinct sets. */
void gcr_crd_sample(uint32_t k, uint32_t n, uint32_t slices, uint32_t sets, uint32_t *slice,
                    uint32_t *set);

#endif
