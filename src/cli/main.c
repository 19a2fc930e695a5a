/* gcreplay: fast trace-driven GPU cache replay. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/atomic_file.h"
#include "gcreplay/format.h"

static const char usage[] =
    "usage: gcreplay <command> [options]\n"
    "\n"
    "commands:\n"
    "  run      replay traces through the configured caches and report\n"
    "  convert  convert a trace between formats\n"
    "  info     describe a trace: format, kernels, record counts\n"
    "  bench    measure replay speed on a generated trace\n"
    "  sac      multi-chip GPUs: memory-side vs SM-side LLC, SAC's EAB model per kernel\n"
    "  sweep    replay many traces under many config variants: tables and a ranked summary\n"
    "  plot     draw the plots of a report or a sweep (PNG, SVG, index.html)\n"
    "  bench-reader  measure trace parsing speed on a generated trace\n"
    "  import-config  turn a GPGPU-Sim config into a gcreplay config\n"
    "  formats  list the trace formats\n"
    "\n"
    "'gcreplay <command> --help' describes a command; 'gcreplay --version' prints the version.\n";

static const char formats_usage[] =
    "usage: gcreplay formats\n"
    "\n"
    "Lists the trace formats gcreplay reads (and writes): name, file extension and what\n"
    "the format is. Every command detects a trace's format from its content; --format\n"
    "names one where detection is not wanted (see README.md, \"Trace formats\").\n";

static int cmd_formats(int argc, char **argv)
{
    if (argc > 1) {
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
            fputs(formats_usage, stdout);
            return CLI_OK;
        }
        return cli_usage_error("formats", "unexpected argument '%s'", argv[1]);
    }
    for (size_t i = 0; gcr_trace_formats[i]; i++) {
        const struct gcr_trace_format *f = gcr_trace_formats[i];
        printf("%-10s %-6s %s%s\n", f->name, f->extension ? f->extension : "", f->summary,
               f->writer_open ? "" : " (read only)");
    }
    return CLI_OK;
}

/* Output files are complete or absent, also when a signal ends the process
 * (Ctrl-C, a batch system's time limit): the temporary files go, then the
 * signal takes its default course (the handler is reset on entry). A signal
 * ignored when gcreplay started (nohup, a script's background job) stays
 * ignored, as it would without the handler. */
static void remove_outputs_and_die(int sig)
{
    gcr_atomic_file_remove_pending();
    raise(sig);
}

static void handle_stop_signals(void)
{
    struct sigaction sa = {.sa_handler = remove_outputs_and_die, .sa_flags = SA_RESETHAND};
    gcr_atomic_file_stop_signals(&sa.sa_mask); /* one cleanup at a time */
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction old;
        if (sigismember(&sa.sa_mask, sig) == 1 && sigaction(sig, NULL, &old) == 0 &&
            old.sa_handler != SIG_IGN)
            sigaction(sig, &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    handle_stop_signals();
    opterr = 0; /* each command words its own option errors (cli_bad_option) */
    if (argc < 2) {
        fputs(usage, stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("gcreplay %s\n", GCR_VERSION);
        return CLI_OK;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "convert"))
        return cmd_convert(argc - 1, argv + 1);
    if (!strcmp(cmd, "info"))
        return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "sac"))
        return cmd_sac(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep"))
        return cmd_sweep(argc - 1, argv + 1);
    if (!strcmp(cmd, "plot"))
        return cmd_plot(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench"))
        return cmd_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench-reader"))
        return cmd_bench_reader(argc - 1, argv + 1);
    if (!strcmp(cmd, "import-config"))
        return cmd_import_config(argc - 1, argv + 1);
    if (!strcmp(cmd, "formats"))
        return cmd_formats(argc - 1, argv + 1);
    fputs("gcreplay: unknown command '", stderr);
    cli_put_escaped(stderr, cmd);
    fprintf(stderr, "'\n\n%s", usage);
    return CLI_USAGE;
}
