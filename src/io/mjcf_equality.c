/* MJCF <equality>: connect and weld between bodies (see mjcf_internal.h; the model in
 * tch_equality_def, the step in dynamics/articulation.c). Other equality types are refused
 * with their line. */
#include <math.h>
#include <string.h>

#include "io/mjcf_internal.h"
#include "io/spec_internal.h"
#include "math/vec.h"

/* body1 (required) and body2 (absent: the world) by name. */
static tch_status read_bodies(tch_mjcf_loader* L, const xmlNode* node, tch_equality_def* def) {
    const char* const attrs[2] = {"body1", "body2"};
    tch_body_id* ids[2] = {&def->body1, &def->body2};
    for (int k = 0; k < 2; ++k) {
        char name[64] = "";
        tch_status status = tch_mjcf_read_string(L, node, attrs[k], name, sizeof name);
        if (status != TCH_OK) {
            return status;
        }
        if (name[0] == '\0' && k == 0) {
            return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                                 "body1: missing (expected the name of a body)");
        }
        *ids[k] = name[0] == '\0' || strcmp(name, "world") == 0 ? TCH_WORLD_BODY
                                                               : tch_spec_find_body(L->spec, name);
        if (name[0] != '\0' && strcmp(name, "world") != 0 && ids[k]->index == 0) {
            return tch_mjcf_fail(L, node, TCH_ERR_PARSE, "%s: no body named '%s'", attrs[k],
                                 name);
        }
    }
    if (def->body1.index == 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "body1: the world (expected a moving body; name the world body2)");
    }
    return TCH_OK;
}

/* weld relpose: 7 numbers, position then quaternion; all zero (MuJoCo's default
 * "0 1 0 0 0 0 0" has a unit quaternion, 2.2's meaning "the pose at qpos0" when the quaternion
 * is zero) keeps the relative pose at qpos0. */
static tch_status read_relpose(tch_mjcf_loader* L, const xmlNode* node, tch_equality_def* def) {
    tch_real pose[7];
    int count = 0;
    tch_status status = tch_mjcf_read_reals(L, node, "relpose", pose, 7, 7, &count,
                                            "7 numbers (position, quaternion)");
    if (status != TCH_OK || count == 0) {
        return status;
    }
    tch_real norm = sqrt(pose[3] * pose[3] + pose[4] * pose[4] + pose[5] * pose[5] +
                         pose[6] * pose[6]);
    if (norm == 0) {
        return TCH_OK;
    }
    def->relpose_set = true;
    def->rel_p = tch_v3(pose[0], pose[1], pose[2]);
    def->rel_q = (tch_quat){pose[3] / norm, pose[4] / norm, pose[5] / norm, pose[6] / norm};
    return TCH_OK;
}

static tch_status load_equality(tch_mjcf_loader* L, const xmlNode* node, tch_equality_type type) {
    static const char* const known[] = {"name", "body1", "body2", "anchor", "relpose",
                                        "solref", "active", NULL};
    static const char* const active[] = {"true", "false", NULL};
    tch_equality_def def = tch_equality_def_default();
    def.type = type;
    def.source = tch_mjcf_source(L, node);
    int inactive = 0;
    tch_status status = tch_mjcf_check_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "name", def.name, sizeof def.name);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_keyword(L, node, "active", active, &inactive);
    }
    if (status == TCH_OK && inactive) {
        return tch_mjcf_fail(L, node, TCH_ERR_UNSUPPORTED,
                             "active=\"false\" is not supported yet (remove the constraint)");
    }
    if (status == TCH_OK) {
        status = read_bodies(L, node, &def);
    }
    if (status == TCH_OK && type == TCH_EQUALITY_CONNECT) {
        tch_real anchor[3];
        int count = 0;
        status = tch_mjcf_read_reals(L, node, "anchor", anchor, 3, 3, &count,
                                     "3 numbers (x y z)");
        if (status == TCH_OK && count == 0) {
            return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                                 "anchor: missing (expected the point in body1's frame)");
        }
        def.anchor = tch_v3(anchor[0], anchor[1], anchor[2]);
    }
    if (status == TCH_OK && type == TCH_EQUALITY_WELD) {
        status = read_relpose(L, node, &def);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_solref(L, node, "solref", def.solref);
    }
    return status == TCH_OK
               ? tch_mjcf_spec_status(L, node, tch_spec_add_equality(L->spec, &def, L->err))
               : status;
}

tch_status tch_mjcf_load_equalities(tch_mjcf_loader* L, const xmlNode* node) {
    tch_status status = tch_mjcf_check_attributes(L, node, (const char* const[]){NULL}, false);
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        if (tch_mjcf_is(child, "connect")) {
            status = load_equality(L, child, TCH_EQUALITY_CONNECT);
        } else if (tch_mjcf_is(child, "weld")) {
            status = load_equality(L, child, TCH_EQUALITY_WELD);
        } else {
            status = tch_mjcf_fail(L, child, TCH_ERR_UNSUPPORTED,
                                   "is not supported yet (expected weld or connect; joint, "
                                   "tendon and distance equalities are not read)");
        }
    }
    return status;
}
