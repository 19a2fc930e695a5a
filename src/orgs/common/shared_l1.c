/* Shared-L1 machinery (see shared_l1.h). */
#include "orgs/common/shared_l1.h"

#include <stdlib.h>
#include <string.h>

#include "core/bits.h"

const char *const gcr_home_hash_names[GCR_HOME_HASH_COUNT] = {"bits", "xor"};
const char *const gcr_home_map_names[GCR_HOME_MAP_COUNT] = {"modulo", "scale"};
const char *const gcr_reply_mode_names[GCR_REPLY_COUNT] = {"chunk", "line"};

/* ------------------------------------------------------------ options */

void gcr_shared_opts_default(struct gcr_shared_opts *so)
{
    *so = (struct gcr_shared_opts){.home_shift = -1, .home_bits = -1, .hash = GCR_HOME_BITS,
                                  .map = GCR_HOME_MODULO, .reply = GCR_REPLY_CHUNK};
}

int gcr_shared_opts_read(struct gcr_shared_opts *so, struct gcr_opts *o, struct gcr_err *err)
{
    /* home_shift is "tag" (the bits above the set index) or a bit position. */
    const json_t *shift = gcr_opts_get(o, "home_shift");
    uint64_t u;
    if (shift && !(json_is_string(shift) && strcmp(json_string_value(shift), "tag") == 0)) {
        if (!json_is_integer(shift))
            return gcr_fail(err, GCR_E_CONFIG, "%s: %s.home_shift: expected \"tag\" or an "
                            "integer between 0 and 63", o->origin, o->where);
        if (gcr_opt_uint(o->origin, o->where, "home_shift", shift, 0, 63, &u, err) != 0)
            return -1;
        so->home_shift = (int64_t)u;
    }
    /* home_bits defaults to "as many as the L1s need" (-1). */
    const json_t *bits = gcr_opts_get(o, "home_bits");
    if (bits) {
        if (gcr_opt_uint(o->origin, o->where, "home_bits", bits, 0, 32, &u, err) != 0)
            return -1;
        so->home_bits = (int64_t)u;
    }
    int hash = (int)so->hash, map = (int)so->map, reply = (int)so->reply;
    if (gcr_opts_enum(o, "home_hash", gcr_home_hash_names, GCR_HOME_HASH_COUNT, &hash, err) ||
        gcr_opts_enum(o, "home_map", gcr_home_map_names, GCR_HOME_MAP_COUNT, &map, err) ||
        gcr_opts_enum(o, "reply", gcr_reply_mode_names, GCR_REPLY_COUNT, &reply, err))
        return -1;
    so->hash = (enum gcr_home_hash)hash;
    so->map = (enum gcr_home_map)map;
    so->reply = (enum gcr_reply_mode)reply;
    return 0;
}

/* ------------------------------------------------------------ create */

void gcr_shared_l1_fini(struct gcr_shared_l1 *s)
{
    if (s->l1)
        for (uint32_t i = 0; i < s->n; i++)
            gcr_cache_destroy(s->l1[i]);
    free(s->l1);
    free(s->charged);
    free(s->served);
    free(s->remote_by_sm);
    s->l1 = NULL;
    s->charged = NULL;
    s->served = s->remote_by_sm = NULL;
}

int gcr_shared_l1_init(struct gcr_shared_l1 *s, const struct gcr_l1org_ctx *ctx, const char *org,
                       const struct gcr_shared_opts *o, struct gcr_err *err)
{
    const struct gcr_config *cfg = ctx->config;
    *s = (struct gcr_shared_l1){.ctx = *ctx, .org = org, .reply = o->reply,
                                .n = cfg->num_sms};
    unsigned line_log2 = gcr_bits_log2(cfg->line_bytes);
    /* The seed's home field is the lowest bits of the tag: just above the set
     * index of an L1 (16-KB, 4-way, 128-B lines: bit 12, so 4-KB granules). */
    unsigned shift = o->home_shift >= 0 ? (unsigned)o->home_shift
                                        : line_log2 + gcr_bits_ceil_log2(cfg->l1.sets);
    unsigned need = gcr_bits_ceil_log2(s->n);
    unsigned bits = o->home_bits >= 0 ? (unsigned)o->home_bits : need;
    if (bits < need)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.%s.home_bits: %u bits name only %llu "
                        "homes, but there are %u L1s (need at least %u bits)", cfg->origin, org,
                        bits, 1ull << bits, s->n, need);
    if (shift < line_log2)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.%s.home_shift: bit %u is inside the %u-byte "
                        "line, so lines could not have one home (the lowest usable bit is %u)",
                        cfg->origin, org, shift, cfg->line_bytes, line_log2);
    if (shift + bits > 64)
        return gcr_fail(err, GCR_E_CONFIG, "%s: $.l1d.%s.home_shift: %u + %u home bits go beyond "
                        "a 64-bit address", cfg->origin, org, shift, bits);
    s->home = (struct gcr_home){.shift = shift, .bits = bits, .hash = o->hash, .map = o->map,
                                .n = s->n, .field_mask = bits ? (UINT64_C(1) << bits) - 1 : 0};
    s->home.direct = o->hash == GCR_HOME_BITS && (UINT64_C(1) << bits) == s->n;

    s->l1 = calloc(s->n, sizeof *s->l1);
    s->charged = calloc(s->n, sizeof *s->charged);
    s->served = calloc(s->n, sizeof *s->served);
    s->remote_by_sm = calloc(s->n, sizeof *s->remote_by_sm);
    if (!s->l1 || !s->charged || !s->served || !s->remote_by_sm) {
        gcr_shared_l1_fini(s);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < s->n; i++) {
        struct gcr_cache_geometry g = cfg->l1;
        g.seed = cfg->l1.seed + i;
        if (!(s->l1[i] = gcr_cache_create(&g, err))) {
            gcr_shared_l1_fini(s);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ serving */

/* to += now - before, counter by counter: what one operation on a cache
 * counted, charged to whoever caused it. */
static void charge(struct gcr_cache_stats *to, const struct gcr_cache_stats *now,
                   const struct gcr_cache_stats *before)
{
    uint64_t *t = (uint64_t *)to;
    const uint64_t *n = (const uint64_t *)now, *b = (const uint64_t *)before;
    for (size_t i = 0; i < sizeof *to / sizeof(uint64_t); i++)
        t[i] += n[i] - b[i];
}

void gcr_shared_l1_serve(struct gcr_shared_l1 *s, const struct gcr_req *req, uint32_t u,
                         struct gcr_served *out)
{
    struct gcr_cache *c = s->l1[u];
    struct gcr_memsys *mem = s->ctx.mem;
    struct gcr_bus *bus = s->ctx.bus;
    struct gcr_access *a = &out->a;
    uint32_t r = req->sm;
    bool remote = u != r;
    int w = req->is_write ? 1 : 0;
    bool messages = remote && gcr_memsys_sends_messages(mem);
    /* The requester's view is what this access adds to the serving cache's counters. */
    struct gcr_cache_stats before = *gcr_cache_stats(c);

    if (messages) /* the request goes to the home, with its store data */
        gcr_l1org_core_message(mem, req, r, u, w ? req->bytes : 0, true);
    gcr_cache_access(c, req->line_addr, req->sector_mask, req->is_write, a);
    gcr_l1org_lookup(mem, u, req, req->line_addr, req->sector_mask, req->is_write, a);
    if (a->evicted || a->invalidated) {
        if (gcr_bus_wants(bus, GCR_EV_L1_EVICT))
            gcr_l1org_emit(bus, GCR_EV_L1_EVICT, u, NULL, a->victim_line, a->victim_valid, false,
                           a);
        if (a->victim_dirty)
            gcr_memsys_writeback(mem, u, a->victim_line, a->victim_dirty);
    }
    /* The serving L1 talks to L2 from its own port, whoever asked. */
    if (a->fetch_mask)
        gcr_memsys_read(mem, r, u, req->line_addr, a->fetch_mask, false, req->insn);
    if (a->forward_mask)
        gcr_memsys_write(mem, r, u, req->line_addr, a->forward_mask, req->bytes, req->insn);
    out->l2_replies = (a->fetch_mask != 0) + (a->forward_mask != 0);

    s->served[u]++;
    if (!remote) {
        s->counts.local[w]++;
    } else {
        s->counts.remote[w]++;
        s->remote_by_sm[r]++;
        if (w) {
            s->counts.request_bytes += req->bytes;
        } else {
            uint32_t bytes = s->reply == GCR_REPLY_CHUNK ? req->bytes : s->ctx.config->line_bytes;
            s->counts.replies++;
            s->counts.chunk_bytes += req->bytes;
            s->counts.line_bytes += s->ctx.config->line_bytes;
            s->counts.reply_bytes += bytes;
            if (messages) /* the home answers; the requester does not cache it */
                gcr_l1org_core_message(mem, req, u, r, bytes, false);
        }
    }
    charge(&s->charged[r], gcr_cache_stats(c), &before);
}

/* ------------------------------------------------------------ kernels, statistics */

/* Invalidation and resizing are nobody's request: they are charged to the SM
 * owning the instance, as for private L1s. */
int gcr_shared_l1_kernel_begin(struct gcr_shared_l1 *s, const struct gcr_cache_geometry *l1,
                               struct gcr_err *err)
{
    if (gcr_cache_geometry(s->l1[0])->ways == l1->ways)
        return 0;
    for (uint32_t i = 0; i < s->n; i++) {
        struct gcr_cache_geometry g = *l1;
        g.seed = l1->seed + i;
        struct gcr_cache_stats before = *gcr_cache_stats(s->l1[i]), retired = {0};
        if (gcr_l1org_resize(&s->l1[i], &g, i, i, &retired, s->ctx.mem, s->ctx.bus, err) != 0)
            return -1;
        charge(&s->charged[i], &retired, &before);
    }
    return 0;
}

void gcr_shared_l1_kernel_end(struct gcr_shared_l1 *s)
{
    if (!s->ctx.config->l1_invalidate_at_kernel_end)
        return;
    for (uint32_t i = 0; i < s->n; i++) {
        struct gcr_cache_stats before = *gcr_cache_stats(s->l1[i]);
        gcr_l1org_invalidate(s->l1[i], i, i, s->ctx.mem, s->ctx.bus);
        charge(&s->charged[i], gcr_cache_stats(s->l1[i]), &before);
    }
}

void gcr_shared_l1_collect_stats(const struct gcr_shared_l1 *s, struct gcr_cache_stats *per_sm)
{
    memcpy(per_sm, s->charged, s->n * sizeof *per_sm);
}

/* ------------------------------------------------------------ report */

static json_t *u64_array(const uint64_t *v, uint32_t n)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer((json_int_t)v[i]));
    return a;
}

static json_t *share(uint64_t part, uint64_t whole)
{
    return whole ? json_real((double)part / (double)whole) : json_null();
}

int gcr_shared_l1_report(const struct gcr_shared_l1 *s, json_t *section)
{
    const struct gcr_shared_counts *c = &s->counts;
    uint64_t local = c->local[0] + c->local[1], remote = c->remote[0] + c->remote[1];
    json_t *home = json_pack("{s:I, s:I, s:s, s:s, s:s}", "home_shift", (json_int_t)s->home.shift,
                             "home_bits", (json_int_t)s->home.bits, "home_hash",
                             gcr_home_hash_names[s->home.hash], "home_map",
                             gcr_home_map_names[s->home.map], "reply",
                             gcr_reply_mode_names[s->reply]);
    json_t *acc = json_pack("{s:{s:I, s:I}, s:{s:I, s:I}, s:o}", "local", "reads",
                            (json_int_t)c->local[0], "writes", (json_int_t)c->local[1], "remote",
                            "reads", (json_int_t)c->remote[0], "writes", (json_int_t)c->remote[1],
                            "remote_share", share(remote, local + remote));
    json_t *rep = json_pack("{s:I, s:I, s:I, s:I, s:I}", "count", (json_int_t)c->replies,
                            "bytes", (json_int_t)c->reply_bytes, "chunk_bytes",
                            (json_int_t)c->chunk_bytes, "line_bytes", (json_int_t)c->line_bytes,
                            "request_bytes", (json_int_t)c->request_bytes);
    if (!home || !acc || !rep) {
        json_decref(home);
        json_decref(acc);
        json_decref(rep);
        return -1;
    }
    json_object_set_new(section, "mapping", home);
    json_object_set_new(section, "accesses", acc);
    json_object_set_new(section, "remote_replies", rep);
    json_object_set_new(section, "served_per_l1", u64_array(s->served, s->n));
    json_object_set_new(section, "remote_per_sm", u64_array(s->remote_by_sm, s->n));
    return 0;
}

void gcr_shared_l1_summary(const struct gcr_shared_l1 *s, json_t *summary)
{
    const struct gcr_shared_counts *c = &s->counts;
    uint64_t local = c->local[0] + c->local[1], remote = c->remote[0] + c->remote[1];
    json_object_set_new(summary, "local", json_integer((json_int_t)local));
    json_object_set_new(summary, "remote", json_integer((json_int_t)remote));
    json_object_set_new(summary, "remote_share", share(remote, local + remote));
    json_object_set_new(summary, "reply_KB", json_real((double)c->reply_bytes / 1024.0));
    json_object_set_new(summary, "chunk_KB", json_real((double)c->chunk_bytes / 1024.0));
    json_object_set_new(summary, "line_KB", json_real((double)c->line_bytes / 1024.0));
}
