/* Islands that a constraint model solves itself (engine/constraint_model_solve.h). */
#include "engine/constraint_model_solve.h"

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
    return solved;
}
