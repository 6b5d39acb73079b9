/* The pressure field model's compile-time part: each geom's body for the model (the model
 * itself is tch_pressure_ops in contact/contact.h).
 *
 *     compliant geom:  a tet mesh in the geom frame with its penetration extent ε (from a
 *                      touche:tetmesh file, its Laplace field when the file has none, or the
 *                      generator of the geom's shape; a touche:layer over a rigid core for
 *                      boxes and spheres), a BVH over its tets, and its modulus E
 *     rigid geom:      its closed surface (triangles of the geom's hull, boxes exact, curved
 *                      primitives inscribed at the geom's resolution) with a BVH, and the
 *                      planes of that convex hull for the elastic energy
 *     plane:           a rigid half-space, made into a box around the other geom per pair
 *
 * A pair of two rigid geoms has no pressure field: tch_model_pair_params gives it the point
 * model, which `touche info` shows.
 */
#pragma once

#include "contact/pair_state.h"
#include "geometry/tetmesh.h"
#include "touche/data.h"
#include "touche/model.h"

/* Hydroelastic modulus of a compliant geom that sets none, Pa: a hard rubber or plastic
 * (Drake's default hydroelastic modulus too). A 1 kg block of 10 cm on a rigid floor sinks
 * 5 µm; such a contact rings at about 1 kHz, which the implicit integrator takes at any step
 * (docs/contact-pressure.md, "Defaults"). With an explicit integrator a geom of a free body
 * gets the smaller of this and a modulus derived from its mass and the time step (pressure.c),
 * which that integrator can take. */
#define TCH_PRESSURE_DEFAULT_MODULUS 1e7

/* Hunt-Crossley dissipation χ of a pressure pair that sets none, s/m: p = p₀ (1 - χ v_n), so an
 * impact at v₀ restitutes e ≈ 1 - (2/3) χ v₀ (0.93 at 0.1 m/s, 0.67 at 0.5 m/s; none from
 * about 1.5 m/s). */
#define TCH_PRESSURE_DEFAULT_DISSIPATION 1.0

/* Whether geom g is rigid for the pressure model (planes always are). */
int tch_pressure_geom_is_rigid(const tch_model* model, int geom);

/* Attaches to a mesh without a field (e.g. read from a file) the Laplace field of sec. VI-A2,
 * eq. 4: harmonic, 0 on the boundary and 1 on the vertices farthest (in edges) from it.
 * Fails when the mesh has no interior vertex. Used by the model and by `touche mesh`. */
tch_status tch_pressure_default_field(tch_tetmesh* mesh, tch_error* err);

/* The secant of the regularized Coulomb law of eq. 7 per unit load, μ(s) / √(s² + v_s²), s/m:
 * a polygon of load F_n at slip v_t (speed s) carries f = -F_n (this) v_t. */
tch_real tch_pressure_friction_secant(const tch_pair_params* params, tch_real slip);

/* A pressure pair's regularized friction (implicit integrator) lumped into one point, for the
 * haptic pointer's local model (docs/haptics.md): the polygons' total load Σ F_n, the sum of
 * their secants Σ c (the linearization's damper across the tangent plane for a translation),
 * their centroid weighted by c (where that damper's resultant acts) and their load-weighted
 * mean normal, from the data of the step's start and the pair's state (the polygons' loads
 * scaled to the normal force the step applies). 0 when the pair has no such friction (not a
 * pressure pair, another integrator, no load). */
typedef struct tch_pressure_friction_lump {
    tch_vec3 centre, normal;
    tch_real load;   /* N */
    tch_real secant; /* N s/m */
} tch_pressure_friction_lump;
int tch_pressure_lump_friction(const tch_model* model, const tch_data* data,
                               const tch_pair_result* pair, const tch_pair_state* state,
                               tch_pressure_friction_lump* out);
