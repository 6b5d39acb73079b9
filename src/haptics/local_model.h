/* The pointer's local model between physics updates (docs/haptics.md, "The local model"): what
 * the haptic thread integrates between two physics steps so that the wrench follows the hand at
 * the servo rate. Made on the physics side at each step from the contacts of the step's start
 * (tch_step_begin): the wrench on the pointer there, the force models' linearization of every
 * pair of the pointer and of the free bodies it touches (K = dF/dx, D = dF/dv, symmetrized as
 * in the engine's implicit system), and those bodies' mobility; integrated on the servo side by
 * backward Euler at the servo period. Fixed size: it travels by value in the snapshot. */
#pragma once

#include <stdbool.h>

#include "contact/volume_integrals.h"
#include "touche/haptics.h"

/* Free bodies a pointer's local model moves; further touched bodies are held still. */
enum { TCH_HAPTIC_LOCAL_BODIES = 8 };
/* Pressure and volume pairs of the pointer whose friction the servo side evaluates at each
 * tick (further ones keep their linearized friction). */
enum { TCH_HAPTIC_LOCAL_FRICTION = 8 };

/* A pressure pair's regularized friction on the pointer, lumped at one point
 * (tch_pressure_lump_friction): the tick renders the law at the current slip there in place of
 * the linearization's damper, which is its secant at the step's start. Or a volume pair's
 * friction lumped at the centroid of its contact area (tch_volume_lump_friction): the tick runs
 * the model's static/dynamic law there (tch_volume_point_friction) in place of what the
 * linearization renders for it (the step's friction held, plus the static springs and dampers
 * while they hold). */
typedef struct tch_haptic_local_friction {
    int volume;                 /* a volume pair: the volume fields below, not params, secant */
    tch_volume_params volume_k; /* k^S, b^S, μ, μ₀ */
    tch_vec3 spring0, force0;   /* the springs' displacement and the friction, pointer's side */
    int sliding0, linearized;   /* its mode; whether K and D carry the static springs */
    tch_pair_params params;   /* μ and the stiction speed */
    tch_vec3 centre;          /* where it acts, world, at the step's start */
    tch_vec3 normal;          /* unit, along the pair's normal force on the pointer */
    tch_real load0, secant;   /* N, N s/m: the load and the linearization's damper */
    tch_vec3 slip0;           /* the pointer's tangential slip over the other body there */
    tch_vec3 other_velocity0; /* the other body's velocity at the centre, step's start */
    tch_real load_K_p[6];     /* the load's rate per the pointer's motion (normalᵀ K) */
    tch_real load_K_o[6];     /* and per the other body's */
    int other;                /* the other body's slot among the moved ones, or -1 (static
                                 or held: its velocity stays other_velocity0) */
} tch_haptic_local_friction;

/* One touched free body: its blocks of the linearization (pointer row p, its row b; 6-vectors
 * (displacement of the centre of mass, small rotation) and their rates, world frame). */
typedef struct tch_haptic_local_body {
    tch_real K_pb[36], D_pb[36]; /* the pointer's wrench per the body's motion (K_bp = K_pbᵀ) */
    tch_real K_bb[36], D_bb[36]; /* the body's wrench per its own motion: every pair it is in */
    tch_real factor[36];         /* Cholesky factor of M - T D_bb - T² K_bb (T the period) */
    tch_real mass[36];           /* M = diag(m 1, I_W) */
    tch_real wrench0[6];         /* the body's whole wrench at the step's start (gravity, contacts) */
    tch_real velocity0[6];       /* its velocity at the step's start */
    tch_real start_u[6];         /* its motion over the step (where the servo side starts) */
    tch_real start_v[6];         /* its velocity after the step */
    int index;                   /* the body */
    tch_vec3 com0;               /* its centre of mass and orientation at the step's start */
    tch_quat q0;
} tch_haptic_local_body;

typedef struct tch_haptic_local_model {
    long step;                 /* the physics step that made it (a new one resyncs) */
    int body_count;            /* touched free bodies, <= TCH_HAPTIC_LOCAL_BODIES */
    int pair_count;            /* linearized pairs of the pointer */
    int friction_count;        /* of them, pressure pairs with their friction lumped */
    tch_transform pose0;       /* the pointer's pose at the step's start */
    tch_vec3 com_B;            /* its centre of mass in its own frame */
    tch_real velocity0[6];     /* its velocity at the step's start */
    tch_real wrench0[6];       /* the contact wrench on it there, about its centre of mass */
    tch_real K_pp[36], D_pp[36];
    tch_haptic_local_body bodies[TCH_HAPTIC_LOCAL_BODIES];
    tch_haptic_local_friction friction[TCH_HAPTIC_LOCAL_FRICTION];
} tch_haptic_local_model;

/* A local model as the servo side integrates it: the model and its bodies' state. */
typedef struct tch_haptic_local_run {
    tch_haptic_local_model model;
    tch_real u[TCH_HAPTIC_LOCAL_BODIES][6]; /* the bodies' motion since the step's start */
    tch_real v[TCH_HAPTIC_LOCAL_BODIES][6]; /* and velocity */
    /* each volume friction's springs (the pointer's side) and mode */
    tch_vec3 friction_spring[TCH_HAPTIC_LOCAL_FRICTION];
    int friction_sliding[TCH_HAPTIC_LOCAL_FRICTION];
} tch_haptic_local_run;

/* The servo side's state: the newest model and the one before it, blended at a resync from
 * the old model's wrench (as it goes on at the hand's pose) to the new one's over
 * `blend_ticks`. */
typedef struct tch_haptic_local_state {
    tch_haptic_local_run runs[2];
    int newest;                     /* index into runs; -1 before the first model */
    int blend_ticks, blend_left;
    tch_vec3 last_position;         /* the pointer's centre of mass at the last tick */
    tch_real blend_work;            /* J, sum of |work of the blend's part of the wrench| (the
                                       ledger's resync jumps) */
} tch_haptic_local_state;

/* Physics side, between tch_step_begin and tch_step_end: the pointer `body`'s model from the
 * state and contacts of the step's start, factored for servo period `period`. */
void tch_haptic_local_model_begin(const tch_model* model, const tch_data* data, int body,
                                  tch_real period, long step, tch_haptic_local_model* local);
/* Physics side, after tch_step_end: where the touched bodies went over the step. */
void tch_haptic_local_model_end(const tch_data* data, tch_haptic_local_model* local);

/* Servo side: the state before any model. */
void tch_haptic_local_state_init(tch_haptic_local_state* state);
/* Servo side: one tick with the pointer at `device` (pose and velocity of its frame's origin,
 * world): takes a new model (blending from the old one over `blend_ticks`), advances the
 * touched bodies by one period and returns the wrench on the pointer, torque about its
 * origin. */
tch_haptic_command tch_haptic_local_model_tick(const tch_haptic_local_model* local,
                                               tch_haptic_local_state* state,
                                               const tch_haptic_state* device, tch_real period,
                                               int blend_ticks);
