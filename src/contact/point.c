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
#include "math/vec.h"

/* Gauss-Seidel sweeps over a pair's points for its friction forces. */
enum { FRICTION_SWEEPS = 4, TCH_POINT_MAX_PAIR_POINTS = TCH_MANIFOLD_CAPACITY };

static tch_real normal_force(const tch_pair_params* p, tch_real depth, tch_real rate) {
    tch_real f;
    if (p->law == TCH_POINT_LAW_HUNT_CROSSLEY) {
        f = p->stiffness * pow(depth, p->exponent) * (1 + 1.5 * p->dissipation * rate);
    } else {
        f = p->stiffness * depth + p->damping * rate;
    }
    return fmax(f, 0);
}

/* Cubic smoothstep on [0, 1]. */
static tch_real smoothstep(tch_real x) {
    x = fmin(fmax(x, 0), 1);
    return x * x * (3 - 2 * x);
}

/* Friction coefficient at normalized slip speed s = |v_t| / v_s: static up to s = 1, then a
 * smooth fall to the dynamic coefficient at s = 3. */
static tch_real friction_coefficient(const tch_pair_params* p, tch_real s) {
    return p->static_friction - (p->static_friction - p->friction) * smoothstep((s - 1) / 2);
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

/* One Gauss-Seidel update of point c's friction: the change that stops the predicted slip at
 * c, then the total clamped to the Coulomb disk mu f_n. Returns the change applied. */
static tch_vec3 update_point_friction(const tch_model* model, tch_data* data,
                                      tch_velocity_prediction* pred, tch_pair_result* pair,
                                      const tch_contact* c, tch_vec3 f_t, tch_real limit) {
    tch_vec3 slip = tangential(
        tch_v3_sub(tch_contact_predicted_point_velocity(model, data, pred, pair->geom_b, c->p_W),
                   tch_contact_predicted_point_velocity(model, data, pred, pair->geom_a, c->p_W)),
        c->n_W);
    tch_real speed = tch_v3_norm(slip);
    if (!(speed > 0)) {
        return tch_v3_zero();
    }
    tch_vec3 t = tch_v3_scale(slip, 1 / speed);
    tch_real inv_mass = tch_contact_inverse_mass(model, data, pred, pair->geom_a, c->p_W, t) +
                        tch_contact_inverse_mass(model, data, pred, pair->geom_b, c->p_W, t);
    tch_vec3 wanted = tch_v3_madd(f_t, -speed / (inv_mass * pred->h), t);
    tch_real norm = tch_v3_norm(wanted);
    if (norm > limit) {
        wanted = tch_v3_scale(wanted, limit / norm);
    }
    tch_vec3 change = tch_v3_sub(wanted, f_t);
    tch_contact_apply_friction(model, data, pred, pair, c->p_W, change);
    return change;
}

static void point_friction_forces(const tch_model* model, tch_data* data,
                                  tch_pair_context* context, tch_velocity_prediction* pred) {
    tch_pair_result* pair = context->pair;
    const tch_pair_params* p = &pair->params;
    tch_vec3 f_t[TCH_POINT_MAX_PAIR_POINTS];
    tch_real limit[TCH_POINT_MAX_PAIR_POINTS];
    int n = pair->contact_count < TCH_POINT_MAX_PAIR_POINTS ? pair->contact_count
                                                             : TCH_POINT_MAX_PAIR_POINTS;
    for (int i = 0; i < n; ++i) {
        const tch_contact* c = &data->contacts[pair->contact_start + i];
        tch_real slip = tch_v3_norm(tangential(relative_velocity(model, data, pair, c->p_W), c->n_W));
        limit[i] = friction_coefficient(p, slip / p->stiction_velocity) * tch_v3_norm(c->f_W);
        f_t[i] = tch_v3_zero();
    }
    tch_real total_limit = 0;
    for (int i = 0; i < n; ++i) {
        total_limit += limit[i];
    }
    /* Sweeps stop early once a sweep changes no force by more than a 1e-9 share of the total
     * Coulomb bound (one sweep suffices for a single point). */
    tch_real tolerance = 1e-9 * total_limit;
    for (int sweep = 0; sweep < FRICTION_SWEEPS && total_limit > 0; ++sweep) {
        tch_real largest_change = 0;
        for (int i = 0; i < n; ++i) {
            const tch_contact* c = &data->contacts[pair->contact_start + i];
            if (limit[i] > 0) {
                tch_vec3 change = update_point_friction(model, data, pred, pair, c, f_t[i],
                                                        limit[i]);
                f_t[i] = tch_v3_add(f_t[i], change);
                largest_change = fmax(largest_change, tch_v3_norm(change));
            }
        }
        if (largest_change <= tolerance || n == 1) {
            break;
        }
    }
    for (int i = 0; i < n; ++i) {
        tch_contact* c = &data->contacts[pair->contact_start + i];
        c->f_W = tch_v3_add(c->f_W, f_t[i]);
    }
}

const tch_contact_ops tch_point_ops = {
    .kind = TCH_CONTACT_KIND_FORCE,
    .uses_state = 0,
    .pair_geometry = NULL,
    .normal_forces = point_normal_forces,
    .friction_forces = point_friction_forces,
};
