/// @file
/// Tetrahedral meshes with a pressure field: the geometry of the `pressure` contact model
/// (Elandt et al. 2019, sec. VI-A), for users who load, make, inspect or convert them outside a
/// scene. A scene names its meshes with `touche:tetmesh` (docs/pressure-meshes.md); this API is
/// for tools and tests.
///
/// A mesh is a solid cut into tets with positive orientation (det[v1 - v0, v2 - v0, v3 - v0] > 0)
/// and a penetration extent ε per vertex: 0 on the surface, up to 1 inside. The pressure field of
/// a contact is p₀ = E ε with E the hydroelastic modulus. Every mesh this API returns has a field:
/// a file or arrays without one get the Laplace field of sec. VI-A2, eq. 4 (harmonic, 0 on the
/// surface, 1 on the vertices farthest from it in edges).
///
/// Ownership: each `tch_tetmesh*` from a create function belongs to the caller, who frees it with
/// tch_tetmesh_destroy. Accessors return pointers into the mesh, valid until it is destroyed.
/// Errors: functions return a status and fill `err` (may be NULL); input errors name the file and
/// line, or the offending tet, face, edge or vertex.
#pragma once

#include <stdbool.h>

#include "touche/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tch_tetmesh tch_tetmesh;

/// Shapes that tch_tetmesh_create_shape meshes, all about the origin of their frame.
typedef enum tch_tetmesh_shape {
    TCH_TETMESH_SPHERE = 0,   ///< size[0] = radius
    TCH_TETMESH_ELLIPSOID,    ///< size = the three radii
    TCH_TETMESH_BOX,          ///< size = the three half-extents
    TCH_TETMESH_CYLINDER,     ///< axis z; size[0] = radius, size[1] = half height
    TCH_TETMESH_CAPSULE,      ///< axis z; size[0] = radius, size[1] = half length of the segment
} tch_tetmesh_shape;

/// Reads a tet mesh from a VTK legacy ASCII unstructured grid (.vtk) or a Gmsh ASCII file (.msh,
/// versions 2 and 4.1), told apart by content. A point field whose name contains "epsilon" (or
/// else "pressure", divided by its maximum) is the field; without one the Laplace field is
/// computed. Errors: TCH_ERR_IO (unreadable), TCH_ERR_PARSE / TCH_ERR_INVALID_ARGUMENT with
/// file:line (malformed file, inverted or flat tets, non-manifold boundary, ε not 0 on the
/// surface), TCH_ERR_UNSUPPORTED (binary files).
TCH_API tch_status tch_tetmesh_load(const char* path, tch_tetmesh** out, tch_error* err);

/// Writes the mesh and its field (as point data "epsilon"): VTK legacy when `path` ends in .vtk,
/// Gmsh 4.1 when it ends in .msh. The file appears only when complete (written under a
/// temporary name and renamed). Other extensions: TCH_ERR_INVALID_ARGUMENT.
TCH_API tch_status tch_tetmesh_save(const tch_tetmesh* mesh, const char* path, tch_error* err);

/// A mesh from arrays: `vertices` [3 * vertex_count] (m, x y z per vertex), `tets`
/// [4 * tet_count] (vertex indices), `epsilon` [vertex_count] or NULL for the Laplace field.
/// The arrays are copied and validated as tch_tetmesh_load's files are.
TCH_API tch_status tch_tetmesh_create(const tch_real* vertices, int vertex_count, const int* tets,
                              int tet_count, const tch_real* epsilon, tch_tetmesh** out,
                              tch_error* err);

/// A mesh of a primitive with its exact gauge field (for a sphere ε = 1 - r/R, linear in depth)
/// and tets of about `resolution` m along the surface and the depth (0: the coarsest mesh; a box
/// at the coarsest is the paper's 12 tets around its centre). With `layer` > 0 only the outer
/// `layer` m are compliant, over a rigid core where ε = 1 (spheres and boxes only; 0: none).
/// Errors: sizes not positive, a layer not thinner than the shape, a layer on another shape
/// (TCH_ERR_INVALID_ARGUMENT / TCH_ERR_UNSUPPORTED).
TCH_API tch_status tch_tetmesh_create_shape(tch_tetmesh_shape shape, const tch_real size[3],
                                    tch_real resolution, tch_real layer, tch_tetmesh** out,
                                    tch_error* err);

/// Frees a mesh; NULL is allowed.
TCH_API void tch_tetmesh_destroy(tch_tetmesh* mesh);

TCH_API int tch_tetmesh_vertex_count(const tch_tetmesh* mesh);
TCH_API int tch_tetmesh_tet_count(const tch_tetmesh* mesh);
/// Boundary (surface) triangles.
TCH_API int tch_tetmesh_face_count(const tch_tetmesh* mesh);
/// [vertex_count] vertex positions, m, in the mesh frame.
TCH_API const tch_vec3* tch_tetmesh_vertices(const tch_tetmesh* mesh);
/// [4 * tet_count] vertex indices, four per tet.
TCH_API const int* tch_tetmesh_tets(const tch_tetmesh* mesh);
/// [vertex_count] penetration extent ε in [0, 1].
TCH_API const tch_real* tch_tetmesh_epsilon(const tch_tetmesh* mesh);
/// Sum of the tet volumes, m^3.
TCH_API tch_real tch_tetmesh_volume(const tch_tetmesh* mesh);

struct tch_model;

/// The tet mesh, in the geom frame, that the pressure model of a compiled model uses for geom
/// `geom`, and its hydroelastic modulus E in *modulus (may be NULL): the geom's pressure field is
/// p₀ = E ε. NULL (and *modulus untouched) when the geom is not compliant for the pressure model
/// (rigid, a plane, out of range, or no pair of the scene runs the pressure model). The mesh
/// belongs to the model.
TCH_API const tch_tetmesh* tch_model_geom_tetmesh(const struct tch_model* model, int geom,
                                                  tch_real* modulus);

#ifdef __cplusplus
}
#endif
