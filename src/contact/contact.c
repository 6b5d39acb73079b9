#include "contact/contact.h"
#include "contact/peg.h"

#include <stdlib.h>

#include "contact/planar.h"
#include "math/spin.h"
#include "math/vec.h"

/* Grows *buffer (of `size` bytes per element) to hold `needed` elements; doubles. */
static int grow_buffer(void** buffer, int* capacity, int needed, size_t size, long* growth) {
    if (needed <= *capacity) {
        return 0;
    }
    int grown = *capacity > 0 ? *capacity : 16;
    while (grown < needed) {
        grown *= 2;
    }
    void* p = realloc(*buffer, (size_t)grown * size);
    if (!p) {
        return -1;
    }
    *buffer = p;
    *capacity = grown;
    (*growth)++;
    return 0;
}

int tch_contact_reserve(tch_data* d, int points, int polygons, int vertices) {
    long* growth = &d->buffer_growth_count;
    int vertex_capacity = d->polygon_vertex_capacity;
    int failed =
        grow_buffer((void**)&d->contacts, &d->contact_capacity, d->contact_count + points,
                    sizeof *d->contacts, growth) ||
        grow_buffer((void**)&d->pair_results, &d->pair_result_capacity,
                    d->pair_result_count + 1, sizeof *d->pair_results, growth) ||
        grow_buffer((void**)&d->polygons, &d->polygon_capacity, d->polygon_count + polygons,
                    sizeof *d->polygons, growth) ||
        grow_buffer((void**)&d->polygon_vertices_W, &vertex_capacity,
                    d->polygon_vertex_count + vertices, sizeof *d->polygon_vertices_W, growth) ||
        grow_buffer((void**)&d->polygon_vertex_pressure, &d->polygon_vertex_capacity,
                    d->polygon_vertex_count + vertices, sizeof *d->polygon_vertex_pressure,
                    growth);
    return failed ? -1 : 0;
}

/* The models this build offers; the others have no entry, and the compiler refuses them. */
static const tch_contact_ops* const model_ops[TCH_CONTACT_MODEL_END] = {
    [TCH_CONTACT_POINT] = &tch_point_ops,
    [TCH_CONTACT_VOLUME] = &tch_volume_ops,
    [TCH_CONTACT_PRESSURE] = &tch_pressure_ops,
    [TCH_CONTACT_LCP] = &tch_lcp_ops,
    [TCH_CONTACT_PEG] = &tch_peg_ops,
};

/* Names of the entries without ops: the scene's "not set here", and the models that arrive
 * with their issues. */
static const char* const names_without_ops[TCH_CONTACT_MODEL_END] = {
    [TCH_CONTACT_INHERIT] = "inherit",
};

const tch_contact_ops* tch_contact_model_ops(tch_contact_model model) {
    return model >= 0 && model < TCH_CONTACT_MODEL_END ? model_ops[model] : NULL;
}

const tch_contact_ops* tch_model_contact_ops(const tch_model* model, tch_contact_model slot) {
    if (slot < 0 || slot >= TCH_CONTACT_MODEL_END) {
        return NULL;
    }
    const tch_contact_ops* replaced = model->internal->ops[slot];
    return replaced ? replaced : model_ops[slot];
}

void tch_model_replace_contact_ops(tch_model* model, tch_contact_model slot,
                                   const tch_contact_ops* ops) {
    if (slot >= 0 && slot < TCH_CONTACT_MODEL_END) {
        model->internal->ops[slot] = ops;
    }
}

const char* tch_contact_model_label(tch_contact_model model) {
    const tch_contact_ops* ops = tch_contact_model_ops(model);
    if (ops) {
        return ops->name;
    }
    return model >= 0 && model < TCH_CONTACT_MODEL_END ? names_without_ops[model] : "unknown";
}

static int geom_root(const tch_model* model, int geom) {
    return model->body_root[model->geom_body[geom]];
}

void tch_contact_apply_force(const tch_model* model, tch_data* data, tch_pair_result* pair,
                             tch_vec3 p_W, tch_vec3 f_W) {
    int root_a = geom_root(model, pair->geom_a);
    int root_b = geom_root(model, pair->geom_b);
    if (root_b > 0) {
        tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root_b]);
        data->body_force_W[root_b] = tch_v3_add(data->body_force_W[root_b], f_W);
        data->body_torque_W[root_b] = tch_v3_add(data->body_torque_W[root_b], tch_v3_cross(r, f_W));
    }
    if (root_a > 0) {
        tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root_a]);
        data->body_force_W[root_a] = tch_v3_sub(data->body_force_W[root_a], f_W);
        data->body_torque_W[root_a] = tch_v3_sub(data->body_torque_W[root_a], tch_v3_cross(r, f_W));
    }
    pair->f_W = tch_v3_add(pair->f_W, f_W);
    pair->tau_Wo_W = tch_v3_add(pair->tau_Wo_W, tch_v3_cross(p_W, f_W));
}

void tch_contact_apply_moment(const tch_model* model, tch_data* data, tch_pair_result* pair,
                              tch_vec3 m_W) {
    int root_a = geom_root(model, pair->geom_a);
    int root_b = geom_root(model, pair->geom_b);
    if (root_b > 0) {
        data->body_torque_W[root_b] = tch_v3_add(data->body_torque_W[root_b], m_W);
    }
    if (root_a > 0) {
        data->body_torque_W[root_a] = tch_v3_sub(data->body_torque_W[root_a], m_W);
    }
    pair->tau_Wo_W = tch_v3_add(pair->tau_Wo_W, m_W);
}

tch_real tch_contact_settling_speed(const tch_model* model) {
    return 4 * tch_v3_norm(model->gravity) * model->timestep;
}

tch_vec3 tch_contact_point_velocity(const tch_model* model, const tch_data* data, int geom,
                                    tch_vec3 p_W) {
    int root = geom_root(model, geom);
    if (root == 0) {
        return tch_v3_zero();
    }
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root]);
    return tch_v3_add(data->body_v_WCm[root], tch_v3_cross(data->body_w_W[root], r));
}

/* Body b's angular velocity after semi-implicit Euler's step of h under its torque, world: the
 * engine's update (dynamics/free_body.h), with the gyroscopic term implicit (math/spin.h); in
 * the planar mode, whose w along y has no gyroscopic part, w + h I^-1 tau with the planar
 * inverse inertia (contact/planar.h). */
static tch_vec3 predicted_angular_velocity(const tch_model* model, const tch_data* data, int b,
                                           tch_real h) {
    tch_vec3 w = data->body_w_W[b], tau = data->body_torque_W[b];
    if (tch_is_planar(model)) {
        return tch_v3_madd(w, h, tch_m3_mul_v3(data->body_I_inv_W[b], tau));
    }
    const tch_mat3* R = &data->body_R_WB[b];
    const tch_mat3* I_B = &model->body_total_I_BCm[b];
    tch_vec3 w_B;
    tch_spin_step(*I_B, model->body_total_I_inv[b], tch_m3_tmul_v3(*R, w),
                  tch_m3_tmul_v3(*R, tau), h, &w_B);
    return tch_m3_mul_v3(*R, w_B);
}

void tch_contact_predict_velocities(const tch_model* model, const tch_data* data, tch_real h,
                                    tch_velocity_prediction* prediction) {
    prediction->h = h;
    for (int b = 1; b < model->body_count; ++b) {
        if (model->body_mocap[b] >= 0) { /* prescribed: keeps its velocity */
            prediction->w_W[b] = data->body_w_W[b];
            prediction->v_WCm[b] = data->body_v_WCm[b];
        }
        if (!model->body_free[b]) {
            continue;
        }
        prediction->w_W[b] = predicted_angular_velocity(model, data, b, h);
        prediction->v_WCm[b] = tch_v3_madd(data->body_v_WCm[b], h / model->body_total_mass[b],
                                           tch_planar_linear(model, data->body_force_W[b]));
    }
}

tch_vec3 tch_contact_predicted_point_velocity(const tch_model* model, const tch_data* data,
                                              const tch_velocity_prediction* prediction,
                                              int geom, tch_vec3 p_W) {
    int root = geom_root(model, geom);
    if (root == 0) {
        return tch_v3_zero();
    }
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root]);
    return tch_v3_add(prediction->v_WCm[root], tch_v3_cross(prediction->w_W[root], r));
}

void tch_link_velocity_change(const tch_link_mobility* link, tch_real h, tch_vec3 f_W,
                              tch_vec3 tau_W, tch_vec3* dv, tch_vec3* dw) {
    *dv = tch_v3_scale(
        tch_v3_add(tch_m3_mul_v3(link->v_f, f_W), tch_m3_mul_v3(link->v_tau, tau_W)), h);
    *dw = tch_v3_scale(
        tch_v3_add(tch_m3_tmul_v3(link->v_tau, f_W), tch_m3_mul_v3(link->w_tau, tau_W)), h);
}

static void predict_change(const tch_model* model, const tch_data* data,
                           tch_velocity_prediction* prediction, int root, tch_vec3 p_W,
                           tch_vec3 f_W) {
    if (root == 0) {
        return;
    }
    tch_real h = prediction->h;
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root]);
    const tch_link_mobility* link = tch_prediction_link(prediction, root);
    if (link) {
        tch_vec3 dv, dw;
        tch_link_velocity_change(link, h, f_W, tch_v3_cross(r, f_W), &dv, &dw);
        prediction->v_WCm[root] = tch_v3_add(prediction->v_WCm[root], dv);
        prediction->w_W[root] = tch_v3_add(prediction->w_W[root], dw);
        return;
    }
    prediction->v_WCm[root] =
        tch_v3_madd(prediction->v_WCm[root], h / model->body_total_mass[root],
                    tch_planar_linear(model, f_W));
    prediction->w_W[root] = tch_v3_madd(prediction->w_W[root], h,
                                        tch_m3_mul_v3(data->body_I_inv_W[root],
                                                      tch_v3_cross(r, f_W)));
}

void tch_contact_apply_friction(const tch_model* model, tch_data* data,
                                tch_velocity_prediction* prediction, tch_pair_result* pair,
                                tch_vec3 p_W, tch_vec3 f_W) {
    tch_contact_apply_force(model, data, pair, p_W, f_W);
    predict_change(model, data, prediction, geom_root(model, pair->geom_b), p_W, f_W);
    predict_change(model, data, prediction, geom_root(model, pair->geom_a), p_W,
                   tch_v3_neg(f_W));
}

/* ---- linearization (docs/integrators.md) ---- */

static tch_vec3 read_block(const tch_real* x, int block) {
    return (tch_vec3){x[3 * block], x[3 * block + 1], x[3 * block + 2]};
}

static void write_block(tch_real* x, int block, tch_vec3 v) {
    x[3 * block] = v.x;
    x[3 * block + 1] = v.y;
    x[3 * block + 2] = v.z;
}

/* Where the two bodies' sides of a contact sit relative to their centres of mass, and the
 * share of b's motion in the sliding of o along the plane (0 when b is static, 1 when a is
 * static, 1/2 between free bodies). */
typedef struct contact_arms {
    tch_vec3 r_a, r_b;               /* o relative to each centre of mass */
    tch_vec3 surface_a, surface_b;   /* each body's surface point under o, same */
    tch_real share_b;
} contact_arms;

/* Displacement of the material point at r (relative to the centre of mass) of a body moved by
 * (delta, phi). */
static tch_vec3 point_motion(const tch_real* x, tch_vec3 r) {
    return tch_v3_add(read_block(x, 0), tch_v3_cross(read_block(x, 1), r));
}

/* The generalized forces (f_a, τ_a, f_b, τ_b) of a wrench change of (dF, dM about o), plus the
 * moment changes arm_a, arm_b of each body. */
static void body_forces(const contact_arms* arms, tch_vec3 dF, tch_vec3 dM, tch_vec3 arm_a,
                        tch_vec3 arm_b, tch_real y[12]) {
    write_block(y, 0, tch_v3_neg(dF));
    write_block(y, 1, tch_v3_neg(tch_v3_add(tch_v3_add(dM, arm_a), tch_v3_cross(arms->r_a, dF))));
    write_block(y, 2, dF);
    write_block(y, 3, tch_v3_add(tch_v3_add(dM, arm_b), tch_v3_cross(arms->r_b, dF)));
}

/* S(r)^T L S(r') for S(r) = [[1, -[r]x], [0, 1]], the map from a body's motion (δ, φ) to that
 * of its material point at r and its rotation: the local 6x6 L carried to two bodies' centres
 * of mass (Y = L S(r'), then the rows of moments gain r x the rows of forces). */
static void carry(const tch_real L[6][6], tch_vec3 r, tch_vec3 r_prime, tch_real out[6][6]) {
    tch_mat3 R = tch_m3_skew(r), R_prime = tch_m3_skew(r_prime);
    tch_real Y[6][6];
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 3; ++j) {
            Y[i][j] = L[i][j];
            Y[i][3 + j] = L[i][3 + j];
            for (int k = 0; k < 3; ++k) {
                Y[i][3 + j] -= L[i][k] * R_prime.m[k][j];
            }
        }
    }
    for (int j = 0; j < 6; ++j) {
        for (int i = 0; i < 3; ++i) {
            out[i][j] = Y[i][j];
            out[3 + i][j] = Y[3 + i][j];
            for (int k = 0; k < 3; ++k) {
                out[3 + i][j] += R.m[i][k] * Y[k][j];
            }
        }
    }
}

/* Adds the local map L carried to the bodies, body a's side negated: the relative motion at o
 * is S(r_b) x_b - S(r_a) x_a, and a receives the opposite wrench. */
static void add_carried(const tch_real L[6][6], const contact_arms* arms, tch_real out[12][12]) {
    const tch_vec3 r[2] = {arms->r_a, arms->r_b};
    for (int s = 0; s < 2; ++s) {
        for (int t = 0; t < 2; ++t) {
            tch_real block[6][6];
            carry(L, r[s], r[t], block);
            tch_real sign = s == t ? 1 : -1;
            for (int i = 0; i < 6; ++i) {
                for (int j = 0; j < 6; ++j) {
                    out[6 * s + i][6 * t + j] += sign * block[i][j];
                }
            }
        }
    }
}

/* The geometric change for a motion x: the wrench turns with the contact plane and its moment
 * arms follow o. */
static void geometric_variation(const tch_wrench_linearization* w, const contact_arms* arms,
                                const tch_real x[12], tch_real y[12]) {
    tch_real s = arms->share_b;
    /* the plane turns with the other body: the static one, or the mean of two free ones */
    tch_vec3 turn = tch_v3_add(tch_v3_scale(read_block(x, 1), s), tch_v3_scale(read_block(x, 3), 1 - s));
    tch_vec3 dF = tch_v3_cross(turn, w->F_W), dM = tch_v3_cross(turn, w->M_W);
    /* o: midway between the surfaces across the plane, with the surface points along it */
    tch_vec3 n = w->n_W;
    tch_vec3 across = tch_v3_add(point_motion(x, arms->r_a), point_motion(x + 6, arms->r_b));
    tch_vec3 slide = tch_v3_add(tch_v3_scale(point_motion(x, arms->surface_a), 1 - s),
                                tch_v3_scale(point_motion(x + 6, arms->surface_b), s));
    tch_vec3 d_o = tch_v3_madd(slide, 0.5 * tch_v3_dot(n, across) - tch_v3_dot(n, slide), n);
    tch_vec3 arm_a = tch_v3_cross(tch_v3_sub(d_o, read_block(x, 0)), w->F_W);
    tch_vec3 arm_b = tch_v3_cross(tch_v3_sub(d_o, read_block(x, 2)), w->F_W);
    body_forces(arms, dF, dM, arm_a, arm_b, y);
}

void tch_contact_linearize_wrench(const tch_model* model, const tch_data* data,
                                  const tch_pair_result* pair,
                                  const tch_wrench_linearization* w,
                                  tch_pair_linearization* out) {
    int root_a = geom_root(model, pair->geom_a), root_b = geom_root(model, pair->geom_b);
    contact_arms arms;
    arms.r_a = tch_v3_sub(w->o_W, data->body_p_WCm[root_a]);
    arms.r_b = tch_v3_sub(w->o_W, data->body_p_WCm[root_b]);
    arms.surface_a = tch_v3_madd(arms.r_a, 0.5 * w->depth, w->n_W);
    arms.surface_b = tch_v3_madd(arms.r_b, -0.5 * w->depth, w->n_W);
    arms.share_b = root_a == 0 ? 1 : root_b == 0 ? 0 : 0.5;
    add_carried(w->K, &arms, out->K);
    add_carried(w->D, &arms, out->D);
    for (int j = 0; j < 12 && out->geometric; ++j) {
        tch_real x[12] = {0}, geometric[12];
        x[j] = 1;
        geometric_variation(w, &arms, x, geometric);
        for (int i = 0; i < 12; ++i) {
            out->G[i][j] += geometric[i];
        }
    }
}
