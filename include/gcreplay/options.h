/* Strict options of a plug-in: an L1 organisation's `l1d.<name>` object or an
 * analysis's `analyses.<name>` object. One parser and one wording for all of
 * them: every error names the config file and the option's JSON path,
 * `where`.<key> (where is the object's path, e.g. "$.analyses.sharing").
 * Each function returns 0, or -1 with err set (GCR_E_CONFIG). */
#ifndef GCREPLAY_OPTIONS_H
#define GCREPLAY_OPTIONS_H

#include <jansson.h>
#include <stdint.h>

#include "gcreplay/error.h"

/* Every key of obj (NULL: no options given) must be in known (NULL-terminated;
 * NULL when the plug-in has no options). */
int gcr_opts_keys(const char *origin, const char *where, const json_t *obj,
                  const char *const *known, struct gcr_err *err);
/* An integer in [min, max]. */
int gcr_opt_uint(const char *origin, const char *where, const char *key, const json_t *v,
                 uint64_t min, uint64_t max, uint64_t *out, struct gcr_err *err);
/* A number in [min, max]. */
int gcr_opt_real(const char *origin, const char *where, const char *key, const json_t *v,
                 double min, double max, double *out, struct gcr_err *err);
/* One of names[0..count-1]; *out is its index. */
int gcr_opt_enum(const char *origin, const char *where, const char *key, const json_t *v,
                 const char *const *names, int count, int *out, struct gcr_err *err);

#endif
