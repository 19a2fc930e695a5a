/* gcreplay sweep: the command line of src/sweep/ (sweep.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "cli/cli.h"
#include "core/cpus.h"
#include "report/report.h"
#include "sweep/sweep.h"

static const char usage[] =
    "usage: gcreplay sweep --config FILE... [--vary PATH=V1,V2,...]... [--set PATH=VALUE]...\n"
    "                      [--timing] [-j N] [--force] [--rank-by METRIC] [--format NAME]\n"
    "                      [--quiet] -o DIR TRACE...\n"
    "       gcreplay sweep --collect DIR\n"
    "\n"
    "Replays every trace under every variant, one replay per pair, N at a time, and\n"
    "writes to DIR each pair's report (runs/TRACE/VARIANT.json, what run --json writes),\n"
    "summary.csv (one row per pair), kernels.csv (one per pair and kernel),\n"
    "failures.csv and summary.txt (printed at the end): per trace, the variant best by\n"
    "METRIC, its change from the baseline, and the workload classes. Run again, it\n"
    "replays only the pairs whose report is missing or stale (the config or the trace\n"
    "changed). A failed pair stops nothing; the exit status is then 1.\n"
    "\n"
    "TRACE is a trace file, an Accel-Sim trace folder, or a folder searched for traces.\n"
    "Variants are every config with every combination of the --vary values; the first\n"
    "config with each axis's first value is the baseline.\n"
    "\n"
    "  -c, --config FILE   a JSON configuration (repeatable)\n"
    "  -V, --vary PATH=V1,V2,...  an axis: the values a config key takes (repeatable;\n"
    "                      values as for --set, separated by commas)\n"
    CLI_SET_HELP
    "  -t, --timing        replay with the timing backend (cycles, IPC)\n"
    "  -j, --jobs N        replays at once (default: the CPUs this process may use)\n"
    "  -o, --output DIR    the sweep's folder (created; a folder of an earlier sweep is\n"
    "                      resumed)\n"
    "  --force             replay every pair, also those already done\n"
    "  --rank-by METRIC    the summary's ranking (default l2_accesses)\n"
    "  --json-detail D     what each pair's report holds: totals, kernels (default) or\n"
    "                      full, as for gcreplay run (kernels.csv needs kernels)\n"
    "  -f, --format NAME   trace format (default: detected from each trace's content)\n"
    "  --collect DIR       only rebuild DIR's tables and summary from its reports\n"
    "  -q, --quiet         no progress and no summary on the terminal\n"
    "  -h, --help          this text\n";

enum { MAX_CONFIGS = 256, MAX_VARIES = 64 };

/* DIR for a sweep must be absent (it is created once the plan is made), empty, or an earlier
 * sweep's folder. */
static int check_out_dir(const char *dir, struct gcr_err *err)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return gcr_fail(err, GCR_E_IO, "%s: %s", dir, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode))
        return gcr_fail(err, GCR_E_USAGE, "%s: exists and is not a folder; -o names the "
                        "sweep's folder", dir);
    char *plan = sweep_path(dir, "sweep.json", NULL, NULL);
    bool resumable = plan && stat(plan, &st) == 0;
    free(plan);
    if (resumable)
        return 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    bool empty = true;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = false;
    if (d)
        closedir(d);
    if (!empty)
        return gcr_fail(err, GCR_E_USAGE, "%s: a folder that holds files but no sweep.json; "
                        "name a new folder or an earlier sweep's", dir);
    return 0;
}

/* The plan an earlier sweep left in dir: 1 with it, 0 when there is none, -1 on error. */
static int load_plan(struct sweep_plan *p, const char *dir, struct gcr_err *err)
{
    char *path = sweep_path(dir, "sweep.json", NULL, NULL);
    if (!path)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    struct stat st;
    if (stat(path, &st) != 0) {
        free(path);
        return 0;
    }
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    int rc = j ? sweep_plan_from_json(p, j, path, err)
               : gcr_fail(err, GCR_E_FORMAT, "%s:%d:%d: invalid JSON: %s", path, je.line,
                          je.column, je.text);
    json_decref(j);
    free(path);
    if (rc != 0) {
        sweep_plan_free(p);
        return -1;
    }
    return 1;
}

static int finish(const struct sweep_plan *p, const char *dir, bool quiet, int failed_now)
{
    struct gcr_err err = {0};
    char *summary = NULL;
    int failed = sweep_collect(p, dir, &summary, &err);
    if (failed < 0)
        return cli_error(&err);
    if (!quiet)
        fputs(summary, stdout);
    free(summary);
    (void)failed_now;
    return failed ? CLI_FAIL : CLI_OK;
}

static int collect_only(const char *dir, bool quiet)
{
    struct gcr_err err = {0};
    struct sweep_plan p;
    int have = load_plan(&p, dir, &err);
    if (have < 0)
        return cli_error(&err);
    if (!have) {
        gcr_fail(&err, GCR_E_USAGE, "%s: no sweep.json: not a sweep's folder", dir);
        return cli_error(&err);
    }
    int rc = finish(&p, dir, quiet, 0);
    sweep_plan_free(&p);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    enum { OPT_FORCE = 1000, OPT_RANK, OPT_COLLECT, OPT_DETAIL };
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},  {"vary", required_argument, NULL, 'V'},
        {"set", required_argument, NULL, 's'},     {"timing", no_argument, NULL, 't'},
        {"jobs", required_argument, NULL, 'j'},    {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, OPT_FORCE},   {"rank-by", required_argument, NULL, OPT_RANK},
        {"format", required_argument, NULL, 'f'},  {"collect", required_argument, NULL, OPT_COLLECT},
        {"quiet", no_argument, NULL, 'q'},         {"help", no_argument, NULL, 'h'},
        {"json-detail", required_argument, NULL, OPT_DETAIL},
        {NULL, 0, NULL, 0}};
    const char *configs[MAX_CONFIGS], *varies[MAX_VARIES], *sets[CLI_MAX_SETS];
    size_t nconfigs = 0, nvaries = 0, nsets = 0;
    struct sweep_request rq = {0};
    struct sweep_run_opts ro = {0};
    const char *collect = NULL;
    bool quiet = false;
    uint64_t v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":c:V:s:tj:o:f:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (nconfigs == MAX_CONFIGS)
                return cli_usage_error("sweep", "at most %d --config options", MAX_CONFIGS);
            configs[nconfigs++] = optarg;
            break;
        case 'V':
            if (nvaries == MAX_VARIES)
                return cli_usage_error("sweep", "at most %d --vary options", MAX_VARIES);
            varies[nvaries++] = optarg;
            break;
        case 's':
            if (nsets == CLI_MAX_SETS)
                return cli_usage_error("sweep", "at most %d --set options", CLI_MAX_SETS);
            sets[nsets++] = optarg;
            break;
        case 't': rq.timing = true; break;
        case 'j':
            if (!cli_parse_u64(optarg, &v) || v < 1 || v > 1024)
                return cli_usage_error("sweep", "--jobs must be a whole number from 1 to 1024, "
                                       "got '%s'", optarg);
            ro.jobs = (unsigned)v;
            break;
        case 'o': rq.out_dir = optarg; break;
        case OPT_FORCE: ro.force = true; break;
        case OPT_RANK: rq.rank_by = optarg; break;
        case 'f': rq.format = optarg; break;
        case OPT_COLLECT: collect = optarg; break;
        case OPT_DETAIL: {
            enum gcr_report_detail d;
            if (!gcr_report_detail_parse(optarg, &d))
                return cli_usage_error("sweep", "--json-detail must be totals, kernels or full, "
                                       "got '%s'", optarg);
            rq.json_detail = optarg;
            break;
        }
        case 'q': quiet = true; break;
        case 'h': fputs(usage, stdout); return CLI_OK;
        default: return cli_bad_option("sweep", c, argv);
        }
    }
    if (collect) {
        if (nconfigs || nvaries || nsets || rq.out_dir || optind < argc)
            return cli_usage_error("sweep", "--collect DIR takes no other options or traces");
        return collect_only(collect, quiet);
    }
    if (!nconfigs)
        return cli_usage_error("sweep", "--config FILE is required (one or more)");
    if (!rq.out_dir)
        return cli_usage_error("sweep", "-o DIR is required");
    if (optind >= argc)
        return cli_usage_error("sweep", "no trace given");
    rq.configs = configs;
    rq.nconfigs = nconfigs;
    rq.varies = varies;
    rq.nvaries = nvaries;
    rq.sets = sets;
    rq.nsets = nsets;
    rq.traces = (const char *const *)argv + optind;
    rq.ntraces = (size_t)(argc - optind);
    if (!ro.jobs)
        ro.jobs = (unsigned)gcr_cpus_usable();
    ro.progress = !quiet && isatty(STDERR_FILENO);

    struct gcr_err err = {0};
    if (check_out_dir(rq.out_dir, &err) != 0)
        return cli_error(&err);
    struct sweep_plan plan, before;
    if (sweep_plan_build(&plan, &rq, &err) != 0) {
        sweep_plan_free(&plan);
        return cli_error(&err);
    }
    if (mkdir(rq.out_dir, 0777) != 0 && errno != EEXIST) {
        gcr_fail(&err, GCR_E_IO, "%s: cannot create the sweep's folder: %s", rq.out_dir,
                 strerror(errno));
        sweep_plan_free(&plan);
        return cli_error(&err);
    }
    int had = load_plan(&before, rq.out_dir, &err);
    char *plan_path = sweep_path(rq.out_dir, "sweep.json", NULL, NULL);
    json_t *pj = sweep_plan_to_json(&plan);
    int rc = had < 0 ? -1 : 0;
    /* Reports the new plan cannot use go before it is written, so that every report beside
     * a plan is one of its pairs, also after an interruption. */
    if (rc == 0)
        rc = sweep_forget_stale(&plan, had ? &before : NULL, rq.out_dir, &err);
    if (rc == 0)
        rc = !plan_path || !pj ? gcr_fail(&err, GCR_E_NOMEM, "out of memory")
                               : sweep_write_json(plan_path, pj, JSON_INDENT(1), &err);
    json_decref(pj);
    free(plan_path);
    if (had > 0)
        sweep_plan_free(&before);
    int failed = rc == 0 ? sweep_run(&plan, rq.out_dir, &ro, &err) : -1;
    int status = failed < 0 ? cli_error(&err) : finish(&plan, rq.out_dir, quiet, failed);
    sweep_plan_free(&plan);
    return status;
}
