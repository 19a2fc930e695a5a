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
    "                      [--timing] [-j N] [--one-pass on|off] [--force]\n"
    "                      [--rank-by METRIC] [--format NAME] [--quiet] -o DIR TRACE...\n"
    "       gcreplay sweep --slurm [--slurm-opt ARG]... [--shards K] [--max-running M]\n"
    "                      [--no-submit] [the options above] -o DIR TRACE...\n"
    "       gcreplay sweep --shard I/K [-j N] [--one-pass on|off] [--quiet] DIR\n"
    "       gcreplay sweep --collect DIR\n"
    "       gcreplay sweep --status DIR [--json]\n"
    "\n"
    "Replays every trace under every variant, N processes at a time, and\n"
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
    "  -j, --jobs N        replay processes at once (default: the CPUs this process may\n"
    "                      use); with --slurm, the CPUs of each array task\n"
    "                      (--cpus-per-task)\n"
    "  --one-pass W        on (default): the variants of a trace that can share a pass\n"
    "                      (as gcreplay run with several --config) are replayed in one\n"
    "                      pass, a few at a time, as long as -j processes stay busy;\n"
    "                      off: one process per pair. The reports are the same but for\n"
    "                      the \"variant\" member of a report replayed in a shared pass\n"
    "  -o, --output DIR    the sweep's folder (created; a folder of an earlier sweep is\n"
    "                      resumed)\n"
    "  --force             replay every pair, also those already done\n"
    "  --rank-by METRIC    the summary's ranking (default l2_accesses)\n"
    "  --json-detail D     what each pair's report holds: totals, kernels (default) or\n"
    "                      full, as for gcreplay run (kernels.csv needs kernels)\n"
    "  -f, --format NAME   trace format (default: detected from each trace's content)\n"
    "  --collect DIR       only rebuild DIR's tables and summary from its reports (for a\n"
    "                      Slurm sweep, also check that every shard ran and wrote there)\n"
    "  --status DIR        pairs done, failed, running and pending; for a Slurm sweep,\n"
    "                      each shard and its task (squeue, sacct); --json: as JSON\n"
    "  -q, --quiet         no progress and no summary on the terminal\n"
    "  -h, --help          this text\n"
    "\n";
/* Split in two: a string literal a C17 compiler must take holds 4095 characters. */
static const char usage_slurm[] =
    "On a Slurm cluster (DIR on a filesystem every node sees):\n"
    "  --slurm             plan here, then run the pairs as one Slurm job array:\n"
    "                      writes DIR/slurm/sweep.sbatch (task I runs --shard I/K) and\n"
    "                      DIR/slurm/collect.sbatch (--collect DIR), and submits both\n"
    "                      with sbatch, the collect job after the array\n"
    "  --slurm-opt ARG     an sbatch option for both jobs, as an #SBATCH line\n"
    "                      (--slurm-opt=--partition=NAME; repeatable)\n"
    "  --shards K          array tasks (default: one per pair, at most 100)\n"
    "  --max-running M     array tasks running at once (default: as Slurm allows)\n"
    "  --no-submit         write the scripts and print the commands that submit them\n"
    "  --shard I/K         replay the pairs of shard I (from 0) of K of the plan in DIR\n"
    "                      that are not done yet: what array task I runs\n";

enum { MAX_CONFIGS = 256, MAX_VARIES = 64, MAX_SLURM_OPTS = 64 };

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

static int finish(const struct sweep_plan *p, const char *dir, bool quiet)
{
    struct gcr_err err = {0};
    char *summary = NULL;
    int failed = sweep_collect(p, dir, &summary, &err);
    if (failed < 0)
        return cli_error(&err);
    if (!quiet)
        fputs(summary, stdout);
    free(summary);
    return failed ? CLI_FAIL : CLI_OK;
}

/* The plan of the sweep in dir, which must have one: 0, or the exit status to end with. */
static int need_plan(struct sweep_plan *p, const char *dir, const char *why_not)
{
    struct gcr_err err = {0};
    int have = load_plan(p, dir, &err);
    if (have < 0)
        return cli_error(&err);
    if (!have) {
        gcr_fail(&err, GCR_E_USAGE, "%s: no sweep.json: %s", dir, why_not);
        return cli_error(&err);
    }
    return 0;
}

static int collect_only(const char *dir, bool quiet)
{
    struct sweep_plan p;
    int rc = need_plan(&p, dir, "not a sweep's folder");
    if (rc)
        return rc;
    struct gcr_err err = {0};
    struct sweep_submission sub;
    int slurm = sweep_submission_load(dir, &sub, &err);
    int status = slurm < 0 ? cli_error(&err) : finish(&p, dir, quiet);
    /* The collect step of a Slurm sweep also tells what left it incomplete. */
    char *report = NULL;
    int problems = slurm > 0 ? sweep_slurm_check(&p, dir, &sub, &report, &err) : 0;
    if (problems < 0) {
        status = cli_error(&err);
    } else if (problems > 0) {
        for (char *line = strtok(report, "\n"); line; line = strtok(NULL, "\n")) {
            fputs("gcreplay: ", stderr);
            cli_put_escaped(stderr, line);
            fputc('\n', stderr);
        }
        status = status == CLI_USAGE ? status : CLI_FAIL;
    }
    free(report);
    sweep_plan_free(&p);
    return status;
}

static int status_only(const char *dir, bool as_json)
{
    struct sweep_plan p;
    int rc = need_plan(&p, dir, "not a sweep's folder");
    if (rc)
        return rc;
    struct gcr_err err = {0};
    char *text = NULL;
    rc = sweep_status(&p, dir, as_json, &text, &err) == 0 ? CLI_OK : cli_error(&err);
    if (text)
        fputs(text, stdout);
    free(text);
    sweep_plan_free(&p);
    return rc;
}

/* --shard I/K, with I < K <= SWEEP_MAX_SHARDS: 0, or the usage error's exit status. */
static int parse_shard(const char *s, unsigned *shard, unsigned *shards)
{
    const char *slash = strchr(s, '/');
    char num[32];
    uint64_t i, k;
    if (!slash || (size_t)(slash - s) >= sizeof num)
        return cli_usage_error("sweep", "--shard %s: expected I/K, shard I of K counted from 0 "
                               "(0/4 to 3/4)", s);
    snprintf(num, sizeof num, "%.*s", (int)(slash - s), s);
    if (!cli_parse_u64(num, &i) || !cli_parse_u64(slash + 1, &k))
        return cli_usage_error("sweep", "--shard %s: expected I/K, shard I of K counted from 0 "
                               "(0/4 to 3/4)", s);
    if (k < 1 || k > SWEEP_MAX_SHARDS)
        return cli_usage_error("sweep", "--shard %s: K, the number of shards, must be from 1 "
                               "to %d", s, SWEEP_MAX_SHARDS);
    if (i >= k)
        return cli_usage_error("sweep", "--shard %s: shards are counted from 0, so I must be "
                               "below K (0 to %llu here)", s, (unsigned long long)k - 1);
    *shard = (unsigned)i;
    *shards = (unsigned)k;
    return 0;
}

/* What array task I runs: the pairs of shard I of the plan in dir, between two markers. */
static int shard_only(const char *dir, unsigned shard, unsigned shards, struct sweep_run_opts *ro,
                      bool quiet)
{
    char host[256];
    sweep_host_name(host, sizeof host);
    char why_not[512];
    snprintf(why_not, sizeof why_not, "not a sweep's folder, at least not on this node (%s): a "
             "Slurm sweep's folder must be on a filesystem that every node sees", host);
    struct sweep_plan p;
    int rc = need_plan(&p, dir, why_not);
    if (rc)
        return rc;
    struct gcr_err err = {0};
    struct sweep_submission sub;
    int slurm = sweep_submission_load(dir, &sub, &err);
    if (slurm > 0 && sub.shards != shards)
        gcr_fail(&err, GCR_E_USAGE, "--shard %u/%u: the sweep in %s was split into %u "
                 "shards (slurm/submission.json); every task must count the same", shard,
                 shards, dir, sub.shards);
    ro->shard = shard;
    ro->shards = shards;
    struct sweep_run_counts counts = {0};
    int failed = -1;
    if (err.status == GCR_OK && sweep_shard_mark(dir, shard, shards, NULL, &err) == 0)
        failed = sweep_run(&p, dir, ro, &counts, &err);
    if (failed >= 0 && sweep_shard_mark(dir, shard, shards, &counts, &err) != 0)
        failed = -1;
    sweep_plan_free(&p);
    if (failed < 0)
        return cli_error(&err);
    if (!quiet)
        printf("gcreplay sweep: shard %u/%u of %s on %s: %zu pairs: %zu done before, %zu "
               "replayed, %zu failed\n", shard, shards, dir, host, counts.pairs,
               counts.done_before, counts.replayed, counts.failed);
    return failed ? CLI_FAIL : CLI_OK;
}

/* Whether some pair of the plan has no report yet. */
static int any_missing(const struct sweep_plan *p, const char *dir, struct gcr_err *err)
{
    size_t n = p->ntraces * p->nvariants;
    unsigned char *states = malloc(n ? n : 1);
    if (!states)
        return gcr_fail(err, GCR_E_NOMEM, "out of memory");
    int rc = sweep_pair_states(p, dir, states, err);
    bool missing = false;
    for (size_t i = 0; rc == 0 && i < n; i++)
        missing |= states[i] != SWEEP_PAIR_DONE;
    free(states);
    return rc != 0 ? -1 : missing;
}

/* The plan is written: the job array and the collect job for it, submitted or not. */
static int to_slurm(const struct sweep_plan *p, const char *dir, const struct sweep_slurm_opts *so,
                    bool submit, bool quiet)
{
    struct gcr_err err = {0};
    int missing = any_missing(p, dir, &err);
    if (missing < 0)
        return cli_error(&err);
    if (!missing) {
        printf("gcreplay sweep: every pair of %s is done: nothing to submit\n", dir);
        return finish(p, dir, quiet);
    }
    /* The variants' configs are written here, once, before any task reads them. */
    struct sweep_slurm_layout l;
    if (sweep_write_variants(p, dir, false, &err) != 0 ||
        sweep_slurm_write(p, dir, so, &l, &err) != 0)
        return cli_error(&err);
    char array[64];
    snprintf(array, sizeof array, "0-%u", l.shards - 1);
    if (so->max_running)
        snprintf(array + strlen(array), sizeof array - strlen(array), "%%%u", so->max_running);
    int rc = CLI_OK;
    if (!submit) {
        printf("gcreplay sweep: %zu pairs in %u shards, job array %s, not submitted; "
               "submit with:\n", l.pairs, l.shards, array);
        printf("array=$(sbatch --parsable '%s')\n", l.array_script);
        printf("sbatch --dependency=afterany:\"${array%%%%;*}\" '%s'\n", l.collect_script);
    } else {
        struct sweep_submission sub;
        if (sweep_slurm_submit(&l, so->max_running, &sub, &err) != 0) {
            rc = cli_error(&err);
        } else {
            printf("gcreplay sweep: %zu pairs in %u shards: submitted job array %s (%s) and "
                   "collect job %s after it\n", l.pairs, l.shards, sub.array_job, array,
                   sub.collect_job);
            printf("watch it with: gcreplay sweep --status '%s'\n", l.dir);
        }
    }
    sweep_slurm_layout_free(&l);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    enum {
        OPT_FORCE = 1000, OPT_RANK, OPT_COLLECT, OPT_DETAIL, OPT_SLURM, OPT_SLURM_OPT,
        OPT_SHARDS, OPT_MAX_RUNNING, OPT_NO_SUBMIT, OPT_SHARD, OPT_STATUS, OPT_JSON,
        OPT_ONE_PASS
    };
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},  {"vary", required_argument, NULL, 'V'},
        {"set", required_argument, NULL, 's'},     {"timing", no_argument, NULL, 't'},
        {"jobs", required_argument, NULL, 'j'},    {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, OPT_FORCE},   {"rank-by", required_argument, NULL, OPT_RANK},
        {"format", required_argument, NULL, 'f'},  {"collect", required_argument, NULL, OPT_COLLECT},
        {"quiet", no_argument, NULL, 'q'},         {"help", no_argument, NULL, 'h'},
        {"json-detail", required_argument, NULL, OPT_DETAIL},
        {"slurm", no_argument, NULL, OPT_SLURM},
        {"slurm-opt", required_argument, NULL, OPT_SLURM_OPT},
        {"shards", required_argument, NULL, OPT_SHARDS},
        {"max-running", required_argument, NULL, OPT_MAX_RUNNING},
        {"no-submit", no_argument, NULL, OPT_NO_SUBMIT},
        {"shard", required_argument, NULL, OPT_SHARD},
        {"status", required_argument, NULL, OPT_STATUS},
        {"json", no_argument, NULL, OPT_JSON},
        {"one-pass", required_argument, NULL, OPT_ONE_PASS},
        {NULL, 0, NULL, 0}};
    const char *configs[MAX_CONFIGS], *varies[MAX_VARIES], *sets[CLI_MAX_SETS];
    const char *slurm_opts[MAX_SLURM_OPTS];
    size_t nconfigs = 0, nvaries = 0, nsets = 0;
    struct sweep_request rq = {0};
    struct sweep_run_opts ro = {.one_pass = true};
    struct sweep_slurm_opts so = {0};
    const char *collect = NULL, *status = NULL, *shard_text = NULL;
    bool quiet = false, slurm = false, no_submit = false, as_json = false, jobs_given = false,
         one_pass_given = false;
    uint64_t v;
    int c;
    struct gcr_err err = {0};
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
            jobs_given = true;
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
        case OPT_SLURM: slurm = true; break;
        case OPT_SLURM_OPT:
            if (so.noptions == MAX_SLURM_OPTS)
                return cli_usage_error("sweep", "at most %d --slurm-opt options", MAX_SLURM_OPTS);
            if (sweep_slurm_check_option(optarg, &err) != 0)
                return cli_error(&err);
            slurm_opts[so.noptions++] = optarg;
            break;
        case OPT_SHARDS:
        case OPT_MAX_RUNNING:
            if (!cli_parse_u64(optarg, &v) || v < 1 || v > SWEEP_MAX_SHARDS)
                return cli_usage_error("sweep", "%s must be a whole number from 1 to %d, got "
                                       "'%s'", c == OPT_SHARDS ? "--shards" : "--max-running",
                                       SWEEP_MAX_SHARDS, optarg);
            *(c == OPT_SHARDS ? &so.shards : &so.max_running) = (unsigned)v;
            break;
        case OPT_NO_SUBMIT: no_submit = true; break;
        case OPT_SHARD: shard_text = optarg; break;
        case OPT_STATUS: status = optarg; break;
        case OPT_JSON: as_json = true; break;
        case OPT_ONE_PASS:
            if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0)
                return cli_usage_error("sweep", "--one-pass must be on or off, got '%s'", optarg);
            ro.one_pass = !strcmp(optarg, "on");
            one_pass_given = true;
            break;
        case 'h':
            fputs(usage, stdout);
            fputs(usage_slurm, stdout);
            return CLI_OK;
        default: return cli_bad_option("sweep", c, argv);
        }
    }
    bool planning = nconfigs || nvaries || nsets || rq.out_dir || rq.timing || rq.rank_by ||
                    rq.format || ro.force;
    bool slurm_only = so.noptions || so.shards || so.max_running || no_submit;
    if (status) {
        if (planning || slurm || slurm_only || collect || shard_text || jobs_given ||
            one_pass_given || optind < argc)
            return cli_usage_error("sweep", "--status DIR takes no other option than --json, "
                                   "and no trace");
        return status_only(status, as_json);
    }
    if (as_json)
        return cli_usage_error("sweep", "--json goes with --status DIR");
    if (collect) {
        if (planning || slurm || slurm_only || shard_text || jobs_given || one_pass_given ||
            optind < argc)
            return cli_usage_error("sweep", "--collect DIR takes no other options or traces");
        return collect_only(collect, quiet);
    }
    if (shard_text) {
        unsigned shard, shards;
        int bad = parse_shard(shard_text, &shard, &shards);
        if (bad)
            return bad;
        if (planning || slurm || slurm_only)
            return cli_usage_error("sweep", "--shard I/K DIR reads the plan in DIR: it takes "
                                   "no other options than -j, --one-pass and --quiet");
        if (argc - optind != 1)
            return cli_usage_error("sweep", "--shard I/K takes one folder, the sweep's (DIR)");
        if (!ro.jobs)
            ro.jobs = (unsigned)gcr_cpus_usable();
        ro.progress = !quiet && isatty(STDERR_FILENO);
        return shard_only(argv[optind], shard, shards, &ro, quiet);
    }
    if (slurm_only && !slurm)
        return cli_usage_error("sweep", "--slurm-opt, --shards, --max-running and --no-submit "
                               "go with --slurm");
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
    so.options = slurm_opts;
    so.cpus = jobs_given ? ro.jobs : 0;
    so.one_pass = ro.one_pass;
    if (!ro.jobs)
        ro.jobs = (unsigned)gcr_cpus_usable();
    ro.progress = !quiet && isatty(STDERR_FILENO);

    if (check_out_dir(rq.out_dir, &err) != 0 ||
        (slurm && sweep_slurm_check_dir(rq.out_dir, &err) != 0))
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
    /* The tasks of a job array resume whatever is there: --force forgets it all here. */
    if (rc == 0 && slurm && ro.force)
        rc = sweep_forget_stale(&plan, NULL, rq.out_dir, &err);
    if (rc == 0)
        rc = !plan_path || !pj ? gcr_fail(&err, GCR_E_NOMEM, "out of memory")
                               : sweep_write_json(plan_path, pj, JSON_INDENT(1), &err);
    json_decref(pj);
    free(plan_path);
    if (had > 0)
        sweep_plan_free(&before);
    int status_code;
    if (rc != 0) {
        status_code = cli_error(&err);
    } else if (slurm) {
        status_code = to_slurm(&plan, rq.out_dir, &so, !no_submit, quiet);
    } else {
        int failed = sweep_run(&plan, rq.out_dir, &ro, NULL, &err);
        status_code = failed < 0 ? cli_error(&err) : finish(&plan, rq.out_dir, quiet);
    }
    sweep_plan_free(&plan);
    return status_code;
}
