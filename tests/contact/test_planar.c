/* The planar mode (option touche:planar="xz", docs/planar.md) in the engine: free bodies keep
 * to the x-z plane and turn about y only, under every constraint model (lcp, peg) and the
 * force models; peg uses the 2D cases (eqs. 32-33) on the bodies' sections.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contact/peg.h"
#include "engine/engine_internal.h"
#include "scene_builder.h"
#include "test.h"
#include "touche/io.h"
#include "touche/step.h"

/* How far body b's pose and velocity left the plane y = y0: |y - y0|, the quaternion's x and
 * z parts (a turn about y has none), v_y and the world w_x, w_z. */
static double off_plane(const tch_model* m, const tch_data* d, int b, double y0) {
    const tch_real* q = d->qpos + m->body_qpos_adr[b];
    const tch_vec3 v = d->body_v_WCm[b], w = d->body_w_W[b];
    double off = fmax(fabs(q[1] - y0), fmax(fabs(q[4]), fabs(q[6])));
    return fmax(off, fmax(fabs(v.y), fmax(fabs(w.x), fabs(w.z))));
}

static double deepest(const tch_data* d) {
    double depth = 0;
    for (int i = 0; i < d->contact_count; ++i) {
        depth = fmax(depth, d->contacts[i].depth);
    }
    return depth;
}

/* A box pushed along x on the floor with mu = 0.5 and out-of-plane velocities (v_y, w_x, w_z,
 * which the mode drops) slides v^2 / (2 mu g) (Coulomb; semi-implicit Euler's first step
 * takes v h of it) and never leaves its plane y = 0.3 beyond round-off. */
static void test_slide_matches_coulomb(void) {
    static const char* const models[] = {"lcp", "peg"};
    static const char* const solvers[] = {"pgs", "lemke"};
    for (int k = 0; k < 4; ++k) {
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<mujoco xmlns:touche='urn:touche'><option timestep='0.001' "
                 "gravity='0 0 -9.81' touche:planar='xz' touche:contact='%s' touche:solver='%s'/>"
                 "<worldbody><geom name='floor' type='plane' size='0 0 1' friction='0.5'/>"
                 "<body name='box' pos='0 0.3 0.1'><freejoint/><geom type='box' "
                 "size='0.1 0.1 0.1' mass='1' friction='0.5'/></body></worldbody>"
                 "<keyframe><key name='push' qvel='2 0.5 0 0.3 0 1'/></keyframe></mujoco>",
                 models[k / 2], solvers[k % 2]);
        tch_error err = {0};
        tch_model* m = test_compile_xml(xml, &err);
        tch_data* d = NULL;
        ENSURE(m && tch_data_create(m, &d, &err) == TCH_OK);
        ENSURE(tch_data_reset_key(m, d, 0, &err) == TCH_OK);
        double off = 0;
        for (int step = 0; step < 800; ++step) {
            ENSURE(tch_step(m, d, &err) == TCH_OK);
            off = fmax(off, off_plane(m, d, 1, 0.3));
        }
        const double v = 2, mu = 0.5, g = 9.81, h = 0.001;
        ENSURE(off < 1e-12);
        ENSURE(fabs(d->qvel[0]) < 1e-9 && fabs(d->qpos[2] - 0.1) < 1e-6);
        ENSURE_NEAR(d->qpos[0], v * v / (2 * mu * g) - v * h / 2, v * h / 2 + 1e-6);
        tch_data_destroy(d);
        tch_model_destroy(m);
    }
}

/* Five staggered blocks on the floor (frictional, zero gaps) stand for 5 s at h = 5 ms under
 * lcp and under peg: every block within 1e-6 m of its start, in its plane. */
static void test_stack_stands(void) {
    static const char* const models[] = {"lcp", "peg"};
    for (int k = 0; k < 2; ++k) {
        char xml[2048];
        int used = snprintf(xml, sizeof xml,
                            "<mujoco xmlns:touche='urn:touche'><option timestep='0.005' "
                            "touche:planar='xz' touche:contact='%s'/><worldbody>"
                            "<geom name='floor' type='plane' size='0 0 1'/>",
                            models[k]);
        static const double shift[5] = {0, 0.02, -0.02, 0.03, 0};
        for (int b = 0; b < 5; ++b) {
            used += snprintf(xml + used, sizeof xml - (size_t)used,
                             "<body pos='%g 0 %g'><freejoint/><geom type='box' "
                             "size='0.1 0.1 0.1' mass='1'/></body>",
                             shift[b], 0.1 + 0.2 * b);
        }
        snprintf(xml + used, sizeof xml - (size_t)used, "</worldbody></mujoco>");
        tch_error err = {0};
        tch_model* m = test_compile_xml(xml, &err);
        tch_data* d = NULL;
        ENSURE(m && tch_data_create(m, &d, &err) == TCH_OK);
        double moved = 0, off = 0;
        for (int step = 0; step < 1000; ++step) {
            ENSURE(tch_step(m, d, &err) == TCH_OK);
            for (int b = 1; b <= 5; ++b) {
                const tch_real* q = d->qpos + m->body_qpos_adr[b];
                moved = fmax(moved, fmax(fabs(q[0] - shift[b - 1]), fabs(q[2] - (0.2 * b - 0.1))));
                off = fmax(off, off_plane(m, d, b, 0));
            }
        }
        ENSURE(moved < 1e-6);
        ENSURE(off < 1e-12);
        tch_data_destroy(d);
        tch_model_destroy(m);
    }
}

/* Fig. 5 of the paper in the engine: squares corner to corner (B static, A sliding at 0.5 m/s
 * left and 0.02 m/s down, no gravity, frictionless). peg's 2D vertex-vertex case lets A's
 * corner pass B's and slide along B's top: no LCP failure, A keeps its speed, the energy never
 * grows, and the overlap stays within the first-order rows' drift h^2 v w (docs/peg.md). */
static void test_peg_corner_passes(void) {
    const char* xml =
        "<mujoco xmlns:touche='urn:touche'><option timestep='0.01' gravity='0 0 0' "
        "touche:planar='xz' touche:contact='peg'/><worldbody>"
        "<geom name='B' type='box' pos='-0.5 0 -0.5' size='0.5 0.5 0.5' friction='0'/>"
        "<body name='A' pos='0.501 0 0.501'><freejoint/><geom name='a' type='box' "
        "size='0.5 0.5 0.5' mass='1' friction='0'/></body></worldbody>"
        "<keyframe><key qvel='-0.5 0 -0.02 0 0 0'/></keyframe></mujoco>";
    tch_error err = {0};
    tch_model* m = test_compile_xml(xml, &err);
    tch_data* d = NULL;
    ENSURE(m && tch_data_create(m, &d, &err) == TCH_OK);
    ENSURE(tch_data_reset_key(m, d, 0, &err) == TCH_OK);
    double energy = 0.5 * (0.25 + 0.0004), depth = 0, off = 0, fastest_turn = 0;
    int vertex_vertex = 0;
    for (int step = 0; step < 100; ++step) {
        ENSURE(tch_step(m, d, &err) == TCH_OK);
        const tch_vec3 v = d->body_v_WCm[1], w = d->body_w_W[1];
        const double now =
            0.5 * tch_v3_dot(v, v) + 0.5 * tch_v3_dot(w, tch_m3_mul_v3(d->body_I_W[1], w));
        ENSURE(now <= energy * (1 + 1e-9));
        energy = now;
        depth = fmax(depth, deepest(d));
        off = fmax(off, off_plane(m, d, 1, 0));
        fastest_turn = fmax(fastest_turn, fabs(w.y));
        for (int i = 0; i < d->contact_count; ++i) {
            tch_peg_constraint_info info;
            ENSURE(tch_data_peg_constraint(m, d, i, &info, NULL) == TCH_OK);
            vertex_vertex += strcmp(info.feature_pair, "vertex-vertex") == 0;
        }
    }
    const tch_peg_report* r = tch_peg_scratch_report(d->internal->model_scratch[TCH_CONTACT_PEG]);
    ENSURE(r->failures == 0 && r->fallbacks == 0 && vertex_vertex > 0);
    ENSURE(d->qpos[0] < 0.01 && d->body_v_WCm[1].x < -0.49); /* passed by 0.5 m */
    ENSURE(depth <= 1.2 * 0.01 * 0.01 * 0.5 * fastest_turn + 1e-12);
    ENSURE(off < 1e-12);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A body whose y axis is not principal (products of inertia I_xy, I_yz), spinning about y
 * with no load: in 3D its angular velocity would wobble (the gyroscopic torque), in the plane
 * the reduced Euler equation I_yy w_y' = tau_y = 0 keeps w = (0, 2, 0) exactly and the body
 * in its plane, under RK4 as under semi-implicit Euler. */
static void test_spin_about_y_is_kept(void) {
    static const char* const integrators[] = {"Euler", "RK4"};
    for (int k = 0; k < 2; ++k) {
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<mujoco xmlns:touche='urn:touche'><option timestep='0.01' gravity='0 0 0' "
                 "integrator='%s' touche:planar='xz'/><worldbody><body pos='0 0 1'><freejoint/>"
                 "<inertial pos='0.1 0.2 0' mass='1' fullinertia='0.3 0.2 0.25 0.05 0 0.04'/>"
                 "<geom type='box' size='0.1 0.1 0.1' contype='0' conaffinity='0'/></body>"
                 "</worldbody><keyframe><key qvel='0 0 0 0 2 0'/></keyframe></mujoco>",
                 integrators[k]);
        tch_error err = {0};
        tch_model* m = test_compile_xml(xml, &err);
        tch_data* d = NULL;
        ENSURE(m && tch_data_create(m, &d, &err) == TCH_OK);
        ENSURE(tch_data_reset_key(m, d, 0, &err) == TCH_OK);
        double drift = 0;
        for (int step = 0; step < 300; ++step) {
            ENSURE(tch_step(m, d, &err) == TCH_OK);
            drift = fmax(drift, tch_v3_norm(tch_v3_sub(d->body_w_W[1], tch_v3(0, 2, 0))));
            drift = fmax(drift, off_plane(m, d, 1, d->body_X_WB[1].p.y));
        }
        ENSURE(drift < 1e-12);
        tch_data_destroy(d);
        tch_model_destroy(m);
    }
}

/* The mode's refusals name what is wrong. */
static void test_bad_input(void) {
    static const struct {
        const char* option;
        const char* body;
        const char* says;
    } cases[] = {
        {"touche:planar='xy'", "<freejoint/>", "expected one of none, xz"},
        {"touche:planar='xz' gravity='0 1 -9.81'", "<freejoint/>", "gravity y = 1"},
        {"touche:planar='xz' integrator='implicit'", "<freejoint/>", "not supported yet"},
        {"touche:planar='xz'", "<joint type='hinge'/>", "with joints"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<mujoco xmlns:touche='urn:touche'><option %s/><worldbody>"
                 "<geom type='plane' size='0 0 1'/><body pos='0 0 1'>%s<geom type='box' "
                 "size='0.1 0.1 0.1' mass='1'/></body></worldbody></mujoco>",
                 cases[k].option, cases[k].body);
        tch_error err = {0};
        tch_model* m = test_compile_xml(xml, &err);
        ENSURE(m == NULL);
        if (!strstr(err.message, cases[k].says)) {
            fprintf(stderr, "case %zu said: %s\n", k, err.message);
        }
        ENSURE(strstr(err.message, cases[k].says) != NULL);
    }
}

int main(void) {
    RUN_TEST(test_slide_matches_coulomb);
    RUN_TEST(test_stack_stands);
    RUN_TEST(test_peg_corner_passes);
    RUN_TEST(test_spin_about_y_is_kept);
    RUN_TEST(test_bad_input);
    return TEST_RESULT();
}
