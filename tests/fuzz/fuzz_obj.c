/* libFuzzer target: bytes read as OBJ, then the convex hull of their vertices. */
#include <stddef.h>
#include <stdint.h>

#include "geometry/hull.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    tch_convex_hull hull;
    tch_error err;
    if (tch_hull_from_mesh_buffer((const char*)data, size, "fuzz.obj", "obj", &hull, &err) ==
        TCH_OK) {
        tch_hull_free(&hull);
    }
    return 0;
}
