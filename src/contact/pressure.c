/* The pressure field model in the engine (Elandt et al. 2019): per touching pair, the contact
 * surface (contact/pressure_surface), the tractions integrated over it (contact/pressure_wrench)
 * and one wrench on each body; the surface's polygons with their vertex pressures are the pair's
 * patch. Compile-time bodies: see contact/pressure.h.
 */
#include "contact/pressure.h"
#include "touche/tetmesh.h" /* tch_model_geom_tetmesh */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/workers.h"
#include "collision/polyhedron.h"
#include "contact/contact.h"
#include "contact/friction.h"
#include "contact/params.h"
#include "contact/pressure_rigid_mesh.h"
#include "contact/pressure_wrench.h"
#include "geometry/bvh.h"
#include "geometry/hull.h"
#include "geometry/laplace_field.h"
#include "geometry/model_shape.h"
#include "geometry/tetmesh.h"
#include "math/vec.h"

/* One geom's body for the model. */
struct tch_pressure_geom {
    int compliant;             /* 1: mesh, bvh, modulus; 0: rigid surface (or a plane) */
    tch_tetmesh mesh;
    tch_bvh bvh;
    tch_real (*node_epsilon)[2]; /* compliant: range of ε per BVH node */
    tch_real modulus;
    tch_convex_hull hull;      /* rigid: the surface's hull (its faces give the planes) */
    tch_vec3* vertices;        /* rigid: surface triangles (a mesh's own, else the hull's) */
    int vertex_count;
    int (*triangles)[3];
    int triangle_count;
    int convex;                /* rigid: the surface is its hull, whose planes give the energy */
};

/* The wrench of this evaluation on B, world: force at o_W and moment, kept in the pair state
 * between the geometry and the force callbacks. */
typedef struct pressure_state {
    tch_vec3 o_W, f_W, m_W;
    /* the normal force the step applies over the polygons' loads at the predicted pose
     * (friction_load_scale) */
    tch_real friction_load_scale;
} pressure_state;

_Static_assert(sizeof(pressure_state) <= TCH_PAIR_STATE_BYTES, "pressure state fits its slot");

/* The working memory of one contact-surface query and what it found: the surface, against a
 * plane the box of the half-space, and the pair's wrench and energy. */
typedef struct pair_work {
    int geom_a, geom_b;
    int ahead;                      /* 1: computed on the pool by prepare_pairs */
    int size;                       /* element pairs its last query tested (0: unknown) */
    int touching;                   /* 1: a surface with polygons and its wrench */
    tch_real energy;
    tch_wrench wrench;              /* on `other`, about frame's origin, in frame's axes */
    tch_pressure_surface surface;
    tch_vec3 box_vertices[8];
    int box_triangles[12][3];
    tch_bvh box_bvh;
    tch_rigid_plane box_planes[6];
    tch_real lowered;               /* how far half_space_box lowered the plane, m (0: not) */
    int predicted;                  /* 1: the surface is that of the predicted poses */
} pair_work;

/* A pair's wrench linearized by tch_pressure_surface_jacobian, world axes, about its contact
 * point, for the linearize op (which runs after the forces stage, when the surface is gone). */
typedef struct pair_linear {
    int geom_a, geom_b;
    tch_real K[6][6], D[6][6];
} pair_linear;

/* Working memory of one data. */
typedef struct pressure_scratch {
    pair_work single;               /* the pair computed in pair_geometry itself */
    tch_workers* workers;           /* made when the data asks for threads, else NULL */
    int workers_wanted;             /* the thread count the pool was last set up for */
    pair_work* prepared;            /* one per candidate pair of prepare_pairs */
    int prepared_capacity;
    int prepared_count;             /* of this evaluation (0: none) */
    int prepared_next;              /* the one the next pair_geometry call should take */
    tch_friction_point* friction;   /* one per polygon of the evaluation's pressure pairs */
    int friction_capacity;
    tch_friction_pair* friction_pairs; /* the pressure pairs of the evaluation */
    int friction_pair_capacity;
    pair_linear* linear;            /* by pair result of the evaluation (implicit integrator) */
    int linear_capacity;
} pressure_scratch;

int tch_pressure_geom_is_rigid(const tch_model* m, int g) {
    tch_rigidity rigid = m->geom_contact[g].rigid;
    if (rigid == TCH_RIGIDITY_INHERIT) {
        rigid = m->contact_default.rigid;
    }
    return m->geom_type[g] == TCH_GEOM_PLANE || rigid == TCH_RIGIDITY_RIGID;
}

static tch_real geom_param(const tch_model* m, int g, tch_real value, tch_real fallback) {
    (void)m, (void)g;
    return isnan(value) ? fallback : value;
}

/* ---- compile: compliant bodies ---- */

/* The modulus a compliant geom gets when nobody sets one (pressure.h): the default material
 * with the implicit and adaptive integrators, and for a geom of a free body under an explicit
 * one the smaller of that and a modulus whose contact rings over 25 steps, as the point model's
 * derived stiffness (docs/contact-point.md): a body of mass m and size L pressed by a depth d
 * meets a force about E L d (the patch grows with depth for round bodies, is L wide for flat
 * ones), so E = m (2π / 25 h)² / L. */
static tch_real default_modulus(const tch_model* m, int g) {
    int root = m->body_root[m->geom_body[g]];
    if (root == 0 || tch_integrator_takes_physical_defaults(m->integrator)) {
        return TCH_PRESSURE_DEFAULT_MODULUS;
    }
    tch_real omega = 2 * TCH_PI / (25 * m->timestep);
    return fmin(TCH_PRESSURE_DEFAULT_MODULUS,
                m->body_total_mass[root] * omega * omega / m->geom_rbound[g]);
}

/* ε for a mesh read without a field (sec. VI-A2, eq. 4): harmonic, 0 on the surface and 1 on
 * the vertices farthest (in edges) from it, a discrete stand-in for the medial set. */
tch_status tch_pressure_default_field(tch_tetmesh* mesh, tch_error* err) {
    int n = mesh->vertex_count;
    int* hops = malloc((size_t)n * sizeof *hops);
    tch_real* fixed = malloc((size_t)n * sizeof *fixed);
    tch_real* values = malloc((size_t)n * sizeof *values);
    tch_status s = hops && fixed && values ? TCH_OK
                                          : tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                                                     "out of memory for a pressure field");
    for (int v = 0; s == TCH_OK && v < n; ++v) {
        hops[v] = mesh->vertex_on_boundary[v] ? 0 : -1;
    }
    /* Breadth-first layers from the surface through the tets' edges. */
    int deepest = 0;
    for (int changed = 1, layer = 0; s == TCH_OK && changed; ++layer) {
        changed = 0;
        for (int t = 0; t < mesh->tet_count; ++t) {
            const int* tet = mesh->tets[t];
            int touches = 0;
            for (int i = 0; i < 4; ++i) touches |= hops[tet[i]] == layer;
            for (int i = 0; touches && i < 4; ++i) {
                if (hops[tet[i]] < 0) {
                    hops[tet[i]] = layer + 1;
                    deepest = layer + 1;
                    changed = 1;
                }
            }
        }
    }
    if (s == TCH_OK && deepest == 0) {
        s = tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                     "the tet mesh has no interior vertex, so no pressure field can be made "
                     "for it: give the file a field");
    }
    for (int v = 0; s == TCH_OK && v < n; ++v) {
        fixed[v] = hops[v] == 0 ? 0 : (hops[v] == deepest ? 1 : NAN);
    }
    if (s == TCH_OK) {
        s = tch_laplace_field_solve(mesh->vertices_G, n, (const int(*)[4])mesh->tets,
                                    mesh->tet_count, fixed, values, err);
    }
    if (s == TCH_OK) {
        s = tch_tetmesh_set_field(mesh, values, err);
    }
    free(hops);
    free(fixed);
    free(values);
    return s;
}

/* The mesh resolution of a compliant geom without `touche:resolution`: for a sphere or an
 * ellipsoid 8 pieces per quarter turn of its largest radius, the grid whose surface is fitted
 * through the true one (docs/pressure-meshes.md); the coarsest mesh for the other shapes (a
 * box's 12 tets are the box; cylinders and capsules are inscribed at any resolution, and one
 * resolution along and around a thin rod makes a fine grid along all its length: 255 pieces
 * for a capsule of radius 1 cm and length 0.5 m). The coarsest sphere
 * is an inscribed cube: a ball of radius R rested on a face, its centre R/sqrt(3) above the
 * floor, and a rolling one stopped within 0.4 m. */
static tch_real default_compliant_resolution(const tch_shape* shape) {
    if (shape->type != TCH_GEOM_SPHERE && shape->type != TCH_GEOM_ELLIPSOID) {
        return 0;
    }
    return TCH_PI / 2 * fmax(shape->size[0], fmax(shape->size[1], shape->size[2])) / 8;
}

static tch_status make_compliant_mesh(const tch_model* m, int g, const char* file,
                                      tch_tetmesh* mesh, tch_error* err) {
    if (file && file[0]) {
        tch_tetmesh_file_info info;
        tch_status s = tch_tetmesh_read(file, mesh, &info, err);
        return s == TCH_OK && !mesh->has_field ? tch_pressure_default_field(mesh, err) : s;
    }
    tch_shape shape = tch_model_geom_shape(m, g);
    tch_real resolution = geom_param(m, g, m->geom_contact[g].resolution,
                                     m->contact_default.resolution);
    resolution = isnan(resolution) ? default_compliant_resolution(&shape) : resolution;
    tch_real layer = geom_param(m, g, m->geom_contact[g].layer, m->contact_default.layer);
    if (isnan(layer)) {
        return tch_tetmesh_make_shape(&shape, resolution, mesh, err);
    }
    if (shape.type == TCH_GEOM_BOX) {
        tch_vec3 h = {shape.size[0], shape.size[1], shape.size[2]};
        return tch_tetmesh_make_box_layer(h, layer, resolution, mesh, err);
    }
    if (shape.type == TCH_GEOM_SPHERE) {
        return tch_tetmesh_make_sphere_layer(shape.size[0], layer, resolution, mesh, err);
    }
    return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                    "a compliant layer is supported for boxes and spheres only, not yet for "
                    "this geom type");
}

static tch_status build_compliant(const tch_model* m, int g, const char* file,
                                  struct tch_pressure_geom* pg, tch_error* err) {
    pg->compliant = 1;
    pg->modulus = geom_param(m, g, m->geom_contact[g].modulus, m->contact_default.modulus);
    if (isnan(pg->modulus)) {
        pg->modulus = default_modulus(m, g);
    }
    tch_status s = make_compliant_mesh(m, g, file, &pg->mesh, err);
    if (s != TCH_OK) {
        return s;
    }
    tch_aabb* boxes = malloc((size_t)pg->mesh.tet_count * sizeof *boxes);
    if (!boxes) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for a BVH");
    }
    tch_tetmesh_tet_boxes(&pg->mesh, boxes);
    s = tch_bvh_build(boxes, pg->mesh.tet_count, &pg->bvh, err);
    free(boxes);
    if (s != TCH_OK) {
        return s;
    }
    pg->node_epsilon = malloc((size_t)pg->bvh.node_count * sizeof *pg->node_epsilon);
    if (!pg->node_epsilon) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for a BVH");
    }
    tch_pressure_node_ranges(&pg->mesh, &pg->bvh, pg->node_epsilon);
    return TCH_OK;
}

/* ---- compile: rigid surfaces ---- */

/* Segments around a curved primitive for a target edge length (16 when unset). */
static int rigid_segments(const tch_shape* shape, tch_real resolution) {
    if (isnan(resolution)) {
        return 16;
    }
    tch_real radius = fmax(shape->size[0], fmax(shape->size[1], shape->size[2]));
    return (int)fmin(fmax(ceil(2 * TCH_PI * radius / resolution), 8), 128);
}

/* The BVH over the rigid surface's triangles. */
static tch_status build_surface_bvh(struct tch_pressure_geom* pg, tch_error* err) {
    tch_aabb* boxes = malloc((size_t)pg->triangle_count * sizeof *boxes);
    if (!boxes) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for a surface");
    }
    tch_pressure_triangle_boxes(pg->vertices, (const int(*)[3])pg->triangles, pg->triangle_count,
                                boxes);
    tch_status s = tch_bvh_build(boxes, pg->triangle_count, &pg->bvh, err);
    free(boxes);
    return s;
}

/* Fan-triangulates the hull's faces into the geom's triangle soup and builds its BVH. */
static tch_status triangulate_hull(struct tch_pressure_geom* pg, tch_error* err) {
    const tch_convex_hull* h = &pg->hull;
    int count = 0;
    for (int f = 0; f < h->face_count; ++f) {
        count += h->face_start[f + 1] - h->face_start[f] - 2;
    }
    pg->vertices = malloc((size_t)h->vertex_count * sizeof *pg->vertices);
    pg->triangles = malloc((size_t)count * sizeof *pg->triangles);
    if (!pg->vertices || !pg->triangles) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for a surface");
    }
    memcpy(pg->vertices, h->vertices_G, (size_t)h->vertex_count * sizeof *pg->vertices);
    for (int f = 0, t = 0; f < h->face_count; ++f) {
        const int* v = h->face_vertices + h->face_start[f];
        for (int k = 1; k + 1 < h->face_start[f + 1] - h->face_start[f]; ++k, ++t) {
            pg->triangles[t][0] = v[0], pg->triangles[t][1] = v[k], pg->triangles[t][2] = v[k + 1];
        }
    }
    pg->vertex_count = h->vertex_count;
    pg->triangle_count = count;
    pg->convex = 1;
    return build_surface_bvh(pg, err);
}

/* A mesh geom whose asset has a file with faces: the file's own closed surface
 * (pressure_rigid_mesh.h). *used is 0 when the file has no faces (the hull stands). */
static tch_status mesh_surface(const tch_model* m, int g, const tch_geom_sources* sources,
                               struct tch_pressure_geom* pg, int* used, tch_error* err) {
    int mesh = m->geom_mesh[g];
    *used = 0;
    if (m->geom_type[g] != TCH_GEOM_MESH || !sources->mesh_files || !sources->mesh_files[mesh][0]) {
        return TCH_OK;
    }
    tch_mesh_surface surface;
    int convex;
    tch_status s = tch_pressure_rigid_mesh_read(sources->mesh_files[mesh], sources->mesh_scale[mesh],
                                                sources->mesh_X_MI[mesh], pg->hull.volume, &surface,
                                                &convex, err);
    if (s != TCH_OK || surface.triangle_count == 0) {
        tch_mesh_surface_free(&surface);
        return s;
    }
    *used = 1;
    pg->vertices = surface.vertices, pg->vertex_count = surface.vertex_count;
    pg->triangles = surface.triangles, pg->triangle_count = surface.triangle_count;
    pg->convex = convex;
    return build_surface_bvh(pg, err);
}

static tch_status build_rigid(const tch_model* m, int g, const tch_geom_sources* sources,
                              struct tch_pressure_geom* pg, tch_error* err) {
    tch_shape shape = tch_model_geom_shape(m, g);
    tch_real resolution = geom_param(m, g, m->geom_contact[g].resolution,
                                     m->contact_default.resolution);
    tch_status s = tch_polyhedron_approximate_shape(&shape, rigid_segments(&shape, resolution),
                                                    &pg->hull, err);
    int used = 0;
    if (s == TCH_OK) {
        s = mesh_surface(m, g, sources, pg, &used, err);
    }
    return s == TCH_OK && !used ? triangulate_hull(pg, err) : s;
}

/* Every geom's body (pressure.h) as the model's per-geom data. */
static tch_status pressure_build_geoms(const tch_model* m, const tch_geom_sources* sources,
                                       void** geoms, tch_error* err) {
    const char* const* files = sources->tetmesh_files;
    struct tch_pressure_geom* built =
        calloc((size_t)(m->geom_count > 0 ? m->geom_count : 1), sizeof *built);
    *geoms = built;
    if (!built) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the geoms");
    }
    for (int g = 0; g < m->geom_count; ++g) {
        struct tch_pressure_geom* pg = &built[g];
        if (m->geom_type[g] == TCH_GEOM_PLANE) {
            if (m->geom_contact[g].rigid == TCH_RIGIDITY_COMPLIANT) {
                return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                                "geom '%s': a compliant half-space is not supported yet; use a "
                                "compliant box as the slab",
                                m->geom_name[g]);
            }
            continue;
        }
        tch_error cause;
        tch_status s = tch_pressure_geom_is_rigid(m, g) ? build_rigid(m, g, sources, pg, &cause)
                                                        : build_compliant(m, g, files[g], pg, &cause);
        if (s != TCH_OK) {
            return tch_fail(err, s, cause.file, cause.line, "geom '%s' for the pressure model: %s",
                            m->geom_name[g], cause.message);
        }
    }
    return TCH_OK;
}

static void pressure_free_geoms(const tch_model* m, void* geoms) {
    struct tch_pressure_geom* built = geoms;
    for (int g = 0; built && g < m->geom_count; ++g) {
        struct tch_pressure_geom* pg = &built[g];
        tch_tetmesh_free(&pg->mesh);
        tch_bvh_free(&pg->bvh);
        free(pg->node_epsilon);
        tch_hull_free(&pg->hull);
        free(pg->vertices);
        free(pg->triangles);
    }
    free(built);
}

/* The geoms' bodies that pressure_build_geoms made. */
static const struct tch_pressure_geom* pressure_geoms(const tch_model* m) {
    return tch_contact_model_geoms(m, TCH_CONTACT_PRESSURE);
}

const tch_tetmesh* tch_model_geom_tetmesh(const tch_model* model, int geom, tch_real* modulus) {
    const struct tch_pressure_geom* geoms =
        model && geom >= 0 && geom < model->geom_count ? pressure_geoms(model) : NULL;
    if (!geoms || !geoms[geom].compliant) {
        return NULL;
    }
    if (modulus) {
        *modulus = geoms[geom].modulus;
    }
    return &geoms[geom].mesh;
}

/* ---- per pair ---- */

/* The closed box [lo, hi] as 12 triangles with its 6 planes into work's box arrays, and the
 * triangles' boxes. */
static void fill_box(pair_work* s, tch_vec3 lo, tch_vec3 hi, tch_aabb boxes[12]) {
    static const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                    {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (int i = 0; i < 8; ++i) {
        s->box_vertices[i] = (tch_vec3){i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y,
                                        i & 4 ? hi.z : lo.z};
    }
    for (int f = 0; f < 6; ++f) {
        const int* q = faces[f];
        int t0[3] = {q[0], q[1], q[2]}, t1[3] = {q[0], q[2], q[3]};
        memcpy(s->box_triangles[2 * f], t0, sizeof t0);
        memcpy(s->box_triangles[2 * f + 1], t1, sizeof t1);
        tch_vec3 n = tch_v3_zero();
        tch_v3_set(&n, f / 2, f % 2 ? 1 : -1);
        s->box_planes[f] = (tch_rigid_plane){n, tch_v3_dot(n, f % 2 ? hi : lo)};
    }
    tch_pressure_triangle_boxes(s->box_vertices, (const int(*)[3])s->box_triangles, 12, boxes);
}

/* The rigid half-space z <= 0 of a plane's frame as the closed box that holds a body of
 * bounding radius r centred at c (same intersection with the body), with its BVH and planes.
 * A body whose centre has gone below the plane (a step too long for it: a 1e-9 m sphere falls
 * 2.5e-4 m in the first 5 ms step) meets the box's top through its centre instead: the
 * surface and the force stay those of that depth, the deepest the field can tell, rather than
 * vanishing once the body is wholly inside the half-space. */
static tch_status half_space_box(pair_work* s, tch_vec3 c, tch_real r,
                                 tch_rigid_surface* out, tch_error* err) {
    tch_aabb boxes[12];
    tch_status st = TCH_OK;
    /* The tree is built once, over the same cube in every work, and refitted after: a step
     * allocates nothing, and every work's tree has one shape, which the order of the
     * surface's polygons follows (so the pair's bits do not depend on which work ran it). */
    if (!s->box_bvh.nodes) {
        fill_box(s, (tch_vec3){-1, -1, -1}, (tch_vec3){1, 1, 1}, boxes);
        st = tch_bvh_build(boxes, 12, &s->box_bvh, err);
    }
    tch_real pad = r + 1e-3;
    tch_real top = fmin(0, c.z);
    s->lowered = -top;
    tch_vec3 lo = {c.x - pad, c.y - pad, top - 2 * pad}, hi = {c.x + pad, c.y + pad, top};
    fill_box(s, lo, hi, boxes);
    if (st == TCH_OK) {
        tch_bvh_refit(&s->box_bvh, boxes);
    }
    *out = (tch_rigid_surface){s->box_vertices, 8, (const int(*)[3])s->box_triangles, 12,
                               &s->box_bvh};
    return st;
}

/* Planes of a convex hull (outward normals and offsets), at most TCH_PRESSURE_MAX_PLANES. */
static int hull_planes(const tch_convex_hull* h, tch_rigid_plane* planes) {
    int n = h->face_count < TCH_PRESSURE_MAX_PLANES ? h->face_count : TCH_PRESSURE_MAX_PLANES;
    for (int f = 0; f < n; ++f) {
        planes[f] = (tch_rigid_plane){h->face_normals_G[f], h->face_offsets[f]};
    }
    return h->face_count <= TCH_PRESSURE_MAX_PLANES ? n : 0;
}

/* Velocity field of `moving` relative to `frame`, expressed in the axes of X_WF (frame's
 * placed pose, placed_frame), about the frame geom's origin. */
static tch_pressure_motion relative_motion(const tch_model* m, const tch_data* d, int frame,
                                           int moving, tch_transform X_WF) {
    int root_f = m->body_root[m->geom_body[frame]], root_m = m->body_root[m->geom_body[moving]];
    tch_vec3 w_f = root_f ? d->body_w_W[root_f] : tch_v3_zero();
    tch_vec3 w_m = root_m ? d->body_w_W[root_m] : tch_v3_zero();
    tch_vec3 v = tch_v3_sub(tch_contact_point_velocity(m, d, moving, X_WF.p),
                            tch_contact_point_velocity(m, d, frame, X_WF.p));
    return (tch_pressure_motion){tch_v3_zero(), tch_q_inv_rotate(X_WF.q, v),
                                 tch_q_inv_rotate(X_WF.q, tch_v3_sub(w_m, w_f))};
}

/* Geom g's pose where the implicit step's explicit predictor puts it when `predict`: moved
 * for one step at its free body's current velocity (the pose itself for static and
 * articulated geoms). The implicit step linearizes a pair's wrench about this pose, not the
 * current one (linearize_surface). */
static tch_transform predicted_pose(const tch_model* m, const tch_data* d, int g, int predict) {
    tch_transform X = d->geom_X_WG[g];
    int body = m->geom_body[g];
    if (!predict || !body || m->body_root[body] != body) {
        return X;
    }
    tch_real h = m->timestep;
    X.p = tch_v3_madd(X.p, h, tch_contact_point_velocity(m, d, g, X.p));
    X.q = tch_q_normalize(tch_q_mul(tch_q_from_rotvec(tch_v3_scale(d->body_w_W[body], h)), X.q));
    return X;
}

/* 1 when the patch between `frame` and `other` goes along with `other`: the smaller geom
 * (bounding radius; a plane, radius 0, is never the smaller) carries the patch, as a ball's
 * stays under its centre on a table and a box's under its face. */
static int other_carries_patch(const tch_model* m, int frame, int other) {
    tch_real r_frame = m->geom_rbound[frame], r_other = m->geom_rbound[other];
    return r_other > 0 && (r_frame == 0 || r_other < r_frame);
}

/* Where a surface computed at the predicted relative pose, in the frame geom's predicted
 * axes, is placed in the world: with its predicted orientation (the current one would turn
 * the contact normal by the step's rotation), translated so that the geom that carries the
 * patch (other_carries_patch) sits at its current origin, a material point of its body. A
 * wrench placed at the predicted origin would act on a 1e-9 m grain with an arm of h v; and
 * placed with the frame while the other geom carries the patch, a ball rolling on a compliant
 * table felt its weight h v ahead of its centre, a rolling resistance that grew with the step
 * (after 1.5 s at 2 m/s: 1.23 / 1.11 / 0.78 m/s at dt 1 / 2 / 5 ms, 1.39 on a rigid floor). */
static tch_transform placed_frame(const tch_model* m, const tch_data* d, int frame, int other,
                                  int predict) {
    tch_transform X = predicted_pose(m, d, frame, predict);
    if (!other_carries_patch(m, frame, other)) {
        X.p = d->geom_X_WG[frame].p;
        return X;
    }
    tch_transform X_FO = tch_x_relative(X, predicted_pose(m, d, other, predict));
    X.p = tch_v3_sub(d->geom_X_WG[other].p, tch_q_rotate(X.q, X_FO.p));
    return X;
}

/* The two sides of a pair as the surface queries see them: `frame` compliant, `other`
 * compliant or rigid (other_compliant 0). */
typedef struct pressure_bodies {
    int frame_geom, other_geom;
    tch_pressure_body frame, other;
    int other_compliant;
} pressure_bodies;

/* The other side as the queries take it: its body when compliant, else NULL. */
static const tch_pressure_body* compliant_other(const pressure_bodies* bodies) {
    return bodies->other_compliant ? &bodies->other : NULL;
}

static pressure_bodies pair_bodies(const tch_model* m, int frame, int other) {
    const struct tch_pressure_geom* pf = &pressure_geoms(m)[frame];
    const struct tch_pressure_geom* po = &pressure_geoms(m)[other];
    pressure_bodies out = {.frame_geom = frame, .other_geom = other};
    out.frame = (tch_pressure_body){&pf->mesh, &pf->bvh, pf->modulus};
    out.other = (tch_pressure_body){&po->mesh, &po->bvh, po->modulus};
    out.other_compliant = po->compliant;
    return out;
}

/* The surface of compliant `c` against geom `o` (compliant or rigid) in c's frame at their
 * poses predicted when s->predicted (predicted_pose), and the elastic energy at the current
 * ones. */
static tch_status compute_surface(const tch_model* m, const tch_data* d, pair_work* s,
                                  int c, int o, tch_real* energy) {
    const struct tch_pressure_geom* pc = &pressure_geoms(m)[c];
    const struct tch_pressure_geom* po = &pressure_geoms(m)[o];
    tch_transform X_CO = tch_x_relative(predicted_pose(m, d, c, s->predicted),
                                        predicted_pose(m, d, o, s->predicted));
    tch_transform X_CO_now = tch_x_relative(d->geom_X_WG[c], d->geom_X_WG[o]);
    pressure_bodies bodies = pair_bodies(m, c, o);
    const tch_pressure_body* body_c = &bodies.frame;
    if (bodies.other_compliant) {
        tch_status st = tch_pressure_surface_compliant_ranged(
            body_c, (const tch_real(*)[2])pc->node_epsilon, &bodies.other,
            (const tch_real(*)[2])po->node_epsilon, X_CO, &s->surface, NULL);
        *energy = 0;
        return st == TCH_OK && d->contact_energy
                   ? tch_pressure_energy_compliant_on(body_c, &bodies.other, X_CO_now,
                                                      s->surface.workers, energy, NULL)
                   : st;
    }
    tch_rigid_surface rigid;
    tch_rigid_plane planes[TCH_PRESSURE_MAX_PLANES];
    int plane_count;
    tch_transform X_OC = tch_x_inverse(X_CO);
    tch_status st = TCH_OK;
    if (m->geom_type[o] == TCH_GEOM_PLANE) {
        st = half_space_box(s, X_OC.p, m->geom_rbound[c], &rigid, NULL);
        memcpy(planes, s->box_planes, sizeof s->box_planes);
        plane_count = 6;
    } else {
        rigid = (tch_rigid_surface){po->vertices, po->vertex_count,
                                    (const int(*)[3])po->triangles, po->triangle_count, &po->bvh};
        plane_count = po->convex ? hull_planes(&po->hull, planes) : 0;
    }
    if (st == TCH_OK) {
        st = tch_pressure_surface_rigid(body_c, &rigid, X_CO, &s->surface, NULL);
    }
    *energy = 0;
    if (st == TCH_OK && plane_count > 0 && d->contact_energy) {
        st = tch_pressure_energy_rigid_convex(body_c, planes, plane_count, X_CO_now, energy,
                                              NULL);
    }
    return st;
}

static tch_pressure_traction_params traction_params(const tch_model* m, const tch_pair_params* p,
                                                    int a, int b) {
    const struct tch_pressure_geom* pa = &pressure_geoms(m)[a];
    const struct tch_pressure_geom* pb = &pressure_geoms(m)[b];
    tch_real chi_a = geom_param(m, a, m->geom_contact[a].dissipation, p->dissipation);
    tch_real chi_b = geom_param(m, b, m->geom_contact[b].dissipation, p->dissipation);
    tch_real chi = pa->compliant && pb->compliant
                       ? tch_pressure_combine_dissipation(pa->modulus, chi_a, pb->modulus, chi_b)
                       : (pa->compliant ? chi_a : chi_b);
    tch_pressure_traction_params t = tch_pressure_traction_params_default();
    t.dissipation = chi;
    t.friction = 0; /* friction is solved semi-implicitly over the patch (pressure_friction) */
    /* exact for the static moment: with the centroid rule the coarse fan triangles of a box's
     * face lost most of the face's resistance to tilting (∫ x² dA within each triangle) */
    t.quadrature = TCH_PRESSURE_QUADRATURE_THREE_POINT;
    t.stiction_speed = p->stiction_velocity;
    return t;
}

/* The surface's polygons, in world, appended as the pair's patch; one contact point at the
 * centre of the surface with the surface's deepest overlap as its depth. `flip` when the
 * surface was computed from B's side. */
static int append_patch(tch_data* d, tch_pair_result* pair, const tch_pressure_surface* surf,
                        tch_transform X_WF, int flip, tch_real depth) {
    if (tch_contact_reserve(d, 1, surf->polygon_count, surf->vertex_count) != 0) {
        return -1;
    }
    tch_vec3 centre = tch_v3_zero(), normal = tch_v3_zero();
    for (int i = 0; i < surf->polygon_count; ++i) {
        const tch_pressure_polygon* poly = &surf->polygons[i];
        tch_vec3 n = tch_q_rotate(X_WF.q, flip ? tch_v3_neg(poly->normal_A) : poly->normal_A);
        d->polygons[d->polygon_count++] =
            (tch_contact_polygon){d->polygon_vertex_count + poly->first, poly->count, n};
        centre = tch_v3_madd(centre, poly->area, poly->centroid_A);
        normal = tch_v3_madd(normal, poly->area, n);
    }
    for (int v = 0; v < surf->vertex_count; ++v) {
        d->polygon_vertices_W[d->polygon_vertex_count + v] = tch_x_apply(X_WF, surf->vertices_A[v]);
        d->polygon_vertex_pressure[d->polygon_vertex_count + v] = surf->pressures[v];
    }
    d->polygon_vertex_count += surf->vertex_count;
    centre = tch_x_apply(X_WF, tch_v3_scale(centre, 1 / surf->total_area));
    d->contacts[d->contact_count++] =
        (tch_contact){pair->geom_a, pair->geom_b, pair->model, centre, tch_v3_normalize(normal),
                      depth, tch_v3_zero()};
    pair->contact_count = 1;
    pair->polygon_count = surf->polygon_count;
    pair->area = surf->total_area;
    pair->max_pressure = surf->max_pressure;
    return 0;
}

/* Sets the scratch's pool up for d->thread_count threads: made on first use, remade when the
 * count changes. Without a pool (one thread asked for, or none could be started) the surfaces
 * are computed on the calling thread, with the same results. */
static void use_threads(pressure_scratch* s, int thread_count) {
    int wanted = thread_count < 1 ? 1 : thread_count;
    wanted = wanted > TCH_WORKERS_MAX_THREADS ? TCH_WORKERS_MAX_THREADS : wanted;
    if (wanted != s->workers_wanted) {
        s->workers_wanted = wanted;
        tch_workers_destroy(s->workers);
        s->workers = NULL;
        if (wanted > 1 && tch_workers_create(wanted, &s->workers, NULL) != TCH_OK) {
            s->workers = NULL;
        }
    }
}

/* A bound on how fast any point of geom g moves: its origin's speed plus its spin times its
 * bounding radius (planes and static geoms: 0). */
static tch_real geom_speed_bound(const tch_model* m, const tch_data* d, int g) {
    int body = m->geom_body[g];
    if (!body) {
        return 0;
    }
    tch_vec3 origin = d->geom_X_WG[g].p;
    return tch_v3_norm(tch_contact_point_velocity(m, d, g, origin)) +
           tch_v3_norm(d->body_w_W[body]) * m->geom_rbound[g];
}

/* Whether the geoms of a pair move relative to each other no faster than a settling contact
 * (tch_contact_settling_speed): a pair that touches now and that the predictor takes out of
 * contact is then settling on its contact, not leaving it (compute_pair). */
static int pair_settles(const tch_model* m, const tch_data* d, int a, int b) {
    return geom_speed_bound(m, d, a) + geom_speed_bound(m, d, b) <= tch_contact_settling_speed(m);
}

/* The surface of pair (work->geom_a, work->geom_b), its energy and its wrench into work,
 * splitting the query over `workers` (or NULL). Reads model and data only.
 *
 * With the implicit integrator the surface is that of the predicted poses (linearize_surface),
 * except in two cases where the current poses are used:
 * - a body predicted below a lowered plane (half_space_box) is where the force no longer grows
 *   with depth: the secant stiffness there would carry it deeper still;
 * - a settling pair (pair_settles, slower than 4 |g| h) that the predictor takes out of
 *   contact: a body at rest on
 *   a stiff, lightly damped contact sinks far less than gravity moves it in a step (a 0.1 kg
 *   box of 0.1 m on a face: 0.5 um at 1e7 Pa against g h^2 = 20 um at 2 ms), so the step that
 *   lifts it back to its equilibrium leaves it rising at up to g h / 2; linearized about the
 *   predicted pose it then lost the contact's stiffness and fell through the next step, again
 *   and again: a hop of +-g h / 2 every two steps that never damped out (the boxes of the
 *   shared pile_100 still jittered at 1 cm/s after 12 s). About the current pose the contact
 *   holds it. A pair that leaves faster keeps the prediction, so a bounce is released. */
static void compute_pair(const tch_model* m, const tch_data* d, const tch_pair_params* params,
                         tch_workers* workers, pair_work* work) {
    int a = work->geom_a, b = work->geom_b;
    /* The surface is computed from a compliant side: A's when it is compliant, else B's. */
    int flip = !pressure_geoms(m)[a].compliant;
    int frame = flip ? b : a, other = flip ? a : b;
    work->surface.workers = workers;
    work->energy = 0;
    work->lowered = 0;
    work->predicted = m->integrator == TCH_INTEGRATOR_IMPLICIT;
    tch_status st = compute_surface(m, d, work, frame, other, &work->energy);
    int lost = st == TCH_OK && work->surface.polygon_count == 0 && pair_settles(m, d, a, b);
    if (st == TCH_OK && work->predicted && (work->lowered > 0 || lost)) {
        work->lowered = 0;
        work->predicted = 0;
        st = compute_surface(m, d, work, frame, other, &work->energy);
    }
    work->touching = st == TCH_OK && work->surface.polygon_count > 0;
    if (work->touching) {
        tch_pressure_traction_params tp = traction_params(m, params, a, b);
        tch_pressure_motion motion = relative_motion(
            m, d, frame, other, placed_frame(m, d, frame, other, work->predicted));
        work->touching =
            tch_pressure_wrench(&work->surface, &tp, &motion, &work->wrench, NULL) == TCH_OK;
    }
}

/* The work of pair (a, b) when it is the next candidate of prepare_pairs, else NULL. */
static pair_work* take_prepared(pressure_scratch* s, int a, int b) {
    if (s->prepared_next >= s->prepared_count) {
        return NULL;
    }
    pair_work* work = &s->prepared[s->prepared_next];
    if (work->geom_a != a || work->geom_b != b) {
        return NULL;
    }
    s->prepared_next++;
    return work;
}

/* R L Rᵀ for each 3x3 block of a 6x6 L: frame axes to world. */
static void rotate_blocks(const tch_real L[6][6], tch_mat3 R, tch_real out[6][6]) {
    for (int bi = 0; bi < 2; ++bi) {
        for (int bj = 0; bj < 2; ++bj) {
            tch_mat3 block;
            for (int i = 0; i < 3; ++i) {
                for (int j = 0; j < 3; ++j) {
                    block.m[i][j] = L[3 * bi + i][3 * bj + j];
                }
            }
            block = tch_m3_mul(tch_m3_mul(R, block), tch_m3_transpose(R));
            for (int i = 0; i < 3; ++i) {
                for (int j = 0; j < 3; ++j) {
                    out[3 * bi + i][3 * bj + j] = block.m[i][j];
                }
            }
        }
    }
}

/* Makes room for the linearization of pair result `index` (kept, grown only). -1 when out of
 * memory. */
static int reserve_linear(pressure_scratch* s, int index) {
    if (index < s->linear_capacity) {
        return 0;
    }
    int capacity = 2 * index + 8;
    pair_linear* grown = realloc(s->linear, (size_t)capacity * sizeof *grown);
    if (!grown) {
        return -1;
    }
    s->linear = grown;
    s->linear_capacity = capacity;
    return 0;
}

/* The wrench's change K Δ for the relative displacement Δ = h (v(o), ω) of `other` over one
 * step at its current relative motion (frame axes), about frame's origin. */
static tch_wrench step_change(const tch_real K[6][6], const tch_pressure_motion* motion,
                              tch_vec3 o_F, tch_real h) {
    tch_vec3 w = motion->w_A;
    tch_vec3 v_o = tch_v3_add(motion->v_A, tch_v3_cross(w, tch_v3_sub(o_F, motion->point_A)));
    tch_real delta[6] = {h * v_o.x, h * v_o.y, h * v_o.z, h * w.x, h * w.y, h * w.z};
    tch_real out[6] = {0};
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
            out[i] += K[i][j] * delta[j];
        }
    }
    tch_vec3 force = {out[0], out[1], out[2]}, moment_o = {out[3], out[4], out[5]};
    return (tch_wrench){force, tch_v3_add(moment_o, tch_v3_cross(o_F, force))};
}

/* The wrench of pair result `index` linearized about its contact point (the one append_patch
 * just wrote), its stiffness scaled by stiffness_scale, into the scratch for
 * pressure_linearize. When `predicted`, the surface is that of the predicted relative pose
 * (compute_surface), placed by X_WF (placed_frame). The implicit step
 * applies F(x) + K h v⁺ for a wrench F(x) at the step's start x (docs/integrators.md); the
 * surface being that of the predicted pose x̃ = x + h v, `wrench` (frame axes, about its
 * origin) becomes F(x̃) - K h v, so that the step applies F(x̃) + K (x⁺ - x̃): the linearization
 * about the explicit predictor, which sees the surface that enters contact during the step (a
 * face slapped down by a rocking box, whose stiffness the current pose does not have: the
 * step was explicit for it and stored energy no work had paid, 1% of the kinetic energy of a
 * box thrown onto a compliant one at dt 1 ms). -1 when out of memory. */
static int linearize_surface(const tch_model* m, const tch_data* d, pressure_scratch* s,
                             int index, const tch_pressure_surface* surface,
                             const pressure_bodies* bodies, tch_real stiffness_scale,
                             int predicted, tch_transform X_WF, tch_wrench* wrench) {
    if (reserve_linear(s, index) != 0) {
        return -1;
    }
    const tch_pair_result* pair = &d->pair_results[index];
    tch_vec3 o_F = tch_x_apply(tch_x_inverse(X_WF), d->contacts[pair->contact_start].p_W);
    tch_pressure_motion motion =
        relative_motion(m, d, bodies->frame_geom, bodies->other_geom, X_WF);
    tch_real chi = traction_params(m, &pair->params, pair->geom_a, pair->geom_b).dissipation;
    tch_pressure_jacobian local;
    tch_pressure_surface_jacobian(surface, &bodies->frame, compliant_other(bodies), chi, &motion,
                                  o_F, &local);
    pair_linear* out = &s->linear[index];
    out->geom_a = pair->geom_a, out->geom_b = pair->geom_b;
    tch_mat3 R = tch_q_to_mat3(X_WF.q);
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
            local.K[i][j] *= stiffness_scale;
        }
    }
    if (predicted) {
        tch_wrench change =
            step_change((const tch_real(*)[6])local.K, &motion, o_F, m->timestep);
        wrench->force = tch_v3_sub(wrench->force, change.force);
        wrench->moment = tch_v3_sub(wrench->moment, change.moment);
    }
    rotate_blocks((const tch_real(*)[6])local.K, R, out->K);
    rotate_blocks((const tch_real(*)[6])local.D, R, out->D);
    return 0;
}

/* Centroid, area and mean pressure of polygon `poly` of the data (fan about the vertex mean). */
static void polygon_load(const tch_data* d, const tch_contact_polygon* poly, tch_vec3* centre,
                         tch_real* area, tch_real* pressure) {
    const tch_vec3* v = d->polygon_vertices_W + poly->vertex_start;
    const tch_real* p = d->polygon_vertex_pressure + poly->vertex_start;
    tch_vec3 c = tch_v3_zero();
    tch_real mean = 0;
    for (int i = 0; i < poly->vertex_count; ++i) {
        c = tch_v3_add(c, v[i]);
        mean += p[i];
    }
    c = tch_v3_scale(c, 1.0 / poly->vertex_count);
    tch_real a = 0;
    for (int i = 0; i < poly->vertex_count; ++i) {
        tch_vec3 e1 = tch_v3_sub(v[i], c), e2 = tch_v3_sub(v[(i + 1) % poly->vertex_count], c);
        a += tch_v3_norm(tch_v3_cross(e1, e2)) / 2;
    }
    *centre = c;
    *area = a;
    *pressure = mean / poly->vertex_count;
}

/* With the implicit integrator the polygons' pressures are those of the predicted pose
 * x + h v, while the step applies the normal force linearized back to the current pose,
 * F(x + h v) - K h v (linearize_surface). Friction's load must be that applied force: taken at
 * the predicted pose it leads the normal force by h v, and a box sliding at 2 m/s at dt 2 ms
 * rocked on its edges with a growing amplitude and stopped after 0.16 m instead of Coulomb's
 * 0.41 m (a rocking box at dt 5 ms kept rocking at 0.14 rad/s). The polygons keep their share
 * of the load, scaled by the applied normal force over their sum. */
static tch_real friction_load_scale(const tch_data* d, const tch_pair_result* pair,
                                    tch_vec3 f_W) {
    tch_real predicted = 0;
    for (int i = 0; i < pair->polygon_count; ++i) {
        tch_vec3 centre;
        tch_real area, pressure;
        polygon_load(d, &d->polygons[pair->polygon_start + i], &centre, &area, &pressure);
        predicted += area * pressure;
    }
    tch_real applied = tch_v3_dot(f_W, d->contacts[pair->contact_start].n_W);
    return predicted > 0 && applied > 0 ? applied / predicted : 0;
}

static int pressure_geometry(const tch_model* m, tch_data* d, tch_pair_context* ctx) {
    tch_pair_result* pair = ctx->pair;
    int a = pair->geom_a, b = pair->geom_b;
    pressure_scratch* s = ctx->scratch;
    use_threads(s, d->thread_count);
    pair_work* work = take_prepared(s, a, b);
    if (!work || !work->ahead) {
        work = work ? work : &s->single;
        work->geom_a = a, work->geom_b = b;
        compute_pair(m, d, &pair->params, s->workers, work);
    }
    if (!work->touching) {
        return 0;
    }
    int flip = !pressure_geoms(m)[a].compliant;
    tch_transform X_WF = placed_frame(m, d, flip ? b : a, flip ? a : b, work->predicted);
    pair->elastic_energy = work->energy;
    pressure_bodies bodies = pair_bodies(m, flip ? b : a, flip ? a : b);
    tch_real field_depth =
        tch_pressure_surface_depth(&work->surface, &bodies.frame, compliant_other(&bodies));
    if (append_patch(d, pair, &work->surface, X_WF, flip, field_depth + work->lowered) != 0) {
        return -1;
    }
    int index = (int)(pair - d->pair_results);
    /* past a lowered plane the force no longer grows: the stiffness is the secant's, which
     * lifts the body back to the plane in about one step */
    tch_real secant = field_depth > 0 ? field_depth / (field_depth + work->lowered) : 1;
    tch_wrench wrench = work->wrench;
    if (m->integrator == TCH_INTEGRATOR_IMPLICIT &&
        linearize_surface(m, d, s, index, &work->surface, &bodies, secant, work->predicted,
                          X_WF, &wrench) != 0) {
        return -1;
    }
    /* The wrench is on `other`, about frame's origin, in frame's axes: world, and on B. */
    pressure_state* state = (pressure_state*)ctx->state->bytes;
    tch_real sign = flip ? -1 : 1;
    state->o_W = X_WF.p;
    state->f_W = tch_v3_scale(tch_q_rotate(X_WF.q, wrench.force), sign);
    state->m_W = tch_v3_scale(tch_q_rotate(X_WF.q, wrench.moment), sign);
    state->friction_load_scale = friction_load_scale(d, pair, state->f_W);
    return 1;
}

/* ---- pairs prepared on the pool ---- */

/* Makes room for `count` prepared pairs (kept, grown only). -1 when out of memory. */
static int reserve_prepared(pressure_scratch* s, int count) {
    if (count <= s->prepared_capacity) {
        return 0;
    }
    pair_work* grown = realloc(s->prepared, (size_t)count * sizeof *grown);
    if (!grown) {
        return -1;
    }
    memset(grown + s->prepared_capacity, 0,
           (size_t)(count - s->prepared_capacity) * sizeof *grown);
    for (int i = s->prepared_capacity; i < count; ++i) {
        tch_pressure_surface_init(&grown[i].surface);
    }
    s->prepared = grown;
    s->prepared_capacity = count;
    return 0;
}

typedef struct prepare_job {
    const tch_model* m;
    const tch_data* d;
    pair_work* prepared;
} prepare_job;

/* Pairs [begin, end) of the job, each into its own work on the calling worker's thread. */
static void prepare_part(void* context, int part, int begin, int end) {
    const prepare_job* job = context;
    (void)part;
    for (int i = begin; i < end; ++i) {
        pair_work* work = &job->prepared[i];
        if (!work->ahead) {
            continue;
        }
        tch_pair_params params = tch_model_pair_params(job->m, work->geom_a, work->geom_b);
        compute_pair(job->m, job->d, &params, NULL, work);
    }
}

/* Marks the pairs to compute on the pool. A pair's size is the element pairs its last query
 * tested (kept in its work when the same pair held that slot then, else 0). A pair larger than
 * the threads' share of the total would keep one thread busy while the others wait: it is left
 * to pair_geometry, whose query is split over the whole pool. Only the speed depends on this
 * choice, never the results. */
static void choose_ahead(pressure_scratch* s, const tch_pair* pairs, int count) {
    long total = 0;
    for (int i = 0; i < count; ++i) {
        pair_work* work = &s->prepared[i];
        int same = work->geom_a == pairs[i].a && work->geom_b == pairs[i].b;
        work->size = same ? work->surface.pairs_tested : 0;
        work->geom_a = pairs[i].a;
        work->geom_b = pairs[i].b;
        total += work->size;
    }
    long threads = tch_workers_thread_count(s->workers);
    for (int i = 0; i < count; ++i) {
        s->prepared[i].ahead = s->prepared[i].size * threads <= total;
    }
}

/* Two or more pairs are spread over the pool, one pair per part, each query on one thread
 * (the pool is not nested); a lone pair, or one larger than the threads' share, is left to
 * pair_geometry, whose query is split over the pool instead. Each pair's work is its own, so
 * the results are those of the serial path bit for bit (docs/contact-pressure.md,
 * "Threads"). */
static void pressure_prepare_pairs(const tch_model* m, const tch_data* d, const tch_pair* pairs,
                                   int count, void* scratch) {
    pressure_scratch* s = scratch;
    s->prepared_count = s->prepared_next = 0;
    use_threads(s, d->thread_count);
    if (count < 2 || !s->workers || reserve_prepared(s, count) != 0) {
        return;
    }
    choose_ahead(s, pairs, count);
    prepare_job job = {m, d, s->prepared};
    tch_workers_parallel_for(s->workers, count, count, prepare_part, &job);
    s->prepared_count = count;
}

static void pressure_forces(const tch_model* m, tch_data* d, tch_pair_context* ctx) {
    const pressure_state* state = (const pressure_state*)ctx->state->bytes;
    tch_pair_result* pair = ctx->pair;
    d->contacts[pair->contact_start].f_W = state->f_W;
    tch_contact_apply_force(m, d, pair, state->o_W, state->f_W);
    tch_contact_apply_moment(m, d, pair, state->m_W);
}

/* The regularized Coulomb friction of eq. 7 on one polygon of a pair, lumped at its centroid
 * with the load F_n = mean pressure × area: f = -c v_t with c = μ F_n / s,
 * s = √(|v_t|² + v_s²) (tch_pressure_friction_secant), for the slip v_t of b over a there. */
typedef struct regularized_friction {
    tch_vec3 centre, force, normal;
    tch_real c;    /* N s/m */
    tch_real load; /* F_n, N */
} regularized_friction;

static regularized_friction polygon_friction(const tch_model* m, const tch_data* d,
                                             const tch_pair_result* pair,
                                             const tch_contact_polygon* poly,
                                             tch_real load_scale) {
    regularized_friction f = {.normal = poly->n_W};
    tch_real area, pressure;
    polygon_load(d, poly, &f.centre, &area, &pressure);
    pressure *= load_scale;
    tch_vec3 v = tch_v3_sub(tch_contact_point_velocity(m, d, pair->geom_b, f.centre),
                            tch_contact_point_velocity(m, d, pair->geom_a, f.centre));
    tch_vec3 slip = tch_v3_madd(v, -tch_v3_dot(v, poly->n_W), poly->n_W);
    f.c = tch_pressure_friction_secant(&pair->params, tch_v3_norm(slip)) * pressure * area;
    f.force = tch_v3_scale(slip, -f.c);
    f.load = pressure * area;
    return f;
}

tch_real tch_pressure_friction_secant(const tch_pair_params* params, tch_real slip) {
    tch_real v_s = params->stiction_velocity;
    return tch_friction_coefficient(params, slip) / sqrt(slip * slip + v_s * v_s);
}

int tch_pressure_lump_friction(const tch_model* m, const tch_data* d,
                               const tch_pair_result* pair, const tch_pair_state* state,
                               tch_pressure_friction_lump* out) {
    *out = (tch_pressure_friction_lump){.centre = tch_v3_zero(), .normal = tch_v3_zero()};
    if (pair->model != TCH_CONTACT_PRESSURE || m->integrator != TCH_INTEGRATOR_IMPLICIT ||
        !state) {
        return 0;
    }
    tch_real load_scale = ((const pressure_state*)state->bytes)->friction_load_scale;
    for (int i = 0; i < pair->polygon_count; ++i) {
        const tch_contact_polygon* poly = &d->polygons[pair->polygon_start + i];
        regularized_friction f = polygon_friction(m, d, pair, poly, load_scale);
        out->load += f.load;
        out->secant += f.c;
        out->normal = tch_v3_madd(out->normal, f.load, f.normal);
        out->centre = tch_v3_madd(out->centre, f.c, f.centre);
    }
    if (!(out->load > 0) || !(out->secant > 0) || !(tch_v3_norm(out->normal) > 0)) {
        return 0;
    }
    out->centre = tch_v3_scale(out->centre, 1 / out->secant);
    out->normal = tch_v3_normalize(out->normal);
    return 1;
}

/* With the implicit integrator, friction is the regularized law at the current slip, applied
 * as a force, and its secant c (the force over the slip) is a damper of the implicit step
 * across the whole tangent plane (pressure_linearize): the step's slip is then
 * v⁺ = (m v + h F) / (m + h c) for a driving force F, so a held body creeps at F v_s / (μ F_n),
 * a sliding one slows by h μ F_n / m per step, and no step reverses the slip however large the
 * load (the derivative along a fast slip, μ F_n v_s² / s³, would leave nearly all of μ F_n
 * explicit: an impact at 4 m/s threw a box sideways). The semi-implicit solve of the explicit
 * integrators does not combine with the implicit step: its correction for the normal springs
 * (a block kept from tilting) undid part of the slip the solve had stopped, and a 50-block
 * stack crept sideways at 1 mm/s. */
static void regularized_pair_friction(const tch_model* m, tch_data* d, tch_pair_result* pair,
                                      tch_real load_scale) {
    tch_vec3 total = tch_v3_zero();
    for (int i = 0; i < pair->polygon_count; ++i) {
        const tch_contact_polygon* poly = &d->polygons[pair->polygon_start + i];
        regularized_friction f = polygon_friction(m, d, pair, poly, load_scale);
        tch_contact_apply_force(m, d, pair, f.centre, f.force);
        total = tch_v3_add(total, f.force);
    }
    d->contacts[pair->contact_start].f_W = tch_v3_add(d->contacts[pair->contact_start].f_W, total);
}

/* D -= c J Jᵀ for J = (t, r × t): a damper c along unit t at r from the wrench's point. */
static void subtract_damper(tch_real c, tch_vec3 t, tch_vec3 r, tch_real D[6][6]) {
    tch_vec3 rt = tch_v3_cross(r, t);
    tch_real J[6] = {t.x, t.y, t.z, rt.x, rt.y, rt.z};
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
            D[i][j] -= c * J[i] * J[j];
        }
    }
}

/* The dampers of regularized_pair_friction added to the local D about o. */
static void add_friction_dampers(const tch_model* m, const tch_data* d,
                                 const tch_pair_result* pair, tch_real load_scale, tch_vec3 o,
                                 tch_real D[6][6]) {
    for (int i = 0; i < pair->polygon_count; ++i) {
        const tch_contact_polygon* poly = &d->polygons[pair->polygon_start + i];
        regularized_friction f = polygon_friction(m, d, pair, poly, load_scale);
        tch_vec3 t1, t2, r = tch_v3_sub(f.centre, o);
        tch_v3_basis(f.normal, &t1, &t2);
        subtract_damper(f.c, t1, r, D);
        subtract_damper(f.c, t2, r, D);
    }
}

/* The pair's friction points, one per polygon at its centroid carrying mean pressure × area,
 * into points; returns their count. */
static int gather_friction_points(const tch_model* m, const tch_data* d,
                                  const tch_velocity_prediction* pred, tch_pair_result* pair,
                                  tch_friction_point* points) {
    int n = 0;
    for (int i = 0; i < pair->polygon_count; ++i) {
        const tch_contact_polygon* poly = &d->polygons[pair->polygon_start + i];
        tch_vec3 centre;
        tch_real area, pressure;
        polygon_load(d, poly, &centre, &area, &pressure);
        tch_vec3 v = tch_v3_sub(tch_contact_point_velocity(m, d, pair->geom_b, centre),
                                tch_contact_point_velocity(m, d, pair->geom_a, centre));
        tch_real slip = tch_v3_norm(tch_v3_madd(v, -tch_v3_dot(v, poly->n_W), poly->n_W));
        tch_real limit = tch_friction_coefficient(&pair->params, slip) * pressure * area;
        if (limit > 0) {
            tch_friction_point_init(m, d, pred, pair, centre, poly->n_W, limit, &points[n++]);
        }
    }
    return n;
}

/* Adds a solved pair's friction to its first contact's force. */
static void record_friction(tch_data* d, const tch_friction_pair* fp,
                            const tch_friction_point* points) {
    tch_vec3 total = tch_v3_zero();
    for (int i = 0; i < fp->count; ++i) {
        total = tch_v3_add(total, tch_friction_point_force(&points[fp->start + i]));
    }
    tch_contact* first = &d->contacts[fp->pair->contact_start];
    first->f_W = tch_v3_add(first->f_W, total);
}

/* Room for `points` friction points and `pairs` pairs; 0, or -1 when out of memory. */
static int reserve_friction(pressure_scratch* s, int points, int pairs) {
    if (points > s->friction_capacity) {
        tch_friction_point* grown = realloc(s->friction, (size_t)points * sizeof *grown);
        if (!grown) {
            return -1;
        }
        s->friction = grown;
        s->friction_capacity = points;
    }
    if (pairs > s->friction_pair_capacity) {
        tch_friction_pair* grown = realloc(s->friction_pairs, (size_t)pairs * sizeof *grown);
        if (!grown) {
            return -1;
        }
        s->friction_pairs = grown;
        s->friction_pair_capacity = pairs;
    }
    return 0;
}

/* Whether `pair` is the evaluation's first pressure pair (the engine takes them in order). */
static int first_pressure_pair(const tch_data* d, const tch_pair_result* pair) {
    for (int i = 0; i < d->pair_result_count; ++i) {
        if (d->pair_results[i].model == TCH_CONTACT_PRESSURE) {
            return &d->pair_results[i] == pair;
        }
    }
    return 0;
}

/* Solves the friction of every pressure pair of the evaluation together
 * (tch_friction_solve_pairs); 1, or 0 when out of memory. */
static int solve_all_pressure_pairs(const tch_model* m, tch_data* d,
                                    tch_velocity_prediction* pred, pressure_scratch* s) {
    int pairs = 0, polygons = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        if (d->pair_results[i].model == TCH_CONTACT_PRESSURE) {
            pairs++;
            polygons += d->pair_results[i].polygon_count;
        }
    }
    if (reserve_friction(s, polygons > 0 ? polygons : 1, pairs) != 0) {
        return 0;
    }
    int j = 0, n = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        tch_pair_result* pair = &d->pair_results[i];
        if (pair->model == TCH_CONTACT_PRESSURE) {
            int count = gather_friction_points(m, d, pred, pair, s->friction + n);
            s->friction_pairs[j++] = (tch_friction_pair){pair, n, count};
            n += count;
        }
    }
    tch_friction_solve_pairs(m, d, pred, s->friction, s->friction_pairs, pairs);
    for (int k = 0; k < pairs; ++k) {
        record_friction(d, &s->friction_pairs[k], s->friction);
    }
    return 1;
}

/* Coulomb friction over the patch, one friction point per polygon. With the implicit
 * integrator, the regularized law integrated implicitly (regularized_pair_friction); else
 * solved semi-implicitly like the point model's (contact/friction.h), every pressure pair of
 * the evaluation together (the first one solves them all): a held body stops exactly, and the
 * spread of the points gives the scrubbing torque. Out of memory, the pairs' normal forces
 * stand alone this step. */
static void pressure_friction(const tch_model* m, tch_data* d, tch_pair_context* ctx,
                              tch_velocity_prediction* pred) {
    pressure_scratch* s = ctx->scratch;
    if (m->integrator == TCH_INTEGRATOR_IMPLICIT) {
        const pressure_state* state = (const pressure_state*)ctx->state->bytes;
        regularized_pair_friction(m, d, ctx->pair, state->friction_load_scale);
        return;
    }
    if (first_pressure_pair(d, ctx->pair)) {
        solve_all_pressure_pairs(m, d, pred, s);
    }
}

/* The normal tractions' stiffness and damping over the patch (tch_pressure_surface_jacobian,
 * kept by pressure_geometry) and the friction's dampers, carried to the bodies
 * (docs/contact-pressure.md, "Implicit integration"). */
static void pressure_linearize(const tch_model* m, const tch_data* d,
                               const tch_pair_context* ctx, tch_pair_linearization* out) {
    const pressure_scratch* s = ctx->scratch;
    const tch_pair_result* pair = ctx->pair;
    int index = (int)(pair - d->pair_results);
    if (!s || index >= s->linear_capacity || s->linear[index].geom_a != pair->geom_a ||
        s->linear[index].geom_b != pair->geom_b || pair->contact_count < 1) {
        return;
    }
    const tch_contact* c = &d->contacts[pair->contact_start];
    tch_wrench_linearization w = {.o_W = c->p_W, .n_W = c->n_W, .F_W = pair->f_W,
                                  .depth = c->depth};
    w.M_W = tch_v3_sub(pair->tau_Wo_W, tch_v3_cross(w.o_W, pair->f_W));
    memcpy(w.K, s->linear[index].K, sizeof w.K);
    memcpy(w.D, s->linear[index].D, sizeof w.D);
    const pressure_state* state = (const pressure_state*)ctx->state->bytes;
    add_friction_dampers(m, d, pair, state->friction_load_scale, w.o_W, w.D);
    tch_contact_linearize_wrench(m, d, pair, &w, out);
}

static void* pressure_scratch_create(void) {
    pressure_scratch* s = calloc(1, sizeof *s);
    if (s) {
        tch_pressure_surface_init(&s->single.surface);
        s->workers_wanted = 1;
    }
    return s;
}

static void pair_work_free(pair_work* work) {
    tch_pressure_surface_free(&work->surface);
    tch_bvh_free(&work->box_bvh);
}

static void pressure_scratch_destroy(void* scratch) {
    pressure_scratch* s = scratch;
    if (s) {
        pair_work_free(&s->single);
        for (int i = 0; i < s->prepared_capacity; ++i) {
            pair_work_free(&s->prepared[i]);
        }
        free(s->prepared);
        tch_workers_destroy(s->workers);
        free(s->friction);
        free(s->friction_pairs);
        free(s->linear);
        free(s);
    }
}

const tch_contact_ops tch_pressure_ops = {
    .name = "pressure",
    .kind = TCH_CONTACT_KIND_FORCE,
    .physical_defaults = 1,
    .uses_state = 1,
    .build_geoms = pressure_build_geoms,
    .free_geoms = pressure_free_geoms,
    .pair_geometry = pressure_geometry,
    .prepare_pairs = pressure_prepare_pairs,
    .normal_forces = pressure_forces,
    .friction_forces = pressure_friction,
    .scratch_create = pressure_scratch_create,
    .scratch_destroy = pressure_scratch_destroy,
    .linearize = pressure_linearize,
};
