/* The tag-split storage of one L1 (see chunk_store.h). */
#include "orgs/tsc/chunk_store.h"

#include <stdlib.h>
#include <string.h>

#include "core/bits.h"

int tsc_store_init(struct tsc_store *s, const struct tsc_geometry *g, struct gcr_err *err)
{
    memset(s, 0, sizeof *s);
    s->geo = *g;
    s->slots = g->groups * g->chunks;
    s->tag_shift = gcr_bits_log2(g->line_bytes) + gcr_bits_log2(g->sets);
    struct gcr_cache_geometry cg = {.sets = g->sets, .ways = g->groups,
                                    .line_bytes = g->line_bytes, .sector_bytes = g->line_bytes,
                                    .index = g->index};
    gcr_set_index_init(&s->index, &cg);
    s->rng = g->seed;
    size_t n = (size_t)g->sets * s->slots, ng = (size_t)g->sets * g->groups;
    s->line = malloc(n * sizeof *s->line);
    s->pos = calloc(n, 1);
    s->nru = calloc(n, 1);
    s->used = calloc(n, 1);
    s->reused = calloc(n, 1);
    s->gtag = malloc(ng * sizeof *s->gtag);
    s->gcount = calloc(ng, sizeof *s->gcount);
    s->valid_count = calloc(g->sets, sizeof *s->valid_count);
    s->nru_count = calloc(g->sets, sizeof *s->nru_count);
    s->avail = calloc(s->slots, sizeof *s->avail);
    s->victims = calloc(s->slots, sizeof *s->victims);
    s->candidates = calloc(2 * (size_t)s->slots, sizeof *s->candidates);
    if (!s->line || !s->pos || !s->nru || !s->used || !s->reused || !s->gtag || !s->gcount ||
        !s->valid_count || !s->nru_count || !s->avail || !s->victims || !s->candidates) {
        tsc_store_fini(s);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory for a tag-split L1");
    }
    for (size_t i = 0; i < n; i++)
        s->line[i] = TSC_NO_LINE;
    for (size_t i = 0; i < ng; i++)
        s->gtag[i] = TSC_NO_LINE;
    return 0;
}

void tsc_store_fini(struct tsc_store *s)
{
    free(s->line);
    free(s->pos);
    free(s->nru);
    free(s->used);
    free(s->reused);
    free(s->gtag);
    free(s->gcount);
    free(s->valid_count);
    free(s->nru_count);
    free(s->avail);
    free(s->victims);
    free(s->candidates);
    memset(s, 0, sizeof *s);
}

static inline uint64_t shared_tag(const struct tsc_store *s, uint64_t line)
{
    uint64_t tag = line >> s->tag_shift;
    return s->geo.private_bits >= 64 ? 0 : tag >> s->geo.private_bits;
}

uint32_t tsc_store_lookup(const struct tsc_store *s, uint32_t set, uint64_t line)
{
    const uint64_t *l = s->line + (size_t)set * s->slots;
    const uint8_t *p = s->pos + (size_t)set * s->slots;
    uint32_t mask = 0;
    for (uint32_t i = 0; i < s->slots; i++)
        mask |= (uint32_t)(l[i] == line) << p[i];
    return mask;
}

/* NRU as the set-associative cache does it (src/cache): a referenced chunk's
 * bit is set; when every valid chunk of the set is referenced, the bits are
 * cleared except those of the chunks this access referenced. */
static void nru_age(struct tsc_store *s, uint32_t set, uint64_t line, uint32_t mask)
{
    if (s->nru_count[set] < s->valid_count[set])
        return;
    size_t base = (size_t)set * s->slots;
    uint32_t count = 0;
    for (uint32_t i = 0; i < s->slots; i++) {
        bool keep = s->line[base + i] == line && (mask >> s->pos[base + i] & 1);
        s->nru[base + i] = keep;
        count += keep;
    }
    s->nru_count[set] = count;
}

static void reference(struct tsc_store *s, size_t slot, uint32_t set)
{
    if (!s->nru[slot]) {
        s->nru[slot] = 1;
        s->nru_count[set]++;
    }
}

void tsc_store_touch(struct tsc_store *s, uint32_t set, uint64_t line, uint32_t hit)
{
    if (!hit)
        return;
    size_t base = (size_t)set * s->slots;
    for (uint32_t i = 0; i < s->slots; i++)
        if (s->line[base + i] == line && (hit >> s->pos[base + i] & 1)) {
            reference(s, base + i, set);
            s->used[base + i] = 1;
            s->reused[base + i] = 1;
        }
    nru_age(s, set, line, hit);
}

/* Invalidates one valid slot, recording the chunk in victims[0..*nv). */
static void drop_slot(struct tsc_store *s, uint32_t set, uint32_t i, struct tsc_victim *victims,
                      uint32_t *nv)
{
    size_t k = (size_t)set * s->slots + i;
    uint64_t line = s->line[k];
    uint32_t v = 0;
    while (v < *nv && victims[v].line != line)
        v++;
    if (v == *nv)
        victims[(*nv)++] = (struct tsc_victim){.line = line};
    uint32_t bit = 1u << s->pos[k];
    victims[v].chunks |= bit;
    victims[v].used |= s->used[k] ? bit : 0;
    victims[v].reused |= s->reused[k] ? bit : 0;
    if (s->nru[k])
        s->nru_count[set]--;
    s->valid_count[set]--;
    s->gcount[(size_t)set * s->geo.groups + i / s->geo.chunks]--;
    s->line[k] = TSC_NO_LINE;
    s->nru[k] = s->used[k] = s->reused[k] = 0;
}

/* A replacement victim: a random valid chunk with its NRU bit clear, else a
 * random referenced one; never a chunk of `line`. One pass lists both kinds. */
static uint32_t pick_victim(struct tsc_store *s, uint32_t set, uint64_t line)
{
    size_t base = (size_t)set * s->slots;
    uint16_t *clear = s->candidates, *referenced = s->candidates + s->slots;
    uint32_t nclear = 0, nref = 0;
    for (uint32_t i = 0; i < s->slots; i++) {
        uint64_t l = s->line[base + i];
        if (l == TSC_NO_LINE || l == line)
            continue;
        if (s->nru[base + i])
            referenced[nref++] = (uint16_t)i;
        else
            clear[nclear++] = (uint16_t)i;
    }
    if (nclear)
        return clear[gcr_splitmix64_next(&s->rng) % nclear];
    /* The caller leaves some to choose from. */
    return referenced[gcr_splitmix64_next(&s->rng) % nref];
}

uint32_t tsc_store_allocate(struct tsc_store *s, uint32_t set, uint64_t line, uint32_t missing,
                            uint32_t requested)
{
    const uint32_t C = s->geo.chunks, G = s->geo.groups;
    size_t base = (size_t)set * s->slots, gbase = (size_t)set * G;
    uint64_t sh = shared_tag(s, line);
    uint32_t need = gcr_bits_popcount32(missing), navail = 0, nv = 0;

    /* Step 1: free slots that need no retagging: groups of this shared tag
     * first (so with no private tag a line stays in one group, as in a sector
     * cache), then empty groups. */
    for (int pass = 0; pass < 2 && navail < need; pass++)
        for (uint32_t g = 0; g < G; g++) {
            bool take = pass == 0 ? s->gcount[gbase + g] && s->gtag[gbase + g] == sh
                                  : s->gcount[gbase + g] == 0;
            if (take)
                for (uint32_t c = 0; c < C; c++)
                    if (s->line[base + g * C + c] == TSC_NO_LINE)
                        s->avail[navail++] = g * C + c;
        }

    /* Step 2: NRU victims until enough slots are free; all of them are
     * invalidated at once (write-evict L1: nothing to write back). */
    if (navail < need)
        s->replacements++;
    while (navail < need) {
        uint32_t v = pick_victim(s, set, line), g = v / C;
        if (s->gtag[gbase + g] == sh) {
            drop_slot(s, set, v, s->victims, &nv);
            s->chunks_replaced++;
            s->avail[navail++] = v;
        } else {
            /* Another shared tag: the whole group goes, so it can take ours. */
            s->group_flushes++;
            for (uint32_t c = 0; c < C; c++) {
                if (s->line[base + g * C + c] != TSC_NO_LINE) {
                    drop_slot(s, set, g * C + c, s->victims, &nv);
                    s->chunks_replaced++;
                }
                s->avail[navail++] = g * C + c;
            }
        }
    }
    if (nv > 1)
        s->multi_line_replacements++;

    /* Fill: the chunks in ascending position, into the free slots in order. */
    uint32_t k = 0;
    for (uint32_t rest = missing; rest; rest &= rest - 1) {
        uint32_t p = gcr_bits_ctz32(rest), i = s->avail[k++], g = i / C;
        size_t slot = base + i;
        if (s->gcount[gbase + g] == 0 && s->gtag[gbase + g] != sh) {
            if (s->gtag[gbase + g] != TSC_NO_LINE)
                s->group_retags++;
            s->gtag[gbase + g] = sh;
        }
        s->gcount[gbase + g]++;
        s->valid_count[set]++;
        s->line[slot] = line;
        s->pos[slot] = (uint8_t)p;
        s->used[slot] = (uint8_t)(requested >> p & 1);
        s->reused[slot] = 0;
        reference(s, slot, set); /* a fill is a reference */
    }
    nru_age(s, set, line, missing);
    return nv;
}

uint32_t tsc_store_invalidate(struct tsc_store *s, uint32_t set, uint64_t line, uint32_t mask,
                              struct tsc_victim *out)
{
    size_t base = (size_t)set * s->slots;
    uint32_t nv = 0, removed = 0;
    *out = (struct tsc_victim){.line = line};
    for (uint32_t i = 0; i < s->slots; i++)
        if (s->line[base + i] == line && (mask >> s->pos[base + i] & 1)) {
            drop_slot(s, set, i, out, &nv);
            removed++;
        }
    return removed;
}

void tsc_store_clear(struct tsc_store *s, void (*fn)(void *ctx, const struct tsc_victim *v),
                     void *ctx)
{
    for (uint32_t set = 0; set < s->geo.sets; set++) {
        if (!s->valid_count[set])
            continue;
        uint32_t nv = 0;
        size_t base = (size_t)set * s->slots;
        for (uint32_t i = 0; i < s->slots; i++)
            if (s->line[base + i] != TSC_NO_LINE)
                drop_slot(s, set, i, s->victims, &nv);
        if (fn)
            for (uint32_t v = 0; v < nv; v++)
                fn(ctx, &s->victims[v]);
    }
}
