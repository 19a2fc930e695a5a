/* Helpers shared by the fuzz targets. Define FUZZ_TARGET (the target's name,
 * for messages) before including. */
#ifndef GCR_FUZZ_UTIL_H
#define GCR_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcreplay/error.h"

/* Writes the fuzz input to a file for the reader, which opens paths. */
static void put_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/* A broken invariant: report it and crash, so the fuzzer keeps the input. */
static void fail(const char *what, const struct gcr_err *err)
{
    fprintf(stderr, FUZZ_TARGET ": %s (%s: %s)\n", what, gcr_status_name(err->status), err->msg);
    abort();
}

#endif
