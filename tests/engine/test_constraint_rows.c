/* The constraint-row interface (contact.h: build_rows, take_impulses; contact/rows.h) is
 * complete: a toy constraint model written against it alone, frictionless and plastic with a
 * Baumgarte bias, put behind the lcp slot of one compiled model (tch_model_replace_contact_ops),
 * runs a box on the floor through the unchanged engine. The box slides on without friction,
 * stays on the floor and its weight is carried, where the built-in lcp model (friction 0.5)
 * stops it; a second model compiled from the same spec still runs the built-in. */
#include <string.h>

#include "contact/contact.h"
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

static const double G = 9.81;
static const double DT = 0.005;

/* The share of a penetration the toy's rows take out per step. */
static const tch_real TOY_BIAS = 0.2;

/* One frictionless normal row per narrow-phase point: close a gap at most, push a penetration
 * out by TOY_BIAS of it per step (Baumgarte), no warm start. */
static int toy_build_rows(const tch_model* model, const tch_data* data,
                          tch_pair_context* context, tch_row_sink* sink) {
    (void)model;
    const tch_pair_result* pair = context->pair;
    for (int k = 0; k < pair->contact_count; ++k) {
        const tch_contact* c = &data->contacts[pair->contact_start + k];
        tch_row_contact* row = sink->add_contact(sink);
        if (!row) {
            return -1;
        }
        row->geom_a = c->geom_a;
        row->geom_b = c->geom_b;
        row->p_W = c->p_W;
        row->n_W = c->n_W;
        tch_v3_basis(c->n_W, &row->t1_W, &row->t2_W);
        row->target = c->depth < 0 ? c->depth / sink->h : TOY_BIAS * c->depth / sink->h;
    }
    return 0;
}

static void toy_take_impulses(const tch_model* model, tch_data* data, tch_pair_context* context,
                              const tch_row_impulse* impulses, int count) {
    tch_pair_result* pair = context->pair;
    for (int k = 0; k < count; ++k) {
        tch_contact* c = &data->contacts[pair->contact_start + k];
        if (impulses[k].solved) {
            c->f_W = tch_v3_scale(impulses[k].impulse_W, 1 / model->timestep);
            tch_contact_apply_force(model, data, pair, c->p_W, c->f_W);
        }
    }
}

static const tch_contact_ops toy_ops = {
    .name = "toy",
    .kind = TCH_CONTACT_KIND_CONSTRAINT,
    .build_rows = toy_build_rows,
    .take_impulses = toy_take_impulses,
};

/* A 0.2 m box of 2 kg on the floor (friction 0.5, the lcp model), launched along x at 1 m/s. */
static tch_model* sliding_box_model(void) {
    tch_spec* spec = test_spec(G, DT, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_LCP;
    opt.contact.margin = 0.005;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 2, (tch_vec3){0, 0, 0.1},
                  tch_q_identity());
    return test_compile(spec);
}

/* Runs 1 s from 1 m/s along x; returns the final x velocity, the height and the net vertical
 * contact force of the last step. */
static void slide(const tch_model* m, double* vx, double* z, double* lift) {
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    d->qvel[0] = 1;
    for (int i = 0; i < 200; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
    }
    *vx = d->qvel[0];
    *z = d->body_X_WB[1].p.z;
    *lift = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        *lift += d->pair_results[i].f_W.z;
    }
    ENSURE(d->constraint_island_count == 1);
    tch_data_destroy(d);
}

static void test_toy_model_runs_through_the_row_interface(void) {
    tch_model* toy = sliding_box_model();
    tch_model* builtin = sliding_box_model();
    ENSURE(toy && builtin);
    tch_model_replace_contact_ops(toy, TCH_CONTACT_LCP, &toy_ops);
    double vx, z, lift;
    slide(toy, &vx, &z, &lift);
    ENSURE_NEAR(vx, 1, 1e-9);             /* no friction row */
    ENSURE_NEAR(z, 0.1, 1e-3);            /* the floor holds it */
    ENSURE_NEAR(lift, 2 * G, 1e-6 * 2 * G); /* and carries its weight */
    slide(builtin, &vx, &z, &lift);
    ENSURE_NEAR(vx, 0, 1e-6);             /* the lcp model's friction stopped it: 0.5 g */
    ENSURE_NEAR(lift, 2 * G, 1e-6 * 2 * G);
    tch_model_destroy(toy);
    tch_model_destroy(builtin);
}

int main(void) {
    RUN_TEST(test_toy_model_runs_through_the_row_interface);
    return TEST_RESULT();
}
