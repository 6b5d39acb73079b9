/* Constraint rows on an articulated tree (contact/rows.h, TREE sides): the side of a row along
 * d_W at a point fixed to one of the tree's bodies, in the tree's generalized velocities. The
 * engine's constraints stage makes them for contacts on links (engine/constraint_tree.c), and
 * joint limits are rows of this kind (tch_tree_limit_side).
 */
#pragma once

#include "contact/rows.h"
#include "dynamics/tree.h"

/* Fills `side` as the TREE side of a row along unit d_W at the point p_W fixed to `body`, with
 * `sign` (+1: the side the row pushes along +d; -1: the other): J = sign d . J_lin(p) and
 * inv_J = A⁻¹ Jᵀ (Ruspini and Khatib, seeds/003 eq. 17), over the dofs first .. first + count,
 * which must hold the body's ancestors' (its subtree of the world: A is block diagonal over
 * them; tch_tree_solve_range); `tree_index` names that block for the coupling, and the solvers
 * read and move (*velocity)[first ..]. J and inv_J ([count] each) are the caller's; after
 * tch_tree_positions and tch_tree_factor. */
void tch_tree_row_side(const tch_tree* tree, const tch_tree_data* data, int tree_index, int first,
                       int count, int body, tch_vec3 p_W, tch_vec3 d_W, tch_real sign,
                       tch_real* const* velocity, tch_real* J, tch_real* inv_J,
                       tch_row_side* side);

/* The side of a joint limit's row on the n dofs dof .. dof + n - 1 of the range: J = direction
 * there (a hinge or slide: n = 1, +1 at the lower limit, -1 at the upper; a ball: n = 3, minus
 * the axis of its rotation), zero elsewhere, inv_J = A⁻¹ Jᵀ; as tch_tree_row_side otherwise. */
void tch_tree_limit_side(const tch_tree* tree, const tch_tree_data* data, int tree_index,
                         int first, int count, int dof, const tch_real* direction, int n,
                         tch_real* const* velocity, tch_real* J, tch_real* inv_J,
                         tch_row_side* side);
