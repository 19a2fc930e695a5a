#include "gcreplay/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int gcr_fail(struct gcr_err *err, enum gcr_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->status = status;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void gcr_err_prefix(struct gcr_err *err, const char *fmt, ...)
{
    if (!err)
        return;
    char combined[2 * GCR_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(combined, GCR_ERR_MSG_MAX, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if (n >= GCR_ERR_MSG_MAX)
        n = GCR_ERR_MSG_MAX - 1;
    memcpy(combined + n, err->msg, GCR_ERR_MSG_MAX);
    combined[n + GCR_ERR_MSG_MAX - 1] = '\0';
    memcpy(err->msg, combined, GCR_ERR_MSG_MAX - 1);
    err->msg[GCR_ERR_MSG_MAX - 1] = '\0';
}

const char *gcr_status_name(enum gcr_status status)
{
    switch (status) {
    case GCR_OK: return "ok";
    case GCR_E_IO: return "i/o error";
    case GCR_E_FORMAT: return "format error";
    case GCR_E_TRUNCATED: return "truncated input";
    case GCR_E_CHECKSUM: return "checksum mismatch";
    case GCR_E_CONFIG: return "configuration error";
    case GCR_E_NOMEM: return "out of memory";
    case GCR_E_USAGE: return "usage error";
    case GCR_E_UNSUPPORTED: return "unsupported";
    case GCR_E_INTERNAL: return "internal error";
    }
    return "unknown error";
}

void gcr_err_clear(struct gcr_err *err)
{
    if (err) {
        err->status = GCR_OK;
        err->msg[0] = '\0';
    }
}
