/* The linearly implicit step in the joints' own forces (docs/articulated.md, "Implicit joint
 * forces"): springs, limits (hinge, slide, ball cone), regularized friction and equality
 * springs are stable at any step under the implicit integrator, agree with the explicit step
 * to first order at small steps, and a linear joint spring is backward Euler exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/articulation.h"
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"
#include "touche/touche.h"

#define ENSURE_MSG(cond, message)                                                      \
    do {                                                                               \
        bool ensure_ok_ = (cond);                                                      \
        if (!ensure_ok_) {                                                             \
            fprintf(stderr, "  (%s)\n", (message));                                   \
        }                                                                              \
        ENSURE(ensure_ok_ && #cond);                                                   \
    } while (0)

/* The scene xml compiled with its option element's time step and integrator replaced. */
static tch_model* compile_at(const char* xml, double dt, tch_integrator integrator) {
    tch_error err;
    tch_spec* spec = NULL;
    tch_model* m = NULL;
    if (tch_mjcf_load_string(xml, ".", "scene.xml", &spec, &err) != TCH_OK) {
        fprintf(stderr, "%s\n", err.message);
        return NULL;
    }
    tch_option_def option = *tch_spec_option(spec);
    option.timestep = dt;
    option.integrator = integrator;
    if (tch_spec_set_option(spec, &option, &err) != TCH_OK ||
        tch_compile(spec, &m, &err) != TCH_OK) {
        fprintf(stderr, "%s\n", err.message);
    }
    tch_spec_destroy(spec);
    return m;
}

/* Joint j's limit made critically damped with time constant tc on inertia I (MuJoCo's solref
 * (tc, 1)): k = I / tc^2, b = 2 I / tc. */
static void set_limit(tch_model* m, int j, double inertia, double tc) {
    m->articulation->joint_limit_stiffness[j] = inertia / (tc * tc);
    m->articulation->joint_limit_damping[j] = 2 * inertia / tc;
}

/* A 1 kg link on a hinge, its centre of mass 0.5 m out (0.27 kg m^2 about the hinge),
 * released 30 degrees above the horizontal, swings down at 7 rad/s into its upper limit 60
 * degrees below. */
static const char* swinging_link =
    "<mujoco><option/><worldbody><body name='arm'>"
    "<joint name='elbow' axis='0 1 0' range='-30 60'/>"
    "<inertial pos='0.5 0 0' mass='1' diaginertia='0.02 0.02 0.001'/>"
    "</body></worldbody></mujoco>";

/* A stiff limit (time constant 2 ms: h / tc = 5 at 10 ms, where the explicit spring
 * diverges) stops the link at 1, 5 and 10 ms: the energy (kinetic, gravity and the limit
 * spring's) never rises above the start's, the link passes the limit by less than 0.01 rad
 * (a step that would cross it closes the gap instead) and comes to rest on it, sagging by its
 * weight's torque over the stiffness. */
static void test_stiff_limit_stops_a_link_at_any_step(void) {
    const double steps[] = {1e-3, 5e-3, 1e-2};
    double upper = 60 * TCH_PI / 180;
    for (int s = 0; s < 3; ++s) {
        tch_model* m = compile_at(swinging_link, steps[s], TCH_INTEGRATOR_IMPLICIT);
        ENSURE(m != NULL);
        set_limit(m, 0, 0.27, 2e-3);
        tch_data* d = NULL;
        ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
        d->qpos[0] = -30 * TCH_PI / 180;
        ENSURE(tch_forward(m, d, NULL) == TCH_OK);
        double e0 = tch_data_energy(m, d), highest = d->qpos[0], most = e0;
        tch_error err;
        for (int i = 0; i < (int)lround(3 / steps[s]); ++i) {
            ENSURE_MSG(tch_step(m, d, &err) == TCH_OK, err.message);
            highest = fmax(highest, d->qpos[0]);
            most = fmax(most, tch_data_energy(m, d));
        }
        double sag = 9.81 * 0.5 * cos(upper) / m->articulation->joint_limit_stiffness[0];
        ENSURE(highest > upper - 1e-9 && highest < upper + 0.01);
        ENSURE(most <= e0 + 1e-12 * fabs(e0));
        ENSURE_NEAR(d->qpos[0], upper + sag, 1e-6);
        ENSURE(fabs(d->qvel[0]) < 1e-6);
        tch_data_destroy(d);
        tch_model_destroy(m);
    }
}

/* A body on a ball joint (cone 30 degrees, 0.26 kg m^2 about the socket's x axis) spun at 4
 * rad/s about x without gravity into a stiff cone (2 ms) at 10 ms: it stops on the cone,
 * passing it by less than 0.01 rad, never gains energy (without the cone the spin about a
 * principal axis keeps it exactly) and stays near the cone. */
static void test_stiff_ball_cone_holds_at_a_large_step(void) {
    const char* xml = "<mujoco><option gravity='0 0 0'/><worldbody><body name='bob'>"
                      "<joint name='socket' type='ball' range='0 30'/>"
                      "<inertial pos='0 0 -0.5' mass='1' diaginertia='0.01 0.01 0.01'/>"
                      "</body></worldbody></mujoco>";
    tch_model* m = compile_at(xml, 1e-2, TCH_INTEGRATOR_IMPLICIT);
    ENSURE(m != NULL);
    set_limit(m, 0, 0.26, 2e-3);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    d->qvel[0] = 4;
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    double e0 = tch_data_energy(m, d), most = e0, widest = 0;
    for (int i = 0; i < 100; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        most = fmax(most, tch_data_energy(m, d));
        widest = fmax(widest, 2 * acos(fmin(1, fabs(d->qpos[0]))));
    }
    ENSURE(widest > TCH_PI / 6 - 1e-3 && widest < TCH_PI / 6 + 0.01);
    ENSURE(most <= e0 + 1e-12 * fabs(e0));
    /* it leaves the cone as a one-sided spring-damper lets go: at a small fraction of the
     * speed it came with (the damper's pull is clamped away on the way out) */
    ENSURE(fabs(d->qvel[0]) < 0.01 * 4);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A body on a hinge through its centre of mass (A = I + armature = 1.05 constant, no bias
 * force), its spring k = 1.05 w^2, released at x0: the linearly implicit step of a linear
 * spring is backward Euler exactly, (w x, v) turned by atan(h w) and shrunk by
 * (1 + h^2 w^2)^-1/2 per step. Checked at h w = 0.01 and at h w = 10, where the explicit
 * spring diverges; at the small step the period is the closed form's 2 pi / w to 4e-5. */
static void check_spring_is_backward_euler(double dt, double w) {
    char xml[512];
    snprintf(xml, sizeof xml,
             "<mujoco><compiler angle='radian'/><option gravity='0 0 0'/><worldbody>"
             "<body name='wheel'><joint name='axle' axis='0 0 1' armature='0.05' "
             "stiffness='%.17g'/><inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>"
             "</body></worldbody></mujoco>",
             1.05 * w * w);
    tch_model* m = compile_at(xml, dt, TCH_INTEGRATOR_IMPLICIT);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    const double x0 = 0.3, theta = atan(dt * w), shrink = 1 / sqrt(1 + dt * w * dt * w);
    d->qpos[0] = x0;
    int n = (int)lround(2 * TCH_PI / w / dt); /* about one period */
    for (int i = 1; i <= n; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        double amplitude = x0 * pow(shrink, i);
        ENSURE_NEAR(d->qpos[0], amplitude * cos(i * theta), 1e-12 * x0);
        ENSURE_NEAR(d->qvel[0], -w * amplitude * sin(i * theta), 1e-12 * w * x0);
    }
    ENSURE_REL(2 * TCH_PI / (theta / dt), 2 * TCH_PI / w, 4e-5 + dt * w * dt * w);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_joint_spring_is_backward_euler_at_any_step(void) {
    check_spring_is_backward_euler(1e-3, 10);  /* h w = 0.01: the period to 4e-5 */
    check_spring_is_backward_euler(1e-2, 1e3); /* h w = 10 */
}

/* A chain of a hinge and a ball with springs, dampers, regularized friction and gravity,
 * moving: the implicit step and semi-implicit Euler, both first order, differ by O(h): the
 * difference halves with the step (ratio 2 within 0.3), and is small. */
static void test_implicit_joint_forces_agree_with_euler_to_first_order(void) {
    const char* xml =
        "<mujoco><compiler angle='radian'/><option/><worldbody>"
        "<body name='upper' pos='0 0 1'>"
        "<joint name='shoulder' axis='0 1 0' stiffness='20' damping='0.3' frictionloss='0.2'/>"
        "<inertial pos='0.3 0 0' mass='1' diaginertia='0.01 0.01 0.01'/>"
        "<body name='lower' pos='0.6 0 0'>"
        "<joint name='wrist' type='ball' stiffness='5' damping='0.1' frictionloss='0.05'/>"
        "<inertial pos='0.2 0.05 0' mass='0.5' diaginertia='0.004 0.003 0.002'/>"
        "</body></body></worldbody></mujoco>";
    double difference[2];
    for (int r = 0; r < 2; ++r) {
        double dt = r == 0 ? 1e-3 : 5e-4;
        tch_model* implicit = compile_at(xml, dt, TCH_INTEGRATOR_IMPLICIT);
        tch_model* euler = compile_at(xml, dt, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
        ENSURE(implicit && euler);
        tch_data *di = NULL, *de = NULL;
        ENSURE(tch_data_create(implicit, &di, NULL) == TCH_OK &&
               tch_data_create(euler, &de, NULL) == TCH_OK);
        const double qvel[4] = {2, 1, -3, 0.5};
        memcpy(di->qvel, qvel, sizeof qvel);
        memcpy(de->qvel, qvel, sizeof qvel);
        for (int i = 0; i < (int)lround(0.5 / dt); ++i) {
            ENSURE(tch_step(implicit, di, NULL) == TCH_OK && tch_step(euler, de, NULL) == TCH_OK);
        }
        difference[r] = 0;
        for (int k = 0; k < implicit->nv; ++k) {
            difference[r] = fmax(difference[r], fabs(di->qvel[k] - de->qvel[k]));
        }
        tch_data_destroy(di);
        tch_data_destroy(de);
        tch_model_destroy(implicit);
        tch_model_destroy(euler);
    }
    ENSURE(difference[0] < 0.05);
    ENSURE(fabs(difference[0] / difference[1] - 2) < 0.3);
}

/* A link spun at 3 rad/s about a vertical hinge with Coulomb friction f = 0.2 N m (the
 * regularized force, v_s = 0.01 rad/s whatever the step) at 10 ms, where h f / I is 20 times
 * v_s: it decelerates at f / I (the step takes the law's tangent slope, about 0 while it
 * slides), stops in the step where it reaches zero without turning back (there the step takes
 * the secant slope) and stays stopped. */
static void test_joint_friction_stops_a_link_without_turning_it_back(void) {
    const char* xml = "<mujoco><option gravity='0 0 -9.81'/><worldbody><body name='arm'>"
                      "<joint name='spin' axis='0 0 1' frictionloss='0.2'/>"
                      "<inertial pos='0.5 0 0' mass='0.04' diaginertia='1e-9 1e-9 1e-9'/>"
                      "</body></worldbody></mujoco>";
    const double h = 1e-2, inertia = 0.01 + 1e-9, f = 0.2, v0 = 3; /* stops at 0.15 s */
    tch_model* m = compile_at(xml, h, TCH_INTEGRATOR_IMPLICIT);
    ENSURE(m != NULL);
    ENSURE_NEAR(m->articulation->dof_friction_speed[0], 0.01, 1e-15);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    d->qvel[0] = v0;
    for (int i = 1; i <= 100; ++i) {
        double before = d->qvel[0];
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        ENSURE(d->qvel[0] >= 0 && d->qvel[0] <= before);
        if (i < 15) {
            ENSURE_NEAR(d->qvel[0], v0 - i * h * f / inertia, 1e-9);
        }
    }
    ENSURE(d->qvel[0] < 1e-12);
    ENSURE_NEAR(d->qpos[0], v0 * v0 * inertia / (2 * f), v0 * h);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A stiff connect (time constant 1 ms: h / tc = 10 at 10 ms) holds a free ball at its centre,
 * thrown sideways and spinning: the equality's spring-damper is in the implicit system
 * (K = -k G^T G on the ball's twist), so the step is stable, the energy never grows, and the
 * ball comes to hang at the static sag g tc^2, still spinning. */
static void test_stiff_connect_holds_a_ball_at_a_large_step(void) {
    const char* xml = "<mujoco><option/><worldbody>"
                      "<body name='ball' pos='0 0 1'><freejoint/>"
                      "<geom type='sphere' size='0.1' mass='2' contype='0' conaffinity='0'/>"
                      "</body></worldbody>"
                      "<equality><connect name='pin' body1='ball' anchor='0 0 0' "
                      "solref='0.001 1'/></equality></mujoco>";
    tch_model* m = compile_at(xml, 1e-2, TCH_INTEGRATOR_IMPLICIT);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    d->qvel[1] = 1;
    d->qvel[3] = 2;
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    double e0 = tch_data_energy(m, d), most = e0;
    for (int i = 0; i < 100; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        most = fmax(most, tch_data_energy(m, d));
    }
    ENSURE(most <= e0 + 1e-12 * fabs(e0));
    int ball = tch_model_body_index(m, "ball");
    ENSURE_NEAR(d->body_X_WB[ball].p.z, 1 - 9.81 * 1e-6, 1e-9);
    ENSURE(fabs(d->body_X_WB[ball].p.y) < 1e-9 && tch_v3_norm(d->body_v_WCm[ball]) < 1e-9);
    ENSURE_NEAR(d->qvel[3], 2, 1e-9);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A stiff weld (1 ms) carries a box on a bar spinning at 3 rad/s without gravity, at 5 ms
 * (h / tc = 5): the relative pose stays within 2e-4 m and 1e-3 rad of its start, and the
 * energy within 0.2% of the start's. The weld takes up the step's own position error: the
 * box advances along a straight line, the bar's point along its arc, r (h w)^2 / 2 = 6e-5 m
 * apart per step, which the stiff spring holds as a stretch of that size (9e-5 m, 1e-3 J;
 * 6e-6 m, the centripetal force's, at small steps). */
static void test_stiff_weld_carries_a_box_at_a_large_step(void) {
    const char* xml = "<mujoco><option gravity='0 0 0'/><worldbody>"
                      "<body name='bar' pos='0 0 1'><joint name='hinge' axis='0 1 0'/>"
                      "<geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.02' mass='1' "
                      "contype='0' conaffinity='0'/></body>"
                      "<body name='box' pos='0.5 0 1' euler='0 0 30'><freejoint/>"
                      "<geom type='box' size='0.05 0.05 0.05' mass='0.5' contype='0' "
                      "conaffinity='0'/></body></worldbody>"
                      "<equality><weld body1='bar' body2='box' solref='0.001 1'/></equality>"
                      "</mujoco>";
    tch_model* m = compile_at(xml, 5e-3, TCH_INTEGRATOR_IMPLICIT);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    /* the bar at 3 rad/s about y; the box moving with it (its origin at (0.5, 0, 0) from the
     * hinge; body axes turned 30 degrees about z) */
    const double w = 3, qvel[7] = {w, 0, 0, -0.5 * w, 0.5 * w, w * 0.8660254037844386, 0};
    memcpy(d->qvel, qvel, sizeof qvel);
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    int bar = tch_model_body_index(m, "bar"), box = tch_model_body_index(m, "box");
    tch_transform rel0 = tch_x_mul(tch_x_inverse(d->body_X_WB[bar]), d->body_X_WB[box]);
    double e0 = tch_data_energy(m, d);
    for (int i = 0; i < 300; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        ENSURE_REL(tch_data_energy(m, d), e0, 2e-3);
        tch_transform rel = tch_x_mul(tch_x_inverse(d->body_X_WB[bar]), d->body_X_WB[box]);
        tch_quat turn = tch_q_mul(tch_q_conj(rel0.q), rel.q);
        ENSURE(2 * tch_v3_norm((tch_vec3){turn.x, turn.y, turn.z}) < 1e-3);
        ENSURE(tch_v3_norm(tch_v3_sub(rel.p, rel0.p)) < 2e-4);
    }
    ENSURE(d->qpos[0] > 4); /* it turned */
    tch_data_destroy(d);
    tch_model_destroy(m);
}

int main(void) {
    RUN_TEST(test_stiff_limit_stops_a_link_at_any_step);
    RUN_TEST(test_stiff_ball_cone_holds_at_a_large_step);
    RUN_TEST(test_joint_spring_is_backward_euler_at_any_step);
    RUN_TEST(test_implicit_joint_forces_agree_with_euler_to_first_order);
    RUN_TEST(test_joint_friction_stops_a_link_without_turning_it_back);
    RUN_TEST(test_stiff_connect_holds_a_ball_at_a_large_step);
    RUN_TEST(test_stiff_weld_carries_a_box_at_a_large_step);
    return TEST_RESULT();
}
