/* MJCF loading: the document, its sections in MuJoCo's order, compiler, option, default
 * classes, contact pairs and keyframes (design in mjcf_internal.h). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <libxml/parser.h>

#include "base/error.h"
#include "contact/params.h"
#include "io/mjcf_internal.h"
#include "io/spec_internal.h"
#include "math/vec.h"

/* ---- default classes ---- */

int tch_mjcf_find_class(const tch_mjcf_loader* L, const char* name) {
    for (int i = 0; i < L->class_count; ++i) {
        if (strcmp(L->classes[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

tch_status tch_mjcf_node_class(tch_mjcf_loader* L, const xmlNode* node, int inherited, int* index) {
    char name[64] = "";
    tch_status status = tch_mjcf_read_string(L, node, "class", name, sizeof name);
    if (status != TCH_OK) {
        return status;
    }
    if (name[0] == '\0') {
        *index = inherited >= 0 ? inherited : tch_mjcf_find_class(L, "main");
        return TCH_OK;
    }
    *index = tch_mjcf_find_class(L, name);
    if (*index < 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "class: no default class named '%s' (expected a class defined "
                             "in <default>)",
                             name);
    }
    return TCH_OK;
}

tch_mjcf_geom_attrs tch_mjcf_geom_template(const tch_mjcf_loader* L, int class_index) {
    if (class_index >= 0) {
        return L->classes[class_index].geom;
    }
    return (tch_mjcf_geom_attrs){.def = tch_geom_def_default()};
}

tch_mjcf_joint_attrs tch_mjcf_joint_template(const tch_mjcf_loader* L, int class_index) {
    if (class_index >= 0) {
        return L->classes[class_index].joint;
    }
    return (tch_mjcf_joint_attrs){.def = tch_joint_def_default()};
}

static tch_vec3 mesh_scale_template(const tch_mjcf_loader* L, int class_index) {
    return class_index >= 0 ? L->classes[class_index].mesh_scale : tch_v3(1, 1, 1);
}

static tch_status add_class(tch_mjcf_loader* L, const xmlNode* node, const char* name, int parent,
                            int* index) {
    if (tch_mjcf_find_class(L, name) >= 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "class: duplicate default class '%s' (expected unique names)", name);
    }
    if (L->class_count == L->class_capacity) {
        int capacity = L->class_capacity ? 2 * L->class_capacity : 8;
        void* grown = realloc(L->classes, (size_t)capacity * sizeof *L->classes);
        if (!grown) {
            return tch_mjcf_fail(L, node, TCH_ERR_OUT_OF_MEMORY, "out of memory");
        }
        L->classes = grown;
        L->class_capacity = capacity;
    }
    tch_mjcf_class* c = &L->classes[L->class_count];
    tch_copy_string(c->name, sizeof c->name, name);
    c->geom = tch_mjcf_geom_template(L, parent);
    c->joint = tch_mjcf_joint_template(L, parent);
    c->mesh_scale = mesh_scale_template(L, parent);
    *index = L->class_count++;
    return TCH_OK;
}

static tch_status read_mesh_default(tch_mjcf_loader* L, const xmlNode* node, int index) {
    static const char* const known[] = {"scale", NULL};
    tch_status status = tch_mjcf_check_attributes(L, node, known, false);
    tch_real scale[3];
    int count = 0;
    if (status == TCH_OK) {
        status = tch_mjcf_read_reals(L, node, "scale", scale, 3, 3, &count, "3 numbers");
    }
    if (status == TCH_OK && count == 3) {
        L->classes[index].mesh_scale = tch_v3(scale[0], scale[1], scale[2]);
    }
    return status;
}

/* The classes' contact parameters given from outside the file (tch_mjcf_load_with_classes),
 * the loader's `user`; matched[i] is set when class i is found. */
typedef struct class_params_given {
    const tch_mjcf_class_params* classes;
    int count;
    bool* matched;
} class_params_given;

/* Applies what was given for class `index` to its geom template, as if its <geom> default
 * said so (after the class's own elements, before its nested classes inherit them). */
static void apply_given_class_params(tch_mjcf_loader* L, int index) {
    class_params_given* given = L->user;
    for (int i = 0; given && i < given->count; ++i) {
        if (strcmp(given->classes[i].class_name, L->classes[index].name) == 0) {
            tch_geom_def* def = &L->classes[index].geom.def;
            def->contact = tch_contact_params_overlay(def->contact, given->classes[i].contact);
            given->matched[i] = true;
        }
    }
}

/* Reads a <default>: its own elements first, then its nested classes, which start from the
 * completed templates of this one (MuJoCo's order). */
static tch_status load_default(tch_mjcf_loader* L, const xmlNode* node, int parent) {
    static const char* const known[] = {"class", NULL};
    char name[64] = "";
    tch_status status = tch_mjcf_check_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "class", name, sizeof name);
    }
    if (status == TCH_OK && name[0] == '\0') {
        if (parent >= 0) {
            return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                                 "class: a nested default needs a class name");
        }
        tch_copy_string(name, sizeof name, "main");
    }
    int index = -1;
    if (status == TCH_OK) {
        status = add_class(L, node, name, parent, &index);
    }
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        if (tch_mjcf_is(child, "geom")) {
            status = tch_mjcf_apply_geom_attrs(L, child, &L->classes[index].geom);
        } else if (tch_mjcf_is(child, "joint")) {
            status = tch_mjcf_apply_joint_attrs(L, child, &L->classes[index].joint);
        } else if (tch_mjcf_is(child, "mesh")) {
            status = read_mesh_default(L, child, index);
        } else if (!tch_mjcf_is(child, "default")) {
            status = tch_mjcf_skip_element(L, child);
        }
    }
    if (status == TCH_OK) apply_given_class_params(L, index);
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        if (tch_mjcf_is(child, "default")) {
            status = load_default(L, child, index);
        }
    }
    return status;
}

static tch_status load_top_default(tch_mjcf_loader* L, const xmlNode* node) {
    return load_default(L, node, -1);
}

/* ---- compiler ---- */

static tch_status join_path(tch_mjcf_loader* L, const xmlNode* node, const char* dir,
                            const char* file, char* out, size_t size) {
    int n = file[0] == '/' || dir[0] == '\0' ? snprintf(out, size, "%s", file)
                                             : snprintf(out, size, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= size) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "path '%s' is too long (expected at most "
                             "%zu characters)",
                             file, size - 1);
    }
    return TCH_OK;
}

static tch_status read_euler_seq(tch_mjcf_loader* L, const xmlNode* node) {
    char seq[8] = "";
    tch_status status = tch_mjcf_read_string(L, node, "eulerseq", seq, sizeof seq);
    if (status != TCH_OK || seq[0] == '\0') {
        return status;
    }
    bool valid = strlen(seq) == 3;
    for (int i = 0; valid && i < 3; ++i) {
        valid = strchr("xyzXYZ", seq[i]) != NULL;
    }
    if (!valid) {
        return tch_mjcf_fail_attr(L, node, "eulerseq",
                                  "3 axis letters among x y z (rotating) and X Y Z (fixed)");
    }
    tch_copy_string(L->euler_seq, sizeof L->euler_seq, seq);
    return TCH_OK;
}

static tch_status read_mesh_dir(tch_mjcf_loader* L, const xmlNode* node) {
    char dir[512] = "";
    tch_status status = tch_mjcf_read_string(L, node, "assetdir", dir, sizeof dir);
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "meshdir", dir, sizeof dir);
    }
    if (status != TCH_OK || dir[0] == '\0') {
        return status;
    }
    return join_path(L, node, L->scene_dir, dir, L->mesh_dir, sizeof L->mesh_dir);
}

static tch_status load_compiler(tch_mjcf_loader* L, const xmlNode* node) {
    static const char* const known[] = {"angle",    "meshdir",    "assetdir",
                                        "eulerseq", "coordinate", "autolimits", NULL};
    static const char* const booleans[] = {"false", "true", NULL};
    static const char* const angles[] = {"degree", "radian", NULL};
    static const char* const coordinates[] = {"local", "global", NULL};
    int angle = L->angle_degrees ? 0 : 1, coordinate = 0;
    tch_status status = tch_mjcf_check_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_read_keyword(L, node, "angle", angles, &angle);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_keyword(L, node, "coordinate", coordinates, &coordinate);
    }
    if (status == TCH_OK && coordinate == 1) {
        return tch_mjcf_fail(L, node, TCH_ERR_UNSUPPORTED,
                             "coordinate=\"global\" is not supported yet (expected \"local\")");
    }
    L->angle_degrees = angle == 0;
    int autolimits = L->autolimits ? 1 : 0;
    if (status == TCH_OK) {
        status = tch_mjcf_read_keyword(L, node, "autolimits", booleans, &autolimits);
    }
    L->autolimits = autolimits == 1;
    if (status == TCH_OK) {
        status = read_euler_seq(L, node);
    }
    if (status == TCH_OK) {
        status = read_mesh_dir(L, node);
    }
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        status = tch_mjcf_skip_element(L, child);
    }
    return status;
}

/* ---- option ---- */

static tch_status read_integrator(tch_mjcf_loader* L, const xmlNode* node, tch_option_def* def) {
    char name[32] = "";
    if (!tch_mjcf_has_attr(node, "integrator")) {
        return TCH_OK;
    }
    tch_mjcf_read_string(L, node, "integrator", name, sizeof name);
    if (tch_integrator_parse(name, &def->integrator)) {
        return TCH_OK;
    }
    if (strcmp(name, "implicitfast") == 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_UNSUPPORTED,
                             "integrator: '%s' is not supported yet (expected Euler, RK4, "
                             "implicit or adaptive)", name);
    }
    return tch_mjcf_fail_attr(L, node, "integrator", "Euler, RK4, implicit or adaptive");
}

/* touche:solver, touche:iterations and touche:tolerance: the constraint models' solver. */
static tch_status read_solver_options(tch_mjcf_loader* L, const xmlNode* node,
                                      tch_option_def* def) {
    static const char* const solvers[] = {"lemke", "pgs", NULL};
    int index = -1;
    tch_real iterations = NAN;
    tch_status status = tch_mjcf_read_keyword(L, node, "touche:solver", solvers, &index);
    if (status == TCH_OK && index >= 0) {
        tch_lcp_solver_parse(solvers[index], &def->lcp_solver);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_nonnegative(L, node, "touche:iterations", true, &iterations);
    }
    if (status == TCH_OK && !isnan(iterations)) {
        if (iterations != floor(iterations) || iterations > 1e9) {
            return tch_mjcf_fail_attr(L, node, "touche:iterations", "a positive whole number");
        }
        def->lcp_iterations = (int)iterations;
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_nonnegative(L, node, "touche:tolerance", true, &def->lcp_tolerance);
    }
    return status;
}

/* touche:planar: "xz" makes every free body planar (docs/planar.md); "none" is the default. */
static tch_status read_planar(tch_mjcf_loader* L, const xmlNode* node, tch_option_def* def) {
    static const char* const planes[] = {"none", "xz", NULL};
    int index = -1;
    tch_status status = tch_mjcf_read_keyword(L, node, "touche:planar", planes, &index);
    if (status == TCH_OK && index >= 0) {
        def->planar = index == 1 ? TCH_PLANAR_XZ : TCH_PLANAR_NONE;
    }
    return status;
}

static tch_status load_option(tch_mjcf_loader* L, const xmlNode* node) {
    static const char* const known[] = {"timestep", "gravity", "integrator", NULL};
    tch_option_def def = *tch_spec_option(L->spec);
    tch_real gravity[3];
    int count = 0;
    tch_status status = tch_mjcf_check_attributes(L, node, known, true);
    if (status == TCH_OK) {
        status = tch_mjcf_read_nonnegative(L, node, "timestep", true, &def.timestep);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_reals(L, node, "gravity", gravity, 3, 3, &count,
                                     "3 numbers (x y z), m/s^2");
    }
    if (count == 3) {
        def.gravity = tch_v3(gravity[0], gravity[1], gravity[2]);
    }
    if (status == TCH_OK) {
        status = read_integrator(L, node, &def);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_touche_contact(L, node, true, &def.contact);
    }
    if (status == TCH_OK) {
        status = read_solver_options(L, node, &def);
    }
    if (status == TCH_OK) {
        status = read_planar(L, node, &def);
    }
    if (status == TCH_OK) { /* the adaptive integrator's tolerances (range: tch_spec_set_option) */
        status = tch_mjcf_read_nonnegative(L, node, "touche:rtol", true, &def.adaptive_rtol);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_nonnegative(L, node, "touche:atol", true, &def.adaptive_atol);
    }
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        status = tch_mjcf_skip_element(L, child);
    }
    return status == TCH_OK ? tch_spec_set_option(L->spec, &def, L->err) : status;
}

/* ---- contact pairs ---- */

static tch_status read_pair_geom(tch_mjcf_loader* L, const xmlNode* node, const char* attr,
                                 tch_geom_id* out) {
    char name[64] = "";
    tch_status status = tch_mjcf_read_string(L, node, attr, name, sizeof name);
    if (status != TCH_OK) {
        return status;
    }
    if (name[0] == '\0') {
        return tch_mjcf_fail_attr(L, node, attr, "the name of a geom");
    }
    *out = tch_spec_find_geom(L->spec, name);
    if (out->index == 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "%s: no geom named '%s' (expected the name of a geom)", attr, name);
    }
    return TCH_OK;
}

/* MJCF friction: the first value is the sliding coefficient; touche has no torsional or
 * rolling friction, so a pair's second (other tangent direction) must match it. */
static tch_status read_friction(tch_mjcf_loader* L, const xmlNode* node, int max_count,
                                tch_real* sliding) {
    tch_real values[5];
    int count = 0;
    tch_status status = tch_mjcf_read_reals(L, node, "friction", values, 1, max_count, &count,
                                            "1 to 3 numbers >= 0 (sliding first)");
    for (int i = 0; status == TCH_OK && i < count; ++i) {
        if (!(values[i] >= 0)) {
            return tch_mjcf_fail_attr(L, node, "friction", "numbers >= 0 (sliding first)");
        }
    }
    if (status == TCH_OK && count > 0) {
        *sliding = values[0];
    }
    if (status == TCH_OK && max_count == 5 && count >= 2 && values[1] != values[0]) {
        tch_mjcf_warn(L, node,
                      "pair friction: anisotropic friction is not supported; the "
                      "sliding coefficient %g is used in both directions",
                      values[0]);
    }
    return status;
}

tch_status tch_mjcf_read_friction(tch_mjcf_loader* L, const xmlNode* node, tch_real* sliding) {
    return read_friction(L, node, 3, sliding);
}

static tch_status load_pair(tch_mjcf_loader* L, const xmlNode* node) {
    static const char* const known[] = {"geom1", "geom2", "friction", "margin", NULL};
    tch_pair_def def = tch_pair_def_default();
    def.source = tch_mjcf_source(L, node);
    tch_status status = tch_mjcf_check_attributes(L, node, known, true);
    if (status == TCH_OK) {
        status = read_pair_geom(L, node, "geom1", &def.geom_a);
    }
    if (status == TCH_OK) {
        status = read_pair_geom(L, node, "geom2", &def.geom_b);
    }
    if (status == TCH_OK) {
        status = read_friction(L, node, 5, &def.contact.friction);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_nonnegative(L, node, "margin", false, &def.contact.margin);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_touche_contact(L, node, false, &def.contact);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_spec_status(L, node, tch_spec_add_pair(L->spec, &def, L->err));
    }
    return status;
}

static tch_status load_contact(tch_mjcf_loader* L, const xmlNode* node) {
    tch_status status = tch_mjcf_check_attributes(L, node, (const char* const[]){NULL}, false);
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        if (tch_mjcf_is(child, "pair")) {
            status = load_pair(L, child);
        } else if (tch_mjcf_is(child, "exclude")) {
            tch_mjcf_warn(L, child,
                          "<exclude> is not supported yet: the two bodies still "
                          "collide");
        } else {
            status = tch_mjcf_skip_element(L, child);
        }
    }
    return status;
}

/* ---- keyframes ---- */

static int free_body_count(const tch_spec* spec) {
    int count = 0;
    for (int i = 1; i <= tch_spec_body_count(spec); ++i) {
        count += tch_spec_body(spec, (tch_body_id){i})->free_joint ? 1 : 0;
    }
    return count;
}

static tch_status check_key_lengths(tch_mjcf_loader* L, const xmlNode* node,
                                    const tch_key_def* def) {
    if (tch_spec_joint_count(L->spec) > 0) {
        return TCH_OK; /* articulated: the compiler checks the lengths against nq and nv */
    }
    int free_count = free_body_count(L->spec);
    if (def->qpos && def->qpos_count != 7 * free_count) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "qpos: expected %d numbers (7 per free body: position, "
                             "quaternion w x y z), got %d",
                             7 * free_count, def->qpos_count);
    }
    if (def->qvel && def->qvel_count != 6 * free_count) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "qvel: expected %d numbers (6 per free body: linear velocity in "
                             "the world, angular velocity in the body), got %d",
                             6 * free_count, def->qvel_count);
    }
    for (int i = 0; def->qpos && i < free_count; ++i) {
        const tch_real* q = def->qpos + 7 * i + 3;
        if (!(tch_q_norm((tch_quat){q[0], q[1], q[2], q[3]}) > 1e-12)) {
            return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                                 "qpos: the quaternion of free body %d is zero (expected a "
                                 "non-zero w x y z)",
                                 i + 1);
        }
    }
    return TCH_OK;
}

static tch_status load_key(tch_mjcf_loader* L, const xmlNode* node) {
    static const char* const known[] = {"name", "time", "qpos", "qvel", "ctrl", NULL};
    tch_key_def def = tch_key_def_default();
    def.source = tch_mjcf_source(L, node);
    tch_real *qpos = NULL, *qvel = NULL, *ctrl = NULL;
    int count = 0;
    tch_status status = tch_mjcf_check_attributes(L, node, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "name", def.name, sizeof def.name);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_reals(L, node, "time", &def.time, 1, 1, &count, "1 number, s");
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_real_array(L, node, "qpos", &qpos, &def.qpos_count);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_real_array(L, node, "qvel", &qvel, &def.qvel_count);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_real_array(L, node, "ctrl", &ctrl, &def.ctrl_count);
    }
    def.qpos = qpos;
    def.qvel = qvel;
    def.ctrl = ctrl;
    if (status == TCH_OK) {
        status = check_key_lengths(L, node, &def);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_spec_status(L, node, tch_spec_add_key(L->spec, &def, L->err));
    }
    free(qpos);
    free(qvel);
    free(ctrl);
    return status;
}

static tch_status load_keyframe(tch_mjcf_loader* L, const xmlNode* node) {
    tch_status status = tch_mjcf_check_attributes(L, node, (const char* const[]){NULL}, false);
    for (const xmlNode* child = tch_mjcf_first_element(node); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        status = tch_mjcf_is(child, "key") ? load_key(L, child) : tch_mjcf_skip_element(L, child);
    }
    return status;
}

/* ---- the document ---- */

typedef tch_status (*section_loader)(tch_mjcf_loader* L, const xmlNode* node);

/* MuJoCo's order: a section may use what the ones before it define. */
static const struct {
    const char* name;
    section_loader load;
} sections[] = {
    {"compiler", load_compiler},
    {"option", load_option},
    {"default", load_top_default},
    {"asset", tch_mjcf_load_asset},
    {"worldbody", tch_mjcf_load_worldbody},
    {"contact", load_contact},
    {"equality", tch_mjcf_load_equalities},
    {"actuator", tch_mjcf_load_actuators},
    {"keyframe", load_keyframe},
};

enum { section_count = sizeof sections / sizeof sections[0] };

static bool is_section(const xmlNode* node) {
    for (int s = 0; s < section_count; ++s) {
        if (tch_mjcf_is(node, sections[s].name)) {
            return true;
        }
    }
    return false;
}

static tch_status load_mujoco(tch_mjcf_loader* L, const xmlNode* root) {
    static const char* const known[] = {"model", NULL};
    if (!tch_mjcf_is(root, "mujoco")) {
        return tch_mjcf_fail(L, root, TCH_ERR_PARSE, "is not an MJCF root (expected <mujoco>)");
    }
    char model[64] = "";
    tch_status status = tch_mjcf_check_attributes(L, root, known, false);
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, root, "model", model, sizeof model);
    }
    tch_spec_set_model_name(L->spec, model);
    for (const xmlNode* child = tch_mjcf_first_element(root); child && status == TCH_OK;
         child = tch_mjcf_next_element(child)) {
        if (!is_section(child)) {
            status = tch_mjcf_skip_element(L, child);
        }
    }
    for (int s = 0; s < section_count && status == TCH_OK; ++s) {
        for (const xmlNode* child = tch_mjcf_first_element(root); child && status == TCH_OK;
             child = tch_mjcf_next_element(child)) {
            if (tch_mjcf_is(child, sections[s].name)) {
                status = sections[s].load(L, child);
            }
        }
    }
    return status;
}

/* The first fatal error of a parse: libxml2 goes on after one (for example a mismatched tag)
 * and its last error ("premature end of data") is less telling. */
typedef struct first_error {
    bool set;
    int line;
    char message[300];
} first_error;

static void keep_first_fatal_error(void* user_data, xmlErrorPtr e) {
    xmlParserCtxtPtr context = user_data;
    first_error* first = context ? context->_private : NULL;
    if (first && !first->set && e && e->level == XML_ERR_FATAL) {
        first->set = true;
        first->line = e->line;
        tch_copy_string(first->message, sizeof first->message, e->message ? e->message : "");
    }
}

static void ignore_generic_error(void* context, const char* format, ...) {
    (void)context;
    (void)format;
}

static tch_status fail_malformed(tch_mjcf_loader* L, xmlParserCtxtPtr context, first_error* first) {
    if (!first->set) {
        keep_first_fatal_error(context, xmlCtxtGetLastError(context));
    }
    char* message = first->message;
    size_t n = strlen(message);
    while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == ' ')) {
        message[--n] = '\0';
    }
    return tch_fail(L->err, TCH_ERR_PARSE, L->file, first->line > 0 ? first->line : 1,
                    "malformed XML: %s (expected a well-formed MJCF document)",
                    n > 0 ? message : "unknown error");
}

static tch_status load_document(tch_mjcf_loader* L, const char* bytes, size_t size,
                                tch_xml_root_loader load_root) {
    if (size > INT_MAX) {
        return tch_fail(L->err, TCH_ERR_PARSE, L->file, 0,
                        "scene is too large (%zu bytes, "
                        "expected at most %d)",
                        size, INT_MAX);
    }
    xmlParserCtxtPtr context = xmlNewParserCtxt();
    if (!context) {
        return tch_fail(L->err, TCH_ERR_OUT_OF_MEMORY, L->file, 0, "out of memory");
    }
    first_error first = {.set = false};
    context->_private = &first;
    context->sax->serror = keep_first_fatal_error; /* collected, never printed */
    int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES |
                  XML_PARSE_NOCDATA;
    /* Errors raised without a parser context (character encoding, I/O) go to libxml2's
     * per-thread handlers, which print by default: route them to the collector during the
     * parse and give the caller's handlers back afterwards. */
    xmlStructuredErrorFunc saved_structured = xmlStructuredError;
    void* saved_structured_context = xmlStructuredErrorContext;
    xmlGenericErrorFunc saved_generic = xmlGenericError;
    void* saved_generic_context = xmlGenericErrorContext;
    xmlSetStructuredErrorFunc(context, keep_first_fatal_error);
    xmlSetGenericErrorFunc(NULL, ignore_generic_error);
    xmlDocPtr doc = xmlCtxtReadMemory(context, bytes, (int)size, L->file, NULL, options);
    xmlSetGenericErrorFunc(saved_generic_context, saved_generic);
    xmlSetStructuredErrorFunc(saved_structured_context, saved_structured);
    tch_status status;
    if (!doc) {
        status = fail_malformed(L, context, &first);
    } else {
        xmlNodePtr root = xmlDocGetRootElement(doc);
        status = root ? load_root(L, root) : fail_malformed(L, context, &first);
        xmlFreeDoc(doc);
    }
    xmlFreeParserCtxt(context);
    return status;
}

/* Parses with the C numeric locale on this thread (strtod, printf), whatever the caller's. */
static tch_status load_in_c_locale(tch_mjcf_loader* L, const char* bytes, size_t size,
                                   tch_xml_root_loader load_root) {
    locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t previous = c_locale ? uselocale(c_locale) : (locale_t)0;
    tch_status status = load_document(L, bytes, size, load_root);
    if (c_locale) {
        uselocale(previous);
        freelocale(c_locale);
    }
    return status;
}

static tch_status load_buffer(const char* bytes, size_t size, const char* scene_dir,
                              const char* file, tch_xml_root_loader load_root, void* user,
                              tch_spec** out, tch_error* err) {
    tch_error_clear(err);
    tch_mjcf_loader L = {.file = file, .angle_degrees = true, .euler_seq = "xyz",
                          .autolimits = true, .err = err};
    tch_copy_string(L.scene_dir, sizeof L.scene_dir, scene_dir);
    L.spec = tch_spec_create();
    if (!L.spec) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, file, 0, "out of memory");
    }
    xmlInitParser();
    L.user = user;
    tch_status status = load_in_c_locale(&L, bytes, size, load_root);
    free(L.classes);
    free(L.warned);
    if (status != TCH_OK) {
        tch_spec_destroy(L.spec);
        L.spec = NULL;
    }
    *out = L.spec;
    return status;
}

/* Reads a whole file into a NUL-terminated malloc'ed buffer. */
static tch_status read_file(const char* path, char** bytes, size_t* size, tch_error* err) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        char why[128] = "";
        strerror_r(errno, why, sizeof why);
        return tch_fail(err, TCH_ERR_IO, path, 0, "cannot open the scene: %s", why);
    }
    size_t capacity = 1 << 16, used = 0;
    char* buffer = malloc(capacity);
    while (buffer) {
        used += fread(buffer + used, 1, capacity - used - 1, f);
        if (used < capacity - 1) {
            break;
        }
        capacity *= 2;
        char* grown = realloc(buffer, capacity);
        if (!grown) {
            free(buffer);
        }
        buffer = grown;
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    if (!buffer || failed) {
        free(buffer);
        return tch_fail(err, buffer ? TCH_ERR_IO : TCH_ERR_OUT_OF_MEMORY, path, 0,
                        buffer ? "cannot read the scene" : "out of memory reading the scene");
    }
    buffer[used] = '\0';
    *bytes = buffer;
    *size = used;
    return TCH_OK;
}

/* The directory part of path ("." when it has none). */
static void directory_of(const char* path, char* out, size_t size) {
    const char* slash = strrchr(path, '/');
    if (!slash) {
        tch_copy_string(out, size, ".");
    } else if (slash == path) {
        tch_copy_string(out, size, "/");
    } else {
        size_t n = (size_t)(slash - path) < size ? (size_t)(slash - path) : size - 1;
        memcpy(out, path, n);
        out[n] = '\0';
    }
}

tch_status tch_xml_load_path(const char* path, tch_xml_root_loader load_root, void* user,
                             tch_spec** out, tch_error* err) {
    *out = NULL;
    char* bytes = NULL;
    size_t size = 0;
    tch_status status = read_file(path, &bytes, &size, err);
    if (status != TCH_OK) {
        return status;
    }
    char dir[1024];
    directory_of(path, dir, sizeof dir);
    status = load_buffer(bytes, size, dir, path, load_root, user, out, err);
    free(bytes);
    return status;
}

tch_status tch_mjcf_load(const char* path, tch_spec** out, tch_error* err) {
    return tch_xml_load_path(path, load_mujoco, NULL, out, err);
}

tch_status tch_mjcf_load_with_classes(const char* path, const tch_mjcf_class_params* classes,
                                      int count, tch_spec** out, tch_error* err) {
    *out = NULL;
    bool* matched = count > 0 ? calloc((size_t)count, sizeof *matched) : NULL;
    if (count > 0 && !matched) return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, path, 0, "out of memory");
    class_params_given given = {classes, count, matched};
    tch_status status = tch_xml_load_path(path, load_mujoco, &given, out, err);
    for (int i = 0; i < count && status == TCH_OK; ++i) {
        if (!matched[i]) {
            status = tch_fail(err, TCH_ERR_INVALID_ARGUMENT, path, 0,
                              "class '%s': the scene has no default class of that name (its "
                              "top-level <default> is 'main')",
                              classes[i].class_name);
        }
    }
    if (status != TCH_OK) {
        tch_spec_destroy(*out);
        *out = NULL;
    }
    free(matched);
    return status;
}

tch_status tch_mjcf_load_string(const char* xml, const char* base_dir, const char* name,
                                tch_spec** out, tch_error* err) {
    *out = NULL;
    return load_buffer(xml, strlen(xml), base_dir ? base_dir : ".", name ? name : "(string)",
                       load_mujoco, NULL, out,
                       err);
}
