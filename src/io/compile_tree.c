/* The compiler's part for articulated models (see compile_tree.h). */
#include "io/compile_tree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "dynamics/articulation.h"
#include "math/vec.h"

#define ALLOC_ARRAY(ptr, n) ((ptr) = calloc((size_t)((n) > 0 ? (n) : 1), sizeof *(ptr)))

bool tch_compile_body_has_joints(const tch_spec* spec, int b) {
    for (int j = 1; j <= tch_spec_joint_count(spec); ++j) {
        if (tch_spec_joint_body(spec, j).index == b) {
            return true;
        }
    }
    return false;
}

tch_status tch_compile_link_mass(tch_model* m, int link, tch_mass_properties total,
                                 tch_error* err) {
    (void)err;
    tch_mat3 inverse = tch_m3_zero();
    if (!(total.mass > 0) || !tch_m3_inverse(total.I_GCm, &inverse)) {
        inverse = tch_m3_zero();
    }
    m->body_total_mass[link] = total.mass;
    m->body_total_p_BCm[link] = total.p_GCm;
    m->body_total_I_BCm[link] = total.I_GCm;
    m->body_total_I_inv[link] = inverse;
    return TCH_OK;
}

/* ---- what the articulated step does not take yet ---- */

static bool scene_uses(const tch_model* m, tch_contact_model model) {
    bool uses = m->contact_default.model == model;
    for (int g = 0; g < m->geom_count && !uses; ++g) {
        uses = m->geom_contact[g].model == model;
    }
    for (int p = 0; p < m->pair_count && !uses; ++p) {
        uses = m->pair_params[p].model == model;
    }
    return uses;
}

/* Where an error about the articulated model as a whole points: its first joint, else its
 * first equality constraint. */
static const tch_source* articulation_source(const tch_spec* spec) {
    return tch_spec_joint_count(spec) > 0 ? &tch_spec_joint(spec, 1)->source
                                          : &tch_spec_equality(spec, 1)->source;
}

static tch_status check_supported(const tch_spec* spec, const tch_model* m, tch_error* err) {
    const tch_source* src = articulation_source(spec);
    if (m->integrator == TCH_INTEGRATOR_ADAPTIVE) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, src->file, src->line,
                        "the %s integrator with joints (articulated bodies) is not supported "
                        "yet; use integrator=\"Euler\" or \"RK4\"",
                        tch_integrator_description(m->integrator));
    }
    if (m->planar != TCH_PLANAR_NONE) { /* the mask acts on free bodies (docs/planar.md) */
        return tch_fail(err, TCH_ERR_UNSUPPORTED, src->file, src->line,
                        "the planar mode (option touche:planar) with joints (articulated "
                        "bodies) is not supported yet; its bodies must be free bodies");
    }
    if (scene_uses(m, TCH_CONTACT_PEG)) { /* peg's rows act on free bodies' velocities only */
        return tch_fail(err, TCH_ERR_UNSUPPORTED, src->file, src->line,
                        "the peg contact model with joints (articulated bodies) is not "
                        "supported yet; use lcp, point, volume or pressure");
    }
    for (int g = 0; g < m->geom_count; ++g) {
        int root = m->body_root[m->geom_body[g]];
        if (root > 0 && !(m->body_total_mass[root] > 0) &&
            (m->geom_contype[g] | m->geom_conaffinity[g]) != 0) {
            const tch_geom_def* def = tch_spec_geom(spec, (tch_geom_id){g + 1});
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                            "geom '%s' may collide but its body '%s' moves no mass (expected "
                            "mass on the body, or contype=\"0\" conaffinity=\"0\")",
                            def->name, m->body_name[root]);
        }
    }
    return TCH_OK;
}

/* ---- the tree definition ---- */

typedef struct tree_source {
    tch_tree_body_def* bodies;  /* [body_count - 1] */
    tch_tree_joint_def* joints; /* [spec joints + free bodies] */
    const tch_source** joint_source;
    tch_joint_passive* passive; /* [spec joints + free bodies] */
    int joint_count;
    int* tree_joint_of_spec; /* [spec joints + 1] the tree joint of spec joint s (1-based) */
} tree_source;

static void name_or_index(char* out, const char* name, const char* kind, int index) {
    if (name[0] != '\0') {
        tch_copy_string(out, TCH_TREE_NAME_SIZE, name);
    } else {
        snprintf(out, TCH_TREE_NAME_SIZE, "(%s %d)", kind, index);
    }
}

static tch_tree_joint_def tree_joint(const tch_joint_def* def, int body) {
    tch_tree_joint_def j = tch_tree_joint_def_default();
    j.body = body;
    j.type = (tch_tree_joint_type)def->type; /* the same MuJoCo order */
    j.pos = def->pos;
    j.axis = def->axis;
    j.ref = def->ref;
    j.armature = def->armature;
    j.damping = def->damping;
    j.stiffness = def->stiffness;
    j.springref = def->springref;
    j.limited = def->limited;
    j.range[0] = def->range[0];
    j.range[1] = def->range[1];
    return j;
}

static tch_joint_passive joint_passive(const tch_joint_def* def) {
    return (tch_joint_passive){def->frictionloss, {def->solreflimit[0], def->solreflimit[1]}};
}

static void add_body_joints(const tch_spec* spec, int b, tree_source* t) {
    const tch_body_def* body = tch_spec_body(spec, (tch_body_id){b});
    if (body->free_joint) {
        tch_tree_joint_def j = tch_tree_joint_def_default();
        j.type = TCH_TREE_JOINT_FREE;
        j.body = b - 1;
        name_or_index(j.name, "", "free joint of body", b);
        tch_joint_def free_joint = tch_joint_def_default(); /* no friction, never limited */
        t->passive[t->joint_count] = joint_passive(&free_joint);
        t->joint_source[t->joint_count] = &body->source;
        t->joints[t->joint_count++] = j;
        return;
    }
    for (int s = 1; s <= tch_spec_joint_count(spec); ++s) {
        if (tch_spec_joint_body(spec, s).index != b) {
            continue;
        }
        const tch_joint_def* def = tch_spec_joint(spec, s);
        tch_tree_joint_def j = tree_joint(def, b - 1);
        name_or_index(j.name, def->name, "joint", s);
        t->joint_source[t->joint_count] = &def->source;
        t->passive[t->joint_count] = joint_passive(def);
        t->tree_joint_of_spec[s] = t->joint_count;
        t->joints[t->joint_count++] = j;
    }
}

static void fill_tree_def(const tch_spec* spec, const tch_model* m, tree_source* t) {
    for (int b = 1; b < m->body_count; ++b) {
        tch_tree_body_def* body = &t->bodies[b - 1];
        *body = tch_tree_body_def_default();
        name_or_index(body->name, m->body_name[b], "body", b);
        body->parent = m->body_parent[b] - 1;
        body->X_PB = m->body_X_PB[b];
        body->mass = m->body_mass[b];
        body->p_BCm = m->body_p_BCm[b];
        body->I_Cm = m->body_I_BCm[b];
        add_body_joints(spec, b, t);
    }
}

/* The tree's error, located at the body or joint it names. */
static tch_status locate_error(const tch_spec* spec, const tree_source* t, int body_count,
                               tch_status status, tch_error* err) {
    const tch_source* src = NULL;
    for (int j = 0; j < t->joint_count && !src; ++j) {
        if (strcmp(t->joints[j].name, err->element) == 0) {
            src = t->joint_source[j];
        }
    }
    for (int b = 0; b < body_count && !src; ++b) {
        if (strcmp(t->bodies[b].name, err->element) == 0) {
            src = &tch_spec_body(spec, (tch_body_id){b + 1})->source;
        }
    }
    if (!src) {
        return status;
    }
    char message[sizeof err->message], element[sizeof err->element];
    tch_copy_string(message, sizeof message, err->message);
    tch_copy_string(element, sizeof element, err->element);
    tch_fail(err, status, src->file, src->line, "%s", message);
    tch_copy_string(err->element, sizeof err->element, element);
    return status;
}

/* The spec's equality constraints on the tree (tree body = model body - 1). */
static tch_status add_equalities(const tch_spec* spec, tch_articulation* a, tch_error* err) {
    int count = tch_spec_equality_count(spec);
    tch_articulation_equality* list = calloc((size_t)count + 1, sizeof *list);
    if (!list) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for equalities");
    }
    for (int i = 0; i < count; ++i) {
        const tch_equality_def* def = tch_spec_equality(spec, i + 1);
        list[i] = (tch_articulation_equality){
            .weld = def->type == TCH_EQUALITY_WELD,
            .body1 = def->body1.index - 1,
            .body2 = def->body2.index - 1,
            .p1 = def->type == TCH_EQUALITY_WELD ? def->rel_p : def->anchor,
            .q12 = def->rel_q,
            .relpose_set = def->relpose_set,
            .solref = {def->solref[0], def->solref[1]},
        };
    }
    tch_status s = tch_articulation_set_equalities(a, list, count, err);
    if (s != TCH_OK && strncmp(err->message, "equality constraint ", 20) == 0) {
        int index = atoi(err->message + 20);
        const tch_equality_def* def = tch_spec_equality(spec, index);
        if (def) {
            tch_fail(err, s, def->source.file, def->source.line,
                     "equality '%s' moves no mass: its bodies are fixed to each other or to "
                     "the world (expected a body with joints)",
                     def->name);
        }
    }
    free(list);
    return s;
}

static tch_status build_articulation(const tch_spec* spec, tch_model* m, tree_source* source,
                                     tch_error* err) {
    int capacity = tch_spec_joint_count(spec) + m->free_count;
    tree_source t = {0};
    tch_status s = TCH_OK;
    if (!ALLOC_ARRAY(t.bodies, m->body_count - 1) || !ALLOC_ARRAY(t.joints, capacity) ||
        !ALLOC_ARRAY(t.joint_source, capacity) || !ALLOC_ARRAY(t.passive, capacity) ||
        !ALLOC_ARRAY(t.tree_joint_of_spec, tch_spec_joint_count(spec) + 1)) {
        s = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the joints");
    }
    if (s == TCH_OK) {
        fill_tree_def(spec, m, &t);
        tch_tree_def def = {m->body_count - 1, t.bodies, t.joint_count, t.joints, 0, NULL,
                            m->gravity};
        s = tch_articulation_create(&def, t.passive, m->timestep, m->integrator,
                                    &m->articulation, err);
        if (s != TCH_OK) {
            s = locate_error(spec, &t, m->body_count - 1, s, err);
        } else {
            m->articulation->limit_rows = scene_uses(m, TCH_CONTACT_LCP); /* else one-sided springs */
            s = add_equalities(spec, m->articulation, err);
        }
    }
    free(t.bodies);
    free(t.joints);
    free(t.joint_source);
    free(t.passive);
    source->tree_joint_of_spec = t.tree_joint_of_spec;
    return s;
}

/* nq, nv, the free bodies' addresses and the joint arrays, from the tree. */
static tch_status lay_out_joints(tch_model* m, tch_error* err) {
    const tch_tree* tree = m->articulation->tree;
    int n = tree->joint_count;
    m->nq = tree->nq;
    m->nv = tree->nv;
    m->joint_count = n;
    if (!ALLOC_ARRAY(m->joint_name, n) || !ALLOC_ARRAY(m->joint_type, n) ||
        !ALLOC_ARRAY(m->joint_body, n) || !ALLOC_ARRAY(m->joint_qpos_adr, n) ||
        !ALLOC_ARRAY(m->joint_qvel_adr, n) || !ALLOC_ARRAY(m->joint_limited, n) ||
        !ALLOC_ARRAY(m->joint_range, n)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the joints");
    }
    for (int j = 0; j < n; ++j) {
        const tch_tree_joint* joint = &tree->joints[j];
        int body = joint->body + 1;
        tch_copy_string(m->joint_name[j], sizeof m->joint_name[j],
                        joint->name[0] == '(' ? "" : joint->name);
        m->joint_type[j] = (int)joint->type;
        m->joint_body[j] = body;
        m->joint_qpos_adr[j] = joint->qpos;
        m->joint_qvel_adr[j] = joint->dof;
        m->joint_limited[j] = joint->limited;
        m->joint_range[j][0] = joint->range[0];
        m->joint_range[j][1] = joint->range[1];
        if (joint->type == TCH_TREE_JOINT_FREE) {
            m->body_qpos_adr[body] = joint->qpos;
            m->body_qvel_adr[body] = joint->dof;
        }
    }
    return TCH_OK;
}

/* ---- actuators ---- */

static tch_status compile_actuator(const tch_spec* spec, tch_model* m, int a,
                                   const int* tree_joint_of_spec, tch_error* err) {
    const tch_actuator_def* def = tch_spec_actuator(spec, a + 1);
    int joint = tree_joint_of_spec[def->joint];
    const tch_source* src = &def->source;
    if (m->joint_type[joint] != TCH_JOINT_HINGE && m->joint_type[joint] != TCH_JOINT_SLIDE) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, src->file, src->line,
                        "actuator '%s' on %s joint '%s': actuators on ball and free joints are "
                        "not supported yet (expected a hinge or slide)",
                        def->name, tch_joint_type_name((tch_joint_type)m->joint_type[joint]),
                        m->joint_name[joint]);
    }
    const tch_real values[] = {def->gear, def->kp, def->kv, def->ctrl_range[0], def->ctrl_range[1]};
    bool finite = true;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
        finite &= isfinite(values[i]) != 0;
    }
    if (!finite || def->kp < 0 || def->kv < 0 ||
        (def->ctrl_limited && def->ctrl_range[0] > def->ctrl_range[1])) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, src->file, src->line,
                        "actuator '%s': gear, kp, kv and ctrlrange must be finite, the gains "
                        ">= 0 and the range's lower <= upper",
                        def->name);
    }
    tch_copy_string(m->actuator_name[a], sizeof m->actuator_name[a], def->name);
    m->actuator_type[a] = (int)def->type;
    m->actuator_joint[a] = joint;
    m->actuator_gear[a] = def->gear;
    m->actuator_kp[a] = def->kp;
    m->actuator_kv[a] = def->kv;
    m->actuator_ctrl_limited[a] = def->ctrl_limited;
    m->actuator_ctrl_range[a][0] = def->ctrl_range[0];
    m->actuator_ctrl_range[a][1] = def->ctrl_range[1];
    return TCH_OK;
}

static tch_status compile_actuators(const tch_spec* spec, tch_model* m,
                                    const int* tree_joint_of_spec, tch_error* err) {
    int n = m->actuator_count = tch_spec_actuator_count(spec);
    if (!ALLOC_ARRAY(m->actuator_name, n) || !ALLOC_ARRAY(m->actuator_type, n) ||
        !ALLOC_ARRAY(m->actuator_joint, n) || !ALLOC_ARRAY(m->actuator_gear, n) ||
        !ALLOC_ARRAY(m->actuator_kp, n) || !ALLOC_ARRAY(m->actuator_kv, n) ||
        !ALLOC_ARRAY(m->actuator_ctrl_limited, n) || !ALLOC_ARRAY(m->actuator_ctrl_range, n)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for actuators");
    }
    tch_status s = TCH_OK;
    for (int a = 0; a < n && s == TCH_OK; ++a) {
        s = compile_actuator(spec, m, a, tree_joint_of_spec, err);
    }
    return s;
}

tch_status tch_compile_articulation(const tch_spec* spec, tch_model* m, tch_error* err) {
    if (tch_spec_joint_count(spec) == 0 && tch_spec_equality_count(spec) == 0) {
        return TCH_OK;
    }
    tree_source source = {0};
    tch_status s = check_supported(spec, m, err);
    if (s == TCH_OK) {
        s = build_articulation(spec, m, &source, err);
    }
    if (s == TCH_OK) {
        s = lay_out_joints(m, err);
    }
    if (s == TCH_OK) {
        s = compile_actuators(spec, m, source.tree_joint_of_spec, err);
    }
    free(source.tree_joint_of_spec);
    return s;
}

void tch_compile_articulation_qpos0(tch_model* m) {
    if (m->articulation) {
        tch_tree_default_qpos(m->articulation->tree, m->qpos0);
    }
}
