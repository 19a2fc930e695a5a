/* Config overrides: `--set PATH=VALUE` (include/gcreplay/config.h). An override edits the
 * config document before it is checked, so it meets exactly the checks and messages of a config
 * file; only the blame changes, from the file to the override when the error lies where the
 * override wrote. */
#include "gcreplay/config.h"

#include "core/json_kind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/* PATH: keys of key_char()s joined by single dots. */
static bool valid_path(const char *p, size_t n)
{
    if (n == 0 || p[0] == '.' || p[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(key_char(p[i]) || (p[i] == '.' && p[i + 1] != '.')))
            return false;
    return true;
}

/* A bare word stands for a string: --set l1d.organization=shared. */
static bool bare_word(const char *s)
{
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (; *s; s++)
        if (!key_char(*s) && *s != '.')
            return false;
    return true;
}

int gcr_config_override_parse(struct gcr_config_override *o, const char *text,
                              struct gcr_err *err)
{
    *o = (struct gcr_config_override){0};
    const char *eq = strchr(text, '=');
    if (!eq || !valid_path(text, (size_t)(eq - text)))
        return gcr_fail(err, GCR_E_USAGE, "--set %s: expected PATH=VALUE, PATH the config keys "
                        "joined by dots (l1d.ways=128)", text);
    json_error_t je;
    json_t *v = json_loads(eq + 1, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!v && bare_word(eq + 1))
        v = json_string(eq + 1);
    if (!v)
        return gcr_fail(err, GCR_E_USAGE, "--set %s: the value is neither JSON nor a bare word "
                        "(%s; a string with other characters is written in double quotes, "
                        "which the shell needs quoted too: '\"...\"')", text, je.text);
    o->value = v;
    o->text = strdup(text);
    o->path = strndup(text, (size_t)(eq - text));
    if (!o->text || !o->path) {
        gcr_config_override_free(o);
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    return 0;
}

void gcr_config_override_free(struct gcr_config_override *o)
{
    free(o->text);
    free(o->path);
    json_decref(o->value);
    *o = (struct gcr_config_override){0};
}

static int apply_one(json_t *root, const struct gcr_config_override *o, struct gcr_err *err)
{
    if (!json_is_object(root))
        return gcr_fail(err, GCR_E_CONFIG, "--set %s: the configuration is %s, not an object",
                        o->text, gcr_json_kind(root));
    json_t *cur = root;
    char at[512] = "$";
    const char *seg = o->path;
    for (;;) {
        const char *dot = strchr(seg, '.');
        size_t n = dot ? (size_t)(dot - seg) : strlen(seg);
        char key[256];
        if (n >= sizeof key)
            return gcr_fail(err, GCR_E_USAGE, "--set %s: key '%.40s...' is too long", o->text,
                            seg);
        memcpy(key, seg, n);
        key[n] = '\0';
        if (!dot) {
            if (json_is_null(o->value))
                json_object_del(cur, key); /* absent already: nothing to remove */
            else if (json_object_set(cur, key, o->value) != 0)
                return gcr_fail(err, GCR_E_NOMEM, "out of memory");
            return 0;
        }
        json_t *next = json_object_get(cur, key);
        size_t used = strlen(at);
        snprintf(at + used, sizeof at - used, ".%s", key);
        if (!next) {
            if (json_is_null(o->value))
                return 0; /* removing under an object that is not there: done */
            next = json_object();
            if (!next || json_object_set_new(cur, key, next) != 0)
                return gcr_fail(err, GCR_E_NOMEM, "out of memory");
        } else if (!json_is_object(next)) {
            return gcr_fail(err, GCR_E_CONFIG, "--set %s: %s is %s, not an object with keys",
                            o->text, at, gcr_json_kind(next));
        }
        cur = next;
        seg = dot + 1;
    }
}

int gcr_config_override_apply(json_t *root, const struct gcr_config_override *o, size_t n,
                              struct gcr_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (apply_one(root, &o[i], err) != 0)
            return -1;
    return 0;
}

/* The JSON path a config message names ("ORIGIN: $.l1d.ways: ..."), into out; false if none. */
static bool error_path(const char *msg, const char *origin, char *out, size_t cap)
{
    size_t k = strlen(origin);
    if (strncmp(msg, origin, k) != 0 || strncmp(msg + k, ": $", 3) != 0)
        return false;
    const char *p = msg + k + 2, *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n >= cap)
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
}

/* Whether an error at JSON path `at` concerns the override at `path` (dotted, without "$."):
 * the same key, a key under it, or an object on the way to it (a geometry that no longer adds
 * up is reported at the object). */
static bool concerns(const char *at, const char *path)
{
    if (strncmp(at, "$.", 2) != 0) /* "$": the whole document */
        return !strcmp(at, "$");
    at += 2;
    size_t na = strlen(at), np = strlen(path);
    if (na >= np)
        return !strncmp(at, path, np) && (at[np] == '\0' || at[np] == '.' || at[np] == '[');
    return !strncmp(path, at, na) && path[na] == '.';
}

int gcr_config_from_json_overridden(struct gcr_config *cfg, json_t *root, const char *origin,
                                    const struct gcr_config_override *o, size_t n,
                                    struct gcr_err *err)
{
    if (gcr_config_from_json(cfg, root, origin, err) == 0)
        return 0;
    char at[512];
    if (!n || !err || err->status != GCR_E_CONFIG ||
        !error_path(err->msg, origin, at, sizeof at))
        return -1;
    /* The last override that wrote there is the one that made it so. */
    for (size_t i = n; i-- > 0;) {
        if (!concerns(at, o[i].path))
            continue;
        char msg[GCR_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return gcr_fail(err, GCR_E_CONFIG, "--set %s: %s", o[i].text, msg);
    }
    return -1;
}

int gcr_config_load_with(struct gcr_config *cfg, const char *path, const char *const *sets,
                         size_t nsets, struct gcr_err *err)
{
    struct gcr_config_override *o = nsets ? calloc(nsets, sizeof *o) : NULL;
    if (nsets && !o)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    json_t *root = NULL;
    int rc = 0;
    size_t parsed = 0;
    for (; parsed < nsets && rc == 0; parsed++)
        rc = gcr_config_override_parse(&o[parsed], sets[parsed], err);
    if (rc == 0 && !(root = gcr_config_load_json(path, err)))
        rc = -1;
    if (rc == 0)
        rc = gcr_config_override_apply(root, o, nsets, err);
    if (rc == 0)
        rc = gcr_config_from_json_overridden(cfg, root, path, o, nsets, err);
    /* Later checks (an organisation's, an analysis's) name the config by its origin: make it
     * say which overrides it carries. */
    if (rc == 0 && nsets) {
        char origin[GCR_ERR_MSG_MAX / 2];
        int used = snprintf(origin, sizeof origin, "%s", path);
        for (size_t i = 0; i < nsets && used >= 0 && (size_t)used < sizeof origin; i++)
            used += snprintf(origin + used, sizeof origin - (size_t)used, " %s --set %s",
                             i ? "and" : "with", sets[i]);
        char *dup = used >= 0 && (size_t)used < sizeof origin ? strdup(origin) : NULL;
        if (dup) {
            free(cfg->origin);
            cfg->origin = dup;
        }
    }
    json_decref(root);
    for (size_t i = 0; i < parsed; i++)
        gcr_config_override_free(&o[i]);
    free(o);
    return rc;
}
