/* The adaptive integrator (TCH_INTEGRATOR_ADAPTIVE, docs/integrators.md, "The adaptive
 * integrator"): one tch_step of h advanced by SUNDIALS ARKODE's ARKStep with the L-stable,
 * stiffly accurate SDIRK-5-3-4 table (Hairer and Wanner, Solving ODEs II, sec. IV.6) in
 * internal steps of variable size, to the model's adaptive_rtol and adaptive_atol.
 *
 * The state is (qpos, qvel) of the free bodies; the right-hand side is the whole pipeline
 * (kinematics, collision, forces, accelerations) at the stage's state, run by the caller's
 * `evaluate` without committing contact state; the Newton Jacobian is SUNDIALS' dense
 * difference quotient of it (13 evaluations per free body). Quaternions are integrated as
 * qpos components (dq/dt = 1/2 q (0, w_B)), read normalized by each evaluation, and
 * renormalized once the step is done.
 */
#pragma once

#include "touche/data.h"
#include "touche/model.h"

typedef struct tch_adaptive tch_adaptive;

/* The pipeline at the state in data->qpos and data->qvel, ending with data->qacc. */
typedef tch_status (*tch_adaptive_evaluate)(const tch_model* model, tch_data* data,
                                            tch_error* err);

/* Advances data->qpos and data->qvel by model->timestep; *solver is created at the first call
 * (kept for the data's life) and reset at every later one. Fills data->adaptive_step and adds
 * it to data->adaptive_total. Fails with the evaluation's error, TCH_ERR_OUT_OF_MEMORY, or
 * TCH_ERR_NUMERICAL when ARKODE gives up (its message quoted). */
tch_status tch_adaptive_advance(const tch_model* model, tch_data* data, tch_adaptive** solver,
                                tch_adaptive_evaluate evaluate, tch_error* err);

/* Frees what tch_adaptive_advance created; NULL is allowed. */
void tch_adaptive_destroy(tch_adaptive* solver);
