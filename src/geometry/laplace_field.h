/* Laplace pressure fields on tetrahedral meshes (Elandt et al., sec. VI-A2, eq. 4).
 *
 * The penetration extent epsilon of a compliant body is harmonic in its interior,
 *
 *     ∇²ε = 0   in Ω,      ε = 0 on the surface ∂Ω,      ε = 1 on the chosen interior set
 *
 * (medial or core vertices, or any set the user names). With linear (P1) finite elements on the
 * tet mesh, each tet T contributes V_T ∇φ_i · ∇φ_j to the stiffness matrix K, where φ_i are the
 * barycentric (hat) functions; the Dirichlet rows are eliminated,
 *
 *     K_ff ε_f = -K_fc ε_c,
 *
 * and the SPD system is solved with CHOLMOD's sparse Cholesky (SuiteSparse). Linear fields are
 * reproduced exactly, which the tests use.
 */
#pragma once

#include "touche/base.h"

/* Solves for the field. `fixed[v]` is the prescribed value of vertex v, or NaN for a free
 * vertex; `values[vertex_count]` receives the field (fixed vertices copied). Tets are 4 vertex
 * indices each with positive orientation. Fails with TCH_ERR_INVALID_ARGUMENT (no fixed vertex,
 * index out of range, degenerate tet) or TCH_ERR_NUMERICAL (the free block is not positive
 * definite, e.g. a free vertex in no tet). */
tch_status tch_laplace_field_solve(const tch_vec3* vertices, int vertex_count,
                                   const int (*tets)[4], int tet_count, const tch_real* fixed,
                                   tch_real* values, tch_error* err);
