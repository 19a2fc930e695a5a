/* Decoupled sectored cache DSC-k (Seznec, ISCA'94) as an L1 organisation:
 * one per SM, the comparison point of the Tag-Split Cache paper (Sec. 5.2).
 *
 * A set holds `ways` sector frames of one line's size; each frame has k
 * address tags, and each sector (chunk) position of the frame holds that chunk
 * of one of the frame's k lines (a log2(k)-bit selector per chunk). Chunk i of
 * a line can only sit at position i of its line's frame: two lines that both
 * want chunk 0 cannot share a frame, the restriction TSC removes. As in the
 * paper's evaluation only the missing chunks are fetched. DSC-1 is the sector
 * cache. src/orgs/dsc/README.md has the rules and the choices made here. */
#include <stdlib.h>
#include <string.h>

#include "cache/cache_internal.h"
#include "core/bits.h"
#include "orgs/common/granularity.h"
#include "gcreplay/options.h"
#include "replay/l1org.h"

#define DSC_NO_LINE UINT64_MAX
#define DSC_NO_OWNER UINT8_MAX

static const char *const index_names[] = {"linear", "xor", "fermi", "ipoly"};
static const char *const write_names[] = {"line", "written_chunks"};

struct dsc_tag {
    uint64_t line;   /* DSC_NO_LINE: free */
    uint64_t stamp;  /* last access, for LRU among the set's lines */
    uint32_t chunks; /* positions of the frame holding this line's chunks */
    uint32_t used;   /* of those, requested since their fill */
};

struct dsc_sm {
    struct dsc_tag *tags;  /* [set][frame][k] */
    uint8_t *owner;        /* [set][frame][chunk]: tag slot (0..k-1) owning it, or none */
    uint64_t clock;
    struct gcr_cache_stats stats;
};

struct dsc {
    struct gcr_l1org_ctx ctx;
    uint32_t n, sets, frames, k, chunks;
    unsigned address_bits;
    bool evict_written_only;
    struct gcr_set_index index;
    enum gcr_index_fn index_fn;
    struct dsc_sm *sm;
    uint64_t lines_replaced, chunks_displaced, multi_line_rounds;
    struct gcr_gran_counts counts;
    struct gcr_gran_tracker tracker;
    struct gcr_gran_ref *refs;
    uint32_t nrefs;
};

static void leave(struct dsc *d, uint32_t sm, uint64_t line, uint32_t chunks, uint32_t used,
                  bool invalidated)
{
    d->counts.sectors_left += gcr_bits_popcount32(chunks);
    d->counts.sectors_used += gcr_bits_popcount32(used & chunks);
    if (invalidated)
        d->sm[sm].stats.invalidations++;
    else
        d->sm[sm].stats.evictions++;
    if (gcr_bus_wants(d->ctx.bus, GCR_EV_L1_EVICT)) {
        struct gcr_access a = {.evicted = !invalidated, .invalidated = invalidated,
                               .victim_line = line, .victim_valid = chunks,
                               .victim_used = used & chunks};
        gcr_l1org_emit(d->ctx.bus, GCR_EV_L1_EVICT, sm, NULL, line, chunks, false, &a);
    }
}

/* Removes chunks `mask` of the line in tag slot `e` of frame `f`; a line left
 * without chunks frees its tag. */
static void drop(struct dsc *d, uint32_t sm, uint32_t set, uint32_t f, uint32_t e, uint32_t mask,
                 bool invalidated)
{
    struct dsc_sm *s = &d->sm[sm];
    size_t fi = (size_t)set * d->frames + f;
    struct dsc_tag *t = &s->tags[fi * d->k + e];
    mask &= t->chunks;
    if (!mask)
        return;
    for (uint32_t m = mask; m; m &= m - 1)
        s->owner[fi * d->chunks + gcr_bits_ctz32(m)] = DSC_NO_OWNER;
    leave(d, sm, t->line, mask, t->used, invalidated);
    t->chunks &= ~mask;
    t->used &= ~mask;
    if (!t->chunks)
        t->line = DSC_NO_LINE;
}

static uint32_t frame_occupied(const struct dsc *d, const struct dsc_sm *s, size_t fi)
{
    uint32_t m = 0;
    for (uint32_t e = 0; e < d->k; e++)
        m |= s->tags[fi * d->k + e].chunks;
    return m;
}

/* A tag slot for a line not in the set: a free one whose frame has the fewest
 * of the wanted positions taken (lowest first on a tie), else the least
 * recently used line of the set, evicted whole. Returns frame*k + slot. */
static uint32_t choose_tag(struct dsc *d, uint32_t sm, uint32_t set, uint32_t want,
                           uint32_t *lines_out)
{
    struct dsc_sm *s = &d->sm[sm];
    size_t base = (size_t)set * d->frames;
    uint32_t best = UINT32_MAX, best_cost = UINT32_MAX, lru = 0;
    uint64_t lru_stamp = UINT64_MAX;
    for (uint32_t f = 0; f < d->frames; f++) {
        uint32_t cost = UINT32_MAX;
        for (uint32_t e = 0; e < d->k; e++) {
            const struct dsc_tag *t = &s->tags[(base + f) * d->k + e];
            if (t->line == DSC_NO_LINE) {
                if (cost == UINT32_MAX)
                    cost = gcr_bits_popcount32(want & frame_occupied(d, s, base + f));
                if (cost < best_cost) {
                    best_cost = cost;
                    best = f * d->k + e;
                }
            } else if (t->stamp < lru_stamp) {
                lru_stamp = t->stamp;
                lru = f * d->k + e;
            }
        }
    }
    if (best != UINT32_MAX)
        return best;
    const struct dsc_tag *v = &s->tags[base * d->k + lru];
    d->lines_replaced++;
    (*lines_out)++;
    drop(d, sm, set, lru / d->k, lru % d->k, v->chunks, false);
    return lru;
}

static enum gcr_outcome outcome_of(uint32_t want, uint32_t cached)
{
    if (!(want & ~cached))
        return GCR_HIT;
    return cached ? GCR_MISS_SECTOR : GCR_MISS_LINE;
}

static enum gcr_outcome dsc_access(void *self, const struct gcr_req *req)
{
    struct dsc *d = self;
    uint32_t sm = req->sm;
    struct dsc_sm *s = &d->sm[sm];
    uint32_t set = gcr_set_index_of(&d->index, req->line_addr);
    size_t base = (size_t)set * d->frames;
    uint32_t want = req->sector_mask, w = req->is_write;
    uint32_t slot = UINT32_MAX, cached = 0;
    for (uint32_t i = 0; i < d->frames * d->k; i++)
        if (s->tags[base * d->k + i].line == req->line_addr) {
            slot = i;
            cached = s->tags[base * d->k + i].chunks;
            break;
        }
    if (d->nrefs)
        gcr_gran_refs_access(d->refs, d->nrefs, sm, d->ctx.bus->step, req->line_addr, want,
                             req->is_write);
    struct gcr_access a = {.outcome = outcome_of(want, cached)};
    s->stats.accesses[w]++;
    s->stats.outcomes[w][a.outcome]++;
    s->stats.sectors_requested[w] += gcr_bits_popcount32(want);
    s->stats.sectors_missed[w] += gcr_bits_popcount32(want & ~cached);

    if (req->is_write) { /* write-evict, no allocation */
        a.forward_mask = want;
        a.invalidated = slot != UINT32_MAX &&
                        (d->evict_written_only ? (cached & want) != 0 : true);
        gcr_l1org_lookup(d->ctx.mem, sm, req, req->line_addr, want, true, &a);
        if (a.invalidated)
            drop(d, sm, set, slot / d->k, slot % d->k,
                 d->evict_written_only ? cached & want : cached, true);
        s->stats.sectors_forwarded += gcr_bits_popcount32(want);
        gcr_memsys_write(d->ctx.mem, sm, sm, req->line_addr, want, req->bytes, req->insn);
        gcr_gran_count(&d->counts, &d->tracker, sm, d->ctx.bus->step, true, a.outcome == GCR_HIT,
                       0, want, d->ctx.config->sector_bytes);
        return a.outcome;
    }

    uint32_t missing = want & ~cached, lines = 0;
    a.fetch_mask = missing;
    a.allocated = missing && slot == UINT32_MAX;
    gcr_l1org_lookup(d->ctx.mem, sm, req, req->line_addr, want, false, &a);
    if (missing && slot == UINT32_MAX)
        slot = choose_tag(d, sm, set, missing, &lines);
    uint32_t f = slot / d->k, e = slot % d->k;
    if (missing) {
        /* Positions of the missing chunks: other lines of the frame lose theirs. */
        size_t fi = base + f;
        for (uint32_t m = missing; m; m &= m - 1) {
            uint32_t p = gcr_bits_ctz32(m);
            uint8_t o = s->owner[fi * d->chunks + p];
            if (o != DSC_NO_OWNER && o != e) {
                d->chunks_displaced++;
                if (gcr_bits_popcount32(s->tags[fi * d->k + o].chunks) == 1)
                    lines++;
                drop(d, sm, set, f, o, 1u << p, false);
            }
            s->owner[fi * d->chunks + p] = (uint8_t)e;
        }
        struct dsc_tag *t = &s->tags[fi * d->k + e];
        t->line = req->line_addr;
        t->chunks |= missing;
        s->stats.sectors_fetched += gcr_bits_popcount32(missing);
        gcr_memsys_read(d->ctx.mem, sm, sm, req->line_addr, missing, false, req->insn);
    }
    if (lines > 1)
        d->multi_line_rounds++;
    struct dsc_tag *t = &s->tags[(base + f) * d->k + e];
    t->used |= want;
    t->stamp = ++s->clock;
    gcr_gran_count(&d->counts, &d->tracker, sm, d->ctx.bus->step, false, a.outcome == GCR_HIT,
                   missing, 0, d->ctx.config->sector_bytes);
    return a.outcome;
}

static void clear_sm(struct dsc *d, uint32_t sm)
{
    for (uint32_t set = 0; set < d->sets; set++)
        for (uint32_t f = 0; f < d->frames; f++)
            for (uint32_t e = 0; e < d->k; e++)
                drop(d, sm, set, f, e, UINT32_MAX, true);
}

static void dsc_kernel_end(void *self)
{
    struct dsc *d = self;
    if (!d->ctx.config->l1_invalidate_at_kernel_end)
        return;
    for (uint32_t i = 0; i < d->n; i++)
        clear_sm(d, i);
    gcr_gran_refs_invalidate(d->refs, d->nrefs);
}

static int alloc_sm(struct dsc *d, struct dsc_sm *s, struct gcr_err *err)
{
    size_t frames = (size_t)d->sets * d->frames;
    free(s->tags);
    free(s->owner);
    s->tags = malloc(frames * d->k * sizeof *s->tags);
    s->owner = malloc(frames * d->chunks);
    if (!s->tags || !s->owner)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory for a decoupled sectored L1");
    for (size_t i = 0; i < frames * d->k; i++)
        s->tags[i] = (struct dsc_tag){.line = DSC_NO_LINE};
    memset(s->owner, DSC_NO_OWNER, frames * d->chunks);
    return 0;
}

/* Carve-out: a new frame count per set; the L1s restart empty. */
static int dsc_kernel_begin(void *self, const struct gcr_cache_geometry *l1, struct gcr_err *err)
{
    struct dsc *d = self;
    if (l1->ways == d->frames)
        return 0;
    for (uint32_t i = 0; i < d->n; i++)
        clear_sm(d, i);
    d->frames = l1->ways;
    for (uint32_t i = 0; i < d->n; i++)
        if (alloc_sm(d, &d->sm[i], err) != 0)
            return -1;
    return gcr_gran_refs_resize(d->refs, d->nrefs, l1->ways, err);
}

static void dsc_destroy(void *self)
{
    struct dsc *d = self;
    if (!d)
        return;
    if (d->sm)
        for (uint32_t i = 0; i < d->n; i++) {
            free(d->sm[i].tags);
            free(d->sm[i].owner);
        }
    free(d->sm);
    gcr_gran_tracker_fini(&d->tracker);
    gcr_gran_refs_destroy(d->refs, d->nrefs);
    free(d);
}

static int dsc_create(void **self, const struct gcr_l1org_ctx *ctx, const json_t *options,
                      struct gcr_err *err)
{
    const struct gcr_config *cfg = ctx->config;
    uint64_t k = 2, abits = 32;
    int index = GCR_INDEX_FERMI, wmode = 0;
    struct gcr_opts o;
    gcr_opts_begin(&o, cfg->origin, "$.l1d.dsc", options);
    if (gcr_opts_uint(&o, "tags_per_frame", 1, 8, &k, err) ||
        gcr_opts_enum(&o, "index", GCR_OPTS_NAMES(index_names), &index, err) ||
        gcr_opts_uint(&o, "address_bits", 16, 64, &abits, err) ||
        gcr_opts_enum(&o, "write_evict", GCR_OPTS_NAMES(write_names), &wmode, err))
        return -1;
    const json_t *baselines = gcr_opts_get(&o, "baselines");
    if (gcr_opts_done(&o, err) != 0 || gcr_gran_check_write_policy(cfg, "dsc", err) != 0)
        return -1;
    if (!gcr_is_pow2(k))
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.dsc.tags_per_frame: must be 1, 2, 4 or 8 "
                        "(got %llu)", cfg->origin, (unsigned long long)k);
    if (cfg->granularity != GCR_GRAN_LINE)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.coalescer.granularity: the dsc organisation "
                        "takes requests coalesced per line (\"line\"), got \"%s\"", cfg->origin,
                        gcr_granularity_name(cfg->granularity));
    struct gcr_cache_geometry l1_geo = cfg->l1;
    l1_geo.index = (enum gcr_index_fn)index;
    l1_geo.strip_count = 0;
    char why[200];
    if (gcr_cache_geometry_check(&l1_geo, why, sizeof why) != 0)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.dsc.index: \"%s\" does not fit this L1 "
                        "(%s); choose another index", cfg->origin, index_names[index], why);
    if (!gcr_is_pow2(cfg->l1.sets) ||
        abits <= gcr_bits_log2(cfg->line_bytes) + gcr_bits_log2(cfg->l1.sets))
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.dsc.address_bits: must exceed the line "
                        "offset and set index bits of a power-of-two set count (got %llu)",
                        cfg->origin, (unsigned long long)abits);
    struct dsc *d = calloc(1, sizeof *d);
    if (!d)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    d->ctx = *ctx;
    d->n = cfg->num_sms;
    d->sets = cfg->l1.sets;
    d->frames = cfg->l1.ways;
    d->k = (uint32_t)k;
    d->chunks = cfg->line_bytes / cfg->sector_bytes;
    d->address_bits = (unsigned)abits;
    d->evict_written_only = wmode == 1;
    d->index_fn = (enum gcr_index_fn)index;
    gcr_set_index_init(&d->index, &l1_geo);
    d->sm = calloc(d->n, sizeof *d->sm);
    if (!d->sm) {
        dsc_destroy(d);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < d->n; i++)
        if (alloc_sm(d, &d->sm[i], err) != 0) {
            dsc_destroy(d);
            return -1;
        }
    if (gcr_gran_tracker_init(&d->tracker, d->n, err) != 0 ||
        gcr_gran_refs_create(&d->refs, &d->nrefs, baselines, "dsc", "baselines", cfg, &l1_geo,
                             err) != 0) {
        dsc_destroy(d);
        return -1;
    }
    *self = d;
    return 0;
}

static uint32_t dsc_instances(void *self)
{
    return ((struct dsc *)self)->n;
}

static void dsc_collect_stats(void *self, struct gcr_cache_stats *per_sm)
{
    struct dsc *d = self;
    for (uint32_t i = 0; i < d->n; i++)
        per_sm[i] = d->sm[i].stats;
}


/* Tag storage beyond the sector cache's: k-1 more tag entries per frame (tag,
 * valid bit, replacement state as the baseline's entry) and a log2(k)-bit
 * selector per chunk. */
static int dsc_report(void *self, json_t *section, struct gcr_err *err)
{
    (void)err;
    struct dsc *d = self;
    uint64_t frames = (uint64_t)d->sets * d->frames;
    unsigned tag = d->address_bits - gcr_bits_log2(d->ctx.config->line_bytes) -
                   gcr_bits_log2(d->sets);
    uint64_t entry = tag + 1 + gcr_bits_ceil_log2(d->frames);
    uint64_t extra = frames * (d->k - 1) * entry + frames * d->chunks * gcr_bits_ceil_log2(d->k);
    json_object_set_new(section, "geometry",
                        json_pack("{s:I, s:I, s:I, s:I, s:s}", "sets", (json_int_t)d->sets,
                                  "frames_per_set", (json_int_t)d->frames, "tags_per_frame",
                                  (json_int_t)d->k, "chunks_per_frame", (json_int_t)d->chunks,
                                  "index", index_names[d->index_fn]));
    json_object_set_new(section, "replacement",
                        json_pack("{s:I, s:I, s:I}", "lines_replaced",
                                  (json_int_t)d->lines_replaced, "chunks_displaced",
                                  (json_int_t)d->chunks_displaced, "multi_line_rounds",
                                  (json_int_t)d->multi_line_rounds));
    json_object_set_new(section, "metrics", gcr_gran_json(&d->counts));
    gcr_gran_refs_report(d->refs, d->nrefs, &d->counts, section);
    json_object_set_new(section, "tag_storage",
                        json_pack("{s:I, s:I, s:I, s:f}", "address_bits",
                                  (json_int_t)d->address_bits, "tag_entry_bits",
                                  (json_int_t)entry, "extra_bits_per_l1", (json_int_t)extra,
                                  "overhead_kb_per_l1", (double)extra / 8.0 / 1024.0));
    gcr_gran_summary(section);
    return 0;
}

const struct gcr_l1org_ops gcr_l1org_dsc = {
    .name = "dsc",
    .summary = "decoupled sectored cache DSC-k per SM (k tags per sector frame)",
    .create = dsc_create,
    .access = dsc_access,
    .kernel_begin = dsc_kernel_begin,
    .kernel_end = dsc_kernel_end,
    .num_instances = dsc_instances,
    .collect_stats = dsc_collect_stats,
    .report = dsc_report,
    .destroy = dsc_destroy,
};
