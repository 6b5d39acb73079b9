/* The scene specification: defaults, validation on add, copies, lookups, enum names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/spec_internal.h"
#include "test.h"

static void test_defaults(void) {
    tch_contact_params unset = tch_contact_params_unset();
    ENSURE(unset.model == TCH_CONTACT_INHERIT && unset.law == TCH_POINT_LAW_INHERIT);
    ENSURE(isnan(unset.stiffness) && isnan(unset.damping) && isnan(unset.dissipation));
    ENSURE(isnan(unset.exponent) && isnan(unset.friction) && isnan(unset.static_friction));
    ENSURE(isnan(unset.stiction_velocity) && isnan(unset.margin));

    tch_option_def option = tch_option_def_default();
    ENSURE(option.timestep == 0.002);
    ENSURE(option.gravity.x == 0 && option.gravity.y == 0 && option.gravity.z == -9.81);
    ENSURE(option.integrator == TCH_INTEGRATOR_AUTO); /* chosen at compile from the contact models */
    ENSURE(option.contact.model == TCH_CONTACT_POINT && isnan(option.contact.stiffness));

    tch_geom_def geom = tch_geom_def_default();
    ENSURE(isnan(geom.mass) && geom.density == 1000);
    ENSURE(geom.contype == 1 && geom.conaffinity == 1);
    ENSURE(geom.q_BG.w == 1 && geom.q_BG.x == 0 && geom.size[0] == 0 && geom.size[2] == 0);
    ENSURE(geom.contact.model == TCH_CONTACT_INHERIT && isnan(geom.contact.friction));

    tch_body_def body = tch_body_def_default();
    ENSURE(body.q_PB.w == 1 && !body.free_joint && body.parent.index == 0);
    ENSURE(tch_mesh_def_default().scale.z == 1);
    ENSURE(tch_key_def_default().qpos == NULL);
}

static void test_uninitialised_def_is_rejected(void) {
    tch_spec* spec = tch_spec_create();
    tch_body_def body;
    memset(&body, 0, sizeof body);
    tch_error err;
    ENSURE(tch_spec_add_body(spec, &body, NULL, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "def not initialised with tch_body_def_default") != NULL);
    tch_geom_def geom = tch_geom_def_default();
    geom.cookie = 0;
    ENSURE(tch_spec_add_geom(spec, TCH_WORLD_BODY, &geom, NULL, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "tch_geom_def_default") != NULL);
    tch_option_def option = {0};
    ENSURE(tch_spec_set_option(spec, &option, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_spec_option(spec)->timestep == 0.002);
    ENSURE(tch_spec_body_count(spec) == 0 && tch_spec_geom_count(spec) == 0);
    tch_spec_destroy(spec);
}

static tch_body_id add_named_body(tch_spec* spec, const char* name, tch_body_id parent,
                                  tch_status* status) {
    tch_body_def def = tch_body_def_default();
    strcpy(def.name, name);
    def.parent = parent;
    def.source.line = 7;
    tch_body_id id = {0};
    *status = tch_spec_add_body(spec, &def, &id, NULL);
    return id;
}

static void test_bodies_parents_and_names(void) {
    tch_spec* spec = tch_spec_create();
    tch_status s;
    tch_body_id a = add_named_body(spec, "a", TCH_WORLD_BODY, &s);
    ENSURE(s == TCH_OK && a.index == 1);
    tch_body_id b = add_named_body(spec, "b", a, &s);
    ENSURE(s == TCH_OK && b.index == 2);
    add_named_body(spec, "c", (tch_body_id){5}, &s);
    ENSURE(s == TCH_ERR_INVALID_ARGUMENT);
    tch_error err;
    tch_body_def dup = tch_body_def_default();
    strcpy(dup.name, "a");
    strcpy(dup.source.file, "x.xml");
    dup.source.line = 9;
    ENSURE(tch_spec_add_body(spec, &dup, NULL, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "duplicate body name 'a'") && err.line == 9);
    ENSURE(strcmp(err.file, "x.xml") == 0);
    add_named_body(spec, "", TCH_WORLD_BODY, &s);
    ENSURE(s == TCH_OK);
    add_named_body(spec, "", TCH_WORLD_BODY, &s);
    ENSURE(s == TCH_OK);
    tch_body_def nested_free = tch_body_def_default();
    nested_free.parent = a;
    nested_free.free_joint = true;
    ENSURE(tch_spec_add_body(spec, &nested_free, NULL, NULL) == TCH_ERR_UNSUPPORTED);
    ENSURE(tch_spec_body_count(spec) == 4);
    ENSURE(tch_spec_find_body(spec, "b").index == 2);
    ENSURE(tch_spec_find_body(spec, "zz").index == 0);
    ENSURE(tch_spec_find_body(spec, "").index == 0);
    ENSURE(tch_spec_body(spec, b)->parent.index == 1);
    ENSURE(tch_spec_body(spec, (tch_body_id){0}) == NULL);
    ENSURE(tch_spec_body(spec, (tch_body_id){5}) == NULL);
    tch_spec_destroy(spec);
}

static void test_geoms_meshes_pairs(void) {
    tch_spec* spec = tch_spec_create();
    tch_vec3 points[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    tch_mesh_def mesh = tch_mesh_def_default();
    strcpy(mesh.name, "tet");
    mesh.vertices = points;
    mesh.vertex_count = 4;
    tch_mesh_id mesh_id;
    ENSURE(tch_spec_add_mesh(spec, &mesh, &mesh_id, NULL) == TCH_OK && mesh_id.index == 1);
    points[1].x = 99; /* the spec holds its own copy */
    const tch_mesh_def* stored = tch_spec_mesh(spec, mesh_id);
    ENSURE(stored->vertices != points && stored->vertices[1].x == 1 && stored->vertex_count == 4);
    mesh.vertices = NULL;
    strcpy(mesh.name, "broken");
    ENSURE(tch_spec_add_mesh(spec, &mesh, NULL, NULL) == TCH_ERR_INVALID_ARGUMENT);

    tch_status s;
    tch_body_id body = add_named_body(spec, "b", TCH_WORLD_BODY, &s);
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_MESH;
    ENSURE(tch_spec_add_geom(spec, body, &g, NULL, NULL) == TCH_ERR_INVALID_ARGUMENT);
    g.mesh = (tch_mesh_id){2};
    ENSURE(tch_spec_add_geom(spec, body, &g, NULL, NULL) == TCH_ERR_INVALID_ARGUMENT);
    g.mesh = mesh_id;
    strcpy(g.name, "hull");
    tch_geom_id hull;
    ENSURE(tch_spec_add_geom(spec, body, &g, &hull, NULL) == TCH_OK && hull.index == 1);
    tch_geom_def floor = tch_geom_def_default();
    floor.type = TCH_GEOM_PLANE;
    tch_geom_id floor_id;
    ENSURE(tch_spec_add_geom(spec, TCH_WORLD_BODY, &floor, &floor_id, NULL) == TCH_OK);
    ENSURE(tch_spec_add_geom(spec, (tch_body_id){3}, &floor, NULL, NULL) ==
           TCH_ERR_INVALID_ARGUMENT);
    floor.type = (tch_geom_type)1; /* hfield */
    ENSURE(tch_spec_add_geom(spec, TCH_WORLD_BODY, &floor, NULL, NULL) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_spec_add_geom(spec, body, &g, NULL, NULL) == TCH_ERR_INVALID_ARGUMENT); /* name */
    ENSURE(tch_spec_geom_body(spec, hull).index == body.index);
    ENSURE(tch_spec_geom_body(spec, floor_id).index == 0);
    ENSURE(tch_spec_find_geom(spec, "hull").index == 1 &&
           tch_spec_find_mesh(spec, "tet").index == 1);

    tch_pair_def pair = tch_pair_def_default();
    pair.geom_a = hull;
    pair.geom_b = hull;
    ENSURE(tch_spec_add_pair(spec, &pair, NULL) == TCH_ERR_INVALID_ARGUMENT);
    pair.geom_b = (tch_geom_id){3};
    ENSURE(tch_spec_add_pair(spec, &pair, NULL) == TCH_ERR_INVALID_ARGUMENT);
    pair.geom_b = floor_id;
    pair.contact.friction = 0.3;
    ENSURE(tch_spec_add_pair(spec, &pair, NULL) == TCH_OK);
    ENSURE(tch_spec_pair_count(spec) == 1 && tch_spec_pair(spec, 1)->contact.friction == 0.3);
    ENSURE(tch_spec_pair(spec, 2) == NULL);
    tch_spec_destroy(spec);
}

static void test_keys_are_copied(void) {
    tch_spec* spec = tch_spec_create();
    tch_real qpos[7] = {1, 2, 3, 1, 0, 0, 0};
    tch_key_def key = tch_key_def_default();
    strcpy(key.name, "start");
    key.time = 0.5;
    key.qpos = qpos;
    key.qpos_count = 7;
    ENSURE(tch_spec_add_key(spec, &key, NULL) == TCH_OK);
    qpos[0] = -1;
    const tch_key_def* stored = tch_spec_key(spec, 1);
    ENSURE(stored->qpos[0] == 1 && stored->qpos_count == 7 && stored->qvel == NULL);
    ENSURE(stored->time == 0.5);
    ENSURE(tch_spec_add_key(spec, &key, NULL) == TCH_ERR_INVALID_ARGUMENT); /* same name */
    key.name[0] = '\0';
    key.qvel_count = 6; /* without an array */
    ENSURE(tch_spec_add_key(spec, &key, NULL) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_spec_key_count(spec) == 1);
    tch_spec_destroy(spec);
}

static void test_warnings_and_override(void) {
    tch_spec* spec = tch_spec_create();
    tch_spec_add_warning(spec, "a.xml", 3, "first");
    tch_spec_add_warning(spec, "a.xml", 0, "second");
    tch_spec_add_warning(spec, NULL, 0, "third");
    ENSURE(tch_spec_warning_count(spec) == 3);
    ENSURE(strcmp(tch_spec_warning(spec, 0), "a.xml:3: first") == 0);
    ENSURE(strcmp(tch_spec_warning(spec, 1), "a.xml: second") == 0);
    ENSURE(strcmp(tch_spec_warning(spec, 2), "third") == 0);
    ENSURE(tch_spec_warning(spec, 3) == NULL && tch_spec_warning(spec, -1) == NULL);
    ENSURE(tch_spec_forced_contact_model(spec) == TCH_CONTACT_INHERIT);
    tch_spec_force_contact_model(spec, TCH_CONTACT_LCP);
    ENSURE(tch_spec_forced_contact_model(spec) == TCH_CONTACT_LCP);
    tch_spec_destroy(spec);
    tch_spec_destroy(NULL);
}

static void test_integrator_names(void) {
    const char* names[] = {"Euler", "RK4", "implicit", "adaptive"};
    const tch_integrator values[] = {TCH_INTEGRATOR_SEMI_IMPLICIT_EULER, TCH_INTEGRATOR_RK4,
                                     TCH_INTEGRATOR_IMPLICIT, TCH_INTEGRATOR_ADAPTIVE};
    for (int i = 0; i < 4; ++i) {
        tch_integrator v = TCH_INTEGRATOR_AUTO;
        ENSURE(tch_integrator_parse(names[i], &v) && v == values[i]);
    }
    tch_integrator v = TCH_INTEGRATOR_RK4;
    ENSURE(!tch_integrator_parse("implicitfast", &v) && !tch_integrator_parse(NULL, &v));
    ENSURE(v == TCH_INTEGRATOR_RK4); /* untouched on failure */
}

/* The CLI's --set: a geom's and a pair's contact parameters replaced after they were added. */
static void test_contact_setters(void) {
    tch_spec* spec = tch_spec_create();
    tch_geom_def geom = tch_geom_def_default();
    geom.type = TCH_GEOM_PLANE;
    tch_geom_id a, b;
    ENSURE(tch_spec_add_geom(spec, TCH_WORLD_BODY, &geom, &a, NULL) == TCH_OK);
    geom.type = TCH_GEOM_SPHERE;
    geom.size[0] = 0.1;
    ENSURE(tch_spec_add_geom(spec, TCH_WORLD_BODY, &geom, &b, NULL) == TCH_OK);
    tch_pair_def pair = tch_pair_def_default();
    pair.geom_a = a;
    pair.geom_b = b;
    ENSURE(tch_spec_add_pair(spec, &pair, NULL) == TCH_OK);
    tch_contact_params p = tch_contact_params_unset();
    p.friction = 0.3;
    ENSURE(tch_spec_set_geom_contact(spec, b, &p, NULL) == TCH_OK);
    ENSURE(tch_spec_geom(spec, b)->contact.friction == 0.3);
    ENSURE(isnan(tch_spec_geom(spec, a)->contact.friction));
    p.stiffness = 1e5;
    ENSURE(tch_spec_set_pair_contact(spec, 1, &p, NULL) == TCH_OK);
    ENSURE(tch_spec_pair(spec, 1)->contact.stiffness == 1e5);
    tch_error err = {0};
    ENSURE(tch_spec_set_geom_contact(spec, (tch_geom_id){3}, &p, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_spec_set_pair_contact(spec, 2, &p, &err) == TCH_ERR_INVALID_ARGUMENT);
    tch_spec_destroy(spec);
}

/* Updates keep a geom's name and body and a body's place in the tree, and check the sizes a
 * geom's type reads. */
static void test_updates(void) {
    tch_spec* spec = tch_spec_create();
    tch_body_def body = tch_body_def_default();
    snprintf(body.name, sizeof body.name, "b");
    body.free_joint = true;
    tch_body_id bid;
    ENSURE(tch_spec_add_body(spec, &body, &bid, NULL) == TCH_OK);
    tch_geom_def geom = tch_geom_def_default();
    snprintf(geom.name, sizeof geom.name, "box");
    geom.type = TCH_GEOM_BOX;
    geom.size[0] = geom.size[1] = geom.size[2] = 0.1;
    tch_geom_id gid;
    ENSURE(tch_spec_add_geom(spec, bid, &geom, &gid, NULL) == TCH_OK);
    tch_error err = {0};
    geom.size[1] = 0.3;
    geom.mass = 2;
    ENSURE(tch_spec_update_geom(spec, gid, &geom, &err) == TCH_OK);
    ENSURE(tch_spec_geom(spec, gid)->size[1] == 0.3 && tch_spec_geom(spec, gid)->mass == 2);
    ENSURE(tch_spec_geom_body(spec, gid).index == bid.index);
    geom.size[2] = 0;
    ENSURE(tch_spec_update_geom(spec, gid, &geom, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "size 3 must be a positive") != NULL);
    ENSURE(tch_spec_geom(spec, gid)->size[2] == 0.1); /* unchanged on failure */
    geom.size[2] = 0.1;
    snprintf(geom.name, sizeof geom.name, "other");
    ENSURE(tch_spec_update_geom(spec, gid, &geom, &err) == TCH_ERR_UNSUPPORTED);
    ENSURE(tch_spec_update_geom(spec, (tch_geom_id){2}, &geom, &err) == TCH_ERR_INVALID_ARGUMENT);
    body.has_inertial = true;
    body.mass = 3;
    ENSURE(tch_spec_update_body(spec, bid, &body, &err) == TCH_OK);
    ENSURE(tch_spec_body(spec, bid)->mass == 3);
    body.free_joint = false;
    ENSURE(tch_spec_update_body(spec, bid, &body, &err) == TCH_ERR_UNSUPPORTED);
    ENSURE(tch_spec_update_body(spec, (tch_body_id){2}, &body, &err) == TCH_ERR_INVALID_ARGUMENT);
    tch_spec_destroy(spec);
}

static void test_enum_names(void) {
    const char* models[] = {"point", "volume", "pressure", "lcp", "peg"};
    for (int i = 0; i < 5; ++i) {
        tch_contact_model m;
        ENSURE(tch_contact_model_parse(models[i], &m));
        ENSURE(m == (tch_contact_model)(TCH_CONTACT_POINT + i));
        ENSURE(strcmp(tch_contact_model_name(m), models[i]) == 0);
    }
    tch_contact_model m;
    ENSURE(!tch_contact_model_parse("inherit", &m) && !tch_contact_model_parse("Point", &m));
    ENSURE(!tch_contact_model_parse(NULL, &m));
    const char* types[] = {"plane", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"};
    const tch_geom_type values[] = {TCH_GEOM_PLANE,     TCH_GEOM_SPHERE,   TCH_GEOM_CAPSULE,
                                    TCH_GEOM_ELLIPSOID, TCH_GEOM_CYLINDER, TCH_GEOM_BOX,
                                    TCH_GEOM_MESH};
    for (int i = 0; i < 7; ++i) {
        tch_geom_type t;
        ENSURE(tch_geom_type_parse(types[i], &t) && t == values[i]);
        ENSURE(strcmp(tch_geom_type_name(values[i]), types[i]) == 0);
    }
    tch_geom_type t;
    ENSURE(!tch_geom_type_parse("hfield", &t) && !tch_geom_type_parse("cube", &t));
    ENSURE(strcmp(tch_geom_type_name((tch_geom_type)1), "unknown") == 0);
    tch_point_law law;
    ENSURE(tch_point_law_parse("hunt-crossley", &law) && law == TCH_POINT_LAW_HUNT_CROSSLEY);
    ENSURE(strcmp(tch_point_law_name(TCH_POINT_LAW_LINEAR), "linear") == 0);
}

static void test_model_name(void) {
    tch_spec* spec = tch_spec_create();
    ENSURE(strcmp(tch_spec_model_name(spec), "") == 0);
    tch_spec_set_model_name(spec, "stack");
    ENSURE(strcmp(tch_spec_model_name(spec), "stack") == 0);
    tch_spec_destroy(spec);
}

static void test_many_elements_grow(void) {
    tch_spec* spec = tch_spec_create();
    for (int i = 0; i < 1000; ++i) {
        tch_geom_def g = tch_geom_def_default();
        g.size[0] = i;
        ENSURE(tch_spec_add_geom(spec, TCH_WORLD_BODY, &g, NULL, NULL) == TCH_OK);
    }
    ENSURE(tch_spec_geom_count(spec) == 1000);
    ENSURE(tch_spec_geom(spec, (tch_geom_id){1000})->size[0] == 999);
    tch_spec_destroy(spec);
}

int main(void) {
    RUN_TEST(test_defaults);
    RUN_TEST(test_uninitialised_def_is_rejected);
    RUN_TEST(test_bodies_parents_and_names);
    RUN_TEST(test_geoms_meshes_pairs);
    RUN_TEST(test_keys_are_copied);
    RUN_TEST(test_warnings_and_override);
    RUN_TEST(test_enum_names);
    RUN_TEST(test_integrator_names);
    RUN_TEST(test_contact_setters);
    RUN_TEST(test_updates);
    RUN_TEST(test_model_name);
    RUN_TEST(test_many_elements_grow);
    return TEST_RESULT();
}
