/* peg's 3D feature-pair cases (peg.md §6.3-6.6) over the proximity query's candidate pairs.
 *
 * Every vertex within the proximity of the other body gets one U or I over its vertex set
 * (every face of the other body within the proximity: the sets of eqs. 34, 36 and 37 widened,
 * see vertex_set), tagged with its most specific case: vertex-vertex when it is within the
 * proximity of a vertex of the other body, else vertex-edge, else vertex-face. Then the
 * X-constraints of the vertex-edge case (eq. 36) and of the vertex-vertex case (the
 * separating-axis X of peg.md §6.6, for the lost eq. 38), and U for the edge-edge pairs whose
 * closest points are interior to both edges (eq. 35). Edge-face and face-face are redundant
 * (the paper). Contacts are filtered by relaxed applicability (eqs. 29-31) and feasibility
 * (§5.2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "contact/peg_build.h"
#include "math/vec.h"

typedef struct body {
    const tch_features* f;
    tch_transform pose;
    const tch_vec3* world; /* posed vertices */
    bool is_a;
} body;

typedef struct pair_3d {
    body a, b;
    tch_vec3 com_a, com_b;
    const tch_peg_params* params;
    tch_peg_constraints* out;
    const int* face_start; /* vertex k's vertex-face pairs (A's vertices, then B's): */
    const int* face_pairs; /* face_pairs[face_start[k] .. face_start[k + 1]), in list order */
} pair_3d;

enum { MARK_VERTEX_VERTEX = 1, MARK_VERTEX_EDGE = 2 };

static tch_vec3 face_normal(const body* p, int face) {
    return tch_q_rotate(p->pose.q, p->f->face_normals[face]);
}

static tch_vec3 edge_start(const body* p, int edge) {
    return p->world[p->f->edges[edge].tail];
}

static tch_vec3 edge_end(const body* p, int edge) {
    return p->world[p->f->edges[edge].head];
}

/* C(vertex of p, face of q) with its applicability (eq. 30) and feasibility. */
static tch_peg_contact vertex_face(const pair_3d* pair, const body* p, int vertex, const body* q,
                                   int face) {
    const tch_peg_params* params = pair->params;
    const tch_vec3 n = face_normal(q, face);
    const tch_vec3 on_plane = q->world[q->f->face_vertices[q->f->face_start[face]]];
    tch_peg_contact c = tch_peg_vertex_facet_contact(p->is_a, vertex, face, p->world[vertex], n,
                                                     on_plane, pair->com_a, pair->com_b);
    c.applicability = tch_features_applicability_vertex_face(p->f, p->pose, vertex, n);
    c.feasible =
        tch_features_vertex_face_feasible(q->f, q->pose, face, p->world[vertex], params->proximity,
                                          params->depth_tolerance, params->feasibility_angle);
    return c;
}

/* Whether the two edges are parallel to the model's parallel_sine: the normal e_a x e_b of a
 * nearly parallel pair turns by (the edges' turn) / sin(angle), so a relaxed applicability
 * accepts one tilted far from the faces' (two blocks stacked face to face had their common
 * edges pushed sideways); their endpoints' vertex-face contacts hold them. */
static bool parallel(const pair_3d* pair, int edge_a, int edge_b) {
    const tch_vec3 ea = tch_v3_sub(edge_end(&pair->a, edge_a), edge_start(&pair->a, edge_a));
    const tch_vec3 eb = tch_v3_sub(edge_end(&pair->b, edge_b), edge_start(&pair->b, edge_b));
    return tch_v3_norm(tch_v3_cross(ea, eb)) <=
           pair->params->parallel_sine * tch_v3_norm(ea) * tch_v3_norm(eb);
}

/* C(edge of A, edge of B) (not parallel) with its applicability (eq. 31) and feasibility
 * (segment distance within the proximity, peg.md §5.2). */
static tch_peg_contact edge_edge(const pair_3d* pair, int edge_a, int edge_b) {
    const body *a = &pair->a, *b = &pair->b;
    const tch_vec3 a0 = edge_start(a, edge_a), a1 = edge_end(a, edge_a);
    const tch_vec3 b0 = edge_start(b, edge_b), b1 = edge_end(b, edge_b);
    const tch_vec3 orientation =
        tch_q_rotate(b->pose.q, tch_features_edge_orientation(b->f, edge_b));
    tch_peg_contact c = tch_peg_edge_edge_contact(edge_a, edge_b, a0, a1, b0, b1, orientation,
                                                  pair->com_a, pair->com_b);
    c.applicability =
        tch_features_applicability_edge_edge(a->f, a->pose, edge_a, b->f, b->pose, edge_b);
    tch_real s, t;
    tch_segment_closest(a0, a1, b0, b1, &s, &t);
    c.feasible =
        tch_v3_dist(tch_v3_lerp(a0, a1, s), tch_v3_lerp(b0, b1, t)) <= pair->params->proximity;
    return c;
}

static bool edge_at(const tch_features* f, int edge, int vertex) {
    return f->edges[edge].tail == vertex || f->edges[edge].head == vertex;
}

static int other_end(const tch_features* f, int edge, int vertex) {
    return f->edges[edge].tail == vertex ? f->edges[edge].head : f->edges[edge].tail;
}

static int emit(const pair_3d* pair, tch_peg_kind kind, tch_feature_pair_kind source, int fa,
                int fb, const tch_peg_contact* set, int count) {
    return tch_peg_emit(pair->out, kind, source, fa, fb, set, count, pair->params);
}

/* The vertex sets of eqs. 34, 36 and 37: C(v, f) over every face f of q within the proximity
 * of vertex v of p (the proximity query's vertex-face pairs). When v lies within the
 * proximity of q, max psi over this set is >= 0 exactly when v is outside q: the faces that
 * hold q's closest point to v are in it, and |v - c|^2 = sum of a_f psi_f with a_f >= 0 over
 * them. The published sets (the edge's two faces, eq. 36; the faces at the other vertex,
 * eq. 37) are its subsets and lose that when faces are small against the proximity (measured
 * in docs/peg.md). Returns the count. */
static int vertex_set(const pair_3d* pair, const body* p, int v, const body* q,
                      tch_peg_contact* set) {
    const tch_feature_pairs* pairs = &pair->out->pairs;
    const int k = p->is_a ? v : pair->a.f->vertex_count + v;
    int count = 0;
    for (int i = pair->face_start[k]; i < pair->face_start[k + 1]; ++i) {
        const tch_feature_pair* fp = &pairs->pairs[pair->face_pairs[i]];
        set[count++] = vertex_face(pair, p, v, q, p->is_a ? fp->feature_b : fp->feature_a);
    }
    return count;
}

/* The vertex-face pairs of the query by vertex (pair_3d.face_start): a counting sort, stable,
 * so each vertex's faces keep the list's order (vertex_set scanned the whole list for each
 * vertex before: 8 % of the 3D pour's run at h = 16 ms). NULL when out of memory. */
static int* index_vertex_faces(tch_peg_constraints* out, int vertices_a, int vertices) {
    const tch_feature_pairs* pairs = &out->pairs;
    const int need = vertices + 1 + pairs->count;
    if (need > out->index_capacity) {
        int* grown = realloc(out->vertex_faces, (size_t)need * sizeof *grown);
        if (!grown) {
            return NULL;
        }
        out->vertex_faces = grown;
        out->index_capacity = need;
    }
    int *start = out->vertex_faces, *order = start + vertices + 1;
    memset(start, 0, (size_t)(vertices + 1) * sizeof *start);
    for (int i = 0; i < pairs->count; ++i) {
        const tch_feature_pair* fp = &pairs->pairs[i];
        if (fp->kind == TCH_FEATURE_VERTEX_FACE || fp->kind == TCH_FEATURE_FACE_VERTEX) {
            start[1 + (fp->kind == TCH_FEATURE_VERTEX_FACE ? fp->feature_a
                                                            : vertices_a + fp->feature_b)]++;
        }
    }
    for (int k = 0; k < vertices; ++k) {
        start[k + 1] += start[k];
    }
    for (int i = 0; i < pairs->count; ++i) {
        const tch_feature_pair* fp = &pairs->pairs[i];
        if (fp->kind == TCH_FEATURE_VERTEX_FACE || fp->kind == TCH_FEATURE_FACE_VERTEX) {
            const int k =
                fp->kind == TCH_FEATURE_VERTEX_FACE ? fp->feature_a : vertices_a + fp->feature_b;
            order[start[k]++] = i; /* start[k] ends at k's end: shifted back below */
        }
    }
    for (int k = vertices; k > 0; --k) {
        start[k] = start[k - 1];
    }
    start[0] = 0;
    return start;
}

/* The vertex's I-constraint over its vertex set (U when the set has one face), tagged with
 * the most specific case that holds the vertex: vertex-vertex (eq. 37), vertex-edge (eq. 36)
 * or vertex-face (eq. 34). */
static int vertex_constraint(const pair_3d* pair, const body* p, int v, const body* q, int mark,
                             tch_peg_contact* set) {
    const int count = vertex_set(pair, p, v, q, set);
    const tch_feature_pair_kind source =
        mark & MARK_VERTEX_VERTEX ? TCH_FEATURE_VERTEX_VERTEX
        : mark & MARK_VERTEX_EDGE ? (p->is_a ? TCH_FEATURE_VERTEX_EDGE : TCH_FEATURE_EDGE_VERTEX)
                                  : (p->is_a ? TCH_FEATURE_VERTEX_FACE : TCH_FEATURE_FACE_VERTEX);
    if (count == 1 && !mark && set[0].applicability < pair->params->applicability_facet) {
        return 1; /* eq. 34 only for a vertex with applicability (the authors' code) */
    }
    return emit(pair, count == 1 ? TCH_PEG_U : TCH_PEG_I, source, p->is_a ? v : -1,
                p->is_a ? -1 : v, set, count);
}

/* The parameters s, t of the closest points a0 + s (a1 - a0), b0 + t (b1 - b0) of two lines;
 * false when they are parallel. */
static bool line_parameters(tch_vec3 a0, tch_vec3 a1, tch_vec3 b0, tch_vec3 b1, tch_real* s,
                            tch_real* t) {
    const tch_vec3 u = tch_v3_sub(a1, a0), w = tch_v3_sub(b1, b0), r = tch_v3_sub(a0, b0);
    const tch_real uu = tch_v3_dot(u, u), uw = tch_v3_dot(u, w), ww = tch_v3_dot(w, w);
    const tch_real ur = tch_v3_dot(u, r), wr = tch_v3_dot(w, r);
    const tch_real det = uu * ww - uw * uw;
    if (!(det > 0)) {
        return false;
    }
    *s = (uw * wr - ww * ur) / det;
    *t = (uu * wr - uw * ur) / det;
    return true;
}

/* The line parameters of edge ea of A and eb of B. */
static bool edge_line_parameters(const pair_3d* pair, int ea, int eb, tch_real* s, tch_real* t) {
    return line_parameters(edge_start(&pair->a, ea), edge_end(&pair->a, ea),
                           edge_start(&pair->b, eb), edge_end(&pair->b, eb), s, t);
}

/* Crossings of two edges closer than this to an end are at the end (m). */
static const tch_real END_TOLERANCE = 1e-9;

/* Whether parameters s of edge ea of A and t of eb of B lie inside both edges, farther than
 * END_TOLERANCE from their ends: a crossing at an end is that end's vertex-edge or
 * vertex-vertex case, and rounding made the corners of blocks stacked face to face flicker
 * between a vertex case and an edge-edge one (the touch tolerance, 1e-3 m, let one
 * overlapping configuration of 5000 through in bench_peg_sampling: the decisive edge pair
 * crossed within it of a vertex). */
static bool inside_both(const pair_3d* pair, int ea, tch_real s, int eb, tch_real t) {
    const tch_real tolerance = END_TOLERANCE;
    const tch_real la = tch_v3_dist(edge_start(&pair->a, ea), edge_end(&pair->a, ea));
    const tch_real lb = tch_v3_dist(edge_start(&pair->b, eb), edge_end(&pair->b, eb));
    return s * la > tolerance && (1 - s) * la > tolerance && t * lb > tolerance &&
           (1 - t) * lb > tolerance;
}

/* Whether the closest points of the two edges' lines are inside both edges (inside_both). */
static bool edges_meet_inside(const pair_3d* pair, int ea, int eb) {
    tch_real s, t;
    return edge_line_parameters(pair, ea, eb, &s, &t) && inside_both(pair, ea, s, eb, t);
}

/* Whether the lines of edge k (at vertex v of p) and of the approached edge e meet inside e
 * and along k between `reach` behind v (v's distance to e) and k's other end: else k passes
 * beside e or turns away from it. (Inside k alone missed an overlap in sampling, the
 * crossing 0.003 behind v; anywhere along k's line rejected many free configurations.) */
static bool crosses_near(const pair_3d* pair, const body* p, int v, int k, int edge_a, int edge_b,
                         tch_real reach) {
    tch_real s, t;
    if (!edge_line_parameters(pair, edge_a, edge_b, &s, &t)) {
        return false;
    }
    const tch_real along_e = p->is_a ? t : s, along_k_from_tail = p->is_a ? s : t;
    const tch_feature_edge* K = &p->f->edges[k];
    const tch_real u = K->tail == v ? along_k_from_tail : 1 - along_k_from_tail;
    const tch_real length = tch_v3_dist(p->world[K->tail], p->world[K->head]);
    return along_e > 0 && along_e < 1 && u < 1 && u * length > -reach;
}

/* The X-constraints of eq. 36 for vertex v of p near edge e of q: with C1 = C(v, f1),
 * C2 = C(v, f2) (f1, f2 the faces at e), X(C1, C(k, e)) for each edge k at v reaching to the
 * f1 side of e ((v_k - v) . O_e > 0) and X(C2, C(k, e)) for those reaching to the f2 side,
 * among the edge-edge contacts with applicability, feasibility, and lines that cross near
 * (crosses_near). A flat edge
 * (a diagonal of a planar face, the code's n1 . n2 > 0.995) gives none. */
static int vertex_edge(const pair_3d* pair, const body* p, int v, const body* q, int e) {
    const tch_peg_params* params = pair->params;
    const tch_feature_edge* E = &q->f->edges[e];
    if (tch_v3_dot(face_normal(q, E->face1), face_normal(q, E->face2)) > params->flat_edge_cosine) {
        return 1;
    }
    const tch_feature_pair_kind source =
        p->is_a ? TCH_FEATURE_VERTEX_EDGE : TCH_FEATURE_EDGE_VERTEX;
    const int fa = p->is_a ? v : e, fb = p->is_a ? e : v;
    const tch_peg_contact c1 = vertex_face(pair, p, v, q, E->face1);
    const tch_peg_contact c2 = vertex_face(pair, p, v, q, E->face2);
    const tch_vec3 orientation = tch_q_rotate(q->pose.q, tch_features_edge_orientation(q->f, e));
    tch_real s, t;
    tch_segment_closest(p->world[v], p->world[v], edge_start(q, e), edge_end(q, e), &s, &t);
    const tch_real reach =
        tch_v3_dist(p->world[v], tch_v3_lerp(edge_start(q, e), edge_end(q, e), t));
    const tch_features* f = p->f;
    for (int k = f->vertex_edge_start[v]; k < f->vertex_edge_start[v + 1]; ++k) {
        const int edge = f->vertex_edges[k];
        const int edge_a = p->is_a ? edge : e, edge_b = p->is_a ? e : edge;
        if (parallel(pair, edge_a, edge_b) ||
            !crosses_near(pair, p, v, edge, edge_a, edge_b, reach)) {
            continue;
        }
        const tch_peg_contact cee = edge_edge(pair, edge_a, edge_b);
        if (!(cee.applicability >= params->applicability_edge) || !cee.feasible) {
            continue;
        }
        const tch_real side =
            tch_v3_dot(tch_v3_sub(p->world[other_end(f, edge, v)], p->world[v]), orientation);
        if (side == 0) {
            continue;
        }
        const tch_peg_contact set[2] = {side > 0 ? c1 : c2, cee};
        if (!emit(pair, TCH_PEG_X, source, fa, fb, set, 2)) {
            return 0;
        }
    }
    return 1;
}

enum { EDGE_UNKNOWN = 0, EDGE_APART = 1, EDGE_MEETS = 2 };

/* The edge-edge contact of the query's pair i for the separating-axis X, or NULL when the
 * edges are parallel or their lines do not meet inside both. A vertex is near several of the
 * other body's and its edges pair with most of the other's within a wide proximity, so each
 * pair's answer is kept for the build (pair_3d.out's edge cache, cleared per build). */
static const tch_peg_contact* corner_edge_contact(const pair_3d* pair, int i) {
    tch_peg_constraints* out = pair->out;
    const tch_feature_pair* fp = &out->pairs.pairs[i];
    if (out->edge_state[i] == EDGE_UNKNOWN) {
        const bool meets = !parallel(pair, fp->feature_a, fp->feature_b) &&
                           edges_meet_inside(pair, fp->feature_a, fp->feature_b);
        out->edge_state[i] = meets ? EDGE_MEETS : EDGE_APART;
        if (meets) {
            out->edge_contacts[i] = edge_edge(pair, fp->feature_a, fp->feature_b);
        }
    }
    return out->edge_state[i] == EDGE_MEETS ? &out->edge_contacts[i] : NULL;
}

/* Sizes and clears the edge cache for the query's pairs; 0 when out of memory. */
static int reset_edge_cache(tch_peg_constraints* out) {
    const int count = out->pairs.count;
    if (count > out->edge_capacity) {
        tch_peg_contact* contacts = realloc(out->edge_contacts, (size_t)count * sizeof *contacts);
        if (contacts) {
            out->edge_contacts = contacts;
        }
        unsigned char* state = realloc(out->edge_state, (size_t)count);
        if (state) {
            out->edge_state = state;
        }
        if (!contacts || !state) {
            return 0;
        }
        out->edge_capacity = count;
    }
    if (count > 0) {
        memset(out->edge_state, EDGE_UNKNOWN, (size_t)count);
    }
    return 1;
}

/* The separating-axis X of peg.md §6.6 (standing for the lost eq. 38): the two bodies near va
 * and vb do not overlap iff some candidate axis separates them, so one X over the contacts of
 * each vertex's set (above) and the edge-edge contacts of the edges at va and vb whose lines
 * meet inside both, each with applicability at least the filter. */
static int corner_axes(const pair_3d* pair, int va, int vb, tch_peg_contact* set) {
    const body *a = &pair->a, *b = &pair->b;
    const tch_real least = pair->params->applicability_corner;
    int count = 0;
    for (int side = 0; side < 2; ++side) {
        tch_peg_contact* part = set + count;
        const int found =
            side ? vertex_set(pair, b, vb, a, part) : vertex_set(pair, a, va, b, part);
        for (int i = 0; i < found; ++i) {
            if (part[i].applicability >= least) {
                set[count++] = part[i];
            }
        }
    }
    const tch_feature_pairs* pairs = &pair->out->pairs;
    for (int i = 0; i < pairs->count; ++i) {
        const tch_feature_pair* fp = &pairs->pairs[i];
        if (fp->kind != TCH_FEATURE_EDGE_EDGE ||
            !(edge_at(a->f, fp->feature_a, va) || edge_at(b->f, fp->feature_b, vb))) {
            continue;
        }
        const tch_peg_contact* c = corner_edge_contact(pair, i);
        if (c && c->applicability >= least) {
            set[count++] = *c;
        }
    }
    return emit(pair, TCH_PEG_X, TCH_FEATURE_VERTEX_VERTEX, va, vb, set, count);
}

/* Eq. 35: U(C(ea, eb)) when the segments' closest points are interior to both edges and the
 * pair has applicability. */
static int edge_edge_case(const pair_3d* pair, int ea, int eb) {
    if (parallel(pair, ea, eb)) {
        return 1;
    }
    const tch_vec3 a0 = edge_start(&pair->a, ea), a1 = edge_end(&pair->a, ea);
    const tch_vec3 b0 = edge_start(&pair->b, eb), b1 = edge_end(&pair->b, eb);
    tch_real s, t;
    tch_segment_closest(a0, a1, b0, b1, &s, &t);
    if (!inside_both(pair, ea, s, eb, t)) {
        return 1; /* at an end: a vertex-edge case */
    }
    const tch_peg_contact c = edge_edge(pair, ea, eb);
    if (c.applicability < pair->params->applicability_edge || !c.feasible) {
        return 1;
    }
    return emit(pair, TCH_PEG_U, TCH_FEATURE_EDGE_EDGE, ea, eb, &c, 1);
}

/* Marks each vertex with the cases that hold it, then emits: the vertex constraints of A's
 * and B's vertices, the X-constraints of the vertex-edge and vertex-vertex cases, and the
 * edge-edge U. */
static int run_cases(const pair_3d* pair, int* marks_a, int* marks_b, tch_peg_contact* set) {
    const tch_feature_pairs* pairs = &pair->out->pairs;
    for (int i = 0; i < pairs->count; ++i) {
        const tch_feature_pair* fp = &pairs->pairs[i];
        if (fp->kind == TCH_FEATURE_VERTEX_VERTEX) {
            marks_a[fp->feature_a] |= MARK_VERTEX_VERTEX;
            marks_b[fp->feature_b] |= MARK_VERTEX_VERTEX;
        } else if (fp->kind == TCH_FEATURE_VERTEX_EDGE) {
            marks_a[fp->feature_a] |= MARK_VERTEX_EDGE;
        } else if (fp->kind == TCH_FEATURE_EDGE_VERTEX) {
            marks_b[fp->feature_b] |= MARK_VERTEX_EDGE;
        }
    }
    for (int v = 0; v < pair->a.f->vertex_count; ++v) {
        if (!vertex_constraint(pair, &pair->a, v, &pair->b, marks_a[v], set)) {
            return 0;
        }
    }
    for (int v = 0; v < pair->b.f->vertex_count; ++v) {
        if (!vertex_constraint(pair, &pair->b, v, &pair->a, marks_b[v], set)) {
            return 0;
        }
    }
    for (int i = 0; i < pairs->count; ++i) {
        const tch_feature_pair* fp = &pairs->pairs[i];
        int ok = 1;
        if (fp->kind == TCH_FEATURE_VERTEX_VERTEX) {
            ok = corner_axes(pair, fp->feature_a, fp->feature_b, set);
        } else if (fp->kind == TCH_FEATURE_VERTEX_EDGE &&
                   !(marks_a[fp->feature_a] & MARK_VERTEX_VERTEX)) {
            ok = vertex_edge(pair, &pair->a, fp->feature_a, &pair->b, fp->feature_b);
        } else if (fp->kind == TCH_FEATURE_EDGE_VERTEX &&
                   !(marks_b[fp->feature_b] & MARK_VERTEX_VERTEX)) {
            ok = vertex_edge(pair, &pair->b, fp->feature_b, &pair->a, fp->feature_a);
        } else if (fp->kind == TCH_FEATURE_EDGE_EDGE) {
            ok = edge_edge_case(pair, fp->feature_a, fp->feature_b);
        }
        if (!ok) {
            return 0;
        }
    }
    return 1;
}

tch_status tch_peg_constraints_build(const tch_features* a, tch_transform pose_a, tch_vec3 com_a,
                                     const tch_features* b, tch_transform pose_b, tch_vec3 com_b,
                                     const tch_peg_params* params, tch_peg_constraints* out,
                                     tch_error* err) {
    out->count = out->contact_count = 0;
    if (tch_peg_check_proximity(params->proximity, err) != TCH_OK) {
        return TCH_ERR_INVALID_ARGUMENT;
    }
    const tch_status found =
        tch_feature_pairs_find(a, pose_a, b, pose_b, params->proximity, &out->pairs, err);
    if (found != TCH_OK) {
        return found;
    }
    if (!tch_peg_reset(out, a->vertex_count + b->vertex_count)) {
        return tch_peg_out_of_memory(err);
    }
    /* the largest set: every face of both bodies plus every edge-edge pair */
    const int most = a->face_count + b->face_count + out->pairs.count;
    tch_peg_contact* set = tch_peg_scratch(out, most);
    if (!set) {
        return tch_peg_out_of_memory(err);
    }
    const int vertices = a->vertex_count + b->vertex_count;
    const int* face_start = index_vertex_faces(out, a->vertex_count, vertices);
    if (!face_start || !reset_edge_cache(out)) {
        return tch_peg_out_of_memory(err);
    }
    const pair_3d pair = {{a, pose_a, out->pairs.world_a, true},
                          {b, pose_b, out->pairs.world_b, false},
                          com_a,
                          com_b,
                          params,
                          out,
                          face_start,
                          face_start + vertices + 1};
    int* marks_a = out->vertex_marks;
    int* marks_b = marks_a + a->vertex_count;
    if (!run_cases(&pair, marks_a, marks_b, set)) {
        return tch_peg_out_of_memory(err);
    }
    tch_peg_drop_implied(out);
    return TCH_OK;
}
