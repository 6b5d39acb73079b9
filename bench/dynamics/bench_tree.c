/* Kinematic-tree kernels, touche's dynamics/tree.h beside MuJoCo 2.2.2 on the same MJCF file,
 * loaded by both engines (issue 13's measures): the PUMA 560 (puma560.xml in this folder, 6 dof)
 * and the humanoid (humanoid.xml, 27 dof).
 *
 *     bench_tree [scene.xml] [calls_per_block]     (defaults: this folder's puma560.xml, 20000)
 *
 * Each figure is microseconds per call, the median over 7 rounds; in every round each kernel
 * runs one block of calls on touche and then one on MuJoCo (interleaved A/B, the machine is
 * shared). The calls cycle through 16 random states (q, qd, qdd, tau; a free joint's position
 * within 1 m of the origin and a random unit quaternion, other joints +-3 rad or m). Scopes,
 * the same on both sides:
 *
 *   inverse dynamics     poses, velocities, RNEA with qdd
 *                        (mj_kinematics, mj_comPos, mj_comVel, mj_rne with acceleration)
 *   mass matrix          poses, CRBA (mj_kinematics, mj_comPos, mj_crb)
 *   mass matrix+factor   the same plus L^T D L (mj_factorM)
 *   forward dynamics     poses, CRBA with the RNEA bias in its frames (velocities included:
 *                        tch_tree_mass_matrix_bias), L^T D L, solve
 *                        (..., mj_comVel, mj_crb, mj_factorM, mj_rne, mj_solveM)
 *   forward dynamics ABA poses, velocities, articulated-body algorithm (MuJoCo has none)
 *   Lambda^-1 12 rows    from poses and factor already computed: 4 point Jacobians (3 rows
 *                        each, 2 cm off the origins of the last four bodies: the PUMA's
 *                        links 3 to 6) and J A^-1 J^T (mj_jac x4, mj_solveM2,
 *                        mju_mulMatMatT)
 *
 * Before timing, the program checks that both engines describe the same model: the largest
 * differences of the bias force and of the mass matrix over the 16 states are printed.
 *
 * Prints: date, commit (TCH_COMMIT environment variable, else the build's), CPU; then CSV
 * kernel,touche_us,mujoco_us,ratio (ratio = touche / MuJoCo). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#include "bench_machine.h"
#include "dynamics/articulation.h"
#include "dynamics/tree.h"
#include "touche/io.h"
#include "touche/model.h"
#include "touche/spec.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

enum { STATES = 16, ROUNDS = 7, POINTS = 4, ROWS = 3 * POINTS, MAX_NQ = 64, MAX_NV = 64 };

typedef struct bench {
    tch_model* model; /* touche's compiled scene: its tree is model->articulation->tree */
    const tch_tree* tree;
    tch_tree_data* data;
    mjModel* m;
    mjData* d;
    int nq, nv;
    tch_real q[STATES][MAX_NQ], qd[STATES][MAX_NV], qdd[STATES][MAX_NV], tau[STATES][MAX_NV];
    tch_real out[MAX_NV];
    tch_real J[ROWS * MAX_NV];
    tch_real lambda[ROWS * ROWS];
    tch_real x[ROWS * MAX_NV]; /* MuJoCo's mj_solveM2 result */
    int state;
} bench;

typedef void (*kernel)(bench* b);

/* ---- touche ---- */

static void touche_kinematics(bench* b) {
    tch_tree_positions(b->tree, b->data, b->q[b->state]);
    tch_tree_velocities(b->tree, b->data, b->qd[b->state]);
}

static void touche_inverse_dynamics(bench* b) {
    touche_kinematics(b);
    tch_tree_rnea(b->tree, b->data, b->qdd[b->state], b->out);
}

static void touche_mass_matrix(bench* b) {
    tch_tree_positions(b->tree, b->data, b->q[b->state]);
    tch_tree_mass_matrix(b->tree, b->data);
}

static void touche_mass_matrix_factor(bench* b) {
    touche_mass_matrix(b);
    tch_tree_factor(b->tree, b->data, NULL);
}

static void touche_forward_dynamics(bench* b) {
    tch_tree_positions(b->tree, b->data, b->q[b->state]);
    tch_tree_mass_matrix_bias(b->tree, b->data, b->qd[b->state], b->out);
    tch_tree_factor(b->tree, b->data, NULL);
    for (int k = 0; k < b->nv; ++k) {
        b->out[k] = b->tau[b->state][k] - b->out[k];
    }
    tch_tree_solve(b->tree, b->data, b->out);
}

static void touche_forward_dynamics_aba(bench* b) {
    touche_kinematics(b);
    tch_tree_aba(b->tree, b->data, b->tau[b->state], b->out, NULL);
}

/* The rows of Lambda^-1: points 2 cm off the origins of the last four bodies, x, y, z. */
static void touche_inverse_inertia(bench* b) {
    for (int p = 0; p < POINTS; ++p) {
        int body = b->tree->body_count - 1 - p;
        tch_vec3 p_W = tch_tree_body_point(b->tree, b->data, body, (tch_vec3){0.02, 0, 0});
        tch_tree_point_jacobian(b->tree, b->data, body, p_W, NULL, &b->J[3 * p * b->nv]);
    }
    tch_tree_inverse_inertia(b->tree, b->data, ROWS, b->J, b->lambda);
}

/* ---- MuJoCo ---- */

static void mujoco_set_state(bench* b) {
    memcpy(b->d->qpos, b->q[b->state], (size_t)b->nq * sizeof(mjtNum));
    memcpy(b->d->qvel, b->qd[b->state], (size_t)b->nv * sizeof(mjtNum));
    memcpy(b->d->qacc, b->qdd[b->state], (size_t)b->nv * sizeof(mjtNum));
}

static void mujoco_inverse_dynamics(bench* b) {
    mujoco_set_state(b);
    mj_kinematics(b->m, b->d);
    mj_comPos(b->m, b->d);
    mj_comVel(b->m, b->d);
    mj_rne(b->m, b->d, 1, b->out);
}

static void mujoco_mass_matrix(bench* b) {
    mujoco_set_state(b);
    mj_kinematics(b->m, b->d);
    mj_comPos(b->m, b->d);
    mj_crb(b->m, b->d);
}

static void mujoco_mass_matrix_factor(bench* b) {
    mujoco_mass_matrix(b);
    mj_factorM(b->m, b->d);
}

static void mujoco_forward_dynamics(bench* b) {
    mujoco_set_state(b);
    mj_kinematics(b->m, b->d);
    mj_comPos(b->m, b->d);
    mj_comVel(b->m, b->d);
    mj_crb(b->m, b->d);
    mj_factorM(b->m, b->d);
    mj_rne(b->m, b->d, 0, b->d->qfrc_bias);
    for (int k = 0; k < b->nv; ++k) {
        b->out[k] = b->tau[b->state][k] - b->d->qfrc_bias[k];
    }
    mj_solveM(b->m, b->d, b->d->qacc, b->out, 1);
}

static void mujoco_inverse_inertia(bench* b) {
    for (int p = 0; p < POINTS; ++p) {
        int body = b->m->nbody - 1 - p; /* MuJoCo's body 0 is the world */
        mjtNum point[3], offset[3] = {0.02, 0, 0};
        mju_rotVecMat(point, offset, b->d->xmat + 9 * body);
        mju_addTo3(point, b->d->xpos + 3 * body);
        mj_jac(b->m, b->d, &b->J[3 * p * b->nv], NULL, point, body);
    }
    mj_solveM2(b->m, b->d, b->x, b->J, ROWS);
    mju_mulMatMatT(b->lambda, b->x, b->x, ROWS, b->nv, ROWS);
}

/* ---- harness ---- */

/* cycle_states: each call takes the next state; otherwise all run on the current one. */
static double seconds_per_call(bench* b, kernel k, int calls, bool cycle_states) {
    double start = bench_now_seconds();
    for (int i = 0; i < calls; ++i) {
        if (cycle_states) {
            b->state = i % STATES;
        }
        k(b);
    }
    return (bench_now_seconds() - start) / calls;
}

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* values, int n) {
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return values[n / 2];
}

static double uniform(unsigned long long* s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / (double)(1ULL << 53) * 2 - 1;
}

/* q of one joint: free position and quaternion, ball quaternion, hinge or slide +-3. */
static void random_joint_position(const tch_tree_joint* joint, unsigned long long* seed,
                                  tch_real* q) {
    int first_of_quaternion = joint->type == TCH_TREE_JOINT_FREE   ? 3
                              : joint->type == TCH_TREE_JOINT_BALL ? 0
                                                                   : joint->nq;
    for (int k = 0; k < first_of_quaternion; ++k) {
        q[k] = (joint->type == TCH_TREE_JOINT_FREE ? 1 : 3) * uniform(seed);
    }
    if (first_of_quaternion < joint->nq) {
        tch_real* quaternion = &q[first_of_quaternion];
        tch_real norm = 0;
        for (int k = 0; k < 4; ++k) {
            quaternion[k] = uniform(seed);
            norm += quaternion[k] * quaternion[k];
        }
        for (int k = 0; k < 4; ++k) {
            quaternion[k] /= sqrt(norm);
        }
    }
}

static void random_states(bench* b) {
    unsigned long long seed = 12345;
    for (int s = 0; s < STATES; ++s) {
        for (int j = 0; j < b->tree->joint_count; ++j) {
            const tch_tree_joint* joint = &b->tree->joints[j];
            random_joint_position(joint, &seed, &b->q[s][joint->qpos]);
        }
        for (int k = 0; k < b->nv; ++k) {
            b->qd[s][k] = 2 * uniform(&seed);
            b->qdd[s][k] = 5 * uniform(&seed);
            b->tau[s][k] = 20 * uniform(&seed);
        }
    }
}

/* Largest differences of bias force and mass matrix between the engines over the states. */
static void check_same_arm(bench* b) {
    double bias_diff = 0, mass_diff = 0;
    int nv = b->nv;
    mjtNum dense[MAX_NV * MAX_NV];
    for (b->state = 0; b->state < STATES; ++b->state) {
        tch_real bias[MAX_NV];
        touche_kinematics(b);
        tch_tree_rnea(b->tree, b->data, NULL, bias);
        tch_tree_mass_matrix(b->tree, b->data);
        mujoco_set_state(b);
        mj_forward(b->m, b->d);
        mj_fullM(b->m, dense, b->d->qM);
        for (int i = 0; i < nv; ++i) {
            bias_diff = fmax(bias_diff, fabs(bias[i] - b->d->qfrc_bias[i]));
            for (int j = 0; j < nv; ++j) {
                mass_diff = fmax(mass_diff, fabs(b->data->M[i * nv + j] - dense[i * nv + j]));
            }
        }
    }
    printf("# same model (nq %d, nv %d): max |bias touche - MuJoCo| %.3g N m, max |M touche - "
           "MuJoCo| %.3g kg m^2 over %d states\n",
           b->nq, nv, bias_diff, mass_diff, STATES);
}

/* touche's tree of the scene at path, as `touche run` compiles it. */
static bool load_touche(bench* b, const char* path) {
    tch_spec* spec = NULL;
    tch_error err;
    bool ok =
        tch_mjcf_load(path, &spec, &err) == TCH_OK && tch_compile(spec, &b->model, &err) == TCH_OK;
    tch_spec_destroy(spec);
    if (ok && !b->model->articulation) {
        snprintf(err.message, sizeof err.message, "the scene has no joints");
        ok = false;
    }
    if (ok) {
        b->tree = b->model->articulation->tree;
        ok = tch_tree_data_create(b->tree, ROWS, &b->data, &err) == TCH_OK;
    }
    if (!ok) {
        fprintf(stderr, "bench_tree: touche cannot load %s: %s\n", path, err.message);
    }
    return ok;
}

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : TCH_BENCH_DYNAMICS_DIR "/puma560.xml";
    int calls = argc > 2 ? atoi(argv[2]) : 20000;
    bench* b = calloc(1, sizeof *b);
    char error[1000] = "";
    if (!b || !load_touche(b, path)) {
        return 1;
    }
    b->nq = b->tree->nq;
    b->nv = b->tree->nv;
    b->m = mj_loadXML(path, NULL, error, sizeof error);
    if (!b->m || b->m->nq != b->nq || b->m->nv != b->nv || b->nq > MAX_NQ || b->nv > MAX_NV ||
        b->m->nbody != b->tree->body_count + 1) {
        fprintf(stderr,
                "bench_tree: MuJoCo cannot load %s as touche does (nq %d, nv %d, at most "
                "%d, %d): %s\n",
                path, b->nq, b->nv, MAX_NQ, MAX_NV, error);
        return 1;
    }
    b->d = mj_makeData(b->m);
    random_states(b);

    char cpu[256], date[32];
    bench_cpu_model(cpu, sizeof cpu);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    const char* commit = getenv("TCH_COMMIT") ? getenv("TCH_COMMIT") : TCH_GIT_COMMIT;
    printf("# bench_tree %s, %s, commit %s, %s, MuJoCo %d, %d calls per block, median of %d\n",
           path, date, commit, cpu, mj_version(), calls, ROUNDS);
    check_same_arm(b);

    static const struct {
        const char* name;
        kernel touche, mujoco;
        bool prepared; /* runs on one state whose poses and factor are computed before */
    } kernels[] = {
        {"inverse dynamics", touche_inverse_dynamics, mujoco_inverse_dynamics, false},
        {"mass matrix", touche_mass_matrix, mujoco_mass_matrix, false},
        {"mass matrix+factor", touche_mass_matrix_factor, mujoco_mass_matrix_factor, false},
        {"forward dynamics", touche_forward_dynamics, mujoco_forward_dynamics, false},
        {"forward dynamics ABA", touche_forward_dynamics_aba, NULL, false},
        {"Lambda^-1 12 rows", touche_inverse_inertia, mujoco_inverse_inertia, true},
    };
    enum { KERNELS = sizeof kernels / sizeof kernels[0] };
    double t_touche[KERNELS][ROUNDS], t_mujoco[KERNELS][ROUNDS];
    for (int r = 0; r < ROUNDS; ++r) {
        for (int k = 0; k < KERNELS; ++k) {
            if (kernels[k].prepared) { /* one state, poses and factor in both engines */
                b->state = 0;
                touche_mass_matrix_factor(b);
                mujoco_mass_matrix_factor(b);
            }
            bool cycle = !kernels[k].prepared;
            t_touche[k][r] = seconds_per_call(b, kernels[k].touche, calls, cycle);
            t_mujoco[k][r] =
                kernels[k].mujoco ? seconds_per_call(b, kernels[k].mujoco, calls, cycle) : 0;
        }
    }
    printf("kernel,touche_us,mujoco_us,ratio\n");
    for (int k = 0; k < KERNELS; ++k) {
        double tt = 1e6 * median(t_touche[k], ROUNDS), tm = 1e6 * median(t_mujoco[k], ROUNDS);
        if (tm > 0) {
            printf("%s,%.3f,%.3f,%.2f\n", kernels[k].name, tt, tm, tt / tm);
        } else {
            printf("%s,%.3f,,\n", kernels[k].name, tt);
        }
    }
    mj_deleteData(b->d);
    mj_deleteModel(b->m);
    tch_tree_data_destroy(b->data);
    tch_model_destroy(b->model);
    free(b);
    return 0;
}
