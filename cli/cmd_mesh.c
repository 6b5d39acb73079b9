/* touche mesh IN.obj|IN.stl OUT.vtk: tetrahedralizes a closed surface with gmsh or tetgen
 * (whichever is installed), gives the tet mesh the Laplace pressure field (Elandt et al. 2019,
 * sec. VI-A2) and writes it as a VTK unstructured grid (OUT.vtk) or a Gmsh 4.1 file (OUT.msh)
 * for touche:tetmesh, through the public tet mesh API (touche/tetmesh.h). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"

enum { PATH_BYTES = 1024 };

/* Whether `name` is an executable on PATH. */
static int tool_installed(const char* name) {
    char command[128];
    snprintf(command, sizeof command, "command -v %s >/dev/null 2>&1", name);
    return system(command) == 0;
}

static int has_extension(const char* path, const char* ext) {
    size_t n = strlen(path), e = strlen(ext);
    return n > e && strcasecmp(path + n - e, ext) == 0;
}

/* ---- the surface as ASCII STL (both tools read it) ---- */

static int copy_file(const char* from, const char* to) {
    FILE* in = fopen(from, "rb");
    FILE* out = in ? fopen(to, "wb") : NULL;
    char buffer[65536];
    size_t n;
    int ok = in && out;
    while (ok && (n = fread(buffer, 1, sizeof buffer, in)) > 0) {
        ok = fwrite(buffer, 1, n, out) == n;
    }
    if (in) fclose(in);
    if (out && fclose(out) != 0) ok = 0;
    return ok;
}

/* OBJ vertex index (1-based, or negative: relative to the end) to 0-based; -1 if invalid. */
static long obj_index(const char* token, long vertex_count) {
    char* end;
    long i = strtol(token, &end, 10);
    if (end == token) return -1;
    i = i < 0 ? vertex_count + i : i - 1;
    return i >= 0 && i < vertex_count ? i : -1;
}

typedef struct obj_vertices {
    double (*xyz)[3];
    long count, capacity;
} obj_vertices;

static int obj_add_vertex(obj_vertices* v, const char* line) {
    if (v->count == v->capacity) {
        long capacity = v->capacity ? 2 * v->capacity : 1024;
        void* grown = realloc(v->xyz, (size_t)capacity * sizeof *v->xyz);
        if (!grown) return 0;
        v->xyz = grown, v->capacity = capacity;
    }
    double* p = v->xyz[v->count];
    if (sscanf(line + 1, "%lf %lf %lf", &p[0], &p[1], &p[2]) != 3) return 0;
    ++v->count;
    return 1;
}

/* Writes face `line` ("f a b c ...", indices as a, a/t or a/t/n) fanned into triangles. */
static int obj_write_face(FILE* out, const obj_vertices* v, char* line) {
    long ids[64];
    int n = 0;
    for (char* token = strtok(line + 1, " \t\r\n"); token && n < 64;
         token = strtok(NULL, " \t\r\n")) {
        if ((ids[n++] = obj_index(token, v->count)) < 0) return 0;
    }
    for (int k = 1; k + 1 < n; ++k) {
        long t[3] = {ids[0], ids[k], ids[k + 1]};
        fprintf(out, "facet normal 0 0 0\nouter loop\n");
        for (int c = 0; c < 3; ++c) {
            fprintf(out, "vertex %.17g %.17g %.17g\n", v->xyz[t[c]][0], v->xyz[t[c]][1],
                    v->xyz[t[c]][2]);
        }
        fprintf(out, "endloop\nendfacet\n");
    }
    return n >= 3;
}

/* Converts the OBJ's v and f lines to an ASCII STL; prints what is wrong and returns 0. */
static int obj_to_stl(const char* from, const char* to) {
    FILE* in = fopen(from, "r");
    if (!in) {
        fprintf(stderr, "touche: cannot open '%s'\n", from);
        return 0;
    }
    FILE* out = fopen(to, "w");
    obj_vertices v = {NULL, 0, 0};
    char line[4096];
    int ok = out != NULL, line_number = 0, faces = 0;
    if (out) fprintf(out, "solid surface\n");
    while (ok && fgets(line, sizeof line, in)) {
        ++line_number;
        if (line[0] == 'v' && (line[1] == ' ' || line[1] == '\t')) {
            ok = obj_add_vertex(&v, line);
        } else if (line[0] == 'f' && (line[1] == ' ' || line[1] == '\t')) {
            ok = obj_write_face(out, &v, line);
            ++faces;
        }
        if (!ok) {
            fprintf(stderr, "touche: %s:%d: expected 'v x y z' or 'f i j k ...' with vertex "
                    "indices in range\n", from, line_number);
        }
    }
    if (ok && faces == 0) {
        fprintf(stderr, "touche: %s has no faces; expected a closed triangulated surface\n", from);
        ok = 0;
    }
    if (out) {
        fprintf(out, "endsolid surface\n");
        if (fclose(out) != 0) ok = 0;
    }
    fclose(in);
    free(v.xyz);
    return ok;
}

/* ---- the mesher ---- */

/* Target tet edge length: a fifteenth of the surface's bounding box diagonal, so that the
 * mesh has interior vertices for the field; 0 after printing why the surface is unreadable. */
static double target_edge(const char* surface) {
    tch_vec3* v = NULL;
    int n = 0;
    tch_error err;
    if (tch_mesh_read_vertices(surface, &v, &n, &err) != TCH_OK || n == 0) {
        cli_print_error("cannot read the surface", &err);
        free(v);
        return 0;
    }
    tch_vec3 lo = v[0], hi = v[0];
    for (int i = 1; i < n; ++i) {
        lo = (tch_vec3){fmin(lo.x, v[i].x), fmin(lo.y, v[i].y), fmin(lo.z, v[i].z)};
        hi = (tch_vec3){fmax(hi.x, v[i].x), fmax(hi.y, v[i].y), fmax(hi.z, v[i].z)};
    }
    free(v);
    return sqrt((hi.x - lo.x) * (hi.x - lo.x) + (hi.y - lo.y) * (hi.y - lo.y) +
                (hi.z - lo.z) * (hi.z - lo.z)) / 15;
}

/* Runs the installed tool on dir/surface.stl with tets of about edge h; the tet mesh file name
 * goes to `result`. Returns EXIT_OK, or EXIT_BAD_INPUT after printing why. */
static int run_mesher(const char* dir, double h, char* result, size_t size) {
    char command[3 * PATH_BYTES];
    if (tool_installed("gmsh")) {
        char geo[PATH_BYTES];
        snprintf(geo, sizeof geo, "%s/surface.geo", dir);
        FILE* f = fopen(geo, "w");
        if (!f) {
            fprintf(stderr, "touche: cannot write '%s'\n", geo);
            return EXIT_BAD_INPUT;
        }
        fprintf(f, "Merge \"%s/surface.stl\";\nSurface Loop(1) = {1};\nVolume(1) = {1};\n", dir);
        fclose(f);
        snprintf(result, size, "%s/volume.msh", dir);
        snprintf(command, sizeof command,
                 "gmsh -3 -v 1 -clmax %.9g -format msh41 -o '%s' '%s' >&2", h, result, geo);
    } else if (tool_installed("tetgen")) {
        /* -p: a piecewise linear complex, -q: quality tets, -a: largest tet volume (a regular
         * tet of edge h has h³/(6√2)), -k: VTK output, -Q: quiet */
        snprintf(result, size, "%s/surface.1.vtk", dir);
        snprintf(command, sizeof command, "tetgen -pqkQ -a%.9g '%s/surface.stl' >&2",
                 h * h * h / (6 * sqrt(2.0)), dir);
    } else {
        fprintf(stderr, "touche: neither gmsh nor tetgen is installed: `touche mesh` needs one of "
                        "them on PATH to tetrahedralize a surface (e.g. apt-get install gmsh)\n");
        return EXIT_BAD_INPUT;
    }
    if (system(command) != 0) {
        fprintf(stderr, "touche: the mesher failed (%s); is the surface closed and free of "
                        "self-intersections?\n", command);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/* Reads the tool's tet mesh, gives it the Laplace field and writes it to `out_path`. */
static int convert(const char* mesh_path, const char* out_path) {
    tch_tetmesh* mesh = NULL;
    tch_error err;
    tch_status s = tch_tetmesh_load(mesh_path, &mesh, &err);
    if (s == TCH_OK) s = tch_tetmesh_save(mesh, out_path, &err);
    if (s != TCH_OK) {
        cli_print_error("cannot make the tet mesh", &err);
    } else {
        printf("%s: %d vertices, %d tets, volume %.6g m^3, Laplace field 0 on the surface\n",
               out_path, tch_tetmesh_vertex_count(mesh), tch_tetmesh_tet_count(mesh),
               tch_tetmesh_volume(mesh));
    }
    tch_tetmesh_destroy(mesh);
    return s == TCH_OK ? EXIT_OK : EXIT_BAD_INPUT;
}

/* Removes the temporary directory and the files the tools left in it. */
static void remove_directory(const char* dir) {
    DIR* d = opendir(dir);
    for (struct dirent* e = d ? readdir(d) : NULL; e; e = readdir(d)) {
        char path[PATH_BYTES];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    if (rmdir(dir) != 0) fprintf(stderr, "touche mesh: could not remove %s\n", dir);
}

int cli_cmd_mesh(const cli_options* o) {
    const char* in = o->scene;
    if (!has_extension(o->output, ".vtk") && !has_extension(o->output, ".msh")) {
        fprintf(stderr, "touche mesh: '%s' should end in .vtk (VTK legacy) or .msh (Gmsh 4.1)\n",
                o->output);
        return EXIT_BAD_INPUT;
    }
    int obj = has_extension(in, ".obj");
    if (!obj && !has_extension(in, ".stl")) {
        fprintf(stderr, "touche mesh: '%s' is neither .obj nor .stl; expected a closed surface\n",
                in);
        return EXIT_BAD_INPUT;
    }
    char dir[] = "/tmp/touche_mesh_XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "touche mesh: cannot create a temporary directory\n");
        return EXIT_FAILURE_GENERIC;
    }
    char surface[PATH_BYTES], result[PATH_BYTES];
    snprintf(surface, sizeof surface, "%s/surface.stl", dir);
    int code = EXIT_OK;
    if (!(obj ? obj_to_stl(in, surface) : copy_file(in, surface))) {
        if (!obj) fprintf(stderr, "touche mesh: cannot read '%s'\n", in);
        code = EXIT_BAD_INPUT;
    }
    double h = code == EXIT_OK ? target_edge(surface) : 0;
    if (code == EXIT_OK && !(h > 0)) code = EXIT_BAD_INPUT;
    if (code == EXIT_OK) code = run_mesher(dir, h, result, sizeof result);
    if (code == EXIT_OK) code = convert(result, o->output);
    remove_directory(dir);
    return code;
}
