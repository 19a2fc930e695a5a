/* Fuzz target for the engine on text traces (libFuzzer's LLVMFuzzerTestOneInput).
 *
 * The input's first byte chooses a small built-in config and how the replay runs
 * (fuzz_util.h); the rest is a text trace, read from memory and replayed to its report. It
 * checks what fuzz_util.h checks: errors carry a message naming the trace, and a report's
 * counts agree. Builds without libFuzzer link it with fuzz_standalone.c, which replays files
 * through it. */
#include <stddef.h>
#include <stdint.h>

#define FUZZ_TARGET "fuzz-engine-text"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_engine_run(data, size, "fuzz.txt", "text");
    return 0;
}
