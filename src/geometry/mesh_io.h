/* Surface mesh readers: Wavefront OBJ (v lines; faces are not needed for a hull, and are read
 * by tch_mesh_surface_read, geometry/mesh_surface.h, when the surface is) and STL,
 * binary or ASCII (told apart by content: a binary file whose size matches 84 + 50 n is binary
 * even if it begins with "solid").
 *
 * The public entry point is tch_mesh_read_vertices (touche/io.h). The buffer variant is what
 * the fuzz targets call. Errors name the file and the line (OBJ, ASCII STL) or the triangle
 * index (binary STL) and say what was expected.
 */
#pragma once

#include "touche/io.h"

/* Reads from memory; `name` is the file name used in errors; `format_hint` is the file
 * extension without dot ("obj", "stl") or NULL to guess from content. */
tch_status tch_mesh_read_vertices_buffer(const char* bytes, size_t size, const char* name,
                                         const char* format_hint, tch_vec3** vertices,
                                         int* count, tch_error* err);
