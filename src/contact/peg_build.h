/* Internals shared by the producers of peg's constraints (peg_constraints.c, the 2D cases,
 * peg_cases_3d.c): contacts from features, the primary heuristic, appending a constraint. */
#pragma once

#include "contact/peg_constraints.h"

/* A contact of a vertex against the plane (line in 2D) of a facet with outward unit normal
 * `facet_normal` through `on_plane`; `vertex_on_a` tells whose vertex it is. The gap is the
 * vertex's signed height over the plane; the normal is -facet_normal for a facet of B and
 * +facet_normal for a facet of A (from A toward B). Applicability and feasibility unset. */
tch_peg_contact tch_peg_vertex_facet_contact(bool vertex_on_a, int vertex, int facet, tch_vec3 v,
                                             tch_vec3 facet_normal, tch_vec3 on_plane,
                                             tch_vec3 com_a, tch_vec3 com_b);

/* The edge-edge contact of peg.md §5.1 between the lines of edge a0-a1 of A and b0-b1 of B
 * (not parallel), with B's edge orientation O_eb (eq. 27): n = sign(e_a . O_eb) e_a x e_b /
 * |e_a x e_b|, psi = n . (b0 - a0), point_a the closest point of A's line to B's line. */
tch_peg_contact tch_peg_edge_edge_contact(int edge_a, int edge_b, tch_vec3 a0, tch_vec3 a1,
                                          tch_vec3 b0, tch_vec3 b1, tch_vec3 orientation_b,
                                          tch_vec3 com_a, tch_vec3 com_b);

/* Whether a contact may be a primary: feasible, and applicable at least to its kind's
 * epsilon_theta (applicability_edge for edge-edge, applicability_facet otherwise). */
bool tch_peg_contact_qualifies(const tch_peg_contact* c, const tch_peg_params* params);

/* The primary of a set (peg.md §5.2, the authors' heuristic): among the contacts that are
 * feasible and applicable (at least their kind's epsilon_theta), the touching one (smallest
 * gap among gaps >= -tau), else the least violated (largest gap); when none qualifies, the
 * most applicable. */
int tch_peg_choose_primary(const tch_peg_contact* set, int count, const tch_peg_params* params);

/* Appends a constraint over `set` (copied, primary first, copies of a contact once; a U
 * takes set[0] and count 1). 0 when out of memory. */
int tch_peg_emit(tch_peg_constraints* out, tch_peg_kind kind, tch_feature_pair_kind source,
                 int feature_a, int feature_b, const tch_peg_contact* set, int count,
                 const tch_peg_params* params);

/* Drops every constraint implied by another (whose contacts are all among its own: its max
 * psi >= 0 then holds), the later of two equal ones; a kept X that implies a dropped U or I
 * takes over its force and friction (an I, a U when it has one contact). Exact: the set of
 * admitted configurations is unchanged, the LCP smaller (a face-face corner of two aligned
 * blocks: one U instead of two vertex-set I and an X of the same contact twice). */
void tch_peg_drop_implied(tch_peg_constraints* out);

/* Empties the lists and sizes the per-vertex scratch to `vertices` zeroed entries. */
int tch_peg_reset(tch_peg_constraints* out, int vertices);

/* TCH_ERR_INVALID_ARGUMENT unless the proximity is finite and >= 0. */
tch_status tch_peg_check_proximity(tch_real proximity, tch_error* err);

/* An out-of-memory failure of the producers. */
tch_status tch_peg_out_of_memory(tch_error* err);

/* The lists' scratch for `count` contacts (kept and grown), NULL when out of memory. */
tch_peg_contact* tch_peg_scratch(tch_peg_constraints* out, int count);
