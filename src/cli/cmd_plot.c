/* gcreplay plot: the plots of a report or a sweep, drawn by src/plot/gcreplay-plot.py with
 * matplotlib. The program ships beside the binary (build tree) or in <datadir>/gcreplay/
 * (installed), and runs with the Python interpreter the build found matplotlib in. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

static const char usage[] =
    "usage: gcreplay plot [--metric METRIC] -o OUTDIR (REPORT.json | SWEEP_DIR)\n"
    "\n"
    "Draws the plots of a report (gcreplay run --json) or of a sweep's folder into\n"
    "OUTDIR, each as PNG, SVG and the JSON of the series drawn, and OUTDIR/index.html,\n"
    "which shows them all. A report gives miss-ratio curves (reuse_distance analysis),\n"
    "replication per kernel (replication analysis), miss rates per kernel and SAC's\n"
    "model per kernel (several chips); a sweep, a heatmap of each variant's change from\n"
    "the baseline per trace, replication per trace and variant, and the report plots of\n"
    "each trace under the baseline.\n"
    "\n"
    "  -o, --output OUTDIR  folder for the plots (created)\n"
    "  --metric METRIC      the heatmap's column of summary.csv (default: the sweep's\n"
    "                       --rank-by)\n"
    "  -h, --help           this text\n";

/* The plotting program: beside the binary, or where meson installs it. */
static int find_program(char *out, size_t cap)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    struct stat st;
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            snprintf(out, cap, "%s/gcreplay-plot.py", self);
            if (stat(out, &st) == 0)
                return 0;
            snprintf(out, cap, "%s/../share/gcreplay/gcreplay-plot.py", self);
            if (stat(out, &st) == 0)
                return 0;
        }
    }
    snprintf(out, cap, "%s/gcreplay/gcreplay-plot.py", GCR_DATADIR);
    return stat(out, &st) == 0 ? 0 : -1;
}

int cmd_plot(int argc, char **argv)
{
    enum { OPT_METRIC = 1000 };
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"metric", required_argument, NULL, OPT_METRIC},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL, *metric = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case OPT_METRIC: metric = optarg; break;
        case 'h': fputs(usage, stdout); return CLI_OK;
        default: return cli_bad_option("plot", c, argv);
        }
    }
    if (!out)
        return cli_usage_error("plot", "-o OUTDIR is required");
    if (argc - optind != 1)
        return cli_usage_error("plot", "expected one REPORT.json or SWEEP_DIR");
    struct stat st;
    if (stat(out, &st) == 0 && !S_ISDIR(st.st_mode))
        return cli_usage_error("plot", "%s: exists and is not a folder", out);
    const char *python = GCR_PLOT_PYTHON;
    char program[4096];
    if (!python[0]) {
        fprintf(stderr, "gcreplay: plot needs Python 3 with matplotlib (Debian: "
                        "python3-matplotlib), which this build did not find; install it and "
                        "configure the build again\n");
        return CLI_FAIL;
    }
    if (find_program(program, sizeof program) != 0) {
        fprintf(stderr, "gcreplay: the plotting program gcreplay-plot.py is neither beside "
                        "the gcreplay binary nor in %s/gcreplay\n", GCR_DATADIR);
        return CLI_FAIL;
    }
    const char *args[16];
    int n = 0;
    args[n++] = python;
    args[n++] = program;
    args[n++] = "-o";
    args[n++] = out;
    if (metric) {
        args[n++] = "--metric";
        args[n++] = metric;
    }
    args[n++] = "--";
    args[n++] = argv[optind];
    args[n] = NULL;
    fflush(stdout);
    execv(python, (char *const *)args);
    fprintf(stderr, "gcreplay: cannot run %s: %s\n", python, strerror(errno));
    return CLI_FAIL;
}
