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

int gcr_opts_keys(const char *origin, const char *where, const json_t *obj,
                  const char *const *known, struct gcr_err *err)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        bool ok = false;
        for (size_t i = 0; known && known[i] && !ok; i++)
            ok = strcmp(known[i], key) == 0;
        if (ok)
            continue;
        if (!known || !known[0])
            return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: unknown key (%s has no options)",
                            origin, where, key, last_name(where));
        char list[512] = "";
        for (size_t i = 0; known[i]; i++) {
            size_t u = strlen(list);
            snprintf(list + u, sizeof list - u, "%s%s", i ? ", " : "", known[i]);
        }
        return gcr_fail(err, GCR_E_CONFIG, "%s: %s.%s: unknown key (known keys here: %s)",
                        origin, where, key, list);
    }
    return 0;
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
