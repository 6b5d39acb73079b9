/* The public tet mesh API (include/touche/tetmesh.h), used only through touche/touche.h. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../harness/test.h"
#include "touche/touche.h"

static const double pi = 3.14159265358979323846;

static void temp_path(char* path, size_t size, const char* suffix) {
    const char* dir = getenv("TMPDIR");
    snprintf(path, size, "%s/touche_tetmesh_api_%d%s", dir ? dir : "/tmp", (int)getpid(), suffix);
}

/* A sphere mesh's volume is 4/3 π R³ within 1e-5 (its surface is fitted to cut through the
 * sphere); ε is 0 on the surface and 1 - |p|/R inside (the paper's linear field), within the
 * fitted points' offset outside R (h² / 6R on average, 0.2% of R at h = R/10). */
static void test_sphere_field_is_linear_in_depth(void) {
    tch_tetmesh* mesh = NULL;
    const tch_real size[3] = {0.5, 0, 0};
    ENSURE(tch_tetmesh_create_shape(TCH_TETMESH_SPHERE, size, 0.05, 0, &mesh, NULL) == TCH_OK);
    double exact = 4.0 / 3.0 * pi * 0.125;
    ENSURE_REL(tch_tetmesh_volume(mesh), exact, 1e-5);
    const tch_vec3* v = tch_tetmesh_vertices(mesh);
    const tch_real* epsilon = tch_tetmesh_epsilon(mesh);
    double worst = 0;
    for (int i = 0; i < tch_tetmesh_vertex_count(mesh); ++i) {
        double r = sqrt(v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z);
        worst = fmax(worst, fabs(epsilon[i] - (1 - r / 0.5)));
    }
    tch_tetmesh_destroy(mesh);
    ENSURE(worst < 0.05 * 0.05 / (2 * 0.5 * 0.5));
}

/* Saving and loading gives the same mesh, in both formats. */
static void test_save_and_load_round_trip(void) {
    const char* suffixes[] = {".vtk", ".msh"};
    const tch_real size[3] = {0.3, 0.2, 0.1};
    tch_tetmesh* mesh = NULL;
    ENSURE(tch_tetmesh_create_shape(TCH_TETMESH_BOX, size, 0.1, 0, &mesh, NULL) == TCH_OK);
    for (int f = 0; f < 2; ++f) {
        char path[256];
        temp_path(path, sizeof path, suffixes[f]);
        tch_tetmesh* back = NULL;
        tch_status saved = tch_tetmesh_save(mesh, path, NULL);
        tch_status loaded = saved == TCH_OK ? tch_tetmesh_load(path, &back, NULL) : saved;
        remove(path);
        ENSURE(loaded == TCH_OK);
        int same = tch_tetmesh_tet_count(back) == tch_tetmesh_tet_count(mesh) &&
                   tch_tetmesh_vertex_count(back) == tch_tetmesh_vertex_count(mesh) &&
                   memcmp(tch_tetmesh_tets(back), tch_tetmesh_tets(mesh),
                          4 * sizeof(int) * (size_t)tch_tetmesh_tet_count(mesh)) == 0 &&
                   memcmp(tch_tetmesh_epsilon(back), tch_tetmesh_epsilon(mesh),
                          sizeof(tch_real) * (size_t)tch_tetmesh_vertex_count(mesh)) == 0;
        tch_tetmesh_destroy(back);
        ENSURE(same);
    }
    tch_tetmesh_destroy(mesh);
}

/* Arrays without a field get the Laplace field: 0 on the surface, 1 at its deepest vertices,
 * within [0, 1] everywhere (a harmonic function's maximum principle). */
static void test_arrays_without_field_get_laplace_field(void) {
    tch_tetmesh* sphere = NULL;
    const tch_real size[3] = {1, 0, 0};
    ENSURE(tch_tetmesh_create_shape(TCH_TETMESH_SPHERE, size, 0.25, 0, &sphere, NULL) == TCH_OK);
    int nv = tch_tetmesh_vertex_count(sphere);
    tch_real* xyz = malloc(3 * sizeof(tch_real) * (size_t)nv);
    for (int i = 0; i < nv; ++i) {
        tch_vec3 p = tch_tetmesh_vertices(sphere)[i];
        xyz[3 * i] = p.x, xyz[3 * i + 1] = p.y, xyz[3 * i + 2] = p.z;
    }
    tch_tetmesh* mesh = NULL;
    tch_status s = tch_tetmesh_create(xyz, nv, tch_tetmesh_tets(sphere),
                                      tch_tetmesh_tet_count(sphere), NULL, &mesh, NULL);
    free(xyz);
    const tch_real* surface_field = tch_tetmesh_epsilon(sphere);
    double lo = 1, hi = 0, on_surface = 0;
    for (int i = 0; s == TCH_OK && i < nv; ++i) {
        double e = tch_tetmesh_epsilon(mesh)[i];
        lo = fmin(lo, e), hi = fmax(hi, e);
        on_surface = surface_field[i] == 0 ? fmax(on_surface, fabs(e)) : on_surface;
    }
    tch_tetmesh_destroy(mesh);
    tch_tetmesh_destroy(sphere);
    ENSURE(s == TCH_OK);
    ENSURE_NEAR(hi, 1, 1e-12);
    ENSURE(lo >= 0);
    ENSURE(on_surface == 0);
}

/* A box with a compliant layer: ε = 1 on and inside the rigid core. */
static void test_box_layer_has_rigid_core(void) {
    tch_tetmesh* mesh = NULL;
    const tch_real size[3] = {0.5, 0.5, 0.5};
    ENSURE(tch_tetmesh_create_shape(TCH_TETMESH_BOX, size, 0.1, 0.1, &mesh, NULL) == TCH_OK);
    int core = 0, wrong = 0;
    for (int i = 0; i < tch_tetmesh_vertex_count(mesh); ++i) {
        tch_vec3 p = tch_tetmesh_vertices(mesh)[i];
        if (fmax(fabs(p.x), fmax(fabs(p.y), fabs(p.z))) <= 0.4 + 1e-12) {
            core++;
            wrong += fabs(tch_tetmesh_epsilon(mesh)[i] - 1) > 1e-12;
        }
    }
    tch_tetmesh_destroy(mesh);
    ENSURE(core > 0);
    ENSURE(wrong == 0);
}

static void test_bad_requests_fail_cleanly(void) {
    tch_tetmesh* mesh = (tch_tetmesh*)&mesh;
    tch_error err = {0};
    const tch_real size[3] = {0.5, 0.5, 0.5};
    ENSURE(tch_tetmesh_load("/nonexistent/mesh.vtk", &mesh, &err) == TCH_ERR_IO);
    ENSURE(mesh == NULL);
    ENSURE(strstr(err.message, "mesh.vtk") || strstr(err.file, "mesh.vtk"));
    ENSURE(tch_tetmesh_create_shape(TCH_TETMESH_CYLINDER, size, 0, 0.1, &mesh, &err) ==
           TCH_ERR_UNSUPPORTED);
    ENSURE(tch_tetmesh_create_shape(TCH_TETMESH_BOX, size, -1, 0, &mesh, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    const tch_real inverted_xyz[] = {0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1};
    const int tet[] = {0, 1, 2, 3};
    ENSURE(tch_tetmesh_create(inverted_xyz, 4, tet, 1, NULL, &mesh, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "inverted"));
    ENSURE(tch_tetmesh_create_shape(TCH_TETMESH_SPHERE, size, 0, 0, &mesh, NULL) == TCH_OK);
    ENSURE(tch_tetmesh_save(mesh, "/tmp/mesh.stl", &err) == TCH_ERR_INVALID_ARGUMENT);
    tch_tetmesh_destroy(mesh);
    tch_tetmesh_destroy(NULL);
}

int main(void) {
    RUN_TEST(test_sphere_field_is_linear_in_depth);
    RUN_TEST(test_save_and_load_round_trip);
    RUN_TEST(test_arrays_without_field_get_laplace_field);
    RUN_TEST(test_box_layer_has_rigid_core);
    RUN_TEST(test_bad_requests_fail_cleanly);
    return TEST_RESULT();
}
