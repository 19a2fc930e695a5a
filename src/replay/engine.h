/* The replay engine's state, shared by the files of the engine (src/README.md draws the
 * pipeline):
 *
 *   replay.c      create, replay a trace kernel by kernel, report
 *   cta.c         CTAs: loaded from the trace's records into warp queues, placed on SMs
 *   issue.c       the functional issue driver: rounds of the SMs that have warps
 *   execute.h     one warp memory instruction: coalesce, then the L1 organisation or the
 *                 memory system
 *   sched.h       the warp schedulers' interface (lrr.c, gto.c; vws in src/timing/)
 *   host_prefetch.c  the host-cache prefetch pipeline of the functional driver
 *   pass.c        one trace pass, many memory systems: the key of the variants that can
 *                 share a pass, and the front end driving their memory systems
 *   src/timing/timed.c  the timed issue driver (SMs by cycle)
 *
 * Nothing outside the engine includes this header. */
#ifndef GCREPLAY_REPLAY_ENGINE_H
#define GCREPLAY_REPLAY_ENGINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/bits.h"
#include "gcreplay/analysis.h"
#include "gcreplay/replay.h"
#include "replay/bus.h"
#include "replay/coalesce.h"
#include "replay/host_prefetch.h"
#include "replay/l1org.h"
#include "replay/memsys.h"
#include "replay/prefetch_tuner.h"
#include "replay/sched.h"
#include "replay/warpq.h"
#include "timing/vws.h"

struct cta;
struct skip_log;
struct gcr_timing;
struct gcr_pass_batch;

struct warp {
    struct gcr_warpq q;
    struct cta *cta;
    uint32_t cta_id;      /* cta->id, kept here: every issue reads the warp, not the CTA */
    uint32_t id;          /* warp index inside the CTA */
    uint32_t nonmem_left; /* non-memory instructions still to issue before q's next item */
    struct gcr_warp_sched_state sched; /* what the warp schedulers keep per warp (sched.h) */
};

struct cta {
    uint32_t id;
    uint32_t nwarps, cap_warps;
    uint32_t warps_left;
    uint32_t sm;
    struct warp *warps;
    struct cta *next; /* free list / FIFO link */
    /* timed: warps waiting at a barrier (GCR_WAITS_BARRIER) and the cycle they may go on */
    uint32_t barrier_waiting;
    double barrier_release;
    /* Its hardware slot on its SM: the lowest free one when it was placed (GPGPU-Sim's CTA
     * hardware id; its warps take the warp slots slot x warps per CTA on, which decide their
     * schedulers: the timed driver's unit pools). */
    uint32_t hw_slot;
    struct gcr_warp_scoreboard *sb; /* timed: the warps' scoreboards (cap_sb of them) */
    uint32_t cap_sb;
};

struct sm {
    struct warp **active; /* resident warps with work, oldest first */
    uint32_t nactive;
    int32_t last;          /* the index of the warp issued last (-1: none yet) */
    struct warp *current;  /* the warp issued last: greedy policies stay on it */
    uint32_t resident_ctas;
    uint64_t cta_slots;    /* hardware CTA slots taken (the first 64; struct cta's hw_slot) */
    uint64_t issued;       /* functional: issue slots used, the SM's clock */
    double cycle;          /* timed: the SM's next issue cycle */
    uint32_t nonmem_steps; /* timed: issue steps since its last memory instruction */
    struct gcr_vws_sm vws; /* VWS throttling estimate */
};

/* Per-kernel counters that are not cache statistics. */
struct insn_counts {
    uint64_t warp_insns; /* every warp instruction, memory or not */
    uint64_t nonmem;
    uint64_t mem[GCR_SPACE_COUNT][GCR_OP_COUNT];
    uint64_t bypass_requests; /* L1-bypassing loads/stores, in line requests */
    uint64_t atomic_requests;
    uint64_t ctas;
};
GCR_U64_COUNTERS(struct insn_counts, 2 + GCR_SPACE_COUNT * GCR_OP_COUNT + 3);

/* Records the loader asks the reader for at once (gcr_reader_next_run): enough
 * to spread the cost of a call over many records (32 cost 3 more x86
 * instructions per record on the bench's typical trace), few enough to stay in
 * the L1 data cache (a lazily filled record touches two of its five lines). */
#define LOAD_RUN_RECORDS 64

/* The kernel being replayed: its CTAs as they are loaded and dispatched (cta.c). */
struct kernel_state {
    struct gcr_kernel_begin kb; /* name owned here */
    uint64_t nctas;
    uint32_t wpc;         /* warps per CTA */
    uint32_t fit;         /* CTAs one SM can hold */
    /* loading */
    struct gcr_reader *r;
    /* Records read but not loaded yet: run[run_next..run_count-1]. A record
     * that ends a CTA is left there for the next load_cta. */
    struct gcr_record run[LOAD_RUN_RECORDS];
    uint32_t run_next, run_count;
    bool ended;
    /* dispatch */
    struct cta **by_id;                  /* contiguous: loaded, not dispatched */
    uint64_t *next_id, *end_id;          /* contiguous: per-SM range */
    uint32_t rr_next;
    uint64_t resident;                   /* CTAs on SMs */
    bool cta_finished;
};

/* How the SMs take turns (which SM issues next, and when): the functional rounds
 * (issue.c) or the timed clock (src/timing/timed.c). The warp scheduler (sched.h)
 * picks the warp inside an SM. */
struct gcr_issue_driver {
    const char *name;
    /* Sets up the driver's state once the organisation exists (rp->info is
     * complete): 0, or -1 with err set. May be NULL. */
    int (*init)(struct gcr_replay *rp, struct gcr_err *err);
    /* Frees it (also after a failed init). May be NULL. */
    void (*fini)(struct gcr_replay *rp);
    /* A kernel starts; l1_blocks: lines of one L1 for it. May be NULL. */
    void (*kernel_begin)(struct gcr_replay *rp, uint32_t l1_blocks);
    /* A CTA was just placed on SM s, which had no warps when was_idle. */
    void (*placed)(struct gcr_replay *rp, uint32_t s, bool was_idle);
    /* Issues the kernel's resident warps until no CTA is left (dispatching new
     * CTAs as others finish): 0, or -1 with err set. */
    int (*run)(struct gcr_replay *rp, struct gcr_err *err);
};

extern const struct gcr_issue_driver gcr_issue_functional; /* issue.c */
extern const struct gcr_issue_driver gcr_issue_timed;      /* src/timing/timed.c */

struct gcr_replay {
    const struct gcr_config *cfg;
    struct gcr_sim_info info;
    struct gcr_idmap lines; /* info.lines: the analyses' shared line ids */
    struct gcr_bus bus;
    struct gcr_memsys mem;
    const struct gcr_l1org_ops *org;
    void *org_self;
    const struct gcr_issue_driver *driver;
    const struct gcr_warp_sched *sched;
    struct sm *sms;
    struct warp **warp_slots;           /* backing store of every sm.active */
    struct cta *free_ctas;
    struct gcr_pool *queues;            /* buffers of every warp queue */
    struct kernel_state *ks;
    /* One pass, many memory systems (pass.c): the replays whose memory systems
     * this one's front end also drives (gcr_replay_share_pass), in the order
     * they were added, and whether any of them observes instructions (the
     * loader then keeps the lane addresses of on-chip ones). A replay so
     * driven names its driver in driven_by; its own front end stays idle. */
    struct gcr_replay **variants;
    uint32_t nvariants;
    struct gcr_pass_batch *batch; /* what the pass's memory systems have not seen yet */
    bool variants_observe_insns;
    struct gcr_replay *driven_by;
    uint32_t kernel_l1_ways; /* of each L1 instance in the kernel being replayed */
    struct gcr_line_req reqs[GCR_COALESCE_MAX];
    struct gcr_warp_insn insn;          /* the instruction being executed */
    struct insn_counts counts, kernel_counts;

    /* Functional driver (issue.c): per SM, the round (bus step) of its next
     * issue, later than now while it sleeps through non-memory slots and
     * UINT64_MAX while it has no warps; the SMs issuing this round. One array
     * to scan every round, apart from the SMs' larger records. */
    uint64_t *wake;
    uint32_t *order;
    uint64_t issued;                    /* issue slots of functional rounds so far */
    struct host_prefetch hp;            /* host_prefetch.h */

    /* Timed driver (src/timing/timed.c): the timing backend (also reached by
     * the memory system as mem.timing), the cycle being issued and the cycle
     * the current kernel's last warp finished. NULL when functional. */
    struct gcr_timing *timing;
    double now, kernel_end;
    uint32_t *sm_heap, *sm_heap_pos;    /* SMs by next issue cycle */
    double *sm_heap_key;
    /* timed: when each SM's execution units next take an instruction, per unit pool
     * (unit_pool_index: SMs x issue_per_cycle pools x GCR_UNIT_COUNT units) */
    double *unit_free;
    uint32_t l1_blocks;                 /* VWS: lines of one L1 in this kernel */
    bool vws_spare;                     /* VWS: second-level warps could be promoted */
    struct skip_log *skip;              /* the timed driver's record of an SM's states */

    /* Reporting (src/report/kernel_report.c): statistics at the kernel's start. */
    struct gcr_cache_stats *l1_stats;   /* per SM, cumulative, as collected for a report */
    struct gcr_cache_stats *l1_then, *l2_then, *l2_now;
    struct gcr_traffic traffic_then;
    struct gcr_l2_extra l2_extra_then;
    uint64_t memcpy_bytes;
    json_t *kernels;     /* finished kernels' reports, unless a sink takes them */
    uint64_t nkernels;   /* kernels finished */
    gcr_kernel_sink_fn kernel_sink;
    void *kernel_sink_ctx;
    json_t *traces;
    gcr_progress_fn progress;
    void *progress_ctx;
    enum gcr_decode_ahead_mode decode_ahead; /* gcr_replay_set_decode_ahead */
    uint64_t progress_tick;
};

/* cta.c */
/* Sets up the kernel's CTA bookkeeping in ks (ks->kb, ks->r set): its CTAs, warps per
 * CTA and how many fit on an SM (an error naming the config's limits when none does). */
int gcr_cta_kernel_init(struct gcr_replay *rp, struct kernel_state *ks, struct gcr_err *err);
/* Gives back every CTA the kernel still holds (after an error too). */
void gcr_cta_kernel_free(struct gcr_replay *rp, struct kernel_state *ks);
/* Places CTAs on SMs with room, as the CTA policy orders. */
int gcr_cta_dispatch(struct gcr_replay *rp, struct gcr_err *err);
/* After the last CTA ran: the loader must be at the kernel's end. */
int gcr_cta_check_ended(struct gcr_replay *rp, struct gcr_err *err);
/* Frees the CTAs kept for reuse (at destroy). */
void gcr_cta_pool_free(struct gcr_replay *rp);
/* The warp at `index` of SM sm issued its last instruction. */
void gcr_warp_done(struct gcr_replay *rp, struct sm *sm, uint32_t index);

/* pass.c */
/* Ends rp's part in a shared pass: its variants are on their own again, and its
 * driver (if any) goes on without it. At destroy. */
void gcr_pass_forget(struct gcr_replay *rp);
/* Hands every memory system of rp's pass (its own and its variants') the memory
 * instructions it has not seen yet: before anything else reaches them (a kernel's end). */
void gcr_pass_flush(struct gcr_replay *rp);
/* At a kernel's end, a variant's counts are those of the front end (rp) that ran
 * it, but for what its own memory system counted. */
void gcr_pass_take_counts(struct gcr_replay *variant, const struct gcr_replay *rp);

/* Whether anything reads the lane addresses of on-chip accesses (shared memory, constants):
 * they end at issue (gcr_execute), so only instruction observers do, this replay's or those of
 * the variants it drives (pass.c). Without one, load_cta queues such accesses without their
 * lanes, and the reader need not decode them (gcr_replay_trace: GCR_READ_SKIP_ONCHIP_LANES). */
static inline bool gcr_replay_reads_onchip_lanes(const struct gcr_replay *rp)
{
    return gcr_bus_wants(&rp->bus, GCR_EV_INSN) || rp->variants_observe_insns;
}

/* Non-memory instructions a warp can issue without taking an item from its
 * queue and without finishing (its last instruction ends it: gcr_warp_done). */
static inline uint32_t gcr_nonmem_spare(const struct warp *w)
{
    return w->nonmem_left && gcr_warpq_empty(&w->q) ? w->nonmem_left - 1 : w->nonmem_left;
}

#endif
