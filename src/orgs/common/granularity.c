/* Figures shared by the fine-grained L1 organisations (see granularity.h). */
#include "orgs/common/granularity.h"
#include "replay/l1org.h"

#include <stdlib.h>
#include <string.h>

int gcr_gran_tracker_init(struct gcr_gran_tracker *t, uint32_t sms, struct gcr_err *err)
{
    t->n = sms;
    t->step_plus1 = calloc(sms, sizeof *t->step_plus1);
    t->missed = calloc(sms, sizeof *t->missed);
    if (!t->step_plus1 || !t->missed) {
        gcr_gran_tracker_fini(t);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    return 0;
}

void gcr_gran_tracker_fini(struct gcr_gran_tracker *t)
{
    free(t->step_plus1);
    free(t->missed);
    t->step_plus1 = NULL;
    t->missed = NULL;
}

void gcr_gran_count(struct gcr_gran_counts *c, struct gcr_gran_tracker *t, uint32_t sm,
                    uint64_t step, bool is_write, bool hit, uint32_t fetched, uint32_t written,
                    uint32_t sector_bytes)
{
    if (t->step_plus1[sm] != step + 1) { /* the first request of an instruction */
        t->step_plus1[sm] = step + 1;
        t->missed[sm] = false;
        c->insns++;
        c->load_insns += !is_write;
    }
    c->requests++;
    if (!hit) {
        c->misses++;
        if (!t->missed[sm]) {
            t->missed[sm] = true;
            c->miss_insns++;
            c->load_miss_insns += !is_write;
        }
    }
    if (fetched) {
        c->l2_reads++;
        c->l1_to_l2_packets++; /* the read request */
        c->l2_to_l1_packets += gcr_gran_packets(fetched, sector_bytes);
    }
    if (written)
        c->l1_to_l2_packets += gcr_gran_packets(written, sector_bytes);
}

json_t *gcr_gran_ratio(uint64_t a, uint64_t b)
{
    return b ? json_real((double)a / (double)b) : json_null();
}

json_t *gcr_gran_json(const struct gcr_gran_counts *c)
{
    return json_pack(
        "{s:I, s:I, s:o, s:I, s:I, s:o, s:I, s:I, s:o, s:I, s:{s:I, s:I}, s:{s:I, s:I, s:o}}",
        "memory_insns", (json_int_t)c->insns, "miss_insns", (json_int_t)c->miss_insns,
        "miss_rate_per_insn", gcr_gran_ratio(c->miss_insns, c->insns),
        "load_insns", (json_int_t)c->load_insns, "load_miss_insns",
        (json_int_t)c->load_miss_insns, "load_miss_rate_per_insn",
        gcr_gran_ratio(c->load_miss_insns, c->load_insns), "requests",
        (json_int_t)c->requests, "misses", (json_int_t)c->misses, "miss_rate",
        gcr_gran_ratio(c->misses, c->requests), "l2_reads", (json_int_t)c->l2_reads,
        "packets", "l1_to_l2", (json_int_t)c->l1_to_l2_packets, "l2_to_l1",
        (json_int_t)c->l2_to_l1_packets, "utilisation", "sectors_left",
        (json_int_t)c->sectors_left, "sectors_used", (json_int_t)c->sectors_used, "used_share",
        gcr_gran_ratio(c->sectors_used, c->sectors_left));
}

/* ---- reference caches ------------------------------------------------------------------ */

static const char *const ref_names[] = {"line32", "line64", "line128", "sector"};

static void refs_free_caches(struct gcr_gran_ref *r)
{
    if (r->l1)
        for (uint32_t i = 0; i < r->n; i++)
            gcr_cache_destroy(r->l1[i]);
    free(r->l1);
    r->l1 = NULL;
}

static int refs_build_caches(struct gcr_gran_ref *r, struct gcr_err *err)
{
    r->l1 = calloc(r->n, sizeof *r->l1);
    if (!r->l1)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < r->n; i++) {
        struct gcr_cache_geometry g = r->geo;
        g.seed = r->geo.seed + i;
        if (!(r->l1[i] = gcr_cache_create(&g, err)))
            return -1;
    }
    return 0;
}

/* The geometry of a reference: the L1's capacity and ways at the reference's
 * line size. The set index is the L1's where it is defined for that geometry
 * (the Fermi hash needs 128-B lines), else linear. */
static int ref_geometry(struct gcr_gran_ref *r, const struct gcr_cache_geometry *l1,
                        uint32_t line_bytes, struct gcr_err *err, const char *origin,
                        const char *where)
{
    uint64_t capacity = (uint64_t)l1->sets * l1->ways * line_bytes;
    struct gcr_cache_geometry g = *l1;
    g.line_bytes = r->unit_bytes;
    g.sector_bytes = r->sector_bytes;
    g.sectored = r->sectored;
    g.write_policy = GCR_WRITE_EVICT;
    g.write_alloc = GCR_WALLOC_NONE;
    g.strip_count = 0;
    g.sets = (uint32_t)(capacity / ((uint64_t)l1->ways * r->unit_bytes));
    char why[200];
    if (gcr_cache_geometry_check(&g, why, sizeof why) != 0) {
        g.index = GCR_INDEX_LINEAR;
        if (gcr_cache_geometry_check(&g, why, sizeof why) != 0)
            return gcr_fail(err, GCR_E_CONFIG, "%s: %s: reference \"%s\" impossible: %s", origin,
                            where, r->name, why);
    }
    r->geo = g;
    return 0;
}

int gcr_gran_refs_create(struct gcr_gran_ref **refs, uint32_t *nrefs, const json_t *value,
                         const char *org, const char *key, const struct gcr_config *cfg,
                         const struct gcr_cache_geometry *l1, struct gcr_err *err)
{
    char where[96];
    snprintf(where, sizeof where, "$.l1d.%s.%s", org, key);
    *refs = NULL;
    *nrefs = 0;
    size_t count = value ? json_array_size(value) : 1;
    if (value && !json_is_array(value))
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s: expected an array of reference names",
                        cfg->origin, where);
    struct gcr_gran_ref *r = calloc(count ? count : 1, sizeof *r);
    if (!r)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        const char *name = value ? json_string_value(json_array_get(value, i)) : "line128";
        size_t k = 0;
        while (name && k < 4 && strcmp(name, ref_names[k]) != 0)
            k++;
        if (!name || k == 4) {
            gcr_gran_refs_destroy(r, (uint32_t)i);
            return gcr_fail(err, GCR_E_CONFIG, "%s: %s[%zu]: expected one of \"line32\", "
                            "\"line64\", \"line128\", \"sector\"", cfg->origin, where, i);
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(r[j].name, name) == 0) {
                gcr_gran_refs_destroy(r, (uint32_t)i);
                return gcr_fail(err, GCR_E_CONFIG, "%s: %s[%zu]: \"%s\" listed twice",
                                cfg->origin, where, i, name);
            }
        struct gcr_gran_ref *x = &r[i];
        snprintf(x->name, sizeof x->name, "%s", name);
        x->n = cfg->num_sms;
        x->unit_bytes = k == 0 ? 32 : k == 1 ? 64 : cfg->line_bytes;
        x->sector_bytes = cfg->sector_bytes;
        x->sectored = k == 3;
        if (x->unit_bytes > cfg->line_bytes || x->unit_bytes < cfg->sector_bytes) {
            gcr_gran_refs_destroy(r, (uint32_t)i);
            return gcr_fail(err, GCR_E_CONFIG, "%s: %s[%zu]: \"%s\" needs a line of at least "
                            "%u B and a sector of at most %u B (coalescer: %u-B lines, %u-B "
                            "sectors)", cfg->origin, where, i, name, x->unit_bytes,
                            x->unit_bytes, cfg->line_bytes, cfg->sector_bytes);
        }
        if (ref_geometry(x, l1, cfg->line_bytes, err, cfg->origin, where) != 0 ||
            gcr_gran_tracker_init(&x->tracker, x->n, err) != 0 ||
            refs_build_caches(x, err) != 0) {
            gcr_gran_refs_destroy(r, (uint32_t)i + 1);
            return -1;
        }
    }
    *refs = r;
    *nrefs = (uint32_t)count;
    return 0;
}

void gcr_gran_refs_destroy(struct gcr_gran_ref *refs, uint32_t nrefs)
{
    if (!refs)
        return;
    for (uint32_t i = 0; i < nrefs; i++) {
        refs_free_caches(&refs[i]);
        gcr_gran_tracker_fini(&refs[i].tracker);
    }
    free(refs);
}

static void count_leaving(struct gcr_gran_counts *c, uint32_t valid, uint32_t used)
{
    c->sectors_left += gcr_bits_popcount32(valid);
    c->sectors_used += gcr_bits_popcount32(used & valid);
}

void gcr_gran_refs_access(struct gcr_gran_ref *refs, uint32_t nrefs, uint32_t sm,
                          uint64_t step, uint64_t line, uint32_t sectors, bool is_write)
{
    for (uint32_t k = 0; k < nrefs; k++) {
        struct gcr_gran_ref *r = &refs[k];
        /* Split at the reference's line size: each piece with a touched sector
         * is one request, as coalescing at that size makes them (ascending). */
        uint32_t per_piece = r->unit_bytes / r->sector_bytes;
        uint32_t piece_mask = per_piece >= 32 ? UINT32_MAX : (1u << per_piece) - 1;
        uint64_t rest = sectors;
        for (uint32_t j = 0; rest; j++, rest >>= per_piece) {
            uint32_t m = (uint32_t)rest & piece_mask;
            if (!m)
                continue;
            struct gcr_access a;
            gcr_cache_access(r->l1[sm], line + (uint64_t)j * r->unit_bytes, m, is_write, &a);
            if (a.evicted || a.invalidated)
                count_leaving(&r->counts, a.victim_valid, a.victim_used);
            gcr_gran_count(&r->counts, &r->tracker, sm, step, is_write, a.outcome == GCR_HIT,
                           a.fetch_mask, a.forward_mask, r->sector_bytes);
        }
    }
}

static void leaving_line(void *ctx, const struct gcr_line_state *line)
{
    count_leaving(ctx, line->valid, line->used);
}

void gcr_gran_refs_invalidate(struct gcr_gran_ref *refs, uint32_t nrefs)
{
    for (uint32_t k = 0; k < nrefs; k++)
        for (uint32_t i = 0; i < refs[k].n; i++) {
            gcr_cache_for_each_line(refs[k].l1[i], leaving_line, &refs[k].counts);
            gcr_cache_invalidate_all(refs[k].l1[i], NULL, NULL);
        }
}

int gcr_gran_refs_resize(struct gcr_gran_ref *refs, uint32_t nrefs, uint32_t ways,
                         struct gcr_err *err)
{
    for (uint32_t k = 0; k < nrefs; k++) {
        struct gcr_gran_ref *r = &refs[k];
        if (r->geo.ways == ways)
            continue;
        for (uint32_t i = 0; i < r->n; i++)
            gcr_cache_for_each_line(r->l1[i], leaving_line, &r->counts);
        refs_free_caches(r);
        r->geo.ways = ways;
        if (refs_build_caches(r, err) != 0)
            return -1;
    }
    return 0;
}

const struct gcr_gran_ref *gcr_gran_refs_find(const struct gcr_gran_ref *refs, uint32_t nrefs,
                                              const char *name)
{
    for (uint32_t k = 0; k < nrefs; k++)
        if (strcmp(refs[k].name, name) == 0)
            return &refs[k];
    return NULL;
}

void gcr_gran_refs_report(const struct gcr_gran_ref *refs, uint32_t nrefs,
                          const struct gcr_gran_counts *own, json_t *section)
{
    json_t *all = json_object();
    for (uint32_t k = 0; k < nrefs; k++) {
        json_t *o = gcr_gran_json(&refs[k].counts);
        json_object_set_new(o, "line_bytes", json_integer(refs[k].unit_bytes));
        json_object_set_new(o, "sectored", json_boolean(refs[k].sectored));
        json_object_set_new(o, "sets", json_integer(refs[k].geo.sets));
        json_object_set_new(o, "index", json_string(gcr_index_name(refs[k].geo.index)));
        json_object_set_new(all, refs[k].name, o);
    }
    json_object_set_new(section, "references", all);
    const struct gcr_gran_ref *b = gcr_gran_refs_find(refs, nrefs, "line128");
    if (!b)
        return;
    const struct gcr_gran_counts *bc = &b->counts;
    json_object_set_new(
        section, "normalised",
        json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "to", "references.line128",
                  "misses", gcr_gran_ratio(own->misses, bc->misses), "miss_insns",
                  gcr_gran_ratio(own->miss_insns, bc->miss_insns), "l1_to_l2_packets",
                  gcr_gran_ratio(own->l1_to_l2_packets, bc->l1_to_l2_packets),
                  "l2_to_l1_packets", gcr_gran_ratio(own->l2_to_l1_packets,
                                                     bc->l2_to_l1_packets),
                  "requests", gcr_gran_ratio(own->requests, bc->requests)));
}

/* section.a.b (section.a when b is NULL) copied, or JSON null when absent. */
static json_t *figure(const json_t *section, const char *a, const char *b)
{
    const json_t *x = json_object_get(section, a);
    if (b)
        x = json_object_get(x, b);
    return json_is_number(x) ? json_copy((json_t *)x) : json_null();
}

void gcr_gran_summary(json_t *section)
{
    const json_t *refs = json_object_get(section, "references");
    json_t *s = json_object();
    json_object_set_new(s, "miss_insn_rate", figure(section, "metrics", "miss_rate_per_insn"));
    json_object_set_new(s, "line128_miss_insn_rate",
                        figure(json_object_get(refs, "line128"), "miss_rate_per_insn", NULL));
    json_object_set_new(s, "l1_to_l2_packets_vs_line128",
                        figure(section, "normalised", "l1_to_l2_packets"));
    json_object_set_new(s, "l2_to_l1_packets_vs_line128",
                        figure(section, "normalised", "l2_to_l1_packets"));
    json_object_set_new(s, "tag_storage_kb", figure(section, "tag_storage", "overhead_kb_per_l1"));
    json_object_set_new(section, "summary", s);
}

int gcr_gran_check_write_policy(const struct gcr_config *cfg, const char *org,
                                struct gcr_err *err)
{
    if (cfg->l1.write_policy == GCR_WRITE_EVICT)
        return 0;
    return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.write_policy: the %s organisation "
                    "write-evicts every store without allocating ($.l1d.%s.write_evict says "
                    "what a store removes); \"%s\" is not modelled: set \"write_evict\" or "
                    "leave the key out", cfg->origin, org, org,
                    gcr_write_policy_name(cfg->l1.write_policy));
}
