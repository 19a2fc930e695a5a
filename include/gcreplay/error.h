/* Error reporting shared by every part of the library.
 *
 * The library never prints and never exits: a fallible function returns a
 * negative value (or -1 from the 1/0/-1 record readers) and fills the
 * caller-owned struct gcr_err with a status and a message that already names
 * the place (file and line, record, byte offset or JSON path). */
#ifndef GCREPLAY_ERROR_H
#define GCREPLAY_ERROR_H

#include <stddef.h>

/* What kind of failure an error is. The numbers are stable (a new kind gets
 * the next free number; none is ever reused), so a program may store or
 * compare them; gcr_status_name gives each its short name. */
enum gcr_status {
    GCR_OK = 0,
    GCR_E_IO = 1,          /* open/read/write/rename failed (the OS's reason in the message) */
    GCR_E_FORMAT = 2,      /* malformed input: bad magic, bad field, bad line */
    GCR_E_TRUNCATED = 3,   /* input ends in the middle of something */
    GCR_E_CHECKSUM = 4,    /* a stored checksum does not match */
    GCR_E_CONFIG = 5,      /* configuration error (JSON path in the message) */
    GCR_E_NOMEM = 6,       /* out of memory */
    GCR_E_USAGE = 7,       /* bad command-line use */
    GCR_E_UNSUPPORTED = 8, /* valid input the tool cannot handle */
    GCR_E_INTERNAL = 9     /* a bug in gcreplay: please report it */
};

#define GCR_ERR_MSG_MAX 1024

struct gcr_err {
    enum gcr_status status;
    char msg[GCR_ERR_MSG_MAX];
};

/* Fills err (if not NULL) and returns -1: functions report failure as -1 (or
 * a negative value) and the kind of failure in err->status, so callers can write
 * `return gcr_fail(err, GCR_E_FORMAT, "%s: line %lu: ...", ...);`. */
int gcr_fail(struct gcr_err *err, enum gcr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

const char *gcr_status_name(enum gcr_status status);

void gcr_err_clear(struct gcr_err *err);

#endif
