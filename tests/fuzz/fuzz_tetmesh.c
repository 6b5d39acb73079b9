/* libFuzzer target: bytes read as a tet mesh file (VTK legacy or Gmsh, told by content). */
#include <stddef.h>
#include <stdint.h>

#include "geometry/tetmesh.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    tch_tetmesh mesh;
    tch_tetmesh_file_info info;
    tch_error err;
    if (tch_tetmesh_read_buffer((const char*)data, size, "fuzz.vtk", &mesh, &info, &err) ==
        TCH_OK) {
        tch_tetmesh_free(&mesh);
    }
    return 0;
}
