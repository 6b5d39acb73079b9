/* The touche command: shared option parsing, scene loading and output helpers.
 * The CLI is the only code that prints; it uses the public API only. */
#pragma once

#include <stdio.h>

#include "touche/touche.h"

#include "cli_math.h"

/* Exit codes of every command. */
enum { EXIT_OK = 0, EXIT_FAILURE_GENERIC = 1, EXIT_BAD_INPUT = 2, EXIT_DIVERGED = 3,
       EXIT_INTERRUPTED = 130 };

/* Most --set options one command takes. */
#define CLI_MAX_SETS 64

typedef struct cli_options {
    const char* scene;
    double duration;       /* s; <= 0: the command's default */
    double dt;             /* s; <= 0: the scene's */
    int every;             /* write every N-th step; 0: the command's default */
    const char* out_dir;
    const char* vtk_dir;   /* run: also write ParaView files here (cli/vtk.c) */
    const char* gltf_path; /* run: also write a glTF animation of the bodies (cli/gltf.c) */
    const char* key;       /* keyframe name or NULL */
    const char* contact;   /* contact model override or NULL */
    const char* sets[CLI_MAX_SETS]; /* --set TARGET=VALUE, in order (cli/overrides.c) */
    int set_count;
    int no_contacts;       /* run --no-contacts: do not write contacts.jsonl */
    const char* integrator; /* integrator override (a name tch_integrator_parse knows) or NULL */
    long steps;            /* for speed */
    const char* output;    /* for export-mjcf */
    int touche_attributes; /* export-mjcf --keep-touche */
    int contact_energy;    /* set by run and query: report the pressure model's elastic energy */
    int strict;            /* run --strict: a watch warning stops the run with exit 3 */
    int threads;           /* --threads N: threads a step may use (tch_data.thread_count); 0:
                              the calling thread only. Results are the same for every N. */
    const char* device;    /* haptic --device scripted:FILE|playback:FILE|model */
    double rate;           /* haptic --rate HZ; <= 0: 1000 */
    int json;              /* haptic --json: one JSON object on stdout */
    int no_passivity;      /* haptic --no-passivity: the passivity controller only observes */
    int realtime;          /* haptic and run --realtime: paced on the wall clock */
    double checkpoint_every; /* run --checkpoint-every S: OUT/checkpoint.bin every S of simulated time */
    const char* restore;   /* run --restore FILE: continue from a checkpoint */
    int quiet;             /* --quiet: no progress on stderr (cli/progress.c) */
    int live_port;         /* run --live PORT: serve the viewer and stream the run (cli/live.c) */
    int jobs;              /* sweep --jobs N: processes (default: the cores) */
    const char* shard;     /* sweep --shard I/N */
    int mpi;               /* sweep --mpi */
    int merge;             /* sweep --merge */
    /* Called on the loaded spec after --set and before compiling (touche sweep's changes that
     * --set does not cover); returns 0 after printing why it refused. NULL: none. */
    int (*spec_hook)(tch_spec* spec, const void* user);
    const void* spec_hook_user;
    const char* data_dir;  /* fit --data DIR: the recordings (DIR/NAME.csv) */
    const char* params;    /* fit --params LIST: TARGET[=LO:HI],... to fit */
    const char* holdout;   /* fit --holdout F: the fraction of recordings held out */
    int evaluations;       /* fit --evals N: the local search's budget */
    int sweep_points;      /* fit --sweep N: sweep points per parameter */
    const char* optimizer; /* fit --optimizer NAME: the local search (cli/fit_search.c) */
    int derivatives;       /* query --derivatives: the step's A and B (docs/derivatives.md) */
    const char* ctrl_file; /* run --ctrl FILE.csv: actuator controls over time (cli/ctrl_file.h) */
} cli_options;

/* The commands, as bits: each option (cli/common.c's table) names the commands it applies to. */
enum {
    CLI_RUN = 1 << 0,
    CLI_INFO = 1 << 1,
    CLI_QUERY = 1 << 2,
    CLI_SPEED = 1 << 3,
    CLI_EXPORT = 1 << 4,
    CLI_ISLANDS = 1 << 5,
    CLI_HAPTIC = 1 << 6,
    CLI_MESH = 1 << 7,
    CLI_VIEW = 1 << 8,
    CLI_SWEEP = 1 << 9,
    CLI_FIT = 1 << 10,
};

/* One command: name, its bit, its operands ("SCENE OUT.xml": each one required), one-line
 * summary and its entry point. Its options are those of the table that name its bit. */
typedef struct cli_command {
    const char* name;
    unsigned bit;
    const char* operands;
    const char* summary;
    int (*run)(const cli_options* options);
} cli_command;

/* Parses argv after the command name into options. Returns EXIT_OK, or EXIT_BAD_INPUT after
 * printing what is wrong (an unknown option, one that does not apply to the command, a bad
 * value, a missing or extra operand); sets *help when --help was given. */
int cli_parse_options(const cli_command* command, int argc, char** argv, cli_options* options,
                      int* help);

/* Prints `touche COMMAND --help`: usage, summary and the command's own options. */
void cli_print_command_help(const cli_command* command);

/* What a command works on: the loaded spec, its model and (when asked for) a data. */
typedef struct cli_session {
    tch_spec* spec;
    tch_model* model;
    tch_data* data;
} cli_session;

/* Loads, overrides and compiles the scene and, with `with_data`, creates the data at --key.
 * On failure prints the error and returns the exit code; warnings go to stderr. */
int cli_open_session(const cli_options* options, int with_data, cli_session* session);
/* Frees what the session holds. */
void cli_close_session(cli_session* session);

/* A file written under a temporary name (PATH.tmpPID) and renamed into place only when complete,
 * so that a failed or interrupted command leaves no half-written file. */
typedef struct cli_output_file {
    char final_path[1024];
    char temp_path[1040];
    FILE* f;
} cli_output_file;

/* What becomes of an output file when its command ends. */
enum {
    CLI_DISCARD = 0,      /* removed: the command failed before it wrote anything of use */
    CLI_KEEP = 1,         /* renamed into place (PATH); a stale PATH's partial twin is removed */
    CLI_KEEP_PARTIAL = 2, /* the command stopped part-way: kept as PATH with ".partial" before
                             its extension (trajectory.partial.csv); a stale PATH is removed */
};

/* Opens PATH's temporary file; returns 0 after printing why it could not. */
int cli_open_output(cli_output_file* o, const char* path, const char* command);
/* Closes and does `how` (CLI_DISCARD, CLI_KEEP or CLI_KEEP_PARTIAL). Returns 0 on a write
 * error. */
int cli_finish_output(cli_output_file* o, int how, const char* command);
/* PATH with ".partial" before its extension, into `out`. */
void cli_partial_path(const char* path, char* out, size_t size);

/* Adds to used[model] the geom pairs of bodies that can touch, by the contact model they use;
 * returns how many use another model than they asked for (rigid pressure pairs: point). */
int cli_count_pair_models(const tch_model* m, int used[TCH_CONTACT_MODEL_END]);

/* The --set class:NAME.PARAM=VALUE options, which the MJCF loader applies to the default
 * classes as it reads them (tch_mjcf_load_with_classes). */
typedef struct cli_class_sets {
    tch_mjcf_class_params items[CLI_MAX_SETS];
    int count;
} cli_class_sets;

/* Collects the class targets of the --set options, one entry per class; returns EXIT_OK, or
 * EXIT_BAD_INPUT after printing what is wrong. */
int cli_class_sets_collect(const cli_options* o, cli_class_sets* classes);

/* Applies the other --set options to the loaded spec; returns EXIT_OK, or EXIT_BAD_INPUT
 * after printing what is wrong. */
int cli_apply_sets(const cli_options* o, tch_spec* spec);

/* Applies one TARGET=VALUE to the spec, as --set does; `quiet` leaves out the note that geoms
 * or pairs set their own value of a scene default. Returns EXIT_OK, or EXIT_BAD_INPUT after
 * printing what is wrong. */
int cli_apply_set(tch_spec* spec, const char* set, int quiet);

/* Creates DIR and its parents; returns 0 after printing why it could not. */
int cli_make_dir(const char* dir, const char* command);

/* run --gltf FILE (cli/gltf.c): a glTF 2.0 animation of the bodies at the written states. */
typedef struct cli_gltf {
    char path[1024];
    int binary;            /* FILE.glb; else FILE.gltf with the buffer embedded */
    int bodies;            /* the model's bodies but the world */
    long states;           /* written states so far */
    struct bytes* poses;   /* per state: the time, then per body x y z qx qy qz qw (floats) */
} cli_gltf;

/* Checks FILE's extension; returns 0 after printing what is wrong. */
int cli_gltf_start(cli_gltf* gltf, const char* path, const tch_model* model);
/* Keeps the data's time and body poses; returns 0 after printing (out of memory). */
int cli_gltf_write_state(cli_gltf* gltf, const tch_model* model, const tch_data* data);
/* Writes the file (`how`: CLI_KEEP, CLI_KEEP_PARTIAL or CLI_DISCARD) and frees the poses; a
 * zeroed cli_gltf may be finished without having been started. Returns 0 on a write error. */
int cli_gltf_finish(cli_gltf* gltf, const tch_model* model, int how);

/* Receives a geom's surface (cli_geom_surface): its points in the geom frame, numbered from 0
 * in the order given, and its polygons as counter-clockwise lists of those numbers. */
typedef struct cli_surface_visitor {
    void (*point)(void* context, tch_vec3 p_G);
    void (*polygon)(void* context, const int* points, int count);
    void* context;
} cli_surface_visitor;

/* Emits geom g's surface (cli/surface.c). */
void cli_geom_surface(const tch_model* m, int g, const cli_surface_visitor* visitor);

/* Monotonic wall-clock time, s. */
double cli_now_seconds(void);

/* Progress of a long command on stderr (cli/progress.c): shown once the command has run a
 * second, as a bar on a terminal or a line per tenth otherwise; off with --quiet. */
typedef struct cli_progress {
    int enabled, tty, shown, last_tenth;
    const char* command;
    long total;
    double start, drawn, delay;
} cli_progress;

void cli_progress_start(cli_progress* p, const cli_options* o, const char* command, long total);
/* `done` of the total steps are done (cheap: looks at the clock every 64 steps). */
void cli_progress_update(cli_progress* p, long done);
/* Ends the bar's line before a message is printed; the bar starts a new line when redrawn. */
void cli_progress_interrupt(cli_progress* p);
/* Ends the bar's line at the end of the work. */
void cli_progress_end(cli_progress* p);

/* Prints "touche: <file>:<line>: <element>: message" for an error. */
void cli_print_error(const char* what, const tch_error* err);

/* Writes a 3-vector as a JSON array with round-trip precision. */
void cli_json_vec3(FILE* f, tch_vec3 v);
/* Writes a JSON string literal (quotes and escapes). */
void cli_json_string(FILE* f, const char* s);
/* Writes the contact pairs of `data` as a JSON array. */
void cli_json_pairs(FILE* f, const tch_model* model, const tch_data* data);

/* Prints the watch's warnings of `data` from the `printed`-th on, one line each (the library
 * keeps each kind and pair once); returns how many it has printed in all. */
int cli_print_watch_warnings(const tch_model* model, const tch_data* data, int printed);
/* Prints the watch's account of a run: each contact model's deepest penetration, the energy
 * against its start plus the work put in, and the warnings. */
void cli_print_watch_summary(const tch_data* data);

/* run --vtk DIR (cli/vtk.c): per written step, the bodies' surfaces, the pressure model's tet
 * meshes with their pressure fields and the contact patches as VTK XML files, and DIR/run.pvd,
 * their time series. Each function returns 0 after printing why it could not write. */
typedef struct cli_vtk {
    const char* dir;
    int has_tets;        /* some geom is compliant for the pressure model */
    cli_output_file pvd; /* DIR/run.pvd, completed by cli_vtk_finish */
} cli_vtk;

/* Opens the series (a zeroed cli_vtk may be finished without having been started). */
int cli_vtk_start(cli_vtk* vtk, const char* dir, const tch_model* model);
/* The bodies and tet meshes of data's current state, as written step `index`. */
int cli_vtk_write_state(cli_vtk* vtk, long index, const tch_model* model, const tch_data* data);
/* The contact patches of the step just taken from time t. */
int cli_vtk_write_patches(cli_vtk* vtk, long index, const tch_data* data, double t);
/* Ends the series: run.pvd is kept, kept as run.partial.pvd or removed (`how`, as
 * cli_finish_output). */
int cli_vtk_finish(cli_vtk* vtk, int how);

int cli_cmd_run(const cli_options* options);
int cli_cmd_info(const cli_options* options);
int cli_cmd_query(const cli_options* options);
int cli_cmd_speed(const cli_options* options);
int cli_cmd_export(const cli_options* options);
int cli_cmd_mesh(const cli_options* options);
int cli_cmd_islands(const cli_options* options);
int cli_cmd_haptic(const cli_options* options);
int cli_cmd_view(const cli_options* options);
int cli_cmd_sweep(const cli_options* options);  /* cli/sweep.c */
int cli_cmd_fit(const cli_options* options);

/* query --derivatives (cli/derivatives_output.c): writes ,"derivatives":{...} with the step's
 * centred transition derivatives A and B at the data's state, which it leaves as it was.
 * Returns an exit code after printing why it could not. */
int cli_json_derivatives(FILE* f, const tch_model* model, tch_data* data);
