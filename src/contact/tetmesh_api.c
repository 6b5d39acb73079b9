/* The public tet mesh API (include/touche/tetmesh.h) over the geometry module's meshes
 * (geometry/tetmesh.h) and the pressure model's default Laplace field (contact/pressure.h). It
 * lives in the contact module because the default field does. */
#include "touche/tetmesh.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "contact/pressure.h"
#include "geometry/tetmesh.h"

/* Moves a built mesh to the heap, giving it the Laplace field when it has none. Frees the
 * arrays of *built on failure. */
static tch_status adopt(tch_tetmesh* built, tch_tetmesh** out, tch_error* err) {
    tch_status s = built->has_field ? TCH_OK : tch_pressure_default_field(built, err);
    tch_tetmesh* mesh = s == TCH_OK ? malloc(sizeof *mesh) : NULL;
    if (s == TCH_OK && !mesh) {
        s = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for a tet mesh");
    }
    if (s != TCH_OK) {
        tch_tetmesh_free(built);
        return s;
    }
    *mesh = *built;
    *out = mesh;
    return TCH_OK;
}

tch_status tch_tetmesh_load(const char* path, tch_tetmesh** out, tch_error* err) {
    *out = NULL;
    tch_tetmesh built;
    tch_status s = tch_tetmesh_read(path, &built, NULL, err);
    return s == TCH_OK ? adopt(&built, out, err) : s;
}

/* Whether `text` ends in `suffix` (lower case), ignoring the case of `text`. */
static int has_suffix(const char* text, const char* suffix) {
    size_t n = strlen(text), m = strlen(suffix);
    for (size_t i = 0; n >= m && i < m; ++i) {
        if (tolower((unsigned char)text[n - m + i]) != suffix[i]) {
            return 0;
        }
    }
    return n >= m;
}

tch_status tch_tetmesh_save(const tch_tetmesh* mesh, const char* path, tch_error* err) {
    if (has_suffix(path, ".vtk")) {
        return tch_tetmesh_write(mesh, TCH_TETMESH_FORMAT_VTK, path, err);
    }
    if (has_suffix(path, ".msh")) {
        return tch_tetmesh_write(mesh, TCH_TETMESH_FORMAT_GMSH4, path, err);
    }
    return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, path, 0,
                    "unknown tet mesh format: the file name should end in .vtk (VTK legacy) or "
                    ".msh (Gmsh 4.1)");
}

tch_status tch_tetmesh_create(const tch_real* vertices, int vertex_count, const int* tets,
                              int tet_count, const tch_real* epsilon, tch_tetmesh** out,
                              tch_error* err) {
    *out = NULL;
    if (vertex_count < 4 || tet_count < 1 || !vertices || !tets) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "a tet mesh needs at least 4 vertices and 1 tet (got %d and %d)",
                        vertex_count, tet_count);
    }
    tch_vec3* points = malloc((size_t)vertex_count * sizeof *points);
    if (!points) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for a tet mesh");
    }
    for (int v = 0; v < vertex_count; ++v) {
        points[v] = (tch_vec3){vertices[3 * v], vertices[3 * v + 1], vertices[3 * v + 2]};
    }
    tch_tetmesh built;
    tch_status s = tch_tetmesh_build(TCH_TETMESH_SOLID, points, vertex_count,
                                     (const int(*)[4])tets, tet_count, epsilon, &built, err);
    free(points);
    return s == TCH_OK ? adopt(&built, out, err) : s;
}

static tch_status make_layered(tch_tetmesh_shape shape, const tch_real size[3],
                               tch_real resolution, tch_real layer, tch_tetmesh* built,
                               tch_error* err) {
    switch (shape) {
    case TCH_TETMESH_SPHERE:
        return tch_tetmesh_make_sphere_layer(size[0], layer, resolution, built, err);
    case TCH_TETMESH_BOX:
        return tch_tetmesh_make_box_layer((tch_vec3){size[0], size[1], size[2]}, layer,
                                          resolution, built, err);
    default:
        return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                        "a compliant layer over a rigid core is supported for spheres and boxes "
                        "only, not yet for this shape");
    }
}

static tch_status make_solid(tch_tetmesh_shape shape, const tch_real size[3],
                             tch_real resolution, tch_tetmesh* built, tch_error* err) {
    static const tch_geom_type geom_type[] = {
        [TCH_TETMESH_SPHERE] = TCH_GEOM_SPHERE,       [TCH_TETMESH_ELLIPSOID] = TCH_GEOM_ELLIPSOID,
        [TCH_TETMESH_BOX] = TCH_GEOM_BOX,             [TCH_TETMESH_CYLINDER] = TCH_GEOM_CYLINDER,
        [TCH_TETMESH_CAPSULE] = TCH_GEOM_CAPSULE,
    };
    tch_shape geom = {.type = geom_type[shape], .size = {size[0], size[1], size[2]}};
    return tch_tetmesh_make_shape(&geom, resolution, built, err);
}

tch_status tch_tetmesh_create_shape(tch_tetmesh_shape shape, const tch_real size[3],
                                    tch_real resolution, tch_real layer, tch_tetmesh** out,
                                    tch_error* err) {
    *out = NULL;
    if ((int)shape < TCH_TETMESH_SPHERE || shape > TCH_TETMESH_CAPSULE) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "unknown tet mesh shape %d (expected a tch_tetmesh_shape)", (int)shape);
    }
    if (!(resolution >= 0) || !(layer >= 0)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "resolution and layer must be >= 0 (got %g and %g)", resolution, layer);
    }
    tch_tetmesh built;
    tch_status s = layer > 0 ? make_layered(shape, size, resolution, layer, &built, err)
                             : make_solid(shape, size, resolution, &built, err);
    return s == TCH_OK ? adopt(&built, out, err) : s;
}

void tch_tetmesh_destroy(tch_tetmesh* mesh) {
    tch_tetmesh_free(mesh);
    free(mesh);
}

int tch_tetmesh_vertex_count(const tch_tetmesh* mesh) {
    return mesh->vertex_count;
}

int tch_tetmesh_tet_count(const tch_tetmesh* mesh) {
    return mesh->tet_count;
}

int tch_tetmesh_face_count(const tch_tetmesh* mesh) {
    return mesh->face_count;
}

const tch_vec3* tch_tetmesh_vertices(const tch_tetmesh* mesh) {
    return mesh->vertices_G;
}

const int* tch_tetmesh_tets(const tch_tetmesh* mesh) {
    return &mesh->tets[0][0];
}

const tch_real* tch_tetmesh_epsilon(const tch_tetmesh* mesh) {
    return mesh->epsilon;
}
