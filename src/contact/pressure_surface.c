/* Contact surfaces of the pressure field model: see pressure_surface.h and
 * docs/contact-pressure.md. */
#include "contact/pressure_surface.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/workers.h"

/* Room for a polygon being clipped (TCH_PRESSURE_MAX_POLYGON plus margin). */
#define POLYGON_BUFFER 16

/* The buffers of one part of a threaded query; the padding keeps the counters that one
 * thread bumps for every pair off the cache lines of its neighbours. */
typedef struct part {
    tch_pressure_surface surface;
    int out_of_memory;
    char padding[64];
} part;

struct tch_pressure_parallel {
    int tasks[TCH_PRESSURE_MAX_TASKS][2]; /* the frontier of the BVH descent */
    int scratch[TCH_PRESSURE_MAX_TASKS][2];
    int task_count;
    part* parts;                                      /* [part_capacity] */
    int part_capacity;
};

void tch_pressure_surface_init(tch_pressure_surface* surface) {
    *surface = (tch_pressure_surface){0};
}

void tch_pressure_surface_free(tch_pressure_surface* surface) {
    if (surface == NULL) {
        return;
    }
    free(surface->polygons);
    free(surface->vertices_A);
    free(surface->pressures);
    if (surface->parallel) {
        for (int k = 0; k < surface->parallel->part_capacity; ++k) {
            tch_pressure_surface_free(&surface->parallel->parts[k].surface);
        }
        free(surface->parallel->parts);
        free(surface->parallel);
    }
    tch_pressure_surface_init(surface);
}

tch_status tch_pressure_body_check(const tch_pressure_body* body, const char* name,
                                   tch_error* err) {
    if (body == NULL || body->mesh == NULL) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "pressure body %s has no tet mesh; expected a tch_tetmesh with a "
                        "penetration-extent field",
                        name);
    }
    const tch_tetmesh* mesh = body->mesh;
    if (!mesh->has_field || mesh->epsilon == NULL || mesh->tet_gradient_G == NULL) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the tet mesh of pressure body %s has no penetration-extent field; "
                        "expected one (attach it with tch_tetmesh_set_field, e.g. from the "
                        "Laplace solve)",
                        name);
    }
    if (!(body->modulus > 0) || !isfinite(body->modulus)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the modulus of pressure body %s is %g; expected a finite value > 0 Pa "
                        "(use a rigid surface for an infinite modulus)",
                        name, body->modulus);
    }
    if (body->bvh == NULL || body->bvh->primitive_count != mesh->tet_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the BVH of pressure body %s has %d leaves; expected one per tet (%d)",
                        name, body->bvh == NULL ? 0 : body->bvh->primitive_count,
                        mesh->tet_count);
    }
    return TCH_OK;
}

/* The O(1) part of the rigid surface check, done on every query. */
static tch_status check_rigid_shape(const tch_rigid_surface* surface, tch_error* err) {
    if (surface == NULL || surface->vertices_R == NULL || surface->triangles == NULL ||
        surface->triangle_count < 1) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the rigid surface has no triangles; expected a closed triangle soup");
    }
    if (surface->bvh == NULL || surface->bvh->primitive_count != surface->triangle_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the BVH of the rigid surface has %d leaves; expected one per triangle "
                        "(%d)",
                        surface->bvh == NULL ? 0 : surface->bvh->primitive_count,
                        surface->triangle_count);
    }
    return TCH_OK;
}

tch_status tch_rigid_surface_check(const tch_rigid_surface* surface, tch_error* err) {
    tch_status status = check_rigid_shape(surface, err);
    if (status != TCH_OK) {
        return status;
    }
    for (int t = 0; t < surface->triangle_count; ++t) {
        for (int k = 0; k < 3; ++k) {
            int v = surface->triangles[t][k];
            if (v < 0 || v >= surface->vertex_count) {
                return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                                "rigid surface triangle %d uses vertex %d; expected an index "
                                "in [0, %d)",
                                t, v, surface->vertex_count);
            }
        }
    }
    return TCH_OK;
}


void tch_pressure_triangle_boxes(const tch_vec3* vertices, const int (*triangles)[3], int count,
                                 tch_aabb* boxes) {
    for (int t = 0; t < count; ++t) {
        tch_vec3 a = vertices[triangles[t][0]];
        tch_vec3 b = vertices[triangles[t][1]];
        tch_vec3 c = vertices[triangles[t][2]];
        boxes[t].lo = tch_v3_min(a, tch_v3_min(b, c));
        boxes[t].hi = tch_v3_max(a, tch_v3_max(b, c));
    }
}

/* The range of ε over tet t. */
static void epsilon_range(const tch_tetmesh* mesh, int t, tch_real* lo, tch_real* hi) {
    const int* corner = mesh->tets[t];
    *lo = *hi = mesh->epsilon[corner[0]];
    for (int i = 1; i < 4; ++i) {
        tch_real x = mesh->epsilon[corner[i]];
        *lo = x < *lo ? x : *lo; /* not fmin: a libm call in the hot loop */
        *hi = x > *hi ? x : *hi;
    }
}

/* The range of E ε over tet t. */
static void pressure_range(const tch_pressure_body* body, int t, tch_real* p_min,
                           tch_real* p_max) {
    tch_real lo, hi;
    epsilon_range(body->mesh, t, &lo, &hi);
    *p_min = body->modulus * lo;
    *p_max = body->modulus * hi;
}

void tch_pressure_node_ranges(const tch_tetmesh* mesh, const tch_bvh* bvh, tch_real (*out)[2]) {
    /* depth-first order puts both children after their parent: fill from the back */
    for (int i = bvh->node_count - 1; i >= 0; --i) {
        const tch_bvh_node* node = &bvh->nodes[i];
        if (node->right < 0) {
            epsilon_range(mesh, node->primitive, &out[i][0], &out[i][1]);
        } else {
            const tch_real* l = out[i + 1];
            const tch_real* r = out[node->right];
            out[i][0] = l[0] < r[0] ? l[0] : r[0];
            out[i][1] = l[1] > r[1] ? l[1] : r[1];
        }
    }
}

/* A pose as a rotation matrix: cheaper than the quaternion for the many points of a query. */
typedef struct placement {
    tch_mat3 R_FG;
    tch_vec3 p_FG;
    int identity; /* R_FG = I, p_FG = 0 */
} placement;

static placement make_placement(tch_transform X_FG) {
    return (placement){tch_q_to_mat3(X_FG.q), X_FG.p, 0};
}

/* Point x of G in F. The identity skips the product: x + 0 has the bits of I x + 0 (a
 * nonzero coordinate is kept, a zero of either sign becomes +0 in both). */
static tch_vec3 place_point(const placement* X, tch_vec3 x_G) {
    if (X->identity) {
        return tch_v3_add(x_G, tch_v3_zero());
    }
    return tch_v3_add(tch_m3_mul_v3(X->R_FG, x_G), X->p_FG);
}

/* Corner 0 of tet t placed, and the pressure on it: p(x) = E (ε(v0) + ∇ε · (x - v0)), ε being
 * linear in the tet (sec. VI-A, eq. 12). The range is left to the caller. */
static void place_field(const tch_pressure_body* body, int t, const placement* X,
                        tch_placed_tet* out) {
    const tch_tetmesh* mesh = body->mesh;
    const int* corner = mesh->tets[t];
    out->v[0] = place_point(X, mesh->vertices_G[corner[0]]);
    tch_real E = body->modulus;
    tch_vec3 gradient = tch_v3_scale(tch_m3_mul_v3(X->R_FG, mesh->tet_gradient_G[t]), E);
    out->pressure.gradient = gradient;
    out->pressure.offset = E * mesh->epsilon[corner[0]] - tch_v3_dot(gradient, out->v[0]);
}

/* Corners 1-3 of tet t placed. */
static void place_corners(const tch_pressure_body* body, int t, const placement* X,
                          tch_placed_tet* out) {
    const tch_tetmesh* mesh = body->mesh;
    const int* corner = mesh->tets[t];
    for (int i = 1; i < 4; ++i) {
        out->v[i] = place_point(X, mesh->vertices_G[corner[i]]);
    }
}

static void place_tet(const tch_pressure_body* body, int t, const placement* X,
                      tch_placed_tet* out) {
    place_field(body, t, X, out);
    place_corners(body, t, X, out);
    pressure_range(body, t, &out->pressure_min, &out->pressure_max);
}

void tch_pressure_place_tet(const tch_pressure_body* body, int t, tch_transform X_FG,
                            tch_placed_tet* out) {
    placement X = make_placement(X_FG);
    place_tet(body, t, &X, out);
}

void tch_placed_tet_barycentric(const tch_placed_tet* tet, tch_linear_field b[4]) {
    /* b_i = (x - v0) · (e_j × e_k) / (e1 · e2 × e3), (i, j, k) cyclic in 1..3; b_0 the rest. */
    tch_vec3 e1 = tch_v3_sub(tet->v[1], tet->v[0]);
    tch_vec3 e2 = tch_v3_sub(tet->v[2], tet->v[0]);
    tch_vec3 e3 = tch_v3_sub(tet->v[3], tet->v[0]);
    tch_vec3 r[3] = {tch_v3_cross(e2, e3), tch_v3_cross(e3, e1), tch_v3_cross(e1, e2)};
    tch_real inv_det = 1 / tch_v3_dot(e1, r[0]);
    tch_vec3 sum = tch_v3_zero();
    for (int i = 0; i < 3; ++i) {
        r[i] = tch_v3_scale(r[i], inv_det);
        b[i + 1] = (tch_linear_field){r[i], -tch_v3_dot(r[i], tet->v[0])};
        sum = tch_v3_add(sum, r[i]);
    }
    b[0] = (tch_linear_field){tch_v3_neg(sum), 1 + tch_v3_dot(sum, tet->v[0])};
}

void tch_pressure_fan_triangle(const tch_pressure_surface* surface,
                               const tch_pressure_polygon* polygon, int i, tch_vec3 x[3],
                               tch_real p[3]) {
    int j = polygon->first + i;
    int k = polygon->first + (i + 1) % polygon->count;
    x[0] = polygon->centroid_A;
    x[1] = surface->vertices_A[j];
    x[2] = surface->vertices_A[k];
    p[0] = polygon->centroid_pressure;
    p[1] = surface->pressures[j];
    p[2] = surface->pressures[k];
}

/* ---- growing the output ---- */

static int grow(void** array, size_t element_size, int* capacity, int needed) {
    if (needed <= *capacity) {
        return 0;
    }
    int wanted = *capacity * 2 > needed ? *capacity * 2 : needed;
    if (wanted < 64) {
        wanted = 64;
    }
    void* bigger = realloc(*array, element_size * (size_t)wanted);
    if (bigger == NULL) {
        return -1;
    }
    *array = bigger;
    *capacity = wanted;
    return 0;
}

/* Room for `polygons` more polygons with `vertices` vertices in all; -1 when out of memory. */
static int reserve(tch_pressure_surface* s, int polygons, int vertices) {
    if (grow((void**)&s->polygons, sizeof *s->polygons, &s->polygon_capacity,
             s->polygon_count + polygons) != 0) {
        return -1;
    }
    int vertex_capacity = s->vertex_capacity;
    int needed = s->vertex_count + vertices;
    if (grow((void**)&s->vertices_A, sizeof *s->vertices_A, &vertex_capacity, needed) != 0) {
        return -1;
    }
    /* The pressures share the vertex capacity: grow them to the same length. */
    if (vertex_capacity != s->vertex_capacity) {
        tch_real* bigger = realloc(s->pressures, sizeof *s->pressures * (size_t)vertex_capacity);
        if (bigger == NULL) {
            return -1;
        }
        s->pressures = bigger;
        s->vertex_capacity = vertex_capacity;
    }
    return 0;
}

/* ---- polygons ---- */

/* The point where the affine function with values d_i, d_j at a and b is zero. */
static tch_vec3 crossing(tch_vec3 a, tch_vec3 b, tch_real d_a, tch_real d_b) {
    return tch_v3_lerp(a, b, d_a / (d_a - d_b));
}

/* Sutherland-Hodgman: the part of the convex polygon in[n] where f >= 0, into out. */
static int clip_polygon(const tch_vec3* in, int n, tch_linear_field f, tch_vec3* out) {
    tch_real d[POLYGON_BUFFER];
    for (int i = 0; i < n; ++i) {
        d[i] = tch_linear_field_at(f, in[i]);
    }
    int m = 0;
    for (int i = 0; i < n; ++i) {
        int j = (i + 1) % n;
        if (m > POLYGON_BUFFER - 2) {
            return 0; /* only round-off zigzags on a degenerate sliver get here: drop it */
        }
        if (d[i] >= 0) {
            out[m++] = in[i];
        }
        if ((d[i] > 0 && d[j] < 0) || (d[i] < 0 && d[j] > 0)) {
            out[m++] = crossing(in[i], in[j], d[i], d[j]);
        }
    }
    return m;
}

/* Clips poly[*n] (in buffer a, with b as scratch) by the four half-spaces b_i >= 0 of a tet;
 * returns the buffer holding the result. */
static tch_vec3* clip_by_tet(tch_vec3* a, tch_vec3* b, int* n, const tch_linear_field bary[4]) {
    for (int i = 0; i < 4 && *n >= 3; ++i) {
        *n = clip_polygon(a, *n, bary[i], b);
        tch_vec3* swap = a;
        a = b;
        b = swap;
    }
    return a;
}

/* The polygon where the plane g = 0 cuts the tet (appendix X-B): 3 or 4 points on the edges
 * between corners with g > 0 and g <= 0, in cyclic order (either orientation); 0 if none. */
static int slice_tet(const tch_placed_tet* tet, tch_linear_field g, tch_vec3 out[4]) {
    tch_real d[4];
    int above[4], below[4], na = 0, nb = 0;
    for (int i = 0; i < 4; ++i) {
        d[i] = tch_linear_field_at(g, tet->v[i]);
        if (d[i] > 0) {
            above[na++] = i;
        } else {
            below[nb++] = i;
        }
    }
    const tch_vec3* v = tet->v;
    if (na == 1 || na == 3) {
        /* one corner alone on its side: the three edges from it */
        int lone = na == 1 ? above[0] : below[0];
        const int* others = na == 1 ? below : above;
        for (int k = 0; k < 3; ++k) {
            out[k] = crossing(v[lone], v[others[k]], d[lone], d[others[k]]);
        }
        return 3;
    }
    if (na == 2) {
        /* two and two: the four edges across, walked around the quad */
        int a0 = above[0], a1 = above[1], b0 = below[0], b1 = below[1];
        out[0] = crossing(v[a0], v[b0], d[a0], d[b0]);
        out[1] = crossing(v[a0], v[b1], d[a0], d[b1]);
        out[2] = crossing(v[a1], v[b1], d[a1], d[b1]);
        out[3] = crossing(v[a1], v[b0], d[a1], d[b0]);
        return 4;
    }
    return 0;
}

/* Whether the plane g = 0 meets the tet (corners on both sides, or on it). */
static int plane_cuts(const tch_placed_tet* tet, tch_linear_field g) {
    int above = 0, below = 0;
    for (int i = 0; i < 4; ++i) {
        tch_real d = tch_linear_field_at(g, tet->v[i]);
        above += d >= 0;
        below += d <= 0;
    }
    return above > 0 && below > 0;
}

/* Drops consecutive vertices (cyclically) closer than √tol2; returns the new count. */
static int weld(tch_vec3* v, int n, tch_real tol2) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
        if (m == 0 || tch_v3_norm2(tch_v3_sub(v[i], v[m - 1])) > tol2) {
            v[m++] = v[i];
        }
    }
    while (m > 1 && tch_v3_norm2(tch_v3_sub(v[m - 1], v[0])) <= tol2) {
        --m;
    }
    return m;
}

static void reverse(tch_vec3* v, int n) {
    for (int i = 0, j = n - 1; i < j; ++i, --j) {
        tch_vec3 t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* Area (signed about n) and area centroid of the planar polygon v[n], by its fan from v[0]. */
static tch_real polygon_area(const tch_vec3* v, int n, tch_vec3 normal, tch_vec3* centroid) {
    tch_real area = 0;
    tch_vec3 moment = tch_v3_zero();
    for (int i = 1; i + 1 < n; ++i) {
        tch_vec3 e1 = tch_v3_sub(v[i], v[0]);
        tch_vec3 e2 = tch_v3_sub(v[i + 1], v[0]);
        tch_real a = tch_v3_dot(tch_v3_cross(e1, e2), normal) / 2;
        tch_vec3 c = tch_v3_scale(tch_v3_add(v[0], tch_v3_add(v[i], v[i + 1])), 1.0 / 3);
        area += a;
        moment = tch_v3_madd(moment, a, c);
    }
    *centroid = area != 0 ? tch_v3_scale(moment, 1 / area) : v[0];
    return area;
}

/* ---- the queries ---- */

/* Tets placed during a query, by tet index modulo the size (direct-mapped): the descent
 * meets a tet of either body with several of the other, in turns, and placing it costs more
 * than looking it up. */
#define PLACED_SLOTS 128

/* A tet of A in its own frame, with what the pairs read of it. */
typedef struct placed_a {
    tch_placed_tet tet;
    tch_linear_field bary[4]; /* barycentric coordinates (rigid B only) */
    tch_real length2;         /* the squared length scale L^2 */
    tch_real gradient_norm;   /* |∇p| */
} placed_a;

typedef struct placed_cache {
    int tet_a[PLACED_SLOTS];       /* the tet of A in each slot, or -1 */
    placed_a a[PLACED_SLOTS];
    int tet_b[PLACED_SLOTS];       /* the tet of compliant B in each slot, or -1 */
    char stage_b[PLACED_SLOTS];    /* 0: field and v[0] placed, 1: corners too, 2: and bary */
    tch_placed_tet b[PLACED_SLOTS];
    tch_linear_field bary_b[PLACED_SLOTS][4]; /* B's barycentric coordinates (stage 2) */
} placed_cache;

typedef struct query {
    const tch_pressure_body* a;
    const tch_pressure_body* b;       /* compliant B, or NULL */
    const tch_rigid_surface* rigid;   /* rigid B, or NULL */
    tch_transform X_AB;
    placement place_B;                /* X_AB as a matrix */
    const tch_bvh_intervals* intervals; /* the bodies' pressure ranges per node, or NULL */
    tch_pressure_surface* out;
    int tet_a_index;                  /* the tet of A of the last pair, or -1 */
    const placed_a* tet_a;            /* it placed (in `cache`) */
    int out_of_memory;
    placed_cache* cache;              /* this thread's, on its stack */
} query;

/* Empties the cache and lends it to q for one descent. */
static void lend_cache(query* q, placed_cache* cache) {
    for (int k = 0; k < PLACED_SLOTS; ++k) {
        cache->tet_a[k] = -1;
        cache->tet_b[k] = -1;
    }
    q->cache = cache;
    q->tet_a_index = -1;
}

/* Places tet t of A (in its own frame) unless it is placed already: its corners and field, its
 * pressure range when B's tets are culled by theirs one by one (no node ranges), and its
 * barycentric coordinates when B is rigid (a compliant B is clipped by its own tet). */
static void load_tet_a(query* q, int t) {
    if (q->tet_a_index == t) {
        return;
    }
    q->tet_a_index = t;
    int slot = t & (PLACED_SLOTS - 1);
    placed_a* a = &q->cache->a[slot];
    q->tet_a = a;
    if (q->cache->tet_a[slot] == t) {
        return;
    }
    q->cache->tet_a[slot] = t;
    placement identity = {tch_m3_identity(), tch_v3_zero(), 1};
    place_field(q->a, t, &identity, &a->tet);
    place_corners(q->a, t, &identity, &a->tet);
    if (q->b != NULL && q->intervals == NULL) {
        pressure_range(q->a, t, &a->tet.pressure_min, &a->tet.pressure_max);
    }
    if (q->rigid != NULL) {
        tch_placed_tet_barycentric(&a->tet, a->bary);
    }
    tch_real l2 = 0;
    for (int i = 1; i < 4; ++i) {
        tch_real e2 = tch_v3_norm2(tch_v3_sub(a->tet.v[i], a->tet.v[0]));
        l2 = e2 > l2 ? e2 : l2;
    }
    a->length2 = l2;
    a->gradient_norm = tch_v3_norm(a->tet.pressure.gradient);
}

/* max(x, 0), 0 for NaN (inline: fmax is a libm call). */
static tch_real positive_part(tch_real x) {
    return x > 0 ? x : 0;
}

/* Welds, orients counter-clockwise about n and appends the polygon poly[n] unless it is a
 * sliver. Returns nonzero (stopping the BVH query) when out of memory. */
static int emit_polygon(query* q, tch_vec3* poly, int n, tch_vec3 normal, int element_b) {
    tch_real weld_tol = TCH_PRESSURE_WELD_TOLERANCE;
    n = weld(poly, n, weld_tol * weld_tol * q->tet_a->length2);
    if (n < 3 || n > TCH_PRESSURE_MAX_POLYGON) {
        return 0; /* a point, a segment, or round-off zigzags on a sliver */
    }
    tch_vec3 centroid;
    tch_real area = polygon_area(poly, n, normal, &centroid);
    if (area < 0) {
        reverse(poly, n);
        area = -area;
    }
    if (area <= TCH_PRESSURE_AREA_TOLERANCE * q->tet_a->length2) {
        return 0;
    }
    tch_pressure_surface* s = q->out;
    if (reserve(s, 1, n) != 0) {
        q->out_of_memory = 1;
        return 1;
    }
    tch_linear_field p = q->tet_a->tet.pressure;
    for (int i = 0; i < n; ++i) {
        s->vertices_A[s->vertex_count + i] = poly[i];
        s->pressures[s->vertex_count + i] = positive_part(tch_linear_field_at(p, poly[i]));
    }
    s->polygons[s->polygon_count++] = (tch_pressure_polygon){
        .first = s->vertex_count,
        .count = n,
        .tet_a = q->tet_a_index,
        .element_b = element_b,
        .normal_A = normal,
        .area = area,
        .centroid_A = centroid,
        .centroid_pressure = positive_part(tch_linear_field_at(p, centroid)),
    };
    s->vertex_count += n;
    return 0;
}

/* A pair of tets (Algorithm 1, lines 5-12): the plane E_A ε_A = E_B ε_B (eq. 15) cut by tet_a,
 * clipped by tet_b. */
static int compliant_pair(int tet_a, int tet_b, void* user) {
    query* q = user;
    q->out->pairs_tested++;
    load_tet_a(q, tet_a);
    const tch_placed_tet* a = &q->tet_a->tet;
    /* On the surface both pressures are equal, so it misses the pair when their ranges miss
     * (tested before placing tet_b, which costs more; with node ranges the BVH descent has
     * made this very test already). */
    tch_real b_min, b_max;
    if (q->intervals == NULL) {
        pressure_range(q->b, tet_b, &b_min, &b_max);
        if (a->pressure_max < b_min || b_max < a->pressure_min) {
            q->out->pairs_culled++;
            return 0;
        }
    }
    placed_cache* cache = q->cache;
    int slot = tet_b & (PLACED_SLOTS - 1);
    tch_placed_tet* b = &cache->b[slot];
    if (cache->tet_b[slot] != tet_b) {
        place_field(q->b, tet_b, &q->place_B, b);
        cache->tet_b[slot] = tet_b;
        cache->stage_b[slot] = 0;
    }
    tch_linear_field g = {tch_v3_sub(a->pressure.gradient, b->pressure.gradient),
                          a->pressure.offset - b->pressure.offset};
    /* The plane must cut both tets; tet_a is placed already, so test it before placing the
     * rest of tet_b (slice_tet gives nothing when plane_cuts(a) fails). */
    if (!plane_cuts(a, g)) {
        return 0;
    }
    tch_real g_norm = tch_v3_norm(g.gradient);
    tch_real scale = q->tet_a->gradient_norm + tch_v3_norm(b->pressure.gradient);
    if (!(g_norm > TCH_PRESSURE_GRADIENT_TOLERANCE * scale)) {
        return 0; /* parallel gradients: no plane of equal pressure */
    }
    if (cache->stage_b[slot] == 0) {
        place_corners(q->b, tet_b, &q->place_B, b);
        cache->stage_b[slot] = 1;
    }
    tch_vec3 buffer_a[POLYGON_BUFFER], buffer_b[POLYGON_BUFFER];
    int n = plane_cuts(b, g) ? slice_tet(a, g, buffer_a) : 0;
    if (n == 0) {
        return 0;
    }
    if (cache->stage_b[slot] == 1) {
        tch_placed_tet_barycentric(b, cache->bary_b[slot]);
        cache->stage_b[slot] = 2;
    }
    tch_vec3* poly = clip_by_tet(buffer_a, buffer_b, &n, cache->bary_b[slot]);
    /* n = ∇(p_B - p_A) / |...|: from A into B. */
    return emit_polygon(q, poly, n, tch_v3_scale(g.gradient, -1 / g_norm), tet_b);
}

/* A tet of A and a triangle of rigid B: the triangle clipped by the tet. */
static int rigid_pair(int tet_a, int triangle, void* user) {
    query* q = user;
    q->out->pairs_tested++;
    load_tet_a(q, tet_a);
    const int* corner = q->rigid->triangles[triangle];
    tch_vec3 buffer_a[POLYGON_BUFFER], buffer_b[POLYGON_BUFFER];
    for (int k = 0; k < 3; ++k) {
        buffer_a[k] = tch_v3_add(tch_m3_mul_v3(q->place_B.R_FG, q->rigid->vertices_R[corner[k]]),
                                 q->place_B.p_FG);
    }
    tch_vec3 outward = tch_v3_cross(tch_v3_sub(buffer_a[1], buffer_a[0]),
                                    tch_v3_sub(buffer_a[2], buffer_a[0]));
    int n = 3;
    tch_vec3* poly = clip_by_tet(buffer_a, buffer_b, &n, q->tet_a->bary);
    /* B's outward normal points into A: n is its negative. */
    return emit_polygon(q, poly, n, tch_v3_neg(tch_v3_normalize(outward)), triangle);
}

static void summarize(tch_pressure_surface* s) {
    tch_real area = 0, force = 0, p_max = 0;
    for (int i = 0; i < s->polygon_count; ++i) {
        area += s->polygons[i].area;
        force += s->polygons[i].area * s->polygons[i].centroid_pressure;
    }
    for (int i = 0; i < s->vertex_count; ++i) {
        p_max = s->pressures[i] > p_max ? s->pressures[i] : p_max;
    }
    s->total_area = area;
    s->max_pressure = p_max;
    s->mean_pressure = area > 0 ? force / area : 0;
}

/* ---- threads ---- */

typedef struct parallel_query {
    const query* base;
    const tch_bvh* bvh_b;
    tch_bvh_pair_callback callback;
    tch_pressure_parallel* parallel;
} parallel_query;

static void clear_output(tch_pressure_surface* s) {
    s->polygon_count = 0;
    s->vertex_count = 0;
    s->pairs_tested = 0;
    s->pairs_culled = 0;
    s->frontier_pairs = 0;
    s->work_estimate = 0;
    s->parts = 1;
}

/* Descends from the frontier pairs [begin, end) in order, emitting into q->out. */
static void descend_tasks(query* q, const parallel_query* pq, int begin, int end) {
    for (int t = begin; t < end && !q->out_of_memory; ++t) {
        const int* task = pq->parallel->tasks[t];
        tch_bvh_query_pairs_from(q->a->bvh, pq->bvh_b, q->X_AB, q->intervals, task[0], task[1],
                                 pq->callback, q);
    }
}

/* One part of the frontier into the part's own buffers (runs on any thread). */
static void run_part(void* context, int k, int begin, int end) {
    const parallel_query* pq = context;
    part* p = &pq->parallel->parts[k];
    query q = *pq->base;
    q.out = &p->surface;
    q.out_of_memory = 0;
    placed_cache cache;
    lend_cache(&q, &cache);
    clear_output(q.out);
    descend_tasks(&q, pq, begin, end);
    p->out_of_memory = q.out_of_memory;
}

/* Buffers for `count` parts; -1 when out of memory. */
static int reserve_parts(tch_pressure_parallel* par, int count) {
    if (count <= par->part_capacity) {
        return 0;
    }
    part* bigger = realloc(par->parts, (size_t)count * sizeof *bigger);
    if (bigger == NULL) {
        return -1;
    }
    memset(bigger + par->part_capacity, 0, (size_t)(count - par->part_capacity) * sizeof *bigger);
    par->parts = bigger;
    par->part_capacity = count;
    return 0;
}

/* Appends the parts' polygons to s in part order (vertex indices shifted); -1 when a part or
 * s ran out of memory. */
static int gather_parts(tch_pressure_surface* s, const part* parts, int count) {
    int polygons = 0, vertices = 0;
    for (int k = 0; k < count; ++k) {
        if (parts[k].out_of_memory) {
            return -1;
        }
        polygons += parts[k].surface.polygon_count;
        vertices += parts[k].surface.vertex_count;
    }
    if (reserve(s, polygons, vertices) != 0) {
        return -1;
    }
    for (int k = 0; k < count; ++k) {
        const tch_pressure_surface* p = &parts[k].surface;
        for (int i = 0; i < p->polygon_count; ++i) {
            s->polygons[s->polygon_count] = p->polygons[i];
            s->polygons[s->polygon_count++].first += s->vertex_count;
        }
        if (p->vertex_count > 0) { /* an empty part may have no arrays yet */
            memcpy(s->vertices_A + s->vertex_count, p->vertices_A,
                   (size_t)p->vertex_count * sizeof *s->vertices_A);
            memcpy(s->pressures + s->vertex_count, p->pressures,
                   (size_t)p->vertex_count * sizeof *s->pressures);
        }
        s->vertex_count += p->vertex_count;
        s->pairs_tested += p->pairs_tested;
        s->pairs_culled += p->pairs_culled;
    }
    return 0;
}

/* The size of the query from its frontier: the sum over the frontier pairs of the geometric
 * mean of their leaf counts (for subtrees of n_a and n_b elements cut by a surface the pairs
 * grow about as √(n_a n_b); bench/pressure compares it with the pairs found). */
static long estimate_work(const tch_bvh* bvh_a, const tch_bvh* bvh_b,
                          const tch_pressure_parallel* par) {
    double work = 0;
    for (int t = 0; t < par->task_count; ++t) {
        double la = tch_bvh_leaf_count(bvh_a, par->tasks[t][0]);
        double lb = tch_bvh_leaf_count(bvh_b, par->tasks[t][1]);
        work += sqrt(la * lb);
    }
    return (long)work;
}

static long parallel_min_work(const tch_pressure_surface* s) {
    return s->parallel_min_work > 0 ? s->parallel_min_work : TCH_PRESSURE_PARALLEL_MIN_WORK;
}

/* The query over the BVH frontier: its parts on the workers when it is large enough, else in
 * order on this thread. Returns 0 when the buffers could not be had (nothing done). */
static int run_frontier(query* q, const tch_bvh* bvh_b, tch_bvh_pair_callback callback) {
    tch_pressure_surface* s = q->out;
    if (s->parallel == NULL && (s->parallel = calloc(1, sizeof *s->parallel)) == NULL) {
        return 0;
    }
    tch_pressure_parallel* par = s->parallel;
    int threads = tch_workers_thread_count(s->workers);
    int target = TCH_PRESSURE_TASKS_PER_THREAD * threads;
    target = target < TCH_PRESSURE_MAX_TASKS / 2 ? target : TCH_PRESSURE_MAX_TASKS / 2;
    par->task_count =
        tch_bvh_query_frontier(q->a->bvh, bvh_b, q->X_AB, q->intervals, target,
                               TCH_PRESSURE_MAX_TASKS, par->tasks, par->scratch);
    s->frontier_pairs = par->task_count;
    s->work_estimate = estimate_work(q->a->bvh, bvh_b, par);
    parallel_query pq = {q, bvh_b, callback, par};
    /* a few parts per thread, taken as threads come free, even out uneven parts */
    int parts = TCH_PRESSURE_PARTS_PER_THREAD * threads;
    parts = parts < par->task_count ? parts : par->task_count;
    if (s->work_estimate < parallel_min_work(s) || parts < 2 || reserve_parts(par, parts) != 0) {
        descend_tasks(q, &pq, 0, par->task_count);
        return 1;
    }
    tch_workers_parallel_for(s->workers, par->task_count, parts, run_part, &pq);
    q->out_of_memory = gather_parts(s, par->parts, parts) != 0;
    s->parts = parts;
    return 1;
}

/* Grows every part of s to s's own room. A part holds a subset of one surface, so parts that
 * always have the room the whole surface has had never grow again once the surfaces stop
 * growing, whichever queries were split among threads and whichever were not (e.g. a scene
 * run again from the start, whose pairs the engine may split differently the second time).
 * Returns -1 when out of memory. */
static int grow_parts_to_surface(tch_pressure_surface* s) {
    tch_pressure_parallel* par = s->parallel;
    for (int k = 0; par != NULL && k < par->part_capacity; ++k) {
        tch_pressure_surface* p = &par->parts[k].surface;
        int polygons = s->polygon_capacity - p->polygon_count;
        int vertices = s->vertex_capacity - p->vertex_count;
        if ((polygons > 0 || vertices > 0) &&
            reserve(p, polygons > 0 ? polygons : 0, vertices > 0 ? vertices : 0) != 0) {
            return -1;
        }
    }
    return 0;
}

/* @pre start_query emptied q->out. */
static tch_status run_query(query* q, const tch_bvh* bvh_b, tch_bvh_pair_callback callback,
                            tch_error* err) {
    tch_pressure_surface* s = q->out;
    q->out_of_memory = 0;
    placed_cache cache;
    lend_cache(q, &cache);
    /* meshes too small for the threads to pay (the estimate of the root pair is under the
     * threshold) skip even the frontier */
    double root_work = sqrt((double)q->a->bvh->primitive_count * bvh_b->primitive_count);
    if (tch_workers_thread_count(s->workers) < 2 || root_work < (double)parallel_min_work(s) ||
        !run_frontier(q, bvh_b, callback)) {
        tch_bvh_query_pairs_from(q->a->bvh, bvh_b, q->X_AB, q->intervals, 0, 0, callback, q);
    }
    q->out_of_memory = q->out_of_memory || grow_parts_to_surface(s) != 0;
    if (q->out_of_memory) {
        s->polygon_count = 0;
        s->vertex_count = 0;
        summarize(s);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                        "out of memory growing a contact surface past %d polygons",
                        s->polygon_capacity);
    }
    summarize(s);
    return TCH_OK;
}

/* Empties the output and checks body A: the start of both queries. */
static tch_status start_query(const tch_pressure_body* a, tch_pressure_surface* out,
                              tch_error* err) {
    clear_output(out);
    summarize(out);
    return tch_pressure_body_check(a, "A", err);
}

tch_status tch_pressure_surface_compliant(const tch_pressure_body* a, const tch_pressure_body* b,
                                          tch_transform X_AB, tch_pressure_surface* out,
                                          tch_error* err) {
    return tch_pressure_surface_compliant_ranged(a, NULL, b, NULL, X_AB, out, err);
}

tch_status tch_pressure_surface_compliant_ranged(const tch_pressure_body* a,
                                                 const tch_real (*node_epsilon_a)[2],
                                                 const tch_pressure_body* b,
                                                 const tch_real (*node_epsilon_b)[2],
                                                 tch_transform X_AB, tch_pressure_surface* out,
                                                 tch_error* err) {
    tch_status status = start_query(a, out, err);
    if (status == TCH_OK && (status = tch_pressure_body_check(b, "B", err)) == TCH_OK) {
        tch_bvh_intervals ranges = {node_epsilon_a, a->modulus, node_epsilon_b, b->modulus};
        query q = {.a = a, .b = b, .X_AB = X_AB, .place_B = make_placement(X_AB),
                   .intervals = node_epsilon_a && node_epsilon_b ? &ranges : NULL, .out = out};
        status = run_query(&q, b->bvh, compliant_pair, err);
    }
    return status;
}

tch_status tch_pressure_surface_rigid(const tch_pressure_body* a, const tch_rigid_surface* b,
                                      tch_transform X_AB, tch_pressure_surface* out,
                                      tch_error* err) {
    tch_status status = start_query(a, out, err);
    if (status == TCH_OK && (status = check_rigid_shape(b, err)) == TCH_OK) {
        query q = {.a = a, .rigid = b, .X_AB = X_AB, .place_B = make_placement(X_AB),
                   .out = out};
        status = run_query(&q, b->bvh, rigid_pair, err);
    }
    return status;
}
