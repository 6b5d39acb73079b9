/* Tet meshes and penetration-extent fields for primitives (see tetmesh.h for the fields).
 *
 * Most shapes are built by one shell mesher from a closed triangulated surface S around a
 * centre c:
 *
 *     shell k (k = 1..K) is S with each point s moved to c + σₖ ⊙ (s - c)   (σ per axis)
 *     centre --fan-- shell 1 --prisms-- shell 2 -- ... -- shell K = S
 *
 * The innermost shell is fanned to the centre (one tet per triangle). Between two shells a
 * triangle sweeps a prism, cut into three tets by the "staircase" rule: with the triangle's
 * vertices in increasing index order 0 < 1 < 2 and B/T its copies on the inner/outer shell,
 * {B0 B1 B2 T2}, {B0 B1 T1 T2}, {B0 T0 T1 T2}. Each quad side is then cut along the diagonal
 * from the lower-index bottom to the higher-index top, which depends only on the shared edge,
 * so neighbouring prisms agree and the mesh is conforming.
 *
 * S is the surface of the cube [-1, 1]^3, cut in an n_x x n_y x n_z grid of squares (each
 * square into two triangles along its shorter mapped diagonal), mapped onto the shape. Rejected:
 * a subdivided icosahedron (needs edge bookkeeping to share vertices, and does not fit boxes and
 * cylinders); shells shrinking onto a medial segment or rectangle instead of a point (the
 * staircase cut then collapses into holes, depending on vertex order).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "geometry/tetmesh.h"
#include "math/vec.h"

/* Meshes beyond this many tets are refused (about 2 GB with the derived arrays). */
#define MAX_GENERATED_TETS 20000000.0

typedef struct surface {
    tch_vec3* points;
    int point_count;
    int (*triangles)[3]; /* counter-clockwise seen from outside */
    int triangle_count;
} surface;

static void free_surface(surface* s) {
    free(s->points);
    free(s->triangles);
}

static tch_status out_of_memory(tch_error* err) {
    return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory while generating a tet mesh");
}

/* ---- resolution ---- */

/* Number of pieces of length about `resolution` in `length` (at least 1). */
static int pieces(tch_real length, tch_real resolution) {
    if (!(resolution > 0) || !(length > resolution)) {
        return 1;
    }
    tch_real n = ceil(length / resolution - 1e-9);
    return n < 1e6 ? (int)n : 1000000;
}

/* pieces(), rounded up to an even number beyond the coarsest, so that the middle of each cube
 * face (a pole of a round shape) is a grid point. */
static int even_pieces(tch_real length, tch_real resolution) {
    int n = pieces(length, resolution);
    return n == 1 ? 1 : n + n % 2;
}

static tch_status check_positive(tch_real value, const char* what, tch_error* err) {
    if (!(value > 0) || !isfinite(value)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "%s must be positive and finite, got %g", what, value);
    }
    return TCH_OK;
}

static tch_status check_size(tch_real tets, tch_error* err) {
    if (tets > MAX_GENERATED_TETS) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the resolution asks for %.3g tets; at most %.3g are generated "
                        "(choose a coarser resolution)",
                        tets, MAX_GENERATED_TETS);
    }
    return TCH_OK;
}

/* ---- surface of the cube grid, mapped onto a shape ---- */

typedef enum shape_map { MAP_BOX, MAP_ELLIPSOID, MAP_CYLINDER, MAP_CAPSULE } shape_map;

typedef struct cube_grid {
    int n[3];          /* squares along x, y, z */
    shape_map map;
    tch_vec3 size;     /* box: half sizes; ellipsoid: radii; cylinder/capsule: (R, R, h or L) */
} cube_grid;

/* tan(π/4 x): spreads the grid points evenly in angle on round shapes. */
static tch_real warp(tch_real x) {
    return tan(TCH_PI / 4 * x);
}

/* Unit direction in the xy-plane for a point (x, y) of a concentric square ring of radius
 * r = max(|x|, |y|) > 0, at evenly spaced angles along the ring. */
static tch_vec3 ring_direction(tch_real x, tch_real y, tch_real r) {
    return tch_v3_normalize(tch_v3(warp(x / r), warp(y / r), 0));
}

/* Cylinder: the square top/bottom map onto disks by concentric rings; the sides onto the
 * lateral surface. Capsule: the top/bottom map onto hemispheres, with polar angle r π/2. */
static tch_vec3 map_round(const cube_grid* g, tch_vec3 u) {
    tch_real r = fmax(fabs(u.x), fabs(u.y));
    tch_vec3 dir = r > 0 ? ring_direction(u.x, u.y, r) : tch_v3_zero();
    tch_real R = g->size.x, h = g->size.z;
    if (g->map == MAP_CYLINDER || fabs(u.z) < 1) {
        return tch_v3(R * r * dir.x, R * r * dir.y, h * u.z);
    }
    tch_real polar = r * TCH_PI / 2;
    tch_real radial = R * sin(polar);
    return tch_v3(radial * dir.x, radial * dir.y, u.z * (h + R * cos(polar)));
}

static tch_vec3 map_point(const cube_grid* g, tch_vec3 u) {
    switch (g->map) {
    case MAP_BOX: return tch_v3_mul(u, g->size);
    case MAP_ELLIPSOID:
        return tch_v3_mul(g->size, tch_v3_normalize(tch_v3(warp(u.x), warp(u.y), warp(u.z))));
    default: return map_round(g, u);
    }
}

/* Index of grid point (i, j, k) in a dense (n+1)^3 table. */
static size_t grid_slot(const cube_grid* g, const int ijk[3]) {
    return (size_t)ijk[0] + (size_t)(g->n[0] + 1) * ((size_t)ijk[1] + (size_t)(g->n[1] + 1) * (size_t)ijk[2]);
}

static int on_cube_surface(const cube_grid* g, const int ijk[3]) {
    for (int d = 0; d < 3; ++d) {
        if (ijk[d] == 0 || ijk[d] == g->n[d]) {
            return 1;
        }
    }
    return 0;
}

/* Numbers the surface points in x-fastest order and maps them; slot[] gets their index. */
static void number_surface_points(const cube_grid* g, int* slot, surface* s) {
    s->point_count = 0;
    int ijk[3];
    for (ijk[2] = 0; ijk[2] <= g->n[2]; ++ijk[2]) {
        for (ijk[1] = 0; ijk[1] <= g->n[1]; ++ijk[1]) {
            for (ijk[0] = 0; ijk[0] <= g->n[0]; ++ijk[0]) {
                if (!on_cube_surface(g, ijk)) {
                    continue;
                }
                tch_vec3 u;
                for (int d = 0; d < 3; ++d) {
                    tch_v3_set(&u, d, 2.0 * ijk[d] / g->n[d] - 1);
                }
                slot[grid_slot(g, ijk)] = s->point_count;
                s->points[s->point_count++] = map_point(g, u);
            }
        }
    }
}

/* Two triangles for the square with corners q[0..3] counter-clockwise from outside, cut along
 * the shorter diagonal (ties: alternating with `parity`, for a symmetric pattern). */
static void split_square(const surface* s, const int q[4], int parity, int (*out)[3]) {
    tch_real d02 = tch_v3_dist(s->points[q[0]], s->points[q[2]]);
    tch_real d13 = tch_v3_dist(s->points[q[1]], s->points[q[3]]);
    int use02 = fabs(d02 - d13) <= 1e-12 * (d02 + d13) ? parity : d02 < d13;
    int a = use02 ? 0 : 1;
    for (int k = 0; k < 3; ++k) {
        out[0][k] = q[(a + k) % 4];
        out[1][k] = q[(a + (k == 0 ? 0 : k + 1)) % 4];
    }
}

/* Triangles of the face of the cube normal to axis d on side `high` (0: -d, 1: +d). */
static void face_triangles(const cube_grid* g, const int* slot, int d, int high, surface* s) {
    int d1 = (d + 1) % 3, d2 = (d + 2) % 3;
    for (int a = 0; a < g->n[d1]; ++a) {
        for (int b = 0; b < g->n[d2]; ++b) {
            static const int corner[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
            int q[4];
            for (int c = 0; c < 4; ++c) {
                /* (d1, d2, d) is right-handed: this order is counter-clockwise seen from +d */
                int k = high ? c : (4 - c) % 4;
                int ijk[3];
                ijk[d] = high ? g->n[d] : 0;
                ijk[d1] = a + corner[k][0];
                ijk[d2] = b + corner[k][1];
                q[c] = slot[grid_slot(g, ijk)];
            }
            split_square(s, q, (a + b) % 2, &s->triangles[s->triangle_count]);
            s->triangle_count += 2;
        }
    }
}

static tch_status make_grid_surface(const cube_grid* g, surface* s, tch_error* err) {
    size_t slots = (size_t)(g->n[0] + 1) * (size_t)(g->n[1] + 1) * (size_t)(g->n[2] + 1);
    size_t squares = 2 * ((size_t)g->n[0] * g->n[1] + (size_t)g->n[1] * g->n[2] +
                          (size_t)g->n[2] * g->n[0]);
    int* slot = malloc(slots * sizeof *slot);
    s->points = malloc((squares + 2) * sizeof *s->points); /* Euler: V = squares + 2 */
    s->triangles = malloc(2 * squares * sizeof *s->triangles);
    s->triangle_count = 0;
    if (!slot || !s->points || !s->triangles) {
        free(slot);
        free_surface(s);
        return out_of_memory(err);
    }
    number_surface_points(g, slot, s);
    for (int d = 0; d < 3; ++d) {
        face_triangles(g, slot, d, 0, s);
        face_triangles(g, slot, d, 1, s);
    }
    free(slot);
    return TCH_OK;
}

/* ---- a surface that follows the true one ---- */

/* The flat triangles between points on a round surface lie inside it (the inscribed
 * polyhedron): a triangle of size h on curvature radius R sags by h²/(6R) on average, which
 * takes 2·sag/d of the force of a contact of depth d (6% at d = R/20, h = R/10). The fit
 * moves each surface point outward along its ray from the centre by the mean relative gap of
 * its triangles, so that the triangles cut through the true surface, as far outside at their
 * corners as inside in their middle, and the contact depth is right on average. The shells are
 * scaled copies of the fitted surface, so the field stays the polyhedral gauge 1 - λ. */

enum { fit_passes = 3 };

/* The fit is for grids of at least this many squares along each quarter turn (h ≤ about R/5),
 * whose points then stand out under 0.7% of the radius. Coarser grids stay inscribed: fitted,
 * the 12-tet sphere's corners would stand 35% outside it, beyond the shape's bounding box, by
 * which the broadphase finds the pair (the contact would start that late, with a jump). */
enum { min_fitted_squares = 8 };

static int fits_true_surface(const cube_grid* g) {
    return g->map == MAP_ELLIPSOID && g->n[0] >= min_fitted_squares &&
           g->n[1] >= min_fitted_squares && g->n[2] >= min_fitted_squares;
}

/* The ellipsoid's gauge √Σ(xᵢ/aᵢ)²: 1 on its surface, x / gauge on the surface along the ray. */
static tch_real ellipsoid_gauge(tch_vec3 radii, tch_vec3 x) {
    return tch_v3_norm(tch_v3(x.x / radii.x, x.y / radii.y, x.z / radii.z));
}

/* The mean over triangle (a, b, c) of the relative radial gap 1/gauge - 1 between it and the
 * surface, by the three-point rule (barycentric (2/3, 1/6, 1/6), exact for quadratics). */
static tch_real triangle_gap(tch_vec3 radii, tch_vec3 a, tch_vec3 b, tch_vec3 c) {
    const tch_vec3 corner[3] = {a, b, c};
    tch_real sum = 0;
    for (int i = 0; i < 3; ++i) {
        tch_vec3 x = tch_v3_scale(corner[i], 2.0 / 3);
        x = tch_v3_madd(x, 1.0 / 6, corner[(i + 1) % 3]);
        x = tch_v3_madd(x, 1.0 / 6, corner[(i + 2) % 3]);
        sum += 1 / ellipsoid_gauge(radii, x) - 1;
    }
    return sum / 3;
}

/* One pass of the fit: each point scaled by 1 + the area-weighted mean gap of its triangles. */
static void fit_pass(tch_vec3 radii, surface* s, tch_real* gap, tch_real* area) {
    memset(gap, 0, (size_t)s->point_count * sizeof *gap);
    memset(area, 0, (size_t)s->point_count * sizeof *area);
    for (int f = 0; f < s->triangle_count; ++f) {
        const int* t = s->triangles[f];
        tch_vec3 a = s->points[t[0]], b = s->points[t[1]], c = s->points[t[2]];
        tch_real A = tch_v3_norm(tch_v3_cross(tch_v3_sub(b, a), tch_v3_sub(c, a))) / 2;
        tch_real m = triangle_gap(radii, a, b, c);
        for (int k = 0; k < 3; ++k) {
            gap[t[k]] += A * m;
            area[t[k]] += A;
        }
    }
    for (int p = 0; p < s->point_count; ++p) {
        s->points[p] = tch_v3_scale(s->points[p], 1 + gap[p] / area[p]);
    }
}

/* Fits the surface of an ellipsoid grid to the true surface (see above); the gaps shrink by
 * about the neighbours' spread per pass. */
static tch_status fit_to_ellipsoid(tch_vec3 radii, surface* s, tch_error* err) {
    tch_real* gap = malloc((size_t)s->point_count * sizeof *gap);
    tch_real* area = malloc((size_t)s->point_count * sizeof *area);
    if (!gap || !area) {
        free(gap);
        free(area);
        return out_of_memory(err);
    }
    for (int pass = 0; pass < fit_passes; ++pass) {
        fit_pass(radii, s, gap, area);
    }
    free(gap);
    free(area);
    return TCH_OK;
}

/* ---- shells ---- */

enum { max_shells = 2048 };

typedef struct shells {
    int count;                     /* K >= 1 */
    tch_vec3 scale[max_shells];    /* σₖ per axis, k = 0..K-1 inside out; the last is (1,1,1) */
    tch_real epsilon[max_shells];  /* ε on shell k */
    tch_real centre_epsilon;
} shells;

typedef struct tet_list {
    int (*tets)[4];
    int count;
    const tch_vec3* vertices;
} tet_list;

/* The arrays a generator fills before tch_tetmesh_build copies and checks them. */
typedef struct generated {
    tch_vec3* vertices;
    tch_real* epsilon;
    int vertex_count;
    tet_list list;
} generated;

/* Allocates room for the vertices, their field and the tets; 0 when out of memory (nothing
 * left allocated). */
static int allocate_generated(generated* g, size_t vertex_count, size_t tet_count) {
    g->vertices = malloc(vertex_count * sizeof *g->vertices);
    g->epsilon = malloc(vertex_count * sizeof *g->epsilon);
    g->list.tets = malloc(tet_count * sizeof *g->list.tets);
    g->list.count = 0;
    g->list.vertices = g->vertices;
    g->vertex_count = (int)vertex_count;
    if (!g->vertices || !g->epsilon || !g->list.tets) {
        free(g->vertices);
        free(g->epsilon);
        free(g->list.tets);
        return 0;
    }
    return 1;
}

/* Builds the mesh from the filled arrays and frees them. */
static tch_status build_generated(generated* g, tch_tetmesh_kind kind, tch_tetmesh* out,
                                  tch_error* err) {
    tch_status status = tch_tetmesh_build(kind, g->vertices, g->vertex_count,
                                          (const int(*)[4])g->list.tets, g->list.count,
                                          g->epsilon, out, err);
    free(g->vertices);
    free(g->epsilon);
    free(g->list.tets);
    return status;
}

/* Appends tet (a, b, c, d), swapping two vertices when it is negatively oriented. */
static void append_tet(tet_list* list, int a, int b, int c, int d) {
    const tch_vec3* v = list->vertices;
    int* t = list->tets[list->count++];
    int positive = tch_tet_volume6(v[a], v[b], v[c], v[d]) > 0;
    t[0] = a;
    t[1] = b;
    t[2] = positive ? c : d;
    t[3] = positive ? d : c;
}

static void sorted_triangle(const int tri[3], int v[3]) {
    int lo = tri[0] < tri[1] ? (tri[0] < tri[2] ? 0 : 2) : (tri[1] < tri[2] ? 1 : 2);
    int a = tri[(lo + 1) % 3], b = tri[(lo + 2) % 3];
    v[0] = tri[lo];
    v[1] = a < b ? a : b;
    v[2] = a < b ? b : a;
}

static void shell_tets(const surface* s, int shell_count, tet_list* list) {
    for (int f = 0; f < s->triangle_count; ++f) {
        const int* tri = s->triangles[f];
        append_tet(list, 0, 1 + tri[0], 1 + tri[1], 1 + tri[2]);
        int v[3];
        sorted_triangle(tri, v);
        for (int k = 1; k < shell_count; ++k) {
            int B[3], T[3];
            for (int i = 0; i < 3; ++i) {
                B[i] = 1 + (k - 1) * s->point_count + v[i];
                T[i] = 1 + k * s->point_count + v[i];
            }
            append_tet(list, B[0], B[1], B[2], T[2]);
            append_tet(list, B[0], B[1], T[1], T[2]);
            append_tet(list, B[0], T[0], T[1], T[2]);
        }
    }
}

/* The mesh of the shells of surface s about `centre` (see the top of the file). */
static tch_status mesh_shells(const surface* s, tch_vec3 centre, const shells* sh,
                              tch_tetmesh* out, tch_error* err) {
    tch_real tet_total = (tch_real)s->triangle_count * (3.0 * sh->count - 2);
    tch_status status = check_size(tet_total, err);
    if (status != TCH_OK) {
        return status;
    }
    generated g;
    if (!allocate_generated(&g, 1 + (size_t)sh->count * (size_t)s->point_count,
                            (size_t)tet_total)) {
        return out_of_memory(err);
    }
    g.vertices[0] = centre;
    g.epsilon[0] = sh->centre_epsilon;
    for (int k = 0; k < sh->count; ++k) {
        for (int p = 0; p < s->point_count; ++p) {
            size_t v = 1 + (size_t)k * (size_t)s->point_count + (size_t)p;
            tch_vec3 offset = tch_v3_mul(sh->scale[k], tch_v3_sub(s->points[p], centre));
            g.vertices[v] = k == sh->count - 1 ? s->points[p] : tch_v3_add(centre, offset);
            g.epsilon[v] = sh->epsilon[k];
        }
    }
    shell_tets(s, sh->count, &g.list);
    return build_generated(&g, TCH_TETMESH_SOLID, out, err);
}

/* K shells at λ = k/K with ε = 1 - λ: the gauge field. */
static void gauge_shells(int count, shells* sh) {
    sh->count = count;
    sh->centre_epsilon = 1;
    for (int k = 0; k < count; ++k) {
        tch_real lambda = (tch_real)(k + 1) / count;
        sh->scale[k] = tch_v3(lambda, lambda, lambda);
        sh->epsilon[k] = 1 - lambda;
    }
}

/* One core shell at σ = core (ε = 1), then `count` layer shells out to σ = 1 with
 * ε falling linearly from 1 to 0. */
static void layer_shells(tch_vec3 core, int count, shells* sh) {
    sh->count = count + 1;
    sh->centre_epsilon = 1;
    sh->scale[0] = core;
    sh->epsilon[0] = 1;
    for (int j = 1; j <= count; ++j) {
        tch_real mu = (tch_real)j / count;
        sh->scale[j] = tch_v3_add(core, tch_v3_scale(tch_v3_sub(tch_v3(1, 1, 1), core), mu));
        sh->epsilon[j] = 1 - mu;
    }
}

static int clamp_shells(int count) {
    return count < max_shells ? count : max_shells - 1;
}

static tch_status mesh_grid(const cube_grid* g, const shells* sh, tch_tetmesh* out,
                            tch_error* err) {
    tch_real squares = 2.0 * ((tch_real)g->n[0] * g->n[1] + (tch_real)g->n[1] * g->n[2] +
                              (tch_real)g->n[2] * g->n[0]);
    tch_status status = check_size(2 * squares * (3.0 * sh->count - 2), err);
    surface s = {0};
    if (status == TCH_OK) {
        status = make_grid_surface(g, &s, err);
    }
    if (status == TCH_OK && fits_true_surface(g)) {
        status = fit_to_ellipsoid(g->size, &s, err);
        if (status != TCH_OK) {
            free_surface(&s);
        }
    }
    if (status == TCH_OK) {
        status = mesh_shells(&s, tch_v3_zero(), sh, out, err);
        free_surface(&s);
    }
    return status;
}

static tch_status mesh_grid_gauge(const cube_grid* g, int shell_count, tch_tetmesh* out,
                                  tch_error* err) {
    shells* sh = malloc(sizeof *sh);
    if (!sh) {
        return out_of_memory(err);
    }
    gauge_shells(clamp_shells(shell_count), sh);
    tch_status status = mesh_grid(g, sh, out, err);
    free(sh);
    return status;
}

/* ---- the shapes ---- */

static tch_status check_positive3(tch_vec3 v, const char* what, tch_error* err) {
    tch_status status = TCH_OK;
    for (int i = 0; i < 3 && status == TCH_OK; ++i) {
        status = check_positive(tch_v3_get(v, i), what, err);
    }
    return status;
}

static tch_real max3(tch_vec3 v) {
    return fmax(v.x, fmax(v.y, v.z));
}

static tch_real min3(tch_vec3 v) {
    return fmin(v.x, fmin(v.y, v.z));
}

/* Ellipsoid-like grid: each cube face spans a quarter turn, an arc of about π/2 radius. */
static cube_grid round_grid(tch_vec3 radii, tch_real resolution) {
    cube_grid g = {{even_pieces(TCH_PI / 2 * radii.x, resolution),
                    even_pieces(TCH_PI / 2 * radii.y, resolution),
                    even_pieces(TCH_PI / 2 * radii.z, resolution)},
                   MAP_ELLIPSOID, radii};
    return g;
}

typedef cube_grid (*grid_maker)(tch_vec3 size, tch_real resolution);

/* A shape given by three positive sizes, meshed with gauge shells to the largest size. */
static tch_status make_gauge_solid(grid_maker make_grid, tch_vec3 size, const char* what,
                                   tch_real resolution, tch_tetmesh* out, tch_error* err) {
    memset(out, 0, sizeof *out);
    tch_status status = check_positive3(size, what, err);
    if (status != TCH_OK) {
        return status;
    }
    cube_grid g = make_grid(size, resolution);
    return mesh_grid_gauge(&g, pieces(max3(size), resolution), out, err);
}

tch_status tch_tetmesh_make_ellipsoid(tch_vec3 radii, tch_real resolution, tch_tetmesh* out,
                                      tch_error* err) {
    return make_gauge_solid(round_grid, radii, "ellipsoid radii", resolution, out, err);
}

tch_status tch_tetmesh_make_sphere(tch_real radius, tch_real resolution, tch_tetmesh* out,
                                   tch_error* err) {
    memset(out, 0, sizeof *out);
    tch_status status = check_positive(radius, "sphere radius", err);
    if (status != TCH_OK) {
        return status;
    }
    return tch_tetmesh_make_ellipsoid(tch_v3(radius, radius, radius), resolution, out, err);
}

static cube_grid box_grid(tch_vec3 half_size, tch_real resolution) {
    cube_grid g = {{pieces(2 * half_size.x, resolution), pieces(2 * half_size.y, resolution),
                    pieces(2 * half_size.z, resolution)},
                   MAP_BOX, half_size};
    return g;
}

tch_status tch_tetmesh_make_box(tch_vec3 half_size, tch_real resolution, tch_tetmesh* out,
                                tch_error* err) {
    return make_gauge_solid(box_grid, half_size, "box half sizes", resolution, out, err);
}

static tch_status make_round_solid(shape_map map, tch_real radius, tch_real half_length,
                                   tch_real resolution, tch_tetmesh* out, tch_error* err) {
    memset(out, 0, sizeof *out);
    tch_status status = check_positive(radius, "radius", err);
    if (status == TCH_OK) {
        status = check_positive(half_length, "half length", err);
    }
    if (status != TCH_OK) {
        return status;
    }
    /* a cube side spans a quarter turn; a capsule's cap face spans a half meridian */
    int around = even_pieces((map == MAP_CAPSULE ? TCH_PI : TCH_PI / 2) * radius, resolution);
    cube_grid g = {{around, around, pieces(2 * half_length, resolution)}, map,
                   tch_v3(radius, radius, half_length)};
    tch_real reach = map == MAP_CAPSULE ? half_length + radius : fmax(radius, half_length);
    return mesh_grid_gauge(&g, pieces(reach, resolution), out, err);
}

tch_status tch_tetmesh_make_cylinder(tch_real radius, tch_real half_height, tch_real resolution,
                                     tch_tetmesh* out, tch_error* err) {
    return make_round_solid(MAP_CYLINDER, radius, half_height, resolution, out, err);
}

tch_status tch_tetmesh_make_capsule(tch_real radius, tch_real half_length, tch_real resolution,
                                    tch_tetmesh* out, tch_error* err) {
    return make_round_solid(MAP_CAPSULE, radius, half_length, resolution, out, err);
}

static tch_status check_thickness(tch_real thickness, tch_real limit, tch_error* err) {
    if (!(thickness > 0) || !(thickness < limit)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "compliant layer thickness must be in (0, %g) (less than the smallest "
                        "half size or radius), got %g",
                        limit, thickness);
    }
    return TCH_OK;
}

static tch_status mesh_grid_layer(const cube_grid* g, tch_vec3 core, int layer_count,
                                  tch_tetmesh* out, tch_error* err) {
    shells* sh = malloc(sizeof *sh);
    if (!sh) {
        return out_of_memory(err);
    }
    layer_shells(core, clamp_shells(layer_count), sh);
    tch_status status = mesh_grid(g, sh, out, err);
    free(sh);
    return status;
}

tch_status tch_tetmesh_make_box_layer(tch_vec3 half_size, tch_real thickness, tch_real resolution,
                                      tch_tetmesh* out, tch_error* err) {
    memset(out, 0, sizeof *out);
    tch_status status = check_positive3(half_size, "box half sizes", err);
    if (status == TCH_OK) {
        status = check_thickness(thickness, min3(half_size), err);
    }
    if (status != TCH_OK) {
        return status;
    }
    /* core point u ⊙ (h - t) for the surface point u ⊙ h: every face moves in by t */
    tch_vec3 core = tch_v3(1 - thickness / half_size.x, 1 - thickness / half_size.y,
                           1 - thickness / half_size.z);
    cube_grid g = box_grid(half_size, resolution);
    return mesh_grid_layer(&g, core, pieces(thickness, resolution), out, err);
}

tch_status tch_tetmesh_make_sphere_layer(tch_real radius, tch_real thickness, tch_real resolution,
                                         tch_tetmesh* out, tch_error* err) {
    memset(out, 0, sizeof *out);
    tch_status status = check_positive(radius, "sphere radius", err);
    if (status == TCH_OK) {
        status = check_thickness(thickness, radius, err);
    }
    if (status != TCH_OK) {
        return status;
    }
    tch_real core = 1 - thickness / radius;
    cube_grid g = round_grid(tch_v3(radius, radius, radius), resolution);
    return mesh_grid_layer(&g, tch_v3(core, core, core), pieces(thickness, resolution), out, err);
}

/* ---- convex polytope: the hull's faces, fanned into triangles, shelled to the centroid ---- */

static tch_status hull_surface(const tch_convex_hull* hull, surface* s, tch_error* err) {
    int triangles = hull->face_start[hull->face_count] - 2 * hull->face_count;
    s->point_count = hull->vertex_count;
    s->triangle_count = 0;
    s->points = malloc((size_t)hull->vertex_count * sizeof *s->points);
    s->triangles = malloc((size_t)(triangles > 0 ? triangles : 1) * sizeof *s->triangles);
    if (!s->points || !s->triangles) {
        free_surface(s);
        return out_of_memory(err);
    }
    memcpy(s->points, hull->vertices_G, (size_t)hull->vertex_count * sizeof *s->points);
    for (int f = 0; f < hull->face_count; ++f) {
        const int* v = hull->face_vertices + hull->face_start[f];
        int n = hull->face_start[f + 1] - hull->face_start[f];
        for (int i = 1; i + 1 < n; ++i) {
            int* tri = s->triangles[s->triangle_count++];
            tri[0] = v[0];
            tri[1] = v[i];
            tri[2] = v[i + 1];
        }
    }
    return TCH_OK;
}

tch_status tch_tetmesh_make_convex(const tch_convex_hull* hull, tch_real resolution,
                                   tch_tetmesh* out, tch_error* err) {
    memset(out, 0, sizeof *out);
    if (!hull || hull->vertex_count < 4 || hull->face_count < 4) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "convex tet mesh needs a hull with at least 4 vertices and 4 faces");
    }
    tch_real reach = 0;
    for (int v = 0; v < hull->vertex_count; ++v) {
        reach = fmax(reach, tch_v3_dist(hull->vertices_G[v], hull->centroid_G));
    }
    surface s = {0};
    shells* sh = malloc(sizeof *sh);
    tch_status status = sh ? hull_surface(hull, &s, err) : out_of_memory(err);
    if (status == TCH_OK) {
        gauge_shells(clamp_shells(pieces(reach, resolution)), sh);
        status = mesh_shells(&s, hull->centroid_G, sh, out, err);
        free_surface(&s);
    }
    free(sh);
    return status;
}

/* ---- slab: a grid of cubes, each cut into 6 tets around its main diagonal (Kuhn) ---- */

typedef struct slab_grid {
    int n[3];
    tch_vec3 lo, step;
} slab_grid;

static int slab_vertex(const slab_grid* g, int i, int j, int k) {
    return i + (g->n[0] + 1) * (j + (g->n[1] + 1) * k);
}

/* The 6 tets of cell (i, j, k): for each order (a, b, c) of the axes, the path
 * 000 -> e_a -> e_a + e_b -> 111 along the cell's edges. */
static void slab_cell_tets(const slab_grid* g, int i, int j, int k, tet_list* list) {
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                     {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int o = 0; o < 6; ++o) {
        int corner[3] = {i, j, k}, path[4];
        path[0] = slab_vertex(g, i, j, k);
        for (int step = 0; step < 3; ++step) {
            corner[orders[o][step]]++;
            path[step + 1] = slab_vertex(g, corner[0], corner[1], corner[2]);
        }
        append_tet(list, path[0], path[1], path[2], path[3]);
    }
}

static void slab_vertices(const slab_grid* g, tch_real thickness, tch_vec3* vertices,
                          tch_real* epsilon) {
    for (int k = 0; k <= g->n[2]; ++k) {
        for (int j = 0; j <= g->n[1]; ++j) {
            for (int i = 0; i <= g->n[0]; ++i) {
                int v = slab_vertex(g, i, j, k);
                /* the top layer sits exactly on z = 0 */
                tch_real z = k == g->n[2] ? 0.0 : g->lo.z + k * g->step.z;
                vertices[v] = tch_v3(g->lo.x + i * g->step.x, g->lo.y + j * g->step.y, z);
                epsilon[v] = -z / thickness + 0.0;
            }
        }
    }
}

tch_status tch_tetmesh_make_slab(tch_real half_x, tch_real half_y, tch_real thickness,
                                 tch_real resolution, tch_tetmesh* out, tch_error* err) {
    memset(out, 0, sizeof *out);
    tch_status status = check_positive3(tch_v3(half_x, half_y, thickness),
                                        "slab half sizes and thickness", err);
    if (status != TCH_OK) {
        return status;
    }
    slab_grid g = {{pieces(2 * half_x, resolution), pieces(2 * half_y, resolution),
                    pieces(thickness, resolution)},
                   tch_v3(-half_x, -half_y, -thickness), tch_v3_zero()};
    g.step = tch_v3(2 * half_x / g.n[0], 2 * half_y / g.n[1], thickness / g.n[2]);
    tch_real cells = (tch_real)g.n[0] * g.n[1] * g.n[2];
    status = check_size(6 * cells, err);
    if (status != TCH_OK) {
        return status;
    }
    generated gen;
    if (!allocate_generated(&gen,
                            (size_t)(g.n[0] + 1) * (size_t)(g.n[1] + 1) * (size_t)(g.n[2] + 1),
                            (size_t)(6 * cells))) {
        return out_of_memory(err);
    }
    slab_vertices(&g, thickness, gen.vertices, gen.epsilon);
    for (int k = 0; k < g.n[2]; ++k) {
        for (int j = 0; j < g.n[1]; ++j) {
            for (int i = 0; i < g.n[0]; ++i) {
                slab_cell_tets(&g, i, j, k, &gen.list);
            }
        }
    }
    return build_generated(&gen, TCH_TETMESH_SLAB, out, err);
}

/* ---- from a geom's shape ---- */

tch_status tch_tetmesh_make_shape(const tch_shape* shape, tch_real resolution, tch_tetmesh* out,
                                  tch_error* err) {
    const tch_real* size = shape->size;
    switch (shape->type) {
    case TCH_GEOM_SPHERE: return tch_tetmesh_make_sphere(size[0], resolution, out, err);
    case TCH_GEOM_CAPSULE:
        return tch_tetmesh_make_capsule(size[0], size[1], resolution, out, err);
    case TCH_GEOM_ELLIPSOID:
        return tch_tetmesh_make_ellipsoid(tch_v3(size[0], size[1], size[2]), resolution, out,
                                          err);
    case TCH_GEOM_CYLINDER:
        return tch_tetmesh_make_cylinder(size[0], size[1], resolution, out, err);
    case TCH_GEOM_BOX:
        return tch_tetmesh_make_box(tch_v3(size[0], size[1], size[2]), resolution, out, err);
    case TCH_GEOM_MESH: return tch_tetmesh_make_convex(shape->hull, resolution, out, err);
    default:
        memset(out, 0, sizeof *out);
        return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                        "a tet mesh for geom type %d (a plane) is not supported here; use a "
                        "slab (tch_tetmesh_make_slab)",
                        (int)shape->type);
    }
}
