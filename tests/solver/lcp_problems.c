#include "lcp_problems.h"

#include <math.h>
#include <stdlib.h>

double lcp_rng_uniform(lcp_rng* rng) {
    rng->state = rng->state * 6364136223846793005ULL + 1442695040888963407ULL;
    return 2.0 * (double)(rng->state >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

void lcp_random_gram(lcp_rng* rng, int n, int rank, tch_real eps, tch_real* m) {
    tch_real a[200 * 200];
    for (int k = 0; k < n * rank; ++k) {
        a[k] = lcp_rng_uniform(rng);
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            tch_real s = i == j ? eps : 0;
            for (int k = 0; k < rank; ++k) {
                s += a[i * rank + k] * a[j * rank + k];
            }
            m[i * n + j] = s;
        }
    }
}

void lcp_solvable_q(lcp_rng* rng, const tch_real* m, int n, int degenerate, tch_real* q,
                    tch_real* z_star) {
    tch_real z[200], w[200];
    for (int i = 0; i < n; ++i) {
        const double u = lcp_rng_uniform(rng);
        const double size = 0.1 + fabs(lcp_rng_uniform(rng));
        const int kind = degenerate ? (u < -1.0 / 3 ? 0 : u < 1.0 / 3 ? 1 : 2) : (u < 0 ? 0 : 1);
        z[i] = kind == 0 ? size : 0;
        w[i] = kind == 1 ? size : 0;
    }
    for (int i = 0; i < n; ++i) {
        tch_real s = 0;
        for (int j = 0; j < n; ++j) {
            s += m[i * n + j] * z[j];
        }
        q[i] = w[i] - s;
        if (z_star) {
            z_star[i] = z[i];
        }
    }
}

void lcp_random_vector(lcp_rng* rng, int n, tch_real* q) {
    for (int i = 0; i < n; ++i) {
        q[i] = lcp_rng_uniform(rng);
    }
}

void lcp_w(const tch_real* m, const tch_real* q, const tch_real* z, int n, tch_real* w) {
    for (int i = 0; i < n; ++i) {
        tch_real s = q[i];
        for (int j = 0; j < n; ++j) {
            s += m[i * n + j] * z[j];
        }
        w[i] = s;
    }
}

tch_real lcp_scale(const tch_real* m, const tch_real* q, const tch_real* z, int n) {
    tch_real q_norm = 0, z_norm = 0, m_norm = 0;
    for (int i = 0; i < n; ++i) {
        tch_real row = 0;
        for (int j = 0; j < n; ++j) {
            row += fabs(m[i * n + j]);
        }
        m_norm = fmax(m_norm, row);
        q_norm = fmax(q_norm, fabs(q[i]));
        z_norm = fmax(z_norm, fabs(z[i]));
    }
    return fmax(1, q_norm + m_norm * z_norm);
}

void lcp_random_problem(lcp_rng* rng, int n, int trial, int semidefinite, tch_real* m,
                        tch_real* q) {
    if (!semidefinite) {
        lcp_random_gram(rng, n, n, 0.1, m);
        lcp_random_vector(rng, n, q);
        return;
    }
    lcp_random_gram(rng, n, trial == 0 ? 1 : (n + 1) / 2, 0, m);
    lcp_solvable_q(rng, m, n, trial == 2, q, NULL);
}

enum { DOF = 6 };

/* Row of J for direction d at a contact point with offsets r_a (from the lower body's centre,
 * body a, -1 for the ground) and r_b (from the upper body's centre, body b):
 * a: [-d; -(r_a × d)], b: [d; r_b × d]. */
static void jacobian_row(tch_real* row, int body_a, int body_b, const tch_real r_a[3],
                         const tch_real r_b[3], const tch_real d[3]) {
    const tch_real* r[2] = {r_a, r_b};
    const int body[2] = {body_a, body_b};
    for (int s = 0; s < 2; ++s) {
        if (body[s] < 0) {
            continue;
        }
        const tch_real sign = s == 0 ? -1 : 1;
        tch_real* block = row + body[s] * DOF;
        const tch_real* p = r[s];
        const tch_real cross[3] = {p[1] * d[2] - p[2] * d[1], p[2] * d[0] - p[0] * d[2],
                                   p[0] * d[1] - p[1] * d[0]};
        for (int k = 0; k < 3; ++k) {
            block[k] = sign * d[k];
            block[3 + k] = sign * cross[k];
        }
    }
}

/* J's rows, contact by contact (the four corners of each interface, bottom to top), and the
 * friction bounds when asked. */
static void stack_jacobian(int boxes, int directions, tch_real* j, tch_real* lo, tch_real* hi,
                           int* normal_index) {
    static const tch_real directions_xyz[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    const tch_real mu = 0.5;
    int row = 0;
    for (int layer = 0; layer < boxes; ++layer) {
        for (int corner = 0; corner < 4; ++corner) {
            const tch_real x = corner & 1 ? 0.5 : -0.5, y = corner & 2 ? 0.5 : -0.5;
            const tch_real r_a[3] = {x, y, 0.5}, r_b[3] = {x, y, -0.5};
            const int normal_row = row;
            for (int d = 0; d < directions; ++d, ++row) {
                jacobian_row(j + (size_t)row * (size_t)(DOF * boxes), layer - 1, layer, r_a,
                             r_b, directions_xyz[d]);
                if (lo) {
                    lo[row] = d == 0 ? 0 : -mu;
                    hi[row] = d == 0 ? INFINITY : mu;
                    normal_index[row] = d == 0 ? -1 : normal_row;
                }
            }
        }
    }
}

void lcp_stack_problem(lcp_rng* rng, int boxes, int directions, tch_real* m, tch_real* q,
                       tch_real* lo, tch_real* hi, int* normal_index) {
    const int dofs = DOF * boxes, rows = 4 * boxes * directions;
    const tch_real h = 0.005, g = 9.81;
    const tch_real inverse_mass[DOF] = {1, 1, 1, 6, 6, 6}; /* unit cube: I = 1/6 kg m² */
    tch_real* j = calloc((size_t)rows * (size_t)dofs, sizeof *j);
    tch_real* v = malloc((size_t)dofs * sizeof *v);
    for (int k = 0; k < dofs; ++k) { /* v + h W f: gravity plus a small random velocity */
        v[k] = 1e-3 * lcp_rng_uniform(rng) - (k % DOF == 2 ? h * g : 0);
    }
    stack_jacobian(boxes, directions, j, lo, hi, normal_index);
    for (int a = 0; a < rows; ++a) {
        const tch_real* ja = j + (size_t)a * (size_t)dofs;
        tch_real s = 0;
        for (int k = 0; k < dofs; ++k) {
            s += ja[k] * v[k];
        }
        q[a] = s;
        for (int b = 0; b < rows; ++b) {
            const tch_real* jb = j + (size_t)b * (size_t)dofs;
            tch_real e = 0;
            for (int k = 0; k < dofs; ++k) {
                e += ja[k] * inverse_mass[k % DOF] * jb[k];
            }
            m[(size_t)a * (size_t)rows + (size_t)b] = e;
        }
    }
    free(j);
    free(v);
}
