/* The cup of the mug scene (tests/contact/test_pressure_scenes.c builds the same shape): a box of
 * side 2 half with a cavity open at the top, walls and bottom a quarter of half thick, as a tet
 * mesh of a grid of boxes minus the cavity. */
#pragma once

#include "touche/tetmesh.h"

/* wall_cells (at least 2, so that the walls have interior vertices for the field) across each
 * wall and the bottom, cavity_cells across the cavity, as many over its depth as give about
 * the same cell size. Each kept cell is cut into five tets (a central one and four at its
 * corners, the split alternating with the cell's parity so that shared faces are cut along the
 * same diagonal); the field is tch_tetmesh_create's Laplace field. Returns tch_tetmesh_create's
 * status. */
tch_status mm_cup_mesh(int wall_cells, int cavity_cells, double half, tch_tetmesh** out,
                       tch_error* err);
