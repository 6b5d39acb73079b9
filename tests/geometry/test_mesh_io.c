/* Mesh readers (OBJ, binary and ASCII STL) and the corpus of broken files in bad/. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>

#include "geometry/hull.h"
#include "geometry/mesh_io.h"
#include "test.h"

#define DATA_DIR TCH_SOURCE_DIR "/tests/geometry/data/"
#define BAD_DIR TCH_SOURCE_DIR "/tests/geometry/bad/"

static int has_vertex(const tch_vec3* v, int count, tch_real x, tch_real y, tch_real z) {
    for (int i = 0; i < count; ++i) {
        if (v[i].x == x && v[i].y == y && v[i].z == z) {
            return 1;
        }
    }
    return 0;
}

static int is_sorted_unique(const tch_vec3* v, int count) {
    for (int i = 1; i < count; ++i) {
        const tch_vec3 a = v[i - 1], b = v[i];
        int less = a.x < b.x || (a.x == b.x && (a.y < b.y || (a.y == b.y && a.z < b.z)));
        if (!less) {
            return 0;
        }
    }
    return 1;
}

static int is_unit_cube(const tch_vec3* v, int count) {
    if (count != 8 || !is_sorted_unique(v, count)) {
        return 0;
    }
    for (int i = 0; i < 8; ++i) {
        if (!has_vertex(v, count, i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, i & 4 ? 0.5 : -0.5)) {
            return 0;
        }
    }
    return 1;
}

static void test_obj_cube(void) {
    tch_vec3* v = NULL;
    int count = 0;
    tch_error err;
    ENSURE(tch_mesh_read_vertices(DATA_DIR "cube.obj", &v, &count, &err) == TCH_OK);
    int ok = is_unit_cube(v, count);
    free(v);
    ENSURE(ok);
}

/* CRLF line ends, tabs, leading blanks, a missing final newline, repeated vertices, -0. */
static void test_obj_buffer_variants(void) {
    const char text[] = "# c\r\n\tv 1 2 3\r\n  v\t4 5 6\r\nv 1 2 3\nvt 9 9\nv -0 0 0\nv 0 -0.0 0";
    tch_vec3* v = NULL;
    int count = 0;
    ENSURE(tch_mesh_read_vertices_buffer(text, sizeof text - 1, "inline.obj", "obj", &v, &count,
                                         NULL) == TCH_OK);
    int ok = count == 3 && is_sorted_unique(v, count) && has_vertex(v, count, 4, 5, 6) &&
             has_vertex(v, count, 0, 0, 0) && !signbit(v[0].x) && !signbit(v[0].y);
    free(v);
    ENSURE(ok);
}

static void put_f32(unsigned char* p, float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    for (int i = 0; i < 4; ++i) {
        p[i] = (unsigned char)(bits >> (8 * i));
    }
}

/* A binary STL of the unit cube (12 triangles, 36 corners); `header` starts the 80 bytes. */
static size_t cube_binary_stl(unsigned char* out, const char* header) {
    static const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                    {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    memset(out, 0, 84);
    memcpy(out, header, strlen(header));
    out[80] = 12;
    size_t pos = 84;
    for (int f = 0; f < 6; ++f) {
        const int corners[2][3] = {{faces[f][0], faces[f][1], faces[f][2]},
                                   {faces[f][0], faces[f][2], faces[f][3]}};
        for (int t = 0; t < 2; ++t) {
            memset(out + pos, 0, 50);
            for (int k = 0; k < 3; ++k) {
                int c = corners[t][k];
                unsigned char* p = out + pos + 12 * (k + 1);
                put_f32(p, c & 1 ? 0.5f : -0.5f);
                put_f32(p + 4, c & 2 ? 0.5f : -0.5f);
                put_f32(p + 8, c & 4 ? 0.5f : -0.5f);
            }
            pos += 50;
        }
    }
    return pos;
}

static void test_binary_stl_cube_file(void) {
    unsigned char bytes[84 + 12 * 50];
    size_t size = cube_binary_stl(bytes, "binary cube");
    FILE* f = fopen("cube_binary.stl", "wb");
    ENSURE(f != NULL);
    ENSURE(fwrite(bytes, 1, size, f) == size);
    fclose(f);
    tch_vec3* v = NULL;
    int count = 0;
    ENSURE(tch_mesh_read_vertices("cube_binary.stl", &v, &count, NULL) == TCH_OK);
    int ok = is_unit_cube(v, count);
    free(v);
    remove("cube_binary.stl");
    ENSURE(ok);
}

/* Exporters that start the binary header with "solid": the size decides. */
static void test_binary_stl_with_solid_header(void) {
    unsigned char bytes[84 + 12 * 50];
    size_t size = cube_binary_stl(bytes, "solid cube");
    tch_vec3* v = NULL;
    int count = 0;
    ENSURE(tch_mesh_read_vertices_buffer((const char*)bytes, size, "cube.stl", NULL, &v, &count,
                                         NULL) == TCH_OK);
    int ok = is_unit_cube(v, count);
    free(v);
    ENSURE(ok);
}

static void test_ascii_stl_tetrahedron(void) {
    tch_vec3* v = NULL;
    int count = 0;
    ENSURE(tch_mesh_read_vertices(DATA_DIR "tetrahedron.stl", &v, &count, NULL) == TCH_OK);
    int ok = count == 4 && is_sorted_unique(v, count) && has_vertex(v, count, 0, 0, 0) &&
             has_vertex(v, count, 1, 0, 0) && has_vertex(v, count, 0, 1, 0) &&
             has_vertex(v, count, 0, 0, 1);
    free(v);
    ENSURE(ok);
}

/* The order of the input does not change the output. */
static void test_output_is_deterministic(void) {
    const char a[] = "v 3 1 2\nv 1 1 1\nv 0 5 0\nv 1 1 1\nv -2 0 9\n";
    const char b[] = "v -2 0 9\nv 0 5 0\nv 1 1 1\nv 3 1 2\n";
    tch_vec3 *va = NULL, *vb = NULL;
    int ca = 0, cb = 0;
    ENSURE(tch_mesh_read_vertices_buffer(a, sizeof a - 1, "a", "obj", &va, &ca, NULL) == TCH_OK);
    ENSURE(tch_mesh_read_vertices_buffer(b, sizeof b - 1, "b", NULL, &vb, &cb, NULL) == TCH_OK);
    int same = ca == 4 && cb == 4 && memcmp(va, vb, 4 * sizeof *va) == 0;
    free(va);
    free(vb);
    ENSURE(same);
}

static void test_missing_file_is_io_error(void) {
    tch_vec3* v = (tch_vec3*)&v;
    int count = 7;
    tch_error err;
    ENSURE(tch_mesh_read_vertices("no/such/mesh.obj", &v, &count, &err) == TCH_ERR_IO);
    ENSURE(v == NULL && count == 0);
    ENSURE(strcmp(err.file, "no/such/mesh.obj") == 0);
    ENSURE(strstr(err.message, "cannot read mesh file") != NULL);
    ENSURE(tch_mesh_read_vertices(DATA_DIR, &v, &count, &err) == TCH_ERR_IO);
    ENSURE(strstr(err.message, "directory") != NULL);
}

/* ---- the corpus of broken files ---- */

typedef struct bad_file {
    const char* name;
    tch_status status;
    int line;           /* expected err.line (0: none) */
    const char* phrase; /* expected in the message */
} bad_file;

static const bad_file bad_files[] = {
    {"empty.obj", TCH_ERR_PARSE, 0, "empty"},
    {"empty.stl", TCH_ERR_PARSE, 0, "empty"},
    {"no_vertices.obj", TCH_ERR_PARSE, 0, "no vertices"},
    {"malformed_number.obj", TCH_ERR_PARSE, 3, "malformed vertex line 'v 1.0 abc 2.0'"},
    {"missing_coordinate.obj", TCH_ERR_PARSE, 2, "expected 'v x y z'"},
    {"nan_vertex.obj", TCH_ERR_PARSE, 2, "not finite"},
    {"infinite_vertex.obj", TCH_ERR_PARSE, 4, "not finite"},
    {"coplanar.obj", TCH_ERR_INVALID_ARGUMENT, 0, "coplanar"},
    {"three_points.obj", TCH_ERR_INVALID_ARGUMENT, 0, "at least 4 points, got 3"},
    {"collinear.obj", TCH_ERR_INVALID_ARGUMENT, 0, "collinear"},
    {"coincident.obj", TCH_ERR_INVALID_ARGUMENT, 0, "at least 4 points, got 1"},
    {"ascii_bad_vertex.stl", TCH_ERR_PARSE, 5, "expected 'vertex x y z'"},
    {"ascii_unknown_keyword.stl", TCH_ERR_PARSE, 4, "unexpected line"},
    {"ascii_no_vertices.stl", TCH_ERR_PARSE, 0, "no vertices"},
    {"too_short.stl", TCH_ERR_PARSE, 0, "too short"},
    {"truncated_binary.stl", TCH_ERR_PARSE, 0, "should be 184 bytes (84 + 50 x 2), but it is 159"},
    {"truncated_binary_solid_header.stl", TCH_ERR_PARSE, 0, "should be 234 bytes"},
    {"zero_triangles.stl", TCH_ERR_PARSE, 0, "0 triangles"},
    {"nan_binary.stl", TCH_ERR_PARSE, 0, "triangle 0, vertex 1 is not finite"},
    {"unsupported_format.ply", TCH_ERR_UNSUPPORTED, 0, "'ply' is not supported yet"},
};
enum { bad_file_count = sizeof bad_files / sizeof bad_files[0] };

static void test_bad_files_fail_cleanly(void) {
    for (int i = 0; i < bad_file_count; ++i) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", BAD_DIR, bad_files[i].name);
        tch_convex_hull hull;
        tch_error err;
        memset(&err, 0, sizeof err);
        tch_status status = tch_hull_from_mesh_file(path, &hull, &err);
        if (status != bad_files[i].status || strcmp(err.file, path) != 0 ||
            err.line != bad_files[i].line || !strstr(err.message, bad_files[i].phrase)) {
            fprintf(stderr, "%s: status %s line %d file '%s': %s\n", bad_files[i].name,
                    tch_status_name(status), err.line, err.file, err.message);
        }
        ENSURE(status == bad_files[i].status);
        ENSURE(err.status == status);
        ENSURE(strcmp(err.file, path) == 0);
        ENSURE(err.line == bad_files[i].line);
        ENSURE(strstr(err.message, bad_files[i].phrase) != NULL);
        ENSURE(hull.vertices_G == NULL && hull.face_count == 0);
    }
}

/* Every file of bad/ is listed above, so that none is silently left untested. */
static void test_bad_corpus_is_listed(void) {
    DIR* dir = opendir(BAD_DIR);
    ENSURE(dir != NULL);
    int files = 0, unlisted = 0;
    struct dirent* entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.') {
            continue;
        }
        ++files;
        int listed = 0;
        for (int i = 0; i < bad_file_count; ++i) {
            listed |= strcmp(entry->d_name, bad_files[i].name) == 0;
        }
        if (!listed) {
            fprintf(stderr, "bad/%s is not in the table of test_mesh_io.c\n", entry->d_name);
            ++unlisted;
        }
    }
    closedir(dir);
    ENSURE(unlisted == 0);
    ENSURE(files == bad_file_count);
}

/* The element of a binary STL error names the triangle. */
static void test_binary_error_names_triangle(void) {
    tch_vec3* v = NULL;
    int count = 0;
    tch_error err;
    ENSURE(tch_mesh_read_vertices(BAD_DIR "nan_binary.stl", &v, &count, &err) == TCH_ERR_PARSE);
    ENSURE(strcmp(err.element, "triangle 0") == 0);
}

int main(void) {
    RUN_TEST(test_obj_cube);
    RUN_TEST(test_obj_buffer_variants);
    RUN_TEST(test_binary_stl_cube_file);
    RUN_TEST(test_binary_stl_with_solid_header);
    RUN_TEST(test_ascii_stl_tetrahedron);
    RUN_TEST(test_output_is_deterministic);
    RUN_TEST(test_missing_file_is_io_error);
    RUN_TEST(test_bad_files_fail_cleanly);
    RUN_TEST(test_bad_corpus_is_listed);
    RUN_TEST(test_binary_error_names_triangle);
    return TEST_RESULT();
}
