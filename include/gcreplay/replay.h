/* The functional replayer: CTAs to SMs, warps interleaved per SM, accesses
 * coalesced and sent through the L1 organisation, L2 slices and DRAM.
 *
 * Usage: create with a config, replay one or more traces (kernels accumulate
 * in order, or go to a kernel sink as they end; L2 contents persist across
 * kernels and traces), then take the report. Same trace and config give the
 * same report, byte for byte. */
#ifndef GCREPLAY_REPLAY_H
#define GCREPLAY_REPLAY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/config.h"
#include "gcreplay/error.h"
#include "gcreplay/trace.h"

struct gcr_replay;

struct gcr_progress {
    const char *path;
    uint64_t bytes_done, bytes_total; /* of the current trace; total 0 if unknown */
    uint64_t warp_insns;              /* warp instructions (memory or not) replayed so far */
    uint64_t kernels;
};

typedef void (*gcr_progress_fn)(void *ctx, const struct gcr_progress *p);

int gcr_replay_create(struct gcr_replay **out, const struct gcr_config *cfg, struct gcr_err *err);
void gcr_replay_set_progress(struct gcr_replay *rp, gcr_progress_fn fn, void *ctx);
/* Runs the configured analyses on a thread of their own, beside the replay
 * (or back on the replay's, with on false). The report is the same, byte
 * for byte; the replay runs alongside the analyses instead of between
 * their events. Call before the first trace; without analyses it does
 * nothing. */
int gcr_replay_set_analysis_thread(struct gcr_replay *rp, bool on, struct gcr_err *err);
/* Whether the configured analyses are worth a thread of their own (given a
 * second CPU): true when some analysis that takes its events from the
 * queue keeps state for every line it sees (a column of the shared line
 * map). Each of its events then misses the host's caches, and a second core
 * hides that; the other analyses (line utilisation, sampled reuse distance)
 * cost less per event than handing the event to another core does, and
 * those delivered at emission (sharing) run on the replay's thread anyway. */
bool gcr_replay_analysis_thread_pays(const struct gcr_replay *rp);
/* Whether each trace is decompressed and parsed on a thread of its own, a few
 * thousand records ahead of the replay (gcr_reader_decode_ahead); the report
 * is the same either way. AUTO (the default) does not: on the measurements so far
 * (tests/bench/README.md) the thread costs more than it overlaps. */
enum gcr_decode_ahead_mode { GCR_DECODE_AHEAD_AUTO, GCR_DECODE_AHEAD_ON, GCR_DECODE_AHEAD_OFF };
void gcr_replay_set_decode_ahead(struct gcr_replay *rp, enum gcr_decode_ahead_mode mode);

/* How far ahead the functional replay prefetches the host memory its next
 * accesses read (the results are the same at every level): the SMs' warp
 * records and queue heads only, also the L1 organisation's set and line
 * state, or also the L2 slice's. AUTO (the default) measures which runs
 * fastest on this host and config, again and again as the replay goes
 * (src/replay/prefetch_tuner.h). Timing mode does not prefetch. */
enum gcr_host_prefetch {
    GCR_HOST_PREFETCH_QUEUES,
    GCR_HOST_PREFETCH_L1,
    GCR_HOST_PREFETCH_L2,
    GCR_HOST_PREFETCH_LEVELS,
    GCR_HOST_PREFETCH_AUTO = GCR_HOST_PREFETCH_LEVELS,
};
/* Call before the first trace: 0, or -1 for a mode that is none of the
 * above or a replay already started. */
int gcr_replay_set_host_prefetch(struct gcr_replay *rp, enum gcr_host_prefetch mode,
                                 struct gcr_err *err);

/* Where each kernel's report goes when the kernel ends. By default the replay
 * keeps them all for gcr_replay_report's "kernels" list, so its memory grows
 * with the number of kernels (about 60 KB each with 80 SMs and 64 L2 slices:
 * per-SM and per-slice figures). With a sink, each kernel's complete object is
 * handed to fn as the kernel ends, in order, and released when fn returns
 * (fn takes a reference, json_incref, to keep it): the replay keeps none, and
 * gcr_replay_report has no "kernels" list. A non-zero return from fn fails the
 * replay with the error fn set. fn NULL: back to keeping them. Call before the
 * first trace: -1 once a kernel has been replayed. */
typedef int (*gcr_kernel_sink_fn)(void *ctx, json_t *kernel, struct gcr_err *err);
int gcr_replay_set_kernel_sink(struct gcr_replay *rp, gcr_kernel_sink_fn fn, void *ctx,
                               struct gcr_err *err);

/* Replays every kernel of the trace. A trace that holds no kernel is an error (it would add
 * nothing to the report). On error the replay must not be used further. */
int gcr_replay_trace(struct gcr_replay *rp, struct gcr_reader *r, struct gcr_err *err);
/* The report's first members, {"gcreplay": {"version", "report_format"},
 * "config": the effective configuration}: all a report writer needs before
 * the first kernel (gcr_report_writer_open). The caller owns it. */
json_t *gcr_replay_report_head(const struct gcr_replay *rp);
/* The report: the head's members, then "kernels": [...] (absent with a kernel
 * sink), "traces": [...] and "total": {...}, in that order. The caller owns
 * the returned object. */
json_t *gcr_replay_report(struct gcr_replay *rp, struct gcr_err *err);
void gcr_replay_destroy(struct gcr_replay *rp);

/* One trace pass, many memory systems. Configs that differ only in what lies
 * below the coalescer (L1 organisation and geometry, L2, the chips' LLCs,
 * analyses) replay the same request stream; one replay's pass can then drive
 * the memory systems of the others (its variants) too, and each variant's
 * report is byte for byte the one it would have replayed alone.
 *
 * gcr_replay_pass_key: what the replay's front end reads of cfg (GPU limits,
 * CTA and warp policy, coalescer), as text into key (GCR_PASS_KEY_MAX bytes
 * hold any): configs whose keys are equal can share a pass. Returns NULL, or
 * why the config needs a pass of its own (timing mode; GTO with a miss
 * stall: the issue order then depends on the config's own memory system).
 *
 * gcr_replay_share_pass: from now on rp's pass also drives variant's memory
 * system. Call before the first trace; the keys must be equal (else an
 * error naming both configs and the setting). Traces are then replayed
 * through rp only; each variant keeps its own analysis thread, kernel sink
 * and report. Destroy in any order. */
enum { GCR_PASS_KEY_MAX = 512 };
const char *gcr_replay_pass_key(const struct gcr_config *cfg, char *key, size_t cap);
int gcr_replay_share_pass(struct gcr_replay *rp, struct gcr_replay *variant,
                          struct gcr_err *err);

/* Totals for benchmarks and quick checks. */
struct gcr_replay_totals {
    uint64_t warp_insns;     /* all warp instructions (memory and not) */
    uint64_t mem_insns;      /* warp memory instructions */
    uint64_t l1_requests;    /* requests into the L1 organisation */
    uint64_t l1_sectors;     /* sectors those requests asked for */
    uint64_t l1_misses;      /* line and sector misses among them */
    uint64_t l2_accesses;
    /* Issue slots of the functional replay at each host prefetch level
     * (gcr_replay_set_host_prefetch): an SM's issue of one instruction, or
     * of a run of non-memory ones it sleeps through. */
    uint64_t issues_at_prefetch[GCR_HOST_PREFETCH_LEVELS];
};
void gcr_replay_totals(struct gcr_replay *rp, struct gcr_replay_totals *t);

#endif
