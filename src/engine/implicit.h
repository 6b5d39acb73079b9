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
 * K and D enter symmetrized (a W-method: any Jacobian approximation keeps the method first-order
 * consistent; the dropped antisymmetric part is the small geometric coupling of the moment
 * arms), so the matrix is symmetric and, for the passive springs and dampers of penalty
 * contact, positive definite: a variable-band (skyline) Cholesky factorization after a reverse
 * Cuthill-McKee ordering of the bodies, all in the step's arena.
 */
#pragma once

#include "touche/data.h"

/* Adds the implicit correction x to data->qvel, which holds v* on entry; qvel0 holds the
 * velocities at the step's start, and data the forces stage's results at that state. Pairs
 * whose model has no `linearize` op stay explicit. TCH_ERR_OUT_OF_MEMORY, or TCH_ERR_DIVERGED
 * when the system is not positive definite (a contact pulling harder than the step allows). */
tch_status tch_implicit_correct_velocities(const tch_model* model, tch_data* data,
                                           const tch_real* qvel0, tch_error* err);
