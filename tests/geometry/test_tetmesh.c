/* Tet meshes: tet math, validation errors, boundary, fields and every generator against closed
 * forms (volume, field values, gradients, a closed genus-0 boundary). */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "geometry/hull.h"
#include "geometry/tetmesh.h"
#include "math/vec.h"
#include "test.h"
#include "test_tetmesh.h"

/* ---- helpers ---- */

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;

static tch_real uniform(tch_real lo, tch_real hi) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (tch_real)(rng_state >> 11) / 9007199254740992.0;
}

static tch_vec3 random_point(tch_real r) {
    return tch_v3(uniform(-r, r), uniform(-r, r), uniform(-r, r));
}

/* Euler characteristic V - E + F of the boundary (each edge in two faces: E = 3F / 2). */
static int boundary_euler(const tch_tetmesh* m) {
    int v = 0;
    for (int i = 0; i < m->vertex_count; ++i) {
        v += m->vertex_on_boundary[i];
    }
    return v - 3 * m->face_count / 2 + m->face_count;
}

/* Checks shared by every generated solid; returns a failure message or NULL. */
static const char* check_solid(const tch_tetmesh* m) {
    if (!m->has_field || boundary_euler(m) != 2) {
        return "no field, or the boundary is not a sphere (V - E + F != 2)";
    }
    for (int t = 0; t < m->tet_count; ++t) {
        tch_vec3 v[4];
        tch_tetmesh_tet_vertices(m, t, v);
        if (!(tch_tet_volume6(v[0], v[1], v[2], v[3]) > 0)) {
            return "a tet is not positively oriented";
        }
    }
    tch_real largest = 0;
    for (int i = 0; i < m->vertex_count; ++i) {
        if (m->vertex_on_boundary[i] && m->epsilon[i] != 0) {
            return "epsilon is not 0 on the boundary";
        }
        largest = fmax(largest, m->epsilon[i]);
    }
    if (largest != 1) {
        return "epsilon never reaches 1";
    }
    /* the boundary faces enclose the volume: divergence theorem, V = 1/3 sum (x . n) A */
    tch_real enclosed = 0;
    for (int f = 0; f < m->face_count; ++f) {
        tch_vec3 a = m->vertices_G[m->faces[f][0]], b = m->vertices_G[m->faces[f][1]],
                 c = m->vertices_G[m->faces[f][2]];
        enclosed += tch_v3_dot(a, tch_v3_cross(b, c)) / 6;
    }
    if (fabs(enclosed - m->volume) > 1e-9 * m->volume) {
        return "the boundary faces do not enclose the tets' volume (orientation or holes)";
    }
    return NULL;
}

#define ENSURE_SOLID(m) ENSURE_NO_REASON(check_solid(m))

/* Index of the vertex at the origin, or -1. */
static int centre_vertex(const tch_tetmesh* m, tch_vec3 centre) {
    for (int i = 0; i < m->vertex_count; ++i) {
        if (tch_v3_dist(m->vertices_G[i], centre) == 0) {
            return i;
        }
    }
    return -1;
}

/* ---- tet math ---- */

static void test_tet_gradient_and_barycentric_are_exact(void) {
    for (int trial = 0; trial < 100; ++trial) {
        tch_vec3 v[4];
        for (int i = 0; i < 4; ++i) {
            v[i] = random_point(1);
        }
        if (fabs(tch_tet_volume6(v[0], v[1], v[2], v[3])) < 1e-3) {
            continue;
        }
        tch_vec3 g = random_point(3);
        tch_real c = uniform(-1, 1), f[4];
        for (int i = 0; i < 4; ++i) {
            f[i] = c + tch_v3_dot(g, v[i]);
        }
        tch_vec3 grad = tch_tet_gradient(v, f);
        ENSURE(tch_v3_dist(grad, g) < 1e-9);
        tch_vec3 p = random_point(1);
        tch_real b[4];
        tch_tet_barycentric(v, p, b);
        tch_vec3 back = tch_v3_zero();
        for (int i = 0; i < 4; ++i) {
            back = tch_v3_madd(back, b[i], v[i]);
        }
        ENSURE(tch_v3_dist(back, p) < 1e-9);
        ENSURE_NEAR(b[0] + b[1] + b[2] + b[3], 1, 1e-12);
    }
}

static const tch_vec3 kUnitTet[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

static void test_single_tet_boundary_is_outward(void) {
    const int tets[1][4] = {{0, 1, 2, 3}};
    tch_tetmesh m;
    ENSURE(tch_tetmesh_build(TCH_TETMESH_SOLID, kUnitTet, 4, tets, 1, NULL, &m, NULL) == TCH_OK);
    ENSURE(!m.has_field && m.epsilon == NULL);
    ENSURE_NEAR(m.volume, 1.0 / 6, 1e-15);
    ENSURE(m.face_count == 4);
    tch_vec3 centroid = tch_v3(0.25, 0.25, 0.25);
    for (int f = 0; f < 4; ++f) {
        tch_vec3 a = m.vertices_G[m.faces[f][0]], b = m.vertices_G[m.faces[f][1]],
                 c = m.vertices_G[m.faces[f][2]];
        tch_vec3 n = tch_v3_cross(tch_v3_sub(b, a), tch_v3_sub(c, a));
        ENSURE(tch_v3_dot(n, tch_v3_sub(a, centroid)) > 0);
        ENSURE(m.face_tet[f] == 0);
    }
    tch_tetmesh_free(&m);
    ENSURE(m.vertices_G == NULL && m.tet_count == 0);
}

/* ---- validation ---- */

static tch_status build_expecting(const tch_vec3* v, int nv, const int (*tets)[4], int nt,
                                  const tch_real* eps, const char* phrase) {
    tch_tetmesh m;
    tch_error err;
    tch_error_clear(&err);
    tch_status status = tch_tetmesh_build(TCH_TETMESH_SOLID, v, nv, tets, nt, eps, &m, &err);
    if (status == TCH_OK) {
        tch_tetmesh_free(&m);
    } else if (!strstr(err.message, phrase)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", err.message, phrase);
        return TCH_OK;
    } else {
        printf("     expected error: %s\n", err.message);
        if (m.vertex_count != 0 || m.tet_count != 0 || m.vertices_G != NULL) {
            fprintf(stderr, "the mesh was not left empty after an error\n");
            return TCH_OK;
        }
    }
    return status;
}

/* Two tets glued on face (1 2 3): vertices 0 and 4 on either side. */
static const tch_vec3 kTwoTets[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};

static void test_validation_errors_name_the_culprit(void) {
    const int inverted[1][4] = {{0, 2, 1, 3}};
    ENSURE(build_expecting(kUnitTet, 4, inverted, 1, NULL, "tet 0 (vertices 0 2 1 3) is inverted") ==
           TCH_ERR_INVALID_ARGUMENT);
    const tch_vec3 flat[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    const int one[1][4] = {{0, 1, 2, 3}};
    ENSURE(build_expecting(flat, 4, one, 1, NULL, "zero volume") == TCH_ERR_INVALID_ARGUMENT);
    const int out_of_range[1][4] = {{0, 1, 2, 7}};
    ENSURE(build_expecting(kUnitTet, 4, out_of_range, 1, NULL, "vertex index 7 is out of range") ==
           TCH_ERR_INVALID_ARGUMENT);
    const int glued[2][4] = {{0, 1, 2, 3}, {4, 1, 3, 2}};
    ENSURE(build_expecting(kTwoTets, 5, glued, 2, NULL, "") == TCH_OK);
    const int overlapping[2][4] = {{0, 1, 2, 3}, {4, 1, 2, 3}};
    const tch_vec3 inside[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.1, 0.1, 0.1}};
    ENSURE(build_expecting(inside, 5, overlapping, 2, NULL, "same side") ==
           TCH_ERR_INVALID_ARGUMENT);
    const int unused[1][4] = {{0, 1, 2, 3}};
    ENSURE(build_expecting(kTwoTets, 5, unused, 1, NULL, "vertex 4 is used by no tet") ==
           TCH_ERR_INVALID_ARGUMENT);
    /* two tets sharing only the edge (0 1): that edge is on four boundary faces */
    const tch_vec3 bowtie[6] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, -1, 0}, {0, 0, -1}};
    const int edge_only[2][4] = {{0, 1, 2, 3}, {0, 1, 4, 5}};
    ENSURE(build_expecting(bowtie, 6, edge_only, 2, NULL,
                           "boundary edge (0 1) is used by 4 boundary faces") ==
           TCH_ERR_INVALID_ARGUMENT);
}

static void test_field_errors(void) {
    const int glued[2][4] = {{0, 1, 2, 3}, {4, 1, 3, 2}};
    const tch_real on_boundary[5] = {0, 0, 0.5, 0, 0};
    ENSURE(build_expecting(kTwoTets, 5, glued, 2, on_boundary,
                           "vertex 2 is on the surface but has epsilon 0.5") ==
           TCH_ERR_INVALID_ARGUMENT);
    const tch_real not_a_number[5] = {0, 0, 0, NAN, 0};
    ENSURE(build_expecting(kTwoTets, 5, glued, 2, not_a_number, "vertex 3 has epsilon nan") ==
           TCH_ERR_INVALID_ARGUMENT);
    const tch_real too_big[5] = {0, 0, 0, 0, 1.5};
    ENSURE(build_expecting(kTwoTets, 5, glued, 2, too_big, "in [0, 1]") ==
           TCH_ERR_INVALID_ARGUMENT);
}

/* ---- the paper's box (sec. VI-A1) ---- */

static void test_coarsest_box_is_the_papers_twelve_tets(void) {
    tch_tetmesh m;
    ENSURE(tch_tetmesh_make_box(tch_v3(1, 1, 1), 0, &m, NULL) == TCH_OK);
    ENSURE(m.tet_count == 12 && m.vertex_count == 9 && m.face_count == 12);
    ENSURE_SOLID(&m);
    ENSURE_NEAR(m.volume, 8, 1e-14);
    int c = centre_vertex(&m, tch_v3_zero());
    ENSURE(c >= 0 && m.epsilon[c] == 1);
    /* the field in each tet is 1 - (depth below the face it stands on): ∇ε = -n / h */
    for (int t = 0; t < m.tet_count; ++t) {
        tch_vec3 g = m.tet_gradient_G[t];
        ENSURE_NEAR(tch_v3_norm(g), 1, 1e-14);
        ENSURE_NEAR(fabs(g.x) + fabs(g.y) + fabs(g.z), 1, 1e-14);
    }
    /* the averaged gradient vanishes at the centre and points inward at the corners */
    ENSURE(tch_v3_norm(m.vertex_gradient_G[c]) < 1e-14);
    for (int v = 0; v < m.vertex_count; ++v) {
        if (v != c) {
            ENSURE(tch_v3_dot(m.vertex_gradient_G[v], m.vertices_G[v]) < 0);
        }
    }
    tch_tetmesh_free(&m);
}

/* ---- generators against closed forms ---- */

typedef tch_status (*make_fn)(tch_real resolution, tch_tetmesh* out, tch_error* err);

static tch_status sphere(tch_real res, tch_tetmesh* m, tch_error* e) {
    return tch_tetmesh_make_sphere(0.5, res, m, e);
}
static tch_status ellipsoid(tch_real res, tch_tetmesh* m, tch_error* e) {
    return tch_tetmesh_make_ellipsoid(tch_v3(0.3, 0.5, 0.8), res, m, e);
}
static tch_status cylinder(tch_real res, tch_tetmesh* m, tch_error* e) {
    return tch_tetmesh_make_cylinder(0.4, 0.6, res, m, e);
}
static tch_status capsule(tch_real res, tch_tetmesh* m, tch_error* e) {
    return tch_tetmesh_make_capsule(0.3, 0.5, res, m, e);
}
static tch_status sphere_layer(tch_real res, tch_tetmesh* m, tch_error* e) {
    return tch_tetmesh_make_sphere_layer(0.5, 0.1, res, m, e);
}

typedef struct round_case {
    const char* name;
    make_fn make;
    tch_real volume;
    tch_real finest_error; /* relative volume error allowed at resolution 0.05 */
    int inscribed;         /* surface points on the shape (else fitted to cut through it) */
} round_case;

/* Volumes converge as the resolution rises: from below for the inscribed polyhedra, and much
 * faster for the ellipsoid's surface fitted to cut through the true one (tetmesh_gen.c). */
static void test_round_volumes_converge(void) {
    const round_case cases[] = {
        {"sphere", sphere, 4.0 / 3 * TCH_PI * 0.125, 1e-5, 0},
        {"ellipsoid", ellipsoid, 4.0 / 3 * TCH_PI * 0.3 * 0.5 * 0.8, 1e-5, 0},
        {"cylinder", cylinder, TCH_PI * 0.16 * 1.2, 3e-3, 1},
        {"capsule", capsule, TCH_PI * 0.09 * 1.0 + 4.0 / 3 * TCH_PI * 0.027, 6e-3, 1},
        {"sphere layer", sphere_layer, 4.0 / 3 * TCH_PI * 0.125, 1e-5, 0},
    };
    const tch_real resolutions[] = {0, 0.2, 0.1, 0.05};
    printf("     shape          resolution   tets      volume error\n");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        tch_real previous = INFINITY;
        for (size_t r = 0; r < sizeof resolutions / sizeof resolutions[0]; ++r) {
            tch_tetmesh m;
            tch_error err;
            tch_status status = cases[c].make(resolutions[r], &m, &err);
            if (status != TCH_OK) {
                fprintf(stderr, "%s: %s\n", cases[c].name, err.message);
            }
            ENSURE(status == TCH_OK);
            ENSURE_SOLID(&m);
            tch_real error = (cases[c].volume - m.volume) / cases[c].volume;
            printf("     %-14s %-12g %-9d %.3e\n", cases[c].name, resolutions[r], m.tet_count,
                   error);
            ENSURE(fabs(error) < previous && (error > 0 || !cases[c].inscribed));
            previous = fabs(error);
            tch_tetmesh_free(&m);
        }
        ENSURE(previous < cases[c].finest_error);
    }
}

/* How far the fitted surface's points stand outside the sphere of radius R (the callers check
 * it is at least 0 and under the largest sag of an inscribed triangle of edge h, h² / 2R). */
static void surface_offset(const tch_tetmesh* m, tch_real R, tch_real* lowest_out,
                           tch_real* highest_out) {
    tch_real lowest = INFINITY, highest = -INFINITY;
    for (int v = 0; v < m->vertex_count; ++v) {
        if (m->vertex_on_boundary[v]) {
            tch_real r = tch_v3_norm(m->vertices_G[v]);
            lowest = fmin(lowest, r - R);
            highest = fmax(highest, r - R);
        }
    }
    *lowest_out = lowest;
    *highest_out = highest;
}

/* ε = 1 - |v|/ρ, ρ the radius of the surface point on v's ray (the field is linear along each
 * ray, ρ in [R, R + offset]): within offset/R of the paper's 1 - |v|/R. */
static void test_sphere_field_is_linear_in_depth(void) {
    tch_tetmesh m;
    const tch_real R = 0.5;
    ENSURE(tch_tetmesh_make_sphere(R, 0.1, &m, NULL) == TCH_OK);
    tch_real lowest, offset;
    surface_offset(&m, R, &lowest, &offset);
    ENSURE(lowest >= 0 && offset < 0.1 * 0.1 / (2 * R));
    for (int v = 0; v < m.vertex_count; ++v) {
        ENSURE_NEAR(m.epsilon[v], 1 - tch_v3_norm(m.vertices_G[v]) / R, offset / R + 1e-12);
    }
    ENSURE(m.epsilon[centre_vertex(&m, tch_v3_zero())] == 1);
    /* every gradient points inward; away from the centre its size is about 1/R */
    for (int t = 0; t < m.tet_count; ++t) {
        tch_vec3 v[4], centroid = tch_v3_zero();
        tch_tetmesh_tet_vertices(&m, t, v);
        for (int i = 0; i < 4; ++i) {
            centroid = tch_v3_madd(centroid, 0.25, v[i]);
        }
        ENSURE(tch_v3_dot(m.tet_gradient_G[t], centroid) < 0);
        if (tch_v3_norm(centroid) > 0.3) {
            ENSURE_REL(tch_v3_norm(m.tet_gradient_G[t]), 1 / R, 0.05);
        }
    }
    tch_tetmesh_free(&m);
}

static void test_box_field_is_the_gauge(void) {
    const tch_vec3 h = tch_v3(0.5, 0.3, 0.2);
    tch_tetmesh m;
    ENSURE(tch_tetmesh_make_box(h, 0.1, &m, NULL) == TCH_OK);
    ENSURE_SOLID(&m);
    ENSURE_REL(m.volume, 8 * h.x * h.y * h.z, 1e-12);
    for (int v = 0; v < m.vertex_count; ++v) {
        tch_vec3 p = m.vertices_G[v];
        tch_real gauge = fmax(fabs(p.x) / h.x, fmax(fabs(p.y) / h.y, fabs(p.z) / h.z));
        ENSURE_NEAR(m.epsilon[v], 1 - gauge, 1e-12);
    }
    tch_tetmesh_free(&m);
}

static void test_box_layer_is_linear_across_the_layer(void) {
    const tch_vec3 h = tch_v3(0.5, 0.4, 0.3);
    const tch_real t = 0.1;
    tch_tetmesh m;
    ENSURE(tch_tetmesh_make_box_layer(h, t, 0.05, &m, NULL) == TCH_OK);
    ENSURE_SOLID(&m);
    ENSURE_REL(m.volume, 8 * h.x * h.y * h.z, 1e-12);
    int core = 0, layer = 0;
    for (int v = 0; v < m.vertex_count; ++v) {
        tch_vec3 p = m.vertices_G[v];
        tch_real depth = fmin(h.x - fabs(p.x), fmin(h.y - fabs(p.y), h.z - fabs(p.z)));
        if (depth >= t - 1e-12) {
            ENSURE(m.epsilon[v] == 1); /* on or in the rigid core */
            core++;
        } else if (fabs(p.x) <= h.x - t && fabs(p.y) <= h.y - t) {
            /* over the middle of a z face: ε = depth / t */
            ENSURE_NEAR(m.epsilon[v], depth / t, 1e-12);
            layer++;
        }
    }
    ENSURE(core > 8 && layer > 8);
    /* the layer tets over the middle of the top face have ∇ε = -z / t exactly */
    int checked = 0;
    for (int k = 0; k < m.tet_count; ++k) {
        tch_vec3 v[4];
        tch_tetmesh_tet_vertices(&m, k, v);
        int top = 1;
        for (int i = 0; i < 4; ++i) {
            top = top && v[i].z >= h.z - t - 1e-12 && fabs(v[i].x) <= h.x - t &&
                  fabs(v[i].y) <= h.y - t;
        }
        if (top) {
            ENSURE(tch_v3_dist(m.tet_gradient_G[k], tch_v3(0, 0, -1 / t)) < 1e-9);
            checked++;
        }
    }
    ENSURE(checked > 0);
    tch_tetmesh_free(&m);
}

static void test_sphere_layer_field(void) {
    const tch_real R = 0.5, t = 0.1;
    tch_tetmesh m;
    ENSURE(tch_tetmesh_make_sphere_layer(R, t, 0.05, &m, NULL) == TCH_OK);
    /* the fitted surface stands up to `offset` outside R, which shifts ε by up to offset / t */
    tch_real lowest, offset;
    surface_offset(&m, R, &lowest, &offset);
    ENSURE(lowest >= 0 && offset < 0.05 * 0.05 / (2 * R));
    for (int v = 0; v < m.vertex_count; ++v) {
        ENSURE_NEAR(m.epsilon[v], fmin(1, (R - tch_v3_norm(m.vertices_G[v])) / t),
                    offset / t + 1e-12);
    }
    tch_tetmesh_free(&m);
}

static void test_cylinder_and_capsule_fields(void) {
    tch_tetmesh m;
    const tch_real R = 0.4, h = 0.6;
    ENSURE(tch_tetmesh_make_cylinder(R, h, 0.1, &m, NULL) == TCH_OK);
    for (int v = 0; v < m.vertex_count; ++v) {
        tch_vec3 p = m.vertices_G[v];
        tch_real rho = sqrt(p.x * p.x + p.y * p.y);
        ENSURE_NEAR(m.epsilon[v], 1 - fmax(rho / R, fabs(p.z) / h), 1e-12);
    }
    tch_tetmesh_free(&m);
    ENSURE(tch_tetmesh_make_capsule(0.3, 0.5, 0.1, &m, NULL) == TCH_OK);
    ENSURE(m.epsilon[centre_vertex(&m, tch_v3_zero())] == 1);
    ENSURE_NEAR(m.bounds_G.hi.z, 0.8, 1e-15);
    ENSURE_NEAR(m.bounds_G.hi.x, 0.3, 1e-15);
    tch_tetmesh_free(&m);
}

static void test_convex_polytope_fans_to_its_centroid(void) {
    tch_vec3 points[] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1},
                         {0.6, 0.6, 0.6}};
    tch_convex_hull hull;
    ENSURE(tch_hull_build(points, 7, &hull, NULL) == TCH_OK);
    tch_tetmesh m;
    ENSURE(tch_tetmesh_make_convex(&hull, 0, &m, NULL) == TCH_OK);
    ENSURE_SOLID(&m);
    ENSURE_REL(m.volume, hull.volume, 1e-12);
    int c = centre_vertex(&m, hull.centroid_G);
    ENSURE(c >= 0 && m.epsilon[c] == 1);
    int fan_tets = m.tet_count;
    tch_tetmesh_free(&m);
    ENSURE(tch_tetmesh_make_convex(&hull, 0.25, &m, NULL) == TCH_OK);
    ENSURE_SOLID(&m);
    ENSURE_REL(m.volume, hull.volume, 1e-12);
    ENSURE(m.tet_count > 3 * fan_tets);
    tch_tetmesh_free(&m);
    tch_hull_free(&hull);
}

static void test_slab_gradient_is_exact(void) {
    const tch_real T = 0.2;
    tch_tetmesh m;
    tch_error err;
    ENSURE(tch_tetmesh_make_slab(1.0, 0.5, T, 0.1, &m, &err) == TCH_OK);
    ENSURE(m.kind == TCH_TETMESH_SLAB && boundary_euler(&m) == 2);
    ENSURE_NEAR(m.volume, 4 * 1.0 * 0.5 * T, 1e-13);
    ENSURE(m.bounds_G.hi.z == 0 && m.bounds_G.lo.z == -T);
    for (int t = 0; t < m.tet_count; ++t) {
        ENSURE(tch_v3_dist(m.tet_gradient_G[t], tch_v3(0, 0, -1 / T)) < 1e-9);
    }
    for (int v = 0; v < m.vertex_count; ++v) {
        ENSURE(tch_v3_dist(m.vertex_gradient_G[v], tch_v3(0, 0, -1 / T)) < 1e-9);
        ENSURE_NEAR(m.epsilon[v], -m.vertices_G[v].z / T, 1e-15);
    }
    /* interpolation reproduces the linear field anywhere in a tet */
    for (int trial = 0; trial < 50; ++trial) {
        int t = (int)uniform(0, m.tet_count);
        tch_vec3 v[4];
        tch_tetmesh_tet_vertices(&m, t, v);
        tch_real w[4], sum = 0;
        tch_vec3 p = tch_v3_zero();
        for (int i = 0; i < 4; ++i) {
            w[i] = uniform(0, 1);
            sum += w[i];
        }
        for (int i = 0; i < 4; ++i) {
            p = tch_v3_madd(p, w[i] / sum, v[i]);
        }
        ENSURE_NEAR(tch_tetmesh_epsilon_at(&m, t, p), -p.z / T, 1e-12);
    }
    tch_tetmesh_free(&m);
}

static void test_generator_arguments_are_checked(void) {
    tch_tetmesh m;
    tch_error err;
    ENSURE(tch_tetmesh_make_sphere(-1, 0.1, &m, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "got -1") != NULL);
    ENSURE(tch_tetmesh_make_box(tch_v3(1, NAN, 1), 0.1, &m, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_tetmesh_make_box_layer(tch_v3(1, 1, 0.2), 0.2, 0.1, &m, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "thickness") != NULL);
    ENSURE(tch_tetmesh_make_sphere(1, 1e-4, &m, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "coarser resolution") != NULL);
    tch_shape plane = {TCH_GEOM_PLANE, {0, 0, 0}, NULL};
    ENSURE(tch_tetmesh_make_shape(&plane, 0.1, &m, &err) == TCH_ERR_UNSUPPORTED);
    tch_shape box = {TCH_GEOM_BOX, {0.1, 0.2, 0.3}, NULL};
    ENSURE(tch_tetmesh_make_shape(&box, 0.1, &m, &err) == TCH_OK);
    ENSURE_NEAR(m.volume, 8 * 0.1 * 0.2 * 0.3, 1e-15);
    tch_tetmesh_free(&m);
}

static void test_copy_and_set_field(void) {
    tch_tetmesh m, copy;
    ENSURE(tch_tetmesh_make_sphere(1, 0.5, &m, NULL) == TCH_OK);
    ENSURE(tch_tetmesh_copy(&m, &copy, NULL) == TCH_OK);
    ENSURE(copy.vertices_G != m.vertices_G && copy.tet_count == m.tet_count);
    ENSURE(memcmp(copy.tets, m.tets, (size_t)m.tet_count * sizeof *m.tets) == 0);
    ENSURE(memcmp(copy.epsilon, m.epsilon, (size_t)m.vertex_count * sizeof *m.epsilon) == 0);
    ENSURE(memcmp(copy.faces, m.faces, (size_t)m.face_count * sizeof *m.faces) == 0);
    tch_tetmesh_free(&m);
    /* a field set on a mesh built without one: a bump that is 0 on the boundary */
    tch_tetmesh bare;
    ENSURE(tch_tetmesh_build(TCH_TETMESH_SOLID, copy.vertices_G, copy.vertex_count,
                             (const int(*)[4])copy.tets, copy.tet_count, NULL, &bare,
                             NULL) == TCH_OK);
    ENSURE(!bare.has_field);
    ENSURE(tch_tetmesh_set_field(&bare, copy.epsilon, NULL) == TCH_OK);
    ENSURE(bare.has_field);
    for (int t = 0; t < bare.tet_count; ++t) {
        ENSURE(tch_v3_dist(bare.tet_gradient_G[t], copy.tet_gradient_G[t]) == 0);
    }
    tch_real* bad = malloc((size_t)copy.vertex_count * sizeof *bad);
    memcpy(bad, copy.epsilon, (size_t)copy.vertex_count * sizeof *bad);
    bad[copy.faces[0][0]] = 0.25;
    tch_error err;
    ENSURE(tch_tetmesh_set_field(&bare, bad, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(bare.epsilon[copy.faces[0][0]] == 0); /* unchanged */
    free(bad);
    tch_tetmesh_free(&bare);
    tch_tetmesh_free(&copy);
}

int main(void) {
    RUN_TEST(test_tet_gradient_and_barycentric_are_exact);
    RUN_TEST(test_single_tet_boundary_is_outward);
    RUN_TEST(test_validation_errors_name_the_culprit);
    RUN_TEST(test_field_errors);
    RUN_TEST(test_coarsest_box_is_the_papers_twelve_tets);
    RUN_TEST(test_round_volumes_converge);
    RUN_TEST(test_sphere_field_is_linear_in_depth);
    RUN_TEST(test_box_field_is_the_gauge);
    RUN_TEST(test_box_layer_is_linear_across_the_layer);
    RUN_TEST(test_sphere_layer_field);
    RUN_TEST(test_cylinder_and_capsule_fields);
    RUN_TEST(test_convex_polytope_fans_to_its_centroid);
    RUN_TEST(test_slab_gradient_is_exact);
    RUN_TEST(test_generator_arguments_are_checked);
    RUN_TEST(test_copy_and_set_field);
    return TEST_RESULT();
}
