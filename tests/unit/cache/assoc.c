/* High associativity and odd geometries against a naive reference model.
 *
 * The reference scans every way of a set and keeps replacement state as
 * timestamps (LRU, FIFO) or plain flags (NRU), written from the model's rules
 * without the hash table, lists or bitmaps. Every access's outcome and masks,
 * every victim and every flush callback must agree. */
#include "check.h"
#include "gcreplay/cache.h"

struct ref_way {
    bool valid;
    bool referenced; /* NRU */
    uint64_t tag;
    uint32_t sectors, dirty, used;
    uint64_t last_use, filled_at; /* LRU, FIFO */
};

struct ref {
    struct gcr_cache_geometry g;
    struct ref_way *ways;
    uint32_t full;
    uint64_t clock;
    uint64_t evictions, written_back, fetched, forwarded, invalidations;
};

static unsigned pop(uint32_t x)
{
    unsigned n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

static struct ref_way *ref_set(struct ref *r, uint32_t set) { return &r->ways[set * r->g.ways]; }

static void ref_reference(struct ref *r, struct ref_way *set, uint32_t way)
{
    set[way].last_use = ++r->clock;
    if (r->g.repl != GCR_REPL_NRU)
        return;
    set[way].referenced = true;
    for (uint32_t w = 0; w < r->g.ways; w++)
        if (set[w].valid && !set[w].referenced)
            return;
    for (uint32_t w = 0; w < r->g.ways; w++)
        set[w].referenced = w == way;
}

static void ref_drop(struct ref_way *w)
{
    w->valid = false;
    w->referenced = false;
}

static struct ref_way *ref_find(struct ref *r, uint64_t line)
{
    struct ref_way *set = ref_set(r, gcr_cache_set_of(&r->g, line));
    for (uint32_t w = 0; w < r->g.ways; w++)
        if (set[w].valid && set[w].tag == line)
            return &set[w];
    return NULL;
}

static struct ref_way *ref_allocate(struct ref *r, uint64_t line, struct gcr_access *o)
{
    struct ref_way *set = ref_set(r, gcr_cache_set_of(&r->g, line));
    uint32_t way = r->g.ways;
    for (uint32_t w = 0; w < r->g.ways && way == r->g.ways; w++)
        if (!set[w].valid)
            way = w;
    if (way == r->g.ways) {
        way = 0;
        for (uint32_t w = 1; w < r->g.ways; w++) {
            if (r->g.repl == GCR_REPL_LRU && set[w].last_use < set[way].last_use)
                way = w;
            if (r->g.repl == GCR_REPL_FIFO && set[w].filled_at < set[way].filled_at)
                way = w;
        }
        if (r->g.repl == GCR_REPL_NRU) {
            for (way = 0; way < r->g.ways && set[way].referenced; way++)
                ;
            if (way == r->g.ways)
                way = 0;
        }
        o->evicted = true;
        o->victim_line = set[way].tag;
        o->victim_valid = set[way].sectors;
        o->victim_dirty = set[way].dirty;
        o->victim_used = set[way].used;
        r->evictions++;
        r->written_back += pop(set[way].dirty);
        ref_drop(&set[way]);
    }
    struct ref_way *l = &set[way];
    *l = (struct ref_way){.valid = true, .tag = line, .filled_at = ++r->clock};
    ref_reference(r, set, way);
    return l;
}

static void ref_access(struct ref *r, uint64_t line, uint32_t mask, bool write,
                       struct gcr_access *o)
{
    *o = (struct gcr_access){0};
    struct ref_way *l = ref_find(r, line);
    struct ref_way *set = ref_set(r, gcr_cache_set_of(&r->g, line));
    o->outcome = !l ? GCR_MISS_LINE : (mask & ~l->sectors) ? GCR_MISS_SECTOR : GCR_HIT;
    bool sectored = r->g.sectored;
    if (!write) {
        if (l) {
            if (mask & ~l->sectors)
                o->fetch_mask = sectored ? mask & ~l->sectors : r->full & ~l->sectors;
            l->sectors |= o->fetch_mask;
            l->used |= mask;
            if (r->g.repl != GCR_REPL_FIFO)
                ref_reference(r, set, (uint32_t)(l - set));
        } else {
            l = ref_allocate(r, line, o);
            o->fetch_mask = sectored ? mask : r->full;
            l->sectors = o->fetch_mask;
            l->used = mask;
        }
    } else if (r->g.write_policy == GCR_WRITE_EVICT) {
        o->forward_mask = mask;
        if (l) {
            o->invalidated = true;
            o->victim_line = l->tag;
            o->victim_valid = l->sectors;
            o->victim_dirty = l->dirty;
            o->victim_used = l->used | mask;
            r->invalidations++;
            ref_drop(l);
        }
    } else {
        bool wb = r->g.write_policy == GCR_WRITE_BACK;
        if (!wb)
            o->forward_mask = mask;
        if (l) {
            l->sectors |= mask;
            if (wb)
                l->dirty |= mask;
            l->used |= mask;
            if (r->g.repl != GCR_REPL_FIFO)
                ref_reference(r, set, (uint32_t)(l - set));
        } else if (r->g.write_alloc == GCR_WALLOC_NONE) {
            o->forward_mask = mask;
        } else {
            l = ref_allocate(r, line, o);
            if (r->g.write_alloc == GCR_WALLOC_FETCH)
                o->fetch_mask = sectored ? mask : r->full;
            l->sectors = o->fetch_mask | mask;
            l->dirty = wb ? mask : 0;
            l->used = mask;
        }
    }
    r->fetched += pop(o->fetch_mask);
    r->forwarded += pop(o->forward_mask);
}

struct flush_log {
    uint64_t n;
    uint64_t hash;
};

static void log_dirty(void *ctx, uint64_t line, uint32_t dirty)
{
    struct flush_log *f = ctx;
    f->n++;
    f->hash = (f->hash ^ line ^ ((uint64_t)dirty << 40)) * 0x100000001b3ull;
}

static void ref_flush(struct ref *r, struct flush_log *f)
{
    /* Same order as the model: by set, then by way. */
    for (uint32_t i = 0; i < r->g.sets * r->g.ways; i++) {
        struct ref_way *w = &r->ways[i];
        if (!w->valid)
            continue;
        if (w->dirty) {
            r->written_back += pop(w->dirty);
            log_dirty(f, w->tag, w->dirty);
        }
        r->invalidations++;
        ref_drop(w);
    }
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void compare(const struct gcr_cache_geometry *g, int steps, uint64_t footprint_lines)
{
    struct gcr_err err;
    struct gcr_cache *c = gcr_cache_create(g, &err);
    CHECK(c != NULL);
    if (!c) {
        fprintf(stderr, "create: %s\n", err.msg);
        return;
    }
    struct ref r = {.g = *g};
    r.ways = calloc((size_t)g->sets * g->ways, sizeof *r.ways);
    uint32_t sectors = g->line_bytes / g->sector_bytes;
    r.full = sectors == 32 ? UINT32_MAX : (1u << sectors) - 1;
    int mismatches = 0;
    for (int s = 0; s < steps && mismatches < 5; s++) {
        uint64_t x = rnd();
        /* Skewed footprint: half the accesses go to a hot eighth of the lines. */
        uint64_t span = (x & 1) ? footprint_lines / 8 : footprint_lines;
        uint64_t line = ((x >> 8) % span) * g->line_bytes + (UINT64_C(1) << 32);
        uint32_t mask = (uint32_t)(x >> 40) & r.full;
        if (!mask)
            mask = 1;
        bool write = ((x >> 4) & 3) == 0;
        if (((x >> 20) & 0xfff) == 0) {
            struct flush_log fa = {0}, fb = {0};
            gcr_cache_invalidate_all(c, log_dirty, &fa);
            ref_flush(&r, &fb);
            CHECK_EQ_U(fa.n, fb.n);
            CHECK_EQ_U(fa.hash, fb.hash);
            continue;
        }
        struct gcr_access a, b;
        gcr_cache_access(c, line, mask, write, &a);
        ref_access(&r, line, mask, write, &b);
        bool same = a.outcome == b.outcome && a.fetch_mask == b.fetch_mask &&
                    a.forward_mask == b.forward_mask && a.invalidated == b.invalidated &&
                    a.evicted == b.evicted;
        if (a.evicted || a.invalidated)
            same = same && a.victim_line == b.victim_line && a.victim_valid == b.victim_valid &&
                   a.victim_dirty == b.victim_dirty && a.victim_used == b.victim_used;
        if (!same) {
            mismatches++;
            fprintf(stderr,
                    "%ux%u %s step %d line %#llx mask %#x %s: outcome %d/%d fetch %#x/%#x "
                    "fwd %#x/%#x evicted %d/%d victim %#llx/%#llx\n",
                    g->sets, g->ways, gcr_repl_name(g->repl), s, (unsigned long long)line, mask,
                    write ? "write" : "read", a.outcome, b.outcome, a.fetch_mask, b.fetch_mask,
                    a.forward_mask, b.forward_mask, a.evicted, b.evicted,
                    (unsigned long long)a.victim_line, (unsigned long long)b.victim_line);
        }
    }
    CHECK_EQ_U(mismatches, 0);
    const struct gcr_cache_stats *st = gcr_cache_stats(c);
    CHECK_EQ_U(st->evictions, r.evictions);
    CHECK_EQ_U(st->sectors_written_back, r.written_back);
    CHECK_EQ_U(st->sectors_fetched, r.fetched);
    CHECK_EQ_U(st->sectors_forwarded, r.forwarded);
    CHECK_EQ_U(st->invalidations, r.invalidations);
    CHECK(st->evictions > 0);
    CHECK(st->outcomes[0][GCR_HIT] > 0);
    free(r.ways);
    gcr_cache_destroy(c);
}

int main(void)
{
    struct gcr_cache_geometry g = {
        .sets = 4, .ways = 256, .line_bytes = 128, .sector_bytes = 32, .sectored = true,
        .repl = GCR_REPL_LRU, .index = GCR_INDEX_LINEAR, .write_policy = GCR_WRITE_BACK,
        .write_alloc = GCR_WALLOC_VALIDATE};
    /* The Volta-like L1: 4 x 256, LRU; footprint 1.5x the capacity. */
    compare(&g, 300000, 1536);
    g.write_policy = GCR_WRITE_EVICT;
    g.write_alloc = GCR_WALLOC_NONE;
    compare(&g, 200000, 1536);
    /* Same with NRU and FIFO. */
    g.repl = GCR_REPL_NRU;
    compare(&g, 200000, 1536);
    g.repl = GCR_REPL_FIFO;
    g.write_policy = GCR_WRITE_THROUGH;
    g.write_alloc = GCR_WALLOC_FETCH;
    compare(&g, 200000, 1536);
    /* Non-power-of-two sets and ways, non-sectored. */
    struct gcr_cache_geometry h = {
        .sets = 3, .ways = 24, .line_bytes = 64, .sector_bytes = 16, .sectored = false,
        .repl = GCR_REPL_LRU, .index = GCR_INDEX_LINEAR, .write_policy = GCR_WRITE_BACK,
        .write_alloc = GCR_WALLOC_FETCH};
    compare(&h, 100000, 150);
    h.repl = GCR_REPL_NRU;
    compare(&h, 100000, 150);
    /* One set of 1000 ways: multi-word bitmaps with padding. */
    struct gcr_cache_geometry k = {
        .sets = 1, .ways = 1000, .line_bytes = 32, .sector_bytes = 32, .sectored = true,
        .repl = GCR_REPL_LRU, .index = GCR_INDEX_LINEAR, .write_policy = GCR_WRITE_BACK,
        .write_alloc = GCR_WALLOC_VALIDATE};
    compare(&k, 100000, 1300);
    k.repl = GCR_REPL_NRU;
    compare(&k, 100000, 1300);
    k.repl = GCR_REPL_FIFO;
    compare(&k, 100000, 1300);
    /* Hashed indices: 32 x 70 ipoly with 256-byte lines of 8 sectors, 64 x 3 xor,
     * 32 x 8 fermi, each with L2-like strip removal. */
    struct gcr_cache_geometry m = {
        .sets = 32, .ways = 70, .line_bytes = 256, .sector_bytes = 32, .sectored = true,
        .repl = GCR_REPL_LRU, .index = GCR_INDEX_IPOLY, .write_policy = GCR_WRITE_BACK,
        .write_alloc = GCR_WALLOC_VALIDATE, .strip_bytes = 512, .strip_count = 6};
    compare(&m, 200000, 3000);
    m.sets = 64; m.ways = 3; m.index = GCR_INDEX_XOR; m.repl = GCR_REPL_NRU;
    compare(&m, 100000, 300);
    m.sets = 32; m.ways = 8; m.index = GCR_INDEX_FERMI; m.line_bytes = 128; m.repl = GCR_REPL_LRU;
    m.write_policy = GCR_WRITE_THROUGH; m.write_alloc = GCR_WALLOC_VALIDATE;
    compare(&m, 100000, 400);
    CHECK_DONE();
}
