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
 * Friction on b opposes the slip velocity v_t at p:
 *
 *     f_t = -mu(s) f_n v_t/|v_t|,  s = |v_t| / v_s
 *
 * with the Stribeck-like curve of Drake's point contact documentation: mu rises as
 * mu_s s (2 - s) for s < 1, falls smoothly from mu_s to mu_d over 1 <= s <= 3, and is mu_d
 * beyond. Regularized Coulomb friction is stiff at small v_s; an explicit step would reverse the
 * slip. So |f_t| is also capped by the force that stops the slip at that point in one step,
 * m_t |v_t| / (h n), with m_t the pair's effective mass along the slip direction and n the
 * number of points of the pair: the cap keeps small v_s stable and makes sticking exact up to
 * the step.
 */
#include <math.h>

#include "contact/contact.h"
#include "math/vec.h"

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

/* Friction coefficient at normalized slip speed s = |v_t| / v_s. */
static tch_real stribeck_coefficient(const tch_pair_params* p, tch_real s) {
    if (s < 1) {
        return p->static_friction * s * (2 - s);
    }
    return p->static_friction -
           (p->static_friction - p->friction) * smoothstep((s - 1) / 2);
}

static tch_vec3 friction_force(const tch_model* model, const tch_data* data,
                               const tch_pair_result* pair, const tch_pair_params* p,
                               const tch_contact* c, tch_vec3 v_t, tch_real f_n, tch_real h) {
    tch_real speed = tch_v3_norm(v_t);
    if (!(speed > 0) || f_n <= 0) {
        return tch_v3_zero();
    }
    tch_vec3 t = tch_v3_scale(v_t, 1 / speed);
    tch_real coulomb = stribeck_coefficient(p, speed / p->stiction_velocity) * f_n;
    tch_real inv_mass = tch_contact_inverse_mass(model, data, pair->geom_a, c->p_W, t) +
                        tch_contact_inverse_mass(model, data, pair->geom_b, c->p_W, t);
    tch_real stopping = speed / (inv_mass * h * pair->contact_count);
    return tch_v3_scale(t, -fmin(coulomb, stopping));
}

static void point_pair_forces(const tch_model* model, tch_data* data, tch_pair_result* pair,
                              const tch_pair_params* p, tch_real h) {
    for (int i = 0; i < pair->contact_count; ++i) {
        tch_contact* c = &data->contacts[pair->contact_start + i];
        c->f_W = tch_v3_zero();
        if (c->depth <= 0) {
            continue;
        }
        tch_vec3 v_rel = tch_v3_sub(tch_contact_point_velocity(model, data, pair->geom_b, c->p_W),
                                    tch_contact_point_velocity(model, data, pair->geom_a, c->p_W));
        tch_real v_n = tch_v3_dot(v_rel, c->n_W);
        tch_real f_n = normal_force(p, c->depth, -v_n);
        tch_vec3 v_t = tch_v3_madd(v_rel, -v_n, c->n_W);
        tch_vec3 f_t = friction_force(model, data, pair, p, c, v_t, f_n, h);
        c->f_W = tch_v3_madd(f_t, f_n, c->n_W);
        tch_contact_apply_force(model, data, pair, c->p_W, c->f_W);
    }
}

const tch_contact_ops tch_point_ops = {point_pair_forces};
