/* The linearly implicit Euler integrator (engine/implicit.c, docs/integrators.md) and the
 * contact linearizations it uses (the `linearize` op of contact/point.c and
 * contact/volume_linearize.c). */
#include "contact/contact.h"
#include "touche/io.h"
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

enum { MAX_BODIES = 6, DIM = 6 * MAX_BODIES };

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
    tch_stage_kinematics(m, d);
    tch_stage_velocities(m, d);
    tch_transform X;
    tch_vec3 v_o, w;
    tch_data_body_state(m, d, b, &X, &v_o, &w);
    tch_vec3 r = tch_v3_sub(d->body_p_WCm[b], X.p);
    tch_vec3 v_cm = tch_v3_add(tch_v3_add(v_o, tch_v3_cross(w, r)), dv);
    w = tch_v3_add(w, dw);
    tch_data_set_body_state(m, d, b, &X, tch_v3_sub(v_cm, tch_v3_cross(w, r)), w, NULL);
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

/* The pairs' linearizations at data's state (after tch_forward), summed over bodies 1..n: the
 * stiffness K (+ G when `geometric`) and the damping D. */
static void linearized(const tch_model* m, tch_data* d, int n, int geometric, double K[DIM][DIM],
                       double D[DIM][DIM]) {
    memset(K, 0, sizeof(double) * DIM * DIM);
    memset(D, 0, sizeof(double) * DIM * DIM);
    for (int p = 0; p < d->pair_result_count; ++p) {
        tch_pair_result* pair = &d->pair_results[p];
        tch_pair_linearization lin;
        memset(&lin, 0, sizeof lin);
        lin.geometric = geometric;
        const tch_contact_ops* ops = tch_contact_model_ops(pair->model);
        tch_pair_state* state =
            ops->uses_state ? tch_pair_state_find(&d->internal->pair_states, pair->geom_a,
                                                  pair->geom_b)
                            : NULL;
        tch_pair_context context = {pair, state, 0, d->internal->model_scratch[pair->model]};
        ops->linearize(m, d, &context, &lin);
        int body[2] = {m->body_root[m->geom_body[pair->geom_a]],
                       m->body_root[m->geom_body[pair->geom_b]]};
        for (int s = 0; s < 2; ++s) {
            for (int t = 0; t < 2; ++t) {
                if (body[s] == 0 || body[t] == 0 || body[s] > n || body[t] > n) {
                    continue;
                }
                for (int i = 0; i < 6; ++i) {
                    for (int j = 0; j < 6; ++j) {
                        int row = 6 * (body[s] - 1) + i, col = 6 * (body[t] - 1) + j;
                        K[row][col] += lin.K[6 * s + i][6 * t + j] + lin.G[6 * s + i][6 * t + j];
                        D[row][col] += lin.D[6 * s + i][6 * t + j];
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

/* K and D of bodies 1..n against central differences of the model's forces. A model that
 * linearizes about the explicit predictor x + h v (`predictor`, the pressure model's
 * linearize_surface) applies F(x + h v) - K h v (K without G, as the integrator takes it),
 * whose velocity derivative is D + h (∂F/∂x - K): D is checked against that, with the
 * differenced ∂F/∂x. */
static void check_linearization(const tch_model* m, int n, double tolerance, int predictor) {
    tch_data* d = make_data(m);
    ENSURE(d != NULL);
    static double K[DIM][DIM], D[DIM][DIM], K_fd[DIM][DIM], D_fd[DIM][DIM];
    tch_data_reset(m, d);
    tch_forward(m, d, NULL);
    linearized(m, d, n, 1, K, D);
    static double K_step[DIM][DIM], unused[DIM][DIM]; /* the integrator's K, without G */
    linearized(m, d, n, 0, K_step, unused);
    finite_differences(m, d, n, 0, K_fd);
    finite_differences(m, d, n, 1, D_fd);
    if (predictor) {
        for (int i = 0; i < 6 * n; ++i) {
            for (int j = 0; j < 6 * n; ++j) {
                D_fd[i][j] -= m->timestep * (K_fd[i][j] - K_step[i][j]);
            }
        }
    }
    double k_error = relative_difference(K, K_fd, n), d_error = relative_difference(D, D_fd, n);
    printf("     K relative error %.2e, D relative error %.2e\n", k_error, d_error);
    ENSURE(k_error < tolerance);
    /* the predictor's surface moves with v: second-order terms (h v times the change of D and
     * of the friction dampers over the step) stay in the differenced D, 3.6e-4 of it here */
    ENSURE(d_error < (predictor ? 1e-3 : tolerance));
    tch_data_destroy(d);
}


/* A box on the floor at `depth`, turned by the rotation vector `turn`, against finite
 * differences. */
static void check_box_on_floor(tch_contact_model model, tch_point_law law, double k, double b,
                               double depth, tch_vec3 turn) {
    scene_params p = {model, law, k, b, 0, 0.005, TCH_INTEGRATOR_IMPLICIT};
    tch_model* m = box_on_floor(&p, depth, tch_q_from_rotvec(turn));
    ENSURE(m != NULL);
    check_linearization(m, 1, 1e-4, 0);
    tch_model_destroy(m);
}

/* Tilted so that two corners touch. */
static void test_point_linearization_matches_finite_differences(void) {
    check_box_on_floor(TCH_CONTACT_POINT, TCH_POINT_LAW_LINEAR, 1e5, 300, 1e-3,
                       (tch_vec3){0.02, -0.01, 0.3});
}

static void test_hunt_crossley_linearization_matches_finite_differences(void) {
    check_box_on_floor(TCH_CONTACT_POINT, TCH_POINT_LAW_HUNT_CROSSLEY, 1e6, 0, 2e-3,
                       (tch_vec3){0.01, 0.02, 0});
}

/* Flat (the faces parallel, where the linearization is exact), turned about the normal by an
 * angle where the model's outline of C repeats vertices (the hull of its vertices is used). */
static void test_volume_linearization_matches_finite_differences(void) {
    check_box_on_floor(TCH_CONTACT_VOLUME, TCH_POINT_LAW_INHERIT, 1e5, 300, 1e-3,
                       (tch_vec3){0, 0, 0.9});
}

/* A compliant box of the default modulus on the rigid floor, tilted less than its depth over
 * its half width so that the face stays in contact (the linearization leaves out the change
 * of the surface's shape, and takes the steepest rise of the field at the edges: of
 * relative size depth / half height here). */
static void test_pressure_linearization_matches_finite_differences(void) {
    scene_params p = {TCH_CONTACT_PRESSURE, TCH_POINT_LAW_INHERIT, NAN, NAN, 0, 0.005,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_model* m = box_on_floor(&p, 1e-5, tch_q_from_rotvec((tch_vec3){5e-6, -2.5e-6, 0.3}));
    ENSURE(m != NULL);
    check_linearization(m, 1, 1e-4, 1);
    tch_model_destroy(m);
}

/* Two free blocks: the contact plane's turning between them is the search's (5e-5 here). */
static void test_volume_stack_linearization_matches_finite_differences(void) {
    scene_params p = {TCH_CONTACT_VOLUME, TCH_POINT_LAW_INHERIT, 1e5, 300, 0, 0.005,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_model* m = stack(&p, 2, 0.3);
    ENSURE(m != NULL);
    check_linearization(m, 2, 1e-4, 0);
    tch_model_destroy(m);
}

/* ---- the integrator ---- */

/* Steps for `seconds`; the status of the first failing step, else TCH_OK. */
static tch_status run(const tch_model* m, tch_data* d, double seconds) {
    long steps = lround(seconds / m->timestep);
    for (long i = 0; i < steps; ++i) {
        tch_status s = tch_step(m, d, NULL);
        if (s != TCH_OK) {
            return s;
        }
    }
    return TCH_OK;
}

/* A model's own carrying of its local map (the system's path, no G) gives the K and D of the
 * general tch_contact_linearize_wrench (the path with G) in the free bodies' rows and columns,
 * on two offset blocks after a few steps. */
static void check_fast_carry_matches_the_general_one(tch_contact_model model) {
    scene_params p = {model, TCH_POINT_LAW_INHERIT, 1e5, 300, 0.5, 0.005,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_model* m = stack(&p, 2, 0.3);
    tch_data* d = make_data(m);
    ENSURE(d != NULL);
    ENSURE(run(m, d, 0.05) == TCH_OK);
    tch_forward(m, d, NULL);
    const tch_contact_ops* ops = tch_contact_model_ops(model);
    int compared = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        tch_pair_result* pair = &d->pair_results[i];
        tch_pair_state* state =
            ops->uses_state
                ? tch_pair_state_find(&d->internal->pair_states, pair->geom_a, pair->geom_b)
                : NULL;
        tch_pair_context context = {pair, state, 0, d->internal->model_scratch[model]};
        static tch_pair_linearization fast, general;
        memset(&fast, 0, sizeof fast);
        memset(&general, 0, sizeof general);
        general.geometric = 1;
        ops->linearize(m, d, &context, &fast);
        ops->linearize(m, d, &context, &general);
        /* the rows and columns of free roots: a static root's are meaningless (contact.h) */
        int lo = m->body_root[m->geom_body[pair->geom_a]] > 0 ? 0 : 6;
        int hi = m->body_root[m->geom_body[pair->geom_b]] > 0 ? 12 : 6;
        double difference = 0, size = 0;
        for (int r = lo; r < hi; ++r) {
            for (int c = lo; c < hi; ++c) {
                difference = fmax(difference, fabs(fast.K[r][c] - general.K[r][c]));
                difference = fmax(difference, fabs(fast.D[r][c] - general.D[r][c]));
                size = fmax(size, fmax(fabs(general.K[r][c]), fabs(general.D[r][c])));
            }
        }
        ENSURE(size > 0);
        ENSURE(difference <= 1e-12 * size);
        compared++;
    }
    ENSURE(compared == 2);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* The volume model's block-diagonal carry, its static friction holding (so the friction
 * springs are in both). */
static void test_volume_block_carry_matches_the_general_one(void) {
    check_fast_carry_matches_the_general_one(TCH_CONTACT_VOLUME);
}

/* The point model's rank-one updates. */
static void test_point_rank_one_matches_the_general_carry(void) {
    check_fast_carry_matches_the_general_one(TCH_CONTACT_POINT);
}

/* The vertical stiffness the point model's linearization gives a 1 kg box flat on the floor at
 * depth 10 um (k = 1e6 N/m, b = 2e4 N s/m per corner, dt 2 ms) rising at `rise` m/s: its K's
 * zz entry, into *k_zz (NaN if the scene fails). */
static void rising_box_vertical_stiffness(double rise, double* k_zz) {
    *k_zz = NAN;
    scene_params p = {TCH_CONTACT_POINT, TCH_POINT_LAW_INHERIT, 1e6, 2e4, 0.5, 0.002,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_model* m = box_on_floor(&p, 1e-5, tch_q_identity());
    tch_data* d = make_data(m);
    ENSURE(d != NULL);
    accelerate(m, d, 1, (tch_vec3){0, 0, rise}, tch_v3_zero());
    tch_forward(m, d, NULL);
    ENSURE(d->pair_result_count == 1 && d->pair_results[0].contact_count == 4);
    ENSURE(d->pair_results[0].f_W.z == 0); /* every damper clamps: k d + b d' < 0 */
    tch_pair_context context = {&d->pair_results[0], NULL, 0,
                                d->internal->model_scratch[TCH_CONTACT_POINT]};
    static tch_pair_linearization out;
    memset(&out, 0, sizeof out);
    tch_contact_model_ops(TCH_CONTACT_POINT)->linearize(m, d, &context, &out);
    *k_zz = -out.K[8][8];
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A penetrating point whose damper clamps its force keeps its spring and damper in the system
 * while it settles (separating at 1 mm/s, below 4 |g| h = 7.8 cm/s), and drops them when it
 * leaves (1 m/s). Left out while settling, a box wedged between two such points in the shared
 * pile_100 rocked between them every two steps forever (docs/contact-point.md, "A body at
 * rest"). */
static void test_point_clamped_by_its_damper_stays_in_the_system_while_it_settles(void) {
    double settling, leaving;
    rising_box_vertical_stiffness(1e-3, &settling);
    rising_box_vertical_stiffness(1.0, &leaving);
    ENSURE_REL(settling, 4e6, 1e-12);
    ENSURE(leaving == 0);
}

/* A box of 1 kg on k = 1e7 N/m at dt 10 ms (h sqrt(k/m) = 32): semi-implicit Euler, stable
 * only below h sqrt(k/m) = 2, blows the box off the floor; the implicit step settles it at the
 * depth m g / k^N where the distributed spring carries its weight (eq. 7 integrated). */
static void test_stiff_box_rests_at_closed_form_depth(void) {
    const double k = 1e7;
    scene_params p = {TCH_CONTACT_VOLUME, TCH_POINT_LAW_INHERIT, k, 10, 0.5, 0.01,
                      TCH_INTEGRATOR_SEMI_IMPLICIT_EULER};
    tch_model* explicit_model = box_on_floor(&p, 0.5 * g / k, tch_q_identity());
    tch_data* d = make_data(explicit_model);
    ENSURE(d != NULL);
    tch_status s = run(explicit_model, d, 1.0);
    ENSURE(s != TCH_OK || fabs(d->body_p_WCm[1].z - 1) > 0.01);
    tch_data_destroy(d);
    tch_model_destroy(explicit_model);

    p.integrator = TCH_INTEGRATOR_IMPLICIT;
    tch_model* m = box_on_floor(&p, 0.5 * g / k, tch_q_identity());
    d = make_data(m);
    ENSURE(d != NULL);
    ENSURE(run(m, d, 1.0) == TCH_OK);
    ENSURE(d->pair_result_count == 1);
    ENSURE_REL(d->contacts[d->pair_results[0].contact_start].depth, g / k, 1e-6);
    ENSURE_REL(d->pair_results[0].f_W.z, g, 1e-6);
    ENSURE_NEAR(d->body_p_WCm[1].z, 1 - g / k, 1e-9);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* Undamped, frictionless, a box bouncing on its contact without leaving it is a spring-mass
 * x'' = -w^2 x (w^2 = k^N/m, x the depth beyond m g/k^N). Implicit Euler turns (w x, v) by a
 * rotation and shrinks it by exactly (1 + h^2 w^2)^(-1/2) per step. */
static void test_spring_mass_amplitude_decays_as_implicit_euler(void) {
    const double k = 1e5, h = 0.002, w = sqrt(k);
    scene_params p = {TCH_CONTACT_VOLUME, TCH_POINT_LAW_INHERIT, k, 0, 0, h,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_model* m = box_on_floor(&p, 1.5 * g / k, tch_q_identity());
    tch_data* d = make_data(m);
    ENSURE(d != NULL);
    const double z_rest = 1 - g / k, decay = 1 / sqrt(1 + h * h * w * w);
    tch_forward(m, d, NULL);
    double amplitude = hypot(w * (d->body_p_WCm[1].z - z_rest), d->body_v_WCm[1].z);
    for (int i = 0; i < 10; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        double next = hypot(w * (d->body_p_WCm[1].z - z_rest), d->body_v_WCm[1].z);
        ENSURE_REL(next / amplitude, decay, 1e-6);
        amplitude = next;
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* Kinetic, gravitational and spring energy of the point model's linear springs. */
static double total_energy(const tch_model* m, const tch_data* d) {
    double e = tch_data_energy(m, d);
    for (int i = 0; i < d->contact_count; ++i) {
        double depth = fmax(d->contacts[i].depth, 0);
        e += 0.5 * m->contact_default.stiffness * depth * depth;
    }
    return e;
}

/* The energy of a box sliding and spinning on k = 1e6 N/m per corner at dt 5 ms (h sqrt(4k/m)
 * = 10, where semi-implicit Euler diverges), started 2 m g/k deep, with and without friction:
 * springs, dampers and friction (which sees the implicit step's predicted slip) are passive,
 * and no step adds energy beyond round-off. Returns the number of steps that added more than
 * 1e-12 of the initial energy, or -1 when a step failed. */
static int energy_rises(double mu) {
    const double k = 1e6;
    scene_params p = {TCH_CONTACT_POINT, TCH_POINT_LAW_LINEAR, k, 100, mu, 0.005,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_model* m = box_on_floor(&p, 2 * g / (4 * k), tch_q_identity());
    tch_data* d = make_data(m);
    int rises = d ? 0 : -1;
    if (d && tch_data_set_body_state(m, d, 1, &d->body_X_WB[1], (tch_vec3){0.5, 0.2, 0},
                                     (tch_vec3){0, 0, 2}, NULL) != TCH_OK) {
        rises = -1;
    }
    tch_forward(m, d, NULL);
    double energy = total_energy(m, d), first = energy;
    for (int i = 0; i < 400 && rises >= 0; ++i) {
        if (tch_step(m, d, NULL) != TCH_OK) {
            rises = -1;
            break;
        }
        tch_forward(m, d, NULL);
        double next = total_energy(m, d);
        rises += next > energy + 1e-12 * first;
        energy = next;
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
    return rises;
}

static void test_energy_never_grows_in_a_passive_stiff_scene(void) {
    ENSURE(energy_rises(0) == 0);
    ENSURE(energy_rises(0.3) == 0);
}

static int upright(const tch_data* d, int n, double top_z) {
    for (int b = 1; b <= n; ++b) {
        if (tch_q_rotate(d->body_X_WB[b].q, (tch_vec3){0, 0, 1}).z < cos(0.2)) {
            return 0;
        }
    }
    return d->body_p_WCm[n].z > 0.95 * top_z;
}

/* Thirteen 1 x 1 x 2 m blocks of 1 kg on k^N = 1e5 N/m (above the buckling stiffness
 * k^N L^2/12 > m g N^2) at dt 5 ms, the top pushed 1e-6 m: semi-implicit Euler is unstable
 * there (h sqrt(k/m) = 1.6 on 13 coupled springs), the implicit step holds the stack, and a
 * warmed-up step allocates nothing. */
static void test_volume_stack_stands_at_large_step(void) {
    const int n = 13;
    scene_params p = {TCH_CONTACT_VOLUME, TCH_POINT_LAW_INHERIT, 1e5, 10, 0.6, 0.005,
                      TCH_INTEGRATOR_SEMI_IMPLICIT_EULER};
    tch_model* explicit_model = stack(&p, n, 1e-6);
    tch_data* d = make_data(explicit_model);
    ENSURE(d != NULL);
    tch_forward(explicit_model, d, NULL);
    double top_z = d->body_p_WCm[n].z;
    tch_status s = run(explicit_model, d, 1.0);
    ENSURE(s != TCH_OK || !upright(d, n, top_z));
    tch_data_destroy(d);
    tch_model_destroy(explicit_model);

    p.integrator = TCH_INTEGRATOR_IMPLICIT;
    tch_model* m = stack(&p, n, 1e-6);
    d = make_data(m);
    ENSURE(d != NULL);
    tch_forward(m, d, NULL);
    tch_vec3 top = d->body_p_WCm[n];
    /* warm-up: the contact buffers last grow at 0.28 s, when a tilted block's overlap first
     * has more corners (the outlines are whole since the edge-contact fix, so they fill the
     * buffers sooner than the 0.25 s this test waited before) */
    ENSURE(run(m, d, 0.5) == TCH_OK);
    long allocations = d->heap_allocation_count;
    ENSURE(run(m, d, 1.5) == TCH_OK);
    ENSURE(upright(d, n, top.z));
    ENSURE(d->heap_allocation_count == allocations);
    tch_vec3 moved = tch_v3_sub(d->body_p_WCm[n], top);
    ENSURE(hypot(moved.x, moved.y) < 1e-5);
    ENSURE(fabs(moved.z) < 1e-6);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* The state of a box thrown and spun above the floor after `steps` steps of `integrator`. */
static void flight(tch_integrator integrator, int steps, double state[13]) {
    scene_params p = {TCH_CONTACT_POINT, TCH_POINT_LAW_LINEAR, 1e6, 10, 0.5, 0.005, integrator};
    tch_model* m = box_on_floor(&p, -5, tch_q_from_rotvec((tch_vec3){0.3, 0.2, 0.1}));
    tch_data* d = make_data(m);
    tch_data_set_body_state(m, d, 1, &d->body_X_WB[1], (tch_vec3){1, 0, 2}, (tch_vec3){3, -1, 5},
                            NULL);
    for (int i = 0; i < steps; ++i) {
        tch_step(m, d, NULL);
    }
    for (int i = 0; i < 7; ++i) {
        state[i] = d->qpos[i];
    }
    for (int i = 0; i < 6; ++i) {
        state[7 + i] = d->qvel[i];
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* Without contacts the correction is zero: the step is semi-implicit Euler's, bit for bit. */
static void test_without_contacts_the_step_is_semi_implicit_euler(void) {
    double euler[13], implicit[13];
    flight(TCH_INTEGRATOR_SEMI_IMPLICIT_EULER, 100, euler);
    flight(TCH_INTEGRATOR_IMPLICIT, 100, implicit);
    ENSURE(euler[2] > 1); /* still in the air */
    for (int i = 0; i < 13; ++i) {
        ENSURE(euler[i] == implicit[i]);
    }
}

/* A frictionless pyramid of unit cubes, 3 - 2 - 1, each touching its neighbours in its row
 * (1 mm overlap) and the two below: a contact graph with cycles. */
static tch_model* pyramid(tch_integrator integrator) {
    scene_params p = {TCH_CONTACT_VOLUME, TCH_POINT_LAW_INHERIT, 1e5, 50, 0, 0.005, integrator};
    tch_spec* spec = scene_spec(&p);
    static const double x[6] = {-0.999, 0, 0.999, -0.4995, 0.4995, 0};
    static const int row[6] = {0, 0, 0, 1, 1, 2};
    for (int i = 0; i < 6; ++i) {
        char name[16];
        snprintf(name, sizeof name, "cube%d", i + 1);
        test_add_body(spec, name, TCH_GEOM_BOX, (tch_vec3){0.5, 0.5, 0.5}, 1,
                      (tch_vec3){x[i], 0.01 * i, 0.5 + row[i] * 0.998 - 0.001}, tch_q_identity());
    }
    return test_compile(spec);
}

/* Both data at the same state: the pyramid's rest pose, with some velocities. */
static void shake(const tch_model* m, tch_data* d) {
    for (int b = 1; b <= 6; ++b) {
        tch_data_set_body_state(m, d, b, &d->body_X_WB[b],
                                (tch_vec3){0.01 * b, -0.02, 0.03 * (b % 3) - 0.02},
                                (tch_vec3){0.05, -0.01 * b, 0.02}, NULL);
    }
    tch_forward(m, d, NULL);
}

/* Body b's accelerations (centre of mass, world angular) from qacc, by the linear map of the
 * free-joint velocities. */
static void com_acceleration(const tch_model* m, const tch_data* d, int b, double a[6]) {
    tch_vec3 v, w;
    tch_free_body_com_velocity(m, d->qpos, d->qacc, b, &v, &w);
    for (int i = 0; i < 3; ++i) {
        a[i] = tch_v3_get(v, i);
        a[3 + i] = tch_v3_get(w, i);
    }
}

/* The implicit step on a contact graph with cycles (minimum-degree order, fill along the
 * elimination tree) against a dense check: with x = h (a_implicit - a_explicit) and v* = v + h
 * a_explicit, (M - h D - h^2 K) x = h^2 K v* + h D (v* - v), K and D symmetrized, to 1e-9. */
static void test_implicit_step_solves_its_system_on_a_pile(void) {
    const int n = 6;
    tch_model* mi = pyramid(TCH_INTEGRATOR_IMPLICIT);
    tch_model* me = pyramid(TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_data* di = make_data(mi);
    tch_data* de = make_data(me);
    ENSURE(di != NULL && de != NULL);
    shake(mi, di);
    shake(me, de);
    ENSURE(di->pair_result_count >= 9);
    static double K[DIM][DIM], D[DIM][DIM], A[DIM][DIM];
    linearized(mi, di, n, 0, K, D);
    double h = mi->timestep, x[DIM], v[DIM], v_star[DIM];
    for (int b = 1; b <= n; ++b) {
        double a_i[6], a_e[6];
        com_acceleration(mi, di, b, a_i);
        com_acceleration(me, de, b, a_e);
        for (int i = 0; i < 6; ++i) {
            int k = 6 * (b - 1) + i;
            v[k] = tch_v3_get(i < 3 ? di->body_v_WCm[b] : di->body_w_W[b], i % 3);
            x[k] = h * (a_i[i] - a_e[i]);
            v_star[k] = v[k] + h * a_e[i];
        }
    }
    for (int i = 0; i < 6 * n; ++i) {
        for (int j = 0; j < 6 * n; ++j) {
            A[i][j] = -h * 0.5 * (D[i][j] + D[j][i]) - h * h * 0.5 * (K[i][j] + K[j][i]);
        }
    }
    for (int b = 1; b <= n; ++b) {
        int o = 6 * (b - 1);
        tch_mat3 I_W = tch_m3_rotate_tensor(di->body_R_WB[b], mi->body_total_I_BCm[b]);
        for (int i = 0; i < 3; ++i) {
            A[o + i][o + i] += mi->body_total_mass[b];
            for (int j = 0; j < 3; ++j) {
                A[o + 3 + i][o + 3 + j] += I_W.m[i][j];
            }
        }
    }
    double residual = 0, norm = 0;
    for (int i = 0; i < 6 * n; ++i) {
        double lhs = 0, rhs = 0;
        for (int j = 0; j < 6 * n; ++j) {
            double k = 0.5 * (K[i][j] + K[j][i]), c = 0.5 * (D[i][j] + D[j][i]);
            lhs += A[i][j] * x[j];
            rhs += h * h * k * v_star[j] + h * c * (v_star[j] - v[j]);
        }
        residual += (lhs - rhs) * (lhs - rhs);
        norm += rhs * rhs;
    }
    ENSURE(norm > 0);
    ENSURE(sqrt(residual / norm) < 1e-9);
    tch_data_destroy(di);
    tch_data_destroy(de);
    tch_model_destroy(mi);
    tch_model_destroy(me);
}

/* MJCF names it "implicit" (MuJoCo's name), and the writer keeps it. */
static void test_mjcf_reads_and_writes_the_implicit_integrator(void) {
    tch_spec* spec = NULL;
    ENSURE(tch_mjcf_load_string("<mujoco><option integrator=\"implicit\"/></mujoco>", ".",
                                "implicit.xml", &spec, NULL) == TCH_OK);
    ENSURE(tch_spec_option(spec)->integrator == TCH_INTEGRATOR_IMPLICIT);
    const char* path = "test_implicit_saved.xml";
    ENSURE(tch_mjcf_save(spec, path, true, NULL) == TCH_OK);
    tch_spec_destroy(spec);
    spec = NULL;
    ENSURE(tch_mjcf_load(path, &spec, NULL) == TCH_OK);
    ENSURE(tch_spec_option(spec)->integrator == TCH_INTEGRATOR_IMPLICIT);
    tch_spec_destroy(spec);
    remove(path);
}

/* The lcp model's impulses live in semi-implicit Euler's velocity update: refused. */
static void test_lcp_model_refuses_the_implicit_integrator(void) {
    scene_params p = {TCH_CONTACT_LCP, TCH_POINT_LAW_INHERIT, 1e5, 10, 0.5, 0.005,
                      TCH_INTEGRATOR_IMPLICIT};
    tch_spec* spec = scene_spec(&p);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.5, 0.5, 1}, 1, (tch_vec3){0, 0, 1},
                  tch_q_identity());
    tch_model* m = NULL;
    tch_error err;
    ENSURE(tch_compile(spec, &m, &err) == TCH_ERR_UNSUPPORTED);
    ENSURE(strstr(err.message, "lcp") != NULL);
    tch_spec_destroy(spec);
}

/* Issue 12: the linearly implicit step and semi-implicit Euler are both first-order, so at small
 * steps they agree to O(h): halving the step halves their difference. A frictionless box on
 * the volume model (k^N = 1e4 N/m, b^N = 20) started 0.3 mm below its rest depth (0.98 mm) and
 * tilted 3e-4 rad stays in face contact (a smooth force) while it bounces and rocks for 0.2 s; the
 * difference of its centre-of-mass height and tilt rate between the integrators at h = 2e-4,
 * 1e-4 and 5e-5 s falls by a factor 2 per halving (1.6 to 2.4). */
static void test_implicit_and_explicit_agree_to_first_order(void) {
    const double k = 1e4, steps[3] = {2e-4, 1e-4, 5e-5}, duration = 0.2;
    double difference[3];
    for (int s = 0; s < 3; ++s) {
        double state[2][2];
        for (int i = 0; i < 2; ++i) {
            scene_params p = {TCH_CONTACT_VOLUME, TCH_POINT_LAW_INHERIT, k, 20, 0, steps[s],
                              i ? TCH_INTEGRATOR_IMPLICIT : TCH_INTEGRATOR_SEMI_IMPLICIT_EULER};
            tch_quat tilt = tch_q_axis_angle((tch_vec3){1, 0, 0}, 3e-4);
            tch_model* m = box_on_floor(&p, g / k + 3e-4, tilt);
            tch_data* d = make_data(m);
            ENSURE(d != NULL);
            for (long n = 0; n < lround(duration / steps[s]); ++n) {
                ENSURE(tch_step(m, d, NULL) == TCH_OK);
            }
            ENSURE(d->contact_count == 1);
            state[i][0] = d->body_p_WCm[1].z;
            state[i][1] = d->body_w_W[1].x;
            tch_data_destroy(d);
            tch_model_destroy(m);
        }
        difference[s] = hypot(state[1][0] - state[0][0], 0.1 * (state[1][1] - state[0][1]));
    }
    printf("     |implicit - explicit| at h, h/2, h/4: %.3e %.3e %.3e (ratios %.2f %.2f)\n",
           difference[0], difference[1], difference[2], difference[0] / difference[1],
           difference[1] / difference[2]);
    for (int s = 0; s < 2; ++s) {
        ENSURE(difference[s + 1] > 0);
        double ratio = difference[s] / difference[s + 1];
        ENSURE(ratio > 1.6 && ratio < 2.4);
    }
}

/* A 0.2 m, 1 kg box launched at 2 m/s along the floor (mu = 0.5, zero gap, the defaults, the
 * implicit integrator) stops after Coulomb's v^2 / (2 mu g) = 0.408 m within 5% at dt 1, 2 and
 * 5 ms with every force model, and rests without rocking. The pressure model's friction took
 * its load at the predicted pose and rocked the box on its edges at dt 2 ms (0.16 m). */
static void test_sliding_box_stops_at_the_coulomb_distance_at_any_step(void) {
    const char* models[] = {"point", "volume", "pressure"};
    const double steps[] = {1e-3, 2e-3, 5e-3}, coulomb = 4 / (2 * 0.5 * 9.81);
    for (int i = 0; i < 3; ++i) {
        for (int s = 0; s < 3; ++s) {
            char xml[640];
            snprintf(xml, sizeof xml,
                     "<mujoco xmlns:touche='urn:touche'><option timestep='%g' "
                     "integrator='implicit' touche:contact='%s'/><worldbody>"
                     "<geom type='plane' size='5 5 0.1' friction='0.5'/><body pos='0 0 0.1'>"
                     "<freejoint/><geom type='box' size='0.1 0.1 0.1' mass='1' friction='0.5'/>"
                     "</body></worldbody></mujoco>",
                     steps[s], models[i]);
            tch_error err;
            tch_model* m = test_compile_xml(xml, &err);
            ENSURE(m != NULL);
            tch_data* d = make_data(m);
            ENSURE(d != NULL);
            d->qvel[0] = 2;
            for (long n = 0; n < lround(1.5 / steps[s]); ++n) {
                ENSURE(tch_step(m, d, NULL) == TCH_OK);
            }
            printf("     %-8s dt %g: stopped after %.4f m (Coulomb %.4f)\n", models[i], steps[s],
                   d->body_p_WCm[1].x, coulomb);
            ENSURE(fabs(d->body_p_WCm[1].x - coulomb) < 0.05 * coulomb);
            ENSURE(tch_v3_norm(d->body_w_W[1]) < 1e-6 && tch_v3_norm(d->body_v_WCm[1]) < 1e-6);
            tch_data_destroy(d);
            tch_model_destroy(m);
        }
    }
}

int main(void) {
    RUN_TEST(test_point_linearization_matches_finite_differences);
    RUN_TEST(test_hunt_crossley_linearization_matches_finite_differences);
    RUN_TEST(test_volume_linearization_matches_finite_differences);
    RUN_TEST(test_volume_stack_linearization_matches_finite_differences);
    RUN_TEST(test_volume_block_carry_matches_the_general_one);
    RUN_TEST(test_point_rank_one_matches_the_general_carry);
    RUN_TEST(test_point_clamped_by_its_damper_stays_in_the_system_while_it_settles);
    RUN_TEST(test_pressure_linearization_matches_finite_differences);
    RUN_TEST(test_sliding_box_stops_at_the_coulomb_distance_at_any_step);
    RUN_TEST(test_without_contacts_the_step_is_semi_implicit_euler);
    RUN_TEST(test_stiff_box_rests_at_closed_form_depth);
    RUN_TEST(test_spring_mass_amplitude_decays_as_implicit_euler);
    RUN_TEST(test_energy_never_grows_in_a_passive_stiff_scene);
    RUN_TEST(test_volume_stack_stands_at_large_step);
    RUN_TEST(test_implicit_step_solves_its_system_on_a_pile);
    RUN_TEST(test_mjcf_reads_and_writes_the_implicit_integrator);
    RUN_TEST(test_lcp_model_refuses_the_implicit_integrator);
    RUN_TEST(test_implicit_and_explicit_agree_to_first_order);
    return TEST_RESULT();
}
