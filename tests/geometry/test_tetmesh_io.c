/* Tet mesh files: VTK legacy and Gmsh v2 / v4.1 readers on hand-written files, exact write/read
 * round trips, and the bad-file corpus (tests/geometry/tetbad/MANIFEST). */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "geometry/tetmesh.h"
#include "math/vec.h"
#include "test.h"
#include "test_tetmesh.h"

#define DATA_DIR TCH_SOURCE_DIR "/tests/geometry/tetdata/"
#define BAD_DIR TCH_SOURCE_DIR "/tests/geometry/tetbad/"

/* The 4 tets of the unit corner tet split at its centroid (vertex 4), as the data files hold. */
static const char* check_fan(const tch_tetmesh* m) {
    static const tch_vec3 corners[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1},
                                        {0.25, 0.25, 0.25}};
    if (m->vertex_count != 5 || m->tet_count != 4 || m->face_count != 4) {
        return "expected 5 vertices, 4 tets, 4 boundary faces";
    }
    for (int v = 0; v < 5; ++v) {
        if (tch_v3_dist(m->vertices_G[v], corners[v]) != 0) {
            return "a vertex is not where the file puts it";
        }
    }
    if (fabs(m->volume - 1.0 / 6) > 1e-15) {
        return "volume is not 1/6";
    }
    return NULL;
}

#define ENSURE_FAN(m) ENSURE_NO_REASON(check_fan(m))

/* Reads a data file, printing the error when it fails. */
static tch_status read_data(const char* path, tch_tetmesh* m, tch_tetmesh_file_info* info) {
    tch_error err;
    tch_status status = tch_tetmesh_read(path, m, info, &err);
    if (status != TCH_OK) {
        fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.message);
    }
    return status;
}

static void test_drake_style_pressure_field(void) {
    tch_tetmesh m;
    tch_tetmesh_file_info info;
    ENSURE(read_data(DATA_DIR "fan_pressure.vtk", &m, &info) == TCH_OK);
    ENSURE_FAN(&m);
    ENSURE(info.format == TCH_TETMESH_FORMAT_VTK);
    ENSURE(strcmp(info.field_name, "pressure[Pa]") == 0);
    ENSURE(info.field_scale == 1e5);
    ENSURE(m.has_field && m.epsilon[4] == 1 && m.epsilon[0] == 0);
    /* ε = 1 at the centroid: on tet (4 1 2 3) the gradient points from face (1 2 3) inward,
     * of size 1 / (distance of the centroid from that face) = 1 / (√3 / 12) */
    ENSURE_NEAR(tch_v3_norm(m.tet_gradient_G[0]), 12 / sqrt(3.0), 1e-12);
    tch_tetmesh_free(&m);
}

static void test_vtk51_layout_prefers_epsilon(void) {
    tch_tetmesh m;
    tch_tetmesh_file_info info;
    ENSURE(read_data(DATA_DIR "fan_v51.vtk", &m, &info) == TCH_OK);
    ENSURE_FAN(&m);
    ENSURE(strcmp(info.field_name, "epsilon") == 0 && info.field_scale == 1);
    ENSURE(m.epsilon[4] == 0.5);
    tch_tetmesh_free(&m);
}

static void test_file_without_field(void) {
    tch_tetmesh m;
    tch_tetmesh_file_info info;
    ENSURE(tch_tetmesh_read(DATA_DIR "fan_nofield.vtk", &m, &info, NULL) == TCH_OK);
    ENSURE_FAN(&m);
    ENSURE(!m.has_field && m.epsilon == NULL && m.tet_gradient_G == NULL);
    ENSURE(info.field_name[0] == '\0');
    tch_tetmesh_free(&m);
}

static void test_gmsh_v2_ignores_other_elements(void) {
    tch_tetmesh m;
    tch_tetmesh_file_info info;
    ENSURE(read_data(DATA_DIR "fan_v2.msh", &m, &info) == TCH_OK);
    ENSURE_FAN(&m); /* node 60, used only by a point and a line, is dropped */
    ENSURE(info.format == TCH_TETMESH_FORMAT_GMSH2);
    ENSURE(strcmp(info.field_name, "epsilon") == 0 && m.epsilon[4] == 0.75);
    tch_tetmesh_free(&m);
}

static void test_gmsh_v41_blocks(void) {
    tch_tetmesh m;
    tch_tetmesh_file_info info;
    ENSURE(read_data(DATA_DIR "fan_v41.msh", &m, &info) == TCH_OK);
    ENSURE_FAN(&m);
    ENSURE(info.format == TCH_TETMESH_FORMAT_GMSH4 && !m.has_field);
    tch_tetmesh_free(&m);
}

static int same_mesh(const tch_tetmesh* a, const tch_tetmesh* b) {
    size_t nv = (size_t)a->vertex_count, nt = (size_t)a->tet_count;
    if (a->vertex_count != b->vertex_count || a->tet_count != b->tet_count ||
        a->has_field != b->has_field || a->face_count != b->face_count) {
        return 0;
    }
    if (memcmp(a->vertices_G, b->vertices_G, nv * sizeof *a->vertices_G) != 0 ||
        memcmp(a->tets, b->tets, nt * sizeof *a->tets) != 0) {
        return 0;
    }
    return !a->has_field || (memcmp(a->epsilon, b->epsilon, nv * sizeof *a->epsilon) == 0 &&
                             memcmp(a->tet_gradient_G, b->tet_gradient_G,
                                    nt * sizeof *a->tet_gradient_G) == 0);
}

static void test_round_trips_are_exact(void) {
    static const char* const paths[3] = {"roundtrip.vtk", "roundtrip_v2.msh", "roundtrip_v41.msh"};
    tch_tetmesh original;
    ENSURE(tch_tetmesh_make_ellipsoid(tch_v3(0.3, 0.2, 0.1), 0.05, &original, NULL) == TCH_OK);
    for (int f = 0; f < 3; ++f) {
        tch_error err;
        ENSURE(tch_tetmesh_write(&original, (tch_tetmesh_format)f, paths[f], &err) == TCH_OK);
        tch_tetmesh back;
        tch_tetmesh_file_info info;
        tch_status status = tch_tetmesh_read(paths[f], &back, &info, &err);
        if (status != TCH_OK) {
            fprintf(stderr, "%s:%d: %s\n", err.file, err.line, err.message);
        }
        ENSURE(status == TCH_OK);
        ENSURE(info.format == (tch_tetmesh_format)f);
        ENSURE(same_mesh(&original, &back));
        tch_tetmesh_free(&back);
        remove(paths[f]);
    }
    tch_tetmesh_free(&original);
    /* and without a field, through memory */
    ENSURE(tch_tetmesh_read(DATA_DIR "fan_nofield.vtk", &original, NULL, NULL) == TCH_OK);
    for (int f = 0; f < 3; ++f) {
        char* text;
        size_t size;
        ENSURE(tch_tetmesh_format_text(&original, (tch_tetmesh_format)f, &text, &size, NULL) ==
               TCH_OK);
        ENSURE(strlen(text) == size);
        tch_tetmesh back;
        ENSURE(tch_tetmesh_read_buffer(text, size, "memory", &back, NULL, NULL) == TCH_OK);
        ENSURE(same_mesh(&original, &back) && !back.has_field);
        tch_tetmesh_free(&back);
        free(text);
    }
    tch_tetmesh_free(&original);
}

static tch_status status_from_name(const char* name) {
    if (strcmp(name, "parse") == 0) {
        return TCH_ERR_PARSE;
    }
    if (strcmp(name, "invalid_argument") == 0) {
        return TCH_ERR_INVALID_ARGUMENT;
    }
    return strcmp(name, "unsupported") == 0 ? TCH_ERR_UNSUPPORTED : TCH_OK;
}

/* One MANIFEST line: the file fails with the status, on the line, with the phrase. */
static int check_bad_file(const char* entry) {
    char file[128], status_name[64], path[512];
    int line, used = 0;
    if (sscanf(entry, "%127s %63s %d %n", file, status_name, &line, &used) != 3 || used == 0) {
        fprintf(stderr, "malformed MANIFEST line: %s\n", entry);
        return 0;
    }
    const char* phrase = entry + used;
    snprintf(path, sizeof path, BAD_DIR "%s", file);
    tch_tetmesh m;
    tch_error err;
    tch_error_clear(&err);
    tch_status status = tch_tetmesh_read(path, &m, NULL, &err);
    int ok = status == status_from_name(status_name) && err.line == line &&
             strstr(err.message, phrase) != NULL && strcmp(err.file, path) == 0 &&
             m.vertices_G == NULL;
    printf("     %-24s line %-3d %s\n", file, err.line, err.message);
    if (!ok) {
        fprintf(stderr, "%s: got status %d line %d '%s'; expected %s line %d '%s'\n", file,
                (int)status, err.line, err.message, status_name, line, phrase);
        tch_tetmesh_free(&m);
    }
    return ok;
}

static void test_bad_corpus_gives_clear_errors(void) {
    FILE* f = fopen(BAD_DIR "MANIFEST", "r");
    ENSURE(f != NULL);
    char entry[512];
    int checked = 0, failed = 0;
    while (fgets(entry, sizeof entry, f)) {
        entry[strcspn(entry, "\n")] = '\0';
        if (entry[0] == '#' || entry[0] == '\0') {
            continue;
        }
        failed += !check_bad_file(entry);
        checked++;
    }
    fclose(f);
    ENSURE(checked >= 20 && failed == 0);
}

static void test_missing_file_is_an_io_error(void) {
    tch_tetmesh m;
    tch_error err;
    ENSURE(tch_tetmesh_read(BAD_DIR "does_not_exist.vtk", &m, NULL, &err) == TCH_ERR_IO);
    ENSURE(strstr(err.message, "cannot read") != NULL);
}

/* Every prefix of a valid file fails cleanly or succeeds (a crude fuzz of truncation). */
static void test_every_truncation_fails_cleanly(void) {
    static const char* const files[] = {DATA_DIR "fan_v2.msh", DATA_DIR "fan_v41.msh",
                                        DATA_DIR "fan_v51.vtk"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k) {
        FILE* f = fopen(files[k], "rb");
        ENSURE(f != NULL);
        char bytes[4096];
        size_t size = fread(bytes, 1, sizeof bytes, f);
        fclose(f);
        for (size_t n = 0; n < size; ++n) {
            tch_tetmesh m;
            tch_error err;
            tch_status status = tch_tetmesh_read_buffer(bytes, n, "prefix", &m, NULL, &err);
            if (status == TCH_OK) {
                tch_tetmesh_free(&m);
            } else {
                ENSURE(err.message[0] != '\0' && strcmp(err.file, "prefix") == 0);
            }
        }
    }
}

int main(void) {
    RUN_TEST(test_drake_style_pressure_field);
    RUN_TEST(test_vtk51_layout_prefers_epsilon);
    RUN_TEST(test_file_without_field);
    RUN_TEST(test_gmsh_v2_ignores_other_elements);
    RUN_TEST(test_gmsh_v41_blocks);
    RUN_TEST(test_round_trips_are_exact);
    RUN_TEST(test_bad_corpus_gives_clear_errors);
    RUN_TEST(test_missing_file_is_an_io_error);
    RUN_TEST(test_every_truncation_fails_cleanly);
    return TEST_RESULT();
}
