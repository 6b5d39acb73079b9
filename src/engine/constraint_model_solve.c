/* Islands that a constraint model solves itself (engine/constraint_model_solve.h). */
#include "engine/constraint_model_solve.h"

#include <math.h>

/* The first pair of island k whose model solves islands, or -1 (a joint limit's row has no
 * pair: its island is the engine's). */
static int island_solver_pair(const tch_constraint_run* s, int k) {
    for (int i = s->island_start[k]; i < s->island_start[k + 1]; ++i) {
        int pair = s->contacts[i].pair;
        if (pair < 0) return -1;
        if (s->ops[pair]->solve_island) {
            return pair;
        }
    }
    return -1;
}

/* The island's view for its model (tch_row_island); NULL arrays when out of memory. */
static int describe_island(tch_constraint_run* s, int k, tch_row_island* island) {
    const tch_constraint_contact* cr = s->contacts + s->island_start[k];
    int count = s->island_start[k + 1] - s->island_start[k];
    size_t n = (size_t)count;
    const tch_row_contact** rows = tch_arena_alloc(s->arena, n * sizeof *rows, "island rows");
    int* pairs = tch_arena_alloc(s->arena, 2 * n * sizeof *pairs, "island pairs");
    tch_vec3* impulses = tch_arena_alloc(s->arena, n * sizeof *impulses, "island impulses");
    if (!rows || !pairs || !impulses) {
        return -1;
    }
    int* index = pairs + n;
    for (int i = 0; i < count; ++i) {
        rows[i] = &cr[i].row;
        pairs[i] = cr[i].pair;
        index[i] = cr[i].entry - s->pair_start[cr[i].pair];
        impulses[i] = tch_v3_zero();
    }
    *island = (tch_row_island){
        .h = s->h,
        .count = count,
        .rows = rows,
        .pairs = pairs,
        .index = index,
        .body_count = s->island_body_start[k + 1] - s->island_body_start[k],
        .bodies = s->island_bodies + s->island_body_start[k],
        .v = s->v,
        .w = s->w,
        .impulses = impulses,
        .arena = s->arena,
    };
    return 0;
}

/* The most kinetic energy the engine's chain may add to island k when its model handed it back:
 * the guard the model's own solutions pass (peg: contact/peg.c, allowed_gain). A row's target
 * b asks J v+ >= b; closing the deepest target within the step moves at most all the island's
 * mass at that speed, 0.5 M max(b)², plus 1e-9 of the island's energy for rounding. Without it
 * the chain's last attempt is applied whatever it adds, and a model's rows at a spurious
 * violation (peg: b = -max ψ / h) threw a body out at 29 m/s and 230 rad/s (docs/peg.md,
 * "Fallback"). */
static tch_real island_gain_limit(const tch_constraint_run* s, int k) {
    tch_real target = 0, mass = 0, energy = tch_constraint_island_tree_energy(s, k);
    for (int i = s->island_start[k]; i < s->island_start[k + 1]; ++i) {
        target = fmax(target, s->contacts[i].row.target);
    }
    for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1]; ++i) {
        int b = s->island_bodies[i];
        mass += s->m->body_total_mass[b];
        energy += tch_constraint_kinetic_energy(s, b, s->v[b], s->w[b]);
    }
    return 0.5 * mass * target * target + 1e-9 * energy + 1e-12;
}

/* The engine's chain on the rows of island k that its model handed back, within
 * island_gain_limit. */
static void solve_handed_back(tch_constraint_run* s, int k) {
    s->gain_limit = island_gain_limit(s, k);
    tch_constraint_solve_island(s, k);
    s->gain_limit = 0;
}

bool tch_constraint_model_solve_island(tch_constraint_run* s, int k) {
    int pair = island_solver_pair(s, k);
    if (pair < 0) {
        return false;
    }
    const tch_contact_ops* ops = s->ops[pair];
    size_t mark = tch_arena_mark(s->arena);
    tch_row_island island;
    void* scratch = s->d->internal->model_scratch[s->d->pair_results[pair].model];
    bool solved = describe_island(s, k, &island) == 0 &&
                  ops->solve_island(s->m, s->d, scratch, &island) == 0;
    if (solved) {
        for (int i = 0; i < island.body_count; ++i) {
            s->moved[island.bodies[i]] = 1;
        }
        const tch_real no_error[3] = {0, 0, 0};
        for (int i = 0; i < island.count; ++i) {
            const tch_constraint_contact* cr = &s->contacts[s->island_start[k] + i];
            tch_constraint_keep_impulse(s, cr, island.impulses[i], island.impulses[i], no_error);
        }
    }
    tch_arena_release(s->arena, mark);
    if (!solved) {
        solve_handed_back(s, k);
    }
    return true;
}
