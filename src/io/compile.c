/* The compiler: tch_spec -> tch_model.
 *
 * One path to a model (style anchors, item 2): loaders and C programs fill a spec, and this file
 * validates it and lays it out as the flat arrays of tch_model. Order of work:
 *
 *     options -> meshes (qhull hulls) -> bodies (tree, roots, welded poses)
 *             -> geoms (validated shapes, poses in the root frame)
 *             -> mass properties (explicit <inertial>, or from the geoms; welded subtrees
 *                aggregated into their free root) -> pairs -> keyframes -> initial state
 *
 * Every error names the source file and line of the element it is about.
 *
 * Bodies: body 0 is the world. A body with a free joint must be a child of the world (as in
 * MuJoCo); a body without a joint is welded to its parent, so it moves with its root: the free
 * ancestor, or the world (root 0) when there is none. Only free roots carry degrees of freedom.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "geometry/hull.h"
#include "geometry/mass.h"
#include "contact/contact.h"
#include "contact/params.h"
#include "contact/peg_constraints.h"
#include "geometry/model_shape.h"
#include "io/compile_tree.h"
#include "io/spec_internal.h"
#include "math/vec.h"

typedef struct compile_context {
    const tch_spec* spec;
    tch_model* model;
    tch_contact_model forced_model; /* INHERIT unless the CLI's --contact overrides */
    tch_transform* mesh_X_MI;       /* [mesh_count] each mesh's inertial frame in its file frame */
} compile_context;

static tch_status aggregate_root_mass(compile_context* ctx, int root,
                                      const tch_mass_properties* own, tch_mass_properties* parts,
                                      tch_error* err);

#define ALLOC_ARRAY(ptr, n) ((ptr) = calloc((size_t)((n) > 0 ? (n) : 1), sizeof *(ptr)))

static tch_status fail_at(tch_error* err, tch_status status, const tch_source* src,
                          const char* format, const char* detail) {
    return tch_fail(err, status, src->file, src->line, format, detail);
}

/* ---- options and contact defaults ---- */

/* Built-in values for whatever the scene leaves unset. Stiffness and damping stay NaN: the
 * point model then derives them per pair from the masses and the time step
 * (docs/contact-point.md). */
static tch_contact_params builtin_contact_defaults(void) {
    tch_contact_params c = tch_contact_params_unset();
    c.model = TCH_CONTACT_POINT;
    c.law = TCH_POINT_LAW_LINEAR;
    c.dissipation = NAN; /* per model (contact/params.c) */
    c.exponent = 1.5;
    c.friction = 1.0; /* MuJoCo's default sliding friction */
    c.stiction_velocity = 1e-3;
    c.margin = 0;
    c.restitution = 0;
    c.cone_edges = 4;
    c.stabilization = 0.2;
    return c;
}

/* The lcp model's margin when the scene sets none, m: its contacts are found this far before
 * they touch, so that the speculative target (-gap / h) stops them at the surface instead of
 * a step later inside it. 5 mm covers closing speeds up to 2.5 m/s at a 2 ms step; measured on
 * the box piles of tools/gen_scenes.py (docs/contact-lcp.md, "Margin"). */
static const tch_real LCP_DEFAULT_MARGIN = 0.005;
/* The lcp model's solver limits when the scene sets none: 1000 pivots or sweeps, and a
 * natural-map residual of 1e-8 m/s where PGS stops (attempts are applied up to 1e-6). With PGS
 * stopping at 1e-6 the 50-block stack gained up to 1e-6 J per step and tilted after 8 s; at
 * 1e-8 it stands 10 s (docs/contact-lcp.md, "Measured"). */
static const tch_real LCP_DEFAULT_TOLERANCE = 1e-8;
enum { LCP_DEFAULT_ITERATIONS = 1000 };

/* Values that are set must be in range: NaN means unset, anything else non-finite or negative
 * (or zero where the parameter must be positive) is an error; fractions are at most 1 and the
 * friction cone needs at least 3 edges. */
static tch_status check_contact_params(const tch_contact_params* c, const tch_source* src,
                                       const char* owner, tch_error* err) {
    const struct {
        const char* name;
        tch_real value;
        int positive;
    } fields[] = {
#define PARAM_ENTRY(field, positive, combine, doc) {#field, c->field, positive},
        TCH_CONTACT_REAL_PARAMS(PARAM_ENTRY)
#undef PARAM_ENTRY
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
        tch_real v = fields[i].value;
        if (!isnan(v) && (!isfinite(v) || v < 0 || (v == 0 && fields[i].positive))) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, src->file, src->line,
                            "%s contact %s must be %s and finite, got %g", owner, fields[i].name,
                            fields[i].positive ? "> 0" : ">= 0", v);
        }
    }
    if (c->restitution > 1 || c->stabilization > 1) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, src->file, src->line,
                        "%s contact restitution and stabilization must be at most 1", owner);
    }
    if (!isnan(c->cone_edges) && (c->cone_edges < 3 || c->cone_edges != floor(c->cone_edges))) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, src->file, src->line,
                        "%s contact cone_edges must be a whole number of at least 3, got %g",
                        owner, c->cone_edges);
    }
    return TCH_OK;
}

/* The margin of a geom or scene of `model` that sets none (`unset` for the models without
 * one): lcp's above; peg's is its proximity epsilon, the authors' 3D value (contact/peg.h). */
static tch_real default_margin(const tch_model* m, tch_contact_model model, tch_real unset) {
    if (model == TCH_CONTACT_LCP) {
        return LCP_DEFAULT_MARGIN;
    }
    int dimension = m->planar != TCH_PLANAR_NONE ? 2 : 3;
    return model == TCH_CONTACT_PEG ? tch_peg_params_default(dimension, m->timestep).proximity
                                    : unset;
}

static tch_contact_model effective_model(const compile_context* ctx, tch_contact_model model) {
    return ctx->forced_model != TCH_CONTACT_INHERIT ? ctx->forced_model : model;
}

/* Contact models that this build can run: those with an entry in the contact ops table. */
static tch_status check_model_supported(tch_contact_model model, const tch_source* src,
                                        tch_error* err) {
    if (model == TCH_CONTACT_INHERIT || tch_contact_model_ops(model) != NULL) {
        return TCH_OK;
    }
    char offered[128] = "";
    for (int m = TCH_CONTACT_POINT; m < TCH_CONTACT_MODEL_END; ++m) {
        if (tch_contact_model_ops((tch_contact_model)m) != NULL) {
            size_t used = strlen(offered);
            snprintf(offered + used, sizeof offered - used, "%s'%s'", used ? ", " : "",
                     tch_contact_model_label((tch_contact_model)m));
        }
    }
    return tch_fail(err, TCH_ERR_UNSUPPORTED, src->file, src->line,
                    "contact model '%s' is not supported yet; this build offers %s",
                    tch_contact_model_label(model), offered);
}

/* A supported model that the scene's integrator can run: the lcp model's impulses live inside
 * the semi-implicit Euler step (engine/constraint.h), so it refuses RK4 and implicit. */
static tch_status check_model_runnable(const compile_context* ctx, tch_contact_model model,
                                       const tch_source* src, tch_error* err) {
    tch_status s = check_model_supported(model, src, err);
    if (s == TCH_OK && tch_contact_model_ops(model) &&
        tch_contact_model_ops(model)->kind == TCH_CONTACT_KIND_CONSTRAINT &&
        ctx->model->integrator != TCH_INTEGRATOR_SEMI_IMPLICIT_EULER &&
        ctx->model->integrator != TCH_INTEGRATOR_AUTO) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, src->file, src->line,
                        "contact model '%s' needs the semi-implicit Euler integrator "
                        "(option integrator=\"Euler\"); the scene uses %s",
                        tch_contact_model_label(model),
                        tch_integrator_description(ctx->model->integrator));
    }
    return s;
}

/* The planar mode (docs/planar.md): gravity in the plane, and an integrator that takes the
 * free bodies' DOF mask (semi-implicit Euler and RK4 go through tch_free_body_acceleration;
 * the implicit and adaptive ones assemble their own systems over six velocities). */
static tch_status check_planar(const tch_option_def* opt, tch_error* err) {
    if (opt->planar == TCH_PLANAR_NONE) {
        return TCH_OK;
    }
    if (opt->planar != TCH_PLANAR_XZ) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "option touche:planar must be none or xz, got %d", (int)opt->planar);
    }
    if (opt->gravity.y != 0) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "option touche:planar=\"xz\" needs gravity in the x-z plane, got "
                        "gravity y = %g m/s^2",
                        opt->gravity.y);
    }
    if (opt->integrator == TCH_INTEGRATOR_IMPLICIT || opt->integrator == TCH_INTEGRATOR_ADAPTIVE) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                        "option touche:planar with the %s integrator is not supported yet; use "
                        "integrator=\"Euler\" or \"RK4\" (or name none: Euler)",
                        tch_integrator_description(opt->integrator));
    }
    return TCH_OK;
}

static tch_status compile_options(compile_context* ctx, tch_error* err) {
    const tch_option_def* opt = tch_spec_option(ctx->spec);
    static const tch_source no_source = {"", 0};
    tch_model* m = ctx->model;
    if (!(opt->timestep > 0) || !isfinite(opt->timestep)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "option timestep must be a positive number of seconds, got %g",
                        opt->timestep);
    }
    if (!tch_v3_isfinite(opt->gravity)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "option gravity must be finite");
    }
    tch_status s = check_contact_params(&opt->contact, &no_source, "option", err);
    if (s == TCH_OK) {
        s = check_planar(opt, err);
    }
    if (s != TCH_OK) {
        return s;
    }
    m->planar = opt->planar;
    m->timestep = opt->timestep;
    m->gravity = opt->gravity;
    m->integrator = opt->integrator;
    m->lcp_solver = opt->lcp_solver != TCH_LCP_SOLVER_INHERIT ? opt->lcp_solver
                                                               : TCH_LCP_SOLVER_LEMKE;
    m->lcp_iterations = opt->lcp_iterations > 0 ? opt->lcp_iterations : LCP_DEFAULT_ITERATIONS;
    m->lcp_tolerance = isnan(opt->lcp_tolerance) ? LCP_DEFAULT_TOLERANCE : opt->lcp_tolerance;
    m->adaptive_rtol = isnan(opt->adaptive_rtol) ? TCH_ADAPTIVE_DEFAULT_RTOL : opt->adaptive_rtol;
    m->adaptive_atol = isnan(opt->adaptive_atol) ? TCH_ADAPTIVE_DEFAULT_ATOL : opt->adaptive_atol;
    m->contact_default = tch_contact_params_overlay(builtin_contact_defaults(), opt->contact);
    m->contact_default.model = effective_model(ctx, m->contact_default.model);
    if (isnan(opt->contact.margin)) {
        m->contact_default.margin = default_margin(m, m->contact_default.model, 0);
    }
    return check_model_runnable(ctx, m->contact_default.model, &no_source, err);
}

/* ---- meshes ---- */

/* The mesh's inertial frame I in its file frame M: centre of volume and principal axes. MuJoCo
 * places a mesh geom's frame there (it re-centres and re-aligns every mesh), so touche does the
 * same and a scene's mesh geoms sit where MuJoCo puts them. */
static tch_transform mesh_inertial_frame(const tch_convex_hull* hull_M) {
    tch_shape shape = {TCH_GEOM_MESH, {0, 0, 0}, hull_M};
    tch_mass_properties props;
    if (tch_shape_mass_properties(&shape, 1.0, &props, NULL) != TCH_OK) {
        return tch_x_identity();
    }
    tch_vec3 moments;
    tch_mat3 axes;
    tch_m3_symmetric_eigen(props.I_GCm, &moments, &axes);
    return (tch_transform){tch_q_from_mat3(axes), props.p_GCm};
}

/* Builds mesh i's hull in its inertial frame; *X_MI receives that frame. */
static tch_status build_mesh_hull(const tch_mesh_def* def, tch_convex_hull* hull,
                                  tch_transform* X_MI, tch_error* err) {
    size_t n = (size_t)(def->vertex_count > 0 ? def->vertex_count : 1);
    tch_vec3* points = malloc(n * sizeof *points);
    if (!points) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for a mesh");
    }
    for (int v = 0; v < def->vertex_count; ++v) {
        points[v] = tch_v3_mul(def->vertices[v], def->scale);
    }
    tch_convex_hull hull_M;
    tch_status s = tch_hull_build(points, def->vertex_count, &hull_M, err);
    if (s == TCH_OK) {
        *X_MI = mesh_inertial_frame(&hull_M);
        tch_hull_free(&hull_M);
        for (int v = 0; v < def->vertex_count; ++v) {
            points[v] = tch_x_apply_inverse(*X_MI, points[v]);
        }
        s = tch_hull_build(points, def->vertex_count, hull, err);
    }
    free(points);
    return s;
}

static tch_status compile_meshes(compile_context* ctx, tch_error* err) {
    tch_model* m = ctx->model;
    m->mesh_count = tch_spec_mesh_count(ctx->spec);
    if (!ALLOC_ARRAY(m->mesh_name, m->mesh_count) || !ALLOC_ARRAY(m->mesh_hull, m->mesh_count) ||
        !ALLOC_ARRAY(ctx->mesh_X_MI, m->mesh_count)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for meshes");
    }
    for (int i = 0; i < m->mesh_count; ++i) {
        const tch_mesh_def* def = tch_spec_mesh(ctx->spec, (tch_mesh_id){i + 1});
        tch_copy_string(m->mesh_name[i], sizeof m->mesh_name[i], def->name);
        tch_error hull_err;
        tch_status s = build_mesh_hull(def, &m->mesh_hull[i], &ctx->mesh_X_MI[i], &hull_err);
        if (s != TCH_OK) {
            return tch_fail(err, s, def->source.file, def->source.line,
                            "mesh '%s' (%s) has no convex hull: %s", def->name, def->file,
                            hull_err.message);
        }
    }
    return TCH_OK;
}

/* ---- bodies ---- */

/* A mocap body (MuJoCo's mocap="true"): a root of its own, welded subtree included, whose pose
 * the data's mocap arrays give; it has no degrees of freedom and an infinite mass (its motion is
 * prescribed, as a static body's, so contacts see no mobility on its side). */
static tch_status compile_mocap_body(compile_context* ctx, int b, tch_error* err) {
    tch_model* m = ctx->model;
    const tch_body_def* def = tch_spec_body(ctx->spec, (tch_body_id){b});
    if (def->parent.index != 0 || def->free_joint) {
        return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                       "mocap body '%s' must be a child of the world without a joint "
                       "(as in MuJoCo)",
                       def->name);
    }
    m->body_root[b] = b;
    m->body_X_RB[b] = tch_x_identity();
    m->body_mocap[b] = m->mocap_count++;
    return TCH_OK;
}

/* Each haptic body's settings, and the tool body a coupling names (a free body). */
static tch_status compile_haptic_tools(compile_context* ctx, tch_error* err) {
    tch_model* m = ctx->model;
    for (int b = 1; b < m->body_count; ++b) {
        const tch_body_def* def = tch_spec_body(ctx->spec, (tch_body_id){b});
        m->body_haptic[b] = def->haptic;
        m->body_haptic_tool[b] = -1;
        if (def->haptic.renderer == TCH_HAPTIC_NONE) {
            continue;
        }
        if (!def->mocap) {
            return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                           "body '%s': touche:haptic needs a mocap body (mocap=\"true\")",
                           def->name);
        }
        if (def->haptic.renderer != TCH_HAPTIC_COUPLING) {
            continue;
        }
        int tool = tch_model_body_index(m, def->haptic.tool);
        if (tool <= 0 || !m->body_free[tool]) {
            return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                           "touche:tool='%s' must name a free body (the tool the coupling "
                           "drives)",
                           def->haptic.tool);
        }
        m->body_haptic_tool[b] = tool;
    }
    return TCH_OK;
}

static tch_status compile_body_tree(compile_context* ctx, tch_error* err) {
    tch_model* m = ctx->model;
    m->body_count = tch_spec_body_count(ctx->spec) + 1;
    int n = m->body_count;
    if (!ALLOC_ARRAY(m->body_mocap, n) || !ALLOC_ARRAY(m->body_haptic, n) ||
        !ALLOC_ARRAY(m->body_haptic_tool, n)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for bodies");
    }
    m->body_mocap[0] = m->body_haptic_tool[0] = -1;
    for (int b = 1; b < n; ++b) {
        m->body_mocap[b] = -1;
    }
    if (!ALLOC_ARRAY(m->body_name, n) || !ALLOC_ARRAY(m->body_parent, n) ||
        !ALLOC_ARRAY(m->body_root, n) || !ALLOC_ARRAY(m->body_free, n) ||
        !ALLOC_ARRAY(m->body_qpos_adr, n) || !ALLOC_ARRAY(m->body_qvel_adr, n) ||
        !ALLOC_ARRAY(m->body_X_PB, n) || !ALLOC_ARRAY(m->body_X_RB, n)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for bodies");
    }
    tch_copy_string(m->body_name[0], sizeof m->body_name[0], "world");
    m->body_parent[0] = -1;
    m->body_qpos_adr[0] = m->body_qvel_adr[0] = -1;
    m->body_X_PB[0] = m->body_X_RB[0] = tch_x_identity();
    for (int b = 1; b < n; ++b) {
        const tch_body_def* def = tch_spec_body(ctx->spec, (tch_body_id){b});
        int parent = def->parent.index;
        tch_copy_string(m->body_name[b], sizeof m->body_name[b], def->name);
        m->body_parent[b] = parent;
        if (tch_q_norm(def->q_PB) < 1e-12 || !tch_v3_isfinite(def->p_PB)) {
            return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                           "body '%s' pose must be finite with a non-zero quaternion",
                           def->name);
        }
        m->body_X_PB[b] = (tch_transform){tch_q_normalize(def->q_PB), def->p_PB};
        m->body_qpos_adr[b] = m->body_qvel_adr[b] = -1;
        if (def->mocap) {
            tch_status s = compile_mocap_body(ctx, b, err);
            if (s != TCH_OK) {
                return s;
            }
        } else if (def->free_joint) {
            if (parent != 0) {
                return fail_at(err, TCH_ERR_UNSUPPORTED, &def->source,
                               "body '%s' has a free joint but is not a child of the world; "
                               "free joints are only allowed on top-level bodies",
                               def->name);
            }
            m->body_free[b] = 1;
            m->body_root[b] = b;
            m->body_X_RB[b] = tch_x_identity();
            m->body_qpos_adr[b] = 7 * m->free_count;
            m->body_qvel_adr[b] = 6 * m->free_count;
            m->free_count++;
        } else if (tch_compile_body_has_joints(ctx->spec, b)) {
            m->body_free[b] = 1; /* a link of an articulated model (io/compile_tree.c) */
            m->body_root[b] = b;
            m->body_X_RB[b] = tch_x_identity();
        } else {
            m->body_root[b] = m->body_root[parent];
            m->body_X_RB[b] = tch_x_mul(m->body_X_RB[parent], m->body_X_PB[b]);
        }
    }
    m->nq = 7 * m->free_count;
    m->nv = 6 * m->free_count;
    return compile_haptic_tools(ctx, err);
}

/* ---- geoms ---- */

static tch_status compile_geom(compile_context* ctx, int g, tch_error* err) {
    tch_model* m = ctx->model;
    const tch_geom_def* def = tch_spec_geom(ctx->spec, (tch_geom_id){g + 1});
    int body = tch_spec_geom_body(ctx->spec, (tch_geom_id){g + 1}).index;
    tch_copy_string(m->geom_name[g], sizeof m->geom_name[g], def->name);
    m->geom_type[g] = def->type;
    m->geom_body[g] = body;
    memcpy(m->geom_size[g], def->size, sizeof def->size);
    if (tch_q_norm(def->q_BG) < 1e-12 || !tch_v3_isfinite(def->p_BG)) {
        return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                       "geom '%s' pose must be finite with a non-zero quaternion", def->name);
    }
    m->geom_X_BG[g] = (tch_transform){tch_q_normalize(def->q_BG), def->p_BG};
    m->geom_mesh[g] = def->type == TCH_GEOM_MESH ? def->mesh.index - 1 : -1;
    if (def->type == TCH_GEOM_MESH) {
        if (m->geom_mesh[g] < 0 || m->geom_mesh[g] >= m->mesh_count) {
            return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                           "mesh geom '%s' names no mesh asset", def->name);
        }
        m->geom_X_BG[g] = tch_x_mul(m->geom_X_BG[g], ctx->mesh_X_MI[m->geom_mesh[g]]);
    }
    m->geom_X_RG[g] = tch_x_mul(m->body_X_RB[body], m->geom_X_BG[g]);
    if (body != 0 && m->body_root[body] == 0 && def->type == TCH_GEOM_PLANE) {
        /* fine: a static plane on a static body */
    } else if (def->type == TCH_GEOM_PLANE && m->body_root[body] != 0) {
        return fail_at(err, TCH_ERR_UNSUPPORTED, &def->source,
                       "plane geom '%s' is on a moving body; planes must be static", def->name);
    }
    tch_shape shape = tch_model_geom_shape(m, g);
    char why[160];
    if (tch_shape_validate(&shape, why, sizeof why) != 0) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                        "geom '%s': %s", def->name, why);
    }
    m->geom_rbound[g] = tch_shape_bounding_radius(&shape);
    m->geom_contype[g] = def->contype;
    m->geom_conaffinity[g] = def->conaffinity;
    m->geom_contact[g] = def->contact;
    m->geom_contact[g].model = effective_model(ctx, def->contact.model);
    if (isnan(def->contact.margin) && isnan(tch_spec_option(ctx->spec)->contact.margin)) {
        /* the scene sets no margin */
        m->geom_contact[g].margin =
            default_margin(m, m->geom_contact[g].model, m->geom_contact[g].margin);
    }
    tch_status s = check_contact_params(&def->contact, &def->source, "geom", err);
    if (s != TCH_OK) {
        return s;
    }
    return check_model_runnable(ctx, effective_model(ctx, def->contact.model), &def->source,
                                err);
}

static tch_status compile_geoms(compile_context* ctx, tch_error* err) {
    tch_model* m = ctx->model;
    m->geom_count = tch_spec_geom_count(ctx->spec);
    int n = m->geom_count;
    if (!ALLOC_ARRAY(m->geom_name, n) || !ALLOC_ARRAY(m->geom_type, n) ||
        !ALLOC_ARRAY(m->geom_body, n) || !ALLOC_ARRAY(m->geom_size, n) ||
        !ALLOC_ARRAY(m->geom_X_BG, n) || !ALLOC_ARRAY(m->geom_X_RG, n) ||
        !ALLOC_ARRAY(m->geom_mesh, n) || !ALLOC_ARRAY(m->geom_contype, n) ||
        !ALLOC_ARRAY(m->geom_conaffinity, n) || !ALLOC_ARRAY(m->geom_rbound, n) ||
        !ALLOC_ARRAY(m->geom_contact, n)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for geoms");
    }
    for (int g = 0; g < n; ++g) {
        tch_status s = compile_geom(ctx, g, err);
        if (s != TCH_OK) {
            return s;
        }
    }
    return TCH_OK;
}

/* ---- sites ---- */

static tch_status compile_sites(compile_context* ctx, tch_error* err) {
    tch_model* m = ctx->model;
    m->site_count = tch_spec_site_count(ctx->spec);
    if (!ALLOC_ARRAY(m->site_name, m->site_count) || !ALLOC_ARRAY(m->site_body, m->site_count) ||
        !ALLOC_ARRAY(m->site_X_BS, m->site_count)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for sites");
    }
    for (int s = 0; s < m->site_count; ++s) {
        const tch_site_def* def = tch_spec_site(ctx->spec, s + 1);
        if (tch_q_norm(def->q_BS) < 1e-12 || !tch_v3_isfinite(def->p_BS)) {
            return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                           "site '%s' pose must be finite with a non-zero quaternion", def->name);
        }
        tch_copy_string(m->site_name[s], sizeof m->site_name[s], def->name);
        m->site_body[s] = tch_spec_site_body(ctx->spec, s + 1).index;
        m->site_X_BS[s] = (tch_transform){tch_q_normalize(def->q_BS), def->p_BS};
    }
    return TCH_OK;
}

/* ---- mass properties ---- */

/* Inertia tensor from MJCF's explicit forms, about the centre of mass in body axes. */
static tch_mat3 explicit_inertia(const tch_body_def* def) {
    if (def->has_full_inertia) {
        const tch_real* f = def->inertia_full; /* Ixx Iyy Izz Ixy Ixz Iyz */
        return (tch_mat3){{{f[0], f[3], f[4]}, {f[3], f[1], f[5]}, {f[4], f[5], f[2]}}};
    }
    tch_mat3 R_BI = tch_q_to_mat3(tch_q_normalize(def->q_BI));
    return tch_m3_rotate_tensor(R_BI, tch_m3_diag(def->inertia_diag));
}

/* Positive definite, finite, and the triangle inequalities of principal moments hold (a rigid
 * body's principal moments satisfy I1 + I2 >= I3). */
static tch_status check_inertia(tch_mat3 I, const tch_body_def* def, tch_error* err) {
    tch_vec3 eig;
    tch_mat3 axes;
    tch_m3_symmetric_eigen(I, &eig, &axes);
    tch_real tol = 1e-9 * fabs(eig.x);
    if (!tch_v3_isfinite(eig) || !(eig.z > 0) || eig.y + eig.z < eig.x - tol) {
        return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                       "body '%s' inertia must be positive definite with principal moments "
                       "that satisfy the triangle inequality (I1 + I2 >= I3)",
                       def->name);
    }
    return TCH_OK;
}

static tch_status geom_mass_properties(compile_context* ctx, int g, tch_mass_properties* out,
                                       tch_error* err) {
    const tch_geom_def* def = tch_spec_geom(ctx->spec, (tch_geom_id){g + 1});
    tch_shape shape = tch_model_geom_shape(ctx->model, g);
    tch_real density = def->density;
    if (!isnan(def->mass)) {
        tch_real volume = tch_shape_volume(&shape);
        density = def->mass / volume;
    }
    if (!(density >= 0) || !isfinite(density)) {
        return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                       "geom '%s' mass and density must be finite and >= 0", def->name);
    }
    if (density == 0) {
        *out = (tch_mass_properties){0, tch_v3_zero(), tch_m3_zero()};
        return TCH_OK;
    }
    tch_error mass_err;
    tch_status s = tch_shape_mass_properties(&shape, density, out, &mass_err);
    if (s != TCH_OK) {
        return tch_fail(err, s, def->source.file, def->source.line, "geom '%s': %s", def->name,
                        mass_err.message);
    }
    *out = tch_mass_properties_transform(*out, ctx->model->geom_X_BG[g]);
    return TCH_OK;
}

/* A body's own mass properties, in its body frame. */
static tch_status body_own_mass(compile_context* ctx, int b, tch_mass_properties* parts,
                                tch_mass_properties* out, tch_error* err) {
    tch_model* m = ctx->model;
    const tch_body_def* def = tch_spec_body(ctx->spec, (tch_body_id){b});
    if (def->has_inertial) {
        if (!(def->mass >= 0) || !isfinite(def->mass)) {
            return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                           "body '%s' inertial mass must be finite and >= 0", def->name);
        }
        tch_mat3 I = explicit_inertia(def);
        tch_status s = check_inertia(I, def, err);
        if (s != TCH_OK) {
            return s;
        }
        *out = (tch_mass_properties){def->mass, def->p_BCm, I};
        return TCH_OK;
    }
    int count = 0;
    for (int g = 0; g < m->geom_count; ++g) {
        if (m->geom_body[g] != b || m->geom_type[g] == TCH_GEOM_PLANE) {
            continue;
        }
        tch_status s = geom_mass_properties(ctx, g, &parts[count], err);
        if (s != TCH_OK) {
            return s;
        }
        count++;
    }
    *out = tch_mass_properties_combine(parts, count);
    return TCH_OK;
}

static tch_status compile_masses(compile_context* ctx, tch_error* err) {
    tch_model* m = ctx->model;
    int n = m->body_count;
    tch_mass_properties* own = calloc((size_t)n, sizeof *own);
    tch_mass_properties* parts = calloc((size_t)(m->geom_count + n + 1), sizeof *parts);
    if (!own || !parts || !ALLOC_ARRAY(m->body_mass, n) || !ALLOC_ARRAY(m->body_p_BCm, n) ||
        !ALLOC_ARRAY(m->body_I_BCm, n) || !ALLOC_ARRAY(m->body_total_mass, n) ||
        !ALLOC_ARRAY(m->body_total_p_BCm, n) || !ALLOC_ARRAY(m->body_total_I_BCm, n) ||
        !ALLOC_ARRAY(m->body_total_I_inv, n)) {
        free(own);
        free(parts);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for masses");
    }
    tch_status s = TCH_OK;
    for (int b = 1; b < n && s == TCH_OK; ++b) {
        s = body_own_mass(ctx, b, parts, &own[b], err);
        m->body_mass[b] = own[b].mass;
        m->body_p_BCm[b] = own[b].p_GCm;
        m->body_I_BCm[b] = own[b].I_GCm;
    }
    for (int b = 1; b < n && s == TCH_OK; ++b) {
        if (m->body_free[b]) {
            s = aggregate_root_mass(ctx, b, own, parts, err);
        } else if (m->body_mocap[b] >= 0) {
            m->body_total_mass[b] = INFINITY; /* no mobility; I_inv stays zero */
        }
    }
    free(own);
    free(parts);
    return s;
}

/* Sums the welded subtree of free body `root` into its composite mass properties. */
static tch_status aggregate_root_mass(compile_context* ctx, int root, const tch_mass_properties* own,
                               tch_mass_properties* parts, tch_error* err) {
    tch_model* m = ctx->model;
    int count = 0;
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_root[b] == root && own[b].mass > 0) {
            parts[count++] = tch_mass_properties_transform(own[b], m->body_X_RB[b]);
        }
    }
    tch_mass_properties total = tch_mass_properties_combine(parts, count);
    const tch_body_def* def = tch_spec_body(ctx->spec, (tch_body_id){root});
    if (!def->free_joint) {
        return tch_compile_link_mass(m, root, total, err); /* a link: massless is allowed */
    }
    if (!(total.mass > 0) || !isfinite(total.mass)) {
        return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                       "free body '%s' has no mass: give it an <inertial> or geoms with a "
                       "positive mass or density",
                       def->name);
    }
    tch_mat3 inverse;
    if (!tch_m3_inverse(total.I_GCm, &inverse)) {
        return fail_at(err, TCH_ERR_INVALID_ARGUMENT, &def->source,
                       "free body '%s' has a singular inertia tensor", def->name);
    }
    m->body_total_mass[root] = total.mass;
    m->body_total_p_BCm[root] = total.p_GCm;
    m->body_total_I_BCm[root] = total.I_GCm;
    m->body_total_I_inv[root] = inverse;
    return TCH_OK;
}

/* ---- pairs ---- */

static tch_status compile_pairs(compile_context* ctx, tch_error* err) {
    tch_model* m = ctx->model;
    m->pair_count = tch_spec_pair_count(ctx->spec);
    if (!ALLOC_ARRAY(m->pair_geom_a, m->pair_count) ||
        !ALLOC_ARRAY(m->pair_geom_b, m->pair_count) ||
        !ALLOC_ARRAY(m->pair_params, m->pair_count)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for pairs");
    }
    for (int p = 0; p < m->pair_count; ++p) {
        const tch_pair_def* def = tch_spec_pair(ctx->spec, p + 1);
        tch_status s = check_contact_params(&def->contact, &def->source, "pair", err);
        if (s != TCH_OK) {
            return s;
        }
        s = check_model_runnable(ctx, effective_model(ctx, def->contact.model), &def->source,
                                 err);
        if (s != TCH_OK) {
            return s;
        }
        m->pair_geom_a[p] = def->geom_a.index - 1;
        m->pair_geom_b[p] = def->geom_b.index - 1;
    }
    for (int p = 0; p < m->pair_count; ++p) {
        const tch_pair_def* def = tch_spec_pair(ctx->spec, p + 1);
        tch_contact_params merged = tch_contact_params_combine(
            m->geom_contact[m->pair_geom_a[p]], m->geom_contact[m->pair_geom_b[p]]);
        merged = tch_contact_params_overlay(merged, def->contact);
        merged.model = effective_model(ctx, merged.model);
        m->pair_params[p] =
            tch_contact_params_resolve(m, merged, m->pair_geom_a[p], m->pair_geom_b[p]);
    }
    return TCH_OK;
}

/* ---- what the contact models compile ---- */

static int scene_uses_model(const tch_model* m, tch_contact_model model) {
    if (m->contact_default.model == model) {
        return 1;
    }
    for (int g = 0; g < m->geom_count; ++g) {
        if (m->geom_contact[g].model == model) {
            return 1;
        }
    }
    for (int p = 0; p < m->pair_count; ++p) {
        if (m->pair_params[p].model == model) {
            return 1;
        }
    }
    return 0;
}

/* The integrator of a scene that names none (docs/integrators.md, "The default"): the linearly
 * implicit one when a model with physical defaults may run (their stiffness outruns the
 * explicit steps) and no constraint model may (its impulses live inside semi-implicit
 * Euler's update), else semi-implicit Euler, MuJoCo's default. */
static void choose_integrator(tch_model* m) {
    if (m->integrator != TCH_INTEGRATOR_AUTO) {
        return;
    }
    if (m->planar != TCH_PLANAR_NONE) { /* the implicit one has no planar mask yet */
        m->integrator = TCH_INTEGRATOR_SEMI_IMPLICIT_EULER;
        return;
    }
    int physical = 0, constraint = 0;
    for (int model = TCH_CONTACT_INHERIT + 1; model < TCH_CONTACT_MODEL_END; ++model) {
        const tch_contact_ops* ops = tch_contact_model_ops((tch_contact_model)model);
        if (ops && scene_uses_model(m, (tch_contact_model)model)) {
            physical |= ops->physical_defaults;
            constraint |= ops->kind == TCH_CONTACT_KIND_CONSTRAINT;
        }
    }
    m->integrator = physical && !constraint ? TCH_INTEGRATOR_IMPLICIT
                                            : TCH_INTEGRATOR_SEMI_IMPLICIT_EULER;
}

/* Whether a force model would run a restitution: point and volume carry it as an impact
 * damper (contact/restitution.h), pressure not yet. */
static int force_restitution(tch_contact_model model, tch_real restitution) {
    const tch_contact_ops* ops = tch_contact_model_ops(model);
    return restitution > 0 && ops && ops->kind == TCH_CONTACT_KIND_FORCE;
}

/* A restitution set where a force model runs: the point and volume models' impact damper is
 * integrated implicitly, so Euler, RK4 and the adaptive integrator refuse it (not supported
 * yet); the pressure model has none yet. */
static tch_status check_force_restitution(const tch_model* m, tch_error* err) {
    const tch_contact_params* def = &m->contact_default;
    int refused = force_restitution(def->model, def->restitution), pressure = 0;
    pressure |= refused && def->model == TCH_CONTACT_PRESSURE;
    for (int g = 0; g < m->geom_count; ++g) {
        const tch_contact_params* c = &m->geom_contact[g];
        tch_contact_model model = c->model != TCH_CONTACT_INHERIT ? c->model : def->model;
        int set = force_restitution(model, isnan(c->restitution) ? def->restitution
                                                                  : c->restitution);
        refused |= set;
        pressure |= set && model == TCH_CONTACT_PRESSURE;
    }
    for (int p = 0; p < m->pair_count; ++p) {
        int set = force_restitution(m->pair_params[p].model, m->pair_params[p].restitution);
        refused |= set;
        pressure |= set && m->pair_params[p].model == TCH_CONTACT_PRESSURE;
    }
    if (pressure) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0, "%s",
                        "restitution of the pressure model is not supported yet (point, "
                        "volume and lcp have one)");
    }
    if (refused && m->integrator != TCH_INTEGRATOR_IMPLICIT) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                        "restitution of the point and volume models needs the implicit "
                        "integrator (its impact damper is integrated implicitly; the default "
                        "of a scene that names none); the scene uses %s",
                        tch_integrator_description(m->integrator));
    }
    return TCH_OK;
}

/* Each used model's per-geom data (tch_contact_ops.build_geoms), from the geoms' files. */
static tch_status compile_model_geoms(compile_context* ctx, tch_error* err) {
    tch_model* m = ctx->model;
    const char** files = calloc((size_t)(m->geom_count > 0 ? m->geom_count : 1), sizeof *files);
    const char** mesh_files = calloc((size_t)(m->mesh_count > 0 ? m->mesh_count : 1),
                                     sizeof *mesh_files);
    tch_vec3* mesh_scale = calloc((size_t)(m->mesh_count > 0 ? m->mesh_count : 1),
                                  sizeof *mesh_scale);
    if (!files || !mesh_files || !mesh_scale) {
        free(files);
        free(mesh_files);
        free(mesh_scale);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the geoms");
    }
    for (int g = 0; g < m->geom_count; ++g) {
        files[g] = tch_spec_geom(ctx->spec, (tch_geom_id){g + 1})->tetmesh;
    }
    for (int i = 0; i < m->mesh_count; ++i) {
        const tch_mesh_def* def = tch_spec_mesh(ctx->spec, (tch_mesh_id){i + 1});
        mesh_files[i] = def->file;
        mesh_scale[i] = def->scale;
    }
    const tch_geom_sources sources = {files, mesh_files, mesh_scale, ctx->mesh_X_MI};
    tch_status s = TCH_OK;
    for (int model = TCH_CONTACT_POINT; model < TCH_CONTACT_MODEL_END && s == TCH_OK; ++model) {
        const tch_contact_ops* ops = tch_contact_model_ops((tch_contact_model)model);
        if (ops && ops->build_geoms && scene_uses_model(m, (tch_contact_model)model)) {
            s = ops->build_geoms(m, &sources, &m->internal->model_geoms[model], err);
        }
    }
    free(files);
    free(mesh_files);
    free(mesh_scale);
    return s;
}

/* What the model keeps beyond its arrays: the pair table and the models' per-geom data. */
static tch_status compile_model_internal(compile_context* ctx, tch_error* err) {
    tch_model* m = ctx->model;
    if (!(m->internal = calloc(1, sizeof *m->internal)) ||
        tch_pair_table_build(m, &m->internal->pairs) != 0) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the model");
    }
    return compile_model_geoms(ctx, err);
}

/* ---- keyframes and the initial state ---- */

static void write_free_body_pose(const tch_model* m, int b, tch_real* qpos) {
    const tch_transform* X = &m->body_X_PB[b];
    tch_real* q = qpos + m->body_qpos_adr[b];
    q[0] = X->p.x, q[1] = X->p.y, q[2] = X->p.z;
    q[3] = X->q.w, q[4] = X->q.x, q[5] = X->q.y, q[6] = X->q.z;
}

static tch_status compile_keys(compile_context* ctx, tch_error* err) {
    tch_model* m = ctx->model;
    m->key_count = tch_spec_key_count(ctx->spec);
    if (!ALLOC_ARRAY(m->qpos0, m->nq) || !ALLOC_ARRAY(m->key_name, m->key_count) ||
        !ALLOC_ARRAY(m->key_time, m->key_count) ||
        !ALLOC_ARRAY(m->key_qpos, m->key_count * m->nq) ||
        !ALLOC_ARRAY(m->key_qvel, m->key_count * m->nv) ||
        !ALLOC_ARRAY(m->key_ctrl, m->key_count * m->actuator_count)) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for keyframes");
    }
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b] && m->body_qpos_adr[b] >= 0) {
            write_free_body_pose(m, b, m->qpos0);
        }
    }
    tch_compile_articulation_qpos0(m);
    for (int k = 0; k < m->key_count; ++k) {
        const tch_key_def* def = tch_spec_key(ctx->spec, k + 1);
        if ((def->qpos && def->qpos_count != m->nq) || (def->qvel && def->qvel_count != m->nv)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                            "key '%s' has %d qpos and %d qvel values; this model expects %d "
                            "qpos and %d qvel (7 and 6 per free body, and each joint's, in "
                            "MuJoCo's order)",
                            def->name, def->qpos ? def->qpos_count : m->nq,
                            def->qvel ? def->qvel_count : m->nv, m->nq, m->nv);
        }
        if (def->ctrl && def->ctrl_count != m->actuator_count) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file, def->source.line,
                            "key '%s' has %d ctrl values; this model has %d actuators",
                            def->name, def->ctrl_count, m->actuator_count);
        }
        if (def->ctrl) {
            memcpy(m->key_ctrl + (size_t)k * (size_t)m->actuator_count, def->ctrl,
                   (size_t)m->actuator_count * sizeof *m->key_ctrl);
        }
        tch_copy_string(m->key_name[k], sizeof m->key_name[k], def->name);
        m->key_time[k] = def->time;
        tch_real* qpos = m->key_qpos + (size_t)k * (size_t)m->nq;
        memcpy(qpos, def->qpos ? def->qpos : m->qpos0, (size_t)m->nq * sizeof *qpos);
        if (def->qvel) {
            memcpy(m->key_qvel + (size_t)k * (size_t)m->nv, def->qvel,
                   (size_t)m->nv * sizeof *m->key_qvel);
        }
        for (int i = 0; i < m->nq; ++i) {
            if (!isfinite(qpos[i])) {
                return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, def->source.file,
                                def->source.line, "key '%s' qpos[%d] is not finite", def->name,
                                i);
            }
        }
    }
    return TCH_OK;
}

/* ---- entry points ---- */

tch_status tch_compile(const tch_spec* spec, tch_model** out, tch_error* err) {
    *out = NULL;
    tch_model* m = calloc(1, sizeof *m);
    if (!m) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the model");
    }
    compile_context ctx = {spec, m, tch_spec_forced_contact_model(spec), NULL};
    tch_status s = compile_options(&ctx, err);
    if (s == TCH_OK) s = compile_meshes(&ctx, err);
    if (s == TCH_OK) s = compile_body_tree(&ctx, err);
    if (s == TCH_OK) s = compile_geoms(&ctx, err);
    if (s == TCH_OK) s = compile_sites(&ctx, err);
    if (s == TCH_OK) s = compile_masses(&ctx, err);
    if (s == TCH_OK) s = compile_pairs(&ctx, err);
    if (s == TCH_OK) choose_integrator(m); /* before the joints: their friction law follows it */
    if (s == TCH_OK) s = tch_compile_articulation(spec, m, err);
    if (s == TCH_OK) s = check_force_restitution(m, err);
    if (s == TCH_OK) s = compile_keys(&ctx, err);
    if (s == TCH_OK) s = compile_model_internal(&ctx, err);
    free(ctx.mesh_X_MI);
    if (s != TCH_OK) {
        tch_model_destroy(m);
        return s;
    }
    *out = m;
    return TCH_OK;
}
