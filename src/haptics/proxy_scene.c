/* The proxy's scene (touche/haptics.h): triangle meshes with their vertex normals, spheres,
 * capsules, cylinders, ellipsoids and planes, grouped in parts (the static scene, and each free body in its
 * frame) with a BVH over each part's triangles; from given meshes or a model's geoms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "dynamics/articulation.h"
#include "haptics/proxy_internal.h"
#include "math/vec.h"
#include "touche/model.h"

static tch_status out_of_memory(tch_error* err) {
    return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "haptic proxy: out of memory");
}

/* Appends a mesh's triangles; vertex normals are the area-weighted mean of the normals of the
 * triangles sharing the vertex (the normals force shading interpolates). */
static tch_status append_mesh(tch_haptic_proxy* proxy, const tch_haptic_proxy_mesh* mesh,
                              tch_error* err) {
    tch_vec3* normals = calloc((size_t)mesh->vertex_count + 1, sizeof *normals);
    if (!normals) {
        return out_of_memory(err);
    }
    for (int t = 0; t < mesh->triangle_count; ++t) {
        const int* tri = mesh->triangles[t];
        for (int i = 0; i < 3; ++i) {
            if (tri[i] < 0 || tri[i] >= mesh->vertex_count) {
                free(normals);
                return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                                "haptic proxy: triangle %d has a vertex index out of range", t);
            }
        }
        tch_vec3 a = mesh->vertices[tri[0]];
        tch_vec3 area2 = tch_v3_cross(tch_v3_sub(mesh->vertices[tri[1]], a),
                                      tch_v3_sub(mesh->vertices[tri[2]], a));
        for (int i = 0; i < 3; ++i) {
            normals[tri[i]] = tch_v3_add(normals[tri[i]], area2);
        }
    }
    for (int t = 0; t < mesh->triangle_count; ++t) {
        const int* tri = mesh->triangles[t];
        proxy_triangle* out = &proxy->triangles[proxy->triangle_count];
        for (int i = 0; i < 3; ++i) {
            out->v[i] = mesh->vertices[tri[i]];
        }
        tch_vec3 area2 =
            tch_v3_cross(tch_v3_sub(out->v[1], out->v[0]), tch_v3_sub(out->v[2], out->v[0]));
        if (!(tch_v3_norm(area2) > 0)) {
            continue; /* a degenerate triangle bounds nothing */
        }
        out->normal = tch_v3_normalize(area2);
        for (int i = 0; i < 3; ++i) {
            out->vertex_normal[i] = tch_v3_normalize(normals[tri[i]]);
        }
        out->friction = mesh->friction;
        proxy->triangle_count++;
    }
    free(normals);
    return TCH_OK;
}

/* The part's BVH over its triangles (part frame). */
static tch_status build_bvh(tch_haptic_proxy* proxy, proxy_part* part, tch_error* err) {
    if (part->triangle_count == 0) {
        return TCH_OK;
    }
    tch_aabb* boxes = malloc((size_t)part->triangle_count * sizeof *boxes);
    if (!boxes) {
        return out_of_memory(err);
    }
    for (int t = 0; t < part->triangle_count; ++t) {
        const proxy_triangle* tri = &proxy->triangles[part->first_triangle + t];
        boxes[t] = (tch_aabb){tch_v3_min(tch_v3_min(tri->v[0], tri->v[1]), tri->v[2]),
                              tch_v3_max(tch_v3_max(tri->v[0], tri->v[1]), tri->v[2])};
    }
    tch_status s = tch_bvh_build(boxes, part->triangle_count, &part->bvh, err);
    free(boxes);
    return s;
}

static tch_status check_params(const tch_haptic_proxy_params* params, tch_error* err) {
    if (!(params->radius >= 0) || !(params->stiffness > 0) || !(params->damping >= 0)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "haptic proxy: needs radius >= 0, stiffness > 0 and damping >= 0");
    }
    return TCH_OK;
}

/* Room for a scene: the counts of each kind of surface, and of parts. */
typedef struct scene_counts {
    int triangles, balls, capsules, cylinders, ellipsoids, halfspaces, parts;
} scene_counts;

/* An empty proxy with room for the given counts. */
static tch_status allocate(const tch_haptic_proxy_params* params, scene_counts n,
                           tch_haptic_proxy** out, tch_error* err) {
    tch_status s = check_params(params, err);
    if (s != TCH_OK) {
        return s;
    }
    tch_haptic_proxy* proxy = calloc(1, sizeof *proxy);
    if (proxy) {
        proxy->params = *params;
        proxy->triangles = calloc((size_t)n.triangles + 1, sizeof *proxy->triangles);
        proxy->balls = calloc((size_t)n.balls + 1, sizeof *proxy->balls);
        proxy->capsules = calloc((size_t)n.capsules + 1, sizeof *proxy->capsules);
        proxy->cylinders = calloc((size_t)n.cylinders + 1, sizeof *proxy->cylinders);
        proxy->ellipsoids = calloc((size_t)n.ellipsoids + 1, sizeof *proxy->ellipsoids);
        proxy->halfspaces = calloc((size_t)n.halfspaces + 1, sizeof *proxy->halfspaces);
        proxy->parts = calloc((size_t)n.parts + 1, sizeof *proxy->parts);
    }
    if (!proxy || !proxy->triangles || !proxy->balls || !proxy->capsules || !proxy->cylinders ||
        !proxy->ellipsoids || !proxy->halfspaces || !proxy->parts) {
        tch_haptic_proxy_destroy(proxy);
        return out_of_memory(err);
    }
    *out = proxy;
    return TCH_OK;
}

/* Opens the next part (of `body`, -1 static, at pose X_WP): its ranges start here. */
static proxy_part* begin_part(tch_haptic_proxy* proxy, int body, tch_transform X_WP) {
    proxy_part* part = &proxy->parts[proxy->part_count++];
    *part = (proxy_part){.body = body,
                         .first_triangle = proxy->triangle_count,
                         .first_ball = proxy->ball_count,
                         .first_capsule = proxy->capsule_count,
                         .first_cylinder = proxy->cylinder_count,
                         .first_ellipsoid = proxy->ellipsoid_count,
                         .X_WP = X_WP,
                         .X_WP_last = X_WP};
    return part;
}

/* Closes the part opened last: its ranges end here; its BVH. */
static tch_status end_part(tch_haptic_proxy* proxy, tch_error* err) {
    proxy_part* part = &proxy->parts[proxy->part_count - 1];
    part->triangle_count = proxy->triangle_count - part->first_triangle;
    part->ball_count = proxy->ball_count - part->first_ball;
    part->capsule_count = proxy->capsule_count - part->first_capsule;
    part->cylinder_count = proxy->cylinder_count - part->first_cylinder;
    part->ellipsoid_count = proxy->ellipsoid_count - part->first_ellipsoid;
    return build_bvh(proxy, part, err);
}

/* After filling (status s so far): *out, or the proxy freed on failure. */
static tch_status finish(tch_haptic_proxy* proxy, tch_status s, tch_haptic_proxy** out) {
    if (s != TCH_OK) {
        tch_haptic_proxy_destroy(proxy);
        return s;
    }
    *out = proxy;
    return TCH_OK;
}

tch_status tch_haptic_proxy_create(const tch_haptic_proxy_mesh* meshes, int mesh_count,
                                   const tch_haptic_proxy_params* params, tch_haptic_proxy** out,
                                   tch_error* err) {
    *out = NULL;
    scene_counts n = {.parts = 1};
    for (int i = 0; i < mesh_count; ++i) {
        n.triangles += meshes[i].triangle_count;
    }
    tch_haptic_proxy* proxy = NULL;
    tch_status s = allocate(params, n, &proxy, err);
    if (s == TCH_OK) {
        begin_part(proxy, -1, tch_x_identity());
    }
    for (int i = 0; s == TCH_OK && i < mesh_count; ++i) {
        s = append_mesh(proxy, &meshes[i], err);
    }
    s = s == TCH_OK ? end_part(proxy, err) : s;
    return finish(proxy, s, out);
}

/* ---- from a model's static geoms ---- */

static tch_real geom_friction(const tch_model* m, int g) {
    tch_real mu = m->geom_contact[g].friction;
    if (isnan(mu)) {
        mu = m->contact_default.friction;
    }
    return isnan(mu) ? 0 : mu;
}

/* A box as 6 faces of 2 triangles, each face with its own 4 vertices (sharp edges: its vertex
 * normals are the face's). */
static tch_status append_box(tch_haptic_proxy* proxy, const tch_real size[3], tch_transform X_WG,
                             tch_real friction, tch_error* err) {
    tch_vec3 vertices[24];
    int triangles[12][3];
    for (int face = 0; face < 6; ++face) {
        int axis = face / 2, u = (axis + 1) % 3, v = (axis + 2) % 3;
        tch_real sign = face % 2 ? -1 : 1;
        for (int corner = 0; corner < 4; ++corner) {
            tch_vec3 x = tch_v3_zero();
            tch_v3_set(&x, axis, sign * size[axis]);
            tch_v3_set(&x, u, (corner == 1 || corner == 2 ? 1 : -1) * size[u]);
            tch_v3_set(&x, v, (corner >= 2 ? 1 : -1) * size[v] * sign);
            vertices[4 * face + corner] = tch_x_apply(X_WG, x);
        }
        int b = 4 * face;
        memcpy(triangles[2 * face], (int[3]){b, b + 1, b + 2}, sizeof triangles[0]);
        memcpy(triangles[2 * face + 1], (int[3]){b, b + 2, b + 3}, sizeof triangles[0]);
    }
    tch_haptic_proxy_mesh mesh = {vertices, 24, (const int(*)[3])triangles, 12, friction};
    return append_mesh(proxy, &mesh, err);
}

/* A convex hull's faces, fanned into triangles, in the world. */
static tch_status append_hull(tch_haptic_proxy* proxy, const tch_convex_hull* hull,
                              tch_transform X_WG, tch_real friction, tch_error* err) {
    int count = hull->face_start[hull->face_count] - 2 * hull->face_count;
    tch_vec3* vertices = malloc((size_t)hull->vertex_count * sizeof *vertices);
    int(*triangles)[3] = malloc((size_t)(count + 1) * sizeof *triangles);
    tch_status s = vertices && triangles ? TCH_OK : out_of_memory(err);
    if (s == TCH_OK) {
        for (int i = 0; i < hull->vertex_count; ++i) {
            vertices[i] = tch_x_apply(X_WG, hull->vertices_G[i]);
        }
        int t = 0;
        for (int f = 0; f < hull->face_count; ++f) {
            const int* face = &hull->face_vertices[hull->face_start[f]];
            int corners = hull->face_start[f + 1] - hull->face_start[f];
            for (int i = 1; i + 1 < corners; ++i, ++t) {
                memcpy(triangles[t], (int[3]){face[0], face[i], face[i + 1]}, sizeof *triangles);
            }
        }
        tch_haptic_proxy_mesh mesh = {vertices, hull->vertex_count, (const int(*)[3])triangles, t,
                                      friction};
        s = append_mesh(proxy, &mesh, err);
    }
    free(vertices);
    free(triangles);
    return s;
}

/* A geom fixed in the world: neither on a free body nor on a mocap body (the haptic one). */
static bool is_static(const tch_model* m, int g) {
    int body = m->geom_body[g];
    return m->body_root[body] == 0 && m->body_mocap[body] < 0;
}

/* The free body whose part holds geom g: its root, when that is a lone free body (not an
 * articulation's, whose links move apart); else -1 (static, or not rendered). */
static int moving_root(const tch_model* m, int g) {
    int root = m->body_root[m->geom_body[g]];
    bool lone = !m->articulation || m->articulation->body_lone[root];
    return root > 0 && m->body_mocap[root] < 0 && lone ? root : -1;
}

/* Whether geom g belongs to the part of `body` (-1: the static part). */
static bool in_part(const tch_model* m, int g, int body) {
    return body < 0 ? is_static(m, g) : moving_root(m, g) == body;
}

static scene_counts count_scene(const tch_model* m) {
    scene_counts n = {.parts = 1};
    for (int g = 0; g < m->geom_count; ++g) {
        if (!is_static(m, g) && moving_root(m, g) < 0) {
            continue;
        }
        int type = m->geom_type[g];
        n.balls += type == TCH_GEOM_SPHERE;
        n.capsules += type == TCH_GEOM_CAPSULE;
        n.cylinders += type == TCH_GEOM_CYLINDER;
        n.ellipsoids += type == TCH_GEOM_ELLIPSOID;
        n.halfspaces += type == TCH_GEOM_PLANE;
        n.triangles += type == TCH_GEOM_BOX ? 12 : 0;
        if (type == TCH_GEOM_MESH) {
            const tch_convex_hull* hull = &m->mesh_hull[m->geom_mesh[g]];
            n.triangles += hull->face_start[hull->face_count] - 2 * hull->face_count;
        }
    }
    for (int b = 1; b < m->body_count; ++b) {
        n.parts += m->body_root[b] == b;
    }
    return n;
}

/* Geom g into the open part, in the part's frame: X is the geom's pose there. */
static tch_status append_geom(tch_haptic_proxy* proxy, const tch_model* m, int g,
                              tch_transform X, tch_error* err) {
    tch_real mu = geom_friction(m, g);
    const tch_real* size = m->geom_size[g];
    tch_vec3 axis = tch_q_rotate(X.q, tch_v3(0, 0, 1));
    switch (m->geom_type[g]) {
    case TCH_GEOM_SPHERE:
        proxy->balls[proxy->ball_count++] = (proxy_ball){X.p, size[0], mu};
        return TCH_OK;
    case TCH_GEOM_CAPSULE:
        proxy->capsules[proxy->capsule_count++] = (proxy_capsule){
            tch_v3_madd(X.p, -size[1], axis), tch_v3_madd(X.p, size[1], axis), size[0], mu};
        return TCH_OK;
    case TCH_GEOM_CYLINDER:
        proxy->cylinders[proxy->cylinder_count++] =
            (proxy_cylinder){X.p, axis, size[0], size[1], mu};
        return TCH_OK;
    case TCH_GEOM_ELLIPSOID:
        proxy->ellipsoids[proxy->ellipsoid_count++] =
            (proxy_ellipsoid){X.p, X.q, tch_v3(size[0], size[1], size[2]), mu};
        return TCH_OK;
    case TCH_GEOM_PLANE:
        if (proxy->part_count == 1) { /* planes are static */
            proxy->halfspaces[proxy->halfspace_count++] =
                (proxy_plane){axis, tch_v3_dot(axis, X.p), mu, axis, 0};
            return TCH_OK;
        }
        break;
    case TCH_GEOM_BOX:
        return append_box(proxy, size, X, mu, err);
    case TCH_GEOM_MESH:
        return append_hull(proxy, &m->mesh_hull[m->geom_mesh[g]], X, mu, err);
    default:
        break;
    }
    return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                    "haptic proxy: geom '%s' is a plane on a moving body; the proxy renders "
                    "static planes only (not supported yet)",
                    m->geom_name[g]);
}

/* The part of `body` (-1: static): its geoms, posed in its frame (the world's when static). */
static tch_status append_part(tch_haptic_proxy* proxy, const tch_model* m, const tch_data* d,
                              int body, tch_error* err) {
    tch_transform X_WP = body < 0 ? tch_x_identity() : d->body_X_WB[body];
    int first = proxy->part_count;
    begin_part(proxy, body, X_WP);
    tch_status s = TCH_OK;
    for (int g = 0; s == TCH_OK && g < m->geom_count; ++g) {
        if (in_part(m, g, body)) {
            s = append_geom(proxy, m, g, body < 0 ? d->geom_X_WG[g] : m->geom_X_RG[g], err);
        }
    }
    s = s == TCH_OK ? end_part(proxy, err) : s;
    proxy_part* part = &proxy->parts[first];
    if (s == TCH_OK && body >= 0 && part->triangle_count + part->ball_count +
                                            part->capsule_count + part->cylinder_count +
                                            part->ellipsoid_count ==
                                        0) {
        tch_bvh_free(&part->bvh);
        proxy->part_count--; /* a free body with no geom the proxy touches */
    }
    return s;
}

tch_status tch_haptic_proxy_create_from_model(const tch_model* m, const tch_data* d,
                                              const tch_haptic_proxy_params* params,
                                              tch_haptic_proxy** out, tch_error* err) {
    *out = NULL;
    tch_haptic_proxy* proxy = NULL;
    tch_status s = allocate(params, count_scene(m), &proxy, err);
    s = s == TCH_OK ? append_part(proxy, m, d, -1, err) : s;
    for (int b = 1; s == TCH_OK && b < m->body_count; ++b) {
        bool lone = !m->articulation || m->articulation->body_lone[b];
        if (m->body_root[b] == b && m->body_mocap[b] < 0 && lone) {
            s = append_part(proxy, m, d, b, err);
        }
    }
    return finish(proxy, s, out);
}
