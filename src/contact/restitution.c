/* Restitution of the force models: the law and the point model's memory (restitution.h). */
#include "contact/restitution.h"

#include <math.h>
#include <string.h>

#include "contact/params.h"
#include "math/vec.h"

/* Restitution acts on approach speeds above max(this, 4 |g| h), m/s. */
static const tch_real RESTITUTION_MIN_SPEED = 1e-3;

/* h c / m of the impact damper: the implicit step leaves 1 / (1 + GAIN) of the way to the
 * target (less at a point off the centre of mass, whose effective mass is smaller), and the
 * next steps of the phase the same fraction of what is left. */
static const tch_real IMPACT_GAIN = 100;

tch_real tch_restitution_threshold(const tch_model* model) {
    return fmax(RESTITUTION_MIN_SPEED, 4 * tch_v3_norm(model->gravity) * model->timestep);
}

int tch_restitution_acts(const tch_model* model, const tch_pair_params* params) {
    return params->restitution > 0 && model->integrator == TCH_INTEGRATOR_IMPLICIT;
}

tch_impact tch_impact_begin(const tch_model* model, tch_real time, tch_real v_n) {
    tch_impact impact = {0, time};
    if (-v_n > tch_restitution_threshold(model)) {
        impact.approach = -v_n;
    }
    return impact;
}

int tch_impact_active(const tch_model* model, const tch_pair_params* params,
                      const tch_impact* impact, tch_real time) {
    if (!(impact->approach > 0)) {
        return 0;
    }
    tch_real steps = 2 / params->restitution + 2;
    return time - impact->onset < (steps + 0.5) * model->timestep;
}

tch_real tch_impact_damping(const tch_model* model, tch_real mass) {
    return IMPACT_GAIN * mass / model->timestep;
}

tch_real tch_impact_target(const tch_impact* impact, const tch_pair_params* params) {
    return params->restitution * impact->approach;
}

tch_real tch_impact_force(tch_real damping, tch_real target, tch_real v_n, tch_real load) {
    return fmax(0, damping * (target - v_n) + load);
}

/* Adds the mobility along n at p of geom g's free root, 1/m + (r x n).I^-1 (r x n), and its
 * free fall's acceleration along n times `sign` (+1 for b, -1 for a) to *fall. */
static void add_side(const tch_model* model, const tch_data* data, int geom, tch_vec3 p_W,
                     tch_vec3 n_W, tch_real sign, tch_real* mobility, tch_real* fall) {
    int root = model->body_root[model->geom_body[geom]];
    if (root == 0 || !model->body_free[root]) {
        return;
    }
    tch_vec3 u = tch_v3_cross(tch_v3_sub(p_W, data->body_p_WCm[root]), n_W);
    *mobility += 1 / model->body_total_mass[root] +
                 tch_v3_dot(u, tch_m3_mul_v3(data->body_I_inv_W[root], u));
    *fall += sign * tch_v3_dot(model->gravity, n_W);
}

tch_real tch_impact_load(const tch_model* model, const tch_data* data,
                         const tch_pair_result* pair, tch_vec3 p_W, tch_vec3 n_W, tch_real v_n,
                         tch_real target) {
    tch_real mobility = 0, fall = 0, h = model->timestep;
    add_side(model, data, pair->geom_a, p_W, n_W, -1, &mobility, &fall);
    add_side(model, data, pair->geom_b, p_W, n_W, 1, &mobility, &fall);
    return mobility > 0 ? fmax(0, (target - v_n - h * fall) / (h * mobility)) : 0;
}

/* ---- the point model's memory ---- */

int tch_point_pair_uses_state(const tch_model* model, const tch_pair_params* params) {
    return tch_restitution_acts(model, params);
}

/* How far a remembered point may be from where a contact is now to be the same one, m. */
static tch_real match_reach(const tch_model* model, const tch_data* data,
                            const tch_pair_result* pair, tch_vec3 p_W) {
    tch_real ra = model->geom_rbound[pair->geom_a], rb = model->geom_rbound[pair->geom_b];
    tch_real size = ra > 0 && rb > 0 ? fmin(ra, rb) : fmax(ra, rb); /* 0: a plane */
    tch_vec3 v = tch_v3_sub(tch_contact_point_velocity(model, data, pair->geom_b, p_W),
                            tch_contact_point_velocity(model, data, pair->geom_a, p_W));
    return 0.25 * size + 2 * tch_v3_norm(v) * model->timestep;
}

int tch_point_impact_of(const tch_model* model, const tch_data* data,
                        const tch_pair_context* context, int k, tch_real v_n,
                        tch_impact* impact) {
    const tch_pair_result* pair = context->pair;
    if (!context->state || !tch_restitution_acts(model, &pair->params)) {
        return 0;
    }
    const tch_point_impacts* memory = (const tch_point_impacts*)context->state->bytes;
    tch_vec3 p_W = data->contacts[pair->contact_start + k].p_W;
    tch_real reach = match_reach(model, data, pair, p_W), nearest = INFINITY;
    int found = -1;
    for (int i = 0; i < memory->count && !context->state->fresh; ++i) {
        tch_real distance = tch_v3_norm(tch_v3_sub(memory->records[i].p_W, p_W));
        if (distance <= reach && distance < nearest) {
            nearest = distance;
            found = i;
        }
    }
    *impact = found >= 0 ? memory->records[found].impact
                         : tch_impact_begin(model, data->time, v_n);
    return tch_impact_active(model, &pair->params, impact, data->time);
}

_Static_assert(sizeof(tch_point_impacts) <= TCH_PAIR_STATE_BYTES, "point impacts fit a slot");

void tch_point_impacts_commit(const tch_model* model, const tch_data* data,
                              const tch_pair_context* context) {
    const tch_pair_result* pair = context->pair;
    if (!context->commit || !context->state || !tch_restitution_acts(model, &pair->params)) {
        return;
    }
    tch_point_impacts next = {0};
    for (int k = 0; k < pair->contact_count && next.count < TCH_POINT_IMPACT_RECORDS; ++k) {
        const tch_contact* c = &data->contacts[pair->contact_start + k];
        if (c->depth < 0) {
            continue; /* within the margin: not touching yet */
        }
        tch_vec3 v = tch_v3_sub(tch_contact_point_velocity(model, data, pair->geom_b, c->p_W),
                                tch_contact_point_velocity(model, data, pair->geom_a, c->p_W));
        tch_point_impact_record* r = &next.records[next.count++];
        r->p_W = c->p_W;
        tch_point_impact_of(model, data, context, k, tch_v3_dot(v, c->n_W), &r->impact);
    }
    memcpy(context->state->bytes, &next, sizeof next);
}

int tch_point_impact_force(const tch_model* model, tch_data* data,
                           const tch_pair_context* context, int k, tch_real v_n) {
    tch_impact impact;
    if (!tch_point_impact_of(model, data, context, k, v_n, &impact)) {
        return 0;
    }
    tch_pair_result* pair = context->pair;
    tch_contact* c = &data->contacts[pair->contact_start + k];
    tch_real target = tch_impact_target(&impact, &pair->params);
    tch_real mass = tch_contact_pair_mass(model, pair->geom_a, pair->geom_b);
    tch_real load = tch_impact_load(model, data, pair, c->p_W, c->n_W, v_n, target);
    tch_real force = tch_impact_force(tch_impact_damping(model, mass), target, v_n, load);
    tch_contact_apply_force(model, data, pair, c->p_W, tch_v3_scale(c->n_W, force));
    c->f_W = tch_v3_scale(c->n_W, fmin(force, load));
    return 1;
}

int tch_point_impact_derivatives(const tch_model* model, const tch_data* data,
                                 const tch_pair_context* context, int k, tch_real v_n,
                                 tch_real* stiffness, tch_real* damping) {
    tch_impact impact;
    if (!tch_point_impact_of(model, data, context, k, v_n, &impact)) {
        return 0;
    }
    const tch_pair_result* pair = context->pair;
    const tch_contact* c = &data->contacts[pair->contact_start + k];
    tch_real target = tch_impact_target(&impact, &pair->params);
    tch_real damper = tch_impact_damping(model, tch_contact_pair_mass(model, pair->geom_a,
                                                                      pair->geom_b));
    tch_real load = tch_impact_load(model, data, pair, c->p_W, c->n_W, v_n, target);
    *stiffness = 0;
    *damping = tch_impact_force(damper, target, v_n, load) > 0 ? damper : 0;
    return 1;
}

/* ---- the volume model's memory ---- */

int tch_volume_impact_of(const tch_model* model, const tch_data* data,
                         const tch_pair_context* context, tch_impact* memory, tch_real v_n,
                         tch_impact* impact) {
    const tch_pair_params* params = &context->pair->params;
    if (!tch_restitution_acts(model, params)) {
        return 0;
    }
    *impact = context->state->fresh ? tch_impact_begin(model, data->time, v_n) : *memory;
    if (context->commit) {
        *memory = *impact;
    }
    return tch_impact_active(model, params, impact, data->time);
}
