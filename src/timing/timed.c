/* The timed issue driver: with the timing backend each SM has a clock, and the SM
 * with the earliest next issue cycle issues next (src/timing/README.md). The warp
 * scheduler's pick_ready (src/replay/sched.h) picks the ready warps; the timing model
 * (timing.h) times each memory instruction while the engine executes it. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "replay/engine.h"
#include "replay/execute.h"
#include "timing/timing.h"

/* With timing (src/timing/README.md), each SM has a clock; the SM with the
 * earliest next issue cycle issues next, so functional accesses interleave
 * across SMs in (approximate) time order. At one cycle an SM issues up to
 * timing.issue_per_cycle instructions, each from a different ready warp, in
 * the order of the warp policy; a warp is ready when its last instruction
 * allows (non-memory: the ALU latency; load: its data returned). */

/* SMs ordered by next issue cycle: a binary min-heap of SM ids (key: the
 * SM's cycle, +infinity while it has no warp), so picking the earliest SM
 * costs log(SMs). */
static double sm_key(const struct gcr_replay *rp, uint32_t s)
{
    return rp->sms[s].nactive ? rp->sms[s].cycle : INFINITY;
}

/* Heap order: the earlier cycle first and, at the same cycle, the lower SM id, so that the SMs
 * of one cycle issue in SM order (as GPGPU-Sim cycles its cores) whatever the heap's history:
 * an SM whose clock jumps ahead (skip_nonmem_timed) leaves the others' order as it was. */
static inline bool heap_before(double ka, uint32_t a, double kb, uint32_t b)
{
    return ka < kb || (ka == kb && a < b);
}

/* Restores the heap after SM s's key changed; keys are cached beside the
 * ids (sm_heap_key[i] is the key of sm_heap[i]) so sifting reads one array. */
static void heap_fix(struct gcr_replay *rp, uint32_t s)
{
    uint32_t *h = rp->sm_heap, *pos = rp->sm_heap_pos, n = rp->cfg->num_sms;
    double *key = rp->sm_heap_key;
    uint32_t i = pos[s];
    double k = sm_key(rp, s);
    while (i > 0 && heap_before(k, s, key[(i - 1) / 2], h[(i - 1) / 2])) { /* up */
        uint32_t p = (i - 1) / 2;
        h[i] = h[p];
        key[i] = key[p];
        pos[h[i]] = i;
        i = p;
    }
    for (;;) { /* down */
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        double mk = k;
        uint32_t ms = s;
        if (l < n && heap_before(key[l], h[l], mk, ms)) {
            m = l;
            mk = key[l];
            ms = h[l];
        }
        if (r < n && heap_before(key[r], h[r], mk, ms))
            m = r;
        if (m == i)
            break;
        h[i] = h[m];
        key[i] = key[m];
        pos[h[i]] = i;
        i = m;
    }
    h[i] = s;
    key[i] = k;
    pos[s] = i;
}

static void timed_kernel_begin(struct gcr_replay *rp, uint32_t l1_blocks)
{
    double start = gcr_timing_kernel_begin(rp->timing);
    uint32_t S = rp->cfg->num_sms;
    uint64_t warps = rp->ks->nctas * rp->ks->wpc;
    rp->now = rp->kernel_end = start;
    rp->l1_blocks = l1_blocks;
    for (uint32_t s = 0; s < S; s++) {
        rp->sms[s].cycle = start;
        gcr_vws_kernel_begin(&rp->sms[s].vws, (warps + S - 1) / S, rp->cfg->timing.vws_alpha);
        gcr_timing_amt_clear(rp->timing, s);
        rp->sm_heap[s] = s;
        rp->sm_heap_pos[s] = s;
        rp->sm_heap_key[s] = INFINITY; /* no warps yet: placing CTAs fixes it */
    }
}

static void timed_placed(struct gcr_replay *rp, uint32_t s, bool was_idle)
{
    (void)was_idle;
    struct sm *sm = &rp->sms[s];
    if (sm->cycle < rp->now)
        sm->cycle = rp->now; /* an idle SM starts the CTA when it arrives */
    heap_fix(rp, s);
}

/* The per-warp scoreboard (src/timing/README.md), for warps whose trace gives register
 * dependencies: the cycle the data of each of the last GCR_WAIT_WINDOW memory instructions
 * is back, and the latest of the older ones. */
static void scoreboard_push(struct gcr_warp_sched_state *ws, double done)
{
    double *slot = &ws->sb->mem_done[ws->sb->mem_count++ % GCR_WAIT_WINDOW];
    if (*slot > ws->sb->mem_done_older)
        ws->sb->mem_done_older = *slot;
    *slot = done;
}

/* The cycle at which the data the waits name (gcreplay/record.h) is back. */
static double scoreboard_ready(const struct gcr_warp_sched_state *ws, uint32_t waits)
{
    double ready = waits >> (GCR_WAIT_WINDOW - 1) & 1 ? ws->sb->mem_done_older : 0;
    for (uint32_t m = waits & GCR_WAITS_MASK; m; m &= m - 1) {
        double d = ws->sb->mem_done[(ws->sb->mem_count - 1 - (uint32_t)__builtin_ctz(m)) %
                                GCR_WAIT_WINDOW];
        if (d > ready)
            ready = d;
    }
    return ready;
}

/* The latest data return the warp still has in flight. */
static double scoreboard_last(const struct gcr_warp_sched_state *ws)
{
    double last = ws->sb->mem_done_older;
    for (uint32_t i = 0; i < GCR_WAIT_WINDOW; i++)
        if (ws->sb->mem_done[i] > last)
            last = ws->sb->mem_done[i];
    return last;
}

/* Non-memory instructions with a unit (src/timing/README.md, "Non-memory instructions"): the
 * cycle the results the waits name (GCR_WAITS_ALU_MASK) are written back. */
static double alu_ready(const struct gcr_warp_sched_state *ws, uint32_t waits)
{
    double ready = 0;
    for (uint32_t m = (waits & GCR_WAITS_ALU_MASK) >> GCR_WAITS_ALU_SHIFT; m; m &= m - 1) {
        double d = ws->sb->alu_done[(ws->sb->alu_count - 1 - (uint32_t)__builtin_ctz(m)) %
                                GCR_ALU_WINDOW];
        if (d > ready)
            ready = d;
    }
    return ready;
}

/* The unit pools of an SM: the count of a unit is split among the SM's schedulers, a warp
 * using the pool of its scheduler: its warp slot mod schedulers, as GPGPU-Sim deals the warp
 * slots to its schedulers in turn, a CTA taking the slots from its hardware slot x warps per
 * CTA on; with fewer units than schedulers they share them. Returns the pool's next free
 * cycle, and in *occupancy the cycles one instruction holds it (the initiation interval over
 * the pool's units). */
static double *unit_pool(struct gcr_replay *rp, uint32_t s, const struct warp *w,
                         enum gcr_unit u, double *occupancy)
{
    const struct gcr_timing_config *tc = &rp->cfg->timing;
    const struct gcr_timing_unit *tu = &tc->units[u];
    uint32_t pools = tu->count < tc->issue_per_cycle ? tu->count : tc->issue_per_cycle;
    *occupancy = (double)tu->initiation * pools / tu->count;
    uint64_t slot = (uint64_t)w->cta->hw_slot * rp->ks->wpc + w->id;
    size_t pool = ((size_t)s * tc->issue_per_cycle + slot % pools) * GCR_UNIT_COUNT + u;
    return &rp->unit_free[pool];
}

/* Issues warp w's non-memory instruction of unit u at cycle now: it enters its unit when
 * the unit takes it, and its result is written back the unit's latency plus the pipeline's
 * cycles later. The warp issues nothing behind it before it has entered (its scheduler's
 * operand collector holds it), and otherwise goes on the next cycle. */
static void alu_issue(struct gcr_replay *rp, uint32_t s, struct warp *w, enum gcr_unit u,
                      double now)
{
    const struct gcr_timing_config *tc = &rp->cfg->timing;
    struct gcr_warp_sched_state *ws = &w->sched;
    double occupancy, *free_at = unit_pool(rp, s, w, u, &occupancy);
    double start = *free_at > now ? *free_at : now;
    *free_at = start + occupancy;
    ws->sb->alu_done[ws->sb->alu_count++ % GCR_ALU_WINDOW] =
        start + tc->units[u].latency + tc->unit_pipeline;
    ws->ready_at = start > now ? start : now + 1;
}

/* Every unfinished warp of CTA c has reached its barrier: they go on together, at the
 * cycle the last of them arrived. */
static void barrier_release(struct cta *c, double *next)
{
    if (c->barrier_release < *next)
        *next = c->barrier_release;
    for (uint32_t i = 0; i < c->nwarps; i++) {
        struct gcr_warp_sched_state *ws = &c->warps[i].sched;
        if (ws->at_barrier) {
            ws->at_barrier = false;
            ws->ready_at = c->barrier_release;
        }
    }
    c->barrier_waiting = 0;
    c->barrier_release = 0;
}

/* Warp w, ready at ws->ready_at, reaches a barrier: it waits there for the rest of its CTA.
 * *next: the SM's next issue cycle, brought forward if they all go on before it. */
static void barrier_arrive(struct warp *w, double *next)
{
    struct cta *c = w->cta;
    struct gcr_warp_sched_state *ws = &w->sched;
    if (ws->ready_at > c->barrier_release)
        c->barrier_release = ws->ready_at;
    ws->at_barrier = true;
    ws->ready_at = INFINITY;
    if (++c->barrier_waiting == c->warps_left)
        barrier_release(c, next);
}

static void sm_step_timed(struct gcr_replay *rp, uint32_t s)
{
    struct sm *sm = &rp->sms[s];
    const struct gcr_timing_config *tc = &rp->cfg->timing;
    double now = sm->cycle, next;
    uint32_t picks[64];
    struct warp *picked[64];
    rp->now = now;
    rp->bus.step = (uint64_t)now;
    uint32_t got = rp->sched->pick_ready(rp, sm, now, tc->issue_per_cycle, picks, &next);
    bool memory = false;
    for (uint32_t k = 0; k < got; k++)
        picked[k] = sm->active[picks[k]];
    if (got) {
        sm->last = (int32_t)picks[got - 1];
        sm->current = picked[got - 1];
    }
    for (uint32_t k = 0; k < got; k++) {
        struct warp *w = picked[k];
        struct gcr_warp_sched_state *ws = &w->sched;
        ws->ready_at = now + tc->alu_latency;
        ws->mem_wait = false;
        struct gcr_lane_shape shape;
        if (ws->regs_known && !w->nonmem_left) {
            /* A warp's first instruction: its waits are still on the queue (later ones are
             * taken when the instruction before issues). Waits on data name nothing yet. */
            uint32_t first = gcr_warpq_take_waits(&w->q);
            if (first)
                ws->sb->next_waits = first;
            if (first & GCR_WAITS_BARRIER) {
                ws->ready_at = now;
                barrier_arrive(w, &next);
                continue;
            }
        }
        enum gcr_unit unit = gcr_waits_unit(ws->sb->next_waits);
        ws->sb->next_waits = 0;
        uint32_t bank_cycles = w->nonmem_left ? UINT32_MAX : gcr_warpq_take_banks(&w->q);
        if (gcr_next_insn(rp, w, &shape)) {
            memory = true;
            /* What the SM's shared-memory banks move: its busiest bank's words, a cycle
             * each (counted when its CTA was loaded; the banks' bytes per cycle are the
             * model's rate). */
            if (bank_cycles == UINT32_MAX) /* queued without lanes: in the stride (cta.c) */
                bank_cycles = (uint32_t)shape.stride;
            uint32_t bank_bytes =
                rp->insn.space == GCR_SPACE_SHARED
                    ? bank_cycles * tc->shared_bytes
                    : gcr_bits_popcount32(rp->insn.active_mask) * (uint32_t)rp->insn.width;
            gcr_timing_insn_begin(rp->timing, s, now, rp->insn.op, rp->insn.space, bank_bytes);
            gcr_execute(rp, s, &shape);
            double accepted, acked, done = gcr_timing_insn_end(rp->timing, &accepted, &acked);
            if (acked > ws->writes_acked)
                ws->writes_acked = acked;
            if (ws->regs_known) {
                /* The data goes to the scoreboard; the warp goes on once the LD/ST unit
                 * has taken the instruction. */
                scoreboard_push(ws, done);
                ws->ready_at = accepted;
            } else {
                ws->ready_at = done; /* no registers: every load blocks its warp */
            }
            if (rp->sched->after_memory)
                rp->sched->after_memory(rp, sm, w, now, &next);
        } else if (unit != GCR_UNIT_NONE) {
            alu_issue(rp, s, w, unit, now);
        } else if (ws->regs_known) {
            /* Without a unit it takes latency.alu, and the warp waits as long (above): it
             * still counts in the distances the ALU bits of later instructions give. */
            ws->sb->alu_done[ws->sb->alu_count++ % GCR_ALU_WINDOW] = ws->ready_at;
        }
        if (ws->regs_known && !w->nonmem_left) {
            /* The next instruction waits for the data and the results its registers name. */
            uint32_t waits = gcr_warpq_take_waits(&w->q);
            ws->sb->next_waits = waits;
            double ready = scoreboard_ready(ws, waits), alu = alu_ready(ws, waits);
            if (alu > ready)
                ready = alu;
            if (ready > ws->ready_at)
                ws->ready_at = ready;
            if (waits & GCR_WAITS_BARRIER)
                barrier_arrive(w, &next);
        }
        if (!w->nonmem_left && gcr_warpq_empty(&w->q)) {
            if (ws->regs_known) { /* the warp ends when its last data is back */
                double last = scoreboard_last(ws);
                if (last > ws->ready_at)
                    ws->ready_at = last;
            }
            if (ws->writes_acked > ws->ready_at) /* and its writes are acknowledged */
                ws->ready_at = ws->writes_acked;
            if (w->sched.ready_at > rp->kernel_end)
                rp->kernel_end = w->sched.ready_at;
            if (rp->sched->warp_finished)
                rp->sched->warp_finished(rp, s, w);
            /* Indices moved if warps before it left: find it (once per warp). */
            uint32_t index = 0;
            while (sm->active[index] != w)
                index++;
            struct cta *c = w->cta;
            uint32_t left = c->warps_left - 1;
            gcr_warp_done(rp, sm, index);
            if (left && c->barrier_waiting == left) /* the others wait for no one more */
                barrier_release(c, &next);
            next = now + 1; /* the warps left may be picked differently (VWS window) */
        } else if (w->sched.ready_at < next) {
            next = w->sched.ready_at;
        }
    }
    sm->cycle = next > now ? next : now + 1;
    sm->nonmem_steps = memory ? 0 : sm->nonmem_steps + 1;
    heap_fix(rp, s);
}

/* Timing mode, inside long runs of non-memory instructions. A trace record may
 * count up to 2^32 - 1 of them, and issuing them one step at a time would take
 * minutes. While every warp of an SM is inside such a run, the SM touches no
 * cache and no shared resource, no warp of it ends, and no CTA is placed on it
 * (timed_placed), so its steps depend on its own state only: the warps' ready cycles
 * relative to its clock, their scheduling flags, and the policy's last and
 * current warp. That state comes back after a period of P cycles in which
 * each warp issued c_i instructions, and then repeats: skip_nonmem_timed steps
 * the SM until a state repeats and applies m whole periods at once, m as large
 * as every warp's run allows. The other SMs cannot tell: at equal cycles SMs
 * issue in SM order (heap_before), not in an order this SM's steps would have
 * left in the heap. The result is the one of stepping, instruction for
 * instruction, cycle for cycle; the unit test replay-engine checks it.
 *
 * Exactness of the cycle arithmetic: stepping adds whole cycles (latencies, or
 * 1) to the clock and the ready cycles. That is exact for whole numbers below
 * 2^53, and for fractional ones (a memory reply between clock domains) as long
 * as every value stays in one binade [2^e, 2^(e+1)), where a double's last
 * bit weighs at most one cycle. A jump is kept within those bounds, so it adds
 * exactly what the steps would have; beyond them the SM steps on. */
enum {
    SKIP_AFTER_STEPS = 256,   /* steps without a memory instruction before a try */
    SKIP_STEPS_PER_WARP = 16, /* a try records up to 16 * (warps + 4) steps */
};

/* An SM's states, step by step, for one try. Per step k: its clock, last and current warp, a
 * hash, and per warp i (index k * n + i) the ready cycle, flags and non-memory count left. */
struct skip_log {
    size_t cap_steps, cap_warps;
    double *now, *ready;
    int32_t *last, *current;
    uint64_t *hash;
    uint32_t *left;
    uint8_t *flags;
};

static void skip_log_free(struct skip_log *g)
{
    if (!g)
        return;
    free(g->now);
    free(g->ready);
    free(g->last);
    free(g->current);
    free(g->hash);
    free(g->left);
    free(g->flags);
    free(g);
}

static struct skip_log *skip_log_get(struct gcr_replay *rp, size_t steps, size_t warps)
{
    struct skip_log *g = rp->skip;
    if (g && g->cap_steps >= steps && g->cap_warps >= warps)
        return g;
    skip_log_free(g);
    rp->skip = g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->cap_steps = steps;
    g->cap_warps = warps;
    g->now = malloc(steps * sizeof *g->now);
    g->last = malloc(steps * sizeof *g->last);
    g->current = malloc(steps * sizeof *g->current);
    g->hash = malloc(steps * sizeof *g->hash);
    g->ready = malloc(steps * warps * sizeof *g->ready);
    g->left = malloc(steps * warps * sizeof *g->left);
    g->flags = malloc(steps * warps * sizeof *g->flags);
    if (!g->now || !g->last || !g->current || !g->hash || !g->ready || !g->left || !g->flags) {
        skip_log_free(g);
        rp->skip = NULL;
    }
    return rp->skip;
}

/* Records SM sm's state as step k of the log. A warp ready now is recorded as ready at the
 * clock: how long ago it became ready changes nothing the policies do. */
static void skip_log_record(struct skip_log *g, size_t k, const struct sm *sm)
{
    uint32_t n = sm->nactive;
    double now = sm->cycle;
    uint64_t h = 1469598103934665603ull ^ (uint64_t)(int64_t)sm->last;
    g->now[k] = now;
    g->last[k] = sm->last;
    g->current[k] = -1;
    for (uint32_t i = 0; i < n; i++) {
        const struct warp *w = sm->active[i];
        if (w == sm->current)
            g->current[k] = (int32_t)i;
        double r = w->sched.ready_at > now ? w->sched.ready_at : now;
        uint8_t f = (uint8_t)(w->sched.level1 | w->sched.mem_wait << 1);
        g->ready[k * n + i] = r;
        g->flags[k * n + i] = f;
        g->left[k * n + i] = w->nonmem_left;
        h = (h ^ f ^ (uint64_t)llround(r - now) << 8) * 1099511628211ull;
    }
    g->hash[k] = h ^ (uint64_t)(int64_t)g->current[k] << 32;
}

/* Whether step k's state is step j's moved on by P = now[k] - now[j] cycles, exactly. */
static bool skip_log_same(const struct skip_log *g, size_t j, size_t k, uint32_t n)
{
    double p = g->now[k] - g->now[j];
    if (g->hash[j] != g->hash[k] || g->last[j] != g->last[k] ||
        g->current[j] != g->current[k] || !(p > 0) || g->now[j] + p != g->now[k])
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (g->flags[j * n + i] != g->flags[k * n + i] ||
            g->ready[j * n + i] + p != g->ready[k * n + i])
            return false;
    return true;
}

/* Periods the SM may skip after step k repeated step j (see above); 0 if none. */
static uint64_t skip_periods(const struct skip_log *g, size_t j, size_t k, const struct sm *sm)
{
    uint32_t n = sm->nactive;
    double p = g->now[k] - g->now[j], lo = g->now[k], hi = lo;
    uint64_t m = UINT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = g->left[j * n + i] - g->left[k * n + i]; /* issued in a period */
        /* A warp with register dependencies keeps the run's last instruction to issue by
         * stepping: issuing it takes the next item's waits (sm_step_timed). */
        const struct warp *w = sm->active[i];
        uint64_t spare = gcr_nonmem_spare(w);
        if (w->sched.regs_known && spare && spare == w->nonmem_left)
            spare--;
        if (c)
            m = spare / c < m ? spare / c : m;
        hi = g->ready[k * n + i] > hi ? g->ready[k * n + i] : hi;
    }
    if (m == UINT64_MAX) /* no warp issued: cannot be, the clock moved on */
        return 0;
    const double exact = 9007199254740992.0; /* 2^53 */
    bool whole = p == floor(p) && lo == floor(lo);
    for (uint32_t i = 0; i < n && whole; i++)
        whole = g->ready[k * n + i] == floor(g->ready[k * n + i]);
    double limit = exact;
    if (!whole) { /* stay in lo's binade, where every step is exact too */
        if (!(lo >= 1))
            return 0;
        int e;
        frexp(lo, &e); /* lo in [2^(e-1), 2^e) */
        limit = ldexp(1.0, e);
    }
    if (!(hi < limit))
        return 0;
    double room = floor((limit - hi) / p);
    if (room < 1)
        return 0;
    /* Strictly below the limit after the jump. */
    uint64_t by_room = (uint64_t)room - ((limit - hi) == room * p);
    return m < by_room ? m : by_room;
}

/* Steps SM s (at least once) and, when its warps are all deep inside runs of non-memory
 * instructions, skips whole periods of its steps (see above). */
static void skip_nonmem_timed(struct gcr_replay *rp, uint32_t s)
{
    struct sm *sm = &rp->sms[s];
    uint32_t n = sm->nactive;
    size_t steps = (size_t)SKIP_STEPS_PER_WARP * (n + 4);
    /* Every try step issues at most one instruction of each warp, so a warp with more spare
     * instructions than the try's steps stays inside its run throughout. */
    bool deep = n > 0;
    for (uint32_t i = 0; i < n && deep; i++)
        deep = gcr_nonmem_spare(sm->active[i]) > 2 * steps;
    struct skip_log *g = deep ? skip_log_get(rp, steps + 1, n) : NULL;
    if (!g) {
        sm_step_timed(rp, s);
        sm->nonmem_steps = 0; /* try again after SKIP_AFTER_STEPS more */
        return;
    }
    skip_log_record(g, 0, sm);
    for (size_t k = 1; k <= steps; k++) {
        sm_step_timed(rp, s);
        skip_log_record(g, k, sm);
        for (size_t j = 0; j < k; j++) {
            if (!skip_log_same(g, j, k, n))
                continue;
            uint64_t m = skip_periods(g, j, k, sm);
            if (m) {
                double shift = (double)m * (g->now[k] - g->now[j]);
                uint64_t issued = 0;
                for (uint32_t i = 0; i < n; i++) {
                    struct warp *w = sm->active[i];
                    uint64_t c = (uint64_t)(g->left[j * n + i] - g->left[k * n + i]) * m;
                    w->nonmem_left -= (uint32_t)c;
                    w->sched.sb->alu_count += (uint32_t)c; /* done long before what follows */
                    issued += c;
                    if (w->sched.ready_at > sm->cycle)
                        w->sched.ready_at += shift;
                }
                sm->cycle += shift;
                rp->kernel_counts.warp_insns += issued;
                rp->kernel_counts.nonmem += issued;
                heap_fix(rp, s);
            }
            sm->nonmem_steps = 0;
            return;
        }
    }
    sm->nonmem_steps = 0;
}

static int timed_run(struct gcr_replay *rp, struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    for (uint32_t s = 0; s < rp->cfg->num_sms; s++)
        heap_fix(rp, s);
    while (ks->resident) {
        uint32_t s = rp->sm_heap[0];
        if (rp->sm_heap_key[0] == INFINITY) /* no SM has a warp that can ever issue */
            return gcr_fail(err, GCR_E_INTERNAL,
                            "kernel %u: the timed replay stalled with %" PRIu64
                            " CTAs resident and no warp able to issue (a scheduling deadlock: "
                            "please report it)",
                            ks->kb.id, ks->resident);
        if (rp->sms[s].nonmem_steps >= SKIP_AFTER_STEPS)
            skip_nonmem_timed(rp, s);
        else
            sm_step_timed(rp, s);
        if (ks->cta_finished) {
            ks->cta_finished = false;
            if (gcr_cta_dispatch(rp, err) != 0)
                return -1;
        }
    }
    return 0;
}

static int timed_init(struct gcr_replay *rp, struct gcr_err *err)
{
    uint32_t S = rp->cfg->num_sms;
    if (gcr_timing_create(&rp->timing, &rp->info, err) != 0)
        return -1;
    rp->mem.timing = rp->timing;
    rp->sm_heap = calloc(S, sizeof *rp->sm_heap);
    rp->sm_heap_pos = calloc(S, sizeof *rp->sm_heap_pos);
    rp->sm_heap_key = calloc(S, sizeof *rp->sm_heap_key);
    rp->unit_free = calloc((size_t)S * rp->cfg->timing.issue_per_cycle * GCR_UNIT_COUNT,
                           sizeof *rp->unit_free);
    if (!rp->sm_heap || !rp->sm_heap_pos || !rp->sm_heap_key || !rp->unit_free)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

static void timed_fini(struct gcr_replay *rp)
{
    skip_log_free(rp->skip);
    rp->skip = NULL;
    free(rp->sm_heap);
    free(rp->sm_heap_pos);
    free(rp->sm_heap_key);
    free(rp->unit_free);
    rp->mem.timing = NULL;
    gcr_timing_destroy(rp->timing);
    rp->timing = NULL;
}

const struct gcr_issue_driver gcr_issue_timed = {
    .name = "timed",
    .init = timed_init,
    .fini = timed_fini,
    .kernel_begin = timed_kernel_begin,
    .placed = timed_placed,
    .run = timed_run,
};
