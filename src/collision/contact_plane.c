/* Contact normal and plane by the separation search (see contact_plane.h), libccd's GJK and
 * EPA for a common point, and a GJK distance for the closest points and the intersection test.
 *
 * GJK distance (Gilbert, Johnson, Keerthi 1988) on the Minkowski difference A - B: the simplex
 * W holds up to 4 support points w = a - b; each iteration finds the point v of conv(W) closest
 * to the origin, keeps the smallest sub-simplex that contains it, and adds the support point
 * along -v, until the support point gains less than a relative 1e-12 on |v|^2. The closest
 * point of conv(W) is the affine closest point of all of W when its barycentric weights are
 * positive; otherwise every face of W is tried (up to 15 subsets of 4 points): the affine
 * closest point of a subset with non-negative weights is a candidate, and the candidate that
 * is most nearly optimal (`optimality`) is the answer, since the true closest point lies inside
 * some face. W may start from a previous call's simplex (tch_contact_plane_warm).
 */
#include "collision/contact_plane.h"

#include <ccd/ccd.h>
#include <math.h>

#include "base/error.h"
#include "collision/collide.h"
#include "math/vec.h"

/* A hull placed in A's frame, as libccd's opaque object. */
typedef struct placed_hull {
    const tch_convex_hull* hull;
    tch_transform X_AG;
} placed_hull;

/* Index of the vertex of the placed hull farthest along dir_A (the first on a tie). */
static int support_index(const placed_hull* placed, tch_vec3 dir_A) {
    const tch_convex_hull* hull = placed->hull;
    const tch_vec3 dir_G = tch_q_inv_rotate(placed->X_AG.q, dir_A);
    int best = 0;
    tch_real best_dot = -INFINITY;
    for (int i = 0; i < hull->vertex_count; ++i) {
        const tch_real d = tch_v3_dot(hull->vertices_G[i], dir_G);
        if (d > best_dot) {
            best_dot = d;
            best = i;
        }
    }
    return best;
}

static tch_vec3 placed_vertex(const placed_hull* placed, int i) {
    return tch_x_apply(placed->X_AG, placed->hull->vertices_G[i]);
}

static tch_vec3 support(const placed_hull* placed, tch_vec3 dir_A) {
    return placed_vertex(placed, support_index(placed, dir_A));
}

static tch_vec3 from_ccd(const ccd_vec3_t* v) {
    return tch_v3(v->v[0], v->v[1], v->v[2]);
}

static void ccd_support(const void* object, const ccd_vec3_t* dir, ccd_vec3_t* out) {
    const tch_vec3 s = support(object, from_ccd(dir));
    ccdVec3Set(out, s.x, s.y, s.z);
}

static void ccd_centre(const void* object, ccd_vec3_t* out) {
    const placed_hull* placed = object;
    const tch_vec3 c = tch_x_apply(placed->X_AG, placed->hull->centroid_G);
    ccdVec3Set(out, c.x, c.y, c.z);
}

int tch_contact_common_point(const tch_convex_hull* a, const tch_convex_hull* b,
                             tch_transform X_AB, tch_vec3* o_A) {
    const placed_hull pa = {a, tch_x_identity()};
    const placed_hull pb = {b, X_AB};
    const ccd_t ccd = tch_ccd_settings(ccd_support, ccd_centre);
    ccd_real_t depth = 0;
    ccd_vec3_t dir, pos;
    int found = ccdGJKPenetration(&pa, &pb, &ccd, &depth, &dir, &pos);
    if (found == -2) {
        /* EPA could not allocate its polytope: MPR needs no memory */
        found = ccdMPRPenetration(&pa, &pb, &ccd, &depth, &dir, &pos);
    }
    *o_A = from_ccd(&pos);
    return found == 0;
}

/* ---- GJK distance ---- */

typedef struct simplex {
    int count;
    tch_vec3 w[4], a[4], b[4]; /* w = a - b */
    int ia[4], ib[4];          /* the vertices of A and B that a and b are */
} simplex;

/* Solves the Gram system G mu = rhs of size k (1 to 3) by Cramer's rule; returns 0 when G is
 * singular (a degenerate subset): |det| <= 1e-14 scale^3, scale the largest entry of G padded
 * to 3x3 with the identity (the test tch_m3_inverse makes on that matrix). */
static int solve_gram(int k, tch_real G[3][3], const tch_real rhs[3], tch_real mu[3]) {
    tch_real scale = k < 3 ? 1 : 0;
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) {
            const tch_real g = fabs(G[i][j]);
            scale = g > scale ? g : scale; /* as fmax, without its call */
        }
    }
    tch_real det = G[0][0];
    if (k == 2) {
        det = G[0][0] * G[1][1] - G[0][1] * G[1][0];
    } else if (k == 3) {
        det = tch_v3_dot(tch_v3(G[0][0], G[0][1], G[0][2]),
                         tch_v3_cross(tch_v3(G[1][0], G[1][1], G[1][2]),
                                      tch_v3(G[2][0], G[2][1], G[2][2])));
    }
    if (!(fabs(det) > 1e-14 * scale * scale * scale) || !isfinite(det)) {
        return 0;
    }
    if (k == 1) {
        mu[0] = rhs[0] / det;
    } else if (k == 2) {
        mu[0] = (rhs[0] * G[1][1] - G[0][1] * rhs[1]) / det;
        mu[1] = (G[0][0] * rhs[1] - rhs[0] * G[1][0]) / det;
    } else {
        /* Cramer: mu_i = det(G with column i replaced by rhs) / det */
        const tch_vec3 c0 = tch_v3(G[0][0], G[1][0], G[2][0]);
        const tch_vec3 c1 = tch_v3(G[0][1], G[1][1], G[2][1]);
        const tch_vec3 c2 = tch_v3(G[0][2], G[1][2], G[2][2]);
        const tch_vec3 r = tch_v3(rhs[0], rhs[1], rhs[2]);
        mu[0] = tch_v3_dot(r, tch_v3_cross(c1, c2)) / det;
        mu[1] = tch_v3_dot(c0, tch_v3_cross(r, c2)) / det;
        mu[2] = tch_v3_dot(c0, tch_v3_cross(c1, r)) / det;
    }
    return 1;
}

/* Closest point to the origin of the affine hull of the subset `mask` of W, with its
 * barycentric weights; returns 0 when the subset is degenerate or a weight is negative. */
static int affine_closest(const simplex* s, int mask, tch_real lambda[4], tch_vec3* v) {
    int idx[4] = {0, 0, 0, 0}, k = 0;
    for (int i = 0; i < s->count; ++i) {
        if (mask & (1 << i)) {
            idx[k++] = i;
        }
    }
    /* v = w0 + sum mu_j e_j, e_j = w_j - w0, with (E^T E) mu = -E^T w0 */
    const tch_vec3 w0 = s->w[idx[0]];
    tch_real G[3][3] = {{0}}, rhs[3] = {0}, mu[3] = {0};
    tch_vec3 e[3];
    for (int j = 1; j < k; ++j) {
        e[j - 1] = tch_v3_sub(s->w[idx[j]], w0);
    }
    for (int i = 0; i < k - 1; ++i) {
        for (int j = 0; j <= i; ++j) {
            G[i][j] = G[j][i] = tch_v3_dot(e[i], e[j]);
        }
        rhs[i] = -tch_v3_dot(e[i], w0);
    }
    if (k > 1 && !solve_gram(k - 1, G, rhs, mu)) {
        return 0;
    }
    tch_real sum = 0;
    *v = w0;
    for (int i = 0; i < 4; ++i) {
        lambda[i] = 0;
    }
    for (int j = 1; j < k; ++j) {
        if (mu[j - 1] < 0) {
            return 0;
        }
        lambda[idx[j]] = mu[j - 1];
        sum += mu[j - 1];
        *v = tch_v3_madd(*v, mu[j - 1], e[j - 1]);
    }
    lambda[idx[0]] = 1 - sum;
    return lambda[idx[0]] >= 0;
}

/* Whether the first `count` weights are all positive. */
static int positive(const tch_real lambda[4], int count) {
    for (int i = 0; i < count; ++i) {
        if (!(lambda[i] > 0)) {
            return 0;
        }
    }
    return 1;
}

/* Keeps the points of W with positive weight `lambda` (their weights go to lambda_out, aligned
 * with the reduced W); returns v. */
static tch_vec3 keep_support(simplex* s, const tch_real lambda[4], tch_real lambda_out[4],
                             tch_vec3 v) {
    int kept = 0;
    for (int i = 0; i < s->count; ++i) {
        if (lambda[i] > 0) { /* in place: kept <= i */
            lambda_out[kept] = lambda[i];
            s->w[kept] = s->w[i];
            s->a[kept] = s->a[i];
            s->b[kept] = s->b[i];
            s->ia[kept] = s->ia[i];
            s->ib[kept] = s->ib[i];
            ++kept;
        }
    }
    s->count = kept;
    return v;
}

/* How far v is from being the closest point of conv(W) to the origin: min_i v.(w_i - v), zero
 * for the closest point and negative for the closest point of any other face. It sees a
 * point off the closest one by δ along a face as δ times the face's size, where |v|^2 sees δ^2,
 * lost to round-off below about 1e-8 |v|: choosing the face by |v|^2 alone kept a vertex of a
 * face-to-face contact whose segment to the next support point held the closest point, which
 * tilted the normal by the bodies' lateral offset over the gap. */
static tch_real optimality(const simplex* s, tch_vec3 v) {
    const tch_real v2 = tch_v3_norm2(v);
    tch_real margin = INFINITY;
    for (int i = 0; i < s->count; ++i) {
        const tch_real m = tch_v3_dot(v, s->w[i]) - v2;
        margin = m < margin ? m : margin;
    }
    return margin;
}

/* Reduces W to the smallest face holding its point closest to the origin: the affine closest
 * point of a subset with non-negative weights that is most nearly optimal (the nearest on a
 * tie); returns that point (and the weights, aligned with the reduced W). */
static tch_vec3 reduce_simplex(simplex* s, tch_real lambda_out[4]) {
    tch_vec3 best_v = s->w[0];
    tch_real best_margin = -INFINITY, best_d = INFINITY, best_lambda[4] = {1, 0, 0, 0};
    const int full = (1 << s->count) - 1;
    /* The affine closest point of all of W with positive weights lies in conv(W), so it is the
     * closest point of conv(W) (a warm simplex that still holds it, the common case): the
     * other faces need not be tried. */
    if (affine_closest(s, full, best_lambda, &best_v) && positive(best_lambda, s->count)) {
        return keep_support(s, best_lambda, lambda_out, best_v);
    }
    best_v = s->w[0];
    for (int i = 0; i < 4; ++i) {
        best_lambda[i] = i == 0;
    }
    for (int mask = 1; mask < full; ++mask) {
        tch_real lambda[4];
        tch_vec3 v;
        if (!affine_closest(s, mask, lambda, &v)) {
            continue;
        }
        const tch_real margin = optimality(s, v), d = tch_v3_norm2(v);
        if (margin > best_margin || (margin == best_margin && d < best_d)) {
            best_margin = margin;
            best_d = d;
            best_v = v;
            for (int i = 0; i < 4; ++i) {
                best_lambda[i] = lambda[i];
            }
        }
    }
    return keep_support(s, best_lambda, lambda_out, best_v);
}

/* Whether w is already a point of the simplex. */
static int repeats(const simplex* s, tch_vec3 w) {
    for (int i = 0; i < s->count; ++i) {
        if (tch_v3_norm2(tch_v3_sub(w, s->w[i])) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Appends the support pair (vertex ia of A, ib of B) to W. */
static void push_support(simplex* s, const placed_hull* pa, const placed_hull* pb, int ia, int ib) {
    const int k = s->count++;
    s->ia[k] = ia;
    s->ib[k] = ib;
    s->a[k] = placed_vertex(pa, ia);
    s->b[k] = placed_vertex(pb, ib);
    s->w[k] = tch_v3_sub(s->a[k], s->b[k]);
}

/* GJK distance (see the top of the file) from the simplex `warm` (vertex pairs of a previous
 * call, re-placed at this pose; none when NULL or empty), which is replaced by the final one
 * (emptied when the pieces intersect). The answer does not depend on the start beyond
 * round-off: only the number of iterations does. */
static tch_real gjk_distance(const placed_hull* pa, const placed_hull* pb,
                             tch_contact_plane_warm* warm, tch_vec3* a_A, tch_vec3* b_A) {
    simplex s = {0};
    tch_real lambda[4] = {1, 0, 0, 0};
    for (int i = 0; warm && i < warm->count; ++i) {
        push_support(&s, pa, pb, warm->a[i], warm->b[i]);
    }
    tch_vec3 v = s.count > 0 ? reduce_simplex(&s, lambda)
                             : tch_v3_sub(tch_x_apply(pa->X_AG, pa->hull->centroid_G),
                                          tch_x_apply(pb->X_AG, pb->hull->centroid_G));
    tch_vec3 last_w = tch_v3(NAN, NAN, NAN);
    for (int iteration = 0; iteration < 128 && tch_v3_norm2(v) > 0; ++iteration) {
        const tch_vec3 dir = tch_v3_neg(v);
        const int ia = support_index(pa, dir), ib = support_index(pb, v);
        const tch_vec3 w = tch_v3_sub(placed_vertex(pa, ia), placed_vertex(pb, ib));
        /* no progress: v is the closest point (relative tolerance on |v|^2). A warm simplex
         * is only taken as it is to round-off (1e-15): a face of the Minkowski difference
         * nearly normal to v passes the 1e-12 test from any of its vertices, and a stale
         * vertex left the normal tilted by the bodies' lateral offset over the gap, which
         * fed the stack's buckling mode; from there GJK goes on as from a cold start. */
        const tch_real tolerance = iteration == 0 && warm && warm->count > 0 ? 1e-15 : 1e-12;
        if (s.count > 0 && tch_v3_norm2(v) - tch_v3_dot(v, w) <= tolerance * tch_v3_norm2(v)) {
            break;
        }
        /* A support point already in W or the one just dropped: the reduction would drop it
         * again (a face of the Minkowski difference parallel to the closest face, where
         * round-off in v leaves the progress above the tolerance), so v is as close as it
         * gets. Without this the loop ran to its 128 iterations on a box resting flat on a
         * plane. */
        if (s.count > 0 && (repeats(&s, w) || tch_v3_norm2(tch_v3_sub(w, last_w)) == 0)) {
            break;
        }
        last_w = w;
        push_support(&s, pa, pb, ia, ib);
        v = reduce_simplex(&s, lambda);
        if (s.count == 4) {
            break; /* the origin is inside: the pieces intersect */
        }
    }
    const int apart = s.count < 4 && tch_v3_norm2(v) > 0;
    *a_A = tch_v3_zero();
    *b_A = tch_v3_zero();
    for (int i = 0; i < s.count; ++i) {
        *a_A = tch_v3_madd(*a_A, lambda[i], s.a[i]);
        *b_A = tch_v3_madd(*b_A, lambda[i], s.b[i]);
    }
    if (warm) {
        warm->count = apart ? s.count : 0;
        for (int i = 0; i < warm->count; ++i) {
            warm->a[i] = s.ia[i];
            warm->b[i] = s.ib[i];
        }
    }
    return apart ? tch_v3_norm(v) : 0;
}

tch_real tch_contact_closest_points(const tch_convex_hull* a, const tch_convex_hull* b,
                                    tch_transform X_AB, tch_vec3* a_A, tch_vec3* b_A) {
    const placed_hull pa = {a, tch_x_identity()};
    const placed_hull pb = {b, X_AB};
    return gjk_distance(&pa, &pb, NULL, a_A, b_A);
}

/* ---- the separation search ---- */

tch_vec3 tch_contact_initial_normal(const tch_polyhedron* overlap, tch_vec3 c_A, tch_vec3 c_B) {
    tch_vec3 sum = tch_v3_zero();
    tch_real total = 0;
    for (int f = 0; overlap && f < overlap->face_count; ++f) {
        const int start = overlap->face_start[f], length = overlap->face_start[f + 1] - start;
        tch_vec3 area = tch_v3_zero(); /* twice the area vector, by the shoelace sum */
        for (int i = 0; i < length; ++i) {
            area = tch_v3_add(area, tch_v3_cross(
                                        overlap->vertices_A[overlap->face_vertices[start + i]],
                                        overlap->vertices_A[overlap->face_vertices
                                                                [start + (i + 1) % length]]));
        }
        total += tch_v3_norm(area);
        sum = overlap->face_owner[f] == TCH_FACE_OWNER_A ? tch_v3_add(sum, area)
                                                         : tch_v3_sub(sum, area);
    }
    if (total > 0 && tch_v3_norm(sum) > 1e-12 * total) {
        return tch_v3_normalize(sum);
    }
    return tch_v3_normalize(tch_v3_sub(c_B, c_A));
}

/* B translated by s n (A's frame). */
static tch_transform shifted(tch_transform X_AB, tch_vec3 n, tch_real s) {
    return (tch_transform){X_AB.q, tch_v3_madd(X_AB.p, s, n)};
}

static tch_status check_inputs(const tch_convex_hull* a, const tch_convex_hull* b,
                               tch_transform X_AB, const tch_vec3* n_prev_A, tch_error* err) {
    const tch_status status = tch_polyhedron_check_pair(a, b, X_AB, err);
    if (status == TCH_OK && n_prev_A &&
        (!tch_v3_isfinite(*n_prev_A) || !(tch_v3_norm(*n_prev_A) > 0))) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the previous contact normal (%g %g %g) must be finite and non-zero",
                        n_prev_A->x, n_prev_A->y, n_prev_A->z);
    }
    return status;
}

/* Largest number of doublings of the separation distance. */
enum { max_trials = 64 };

int tch_contact_plane_search(const tch_convex_hull* a, const tch_convex_hull* b,
                             tch_transform X_AB, tch_vec3 n_prev, tch_real d_prev, tch_real size,
                             tch_contact_plane_warm* warm, tch_contact_plane* out) {
    /* the notes' 1e-10 squared distance, for a pair of unit size */
    const tch_real separated2 = 1e-10 * size * size;
    const placed_hull pa = {a, tch_x_identity()};
    tch_real s = d_prev > 0 ? fmax(d_prev, 0.01) : 0.01;
    tch_vec3 a_star = tch_v3_zero(), b_star = tch_v3_zero();
    int trials = 0;
    for (;;) {
        if (++trials > max_trials) {
            out->trials = max_trials;
            return -1;
        }
        s *= 2;
        /* the GJK distance is 0 for intersecting pieces (its simplex encloses the origin), so
         * it is also the intersection test */
        const placed_hull pb = {b, shifted(X_AB, n_prev, s)};
        const tch_real distance = gjk_distance(&pa, &pb, warm, &a_star, &b_star);
        if (distance * distance > separated2) {
            break;
        }
    }
    const tch_vec3 gap = tch_v3_sub(b_star, a_star);
    const tch_real distance = tch_v3_norm(gap);
    out->n_A = tch_v3_scale(gap, 1 / distance);
    out->depth = s - distance;
    out->a_A = a_star;
    out->b_A = tch_v3_madd(a_star, -out->depth, out->n_A);
    out->o_A = tch_v3_madd(a_star, -0.5 * out->depth, out->n_A);
    out->trials = trials;
    return 0;
}

tch_status tch_contact_plane_find(const tch_convex_hull* a, const tch_convex_hull* b,
                                  tch_transform X_AB, const tch_vec3* n_prev_A, tch_real d_prev,
                                  const tch_polyhedron* overlap, tch_contact_plane* out,
                                  tch_error* err) {
    const tch_status status = check_inputs(a, b, X_AB, n_prev_A, err);
    if (status != TCH_OK) {
        return status;
    }
    X_AB.q = tch_q_normalize(X_AB.q);
    const tch_vec3 n_prev =
        n_prev_A ? tch_v3_normalize(*n_prev_A)
                 : tch_contact_initial_normal(overlap, a->centroid_G,
                                              tch_x_apply(X_AB, b->centroid_G));
    if (tch_contact_plane_search(a, b, X_AB, n_prev, d_prev, tch_polyhedron_pair_size(a, b),
                                 NULL, out) != 0) {
        return tch_fail(err, TCH_ERR_NUMERICAL, NULL, 0,
                        "the contact plane search found no separation after %d doublings "
                        "(along (%g %g %g))",
                        max_trials, n_prev.x, n_prev.y, n_prev.z);
    }
    return TCH_OK;
}
