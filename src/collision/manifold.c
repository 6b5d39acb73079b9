/* Manifold building blocks: the symmetric reduction to about four points, segment closest
 * points, the polytope view of boxes and hulls, and face clipping. See collide.h for the
 * rules. */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "collision/collide.h"
#include "math/vec.h"

/* ---- reduction ---- */

/* The reduction (collide.h, "Manifold rules") works in the contact plane of the deepest
 * candidate (its origin): each candidate is a 2-D position x on two tangents of that normal,
 * and a depth. It is the greedy choice of spread with ties kept: a step whose best score is
 * shared by exactly two candidates that a mirror of the set may swap keeps both, and the next
 * step measures from their midpoint, so a mirror-symmetric set is reduced to a set with the
 * same symmetry. Ties are within TIE relative (of the extent for depths, of the best score for
 * the others): 1e-9 missed the twins of a rim after a position correction had rolled the
 * body by 1e-9 rad, and 1e-6 made the levelled faces of a resting tower flip between a tie and
 * none from step to step (test_point_energy's towers). */
static const tch_real TIE = 1e-8;

typedef struct planar {
    tch_real x, y;
} planar;

static tch_real cross2(planar a, planar b) {
    return a.x * b.y - a.y * b.x;
}

static planar minus(planar a, planar b) {
    return (planar){a.x - b.x, a.y - b.y};
}

/* The candidates of a source as the reduction sees them; each is computed again on every pass
 * (a source may have more candidates than fit on the stack). */
typedef struct candidates {
    tch_candidate_fn point;
    const void* source;
    int count;
    tch_vec3 origin, t1, t2; /* the deepest candidate's point and tangents */
    planar centroid;         /* of all candidates */
    bool level;              /* more than two places share the deepest depth */
} candidates;

static bool candidate_at(const candidates* c, int k, tch_manifold_point* p, planar* x) {
    if (!c->point(c->source, k, p)) {
        return false;
    }
    const tch_vec3 d = tch_v3_sub(p->p_A, c->origin);
    *x = (planar){tch_v3_dot(d, c->t1), tch_v3_dot(d, c->t2)};
    return true;
}

/* How much area q adds to the triangle t (N its doubled signed area): the largest over its
 * edges (u, v) of N (q - u) x (v - u), positive only outside the triangle. */
static tch_real area_added(const planar t[3], tch_real N, planar q) {
    tch_real added = -INFINITY;
    for (int e = 0; e < 3; ++e) {
        const tch_real edge = N * cross2(minus(q, t[e]), minus(t[(e + 1) % 3], t[e]));
        if (edge > added) {
            added = edge; /* fmax, inline: a NaN is skipped */
        }
    }
    return added;
}

/* The greedy steps: the deepest, the farthest from the first reference point, the largest
 * triangle with the first two, the most area added to the triangle of the first three. */
typedef enum spread_step { DEEPEST, FARTHEST, TRIANGLE, AREA } spread_step;

static tch_real step_score(spread_step step, const planar ref[3], tch_real N,
                           const tch_manifold_point* p, planar x) {
    switch (step) {
    case DEEPEST:
        return p->depth;
    case FARTHEST: {
        const planar d = minus(x, ref[0]);
        return d.x * d.x + d.y * d.y;
    }
    case TRIANGLE: {
        const tch_real c = cross2(minus(ref[1], ref[0]), minus(x, ref[0]));
        return c * c;
    }
    case AREA:
        break;
    }
    return area_added(ref, N, x);
}

/* The winner of a step: the best score, a near tie (`tie`, relative 1e-9 of the best score)
 * going to the deeper candidate, so that a resting box keeps its bottom corners, not the top
 * ones above them. */
typedef struct step_winner {
    int best;
    tch_real score, depth;
} step_winner;

static void step_winner_add(step_winner* w, int k, tch_real score, tch_real depth,
                            tch_real tie) {
    if (w->best < 0 || score > w->score + tie ||
        (score >= w->score - tie && depth > w->depth)) {
        *w = (step_winner){k, score, depth};
    }
}

/* The chosen candidates, by index. */
typedef struct selection {
    int count;
    int index[TCH_MANIFOLD_CAPACITY];
} selection;

static bool selected(const selection* sel, int k) {
    for (int i = 0; i < sel->count; ++i) {
        if (sel->index[i] == k) {
            return true;
        }
    }
    return false;
}

/* A place of tied candidates: the deepest of them there. */
typedef struct tied_place {
    int k;
    planar x;
    tch_real depth;
} tied_place;

/* Adds candidate k at x to the places (count of them so far, at most 3 kept), as a new place or
 * as the deeper candidate of one within `close`; returns the new count. */
static int add_tied_place(tied_place* places, int count, int k, planar x, tch_real depth,
                          tch_real close) {
    for (int i = 0; i < count; ++i) {
        if (fabs(places[i].x.x - x.x) <= close && fabs(places[i].x.y - x.y) <= close) {
            if (depth > places[i].depth) {
                places[i] = (tied_place){k, x, depth};
            }
            return count;
        }
    }
    places[count] = (tied_place){k, x, depth};
    return count + 1;
}

/* Is x on the perpendicular bisector of a and b (within `close`)? */
static bool on_bisector(planar x, planar a, planar b, tch_real close) {
    const planar ab = minus(b, a);
    const planar mid = {0.5 * (a.x + b.x), 0.5 * (a.y + b.y)};
    return fabs(ab.x * (x.x - mid.x) + ab.y * (x.y - mid.y)) <= close * hypot(ab.x, ab.y);
}

/* One greedy step over the unselected candidates: adds the winner, or both candidates when
 * exactly two share the best score, and returns the reference point of the next steps (their
 * midpoint). Returns false when no candidate scores above zero (from FARTHEST on: all of them
 * on the reference point, the line or inside the triangle). */
static bool spread_one_step(candidates* c, spread_step step, const planar ref[3],
                            tch_real tie_length, selection* sel, planar* next_ref) {
    const tch_real N = step == AREA ? cross2(minus(ref[1], ref[0]), minus(ref[2], ref[0])) : 0;
    step_winner w = {-1, 0, 0};
    tch_manifold_point p;
    planar x;
    for (int k = 0; k < c->count; ++k) {
        if (!selected(sel, k) && candidate_at(c, k, &p, &x)) {
            const tch_real score = step_score(step, ref, N, &p, x);
            step_winner_add(&w, k, score, p.depth, step == DEEPEST ? 0 : 1e-9 * fabs(w.score));
        }
    }
    if (w.best < 0 || (step != DEEPEST && !(w.score > 0))) {
        return false;
    }
    /* the scores' tie: depths to TIE of the extent, areas and squared lengths to TIE of the best */
    const tch_real tie = step == DEEPEST ? tie_length : TIE * w.score;
    /* the tied candidates (within `tie` of the best score) as deep as the deepest of them, by
     * position in the plane: of several at one place (a box's top and bottom corners seen
     * from above), the deepest */
    tch_real tied_depth = -INFINITY;
    planar tied_sum = {0, 0};
    int tied_count = 0;
    for (int k = 0; k < c->count; ++k) {
        if (!selected(sel, k) && candidate_at(c, k, &p, &x) &&
            step_score(step, ref, N, &p, x) >= w.score - tie) {
            tied_depth = fmax(tied_depth, p.depth);
            tied_sum.x += x.x, tied_sum.y += x.y, ++tied_count;
        }
    }
    tied_place tied[3];
    int places = 0;
    for (int k = 0; k < c->count && places < 3; ++k) {
        if (!selected(sel, k) && candidate_at(c, k, &p, &x) &&
            step_score(step, ref, N, &p, x) >= w.score - tie &&
            p.depth >= tied_depth - tie_length) {
            places = add_tied_place(tied, places, k, x, p.depth, tie_length);
        }
    }
    if (places == 2 && on_bisector(c->centroid, tied[0].x, tied[1].x, tie_length)) {
        sel->index[sel->count++] = tied[0].k;
        sel->index[sel->count++] = tied[1].k;
        *next_ref = (planar){0.5 * (tied[0].x.x + tied[1].x.x), 0.5 * (tied[0].x.y + tied[1].x.y)};
        return true;
    }
    if (places > 2 && step == DEEPEST) { /* a face as deep all over: measured from its centre */
        c->level = true;
        *next_ref = (planar){tied_sum.x / tied_count, tied_sum.y / tied_count};
        return true;
    }
    /* one winner: measured from the centre of a face as deep all over, of the tied candidates
     * as deep as the deepest of them the farthest from that centre (the widest spread; the
     * near-tie rule's deeper one can be any of them) */
    int best = w.best;
    tch_real best_reach = -INFINITY;
    for (int k = 0; k < c->count && c->level; ++k) {
        if (!selected(sel, k) && candidate_at(c, k, &p, &x) &&
            step_score(step, ref, N, &p, x) >= w.score - tie &&
            p.depth >= tied_depth - tie_length) {
            const planar d = minus(x, ref[0]);
            const tch_real reach = d.x * d.x + d.y * d.y;
            if (reach > best_reach + tie_length * tie_length) {
                best = k, best_reach = reach;
            }
        }
    }
    sel->index[sel->count++] = best;
    candidate_at(c, best, &p, next_ref);
    return true;
}

/* Reduces to 4 points or fewer (5 when a step after a single winner keeps a pair), in the
 * order of the steps (the deepest first unless a face is level); a source of at most
 * TCH_MANIFOLD_REDUCED candidates is kept whole. */
static int reduce(candidates* c, tch_manifold_point* out) {
    int kept = 0;
    tch_manifold_point p;
    tch_real deepest_depth = -INFINITY;
    for (int k = 0; k < c->count; ++k) {
        if (c->point(c->source, k, &p)) {
            if (kept < TCH_MANIFOLD_REDUCED) {
                out[kept] = p;
            }
            ++kept;
            if (p.depth > deepest_depth) {
                deepest_depth = p.depth;
                c->origin = p.p_A;
                tch_v3_basis(p.n_A, &c->t1, &c->t2);
            }
        }
    }
    if (kept <= TCH_MANIFOLD_REDUCED) {
        return kept;
    }
    tch_real extent2 = 0;
    planar x;
    c->centroid = (planar){0, 0};
    for (int k = 0; k < c->count; ++k) {
        if (candidate_at(c, k, &p, &x)) {
            extent2 = fmax(extent2, x.x * x.x + x.y * x.y);
            c->centroid.x += x.x / kept, c->centroid.y += x.y / kept;
        }
    }
    const tch_real tie_length = TIE * fmax(sqrt(extent2), fabs(deepest_depth));
    selection sel = {0, {0}};
    planar ref[3] = {{0, 0}, {0, 0}, {0, 0}};
    const spread_step steps[5] = {DEEPEST, FARTHEST, TRIANGLE, AREA, AREA};
    for (int i = 0; i < 5 && sel.count < 4; ++i) {
        const int before = sel.count;
        if (steps[i] == AREA) { /* the triangle of the first three points kept (with the centre
                                 * of a face as deep all over when only two are) */
            for (int j = 0; j < 3 && sel.count >= 2; ++j) {
                const int at = sel.count >= 3 ? j : j - 1;
                if (at >= 0) {
                    candidate_at(c, sel.index[at], &p, &ref[j]);
                }
            }
        }
        planar next = {0, 0};
        if ((steps[i] == AREA && sel.count < 2) ||
            !spread_one_step(c, steps[i], ref, tie_length, &sel, &next)) {
            break;
        }
        if (steps[i] == FARTHEST && sel.count == before + 2 &&
            hypot(next.x - ref[0].x, next.y - ref[0].y) <= tie_length) {
            /* a pair about the reference point: the triangle step measures from their line */
            candidate_at(c, sel.index[before], &p, &ref[0]);
            candidate_at(c, sel.index[before + 1], &p, &next);
        }
        if (steps[i] != AREA) {
            ref[steps[i]] = next;
        }
    }
    for (int i = 0; i < sel.count; ++i) {
        candidate_at(c, sel.index[i], &out[i], &x);
    }
    return sel.count;
}

int tch_manifold_select(tch_candidate_fn point, const void* source, int count,
                        tch_manifold_point* out) {
    candidates c = {point, source, count, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0}, false};
    return reduce(&c, out);
}

/* A source over an array whose every element is a candidate. */
static bool array_point(const void* source, int k, tch_manifold_point* out) {
    *out = ((const tch_manifold_point*)source)[k];
    return true;
}

int tch_manifold_reduce(tch_manifold_point* points, int count) {
    if (count <= TCH_MANIFOLD_REDUCED) {
        return count;
    }
    tch_manifold_point kept[TCH_MANIFOLD_CAPACITY];
    const int reduced = tch_manifold_select(array_point, points, count, kept);
    memcpy(points, kept, (size_t)reduced * sizeof *points);
    return reduced;
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

/* The clipped incident face as a source of candidates: vertex k of `points` (frame R) seen from
 * the reference plane n_ref . x = offset. */
typedef struct clipped_face {
    const tch_vec3* points;
    tch_vec3 n_ref;
    tch_real offset;
    tch_real margin;
} clipped_face;

static bool clipped_point(const void* source, int k, tch_manifold_point* out) {
    const clipped_face* face = source;
    const tch_vec3 q = face->points[k];
    const tch_real depth = face->offset - tch_v3_dot(face->n_ref, q);
    /* q lies on the incident surface; the reference surface is depth along +n_ref */
    *out = (tch_manifold_point){tch_v3_madd(q, 0.5 * depth, face->n_ref), face->n_ref, depth};
    return depth >= -face->margin;
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
    const clipped_face face = {buffers[current], n_ref,
                               tch_v3_dot(n_ref, ref->vertices[ref->face_vertices[ref_begin]]),
                               margin};
    return tch_manifold_select(clipped_point, &face, n, out);
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
