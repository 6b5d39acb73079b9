/* What the haptic side knows of the physics between steps (a snapshot taken after each step),
 * and the renderers computed from it: shared by the deterministic loop and the threaded one. */
#pragma once

#include "haptics/local_model.h"
#include "touche/haptics.h"

/* The most moving bodies a proxy in the loop sees. */
enum { TCH_HAPTIC_PROXY_MAX_BODIES = 16 };

/* A moving body's state at a physics step: what the servo side extrapolates between steps. */
typedef struct tch_haptic_body_motion {
    tch_transform X_WB;
    tch_vec3 p_WCm, v_WCm, w_W; /* centre of mass, its velocity, angular velocity */
} tch_haptic_body_motion;

/* The proxy's reactions on its moving bodies summed since the loop began (servo side; the
 * physics side applies what it has not yet): impulse, N s, and its moment about the world
 * origin, N m s. Sums, so a latest-value exchange loses none. */
typedef struct tch_haptic_reaction {
    tch_vec3 impulse[TCH_HAPTIC_PROXY_MAX_BODIES];
    tch_vec3 moment[TCH_HAPTIC_PROXY_MAX_BODIES];
} tch_haptic_reaction;

typedef struct tch_haptic_snapshot {
    tch_real time;               /* s, loop clock of the step that made it */
    tch_vec3 tool_p_WCm;         /* coupling: the tool's centre of mass, */
    tch_vec3 tool_v_WCm;         /* its velocity, */
    tch_vec3 tool_w_W;           /* angular velocity, */
    tch_quat tool_q_WB;          /* orientation */
    tch_mat3 tool_I_inv_W;       /* and inverse world inertia */
    tch_haptic_local_model local; /* pointer: the local model of the step (local_model.h) */
    tch_real resync_jumps;       /* J, the ledger's jumps summed up to this step */
    tch_real body_time;          /* s, the loop time the bodies' state below stands for */
    tch_haptic_body_motion bodies[TCH_HAPTIC_PROXY_MAX_BODIES]; /* proxy: its moving bodies */
} tch_haptic_snapshot;

/* The tool's state of `data` into `snapshot` (the other fields untouched). */
void tch_haptic_snapshot_tool(const tch_data* data, int tool, tch_haptic_snapshot* snapshot);

/* tch_haptic_coupling_wrench on a snapshot of the tool. */
void tch_haptic_coupling_wrench_of(const tch_model* model, int tool,
                                   const tch_haptic_snapshot* snapshot,
                                   const tch_haptic_state* device,
                                   const tch_haptic_coupling_gains* gains, tch_real h,
                                   tch_vec3* force_W, tch_vec3* torque_W);

/* The coupling's spring-damper as it stands, on the tool of `snapshot` (its centre of mass) with
 * the device at `device`, the spring stretched by `lead` times the device's velocity: lead 0
 * gives the force and torque the spring applies now (minus what the device feels); lead h the
 * force at a step's start whose implicit step, with the spring's stiffness and damping in the
 * engine's system (tch_data.applied_spring), is backward Euler on the spring whose far end
 * moves with the device over the step: f(t + h) = -k (e + h (v1 - v_d)) - b (v1 - v_d). */
void tch_haptic_coupling_spring_of(const tch_model* model, int tool,
                                   const tch_haptic_snapshot* snapshot,
                                   const tch_haptic_state* device,
                                   const tch_haptic_coupling_gains* gains, tch_real lead,
                                   tch_vec3* force_W, tch_vec3* torque_W);

/* The coupling as the engine's applied spring on the tool. */
tch_applied_spring tch_haptic_coupling_applied_spring(int tool,
                                                      const tch_haptic_coupling_gains* gains);

/* The coupling springs' energy for the tool of `snapshot` and the device at `device`, J. */
tch_real tch_haptic_coupling_energy(const tch_model* model, int tool,
                                    const tch_haptic_snapshot* snapshot,
                                    const tch_haptic_state* device,
                                    const tch_haptic_coupling_gains* gains);
