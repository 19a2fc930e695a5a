/* gcreplay sac: SAC's LLC-organisation model on multi-chip replays. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "gcreplay/config.h"
#include "report/report.h"

static const char usage[] =
    "usage: gcreplay sac --config FILE [--set PATH=VALUE]... [--json OUT.json] [--format NAME]\n"
    "                    [--timing] TRACE...\n"
    "\n"
    "Replays each trace on its own through a multi-chip GPU (the config's \"chips\"\n"
    "section, count >= 2), feeding the memory-side and the SM-side LLC the same L1\n"
    "misses in one pass, and prints per kernel the inputs of SAC's Effective Available\n"
    "Bandwidth model (R_local, LLC hit rates, slice uniformity), both EABs and the\n"
    "organisation it picks, over the profiling window (SM-side hit rate from the Chip\n"
    "Request Directory) and over the whole kernel (from the replayed SM-side LLC).\n"
    "With --timing (or the config's timing.enabled) each trace is also replayed by the\n"
    "timing backend once with each LLC organisation alone, and every kernel gets the\n"
    "organisation it runs faster with (runtime_winner), to check the model's choice.\n"
    "\n"
    "  -c, --config FILE   JSON configuration with chips.count >= 2\n"
    CLI_SET_HELP
    "  -j, --json OUT      also write {\"runs\": [report per trace]} to OUT (`-`: standard\n"
    "                      output, and the tables go to standard error)\n"
    "  -f, --format NAME   trace format (default: detected from the content)\n"
    "  -t, --timing        also time both organisations (see examples/sac/README.md)\n"
    "  -h, --help          this text\n";

/* One trace, replayed alone: its full report, or NULL and err. */
static json_t *replay_one(const struct gcr_config *cfg, const char *path, const char *format,
                          struct gcr_err *err)
{
    struct gcr_replay *rp = NULL;
    struct gcr_reader *r = NULL;
    json_t *report = NULL;
    if (gcr_replay_create(&rp, cfg, err) != 0)
        return NULL;
    if (gcr_reader_open(&r, path, format, err) == 0) {
        if (gcr_replay_trace(rp, r, err) == 0)
            report = gcr_replay_report(rp, err);
        gcr_reader_close(r);
    }
    gcr_replay_destroy(rp);
    return report;
}

/* One trace's report; with timing, the trace is replayed twice more, in
 * timing mode with each organisation as the only LLC, and the functional
 * report gets each kernel's runtime winner. The functional replay stays the
 * source of the model's inputs: timing changes the order of accesses, and a
 * timed replay can only time the organisation that is its L2. */
static json_t *sac_one(const struct gcr_config *functional,
                       const struct gcr_config timed[GCR_LLC_ORG_COUNT], bool timing,
                       const char *path, const char *format, struct gcr_err *err)
{
    json_t *report = replay_one(functional, path, format, err);
    if (!report || !timing)
        return report;
    json_t *t[GCR_LLC_ORG_COUNT] = {NULL};
    int rc = 0;
    for (int o = 0; o < GCR_LLC_ORG_COUNT && rc == 0; o++)
        if (!(t[o] = replay_one(&timed[o], path, format, err)))
            rc = -1;
    if (rc == 0)
        rc = gcr_report_sac_runtime(report, t[GCR_LLC_MEMORY_SIDE], t[GCR_LLC_SM_SIDE], err);
    for (int o = 0; o < GCR_LLC_ORG_COUNT; o++)
        json_decref(t[o]);
    if (rc != 0) {
        json_decref(report);
        return NULL;
    }
    return report;
}

int cmd_sac(int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'}, {"json", required_argument, NULL, 'j'},
        {"set", required_argument, NULL, 's'},
        {"format", required_argument, NULL, 'f'}, {"timing", no_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    const char *config_path = NULL, *json_path = NULL, *format = NULL;
    const char *sets[CLI_MAX_SETS];
    int nsets = 0;
    bool timing = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":c:j:f:s:th", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config_path = optarg; break;
        case 's':
            if (nsets == CLI_MAX_SETS)
                return cli_usage_error("sac", "at most %d --set options", CLI_MAX_SETS);
            sets[nsets++] = optarg;
            break;
        case 'j': json_path = optarg; break;
        case 'f': format = optarg; break;
        case 't': timing = true; break;
        case 'h': fputs(usage, stdout); return CLI_OK;
        default: return cli_bad_option("sac", c, argv);
        }
    }
    if (!config_path)
        return cli_usage_error("sac", "--config FILE is required");
    if (optind >= argc)
        return cli_usage_error("sac", "no trace given");

    struct gcr_err err = {0};
    const char *const inputs[] = {config_path};
    if (json_path && cli_check_output(json_path, inputs, 1, argv + optind,
                                      (size_t)(argc - optind), format, &err) != 0)
        return cli_error(&err);
    /* `--json -` takes standard output, so the tables go to standard error. */
    FILE *table_out = json_path && !strcmp(json_path, "-") ? stderr : stdout;
    struct gcr_config cfg;
    if (gcr_config_load_with(&cfg, config_path, sets, (size_t)nsets, &err) != 0)
        return cli_error(&err);
    if (cfg.chips.count < 2) {
        gcr_fail(&err, GCR_E_CONFIG,
                 "%s: $.chips.count: the SAC model needs a GPU of several chips (got %u)",
                 cfg.origin, cfg.chips.count);
        gcr_config_free(&cfg);
        return cli_error(&err);
    }
    /* The configs of the three replays differ from the loaded one only in
     * scalar fields, so they share its owned parts (freed once, with cfg). */
    timing = timing || cfg.timing.enabled;
    struct gcr_config functional = cfg, timed[GCR_LLC_ORG_COUNT];
    functional.timing.enabled = false;
    for (int o = 0; o < GCR_LLC_ORG_COUNT; o++) {
        timed[o] = cfg;
        timed[o].timing.enabled = true;
        timed[o].chips.llc = (enum gcr_llc_org)o;
        timed[o].chips.shadow = false;
    }
    json_t *runs = json_array();
    int rc = CLI_OK;
    for (int i = optind; i < argc && rc == CLI_OK; i++) {
        json_t *report = sac_one(&functional, timed, timing, argv[i], format, &err);
        if (!report)
            rc = -1;
        else
            json_array_append_new(runs, report);
    }
    json_t *all = json_pack("{s:o}", "runs", runs);
    if (rc == CLI_OK && json_path && gcr_report_write_json(all, json_path, &err) != 0)
        rc = -1;
    if (rc == CLI_OK) {
        size_t i;
        json_t *report;
        json_array_foreach(runs, i, report) {
            if (i)
                fputc('\n', table_out);
            if (gcr_report_print_sac(report, cli_terminal_width(table_out), table_out) != 0) {
                rc = gcr_fail(&err, GCR_E_NOMEM, "out of memory");
                break;
            }
        }
    }
    if (rc != CLI_OK)
        rc = cli_error(&err);
    json_decref(all);
    gcr_config_free(&cfg);
    return rc;
}
