/* GPGPU-Sim config import: the mapping of each option, override order, the
 * file syntax (comments, quoted multi-line values), and every error path. */
#include <unistd.h>

#include "check.h"
#include "gcreplay/config.h"

static char paths[4][64];

static const char *write_file(int i, const char *text)
{
    snprintf(paths[i], sizeof paths[i], "import-%d-%d.config", (int)getpid(), i);
    FILE *f = fopen(paths[i], "w");
    fputs(text, f);
    fclose(f);
    return paths[i];
}

static const char *base =
    "# a comment line\n"
    "-gpgpu_n_clusters 10   # trailing comment\n"
    "-gpgpu_n_cores_per_cluster 2\n"
    "-gpgpu_n_mem 4\n"
    "-gpgpu_n_sub_partition_per_mchannel 2\n"
    "-gpgpu_shader_core_pipeline 1536:32\n"
    "-gpgpu_shader_cta 16\n"
    "-gpgpu_shader_registers 32768\n"
    "-gpgpu_shmem_size 49152\n"
    "-gpgpu_coalesce_arch 70\n"
    "-gpgpu_scheduler gto\n"
    "-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:512:8,16:0,32\n"
    "-gpgpu_cache:dl2 N:64:128:8,F:B:f:W:X,A:256:4,4:0,64\n"
    "-gpgpu_mem_addr_mapping dramid@9;00000000.00000000.00000000.00000000."
    "0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS\n"
    "-gpgpu_memory_partition_indexing 1\n"
    "-gpgpu_dram_timing_opt \"nbk=16:CCD=1:RRD=3:\n"
    "                        CL=12:WL=2\"\n"
    "-gpgpu_flush_l1_cache 1\n"
    "-gpgpu_perf_sim_memcpy 1\n";

static json_t *import(int n, const char *name, struct gcr_err *err)
{
    const char *p[4] = {paths[0], paths[1], paths[2], paths[3]};
    return gcr_config_import_gpgpusim(p, (size_t)n, name, err);
}

static const char *str(const json_t *c, const char *a, const char *b)
{
    return json_string_value(json_object_get(json_object_get(c, a), b));
}

static long long num(const json_t *c, const char *a, const char *b)
{
    return (long long)json_integer_value(json_object_get(json_object_get(c, a), b));
}

/* 87 mask characters: a D before them is address bit 87. */
#define DOTS_87 "0000000000000000000000000000000000000000000000000000000000000000" \
                "00000000000000000000000"

static void expect_error(const char *extra, const char *needle)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", base, extra);
    write_file(0, text);
    struct gcr_err err = {0};
    json_t *c = import(1, "x", &err);
    if (c) {
        fprintf(stderr, "accepted: %s\n", extra);
        check_failures++;
        json_decref(c);
        return;
    }
    CHECK_STR_CONTAINS(err.msg, paths[0]);
    CHECK_STR_CONTAINS(err.msg, needle);
}

/* Files held in memory import as the same files do, errors included (their names are the
 * paths), and need no file of their name; an empty one is an empty file. */
static void test_memory(void)
{
    static const char *const texts[][2] = {
        {"-gpgpu_scheduler lrr\n-gpgpu_n_mem 8\n", NULL},
        {"-gpgpu_cache:dl1 S:4:128\n", "not a GPGPU-Sim cache string"},
    };
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        write_file(0, base);
        write_file(1, texts[t][0]);
        struct gcr_err disk_err = {0}, mem_err = {0};
        json_t *disk = import(2, "twice", &disk_err);
        const struct gcr_memfile files[2] = {{paths[0], base, strlen(base)},
                                             {paths[1], texts[t][0], strlen(texts[t][0])}};
        json_t *mem = gcr_config_import_gpgpusim_memory(files, 2, "twice", &mem_err);
        CHECK((disk != NULL) == (texts[t][1] == NULL));
        CHECK(json_equal(disk, mem) || (!disk && !mem));
        CHECK(strcmp(disk_err.msg, mem_err.msg) == 0);
        if (texts[t][1])
            CHECK_STR_CONTAINS(mem_err.msg, texts[t][1]);
        json_decref(disk);
        json_decref(mem);
    }
    struct gcr_err err = {0};
    const struct gcr_memfile other = {"other.config", base, strlen(base)};
    json_t *c = gcr_config_import_gpgpusim_memory(&other, 1, "x", &err);
    CHECK(c != NULL);
    json_decref(c);
    const struct gcr_memfile empty = {"empty.config", NULL, 0};
    CHECK(gcr_config_import_gpgpusim_memory(&empty, 1, "x", &err) == NULL);
    CHECK_STR_CONTAINS(err.msg, "empty.config");
    CHECK_STR_CONTAINS(err.msg, "option -gpgpu_n_clusters is missing");
}

int main(void)
{
    test_memory();
    struct gcr_err err = {0};
    write_file(0, base);
    json_t *c = import(1, "test", &err);
    CHECK(c != NULL);
    if (!c) {
        fprintf(stderr, "%s\n", err.msg);
        CHECK_DONE();
    }
    CHECK_EQ_U(num(c, "gpu", "sms"), 20);
    CHECK_EQ_U(num(c, "gpu", "max_ctas_per_sm"), 16);
    CHECK_EQ_U(num(c, "gpu", "max_warps_per_sm"), 48);
    CHECK_EQ_U(num(c, "gpu", "shared_mem_per_sm"), 49152);
    CHECK_EQ_U(num(c, "gpu", "registers_per_sm"), 32768);
    CHECK(!strcmp(str(c, "scheduling", "warp_policy"), "gto"));
    CHECK(!strcmp(str(c, "coalescer", "granularity"), "sector"));
    CHECK_EQ_U(num(c, "l1d", "sets"), 4);
    CHECK_EQ_U(num(c, "l1d", "ways"), 64);
    CHECK(json_is_true(json_object_get(json_object_get(c, "l1d"), "sectored")));
    CHECK(!strcmp(str(c, "l1d", "write_policy"), "write_through"));
    CHECK(!strcmp(str(c, "l1d", "write_allocate"), "validate")); /* L: lazy fetch on read */
    CHECK(!strcmp(str(c, "l1d", "index"), "linear"));
    CHECK(json_is_true(json_object_get(json_object_get(c, "l1d"), "invalidate_at_kernel_end")));
    CHECK_EQ_U(num(c, "l2", "slices"), 8);
    CHECK_EQ_U(num(c, "l2", "interleave_bytes"), 512); /* dramid@9 */
    CHECK(!strcmp(str(c, "l2", "slice_hash"), "xor"));
    CHECK(!json_is_true(json_object_get(json_object_get(c, "l2"), "sectored")));
    CHECK(!strcmp(str(c, "l2", "replacement"), "fifo"));
    CHECK(!strcmp(str(c, "l2", "write_allocate"), "fetch")); /* W */
    CHECK(!strcmp(str(c, "l2", "index"), "xor"));
    CHECK(!strcmp(str(c, "l2", "allocation"), "on_fill"));
    CHECK(json_is_true(json_object_get(json_object_get(c, "l2"), "prefill_memcpy")));
    json_t *mshr = json_object_get(json_object_get(c, "l2"), "mshr");
    CHECK_EQ_U(json_integer_value(json_object_get(mshr, "entries")), 256);
    CHECK_EQ_U(json_integer_value(json_object_get(mshr, "data_port_width")), 64);
    json_decref(c);

    /* A later file overrides an earlier one, as in Accel-Sim (trace.config). */
    write_file(1, "-gpgpu_perf_sim_memcpy 0\n-gpgpu_n_clusters 3\n"
                  "-trace_opcode_latency_initiation_int 2,2\n");
    c = import(2, "two", &err);
    CHECK(c != NULL);
    CHECK_EQ_U(num(c, "gpu", "sms"), 6);
    CHECK(json_is_false(json_object_get(json_object_get(c, "l2"), "prefill_memcpy")));
    json_decref(c);

    /* The unified L1/shared carve-out. */
    write_file(1, "-gpgpu_adaptive_cache_config 1\n-gpgpu_unified_l1d_size 128\n"
                  "-gpgpu_shmem_option 0,8,16,32,64,96\n");
    c = import(2, "adaptive", &err);
    CHECK(c != NULL);
    json_t *ad = json_object_get(json_object_get(c, "l1d"), "adaptive");
    CHECK_EQ_U(json_integer_value(json_object_get(ad, "unified_bytes")), 131072);
    CHECK_EQ_U(json_integer_value(json_array_get(json_object_get(ad, "shmem_options_bytes"), 5)),
               98304);
    json_decref(c);

    expect_error("-gpgpu_cache:dl1 S:4:128\n", "not a GPGPU-Sim cache string");
    expect_error("-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:C,A:512:8,16:0,32\n",
                 "set index function 'C' is not supported");
    expect_error("-gpgpu_cache:dl1 Q:4:128:64,L:T:m:L:L,A:512:8,16:0,32\n", "cache type");
    expect_error("-gpgpu_cache:dl1 none\n", "a disabled L1 data cache is not supported");
    /* Values past 32 bits are refused where they stand, before a product could overflow. */
    expect_error("-gpgpu_n_mem 99999999999\n", "99999999999 is out of range (maximum 4294967295)");
    expect_error("-gpgpu_adaptive_cache_config 1\n-gpgpu_unified_l1d_size 7173733806442603248\n"
                 "-gpgpu_shmem_option 0,8\n", "7173733806442603248 is out of range");
    expect_error("-gpgpu_adaptive_cache_config 1\n-gpgpu_unified_l1d_size 128\n"
                 "-gpgpu_shmem_option 0,99999999999\n", "each at most 4294967295");
    /* The list built so far is not leaked (LeakSanitizer runs this test). */
    expect_error("-gpgpu_adaptive_cache_config 1\n-gpgpu_unified_l1d_size 128\n"
                 "-gpgpu_shmem_option 0,8x\n",
                 "expected a comma-separated list of sizes in KB");
    /* sscanf's %u would read -32 as 4294967264, and wrap past 32 bits: refused at the line. */
    expect_error("-gpgpu_cache:dl2 S:-32:128:24,L:B:m:L:P,A:192:4,32:0,32\n",
                 ": -gpgpu_cache:dl2 S:-32:128:24,L:B:m:L:P,A:192:4,32:0,32: a cache string "
                 "holds no negative number");
    expect_error("-gpgpu_cache:dl2 S:99999999999:128:24,L:B:m:L:P,A:192:4,32:0,32\n",
                 "number 99999999999 is out of range (maximum 4294967295)");
    expect_error("-gpgpu_cache:dl2 S:0:128:24,L:B:m:L:P,A:192:4,32:0,32\n",
                 "sets, line size and associativity must be at least 1");
    expect_error("-gpgpu_scheduler two_level_active:6:0:1\n", "lrr and gto");
    expect_error("-gpgpu_memory_partition_indexing 3\n", "only 0 (none)");
    expect_error("-gpgpu_n_mem x4\n", "expected a non-negative integer");
    expect_error("-gpgpu_shader_core_pipeline 1536:64\n", "<threads per SM>:32");
    expect_error("-gpgpu_dram_timing_opt \"unterminated\n", "unterminated double quote");
    /* A channel bit past any address (fuzz-import found 1 << 87 here). */
    expect_error("-gpgpu_mem_addr_mapping D" DOTS_87 "\n",
                 "the lowest channel bit (D) of the address mapping is bit 87, outside 5..40");
    expect_error("-gpgpu_mem_addr_mapping 0000D0000\n",
                 "the lowest channel bit (D) of the address mapping is bit 4, outside 5..40");
    expect_error("stray\n", "expected an option");
    expect_error("-gpgpu_flush_l1_cache", "has no value");
    /* A geometry gcreplay cannot model is refused by the config check. */
    expect_error("-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:H,A:512:8,16:0,32\n",
                 "index fermi needs 32 or 64 sets");
    write_file(0, "-gpgpu_n_mem 4\n");
    CHECK(import(1, "x", &err) == NULL);
    CHECK_STR_CONTAINS(err.msg, "option -gpgpu_n_clusters is missing");
    struct gcr_err e2 = {0};
    const char *missing = "no-such-file.config";
    CHECK(gcr_config_import_gpgpusim(&missing, 1, "x", &e2) == NULL);
    CHECK_STR_CONTAINS(e2.msg, "no-such-file.config");

    for (int i = 0; i < 2; i++)
        unlink(paths[i]);
    CHECK_DONE();
}
