/* Contact space of Ruspini and Khatib (touche/contact_space.h; reference/contact_space_haptics.md
 * sec. 2-4). Every function builds G = A⁻¹ Jᵀ once (m applications of A⁻¹, stored transposed:
 * row i of G is A⁻¹ J_iᵀ), then Λ⁻¹ = J G, and solves its LCPs by Lemke's method
 * (solver/lemke.h), which is exact and, Λ⁻¹ being positive semi-definite, reports a ray only
 * when no solution exists. Scratch memory is taken on the heap and freed before returning:
 * these functions serve users and tests, not the per-step path (the constraint stage builds its
 * own Delassus matrices per island, engine/constraint.c).
 */
#include "dynamics/contact_space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "dynamics/free_body.h"
#include "dynamics/kinematics.h"
#include "math/dense.h"
#include "math/vec.h"
#include "solver/dense_lapack.h"
#include "solver/lemke.h"

/* G = A⁻¹ Jᵀ (transposed, [m*n]) and Λ⁻¹ = J A⁻¹ Jᵀ ([m*m]) of one problem. */
typedef struct contact_space {
    int n, m;
    const tch_real* J;
    tch_real* G;
    tch_real* lambda_inv;
} contact_space;

static int all_finite(const tch_real* x, int count) {
    for (int i = 0; i < count; ++i) {
        if (!isfinite(x[i])) {
            return 0;
        }
    }
    return 1;
}

static tch_status check_vector(const tch_real* x, int count, const char* name, tch_error* err) {
    if (count > 0 && (!x || !all_finite(x, count))) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "contact space: %s must be %d finite numbers", name, count);
    }
    return TCH_OK;
}

static tch_status check_problem(const tch_inverse_inertia* A_inv, const tch_real* J, int m,
                                tch_error* err) {
    if (!A_inv || A_inv->n < 1 || (!A_inv->dense && !A_inv->apply)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "contact space: the inverse inertia needs n >= 1 and a dense matrix or "
                        "an apply function");
    }
    if (m < 0) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "contact space: the contact count must be >= 0, got %d", m);
    }
    tch_status s = A_inv->dense ? check_vector(A_inv->dense, A_inv->n * A_inv->n,
                                               "the inverse inertia", err)
                                : TCH_OK;
    return s == TCH_OK ? check_vector(J, m * A_inv->n, "the Jacobian J", err) : s;
}

static void apply_inverse(const tch_inverse_inertia* A_inv, const tch_real* x, tch_real* y) {
    if (A_inv->dense) {
        tch_dense_mat_vec(A_inv->dense, A_inv->n, A_inv->n, x, y);
    } else {
        A_inv->apply(A_inv->user, x, y);
    }
}

static tch_real dot(const tch_real* a, const tch_real* b, int n) {
    tch_real sum = 0;
    for (int i = 0; i < n; ++i) {
        sum += a[i] * b[i];
    }
    return sum;
}

static void space_free(contact_space* s) {
    free(s->G);
    free(s->lambda_inv);
}

/* Eq. 4: G = A⁻¹ Jᵀ by m applications of A⁻¹, then Λ⁻¹_ij = J_i . G_j (symmetrized). */
static tch_status space_build(const tch_inverse_inertia* A_inv, const tch_real* J, int m,
                              contact_space* s, tch_error* err) {
    memset(s, 0, sizeof *s);
    tch_status status = check_problem(A_inv, J, m, err);
    if (status != TCH_OK) {
        return status;
    }
    int n = A_inv->n;
    s->n = n, s->m = m, s->J = J;
    s->G = malloc((size_t)(m > 0 ? m : 1) * (size_t)n * sizeof *s->G);
    s->lambda_inv = malloc((size_t)(m > 0 ? m * m : 1) * sizeof *s->lambda_inv);
    if (!s->G || !s->lambda_inv) {
        space_free(s);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "contact space: out of memory");
    }
    for (int i = 0; i < m; ++i) {
        apply_inverse(A_inv, J + (size_t)i * n, s->G + (size_t)i * n);
    }
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j <= i; ++j) {
            tch_real v = 0.5 * (dot(J + (size_t)i * n, s->G + (size_t)j * n, n) +
                                dot(J + (size_t)j * n, s->G + (size_t)i * n, n));
            s->lambda_inv[i * m + j] = s->lambda_inv[j * m + i] = v;
        }
    }
    return all_finite(s->lambda_inv, m * m)
               ? TCH_OK
               : tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                          "contact space: the inverse inertia gave non-finite values");
}

/* x = x0 + A⁻¹ Jᵀ z = x0 + Σ_i z_i G_i (eqs. 17 and 26). */
static void add_response(const contact_space* s, const tch_real* z, const tch_real* x0,
                         tch_real* x) {
    memmove(x, x0, (size_t)s->n * sizeof *x);
    for (int i = 0; i < s->m; ++i) {
        for (int k = 0; k < s->n; ++k) {
            x[k] += z[i] * s->G[(size_t)i * s->n + k];
        }
    }
}

/* 0 <= z ⊥ Λ⁻¹ z + q >= 0 by Lemke. */
static tch_status solve_lcp(const contact_space* s, const tch_real* q, tch_real* z,
                            tch_contact_space_report* report, tch_error* err) {
    tch_arena arena;
    if (tch_arena_init(&arena, 0) != 0) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "contact space: out of memory");
    }
    tch_lcp_result result = {TCH_OK, TCH_LCP_SOLVED, 0, 0};
    memset(z, 0, (size_t)s->m * sizeof *z);
    tch_status status = tch_lemke_solve(s->lambda_inv, q, s->m, NULL, &arena, z, &result, err);
    tch_arena_destroy(&arena);
    if (report) {
        report->iterations = result.iterations;
        report->residual = result.residual;
    }
    return status;
}

tch_status tch_contact_space_inverse_inertia(const tch_inverse_inertia* A_inv, const tch_real* J,
                                             int m, tch_real* lambda_inv, tch_error* err) {
    contact_space s;
    tch_status status = space_build(A_inv, J, m, &s, err);
    if (status == TCH_OK) {
        memcpy(lambda_inv, s.lambda_inv, (size_t)m * (size_t)m * sizeof *lambda_inv);
    }
    space_free(&s);
    return status;
}

/* Contact velocities J x ([m] out). */
static void contact_velocities(const contact_space* s, const tch_real* x, tch_real* v) {
    for (int i = 0; i < s->m; ++i) {
        v[i] = dot(s->J + (size_t)i * s->n, x, s->n);
    }
}

static tch_status check_restitution(const tch_real* e, int m, tch_error* err) {
    for (int i = 0; e && i < m; ++i) {
        if (!(e[i] >= 0 && e[i] <= 1)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "contact space: restitution %d must be in [0, 1], got %g", i, e[i]);
        }
    }
    return TCH_OK;
}

tch_status tch_contact_space_impulse(const tch_inverse_inertia* A_inv, const tch_real* J, int m,
                                     const tch_real* qdot_minus, const tch_real* restitution,
                                     tch_real* p, tch_real* qdot_plus,
                                     tch_contact_space_report* report, tch_error* err) {
    contact_space s;
    tch_status status = space_build(A_inv, J, m, &s, err);
    if (status == TCH_OK) status = check_vector(qdot_minus, s.n, "q̇⁻", err);
    if (status == TCH_OK) status = check_restitution(restitution, m, err);
    tch_real* q = status == TCH_OK ? malloc((size_t)(m > 0 ? m : 1) * sizeof *q) : NULL;
    if (status == TCH_OK && !q) {
        status = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "contact space: out of memory");
    }
    if (status == TCH_OK) {
        /* Eq. 16: q = (I + E) J q̇⁻, with no restitution for contacts already separating. */
        contact_velocities(&s, qdot_minus, q);
        for (int i = 0; i < m; ++i) {
            q[i] *= q[i] < 0 && restitution ? 1 + restitution[i] : 1;
        }
        status = solve_lcp(&s, q, p, report, err);
    }
    if (status == TCH_OK && qdot_plus) {
        add_response(&s, p, qdot_minus, qdot_plus);
    }
    free(q);
    space_free(&s);
    return status;
}

tch_status tch_contact_space_resting(const tch_inverse_inertia* A_inv, const tch_real* J, int m,
                                     const tch_real* qddot_free, const tch_real* jdot_qdot,
                                     tch_real* f, tch_real* qddot,
                                     tch_contact_space_report* report, tch_error* err) {
    contact_space s;
    tch_status status = space_build(A_inv, J, m, &s, err);
    if (status == TCH_OK) status = check_vector(qddot_free, s.n, "q̈_free", err);
    if (status == TCH_OK && jdot_qdot) status = check_vector(jdot_qdot, m, "J̇ q̇", err);
    tch_real* a_free = status == TCH_OK ? malloc((size_t)(m > 0 ? m : 1) * sizeof *a_free) : NULL;
    if (status == TCH_OK && !a_free) {
        status = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "contact space: out of memory");
    }
    if (status == TCH_OK) {
        /* Eq. 25: a_free = J A⁻¹ [Γ - b - g] + J̇ q̇. */
        contact_velocities(&s, qddot_free, a_free);
        for (int i = 0; jdot_qdot && i < m; ++i) {
            a_free[i] += jdot_qdot[i];
        }
        status = solve_lcp(&s, a_free, f, report, err);
    }
    if (status == TCH_OK && qddot) {
        add_response(&s, f, qddot_free, qddot);
    }
    free(a_free);
    space_free(&s);
    return status;
}

/* J̄ = A⁻¹ Jᵀ Λ (eq. 19): row k of J̄ is Λ times column k of G, i.e. the solution of
 * Λ⁻¹ x = G e_k. Λ⁻¹ = L Lᵀ by the solver module's Cholesky, then the n right-hand sides, Gᵀ
 * copied into J̄, solved in place together (LAPACK's dpotrf from 16 contacts up, dpotrs from 8:
 * the measured crossovers of solver/dense_lapack.h). */
static tch_status consistent_inverse(const contact_space* s, tch_real* jbar, tch_error* err) {
    const int m = s->m, n = s->n;
    tch_real* chol = malloc((size_t)(m > 0 ? m * (m + 1) : 1) * sizeof *chol);
    if (!chol) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "contact space: out of memory");
    }
    memcpy(chol, s->lambda_inv, (size_t)m * (size_t)m * sizeof *chol);
    if (tch_solver_cholesky(chol, m, chol + (size_t)m * (size_t)m) != 0) {
        free(chol);
        return tch_fail(err, TCH_ERR_NUMERICAL, NULL, 0,
                        "contact space: J A⁻¹ Jᵀ is singular (the %d contacts are not "
                        "independent), so J has no dynamically consistent inverse", m);
    }
    for (int k = 0; k < n; ++k) {
        for (int i = 0; i < m; ++i) {
            jbar[(size_t)k * m + i] = s->G[(size_t)i * n + k];
        }
    }
    tch_solver_cholesky_solve_many(chol, m, jbar, n);
    free(chol);
    return TCH_OK;
}

tch_status tch_contact_space_consistent_inverse(const tch_inverse_inertia* A_inv,
                                                const tch_real* J, int m, tch_real* jbar,
                                                tch_error* err) {
    contact_space s;
    tch_status status = space_build(A_inv, J, m, &s, err);
    if (status == TCH_OK) {
        status = consistent_inverse(&s, jbar, err);
    }
    space_free(&s);
    return status;
}

tch_status tch_contact_space_consistent_velocity(const tch_inverse_inertia* A_inv,
                                                 const tch_real* J, int m,
                                                 const tch_real* qdot_minus,
                                                 const tch_real* v_plus, tch_real* qdot_plus,
                                                 tch_error* err) {
    contact_space s;
    tch_status status = space_build(A_inv, J, m, &s, err);
    if (status == TCH_OK) status = check_vector(qdot_minus, s.n, "q̇⁻", err);
    if (status == TCH_OK) status = check_vector(v_plus, m, "v⁺", err);
    size_t mm = (size_t)(m > 0 ? m : 1);
    tch_real* jbar = status == TCH_OK ? malloc((size_t)s.n * mm * sizeof *jbar) : NULL;
    tch_real* change = status == TCH_OK ? malloc(mm * sizeof *change) : NULL;
    if (status == TCH_OK && (!jbar || !change)) {
        status = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "contact space: out of memory");
    }
    if (status == TCH_OK) status = consistent_inverse(&s, jbar, err);
    if (status == TCH_OK) {
        /* Eq. 21 as q̇⁺ = q̇⁻ + J̄ (v⁺ - J q̇⁻). */
        contact_velocities(&s, qdot_minus, change);
        for (int i = 0; i < m; ++i) {
            change[i] = v_plus[i] - change[i];
        }
        for (int k = 0; k < s.n; ++k) {
            qdot_plus[k] = qdot_minus[k] + dot(jbar + (size_t)k * m, change, m);
        }
    }
    free(jbar);
    free(change);
    space_free(&s);
    return status;
}

/* ---- free rigid bodies ---- */

static void write3(tch_real* a, tch_vec3 v) {
    a[0] = v.x, a[1] = v.y, a[2] = v.z;
}

void tch_contact_space_write_body_velocity(const tch_model* m, const tch_real* qpos,
                                           tch_real* qvel, int b, tch_vec3 v_WCm, tch_vec3 w_W) {
    tch_quat q_WB = tch_free_body_pose(m, qpos, b).q;
    tch_vec3 r_W = tch_q_rotate(q_WB, m->body_total_p_BCm[b]);
    tch_real* v = qvel + m->body_qvel_adr[b];
    write3(v, tch_v3_sub(v_WCm, tch_v3_cross(w_W, r_W)));
    write3(v + 3, tch_q_inv_rotate(q_WB, w_W));
}

void tch_contact_space_free_body_inverse_inertia(const tch_model* m, const tch_data* d,
                                                 tch_real* A_inv) {
    if (m->articulation) {
        return;
    }
    int nv = m->nv;
    memset(A_inv, 0, (size_t)nv * (size_t)nv * sizeof *A_inv);
    for (int b = 1; b < m->body_count; ++b) {
        if (!m->body_free[b]) {
            continue;
        }
        int k = m->body_qvel_adr[b];
        const tch_mat3 I_inv_W = d->body_I_inv_W[b];
        for (int i = 0; i < 3; ++i) {
            A_inv[(k + i) * nv + k + i] = 1 / m->body_total_mass[b];
            for (int j = 0; j < 3; ++j) {
                A_inv[(k + 3 + i) * nv + k + 3 + j] = I_inv_W.m[i][j];
            }
        }
    }
}

void tch_contact_space_free_body_velocity(const tch_model* m, const tch_data* d, tch_real* nu) {
    if (m->articulation) {
        return;
    }
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b]) {
            tch_vec3 v, w;
            tch_free_body_com_velocity(m, d->qpos, d->qvel, b, &v, &w);
            write3(nu + m->body_qvel_adr[b], v);
            write3(nu + m->body_qvel_adr[b] + 3, w);
        }
    }
}

void tch_contact_space_free_body_set_velocity(const tch_model* m, tch_data* d,
                                              const tch_real* nu) {
    if (m->articulation) {
        return;
    }
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b]) {
            const tch_real* x = nu + m->body_qvel_adr[b];
            tch_contact_space_write_body_velocity(m, d->qpos, d->qvel, b,
                                                  (tch_vec3){x[0], x[1], x[2]},
                                                  (tch_vec3){x[3], x[4], x[5]});
        }
    }
    tch_kinematics_velocities(m, d);
}

/* Adds sign * (n, r x n) to the row's columns of geom g's free root. */
static void add_body_columns(const tch_model* m, const tch_data* d, int geom, tch_vec3 p_W,
                             tch_vec3 n_W, tch_real sign, tch_real* row) {
    int root = m->body_root[m->geom_body[geom]];
    if (!m->body_free[root]) { /* static or mocap: no columns */
        return;
    }
    tch_real* x = row + m->body_qvel_adr[root];
    tch_vec3 ang = tch_v3_cross(tch_v3_sub(p_W, d->body_p_WCm[root]), n_W);
    for (int i = 0; i < 3; ++i) {
        x[i] += sign * tch_v3_get(n_W, i);
        x[3 + i] += sign * tch_v3_get(ang, i);
    }
}

void tch_contact_space_free_body_row(const tch_model* m, const tch_data* d,
                                     const tch_contact* c, tch_real* row) {
    if (m->articulation) {
        return;
    }
    memset(row, 0, (size_t)m->nv * sizeof *row);
    add_body_columns(m, d, c->geom_b, c->p_W, c->n_W, 1, row);
    add_body_columns(m, d, c->geom_a, c->p_W, c->n_W, -1, row);
}
