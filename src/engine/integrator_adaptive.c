/* The adaptive integrator over SUNDIALS ARKODE (engine/integrator_adaptive.h). */
#include "engine/integrator_adaptive.h"

#include <arkode/arkode_arkstep.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "base/error.h"
#include "dynamics/free_body.h"

_Static_assert(sizeof(sunrealtype) == sizeof(tch_real), "SUNDIALS must be double precision");

/* Internal steps one tch_step may take before ARKODE gives up (ARK_TOO_MUCH_WORK): a contact
 * stiffer than the tolerances can follow at any step the scene's time step allows. */
static const long MAX_INTERNAL_STEPS = 20000;

/* The Newton iteration stops when its update is this fraction of the error tolerance
 * (ARKODE's default 0.1 let the Newton error, not the truncation error, set the accuracy
 * between rtol 1e-5 and 1e-7 on the spring-mass of tests/engine/test_adaptive.c: the error
 * stalled or grew as rtol fell; at 1e-3 it falls tenfold per tenfold on rtol). */
static const double NEWTON_TOLERANCE = 1e-3;

/* What the right-hand side and the error handler see during one tch_step. */
typedef struct adaptive_call {
    const tch_model* model;
    tch_data* data;
    tch_adaptive_evaluate evaluate;
    tch_error* err;
    const tch_real* qpos0; /* [nq] the state at the step's start */
    tch_status status;   /* the evaluation's failure, if any */
    char message[256];   /* ARKODE's last error message */
} adaptive_call;

struct tch_adaptive {
    SUNContext context;
    void* arkode;
    N_Vector y;          /* (qpos - qpos0, qvel) */
    tch_real* qpos0;     /* [nq] qpos at the step's start */
    SUNMatrix jacobian;
    SUNLinearSolver solver;
    tch_adaptive_work counted; /* ARKODE's cumulative counters at the end of the last step */
};

/* Puts y into the data's state, each quaternion normalized. */
static void load_state(const tch_model* m, tch_data* d, const tch_real* qpos0,
                       const sunrealtype* y) {
    for (int i = 0; i < m->nq; ++i) {
        d->qpos[i] = qpos0[i] + y[i];
    }
    memcpy(d->qvel, y + m->nq, (size_t)m->nv * sizeof *d->qvel);
    tch_free_bodies_normalize(m, d->qpos);
}

/* y' = (qpos rate, qacc) from the pipeline at y; -1 (unrecoverable) when it fails. */
static int right_hand_side(sunrealtype t, N_Vector y, N_Vector y_dot, void* user) {
    (void)t;
    adaptive_call* call = user;
    const tch_model* m = call->model;
    tch_data* d = call->data;
    load_state(m, d, call->qpos0, N_VGetArrayPointer(y));
    call->status = call->evaluate(m, d, call->err);
    if (call->status != TCH_OK) {
        return -1;
    }
    sunrealtype* rate = N_VGetArrayPointer(y_dot);
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b]) {
            tch_free_body_qpos_rate(m, d->qpos, d->qvel, b, rate + m->body_qpos_adr[b]);
        }
    }
    memcpy(rate + m->nq, d->qacc, (size_t)m->nv * sizeof *d->qacc);
    return 0;
}

/* Keeps ARKODE's message for the step's error instead of its default print to stderr (set from
 * the creation on, when no step is running yet: nothing to keep then); warnings are dropped. */
static void keep_message(int code, const char* module, const char* function, char* message,
                         void* user) {
    (void)module;
    adaptive_call* call = user;
    if (call && code < 0) {
        snprintf(call->message, sizeof call->message, "%s: %s", function, message);
    }
}

void tch_adaptive_destroy(tch_adaptive* s) {
    if (!s) {
        return;
    }
    ARKStepFree(&s->arkode);
    SUNLinSolFree(s->solver);
    SUNMatDestroy(s->jacobian);
    N_VDestroy(s->y);
    SUNContext_Free(&s->context);
    free(s->qpos0);
    free(s);
}

/* ARKStep, fully implicit (no explicit part), with the model's tolerances, a dense
 * difference-quotient Newton Jacobian and the SDIRK-5-3-4 table. NULL when out of memory. */
static tch_adaptive* create(const tch_model* m) {
    tch_adaptive* s = calloc(1, sizeof *s);
    if (!s || !(s->qpos0 = malloc((size_t)m->nq * sizeof *s->qpos0)) ||
        SUNContext_Create(NULL, &s->context) != 0) {
        tch_adaptive_destroy(s);
        return NULL;
    }
    sunindextype n = m->nq + m->nv;
    s->y = N_VNew_Serial(n, s->context);
    s->jacobian = s->y ? SUNDenseMatrix(n, n, s->context) : NULL;
    s->solver = s->jacobian ? SUNLinSol_Dense(s->y, s->jacobian, s->context) : NULL;
    if (s->solver) {
        N_VConst(0, s->y);
        s->arkode = ARKStepCreate(NULL, right_hand_side, 0, s->y, s->context);
    }
    if (!s->arkode || ARKStepSetErrHandlerFn(s->arkode, keep_message, NULL) != 0 ||
        ARKStepSStolerances(s->arkode, m->adaptive_rtol, m->adaptive_atol) != 0 ||
        ARKStepSetLinearSolver(s->arkode, s->solver, s->jacobian) != 0 ||
        ARKStepSetTableNum(s->arkode, ARKODE_SDIRK_5_3_4, ARKODE_ERK_NONE) != 0 ||
        ARKStepSetMaxNumSteps(s->arkode, MAX_INTERNAL_STEPS) != 0 ||
        ARKStepSetNonlinConvCoef(s->arkode, NEWTON_TOLERANCE) != 0) {
        tch_adaptive_destroy(s);
        return NULL;
    }
    return s;
}

/* ARKODE's counters since the creation. */
static tch_adaptive_work counters(void* arkode) {
    long steps = 0, error_fails = 0, solve_fails = 0, jacobians = 0, explicit_evals = 0;
    long implicit_evals = 0, jacobian_evals = 0;
    ARKStepGetNumSteps(arkode, &steps);
    ARKStepGetNumErrTestFails(arkode, &error_fails);
    ARKStepGetNumStepSolveFails(arkode, &solve_fails);
    ARKStepGetNumJacEvals(arkode, &jacobians);
    ARKStepGetNumRhsEvals(arkode, &explicit_evals, &implicit_evals);
    ARKStepGetNumLinRhsEvals(arkode, &jacobian_evals);
    return (tch_adaptive_work){steps, error_fails + solve_fails, jacobians,
                               implicit_evals + jacobian_evals};
}

/* The step's work (the counters' growth) into the data. */
static void record_work(tch_data* d, tch_adaptive* s) {
    tch_adaptive_work now = counters(s->arkode), *step = &d->adaptive_step;
    step->steps = now.steps - s->counted.steps;
    step->rejected = now.rejected - s->counted.rejected;
    step->jacobians = now.jacobians - s->counted.jacobians;
    step->evaluations = now.evaluations - s->counted.evaluations;
    s->counted = now;
    d->adaptive_total.steps += step->steps;
    d->adaptive_total.rejected += step->rejected;
    d->adaptive_total.jacobians += step->jacobians;
    d->adaptive_total.evaluations += step->evaluations;
}

/* Integrates y from 0 to h with ARKODE, restarted at the data's state: the state and the
 * applied forces may have changed since the last step, and pair states are committed between
 * steps. ARKStepReset keeps the step size history; ARKODE evaluates a new Jacobian after it. */
static tch_status evolve(const tch_model* m, tch_data* d, tch_adaptive* s, adaptive_call* call) {
    sunrealtype* y = N_VGetArrayPointer(s->y);
    memcpy(s->qpos0, d->qpos, (size_t)m->nq * sizeof *s->qpos0);
    memset(y, 0, (size_t)m->nq * sizeof *y);
    memcpy(y + m->nq, d->qvel, (size_t)m->nv * sizeof *y);
    sunrealtype reached = 0;
    int flag = ARKStepReset(s->arkode, 0, s->y);
    if (flag == 0) flag = ARKStepSetUserData(s->arkode, call);
    if (flag == 0) flag = ARKStepSetErrHandlerFn(s->arkode, keep_message, call);
    if (flag == 0) flag = ARKStepSetStopTime(s->arkode, m->timestep);
    if (flag == 0) flag = ARKStepEvolve(s->arkode, m->timestep, s->y, &reached, ARK_NORMAL);
    record_work(d, s);
    if (call->status != TCH_OK) {
        return call->status;
    }
    if (flag < 0) {
        return tch_fail(call->err, TCH_ERR_NUMERICAL, NULL, 0,
                        "the adaptive integrator (ARKODE) failed at t = %.6g s (flag %d): %s; "
                        "a looser touche:rtol / touche:atol or a smaller timestep may help",
                        d->time + reached, flag, call->message[0] ? call->message : "no message");
    }
    load_state(m, d, s->qpos0, y);
    return TCH_OK;
}

tch_status tch_adaptive_advance(const tch_model* m, tch_data* d, tch_adaptive** solver,
                                tch_adaptive_evaluate evaluate, tch_error* err) {
    if (m->nq == 0) { /* nothing moves */
        d->adaptive_step = (tch_adaptive_work){0, 0, 0, 0};
        return TCH_OK;
    }
    if (!*solver && !(*solver = create(m))) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                        "out of memory for the adaptive integrator (ARKODE)");
    }
    adaptive_call call = {m, d, evaluate, err, (*solver)->qpos0, TCH_OK, ""};
    return evolve(m, d, *solver, &call);
}
