/* A rigid mesh geom's own triangle surface for the pressure model, instead of its convex hull
 * (docs/pressure-meshes.md, "Rigid triangle meshes").
 *
 * With B rigid, the contact surface of the pressure model is the part of B's boundary inside
 * the compliant body A, with A's pressure p_A = E_A ε_A sampled on it (Elandt et al. 2019, the
 * limit E_B -> ∞ of eq. 15: E_A ε_A = E_B ε_B forces ε_B -> 0). Nothing in that limit needs B
 * to be convex: tch_pressure_surface_rigid clips every triangle of any closed surface by the
 * tets it meets. So a rigid mesh geom keeps the triangles of its file (a bowl keeps its
 * hollow), placed in the geom's frame as the compiler placed its hull: the file's vertices
 * scaled, then expressed in the mesh's inertial frame I. The broad phase, the mass properties
 * and the other contact models still use the hull.
 */
#pragma once

#include "geometry/mesh_surface.h"
#include "touche/base.h"

/* Relative difference of the mesh's and its hull's volumes below which the mesh is its hull
 * (convex), so the hull's planes give the pair's elastic energy. */
#define TCH_PRESSURE_CONVEX_VOLUME_TOLERANCE 1e-9

/* The closed surface of mesh file `file` in the geom frame: checked closed and turned outward
 * in the file's frame (tch_mesh_surface_make_closed), then its vertices v_M ⊙ scale expressed
 * in I by X_MI (rewound when the scale mirrors). A file with vertices only (no
 * faces) gives a surface with no triangles: the caller keeps the hull. *convex is 1 when the
 * enclosed volume equals hull_volume within TCH_PRESSURE_CONVEX_VOLUME_TOLERANCE. Errors name
 * the file: TCH_ERR_IO, TCH_ERR_PARSE, TCH_ERR_INVALID_ARGUMENT (not closed, not consistently
 * oriented), TCH_ERR_OUT_OF_MEMORY. */
tch_status tch_pressure_rigid_mesh_read(const char* file, tch_vec3 scale, tch_transform X_MI,
                                        tch_real hull_volume, tch_mesh_surface* out, int* convex,
                                        tch_error* err);
