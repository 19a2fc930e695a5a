#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/atomic_file.h"
#include "gcreplay/config.h"

static const char usage[] =
    "usage: gcreplay import-config -o OUT.json [--name NAME] gpgpusim.config [trace.config...]\n"
    "\n"
    "Writes the gcreplay config equivalent to GPGPU-Sim / Accel-Sim option files, read\n"
    "in order (later settings override earlier ones, as in Accel-Sim). The mapping of\n"
    "every option used is in examples/configs/README.md.\n"
    "\n"
    "  -o, --output OUT.json  where to write the config (complete or absent; `-`: standard\n"
    "                         output)\n"
    "  --name NAME            config name (default: the first file's directory name)\n"
    "  -h, --help             this text\n";

/* "configs/SM7_QV100/gpgpusim.config" -> "SM7_QV100". */
static void default_name(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(out, n, "gpgpusim");
        return;
    }
    const char *start = slash;
    while (start > path && start[-1] != '/')
        start--;
    snprintf(out, n, "%.*s", (int)(slash - start), start);
    if (!out[0])
        snprintf(out, n, "gpgpusim");
}

int cmd_import_config(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"name", required_argument, NULL, 'N'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out_path = NULL, *name = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out_path = optarg; break;
        case 'N': name = optarg; break;
        case 'h': fputs(usage, stdout); return CLI_OK;
        default: return cli_bad_option("import-config", c, argv);
        }
    }
    if (!out_path)
        return cli_usage_error("import-config", "-o OUT.json is required");
    if (optind >= argc)
        return cli_usage_error("import-config", "no GPGPU-Sim config file given");

    struct gcr_err err = {0};
    if (cli_check_output(out_path, (const char *const *)argv + optind, (size_t)(argc - optind),
                         NULL, 0, NULL, &err) != 0)
        return cli_error(&err);
    char name_buf[256];
    if (!name) {
        default_name(argv[optind], name_buf, sizeof name_buf);
        name = name_buf;
    }
    json_t *cfg = gcr_config_import_gpgpusim((const char *const *)argv + optind,
                                             (size_t)(argc - optind), name, &err);
    if (!cfg)
        return cli_error(&err);
    char *text = json_dumps(cfg, JSON_INDENT(2));
    json_decref(cfg);
    struct gcr_atomic_file f;
    int rc = text ? gcr_atomic_file_open(&f, out_path, &err)
                  : gcr_fail(&err, GCR_E_NOMEM, "out of memory");
    if (rc == 0) {
        if (fputs(text, f.f) == EOF || fputc('\n', f.f) == EOF) {
            rc = gcr_fail(&err, GCR_E_IO, "%s: write failed", out_path);
            gcr_atomic_file_abort(&f);
        } else {
            rc = gcr_atomic_file_commit(&f, &err);
        }
    }
    free(text);
    return rc == 0 ? CLI_OK : cli_error(&err);
}
