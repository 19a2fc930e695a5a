#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"

unsigned cli_terminal_width(FILE *f)
{
    struct winsize ws;
    int fd = fileno(f);
    if (fd < 0 || !isatty(fd) || ioctl(fd, TIOCGWINSZ, &ws) != 0)
        return 0;
    return ws.ws_col;
}

void cli_trace_label(const char *path, char *out, size_t cap)
{
    static const char *const exts[] = {".xz", ".gz", ".zst", ".traceg", ".gcrt", ".txt"};
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && path[start - 1] != '/')
        start--;
    for (bool cut = true; cut;) {
        cut = false;
        for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
            size_t k = strlen(exts[i]);
            if (n - start > k && !strncmp(path + n - k, exts[i], k)) {
                n -= k;
                cut = true;
            }
        }
    }
    snprintf(out, cap, "%.*s", (int)(n - start), path + start);
}

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

/* Length of the valid UTF-8 sequence of a printable character at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF, and not the C1 controls U+0080..U+009F, which
 * terminals obey), or 0. */
static size_t printable_utf8(const unsigned char *p)
{
    unsigned char c = p[0];
    if (c >= 0x20 && c < 0x7f)
        return 1;
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c == 0xc2) {
        n = 2;
        lo = 0xa0; /* U+0080..U+009F are C1 controls */
    } else if (c > 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;
        if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        if (c == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

void cli_put_escaped(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = printable_utf8(p);
        if (n) {
            fwrite(p, 1, n, f);
            p += n;
        } else {
            fprintf(f, "\\x%02x", *p++);
        }
    }
}

int cli_error(const struct gcr_err *err)
{
    fputs("gcreplay: ", stderr);
    cli_put_escaped(stderr, err->msg);
    fputc('\n', stderr);
    return err->status == GCR_E_USAGE ? CLI_USAGE : CLI_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[GCR_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gcreplay %s: ", cmd);
    cli_put_escaped(stderr, msg);
    fprintf(stderr, "\nTry 'gcreplay %s --help'.\n", cmd);
    return CLI_USAGE;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
    const char *written = optind > 0 ? argv[optind - 1] : "";
    if (c == ':')
        return cli_usage_error(cmd, "option '%s' needs a value", written);
    if (optopt) /* a short option, perhaps inside a group such as -qx */
        return cli_usage_error(cmd, "unknown option '-%c'", optopt);
    return cli_usage_error(cmd, "unknown option '%s'", written);
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
