/* The lcp contact model: hard, non-penetrating contact by velocity-level time stepping
 * (Stewart and Trinkle; Anitescu and Potra), docs/contact-lcp.md.
 *
 * The model adds no force in the forces stage. Its pairs take the narrow phase's points, found
 * within the pair's margin so that a contact is known a step before it closes, and the engine's
 * constraint stage (engine/constraint.h) solves their impulses inside the semi-implicit Euler
 * step, one complementarity problem per contact island, warm-started from the impulses that the
 * pair state keeps from the last step.
 */
#include "contact/contact.h"

const tch_contact_ops tch_lcp_ops = {
    .name = "lcp",
    .kind = TCH_CONTACT_KIND_CONSTRAINT,
    .uses_state = 1,
    .pair_geometry = NULL,
    .normal_forces = NULL,
    .friction_forces = NULL,
};
