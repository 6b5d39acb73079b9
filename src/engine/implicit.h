/* The linearly implicit (Rosenbrock-type) Euler integrator for stiff penalty contact
 * (docs/integrators.md).
 *
 * With the contact forces f(q, v) linearized about the step's start, K = ∂f/∂q and D = ∂f/∂v
 * (each force model's `linearize` op, contact/contact.h), one step of h solves
 *
 *     (M - h D - h^2 K) dv = h (f + h K v),   v+ = v + dv,   q+ = q (+) h v+
 *
 * over all free bodies, in centre-of-mass coordinates (v_WCm, w_W) per body. Written as a
 * correction of the semi-implicit Euler velocities v* = v + h M^-1 f, dv = h M^-1 f + x with
 *
 *     (M - h D - h^2 K) x = h^2 K v* + h D (v* - v)
 *
 * K is the springs' stiffness carried to the bodies, without the geometric part G of the
 * linearization (the wrench carried along by the turning contact frame, of the order of the
 * force times the lever arm, not symmetric, and indefinite under heavy loads): leaving it and
 * any antisymmetric part out is a W-method (any Jacobian approximation keeps the method
 * first-order consistent; the stiff modes are the springs'), and keeps the matrix symmetric
 * positive definite for the passive springs and dampers of penalty contact. It is factored by
 * a variable-band (skyline) Cholesky after a reverse Cuthill-McKee ordering of the bodies, all
 * in the step's arena.
 *
 * Friction stays semi-implicit as with the other integrators (contact/contact.h), but the
 * velocities it sees are predicted by this same correction applied to the normal forces alone.
  */
#pragma once

#include "contact/contact.h"
#include "touche/data.h"

/* Adds the implicit correction x to data->qvel, which holds v* on entry, with the forces
 * stage's results at the step's start in data (and its velocities in body_v_WCm, body_w_W).
 * Pairs whose model has no `linearize` op stay explicit. TCH_ERR_OUT_OF_MEMORY, or
 * TCH_ERR_DIVERGED when the system is not positive definite. */
tch_status tch_implicit_correct_velocities(const tch_model* model, tch_data* data,
                                           tch_error* err);

/* The same correction of a velocity prediction (v* = its velocities), after the normal forces:
 * friction then opposes the slip of the implicit step rather than that of an explicit one,
 * which stiff springs make meaningless (tch_stage_forces). */
tch_status tch_implicit_correct_prediction(const tch_model* model, tch_data* data,
                                           tch_velocity_prediction* prediction, tch_error* err);
