/* The plain-text trace format: one record per line, for hand-written tests,
 * examples and for looking inside other traces with `gcreplay convert`.
 *
 * The grammar is specified in trace-formats/text/README.md; this file is its
 * only implementation. The reader streams line by line (memory is bounded by
 * the longest line plus a set of finished CTAs of the open kernel) and applies
 * the stream rules shared by every format (src/core/stream.h) to each record,
 * so a text trace that reads without error is a valid record stream. The
 * writer applies the same rules, so it never produces a file the reader would
 * reject. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/numfmt.h"
#include "core/stream.h"
#include "gcreplay/format.h"
#include "io/bytesrc.h"
#include "io/files.h"

#define TEXT_MAGIC "#gcreplay-text "
#define TEXT_MAGIC_LEN (sizeof TEXT_MAGIC - 1)
#define TEXT_VERSION "1"
#define TEXT_HEADER TEXT_MAGIC TEXT_VERSION

/* ------------------------------------------------------------------------ */
/* Tokens and numbers.                                                       */

struct tok {
    const char *p;
    size_t n;
};

/* Fields are separated by spaces and tabs; a `#` that begins a field starts a
 * comment running to the end of the line. Returns false at the end of fields. */
static bool next_tok(const char **cur, const char *end, struct tok *t)
{
    const char *p = *cur;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    t->p = p;
    t->n = 0;
    if (p == end || *p == '#') {
        *cur = end;
        return false;
    }
    while (p < end && *p != ' ' && *p != '\t')
        p++;
    t->n = (size_t)(p - t->p);
    *cur = p;
    return true;
}

static bool tok_is(const struct tok *t, const char *s)
{
    size_t n = strlen(s);
    return t->n == n && memcmp(t->p, s, n) == 0;
}

/* A printable, bounded rendition of a token for error messages: lines may be
 * arbitrarily long and hold any byte. */
#define SHOW_MAX 40
static const char *show(const struct tok *t, char buf[SHOW_MAX + 4])
{
    size_t n = t->n < SHOW_MAX ? t->n : SHOW_MAX;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t->p[i];
        buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (t->n > SHOW_MAX)
        memcpy(buf + n, "...", 3), n += 3;
    buf[n] = '\0';
    return buf;
}

enum num_result { NUM_OK, NUM_SYNTAX, NUM_RANGE };

static enum num_result parse_dec(const struct tok *t, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (t->n == 0)
        return NUM_SYNTAX;
    for (size_t i = 0; i < t->n; i++)
        if (t->p[i] < '0' || t->p[i] > '9')
            return NUM_SYNTAX;
    /* Syntax first so that `99999999999abc` reports junk, not overflow. */
    for (size_t i = 0; i < t->n; i++) {
        unsigned d = (unsigned)(t->p[i] - '0');
        if (v > (max - d) / 10)
            return NUM_RANGE;
        v = v * 10 + d;
    }
    *out = v;
    return NUM_OK;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static enum num_result parse_hex(const struct tok *t, uint64_t max, uint64_t *out)
{
    struct tok d = *t;
    uint64_t v = 0;
    if (d.n >= 2 && d.p[0] == '0' && (d.p[1] == 'x' || d.p[1] == 'X'))
        d.p += 2, d.n -= 2;
    if (d.n == 0)
        return NUM_SYNTAX;
    for (size_t i = 0; i < d.n; i++)
        if (hex_digit(d.p[i]) < 0)
            return NUM_SYNTAX;
    for (size_t i = 0; i < d.n; i++) {
        if (v > max >> 4)
            return NUM_RANGE;
        v = v << 4 | (uint64_t)hex_digit(d.p[i]);
        if (v > max)
            return NUM_RANGE;
    }
    *out = v;
    return NUM_OK;
}

/* ------------------------------------------------------------------------ */
/* Reader.                                                                   */

struct text_reader {
    struct gcr_lines *lines; /* the file, line by line (src/io/bytesrc.h) */
    char *path;
    const char *line;    /* the line being parsed, in the line reader's buffer */
    bool line_cut;       /* the file ended inside that line, before a line end */
    uint64_t lineno;     /* number of the line being parsed */
    char *name;          /* decoded name of the open kernel (the record points here) */
    uint64_t kernel_line;
    struct gcr_stream_rules rules;
    bool failed; /* an error is sticky: the stream is not resumed after it */
    struct gcr_err first_err;
};

static int line_fail(struct text_reader *r, struct gcr_err *err, enum gcr_status st,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int line_fail(struct text_reader *r, struct gcr_err *err, enum gcr_status st,
                     const char *fmt, ...)
{
    char what[GCR_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    /* A line the file ends inside was most likely cut short (unless the message says so). */
    bool cut = r->line_cut && st != GCR_E_TRUNCATED;
    r->failed = true;
    gcr_fail(&r->first_err, st, "%s:%" PRIu64 ": %s%s", r->path, r->lineno, what,
             cut ? " (the file ends inside this line, without a line end: is it cut short?)"
                 : "");
    if (err)
        *err = r->first_err;
    return -1;
}

/* Parses a number field, naming the field in the error. */
static int num_field(struct text_reader *r, struct gcr_err *err, const struct tok *t,
                     bool hex, uint64_t max, const char *what, uint64_t *out)
{
    char b[SHOW_MAX + 4];
    *out = 0;
    switch (hex ? parse_hex(t, max, out) : parse_dec(t, max, out)) {
    case NUM_OK:
        return 0;
    case NUM_SYNTAX:
        return line_fail(r, err, GCR_E_FORMAT, "bad %s '%s': expected a %s number", what,
                         show(t, b), hex ? "hexadecimal" : "decimal");
    case NUM_RANGE:
        break;
    }
    return line_fail(r, err, GCR_E_FORMAT, "%s '%s' is out of range (maximum %" PRIu64 ")",
                     what, show(t, b), max);
}

/* Takes the next field, which must exist. */
static int need_tok(struct text_reader *r, struct gcr_err *err, const char **cur,
                    const char *end, struct tok *t, const char *what)
{
    if (next_tok(cur, end, t))
        return 0;
    return line_fail(r, err, GCR_E_FORMAT, "missing %s", what);
}

static int no_more(struct text_reader *r, struct gcr_err *err, const char **cur,
                   const char *end)
{
    struct tok t;
    char b[SHOW_MAX + 4];
    if (!next_tok(cur, end, &t))
        return 0;
    return line_fail(r, err, GCR_E_FORMAT, "unexpected extra field '%s'", show(&t, b));
}

/* Kernel names are one field: `-` is the empty name; `%XX` is the byte XX;
 * every other byte stands for itself except controls, `%` and space. */
static int parse_name(struct text_reader *r, struct gcr_err *err, const struct tok *t)
{
    char b[SHOW_MAX + 4];
    char *name = malloc(t->n + 1);
    size_t n = 0;
    if (!name)
        return line_fail(r, err, GCR_E_NOMEM, "out of memory for a kernel name");
    free(r->name);
    r->name = name;
    if (tok_is(t, "-")) {
        name[0] = '\0';
        return 0;
    }
    for (size_t i = 0; i < t->n; i++) {
        unsigned char c = (unsigned char)t->p[i];
        if (c == '%') {
            int hi = i + 2 < t->n ? hex_digit(t->p[i + 1]) : -1;
            int lo = i + 2 < t->n ? hex_digit(t->p[i + 2]) : -1;
            if (hi >= 0 && lo >= 0 && (hi | lo) != 0) {
                name[n++] = (char)(hi << 4 | lo);
                i += 2;
                continue;
            }
            return line_fail(r, err, GCR_E_FORMAT,
                             "bad kernel name '%s': `%%` must be followed by two hex digits"
                             " other than 00", show(t, b));
        }
        if (c < 0x20 || c == 0x7f)
            return line_fail(r, err, GCR_E_FORMAT,
                             "bad kernel name '%s': control byte 0x%02x must be written as %%%02X",
                             show(t, b), c, c);
        name[n++] = (char)c;
    }
    name[n] = '\0';
    return 0;
}

/* Three decimal u32 values written x,y,z (the value of grid= and block=). */
static int parse_dim3(struct text_reader *r, struct gcr_err *err, const struct tok *t,
                      const char *key, uint32_t dim[3])
{
    char b[SHOW_MAX + 4];
    const char *p = t->p, *end = t->p + t->n;
    for (int i = 0; i < 3; i++) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        if ((i < 2) != (comma != NULL))
            return line_fail(r, err, GCR_E_FORMAT,
                             "bad %s '%s': expected three decimal numbers x,y,z", key,
                             show(t, b));
        struct tok part = {p, (size_t)((comma ? comma : end) - p)};
        uint64_t v;
        if (num_field(r, err, &part, false, UINT32_MAX, key, &v) != 0)
            return -1;
        dim[i] = (uint32_t)v;
        p = comma ? comma + 1 : end;
    }
    return 0;
}

/* `kernel <id> <name>` then grid=, block=, shmem=, regs= in any order, each
 * exactly once. */
static int parse_kernel(struct text_reader *r, struct gcr_err *err, const char **cur,
                        const char *end, struct gcr_record *rec)
{
    enum { KEY_GRID, KEY_BLOCK, KEY_SHMEM, KEY_REGS, KEY_COUNT };
    static const char *const keys[KEY_COUNT] = {"grid", "block", "shmem", "regs"};
    struct gcr_kernel_begin *k = &rec->u.kbegin;
    bool seen[KEY_COUNT] = {false, false, false, false};
    char b[SHOW_MAX + 4];
    struct tok t;
    uint64_t v;

    rec->kind = GCR_REC_KERNEL_BEGIN;
    if (need_tok(r, err, cur, end, &t, "kernel id") != 0 ||
        num_field(r, err, &t, false, UINT32_MAX, "kernel id", &v) != 0)
        return -1;
    k->id = (uint32_t)v;
    if (need_tok(r, err, cur, end, &t, "kernel name") != 0 || parse_name(r, err, &t) != 0)
        return -1;
    k->name = r->name;

    while (next_tok(cur, end, &t)) {
        const char *eq = memchr(t.p, '=', t.n);
        int key = -1;
        for (int i = 0; eq && i < KEY_COUNT; i++)
            if ((size_t)(eq - t.p) == strlen(keys[i]) && memcmp(t.p, keys[i], strlen(keys[i])) == 0)
                key = i;
        if (key < 0)
            return line_fail(r, err, GCR_E_FORMAT,
                             "unknown kernel field '%s' (expected grid=, block=, shmem=, regs=)",
                             show(&t, b));
        if (seen[key])
            return line_fail(r, err, GCR_E_FORMAT, "duplicate kernel field %s=", keys[key]);
        seen[key] = true;
        struct tok val = {eq + 1, t.n - (size_t)(eq + 1 - t.p)};
        switch (key) {
        case KEY_GRID:
            if (parse_dim3(r, err, &val, keys[key], k->grid) != 0)
                return -1;
            break;
        case KEY_BLOCK:
            if (parse_dim3(r, err, &val, keys[key], k->block) != 0)
                return -1;
            break;
        case KEY_SHMEM:
            if (num_field(r, err, &val, false, UINT32_MAX, keys[key], &v) != 0)
                return -1;
            k->shmem_bytes = (uint32_t)v;
            break;
        case KEY_REGS:
            if (num_field(r, err, &val, false, UINT32_MAX, keys[key], &v) != 0)
                return -1;
            k->regs_per_thread = (uint32_t)v;
            break;
        }
    }
    for (int i = 0; i < KEY_COUNT; i++)
        if (!seen[i])
            return line_fail(r, err, GCR_E_FORMAT, "kernel line lacks the field %s=", keys[i]);
    return 0;
}

/* The register dependencies of a `compute` or access line (record.h, GCR_WAITS_KNOWN), its
 * optional last field: `waits=-` (registers known, waiting for nothing) or a comma-separated
 * list of, each at most once: `bar` (a CTA-wide barrier), distances 1..16 (the warp's n-th
 * memory instruction back; 16: that one and every older one), `a1`..`a10` (the warp's n-th
 * non-memory instruction back) and one execution unit (`int`, `sp`, ...: gcr_unit_name). */
static bool is_waits(const struct tok *t)
{
    return t->n >= 6 && memcmp(t->p, "waits=", 6) == 0;
}

/* insn: on an access line; else on a `compute` line of count instructions. */
static int parse_waits(struct text_reader *r, struct gcr_err *err, const struct tok *t,
                       bool insn, uint32_t count, uint32_t *waits)
{
    char b[SHOW_MAX + 4];
    const char *p = t->p + 6, *end = t->p + t->n;
    uint32_t w = GCR_WAITS_KNOWN;
    if (end - p == 1 && *p == '-') {
        *waits = w;
        return 0;
    }
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        struct tok item = {p, (size_t)((comma ? comma : end) - p)};
        struct tok alu = {item.p + 1, item.n ? item.n - 1 : 0};
        char name[8] = "";
        if (item.n < sizeof name)
            memcpy(name, item.p, item.n);
        uint64_t d;
        uint32_t bit;
        int unit;
        if (tok_is(&item, "bar"))
            bit = GCR_WAITS_BARRIER;
        else if (parse_dec(&item, GCR_WAIT_WINDOW, &d) == NUM_OK && d >= 1)
            bit = UINT32_C(1) << (d - 1);
        else if (item.n > 1 && item.p[0] == 'a' && parse_dec(&alu, GCR_ALU_WINDOW, &d) == NUM_OK &&
                 d >= 1)
            bit = UINT32_C(1) << (GCR_WAITS_ALU_SHIFT + d - 1);
        else if ((unit = gcr_unit_from_name(name)) > 0) {
            if (w & GCR_WAITS_UNIT_MASK)
                return line_fail(r, err, GCR_E_FORMAT,
                                 "register dependencies '%s' name two execution units",
                                 show(t, b));
            bit = (uint32_t)unit << GCR_WAITS_UNIT_SHIFT;
        } else {
            char units[64] = "";
            for (int u = 1; u < GCR_UNIT_COUNT; u++)
                snprintf(units + strlen(units), sizeof units - strlen(units), "%s%s",
                         u == 1 ? "" : u + 1 == GCR_UNIT_COUNT ? " or " : ", ",
                         gcr_unit_name((enum gcr_unit)u));
            return line_fail(r, err, GCR_E_FORMAT,
                             "malformed register dependencies '%s' (expected waits=- or a comma-"
                             "separated list of bar, distances 1..%d, a1..a%d and an execution "
                             "unit: %s)",
                             show(t, b), GCR_WAIT_WINDOW, GCR_ALU_WINDOW, units);
        }
        if (w & bit)
            return line_fail(r, err, GCR_E_FORMAT,
                             "register dependencies '%s' name one item twice", show(t, b));
        w |= bit;
        if (!comma)
            break;
        p = comma + 1;
    }
    /* Units and non-memory dependencies only where record.h allows them (the stream rules'
     * fast path does not look at waits). */
    const char *bad = w & (GCR_WAITS_ALU_MASK | GCR_WAITS_UNIT_MASK)
                          ? gcr_waits_invalid(w, insn, count)
                          : NULL;
    if (bad)
        return line_fail(r, err, GCR_E_FORMAT, "register dependencies '%s': %s", show(t, b),
                         bad);
    *waits = w;
    return 0;
}

/* The end of a `compute` or access line: an optional `waits=` field, then nothing. insn and
 * count as for parse_waits. */
static int waits_then_end(struct text_reader *r, struct gcr_err *err, const char **cur,
                          const char *end, bool insn, uint32_t count, uint32_t *waits)
{
    struct tok t;
    const char *before = *cur;
    if (!next_tok(cur, end, &t))
        return 0;
    if (!is_waits(&t)) {
        *cur = before;
        return no_more(r, err, cur, end);
    }
    if (parse_waits(r, err, &t, insn, count, waits) != 0)
        return -1;
    return no_more(r, err, cur, end);
}

/* Addresses of a memory access: `-` (no active lane), base+stride, base-stride
 * or one hexadecimal address per active lane; then the optional `waits=`. */
static int parse_addresses(struct text_reader *r, struct gcr_err *err, const char **cur,
                           const char *end, struct gcr_warp_insn *in)
{
    int active = __builtin_popcount(in->active_mask);
    struct tok t;
    uint64_t v;

    if (!next_tok(cur, end, &t))
        return line_fail(r, err, GCR_E_FORMAT,
                         "missing addresses (mask 0x%08" PRIx32 " has %d active lane%s)",
                         in->active_mask, active, active == 1 ? "" : "s");
    if (tok_is(&t, "-")) {
        if (active != 0)
            return line_fail(r, err, GCR_E_FORMAT,
                             "`-` stands for no address but mask 0x%08" PRIx32
                             " has %d active lane%s", in->active_mask, active,
                             active == 1 ? "" : "s");
        return waits_then_end(r, err, cur, end, true, 0, &in->waits);
    }
    if (active == 0)
        return line_fail(r, err, GCR_E_FORMAT,
                         "mask 0x00000000 has no active lane: write `-` instead of addresses");

    const char *sign = NULL;
    for (size_t i = 0; i < t.n && !is_waits(&t); i++)
        if (t.p[i] == '+' || t.p[i] == '-') {
            sign = t.p + i;
            break;
        }
    if (sign) {
        struct tok base = {t.p, (size_t)(sign - t.p)};
        struct tok mag = {sign + 1, t.n - base.n - 1};
        uint64_t stride;
        /* A negative stride may reach -2^63; address arithmetic wraps modulo 2^64. */
        uint64_t max = *sign == '+' ? (uint64_t)INT64_MAX : (uint64_t)INT64_MAX + 1;
        if (num_field(r, err, &base, true, UINT64_MAX, "base address", &v) != 0 ||
            num_field(r, err, &mag, false, max, "stride", &stride) != 0)
            return -1;
        if (*sign == '-')
            stride = 0 - stride;
        for (uint32_t m = in->active_mask; m; m &= m - 1) {
            in->addr[__builtin_ctz(m)] = v;
            v += stride;
        }
        return waits_then_end(r, err, cur, end, true, 0, &in->waits);
    }

    uint32_t m = in->active_mask;
    int found = 0;
    do {
        if (is_waits(&t)) {
            if (parse_waits(r, err, &t, true, 0, &in->waits) != 0 ||
                no_more(r, err, cur, end) != 0)
                return -1;
            break;
        }
        if (num_field(r, err, &t, true, UINT64_MAX, "address", &v) != 0)
            return -1;
        if (m) {
            in->addr[__builtin_ctz(m)] = v;
            m &= m - 1;
        }
        found++;
    } while (next_tok(cur, end, &t));
    if (found != active)
        return line_fail(r, err, GCR_E_FORMAT,
                         "mask 0x%08" PRIx32 " has %d active lane%s but the line lists %d"
                         " address%s", in->active_mask, active, active == 1 ? "" : "s", found,
                         found == 1 ? "" : "es");
    return 0;
}

/* Looks a token up with one of the gcr_*_from_name functions; -1 if unknown. */
static int lookup_name(const struct tok *t, int (*from_name)(const char *))
{
    char name[16];
    if (t->n >= sizeof name)
        return -1;
    memcpy(name, t->p, t->n);
    name[t->n] = '\0';
    return from_name(name);
}

/* `<cta> <warp> compute <count>` or
 * `<cta> <warp> <pc> <op> <space> [cache=<op>] <width> <mask> <addresses>`. */
static int parse_insn(struct text_reader *r, struct gcr_err *err, const struct tok *first,
                      const char **cur, const char *end, struct gcr_record *rec)
{
    char b[SHOW_MAX + 4];
    struct tok t;
    uint64_t cta, warp, v;
    int e;

    if (num_field(r, err, first, false, UINT32_MAX, "CTA id", &cta) != 0 ||
        need_tok(r, err, cur, end, &t, "warp id") != 0 ||
        num_field(r, err, &t, false, UINT32_MAX, "warp id", &warp) != 0 ||
        need_tok(r, err, cur, end, &t, "pc or `compute`") != 0)
        return -1;

    if (tok_is(&t, "compute")) {
        rec->kind = GCR_REC_NONMEM;
        rec->u.nonmem.cta = (uint32_t)cta;
        rec->u.nonmem.warp = (uint32_t)warp;
        if (need_tok(r, err, cur, end, &t, "instruction count") != 0 ||
            num_field(r, err, &t, false, UINT32_MAX, "instruction count", &v) != 0)
            return -1;
        rec->u.nonmem.count = (uint32_t)v;
        rec->u.nonmem.waits = 0; /* unless the line says otherwise */
        return waits_then_end(r, err, cur, end, false, rec->u.nonmem.count,
                              &rec->u.nonmem.waits);
    }

    struct gcr_warp_insn *in = &rec->u.insn;
    rec->kind = GCR_REC_WARP_INSN;
    in->cta = (uint32_t)cta;
    in->warp = (uint32_t)warp;
    in->waits = 0;
    if (num_field(r, err, &t, true, UINT64_MAX, "pc", &in->pc) != 0)
        return -1;

    if (need_tok(r, err, cur, end, &t, "operation") != 0)
        return -1;
    e = lookup_name(&t, gcr_op_from_name);
    if (e < 0)
        return line_fail(r, err, GCR_E_FORMAT,
                         "unknown operation '%s' (expected load, store, atomic or reduction)",
                         show(&t, b));
    in->op = (uint8_t)e;

    if (need_tok(r, err, cur, end, &t, "memory space") != 0)
        return -1;
    e = lookup_name(&t, gcr_space_from_name);
    if (e < 0)
        return line_fail(r, err, GCR_E_FORMAT,
                         "unknown memory space '%s' (expected global, local, shared, const or"
                         " texture)", show(&t, b));
    in->space = (uint8_t)e;

    if (need_tok(r, err, cur, end, &t, "width") != 0)
        return -1;
    in->cache_op = GCR_CACHEOP_DEFAULT;
    if (t.n >= 6 && memcmp(t.p, "cache=", 6) == 0) {
        struct tok val = {t.p + 6, t.n - 6};
        e = lookup_name(&val, gcr_cache_op_from_name);
        if (e < 0)
            return line_fail(r, err, GCR_E_FORMAT,
                             "unknown cache operator '%s' (expected cache=default or"
                             " cache=bypass_l1)", show(&t, b));
        in->cache_op = (uint8_t)e;
        if (need_tok(r, err, cur, end, &t, "width") != 0)
            return -1;
    }

    if (num_field(r, err, &t, false, GCR_MAX_WIDTH, "width", &v) != 0)
        return -1;
    in->width = (uint16_t)v;
    if (need_tok(r, err, cur, end, &t, "active mask") != 0 ||
        num_field(r, err, &t, true, UINT32_MAX, "active mask", &v) != 0)
        return -1;
    in->active_mask = (uint32_t)v;
    return parse_addresses(r, err, cur, end, in);
}

/* Parses one non-blank line into rec. */
static int parse_line(struct text_reader *r, struct gcr_err *err, const struct tok *first,
                      const char **cur, const char *end, struct gcr_record *rec)
{
    char b[SHOW_MAX + 4];
    struct tok t;
    uint64_t v, bytes;

    if (tok_is(first, "kernel"))
        return parse_kernel(r, err, cur, end, rec);
    if (tok_is(first, "end")) {
        rec->kind = GCR_REC_KERNEL_END;
        if (need_tok(r, err, cur, end, &t, "kernel id") != 0 ||
            num_field(r, err, &t, false, UINT32_MAX, "kernel id", &v) != 0)
            return -1;
        rec->u.kend.id = (uint32_t)v;
        return no_more(r, err, cur, end);
    }
    if (tok_is(first, "memcpy")) {
        rec->kind = GCR_REC_MEMCPY;
        if (need_tok(r, err, cur, end, &t, "memcpy destination") != 0 ||
            num_field(r, err, &t, true, UINT64_MAX, "memcpy destination", &v) != 0 ||
            need_tok(r, err, cur, end, &t, "memcpy size") != 0 ||
            num_field(r, err, &t, false, UINT64_MAX, "memcpy size", &bytes) != 0)
            return -1;
        rec->u.memcpy.dst = v;
        rec->u.memcpy.bytes = bytes;
        return no_more(r, err, cur, end);
    }
    if (first->p[0] >= '0' && first->p[0] <= '9')
        return parse_insn(r, err, first, cur, end, rec);
    return line_fail(r, err, GCR_E_FORMAT,
                     "unknown line kind '%s' (expected kernel, end, memcpy or a CTA id)",
                     show(first, b));
}

/* The next line into r->line, without its line end: its length, -1 at the end of the file, -2
 * on error. The line reader bounds a line at GCR_MAX_LINE_BYTES (src/io/bytesrc.h): beyond that
 * the input is no text trace, and a file that never ends a line (/dev/zero) must not fill
 * memory. */
static ssize_t read_line(struct text_reader *r, struct gcr_err *err)
{
    struct gcr_line ln;
    int rc = gcr_lines_next(r->lines, &ln, &r->first_err);
    if (rc < 0) {
        r->failed = true;
        if (err)
            *err = r->first_err;
        return -2;
    }
    if (rc == 0)
        return -1;
    r->lineno = ln.number;
    r->line = ln.text;
    r->line_cut = gcr_lines_ended_inside(r->lines);
    return (ssize_t)ln.len;
}

/* The first line: `#gcreplay-text 1`, optionally followed by blanks and a comment.
 * n is the line's length as returned by read_line(). */
static int check_header(struct text_reader *r, struct gcr_err *err, ssize_t n)
{
    char b[SHOW_MAX + 4];
    struct tok t;
    if (n == -1) {
        r->lineno = 1;
        return line_fail(r, err, GCR_E_FORMAT, "empty file; a text trace starts with `%s`",
                         TEXT_HEADER);
    }
    if ((size_t)n < TEXT_MAGIC_LEN || memcmp(r->line, TEXT_MAGIC, TEXT_MAGIC_LEN) != 0)
        return line_fail(r, err, GCR_E_FORMAT, "missing header: the first line must be `%s`",
                         TEXT_HEADER);
    const char *cur = r->line + TEXT_MAGIC_LEN, *end = r->line + n;
    if (!next_tok(&cur, end, &t))
        return line_fail(r, err, GCR_E_FORMAT, "header lacks the version: expected `%s`",
                         TEXT_HEADER);
    if (!tok_is(&t, TEXT_VERSION))
        return line_fail(r, err, GCR_E_FORMAT,
                         "unsupported text trace version '%s' (this reader knows version %s)",
                         show(&t, b), TEXT_VERSION);
    return no_more(r, err, &cur, end);
}

static void text_reader_close(void *state)
{
    struct text_reader *r = state;
    if (!r)
        return;
    gcr_lines_close(r->lines);
    gcr_stream_rules_free(&r->rules);
    free(r->path);
    free(r->name);
    free(r);
}

static int text_reader_open(void **state, const struct gcr_files *files, const char *path,
                            struct gcr_err *err)
{
    struct text_reader *r = calloc(1, sizeof *r);
    *state = NULL;
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }
    if (gcr_lines_open(&r->lines, files, path, err) != 0) {
        text_reader_close(r);
        return -1;
    }

    /* The header is checked here so that a wrong file fails at open. */
    ssize_t n = read_line(r, err);
    if (n == -2 || check_header(r, err, n) != 0) {
        text_reader_close(r);
        return -1;
    }
    *state = r;
    return 0;
}

static int text_reader_next(void *state, struct gcr_record *rec, struct gcr_err *err)
{
    struct text_reader *r = state;
    if (r->failed) {
        if (err)
            *err = r->first_err;
        return -1;
    }
    for (;;) {
        ssize_t n = read_line(r, err);
        if (n == -2)
            return -1;
        if (n == -1) {
            char why[GCR_ERR_MSG_MAX / 2];
            if (gcr_stream_rules_finish(&r->rules, why, sizeof why) == GCR_OK)
                return 0;
            /* A text trace that stops inside a kernel was cut short. */
            uint32_t open_id = gcr_stream_rules_kernel(&r->rules)->id;
            return line_fail(r, err, GCR_E_TRUNCATED, "%s (begun at line %" PRIu64
                             "; missing `end %" PRIu32 "`)", why, r->kernel_line, open_id);
        }
        const char *cur = r->line, *end = r->line + n;
        struct tok first;
        if (!next_tok(&cur, end, &first))
            continue; /* blank or comment */

        memset(rec, 0, sizeof *rec);
        if (parse_line(r, err, &first, &cur, end, rec) != 0)
            return -1;
        char why[GCR_ERR_MSG_MAX / 2];
        enum gcr_status st = gcr_stream_rules_apply(&r->rules, rec, why, sizeof why);
        if (st == GCR_E_FORMAT && r->rules.broken == GCR_STREAM_RULE_NO_NESTING)
            return line_fail(r, err, st, "%s (missing `end %" PRIu32 "`)", why,
                             gcr_stream_rules_kernel(&r->rules)->id);
        if (st != GCR_OK)
            return line_fail(r, err, st, "%s", why);
        if (rec->kind == GCR_REC_KERNEL_BEGIN)
            r->kernel_line = r->lineno;
        return 1;
    }
}

static uint64_t text_reader_bytes_done(void *state)
{
    const struct text_reader *r = state;
    return r && r->lines ? gcr_bytesrc_file_bytes(gcr_lines_source(r->lines)) : 0;
}

static int text_probe(const struct gcr_files *files, const char *path, const unsigned char *head,
                      size_t len)
{
    (void)files;
    (void)path;
    return len >= TEXT_MAGIC_LEN && memcmp(head, TEXT_MAGIC, TEXT_MAGIC_LEN) == 0;
}

/* ------------------------------------------------------------------------ */
/* Writer.                                                                   */

struct text_writer {
    FILE *out;
    char *path;
    uint64_t nrec; /* records written, for error messages */
    struct gcr_stream_rules rules;
};

/* Longest record line without the kernel name: 32 addresses of 18 characters
 * plus the other fields fit easily. */
#define LINE_MAX_NO_NAME 1024

/* Hex with the 0x prefix the text format writes. */
static char *put_hex(char *p, uint64_t v, int min_digits)
{
    *p++ = '0';
    *p++ = 'x';
    return gcr_put_hex(p, v, min_digits);
}

static int write_bytes(struct text_writer *w, const char *p, size_t n, struct gcr_err *err)
{
    if (fwrite(p, 1, n, w->out) == n)
        return 0;
    return gcr_fail(err, GCR_E_IO, "%s: write failed: %s", w->path, strerror(errno));
}

/* Writes a kernel name so that it stays one field and reads back byte-exact. */
static int write_name(struct text_writer *w, const char *name, struct gcr_err *err)
{
    static const char digits[] = "0123456789ABCDEF";
    char buf[256];
    size_t n = 0;
    if (name[0] == '\0')
        return write_bytes(w, "-", 1, err);
    if (strcmp(name, "-") == 0)
        return write_bytes(w, "%2D", 3, err);
    for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
        if (n + 3 > sizeof buf) {
            if (write_bytes(w, buf, n, err) != 0)
                return -1;
            n = 0;
        }
        if (*s <= 0x20 || *s >= 0x7f || *s == '%' || *s == '#') {
            buf[n++] = '%';
            buf[n++] = digits[*s >> 4];
            buf[n++] = digits[*s & 15];
        } else {
            buf[n++] = (char)*s;
        }
    }
    return write_bytes(w, buf, n, err);
}

static int text_writer_open(void **state, FILE *out, const char *path,
                            const struct gcr_write_opts *opts, struct gcr_err *err)
{
    (void)opts; /* text is never compressed */
    struct text_writer *w = calloc(1, sizeof *w);
    *state = NULL;
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return gcr_fail(err, GCR_E_NOMEM, "%s: out of memory", path);
    }
    w->out = out;
    if (write_bytes(w, TEXT_HEADER "\n", strlen(TEXT_HEADER "\n"), err) != 0) {
        free(w->path);
        free(w);
        return -1;
    }
    *state = w;
    return 0;
}

/* ` waits=...` for register dependencies (parse_waits), nothing for none known. Canonical
 * order: the unit, `bar`, the distances ascending, then `a1`..`a10` ascending. */
static char *put_waits(char *p, uint32_t waits)
{
    if (!waits)
        return p;
    p = gcr_put_str(p, " waits=");
    if (waits == GCR_WAITS_KNOWN) {
        *p++ = '-';
        return p;
    }
    const char *sep = "";
    if (waits & GCR_WAITS_UNIT_MASK) {
        p = gcr_put_str(p, gcr_unit_name(gcr_waits_unit(waits)));
        sep = ",";
    }
    if (waits & GCR_WAITS_BARRIER) {
        p = gcr_put_str(gcr_put_str(p, sep), "bar");
        sep = ",";
    }
    for (uint32_t m = waits & GCR_WAITS_MASK; m; m &= m - 1) {
        p = gcr_put_udec(gcr_put_str(p, sep), (uint64_t)__builtin_ctz(m) + 1);
        sep = ",";
    }
    for (uint32_t m = (waits & GCR_WAITS_ALU_MASK) >> GCR_WAITS_ALU_SHIFT; m; m &= m - 1) {
        p = gcr_put_udec(gcr_put_str(gcr_put_str(p, sep), "a"), (uint64_t)__builtin_ctz(m) + 1);
        sep = ",";
    }
    return p;
}

static int text_writer_write(void *state, const struct gcr_record *rec, struct gcr_err *err)
{
    struct text_writer *w = state;
    char line[LINE_MAX_NO_NAME];
    char *p = line;
    char why[GCR_ERR_MSG_MAX / 2];

    w->nrec++;
    /* The stream rules' fast path leaves register dependencies unchecked (checked first, so
     * that a record refused for them leaves the stream rules untouched). */
    uint32_t waits = rec->kind == GCR_REC_WARP_INSN ? rec->u.insn.waits
                     : rec->kind == GCR_REC_NONMEM  ? rec->u.nonmem.waits
                                                    : 0;
    const char *bad = waits & ~GCR_WAITS_KNOWN ? gcr_record_invalid(rec, NULL) : NULL;
    if (bad)
        return gcr_fail(err, GCR_E_FORMAT, "%s: record %" PRIu64 ": %s", w->path, w->nrec, bad);
    enum gcr_status st = gcr_stream_rules_apply(&w->rules, rec, why, sizeof why);
    if (st != GCR_OK)
        return gcr_fail(err, st, "%s: record %" PRIu64 ": %s", w->path, w->nrec, why);

    switch (rec->kind) {
    case GCR_REC_KERNEL_BEGIN: {
        const struct gcr_kernel_begin *k = &rec->u.kbegin;
        p = gcr_put_udec(gcr_put_str(p, "kernel "), k->id);
        *p++ = ' ';
        if (write_bytes(w, line, (size_t)(p - line), err) != 0 ||
            write_name(w, k->name, err) != 0)
            return -1;
        p = line;
        const uint32_t *dims[2] = {k->grid, k->block};
        for (int d = 0; d < 2; d++) {
            p = gcr_put_str(p, d == 0 ? " grid=" : " block=");
            for (int i = 0; i < 3; i++) {
                if (i)
                    *p++ = ',';
                p = gcr_put_udec(p, dims[d][i]);
            }
        }
        p = gcr_put_udec(gcr_put_str(p, " shmem="), k->shmem_bytes);
        p = gcr_put_udec(gcr_put_str(p, " regs="), k->regs_per_thread);
        break;
    }
    case GCR_REC_KERNEL_END:
        p = gcr_put_udec(gcr_put_str(p, "end "), rec->u.kend.id);
        break;
    case GCR_REC_MEMCPY:
        p = put_hex(gcr_put_str(p, "memcpy "), rec->u.memcpy.dst, 1);
        *p++ = ' ';
        p = gcr_put_udec(p, rec->u.memcpy.bytes);
        break;
    case GCR_REC_NONMEM:
        p = gcr_put_udec(p, rec->u.nonmem.cta);
        *p++ = ' ';
        p = gcr_put_udec(p, rec->u.nonmem.warp);
        p = gcr_put_udec(gcr_put_str(p, " compute "), rec->u.nonmem.count);
        p = put_waits(p, rec->u.nonmem.waits);
        break;
    case GCR_REC_WARP_INSN: {
        const struct gcr_warp_insn *in = &rec->u.insn;
        uint64_t base;
        int64_t stride;
        p = gcr_put_udec(p, in->cta);
        *p++ = ' ';
        p = gcr_put_udec(p, in->warp);
        *p++ = ' ';
        p = put_hex(p, in->pc, 1);
        *p++ = ' ';
        p = gcr_put_str(p, gcr_op_name((enum gcr_op)in->op));
        *p++ = ' ';
        p = gcr_put_str(p, gcr_space_name((enum gcr_space)in->space));
        if (in->cache_op != GCR_CACHEOP_DEFAULT) {
            p = gcr_put_str(p, " cache=");
            p = gcr_put_str(p, gcr_cache_op_name((enum gcr_cache_op)in->cache_op));
        }
        *p++ = ' ';
        p = gcr_put_udec(p, in->width);
        *p++ = ' ';
        p = put_hex(p, in->active_mask, 8);
        *p++ = ' ';
        if (in->active_mask == 0) {
            *p++ = '-';
        } else if (gcr_insn_stride(in, &base, &stride)) {
            p = put_hex(p, base, 1);
            if (__builtin_popcount(in->active_mask) > 1) {
                /* Negating through uint64_t keeps INT64_MIN well defined. */
                *p++ = stride < 0 ? '-' : '+';
                p = gcr_put_udec(p, stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride);
            }
        } else {
            for (uint32_t m = in->active_mask; m; m &= m - 1) {
                p = put_hex(p, in->addr[__builtin_ctz(m)], 1);
                if (m & (m - 1))
                    *p++ = ' ';
            }
        }
        p = put_waits(p, in->waits);
        break;
    }
    }
    *p++ = '\n';
    return write_bytes(w, line, (size_t)(p - line), err);
}

static int text_writer_finish(void *state, struct gcr_err *err)
{
    struct text_writer *w = state;
    char why[GCR_ERR_MSG_MAX / 2];
    enum gcr_status st = gcr_stream_rules_finish(&w->rules, why, sizeof why);
    if (st != GCR_OK)
        return gcr_fail(err, st, "%s: %s", w->path, why);
    if (fflush(w->out) != 0 || ferror(w->out))
        return gcr_fail(err, GCR_E_IO, "%s: write failed: %s", w->path, strerror(errno));
    return 0;
}

static void text_writer_close(void *state)
{
    struct text_writer *w = state;
    if (!w)
        return;
    gcr_stream_rules_free(&w->rules);
    free(w->path);
    free(w);
}

const struct gcr_trace_format gcr_format_text = {
    .name = "text",
    .summary = "plain text, one warp access per line (for hand-written tests and examples)",
    .extension = ".txt",
    .probe = text_probe,
    .reader_open = text_reader_open,
    .reader_next = text_reader_next,
    .reader_bytes_done = text_reader_bytes_done,
    .reader_close = text_reader_close,
    .writer_open = text_writer_open,
    .writer_write = text_writer_write,
    .writer_finish = text_writer_finish,
    .writer_close = text_writer_close,
};
