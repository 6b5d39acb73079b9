/* libFuzzer target: the MJCF loader on arbitrary bytes must return a status (never crash,
 * leak or read out of bounds), and a spec it accepts must be destroyable. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "touche/io.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    char* xml = malloc(size + 1);
    if (!xml) {
        return 0;
    }
    memcpy(xml, data, size);
    xml[size] = '\0';
    tch_spec* spec = NULL;
    tch_error err;
    /* mesh files resolve in a directory that does not exist: no file system access */
    tch_mjcf_load_string(xml, "/nonexistent-fuzz-dir", "fuzz.xml", &spec, &err);
    tch_spec_destroy(spec);
    free(xml);
    return 0;
}
