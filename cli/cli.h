/* The touche command: shared option parsing, scene loading and output helpers.
 * The CLI is the only code that prints; it uses the public API only. */
#pragma once

#include <stdio.h>

#include "touche/touche.h"

/* Exit codes of every command. */
enum { EXIT_OK = 0, EXIT_FAILURE_GENERIC = 1, EXIT_BAD_INPUT = 2, EXIT_DIVERGED = 3,
       EXIT_INTERRUPTED = 130 };

typedef struct cli_options {
    const char* scene;
    double duration;       /* s; <= 0: the command's default */
    double dt;             /* s; <= 0: the scene's */
    int every;             /* write every N-th step; 0: the command's default */
    const char* out_dir;
    const char* vtk_dir;   /* run: also write ParaView files here (cli/vtk.c) */
    const char* key;       /* keyframe name or NULL */
    const char* contact;   /* contact model override or NULL */
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
    int realtime;          /* haptic --realtime: ticks paced on the wall clock */
    double checkpoint_every; /* run --checkpoint-every S: OUT/checkpoint.bin every S of simulated time */
    const char* restore;   /* run --restore FILE: continue from a checkpoint */
} cli_options;

/* One command: name, one-line summary, usage text and its entry point. */
typedef struct cli_command {
    const char* name;
    const char* summary;
    const char* usage;
    int (*run)(const cli_options* options);
} cli_command;

/* Parses argv after the command name into options. Returns EXIT_OK, or EXIT_BAD_INPUT after
 * printing what is wrong; sets *help when --help was given. */
int cli_parse_options(const cli_command* command, int argc, char** argv, cli_options* options,
                      int* help);

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

/* Opens PATH's temporary file; returns 0 after printing why it could not. */
int cli_open_output(cli_output_file* o, const char* path, const char* command);
/* Closes; renames into place when `keep`, else removes. Returns 0 on a write error. */
int cli_finish_output(cli_output_file* o, int keep, const char* command);

/* Creates DIR and its parents; returns 0 after printing why it could not. */
int cli_make_dir(const char* dir, const char* command);

/* Monotonic wall-clock time, s. */
double cli_now_seconds(void);

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
/* Ends the series: run.pvd is kept when `keep`, else removed. */
int cli_vtk_finish(cli_vtk* vtk, int keep);

int cli_cmd_run(const cli_options* options);
int cli_cmd_info(const cli_options* options);
int cli_cmd_query(const cli_options* options);
int cli_cmd_speed(const cli_options* options);
int cli_cmd_export(const cli_options* options);
int cli_cmd_mesh(const cli_options* options);
int cli_cmd_islands(const cli_options* options);
int cli_cmd_haptic(const cli_options* options);
