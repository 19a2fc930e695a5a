/* Memory for large tables probed at random: the analyses' per-line tables,
 * the cache models' line arrays and the replay's warp queues.
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

#endif
