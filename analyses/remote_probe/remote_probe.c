/* Remote-core probing oracle (README.md in this folder defines every figure).
 *
 * On each L1 read miss, which other L1 instances of the requester's probe
 * group hold the line, and what each configured IP(C,S,P) probe policy (seed
 * 000, Ch. 3) would have found and sent over the network to find it.
 * Residency is rebuilt from L1_ACCESS and L1_EVICT events only, so any L1
 * organisation works: a table keyed by line holds the set of instances
 * holding it (a bitset of ceil(num_l1s/64) words per slot, in a parallel
 * array), and a line leaves the table when its last holder lets it go. */
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "gcreplay/analysis.h"
#include "gcreplay/options.h"

#define MAX_PROBES 32 /* S: probes per miss */

enum selector { SELECT_INDEX, SELECT_RANDOM };

/* One IP(C,S,P) policy and its random stream. */
struct policy {
    uint32_t targets;    /* C: target cores searched per miss (clamped to the group) */
    uint32_t probes;     /* S: probes per miss with probability P, else S - 1 */
    double p;            /* P */
    enum selector selector;
    uint64_t rng;        /* splitmix64 state */
};

/* What one policy did over a period. */
struct policy_counts {
    uint64_t probes_sent;   /* probes that left the requester */
    uint64_t visits;        /* targets a probe reached (one probe message each) */
    uint64_t probe_hits;    /* probes that found a holder (each brings a data reply) */
    uint64_t nacks;         /* probes that found none (each brings a NACK back) */
    uint64_t remote_hits;   /* misses at least one probe served */
    uint64_t unprobed;      /* misses for which the policy sent no probe */
    uint64_t reply_data_bytes;
    uint64_t hits_by_probe[MAX_PROBES];
};

struct period {
    uint64_t read_misses;
    uint64_t oracle_hits; /* another instance of the group held the line */
    struct policy_counts *pol;
};

/* Residency: line -> holders. */
struct holders {
    uint64_t *keys;    /* line_addr | 1; 0 = empty */
    uint32_t *count;   /* instances holding the line */
    uint64_t *bits;    /* slot i owns bits[i*words .. (i+1)*words) */
    size_t cap, used;  /* cap is a power of two, load at most 1/2 */
    unsigned shift;
    uint32_t words;
};

struct remote_probe {
    uint32_t num_l1s, group_size;
    uint32_t probe_bytes, nack_bytes, reply_header_bytes;
    bool reply_whole_line;
    uint32_t line_bytes, sector_bytes;
    struct policy *policies;
    uint32_t npolicies;
    uint32_t *order; /* scratch: one miss's targets in search order */
    struct holders h;
    struct period kernel, total;
    bool failed; /* out of memory while growing the table: figures incomplete */
};

/* ------------------------------------------------------------- residency */

static size_t home_of(const struct holders *h, uint64_t key)
{
    return (size_t)(gcr_hash_splitmix64(key) >> h->shift);
}

static int holders_alloc(struct holders *h, size_t cap)
{
    h->keys = calloc(cap, sizeof *h->keys);
    h->count = calloc(cap, sizeof *h->count);
    h->bits = calloc(cap * h->words, sizeof *h->bits);
    if (!h->keys || !h->count || !h->bits) {
        free(h->keys);
        free(h->count);
        free(h->bits);
        return -1;
    }
    h->cap = cap;
    h->used = 0;
    h->shift = 64u - gcr_bits_log2(cap);
    return 0;
}

static size_t holders_find(const struct holders *h, uint64_t line)
{
    uint64_t key = line | 1u;
    for (size_t i = home_of(h, key);; i = (i + 1) & (h->cap - 1)) {
        if (h->keys[i] == key)
            return i;
        if (!h->keys[i])
            return SIZE_MAX;
    }
}

static void move_slot(struct holders *h, size_t to, size_t from)
{
    h->keys[to] = h->keys[from];
    h->count[to] = h->count[from];
    memcpy(h->bits + to * h->words, h->bits + from * h->words, h->words * sizeof *h->bits);
}

static int holders_grow(struct holders *h)
{
    struct holders old = *h;
    if (holders_alloc(h, old.cap * 2) != 0) {
        *h = old;
        return -1;
    }
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.keys[i])
            continue;
        size_t j = home_of(h, old.keys[i]);
        while (h->keys[j])
            j = (j + 1) & (h->cap - 1);
        h->keys[j] = old.keys[i];
        h->count[j] = old.count[i];
        memcpy(h->bits + j * h->words, old.bits + i * h->words, h->words * sizeof *h->bits);
        h->used++;
    }
    free(old.keys);
    free(old.count);
    free(old.bits);
    return 0;
}

/* Slot of the line, inserted empty if absent; SIZE_MAX if the table cannot grow. */
static size_t holders_get(struct holders *h, uint64_t line)
{
    size_t i = holders_find(h, line);
    if (i != SIZE_MAX)
        return i;
    if ((h->used + 1) * 2 > h->cap && holders_grow(h) != 0)
        return SIZE_MAX;
    uint64_t key = line | 1u;
    for (i = home_of(h, key); h->keys[i]; i = (i + 1) & (h->cap - 1))
        ;
    h->keys[i] = key;
    h->count[i] = 0;
    memset(h->bits + i * h->words, 0, h->words * sizeof *h->bits);
    h->used++;
    return i;
}

/* Removes slot i by backward shift (no tombstones). */
static void holders_remove(struct holders *h, size_t i)
{
    size_t mask = h->cap - 1;
    h->used--;
    for (size_t j = (i + 1) & mask; h->keys[j]; j = (j + 1) & mask) {
        size_t home = home_of(h, h->keys[j]);
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            move_slot(h, i, j);
            i = j;
        }
    }
    h->keys[i] = 0;
}

static bool holds(const struct holders *h, size_t slot, uint32_t unit)
{
    return (h->bits[slot * h->words + (unit >> 6)] >> (unit & 63)) & 1u;
}

static void set_holder(struct remote_probe *rp, uint64_t line, uint32_t unit)
{
    size_t i = holders_get(&rp->h, line);
    if (i == SIZE_MAX) {
        rp->failed = true;
        return;
    }
    if (!holds(&rp->h, i, unit)) {
        rp->h.bits[i * rp->h.words + (unit >> 6)] |= 1ull << (unit & 63);
        rp->h.count[i]++;
    }
}

static void clear_holder(struct remote_probe *rp, uint64_t line, uint32_t unit)
{
    size_t i = holders_find(&rp->h, line);
    if (i == SIZE_MAX || !holds(&rp->h, i, unit))
        return;
    rp->h.bits[i * rp->h.words + (unit >> 6)] &= ~(1ull << (unit & 63));
    if (--rp->h.count[i] == 0)
        holders_remove(&rp->h, i);
}

/* ---------------------------------------------------------------- probing */

/* The targets of one miss in search order: the first C other members of the
 * group after the requester in ring order (index), or C of them drawn without
 * replacement (random). Returns how many. */
static uint32_t choose_targets(struct remote_probe *rp, struct policy *pol, uint32_t unit,
                               uint32_t first, uint32_t members)
{
    uint32_t others = members - 1, c = pol->targets < others ? pol->targets : others;
    for (uint32_t i = 0; i < others; i++)
        rp->order[i] = first + (unit - first + 1 + i) % members;
    if (pol->selector == SELECT_RANDOM)
        for (uint32_t i = 0; i < c; i++) { /* partial Fisher-Yates */
            uint64_t r = gcr_splitmix64_next(&pol->rng);
            uint32_t j = i + (uint32_t)(((r >> 32) * (others - i)) >> 32);
            uint32_t t = rp->order[i];
            rp->order[i] = rp->order[j];
            rp->order[j] = t;
        }
    return c;
}

/* One read miss at instance unit under one policy. slot: the line's holders
 * (SIZE_MAX if nobody holds it). */
static void probe_miss(struct remote_probe *rp, uint32_t p, uint32_t unit, uint32_t first,
                       uint32_t members, size_t slot, uint32_t reply_data)
{
    struct policy *pol = &rp->policies[p];
    uint32_t k = pol->probes;
    /* S probes with probability P, else S - 1. */
    if (pol->p < 1.0 && (double)(gcr_splitmix64_next(&pol->rng) >> 11) * 0x1p-53 >= pol->p)
        k--;
    uint32_t c = choose_targets(rp, pol, unit, first, members);
    if (k > c)
        k = c; /* a probe with no target is not sent */
    struct policy_counts *pc[2] = {&rp->kernel.pol[p], &rp->total.pol[p]};
    if (k == 0) {
        for (int q = 0; q < 2; q++)
            pc[q]->unprobed++;
        return;
    }
    /* The C targets split into k disjoint runs, as equal as possible; each
     * probe visits its run in order and stops at the first holder. */
    uint32_t start = 0, hits = 0, visits = 0;
    for (uint32_t j = 0; j < k; j++) {
        uint32_t len = c / k + (j < c % k), t = 0;
        bool hit = false;
        while (t < len && !hit) {
            hit = slot != SIZE_MAX && holds(&rp->h, slot, rp->order[start + t]);
            t++;
        }
        visits += t;
        start += len;
        if (hit) {
            hits++;
            for (int q = 0; q < 2; q++)
                pc[q]->hits_by_probe[j]++;
        }
    }
    for (int q = 0; q < 2; q++) {
        pc[q]->probes_sent += k;
        pc[q]->visits += visits;
        pc[q]->probe_hits += hits;
        pc[q]->nacks += k - hits;
        pc[q]->remote_hits += hits > 0;
        pc[q]->reply_data_bytes += (uint64_t)hits * reply_data;
    }
}

static void on_access(struct remote_probe *rp, const struct gcr_event *ev)
{
    uint32_t unit = ev->unit;
    if (unit >= rp->num_l1s)
        return;
    const struct gcr_access *a = ev->access;
    size_t slot = holders_find(&rp->h, ev->line_addr);
    bool here = slot != SIZE_MAX && holds(&rp->h, slot, unit);
    if (!ev->is_write && a->outcome != GCR_HIT) {
        uint32_t first = unit / rp->group_size * rp->group_size;
        uint32_t members = rp->num_l1s - first < rp->group_size ? rp->num_l1s - first
                                                                : rp->group_size;
        bool held = false;
        if (slot != SIZE_MAX && rp->h.count[slot] > (here ? 1u : 0u))
            for (uint32_t m = first; m < first + members && !held; m++)
                held = m != unit && holds(&rp->h, slot, m);
        rp->kernel.read_misses++;
        rp->total.read_misses++;
        rp->kernel.oracle_hits += held;
        rp->total.oracle_hits += held;
        uint32_t data = rp->reply_whole_line ? rp->line_bytes
                                             : gcr_bits_popcount32(ev->sector_mask) *
                                                   rp->sector_bytes;
        for (uint32_t p = 0; p < rp->npolicies; p++)
            probe_miss(rp, p, unit, first, members, held ? slot : SIZE_MAX, data);
    }
    /* A line miss means this L1 does not hold the line, whatever we believed
     * (an organisation may drop lines without events, e.g. when resized). */
    if (a->outcome == GCR_MISS_LINE && here)
        clear_holder(rp, ev->line_addr, unit);
    if (a->allocated || (a->outcome != GCR_MISS_LINE && !a->invalidated))
        set_holder(rp, ev->line_addr, unit);
}

static void on_event(void *self, const struct gcr_event *ev)
{
    struct remote_probe *rp = self;
    if (ev->kind == GCR_EV_L1_ACCESS)
        on_access(rp, ev);
    else if (ev->kind == GCR_EV_L1_EVICT && ev->unit < rp->num_l1s)
        clear_holder(rp, ev->access->victim_line, ev->unit);
}

/* ----------------------------------------------------------------- report */

static json_t *share(uint64_t num, uint64_t den)
{
    return den ? json_real((double)num / (double)den) : json_null();
}

static json_t *policy_json(const struct remote_probe *rp, const struct policy *pol,
                           const struct policy_counts *c, const struct period *per)
{
    char name[96];
    snprintf(name, sizeof name, "IP(%u,%u,%g)%s", pol->targets, pol->probes, pol->p,
             pol->selector == SELECT_RANDOM ? " random" : "");
    json_t *by_probe = json_array();
    for (uint32_t j = 0; j < pol->probes; j++)
        json_array_append_new(by_probe, json_integer((json_int_t)c->hits_by_probe[j]));
    uint64_t probe_bytes = c->visits * rp->probe_bytes, nack_bytes = c->nacks * rp->nack_bytes;
    uint64_t reply_bytes = c->probe_hits * rp->reply_header_bytes + c->reply_data_bytes;
    return json_pack(
        "{s:s, s:I, s:I, s:f, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o,"
        " s:{s:I, s:I, s:I, s:I}}",
        "name", name, "C", (json_int_t)pol->targets, "S", (json_int_t)pol->probes, "P", pol->p,
        "selector", pol->selector == SELECT_RANDOM ? "random" : "index", "probes_sent",
        (json_int_t)c->probes_sent, "targets_visited", (json_int_t)c->visits, "probe_hits",
        (json_int_t)c->probe_hits, "nacks", (json_int_t)c->nacks, "remote_hits",
        (json_int_t)c->remote_hits, "unprobed_misses", (json_int_t)c->unprobed,
        "hits_by_probe", by_probe, "remote_hits_per_probe", share(c->probe_hits, c->probes_sent),
        "remote_hit_rate", share(c->remote_hits, per->read_misses), "recall",
        share(c->remote_hits, per->oracle_hits), "redundant_replies",
        json_integer((json_int_t)(c->probe_hits - c->remote_hits)), "traffic_bytes",
        "probe_requests", (json_int_t)probe_bytes, "nacks", (json_int_t)nack_bytes,
        "data_replies", (json_int_t)reply_bytes, "total",
        (json_int_t)(probe_bytes + nack_bytes + reply_bytes));
}

static int report_period(struct remote_probe *rp, const struct period *per, json_t *s,
                         struct gcr_err *err)
{
    json_t *pols = json_array();
    int rc = pols ? 0 : -1;
    for (uint32_t p = 0; p < rp->npolicies && !rc; p++) {
        json_t *one = policy_json(rp, &rp->policies[p], &per->pol[p], per);
        rc |= one ? json_array_append_new(pols, one) : -1;
    }
    rc |= json_object_set_new(s, "group_size", json_integer(rp->group_size));
    rc |= json_object_set_new(s, "read_misses", json_integer((json_int_t)per->read_misses));
    rc |= json_object_set_new(s, "oracle_hits", json_integer((json_int_t)per->oracle_hits));
    rc |= json_object_set_new(s, "oracle_hit_rate", share(per->oracle_hits, per->read_misses));
    rc |= json_object_set_new(s, "policies", pols);
    rc |= json_object_set_new(s, "complete", json_boolean(!rp->failed));
    if (rc)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

static int report_kernel(void *self, json_t *section, struct gcr_err *err)
{
    struct remote_probe *rp = self;
    int rc = report_period(rp, &rp->kernel, section, err);
    rp->kernel.read_misses = rp->kernel.oracle_hits = 0;
    memset(rp->kernel.pol, 0, rp->npolicies * sizeof *rp->kernel.pol);
    return rc;
}

static int report_total(void *self, json_t *section, struct gcr_err *err)
{
    struct remote_probe *rp = self;
    return report_period(rp, &rp->total, section, err);
}

/* ---------------------------------------------------------------- options */

static void destroy(void *self)
{
    struct remote_probe *rp = self;
    if (!rp)
        return;
    free(rp->h.keys);
    free(rp->h.count);
    free(rp->h.bits);
    free(rp->policies);
    free(rp->order);
    free(rp->kernel.pol);
    free(rp->total.pol);
    free(rp);
}

#define OPT "%s: $.analyses.remote_probe."
#define WHERE "$.analyses.remote_probe"

static int parse_policy(struct remote_probe *rp, const json_t *obj, size_t idx,
                        const char *origin, struct gcr_err *err)
{
    static const char *const selectors[] = {"index", "random"}; /* enum selector */
    struct policy *pol = &rp->policies[idx];
    if (!json_is_object(obj))
        return gcr_fail(err, GCR_E_CONFIG, OPT "policies[%zu]: expected an object like "
                        "{\"C\": 15, \"S\": 2, \"P\": 0.2}", origin, idx);
    char where[64];
    snprintf(where, sizeof where, WHERE ".policies[%zu]", idx);
    struct gcr_opts o;
    int sel = (int)pol->selector;
    gcr_opts_begin(&o, origin, where, obj);
    if (gcr_opts_u32(&o, "C", 1, 65536, &pol->targets, err) != 0 ||
        gcr_opts_u32(&o, "S", 1, MAX_PROBES, &pol->probes, err) != 0 ||
        gcr_opts_real(&o, "P", 0, 1, &pol->p, err) != 0 ||
        gcr_opts_enum(&o, "selector", selectors, 2, &sel, err) != 0 ||
        gcr_opts_done(&o, err) != 0)
        return -1;
    pol->selector = (enum selector)sel;
    return 0;
}

static int parse_options(struct remote_probe *rp, const json_t *options, const char *origin,
                         struct gcr_err *err)
{
    static const char *const reply_data[] = {"sectors", "line"};
    struct gcr_opts o;
    int whole_line = rp->reply_whole_line;
    gcr_opts_begin(&o, origin, WHERE, options);
    if (gcr_opts_u32(&o, "group_size", 1, 1u << 20, &rp->group_size, err) != 0)
        return -1;
    const json_t *policies = gcr_opts_get(&o, "policies");
    if (policies && (!json_is_array(policies) || json_array_size(policies) == 0 ||
                     json_array_size(policies) > 64))
        return gcr_fail(err, GCR_E_CONFIG, OPT "policies: expected an array of 1 to 64 "
                        "policies", origin);
    if (gcr_opts_u32(&o, "probe_bytes", 0, 1u << 16, &rp->probe_bytes, err) != 0 ||
        gcr_opts_u32(&o, "nack_bytes", 0, 1u << 16, &rp->nack_bytes, err) != 0 ||
        gcr_opts_u32(&o, "reply_header_bytes", 0, 1u << 16, &rp->reply_header_bytes, err) != 0 ||
        gcr_opts_enum(&o, "reply_data", reply_data, 2, &whole_line, err) != 0 ||
        gcr_opts_done(&o, err) != 0)
        return -1;
    rp->reply_whole_line = whole_line == 1;
    /* A group larger than the instances is all of them. */
    if (rp->group_size > rp->num_l1s)
        rp->group_size = rp->num_l1s;
    rp->npolicies = policies ? (uint32_t)json_array_size(policies) : 1;
    rp->policies = calloc(rp->npolicies, sizeof *rp->policies);
    if (!rp->policies)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    for (uint32_t p = 0; p < rp->npolicies; p++) {
        /* Default: n-IP, every other member searched one by one, IP(G-1,1,1). */
        rp->policies[p] = (struct policy){.targets = UINT32_MAX, .probes = 1, .p = 1.0,
                                          .selector = SELECT_INDEX};
        if (policies && parse_policy(rp, json_array_get(policies, p), p, origin, err) != 0)
            return -1;
        /* C beyond the group means every other member. */
        if (rp->policies[p].targets > rp->group_size - 1)
            rp->policies[p].targets = rp->group_size - 1;
    }
    return 0;
}

static int create(void **self, const json_t *options, const struct gcr_sim_info *info,
                  struct gcr_err *err)
{
    struct remote_probe *rp = calloc(1, sizeof *rp);
    if (!rp)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    rp->num_l1s = info->num_l1s ? info->num_l1s : 1;
    rp->group_size = rp->num_l1s;
    rp->probe_bytes = 32; /* the reference's probe header fits one 32-B flit */
    rp->nack_bytes = 32;
    rp->reply_header_bytes = 8;
    rp->line_bytes = info->line_bytes;
    rp->sector_bytes = info->sector_bytes;
    if (parse_options(rp, options, info->config->origin, err) != 0) {
        destroy(rp);
        return -1;
    }
    for (uint32_t p = 0; p < rp->npolicies; p++)
        rp->policies[p].rng = gcr_hash_splitmix64(info->config->seed * 0x100 + p + 1);
    rp->h.words = (rp->num_l1s + 63) / 64;
    rp->order = calloc(rp->group_size, sizeof *rp->order);
    rp->kernel.pol = calloc(rp->npolicies, sizeof *rp->kernel.pol);
    rp->total.pol = calloc(rp->npolicies, sizeof *rp->total.pol);
    if (!rp->order || !rp->kernel.pol || !rp->total.pol || holders_alloc(&rp->h, 1024) != 0) {
        destroy(rp);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    *self = rp;
    return 0;
}

const struct gcr_analysis_ops gcr_analysis_remote_probe = {
    .name = "remote_probe",
    .summary = "L1 read misses another L1 of the probe group could serve; IP(C,S,P) probes",
    .subscribe = GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT,
    .create = create,
    .on_event = on_event,
    .report_kernel = report_kernel,
    .report_total = report_total,
    .destroy = destroy,
};
