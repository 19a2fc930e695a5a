/* The gcreplay command line: one file per command. The CLI decides what is
 * printed where and chooses exit codes; the library never does. */
#ifndef GCREPLAY_CLI_H
#define GCREPLAY_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gcreplay/error.h"
#include "gcreplay/replay.h"

/* Exit codes: 0 success, 1 the input or the run failed, 2 the command line was wrong. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* --set PATH=VALUE options one command line may give (config overrides, gcreplay/config.h). */
enum { CLI_MAX_SETS = 256 };

/* The --set option's help, shared by the commands that take it. */
#define CLI_SET_HELP                                                                              \
    "  -s, --set PATH=VALUE  override a config key (repeatable): PATH its JSON path\n"            \
    "                      (l1d.ways), VALUE JSON or a bare word for a string\n"                  \
    "                      (l1d.organization=shared); null removes the key\n"

int cmd_run(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bench_reader(int argc, char **argv);
int cmd_import_config(int argc, char **argv);
int cmd_sac(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* "gcreplay: <message>" on stderr; returns CLI_FAIL or CLI_USAGE by status. */
int cli_error(const struct gcr_err *err);
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The usage error for what getopt_long returned as c (':' a missing value, '?' an unknown
 * option; getopt's own messages are off, and optstrings start with ':'). */
int cli_bad_option(const char *cmd, int c, char **argv);

/* Writes s to f with every byte that is not printable text escaped as \xNN (control bytes,
 * and bytes that do not form valid UTF-8), so that a message quoting a bad input cannot
 * garble or drive the terminal. */
void cli_put_escaped(FILE *f, const char *s);

/* Before any work: refuses the output path `out` if no output may be written there (a
 * directory, a block device) or if it is the same file as an input: one of files[] (configs;
 * NULL entries are skipped) or of the traces, with every file a trace names (the kernel files
 * of an Accel-Sim list). The message names both paths. */
int cli_check_output(const char *out, const char *const *files, size_t nfiles,
                     char *const *traces, size_t ntraces, const char *format,
                     struct gcr_err *err);
/* Before any work: refuses a folder that outputs go into (run --json-dir) unless it exists
 * and is a folder. The files in it are outputs each, checked as cli_check_output does. */
int cli_check_output_dir(const char *dir, const char *option, struct gcr_err *err);

/* Parses a non-negative integer option value; false if malformed. */
bool cli_parse_u64(const char *s, uint64_t *out);

/* --host-prefetch: "auto", "queues", "l1" or "l2"; false if none of them. */
bool cli_parse_host_prefetch(const char *s, enum gcr_host_prefetch *out);

/* The width of the terminal f writes to, in characters, or 0 when f is not a terminal. */
unsigned cli_terminal_width(FILE *f);

/* How a table names a trace: its file or folder name, without the extensions traces have. */
void cli_trace_label(const char *path, char *out, size_t cap);

/* Progress on stderr, only when stderr is a terminal. */
struct cli_progress {
    bool enabled;
    double start, last;
};
void cli_progress_init(struct cli_progress *p, bool quiet);
void cli_progress_cb(void *ctx, const struct gcr_progress *p);
void cli_progress_done(struct cli_progress *p);
double cli_now(void);

#endif
