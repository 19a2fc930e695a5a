/* An array that grows by chunks, for lists appended to at every event (an
 * analysis's lines of a kernel): growing never copies what is there, and
 * chunks are large enough for huge pages (src/core/table_memory.h), so
 * neither a doubling's copy nor 4-KB page faults are paid per element.
 * Elements are left as they were: a push returns one to fill in. */
#ifndef GCR_CORE_CHUNKS_H
#define GCR_CORE_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#define GCR_CHUNKS_SHIFT 17 /* elements per chunk: 2^17 */

struct gcr_chunks {
    unsigned char **chunk;
    size_t nchunks, chunk_slots; /* allocated; length of `chunk` */
    size_t elem;                 /* bytes per element */
    size_t count;                /* elements in use */
};

static inline void *gcr_chunks_at(const struct gcr_chunks *c, size_t i)
{
    return c->chunk[i >> GCR_CHUNKS_SHIFT] +
           (i & (((size_t)1 << GCR_CHUNKS_SHIFT) - 1)) * c->elem;
}

void gcr_chunks_init(struct gcr_chunks *c, size_t elem);
/* One more element at the end (its contents undefined); NULL if out of memory. */
void *gcr_chunks_push(struct gcr_chunks *c);
/* Empties the array, keeping its chunks for the next pushes. */
static inline void gcr_chunks_clear(struct gcr_chunks *c) { c->count = 0; }
void gcr_chunks_free(struct gcr_chunks *c);

#endif
