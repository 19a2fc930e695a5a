/* reuse_distance: LRU stack distance of the L1 request stream, per SM and for
 * all SMs together, with the miss-ratio curve it predicts for fully
 * associative LRU caches. Definitions and report layout: README.md.
 *
 * Exact distances (Bennett-Kruskal): a hash map gives each key its last
 * access time, and a Fenwick tree over times holds a 1 at every time that is
 * still some key's last access; the distance of an access is the number of
 * 1s after the key's previous time. Times are renumbered (compacted) when
 * they run out, so memory follows the number of distinct keys, not the
 * trace length. Sampling (SHARDS) keeps a key iff hash(key) mod P < T. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bits.h"
#include "gcreplay/analysis.h"

#define RD_EXACT_MAX 16     /* distances 0..15 are counted one by one */
#define RD_LOG2_BUCKETS 65  /* bucket 0: d = 0; bucket k: 2^(k-1) <= d < 2^k */
#define RD_MAX_MRC 64
#define RD_SAMPLE_BITS 24   /* P = 2^24 */
#define RD_EMPTY UINT32_MAX

/* --------------------------------------------------------- stack distance */

struct rd_slot {
    uint64_t key;
    uint32_t time; /* RD_EMPTY: free slot */
};

/* One access stream: key -> last time, and the live-time Fenwick tree. */
struct rd_stack {
    struct rd_slot *slots;
    uint32_t slot_mask; /* capacity - 1 (power of two) */
    uint32_t keys;      /* distinct keys = live times */
    uint32_t *fen;      /* Fenwick tree, 1-based, over times 0..cap-1 */
    uint32_t *owner;    /* owner[t]: slot whose last time is t, RD_EMPTY if none */
    uint32_t cap;       /* times available before a compaction */
    uint32_t now;       /* next time */
};

static int stack_init(struct rd_stack *s)
{
    memset(s, 0, sizeof *s);
    s->slot_mask = 1023;
    s->cap = 1024;
    s->slots = malloc(1024 * sizeof *s->slots);
    s->fen = calloc(s->cap + 1, sizeof *s->fen);
    s->owner = malloc(s->cap * sizeof *s->owner);
    if (!s->slots || !s->fen || !s->owner)
        return -1;
    for (uint32_t i = 0; i <= s->slot_mask; i++)
        s->slots[i].time = RD_EMPTY;
    return 0;
}

static void stack_free(struct rd_stack *s)
{
    free(s->slots);
    free(s->fen);
    free(s->owner);
}

static void stack_clear(struct rd_stack *s)
{
    for (uint32_t i = 0; i <= s->slot_mask; i++)
        s->slots[i].time = RD_EMPTY;
    memset(s->fen, 0, (s->cap + 1) * sizeof *s->fen);
    s->keys = 0;
    s->now = 0;
}

static inline void fen_add(uint32_t *fen, uint32_t cap, uint32_t t, int32_t v)
{
    for (uint32_t i = t + 1; i <= cap; i += i & -i)
        fen[i] += (uint32_t)v;
}

/* Number of live times in [0, t]. */
static inline uint32_t fen_prefix(const uint32_t *fen, uint32_t t)
{
    uint32_t sum = 0;
    for (uint32_t i = t + 1; i; i &= i - 1)
        sum += fen[i];
    return sum;
}

/* Renumbers the live times 0..keys-1 in order and grows the time space so at
 * least as many new times are free as there are live ones (amortised O(1)). */
static int stack_compact(struct rd_stack *s)
{
    uint32_t cap = s->cap;
    while (cap < 2 * s->keys + 1024)
        cap *= 2;
    uint32_t *owner = malloc((size_t)cap * sizeof *owner);
    uint32_t *fen = calloc((size_t)cap + 1, sizeof *fen);
    if (!owner || !fen) {
        free(owner);
        free(fen);
        return -1;
    }
    uint32_t t = 0;
    for (uint32_t old = 0; old < s->now; old++) {
        uint32_t slot = s->owner[old];
        if (slot == RD_EMPTY)
            continue;
        s->slots[slot].time = t;
        owner[t] = slot;
        fen[t + 1] = 1;
        t++;
    }
    /* Linear-time Fenwick build from the 0/1 array. */
    for (uint32_t i = 1; i <= cap; i++) {
        uint32_t parent = i + (i & -i);
        if (parent <= cap)
            fen[parent] += fen[i];
    }
    free(s->owner);
    free(s->fen);
    s->owner = owner;
    s->fen = fen;
    s->cap = cap;
    s->now = t;
    return 0;
}

static int stack_grow_map(struct rd_stack *s)
{
    uint32_t n = (s->slot_mask + 1) * 2;
    struct rd_slot *slots = malloc((size_t)n * sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        slots[i].time = RD_EMPTY;
    for (uint32_t i = 0; i <= s->slot_mask; i++) {
        if (s->slots[i].time == RD_EMPTY)
            continue;
        uint32_t j = (uint32_t)gcr_hash_splitmix64(s->slots[i].key) & (n - 1);
        while (slots[j].time != RD_EMPTY)
            j = (j + 1) & (n - 1);
        slots[j] = s->slots[i];
        s->owner[slots[j].time] = j;
    }
    free(s->slots);
    s->slots = slots;
    s->slot_mask = n - 1;
    return 0;
}

/* One access to key (hashed as h). Returns its stack distance: the number of
 * distinct other keys since its previous access, or UINT64_MAX if first. */
static uint64_t stack_access(struct rd_stack *s, uint64_t key, uint64_t h, int *oom)
{
    if (s->now == s->cap && stack_compact(s) != 0) {
        *oom = 1;
        return UINT64_MAX;
    }
    uint32_t j = (uint32_t)h & s->slot_mask;
    while (s->slots[j].time != RD_EMPTY && s->slots[j].key != key)
        j = (j + 1) & s->slot_mask;
    uint64_t d;
    uint32_t t = s->now++;
    if (s->slots[j].time != RD_EMPTY) {
        uint32_t last = s->slots[j].time;
        d = s->keys - fen_prefix(s->fen, last);
        fen_add(s->fen, s->cap, last, -1);
        s->owner[last] = RD_EMPTY;
    } else {
        d = UINT64_MAX;
        s->keys++;
        s->slots[j].key = key;
    }
    s->slots[j].time = t;
    s->owner[t] = j;
    fen_add(s->fen, s->cap, t, 1);
    /* Load at most 1/2 keeps linear probing short. */
    if (d == UINT64_MAX && 2 * s->keys > s->slot_mask && stack_grow_map(s) != 0)
        *oom = 1;
    return d;
}

/* ------------------------------------------------------------- histograms */

/* Counts of one stream over one period, in sampled units. */
struct rd_hist {
    uint64_t accesses; /* every access of the stream (sampled or not) */
    uint64_t sampled;
    uint64_t cold;
    uint64_t exact[RD_EXACT_MAX];
    uint64_t log2[RD_LOG2_BUCKETS];
    /* by_mrc[k]: reuses whose scaled distance d has exactly k MRC sizes <= d
     * (so it misses in the k smallest caches). */
    uint64_t by_mrc[RD_MAX_MRC + 1];
};

struct rd_stream {
    struct rd_stack stack;
    struct rd_hist kernel, total;
};

struct reuse_distance {
    const struct gcr_sim_info *info;
    bool sector;          /* granularity: each requested sector is one access */
    bool reset_at_kernel; /* start every kernel with empty stacks */
    double rate;          /* effective sampling rate T/P */
    uint64_t threshold;   /* T */
    double scale;         /* 1 / rate */
    uint32_t nmrc;
    uint64_t mrc_lines[RD_MAX_MRC]; /* ascending cache sizes in lines (option mrc_lines) */
    uint64_t mrc[RD_MAX_MRC];       /* the same in keys: lines, or sectors in sector mode */
    uint32_t nstreams;        /* num_sms + 1; the last is the global stream */
    struct rd_stream *streams;
    int oom;
};

static void hist_add(struct rd_hist *to, const struct rd_hist *from)
{
    uint64_t *a = (uint64_t *)to;
    const uint64_t *b = (const uint64_t *)from;
    for (size_t i = 0; i < sizeof *to / sizeof(uint64_t); i++)
        a[i] += b[i];
}

static inline void record(const struct reuse_distance *rd, struct rd_hist *h, uint64_t d)
{
    h->sampled++;
    if (d == UINT64_MAX) {
        h->cold++;
        return;
    }
    if (rd->rate < 1.0)
        d = (uint64_t)((double)d * rd->scale);
    if (d < RD_EXACT_MAX)
        h->exact[d]++;
    h->log2[d ? 64 - __builtin_clzll(d) : 0]++;
    uint32_t lo = 0, hi = rd->nmrc; /* first size > d */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (rd->mrc[mid] <= d)
            lo = mid + 1;
        else
            hi = mid;
    }
    h->by_mrc[lo]++;
}

static inline void access_key(struct reuse_distance *rd, uint32_t sm, uint64_t key)
{
    struct rd_stream *g = &rd->streams[rd->nstreams - 1];
    struct rd_stream *p = sm < rd->nstreams - 1 ? &rd->streams[sm] : NULL;
    g->kernel.accesses++;
    if (p)
        p->kernel.accesses++;
    uint64_t h = gcr_hash_splitmix64(key);
    /* The sampling decision uses the high hash bits, the map the low ones, so
     * the sampled keys still spread over the whole map. */
    if (rd->rate < 1.0 && (h >> (64 - RD_SAMPLE_BITS)) >= rd->threshold)
        return;
    record(rd, &g->kernel, stack_access(&g->stack, key, h, &rd->oom));
    if (p)
        record(rd, &p->kernel, stack_access(&p->stack, key, h, &rd->oom));
}

static void rd_on_event(void *self, const struct gcr_event *ev)
{
    struct reuse_distance *rd = self;
    if (ev->kind == GCR_EV_KERNEL_BEGIN) {
        if (rd->reset_at_kernel)
            for (uint32_t i = 0; i < rd->nstreams; i++)
                stack_clear(&rd->streams[i].stack);
        return;
    }
    if (ev->kind != GCR_EV_L1_ACCESS)
        return;
    if (!rd->sector) {
        access_key(rd, ev->sm, ev->line_addr);
        return;
    }
    for (uint32_t m = ev->sector_mask; m; m &= m - 1)
        access_key(rd, ev->sm,
                   ev->line_addr + (uint64_t)__builtin_ctz(m) * rd->info->sector_bytes);
}

/* ------------------------------------------------------------------ create */

static int opt_fail(struct gcr_err *err, const struct gcr_sim_info *info, const char *key,
                    const char *what)
{
    return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.reuse_distance.%s: %s",
                    info->config->origin, key, what);
}

static void rd_destroy(void *self)
{
    struct reuse_distance *rd = self;
    if (!rd)
        return;
    for (uint32_t i = 0; rd->streams && i < rd->nstreams; i++)
        stack_free(&rd->streams[i].stack);
    free(rd->streams);
    free(rd);
}

static int parse_options(struct reuse_distance *rd, const json_t *options,
                         const struct gcr_sim_info *info, struct gcr_err *err)
{
    const char *key;
    json_t *v;
    double rate = 1.0;
    json_object_foreach((json_t *)options, key, v) {
        if (strcmp(key, "granularity") == 0) {
            const char *s = json_string_value(v);
            if (!s || (strcmp(s, "line") != 0 && strcmp(s, "sector") != 0))
                return opt_fail(err, info, key, "expected \"line\" or \"sector\"");
            rd->sector = strcmp(s, "sector") == 0;
        } else if (strcmp(key, "sampling_rate") == 0) {
            if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 1)
                return opt_fail(err, info, key, "expected a number in (0, 1]");
            rate = json_number_value(v);
        } else if (strcmp(key, "reset_at_kernel") == 0) {
            if (!json_is_boolean(v))
                return opt_fail(err, info, key, "expected true or false");
            rd->reset_at_kernel = json_is_true(v);
        } else if (strcmp(key, "mrc_lines") == 0) {
            size_t n = json_array_size(v);
            if (!json_is_array(v) || n < 1 || n > RD_MAX_MRC)
                return opt_fail(err, info, key, "expected an array of 1 to 64 sizes");
            for (size_t i = 0; i < n; i++) {
                json_t *x = json_array_get(v, i);
                if (!json_is_integer(x) || json_integer_value(x) < 1 ||
                    (i && json_integer_value(x) <= (json_int_t)rd->mrc_lines[i - 1]) ||
                    json_integer_value(x) > ((json_int_t)1 << 40))
                    return opt_fail(err, info, key,
                                    "expected ascending positive integers (cache lines)");
                rd->mrc_lines[i] = (uint64_t)json_integer_value(x);
            }
            rd->nmrc = (uint32_t)n;
        } else {
            return opt_fail(err, info, key,
                            "unknown option (known: granularity, sampling_rate, mrc_lines, "
                            "reset_at_kernel)");
        }
    }
    rd->threshold = (uint64_t)llround(rate * (double)(1u << RD_SAMPLE_BITS));
    if (rd->threshold == 0)
        return opt_fail(err, info, "sampling_rate", "below the smallest rate, 2^-24");
    rd->rate = (double)rd->threshold / (double)(1u << RD_SAMPLE_BITS);
    rd->scale = 1.0 / rd->rate;
    return 0;
}

static int rd_create(void **self, const json_t *options, const struct gcr_sim_info *info,
                     struct gcr_err *err)
{
    struct reuse_distance *rd = calloc(1, sizeof *rd);
    if (!rd)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    rd->info = info;
    /* Default MRC sizes: powers of two, 64..65536 lines. */
    for (uint64_t c = 64; c <= 65536; c *= 2)
        rd->mrc_lines[rd->nmrc++] = c;
    if (parse_options(rd, options, info, err) != 0) {
        rd_destroy(rd);
        return -1;
    }
    uint32_t keys_per_line = rd->sector ? info->line_bytes / info->sector_bytes : 1;
    for (uint32_t i = 0; i < rd->nmrc; i++)
        rd->mrc[i] = rd->mrc_lines[i] * keys_per_line;
    rd->nstreams = info->num_sms + 1;
    rd->streams = calloc(rd->nstreams, sizeof *rd->streams);
    if (!rd->streams) {
        rd_destroy(rd);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < rd->nstreams; i++)
        if (stack_init(&rd->streams[i].stack) != 0) {
            rd_destroy(rd);
            return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        }
    *self = rd;
    return 0;
}

/* ------------------------------------------------------------------ report */

/* A count in sampled units as an estimate of the full stream's count. */
static json_t *estimate(const struct reuse_distance *rd, uint64_t n)
{
    return json_integer((json_int_t)llround((double)n * rd->scale));
}

static json_t *hist_json(const struct reuse_distance *rd, const struct rd_hist *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "accesses", json_integer((json_int_t)h->accesses));
    json_object_set_new(o, "sampled_accesses", json_integer((json_int_t)h->sampled));
    json_object_set_new(o, "cold", estimate(rd, h->cold));
    json_t *exact = json_array();
    for (int i = 0; i < RD_EXACT_MAX; i++)
        json_array_append_new(exact, estimate(rd, h->exact[i]));
    json_object_set_new(o, "distance_exact", exact);
    int top = RD_LOG2_BUCKETS;
    while (top > 0 && !h->log2[top - 1])
        top--;
    json_t *log2 = json_array();
    for (int i = 0; i < top; i++)
        json_array_append_new(log2, estimate(rd, h->log2[i]));
    json_object_set_new(o, "distance_log2", log2);
    /* Miss ratio of a C-key LRU cache: (cold + reuses at distance >= C) / accesses.
     * Sampled: sampled misses / sampled accesses. (SHARDS' alternative, dividing
     * by rate x accesses, is off by the relative error of the sample's size,
     * which is large for a stream with few distinct lines, as one SM's often is.) */
    json_t *mrc = json_array();
    uint64_t misses = h->cold;
    for (uint32_t k = rd->nmrc + 1; k-- > 1;)
        misses += h->by_mrc[k];
    double denom = (double)h->sampled;
    for (uint32_t i = 0; i < rd->nmrc; i++) {
        double ratio = denom > 0 ? (double)misses / denom : 0.0;
        if (ratio > 1.0)
            ratio = 1.0;
        json_array_append_new(mrc, json_pack("{s:I, s:f}", "lines", (json_int_t)rd->mrc_lines[i],
                                             "miss_ratio", ratio));
        misses -= h->by_mrc[i + 1];
    }
    json_object_set_new(o, "mrc", mrc);
    return o;
}

static int rd_report(struct reuse_distance *rd, json_t *section, bool kernel,
                     struct gcr_err *err)
{
    if (rd->oom)
        return gcr_fail(err, GCR_E_NOMEM, "reuse_distance: out of memory");
    json_object_set_new(section, "granularity", json_string(rd->sector ? "sector" : "line"));
    json_object_set_new(section, "sampling_rate", json_real(rd->rate));
    json_t *per_sm = json_array();
    for (uint32_t i = 0; i < rd->nstreams; i++) {
        struct rd_stream *s = &rd->streams[i];
        json_t *h = hist_json(rd, kernel ? &s->kernel : &s->total);
        if (i + 1 < rd->nstreams)
            json_array_append_new(per_sm, h);
        else
            json_object_set_new(section, "global", h);
    }
    json_object_set_new(section, "per_sm", per_sm);
    return 0;
}

static int rd_report_kernel(void *self, json_t *section, struct gcr_err *err)
{
    struct reuse_distance *rd = self;
    int rc = rd_report(rd, section, true, err);
    for (uint32_t i = 0; i < rd->nstreams; i++) {
        hist_add(&rd->streams[i].total, &rd->streams[i].kernel);
        memset(&rd->streams[i].kernel, 0, sizeof rd->streams[i].kernel);
    }
    return rc;
}

static int rd_report_total(void *self, json_t *section, struct gcr_err *err)
{
    return rd_report(self, section, false, err);
}

const struct gcr_analysis_ops gcr_analysis_reuse_distance = {
    .name = "reuse_distance",
    .summary = "LRU stack distance of L1 requests per SM and global; miss-ratio curves",
    .subscribe = GCR_EV_L1_ACCESS | GCR_EV_KERNEL_BEGIN,
    .create = rd_create,
    .on_event = rd_on_event,
    .report_kernel = rd_report_kernel,
    .report_total = rd_report_total,
    .destroy = rd_destroy,
};
