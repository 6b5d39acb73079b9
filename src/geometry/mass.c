#include "geometry/mass.h"

#include <math.h>

#include "base/error.h"
#include "geometry/hull.h"
#include "math/spatial.h"
#include "math/vec.h"

static const tch_real pi = 3.14159265358979323846;

/* Hemisphere of radius r: volume 2/3 pi r^3, centre of mass 3r/8 from the flat face. */
static tch_real hemisphere_volume(tch_real r) {
    return 2.0 / 3.0 * pi * r * r * r;
}

/* Closed-form volumes: sphere 4/3 pi r^3, capsule pi r^2 (2h) + 4/3 pi r^3, ellipsoid
 * 4/3 pi abc, cylinder pi r^2 (2h), box 8 abc (half-extents). */
tch_real tch_shape_volume(const tch_shape* shape) {
    const tch_real* s = shape->size;
    switch (shape->type) {
    case TCH_GEOM_SPHERE:
        return 2 * hemisphere_volume(s[0]);
    case TCH_GEOM_CAPSULE:
        return pi * s[0] * s[0] * 2 * s[1] + 2 * hemisphere_volume(s[0]);
    case TCH_GEOM_ELLIPSOID:
        return 4.0 / 3.0 * pi * s[0] * s[1] * s[2];
    case TCH_GEOM_CYLINDER:
        return pi * s[0] * s[0] * 2 * s[1];
    case TCH_GEOM_BOX:
        return 8 * s[0] * s[1] * s[2];
    case TCH_GEOM_MESH:
        return shape->hull ? shape->hull->volume : 0;
    case TCH_GEOM_PLANE:
    case TCH_GEOM_TYPE_END:
        break;
    }
    return INFINITY;
}

static tch_mat3 diagonal(tch_real xx, tch_real yy, tch_real zz) {
    return tch_m3_diag(tch_v3(xx, yy, zz));
}

/* Capsule of radius r, half-length h, mass m (uniform density rho):
 *   cylinder  m_c = rho pi r^2 2h:  I_xx = m_c (3 r^2 + 4 h^2) / 12,  I_zz = m_c r^2 / 2
 *   each hemisphere m_h = rho 2/3 pi r^3, centre at z = +-(h + 3r/8); about its flat face
 *   centre I_xx = 2/5 m_h r^2, so about its own centre 2/5 m_h r^2 - m_h (3r/8)^2, and about
 *   the capsule centre (parallel axis, d = h + 3r/8)
 *     I_xx = m_h (2/5 r^2 - 9/64 r^2 + (h + 3r/8)^2) = m_h (2/5 r^2 + h^2 + 3/4 h r),
 *   I_zz = 2/5 m_h r^2. */
static tch_mat3 capsule_inertia(tch_real density, tch_real r, tch_real h) {
    tch_real m_c = density * pi * r * r * 2 * h;
    tch_real m_h = density * hemisphere_volume(r);
    tch_real ixx =
        m_c * (3 * r * r + 4 * h * h) / 12 + 2 * m_h * (0.4 * r * r + h * h + 0.75 * h * r);
    tch_real izz = m_c * r * r / 2 + 2 * 0.4 * m_h * r * r;
    return diagonal(ixx, ixx, izz);
}

/* Closed forms about the centre, principal axes = geom axes (m = rho V):
 *   sphere 2/5 m r^2; ellipsoid I_xx = m (b^2 + c^2) / 5; box I_xx = m (b^2 + c^2) / 3 for
 *   half-extents; cylinder I_xx = m (3 r^2 + 4 h^2) / 12, I_zz = m r^2 / 2. */
static tch_mat3 primitive_inertia(const tch_shape* shape, tch_real m, tch_real density) {
    const tch_real* s = shape->size;
    tch_real a2 = s[0] * s[0], b2 = s[1] * s[1], c2 = s[2] * s[2];
    switch (shape->type) {
    case TCH_GEOM_SPHERE:
        return tch_m3_scale(tch_m3_identity(), 0.4 * m * a2);
    case TCH_GEOM_ELLIPSOID:
        return diagonal(m * (b2 + c2) / 5, m * (a2 + c2) / 5, m * (a2 + b2) / 5);
    case TCH_GEOM_BOX:
        return diagonal(m * (b2 + c2) / 3, m * (a2 + c2) / 3, m * (a2 + b2) / 3);
    case TCH_GEOM_CYLINDER: {
        tch_real ixx = m * (3 * a2 + 4 * b2) / 12;
        return diagonal(ixx, ixx, m * a2 / 2);
    }
    case TCH_GEOM_CAPSULE:
        return capsule_inertia(density, s[0], s[1]);
    case TCH_GEOM_PLANE:
    case TCH_GEOM_MESH:
    case TCH_GEOM_TYPE_END:
        break;
    }
    return tch_m3_zero();
}

/* Solid of second moment S about its centroid: I = rho (tr(S) 1 - S). */
static tch_mass_properties hull_mass_properties(const tch_convex_hull* hull, tch_real density) {
    tch_real volume;
    tch_vec3 centroid;
    tch_mat3 S;
    tch_hull_volume_moments(hull, &volume, &centroid, &S);
    tch_real trace = S.m[0][0] + S.m[1][1] + S.m[2][2];
    tch_mat3 I = tch_m3_scale(
        tch_m3_add(tch_m3_scale(tch_m3_identity(), trace), tch_m3_scale(S, -1)), density);
    return (tch_mass_properties){density * volume, centroid, I};
}

tch_status tch_shape_mass_properties(const tch_shape* shape, tch_real density,
                                     tch_mass_properties* out, tch_error* err) {
    char why[256];
    if (shape->type == TCH_GEOM_PLANE) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "a plane has no mass properties (infinite volume); give its body an "
                        "explicit inertial or make it static");
    }
    if (!(isfinite(density) && density > 0)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "density must be > 0 and finite, got %g", density);
    }
    if (tch_shape_validate(shape, why, sizeof why)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "%s", why);
    }
    if (shape->type == TCH_GEOM_MESH) {
        *out = hull_mass_properties(shape->hull, density);
        if (!(out->mass > 0)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "mesh hull has volume %g; expected a positive volume",
                            shape->hull->volume);
        }
        return TCH_OK;
    }
    tch_real mass = density * tch_shape_volume(shape);
    *out = (tch_mass_properties){mass, tch_v3_zero(), primitive_inertia(shape, mass, density)};
    return TCH_OK;
}

static tch_spatial_inertia to_spatial(tch_mass_properties m) {
    return (tch_spatial_inertia){m.mass, m.p_GCm, m.I_GCm};
}

static tch_mass_properties from_spatial(tch_spatial_inertia I) {
    return (tch_mass_properties){I.mass, I.p_Cm, I.I_Cm};
}

tch_mass_properties tch_mass_properties_transform(tch_mass_properties m, tch_transform X_BG) {
    return from_spatial(tch_si_transform(tch_sx_from_transform(X_BG), to_spatial(m)));
}

tch_mass_properties tch_mass_properties_combine(const tch_mass_properties* parts, int count) {
    tch_spatial_inertia total = {0, {0, 0, 0}, tch_m3_zero()};
    for (int i = 0; i < count; ++i) {
        total = tch_si_add(total, to_spatial(parts[i]));
    }
    return from_spatial(total);
}
