/* Output files that are complete or absent: written to a temporary file
 * beside the destination and renamed over it only when finished. */
#ifndef GCREPLAY_CORE_ATOMIC_FILE_H
#define GCREPLAY_CORE_ATOMIC_FILE_H

#include <stdio.h>

#include "gcreplay/error.h"

struct gcr_atomic_file {
    FILE *f;    /* write here */
    char *path; /* the destination */
    char *tmp;  /* the temporary file */
    int slot;   /* 1 + its slot for gcr_atomic_file_remove_pending; 0: none */
};

/* Creates the temporary file (permissions as a plain fopen would give). */
int gcr_atomic_file_open(struct gcr_atomic_file *a, const char *path, struct gcr_err *err);
/* Flushes, closes and renames into place; on failure the temporary file is removed.
 * Either way the struct's resources are released. */
int gcr_atomic_file_commit(struct gcr_atomic_file *a, struct gcr_err *err);
/* Closes and removes the temporary file; the destination is untouched. */
void gcr_atomic_file_abort(struct gcr_atomic_file *a);

/* Removes every temporary file still open, as a process stopped by a signal
 * must (a report is written while the replay runs, so its temporary file may
 * live for hours). Async-signal-safe: for a signal handler, which should then
 * let the signal end the process. Up to 8 files open at once, with names of
 * up to 4095 bytes, are covered. */
void gcr_atomic_file_remove_pending(void);

#endif
