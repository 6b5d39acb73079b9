/* The linearly implicit Euler integrator (engine/implicit.c, docs/integrators.md) and the
 * contact linearizations it uses (the `linearize` op of contact/point.c and
 * contact/volume_linearize.c). */
#include "contact/contact.h"
#include "dynamics/free_body.h"
#include "engine/engine_internal.h"
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

static const double g = 9.81;

/* ---- scenes ---- */

typedef struct scene_params {
    tch_contact_model model;
    tch_point_law law;
    double k, b, mu, dt;
    tch_integrator integrator;
} scene_params;

static tch_spec* scene_spec(const scene_params* p) {
    tch_spec* spec = test_spec(g, p->dt, p->integrator);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = p->model;
    opt.contact.law = p->law == TCH_POINT_LAW_INHERIT ? TCH_POINT_LAW_LINEAR : p->law;
    opt.contact.stiffness = p->k;
    opt.contact.damping = p->b;
    opt.contact.dissipation = 0.3;
    opt.contact.exponent = 1.5;
    opt.contact.friction = opt.contact.static_friction = p->mu;
    opt.contact.tangential_stiffness = 2500;
    opt.contact.tangential_damping = 10;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), p->mu);
    return spec;
}

/* A 1 x 1 x 2 m box of 1 kg standing on the floor at depth `depth`, orientation q. */
static tch_model* box_on_floor(const scene_params* p, double depth, tch_quat q) {
    tch_spec* spec = scene_spec(p);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.5, 0.5, 1}, 1, (tch_vec3){0, 0, 1 - depth},
                  q);
    return test_compile(spec);
}

/* n such boxes stacked, each contact at its equilibrium depth, the top pushed `push` along x. */
static tch_model* stack(const scene_params* p, int n, double push) {
    tch_spec* spec = scene_spec(p);
    double z = -1;
    for (int j = 1; j <= n; ++j) {
        z += 2 - (n - j + 1) * g / p->k;
        char name[16];
        snprintf(name, sizeof name, "block%d", j);
        test_add_body(spec, name, TCH_GEOM_BOX, (tch_vec3){0.5, 0.5, 1}, 1,
                      (tch_vec3){j == n ? push : 0, 0, z}, tch_q_identity());
    }
    return test_compile(spec);
}

static tch_data* make_data(const tch_model* m) {
    tch_data* d = NULL;
    return m && tch_data_create(m, &d, NULL) == TCH_OK ? d : NULL;
}

/* ---- the linearization against finite differences ---- */

enum { MAX_BODIES = 2, DIM = 6 * MAX_BODIES };

/* Moves body b's centre of mass by delta and rotates it by phi (world) about it. */
static void displace(const tch_model* m, tch_data* d, int b, tch_vec3 delta, tch_vec3 phi) {
    tch_transform X = tch_free_body_pose(m, d->qpos, b);
    tch_vec3 c = tch_x_apply(X, m->body_total_p_BCm[b]);
    X.q = tch_q_mul(tch_q_from_rotvec(phi), X.q);
    X.p = tch_v3_sub(tch_v3_add(c, delta), tch_q_rotate(X.q, m->body_total_p_BCm[b]));
    tch_free_body_set_pose(m, d->qpos, b, X);
}

/* Adds dv to body b's centre-of-mass velocity and dw to its angular velocity (world). */
static void accelerate(const tch_model* m, tch_data* d, int b, tch_vec3 dv, tch_vec3 dw) {
    tch_quat q = tch_free_body_pose(m, d->qpos, b).q;
    tch_vec3 r = tch_q_rotate(q, m->body_total_p_BCm[b]);
    tch_vec3 dv_o = tch_v3_sub(dv, tch_v3_cross(dw, r)), dw_B = tch_q_inv_rotate(q, dw);
    tch_real* v = d->qvel + m->body_qvel_adr[b];
    for (int i = 0; i < 3; ++i) {
        v[i] += tch_v3_get(dv_o, i);
        v[3 + i] += tch_v3_get(dw_B, i);
    }
}

/* The generalized forces (force, torque about the centre of mass) of bodies 1..n. */
static void generalized_forces(const tch_model* m, tch_data* d, int n, double* f) {
    tch_forward(m, d, NULL);
    for (int b = 1; b <= n; ++b) {
        for (int i = 0; i < 3; ++i) {
            f[6 * (b - 1) + i] = tch_v3_get(d->body_force_W[b], i);
            f[6 * (b - 1) + 3 + i] = tch_v3_get(d->body_torque_W[b], i);
        }
    }
}

/* Central differences of the generalized forces of bodies 1..n in their poses (velocity 0)
 * or in their velocities. */
static void finite_differences(const tch_model* m, tch_data* d, int n, int velocity,
                               double J[DIM][DIM]) {
    const double eps = 1e-7;
    for (int j = 0; j < 6 * n; ++j) {
        double f[2][DIM];
        for (int side = 0; side < 2; ++side) {
            tch_data_reset(m, d);
            tch_vec3 e = tch_v3_zero();
            tch_v3_set(&e, j % 3, side ? eps : -eps);
            int b = 1 + j / 6, rotation = (j % 6) >= 3;
            if (velocity) {
                accelerate(m, d, b, rotation ? tch_v3_zero() : e, rotation ? e : tch_v3_zero());
            } else {
                displace(m, d, b, rotation ? tch_v3_zero() : e, rotation ? e : tch_v3_zero());
            }
            generalized_forces(m, d, n, f[side]);
        }
        for (int i = 0; i < 6 * n; ++i) {
            J[i][j] = (f[1][i] - f[0][i]) / (2 * eps);
        }
    }
    tch_data_reset(m, d);
}

/* The pairs' linearizations at the model's initial state, summed over bodies 1..n. */
static void linearized(const tch_model* m, tch_data* d, int n, double K[DIM][DIM],
                       double D[DIM][DIM]) {
    tch_data_reset(m, d);
    tch_forward(m, d, NULL);
    memset(K, 0, sizeof(double) * DIM * DIM);
    memset(D, 0, sizeof(double) * DIM * DIM);
    for (int p = 0; p < d->pair_result_count; ++p) {
        tch_pair_result* pair = &d->pair_results[p];
        tch_pair_linearization lin;
        memset(&lin, 0, sizeof lin);
        tch_pair_context context = {pair, NULL, 0, NULL};
        tch_contact_model_ops(pair->model)->linearize(m, d, &context, &lin);
        int body[2] = {m->body_root[m->geom_body[pair->geom_a]],
                       m->body_root[m->geom_body[pair->geom_b]]};
        for (int s = 0; s < 2; ++s) {
            for (int t = 0; t < 2; ++t) {
                if (body[s] == 0 || body[t] == 0) {
                    continue;
                }
                for (int i = 0; i < 6; ++i) {
                    for (int j = 0; j < 6; ++j) {
                        K[6 * (body[s] - 1) + i][6 * (body[t] - 1) + j] += lin.K[6 * s + i][6 * t + j];
                        D[6 * (body[s] - 1) + i][6 * (body[t] - 1) + j] += lin.D[6 * s + i][6 * t + j];
                    }
                }
            }
        }
    }
}

/* Frobenius norm of A - B relative to that of B, over the first 6 n rows and columns. */
static double relative_difference(double A[DIM][DIM], double B[DIM][DIM], int n) {
    double diff = 0, norm = 0;
    for (int i = 0; i < 6 * n; ++i) {
        for (int j = 0; j < 6 * n; ++j) {
            diff += (A[i][j] - B[i][j]) * (A[i][j] - B[i][j]);
            norm += B[i][j] * B[i][j];
        }
    }
    return sqrt(diff / norm);
}

/* K and D of bodies 1..n against central differences of the model's forces. */
static void check_linearization(const tch_model* m, int n, double tolerance) {
    tch_data* d = make_data(m);
    ENSURE(d != NULL);
    static double K[DIM][DIM], D[DIM][DIM], K_fd[DIM][DIM], D_fd[DIM][DIM];
    linearized(m, d, n, K, D);
    finite_differences(m, d, n, 0, K_fd);
    finite_differences(m, d, n, 1, D_fd);
    double k_error = relative_difference(K, K_fd, n), d_error = relative_difference(D, D_fd, n);
    printf("     K relative error %.2e, D relative error %.2e\n", k_error, d_error);
    ENSURE(k_error < tolerance);
    ENSURE(d_error < tolerance);
    tch_data_destroy(d);
}


static void test_point_linearization_matches_finite_differences(void) {
    scene_params p = {TCH_CONTACT_POINT, TCH_POINT_LAW_LINEAR, 1e5, 300, 0, 0.005,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_quat tilted = tch_q_from_rotvec((tch_vec3){0.02, -0.01, 0.3});
    tch_model* m = box_on_floor(&p, 1e-3, tilted);
    ENSURE(m != NULL);
    check_linearization(m, 1, 1e-4);
    tch_model_destroy(m);
}

static void test_hunt_crossley_linearization_matches_finite_differences(void) {
    scene_params p = {TCH_CONTACT_POINT, TCH_POINT_LAW_HUNT_CROSSLEY, 1e6, 0, 0, 0.005,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_model* m = box_on_floor(&p, 2e-3, tch_q_from_rotvec((tch_vec3){0.01, 0.02, 0}));
    ENSURE(m != NULL);
    check_linearization(m, 1, 1e-4);
    tch_model_destroy(m);
}

static void test_volume_linearization_matches_finite_differences(void) {
    scene_params p = {TCH_CONTACT_VOLUME, TCH_POINT_LAW_INHERIT, 1e5, 300, 0, 0.005,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_model* m = box_on_floor(&p, 1e-3, tch_q_from_rotvec((tch_vec3){0, 0, 0.01}));
    ENSURE(m != NULL);
    check_linearization(m, 1, 1e-4);
    tch_model_destroy(m);
}

static void test_volume_stack_linearization_matches_finite_differences(void) {
    scene_params p = {TCH_CONTACT_VOLUME, TCH_POINT_LAW_INHERIT, 1e5, 300, 0, 0.005,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_model* m = stack(&p, 2, 0.3);
    ENSURE(m != NULL);
    check_linearization(m, 2, 1e-4);
    tch_model_destroy(m);
}

int main(void) {
    RUN_TEST(test_point_linearization_matches_finite_differences);
    RUN_TEST(test_hunt_crossley_linearization_matches_finite_differences);
    RUN_TEST(test_volume_linearization_matches_finite_differences);
    RUN_TEST(test_volume_stack_linearization_matches_finite_differences);
    return TEST_RESULT();
}
