/* The scene specification: growable arrays of defs (see spec_internal.h for the design). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "contact/contact.h"
#include "io/spec_internal.h"

typedef struct geom_record {
    tch_geom_def def;
    int body;
} geom_record;

typedef struct joint_record {
    tch_joint_def def;
    int body;
} joint_record;

typedef struct site_record {
    tch_site_def def;
    int body;
} site_record;

typedef struct mesh_record {
    tch_mesh_def def; /* def.vertices points to `vertices` */
    tch_vec3* vertices;
} mesh_record;

typedef struct key_record {
    tch_key_def def; /* def.qpos / def.qvel / def.ctrl point to the buffers below */
    tch_real* qpos;
    tch_real* qvel;
    tch_real* ctrl;
} key_record;

struct tch_spec {
    tch_option_def option;
    tch_contact_model forced_model;
    char model_name[64];
    tch_body_def* bodies; /* [body_count], body id i is bodies[i - 1] */
    int body_count, body_capacity;
    joint_record* joints;
    int joint_count, joint_capacity;
    site_record* sites;
    int site_count, site_capacity;
    geom_record* geoms;
    int geom_count, geom_capacity;
    mesh_record* meshes;
    int mesh_count, mesh_capacity;
    tch_pair_def* pairs;
    int pair_count, pair_capacity;
    key_record* keys;
    int key_count, key_capacity;
    tch_actuator_def* actuators;
    int actuator_count, actuator_capacity;
    tch_equality_def* equalities;
    int equality_count, equality_capacity;
    char** warnings;
    int warning_count, warning_capacity;
};

/* ---- defaults ---- */

tch_contact_params tch_contact_params_unset(void) {
    tch_contact_params params;
    params.model = TCH_CONTACT_INHERIT;
    params.law = TCH_POINT_LAW_INHERIT;
    params.rigid = TCH_RIGIDITY_INHERIT;
#define UNSET_PARAM(field, positive, combine, doc) params.field = NAN;
    TCH_CONTACT_REAL_PARAMS(UNSET_PARAM)
#undef UNSET_PARAM
    return params;
}

tch_option_def tch_option_def_default(void) {
    tch_option_def def = {
        .timestep = 0.002, /* MuJoCo's default */
        .gravity = {0, 0, -9.81},
        .integrator = TCH_INTEGRATOR_AUTO,
        .contact = tch_contact_params_unset(),
        .lcp_solver = TCH_LCP_SOLVER_PGS,
        .lcp_iterations = 0,
        .lcp_tolerance = NAN,
        .adaptive_rtol = NAN,
        .adaptive_atol = NAN,
        .planar = TCH_PLANAR_NONE,
        .cookie = TCH_SPEC_DEF_COOKIE,
    };
    def.contact.model = TCH_CONTACT_POINT;
    return def;
}

tch_body_def tch_body_def_default(void) {
    return (tch_body_def){
        .parent = TCH_WORLD_BODY,
        .q_PB = {1, 0, 0, 0},
        .q_BI = {1, 0, 0, 0},
        .haptic = {.linear_stiffness = NAN, .linear_damping = NAN, .angular_stiffness = NAN,
                   .angular_damping = NAN, .proxy_radius = NAN},
        .cookie = TCH_SPEC_DEF_COOKIE,
    };
}

tch_joint_def tch_joint_def_default(void) {
    return (tch_joint_def){
        .type = TCH_JOINT_HINGE, /* MJCF's default */
        .axis = {0, 0, 1},
        .solreflimit = {0.02, 1},
        .cookie = TCH_SPEC_DEF_COOKIE,
    };
}

tch_site_def tch_site_def_default(void) {
    return (tch_site_def){.q_BS = {1, 0, 0, 0}, .cookie = TCH_SPEC_DEF_COOKIE};
}

tch_actuator_def tch_actuator_def_default(void) {
    return (tch_actuator_def){.type = TCH_ACTUATOR_MOTOR, .gear = 1, .kp = 1, .kv = 1,
                              .cookie = TCH_SPEC_DEF_COOKIE};
}

tch_equality_def tch_equality_def_default(void) {
    return (tch_equality_def){.type = TCH_EQUALITY_CONNECT, .rel_q = {1, 0, 0, 0},
                              .solref = {0.02, 1}, .cookie = TCH_SPEC_DEF_COOKIE};
}

tch_geom_def tch_geom_def_default(void) {
    return (tch_geom_def){
        .type = TCH_GEOM_SPHERE,
        .q_BG = {1, 0, 0, 0},
        .mass = NAN,
        .density = 1000,
        .contype = 1,
        .conaffinity = 1,
        .contact = tch_contact_params_unset(),
        .cookie = TCH_SPEC_DEF_COOKIE,
    };
}

tch_mesh_def tch_mesh_def_default(void) {
    return (tch_mesh_def){.scale = {1, 1, 1}, .cookie = TCH_SPEC_DEF_COOKIE};
}

tch_pair_def tch_pair_def_default(void) {
    return (tch_pair_def){.contact = tch_contact_params_unset(), .cookie = TCH_SPEC_DEF_COOKIE};
}

tch_key_def tch_key_def_default(void) {
    return (tch_key_def){.cookie = TCH_SPEC_DEF_COOKIE};
}

/* ---- life cycle ---- */

tch_spec* tch_spec_create(void) {
    tch_spec* spec = calloc(1, sizeof *spec);
    if (spec) {
        spec->option = tch_option_def_default();
    }
    return spec;
}

void tch_spec_destroy(tch_spec* spec) {
    if (!spec) {
        return;
    }
    for (int i = 0; i < spec->mesh_count; ++i) {
        free(spec->meshes[i].vertices);
    }
    for (int i = 0; i < spec->key_count; ++i) {
        free(spec->keys[i].qpos);
        free(spec->keys[i].qvel);
        free(spec->keys[i].ctrl);
    }
    for (int i = 0; i < spec->warning_count; ++i) {
        free(spec->warnings[i]);
    }
    free(spec->bodies);
    free(spec->joints);
    free(spec->sites);
    free(spec->geoms);
    free(spec->meshes);
    free(spec->pairs);
    free(spec->keys);
    free(spec->actuators);
    free(spec->equalities);
    free(spec->warnings);
    free(spec);
}

/* Makes room for one more item in a growable array (capacity doubles). */
static bool reserve_one(void** items, int count, int* capacity, size_t item_size) {
    if (count < *capacity) {
        return true;
    }
    int new_capacity = *capacity ? 2 * *capacity : 8;
    void* grown = realloc(*items, (size_t)new_capacity * item_size);
    if (!grown) {
        return false;
    }
    *items = grown;
    *capacity = new_capacity;
    return true;
}

#define RESERVE_ONE(array, count, capacity)                                                        \
    reserve_one((void**)&(array), (count), &(capacity), sizeof *(array))

/* Copies `count` items into a new buffer; NULL source or zero count gives NULL. */
static bool copy_array(const void* source, int count, size_t item_size, void** out) {
    *out = NULL;
    if (!source || count <= 0) {
        return true;
    }
    *out = malloc((size_t)count * item_size);
    if (!*out) {
        return false;
    }
    memcpy(*out, source, (size_t)count * item_size);
    return true;
}

/* ---- validation helpers ---- */

static tch_status fail_at(tch_error* err, tch_status status, const tch_source* source,
                          const char* what, const char* detail) {
    return tch_fail(err, status, source ? source->file : NULL, source ? source->line : 0, "%s%s",
                    what, detail);
}

static tch_status check_cookie(int cookie, const char* kind, const tch_source* source,
                               tch_error* err) {
    if (cookie == TCH_SPEC_DEF_COOKIE) {
        return TCH_OK;
    }
    char detail[96];
    snprintf(detail, sizeof detail, " def not initialised with tch_%s_def_default", kind);
    return fail_at(err, TCH_ERR_INVALID_ARGUMENT, source, kind, detail);
}

static bool name_is_terminated(const char name[64]) {
    return memchr(name, '\0', 64) != NULL;
}

/* Fails when `name` is non-empty and `existing` (a source or NULL) says it is taken. */
static tch_status check_unique_name(const char* kind, const char* name, const tch_source* existing,
                                    const tch_source* source, tch_error* err) {
    if (!existing) {
        return TCH_OK;
    }
    return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, source->file, source->line,
                    "duplicate %s name '%s' (first defined at %s:%d); names must be unique", kind,
                    name, existing->file, existing->line);
}

static tch_status check_name(const char* kind, const char name[64], const tch_source* existing,
                             const tch_source* source, tch_error* err) {
    if (!name_is_terminated(name)) {
        return fail_at(err, TCH_ERR_INVALID_ARGUMENT, source, kind,
                       " name is not NUL-terminated within 64 characters");
    }
    return check_unique_name(kind, name, existing, source, err);
}

/* The checks every named def passes: its cookie, then its name. */
static tch_status check_named_def(int cookie, const char* kind, const char name[64],
                                  const tch_source* existing, const tch_source* source,
                                  tch_error* err) {
    tch_status status = check_cookie(cookie, kind, source, err);
    return status == TCH_OK ? check_name(kind, name, existing, source, err) : status;
}

/* ---- options ---- */

/* The adaptive integrator's tolerances: NaN (the default) or in range. The relative one
 * below 1e-14 asks for less than double precision's round-off (SUNDIALS would raise it). */
static tch_status check_adaptive_tolerances(const tch_option_def* def, tch_error* err) {
    tch_real rtol = def->adaptive_rtol, atol = def->adaptive_atol;
    if (!isnan(rtol) && !(rtol >= 1e-14 && rtol < 1)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "option touche:rtol (the adaptive integrator's relative tolerance) must "
                        "be at least 1e-14 and below 1, got %g", rtol);
    }
    if (!isnan(atol) && !(atol > 0 && isfinite(atol))) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "option touche:atol (the adaptive integrator's absolute tolerance) must "
                        "be a positive number, got %g", atol);
    }
    return TCH_OK;
}

tch_status tch_spec_set_option(tch_spec* spec, const tch_option_def* def, tch_error* err) {
    tch_status status = check_cookie(def->cookie, "option", NULL, err);
    if (status == TCH_OK) {
        status = check_adaptive_tolerances(def, err);
    }
    if (status == TCH_OK) {
        spec->option = *def;
    }
    return status;
}

const tch_option_def* tch_spec_option(const tch_spec* spec) {
    return &spec->option;
}

/* ---- bodies ---- */

static const tch_source* body_source_named(const tch_spec* spec, const char* name) {
    tch_body_id id = tch_spec_find_body(spec, name);
    return id.index > 0 ? &spec->bodies[id.index - 1].source : NULL;
}

tch_status tch_spec_add_body(tch_spec* spec, const tch_body_def* def, tch_body_id* out,
                             tch_error* err) {
    tch_status status = check_named_def(def->cookie, "body", def->name,
                                        body_source_named(spec, def->name), &def->source, err);
    if (status != TCH_OK) {
        return status;
    }
    if (def->parent.index < 0 || def->parent.index > spec->body_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "body '%s': parent body %d does not exist (expected 0 for the world or "
                        "1..%d)",
                        def->name, def->parent.index, spec->body_count);
    }
    if (def->free_joint && def->parent.index != 0) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, def->source.file, def->source.line,
                        "body '%s': a free joint in a body whose parent is not the world is "
                        "not supported yet (articulated bodies)",
                        def->name);
    }
    if (!RESERVE_ONE(spec->bodies, spec->body_count, spec->body_capacity)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory adding a body");
    }
    spec->bodies[spec->body_count++] = *def;
    if (out) {
        out->index = spec->body_count;
    }
    return TCH_OK;
}

tch_status tch_spec_update_body(tch_spec* spec, tch_body_id id, const tch_body_def* def,
                                tch_error* err) {
    if (id.index < 1 || id.index > spec->body_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "no body of index %d", id.index);
    }
    const tch_body_def* old = &spec->bodies[id.index - 1];
    if (strncmp(old->name, def->name, sizeof def->name) != 0 ||
        old->parent.index != def->parent.index || old->free_joint != def->free_joint ||
        old->mocap != def->mocap) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, def->source.file, def->source.line,
                        "body '%s': an update cannot change its name, parent, free joint or "
                        "mocap flag",
                        old->name);
    }
    spec->bodies[id.index - 1] = *def;
    return TCH_OK;
}

/* A MuJoCo solref pair (time constant, damping ratio): both finite and > 0. */
static tch_status check_solref(const tch_real solref[2], const char* kind, const char* attribute,
                               const char* name, const tch_source* source, tch_error* err) {
    if (solref[0] > 0 && solref[1] > 0 && isfinite(solref[0]) && isfinite(solref[1])) {
        return TCH_OK;
    }
    return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, source->file, source->line,
                    "%s '%s': %s (%g %g) must be a positive time constant and damping ratio",
                    kind, name, attribute, solref[0], solref[1]);
}

/* ---- joints ---- */

static const tch_source* joint_source_named(const tch_spec* spec, const char* name) {
    int index = tch_spec_find_joint(spec, name);
    return index > 0 ? &spec->joints[index - 1].def.source : NULL;
}

tch_status tch_spec_add_joint(tch_spec* spec, tch_body_id body, const tch_joint_def* def,
                              int* out, tch_error* err) {
    tch_status status = check_named_def(def->cookie, "joint", def->name,
                                        joint_source_named(spec, def->name), &def->source, err);
    if (status != TCH_OK) {
        return status;
    }
    if (body.index < 1 || body.index > spec->body_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "joint '%s': body %d does not exist (expected 1..%d; the world has no "
                        "joints)",
                        def->name, body.index, spec->body_count);
    }
    if (def->type < TCH_JOINT_FREE || def->type > TCH_JOINT_HINGE) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "joint '%s': type %d is not a joint type (expected free, ball, slide "
                        "or hinge)",
                        def->name, (int)def->type);
    }
    status = check_solref(def->solreflimit, "joint", "solreflimit", def->name, &def->source, err);
    if (status != TCH_OK) {
        return status;
    }
    if (!RESERVE_ONE(spec->joints, spec->joint_count, spec->joint_capacity)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory adding a joint");
    }
    spec->joints[spec->joint_count++] = (joint_record){*def, body.index};
    if (out) {
        *out = spec->joint_count;
    }
    return TCH_OK;
}

/* ---- sites ---- */

static const tch_source* site_source_named(const tch_spec* spec, const char* name) {
    for (int i = 0; name && name[0] != '\0' && i < spec->site_count; ++i) {
        if (strncmp(spec->sites[i].def.name, name, 64) == 0) {
            return &spec->sites[i].def.source;
        }
    }
    return NULL;
}

tch_status tch_spec_add_site(tch_spec* spec, tch_body_id body, const tch_site_def* def,
                             tch_error* err) {
    tch_status status = check_named_def(def->cookie, "site", def->name,
                                        site_source_named(spec, def->name), &def->source, err);
    if (status != TCH_OK) {
        return status;
    }
    if (body.index < 0 || body.index > spec->body_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "site '%s': body %d does not exist (expected 0 for the world or 1..%d)",
                        def->name, body.index, spec->body_count);
    }
    if (!RESERVE_ONE(spec->sites, spec->site_count, spec->site_capacity)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory adding a site");
    }
    spec->sites[spec->site_count++] = (site_record){*def, body.index};
    return TCH_OK;
}

/* ---- geoms ---- */

static bool geom_type_is_valid(tch_geom_type type) {
    return type == TCH_GEOM_PLANE || (type >= TCH_GEOM_SPHERE && type < TCH_GEOM_TYPE_END);
}

static const tch_source* geom_source_named(const tch_spec* spec, const char* name) {
    tch_geom_id id = tch_spec_find_geom(spec, name);
    return id.index > 0 ? &spec->geoms[id.index - 1].def.source : NULL;
}

static tch_status check_geom_references(const tch_spec* spec, tch_body_id body,
                                        const tch_geom_def* def, tch_error* err) {
    const tch_source* at = &def->source;
    if (body.index < 0 || body.index > spec->body_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, at->file, at->line,
                        "geom '%s': body %d does not exist (expected 0 for the world or 1..%d)",
                        def->name, body.index, spec->body_count);
    }
    if (!geom_type_is_valid(def->type)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, at->file, at->line,
                        "geom '%s': type %d is not a geom type (expected 0 or 2..7)", def->name,
                        (int)def->type);
    }
    if (def->mesh.index < 0 || def->mesh.index > spec->mesh_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, at->file, at->line,
                        "geom '%s': mesh %d does not exist (expected 1..%d)", def->name,
                        def->mesh.index, spec->mesh_count);
    }
    if (def->type == TCH_GEOM_MESH && def->mesh.index == 0) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, at->file, at->line,
                        "geom '%s': a mesh geom needs a mesh (got the null mesh id)", def->name);
    }
    return TCH_OK;
}

tch_status tch_spec_add_geom(tch_spec* spec, tch_body_id body, const tch_geom_def* def,
                             tch_geom_id* out, tch_error* err) {
    tch_status status = check_named_def(def->cookie, "geom", def->name,
                                        geom_source_named(spec, def->name), &def->source, err);
    if (status == TCH_OK) {
        status = check_geom_references(spec, body, def, err);
    }
    if (status != TCH_OK) {
        return status;
    }
    if (!RESERVE_ONE(spec->geoms, spec->geom_count, spec->geom_capacity)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory adding a geom");
    }
    spec->geoms[spec->geom_count++] = (geom_record){*def, body.index};
    if (out) {
        out->index = spec->geom_count;
    }
    return TCH_OK;
}

/* ---- meshes ---- */

static const tch_source* mesh_source_named(const tch_spec* spec, const char* name) {
    tch_mesh_id id = tch_spec_find_mesh(spec, name);
    return id.index > 0 ? &spec->meshes[id.index - 1].def.source : NULL;
}

tch_status tch_spec_add_mesh(tch_spec* spec, const tch_mesh_def* def, tch_mesh_id* out,
                             tch_error* err) {
    tch_status status = check_named_def(def->cookie, "mesh", def->name,
                                        mesh_source_named(spec, def->name), &def->source, err);
    if (status != TCH_OK) {
        return status;
    }
    if (def->vertex_count < 0 || (def->vertex_count > 0 && !def->vertices)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "mesh '%s': %d vertices given with a %s array (expected a count >= 0 "
                        "and an array when it is positive)",
                        def->name, def->vertex_count, def->vertices ? "non-NULL" : "NULL");
    }
    mesh_record record = {*def, NULL};
    if (!RESERVE_ONE(spec->meshes, spec->mesh_count, spec->mesh_capacity) ||
        !copy_array(def->vertices, def->vertex_count, sizeof(tch_vec3), (void**)&record.vertices)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory adding a mesh");
    }
    record.def.vertices = record.vertices;
    spec->meshes[spec->mesh_count++] = record;
    if (out) {
        out->index = spec->mesh_count;
    }
    return TCH_OK;
}

/* ---- pairs ---- */

static bool geom_id_is_valid(const tch_spec* spec, tch_geom_id id) {
    return id.index >= 1 && id.index <= spec->geom_count;
}

tch_status tch_spec_add_pair(tch_spec* spec, const tch_pair_def* def, tch_error* err) {
    tch_status status = check_cookie(def->cookie, "pair", &def->source, err);
    if (status != TCH_OK) {
        return status;
    }
    if (!geom_id_is_valid(spec, def->geom_a) || !geom_id_is_valid(spec, def->geom_b)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "pair: geoms %d and %d must both exist (expected 1..%d)", def->geom_a.index,
                        def->geom_b.index, spec->geom_count);
    }
    if (def->geom_a.index == def->geom_b.index) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "pair: geom_a and geom_b are the same geom %d (expected two distinct "
                        "geoms)",
                        def->geom_a.index);
    }
    if (!RESERVE_ONE(spec->pairs, spec->pair_count, spec->pair_capacity)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory adding a pair");
    }
    spec->pairs[spec->pair_count++] = *def;
    return TCH_OK;
}

/* ---- keys ---- */

static tch_status check_key_array(const tch_key_def* def, const char* what, const tch_real* values,
                                  int count, tch_error* err) {
    if (count < 0 || (count > 0 && !values)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "key '%s': %s count %d with a %s array (expected a count >= 0 and an "
                        "array when it is positive)",
                        def->name, what, count, values ? "non-NULL" : "NULL");
    }
    return TCH_OK;
}

static const tch_source* key_source_named(const tch_spec* spec, const char* name) {
    if (!name_is_terminated(name) || name[0] == '\0') {
        return NULL;
    }
    for (int i = 0; i < spec->key_count; ++i) {
        if (strcmp(spec->keys[i].def.name, name) == 0) {
            return &spec->keys[i].def.source;
        }
    }
    return NULL;
}

tch_status tch_spec_add_key(tch_spec* spec, const tch_key_def* def, tch_error* err) {
    tch_status status = check_named_def(def->cookie, "key", def->name,
                                        key_source_named(spec, def->name), &def->source, err);
    if (status == TCH_OK) {
        status = check_key_array(def, "qpos", def->qpos, def->qpos_count, err);
    }
    if (status == TCH_OK) {
        status = check_key_array(def, "qvel", def->qvel, def->qvel_count, err);
    }
    if (status == TCH_OK) {
        status = check_key_array(def, "ctrl", def->ctrl, def->ctrl_count, err);
    }
    if (status != TCH_OK) {
        return status;
    }
    key_record record = {*def, NULL, NULL, NULL};
    if (!RESERVE_ONE(spec->keys, spec->key_count, spec->key_capacity) ||
        !copy_array(def->qpos, def->qpos_count, sizeof(tch_real), (void**)&record.qpos) ||
        !copy_array(def->qvel, def->qvel_count, sizeof(tch_real), (void**)&record.qvel) ||
        !copy_array(def->ctrl, def->ctrl_count, sizeof(tch_real), (void**)&record.ctrl)) {
        free(record.qpos);
        free(record.qvel);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory adding a key");
    }
    record.def.qpos = record.qpos;
    record.def.qvel = record.qvel;
    record.def.ctrl = record.ctrl;
    if (!record.ctrl) {
        record.def.ctrl_count = 0;
    }
    if (!record.qpos) {
        record.def.qpos_count = 0;
    }
    if (!record.qvel) {
        record.def.qvel_count = 0;
    }
    spec->keys[spec->key_count++] = record;
    return TCH_OK;
}

/* ---- actuators ---- */

tch_status tch_spec_add_actuator(tch_spec* spec, const tch_actuator_def* def, tch_error* err) {
    const tch_source* existing = NULL;
    for (int i = 0; def->name[0] != '\0' && i < spec->actuator_count && !existing; ++i) {
        if (strncmp(spec->actuators[i].name, def->name, 64) == 0) {
            existing = &spec->actuators[i].source;
        }
    }
    tch_status status = check_named_def(def->cookie, "actuator", def->name, existing,
                                        &def->source, err);
    if (status != TCH_OK) {
        return status;
    }
    if (def->joint < 1 || def->joint > spec->joint_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "actuator '%s': joint %d does not exist (expected 1..%d)", def->name,
                        def->joint, spec->joint_count);
    }
    if (def->type < TCH_ACTUATOR_MOTOR || def->type > TCH_ACTUATOR_VELOCITY) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "actuator '%s': type %d is not an actuator type", def->name,
                        (int)def->type);
    }
    if (!RESERVE_ONE(spec->actuators, spec->actuator_count, spec->actuator_capacity)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory adding an actuator");
    }
    spec->actuators[spec->actuator_count++] = *def;
    return TCH_OK;
}

int tch_spec_actuator_count(const tch_spec* spec) {
    return spec->actuator_count;
}

const tch_actuator_def* tch_spec_actuator(const tch_spec* spec, int index1) {
    return index1 >= 1 && index1 <= spec->actuator_count ? &spec->actuators[index1 - 1] : NULL;
}

/* ---- equality constraints ---- */

tch_status tch_spec_add_equality(tch_spec* spec, const tch_equality_def* def, tch_error* err) {
    const tch_source* existing = NULL;
    for (int i = 0; def->name[0] != '\0' && i < spec->equality_count && !existing; ++i) {
        if (strncmp(spec->equalities[i].name, def->name, 64) == 0) {
            existing = &spec->equalities[i].source;
        }
    }
    tch_status status = check_named_def(def->cookie, "equality", def->name, existing,
                                        &def->source, err);
    if (status != TCH_OK) {
        return status;
    }
    int b1 = def->body1.index, b2 = def->body2.index;
    if (b1 < 1 || b1 > spec->body_count || b2 < 0 || b2 > spec->body_count || b1 == b2) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "equality '%s': bodies %d and %d (expected body1 in 1..%d and body2 "
                        "another body or 0 for the world)",
                        def->name, b1, b2, spec->body_count);
    }
    if (def->type != TCH_EQUALITY_CONNECT && def->type != TCH_EQUALITY_WELD) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "equality '%s': type %d is not connect or weld", def->name,
                        (int)def->type);
    }
    status = check_solref(def->solref, "equality", "solref", def->name, &def->source, err);
    if (status != TCH_OK) {
        return status;
    }
    if (!RESERVE_ONE(spec->equalities, spec->equality_count, spec->equality_capacity)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory adding an equality");
    }
    spec->equalities[spec->equality_count++] = *def;
    return TCH_OK;
}

int tch_spec_equality_count(const tch_spec* spec) {
    return spec->equality_count;
}

const tch_equality_def* tch_spec_equality(const tch_spec* spec, int index1) {
    return index1 >= 1 && index1 <= spec->equality_count ? &spec->equalities[index1 - 1] : NULL;
}

/* ---- contact override, model name ---- */

void tch_spec_force_contact_model(tch_spec* spec, tch_contact_model model) {
    spec->forced_model = model;
}

tch_contact_model tch_spec_forced_contact_model(const tch_spec* spec) {
    return spec->forced_model;
}

const char* tch_spec_model_name(const tch_spec* spec) {
    return spec->model_name;
}

void tch_spec_set_model_name(tch_spec* spec, const char* name) {
    tch_copy_string(spec->model_name, sizeof spec->model_name, name ? name : "");
}

/* ---- warnings ---- */

void tch_spec_add_warning(tch_spec* spec, const char* file, int line, const char* message) {
    if (!RESERVE_ONE(spec->warnings, spec->warning_count, spec->warning_capacity)) {
        return; /* a warning that cannot be stored is dropped: warnings never fail a load */
    }
    const char* f = file ? file : "";
    size_t size = strlen(f) + strlen(message) + 32;
    char* text = malloc(size);
    if (!text) {
        return;
    }
    if (f[0] != '\0' && line > 0) {
        snprintf(text, size, "%s:%d: %s", f, line, message);
    } else if (f[0] != '\0') {
        snprintf(text, size, "%s: %s", f, message);
    } else {
        snprintf(text, size, "%s", message);
    }
    spec->warnings[spec->warning_count++] = text;
}

int tch_spec_warning_count(const tch_spec* spec) {
    return spec->warning_count;
}

const char* tch_spec_warning(const tch_spec* spec, int i) {
    return i >= 0 && i < spec->warning_count ? spec->warnings[i] : NULL;
}

/* ---- read access ---- */

int tch_spec_body_count(const tch_spec* spec) {
    return spec->body_count;
}
int tch_spec_geom_count(const tch_spec* spec) {
    return spec->geom_count;
}
int tch_spec_mesh_count(const tch_spec* spec) {
    return spec->mesh_count;
}
int tch_spec_pair_count(const tch_spec* spec) {
    return spec->pair_count;
}
int tch_spec_key_count(const tch_spec* spec) {
    return spec->key_count;
}
int tch_spec_joint_count(const tch_spec* spec) {
    return spec->joint_count;
}
int tch_spec_site_count(const tch_spec* spec) {
    return spec->site_count;
}

const tch_site_def* tch_spec_site(const tch_spec* spec, int index1) {
    return index1 >= 1 && index1 <= spec->site_count ? &spec->sites[index1 - 1].def : NULL;
}

tch_body_id tch_spec_site_body(const tch_spec* spec, int index1) {
    return (tch_body_id){index1 >= 1 && index1 <= spec->site_count ? spec->sites[index1 - 1].body
                                                                    : 0};
}

const tch_joint_def* tch_spec_joint(const tch_spec* spec, int index1) {
    return index1 >= 1 && index1 <= spec->joint_count ? &spec->joints[index1 - 1].def : NULL;
}

tch_body_id tch_spec_joint_body(const tch_spec* spec, int index1) {
    return (tch_body_id){index1 >= 1 && index1 <= spec->joint_count
                             ? spec->joints[index1 - 1].body
                             : 0};
}

const tch_body_def* tch_spec_body(const tch_spec* spec, tch_body_id id) {
    return id.index >= 1 && id.index <= spec->body_count ? &spec->bodies[id.index - 1] : NULL;
}

const tch_geom_def* tch_spec_geom(const tch_spec* spec, tch_geom_id id) {
    return geom_id_is_valid(spec, id) ? &spec->geoms[id.index - 1].def : NULL;
}

/* How many leading sizes a geom type needs (positive); planes and meshes need none. */
static int geom_sizes_needed(tch_geom_type type) {
    switch (type) {
    case TCH_GEOM_SPHERE: return 1;
    case TCH_GEOM_CAPSULE:
    case TCH_GEOM_CYLINDER: return 2;
    case TCH_GEOM_ELLIPSOID:
    case TCH_GEOM_BOX: return 3;
    default: return 0;
    }
}

tch_status tch_spec_update_geom(tch_spec* spec, tch_geom_id id, const tch_geom_def* def,
                                tch_error* err) {
    if (!geom_id_is_valid(spec, id)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "no geom of index %d", id.index);
    }
    geom_record* record = &spec->geoms[id.index - 1];
    if (strncmp(record->def.name, def->name, sizeof def->name) != 0) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, def->source.file, def->source.line,
                        "geom '%s': an update cannot rename it (to '%.64s')", record->def.name,
                        def->name);
    }
    tch_status status = check_geom_references(spec, (tch_body_id){record->body}, def, err);
    for (int i = 0; status == TCH_OK && i < geom_sizes_needed(def->type); ++i) {
        if (!(def->size[i] > 0) || !isfinite(def->size[i])) {
            status = tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                              "geom '%s': size %d must be a positive finite length, got %g",
                              def->name, i + 1, def->size[i]);
        }
    }
    if (status == TCH_OK) {
        record->def = *def;
    }
    return status;
}

tch_status tch_spec_set_geom_contact(tch_spec* spec, tch_geom_id id,
                                     const tch_contact_params* contact, tch_error* err) {
    if (!geom_id_is_valid(spec, id)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "no geom of index %d", id.index);
    }
    spec->geoms[id.index - 1].def.contact = *contact;
    return TCH_OK;
}

tch_status tch_spec_set_pair_contact(tch_spec* spec, int index1, const tch_contact_params* contact,
                                     tch_error* err) {
    if (index1 < 1 || index1 > spec->pair_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "no pair of index %d", index1);
    }
    spec->pairs[index1 - 1].contact = *contact;
    return TCH_OK;
}

tch_body_id tch_spec_geom_body(const tch_spec* spec, tch_geom_id id) {
    return (tch_body_id){geom_id_is_valid(spec, id) ? spec->geoms[id.index - 1].body : 0};
}

const tch_mesh_def* tch_spec_mesh(const tch_spec* spec, tch_mesh_id id) {
    return id.index >= 1 && id.index <= spec->mesh_count ? &spec->meshes[id.index - 1].def : NULL;
}

const tch_pair_def* tch_spec_pair(const tch_spec* spec, int index1) {
    return index1 >= 1 && index1 <= spec->pair_count ? &spec->pairs[index1 - 1] : NULL;
}

const tch_key_def* tch_spec_key(const tch_spec* spec, int index1) {
    return index1 >= 1 && index1 <= spec->key_count ? &spec->keys[index1 - 1].def : NULL;
}

/* Index (1-based) of the first def whose name matches, 0 when none. The names sit at
 * `name_offset` in items of `stride` bytes. */
static int find_named(const void* items, int count, size_t stride, size_t name_offset,
                      const char* name) {
    if (!name || name[0] == '\0') {
        return 0;
    }
    const char* base = items;
    for (int i = 0; i < count; ++i) {
        const char* candidate = base + (size_t)i * stride + name_offset;
        if (strncmp(candidate, name, 64) == 0) {
            return i + 1;
        }
    }
    return 0;
}

tch_body_id tch_spec_find_body(const tch_spec* spec, const char* name) {
    return (tch_body_id){find_named(spec->bodies, spec->body_count, sizeof(tch_body_def),
                                    offsetof(tch_body_def, name), name)};
}

int tch_spec_find_joint(const tch_spec* spec, const char* name) {
    return find_named(spec->joints, spec->joint_count, sizeof(joint_record),
                      offsetof(joint_record, def.name), name);
}

tch_geom_id tch_spec_find_geom(const tch_spec* spec, const char* name) {
    return (tch_geom_id){find_named(spec->geoms, spec->geom_count, sizeof(geom_record),
                                    offsetof(geom_record, def.name), name)};
}

tch_mesh_id tch_spec_find_mesh(const tch_spec* spec, const char* name) {
    return (tch_mesh_id){find_named(spec->meshes, spec->mesh_count, sizeof(mesh_record),
                                    offsetof(mesh_record, def.name), name)};
}

/* ---- enum names ---- */

static const char* const geom_type_names[TCH_GEOM_TYPE_END] = {
    [TCH_GEOM_PLANE] = "plane",
    [1] = "hfield",
    [TCH_GEOM_SPHERE] = "sphere",
    [TCH_GEOM_CAPSULE] = "capsule",
    [TCH_GEOM_ELLIPSOID] = "ellipsoid",
    [TCH_GEOM_CYLINDER] = "cylinder",
    [TCH_GEOM_BOX] = "box",
    [TCH_GEOM_MESH] = "mesh",
};

static const char* const point_law_names[] = {
    [TCH_POINT_LAW_INHERIT] = "inherit",
    [TCH_POINT_LAW_LINEAR] = "linear",
    [TCH_POINT_LAW_HUNT_CROSSLEY] = "hunt-crossley",
};

/* Index of `name` among the named entries first..count-1 of `names`, or -1. */
static int parse_name(const char* const* names, int first, int count, const char* name) {
    for (int i = first; name && i < count; ++i) {
        if (names[i] && strcmp(names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

/* Contact model names come from the models (contact/contact.h). */
const char* tch_contact_model_name(tch_contact_model model) {
    return tch_contact_model_label(model);
}

bool tch_contact_model_parse(const char* name, tch_contact_model* out) {
    for (int i = TCH_CONTACT_POINT; name && i < TCH_CONTACT_MODEL_END; ++i) {
        if (strcmp(tch_contact_model_label((tch_contact_model)i), name) == 0) {
            *out = (tch_contact_model)i;
            return true;
        }
    }
    return false;
}

const char* tch_geom_type_name(tch_geom_type type) {
    return geom_type_is_valid(type) ? geom_type_names[type] : "unknown";
}

bool tch_geom_type_parse(const char* name, tch_geom_type* out) {
    int i = parse_name(geom_type_names, 0, TCH_GEOM_TYPE_END, name);
    if (i < 0 || !geom_type_is_valid((tch_geom_type)i)) {
        return false;
    }
    *out = (tch_geom_type)i;
    return true;
}

const char* tch_joint_type_name(tch_joint_type type) {
    static const char* const names[] = {"free", "ball", "slide", "hinge"};
    return type >= TCH_JOINT_FREE && type <= TCH_JOINT_HINGE ? names[type] : "unknown";
}

int tch_joint_qpos_count(tch_joint_type type) {
    static const int counts[] = {7, 4, 1, 1};
    return type >= TCH_JOINT_FREE && type <= TCH_JOINT_HINGE ? counts[type] : 0;
}

int tch_joint_qvel_count(tch_joint_type type) {
    static const int counts[] = {6, 3, 1, 1};
    return type >= TCH_JOINT_FREE && type <= TCH_JOINT_HINGE ? counts[type] : 0;
}

const char* tch_point_law_name(tch_point_law law) {
    return law >= TCH_POINT_LAW_INHERIT && law <= TCH_POINT_LAW_HUNT_CROSSLEY ? point_law_names[law]
                                                                              : "unknown";
}

bool tch_point_law_parse(const char* name, tch_point_law* out) {
    int i =
        parse_name(point_law_names, TCH_POINT_LAW_LINEAR, TCH_POINT_LAW_HUNT_CROSSLEY + 1, name);
    if (i < 0) {
        return false;
    }
    *out = (tch_point_law)i;
    return true;
}

/* The integrators' names in scene files (MJCF's option/@integrator) and on the command line. */
static const char* const integrator_names[] = {
    [TCH_INTEGRATOR_SEMI_IMPLICIT_EULER] = "Euler",
    [TCH_INTEGRATOR_RK4] = "RK4",
    [TCH_INTEGRATOR_IMPLICIT] = "implicit",
    [TCH_INTEGRATOR_ADAPTIVE] = "adaptive",
};

bool tch_integrator_parse(const char* name, tch_integrator* out) {
    int i = parse_name(integrator_names, 0, TCH_INTEGRATOR_ADAPTIVE + 1, name);
    if (i < 0) {
        return false;
    }
    *out = (tch_integrator)i;
    return true;
}

const char* tch_integrator_description(tch_integrator integrator) {
    static const char* const descriptions[] = {
        [TCH_INTEGRATOR_SEMI_IMPLICIT_EULER] = "semi-implicit Euler",
        [TCH_INTEGRATOR_RK4] = "RK4",
        [TCH_INTEGRATOR_IMPLICIT] = "linearly implicit Euler",
        [TCH_INTEGRATOR_AUTO] = "chosen by the contact models",
        [TCH_INTEGRATOR_ADAPTIVE] = "adaptive implicit Runge-Kutta (ARKODE)",
    };
    return integrator >= TCH_INTEGRATOR_SEMI_IMPLICIT_EULER &&
                   integrator <= TCH_INTEGRATOR_ADAPTIVE
               ? descriptions[integrator]
               : "unknown";
}

static const char* const lcp_solver_names[] = {"inherit", "lemke", "pgs"};

const char* tch_lcp_solver_name(tch_lcp_solver solver) {
    return solver >= TCH_LCP_SOLVER_INHERIT && solver <= TCH_LCP_SOLVER_PGS
               ? lcp_solver_names[solver]
               : "unknown";
}

bool tch_lcp_solver_parse(const char* name, tch_lcp_solver* out) {
    int i = parse_name(lcp_solver_names, TCH_LCP_SOLVER_LEMKE, TCH_LCP_SOLVER_PGS + 1, name);
    if (i < 0) {
        return false;
    }
    *out = (tch_lcp_solver)i;
    return true;
}
