/* Kinematic trees: validation of the definition, the link layout, and the data buffers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "dynamics/tree.h"

tch_tree_body_def tch_tree_body_def_default(void) {
    tch_tree_body_def b;
    memset(&b, 0, sizeof b);
    b.parent = -1;
    b.X_PB = tch_x_identity();
    return b;
}

tch_tree_joint_def tch_tree_joint_def_default(void) {
    tch_tree_joint_def j;
    memset(&j, 0, sizeof j);
    j.type = TCH_TREE_JOINT_HINGE;
    j.axis = (tch_vec3){0, 0, 1};
    return j;
}

static tch_status invalid(tch_error* err, const char* element, const char* format, const char* name,
                          const char* detail) {
    tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, format, name, detail);
    tch_error_set_element(err, element);
    return TCH_ERR_INVALID_ARGUMENT;
}

static int joint_nq(tch_tree_joint_type type) {
    return type == TCH_TREE_JOINT_FREE ? 7 : (type == TCH_TREE_JOINT_BALL ? 4 : 1);
}

static int joint_nv(tch_tree_joint_type type) {
    return type == TCH_TREE_JOINT_FREE ? 6 : (type == TCH_TREE_JOINT_BALL ? 3 : 1);
}

/* ---- validation ---- */

static bool mat3_finite(tch_mat3 m) {
    for (int i = 0; i < 3; ++i) {
        if (!tch_v3_isfinite(tch_m3_row(m, i))) {
            return false;
        }
    }
    return true;
}

/* Checks the rotational inertia of body b and, when the body opts in, repairs a triangle
 * inequality violation by raising the two smaller principal moments (tch_tree_body_def). */
static tch_status check_inertia(const tch_tree_body_def* b, tch_mat3* I_out, tch_error* err) {
    tch_mat3 I = b->I_Cm;
    if (!mat3_finite(I)) {
        return invalid(err, b->name, "body '%s': inertia is not finite%s", b->name, "");
    }
    tch_real scale = fabs(I.m[0][0]) + fabs(I.m[1][1]) + fabs(I.m[2][2]);
    for (int i = 0; i < 3; ++i) {
        for (int j = i + 1; j < 3; ++j) {
            if (fabs(I.m[i][j] - I.m[j][i]) > 1e-12 * scale) {
                return invalid(err, b->name, "body '%s': inertia is not symmetric%s", b->name, "");
            }
        }
    }
    tch_vec3 moments;
    tch_mat3 axes;
    tch_m3_symmetric_eigen(I, &moments, &axes); /* descending */
    tch_real slack = 1e-12 * scale;
    if (moments.z < -slack) {
        return invalid(err, b->name, "body '%s': inertia is not positive semi-definite%s", b->name,
                       " (a principal moment is negative)");
    }
    if (moments.y + moments.z < moments.x - slack) {
        if (!b->repair_triangle_inequality) {
            return invalid(err, b->name,
                           "body '%s': principal moments violate the triangle inequality%s",
                           b->name,
                           " (the two smaller sum to less than the largest); no rigid "
                           "body has them: fix the data or opt in to the repair");
        }
        tch_real raise = (moments.x - moments.y - moments.z) / 2;
        moments.y += raise;
        moments.z += raise;
        I = tch_m3_rotate_tensor(axes, tch_m3_diag(moments));
    }
    if (b->mass > 0 && !(moments.z > slack)) {
        return invalid(err, b->name, "body '%s': inertia is not positive definite%s", b->name,
                       " (a body with mass needs three positive principal moments)");
    }
    *I_out = I;
    return TCH_OK;
}

static tch_status check_body(const tch_tree_body_def* b, int index, tch_mat3* I_Cm,
                             tch_error* err) {
    if (b->parent < -1 || b->parent >= index) {
        return invalid(err, b->name, "body '%s': parent is not an earlier body%s", b->name,
                       " (bodies come in topological order, parents first, so no cycle)");
    }
    if (!(b->mass >= 0) || !isfinite(b->mass)) {
        return invalid(err, b->name, "body '%s': mass must be finite and >= 0%s", b->name, "");
    }
    if (!tch_v3_isfinite(b->p_BCm) || !tch_v3_isfinite(b->X_PB.p) ||
        !(fabs(tch_q_norm(b->X_PB.q) - 1) < 1e-9)) {
        return invalid(err, b->name, "body '%s': placement or centre of mass is not finite%s",
                       b->name, " (or the quaternion is not unit)");
    }
    return check_inertia(b, I_Cm, err);
}

static bool joint_values_finite(const tch_tree_joint_def* j) {
    return tch_v3_isfinite(j->pos) && tch_v3_isfinite(j->axis) && isfinite(j->ref) &&
           isfinite(j->armature) && isfinite(j->damping) && isfinite(j->stiffness) &&
           isfinite(j->springref) && isfinite(j->range[0]) && isfinite(j->range[1]);
}

static tch_status check_joint(const tch_tree_def* def, int index, tch_error* err) {
    const tch_tree_joint_def* j = &def->joints[index];
    if (j->body < 0 || j->body >= def->body_count ||
        (index > 0 && j->body < def->joints[index - 1].body)) {
        return invalid(err, j->name, "joint '%s': body is out of range or out of order%s", j->name,
                       " (joints are grouped by body, bodies in order)");
    }
    if (j->type < TCH_TREE_JOINT_FREE || j->type > TCH_TREE_JOINT_HINGE) {
        return invalid(err, j->name, "joint '%s': unknown type%s", j->name, "");
    }
    if (!joint_values_finite(j)) {
        return invalid(err, j->name, "joint '%s': a value is not finite%s", j->name, "");
    }
    if ((j->type == TCH_TREE_JOINT_HINGE || j->type == TCH_TREE_JOINT_SLIDE) &&
        !(tch_v3_norm(j->axis) > 1e-12)) {
        return invalid(err, j->name, "joint '%s': axis has zero length%s", j->name, "");
    }
    if (j->armature < 0 || j->damping < 0 || j->stiffness < 0) {
        return invalid(err, j->name, "joint '%s': armature, damping and stiffness must be >= 0%s",
                       j->name, "");
    }
    if (j->limited && j->range[0] > j->range[1]) {
        return invalid(err, j->name, "joint '%s': range has lower > upper%s", j->name, "");
    }
    if (j->type == TCH_TREE_JOINT_FREE) {
        const tch_tree_body_def* b = &def->bodies[j->body];
        bool alone = (index == 0 || def->joints[index - 1].body != j->body) &&
                     (index + 1 == def->joint_count || def->joints[index + 1].body != j->body);
        if (b->parent != -1 || !alone) {
            return invalid(err, j->name,
                           "joint '%s': a free joint must be the only joint of a "
                           "body of the world%s",
                           j->name, "");
        }
        if (!(b->mass > 0)) {
            return invalid(err, j->name,
                           "joint '%s': a free joint needs a body with mass, "
                           "body '%s' has none",
                           j->name, b->name);
        }
    }
    return TCH_OK;
}

static tch_status check_def(const tch_tree_def* def, tch_mat3* I_Cm, tch_error* err) {
    if (!def || def->body_count < 0 || def->joint_count < 0 || def->site_count < 0 ||
        (def->body_count > 0 && !def->bodies) || (def->joint_count > 0 && !def->joints) ||
        (def->site_count > 0 && !def->sites) || !tch_v3_isfinite(def->gravity)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "tree definition is malformed");
    }
    for (int b = 0; b < def->body_count; ++b) {
        tch_status status = check_body(&def->bodies[b], b, &I_Cm[b], err);
        if (status != TCH_OK) {
            return status;
        }
    }
    for (int j = 0; j < def->joint_count; ++j) {
        tch_status status = check_joint(def, j, err);
        if (status != TCH_OK) {
            return status;
        }
    }
    for (int s = 0; s < def->site_count; ++s) {
        const tch_tree_site_def* site = &def->sites[s];
        if (site->body < -1 || site->body >= def->body_count) {
            return invalid(err, site->name, "site '%s': body is out of range%s", site->name, "");
        }
    }
    return TCH_OK;
}

/* ---- layout ---- */

static int link_count_of(const tch_tree_def* def) {
    int count = 0;
    for (int b = 0; b < def->body_count; ++b) {
        int links = 0;
        for (int j = 0; j < def->joint_count; ++j) {
            if (def->joints[j].body == b) {
                links += def->joints[j].type == TCH_TREE_JOINT_FREE ? 2 : 1;
            }
        }
        count += links > 0 ? links : 1;
    }
    return count;
}

static tch_status allocate_tree(tch_tree* t) {
    int nq = t->nq > 0 ? t->nq : 1, nv = t->nv > 0 ? t->nv : 1;
    t->body_name = calloc((size_t)t->body_count + 1, sizeof *t->body_name);
    t->body_parent = calloc((size_t)t->body_count + 1, sizeof *t->body_parent);
    t->body_link = calloc((size_t)t->body_count + 1, sizeof *t->body_link);
    t->links = calloc((size_t)t->link_count + 1, sizeof *t->links);
    t->joints = calloc((size_t)t->joint_count + 1, sizeof *t->joints);
    t->sites = calloc((size_t)t->site_count + 1, sizeof *t->sites);
    t->dof_parent = calloc((size_t)nv, sizeof *t->dof_parent);
    t->dof_link = calloc((size_t)nv, sizeof *t->dof_link);
    t->dof_armature = calloc((size_t)nv, sizeof *t->dof_armature);
    t->dof_damping = calloc((size_t)nv, sizeof *t->dof_damping);
    t->qpos0 = calloc((size_t)nq, sizeof *t->qpos0);
    t->qpos_spring = calloc((size_t)nq, sizeof *t->qpos_spring);
    bool ok = t->body_name && t->body_parent && t->body_link && t->links && t->joints && t->sites &&
              t->dof_parent && t->dof_link && t->dof_armature && t->dof_damping &&
              t->qpos0 && t->qpos_spring;
    return ok ? TCH_OK : TCH_ERR_OUT_OF_MEMORY;
}

static tch_tree_link_type link_type_of(tch_tree_joint_type type) {
    switch (type) {
    case TCH_TREE_JOINT_HINGE:
        return TCH_TREE_LINK_HINGE;
    case TCH_TREE_JOINT_SLIDE:
        return TCH_TREE_LINK_SLIDE;
    default:
        return TCH_TREE_LINK_BALL;
    }
}

/* A rotation taking z onto the unit vector a (the identity for z itself). */
static tch_mat3 rotation_from_z(tch_vec3 a) {
    if (a.z < 0) { /* half a turn about x (z onto -z), then z onto a from -z: well conditioned */
        return tch_m3_mul(rotation_from_z(tch_v3_neg(a)), tch_m3_diag((tch_vec3){1, -1, -1}));
    }
    /* Rodrigues for the turn about v = z x a, c = z . a >= 0: 1 + [v]x + [v]x^2 / (1 + c) */
    tch_mat3 K = tch_m3_skew((tch_vec3){-a.y, a.x, 0});
    tch_mat3 K2 = tch_m3_scale(tch_m3_mul(K, K), 1 / (1 + a.z));
    return tch_m3_add(tch_m3_add(tch_m3_identity(), K), K2);
}

/* The link frame in the frame the joint leaves (the old body frame), X_{joint,link}: a hinge's
 * origin on the anchor with z along the axis, a slide's z along the axis, a ball's origin on
 * the anchor; the joint's own motion is then X_link,link(q) = Rz(q), Tz(q) or R(q) about the
 * link origin, and X_J = O X_link O^-1 in the old frame. */
static tch_spatial_transform link_frame(tch_tree_link_type type, tch_vec3 axis, tch_vec3 anchor) {
    tch_spatial_transform O = tch_sx_identity();
    if (type == TCH_TREE_LINK_HINGE || type == TCH_TREE_LINK_SLIDE) {
        O.R = rotation_from_z(axis);
    }
    if (type == TCH_TREE_LINK_HINGE || type == TCH_TREE_LINK_BALL) {
        O.p = anchor;
    }
    return O;
}

/* Appends a link to the tree and gives it its dofs; `counters` holds the next link, dof and
 * qpos index. link.X_fixed comes in as the old placement, X_fixed X_J(q) of the frame the
 * joint leaves in the parent's; with O = link_frame(...) and the parent's X_body, the
 * link's placement is X_body_parent X_fixed O times its own motion. */
static tch_tree_link* add_link(tch_tree* t, int* counters, tch_tree_link link, tch_vec3 axis,
                               tch_vec3 anchor, int dof_count, int nq, tch_real armature,
                               tch_real damping) {
    int index = counters[0]++;
    link.dof = counters[1];
    link.dof_count = dof_count;
    link.qpos = counters[2];
    counters[1] += dof_count;
    counters[2] += nq;
    link.top = link.parent >= 0 ? t->links[link.parent].top : index;
    tch_spatial_transform O = link_frame(link.type, axis, anchor);
    if (link.parent >= 0) {
        link.X_fixed = tch_sx_mul(t->links[link.parent].X_body, link.X_fixed);
    }
    link.X_fixed = tch_sx_mul(link.X_fixed, O);
    link.X_body = tch_sx_inverse(O);
    /* lambda of the first dof: the last dof on the path to the root (sec. 6.5) */
    int above = -1;
    for (int p = link.parent; p >= 0 && above < 0; p = t->links[p].parent) {
        if (t->links[p].dof_count > 0) {
            above = t->links[p].dof + t->links[p].dof_count - 1;
        }
    }
    for (int k = 0; k < dof_count; ++k) {
        int dof = link.dof + k;
        t->dof_parent[dof] = k == 0 ? above : dof - 1;
        t->dof_link[dof] = index;
        t->dof_armature[dof] = armature;
        t->dof_damping[dof] = damping;
    }
    t->links[index] = link;
    return &t->links[index];
}

static void set_quaternion(tch_real* q, tch_quat value) {
    q[0] = value.w;
    q[1] = value.x;
    q[2] = value.y;
    q[3] = value.z;
}

/* The links of joint j of body b, after `parent` (a link or -1), the first placed by X. */
static int add_joint_links(tch_tree* t, const tch_tree_def* def, int j, int parent,
                           tch_spatial_transform X, int* counters) {
    const tch_tree_joint_def* jd = &def->joints[j];
    tch_tree_joint* joint = &t->joints[j];
    tch_copy_string(joint->name, sizeof joint->name, jd->name);
    joint->type = jd->type;
    joint->body = jd->body;
    joint->qpos = counters[2];
    joint->dof = counters[1];
    joint->nq = joint_nq(jd->type);
    joint->nv = joint_nv(jd->type);
    joint->stiffness = jd->stiffness;
    joint->limited = jd->limited;
    joint->range[0] = jd->range[0];
    joint->range[1] = jd->range[1];
    tch_real* q0 = &t->qpos0[joint->qpos];
    tch_real* qs = &t->qpos_spring[joint->qpos];
    tch_tree_link link = {.parent = parent, .body = jd->body, .joint = j, .X_fixed = X};
    if (jd->type == TCH_TREE_JOINT_FREE) {
        const tch_transform X_PB = def->bodies[jd->body].X_PB;
        q0[0] = X_PB.p.x;
        q0[1] = X_PB.p.y;
        q0[2] = X_PB.p.z;
        set_quaternion(q0 + 3, X_PB.q);
        memcpy(qs, q0, 7 * sizeof *qs);
        link.type = TCH_TREE_LINK_TRANSLATION;
        link.X_fixed = tch_sx_identity();
        tch_vec3 zero = tch_v3_zero();
        add_link(t, counters, link, zero, zero, 3, 3, jd->armature, jd->damping);
        link.parent = counters[0] - 1;
        link.type = TCH_TREE_LINK_BALL;
        add_link(t, counters, link, zero, zero, 3, 4, jd->armature, jd->damping);
        return counters[0] - 1;
    }
    link.type = link_type_of(jd->type);
    if (jd->type == TCH_TREE_JOINT_BALL) {
        set_quaternion(q0, tch_q_identity());
        set_quaternion(qs, tch_q_identity());
    } else {
        link.qpos_zero = jd->ref;
        q0[0] = jd->ref;
        qs[0] = jd->springref;
    }
    add_link(t, counters, link, tch_v3_normalize(jd->axis), jd->pos, joint_nv(jd->type),
             joint_nq(jd->type), jd->armature, jd->damping);
    return counters[0] - 1;
}

static void build_links(tch_tree* t, const tch_tree_def* def, const tch_mat3* I_Cm) {
    int counters[3] = {0, 0, 0}; /* next link, dof, qpos */
    int j = 0;
    for (int b = 0; b < def->body_count; ++b) {
        const tch_tree_body_def* bd = &def->bodies[b];
        tch_copy_string(t->body_name[b], sizeof t->body_name[b], bd->name);
        t->body_parent[b] = bd->parent;
        int last = bd->parent >= 0 ? t->body_link[bd->parent] : -1;
        tch_spatial_transform X = tch_sx_from_transform(bd->X_PB);
        if (j >= def->joint_count || def->joints[j].body != b) {
            tch_tree_link weld = {
                .type = TCH_TREE_LINK_WELD, .parent = last, .body = b, .joint = -1, .X_fixed = X};
            add_link(t, counters, weld, tch_v3_zero(), tch_v3_zero(), 0, 0, 0, 0);
            last = counters[0] - 1;
        }
        for (; j < def->joint_count && def->joints[j].body == b; ++j) {
            last = add_joint_links(t, def, j, last, X, counters);
            X = tch_sx_identity();
        }
        t->body_link[b] = last;
        tch_spatial_inertia inertia = {bd->mass, bd->p_BCm, I_Cm[b]};
        tch_tree_link* link = &t->links[last];
        link->inertia = tch_rbi_transform(link->X_body, tch_rbi_from_inertia(inertia));
        link->has_inertia = bd->mass > 0 || I_Cm[b].m[0][0] + I_Cm[b].m[1][1] + I_Cm[b].m[2][2] > 0;
    }
    for (int s = 0; s < def->site_count; ++s) {
        tch_copy_string(t->sites[s].name, sizeof t->sites[s].name, def->sites[s].name);
        t->sites[s].body = def->sites[s].body;
        t->sites[s].X_BS = def->sites[s].X_BS;
    }
}

/* The packed rows of the factor (tch_tree.dof_row): each dof's path from the root. */
static tch_status build_factor_rows(tch_tree* t) {
    int nv = t->nv > 0 ? t->nv : 1;
    t->dof_depth = calloc((size_t)nv, sizeof *t->dof_depth);
    t->dof_row = calloc((size_t)nv, sizeof *t->dof_row);
    if (!t->dof_depth || !t->dof_row) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    t->row_size = 0;
    for (int k = 0; k < t->nv; ++k) {
        int parent = t->dof_parent[k];
        t->dof_depth[k] = parent >= 0 ? t->dof_depth[parent] + 1 : 0;
        t->dof_row[k] = t->row_size;
        t->row_size += t->dof_depth[k] + 1;
    }
    t->dof_path = calloc((size_t)t->row_size + 1, sizeof *t->dof_path);
    t->dof_path_row = calloc((size_t)t->row_size + 1, sizeof *t->dof_path_row);
    if (!t->dof_path || !t->dof_path_row) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    for (int k = 0; k < t->nv; ++k) {
        for (int j = k, m = t->dof_depth[k]; j >= 0; j = t->dof_parent[j], --m) {
            t->dof_path[t->dof_row[k] + m] = j;
            t->dof_path_row[t->dof_row[k] + m] = t->dof_row[j];
        }
    }
    return TCH_OK;
}

tch_status tch_tree_create(const tch_tree_def* def, tch_tree** out, tch_error* err) {
    *out = NULL;
    tch_mat3* I_Cm =
        malloc(((size_t)(def && def->body_count > 0 ? def->body_count : 0) + 1) * sizeof *I_Cm);
    if (!I_Cm) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for a tree");
    }
    tch_status status = check_def(def, I_Cm, err);
    tch_tree* t = status == TCH_OK ? calloc(1, sizeof *t) : NULL;
    if (status == TCH_OK && !t) {
        status = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for a tree");
    }
    if (status == TCH_OK) {
        t->body_count = def->body_count;
        t->joint_count = def->joint_count;
        t->site_count = def->site_count;
        t->link_count = link_count_of(def);
        t->gravity = def->gravity;
        for (int j = 0; j < def->joint_count; ++j) {
            t->nq += joint_nq(def->joints[j].type);
            t->nv += joint_nv(def->joints[j].type);
        }
        status = allocate_tree(t);
        if (status != TCH_OK) {
            tch_fail(err, status, NULL, 0, "out of memory for a tree");
        }
    }
    if (status == TCH_OK) {
        build_links(t, def, I_Cm);
        status = build_factor_rows(t);
        if (status != TCH_OK) {
            tch_fail(err, status, NULL, 0, "out of memory for a tree");
        }
    }
    if (status == TCH_OK) {
        *out = t;
    } else {
        tch_tree_destroy(t);
    }
    free(I_Cm);
    return status;
}

void tch_tree_destroy(tch_tree* t) {
    if (!t) {
        return;
    }
    free(t->body_name);
    free(t->body_parent);
    free(t->body_link);
    free(t->links);
    free(t->joints);
    free(t->sites);
    free(t->dof_parent);
    free(t->dof_depth);
    free(t->dof_row);
    free(t->dof_path);
    free(t->dof_path_row);
    free(t->dof_link);
    free(t->dof_armature);
    free(t->dof_damping);
    free(t->qpos0);
    free(t->qpos_spring);
    free(t);
}

tch_status tch_tree_data_create(const tch_tree* t, int max_rows, tch_tree_data** out,
                                tch_error* err) {
    *out = NULL;
    if (max_rows < 0) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "max_rows must be >= 0");
    }
    tch_tree_data* d = calloc(1, sizeof *d);
    if (!d) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for tree data");
    }
    size_t links = (size_t)t->link_count + 1, nv = (size_t)t->nv + 1;
    d->max_rows = max_rows;
    d->X_up = calloc(links, sizeof *d->X_up);
    d->X_world = calloc(links, sizeof *d->X_world);
    d->v = calloc(links, sizeof *d->v);
    d->c = calloc(links, sizeof *d->c);
    d->a = calloc(links, sizeof *d->a);
    d->f = calloc(links, sizeof *d->f);
    d->I_composite = calloc(links, sizeof *d->I_composite);
    d->S_top = calloc(nv, sizeof *d->S_top);
    d->S_lanes = calloc(nv, sizeof *d->S_lanes);
    d->v_top = calloc(links, sizeof *d->v_top);
    d->I_articulated = calloc(links, sizeof *d->I_articulated);
    d->U = calloc(nv, sizeof *d->U);
    d->D_inverse = calloc(links, sizeof *d->D_inverse);
    d->u = calloc(nv, sizeof *d->u);
    d->M = calloc(nv * nv, sizeof *d->M);
    d->LD = calloc((size_t)t->row_size + 1, sizeof *d->LD);
    d->inverse_pivot = calloc(nv, sizeof *d->inverse_pivot);
    d->rows = calloc(2 * ((size_t)max_rows + 1) * nv, sizeof *d->rows);
    d->row_dof = calloc((size_t)max_rows + 1, sizeof *d->row_dof);
    if (!(d->X_up && d->X_world && d->v && d->c && d->a && d->f && d->I_composite && d->S_top && d->S_lanes &&
          d->v_top && d->I_articulated && d->U && d->D_inverse && d->u && d->M && d->LD && d->inverse_pivot &&
          d->rows && d->row_dof)) {
        tch_tree_data_destroy(d);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for tree data");
    }
    *out = d;
    return TCH_OK;
}

void tch_tree_data_destroy(tch_tree_data* d) {
    if (!d) {
        return;
    }
    free(d->X_up);
    free(d->X_world);
    free(d->v);
    free(d->c);
    free(d->a);
    free(d->f);
    free(d->I_composite);
    free(d->S_top);
    free(d->S_lanes);
    free(d->v_top);
    free(d->I_articulated);
    free(d->U);
    free(d->D_inverse);
    free(d->u);
    free(d->M);
    free(d->LD);
    free(d->inverse_pivot);
    free(d->rows);
    free(d->row_dof);
    free(d);
}

/* The first of `count` names spaced `stride` bytes apart from `first` that equals `name`. */
static int find_name(const char* first, size_t stride, int count, const char* name) {
    for (int i = 0; i < count; ++i) {
        if (strcmp(first + (size_t)i * stride, name) == 0) {
            return i;
        }
    }
    return -1;
}

int tch_tree_find_body(const tch_tree* t, const char* name) {
    return find_name(t->body_name[0], sizeof t->body_name[0], t->body_count, name);
}

int tch_tree_find_joint(const tch_tree* t, const char* name) {
    return find_name(t->joints[0].name, sizeof t->joints[0], t->joint_count, name);
}

int tch_tree_find_site(const tch_tree* t, const char* name) {
    return find_name(t->sites[0].name, sizeof t->sites[0], t->site_count, name);
}
