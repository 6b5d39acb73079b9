#include "contact/friction.h"

#include <math.h>

#include "math/lanes.h"
#include "math/vec.h"

/* Gauss-Seidel sweeps over a pair's points at most; they stop earlier once no force changes
 * by more than a 1e-6 share of the total Coulomb bound (one sweep is exact for one point). */
enum { FRICTION_SWEEPS = 4 };

/* The larger of two squared sizes (fmax without its NaN rule, which GCC calls libm for). */
static inline tch_real larger(tch_real a, tch_real b) {
    return a > b ? a : b;
}

/* Cubic smoothstep on [0, 1]. */
static tch_real smoothstep(tch_real x) {
    x = fmin(fmax(x, 0), 1);
    return x * x * (3 - 2 * x);
}

tch_real tch_friction_coefficient(const tch_pair_params* p, tch_real speed) {
    tch_real s = speed / p->stiction_velocity;
    return p->static_friction - (p->static_friction - p->friction) * smoothstep((s - 1) / 2);
}

/* Writes side k's rows of the point (sigma = sign): its u_i = sigma u[i] by component, and its
 * part of motion[i], (dv[i], dw[i]) already signed and scaled. */
static void write_side(tch_friction_point* fp, int k, tch_real sign, const tch_vec3 u[2],
                       const tch_vec3 dv[2], const tch_vec3 dw[2]) {
    for (int i = 0; i < 2; ++i) {
        tch_vec3 signed_u = tch_v3_scale(u[i], sign);
        tch_real* row = fp->motion[i] + 6 * k;
        for (int c = 0; c < 3; ++c) {
            fp->u[k][c][i] = tch_v3_get(signed_u, c);
            row[c] = tch_v3_get(dv[i], c);
            row[3 + c] = tch_v3_get(dw[i], c);
        }
    }
}

/* A link's side: its velocity change under the unit force t_i at the point (the wrench
 * (t_i, u_i) about its centre of mass) through its mobility, and K_ij += t_i . dv_j + u_i . dw_j
 * per unit h (J A^-1 J^T in the tangents). */
static void fill_link_side(const tch_link_mobility* link, tch_real h, tch_real sign,
                           const tch_vec3 t[2], const tch_vec3 u[2], tch_real K[2][2],
                           tch_friction_point* fp, int k) {
    tch_vec3 dv[2], dw[2], scaled_dv[2], scaled_dw[2];
    for (int i = 0; i < 2; ++i) {
        tch_link_velocity_change(link, 1, t[i], u[i], &dv[i], &dw[i]);
        scaled_dv[i] = tch_v3_scale(dv[i], sign * h);
        scaled_dw[i] = tch_v3_scale(dw[i], sign * h);
        K[i][i] += tch_v3_dot(t[i], dv[i]) + tch_v3_dot(u[i], dw[i]);
    }
    write_side(fp, k, sign, u, scaled_dv, scaled_dw);
    tch_real coupling = tch_v3_dot(t[0], dv[1]) + tch_v3_dot(u[0], dw[1]);
    K[0][1] += coupling;
    K[1][0] += coupling;
}

/* A free body's side k: with T[c] = (t_1, t_2) component c and r from its centre of mass to
 * the point, u_i = r x t_i, dv_i = sigma h t_i / m and dw_i = sigma h I^-1 u_i, both tangents
 * side by side (each lane as tch_v3_cross, tch_m3_mul_v3 and tch_v3_scale compute it); adds
 * u_i . I^-1 u_i + 1 / m to K's diagonal and u_2 . I^-1 u_1 to its coupling. */
static void fill_free_side(const tch_model* model, const tch_data* data, tch_real h, int root,
                           int k, tch_vec3 r, const tch_real2 T[3], tch_real2* K_diagonal,
                           tch_real* K_coupling, tch_friction_point* fp) {
    const tch_real sign = k == 0 ? -1 : 1;
    const tch_mat3* I_inv = &data->body_I_inv_W[root];
    const tch_real inv_m = 1 / model->body_total_mass[root];
    const tch_real2 U[3] = {r.y * T[2] - r.z * T[1], r.z * T[0] - r.x * T[2],
                        r.x * T[1] - r.y * T[0]};
    tch_real2 IU[3];
    for (int c = 0; c < 3; ++c) {
        IU[c] = I_inv->m[c][0] * U[0] + I_inv->m[c][1] * U[1] + I_inv->m[c][2] * U[2];
    }
    const tch_real scale_v = sign * h * inv_m, scale_w = sign * h;
    for (int c = 0; c < 3; ++c) {
        const tch_real2 dv = T[c] * scale_v, dw = IU[c] * scale_w;
        tch_store2(fp->u[k][c], U[c] * sign);
        for (int i = 0; i < 2; ++i) {
            fp->motion[i][6 * k + c] = dv[i];
            fp->motion[i][6 * k + 3 + c] = dw[i];
        }
    }
    *K_diagonal = *K_diagonal + (U[0] * IU[0] + U[1] * IU[1] + U[2] * IU[2] + inv_m);
    *K_coupling += U[0][1] * IU[0][0] + U[1][1] * IU[1][0] + U[2][1] * IU[2][0];
}

/* Fills side k of the point (geom g's body, sign -1 for a, whose slip counts against b's) at
 * p for tangents t, and adds its share of the tangential inverse mass K_ij = sum over the
 * bodies of (delta_ij / m + u_i . I^-1 u_j), u_i = r x t_i. */
static void fill_side(const tch_model* model, const tch_data* data,
                      const tch_velocity_prediction* pred, int geom, int k, tch_vec3 p_W,
                      const tch_vec3 t[2], tch_real K[2][2], tch_friction_point* fp) {
    int root = fp->root[k] = model->body_root[model->geom_body[geom]];
    if (root == 0) {
        const tch_vec3 zero[2] = {tch_v3_zero(), tch_v3_zero()};
        write_side(fp, k, 0, zero, zero, zero);
        return;
    }
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root]);
    const tch_link_mobility* link = tch_prediction_link(pred, root);
    if (link) {
        tch_vec3 u[2] = {tch_v3_cross(r, t[0]), tch_v3_cross(r, t[1])};
        fill_link_side(link, pred->h, k == 0 ? -1 : 1, t, u, K, fp, k);
        return;
    }
    tch_real2 K_diagonal = {K[0][0], K[1][1]};
    const tch_real2 T[3] = {tch_load2(fp->t[0]), tch_load2(fp->t[1]), tch_load2(fp->t[2])};
    fill_free_side(model, data, pred->h, root, k, r, T, &K_diagonal, &K[0][1], fp);
    K[0][0] = K_diagonal[0];
    K[1][1] = K_diagonal[1];
    K[1][0] = K[0][1];
}

/* K below this share of its trace squared in determinant is singular: joints forbid the slip
 * along one tangent (a link against a static body or another link; a free body always moves). */
static const tch_real SINGULAR_SHARE = 1e-9;

/* K^-1 / h (by columns); for a singular K its pseudo-inverse (rank one: K = k e e^T, K^+ = K / k^2, k the
 * trace), which puts no force along a slip the bodies cannot change, or none when K = 0. */
static void set_inverse(tch_real K[2][2], tch_real h, tch_friction_point* fp) {
    tch_real det = K[0][0] * K[1][1] - K[0][1] * K[1][0];
    tch_real trace = K[0][0] + K[1][1];
    if (det > SINGULAR_SHARE * trace * trace) {
        tch_real inv_hdet = 1 / (h * det);
        fp->K_inv_h[0][0] = K[1][1] * inv_hdet;
        fp->K_inv_h[1][0] = -K[0][1] * inv_hdet;
        fp->K_inv_h[0][1] = -K[1][0] * inv_hdet;
        fp->K_inv_h[1][1] = K[0][0] * inv_hdet;
        return;
    }
    tch_real scale = trace > 0 ? 1 / (h * trace * trace) : 0;
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
            fp->K_inv_h[j][i] = K[i][j] * scale;
        }
    }
}

void tch_friction_point_init(const tch_model* model, const tch_data* data,
                             const tch_velocity_prediction* pred, const tch_pair_result* pair,
                             tch_vec3 p_W, tch_vec3 n_W, tch_real limit, tch_friction_point* fp) {
    tch_vec3 t[2];
    tch_v3_basis(n_W, &t[0], &t[1]);
    for (int c = 0; c < 3; ++c) {
        fp->t[c][0] = tch_v3_get(t[0], c);
        fp->t[c][1] = tch_v3_get(t[1], c);
    }
    tch_real K[2][2] = {{0, 0}, {0, 0}};
    fill_side(model, data, pred, pair->geom_a, 0, p_W, t, K, fp);
    fill_side(model, data, pred, pair->geom_b, 1, p_W, t, K, fp);
    fp->p_W = p_W;
    fp->limit = limit;
    fp->t1 = t[0];
    fp->t2 = t[1];
    set_inverse(K, pred->h, fp);
    fp->f[0] = fp->f[1] = 0;
}

/* The predicted motion of a pair's two bodies, (v_a, w_a, v_b, w_b) two components to a
 * register (zero for a static side), carried through the pair's sweeps and stored back once. */
typedef struct pair_motion {
    tch_real2 m[6];
} pair_motion;

/* The loads and stores below touch the predictions in the same pieces (x and y of a velocity
 * together, z alone; x of an angular velocity alone, y and z together), so that a pair's loads
 * take what the pair before it stored from the store buffer, which a load spanning two stores
 * cannot. */
static void load_motion(const tch_velocity_prediction* pred, const tch_friction_point* fp,
                        pair_motion* motion) {
    for (int k = 0; k < 2; ++k) {
        tch_real2* side = motion->m + 3 * k;
        if (fp->root[k] == 0) {
            side[0] = side[1] = side[2] = (tch_real2){0, 0};
            continue;
        }
        const tch_vec3* v = &pred->v_WCm[fp->root[k]];
        const tch_vec3* w = &pred->w_W[fp->root[k]];
        side[0] = tch_load2(&v->x);
        side[1] = (tch_real2){v->z, w->x};
        side[2] = tch_load2(&w->y);
    }
}

static void store_motion(tch_velocity_prediction* pred, const tch_friction_point* fp,
                         const pair_motion* motion) {
    for (int k = 0; k < 2; ++k) {
        if (fp->root[k] == 0) {
            continue;
        }
        const tch_real2* side = motion->m + 3 * k;
        tch_vec3* v = &pred->v_WCm[fp->root[k]];
        tch_vec3* w = &pred->w_W[fp->root[k]];
        tch_store2(&v->x, side[0]);
        v->z = side[1][0];
        w->x = side[1][1];
        tch_store2(&w->y, side[2]);
    }
}

/* The predicted slip of b against a at the point along (t1, t2): t_i . (v_b - v_a) + u_i . w
 * on each side (u signed), b's term before a's, each dot product summed x, y, z. Linear in the
 * motion: the slip a change of the motion makes is point_slip of the change. */
static inline tch_real2 point_slip(const pair_motion* motion, const tch_friction_point* fp) {
    const tch_real2* m = motion->m; /* m[c] holds components 2c, 2c + 1 */
    const tch_real2 dv01 = m[3] - m[0], dv2 = m[4] - m[1]; /* v_b - v_a: x, y; z in lane 0 */
    const tch_real2 along = tch_load2(fp->t[0]) * TCH_LANE2(dv01, 0) + tch_load2(fp->t[1]) * TCH_LANE2(dv01, 1) +
                        tch_load2(fp->t[2]) * TCH_LANE2(dv2, 0);
    const tch_real2 turn_b = tch_load2(fp->u[1][0]) * TCH_LANE2(m[4], 1) +
                         tch_load2(fp->u[1][1]) * TCH_LANE2(m[5], 0) + tch_load2(fp->u[1][2]) * TCH_LANE2(m[5], 1);
    const tch_real2 turn_a = tch_load2(fp->u[0][0]) * TCH_LANE2(m[1], 1) +
                         tch_load2(fp->u[0][1]) * TCH_LANE2(m[2], 0) + tch_load2(fp->u[0][2]) * TCH_LANE2(m[2], 1);
    return along + turn_b + turn_a;
}

/* The change of a point's friction that would stop its predicted slip s on its own, the total
 * clamped to the Coulomb disk (sliding: against the slip). */
static inline tch_real2 point_change(const tch_friction_point* fp, tch_real2 s) {
    const tch_real2 f_now = tch_load2(fp->f);
    tch_real2 f = f_now - (tch_load2(fp->K_inv_h[0]) * TCH_LANE2(s, 0) + tch_load2(fp->K_inv_h[1]) * TCH_LANE2(s, 1));
    tch_real norm_squared = f[0] * f[0] + f[1] * f[1];
    if (norm_squared > fp->limit * fp->limit) {
        /* Sliding: Coulomb's friction opposes the slip (maximum dissipation), which the
         * stopping force, skewed by K, would not. */
        tch_real s1 = s[0], s2 = s[1], f1 = f[0], f2 = f[1];
        tch_real speed = sqrt(s1 * s1 + s2 * s2), norm = sqrt(norm_squared);
        f[0] = speed > 0 ? -fp->limit * s1 / speed : f1 * fp->limit / norm;
        f[1] = speed > 0 ? -fp->limit * s2 / speed : f2 * fp->limit / norm;
    }
    return f - f_now;
}

/* Moves the predicted motion by the point's friction change d = (d1, d2), first along t1 then
 * t2 in each component (a static side's rows are zero: its motion stays zero). */
static inline void move_motion(pair_motion* motion, const tch_friction_point* fp, tch_real2 d) {
    const tch_real2 d1 = TCH_LANE2(d, 0), d2 = TCH_LANE2(d, 1);
    for (int c = 0; c < 6; ++c) {
        motion->m[c] = motion->m[c] + d1 * tch_load2(fp->motion[0] + 2 * c) +
                       d2 * tch_load2(fp->motion[1] + 2 * c);
    }
}

/* The size of a change of a point's force squared, N^2. */
static inline tch_real squared(tch_real2 d) {
    return d[0] * d[0] + d[1] * d[1];
}

/* Sweeps over a pair's points until no force changes by more than `tolerance`, point by point
 * (Gauss-Seidel): each point's update from the motion its predecessors left. */
static inline __attribute__((always_inline)) void relax_in_turn(pair_motion* m,
                                                                tch_friction_point* points,
                                                                int count, tch_real tolerance) {
    for (int sweep = 0; sweep < FRICTION_SWEEPS; ++sweep) {
        tch_real largest = 0;
        for (int i = 0; i < count; ++i) {
            tch_real2 d = point_change(&points[i], point_slip(m, &points[i]));
            tch_store2(points[i].f, tch_load2(points[i].f) + d);
            move_motion(m, &points[i], d);
            largest = larger(largest, squared(d));
        }
        if (largest <= tolerance * tolerance || count == 1) {
            return;
        }
    }
}

/* Sweeps over a pair's points until no force changes by more than `tolerance`, all points
 * together: every point's change computed from the same motion (each the single-point update:
 * stop its slip, or slide against it at the Coulomb limit), then all of them taken together
 * along an exact line search, the step alpha in [0, 1] that minimizes the pair's friction
 * objective 1/2 f^T W f + s^T f (W = h J M^-1 J^T, whose gradient is the predicted slip) along
 * the changes: alpha = -(slip . d) / (d^T W d), d^T W d measured as the slip the changes make
 * (the slip is linear in the motion: the changes' motion, from zero, gives it, and moves the
 * slips on to the next sweep without reading them again). Blind to the points' order, so
 * symmetric points get symmetric forces (Gauss-Seidel loads the point it visits first and tips
 * a symmetric impact); every change keeps each force in its disk (a convex combination of two
 * that are) and lowers the objective. */
enum { JACOBI_POINTS = 16 };

static inline __attribute__((always_inline)) void relax_together(pair_motion* m,
                                                                 tch_friction_point* points,
                                                                 int count, tch_real tolerance) {
    tch_real2 slip[JACOBI_POINTS], d[JACOBI_POINTS], made[JACOBI_POINTS];
    for (int i = 0; i < count; ++i) {
        slip[i] = point_slip(m, &points[i]);
    }
    for (int sweep = 0; sweep < FRICTION_SWEEPS; ++sweep) {
        pair_motion change;
        for (int c = 0; c < 6; ++c) {
            change.m[c] = (tch_real2){0, 0};
        }
        for (int i = 0; i < count; ++i) {
            d[i] = point_change(&points[i], slip[i]);
            move_motion(&change, &points[i], d[i]);
        }
        tch_real descent = 0, curvature = 0;
        for (int i = 0; i < count; ++i) {
            made[i] = point_slip(&change, &points[i]);
            const tch_real2 slope = slip[i] * d[i], bend = made[i] * d[i];
            descent += slope[0] + slope[1];
            curvature += bend[0] + bend[1];
        }
        if (!(descent < 0)) {
            return; /* the forces already minimize the objective */
        }
        tch_real largest = 0;
        const tch_real step_size = curvature > -descent ? -descent / curvature : 1;
        const tch_real2 alpha = {step_size, step_size};
        for (int i = 0; i < count; ++i) {
            const tch_real2 step = alpha * d[i];
            tch_store2(points[i].f, tch_load2(points[i].f) + step);
            largest = larger(largest, squared(step));
            slip[i] += alpha * made[i];
        }
        for (int c = 0; c < 6; ++c) {
            m->m[c] += alpha * change.m[c];
        }
        if (largest <= tolerance * tolerance) {
            return;
        }
    }
}

tch_real tch_friction_relax(tch_velocity_prediction* pred, tch_friction_point* points,
                            int count) {
    if (count == 0) {
        return 0;
    }
    tch_real total_limit = 0;
    for (int i = 0; i < count; ++i) {
        total_limit += points[i].limit;
        points[i].f_entry[0] = points[i].f[0];
        points[i].f_entry[1] = points[i].f[1];
    }
    tch_real tolerance = 1e-6 * total_limit;
    pair_motion m;
    load_motion(pred, &points[0], &m);
    if (count == 1 || count > JACOBI_POINTS) {
        relax_in_turn(&m, points, count, tolerance);
    } else {
        relax_together(&m, points, count, tolerance);
    }
    store_motion(pred, &points[0], &m);
    tch_real largest = 0;
    for (int i = 0; i < count; ++i) {
        tch_real d1 = points[i].f[0] - points[i].f_entry[0];
        tch_real d2 = points[i].f[1] - points[i].f_entry[1];
        largest = larger(largest, d1 * d1 + d2 * d2);
    }
    return largest;
}

/* Passes over all pairs at most; they stop earlier once no point's force changes by more than
 * a 1e-6 share of the total Coulomb bound. Two keep the towers of test_point_energy below
 * 1e-7 J of positive work in 5 s (one pass: 0.26 J) for 1.5 times the single pass's step in a
 * pile of 100 boxes; four cost 3.7 times (docs/contact-point.md, "Friction between several
 * pairs"). */
enum { FRICTION_PAIR_SWEEPS = 2 };

void tch_friction_solve_pairs(const tch_model* model, tch_data* data,
                              tch_velocity_prediction* pred, tch_friction_point* points,
                              const tch_friction_pair* pairs, int pair_count) {
    tch_real total_limit = 0;
    for (int j = 0; j < pair_count; ++j) {
        for (int i = 0; i < pairs[j].count; ++i) {
            total_limit += points[pairs[j].start + i].limit;
        }
    }
    tch_real tolerance = 1e-6 * total_limit;
    for (int sweep = 0; sweep < FRICTION_PAIR_SWEEPS; ++sweep) {
        tch_real largest = 0;
        for (int j = 0; j < pair_count; ++j) {
            largest = larger(largest,
                           tch_friction_relax(pred, points + pairs[j].start, pairs[j].count));
        }
        if (largest <= tolerance * tolerance || pair_count == 1) {
            break;
        }
    }
    for (int j = 0; j < pair_count; ++j) {
        tch_friction_apply(model, data, pairs[j].pair, points + pairs[j].start, pairs[j].count);
    }
}

void tch_friction_apply(const tch_model* model, tch_data* data, tch_pair_result* pair,
                        const tch_friction_point* points, int count) {
    for (int i = 0; i < count; ++i) {
        tch_contact_apply_force(model, data, pair, points[i].p_W,
                                tch_friction_point_force(&points[i]));
    }
}

void tch_friction_solve(const tch_model* model, tch_data* data, tch_velocity_prediction* pred,
                        tch_pair_result* pair, tch_friction_point* points, int count) {
    tch_friction_relax(pred, points, count);
    tch_friction_apply(model, data, pair, points, count);
}

tch_vec3 tch_friction_point_force(const tch_friction_point* fp) {
    return tch_v3_add(tch_v3_scale(fp->t1, fp->f[0]), tch_v3_scale(fp->t2, fp->f[1]));
}
