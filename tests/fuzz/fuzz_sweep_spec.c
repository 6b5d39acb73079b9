/* libFuzzer target: the sweep spec reader of the touche command (cli/sweep_value.c) on
 * arbitrary text, as TOML and as JSON. Any crash, leak or sanitizer report is a bug; a
 * refusal must come with a "NAME:LINE: " message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_value.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    char* text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (int toml = 0; toml <= 1; ++toml) {
        sweep_value* root = NULL;
        char err[512] = "";
        if (sweep_value_parse("spec", text, toml, &root, err, sizeof err)) {
            sweep_value_free(root);
        } else if (strncmp(err, "spec:", 5) != 0) {
            abort();
        }
    }
    free(text);
    return 0;
}
