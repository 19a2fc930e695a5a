/* How error messages name the kind of a JSON value ("got a string"): one
 * wording for the config parser and every organisation's option parser. */
#ifndef GCREPLAY_CORE_JSON_KIND_H
#define GCREPLAY_CORE_JSON_KIND_H

#include <jansson.h>

static inline const char *gcr_json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    /* jansson reads 4.0 and 4e0 as reals too: say what made this one a real. */
    case JSON_REAL: return "a number with a decimal point or an exponent";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

#endif
