#include "contact/friction.h"

#include <math.h>

#include "math/vec.h"

/* Gauss-Seidel sweeps over a pair's points at most; they stop earlier once no force changes
 * by more than a 1e-6 share of the total Coulomb bound (one sweep is exact for one point). */
enum { FRICTION_SWEEPS = 4 };

/* Cubic smoothstep on [0, 1]. */
static tch_real smoothstep(tch_real x) {
    x = fmin(fmax(x, 0), 1);
    return x * x * (3 - 2 * x);
}

tch_real tch_friction_coefficient(const tch_pair_params* p, tch_real speed) {
    tch_real s = speed / p->stiction_velocity;
    return p->static_friction - (p->static_friction - p->friction) * smoothstep((s - 1) / 2);
}

/* Geom g's body's side of the point at p for tangents t, and its share of the tangential
 * inverse mass K_ij = sum over the bodies of (delta_ij / m + u_i . I^-1 u_j), u_i = r x t_i. */
static tch_friction_side make_side(const tch_model* model, const tch_data* data,
                                   const tch_velocity_prediction* pred, int geom, tch_vec3 p_W,
                                   const tch_vec3 t[2], tch_real K[2][2]) {
    tch_friction_side side = {.root = model->body_root[model->geom_body[geom]]};
    if (side.root == 0) {
        return side;
    }
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[side.root]);
    tch_real inv_m = 1 / model->body_total_mass[side.root];
    side.h_over_m = pred->h * inv_m;
    side.u[0] = tch_v3_cross(r, t[0]);
    side.u[1] = tch_v3_cross(r, t[1]);
    for (int i = 0; i < 2; ++i) {
        tch_vec3 Iu = tch_m3_mul_v3(pred->I_inv_W[side.root], side.u[i]);
        side.du[i] = tch_v3_scale(Iu, pred->h);
        for (int j = 0; j < 2; ++j) {
            K[i][j] += tch_v3_dot(side.u[j], Iu) + (i == j ? inv_m : 0);
        }
    }
    return side;
}

void tch_friction_point_init(const tch_model* model, const tch_data* data,
                             const tch_velocity_prediction* pred, const tch_pair_result* pair,
                             tch_vec3 p_W, tch_vec3 n_W, tch_real limit, tch_friction_point* fp) {
    tch_vec3 t[2];
    tch_v3_basis(n_W, &t[0], &t[1]);
    tch_real K[2][2] = {{0, 0}, {0, 0}};
    tch_friction_side a = make_side(model, data, pred, pair->geom_a, p_W, t, K);
    tch_friction_side b = make_side(model, data, pred, pair->geom_b, p_W, t, K);
    tch_real hdet = pred->h * (K[0][0] * K[1][1] - K[0][1] * K[1][0]);
    *fp = (tch_friction_point){
        p_W, limit, t[0], t[1],
        {{K[1][1] / hdet, -K[0][1] / hdet}, {-K[1][0] / hdet, K[0][0] / hdet}}, {a, b}, 0, 0};
}

/* The predicted slip of b against a at the point along t1 (s[0]) and t2 (s[1]). */
static void predicted_slip(const tch_velocity_prediction* pred, const tch_friction_point* fp,
                           tch_real s[2]) {
    s[0] = s[1] = 0;
    for (int k = 0; k < 2; ++k) {
        const tch_friction_side* side = &fp->side[k];
        if (side->root == 0) {
            continue;
        }
        tch_real sign = k == 1 ? 1 : -1; /* the slip is b's velocity less a's */
        tch_vec3 v = pred->v_WCm[side->root], w = pred->w_W[side->root];
        s[0] += sign * (tch_v3_dot(fp->t1, v) + tch_v3_dot(side->u[0], w));
        s[1] += sign * (tch_v3_dot(fp->t2, v) + tch_v3_dot(side->u[1], w));
    }
}

/* Moves the predictions by a change (d1, d2) of the point's friction on b (its opposite on a). */
static void predict_change(tch_velocity_prediction* pred, const tch_friction_point* fp,
                           tch_real d1, tch_real d2) {
    tch_vec3 f = tch_v3_add(tch_v3_scale(fp->t1, d1), tch_v3_scale(fp->t2, d2));
    for (int k = 0; k < 2; ++k) {
        const tch_friction_side* side = &fp->side[k];
        if (side->root == 0) {
            continue;
        }
        tch_real sign = k == 1 ? 1 : -1;
        tch_vec3* v = &pred->v_WCm[side->root];
        tch_vec3* w = &pred->w_W[side->root];
        *v = tch_v3_madd(*v, sign * side->h_over_m, f);
        *w = tch_v3_madd(tch_v3_madd(*w, sign * d1, side->du[0]), sign * d2, side->du[1]);
    }
}

/* One Gauss-Seidel update of a point's friction: the change that stops the predicted slip,
 * the total clamped to the Coulomb disk. Returns the size of the change squared, N^2. */
static tch_real update_point(tch_velocity_prediction* pred, tch_friction_point* fp) {
    tch_real s[2];
    predicted_slip(pred, fp, s);
    tch_real f1 = fp->f1 - (fp->K_inv_h[0][0] * s[0] + fp->K_inv_h[0][1] * s[1]);
    tch_real f2 = fp->f2 - (fp->K_inv_h[1][0] * s[0] + fp->K_inv_h[1][1] * s[1]);
    tch_real norm_squared = f1 * f1 + f2 * f2;
    if (norm_squared > fp->limit * fp->limit) {
        /* Sliding: Coulomb's friction opposes the slip (maximum dissipation), which the
         * stopping force, skewed by K, would not. */
        tch_real speed = sqrt(s[0] * s[0] + s[1] * s[1]), norm = sqrt(norm_squared);
        f1 = speed > 0 ? -fp->limit * s[0] / speed : f1 * fp->limit / norm;
        f2 = speed > 0 ? -fp->limit * s[1] / speed : f2 * fp->limit / norm;
    }
    tch_real d1 = f1 - fp->f1, d2 = f2 - fp->f2;
    fp->f1 = f1;
    fp->f2 = f2;
    predict_change(pred, fp, d1, d2);
    return d1 * d1 + d2 * d2;
}

void tch_friction_relax(tch_velocity_prediction* pred, tch_friction_point* points, int count) {
    tch_real total_limit = 0;
    for (int i = 0; i < count; ++i) {
        total_limit += points[i].limit;
    }
    tch_real tolerance = 1e-6 * total_limit;
    for (int sweep = 0; sweep < FRICTION_SWEEPS && count > 0; ++sweep) {
        tch_real largest_change_squared = 0;
        for (int i = 0; i < count; ++i) {
            tch_real change_squared = update_point(pred, &points[i]);
            largest_change_squared = change_squared > largest_change_squared
                                         ? change_squared : largest_change_squared;
        }
        if (largest_change_squared <= tolerance * tolerance || count == 1) {
            break;
        }
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
