#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(struct cli_progress *p, bool quiet)
{
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->start = p->last = cli_now();
}

void cli_progress_cb(void *ctx, const struct gcr_progress *pr)
{
    struct cli_progress *p = ctx;
    if (!p->enabled)
        return;
    double now = cli_now();
    bool finished = pr->bytes_total && pr->bytes_done >= pr->bytes_total;
    if (now - p->last < 0.25 && !finished) /* a few updates a second, and the last one */
        return;
    p->last = now;
    double rate = pr->warp_insns / (now - p->start + 1e-9);
    if (pr->bytes_total)
        fprintf(stderr, "\r\033[Kgcreplay: %s %5.1f%%  %.1f M warp instructions  %.2f M/s",
                pr->path, 100.0 * (double)pr->bytes_done / (double)pr->bytes_total,
                pr->warp_insns / 1e6, rate / 1e6);
    else
        fprintf(stderr, "\r\033[Kgcreplay: %s  %.1f M warp instructions  %.2f M/s", pr->path,
                pr->warp_insns / 1e6, rate / 1e6);
    fflush(stderr);
}

void cli_progress_done(struct cli_progress *p)
{
    if (p->enabled)
        fprintf(stderr, "\r\033[K");
}

int cli_error(const struct gcr_err *err)
{
    fprintf(stderr, "gcreplay: %s\n", err->msg);
    return err->status == GCR_E_USAGE ? CLI_USAGE : CLI_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "gcreplay %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'gcreplay %s --help'.\n", cmd);
    return CLI_USAGE;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9') /* no sign, no leading space */
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE)
        return false;
    *out = v;
    return true;
}

bool cli_parse_host_prefetch(const char *s, enum gcr_host_prefetch *out)
{
    static const struct {
        const char *name;
        enum gcr_host_prefetch mode;
    } modes[] = {{"auto", GCR_HOST_PREFETCH_AUTO},
                 {"queues", GCR_HOST_PREFETCH_QUEUES},
                 {"l1", GCR_HOST_PREFETCH_L1},
                 {"l2", GCR_HOST_PREFETCH_L2}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(s, modes[i].name) == 0) {
            *out = modes[i].mode;
            return true;
        }
    return false;
}
