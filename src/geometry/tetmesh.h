/* Tetrahedral volume meshes with a penetration-extent field: the geometry of the `pressure`
 * contact model (Elandt et al. 2019, sec. VI-A).
 *
 * A tch_tetmesh is a solid in its geom frame G, cut into tetrahedra (tets) that share whole
 * faces. Each vertex V carries the penetration extent ε^V ∈ [0, 1]: 0 on the surface, rising to
 * 1 deep inside (at the medial set or on a rigid core); inside a tet ε is the linear
 * interpolation of its four vertex values, so the pressure field of the paper is p₀ = E ε with E
 * the hydroelastic modulus (Pa). Stored with it:
 *
 *     tet_gradient_G[t]     ∇ε on tet t (constant, 1/m), exact for the linear interpolation
 *     vertex_gradient_G[v]  the paper's approximate gradient ∇̃ε at a vertex: the
 *                           volume-weighted mean of ∇ε over the tets around v
 *     faces / face_tet      the boundary: faces used by exactly one tet, ordered
 *                           counter-clockwise seen from outside, with the tet that owns each
 *
 * Data flow: arrays (from a generator in tetmesh_gen.c, a .vtk/.msh reader in tetmesh_io.c, or a
 * caller) -> tch_tetmesh_build, which copies and validates them and derives the boundary, the
 * volume and, when a field is given, the gradients. A mesh read without a field keeps
 * has_field = false; the Laplace solve (sec. VI-A2) attaches one later with
 * tch_tetmesh_set_field. A BVH over the tets (geometry/bvh.h) takes tch_tetmesh_tet_boxes.
 *
 * Validation (TCH_ERR_INVALID_ARGUMENT, the message names the tet, face, edge or vertex):
 *   - every index in [0, vertex_count), every vertex used by some tet, coordinates finite;
 *   - positive orientation: det[v1 - v0, v2 - v0, v3 - v0] = 6 V > 0; a tet is rejected as
 *     inverted when 6 V < -tol and as flat (zero volume) when |6 V| <= tol, with
 *     tol = TCH_TETMESH_VOLUME_TOLERANCE * (its longest edge)^3;
 *   - a face is shared by at most two tets, which lie on opposite sides of it;
 *   - the boundary is a closed 2-manifold: each boundary edge is used by exactly two
 *     boundary faces;
 *   - ε finite and in [0, 1], and 0 on every boundary vertex (solid meshes; for a slab only
 *     on the top surface), each within TCH_TETMESH_FIELD_TOLERANCE; values within the
 *     tolerance are snapped to the bound.
 *
 * Rejected options: storing tets with either orientation and fixing them silently (a file with
 * inverted tets is usually a broken export, better reported); a half-edge structure (nothing
 * downstream walks the surface; the contact code needs only tets, faces and gradients).
 */
#pragma once

#include <stdbool.h>

#include "geometry/shape.h"

/* Relative tolerance on 6 V against the cube of the tet's longest edge (a regular tet has
 * 6 V / L^3 = 1/√2 ≈ 0.71). */
#define TCH_TETMESH_VOLUME_TOLERANCE 1e-10
/* Absolute tolerance on ε for the bounds [0, 1] and the boundary value 0. */
#define TCH_TETMESH_FIELD_TOLERANCE 1e-9

typedef enum tch_tetmesh_kind {
    TCH_TETMESH_SOLID = 0, /* a closed object: ε = 0 on its whole boundary */
    TCH_TETMESH_SLAB = 1,  /* a piece of a half-space: only the top boundary (the faces on the
                              plane z = max z) is the surface, where ε = 0; the sides and the
                              bottom stand for material that goes on, ε may be > 0 there */
} tch_tetmesh_kind;

typedef struct tch_tetmesh {
    tch_tetmesh_kind kind;
    int vertex_count;
    tch_vec3* vertices_G;           /* [vertex_count] m */
    int tet_count;
    int (*tets)[4];                 /* [tet_count] vertex indices, det[v1-v0, v2-v0, v3-v0] > 0 */
    bool has_field;                 /* false: read from a file without a field */
    tch_real* epsilon;              /* [vertex_count] penetration extent in [0, 1], or NULL */
    tch_vec3* tet_gradient_G;       /* [tet_count] ∇ε, 1/m, or NULL without a field */
    tch_vec3* vertex_gradient_G;    /* [vertex_count] ∇̃ε, 1/m, or NULL without a field */
    int face_count;
    int (*faces)[3];                /* [face_count] boundary faces, counter-clockwise outside */
    int* face_tet;                  /* [face_count] the tet each boundary face belongs to */
    unsigned char* vertex_on_boundary; /* [vertex_count] 1 for a vertex of a boundary face */
    tch_real volume;                /* m^3, sum of the tet volumes */
    tch_aabb bounds_G;              /* box of the vertices */
} tch_tetmesh;

/* ---- building and the field (tetmesh.c) ---- */

/* Copies the arrays into *out, validates them as described above and computes the boundary,
 * the volume and the bounds, and with `epsilon` (may be NULL: no field) the gradients.
 * On failure *out is left empty (all zero) and err names the offending tet/face/edge/vertex. */
tch_status tch_tetmesh_build(tch_tetmesh_kind kind, const tch_vec3* vertices_G, int vertex_count,
                             const int (*tets)[4], int tet_count, const tch_real* epsilon,
                             tch_tetmesh* out, tch_error* err);
/* Frees the arrays and zeroes *mesh. NULL and an empty mesh are allowed. */
void tch_tetmesh_free(tch_tetmesh* mesh);
/* Deep copy into *dst (which is overwritten, not freed). */
tch_status tch_tetmesh_copy(const tch_tetmesh* src, tch_tetmesh* dst, tch_error* err);

/* Validates `epsilon` [vertex_count] for this mesh, stores a copy (replacing any field) and
 * computes the tet and vertex gradients. On failure the mesh is unchanged. */
tch_status tch_tetmesh_set_field(tch_tetmesh* mesh, const tch_real* epsilon, tch_error* err);

/* 6 V = det[v1 - v0, v2 - v0, v3 - v0]: six times the signed volume. */
tch_real tch_tet_volume6(tch_vec3 v0, tch_vec3 v1, tch_vec3 v2, tch_vec3 v3);
/* Gradient of the linear function with values f[i] at the corners v[i]:
 *     ∇f = (d₁ e₂×e₃ + d₂ e₃×e₁ + d₃ e₁×e₂) / (e₁ · e₂×e₃),  eᵢ = vᵢ - v₀, dᵢ = fᵢ - f₀.
 * @pre the tet is not flat. */
tch_vec3 tch_tet_gradient(const tch_vec3 v[4], const tch_real f[4]);
/* Barycentric coordinates b[4] of p in the tet (sum 1; all in [0, 1] when p is inside):
 *     bᵢ = (p - v₀) · (eⱼ × eₖ) / (e₁ · e₂×e₃) for (i, j, k) cyclic in 1..3, b₀ = 1 - b₁ - b₂ - b₃.
 * @pre the tet is not flat. */
void tch_tet_barycentric(const tch_vec3 v[4], tch_vec3 p, tch_real b[4]);
/* The corners of tet t. */
void tch_tetmesh_tet_vertices(const tch_tetmesh* mesh, int t, tch_vec3 v[4]);

/* Sum of the tet volumes, m^3 (also kept in mesh->volume). */
tch_real tch_tetmesh_volume(const tch_tetmesh* mesh);
/* ε at p_G by barycentric interpolation in tet t (p outside the tet extrapolates linearly).
 * @pre mesh->has_field. */
tch_real tch_tetmesh_epsilon_at(const tch_tetmesh* mesh, int t, tch_vec3 p_G);
/* Boxes of the tets [tet_count] and of the boundary faces [face_count], for tch_bvh_build. */
void tch_tetmesh_tet_boxes(const tch_tetmesh* mesh, tch_aabb* boxes_G);
void tch_tetmesh_face_boxes(const tch_tetmesh* mesh, tch_aabb* boxes_G);

/* ---- files (tetmesh_io.c) ----
 *
 * VTK legacy ASCII unstructured grids (.vtk; version 2.0-4.2 CELLS layout and 5.1 OFFSETS /
 * CONNECTIVITY layout), every cell of type 10 (tetra); and Gmsh .msh ASCII, versions 2.x and
 * 4.1 (elements of type 4, the 4-node tet; other elements are ignored, as are nodes only they
 * use). The field is the point scalar (VTK SCALARS or a one-component FIELD array; Gmsh
 * $NodeData) whose name contains "epsilon", else the one whose name contains "pressure", else
 * the first. A "pressure" field is in Pa (as Drake writes it): it is divided by its maximum,
 * which is returned in info->field_scale (the modulus E when the largest ε is 1). A file with no
 * field gives a mesh with has_field = false. Errors name the file and line and say what was
 * expected; the mesh validation errors name the file with line 0. Binary files are
 * TCH_ERR_UNSUPPORTED. Writers use %.17g, so a write/read round trip is exact. */

typedef enum tch_tetmesh_format {
    TCH_TETMESH_FORMAT_VTK = 0,
    TCH_TETMESH_FORMAT_GMSH2 = 1, /* .msh version 2.2 ASCII */
    TCH_TETMESH_FORMAT_GMSH4 = 2, /* .msh version 4.1 ASCII */
} tch_tetmesh_format;

typedef struct tch_tetmesh_file_info {
    tch_tetmesh_format format;
    char field_name[64];     /* name of the field used, "" when none */
    tch_real field_scale;    /* ε = file value / field_scale (1 unless a pressure field) */
} tch_tetmesh_file_info;

/* Reads a .vtk or .msh file (told apart by content, so the extension does not matter).
 * `info` may be NULL. The mesh is a TCH_TETMESH_SOLID. */
tch_status tch_tetmesh_read(const char* path, tch_tetmesh* out, tch_tetmesh_file_info* info,
                            tch_error* err);
/* The same from bytes in memory (need not be NUL-terminated); `name` is used in errors. */
tch_status tch_tetmesh_read_buffer(const char* bytes, size_t size, const char* name,
                                   tch_tetmesh* out, tch_tetmesh_file_info* info,
                                   tch_error* err);
/* Formats the mesh (and its field as "epsilon", when present) into a malloc'ed NUL-terminated
 * text *text of *size bytes, owned by the caller. */
tch_status tch_tetmesh_format_text(const tch_tetmesh* mesh, tch_tetmesh_format format,
                                   char** text, size_t* size, tch_error* err);
/* Writes the file (to a temporary name, renamed when complete). */
tch_status tch_tetmesh_write(const tch_tetmesh* mesh, tch_tetmesh_format format, const char* path,
                             tch_error* err);

/* ---- generators (tetmesh_gen.c) ----
 *
 * Each takes a resolution hint: the target edge length (m) on the surface and along the depth;
 * resolution <= 0 or larger than the shape gives the coarsest mesh. All but the slab and the
 * convex polytope are nested shells about the origin: a triangulated surface (the cube's surface
 * grid mapped onto the shape) scaled by λ = 1/K, 2/K, ..., 1, the innermost shell fanned to the
 * centre, the others joined shell to shell by prisms cut into three tets each. The field is the
 * shape's gauge function about its centre: ε(λ s) = 1 - λ for s on the surface, so ε is linear
 * along each ray from the centre, 0 on the surface and 1 at the centre, exact at the vertices:
 *     sphere     ε = 1 - r/R                          (the paper's field, linear in depth)
 *     ellipsoid  ε = 1 - √((x/a)² + (y/b)² + (z/c)²)
 *     box        ε = 1 - max(|x|/a, |y|/b, |z|/c)     (a cube: depth / half-size; at the
 *                coarsest the paper's 12 tets around the centre, sec. VI-A1)
 *     cylinder   ε = 1 - max(ρ/R, |z|/h)
 *     capsule    ε = 1 - λ(x), λ the scale at which the capsule's surface passes through x
 *     convex     ε = 1 - λ about the hull's centroid (the faces fanned to it, sec. VI-A1)
 * Layers (a compliant layer of thickness t over a rigid core): the core is meshed too, with
 * ε = 1 (so the boundary stays the outer surface and ∇ε = 0 in the core); across the layer
 * ε = depth / t, linear from 0 on the outer surface to 1 on the core boundary. The slab is a
 * regular grid of cubes cut into 6 tets each, with ε = -z / thickness, exactly linear. */

tch_status tch_tetmesh_make_sphere(tch_real radius, tch_real resolution, tch_tetmesh* out,
                                   tch_error* err);
tch_status tch_tetmesh_make_ellipsoid(tch_vec3 radii, tch_real resolution, tch_tetmesh* out,
                                      tch_error* err);
/* half_size: the three half-extents. */
tch_status tch_tetmesh_make_box(tch_vec3 half_size, tch_real resolution, tch_tetmesh* out,
                                tch_error* err);
/* Axis z; half_height as MJCF's cylinder size[1]. */
tch_status tch_tetmesh_make_cylinder(tch_real radius, tch_real half_height, tch_real resolution,
                                     tch_tetmesh* out, tch_error* err);
/* Axis z; half_length of the segment between the two hemisphere centres (MJCF size[1]) > 0. */
tch_status tch_tetmesh_make_capsule(tch_real radius, tch_real half_length, tch_real resolution,
                                    tch_tetmesh* out, tch_error* err);
/* Fanned to the hull's centroid (ε = 1 there); finer resolutions add shells but keep the hull's
 * face triangles. */
tch_status tch_tetmesh_make_convex(const tch_convex_hull* hull, tch_real resolution,
                                   tch_tetmesh* out, tch_error* err);
/* A box of the given half sizes whose outer `thickness` is compliant (0 < t < min half size). */
tch_status tch_tetmesh_make_box_layer(tch_vec3 half_size, tch_real thickness, tch_real resolution,
                                      tch_tetmesh* out, tch_error* err);
/* A sphere whose outer `thickness` is compliant (0 < t < radius). */
tch_status tch_tetmesh_make_sphere_layer(tch_real radius, tch_real thickness, tch_real resolution,
                                         tch_tetmesh* out, tch_error* err);
/* The slab [-hx, hx] x [-hy, hy] x [-thickness, 0] standing for the half-space z <= 0
 * (a TCH_TETMESH_SLAB): ε = -z / thickness, 1 at the bottom. */
tch_status tch_tetmesh_make_slab(tch_real half_x, tch_real half_y, tch_real thickness,
                                 tch_real resolution, tch_tetmesh* out, tch_error* err);
/* The mesh of a geom's shape (sphere, box, cylinder, capsule, ellipsoid, mesh hull); a plane
 * has no extent and is TCH_ERR_UNSUPPORTED here (use tch_tetmesh_make_slab). */
tch_status tch_tetmesh_make_shape(const tch_shape* shape, tch_real resolution, tch_tetmesh* out,
                                  tch_error* err);
