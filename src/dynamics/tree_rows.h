/* Constraint rows on an articulated tree (contact/rows.h, TREE sides): the side of a row along
 * d_W at a point fixed to one of the tree's bodies, in the tree's generalized velocities. For
 * the articulated-bodies issue (13): its contacts, joint limits and peg's constraints produce
 * rows whose sides are these. Not used by the step yet.
 */
#pragma once

#include "contact/rows.h"
#include "dynamics/tree.h"

/* Fills `side` as the TREE side of a row along unit d_W at the point p_W fixed to `body`, with
 * `sign` (+1: the side the row pushes along +d; -1: the other): J = sign d . J_lin(p) and
 * inv_J = A⁻¹ Jᵀ (Ruspini and Khatib, seeds/003 eq. 17), over the tree's nv velocities, which
 * are qvel[dof .. dof + nv) of the whole system, `tree_index` naming the tree. J and inv_J
 * ([nv] each) and scratch ([3 nv]) are the caller's; after tch_tree_positions and
 * tch_tree_factor. */
void tch_tree_row_side(const tch_tree* tree, const tch_tree_data* data, int tree_index, int dof,
                       int body, tch_vec3 p_W, tch_vec3 d_W, tch_real sign, tch_real* J,
                       tch_real* inv_J, tch_real* scratch, tch_row_side* side);
