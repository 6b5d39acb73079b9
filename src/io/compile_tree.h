/* The compiler's part for articulated models (docs/articulated.md): joints into the model's
 * kinematic tree (dynamics/articulation.h). Called by io/compile.c. */
#pragma once

#include <stdbool.h>

#include "geometry/mass.h"
#include "touche/model.h"
#include "touche/spec.h"

/* Does spec body b (1-based) carry joints of the spec (not its free_joint flag)? */
bool tch_compile_body_has_joints(const tch_spec* spec, int b);
/* A link's composite mass properties (massless allowed: a pure frame with zero inverses). */
tch_status tch_compile_link_mass(tch_model* m, int link, tch_mass_properties total, tch_error* err);
/* When the spec has joints: the tree, nq and nv, the free bodies' addresses and the joint
 * arrays; refuses what the articulated step does not take yet (the adaptive integrator).
 * After the masses and pairs. */
tch_status tch_compile_articulation(const tch_spec* spec, tch_model* m, tch_error* err);
/* qpos0 of an articulated model (nothing otherwise): hinges and slides at ref, balls at
 * identity, free bodies at their pose. */
void tch_compile_articulation_qpos0(tch_model* m);
