#include "geometry/shape.h"

#include <math.h>
#include <stdio.h>

#include "math/vec.h"

/* A plane normal component below this is taken as zero when deciding whether a plane is
 * axis-aligned (a quarter turn built from a quaternion leaves ~1e-17 behind). */
static const tch_real plane_axis_tolerance = 1e-14;

static tch_aabb aabb_about(tch_vec3 center, tch_vec3 half_extent) {
    return (tch_aabb){tch_v3_sub(center, half_extent), tch_v3_add(center, half_extent)};
}

/* Half-extents of the world box of a geom-frame box h under rotation R: |R| h. */
static tch_vec3 rotated_box_extent(tch_mat3 R, tch_vec3 h) {
    tch_mat3 abs_R;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            abs_R.m[i][j] = fabs(R.m[i][j]);
        }
    }
    return tch_m3_mul_v3(abs_R, h);
}

/* Cylinder of radius r and half-height h along the axis a = R e_z: along world axis i it
 * reaches |a_i| h + r sqrt(1 - a_i^2) (the rim circle's extent). */
static tch_vec3 cylinder_extent(tch_mat3 R, tch_real r, tch_real h) {
    tch_vec3 a = tch_m3_col(R, 2), e;
    for (int i = 0; i < 3; ++i) {
        tch_real ai = tch_v3_get(a, i);
        tch_v3_set(&e, i, fabs(ai) * h + r * sqrt(fmax(0.0, 1 - ai * ai)));
    }
    return e;
}

/* Ellipsoid x^T diag(s)^-2 x <= 1 rotated by R: its support along e_i is
 * |diag(s) R^T e_i| = sqrt(sum_j (R_ij s_j)^2). */
static tch_vec3 ellipsoid_extent(tch_mat3 R, tch_vec3 s) {
    tch_vec3 e;
    for (int i = 0; i < 3; ++i) {
        tch_v3_set(&e, i, tch_v3_norm(tch_v3_mul(tch_m3_row(R, i), s)));
    }
    return e;
}

static tch_aabb hull_aabb(const tch_convex_hull* hull, tch_transform X_WG) {
    tch_aabb box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (int i = 0; i < hull->vertex_count; ++i) {
        tch_vec3 p_W = tch_x_apply(X_WG, hull->vertices_G[i]);
        box.lo = tch_v3_min(box.lo, p_W);
        box.hi = tch_v3_max(box.hi, p_W);
    }
    return box;
}

/* The half-space n . (x - p) <= 0 is bounded only along an axis that n is parallel to. */
static tch_aabb plane_aabb(tch_transform X_WG) {
    tch_vec3 n = tch_q_rotate(X_WG.q, tch_v3(0, 0, 1));
    tch_aabb box = {{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}};
    for (int k = 0; k < 3; ++k) {
        int other_zero = 1;
        for (int j = 0; j < 3; ++j) {
            if (j != k && fabs(tch_v3_get(n, j)) > plane_axis_tolerance) {
                other_zero = 0;
            }
        }
        if (!other_zero) {
            continue;
        }
        if (tch_v3_get(n, k) > 0) {
            tch_v3_set(&box.hi, k, tch_v3_get(X_WG.p, k));
        } else {
            tch_v3_set(&box.lo, k, tch_v3_get(X_WG.p, k));
        }
    }
    return box;
}

static tch_aabb shape_aabb_tight(const tch_shape* shape, tch_transform X_WG) {
    const tch_real* s = shape->size;
    tch_mat3 R = tch_q_to_mat3(X_WG.q);
    switch (shape->type) {
    case TCH_GEOM_SPHERE:
        return aabb_about(X_WG.p, tch_v3(s[0], s[0], s[0]));
    case TCH_GEOM_CAPSULE: {
        tch_vec3 axis = tch_v3_abs(tch_m3_col(R, 2));
        return aabb_about(X_WG.p, tch_v3_add(tch_v3_scale(axis, s[1]), tch_v3(s[0], s[0], s[0])));
    }
    case TCH_GEOM_ELLIPSOID:
        return aabb_about(X_WG.p, ellipsoid_extent(R, tch_v3(s[0], s[1], s[2])));
    case TCH_GEOM_CYLINDER:
        return aabb_about(X_WG.p, cylinder_extent(R, s[0], s[1]));
    case TCH_GEOM_BOX:
        return aabb_about(X_WG.p, rotated_box_extent(R, tch_v3(s[0], s[1], s[2])));
    case TCH_GEOM_MESH:
        return hull_aabb(shape->hull, X_WG);
    case TCH_GEOM_PLANE:
    case TCH_GEOM_TYPE_END:
        break;
    }
    return plane_aabb(X_WG);
}

tch_aabb tch_shape_aabb(const tch_shape* shape, tch_transform X_WG, tch_real margin) {
    tch_aabb box = shape_aabb_tight(shape, X_WG);
    tch_vec3 m = tch_v3(margin, margin, margin);
    return (tch_aabb){tch_v3_sub(box.lo, m), tch_v3_add(box.hi, m)};
}

static tch_real hull_bounding_radius(const tch_convex_hull* hull) {
    tch_real r2 = 0;
    for (int i = 0; i < hull->vertex_count; ++i) {
        r2 = fmax(r2, tch_v3_norm2(hull->vertices_G[i]));
    }
    return sqrt(r2);
}

tch_real tch_shape_bounding_radius(const tch_shape* shape) {
    const tch_real* s = shape->size;
    switch (shape->type) {
    case TCH_GEOM_SPHERE:
        return s[0];
    case TCH_GEOM_CAPSULE:
        return s[0] + s[1];
    case TCH_GEOM_ELLIPSOID:
        return fmax(s[0], fmax(s[1], s[2]));
    case TCH_GEOM_CYLINDER:
        return hypot(s[0], s[1]);
    case TCH_GEOM_BOX:
        return tch_v3_norm(tch_v3(s[0], s[1], s[2]));
    case TCH_GEOM_MESH:
        return hull_bounding_radius(shape->hull);
    case TCH_GEOM_PLANE:
    case TCH_GEOM_TYPE_END:
        break;
    }
    return INFINITY;
}

/* +h where d >= 0, -h elsewhere (a vertex of the box even for a zero component). */
static tch_real signed_extent(tch_real d, tch_real h) {
    return d >= 0 ? h : -h;
}

static tch_vec3 box_support(const tch_real* s, tch_vec3 d) {
    return tch_v3(signed_extent(d.x, s[0]), signed_extent(d.y, s[1]), signed_extent(d.z, s[2]));
}

/* Point of the rim circle of radius r in the xy plane farthest along d (any rim point when
 * d is parallel to z). */
static tch_vec3 disk_support(tch_real r, tch_vec3 d) {
    tch_real radial = hypot(d.x, d.y);
    if (!(radial > 0)) {
        return tch_v3(r, 0, 0);
    }
    return tch_v3(r * d.x / radial, r * d.y / radial, 0);
}

/* argmax over x^T S^-2 x <= 1 of d . x is S^2 d / |S d| (S = diag of the semi-axes). */
static tch_vec3 ellipsoid_support(const tch_real* s, tch_vec3 d) {
    tch_vec3 S = tch_v3(s[0], s[1], s[2]);
    tch_vec3 Sd = tch_v3_mul(S, d);
    return tch_v3_scale(tch_v3_mul(S, Sd), 1 / tch_v3_norm(Sd));
}

/* First vertex of greatest d . v (linear scan: hulls of collision meshes are small). */
static tch_vec3 hull_support(const tch_convex_hull* hull, tch_vec3 d) {
    int best = 0;
    tch_real best_dot = -INFINITY;
    for (int i = 0; i < hull->vertex_count; ++i) {
        tch_real dot = tch_v3_dot(hull->vertices_G[i], d);
        if (dot > best_dot) {
            best_dot = dot;
            best = i;
        }
    }
    return hull->vertices_G[best];
}

tch_vec3 tch_shape_support(const tch_shape* shape, tch_vec3 dir_G) {
    const tch_real* s = shape->size;
    switch (shape->type) {
    case TCH_GEOM_SPHERE:
        return tch_v3_scale(tch_v3_normalize(dir_G), s[0]);
    case TCH_GEOM_CAPSULE:
        return tch_v3_madd(tch_v3(0, 0, signed_extent(dir_G.z, s[1])), s[0],
                           tch_v3_normalize(dir_G));
    case TCH_GEOM_ELLIPSOID:
        return ellipsoid_support(s, dir_G);
    case TCH_GEOM_CYLINDER:
        return tch_v3_add(disk_support(s[0], dir_G), tch_v3(0, 0, signed_extent(dir_G.z, s[1])));
    case TCH_GEOM_BOX:
        return box_support(s, dir_G);
    case TCH_GEOM_MESH:
        return hull_support(shape->hull, dir_G);
    case TCH_GEOM_PLANE:
    case TCH_GEOM_TYPE_END:
        break;
    }
    return tch_v3_zero();
}

static int size_is_positive(tch_real value) {
    return isfinite(value) && value > 0;
}

/* Checks `count` sizes named by `names` (a phrase per entry) for the shape `what`. */
static int check_sizes(const tch_shape* shape, const char* what, const char* const* names,
                       int count, char* why, size_t why_size) {
    for (int i = 0; i < count; ++i) {
        if (!size_is_positive(shape->size[i])) {
            snprintf(why, why_size, "%s %s must be > 0 and finite, got %g", what, names[i],
                     shape->size[i]);
            return 1;
        }
    }
    return 0;
}

static int check_mesh(const tch_shape* shape, char* why, size_t why_size) {
    if (!shape->hull || shape->hull->vertex_count < 4 || shape->hull->face_count < 4) {
        snprintf(why, why_size, "mesh geom needs a convex hull of at least 4 vertices, got %s",
                 shape->hull ? "a degenerate hull" : "none");
        return 1;
    }
    return 0;
}

int tch_shape_validate(const tch_shape* shape, char* why, size_t why_size) {
    static const char* const radius[] = {"radius"};
    static const char* const radius_half[] = {"radius", "half-length"};
    static const char* const radius_height[] = {"radius", "half-height"};
    static const char* const semi_axes[] = {"x semi-axis", "y semi-axis", "z semi-axis"};
    static const char* const half_extents[] = {"x half-extent", "y half-extent", "z half-extent"};
    switch (shape->type) {
    case TCH_GEOM_PLANE:
        return 0;
    case TCH_GEOM_SPHERE:
        return check_sizes(shape, "sphere", radius, 1, why, why_size);
    case TCH_GEOM_CAPSULE:
        return check_sizes(shape, "capsule", radius_half, 2, why, why_size);
    case TCH_GEOM_ELLIPSOID:
        return check_sizes(shape, "ellipsoid", semi_axes, 3, why, why_size);
    case TCH_GEOM_CYLINDER:
        return check_sizes(shape, "cylinder", radius_height, 2, why, why_size);
    case TCH_GEOM_BOX:
        return check_sizes(shape, "box", half_extents, 3, why, why_size);
    case TCH_GEOM_MESH:
        return check_mesh(shape, why, why_size);
    case TCH_GEOM_TYPE_END:
        break;
    }
    snprintf(why, why_size,
             "geom type %d is not one of plane, sphere, capsule, ellipsoid, "
             "cylinder, box, mesh",
             (int)shape->type);
    return 1;
}
