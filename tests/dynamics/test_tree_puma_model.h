/* The PUMA 560 as a kinematic tree, from the standard DH set of Corke and Armstrong-Hélouvry
 * (reference/puma560.md): six hinge bodies placed by MJCF's rule for a DH row (d, a, alpha):
 * body at (a, 0, d) in its parent rotated by Rx(alpha), hinge axis (0, sin alpha, cos alpha)
 * through (-a, -d sin alpha, -d cos alpha); armature and viscous damping of the drive table;
 * sites "tool" at the wrist centre plus 3 cm along the last axis. Gravity (0, 0, -9.81). */
#pragma once

#include "dynamics/tree.h"

enum { PUMA_DOF = 6 };

/* repair_link1 / repair_link3: opt in to the triangle-inequality repair of those links (link 1
 * is massless with moments (0, 0.35, 0); link 3's are (0.066, 0.086, 0.0125)). */
tch_status puma_tree_create(bool repair_link1, bool repair_link3, tch_tree** tree, tch_error* err);

/* The named poses of reference/puma560.md: "qz", "qr", "qs", "qn". */
void puma_pose(const char* name, tch_real q[PUMA_DOF]);
