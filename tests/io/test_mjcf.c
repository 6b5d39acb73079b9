/* The MJCF loader and writer on inline scenes: every supported element and attribute, default
 * classes, orientations, fromto, keyframes, warnings, located errors and exact round trips. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/spec_internal.h"
#include "test.h"
#include "touche/io.h"

static tch_error last_err;

static tch_spec* load(const char* xml) {
    tch_spec* spec = NULL;
    tch_status status =
        tch_mjcf_load_string(xml, TCH_SOURCE_DIR "/tests/io", "scene.xml", &spec, &last_err);
    if (status != TCH_OK) {
        fprintf(stderr, "load failed: %s:%d: %s\n", last_err.file, last_err.line, last_err.message);
    }
    return spec;
}

/* Loads a scene that must fail; returns the status. */
static tch_status load_fails(const char* xml) {
    tch_spec* spec = (tch_spec*)1;
    tch_status status = tch_mjcf_load_string(xml, ".", "scene.xml", &spec, &last_err);
    if (status == TCH_OK) {
        tch_spec_destroy(spec);
    }
    return spec == NULL ? status : TCH_OK;
}

static bool has_warning(const tch_spec* spec, const char* text) {
    for (int i = 0; i < tch_spec_warning_count(spec); ++i) {
        if (strstr(tch_spec_warning(spec, i), text)) {
            return true;
        }
    }
    return false;
}

static const tch_geom_def* geom(const tch_spec* spec, const char* name) {
    return tch_spec_geom(spec, tch_spec_find_geom(spec, name));
}

static const tch_body_def* body(const tch_spec* spec, const char* name) {
    return tch_spec_body(spec, tch_spec_find_body(spec, name));
}

#define ENSURE_QUAT(q, w_, x_, y_, z_)                                                             \
    do {                                                                                           \
        tch_quat q_ = (q);                                                                         \
        double s_ = q_.w * (w_) + q_.x * (x_) + q_.y * (y_) + q_.z * (z_) < 0 ? -1 : 1;            \
        ENSURE_NEAR(s_* q_.w, w_, 1e-12);                                                          \
        ENSURE_NEAR(s_* q_.x, x_, 1e-12);                                                          \
        ENSURE_NEAR(s_* q_.y, y_, 1e-12);                                                          \
        ENSURE_NEAR(s_* q_.z, z_, 1e-12);                                                          \
    } while (0)

static const double h = 0.70710678118654752440; /* cos 45 deg */

/* A scene with every supported element and attribute; tests below read it. */
static const char* full_scene =
    "<mujoco model=\"full\" xmlns:touche=\"urn:touche\">\n"
    "  <compiler angle=\"degree\" eulerseq=\"xyz\"/>\n"
    "  <option timestep=\"0.001\" gravity=\"0 0 -10\" integrator=\"RK4\" touche:contact=\"point\"\n"
    "          touche:stiffness=\"1e5\" touche:damping=\"50\" touche:law=\"hunt-crossley\"\n"
    "          touche:dissipation=\"0.2\" touche:exponent=\"1.5\" touche:static_friction=\"0.9\"\n"
    "          touche:stiction_velocity=\"0.01\" touche:friction=\"0.7\" "
    "touche:margin=\"0.001\"/>\n"
    "  <default>\n"
    "    <geom density=\"500\" friction=\"0.6 0.005 0.0001\" touche:stiffness=\"2000\"/>\n"
    "    <default class=\"rubber\">\n"
    "      <geom touche:damping=\"3\" contype=\"2\" conaffinity=\"3\" margin=\"0.01\"/>\n"
    "      <default class=\"soft\">\n"
    "        <geom touche:contact=\"volume\" type=\"box\" size=\"0.1 0.2 0.3\"/>\n"
    "      </default>\n"
    "    </default>\n"
    "    <default class=\"heavy\">\n"
    "      <geom mass=\"5\"/>\n"
    "    </default>\n"
    "  </default>\n"
    "  <asset>\n"
    "    <mesh name=\"tet\" vertex=\"0 0 0  1 0 0  0 1 0  0 0 1\" scale=\"2 2 2\"/>\n"
    "  </asset>\n"
    "  <worldbody>\n"
    "    <geom name=\"floor\" type=\"plane\" size=\"0 0 1\" rgba=\"1 0 0 1\"/>\n"
    "    <body name=\"a\" pos=\"1 2 3\" euler=\"90 0 0\" childclass=\"rubber\">\n"
    "      <freejoint/>\n"
    "      <inertial pos=\"0.1 0 0\" quat=\"0 1 0 0\" mass=\"2\" diaginertia=\"0.1 0.2 0.25\"/>\n"
    "      <geom name=\"ball\" type=\"sphere\" size=\"0.5\" pos=\"0 0 0.1\"/>\n"
    "      <body name=\"a_child\" axisangle=\"0 0 1 90\">\n"
    "        <geom name=\"soft_box\" class=\"soft\"/>\n"
    "      </body>\n"
    "      <geom name=\"rod\" type=\"capsule\" size=\"0.05\" fromto=\"0 0 0 2 0 0\"/>\n"
    "    </body>\n"
    "    <body name=\"b\" pos=\"0 0 5\" xyaxes=\"0 1 0 -1 0 0\">\n"
    "      <joint type=\"free\"/>\n"
    "      <inertial mass=\"1\" fullinertia=\"2 2 3 0.1 0 0\"/>\n"
    "      <geom name=\"hull\" type=\"mesh\" mesh=\"tet\" class=\"heavy\"/>\n"
    "      <geom name=\"can\" type=\"cylinder\" size=\"0.1\" fromto=\"0 0 0 0 0 -1\"\n"
    "            touche:contact=\"lcp\" touche:law=\"linear\" touche:exponent=\"2\"/>\n"
    "      <geom name=\"egg\" type=\"ellipsoid\" size=\"0.1 0.2 0.3\" zaxis=\"1 0 0\"/>\n"
    "      <geom name=\"slab\" type=\"box\" size=\"0.1 0.2\" fromto=\"0 0 0 0 3 0\"/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <contact>\n"
    "    <pair geom1=\"ball\" geom2=\"floor\" friction=\"0.4 0.4 0.001 0 0\" margin=\"0.002\"\n"
    "          touche:contact=\"peg\" touche:stiffness=\"1e6\"/>\n"
    "  </contact>\n"
    "  <keyframe>\n"
    "    <key name=\"drop\" time=\"0.5\" qpos=\"0 0 1 1 0 0 0  0 0 2 0 0 0 1\"\n"
    "         qvel=\"1 0 0 0 0 0  0 0 0 0 0 1\"/>\n"
    "    <key time=\"1\"/>\n"
    "  </keyframe>\n"
    "</mujoco>\n";

static void test_full_scene_option(void) {
    tch_spec* spec = load(full_scene);
    ENSURE(spec != NULL);
    const tch_option_def* o = tch_spec_option(spec);
    ENSURE(o->timestep == 0.001 && o->gravity.z == -10 && o->integrator == TCH_INTEGRATOR_RK4);
    ENSURE(o->contact.model == TCH_CONTACT_POINT && o->contact.law == TCH_POINT_LAW_HUNT_CROSSLEY);
    ENSURE(o->contact.stiffness == 1e5 && o->contact.damping == 50);
    ENSURE(o->contact.dissipation == 0.2 && o->contact.exponent == 1.5);
    ENSURE(o->contact.static_friction == 0.9 && o->contact.stiction_velocity == 0.01);
    ENSURE(o->contact.friction == 0.7 && o->contact.margin == 0.001);
    ENSURE(strcmp(tch_spec_model_name(spec), "full") == 0);
    ENSURE(tch_spec_warning_count(spec) == 0);
    tch_spec_destroy(spec);
}

static void test_full_scene_bodies(void) {
    tch_spec* spec = load(full_scene);
    ENSURE(spec != NULL);
    ENSURE(tch_spec_body_count(spec) == 3);
    const tch_body_def* a = body(spec, "a");
    ENSURE(tch_spec_find_body(spec, "a").index == 1 &&
           tch_spec_find_body(spec, "a_child").index == 2);
    ENSURE(a->free_joint && a->has_inertial && !a->has_full_inertia && a->mass == 2);
    ENSURE(a->p_PB.x == 1 && a->p_PB.y == 2 && a->p_PB.z == 3 && a->source.line == 24);
    ENSURE_QUAT(a->q_PB, h, h, 0, 0); /* 90 degrees about x */
    ENSURE(a->p_BCm.x == 0.1 && a->q_BI.x == 1 && a->inertia_diag.z == 0.25);
    const tch_body_def* child = body(spec, "a_child");
    ENSURE(child->parent.index == 1 && !child->free_joint && !child->has_inertial);
    ENSURE_QUAT(child->q_PB, h, 0, 0, h);
    const tch_body_def* b = body(spec, "b");
    ENSURE(b->free_joint && b->has_full_inertia && b->inertia_full[2] == 3);
    ENSURE(b->inertia_full[3] == 0.1);
    ENSURE_QUAT(b->q_PB, h, 0, 0, h); /* x axis along world y: 90 degrees about z */
    tch_spec_destroy(spec);
}

static void test_full_scene_geoms_and_defaults(void) {
    tch_spec* spec = load(full_scene);
    ENSURE(spec != NULL);
    ENSURE(tch_spec_geom_count(spec) == 8);
    /* world geoms first, then body by body in body order (MuJoCo's numbering) */
    ENSURE(tch_spec_find_geom(spec, "floor").index == 1 &&
           tch_spec_find_geom(spec, "ball").index == 2);
    ENSURE(tch_spec_find_geom(spec, "rod").index == 3 &&
           tch_spec_find_geom(spec, "soft_box").index == 4);
    const tch_geom_def* floor = geom(spec, "floor");
    ENSURE(floor->type == TCH_GEOM_PLANE && floor->density == 500 &&
           floor->contact.friction == 0.6);
    ENSURE(floor->contact.stiffness == 2000 && isnan(floor->contact.damping));
    const tch_geom_def* ball = geom(spec, "ball");
    ENSURE(ball->type == TCH_GEOM_SPHERE && ball->size[0] == 0.5 && ball->p_BG.z == 0.1);
    ENSURE(ball->contact.damping == 3 && ball->contype == 2 &&
           ball->conaffinity == 3); /* childclass */
    ENSURE(ball->contact.margin == 0.01 && ball->contact.stiffness == 2000 && isnan(ball->mass));
    ENSURE(tch_spec_geom_body(spec, tch_spec_find_geom(spec, "ball")).index == 1);
    const tch_geom_def* soft = geom(spec, "soft_box");
    ENSURE(soft->type == TCH_GEOM_BOX && soft->size[2] == 0.3 &&
           soft->contact.model == TCH_CONTACT_VOLUME);
    ENSURE(soft->contact.damping == 3 && soft->density == 500);
    const tch_geom_def* hull = geom(spec, "hull");
    ENSURE(hull->type == TCH_GEOM_MESH && hull->mesh.index == 1 && hull->mass == 5);
    ENSURE(isnan(hull->contact.damping) && hull->contype == 1); /* class heavy: not rubber */
    const tch_geom_def* can = geom(spec, "can");
    ENSURE(can->contact.model == TCH_CONTACT_LCP && can->contact.law == TCH_POINT_LAW_LINEAR);
    ENSURE(can->contact.exponent == 2);
    const tch_mesh_def* tet = tch_spec_mesh(spec, (tch_mesh_id){1});
    ENSURE(tet->vertex_count == 4 && tet->vertices[3].z == 1 && tet->scale.y == 2);
    ENSURE(strcmp(tet->name, "tet") == 0 && tet->file[0] == '\0');
    tch_spec_destroy(spec);
}

static void test_fromto_and_axes(void) {
    tch_spec* spec = load(full_scene);
    ENSURE(spec != NULL);
    const tch_geom_def* rod = geom(spec, "rod"); /* along +x: z turned onto x, 90 deg about y */
    ENSURE_NEAR(rod->p_BG.x, 1, 1e-15);
    ENSURE_NEAR(rod->size[1], 1, 1e-15);
    ENSURE(rod->size[0] == 0.05);
    ENSURE_QUAT(rod->q_BG, h, 0, h, 0);
    const tch_geom_def* can = geom(spec, "can"); /* along -z: a half turn about x */
    ENSURE_NEAR(can->p_BG.z, -0.5, 1e-15);
    ENSURE_NEAR(can->size[1], 0.5, 1e-15);
    ENSURE_QUAT(can->q_BG, 0, 1, 0, 0);
    const tch_geom_def* slab = geom(spec, "slab"); /* along +y: -90 deg about x */
    ENSURE_NEAR(slab->size[2], 1.5, 1e-15);
    ENSURE(slab->size[0] == 0.1 && slab->size[1] == 0.2);
    ENSURE_NEAR(slab->p_BG.y, 1.5, 1e-15);
    ENSURE_QUAT(slab->q_BG, h, -h, 0, 0);
    const tch_geom_def* egg = geom(spec, "egg"); /* zaxis 1 0 0 */
    ENSURE_QUAT(egg->q_BG, h, 0, h, 0);
    tch_spec_destroy(spec);
}

static void test_pairs_and_keys(void) {
    tch_spec* spec = load(full_scene);
    ENSURE(spec != NULL);
    ENSURE(tch_spec_pair_count(spec) == 1);
    const tch_pair_def* p = tch_spec_pair(spec, 1);
    ENSURE(p->geom_a.index == tch_spec_find_geom(spec, "ball").index);
    ENSURE(p->geom_b.index == tch_spec_find_geom(spec, "floor").index);
    ENSURE(p->contact.friction == 0.4 && p->contact.margin == 0.002);
    ENSURE(p->contact.model == TCH_CONTACT_PEG && p->contact.stiffness == 1e6);
    ENSURE(tch_spec_key_count(spec) == 2);
    const tch_key_def* k = tch_spec_key(spec, 1);
    ENSURE(strcmp(k->name, "drop") == 0 && k->time == 0.5);
    ENSURE(k->qpos_count == 14 && k->qpos[9] == 2 && k->qvel_count == 12 && k->qvel[11] == 1);
    const tch_key_def* k2 = tch_spec_key(spec, 2);
    ENSURE(k2->qpos == NULL && k2->qvel == NULL && k2->time == 1);
    tch_spec_destroy(spec);
}

static tch_quat euler_quat(const char* compiler, const char* euler) {
    char xml[512];
    snprintf(xml, sizeof xml,
             "<mujoco>%s<worldbody><body name=\"b\" euler=\"%s\"/></worldbody></mujoco>", compiler,
             euler);
    tch_spec* spec = load(xml);
    tch_quat q = spec ? body(spec, "b")->q_PB : (tch_quat){NAN, NAN, NAN, NAN};
    tch_spec_destroy(spec);
    return q;
}

static void test_euler_degrees_radians_and_sequences(void) {
    ENSURE_QUAT(euler_quat("", "0 0 90"), h, 0, 0, h);
    ENSURE_QUAT(euler_quat("<compiler angle=\"radian\"/>", "0 0 1.5707963267948966"), h, 0, 0, h);
    /* intrinsic xyz, 90 about x then 90 about the new y: q = qx qy */
    ENSURE_QUAT(euler_quat("", "90 90 0"), 0.5, 0.5, 0.5, 0.5);
    /* extrinsic XYZ, 90 about x then 90 about the fixed Y: q = qy qx */
    ENSURE_QUAT(euler_quat("<compiler eulerseq=\"XYZ\"/>", "90 90 0"), 0.5, 0.5, 0.5, -0.5);
    ENSURE_QUAT(euler_quat("<compiler eulerseq=\"zyx\"/>", "90 0 0"), h, 0, 0, h);
}

static void test_axisangle_and_quat(void) {
    tch_spec* spec = load("<mujoco><compiler angle=\"radian\"/><worldbody>"
                          "<body name=\"b\" axisangle=\"0 2 0 3.141592653589793\"/>"
                          "<body name=\"c\" quat=\"2 0 0 0\"/></worldbody></mujoco>");
    ENSURE(spec != NULL);
    ENSURE_QUAT(body(spec, "b")->q_PB, 0, 0, 1, 0); /* axis normalized */
    ENSURE(body(spec, "c")->q_PB.w == 2);           /* stored as given, normalized on compile */
    tch_spec_destroy(spec);
}

static void test_unnamed_default_is_main_and_nested_inherit(void) {
    tch_spec* spec = load("<mujoco><default><geom size=\"0.3\"/>"
                          "<default class=\"big\"><geom size=\"1 2 3\"/>"
                          "<default class=\"bigger\"><geom type=\"box\"/></default></default>"
                          "</default><worldbody>"
                          "<geom name=\"g1\"/><geom name=\"g2\" class=\"bigger\"/>"
                          "<body childclass=\"big\"><geom name=\"g3\" type=\"capsule\"/>"
                          "<body><geom name=\"g4\" class=\"main\"/></body></body>"
                          "</worldbody></mujoco>");
    ENSURE(spec != NULL);
    ENSURE(geom(spec, "g1")->type == TCH_GEOM_SPHERE && geom(spec, "g1")->size[0] == 0.3);
    ENSURE(geom(spec, "g2")->type == TCH_GEOM_BOX && geom(spec, "g2")->size[2] == 3);
    ENSURE(geom(spec, "g3")->type == TCH_GEOM_CAPSULE && geom(spec, "g3")->size[1] == 2);
    ENSURE(geom(spec, "g4")->size[0] == 0.3 && geom(spec, "g4")->size[1] == 0);
    tch_spec_destroy(spec);
}

static void test_mesh_attribute_implies_mesh_type(void) {
    tch_spec* spec = load("<mujoco><asset><mesh name=\"m\" vertex=\"0 0 0 1 0 0 0 1 0 0 0 1\"/>"
                          "</asset><worldbody><geom name=\"g\" mesh=\"m\"/></worldbody></mujoco>");
    ENSURE(spec != NULL);
    ENSURE(geom(spec, "g")->type == TCH_GEOM_MESH && geom(spec, "g")->mesh.index == 1);
    tch_spec_destroy(spec);
}

static void test_warnings_for_ignored_input(void) {
    tch_spec* spec = load("<mujoco xmlns:touche=\"urn:touche\">\n"
                          "<visual/>\n<size njmax=\"10\"/>\n"
                          "<worldbody>\n"
                          "<site name=\"s1\"/>\n<site name=\"s2\"/>\n"
                          "<geom size=\"1\" condim=\"3\" touche:bogus=\"1\"/>\n"
                          "<geom size=\"1\" condim=\"3\"/>\n"
                          "<gizmo/>\n"
                          "<body><geom size=\"1\" touche:static_friction=\"1\"/>"
                          "<site/><camera/></body>\n"
                          "</worldbody>\n"
                          "<contact><exclude body1=\"a\" body2=\"b\"/></contact>\n"
                          "</mujoco>");
    ENSURE(spec != NULL);
    ENSURE(has_warning(spec, "scene.xml:2: <visual> in <mujoco> is ignored"));
    ENSURE(has_warning(spec, "scene.xml:3: <size>"));
    ENSURE(tch_spec_site_count(spec) == 3); /* sites are named frames now */
    ENSURE(has_warning(spec, "scene.xml:7: attribute 'condim' of <geom> is ignored"));
    ENSURE(has_warning(spec, "scene.xml:7: unknown attribute touche:bogus"));
    ENSURE(has_warning(spec, "scene.xml:9: unknown element <gizmo>"));
    ENSURE(has_warning(spec, "scene.xml:10: <camera> in <body>"));
    ENSURE(has_warning(spec, "scene.xml:12: <exclude> is not supported yet"));
    /* once each: visual, size, condim, bogus, gizmo, camera, exclude */
    ENSURE(tch_spec_warning_count(spec) == 7);
    tch_spec_destroy(spec);
}

static void test_error_has_file_line_and_element(void) {
    ENSURE(load_fails("<mujoco>\n<worldbody>\n\n<geom type=\"sphere\" size=\"-1\"/>\n"
                      "</worldbody>\n</mujoco>") == TCH_ERR_PARSE);
    ENSURE(strcmp(last_err.file, "scene.xml") == 0 && last_err.line == 4);
    ENSURE(strcmp(last_err.element, "geom") == 0);
    ENSURE(strcmp(last_err.message,
                  "<geom> size: expected 1 positive number (radius) for a sphere, got \"-1\"") ==
           0);
}

typedef struct bad_case {
    const char* xml;
    tch_status status;
    int line;
    const char* element;
    const char* text; /* in the message */
} bad_case;

static const bad_case bad_cases[] = {
    {"<mujoco>\n<worldbody>\n<body>\n</worldbody>\n</mujoco>", TCH_ERR_PARSE, 4, "",
     "malformed XML"},
    {"<robot/>", TCH_ERR_PARSE, 1, "robot", "expected <mujoco>"},
    {"<mujoco>\n<option timestep=\"0\"/></mujoco>", TCH_ERR_PARSE, 2, "option", "timestep"},
    {"<mujoco>\n<option timestep=\"abc\"/></mujoco>", TCH_ERR_PARSE, 2, "option", "\"abc\""},
    {"<mujoco>\n<option gravity=\"0 0\"/></mujoco>", TCH_ERR_PARSE, 2, "option", "3 numbers"},
    {"<mujoco>\n<option integrator=\"implicitfast\"/></mujoco>", TCH_ERR_UNSUPPORTED, 2, "option",
     "not supported yet"},
    {"<mujoco>\n<option integrator=\"leapfrog\"/></mujoco>", TCH_ERR_PARSE, 2, "option",
     "expected Euler, RK4, implicit or adaptive"},
    {"<mujoco>\n<option touche:contact=\"point\"/></mujoco>", TCH_ERR_PARSE, 2, "option",
     "undeclared prefix 'touche'"},
    {"<mujoco xmlns:touche=\"urn:touche\">\n<option touche:contact=\"springs\"/></mujoco>",
     TCH_ERR_PARSE, 2, "option", "one of point, volume, pressure, lcp, peg"},
    {"<mujoco xmlns:touche=\"urn:touche\">\n<option touche:stiffness=\"-1\"/></mujoco>",
     TCH_ERR_PARSE, 2, "option", "touche:stiffness: expected a number > 0"},
    {"<mujoco>\n<compiler angle=\"grad\"/></mujoco>", TCH_ERR_PARSE, 2, "compiler", "angle"},
    {"<mujoco>\n<compiler eulerseq=\"xyw\"/></mujoco>", TCH_ERR_PARSE, 2, "compiler", "eulerseq"},
    {"<mujoco>\n<worldbody><geom size=\"nan\"/></worldbody></mujoco>", TCH_ERR_PARSE, 2, "geom",
     "NaN"},
    {"<mujoco>\n<worldbody><geom size=\"1 1 1 1\"/></worldbody></mujoco>", TCH_ERR_PARSE, 2, "geom",
     "1 to 3 numbers"},
    {"<mujoco>\n<worldbody><geom type=\"box\" size=\"1 1\"/></worldbody></mujoco>", TCH_ERR_PARSE,
     2, "geom", "3 positive numbers (half-sizes) for a box"},
    {"<mujoco>\n<worldbody><geom type=\"cube\" size=\"1\"/></worldbody></mujoco>", TCH_ERR_PARSE, 2,
     "geom", "one of plane, sphere"},
    {"<mujoco>\n<worldbody><geom type=\"hfield\"/></worldbody></mujoco>", TCH_ERR_UNSUPPORTED, 2,
     "geom", "hfield"},
    {"<mujoco>\n<worldbody><geom type=\"mesh\" mesh=\"m\"/></worldbody></mujoco>", TCH_ERR_PARSE, 2,
     "geom", "no mesh asset named 'm'"},
    {"<mujoco>\n<worldbody><geom size=\"1\" class=\"x\"/></worldbody></mujoco>", TCH_ERR_PARSE, 2,
     "geom", "no default class named 'x'"},
    {"<mujoco>\n<worldbody><body childclass=\"x\"/></worldbody></mujoco>", TCH_ERR_PARSE, 2, "body",
     "childclass"},
    {"<mujoco>\n<worldbody><geom size=\"1\" mass=\"-1\"/></worldbody></mujoco>", TCH_ERR_PARSE, 2,
     "geom", "mass: expected a number >= 0"},
    {"<mujoco>\n<worldbody><geom size=\"1\" quat=\"0 0 0 0\"/></worldbody></mujoco>", TCH_ERR_PARSE,
     2, "geom", "quat"},
    {"<mujoco>\n<worldbody><geom size=\"1\" quat=\"1 0 0 0\" euler=\"0 0 0\"/></worldbody>"
     "</mujoco>",
     TCH_ERR_PARSE, 2, "geom", "at most one orientation"},
    {"<mujoco>\n<worldbody><geom type=\"capsule\" size=\"1\" fromto=\"1 1 1 1 1 1\"/></worldbody>"
     "</mujoco>",
     TCH_ERR_PARSE, 2, "geom", "two distinct points"},
    {"<mujoco>\n<worldbody><geom type=\"sphere\" size=\"1\" fromto=\"0 0 0 1 1 1\"/></worldbody>"
     "</mujoco>",
     TCH_ERR_PARSE, 2, "geom", "fromto: not allowed for a sphere"},
    {"<mujoco>\n<worldbody><geom size=\"1\" contype=\"-1\"/></worldbody></mujoco>", TCH_ERR_PARSE,
     2, "geom", "contype"},
    {"<mujoco>\n<worldbody><geom name=\"a\" size=\"1\"/>\n<geom name=\"a\" size=\"1\"/>"
     "</worldbody></mujoco>",
     TCH_ERR_INVALID_ARGUMENT, 3, "geom", "duplicate geom name 'a'"},
    {"<mujoco>\n<worldbody><body><inertial mass=\"-1\" diaginertia=\"1 1 1\"/></body></worldbody>"
     "</mujoco>",
     TCH_ERR_PARSE, 2, "inertial", "mass"},
    {"<mujoco>\n<worldbody><body><inertial mass=\"1\" diaginertia=\"1 1 3\"/></body></worldbody>"
     "</mujoco>",
     TCH_ERR_PARSE, 2, "inertial", "triangle inequality"},
    {"<mujoco>\n<worldbody><body><inertial mass=\"1\" fullinertia=\"1 1 1 2 0 0\"/></body>"
     "</worldbody></mujoco>",
     TCH_ERR_PARSE, 2, "inertial", "positive definite"},
    {"<mujoco>\n<worldbody><body><inertial mass=\"1\"/></body></worldbody></mujoco>", TCH_ERR_PARSE,
     2, "inertial", "neither"},
    {"<mujoco>\n<worldbody><body><joint type=\"hinge\" axis=\"0 0 0\"/></body></worldbody>"
     "</mujoco>",
     TCH_ERR_PARSE, 2, "joint", "axis: expected a non-zero vector"},
    {"<mujoco>\n<worldbody><body><joint range=\"1 0\"/></body></worldbody></mujoco>",
     TCH_ERR_PARSE, 2, "joint", "lower limit 1 is above upper limit 0"},
    {"<mujoco>\n<worldbody><body><joint range=\"-1 1\" solreflimit=\"-1000 -10\"/></body>"
     "</worldbody></mujoco>",
     TCH_ERR_PARSE, 2, "joint", "solreflimit: expected a positive time constant and damping"},
    {"<mujoco>\n<worldbody><body><freejoint/><body>\n<freejoint/></body></body></worldbody>"
     "</mujoco>",
     TCH_ERR_PARSE, 3, "freejoint", "only in a child of <worldbody>"},
    {"<mujoco>\n<worldbody><freejoint/></worldbody></mujoco>", TCH_ERR_PARSE, 2, "freejoint",
     "not allowed in <worldbody>"},
    {"<mujoco>\n<contact><pair geom1=\"a\" geom2=\"b\"/></contact></mujoco>", TCH_ERR_PARSE, 2,
     "pair", "no geom named 'a'"},
    {"<mujoco><worldbody><geom name=\"a\" size=\"1\"/></worldbody>\n<contact>"
     "<pair geom1=\"a\" geom2=\"a\"/></contact></mujoco>",
     TCH_ERR_INVALID_ARGUMENT, 2, "pair", "same geom"},
    {"<mujoco><worldbody><body><freejoint/></body></worldbody>\n<keyframe>"
     "<key qpos=\"0 0 0 1 0 0\"/></keyframe></mujoco>",
     TCH_ERR_PARSE, 2, "key", "expected 7 numbers"},
    {"<mujoco><worldbody><body><freejoint/></body></worldbody>\n<keyframe>"
     "<key qvel=\"0 0 0\"/></keyframe></mujoco>",
     TCH_ERR_PARSE, 2, "key", "expected 6 numbers"},
    {"<mujoco><worldbody><body><freejoint/></body></worldbody>\n<keyframe>"
     "<key qpos=\"0 0 0 0 0 0 0\"/></keyframe></mujoco>",
     TCH_ERR_PARSE, 2, "key", "quaternion"},
    {"<mujoco>\n<default><default/></default></mujoco>", TCH_ERR_PARSE, 2, "default",
     "needs a class name"},
    {"<mujoco><default>\n<default class=\"a\"/><default class=\"a\"/></default></mujoco>",
     TCH_ERR_PARSE, 2, "default", "duplicate default class 'a'"},
    {"<mujoco><asset>\n<mesh name=\"m\" vertex=\"0 0 0 1\"/></asset></mujoco>", TCH_ERR_PARSE, 2,
     "mesh", "multiple of 3"},
    {"<mujoco><asset>\n<mesh name=\"m\"/></asset></mujoco>", TCH_ERR_PARSE, 2, "mesh",
     "exactly one of file and vertex"},
    {"<mujoco><asset>\n<mesh file=\"no_such_mesh.stl\"/></asset></mujoco>", TCH_ERR_IO, 2, "mesh",
     "no_such_mesh.stl"},
    {"<mujoco><asset>\n<mesh name=\"m\" vertex=\"0 0 0 1 0 0 0 1 0 0 0 1\" scale=\"1 0 1\"/>"
     "</asset></mujoco>",
     TCH_ERR_PARSE, 2, "mesh", "scale"},
    {"<mujoco>\n<include file=\"other.xml\"/></mujoco>", TCH_ERR_UNSUPPORTED, 2, "include",
     "not supported yet"},
    {"<mujoco>\n<worldbody><body name=\"0123456789012345678901234567890123456789012345678901234"
     "567890123456789\"/></worldbody></mujoco>",
     TCH_ERR_PARSE, 2, "body", "at most 63 characters"},
};

static void test_bad_inputs_fail_with_location(void) {
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; ++i) {
        const bad_case* c = &bad_cases[i];
        tch_status status = load_fails(c->xml);
        if (status != c->status || last_err.line != c->line ||
            strcmp(last_err.element, c->element) || !strstr(last_err.message, c->text) ||
            strcmp(last_err.file, "scene.xml")) {
            fprintf(stderr, "case %zu: status %d line %d element '%s' message '%s'\n", i,
                    (int)status, last_err.line, last_err.element, last_err.message);
        }
        ENSURE(status == c->status);
        ENSURE(last_err.status == c->status);
        ENSURE(last_err.line == c->line);
        ENSURE(strcmp(last_err.element, c->element) == 0);
        ENSURE(strstr(last_err.message, c->text) != NULL);
        ENSURE(strcmp(last_err.file, "scene.xml") == 0);
    }
}

/* Bytes written to the standard error stream while loading xml (the library never prints). */
static long stderr_bytes_during_load(const char* xml) {
    fflush(stderr);
    FILE* capture = tmpfile();
    int saved = dup(2);
    if (!capture || saved < 0) {
        return -1;
    }
    dup2(fileno(capture), 2);
    load_fails(xml);
    fflush(stderr);
    long written = (long)lseek(2, 0, SEEK_END);
    dup2(saved, 2);
    close(saved);
    fclose(capture);
    return written;
}

static void test_malformed_input_is_never_printed(void) {
    /* an encoding error is raised by libxml2 without a parser context */
    const char* bad_encoding = "<?xml version=\"1.0\" encoding=\"EUC-JP\"?>\n"
                               "<mujoco>\xff\xfe\xfd</mujoco>";
    ENSURE(stderr_bytes_during_load(bad_encoding) == 0);
    ENSURE(last_err.status == TCH_ERR_PARSE && last_err.line >= 1);
    ENSURE(strstr(last_err.message, "malformed XML") != NULL);
    ENSURE(stderr_bytes_during_load("<mujoco><a></b></mujoco>") == 0);
    ENSURE(stderr_bytes_during_load("<mujoco><worldbody><gizmo/></worldbody></mujoco>") == 0);
}

static void test_missing_scene_file_is_io_error(void) {
    tch_spec* spec = (tch_spec*)1;
    ENSURE(tch_mjcf_load("/nonexistent/scene.xml", &spec, &last_err) == TCH_ERR_IO);
    ENSURE(spec == NULL && strcmp(last_err.file, "/nonexistent/scene.xml") == 0);
    ENSURE(tch_mjcf_load("/nonexistent/scene.xml", &spec, NULL) == TCH_ERR_IO);
}

/* ---- round trips ---- */

static bool same_real(tch_real a, tch_real b) {
    return a == b || (isnan(a) && isnan(b));
}

static bool same_reals(const tch_real* a, const tch_real* b, int n) {
    for (int i = 0; i < n; ++i) {
        if (!same_real(a[i], b[i])) {
            return false;
        }
    }
    return true;
}

#define SAME_VEC(a, b)                                                                             \
    (same_real((a).x, (b).x) && same_real((a).y, (b).y) && same_real((a).z, (b).z))
#define SAME_QUAT(a, b)                                                                            \
    (same_real((a).w, (b).w) && same_real((a).x, (b).x) && same_real((a).y, (b).y) &&              \
     same_real((a).z, (b).z))

static bool same_contact(const tch_contact_params* a, const tch_contact_params* b) {
    return a->model == b->model && a->law == b->law && same_real(a->stiffness, b->stiffness) &&
           same_real(a->damping, b->damping) && same_real(a->dissipation, b->dissipation) &&
           same_real(a->exponent, b->exponent) && same_real(a->friction, b->friction) &&
           same_real(a->static_friction, b->static_friction) &&
           same_real(a->stiction_velocity, b->stiction_velocity) && same_real(a->margin, b->margin);
}

static bool same_body(const tch_body_def* a, const tch_body_def* b) {
    return strcmp(a->name, b->name) == 0 && a->parent.index == b->parent.index &&
           SAME_VEC(a->p_PB, b->p_PB) && SAME_QUAT(a->q_PB, b->q_PB) &&
           a->free_joint == b->free_joint && a->has_inertial == b->has_inertial &&
           same_real(a->mass, b->mass) && SAME_VEC(a->p_BCm, b->p_BCm) &&
           SAME_QUAT(a->q_BI, b->q_BI) && SAME_VEC(a->inertia_diag, b->inertia_diag) &&
           a->has_full_inertia == b->has_full_inertia &&
           same_reals(a->inertia_full, b->inertia_full, 6) && a->cookie == b->cookie;
}

static bool same_geom(const tch_geom_def* a, const tch_geom_def* b, bool with_touche) {
    tch_contact_params ca = a->contact, cb = b->contact;
    if (!with_touche) { /* MuJoCo keeps friction and margin only */
        tch_real mu = ca.friction, margin = ca.margin;
        ca = tch_contact_params_unset();
        ca.friction = mu;
        ca.margin = margin;
    }
    return strcmp(a->name, b->name) == 0 && a->type == b->type && same_reals(a->size, b->size, 3) &&
           SAME_VEC(a->p_BG, b->p_BG) && SAME_QUAT(a->q_BG, b->q_BG) &&
           a->mesh.index == b->mesh.index && same_real(a->mass, b->mass) &&
           same_real(a->density, b->density) && a->contype == b->contype &&
           a->conaffinity == b->conaffinity && same_contact(&ca, &cb) && a->cookie == b->cookie;
}

static bool same_mesh(const tch_mesh_def* a, const tch_mesh_def* b) {
    if (strcmp(a->name, b->name) || strcmp(a->file, b->file) ||
        a->vertex_count != b->vertex_count || !(SAME_VEC(a->scale, b->scale))) {
        return false;
    }
    for (int i = 0; i < a->vertex_count; ++i) {
        if (!(SAME_VEC(a->vertices[i], b->vertices[i]))) {
            return false;
        }
    }
    return true;
}

static bool same_joint(const tch_joint_def* a, const tch_joint_def* b) {
    return strcmp(a->name, b->name) == 0 && a->type == b->type && SAME_VEC(a->pos, b->pos) &&
           SAME_VEC(a->axis, b->axis) && a->limited == b->limited &&
           (!a->limited || (same_reals(a->range, b->range, 2) &&
                            same_reals(a->solreflimit, b->solreflimit, 2))) &&
           same_real(a->ref, b->ref) &&
           same_real(a->springref, b->springref) && same_real(a->stiffness, b->stiffness) &&
           same_real(a->damping, b->damping) && same_real(a->armature, b->armature) &&
           same_real(a->frictionloss, b->frictionloss);
}

static bool same_actuator(const tch_actuator_def* a, const tch_actuator_def* b) {
    return strcmp(a->name, b->name) == 0 && a->type == b->type && a->joint == b->joint &&
           same_real(a->gear, b->gear) && a->ctrl_limited == b->ctrl_limited &&
           (!a->ctrl_limited || same_reals(a->ctrl_range, b->ctrl_range, 2)) &&
           (a->type != TCH_ACTUATOR_POSITION || same_real(a->kp, b->kp)) &&
           (a->type != TCH_ACTUATOR_VELOCITY || same_real(a->kv, b->kv));
}

/* Joints, sites and actuators, element by element. */
static bool same_articulation(const tch_spec* a, const tch_spec* b) {
    if (tch_spec_joint_count(a) != tch_spec_joint_count(b) ||
        tch_spec_site_count(a) != tch_spec_site_count(b) ||
        tch_spec_actuator_count(a) != tch_spec_actuator_count(b)) {
        fprintf(stderr, "joint, site or actuator counts differ\n");
        return false;
    }
    for (int i = 1; i <= tch_spec_joint_count(a); ++i) {
        if (!same_joint(tch_spec_joint(a, i), tch_spec_joint(b, i)) ||
            tch_spec_joint_body(a, i).index != tch_spec_joint_body(b, i).index) {
            fprintf(stderr, "joint %d differs\n", i);
            return false;
        }
    }
    for (int i = 1; i <= tch_spec_site_count(a); ++i) {
        const tch_site_def *x = tch_spec_site(a, i), *y = tch_spec_site(b, i);
        if (strcmp(x->name, y->name) != 0 || !SAME_VEC(x->p_BS, y->p_BS) ||
            tch_spec_site_body(a, i).index != tch_spec_site_body(b, i).index) {
            fprintf(stderr, "site %d differs\n", i);
            return false;
        }
    }
    for (int i = 1; i <= tch_spec_actuator_count(a); ++i) {
        if (!same_actuator(tch_spec_actuator(a, i), tch_spec_actuator(b, i))) {
            fprintf(stderr, "actuator %d differs\n", i);
            return false;
        }
    }
    return true;
}

static bool same_key(const tch_key_def* a, const tch_key_def* b) {
    return strcmp(a->name, b->name) == 0 && same_real(a->time, b->time) &&
           a->qpos_count == b->qpos_count && a->qvel_count == b->qvel_count &&
           (a->qpos == NULL) == (b->qpos == NULL) && (a->qvel == NULL) == (b->qvel == NULL) &&
           same_reals(a->qpos, b->qpos, a->qpos_count) &&
           same_reals(a->qvel, b->qvel, a->qvel_count) && a->ctrl_count == b->ctrl_count &&
           same_reals(a->ctrl, b->ctrl, a->ctrl_count);
}

static bool same_pair(const tch_pair_def* a, const tch_pair_def* b, bool with_touche) {
    tch_contact_params ca = a->contact;
    if (!with_touche) {
        tch_real mu = ca.friction, margin = ca.margin;
        ca = tch_contact_params_unset();
        ca.friction = mu;
        ca.margin = margin;
    }
    return a->geom_a.index == b->geom_a.index && a->geom_b.index == b->geom_b.index &&
           same_contact(&ca, &b->contact);
}

static bool same_option(const tch_option_def* a, const tch_option_def* b, bool with_touche) {
    bool base = same_real(a->timestep, b->timestep) && SAME_VEC(a->gravity, b->gravity) &&
                a->integrator == b->integrator;
    return base && (!with_touche || same_contact(&a->contact, &b->contact));
}

/* Every field of every element, except source locations. */
static bool same_spec(const tch_spec* a, const tch_spec* b, bool with_touche) {
    if (tch_spec_body_count(a) != tch_spec_body_count(b) ||
        tch_spec_geom_count(a) != tch_spec_geom_count(b) ||
        tch_spec_mesh_count(a) != tch_spec_mesh_count(b) ||
        tch_spec_pair_count(a) != tch_spec_pair_count(b) ||
        tch_spec_key_count(a) != tch_spec_key_count(b) ||
        !same_option(tch_spec_option(a), tch_spec_option(b), with_touche)) {
        return false;
    }
    for (int i = 1; i <= tch_spec_body_count(a); ++i) {
        if (!same_body(tch_spec_body(a, (tch_body_id){i}), tch_spec_body(b, (tch_body_id){i}))) {
            fprintf(stderr, "body %d differs\n", i);
            return false;
        }
    }
    for (int i = 1; i <= tch_spec_geom_count(a); ++i) {
        tch_geom_id id = {i};
        if (!same_geom(tch_spec_geom(a, id), tch_spec_geom(b, id), with_touche) ||
            tch_spec_geom_body(a, id).index != tch_spec_geom_body(b, id).index) {
            fprintf(stderr, "geom %d differs\n", i);
            return false;
        }
    }
    for (int i = 1; i <= tch_spec_mesh_count(a); ++i) {
        if (!same_mesh(tch_spec_mesh(a, (tch_mesh_id){i}), tch_spec_mesh(b, (tch_mesh_id){i}))) {
            fprintf(stderr, "mesh %d differs\n", i);
            return false;
        }
    }
    for (int i = 1; i <= tch_spec_pair_count(a); ++i) {
        if (!same_pair(tch_spec_pair(a, i), tch_spec_pair(b, i), with_touche)) {
            fprintf(stderr, "pair %d differs\n", i);
            return false;
        }
    }
    if (!same_articulation(a, b)) {
        return false;
    }
    for (int i = 1; i <= tch_spec_key_count(a); ++i) {
        if (!same_key(tch_spec_key(a, i), tch_spec_key(b, i))) {
            fprintf(stderr, "key %d differs\n", i);
            return false;
        }
    }
    return strcmp(tch_spec_model_name(a), tch_spec_model_name(b)) == 0;
}

static char* read_text(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

/* Saves `first`, loads the file back and compares; destroys `first`. */
static void round_trip(tch_spec* first, bool with_touche) {
    const char* path = TCH_BINARY_DIR "/tests/io/roundtrip.xml";
    ENSURE(first != NULL);
    ENSURE(tch_mjcf_save(first, path, with_touche, &last_err) == TCH_OK);
    tch_spec* second = NULL;
    ENSURE(tch_mjcf_load(path, &second, &last_err) == TCH_OK);
    ENSURE(same_spec(first, second, with_touche));
    ENSURE(tch_spec_warning_count(second) == 0);
    const char* text = read_text(path);
    ENSURE(text != NULL);
    ENSURE((strstr(text, "touche") != NULL) == with_touche);
    ENSURE(read_text(TCH_BINARY_DIR "/tests/io/roundtrip.xml.tmp") == NULL);
    tch_spec_destroy(first);
    tch_spec_destroy(second);
}

static void test_round_trip_with_touche_attributes(void) {
    round_trip(load(full_scene), true);
}

static void test_round_trip_for_mujoco(void) {
    round_trip(load(full_scene), false);
}

static void test_round_trip_examples(void) {
    const char* names[] = {"stack13.xml", "pile100.xml", "puma560.xml"};
    for (int i = 0; i < 3; ++i) {
        char path[512];
        snprintf(path, sizeof path, TCH_SOURCE_DIR "/examples/%s", names[i]);
        tch_spec* spec = NULL;
        ENSURE(tch_mjcf_load(path, &spec, &last_err) == TCH_OK);
        round_trip(spec, true);
        ENSURE(tch_mjcf_load(path, &spec, &last_err) == TCH_OK);
        round_trip(spec, false);
    }
}

static void test_save_names_unnamed_pair_geoms(void) {
    const char* path = TCH_BINARY_DIR "/tests/io/pairs.xml";
    tch_spec* spec = tch_spec_create();
    tch_geom_def g = tch_geom_def_default();
    g.size[0] = 1;
    ENSURE(tch_spec_add_geom(spec, TCH_WORLD_BODY, &g, NULL, NULL) == TCH_OK);
    strcpy(g.name, "geom2");
    ENSURE(tch_spec_add_geom(spec, TCH_WORLD_BODY, &g, NULL, NULL) == TCH_OK);
    tch_pair_def p = tch_pair_def_default();
    p.geom_a = (tch_geom_id){1};
    p.geom_b = (tch_geom_id){2};
    ENSURE(tch_spec_add_pair(spec, &p, NULL) == TCH_OK);
    ENSURE(tch_mjcf_save(spec, path, true, &last_err) == TCH_OK);
    tch_spec* back = NULL;
    ENSURE(tch_mjcf_load(path, &back, &last_err) == TCH_OK);
    ENSURE(strcmp(tch_spec_geom(back, (tch_geom_id){1})->name, "geom1") == 0);
    ENSURE(tch_spec_pair(back, 1)->geom_b.index == 2);
    tch_spec_destroy(spec);
    tch_spec_destroy(back);
}

static void test_save_to_missing_directory_fails(void) {
    tch_spec* spec = tch_spec_create();
    ENSURE(tch_mjcf_save(spec, "/nonexistent/dir/out.xml", false, &last_err) == TCH_ERR_IO);
    ENSURE(strstr(last_err.message, "cannot create") != NULL);
    tch_spec_destroy(spec);
}

/* ---- meshes from files (needs the geometry module's mesh readers) ---- */

static void test_mesh_file_relative_to_meshdir(void) {
    const char* dir = TCH_BINARY_DIR "/tests/io/meshes";
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    ENSURE(system(cmd) == 0);
    FILE* f = fopen(TCH_BINARY_DIR "/tests/io/meshes/tet.obj", "w");
    ENSURE(f != NULL);
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n", f);
    fclose(f);
    tch_spec* spec = NULL;
    const char* xml = "<mujoco><compiler meshdir=\"meshes\"/><asset><mesh file=\"tet.obj\" "
                      "scale=\"1 2 3\"/></asset><worldbody><body><freejoint/>"
                      "<geom type=\"mesh\" mesh=\"tet\"/></body></worldbody></mujoco>";
    ENSURE(tch_mjcf_load_string(xml, TCH_BINARY_DIR "/tests/io", NULL, &spec, &last_err) == TCH_OK);
    const tch_mesh_def* m = tch_spec_mesh(spec, tch_spec_find_mesh(spec, "tet"));
    ENSURE(m != NULL && m->vertex_count == 4 && m->vertices[2].y == 1 && m->scale.z == 3);
    ENSURE(m->file[0] == '/' && strstr(m->file, "meshes/tet.obj") != NULL);
    round_trip(spec, true); /* the saved file is elsewhere: the mesh must come by absolute path */
}

int main(void) {
    RUN_TEST(test_full_scene_option);
    RUN_TEST(test_full_scene_bodies);
    RUN_TEST(test_full_scene_geoms_and_defaults);
    RUN_TEST(test_fromto_and_axes);
    RUN_TEST(test_pairs_and_keys);
    RUN_TEST(test_euler_degrees_radians_and_sequences);
    RUN_TEST(test_axisangle_and_quat);
    RUN_TEST(test_unnamed_default_is_main_and_nested_inherit);
    RUN_TEST(test_mesh_attribute_implies_mesh_type);
    RUN_TEST(test_warnings_for_ignored_input);
    RUN_TEST(test_error_has_file_line_and_element);
    RUN_TEST(test_bad_inputs_fail_with_location);
    RUN_TEST(test_malformed_input_is_never_printed);
    RUN_TEST(test_missing_scene_file_is_io_error);
    RUN_TEST(test_round_trip_with_touche_attributes);
    RUN_TEST(test_round_trip_for_mujoco);
    RUN_TEST(test_round_trip_examples);
    RUN_TEST(test_save_names_unnamed_pair_geoms);
    RUN_TEST(test_save_to_missing_directory_fails);
    RUN_TEST(test_mesh_file_relative_to_meshdir);
    return TEST_RESULT();
}
