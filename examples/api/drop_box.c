/* A small program on the public API: load a scene (or build one in C), step it, read a body.
 *
 *     cc drop_box.c $(pkg-config --cflags --libs touche) -o drop_box
 *     ./drop_box [SCENE.xml]
 */
#include <stdio.h>

#include <touche/touche.h>

/* A 1 kg box of 0.2 m dropped from 0.5 m onto a plane. */
static tch_spec* build_scene(void) {
    tch_spec* spec = tch_spec_create();
    tch_geom_def floor = tch_geom_def_default();
    floor.type = TCH_GEOM_PLANE;
    tch_spec_add_geom(spec, TCH_WORLD_BODY, &floor, NULL, NULL);
    tch_body_def body = tch_body_def_default();
    snprintf(body.name, sizeof body.name, "box");
    body.free_joint = true;
    body.p_PB = (tch_vec3){0, 0, 0.5};
    tch_body_id box = {0};
    tch_spec_add_body(spec, &body, &box, NULL);
    tch_geom_def geom = tch_geom_def_default();
    geom.type = TCH_GEOM_BOX;
    geom.size[0] = geom.size[1] = geom.size[2] = 0.1;
    geom.mass = 1;
    tch_spec_add_geom(spec, box, &geom, NULL, NULL);
    return spec;
}

int main(int argc, char** argv) {
    tch_error err;
    tch_spec* spec = NULL;
    if (argc > 1) {
        if (tch_mjcf_load(argv[1], &spec, &err) != TCH_OK) {
            fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.message);
            return 2;
        }
    } else {
        spec = build_scene();
    }
    tch_model* model = NULL;
    tch_data* data = NULL;
    if (tch_compile(spec, &model, &err) != TCH_OK || tch_data_create(model, &data, &err) != TCH_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    while (data->time < 1.0) {
        if (tch_step(model, data, &err) != TCH_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 3;
        }
    }
    tch_transform X;
    tch_vec3 v, w;
    tch_data_body_state(model, data, 1, &X, &v, &w);
    printf("after %.3f s body '%s' is at z = %.4f m with %d contacts\n", data->time,
           model->body_name[1], X.p.z, data->contact_count);
    tch_data_destroy(data);
    tch_model_destroy(model);
    tch_spec_destroy(spec);
    return 0;
}
