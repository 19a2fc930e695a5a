/* Cache geometry validation and the names of the policy enums. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cache/cache_internal.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail_why(char *why, size_t why_len, const char *fmt, ...)
{
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Each index function's own constraints on the geometry. */
static int index_check(const struct gcr_cache_geometry *g, char *why, size_t why_len)
{
    switch (g->index) {
    case GCR_INDEX_LINEAR:
        return 0;
    case GCR_INDEX_XOR:
        if (!gcr_is_pow2(g->sets))
            return fail_why(why, why_len, "index xor needs a power-of-two number of sets "
                            "(got %u)", g->sets);
        return 0;
    case GCR_INDEX_FERMI:
        if (g->sets != 32 && g->sets != 64)
            return fail_why(why, why_len, "index fermi needs 32 or 64 sets (got %u)", g->sets);
        if (g->line_bytes != 128)
            return fail_why(why, why_len, "index fermi needs line_bytes 128 (got %u)",
                            g->line_bytes);
        return 0;
    case GCR_INDEX_IPOLY:
        if (g->sets != 16 && g->sets != 32 && g->sets != 64)
            return fail_why(why, why_len, "index ipoly needs 16, 32 or 64 sets (got %u)",
                            g->sets);
        return 0;
    case GCR_INDEX_COUNT:
        break;
    }
    return fail_why(why, why_len, "index must be linear, xor, fermi or ipoly (got %u)",
                    (unsigned)g->index);
}

int gcr_cache_geometry_check(const struct gcr_cache_geometry *g, char *why, size_t why_len)
{
    if (g->sets < 1)
        return fail_why(why, why_len, "sets must be at least 1 (got %u)", g->sets);
    if (g->ways < 1 || g->ways > 65535)
        return fail_why(why, why_len, "ways must be between 1 and 65535 (got %u)", g->ways);
    if (!gcr_is_pow2(g->line_bytes) || g->line_bytes < 16 || g->line_bytes > 256)
        return fail_why(why, why_len,
                        "line_bytes must be a power of two between 16 and 256 (got %u)",
                        g->line_bytes);
    if (!gcr_is_pow2(g->sector_bytes) || g->sector_bytes > g->line_bytes)
        return fail_why(why, why_len,
                        "sector_bytes must be a power of two dividing line_bytes %u (got %u)",
                        g->line_bytes, g->sector_bytes);
    if (g->line_bytes / g->sector_bytes > 32)
        return fail_why(why, why_len,
                        "sector_bytes must split a line into at most 32 sectors "
                        "(got %u sectors)", g->line_bytes / g->sector_bytes);
    if ((uint64_t)g->sets * g->ways > GCR_CACHE_MAX_LINES)
        return fail_why(why, why_len, "sets x ways must be at most 2^%d lines (got %llu)",
                        GCR_CACHE_MAX_LINES_LOG2,
                        (unsigned long long)g->sets * g->ways);
    if ((unsigned)g->repl >= GCR_REPL_COUNT)
        return fail_why(why, why_len, "replacement must be lru, fifo, random or nru (got %d)",
                        (int)g->repl);
    if ((unsigned)g->index >= GCR_INDEX_COUNT)
        return fail_why(why, why_len, "index must be linear, xor, fermi or ipoly (got %d)",
                        (int)g->index);
    if ((unsigned)g->write_policy >= GCR_WRITE_POLICY_COUNT)
        return fail_why(why, why_len,
                        "write_policy must be write_evict, write_through or write_back "
                        "(got %d)", (int)g->write_policy);
    if ((unsigned)g->write_alloc >= GCR_WALLOC_COUNT)
        return fail_why(why, why_len,
                        "write_allocate must be none, fetch or validate (got %d)",
                        (int)g->write_alloc);
    if (g->write_policy == GCR_WRITE_EVICT && g->write_alloc != GCR_WALLOC_NONE)
        return fail_why(why, why_len,
                        "write_allocate must be none with write_evict (got %s)",
                        gcr_write_alloc_name(g->write_alloc));
    if (g->strip_count > 1) {
        if (!gcr_is_pow2(g->strip_bytes) || g->strip_bytes < g->line_bytes)
            return fail_why(why, why_len,
                            "strip_bytes must be a power of two of at least line_bytes %u "
                            "(got %llu)", g->line_bytes, (unsigned long long)g->strip_bytes);
        /* The strip period strip_bytes x strip_count must not overflow. */
        if (g->strip_bytes > (UINT64_MAX >> 1) / g->strip_count)
            return fail_why(why, why_len,
                            "strip_bytes x strip_count must be below 2^63 (got %llu x %u)",
                            (unsigned long long)g->strip_bytes, g->strip_count);
    }
    return index_check(g, why, why_len);
}

static const char *const repl_names[GCR_REPL_COUNT] = {"lru", "fifo", "random", "nru"};
static const char *const index_names[GCR_INDEX_COUNT] = {"linear", "xor", "fermi", "ipoly"};
static const char *const write_policy_names[GCR_WRITE_POLICY_COUNT] = {
    "write_evict", "write_through", "write_back"};
static const char *const write_alloc_names[GCR_WALLOC_COUNT] = {"none", "fetch", "validate"};

static const char *name_of(const char *const *names, int count, int i)
{
    return i >= 0 && i < count ? names[i] : "unknown";
}

static int index_of(const char *const *names, int count, const char *s)
{
    if (!s)
        return -1;
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

const char *gcr_repl_name(enum gcr_repl_policy p)
{
    return name_of(repl_names, GCR_REPL_COUNT, (int)p);
}

const char *gcr_index_name(enum gcr_index_fn f)
{
    return name_of(index_names, GCR_INDEX_COUNT, (int)f);
}

const char *gcr_write_policy_name(enum gcr_write_policy p)
{
    return name_of(write_policy_names, GCR_WRITE_POLICY_COUNT, (int)p);
}

const char *gcr_write_alloc_name(enum gcr_write_alloc a)
{
    return name_of(write_alloc_names, GCR_WALLOC_COUNT, (int)a);
}

int gcr_repl_from_name(const char *s) { return index_of(repl_names, GCR_REPL_COUNT, s); }

int gcr_index_from_name(const char *s) { return index_of(index_names, GCR_INDEX_COUNT, s); }

int gcr_write_policy_from_name(const char *s)
{
    return index_of(write_policy_names, GCR_WRITE_POLICY_COUNT, s);
}

int gcr_write_alloc_from_name(const char *s)
{
    return index_of(write_alloc_names, GCR_WALLOC_COUNT, s);
}
