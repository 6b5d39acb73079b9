/* The general convex pair through libccd (Fiser; built with CCD_DOUBLE): GJK to detect
 * overlap (Gilbert, Johnson, Keerthi 1988) and EPA for the penetration depth and direction
 * (van den Bergen 2001), on the shapes' support functions (tch_shape_support) in A's frame.
 *
 * libccd reports only overlapping pairs, so this path ignores `margin` for its own point: a
 * pair that is apart gets no contact until it touches. When both shapes are polytopes (boxes,
 * meshes) and a face of one is within about 2.5 degrees of the EPA direction, the contact is
 * face to face and the face-clipping manifold replaces the single EPA point (so a mesh cube
 * resting on a box gets 4 points, like two boxes do); those clipped points do honour margin.
 */
#include <ccd/ccd.h>
#include <math.h>

#include "collision/collide.h"
#include "math/vec.h"

/* A shape placed in A's frame, as libccd's opaque object. */
typedef struct placed_shape {
    const tch_shape* shape;
    tch_transform X_AG;
} placed_shape;

static tch_vec3 from_ccd(const ccd_vec3_t* v) {
    return tch_v3(v->v[0], v->v[1], v->v[2]);
}

static void to_ccd(tch_vec3 v, ccd_vec3_t* out) {
    ccdVec3Set(out, v.x, v.y, v.z);
}

static void placed_support(const void* object, const ccd_vec3_t* dir_A, ccd_vec3_t* out) {
    const placed_shape* placed = object;
    const tch_vec3 dir_G = tch_q_inv_rotate(placed->X_AG.q, from_ccd(dir_A));
    to_ccd(tch_x_apply(placed->X_AG, tch_shape_support(placed->shape, dir_G)), out);
}

static void placed_centre(const void* object, ccd_vec3_t* out) {
    const placed_shape* placed = object;
    const tch_vec3 c_G = placed->shape->type == TCH_GEOM_MESH ? placed->shape->hull->centroid_G
                                                              : tch_v3_zero();
    to_ccd(tch_x_apply(placed->X_AG, c_G), out);
}

/* Within this cosine of the EPA direction a face counts as resting face to face. */
static const tch_real face_alignment = 0.999;

/* Overlap of the shapes' projections on unit n, h_A(n) + h_B(-n) with h the support
 * function: how far B must move along n to separate, exact for any n. */
static tch_real overlap_along(const placed_shape* a, const placed_shape* b, tch_vec3 n) {
    ccd_vec3_t dir;
    ccd_vec3_t sa;
    ccd_vec3_t sb;
    to_ccd(n, &dir);
    placed_support(a, &dir, &sa);
    to_ccd(tch_v3_neg(n), &dir);
    placed_support(b, &dir, &sb);
    return tch_v3_dot(tch_v3_sub(from_ccd(&sa), from_ccd(&sb)), n);
}

ccd_t tch_ccd_settings(ccd_support_fn support, ccd_center_fn centre) {
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = support;
    ccd.support2 = support;
    ccd.center1 = centre;
    ccd.center2 = centre;
    ccd.max_iterations = 1000;
    ccd.epa_tolerance = 1e-14;
    ccd.mpr_tolerance = 1e-9;
    ccd.dist_tolerance = 1e-12;
    return ccd;
}

/* GJK + EPA for `first` against `second`: the direction from first into second and the
 * contact position; returns 0 when they overlap. */
static int penetration(const placed_shape* first, const placed_shape* second, tch_vec3* n,
                       tch_vec3* pos) {
    ccd_t ccd = tch_ccd_settings(placed_support, placed_centre);
    ccd_real_t depth = 0;
    ccd_vec3_t dir;
    ccd_vec3_t p;
    int found = ccdGJKPenetration(first, second, &ccd, &depth, &dir, &p);
    if (found == -2) {
        /* EPA could not allocate its polytope: MPR needs no memory */
        found = ccdMPRPenetration(first, second, &ccd, &depth, &dir, &p);
    }
    /* libccd: translating `second` by depth * dir separates them */
    *n = tch_v3_normalize(from_ccd(&dir));
    *pos = from_ccd(&p);
    return found;
}

/* A contact direction from A into B, its exact overlap (the depth) and libccd's position. */
typedef struct direction_candidate {
    tch_vec3 n_A;
    tch_real depth;
    tch_vec3 p_A;
} direction_candidate;

/* Replaces *best by n (either sign) when its exact overlap is smaller. libccd's EPA direction
 * has an arbitrary sign when the shapes only touch (the origin on the boundary of the Minkowski
 * difference; libccd issue 44, fcl issue 375): two boxes touching corner to edge got the
 * direction from B into A and the depth of their whole width. Both signs are valid
 * separating directions, so the smaller overlap is the better depth. */
static void keep_smaller_overlap(const placed_shape* a, const placed_shape* b, tch_vec3 n,
                                 tch_vec3 pos, direction_candidate* best) {
    for (int sign = 1; sign >= -1; sign -= 2) {
        const tch_vec3 n_signed = tch_v3_scale(n, sign);
        const tch_real overlap = overlap_along(a, b, n_signed);
        if (overlap < best->depth) {
            *best = (direction_candidate){n_signed, overlap, pos};
        }
    }
}

int tch_collide_convex(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                       tch_real margin, tch_manifold_point* out) {
    const placed_shape pa = {a, tch_x_identity()};
    const placed_shape pb = {b, X_AB};
    /* EPA sometimes stops on a face inside the Minkowski difference and under-reports the
     * depth. Run it both ways and keep the direction along which the exact overlap of the
     * support functions is smaller; that overlap is the depth (it separates the shapes). */
    tch_vec3 n_ab, pos_ab, n_ba, pos_ba;
    const int found_ab = penetration(&pa, &pb, &n_ab, &pos_ab) == 0;
    const int found_ba = penetration(&pb, &pa, &n_ba, &pos_ba) == 0;
    if (!found_ab && !found_ba) {
        return 0;
    }
    direction_candidate best = {tch_v3_zero(), INFINITY, tch_v3_zero()};
    if (found_ab) {
        keep_smaller_overlap(&pa, &pb, n_ab, pos_ab, &best);
    }
    if (found_ba) {
        keep_smaller_overlap(&pa, &pb, tch_v3_neg(n_ba), pos_ba, &best);
    }
    const tch_vec3 n_A = best.n_A;
    tch_polytope poly_a;
    tch_polytope poly_b;
    if (tch_polytope_init(&poly_a, a) && tch_polytope_init(&poly_b, b)) {
        const int count = tch_polytope_clip(&poly_a, &poly_b, X_AB, n_A, margin,
                                            face_alignment, out);
        if (count > 0) {
            return count;
        }
    }
    out[0] = (tch_manifold_point){best.p_A, n_A, best.depth};
    return 1;
}
