/* The engine's private part of tch_data.
 *
 * Fixed arrays (sized from the model) live in tch_data itself; everything a step needs that
 * varies in size comes from `arena`, released at the end of each stage that took it. The
 * contact buffers of tch_data grow geometrically the few times a scene needs more, and never
 * shrink, so a warmed-up step makes no heap allocation (tch_data.heap_allocation_count).
 */
#pragma once

#include "base/arena.h"
#include "collision/broadphase.h"
#include "contact/contact.h"
#include "engine/constraint.h"
#include "geometry/shape.h"
#include "touche/data.h"

struct tch_data_internal {
    tch_arena arena;
    tch_broadphase* broadphase;
    tch_aabb* geom_aabb;          /* [geom_count] world boxes of the last collision stage */
    unsigned char* geom_static;   /* [geom_count] 1 when the geom's root is the world */
    tch_velocity_prediction prediction; /* arrays [body_count], for semi-implicit friction */
    tch_pair_state_table pair_states; /* per-pair state of the models that keep one */
    long step_count;              /* steps taken; stamps the pair states seen in a step */
    int committing;               /* 1 while evaluating a step's first stage (see contact.h) */
    tch_constraint_workspace constraint; /* the constraint stage's island union-find */
    void* model_scratch[TCH_CONTACT_MODEL_END]; /* each contact model's working memory */
    const tch_contact_ops* scratch_ops[TCH_CONTACT_MODEL_END]; /* the ops that made it */
    /* The state the kinematics outputs were last computed from by the step (step.c,
     * update_kinematics), and whether they still are those (0 after a public stage call). */
    tch_real* kinematics_qpos;    /* [nq] */
    tch_real* kinematics_qvel;    /* [nv] */
    int kinematics_current;
    struct tch_watch* watch;      /* energy and penetration checks (engine/watch.h) */
    struct tch_implicit_cache* implicit; /* the implicit integrator's kept system (implicit.h) */
    struct tch_adaptive* adaptive; /* the adaptive integrator's ARKODE (integrator_adaptive.h) */
    struct tch_articulation_work* articulation; /* articulated models' buffers, else NULL */
};

/* Sums the heap allocations made by steps into data->heap_allocation_count. */
void tch_data_update_allocation_count(tch_data* data);
