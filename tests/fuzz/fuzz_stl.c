/* libFuzzer target: STL bytes -> tch_mesh_read_vertices_buffer -> tch_hull_build. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "geometry/hull.h"
#include "geometry/mesh_io.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    tch_vec3* vertices = NULL;
    int count = 0;
    tch_error err;
    if (tch_mesh_read_vertices_buffer((const char*)data, size, "fuzz.stl", "stl", &vertices, &count,
                                      &err) == TCH_OK) {
        tch_convex_hull hull;
        if (tch_hull_build(vertices, count, &hull, &err) == TCH_OK) {
            tch_hull_free(&hull);
        }
    }
    free(vertices);
    return 0;
}
