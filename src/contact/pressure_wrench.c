/* Tractions, wrench and elastic energy of the pressure field model: see pressure_wrench.h and
 * docs/contact-pressure.md. */
#include "contact/pressure_wrench.h"

#include <string.h>

#include "base/error.h"
#include "base/workers.h"

tch_pressure_traction_params tch_pressure_traction_params_default(void) {
    return (tch_pressure_traction_params){
        .dissipation = 0,
        .friction = 0,
        .stiction_speed = 1e-3,
        .quadrature = TCH_PRESSURE_QUADRATURE_CENTROID,
    };
}

static int is_nonnegative(tch_real x) {
    return x >= 0 && isfinite(x);
}

tch_status tch_pressure_traction_params_check(const tch_pressure_traction_params* params,
                                              tch_error* err) {
    if (!is_nonnegative(params->dissipation)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "pressure dissipation is %g; expected a finite value >= 0 s/m",
                        params->dissipation);
    }
    if (!is_nonnegative(params->friction)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "pressure friction coefficient is %g; expected a finite value >= 0",
                        params->friction);
    }
    if (!(params->stiction_speed > 0) || !isfinite(params->stiction_speed)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "pressure stiction speed is %g; expected a finite value > 0 m/s",
                        params->stiction_speed);
    }
    if (params->quadrature != TCH_PRESSURE_QUADRATURE_CENTROID &&
        params->quadrature != TCH_PRESSURE_QUADRATURE_THREE_POINT) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "pressure quadrature is %d; expected %d (centroid) or %d (three-point)",
                        (int)params->quadrature, (int)TCH_PRESSURE_QUADRATURE_CENTROID,
                        (int)TCH_PRESSURE_QUADRATURE_THREE_POINT);
    }
    return TCH_OK;
}

tch_real tch_pressure_combine_dissipation(tch_real modulus_a, tch_real dissipation_a,
                                          tch_real modulus_b, tch_real dissipation_b) {
    if (isinf(modulus_b)) {
        return dissipation_a;
    }
    if (isinf(modulus_a)) {
        return dissipation_b;
    }
    return (modulus_b * dissipation_a + modulus_a * dissipation_b) / (modulus_a + modulus_b);
}

tch_vec3 tch_pressure_traction(tch_real p0, tch_vec3 normal, tch_vec3 velocity,
                               const tch_pressure_traction_params* params) {
    tch_real v_n = tch_v3_dot(velocity, normal);                    /* eq. 5 */
    tch_vec3 v_t = tch_v3_madd(velocity, -v_n, normal);             /* eq. 6 */
    tch_real p = p0 * fmax(0, 1 - params->dissipation * v_n);       /* eqs. 2-3 */
    tch_real v_s = params->stiction_speed;
    tch_real slip = sqrt(tch_v3_norm2(v_t) + v_s * v_s);
    return tch_v3_madd(tch_v3_scale(normal, p), -params->friction * p / slip, v_t); /* eq. 7 */
}

/* The quadrature points of a triangle x[3] with vertex pressures p[3]: positions, pressures
 * and weights (fractions of the area); returns their count. */
static int quadrature_points(tch_pressure_quadrature rule, const tch_vec3 x[3],
                             const tch_real p[3], tch_vec3 qx[3], tch_real qp[3],
                             tch_real weight[3]) {
    if (rule == TCH_PRESSURE_QUADRATURE_CENTROID) {
        qx[0] = tch_v3_scale(tch_v3_add(x[0], tch_v3_add(x[1], x[2])), 1.0 / 3);
        qp[0] = (p[0] + p[1] + p[2]) / 3;
        weight[0] = 1;
        return 1;
    }
    /* Strang-Fix: barycentric (2/3, 1/6, 1/6) and its rotations, exact for degree 2. */
    for (int k = 0; k < 3; ++k) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        qx[k] = tch_v3_add(tch_v3_scale(x[k], 2.0 / 3),
                           tch_v3_scale(tch_v3_add(x[i], x[j]), 1.0 / 6));
        qp[k] = p[k] * (2.0 / 3) + (p[i] + p[j]) / 6;
        weight[k] = 1.0 / 3;
    }
    return 3;
}

/* The quadrature points of fan triangle i of a polygon (tch_pressure_fan_triangle): positions,
 * pressures and weights (the triangle's area, signed by the polygon's normal, shared among
 * them); returns their count. */
static int fan_quadrature(const tch_pressure_surface* surface, const tch_pressure_polygon* polygon,
                          int i, tch_pressure_quadrature rule, tch_vec3 qx[3], tch_real qp[3],
                          tch_real weight[3]) {
    tch_vec3 x[3];
    tch_real p[3];
    tch_pressure_fan_triangle(surface, polygon, i, x, p);
    tch_real area = tch_v3_dot(tch_v3_cross(tch_v3_sub(x[1], x[0]), tch_v3_sub(x[2], x[0])),
                               polygon->normal_A) / 2;
    int count = quadrature_points(rule, x, p, qx, qp, weight);
    for (int q = 0; q < count; ++q) {
        weight[q] *= area;
    }
    return count;
}

static tch_vec3 motion_velocity(const tch_pressure_motion* motion, tch_vec3 x) {
    if (motion == NULL) {
        return tch_v3_zero();
    }
    return tch_v3_add(motion->v_A, tch_v3_cross(motion->w_A, tch_v3_sub(x, motion->point_A)));
}

tch_status tch_pressure_wrench(const tch_pressure_surface* surface,
                               const tch_pressure_traction_params* params,
                               const tch_pressure_motion* motion, tch_wrench* out,
                               tch_error* err) {
    *out = (tch_wrench){tch_v3_zero(), tch_v3_zero()};
    tch_status status = tch_pressure_traction_params_check(params, err);
    if (status != TCH_OK) {
        return status;
    }
    tch_wrench sum = *out;
    for (int k = 0; k < surface->polygon_count; ++k) {
        const tch_pressure_polygon* polygon = &surface->polygons[k];
        tch_vec3 n = polygon->normal_A;
        for (int i = 0; i < polygon->count; ++i) {
            tch_vec3 qx[3];
            tch_real qp[3], weight[3];
            /* eq. 8 over the fan triangle (Fig. 5) */
            int count = fan_quadrature(surface, polygon, i, params->quadrature, qx, qp, weight);
            for (int q = 0; q < count; ++q) {
                tch_vec3 T = tch_pressure_traction(qp[q], n, motion_velocity(motion, qx[q]),
                                                   params);
                tch_real w = weight[q];
                sum.force = tch_v3_madd(sum.force, w, T);
                sum.moment = tch_v3_madd(sum.moment, w, tch_v3_cross(qx[q], T));
            }
        }
    }
    *out = sum;
    return TCH_OK;
}

tch_wrench tch_pressure_wrench_about(tch_wrench wrench, tch_vec3 o) {
    return (tch_wrench){wrench.force, tch_v3_sub(wrench.moment, tch_v3_cross(o, wrench.force))};
}

tch_wrench tch_pressure_wrench_to_frame(tch_wrench wrench_B, tch_transform X_AB) {
    tch_vec3 force_A = tch_q_rotate(X_AB.q, wrench_B.force);
    tch_vec3 moment_A = tch_v3_add(tch_q_rotate(X_AB.q, wrench_B.moment),
                                   tch_v3_cross(X_AB.p, force_A));
    return (tch_wrench){force_A, moment_A};
}

/* ---- linearization (docs/contact-pressure.md, "Implicit integration") ---- */

tch_real tch_pressure_polygon_stiffness(const tch_pressure_body* a, const tch_pressure_body* b,
                                        const tch_pressure_polygon* polygon) {
    tch_real g_a = a->modulus * tch_v3_norm(a->mesh->tet_gradient_G[polygon->tet_a]);
    if (b == NULL) {
        return g_a;
    }
    tch_real g_b = b->modulus * tch_v3_norm(b->mesh->tet_gradient_G[polygon->element_b]);
    return g_a + g_b > 0 ? g_a * g_b / (g_a + g_b) : 0;
}

/* 1 / (E |∇ε|) on tet t of a body: the depth under a point of pressure p is p times this
 * (ε = depth |∇ε| for a field linear in depth); 0 where ε is flat (a rigid core). */
static tch_real depth_per_pressure(const tch_pressure_body* body, int t) {
    tch_real slope = body->modulus * tch_v3_norm(body->mesh->tet_gradient_G[t]);
    return slope > 0 ? 1 / slope : 0;
}

tch_real tch_pressure_surface_depth(const tch_pressure_surface* surface,
                                    const tch_pressure_body* a, const tch_pressure_body* b) {
    tch_real depth = 0;
    for (int k = 0; k < surface->polygon_count; ++k) {
        const tch_pressure_polygon* polygon = &surface->polygons[k];
        tch_real per_pressure = depth_per_pressure(a, polygon->tet_a) +
                                (b ? depth_per_pressure(b, polygon->element_b) : 0);
        for (int i = 0; i < polygon->count; ++i) {
            depth = fmax(depth, surface->pressures[polygon->first + i] * per_pressure);
        }
    }
    return depth;
}

/* Moments of a weight w over a polygon about o: ∫ w, ∫ w r, ∫ w r rᵀ (r = x - o). */
typedef struct area_moments {
    tch_real zeroth;
    tch_vec3 first;
    tch_mat3 second;
} area_moments;

static void add_moments(area_moments* m, tch_real w, tch_vec3 r) {
    m->zeroth += w;
    m->first = tch_v3_madd(m->first, w, r);
    tch_real rv[3] = {r.x, r.y, r.z};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            m->second.m[i][j] += w * rv[i] * rv[j];
        }
    }
}

/* out -= ∫ w J Jᵀ for J = (n, r × n) = (n, -N r), N = [n]×, from the moments of w. */
static void subtract_outer(const area_moments* m, tch_vec3 n, tch_real out[6][6]) {
    tch_mat3 N = tch_m3_skew(n);
    tch_vec3 t = tch_v3_neg(tch_m3_mul_v3(N, m->first)); /* ∫ w r × n */
    tch_mat3 rr = tch_m3_mul(tch_m3_mul(N, m->second), tch_m3_transpose(N));
    tch_real nv[3] = {n.x, n.y, n.z}, tv[3] = {t.x, t.y, t.z};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            out[i][j] -= m->zeroth * nv[i] * nv[j];
            out[i][3 + j] -= nv[i] * tv[j];
            out[3 + i][j] -= tv[i] * nv[j];
            out[3 + i][3 + j] -= rr.m[i][j];
        }
    }
}

void tch_pressure_surface_jacobian(const tch_pressure_surface* surface,
                                   const tch_pressure_body* a, const tch_pressure_body* b,
                                   tch_real dissipation,
                                   const tch_pressure_motion* motion, tch_vec3 o,
                                   tch_pressure_jacobian* out) {
    memset(out, 0, sizeof *out);
    for (int k = 0; k < surface->polygon_count; ++k) {
        const tch_pressure_polygon* polygon = &surface->polygons[k];
        tch_vec3 n = polygon->normal_A;
        tch_real stiffness = tch_pressure_polygon_stiffness(a, b, polygon);
        area_moments spring = {0}, damper = {0};
        for (int i = 0; i < polygon->count; ++i) {
            tch_vec3 qx[3];
            tch_real qp[3], weight[3];
            int count = fan_quadrature(surface, polygon, i, TCH_PRESSURE_QUADRATURE_THREE_POINT,
                                       qx, qp, weight);
            for (int q = 0; q < count; ++q) {
                /* p = p₀ (1 - χ v_n)⁺ (eqs. 2-3): ∂p/∂(approach) = k (1 - χ v_n),
                 * ∂p/∂v_n = -χ p₀ */
                tch_real rate = 1 - dissipation * tch_v3_dot(motion_velocity(motion, qx[q]), n);
                if (rate > 0) {
                    tch_vec3 r = tch_v3_sub(qx[q], o);
                    tch_real w = weight[q];
                    add_moments(&spring, w * stiffness * rate, r);
                    add_moments(&damper, w * dissipation * qp[q], r);
                }
            }
        }
        subtract_outer(&spring, n, out->K);
        subtract_outer(&damper, n, out->D);
    }
}

void tch_rigid_box_planes(tch_vec3 half_size, tch_rigid_plane planes[6]) {
    for (int axis = 0; axis < 3; ++axis) {
        tch_vec3 n = tch_v3_zero();
        tch_v3_set(&n, axis, 1);
        tch_real h = tch_v3_get(half_size, axis);
        planes[2 * axis] = (tch_rigid_plane){n, h};
        planes[2 * axis + 1] = (tch_rigid_plane){tch_v3_neg(n), h};
    }
}

/* ---- energy: integrals of affine functions over tets clipped by half-spaces ---- */

/* ∫ f over the tet v[4]: its volume times the mean of f at the corners (f is affine). */
static tch_real tet_integral(const tch_vec3 v[4], tch_linear_field f) {
    tch_real volume = fabs(tch_tet_volume6(v[0], v[1], v[2], v[3])) / 6;
    tch_real sum = 0;
    for (int i = 0; i < 4; ++i) {
        sum += tch_linear_field_at(f, v[i]);
    }
    return volume * sum / 4;
}

/* The prism with triangles u[3] and w[3] (lateral edges u_k w_k) as three tets. */
static void split_prism(const tch_vec3 u[3], const tch_vec3 w[3], tch_vec3 pieces[3][4]) {
    const tch_vec3 tets[3][4] = {{u[0], u[1], u[2], w[0]},
                                 {u[1], u[2], w[0], w[1]},
                                 {u[2], w[0], w[1], w[2]}};
    for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < 4; ++i) {
            pieces[k][i] = tets[k][i];
        }
    }
}

/* The point on edge ij where the affine function with values d_i >= 0 > d_j is zero. */
static tch_vec3 edge_zero(const tch_vec3 v[4], const tch_real d[4], int i, int j) {
    return tch_v3_lerp(v[i], v[j], d[i] / (d[i] - d[j]));
}

/* The part of the tet v[4] where d >= 0 (corner values d[4], inside[ni], outside[4 - ni],
 * 0 < ni < 4) as tets; returns their count. */
static int split_tet(const tch_vec3 v[4], const tch_real d[4], const int* inside, int ni,
                     const int* outside, tch_vec3 pieces[3][4]) {
    if (ni == 1) {
        int a = inside[0];
        pieces[0][0] = v[a];
        for (int k = 0; k < 3; ++k) {
            pieces[0][k + 1] = edge_zero(v, d, a, outside[k]);
        }
        return 1;
    }
    tch_vec3 u[3], w[3];
    if (ni == 3) {
        /* the tet minus the corner outside: triangle of inside corners over its cut */
        for (int k = 0; k < 3; ++k) {
            u[k] = v[inside[k]];
            w[k] = edge_zero(v, d, inside[k], outside[0]);
        }
    } else {
        /* two and two: a wedge between the two inside corners' cuts */
        int i0 = inside[0], i1 = inside[1], o0 = outside[0], o1 = outside[1];
        u[0] = v[i0], u[1] = edge_zero(v, d, i0, o0), u[2] = edge_zero(v, d, i0, o1);
        w[0] = v[i1], w[1] = edge_zero(v, d, i1, o0), w[2] = edge_zero(v, d, i1, o1);
    }
    split_prism(u, w, pieces);
    return 3;
}

/* ∫ f over the part of the tet v[4] where keep[i] >= 0 for all i < count. */
static tch_real clipped_integral(const tch_vec3 v[4], const tch_linear_field* keep, int count,
                                 tch_linear_field f) {
    if (count == 0) {
        return tet_integral(v, f);
    }
    tch_real d[4];
    int inside[4], outside[4], ni = 0, no = 0;
    for (int i = 0; i < 4; ++i) {
        d[i] = tch_linear_field_at(keep[0], v[i]);
        if (d[i] >= 0) {
            inside[ni++] = i;
        } else {
            outside[no++] = i;
        }
    }
    if (ni == 0) {
        return 0;
    }
    if (no == 0) {
        return clipped_integral(v, keep + 1, count - 1, f);
    }
    tch_vec3 pieces[3][4];
    int n = split_tet(v, d, inside, ni, outside, pieces);
    tch_real sum = 0;
    for (int k = 0; k < n; ++k) {
        sum += clipped_integral(pieces[k], keep + 1, count - 1, f);
    }
    return sum;
}

typedef struct energy_query {
    const tch_pressure_body* a;
    const tch_pressure_body* b;
    tch_transform X_AB;
    tch_real energy;
} energy_query;

/* ∫ min(p_A, p_B) over T = tet_a ∩ tet_b as ∫_T p_A - ∫_{T, g >= 0} g with g = p_A - p_B:
 * one classification of the corners by g, so a region where g is exactly zero (equal fields)
 * is counted once. */
static int energy_pair(int tet_a, int tet_b, void* user) {
    energy_query* q = user;
    tch_placed_tet a, b;
    tch_pressure_place_tet(q->a, tet_a, tch_x_identity(), &a);
    tch_pressure_place_tet(q->b, tet_b, q->X_AB, &b);
    tch_linear_field keep[5];
    tch_placed_tet_barycentric(&b, keep);
    tch_linear_field g = {tch_v3_sub(a.pressure.gradient, b.pressure.gradient),
                          a.pressure.offset - b.pressure.offset};
    keep[4] = g;
    q->energy += clipped_integral(a.v, keep, 4, a.pressure) - clipped_integral(a.v, keep, 5, g);
    return 0;
}

/* The energy split at a BVH frontier of a fixed size: one sum per frontier pair, added in
 * order, whoever computes them. */
typedef struct energy_split {
    const tch_pressure_body* a;
    const tch_pressure_body* b;
    tch_transform X_AB;
    int tasks[TCH_PRESSURE_MAX_TASKS][2];
    tch_real sums[TCH_PRESSURE_MAX_TASKS];
} energy_split;

static void energy_part(void* context, int part, int begin, int end) {
    (void)part;
    energy_split* e = context;
    for (int t = begin; t < end; ++t) {
        energy_query q = {.a = e->a, .b = e->b, .X_AB = e->X_AB};
        tch_bvh_query_pairs_from(e->a->bvh, e->b->bvh, e->X_AB, NULL, e->tasks[t][0],
                                 e->tasks[t][1], energy_pair, &q);
        e->sums[t] = q.energy;
    }
}

tch_status tch_pressure_energy_compliant(const tch_pressure_body* a, const tch_pressure_body* b,
                                         tch_transform X_AB, tch_real* energy, tch_error* err) {
    return tch_pressure_energy_compliant_on(a, b, X_AB, NULL, energy, err);
}

tch_status tch_pressure_energy_compliant_on(const tch_pressure_body* a, const tch_pressure_body* b,
                                            tch_transform X_AB, tch_workers* workers,
                                            tch_real* energy, tch_error* err) {
    *energy = 0;
    tch_status status = tch_pressure_body_check(a, "A", err);
    if (status == TCH_OK) {
        status = tch_pressure_body_check(b, "B", err);
    }
    if (status != TCH_OK) {
        return status;
    }
    energy_split e;
    e.a = a, e.b = b, e.X_AB = X_AB;
    int scratch[TCH_PRESSURE_MAX_TASKS][2];
    int n = tch_bvh_query_frontier(a->bvh, b->bvh, X_AB, NULL, TCH_PRESSURE_ENERGY_TASKS,
                                   TCH_PRESSURE_MAX_TASKS, e.tasks, scratch);
    int parts = TCH_PRESSURE_PARTS_PER_THREAD * tch_workers_thread_count(workers);
    tch_workers_parallel_for(workers, n, n < parts ? (n > 0 ? n : 1) : parts, energy_part, &e);
    tch_real sum = 0;
    for (int t = 0; t < n; ++t) {
        sum += e.sums[t];
    }
    *energy = sum;
    return TCH_OK;
}

static tch_status check_planes(const tch_rigid_plane* planes, int count, tch_error* err) {
    if (planes == NULL || count < 1 || count > TCH_PRESSURE_MAX_PLANES) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "a rigid convex body has %d planes; expected 1 to %d", count,
                        TCH_PRESSURE_MAX_PLANES);
    }
    for (int i = 0; i < count; ++i) {
        tch_real length = tch_v3_norm(planes[i].normal);
        if (!(fabs(length - 1) <= 1e-9) || !isfinite(planes[i].offset)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "rigid plane %d has a normal of length %g and offset %g; expected "
                            "a unit normal and a finite offset",
                            i, length, planes[i].offset);
        }
    }
    return TCH_OK;
}

/* Whether the box lies wholly outside one of the half-spaces keep_i >= 0: the largest value
 * of keep_i over the box, offset + Σ_j max(g_j lo_j, g_j hi_j), is negative. */
static int box_outside(const tch_aabb* box, const tch_linear_field* keep, int count) {
    for (int i = 0; i < count; ++i) {
        tch_vec3 g = keep[i].gradient;
        tch_real top = keep[i].offset + fmax(g.x * box->lo.x, g.x * box->hi.x) +
                       fmax(g.y * box->lo.y, g.y * box->hi.y) +
                       fmax(g.z * box->lo.z, g.z * box->hi.z);
        if (top < 0) {
            return 1;
        }
    }
    return 0;
}

/* Σ over A's tets of ∫ p_A over the tet clipped by the half-spaces, descending A's BVH and
 * skipping the subtrees wholly outside one half-space (their tets give exactly 0: every corner
 * is outside). The tets are summed in the tree's depth-first order. */
static tch_real convex_energy(const tch_pressure_body* a, const tch_linear_field* keep,
                              int count) {
    const tch_bvh* bvh = a->bvh;
    int stack[TCH_BVH_MAX_DEPTH + 1];
    int top = 0;
    tch_real sum = 0;
    stack[top++] = 0;
    while (top > 0) {
        int i = stack[--top];
        const tch_bvh_node* node = &bvh->nodes[i];
        if (box_outside(&node->box, keep, count)) {
            continue;
        }
        if (node->right >= 0) {
            stack[top++] = node->right;
            stack[top++] = i + 1;
            continue;
        }
        tch_placed_tet tet;
        tch_pressure_place_tet(a, node->primitive, tch_x_identity(), &tet);
        sum += clipped_integral(tet.v, keep, count, tet.pressure);
    }
    return sum;
}

tch_status tch_pressure_energy_rigid_convex(const tch_pressure_body* a,
                                            const tch_rigid_plane* planes_B, int plane_count,
                                            tch_transform X_AB, tch_real* energy,
                                            tch_error* err) {
    *energy = 0;
    tch_status status = tch_pressure_body_check(a, "A", err);
    if (status == TCH_OK) {
        status = check_planes(planes_B, plane_count, err);
    }
    if (status != TCH_OK) {
        return status;
    }
    /* n · x_B <= h with x_B = X_BA x_A: keep h - n · p_BA - (R_AB n) · x_A >= 0. */
    tch_transform X_BA = tch_x_inverse(X_AB);
    tch_linear_field keep[TCH_PRESSURE_MAX_PLANES];
    for (int i = 0; i < plane_count; ++i) {
        tch_vec3 n = planes_B[i].normal;
        keep[i] = (tch_linear_field){tch_v3_neg(tch_q_rotate(X_AB.q, n)),
                                     planes_B[i].offset - tch_v3_dot(n, X_BA.p)};
    }
    *energy = convex_energy(a, keep, plane_count);
    return TCH_OK;
}
