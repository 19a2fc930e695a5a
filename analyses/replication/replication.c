/* Replication across L1 instances (README.md in this folder defines every figure).
 *
 * The analysis keeps, for every line resident in at least one L1, the set of
 * L1 instances holding it, built only from L1_ACCESS (access->allocated) and
 * L1_EVICT events, so it works with any L1 organisation. These live lines sit
 * in an open-addressing table (linear probing, backward-shift deletion) whose
 * size follows the L1s' contents, not the kernel's footprint. An entry is 32
 * bytes (the line, running sums for its time integrals, up to four holders),
 * two to a host cache line, so an event reads one memory line and allocates
 * nothing; a line with more holders keeps them in a pool bitset.
 *
 * A line that leaves the last L1 before the kernel ends appends its stay (its
 * time integrals area and held) to a log written sequentially: no probe of a
 * table as large as the kernel's footprint, so a departure touches no cold
 * host cache line. copies_per_line averages each line over all its stays in
 * the kernel, so the stays of one line are merged by key only when needed:
 * at the kernel's end, and, for a long kernel, whenever the log has doubled
 * since the last merge (so a kernel that keeps evicting and refetching the
 * same lines keeps the log within a few times its distinct lines). A merge
 * partitions the log by hash into blocks small enough for the CPU caches and
 * merges each block in a small table: every pass is sequential or
 * cache-resident. */
#include <stdlib.h>
#include <string.h>

#include "core/table_memory.h"
#include "core/bits.h"
#include "gcreplay/analysis.h"

/* One line held by at least one L1: who holds it and its time integrals this
 * kernel, in 32 bytes (two to a host cache line, so a probe run rarely leaves
 * the line it starts in).
 *
 * The integrals are kept as running sums that need no update while copies
 * stay constant: with `now` the current step, the area so far this kernel is
 * acc + copies * now and the steps held are now - start. A change of copies
 * by d at step t subtracts d * t from acc, which keeps acc + copies * t (the
 * area up to t) unchanged, so the area adds copies * dt over each interval
 * exactly as summing copies * (t' - t) at every change would: the same
 * integers. The clock (`now`) stands still between kernels, so changes there
 * add nothing; a kernel's start sets acc = -copies * start and start to its
 * step (area and held 0 there), as the report at its end does for lines
 * kept. Arithmetic is modulo 2^64 (acc may wrap below 0); the areas it gives
 * are the true ones, which fit 64 bits. */
struct line_entry {
    uint64_t key;     /* line_addr | 1 (line addresses are aligned, so bit 0 is free); 0 = empty */
    uint64_t acc;     /* area this kernel = acc + copies * now (mod 2^64) */
    uint64_t start;   /* step the line's stay began, or the kernel's start if later */
    uint64_t holders; /* who holds it: HOLDER_LANES lanes of unit + 1 (0 = free lane), or
                         a wide set: lane 3 WIDE, lane 2 copies, lanes 0-1 index in the pool */
};

/* Most lines are held by few L1s: up to four holders sit in the entry as
 * 16-bit lanes. The fifth copy moves the line's holders to a bitset of
 * num_l1s bits in a pool (one more host line for that line's events) until
 * the line leaves its last L1. */
#define HOLDER_LANES 4
#define WIDE 0xffffu /* lane 3 of a line whose holders are a pool bitset */
#define MAX_LANE_UNITS 0xfffeu /* unit + 1 must stay below WIDE; copies fit lane 2 */

/* A stay of a line this kernel (or, after a merge, all its stays so far). */
struct stay {
    uint64_t key; /* as line_entry */
    uint64_t area, held;
};

/* Sum of per-line averages a(x) = area / held, each rounded to a double once,
 * kept exactly as an integer count of 2^-52: a(x) >= 1 (a held line has at
 * least one copy), so its ulp is at least 2^-52 and a(x) * 2^52 is an integer,
 * below 2^84 since a(x) <= num_l1s < 2^32. The sum is therefore exact and
 * independent of the order in which lines are added (the order of a hash
 * table's slots must not leak into the figures); it is rounded once when
 * reported. 2^128 leaves room for 2^44 lines. */
__extension__ typedef unsigned __int128 exact_sum;
#define EXACT_SCALE 4503599627370496.0 /* 2^52 */

static void exact_add(exact_sum *sum, double avg)
{
    /* avg >= 1 is finite and normal: avg = (2^52 + fraction) * 2^(e - 52) with
     * e >= 0 its unbiased exponent, so avg * 2^52 = (2^52 + fraction) << e. */
    uint64_t bits;
    memcpy(&bits, &avg, sizeof bits);
    unsigned e = (unsigned)((bits >> 52) & 0x7ff) - 1023u;
    uint64_t mant = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    *sum += (exact_sum)mant << e;
}

static double exact_value(exact_sum sum)
{
    return (double)sum / EXACT_SCALE; /* one rounding; dividing by 2^52 is exact */
}

/* Counters of one period (a kernel or the whole run). */
struct period {
    uint64_t misses[2];            /* [0] reads, [1] writes */
    uint64_t replicated_misses[2]; /* of which the line was resident in another L1 */
    uint64_t steps;                /* clock span integrated */
    uint64_t area_copies;          /* sum over steps of all resident line copies */
    uint64_t area_lines;           /* sum over steps of distinct resident lines */
    uint64_t area_replicated;      /* sum over steps of copies of lines with >= 2 copies */
    uint32_t max_copies;
    uint64_t lines_held;           /* lines resident for >= 1 step (per-line average) */
    exact_sum line_avg_sum;        /* sum over those lines of their time-averaged copies */
};

struct replication {
    uint32_t num_l1s, words; /* words: of a pool bitset */
    bool skip_hits;          /* gcr_sim_info.l1_whole_line_evictions */
    struct line_entry *table;
    size_t cap, used;   /* cap is a power of two */

    uint64_t *pool;        /* bitsets of lines with more than HOLDER_LANES holders */
    uint32_t *pool_free;   /* indexes of free pool bitsets */
    size_t pool_cap, pool_top, pool_free_n; /* bitsets allocated; first never used; free */
    unsigned shift;     /* 64 - log2(cap), for the multiplicative hash */

    struct stay *stays; /* stays of lines that left every L1 this kernel, in departure order */
    size_t stays_cap, stays_used;
    size_t merged_at;   /* stays_used after the last merge */
    size_t merge_floor; /* no merge while the kernel runs below this many stays */

    /* Live totals, integrated lazily over the clock. */
    uint64_t now;              /* step up to which the areas are integrated */
    uint64_t resident_copies;  /* sum over lines of copies */
    uint64_t resident_lines;   /* lines with copies >= 1 */
    uint64_t replicated_copies; /* sum of copies over lines with copies >= 2 */
    bool in_kernel;
    bool oom;                  /* a departed line could not be recorded */

    struct period kernel, total;
};

static size_t slot_of(const struct replication *r, uint64_t key)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> r->shift);
}

static inline struct line_entry *entry_at(const struct replication *r, size_t slot)
{
    return &r->table[slot];
}

static int table_alloc(struct replication *r, size_t cap)
{
    r->table = gcr_table_alloc(cap * sizeof *r->table);
    if (!r->table)
        return -1;
    r->cap = cap;
    r->used = 0;
    r->shift = 64u - (unsigned)__builtin_ctzll(cap);
    return 0;
}

/* Rebuilds the table at capacity cap. */
static int table_rebuild(struct replication *r, size_t cap)
{
    struct line_entry *old = r->table;
    size_t old_cap = r->cap;
    if (table_alloc(r, cap) != 0) {
        r->table = old;
        r->cap = old_cap;
        r->shift = 64u - (unsigned)__builtin_ctzll(old_cap);
        return -1;
    }
    size_t mask = r->cap - 1;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].key)
            continue;
        size_t j = slot_of(r, old[i].key);
        while (r->table[j].key)
            j = (j + 1) & mask;
        r->table[j] = old[i];
        r->used++;
    }
    gcr_table_free(old, old_cap * sizeof *old);
    return 0;
}

static struct line_entry *table_find(struct replication *r, uint64_t key, size_t *slot)
{
    size_t mask = r->cap - 1;
    for (size_t i = slot_of(r, key);; i = (i + 1) & mask) {
        struct line_entry *e = entry_at(r, i);
        if (e->key == key) {
            *slot = i;
            return e;
        }
        if (!e->key)
            return NULL;
    }
    return NULL;
}

/* Finds or inserts (no holders, its stay starting now); NULL only if the
 * table cannot grow (the line is then not tracked). */
static struct line_entry *table_get(struct replication *r, uint64_t key, size_t *slot)
{
    struct line_entry *e = table_find(r, key, slot);
    if (e)
        return e;
    /* Keep the load at most 1/2 so probe sequences stay short. */
    if ((r->used + 1) * 2 > r->cap && table_rebuild(r, r->cap * 2) != 0)
        return NULL;
    size_t mask = r->cap - 1, i = slot_of(r, key);
    while (r->table[i].key)
        i = (i + 1) & mask;
    r->table[i] = (struct line_entry){.key = key, .start = r->now};
    r->used++;
    *slot = i;
    return &r->table[i];
}

/* Removes slot i, shifting later members of its probe run back so that
 * lookups never need tombstones. */
static void table_remove(struct replication *r, size_t hole)
{
    size_t mask = r->cap - 1;
    for (size_t j = (hole + 1) & mask; r->table[j].key; j = (j + 1) & mask) {
        size_t h = slot_of(r, r->table[j].key);
        /* The entry at j may move to the hole only if its home is not in (hole, j]. */
        bool stays = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
        if (!stays) {
            r->table[hole] = r->table[j];
            hole = j;
        }
    }
    r->table[hole].key = 0;
    r->used--;
}

/* ---- holders: lanes in the entry, or a pool bitset ---- */

static inline unsigned lane(uint64_t holders, unsigned i)
{
    return (unsigned)(holders >> (16 * i)) & 0xffffu;
}

static inline bool is_wide(uint64_t holders)
{
    return lane(holders, 3) == WIDE;
}

static inline uint64_t *wide_bits(const struct replication *r, uint64_t holders)
{
    return r->pool + (size_t)(uint32_t)holders * r->words;
}

static uint32_t copies_of(uint64_t holders)
{
    if (is_wide(holders))
        return lane(holders, 2);
    uint32_t n = 0;
    for (unsigned i = 0; i < HOLDER_LANES; i++)
        n += lane(holders, i) != 0;
    return n;
}

static bool holds(const struct replication *r, uint64_t holders, uint32_t unit)
{
    if (is_wide(holders))
        return (wide_bits(r, holders)[unit >> 6] >> (unit & 63)) & 1u;
    for (unsigned i = 0; i < HOLDER_LANES; i++)
        if (lane(holders, i) == unit + 1)
            return true;
    return false;
}

/* A free pool bitset (zeroed), or UINT32_MAX if out of memory. */
static uint32_t pool_take(struct replication *r)
{
    if (r->pool_free_n)
        return r->pool_free[--r->pool_free_n];
    if (r->pool_top == r->pool_cap) {
        size_t cap = r->pool_cap ? r->pool_cap * 2 : 64;
        if (cap > UINT32_MAX)
            return UINT32_MAX;
        uint64_t *pool = realloc(r->pool, cap * r->words * sizeof *pool);
        if (!pool)
            return UINT32_MAX;
        r->pool = pool;
        uint32_t *free_list = realloc(r->pool_free, cap * sizeof *free_list);
        if (!free_list)
            return UINT32_MAX;
        r->pool_free = free_list;
        r->pool_cap = cap;
    }
    memset(r->pool + r->pool_top * r->words, 0, r->words * sizeof *r->pool);
    return (uint32_t)r->pool_top++;
}

/* Adds unit (not a holder yet) to e's holders; -1 if out of memory. */
static int holder_add(struct replication *r, struct line_entry *e, uint32_t unit)
{
    uint64_t h = e->holders;
    if (is_wide(h)) {
        wide_bits(r, h)[unit >> 6] |= 1ull << (unit & 63);
        e->holders = h + (1ull << 32); /* lane 2: copies + 1 */
        return 0;
    }
    for (unsigned i = 0; i < HOLDER_LANES; i++)
        if (!lane(h, i)) {
            e->holders = h | (uint64_t)(unit + 1) << (16 * i);
            return 0;
        }
    /* Lanes full: the holders move to a bitset. */
    uint32_t at = pool_take(r);
    if (at == UINT32_MAX)
        return -1;
    uint64_t *bits = r->pool + (size_t)at * r->words;
    uint32_t copies = 0;
    for (unsigned i = 0; i < HOLDER_LANES; i++) {
        uint32_t u = lane(h, i) - 1u;
        bits[u >> 6] |= 1ull << (u & 63);
        copies++;
    }
    bits[unit >> 6] |= 1ull << (unit & 63);
    e->holders = (uint64_t)WIDE << 48 | (uint64_t)(copies + 1) << 32 | at;
    return 0;
}

/* Removes unit (a holder) from e's holders. A wide set stays wide until the
 * line leaves its last L1 (holder_release). */
static void holder_remove(struct replication *r, struct line_entry *e, uint32_t unit)
{
    uint64_t h = e->holders;
    if (is_wide(h)) {
        wide_bits(r, h)[unit >> 6] &= ~(1ull << (unit & 63));
        e->holders = h - (1ull << 32);
        return;
    }
    for (unsigned i = 0; i < HOLDER_LANES; i++)
        if (lane(h, i) == unit + 1) {
            e->holders = h & ~(0xffffull << (16 * i));
            return;
        }
}

/* The line left its last L1: its pool bitset, if any, is free again. */
static void holder_release(struct replication *r, struct line_entry *e)
{
    if (is_wide(e->holders))
        r->pool_free[r->pool_free_n++] = (uint32_t)e->holders;
    e->holders = 0;
}

/* Merges the stays of each line in the log into one record (area and held
 * summed). The log is first scattered by the top bits of a hash into
 * partitions of about STAY_PART stays in a second buffer (one sequential read,
 * n / STAY_PART independent sequential write streams: no load waits on another
 * as in an in-place permutation), then each partition is merged in a table of
 * about twice its size (768 KB, within a host's L2 cache) and its lines are
 * written back to the log, sequentially. The result does not depend on the
 * order of the stays' arrival other than through that fixed procedure. */
#define STAY_PART 16384
static inline size_t stay_part(uint64_t key, unsigned bits)
{
    return bits ? (size_t)(gcr_hash_fmix64(key) >> (64 - bits)) : 0;
}

static int stays_merge(struct replication *r)
{
    size_t n = r->stays_used;
    r->merged_at = n;
    if (n < 2)
        return 0;
    unsigned bits = 0;
    while ((n >> bits) > STAY_PART && bits < 16)
        bits++;
    size_t parts = (size_t)1 << bits;
    size_t *start = calloc(parts + 1, sizeof *start);
    struct stay *scattered = malloc(n * sizeof *scattered);
    if (!start || !scattered) {
        free(start);
        free(scattered);
        return -1;
    }
    const struct stay *log = r->stays;
    for (size_t i = 0; i < n; i++)
        start[stay_part(log[i].key, bits) + 1]++;
    size_t largest = 0;
    for (size_t p = 0; p < parts; p++) {
        if (start[p + 1] > largest)
            largest = start[p + 1];
        start[p + 1] += start[p];
    }
    /* Scatter, advancing start[p] to the end of partition p ... */
    for (size_t i = 0; i < n; i++)
        scattered[start[stay_part(log[i].key, bits)]++] = log[i];
    /* ... so that partition p is now [start[p - 1], start[p]) (start[-1] = 0). */
    size_t cap = 16;
    while (cap < 2 * largest)
        cap *= 2;
    struct stay *merge = calloc(cap, sizeof *merge);
    size_t *taken = malloc(largest * sizeof *taken); /* slots the partition used */
    if (!merge || !taken) {
        free(merge);
        free(taken);
        free(scattered);
        free(start);
        return -1;
    }
    /* Slots by the hash's low bits (the partition used the top ones). */
    size_t out = 0, mask = cap - 1;
    for (size_t p = 0, from = 0; p < parts; from = start[p], p++) {
        size_t used = 0;
        for (size_t i = from; i < start[p]; i++) {
            const struct stay *st = &scattered[i];
            size_t j = (size_t)gcr_hash_fmix64(st->key) & mask;
            while (merge[j].key && merge[j].key != st->key)
                j = (j + 1) & mask;
            if (!merge[j].key) {
                merge[j].key = st->key;
                taken[used++] = j;
            }
            merge[j].area += st->area;
            merge[j].held += st->held;
        }
        /* In order of first appearance in the partition; the table is left empty. */
        for (size_t k = 0; k < used; k++) {
            r->stays[out++] = merge[taken[k]];
            merge[taken[k]] = (struct stay){0};
        }
    }
    free(taken);
    free(merge);
    free(scattered);
    free(start);
    r->stays_used = out;
    r->merged_at = out;
    return 0;
}

/* Appends a stay of a line (its area and held steps this kernel) to the log.
 * A full log of at least merge_floor stays is merged first if it has doubled
 * since the last merge, and grows if it is still more than half full. Below
 * the floor (at first eight times the lines the L1s hold, so most kernels
 * never merge before their end) the log just grows. A log that repeats lines
 * shrinks; one of mostly distinct lines hardly does, so the floor then rises
 * to four times what is left, and a kernel that streams through distinct
 * lines merges O(1) times (the log then stays within about four times the
 * kernel's departed lines). */
static int stay_add(struct replication *r, uint64_t key, uint64_t area, uint64_t held)
{
    if (r->stays_used == r->stays_cap) {
        size_t before = r->stays_used;
        if (before >= r->merge_floor && before >= 2 * r->merged_at) {
            if (stays_merge(r) != 0)
                return -1;
            if (r->stays_used * 2 > before && r->merge_floor < 4 * r->stays_used)
                r->merge_floor = 4 * r->stays_used;
        }
        if (r->stays_used * 2 > r->stays_cap) {
            size_t cap = r->stays_cap * 2;
            struct stay *bigger = realloc(r->stays, cap * sizeof *bigger);
            if (!bigger)
                return -1;
            r->stays = bigger;
            r->stays_cap = cap;
        }
    }
    r->stays[r->stays_used++] = (struct stay){key, area, held};
    return 0;
}

/* Adds the time from the last event to step to every area. */
static void advance(struct replication *r, uint64_t step)
{
    if (!r->in_kernel || step <= r->now)
        return;
    uint64_t dt = step - r->now;
    struct period *ps[2] = {&r->kernel, &r->total};
    for (int k = 0; k < 2; k++) {
        ps[k]->steps += dt;
        ps[k]->area_copies += r->resident_copies * dt;
        ps[k]->area_lines += r->resident_lines * dt;
        ps[k]->area_replicated += r->replicated_copies * dt;
    }
    r->now = step;
}

/* Moves a line from `before` to `after` copies (one more or one fewer) at
 * step now: keeps acc + copies * now, the area so far, unchanged (see
 * line_entry), and the live totals. */
static void line_change(struct replication *r, struct line_entry *e, uint32_t before,
                        uint32_t after)
{
    if (after > before)
        e->acc -= r->now;
    else
        e->acc += r->now;
    r->resident_copies = r->resident_copies + after - before;
    r->resident_lines = r->resident_lines + (after >= 1) - (before >= 1);
    r->replicated_copies = r->replicated_copies + (after >= 2 ? after : 0) -
                           (before >= 2 ? before : 0);
    if (after > r->kernel.max_copies)
        r->kernel.max_copies = after;
    if (after > r->total.max_copies)
        r->total.max_copies = after;
}

/* The line in slot left its last L1 (no copies: its area is acc): its stay
 * joins the log of stays if it lasted any time this kernel, and the slot is
 * freed. */
static void line_depart(struct replication *r, size_t slot)
{
    struct line_entry *e = entry_at(r, slot);
    uint64_t held = r->now - e->start;
    if (held && stay_add(r, e->key, e->acc, held) != 0)
        r->oom = true;
    holder_release(r, e);
    table_remove(r, slot);
}

/* unit stops holding the line in slot (it did). */
static void line_leave(struct replication *r, size_t slot, uint32_t unit)
{
    struct line_entry *e = entry_at(r, slot);
    uint32_t copies = copies_of(e->holders);
    holder_remove(r, e, unit);
    line_change(r, e, copies, copies - 1);
    if (copies == 1)
        line_depart(r, slot);
}

static void on_access(struct replication *r, const struct gcr_event *ev)
{
    const struct gcr_access *a = ev->access;
    uint32_t unit = ev->unit;
    if (unit >= r->num_l1s)
        return;
    /* A hit finds the line where the events installed it (the organisation
     * says so): it is no miss and installs nothing, so the table, a cold host
     * line per probe, is left alone. */
    if (a->outcome == GCR_HIT && r->skip_hits)
        return;
    uint64_t key = ev->line_addr | 1u;
    size_t slot = 0;
    struct line_entry *e = table_find(r, key, &slot);
    bool here = e && holds(r, e->holders, unit);
    if (a->outcome != GCR_HIT) {
        /* Held elsewhere: copies other than a (stale or sector-missing) copy in this L1. */
        uint32_t others = e ? copies_of(e->holders) - (here ? 1u : 0u) : 0u;
        int w = ev->is_write ? 1 : 0;
        r->kernel.misses[w]++;
        r->total.misses[w]++;
        if (others) {
            r->kernel.replicated_misses[w]++;
            r->total.replicated_misses[w]++;
        }
    }
    /* A line miss means this L1 does not hold the line, whatever we believed
     * (an organisation may drop lines without events, e.g. when resized). */
    if (a->outcome == GCR_MISS_LINE && here) {
        bool last = copies_of(e->holders) == 1;
        line_leave(r, slot, unit);
        if (last)
            e = NULL; /* it left the table */
        here = false;
    }
    bool installs = a->allocated || a->outcome != GCR_MISS_LINE;
    if (installs && !here) {
        if (!e && !(e = table_get(r, key, &slot)))
            return;
        uint32_t copies = copies_of(e->holders);
        if (holder_add(r, e, unit) != 0) {
            r->oom = true;
            return;
        }
        line_change(r, e, copies, copies + 1);
    }
}

static void on_evict(struct replication *r, const struct gcr_event *ev)
{
    uint32_t unit = ev->unit;
    if (unit >= r->num_l1s)
        return;
    size_t slot = 0;
    struct line_entry *e = table_find(r, ev->access->victim_line | 1u, &slot);
    if (e && holds(r, e->holders, unit))
        line_leave(r, slot, unit);
}

static void on_event(void *self, const struct gcr_event *ev)
{
    struct replication *r = self;
    switch (ev->kind) {
    case GCR_EV_KERNEL_BEGIN:
        /* Lines kept from the previous kernel start their stays now: area
         * and held 0 at this step. */
        r->in_kernel = true;
        r->now = ev->step;
        memset(&r->kernel, 0, sizeof r->kernel);
        for (size_t i = 0; i < r->cap; i++) {
            struct line_entry *e = entry_at(r, i);
            if (!e->key)
                continue;
            uint32_t copies = copies_of(e->holders);
            e->start = ev->step;
            e->acc = 0 - (uint64_t)copies * ev->step;
            if (copies > r->kernel.max_copies)
                r->kernel.max_copies = copies;
        }
        break;
    case GCR_EV_KERNEL_END:
        advance(r, ev->step);
        /* Kernel-boundary invalidations come at the same step: no time passes. */
        break;
    case GCR_EV_L1_ACCESS:
        advance(r, ev->step);
        on_access(r, ev);
        break;
    case GCR_EV_L1_EVICT:
        advance(r, ev->step);
        on_evict(r, ev);
        break;
    default:
        break;
    }
}

static json_t *ratio(uint64_t num, uint64_t den)
{
    return den ? json_real((double)num / (double)den) : json_null();
}

static json_t *split(uint64_t reads, uint64_t writes)
{
    return json_pack("{s:I, s:I, s:I}", "reads", (json_int_t)reads, "writes",
                     (json_int_t)writes, "all", (json_int_t)(reads + writes));
}

static int report_period(const struct period *p, json_t *s, struct gcr_err *err)
{
    const uint64_t *m = p->misses, *rm = p->replicated_misses;
    json_t *copies = ratio(p->area_copies, p->area_lines);
    json_t *per_line = p->lines_held
                           ? json_real(exact_value(p->line_avg_sum) / (double)p->lines_held)
                           : json_null();
    int rc = 0;
    rc |= json_object_set_new(s, "misses", split(m[0], m[1]));
    rc |= json_object_set_new(s, "replicated_misses", split(rm[0], rm[1]));
    rc |= json_object_set_new(s, "replication_ratio",
                              json_pack("{s:o, s:o, s:o}", "reads", ratio(rm[0], m[0]), "writes",
                                        ratio(rm[1], m[1]), "all",
                                        ratio(rm[0] + rm[1], m[0] + m[1])));
    rc |= json_object_set_new(s, "steps", json_integer((json_int_t)p->steps));
    rc |= json_object_set_new(s, "copies_per_resident_line", copies);
    rc |= json_object_set_new(s, "replicas_per_resident_line",
                              json_is_real(copies) ? json_real(json_real_value(copies) - 1.0)
                                                   : json_null());
    rc |= json_object_set_new(s, "lines_resident", json_integer((json_int_t)p->lines_held));
    rc |= json_object_set_new(s, "copies_per_line", per_line);
    rc |= json_object_set_new(s, "replicas_per_line",
                              json_is_real(per_line) ? json_real(json_real_value(per_line) - 1.0)
                                                     : json_null());
    rc |= json_object_set_new(s, "max_copies", json_integer((json_int_t)p->max_copies));
    rc |= json_object_set_new(s, "resident_copies_avg",
                              ratio(p->area_copies, p->steps));
    rc |= json_object_set_new(s, "replicated_copies_avg",
                              ratio(p->area_replicated, p->steps));
    rc |= json_object_set_new(s, "replicated_fraction",
                              ratio(p->area_replicated, p->area_copies));
    if (rc)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    return 0;
}

static int report_kernel(void *self, json_t *section, struct gcr_err *err)
{
    struct replication *r = self;
    /* Close every live line's interval at the kernel's end; with the departed
     * lines' stays, every stay of this kernel is then in the log. */
    for (size_t i = 0; i < r->cap; i++) {
        struct line_entry *e = entry_at(r, i);
        if (!e->key)
            continue;
        uint64_t copies = copies_of(e->holders), held = r->now - e->start;
        if (held && stay_add(r, e->key, e->acc + copies * r->now, held) != 0)
            r->oom = true;
        /* Area and held 0 from here (the clock stands still until the next kernel). */
        e->acc = 0 - copies * r->now;
        e->start = r->now;
    }
    if (r->oom || stays_merge(r) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "analysis replication: out of memory");
    /* One record per line held this kernel. */
    for (size_t i = 0; i < r->stays_used; i++) {
        double avg = (double)r->stays[i].area / (double)r->stays[i].held;
        exact_add(&r->kernel.line_avg_sum, avg);
    }
    r->kernel.lines_held = r->stays_used;
    r->total.lines_held += r->stays_used;
    r->total.line_avg_sum += r->kernel.line_avg_sum;
    r->in_kernel = false;
    /* Stays matter only within their kernel. */
    r->stays_used = 0;
    r->merged_at = 0;
    return report_period(&r->kernel, section, err);
}

static int report_total(void *self, json_t *section, struct gcr_err *err)
{
    struct replication *r = self;
    return report_period(&r->total, section, err);
}

static void destroy(void *self)
{
    struct replication *r = self;
    if (!r)
        return;
    gcr_table_free(r->table, r->cap * sizeof *r->table);
    free(r->stays);
    free(r->pool);
    free(r->pool_free);
    free(r);
}

static int create(void **self, const json_t *options, const struct gcr_sim_info *info,
                  struct gcr_err *err)
{
    if (options && json_object_size(options) > 0) {
        const char *key = json_object_iter_key(json_object_iter((json_t *)options));
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.replication.%s: unknown key "
                        "(replication has no options)", info->config->origin, key);
    }
    /* Units are kept in 16-bit lanes as unit + 1, which must stay below WIDE
     * (the config allows far fewer SMs, hence L1s, than that). */
    if (info->num_l1s > MAX_LANE_UNITS)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.analyses.replication: at most %u L1 "
                        "instances (the organisation has %u)", info->config->origin,
                        MAX_LANE_UNITS, info->num_l1s);
    struct replication *r = calloc(1, sizeof *r);
    if (!r)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    r->num_l1s = info->num_l1s;
    r->skip_hits = info->l1_whole_line_evictions;
    r->words = (info->num_l1s + 63) / 64;
    if (r->words == 0)
        r->words = 1;
    /* Live lines are bounded by the L1s' capacity: start at twice it. */
    const struct gcr_config *cfg = info->config;
    uint64_t l1_lines = (uint64_t)info->num_l1s * cfg->l1.sets * cfg->l1.ways;
    size_t cap = 1024;
    while (cap < 2 * l1_lines && cap < ((size_t)1 << 30))
        cap *= 2;
    r->merge_floor = 8 * l1_lines > 65536 ? (size_t)(8 * l1_lines) : 65536;
    r->stays_cap = 4096;
    r->stays = malloc(r->stays_cap * sizeof *r->stays);
    if (!r->stays || table_alloc(r, cap) != 0) {
        free(r->stays);
        free(r);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    *self = r;
    return 0;
}

const struct gcr_analysis_ops gcr_analysis_replication = {
    .name = "replication",
    .summary = "L1 misses whose line another L1 holds, and copies per line across L1s",
    .subscribe = GCR_EV_KERNEL_BEGIN | GCR_EV_KERNEL_END | GCR_EV_L1_ACCESS | GCR_EV_L1_EVICT,
    .create = create,
    .on_event = on_event,
    .report_kernel = report_kernel,
    .report_total = report_total,
    .destroy = destroy,
};
