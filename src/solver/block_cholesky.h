/* Sparse Cholesky factorization of a symmetric positive definite matrix of 6x6 blocks laid
 * over a graph: one block row and column per node (a rigid body's six velocities), a
 * non-zero off-diagonal block only where an edge joins two nodes (a contact between two
 * bodies). It factors the linearly implicit integrator's M - h D - h^2 K (engine/implicit.c).
 *
 *     graph --analyze--> elimination order (approximate minimum degree: Amestoy, Davis and
 *       Duff, SIAM J. Matrix Anal. Appl. 17(4), 1996; SuiteSparse's AMD), elimination tree
 *       and the block pattern of L (Liu, SIAM J. Matrix Anal. Appl. 11(1), 1990; Davis,
 *       "Direct Methods for Sparse Linear Systems", 2006, secs. 4.1-4.2)
 *     blocks of A written in place (tch_block_cholesky_block) --factor--> L L^T, by block
 *       rows (Davis, sec. 4.2), each finished block spread at once over the rest of its row,
 *       --solve--> x (AVX-512 kernels on large systems where the CPU has them, the same bits)
 *
 * The analysis is kept while the graph stays the same (the same node count and the same edge
 * list, in order): bodies that keep touching the same others are ordered once. Memory is
 * grown to the largest graph seen and kept, so a factorization allocates nothing once the
 * scene's largest graph has been analysed.
 */
#pragma once

#include "touche/base.h"

typedef struct tch_block_cholesky tch_block_cholesky;

/* An empty factorization, or NULL when out of memory. */
tch_block_cholesky* tch_block_cholesky_create(void);
void tch_block_cholesky_destroy(tch_block_cholesky* c);

/* Whether the factorization and the solve run the AVX-512 kernels (the default where the CPU
 * has them) or the portable ones; both give the same bits. Asks for the wide ones (`wide` 1)
 * or the portable ones (0); returns whether the wide ones now run. */
int tch_block_cholesky_use_wide_kernels(tch_block_cholesky* c, int wide);

/* Heap allocations made so far (growing its memory). */
long tch_block_cholesky_allocations(const tch_block_cholesky* c);

/* Sets the graph: node_count >= 1 nodes, edge_count edges (edges[2 e], edges[2 e + 1]) between
 * distinct nodes in [0, node_count); an edge may repeat, in either direction. Orders and
 * analyses it unless it is the graph of the last analysis, and zeroes the matrix. 0, or -1
 * when out of memory (the factorization is then empty). */
int tch_block_cholesky_analyze(tch_block_cholesky* c, int node_count, int edge_count,
                               const int* edges);

/* The stored 6x6 block (row-major) of the matrix at block row `row`, block column `col`: the
 * diagonal block of a node, or an edge's block when `row` is eliminated before `col`. NULL when
 * `row` is eliminated after `col` (the transposed block (col, row) holds the pair) or when the
 * two nodes share no edge. Write A there before tch_block_cholesky_factor. */
tch_real* tch_block_cholesky_block(tch_block_cholesky* c, int row, int col);

/* Factors the matrix written in place. 0, or 1 + the node whose pivot block is not positive
 * definite (tch_dense_cholesky's test). */
int tch_block_cholesky_factor(tch_block_cholesky* c);

/* Solves A x = b in place with the factor, b and x by node (x[6 node + i]). */
void tch_block_cholesky_solve(tch_block_cholesky* c, tch_real* x);

/* The factor's numbers, for checkpoints (engine/implicit.c): *values, the blocks of L
 * (*value_count reals), and *inverse, the inverses of L's diagonal (*inverse_count reals).
 * The analysis of the same graph lays them out the same way. */
void tch_block_cholesky_factor_arrays(tch_block_cholesky* c, tch_real** values,
                                      size_t* value_count, tch_real** inverse,
                                      size_t* inverse_count);
