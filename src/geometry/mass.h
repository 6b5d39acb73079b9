/* Mass properties of shapes of uniform density, about the centre of mass, in geom axes.
 * Closed forms for primitives; the divergence-theorem integration of Mirtich (1996) /
 * Eberly for convex hulls (tetrahedra fanned from a point, summed exactly).
 */
#pragma once

#include "geometry/shape.h"

typedef struct tch_mass_properties {
    tch_real mass;      /* kg */
    tch_vec3 p_GCm;     /* centre of mass in the geom frame, m */
    tch_mat3 I_GCm;     /* rotational inertia about the centre of mass, geom axes, kg m^2 */
} tch_mass_properties;

/* Volume of the shape, m^3 (INFINITY for a plane). */
tch_real tch_shape_volume(const tch_shape* shape);

/* Mass properties for uniform `density` (kg/m^3). Fails with TCH_ERR_INVALID_ARGUMENT for a
 * plane, a non-positive density or a degenerate shape. */
tch_status tch_shape_mass_properties(const tch_shape* shape, tch_real density,
                                     tch_mass_properties* out, tch_error* err);

/* Moves mass properties given in frame G to frame B, given X_BG (parallel-axis theorem not
 * applied: the result is still about the centre of mass, now expressed in B). */
tch_mass_properties tch_mass_properties_transform(tch_mass_properties m, tch_transform X_BG);

/* Combines several bodies' mass properties (all expressed in one frame) into one: total
 * mass, composite centre of mass and inertia about it (parallel-axis theorem). */
tch_mass_properties tch_mass_properties_combine(const tch_mass_properties* parts, int count);
