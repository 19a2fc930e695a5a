/* Fuzz target for the JSON config (libFuzzer's LLVMFuzzerTestOneInput).
 *
 * The input is a config's JSON text, loaded from memory as gcr_config_load loads a file. An
 * error must carry a message naming the config. A config that loads must:
 *   - describe itself (gcr_config_to_json) in a config that loads again and describes itself
 *     the same way;
 *   - replay a small fixed trace (memcpys, two kernels, loads, stores, atomics, every space),
 *     or refuse it with an error naming the config or the trace, and give a report whose counts
 *     agree (fuzz_util.h).
 * Configs whose caches or warp slots would take more than a few MiB are loaded and described
 * but not replayed: their cost is their size, not a bug, and it would slow the search down.
 * Builds without libFuzzer link it with fuzz_standalone.c, which replays files through it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_TARGET "fuzz-config"
#include "fuzz_util.h"

#define CONFIG_NAME "fuzz.json"
#define TRACE_NAME "fixed.txt"

/* Lines cached and warp slots beyond which a config is not replayed. */
#define MAX_REPLAYED_LINES (1u << 18)
#define MAX_REPLAYED_WARPS (1u << 14)

static const char fixed_trace[] =
    "#gcreplay-text 1\n"
    "memcpy 0x10000 4096\n"
    "kernel 1 first grid=3,1,1 block=64,1,1 shmem=1024 regs=32\n"
    "0 0 0x10 load global 4 0xffffffff 0x10000+4\n"
    "0 1 0x10 load global 4 0xffffffff 0x10080+4\n"
    "0 0 compute 3\n"
    "0 1 0x20 store global 4 0x0000ffff 0x20000+8\n"
    "0 0 0x30 atomic global 4 0x00000003 0x30000 0x30000\n"
    "1 0 0x10 load global 4 0xffffffff 0x10100+4\n"
    "1 0 0x18 load const 4 0xffffffff 0x40000+0\n"
    "1 1 0x28 load local cache=bypass_l1 8 0xffffffff 0x50000+8\n"
    "1 1 0x38 store shared 4 0xffffffff 0x60+4\n"
    "2 0 0x40 reduction global 4 0x80000001 0x30000 0x30004\n"
    "2 1 0x48 load texture 16 0xffffffff 0x70000+16\n"
    "2 1 compute 2\n"
    "end 1\n"
    "memcpy 0x20000 256\n"
    "kernel 2 second grid=2,2,1 block=32,1,1 shmem=0 regs=8\n"
    "0 0 0x10 load global 4 0xffffffff 0x20000+4\n"
    "1 0 0x10 load global 4 0xffffffff 0x10000+4\n"
    "2 0 0x10 store global 4 0xffffffff 0x10000+4\n"
    "3 0 0x10 load global 4 0xffffffff 0x20000+4\n"
    "end 2\n";

/* In doubles, which cannot wrap around as 64-bit products of 32-bit fields can. */
static double lines_of(const struct gcr_cache_geometry *g)
{
    return (double)g->sets * g->ways;
}

static bool small_enough(const struct gcr_config *cfg)
{
    double lines = cfg->num_sms * lines_of(&cfg->l1) + cfg->l2_slices * lines_of(&cfg->l2);
    return lines <= MAX_REPLAYED_LINES &&
           (double)cfg->num_sms * cfg->max_warps_per_sm <= MAX_REPLAYED_WARPS;
}

static void replay_fixed_trace(const struct gcr_config *cfg)
{
    struct gcr_err err = {GCR_OK, ""};
    struct gcr_replay *rp = NULL;
    if (gcr_replay_create(&rp, cfg, &err) != 0) {
        fuzz_check_error(&err, CONFIG_NAME);
        return;
    }
    struct gcr_reader *r = NULL;
    if (gcr_reader_open_memory(&r, TRACE_NAME, fixed_trace, sizeof fixed_trace - 1, "text",
                               &err) != 0)
        fail("the fixed trace does not open", &err);
    if (gcr_replay_trace(rp, r, &err) != 0) {
        /* A config may refuse a kernel (too many warps for an SM...): an error about the trace. */
        fuzz_check_error(&err, TRACE_NAME);
    } else {
        json_t *report = gcr_replay_report(rp, &err);
        if (!report)
            fail("no report after a replay that succeeded", &err);
        fuzz_check_report(report);
        json_decref(report);
    }
    gcr_reader_close(r);
    gcr_replay_destroy(rp);
}

/* The effective config loads again, to the same effective config. */
static void check_self_description(const struct gcr_config *cfg)
{
    struct gcr_err err = {GCR_OK, ""};
    json_t *described = gcr_config_to_json(cfg);
    char *text = described ? json_dumps(described, JSON_SORT_KEYS) : NULL;
    if (!text)
        fail("a config that cannot describe itself", &err);
    struct gcr_config again;
    if (gcr_config_parse(&again, text, CONFIG_NAME, &err) != 0)
        fail("a config's description does not load", &err);
    json_t *redescribed = gcr_config_to_json(&again);
    if (!json_equal(described, redescribed))
        fail("a config's description loads as another config", &err);
    json_decref(redescribed);
    gcr_config_free(&again);
    free(text);
    json_decref(described);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct gcr_config cfg;
    struct gcr_err err = {GCR_OK, ""};
    int rc = gcr_config_parse(&cfg, text, CONFIG_NAME, &err);
    free(text);
    if (rc != 0) {
        fuzz_check_error(&err, CONFIG_NAME);
        return 0;
    }
    check_self_description(&cfg);
    if (small_enough(&cfg))
        replay_fixed_trace(&cfg);
    gcr_config_free(&cfg);
    return 0;
}
