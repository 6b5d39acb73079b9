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

/* K_ij contribution of geom g's body at p for tangents t_i, t_j:
 * K = Σ_bodies (I/m + [(r × t_i) · I⁻¹ (r × t_j)]). */
static void add_tangent_mass(const tch_model* model, const tch_data* data,
                             const tch_velocity_prediction* pred, int geom, tch_vec3 p_W,
                             const tch_vec3 t[2], tch_real K[2][2]) {
    int root = model->body_root[model->geom_body[geom]];
    if (root == 0) {
        return;
    }
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root]);
    tch_vec3 u[2] = {tch_v3_cross(r, t[0]), tch_v3_cross(r, t[1])};
    tch_real inv_m = 1 / model->body_total_mass[root];
    for (int i = 0; i < 2; ++i) {
        tch_vec3 Iu = tch_m3_mul_v3(pred->I_inv_W[root], u[i]);
        for (int j = 0; j < 2; ++j) {
            K[i][j] += tch_v3_dot(u[j], Iu) + (i == j ? inv_m : 0);
        }
    }
}

void tch_friction_point_init(const tch_model* model, const tch_data* data,
                             const tch_velocity_prediction* pred, const tch_pair_result* pair,
                             tch_vec3 p_W, tch_vec3 n_W, tch_real limit, tch_friction_point* fp) {
    tch_vec3 t[2];
    tch_v3_basis(n_W, &t[0], &t[1]);
    tch_real K[2][2] = {{0, 0}, {0, 0}};
    add_tangent_mass(model, data, pred, pair->geom_a, p_W, t, K);
    add_tangent_mass(model, data, pred, pair->geom_b, p_W, t, K);
    tch_real det = K[0][0] * K[1][1] - K[0][1] * K[1][0];
    *fp = (tch_friction_point){p_W, n_W, limit, t[0], t[1],
                               {{K[1][1] / det, -K[0][1] / det}, {-K[1][0] / det, K[0][0] / det}},
                               0, 0};
}

/* One Gauss-Seidel update of a point's friction: the change that stops the predicted slip,
 * the total clamped to the Coulomb disk. Returns the size of the change, N. */
static tch_real update_point(const tch_model* model, tch_data* data,
                             tch_velocity_prediction* pred, tch_pair_result* pair,
                             tch_friction_point* fp) {
    tch_vec3 p = fp->p_W;
    tch_vec3 v = tch_v3_sub(tch_contact_predicted_point_velocity(model, data, pred, pair->geom_b, p),
                            tch_contact_predicted_point_velocity(model, data, pred, pair->geom_a, p));
    tch_real s1 = tch_v3_dot(v, fp->t1), s2 = tch_v3_dot(v, fp->t2);
    tch_real f1 = fp->f1 - (fp->K_inv[0][0] * s1 + fp->K_inv[0][1] * s2) / pred->h;
    tch_real f2 = fp->f2 - (fp->K_inv[1][0] * s1 + fp->K_inv[1][1] * s2) / pred->h;
    tch_real norm = sqrt(f1 * f1 + f2 * f2), speed = sqrt(s1 * s1 + s2 * s2);
    if (norm > fp->limit) {
        /* Sliding: Coulomb's friction opposes the slip (maximum dissipation), which the
         * stopping force, skewed by K, would not. */
        f1 = speed > 0 ? -fp->limit * s1 / speed : f1 * fp->limit / norm;
        f2 = speed > 0 ? -fp->limit * s2 / speed : f2 * fp->limit / norm;
    }
    tch_real d1 = f1 - fp->f1, d2 = f2 - fp->f2;
    fp->f1 = f1;
    fp->f2 = f2;
    tch_vec3 change = tch_v3_add(tch_v3_scale(fp->t1, d1), tch_v3_scale(fp->t2, d2));
    tch_contact_apply_friction(model, data, pred, pair, p, change);
    return sqrt(d1 * d1 + d2 * d2);
}

void tch_friction_solve(const tch_model* model, tch_data* data, tch_velocity_prediction* pred,
                        tch_pair_result* pair, tch_friction_point* points, int count) {
    tch_real total_limit = 0;
    for (int i = 0; i < count; ++i) {
        total_limit += points[i].limit;
    }
    tch_real tolerance = 1e-6 * total_limit;
    for (int sweep = 0; sweep < FRICTION_SWEEPS && count > 0; ++sweep) {
        tch_real largest_change = 0;
        for (int i = 0; i < count; ++i) {
            largest_change = fmax(largest_change, update_point(model, data, pred, pair, &points[i]));
        }
        if (largest_change <= tolerance || count == 1) {
            break;
        }
    }
}

tch_vec3 tch_friction_point_force(const tch_friction_point* fp) {
    return tch_v3_add(tch_v3_scale(fp->t1, fp->f1), tch_v3_scale(fp->t2, fp->f2));
}
