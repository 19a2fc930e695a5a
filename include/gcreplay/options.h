/* Strict options of a plug-in: an L1 organisation's `l1d.<name>` object or an
 * analysis's `analyses.<name>` object. One parser and one wording for all of
 * them: every error names the config file and the option's JSON path,
 * `where`.<key> (where is the object's path, e.g. "$.analyses.sharing").
 * Each function that can fail returns 0, or -1 with err set (GCR_E_CONFIG).
 *
 * A plug-in reads its object key by key with a reader:
 *
 *     struct gcr_opts o;
 *     uint64_t cluster_size = 4;                       // the default
 *     gcr_opts_begin(&o, cfg->origin, "$.analyses.locality", options);
 *     if (gcr_opts_uint(&o, "cluster_size", 1, 64, &cluster_size, err) != 0 ||
 *         gcr_opts_done(&o, err) != 0)
 *         return -1;
 *
 * Each gcr_opts_<kind> call names one key: it marks the key as known and, when
 * the object has it, checks the value and stores it in *out; an absent key
 * leaves *out as it was, so the caller sets the default first. gcr_opts_done
 * then refuses any key that no call named, listing the ones that were. */
#ifndef GCREPLAY_OPTIONS_H
#define GCREPLAY_OPTIONS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "gcreplay/error.h"

enum { GCR_OPTS_MAX_KEYS = 32 };

struct gcr_opts {
    const char *origin;                       /* the config file, for messages */
    char where[96];                           /* the object's JSON path */
    const json_t *obj;                        /* NULL: no options were given */
    const char *known[GCR_OPTS_MAX_KEYS];     /* the keys named so far, in order */
    unsigned nknown;
};

/* Starts reading obj (NULL: none given, every key keeps its default) at where. */
void gcr_opts_begin(struct gcr_opts *o, const char *origin, const char *where,
                    const json_t *obj);
/* The value of key, or NULL when absent, marking key as known: for options of
 * a shape of their own (an array, "tag" or an integer, ...). */
const json_t *gcr_opts_get(struct gcr_opts *o, const char *key);
/* An integer in [min, max]. */
int gcr_opts_uint(struct gcr_opts *o, const char *key, uint64_t min, uint64_t max,
                  uint64_t *out, struct gcr_err *err);
/* An integer in [min, max] that fits 32 bits (max <= UINT32_MAX). */
int gcr_opts_u32(struct gcr_opts *o, const char *key, uint32_t min, uint32_t max,
                 uint32_t *out, struct gcr_err *err);
/* A number in [min, max]. */
int gcr_opts_real(struct gcr_opts *o, const char *key, double min, double max, double *out,
                  struct gcr_err *err);
/* One of names[0..count-1]; *out is its index. GCR_OPTS_NAMES(array) passes
 * an array of names with its count. */
#define GCR_OPTS_NAMES(names) (names), (int)(sizeof(names) / sizeof(names)[0])
int gcr_opts_enum(struct gcr_opts *o, const char *key, const char *const *names, int count,
                  int *out, struct gcr_err *err);
/* true or false. */
int gcr_opts_bool(struct gcr_opts *o, const char *key, bool *out, struct gcr_err *err);
/* Refuses a key of the object that no call named. */
int gcr_opts_done(const struct gcr_opts *o, struct gcr_err *err);

/* The checks behind the reader, for one value v at where.key (an element of
 * an array of option objects, say). */
int gcr_opt_uint(const char *origin, const char *where, const char *key, const json_t *v,
                 uint64_t min, uint64_t max, uint64_t *out, struct gcr_err *err);
int gcr_opt_real(const char *origin, const char *where, const char *key, const json_t *v,
                 double min, double max, double *out, struct gcr_err *err);
int gcr_opt_enum(const char *origin, const char *where, const char *key, const json_t *v,
                 const char *const *names, int count, int *out, struct gcr_err *err);

#endif
