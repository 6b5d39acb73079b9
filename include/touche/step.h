/// touche: advancing the simulation.
///
/// One step, tch_step = tch_step_begin + tch_step_end (the one diagram of the step; the code,
/// src/engine/step.c, and docs/design-notes.md follow it):
///
///     tch_step_begin, at the state (qpos, qvel):
///       kinematics     qpos -> body and geom poses, centres of mass, world inertias
///       velocities     qvel -> centre-of-mass and angular velocities in the world
///       collision      broad phase -> each candidate pair's geometry (the narrow phase's
///                      points, lcp's with its points kept from the last step, or the
///                      model's own: overlap volume, contact surface)
///                      -> data->contacts, data->pair_results
///       forces         gravity and applied forces; force models (point, volume, pressure):
///                      normal forces -> velocity prediction -> friction forces
///       accelerations  qacc (implicit integrator: from the forces' linearization)
///     tch_step_end, by the integrator:
///       semi-implicit Euler  v* = v + h qacc -> constraints (v* -> v+) -> q+ = q + h v+
///                            constraints: the constraint models' rows -> islands -> each
///                            island asleep or solved (solver chain) -> impulses to qvel and
///                            back to the models -> position correction
///       implicit Euler       v+ = v + h qacc -> q+ = q + h v+        (no constraint models)
///       RK4                  three more evaluations of begin's stages at intermediate
///                            states; the step reports the first's contacts (no constraint
///                            models)
///       then                 time += h, divergence check, kinematics and velocities of the
///                            new state
///
/// A step computes the kinematics and velocities once: tch_step_begin reuses those that
/// tch_step_end left while qpos and qvel are unchanged (bit for bit), and recomputes them after
/// any change to the state. Each tch_stage_* function is public so that a user can read results
/// between stages; tch_step_begin runs the stages up to the forces (so a haptic device can
/// read them and add its own), and tch_step_end finishes the step.
#pragma once

#include "touche/data.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Positions: body and geom world poses, centres of mass and world inertias from qpos.
TCH_API void tch_stage_kinematics(const tch_model* model, tch_data* data);
/// Velocities: centre-of-mass and angular velocities in the world from qvel.
TCH_API void tch_stage_velocities(const tch_model* model, tch_data* data);
/// Broad and narrow phase: fills data->contacts (forces still zero).
TCH_API tch_status tch_stage_collision(const tch_model* model, tch_data* data, tch_error* err);
/// Contact models: fills contact forces and pair results and accumulates body forces,
/// together with gravity and the applied forces.
TCH_API tch_status tch_stage_forces(const tch_model* model, tch_data* data, tch_error* err);
/// Constraint models (lcp): from the velocities in qvel after the velocity update (v*), solves
/// the impulses of the last collision stage's constraint pairs, island by island, at the poses
/// of the kinematics, and applies them to qvel (v+) for a step of model->timestep. Fills their
/// contacts' and pair results' forces (impulse / h) and the constraint_* diagnostics of the
/// data; only clears the diagnostics when there is no constraint pair. Never fails: an island
/// whose solver fails falls back along a chain that ends in a solver that never adds energy
/// (docs/contact-lcp.md, "Fallbacks").
TCH_API void tch_stage_constraints(const tch_model* model, tch_data* data);

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
