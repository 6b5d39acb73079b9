/* The kinematics outputs of tch_data from its state (the engine's kinematics and velocities
 * stages, include/touche/step.h; also for code below the engine that changes qvel and must
 * keep the velocities in step, such as the contact-space operators).
 *
 *     positions:  qpos -> body_X_WB, body_R_WB, body_p_WCm, body_I_W, body_I_inv_W,
 *                         geom_X_WG, geom_R_WG, site_X_WS
 *     velocities: qpos, qvel, body_p_WCm -> body_v_WCm, body_w_W
 */
#pragma once

#include "touche/data.h"

/* Body and geom world poses, each free body's centre of mass and its world inertia and
 * inverse (I_W = R I_B R^T, I_W^-1 = R I_B^-1 R^T), from qpos. */
void tch_kinematics_positions(const tch_model* model, tch_data* data);

/* Geom and site world poses from the body poses (the last part of the positions, shared with
 * articulated models, dynamics/articulation.h). */
void tch_kinematics_frames(const tch_model* model, tch_data* data);

/* Centre-of-mass and angular velocities in the world from qvel (needs the positions). */
void tch_kinematics_velocities(const tch_model* model, tch_data* data);
