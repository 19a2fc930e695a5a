/* Output files, written so that they never clobber what they should not.
 *
 * Every file gcreplay writes (reports, converted traces, imported configs)
 * goes through here, and the path decides how it is written:
 *   - "-": standard output;
 *   - a regular file, or a name that does not exist yet: written to a
 *     temporary file beside the destination and renamed over it only when
 *     finished, so it is complete or absent. A symlink is followed to the end
 *     of its chain, and the file there is replaced (the link stays a link);
 *   - an existing character device, FIFO or socket (/dev/null, a named pipe),
 *     and a path through /dev/fd or /proc/self/fd (/dev/stdout): opened and
 *     written in place, never renamed over; a device node is never replaced;
 *   - a directory, or a block device: refused.
 * gcr_output_check() applies those refusals without opening anything, so a
 * command can refuse a bad output before any work; gcr_output_is_input()
 * tells whether an output would overwrite one of the command's inputs. */
#ifndef GCREPLAY_CORE_ATOMIC_FILE_H
#define GCREPLAY_CORE_ATOMIC_FILE_H

#include <stdbool.h>
#include <signal.h>
#include <stdio.h>

#include "gcreplay/error.h"

enum gcr_output_mode {
    GCR_OUTPUT_RENAMED,  /* temporary file renamed over the destination */
    GCR_OUTPUT_IN_PLACE, /* an existing device, FIFO or socket, written as it is */
    GCR_OUTPUT_STDOUT    /* "-" */
};

struct gcr_atomic_file {
    FILE *f;    /* write here */
    char *path; /* the destination as given, for messages */
    char *target; /* GCR_OUTPUT_RENAMED: the file renamed over (symlinks resolved) */
    char *tmp;    /* GCR_OUTPUT_RENAMED: the temporary file */
    enum gcr_output_mode mode;
    struct gcr_pending_output *pending; /* its entry for gcr_atomic_file_remove_pending; NULL: none */
};

/* Refuses a path no output may be written to: an existing directory or block device (the
 * message names the path and says why). 0 if the path may be written. */
int gcr_output_check(const char *path, struct gcr_err *err);

/* True when writing the output `out` would overwrite the existing file `input`: both name the
 * same file (device and inode, after following symlinks) and it is a regular file. */
bool gcr_output_is_input(const char *out, const char *input);

/* Opens the output for writing as the rules above say (permissions of a new file as a plain
 * fopen would give). */
int gcr_atomic_file_open(struct gcr_atomic_file *a, const char *path, struct gcr_err *err);
/* Flushes and closes; a renamed output is moved into place, and on failure its temporary file
 * is removed. Either way the struct's resources are released. */
int gcr_atomic_file_commit(struct gcr_atomic_file *a, struct gcr_err *err);
/* Closes; a renamed output's temporary file is removed and the destination is untouched (what
 * was written to a device, FIFO or standard output cannot be taken back). */
void gcr_atomic_file_abort(struct gcr_atomic_file *a);

/* A scratch file in folder dir that no name points to (nothing is left behind, whatever stops
 * the process), not inherited by the processes this one starts: its descriptor, or -1 with
 * err. For output that is read back before it goes anywhere. */
int gcr_scratch_file(const char *dir, struct gcr_err *err);
/* Opens a as an output written in place to descriptor fd (a duplicate of it, which commit and
 * abort close; fd stays open), named `name` in messages. */
int gcr_atomic_file_open_fd(struct gcr_atomic_file *a, int fd, const char *name,
                            struct gcr_err *err);

/* Removes every temporary file still open, as a process stopped by a signal
 * must (a report is written while the replay runs, so its temporary file may
 * live for hours). Async-signal-safe: for a signal handler, which should then
 * let the signal end the process. Up to 8 files open at once, with names of
 * up to 4095 bytes, are covered. */
void gcr_atomic_file_remove_pending(void);

/* The signals on which a process removes its pending outputs and ends (SIGINT, SIGTERM, SIGHUP,
 * SIGXCPU): the command's handler takes them, and a file is created and registered with them
 * blocked, so that none is left behind between the two. */
void gcr_atomic_file_stop_signals(sigset_t *set);

#endif
