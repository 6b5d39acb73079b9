/* peg's constraints: contacts, the primary heuristic, rows and values (peg_constraints.h). */
#include "contact/peg_constraints.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "contact/peg_build.h"
#include "math/vec.h"

tch_peg_params tch_peg_params_default(int dimension, tch_real h) {
    /* peg.md §5: the authors' code; 2D uses -0.25 for vertex-edge, 3D -0.3 vertex-face and
     * -0.1 edge-edge; the separating-axis X of §6.6 was measured there with -0.1. */
    return (tch_peg_params){
        .proximity = tch_features_default_proximity(dimension, h),
        .applicability_facet = dimension == 2 ? -0.25 : -0.3,
        .applicability_edge = -0.1,
        .applicability_corner = -0.1,
        .depth_tolerance = 0.0025,
        .feasibility_angle = 0.4,
        .touch_tolerance = 1e-3,
        .flat_edge_cosine = 0.995,
        .parallel_sine = 0.01,
    };
}

void tch_peg_constraints_init(tch_peg_constraints* out) {
    memset(out, 0, sizeof *out);
    tch_feature_pairs_init(&out->pairs);
}

void tch_peg_constraints_free(tch_peg_constraints* out) {
    free(out->contacts);
    free(out->constraints);
    free(out->vertex_marks);
    free(out->scratch);
    free(out->vertex_faces);
    free(out->edge_contacts);
    free(out->edge_state);
    tch_feature_pairs_free(&out->pairs);
    tch_peg_constraints_init(out);
}

int tch_peg_reset(tch_peg_constraints* out, int vertices) {
    out->contact_count = 0;
    out->count = 0;
    if (vertices > out->mark_capacity) {
        int* grown = realloc(out->vertex_marks, (size_t)vertices * sizeof *grown);
        if (!grown) {
            return 0;
        }
        out->vertex_marks = grown;
        out->mark_capacity = vertices;
    }
    if (vertices > 0) {
        memset(out->vertex_marks, 0, (size_t)vertices * sizeof *out->vertex_marks);
    }
    return 1;
}

/* peg.md §1: side B (n, r_b x n), side A (-n, r_a x (-n)), r = point - centre of mass. */
static tch_peg_jacobian contact_jacobian(tch_vec3 point_a, tch_vec3 n, tch_real gap, tch_vec3 com_a,
                                         tch_vec3 com_b) {
    const tch_vec3 point_b = tch_v3_madd(point_a, gap, n);
    tch_peg_jacobian j;
    j.lin[0] = n;
    j.ang[0] = tch_v3_cross(tch_v3_sub(point_b, com_b), n);
    j.lin[1] = tch_v3_neg(n);
    j.ang[1] = tch_v3_cross(tch_v3_sub(point_a, com_a), tch_v3_neg(n));
    return j;
}

tch_peg_contact tch_peg_vertex_facet_contact(bool vertex_on_a, int vertex, int facet, tch_vec3 v,
                                             tch_vec3 facet_normal, tch_vec3 on_plane,
                                             tch_vec3 com_a, tch_vec3 com_b) {
    const tch_real height = tch_v3_dot(facet_normal, tch_v3_sub(v, on_plane));
    tch_peg_contact c = {0};
    c.gap = height;
    if (vertex_on_a) {
        c.kind = TCH_PEG_VERTEX_FACET;
        c.feature_a = vertex;
        c.feature_b = facet;
        c.point_a = v;
        c.normal = tch_v3_neg(facet_normal);
    } else {
        c.kind = TCH_PEG_FACET_VERTEX;
        c.feature_a = facet;
        c.feature_b = vertex;
        c.point_a = tch_v3_madd(v, -height, facet_normal);
        c.normal = facet_normal;
    }
    c.jacobian = contact_jacobian(c.point_a, c.normal, c.gap, com_a, com_b);
    return c;
}

tch_peg_contact tch_peg_edge_edge_contact(int edge_a, int edge_b, tch_vec3 a0, tch_vec3 a1,
                                          tch_vec3 b0, tch_vec3 b1, tch_vec3 orientation_b,
                                          tch_vec3 com_a, tch_vec3 com_b) {
    const tch_vec3 ea = tch_v3_sub(a1, a0);
    tch_vec3 n = tch_v3_normalize(tch_v3_cross(ea, tch_v3_sub(b1, b0)));
    if (tch_v3_dot(ea, orientation_b) < 0) {
        n = tch_v3_neg(n);
    }
    /* the closest point of A's line to B's: there psi' = J nu holds to first order (at
     * another point of the line the turning of n would add a term) */
    const tch_vec3 eb = tch_v3_sub(b1, b0), r = tch_v3_sub(a0, b0);
    const tch_real uu = tch_v3_dot(ea, ea), uw = tch_v3_dot(ea, eb), ww = tch_v3_dot(eb, eb);
    const tch_real s = (uw * tch_v3_dot(eb, r) - ww * tch_v3_dot(ea, r)) / (uu * ww - uw * uw);
    tch_peg_contact c = {0};
    c.kind = TCH_PEG_EDGE_EDGE;
    c.feature_a = edge_a;
    c.feature_b = edge_b;
    c.point_a = tch_v3_madd(a0, s, ea);
    c.normal = n;
    c.gap = tch_v3_dot(n, tch_v3_sub(b0, a0)); /* the same for any points of the two lines */
    c.jacobian = contact_jacobian(c.point_a, n, c.gap, com_a, com_b);
    return c;
}

bool tch_peg_contact_qualifies(const tch_peg_contact* c, const tch_peg_params* params) {
    const tch_real least =
        c->kind == TCH_PEG_EDGE_EDGE ? params->applicability_edge : params->applicability_facet;
    return c->feasible && c->applicability >= least;
}

/* Gaps (m) and applicabilities closer than these are ties: rounding must not flip a primary
 * between two contacts at the same gap (the corners of blocks stacked face to face), which
 * would change the constraint's warm start and keep its island awake. */
static const tch_real GAP_TIE = 1e-9, APPLICABILITY_TIE = 1e-9;

/* Whether contact c beats the best so far on its gap (`smaller`: the smaller gap wins), ties
 * going to the more applicable, then to the first. */
static bool beats(const tch_peg_contact* c, const tch_peg_contact* best, bool smaller) {
    if (fabs(c->gap - best->gap) <= GAP_TIE) {
        return c->applicability > best->applicability + APPLICABILITY_TIE;
    }
    return smaller ? c->gap < best->gap : c->gap > best->gap;
}

int tch_peg_choose_primary(const tch_peg_contact* set, int count, const tch_peg_params* params) {
    int touching = -1, least_violated = -1, most_applicable = 0;
    for (int i = 0; i < count; ++i) {
        if (set[i].applicability > set[most_applicable].applicability) {
            most_applicable = i;
        }
        if (!tch_peg_contact_qualifies(&set[i], params)) {
            continue;
        }
        if (set[i].gap >= -params->touch_tolerance &&
            (touching < 0 || beats(&set[i], &set[touching], true))) {
            touching = i;
        }
        if (least_violated < 0 || beats(&set[i], &set[least_violated], false)) {
            least_violated = i;
        }
    }
    return touching >= 0 ? touching : least_violated >= 0 ? least_violated : most_applicable;
}

static int push_contact(tch_peg_constraints* out, const tch_peg_contact* c) {
    if (out->contact_count == out->contact_capacity) {
        const int capacity = out->contact_capacity ? 2 * out->contact_capacity : 32;
        tch_peg_contact* grown = realloc(out->contacts, (size_t)capacity * sizeof *grown);
        if (!grown) {
            return 0;
        }
        out->contacts = grown;
        out->contact_capacity = capacity;
    }
    out->contacts[out->contact_count++] = *c;
    return 1;
}

/* Contacts closer than these are one row of the LCP (same normal, point and gap): the
 * coincident corners of blocks stacked face to face give each corner's contact from both
 * sides (a vertex of A on B's face, B's vertex under A's face), and such copies make the
 * LCP's columns dependent. Radians, m, m. */
static const tch_real SAME_NORMAL = 1e-9, SAME_POINT = 1e-9;

static bool same_row(const tch_peg_contact* a, const tch_peg_contact* b) {
    return fabs(a->gap - b->gap) <= GAP_TIE &&
           tch_v3_norm(tch_v3_cross(a->normal, b->normal)) <= SAME_NORMAL &&
           tch_v3_dot(a->normal, b->normal) > 0 &&
           tch_v3_dist(a->point_a, b->point_a) <= SAME_POINT;
}

/* The constraint's contact of which c is a copy, or -1. */
static int copy_in(const tch_peg_constraints* out, const tch_peg_constraint* constraint,
                   const tch_peg_contact* c) {
    for (int i = constraint->first; i < constraint->first + constraint->count; ++i) {
        if (same_row(&out->contacts[i], c)) {
            return i;
        }
    }
    return -1;
}

static bool in_constraint(const tch_peg_constraints* out, const tch_peg_constraint* constraint,
                          const tch_peg_contact* c) {
    return copy_in(out, constraint, c) >= 0;
}

/* Merges copy c into the kept contact: the kept one is the first by (kind, features), so that
 * rounding does not change which copy stands for the row (its warm start is matched on it);
 * it qualifies as a primary when either copy does. */
static void merge_copy(tch_peg_contact* kept, const tch_peg_contact* c) {
    const bool feasible = kept->feasible || c->feasible;
    const tch_real applicability = fmax(kept->applicability, c->applicability);
    const bool c_first = c->kind != kept->kind ? c->kind < kept->kind
                         : c->feature_a != kept->feature_a ? c->feature_a < kept->feature_a
                                                           : c->feature_b < kept->feature_b;
    if (c_first) {
        *kept = *c;
    }
    kept->feasible = feasible;
    kept->applicability = applicability;
}

int tch_peg_emit(tch_peg_constraints* out, tch_peg_kind kind, tch_feature_pair_kind source,
                 int feature_a, int feature_b, const tch_peg_contact* set, int count,
                 const tch_peg_params* params) {
    if (count <= 0) {
        return 1;
    }
    if (kind == TCH_PEG_U) {
        count = 1;
    }
    if (out->count == out->capacity) {
        const int capacity = out->capacity ? 2 * out->capacity : 16;
        tch_peg_constraint* grown = realloc(out->constraints, (size_t)capacity * sizeof *grown);
        if (!grown) {
            return 0;
        }
        out->constraints = grown;
        out->capacity = capacity;
    }
    tch_peg_constraint constraint = {kind, source, feature_a, feature_b, out->contact_count, 0};
    for (int i = 0; i < count; ++i) {
        const int copy = copy_in(out, &constraint, &set[i]);
        if (copy >= 0) {
            merge_copy(&out->contacts[copy], &set[i]);
        } else if (push_contact(out, &set[i])) {
            constraint.count++;
        } else {
            return 0;
        }
    }
    tch_peg_contact* contacts = out->contacts + constraint.first;
    const int primary =
        constraint.count > 1 ? tch_peg_choose_primary(contacts, constraint.count, params) : 0;
    const tch_peg_contact chosen = contacts[primary]; /* first, the others in order */
    memmove(contacts + 1, contacts, (size_t)primary * sizeof *contacts);
    contacts[0] = chosen;
    if (constraint.kind == TCH_PEG_I && constraint.count == 1) {
        constraint.kind = TCH_PEG_U;
    }
    out->constraints[out->count++] = constraint;
    return 1;
}

/* Whether every contact of constraint `small` is one of constraint `big`'s. */
static bool contacts_within(const tch_peg_constraints* out, const tch_peg_constraint* small,
                            const tch_peg_constraint* big) {
    for (int i = small->first; i < small->first + small->count; ++i) {
        if (!in_constraint(out, big, &out->contacts[i])) {
            return false;
        }
    }
    return true;
}

/* Whether constraint i is implied by another of the list (drop_implied). */
static int implying(const tch_peg_constraints* out, int i) {
    const tch_peg_constraint* c = &out->constraints[i];
    for (int j = 0; j < out->count; ++j) {
        const tch_peg_constraint* other = &out->constraints[j];
        if (j != i && other->count > 0 && contacts_within(out, other, c) &&
            (j < i || !contacts_within(out, c, other))) {
            return j;
        }
    }
    return -1;
}

void tch_peg_drop_implied(tch_peg_constraints* out) {
    for (int i = 0; i < out->count; ++i) {
        const int j = implying(out, i);
        if (j < 0) {
            continue;
        }
        tch_peg_constraint* kept = &out->constraints[j];
        if (out->constraints[i].kind != TCH_PEG_X && kept->kind == TCH_PEG_X) {
            kept->kind = TCH_PEG_I; /* it takes over the dropped one's force and friction */
        }
        if (kept->kind == TCH_PEG_I && kept->count == 1) {
            kept->kind = TCH_PEG_U;
        }
        out->constraints[i].count = 0;
    }
    int kept = 0;
    for (int i = 0; i < out->count; ++i) {
        if (out->constraints[i].count > 0) {
            out->constraints[kept++] = out->constraints[i];
        }
    }
    out->count = kept;
}

tch_real tch_peg_constraint_value(const tch_peg_constraints* list, int constraint) {
    const tch_peg_constraint* c = &list->constraints[constraint];
    tch_real largest = -INFINITY;
    for (int i = c->first; i < c->first + c->count; ++i) {
        largest = fmax(largest, list->contacts[i].gap);
    }
    return largest;
}

bool tch_peg_constraints_hold(const tch_peg_constraints* list) {
    for (int i = 0; i < list->count; ++i) {
        if (!(tch_peg_constraint_value(list, i) >= 0)) {
            return false;
        }
    }
    return true;
}

bool tch_peg_constraint_trapped(const tch_peg_constraints* list, int constraint) {
    const tch_peg_constraint* c = &list->constraints[constraint];
    bool violated = false;
    for (int k = c->first; k < c->first + c->count; ++k) {
        violated |= list->contacts[k].gap < 0;
    }
    return c->kind != TCH_PEG_U && violated && tch_peg_constraint_value(list, constraint) >= 0;
}

int tch_peg_constraints_trap_count(const tch_peg_constraints* list) {
    int traps = 0;
    for (int i = 0; i < list->count; ++i) {
        traps += tch_peg_constraint_trapped(list, i);
    }
    return traps;
}

void tch_peg_constraint_row(const tch_peg_constraints* list, int constraint, int row,
                            tch_real* value, tch_peg_jacobian* jacobian) {
    const tch_peg_constraint* c = &list->constraints[constraint];
    const tch_peg_contact* primary = &list->contacts[c->first];
    *value = primary->gap;
    *jacobian = primary->jacobian;
    if (row == 0) {
        return;
    }
    /* eq. 42: primary minus secondary */
    const tch_peg_contact* other = &list->contacts[c->first + row];
    *value -= other->gap;
    for (int side = 0; side < 2; ++side) {
        jacobian->lin[side] = tch_v3_sub(jacobian->lin[side], other->jacobian.lin[side]);
        jacobian->ang[side] = tch_v3_sub(jacobian->ang[side], other->jacobian.ang[side]);
    }
}

tch_real tch_peg_jacobian_dot(const tch_peg_jacobian* j, tch_vec3 v_a, tch_vec3 w_a, tch_vec3 v_b,
                              tch_vec3 w_b) {
    return tch_v3_dot(j->lin[0], v_b) + tch_v3_dot(j->ang[0], w_b) + tch_v3_dot(j->lin[1], v_a) +
           tch_v3_dot(j->ang[1], w_a);
}

const char* tch_peg_kind_name(tch_peg_kind kind) {
    switch (kind) {
    case TCH_PEG_U:
        return "U";
    case TCH_PEG_I:
        return "I";
    case TCH_PEG_X:
        return "X";
    }
    return "?";
}

const char* tch_peg_source_name(tch_feature_pair_kind source) {
    switch (source) {
    case TCH_FEATURE_VERTEX_FACE:
        return "vertex-face";
    case TCH_FEATURE_FACE_VERTEX:
        return "face-vertex";
    case TCH_FEATURE_EDGE_EDGE:
        return "edge-edge";
    case TCH_FEATURE_VERTEX_EDGE:
        return "vertex-edge";
    case TCH_FEATURE_EDGE_VERTEX:
        return "edge-vertex";
    case TCH_FEATURE_VERTEX_VERTEX:
        return "vertex-vertex";
    }
    return "?";
}

tch_status tch_peg_check_proximity(tch_real proximity, tch_error* err) {
    if (!(proximity >= 0) || !isfinite(proximity)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "peg: contact proximity must be finite and >= 0, got %g", proximity);
    }
    return TCH_OK;
}

tch_status tch_peg_out_of_memory(tch_error* err) {
    return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory (peg constraints)");
}

tch_peg_contact* tch_peg_scratch(tch_peg_constraints* out, int count) {
    if (count > out->scratch_capacity) {
        tch_peg_contact* grown = realloc(out->scratch, (size_t)count * sizeof *grown);
        if (!grown) {
            return NULL;
        }
        out->scratch = grown;
        out->scratch_capacity = count;
    }
    return out->scratch;
}
