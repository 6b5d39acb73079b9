/* Random LCPs with known structure for the solver tests, the Siconos cross-check and the
 * benchmark (bench/solver/bench_lcp.c): positive definite M = A Aᵀ + eps I, positive
 * semi-definite M = A Aᵀ of lower rank, and q = w* - M z* built from a complementary pair
 * (z*, w*) so that a solution exists; and the contact problem of a stack of boxes. */
#pragma once

#include "touche/base.h"

typedef struct lcp_rng {
    unsigned long long state;
} lcp_rng;

/* Uniform in [-1, 1). */
double lcp_rng_uniform(lcp_rng* rng);

/* m[n*n] = A Aᵀ + eps I with A n x rank, entries uniform in [-1, 1). */
void lcp_random_gram(lcp_rng* rng, int n, int rank, tch_real eps, tch_real* m);

/* q[n] = w* - M z* for a random complementary pair: about a third of the rows have z*_i > 0 =
 * w*_i, a third w*_i > 0 = z*_i, and (when degenerate) the rest z*_i = w*_i = 0. z_star may be
 * NULL. */
void lcp_solvable_q(lcp_rng* rng, const tch_real* m, int n, int degenerate, tch_real* q,
                    tch_real* z_star);

/* The random problem family of the tests and the cross-check, trial = 0, 1, 2 at each size:
 * positive definite: M = A Aᵀ + 0.1 I (A n x n), q uniform;
 * positive semi-definite: M = A Aᵀ of rank 1 (trial 0) or (n + 1) / 2, q from a complementary
 * pair, with degenerate pairs z*_i = w*_i = 0 on trial 2. */
void lcp_random_problem(lcp_rng* rng, int n, int trial, int semidefinite, tch_real* m,
                        tch_real* q);

/* q[n] uniform in [-1, 1). */
void lcp_random_vector(lcp_rng* rng, int n, tch_real* q);

/* The scale of a problem at z: ||q||_inf + ||M||_inf ||z||_inf, at least 1. */
tch_real lcp_scale(const tch_real* m, const tch_real* q, const tch_real* z, int n);

/* w = M z + q. */
void lcp_w(const tch_real* m, const tch_real* q, const tch_real* z, int n, tch_real* w);

/* A stack of `boxes` unit boxes (1 kg, 1 m, I = 1/6 kg m²) on the ground, four corner contacts
 * per interface, one time step h = 5 ms under gravity from rest plus small random velocities
 * (1e-3 m/s, from rng), with `directions` rows per contact (1: the normal; 3: the normal, then
 * the x and y tangents): m[rows*rows] = J W Jᵀ (block-banded, positive semi-definite: four
 * contacts on a face act on three degrees of freedom), q[rows] = J (v + h W f_gravity), for
 * rows = 4 boxes directions. lo, hi, normal_index [rows]: the box-MLCP bounds of the friction
 * rows (|z_t| <= 0.5 z_n, normal_index as in solver/lcp.h), or all three NULL. */
void lcp_stack_problem(lcp_rng* rng, int boxes, int directions, tch_real* m, tch_real* q,
                       tch_real* lo, tch_real* hi, int* normal_index);
