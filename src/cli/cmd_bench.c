/* gcreplay bench: generate a synthetic trace, replay it, print throughput and
 * peak memory. Figures, not pass/fail: machines are shared and noisy. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/bits.h"
#include "cli/cli.h"
#include "gcreplay/config.h"
#include "gcreplay/trace.h"

static const char usage[] =
    "usage: gcreplay bench [--instructions N] [--mix NAME] [--sms N] [--config FILE] [--level N]\n"
    "                      [--keep DIR] [--timing] [--repeat N] [--host-prefetch L]\n"
    "\n"
    "Generates a synthetic native trace of N warp memory instructions (default 50000000)\n"
    "spread over enough CTAs to fill every SM, replays it once at a quarter of its length\n"
    "and once in full (each in a child process, so each peak RSS is its own), and prints\n"
    "warp instructions/s, sector requests/s and peak RSS. Equal RSS at both lengths shows\n"
    "that memory does not grow with trace length. Rates are per second of wall time; the\n"
    "cpu-s column is the replay process's CPU time (user + system). Lines before and after\n"
    "the table give the host's speed at those moments, as the rate of a chain of dependent\n"
    "additions (about the clock in GHz): on a shared machine it moves, and rates taken at\n"
    "different host speeds do not compare.\n"
    "\n"
    "  -n, --instructions N  warp memory instructions in the full trace\n"
    "  --mix NAME            access mix: typical (default), streaming, divergent, or all\n"
    "                        to replay each in turn (README.md describes them)\n"
    "  --sms N               SMs (default 80; ignored with --config)\n"
    "  -c, --config FILE     replay configuration (default: built-in 80-SM private L1 + L2)\n"
    "  --level N             zstd level of the generated trace (default 9, as convert)\n"
    "  --keep DIR            write the generated traces into DIR and keep them\n"
    "  --timing              replay with the timing backend (src/timing/README.md)\n"
    "  --repeat N            replay each trace N times (default 1) and report the fastest\n"
    "                        run, the least disturbed by other work on the machine; peak\n"
    "                        RSS is the largest of the N\n"
    "  --host-prefetch L     the replay's host prefetch level: auto (default), queues, l1\n"
    "                        or l2 (gcreplay run --help); the prefetch column gives the\n"
    "                        share of issues at each of queues/l1/l2, in percent\n"
    "  -h, --help            this text\n";

/* The synthetic kernel: 256-thread CTAs (8 warps), 256 memory instructions per
 * warp, and after every 4 memory instructions 4 non-memory ones. Each mix is a
 * cycle of 8 memory instructions, all with 32 active lanes (see bench_insn):
 *   typical:   2 streaming loads, 2 loads of the CTA's own 2-KB tile, 1 load of a
 *              row shared with the neighbouring warp (stencil-like), 1 load from a
 *              512-KB table shared by every CTA, 1 streaming store, 1 shared load;
 *   streaming: 6 streaming loads (one 8-byte wide: 2 lines), 1 streaming store,
 *              1 shared load: every global access touches new lines;
 *   divergent: 2 streaming loads, 4 gathers of 8 random lines in 64 MB,
 *              1 streaming store, 1 shared load. */
enum { BENCH_WARPS = 8, BENCH_INSNS_PER_WARP = 256, BENCH_CTAS_PER_KERNEL = 2048 };

enum bench_mix { MIX_TYPICAL, MIX_STREAMING, MIX_DIVERGENT, MIX_COUNT };
static const char *const mix_names[MIX_COUNT] = {"typical", "streaming", "divergent"};

enum access_kind { STREAM, STREAM8, TILE, NEIGHBOUR, TABLE, GATHER, STORE, SHARED };

static const enum access_kind cycles[MIX_COUNT][8] = {
    {STREAM, TILE, NEIGHBOUR, TABLE, STREAM, TILE, STORE, SHARED},
    {STREAM, STREAM, STREAM, STREAM, STREAM, STREAM8, STORE, SHARED},
    {STREAM, GATHER, GATHER, STREAM, GATHER, GATHER, STORE, SHARED},
};

static void bench_insn(struct gcr_warp_insn *in, enum bench_mix mix, uint64_t g, uint32_t cta,
                       uint32_t k)
{
    const uint64_t M = BENCH_INSNS_PER_WARP;
    in->pc = 0x100 + 16 * (uint64_t)(k % 8);
    in->op = GCR_OP_LOAD;
    in->space = GCR_SPACE_GLOBAL;
    in->cache_op = GCR_CACHEOP_DEFAULT;
    in->width = 4;
    in->active_mask = 0xffffffffu;
    in->waits = 0;
    uint64_t base, stride = 4;
    switch (cycles[mix][k % 8]) {
    case STREAM:
        base = 0x1000000000ull + (g * M + k) * 128;
        break;
    case STREAM8:
        in->width = 8;
        stride = 8;
        base = 0x5000000000ull + (g * M + k) * 256;
        break;
    case TILE: /* 16 lines per CTA, read by all its warps */
        base = 0x6000000000ull + (uint64_t)cta * 2048 + ((k * 7 + g) % 16) * 128;
        break;
    case NEIGHBOUR: /* alternately its own row and warp g+1's, which reads it too */
        base = 0x7000000000ull + ((g + ((k / 8) & 1)) * 32 + (k / 16) % 32) * 128;
        break;
    case TABLE:
        base = 0x2000000000ull + (((uint64_t)cta * 37 + (uint64_t)k * 13) % 4096) * 128;
        break;
    case GATHER: /* 4 lanes per random line */
        for (int lane = 0; lane < 32; lane++)
            in->addr[lane] = 0x3000000000ull +
                             (gcr_hash_fmix64(g * 1000003 + k * 131 + (uint64_t)lane / 4) %
                              524288) * 128 +
                             (uint64_t)(lane % 4) * 4;
        return;
    case STORE:
        in->op = GCR_OP_STORE;
        base = 0x4000000000ull + (g * M + k) * 128;
        break;
    default: /* SHARED */
        in->space = GCR_SPACE_SHARED;
        base = (uint64_t)(k % 32) * 128;
        break;
    }
    for (int lane = 0; lane < 32; lane++)
        in->addr[lane] = base + stride * (uint64_t)lane;
}

static int generate(const char *path, enum bench_mix mix, uint64_t n_insns, int level,
                    struct gcr_err *err)
{
    struct gcr_write_opts wo = {level, 0};
    struct gcr_writer *w;
    if (gcr_writer_open(&w, path, "gcrt", &wo, err) != 0)
        return -1;
    uint64_t per_cta = (uint64_t)BENCH_WARPS * BENCH_INSNS_PER_WARP;
    uint64_t ctas = (n_insns + per_cta - 1) / per_cta;
    uint64_t written = 0;
    struct gcr_record rec;
    for (uint32_t kid = 1; written < n_insns; kid++) {
        uint64_t kctas = ctas - (uint64_t)(kid - 1) * BENCH_CTAS_PER_KERNEL;
        if (kctas > BENCH_CTAS_PER_KERNEL)
            kctas = BENCH_CTAS_PER_KERNEL;
        rec = (struct gcr_record){.kind = GCR_REC_KERNEL_BEGIN};
        rec.u.kbegin = (struct gcr_kernel_begin){.id = kid, .grid = {(uint32_t)kctas, 1, 1},
                                                 .block = {32 * BENCH_WARPS, 1, 1},
                                                 .shmem_bytes = 4096, .regs_per_thread = 32,
                                                 .name = "bench_kernel"};
        if (gcr_writer_write(w, &rec, err) != 0)
            goto fail;
        for (uint32_t cta = 0; cta < kctas && written < n_insns; cta++) {
            for (uint32_t warp = 0; warp < BENCH_WARPS && written < n_insns; warp++) {
                uint64_t g = ((uint64_t)(kid - 1) * BENCH_CTAS_PER_KERNEL + cta) * BENCH_WARPS +
                             warp;
                for (uint32_t k = 0; k < BENCH_INSNS_PER_WARP && written < n_insns; k++) {
                    rec.kind = GCR_REC_WARP_INSN;
                    rec.u.insn.cta = cta;
                    rec.u.insn.warp = warp;
                    bench_insn(&rec.u.insn, mix, g, cta, k);
                    if (gcr_writer_write(w, &rec, err) != 0)
                        goto fail;
                    written++;
                    if (k % 4 == 3) {
                        rec.kind = GCR_REC_NONMEM;
                        rec.u.nonmem = (struct gcr_nonmem){cta, warp, 4, 0};
                        if (gcr_writer_write(w, &rec, err) != 0)
                            goto fail;
                    }
                }
            }
        }
        rec.kind = GCR_REC_KERNEL_END;
        rec.u.kend.id = kid;
        if (gcr_writer_write(w, &rec, err) != 0)
            goto fail;
    }
    return gcr_writer_close(w, err);
fail:
    gcr_writer_abort(w);
    return -1;
}

struct run_result {
    double seconds;
    struct gcr_replay_totals t;
    int ok;
    char msg[512];
};

/* The bench reads only totals: each kernel's report is dropped as it ends. */
static int drop_kernel(void *ctx, json_t *kernel, struct gcr_err *err)
{
    (void)ctx, (void)kernel, (void)err;
    return 0;
}

static void replay_child(const struct gcr_config *cfg, enum gcr_host_prefetch prefetch,
                         const char *path, int fd)
{
    struct run_result res = {0};
    struct gcr_err err = {0};
    struct gcr_replay *rp;
    struct gcr_reader *r = NULL;
    double t0 = cli_now();
    if (gcr_replay_create(&rp, cfg, &err) == 0) {
        if (gcr_replay_set_host_prefetch(rp, prefetch, &err) == 0 &&
            gcr_replay_set_kernel_sink(rp, drop_kernel, NULL, &err) == 0 &&
            gcr_reader_open(&r, path, NULL, &err) == 0 && gcr_replay_trace(rp, r, &err) == 0) {
            res.ok = 1;
            gcr_replay_totals(rp, &res.t);
        }
        gcr_reader_close(r);
        gcr_replay_destroy(rp);
    }
    res.seconds = cli_now() - t0;
    snprintf(res.msg, sizeof res.msg, "%.500s", err.msg);
    ssize_t wr = write(fd, &res, sizeof res);
    _exit(wr == (ssize_t)sizeof res ? 0 : 1);
}

/* Replays path in a child process: its result, peak RSS and CPU time. */
static int run_measured(const struct gcr_config *cfg, enum gcr_host_prefetch prefetch,
                        const char *path, struct run_result *res, long *rss_kb,
                        double *cpu_seconds)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fds[0]);
        replay_child(cfg, prefetch, path, fds[1]);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], res, sizeof *res);
    close(fds[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0 || got != (ssize_t)sizeof *res)
        return -1;
    *rss_kb = ru.ru_maxrss;
    *cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    return res->ok ? 0 : -1;
}

/* A reference for the host's speed when the figures were taken: the rate of
 * a chain of dependent additions (one per clock cycle on common cores, so
 * roughly the clock in GHz), the best of a few 20-ms tries. On a shared or
 * virtual machine it moves by half or more from minute to minute, and the
 * replay's rate with it: figures taken at different host speeds do not
 * compare, and this line says which speed a figure was taken at. */
static double host_adds_per_second(void)
{
    double best = 0;
    for (int k = 0; k < 5; k++) {
        uint64_t x = 0;
        const uint64_t n = 40000000;
        double t0 = cli_now();
        for (uint64_t i = 0; i < n; i++) {
            x += i;
            __asm__ volatile("" : "+r"(x)); /* keeps the chain: one addition per step */
        }
        double dt = cli_now() - t0;
        if (dt > 0 && (double)n / dt > best)
            best = (double)n / dt;
    }
    return best;
}

int cmd_bench(int argc, char **argv)
{
    static const struct option opts[] = {
        {"instructions", required_argument, NULL, 'n'}, {"sms", required_argument, NULL, 's'},
        {"config", required_argument, NULL, 'c'},       {"level", required_argument, NULL, 'l'},
        {"keep", required_argument, NULL, 'k'},         {"help", no_argument, NULL, 'h'},
        {"mix", required_argument, NULL, 'm'},          {"timing", no_argument, NULL, 't'},
        {"repeat", required_argument, NULL, 'r'},
        {"host-prefetch", required_argument, NULL, 'p'},
        {NULL, 0, NULL, 0}};
    bool timing = false;
    enum gcr_host_prefetch prefetch = GCR_HOST_PREFETCH_AUTO;
    uint64_t n = 50000000, sms = 80, level = 9, repeat = 1;
    const char *config_path = NULL, *keep = NULL;
    int mix_first = MIX_TYPICAL, mix_last = MIX_TYPICAL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":n:c:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (!cli_parse_u64(optarg, &n) || n < 1000)
                return cli_usage_error("bench", "--instructions must be a whole number of at "
                                       "least 1000, got '%s'", optarg);
            break;
        case 's':
            if (!cli_parse_u64(optarg, &sms) || sms < 1 || sms > 4096)
                return cli_usage_error("bench", "--sms must be a whole number from 1 to 4096, "
                                       "got '%s'", optarg);
            break;
        case 'c': config_path = optarg; break;
        case 'l':
            if (!cli_parse_u64(optarg, &level) || level > 19)
                return cli_usage_error("bench", "--level must be a whole number from 0 to 19, "
                                       "got '%s'", optarg);
            break;
        case 'k': keep = optarg; break;
        case 't': timing = true; break;
        case 'p':
            if (!cli_parse_host_prefetch(optarg, &prefetch))
                return cli_usage_error("bench", "--host-prefetch must be auto, queues, l1 or l2, "
                                       "got '%s'", optarg);
            break;
        case 'r':
            if (!cli_parse_u64(optarg, &repeat) || repeat < 1 || repeat > 100)
                return cli_usage_error("bench", "--repeat must be a whole number from 1 to 100, "
                                       "got '%s'", optarg);
            break;
        case 'm':
            mix_first = mix_last = -1;
            for (int i = 0; i < MIX_COUNT; i++)
                if (!strcmp(optarg, mix_names[i]))
                    mix_first = mix_last = i;
            if (!strcmp(optarg, "all")) {
                mix_first = 0;
                mix_last = MIX_COUNT - 1;
            }
            if (mix_first < 0)
                return cli_usage_error("bench", "--mix must be typical, streaming, divergent "
                                       "or all, got '%s'", optarg);
            break;
        case 'h': fputs(usage, stdout); return CLI_OK;
        default: return cli_bad_option("bench", c, argv);
        }
    }
    if (optind != argc)
        return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);

    struct gcr_err err = {0};
    struct gcr_config cfg;
    if (config_path) {
        if (gcr_config_load(&cfg, config_path, &err) != 0)
            return cli_error(&err);
    } else {
        char text[256];
        snprintf(text, sizeof text,
                 "{\"name\": \"bench-default\", \"gpu\": {\"sms\": %llu}}",
                 (unsigned long long)sms);
        if (gcr_config_parse(&cfg, text, "bench", &err) != 0)
            return cli_error(&err);
    }

    if (timing)
        cfg.timing.enabled = true;

    char dir[4096];
    if (keep) {
        snprintf(dir, sizeof dir, "%s", keep);
        mkdir(dir, 0777);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gcreplay-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            perror("gcreplay bench: mkdtemp");
            gcr_config_free(&cfg);
            return CLI_FAIL;
        }
    }
    char paths[2][4200];
    uint64_t lengths[2] = {n / 4, n};
    int rc = CLI_OK;
    printf("gcreplay bench: config %s, %u SMs, L1D %u x %u x %u B (%s), L2 %u slices%s\n",
           cfg.name, cfg.num_sms, cfg.l1.sets, cfg.l1.ways, cfg.line_bytes,
           cfg.l1_organization, cfg.l2_slices, cfg.timing.enabled ? ", timing" : "");
    if (repeat > 1)
        printf("each run: the fastest of %llu replays\n", (unsigned long long)repeat);
    printf("host speed before: %.2f G dependent additions/s\n", host_adds_per_second() / 1e9);
    printf("%-10s %-6s %12s %9s %8s %12s %12s %12s %10s %12s %9s\n", "mix", "run", "mem-insns",
           "seconds", "cpu-s", "mem-insn/s", "warp-insn/s", "sector-req/s", "L1D-miss%",
           "peak-RSS-MB", "prefetch");
    for (int mix = mix_first; mix <= mix_last && rc == CLI_OK; mix++) {
        for (int i = 0; i < 2 && rc == CLI_OK; i++) {
            snprintf(paths[i], sizeof paths[i], "%s/bench-%s-%llu.gcrt", dir, mix_names[mix],
                     (unsigned long long)lengths[i]);
            if (generate(paths[i], (enum bench_mix)mix, lengths[i], (int)level, &err) != 0)
                rc = cli_error(&err);
        }
        for (int i = 0; i < 2 && rc == CLI_OK; i++) {
            struct run_result res = {0};
            long rss = 0;
            double cpu = 0;
            for (uint64_t k = 0; k < repeat && rc == CLI_OK; k++) {
                struct run_result one = {.msg = "the replay process ended abnormally"};
                long one_rss = 0;
                double one_cpu = 0;
                if (run_measured(&cfg, prefetch, paths[i], &one, &one_rss, &one_cpu) != 0) {
                    fprintf(stderr, "gcreplay bench: replay failed: %s\n", one.msg);
                    rc = CLI_FAIL;
                }
                if (one_rss > rss)
                    rss = one_rss;
                if (k == 0 || one.seconds < res.seconds) {
                    res = one;
                    cpu = one_cpu;
                }
            }
            if (rc != CLI_OK)
                break;
            /* Shares of the issues at each prefetch level (none in timing mode). */
            char shares[32] = "-";
            const uint64_t *at = res.t.issues_at_prefetch;
            double issues = 0;
            for (int l = 0; l < GCR_HOST_PREFETCH_LEVELS; l++)
                issues += (double)at[l];
            _Static_assert(GCR_HOST_PREFETCH_LEVELS == 3, "one share per level below");
            if (issues > 0)
                snprintf(shares, sizeof shares, "%.0f/%.0f/%.0f", 100.0 * (double)at[0] / issues,
                         100.0 * (double)at[1] / issues, 100.0 * (double)at[2] / issues);
            printf("%-10s %-6s %12llu %9.2f %8.2f %12.0f %12.0f %12.0f %10.2f %12.1f %9s\n",
                   mix_names[mix], i ? "full" : "1/4", (unsigned long long)res.t.mem_insns,
                   res.seconds, cpu, (double)res.t.mem_insns / res.seconds,
                   (double)res.t.warp_insns / res.seconds,
                   (double)res.t.l1_sectors / res.seconds,
                   res.t.l1_requests ? 100.0 * (double)res.t.l1_misses / (double)res.t.l1_requests
                                     : 0.0,
                   (double)rss / 1024.0, shares);
            fflush(stdout);
        }
        if (!keep) {
            unlink(paths[0]);
            unlink(paths[1]);
        }
    }
    if (!keep)
        rmdir(dir);
    if (rc == CLI_OK)
        printf("host speed after: %.2f G dependent additions/s\n", host_adds_per_second() / 1e9);
    gcr_config_free(&cfg);
    return rc;
}
