/* libFuzzer target: bytes read as OBJ, then the convex hull of their vertices, and as a
 * triangle surface checked for closedness (geometry/mesh_surface.h). */
#include <stddef.h>
#include <stdint.h>

#include "geometry/hull.h"
#include "geometry/mesh_surface.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    tch_convex_hull hull;
    tch_error err;
    if (tch_hull_from_mesh_buffer((const char*)data, size, "fuzz.obj", "obj", &hull, &err) ==
        TCH_OK) {
        tch_hull_free(&hull);
    }
    tch_mesh_surface surface;
    if (tch_mesh_surface_read_buffer((const char*)data, size, "fuzz.obj", "obj", &surface,
                                     &err) == TCH_OK) {
        tch_mesh_surface_make_closed(&surface, "fuzz.obj", &err);
        tch_mesh_surface_free(&surface);
    }
    return 0;
}
