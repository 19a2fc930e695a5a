/* Fuzz target for the engine on Accel-Sim traces (libFuzzer's LLVMFuzzerTestOneInput).
 *
 * The input's first byte chooses a small built-in config and how the replay runs
 * (fuzz_util.h). The rest holds one file, or several separated by FILE_SEPARATOR:
 *   - one file is "t/trace": a kernel file if it starts with its header, else a kernel list
 *     whose kernel files are then missing;
 *   - several make the directory "t": the first is t/kernelslist.g, the next ones
 *     t/kernel-1.traceg, t/kernel-2.traceg... as the list may name them.
 * Each file may be compressed (xz, gzip, zstd). The trace is read from memory and replayed to
 * its report, with fuzz_util.h's checks: errors carry a message naming the trace (or, for a
 * kernel file, the file), and a report's counts agree. Builds without libFuzzer link it with
 * fuzz_standalone.c, which replays files through it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FUZZ_TARGET "fuzz-engine-accelsim"
#include "fuzz_util.h"

#define FILE_SEPARATOR "\n=====\n"
#define MAX_FILES 8

/* The first FILE_SEPARATOR in [p, end), or NULL. */
static const uint8_t *find_separator(const uint8_t *p, const uint8_t *end)
{
    size_t n = strlen(FILE_SEPARATOR);
    for (; (size_t)(end - p) >= n; p++)
        if (memcmp(p, FILE_SEPARATOR, n) == 0)
            return p;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[MAX_FILES] = {
        "t/kernelslist.g",   "t/kernel-1.traceg", "t/kernel-2.traceg", "t/kernel-3.traceg",
        "t/kernel-4.traceg", "t/kernel-5.traceg", "t/kernel-6.traceg", "t/kernel-7.traceg"};
    if (size == 0)
        return 0;
    struct gcr_memfile files[MAX_FILES];
    size_t count = 0;
    const uint8_t *p = data + 1, *end = data + size, *next;
    while (count < MAX_FILES - 1 && (next = find_separator(p, end)) != NULL) {
        files[count] = (struct gcr_memfile){names[count], p, (size_t)(next - p)};
        count++;
        p = next + strlen(FILE_SEPARATOR);
    }
    files[count] = (struct gcr_memfile){names[count], p, (size_t)(end - p)};
    count++;
    const char *path = "t";
    if (count == 1)
        files[0].name = path = "t/trace";

    struct gcr_reader *r = NULL;
    struct gcr_err err = {GCR_OK, ""};
    if (gcr_reader_open_memory_files(&r, path, files, count, "accelsim", &err) != 0) {
        if (r)
            fail("a reader returned with an error", &err);
        fuzz_check_error(&err, "t");
        return 0;
    }
    fuzz_replay(r, "t", fuzz_mode_of(data[0]));
    gcr_reader_close(r);
    return 0;
}
