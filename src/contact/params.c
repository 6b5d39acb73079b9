#include "contact/params.h"

#include <math.h>
#include <stdlib.h>

#include "contact/contact.h"
#include "contact/pressure.h"
#include "math/vec.h"

/* Natural period of a contact with derived stiffness, in time steps. */
enum { DERIVED_PERIOD_STEPS = 25 };
/* The point model's default material when its springs are integrated implicitly (the
 * linearly implicit and adaptive integrators, docs/contact-point.md, "Defaults"): a stiffness
 * per point of 1e6 N/m (1 kN at 1 mm: a 1 kg box on four corners sinks 2.5 um, the foot of a
 * stack of fifty 1 kg blocks 0.12 mm) and a Kelvin-Voigt relaxation time b/k of 20 ms, the volume
 * model's (contact/volume.c). Values of the material, not of the masses or the time step. */
static const tch_real POINT_DEFAULT_STIFFNESS = 1e6;
static const tch_real POINT_DEFAULT_RELAXATION_TIME = 0.02;
/* Depth at which a derived Hunt-Crossley stiffness matches the linear one, m. */
static const tch_real HUNT_CROSSLEY_REFERENCE_DEPTH = 1e-3;

/* The fields of c that are unset take base's values: c becomes base overlaid by c. In place,
 * as the per-pair lookup of every step uses it (the structs are large). */
static void inherit_unset(tch_contact_params* c, const tch_contact_params* base) {
    if (c->model == TCH_CONTACT_INHERIT) c->model = base->model;
    if (c->law == TCH_POINT_LAW_INHERIT) c->law = base->law;
    if (c->rigid == TCH_RIGIDITY_INHERIT) c->rigid = base->rigid;
#define INHERIT_PARAM(field, positive, combine, doc) \
    if (isnan(c->field)) c->field = base->field;
    TCH_CONTACT_REAL_PARAMS(INHERIT_PARAM)
#undef INHERIT_PARAM
}

tch_contact_params tch_contact_params_overlay(tch_contact_params base, tch_contact_params over) {
    inherit_unset(&over, &base);
    return over;
}

typedef tch_real (*combine_rule)(tch_real, tch_real);

/* Springs (or dampers) in series; two zeros make a zero, not 0/0. */
static tch_real series(tch_real a, tch_real b) {
    return a + b > 0 ? a * b / (a + b) : 0;
}
static tch_real larger(tch_real a, tch_real b) {
    return fmax(a, b);
}
static tch_real smaller(tch_real a, tch_real b) {
    return fmin(a, b);
}
static tch_real mean(tch_real a, tch_real b) {
    return (a + b) / 2;
}

/* Both set: the rule; one set: that one; none: NaN. */
static tch_real combine_value(tch_real a, tch_real b, combine_rule rule) {
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    return rule(a, b);
}

static int combine_enum(int a, int b, int inherit) {
    if (a == inherit) return b;
    if (b == inherit || a == b) return a;
    return inherit;
}

static void combine_into(const tch_contact_params* a, const tch_contact_params* b,
                         tch_contact_params* c) {
    c->model = (tch_contact_model)combine_enum(a->model, b->model, TCH_CONTACT_INHERIT);
    c->law = (tch_point_law)combine_enum(a->law, b->law, TCH_POINT_LAW_INHERIT);
    c->rigid = TCH_RIGIDITY_INHERIT; /* a property of each geom, not of the pair */
#define COMBINE_PARAM(field, positive, rule, doc) \
    c->field = combine_value(a->field, b->field, rule);
    TCH_CONTACT_REAL_PARAMS(COMBINE_PARAM)
#undef COMBINE_PARAM
}

tch_contact_params tch_contact_params_combine(tch_contact_params a, tch_contact_params b) {
    tch_contact_params c;
    combine_into(&a, &b, &c);
    return c;
}

static tch_real root_mass(const tch_model* model, int geom) {
    int root = model->body_root[model->geom_body[geom]];
    return root > 0 ? model->body_total_mass[root] : INFINITY;
}

tch_real tch_contact_pair_mass(const tch_model* model, int geom_a, int geom_b) {
    tch_real ma = root_mass(model, geom_a), mb = root_mass(model, geom_b);
    if (isinf(ma)) return mb;
    if (isinf(mb)) return ma;
    return ma * mb / (ma + mb);
}

/* Whether a pair that the point model runs takes the point model's default material: when the
 * integrator integrates its springs implicitly. */
static int point_material(const tch_model* model, tch_contact_model running) {
    return running == TCH_CONTACT_POINT && tch_integrator_takes_physical_defaults(model->integrator);
}

/* The point material's stiffness, or k = m (2 pi / (25 h))^2 (a contact period of 25 steps);
 * for Hunt-Crossley the k whose force matches the linear one at the reference depth. */
static tch_real derived_stiffness(const tch_model* model, tch_contact_model running,
                                  tch_point_law law, tch_real exponent, tch_real mass) {
    tch_real omega = 2 * TCH_PI / (DERIVED_PERIOD_STEPS * model->timestep);
    tch_real k = point_material(model, running) ? POINT_DEFAULT_STIFFNESS : mass * omega * omega;
    return law == TCH_POINT_LAW_HUNT_CROSSLEY ? k / pow(HUNT_CROSSLEY_REFERENCE_DEPTH, exponent - 1)
                                              : k;
}

/* The linear law's damping: the point material's b = tau k, or b = 2 sqrt(k m), critical
 * damping (none for Hunt-Crossley, whose dissipation is its own parameter). */
static tch_real derived_damping(const tch_model* model, tch_contact_model running,
                                tch_point_law law, tch_real stiffness, tch_real mass) {
    if (law != TCH_POINT_LAW_LINEAR) {
        return 0;
    }
    return point_material(model, running) ? POINT_DEFAULT_RELAXATION_TIME * stiffness
                                          : 2 * sqrt(stiffness * mass);
}

/* The model that runs a pair whose scene asks for `requested`: two rigid geoms have no
 * pressure field (pressure.h), so the point model runs them. */
static tch_contact_model model_running(const tch_model* model, tch_contact_model requested,
                                       int geom_a, int geom_b) {
    if (requested == TCH_CONTACT_PRESSURE && tch_pressure_geom_is_rigid(model, geom_a) &&
        tch_pressure_geom_is_rigid(model, geom_b)) {
        return TCH_CONTACT_POINT;
    }
    return requested;
}

/* tch_contact_params_resolve with c completed in place and the result written to *p. */
static void resolve_into(const tch_model* model, tch_contact_params* c, int geom_a, int geom_b,
                         tch_pair_params* p) {
    inherit_unset(c, &model->contact_default);
    bool stiffness_derived = isnan(c->stiffness), damping_derived = isnan(c->damping);
    tch_real mass = stiffness_derived || damping_derived
                        ? tch_contact_pair_mass(model, geom_a, geom_b)
                        : NAN; /* only derived values need it */
    if (isnan(c->dissipation)) { /* the pressure model's default material dissipates */
        c->dissipation = c->model == TCH_CONTACT_PRESSURE ? TCH_PRESSURE_DEFAULT_DISSIPATION : 0;
    }
    tch_contact_model running = model_running(model, c->model, geom_a, geom_b);
    if (stiffness_derived) {
        c->stiffness = derived_stiffness(model, running, c->law, c->exponent, mass);
    }
    if (damping_derived) {
        c->damping = derived_damping(model, running, c->law, c->stiffness, mass);
    }
    if (isnan(c->static_friction)) {
        c->static_friction = c->friction;
    }
    p->tangential_stiffness_derived = isnan(c->tangential_stiffness);
    p->tangential_damping_derived = isnan(c->tangential_damping);
    if (isnan(c->tangential_stiffness)) {
        c->tangential_stiffness = c->stiffness;
    }
    if (isnan(c->tangential_damping)) {
        c->tangential_damping = c->damping;
    }
    c->static_friction = fmax(c->static_friction, c->friction);
    p->model = running;
    p->requested = c->model;
    p->law = c->law;
    p->stiffness_derived = stiffness_derived;
    p->damping_derived = damping_derived;
#define COPY_PARAM(field, positive, combine, doc) p->field = c->field;
    TCH_CONTACT_REAL_PARAMS(COPY_PARAM)
#undef COPY_PARAM
}

tch_pair_params tch_contact_params_resolve(const tch_model* model, tch_contact_params c,
                                           int geom_a, int geom_b) {
    tch_pair_params p;
    resolve_into(model, &c, geom_a, geom_b, &p);
    return p;
}

/* ---- the pair table ---- */

/* The slot where the probe for the unordered pair (a, b) starts. */
static int table_start(const tch_pair_table* table, int a, int b) {
    unsigned lo = (unsigned)(a < b ? a : b), hi = (unsigned)(a < b ? b : a);
    unsigned hash = (lo * 0x9E3779B1u) ^ (hi * 0x85EBCA77u);
    return (int)(hash & (unsigned)(table->capacity - 1));
}

static int is_pair(const tch_model* model, int p, int a, int b) {
    return (model->pair_geom_a[p] == a && model->pair_geom_b[p] == b) ||
           (model->pair_geom_a[p] == b && model->pair_geom_b[p] == a);
}

/* Slot of the pair of (a, b) or the empty slot where it would go. */
static int table_probe(const tch_model* model, const tch_pair_table* table, int a, int b) {
    int mask = table->capacity - 1;
    int i = table_start(table, a, b);
    while (table->slots[i] >= 0 && !is_pair(model, table->slots[i], a, b)) {
        i = (i + 1) & mask;
    }
    return i;
}

int tch_pair_table_build(const tch_model* model, tch_pair_table* table) {
    table->slots = NULL;
    table->capacity = 0;
    if (model->pair_count == 0) {
        return 0;
    }
    int capacity = 2;
    while (capacity < 2 * model->pair_count) {
        capacity *= 2;
    }
    table->slots = malloc((size_t)capacity * sizeof *table->slots);
    if (!table->slots) {
        return -1;
    }
    table->capacity = capacity;
    for (int i = 0; i < capacity; ++i) {
        table->slots[i] = -1;
    }
    for (int p = 0; p < model->pair_count; ++p) {
        int slot = table_probe(model, table, model->pair_geom_a[p], model->pair_geom_b[p]);
        if (table->slots[slot] < 0) { /* the first of repeated pairs wins, as the scan did */
            table->slots[slot] = p;
        }
    }
    return 0;
}

void tch_pair_table_free(tch_pair_table* table) {
    free(table->slots);
    table->slots = NULL;
    table->capacity = 0;
}

int tch_pair_table_find(const tch_model* model, int geom_a, int geom_b) {
    const tch_pair_table* table = &model->internal->pairs;
    if (table->capacity == 0) {
        return -1;
    }
    return table->slots[table_probe(model, table, geom_a, geom_b)];
}

tch_contact_model tch_pair_model(const tch_model* model, int geom_a, int geom_b,
                                 int explicit_pair) {
    if (explicit_pair >= 0) {
        return model->pair_params[explicit_pair].model;
    }
    int requested = combine_enum(model->geom_contact[geom_a].model,
                                 model->geom_contact[geom_b].model, TCH_CONTACT_INHERIT);
    if (requested == TCH_CONTACT_INHERIT) {
        requested = model->contact_default.model;
    }
    return model_running(model, (tch_contact_model)requested, geom_a, geom_b);
}

void tch_pair_params_lookup(const tch_model* model, int geom_a, int geom_b, int explicit_pair,
                            tch_pair_params* out) {
    if (explicit_pair >= 0) {
        *out = model->pair_params[explicit_pair];
        return;
    }
    tch_contact_params c;
    combine_into(&model->geom_contact[geom_a], &model->geom_contact[geom_b], &c);
    resolve_into(model, &c, geom_a, geom_b, out);
}

tch_pair_params tch_model_pair_params(const tch_model* model, int geom_a, int geom_b) {
    tch_pair_params p;
    tch_pair_params_lookup(model, geom_a, geom_b, tch_pair_table_find(model, geom_a, geom_b),
                           &p);
    return p;
}
