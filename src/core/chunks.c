#include "core/chunks.h"

#include <stdlib.h>
#include <string.h>

#include "core/table_memory.h"

static size_t chunk_bytes(const struct gcr_chunks *c)
{
    return c->elem << GCR_CHUNKS_SHIFT;
}

void gcr_chunks_init(struct gcr_chunks *c, size_t elem)
{
    memset(c, 0, sizeof *c);
    c->elem = elem ? elem : 1;
}

void *gcr_chunks_push(struct gcr_chunks *c)
{
    if (c->count == c->nchunks << GCR_CHUNKS_SHIFT) {
        if (c->nchunks == c->chunk_slots) {
            size_t n = c->chunk_slots ? 2 * c->chunk_slots : 8;
            unsigned char **p = realloc(c->chunk, n * sizeof *p);
            if (!p)
                return NULL;
            c->chunk = p;
            c->chunk_slots = n;
        }
        if (!(c->chunk[c->nchunks] = gcr_table_alloc(chunk_bytes(c))))
            return NULL;
        c->nchunks++;
    }
    return gcr_chunks_at(c, c->count++);
}

void gcr_chunks_free(struct gcr_chunks *c)
{
    for (size_t i = 0; i < c->nchunks; i++)
        gcr_table_free(c->chunk[i], chunk_bytes(c));
    free(c->chunk);
    memset(c, 0, sizeof *c);
}
