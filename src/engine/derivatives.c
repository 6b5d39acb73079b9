/* Transition derivatives by finite differences (touche/derivatives.h, docs/derivatives.md),
 * the scheme of MuJoCo's mjd_transitionFD: each column of A = dx'/dx and B = dx'/du is the
 * difference of steps from perturbed copies of the data, in the tangent space of qpos. */
#include "touche/derivatives.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/checkpoint_stream.h"
#include "math/vec.h"
#include "touche/step.h"

/* ---- the tangent space of qpos ---- */

/* One block of qpos with its own tangent coordinates: a quaternion-carrying free or ball
 * joint, or a run of plain coordinates. */
typedef struct state_block {
    int qpos_adr, qvel_adr;
    int type; /* tch_joint_type */
} state_block;

/* The k-th block of the model (joints, or free bodies of a model without joints); 0 past
 * the end. */
static int block_at(const tch_model* m, int k, state_block* out) {
    if (m->joint_count > 0) {
        if (k >= m->joint_count) return 0;
        *out = (state_block){m->joint_qpos_adr[k], m->joint_qvel_adr[k], m->joint_type[k]};
        return 1;
    }
    for (int b = 1, seen = 0; b < m->body_count; ++b) {
        if (m->body_qpos_adr[b] < 0) continue;
        if (seen++ == k) {
            *out = (state_block){m->body_qpos_adr[b], m->body_qvel_adr[b], TCH_JOINT_FREE};
            return 1;
        }
    }
    return 0;
}

static tch_quat read_quat(const tch_real* q) {
    return (tch_quat){q[0], q[1], q[2], q[3]};
}

static void write_quat(tch_real* q, tch_quat v) {
    q[0] = v.w, q[1] = v.x, q[2] = v.y, q[3] = v.z;
}

/* The rotation vector of a unit quaternion, the shorter way (angle in [0, pi]). */
static tch_vec3 quat_log(tch_quat q) {
    if (q.w < 0) q = (tch_quat){-q.w, -q.x, -q.y, -q.z};
    tch_real s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    tch_real scale = s < 1e-12 ? 2 : 2 * atan2(s, q.w) / s;
    return tch_v3(q.x * scale, q.y * scale, q.z * scale);
}

void tch_state_integrate(const tch_model* m, tch_real* qpos, const tch_real* dq, tch_real scale) {
    state_block b;
    for (int k = 0; block_at(m, k, &b); ++k) {
        tch_real* q = qpos + b.qpos_adr;
        const tch_real* v = dq + b.qvel_adr;
        if (b.type == TCH_JOINT_FREE) {
            for (int i = 0; i < 3; ++i) q[i] += scale * v[i];
            q += 3, v += 3;
        }
        if (b.type == TCH_JOINT_FREE || b.type == TCH_JOINT_BALL) {
            tch_quat turn = tch_q_from_rotvec(tch_v3(scale * v[0], scale * v[1], scale * v[2]));
            write_quat(q, tch_q_normalize(tch_q_mul(read_quat(q), turn)));
        } else {
            q[0] += scale * v[0];
        }
    }
}

void tch_state_difference(const tch_model* m, const tch_real* qpos1, const tch_real* qpos2,
                          tch_real* dq) {
    state_block b;
    for (int k = 0; block_at(m, k, &b); ++k) {
        const tch_real *q1 = qpos1 + b.qpos_adr, *q2 = qpos2 + b.qpos_adr;
        tch_real* v = dq + b.qvel_adr;
        if (b.type == TCH_JOINT_FREE) {
            for (int i = 0; i < 3; ++i) v[i] = q2[i] - q1[i];
            q1 += 3, q2 += 3, v += 3;
        }
        if (b.type == TCH_JOINT_FREE || b.type == TCH_JOINT_BALL) {
            /* q2 = q1 exp(dtheta / 2): dtheta = log(q1* q2), body frame */
            tch_vec3 r = quat_log(tch_q_mul(tch_q_conj(read_quat(q1)), read_quat(q2)));
            v[0] = r.x, v[1] = r.y, v[2] = r.z;
        } else {
            v[0] = q2[0] - q1[0];
        }
    }
}

/* ---- the differences ---- */

typedef struct fd_work {
    const tch_model* m;
    tch_data* d;
    tch_stream snapshot;
    tch_real* qpos_ref;  /* [nq] the unperturbed step's result */
    tch_real* qvel_ref;  /* [nv] */
    tch_real* plus;      /* [2 nv] x'(+eps) - x'(ref), tangent */
    tch_real* minus;     /* [2 nv] */
    tch_real* dq;        /* [nv] a unit tangent step */
    tch_error* err;
} fd_work;

/* The step from the snapshot after `perturb` (j: a state coordinate, or 2 nv + an actuator)
 * moved coordinate j by delta; its result, as a tangent offset from the reference, in out
 * (NULL: the reference step itself, whose result is stored). */
static tch_status perturbed_step(fd_work* w, int j, tch_real delta, tch_real* out) {
    const tch_model* m = w->m;
    tch_data* d = w->d;
    int nv = m->nv;
    if (!tch_snapshot_restore(m, d, &w->snapshot)) {
        return tch_fail(w->err, TCH_ERR_OUT_OF_MEMORY, "", 0, "cannot restore the data's copy");
    }
    if (out && j < nv) {
        memset(w->dq, 0, (size_t)nv * sizeof *w->dq);
        w->dq[j] = 1;
        tch_state_integrate(m, d->qpos, w->dq, delta);
    } else if (out && j < 2 * nv) {
        d->qvel[j - nv] += delta;
    } else if (out) {
        d->ctrl[j - 2 * nv] += delta;
    }
    tch_status status = tch_step(m, d, w->err);
    if (status != TCH_OK) return status;
    if (!out) {
        memcpy(w->qpos_ref, d->qpos, (size_t)m->nq * sizeof *d->qpos);
        memcpy(w->qvel_ref, d->qvel, (size_t)nv * sizeof *d->qvel);
        return TCH_OK;
    }
    tch_state_difference(m, w->qpos_ref, d->qpos, out);
    for (int i = 0; i < nv; ++i) out[nv + i] = d->qvel[i] - w->qvel_ref[i];
    return TCH_OK;
}

/* Column j of the derivative into `matrix` (rows 2 nv, `columns` wide, at column `column`). */
static tch_status column(fd_work* w, int j, tch_real eps, tch_fd_scheme scheme,
                         tch_real* matrix, int columns, int column_index) {
    int nx = 2 * w->m->nv;
    tch_status status = perturbed_step(w, j, eps, w->plus);
    if (status == TCH_OK && scheme == TCH_FD_CENTERED) {
        status = perturbed_step(w, j, -eps, w->minus);
    }
    if (status != TCH_OK) return status;
    for (int i = 0; i < nx; ++i) {
        matrix[i * columns + column_index] = scheme == TCH_FD_CENTERED
                                                 ? (w->plus[i] - w->minus[i]) / (2 * eps)
                                                 : w->plus[i] / eps;
    }
    return TCH_OK;
}

static tch_status differentiate(fd_work* w, tch_real eps, tch_fd_scheme scheme, tch_real* A,
                                tch_real* B) {
    int nx = 2 * w->m->nv, nu = w->m->actuator_count;
    tch_status status = perturbed_step(w, -1, 0, NULL);
    for (int j = 0; A && status == TCH_OK && j < nx; ++j) {
        status = column(w, j, eps, scheme, A, nx, j);
    }
    for (int j = 0; B && status == TCH_OK && j < nu; ++j) {
        status = column(w, nx + j, eps, scheme, B, nu, j);
    }
    return status;
}

tch_status tch_transition_fd(const tch_model* m, tch_data* d, tch_real eps, tch_fd_scheme scheme,
                             tch_real* A, tch_real* B, tch_error* err) {
    if (!(eps > 0) || !isfinite(eps)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, "", 0,
                        "the perturbation eps must be positive and finite, got %g", eps);
    }
    if (m->integrator == TCH_INTEGRATOR_ADAPTIVE) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, "", 0,
                        "transition derivatives of the adaptive integrator are not supported "
                        "yet (its history is not copied); use the implicit or an explicit one");
    }
    int nx = 2 * m->nv;
    fd_work w = {.m = m, .d = d, .err = err};
    w.qpos_ref = malloc((size_t)(m->nq + 2 * m->nv + 2 * nx) * sizeof(tch_real));
    if (!w.qpos_ref || !tch_snapshot_save(m, d, &w.snapshot)) {
        free(w.qpos_ref), free(w.snapshot.bytes);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, "", 0, "out of memory for the derivatives");
    }
    w.qvel_ref = w.qpos_ref + m->nq;
    w.plus = w.qvel_ref + m->nv;
    w.minus = w.plus + nx;
    w.dq = w.minus + nx;
    tch_status status = differentiate(&w, eps, scheme, A, B);
    if (!tch_snapshot_restore(m, d, &w.snapshot) && status == TCH_OK) {
        status = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, "", 0, "cannot restore the data's copy");
    }
    free(w.qpos_ref), free(w.snapshot.bytes);
    return status;
}
