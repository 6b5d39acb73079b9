/* touche run: simulates a scene and writes DIR/trajectory.csv and DIR/contacts.jsonl.
 * Both are written under temporary names and renamed when the run completes; a run that
 * diverges, fails or is interrupted (SIGINT, SIGTERM) part-way keeps what it wrote as
 * DIR/trajectory.partial.csv and DIR/contacts.partial.jsonl, the lead-up to the failure. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "constraint_output.h"
#include "ctrl_file.h"
#include "viewer.h"

/* Default time between written states, s (100 Hz): --every N overrides. */
static const double OUTPUT_PERIOD = 0.01;

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig) {
    (void)sig;
    interrupted = 1;
}

/* DIR/name, written under a temporary name (cli_open_output). */
static int open_output(cli_output_file* o, const char* dir, const char* name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return cli_open_output(o, path, "run");
}

static void write_trajectory_rows(FILE* f, const tch_model* m, const tch_data* d) {
    for (int b = 1; b < m->body_count; ++b) {
        tch_transform X;
        tch_vec3 v, w;
        tch_data_body_state(m, d, b, &X, &v, &w);
        tch_vec3 w_B = cli_rotate((tch_quat){X.q.w, -X.q.x, -X.q.y, -X.q.z}, w); /* R_WBᵀ w_W */
        fprintf(f, "%.17g,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
                   "%.17g,%.17g,%.17g,%.17g,%.17g\n",
                d->time, m->body_name[b][0] ? m->body_name[b] : "?", X.p.x, X.p.y, X.p.z,
                X.q.w, X.q.x, X.q.y, X.q.z, v.x, v.y, v.z, w.x, w.y, w.z, w_B.x, w_B.y, w_B.z);
    }
}

/* Names of the constraint paths (tch_constraint_path) in the outputs. */
static const char* const PATH_NAMES[TCH_CONSTRAINT_PATH_COUNT] = {"lemke", "pgs", "normal_lemke",
                                                                  "normal_pgs"};

const char* cli_constraint_path_name(tch_constraint_path path) {
    return path >= 0 && path < TCH_CONSTRAINT_PATH_COUNT ? PATH_NAMES[path] : "?";
}

void cli_json_constraint(FILE* f, const tch_data* d) {
    if (d->constraint_island_count == 0) {
        return;
    }
    fprintf(f, ",\"constraint\":{\"islands\":%d,\"iterations\":%d,\"residual\":%.17g,"
               "\"failed\":%d,\"paths\":{",
            d->constraint_island_count, d->constraint_iterations, d->constraint_residual,
            d->constraint_failed_islands);
    for (int k = 0; k < TCH_CONSTRAINT_PATH_COUNT; ++k) {
        fprintf(f, "%s\"%s\":%d", k ? "," : "", PATH_NAMES[k], d->constraint_path_islands[k]);
    }
    fprintf(f, "}}");
}

/* The contacts found at time t and the forces of the step from t (constraint models' forces
 * exist only once the step is solved), with the constraint solve's diagnostics and the energy
 * (kinetic and gravitational, tch_data_energy) at t. */
static void write_contacts_line(FILE* f, const tch_model* m, const tch_data* d, double t,
                                double energy) {
    fprintf(f, "{\"time\":%.17g,\"energy\":%.17g,\"pairs\":", t, energy);
    cli_json_pairs(f, m, d);
    cli_json_constraint(f, d);
    fprintf(f, "}\n");
}

typedef struct run_stats {
    long steps;
    double wall;
    long contact_sum;
    int warnings_printed;
    long islands[TCH_CONSTRAINT_PATH_COUNT]; /* constraint islands applied per path */
    long failed_islands;
    long sleeping_islands; /* island-steps held asleep, not solved */
    long constraint_iterations;
    double max_residual;
} run_stats;

/* The constraint solve over the run (lcp model), when it solved any island. */
static void print_constraint_summary(const run_stats* s) {
    long total = 0;
    for (int k = 0; k < TCH_CONSTRAINT_PATH_COUNT; ++k) total += s->islands[k];
    if (total == 0) return;
    fprintf(stderr, "  constraint islands %ld:", total);
    for (int k = 0; k < TCH_CONSTRAINT_PATH_COUNT; ++k) {
        fprintf(stderr, " %s %ld", PATH_NAMES[k], s->islands[k]);
    }
    fprintf(stderr, "; %ld asleep; %ld fell back, largest residual %.3g m/s, %.1f iterations "
            "per step\n", s->sleeping_islands, s->failed_islands, s->max_residual,
            s->steps ? (double)s->constraint_iterations / (double)s->steps : 0.0);
}

/* What each of the data's warnings (tch_warning) means, for the run's summary. NULL: the
 * buffers' growth during warm-up, which is not news, and the watch's deep penetration and
 * energy gain, printed as they happen (cli_print_watch_warnings). */
static const char* const WARNING_TEXT[TCH_WARN_COUNT] = {
    [TCH_WARN_BAD_QUAT] = "a quaternion was renormalized from far off unit length",
    [TCH_WARN_FRICTION_DROPPED] =
        "an lcp island was solved without friction (its frictional solvers failed)",
    [TCH_WARN_LOOSE_RESIDUAL] =
        "an lcp island was applied with a residual above 1e-6 m/s and the tolerance"};

/* The data's warnings over the run: how many steps, the last one's time and body. */
static void print_data_warnings(const tch_model* m, const tch_data* d) {
    for (int k = 0; k < TCH_WARN_COUNT; ++k) {
        if (d->warning_count[k] == 0 || !WARNING_TEXT[k]) continue;
        int b = d->warning_body[k];
        fprintf(stderr, "touche: warning: %s: %d times, the last at t = %.6g s (body '%s')\n",
                WARNING_TEXT[k], d->warning_count[k], d->warning_time[k],
                b > 0 && m->body_name[b][0] ? m->body_name[b] : "-");
    }
}

/* The simulated time asked for, s. */
static double run_duration(const cli_options* o) {
    return o->duration > 0 ? o->duration : 5.0;
}

/* Steps of the fixed time step that reach at least the duration asked for. */
static long run_step_count(const cli_options* o, const tch_model* m) {
    return (long)ceil(run_duration(o) / m->timestep - 1e-9);
}

/* The step is fixed: a duration that is not a whole number of steps ends on the next step. */
static void print_duration_rounding(const cli_options* o, const tch_model* m) {
    double asked = run_duration(o), reached = (double)run_step_count(o, m) * m->timestep;
    if (fabs(reached - asked) > 1e-9 * asked) {
        fprintf(stderr, "  the %.6g s asked are not a whole number of %.6g s steps: the run ended "
                        "on the next step, at %.9g s\n", asked, m->timestep, reached);
    }
}

static void print_summary(const cli_options* o, const tch_model* m, const tch_data* d,
                          const run_stats* s) {
    fprintf(stderr,
            "touche run: %s: %ld steps of %.6g s (%.6g s simulated) in %.3f s wall, %.0f steps/s "
            "(%.1fx real time)\n"
            "  contacts per step %.2f\n",
            o->scene, s->steps, m->timestep, d->time, s->wall,
            s->wall > 0 ? (double)s->steps / s->wall : 0.0,
            s->wall > 0 ? d->time / s->wall : 0.0,
            s->steps ? (double)s->contact_sum / (double)s->steps : 0.0);
    print_duration_rounding(o, m);
    if (m->articulation) { /* the watch knows free bodies only (docs/articulated.md) */
        fprintf(stderr, "  energy %.6g J at the end (kinetic, gravity, joint and limit springs; "
                        "the energy watch does not cover joints yet)\n",
                tch_data_energy(m, d));
    } else {
        cli_print_watch_summary(d);
    }
    print_constraint_summary(s);
    print_data_warnings(m, d);
    if (m->integrator == TCH_INTEGRATOR_ADAPTIVE && s->steps > 0) fprintf(stderr, "  adaptive integrator: per step %.2f internal steps, %.2f rejected, %.2f Jacobians, %.1f evaluations\n", (double)d->adaptive_total.steps / (double)s->steps, (double)d->adaptive_total.rejected / (double)s->steps, (double)d->adaptive_total.jacobians / (double)s->steps, (double)d->adaptive_total.evaluations / (double)s->steps);
    fprintf(stderr, "  wrote %s/trajectory.csv%s%s%s\n", o->out_dir,
            o->no_contacts ? "" : " and ", o->no_contacts ? "" : o->out_dir,
            o->no_contacts ? "" : "/contacts.jsonl");
    if (o->gltf_path) fprintf(stderr, "  wrote %s (glTF 2.0)\n", o->gltf_path);
}

static void track(const tch_data* d, run_stats* s) {
    s->contact_sum += d->contact_count;
    for (int k = 0; k < TCH_CONSTRAINT_PATH_COUNT; ++k) s->islands[k] += d->constraint_path_islands[k];
    s->failed_islands += d->constraint_failed_islands;
    s->sleeping_islands += d->constraint_sleeping_islands;
    s->constraint_iterations += d->constraint_iterations;
    s->max_residual = fmax(s->max_residual, d->constraint_residual);
}

/* Prints the watch's new warnings; with --strict, the first one ends the run. */
static int watch(const cli_options* o, const tch_model* m, const tch_data* d,
                 cli_progress* progress, run_stats* s) {
    if (tch_data_watch_warning(d, s->warnings_printed)) {
        cli_progress_interrupt(progress); /* off the progress bar's line */
    }
    s->warnings_printed = cli_print_watch_warnings(m, d, s->warnings_printed);
    if (o->strict && s->warnings_printed > 0) {
        fprintf(stderr, "touche run: stopped at t = %.6g s by the warning above (--strict)\n",
                d->time);
        return EXIT_DIVERGED;
    }
    return EXIT_OK;
}

/* Writes DIR/checkpoint.bin (atomically replaced); returns an exit code. */
static int save_checkpoint(const cli_options* o, const tch_model* m, const tch_data* d) {
    char path[1024];
    tch_error err = {0};
    snprintf(path, sizeof path, "%s/checkpoint.bin", o->out_dir);
    if (tch_data_save_checkpoint(m, d, path, &err) == TCH_OK) return EXIT_OK;
    cli_print_error("cannot write the checkpoint", &err);
    return EXIT_FAILURE_GENERIC;
}

/* Where a run writes (NULL: not asked for). */
typedef struct run_outputs {
    FILE* traj;
    FILE* contacts;
    cli_vtk* vtk;
    cli_gltf* gltf;
    cli_live* live;
    cli_ctrl_file* ctrl;   /* --ctrl: the controls over time */
} run_outputs;

/* Steps to the end, writing every `every` steps (counted from time 0, so that a restored run
 * writes the rows of the run it continues) and a checkpoint every --checkpoint-every.
 * Returns an exit code. */
static int simulate(const cli_options* o, const tch_model* m, tch_data* d,
                    const run_outputs* out, run_stats* s) {
    FILE *traj = out->traj, *contacts = out->contacts;
    cli_vtk* vtk = out->vtk;
    cli_gltf* gltf = out->gltf;
    cli_live* live = out->live;
    cli_ctrl_file* ctrl = out->ctrl;
    long total = run_step_count(o, m);
    cli_progress progress;
    cli_progress_start(&progress, o, "run", total);
    int every = o->every > 0 ? o->every : (int)fmax(1, floor(OUTPUT_PERIOD / m->timestep + 0.5));
    tch_error err = {0};
    double start = cli_now_seconds();
    long first = o->restore ? lround(d->time / m->timestep) : 0;
    long checkpoint_steps = o->checkpoint_every > 0 ? lround(fmax(1, o->checkpoint_every / m->timestep)) : 0;
    for (long step = 0; step < total; ++step) {
        if (interrupted) {
            write_trajectory_rows(traj, m, d); /* the state it stopped at */
            cli_progress_interrupt(&progress);
            fprintf(stderr, "touche run: interrupted at t = %.6g s\n", d->time);
            return EXIT_INTERRUPTED;
        }
        int write = (first + step) % every == 0;
        double t = d->time, energy = write && contacts ? tch_data_energy(m, d) : 0;
        if (write) {
            write_trajectory_rows(traj, m, d);
        }
        if (write && vtk && !cli_vtk_write_state(vtk, step / every, m, d)) {
            return EXIT_FAILURE_GENERIC;
        }
        if (write && gltf && !cli_gltf_write_state(gltf, m, d)) return EXIT_FAILURE_GENERIC;
        if (ctrl) cli_ctrl_file_apply(ctrl, d->time, d->ctrl);
        if (live) cli_live_before_step(live, m, d);
        tch_status status = tch_step(m, d, &err);
        if (status == TCH_OK) {
            track(d, s);
            int code = watch(o, m, d, &progress, s);
            if (code != EXIT_OK) {
                return code;
            }
            if (write && contacts) {
                write_contacts_line(contacts, m, d, t, energy);
            }
            if (write && vtk && !cli_vtk_write_patches(vtk, step / every, d, t)) {
                return EXIT_FAILURE_GENERIC;
            }
        }
        if (status != TCH_OK) {
            cli_progress_interrupt(&progress);
            cli_print_error(status == TCH_ERR_DIVERGED ? "the simulation diverged"
                                                       : "the simulation failed", &err);
            return status == TCH_ERR_DIVERGED ? EXIT_DIVERGED : EXIT_FAILURE_GENERIC;
        }
        s->steps++;
        if (checkpoint_steps > 0 && (first + step + 1) % checkpoint_steps == 0 && save_checkpoint(o, m, d) != EXIT_OK) return EXIT_FAILURE_GENERIC;
        cli_progress_update(&progress, step + 1);
    }
    write_trajectory_rows(traj, m, d);
    if (gltf && !cli_gltf_write_state(gltf, m, d)) return EXIT_FAILURE_GENERIC;
    s->wall = cli_now_seconds() - start;
    cli_progress_end(&progress);
    return EXIT_OK;
}

/* Where the run that stopped part-way kept what it wrote. */
static void print_partial(const cli_options* o) {
    fprintf(stderr, "touche run: the run did not complete; what it wrote up to then is in "
                    "%s/trajectory.partial.csv%s%s%s%s\n",
            o->out_dir, o->no_contacts ? "" : " and ", o->no_contacts ? "" : o->out_dir,
            o->no_contacts ? "" : "/contacts.partial.jsonl", o->vtk_dir ? " (and run.partial.pvd)" : "");
    if (o->gltf_path) {
        char partial[1024];
        cli_partial_path(o->gltf_path, partial, sizeof partial);
        fprintf(stderr, "touche run: and the animation up to then in %s\n", partial);
    }
}

/* DIR/scene.json, the scene's geometry for the viewer (cli/scene_json.c, docs/viewer.md). */
static int write_scene(const cli_options* o, const tch_model* m) {
    cli_output_file scene = {0};
    if (!open_output(&scene, o->out_dir, "scene.json")) return 0;
    int ok = cli_json_scene(scene.f, o->scene, m);
    return cli_finish_output(&scene, ok ? CLI_KEEP : CLI_DISCARD, "run") && ok;
}

/* A scene with keyframes run without --key starts from the poses in the file: says so, since
 * a keyframe is often what sets a scene in motion (examples/newton_cradle.xml's "launch"). */
static void note_unused_keyframes(const cli_options* o, const tch_model* m) {
    if (o->key || o->restore || m->key_count == 0) return;
    fprintf(stderr, "touche run: starting from the poses in the file; the scene's keyframes:");
    for (int k = 0; k < m->key_count; ++k) {
        fprintf(stderr, "%s %s", k ? "," : "", m->key_name[k][0] ? m->key_name[k] : "(unnamed)");
    }
    fprintf(stderr, " (--key NAME starts from one)\n");
}

int cli_cmd_run(const cli_options* options) {
    cli_options o = *options;
    if (!o.out_dir) o.out_dir = "out";
    o.contact_energy = 1;
    cli_session session;
    int code = cli_open_session(&o, 1, &session);
    const tch_model* model = session.model;
    tch_data* data = session.data;
    if (code == EXIT_OK && !cli_make_dir(o.out_dir, "run")) code = EXIT_BAD_INPUT;
    tch_error err = {0};
    if (code == EXIT_OK) note_unused_keyframes(&o, model);
    if (code == EXIT_OK && o.restore && tch_data_load_checkpoint(model, data, o.restore, &err) != TCH_OK) {
        cli_print_error("cannot restore the checkpoint", &err);
        code = EXIT_BAD_INPUT;
    }
    cli_ctrl_file ctrl = {0};
    if (code == EXIT_OK && o.ctrl_file && !cli_ctrl_file_load(&ctrl, o.ctrl_file, model)) {
        code = EXIT_BAD_INPUT;
    }
    if (code == EXIT_OK && o.vtk_dir && !cli_make_dir(o.vtk_dir, "run")) code = EXIT_BAD_INPUT;
    cli_vtk vtk = {0};
    if (code == EXIT_OK && o.vtk_dir && !cli_vtk_start(&vtk, o.vtk_dir, model)) {
        code = EXIT_BAD_INPUT;
    }
    cli_gltf gltf = {0};
    if (code == EXIT_OK && o.gltf_path && !cli_gltf_start(&gltf, o.gltf_path, model)) {
        code = EXIT_BAD_INPUT;
    }
    cli_output_file traj = {0}, contacts = {0};
    if (code == EXIT_OK && (!open_output(&traj, o.out_dir, "trajectory.csv") ||
                            (!o.no_contacts &&
                             !open_output(&contacts, o.out_dir, "contacts.jsonl")))) {
        code = EXIT_BAD_INPUT;
    }
    if (code == EXIT_OK && !write_scene(&o, model)) code = EXIT_FAILURE_GENERIC;
    cli_live* live = NULL;
    if (code == EXIT_OK && o.live_port && !(live = cli_live_start(o.live_port, o.realtime,
                                                                 o.scene, model))) {
        code = EXIT_BAD_INPUT;
    }
    run_stats stats = {0};
    int how = CLI_DISCARD;
    if (code == EXIT_OK) {
        signal(SIGINT, on_interrupt);
        signal(SIGTERM, on_interrupt);
        fprintf(traj.f, "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,wx_B,wy_B,wz_B\n");
        run_outputs outputs = {traj.f, contacts.f, o.vtk_dir ? &vtk : NULL,
                               o.gltf_path ? &gltf : NULL, live, o.ctrl_file ? &ctrl : NULL};
        code = simulate(&o, model, data, &outputs, &stats);
        how = code == EXIT_OK ? CLI_KEEP : CLI_KEEP_PARTIAL; /* the lead-up to a failure */
    }
    int finished = cli_finish_output(&traj, how, "run"); /* every one, whatever the others */
    finished &= cli_finish_output(&contacts, how, "run");
    finished &= cli_vtk_finish(&vtk, how);
    finished &= cli_gltf_finish(&gltf, model, how);
    if (!finished) {
        code = code == EXIT_OK ? EXIT_FAILURE_GENERIC : code;
    } else if (how == CLI_KEEP_PARTIAL) {
        print_partial(&o);
    }
    cli_live_stop(live);
    if (code == EXIT_OK) print_summary(&o, model, data, &stats);
    cli_ctrl_file_free(&ctrl);
    cli_close_session(&session);
    return code;
}
