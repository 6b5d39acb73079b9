/* The compiler: spec to model (src/io/compile.c). */
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

/* A mesh's geom frame is the mesh's inertial frame, as in MuJoCo: a cube whose file vertices
 * are centred at c sits at c in the body, and the body's centre of mass is there too. */
static void test_mesh_geom_frame_is_its_inertial_frame(void) {
    tch_spec* spec = test_spec(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_vec3 c = {1, 2, 3}, corners[8];
    for (int i = 0; i < 8; ++i) {
        corners[i] = tch_v3_add(c, (tch_vec3){i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5,
                                              i & 4 ? 0.5 : -0.5});
    }
    tch_mesh_def mesh = tch_mesh_def_default();
    snprintf(mesh.name, sizeof mesh.name, "cube");
    mesh.vertices = corners;
    mesh.vertex_count = 8;
    tch_mesh_id mesh_id = {0};
    ENSURE(tch_spec_add_mesh(spec, &mesh, &mesh_id, NULL) == TCH_OK);
    tch_body_def body = tch_body_def_default();
    body.free_joint = true;
    tch_body_id body_id = {0};
    tch_spec_add_body(spec, &body, &body_id, NULL);
    tch_geom_def geom = tch_geom_def_default();
    geom.type = TCH_GEOM_MESH;
    geom.mesh = mesh_id;
    geom.density = 1000;
    tch_spec_add_geom(spec, body_id, &geom, NULL, NULL);
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    ENSURE(tch_v3_dist(m->geom_X_BG[0].p, c) < 1e-12);
    ENSURE(tch_v3_dist(m->body_total_p_BCm[1], c) < 1e-12);
    ENSURE_REL(m->body_total_mass[1], 1000.0, 1e-12);
    ENSURE_REL(m->body_total_I_BCm[1].m[0][0], 1000.0 / 6, 1e-9);
    tch_model_destroy(m);
}

/* A welded child adds its mass, and its offset adds m d^2 to the root's inertia. */
static void test_welded_child_is_folded_into_its_root(void) {
    tch_spec* spec = test_spec(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_body_id root = test_add_body(spec, "root", TCH_GEOM_SPHERE, (tch_vec3){0.1, 0, 0}, 1,
                                     (tch_vec3){0, 0, 1}, tch_q_identity());
    tch_body_def child = tch_body_def_default();
    child.parent = root;
    child.p_PB = (tch_vec3){0, 0, 1};
    child.has_inertial = true;
    child.mass = 1;
    child.inertia_diag = (tch_vec3){0.01, 0.01, 0.01};
    tch_spec_add_body(spec, &child, NULL, NULL);
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    ENSURE(m->free_count == 1 && m->body_root[2] == 1 && !m->body_free[2]);
    ENSURE_REL(m->body_total_mass[1], 2.0, 1e-12);
    ENSURE_NEAR(m->body_total_p_BCm[1].z, 0.5, 1e-12);
    double sphere = 0.4 * 1 * 0.01; /* 2/5 m r^2 */
    ENSURE_REL(m->body_total_I_BCm[1].m[0][0], sphere + 0.01 + 2 * 1 * 0.25, 1e-9);
    tch_model_destroy(m);
}

static void test_massless_free_body_is_an_error(void) {
    tch_spec* spec = test_spec(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_body_def body = tch_body_def_default();
    snprintf(body.name, sizeof body.name, "ghost");
    body.free_joint = true;
    tch_spec_add_body(spec, &body, NULL, NULL);
    tch_model* m = NULL;
    tch_error err;
    ENSURE(tch_compile(spec, &m, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(m == NULL && strstr(err.message, "ghost") != NULL);
    tch_spec_destroy(spec);
}

/* peg takes polytopes: a curved geom that may touch another under it is refused (naming it)
 * until the scene's model is overridden. */
static void test_peg_refuses_curved_geoms_unless_overridden(void) {
    tch_spec* spec = test_spec(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_PEG;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){0.1, 0, 0}, 1, (tch_vec3){0, 0, 1},
                  tch_q_identity());
    test_add_body(spec, "cube", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1,
                  (tch_vec3){0, 0, 2}, tch_q_identity());
    tch_model* m = NULL;
    tch_error err;
    ENSURE(tch_compile(spec, &m, &err) == TCH_ERR_UNSUPPORTED);
    ENSURE(strstr(err.message, "sphere") != NULL && strstr(err.message, "peg") != NULL);
    tch_spec_force_contact_model(spec, TCH_CONTACT_POINT);
    ENSURE(tch_compile(spec, &m, &err) == TCH_OK);
    ENSURE(m->contact_default.model == TCH_CONTACT_POINT);
    tch_model_destroy(m);
    tch_spec_destroy(spec);
}

/* A free body at (i, 0, 1) with a sphere of radius 0.1 m and the given contact parameters. */
static tch_geom_id add_free_sphere(tch_spec* spec, int i, tch_contact_params contact) {
    tch_body_def b = tch_body_def_default();
    b.free_joint = true;
    b.p_PB = (tch_vec3){i, 0, 1};
    tch_body_id body;
    tch_spec_add_body(spec, &b, &body, NULL);
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_SPHERE;
    g.size[0] = 0.1;
    g.contact = contact;
    tch_geom_id id;
    tch_spec_add_geom(spec, body, &g, &id, NULL);
    return id;
}

/* Two geoms' values combine: stiffness in series, the larger friction; a pair overrides. */
static void test_pair_parameters_combine_geoms_then_pairs(void) {
    tch_spec* spec = test_spec(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_geom_id ids[3];
    for (int i = 0; i < 3; ++i) {
        tch_contact_params contact = tch_geom_def_default().contact;
        contact.stiffness = 1000.0 * (i + 1);
        contact.friction = 0.2 * (i + 1);
        ids[i] = add_free_sphere(spec, i, contact);
    }
    tch_pair_def pair = tch_pair_def_default();
    pair.geom_a = ids[1];
    pair.geom_b = ids[2];
    pair.contact.friction = 0.05;
    ENSURE(tch_spec_add_pair(spec, &pair, NULL) == TCH_OK);
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_pair_params p01 = tch_model_pair_params(m, 0, 1);
    ENSURE_REL(p01.stiffness, 1000.0 * 2000.0 / 3000.0, 1e-12);
    ENSURE_REL(p01.friction, 0.4, 1e-12);
    ENSURE_REL(p01.static_friction, 0.4, 1e-12);
    tch_pair_params p21 = tch_model_pair_params(m, 2, 1);
    ENSURE_REL(p21.friction, 0.05, 1e-12);
    ENSURE_REL(p21.stiffness, 2000.0 * 3000.0 / 5000.0, 1e-12);
    tch_model_destroy(m);
}

/* The model finds each explicit pair in its pair table, in either order, however many pairs
 * share a probe sequence: 12 spheres and a pair for every (i, j) with j - i odd, each with its
 * own friction; the other pairs keep the geoms' combination (the larger friction). */
static void test_pair_table_finds_every_explicit_pair(void) {
    enum { N = 12 };
    tch_spec* spec = test_spec(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_geom_id ids[N];
    for (int i = 0; i < N; ++i) {
        tch_contact_params contact = tch_geom_def_default().contact;
        contact.friction = 0.5 + 0.01 * i;
        ids[i] = add_free_sphere(spec, i, contact);
    }
    for (int i = 0; i < N; ++i) {
        for (int j = i + 1; j < N; j += 2) {
            tch_pair_def pair = tch_pair_def_default();
            pair.geom_a = ids[j]; /* named in the reverse order half the time */
            pair.geom_b = ids[i];
            if (i % 2) {
                pair.geom_a = ids[i];
                pair.geom_b = ids[j];
            }
            pair.contact.friction = 0.001 * (N * i + j);
            ENSURE(tch_spec_add_pair(spec, &pair, NULL) == TCH_OK);
        }
    }
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    for (int i = 0; i < N; ++i) {
        for (int j = i + 1; j < N; ++j) {
            double expected = (j - i) % 2 ? 0.001 * (N * i + j) : 0.5 + 0.01 * j;
            ENSURE_REL(tch_model_pair_params(m, i, j).friction, expected, 1e-12);
            ENSURE_REL(tch_model_pair_params(m, j, i).friction, expected, 1e-12);
        }
    }
    tch_model_destroy(m);
}

/* Every contact parameter is a touche attribute (generated from TCH_CONTACT_REAL_PARAMS), and
 * the solver settings live on <option>. */
static void test_contact_and_solver_attributes_reach_the_model(void) {
    const char* xml =
        "<mujoco xmlns:touche=\"urn:touche\">"
        " <option touche:solver=\"pgs\" touche:iterations=\"77\" touche:tolerance=\"1e-7\""
        "  touche:restitution=\"0.5\" touche:cone_edges=\"8\"/>"
        " <worldbody><geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>"
        "  <body pos=\"0 0 1\"><freejoint/>"
        "   <geom name=\"ball\" size=\"0.1\" touche:tangential_stiffness=\"123\""
        "    touche:stabilization=\"0.3\" touche:resolution=\"0.01\"/></body>"
        " </worldbody></mujoco>";
    tch_spec* spec = NULL;
    tch_error err;
    ENSURE(tch_mjcf_load_string(xml, NULL, "inline.xml", &spec, &err) == TCH_OK);
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    ENSURE(m->lcp_solver == TCH_LCP_SOLVER_PGS && m->lcp_iterations == 77);
    ENSURE_NEAR(m->lcp_tolerance, 1e-7, 0);
    tch_pair_params p = tch_model_pair_params(m, 0, 1);
    ENSURE_NEAR(p.restitution, 0.5, 0);
    ENSURE_NEAR(p.cone_edges, 8, 0);
    ENSURE_NEAR(p.tangential_stiffness, 123, 0);
    ENSURE_NEAR(p.stabilization, 0.3, 0);
    ENSURE_NEAR(p.resolution, 0.01, 0);
    tch_model_destroy(m);
}

static void test_out_of_range_parameters_are_refused(void) {
    const char* bad[] = {"touche:restitution=\"1.5\"", "touche:cone_edges=\"2\"",
                         "touche:cone_edges=\"4.5\"", "touche:stabilization=\"2\""};
    for (int i = 0; i < 4; ++i) {
        char xml[512];
        snprintf(xml, sizeof xml,
                 "<mujoco xmlns:touche=\"urn:touche\"><worldbody><body><freejoint/>"
                 "<geom size=\"0.1\" %s/></body></worldbody></mujoco>", bad[i]);
        tch_spec* spec = NULL;
        tch_model* m = NULL;
        tch_error err;
        ENSURE(tch_mjcf_load_string(xml, NULL, "inline.xml", &spec, &err) == TCH_OK);
        ENSURE(tch_compile(spec, &m, &err) == TCH_ERR_INVALID_ARGUMENT);
        ENSURE(err.line == 1);
        tch_spec_destroy(spec);
    }
}

int main(void) {
    RUN_TEST(test_mesh_geom_frame_is_its_inertial_frame);
    RUN_TEST(test_welded_child_is_folded_into_its_root);
    RUN_TEST(test_massless_free_body_is_an_error);
    RUN_TEST(test_peg_refuses_curved_geoms_unless_overridden);
    RUN_TEST(test_pair_parameters_combine_geoms_then_pairs);
    RUN_TEST(test_pair_table_finds_every_explicit_pair);
    RUN_TEST(test_contact_and_solver_attributes_reach_the_model);
    RUN_TEST(test_out_of_range_parameters_are_refused);
    return TEST_RESULT();
}
