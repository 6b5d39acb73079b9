/* Contact space of Ruspini and Khatib (touche/contact_space.h): the closed forms of
 * reference/contact_space_haptics.md sec. 7, the dynamically consistent inverse, energy of
 * impacts, Λ⁻¹ against an explicit construction, and agreement with the lcp time stepper. */
#include <stdlib.h>
#include <string.h>

#include "dynamics/contact_space.h"
#include "math/dense.h"
#include "math/vec.h"
#include "solver/dense_lapack.h"
#include "scene_builder.h"
#include "test.h"

static const double G = 9.81;

static tch_inverse_inertia dense_inverse(const tch_real* A_inv, int n) {
    return (tch_inverse_inertia){n, A_inv, NULL, NULL};
}

/* Acceptance 1: a 2 kg point mass hits the floor at 2 m/s with e = 0.5: Λ⁻¹ = 0.5, p = 6 N s,
 * v+ = 1 m/s. */
static void test_point_mass_impulse(void) {
    tch_real A_inv[9] = {0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5};
    tch_real J[3] = {0, 0, 1}, qd[3] = {0.3, 0, -2}, e = 0.5, p, qd_plus[3];
    tch_inverse_inertia A = dense_inverse(A_inv, 3);
    tch_contact_space_report report;
    ENSURE(tch_contact_space_impulse(&A, J, 1, qd, &e, &p, qd_plus, &report, NULL) == TCH_OK);
    ENSURE_NEAR(p, 6, 1e-12);
    ENSURE_NEAR(qd_plus[2], 1, 1e-12);
    ENSURE_NEAR(qd_plus[0], 0.3, 1e-15);
    ENSURE(report.residual < 1e-12);
}

/* The planar rod of acceptance 2 and 3: q = (z, theta), A = diag(1, 1/12), ends at r = ±0.5. */
static const tch_real ROD_A_INV[4] = {1, 0, 0, 12};

static void test_rod_corner_impact(void) {
    tch_inverse_inertia A = dense_inverse(ROD_A_INV, 2);
    tch_real J[2] = {1, 0.5}, qd[2] = {-1, 0}, lambda_inv, p, qd_plus[2];
    ENSURE(tch_contact_space_inverse_inertia(&A, J, 1, &lambda_inv, NULL) == TCH_OK);
    ENSURE_NEAR(lambda_inv, 4, 1e-14);
    tch_real e = 0;
    ENSURE(tch_contact_space_impulse(&A, J, 1, qd, &e, &p, qd_plus, NULL, NULL) == TCH_OK);
    ENSURE_NEAR(p, 0.25, 1e-14);
    ENSURE_NEAR(qd_plus[0], -0.75, 1e-14);
    ENSURE_NEAR(qd_plus[1], 1.5, 1e-14);
    e = 1;
    ENSURE(tch_contact_space_impulse(&A, J, 1, qd, &e, &p, qd_plus, NULL, NULL) == TCH_OK);
    ENSURE_NEAR(p, 0.5, 1e-14);
    ENSURE_NEAR(qd_plus[0] + 0.5 * qd_plus[1], 1, 1e-14);
}

static double rod_energy(const tch_real* qd) {
    return 0.5 * qd[0] * qd[0] + 0.5 / 12 * qd[1] * qd[1];
}

static void test_rod_flat_landing(void) {
    tch_inverse_inertia A = dense_inverse(ROD_A_INV, 2);
    tch_real J[4] = {1, 0.5, 1, -0.5}, qd[2] = {-1, 0}, lambda_inv[4], p[2], qd_plus[2];
    ENSURE(tch_contact_space_inverse_inertia(&A, J, 2, lambda_inv, NULL) == TCH_OK);
    ENSURE_NEAR(lambda_inv[0], 4, 1e-14);
    ENSURE_NEAR(lambda_inv[1], -2, 1e-14);
    tch_real e[2] = {1, 1};
    ENSURE(tch_contact_space_impulse(&A, J, 2, qd, e, p, qd_plus, NULL, NULL) == TCH_OK);
    ENSURE_NEAR(p[0], 1, 1e-14);
    ENSURE_NEAR(p[1], 1, 1e-14);
    ENSURE_NEAR(qd_plus[0], 1, 1e-14);
    ENSURE_NEAR(qd_plus[1], 0, 1e-14);
    ENSURE_NEAR(rod_energy(qd_plus), rod_energy(qd), 1e-12);
    e[0] = e[1] = 0;
    ENSURE(tch_contact_space_impulse(&A, J, 2, qd, e, p, qd_plus, NULL, NULL) == TCH_OK);
    ENSURE_NEAR(p[0], 0.5, 1e-14);
    ENSURE_NEAR(qd_plus[0], 0, 1e-14);
}

/* Acceptance 4: a 1 x 1 m table top (m = 1, I = 1/6 about both horizontal axes) lands flat on
 * four corners: rank 3, impulses not unique, velocities are. q = (z, wx, wy). */
static void test_redundant_table_contacts(void) {
    tch_real A_inv[9] = {1, 0, 0, 0, 6, 0, 0, 0, 6};
    tch_inverse_inertia A = dense_inverse(A_inv, 3);
    tch_real J[12], e[4], p[4], qd[3] = {-1, 0, 0}, qd_plus[3];
    for (int k = 0; k < 4; ++k) {
        double x = k & 1 ? 0.5 : -0.5, y = k & 2 ? 0.5 : -0.5;
        /* normal velocity of corner (x, y): z' + wx y - wy x */
        J[3 * k] = 1, J[3 * k + 1] = y, J[3 * k + 2] = -x;
        e[k] = 0.5;
    }
    ENSURE(tch_contact_space_impulse(&A, J, 4, qd, e, p, qd_plus, NULL, NULL) == TCH_OK);
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
        ENSURE(p[k] >= 0);
        sum += p[k];
        ENSURE_NEAR(J[3 * k] * qd_plus[0] + J[3 * k + 1] * qd_plus[1] + J[3 * k + 2] * qd_plus[2],
                    0.5, 1e-12);
    }
    ENSURE_NEAR(sum, 1.5, 1e-12);
    ENSURE_NEAR(qd_plus[1], 0, 1e-12);
    ENSURE_NEAR(qd_plus[2], 0, 1e-12);
    tch_real jbar[12];
    ENSURE(tch_contact_space_consistent_inverse(&A, J, 4, jbar, NULL) == TCH_ERR_NUMERICAL);
}

/* ---- random systems ---- */

static double uniform(unsigned* state) {
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0 * 2 - 1;
}

/* A random symmetric positive definite n x n matrix B Bᵀ + 0.5 I (an A⁻¹ for the tests). */
static void random_spd(int n, unsigned* state, tch_real* S) {
    tch_real* B = malloc((size_t)n * n * sizeof *B);
    for (int i = 0; i < n * n; ++i) B[i] = uniform(state);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double s = i == j ? 0.5 : 0;
            for (int k = 0; k < n; ++k) s += B[i * n + k] * B[j * n + k];
            S[i * n + j] = s;
        }
    }
    free(B);
}

static void mat_vec(const tch_real* M, int rows, int cols, const tch_real* x, tch_real* y) {
    for (int i = 0; i < rows; ++i) {
        y[i] = 0;
        for (int k = 0; k < cols; ++k) y[i] += M[i * cols + k] * x[k];
    }
}

/* The same A⁻¹ through the operator form. */
static void apply_dense(void* user, const tch_real* x, tch_real* y) {
    const tch_real* M = user;
    mat_vec(M, 12, 12, x, y);
}

/* Acceptance 5: J J̄ = I, J (I - J̄ J) = 0, and with every contact active the velocity of eq. 19
 * equals the impulse LCP's. */
static void test_dynamically_consistent_inverse(void) {
    enum { N = 12, K = 4 };
    unsigned state = 7;
    tch_real A_inv[N * N], J[K * N], jbar[N * K];
    random_spd(N, &state, A_inv);
    for (int i = 0; i < K * N; ++i) J[i] = uniform(&state);
    tch_inverse_inertia A = {N, NULL, apply_dense, A_inv};
    ENSURE(tch_contact_space_consistent_inverse(&A, J, K, jbar, NULL) == TCH_OK);
    for (int i = 0; i < K; ++i) {
        for (int j = 0; j < K; ++j) {
            double s = 0;
            for (int k = 0; k < N; ++k) s += J[i * N + k] * jbar[k * K + j];
            ENSURE_NEAR(s, i == j, 1e-10);
        }
    }
    /* q̇⁻ = -A⁻¹ Jᵀ c with c > 0 gives the impulses p = (1 + e) c > 0 (uniform e); c is drawn
     * until every contact approaches, J q̇⁻ = -Λ⁻¹ c < 0, so that every contact is active. */
    tch_real c[K], jtc[N], qd[N], e[K], p[K], lcp_plus[N], eq19_plus[N];
    tch_real v_plus[K], v_minus[K];
    int approaching = 0;
    for (int tries = 0; tries < 1000 && !approaching; ++tries) {
        for (int i = 0; i < K; ++i) c[i] = 1.1 + uniform(&state);
        for (int k = 0; k < N; ++k) {
            jtc[k] = 0;
            for (int i = 0; i < K; ++i) jtc[k] -= J[i * N + k] * c[i];
        }
        mat_vec(A_inv, N, N, jtc, qd);
        mat_vec(J, K, N, qd, v_minus);
        approaching = 1;
        for (int i = 0; i < K; ++i) approaching &= v_minus[i] < 0;
    }
    ENSURE(approaching);
    for (int i = 0; i < K; ++i) {
        e[i] = 0.4;
        v_plus[i] = -e[i] * v_minus[i];
    }
    ENSURE(tch_contact_space_impulse(&A, J, K, qd, e, p, lcp_plus, NULL, NULL) == TCH_OK);
    ENSURE(tch_contact_space_consistent_velocity(&A, J, K, qd, v_plus, eq19_plus, NULL) == TCH_OK);
    for (int k = 0; k < N; ++k) {
        ENSURE_NEAR(lcp_plus[k], eq19_plus[k], 1e-10);
    }
    /* J (I - J̄ J) x = 0 for a random x: the velocity with v⁺ = J x is x itself. */
    tch_real x[N], Jx[K], same[N];
    for (int k = 0; k < N; ++k) x[k] = uniform(&state);
    mat_vec(J, K, N, x, Jx);
    ENSURE(tch_contact_space_consistent_velocity(&A, J, K, x, Jx, same, NULL) == TCH_OK);
    for (int k = 0; k < N; ++k) {
        ENSURE_NEAR(same[k], x[k], 1e-10);
    }
}

/* The consistent inverse J̄ = A⁻¹ Jᵀ Λ for m contacts on both sides of the solver module's
 * Cholesky crossovers (solver/dense_lapack.h: the factor and the solves by the loops, the
 * factor by the loops and the solves by LAPACK, both by LAPACK): J J̄ = I
 * and J̄ equal to the one from the hand-written Cholesky (math/dense.h) to 1e-10; and with a
 * repeated contact (Λ⁻¹ singular) the failure is reported on either side. */
static void test_consistent_inverse_across_cholesky_crossover(void) {
    enum { N = 40, MAX_M = 2 * TCH_SOLVER_CHOLESKY_LAPACK_MIN_N + 3 };
    _Static_assert(MAX_M < N, "the contacts must be independent");
    static const int contacts[] = {TCH_SOLVER_CHOLESKY_SOLVE_MANY_LAPACK_MIN_N - 1,
                                   TCH_SOLVER_CHOLESKY_LAPACK_MIN_N - 1,
                                   TCH_SOLVER_CHOLESKY_LAPACK_MIN_N, MAX_M};
    static tch_real A_inv[N * N], J[MAX_M * N], a_inv_jt[MAX_M * N], lambda_inv[MAX_M * MAX_M],
        jbar[N * MAX_M], column[MAX_M];
    unsigned state = 11;
    random_spd(N, &state, A_inv);
    tch_inverse_inertia A = dense_inverse(A_inv, N);
    for (size_t c = 0; c < sizeof contacts / sizeof contacts[0]; ++c) {
        const int m = contacts[c];
        for (int i = 0; i < m * N; ++i) J[i] = uniform(&state);
        ENSURE(tch_contact_space_consistent_inverse(&A, J, m, jbar, NULL) == TCH_OK);
        for (int i = 0; i < m; ++i) { /* row i: A⁻¹ J_iᵀ */
            mat_vec(A_inv, N, N, J + i * N, a_inv_jt + i * N);
        }
        ENSURE(tch_contact_space_inverse_inertia(&A, J, m, lambda_inv, NULL) == TCH_OK);
        ENSURE(tch_dense_cholesky(lambda_inv, m) == 0);
        for (int k = 0; k < N; ++k) {
            for (int i = 0; i < m; ++i) column[i] = a_inv_jt[i * N + k];
            tch_dense_cholesky_solve(lambda_inv, m, column);
            for (int i = 0; i < m; ++i) {
                ENSURE_NEAR(jbar[k * m + i], column[i], 1e-10 * fmax(1, fabs(column[i])));
            }
        }
        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < m; ++j) {
                double s = 0;
                for (int k = 0; k < N; ++k) s += J[i * N + k] * jbar[k * m + j];
                ENSURE_NEAR(s, i == j, 1e-10);
            }
        }
        memcpy(J + (m - 1) * N, J, N * sizeof *J);
        tch_error err = {0};
        ENSURE(tch_contact_space_consistent_inverse(&A, J, m, jbar, &err) == TCH_ERR_NUMERICAL);
        ENSURE(strstr(err.message, "not independent") != NULL);
    }
}

/* Acceptance 6 (with 2000 impacts at contacts that all approach; a separating contact takes no
 * restitution, and an impulse at one could add energy): ΔT <= 0 and
 * ΔT = -(1 - e)/(2(1 + e)) pᵀ Λ⁻¹ p. */
static void test_impacts_never_create_energy(void) {
    enum { N = 6, K = 3 };
    unsigned state = 11;
    for (int trial = 0; trial < 2000;) {
        tch_real A_inv[N * N], A_dense[N * N], J[K * N], qd[N], p[K], plus[N], L[K * K];
        random_spd(N, &state, A_inv);
        memcpy(A_dense, A_inv, sizeof A_dense);
        for (int i = 0; i < K * N; ++i) J[i] = uniform(&state);
        for (int i = 0; i < N; ++i) qd[i] = uniform(&state);
        double e = 0.5 * (uniform(&state) + 1);
        tch_real es[K] = {e, e, e}, Jq[K], Lp[K];
        mat_vec(J, K, N, qd, Jq);
        if (!(Jq[0] < 0 && Jq[1] < 0 && Jq[2] < 0)) {
            continue;
        }
        trial++;
        tch_inverse_inertia A = dense_inverse(A_dense, N);
        ENSURE(tch_contact_space_impulse(&A, J, K, qd, es, p, plus, NULL, NULL) == TCH_OK);
        ENSURE(tch_contact_space_inverse_inertia(&A, J, K, L, NULL) == TCH_OK);
        /* ΔT in contact space: ½ (q̇ + A⁻¹Jᵀp)ᵀ A (q̇ + A⁻¹Jᵀp) - ½ q̇ᵀ A q̇
         * = pᵀ J q̇⁻ + ½ pᵀ Λ⁻¹ p. */
        mat_vec(L, K, K, p, Lp);
        double pJq = 0, pLp = 0;
        for (int i = 0; i < K; ++i) pJq += p[i] * Jq[i], pLp += p[i] * Lp[i];
        double dT = pJq + 0.5 * pLp;
        ENSURE(dT <= 1e-12);
        ENSURE_NEAR(dT, -(1 - e) / (2 * (1 + e)) * pLp, 1e-9 * fmax(1, pLp));
    }
}

/* ---- free bodies and the time stepper ---- */

/* The time stepper with the exact solver (Lemke), so that it agrees with the contact-space
 * problems to round-off rather than to PGS's tolerance. */
static tch_model* one_body_scene(tch_geom_type type, tch_vec3 size, tch_vec3 p, double e) {
    tch_spec* spec = test_spec(G, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_LCP;
    opt.lcp_solver = TCH_LCP_SOLVER_LEMKE;
    opt.contact.margin = 0.005;
    opt.contact.restitution = e;
    opt.contact.stabilization = 0;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "body", type, size, 1.5, p, tch_q_axis_angle((tch_vec3){1, 2, 3}, 0.0));
    return test_compile(spec);
}

/* Λ⁻¹ of a tilted box's four floor contacts equals the explicit velocity change at contact i
 * for a unit impulse at contact j: Δv = P / m, Δw = I_W⁻¹ (r_j x P), v_i = n . (Δv + Δw x r_i). */
static void test_inverse_inertia_matches_explicit_construction(void) {
    tch_spec* spec = test_spec(G, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.margin = 0.5;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.3, 0.2, 0.1}, 2, (tch_vec3){0, 0, 0.35},
                  tch_q_axis_angle((tch_vec3){1, 2, 3}, 0.4));
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    int k = d->contact_count;
    ENSURE(k >= 1 && k <= 8);
    tch_real A_inv[36], J[8 * 6], L[64];
    tch_contact_space_free_body_inverse_inertia(m, d, A_inv);
    for (int i = 0; i < k; ++i) {
        tch_contact_space_free_body_row(m, d, &d->contacts[i], J + 6 * i);
    }
    tch_inverse_inertia A = dense_inverse(A_inv, 6);
    ENSURE(tch_contact_space_inverse_inertia(&A, J, k, L, NULL) == TCH_OK);
    tch_mat3 I_inv_W = tch_m3_rotate_tensor(d->body_R_WB[1], m->body_total_I_inv[1]);
    tch_vec3 c = d->body_p_WCm[1];
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) {
            const tch_contact* ci = &d->contacts[i];
            const tch_contact* cj = &d->contacts[j];
            tch_vec3 P = cj->n_W; /* unit impulse on the box (geom b) at contact j */
            tch_vec3 dv = tch_v3_scale(P, 1 / m->body_total_mass[1]);
            tch_vec3 dw = tch_m3_mul_v3(I_inv_W, tch_v3_cross(tch_v3_sub(cj->p_W, c), P));
            tch_vec3 point = tch_v3_add(dv, tch_v3_cross(dw, tch_v3_sub(ci->p_W, c)));
            ENSURE_NEAR(L[i * k + j], tch_v3_dot(ci->n_W, point), 1e-12);
        }
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A ball touching the floor and moving down at 2 m/s with e = 0.6: the impulse problem (eq. 16
 * and 17) and one step of the lcp time stepper give the same rebound velocity 1.2 m/s. */
static void test_ball_impact_agrees_with_time_stepping(void) {
    double r = 0.1, e = 0.6, u = 2;
    tch_model* m = one_body_scene(TCH_GEOM_SPHERE, (tch_vec3){r, 0, 0}, (tch_vec3){0, 0, r}, e);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    tch_transform X = d->body_X_WB[1];
    ENSURE(tch_data_set_body_state(m, d, 1, &X, (tch_vec3){0.3, 0, -u}, tch_v3_zero(), NULL) ==
           TCH_OK);
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    ENSURE(d->contact_count == 1);
    tch_real A_inv[36], J[6], nu[6], plus[6], p;
    tch_contact_space_free_body_inverse_inertia(m, d, A_inv);
    tch_contact_space_free_body_row(m, d, &d->contacts[0], J);
    tch_contact_space_free_body_velocity(m, d, nu);
    tch_inverse_inertia A = dense_inverse(A_inv, 6);
    ENSURE(tch_contact_space_impulse(&A, J, 1, nu, &e, &p, plus, NULL, NULL) == TCH_OK);
    ENSURE_NEAR(plus[2], e * u, 1e-12);
    ENSURE_NEAR(p, 1.5 * (1 + e) * u, 1e-12);
    ENSURE(tch_step(m, d, NULL) == TCH_OK);
    ENSURE_NEAR(d->body_v_WCm[1].z, plus[2], 1e-12);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A box resting on four corners: the resting problem (eq. 25) and the time stepper carry the
 * same weight with the same net torque about the centre of mass (the split among the four
 * corners is indeterminate), and eq. 26 leaves the box unaccelerated. */
static void test_resting_box_agrees_with_time_stepping(void) {
    tch_model* m = one_body_scene(TCH_GEOM_BOX, (tch_vec3){0.2, 0.1, 0.05},
                                  (tch_vec3){0, 0, 0.05}, 0);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    int k = d->contact_count;
    ENSURE(k == 4);
    tch_real A_inv[36], J[24], f[4], free_acc[6] = {0, 0, -G, 0, 0, 0}, acc[6];
    tch_contact_space_free_body_inverse_inertia(m, d, A_inv);
    for (int i = 0; i < k; ++i) {
        tch_contact_space_free_body_row(m, d, &d->contacts[i], J + 6 * i);
    }
    tch_inverse_inertia A = dense_inverse(A_inv, 6);
    tch_contact_space_report report;
    ENSURE(tch_contact_space_resting(&A, J, k, free_acc, NULL, f, acc, &report, NULL) == TCH_OK);
    ENSURE(report.residual < 1e-12);
    tch_vec3 c = d->body_p_WCm[1], force = tch_v3_zero(), torque = tch_v3_zero();
    for (int i = 0; i < k; ++i) {
        tch_vec3 fi = tch_v3_scale(d->contacts[i].n_W, f[i]);
        force = tch_v3_add(force, fi);
        torque = tch_v3_add(torque, tch_v3_cross(tch_v3_sub(d->contacts[i].p_W, c), fi));
    }
    for (int i = 0; i < 6; ++i) {
        ENSURE_NEAR(acc[i], 0, 1e-12);
    }
    ENSURE(tch_step(m, d, NULL) == TCH_OK);
    tch_vec3 step_force = d->pair_results[0].f_W;
    tch_vec3 step_torque = tch_v3_sub(d->pair_results[0].tau_Wo_W, tch_v3_cross(c, step_force));
    ENSURE_NEAR(step_force.z, force.z, 1e-9);
    ENSURE_NEAR(force.z, 1.5 * G, 1e-12);
    ENSURE_NEAR(tch_v3_dist(step_torque, torque), 0, 1e-9);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_bad_input(void) {
    tch_real A_inv[1] = {1}, J[1] = {NAN}, p, qd = -1;
    tch_inverse_inertia A = dense_inverse(A_inv, 1);
    tch_error err;
    ENSURE(tch_contact_space_impulse(&A, J, 1, &qd, NULL, &p, NULL, NULL, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "Jacobian") != NULL);
    tch_real e = 1.5;
    J[0] = 1;
    ENSURE(tch_contact_space_impulse(&A, J, 1, &qd, &e, &p, NULL, NULL, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    tch_inverse_inertia none = {1, NULL, NULL, NULL};
    ENSURE(tch_contact_space_inverse_inertia(&none, J, 1, &p, &err) == TCH_ERR_INVALID_ARGUMENT);
}

int main(void) {
    RUN_TEST(test_point_mass_impulse);
    RUN_TEST(test_rod_corner_impact);
    RUN_TEST(test_rod_flat_landing);
    RUN_TEST(test_redundant_table_contacts);
    RUN_TEST(test_dynamically_consistent_inverse);
    RUN_TEST(test_consistent_inverse_across_cholesky_crossover);
    RUN_TEST(test_impacts_never_create_energy);
    RUN_TEST(test_inverse_inertia_matches_explicit_construction);
    RUN_TEST(test_ball_impact_agrees_with_time_stepping);
    RUN_TEST(test_resting_box_agrees_with_time_stepping);
    RUN_TEST(test_bad_input);
    return TEST_RESULT();
}
