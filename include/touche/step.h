/// touche: advancing the simulation.
///
/// tch_step runs the pipeline of docs/design.md once:
///
///     kinematics -> collision (broad + narrow) -> contact forces -> dynamics -> integration
///
/// Each stage is public so that a user can read results between them; tch_step_begin runs
/// the stages up to the forces (so a haptic device can read them and add its own), and
/// tch_step_end finishes the step.
#pragma once

#include "touche/data.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Positions: body and geom world poses from qpos.
TCH_API void tch_stage_kinematics(const tch_model* model, tch_data* data);
/// Velocities: centre-of-mass and angular velocities in the world from qvel.
TCH_API void tch_stage_velocities(const tch_model* model, tch_data* data);
/// Broad and narrow phase: fills data->contacts (forces still zero).
TCH_API tch_status tch_stage_collision(const tch_model* model, tch_data* data, tch_error* err);
/// Contact models: fills contact forces and pair results and accumulates body forces,
/// together with gravity and the applied forces.
TCH_API tch_status tch_stage_forces(const tch_model* model, tch_data* data, tch_error* err);

/// All stages up to and including forces, at the current state.
TCH_API tch_status tch_step_begin(const tch_model* model, tch_data* data, tch_error* err);
/// Integrates one time step from the forces of tch_step_begin and advances time.
TCH_API tch_status tch_step_end(const tch_model* model, tch_data* data, tch_error* err);
/// One full step of model->timestep. Returns TCH_ERR_DIVERGED (naming the body) when the
/// state becomes non-finite.
TCH_API tch_status tch_step(const tch_model* model, tch_data* data, tch_error* err);
/// Runs the stages up to forces without advancing (for queries at the current state).
TCH_API tch_status tch_forward(const tch_model* model, tch_data* data, tch_error* err);

#ifdef __cplusplus
}
#endif
