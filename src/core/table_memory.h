/* Memory for large tables probed at random: the analyses' per-line tables
 * and the replay's warp queues (and, below, for many small ones).
 *
 * The tables are probed at random addresses, one probe per event, so with
 * 4-KB pages most probes of a table of hundreds of MB also miss the TLB.
 * Tables of 2 MB and more are therefore mapped on their own and offered to the
 * kernel as transparent huge pages (madvise(MADV_HUGEPAGE); a no-op where the
 * system has none). Smaller ones come from calloc. */
#ifndef GCR_CORE_TABLE_MEMORY_H
#define GCR_CORE_TABLE_MEMORY_H

#include <stdbool.h>
#include <stddef.h>

/* `bytes` of zero-filled memory, or NULL. Release it with gcr_table_free and
 * the same size. */
void *gcr_table_alloc(size_t bytes);
void gcr_table_free(void *p, size_t bytes);

/* Resizes a block from gcr_table_alloc (or NULL with old_bytes 0) to
 * new_bytes, keeping the first min(old, new) bytes; what is added reads as
 * zero. NULL if out of memory (the old block is then untouched). For arrays
 * that grow by doubling: past 2 MB they live on huge pages too, where malloc
 * would map 4-KB pages, each a page fault when first written. */
void *gcr_table_realloc(void *p, size_t old_bytes, size_t new_bytes);

/* Many blocks that live until the end together (an idmap's column chunks):
 * carved in order from large huge-page mappings, so they take no 4-KB page
 * faults and no per-block mapping, and are all released at once. */
struct gcr_arena {
    struct gcr_arena_map *maps; /* newest first */
    char *next;                 /* free space of the newest mapping */
    size_t left;
};

/* `bytes` of zero-filled memory aligned to 64 bytes, or NULL. */
void *gcr_arena_alloc(struct gcr_arena *a, size_t bytes);
void gcr_arena_free_all(struct gcr_arena *a);

/* A pool of blocks of power-of-two sizes, from 2^min_class bytes (at least
 * 64, so blocks are 64-byte aligned), cut from huge-page chunks of
 * chunk_bytes (a block larger than a quarter chunk gets a mapping of its
 * own) and recycled by size through free lists threaded through the free
 * blocks themselves: for many buffers that grow and are reused (the warp
 * queues) or many small tables. Everything goes back to the system when the
 * pool is destroyed. Not thread-safe. NULL when out of memory. */
struct gcr_pool;
struct gcr_pool *gcr_pool_create(unsigned min_class, size_t chunk_bytes);
void gcr_pool_destroy(struct gcr_pool *p);
/* The size of the block that serves `bytes`. */
size_t gcr_pool_block_bytes(const struct gcr_pool *p, size_t bytes);
/* A block of gcr_pool_block_bytes(bytes) bytes: zero-filled when new,
 * as last left when *recycled (a freed block); NULL if out of memory. */
void *gcr_pool_get(struct gcr_pool *p, size_t bytes, bool *recycled);
/* Gives a block back, with the size it was asked for. */
void gcr_pool_put(struct gcr_pool *p, void *block, size_t bytes);

/* Small tables probed at random, many at once: a replay's cache models (an
 * 80-SM GPU has 144, each with a line array, hash buckets and set state of a
 * few KB). From calloc, they would spread over hundreds of 4-KB pages, one
 * TLB entry each, and an access touches several of them; instead they share
 * huge pages. `bytes` of zero-filled, 64-byte aligned memory, or NULL;
 * release it with gcr_small_table_free and the same size. Thread-safe. The
 * memory stays with the process and serves the next small tables. */
void *gcr_small_table_alloc(size_t bytes);
void gcr_small_table_free(void *p, size_t bytes);

#endif
