/* Contact space of Ruspini and Khatib: the public functions are in touche/contact_space.h; these
 * are the pieces the engine shares with them. */
#pragma once

#include "touche/contact_space.h"

/* Free body b's qvel entries (v_WBo in W, w in B) from its centre-of-mass velocity and angular
 * velocity in the world, at the pose in qpos. */
void tch_contact_space_write_body_velocity(const tch_model* model, const tch_real* qpos,
                                           tch_real* qvel, int body, tch_vec3 v_WCm,
                                           tch_vec3 w_W);
