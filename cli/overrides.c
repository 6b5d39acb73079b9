/* --set TARGET=VALUE: contact parameters on the command line, applied to the loaded spec before
 * it is compiled (docs/cli.md, "Overriding contact parameters"):
 *
 *   PARAM=VALUE             the scene default (as <option touche:PARAM>)
 *   geom:NAME.PARAM=VALUE   the geom NAME (geom:*.PARAM: every geom)
 *   pair:A/B.PARAM=VALUE    the <pair> of geoms A and B
 *   class:NAME.PARAM=VALUE  the default class NAME (as its <geom touche:PARAM>), applied by the
 *                           MJCF loader while it reads the classes (cli_class_sets_collect)
 *
 * PARAM is a real parameter of TCH_CONTACT_REAL_PARAMS, `model` or `rigid`. Shapes and masses
 * too (docs/cli.md, "Overriding shapes and masses"):
 *
 *   geom:NAME.size=A [B C]  the geom's size, as MJCF's (the sizes its type reads)
 *   geom:NAME.mass=M        its mass (geom:NAME.density=RHO: its density, the mass then follows)
 *   body:NAME.mass=M        a body with an <inertial>: its mass, the inertia scaled with it */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct real_param {
    const char* name;
    size_t offset;
} real_param;

static const real_param REAL_PARAMS[] = {
#define REAL_PARAM_ENTRY(field, positive, combine, doc) {#field, offsetof(tch_contact_params, field)},
    TCH_CONTACT_REAL_PARAMS(REAL_PARAM_ENTRY)
#undef REAL_PARAM_ENTRY
};
enum { REAL_PARAM_COUNT = sizeof REAL_PARAMS / sizeof REAL_PARAMS[0] };

static const real_param* find_real_param(const char* name) {
    for (int i = 0; i < REAL_PARAM_COUNT; ++i) {
        if (strcmp(REAL_PARAMS[i].name, name) == 0) return &REAL_PARAMS[i];
    }
    return NULL;
}

static int known_param(const char* name) {
    return find_real_param(name) || strcmp(name, "model") == 0 || strcmp(name, "rigid") == 0;
}

/* Whether `p` sets `name` itself (so a scene default of it does not reach it). */
static int sets_param(const tch_contact_params* p, const char* name) {
    const real_param* r = find_real_param(name);
    if (r) return !isnan(*(const tch_real*)((const char*)p + r->offset));
    return strcmp(name, "model") == 0 ? p->model != TCH_CONTACT_INHERIT
                                      : p->rigid != TCH_RIGIDITY_INHERIT;
}

/* Stores `value` as `name` in *p; returns 0 when the value cannot be read. */
static int store_param(tch_contact_params* p, const char* name, const char* value) {
    const real_param* r = find_real_param(name);
    if (r) {
        char* end = NULL;
        errno = 0;
        double v = strtod(value, &end);
        if (errno || end == value || *end || !isfinite(v)) return 0;
        *(tch_real*)((char*)p + r->offset) = v;
        return 1;
    }
    if (strcmp(name, "model") == 0) return tch_contact_model_parse(value, &p->model);
    if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) {
        p->rigid = value[0] == 't' ? TCH_RIGIDITY_RIGID : TCH_RIGIDITY_COMPLIANT;
        return 1;
    }
    return 0;
}

static int bad_set(const char* set, const char* why) {
    fprintf(stderr, "touche: --set %s: %s (docs/cli.md)\n", set, why);
    return EXIT_BAD_INPUT;
}

/* The scene default; notes the geoms and pairs that set the parameter themselves. */
static int set_default(tch_spec* spec, const char* param, const char* value, const char* set,
                       int quiet) {
    tch_option_def opt = *tch_spec_option(spec);
    if (!store_param(&opt.contact, param, value)) return bad_set(set, "cannot read the value");
    tch_spec_set_option(spec, &opt, NULL);
    int shadowed = 0;
    for (int g = 1; g <= tch_spec_geom_count(spec); ++g) {
        shadowed += sets_param(&tch_spec_geom(spec, (tch_geom_id){g})->contact, param);
    }
    for (int i = 1; i <= tch_spec_pair_count(spec); ++i) {
        shadowed += sets_param(&tch_spec_pair(spec, i)->contact, param);
    }
    if (shadowed && !quiet) {
        fprintf(stderr, "touche: note: --set %s is the scene default; %d geoms or pairs set their "
                        "own %s (geom:*.%s=%s overrides every geom)\n",
                set, shadowed, param, param, value);
    }
    return EXIT_OK;
}

static int set_geoms(tch_spec* spec, const char* name, const char* param, const char* value,
                     const char* set) {
    int matched = 0;
    for (int g = 1; g <= tch_spec_geom_count(spec); ++g) {
        tch_geom_id id = {g};
        const tch_geom_def* def = tch_spec_geom(spec, id);
        if (strcmp(name, "*") != 0 && strcmp(def->name, name) != 0) continue;
        tch_contact_params p = def->contact;
        if (!store_param(&p, param, value)) return bad_set(set, "cannot read the value");
        tch_spec_set_geom_contact(spec, id, &p, NULL);
        ++matched;
    }
    return matched ? EXIT_OK : bad_set(set, "the scene has no geom of that name");
}

/* `names` is "A/B": the pair of geoms A and B, in either order. */
static int set_pair(tch_spec* spec, const char* names, const char* param, const char* value,
                    const char* set) {
    char a[64];
    const char* slash = strchr(names, '/');
    if (!slash || (size_t)(slash - names) >= sizeof a) return bad_set(set, "expected pair:A/B.PARAM");
    snprintf(a, sizeof a, "%.*s", (int)(slash - names), names);
    int ga = tch_spec_find_geom(spec, a).index, gb = tch_spec_find_geom(spec, slash + 1).index;
    for (int i = 1; ga && gb && i <= tch_spec_pair_count(spec); ++i) {
        const tch_pair_def* def = tch_spec_pair(spec, i);
        int x = def->geom_a.index, y = def->geom_b.index;
        if ((x == ga && y == gb) || (x == gb && y == ga)) {
            tch_contact_params p = def->contact;
            if (!store_param(&p, param, value)) return bad_set(set, "cannot read the value");
            tch_spec_set_pair_contact(spec, i, &p, NULL);
            return EXIT_OK;
        }
    }
    return bad_set(set, "the scene has no <pair> of these geoms");
}

/* Reads one to three numbers separated by spaces or commas into out; returns how many, 0 when
 * the text is not that. */
static int read_numbers(const char* text, double out[3]) {
    int n = 0;
    const char* at = text;
    while (*at) {
        char* end = NULL;
        errno = 0;
        double v = strtod(at, &end);
        if (errno || end == at || !isfinite(v) || n == 3) return 0;
        out[n++] = v;
        at = end;
        while (*at == ' ' || *at == ',') ++at;
    }
    return n;
}

static int is_geom_property(const char* name) {
    return strcmp(name, "size") == 0 || strcmp(name, "mass") == 0 || strcmp(name, "density") == 0;
}

/* Stores the shape or mass property `name` in *def; returns 0 with *why set when it cannot. */
static int store_geom_property(tch_geom_def* def, const char* name, const char* value,
                               const char** why) {
    double x[3];
    int n = read_numbers(value, x);
    if (n == 0 || (strcmp(name, "size") != 0 && n != 1)) {
        *why = "cannot read the value (size: one to three numbers; mass, density: one)";
        return 0;
    }
    if (strcmp(name, "size") == 0) {
        for (int i = 0; i < n; ++i) def->size[i] = x[i];
    } else if (strcmp(name, "mass") == 0) {
        def->mass = x[0];
    } else {
        def->density = x[0];
        def->mass = NAN; /* the density decides */
    }
    return 1;
}

static int set_geom_property(tch_spec* spec, const char* name, const char* property,
                             const char* value, const char* set) {
    int matched = 0;
    for (int g = 1; g <= tch_spec_geom_count(spec); ++g) {
        tch_geom_id id = {g};
        tch_geom_def def = *tch_spec_geom(spec, id);
        if (strcmp(name, "*") != 0 && strcmp(def.name, name) != 0) continue;
        const char* why = NULL;
        if (!store_geom_property(&def, property, value, &why)) return bad_set(set, why);
        tch_error err = {0};
        if (tch_spec_update_geom(spec, id, &def, &err) != TCH_OK) return bad_set(set, err.message);
        ++matched;
    }
    return matched ? EXIT_OK : bad_set(set, "the scene has no geom of that name");
}

/* body:NAME.mass: a body whose <inertial> gives its mass; its inertia keeps its shape (the
 * moments scale with the mass). */
static int set_body_mass(tch_spec* spec, const char* name, const char* property,
                         const char* value, const char* set) {
    if (strcmp(property, "mass") != 0) {
        return bad_set(set, "unknown body property; expected body:NAME.mass (a free body's "
                            "initial state is a sweep's body:NAME.pos|quat|vel|angvel)");
    }
    tch_body_id id = tch_spec_find_body(spec, name);
    if (id.index <= 0) return bad_set(set, "the scene has no body of that name");
    tch_body_def def = *tch_spec_body(spec, id);
    double x[3];
    if (read_numbers(value, x) != 1) return bad_set(set, "cannot read the value");
    if (!def.has_inertial || !(def.mass > 0)) {
        return bad_set(set, "the body takes its mass from its geoms (no <inertial> with a "
                            "positive mass): set geom:NAME.mass or geom:NAME.density");
    }
    if (!(x[0] > 0)) return bad_set(set, "a body's mass must be positive");
    double scale = x[0] / def.mass;
    def.mass = x[0];
    def.inertia_diag = (tch_vec3){def.inertia_diag.x * scale, def.inertia_diag.y * scale,
                                  def.inertia_diag.z * scale};
    for (int i = 0; i < 6; ++i) def.inertia_full[i] *= scale;
    tch_error err = {0};
    if (tch_spec_update_body(spec, id, &def, &err) != TCH_OK) return bad_set(set, err.message);
    return EXIT_OK;
}

/* The shape and mass targets (geom:NAME.size|mass|density, body:NAME.mass); -1 when `set` is
 * not one of them. */
static int apply_shape_set(tch_spec* spec, const char* set) {
    char target[256];
    const char* eq = strchr(set, '=');
    if (!eq || (size_t)(eq - set) >= sizeof target) return -1;
    snprintf(target, sizeof target, "%.*s", (int)(eq - set), set);
    char* dot = strrchr(target, '.');
    int geom = strncmp(target, "geom:", 5) == 0, body = strncmp(target, "body:", 5) == 0;
    if (!dot || (!body && !(geom && is_geom_property(dot + 1)))) return -1;
    *dot = '\0';
    return geom ? set_geom_property(spec, target + 5, dot + 1, eq + 1, set)
                : set_body_mass(spec, target + 5, dot + 1, eq + 1, set);
}

int cli_apply_set(tch_spec* spec, const char* set, int quiet) {
    int shape = apply_shape_set(spec, set);
    if (shape >= 0) return shape;
    char target[256];
    const char* eq = strchr(set, '=');
    if (!eq || (size_t)(eq - set) >= sizeof target) return bad_set(set, "expected TARGET=VALUE");
    snprintf(target, sizeof target, "%.*s", (int)(eq - set), set);
    const char* value = eq + 1;
    char* colon = strchr(target, ':');
    char* dot = strrchr(target, '.');
    const char* param = colon ? (dot ? dot + 1 : "") : target;
    if (!known_param(param)) {
        return bad_set(set, "unknown parameter; expected model, rigid or a touche:PARAM of "
                            "docs/mjcf.md (stiffness, friction, ...)");
    }
    if (!colon) return set_default(spec, param, value, set, quiet);
    if (!dot || dot < colon) return bad_set(set, "expected KIND:NAME.PARAM=VALUE");
    *colon = *dot = '\0';
    const char* name = colon + 1;
    if (strcmp(target, "geom") == 0) return set_geoms(spec, name, param, value, set);
    if (strcmp(target, "pair") == 0) return set_pair(spec, name, param, value, set);
    if (strcmp(target, "class") == 0) {
        return bad_set(set, "a default class is set while the scene loads: give it to --set "
                            "(not to a fitted or swept parameter list)");
    }
    return bad_set(set, "unknown target; expected PARAM, geom:NAME.PARAM, pair:A/B.PARAM, "
                        "class:NAME.PARAM, geom:NAME.size|mass|density or body:NAME.mass");
}

int cli_apply_sets(const cli_options* o, tch_spec* spec) {
    for (int i = 0; i < o->set_count; ++i) {
        if (strncmp(o->sets[i], "class:", 6) == 0) continue; /* applied while loading */
        int code = cli_apply_set(spec, o->sets[i], 0);
        if (code != EXIT_OK) return code;
    }
    return EXIT_OK;
}

/* The class NAME's entry of `classes`, added when new. */
static tch_mjcf_class_params* class_entry(cli_class_sets* classes, const char* name) {
    for (int i = 0; i < classes->count; ++i) {
        if (strcmp(classes->items[i].class_name, name) == 0) return &classes->items[i];
    }
    tch_mjcf_class_params* entry = &classes->items[classes->count++];
    snprintf(entry->class_name, sizeof entry->class_name, "%s", name);
    entry->contact = tch_contact_params_unset();
    return entry;
}

int cli_class_sets_collect(const cli_options* o, cli_class_sets* classes) {
    classes->count = 0;
    for (int i = 0; i < o->set_count; ++i) {
        const char* set = o->sets[i];
        const char* eq = strchr(set, '=');
        const char* dot = eq ? memchr(set, '.', (size_t)(eq - set)) : NULL;
        if (strncmp(set, "class:", 6) != 0 || !eq) continue; /* apply_set checks the rest */
        char name[64], param[64];
        if (!dot || dot - (set + 6) <= 0 || (size_t)(dot - (set + 6)) >= sizeof name ||
            (size_t)(eq - dot - 1) >= sizeof param) {
            return bad_set(set, "expected class:NAME.PARAM=VALUE");
        }
        snprintf(name, sizeof name, "%.*s", (int)(dot - (set + 6)), set + 6);
        snprintf(param, sizeof param, "%.*s", (int)(eq - dot - 1), dot + 1);
        if (!known_param(param)) {
            return bad_set(set, "unknown parameter; expected model, rigid or a touche:PARAM of "
                                "docs/mjcf.md (stiffness, friction, ...)");
        }
        if (!store_param(&class_entry(classes, name)->contact, param, eq + 1)) {
            return bad_set(set, "cannot read the value");
        }
    }
    return EXIT_OK;
}
