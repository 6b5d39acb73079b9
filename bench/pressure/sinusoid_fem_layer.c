/* Plane-strain FEM of a periodic layer pressed by a rigid surface (sinusoid_fem_layer.h).
 *
 * Mesh: the quadratic nodes lie on a grid of 2 n_x columns (periodic: column 2 n_x is column 0)
 * by 2 n_y + 1 rows (row 0 at y = -h, bonded or sliding); each of the n_x × n_y cells is split into two
 * 6-node triangles along alternating diagonals. The top nodes carry a frame (tangent t, normal
 * n) in which their two degrees of freedom are expressed (u = a t + b n), so that a contact
 * prescribes b and leaves a free: zero tangential force, frictionless. Elsewhere the frame is
 * the global one.
 *
 * Each solve prescribes the bottom (u = 0) and the contact nodes' b by symmetric elimination:
 * rhs = -K g, prescribed rows and columns of K replaced by the identity; the pattern never
 * changes, so CHOLMOD analyzes once and refactors numerically. The reactions are K u at the
 * prescribed degrees of freedom. The active set starts from the nodes the undeformed surface
 * overlaps and is updated after each solve (Signorini conditions, e.g. Wriggers, Computational
 * Contact Mechanics, 2006, sec. 6.3.2): a held node whose reaction pulls on the surface is
 * released, a free node that passes the surface is held, until no node changes. */
#include "sinusoid_fem_layer.h"

#include <cholmod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;
enum { max_active_set_solves = 100 };

typedef struct lame {
    double lambda, mu;
} lame;

static lame lame_of(const sfem_layer* l) {
    double e = l->modulus, nu = l->poisson;
    return (lame){e * nu / ((1 + nu) * (1 - 2 * nu)), e / (2 * (1 + nu))};
}

double sfem_constrained_modulus(const sfem_layer* layer) {
    lame m = lame_of(layer);
    return m.lambda + 2 * m.mu;
}

/* ---- the mesh ---- */

typedef struct grid {
    int columns, rows;
    double dx, dy;
} grid;

static grid grid_of(const sfem_layer* l) {
    grid g = {2 * l->cells_x, 2 * l->cells_y + 1, 0, 0};
    g.dx = l->period / g.columns;
    g.dy = l->thickness / (g.rows - 1);
    return g;
}

static int node_at(const grid* g, int column, int row) {
    return row * g->columns + column % g->columns;
}

/* Stiffness of a straight-sided 6-node triangle (corners 0-2 counter-clockwise, then the
 * midpoints of edges 0-1, 1-2, 2-0), plane strain, dofs (u_x, u_y) per node:
 * K = ∫ Bᵀ D B dA, exact with the three edge-midpoint points (the integrand is quadratic).
 * Shape gradients from the barycentrics L_i: ∇N_i = (4 L_i - 1) ∇L_i, ∇N_ij = 4 (L_j ∇L_i +
 * L_i ∇L_j). */
static void triangle_stiffness(const double x[3], const double y[3], lame m, double k[12][12]) {
    double two_area = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
    double grad_l[3][2];
    for (int i = 0; i < 3; ++i) {
        int j = (i + 1) % 3, l = (i + 2) % 3;
        grad_l[i][0] = (y[j] - y[l]) / two_area;
        grad_l[i][1] = (x[l] - x[j]) / two_area;
    }
    static const double points[3][3] = {{0.5, 0.5, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}};
    memset(k, 0, 144 * sizeof(double));
    for (int q = 0; q < 3; ++q) {
        const double* bary = points[q];
        double g[6][2];
        for (int i = 0; i < 3; ++i) {
            int j = (i + 1) % 3;
            for (int c = 0; c < 2; ++c) {
                g[i][c] = (4 * bary[i] - 1) * grad_l[i][c];
                g[3 + i][c] = 4 * (bary[j] * grad_l[i][c] + bary[i] * grad_l[j][c]);
            }
        }
        double w = two_area / 6; /* area / 3 */
        for (int a = 0; a < 6; ++a) {
            for (int b = 0; b < 6; ++b) {
                double xx = g[a][0] * g[b][0], yy = g[a][1] * g[b][1];
                double xy = g[a][0] * g[b][1], yx = g[a][1] * g[b][0];
                k[2 * a][2 * b] += w * ((m.lambda + 2 * m.mu) * xx + m.mu * yy);
                k[2 * a][2 * b + 1] += w * (m.lambda * xy + m.mu * yx);
                k[2 * a + 1][2 * b] += w * (m.lambda * yx + m.mu * xy);
                k[2 * a + 1][2 * b + 1] += w * ((m.lambda + 2 * m.mu) * yy + m.mu * xx);
            }
        }
    }
}

/* k ← Tᵀ k T for node a's two dofs, T = [t n] (columns: tangent, normal). */
static void rotate_node(double k[12][12], int a, const double normal[2]) {
    double t[2][2] = {{normal[1], normal[0]}, {-normal[0], normal[1]}}; /* rows x, y */
    for (int r = 0; r < 12; ++r) { /* columns: k T */
        double u = k[r][2 * a], v = k[r][2 * a + 1];
        k[r][2 * a] = u * t[0][0] + v * t[1][0];
        k[r][2 * a + 1] = u * t[0][1] + v * t[1][1];
    }
    for (int c = 0; c < 12; ++c) { /* rows: Tᵀ k */
        double u = k[2 * a][c], v = k[2 * a + 1][c];
        k[2 * a][c] = t[0][0] * u + t[1][0] * v;
        k[2 * a + 1][c] = t[0][1] * u + t[1][1] * v;
    }
}

/* The grid coordinates (column, row) of triangle e of cell (ci, cj): corners, then midpoints. */
static void triangle_nodes(int ci, int cj, int e, int nodes[6][2]) {
    static const int corner[4][2] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}};
    static const int split[2][2][3] = {{{0, 1, 2}, {0, 2, 3}}, {{0, 1, 3}, {1, 2, 3}}};
    const int* tri = split[(ci + cj) % 2][e];
    for (int i = 0; i < 3; ++i) {
        nodes[i][0] = 2 * ci + corner[tri[i]][0];
        nodes[i][1] = 2 * cj + corner[tri[i]][1];
    }
    for (int i = 0; i < 3; ++i) {
        int j = (i + 1) % 3;
        nodes[3 + i][0] = (nodes[i][0] + nodes[j][0]) / 2;
        nodes[3 + i][1] = (nodes[i][1] + nodes[j][1]) / 2;
    }
}

/* ---- the linear system ---- */

typedef struct layer_system {
    cholmod_common common;
    cholmod_sparse* stiffness; /* K in the nodes' frames, lower triangle */
    cholmod_sparse* reduced;   /* K with the prescribed rows and columns made the identity */
    cholmod_factor* factor;
    double (*normal)[2]; /* per top column, the frame's normal (t = (n_y, -n_x)) */
    grid g;
    int dofs;
    bool sliding_base;
} layer_system;

static void add_element(cholmod_triplet* t, const layer_system* s, int nodes[6][2],
                        lame m) {
    double x[3], y[3], k[12][12];
    for (int i = 0; i < 3; ++i) {
        x[i] = nodes[i][0] * s->g.dx, y[i] = nodes[i][1] * s->g.dy;
    }
    triangle_stiffness(x, y, m, k);
    int dof[12];
    for (int a = 0; a < 6; ++a) {
        if (nodes[a][1] == s->g.rows - 1) {
            rotate_node(k, a, s->normal[nodes[a][0] % s->g.columns]);
        }
        dof[2 * a] = 2 * node_at(&s->g, nodes[a][0], nodes[a][1]);
        dof[2 * a + 1] = dof[2 * a] + 1;
    }
    for (int a = 0; a < 12; ++a) {
        for (int b = 0; b < 12; ++b) {
            if (dof[a] >= dof[b]) {
                ((int*)t->i)[t->nnz] = dof[a];
                ((int*)t->j)[t->nnz] = dof[b];
                ((double*)t->x)[t->nnz] = k[a][b];
                t->nnz++;
            }
        }
    }
}

static int system_build(layer_system* s, const sfem_layer* layer, double (*normal)[2]) {
    cholmod_start(&s->common);
    s->common.print = 0;
    s->g = grid_of(layer);
    s->normal = normal;
    s->sliding_base = layer->sliding_base;
    s->dofs = 2 * s->g.columns * s->g.rows;
    size_t elements = 2 * (size_t)layer->cells_x * (size_t)layer->cells_y;
    cholmod_triplet* t = cholmod_allocate_triplet((size_t)s->dofs, (size_t)s->dofs,
                                                  elements * 78, -1, CHOLMOD_REAL, &s->common);
    if (!t) {
        return -1;
    }
    lame m = lame_of(layer);
    for (int cj = 0; cj < layer->cells_y; ++cj) {
        for (int ci = 0; ci < layer->cells_x; ++ci) {
            for (int e = 0; e < 2; ++e) {
                int nodes[6][2];
                triangle_nodes(ci, cj, e, nodes);
                add_element(t, s, nodes, m);
            }
        }
    }
    s->stiffness = cholmod_triplet_to_sparse(t, 0, &s->common);
    cholmod_free_triplet(&t, &s->common);
    s->reduced = s->stiffness ? cholmod_copy_sparse(s->stiffness, &s->common) : NULL;
    s->factor = s->reduced ? cholmod_analyze(s->reduced, &s->common) : NULL;
    return s->factor ? 0 : -1;
}

static void system_free(layer_system* s) {
    cholmod_free_factor(&s->factor, &s->common);
    cholmod_free_sparse(&s->reduced, &s->common);
    cholmod_free_sparse(&s->stiffness, &s->common);
    cholmod_finish(&s->common);
}

/* K u = 0 with u = value where fixed; fills u and the reactions K u (zero where free). */
static int solve_prescribed(layer_system* s, const unsigned char* fixed, const double* value,
                            double* u, double* reaction) {
    size_t n = (size_t)s->dofs;
    cholmod_dense* g = cholmod_zeros(n, 1, CHOLMOD_REAL, &s->common);
    cholmod_dense* rhs = cholmod_zeros(n, 1, CHOLMOD_REAL, &s->common);
    cholmod_dense* r = cholmod_zeros(n, 1, CHOLMOD_REAL, &s->common);
    cholmod_dense* solution = NULL;
    if (g && rhs && r) {
        double* gx = g->x;
        for (size_t i = 0; i < n; ++i) {
            gx[i] = fixed[i] ? value[i] : 0;
        }
        double minus_one[2] = {-1, 0}, one[2] = {1, 0}, zero[2] = {0, 0};
        cholmod_sdmult(s->stiffness, 0, minus_one, zero, g, rhs, &s->common);
        for (size_t i = 0; i < n; ++i) {
            ((double*)rhs->x)[i] = fixed[i] ? value[i] : ((double*)rhs->x)[i];
        }
        const int *cp = s->stiffness->p, *ri = s->stiffness->i;
        const double* kx = s->stiffness->x;
        double* rx = s->reduced->x;
        for (size_t j = 0; j < n; ++j) {
            for (int p = cp[j]; p < cp[j + 1]; ++p) {
                size_t i = (size_t)ri[p];
                rx[p] = fixed[i] || fixed[j] ? (i == j ? 1 : 0) : kx[p];
            }
        }
        if (cholmod_factorize(s->reduced, s->factor, &s->common) &&
            s->factor->minor == s->factor->n) {
            solution = cholmod_solve(CHOLMOD_A, s->factor, rhs, &s->common);
        }
        if (solution) {
            cholmod_sdmult(s->stiffness, 0, one, zero, solution, r, &s->common);
            memcpy(u, solution->x, n * sizeof *u);
            for (size_t i = 0; i < n; ++i) {
                reaction[i] = fixed[i] ? ((double*)r->x)[i] : 0;
            }
        }
    }
    int status = solution ? 0 : -1;
    if (status) {
        fprintf(stderr, "sinusoid_fem: CHOLMOD failed (status %d)\n", s->common.status);
    }
    cholmod_free_dense(&solution, &s->common);
    cholmod_free_dense(&r, &s->common);
    cholmod_free_dense(&rhs, &s->common);
    cholmod_free_dense(&g, &s->common);
    return status;
}

/* ---- the contact problem ---- */

typedef struct top_state {
    double (*normal)[2];   /* per top column */
    double* target;        /* the normal displacement that puts the node on the surface */
    unsigned char* active; /* held by the surface */
    unsigned char* fixed;  /* per dof */
    double *value, *u, *reaction;
} top_state;

static int top_state_alloc(top_state* t, int columns, int dofs) {
    t->normal = malloc((size_t)columns * sizeof *t->normal);
    t->target = malloc((size_t)columns * sizeof *t->target);
    t->active = malloc((size_t)columns);
    t->fixed = malloc((size_t)dofs);
    t->value = calloc((size_t)dofs, sizeof *t->value);
    t->u = malloc((size_t)dofs * sizeof *t->u);
    t->reaction = malloc((size_t)dofs * sizeof *t->reaction);
    return t->normal && t->target && t->active && t->fixed && t->value && t->u && t->reaction
               ? 0
               : -1;
}

static void top_state_free(top_state* t) {
    free(t->normal), free(t->target), free(t->active), free(t->fixed);
    free(t->value), free(t->u), free(t->reaction);
}

static int top_dof(const grid* g, int column, int which) {
    return 2 * node_at(g, column, g->rows - 1) + which;
}

/* Prescribes the bottom and the active top nodes' normal displacement, solves, and sums the
 * result: the force pressing the layer down, the energy, the share of held nodes. */
static int solve_active(layer_system* s, top_state* t, sfem_result* result) {
    const grid* g = &s->g;
    memset(t->fixed, 0, (size_t)s->dofs);
    for (int c = 0; c < g->columns; ++c) { /* row 0: bonded, or sliding held at one node */
        t->fixed[2 * c] = !s->sliding_base || c == 0;
        t->fixed[2 * c + 1] = 1;
    }
    int held = 0;
    for (int c = 0; c < g->columns; ++c) {
        int dof = top_dof(g, c, 1);
        t->fixed[dof] = t->active[c];
        t->value[dof] = t->target[c];
        held += t->active[c];
    }
    if (solve_prescribed(s, t->fixed, t->value, t->u, t->reaction)) {
        return -1;
    }
    double force = 0, energy = 0;
    for (int c = 0; c < g->columns; ++c) { /* the y component of (reaction_t t + reaction_n n) */
        double tangent_y = -t->normal[c][0];
        force -= t->reaction[top_dof(g, c, 0)] * tangent_y +
                 t->reaction[top_dof(g, c, 1)] * t->normal[c][1];
    }
    for (int i = 0; i < s->dofs; ++i) {
        energy += 0.5 * t->u[i] * t->reaction[i];
    }
    result->force = force, result->energy = energy;
    result->contact_fraction = (double)held / g->columns;
    result->dofs = s->dofs;
    result->iterations++;
    return 0;
}

/* Releases held nodes pulled by their reaction, holds free nodes past the surface; returns how
 * many changed. */
static int update_active_set(const layer_system* s, top_state* t, double force_tolerance,
                             double gap_tolerance) {
    int changed = 0;
    for (int c = 0; c < s->g.columns; ++c) {
        int dof = top_dof(&s->g, c, 1);
        if (t->active[c] && t->reaction[dof] > force_tolerance) {
            t->active[c] = 0, ++changed;
        } else if (!t->active[c] && t->u[dof] > t->target[c] + gap_tolerance) {
            t->active[c] = 1, ++changed;
        }
    }
    return changed;
}

int sfem_press_sinusoid(const sfem_layer* layer, double amplitude, double depth, sfem_gap gap,
                        sfem_result* result) {
    grid g = grid_of(layer);
    layer_system s = {0};
    top_state t = {0};
    *result = (sfem_result){0};
    double k = 2 * pi / layer->period;
    int status = top_state_alloc(&t, g.columns, 2 * g.columns * g.rows);
    for (int c = 0; status == 0 && c < g.columns; ++c) {
        double x = c * g.dx, height = -depth + amplitude * (1 - cos(k * x));
        double slope = gap == SFEM_GAP_NORMAL ? amplitude * k * sin(k * x) : 0;
        double norm = hypot(1, slope);
        t.normal[c][0] = -slope / norm, t.normal[c][1] = 1 / norm;
        t.target[c] = height * t.normal[c][1]; /* (0, s(x)) · n: the surface's tangent line */
        t.active[c] = height < 0;
    }
    status = status ? status : system_build(&s, layer, t.normal);
    /* nodal reactions scale as E d dx / h */
    double force_tolerance = 1e-10 * layer->modulus * depth * g.dx / layer->thickness;
    while (status == 0 && result->iterations < max_active_set_solves) {
        status = solve_active(&s, &t, result);
        if (status == 0 && update_active_set(&s, &t, force_tolerance, 1e-10 * depth) == 0) {
            result->converged = true;
            break;
        }
    }
    system_free(&s);
    top_state_free(&t);
    return status;
}

int sfem_prescribe_mode(const sfem_layer* layer, double amplitude, sfem_result* result) {
    grid g = grid_of(layer);
    layer_system s = {0};
    top_state t = {0};
    *result = (sfem_result){0};
    int status = top_state_alloc(&t, g.columns, 2 * g.columns * g.rows);
    for (int c = 0; status == 0 && c < g.columns; ++c) {
        t.normal[c][0] = 0, t.normal[c][1] = 1;
        t.target[c] = amplitude * cos(2 * pi * c * g.dx / layer->period);
        t.active[c] = 1;
    }
    status = status ? status : system_build(&s, layer, t.normal);
    status = status ? status : solve_active(&s, &t, result);
    result->converged = status == 0;
    system_free(&s);
    top_state_free(&t);
    return status;
}

/* ---- the Fourier-mode closed form ---- */

/* Solves the 4 × 4 system a z = b by Gaussian elimination with partial pivoting. */
static void solve4(double a[4][4], double b[4], double z[4]) {
    for (int c = 0; c < 4; ++c) {
        int p = c;
        for (int r = c + 1; r < 4; ++r) {
            p = fabs(a[r][c]) > fabs(a[p][c]) ? r : p;
        }
        for (int j = 0; j < 4; ++j) {
            double tmp = a[c][j];
            a[c][j] = a[p][j], a[p][j] = tmp;
        }
        double tmp = b[c];
        b[c] = b[p], b[p] = tmp;
        for (int r = c + 1; r < 4; ++r) {
            double f = a[r][c] / a[c][c];
            for (int j = c; j < 4; ++j) {
                a[r][j] -= f * a[c][j];
            }
            b[r] -= f * b[c];
        }
    }
    for (int r = 3; r >= 0; --r) {
        double sum = b[r];
        for (int j = r + 1; j < 4; ++j) {
            sum -= a[r][j] * z[j];
        }
        z[r] = sum / a[r][r];
    }
}

/* Basis solution i of the Navier equations for u_x = U(y) sin kx, u_y = V(y) cos kx:
 * (λ+μ) ∇(∇·u) + μ ∇²u = 0 gives -(λ+2μ) k² U + μ U'' - (λ+μ) k V' = 0 and
 * -μ k² V + (λ+2μ) V'' + (λ+μ) k U' = 0, whose solutions are, with κ = 3 - 4ν,
 *     U = e^{ky},   V = -e^{ky};      U = y e^{ky},   V = (κ/k - y) e^{ky};
 *     U = e^{-ky},  V = e^{-ky};      U = y e^{-ky},  V = (κ/k + y) e^{-ky}.
 * Each is (p + q y) e^{s k y}; out: U, U', V, V' at y. */
static void mode_basis(int i, double k, double kappa, double y, double out[4]) {
    static const double p_u[4] = {1, 0, 1, 0}, q_u[4] = {0, 1, 0, 1}, q_v[4] = {0, -1, 0, 1},
                        sign[4] = {1, 1, -1, -1};
    double p_v[4] = {-1, kappa / k, 1, kappa / k};
    double s = sign[i] * k, e = exp(s * y);
    out[0] = (p_u[i] + q_u[i] * y) * e;
    out[1] = (q_u[i] + s * (p_u[i] + q_u[i] * y)) * e;
    out[2] = (p_v[i] + q_v[i] * y) * e;
    out[3] = (q_v[i] + s * (p_v[i] + q_v[i] * y)) * e;
}

/* Bonded at y = -h (U = V = 0), V(0) = amplitude, no shear at y = 0 (σ_xy = μ (U' - k V)
 * sin kx = 0); the top normal stress is σ_yy = λ (k U + V') + 2 μ V' times cos kx, and the
 * energy per period is half the work of the top traction, σ_yy(0) · amplitude · λ / 4. */
double sfem_mode_energy(const sfem_layer* layer, double amplitude) {
    lame m = lame_of(layer);
    double k = 2 * pi / layer->period, kappa = 3 - 4 * layer->poisson, h = layer->thickness;
    double a[4][4], b[4] = {0, 0, amplitude, 0}, z[4];
    for (int i = 0; i < 4; ++i) {
        double bottom[4], top[4];
        mode_basis(i, k, kappa, -h, bottom);
        mode_basis(i, k, kappa, 0, top);
        a[0][i] = bottom[0], a[1][i] = bottom[2], a[2][i] = top[2];
        a[3][i] = top[1] - k * top[2];
    }
    solve4(a, b, z);
    double u = 0, dv = 0;
    for (int i = 0; i < 4; ++i) {
        double top[4];
        mode_basis(i, k, kappa, 0, top);
        u += z[i] * top[0], dv += z[i] * top[3];
    }
    double sigma_yy = m.lambda * (k * u + dv) + 2 * m.mu * dv;
    return sigma_yy * amplitude * layer->period / 4;
}

double sfem_pfc_normalized_force(double amplitude, double depth) {
    if (amplitude <= 0 || depth >= 2 * amplitude) {
        return (depth - amplitude) / depth;
    }
    double c = 1 - depth / amplitude, theta0 = acos(c);
    return amplitude * (sin(theta0) - c * theta0) / (pi * depth);
}
