/* The peg contact model's ops (contact/peg.c, docs/peg.md) and what it lets others read of
 * its working memory (tch_contact_ops.scratch_create: one per data).
 */
#pragma once

#include "contact/contact.h"
#include "contact/peg_constraints.h"

extern const tch_contact_ops tch_peg_ops;

/* Counts over the data's steps. */
typedef struct tch_peg_report {
    long solves;      /* islands peg's LCP solved */
    long swept;       /* of those, islands its Gauss-Seidel sweeps solved (the others: Lemke,
                       * contact/peg_lcp.h) */
    long failures;    /* islands where Lemke failed (ray, pivot limit), or whose solution added
                       * more energy than the guard allows (contact/peg.c, allowed_gain) */
    long resolved;    /* islands whose sweeps' solution was over the guard and Lemke's (from
                       * the pairs' memories) within it: the LCP has several solutions */
    long fallbacks;   /* islands the engine solved with the rows as described (failures, and
                       * islands that also hold other models' rows) */
    int largest_lcp;  /* the largest LCP solved, unknowns */
    int memories;     /* geom pairs' warm-start memories held (the pairs touching in two
                       * consecutive steps at most: a separated pair's is reused) */
} tch_peg_report;

/* The model's parameters for a pair result at the data's state: the authors' values (2D in
 * the planar mode), the proximity epsilon from the pair's margin. When that margin is the
 * paper's default proximity (the compiler's margin for a scene that sets none) epsilon grows
 * with the pair's closing speed: max(default, 2 h s), s = |v_b - v_a| at the geoms' origins
 * plus each body's spin times its geom's bounding radius (docs/peg.md, "Proximity"); any
 * other margin is epsilon as it stands. */
tch_peg_params tch_peg_pair_params(const tch_model* model, const tch_data* data,
                                   const tch_pair_result* pair);

/* How much further than its margin the broad phase must look for geom g so that it finds
 * every pair within the speed-dependent epsilon above: 2 h (|v| + |w| r) for a peg geom with
 * the default margin, else 0. */
tch_real tch_peg_geom_reach(const tch_model* model, const tch_data* data, int geom);

/* The constraints of pair result `pair` (index into data->pair_results) of the last
 * evaluation, from the model's scratch; NULL when it has none. */
const tch_peg_constraints* tch_peg_pair_constraints(const void* scratch, int pair);

/* The scratch's counts (NULL scratch: NULL). */
const tch_peg_report* tch_peg_scratch_report(const void* scratch);
