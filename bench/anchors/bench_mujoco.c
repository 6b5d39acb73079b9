/* MuJoCo anchor: loads the scene as `touche export-mjcf` writes it (no touche attributes) with
 * MuJoCo's own compiler and options, and times mj_step. See bench_common.h for the figures.
 *
 * MuJoCo 2.2.2 preallocates its contact list (nconmax, default 100) and constraint rows (njmax,
 * default 500), and drops contacts beyond them. When the file has no <size> element the bench
 * adds one with room for contacts_per_body contacts per free body (4 rows each, the pyramidal
 * cone of condim 3), reducing njmax until MuJoCo can allocate its data (its buffer size is an
 * int). Full buffers during the run are reported in the status column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "bench_common.h"
#include "math/vec.h"

enum { contacts_per_body = 12, rows_per_contact = 4, min_njmax = 500 };

static char* read_text(const char* path, long* size) {
    FILE* f = fopen(path, "rb");
    char* text = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (*size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        text = malloc((size_t)*size + 1);
        if (text && fread(text, 1, (size_t)*size, f) == (size_t)*size) {
            text[*size] = '\0';
        } else {
            free(text);
            text = NULL;
        }
    }
    if (f) {
        fclose(f);
    }
    return text;
}

/* The scene text with <size nconmax njmax/> right after the root element's opening tag. */
static char* with_size_element(const char* text, int nconmax, int njmax) {
    const char* root = strstr(text, "<mujoco");
    const char* end = root ? strchr(root, '>') : NULL;
    if (!end) {
        return NULL;
    }
    char element[128];
    int n = snprintf(element, sizeof element, "\n  <size nconmax=\"%d\" njmax=\"%d\"/>", nconmax,
                     njmax);
    size_t head = (size_t)(end + 1 - text), tail = strlen(end + 1);
    char* out = malloc(head + (size_t)n + tail + 1);
    if (out) {
        memcpy(out, text, head);
        memcpy(out + head, element, (size_t)n);
        memcpy(out + head + (size_t)n, end + 1, tail + 1);
    }
    return out;
}

/* Compiles `xml` under the scene's own file name from a virtual file system. */
static mjModel* load_from_memory(const char* path, const char* xml, char* error, int error_size) {
    mjVFS* vfs = malloc(sizeof *vfs);
    mjModel* m = NULL;
    if (!vfs) {
        return NULL;
    }
    mj_defaultVFS(vfs);
    int size = (int)strlen(xml);
    if (mj_makeEmptyFileVFS(vfs, path, size) == 0) {
        memcpy(vfs->filedata[mj_findFileVFS(vfs, path)], xml, (size_t)size);
        m = mj_loadXML(path, vfs, error, error_size);
    }
    mj_deleteVFS(vfs);
    free(vfs);
    return m;
}

static int free_joint_of(const mjModel* m, int b) {
    int j = m->body_jntadr[b];
    return m->body_jntnum[b] == 1 && m->jnt_type[j] == mjJNT_FREE ? j : -1;
}

static int count_free_bodies(const mjModel* m) {
    int n = 0;
    for (int b = 1; b < m->nbody; ++b) {
        n += free_joint_of(m, b) >= 0;
    }
    return n;
}

/* Loads the scene; gives it room for its contacts when the file does not size the buffers. */
static mjModel* load_with_room(const char* path, char* note, size_t note_size, char* error,
                               int error_size) {
    mjModel* m = mj_loadXML(path, NULL, error, error_size);
    long size = 0;
    char* text = m ? read_text(path, &size) : NULL;
    int nconmax = contacts_per_body * (m ? count_free_bodies(m) : 0) + 100;
    snprintf(note, note_size, "buffers from the file");
    if (!text || strstr(text, "<size") || m->nconmax >= nconmax) {
        free(text);
        return m;
    }
    for (int njmax = rows_per_contact * nconmax; njmax >= min_njmax; njmax = njmax * 2 / 3) {
        char* sized = with_size_element(text, nconmax, njmax);
        mjModel* bigger = sized ? load_from_memory(path, sized, error, error_size) : NULL;
        free(sized);
        if (bigger) {
            snprintf(note, note_size, "nconmax %d njmax %d set by the bench", nconmax, njmax);
            mj_deleteModel(m);
            m = bigger;
            break;
        }
    }
    free(text);
    return m;
}

static void warn_on_stderr(const char* message) {
    fprintf(stderr, "MuJoCo: %s\n", message);
}

static tch_vec3 vec_at(const mjtNum* a, int i) {
    return (tch_vec3){a[3 * i], a[3 * i + 1], a[3 * i + 2]};
}

static tch_mat3 mat_at(const mjtNum* a, int i) {
    const mjtNum* r = a + 9 * i;
    return (tch_mat3){{{r[0], r[1], r[2]}, {r[3], r[4], r[5]}, {r[6], r[7], r[8]}}};
}

/* Free joint velocities: qvel = (v_WBo in W, w_WB in B); the centre of mass moves with
 * v_WCm = v_WBo + w_W x (p_WCm - p_WBo); L_Cm = R_WI diag(I) R_WI^T w_W. */
static void read_body(const mjModel* m, const mjData* d, int b, bench_body_state* s) {
    const mjtNum* qvel = d->qvel + m->jnt_dofadr[free_joint_of(m, b)];
    tch_vec3 p_WBo = vec_at(d->xpos, b);
    tch_mat3 R_WB = mat_at(d->xmat, b);
    tch_mat3 R_WI = mat_at(d->ximat, b);
    s->p_WCm = vec_at(d->xipos, b);
    s->q_WB = (tch_quat){d->xquat[4 * b], d->xquat[4 * b + 1], d->xquat[4 * b + 2],
                         d->xquat[4 * b + 3]};
    s->w_W = tch_m3_mul_v3(R_WB, vec_at(qvel + 3, 0));
    s->v_WCm = tch_v3_add(vec_at(qvel, 0), tch_v3_cross(s->w_W, tch_v3_sub(s->p_WCm, p_WBo)));
    tch_mat3 I_W = tch_m3_rotate_tensor(R_WI, tch_m3_diag(vec_at(m->body_inertia, b)));
    s->L_Cm_W = tch_m3_mul_v3(I_W, s->w_W);
    s->mass = m->body_mass[b];
}

static void read_state(const mjModel* m, const mjData* d, bench_run* run) {
    int n = 0;
    for (int b = 1; b < m->nbody; ++b) {
        if (free_joint_of(m, b) >= 0) {
            read_body(m, d, b, &run->current[n++]);
        }
    }
}

static double max_penetration(const mjData* d) {
    double depth = 0;
    for (int c = 0; c < d->ncon; ++c) {
        depth = depth > -d->contact[c].dist ? depth : -d->contact[c].dist;
    }
    return depth;
}

static void describe_settings(const mjModel* m, const char* sizes, char* out, size_t size) {
    static const char* const solvers[] = {"PGS", "CG", "Newton"};
    static const char* const cones[] = {"pyramidal", "elliptic"};
    static const char* const integrators[] = {"Euler", "RK4", "implicit"};
    snprintf(out, size,
             "MuJoCo %s: solver %s iterations %d tolerance %g cone %s integrator %s "
             "noslip_iterations %d (options from the scene file) | %s",
             mj_versionString(), solvers[m->opt.solver], m->opt.iterations, m->opt.tolerance,
             cones[m->opt.cone], integrators[m->opt.integrator], m->opt.noslip_iterations, sizes);
}

static void simulate(const mjModel* m, mjData* d, bench_run* run) {
    for (int i = 0; i < run->steps; ++i) {
        long long t0 = bench_now_ns();
        mj_step(m, d);
        long long t1 = bench_now_ns();
        bench_record_step(run, i, t0, t1);
        bench_note_penetration(run, max_penetration(d));
        if (run->lz_file) {
            read_state(m, d, run);
            bench_record_momentum(run, d->time);
        }
    }
    read_state(m, d, run);
    const mjWarningStat* w = d->warning;
    if (w[mjWARN_BADQACC].number > 0 || !bench_state_finite(run)) {
        snprintf(run->status, sizeof run->status, "diverged: MuJoCo reset the state %d times",
                 w[mjWARN_BADQACC].number);
    } else if (w[mjWARN_CONTACTFULL].number > 0 || w[mjWARN_CNSTRFULL].number > 0) {
        snprintf(run->status, sizeof run->status,
                 "contacts dropped: contact list full %d times; constraint rows full %d times",
                 w[mjWARN_CONTACTFULL].number, w[mjWARN_CNSTRFULL].number);
    }
}

int main(int argc, char** argv) {
    bench_options options;
    if (!bench_parse_args(argc, argv, "bench_mujoco", &options)) {
        return 2;
    }
    mju_user_warning = warn_on_stderr; /* keep stdout for the CSV line */
    char error[1000] = "", sizes[128];
    mjModel* m = load_with_room(options.scene_path, sizes, sizeof sizes, error, (int)sizeof error);
    if (!m) {
        bench_report_failure(&options, "mujoco", error);
        return 1;
    }
    mjData* d = mj_makeData(m);
    bench_run run;
    if (!d || !bench_run_begin(&run, &options, m->opt.timestep, count_free_bodies(m))) {
        return 1;
    }
    mj_forward(m, d);
    read_state(m, d, &run);
    bench_run_set_initial(&run, vec_at(m->opt.gravity, 0));
    bench_record_momentum(&run, d->time);
    simulate(m, d, &run);
    char settings[512];
    describe_settings(m, sizes, settings, sizeof settings);
    bench_run_finish(&run, "mujoco", settings);
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}
