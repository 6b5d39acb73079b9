/* peg's 2D feature-pair cases (peg.md §6.1-6.2): vertex-edge U (eq. 32) and vertex-vertex
 * I(C1,C2), I(C3,C4), X(C1,C4), X(C2,C3) (eq. 33, the labelling of the authors' code that
 * peg.md §9 found exact; the I-sets widened to every edge within the proximity, below).
 * Edge-edge is redundant in 2D (the paper). Polygons are
 * counter-clockwise in the plane z = 0; edge k runs vertex k -> k+1, so its outward normal is
 * e rotated clockwise. */
#include <math.h>

#include "base/error.h"
#include "contact/peg_build.h"
#include "math/vec.h"

typedef struct polygon {
    const tch_vec3* v;
    int n;
    bool is_a;
} polygon;

typedef struct pair_2d {
    polygon a, b;
    tch_vec3 com_a, com_b;
    const tch_peg_params* params;
    tch_peg_constraints* out;
} pair_2d;

static int next(const polygon* p, int k) {
    return k + 1 < p->n ? k + 1 : 0;
}

static int previous(const polygon* p, int k) {
    return k > 0 ? k - 1 : p->n - 1;
}

static tch_vec3 edge_normal(const polygon* p, int k) {
    const tch_vec3 e = tch_v3_sub(p->v[next(p, k)], p->v[k]);
    return tch_v3_normalize(tch_v3(e.y, -e.x, 0));
}

/* Eq. 29: min over the two neighbours v_k of n . (v_k - v)/|v_k - v|. */
static tch_real applicability(const polygon* p, int vertex, tch_vec3 facet_normal) {
    const tch_vec3 v = p->v[vertex];
    const tch_vec3 before = tch_v3_normalize(tch_v3_sub(p->v[previous(p, vertex)], v));
    const tch_vec3 after = tch_v3_normalize(tch_v3_sub(p->v[next(p, vertex)], v));
    return fmin(tch_v3_dot(facet_normal, before), tch_v3_dot(facet_normal, after));
}

/* Distance of point x from segment a-b, and the closest point. */
static tch_real segment_distance(tch_vec3 x, tch_vec3 a, tch_vec3 b, tch_vec3* closest,
                                 tch_real* parameter) {
    const tch_vec3 e = tch_v3_sub(b, a);
    const tch_real t = tch_v3_dot(tch_v3_sub(x, a), e) / tch_v3_norm2(e);
    *parameter = t;
    *closest = tch_v3_lerp(a, b, fmin(1, fmax(0, t)));
    return tch_v3_dist(x, *closest);
}

/* peg.md §5.2 for a vertex against edge k of q (the 2D form of feasibility_vf). */
static bool feasible(const polygon* q, int k, tch_vec3 x, tch_real gap,
                     const tch_peg_params* params) {
    tch_vec3 nearest;
    tch_real t;
    const tch_real distance = segment_distance(x, q->v[k], q->v[next(q, k)], &nearest, &t);
    if (fabs(gap) > params->proximity || distance > params->proximity) {
        return false;
    }
    if (t >= 0 && t <= 1) {
        return gap >= -params->depth_tolerance;
    }
    const tch_real past = sqrt(fmax(0, distance * distance - gap * gap));
    return past <= params->proximity && gap >= -distance * sin(params->feasibility_angle);
}

/* C(vertex of p, edge k of q), in the A -> B frame. */
static tch_peg_contact vertex_edge_contact(const pair_2d* pair, const polygon* p, int vertex,
                                           const polygon* q, int k) {
    const tch_vec3 n = edge_normal(q, k);
    tch_peg_contact c = tch_peg_vertex_facet_contact(p->is_a, vertex, k, p->v[vertex], n, q->v[k],
                                                     pair->com_a, pair->com_b);
    c.applicability = applicability(p, vertex, n);
    c.feasible = feasible(q, k, p->v[vertex], c.gap, pair->params);
    return c;
}

/* The vertex set of vertex `vertex` of p: C(vertex, k) over every edge k of q within the
 * proximity. When the vertex lies within the proximity of q, max psi over it is >= 0 exactly
 * when the vertex is outside q (the edges at q's closest point are in it); eq. 33's pair
 * {C(va, eb-), C(va, eb+)} is its subset and loses that when an edge is shorter than the
 * proximity (measured in docs/peg.md). Returns the count; set: room for q->n. */
static int vertex_set(const pair_2d* pair, const polygon* p, int vertex, const polygon* q,
                      tch_peg_contact* set) {
    int count = 0;
    for (int k = 0; k < q->n; ++k) {
        tch_vec3 nearest;
        tch_real t;
        if (segment_distance(p->v[vertex], q->v[k], q->v[next(q, k)], &nearest, &t) <=
            pair->params->proximity) {
            set[count++] = vertex_edge_contact(pair, p, vertex, q, k);
        }
    }
    return count;
}

/* Eq. 33 for vertex i of A and vertex j of B: the I-constraint of each vertex over its vertex
 * set (which holds C1, C2, resp. C3, C4), and X(C1, C4), X(C2, C3) when both of their contacts
 * have applicability and feasibility (peg.md §9 measured eq. 33 with all four applicable; an X
 * with a contact far from applicable or feasible rejects free configurations and, the vertex
 * sets being exact for each vertex, is not needed for overlaps: measured in docs/peg.md). */
static int vertex_vertex(const pair_2d* pair, int i, int j, tch_peg_contact* set) {
    const polygon *a = &pair->a, *b = &pair->b;
    const tch_peg_params* params = pair->params;
    const int count_a = vertex_set(pair, a, i, b, set);
    if (!tch_peg_emit(pair->out, TCH_PEG_I, TCH_FEATURE_VERTEX_VERTEX, i, j, set, count_a,
                      params)) {
        return 0;
    }
    const int count_b = vertex_set(pair, b, j, a, set);
    if (!tch_peg_emit(pair->out, TCH_PEG_I, TCH_FEATURE_VERTEX_VERTEX, i, j, set, count_b,
                      params)) {
        return 0;
    }
    const tch_peg_contact c1 = vertex_edge_contact(pair, a, i, b, previous(b, j));
    const tch_peg_contact c2 = vertex_edge_contact(pair, a, i, b, j);
    const tch_peg_contact c3 = vertex_edge_contact(pair, b, j, a, previous(a, i));
    const tch_peg_contact c4 = vertex_edge_contact(pair, b, j, a, i);
    const tch_peg_contact crossed[2][2] = {{c1, c4}, {c2, c3}};
    for (int s = 0; s < 2; ++s) {
        if (tch_peg_contact_qualifies(&crossed[s][0], params) &&
            tch_peg_contact_qualifies(&crossed[s][1], params) &&
            !tch_peg_emit(pair->out, TCH_PEG_X, TCH_FEATURE_VERTEX_VERTEX, i, j, crossed[s], 2,
                          params)) {
            return 0;
        }
    }
    return 1;
}

/* Eq. 32 for every vertex of p that no vertex-vertex case took, against the edges of q within
 * the proximity (the code also asks for applicability). `marks` flags p's vertices. */
static int vertex_edges(const pair_2d* pair, const polygon* p, const polygon* q, const int* marks) {
    for (int vertex = 0; vertex < p->n; ++vertex) {
        if (marks[vertex]) {
            continue;
        }
        for (int k = 0; k < q->n; ++k) {
            tch_vec3 nearest;
            tch_real t;
            if (segment_distance(p->v[vertex], q->v[k], q->v[next(q, k)], &nearest, &t) >
                pair->params->proximity) {
                continue;
            }
            const tch_peg_contact c = vertex_edge_contact(pair, p, vertex, q, k);
            if (c.applicability < pair->params->applicability_facet) {
                continue;
            }
            const tch_feature_pair_kind source =
                p->is_a ? TCH_FEATURE_VERTEX_EDGE : TCH_FEATURE_EDGE_VERTEX;
            if (!tch_peg_emit(pair->out, TCH_PEG_U, source, p->is_a ? vertex : k,
                              p->is_a ? k : vertex, &c, 1, pair->params)) {
                return 0;
            }
        }
    }
    return 1;
}

tch_status tch_peg_constraints_build_2d(const tch_vec3* a, int a_count, tch_vec3 com_a,
                                        const tch_vec3* b, int b_count, tch_vec3 com_b,
                                        const tch_peg_params* params, tch_peg_constraints* out,
                                        tch_error* err) {
    out->count = out->contact_count = 0;
    if (a_count < 3 || b_count < 3) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "peg: a polygon needs at least 3 vertices, got %d and %d", a_count,
                        b_count);
    }
    if (tch_peg_check_proximity(params->proximity, err) != TCH_OK) {
        return TCH_ERR_INVALID_ARGUMENT;
    }
    tch_peg_contact* set = tch_peg_scratch(out, a_count > b_count ? a_count : b_count);
    if (!tch_peg_reset(out, a_count + b_count) || !set) {
        return tch_peg_out_of_memory(err);
    }
    const pair_2d pair = {{a, a_count, true}, {b, b_count, false}, com_a, com_b, params, out};
    int* marks_a = out->vertex_marks;
    int* marks_b = out->vertex_marks + a_count;
    for (int i = 0; i < a_count; ++i) {
        for (int j = 0; j < b_count; ++j) {
            if (tch_v3_dist(a[i], b[j]) > params->proximity) {
                continue;
            }
            marks_a[i] = marks_b[j] = 1;
            if (!vertex_vertex(&pair, i, j, set)) {
                return tch_peg_out_of_memory(err);
            }
        }
    }
    if (!vertex_edges(&pair, &pair.a, &pair.b, marks_a) ||
        !vertex_edges(&pair, &pair.b, &pair.a, marks_b)) {
        return tch_peg_out_of_memory(err);
    }
    return TCH_OK;
}
