/* Constraint rows on an articulated tree (dynamics/tree_rows.h). */
#include "dynamics/tree_rows.h"

#include <string.h>

void tch_tree_row_side(const tch_tree* tree, const tch_tree_data* data, int tree_index, int dof,
                       int body, tch_vec3 p_W, tch_vec3 d_W, tch_real sign, tch_real* J,
                       tch_real* inv_J, tch_real* scratch, tch_row_side* side) {
    int nv = tree->nv;
    tch_tree_point_jacobian(tree, data, body, p_W, NULL, scratch);
    for (int k = 0; k < nv; ++k) {
        J[k] = sign * (d_W.x * scratch[k] + d_W.y * scratch[nv + k] + d_W.z * scratch[2 * nv + k]);
    }
    memcpy(inv_J, J, (size_t)nv * sizeof *inv_J);
    tch_tree_solve_rows(tree, data, 1, inv_J);
    memset(side, 0, sizeof *side);
    side->kind = TCH_ROW_SIDE_TREE;
    side->tree = (short)tree_index;
    side->dof = dof;
    side->count = nv;
    side->J = J;
    side->inv_J = inv_J;
}
