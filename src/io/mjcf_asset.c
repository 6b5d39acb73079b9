/* MJCF assets: meshes from files (OBJ, STL) or inline vertex lists (see mjcf_internal.h). */
#define _XOPEN_SOURCE 700

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "io/mjcf_internal.h"
#include "math/vec.h"

/* MuJoCo names a mesh without a name after its file: the base name without extension. */
static void name_from_file(const char* file, char* name, size_t size) {
    const char* slash = strrchr(file, '/');
    const char* base = slash ? slash + 1 : file;
    const char* dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n >= size) {
        n = size - 1;
    }
    memcpy(name, base, n);
    name[n] = '\0';
}

static tch_status read_scale(tch_mjcf_loader* L, const xmlNode* node, tch_mesh_def* def) {
    static const char* expected = "3 non-zero numbers (x y z)";
    tch_real v[3];
    int count = 0;
    tch_status status = tch_mjcf_read_reals(L, node, "scale", v, 3, 3, &count, expected);
    if (status != TCH_OK || count == 0) {
        return status;
    }
    if (v[0] == 0 || v[1] == 0 || v[2] == 0) {
        return tch_mjcf_fail_attr(L, node, "scale", expected);
    }
    def->scale = tch_v3(v[0], v[1], v[2]);
    return TCH_OK;
}

static tch_status read_inline_vertices(tch_mjcf_loader* L, const xmlNode* node, tch_vec3** vertices,
                                       int* count) {
    tch_real* values = NULL;
    int n = 0;
    tch_status status = tch_mjcf_read_real_array(L, node, "vertex", &values, &n);
    if (status == TCH_OK && (n == 0 || n % 3 != 0)) {
        status = tch_mjcf_fail_attr(L, node, "vertex", "a positive multiple of 3 numbers");
    }
    if (status == TCH_OK) {
        *vertices = malloc((size_t)(n / 3) * sizeof **vertices);
        if (!*vertices) {
            status = tch_mjcf_fail(L, node, TCH_ERR_OUT_OF_MEMORY, "vertex: out of memory");
        }
    }
    for (int i = 0; status == TCH_OK && i < n / 3; ++i) {
        (*vertices)[i] = tch_v3(values[3 * i], values[3 * i + 1], values[3 * i + 2]);
    }
    *count = status == TCH_OK ? n / 3 : 0;
    free(values);
    return status;
}

static tch_status read_mesh_file(tch_mjcf_loader* L, const xmlNode* node, const char* file,
                                 tch_mesh_def* def, tch_vec3** vertices) {
    const char* dir = L->mesh_dir[0] != '\0' ? L->mesh_dir : L->scene_dir;
    char path[PATH_MAX];
    int n = file[0] == '/' ? snprintf(path, sizeof path, "%s", file)
                           : snprintf(path, sizeof path, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= sizeof path) {
        return tch_mjcf_fail_attr(L, node, "file", "a shorter path");
    }
    tch_error mesh_err;
    tch_error_clear(&mesh_err);
    tch_status status = tch_mesh_read_vertices(path, vertices, &def->vertex_count, &mesh_err);
    if (status != TCH_OK) {
        char where[300] = "";
        if (mesh_err.file[0] != '\0' && mesh_err.line > 0) {
            snprintf(where, sizeof where, "%s:%d: ", mesh_err.file, mesh_err.line);
        }
        return tch_mjcf_fail(L, node, status, "file '%s': %s%s", file, where, mesh_err.message);
    }
    if (def->vertex_count == 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "file '%s' has no vertices (expected a mesh with at least 4)", file);
    }
    char absolute[PATH_MAX];
    tch_copy_string(def->file, sizeof def->file, realpath(path, absolute) ? absolute : path);
    return TCH_OK;
}

static tch_status read_mesh_source(tch_mjcf_loader* L, const xmlNode* node, tch_mesh_def* def,
                                   tch_vec3** vertices) {
    char file[512] = "";
    bool has_vertex = tch_mjcf_has_attr(node, "vertex");
    tch_status status = tch_mjcf_read_string(L, node, "file", file, sizeof file);
    if (status != TCH_OK) {
        return status;
    }
    if ((file[0] != '\0') == has_vertex) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "expected exactly one of file and vertex, got %s",
                             has_vertex ? "both" : "neither");
    }
    if (def->name[0] == '\0' && file[0] != '\0') {
        name_from_file(file, def->name, sizeof def->name);
    }
    if (def->name[0] == '\0') {
        return tch_mjcf_fail_attr(L, node, "name", "a mesh name (needed without a file)");
    }
    return has_vertex ? read_inline_vertices(L, node, vertices, &def->vertex_count)
                      : read_mesh_file(L, node, file, def, vertices);
}

static tch_status load_mesh(tch_mjcf_loader* L, const xmlNode* node) {
    static const char* const known[] = {"name", "file", "scale", "vertex", "class", NULL};
    tch_mesh_def def = tch_mesh_def_default();
    def.source = tch_mjcf_source(L, node);
    tch_vec3* vertices = NULL;
    int class_index = -1;
    tch_status status = tch_mjcf_check_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_node_class(L, node, -1, &class_index);
    }
    if (status == TCH_OK && class_index >= 0) {
        def.scale = L->classes[class_index].mesh_scale;
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "name", def.name, sizeof def.name);
    }
    if (status == TCH_OK) {
        status = read_scale(L, node, &def);
    }
    if (status == TCH_OK) {
        status = read_mesh_source(L, node, &def, &vertices);
    }
    def.vertices = vertices;
    if (status == TCH_OK) {
        status = tch_mjcf_spec_status(L, node, tch_spec_add_mesh(L->spec, &def, NULL, L->err));
    }
    free(vertices);
    return status;
}

tch_status tch_mjcf_load_asset(tch_mjcf_loader* L, const xmlNode* node) {
    tch_status status = tch_mjcf_check_attributes(L, node, (const char* const[]){NULL}, false);
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        status = tch_mjcf_is(child, "mesh") ? load_mesh(L, child) : tch_mjcf_skip_element(L, child);
    }
    return status;
}
