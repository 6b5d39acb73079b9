/* The linearly implicit (Rosenbrock-type) Euler integrator for stiff penalty contact
 * (docs/integrators.md).
 *
 * With the contact forces f(q, v) linearized about the step's start, K = ∂f/∂q and D = ∂f/∂v
 * (each force model's `linearize` op, contact/contact.h), one step of h solves
 *
 *     (M - h D - h^2 K) dv = h (f + h K v),   v+ = v + dv,   q+ = q (+) h v+
 *
 * over all free bodies, in centre-of-mass coordinates (v_WCm, w_W) per body, and over the
 * generalized velocities of every tree with a link in contact or in an equality: there M is
 * the step's joint-space matrix A + h D_J + h^2 K_J (with the joints' own springs, dampers,
 * limits and friction, dynamics/articulation.c) and a pair's K and D on a link's twist are
 * carried to the tree by the link's Jacobian J at its centre of mass, J^T K J
 * (docs/articulated.md, "Implicit contact on links"); an equality spring is one more pair
 * (K = -k G^T G on its two roots' twists). Written as a
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
 * a sparse block Cholesky (solver/block_cholesky.h: 6x6 blocks, the bodies in approximate
 * minimum degree order, the order and pattern kept while the same bodies touch).
 *
 * Once per evaluation of the pipeline (engine/step.c): the forces stage applies the normal
 * forces, builds and factors the system, corrects friction's velocity prediction with it (so
 * that friction, semi-implicit as with the other integrators, opposes the slip of the implicit
 * step), applies friction; after the accelerations, the same factorization corrects them to
 * qacc = dv / h, and the integration is semi-implicit Euler's update.
 */
#pragma once

#include "contact/contact.h"
#include "engine/checkpoint_stream.h"
#include "touche/data.h"

typedef struct tch_implicit_system tch_implicit_system;

/* What the integrator keeps per data between evaluations: the last system and its factor,
 * reused while the pairs and bodies stay where they were (implicit.c). Created at the first
 * tch_implicit_prepare, in tch_data_internal.implicit. */
typedef struct tch_implicit_cache tch_implicit_cache;

void tch_implicit_cache_destroy(tch_implicit_cache* cache);

/* Heap allocations the cache has made (grown), for tch_data.heap_allocation_count. */
long tch_implicit_cache_allocations(const tch_implicit_cache* cache);

/* Linearizes the pairs at the current state (after their normal forces), assembles
 * M - h D - h^2 K and factors it, in the data's cache (or reuses the cache's system when the
 * pairs and bodies have not moved). *system is NULL when out of memory, else set even on
 * failure (then correcting nothing). Pairs whose model has no `linearize` op stay
 * explicit. TCH_ERR_OUT_OF_MEMORY, or TCH_ERR_DIVERGED when the matrix is not positive
 * definite. */
tch_status tch_implicit_prepare(const tch_model* model, tch_data* data,
                                tch_implicit_system** system, tch_error* err);

/* Corrects a velocity prediction (v* = its velocities, after the normal forces) by the
 * system: friction then opposes the slip of the implicit step rather than that of an explicit
 * one, which stiff springs make meaningless (tch_stage_forces). */
void tch_implicit_correct_prediction(tch_implicit_system* system, const tch_model* model,
                                     const tch_data* data, tch_velocity_prediction* prediction);

/* Adds x / h to data->qacc, so that semi-implicit Euler's update v += h qacc; q += h v is the
 * implicit step (v* = v + h qacc on entry: all forces, friction included). */
void tch_implicit_correct_accelerations(tch_implicit_system* system, const tch_model* model,
                                        tch_data* data);

/* Writes the kept system for a checkpoint (engine/checkpoint.c; the cache may be NULL), and
 * reads it back into data's cache (s->failed set when inconsistent), so that the restored data
 * reuses the same system as the one that was saved. */
void tch_implicit_cache_put(tch_stream* s, const tch_model* model, const tch_implicit_cache* cache);
void tch_implicit_cache_get(tch_stream* s, const tch_model* model, tch_data* data);
