#include "lcp_problems.h"

#include <math.h>

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
