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

/* One point's friction unknown in its tangent basis (t1, t2), with the inverse of the 2x2
 * tangential inverse-mass matrix K = Σ_bodies (I/m + [r×t_i · I⁻¹ (r×t_j)]) of the pair at the
 * point, so that one update stops the predicted 2D slip exactly (before clamping). */
typedef struct friction_point {
    const tch_contact* contact;
    tch_vec3 t1, t2;
    tch_real K_inv[2][2];
    tch_real limit;  /* Coulomb bound mu f_n, N */
    tch_real f1, f2; /* accumulated friction along t1, t2, N */
} friction_point;

/* K_ij contribution of geom g's body at p for tangents t_i, t_j. */
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

static void prepare_friction_point(const tch_model* model, const tch_data* data,
                                   const tch_velocity_prediction* pred,
                                   const tch_pair_result* pair, const tch_contact* c,
                                   tch_real limit, friction_point* fp) {
    tch_vec3 t[2];
    tch_v3_basis(c->n_W, &t[0], &t[1]);
    tch_real K[2][2] = {{0, 0}, {0, 0}};
    add_tangent_mass(model, data, pred, pair->geom_a, c->p_W, t, K);
    add_tangent_mass(model, data, pred, pair->geom_b, c->p_W, t, K);
    tch_real det = K[0][0] * K[1][1] - K[0][1] * K[1][0];
    *fp = (friction_point){c, t[0], t[1], {{K[1][1] / det, -K[0][1] / det},
                                           {-K[1][0] / det, K[0][0] / det}},
                           limit, 0, 0};
}

/* One Gauss-Seidel update of a point's friction: the change that stops the predicted slip,
 * the total clamped to the Coulomb disk. Returns the size of the change, N. */
static tch_real update_point_friction(const tch_model* model, tch_data* data,
                                      tch_velocity_prediction* pred, tch_pair_result* pair,
                                      friction_point* fp) {
    tch_vec3 p = fp->contact->p_W;
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

static void point_friction_forces(const tch_model* model, tch_data* data,
                                  tch_pair_context* context, tch_velocity_prediction* pred) {
    tch_pair_result* pair = context->pair;
    const tch_pair_params* p = &pair->params;
    friction_point points[TCH_POINT_MAX_PAIR_POINTS];
    int n = 0;
    tch_real total_limit = 0;
    for (int i = 0; i < pair->contact_count && n < TCH_POINT_MAX_PAIR_POINTS; ++i) {
        const tch_contact* c = &data->contacts[pair->contact_start + i];
        tch_real slip = tch_v3_norm(tangential(relative_velocity(model, data, pair, c->p_W), c->n_W));
        tch_real limit = friction_coefficient(p, slip / p->stiction_velocity) * tch_v3_norm(c->f_W);
        if (limit > 0) {
            prepare_friction_point(model, data, pred, pair, c, limit, &points[n++]);
            total_limit += limit;
        }
    }
    /* Sweeps stop early once a sweep changes no force by more than a 1e-6 share of the total
     * Coulomb bound (one sweep is exact for a single point). */
    tch_real tolerance = 1e-6 * total_limit;
    for (int sweep = 0; sweep < FRICTION_SWEEPS && n > 0; ++sweep) {
        tch_real largest_change = 0;
        for (int i = 0; i < n; ++i) {
            largest_change = fmax(largest_change,
                                  update_point_friction(model, data, pred, pair, &points[i]));
        }
        if (largest_change <= tolerance || n == 1) {
            break;
        }
    }
    for (int i = 0; i < n; ++i) {
        tch_contact* c = (tch_contact*)points[i].contact;
        c->f_W = tch_v3_add(c->f_W, tch_v3_add(tch_v3_scale(points[i].t1, points[i].f1),
                                               tch_v3_scale(points[i].t2, points[i].f2)));
    }
}

const tch_contact_ops tch_point_ops = {
    .kind = TCH_CONTACT_KIND_FORCE,
    .uses_state = 0,
    .pair_geometry = NULL,
    .normal_forces = point_normal_forces,
    .friction_forces = point_friction_forces,
};
