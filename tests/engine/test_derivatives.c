/* Transition derivatives by finite differences (touche/derivatives.h): A and B against the
 * closed forms of a free fall and a damped, driven slide joint (semi-implicit Euler and the
 * linearly implicit step), against the step itself on a sliding contact, the data left as it
 * was (the next step the same bits), and the tangent-space maps each other's inverse. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "touche/touche.h"

static tch_model* compile_xml(const char* xml) {
    tch_spec* spec = NULL;
    tch_model* m = NULL;
    tch_error err;
    if (tch_mjcf_load_string(xml, NULL, "derivatives_scene", &spec, &err) != TCH_OK) {
        fprintf(stderr, "%s\n", err.message);
        return NULL;
    }
    if (tch_compile(spec, &m, &err) != TCH_OK) fprintf(stderr, "%s\n", err.message);
    tch_spec_destroy(spec);
    return m;
}

/* A sphere in free fall (isotropic, so no gyroscopic term), turned and moving, not spinning. */
static const char* const FALL =
    "<mujoco><option timestep='0.01' integrator='%s'/><worldbody>"
    "<body name='ball' pos='0.1 0.2 3' quat='0.9 0.1 0.3 0.2'><freejoint/>"
    "<geom type='sphere' size='0.1' mass='2'/></body></worldbody>"
    "<keyframe><key name='k' qpos='0.1 0.2 3 0.9 0.1 0.3 0.2' qvel='1 -2 0.5 0 0 0'/></keyframe>"
    "</mujoco>";

/* A 2 kg slider on a slide joint with damping 30 N s/m, driven by a motor of gear 1.5, no
 * gravity. */
static const char* const SLIDE =
    "<mujoco><option timestep='0.01' integrator='%s' gravity='0 0 0'/><worldbody>"
    "<body name='slider'><joint name='s' type='slide' axis='1 0 0' damping='30'/>"
    "<geom type='sphere' size='0.1' mass='2' contype='0' conaffinity='0'/></body></worldbody>"
    "<actuator><motor joint='s' gear='1.5'/></actuator></mujoco>";

static tch_model* scene(const char* format, const char* integrator) {
    char xml[2048];
    snprintf(xml, sizeof xml, format, integrator);
    return compile_xml(xml);
}

/* max |A - expected| over n entries */
static double max_difference(const double* a, const double* b, int n) {
    double worst = 0;
    for (int i = 0; i < n; ++i) worst = fmax(worst, fabs(a[i] - b[i]));
    return worst;
}

/* A of the free fall is [[I, hI], [0, I]] in the tangent space (dp, dtheta, v, w): the
 * position moves by h times the new velocity, gravity does not depend on the state. */
static void free_fall_is(const char* integrator, tch_fd_scheme scheme) {
    tch_model* m = scene(FALL, integrator);
    ENSURE(m);
    tch_data* d = NULL;
    tch_error err;
    ENSURE(tch_data_create(m, &d, &err) == TCH_OK);
    ENSURE(tch_data_reset_key(m, d, 0, &err) == TCH_OK);
    double A[144], expected[144] = {0};
    double h = m->timestep;
    for (int i = 0; i < 12; ++i) expected[i * 12 + i] = 1;
    for (int i = 0; i < 6; ++i) expected[i * 12 + 6 + i] = h;
    ENSURE(tch_transition_fd(m, d, TCH_FD_DEFAULT_EPS, scheme, A, NULL, &err) == TCH_OK);
    double worst = max_difference(A, expected, 144);
    tch_data_destroy(d);
    tch_model_destroy(m);
    ENSURE(worst < 1e-7);
}

static void test_free_fall_euler_centered(void) {
    free_fall_is("Euler", TCH_FD_CENTERED);
}

static void test_free_fall_euler_forward(void) {
    free_fall_is("Euler", TCH_FD_FORWARD);
}

static void test_free_fall_implicit(void) {
    free_fall_is("implicit", TCH_FD_CENTERED);
}

/* The slide: semi-implicit Euler takes the damper explicitly, v' = v + h (g u - c v) / m,
 * x' = x + h v'; the linearly implicit step solves (m + h c) v' = m v + h g u. Both are
 * linear, so the differences are exact to round-off. */
static void damped_slide_is(const char* integrator, int implicit) {
    tch_model* m = scene(SLIDE, integrator);
    ENSURE(m);
    ENSURE(m->nv == 1 && m->actuator_count == 1);
    tch_data* d = NULL;
    tch_error err;
    ENSURE(tch_data_create(m, &d, &err) == TCH_OK);
    d->qpos[0] = 0.3, d->qvel[0] = -0.7, d->ctrl[0] = 0.4;
    double h = m->timestep, mass = 2, c = 30, gear = 1.5;
    double dv_dv = implicit ? mass / (mass + h * c) : 1 - h * c / mass;
    double dv_du = implicit ? h * gear / (mass + h * c) : h * gear / mass;
    double A_expected[4] = {1, h * dv_dv, 0, dv_dv}, B_expected[2] = {h * dv_du, dv_du};
    double A[4], B[2];
    ENSURE(tch_transition_fd(m, d, TCH_FD_DEFAULT_EPS, TCH_FD_CENTERED, A, B, &err) == TCH_OK);
    double worst = fmax(max_difference(A, A_expected, 4), max_difference(B, B_expected, 2));
    tch_data_destroy(d);
    tch_model_destroy(m);
    ENSURE(worst < 1e-8);
}

static void test_damped_slide_euler(void) {
    damped_slide_is("Euler", 0);
}

static void test_damped_slide_implicit(void) {
    damped_slide_is("implicit", 1);
}

/* A box sliding on the floor with the point model: the linearization predicts a perturbed
 * step, f(x + dx) - f(x) = A dx + O(|dx|^2), and the data is left as it was. */
static const char* const SLIDING_BOX =
    "<mujoco xmlns:touche='urn:touche'><option timestep='0.002' touche:contact='point'/>"
    "<worldbody><geom name='floor' type='plane' size='0 0 1'/>"
    "<body name='box' pos='0 0 0.0995' euler='0.01 0.02 0.3'><freejoint/>"
    "<geom type='box' size='0.1 0.1 0.1' mass='1'/></body></worldbody>"
    "<keyframe><key name='k' qpos='0 0 0.0995 1 0 0 0' qvel='0.5 0.2 0 0 0 1'/></keyframe>"
    "</mujoco>";

/* x' of one step from a fresh data at `start`'s state moved by dx (tangent), as a tangent
 * offset from (base_qpos, base_qvel). */
static void step_from(const tch_model* m, const tch_data* start, const double* dx,
                      const double* base_qpos, const double* base_qvel, double* out) {
    tch_data* d = NULL;
    tch_data_create(m, &d, NULL);
    memcpy(d->qpos, start->qpos, (size_t)m->nq * sizeof *d->qpos);
    memcpy(d->qvel, start->qvel, (size_t)m->nv * sizeof *d->qvel);
    tch_state_integrate(m, d->qpos, dx, 1);
    for (int i = 0; i < m->nv; ++i) d->qvel[i] += dx[m->nv + i];
    tch_step(m, d, NULL);
    tch_state_difference(m, base_qpos, d->qpos, out);
    for (int i = 0; i < m->nv; ++i) out[m->nv + i] = d->qvel[i] - base_qvel[i];
    tch_data_destroy(d);
}

static void test_linearization_predicts_the_step(void) {
    tch_model* m = compile_xml(SLIDING_BOX);
    ENSURE(m);
    tch_data *d = NULL, *base = NULL;
    tch_error err;
    ENSURE(tch_data_create(m, &d, &err) == TCH_OK && tch_data_create(m, &base, &err) == TCH_OK);
    ENSURE(tch_data_reset_key(m, d, 0, &err) == TCH_OK);
    ENSURE(tch_data_reset_key(m, base, 0, &err) == TCH_OK);
    double A[144], dx[12], zero[12] = {0}, offset[12], actual[12];
    ENSURE(tch_transition_fd(m, d, TCH_FD_DEFAULT_EPS, TCH_FD_CENTERED, A, NULL, &err) == TCH_OK);
    /* the unperturbed step, from a fresh data at the same state */
    double base_qpos[7], base_qvel[6];
    ENSURE(tch_step(m, base, &err) == TCH_OK);
    memcpy(base_qpos, base->qpos, sizeof base_qpos);
    memcpy(base_qvel, base->qvel, sizeof base_qvel);
    step_from(m, d, zero, base_qpos, base_qvel, offset);
    for (int i = 0; i < 12; ++i) dx[i] = 1e-6 * ((i * 7) % 5 - 2); /* a small mixed step */
    step_from(m, d, dx, base_qpos, base_qvel, actual);
    double error = 0, size = 0;
    for (int i = 0; i < 12; ++i) {
        double predicted = 0;
        for (int j = 0; j < 12; ++j) predicted += A[i * 12 + j] * dx[j];
        error = fmax(error, fabs(actual[i] - offset[i] - predicted));
        size = fmax(size, fabs(predicted));
    }
    /* the data is as it was: its next step is the same bits as an untouched one's */
    ENSURE(tch_step(m, d, &err) == TCH_OK);
    int same = memcmp(d->qpos, base->qpos, (size_t)m->nq * sizeof *d->qpos) == 0 &&
               memcmp(d->qvel, base->qvel, (size_t)m->nv * sizeof *d->qvel) == 0;
    tch_data_destroy(base);
    tch_data_destroy(d);
    tch_model_destroy(m);
    ENSURE(same);
    ENSURE(max_difference(offset, zero, 12) < 1e-15); /* a fresh data steps the same */
    ENSURE(size > 1e-7);
    ENSURE(error < 1e-3 * size);
}

/* Forward and centred differences agree to O(eps) on a smooth step. */
static void test_forward_and_centered_agree(void) {
    tch_model* m = scene(FALL, "RK4");
    ENSURE(m);
    tch_data* d = NULL;
    tch_error err;
    ENSURE(tch_data_create(m, &d, &err) == TCH_OK);
    d->qvel[3] = 2, d->qvel[4] = -1; /* spinning: A's rotation block is not the identity */
    double forward[144], centered[144];
    ENSURE(tch_transition_fd(m, d, 1e-6, TCH_FD_FORWARD, forward, NULL, &err) == TCH_OK);
    ENSURE(tch_transition_fd(m, d, 1e-6, TCH_FD_CENTERED, centered, NULL, &err) == TCH_OK);
    double worst = max_difference(forward, centered, 144);
    tch_data_destroy(d);
    tch_model_destroy(m);
    ENSURE(worst < 1e-5);
}

/* tch_state_difference undoes tch_state_integrate, quaternions included. */
static void test_integrate_and_difference_are_inverse(void) {
    tch_model* m = scene(FALL, "Euler");
    ENSURE(m);
    double qpos[7], dq[6] = {0.1, -0.2, 0.3, 0.5, -1.2, 2.0}, back[6];
    memcpy(qpos, m->qpos0, sizeof qpos);
    tch_state_integrate(m, qpos, dq, 1);
    tch_state_difference(m, m->qpos0, qpos, back);
    tch_model_destroy(m);
    ENSURE(max_difference(dq, back, 6) < 1e-12);
}

static void test_bad_eps_is_refused(void) {
    tch_model* m = scene(FALL, "Euler");
    ENSURE(m);
    tch_data* d = NULL;
    tch_error err;
    ENSURE(tch_data_create(m, &d, &err) == TCH_OK);
    double A[144];
    tch_status status = tch_transition_fd(m, d, 0, TCH_FD_CENTERED, A, NULL, &err);
    tch_data_destroy(d);
    tch_model_destroy(m);
    ENSURE(status == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "eps") != NULL);
}

int main(void) {
    RUN_TEST(test_free_fall_euler_centered);
    RUN_TEST(test_free_fall_euler_forward);
    RUN_TEST(test_free_fall_implicit);
    RUN_TEST(test_damped_slide_euler);
    RUN_TEST(test_damped_slide_implicit);
    RUN_TEST(test_linearization_predicts_the_step);
    RUN_TEST(test_forward_and_centered_agree);
    RUN_TEST(test_integrate_and_difference_are_inverse);
    RUN_TEST(test_bad_eps_is_refused);
    return TEST_RESULT();
}
