/* MJCF <actuator>: motor, position and velocity actuators on joints (see mjcf_internal.h;
 * the model in tch_actuator_def). */
#include <math.h>
#include <string.h>

#include "io/mjcf_internal.h"
#include "io/spec_internal.h"

/* gear: MuJoCo's 6 numbers; a joint transmission uses the first, the rest must be 0. */
static tch_status read_gear(tch_mjcf_loader* L, const xmlNode* node, tch_actuator_def* def) {
    tch_real gear[6] = {0};
    int count = 0;
    tch_status status = tch_mjcf_read_reals(L, node, "gear", gear, 1, 6, &count, "1 to 6 numbers");
    for (int i = 1; status == TCH_OK && i < count; ++i) {
        if (gear[i] != 0) {
            return tch_mjcf_fail_attr(L, node, "gear",
                                      "one number for a joint (the others 0: no torsion)");
        }
    }
    if (count > 0) {
        def->gear = gear[0];
    }
    return status;
}

/* ctrlrange and ctrllimited, with autolimits as for joint ranges. */
static tch_status read_ctrl_range(tch_mjcf_loader* L, const xmlNode* node, tch_actuator_def* def) {
    static const char* const limited[] = {"auto", "false", "true", NULL};
    int count = 0, mode = 0;
    tch_status status = tch_mjcf_read_reals(L, node, "ctrlrange", def->ctrl_range, 2, 2, &count,
                                            "2 numbers (lower upper)");
    if (status == TCH_OK) {
        status = tch_mjcf_read_keyword(L, node, "ctrllimited", limited, &mode);
    }
    def->ctrl_limited = mode == 2 || (mode == 0 && L->autolimits && count == 2);
    if (status == TCH_OK && def->ctrl_limited && count < 2) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "ctrllimited: a limited control needs ctrlrange=\"lower upper\"");
    }
    if (status == TCH_OK && def->ctrl_limited && def->ctrl_range[0] > def->ctrl_range[1]) {
        return tch_mjcf_fail_attr(L, node, "ctrlrange", "lower <= upper");
    }
    return status;
}

static tch_status read_joint(tch_mjcf_loader* L, const xmlNode* node, tch_actuator_def* def) {
    char joint[64] = "";
    tch_status status = tch_mjcf_read_string(L, node, "joint", joint, sizeof joint);
    if (status != TCH_OK) {
        return status;
    }
    def->joint = tch_spec_find_joint(L->spec, joint);
    if (def->joint == 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "joint: no joint named '%s' (expected the name of a hinge or slide "
                             "joint)",
                             joint);
    }
    return TCH_OK;
}

static tch_status load_actuator(tch_mjcf_loader* L, const xmlNode* node, tch_actuator_type type) {
    static const char* const known[] = {"name",        "joint", "gear", "ctrlrange",
                                        "ctrllimited", "kp",    "kv",   NULL};
    tch_actuator_def def = tch_actuator_def_default();
    def.type = type;
    def.source = tch_mjcf_source(L, node);
    tch_status status = tch_mjcf_check_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "name", def.name, sizeof def.name);
    }
    if (status == TCH_OK) {
        status = read_joint(L, node, &def);
    }
    if (status == TCH_OK) {
        status = read_gear(L, node, &def);
    }
    if (status == TCH_OK) {
        status = read_ctrl_range(L, node, &def);
    }
    if (status == TCH_OK && type == TCH_ACTUATOR_POSITION) {
        status = tch_mjcf_read_nonnegative(L, node, "kp", false, &def.kp);
    }
    if (status == TCH_OK && type == TCH_ACTUATOR_VELOCITY) {
        status = tch_mjcf_read_nonnegative(L, node, "kv", false, &def.kv);
    }
    return status == TCH_OK
               ? tch_mjcf_spec_status(L, node, tch_spec_add_actuator(L->spec, &def, L->err))
               : status;
}

tch_status tch_mjcf_load_actuators(tch_mjcf_loader* L, const xmlNode* node) {
    static const char* const types[] = {"motor", "position", "velocity"};
    tch_status status = tch_mjcf_check_attributes(L, node, (const char* const[]){NULL}, false);
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        int type = -1;
        for (int t = 0; t < 3; ++t) {
            type = tch_mjcf_is(child, types[t]) ? t : type;
        }
        status = type >= 0 ? load_actuator(L, child, (tch_actuator_type)type)
                           : tch_mjcf_fail(L, child, TCH_ERR_UNSUPPORTED,
                                           "is not supported yet (expected motor, position or "
                                           "velocity)");
    }
    return status;
}
