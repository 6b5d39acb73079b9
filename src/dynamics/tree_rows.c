/* Constraint rows on an articulated tree (dynamics/tree_rows.h). */
#include "dynamics/tree_rows.h"

#include <string.h>

/* A TREE side over the range with J already in place: inv_J = A⁻¹ Jᵀ. */
static void finish_side(const tch_tree* tree, const tch_tree_data* data, int tree_index,
                        int first, int count, tch_real* const* velocity, tch_real* J,
                        tch_real* inv_J, tch_row_side* side) {
    memcpy(inv_J, J, (size_t)count * sizeof *inv_J);
    tch_tree_solve_range(tree, data, first, count, inv_J);
    memset(side, 0, sizeof *side);
    side->kind = TCH_ROW_SIDE_TREE;
    side->tree = (short)tree_index;
    side->dof = first;
    side->count = count;
    side->J = J;
    side->inv_J = inv_J;
    side->velocity = velocity;
}

void tch_tree_row_side(const tch_tree* tree, const tch_tree_data* data, int tree_index, int first,
                       int count, int body, tch_vec3 p_W, tch_vec3 d_W, tch_real sign,
                       tch_real* const* velocity, tch_real* J, tch_real* inv_J,
                       tch_row_side* side) {
    tch_tree_point_jacobian_along(tree, data, body, p_W, tch_v3_scale(d_W, sign), first, count,
                                  J);
    finish_side(tree, data, tree_index, first, count, velocity, J, inv_J, side);
}

void tch_tree_limit_side(const tch_tree* tree, const tch_tree_data* data, int tree_index,
                         int first, int count, int dof, const tch_real* direction, int n,
                         tch_real* const* velocity, tch_real* J, tch_real* inv_J,
                         tch_row_side* side) {
    memset(J, 0, (size_t)count * sizeof *J);
    memcpy(J + (dof - first), direction, (size_t)n * sizeof *J);
    finish_side(tree, data, tree_index, first, count, velocity, J, inv_J, side);
}
