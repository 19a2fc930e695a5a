/* The Chip Request Directory (SAC §3.4): see crd.h. */
#include "multichip/crd.h"

#include <stdlib.h>
#include <string.h>

int gcr_crd_init(struct gcr_crd *d, uint32_t sets, uint32_t ways, uint32_t nchips,
                 struct gcr_err *err)
{
    *d = (struct gcr_crd){.sets = sets, .ways = ways, .nchips = nchips};
    size_t n = (size_t)sets * ways;
    d->tags = malloc(n * sizeof *d->tags);
    d->stamp = calloc(n, sizeof *d->stamp);
    d->touched = calloc(n * nchips, sizeof *d->touched);
    if (!d->tags || !d->stamp || !d->touched) {
        gcr_crd_fini(d);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory for a %u x %u chip request directory",
                        sets, ways);
    }
    gcr_crd_clear(d);
    return 0;
}

void gcr_crd_fini(struct gcr_crd *d)
{
    free(d->tags);
    free(d->stamp);
    free(d->touched);
    d->tags = NULL;
    d->stamp = NULL;
    d->touched = NULL;
}

void gcr_crd_clear(struct gcr_crd *d)
{
    size_t n = (size_t)d->sets * d->ways;
    for (size_t i = 0; i < n; i++)
        d->tags[i] = UINT64_MAX;
    memset(d->stamp, 0, n * sizeof *d->stamp);
    memset(d->touched, 0, n * d->nchips * sizeof *d->touched);
    d->clock = 0;
}

bool gcr_crd_access(struct gcr_crd *d, uint32_t set, uint64_t line, uint32_t chip,
                    uint32_t sectors)
{
    size_t base = (size_t)set * d->ways, way = d->ways;
    d->requests++;
    d->clock++;
    for (uint32_t w = 0; w < d->ways; w++)
        if (d->tags[base + w] == line) {
            way = w;
            break;
        }
    if (way == d->ways) {
        /* Tag miss: an empty way, else the least recently used one. */
        way = 0;
        for (uint32_t w = 0; w < d->ways; w++) {
            if (d->tags[base + w] == UINT64_MAX) {
                way = w;
                break;
            }
            if (d->stamp[base + w] < d->stamp[base + way])
                way = w;
        }
        d->tags[base + way] = line;
        memset(&d->touched[(base + way) * d->nchips], 0, d->nchips * sizeof *d->touched);
    }
    d->stamp[base + way] = d->clock;
    uint32_t *bits = &d->touched[(base + way) * d->nchips + chip];
    bool hit = (*bits & sectors) == sectors;
    *bits |= sectors;
    if (hit)
        d->hits++;
    return hit;
}

/* Sample k of n among m places (n <= m): the k-th of n strata as even as
 * integer division makes them, at offset k modulo the narrowest width, which
 * every stratum has, so the places stay distinct. */
static uint32_t stratified(uint32_t k, uint32_t n, uint32_t m)
{
    return (uint32_t)((uint64_t)k * m / n) + k % (m / n);
}

void gcr_crd_sample(uint32_t k, uint32_t n, uint32_t slices, uint32_t sets, uint32_t *slice,
                    uint32_t *set)
{
    /* With more samples than set indices, samples sharing a set index are
     * `sets` or more apart in k, hence in different slices, as n <= slices x
     * sets; with fewer, each has a set index of its own. */
    *slice = n <= slices ? stratified(k, n, slices) : (uint32_t)((uint64_t)k * slices / n);
    *set = n <= sets ? stratified(k, n, sets) : k % sets;
}
