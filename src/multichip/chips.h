/* Multi-chip GPUs (SAC, ISCA'23): first-touch page placement, the memory-side
 * and SM-side LLC organisations, inter-chip ring links, the Chip Request
 * Directory and the counters the EAB model needs. The memory system hands
 * every L1 -> LLC request here when the config has more than one chip. */
#ifndef GCREPLAY_MULTICHIP_CHIPS_H
#define GCREPLAY_MULTICHIP_CHIPS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/cache.h"
#include "gcreplay/chips.h"
#include "gcreplay/config.h"
#include "gcreplay/error.h"
#include "gcreplay/record.h"
#include "multichip/crd.h"
#include "multichip/pages.h"

struct gcr_memsys;

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
