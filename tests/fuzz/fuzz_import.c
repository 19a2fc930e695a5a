/* Fuzz target for the GPGPU-Sim config importer (libFuzzer's LLVMFuzzerTestOneInput).
 *
 * The input is one option file, or two separated by FILE_SEPARATOR (gpgpusim.config, then
 * trace.config, whose options override the first's), imported from memory. An error must
 * carry a message naming one of the files; an imported config must load (gcr_config_parse),
 * as the importer promises. Builds without libFuzzer link it with fuzz_standalone.c, which
 * replays files through it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_TARGET "fuzz-import"
#include "fuzz_util.h"

#define FILE_SEPARATOR "\n=====\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gcr_memfile files[2] = {{"fuzz/gpgpusim.config", data, size},
                                   {"fuzz/trace.config", NULL, 0}};
    size_t count = 1, sep = strlen(FILE_SEPARATOR);
    for (size_t i = 0; i + sep <= size; i++)
        if (memcmp(data + i, FILE_SEPARATOR, sep) == 0) {
            files[0].size = i;
            files[1].data = data + i + sep;
            files[1].size = size - i - sep;
            count = 2;
            break;
        }
    struct gcr_err err = {GCR_OK, ""};
    json_t *imported = gcr_config_import_gpgpusim_memory(files, count, "imported", &err);
    if (!imported) {
        fuzz_check_error(&err, "fuzz/");
        return 0;
    }
    char *text = json_dumps(imported, 0);
    if (!text)
        fail("an imported config that cannot be written as JSON", &err);
    struct gcr_config cfg;
    if (gcr_config_parse(&cfg, text, "imported.json", &err) != 0)
        fail("an imported config does not load", &err);
    gcr_config_free(&cfg);
    free(text);
    json_decref(imported);
    return 0;
}
