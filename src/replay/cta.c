/* CTAs: loaded from the trace's records into per-warp queues (warpq.h), a whole CTA
 * at a time, and placed on the SMs with room as the CTA policy orders
 * ($.scheduling.cta_policy; several chips: SAC's distributed CTA scheduling). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "multichip/chips.h"
#include "replay/engine.h"
#include "timing/timing.h"

static struct cta *cta_get(struct gcr_replay *rp, uint32_t id, uint32_t nwarps)
{
    struct cta *c = rp->free_ctas;
    if (c) {
        rp->free_ctas = c->next;
    } else if (!(c = calloc(1, sizeof *c))) {
        return NULL;
    }
    if (c->cap_warps < nwarps) {
        struct warp *w = realloc(c->warps, nwarps * sizeof *w);
        if (!w) {
            c->next = rp->free_ctas;
            rp->free_ctas = c;
            return NULL;
        }
        memset(w + c->cap_warps, 0, (nwarps - c->cap_warps) * sizeof *w);
        for (uint32_t i = c->cap_warps; i < nwarps; i++)
            w[i].q.pool = rp->queues;
        c->warps = w;
        c->cap_warps = nwarps;
    }
    bool timed = rp->cfg->timing.enabled;
    if (timed && c->cap_sb < nwarps) {
        struct gcr_warp_scoreboard *sb = realloc(c->sb, nwarps * sizeof *sb);
        if (!sb) {
            c->next = rp->free_ctas;
            rp->free_ctas = c;
            return NULL;
        }
        c->sb = sb;
        c->cap_sb = nwarps;
    }
    c->id = id;
    c->nwarps = nwarps;
    c->next = NULL;
    for (uint32_t w = 0; w < nwarps; w++) {
        gcr_warpq_reset(&c->warps[w].q);
        c->warps[w].cta = c;
        c->warps[w].cta_id = id;
        c->warps[w].id = w;
        c->warps[w].nonmem_left = 0;
        c->warps[w].sched = (struct gcr_warp_sched_state){0};
        if (timed) {
            c->sb[w] = (struct gcr_warp_scoreboard){0};
            c->warps[w].sched.sb = &c->sb[w];
        }
    }
    c->barrier_waiting = 0;
    c->barrier_release = 0;
    return c;
}

static void cta_free(struct cta *c)
{
    for (uint32_t w = 0; w < c->cap_warps; w++)
        gcr_warpq_free(&c->warps[w].q);
    free(c->warps);
    free(c->sb);
    free(c);
}

void gcr_cta_pool_free(struct gcr_replay *rp)
{
    while (rp->free_ctas) {
        struct cta *c = rp->free_ctas;
        rp->free_ctas = c->next;
        cta_free(c);
    }
}

static void cta_put(struct gcr_replay *rp, struct cta *c)
{
    c->next = rp->free_ctas;
    rp->free_ctas = c;
}

static int kernel_fail(struct gcr_replay *rp, struct gcr_err *err, enum gcr_status st,
                       const char *what, uint64_t cta)
{
    struct kernel_state *ks = rp->ks;
    return gcr_fail(err, st, "%s: kernel %u (%s), CTA %llu: %s", gcr_reader_path(ks->r),
                    ks->kb.id, ks->kb.name, (unsigned long long)cta, what);
}

/* Points *rec at the next record of the kernel without taking it (load_cta
 * takes it by advancing ks->run_next). Reads the next run of records when
 * none is left; 1, or -1 with err set. */
static inline int read_record(struct gcr_replay *rp, const struct gcr_record **rec,
                              struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    if (__builtin_expect(ks->run_next < ks->run_count, 1)) {
        *rec = &ks->run[ks->run_next];
        return 1;
    }
    int rc = gcr_reader_next_run(ks->r, ks->run, LOAD_RUN_RECORDS, err);
    if (rc == 0)
        return gcr_fail(err, GCR_E_TRUNCATED, "%s: trace ends inside kernel %u (%s)",
                        gcr_reader_path(ks->r), ks->kb.id, ks->kb.name);
    if (rc < 0)
        return -1;
    ks->run_next = 0;
    ks->run_count = (uint32_t)rc;
    *rec = ks->run;
    /* Progress once per 65536 records, as the run crosses such a multiple. */
    uint64_t before = rp->progress_tick;
    rp->progress_tick += (uint32_t)rc;
    if (rp->progress && (before ^ rp->progress_tick) >> 16) {
        struct gcr_progress p = {gcr_reader_path(ks->r), gcr_reader_bytes_done(ks->r),
                                 gcr_reader_bytes_total(ks->r),
                                 rp->counts.warp_insns + rp->kernel_counts.warp_insns,
                                 rp->nkernels};
        rp->progress(rp->progress_ctx, &p);
    }
    return 1;
}

/* Loads the next whole CTA of the kernel; *out = NULL at the kernel's end. */
/* The cycles a shared-memory access holds its SM's banks (timing), counted from the lanes the
 * record gives (the reader's strided hint, or its addresses) while it is at hand, so that the
 * queue need not keep them. */
static uint32_t shared_bank_cycles(const struct gcr_replay *rp, const struct gcr_warp_insn *in)
{
    uint32_t banks = rp->cfg->timing.shared_bytes / 4, mask = in->active_mask;
    if (!banks)
        banks = 1;
    if (in->strided && mask)
        return gcr_timing_shared_bank_cycles(mask, NULL, true, in->addr[__builtin_ctz(mask)],
                                             in->stride, banks);
    return gcr_timing_shared_bank_cycles(mask, in->addr, false, 0, 0, banks);
}

static int load_cta(struct gcr_replay *rp, struct cta **out, struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    const struct gcr_record *rec = NULL;
    struct cta *c = NULL;
    *out = NULL;
    if (ks->ended)
        return 0;
    /* In locals, like the loop bounds below: the queue pushes store through
     * byte pointers, after which fields of *ks would have to be read again. */
    const uint64_t nctas = ks->nctas;
    const uint32_t wpc = ks->wpc;
    /* Shared-memory and constant accesses without an observer of their lanes are queued
     * without them, which keeps a tiled kernel's queues (mostly shared-memory loads, 31 deltas
     * a line) a fraction of the size, and so the fresh memory the kernel must zero for them;
     * the reader then leaves those lanes out too (gcr_replay_trace). */
    const bool onchip_lanes = gcr_replay_reads_onchip_lanes(rp);
    /* Register dependencies matter to the timed driver only (src/timing/timed.c). */
    const bool timed = rp->timing != NULL;
    for (;;) {
        if (read_record(rp, &rec, err) != 1)
            goto fail;
        /* Every record read and not loaded yet, from rec on: a run of one CTA,
         * usually (gcr_reader_next_run). */
        const struct gcr_record *const end = ks->run + ks->run_count;
        for (; rec < end; rec++) {
            bool insn = rec->kind == GCR_REC_WARP_INSN;
            if (__builtin_expect(!insn && rec->kind != GCR_REC_NONMEM, 0)) {
                if (rec->kind != GCR_REC_KERNEL_END) {
                    gcr_fail(err, GCR_E_FORMAT,
                             "%s: kernel %u (%s): a %s record inside a kernel",
                             gcr_reader_path(ks->r), ks->kb.id, ks->kb.name,
                             rec->kind == GCR_REC_KERNEL_BEGIN ? "kernel-begin" : "memcpy");
                    goto fail;
                }
                if (rec->u.kend.id != ks->kb.id) {
                    gcr_fail(err, GCR_E_FORMAT,
                             "%s: kernel %u (%s) closed by the end of kernel %u",
                             gcr_reader_path(ks->r), ks->kb.id, ks->kb.name, rec->u.kend.id);
                    goto fail;
                }
                if (c)
                    goto done; /* left for the next call, which ends the kernel */
                ks->run_next = (uint32_t)(rec - ks->run) + 1;
                ks->ended = true;
                return 0;
            }
            uint32_t cta = insn ? rec->u.insn.cta : rec->u.nonmem.cta;
            uint32_t warp = insn ? rec->u.insn.warp : rec->u.nonmem.warp;
            /* Readers validate records; the engine re-checks only what it indexes
             * arrays with, cheaply, so no reader bug can corrupt memory. */
            if (__builtin_expect(cta >= nctas || warp >= wpc ||
                                     (insn && (rec->u.insn.op >= GCR_OP_COUNT ||
                                               rec->u.insn.space >= GCR_SPACE_COUNT ||
                                               rec->u.insn.width == 0 ||
                                               rec->u.insn.width > GCR_MAX_WIDTH)),
                                 0)) {
                const char *bad = gcr_record_invalid(rec, &ks->kb);
                if (bad) {
                    kernel_fail(rp, err, GCR_E_FORMAT, bad, cta);
                    goto fail;
                }
            }
            if (!c) {
                /* Readers guarantee that a CTA's records are contiguous (the shared
                 * stream rules), so a new CTA id starts a new CTA. */
                if (!(c = cta_get(rp, cta, wpc))) {
                    gcr_fail(err, GCR_E_NOMEM, "out of memory loading a CTA");
                    goto fail;
                }
            } else if (cta != c->id) {
                goto done; /* the next CTA's first record, left for the next call */
            }
            struct gcr_warpq *q = &c->warps[warp].q;
            uint32_t waits = insn ? rec->u.insn.waits : rec->u.nonmem.waits;
            bool unit = false; /* one item for the instruction and its waits */
            if (__builtin_expect(waits != 0, 0) && timed) {
                c->warps[warp].sched.regs_known = true;
                unit = !insn && gcr_waits_unit(waits) != GCR_UNIT_NONE;
                if (waits != GCR_WAITS_KNOWN && !unit && gcr_warpq_push_waits(q, waits) != 0) {
                    gcr_fail(err, GCR_E_NOMEM, "out of memory loading CTA %u", cta);
                    goto fail;
                }
            }
            /* A timed shared-memory access carries its bank cycles: in the stride of an
             * item without lanes (nobody reads them), else in an item before it. */
            uint32_t banks = timed && insn && rec->u.insn.space == GCR_SPACE_SHARED
                                 ? shared_bank_cycles(rp, &rec->u.insn)
                                 : 0;
            if (banks && onchip_lanes && gcr_warpq_push_banks(q, banks) != 0) {
                gcr_fail(err, GCR_E_NOMEM, "out of memory loading CTA %u", cta);
                goto fail;
            }
            int rc = unit    ? gcr_warpq_push_unit(q, waits)
                     : !insn ? gcr_warpq_push_nonmem(q, rec->u.nonmem.count)
                     : rec->u.insn.space > GCR_SPACE_LOCAL && !onchip_lanes
                         ? gcr_warpq_push_unaddressed(q, &rec->u.insn, banks)
                         : gcr_warpq_push_insn(q, &rec->u.insn);
            if (rc != 0) {
                gcr_fail(err, GCR_E_NOMEM, "out of memory loading CTA %u", cta);
                goto fail;
            }
        }
        ks->run_next = ks->run_count;
    }
done:
    ks->run_next = (uint32_t)(rec - ks->run);
    *out = c;
    return 0;
fail:
    if (c)
        cta_put(rp, c);
    return -1;
}

static void place(struct gcr_replay *rp, uint32_t s, struct cta *c)
{
    struct sm *sm = &rp->sms[s];
    bool was_idle = !sm->nactive;
    c->sm = s;
    c->warps_left = 0;
    for (uint32_t w = 0; w < c->nwarps; w++)
        if (!gcr_warpq_empty(&c->warps[w].q)) {
            sm->active[sm->nactive++] = &c->warps[w];
            c->warps_left++;
        }
    sm->resident_ctas++;
    /* The lowest free slot (beyond 64 slots, the count of resident CTAs: an approximation). */
    c->hw_slot =
        ~sm->cta_slots ? (uint32_t)__builtin_ctzll(~sm->cta_slots) : sm->resident_ctas - 1;
    if (c->hw_slot < 64)
        sm->cta_slots |= UINT64_C(1) << c->hw_slot;
    rp->driver->placed(rp, s, was_idle);
    rp->ks->resident++;
    rp->kernel_counts.ctas++;
    /* A loaded CTA has at least one record, so at least one warp with work. */
    assert(c->warps_left > 0);
}

/* Next CTA for SM s, or NULL when the policy has nothing more for it. */
static int next_cta_for(struct gcr_replay *rp, uint32_t s, struct cta **out, struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    uint32_t chips = rp->cfg->chips.count;
    if (rp->cfg->cta_policy == GCR_CTA_ROUND_ROBIN && chips == 1)
        return load_cta(rp, out, err);
    /* Several chips under round-robin: SM s serves its chip's CTA range. */
    if (rp->cfg->cta_policy == GCR_CTA_ROUND_ROBIN)
        s = gcr_chip_of_sm(s, rp->cfg->num_sms, chips);
    *out = NULL;
    while (ks->next_id[s] < ks->end_id[s]) {
        uint64_t want = ks->next_id[s];
        while (!ks->by_id[want] && !ks->ended) {
            struct cta *c;
            if (load_cta(rp, &c, err) != 0)
                return -1;
            if (c)
                ks->by_id[c->id] = c;
        }
        ks->next_id[s]++;
        if (ks->by_id[want]) {
            *out = ks->by_id[want];
            ks->by_id[want] = NULL;
            return 0;
        }
        /* CTA absent from the trace: nothing to run. */
    }
    return 0;
}

int gcr_cta_dispatch(struct gcr_replay *rp, struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    uint32_t S = rp->cfg->num_sms;
    bool more = true;
    while (more) {
        more = false;
        for (uint32_t i = 0; i < S; i++) {
            /* rr_next is a position in the dispatch order ($.scheduling.sm_order). */
            uint32_t pos = (ks->rr_next + i) % S, s = gcr_sm_at(rp->cfg, pos);
            if (rp->sms[s].resident_ctas >= ks->fit)
                continue;
            struct cta *c;
            if (next_cta_for(rp, s, &c, err) != 0)
                return -1;
            if (!c) {
                if (rp->cfg->cta_policy == GCR_CTA_ROUND_ROBIN && rp->cfg->chips.count == 1)
                    return 0; /* the kernel has no more CTAs */
                continue;
            }
            place(rp, s, c);
            ks->rr_next = (pos + 1) % S;
            more = true;
            /* Round-robin hands one CTA per SM per round, like a GPU's
             * block scheduler: restart the round after the SM just served. */
            break;
        }
    }
    return 0;
}

void gcr_warp_done(struct gcr_replay *rp, struct sm *sm, uint32_t index)
{
    struct warp *w = sm->active[index];
    memmove(&sm->active[index], &sm->active[index + 1],
            (sm->nactive - index - 1) * sizeof sm->active[0]);
    if (--sm->nactive == 0)
        rp->wake[sm - rp->sms] = UINT64_MAX;
    if ((int32_t)index <= sm->last)
        sm->last--;
    if (sm->current == w)
        sm->current = NULL;
    struct cta *c = w->cta;
    if (--c->warps_left == 0) {
        sm->resident_ctas--;
        if (c->hw_slot < 64)
            sm->cta_slots &= ~(UINT64_C(1) << c->hw_slot);
        rp->ks->resident--;
        rp->ks->cta_finished = true;
        cta_put(rp, c);
    }
}

static uint32_t ctas_per_sm(const struct gcr_config *cfg, const struct gcr_kernel_begin *kb,
                            uint32_t wpc, char *why, size_t n)
{
    uint64_t fit = cfg->max_ctas_per_sm;
    uint64_t by_warps = cfg->max_warps_per_sm / wpc;
    if (by_warps < fit)
        fit = by_warps;
    if (kb->shmem_bytes && cfg->shared_mem_per_sm / kb->shmem_bytes < fit)
        fit = cfg->shared_mem_per_sm / kb->shmem_bytes;
    uint64_t regs = (uint64_t)kb->regs_per_thread * wpc * GCR_WARP_SIZE;
    if (regs && cfg->registers_per_sm / regs < fit)
        fit = cfg->registers_per_sm / regs;
    if (!fit)
        snprintf(why, n,
                 "one CTA needs %u warps, %u bytes of shared memory and %llu registers; an SM "
                 "has %u warps, %u bytes and %u registers (%s: $.gpu.max_warps_per_sm, "
                 "$.gpu.shared_mem_per_sm, $.gpu.registers_per_sm)",
                 wpc, kb->shmem_bytes, (unsigned long long)regs, cfg->max_warps_per_sm,
                 cfg->shared_mem_per_sm, cfg->registers_per_sm, cfg->origin);
    return (uint32_t)fit;
}

/* Several chips (SAC's distributed CTA scheduling): chip c runs the CTAs
 * gcr_chip_of_cta gives it, a contiguous block. Under round-robin, range c is
 * the chip's block (its SMs take CTAs from it in order); under contiguous,
 * range s is SM s's contiguous share of its chip's block. */
static void chip_cta_ranges(const struct gcr_config *cfg, uint64_t nctas, uint64_t *next,
                            uint64_t *end)
{
    uint32_t N = cfg->chips.count, spc = cfg->num_sms / N;
    uint64_t per_chip = (nctas + N - 1) / N;
    for (uint32_t c = 0; c < N; c++) {
        uint64_t lo = c * per_chip < nctas ? c * per_chip : nctas;
        uint64_t hi = lo + per_chip < nctas ? lo + per_chip : nctas;
        if (cfg->cta_policy == GCR_CTA_ROUND_ROBIN) {
            next[c] = lo;
            end[c] = hi;
            continue;
        }
        uint64_t per_sm = (hi - lo + spc - 1) / spc;
        for (uint32_t i = 0; i < spc; i++) {
            uint64_t a = lo + i * per_sm, b = a + per_sm;
            next[c * spc + i] = a < hi ? a : hi;
            end[c * spc + i] = b < hi ? b : hi;
        }
    }
}

int gcr_cta_kernel_init(struct gcr_replay *rp, struct kernel_state *ks, struct gcr_err *err)
{
    const struct gcr_config *cfg = rp->cfg;
    const struct gcr_kernel_begin *kb = &ks->kb;
    struct gcr_reader *r = ks->r;
    char why[512];
    ks->nctas = gcr_kernel_ctas(kb);
    ks->wpc = gcr_kernel_warps_per_cta(kb);
    const char *bad = gcr_record_invalid(&(struct gcr_record){.kind = GCR_REC_KERNEL_BEGIN,
                                                              .u.kbegin = *kb}, NULL);
    if (bad)
        return gcr_fail(err, GCR_E_FORMAT, "%s: kernel %u (%s): %s", gcr_reader_path(r), kb->id,
                        kb->name, bad);
    ks->fit = ctas_per_sm(cfg, kb, ks->wpc, why, sizeof why);
    if (!ks->fit)
        return gcr_fail(err, GCR_E_UNSUPPORTED, "%s: kernel %u (%s): %s", gcr_reader_path(r),
                        kb->id, kb->name, why);
    if (cfg->cta_policy == GCR_CTA_CONTIGUOUS || cfg->chips.count > 1) {
        uint32_t S = cfg->num_sms;
        uint64_t chunk = (ks->nctas + S - 1) / S;
        ks->by_id = calloc(ks->nctas, sizeof *ks->by_id);
        ks->next_id = calloc(S, sizeof *ks->next_id);
        ks->end_id = calloc(S, sizeof *ks->end_id);
        if (!ks->by_id || !ks->next_id || !ks->end_id)
            return gcr_fail(err, GCR_E_NOMEM, "out of memory for %llu CTAs",
                            (unsigned long long)ks->nctas);
        for (uint32_t s = 0; s < S; s++) {
            ks->next_id[s] = s * chunk < ks->nctas ? s * chunk : ks->nctas;
            ks->end_id[s] = (s + 1) * chunk < ks->nctas ? (s + 1) * chunk : ks->nctas;
        }
        if (cfg->chips.count > 1)
            chip_cta_ranges(cfg, ks->nctas, ks->next_id, ks->end_id);
    }
    return 0;
}

int gcr_cta_check_ended(struct gcr_replay *rp, struct gcr_err *err)
{
    struct kernel_state *ks = rp->ks;
    while (!ks->ended) {
        struct cta *c;
        if (load_cta(rp, &c, err) != 0)
            return -1;
        if (c) {
            cta_put(rp, c);
            return gcr_fail(err, GCR_E_INTERNAL, "%s: kernel %u: CTA %u was loaded but never run",
                            gcr_reader_path(ks->r), ks->kb.id, c->id);
        }
    }
    return 0;
}

void gcr_cta_kernel_free(struct gcr_replay *rp, struct kernel_state *ks)
{
    free((char *)ks->kb.name);
    if (ks->by_id)
        for (uint64_t i = 0; i < ks->nctas; i++)
            if (ks->by_id[i])
                cta_put(rp, ks->by_id[i]);
    free(ks->by_id);
    free(ks->next_id);
    free(ks->end_id);
    /* CTAs still resident after an error go back to the pool. */
    for (uint32_t s = 0; s < rp->cfg->num_sms; s++) {
        struct sm *sm = &rp->sms[s];
        while (sm->nactive) {
            struct warp *w = sm->active[sm->nactive - 1];
            sm->nactive--;
            if (--w->cta->warps_left == 0)
                cta_put(rp, w->cta);
        }
        sm->resident_ctas = 0;
        sm->cta_slots = 0;
        rp->wake[s] = UINT64_MAX;
        sm->last = -1;
        sm->current = NULL;
    }
}

