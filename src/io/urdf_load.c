/* URDF loading (docs/articulated.md, "URDF"): links, inertials, collision geometry and joints
 * into the same spec the MJCF loader fills, read with the MJCF loader's XML machinery
 * (tch_xml_load_path: C locale, errors with file and line).
 *
 * Frames (ROS REP 103, the URDF specification): a joint's origin places its child link's frame
 * in its parent link's frame at q = 0; the axis is in the joint (= child link) frame; rpy is
 * roll about x, pitch about y, yaw about z, fixed axes: R = Rz(yaw) Ry(pitch) Rx(roll).
 * Revolute joints become limited hinges, continuous ones free hinges, prismatic ones limited
 * slides, fixed ones welds, floating ones free joints. The root link is welded to the world;
 * a root link named "world" is the world itself (its floating joints make free bodies). Mass
 * comes from <inertial> only: collision geoms carry none.
 */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "io/mjcf_internal.h"
#include "io/spec_internal.h"
#include "math/vec.h"

enum { URDF_MAX_LINKS = 4096 };

typedef struct urdf_joint {
    const xmlNode* node;
    char name[64], type[16], parent[64], child[64];
} urdf_joint;

typedef struct urdf_robot {
    const xmlNode* links[URDF_MAX_LINKS];
    char link_names[URDF_MAX_LINKS][64];
    int link_count;
    urdf_joint* joints;
    int joint_count;
    int* parent_joint; /* [link_count] the joint whose child the link is, -1 for a root */
    const char* package_path;
    int mesh_count;
} urdf_robot;

/* ---- small readers ---- */

static const xmlNode* child_named(const xmlNode* node, const char* name) {
    for (const xmlNode* c = tch_mjcf_first_element(node); c; c = tch_mjcf_next_element(c)) {
        if (tch_mjcf_is(c, name)) {
            return c;
        }
    }
    return NULL;
}

static tch_quat quat_from_rpy(tch_real roll, tch_real pitch, tch_real yaw) {
    tch_quat qx = tch_q_axis_angle(tch_v3(1, 0, 0), roll);
    tch_quat qy = tch_q_axis_angle(tch_v3(0, 1, 0), pitch);
    tch_quat qz = tch_q_axis_angle(tch_v3(0, 0, 1), yaw);
    return tch_q_mul(qz, tch_q_mul(qy, qx));
}

/* <origin xyz rpy>, identity when absent. */
static tch_status read_origin(tch_mjcf_loader* L, const xmlNode* parent, tch_transform* X) {
    static const char* const known[] = {"xyz", "rpy", NULL};
    *X = tch_x_identity();
    const xmlNode* node = child_named(parent, "origin");
    if (!node) {
        return TCH_OK;
    }
    tch_real xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0};
    tch_status status = tch_mjcf_check_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_read_reals(L, node, "xyz", xyz, 3, 3, NULL, "3 numbers (x y z), m");
    }
    if (status == TCH_OK) {
        status =
            tch_mjcf_read_reals(L, node, "rpy", rpy, 3, 3, NULL, "3 numbers (roll pitch yaw), rad");
    }
    *X = (tch_transform){quat_from_rpy(rpy[0], rpy[1], rpy[2]), tch_v3(xyz[0], xyz[1], xyz[2])};
    return status;
}

static tch_status read_required_string(tch_mjcf_loader* L, const xmlNode* node, const char* attr,
                                       char* out, size_t size, const char* expected) {
    tch_status status = tch_mjcf_read_string(L, node, attr, out, size);
    if (status == TCH_OK && out[0] == '\0') {
        return tch_mjcf_fail_attr(L, node, attr, expected);
    }
    return status;
}

/* ---- the link tree ---- */

static int find_link(const urdf_robot* r, const char* name) {
    for (int i = 0; i < r->link_count; ++i) {
        if (strcmp(r->link_names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

static tch_status collect_link(tch_mjcf_loader* L, const xmlNode* node, urdf_robot* r) {
    if (r->link_count == URDF_MAX_LINKS) {
        return tch_mjcf_fail(L, node, TCH_ERR_UNSUPPORTED, "more than %d links", URDF_MAX_LINKS);
    }
    char* name = r->link_names[r->link_count];
    tch_status status = read_required_string(L, node, "name", name, 64, "a link name");
    if (status == TCH_OK && find_link(r, name) >= 0) { /* the earlier links only */
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE, "name: duplicate link name '%s'", name);
    }
    r->links[r->link_count++] = node;
    return status;
}

static tch_status collect_joint(tch_mjcf_loader* L, const xmlNode* node, urdf_robot* r) {
    urdf_joint* j = &r->joints[r->joint_count];
    j->node = node;
    tch_status status = read_required_string(L, node, "name", j->name, sizeof j->name, "a name");
    if (status == TCH_OK) {
        status = read_required_string(L, node, "type", j->type, sizeof j->type,
                                      "revolute, continuous, prismatic, fixed or floating");
    }
    for (int k = 0; k < r->joint_count && status == TCH_OK; ++k) {
        if (strcmp(r->joints[k].name, j->name) == 0) {
            return tch_mjcf_fail(L, node, TCH_ERR_PARSE, "name: duplicate joint name '%s'",
                                 j->name);
        }
    }
    const char* ends[2] = {"parent", "child"};
    char* names[2] = {j->parent, j->child};
    for (int e = 0; e < 2 && status == TCH_OK; ++e) {
        const xmlNode* end = child_named(node, ends[e]);
        if (!end) {
            return tch_mjcf_fail(L, node, TCH_ERR_PARSE, "has no <%s link=\"...\"/>", ends[e]);
        }
        status = read_required_string(L, end, "link", names[e], 64, "a link name");
        if (status == TCH_OK && find_link(r, names[e]) < 0) {
            return tch_mjcf_fail(L, end, TCH_ERR_PARSE, "link: no link named '%s'", names[e]);
        }
    }
    r->joint_count++;
    return status;
}

/* Parent joints, one per link at most; the single root; no cycle. *root gets the root. */
static tch_status link_parents(tch_mjcf_loader* L, const xmlNode* robot, urdf_robot* r, int* root) {
    for (int i = 0; i < r->link_count; ++i) {
        r->parent_joint[i] = -1;
    }
    for (int k = 0; k < r->joint_count; ++k) {
        int child = find_link(r, r->joints[k].child);
        if (r->parent_joint[child] >= 0) {
            return tch_mjcf_fail(L, r->joints[k].node, TCH_ERR_PARSE,
                                 "link '%s' is already the child of joint '%s' (expected one "
                                 "parent per link: a tree)",
                                 r->joints[k].child, r->joints[r->parent_joint[child]].name);
        }
        r->parent_joint[child] = k;
    }
    *root = -1;
    for (int i = 0; i < r->link_count; ++i) {
        if (r->parent_joint[i] < 0) {
            if (*root >= 0) {
                return tch_mjcf_fail(L, r->links[i], TCH_ERR_PARSE,
                                     "link '%s' is a second root besides '%s' (expected one "
                                     "tree of joints)",
                                     r->link_names[i], r->link_names[*root]);
            }
            *root = i;
        }
    }
    for (int i = 0; i < r->link_count; ++i) { /* every link reaches the root */
        int at = i, hops = 0;
        while (r->parent_joint[at] >= 0 && hops++ <= r->link_count) {
            at = find_link(r, r->joints[r->parent_joint[at]].parent);
        }
        if (at != *root) {
            return tch_mjcf_fail(L, r->links[i], TCH_ERR_PARSE,
                                 "link '%s' is on a cycle of joints (expected a tree)",
                                 r->link_names[i]);
        }
    }
    if (*root < 0) {
        return tch_mjcf_fail(L, robot, TCH_ERR_PARSE, "has no link (expected at least one)");
    }
    return TCH_OK;
}

/* ---- link contents ---- */

/* <inertial>: mass, origin and the inertia in the origin's frame, into body axes. */
static tch_status read_inertial(tch_mjcf_loader* L, const xmlNode* link, tch_body_def* def) {
    const xmlNode* inertial = child_named(link, "inertial");
    if (!inertial) {
        return TCH_OK; /* massless */
    }
    tch_transform X_BI;
    tch_status status = read_origin(L, inertial, &X_BI);
    const xmlNode* mass = child_named(inertial, "mass");
    const xmlNode* inertia = child_named(inertial, "inertia");
    if (status == TCH_OK && (!mass || !inertia)) {
        return tch_mjcf_fail(L, inertial, TCH_ERR_PARSE, "needs <mass> and <inertia>");
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_nonnegative(L, mass, "value", false, &def->mass);
    }
    static const char* const names[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
    tch_real I[6] = {0};
    for (int i = 0; i < 6 && status == TCH_OK; ++i) {
        status = tch_mjcf_read_reals(L, inertia, names[i], &I[i], 1, 1, NULL, "1 number, kg m^2");
    }
    if (status != TCH_OK) {
        return status;
    }
    bool zero = def->mass == 0 && I[0] == 0 && I[1] == 0 && I[2] == 0 && I[3] == 0 && I[4] == 0 &&
                I[5] == 0;
    if (zero) {
        return TCH_OK; /* an explicit massless link */
    }
    tch_mat3 I_I = {{{I[0], I[3], I[4]}, {I[3], I[1], I[5]}, {I[4], I[5], I[2]}}};
    tch_mat3 I_B = tch_m3_rotate_tensor(tch_q_to_mat3(X_BI.q), I_I);
    def->has_inertial = true;
    def->has_full_inertia = true;
    def->p_BCm = X_BI.p;
    const tch_real full[6] = {I_B.m[0][0], I_B.m[1][1], I_B.m[2][2],
                              I_B.m[0][1], I_B.m[0][2], I_B.m[1][2]};
    memcpy(def->inertia_full, full, sizeof full);
    return TCH_OK;
}

/* package://NAME/REST against the search path (directories separated by ':'), else relative
 * to the robot file's directory; file:// is a plain path. */
static tch_status resolve_mesh_path(tch_mjcf_loader* L, const xmlNode* node, const urdf_robot* r,
                                    const char* uri, char* path, size_t size) {
    if (strncmp(uri, "file://", 7) == 0) {
        uri += 7;
    }
    if (strncmp(uri, "package://", 10) != 0) {
        int n = uri[0] == '/' ? snprintf(path, size, "%s", uri)
                              : snprintf(path, size, "%s/%s", L->scene_dir, uri);
        return n > 0 && (size_t)n < size
                   ? TCH_OK
                   : tch_mjcf_fail_attr(L, node, "filename", "a shorter path");
    }
    const char* rest = uri + 10;
    const char* search = r->package_path ? r->package_path : "";
    while (*search != '\0') {
        size_t length = strcspn(search, ":");
        int n = snprintf(path, size, "%.*s/%s", (int)length, search, rest);
        if (n > 0 && (size_t)n < size && access(path, R_OK) == 0) {
            return TCH_OK;
        }
        search += length + (search[length] == ':');
    }
    return tch_mjcf_fail(L, node, TCH_ERR_IO,
                         "filename: '%s' is not found in the package search path '%s' (expected "
                         "a directory holding the package)",
                         uri, r->package_path ? r->package_path : "");
}

static tch_status add_mesh(tch_mjcf_loader* L, const xmlNode* node, urdf_robot* r,
                           tch_geom_def* geom) {
    char uri[512] = "", path[PATH_MAX];
    tch_real scale[3] = {1, 1, 1};
    tch_status status = read_required_string(L, node, "filename", uri, sizeof uri, "a mesh file");
    if (status == TCH_OK) {
        status = tch_mjcf_read_reals(L, node, "scale", scale, 3, 3, NULL, "3 numbers");
    }
    if (status == TCH_OK) {
        status = resolve_mesh_path(L, node, r, uri, path, sizeof path);
    }
    tch_mesh_def mesh = tch_mesh_def_default();
    tch_vec3* vertices = NULL;
    if (status == TCH_OK) {
        tch_error mesh_err;
        tch_error_clear(&mesh_err);
        if (tch_mesh_read_vertices(path, &vertices, &mesh.vertex_count, &mesh_err) != TCH_OK) {
            return tch_mjcf_fail(L, node, mesh_err.status, "filename '%s': %s", uri,
                                 mesh_err.message);
        }
    }
    if (status == TCH_OK) {
        snprintf(mesh.name, sizeof mesh.name, "urdf_mesh_%d", r->mesh_count++);
        tch_copy_string(mesh.file, sizeof mesh.file, path);
        mesh.vertices = vertices;
        mesh.scale = tch_v3(scale[0], scale[1], scale[2]);
        mesh.source = tch_mjcf_source(L, node);
        status =
            tch_mjcf_spec_status(L, node, tch_spec_add_mesh(L->spec, &mesh, &geom->mesh, L->err));
    }
    free(vertices);
    return status;
}

/* <geometry>: box (full sizes), cylinder (along z), sphere, mesh. */
static tch_status read_geometry(tch_mjcf_loader* L, const xmlNode* collision, urdf_robot* r,
                                tch_geom_def* geom) {
    const xmlNode* geometry = child_named(collision, "geometry");
    const xmlNode* shape = geometry ? tch_mjcf_first_element(geometry) : NULL;
    if (!shape) {
        return tch_mjcf_fail(L, collision, TCH_ERR_PARSE,
                             "needs a <geometry> with a box, cylinder, sphere or mesh");
    }
    tch_status status = TCH_OK;
    if (tch_mjcf_is(shape, "box")) {
        geom->type = TCH_GEOM_BOX;
        status = tch_mjcf_read_reals(L, shape, "size", geom->size, 3, 3, NULL, "3 sizes, m");
        for (int i = 0; i < 3; ++i) {
            geom->size[i] /= 2;
        }
    } else if (tch_mjcf_is(shape, "cylinder")) {
        geom->type = TCH_GEOM_CYLINDER;
        status = tch_mjcf_read_nonnegative(L, shape, "radius", true, &geom->size[0]);
        if (status == TCH_OK) {
            status = tch_mjcf_read_nonnegative(L, shape, "length", true, &geom->size[1]);
        }
        geom->size[1] /= 2;
    } else if (tch_mjcf_is(shape, "sphere")) {
        geom->type = TCH_GEOM_SPHERE;
        status = tch_mjcf_read_nonnegative(L, shape, "radius", true, &geom->size[0]);
    } else if (tch_mjcf_is(shape, "mesh")) {
        geom->type = TCH_GEOM_MESH;
        status = add_mesh(L, shape, r, geom);
    } else {
        return tch_mjcf_fail(L, shape, TCH_ERR_UNSUPPORTED,
                             "is not supported yet (expected box, cylinder, sphere or mesh)");
    }
    if (status == TCH_OK && geom->type != TCH_GEOM_MESH && !(geom->size[0] > 0)) {
        return tch_mjcf_fail(L, shape, TCH_ERR_PARSE, "needs positive sizes");
    }
    return status;
}

static tch_status add_collisions(tch_mjcf_loader* L, const xmlNode* link, urdf_robot* r,
                                 tch_body_id body) {
    tch_status status = TCH_OK;
    for (const xmlNode* c = tch_mjcf_first_element(link); c && status == TCH_OK;
         c = tch_mjcf_next_element(c)) {
        if (!tch_mjcf_is(c, "collision")) {
            continue;
        }
        tch_geom_def geom = tch_geom_def_default();
        geom.mass = 0; /* URDF: mass from <inertial> only */
        geom.source = tch_mjcf_source(L, c);
        tch_transform X;
        status = read_origin(L, c, &X);
        geom.p_BG = X.p;
        geom.q_BG = X.q;
        if (status == TCH_OK) {
            status = read_geometry(L, c, r, &geom);
        }
        if (status == TCH_OK) {
            status =
                tch_mjcf_spec_status(L, c, tch_spec_add_geom(L->spec, body, &geom, NULL, L->err));
        }
    }
    return status;
}

/* ---- joints ---- */

static tch_status read_joint_def(tch_mjcf_loader* L, const urdf_joint* j, tch_joint_def* def) {
    def->source = tch_mjcf_source(L, j->node);
    tch_copy_string(def->name, sizeof def->name, j->name);
    def->type = strcmp(j->type, "prismatic") == 0 ? TCH_JOINT_SLIDE : TCH_JOINT_HINGE;
    def->axis = tch_v3(1, 0, 0); /* URDF's default */
    tch_real v[3];
    tch_status status = TCH_OK;
    const xmlNode* axis = child_named(j->node, "axis");
    if (axis) {
        int count = 0;
        status = tch_mjcf_read_reals(L, axis, "xyz", v, 3, 3, &count, "3 numbers (x y z)");
        def->axis = count == 3 ? tch_v3(v[0], v[1], v[2]) : def->axis;
        if (status == TCH_OK && !(tch_v3_norm(def->axis) > 1e-12)) {
            return tch_mjcf_fail_attr(L, axis, "xyz", "a non-zero vector");
        }
    }
    const xmlNode* limit = child_named(j->node, "limit");
    def->limited = strcmp(j->type, "continuous") != 0;
    if (def->limited && !limit && status == TCH_OK) {
        return tch_mjcf_fail(L, j->node, TCH_ERR_PARSE,
                             "a %s joint needs <limit lower=\"...\" upper=\"...\"/>", j->type);
    }
    if (def->limited && status == TCH_OK) {
        status = tch_mjcf_read_reals(L, limit, "lower", &def->range[0], 1, 1, NULL, "1 number");
        if (status == TCH_OK) {
            status = tch_mjcf_read_reals(L, limit, "upper", &def->range[1], 1, 1, NULL, "1 number");
        }
        if (status == TCH_OK && def->range[0] > def->range[1]) {
            return tch_mjcf_fail(L, limit, TCH_ERR_PARSE,
                                 "lower limit %g is above upper limit %g (expected lower <= "
                                 "upper)",
                                 def->range[0], def->range[1]);
        }
    }
    const xmlNode* dynamics = child_named(j->node, "dynamics");
    if (dynamics && status == TCH_OK) {
        status = tch_mjcf_read_nonnegative(L, dynamics, "damping", false, &def->damping);
        if (status == TCH_OK) {
            status = tch_mjcf_read_nonnegative(L, dynamics, "friction", false, &def->frictionloss);
        }
        if (status == TCH_OK) { /* touche's extension: URDF has no rotor inertia */
            status = tch_mjcf_read_nonnegative(L, dynamics, "armature", false, &def->armature);
        }
    }
    return status;
}

/* ---- the robot ---- */

static tch_status add_link(tch_mjcf_loader* L, urdf_robot* r, int link, tch_body_id parent);

/* The body of `link` under `parent`, placed and jointed by the link's parent joint k. */
static tch_status add_child_link(tch_mjcf_loader* L, urdf_robot* r, int link, tch_body_id parent) {
    const urdf_joint* j = &r->joints[r->parent_joint[link]];
    static const char* const types[] = {"revolute", "continuous", "prismatic",
                                        "fixed",    "floating",   NULL};
    int type = -1;
    for (int t = 0; types[t]; ++t) {
        type = strcmp(j->type, types[t]) == 0 ? t : type;
    }
    if (type < 0) {
        return tch_mjcf_fail(L, j->node, TCH_ERR_UNSUPPORTED,
                             "type: '%s' is not supported yet (expected revolute, continuous, "
                             "prismatic, fixed or floating)",
                             j->type);
    }
    if (type == 4 && parent.index != 0) {
        return tch_mjcf_fail(L, j->node, TCH_ERR_PARSE,
                             "a floating joint must hang from the root link named \"world\"");
    }
    tch_body_def body = tch_body_def_default();
    tch_copy_string(body.name, sizeof body.name, r->link_names[link]);
    body.parent = parent;
    body.source = tch_mjcf_source(L, r->links[link]);
    body.free_joint = type == 4;
    tch_transform X_PB;
    tch_status status = read_origin(L, j->node, &X_PB);
    body.p_PB = X_PB.p;
    body.q_PB = X_PB.q;
    if (status == TCH_OK) {
        status = read_inertial(L, r->links[link], &body);
    }
    tch_body_id id = TCH_WORLD_BODY;
    if (status == TCH_OK) {
        status =
            tch_mjcf_spec_status(L, r->links[link], tch_spec_add_body(L->spec, &body, &id, L->err));
    }
    if (status == TCH_OK && type <= 2) {
        tch_joint_def joint = tch_joint_def_default();
        status = read_joint_def(L, j, &joint);
        if (status == TCH_OK) {
            status = tch_mjcf_spec_status(L, j->node,
                                          tch_spec_add_joint(L->spec, id, &joint, NULL, L->err));
        }
    }
    if (status == TCH_OK) {
        status = add_collisions(L, r->links[link], r, id);
    }
    return status == TCH_OK ? add_link(L, r, link, id) : status;
}

/* The children of `link` (whose body is `body`), depth first. */
static tch_status add_link(tch_mjcf_loader* L, urdf_robot* r, int link, tch_body_id body) {
    tch_status status = TCH_OK;
    for (int k = 0; k < r->joint_count && status == TCH_OK; ++k) {
        if (strcmp(r->joints[k].parent, r->link_names[link]) == 0) {
            status = add_child_link(L, r, find_link(r, r->joints[k].child), body);
        }
    }
    return status;
}

/* The root: the world itself when named "world", else a body welded to the world. */
static tch_status add_root(tch_mjcf_loader* L, urdf_robot* r, int root) {
    if (strcmp(r->link_names[root], "world") == 0) {
        return add_link(L, r, root, TCH_WORLD_BODY);
    }
    tch_body_def body = tch_body_def_default();
    tch_copy_string(body.name, sizeof body.name, r->link_names[root]);
    body.source = tch_mjcf_source(L, r->links[root]);
    tch_status status = read_inertial(L, r->links[root], &body);
    tch_body_id id = TCH_WORLD_BODY;
    if (status == TCH_OK) {
        status =
            tch_mjcf_spec_status(L, r->links[root], tch_spec_add_body(L->spec, &body, &id, L->err));
    }
    if (status == TCH_OK) {
        status = add_collisions(L, r->links[root], r, id);
    }
    return status == TCH_OK ? add_link(L, r, root, id) : status;
}

static tch_status collect(tch_mjcf_loader* L, const xmlNode* robot, urdf_robot* r) {
    tch_status status = TCH_OK;
    for (const xmlNode* c = tch_mjcf_first_element(robot); c && status == TCH_OK;
         c = tch_mjcf_next_element(c)) {
        if (tch_mjcf_is(c, "link")) {
            status = collect_link(L, c, r);
        }
    }
    for (const xmlNode* c = tch_mjcf_first_element(robot); c && status == TCH_OK;
         c = tch_mjcf_next_element(c)) {
        if (tch_mjcf_is(c, "joint")) {
            status = collect_joint(L, c, r);
        }
    }
    return status;
}

static tch_status load_robot(tch_mjcf_loader* L, const xmlNode* robot) {
    if (!tch_mjcf_is(robot, "robot")) {
        return tch_mjcf_fail(L, robot, TCH_ERR_PARSE, "is not a URDF root (expected <robot>)");
    }
    urdf_robot* r = calloc(1, sizeof *r);
    int joints = 0;
    for (const xmlNode* c = tch_mjcf_first_element(robot); c; c = tch_mjcf_next_element(c)) {
        joints += tch_mjcf_is(c, "joint");
    }
    if (!r || !(r->joints = calloc((size_t)joints + 1, sizeof *r->joints)) ||
        !(r->parent_joint = calloc(URDF_MAX_LINKS, sizeof *r->parent_joint))) {
        if (r) {
            free(r->joints);
        }
        free(r);
        return tch_mjcf_fail(L, robot, TCH_ERR_OUT_OF_MEMORY, "out of memory");
    }
    r->package_path = L->user;
    char name[64] = "";
    tch_mjcf_read_string(L, robot, "name", name, sizeof name);
    tch_spec_set_model_name(L->spec, name);
    int root = -1;
    tch_status status = collect(L, robot, r);
    if (status == TCH_OK) {
        status = link_parents(L, robot, r, &root);
    }
    if (status == TCH_OK) {
        status = add_root(L, r, root);
    }
    free(r->joints);
    free(r->parent_joint);
    free(r);
    return status;
}

tch_status tch_urdf_load(const char* path, const char* package_path, tch_spec** out,
                         tch_error* err) {
    return tch_xml_load_path(path, load_robot, (void*)package_path, out, err);
}
