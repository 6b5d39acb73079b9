/* MJCF worldbody: bodies, their inertial and free joint, and geoms (see mjcf_internal.h).
 *
 * A body's geoms are added before its child bodies, so geoms are numbered body by body in
 * body order, as MuJoCo numbers them; the writer relies on that for exact round trips.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "io/mjcf_internal.h"
#include "io/spec_internal.h"
#include "math/vec.h"

static const char* const orientation_attrs[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};

/* `known` with the five orientation attributes appended. */
static bool with_orientation(const char* const* known, const char** out, size_t size) {
    size_t n = 0;
    for (; known[n]; ++n) {
        if (n + 6 > size) {
            return false;
        }
        out[n] = known[n];
    }
    for (size_t i = 0; i < 5; ++i) {
        out[n + i] = orientation_attrs[i];
    }
    out[n + 5] = NULL;
    return true;
}

static tch_status check_framed_attributes(tch_mjcf_loader* L, const xmlNode* node,
                                          const char* const* known, bool touche_contact) {
    const char* all[32];
    if (!with_orientation(known, all, sizeof all / sizeof all[0])) {
        return tch_mjcf_fail(L, node, TCH_ERR_INVALID_ARGUMENT, "too many attributes");
    }
    return tch_mjcf_check_attributes(L, node, all, touche_contact);
}

static tch_status read_position(tch_mjcf_loader* L, const xmlNode* node, tch_vec3* p) {
    tch_real v[3];
    int count = 0;
    tch_status status = tch_mjcf_read_reals(L, node, "pos", v, 3, 3, &count, "3 numbers (x y z)");
    if (count == 3) {
        *p = tch_v3(v[0], v[1], v[2]);
    }
    return status;
}

/* ---- geom attributes ---- */

static tch_status read_geom_type(tch_mjcf_loader* L, const xmlNode* node,
                                 tch_mjcf_geom_attrs* attrs) {
    char name[32] = "";
    if (!tch_mjcf_has_attr(node, "type")) {
        return TCH_OK;
    }
    tch_status status = tch_mjcf_read_string(L, node, "type", name, sizeof name);
    if (status != TCH_OK) {
        return tch_mjcf_fail_attr(L, node, "type", "a geom type");
    }
    if (strcmp(name, "hfield") == 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_UNSUPPORTED,
                             "type: 'hfield' is not supported yet (height fields)");
    }
    if (!tch_geom_type_parse(name, &attrs->def.type)) {
        return tch_mjcf_fail_attr(L, node, "type",
                                  "one of plane, sphere, capsule, ellipsoid, cylinder, box, mesh");
    }
    attrs->type_given = true;
    return TCH_OK;
}

static tch_status read_size_and_fromto(tch_mjcf_loader* L, const xmlNode* node,
                                       tch_mjcf_geom_attrs* attrs) {
    tch_real size[3];
    int count = 0;
    tch_status status = tch_mjcf_read_reals(L, node, "size", size, 1, 3, &count, "1 to 3 numbers");
    for (int i = 0; i < count; ++i) {
        attrs->def.size[i] = size[i];
    }
    if (count > attrs->size_count) {
        attrs->size_count = count;
    }
    count = 0;
    if (status == TCH_OK) {
        status = tch_mjcf_read_reals(L, node, "fromto", attrs->fromto, 6, 6, &count,
                                     "6 numbers (from x y z, to x y z)");
    }
    if (count == 6) {
        attrs->has_fromto = true;
    }
    return status;
}

static tch_status read_geom_mass(tch_mjcf_loader* L, const xmlNode* node, tch_geom_def* def) {
    tch_status status = tch_mjcf_read_nonnegative(L, node, "mass", false, &def->mass);
    if (status == TCH_OK) {
        status = tch_mjcf_read_nonnegative(L, node, "density", false, &def->density);
    }
    return status;
}

/* touche:tetmesh: a tet mesh file for the pressure model, relative to meshdir or the scene. */
static tch_status read_tetmesh_path(tch_mjcf_loader* L, const xmlNode* node,
                                    tch_geom_def* def) {
    char file[512] = "";
    tch_status status = tch_mjcf_read_string(L, node, "touche:tetmesh", file, sizeof file);
    if (status != TCH_OK || file[0] == '\0') {
        return status;
    }
    const char* dir = L->mesh_dir[0] != '\0' ? L->mesh_dir : L->scene_dir;
    int n = file[0] == '/' || dir[0] == '\0'
                ? snprintf(def->tetmesh, sizeof def->tetmesh, "%s", file)
                : snprintf(def->tetmesh, sizeof def->tetmesh, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= sizeof def->tetmesh) {
        return tch_mjcf_fail_attr(L, node, "touche:tetmesh", "a path of at most 511 characters");
    }
    return TCH_OK;
}

static tch_status read_geom_contact(tch_mjcf_loader* L, const xmlNode* node, tch_geom_def* def) {
    tch_status status = tch_mjcf_read_friction(L, node, &def->contact.friction);
    if (status == TCH_OK) {
        status = tch_mjcf_read_nonnegative(L, node, "margin", false, &def->contact.margin);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_bitmask(L, node, "contype", &def->contype);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_bitmask(L, node, "conaffinity", &def->conaffinity);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_touche_contact(L, node, false, &def->contact);
    }
    if (status == TCH_OK) {
        status = read_tetmesh_path(L, node, def);
    }
    return status;
}

tch_status tch_mjcf_apply_geom_attrs(tch_mjcf_loader* L, const xmlNode* node,
                                     tch_mjcf_geom_attrs* attrs) {
    static const char* const known[] = {"class",       "type",    "size",     "pos",    "fromto",
                                        "mass",        "density", "friction", "margin", "contype",
                                        "conaffinity", "mesh",    NULL};
    tch_status status = check_framed_attributes(L, node, known, true);
    if (status == TCH_OK) {
        status = read_geom_type(L, node, attrs);
    }
    if (status == TCH_OK) {
        status = read_size_and_fromto(L, node, attrs);
    }
    if (status == TCH_OK) {
        status = read_position(L, node, &attrs->def.p_BG);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_orientation(L, node, &attrs->def.q_BG);
    }
    if (status == TCH_OK) {
        status = read_geom_mass(L, node, &attrs->def);
    }
    if (status == TCH_OK) {
        status = read_geom_contact(L, node, &attrs->def);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "mesh", attrs->mesh_name, sizeof attrs->mesh_name);
    }
    return status;
}

/* ---- geom completion: fromto, sizes, mesh ---- */

/* What each type needs in `size`: the count of positive numbers, and that count when the
 * length comes from fromto. */
static const struct {
    int count;
    int count_with_fromto; /* -1: fromto not allowed */
    const char* meaning;
} size_rules[TCH_GEOM_TYPE_END] = {
    [TCH_GEOM_PLANE] = {0, -1, "numbers >= 0 (ignored for collision)"},
    [TCH_GEOM_SPHERE] = {1, -1, "radius"},
    [TCH_GEOM_CAPSULE] = {2, 1, "radius, half-length"},
    [TCH_GEOM_ELLIPSOID] = {3, 2, "semi-axes"},
    [TCH_GEOM_CYLINDER] = {2, 1, "radius, half-height"},
    [TCH_GEOM_BOX] = {3, 2, "half-sizes"},
    [TCH_GEOM_MESH] = {0, -1, "taken from the mesh"},
};

/* MuJoCo's fromto: the geom's z axis runs from `from` to `to`, its centre is the midpoint and
 * the half-length |to - from| / 2 becomes the size entry after the given ones. */
static tch_status apply_fromto(tch_mjcf_loader* L, const xmlNode* node,
                               tch_mjcf_geom_attrs* attrs) {
    tch_geom_def* def = &attrs->def;
    int length_index = size_rules[def->type].count_with_fromto;
    if (length_index < 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "fromto: not allowed for a %s (expected a capsule, cylinder, box "
                             "or ellipsoid)",
                             tch_geom_type_name(def->type));
    }
    tch_vec3 from = tch_v3(attrs->fromto[0], attrs->fromto[1], attrs->fromto[2]);
    tch_vec3 to = tch_v3(attrs->fromto[3], attrs->fromto[4], attrs->fromto[5]);
    tch_vec3 axis = tch_v3_sub(to, from);
    tch_real length = tch_v3_norm(axis);
    if (!(length > 0) || !isfinite(length)) {
        return tch_mjcf_fail_attr(L, node, "fromto", "two distinct points");
    }
    def->p_BG = tch_v3_lerp(from, to, 0.5);
    def->q_BG = tch_mjcf_quat_z_to(axis);
    def->size[length_index] = length / 2;
    if (attrs->size_count < length_index + 1) {
        attrs->size_count = length_index + 1;
    }
    return TCH_OK;
}

static tch_status check_geom_size(tch_mjcf_loader* L, const xmlNode* node,
                                  const tch_mjcf_geom_attrs* attrs) {
    const tch_geom_def* def = &attrs->def;
    if (def->type == TCH_GEOM_MESH) {
        return TCH_OK;
    }
    int needed = size_rules[def->type].count;
    bool valid = attrs->size_count >= needed;
    for (int i = 0; i < 3 && valid; ++i) {
        valid = i < needed ? def->size[i] > 0 : def->size[i] >= 0 || i >= attrs->size_count;
    }
    if (valid) {
        return TCH_OK;
    }
    char got[96] = "nothing";
    for (int i = 0, used = 0; i < attrs->size_count; ++i) {
        used +=
            snprintf(got + used, sizeof got - (size_t)used, "%s%g", i ? " " : "\"", def->size[i]);
    }
    if (attrs->size_count > 0) {
        tch_copy_string(got + strlen(got), sizeof got - strlen(got), "\"");
    }
    if (needed == 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE, "size: expected %s for a %s, got %s",
                             size_rules[def->type].meaning, tch_geom_type_name(def->type), got);
    }
    int shown = attrs->has_fromto ? size_rules[def->type].count_with_fromto : needed;
    return tch_mjcf_fail(
        L, node, TCH_ERR_PARSE, "size: expected %d positive number%s (%s) for a %s%s, got %s",
        shown, shown == 1 ? "" : "s", size_rules[def->type].meaning, tch_geom_type_name(def->type),
        attrs->has_fromto ? " with fromto" : "", got);
}

static tch_status resolve_mesh(tch_mjcf_loader* L, const xmlNode* node,
                               tch_mjcf_geom_attrs* attrs) {
    tch_geom_def* def = &attrs->def;
    if (attrs->mesh_name[0] != '\0' && !attrs->type_given) {
        def->type = TCH_GEOM_MESH; /* MuJoCo 3 infers the type from the mesh attribute */
    }
    if (def->type != TCH_GEOM_MESH) {
        return TCH_OK;
    }
    if (attrs->mesh_name[0] == '\0') {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "mesh: a mesh geom needs a mesh attribute naming a mesh asset");
    }
    def->mesh = tch_spec_find_mesh(L->spec, attrs->mesh_name);
    if (def->mesh.index == 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "mesh: no mesh asset named '%s' (expected a <mesh> in <asset>)",
                             attrs->mesh_name);
    }
    return TCH_OK;
}

static tch_status load_geom(tch_mjcf_loader* L, const xmlNode* node, tch_body_id body,
                            int inherited_class) {
    int class_index = -1;
    tch_status status = tch_mjcf_node_class(L, node, inherited_class, &class_index);
    if (status != TCH_OK) {
        return status;
    }
    tch_mjcf_geom_attrs attrs = tch_mjcf_geom_template(L, class_index);
    attrs.def.source = tch_mjcf_source(L, node);
    status = tch_mjcf_read_string(L, node, "name", attrs.def.name, sizeof attrs.def.name);
    if (status == TCH_OK) {
        status = tch_mjcf_apply_geom_attrs(L, node, &attrs);
    }
    if (status == TCH_OK) {
        status = resolve_mesh(L, node, &attrs);
    }
    if (status == TCH_OK && attrs.has_fromto) {
        status = apply_fromto(L, node, &attrs);
    }
    if (status == TCH_OK) {
        status = check_geom_size(L, node, &attrs);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_spec_status(L, node,
                                      tch_spec_add_geom(L->spec, body, &attrs.def, NULL, L->err));
    }
    return status;
}

/* ---- inertial ---- */

/* Principal moments of a rigid body satisfy the triangle inequality a + b >= c (each is a sum
 * of two of the second moments of the mass distribution); a relative slack absorbs rounding. */
static bool is_physical_inertia(tch_vec3 d) {
    tch_real slack = 1e-9 * (d.x + d.y + d.z);
    return d.x > 0 && d.y > 0 && d.z > 0 && d.x + d.y + slack >= d.z && d.y + d.z + slack >= d.x &&
           d.z + d.x + slack >= d.y;
}

static tch_status read_diag_inertia(tch_mjcf_loader* L, const xmlNode* node, tch_body_def* def) {
    static const char* expected =
        "3 positive principal moments satisfying the triangle inequality (a + b >= c)";
    tch_real v[3];
    tch_status status = tch_mjcf_read_reals(L, node, "diaginertia", v, 3, 3, NULL, expected);
    if (status != TCH_OK) {
        return status;
    }
    def->inertia_diag = tch_v3(v[0], v[1], v[2]);
    return is_physical_inertia(def->inertia_diag)
               ? TCH_OK
               : tch_mjcf_fail_attr(L, node, "diaginertia", expected);
}

static tch_status read_full_inertia(tch_mjcf_loader* L, const xmlNode* node, tch_body_def* def) {
    static const char* expected =
        "6 numbers (Ixx Iyy Izz Ixy Ixz Iyz) of a positive definite inertia whose principal "
        "moments satisfy the triangle inequality";
    tch_real* I = def->inertia_full;
    tch_status status = tch_mjcf_read_reals(L, node, "fullinertia", I, 6, 6, NULL, expected);
    if (status != TCH_OK) {
        return status;
    }
    tch_mat3 M = {{{I[0], I[3], I[4]}, {I[3], I[1], I[5]}, {I[4], I[5], I[2]}}};
    tch_vec3 moments;
    tch_mat3 axes;
    tch_m3_symmetric_eigen(M, &moments, &axes);
    def->has_full_inertia = true;
    return is_physical_inertia(moments) ? TCH_OK
                                        : tch_mjcf_fail_attr(L, node, "fullinertia", expected);
}

static tch_status read_inertia(tch_mjcf_loader* L, const xmlNode* node, tch_body_def* def) {
    bool diag = tch_mjcf_has_attr(node, "diaginertia");
    bool full = tch_mjcf_has_attr(node, "fullinertia");
    if (diag == full) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "expected exactly one of diaginertia and fullinertia, got %s",
                             diag ? "both" : "neither");
    }
    if (!full) {
        return read_diag_inertia(L, node, def);
    }
    for (size_t i = 0; i < 5; ++i) {
        if (tch_mjcf_has_attr(node, orientation_attrs[i])) {
            return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                                 "%s: fullinertia gives the orientation; expected no %s",
                                 orientation_attrs[i], orientation_attrs[i]);
        }
    }
    return read_full_inertia(L, node, def);
}

static tch_status load_inertial(tch_mjcf_loader* L, const xmlNode* node, tch_body_def* def) {
    static const char* const known[] = {"pos", "mass", "diaginertia", "fullinertia", NULL};
    if (def->has_inertial) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "is given twice in body '%s' (expected at most one)", def->name);
    }
    def->has_inertial = true;
    tch_status status = check_framed_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = read_position(L, node, &def->p_BCm);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_orientation(L, node, &def->q_BI);
    }
    if (status == TCH_OK && !tch_mjcf_has_attr(node, "mass")) {
        return tch_mjcf_fail_attr(L, node, "mass", "a number >= 0, kg");
    }
    if (status == TCH_OK) { /* massless: a link of a chain; a free body needs mass (compile) */
        status = tch_mjcf_read_nonnegative(L, node, "mass", false, &def->mass);
    }
    return status == TCH_OK ? read_inertia(L, node, def) : status;
}

/* ---- joints ---- */

static tch_status read_joint_real(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                  tch_real* out) {
    return tch_mjcf_read_reals(L, node, name, out, 1, 1, NULL, "1 number");
}

static tch_status read_joint_axis(tch_mjcf_loader* L, const xmlNode* node, tch_joint_def* def) {
    tch_real v[3];
    int count = 0;
    tch_status status = tch_mjcf_read_reals(L, node, "axis", v, 3, 3, &count, "3 numbers (x y z)");
    if (count == 3) {
        def->axis = tch_v3(v[0], v[1], v[2]);
    }
    return status;
}

static tch_status read_joint_range(tch_mjcf_loader* L, const xmlNode* node,
                                   tch_mjcf_joint_attrs* attrs) {
    static const char* const limited[] = {"auto", "false", "true", NULL};
    int count = 0, mode = (int)attrs->limited;
    tch_status status = tch_mjcf_read_reals(L, node, "range", attrs->def.range, 2, 2, &count,
                                            "2 numbers (lower upper)");
    attrs->range_given |= count == 2;
    if (status == TCH_OK) {
        status = tch_mjcf_read_keyword(L, node, "limited", limited, &mode);
    }
    attrs->limited = (tch_mjcf_limited)mode;
    return status;
}

/* Joint springs, dampers, rotor inertia and friction: numbers >= 0. */
static tch_status read_joint_passive(tch_mjcf_loader* L, const xmlNode* node, tch_joint_def* def) {
    static const char* const names[] = {"stiffness", "damping", "armature", "frictionloss"};
    tch_real* fields[] = {&def->stiffness, &def->damping, &def->armature, &def->frictionloss};
    tch_status status = TCH_OK;
    for (int i = 0; i < 4 && status == TCH_OK; ++i) {
        status = tch_mjcf_read_nonnegative(L, node, names[i], false, fields[i]);
    }
    return status;
}

tch_status tch_mjcf_apply_joint_attrs(tch_mjcf_loader* L, const xmlNode* node,
                                      tch_mjcf_joint_attrs* attrs) {
    static const char* const known[] = {"name",  "class",     "type",      "pos",     "axis",
                                        "range", "limited",   "ref",       "springref",
                                        "stiffness", "damping", "armature", "frictionloss",
                                        "solreflimit", NULL};
    static const char* const types[] = {"free", "ball", "slide", "hinge", NULL};
    int type = (int)attrs->def.type;
    tch_status status = tch_mjcf_check_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_read_keyword(L, node, "type", types, &type);
    }
    attrs->def.type = (tch_joint_type)type;
    if (status == TCH_OK) {
        status = read_position(L, node, &attrs->def.pos);
    }
    if (status == TCH_OK) {
        status = read_joint_axis(L, node, &attrs->def);
    }
    if (status == TCH_OK) {
        status = read_joint_range(L, node, attrs);
    }
    if (status == TCH_OK) {
        status = read_joint_real(L, node, "ref", &attrs->def.ref);
    }
    if (status == TCH_OK) {
        status = read_joint_real(L, node, "springref", &attrs->def.springref);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_solref(L, node, "solreflimit", attrs->def.solreflimit);
    }
    return status == TCH_OK ? read_joint_passive(L, node, &attrs->def) : status;
}

/* MuJoCo's rules once a joint is complete: limited "auto" follows compiler autolimits and
 * whether a range was given; hinge angles (range, ref, springref) and a ball's range are in the
 * compiler's unit. */
static tch_status complete_joint(tch_mjcf_loader* L, const xmlNode* node,
                                 tch_mjcf_joint_attrs* attrs) {
    tch_joint_def* def = &attrs->def;
    def->limited = attrs->limited == TCH_MJCF_LIMITED_TRUE ||
                   (attrs->limited == TCH_MJCF_LIMITED_AUTO && L->autolimits && attrs->range_given);
    bool moves_along_axis = def->type == TCH_JOINT_HINGE || def->type == TCH_JOINT_SLIDE;
    if (moves_along_axis && !(tch_v3_norm(def->axis) > 1e-12)) {
        return tch_mjcf_fail_attr(L, node, "axis", "a non-zero vector");
    }
    if (def->limited && !attrs->range_given) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "limited: a limited joint needs a range (expected range=\"lower "
                             "upper\")");
    }
    if (def->limited && def->range[0] > def->range[1]) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "range: lower limit %g is above upper limit %g (expected lower <= "
                             "upper)",
                             def->range[0], def->range[1]);
    }
    if (def->type == TCH_JOINT_HINGE && L->angle_degrees) {
        const tch_real to_radians = TCH_PI / 180.0;
        def->range[0] *= to_radians;
        def->range[1] *= to_radians;
        def->ref *= to_radians;
        def->springref *= to_radians;
    }
    if (def->type == TCH_JOINT_BALL && L->angle_degrees) { /* the cone's angle, as MuJoCo */
        def->range[0] *= TCH_PI / 180.0;
        def->range[1] *= TCH_PI / 180.0;
    }
    /* a free joint's range means nothing (as in MuJoCo); a ball's is its cone */
    def->limited &= moves_along_axis || def->type == TCH_JOINT_BALL;
    return TCH_OK;
}

/* The joints of one body, read before the body is added and added after it. */
typedef struct body_joints {
    tch_joint_def defs[16];
    int count;
    bool free_joint; /* a free joint (the only joint of its body, or an error) */
} body_joints;

static tch_status add_body_joint(tch_mjcf_loader* L, const xmlNode* node, const tch_body_def* def,
                                 const tch_body_def* parent, const tch_joint_def* joint,
                                 body_joints* joints) {
    if (joints->free_joint || (joint->type == TCH_JOINT_FREE && joints->count > 0)) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "body '%s' has a free joint and another joint (expected a free "
                             "joint to be the only joint of its body)",
                             def->name);
    }
    if (joint->type == TCH_JOINT_FREE && parent) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "free joint in body '%s' whose parent is body '%s' (expected a "
                             "free joint only in a child of <worldbody>, as MuJoCo requires)",
                             def->name, parent->name);
    }
    if (joints->count == (int)(sizeof joints->defs / sizeof joints->defs[0])) {
        return tch_mjcf_fail(L, node, TCH_ERR_UNSUPPORTED,
                             "body '%s' has more than 16 joints (expected at most 16)", def->name);
    }
    joints->free_joint = joint->type == TCH_JOINT_FREE;
    joints->defs[joints->count++] = *joint;
    return TCH_OK;
}

static tch_status load_joint(tch_mjcf_loader* L, const xmlNode* node, const tch_body_def* def,
                             const tch_body_def* parent, int class_index, body_joints* joints) {
    tch_status status = tch_mjcf_node_class(L, node, class_index, &class_index);
    if (status != TCH_OK) {
        return status;
    }
    tch_mjcf_joint_attrs attrs = tch_mjcf_joint_template(L, class_index);
    attrs.def.source = tch_mjcf_source(L, node);
    status = tch_mjcf_read_string(L, node, "name", attrs.def.name, sizeof attrs.def.name);
    if (status == TCH_OK) {
        status = tch_mjcf_apply_joint_attrs(L, node, &attrs);
    }
    if (status == TCH_OK) {
        status = complete_joint(L, node, &attrs);
    }
    return status == TCH_OK ? add_body_joint(L, node, def, parent, &attrs.def, joints) : status;
}

static tch_status load_freejoint(tch_mjcf_loader* L, const xmlNode* node, const tch_body_def* def,
                                 const tch_body_def* parent, body_joints* joints) {
    static const char* const known[] = {"name", NULL};
    tch_joint_def joint = tch_joint_def_default();
    joint.type = TCH_JOINT_FREE;
    joint.source = tch_mjcf_source(L, node);
    tch_status status = tch_mjcf_check_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "name", joint.name, sizeof joint.name);
    }
    return status == TCH_OK ? add_body_joint(L, node, def, parent, &joint, joints) : status;
}

/* A body whose one joint is free keeps the free-body path (tch_body_def.free_joint); other
 * joints go to the spec after the body. */
static tch_status add_joints(tch_mjcf_loader* L, const xmlNode* node, tch_body_id body,
                             const body_joints* joints) {
    tch_status status = TCH_OK;
    for (int j = 0; j < joints->count && !joints->free_joint && status == TCH_OK; ++j) {
        status = tch_mjcf_spec_status(
            L, node, tch_spec_add_joint(L->spec, body, &joints->defs[j], NULL, L->err));
    }
    return status;
}

/* ---- sites ---- */

/* A named frame: name, pos and orientation; type and size (MuJoCo draws them) are read past. */
static tch_status load_site(tch_mjcf_loader* L, const xmlNode* node, tch_body_id body) {
    static const char* const known[] = {"name", "class", "pos", "type", "size", NULL};
    tch_site_def def = tch_site_def_default();
    def.source = tch_mjcf_source(L, node);
    tch_status status = check_framed_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "name", def.name, sizeof def.name);
    }
    if (status == TCH_OK) {
        status = read_position(L, node, &def.p_BS);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_orientation(L, node, &def.q_BS);
    }
    return status == TCH_OK
               ? tch_mjcf_spec_status(L, node, tch_spec_add_site(L->spec, body, &def, L->err))
               : status;
}

/* ---- bodies ---- */

static tch_status load_children(tch_mjcf_loader* L, const xmlNode* node, tch_body_id body,
                                int class_index);

/* Reads the elements that shape the body def itself: inertial and joints. */
static tch_status load_body_properties(tch_mjcf_loader* L, const xmlNode* node, tch_body_def* def,
                                       int class_index, body_joints* joints) {
    const tch_body_def* parent = tch_spec_body(L->spec, def->parent);
    tch_status status = TCH_OK;
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        if (tch_mjcf_is(child, "inertial")) {
            status = load_inertial(L, child, def);
        } else if (tch_mjcf_is(child, "freejoint")) {
            status = load_freejoint(L, child, def, parent, joints);
        } else if (tch_mjcf_is(child, "joint")) {
            status = load_joint(L, child, def, parent, class_index, joints);
        }
    }
    def->free_joint = joints->free_joint;
    return status;
}

static tch_status load_body(tch_mjcf_loader* L, const xmlNode* node, tch_body_id parent,
                            int inherited_class) {
    static const char* const known[] = {"name", "pos", "childclass", "mocap", NULL};
    tch_body_def def = tch_body_def_default();
    def.parent = parent;
    def.source = tch_mjcf_source(L, node);
    char child_class[64] = "";
    int class_index = inherited_class;
    tch_status status = check_framed_attributes(L, node, known, true);
    if (status == TCH_OK) {
        status = tch_mjcf_read_body_haptic(L, node, &def);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "name", def.name, sizeof def.name);
    }
    if (status == TCH_OK) {
        status = read_position(L, node, &def.p_PB);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_orientation(L, node, &def.q_PB);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "childclass", child_class, sizeof child_class);
    }
    if (status == TCH_OK && child_class[0] != '\0') {
        class_index = tch_mjcf_find_class(L, child_class);
        if (class_index < 0) {
            return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                                 "childclass: no default class named '%s' (expected a class "
                                 "defined in <default>)",
                                 child_class);
        }
    }
    body_joints joints = {.count = 0};
    if (status == TCH_OK) {
        status = load_body_properties(L, node, &def, class_index, &joints);
    }
    tch_body_id id = TCH_WORLD_BODY;
    if (status == TCH_OK) {
        status = tch_mjcf_spec_status(L, node, tch_spec_add_body(L->spec, &def, &id, L->err));
    }
    if (status == TCH_OK) {
        status = add_joints(L, node, id, &joints);
    }
    return status == TCH_OK ? load_children(L, node, id, class_index) : status;
}

static bool is_body_property(const xmlNode* node) {
    return tch_mjcf_is(node, "inertial") || tch_mjcf_is(node, "freejoint") ||
           tch_mjcf_is(node, "joint");
}

/* Geoms first, then child bodies, then warnings for the rest. */
static tch_status load_children(tch_mjcf_loader* L, const xmlNode* node, tch_body_id body,
                                int class_index) {
    tch_status status = TCH_OK;
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        if (tch_mjcf_is(child, "geom")) {
            status = load_geom(L, child, body, class_index);
        }
    }
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        if (tch_mjcf_is(child, "body")) {
            status = load_body(L, child, body, class_index);
        } else if (tch_mjcf_is(child, "site")) {
            status = load_site(L, child, body);
        } else if (body.index == 0 && is_body_property(child)) {
            status = tch_mjcf_fail(L, child, TCH_ERR_PARSE,
                                   "is not allowed in <worldbody> (expected it in a <body>)");
        } else if (!tch_mjcf_is(child, "geom") && !is_body_property(child)) {
            status = tch_mjcf_skip_element(L, child);
        }
    }
    return status;
}

tch_status tch_mjcf_load_worldbody(tch_mjcf_loader* L, const xmlNode* node) {
    tch_status status = tch_mjcf_check_attributes(L, node, (const char* const[]){NULL}, false);
    return status == TCH_OK ? load_children(L, node, TCH_WORLD_BODY, -1) : status;
}
