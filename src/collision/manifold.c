/* Manifold building blocks: reduction to four points, segment closest points, the polytope
 * view of boxes and hulls, and face clipping. See collide.h for the rules. */
#include <math.h>

#include "base/error.h"
#include "collision/collide.h"
#include "math/vec.h"

/* ---- reduction ---- */

/* Index maximizing scores[k] > 0 (-1 when none is); near ties (relative 1e-9) go to the
 * deeper point, so that a resting box keeps its bottom corners, not the top ones above them. */
static int argmax_positive(const tch_real* scores, const tch_manifold_point* points, int count) {
    int best = -1;
    for (int k = 0; k < count; ++k) {
        if (!(scores[k] > 0)) {
            continue;
        }
        const tch_real tie = 1e-9 * (best >= 0 ? scores[best] : 0);
        if (best < 0 || scores[k] > scores[best] + tie ||
            (scores[k] >= scores[best] - tie && points[k].depth > points[best].depth)) {
            best = k;
        }
    }
    return best;
}

/* Triangle (a, b, c) with normal N = (b - a) x (c - a), its corners u and edges v - u
 * (v the next corner), set up once for the area_added of every candidate. */
typedef struct triangle {
    tch_vec3 N;
    tch_vec3 u[3];
    tch_vec3 edge[3];
} triangle;

static void triangle_init(tch_vec3 a, tch_vec3 b, tch_vec3 c, triangle* t) {
    t->N = tch_v3_cross(tch_v3_sub(b, a), tch_v3_sub(c, a));
    const tch_vec3 v[3] = {b, c, a};
    t->u[0] = a;
    t->u[1] = b;
    t->u[2] = c;
    for (int e = 0; e < 3; ++e) {
        t->edge[e] = tch_v3_sub(v[e], t->u[e]);
    }
}

/* How much area q adds to the triangle: the largest over the edges of
 * N . ((q - u) x (v - u)), positive only outside the triangle. */
static tch_real area_added(const triangle* t, tch_vec3 q) {
    tch_real added = -INFINITY;
    for (int e = 0; e < 3; ++e) {
        tch_vec3 w = tch_v3_cross(tch_v3_sub(q, t->u[e]), t->edge[e]);
        const tch_real edge = tch_v3_dot(t->N, w);
        if (edge > added) {
            added = edge; /* fmax, inline: a NaN is skipped */
        }
    }
    return added;
}

/* x projected on the contact plane through origin o with unit normal n. */
static tch_vec3 in_plane(tch_vec3 x, tch_vec3 o, tch_vec3 n) {
    const tch_vec3 d = tch_v3_sub(x, o);
    return tch_v3_madd(d, -tch_v3_dot(d, n), n);
}

int tch_manifold_reduce(tch_manifold_point* points, int count) {
    enum { REDUCE_CAPACITY = 4 };
    if (count <= REDUCE_CAPACITY) {
        return count;
    }
    TCH_ASSERT(count <= TCH_MANIFOLD_BUILDER_CAPACITY);
    tch_real scores[TCH_MANIFOLD_BUILDER_CAPACITY] = {0};
    tch_vec3 flat[TCH_MANIFOLD_BUILDER_CAPACITY]; /* spread is measured in the contact plane */
    int pick[REDUCE_CAPACITY];
    int picked = 1;
    pick[0] = 0;
    for (int k = 1; k < count; ++k) {
        if (points[k].depth > points[pick[0]].depth) {
            pick[0] = k;
        }
    }
    for (int k = 0; k < count; ++k) {
        flat[k] = in_plane(points[k].p_A, points[pick[0]].p_A, points[pick[0]].n_A);
        scores[k] = tch_v3_norm2(flat[k]);
    }
    if ((pick[1] = argmax_positive(scores, points, count)) >= 0) {
        picked = 2;
        for (int k = 0; k < count; ++k) {
            scores[k] = tch_v3_norm2(tch_v3_cross(flat[pick[1]], flat[k]));
        }
        if ((pick[2] = argmax_positive(scores, points, count)) >= 0) {
            picked = 3;
            triangle t;
            triangle_init(flat[pick[0]], flat[pick[1]], flat[pick[2]], &t);
            for (int k = 0; k < count; ++k) {
                scores[k] = area_added(&t, flat[k]);
            }
            if ((pick[3] = argmax_positive(scores, points, count)) >= 0) {
                picked = 4;
            }
        }
    }
    tch_manifold_point kept[REDUCE_CAPACITY];
    for (int k = 0; k < picked; ++k) {
        kept[k] = points[pick[k]];
    }
    for (int k = 0; k < picked; ++k) {
        points[k] = kept[k];
    }
    return picked;
}

void tch_manifold_builder_init(tch_manifold_builder* builder, tch_manifold_point* out,
                               int candidates) {
    builder->points = candidates <= TCH_MANIFOLD_CAPACITY ? out : builder->buffer;
    builder->count = 0;
}

void tch_manifold_builder_add(tch_manifold_builder* builder, tch_manifold_point p,
                              tch_real margin) {
    if (!(p.depth >= -margin)) {
        return;
    }
    TCH_ASSERT(builder->points == builder->buffer || builder->count < TCH_MANIFOLD_CAPACITY);
    if (builder->count == TCH_MANIFOLD_BUILDER_CAPACITY) {
        builder->count = tch_manifold_reduce(builder->points, builder->count);
    }
    builder->points[builder->count++] = p;
}

int tch_manifold_builder_finish(tch_manifold_builder* builder, tch_manifold_point* out) {
    const int count = tch_manifold_reduce(builder->points, builder->count);
    if (builder->points != out) {
        for (int k = 0; k < count; ++k) {
            out[k] = builder->points[k];
        }
    }
    return count;
}

void tch_manifold_flip(tch_manifold_point* points, int count, tch_transform X_AB) {
    for (int k = 0; k < count; ++k) {
        points[k].p_A = tch_x_apply(X_AB, points[k].p_A);
        points[k].n_A = tch_v3_neg(tch_q_rotate(X_AB.q, points[k].n_A));
    }
}

/* ---- segments ---- */

static tch_real clamp01(tch_real x) {
    return fmin(fmax(x, 0.0), 1.0);
}

void tch_segment_closest(tch_vec3 p0, tch_vec3 p1, tch_vec3 q0, tch_vec3 q1, tch_real* s,
                         tch_real* t) {
    const tch_real tiny = 1e-24;
    const tch_vec3 d1 = tch_v3_sub(p1, p0);
    const tch_vec3 d2 = tch_v3_sub(q1, q0);
    const tch_vec3 r = tch_v3_sub(p0, q0);
    const tch_real a = tch_v3_dot(d1, d1);
    const tch_real e = tch_v3_dot(d2, d2);
    const tch_real f = tch_v3_dot(d2, r);
    if (a <= tiny) {
        *s = 0;
        *t = e <= tiny ? 0 : clamp01(f / e);
        return;
    }
    const tch_real c = tch_v3_dot(d1, r);
    if (e <= tiny) {
        *t = 0;
        *s = clamp01(-c / a);
        return;
    }
    /* minimize |r + s d1 - t d2|^2: (Ericson 5.1.9, equations for s then t) */
    const tch_real b = tch_v3_dot(d1, d2);
    const tch_real denom = a * e - b * b;
    *s = denom > tiny * a * e ? clamp01((b * f - c * e) / denom) : 0;
    *t = (b * *s + f) / e;
    if (*t < 0) {
        *t = 0;
        *s = clamp01(-c / a);
    } else if (*t > 1) {
        *t = 1;
        *s = clamp01((b - c) / a);
    }
}

/* ---- polytopes ---- */

/* Box vertex v is (+-hx, +-hy, +-hz) with bit k of v set for the + sign on axis k. */
static const int box_face_start[7] = {0, 4, 8, 12, 16, 20, 24};
static const int box_face_vertices[24] = {1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3,
                                          0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1};
static const tch_vec3 box_face_normals[6] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                             {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};

int tch_polytope_init(tch_polytope* poly, const tch_shape* shape) {
    if (shape->type == TCH_GEOM_BOX) {
        for (int v = 0; v < 8; ++v) {
            poly->box_vertices[v] = tch_v3((v & 1) ? shape->size[0] : -shape->size[0],
                                           (v & 2) ? shape->size[1] : -shape->size[1],
                                           (v & 4) ? shape->size[2] : -shape->size[2]);
        }
        poly->vertex_count = 8;
        poly->vertices = poly->box_vertices;
        poly->face_count = 6;
        poly->face_start = box_face_start;
        poly->face_vertices = box_face_vertices;
        poly->face_normals = box_face_normals;
        return 1;
    }
    if (shape->type == TCH_GEOM_MESH && shape->hull) {
        const tch_convex_hull* h = shape->hull;
        *poly = (tch_polytope){h->vertex_count, h->vertices_G, h->face_count, h->face_start,
                               h->face_vertices, h->face_normals_G, {{0, 0, 0}}};
        return 1;
    }
    return 0;
}

/* The face whose outward normal is best aligned with dir (unit); its cosine in *alignment.
 * A box's normals are +-e_k, so its cosines are +-dir_k: the dot products' other terms are
 * signed zeros, which change no comparison (and *alignment is only compared). */
static int best_face(const tch_polytope* poly, tch_vec3 dir, tch_real* alignment) {
    const int box = poly->face_normals == box_face_normals;
    const tch_real box_cosines[6] = {dir.x, -dir.x, dir.y, -dir.y, dir.z, -dir.z};
    int best = 0;
    *alignment = -INFINITY;
    for (int f = 0; f < poly->face_count; ++f) {
        tch_real c = box ? box_cosines[f] : tch_v3_dot(poly->face_normals[f], dir);
        if (c > *alignment) {
            *alignment = c;
            best = f;
        }
    }
    return best;
}

enum { CLIP_CAPACITY = 64 };

/* Index after k in a loop of n. */
static int next_in_loop(int k, int n) {
    return k + 1 < n ? k + 1 : 0;
}

/* Sutherland-Hodgman (1974), one plane: keeps the part of polygon in[0..n) (n > 0) with
 * normal . x <= offset. Returns the new vertex count (at most n + 1). Each vertex's distance
 * to the plane is computed once. */
static int clip_by_plane(const tch_vec3* in, int n, tch_vec3 normal, tch_real offset,
                         tch_vec3* out) {
    int count = 0;
    const tch_real d_first = tch_v3_dot(normal, in[0]) - offset;
    tch_real dn = d_first;
    for (int k = 0; k < n; ++k) {
        const int k_next = next_in_loop(k, n);
        const tch_vec3 cur = in[k];
        const tch_vec3 next = in[k_next];
        const tch_real dc = dn;
        dn = k_next == 0 ? d_first : tch_v3_dot(normal, next) - offset;
        if (dc <= 0) {
            out[count++] = cur;
        }
        if ((dc <= 0) != (dn <= 0)) {
            out[count++] = tch_v3_lerp(cur, next, dc / (dc - dn));
        }
    }
    return count;
}

/* Clips face `inc_face` of `inc` (pose X_RI in the reference frame R) against face `ref_face`
 * of `ref`: the reduced points (frame R, normal n_ref) in out, their count returned. Returns
 * -1 when the faces have too many vertices to clip in the fixed buffers. */
static int clip_against_reference(const tch_polytope* ref, int ref_face, const tch_polytope* inc,
                                  int inc_face, tch_transform X_RI, tch_real margin,
                                  tch_manifold_point* out) {
    const int ref_begin = ref->face_start[ref_face];
    const int ref_n = ref->face_start[ref_face + 1] - ref_begin;
    const int inc_begin = inc->face_start[inc_face];
    const int inc_n = inc->face_start[inc_face + 1] - inc_begin;
    if (ref_n + inc_n > CLIP_CAPACITY) {
        return -1;
    }
    tch_vec3 buffers[2][CLIP_CAPACITY];
    int n = inc_n;
    for (int k = 0; k < inc_n; ++k) {
        buffers[0][k] = tch_x_apply(X_RI, inc->vertices[inc->face_vertices[inc_begin + k]]);
    }
    const tch_vec3 n_ref = ref->face_normals[ref_face];
    int current = 0;
    for (int k = 0; k < ref_n && n > 0; ++k) {
        const tch_vec3 v0 = ref->vertices[ref->face_vertices[ref_begin + k]];
        const tch_vec3 v1 = ref->vertices[ref->face_vertices[ref_begin + next_in_loop(k, ref_n)]];
        /* outward side normal of a counter-clockwise edge: (v1 - v0) x n */
        const tch_vec3 side = tch_v3_cross(tch_v3_sub(v1, v0), n_ref);
        n = clip_by_plane(buffers[current], n, side, tch_v3_dot(side, v0), buffers[1 - current]);
        current = 1 - current;
    }
    const tch_real offset = tch_v3_dot(n_ref, ref->vertices[ref->face_vertices[ref_begin]]);
    tch_manifold_builder builder;
    tch_manifold_builder_init(&builder, out, n);
    for (int k = 0; k < n; ++k) {
        const tch_vec3 q = buffers[current][k];
        const tch_real depth = offset - tch_v3_dot(n_ref, q);
        /* q lies on the incident surface; the reference surface is depth along +n_ref */
        tch_manifold_point p = {tch_v3_madd(q, 0.5 * depth, n_ref), n_ref, depth};
        tch_manifold_builder_add(&builder, p, margin);
    }
    return tch_manifold_builder_finish(&builder, out);
}

int tch_polytope_clip(const tch_polytope* P, const tch_polytope* Q, tch_transform X_AB,
                      tch_vec3 n_A, tch_real margin, tch_real min_alignment,
                      tch_manifold_point* out) {
    tch_real align_p = 0;
    tch_real align_q = 0;
    const int face_p = best_face(P, n_A, &align_p);
    const int face_q = best_face(Q, tch_q_inv_rotate(X_AB.q, tch_v3_neg(n_A)), &align_q);
    if (fmax(align_p, align_q) < min_alignment) {
        return 0;
    }
    tch_real unused = 0;
    if (align_p >= align_q) {
        const tch_vec3 n_ref_B = tch_q_inv_rotate(X_AB.q, P->face_normals[face_p]);
        const int inc = best_face(Q, tch_v3_neg(n_ref_B), &unused);
        const int count = clip_against_reference(P, face_p, Q, inc, X_AB, margin, out);
        return count < 0 ? 0 : count;
    }
    const tch_transform X_BA = tch_x_inverse(X_AB);
    const tch_vec3 n_ref_A = tch_q_rotate(X_AB.q, Q->face_normals[face_q]);
    const int inc = best_face(P, tch_v3_neg(n_ref_A), &unused);
    const int count = clip_against_reference(Q, face_q, P, inc, X_BA, margin, out);
    if (count < 0) {
        return 0;
    }
    tch_manifold_flip(out, count, X_AB);
    return count;
}
