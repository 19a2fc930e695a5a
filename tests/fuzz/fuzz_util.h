/* Helpers shared by the fuzz targets. Define FUZZ_TARGET (the target's name, for messages)
 * before including.
 *
 * Every target reads its input from memory (gcr_reader_open_memory and the like), so that
 * nothing touches the file system. The engine targets (fuzz_engine_*.c, fuzz_config.c) replay
 * what they read on the small built-in configs below and check the report: the first byte of
 * their input chooses the config and how the replay runs (fuzz_mode_of). A broken invariant
 * aborts, so that libFuzzer keeps the input; an error returned with a message is a correct
 * answer to a bad input, not a finding. */
#ifndef GCR_FUZZ_UTIL_H
#define GCR_FUZZ_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gcreplay/config.h"
#include "gcreplay/error.h"
#include "gcreplay/replay.h"
#include "gcreplay/trace.h"

/* A broken invariant: report it and crash, so the fuzzer keeps the input. */
static inline void fail(const char *what, const struct gcr_err *err)
{
    fprintf(stderr, FUZZ_TARGET ": %s (%s: %s)\n", what, gcr_status_name(err->status), err->msg);
    abort();
}

/* An error a function returned: a status and a message. Unless memory ran out, the message
 * starts with the name of what was read (a trace, a config), as every message names its
 * place. */
static inline void fuzz_check_error(const struct gcr_err *err, const char *name)
{
    if (err->status == GCR_OK || err->msg[0] == '\0')
        fail("an error without a status or a message", err);
    if (err->status != GCR_E_NOMEM && strncmp(err->msg, name, strlen(name)) != 0)
        fail("an error message that does not start with the name of the input", err);
}

/* ---- Engine targets ------------------------------------------------------------------------- */

/* A few SMs, caches of 2 sets of 2 ways (so that lines are evicted after a handful of
 * accesses), and between them every L1 organisation but "shared", every analysis, two chips
 * and the timing backend. One that stops loading or replaying fails every input that chooses it
 * (fuzz_config, fuzz_replay), from the first run over the corpus. */
static const char *const fuzz_config_texts[] = {
    /* private L1s with every analysis */
    "{\"name\": \"fuzz-private-analyses\","
    " \"gpu\": {\"sms\": 2, \"max_ctas_per_sm\": 2, \"max_warps_per_sm\": 8},"
    " \"coalescer\": {\"line_bytes\": 128, \"sector_bytes\": 32, \"granularity\": \"sector\"},"
    " \"l1d\": {\"organization\": \"private\", \"sets\": 2, \"ways\": 2, \"sectored\": true,"
    "  \"replacement\": \"lru\", \"index\": \"linear\", \"write_policy\": \"write_through\","
    "  \"write_allocate\": \"validate\"},"
    " \"l2\": {\"slices\": 2, \"interleave_bytes\": 256, \"slice_hash\": \"xor\", \"sets\": 4,"
    "  \"ways\": 2, \"sectored\": true, \"index\": \"linear\", \"write_policy\": \"write_back\","
    "  \"write_allocate\": \"validate\", \"prefill_memcpy\": true},"
    " \"analyses\": {\"replication\": {}, \"line_utilisation\": {},"
    "  \"sharing\": {\"cluster_size\": 2, \"chips\": 2}, \"locality\": {\"cluster_size\": 2},"
    "  \"reuse_distance\": {\"granularity\": \"line\"}, \"miss_classes\": {},"
    "  \"remote_probe\": {\"group_size\": 2, \"policies\": [{\"C\": 1, \"S\": 1, \"P\": 1}]}}}",
    /* decoupled L1s (DC-L1), greedy-then-oldest warps */
    "{\"name\": \"fuzz-dcl1\","
    " \"gpu\": {\"sms\": 4, \"max_ctas_per_sm\": 2, \"max_warps_per_sm\": 8},"
    " \"scheduling\": {\"cta_policy\": \"round_robin\", \"warp_policy\": \"gto\"},"
    " \"coalescer\": {\"line_bytes\": 128, \"sector_bytes\": 32, \"granularity\": \"line\"},"
    " \"l1d\": {\"organization\": \"dcl1\", \"sets\": 2, \"ways\": 2, \"sectored\": true,"
    "  \"replacement\": \"lru\", \"index\": \"linear\", \"write_policy\": \"write_through\","
    "  \"write_allocate\": \"validate\", \"invalidate_at_kernel_end\": true,"
    "  \"dcl1\": {\"mode\": \"shc\", \"nodes\": 2, \"clusters\": 1, \"assignment\": \"contiguous\","
    "   \"home\": \"slice\"}},"
    " \"l2\": {\"slices\": 2, \"interleave_bytes\": 256, \"slice_hash\": \"linear\", \"sets\": 4,"
    "  \"ways\": 2, \"sectored\": false, \"index\": \"linear\", \"write_policy\": \"write_back\","
    "  \"write_allocate\": \"fetch\"}}",
    /* tag-split caches, adaptive, with two baselines */
    "{\"name\": \"fuzz-tsc\","
    " \"gpu\": {\"sms\": 2, \"max_ctas_per_sm\": 2, \"max_warps_per_sm\": 8},"
    " \"coalescer\": {\"line_bytes\": 128, \"sector_bytes\": 32, \"granularity\": \"line\"},"
    " \"l1d\": {\"organization\": \"tsc\", \"sets\": 2, \"ways\": 2, \"sectored\": false,"
    "  \"replacement\": \"lru\", \"index\": \"linear\", \"write_policy\": \"write_evict\","
    "  \"write_allocate\": \"none\","
    "  \"tsc\": {\"chunk_bytes\": 32, \"private_tag_bits\": 8, \"shared_tag_bits\": 12,"
    "   \"index\": \"linear\", \"mode\": \"adaptive\", \"sampler_sets\": 1,"
    "   \"write_evict\": \"line\", \"baselines\": [\"line128\", \"sector\"]}},"
    " \"l2\": {\"slices\": 2, \"interleave_bytes\": 256, \"slice_hash\": \"linear\", \"sets\": 4,"
    "  \"ways\": 2, \"sectored\": false, \"index\": \"linear\", \"write_policy\": \"write_back\","
    "  \"write_allocate\": \"fetch\"}}",
    /* cache-line ownership table */
    "{\"name\": \"fuzz-colab\","
    " \"gpu\": {\"sms\": 4, \"max_ctas_per_sm\": 2, \"max_warps_per_sm\": 8},"
    " \"coalescer\": {\"line_bytes\": 128, \"sector_bytes\": 32, \"granularity\": \"sector\"},"
    " \"l1d\": {\"organization\": \"colab\", \"sets\": 2, \"ways\": 2, \"sectored\": true,"
    "  \"replacement\": \"lru\", \"index\": \"linear\", \"write_policy\": \"write_through\","
    "  \"write_allocate\": \"validate\","
    "  \"colab\": {\"cluster_size\": 2, \"table_sets\": 2, \"table_ways\": 2}},"
    " \"l2\": {\"slices\": 2, \"interleave_bytes\": 256, \"slice_hash\": \"xor\", \"sets\": 4,"
    "  \"ways\": 2, \"sectored\": true, \"index\": \"linear\", \"write_policy\": \"write_back\","
    "  \"write_allocate\": \"validate\"}}",
    /* two chips with the sharing-aware LLC's sampler and bandwidth model */
    "{\"name\": \"fuzz-chips\","
    " \"gpu\": {\"sms\": 4, \"max_ctas_per_sm\": 2, \"max_warps_per_sm\": 8},"
    " \"coalescer\": {\"line_bytes\": 128, \"sector_bytes\": 32, \"granularity\": \"sector\"},"
    " \"l1d\": {\"organization\": \"private\", \"sets\": 2, \"ways\": 2, \"sectored\": true,"
    "  \"replacement\": \"lru\", \"index\": \"linear\", \"write_policy\": \"write_through\","
    "  \"write_allocate\": \"validate\"},"
    " \"l2\": {\"slices\": 4, \"interleave_bytes\": 256, \"slice_hash\": \"linear\", \"sets\": 4,"
    "  \"ways\": 2, \"sectored\": true, \"index\": \"linear\", \"write_policy\": \"write_back\","
    "  \"write_allocate\": \"validate\"},"
    " \"chips\": {\"count\": 2, \"crd\": {\"sets\": 2, \"ways\": 2},"
    "  \"eab\": {\"profile_requests\": 16}}}",
    /* dynamic private/shared L1s, deciding every few accesses */
    "{\"name\": \"fuzz-dyneb\","
    " \"gpu\": {\"sms\": 4, \"max_ctas_per_sm\": 2, \"max_warps_per_sm\": 8},"
    " \"coalescer\": {\"line_bytes\": 128, \"sector_bytes\": 32, \"granularity\": \"line\"},"
    " \"l1d\": {\"organization\": \"dyneb\", \"sets\": 2, \"ways\": 2, \"sectored\": false,"
    "  \"replacement\": \"lru\", \"index\": \"linear\", \"write_policy\": \"write_through\","
    "  \"write_allocate\": \"none\","
    "  \"dyneb\": {\"sample_accesses\": 4, \"execution_accesses\": 16, \"decision_log\": 4}},"
    " \"l2\": {\"slices\": 2, \"interleave_bytes\": 256, \"slice_hash\": \"linear\", \"sets\": 4,"
    "  \"ways\": 2, \"sectored\": false, \"index\": \"linear\", \"write_policy\": \"write_back\","
    "  \"write_allocate\": \"fetch\"}}",
    /* variable warp sizing, DRAM rows (timing only) */
    "{\"name\": \"fuzz-vws\","
    " \"gpu\": {\"sms\": 2, \"max_ctas_per_sm\": 2, \"max_warps_per_sm\": 8},"
    " \"scheduling\": {\"cta_policy\": \"contiguous\", \"warp_policy\": \"vws\"},"
    " \"coalescer\": {\"line_bytes\": 128, \"sector_bytes\": 32, \"granularity\": \"sector\"},"
    " \"l1d\": {\"organization\": \"private\", \"sets\": 2, \"ways\": 2, \"sectored\": true,"
    "  \"replacement\": \"lru\", \"index\": \"linear\", \"write_policy\": \"write_through\","
    "  \"write_allocate\": \"validate\"},"
    " \"l2\": {\"slices\": 2, \"interleave_bytes\": 256, \"slice_hash\": \"linear\", \"sets\": 4,"
    "  \"ways\": 2, \"sectored\": true, \"index\": \"linear\", \"write_policy\": \"write_back\","
    "  \"write_allocate\": \"validate\"},"
    " \"timing\": {\"vws\": {\"amt_entries\": 4, \"level1_warps\": 2},"
    "  \"dram_rows\": {\"enabled\": true, \"banks\": 2}}}",
    /* decoupled sector caches */
    "{\"name\": \"fuzz-dsc\","
    " \"gpu\": {\"sms\": 2, \"max_ctas_per_sm\": 2, \"max_warps_per_sm\": 8},"
    " \"coalescer\": {\"line_bytes\": 128, \"sector_bytes\": 32, \"granularity\": \"line\"},"
    " \"l1d\": {\"organization\": \"dsc\", \"sets\": 2, \"ways\": 2, \"sectored\": false,"
    "  \"replacement\": \"lru\", \"index\": \"linear\", \"write_policy\": \"write_evict\","
    "  \"write_allocate\": \"none\", \"dsc\": {\"index\": \"linear\"}},"
    " \"l2\": {\"slices\": 2, \"interleave_bytes\": 256, \"slice_hash\": \"linear\", \"sets\": 4,"
    "  \"ways\": 2, \"sectored\": false, \"index\": \"linear\", \"write_policy\": \"write_back\","
    "  \"write_allocate\": \"fetch\"}}",
};
#define FUZZ_CONFIGS (sizeof fuzz_config_texts / sizeof fuzz_config_texts[0])

/* The built-in configs, parsed on first use and kept for the life of the process. */
static inline const struct gcr_config *fuzz_config(unsigned i)
{
    static struct gcr_config configs[FUZZ_CONFIGS];
    static bool parsed[FUZZ_CONFIGS];
    if (!parsed[i]) {
        struct gcr_err err = {GCR_OK, ""};
        if (gcr_config_parse(&configs[i], fuzz_config_texts[i], "built-in", &err) != 0)
            fail("a built-in config does not load", &err);
        parsed[i] = true;
    }
    return &configs[i];
}

/* What an engine input's first byte chooses: bits 0-2 the config, bit 3 the timing backend
 * (always on for the config whose warp scheduler needs it), bit 4 a kernel sink instead of
 * the report's list of kernels, bit 5 the analyses' own thread, bits 6-7 the host prefetch
 * level. None changes the report but the first two. */
struct fuzz_mode {
    unsigned config;
    bool timing, sink, thread;
    enum gcr_host_prefetch prefetch;
};

static inline struct fuzz_mode fuzz_mode_of(uint8_t b)
{
    static const enum gcr_host_prefetch levels[4] = {GCR_HOST_PREFETCH_AUTO,
                                                     GCR_HOST_PREFETCH_QUEUES,
                                                     GCR_HOST_PREFETCH_L1, GCR_HOST_PREFETCH_L2};
    return (struct fuzz_mode){.config = (b & 7u) % FUZZ_CONFIGS,
                              .timing = b >> 3 & 1,
                              .sink = b >> 4 & 1,
                              .thread = b >> 5 & 1,
                              .prefetch = levels[b >> 6]};
}

static inline bool fuzz_is_count(const json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) >= 0;
}

/* The counts of a report agree wherever a report states them: hits and misses make the
 * accesses, line and sector misses make the misses, reads and writes make the accesses (each
 * where the object has all of them), also element by element in per-SM and per-slice lists. */
static inline void fuzz_check_counts(const json_t *o, const struct gcr_err *ctx)
{
    if (json_is_array(o)) {
        size_t i;
        const json_t *v;
        json_array_foreach(o, i, v) fuzz_check_counts(v, ctx);
        return;
    }
    if (!json_is_object(o))
        return;
    const json_t *acc = json_object_get(o, "accesses"), *hits = json_object_get(o, "hits");
    const json_t *miss = json_object_get(o, "misses");
    const json_t *lm = json_object_get(o, "line_misses"), *sm = json_object_get(o, "sector_misses");
    const json_t *rd = json_object_get(json_object_get(o, "reads"), "accesses");
    const json_t *wr = json_object_get(json_object_get(o, "writes"), "accesses");
    if (fuzz_is_count(acc) && fuzz_is_count(hits) && fuzz_is_count(miss) &&
        json_integer_value(hits) + json_integer_value(miss) != json_integer_value(acc))
        fail("a report where hits + misses != accesses", ctx);
    if (fuzz_is_count(miss) && fuzz_is_count(lm) && fuzz_is_count(sm) &&
        json_integer_value(lm) + json_integer_value(sm) != json_integer_value(miss))
        fail("a report where line + sector misses != misses", ctx);
    if (fuzz_is_count(acc) && fuzz_is_count(rd) && fuzz_is_count(wr) &&
        json_integer_value(rd) + json_integer_value(wr) != json_integer_value(acc))
        fail("a report where reads + writes != accesses", ctx);
    if (json_is_array(acc) && json_is_array(hits) && json_is_array(miss)) {
        size_t n = json_array_size(acc);
        if (json_array_size(hits) != n || json_array_size(miss) != n)
            fail("a report with per-unit lists of different lengths", ctx);
        for (size_t i = 0; i < n; i++) {
            const json_t *a = json_array_get(acc, i), *h = json_array_get(hits, i);
            const json_t *m = json_array_get(miss, i);
            if (fuzz_is_count(a) && fuzz_is_count(h) && fuzz_is_count(m) &&
                json_integer_value(h) + json_integer_value(m) != json_integer_value(a))
                fail("a report where one unit's hits + misses != accesses", ctx);
        }
    }
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)o, key, v) fuzz_check_counts(v, ctx);
}

/* A report (or one kernel's part) that holds together and can be written out. */
static inline void fuzz_check_report(const json_t *report)
{
    const struct gcr_err ctx = {GCR_OK, "report"};
    fuzz_check_counts(report, &ctx);
    char *text = json_dumps(report, JSON_COMPACT);
    if (!text)
        fail("a report that cannot be written as JSON", &ctx);
    free(text);
}

static inline int fuzz_take_kernel(void *ctx, json_t *kernel, struct gcr_err *err)
{
    (void)ctx;
    (void)err;
    fuzz_check_report(kernel);
    return 0;
}

/* Replays the trace r (named name) on the config and in the way the mode says, then builds,
 * checks and frees the report. A replay error is checked as an error and ends it. */
static inline void fuzz_replay(struct gcr_reader *r, const char *name, struct fuzz_mode m)
{
    struct gcr_config cfg = *fuzz_config(m.config); /* shares its parts; only read */
    cfg.timing.enabled = m.timing || cfg.warp_policy == GCR_WARP_VWS; /* vws needs timing */
    struct gcr_err err = {GCR_OK, ""};
    struct gcr_replay *rp = NULL;
    if (gcr_replay_create(&rp, &cfg, &err) != 0)
        fail("a built-in config does not replay", &err);
    if (gcr_replay_set_analysis_thread(rp, m.thread, &err) != 0 ||
        gcr_replay_set_host_prefetch(rp, m.prefetch, &err) != 0 ||
        (m.sink && gcr_replay_set_kernel_sink(rp, fuzz_take_kernel, NULL, &err) != 0))
        fail("a replay option refused before the first trace", &err);
    if (gcr_replay_trace(rp, r, &err) != 0) {
        fuzz_check_error(&err, name);
    } else {
        json_t *report = gcr_replay_report(rp, &err);
        if (!report)
            fail("no report after a replay that succeeded", &err);
        fuzz_check_report(report);
        json_decref(report);
    }
    gcr_replay_destroy(rp);
}

/* Opens data as a trace named name in the format, and replays it as the first byte says. */
static inline void fuzz_engine_run(const uint8_t *data, size_t size, const char *name,
                                   const char *format)
{
    if (size == 0)
        return;
    struct gcr_reader *r = NULL;
    struct gcr_err err = {GCR_OK, ""};
    if (gcr_reader_open_memory(&r, name, data + 1, size - 1, format, &err) != 0) {
        if (r)
            fail("a reader returned with an error", &err);
        fuzz_check_error(&err, name);
        return;
    }
    fuzz_replay(r, name, fuzz_mode_of(data[0]));
    gcr_reader_close(r);
}

#endif
