/* Options of the tsc and dsc organisations: every bad value is refused with
 * the JSON path named, and the tag-storage figures reproduce the paper's
 * Table 3 (0.58 KB for a private tag of 8 bits, 0.44 KB for 5 bits). */
#include "check.h"
#include "gcreplay/config.h"
#include "gcreplay/replay.h"

/* The message of creating a replay under config json, or "" if it worked. */
static const char *create_error(const char *json, struct gcr_err *err)
{
    struct gcr_config cfg;
    memset(err, 0, sizeof *err);
    if (gcr_config_parse(&cfg, json, "cfg.json", err) != 0)
        return err->msg;
    struct gcr_replay *rp;
    int rc = gcr_replay_create(&rp, &cfg, err);
    if (rc == 0)
        gcr_replay_destroy(rp);
    gcr_config_free(&cfg);
    return rc == 0 ? "" : err->msg;
}

#define L1(org, opts)                                                                      \
    "{\"gpu\": {\"sms\": 2}, \"l2\": {\"slices\": 1}, \"l1d\": {\"organization\": \"" org \
    "\", \"sets\": 32, \"ways\": 4, \"" org "\": " opts "}}"

static const struct {
    const char *json, *expect;
} bad[] = {
    {L1("tsc", "{\"chunk_bytes\": 48}"), "$.l1d.tsc.chunk_bytes: must be a power of two"},
    {L1("tsc", "{\"chunk_bytes\": 128}"),
     "$.l1d.tsc.chunk_bytes: expected an integer between 8 and 64, got 128"},
    {L1("tsc", "{\"chunk_bytes\": 4}"),
     "$.l1d.tsc.chunk_bytes: expected an integer between 8 and 64, got 4"},
    {L1("tsc", "{\"chunk_bytes\": 16}"), "multiple of the 32-B sector"},
    {L1("tsc", "{\"private_tag_bits\": 41}"), "$.l1d.tsc.private_tag_bits"},
    {L1("tsc", "{\"private_tag_bits\": 0, \"shared_tag_bits\": 0}"),
     "$.l1d.tsc.shared_tag_bits: the shared and private tags cannot both be empty"},
    {L1("tsc", "{\"mode\": \"medium\"}"),
     "$.l1d.tsc.mode: unknown value \"medium\" (known: \"fine\", \"coarse\", \"adaptive\")"},
    {L1("tsc", "{\"mode\": \"adaptive\", \"sampler_sets\": 17}"), "$.l1d.tsc.sampler_sets"},
    {L1("tsc", "{\"halve_above\": 65535}"), "$.l1d.tsc.halve_above"},
    {L1("tsc", "{\"chunk_size\": 32}"), "$.l1d.tsc.chunk_size: unknown key"},
    {L1("tsc", "{\"baselines\": [\"line16\"]}"), "$.l1d.tsc.baselines[0]: expected one of"},
    {L1("tsc", "{\"baselines\": \"line128\"}"), "$.l1d.tsc.baselines: expected an array"},
    {L1("tsc", "{\"write_evict\": \"never\"}"), "$.l1d.tsc.write_evict"},
    {"{\"gpu\": {\"sms\": 1}, \"l2\": {\"slices\": 1}, \"l1d\": {\"organization\": \"tsc\", "
     "\"sets\": 4, \"ways\": 4}}",
     "$.l1d.tsc.index: \"fermi\" does not fit this L1"},
    {"{\"gpu\": {\"sms\": 1}, \"l2\": {\"slices\": 1}, \"coalescer\": {\"granularity\": "
     "\"sector\"}, \"l1d\": {\"organization\": \"tsc\", \"sets\": 32, \"ways\": 4}}",
     "$.coalescer.granularity"},
    /* Both write-evict every store: another L1 write policy is not modelled. */
    {"{\"gpu\": {\"sms\": 2}, \"l2\": {\"slices\": 1}, \"l1d\": {\"organization\": \"tsc\", "
     "\"sets\": 32, \"ways\": 4, \"write_policy\": \"write_back\"}}",
     "$.l1d.write_policy: the tsc organisation write-evicts every store without allocating"},
    {"{\"gpu\": {\"sms\": 2}, \"l2\": {\"slices\": 1}, \"l1d\": {\"organization\": \"dsc\", "
     "\"sets\": 32, \"ways\": 4, \"write_policy\": \"write_through\"}}",
     "$.l1d.write_policy: the dsc organisation write-evicts every store without allocating "
     "($.l1d.dsc.write_evict says what a store removes); \"write_through\" is not modelled"},
    {L1("dsc", "{\"tags_per_frame\": 3}"), "$.l1d.dsc.tags_per_frame: must be 1, 2, 4 or 8"},
    {L1("dsc", "{\"tags_per_frame\": 16}"), "$.l1d.dsc.tags_per_frame: expected an integer"},
    {L1("dsc", "{\"address_bits\": 12}"), "$.l1d.dsc.address_bits"},
    {L1("dsc", "{\"private_tag_bits\": 8}"), "$.l1d.dsc.private_tag_bits: unknown key"},
};

/* A figure of the report's tag_storage section under config json, or -1. */
static double storage_figure(const char *json, const char *org, const char *figure)
{
    struct gcr_err err = {0};
    struct gcr_config cfg;
    double kb = -1;
    if (gcr_config_parse(&cfg, json, "cfg.json", &err) != 0)
        return -1;
    struct gcr_replay *rp;
    if (gcr_replay_create(&rp, &cfg, &err) == 0) {
        json_t *rep = gcr_replay_report(rp, &err);
        json_t *ts = json_object_get(
            json_object_get(json_object_get(json_object_get(rep, "total"), "L1D"), org),
            "tag_storage");
        kb = json_number_value(json_object_get(ts, figure));
        json_decref(rep);
        gcr_replay_destroy(rp);
    }
    gcr_config_free(&cfg);
    return kb;
}

static double storage_kb(const char *json, const char *org)
{
    return storage_figure(json, org, "overhead_kb_per_l1");
}

int main(void)
{
    struct gcr_err err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *msg = create_error(bad[i].json, &err);
        CHECK_STR_CONTAINS(msg, bad[i].expect);
        CHECK_STR_CONTAINS(msg, "cfg.json");
    }
    /* Good ones: 16-B chunks over 16-B sectors; a 0-bit private tag. */
    CHECK(create_error("{\"gpu\": {\"sms\": 1}, \"l2\": {\"slices\": 1}, "
                       "\"coalescer\": {\"sector_bytes\": 16}, \"l1d\": "
                       "{\"organization\": \"tsc\", \"sets\": 32, \"ways\": 4, "
                       "\"tsc\": {\"chunk_bytes\": 16}}}", &err)[0] == 0);
    CHECK(create_error(L1("tsc", "{\"private_tag_bits\": 0}"), &err)[0] == 0);

    /* 16-KB L1, 32 sets x 4 groups x 4 chunks of 32 B (Table 2):
     * P=8, S=12: 512 x (8+1+2+1) + 128 x 12 = 7680 bits against the 128-B
     * baseline's 128 x (20+1+2) = 2944: 4736 bits = 0.578125 KB.
     * P=5, S=15: 512 x 9 + 128 x 15 - 2944 = 3584 bits = 0.4375 KB. */
    CHECK(storage_kb(L1("tsc", "{}"), "tsc") == 0.578125);
    CHECK(storage_kb(L1("tsc", "{\"private_tag_bits\": 5, \"shared_tag_bits\": 15}"), "tsc") ==
          0.4375);
    /* DSC-k: (k-1) more 23-bit tag entries per frame and a log2(k)-bit
     * selector per chunk: DSC-2 128 x 23 + 512 = 3456 bits = 0.421875 KB;
     * DSC-4 384 x 23 + 1024 = 9856 bits = 1.203125 KB. */
    CHECK(storage_kb(L1("dsc", "{}"), "dsc") == 0.421875);
    CHECK(storage_kb(L1("dsc", "{\"tags_per_frame\": 4}"), "dsc") == 1.203125);
    /* TSC+'s sampler: 4 counters of counter_bits bits each, up to 32-bit
     * counters (saturating at 2^32 - 1, which once hung the bit count). */
    CHECK(storage_figure(L1("tsc", "{\"mode\": \"adaptive\", \"counter_bits\": 32}"), "tsc",
                         "sampler_counter_bits_per_gpu") == 128);
    CHECK(storage_figure(L1("tsc", "{\"mode\": \"adaptive\"}"), "tsc",
                         "sampler_counter_bits_per_gpu") == 64);
    CHECK_DONE();
}
