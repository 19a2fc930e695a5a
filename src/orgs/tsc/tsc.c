/* Tag-split cache (TSC) and its adaptive variant TSC+ (Li, Hayes, Song,
 * Zhang, ICS'16) as an L1 organisation: one tag-split L1 per SM.
 *
 * Requests arrive coalesced at the line size (128 B), so their number equals
 * the baseline's; storage is in chunks (chunk_store.c). A read whose requested
 * chunks are all present hits; otherwise only the missing chunks are fetched
 * (fine mode) or every missing chunk of the line (coarse mode). TSC+ picks the
 * mode by set dueling on SM 0's sampler sets. Stores are write-evict: they go
 * below and remove the line's chunks. src/orgs/tsc/README.md has every rule and
 * the choices the paper leaves open. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "orgs/common/granularity.h"
#include "orgs/tsc/chunk_store.h"
#include "gcreplay/options.h"
#include "replay/l1org.h"

enum tsc_mode { TSC_FINE = 0, TSC_COARSE = 1, TSC_ADAPTIVE = 2 };
static const char *const mode_names[] = {"fine", "coarse", "adaptive"};
static const char *const write_names[] = {"line", "written_chunks"};
static const char *const index_names[] = {"linear", "xor", "fermi", "ipoly"};

#define TSC_TIMELINE_MAX 256 /* mode switches kept in the report; the rest are counted */

struct tsc_switch {
    uint64_t request; /* L1 requests of the whole GPU before the switch */
    uint64_t step;    /* replay step */
    uint8_t mode;
};

/* TSC+ set dueling (Sec. 3.5): four counters for the whole GPU. */
struct tsc_duel {
    uint8_t *role;         /* SM 0's sets: 0 follower, 1 fine sampler, 2 coarse sampler */
    uint32_t miss[2], traffic[2];
    uint32_t counter_max;  /* 2^counter_bits - 1: counters saturate there */
    uint32_t halve_above;  /* a miss counter above this halves all four */
    uint8_t winner;        /* mode of every follower set */
    uint64_t halvings, switches;
    uint64_t follower_requests[2];
    struct tsc_switch timeline[TSC_TIMELINE_MAX];
};

struct tsc_sm {
    struct tsc_store store;
    struct gcr_cache_stats stats;
};

struct tsc {
    struct gcr_l1org_ctx ctx;
    uint32_t n;
    struct tsc_sm *sm;
    struct tsc_geometry geo;
    uint32_t chunk_bytes, sector_bytes, sectors_per_chunk;
    uint32_t all_chunks;
    unsigned shared_bits;
    enum tsc_mode mode;
    bool evict_written_only;
    struct tsc_duel duel;
    uint64_t requests;
    /* Figures of the paper beyond the cache counters (reads). */
    uint64_t read_hits, read_partial, read_full_misses;
    uint64_t chunks_requested, chunks_missed, chunks_fetched, chunks_left, chunks_reused;
    uint64_t chunks_write_evicted;
    struct gcr_gran_counts counts;
    struct gcr_gran_tracker tracker;
    struct gcr_gran_ref *refs;
    uint32_t nrefs;
};

/* ---- chunk and sector masks ------------------------------------------------------------ */

static uint32_t chunks_of(const struct tsc *t, uint32_t sectors)
{
    if (t->sectors_per_chunk == 1)
        return sectors;
    uint32_t m = 0, one = (1u << t->sectors_per_chunk) - 1;
    for (uint32_t c = 0; sectors; c++, sectors >>= t->sectors_per_chunk)
        m |= (sectors & one) ? 1u << c : 0;
    return m;
}

static uint32_t sectors_of(const struct tsc *t, uint32_t chunks)
{
    if (t->sectors_per_chunk == 1)
        return chunks;
    uint32_t m = 0, one = (1u << t->sectors_per_chunk) - 1;
    for (; chunks; chunks &= chunks - 1)
        m |= one << (gcr_bits_ctz32(chunks) * t->sectors_per_chunk);
    return m;
}

/* ---- events ---------------------------------------------------------------------------- */

/* Chunks of one line left SM sm's L1: observers see the line leave with those
 * sectors (line_utilisation reads victim_valid / victim_used). */
static void leave(struct tsc *t, uint32_t sm, const struct tsc_victim *v, bool invalidated)
{
    t->chunks_left += gcr_bits_popcount32(v->chunks);
    t->chunks_reused += gcr_bits_popcount32(v->reused);
    uint32_t valid = sectors_of(t, v->chunks), used = sectors_of(t, v->used);
    t->counts.sectors_left += gcr_bits_popcount32(valid);
    t->counts.sectors_used += gcr_bits_popcount32(used);
    if (invalidated)
        t->sm[sm].stats.invalidations++;
    else
        t->sm[sm].stats.evictions++;
    if (gcr_bus_wants(t->ctx.bus, GCR_EV_L1_EVICT)) {
        struct gcr_access a = {.evicted = !invalidated, .invalidated = invalidated,
                               .victim_line = v->line, .victim_valid = valid,
                               .victim_used = used};
        gcr_l1org_emit(t->ctx.bus, GCR_EV_L1_EVICT, sm, NULL, v->line, valid, false, &a);
    }
}

/* ---- TSC+ ------------------------------------------------------------------------------ */

static enum tsc_mode mode_of(struct tsc *t, uint32_t sm, uint32_t set, uint8_t *role)
{
    *role = 0;
    if (t->mode != TSC_ADAPTIVE)
        return t->mode;
    if (sm == 0 && t->duel.role[set]) {
        *role = t->duel.role[set];
        return *role == 1 ? TSC_FINE : TSC_COARSE;
    }
    t->duel.follower_requests[t->duel.winner]++;
    return t->duel.winner;
}

/* A miss request in a sampler set: one more miss, and 1 request packet plus one
 * packet per missed chunk of traffic, for that set's mode. */
static void duel_count(struct tsc *t, uint8_t role, uint32_t missed_chunks)
{
    struct tsc_duel *d = &t->duel;
    unsigned m = role - 1u;
    d->miss[m] = d->miss[m] < d->counter_max ? d->miss[m] + 1 : d->counter_max;
    uint64_t tr = (uint64_t)d->traffic[m] + 1 + missed_chunks;
    d->traffic[m] = tr < d->counter_max ? (uint32_t)tr : d->counter_max;
    if (d->miss[0] > d->halve_above || d->miss[1] > d->halve_above) {
        for (int i = 0; i < 2; i++) {
            d->miss[i] >>= 1;
            d->traffic[i] >>= 1;
        }
        d->halvings++;
    }
    /* The smaller misses x traffic product wins; a tie keeps fine mode. */
    uint64_t fine = (uint64_t)d->miss[0] * d->traffic[0];
    uint64_t coarse = (uint64_t)d->miss[1] * d->traffic[1];
    uint8_t w = coarse < fine ? TSC_COARSE : TSC_FINE;
    if (w != d->winner) {
        if (d->switches < TSC_TIMELINE_MAX)
            d->timeline[d->switches] = (struct tsc_switch){t->requests, t->ctx.bus->step, w};
        d->switches++;
        d->winner = w;
    }
}

/* ---- access ---------------------------------------------------------------------------- */

static enum gcr_outcome outcome_of(uint32_t wanted, uint32_t cached)
{
    if (!(wanted & ~cached))
        return GCR_HIT;
    return cached ? GCR_MISS_SECTOR : GCR_MISS_LINE;
}

static enum gcr_outcome tsc_write(struct tsc *t, const struct gcr_req *req, struct tsc_sm *s,
                                  uint32_t set, uint32_t cached, uint32_t want)
{
    struct gcr_access a = {.outcome = outcome_of(want, cached), .forward_mask = req->sector_mask};
    struct tsc_victim v = {0};
    uint32_t drop = t->evict_written_only ? cached & want : cached;
    if (drop && tsc_store_invalidate(&s->store, set, req->line_addr, drop, &v)) {
        a.invalidated = true;
        a.victim_line = v.line;
        a.victim_valid = sectors_of(t, v.chunks);
        a.victim_used = sectors_of(t, v.used);
        t->chunks_write_evicted += gcr_bits_popcount32(v.chunks);
    }
    s->stats.outcomes[1][a.outcome]++;
    s->stats.sectors_missed[1] +=
        gcr_bits_popcount32(req->sector_mask & ~sectors_of(t, cached));
    s->stats.sectors_forwarded += gcr_bits_popcount32(req->sector_mask);
    gcr_l1org_lookup(t->ctx.mem, req->sm, req, req->line_addr, req->sector_mask, true, &a);
    if (a.invalidated)
        leave(t, req->sm, &v, true);
    gcr_memsys_write(t->ctx.mem, req->sm, req->sm, req->line_addr, req->sector_mask, req->bytes,
                     req->insn);
    gcr_gran_count(&t->counts, &t->tracker, req->sm, t->ctx.bus->step, true,
                   a.outcome == GCR_HIT, 0, req->sector_mask, t->sector_bytes);
    return a.outcome;
}

static enum gcr_outcome tsc_access(void *self, const struct gcr_req *req)
{
    struct tsc *t = self;
    struct tsc_sm *s = &t->sm[req->sm];
    uint32_t set = tsc_store_set(&s->store, req->line_addr);
    uint32_t cached = tsc_store_lookup(&s->store, set, req->line_addr);
    uint32_t asked = chunks_of(t, req->sector_mask);
    int w = req->is_write;
    t->requests++;
    s->stats.accesses[w]++;
    s->stats.sectors_requested[w] += gcr_bits_popcount32(req->sector_mask);
    if (t->nrefs)
        gcr_gran_refs_access(t->refs, t->nrefs, req->sm, t->ctx.bus->step, req->line_addr,
                             req->sector_mask, req->is_write);
    if (req->is_write)
        return tsc_write(t, req, s, set, cached, asked);

    /* Coarse mode asks for the whole line: the access chunk mask is all ones. */
    uint8_t role;
    uint32_t want = mode_of(t, req->sm, set, &role) == TSC_COARSE ? t->all_chunks : asked;
    uint32_t missing = want & ~cached;
    struct gcr_access a = {.outcome = outcome_of(want, cached)};
    t->chunks_requested += gcr_bits_popcount32(asked);
    t->chunks_missed += gcr_bits_popcount32(asked & ~cached);
    if (!missing)
        t->read_hits++;
    else if (want & cached)
        t->read_partial++; /* some requested chunks found: read as hits, the rest fetched */
    else
        t->read_full_misses++;
    s->stats.outcomes[0][a.outcome]++;
    s->stats.sectors_missed[0] += gcr_bits_popcount32(req->sector_mask & ~sectors_of(t, cached));
    tsc_store_touch(&s->store, set, req->line_addr, asked & cached);

    uint32_t nv = 0;
    if (missing) {
        nv = tsc_store_allocate(&s->store, set, req->line_addr, missing, asked);
        a.fetch_mask = sectors_of(t, missing);
        a.allocated = cached == 0;
        t->chunks_fetched += gcr_bits_popcount32(missing);
        s->stats.sectors_fetched += gcr_bits_popcount32(a.fetch_mask);
        if (role)
            duel_count(t, role, gcr_bits_popcount32(missing));
    }
    gcr_l1org_lookup(t->ctx.mem, req->sm, req, req->line_addr, req->sector_mask, false, &a);
    for (uint32_t i = 0; i < nv; i++)
        leave(t, req->sm, &s->store.victims[i], false);
    /* One request to L2 with the missing chunks' sectors: the L2 returns only
     * those (the paper's issued-chunk-mask MSHR, Sec. 3.4). */
    if (a.fetch_mask)
        gcr_memsys_read(t->ctx.mem, req->sm, req->sm, req->line_addr, a.fetch_mask, false,
                        req->insn);
    gcr_gran_count(&t->counts, &t->tracker, req->sm, t->ctx.bus->step, false,
                   a.outcome == GCR_HIT, a.fetch_mask, 0, t->sector_bytes);
    return a.outcome;
}

/* ---- kernel boundaries ----------------------------------------------------------------- */

struct leaving_ctx {
    struct tsc *t;
    uint32_t sm;
};

static void leaving(void *vctx, const struct tsc_victim *v)
{
    struct leaving_ctx *c = vctx;
    leave(c->t, c->sm, v, true);
}

static void tsc_kernel_end(void *self)
{
    struct tsc *t = self;
    if (!t->ctx.config->l1_invalidate_at_kernel_end)
        return;
    for (uint32_t i = 0; i < t->n; i++) {
        struct leaving_ctx c = {t, i};
        tsc_store_clear(&t->sm[i].store, leaving, &c);
    }
    gcr_gran_refs_invalidate(t->refs, t->nrefs);
}

/* The unified L1/shared carve-out changes the ways, i.e. the chunk groups per
 * set: the L1s restart empty with the new group count; counts carry over. */
static int tsc_kernel_begin(void *self, const struct gcr_cache_geometry *l1, struct gcr_err *err)
{
    struct tsc *t = self;
    if (l1->ways == t->geo.groups)
        return 0;
    t->geo.groups = l1->ways;
    for (uint32_t i = 0; i < t->n; i++) {
        struct leaving_ctx c = {t, i};
        tsc_store_clear(&t->sm[i].store, leaving, &c);
        /* Keep the replacement figures of the old store. */
        struct tsc_store old = t->sm[i].store;
        struct tsc_geometry g = t->geo;
        g.seed = t->geo.seed + i;
        if (tsc_store_init(&t->sm[i].store, &g, err) != 0) {
            tsc_store_fini(&old);
            return -1;
        }
        t->sm[i].store.replacements = old.replacements;
        t->sm[i].store.multi_line_replacements = old.multi_line_replacements;
        t->sm[i].store.chunks_replaced = old.chunks_replaced;
        t->sm[i].store.group_flushes = old.group_flushes;
        t->sm[i].store.group_retags = old.group_retags;
        tsc_store_fini(&old);
    }
    return gcr_gran_refs_resize(t->refs, t->nrefs, l1->ways, err);
}

/* ---- creation -------------------------------------------------------------------------- */

static void tsc_destroy(void *self)
{
    struct tsc *t = self;
    if (!t)
        return;
    if (t->sm)
        for (uint32_t i = 0; i < t->n; i++)
            tsc_store_fini(&t->sm[i].store);
    free(t->sm);
    free(t->duel.role);
    gcr_gran_tracker_fini(&t->tracker);
    gcr_gran_refs_destroy(t->refs, t->nrefs);
    free(t);
}

/* SM 0's sampler sets: a seeded shuffle of its sets, the first `per_mode` fine,
 * the next `per_mode` coarse. */
static int choose_samplers(struct tsc *t, uint32_t per_mode, uint64_t seed, struct gcr_err *err)
{
    uint32_t sets = t->geo.sets;
    uint32_t *order = malloc(sets * sizeof *order);
    t->duel.role = calloc(sets, 1);
    if (!order || !t->duel.role) {
        free(order);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < sets; i++)
        order[i] = i;
    uint64_t x = seed;
    for (uint32_t i = sets - 1; i > 0; i--) {
        x = gcr_hash_splitmix64(x);
        uint32_t j = (uint32_t)(x % (i + 1));
        uint32_t tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    for (uint32_t i = 0; i < 2 * per_mode; i++)
        t->duel.role[order[i]] = i < per_mode ? 1 : 2;
    free(order);
    return 0;
}

static int tsc_create(void **self, const struct gcr_l1org_ctx *ctx, const json_t *options,
                      struct gcr_err *err)
{
    const struct gcr_config *cfg = ctx->config;
    /* The defaults are the paper's (Table 2 and Sec. 4.3). */
    uint64_t chunk = 32, pbits = 8, sbits = 12, per_mode = 4, seed = cfg->seed, cbits = 16,
             halve = 1024;
    int mode = TSC_FINE, wmode = 0, index = GCR_INDEX_FERMI;
    struct gcr_opts o;
    gcr_opts_begin(&o, cfg->origin, "$.l1d.tsc", options);
    if (gcr_opts_uint(&o, "chunk_bytes", 8, 64, &chunk, err) ||
        gcr_opts_uint(&o, "private_tag_bits", 0, 40, &pbits, err) ||
        gcr_opts_uint(&o, "shared_tag_bits", 0, 40, &sbits, err) ||
        gcr_opts_enum(&o, "index", GCR_OPTS_NAMES(index_names), &index, err) ||
        gcr_opts_enum(&o, "mode", GCR_OPTS_NAMES(mode_names), &mode, err) ||
        gcr_opts_enum(&o, "write_evict", GCR_OPTS_NAMES(write_names), &wmode, err) ||
        gcr_opts_uint(&o, "sampler_sets", 1, 1u << 20, &per_mode, err) ||
        gcr_opts_uint(&o, "sampler_seed", 0, INT64_MAX, &seed, err) ||
        gcr_opts_uint(&o, "counter_bits", 8, 32, &cbits, err) ||
        gcr_opts_uint(&o, "halve_above", 1, UINT32_MAX, &halve, err))
        return -1;
    const json_t *baselines = gcr_opts_get(&o, "baselines");
    if (gcr_opts_done(&o, err) != 0 || gcr_gran_check_write_policy(cfg, "tsc", err) != 0)
        return -1;

    const char *org = cfg->origin;
    if (!gcr_is_pow2(chunk) || chunk > cfg->line_bytes || chunk % cfg->sector_bytes)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.tsc.chunk_bytes: must be a power of two "
                        "from 8 to 64 dividing the %u-B line and a multiple of the %u-B sector "
                        "(set $.coalescer.sector_bytes to the chunk size or smaller) (got %llu)",
                        org, cfg->line_bytes, cfg->sector_bytes, (unsigned long long)chunk);
    if (pbits + sbits == 0)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.tsc.shared_tag_bits: the shared and "
                        "private tags cannot both be empty", org);
    if (cfg->granularity != GCR_GRAN_LINE)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.coalescer.granularity: the tsc organisation "
                        "takes requests coalesced per line (\"line\"), got \"%s\"", org,
                        gcr_granularity_name(cfg->granularity));
    if (!gcr_is_pow2(cfg->l1.sets))
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.sets: the tsc organisation needs a "
                        "power-of-two set count (the tag is the address above the set index), "
                        "got %u", org, cfg->l1.sets);
    uint64_t slots = (uint64_t)cfg->l1.ways * (cfg->line_bytes / chunk);
    if (slots > 4096)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.ways: a tag-split set compares every "
                        "chunk's tag, so groups x chunks per group is limited to 4096 (got %u "
                        "ways x %llu chunks)", org, cfg->l1.ways,
                        (unsigned long long)(cfg->line_bytes / chunk));
    struct gcr_cache_geometry l1_geo = cfg->l1;
    l1_geo.index = (enum gcr_index_fn)index;
    l1_geo.strip_count = 0;
    char why[200];
    if (gcr_cache_geometry_check(&l1_geo, why, sizeof why) != 0)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.tsc.index: \"%s\" does not fit this L1 "
                        "(%s); choose another index", org, index_names[index], why);
    if (mode == TSC_ADAPTIVE && 2 * per_mode > cfg->l1.sets)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.tsc.sampler_sets: %llu fine and %llu "
                        "coarse sampler sets do not fit in %u sets", org,
                        (unsigned long long)per_mode, (unsigned long long)per_mode,
                        cfg->l1.sets);
    if (halve >= (UINT64_C(1) << cbits) - 1)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.tsc.halve_above: must be below the "
                        "largest %llu-bit counter value", org, (unsigned long long)cbits);

    struct tsc *t = calloc(1, sizeof *t);
    if (!t)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    t->ctx = *ctx;
    t->n = cfg->num_sms;
    t->chunk_bytes = (uint32_t)chunk;
    t->sector_bytes = cfg->sector_bytes;
    t->sectors_per_chunk = (uint32_t)chunk / cfg->sector_bytes;
    t->shared_bits = (unsigned)sbits;
    t->mode = (enum tsc_mode)mode;
    t->evict_written_only = wmode == 1;
    t->geo = (struct tsc_geometry){.sets = cfg->l1.sets, .groups = cfg->l1.ways,
                                   .chunks = cfg->line_bytes / (uint32_t)chunk,
                                   .line_bytes = cfg->line_bytes,
                                   .index = (enum gcr_index_fn)index,
                                   .private_bits = (unsigned)pbits, .seed = cfg->l1.seed};
    t->all_chunks = t->geo.chunks >= 32 ? UINT32_MAX : (1u << t->geo.chunks) - 1;
    t->duel.counter_max = (uint32_t)((UINT64_C(1) << cbits) - 1);
    t->duel.halve_above = (uint32_t)halve;
    t->sm = calloc(t->n, sizeof *t->sm);
    if (!t->sm) {
        tsc_destroy(t);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < t->n; i++) {
        struct tsc_geometry g = t->geo;
        g.seed = t->geo.seed + i;
        if (tsc_store_init(&t->sm[i].store, &g, err) != 0) {
            tsc_destroy(t);
            return -1;
        }
    }
    if ((mode == TSC_ADAPTIVE && choose_samplers(t, (uint32_t)per_mode, seed, err) != 0) ||
        gcr_gran_tracker_init(&t->tracker, t->n, err) != 0 ||
        gcr_gran_refs_create(&t->refs, &t->nrefs, baselines, "tsc", "baselines", cfg, &l1_geo,
                             err) != 0) {
        tsc_destroy(t);
        return -1;
    }
    *self = t;
    return 0;
}

static uint32_t tsc_instances(void *self)
{
    return ((struct tsc *)self)->n;
}

static void tsc_collect_stats(void *self, struct gcr_cache_stats *per_sm)
{
    struct tsc *t = self;
    for (uint32_t i = 0; i < t->n; i++)
        per_sm[i] = t->sm[i].stats;
}

/* ---- report ---------------------------------------------------------------------------- */


/* Tag storage from the geometry (Sec. 5.1, Table 3): per chunk a private tag,
 * a valid bit, its position in the line and an NRU bit; per group a shared tag;
 * against the baseline's per line a whole tag, a valid bit and LRU state. */
static json_t *tag_storage(const struct tsc *t)
{
    uint64_t groups = (uint64_t)t->geo.sets * t->geo.groups;
    uint64_t chunks = groups * t->geo.chunks;
    uint64_t tag_bits = t->geo.private_bits + t->shared_bits;
    uint64_t per_chunk = t->geo.private_bits + 1 + gcr_bits_ceil_log2(t->geo.chunks) + 1;
    uint64_t tsc_bits = chunks * per_chunk + groups * t->shared_bits;
    uint64_t base_bits = groups * (tag_bits + 1 + gcr_bits_ceil_log2(t->geo.groups));
    double over = ((double)tsc_bits - (double)base_bits) / 8.0 / 1024.0;
    return json_pack("{s:I, s:I, s:I, s:I, s:f, s:I}", "address_bits",
                     (json_int_t)(tag_bits + gcr_bits_log2(t->geo.sets) +
                                  gcr_bits_log2(t->geo.line_bytes)),
                     "bits_per_chunk", (json_int_t)per_chunk, "tsc_bits_per_l1",
                     (json_int_t)tsc_bits, "baseline_bits_per_l1", (json_int_t)base_bits,
                     "overhead_kb_per_l1", over, "sampler_counter_bits_per_gpu",
                     (json_int_t)(t->mode == TSC_ADAPTIVE ? 4 * gcr_bits_ceil_log2(t->duel.counter_max)
                                                          : 0));
}

static json_t *adaptive_json(const struct tsc *t)
{
    const struct tsc_duel *d = &t->duel;
    json_t *fine = json_array(), *coarse = json_array(), *timeline = json_array();
    for (uint32_t s = 0; s < t->geo.sets; s++)
        if (d->role[s])
            json_array_append_new(d->role[s] == 1 ? fine : coarse, json_integer(s));
    uint64_t kept = d->switches < TSC_TIMELINE_MAX ? d->switches : TSC_TIMELINE_MAX;
    for (uint64_t i = 0; i < kept; i++)
        json_array_append_new(timeline, json_pack("{s:I, s:I, s:s}", "request",
                                                  (json_int_t)d->timeline[i].request, "step",
                                                  (json_int_t)d->timeline[i].step, "mode",
                                                  mode_names[d->timeline[i].mode]));
    return json_pack("{s:{s:o, s:o}, s:{s:I, s:I, s:I, s:I}, s:I, s:s, s:I, s:o, s:b, "
                     "s:{s:I, s:I}}",
                     "sampler_sets_sm0", "fine", fine, "coarse", coarse, "counters", "miss_fine",
                     (json_int_t)d->miss[0], "traffic_fine", (json_int_t)d->traffic[0],
                     "miss_coarse", (json_int_t)d->miss[1], "traffic_coarse",
                     (json_int_t)d->traffic[1], "halvings", (json_int_t)d->halvings, "mode_now",
                     mode_names[d->winner], "switches", (json_int_t)d->switches, "timeline",
                     timeline, "timeline_truncated", d->switches > TSC_TIMELINE_MAX,
                     "follower_requests", "fine", (json_int_t)d->follower_requests[0], "coarse",
                     (json_int_t)d->follower_requests[1]);
}

static int tsc_report(void *self, json_t *section, struct gcr_err *err)
{
    (void)err;
    struct tsc *t = self;
    uint64_t rounds = 0, multi = 0, replaced = 0, flushes = 0, retags = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        rounds += t->sm[i].store.replacements;
        multi += t->sm[i].store.multi_line_replacements;
        replaced += t->sm[i].store.chunks_replaced;
        flushes += t->sm[i].store.group_flushes;
        retags += t->sm[i].store.group_retags;
    }
    uint64_t reads = t->read_hits + t->read_partial + t->read_full_misses;
    json_object_set_new(section, "mode", json_string(mode_names[t->mode]));
    json_object_set_new(
        section, "geometry",
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:s}", "sets", (json_int_t)t->geo.sets,
                  "groups_per_set", (json_int_t)t->geo.groups, "chunks_per_group",
                  (json_int_t)t->geo.chunks, "chunk_bytes", (json_int_t)t->chunk_bytes,
                  "private_tag_bits", (json_int_t)t->geo.private_bits, "shared_tag_bits",
                  (json_int_t)t->shared_bits, "index", index_names[t->geo.index]));
    json_object_set_new(
        section, "reads",
        json_pack("{s:I, s:I, s:I, s:I, s:o}", "requests", (json_int_t)reads, "hits",
                  (json_int_t)t->read_hits, "partial_misses", (json_int_t)t->read_partial,
                  "misses", (json_int_t)t->read_full_misses, "partial_share",
                  gcr_gran_ratio(t->read_partial, reads)));
    json_object_set_new(
        section, "chunks",
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "requested",
                  (json_int_t)t->chunks_requested, "missed", (json_int_t)t->chunks_missed,
                  "fetched", (json_int_t)t->chunks_fetched, "write_evicted",
                  (json_int_t)t->chunks_write_evicted, "left", (json_int_t)t->chunks_left,
                  "reused", (json_int_t)t->chunks_reused, "reused_share",
                  gcr_gran_ratio(t->chunks_reused, t->chunks_left)));
    json_object_set_new(
        section, "replacement",
        json_pack("{s:I, s:I, s:I, s:I, s:I}", "rounds", (json_int_t)rounds,
                  "multi_line_rounds", (json_int_t)multi, "chunks_replaced",
                  (json_int_t)replaced, "group_flushes", (json_int_t)flushes, "group_retags",
                  (json_int_t)retags));
    json_object_set_new(section, "metrics", gcr_gran_json(&t->counts));
    gcr_gran_refs_report(t->refs, t->nrefs, &t->counts, section);
    json_object_set_new(section, "tag_storage", tag_storage(t));
    gcr_gran_summary(section);
    if (t->mode == TSC_ADAPTIVE) {
        json_t *ad = adaptive_json(t), *summary = json_object_get(section, "summary");
        json_object_set(summary, "mode_now", json_object_get(ad, "mode_now"));
        json_object_set(summary, "switches", json_object_get(ad, "switches"));
        json_object_set_new(section, "adaptive", ad);
    }
    return 0;
}

const struct gcr_l1org_ops gcr_l1org_tsc = {
    .name = "tsc",
    .summary = "tag-split cache per SM: 128-B requests, chunk storage, TSC+ set dueling",
    .create = tsc_create,
    .access = tsc_access,
    .kernel_begin = tsc_kernel_begin,
    .kernel_end = tsc_kernel_end,
    .num_instances = tsc_instances,
    .collect_stats = tsc_collect_stats,
    .report = tsc_report,
    .destroy = tsc_destroy,
};
