/* MJCF writer: the spec as a flat MJCF file (defaults applied, every value explicit, numbers
 * with 17 significant digits so that loading the file gives back the same doubles).
 *
 * Bodies are written nested, each with its geoms before its child bodies; geoms that a pair
 * names but that have no name get a generated one. Without the touche attributes the file
 * uses only MuJoCo 2.2 elements and attributes (friction and margin are MuJoCo's own), so
 * MuJoCo sees the same masses, inertias, poses and sliding friction.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "io/spec_internal.h"
#include "touche/io.h"

typedef struct writer {
    FILE* f;
    const tch_spec* spec;
    bool touche;
    char (*geom_names)[64]; /* [geom_count], name written for each geom ("" for none) */
    int* geoms_by_body;     /* geom indices (0-based) grouped by body */
    int* geom_start;        /* [body_count + 2] offsets into geoms_by_body */
    int* bodies_by_parent;  /* body ids grouped by parent */
    int* body_start;        /* [body_count + 2] offsets into bodies_by_parent */
} writer;

/* ---- lexical helpers ---- */

static void indent(writer* w, int depth) {
    fprintf(w->f, "%*s", 2 * depth, "");
}

static void write_escaped(FILE* f, const char* text) {
    static const char special[] = "&<>\"";
    static const char* const entities[] = {"&amp;", "&lt;", "&gt;", "&quot;"};
    for (const char* c = text; *c; ++c) {
        const char* hit = strchr(special, *c);
        if (hit) {
            fputs(entities[hit - special], f);
        } else {
            fputc(*c, f);
        }
    }
}

static void write_string(writer* w, const char* name, const char* value) {
    fprintf(w->f, " %s=\"", name);
    write_escaped(w->f, value);
    fputc('"', w->f);
}

static void write_name(writer* w, const char* name) {
    if (name[0] != '\0') {
        write_string(w, "name", name);
    }
}

/* The shortest of %.15g, %.16g, %.17g that reads back as the same double (17 digits always
 * do: IEEE 754 binary64 round trip). */
static void write_number(FILE* f, tch_real value) {
    char text[32];
    for (int digits = 15; digits <= 17; ++digits) {
        snprintf(text, sizeof text, "%.*g", digits, value);
        if (strtod(text, NULL) == value) {
            break;
        }
    }
    fputs(text, f);
}

static void write_reals(writer* w, const char* name, const tch_real* values, int count) {
    fprintf(w->f, " %s=\"", name);
    for (int i = 0; i < count; ++i) {
        if (i) {
            fputc(' ', w->f);
        }
        write_number(w->f, values[i]);
    }
    fputc('"', w->f);
}

static void write_real(writer* w, const char* name, tch_real value) {
    write_reals(w, name, &value, 1);
}

static void write_vec3(writer* w, const char* name, tch_vec3 v) {
    write_reals(w, name, (const tch_real[]){v.x, v.y, v.z}, 3);
}

static void write_quat(writer* w, const char* name, tch_quat q) {
    write_reals(w, name, (const tch_real[]){q.w, q.x, q.y, q.z}, 4);
}

/* ---- contact parameters ---- */

static void write_touche_contact(writer* w, const tch_contact_params* c, bool scene_level) {
    if (!w->touche) {
        return;
    }
    if (c->model != TCH_CONTACT_INHERIT) {
        write_string(w, "touche:contact", tch_contact_model_name(c->model));
    }
    if (c->law != TCH_POINT_LAW_INHERIT) {
        write_string(w, "touche:law", tch_point_law_name(c->law));
    }
    if (c->rigid != TCH_RIGIDITY_INHERIT) {
        write_string(w, "touche:rigid", c->rigid == TCH_RIGIDITY_RIGID ? "true" : "false");
    }
    const struct {
        const char* name;
        tch_real value;
        bool mjcf_has_own; /* friction and margin: written as MJCF attributes below a scene */
    } reals[] = {
#define TOUCHE_REAL(field, positive, combine, doc)                                               \
    {"touche:" #field, c->field, strcmp(#field, "friction") == 0 || strcmp(#field, "margin") == 0},
        TCH_CONTACT_REAL_PARAMS(TOUCHE_REAL)
#undef TOUCHE_REAL
    };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i) {
        if (!isnan(reals[i].value) && (scene_level || !reals[i].mjcf_has_own)) {
            write_real(w, reals[i].name, reals[i].value);
        }
    }
}

/* MuJoCo's friction attribute: the sliding coefficient in each tangent direction, then its
 * own defaults for the torsional and rolling coefficients that touche does not model. */
static void write_friction_and_margin(writer* w, const tch_contact_params* c, bool pair) {
    if (!isnan(c->friction)) {
        tch_real mu = c->friction;
        if (pair) {
            write_reals(w, "friction", (const tch_real[]){mu, mu, 0.005, 0.0001, 0.0001}, 5);
        } else {
            write_reals(w, "friction", (const tch_real[]){mu, 0.005, 0.0001}, 3);
        }
    }
    if (!isnan(c->margin)) {
        write_real(w, "margin", c->margin);
    }
}

/* ---- sections ---- */

static void write_option(writer* w) {
    const tch_option_def* o = tch_spec_option(w->spec);
    fputs("  <compiler angle=\"radian\"/>\n  <option", w->f);
    write_real(w, "timestep", o->timestep);
    write_vec3(w, "gravity", o->gravity);
    static const char* const integrators[] = {
        [TCH_INTEGRATOR_SEMI_IMPLICIT_EULER] = "Euler", [TCH_INTEGRATOR_RK4] = "RK4",
        [TCH_INTEGRATOR_IMPLICIT] = "implicit", [TCH_INTEGRATOR_ADAPTIVE] = "adaptive"};
    /* unset stays unset; plain MJCF (for MuJoCo) gets MuJoCo's accuracy integrator for
     * touche's adaptive one, which MuJoCo does not know */
    tch_integrator integrator = o->integrator == TCH_INTEGRATOR_ADAPTIVE && !w->touche
                                    ? TCH_INTEGRATOR_RK4
                                    : o->integrator;
    if (integrator != TCH_INTEGRATOR_AUTO) {
        write_string(w, "integrator", integrators[integrator]);
    }
    write_touche_contact(w, &o->contact, true);
    if (w->touche) {
        write_string(w, "touche:solver", tch_lcp_solver_name(o->lcp_solver));
        if (o->lcp_iterations > 0) {
            write_real(w, "touche:iterations", o->lcp_iterations);
        }
        if (!isnan(o->lcp_tolerance)) {
            write_real(w, "touche:tolerance", o->lcp_tolerance);
        }
        if (!isnan(o->adaptive_rtol)) {
            write_real(w, "touche:rtol", o->adaptive_rtol);
        }
        if (!isnan(o->adaptive_atol)) {
            write_real(w, "touche:atol", o->adaptive_atol);
        }
        if (o->planar == TCH_PLANAR_XZ) {
            write_string(w, "touche:planar", "xz");
        }
    }
    fputs("/>\n", w->f);
}

static void write_mesh(writer* w, int index1) {
    const tch_mesh_def* m = tch_spec_mesh(w->spec, (tch_mesh_id){index1});
    char absolute[4096];
    fputs("    <mesh", w->f);
    write_name(w, m->name);
    if (m->file[0] != '\0' && realpath(m->file, absolute)) {
        write_string(w, "file", absolute);
    } else {
        fputs(" vertex=\"", w->f);
        for (int i = 0; i < m->vertex_count; ++i) {
            tch_vec3 v = m->vertices[i];
            const tch_real xyz[3] = {v.x, v.y, v.z};
            for (int j = 0; j < 3; ++j) {
                if (i || j) {
                    fputc(' ', w->f);
                }
                write_number(w->f, xyz[j]);
            }
        }
        fputc('"', w->f);
    }
    write_vec3(w, "scale", m->scale);
    fputs("/>\n", w->f);
}

typedef void (*item_writer)(writer* w, int index1);

/* <tag> with one child per item 1..count, or nothing when there is no item. */
static void write_section(writer* w, const char* tag, int count, item_writer write_item) {
    if (count == 0) {
        return;
    }
    fprintf(w->f, "  <%s>\n", tag);
    for (int i = 1; i <= count; ++i) {
        write_item(w, i);
    }
    fprintf(w->f, "  </%s>\n", tag);
}

static void write_geom(writer* w, int index0, int depth) {
    const tch_spec* spec = w->spec;
    const tch_geom_def* g = tch_spec_geom(spec, (tch_geom_id){index0 + 1});
    indent(w, depth);
    fputs("<geom", w->f);
    write_name(w, w->geom_names[index0]);
    write_string(w, "type", tch_geom_type_name(g->type));
    if (g->type == TCH_GEOM_MESH) {
        write_string(w, "mesh", tch_spec_mesh(spec, g->mesh)->name);
    }
    write_reals(w, "size", g->size, 3);
    write_vec3(w, "pos", g->p_BG);
    write_quat(w, "quat", g->q_BG);
    if (!isnan(g->mass)) {
        write_real(w, "mass", g->mass);
    }
    write_real(w, "density", g->density);
    fprintf(w->f, " contype=\"%d\" conaffinity=\"%d\"", g->contype, g->conaffinity);
    write_friction_and_margin(w, &g->contact, false);
    write_touche_contact(w, &g->contact, false);
    if (w->touche && g->tetmesh[0] != '\0') {
        char absolute[4096];
        write_string(w, "touche:tetmesh", realpath(g->tetmesh, absolute) ? absolute : g->tetmesh);
    }
    fputs("/>\n", w->f);
}

static void write_inertial(writer* w, const tch_body_def* b, int depth) {
    indent(w, depth);
    fputs("<inertial", w->f);
    write_vec3(w, "pos", b->p_BCm);
    write_real(w, "mass", b->mass);
    if (b->has_full_inertia) {
        write_reals(w, "fullinertia", b->inertia_full, 6);
    } else {
        write_quat(w, "quat", b->q_BI);
        write_vec3(w, "diaginertia", b->inertia_diag);
    }
    fputs("/>\n", w->f);
}

/* The joints of `body` in their order, every attribute explicit (angles in radians, the
 * compiler's unit here; limited spelled out whatever autolimits says). */
static void write_joints(writer* w, int body, int depth) {
    for (int j = 1; j <= tch_spec_joint_count(w->spec); ++j) {
        if (tch_spec_joint_body(w->spec, j).index != body) {
            continue;
        }
        const tch_joint_def* joint = tch_spec_joint(w->spec, j);
        indent(w, depth);
        fputs("<joint", w->f);
        write_name(w, joint->name);
        write_string(w, "type", tch_joint_type_name(joint->type));
        write_vec3(w, "pos", joint->pos);
        write_vec3(w, "axis", joint->axis);
        write_string(w, "limited", joint->limited ? "true" : "false");
        if (joint->limited) {
            write_reals(w, "range", joint->range, 2);
            write_reals(w, "solreflimit", joint->solreflimit, 2);
        }
        const struct {
            const char* name;
            tch_real value;
        } reals[] = {{"ref", joint->ref},           {"springref", joint->springref},
                     {"stiffness", joint->stiffness}, {"damping", joint->damping},
                     {"armature", joint->armature}, {"frictionloss", joint->frictionloss}};
        for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i) {
            write_real(w, reals[i].name, reals[i].value);
        }
        fputs("/>\n", w->f);
    }
}

static void write_sites(writer* w, int body, int depth) {
    for (int s = 1; s <= tch_spec_site_count(w->spec); ++s) {
        if (tch_spec_site_body(w->spec, s).index == body) {
            const tch_site_def* site = tch_spec_site(w->spec, s);
            indent(w, depth);
            fputs("<site", w->f);
            write_name(w, site->name);
            write_vec3(w, "pos", site->p_BS);
            write_quat(w, "quat", site->q_BS);
            fputs("/>\n", w->f);
        }
    }
}

/* A mocap body's touche:haptic settings (nothing for renderer NONE; unset gains left out). */
static void write_haptic(writer* w, const tch_haptic_def* h) {
    static const char* const renderers[] = {"", "proxy", "coupling", "pointer"};
    if (h->renderer == TCH_HAPTIC_NONE) {
        return;
    }
    write_string(w, "touche:haptic", renderers[h->renderer]);
    if (h->tool[0] != '\0') {
        write_string(w, "touche:tool", h->tool);
    }
    const struct {
        const char* name;
        tch_real value;
    } gains[] = {{"touche:linear_stiffness", h->linear_stiffness},
                 {"touche:linear_damping", h->linear_damping},
                 {"touche:angular_stiffness", h->angular_stiffness},
                 {"touche:angular_damping", h->angular_damping},
                 {"touche:proxy_radius", h->proxy_radius}};
    for (size_t i = 0; i < sizeof gains / sizeof gains[0]; ++i) {
        if (!isnan(gains[i].value)) {
            write_real(w, gains[i].name, gains[i].value);
        }
    }
}

/* Writes the geoms, sites and child bodies of `body` (0: the world) at `depth`. */
static void write_body_contents(writer* w, int body, int depth) {
    for (int k = w->geom_start[body]; k < w->geom_start[body + 1]; ++k) {
        write_geom(w, w->geoms_by_body[k], depth);
    }
    write_sites(w, body, depth);
    for (int k = w->body_start[body]; k < w->body_start[body + 1]; ++k) {
        int child = w->bodies_by_parent[k];
        const tch_body_def* b = tch_spec_body(w->spec, (tch_body_id){child});
        indent(w, depth);
        fputs("<body", w->f);
        write_name(w, b->name);
        write_vec3(w, "pos", b->p_PB);
        write_quat(w, "quat", b->q_PB);
        if (b->mocap) {
            write_string(w, "mocap", "true");
        }
        if (w->touche) {
            write_haptic(w, &b->haptic);
        }
        fputs(">\n", w->f);
        if (b->free_joint) {
            indent(w, depth + 1);
            fputs("<freejoint/>\n", w->f);
        }
        write_joints(w, child, depth + 1);
        if (b->has_inertial) {
            write_inertial(w, b, depth + 1);
        }
        write_body_contents(w, child, depth + 1);
        indent(w, depth);
        fputs("</body>\n", w->f);
    }
}

static void write_pair(writer* w, int index1) {
    const tch_pair_def* p = tch_spec_pair(w->spec, index1);
    fputs("    <pair", w->f);
    write_string(w, "geom1", w->geom_names[p->geom_a.index - 1]);
    write_string(w, "geom2", w->geom_names[p->geom_b.index - 1]);
    write_friction_and_margin(w, &p->contact, true);
    write_touche_contact(w, &p->contact, false);
    fputs("/>\n", w->f);
}

static void write_key(writer* w, int index1) {
    const tch_key_def* k = tch_spec_key(w->spec, index1);
    fputs("    <key", w->f);
    write_name(w, k->name);
    write_real(w, "time", k->time);
    if (k->qpos) {
        write_reals(w, "qpos", k->qpos, k->qpos_count);
    }
    if (k->qvel) {
        write_reals(w, "qvel", k->qvel, k->qvel_count);
    }
    if (k->ctrl) {
        write_reals(w, "ctrl", k->ctrl, k->ctrl_count);
    }
    fputs("/>\n", w->f);
}

static void write_actuator(writer* w, int index1) {
    static const char* const tags[] = {"motor", "position", "velocity"};
    const tch_actuator_def* a = tch_spec_actuator(w->spec, index1);
    fprintf(w->f, "    <%s", tags[a->type]);
    write_name(w, a->name);
    write_string(w, "joint", tch_spec_joint(w->spec, a->joint)->name);
    write_real(w, "gear", a->gear);
    write_string(w, "ctrllimited", a->ctrl_limited ? "true" : "false");
    if (a->ctrl_limited) {
        write_reals(w, "ctrlrange", a->ctrl_range, 2);
    }
    if (a->type == TCH_ACTUATOR_POSITION) {
        write_real(w, "kp", a->kp);
    } else if (a->type == TCH_ACTUATOR_VELOCITY) {
        write_real(w, "kv", a->kv);
    }
    fputs("/>\n", w->f);
}

/* An equality constraint; every attribute explicit (the weld's relpose as compiled only when
 * given: absent means the pose at qpos0, MuJoCo 2.2's meaning of its all-zero default). */
static void write_equality(writer* w, int index1) {
    const tch_equality_def* e = tch_spec_equality(w->spec, index1);
    bool weld = e->type == TCH_EQUALITY_WELD;
    fprintf(w->f, "    <%s", weld ? "weld" : "connect");
    write_name(w, e->name);
    write_string(w, "body1", tch_spec_body(w->spec, e->body1)->name);
    if (e->body2.index > 0) {
        write_string(w, "body2", tch_spec_body(w->spec, e->body2)->name);
    }
    if (!weld) {
        write_vec3(w, "anchor", e->anchor);
    } else if (e->relpose_set) {
        tch_real pose[7] = {e->rel_p.x, e->rel_p.y, e->rel_p.z, e->rel_q.w,
                            e->rel_q.x, e->rel_q.y, e->rel_q.z};
        write_reals(w, "relpose", pose, 7);
    }
    write_reals(w, "solref", e->solref, 2);
    fputs("/>\n", w->f);
}

static void write_document(writer* w) {
    const char* model = tch_spec_model_name(w->spec);
    fputs("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<mujoco", w->f);
    if (model[0] != '\0') {
        write_string(w, "model", model);
    }
    if (w->touche) {
        fputs(" xmlns:touche=\"urn:touche\"", w->f);
    }
    fputs(">\n", w->f);
    write_option(w);
    write_section(w, "asset", tch_spec_mesh_count(w->spec), write_mesh);
    fputs("  <worldbody>\n", w->f);
    write_body_contents(w, 0, 2);
    fputs("  </worldbody>\n", w->f);
    write_section(w, "contact", tch_spec_pair_count(w->spec), write_pair);
    write_section(w, "equality", tch_spec_equality_count(w->spec), write_equality);
    write_section(w, "actuator", tch_spec_actuator_count(w->spec), write_actuator);
    write_section(w, "keyframe", tch_spec_key_count(w->spec), write_key);
    fputs("</mujoco>\n", w->f);
}

/* ---- preparation: names and child lists ---- */

/* Groups item indices 0..count-1 by key (0..key_count-1), keeping their order (counting sort).
 * start gets key_count + 1 offsets. */
static void group_by_key(const int* keys, int count, int key_count, int* start, int* grouped) {
    memset(start, 0, (size_t)(key_count + 1) * sizeof *start);
    for (int i = 0; i < count; ++i) {
        start[keys[i] + 1]++;
    }
    for (int k = 0; k < key_count; ++k) {
        start[k + 1] += start[k];
    }
    int* next = grouped + count; /* scratch after the grouped items */
    memcpy(next, start, (size_t)key_count * sizeof *next);
    for (int i = 0; i < count; ++i) {
        grouped[next[keys[i]]++] = i;
    }
}

/* Gives pair geoms without a name a name no geom has. */
static void name_pair_geoms(writer* w) {
    for (int i = 1; i <= tch_spec_pair_count(w->spec); ++i) {
        const tch_pair_def* p = tch_spec_pair(w->spec, i);
        int ids[2] = {p->geom_a.index, p->geom_b.index};
        for (int j = 0; j < 2; ++j) {
            char* name = w->geom_names[ids[j] - 1];
            if (name[0] != '\0') {
                continue;
            }
            int n = snprintf(name, 64, "geom%d", ids[j]);
            while (tch_spec_find_geom(w->spec, name).index != 0 && n < 63) {
                name[n++] = '_';
                name[n] = '\0';
            }
        }
    }
}

static bool prepare(writer* w) {
    const tch_spec* spec = w->spec;
    int nbody = tch_spec_body_count(spec), ngeom = tch_spec_geom_count(spec);
    w->geom_names = calloc((size_t)ngeom + 1, sizeof *w->geom_names);
    w->geoms_by_body = malloc((2 * (size_t)ngeom + (size_t)nbody + 2) * sizeof(int));
    w->geom_start = malloc(((size_t)nbody + 2) * sizeof(int));
    w->bodies_by_parent = malloc((3 * (size_t)nbody + 2) * sizeof(int));
    w->body_start = malloc(((size_t)nbody + 2) * sizeof(int));
    int* keys = malloc(((size_t)ngeom + (size_t)nbody + 1) * sizeof(int));
    bool ok = w->geom_names && w->geoms_by_body && w->geom_start && w->bodies_by_parent &&
              w->body_start && keys;
    if (ok) {
        for (int i = 0; i < ngeom; ++i) {
            keys[i] = tch_spec_geom_body(spec, (tch_geom_id){i + 1}).index;
            tch_copy_string(w->geom_names[i], 64, tch_spec_geom(spec, (tch_geom_id){i + 1})->name);
        }
        group_by_key(keys, ngeom, nbody + 1, w->geom_start, w->geoms_by_body);
        for (int b = 0; b < nbody; ++b) {
            keys[b] = tch_spec_body(spec, (tch_body_id){b + 1})->parent.index;
        }
        group_by_key(keys, nbody, nbody + 1, w->body_start, w->bodies_by_parent);
        for (int k = 0; k < nbody; ++k) {
            w->bodies_by_parent[k] += 1; /* body ids are 1-based */
        }
        name_pair_geoms(w);
    }
    free(keys);
    return ok;
}

static void release(writer* w) {
    free(w->geom_names);
    free(w->geoms_by_body);
    free(w->geom_start);
    free(w->bodies_by_parent);
    free(w->body_start);
}

/* ---- file ---- */

static tch_status io_failure(tch_error* err, const char* path, const char* what, int code) {
    char why[128] = "";
    strerror_r(code, why, sizeof why);
    return tch_fail(err, TCH_ERR_IO, path, 0, "cannot %s: %s", what, why);
}

/* Writes into `tmp` with the C numeric locale on this thread. */
static tch_status write_file(writer* w, const char* tmp, tch_error* err) {
    w->f = fopen(tmp, "w");
    if (!w->f) {
        return io_failure(err, tmp, "create the file", errno);
    }
    locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t previous = c_locale ? uselocale(c_locale) : (locale_t)0;
    write_document(w);
    if (c_locale) {
        uselocale(previous);
        freelocale(c_locale);
    }
    bool failed = ferror(w->f) != 0;
    int code = errno;
    if (fclose(w->f) != 0 && !failed) {
        failed = true;
        code = errno;
    }
    return failed ? io_failure(err, tmp, "write the file", code) : TCH_OK;
}

tch_status tch_mjcf_save(const tch_spec* spec, const char* path, bool touche_attributes,
                         tch_error* err) {
    size_t n = strlen(path);
    char* tmp = malloc(n + 5);
    writer w = {.spec = spec, .touche = touche_attributes};
    if (!tmp || !prepare(&w)) {
        free(tmp);
        release(&w);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, path, 0, "out of memory writing MJCF");
    }
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp", 5);
    tch_status status = write_file(&w, tmp, err);
    release(&w);
    if (status == TCH_OK && rename(tmp, path) != 0) {
        status = io_failure(err, path, "rename the temporary file onto it", errno);
    }
    if (status != TCH_OK) {
        remove(tmp);
    }
    free(tmp);
    return status;
}
