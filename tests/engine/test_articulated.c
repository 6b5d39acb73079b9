/* Articulated models through the loader, the compiler and the step (docs/articulated.md):
 * the PUMA 560 of examples/puma560.xml against the reference gravity torques, energy of a
 * passive chain under RK4, a physical pendulum's period, a joint limit, contact on a link, and
 * the errors for bad kinematic input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/articulation.h"
#include "engine/engine_internal.h"
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"
#include "touche/touche.h"

/* ENSURE that also prints `message` (an error's text) when it fails. */
#define ENSURE_MSG(cond, message)                                                      \
    do {                                                                               \
        bool ensure_ok_ = (cond); /* evaluated once: cond may load or compile */       \
        if (!ensure_ok_) {                                                             \
            fprintf(stderr, "  (%s)\n", (message));                                   \
        }                                                                              \
        ENSURE(ensure_ok_ && #cond);                                                   \
    } while (0)

/* examples/NAME compiled with every pair on `contact` (TCH_CONTACT_INHERIT: the scene's) and
 * `integrator` (TCH_INTEGRATOR_AUTO: the scene's). */
static tch_model* load_example_integrated(const char* name, tch_contact_model contact,
                                          tch_integrator integrator) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/%s", TCH_SOURCE_DIR, name);
    tch_spec* spec = NULL;
    tch_model* model = NULL;
    tch_error err;
    tch_status loaded = tch_mjcf_load(path, &spec, &err);
    if (loaded == TCH_OK && contact != TCH_CONTACT_INHERIT) {
        tch_spec_force_contact_model(spec, contact);
    }
    if (loaded == TCH_OK && integrator != TCH_INTEGRATOR_AUTO) {
        tch_option_def option = *tch_spec_option(spec);
        option.integrator = integrator;
        loaded = tch_spec_set_option(spec, &option, &err);
    }
    if (loaded != TCH_OK || tch_compile(spec, &model, &err) != TCH_OK) {
        fprintf(stderr, "%s: %s:%d: %s\n", name, err.file, err.line, err.message);
    }
    tch_spec_destroy(spec);
    return model;
}

static tch_model* load_example_with(const char* name, tch_contact_model contact) {
    return load_example_integrated(name, contact, TCH_INTEGRATOR_AUTO);
}

static tch_model* load_example(const char* name) {
    return load_example_with(name, TCH_CONTACT_INHERIT);
}

/* reference/puma560.md, "Validation: static gravity torques": at rest the step's acceleration
 * solves A qacc = -(g(q)) (no spring, no limit, friction zero at zero speed), so A qacc read
 * back through the model's own tree gives the gravity torques. */
static void test_puma_mjcf_static_gravity_torques_match_the_reference(void) {
    static const struct {
        const char* pose;
        double tau[6];
    } table[] = {
        {"qz", {0, 37.4837, 0.2489, 0, 0, 0}},
        {"qr", {0, -0.7752, 0.2489, 0, 0, 0}},
        {"qs", {0, 46.0069, 8.7722, 0, 0.0283, 0}},
        {"qn", {0, 31.6399, 6.0351, 0, 0.0283, 0}},
    };
    tch_model* m = load_example("puma560.xml");
    ENSURE(m != NULL);
    ENSURE(m->nq == 6 && m->nv == 6 && m->joint_count == 6);
    ENSURE(strcmp(m->joint_name[1], "joint2") == 0);
    ENSURE_NEAR(m->joint_range[1][1], 225 * TCH_PI / 180, 1e-12); /* degrees converted */
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    tch_articulation_work* w = d->internal->articulation;
    const tch_tree* tree = m->articulation->tree;
    for (size_t p = 0; p < sizeof table / sizeof table[0]; ++p) {
        ENSURE(tch_data_reset_key(m, d, tch_model_key_index(m, table[p].pose), NULL) == TCH_OK);
        ENSURE(tch_forward(m, d, NULL) == TCH_OK);
        tch_tree_mass_matrix(tree, w->tree);
        for (int i = 0; i < 6; ++i) {
            double held = 0; /* -(A qacc)_i: the torque that holds the arm still */
            for (int k = 0; k < 6; ++k) {
                held -= w->tree->M[i * 6 + k] * d->qacc[k];
            }
            ENSURE_NEAR(held, table[p].tau[i], 1e-4);
        }
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* The standard DH chain of reference/puma560.md, Rz(theta) Tz(d) Tx(a) Rx(alpha) per row,
 * written independently of the MJCF placement rule: the tool site of examples/puma560.xml
 * (0.03 m along link 6's z) must land where it puts the point, at every pose. */
static tch_vec3 puma_dh_tool(const double q[6]) {
    static const double dh[6][3] = {
        {0, 0, TCH_PI / 2},      {0, 0.4318, 0},      {0.15005, 0.0203, -TCH_PI / 2},
        {0.4318, 0, TCH_PI / 2}, {0, 0, -TCH_PI / 2}, {0, 0, 0}};
    tch_transform X = tch_x_identity();
    for (int i = 0; i < 6; ++i) {
        tch_transform turn = {tch_q_axis_angle(tch_v3(0, 0, 1), q[i]), tch_v3_zero()};
        tch_transform shift = {tch_q_identity(), tch_v3(dh[i][1], 0, dh[i][0])};
        tch_transform twist = {tch_q_axis_angle(tch_v3(1, 0, 0), dh[i][2]), tch_v3_zero()};
        X = tch_x_mul(tch_x_mul(tch_x_mul(X, turn), shift), twist);
    }
    return tch_x_apply(X, tch_v3(0, 0, 0.03));
}

static void test_puma_tool_site_follows_the_dh_chain(void) {
    tch_model* m = load_example("puma560.xml");
    ENSURE(m != NULL);
    int tool = tch_model_site_index(m, "tool");
    ENSURE(tool >= 0 && m->site_body[tool] == tch_model_body_index(m, "link6"));
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    const double poses[3][6] = {
        {0, 0, 0, 0, 0, 0}, {0.3, -0.4, 0.5, 1.1, -0.7, 0.2}, {-1, 0.8, -2, 0.4, 1.2, -0.6}};
    for (int p = 0; p < 3; ++p) {
        for (int k = 0; k < 6; ++k) {
            d->qpos[k] = poses[p][k];
        }
        ENSURE(tch_forward(m, d, NULL) == TCH_OK);
        tch_vec3 expected = puma_dh_tool(poses[p]);
        ENSURE(tch_v3_dist(d->site_X_WS[tool].p, expected) < 1e-12);
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* export-mjcf writes the joints and sites; the file read back steps the same bit for bit. */
static void test_export_round_trip_keeps_the_dynamics(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/puma560.xml", TCH_SOURCE_DIR);
    tch_spec* spec = NULL;
    tch_error err;
    ENSURE(tch_mjcf_load(path, &spec, &err) == TCH_OK);
    ENSURE_MSG(tch_mjcf_save(spec, TCH_BINARY_DIR "/tests/engine/articulated_roundtrip.xml", true,
                             &err) == TCH_OK,
               err.message);
    tch_spec* again = NULL;
    ENSURE_MSG(tch_mjcf_load(TCH_BINARY_DIR "/tests/engine/articulated_roundtrip.xml", &again,
                             &err) == TCH_OK,
               err.message);
    ENSURE(tch_spec_joint_count(again) == 6 && tch_spec_site_count(again) == 1);
    tch_model *a = NULL, *b = NULL;
    ENSURE(tch_compile(spec, &a, &err) == TCH_OK && tch_compile(again, &b, &err) == TCH_OK);
    tch_data *da = NULL, *db = NULL;
    ENSURE(tch_data_create(a, &da, NULL) == TCH_OK && tch_data_create(b, &db, NULL) == TCH_OK);
    ENSURE(tch_data_reset_key(a, da, 3, NULL) == TCH_OK &&
           tch_data_reset_key(b, db, 3, NULL) == TCH_OK);
    for (int i = 0; i < 200; ++i) {
        ENSURE(tch_step(a, da, NULL) == TCH_OK && tch_step(b, db, NULL) == TCH_OK);
    }
    ENSURE(memcmp(da->qpos, db->qpos, 6 * sizeof *da->qpos) == 0);
    ENSURE(fabs(da->qpos[1] - 0.785398163397448) > 1e-3); /* it moved */
    tch_data_destroy(da);
    tch_data_destroy(db);
    tch_model_destroy(a);
    tch_model_destroy(b);
    tch_spec_destroy(spec);
    tch_spec_destroy(again);
}

/* The position servos of examples/puma560.xml hold pose qn: at rest each joint settles where
 * kp (ctrl - q) balances gravity, q = qn - g(q) / kp, read from the bias force (to 0.01 N m
 * of joint 2's 31.9 after 4 s: the regularized joint friction slows the last approach). */
static void test_puma_servos_hold_a_pose(void) {
    tch_model* m = load_example("puma560.xml");
    ENSURE(m != NULL && m->actuator_count == 6);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    int key = tch_model_key_index(m, "qn");
    ENSURE(tch_data_reset_key(m, d, key, NULL) == TCH_OK);
    ENSURE(d->ctrl[1] == m->key_qpos[key * 6 + 1]);
    for (int i = 0; i < 4000; ++i) { /* 4 s */
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
    }
    tch_real bias[6];
    ENSURE(tch_data_joint_forces(m, d, bias, NULL, NULL, NULL) == TCH_OK);
    for (int k = 0; k < 6; ++k) {
        ENSURE(fabs(d->qvel[k]) < 1e-4);
        tch_real sag = d->ctrl[k] - d->qpos[k];
        ENSURE_NEAR(sag * m->actuator_kp[k], bias[k], 1e-2);
        ENSURE_NEAR(d->actuator_force[k], sag * m->actuator_kp[k], 1e-4); /* last evaluation */
    }
    ENSURE(d->ctrl[1] - d->qpos[1] > 0.01); /* joint 2 sags by 31.6 / 2000 rad */
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* Motor (clamped to its ctrlrange) and velocity actuators through a gear on a wheel: q'' is
 * gear f / (I + armature), with f = clamp(ctrl) and kv (ctrl - gear q'). */
static void test_motor_and_velocity_actuators(void) {
    const char* xml = "<mujoco><option gravity='0 0 0'/><worldbody><body name='wheel'>"
                      "<joint name='axle' axis='0 0 1' armature='0.5'/>"
                      "<inertial mass='1' diaginertia='1 1 1.5'/></body></worldbody>"
                      "<actuator><motor name='m' joint='axle' gear='2' ctrlrange='-1 1'/>"
                      "<velocity name='v' joint='axle' gear='3' kv='4'/></actuator>"
                      "<keyframe><key qvel='0.5' ctrl='3 1'/></keyframe></mujoco>";
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_data_reset_key(m, d, 0, NULL) == TCH_OK);
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    double motor = 1, velocity = 4 * (1 - 3 * 0.5);
    ENSURE_NEAR(d->actuator_force[0], motor, 1e-15);
    ENSURE_NEAR(d->actuator_force[1], velocity, 1e-15);
    ENSURE_NEAR(d->qacc[0], (2 * motor + 3 * velocity) / 2.0, 1e-12);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* examples/puma560.urdf (the same arm written from URDF's DH rule) gives the MJCF's dynamics:
 * bias force, passive force and mass matrix agree at random states to 1e-10 of their size,
 * so the reference's gravity torques hold for it too. */
static void test_puma_urdf_matches_the_mjcf(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/examples/puma560.urdf", TCH_SOURCE_DIR);
    tch_spec* spec = NULL;
    tch_error err;
    ENSURE_MSG(tch_urdf_load(path, NULL, &spec, &err) == TCH_OK, err.message);
    tch_option_def option = *tch_spec_option(spec);
    option.timestep = 0.001; /* the MJCF's: joint friction's regularization depends on it */
    ENSURE(tch_spec_set_option(spec, &option, NULL) == TCH_OK);
    tch_model* u = NULL;
    ENSURE_MSG(tch_compile(spec, &u, &err) == TCH_OK, err.message);
    tch_spec_destroy(spec);
    tch_model* m = load_example("puma560.xml");
    ENSURE(m != NULL && u->nv == 6 && u->joint_count == 6);
    tch_data *dm = NULL, *du = NULL;
    ENSURE(tch_data_create(m, &dm, NULL) == TCH_OK && tch_data_create(u, &du, NULL) == TCH_OK);
    srand(7);
    for (int trial = 0; trial < 8; ++trial) {
        for (int k = 0; k < 6; ++k) {
            dm->qpos[k] = du->qpos[k] = 2.0 * rand() / RAND_MAX - 1;
            dm->qvel[k] = du->qvel[k] = 4.0 * rand() / RAND_MAX - 2;
        }
        tch_real bm[6], bu[6], pm[6], pu[6];
        ENSURE(tch_data_joint_forces(m, dm, bm, pm, NULL, NULL) == TCH_OK);
        ENSURE(tch_data_joint_forces(u, du, bu, pu, NULL, NULL) == TCH_OK);
        tch_tree_mass_matrix(m->articulation->tree, dm->internal->articulation->tree);
        tch_tree_mass_matrix(u->articulation->tree, du->internal->articulation->tree);
        for (int k = 0; k < 6; ++k) {
            ENSURE_NEAR(bu[k], bm[k], 1e-10 * (1 + fabs(bm[k])));
            ENSURE_NEAR(pu[k], pm[k], 1e-10 * (1 + fabs(pm[k])));
            for (int c = 0; c < 6; ++c) {
                ENSURE_NEAR(du->internal->articulation->tree->M[k * 6 + c],
                            dm->internal->articulation->tree->M[k * 6 + c], 1e-10);
            }
        }
    }
    tch_data_destroy(dm);
    tch_data_destroy(du);
    tch_model_destroy(m);
    tch_model_destroy(u);
}

/* URDF input errors name the element and line; package:// finds a mesh on the search path. */
static tch_status load_urdf_text(const char* text, const char* packages, tch_spec** spec,
                                 tch_error* err) {
    FILE* f = fopen(TCH_BINARY_DIR "/tests/engine/robot.urdf", "w");
    if (!f) {
        return TCH_ERR_IO;
    }
    fputs(text, f);
    fclose(f);
    return tch_urdf_load(TCH_BINARY_DIR "/tests/engine/robot.urdf", packages, spec, err);
}

static void check_urdf_error(const char* text, const char* expected, int line) {
    tch_spec* spec = NULL;
    tch_error err;
    memset(&err, 0, sizeof err);
    ENSURE(load_urdf_text(text, NULL, &spec, &err) != TCH_OK);
    ENSURE(spec == NULL);
    ENSURE_MSG(strstr(err.message, expected) != NULL, err.message);
    ENSURE_MSG(err.line == line, err.message);
}

static void test_urdf_errors_and_packages(void) {
    check_urdf_error("<robot name='r'>\n<link name='a'/>\n<link name='b'/>\n"
                     "<joint name='j' type='fixed'><parent link='a'/>\n<child link='c'/></joint>"
                     "\n</robot>",
                     "no link named 'c'", 5);
    check_urdf_error("<robot name='r'>\n<link name='a'/>\n<link name='a'/>\n</robot>",
                     "duplicate link name", 3);
    check_urdf_error("<robot name='r'>\n<link name='a'/>\n<link name='b'/>\n<link name='c'/>\n"
                     "<joint name='j1' type='fixed'><parent link='a'/><child link='b'/></joint>\n"
                     "<joint name='j2' type='fixed'><parent link='c'/><child link='b'/></joint>\n"
                     "</robot>",
                     "already the child", 6);
    check_urdf_error("<robot name='r'>\n<link name='a'/>\n<link name='b'/>\n<link name='c'/>\n"
                     "<joint name='j1' type='fixed'><parent link='b'/><child link='c'/></joint>\n"
                     "<joint name='j2' type='fixed'><parent link='c'/><child link='b'/></joint>\n"
                     "</robot>",
                     "cycle", 3);
    check_urdf_error("<robot name='r'>\n<link name='a'/>\n<link name='b'/>\n"
                     "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                     "<limit lower='1' upper='-1'/></joint>\n</robot>",
                     "lower limit", 5);
    check_urdf_error("<robot name='r'>\n<link name='a'/>\n<link name='b'/>\n"
                     "<joint name='j' type='revolute'><parent link='a'/><child link='b'/>\n"
                     "<axis xyz='0 0 0'/><limit lower='-1' upper='1'/></joint>\n</robot>",
                     "non-zero", 5);
    const char* with_mesh =
        "<robot name='r'><link name='world'/><link name='b'>"
        "<inertial><mass value='2'/><inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' iyz='0'/>"
        "</inertial><collision><geometry><mesh filename='package://examples/bowl.obj'/>"
        "</geometry></collision></link>"
        "<joint name='float' type='floating'><parent link='world'/><child link='b'/></joint>"
        "</robot>";
    tch_spec* spec = NULL;
    tch_error err;
    ENSURE(load_urdf_text(with_mesh, "/nonexistent:" TCH_SOURCE_DIR, &spec, &err) == TCH_OK);
    ENSURE(tch_spec_mesh_count(spec) == 1 && tch_spec_body(spec, (tch_body_id){1})->free_joint);
    tch_model* m = NULL;
    ENSURE_MSG(tch_compile(spec, &m, &err) == TCH_OK, err.message);
    ENSURE(m->free_count == 1 && m->body_total_mass[1] == 2); /* collision carries no mass */
    tch_model_destroy(m);
    tch_spec_destroy(spec);
    ENSURE(load_urdf_text(with_mesh, "/nonexistent", &spec, &err) == TCH_ERR_IO);
    ENSURE_MSG(strstr(err.message, "package search path") != NULL, err.message);
}

/* A chain of hinge, slide and ball joints with springs and armature, no damping or contact:
 * RK4 keeps kinetic + gravity + spring energy (relative drift per second below 1e-8). */
static const char* const passive_chain =
    "<mujoco><compiler angle='radian'/>"
    "<option timestep='5e-4' integrator='RK4'/>"
    "<worldbody><body name='a' pos='0 0 1'>"
    "  <joint name='h1' type='hinge' axis='0 1 0' stiffness='3' springref='0.2' armature='0.01'/>"
    "  <geom type='capsule' fromto='0 0 0 0.4 0 0' size='0.04' contype='0' conaffinity='0'/>"
    "  <body name='b' pos='0.4 0 0'>"
    "    <joint name='s1' type='slide' axis='1 0 0.3' stiffness='40'/>"
    "    <joint name='h2' type='hinge' axis='0 0.6 0.8' pos='0.05 0 0'/>"
    "    <geom type='box' size='0.1 0.05 0.05' pos='0.1 0 0' contype='0' conaffinity='0'/>"
    "    <body name='c' pos='0.3 0 0'>"
    "      <joint name='b1' type='ball' stiffness='0.5'/>"
    "      <geom type='sphere' size='0.06' pos='0.1 0.05 0' contype='0' conaffinity='0'/>"
    "    </body></body></body></worldbody>"
    "<keyframe><key name='moving' qpos='0.4 0.05 -0.3 0.9 0.1 0.3 0.2' qvel='1 -0.5 2 1 -2 "
    "0.5'/></keyframe>"
    "</mujoco>";

static void test_passive_chain_keeps_its_energy_under_rk4(void) {
    tch_error err;
    tch_model* m = test_compile_xml(passive_chain, &err);
    ENSURE_MSG(m != NULL, err.message);
    ENSURE(m->nq == 7 && m->nv == 6);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_data_reset_key(m, d, 0, NULL) == TCH_OK);
    double e0 = tch_data_energy(m, d), most = 0;
    for (int i = 0; i < 1000; ++i) { /* 0.5 s */
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        most = fmax(most, fabs(tch_data_energy(m, d) - e0));
    }
    ENSURE(fabs(e0) > 0.1);
    ENSURE(most / fabs(e0) / 0.5 < 1e-8);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A rod of mass m and length 2 l about its end: T = 2 pi sqrt((I + m l^2 + a) / (m g l)). */
static void test_physical_pendulum_period_matches_the_closed_form(void) {
    const char* xml = "<mujoco><compiler angle='radian'/><option timestep='1e-3' integrator='RK4' "
                      "gravity='0 0 -9.81'/>"
                      "<worldbody><body name='rod'>"
                      "<joint name='pivot' axis='0 1 0' armature='0.05' ref='0'/>"
                      "<inertial pos='0 0 -0.5' mass='2' diaginertia='0.17 0.17 0.01'/>"
                      "</body></worldbody>"
                      "<keyframe><key qpos='0.001'/></keyframe></mujoco>";
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_data_reset_key(m, d, 0, NULL) == TCH_OK);
    double expected = 2 * TCH_PI * sqrt((0.17 + 2 * 0.25 + 0.05) / (2 * 9.81 * 0.5));
    double crossings[3];
    int found = 0;
    double previous = d->qvel[0];
    while (found < 3 && d->time < 10) { /* the velocity's downward zero crossings */
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        if (previous > 0 && d->qvel[0] <= 0) {
            double fraction = previous / (previous - d->qvel[0]);
            crossings[found++] = d->time - m->timestep * (1 - fraction);
        }
        previous = d->qvel[0];
    }
    ENSURE(found == 3);
    ENSURE_NEAR((crossings[2] - crossings[0]) / 2, expected, 1e-5 * expected);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A link released at its lower limit (30 degrees above the horizontal) swings down into its
 * upper limit (60 degrees below, short of hanging straight down at 90): the one-sided
 * spring-damper stops it there, a few degrees past at most, and the energy never rises above
 * the start. */
static void test_joint_limit_stops_a_link_without_energy_gain(void) {
    const char* xml = "<mujoco><option timestep='1e-3' integrator='RK4'/>"
                      "<worldbody><body name='arm'>"
                      "<joint name='elbow' axis='0 1 0' range='-30 60'/>"
                      "<inertial pos='0.5 0 0' mass='1' diaginertia='0.02 0.02 0.001'/>"
                      "</body></worldbody></mujoco>";
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    ENSURE(m->joint_limited[0] == 1); /* autolimits: a range makes a limit */
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    double upper = 60 * TCH_PI / 180;
    d->qpos[0] = -30 * TCH_PI / 180;
    tch_forward(m, d, NULL);
    double e0 = tch_data_energy(m, d), highest = d->qpos[0], most = -INFINITY;
    for (int i = 0; i < 3000; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        highest = fmax(highest, d->qpos[0]);
        most = fmax(most, tch_data_energy(m, d));
    }
    ENSURE(highest > upper);                    /* it reached the limit, */
    ENSURE(highest < upper + 5 * TCH_PI / 180); /* which held it */
    ENSURE(most <= e0 + 1e-9 * fabs(e0));
    ENSURE(fabs(d->qvel[0]) < 1e-3 && fabs(d->qpos[0] - upper) < 0.05); /* resting there */
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A link held level by its upper limit sags under its weight until the limit spring of
 * solreflimit = (tc, zeta) holds it: k theta = m g L cos(theta), with k = A / (tc zeta)^2 and A
 * the hinge's inertia m L^2 + I_yy (MuJoCo's limit impedance, docs/articulated.md). The same
 * link from a default class, with and without the attribute. */
static void check_limit_sag(const char* solreflimit_attribute, double expected) {
    char xml[768];
    snprintf(xml, sizeof xml,
             "<mujoco><option timestep='1e-3' integrator='implicit'/>"
             "<default><joint %s/></default><worldbody><body name='arm'>"
             "<joint name='shoulder' axis='0 1 0' range='-90 0'/>"
             "<inertial pos='0.5 0 0' mass='1' diaginertia='0.02 0.02 0.001'/>"
             "</body></worldbody></mujoco>",
             solreflimit_attribute);
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    for (int i = 0; i < 3000; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
    }
    ENSURE(fabs(d->qvel[0]) < 1e-9);
    ENSURE_NEAR(d->qpos[0], expected, 1e-9);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static double expected_sag(double tc, double zeta) {
    double k = (0.25 + 0.02) / (tc * zeta * tc * zeta), weight_moment = 9.81 * 0.5;
    double theta = 0;
    for (int i = 0; i < 50; ++i) { /* Newton on k theta - m g L cos(theta) */
        theta -= (k * theta - weight_moment * cos(theta)) / (k + weight_moment * sin(theta));
    }
    return theta;
}

static void test_solreflimit_sets_the_limit_spring(void) {
    check_limit_sag("", expected_sag(0.02, 1));
    check_limit_sag("solreflimit='0.05 1.2'", expected_sag(0.05, 1.2));
    ENSURE(expected_sag(0.05, 1.2) > 5 * expected_sag(0.02, 1));
}

/* A link carrying a ball falls onto the floor and rests there: the contact force reaches the
 * joint through the link Jacobian (J^T f) and holds the link's weight about the hinge. With
 * `options` the option element's attributes (time step, integrator). The energy (kinetic and
 * gravity; the contact's own elastic energy is not counted, so this is a lower bound of the
 * total) never rises above the start's. */
static void check_link_rests_on_the_floor_with(const char* model, const char* options) {
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<mujoco xmlns:touche='urn:touche'><option %s touche:contact='%s'/>"
             "<worldbody><geom name='floor' type='plane' size='2 2 0.1'/>"
             "<body name='arm' pos='0 0 0.3'>"
             "<joint name='hinge' axis='0 1 0' damping='0.5'/>"
             "<geom name='rod' type='capsule' fromto='0 0 0 0.5 0 0' size='0.01' contype='0' "
             "conaffinity='0' mass='0.2'/>"
             "<geom name='ball' type='sphere' pos='0.5 0 0' size='0.05' mass='1'/>"
             "</body></worldbody></mujoco>",
             options, model);
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    double e0 = tch_data_energy(m, d), most = e0;
    int steps = (int)lround(3 / m->timestep);
    for (int i = 0; i < steps; ++i) {
        ENSURE_MSG(tch_step(m, d, &err) == TCH_OK, err.message);
        most = fmax(most, tch_data_energy(m, d));
    }
    ENSURE(most <= e0 + 1e-9 * fabs(e0));
    int ball = tch_model_geom_index(m, "ball"), arm = tch_model_body_index(m, "arm");
    ENSURE(d->contact_count > 0 && d->pair_result_count == 1);
    ENSURE(fabs(d->qvel[0]) < 1e-6);
    ENSURE(d->geom_X_WG[ball].p.z > 0.05 - 0.025); /* on the floor, not through it */
    /* at rest the contact's torque about the hinge holds the link's weight */
    const tch_pair_result* pair = &d->pair_results[0];
    ENSURE(pair->geom_b == ball);
    tch_vec3 hinge = {0, 0, 0.3};
    double contact_torque = pair->tau_Wo_W.y - (hinge.z * pair->f_W.x - hinge.x * pair->f_W.z);
    double weight_torque = d->body_p_WCm[arm].x * m->body_total_mass[arm] * 9.81;
    ENSURE_REL(contact_torque, -weight_torque, 1e-6);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void check_link_rests_on_the_floor(const char* model) {
    check_link_rests_on_the_floor_with(model, "timestep='1e-3' integrator='Euler'");
}

/* The implicit integrator takes a link's contact springs and dampers through its Jacobian
 * (J^T K J on the tree's dofs): at MuJoCo's default step (2 ms) and the models' physical
 * defaults (no integrator named: the implicit one) the link lands and rests. */
static void test_link_rests_on_the_floor_implicitly_with_point_contact(void) {
    check_link_rests_on_the_floor_with("point", "");
}

static void test_link_rests_on_the_floor_implicitly_with_volume_contact(void) {
    check_link_rests_on_the_floor_with("volume", "");
}

static void test_link_rests_on_the_floor_implicitly_with_pressure_contact(void) {
    check_link_rests_on_the_floor_with("pressure", "");
}

/* A free joint is a translation in world axes and a ball in body axes (docs/articulated.md,
 * "Links"), so a box on three world slides and a ball joint moves exactly as the same box on a
 * free joint; with the implicit integrator the first is a tree in the contact system (J^T K J
 * through its link Jacobian) and the second a free body (the 6x6 blocks of the centre-of-mass
 * twist). A tilted box dropped on the floor lands, bounces and settles alike in both to
 * round-off, with each force model. Its inertia is isotropic: the free body's gyroscopic term
 * is implicit (math/spin.h) and the tree's explicit, which part by 1.6e-6 m (point) to 1.1e-3
 * m (pressure) over this second with the box's own inertia; with I = c 1 the term is zero in
 * both. */
static void check_six_joint_link_moves_as_a_free_body(const char* model) {
    const char* scene = "<mujoco xmlns:touche='urn:touche'><option touche:contact='%s'/>"
                        "<worldbody><geom type='plane' size='3 3 0.1'/>"
                        "<body name='box' pos='0 0 0.3' euler='0.3 0.2 0.1'>%s"
                        "<inertial pos='0 0 0' mass='1' diaginertia='3e-3 3e-3 3e-3'/>"
                        "<geom type='box' size='0.1 0.15 0.05' mass='1'/></body>"
                        "</worldbody></mujoco>";
    char as_link[1024], as_free[1024];
    snprintf(as_link, sizeof as_link, scene, model,
             "<joint type='slide' axis='1 0 0'/><joint type='slide' axis='0 1 0'/>"
             "<joint type='slide' axis='0 0 1'/><joint type='ball'/>");
    snprintf(as_free, sizeof as_free, scene, model, "<freejoint/>");
    tch_error err;
    tch_model* a = test_compile_xml(as_link, &err);
    ENSURE_MSG(a != NULL, err.message);
    tch_model* b = test_compile_xml(as_free, &err);
    ENSURE_MSG(b != NULL, err.message);
    ENSURE(a->integrator == TCH_INTEGRATOR_IMPLICIT && b->integrator == TCH_INTEGRATOR_IMPLICIT);
    ENSURE(a->articulation && !b->articulation && a->nv == 6);
    tch_data *da = NULL, *db = NULL;
    ENSURE(tch_data_create(a, &da, NULL) == TCH_OK && tch_data_create(b, &db, NULL) == TCH_OK);
    double apart = 0;
    for (int i = 0; i < 500; ++i) { /* 1 s at 2 ms: the fall, the landing, the rest */
        ENSURE_MSG(tch_step(a, da, &err) == TCH_OK, err.message);
        ENSURE(tch_step(b, db, NULL) == TCH_OK);
        apart = fmax(apart, tch_v3_dist(da->body_X_WB[1].p, db->body_X_WB[1].p));
    }
    ENSURE(apart < 1e-9);
    ENSURE(db->contact_count > 0 && fabs(db->body_X_WB[1].p.z - 0.05) < 1e-3); /* landed */
    tch_data_destroy(da);
    tch_data_destroy(db);
    tch_model_destroy(a);
    tch_model_destroy(b);
}

static void test_six_joint_link_moves_as_a_free_body_with_point_contact(void) {
    check_six_joint_link_moves_as_a_free_body("point");
}

static void test_six_joint_link_moves_as_a_free_body_with_volume_contact(void) {
    check_six_joint_link_moves_as_a_free_body("volume");
}

static void test_six_joint_link_moves_as_a_free_body_with_pressure_contact(void) {
    check_six_joint_link_moves_as_a_free_body("pressure");
}

static double fastest_body_speed(const tch_model* m, const tch_data* d) {
    double fastest = 0;
    for (int b = 1; b < m->body_count; ++b) {
        fastest = fmax(fastest, tch_v3_norm(d->body_v_WCm[b]));
    }
    return fastest;
}

/* examples/two_arms.xml with `volume` (the implicit integrator, its default): the 60 blocks
 * fall on the two arms and the floor and come to rest (every body slower than 1 cm/s for
 * 0.5 s) within 12 s, none thrown away (with the links' contacts explicit, the scene was
 * unstable: blocks ejected 3.8 m from the centre). The pile is chaotic: round-off moves its
 * last movers' rest between about 4.5 s and 7 s, so the test waits for the rest rather than
 * judging one instant. */
static void test_two_arms_with_volume_contact_come_to_rest(void) {
    tch_model* m = load_example_with("two_arms.xml", TCH_CONTACT_VOLUME);
    ENSURE(m != NULL && m->integrator == TCH_INTEGRATOR_IMPLICIT);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    tch_error err;
    int slow_steps = 0, needed = (int)lround(0.5 / m->timestep);
    for (int i = 0; i < (int)lround(12 / m->timestep) && slow_steps < needed; ++i) {
        ENSURE_MSG(tch_step(m, d, &err) == TCH_OK, err.message);
        slow_steps = fastest_body_speed(m, d) < 1e-2 ? slow_steps + 1 : 0;
    }
    ENSURE(slow_steps == needed);
    double farthest = 0, lowest = INFINITY;
    for (int b = 1; b < m->body_count; ++b) {
        if (strncmp(m->body_name[b], "block", 5) == 0) {
            farthest = fmax(farthest, hypot(d->body_X_WB[b].p.x, d->body_X_WB[b].p.y));
            lowest = fmin(lowest, d->body_p_WCm[b].z);
        }
    }
    ENSURE(farthest < 2.0);
    ENSURE(lowest > 0.1 - 5e-3); /* the blocks' centres: on the floor, not in it */
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_link_rests_on_the_floor_with_point_contact(void) {
    check_link_rests_on_the_floor("point");
}

static void test_link_rests_on_the_floor_with_volume_contact(void) {
    check_link_rests_on_the_floor("volume");
}

static void test_link_rests_on_the_floor_with_pressure_contact(void) {
    check_link_rests_on_the_floor("pressure");
}

static void test_link_rests_on_the_floor_with_lcp(void) {
    check_link_rests_on_the_floor("lcp");
}

/* With lcp a swinging link strikes a free box resting on the floor: the impact and the
 * contacts after it never add energy (the tree's and the box's kinetic plus potential), and
 * the box, pushed aside, comes to rest on the floor. */
static void test_link_strikes_a_box_without_energy_gain_with_lcp(void) {
    const char* xml = "<mujoco xmlns:touche='urn:touche'>"
                      "<option timestep='2e-3' integrator='Euler' touche:contact='lcp'/>"
                      "<worldbody><geom name='floor' type='plane' size='3 3 0.1'/>"
                      "<body name='arm' pos='0 0 0.65'><joint name='shoulder' axis='0 1 0' "
                      "damping='0.5'/>"
                      "<geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.03' mass='2'/></body>"
                      "<body name='box' pos='-0.25 0 0.1'><freejoint/>"
                      "<geom type='box' size='0.1 0.1 0.1' mass='1'/></body>"
                      "</worldbody></mujoco>";
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    int box = tch_model_body_index(m, "box");
    double e0 = tch_data_energy(m, d), most = e0;
    for (int i = 0; i < 2000; ++i) {
        ENSURE_MSG(tch_step(m, d, &err) == TCH_OK, err.message);
        most = fmax(most, tch_data_energy(m, d));
    }
    ENSURE(most <= e0 + 1e-9 * fabs(e0));
    ENSURE(d->body_X_WB[box].p.x < -0.255);                  /* struck, then held by friction */
    ENSURE(d->body_X_WB[box].p.z > 0.1 - 2e-3);              /* on the floor, not in it */
    ENSURE(tch_v3_norm(d->body_v_WCm[box]) < 1e-3);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* With lcp the joint limit is a unilateral row on the joint's velocity (constraint_tree.c):
 * released at its lower limit the link swings up, stops at the upper limit without passing it
 * (beyond the solver's tolerance) and without energy gain, and rests there. */
static void test_joint_limit_row_stops_a_link_without_energy_gain(void) {
    const char* xml = "<mujoco xmlns:touche='urn:touche'>"
                      "<option timestep='1e-3' integrator='Euler' touche:contact='lcp'/>"
                      "<worldbody><body name='arm'>"
                      "<joint name='elbow' axis='0 1 0' range='-30 60'/>"
                      "<inertial pos='0.5 0 0' mass='1' diaginertia='0.02 0.02 0.001'/>"
                      "</body></worldbody></mujoco>";
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    ENSURE(m->articulation->limit_rows);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    double lower = -30 * TCH_PI / 180, upper = 60 * TCH_PI / 180;
    d->qpos[0] = lower;
    tch_forward(m, d, NULL);
    double e0 = tch_data_energy(m, d), highest = d->qpos[0], most = -INFINITY;
    for (int i = 0; i < 3000; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        highest = fmax(highest, d->qpos[0]);
        most = fmax(most, tch_data_energy(m, d));
        ENSURE(d->qpos[0] >= lower - 1e-9);
    }
    ENSURE(highest > upper - 1e-6 && highest < upper + 1e-6); /* reached, never passed */
    ENSURE(most <= e0 + 1e-9 * fabs(e0));
    ENSURE(fabs(d->qvel[0]) < 1e-6 && fabs(d->qpos[0] - upper) < 1e-6); /* resting there */
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A horizontal link on a hinge about y (1 kg at l = 0.5 m, I = 0.26 kg m^2 about the hinge)
 * with Coulomb joint friction f (frictionloss) under lcp, where f is a bounded row on the
 * joint's velocity (|impulse| <= f h), solved by `solver`; gravity `g` along -z. */
static tch_model* friction_link(double frictionloss, double g, const char* axis,
                                const char* solver) {
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<mujoco xmlns:touche='urn:touche'><option timestep='1e-3' integrator='Euler' "
             "gravity='0 0 %g' touche:contact='lcp' touche:solver='%s'/>"
             "<worldbody><body name='arm' pos='0 0 1'>"
             "<joint name='hinge' axis='%s' frictionloss='%.17g'/>"
             "<inertial pos='0.5 0 0' mass='1' diaginertia='0.01 0.01 0.01'/>"
             "</body></worldbody></mujoco>",
             -g, solver, axis, frictionloss);
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    if (!m) {
        fprintf(stderr, "  (%s)\n", err.message);
    }
    return m;
}

/* Below the threshold torque the friction row holds the link still (the weight's torque
 * m g l = 4.905 N m against f = 1.2 m g l); above it (f = 0.5 m g l) the link starts to fall
 * with q'' = -(m g l - f) / I exactly: friction slips at its bound, f. Both solvers. */
static void check_joint_friction_holds_and_slips(const char* solver) {
    const double weight_torque = 9.81 * 0.5, inertia = 0.01 + 0.25, h = 1e-3;
    tch_model* m = friction_link(1.2 * weight_torque, 9.81, "0 1 0", solver);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    for (int i = 0; i < 1000; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
    }
    ENSURE(fabs(d->qpos[0]) < 1e-12 && fabs(d->qvel[0]) < 1e-12); /* held for 1 s */
    tch_data_destroy(d);
    tch_model_destroy(m);
    m = friction_link(0.5 * weight_torque, 9.81, "0 1 0", solver);
    ENSURE(m != NULL && tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_step(m, d, NULL) == TCH_OK);
    /* axis y: the weight turns the link by +q (x toward -z) */
    ENSURE_REL(d->qvel[0], h * 0.5 * weight_torque / inertia, 1e-9);
    for (int i = 1; i < 10; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
    }
    /* cos q stays 1 to 1e-7 over these 10 ms */
    ENSURE_REL(d->qvel[0], 10 * h * 0.5 * weight_torque / inertia, 1e-6);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_joint_friction_row_holds_and_slips_with_lemke(void) {
    check_joint_friction_holds_and_slips("lemke");
}

static void test_joint_friction_row_holds_and_slips_with_pgs(void) {
    check_joint_friction_holds_and_slips("pgs");
}

/* Without gravity a link spun at 3 rad/s about a vertical hinge decelerates at f / I exactly
 * (f = 0.2 N m) and stops at t = I w0 / f = 3.9 s, then stays still: friction never reverses
 * the motion. */
static void test_joint_friction_row_decelerates_a_spinning_link(void) {
    const double inertia = 0.26, f = 0.2, w0 = 3, h = 1e-3;
    tch_model* m = friction_link(f, 0, "0 0 1", "lemke");
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    d->qvel[0] = w0;
    for (int i = 0; i < 2000; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
    }
    ENSURE_REL(d->qvel[0], w0 - 2000 * h * f / inertia, 1e-9);
    for (int i = 2000; i < 5000; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        ENSURE(d->qvel[0] >= 0);
    }
    ENSURE(d->qvel[0] == 0);
    /* the angle of a uniform deceleration, w0^2 I / (2 f), to a step's travel */
    ENSURE_NEAR(d->qpos[0], w0 * w0 * inertia / (2 * f), w0 * h);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A pendulum on a ball joint whose rotation angle is limited to a cone of 30 degrees (MJCF
 * range in degrees, converted), its centre of mass l = 0.5 m below the socket, is thrown from
 * hanging straight down at 4 rad/s about x: enough to pass the cone. `contact` lcp makes the
 * cone a unilateral row on the ball's three dofs (J = -a); a force model, a one-sided spring
 * (the hinges' limit impedance). Returns the largest angle, the energy after 2 s and the
 * closed form's energy after an inelastic stop on the cone, and checks that the energy
 * (kinetic, gravity, the spring's) never rose above the start's. */
static void swing_into_ball_cone(const char* contact, const char* integrator, double* widest,
                                 double* energy_after, double* expected_after) {
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<mujoco xmlns:touche='urn:touche'>"
             "<option timestep='1e-3' integrator='%s' touche:contact='%s'/>"
             "<worldbody><body name='bob' pos='0 0 1'>"
             "<joint name='socket' type='ball' range='0 30'/>"
             "<inertial pos='0 0 -0.5' mass='1' diaginertia='0.01 0.01 0.01'/>"
             "</body></worldbody></mujoco>",
             integrator, contact);
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    ENSURE(m->joint_count == 1 && m->articulation->tree->joints[0].limited);
    ENSURE_NEAR(m->joint_range[0][1], TCH_PI / 6, 1e-15);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    d->qvel[0] = 4;
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    const double inertia = 0.01 + 1 * 0.5 * 0.5, weight = 9.81 * 1 * 0.5; /* about the socket */
    double e0 = tch_data_energy(m, d), most = e0;
    *widest = 0;
    for (int i = 0; i < 2000; ++i) {
        ENSURE_MSG(tch_step(m, d, &err) == TCH_OK, err.message);
        most = fmax(most, tch_data_energy(m, d));
        *widest = fmax(*widest, 2 * acos(fmin(1, fabs(d->qpos[0]))));
    }
    /* semi-implicit Euler's energy wobbles by O(h omega) of the kinetic energy (0.2% here) */
    ENSURE(most <= e0 + 5e-3 * 0.5 * inertia * 4 * 4);
    *energy_after = tch_data_energy(m, d);
    /* stopped at rest on the cone: what is left is the potential energy there */
    *expected_after = e0 - 0.5 * inertia * 4 * 4 + weight * (1 - cos(TCH_PI / 6));
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* With lcp the cone's row stops the pendulum on the cone (no restitution: the row's target
 * closes the gap and no more) and it swings on within it: the angle never passes 30 degrees
 * beyond the solver's tolerance, and the energy left is the closed form's, the potential
 * energy on the cone, m g l (1 - cos 30), to semi-implicit Euler's oscillation. */
static void test_ball_cone_row_stops_a_pendulum_on_the_cone(void) {
    double widest, after, expected;
    swing_into_ball_cone("lcp", "Euler", &widest, &after, &expected);
    ENSURE(widest > TCH_PI / 6 - 1e-6 && widest < TCH_PI / 6 + 1e-6);
    ENSURE_NEAR(after, expected, 2e-3); /* 1.42 J taken by the stop */
}

/* With a force model the cone is a stiff one-sided spring-damper (time constant 0.02 s,
 * critically damped on the ball's inertia): the pendulum passes the cone by a few degrees at
 * most, never gains energy, and loses at least the closed form's share of the lcp stop (the
 * damper takes the rest). */
static void test_ball_cone_spring_holds_a_pendulum(void) {
    double widest, after, expected;
    swing_into_ball_cone("volume", "implicit", &widest, &after, &expected);
    ENSURE(widest > TCH_PI / 6 && widest < TCH_PI / 6 + 3 * TCH_PI / 180);
    ENSURE(after < expected + 0.02); /* close to an inelastic stop (1.4 J taken) */
}

/* The implicit integrator takes the joint dampers at the step's end velocity: a hinge whose
 * damping is 5000 times its inertia (h d / I = 10 at 2 ms, where the explicit step blows up)
 * creeps back to its spring's rest like the overdamped solution, q = q0 exp(-k t / d), never
 * overshooting. */
static void test_implicit_integrator_takes_joint_damping_implicitly(void) {
    const char* xml =
        "<mujoco><compiler angle='radian'/><option integrator='implicit' gravity='0 0 0'/>"
        "<worldbody><body name='b'><joint name='j' axis='0 0 1' stiffness='100' "
        "damping='5000'/><inertial mass='1' diaginertia='1 1 1'/></body></worldbody>"
        "<keyframe><key qpos='1'/></keyframe></mujoco>";
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    ENSURE(m->integrator == TCH_INTEGRATOR_IMPLICIT);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_data_reset_key(m, d, 0, NULL) == TCH_OK);
    for (int i = 0; i < 500; ++i) { /* 1 s */
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        ENSURE(d->qvel[0] <= 0 && d->qpos[0] > 0);
    }
    ENSURE_NEAR(d->qpos[0], exp(-100.0 / 5000.0), 1e-3);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* Free bodies of an articulated model keep the implicit contact system when no link can
 * collide: three volume blocks stacked beside a pendulum (whose geom does not collide) move as
 * the same stack without the pendulum, to round-off. */
static void test_lone_free_bodies_keep_the_implicit_contacts(void) {
    const char* stack =
        "<mujoco xmlns:touche='urn:touche'><option timestep='0.005' touche:contact='volume'/>"
        "<worldbody><geom type='plane' size='5 5 0.1'/>"
        "<body name='b0' pos='0 0 1'><freejoint/><geom type='box' size='0.5 0.5 1'/></body>"
        "<body name='b1' pos='0 0 3'><freejoint/><geom type='box' size='0.5 0.5 1'/></body>"
        "<body name='b2' pos='0 0 5'><freejoint/><geom type='box' size='0.5 0.5 1'/></body>"
        "%s</worldbody></mujoco>";
    char with[2048], without[2048];
    snprintf(without, sizeof without, stack, "");
    snprintf(with, sizeof with, stack,
             "<body name='p' pos='5 5 2'><joint axis='0 1 0'/><geom type='capsule' "
             "fromto='0 0 0 0.5 0 0' size='0.05' contype='0' conaffinity='0'/></body>");
    tch_error err;
    tch_model* a = test_compile_xml(with, &err);
    ENSURE_MSG(a != NULL, err.message);
    tch_model* b = test_compile_xml(without, &err);
    ENSURE(b != NULL && a->articulation && a->integrator == TCH_INTEGRATOR_IMPLICIT);
    tch_data *da = NULL, *db = NULL;
    ENSURE(tch_data_create(a, &da, NULL) == TCH_OK && tch_data_create(b, &db, NULL) == TCH_OK);
    for (int i = 0; i < 400; ++i) { /* 2 s */
        ENSURE(tch_step(a, da, NULL) == TCH_OK && tch_step(b, db, NULL) == TCH_OK);
    }
    for (int body = 1; body <= 3; ++body) {
        ENSURE(tch_v3_dist(da->body_X_WB[body].p, db->body_X_WB[body].p) < 1e-12);
    }
    ENSURE(fabs(db->body_X_WB[3].p.z - 5) < 1e-2); /* the stack stands */
    tch_data_destroy(da);
    tch_data_destroy(db);
    tch_model_destroy(a);
    tch_model_destroy(b);
}

/* A link and its parent link do not collide where their geoms overlap at the joint (MuJoCo's
 * filterparent); the grandparent still collides with the grandchild. */
static void test_adjacent_links_do_not_collide(void) {
    const char* xml = "<mujoco><worldbody><body name='a'><joint axis='0 1 0'/>"
                      "<geom name='ga' type='capsule' fromto='0 0 0 0.5 0 0' size='0.05'/>"
                      "<body name='b' pos='0.5 0 0'><joint axis='0 1 0'/>"
                      "<geom name='gb' type='capsule' fromto='0 0 0 0.5 0 0' size='0.05'/>"
                      "<body name='c' pos='0.5 0 0'><joint axis='0 1 0' ref='0'/>"
                      "<geom name='gc' type='sphere' pos='-0.9 0 0' size='0.08'/>"
                      "</body></body></body></worldbody></mujoco>";
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    ENSURE(d->pair_result_count == 1); /* a-c only: a-b and b-c overlap at their joints */
    ENSURE(d->pair_results[0].geom_a == tch_model_geom_index(m, "ga") &&
           d->pair_results[0].geom_b == tch_model_geom_index(m, "gc"));
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A two-finger gripper (examples/gripper.xml: pads on slide joints; gripper_hinge.xml: fingers
 * on hinges) squeezed by position servos holds a free box against gravity by friction for 2 s,
 * the box slipping less than 1 mm, with each force model: friction on a link must know what
 * its joints forbid (the link's mobility J A^-1 J^T; as a free pad of its own mass, the point
 * model let the box creep about 80 mm and pressure let it slide out). */
static void check_gripper_holds_a_box_integrated(const char* example, tch_contact_model contact,
                                                tch_integrator integrator) {
    tch_model* m = load_example_integrated(example, contact, integrator);
    ENSURE(m != NULL && m->actuator_count == 2);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_data_reset_key(m, d, tch_model_key_index(m, "grip"), NULL) == TCH_OK);
    int box = tch_model_body_index(m, "box");
    long allocations = 0;
    for (int i = 0; i < 2000; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        allocations = i == 100 ? d->heap_allocation_count : allocations;
    }
    ENSURE(d->heap_allocation_count == allocations); /* none after warm-up */
    ENSURE(d->pair_result_count == 2);               /* both pads touch the box */
    ENSURE(fabs(d->body_X_WB[box].p.z - 0.5) < 1e-3);
    /* held, not sliding (point contact keeps a creep of about 0.1 mm/s, docs/articulated.md) */
    ENSURE(fabs(d->body_v_WCm[box].z) < 1e-3);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void check_gripper_holds_a_box(const char* example, tch_contact_model contact) {
    check_gripper_holds_a_box_integrated(example, contact, TCH_INTEGRATOR_AUTO);
}

/* A pad on a slide joint answers a wrench at its centre of mass only along its axis x, with
 * 1 / (m + h d): its mobility J (A + h D)^-1 J^T (the one friction's prediction uses; the
 * implicit integrator, the scene's default, takes the joint's damper d = 20 N s/m at the step's
 * end) is x x^T / (m + h d) in the translation and zero in the rotation, and its predicted
 * velocity has no component across. */
static void test_slide_pad_mobility_is_its_axis_over_its_mass(void) {
    tch_model* m = load_example_with("gripper.xml", TCH_CONTACT_POINT);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_data_reset_key(m, d, tch_model_key_index(m, "grip"), NULL) == TCH_OK);
    ENSURE(tch_step(m, d, NULL) == TCH_OK);
    const tch_velocity_prediction* prediction = &d->internal->prediction;
    int pad = tch_model_body_index(m, "left"), box = tch_model_body_index(m, "box");
    const tch_link_mobility* link = tch_prediction_link(prediction, pad);
    ENSURE(link != NULL && tch_prediction_link(prediction, box) == NULL);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            ENSURE_NEAR(link->v_f.m[i][j], i == 0 && j == 0 ? 1 / (0.1 + 1e-3 * 20) : 0, 1e-12);
            ENSURE_NEAR(link->v_tau.m[i][j], 0, 1e-12);
            ENSURE_NEAR(link->w_tau.m[i][j], 0, 1e-12);
        }
    }
    ENSURE_NEAR(prediction->v_WCm[pad].y, 0, 1e-15);
    ENSURE_NEAR(prediction->v_WCm[pad].z, 0, 1e-15);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_slide_gripper_holds_a_box_with_point_contact(void) {
    check_gripper_holds_a_box("gripper.xml", TCH_CONTACT_POINT);
}

static void test_slide_gripper_holds_a_box_with_volume_contact(void) {
    check_gripper_holds_a_box("gripper.xml", TCH_CONTACT_VOLUME);
}

/* pressure under semi-implicit Euler: its semi-implicit friction solve over the links (under
 * the implicit integrator its friction is the regularized law, docs/contact-pressure.md, and
 * the grip's key, 2 mm into the box, is too deep for its physical stiffness) */
static void test_slide_gripper_holds_a_box_with_pressure_contact(void) {
    check_gripper_holds_a_box_integrated("gripper.xml", TCH_CONTACT_PRESSURE,
                                         TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
}

static void test_hinge_gripper_holds_a_box_with_point_contact(void) {
    check_gripper_holds_a_box("gripper_hinge.xml", TCH_CONTACT_POINT);
}

static void test_hinge_gripper_holds_a_box_with_volume_contact(void) {
    check_gripper_holds_a_box("gripper_hinge.xml", TCH_CONTACT_VOLUME);
}

static void test_hinge_gripper_holds_a_box_with_pressure_contact(void) {
    check_gripper_holds_a_box_integrated("gripper_hinge.xml", TCH_CONTACT_PRESSURE,
                                         TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
}

/* lcp on links: the pads' rows act on the fingers' joints through A^-1 J^T (TREE sides). */
static void test_slide_gripper_holds_a_box_with_lcp(void) {
    check_gripper_holds_a_box("gripper.xml", TCH_CONTACT_LCP);
}

static void test_hinge_gripper_holds_a_box_with_lcp(void) {
    check_gripper_holds_a_box("gripper_hinge.xml", TCH_CONTACT_LCP);
}

static void check_error_xml(const char* xml, const char* expected_text, int expected_line);

/* connect: a free ball held at its centre to a world point hangs below it by the spring's
 * static sag m g / k = g (tc z)^2 (the effective mass at a body's centre of mass is its mass),
 * at rest, with every contact model's step (the spring is a generalized force). */
static void test_connect_holds_a_ball_with_its_static_sag(void) {
    const char* xml = "<mujoco><option timestep='1e-3' integrator='Euler'/><worldbody>"
                      "<body name='ball' pos='0 0 1'><freejoint/>"
                      "<geom type='sphere' size='0.1' mass='2'/></body></worldbody>"
                      "<equality><connect name='pin' body1='ball' anchor='0 0 0' "
                      "solref='0.02 1'/></equality></mujoco>";
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    for (int i = 0; i < 2000; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
    }
    int ball = tch_model_body_index(m, "ball");
    ENSURE_NEAR(d->body_X_WB[ball].p.z, 1 - 9.81 * 0.02 * 0.02, 1e-7);
    ENSURE(fabs(d->body_X_WB[ball].p.x) < 1e-12 && tch_v3_norm(d->body_v_WCm[ball]) < 1e-6);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* weld: a bar on a hinge welded to a free box keeps the box's pose in its frame as it swings,
 * within the soft constraint's lag (about tc^2 times the swing's accelerations: with tc = 5 ms
 * below 5e-3 rad and 3 mm), and the total energy never grows. */
static void test_weld_carries_a_box_on_a_swinging_bar(void) {
    const char* xml = "<mujoco><option timestep='1e-3' integrator='RK4'/><worldbody>"
                      "<body name='bar' pos='0 0 1'><joint name='hinge' axis='0 1 0'/>"
                      "<geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.02' mass='1' contype='0' "
                      "conaffinity='0'/></body>"
                      "<body name='box' pos='0.5 0 1' euler='0 0 30'><freejoint/>"
                      "<geom type='box' size='0.05 0.05 0.05' mass='0.5' contype='0' conaffinity='0'/>"
                      "</body></worldbody>"
                      "<equality><weld body1='bar' body2='box' solref='0.005 1'/></equality></mujoco>";
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE_MSG(m != NULL, err.message);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    int bar = tch_model_body_index(m, "bar"), box = tch_model_body_index(m, "box");
    tch_transform rel0 = tch_x_mul(tch_x_inverse(d->body_X_WB[bar]), d->body_X_WB[box]);
    double e0 = tch_data_energy(m, d), most = e0, swing = 0;
    for (int i = 0; i < 1500; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        most = fmax(most, tch_data_energy(m, d));
        swing = fmax(swing, fabs(d->qpos[0]));
        tch_transform rel = tch_x_mul(tch_x_inverse(d->body_X_WB[bar]), d->body_X_WB[box]);
        tch_quat turn = tch_q_mul(tch_q_conj(rel0.q), rel.q);
        ENSURE(2 * tch_v3_norm((tch_vec3){turn.x, turn.y, turn.z}) < 5e-3);
        ENSURE(tch_v3_norm(tch_v3_sub(rel.p, rel0.p)) < 3e-3);
    }
    ENSURE(swing > 1); /* it swung */
    ENSURE(most <= e0 + 1e-9 * fabs(e0));
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_other_equalities_are_refused_with_their_line(void) {
    check_error_xml("<mujoco>\n<worldbody><body name='a'><joint name='j'/>"
                    "<geom type='sphere' size='0.1'/></body></worldbody>\n<equality>\n"
                    "<joint joint1='j'/></equality></mujoco>",
                    "not supported yet (expected weld or connect", 4);
    check_error_xml("<mujoco>\n<worldbody><body name='a'><joint name='j'/>"
                    "<geom type='sphere' size='0.1'/></body></worldbody>\n<equality>\n"
                    "<connect body1='b' anchor='0 0 0'/></equality></mujoco>",
                    "no body named 'b'", 4);
}

/* Bad kinematic input: each error names the element and its line. */
static void check_error_xml(const char* xml, const char* expected_text, int expected_line) {
    tch_error err;
    memset(&err, 0, sizeof err);
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE(m == NULL);
    ENSURE_MSG(strstr(err.message, expected_text) != NULL, err.message);
    ENSURE_MSG(err.line == expected_line, err.message);
    tch_model_destroy(m);
}

static void check_error(const char* body, const char* expected_text, int expected_line) {
    char xml[2048];
    snprintf(xml, sizeof xml, "<mujoco>\n<worldbody>\n%s\n</worldbody>\n</mujoco>", body);
    check_error_xml(xml, expected_text, expected_line);
}

static void test_bad_kinematic_input_is_named(void) {
    check_error("<body name='a'><joint name='j' axis='0 0 0'/>"
                "<geom type='sphere' size='0.1'/></body>",
                "axis", 3);
    check_error("<body name='a'><joint name='j' range='10 -10'/>"
                "<geom type='sphere' size='0.1'/></body>",
                "lower limit", 3);
    check_error("<body name='a'>\n<joint name='j'/>\n"
                "<inertial mass='1' diaginertia='0.066 0.086 0.0125'/></body>",
                "triangle inequality", 5);
    check_error("<body name='a'>\n<freejoint/>\n<inertial mass='0' diaginertia='1 1 1'/>\n"
                "<body name='b'><joint name='j'/><geom type='sphere' size='0.1'/></body></body>",
                "no mass", 3);
    check_error("<body name='a'><joint name='j'/><geom type='sphere' size='0.1'/>\n"
                "<body name='b'>\n<joint name='j'/><geom type='sphere' size='0.1'/></body></body>",
                "duplicate joint name", 5);
    check_error("<body name='a'><joint name='j'/>\n<freejoint/><geom type='sphere' size='0.1'/>"
                "</body>",
                "free joint and another joint", 4);
    check_error("<body name='a'><joint name='j' type='ball' range='0.5 0.2'/>"
                "<geom type='sphere' size='0.1'/></body>",
                "lower limit", 3);
}

/* What the articulated step does not take yet answers "not supported yet": the adaptive
 * integrator. */
static void test_unsupported_combinations_are_refused(void) {
    tch_error err;
    tch_model* m = test_compile_xml("<mujoco><option integrator='adaptive'/><worldbody>"
                       "<body><joint/><geom type='sphere' size='0.1'/></body></worldbody></mujoco>",
                       &err);
    ENSURE(m == NULL);
    ENSURE_MSG(strstr(err.message, "not supported yet") != NULL, err.message);
}

int main(void) {
    RUN_TEST(test_puma_mjcf_static_gravity_torques_match_the_reference);
    RUN_TEST(test_puma_tool_site_follows_the_dh_chain);
    RUN_TEST(test_export_round_trip_keeps_the_dynamics);
    RUN_TEST(test_puma_servos_hold_a_pose);
    RUN_TEST(test_puma_urdf_matches_the_mjcf);
    RUN_TEST(test_urdf_errors_and_packages);
    RUN_TEST(test_motor_and_velocity_actuators);
    RUN_TEST(test_passive_chain_keeps_its_energy_under_rk4);
    RUN_TEST(test_physical_pendulum_period_matches_the_closed_form);
    RUN_TEST(test_joint_limit_stops_a_link_without_energy_gain);
    RUN_TEST(test_solreflimit_sets_the_limit_spring);
    RUN_TEST(test_link_rests_on_the_floor_with_point_contact);
    RUN_TEST(test_link_rests_on_the_floor_with_volume_contact);
    RUN_TEST(test_link_rests_on_the_floor_with_pressure_contact);
    RUN_TEST(test_link_rests_on_the_floor_with_lcp);
    RUN_TEST(test_link_rests_on_the_floor_implicitly_with_point_contact);
    RUN_TEST(test_link_rests_on_the_floor_implicitly_with_volume_contact);
    RUN_TEST(test_link_rests_on_the_floor_implicitly_with_pressure_contact);
    RUN_TEST(test_six_joint_link_moves_as_a_free_body_with_point_contact);
    RUN_TEST(test_six_joint_link_moves_as_a_free_body_with_volume_contact);
    RUN_TEST(test_six_joint_link_moves_as_a_free_body_with_pressure_contact);
    RUN_TEST(test_two_arms_with_volume_contact_come_to_rest);
    RUN_TEST(test_joint_limit_row_stops_a_link_without_energy_gain);
    RUN_TEST(test_link_strikes_a_box_without_energy_gain_with_lcp);
    RUN_TEST(test_slide_pad_mobility_is_its_axis_over_its_mass);
    RUN_TEST(test_slide_gripper_holds_a_box_with_point_contact);
    RUN_TEST(test_slide_gripper_holds_a_box_with_volume_contact);
    RUN_TEST(test_slide_gripper_holds_a_box_with_pressure_contact);
    RUN_TEST(test_hinge_gripper_holds_a_box_with_point_contact);
    RUN_TEST(test_hinge_gripper_holds_a_box_with_volume_contact);
    RUN_TEST(test_hinge_gripper_holds_a_box_with_pressure_contact);
    RUN_TEST(test_slide_gripper_holds_a_box_with_lcp);
    RUN_TEST(test_hinge_gripper_holds_a_box_with_lcp);
    RUN_TEST(test_implicit_integrator_takes_joint_damping_implicitly);
    RUN_TEST(test_ball_cone_row_stops_a_pendulum_on_the_cone);
    RUN_TEST(test_joint_friction_row_holds_and_slips_with_lemke);
    RUN_TEST(test_joint_friction_row_holds_and_slips_with_pgs);
    RUN_TEST(test_joint_friction_row_decelerates_a_spinning_link);
    RUN_TEST(test_ball_cone_spring_holds_a_pendulum);
    RUN_TEST(test_lone_free_bodies_keep_the_implicit_contacts);
    RUN_TEST(test_adjacent_links_do_not_collide);
    RUN_TEST(test_bad_kinematic_input_is_named);
    RUN_TEST(test_connect_holds_a_ball_with_its_static_sag);
    RUN_TEST(test_weld_carries_a_box_on_a_swinging_bar);
    RUN_TEST(test_other_equalities_are_refused_with_their_line);
    RUN_TEST(test_unsupported_combinations_are_refused);
    return TEST_RESULT();
}
