/* What the haptic side knows of the physics between steps (a snapshot taken after each step),
 * and the renderers computed from it: shared by the deterministic loop and the threaded one. */
#pragma once

#include "touche/haptics.h"

typedef struct tch_haptic_snapshot {
    tch_real time;               /* s, loop clock of the step that made it */
    tch_vec3 tool_p_WCm;         /* coupling: the tool's centre of mass, */
    tch_vec3 tool_v_WCm;         /* its velocity, */
    tch_vec3 tool_w_W;           /* angular velocity, */
    tch_quat tool_q_WB;          /* orientation */
    tch_mat3 tool_I_inv_W;       /* and inverse world inertia */
    tch_haptic_command pointer;  /* pointer: the contact wrench on the mocap body, about its
                                    origin */
    tch_real resync_jumps;       /* J, the ledger's jumps summed up to this step */
} tch_haptic_snapshot;

/* The tool's state of `data` into `snapshot` (the other fields untouched). */
void tch_haptic_snapshot_tool(const tch_data* data, int tool, tch_haptic_snapshot* snapshot);

/* tch_haptic_coupling_wrench on a snapshot of the tool. */
void tch_haptic_coupling_wrench_of(const tch_model* model, int tool,
                                   const tch_haptic_snapshot* snapshot,
                                   const tch_haptic_state* device,
                                   const tch_haptic_coupling_gains* gains, tch_real h,
                                   tch_vec3* force_W, tch_vec3* torque_W);

/* The coupling springs' energy for the tool of `snapshot` and the device at `device`, J. */
tch_real tch_haptic_coupling_energy(const tch_model* model, int tool,
                                    const tch_haptic_snapshot* snapshot,
                                    const tch_haptic_state* device,
                                    const tch_haptic_coupling_gains* gains);
