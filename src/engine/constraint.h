/* The constraint stage: velocity-level time stepping for the pairs of CONSTRAINT contact models
 * (the `lcp` model; docs/contact-lcp.md).
 *
 * Called by semi-implicit Euler between the velocity update and the position update:
 *
 *     v* = v + h M⁻¹ f_ext            (qvel, already updated; force models' wrenches included)
 *     v+ = v* + M⁻¹ Jᵀ p              (this stage: p from one complementarity problem per island)
 *     q+ = q + h v+                   (then the position update)
 *
 * which is Stewart and Trinkle's subproblem (reference/peg.md eqs. 5-9, with friction as in
 * sec. 8) with Anitescu and Potra's linearized cone. The models describe the rows (contact.h,
 * build_rows; contact/rows.h): per contact a normal row with the target J_n v+ >= b and
 * friction coupled to it by mu, as `cone_edges` friction directions with the Stewart-Trinkle
 * beta/lambda rows (Lemke) or two tangent rows whose impulse lies in the disc of mu times the
 * normal impulse (matrix-free PGS with sparse subspace steps, engine/constraint_pgs.h). The
 * stage groups the contacts into islands (connected components of free bodies through contacts;
 * static bodies do not connect), lets islands at rest sleep (docs/contact-lcp.md, "Sleeping
 * islands"), solves each other island on its own along a chain of solvers, applies the impulses
 * to qvel, hands them back to the models (take_impulses: forces p / h, warm starts), and
 * corrects positions. Its parts: engine/constraint_stage.h.
 */
#pragma once

#include "solver/sparse_spd.h"
#include "touche/data.h"

/* Persistent scratch sized by the model: the island union-find, the sparse Cholesky context of
 * the row solver's subspace steps (engine/constraint_pgs.h), the rest counts that put islands
 * to sleep, and the user's island observer. */
typedef struct tch_constraint_workspace {
    int* island_parent;   /* [body_count] union-find parent of each free root */
    int* rest_steps;      /* [body_count] steps in a row each free root ended at rest in an
                           * island (docs/contact-lcp.md, "Sleeping islands") */
    tch_real* reach;      /* [body_count] the largest bounding radius of each root's geoms, m */
    tch_sparse_spd* subspace;
    tch_island_observer observer;   /* tch_data_observe_islands, or NULL */
    void* observer_user;
} tch_constraint_workspace;

/* Returns 0, or -1 when out of memory. */
int tch_constraint_workspace_init(tch_constraint_workspace* workspace, const tch_model* model);
void tch_constraint_workspace_free(tch_constraint_workspace* workspace);

/* Does nothing but clear the diagnostics when the step has no constraint pairs. Otherwise solves
 * the constraint pairs' impulses for a step of h from the velocities in data->qvel (v*)
 * at the poses of the step's start, and applies them to qvel; the models fill their contacts'
 * f_W, the pair results' f_W and tau_Wo_W and the bodies' force totals (take_impulses, for a step
 * of model->timestep, which h is), the stage the constraint diagnostics of tch_data.
 * Never fails: an island whose solver fails falls back along a chain of solvers
 * (docs/contact-lcp.md, "Fallbacks"), ending with PGS on the normal rows from zero, which never
 * adds energy; data->constraint_failed_islands and constraint_path_islands say what was used. */
void tch_constraint_stage(const tch_model* model, tch_data* data, tch_real h);
