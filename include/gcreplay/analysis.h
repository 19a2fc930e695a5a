/* Analyses observe the replay through events; they never change it.
 *
 * An analysis lives in analyses/<name>/, subscribes to the event kinds it
 * needs (others are never delivered, so an unused kind costs nothing), and
 * writes its results into its own JSON section analyses.<name> of the report,
 * per kernel and for the whole run. Analyses never print. */
#ifndef GCREPLAY_ANALYSIS_H
#define GCREPLAY_ANALYSIS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/cache.h"
#include "gcreplay/config.h"
#include "gcreplay/error.h"
#include "gcreplay/idmap.h"
#include "gcreplay/record.h"

enum gcr_event_kind {
    GCR_EV_KERNEL_BEGIN = 1u << 0, /* kernel set */
    GCR_EV_KERNEL_END = 1u << 1,   /* kernel set; sent before L1s are invalidated */
    GCR_EV_INSN = 1u << 2,         /* a warp memory instruction issues: insn (lane addresses
                                      filled, strided hint valid), sm */
    GCR_EV_L1_ACCESS = 1u << 3,    /* one request at an L1: unit = L1 instance, sm = requester */
    GCR_EV_L2_ACCESS = 1u << 4,    /* one request at an L2 slice: unit = slice */
    GCR_EV_L1_EVICT = 1u << 5,     /* a line leaves an L1 (replacement or invalidation) */
    GCR_EV_L2_EVICT = 1u << 6,     /* a line leaves an L2 slice */
    GCR_EV_TRANSFER = 1u << 7,     /* one message crosses a network: net, from, to, bytes,
                                      downstream (the same messages the timing
                                      backend times) */
};

/* The networks a message can cross. Endpoints (`from`/`to` of a transfer):
 *  GCR_NET_L2        L1 side <-> L2 slices (the crossbar; DC-L1's NoC#2): the L1-side
 *                    endpoint is the memory port (the SM for private L1s, the DC-L1
 *                    node for DC-L1), the other is the L2 slice (global index).
 *  GCR_NET_CORE_L1   cores <-> L1 instances they do not own (DC-L1's NoC#1, a shared
 *                    L1's remote home, a COLAB redirect): SM <-> L1 instance.
 *  GCR_NET_CHIP_LINK inter-chip links: chip <-> chip, one message per hop between
 *                    neighbouring chips of the ring (several chips only).
 *  GCR_NET_DRAM      L2 slice <-> its DRAM channel: slice <-> slice.
 * Organisations publish the messages of their own networks; the memory system
 * publishes GCR_NET_L2, GCR_NET_DRAM and, with several chips, GCR_NET_CHIP_LINK. */
enum gcr_net {
    GCR_NET_L2 = 0,
    GCR_NET_CORE_L1 = 1,
    GCR_NET_CHIP_LINK = 2,
    GCR_NET_DRAM = 3,
};
#define GCR_NUM_NETS 4

struct gcr_event {
    enum gcr_event_kind kind;
    uint64_t step;                       /* global issue step: a clock without timing */
    const struct gcr_kernel_begin *kernel;
    const struct gcr_warp_insn *insn;    /* GCR_EV_INSN: the instruction. Its lane addresses
                                            are filled (they cost time); if every GCR_EV_INSN
                                            subscriber sets insn_stride_hint, only the first
                                            active lane of a strided one. Queued analyses
                                            see it on GCR_EV_INSN only (NULL on other
                                            events); analyses delivered at emission
                                            (at_emission) see it on
                                            accesses too (NULL for write-backs) */
    uint32_t sm;                         /* requesting SM (UINT32_MAX if none, e.g. write-back) */
    uint32_t cta, warp;
    uint32_t unit;                       /* cache instance index at its level */
    uint64_t line_addr;
    /* The id of line_addr in gcr_sim_info.lines (gcreplay/idmap.h), for the
     * L1/L2 access and eviction events an analysis receives, and for
     * GCR_EV_INSN (line_addr then being the line of the first active lane,
     * in the global or local space), when some analysis keeps per-line state
     * there (has added a column at create); otherwise, or if memory ran
     * out, GCR_IDMAP_NONE. */
    uint32_t line_id;
    uint32_t sector_mask;
    bool is_write;
    const struct gcr_access *access;     /* result of the access or eviction info */
    uint64_t kernel_warp_insns;          /* KERNEL_END: the kernel's warp instructions
                                            (memory or not): the MPKI/APKI denominator */
    /* TRANSFER only. A message is a request (downstream, toward DRAM, carrying
     * store data if any) or a reply (upstream, carrying read data); `bytes` is
     * its data payload, 0 for a read request (consumers add header sizes).
     * line_addr is the line of the request the message belongs to. */
    enum gcr_net net;
    uint32_t from, to;
    uint32_t bytes;
    bool downstream;
};

struct gcr_sim_info {
    const struct gcr_config *config;
    uint32_t num_sms;
    uint32_t num_l1s;       /* L1 instances of the organisation (== num_sms for private) */
    /* True when every line that leaves an L1 instance is published as a
     * GCR_EV_L1_EVICT of the whole line, so an L1 hit always finds the line
     * where the events last installed it and changes no observer's view of
     * residency. False for organisations that evict parts of lines (tsc, dsc). */
    bool l1_whole_line_evictions;
    uint32_t num_l2_slices;
    uint32_t line_bytes;
    uint32_t sector_bytes;
    /* Line address -> dense id, shared by every analysis so that an event's
     * line is looked up once (gcreplay/idmap.h): per-line state belongs in
     * columns of this map (gcr_idmap_add_column at create). Keys are line
     * addresses (multiples of line_bytes). */
    struct gcr_idmap *lines;
};

enum { GCR_HEADLINE_MAX = 4, GCR_HEADLINE_TEXT = 24 };

/* Host-speed hooks of an analysis (analyses/README.md, "Delivery" and
 * "Cost"), apart from the core contract: an analysis works without any of
 * them, and none may change a result. */
struct gcr_analysis_speed {
    /* GCR_EV_INSN subscribers: true if, when insn->strided is set, the
     * analysis reads only the first active lane's address and derives the
     * others from insn->stride. When every subscriber does, the replay fills
     * only that lane of a strided instruction (filling 32 costs time). */
    bool insn_stride_hint;
    /* True: the analysis gets each event as it is emitted, on the replay's
     * own thread, and never through the queue (src/replay/bus.h): its events
     * carry no line id (line_id is GCR_IDMAP_NONE) and it gets no prefetch
     * calls, so it keeps per-line state in an idmap of its own, not in
     * columns of the shared line map (an instruction's line_addr is 0 too:
     * the queue sets it to the line of its first active lane, for the line
     * id). For an analysis that alone subscribes
     * to a frequent kind: that kind then never enters the queue, whose
     * per-event work (copying the event in, looking its line up, copying it
     * out) costs about as much as such an analysis's own; and with
     * `--analysis-thread`, its work is done on the replay's thread, which
     * otherwise waits for the analyses' one. */
    bool at_emission;
    /* Optional. Events reach analyses late (src/replay/bus.h): in the order
     * they happened, at most a few dozen events after it, and always before
     * any report call. In between, the replay fetches into the host's caches
     * the elements of the shared line map's columns that declare the event's
     * kind (gcr_column.prefetch_kinds), and calls prefetch with the event
     * (line_id set) at stage 0 for the kinds in prefetch_stage0, then at
     * stage 1, some events later, for those in prefetch_stage1: the
     * analysis asks the CPU for any other state on_event will touch (at
     * stage 1, state that a column element or stage 0's state names). It
     * must not change any result. */
    void (*prefetch)(void *self, const struct gcr_event *ev, int stage);
    unsigned prefetch_stage0, prefetch_stage1; /* OR of gcr_event_kind */
    /* Optional: for an analysis whose options decide whether the hook has
     * anything to fetch (sampled reuse distance has not), the kinds this
     * instance wants prefetch calls for at `stage`, asked once after create;
     * NULL: prefetch_stage0 / prefetch_stage1. A hook costs a call per event
     * and keeps the bus from handing events straight over (`direct`,
     * src/replay/bus.h), so an instance with nothing to fetch says 0. */
    unsigned (*prefetch_kinds)(const void *self, int stage);
};

struct gcr_analysis_ops {
    const char *name;    /* same as its folder and symbol gcr_analysis_<name> */
    const char *summary;
    unsigned subscribe;  /* OR of gcr_event_kind */
    /* options: the analyses.<name> object of the config (strictness is the analysis's job). */
    int (*create)(void **self, const json_t *options, const struct gcr_sim_info *info,
                  struct gcr_err *err);
    void (*on_event)(void *self, const struct gcr_event *ev);
    /* Fill `section` (an empty object) with results for the kernel just ended / the run. */
    int (*report_kernel)(void *self, json_t *section, struct gcr_err *err);
    int (*report_total)(void *self, json_t *section, struct gcr_err *err);
    void (*destroy)(void *self);
    /* Optional: the headline figures of this analysis, a column each in the run's table
     * (gcreplay run --table). headline_labels names the columns (NULL-terminated, at most
     * GCR_HEADLINE_MAX, each at most 9 characters: the legend in README.md says what they
     * are); headline writes their texts for one report section (a kernel's or the total's,
     * as report_kernel and report_total made it), "-" where it cannot tell. It reads only
     * the section, so that it works on a report read back from a file. */
    const char *const *headline_labels;
    void (*headline)(const json_t *section, char text[][GCR_HEADLINE_TEXT]);
    /* Optional: the workload classes this analysis decides (the report's
     * "classes", the table's classes column). Called for every registered
     * analysis, in registry order, when a period's classes are made:
     * `section` is its report section for the period (as report_kernel or
     * report_total made it), or NULL when the run did not have the analysis,
     * and then each class it defines is still added, with member null;
     * `period` is the period's whole report (read only: figures such as
     * L1D.miss_rate). Each class is added to `classes` as a
     * gcr_class_verdict. */
    void (*classify)(const json_t *section, const json_t *period, json_t *classes);
    /* Optional (NULL: none): hooks that make the analysis keep up with the
     * replay on large traces. They never change what it reports. */
    const struct gcr_analysis_speed *speed;
};

/* A class of the report's "classes" object: member is 1, 0, or -1 when a
 * figure it needs is missing (null); rule says how it is decided, values
 * holds the figures it was decided on (the reference is stolen). */
json_t *gcr_class_verdict(int member, const char *rule, json_t *values);

/* The figure a classify hook decides on: the number at o.a.b (o.a when b is
 * NULL), or 0 with *ok set to false when it is missing or not a number; *ok
 * is never set to true, so one flag can collect several figures. */
double gcr_report_figure(const json_t *o, const char *a, const char *b, bool *ok);

/* Registered analyses (NULL-terminated), generated from analyses/meson.build. */
extern const struct gcr_analysis_ops *const gcr_analyses[];

#endif
