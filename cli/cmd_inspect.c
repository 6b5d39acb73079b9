/* touche info, query and export-mjcf: look at a scene without simulating it. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "constraint_output.h"

static const char* geom_type_label(int type) {
    return tch_geom_type_name((tch_geom_type)type);
}

static void print_bodies(const tch_model* m) {
    printf("bodies: %d (plus the world)\n", m->body_count - 1);
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b]) {
            tch_vec3 c = m->body_total_p_BCm[b];
            tch_mat3 I = m->body_total_I_BCm[b];
            printf("  %-16s %-8s mass %.6g kg, centre of mass (%.4g %.4g %.4g) m, "
                   "inertia diag (%.6g %.6g %.6g) kg m^2\n",
                   m->body_name[b], m->body_qpos_adr[b] >= 0 ? "free" : "link",
                   m->body_total_mass[b], c.x, c.y, c.z, I.m[0][0], I.m[1][1],
                   I.m[2][2]);
        } else {
            printf("  %-16s welded to %s\n", m->body_name[b],
                   m->body_root[b] ? m->body_name[m->body_root[b]] : "the world");
        }
    }
}

/* The contact parameters' names and offsets in tch_contact_params and tch_pair_params (the
 * same X-macro list, TCH_CONTACT_REAL_PARAMS, declares both). */
typedef struct param_field {
    const char* name;
    size_t geom_offset, pair_offset;
} param_field;

#define TCH_PARAM_FIELD(field, positive, combine, doc)                                          \
    {#field, offsetof(tch_contact_params, field), offsetof(tch_pair_params, field)},
static const param_field PARAM_FIELDS[] = {TCH_CONTACT_REAL_PARAMS(TCH_PARAM_FIELD)};
#undef TCH_PARAM_FIELD
enum { PARAM_FIELD_COUNT = (int)(sizeof PARAM_FIELDS / sizeof PARAM_FIELDS[0]) };

static tch_real geom_param(const tch_contact_params* c, int field) {
    return *(const tch_real*)((const char*)c + PARAM_FIELDS[field].geom_offset);
}

static tch_real pair_param(const tch_pair_params* p, int field) {
    return *(const tch_real*)((const char*)p + PARAM_FIELDS[field].pair_offset);
}

/* A geom's own contact parameters (its attributes and default classes), then the scene's
 * defaults it inherits; what neither sets is derived per pair (the pairs below). For a geom
 * the pressure model gives a pressure field: its tet count and modulus. */
static void print_geom_contact(const tch_model* m, int g) {
    const tch_contact_params *own = &m->geom_contact[g], *scene = &m->contact_default;
    printf("    own:");
    int any = 0;
    for (int k = 0; k < PARAM_FIELD_COUNT; ++k) {
        if (!isnan(geom_param(own, k))) {
            printf(" %s %.6g", PARAM_FIELDS[k].name, geom_param(own, k));
            any = 1;
        }
    }
    if (own->rigid != TCH_RIGIDITY_INHERIT) {
        printf(" rigid %s", own->rigid == TCH_RIGIDITY_RIGID ? "true" : "false");
        any = 1;
    }
    printf("%s\n    from the scene:", any ? "" : " (none)");
    for (int k = 0; k < PARAM_FIELD_COUNT; ++k) {
        if (isnan(geom_param(own, k)) && !isnan(geom_param(scene, k))) {
            printf(" %s %.6g", PARAM_FIELDS[k].name, geom_param(scene, k));
        }
    }
    tch_real modulus = 0;
    const tch_tetmesh* mesh = tch_model_geom_tetmesh(m, g, &modulus);
    if (mesh) {
        printf("\n    pressure field: %d tets, modulus %.6g Pa", tch_tetmesh_tet_count(mesh),
               modulus);
    }
    printf("\n");
}

static void print_geoms(const tch_model* m) {
    printf("geoms: %d\n", m->geom_count);
    for (int g = 0; g < m->geom_count; ++g) {
        const tch_real* s = m->geom_size[g];
        printf("  %-16s %-9s on %-16s size (%.4g %.4g %.4g), contact %s\n",
               m->geom_name[g][0] ? m->geom_name[g] : "(unnamed)", geom_type_label(m->geom_type[g]),
               m->body_name[m->geom_body[g]], s[0], s[1], s[2],
               tch_contact_model_name(m->geom_contact[g].model != TCH_CONTACT_INHERIT
                                          ? m->geom_contact[g].model
                                          : m->contact_default.model));
        print_geom_contact(m, g);
    }
}

/* Two geoms touch when they are on different bodies that are not both static and their
 * contype and conaffinity bits meet (MuJoCo's filter). */
static int geoms_may_touch(const tch_model* m, int a, int b) {
    int ra = m->body_root[m->geom_body[a]], rb = m->body_root[m->geom_body[b]];
    if (m->geom_body[a] == m->geom_body[b] || (ra == 0 && rb == 0)) return 0;
    return (m->geom_contype[a] & m->geom_conaffinity[b]) ||
           (m->geom_contype[b] & m->geom_conaffinity[a]);
}

static const char* geom_label(const tch_model* m, int g, char* buffer, size_t size) {
    if (m->geom_name[g][0]) return m->geom_name[g];
    snprintf(buffer, size, "geom %d", g);
    return buffer;
}

/* One set of resolved pair parameters and the pairs that share it. */
typedef struct pair_group {
    tch_pair_params params;
    int count, geom_a, geom_b; /* the pairs, and the first of them */
} pair_group;

enum { PAIR_GROUPS_SHOWN = 16 };

static void print_pair_group(const tch_model* m, const pair_group* group) {
    char a[32], b[32];
    const tch_pair_params* p = &group->params;
    printf("  %d pair%s like %s / %s: %s", group->count, group->count == 1 ? "" : "s",
           geom_label(m, group->geom_a, a, sizeof a), geom_label(m, group->geom_b, b, sizeof b),
           tch_contact_model_name(p->model));
    for (int k = 0; k < PARAM_FIELD_COUNT; ++k) { /* NaN: unused by every model */
        if (!isnan(pair_param(p, k))) printf(" %s %.6g", PARAM_FIELDS[k].name, pair_param(p, k));
    }
    printf("%s\n", p->stiffness_derived || p->damping_derived
                       ? " (stiffness or damping derived: docs/contact-point.md)"
                       : "");
}

/* The resolved parameters of the geom pairs that may touch, each distinct set once with the
 * number of pairs that share it (every field as the pair's contact model uses it). */
static void print_pair_params(const tch_model* m) {
    pair_group groups[PAIR_GROUPS_SHOWN];
    int group_count = 0, others = 0;
    for (int a = 0; a < m->geom_count; ++a) {
        for (int b = a + 1; b < m->geom_count; ++b) {
            if (!geoms_may_touch(m, a, b)) continue;
            tch_pair_params p = tch_model_pair_params(m, a, b);
            int k = 0;
            while (k < group_count && memcmp(&groups[k].params, &p, sizeof p) != 0) ++k;
            if (k < group_count) {
                groups[k].count++;
            } else if (group_count < PAIR_GROUPS_SHOWN) {
                groups[group_count++] = (pair_group){p, 1, a, b};
            } else {
                others++;
            }
        }
    }
    if (group_count > 0) printf("pairs that may touch, resolved parameters:\n");
    for (int k = 0; k < group_count; ++k) print_pair_group(m, &groups[k]);
    if (others > 0) printf("  ... and %d pairs with other parameters\n", others);
}

static void print_contact_models(const tch_model* m) {
    printf("contact: scene default '%s', friction %.4g\n",
           tch_contact_model_name(m->contact_default.model), m->contact_default.friction);
    int used[TCH_CONTACT_MODEL_END] = {0};
    int fallbacks = cli_count_pair_models(m, used);
    for (int i = 1; i < TCH_CONTACT_MODEL_END; ++i) {
        if (used[i]) printf("  %-9s %d geom pairs\n", tch_contact_model_name((tch_contact_model)i), used[i]);
    }
    if (fallbacks) {
        printf("  (%d pressure pairs of two rigid geoms use the point model: no pressure field)\n",
               fallbacks);
    }
}

static void print_joints(const tch_model* m) {
    if (m->joint_count == 0) {
        return;
    }
    printf("joints: %d (nq %d, nv %d)\n", m->joint_count, m->nq, m->nv);
    for (int j = 0; j < m->joint_count; ++j) {
        printf("  %-16s %-6s on %-16s qpos %d, qvel %d",
               m->joint_name[j][0] ? m->joint_name[j] : "(unnamed)",
               tch_joint_type_name((tch_joint_type)m->joint_type[j]),
               m->body_name[m->joint_body[j]], m->joint_qpos_adr[j], m->joint_qvel_adr[j]);
        if (m->joint_limited[j]) {
            printf(", range %.6g .. %.6g", m->joint_range[j][0], m->joint_range[j][1]);
        }
        printf("\n");
    }
}

int cli_cmd_info(const cli_options* o) {
    cli_session session;
    int code = cli_open_session(o, 0, &session);
    if (code != EXIT_OK) return code;
    const tch_model* m = session.model;
    printf("scene: %s\n", o->scene);
    printf("timestep %.6g s, integrator %s, gravity (%.4g %.4g %.4g) m/s^2, %d keyframes\n",
           m->timestep, tch_integrator_description(m->integrator),
           m->gravity.x, m->gravity.y, m->gravity.z, m->key_count);
    print_bodies(m);
    print_joints(m);
    print_geoms(m);
    print_contact_models(m);
    print_pair_params(m);
    cli_close_session(&session);
    return EXIT_OK;
}

static void json_reals(FILE* f, const char* name, const tch_real* x, int n) {
    fprintf(f, ",\"%s\":[", name);
    for (int i = 0; i < n; ++i) {
        fprintf(f, "%s%.17g", i ? "," : "", x[i]);
    }
    fprintf(f, "]");
}

/* Per joint, in MuJoCo's order: name, type, qpos, qvel, the bias force (gravity and velocity
 * products: the torque that holds the tree still at rest), the passive force and the
 * actuators' force, at the state the query starts from. */
static int json_joints(FILE* f, const tch_model* m, tch_data* d) {
    if (m->joint_count == 0) {
        return EXIT_OK;
    }
    tch_real* bias = calloc((size_t)m->nv, sizeof *bias);
    tch_real* passive = calloc((size_t)m->nv, sizeof *passive);
    tch_real* actuator = calloc((size_t)m->nv, sizeof *actuator);
    tch_error err = {0};
    int code = EXIT_OK;
    if (!bias || !passive || !actuator ||
        tch_data_joint_forces(m, d, bias, passive, actuator, &err) != TCH_OK) {
        cli_print_error("cannot evaluate the joint forces", &err);
        code = EXIT_FAILURE_GENERIC;
    }
    for (int j = 0; j < m->joint_count && code == EXIT_OK; ++j) {
        fprintf(f, "%s{\"name\":", j ? "," : ",\"joints\":[");
        cli_json_string(f, m->joint_name[j]);
        fprintf(f, ",\"type\":\"%s\"", tch_joint_type_name((tch_joint_type)m->joint_type[j]));
        tch_joint_type type = (tch_joint_type)m->joint_type[j];
        int q = m->joint_qpos_adr[j], v = m->joint_qvel_adr[j], nv = tch_joint_qvel_count(type);
        json_reals(f, "qpos", d->qpos + q, tch_joint_qpos_count(type));
        json_reals(f, "qvel", d->qvel + v, nv);
        json_reals(f, "bias", bias + v, nv);
        json_reals(f, "passive", passive + v, nv);
        json_reals(f, "actuator", actuator + v, nv);
        fprintf(f, "}%s", j + 1 == m->joint_count ? "]" : "");
    }
    free(bias);
    free(passive);
    free(actuator);
    return code;
}

int cli_cmd_query(const cli_options* options) {
    cli_options o_energy = *options;
    o_energy.contact_energy = 1;
    const cli_options* o = &o_energy;
    cli_session session;
    int code = cli_open_session(o, 1, &session);
    const tch_model* m = session.model;
    tch_data* d = session.data;
    tch_error err = {0};
    /* One step on this throwaway data: the contacts are those of the initial state, and the
     * constraint models' forces exist only once a step is solved. */
    double t = code == EXIT_OK ? d->time : 0;
    if (code == EXIT_OK) {
        printf("{\"scene\":");
        cli_json_string(stdout, o->scene);
        printf(",\"time\":%.17g", t);
        code = json_joints(stdout, m, d);
    }
    if (code == EXIT_OK && o->derivatives) code = cli_json_derivatives(stdout, m, d);
    if (code == EXIT_OK && tch_step(m, d, &err) != TCH_OK) {
        cli_print_error("cannot evaluate the contacts", &err);
        code = EXIT_FAILURE_GENERIC;
    }
    if (code == EXIT_OK) {
        printf(",\"pairs\":");
        cli_json_pairs(stdout, m, d);
        cli_json_constraint(stdout, d);
        printf("}\n");
    }
    cli_close_session(&session);
    return code;
}

int cli_cmd_export(const cli_options* o) {
    cli_session session;
    int code = cli_open_session(o, 0, &session);
    if (code != EXIT_OK) return code;
    tch_error err = {0};
    if (tch_mjcf_save(session.spec, o->output, o->touche_attributes, &err) != TCH_OK) {
        cli_print_error("cannot write the scene", &err);
        code = EXIT_BAD_INPUT;
    } else {
        fprintf(stderr, "touche export-mjcf: wrote %s\n", o->output);
    }
    cli_close_session(&session);
    return code;
}
