/* A free body's angular velocity over one step of semi-implicit Euler with the gyroscopic term
 * implicit (docs/integrators.md, "The gyroscopic term").
 *
 * Euler's equation about the centre of mass in body axes, I the inertia there, tau the torque:
 *
 *     I dw/dt + w x (I w) = tau
 *
 * The step solves it by the implicit midpoint rule, with m = (w + w+) / 2:
 *
 *     I (w+ - w) + h m x (I m) = h tau                                                  (1)
 *
 * What (1) keeps, for any h (our derivation): dotted with m, the gyroscopic part drops
 * (m . (m x I m) = 0) and (w+ - w) . I (w+ + w) / 2 = h tau . m, so the kinetic energy changes
 * by exactly the work of the torque at the mean velocity, h tau . m, and not at all without
 * torque. Dotted with I m, without torque, |I w+| = |I w|: the magnitude of the angular
 * momentum is kept too (then I w+ is I w turned by a rotation, the Cayley transform of
 * -h m). Its direction in the world drifts at first order: the position update turns the body
 * by exp(h [w+]x) (tch_free_body_advance_position), which is not that rotation.
 *
 * The explicit term, w+ = w + h I^-1 (tau - w x I w), gains h^2/2 |w x I w|^2_{I^-1} of energy
 * at every step without torque (w . (w x I w) = 0 leaves only the square), without bound once
 * h |w| nears 1 rad: a hull spun to 70 rad/s at h = 15 ms ran away to 1.7e4 rad/s.
 *
 * Others: Bullet (btRigidBody::computeGyroscopicImpulseImplicit_Body) and Catto ("Numerical
 * Methods", GDC 2015) take one Newton step of backward Euler, I (w+ - w) + h w+ x I w+ = h tau:
 * solved to convergence it dissipates fast (the tennis racket of docs/integrators.md kept 4 %
 * of its energy after 500 steps of 0.6 rad), and one Newton step is unbounded (it leaves
 * E+ - E = -d . I d / 2 - h w . (I d x d), d = w+ - w, of either sign; it gained energy at
 * 1 rad per step). A variant that keeps the world momentum exactly, I w+ = exp(-h [w+]x) I w,
 * never gains energy but drives every tumbling body to its major axis (a spin near the minor
 * axis lost 44 % of its energy in 5 s at h = 1 ms): rejected, a rigid body does not do that.
 * docs/integrators.md, "The gyroscopic term", has the figures.
 *
 * Solve: Newton's method on F(w+) = I (w+ - w) + h m x (I m) - h tau, Jacobian
 * I + h/2 ([m]x I - [I m]x), from w + h I^-1 tau, halving the step until |F| decreases. Two to
 * four iterations up to h |w| = 1 rad. Where it does not converge (several rad per step) it
 * continues in h (the solutions for h/K, 2h/K, .. h, K = 4, 16, 64); past that it returns the
 * last iterate scaled down to the energy of w + h I^-1 tau, so that the step adds no energy
 * beyond the torque's impulse. */
#pragma once

#include <stdbool.h>

#include "math/vec.h"

/* w+ of (1) for the body inertia I (symmetric positive definite, I_inv its inverse), the
 * angular velocity w and the torque tau, body axes, over h. Returns true when (1) holds to
 * 64 machine epsilons of its terms' size, false when it returned the energy-bounded
 * fallback. */
bool tch_spin_step(tch_mat3 I, tch_mat3 I_inv, tch_vec3 w, tch_vec3 tau, tch_real h,
                   tch_vec3* w_out);
