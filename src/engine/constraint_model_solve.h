/* Islands that a constraint model solves itself (tch_contact_ops.solve_island, contact/rows.h
 * tch_row_island): the one place the constraints stage hands an island to a model.
 */
#pragma once

#include <stdbool.h>

#include "engine/constraint_stage.h"

/* Hands island k to the first model of its pairs that has solve_island. True when that model
 * solved it (the velocities and the contacts' impulses are then the model's) or, when it could
 * not, the engine's chain solved the rows it described within the model's energy guard
 * (island_gain_limit); false when no model of the island solves islands (the caller solves
 * it). */
bool tch_constraint_model_solve_island(tch_constraint_run* s, int k);
