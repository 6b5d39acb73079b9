/* The bundled viewer script, built from viewer/ by esbuild at build time (cli/CMakeLists.txt)
 * and assembled into the binary with .incbin, so that `touche view` needs no file beside it. */
#include "viewer.h"

const char* const CLI_VIEWER_NOT_BUILT =
    "the viewer was not built into this touche: node and npm were not found when it was "
    "configured (install nodejs and npm, then configure and build again; docs/viewer.md)";

#ifdef TCH_VIEWER_BUNDLE_PATH
__asm__(".section .rodata\n"
        ".balign 16\n"
        "cli_viewer_bundle_start:\n"
        ".incbin \"" TCH_VIEWER_BUNDLE_PATH "\"\n"
        "cli_viewer_bundle_end:\n"
        ".byte 0\n"
        ".previous\n");
extern const char cli_viewer_bundle_start[] __asm__("cli_viewer_bundle_start");
extern const char cli_viewer_bundle_end[] __asm__("cli_viewer_bundle_end");

const char* cli_viewer_bundle(size_t* size) {
    *size = (size_t)(cli_viewer_bundle_end - cli_viewer_bundle_start);
    return cli_viewer_bundle_start;
}
#else
const char* cli_viewer_bundle(size_t* size) {
    *size = 0;
    return NULL;
}
#endif
