/* Rigid triangle meshes in the pressure model (docs/pressure-meshes.md, "Rigid triangle
 * meshes"): a rigid mesh geom keeps its own closed surface, not its convex hull. A ball held
 * in a bowl's hollow (where the hull holds it on the rim), a box-shaped mesh against the box
 * primitive, and the errors for meshes that are not closed or not consistently oriented. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "touche/touche.h"
#include "test.h"

static char temp_dir[] = "/tmp/touche_rigid_mesh_XXXXXX";

static int write_text(const char* name, const char* text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", temp_dir, name);
    FILE* f = fopen(path, "w");
    if (!f) return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

static tch_status load(const char* xml, const char* dir, tch_model** model, tch_error* err) {
    tch_spec* spec = NULL;
    *model = NULL;
    tch_status s = tch_mjcf_load_string(xml, dir, "scene.xml", &spec, err);
    if (s == TCH_OK) s = tch_compile(spec, model, err);
    tch_spec_destroy(spec);
    return s;
}

/* ---- a ball in a bowl ---- */

/* The bowl of examples/pressure_bowl.xml (make_bowl.py: outer radius 0.11 m, inner 0.1 m, rim
 * at z = 0.11 m in the world), a ball of radius 0.05 m dropped at its axis. */
static const char* bowl_scene(const char* file) {
    static char xml[2048];
    snprintf(xml, sizeof xml,
             "<mujoco xmlns:touche=\"urn:touche\">"
             "<option timestep=\"0.002\" touche:contact=\"pressure\"/>"
             "<asset><mesh name=\"bowl\" file=\"%s\"/></asset><worldbody>"
             "<geom name=\"bowl\" type=\"mesh\" mesh=\"bowl\" pos=\"0 0 0.11\" touche:rigid=\"true\""
             " friction=\"0.5 0.005 0.0001\"/>"
             "<body name=\"ball\" pos=\"0 0 0.2\"><freejoint/>"
             "<geom name=\"ball\" type=\"sphere\" size=\"0.05\" mass=\"0.2\""
             " touche:resolution=\"0.02\" friction=\"0.5 0.005 0.0001\"/></body>"
             "</worldbody></mujoco>",
             file);
    return xml;
}

/* Centre height, distance from the bowl's axis and speed of the ball after `duration` s. */
static int drop_ball(const char* xml, const char* dir, double duration, double* z, double* off,
                     double* speed) {
    tch_model* model;
    tch_data* data = NULL;
    tch_error err;
    if (load(xml, dir, &model, &err) != TCH_OK || tch_data_create(model, &data, &err) != TCH_OK) {
        fprintf(stderr, "bowl scene: %s\n", err.message);
        tch_model_destroy(model);
        return 0;
    }
    int ok = 1;
    for (int i = 0; ok && i < (int)(duration / 0.002 + 0.5); ++i) {
        ok = tch_step(model, data, &err) == TCH_OK;
    }
    *z = data->qpos[2];
    *off = hypot(data->qpos[0], data->qpos[1]);
    *speed = sqrt(data->qvel[0] * data->qvel[0] + data->qvel[1] * data->qvel[1] +
                  data->qvel[2] * data->qvel[2]);
    tch_data_destroy(data);
    tch_model_destroy(model);
    return ok;
}

/* At rest at the bottom of the hollow, centre 0.1 - 0.05 m below the rim (0.11 m): z = 0.06 m
 * less the small sink into the ball. (It rolls a few mm about the faceted bottom first, a
 * pendulum of period 2π √(1.4 (0.1 - 0.05) / g) = 0.53 s that only the contact's small losses
 * damp: 3 s after the drop its speed is below 1 cm/s, from the drop's 1.4 m/s.) The same bowl
 * as a vertex cloud (no faces: its hull, the filled hemisphere) holds the ball on the rim's
 * plane, its centre at 0.11 + 0.05 m. */
static void test_ball_rests_in_the_bowl_not_on_its_hull(void) {
    double z, off, speed;
    ENSURE(drop_ball(bowl_scene("bowl.obj"), TCH_SOURCE_DIR "/examples", 3, &z, &off, &speed));
    ENSURE(z < 0.11 - 0.04);
    ENSURE_NEAR(z, 0.06, 2e-3);
    ENSURE(off < 5e-3);
    ENSURE(speed < 1e-2);

    char source[256], line[256];
    snprintf(source, sizeof source, "%s/examples/bowl.obj", TCH_SOURCE_DIR);
    FILE* in = fopen(source, "r");
    char cloud[64];
    snprintf(cloud, sizeof cloud, "%s/bowl_cloud.obj", temp_dir);
    FILE* out = fopen(cloud, "w");
    ENSURE(in && out);
    while (fgets(line, sizeof line, in)) {
        if (line[0] == 'v') fputs(line, out);
    }
    fclose(in);
    fclose(out);
    ENSURE(drop_ball(bowl_scene("bowl_cloud.obj"), temp_dir, 0.8, &z, &off, &speed));
    ENSURE_NEAR(z, 0.11 + 0.05, 2e-3);
}

/* ---- a box-shaped mesh against the box primitive ---- */

/* The box [-0.25, 0.25] x [-0.125, 0.125] x [-0.0625, 0.0625] (binary fractions, exact as
 * floats in a binary STL) as an OBJ: the sides as quads (fanned by
 * the reader) in the "i/t/n", "i//n" and negative-index forms, the top cut into four triangles
 * about its centre (vertex 9), so the mesh's triangles are not the primitive's. */
static const char box_obj[] =
    "v -0.25 -0.125 -0.0625\nv 0.25 -0.125 -0.0625\nv -0.25 0.125 -0.0625\nv 0.25 0.125 -0.0625\n"
    "v -0.25 -0.125 0.0625\nv 0.25 -0.125 0.0625\nv -0.25 0.125 0.0625\nv 0.25 0.125 0.0625\n"
    "v 0 0 0.0625\n"
    "vt 0 0\nvn 0 0 1\n"
    "f 1/1/1 3/1/1 4/1/1 2/1/1\n"  /* bottom */
    "f 1//1 2//1 6//1 5//1\n"      /* y = -0.125 */
    "f -7 -3 -2 -6\n"              /* y = +0.125: 3 7 8 4 */
    "f 1 5 7 3\n"                  /* x = -0.25 */
    "f 2 4 8 6\n"                  /* x = +0.25 */
    "f 9 5 6\nf 9 6 8\nf 9 8 7\nf 9 7 5\n"; /* top */

/* The same box with every face wound inward (the reader turns it outward). */
static const char box_inward_obj[] =
    "v -0.25 -0.125 -0.0625\nv 0.25 -0.125 -0.0625\nv -0.25 0.125 -0.0625\nv 0.25 0.125 -0.0625\n"
    "v -0.25 -0.125 0.0625\nv 0.25 -0.125 0.0625\nv -0.25 0.125 0.0625\nv 0.25 0.125 0.0625\n"
    "f 2 4 3 1\nf 5 6 2 1\nf 4 8 7 3\nf 3 7 5 1\nf 6 8 4 2\nf 7 8 6 5\n";

/* Corner k (0..2) of triangle t (0..11) of the box, two triangles per face. */
static tch_vec3 box_corner(int t, int k) {
    static const int faces[6][4] = {{0, 2, 3, 1}, {0, 1, 5, 4}, {3, 2, 6, 7},
                                    {0, 4, 6, 2}, {1, 3, 7, 5}, {4, 5, 7, 6}};
    static const int fan[2][3] = {{0, 1, 2}, {0, 2, 3}};
    int c = faces[t / 2][fan[t % 2][k]];
    return (tch_vec3){c & 1 ? 0.25 : -0.25, c & 2 ? 0.125 : -0.125, c & 4 ? 0.0625 : -0.0625};
}

/* The box as an ASCII STL. */
static void box_stl(char* out, size_t size) {
    size_t n = (size_t)snprintf(out, size, "solid box\n");
    for (int t = 0; t < 12; ++t) {
        n += (size_t)snprintf(out + n, size - n, "facet normal 0 0 0\nouter loop\n");
        for (int k = 0; k < 3; ++k) {
            tch_vec3 v = box_corner(t, k);
            n += (size_t)snprintf(out + n, size - n, "vertex %g %g %g\n", v.x, v.y, v.z);
        }
        n += (size_t)snprintf(out + n, size - n, "endloop\nendfacet\n");
    }
    snprintf(out + n, size - n, "endsolid box\n");
}

/* The box as a binary STL (little-endian floats, as on every machine the tests run on; the
 * corners are exact as floats). */
static int write_box_binary_stl(const char* name) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", temp_dir, name);
    FILE* f = fopen(path, "wb");
    if (!f) return 0;
    unsigned char header[84] = {0};
    header[80] = 12;
    fwrite(header, 1, sizeof header, f);
    for (int t = 0; t < 12; ++t) {
        float record[12] = {0};
        for (int k = 0; k < 3; ++k) {
            tch_vec3 v = box_corner(t, k);
            record[3 + 3 * k] = (float)v.x, record[4 + 3 * k] = (float)v.y;
            record[5 + 3 * k] = (float)v.z;
        }
        fwrite(record, sizeof record, 1, f);
        fwrite("\0\0", 1, 2, f);
    }
    return fclose(f) == 0;
}

/* A compliant ball pressed 5 mm into the top of a rigid box (the primitive, or a mesh asset
 * given as `mesh_file` with `scale`), off the box's centre lines and turned. */
static const char* press_scene(const char* mesh_file, const char* scale) {
    static char xml[2048];
    char asset[512] = "", geom[512];
    if (mesh_file) {
        snprintf(asset, sizeof asset, "<mesh name=\"box\" file=\"%s\" scale=\"%s\"/>", mesh_file,
                 scale);
        snprintf(geom, sizeof geom,
                 "<geom name=\"box\" type=\"mesh\" mesh=\"box\" pos=\"0.01 0 0\""
                 " touche:rigid=\"true\"/>");
    } else {
        snprintf(geom, sizeof geom,
                 "<geom name=\"box\" type=\"box\" size=\"0.25 0.125 0.0625\" pos=\"0.01 0 0\""
                 " touche:rigid=\"true\"/>");
    }
    snprintf(xml, sizeof xml,
             "<mujoco xmlns:touche=\"urn:touche\">"
             "<option timestep=\"0.001\" touche:contact=\"pressure\"/>"
             "<asset>%s</asset><worldbody>%s"
             "<body name=\"ball\" pos=\"0.023 -0.017 0.1075\" euler=\"10 20 30\"><freejoint/>"
             "<geom name=\"ball\" type=\"sphere\" size=\"0.05\" mass=\"0.2\""
             " touche:resolution=\"0.02\" touche:modulus=\"1e6\"/></body>"
             "</worldbody></mujoco>",
             asset, geom);
    return xml;
}

typedef struct pressed {
    tch_vec3 force, moment;
    double area;
} pressed;

/* The pair's wrench on the ball at the initial pose (tch_forward). */
static int press(const char* mesh_file, const char* scale, pressed* out) {
    tch_model* model;
    tch_data* data = NULL;
    tch_error err;
    if (load(press_scene(mesh_file, scale), temp_dir, &model, &err) != TCH_OK ||
        tch_data_create(model, &data, &err) != TCH_OK ||
        tch_forward(model, data, &err) != TCH_OK || data->pair_result_count != 1) {
        fprintf(stderr, "press %s: %s\n", mesh_file ? mesh_file : "box", err.message);
        tch_data_destroy(data);
        tch_model_destroy(model);
        return 0;
    }
    const tch_pair_result* pair = &data->pair_results[0];
    *out = (pressed){pair->f_W, pair->tau_Wo_W, pair->area};
    tch_data_destroy(data);
    tch_model_destroy(model);
    return 1;
}

static double distance(tch_vec3 a, tch_vec3 b) {
    return sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

/* The surface is the box's top inside the ball whichever triangles cut the top: the same
 * polygons' union, with p linear on each, so the force and moment agree to round-off. */
static void test_box_mesh_matches_box_primitive(void) {
    char stl[8192];
    box_stl(stl, sizeof stl);
    ENSURE(write_text("box.obj", box_obj) && write_text("box_inward.obj", box_inward_obj) &&
           write_text("box.stl", stl) && write_box_binary_stl("box_binary.stl"));
    pressed primitive, mesh;
    ENSURE(press(NULL, NULL, &primitive));
    ENSURE(primitive.force.z > 1);
    /* the box mirrored in x by its scale is the same box, wound inside out until rewound */
    const char* files[] = {"box.obj", "box_inward.obj", "box.stl", "box_binary.stl", "box.obj"};
    const char* scales[] = {"1 1 1", "1 1 1", "1 1 1", "1 1 1", "-1 1 1"};
    for (int i = 0; i < 5; ++i) {
        ENSURE(press(files[i], scales[i], &mesh));
        double scale = fabs(primitive.force.z);
        ENSURE(distance(mesh.force, primitive.force) <= 1e-9 * scale);
        ENSURE(distance(mesh.moment, primitive.moment) <= 1e-9 * scale * 0.25);
        ENSURE_REL(mesh.area, primitive.area, 1e-9);
    }
}

/* ---- errors ---- */

static void expect_mesh_error(const char* name, const char* text, const char* phrase) {
    ENSURE(write_text(name, text));
    tch_model* model;
    tch_error err;
    memset(&err, 0, sizeof err);
    tch_status s = load(press_scene(name, "1 1 1"), temp_dir, &model, &err);
    tch_model_destroy(model);
    ENSURE(s == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.file, name) != NULL);
    ENSURE(strstr(err.message, "geom 'box'") != NULL);
    if (!strstr(err.message, phrase)) {
        fprintf(stderr, "message: %s\n", err.message);
    }
    ENSURE(strstr(err.message, phrase) != NULL);
}

static void test_open_or_flipped_mesh_is_an_error_naming_the_file(void) {
    /* the box without its top's last triangle: a hole */
    char open[sizeof box_obj];
    snprintf(open, sizeof open, "%s", box_obj);
    *strstr(open, "f 9 7 5\n") = '\0';
    expect_mesh_error("open.obj", open, "borders one triangle only (a hole)");
    /* one top triangle wound the other way */
    char flipped[sizeof box_obj];
    snprintf(flipped, sizeof flipped, "%s", box_obj);
    memcpy(strstr(flipped, "f 9 7 5\n"), "f 9 5 7\n", 8);
    expect_mesh_error("flipped.obj", flipped, "same direction by two triangles");
    /* a corner that is not a vertex read so far is a parse error with the line */
    ENSURE(write_text("bad_index.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 5\n"));
    tch_model* model;
    tch_error err;
    tch_spec* spec = NULL;
    ENSURE(tch_mjcf_load_string(press_scene("bad_index.obj", "1 1 1"), temp_dir, "scene.xml", &spec,
                                &err) == TCH_OK);
    ENSURE(tch_compile(spec, &model, &err) != TCH_OK);
    tch_spec_destroy(spec);
    ENSURE(strstr(err.file, "bad_index.obj") != NULL && err.line == 5);
    ENSURE(strstr(err.message, "corner '5'") != NULL);
}

int main(void) {
    if (!mkdtemp(temp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN_TEST(test_ball_rests_in_the_bowl_not_on_its_hull);
    RUN_TEST(test_box_mesh_matches_box_primitive);
    RUN_TEST(test_open_or_flipped_mesh_is_an_error_naming_the_file);
    const char* names[] = {"bowl_cloud.obj", "box.obj",  "box_inward.obj", "box.stl",
                           "box_binary.stl", "open.obj", "flipped.obj",    "bad_index.obj"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", temp_dir, names[i]);
        unlink(path);
    }
    rmdir(temp_dir);
    return TEST_RESULT();
}
