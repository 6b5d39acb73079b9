/* The semi-implicit friction of contact/friction.h on one point, against closed forms: with a
 * bound that holds, one sweep stops the predicted slip at the point exactly (the point's 2x2
 * tangential inverse mass, off-diagonal terms included: a point off the centre of mass under a
 * tilted normal couples the two tangents) and moves the two bodies' predicted momenta by equal
 * and opposite amounts; with a small bound the force sits on the Coulomb circle against the
 * predicted slip; applying it adds f and r x f to b's loads, their opposites to a's, and f to
 * the pair's total. A box against a static plane (side a without a body) and a box against a
 * box. */
#include <stdlib.h>

#include "contact/contact.h"
#include "contact/friction.h"
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

static const double step = 2e-3;

typedef struct scene {
    tch_model* model;
    tch_data* data;
    tch_velocity_prediction pred;
    tch_pair_result pair;
} scene;

/* A 1 kg box (root 1) turned about a skew axis, above a plane (with_plane) or above a second,
 * flat, 3 kg box (root 2, geom a); the pair is (plane or lower box, turned box). */
static void make_scene(scene* out, int with_plane) {
    tch_spec* spec = test_spec(9.81, step, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    if (with_plane) {
        test_add_plane(spec, tch_q_identity(), 0.5);
    }
    test_add_body(spec, "upper", TCH_GEOM_BOX, (tch_vec3){0.1, 0.15, 0.05}, 1,
                  (tch_vec3){0.02, -0.01, 0.3},
                  tch_q_axis_angle(tch_v3_normalize((tch_vec3){1, 2, 3}), 0.4));
    if (!with_plane) {
        test_add_body(spec, "lower", TCH_GEOM_BOX, (tch_vec3){0.3, 0.2, 0.1}, 3,
                      (tch_vec3){-0.05, 0.03, 0.1}, tch_q_identity());
    }
    *out = (scene){.model = test_compile(spec)};
    scene* s = out;
    ENSURE(s->model != NULL);
    ENSURE(tch_data_create(s->model, &s->data, NULL) == TCH_OK);
    ENSURE(tch_forward(s->model, s->data, NULL) == TCH_OK);
    int bodies = s->model->body_count;
    s->pred.v_WCm = calloc((size_t)bodies, sizeof *s->pred.v_WCm);
    s->pred.w_W = calloc((size_t)bodies, sizeof *s->pred.w_W);
    ENSURE(s->pred.v_WCm && s->pred.w_W);
    for (int b = 0; b < bodies; ++b) {
        s->data->body_force_W[b] = s->data->body_torque_W[b] = tch_v3_zero();
    }
    tch_contact_predict_velocities(s->model, s->data, step, &s->pred);
    /* predicted motions that slip at the point */
    s->pred.v_WCm[1] = (tch_vec3){0.3, -0.2, 0.05};
    s->pred.w_W[1] = (tch_vec3){0.5, 1.5, -2};
    if (!with_plane) {
        s->pred.v_WCm[2] = (tch_vec3){-0.1, 0.25, 0};
        s->pred.w_W[2] = (tch_vec3){-0.3, 0.2, 0.7};
    }
    s->pair.geom_a = with_plane ? 0 : 1;
    s->pair.geom_b = with_plane ? 1 : 0;
}

static void destroy_scene(scene* s) {
    free(s->pred.v_WCm);
    free(s->pred.w_W);
    tch_data_destroy(s->data);
    tch_model_destroy(s->model);
}

static int root_of(const scene* s, int geom) {
    return s->model->body_root[s->model->geom_body[geom]];
}

/* Predicted velocity of geom's body at p, straight from the prediction: v + w x r. */
static tch_vec3 predicted_at(const scene* s, int geom, tch_vec3 p_W) {
    int root = root_of(s, geom);
    if (root == 0) {
        return tch_v3_zero();
    }
    tch_vec3 r = tch_v3_sub(p_W, s->data->body_p_WCm[root]);
    return tch_v3_add(s->pred.v_WCm[root], tch_v3_cross(s->pred.w_W[root], r));
}

static tch_vec3 predicted_slip(const scene* s, tch_vec3 p_W, tch_vec3 n_W) {
    tch_vec3 v =
        tch_v3_sub(predicted_at(s, s->pair.geom_b, p_W), predicted_at(s, s->pair.geom_a, p_W));
    return tch_v3_madd(v, -tch_v3_dot(v, n_W), n_W);
}

/* The momentum of the free bodies in the prediction, sum m v. */
static tch_vec3 predicted_momentum(const scene* s) {
    tch_vec3 total = tch_v3_zero();
    for (int b = 1; b < s->model->body_count; ++b) {
        total = tch_v3_madd(total, s->model->body_total_mass[b], s->pred.v_WCm[b]);
    }
    return total;
}

/* An off-centre point under a tilted normal. */
static const tch_vec3 point_W = {0.07, -0.04, 0.21};

static tch_vec3 tilted_normal(void) {
    return tch_v3_normalize((tch_vec3){0.2, -0.3, 1});
}

static void check_held_point_stops(int with_plane) {
    scene s;
    make_scene(&s, with_plane);
    tch_vec3 n = tilted_normal();
    tch_vec3 slip_before = predicted_slip(&s, point_W, n);
    tch_vec3 momentum_before = predicted_momentum(&s);
    ENSURE(tch_v3_norm(slip_before) > 0.1);
    tch_friction_point fp;
    tch_friction_point_init(s.model, s.data, &s.pred, &s.pair, point_W, n, 1e9, &fp);
    tch_friction_relax(&s.pred, &fp, 1);
    tch_vec3 f = tch_friction_point_force(&fp);
    ENSURE(tch_v3_norm(predicted_slip(&s, point_W, n)) < 1e-12 * tch_v3_norm(slip_before));
    ENSURE_NEAR(tch_v3_dot(f, n), 0, 1e-12 * tch_v3_norm(f));
    /* b gains h f of momentum; with two bodies a loses it */
    tch_vec3 gained = tch_v3_sub(predicted_momentum(&s), momentum_before);
    tch_vec3 expected = with_plane ? tch_v3_scale(f, step) : tch_v3_zero();
    ENSURE(tch_v3_norm(tch_v3_sub(gained, expected)) < 1e-12 * (1 + step * tch_v3_norm(f)));
    destroy_scene(&s);
}

static void test_held_point_stops_the_predicted_slip(void) {
    check_held_point_stops(1);
    check_held_point_stops(0);
}

static void check_sliding_point_opposes_slip(int with_plane) {
    scene s;
    make_scene(&s, with_plane);
    tch_vec3 n = tilted_normal();
    tch_vec3 slip = predicted_slip(&s, point_W, n);
    const double limit = 0.05;
    tch_friction_point fp;
    tch_friction_point_init(s.model, s.data, &s.pred, &s.pair, point_W, n, limit, &fp);
    tch_friction_relax(&s.pred, &fp, 1);
    tch_vec3 f = tch_friction_point_force(&fp);
    ENSURE_REL(tch_v3_norm(f), limit, 1e-12);
    /* antiparallel to the slip it met (one point: the slip before the force) */
    tch_vec3 expected = tch_v3_scale(slip, -limit / tch_v3_norm(slip));
    ENSURE(tch_v3_norm(tch_v3_sub(f, expected)) < 1e-12 * limit);
    destroy_scene(&s);
}

static void test_sliding_point_pushes_against_the_slip_at_the_bound(void) {
    check_sliding_point_opposes_slip(1);
    check_sliding_point_opposes_slip(0);
}

static void test_apply_loads_both_bodies_and_the_pair(void) {
    scene s;
    make_scene(&s, 0);
    tch_friction_point fp;
    tch_friction_point_init(s.model, s.data, &s.pred, &s.pair, point_W, tilted_normal(), 1e9, &fp);
    tch_friction_relax(&s.pred, &fp, 1);
    tch_friction_apply(s.model, s.data, &s.pair, &fp, 1);
    tch_vec3 f = tch_friction_point_force(&fp);
    int a = root_of(&s, s.pair.geom_a), b = root_of(&s, s.pair.geom_b);
    const tch_vec3* p_WCm = s.data->body_p_WCm;
    tch_vec3 torque_b = tch_v3_cross(tch_v3_sub(point_W, p_WCm[b]), f);
    tch_vec3 torque_a = tch_v3_neg(tch_v3_cross(tch_v3_sub(point_W, p_WCm[a]), f));
    double tol = 1e-12 * tch_v3_norm(f);
    ENSURE(tch_v3_norm(tch_v3_sub(s.data->body_force_W[b], f)) < tol);
    ENSURE(tch_v3_norm(tch_v3_add(s.data->body_force_W[a], f)) < tol);
    ENSURE(tch_v3_norm(tch_v3_sub(s.data->body_torque_W[b], torque_b)) < tol);
    ENSURE(tch_v3_norm(tch_v3_sub(s.data->body_torque_W[a], torque_a)) < tol);
    ENSURE(tch_v3_norm(tch_v3_sub(s.pair.f_W, f)) < tol);
    destroy_scene(&s);
}

int main(void) {
    RUN_TEST(test_held_point_stops_the_predicted_slip);
    RUN_TEST(test_sliding_point_pushes_against_the_slip_at_the_bound);
    RUN_TEST(test_apply_loads_both_bodies_and_the_pair);
    return TEST_RESULT();
}
