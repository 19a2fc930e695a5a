/* The L2 behaviours of real GPUs (config l2.fetch_bytes and
 * l2.partitions.partial_writes), on tiny traces with hand-computed outcomes.
 *
 * Two SMs, an L2 of two slices interleaved at 256 B, each slice its own
 * partition: SM 0 is in partition 0, SM 1 in partition 1, and lines from A
 * (0x10000) up to A + 255 and from A + 512 are homed in partition 0. 32-B
 * sectors of 128-B lines, one request per sector, write-through L1s. */
#include "replay_util.h"

#define A 0x10000ull

static void config_for(char *buf, size_t n, unsigned fetch_bytes, const char *partial_writes)
{
    snprintf(buf, n,
             "{\"gpu\": {\"sms\": 2, \"max_ctas_per_sm\": 8},"
             " \"coalescer\": {\"granularity\": \"sector\"},"
             " \"l1d\": {\"sets\": 4, \"ways\": 4, \"sectored\": true,"
             "  \"write_policy\": \"write_through\"},"
             " \"l2\": {\"slices\": 2, \"sets\": 16, \"ways\": 4, \"sectored\": true,"
             "  \"interleave_bytes\": 256, \"write_policy\": \"write_back\","
             "  \"write_allocate\": \"validate\", \"byte_masks\": true, \"fetch_bytes\": %u,"
             "  \"partitions\": {\"count\": 2, \"partial_writes\": \"%s\"}}}",
             fetch_bytes, partial_writes);
}

static void load_lanes(struct tb *t, uint32_t cta, uint32_t mask, uint64_t base, int64_t stride)
{
    tb_access(t, cta, 0, GCR_OP_LOAD, GCR_SPACE_GLOBAL, 4, mask, base, stride);
}

/* One warp on SM 0 (partition 0, the home of every line here), four loads:
 * 1. one lane at A: sector 0 misses and comes from DRAM;
 * 2. one lane at A + 32: sector 1, an L1 miss;
 * 3. 32 lanes from A + 128: the four sectors of that line, all misses;
 * 4. two lanes at A + 512 and A + 544: sectors 0 and 1 of that line, both misses.
 * 32-B fetches: 8 L2 reads, no hit, 8 DRAM sectors.
 * 64-B fetches: load 1 brings sector 1 too, so load 2 hits; loads 3 and 4 read
 * both sectors of each pair themselves, so nothing more: 8 DRAM sectors, one
 * promoted, one hit.
 * 128-B fetches: load 1 brings sectors 1-3 (load 2 hits); load 4's first sector
 * brings sectors 2 and 3 but not 1, which the instruction reads itself: 12
 * DRAM sectors, 5 promoted, one hit. */
static void fetch_units(void)
{
    struct tb t;
    tb_open(&t, "fetch");
    tb_kernel(&t, 1, 1, 32, 0, 0);
    load_lanes(&t, 0, 0x1, A, 4);
    load_lanes(&t, 0, 0x1, A + 32, 4);
    tb_load(&t, 0, 0, A + 128);
    load_lanes(&t, 0, 0x3, A + 512, 32);
    tb_end(&t, 1);
    tb_close(&t);
    static const struct {
        unsigned fetch, hits, dram_sectors, promoted;
    } cases[] = {{32, 0, 8, 0}, {64, 1, 8, 1}, {128, 1, 12, 5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[1024];
        config_for(cfg, sizeof cfg, cases[i].fetch, "take");
        json_t *r = must_replay(cfg, t.path);
        CHECK_EQ_U(jget(r, "kernels.0.L2.reads.accesses"), 8);
        CHECK_EQ_U(jget(r, "kernels.0.L2.reads.hits"), cases[i].hits);
        CHECK_EQ_U(jget(r, "kernels.0.traffic.dram_read_bytes"), cases[i].dram_sectors * 32);
        if (cases[i].fetch > 32)
            CHECK_EQ_U(jget(r, "kernels.0.L2.fetch.promoted_sectors"), cases[i].promoted);
        else /* the report has no fetch section when the unit is a sector */
            CHECK(!json_object_get(json_object_get(
                      json_array_get(json_object_get(r, "kernels"), 0), "L2"), "fetch"));
        json_decref(r);
    }
    unlink(t.path);
}

/* A promoted sector is kept by the home partition too. SM 1 (partition 1) reads
 * sector 0 of A: it misses near and at home (partition 0) and comes from DRAM
 * with sector 1. Then SM 0 reads sector 1: a hit in its own partition, the
 * home. 2 reads, 1 hit, 2 DRAM sectors (one promoted), one far lookup. */
static void fetch_units_home(void)
{
    struct tb t;
    tb_open(&t, "fetch-home");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    tb_nonmem(&t, 0, 0, 10);
    load_lanes(&t, 0, 0x1, A + 32, 4);
    load_lanes(&t, 1, 0x1, A, 4);
    tb_end(&t, 1);
    tb_close(&t);
    char cfg[1024];
    config_for(cfg, sizeof cfg, 64, "take");
    json_t *r = must_replay(cfg, t.path);
    CHECK_EQ_U(jget(r, "kernels.0.L2.reads.accesses"), 2);
    CHECK_EQ_U(jget(r, "kernels.0.L2.reads.hits"), 1);
    CHECK_EQ_U(jget(r, "kernels.0.traffic.dram_read_bytes"), 64);
    CHECK_EQ_U(jget(r, "kernels.0.L2.fetch.promoted_sectors"), 1);
    CHECK_EQ_U(jget(r, "kernels.0.L2.fabric.far_lookups"), 1);
    CHECK_EQ_U(jget(r, "kernels.0.L2.fabric.far_hits"), 0);
    json_decref(r);
    unlink(t.path);
}

/* SM 0 reads sector 0 of A into partition 0 (its home): one DRAM sector. SM 1
 * then stores 4 bytes into that sector (partition 1 lacks it) and reads 4 other
 * bytes of it. "take": partition 1 takes the sector from partition 0's copy as
 * it drops it (32 B over the fabric), and the read hits: 1 DRAM sector.
 * "drop": partition 1 holds only the 4 written bytes, the read misses near and
 * at home, whose copy was dropped, and goes to DRAM: 2 DRAM sectors. */
static void partial_writes(void)
{
    struct tb t;
    tb_open(&t, "partial");
    tb_kernel(&t, 1, 2, 32, 0, 0);
    load_lanes(&t, 0, 0x1, A, 4);
    tb_nonmem(&t, 1, 0, 10);
    tb_access(&t, 1, 0, GCR_OP_STORE, GCR_SPACE_GLOBAL, 4, 0x1, A + 4, 4);
    load_lanes(&t, 1, 0x1, A + 8, 4);
    tb_end(&t, 1);
    tb_close(&t);
    static const struct {
        const char *mode;
        unsigned hits, dram_sectors, taken;
    } cases[] = {{"take", 1, 1, 1}, {"drop", 0, 2, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[1024];
        config_for(cfg, sizeof cfg, 32, cases[i].mode);
        json_t *r = must_replay(cfg, t.path);
        CHECK_EQ_U(jget(r, "kernels.0.L2.reads.accesses"), 2);
        CHECK_EQ_U(jget(r, "kernels.0.L2.reads.hits"), cases[i].hits);
        CHECK_EQ_U(jget(r, "kernels.0.traffic.dram_read_bytes"), cases[i].dram_sectors * 32);
        CHECK_EQ_U(jget(r, "kernels.0.L2.fabric.taken_sectors"), cases[i].taken);
        CHECK_EQ_U(jget(r, "kernels.0.L2.fabric.bytes"), cases[i].taken * 32);
        json_decref(r);
    }
    unlink(t.path);
}

int main(void)
{
    fetch_units();
    fetch_units_home();
    partial_writes();
    CHECK_DONE();
}
