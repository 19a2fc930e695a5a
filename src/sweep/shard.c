/* Shards of a sweep (sweep.h): the plan's pairs split into K parts, and the marker each part
 * leaves when it runs.
 *
 * The split is computed from the plan alone, so that every task of a job array, on whatever
 * node, computes the same one from the same sweep.json, and no task needs to hear from
 * another. What is split are units: the pairs of one trace whose variants can share a pass
 * (sweep_pass_groups), so that a shard can replay them together; a variant that needs a pass
 * of its own is a unit alone. The units are the same whether the shard then replays them in
 * one pass or not (sweep --one-pass), so that the split never depends on how it is run. A
 * unit costs what its pairs would one by one, each its trace's bytes plus a fixed cost per
 * replay (a shared pass measured about as long as its variants one by one on the bench's
 * trace: tests/bench/README.md); units go heaviest first, each to the shard with the least
 * cost so far (longest processing time first: within 4/3 of the best split). Units of equal
 * cost go in the order of a stable hash of the ids of their trace and first variant, so that
 * the split depends on the pairs and their sizes, not on where they stand in the plan (and
 * is the split of the pairs themselves when no two variants can share a pass). */
#include "sweep/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A replay's cost beyond its trace's bytes (a process, a config read, caches built), counted
 * as this many bytes of trace: traces of a few kilobytes are then spread by their number. */
enum { REPLAY_FIXED_COST = 64 * 1024 };

struct unit {
    uint64_t cost, hash;
    const char *trace_id, *variant_id; /* the trace and the first variant of the pass */
    size_t trace, group;
};

/* FNV-1a over the bytes of s and its terminating zero. */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s;; p++) {
        h = (h ^ *p) * 1099511628211ull;
        if (!*p)
            return h;
    }
}

static int heaviest_first(const void *a, const void *b)
{
    const struct unit *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    int c = strcmp(x->trace_id, y->trace_id); /* ids are unique: a total order */
    return c ? c : strcmp(x->variant_id, y->variant_id);
}

/* The shards as a binary min-heap by (load, number): the lightest one, lowest number first. */
struct shard_load {
    uint64_t load;
    unsigned shard;
};

static bool lighter(const struct shard_load *a, const struct shard_load *b)
{
    return a->load != b->load ? a->load < b->load : a->shard < b->shard;
}

static void sift_down(struct shard_load *h, size_t n, size_t i)
{
    for (;;) {
        size_t least = i, l = 2 * i + 1, r = l + 1;
        if (l < n && lighter(&h[l], &h[least]))
            least = l;
        if (r < n && lighter(&h[r], &h[least]))
            least = r;
        if (least == i)
            return;
        struct shard_load t = h[i];
        h[i] = h[least];
        h[least] = t;
        i = least;
    }
}

int sweep_shard_partition(const struct sweep_plan *p, unsigned shards, unsigned *shard_of,
                          struct gcr_err *err)
{
    if (shards == 0)
        return gcr_fail(err, GCR_E_USAGE, "a sweep has at least one shard");
    size_t n = p->ntraces * p->nvariants, nv = p->nvariants ? p->nvariants : 1;
    struct unit *units = malloc((n ? n : 1) * sizeof *units);
    struct shard_load *heap = malloc(shards * sizeof *heap);
    size_t *group_of = malloc(nv * sizeof *group_of), *members = calloc(nv, sizeof *members);
    int rc = units && heap && group_of && members ? 0
                                                  : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (rc == 0 && sweep_pass_groups(p, group_of, err) < 0)
        rc = -1;
    for (size_t v = 0; v < p->nvariants && rc == 0; v++)
        members[group_of[v]]++;
    size_t nunits = 0;
    for (size_t t = 0; t < p->ntraces && rc == 0; t++)
        for (size_t g = 0; g < p->nvariants; g++) {
            if (!members[g])
                continue; /* not the first variant of a group */
            struct unit *x = &units[nunits++];
            x->cost = (p->traces[t].bytes + REPLAY_FIXED_COST) * members[g];
            x->trace_id = p->traces[t].id;
            x->variant_id = p->variants[g].id;
            x->hash = fnv(fnv(1469598103934665603ull, x->trace_id), x->variant_id);
            x->trace = t;
            x->group = g;
        }
    if (rc == 0)
        qsort(units, nunits, sizeof *units, heaviest_first);
    /* Numbered in order, all empty, it is a heap already. */
    for (unsigned s = 0; s < shards && rc == 0; s++)
        heap[s] = (struct shard_load){0, s};
    for (size_t i = 0; i < nunits && rc == 0; i++) {
        for (size_t v = 0; v < p->nvariants; v++)
            if (group_of[v] == units[i].group)
                shard_of[units[i].trace * p->nvariants + v] = heap[0].shard;
        heap[0].load += units[i].cost;
        sift_down(heap, shards, 0);
    }
    free(units);
    free(heap);
    free(group_of);
    free(members);
    return rc;
}

size_t sweep_shard_units(const struct sweep_plan *p, struct gcr_err *err)
{
    size_t *group_of = malloc((p->nvariants ? p->nvariants : 1) * sizeof *group_of);
    int groups = group_of ? sweep_pass_groups(p, group_of, err)
                          : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    free(group_of);
    return groups < 0 ? SIZE_MAX : p->ntraces * (size_t)groups;
}

/* ---- Markers ------------------------------------------------------------------------------ */

char *sweep_shard_marker_path(const char *dir, unsigned shard)
{
    char name[32];
    snprintf(name, sizeof name, "%u.json", shard);
    return sweep_path(dir, "slurm/shards", name, NULL);
}

void sweep_host_name(char *out, size_t cap)
{
    if (gethostname(out, cap) != 0)
        snprintf(out, cap, "?");
    out[cap - 1] = '\0';
}

void sweep_now_text(char *out, size_t cap)
{
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, cap, "?");
}

/* The job array task this process runs as, "JOB_TASK", or NULL outside a job array. */
static json_t *array_task(void)
{
    const char *job = getenv("SLURM_ARRAY_JOB_ID"), *task = getenv("SLURM_ARRAY_TASK_ID");
    if (!job || !task)
        return json_null();
    char text[128];
    snprintf(text, sizeof text, "%s_%s", job, task);
    return json_string(text);
}

int sweep_shard_mark(const char *dir, unsigned shard, unsigned shards,
                     const struct sweep_run_counts *finished, struct gcr_err *err)
{
    char host[256], now[32];
    sweep_host_name(host, sizeof host);
    sweep_now_text(now, sizeof now);
    char *slurm = sweep_path(dir, "slurm", NULL, NULL);
    char *marks = sweep_path(dir, "slurm/shards", NULL, NULL);
    char *path = sweep_shard_marker_path(dir, shard);
    int rc = slurm && marks && path ? 0 : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    if (rc == 0)
        rc = sweep_mkdir(slurm, err) || sweep_mkdir(marks, err) ? -1 : 0;
    json_t *m = NULL;
    if (rc == 0) {
        /* The start is kept from the marker the task wrote when it started. */
        json_t *before = finished ? json_load_file(path, 0, NULL) : NULL;
        const char *started = json_string_value(json_object_get(before, "started"));
        m = json_pack("{s:I, s:I, s:s, s:o, s:s}", "shard", (json_int_t)shard, "shards",
                      (json_int_t)shards, "host", host, "job", array_task(), "started",
                      started ? started : now);
        json_decref(before);
        if (m && finished) {
            json_t *end = json_pack("{s:s, s:I, s:I, s:I, s:I}", "finished", now, "pairs",
                                    (json_int_t)finished->pairs, "done_before",
                                    (json_int_t)finished->done_before, "replayed",
                                    (json_int_t)finished->replayed, "failed",
                                    (json_int_t)finished->failed);
            if (!end || json_object_update(m, end) != 0) {
                json_decref(m);
                m = NULL;
            }
            json_decref(end);
        }
        rc = m ? sweep_write_json(path, m, JSON_INDENT(1), err)
               : gcr_fail(err, GCR_E_NOMEM, "out of memory");
    }
    json_decref(m);
    free(slurm);
    free(marks);
    free(path);
    return rc;
}

json_t *sweep_shard_marker(const char *dir, unsigned shard)
{
    char *path = sweep_shard_marker_path(dir, shard);
    json_t *m = path ? json_load_file(path, 0, NULL) : NULL;
    free(path);
    if (m && !json_is_object(m)) {
        json_decref(m);
        m = NULL;
    }
    return m;
}

int sweep_shard_forget_marks(const char *dir, struct gcr_err *err)
{
    char *marks = sweep_path(dir, "slurm/shards", NULL, NULL);
    if (!marks)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    DIR *d = opendir(marks);
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json"))
            continue;
        char *path = sweep_path(marks, e->d_name, NULL, NULL);
        if (!path)
            rc = gcr_fail(err, GCR_E_NOMEM, "out of memory");
        else if (unlink(path) != 0 && errno != ENOENT)
            rc = gcr_fail(err, GCR_E_IO, "%s: cannot remove the marker of an earlier run: %s",
                          path, strerror(errno));
        free(path);
    }
    if (d)
        closedir(d);
    free(marks);
    return rc;
}
