#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "gcreplay/trace.h"
#include "report/report.h"

static const char usage[] =
    "usage: gcreplay info [--format NAME] [--json] TRACE\n"
    "\n"
    "Reads the whole trace (verifying it) and prints its format, kernels and\n"
    "record counts.\n"
    "\n"
    "  -f, --format NAME   trace format (default: detected)\n"
    "  --json              print the description as JSON\n"
    "  -h, --help          this text\n";

struct kernel_info {
    json_t *obj;
    uint64_t ctas_seen, insns, nonmem_records, nonmem, by_space[GCR_SPACE_COUNT];
    uint32_t last_cta;
    bool any_cta;
};

static void kernel_close(struct kernel_info *k, json_t *kernels)
{
    json_t *spaces = json_object();
    for (int s = 0; s < GCR_SPACE_COUNT; s++)
        json_object_set_new(spaces, gcr_space_name((enum gcr_space)s),
                            json_integer((json_int_t)k->by_space[s]));
    json_object_set_new(k->obj, "ctas_with_records", json_integer((json_int_t)k->ctas_seen));
    json_object_set_new(k->obj, "memory_instructions", json_integer((json_int_t)k->insns));
    json_object_set_new(k->obj, "memory_by_space", spaces);
    json_object_set_new(k->obj, "nonmemory_instructions", json_integer((json_int_t)k->nonmem));
    json_array_append_new(kernels, k->obj);
    memset(k, 0, sizeof *k);
}

int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"json", no_argument, NULL, 'J'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *format = NULL;
    bool as_json = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":f:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'J': as_json = true; break;
        case 'h': fputs(usage, stdout); return CLI_OK;
        default: return cli_bad_option("info", c, argv);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("info", "expected one TRACE");

    struct gcr_err err = {0};
    struct gcr_reader *r;
    if (gcr_reader_open(&r, argv[optind], format, &err) != 0)
        return cli_error(&err);
    json_t *kernels = json_array();
    uint64_t counts[6] = {0};
    uint64_t memcpy_bytes = 0;
    struct kernel_info k = {0};
    struct gcr_record rec;
    int rc;
    while ((rc = gcr_reader_next(r, &rec, &err)) == 1) {
        counts[rec.kind]++;
        switch (rec.kind) {
        case GCR_REC_KERNEL_BEGIN: {
            const struct gcr_kernel_begin *b = &rec.u.kbegin;
            k.obj = json_pack("{s:I, s:o, s:[I,I,I], s:[I,I,I], s:I, s:I}", "id",
                              (json_int_t)b->id, "name", gcr_report_text(b->name), "grid",
                              (json_int_t)b->grid[0], (json_int_t)b->grid[1],
                              (json_int_t)b->grid[2], "block",
                              (json_int_t)b->block[0], (json_int_t)b->block[1],
                              (json_int_t)b->block[2], "shmem_bytes",
                              (json_int_t)b->shmem_bytes, "regs_per_thread",
                              (json_int_t)b->regs_per_thread);
            break;
        }
        case GCR_REC_KERNEL_END:
            if (k.obj)
                kernel_close(&k, kernels);
            break;
        case GCR_REC_WARP_INSN:
        case GCR_REC_NONMEM: {
            uint32_t cta = rec.kind == GCR_REC_WARP_INSN ? rec.u.insn.cta : rec.u.nonmem.cta;
            if (!k.any_cta || cta != k.last_cta)
                k.ctas_seen++;
            k.any_cta = true;
            k.last_cta = cta;
            if (rec.kind == GCR_REC_WARP_INSN) {
                k.insns++;
                k.by_space[rec.u.insn.space]++;
            } else {
                k.nonmem += rec.u.nonmem.count;
            }
            break;
        }
        case GCR_REC_MEMCPY:
            memcpy_bytes += rec.u.memcpy.bytes;
            break;
        }
    }
    if (rc != 0) {
        json_decref(k.obj);
        json_decref(kernels);
        gcr_reader_close(r);
        return cli_error(&err);
    }
    json_t *info = json_pack(
        "{s:o, s:s, s:I, s:{s:I, s:I, s:I, s:I, s:I}, s:I, s:o}", "path",
        gcr_report_text(argv[optind]), "format",
        gcr_reader_format_name(r), "bytes", (json_int_t)gcr_reader_bytes_total(r), "records",
        "kernel_begin", (json_int_t)counts[GCR_REC_KERNEL_BEGIN], "kernel_end",
        (json_int_t)counts[GCR_REC_KERNEL_END], "warp_insn", (json_int_t)counts[GCR_REC_WARP_INSN],
        "nonmem", (json_int_t)counts[GCR_REC_NONMEM], "memcpy", (json_int_t)counts[GCR_REC_MEMCPY],
        "memcpy_bytes", (json_int_t)memcpy_bytes, "kernels", kernels);
    gcr_reader_describe(r, info);
    gcr_reader_close(r);

    if (as_json) {
        char *text = json_dumps(info, JSON_INDENT(1));
        puts(text);
        free(text);
        json_decref(info);
        return CLI_OK;
    }
    const json_t *recs = json_object_get(info, "records");
    printf("%s: %s trace, %lld bytes\n", argv[optind],
           json_string_value(json_object_get(info, "format")),
           (long long)json_integer_value(json_object_get(info, "bytes")));
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(info, "format_details"), key, v) {
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        printf("  %-22s %s\n", key, text);
        free(text);
    }
    printf("  records: %lld kernel-begin, %lld kernel-end, %lld warp-insn, %lld nonmem, "
           "%lld memcpy (%lld bytes)\n",
           (long long)json_integer_value(json_object_get(recs, "kernel_begin")),
           (long long)json_integer_value(json_object_get(recs, "kernel_end")),
           (long long)json_integer_value(json_object_get(recs, "warp_insn")),
           (long long)json_integer_value(json_object_get(recs, "nonmem")),
           (long long)json_integer_value(json_object_get(recs, "memcpy")),
           (long long)memcpy_bytes);
    printf("  %6s  %-30s %-16s %-14s %8s %12s %12s\n", "kernel", "name", "grid", "block",
           "CTAs", "mem-insns", "nonmem-insns");
    size_t i;
    json_array_foreach(kernels, i, v) {
        char grid[48], block[48];
        const json_t *g = json_object_get(v, "grid"), *b = json_object_get(v, "block");
        snprintf(grid, sizeof grid, "%lld,%lld,%lld",
                 (long long)json_integer_value(json_array_get(g, 0)),
                 (long long)json_integer_value(json_array_get(g, 1)),
                 (long long)json_integer_value(json_array_get(g, 2)));
        snprintf(block, sizeof block, "%lld,%lld,%lld",
                 (long long)json_integer_value(json_array_get(b, 0)),
                 (long long)json_integer_value(json_array_get(b, 1)),
                 (long long)json_integer_value(json_array_get(b, 2)));
        printf("  %6lld  %-30.30s %-16s %-14s %8lld %12lld %12lld\n",
               (long long)json_integer_value(json_object_get(v, "id")),
               json_string_value(json_object_get(v, "name")), grid, block,
               (long long)json_integer_value(json_object_get(v, "ctas_with_records")),
               (long long)json_integer_value(json_object_get(v, "memory_instructions")),
               (long long)json_integer_value(json_object_get(v, "nonmemory_instructions")));
    }
    json_decref(info);
    return CLI_OK;
}
