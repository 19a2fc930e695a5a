#include "gcreplay/error.h"

#include <stdarg.h>
#include <stdio.h>

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

/* The numbers are part of the interface (gcreplay/error.h): a change here is a break. */
_Static_assert(GCR_E_IO == 1 && GCR_E_FORMAT == 2 && GCR_E_TRUNCATED == 3 &&
                   GCR_E_CHECKSUM == 4 && GCR_E_CONFIG == 5 && GCR_E_NOMEM == 6 &&
                   GCR_E_USAGE == 7 && GCR_E_UNSUPPORTED == 8 && GCR_E_INTERNAL == 9,
               "gcr_status numbers are stable");
