/* Free rigid bodies in MuJoCo's free-joint coordinates.
 *
 * Each free body b owns 7 entries of qpos and 6 of qvel:
 *
 *     qpos = (p_WBo, q_WB)           position of the body origin Bo in W; unit quaternion
 *     qvel = (v_WBo_W, w_WB_B)       velocity of Bo in W; angular velocity expressed in B
 *
 * The composite centre of mass Cm sits at p_BCm in B and the inertia about Cm is I_B (body axes,
 * both from the model). Newton-Euler about Cm, with the gyroscopic term:
 *
 *     m a_WCm = F_W                       I_B dw_B/dt = tau_B - w_B x (I_B w_B)
 *
 * and the origin's acceleration follows from a_WBo = a_WCm - dw_W/dt x r - w_W x (w_W x r),
 * r = R_WB p_BCm (dw_W/dt = R_WB dw_B/dt because w_W x w_W = 0).
 * Quaternion kinematics with body-frame angular velocity: dq_WB/dt = 1/2 q_WB (0, w_B).
 */
#pragma once

#include "touche/model.h"

/* Pose of free body b's origin from qpos. */
tch_transform tch_free_body_pose(const tch_model* model, const tch_real* qpos, int body);

/* Writes the pose (quaternion as given, not normalized) into qpos. */
void tch_free_body_set_pose(const tch_model* model, tch_real* qpos, int body, tch_transform X_WB);

/* World velocity of the centre of mass and world angular velocity of free body b. */
void tch_free_body_com_velocity(const tch_model* model, const tch_real* qpos,
                                const tch_real* qvel, int body, tch_vec3* v_WCm, tch_vec3* w_W);

/* qacc of free body b given the total force on Cm and torque about Cm, both in W: with h = 0
 * the time derivative (RK4, the adaptive integrator); with h > 0 the velocity change over h of
 * semi-implicit Euler's step divided by h, v+ = v + h qacc, with the gyroscopic term implicit
 * (math/spin.h: without torque the step keeps the world angular momentum and never adds
 * kinetic energy). */
void tch_free_body_acceleration(const tch_model* model, const tch_real* qpos,
                                const tch_real* qvel, int body, tch_vec3 F_W, tch_vec3 tau_W,
                                tch_real h, tch_real* qacc);

/* qpos time derivative as a 7-vector for body b: (v_WBo, 1/2 q (0, w_B)). */
void tch_free_body_qpos_rate(const tch_model* model, const tch_real* qpos, const tch_real* qvel,
                             int body, tch_real rate[7]);

/* Semi-implicit position update with the (already updated) velocity: p += h v, and q rotated
 * exactly by the body-frame rotation vector h w_B; q is renormalized. */
void tch_free_body_advance_position(const tch_model* model, tch_real* qpos,
                                    const tch_real* qvel, int body, tch_real h);

/* Kinetic energy of body b, J. */
tch_real tch_free_body_kinetic_energy(const tch_model* model, const tch_real* qpos,
                                      const tch_real* qvel, int body);

/* The planar mode (contact/planar.h): drops the velocity components of body b that leave the
 * x-z plane (the centre of mass's v_y, the world w_x and w_z); no change otherwise. */
void tch_free_body_project_planar(const tch_model* model, const tch_real* qpos, tch_real* qvel,
                                  int body);

/* Renormalizes every free body's quaternion; returns the largest |1 - |q|| seen. */
tch_real tch_free_bodies_normalize(const tch_model* model, tch_real* qpos);
