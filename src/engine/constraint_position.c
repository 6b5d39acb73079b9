/* Position correction of the constraints stage (engine/constraint_stage.h), the split
 * impulse (docs/contact-lcp.md, "Stabilization").
 */
#include "engine/constraint_stage.h"

#include <math.h>
#include <string.h>

#include "dynamics/contact_space.h"
#include "dynamics/free_body.h"

/* ---- split impulse: position correction ---- */

/* The energy the step takes out of the bodies the impulses reached, before any correction:
 * kinetic at the start minus kinetic after, minus the work of gravity over h v+ (first order
 * in h: the position update moves each centre of mass by h v+). */
static tch_real dissipated_energy(const tch_constraint_run* s) {
    tch_real lost = 0;
    for (int b = 1; b < s->m->body_count; ++b) {
        if (s->moved[b]) {
            lost += s->kinetic_start[b] - tch_constraint_kinetic_energy(s, b, s->v[b], s->w[b]) +
                    s->h * s->m->body_total_mass[b] * tch_v3_dot(s->m->gravity, s->v[b]);
        }
    }
    return lost;
}

/* Island k's pseudo-velocity impulses: 0 <= p ⊥ A_nn p - push >= 0 over its normal rows (no
 * friction), by PGS from zero; (u, u_w) += M⁻¹ J_nᵀ p. An iterate that stops at the sweep
 * limit is used as it is: it only pushes apart. */
static void solve_push(tch_constraint_run* s, int k, tch_vec3* u, tch_vec3* u_w) {
    const tch_constraint_contact* cr = s->contacts + s->island_start[k];
    int nc = s->island_start[k + 1] - s->island_start[k];
    int pushes = 0;
    for (int i = 0; i < nc; ++i) {
        pushes += cr[i].row.push > 0;
    }
    size_t mark = tch_arena_mark(s->arena);
    tch_island_layout L;
    if (pushes > 0 && tch_constraint_layout(s, cr, nc, TCH_SOLVE_NORMAL_PGS, &L) == 0) {
        tch_jacobian_row* rows = tch_arena_alloc(s->arena, (size_t)nc * sizeof *rows, "push rows");
        tch_real* rhs = tch_arena_alloc(s->arena, (size_t)nc * 2 * sizeof *rhs, "push rhs");
        if (rows && rhs) {
            tch_real* z = rhs + nc;
            tch_constraint_build_rows(s, cr, &L, rows);
            for (int i = 0; i < nc; ++i) {
                rhs[i] = -cr[i].row.push;
                z[i] = 0;
            }
            tch_lcp_result result;
            tch_row_problem problem = tch_constraint_row_problem(s, &L, rows, rhs);
            tch_row_solve_options options = tch_constraint_push_options(s, k);
            tch_row_solve(&problem, &options, s->arena, u, u_w, z, &result);
        }
    }
    tch_arena_release(s->arena, mark);
}

/* Moves body b's pose by h (u, u_w) (centre of mass, world) and keeps its kinetic energy:
 * v_WCm and the body-frame angular velocity are rewritten for the new pose. */
static void displace_body(const tch_constraint_run* s, int b, tch_vec3 u, tch_vec3 u_w,
                          tch_real* pseudo) {
    const tch_model* m = s->m;
    tch_real* qpos = s->d->qpos;
    tch_real* qvel = s->d->qvel + m->body_qvel_adr[b];
    tch_vec3 w_B = {qvel[3], qvel[4], qvel[5]};
    tch_contact_space_write_body_velocity(m, qpos, pseudo, b, u, u_w);
    tch_free_body_advance_position(m, qpos, pseudo, b, s->h);
    tch_vec3 w_W = tch_q_rotate(tch_free_body_pose(m, qpos, b).q, w_B);
    tch_contact_space_write_body_velocity(m, qpos, s->d->qvel, b, s->v[b], w_W);
}

/* The push is not solved when the energy budget would scale it below this share of the
 * potential energy that lifting every body the impulses reached by the largest push would take
 * (a resting stack dissipates rounding-level energy: its push would be scaled to nothing). */
static const tch_real PUSH_MIN_SHARE = 1e-3;

/* h max(push) Σ m |g| over the bodies the impulses reached: the potential energy of lifting
 * them all by the largest push of the step. */
static tch_real largest_lift_energy(const tch_constraint_run* s) {
    tch_real largest = 0, mass = 0;
    for (int i = 0; i < s->contact_count; ++i) {
        largest = fmax(largest, s->contacts[i].row.push);
    }
    for (int b = 1; b < s->m->body_count; ++b) {
        mass += s->moved[b] ? s->m->body_total_mass[b] : 0;
    }
    return s->h * largest * mass * tch_v3_norm(s->m->gravity);
}

/* Split impulse (docs/contact-lcp.md, "Stabilization"): the velocity rows of penetrating
 * contacts aim at J_n v+ >= 0, and the penetration is pushed out by a pseudo-velocity u with
 * J_n u >= stabilization * depth / h that moves the poses (q += h u) and is then dropped, so it
 * adds no kinetic energy. The potential energy it adds, -h Σ m g·u, is held to half the energy
 * the step dissipated (u is scaled down, to zero at rest), so the total never grows. */
void tch_constraint_correct_positions(tch_constraint_run* s) {
    const tch_model* m = s->m;
    tch_real budget = 0.5 * dissipated_energy(s);
    if (!(budget > 0) || budget < PUSH_MIN_SHARE * largest_lift_energy(s)) {
        return;
    }
    size_t nb = (size_t)m->body_count;
    tch_vec3* u = tch_arena_alloc(s->arena, 2 * nb * sizeof *u, "push velocities");
    tch_real* pseudo = tch_arena_alloc(s->arena, (size_t)m->nv * sizeof *pseudo, "push qvel");
    if (!u || !pseudo) {
        return;
    }
    tch_vec3* u_w = u + nb;
    memset(u, 0, 2 * nb * sizeof *u);
    memset(pseudo, 0, (size_t)m->nv * sizeof *pseudo);
    tch_real* velocity = s->tree_velocity;
    s->tree_velocity = pseudo; /* trees take their push here and drop it: not moved yet */
    for (int k = 0; k < s->island_count; ++k) {
        solve_push(s, k, u, u_w);
    }
    s->tree_velocity = velocity;
    tch_real rise = 0; /* over the bodies that move: those the velocity impulses reached */
    for (int b = 1; b < m->body_count; ++b) {
        rise -= s->moved[b] ? s->h * m->body_total_mass[b] * tch_v3_dot(m->gravity, u[b]) : 0;
    }
    tch_real scale = rise > budget ? budget / rise : 1;
    for (int b = 1; b < m->body_count; ++b) {
        if (s->moved[b] && (tch_v3_norm2(u[b]) > 0 || tch_v3_norm2(u_w[b]) > 0)) {
            displace_body(s, b, tch_v3_scale(u[b], scale), tch_v3_scale(u_w[b], scale), pseudo);
        }
    }
}
