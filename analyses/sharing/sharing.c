/* sharing: which SMs, clusters of SMs and chips touch each line of a kernel,
 * and SAC's true / false / not-shared split (see README.md for definitions).
 *
 * Per kernel, one open-addressing table holds every distinct line touched,
 * with the set of SMs, the set of chips, the bytes touched by the first chip
 * and by anyone, and whether some byte was touched by two chips. Bytes touched
 * by the other chips of a line live in a second table keyed by (line, chip),
 * so a line touched by one chip only (the common case) costs one probe.
 * Everything else (clusters, pages, histograms) is derived at the kernel's end. */
#include <stdlib.h>
#include <string.h>

#include "core/table_memory.h"
#include "core/bits.h"
#include "gcreplay/analysis.h"

#define MASK_WORDS 4                /* byte masks: lines of up to 256 bytes */
#define MAX_CHIPS 64                /* chip sets are one 64-bit word */
#define MAX_BUCKETS 34              /* histogram buckets: 1, 2, 3-4, ..., up to 2^32 */
#define PENDING_MAX 64              /* lines gathered from one instruction before applying */

/* A table of fixed-size slots of `words` 64-bit words; word 0 is the key
 * (a line or page address with bit 0 set, so 0 marks a free slot and fresh
 * zeroed memory is an empty table), word 1 a second key part or payload, the
 * rest payload. Linear probing, never deleted from (cleared per kernel),
 * grown at 70% load. */
struct table {
    uint64_t *slots;
    size_t cap;   /* power of two, slots */
    size_t count;
    size_t words; /* per slot */
    bool key2;    /* word 1 is part of the key */
};

static inline uint64_t key_of(uint64_t addr)
{
    return addr | 1; /* line and page addresses are aligned: bit 0 is free */
}

static int table_init(struct table *t, size_t cap, size_t words, bool key2)
{
    t->slots = gcr_table_alloc(cap * words * sizeof *t->slots);
    if (!t->slots)
        return -1;
    t->cap = cap;
    t->count = 0;
    t->words = words;
    t->key2 = key2;
    return 0;
}

static void table_free(struct table *t)
{
    gcr_table_free(t->slots, t->cap * t->words * sizeof *t->slots);
    t->slots = NULL;
}

static inline size_t table_home(const struct table *t, uint64_t k0, uint64_t k1)
{
    return (size_t)gcr_hash_fmix64(k0 ^ (k1 * 0x9e3779b97f4a7c15ull)) & (t->cap - 1);
}

static inline bool slot_is(const struct table *t, const uint64_t *s, uint64_t k0, uint64_t k1)
{
    return s[0] == k0 && (!t->key2 || s[1] == k1);
}

static int table_grow(struct table *t)
{
    struct table bigger;
    if (table_init(&bigger, t->cap * 2, t->words, t->key2) != 0)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        const uint64_t *s = t->slots + i * t->words;
        if (!s[0])
            continue;
        size_t j = table_home(&bigger, s[0], t->key2 ? s[1] : 0);
        while (bigger.slots[j * t->words])
            j = (j + 1) & (bigger.cap - 1);
        memcpy(bigger.slots + j * t->words, s, t->words * sizeof *s);
    }
    bigger.count = t->count;
    table_free(t);
    *t = bigger;
    return 0;
}

/* The slot of (k0, k1) (k1 ignored without key2), inserted with a zero payload
 * if absent; NULL if out of memory. */
static uint64_t *table_get(struct table *t, uint64_t k0, uint64_t k1, bool *inserted)
{
    size_t i = table_home(t, k0, k1);
    for (;;) {
        uint64_t *s = t->slots + i * t->words;
        if (slot_is(t, s, k0, k1)) {
            *inserted = false;
            return s;
        }
        if (!s[0])
            break;
        i = (i + 1) & (t->cap - 1);
    }
    if ((t->count + 1) * 10 > t->cap * 7) {
        if (table_grow(t) != 0)
            return NULL;
        return table_get(t, k0, k1, inserted);
    }
    uint64_t *s = t->slots + i * t->words;
    s[0] = k0;
    if (t->key2)
        s[1] = k1;
    t->count++;
    *inserted = true;
    return s;
}

static const uint64_t *table_find(const struct table *t, uint64_t k0, uint64_t k1)
{
    for (size_t i = table_home(t, k0, k1);; i = (i + 1) & (t->cap - 1)) {
        const uint64_t *s = t->slots + i * t->words;
        if (slot_is(t, s, k0, k1))
            return s;
        if (!s[0])
            return NULL;
    }
}

/* Empties the table for the next kernel; a table much larger than what the
 * last kernel needed is replaced by a small one, so clearing and reporting a
 * kernel cost in proportion to that kernel's lines, not the largest kernel's. */
static int table_reset(struct table *t, size_t min_cap)
{
    if (t->cap > min_cap && t->count * 8 < t->cap) {
        size_t cap = min_cap;
        while (cap * 7 < t->count * 20)
            cap *= 2;
        table_free(t);
        return table_init(t, cap, t->words, t->key2);
    }
    memset(t->slots, 0, t->cap * t->words * sizeof *t->slots);
    t->count = 0;
    return 0;
}

/* Line slot: most lines of a kernel are touched by one SM of one chip, so the
 * slot holds only what such a line needs; a line touched by a second SM or
 * chip gets an extended record (struct line_ext in `exts`). */
enum {
    L_KEY = 0,  /* key_of(line address) */
    L_META = 1, /* bits 0-31: the first SM; bits 32-63: EXT_BIT | extended record
                   index, or the first chip while there is no extended record */
    L_UNION = 2 /* mask_words: bytes touched by any chip */
};
#define EXT_BIT (1ull << 63)

/* Extended line record (words of `exts`): several SMs or chips touched the line. */
enum {
    X_CHIPS = 0, /* chips that touched the line (bit per chip) */
    X_FLAGS = 1, /* bits 0-7: first chip; bit 8: some byte touched by two chips */
    X_FIRST = 2  /* mask_words: bytes touched by the first chip; then sm_words: SMs */
};
#define FLAG_BYTE_SHARED (1ull << 8)

/* Bytes of the chips other than a line's first: key (line, chip), then the mask. */
enum { O_MASK = 2 };

/* Page slot (built at report time): key (page), chips, byte-shared flag. */
enum { P_CHIPS = 1, P_FLAGS = 2, P_WORDS = 3 };

#define MIN_CAP 1024

/* Figures of one kernel or of the whole run (the sum of the kernels). */
struct sharing_counts {
    uint64_t lines, bytes;
    uint64_t sms_hist[MAX_BUCKETS], clusters_hist[MAX_BUCKETS], chips_hist[MAX_BUCKETS];
    /* [0] not shared, [1] false sharing, [2] true sharing, in bytes */
    uint64_t sac[3], line_cls[3], page_cls[3];
    uint64_t pages;
};

struct pending {
    uint64_t line;
    uint64_t mask[MASK_WORDS];
};

struct sharing {
    uint32_t num_sms, cluster_size, num_clusters, chips;
    uint32_t line_bytes, page_bytes;
    uint32_t sm_words, mask_words;
    uint64_t kernel_ctas; /* of the current kernel: chips get contiguous blocks */
    struct table lines, others, pages;
    uint64_t *exts;           /* extended line records, ext_words each */
    size_t ext_count, ext_cap, ext_words;
    struct pending pend[PENDING_MAX];
    bool failed; /* out of memory while observing: reported at the kernel's end */
    struct sharing_counts kernel, total;
};

static unsigned bucket_of(uint64_t n)
{
    unsigned b = 0;
    while (b + 1 < MAX_BUCKETS && (1ull << b) < n)
        b++;
    return b;
}

static int get_option(const json_t *options, const char *key, uint64_t lo, uint64_t hi,
                      uint64_t *out, const struct gcr_sim_info *info, struct gcr_err *err)
{
    const json_t *v = json_object_get(options, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)lo ||
        json_integer_value(v) > (json_int_t)hi)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.sharing.%s: expected an integer "
                        "from %llu to %llu", info->config->origin, key, (unsigned long long)lo,
                        (unsigned long long)hi);
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static void sharing_destroy(void *self)
{
    struct sharing *s = self;
    if (!s)
        return;
    table_free(&s->lines);
    table_free(&s->others);
    table_free(&s->pages);
    gcr_table_free(s->exts, s->ext_cap * s->ext_words * sizeof *s->exts);
    free(s);
}

static int sharing_create(void **self, const json_t *options, const struct gcr_sim_info *info,
                          struct gcr_err *err)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)options, key, v) {
        if (strcmp(key, "cluster_size") != 0 && strcmp(key, "chips") != 0 &&
            strcmp(key, "page_bytes") != 0)
            return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.sharing.%s: unknown key "
                            "(known: cluster_size, chips, page_bytes)", info->config->origin,
                            key);
    }
    uint64_t cluster_size = 4, chips = 4, page_bytes = 4096;
    if (get_option(options, "cluster_size", 1, UINT32_MAX, &cluster_size, info, err) != 0 ||
        get_option(options, "chips", 1, MAX_CHIPS, &chips, info, err) != 0 ||
        get_option(options, "page_bytes", info->line_bytes, UINT64_C(1) << 30, &page_bytes,
                   info, err) != 0)
        return -1;
    if (page_bytes & (page_bytes - 1))
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.sharing.page_bytes: expected a "
                        "power of two", info->config->origin);
    if (info->line_bytes > 64 * MASK_WORDS)
        return gcr_fail(err, GCR_E_UNSUPPORTED, "%s: analysis sharing: lines of %u bytes "
                        "(at most %u)", info->config->origin, info->line_bytes,
                        64 * MASK_WORDS);
    struct sharing *s = calloc(1, sizeof *s);
    if (!s)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    s->num_sms = info->num_sms;
    s->cluster_size = (uint32_t)cluster_size;
    s->num_clusters = (uint32_t)((info->num_sms + cluster_size - 1) / cluster_size);
    s->chips = (uint32_t)chips;
    s->line_bytes = info->line_bytes;
    s->page_bytes = (uint32_t)page_bytes;
    s->sm_words = (info->num_sms + 63) / 64;
    s->mask_words = (info->line_bytes + 63) / 64;
    s->ext_words = X_FIRST + s->mask_words + s->sm_words;
    if (table_init(&s->lines, MIN_CAP, L_UNION + s->mask_words, false) != 0 ||
        table_init(&s->others, MIN_CAP, O_MASK + s->mask_words, true) != 0 ||
        table_init(&s->pages, MIN_CAP, P_WORDS, false) != 0) {
        sharing_destroy(s);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    *self = s;
    return 0;
}

static inline void mask_set_range(uint64_t *m, uint32_t lo, uint32_t hi)
{
    for (uint32_t w = lo / 64; w <= hi / 64; w++) {
        uint32_t a = w * 64 > lo ? 0 : lo - w * 64;
        uint32_t b = (w + 1) * 64 - 1 < hi ? 63 : hi - w * 64;
        uint64_t bits = (b - a == 63) ? ~0ull : (((1ull << (b - a + 1)) - 1) << a);
        m[w] |= bits;
    }
}

/* A new extended record for line slot l, filled from what the slot knew: one
 * SM and one chip touched it, so the first chip's bytes are all its bytes. */
static uint64_t *ext_new(struct sharing *s, uint64_t *l)
{
    if (s->ext_count == s->ext_cap) {
        size_t cap = s->ext_cap ? 2 * s->ext_cap : 1024;
        uint64_t *bigger = gcr_table_alloc(cap * s->ext_words * sizeof *bigger);
        if (!bigger)
            return NULL;
        if (s->ext_count)
            memcpy(bigger, s->exts, s->ext_count * s->ext_words * sizeof *bigger);
        gcr_table_free(s->exts, s->ext_cap * s->ext_words * sizeof *s->exts);
        s->exts = bigger;
        s->ext_cap = cap;
    }
    uint64_t *x = s->exts + s->ext_count * s->ext_words;
    memset(x, 0, s->ext_words * sizeof *x);
    uint32_t first_sm = (uint32_t)l[L_META];
    uint64_t first_chip = l[L_META] >> 32;
    x[X_CHIPS] = 1ull << first_chip;
    x[X_FLAGS] = first_chip;
    memcpy(x + X_FIRST, l + L_UNION, s->mask_words * sizeof *x);
    x[X_FIRST + s->mask_words + first_sm / 64] |= 1ull << (first_sm % 64);
    l[L_META] = (uint32_t)l[L_META] | EXT_BIT | ((uint64_t)s->ext_count << 32);
    s->ext_count++;
    return x;
}

/* The extended record of line slot l, or NULL if it has none. */
static inline uint64_t *ext_of(const struct sharing *s, const uint64_t *l)
{
    if (!(l[L_META] & EXT_BIT))
        return NULL;
    return s->exts + ((l[L_META] & ~EXT_BIT) >> 32) * s->ext_words;
}

/* One line touched by one instruction: update the line's sets and byte masks. */
static void apply(struct sharing *s, const struct pending *p, uint32_t chip, uint32_t sm)
{
    bool fresh;
    uint64_t *l = table_get(&s->lines, key_of(p->line), 0, &fresh);
    if (!l) {
        s->failed = true;
        return;
    }
    const uint32_t mw = s->mask_words;
    if (fresh)
        l[L_META] = sm | ((uint64_t)chip << 32);
    uint64_t *x = ext_of(s, l);
    if (!x) {
        if ((uint32_t)l[L_META] == sm && l[L_META] >> 32 == chip) {
            /* Still one SM and one chip: only the bytes change. */
            for (uint32_t w = 0; w < mw; w++)
                l[L_UNION + w] |= p->mask[w];
            return;
        }
        if (!(x = ext_new(s, l))) {
            s->failed = true;
            return;
        }
    }
    uint64_t *own;
    if ((x[X_FLAGS] & 0xff) == chip) {
        own = x + X_FIRST;
    } else {
        uint64_t *o = table_get(&s->others, key_of(p->line), chip, &fresh);
        if (!o) {
            s->failed = true;
            return;
        }
        own = o + O_MASK;
    }
    /* A byte this chip touches now that some chip touched before, and this
     * chip did not: it was another chip's, so the line is truly shared. */
    uint64_t shared = 0;
    for (uint32_t w = 0; w < mw; w++) {
        shared |= p->mask[w] & l[L_UNION + w] & ~own[w];
        own[w] |= p->mask[w];
        l[L_UNION + w] |= p->mask[w];
    }
    if (shared)
        x[X_FLAGS] |= FLAG_BYTE_SHARED;
    x[X_CHIPS] |= 1ull << chip;
    x[X_FIRST + mw + sm / 64] |= 1ull << (sm % 64);
}

static void on_insn(struct sharing *s, const struct gcr_event *ev)
{
    const struct gcr_warp_insn *in = ev->insn;
    if (in->space != GCR_SPACE_GLOBAL && in->space != GCR_SPACE_LOCAL)
        return; /* shared memory never leaves the SM; const/texture are not modelled */
    if (s->failed || ev->sm >= s->num_sms)
        return;
    uint32_t chip = gcr_chip_of_cta(in->cta, s->kernel_ctas, s->chips);
    uint64_t lb = s->line_bytes;
    size_t n = 0;
    /* The common coalesced case: the replay's stride hint says the lanes
     * cover one contiguous byte range, so mark it line by line at once. */
    uint64_t span = in->active_mask ? (uint64_t)gcr_bits_popcount32(in->active_mask) - 1 : 0;
    uint64_t mag = in->stride < 0 ? 0 - (uint64_t)in->stride : (uint64_t)in->stride;
    if (in->strided && in->active_mask && mag <= in->width && span * mag < (1ull << 40)) {
        uint64_t first = in->addr[gcr_bits_ctz32(in->active_mask)];
        uint64_t lo = in->stride < 0 ? first - span * mag : first;
        uint64_t last = (in->stride < 0 ? first : first + span * mag) + in->width - 1;
        if (lo <= first && last >= lo) { /* no wrap-around */
            for (uint64_t a = lo;;) {
                uint64_t line = a & ~(lb - 1);
                uint64_t hi = last - line < lb ? last : line + lb - 1;
                if (n == PENDING_MAX) {
                    for (size_t j = 0; j < n; j++)
                        apply(s, &s->pend[j], chip, ev->sm);
                    n = 0;
                }
                s->pend[n].line = line;
                memset(s->pend[n].mask, 0, sizeof s->pend[n].mask);
                mask_set_range(s->pend[n].mask, (uint32_t)(a - line), (uint32_t)(hi - line));
                n++;
                if (hi == last)
                    break;
                a = hi + 1;
            }
            for (size_t j = 0; j < n; j++)
                apply(s, &s->pend[j], chip, ev->sm);
            return;
        }
    }
    for (uint32_t rest = in->active_mask; rest; rest &= rest - 1) {
        uint64_t a = in->addr[gcr_bits_ctz32(rest)];
        uint64_t last = a + in->width - 1;
        if (last < a)
            last = UINT64_MAX; /* the access would wrap: keep what is addressable */
        for (;;) {
            uint64_t line = a & ~(lb - 1);
            uint64_t hi = last - line < lb ? last : line + lb - 1;
            /* Lanes of a warp mostly fall in the line of the previous lane. */
            size_t k = n;
            if (n && s->pend[n - 1].line == line)
                k = n - 1;
            else
                for (size_t j = 0; j + 1 < n; j++)
                    if (s->pend[j].line == line) {
                        k = j;
                        break;
                    }
            if (k == n) {
                if (n == PENDING_MAX) {
                    for (size_t j = 0; j < n; j++)
                        apply(s, &s->pend[j], chip, ev->sm);
                    n = k = 0;
                }
                s->pend[n].line = line;
                memset(s->pend[n].mask, 0, sizeof s->pend[n].mask);
                n++;
            }
            mask_set_range(s->pend[k].mask, (uint32_t)(a - line), (uint32_t)(hi - line));
            if (hi == last)
                break;
            a = hi + 1;
        }
    }
    for (size_t j = 0; j < n; j++)
        apply(s, &s->pend[j], chip, ev->sm);
}

static void sharing_on_event(void *self, const struct gcr_event *ev)
{
    struct sharing *s = self;
    if (ev->kind == GCR_EV_INSN) {
        on_insn(s, ev);
    } else if (ev->kind == GCR_EV_KERNEL_BEGIN && ev->kernel) {
        /* Chips get contiguous blocks of CTAs, as SAC's distributed
         * scheduling (the replay's own rule, gcreplay/chips.h). */
        s->kernel_ctas = gcr_kernel_ctas(ev->kernel);
    }
}

/* Classes of the kernel's lines and pages into s->kernel. */
static int summarise(struct sharing *s, struct gcr_err *err)
{
    struct sharing_counts *k = &s->kernel;
    const size_t words = s->lines.words;
    const uint32_t mw = s->mask_words;
    uint64_t page_mask = ~((uint64_t)s->page_bytes - 1);
    /* Pages first: the chips and byte-sharing of all their lines. */
    for (size_t i = 0; i < s->lines.cap; i++) {
        const uint64_t *l = s->lines.slots + i * words;
        if (!l[L_KEY])
            continue;
        bool fresh;
        uint64_t *p = table_get(&s->pages, key_of(l[L_KEY] & page_mask), 0, &fresh);
        if (!p)
            return gcr_fail(err, GCR_E_NOMEM, "analysis sharing: out of memory");
        const uint64_t *x = ext_of(s, l);
        if (x) {
            p[P_CHIPS] |= x[X_CHIPS];
            p[P_FLAGS] |= x[X_FLAGS] & FLAG_BYTE_SHARED;
        } else {
            p[P_CHIPS] |= 1ull << (l[L_META] >> 32);
        }
    }
    for (size_t i = 0; i < s->lines.cap; i++) {
        const uint64_t *l = s->lines.slots + i * words;
        if (!l[L_KEY])
            continue;
        k->lines++;
        unsigned nbytes = 0;
        for (uint32_t w = 0; w < mw; w++)
            nbytes += gcr_bits_popcount64(l[L_UNION + w]);
        k->bytes += nbytes;
        const uint64_t *x = ext_of(s, l);
        unsigned sms = 1, clusters = 1, chips = 1;
        bool byte_shared = false;
        if (x) {
            sms = clusters = 0;
            uint32_t last_cluster = UINT32_MAX;
            for (uint32_t w = 0; w < s->sm_words; w++)
                for (uint64_t b = x[X_FIRST + mw + w]; b; b &= b - 1) {
                    uint32_t sm = w * 64 + gcr_bits_ctz64(b);
                    uint32_t c = sm / s->cluster_size;
                    sms++;
                    /* SMs come in increasing order, so their clusters do too. */
                    if (c != last_cluster) {
                        clusters++;
                        last_cluster = c;
                    }
                }
            chips = gcr_bits_popcount64(x[X_CHIPS]);
            byte_shared = (x[X_FLAGS] & FLAG_BYTE_SHARED) != 0;
        }
        k->sms_hist[bucket_of(sms)]++;
        k->clusters_hist[bucket_of(clusters)]++;
        k->chips_hist[bucket_of(chips)]++;
        const uint64_t *p = table_find(&s->pages, key_of(l[L_KEY] & page_mask), 0);
        int sac = chips > 1 ? 2 : gcr_bits_popcount64(p[P_CHIPS]) > 1 ? 1 : 0;
        k->sac[sac] += s->line_bytes;
        int cls = chips < 2 ? 0 : byte_shared ? 2 : 1;
        k->line_cls[cls] += s->line_bytes;
    }
    for (size_t i = 0; i < s->pages.cap; i++) {
        const uint64_t *p = s->pages.slots + i * P_WORDS;
        if (!p[0])
            continue;
        k->pages++;
        int cls = gcr_bits_popcount64(p[P_CHIPS]) < 2 ? 0 : (p[P_FLAGS] & FLAG_BYTE_SHARED) ? 2 : 1;
        k->page_cls[cls] += s->page_bytes;
    }
    s->ext_count = 0;
    if (table_reset(&s->lines, MIN_CAP) != 0 || table_reset(&s->others, MIN_CAP) != 0 ||
        table_reset(&s->pages, MIN_CAP) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "analysis sharing: out of memory");
    return 0;
}

/* Histogram buckets 1, 2, 3-4, 5-8, ... up to the one holding max (inclusive). */
static json_t *histogram_json(const uint64_t *hist, uint64_t max)
{
    json_t *o = json_object();
    unsigned top = bucket_of(max ? max : 1);
    for (unsigned b = 0; b <= top; b++) {
        uint64_t lo = b == 0 ? 1 : (1ull << (b - 1)) + 1;
        uint64_t hi = (1ull << b) < max ? (1ull << b) : max;
        if (hi < lo)
            hi = lo;
        char label[48];
        if (lo == hi)
            snprintf(label, sizeof label, "%llu", (unsigned long long)lo);
        else
            snprintf(label, sizeof label, "%llu-%llu", (unsigned long long)lo,
                     (unsigned long long)hi);
        json_object_set_new(o, label, json_integer((json_int_t)hist[b]));
    }
    return o;
}

static json_t *classes_json(const uint64_t *cls)
{
    return json_pack("{s:I, s:I, s:I}", "not_shared_bytes", (json_int_t)cls[0],
                     "false_shared_bytes", (json_int_t)cls[1], "true_shared_bytes",
                     (json_int_t)cls[2]);
}

static int fill(const struct sharing *s, const struct sharing_counts *k, json_t *section)
{
    int rc = 0;
    rc |= json_object_set_new(section, "chips", json_integer(s->chips));
    rc |= json_object_set_new(section, "cluster_size", json_integer(s->cluster_size));
    rc |= json_object_set_new(section, "page_bytes", json_integer(s->page_bytes));
    rc |= json_object_set_new(section, "lines", json_integer((json_int_t)k->lines));
    rc |= json_object_set_new(section, "pages", json_integer((json_int_t)k->pages));
    rc |= json_object_set_new(section, "bytes_touched", json_integer((json_int_t)k->bytes));
    rc |= json_object_set_new(section, "sms_per_line", histogram_json(k->sms_hist, s->num_sms));
    rc |= json_object_set_new(section, "clusters_per_line",
                              histogram_json(k->clusters_hist, s->num_clusters));
    rc |= json_object_set_new(section, "chips_per_line", histogram_json(k->chips_hist, s->chips));
    rc |= json_object_set_new(section, "sac", classes_json(k->sac));
    rc |= json_object_set_new(section, "line", classes_json(k->line_cls));
    rc |= json_object_set_new(section, "page", classes_json(k->page_cls));
    return rc;
}

static int sharing_report_kernel(void *self, json_t *section, struct gcr_err *err)
{
    struct sharing *s = self;
    if (s->failed)
        return gcr_fail(err, GCR_E_NOMEM, "analysis sharing: out of memory");
    memset(&s->kernel, 0, sizeof s->kernel);
    if (summarise(s, err) != 0)
        return -1;
    gcr_add_u64s((uint64_t *)&s->total, (const uint64_t *)&s->kernel,
                 sizeof(struct sharing_counts) / sizeof(uint64_t));
    if (fill(s, &s->kernel, section) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

static int sharing_report_total(void *self, json_t *section, struct gcr_err *err)
{
    struct sharing *s = self;
    if (fill(s, &s->total, section) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

const struct gcr_analysis_ops gcr_analysis_sharing = {
    .name = "sharing",
    .summary = "SMs, clusters and chips per line; SAC true/false/not-shared bytes",
    .subscribe = GCR_EV_KERNEL_BEGIN | GCR_EV_INSN,
    .create = sharing_create,
    .on_event = sharing_on_event,
    .report_kernel = sharing_report_kernel,
    .report_total = sharing_report_total,
    .destroy = sharing_destroy,
};
