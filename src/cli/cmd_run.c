#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "core/cpus.h"
#include "gcreplay/config.h"
#include "report/report.h"

static const char usage[] =
    "usage: gcreplay run --config FILE [--set PATH=VALUE]... [--json OUT.json] [--format NAME]\n"
    "                    [--timing] [--quiet]\n"
    "                    [--analysis-thread auto|on|off] [--decode-thread auto|on|off]\n"
    "                    [--host-prefetch L] TRACE...\n"
    "\n"
    "Replays the traces, in order, through the caches the config describes and prints\n"
    "a table of per-kernel and total statistics on stdout.\n"
    "\n"
    "  -c, --config FILE   JSON configuration (see examples/configs/README.md)\n"
    CLI_SET_HELP
    "  -j, --json OUT      also write the JSON report to OUT (complete or absent;\n"
    "                      `-`: standard output, and the table goes to standard error)\n"
    "  --json-detail D     what the report holds: totals, kernels (default: the total\n"
    "                      and every kernel, compact) or full (also every figure per\n"
    "                      SM, slice, L1, node or channel, indented)\n"
    "  -f, --format NAME   trace format (default: detected from the content)\n"
    "  -t, --timing        estimate cycles with the timing backend (as the config's\n"
    "                      timing.enabled; see src/timing/README.md)\n"
    "  -q, --quiet         no table on stdout, no progress on stderr\n"
    "  --table STYLE       full (default: every table), brief (one table of the figures\n"
    "                      a screening looks at), or none\n"
    "  --analysis-thread W run the config's analyses on a thread of their own, beside\n"
    "                      the replay: on, off, or auto (default: on when this process\n"
    "                      may use two CPUs or more and some analysis that is not\n"
    "                      delivered at emission keeps state for every line). The\n"
    "                      report is the same either way\n"
    "  --decode-thread W   decompress and parse the trace on a thread of its own, a few\n"
    "                      thousand records ahead of the replay: on, off, or auto\n"
    "                      (default: off, as the hand-offs have cost more than the\n"
    "                      overlap gained). The report is the same either way\n"
    "  --host-prefetch L   how far ahead the replay prefetches the host memory its next\n"
    "                      accesses read: queues (the warp queues only), l1 (and the\n"
    "                      L1s' state), l2 (and the L2's), or auto (default: measures\n"
    "                      which runs fastest, as it goes). The report is the same\n"
    "                      at every level\n"
    "  -h, --help          this text\n";

/* Where gcreplay run sends each finished kernel's report. */
struct run_output {
    struct gcr_report_writer json; /* --json: the report file, being written */
    bool json_open;
    struct gcr_table *table;       /* the kernels' table rows, unless --quiet or --table none */
    char trace[256];               /* the trace being replayed, as the table names it */
};

static int run_take_kernel(void *ctx, json_t *kernel, struct gcr_err *err)
{
    struct run_output *ro = ctx;
    if (ro->json_open && gcr_report_writer_kernel(&ro->json, kernel, err) != 0)
        return -1; /* the writer removed its file */
    if (ro->table && gcr_table_add_kernel(ro->table, kernel, ro->trace) != 0)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory keeping the table's rows");
    return 0;
}

bool run_analysis_thread(const struct run_args *a, const struct gcr_replay *rp)
{
    /* auto: a second thread pays off only with a second CPU to run on, and
     * only for analyses that keep per-line state (see the library call). */
    return strcmp(a->thread_mode, "on") == 0 ||
           (strcmp(a->thread_mode, "auto") == 0 && gcr_replay_analysis_thread_pays(rp) &&
            gcr_cpus_usable() >= 2);
}

/* One config, as gcreplay run always did: the kernels' tables and one report. */
static int run_one(const struct run_args *a)
{
    struct gcr_err err = {0};
    /* `--json -` takes standard output, so the table goes to standard error. */
    FILE *table_out = a->json_path && !strcmp(a->json_path, "-") ? stderr : stdout;
    struct gcr_config cfg;
    if (gcr_config_load_with(&cfg, a->configs[0], a->sets, a->nsets, &err) != 0)
        return cli_error(&err);
    if (a->timing)
        cfg.timing.enabled = true;
    struct gcr_replay *rp = NULL;
    if (gcr_replay_create(&rp, &cfg, &err) != 0) {
        gcr_config_free(&cfg);
        return cli_error(&err);
    }
    if (gcr_replay_set_analysis_thread(rp, run_analysis_thread(a, rp), &err) != 0) {
        gcr_replay_destroy(rp);
        gcr_config_free(&cfg);
        return cli_error(&err);
    }
    gcr_replay_set_decode_ahead(rp, a->decode);
    if (gcr_replay_set_host_prefetch(rp, a->prefetch, &err) != 0) {
        gcr_replay_destroy(rp);
        gcr_config_free(&cfg);
        return cli_error(&err);
    }
    /* Each kernel's report goes out as the kernel ends (run_take_kernel), so
     * memory does not grow with the number of kernels. The JSON file is open
     * from the start, so an unwritable path fails before the replay. */
    struct run_output ro = {0};
    int rc = CLI_OK;
    json_t *head = gcr_replay_report_head(rp);
    if (!head)
        rc = gcr_fail(&err, GCR_E_NOMEM, "out of memory building the report");
    if (rc == CLI_OK && a->json_path) {
        if (gcr_report_writer_open(&ro.json, a->json_path, head, a->detail, &err) == 0)
            ro.json_open = true;
        else
            rc = -1;
    }
    if (rc == CLI_OK && !a->quiet && a->style != GCR_TABLE_NONE &&
        gcr_table_create(&ro.table, head, a->style, a->ntraces > 1) != 0)
        rc = gcr_fail(&err, GCR_E_NOMEM, "out of memory");
    json_decref(head);
    if (rc == CLI_OK && gcr_replay_set_kernel_sink(rp, run_take_kernel, &ro, &err) != 0)
        rc = -1;

    struct cli_progress prog;
    cli_progress_init(&prog, a->quiet);
    gcr_replay_set_progress(rp, cli_progress_cb, &prog);
    for (size_t i = 0; i < a->ntraces && rc == CLI_OK; i++) {
        struct gcr_reader *r;
        cli_trace_label(a->traces[i], ro.trace, sizeof ro.trace);
        if (gcr_reader_open(&r, a->traces[i], a->format, &err) != 0) {
            rc = -1;
            break;
        }
        if (gcr_replay_trace(rp, r, &err) != 0)
            rc = -1;
        gcr_reader_close(r);
    }
    cli_progress_done(&prog);
    json_t *report = NULL;
    if (rc == CLI_OK && !(report = gcr_replay_report(rp, &err)))
        rc = -1;
    /* The JSON goes out first: if it cannot be written nothing else is claimed. */
    if (rc == CLI_OK && ro.json_open && gcr_report_writer_finish(&ro.json, report, &err) != 0)
        rc = -1;
    /* No partial report; nothing to do once finished, failed or never opened. */
    gcr_report_writer_abort(&ro.json);
    if (rc == CLI_OK && ro.table)
        gcr_table_print(ro.table, report, cli_terminal_width(table_out), table_out);
    gcr_table_destroy(ro.table);
    if (rc != CLI_OK)
        rc = cli_error(&err);
    json_decref(report);
    gcr_replay_destroy(rp);
    gcr_config_free(&cfg);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'}, {"json", required_argument, NULL, 'j'},
        {"set", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'}, {"quiet", no_argument, NULL, 'q'},
        {"timing", no_argument, NULL, 't'},       {"analysis-thread", required_argument, NULL, 'a'},
        {"host-prefetch", required_argument, NULL, 'p'},
        {"decode-thread", required_argument, NULL, 'd'},
        {"table", required_argument, NULL, 'T'},
        {"json-detail", required_argument, NULL, 'D'},
        {"json-dir", required_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    static const char *configs[CLI_MAX_CONFIGS], *sets[CLI_MAX_SETS];
    struct run_args a = {.configs = configs, .sets = sets, .style = GCR_TABLE_FULL,
                         .detail = GCR_REPORT_KERNELS, .thread_mode = "auto",
                         .prefetch = GCR_HOST_PREFETCH_AUTO};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":c:j:f:s:tqh", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (a.nconfigs == CLI_MAX_CONFIGS)
                return cli_usage_error("run", "at most %d --config options", CLI_MAX_CONFIGS);
            configs[a.nconfigs++] = optarg;
            break;
        case 's':
            if (a.nsets == CLI_MAX_SETS)
                return cli_usage_error("run", "at most %d --set options", CLI_MAX_SETS);
            sets[a.nsets++] = optarg;
            break;
        case 'j': a.json_path = optarg; break;
        case 'J': a.json_dir = optarg; break;
        case 'f': a.format = optarg; break;
        case 'q': a.quiet = true; break;
        case 't': a.timing = true; break;
        case 'a': a.thread_mode = optarg; break;
        case 'd':
            if (strcmp(optarg, "auto") == 0)
                a.decode = GCR_DECODE_AHEAD_AUTO;
            else if (strcmp(optarg, "on") == 0)
                a.decode = GCR_DECODE_AHEAD_ON;
            else if (strcmp(optarg, "off") == 0)
                a.decode = GCR_DECODE_AHEAD_OFF;
            else
                return cli_usage_error("run", "--decode-thread must be auto, on or off, got '%s'",
                                       optarg);
            break;
        case 'p':
            if (!cli_parse_host_prefetch(optarg, &a.prefetch))
                return cli_usage_error("run", "--host-prefetch must be auto, queues, l1 or l2, "
                                       "got '%s'", optarg);
            break;
        case 'D':
            if (!gcr_report_detail_parse(optarg, &a.detail))
                return cli_usage_error("run", "--json-detail must be totals, kernels or full, "
                                       "got '%s'", optarg);
            break;
        case 'T':
            if (!gcr_table_style_parse(optarg, &a.style))
                return cli_usage_error("run", "--table must be full, brief or none, got '%s'",
                                       optarg);
            break;
        case 'h':
            fputs(usage, stdout);
            fputs("\n", stdout);
            fputs(gcr_table_legend, stdout);
            return CLI_OK;
        default: return cli_bad_option("run", c, argv);
        }
    }
    if (!a.nconfigs)
        return cli_usage_error("run", "--config FILE is required");
    if (optind >= argc)
        return cli_usage_error("run", "no trace given");
    if (strcmp(a.thread_mode, "auto") != 0 && strcmp(a.thread_mode, "on") != 0 &&
        strcmp(a.thread_mode, "off") != 0)
        return cli_usage_error("run", "--analysis-thread must be auto, on or off, got '%s'",
                               a.thread_mode);
    a.traces = argv + optind;
    a.ntraces = (size_t)(argc - optind);

    struct gcr_err err = {0};
    if (a.json_path && cli_check_output(a.json_path, configs, a.nconfigs, a.traces, a.ntraces,
                                        a.format, &err) != 0)
        return cli_error(&err);
    if (a.json_dir && cli_check_output_dir(a.json_dir, "--json-dir", &err) != 0)
        return cli_error(&err);
    return a.nconfigs == 1 && !a.json_dir ? run_one(&a) : run_variants(&a);
}
