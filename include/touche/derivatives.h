/// touche: derivatives of one step by finite differences (docs/derivatives.md), as MuJoCo's
/// mjd_transitionFD: the step is a map x' = f(x, u) of the state x = (dq, qvel) and the
/// controls u = ctrl, and
///
///     A = dx'/dx   [2 nv x 2 nv],   B = dx'/du   [2 nv x actuator_count]
///
/// both row-major (A[i * 2 nv + j] = dx'_i / dx_j). Positions are in the tangent space of qpos
/// (nv coordinates, not nq): a free body's position step is (dp, dtheta) with p + dp and
/// q exp(dtheta / 2), dtheta in the body frame (as its angular velocity in qvel); a ball joint
/// the same rotation; hinges and slides their own coordinate. tch_state_integrate and
/// tch_state_difference are that map and its inverse (MuJoCo's mj_integratePos and
/// mj_differentiatePos).
///
/// Each column steps the data from its state perturbed by +eps (forward: f(x + eps e_j) -
/// f(x)) / eps, error O(eps)) or by +eps and -eps (centred: (f(x + eps e_j) - f(x - eps
/// e_j)) / (2 eps), error O(eps^2), twice the steps). Every evaluation starts from a copy of
/// the whole data (contact state, warm starts, friction springs: what a checkpoint holds), so
/// the columns differ only by their perturbation, and the data is left as it was.
#pragma once

#include "touche/data.h"

#ifdef __cplusplus
extern "C" {
#endif

/// How each column is differenced.
typedef enum tch_fd_scheme {
    TCH_FD_FORWARD = 0, ///< (f(x + eps e_j) - f(x)) / eps: 2 nv + nu + 1 steps
    TCH_FD_CENTERED,    ///< (f(x + eps e_j) - f(x - eps e_j)) / (2 eps): 2 (2 nv + nu) + 1 steps
} tch_fd_scheme;

/// The perturbation touche's callers use when they have no better one: 1e-6 in each
/// coordinate's unit (m, rad, m/s, rad/s, the control's unit), MuJoCo's default too. Far
/// below any contact's length and far above the round-off of a step.
#define TCH_FD_DEFAULT_EPS 1e-6

/// qpos <- qpos (+) scale dq: moves each joint (each free body of a model without joints) by
/// its nv-sized tangent step dq times scale; quaternions by q exp(scale dtheta / 2).
TCH_API void tch_state_integrate(const tch_model* model, tch_real* qpos, const tch_real* dq,
                                 tch_real scale);
/// dq [nv] with qpos2 = qpos1 (+) dq (the rotation by the shorter way for quaternions).
TCH_API void tch_state_difference(const tch_model* model, const tch_real* qpos1,
                                  const tch_real* qpos2, tch_real* dq);

/// A and B (each may be NULL) of the step from the data's state, with perturbation `eps` > 0.
/// The data's state is unchanged on return. TCH_ERR_INVALID_ARGUMENT for a non-positive or
/// non-finite eps; TCH_ERR_UNSUPPORTED for the adaptive integrator (its history is not a
/// state that can be copied); a step's own failure (TCH_ERR_DIVERGED) is returned with the
/// data restored.
TCH_API tch_status tch_transition_fd(const tch_model* model, tch_data* data, tch_real eps,
                                     tch_fd_scheme scheme, tch_real* A, tch_real* B,
                                     tch_error* err);

#ifdef __cplusplus
}
#endif
