#include "contact/friction.h"

#include <math.h>

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

/* A link's side: its velocity change under the unit force t_i at the point (the wrench
 * (t_i, u_i) about its centre of mass) through its mobility, and K_ij += t_i . dv_j + u_i . dw_j
 * per unit h (J A^-1 J^T in the tangents). */
static void fill_link_side(const tch_link_mobility* link, tch_real h, tch_real sign,
                           const tch_vec3 t[2], const tch_vec3 u[2], tch_real K[2][2],
                           tch_friction_side* side) {
    tch_vec3 dv[2], dw[2];
    for (int i = 0; i < 2; ++i) {
        tch_link_velocity_change(link, 1, t[i], u[i], &dv[i], &dw[i]);
        side->u[i] = tch_v3_scale(u[i], sign);
        side->dv[i] = tch_v3_scale(dv[i], sign * h);
        side->du[i] = tch_v3_scale(dw[i], sign * h);
        K[i][i] += tch_v3_dot(t[i], dv[i]) + tch_v3_dot(u[i], dw[i]);
    }
    tch_real coupling = tch_v3_dot(t[0], dv[1]) + tch_v3_dot(u[0], dw[1]);
    K[0][1] += coupling;
    K[1][0] += coupling;
}

/* Fills geom g's body's side of the point at p for tangents t, with the sign of the side
 * (-1 for a, whose slip counts against b's), and adds its share of the tangential inverse mass
 * K_ij = sum over the bodies of (delta_ij / m + u_i . I^-1 u_j), u_i = r x t_i. */
static void fill_side(const tch_model* model, const tch_data* data,
                      const tch_velocity_prediction* pred, int geom, tch_real sign, tch_vec3 p_W,
                      const tch_vec3 t[2], tch_real K[2][2], tch_friction_side* side) {
    side->root = model->body_root[model->geom_body[geom]];
    if (side->root == 0) {
        *side = (tch_friction_side){0};
        return;
    }
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[side->root]);
    tch_vec3 u[2] = {tch_v3_cross(r, t[0]), tch_v3_cross(r, t[1])};
    const tch_link_mobility* link = tch_prediction_link(pred, side->root);
    if (link) {
        fill_link_side(link, pred->h, sign, t, u, K, side);
        return;
    }
    const tch_mat3* I_inv = &data->body_I_inv_W[side->root];
    tch_real inv_m = 1 / model->body_total_mass[side->root];
    tch_vec3 Iu[2] = {tch_m3_mul_v3(*I_inv, u[0]), tch_m3_mul_v3(*I_inv, u[1])};
    for (int i = 0; i < 2; ++i) {
        side->u[i] = tch_v3_scale(u[i], sign);
        side->dv[i] = tch_v3_scale(t[i], sign * pred->h * inv_m);
        side->du[i] = tch_v3_scale(Iu[i], sign * pred->h);
        K[i][i] += tch_v3_dot(u[i], Iu[i]) + inv_m;
    }
    tch_real coupling = tch_v3_dot(u[1], Iu[0]);
    K[0][1] += coupling;
    K[1][0] += coupling;
}

/* K below this share of its trace squared in determinant is singular: joints forbid the slip
 * along one tangent (a link against a static body or another link; a free body always moves). */
static const tch_real SINGULAR_SHARE = 1e-9;

/* K^-1 / h; for a singular K its pseudo-inverse (rank one: K = k e e^T, K^+ = K / k^2, k the
 * trace), which puts no force along a slip the bodies cannot change, or none when K = 0. */
static void set_inverse(tch_real K[2][2], tch_real h, tch_friction_point* fp) {
    tch_real det = K[0][0] * K[1][1] - K[0][1] * K[1][0];
    tch_real trace = K[0][0] + K[1][1];
    if (det > SINGULAR_SHARE * trace * trace) {
        tch_real inv_hdet = 1 / (h * det);
        fp->K_inv_h[0][0] = K[1][1] * inv_hdet;
        fp->K_inv_h[0][1] = -K[0][1] * inv_hdet;
        fp->K_inv_h[1][0] = -K[1][0] * inv_hdet;
        fp->K_inv_h[1][1] = K[0][0] * inv_hdet;
        return;
    }
    tch_real scale = trace > 0 ? 1 / (h * trace * trace) : 0;
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
            fp->K_inv_h[i][j] = K[i][j] * scale;
        }
    }
}

void tch_friction_point_init(const tch_model* model, const tch_data* data,
                             const tch_velocity_prediction* pred, const tch_pair_result* pair,
                             tch_vec3 p_W, tch_vec3 n_W, tch_real limit, tch_friction_point* fp) {
    tch_vec3 t[2];
    tch_v3_basis(n_W, &t[0], &t[1]);
    tch_real K[2][2] = {{0, 0}, {0, 0}};
    fill_side(model, data, pred, pair->geom_a, -1, p_W, t, K, &fp->side[0]);
    fill_side(model, data, pred, pair->geom_b, 1, p_W, t, K, &fp->side[1]);
    fp->p_W = p_W;
    fp->limit = limit;
    fp->t1 = t[0];
    fp->t2 = t[1];
    set_inverse(K, pred->h, fp);
    fp->f1 = fp->f2 = 0;
}

/* The predicted motion of a pair's two bodies (a, b; zero for a static side), carried through
 * the pair's sweeps and stored back once. */
typedef struct pair_motion {
    tch_vec3 v[2], w[2];
} pair_motion;

static pair_motion load_motion(const tch_velocity_prediction* pred, const tch_friction_point* fp) {
    pair_motion m;
    for (int k = 0; k < 2; ++k) {
        int root = fp->side[k].root;
        m.v[k] = root ? pred->v_WCm[root] : tch_v3_zero();
        m.w[k] = root ? pred->w_W[root] : tch_v3_zero();
    }
    return m;
}

static void store_motion(tch_velocity_prediction* pred, const tch_friction_point* fp,
                         const pair_motion* m) {
    for (int k = 0; k < 2; ++k) {
        int root = fp->side[k].root;
        if (root) {
            pred->v_WCm[root] = m->v[k];
            pred->w_W[root] = m->w[k];
        }
    }
}

/* The predicted slip of b against a at the point along t1, t2: t_i . (v_b - v_a) + u_i . w on
 * each side (u signed). Linear in the motion: the slip a change of the motion makes is
 * point_slip of the change. */
static inline void point_slip(const pair_motion* m, const tch_friction_point* fp, tch_real s[2]) {
    const tch_friction_side* a = &fp->side[0];
    const tch_friction_side* b = &fp->side[1];
    tch_vec3 dv = tch_v3_sub(m->v[1], m->v[0]);
    s[0] = tch_v3_dot(fp->t1, dv) + tch_v3_dot(b->u[0], m->w[1]) + tch_v3_dot(a->u[0], m->w[0]);
    s[1] = tch_v3_dot(fp->t2, dv) + tch_v3_dot(b->u[1], m->w[1]) + tch_v3_dot(a->u[1], m->w[0]);
}

/* The change of a point's friction that would stop its predicted slip s on its own, the total
 * clamped to the Coulomb disk (sliding: against the slip), into d. */
static inline void point_change(const tch_friction_point* fp, const tch_real s[2], tch_real d[2]) {
    tch_real s1 = s[0], s2 = s[1];
    tch_real f1 = fp->f1 - (fp->K_inv_h[0][0] * s1 + fp->K_inv_h[0][1] * s2);
    tch_real f2 = fp->f2 - (fp->K_inv_h[1][0] * s1 + fp->K_inv_h[1][1] * s2);
    tch_real norm_squared = f1 * f1 + f2 * f2;
    if (norm_squared > fp->limit * fp->limit) {
        /* Sliding: Coulomb's friction opposes the slip (maximum dissipation), which the
         * stopping force, skewed by K, would not. */
        tch_real speed = sqrt(s1 * s1 + s2 * s2), norm = sqrt(norm_squared);
        f1 = speed > 0 ? -fp->limit * s1 / speed : f1 * fp->limit / norm;
        f2 = speed > 0 ? -fp->limit * s2 / speed : f2 * fp->limit / norm;
    }
    d[0] = f1 - fp->f1;
    d[1] = f2 - fp->f2;
}

/* Moves the predicted motion by the point's friction change (d1, d2) (a static side's rows
 * are zero: its motion stays zero). */
static inline void move_motion(pair_motion* m, const tch_friction_point* fp, tch_real d1,
                               tch_real d2) {
    for (int k = 0; k < 2; ++k) {
        const tch_friction_side* side = &fp->side[k];
        m->v[k] = tch_v3_madd(tch_v3_madd(m->v[k], d1, side->dv[0]), d2, side->dv[1]);
        m->w[k] = tch_v3_madd(tch_v3_madd(m->w[k], d1, side->du[0]), d2, side->du[1]);
    }
}

/* Changes the point's friction by (d1, d2) and the predicted motion with it; returns the size
 * of the change squared, N^2. */
static tch_real change_point(pair_motion* m, tch_friction_point* fp, tch_real d1, tch_real d2) {
    fp->f1 += d1;
    fp->f2 += d2;
    move_motion(m, fp, d1, d2);
    return d1 * d1 + d2 * d2;
}

/* Sweeps over a pair's points until no force changes by more than `tolerance`, point by point
 * (Gauss-Seidel): each point's update from the motion its predecessors left. */
static void relax_in_turn(pair_motion* m, tch_friction_point* points, int count,
                          tch_real tolerance) {
    for (int sweep = 0; sweep < FRICTION_SWEEPS; ++sweep) {
        tch_real largest = 0;
        for (int i = 0; i < count; ++i) {
            tch_real s[2], d[2];
            point_slip(m, &points[i], s);
            point_change(&points[i], s, d);
            largest = larger(largest, change_point(m, &points[i], d[0], d[1]));
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

static void relax_together(pair_motion* m, tch_friction_point* points, int count,
                           tch_real tolerance) {
    tch_real slip[JACOBI_POINTS][2], d[JACOBI_POINTS][2], made[JACOBI_POINTS][2];
    for (int i = 0; i < count; ++i) {
        point_slip(m, &points[i], slip[i]);
    }
    for (int sweep = 0; sweep < FRICTION_SWEEPS; ++sweep) {
        pair_motion change = {{tch_v3_zero(), tch_v3_zero()}, {tch_v3_zero(), tch_v3_zero()}};
        for (int i = 0; i < count; ++i) {
            point_change(&points[i], slip[i], d[i]);
            move_motion(&change, &points[i], d[i][0], d[i][1]);
        }
        tch_real descent = 0, curvature = 0;
        for (int i = 0; i < count; ++i) {
            point_slip(&change, &points[i], made[i]);
            descent += slip[i][0] * d[i][0] + slip[i][1] * d[i][1];
            curvature += made[i][0] * d[i][0] + made[i][1] * d[i][1];
        }
        if (!(descent < 0)) {
            return; /* the forces already minimize the objective */
        }
        tch_real alpha = curvature > -descent ? -descent / curvature : 1, largest = 0;
        for (int i = 0; i < count; ++i) {
            tch_real d1 = alpha * d[i][0], d2 = alpha * d[i][1];
            points[i].f1 += d1;
            points[i].f2 += d2;
            largest = larger(largest, d1 * d1 + d2 * d2);
            slip[i][0] += alpha * made[i][0];
            slip[i][1] += alpha * made[i][1];
        }
        for (int k = 0; k < 2; ++k) {
            m->v[k] = tch_v3_madd(m->v[k], alpha, change.v[k]);
            m->w[k] = tch_v3_madd(m->w[k], alpha, change.w[k]);
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
        points[i].f1_entry = points[i].f1;
        points[i].f2_entry = points[i].f2;
    }
    tch_real tolerance = 1e-6 * total_limit;
    pair_motion m = load_motion(pred, &points[0]);
    if (count == 1 || count > JACOBI_POINTS) {
        relax_in_turn(&m, points, count, tolerance);
    } else {
        relax_together(&m, points, count, tolerance);
    }
    store_motion(pred, &points[0], &m);
    tch_real largest = 0;
    for (int i = 0; i < count; ++i) {
        tch_real d1 = points[i].f1 - points[i].f1_entry, d2 = points[i].f2 - points[i].f2_entry;
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
    return tch_v3_add(tch_v3_scale(fp->t1, fp->f1), tch_v3_scale(fp->t2, fp->f2));
}
