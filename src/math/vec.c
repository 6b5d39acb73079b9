#include "math/vec.h"

int tch_m3_inverse(tch_mat3 a, tch_mat3* out) {
    tch_real det = tch_m3_det(a);
    tch_real scale = 0;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            scale = fmax(scale, fabs(a.m[i][j]));
        }
    }
    if (!(fabs(det) > 1e-14 * scale * scale * scale) || !isfinite(det)) {
        return 0;
    }
    tch_real s = 1 / det;
    tch_mat3 r;
    r.m[0][0] = (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) * s;
    r.m[0][1] = (a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2]) * s;
    r.m[0][2] = (a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1]) * s;
    r.m[1][0] = (a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2]) * s;
    r.m[1][1] = (a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0]) * s;
    r.m[1][2] = (a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2]) * s;
    r.m[2][0] = (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]) * s;
    r.m[2][1] = (a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1]) * s;
    r.m[2][2] = (a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0]) * s;
    *out = r;
    return 1;
}

/* One Jacobi rotation zeroing a[p][q], accumulated into v (Golub and Van Loan, alg. 8.4.2). */
static void jacobi_rotate(tch_mat3* a, tch_mat3* v, int p, int q) {
    if (a->m[p][q] == 0) {
        return;
    }
    tch_real tau = (a->m[q][q] - a->m[p][p]) / (2 * a->m[p][q]);
    tch_real t = copysign(1.0, tau) / (fabs(tau) + sqrt(1 + tau * tau));
    tch_real c = 1 / sqrt(1 + t * t);
    tch_real s = t * c;
    for (int k = 0; k < 3; ++k) {
        tch_real akp = a->m[k][p], akq = a->m[k][q];
        a->m[k][p] = c * akp - s * akq;
        a->m[k][q] = s * akp + c * akq;
    }
    for (int k = 0; k < 3; ++k) {
        tch_real apk = a->m[p][k], aqk = a->m[q][k];
        a->m[p][k] = c * apk - s * aqk;
        a->m[q][k] = s * apk + c * aqk;
    }
    for (int k = 0; k < 3; ++k) {
        tch_real vkp = v->m[k][p], vkq = v->m[k][q];
        v->m[k][p] = c * vkp - s * vkq;
        v->m[k][q] = s * vkp + c * vkq;
    }
}

static void swap_columns(tch_mat3* v, tch_real* d, int i, int j) {
    tch_real t = d[i];
    d[i] = d[j];
    d[j] = t;
    for (int k = 0; k < 3; ++k) {
        t = v->m[k][i];
        v->m[k][i] = v->m[k][j];
        v->m[k][j] = t;
    }
}

void tch_m3_symmetric_eigen(tch_mat3 a, tch_vec3* eigenvalues, tch_mat3* eigenvectors) {
    tch_mat3 v = tch_m3_identity();
    for (int sweep = 0; sweep < 50; ++sweep) {
        tch_real off = fabs(a.m[0][1]) + fabs(a.m[0][2]) + fabs(a.m[1][2]);
        tch_real diag = fabs(a.m[0][0]) + fabs(a.m[1][1]) + fabs(a.m[2][2]);
        if (off <= 1e-15 * diag || off == 0) {
            break;
        }
        jacobi_rotate(&a, &v, 0, 1);
        jacobi_rotate(&a, &v, 0, 2);
        jacobi_rotate(&a, &v, 1, 2);
    }
    tch_real d[3] = {a.m[0][0], a.m[1][1], a.m[2][2]};
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2 - i; ++j) {
            if (d[j] < d[j + 1]) {
                swap_columns(&v, d, j, j + 1);
            }
        }
    }
    if (tch_m3_det(v) < 0) {
        for (int k = 0; k < 3; ++k) {
            v.m[k][2] = -v.m[k][2];
        }
    }
    *eigenvalues = (tch_vec3){d[0], d[1], d[2]};
    *eigenvectors = v;
}

tch_quat tch_q_from_mat3(tch_mat3 R) {
    tch_real trace = R.m[0][0] + R.m[1][1] + R.m[2][2];
    tch_quat q;
    if (trace > 0) {
        tch_real s = 2 * sqrt(1 + trace);
        q = (tch_quat){s / 4, (R.m[2][1] - R.m[1][2]) / s, (R.m[0][2] - R.m[2][0]) / s,
                       (R.m[1][0] - R.m[0][1]) / s};
    } else if (R.m[0][0] > R.m[1][1] && R.m[0][0] > R.m[2][2]) {
        tch_real s = 2 * sqrt(1 + R.m[0][0] - R.m[1][1] - R.m[2][2]);
        q = (tch_quat){(R.m[2][1] - R.m[1][2]) / s, s / 4, (R.m[0][1] + R.m[1][0]) / s,
                       (R.m[0][2] + R.m[2][0]) / s};
    } else if (R.m[1][1] > R.m[2][2]) {
        tch_real s = 2 * sqrt(1 + R.m[1][1] - R.m[0][0] - R.m[2][2]);
        q = (tch_quat){(R.m[0][2] - R.m[2][0]) / s, (R.m[0][1] + R.m[1][0]) / s, s / 4,
                       (R.m[1][2] + R.m[2][1]) / s};
    } else {
        tch_real s = 2 * sqrt(1 + R.m[2][2] - R.m[0][0] - R.m[1][1]);
        q = (tch_quat){(R.m[1][0] - R.m[0][1]) / s, (R.m[0][2] + R.m[2][0]) / s,
                       (R.m[1][2] + R.m[2][1]) / s, s / 4};
    }
    if (q.w < 0) {
        q = (tch_quat){-q.w, -q.x, -q.y, -q.z};
    }
    return tch_q_normalize(q);
}
