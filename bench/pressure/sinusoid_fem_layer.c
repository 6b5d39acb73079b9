/* Plane-strain FEM of a periodic layer pressed by a rigid surface (sinusoid_fem_layer.h).
 *
 * Mesh: the quadratic nodes lie on a grid of 2 n_x columns (periodic: column 2 n_x is column 0)
 * by 2 n_y + 1 rows (row 0 at y = -h, bonded or sliding); each of the n_x × n_y cells is split
 * into two 6-node triangles along alternating diagonals.
 *
 * Material: the compressible neo-Hookean energy W = μ/2 (I₁ - 3 - 2 ln J) + Λ/2 ln²J (plane
 * strain, I₁ = F:F + 1), or its linearization at F = I (linear elasticity with the Lamé
 * constants μ, Λ of E and ν). Element integrals use the 6-point degree-4 rule (exact for the
 * linear stiffness of quadratic elements).
 *
 * Contact: the top nodes carry a frame (tangent t, normal n of the rigid surface) in which their
 * two degrees of freedom are expressed (u = a t + b n); a node held by the surface gets its
 * normal displacement prescribed so as to close its gap, its tangential one stays free: zero
 * tangential force, frictionless. Each linear solve prescribes the bottom and the held nodes by
 * symmetric elimination (rhs = f - K g, prescribed rows and columns of K made the identity); the
 * pattern never changes, so CHOLMOD analyzes once and refactors numerically. Linear elasticity
 * takes one solve per active set; finite strain takes Newton iterations (the frames and gaps
 * follow the nodes' current positions) in load steps. After each converged solve the active set
 * is updated (Signorini conditions, e.g. Wriggers, Computational Contact Mechanics, 2006, sec.
 * 6.3.2): a held node whose internal force pulls on the surface is released, a free node past
 * the surface is held, until no node changes. */
#include "sinusoid_fem_layer.h"

#include <cholmod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;
enum { max_active_set_updates = 100, max_newton_iterations = 40 };

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

double sfem_neo_hookean_punch_force(const sfem_layer* layer, double depth) {
    lame m = lame_of(layer);
    double stretch = 1 - depth / layer->thickness;
    return -(m.mu * (stretch - 1 / stretch) + m.lambda * log(stretch) / stretch) * layer->period;
}

/* ---- the material ---- */

/* First Piola stress P, tangent A = ∂P/∂F and energy density at F (2 × 2, plane strain):
 * neo-Hookean P = μ (F - F⁻ᵀ) + Λ ln J F⁻ᵀ, A_iJkL = μ δ_ik δ_JL + (μ - Λ ln J) F⁻¹_Jk F⁻¹_Li
 * + Λ F⁻¹_Ji F⁻¹_Lk; linear: A at F = I and P = A : (F - I). Returns -1 when J <= 0 (finite
 * strain only: the linear energy is defined for any F). */
static int material(double f[2][2], lame m, bool finite, double p[2][2], double a[2][2][2][2],
                    double* energy) {
    double j = f[0][0] * f[1][1] - f[0][1] * f[1][0];
    if (finite && !(j > 0)) {
        return -1;
    }
    double inv[2][2] = {{1, 0}, {0, 1}}, log_j = 0; /* inv[J][k] = F⁻¹ */
    if (finite) {
        inv[0][0] = f[1][1] / j, inv[0][1] = -f[0][1] / j;
        inv[1][0] = -f[1][0] / j, inv[1][1] = f[0][0] / j;
        log_j = log(j);
    }
    for (int i = 0; i < 2; ++i) {
        for (int jj = 0; jj < 2; ++jj) {
            for (int k = 0; k < 2; ++k) {
                for (int l = 0; l < 2; ++l) {
                    a[i][jj][k][l] = m.mu * (i == k) * (jj == l) +
                                     (m.mu - m.lambda * log_j) * inv[jj][k] * inv[l][i] +
                                     m.lambda * inv[jj][i] * inv[l][k];
                }
            }
        }
    }
    double strain_energy = 0;
    for (int i = 0; i < 2; ++i) {
        for (int jj = 0; jj < 2; ++jj) {
            double linear = 0;
            for (int k = 0; k < 2; ++k) {
                for (int l = 0; l < 2; ++l) {
                    linear += a[i][jj][k][l] * (f[k][l] - (k == l));
                }
            }
            p[i][jj] =
                finite ? m.mu * (f[i][jj] - inv[jj][i]) + m.lambda * log_j * inv[jj][i] : linear;
            strain_energy += 0.5 * p[i][jj] * (f[i][jj] - (i == jj));
        }
    }
    if (finite) {
        double i1 = f[0][0] * f[0][0] + f[0][1] * f[0][1] + f[1][0] * f[1][0] + f[1][1] * f[1][1];
        strain_energy = m.mu / 2 * (i1 - 2 - 2 * log_j) + m.lambda / 2 * log_j * log_j;
    }
    *energy = strain_energy;
    return 0;
}

/* ---- the mesh and the elements ---- */

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

/* Gradients of the six quadratic shape functions (corners 0-2, then the midpoints of edges 0-1,
 * 1-2, 2-0) at barycentrics `bary`: ∇N_i = (4 L_i - 1) ∇L_i, ∇N_ij = 4 (L_j ∇L_i + L_i ∇L_j). */
static void shape_gradients(const double bary[3], double grad_l[3][2], double g[6][2]) {
    for (int i = 0; i < 3; ++i) {
        int j = (i + 1) % 3;
        for (int c = 0; c < 2; ++c) {
            g[i][c] = (4 * bary[i] - 1) * grad_l[i][c];
            g[3 + i][c] = 4 * (bary[j] * grad_l[i][c] + bary[i] * grad_l[j][c]);
        }
    }
}

/* The 6-point degree-4 rule on a triangle (Dunavant 1985): barycentrics and weights (sum 1). */
static void quadrature_point(int q, double bary[3], double* weight) {
    static const double a[2] = {0.445948490915965, 0.091576213509771};
    static const double w[2] = {0.223381589678011, 0.109951743655322};
    int family = q / 3, rotation = q % 3;
    for (int i = 0; i < 3; ++i) {
        bary[(i + rotation) % 3] = i < 2 ? a[family] : 1 - 2 * a[family];
    }
    *weight = w[family];
}

typedef struct element_out {
    double k[12][12]; /* tangent stiffness */
    double f[12];     /* internal force */
    double energy;
} element_out;

/* Tangent, internal force and energy of a straight-sided 6-node triangle with reference corners
 * (x, y) and nodal displacements ue (u_x, u_y per node): K = ∫ Gᵀ A G dA, f = ∫ Gᵀ P dA with
 * F = I + Σ_a u_a ⊗ ∇N_a. Returns -1 when a point's J <= 0. */
static int triangle(const double x[3], const double y[3], const double ue[12], lame m, bool finite,
                    element_out* out) {
    double two_area = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
    double grad_l[3][2];
    for (int i = 0; i < 3; ++i) {
        int j = (i + 1) % 3, l = (i + 2) % 3;
        grad_l[i][0] = (y[j] - y[l]) / two_area;
        grad_l[i][1] = (x[l] - x[j]) / two_area;
    }
    memset(out, 0, sizeof *out);
    for (int q = 0; q < 6; ++q) {
        double bary[3], weight, g[6][2], f[2][2] = {{1, 0}, {0, 1}}, p[2][2], a[2][2][2][2], w;
        quadrature_point(q, bary, &weight);
        shape_gradients(bary, grad_l, g);
        for (int n = 0; n < 6; ++n) {
            for (int i = 0; i < 2; ++i) {
                f[i][0] += ue[2 * n + i] * g[n][0], f[i][1] += ue[2 * n + i] * g[n][1];
            }
        }
        if (material(f, m, finite, p, a, &w)) {
            return -1;
        }
        double da = weight * two_area / 2;
        out->energy += da * w;
        for (int r = 0; r < 12; ++r) {
            int n = r / 2, i = r % 2;
            out->f[r] += da * (p[i][0] * g[n][0] + p[i][1] * g[n][1]);
            for (int c = 0; c < 12; ++c) {
                int nb = c / 2, k = c % 2;
                double sum = 0;
                for (int jj = 0; jj < 2; ++jj) {
                    sum += g[n][jj] * (a[i][jj][k][0] * g[nb][0] + a[i][jj][k][1] * g[nb][1]);
                }
                out->k[r][c] += da * sum;
            }
        }
    }
    return 0;
}

/* k ← Tᵀ k T and f ← Tᵀ f for node a's two dofs, T = [t n] (columns: tangent, normal). */
static void rotate_node(element_out* e, int a, const double normal[2]) {
    double t[2][2] = {{normal[1], normal[0]}, {-normal[0], normal[1]}}; /* rows x, y */
    for (int r = 0; r < 12; ++r) {                                      /* columns: k T */
        double u = e->k[r][2 * a], v = e->k[r][2 * a + 1];
        e->k[r][2 * a] = u * t[0][0] + v * t[1][0];
        e->k[r][2 * a + 1] = u * t[0][1] + v * t[1][1];
    }
    for (int c = 0; c < 12; ++c) { /* rows: Tᵀ k */
        double u = e->k[2 * a][c], v = e->k[2 * a + 1][c];
        e->k[2 * a][c] = t[0][0] * u + t[1][0] * v;
        e->k[2 * a + 1][c] = t[0][1] * u + t[1][1] * v;
    }
    double u = e->f[2 * a], v = e->f[2 * a + 1];
    e->f[2 * a] = t[0][0] * u + t[1][0] * v;
    e->f[2 * a + 1] = t[0][1] * u + t[1][1] * v;
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

/* ---- the linear systems ---- */

typedef struct layer_system {
    cholmod_common common;
    cholmod_triplet* triplets;
    cholmod_sparse* stiffness; /* K in the nodes' frames, lower triangle */
    cholmod_sparse* reduced;   /* K with the prescribed rows and columns made the identity */
    cholmod_factor* factor;    /* analyzed once: the pattern never changes */
    double* force;             /* internal force in the nodes' frames */
    double energy;
    const sfem_layer* layer;
    lame m;
    grid g;
    int dofs;
} layer_system;

static int system_init(layer_system* s, const sfem_layer* layer) {
    cholmod_start(&s->common);
    s->common.print = 0;
    s->layer = layer;
    s->m = lame_of(layer);
    s->g = grid_of(layer);
    s->dofs = 2 * s->g.columns * s->g.rows;
    size_t elements = 2 * (size_t)layer->cells_x * (size_t)layer->cells_y;
    s->triplets = cholmod_allocate_triplet((size_t)s->dofs, (size_t)s->dofs, elements * 78, -1,
                                           CHOLMOD_REAL, &s->common);
    s->force = malloc((size_t)s->dofs * sizeof *s->force);
    return s->triplets && s->force ? 0 : -1;
}

static void system_free(layer_system* s) {
    cholmod_free_factor(&s->factor, &s->common);
    cholmod_free_sparse(&s->reduced, &s->common);
    cholmod_free_sparse(&s->stiffness, &s->common);
    cholmod_free_triplet(&s->triplets, &s->common);
    cholmod_finish(&s->common);
    free(s->force);
}

static void add_triplets(cholmod_triplet* t, const int dof[12], double k[12][12]) {
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

/* Adds one element at displacement u (global frame) with the top nodes' frames `normal`. */
static int add_element(layer_system* s, int nodes[6][2], const double* u, double (*normal)[2],
                       element_out* e) {
    double x[3], y[3], ue[12];
    int dof[12];
    for (int a = 0; a < 6; ++a) {
        dof[2 * a] = 2 * node_at(&s->g, nodes[a][0], nodes[a][1]);
        dof[2 * a + 1] = dof[2 * a] + 1;
        ue[2 * a] = u[dof[2 * a]], ue[2 * a + 1] = u[dof[2 * a + 1]];
    }
    for (int i = 0; i < 3; ++i) {
        x[i] = nodes[i][0] * s->g.dx, y[i] = nodes[i][1] * s->g.dy;
    }
    if (triangle(x, y, ue, s->m, s->layer->load_steps > 0, e)) {
        return -1;
    }
    for (int a = 0; a < 6; ++a) {
        if (nodes[a][1] == s->g.rows - 1) {
            rotate_node(e, a, normal[nodes[a][0] % s->g.columns]);
        }
    }
    add_triplets(s->triplets, dof, e->k);
    for (int r = 0; r < 12; ++r) {
        s->force[dof[r]] += e->f[r];
    }
    s->energy += e->energy;
    return 0;
}

/* Tangent K, internal force and energy at u (global frame), in the nodes' frames. Returns -1
 * when an element is inverted or CHOLMOD fails. */
static int assemble(layer_system* s, const double* u, double (*normal)[2]) {
    s->triplets->nnz = 0;
    s->energy = 0;
    memset(s->force, 0, (size_t)s->dofs * sizeof *s->force);
    element_out* e = malloc(sizeof *e);
    int status = e ? 0 : -1;
    for (int cj = 0; status == 0 && cj < s->layer->cells_y; ++cj) {
        for (int ci = 0; status == 0 && ci < s->layer->cells_x; ++ci) {
            for (int t = 0; status == 0 && t < 2; ++t) {
                int nodes[6][2];
                triangle_nodes(ci, cj, t, nodes);
                status = add_element(s, nodes, u, normal, e);
            }
        }
    }
    free(e);
    cholmod_free_sparse(&s->stiffness, &s->common);
    cholmod_free_sparse(&s->reduced, &s->common);
    s->stiffness = status ? NULL : cholmod_triplet_to_sparse(s->triplets, 0, &s->common);
    s->reduced = s->stiffness ? cholmod_copy_sparse(s->stiffness, &s->common) : NULL;
    if (s->reduced && !s->factor) {
        s->factor = cholmod_analyze(s->reduced, &s->common);
    }
    return s->factor && s->reduced ? 0 : -1;
}

/* K x = b with x = value where fixed: b given on the free dofs; fills x. */
static int solve_prescribed(layer_system* s, const unsigned char* fixed, const double* value,
                            const double* b, double* x) {
    size_t n = (size_t)s->dofs;
    cholmod_dense* g = cholmod_zeros(n, 1, CHOLMOD_REAL, &s->common);
    cholmod_dense* rhs = cholmod_zeros(n, 1, CHOLMOD_REAL, &s->common);
    cholmod_dense* solution = NULL;
    if (g && rhs) {
        double* gx = g->x;
        for (size_t i = 0; i < n; ++i) {
            gx[i] = fixed[i] ? value[i] : 0;
        }
        double minus_one[2] = {-1, 0}, zero[2] = {0, 0};
        cholmod_sdmult(s->stiffness, 0, minus_one, zero, g, rhs, &s->common);
        double* r = rhs->x;
        for (size_t i = 0; i < n; ++i) {
            r[i] = fixed[i] ? value[i] : r[i] + b[i];
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
            memcpy(x, solution->x, n * sizeof *x);
        }
    }
    int status = solution ? 0 : -1;
    if (status) {
        fprintf(stderr, "sinusoid_fem: CHOLMOD failed (status %d)\n", s->common.status);
    }
    cholmod_free_dense(&solution, &s->common);
    cholmod_free_dense(&rhs, &s->common);
    cholmod_free_dense(&g, &s->common);
    return status;
}

/* ---- the contact problem ---- */

/* The rigid surface y = offset + coefficient cos(k x), constraining the top nodes vertically or
 * along its normal. */
typedef struct surface {
    double offset, coefficient, k;
    sfem_gap gap;
} surface;

typedef struct top_state {
    double (*normal)[2];   /* per top column, the frame's normal (t = (n_y, -n_x)) */
    double* gap;           /* n · (node - surface point): > 0 past the surface */
    unsigned char* active; /* held by the surface */
    unsigned char* fixed;  /* per dof */
    double *value, *u, *start, *step, *minus_force; /* u, start global; the rest in frames */
} top_state;

static int top_state_alloc(top_state* t, int columns, int dofs) {
    t->normal = malloc((size_t)columns * sizeof *t->normal);
    t->gap = malloc((size_t)columns * sizeof *t->gap);
    t->active = malloc((size_t)columns);
    t->fixed = malloc((size_t)dofs);
    t->value = calloc((size_t)dofs, sizeof *t->value);
    t->u = calloc((size_t)dofs, sizeof *t->u);
    t->start = malloc((size_t)dofs * sizeof *t->start);
    t->step = malloc((size_t)dofs * sizeof *t->step);
    t->minus_force = malloc((size_t)dofs * sizeof *t->minus_force);
    return t->normal && t->gap && t->active && t->fixed && t->value && t->u && t->start &&
                   t->step && t->minus_force
               ? 0
               : -1;
}

static void top_state_free(top_state* t) {
    free(t->normal), free(t->gap), free(t->active), free(t->fixed);
    free(t->value), free(t->u), free(t->start), free(t->step), free(t->minus_force);
}

static int top_dof(const grid* g, int column, int which) {
    return 2 * node_at(g, column, g->rows - 1) + which;
}

/* Each top node's frame and gap: linear, the surface at the node's reference x, the gap
 * n · (u - (0, s(x))); finite strain, the surface at its current x, the gap n_y (y - s(x)). */
static void update_frames(const layer_system* s, const surface* sf, top_state* t) {
    bool finite = s->layer->load_steps > 0;
    for (int c = 0; c < s->g.columns; ++c) {
        double ux = t->u[top_dof(&s->g, c, 0)], uy = t->u[top_dof(&s->g, c, 1)];
        double x = c * s->g.dx + (finite ? ux : 0);
        double height = sf->offset + sf->coefficient * cos(sf->k * x);
        double slope = sf->gap == SFEM_GAP_NORMAL ? -sf->coefficient * sf->k * sin(sf->k * x) : 0;
        double norm = hypot(1, slope);
        t->normal[c][0] = -slope / norm, t->normal[c][1] = 1 / norm;
        t->gap[c] = finite ? (uy - height) / norm : t->normal[c][0] * ux + (uy - height) / norm;
    }
}

/* The bottom (bonded, or sliding held at one node) and the held nodes' normal dofs. */
static void prescribe(const layer_system* s, top_state* t) {
    memset(t->fixed, 0, (size_t)s->dofs);
    for (int c = 0; c < s->g.columns; ++c) {
        t->fixed[2 * c] = !s->layer->sliding_base || c == 0;
        t->fixed[2 * c + 1] = 1;
        t->value[2 * c] = t->value[2 * c + 1] = 0;
        int dof = top_dof(&s->g, c, 1);
        t->fixed[dof] = t->active[c];
        t->value[dof] = -t->gap[c];
    }
}

/* u = start + alpha × the step (in the nodes' frames, rotated back to the global frame at the
 * top). */
static void take_step(const layer_system* s, top_state* t, const double* start, double alpha) {
    for (int i = 0; i < s->dofs; ++i) {
        t->u[i] = start[i] + alpha * t->step[i];
    }
    for (int c = 0; c < s->g.columns; ++c) {
        int dx = top_dof(&s->g, c, 0), dy = dx + 1;
        double a = t->step[dx], b = t->step[dy], nx = t->normal[c][0], ny = t->normal[c][1];
        /* (u_x, u_y) = a t + b n, t = (n_y, -n_x) */
        t->u[dx] = start[dx] + alpha * (ny * a + nx * b);
        t->u[dy] = start[dy] + alpha * (-nx * a + ny * b);
    }
}

/* Takes the Newton step, halved until no element is inverted (finite strain); -1 if none is. */
static int step_without_inversion(layer_system* s, top_state* t) {
    memcpy(t->start, t->u, (size_t)s->dofs * sizeof *t->u);
    for (double alpha = 1; alpha > 1e-6; alpha /= 2) {
        take_step(s, t, t->start, alpha);
        if (s->layer->load_steps == 0 || assemble(s, t->u, t->normal) == 0) {
            return 0;
        }
    }
    fprintf(stderr, "sinusoid_fem: every fraction of the Newton step inverts an element\n");
    return -1;
}

/* Newton's method (one step when linear) for the current active set: K du = -f on the free
 * dofs, du closing the held nodes' gaps. Returns 0, 1 when Newton did not converge (the state
 * is kept), -1 on failure. */
static int equilibrate(layer_system* s, const surface* sf, top_state* t, sfem_result* result) {
    bool finite = s->layer->load_steps > 0;
    int converged = 0;
    for (int it = 0; it < max_newton_iterations && !converged; ++it) {
        update_frames(s, sf, t);
        prescribe(s, t);
        if (assemble(s, t->u, t->normal)) {
            return -1;
        }
        for (int i = 0; i < s->dofs; ++i) {
            t->minus_force[i] = -s->force[i];
        }
        if (solve_prescribed(s, t->fixed, t->value, t->minus_force, t->step)) {
            return -1;
        }
        result->iterations++;
        if (step_without_inversion(s, t)) {
            return -1;
        }
        double largest = 0;
        for (int i = 0; i < s->dofs; ++i) {
            largest = fmax(largest, fabs(t->step[i]));
        }
        converged = !finite || largest < 1e-12 * s->layer->thickness;
    }
    update_frames(s, sf, t);
    return assemble(s, t->u, t->normal) ? -1 : !converged;
}

/* Releases held nodes pulled by their internal force, holds free nodes past the surface;
 * returns how many changed. */
static int update_active_set(const layer_system* s, top_state* t, double force_tolerance,
                             double gap_tolerance) {
    int changed = 0;
    for (int c = 0; c < s->g.columns; ++c) {
        if (t->active[c] && s->force[top_dof(&s->g, c, 1)] > force_tolerance) {
            t->active[c] = 0, ++changed;
        } else if (!t->active[c] && t->gap[c] > gap_tolerance) {
            t->active[c] = 1, ++changed;
        }
    }
    return changed;
}

/* The force pressing the layer down: minus the y component of the top's internal forces
 * (f_t t + f_n n), with the energy and the share of held nodes. */
static void summarize(const layer_system* s, const top_state* t, sfem_result* result) {
    double force = 0;
    int held = 0;
    for (int c = 0; c < s->g.columns; ++c) {
        double tangent_y = -t->normal[c][0];
        force -= s->force[top_dof(&s->g, c, 0)] * tangent_y +
                 s->force[top_dof(&s->g, c, 1)] * t->normal[c][1];
        held += t->active[c];
    }
    result->force = force, result->energy = s->energy;
    result->contact_fraction = (double)held / s->g.columns;
    result->dofs = s->dofs;
}

/* Equilibrium and active set at one surface position, starting from t's state. */
static int solve_contact(layer_system* s, const surface* sf, top_state* t, double depth,
                         sfem_result* result) {
    /* nodal forces scale as E d dx / h */
    double force_tolerance = 1e-10 * s->layer->modulus * depth * s->g.dx / s->layer->thickness;
    bool newton_converged = true;
    for (int update = 0; update < max_active_set_updates; ++update) {
        int status = equilibrate(s, sf, t, result);
        if (status < 0) {
            return -1;
        }
        newton_converged = status == 0;
        if (update_active_set(s, t, force_tolerance, 1e-10 * depth) == 0) {
            result->converged = newton_converged;
            break;
        }
    }
    summarize(s, t, result);
    return 0;
}

int sfem_press_sinusoid(const sfem_layer* layer, double amplitude, double depth, sfem_gap gap,
                        sfem_result* result) {
    grid g = grid_of(layer);
    layer_system s = {0};
    top_state t = {0};
    *result = (sfem_result){0};
    int status = top_state_alloc(&t, g.columns, 2 * g.columns * g.rows);
    status = status ? status : system_init(&s, layer);
    int steps = layer->load_steps > 0 ? layer->load_steps : 1;
    for (int step = 1; status == 0 && step <= steps; ++step) {
        double d = depth * step / steps;
        surface sf = {-d + amplitude, -amplitude, 2 * pi / layer->period, gap};
        update_frames(&s, &sf, &t);
        for (int c = 0; c < g.columns; ++c) { /* start from the nodes the surface overlaps */
            t.active[c] = step == 1 ? t.gap[c] > 0 : t.active[c];
        }
        result->converged = false;
        status = solve_contact(&s, &sf, &t, d, result);
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
    surface sf = {0, amplitude, 2 * pi / layer->period, SFEM_GAP_VERTICAL};
    int status = top_state_alloc(&t, g.columns, 2 * g.columns * g.rows);
    status = status ? status : system_init(&s, layer);
    if (status == 0) {
        memset(t.active, 1, (size_t)g.columns);
        status = equilibrate(&s, &sf, &t, result) ? -1 : 0;
        summarize(&s, &t, result);
        result->converged = status == 0;
    }
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
