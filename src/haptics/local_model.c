/* The pointer's local model between physics updates (haptics/local_model.h; docs/haptics.md).
 *
 * Multi-rate haptics with a local linear model (Otaduy and Lin 2006; Otaduy and Gross 2007):
 * about the state of a step's start, the wrench on the pointer and on each free body it touches
 * is linearized, F(x, v) = F0 + K (x - x0) + D (v - v0), with the force models' K and D
 * (contact/contact.h `linearize`, symmetrized and so negative semidefinite for passive
 * springs and dampers, as in engine/implicit.c). The touched bodies move with their own mobility
 * A⁻¹ = diag(m 1, I_W)⁻¹, the body-coordinate form of the contact-space mobility Λ⁻¹ = J A⁻¹ Jᵀ
 * of Ruspini and Khatib (seed 003, eq. 4), whose rows J are the contacts' (a contact's velocity
 * change per unit impulse is Λ⁻¹'s entry; the same impulse through Jᵀ changes the body's
 * velocity by A⁻¹ Jᵀ p). Each servo tick integrates them by backward Euler at the period T,
 *     (M - T D_bb - T² K_bb) v⁺ = M v + T (F0_b + K_bb u + K_bp u_p - D_bb v0_b + D_bp (v_p - v0_p))
 *     u⁺ = u + T v⁺,
 * which is passive for K, D negative semidefinite (a linear spring-damper network on masses),
 * and the pointer feels W = W0 + K_pp u_p + D_pp (v_p - v0_p) + Σ_b K_pb u_b + D_pb (v_b - v0_b).
 * Pairs among the touched bodies are taken on each body's diagonal only. */
#include "haptics/local_model.h"

#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/pair_state.h"
#include "contact/pressure.h"
#include "contact/volume.h"
#include "dynamics/articulation.h"
#include "engine/engine_internal.h"
#include "haptics/rotation.h"
#include "math/dense.h"
#include "math/vec.h"

static void put_twist(tch_real* x, tch_vec3 a, tch_vec3 b) {
    x[0] = a.x, x[1] = a.y, x[2] = a.z, x[3] = b.x, x[4] = b.y, x[5] = b.z;
}

/* y += A x for 6x6 A (row-major), or Aᵀ x. */
static void add_product(tch_real* y, const tch_real* A, const tch_real* x, bool transpose) {
    for (int i = 0; i < 6; ++i) {
        tch_real sum = 0;
        for (int j = 0; j < 6; ++j) {
            sum += (transpose ? A[6 * j + i] : A[6 * i + j]) * x[j];
        }
        y[i] += sum;
    }
}

/* out += the (row, col) 6x6 block of the 12x12 m, symmetrized with its mirror block. */
static void add_block(tch_real* out, tch_real m[12][12], int row, int col) {
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
            out[6 * i + j] += 0.5 * (m[6 * row + i][6 * col + j] + m[6 * col + j][6 * row + i]);
        }
    }
}

/* The slot of free body `root` among the touched ones, added when there is room; -1 for a
 * static body, an articulated link or no room. */
static int body_slot(const tch_model* m, tch_haptic_local_model* local, int* bodies, int root,
                     bool add) {
    if (root <= 0 || !m->body_free[root] || m->body_mocap[root] >= 0 ||
        (m->articulation && !m->articulation->body_lone[root])) {
        return -1;
    }
    for (int k = 0; k < local->body_count; ++k) {
        if (bodies[k] == root) {
            return k;
        }
    }
    if (!add || local->body_count == TCH_HAPTIC_LOCAL_BODIES) {
        return -1;
    }
    bodies[local->body_count] = root;
    return local->body_count++;
}

/* Pair i linearized (K and D; G left out), or false when its model has no linearization. */
static bool linearize_pair(const tch_model* m, const tch_data* d, int i,
                           tch_pair_linearization* lin) {
    tch_pair_result* result = &d->pair_results[i];
    const tch_contact_ops* ops = tch_contact_model_ops(result->model);
    if (ops->kind != TCH_CONTACT_KIND_FORCE || !ops->linearize) {
        return false;
    }
    memset(lin, 0, sizeof *lin);
    tch_pair_state* state =
        tch_contact_pair_uses_state(m, ops, &result->params)
            ? tch_pair_state_find(&d->internal->pair_states, result->geom_a, result->geom_b)
            : NULL;
    tch_pair_context context = {result, state, 0, d->internal->model_scratch[result->model]};
    ops->linearize(m, d, &context, lin);
    return true;
}

/* The tangential part of a. */
static tch_vec3 tangential(tch_vec3 a, tch_vec3 normal) {
    return tch_v3_madd(a, -tch_v3_dot(a, normal), normal);
}

/* load[j] = normalᵀ K (row block `row`, column block `col`, symmetrized as add_block). */
static void load_rate(tch_real m[12][12], int row, int col, tch_vec3 normal, tch_real* load) {
    const tch_real n[3] = {normal.x, normal.y, normal.z};
    for (int j = 0; j < 6; ++j) {
        load[j] = 0;
        for (int i = 0; i < 3; ++i) {
            load[j] += n[i] * 0.5 * (m[6 * row + i][6 * col + j] + m[6 * col + j][6 * row + i]);
        }
    }
}

/* The pressure pair's friction lumped (tch_pressure_lump_friction) into f, or 0. */
static int lump_pressure(const tch_model* m, const tch_data* d, const tch_pair_result* pair,
                         tch_haptic_local_friction* f) {
    tch_pressure_friction_lump lump;
    const tch_pair_state* state =
        tch_pair_state_find(&d->internal->pair_states, pair->geom_a, pair->geom_b);
    if (!tch_pressure_lump_friction(m, d, pair, state, &lump)) {
        return 0;
    }
    f->params = pair->params;
    f->centre = lump.centre;
    f->normal = lump.normal;
    f->load0 = lump.load;
    f->secant = lump.secant;
    return 1;
}

/* The volume pair's friction lumped (tch_volume_lump_friction) into f, on the pointer's side
 * `side`, or 0. */
static int lump_volume(const tch_data* d, const tch_pair_result* pair, int side,
                       tch_haptic_local_friction* f) {
    tch_volume_friction_lump lump;
    const tch_pair_state* state =
        tch_pair_state_find(&d->internal->pair_states, pair->geom_a, pair->geom_b);
    if (!tch_volume_lump_friction(d, pair, state, &lump)) {
        return 0;
    }
    tch_real sign = side == 1 ? 1 : -1; /* the lump's vectors are B's over A */
    f->volume = 1;
    f->volume_k = lump.k;
    f->spring0 = tch_v3_scale(lump.spring, sign);
    f->force0 = tch_v3_scale(lump.force, sign);
    f->sliding0 = lump.sliding;
    f->linearized = lump.linearized;
    f->centre = lump.centre;
    f->normal = lump.normal;
    f->load0 = lump.load;
    return 1;
}

/* The friction of the pointer's pair i (on its side `side`, the other side in body slot
 * `other` or -1) lumped, when it is a pressure or volume pair with a load and there is room. */
static void lump_friction(const tch_model* m, const tch_data* d, int i, int side, int other,
                          tch_pair_linearization* lin, tch_haptic_local_model* local) {
    const tch_pair_result* pair = &d->pair_results[i];
    tch_haptic_local_friction f = {.other = other};
    if (local->friction_count == TCH_HAPTIC_LOCAL_FRICTION ||
        !(lump_pressure(m, d, pair, &f) || lump_volume(d, pair, side, &f))) {
        return;
    }
    tch_vec3 on_pointer = tch_v3_scale(pair->f_W, side == 1 ? 1 : -1);
    tch_real along = tch_v3_dot(on_pointer, f.normal);
    if (along == 0) {
        return;
    }
    int geom[2] = {pair->geom_a, pair->geom_b};
    f.normal = tch_v3_scale(f.normal, along > 0 ? 1 : -1);
    f.other_velocity0 = tch_contact_point_velocity(m, d, geom[1 - side], f.centre);
    f.slip0 = tangential(
        tch_v3_sub(tch_contact_point_velocity(m, d, geom[side], f.centre), f.other_velocity0),
        f.normal);
    load_rate(lin->K, side, side, f.normal, f.load_K_p);
    load_rate(lin->K, side, 1 - side, f.normal, f.load_K_o);
    local->friction[local->friction_count++] = f;
}

/* The pointer's pairs, then every other pair of the bodies they touch, into the blocks. */
static void linearize(const tch_model* m, const tch_data* d, int pointer,
                      tch_haptic_local_model* local, int* bodies) {
    tch_pair_linearization lin;
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < d->pair_result_count; ++i) {
            const tch_pair_result* pair = &d->pair_results[i];
            int root[2] = {m->body_root[m->geom_body[pair->geom_a]],
                           m->body_root[m->geom_body[pair->geom_b]]};
            int side = root[0] == pointer ? 0 : root[1] == pointer ? 1 : -1;
            if ((pass == 0) != (side >= 0) || (pass == 0 && root[0] == root[1])) {
                continue;
            }
            int slot[2];
            for (int s = 0; s < 2; ++s) {
                slot[s] = s == side ? -1 : body_slot(m, local, bodies, root[s], pass == 0);
            }
            if ((side < 0 && slot[0] < 0 && slot[1] < 0) || !linearize_pair(m, d, i, &lin)) {
                continue;
            }
            if (side >= 0) {
                local->pair_count++;
                add_block(local->K_pp, lin.K, side, side);
                add_block(local->D_pp, lin.D, side, side);
                lump_friction(m, d, i, side, slot[1 - side], &lin, local);
            }
            for (int s = 0; s < 2; ++s) {
                if (slot[s] < 0) {
                    continue;
                }
                tch_haptic_local_body* body = &local->bodies[slot[s]];
                add_block(body->K_bb, lin.K, s, s);
                add_block(body->D_bb, lin.D, s, s);
                if (side >= 0) {
                    add_block(body->K_pb, lin.K, side, s);
                    add_block(body->D_pb, lin.D, side, s);
                }
            }
        }
    }
}

/* Mass, wrench, velocity of the body at the step's start, and the factor for the period. */
static void prepare_body(const tch_model* m, const tch_data* d, int b, tch_real period,
                         tch_haptic_local_body* body) {
    for (int i = 0; i < 3; ++i) {
        body->mass[7 * i] = m->body_total_mass[b];
        for (int j = 0; j < 3; ++j) {
            body->mass[6 * (3 + i) + 3 + j] = d->body_I_W[b].m[i][j];
        }
    }
    put_twist(body->wrench0, d->body_force_W[b], d->body_torque_W[b]);
    put_twist(body->velocity0, d->body_v_WCm[b], d->body_w_W[b]);
    for (int i = 0; i < 36; ++i) {
        body->factor[i] = body->mass[i] - period * body->D_bb[i] - period * period * body->K_bb[i];
    }
    if (tch_dense_cholesky(body->factor, 6) != 0) { /* not passive: the body held still */
        *body = (tch_haptic_local_body){0};
        for (int i = 0; i < 6; ++i) {
            body->factor[7 * i] = body->mass[7 * i] = 1;
        }
    }
}

void tch_haptic_local_model_begin(const tch_model* m, const tch_data* d, int pointer,
                                  tch_real period, long step, tch_haptic_local_model* local) {
    memset(local, 0, sizeof *local);
    local->step = step;
    local->pose0 = d->body_X_WB[pointer];
    local->com_B = tch_x_apply_inverse(local->pose0, d->body_p_WCm[pointer]);
    put_twist(local->velocity0, d->body_v_WCm[pointer], d->body_w_W[pointer]);
    put_twist(local->wrench0, d->body_force_W[pointer], d->body_torque_W[pointer]);
    int bodies[TCH_HAPTIC_LOCAL_BODIES];
    linearize(m, d, pointer, local, bodies);
    for (int k = 0; k < local->body_count; ++k) {
        tch_haptic_local_body* body = &local->bodies[k];
        prepare_body(m, d, bodies[k], period, body);
        body->index = bodies[k];
        body->com0 = d->body_p_WCm[bodies[k]];
        body->q0 = d->body_X_WB[bodies[k]].q;
    }
}

void tch_haptic_local_model_end(const tch_data* d, tch_haptic_local_model* local) {
    for (int k = 0; k < local->body_count; ++k) {
        tch_haptic_local_body* body = &local->bodies[k];
        int b = body->index;
        tch_vec3 turn = tch_haptic_rotvec_of(tch_q_mul(d->body_X_WB[b].q, tch_q_conj(body->q0)));
        put_twist(body->start_u, tch_v3_sub(d->body_p_WCm[b], body->com0), turn);
        put_twist(body->start_v, d->body_v_WCm[b], d->body_w_W[b]);
    }
}

/* The pointer's motion since the step's start and its velocity: its centre of mass and
 * rotation, from the device's frame. */
static void pointer_motion(const tch_haptic_local_model* local, const tch_haptic_state* device,
                           tch_real* u, tch_real* v, tch_vec3* com) {
    *com = tch_x_apply(device->pose, local->com_B);
    tch_vec3 arm = tch_v3_sub(*com, device->pose.p);
    put_twist(u, tch_v3_sub(*com, tch_x_apply(local->pose0, local->com_B)),
              tch_haptic_rotvec_of(tch_q_mul(device->pose.q, tch_q_conj(local->pose0.q))));
    put_twist(v, tch_v3_add(device->velocity, tch_v3_cross(device->angular, arm)),
              device->angular);
}

/* One backward-Euler period of body k under the pointer's motion (u_p, v_p). */
static void advance_body(const tch_haptic_local_body* body, tch_real* u, tch_real* v,
                         const tch_real* u_p, const tch_real* dv_p, tch_real T) {
    tch_real force[6], rhs[6] = {0};
    memcpy(force, body->wrench0, sizeof force);
    add_product(force, body->K_bb, u, false);
    add_product(force, body->K_pb, u_p, true);
    add_product(force, body->D_pb, dv_p, true);
    tch_real minus_v0[6];
    for (int i = 0; i < 6; ++i) {
        minus_v0[i] = -body->velocity0[i];
    }
    add_product(force, body->D_bb, minus_v0, false);
    add_product(rhs, body->mass, v, false);
    for (int i = 0; i < 6; ++i) {
        rhs[i] += T * force[i];
    }
    tch_dense_cholesky_solve(body->factor, 6, rhs);
    for (int i = 0; i < 6; ++i) {
        v[i] = rhs[i];
        u[i] += T * v[i];
    }
}

void tch_haptic_local_state_init(tch_haptic_local_state* state) {
    *state = (tch_haptic_local_state){.newest = -1};
}

/* A new model: the touched bodies start where the step left them. */
static void start_run(const tch_haptic_local_model* local, tch_haptic_local_run* run) {
    run->model = *local;
    for (int k = 0; k < local->body_count; ++k) {
        memcpy(run->u[k], local->bodies[k].start_u, sizeof run->u[k]);
        memcpy(run->v[k], local->bodies[k].start_v, sizeof run->v[k]);
    }
    for (int i = 0; i < local->friction_count; ++i) {
        run->friction_spring[i] = local->friction[i].spring0;
        run->friction_sliding[i] = local->friction[i].sliding0;
    }
}

/* The velocity at p of a body moving at the twist v (about its centre of mass c), or its
 * displacement at p for a small motion v. */
static tch_vec3 at_point(const tch_real* v, tch_vec3 c, tch_vec3 p) {
    tch_vec3 w = {v[3], v[4], v[5]};
    return tch_v3_add((tch_vec3){v[0], v[1], v[2]}, tch_v3_cross(w, tch_v3_sub(p, c)));
}

static tch_real dot6(const tch_real* a, const tch_real* b) {
    tch_real sum = 0;
    for (int i = 0; i < 6; ++i) {
        sum += a[i] * b[i];
    }
    return sum;
}

/* What a pressure lump's regularized law changes in the rendered force at the tick's slip s and
 * load F_n (docs/haptics.md, "The pressure pointer"): the linearization renders f₀ - C (s - s₀)
 * = -C s (f₀ = -C s₀ the step's friction, C the polygons' secants summed); the tick renders
 * f₀ - F_n σ(|s|) s + F_n,₀ σ(|s₀|) s₀ instead (σ = tch_pressure_friction_secant): the step's
 * friction at the step's slip and load, and the law itself at any slip of a translating patch.
 * The damper alone, the secant at the step's slip, gave a slip starting between steps up to
 * |s| / v_s times the Coulomb force until the next step. */
static tch_vec3 pressure_change(const tch_haptic_local_friction* f, tch_vec3 slip, tch_real load) {
    tch_real law = load * tch_pressure_friction_secant(&f->params, tch_v3_norm(slip));
    tch_real law0 = f->load0 * tch_pressure_friction_secant(&f->params, tch_v3_norm(f->slip0));
    return tch_v3_add(tch_v3_scale(slip, f->secant - law),
                      tch_v3_scale(f->slip0, law0 - f->secant));
}

/* What a volume lump's law changes in the rendered force (docs/haptics.md, "The volume
 * pointer"): the model's static/dynamic friction at the lump (tch_volume_point_friction) with
 * its springs advanced by the tick's slip s, r += T s, as the model advances them by the step's
 * (notes §6.4 step 2), in place of what the linearization renders, f₀ held plus, while the
 * step's static springs hold, -k^S Δ - b^S (s - s₀) (Δ the tangential displacement of the
 * pointer over the other body at the lump since the step's start). The linearization alone
 * held a sliding contact's friction after the hand stopped and let a static one's springs pull
 * past μ₀ F_n until the next step. */
static tch_vec3 volume_change(const tch_haptic_local_friction* f, tch_vec3 moved, tch_vec3 slip,
                              tch_real load, tch_real T, tch_vec3* spring, int* sliding) {
    *spring = tch_v3_madd(*spring, T, slip);
    tch_vec3 law = tch_volume_point_friction(&f->volume_k, load, slip, spring, sliding);
    tch_vec3 linear = f->force0;
    if (f->linearized) {
        linear = tch_v3_madd(linear, -f->volume_k.static_stiffness, moved);
        linear = tch_v3_madd(linear, -f->volume_k.static_damping, tch_v3_sub(slip, f->slip0));
    }
    return tch_v3_sub(law, linear);
}

/* Adds to w (about the pointer's centre of mass) what makes each lumped friction its model's
 * law (a volume lump's springs advanced by a period, not at the tick that starts the run) at
 * the tick's slip of the pointer over the other body at the lump (the touched body's
 * local velocity, or the step's for a static or held one), with the load moved by the pair's
 * normal stiffness. */
static void render_friction(tch_haptic_local_run* run, const tch_real* u_p, const tch_real* v_p,
                            tch_real T, bool started, tch_real* w) {
    const tch_haptic_local_model* local = &run->model;
    tch_vec3 com = tch_x_apply(local->pose0, local->com_B);
    for (int i = 0; i < local->friction_count; ++i) {
        const tch_haptic_local_friction* f = &local->friction[i];
        tch_vec3 other = f->other_velocity0;
        tch_vec3 moved = at_point(u_p, com, f->centre);
        tch_real load = f->load0 + dot6(f->load_K_p, u_p);
        if (f->other >= 0) {
            const tch_haptic_local_body* body = &local->bodies[f->other];
            other = at_point(run->v[f->other], body->com0, f->centre);
            moved = tch_v3_sub(moved, at_point(run->u[f->other], body->com0, f->centre));
            load += dot6(f->load_K_o, run->u[f->other]);
        }
        tch_vec3 slip = tangential(tch_v3_sub(at_point(v_p, com, f->centre), other), f->normal);
        tch_vec3 change = f->volume
                              ? volume_change(f, tangential(moved, f->normal), slip, fmax(load, 0),
                                              started ? 0 : T, &run->friction_spring[i],
                                              &run->friction_sliding[i])
                              : pressure_change(f, slip, fmax(load, 0));
        tch_vec3 moment = tch_v3_cross(tch_v3_sub(f->centre, com), change);
        w[0] += change.x, w[1] += change.y, w[2] += change.z;
        w[3] += moment.x, w[4] += moment.y, w[5] += moment.z;
    }
}

/* One tick of a run with the pointer's motion (u_p, v_p) since its model's step: the bodies
 * advanced by a period (not at the tick that starts the run), the wrench on the pointer about
 * its centre of mass into w. */
static void run_tick(tch_haptic_local_run* run, const tch_real* u_p, const tch_real* v_p,
                     tch_real T, bool started, tch_real* w) {
    const tch_haptic_local_model* local = &run->model;
    tch_real dv_p[6];
    for (int i = 0; i < 6; ++i) {
        dv_p[i] = v_p[i] - local->velocity0[i];
    }
    memcpy(w, local->wrench0, 6 * sizeof *w);
    add_product(w, local->K_pp, u_p, false);
    add_product(w, local->D_pp, dv_p, false);
    for (int k = 0; k < local->body_count; ++k) {
        const tch_haptic_local_body* body = &local->bodies[k];
        if (!started) {
            advance_body(body, run->u[k], run->v[k], u_p, dv_p, T);
        }
        tch_real dv[6];
        for (int i = 0; i < 6; ++i) {
            dv[i] = run->v[k][i] - body->velocity0[i];
        }
        add_product(w, body->K_pb, run->u[k], false);
        add_product(w, body->D_pb, dv, false);
    }
    render_friction(run, u_p, v_p, T, started, w);
}

tch_haptic_command tch_haptic_local_model_tick(const tch_haptic_local_model* local,
                                               tch_haptic_local_state* state,
                                               const tch_haptic_state* device, tch_real period,
                                               int blend_ticks) {
    bool started = state->newest < 0 || state->runs[state->newest].model.step != local->step;
    if (started) {
        bool first = state->newest < 0;
        state->newest = first ? 0 : 1 - state->newest;
        start_run(local, &state->runs[state->newest]);
        state->blend_ticks = state->blend_left = first ? 0 : blend_ticks;
    }
    tch_real u_p[6], v_p[6], w[6];
    tch_vec3 com;
    pointer_motion(local, device, u_p, v_p, &com);
    run_tick(&state->runs[state->newest], u_p, v_p, period, started, w);
    if (state->blend_left > 0) { /* fade the old model out: all of it at the resync */
        tch_haptic_local_run* old = &state->runs[1 - state->newest];
        tch_real u_old[6], v_old[6], w_old[6];
        tch_vec3 com_old;
        pointer_motion(&old->model, device, u_old, v_old, &com_old);
        run_tick(old, u_old, v_old, period, false, w_old);
        tch_real fade = (tch_real)state->blend_left-- / state->blend_ticks, part[6];
        for (int i = 0; i < 6; ++i) {
            part[i] = fade * (w_old[i] - w[i]);
            w[i] += part[i];
        }
        tch_vec3 blend = {part[0], part[1], part[2]};
        state->blend_work += fabs(tch_v3_dot(blend, tch_v3_sub(com, state->last_position)));
    }
    state->last_position = com;
    tch_vec3 f = {w[0], w[1], w[2]}, tau = {w[3], w[4], w[5]};
    return (tch_haptic_command){f, tch_v3_add(tau, tch_v3_cross(tch_v3_sub(com, device->pose.p), f))};
}
