/* A mesh file's triangle surface, not only its vertices: for a rigid geom whose true
 * (possibly non-convex) surface matters (the pressure model's rigid meshes,
 * docs/pressure-meshes.md, "Rigid triangle meshes").
 *
 * Reading (mesh_io.c): OBJ "v" and "f" lines (a face of k corners is fanned into k - 2
 * triangles; "i", "i/t", "i//n", "i/t/n" and negative, relative, indices) and STL (binary or
 * ASCII, three corners per facet). Vertices at exactly the same position are welded, so an
 * STL's repeated corners and an OBJ's duplicated positions become one vertex; triangles that
 * welding collapses (two equal corners) are dropped.
 *
 * Checking (mesh_surface.c): a closed, consistently oriented 2-manifold: every edge is shared
 * by exactly two triangles that run it in opposite directions. The enclosed volume (divergence
 * theorem) must be positive; a surface wound inward (negative volume) is turned outward.
 * Errors name the file, the edge or triangle, and what was expected.
 */
#pragma once

#include "touche/base.h"

typedef struct tch_mesh_surface {
    tch_vec3* vertices; /* [vertex_count] in the file's frame, m */
    int vertex_count;
    int (*triangles)[3]; /* [triangle_count], counter-clockwise seen from outside once checked */
    int triangle_count;
} tch_mesh_surface;

/* Reads the triangles of an OBJ or STL file (format from the extension, as
 * tch_mesh_read_vertices). A file with vertices but no faces (an OBJ of "v" lines only) reads
 * as a surface with no triangles. Errors: TCH_ERR_IO, TCH_ERR_PARSE with the file and line,
 * TCH_ERR_OUT_OF_MEMORY. On failure *out is empty. */
tch_status tch_mesh_surface_read(const char* path, tch_mesh_surface* out, tch_error* err);
/* The same from memory; `name` is used in errors, `format_hint` "obj", "stl" or NULL. */
tch_status tch_mesh_surface_read_buffer(const char* bytes, size_t size, const char* name,
                                        const char* format_hint, tch_mesh_surface* out,
                                        tch_error* err);

/* Checks that the surface is closed and consistently oriented (above) and turns it outward
 * when it encloses a negative volume. `name` (the file) is used in the messages. Errors:
 * TCH_ERR_INVALID_ARGUMENT naming the first bad edge, or a volume that is not positive;
 * TCH_ERR_OUT_OF_MEMORY. */
tch_status tch_mesh_surface_make_closed(tch_mesh_surface* surface, const char* name,
                                        tch_error* err);

/* The volume enclosed, m³: Σ a · (b × c) / 6 over the triangles (divergence theorem). Exact for
 * a closed surface whatever its shape; positive when wound counter-clockwise seen from
 * outside. */
tch_real tch_mesh_surface_volume(const tch_mesh_surface* surface);

/* Reverses every triangle's winding (after a mirroring transform, say). */
void tch_mesh_surface_flip(tch_mesh_surface* surface);

void tch_mesh_surface_free(tch_mesh_surface* surface);
