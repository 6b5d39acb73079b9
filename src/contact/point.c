/* The point contact model: a penalty spring-damper at each contact point with regularized
 * Coulomb friction (docs/contact-point.md). This is the baseline the other models are
 * compared with (Hasegawa and Sato, sec. 3: "point-based penalty method").
 *
 * Normal force on b, along n (from a into b), with depth d > 0 and penetration rate
 * d' = -(v_b(p) - v_a(p)) . n:
 *
 *     linear:         f_n = max(0, k d + b d')
 *     Hunt-Crossley:  f_n = max(0, k d^e (1 + 3/2 alpha d'))   (Hunt and Crossley 1975, with
 *                     lambda = 3/2 alpha k as in Marhefka and Orin 1999)
 *
 * Friction is semi-implicit: after every normal force of the scene is applied, each body's
 * velocity after one step under its loads so far is predicted, and the friction of a pair is the
 * force that stops the predicted slip at its points (a few Gauss-Seidel sweeps over the points,
 * each with the effective mass of both bodies at the point, translation and rotation), clamped to
 * the Coulomb disk |f_t| <= mu f_n. The coefficient is the static mu_s while the slip speed
 * before the step is below the stiction velocity v_s, and falls smoothly (cubic) to the dynamic
 * mu_d at 3 v_s. A body can so rest on a slope without creeping, roll without slipping, and
 * slide with the Coulomb deceleration, at any stiffness the step allows.
 */
#include <math.h>

#include "collision/narrowphase.h"
#include "contact/contact.h"
#include "contact/friction.h"
#include "math/vec.h"

enum { TCH_POINT_MAX_PAIR_POINTS = TCH_MANIFOLD_CAPACITY };

static tch_real normal_force(const tch_pair_params* p, tch_real depth, tch_real rate) {
    tch_real f;
    if (p->law == TCH_POINT_LAW_HUNT_CROSSLEY) {
        f = p->stiffness * pow(depth, p->exponent) * (1 + 1.5 * p->dissipation * rate);
    } else {
        f = p->stiffness * depth + p->damping * rate;
    }
    return fmax(f, 0);
}

static tch_vec3 relative_velocity(const tch_model* model, const tch_data* data,
                                  const tch_pair_result* pair, tch_vec3 p_W) {
    return tch_v3_sub(tch_contact_point_velocity(model, data, pair->geom_b, p_W),
                      tch_contact_point_velocity(model, data, pair->geom_a, p_W));
}

static void point_normal_forces(const tch_model* model, tch_data* data,
                                tch_pair_context* context) {
    tch_pair_result* pair = context->pair;
    const tch_pair_params* p = &pair->params;
    for (int i = 0; i < pair->contact_count; ++i) {
        tch_contact* c = &data->contacts[pair->contact_start + i];
        c->f_W = tch_v3_zero();
        if (c->depth <= 0) {
            continue;
        }
        tch_real v_n = tch_v3_dot(relative_velocity(model, data, pair, c->p_W), c->n_W);
        c->f_W = tch_v3_scale(c->n_W, normal_force(p, c->depth, -v_n));
        tch_contact_apply_force(model, data, pair, c->p_W, c->f_W);
    }
}

/* Tangential part of v. */
static tch_vec3 tangential(tch_vec3 v, tch_vec3 n) {
    return tch_v3_madd(v, -tch_v3_dot(v, n), n);
}

static void point_friction_forces(const tch_model* model, tch_data* data,
                                  tch_pair_context* context, tch_velocity_prediction* pred) {
    tch_pair_result* pair = context->pair;
    tch_friction_point points[TCH_POINT_MAX_PAIR_POINTS];
    tch_contact* owners[TCH_POINT_MAX_PAIR_POINTS];
    int n = 0;
    for (int i = 0; i < pair->contact_count && n < TCH_POINT_MAX_PAIR_POINTS; ++i) {
        tch_contact* c = &data->contacts[pair->contact_start + i];
        tch_real slip = tch_v3_norm(tangential(relative_velocity(model, data, pair, c->p_W), c->n_W));
        tch_real limit = tch_friction_coefficient(&pair->params, slip) * tch_v3_norm(c->f_W);
        if (limit > 0) {
            owners[n] = c;
            tch_friction_point_init(model, data, pred, pair, c->p_W, c->n_W, limit, &points[n++]);
        }
    }
    tch_friction_solve(model, data, pred, pair, points, n);
    for (int i = 0; i < n; ++i) {
        owners[i]->f_W = tch_v3_add(owners[i]->f_W, tch_friction_point_force(&points[i]));
    }
}

/* ∂f_n/∂d and ∂f_n/∂d' of the normal law at (depth, rate); zero where it is clamped. */
static void normal_force_derivatives(const tch_pair_params* p, tch_real depth, tch_real rate,
                                     tch_real* k, tch_real* b) {
    *k = *b = 0;
    if (normal_force(p, depth, rate) <= 0) {
        return;
    }
    if (p->law == TCH_POINT_LAW_HUNT_CROSSLEY) {
        tch_real e = p->exponent, lambda = 1.5 * p->dissipation;
        *k = p->stiffness * e * pow(depth, e - 1) * (1 + lambda * rate);
        *b = p->stiffness * pow(depth, e) * lambda;
    } else {
        *k = p->stiffness;
        *b = p->damping;
    }
}

/* Each point's spring and damper along n: the depth falls by n.u for a displacement u of b's
 * point relative to a's, so ∂F/∂u = -k' n n^T and ∂F/∂v = -b' n n^T (docs/integrators.md). */
static void point_linearize(const tch_model* model, const tch_data* data,
                            const tch_pair_context* context, tch_pair_linearization* out) {
    const tch_pair_result* pair = context->pair;
    for (int i = 0; i < pair->contact_count; ++i) {
        const tch_contact* c = &data->contacts[pair->contact_start + i];
        if (c->depth <= 0) {
            continue;
        }
        tch_real v_n = tch_v3_dot(relative_velocity(model, data, pair, c->p_W), c->n_W);
        tch_real k, b;
        normal_force_derivatives(&pair->params, c->depth, -v_n, &k, &b);
        tch_wrench_linearization w = {.o_W = c->p_W, .n_W = c->n_W, .F_W = c->f_W,
                                      .M_W = tch_v3_zero(), .depth = c->depth};
        tch_real n[3] = {c->n_W.x, c->n_W.y, c->n_W.z};
        for (int r = 0; r < 3; ++r) {
            for (int s = 0; s < 3; ++s) {
                w.K[r][s] = -k * n[r] * n[s];
                w.D[r][s] = -b * n[r] * n[s];
            }
        }
        tch_contact_linearize_wrench(model, data, pair, &w, out);
    }
}

const tch_contact_ops tch_point_ops = {
    .kind = TCH_CONTACT_KIND_FORCE,
    .uses_state = 0,
    .pair_geometry = NULL,
    .normal_forces = point_normal_forces,
    .friction_forces = point_friction_forces,
    .linearize = point_linearize,
};
