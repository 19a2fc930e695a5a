/* Strict plug-in options (gcreplay/options.h). */
#include "gcreplay/options.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/json_kind.h"

/* "name" of "$.analyses.name": what the plug-in is called in messages. */
static const char *last_name(const char *where)
{
    const char *dot = strrchr(where, '.');
    return dot ? dot + 1 : where;
}

int gcr_opt_uint(const char *origin, const char *where, const char *key, const json_t *v,
                 uint64_t min, uint64_t max, uint64_t *out, struct gcr_err *err)
{
    if (!json_is_integer(v))
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: expected an integer between %llu "
                        "and %llu, got %s", origin, where, key, (unsigned long long)min,
                        (unsigned long long)max, gcr_json_kind(v));
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x < min || (uint64_t)x > max)
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: expected an integer between %llu "
                        "and %llu, got %lld", origin, where, key, (unsigned long long)min,
                        (unsigned long long)max, (long long)x);
    *out = (uint64_t)x;
    return 0;
}

int gcr_opt_real(const char *origin, const char *where, const char *key, const json_t *v,
                 double min, double max, double *out, struct gcr_err *err)
{
    if (!json_is_number(v))
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: expected a number between %g and "
                        "%g, got %s", origin, where, key, min, max, gcr_json_kind(v));
    double x = json_number_value(v);
    if (!(x >= min && x <= max))
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: expected a number between %g and "
                        "%g, got %g", origin, where, key, min, max, x);
    *out = x;
    return 0;
}

int gcr_opt_enum(const char *origin, const char *where, const char *key, const json_t *v,
                 const char *const *names, int count, int *out, struct gcr_err *err)
{
    char known[256] = "";
    for (int i = 0; i < count; i++) {
        size_t u = strlen(known);
        snprintf(known + u, sizeof known - u, "%s\"%s\"", i ? ", " : "", names[i]);
    }
    if (!json_is_string(v))
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: expected one of %s, got %s", origin,
                        where, key, known, gcr_json_kind(v));
    for (int i = 0; i < count; i++)
        if (strcmp(json_string_value(v), names[i]) == 0) {
            *out = i;
            return 0;
        }
    return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: unknown value \"%s\" (known: %s)", origin,
                    where, key, json_string_value(v), known);
}

/* ---- the reader ---- */

void gcr_opts_begin(struct gcr_opts *o, const char *origin, const char *where,
                    const json_t *obj)
{
    o->origin = origin;
    snprintf(o->where, sizeof o->where, "%s", where);
    o->obj = obj;
    o->nknown = 0;
}

const json_t *gcr_opts_get(struct gcr_opts *o, const char *key)
{
    /* A plug-in names a fixed set of keys, far fewer than the table holds; a
     * key past it would only be missing from the "known keys" list. */
    if (o->nknown < GCR_OPTS_MAX_KEYS)
        o->known[o->nknown++] = key;
    return o->obj ? json_object_get(o->obj, key) : NULL;
}

int gcr_opts_uint(struct gcr_opts *o, const char *key, uint64_t min, uint64_t max,
                  uint64_t *out, struct gcr_err *err)
{
    const json_t *v = gcr_opts_get(o, key);
    return v ? gcr_opt_uint(o->origin, o->where, key, v, min, max, out, err) : 0;
}

int gcr_opts_u32(struct gcr_opts *o, const char *key, uint32_t min, uint32_t max,
                 uint32_t *out, struct gcr_err *err)
{
    uint64_t x = *out;
    if (gcr_opts_uint(o, key, min, max, &x, err) != 0)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

int gcr_opts_real(struct gcr_opts *o, const char *key, double min, double max, double *out,
                  struct gcr_err *err)
{
    const json_t *v = gcr_opts_get(o, key);
    return v ? gcr_opt_real(o->origin, o->where, key, v, min, max, out, err) : 0;
}

int gcr_opts_enum(struct gcr_opts *o, const char *key, const char *const *names, int count,
                  int *out, struct gcr_err *err)
{
    const json_t *v = gcr_opts_get(o, key);
    return v ? gcr_opt_enum(o->origin, o->where, key, v, names, count, out, err) : 0;
}

int gcr_opts_bool(struct gcr_opts *o, const char *key, bool *out, struct gcr_err *err)
{
    const json_t *v = gcr_opts_get(o, key);
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: expected true or false, got %s",
                        o->origin, o->where, key, gcr_json_kind(v));
    *out = json_is_true(v);
    return 0;
}

int gcr_opts_done(const struct gcr_opts *o, struct gcr_err *err)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o->obj, key, v) {
        bool ok = false;
        for (unsigned i = 0; i < o->nknown && !ok; i++)
            ok = strcmp(o->known[i], key) == 0;
        if (ok)
            continue;
        if (o->nknown == 0)
            return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: unknown key (%s has no options)",
                            o->origin, o->where, key, last_name(o->where));
        char list[512] = "";
        for (unsigned i = 0; i < o->nknown; i++) {
            size_t u = strlen(list);
            snprintf(list + u, sizeof list - u, "%s%s", i ? ", " : "", o->known[i]);
        }
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: unknown key (known keys here: %s)",
                        o->origin, o->where, key, list);
    }
    return 0;
}
