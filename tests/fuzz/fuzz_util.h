/* Helpers shared by the fuzz targets. Define FUZZ_TARGET (the target's name, for messages)
 * before including.
 *
 * Every target reads its input from memory, so that nothing touches the file system. A broken
 * invariant aborts, so that libFuzzer keeps the input; an error returned with a message is a
 * correct answer to a bad input, not a finding. */
#ifndef GCR_FUZZ_UTIL_H
#define GCR_FUZZ_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcreplay/error.h"

/* A broken invariant: report it and crash, so the fuzzer keeps the input. */
static inline void fail(const char *what, const struct gcr_err *err)
{
    fprintf(stderr, FUZZ_TARGET ": %s (%s: %s)\n", what, gcr_status_name(err->status), err->msg);
    abort();
}

#endif
