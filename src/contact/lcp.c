/* The lcp contact model: hard, non-penetrating contact by velocity-level time stepping
 * (Stewart and Trinkle; Anitescu and Potra), docs/contact-lcp.md.
 *
 * The model adds no force in the forces stage. Its pairs take the narrow phase's points, found
 * within the pair's margin so that a contact is known a step before it closes, sorted into a
 * canonical order, plus the points of the last step that still touch (a persistent manifold,
 * contact/lcp_memory.c), all in the collision stage. In the constraints stage it describes one
 * contact's rows per point (contact/rows.h): a normal row whose target is
 *
 *     depth / h for a contact still within its margin (it may close the gap, no more), 0 for a
 *     penetrating one (whose depth the split impulse's push, stabilization * depth / h, takes
 *     out), and at least -e v_n⁻ for one that approaches faster than the restitution threshold
 *     and would close its gap during the step (v_n⁻: the velocity at the step's start),
 *
 * and friction coupled to it by the pair's coefficient in the tangent basis of its normal, warm
 * -started from the nearest point the pair remembers. The engine solves the rows island by
 * island and hands the impulses back; the model reports them as forces (impulse / h) and keeps
 * them, with each point's place on the two surfaces, for the next step.
 */
#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "contact/lcp_memory.h"
#include "contact/planar.h"
#include "contact/restitution.h"
#include "math/vec.h"

/* The target of the contact's normal velocity J_n v+ (see the file comment). */
static tch_real normal_target(const tch_model* m, const tch_row_sink* sink, const tch_contact* c,
                              const tch_pair_params* p) {
    tch_real h = sink->h;
    tch_vec3 before, now;
    sink->relative_velocity(sink, c->geom_a, c->geom_b, c->p_W, &before, &now);
    tch_real v_star = tch_v3_dot(now, c->n_W);
    tch_real v_before = tch_v3_dot(before, c->n_W);
    tch_real target = c->depth < 0 ? c->depth / h : 0; /* penetration: the split impulse's push */
    int closes = c->depth >= 0 || v_star < c->depth / h;
    if (p->restitution > 0 && closes && v_before < -tch_restitution_threshold(m)) {
        target = fmax(target, -p->restitution * v_before);
    }
    return target;
}

/* The rows of contact c but their warm start. */
static void describe_contact(const tch_model* m, const tch_row_sink* sink,
                             const tch_pair_params* p, const tch_contact* c,
                             tch_row_contact* row) {
    row->geom_a = c->geom_a;
    row->geom_b = c->geom_b;
    row->p_W = c->p_W;
    row->n_W = c->n_W;
    tch_planar_basis(m, c->n_W, &row->t1_W, &row->t2_W);
    row->mu = p->friction;
    row->cone_edges = p->friction > 0 ? (int)p->cone_edges : 0;
    row->target = normal_target(m, sink, c, p);
    row->push = c->depth > 0 ? p->stabilization * c->depth / sink->h : 0;
}

static void warm_from_memory(const tch_lcp_point_memory* pm, tch_row_contact* row) {
    row->remembered = 1;
    row->warm[0] = pm->normal;
    row->warm[1] = pm->tangent[0];
    row->warm[2] = pm->tangent[1];
    for (int k = 0; k < 3; ++k) {
        row->carried[k] = pm->error[k];
    }
}

/* The stored point that warm-starts the pair's k-th contact (found by the collision stage:
 * tch_lcp_complete_points), or -1. */
static int memory_point_of(const tch_lcp_pair_memory* memory, int k) {
    return memory && memory->matched && k < TCH_LCP_MATCHED_CONTACTS ? memory->from[k] : -1;
}

static int lcp_build_rows(const tch_model* m, const tch_data* d, tch_pair_context* context,
                          tch_row_sink* sink) {
    const tch_pair_result* pair = context->pair;
    const tch_lcp_pair_memory* memory = tch_lcp_memory(context->state);
    for (int k = 0; k < pair->contact_count; ++k) {
        const tch_contact* c = &d->contacts[pair->contact_start + k];
        tch_row_contact* row = sink->add_contact(sink);
        if (!row) {
            return -1;
        }
        describe_contact(m, sink, &pair->params, c, row);
        int from = memory_point_of(memory, k);
        if (from >= 0) {
            warm_from_memory(&memory->points[from], row);
        }
    }
    return 0;
}

static void lcp_take_impulses(const tch_model* m, tch_data* d, tch_pair_context* context,
                              const tch_row_impulse* impulses, int count) {
    tch_pair_result* pair = context->pair;
    tch_lcp_pair_memory* memory = tch_lcp_memory(context->state);
    /* the retained contacts' surface points, before the memory is rewritten */
    int retained = memory && memory->matched ? memory->retained : 0;
    int narrow = pair->contact_count - retained;
    float kept[TCH_LCP_MEMORY_POINTS][2][3];
    for (int j = 0; j < retained; ++j) {
        const tch_lcp_point_memory* pm = &memory->points[memory->from[narrow + j]];
        memcpy(kept[j][0], pm->p_A, sizeof kept[j][0]);
        memcpy(kept[j][1], pm->p_B, sizeof kept[j][1]);
    }
    if (memory) {
        memory->count = 0;   /* refilled from this step's points */
        memory->matched = 0; /* the collision stage's matches were to the old points */
    }
    tch_real inverse_h = 1 / m->timestep;
    for (int k = 0; k < count; ++k) {
        tch_contact* c = &d->contacts[pair->contact_start + k];
        if (!impulses[k].solved) {
            continue;
        }
        c->f_W = tch_v3_scale(impulses[k].impulse_W, inverse_h);
        tch_contact_apply_force(m, d, pair, c->p_W, c->f_W);
        if (!memory) {
            continue;
        }
        float p_A[3], p_B[3];
        if (k < narrow) {
            tch_lcp_surface_points(d, c, p_A, p_B);
        } else {
            memcpy(p_A, kept[k - narrow][0], sizeof p_A);
            memcpy(p_B, kept[k - narrow][1], sizeof p_B);
        }
        tch_lcp_remember(memory, p_A, p_B, impulses[k].warm, impulses[k].error);
    }
}

const tch_contact_ops tch_lcp_ops = {
    .name = "lcp",
    .kind = TCH_CONTACT_KIND_CONSTRAINT,
    .uses_state = 1,
    .complete_points = tch_lcp_complete_points,
    .build_rows = lcp_build_rows,
    .take_impulses = lcp_take_impulses,
};
