#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "gcreplay/trace.h"

static const char usage[] =
    "usage: gcreplay convert [--from NAME] [--to NAME] [--level N] [--block-bytes N] IN OUT\n"
    "\n"
    "Copies every record of IN into OUT in another format. OUT is written to a\n"
    "temporary file and renamed when complete, so it is never left half-written;\n"
    "OUT `-` is standard output (then name the format with --to).\n"
    "\n"
    "  --from NAME         input format (default: detected)\n"
    "  --to NAME           output format (default: from OUT's extension, .gcrt or .txt)\n"
    "  --level N           zstd level 1..19 for block formats, 0 = uncompressed (default 9)\n"
    "  --block-bytes N     uncompressed block size for block formats (default 65536)\n"
    "  -h, --help          this text\n";

int cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {
        {"from", required_argument, NULL, 'f'},  {"to", required_argument, NULL, 't'},
        {"level", required_argument, NULL, 'l'}, {"block-bytes", required_argument, NULL, 'b'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    const char *from = NULL, *to = NULL;
    struct gcr_write_opts wopts = GCR_WRITE_OPTS_DEFAULT;
    uint64_t v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'f': from = optarg; break;
        case 't': to = optarg; break;
        case 'l':
            if (!cli_parse_u64(optarg, &v) || v > 19)
                return cli_usage_error("convert", "--level must be 0..19, got '%s'", optarg);
            wopts.compression_level = (int)v;
            break;
        case 'b':
            if (!cli_parse_u64(optarg, &v) || v < 256 || v > (64u << 20))
                return cli_usage_error("convert", "--block-bytes must be 256..67108864, got '%s'",
                                       optarg);
            wopts.block_bytes = (uint32_t)v;
            break;
        case 'h': fputs(usage, stdout); return CLI_OK;
        default: return cli_bad_option("convert", c, argv);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("convert", "expected IN and OUT");
    const char *in = argv[optind], *out = argv[optind + 1];

    struct gcr_err err = {0};
    if (cli_check_output(out, NULL, 0, argv + optind, 1, from, &err) != 0)
        return cli_error(&err);
    struct gcr_reader *r;
    struct gcr_writer *w;
    if (gcr_reader_open(&r, in, from, &err) != 0)
        return cli_error(&err);
    if (gcr_writer_open(&w, out, to, &wopts, &err) != 0) {
        gcr_reader_close(r);
        return cli_error(&err);
    }
    struct gcr_record rec;
    int rc;
    uint64_t n = 0;
    while ((rc = gcr_reader_next(r, &rec, &err)) == 1) {
        if (gcr_writer_write(w, &rec, &err) != 0) {
            rc = -1;
            break;
        }
        n++;
    }
    gcr_reader_close(r);
    if (rc != 0) {
        gcr_writer_abort(w);
        return cli_error(&err);
    }
    if (gcr_writer_close(w, &err) != 0)
        return cli_error(&err);
    fprintf(stderr, "gcreplay: wrote %llu records to %s\n", (unsigned long long)n,
            strcmp(out, "-") ? out : "standard output");
    return CLI_OK;
}
