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

#include <stddef.h>

/* `bytes` of zero-filled memory, or NULL. Release it with gcr_table_free and
 * the same size. */
void *gcr_table_alloc(size_t bytes);
void gcr_table_free(void *p, size_t bytes);

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
