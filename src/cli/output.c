/* The output rules every command applies before it does any work (README, "Output files"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/atomic_file.h"
#include "gcreplay/trace.h"

struct clash {
    const char *out;
    const char *input; /* the first input the output would overwrite, or NULL */
    char input_buf[4096];
};

static void check_one(void *ctx, const char *file)
{
    struct clash *c = ctx;
    if (!c->input && gcr_output_is_input(c->out, file)) {
        snprintf(c->input_buf, sizeof c->input_buf, "%s", file);
        c->input = c->input_buf;
    }
}

int cli_check_output(const char *out, const char *const *files, size_t nfiles,
                     char *const *traces, size_t ntraces, const char *format,
                     struct gcr_err *err)
{
    if (gcr_output_check(out, err) != 0) {
        err->status = GCR_E_USAGE; /* a wrong command line, however the library words it */
        return -1;
    }
    struct clash c = {.out = out};
    for (size_t i = 0; i < nfiles && !c.input; i++)
        if (files[i])
            check_one(&c, files[i]);
    for (size_t i = 0; i < ntraces && !c.input; i++)
        gcr_trace_input_files(traces[i], format, check_one, &c);
    if (c.input)
        return gcr_fail(err, GCR_E_USAGE, "%s: the output is the same file as the input %s; "
                        "name another output", out, c.input);
    return 0;
}

int cli_check_output_dir(const char *dir, const char *option, struct gcr_err *err)
{
    struct stat st;
    if (stat(dir, &st) != 0 && errno == ENOENT)
        return gcr_fail(err, GCR_E_USAGE, "%s: no such folder; %s must name an existing folder",
                        dir, option);
    if (stat(dir, &st) != 0)
        return gcr_fail(err, GCR_E_USAGE, "%s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return gcr_fail(err, GCR_E_USAGE, "%s: is not a folder; %s must name an existing folder",
                        dir, option);
    return 0;
}
