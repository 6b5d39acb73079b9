/// touche: contact space (Ruspini and Khatib, "A Framework for Multi-Contact Multi-Body Dynamic
/// Simulation and Haptic Display", IROS 2000; notes in reference/contact_space_haptics.md).
///
/// For a system of n generalized velocities q̇ with inverse inertia A⁻¹ (n x n, symmetric
/// positive definite) and m contact points with the contact Jacobian J (m x n, row i maps q̇ to
/// the normal velocity v_i = n_iᵀ(ċ_ai - ċ_bi), positive when separating):
///
///     Λ⁻¹ = J A⁻¹ Jᵀ                                    contact-space inverse inertia (eq. 4)
///     0 <= p ⊥ Λ⁻¹ p + (I + E) J q̇⁻ >= 0                collision impulses (eq. 16)
///     q̇⁺ = q̇⁻ + A⁻¹ Jᵀ p                                post-impulse velocity (eq. 17)
///     0 <= f ⊥ Λ⁻¹ f + a_free >= 0                       resting contact forces (eq. 25)
///     q̈ = q̈_free + A⁻¹ Jᵀ f                             (eq. 26)
///     J̄ = A⁻¹ Jᵀ Λ,  q̇⁺ = J̄ v⁺ + (I - J̄ J) q̇⁻            dynamically consistent inverse (19-21)
///
/// A⁻¹ is given either as a dense matrix or as a function that applies it (so that an
/// articulated body can use its O(n) algorithm); free rigid bodies have the block-diagonal one
/// of tch_contact_space_free_body_inverse_inertia.
///
/// Conventions. Matrices are dense and row-major (X[i*cols + j]); every array belongs to the
/// caller, is read or written only during the call, and must not overlap another argument.
/// Units: SI, velocities in the units of q̇, impulses in N s (or the generalized impulse
/// matching q̇), forces in N. Functions return TCH_OK, TCH_ERR_INVALID_ARGUMENT (sizes, NULL
/// arrays, non-finite input), TCH_ERR_OUT_OF_MEMORY, or TCH_ERR_NUMERICAL (the LCP has no
/// solution that Lemke's method finds, or Λ⁻¹ is singular where an inverse is needed), with
/// `err` (may be NULL) filled.
#pragma once

#include "touche/data.h"

#ifdef __cplusplus
extern "C" {
#endif

/// y = A⁻¹ x for n-vectors x and y (y does not alias x).
typedef void (*tch_inverse_inertia_apply)(void* user, const tch_real* x, tch_real* y);

/// A generalized inverse inertia A⁻¹ of n coordinates: `dense` when not NULL, else `apply`.
typedef struct tch_inverse_inertia {
    int n;                          ///< number of generalized velocities, >= 1
    const tch_real* dense;          ///< [n*n] row-major A⁻¹, or NULL
    tch_inverse_inertia_apply apply; ///< used when dense is NULL
    void* user;                     ///< passed to apply
} tch_inverse_inertia;

/// How an LCP of this header was solved (Lemke's method, exact).
typedef struct tch_contact_space_report {
    int iterations;       ///< Lemke pivots
    tch_real residual;    ///< natural-map residual max_i |min(z_i, w_i)| of the solution
} tch_contact_space_report;

/// Λ⁻¹ = J A⁻¹ Jᵀ (eq. 4). J: [m*n]; lambda_inv: [m*m] out. Entry (i, j) is the velocity
/// change at contact i per unit impulse at contact j.
TCH_API tch_status tch_contact_space_inverse_inertia(const tch_inverse_inertia* A_inv,
                                                     const tch_real* J, int m,
                                                     tch_real* lambda_inv, tch_error* err);

/// Collision impulses (eq. 16) and post-impulse velocity (eq. 17). qdot_minus: [n];
/// restitution: [m] coefficients in [0, 1], or NULL for all zero (a contact that is already
/// separating uses 0); p: [m] out, impulses >= 0; qdot_plus: [n] out, or NULL; report: or NULL.
/// When every contact approaches, the kinetic energy changes by -(1 - e)/(2(1 + e)) pᵀ Λ⁻¹ p
/// for a uniform e: never more.
TCH_API tch_status tch_contact_space_impulse(const tch_inverse_inertia* A_inv, const tch_real* J,
                                             int m, const tch_real* qdot_minus,
                                             const tch_real* restitution, tch_real* p,
                                             tch_real* qdot_plus,
                                             tch_contact_space_report* report, tch_error* err);

/// Resting/sliding contact forces (eq. 25, frictionless as in the paper) and the accelerations
/// with them (eq. 26). qddot_free: [n] = A⁻¹(Γ - b - g), the accelerations without contact;
/// jdot_qdot: [m] the J̇ q̇ term, or NULL for zero; f: [m] out, forces >= 0; qddot: [n] out,
/// or NULL; report: or NULL.
TCH_API tch_status tch_contact_space_resting(const tch_inverse_inertia* A_inv, const tch_real* J,
                                             int m, const tch_real* qddot_free,
                                             const tch_real* jdot_qdot, tch_real* f,
                                             tch_real* qddot, tch_contact_space_report* report,
                                             tch_error* err);

/// The dynamically consistent inverse J̄ = A⁻¹ Jᵀ (J A⁻¹ Jᵀ)⁻¹ (eq. 19): jbar [n*m] out.
/// J must have independent rows (TCH_ERR_NUMERICAL otherwise: Λ⁻¹ is singular).
TCH_API tch_status tch_contact_space_consistent_inverse(const tch_inverse_inertia* A_inv,
                                                        const tch_real* J, int m, tch_real* jbar,
                                                        tch_error* err);

/// q̇⁺ = J̄ v⁺ + (I - J̄ J) q̇⁻ (eq. 21): the velocity that has the contact velocities v_plus
/// [m] with the least kinetic energy change from qdot_minus [n]. qdot_plus: [n] out.
TCH_API tch_status tch_contact_space_consistent_velocity(const tch_inverse_inertia* A_inv,
                                                         const tch_real* J, int m,
                                                         const tch_real* qdot_minus,
                                                         const tch_real* v_plus,
                                                         tch_real* qdot_plus, tch_error* err);

/// ---- free rigid bodies ----
///
/// The contact-space coordinates of a model's free bodies are, per free body in qvel order
/// (6 each, model->nv in all), ν = (v_WCm, w_W): the world velocity of its centre of mass and
/// its world angular velocity. A = diag(m I₃, I_W) per body, I_W = R_WB I_B R_WBᵀ. For models
/// of free bodies only: with joints (tch_model.articulation) these calls leave their outputs
/// and the data untouched (the tree's A⁻¹ is dynamics/tree.h's).

/// A⁻¹ at the poses of data's kinematics (tch_data.body_I_inv_W: current after tch_forward,
/// tch_step, a reset or tch_stage_kinematics): [nv*nv] out (block diagonal).
TCH_API void tch_contact_space_free_body_inverse_inertia(const tch_model* model,
                                                         const tch_data* data, tch_real* A_inv);
/// ν of data's current state: [nv] out.
TCH_API void tch_contact_space_free_body_velocity(const tch_model* model, const tch_data* data,
                                                  tch_real* nu);
/// Sets data's qvel (and the derived velocities) from ν [nv].
TCH_API void tch_contact_space_free_body_set_velocity(const tch_model* model, tch_data* data,
                                                      const tch_real* nu);
/// The Jacobian row [nv] of a contact's normal velocity n_Wᵀ(v_b(p_W) - v_a(p_W)) (geom b's
/// body minus geom a's body at the contact point, zero columns for static bodies), about the
/// centres of mass of data's kinematics (tch_data.body_p_WCm).
TCH_API void tch_contact_space_free_body_row(const tch_model* model, const tch_data* data,
                                             const tch_contact* contact, tch_real* row);

#ifdef __cplusplus
}
#endif
