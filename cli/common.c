#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Most threads --threads accepts (the library's worker pools hold at most 64). */
#define TCH_CLI_MAX_THREADS 64

/* How an option's value is read into its field of cli_options. */
typedef enum option_kind {
    OPTION_FLAG,       /* no value: the int field is set to 1 */
    OPTION_SECONDS,    /* a positive finite number (double) */
    OPTION_COUNT,      /* a whole number from 1 to 1e9 (int or long, by field size) */
    OPTION_THREADS,    /* a whole number from 1 to TCH_CLI_MAX_THREADS (int) */
    OPTION_TEXT,       /* any text (const char*) */
    OPTION_CONTACT,    /* a contact model name (const char*) */
    OPTION_INTEGRATOR, /* an integrator name (const char*) */
    OPTION_SET,        /* TARGET=VALUE, appended to sets (cli/overrides.c checks it) */
} option_kind;

/* One option of the command line. An option may appear several times with different commands
 * when its meaning or default differs between them; adding an option is one entry here (and
 * its field in cli_options). */
typedef struct cli_option {
    const char* name;   /* "--duration" */
    const char* value;  /* what the value is called in the help ("S"); NULL for a flag */
    option_kind kind;
    size_t offset;      /* of its field in cli_options */
    size_t size;        /* of that field */
    unsigned commands;  /* CLI_RUN | ...: the commands it applies to */
    const char* help;
} cli_option;

#define FIELD(f) offsetof(cli_options, f), sizeof(((cli_options*)0)->f)
#define SESSION (CLI_RUN | CLI_QUERY | CLI_SPEED | CLI_ISLANDS | CLI_FIT)
/* The options that change the scene itself, which info then describes. */
#define SCENE (SESSION | CLI_INFO)

static const cli_option OPTIONS[] = {
    {"--duration", "S", OPTION_SECONDS, FIELD(duration), CLI_RUN,
     "simulated time, s (default 5); the step is fixed, so a duration that is not a whole "
     "number of steps ends on the next step (the summary says so)"},
    {"--duration", "S", OPTION_SECONDS, FIELD(duration), CLI_HAPTIC,
     "time to run the loop, s (default 1)"},
    {"--dt", "S", OPTION_SECONDS, FIELD(dt), SCENE,
     "time step, s (default: the scene's)"},
    {"--every", "N", OPTION_COUNT, FIELD(every), CLI_RUN,
     "write every N-th step (default: every 10 ms of simulated time)"},
    {"--every", "N", OPTION_COUNT, FIELD(every), CLI_ISLANDS,
     "write the islands of every N-th step only (default: every step)"},
    {"--steps", "N", OPTION_COUNT, FIELD(steps), CLI_SPEED, "steps to time (default 10000)"},
    {"--steps", "N", OPTION_COUNT, FIELD(steps), CLI_ISLANDS, "steps to run (default 1)"},
    {"--out", "DIR", OPTION_TEXT, FIELD(out_dir), CLI_RUN | CLI_HAPTIC | CLI_SWEEP,
     "output directory (default ./out)"},
    {"--jobs", "N", OPTION_COUNT, FIELD(jobs), CLI_SWEEP,
     "jobs run at once, each in its own process (default: the cores); rows do not depend on N"},
    {"--shard", "I/N", OPTION_TEXT, FIELD(shard), CLI_SWEEP,
     "run the I-th of N contiguous blocks of jobs (0-based; Slurm arrays, GNU parallel) and "
     "write DIR/shard-I-of-N.csv and .jsonl (docs/sweeps.md)"},
    {"--mpi", NULL, OPTION_FLAG, FIELD(mpi), CLI_SWEEP,
     "under mpirun: rank 0 hands out jobs to the other ranks and writes the results"},
    {"--merge", NULL, OPTION_FLAG, FIELD(merge), CLI_SWEEP,
     "write DIR/results.csv and .jsonl from the rows the shards wrote (runs nothing)"},
    {"--vtk", "DIR", OPTION_TEXT, FIELD(vtk_dir), CLI_RUN,
     "also write ParaView files: per written step the bodies, tet meshes and contact patches "
     "(VTK XML), and DIR/run.pvd, their time series"},
    {"--gltf", "FILE", OPTION_TEXT, FIELD(gltf_path), CLI_RUN,
     "also write a glTF 2.0 animation of the bodies at the written states: FILE.gltf (JSON, "
     "buffer embedded) or FILE.glb (binary)"},
    {"--key", "NAME", OPTION_TEXT, FIELD(key), SESSION,
     "start from the scene's keyframe NAME"},
    {"--contact", "MODEL", OPTION_CONTACT, FIELD(contact), SCENE,
     "use MODEL (point, volume, pressure or lcp) for every pair"},
    {"--integrator", "NAME", OPTION_INTEGRATOR, FIELD(integrator), SCENE,
     "use integrator NAME (Euler, RK4, implicit or adaptive) instead of the scene's"},
    {"--set", "T=V", OPTION_SET, FIELD(sets), SCENE,
     "set a contact parameter: PARAM=VALUE the scene default, geom:NAME.PARAM=VALUE a geom "
     "(geom:*.PARAM every geom), pair:A/B.PARAM=VALUE a <pair>, class:NAME.PARAM=VALUE a "
     "default class; PARAM is model, rigid or a "
     "touche: attribute (friction, stiffness, ...); repeatable (docs/cli.md)"},
    {"--no-contacts", NULL, OPTION_FLAG, FIELD(no_contacts), CLI_RUN,
     "do not write contacts.jsonl (the trajectory only)"},
    {"--threads", "N", OPTION_THREADS, FIELD(threads), CLI_RUN | CLI_QUERY | CLI_SPEED,
     "threads a step may use (default 1); results are identical for every N"},
    {"--quiet", NULL, OPTION_FLAG, FIELD(quiet), CLI_RUN | CLI_SPEED | CLI_ISLANDS,
     "no progress on stderr (shown once a command has run for a second: a bar on a terminal, a "
     "line per tenth of the steps otherwise)"},
    {"--strict", NULL, OPTION_FLAG, FIELD(strict), CLI_RUN,
     "stop with exit code 3 at the first warning of the watch (the energy grew without input, "
     "or a body sank past half its size into another)"},
    {"--checkpoint-every", "S", OPTION_SECONDS, FIELD(checkpoint_every), CLI_RUN,
     "write OUT/checkpoint.bin (replaced atomically) every S of simulated time "
     "(docs/checkpoints.md)"},
    {"--ctrl", "FILE", OPTION_TEXT, FIELD(ctrl_file), CLI_RUN,
     "set actuator controls from FILE.csv (header time,<actuator names>; linear in time)"},
    {"--restore", "FILE", OPTION_TEXT, FIELD(restore), CLI_RUN,
     "continue from checkpoint FILE (its time; --duration S more), bit-identical to the run "
     "that wrote it"},
    {"--live", "PORT", OPTION_COUNT, FIELD(live_port), CLI_RUN,
     "serve the viewer at http://127.0.0.1:PORT/ and stream the run to it at 60 Hz; a page "
     "can drag a body through a spring (docs/viewer.md)"},
    {"--realtime", NULL, OPTION_FLAG, FIELD(realtime), CLI_RUN,
     "with --live: pace the simulation on the wall clock (default: as fast as it runs)"},
    {"--data", "DIR", OPTION_TEXT, FIELD(data_dir), CLI_FIT,
     "required: the recordings, DIR/*.csv (time,body,x,y,z,qw,qx,qy,qz[,vx,vy,vz,wx,wy,wz], "
     "as run writes; docs/fit.md)"},
    {"--params", "LIST", OPTION_TEXT, FIELD(params), CLI_FIT,
     "required: the parameters to fit, TARGET[=LO:HI] separated by commas, TARGET as --set "
     "takes it (friction, restitution, stiffness, geom:cube.friction, ...)"},
    {"--holdout", "F", OPTION_TEXT, FIELD(holdout), CLI_FIT,
     "fraction of the recordings held out of the fit to measure its errors (default 0.25; 0: "
     "none)"},
    {"--evals", "N", OPTION_COUNT, FIELD(evaluations), CLI_FIT,
     "most evaluations of the local search after the sweep (default 150)"},
    {"--sweep", "N", OPTION_COUNT, FIELD(sweep_points), CLI_FIT,
     "points per parameter of the coarse sweep (default 9, 6, 4 and 3 for 1, 2, 3 and more "
     "parameters)"},
    {"--threads", "N", OPTION_THREADS, FIELD(threads), CLI_FIT,
     "recordings simulated at once (default: the processors); results are identical for "
     "every N"},
    {"--optimizer", "NAME", OPTION_TEXT, FIELD(optimizer), CLI_FIT,
     "the local search after the sweep: neldermead (default), sbplx or bobyqa (NLopt)"},
    {"--json", NULL, OPTION_FLAG, FIELD(json), CLI_FIT, "print one JSON object"},
    {"--derivatives", NULL, OPTION_FLAG, FIELD(derivatives), CLI_QUERY,
     "also print the step's transition derivatives A = dx'/dx and B = dx'/dctrl at the "
     "state, centred differences with eps 1e-6 in the tangent space (docs/derivatives.md)"},
    {"--keep-touche", NULL, OPTION_FLAG, FIELD(touche_attributes), CLI_EXPORT,
     "keep touche's attributes (the file is then not plain MJCF)"},
    {"--device", "D", OPTION_TEXT, FIELD(device), CLI_HAPTIC,
     "required: scripted:FILE (a pose CSV), playback:FILE (a force log), udp:PORT (a bridged "
     "device, docs/haptics.md; with --realtime), model (a simulated device) or spacemouse (a "
     "6-DOF rate input through libspnav and spacenavd; with --realtime)"},
    {"--rate", "HZ", OPTION_SECONDS, FIELD(rate), CLI_HAPTIC,
     "servo rate (default 1000); the scene's step must be a whole number of servo periods"},
    {"--json", NULL, OPTION_FLAG, FIELD(json), CLI_HAPTIC,
     "print one JSON object (ledger, tick statistics)"},
    {"--no-passivity", NULL, OPTION_FLAG, FIELD(no_passivity), CLI_HAPTIC,
     "the passivity controller only observes"},
    {"--realtime", NULL, OPTION_FLAG, FIELD(realtime), CLI_HAPTIC,
     "pace the ticks on the wall clock (absolute deadlines); default: a simulated clock, "
     "bit-identical force logs"},
};
enum { OPTION_COUNT_ALL = sizeof OPTIONS / sizeof OPTIONS[0] };

static void print_usage_line(FILE* f, const cli_command* command) {
    fprintf(f, "usage: touche %s %s", command->name, command->operands);
    for (int i = 0; i < OPTION_COUNT_ALL; ++i) {
        const cli_option* o = &OPTIONS[i];
        if (o->commands & command->bit) {
            fprintf(f, " [%s%s%s]", o->name, o->value ? " " : "", o->value ? o->value : "");
        }
    }
    fprintf(f, "\n");
}

static int bad_usage(const cli_command* command, const char* format, const char* value) {
    fprintf(stderr, "touche %s: ", command->name);
    fprintf(stderr, format, value);
    fprintf(stderr, "\n");
    print_usage_line(stderr, command);
    return EXIT_BAD_INPUT;
}

/* Prints `text` wrapped at 90 columns (starting at `column`), each line after the first indented by `indent`. */
static void print_wrapped(const char* text, int column, int indent) {
    while (*text) {
        int room = 90 - column, n = (int)strlen(text);
        if (n > room) {
            n = room;
            while (n > 0 && text[n] != ' ') --n;
            if (n == 0) n = room;
        }
        printf("%.*s\n", n, text);
        text += n;
        while (*text == ' ') ++text;
        if (*text) printf("%*s", indent, "");
        column = indent;
    }
}

void cli_print_command_help(const cli_command* command) {
    print_usage_line(stdout, command);
    printf("\n%s.\n", command->summary);
    int any = 0;
    for (int i = 0; i < OPTION_COUNT_ALL; ++i) {
        const cli_option* o = &OPTIONS[i];
        if (!(o->commands & command->bit)) continue;
        if (!any++) printf("\noptions:\n");
        char head[40];
        snprintf(head, sizeof head, "  %s%s%s", o->name, o->value ? " " : "",
                 o->value ? o->value : "");
        printf("%-20s ", head);
        print_wrapped(o->help, 21, 21);
    }
}

static int parse_positive(const char* text, double* out) {
    char* end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v > 0) || !isfinite(v)) {
        return 0;
    }
    *out = v;
    return 1;
}

static int parse_count(const char* text, long most, long* out) {
    char* end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v <= 0 || v > most) {
        return 0;
    }
    *out = v;
    return 1;
}

/* Stores `value` into the option's field; returns EXIT_OK or EXIT_BAD_INPUT. */
static int apply_option(const cli_command* command, const cli_option* opt, const char* value,
                        cli_options* options) {
    char* field = (char*)options + opt->offset;
    long count = 0;
    tch_contact_model model;
    tch_integrator integrator;
    switch (opt->kind) {
    case OPTION_FLAG:
        *(int*)field = 1;
        return EXIT_OK;
    case OPTION_SECONDS:
        if (!parse_positive(value, (double*)field)) {
            fprintf(stderr, "touche %s: %s needs a positive number, got '%s'\n", command->name,
                    opt->name, value);
            return EXIT_BAD_INPUT;
        }
        return EXIT_OK;
    case OPTION_COUNT:
    case OPTION_THREADS:
        if (!parse_count(value, opt->kind == OPTION_THREADS ? TCH_CLI_MAX_THREADS : 1000000000L,
                         &count)) {
            fprintf(stderr, "touche %s: %s needs a whole number from 1 to %ld, got '%s'\n",
                    command->name, opt->name,
                    opt->kind == OPTION_THREADS ? (long)TCH_CLI_MAX_THREADS : 1000000000L, value);
            return EXIT_BAD_INPUT;
        }
        if (opt->size == sizeof(long)) *(long*)field = count; else *(int*)field = (int)count;
        return EXIT_OK;
    case OPTION_CONTACT:
        if (!tch_contact_model_parse(value, &model)) {
            return bad_usage(command, "unknown contact model '%s'; expected point, volume, "
                                      "pressure, lcp or peg", value);
        }
        break;
    case OPTION_INTEGRATOR:
        if (!tch_integrator_parse(value, &integrator)) {
            return bad_usage(command, "unknown integrator '%s'; expected Euler, RK4, implicit "
                                      "or adaptive", value);
        }
        break;
    case OPTION_SET:
        if (options->set_count == CLI_MAX_SETS) {
            return bad_usage(command, "more than 64 --set options (at '%s')", value);
        }
        options->sets[options->set_count++] = value;
        return EXIT_OK;
    case OPTION_TEXT:
        break;
    }
    *(const char**)field = value;
    return EXIT_OK;
}

/* The entry of `name` for `command`; NULL after printing why there is none. */
static const cli_option* find_option(const cli_command* command, const char* name) {
    const cli_option* other = NULL;
    for (int i = 0; i < OPTION_COUNT_ALL; ++i) {
        if (strcmp(OPTIONS[i].name, name) != 0) continue;
        if (OPTIONS[i].commands & command->bit) return &OPTIONS[i];
        other = &OPTIONS[i];
    }
    if (other) {
        bad_usage(command, "option '%s' does not apply to this command (see --help)", name);
    } else {
        bad_usage(command, "unknown option '%s' (see --help)", name);
    }
    return NULL;
}

/* How many words `operands` has ("SCENE OUT.xml": 2). */
static int operand_count(const char* operands) {
    int n = 0;
    for (const char* p = operands; *p; ++p) {
        n += (p == operands || p[-1] == ' ') && *p != ' ';
    }
    return n;
}

int cli_parse_options(const cli_command* command, int argc, char** argv, cli_options* o,
                      int* help) {
    memset(o, 0, sizeof *o);
    *help = 0;
    const char* operands[2] = {NULL, NULL};
    int found = 0, wanted = operand_count(command->operands);
    for (int i = 0; i < argc; ++i) {
        const char* arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            *help = 1;
            return EXIT_OK;
        }
    }
    for (int i = 0; i < argc; ++i) {
        const char* arg = argv[i];
        if (arg[0] == '-' && arg[1] != '\0') {
            const cli_option* opt = find_option(command, arg);
            if (!opt) return EXIT_BAD_INPUT;
            if (opt->value && i + 1 >= argc) {
                return bad_usage(command, "option '%s' needs a value", arg);
            }
            int code = apply_option(command, opt, opt->value ? argv[++i] : NULL, o);
            if (code != EXIT_OK) return code;
        } else if (found < wanted) {
            operands[found++] = arg;
        } else {
            return bad_usage(command, "unexpected argument '%s'", arg);
        }
    }
    if (found < wanted) {
        char missing[64];
        const char* p = command->operands;
        for (int k = 0; k < found; ++k) p = strchr(p, ' ') + 1;
        snprintf(missing, sizeof missing, "%.*s", (int)strcspn(p, " "), p);
        return bad_usage(command, "missing %s", missing);
    }
    o->scene = operands[0];
    o->output = operands[1];
    return EXIT_OK;
}

int cli_count_pair_models(const tch_model* m, int used[TCH_CONTACT_MODEL_END]) {
    int fallbacks = 0;
    for (int a = 0; a < m->geom_count; ++a) {
        for (int b = a + 1; b < m->geom_count; ++b) {
            if (m->body_root[m->geom_body[a]] != m->body_root[m->geom_body[b]]) {
                tch_pair_params p = tch_model_pair_params(m, a, b);
                used[p.model]++;
                fallbacks += p.model != p.requested;
            }
        }
    }
    return fallbacks;
}

int cli_make_dir(const char* dir, const char* command) {
    char path[1024];
    snprintf(path, sizeof path, "%s", dir);
    for (char* p = path + 1; *p; ++p) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "touche %s: cannot create the output directory %s: %s\n", command, dir,
                strerror(errno));
        return 0;
    }
    return 1;
}

void cli_print_error(const char* what, const tch_error* err) {
    fprintf(stderr, "touche: %s: ", what);
    if (err->file[0]) {
        fprintf(stderr, "%s:", err->file);
        if (err->line > 0) fprintf(stderr, "%d:", err->line);
        fprintf(stderr, " ");
    }
    /* The MJCF loader's messages already start with their element (src/io/xml_util.c). */
    if (err->element[0] && err->message[0] != '<') fprintf(stderr, "<%s> ", err->element);
    fprintf(stderr, "%s\n", err->message);
}

/* A scene file ending in .urdf is a URDF robot; package:// paths are looked up in the
 * directories of ROS_PACKAGE_PATH (ROS's convention), else in the robot's own directory's
 * parent. Anything else is MJCF. */
static tch_status load_scene(const char* path, const cli_class_sets* classes, tch_spec** spec,
                             tch_error* err) {
    size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 5, ".urdf") != 0) {
        return tch_mjcf_load_with_classes(path, classes->items, classes->count, spec, err);
    }
    if (classes->count > 0) {
        *spec = NULL;
        *err = (tch_error){.status = TCH_ERR_INVALID_ARGUMENT};
        snprintf(err->file, sizeof err->file, "%s", path);
        snprintf(err->message, sizeof err->message,
                 "--set class:NAME.PARAM: a URDF robot has no default classes");
        return TCH_ERR_INVALID_ARGUMENT;
    }
    const char* packages = getenv("ROS_PACKAGE_PATH");
    return tch_urdf_load(path, packages && packages[0] ? packages : "..", spec, err);
}

static int load_model(const cli_options* o, tch_spec** spec, tch_model** model) {
    tch_error err = {0};
    *model = NULL;
    cli_class_sets classes;
    if (cli_class_sets_collect(o, &classes) != EXIT_OK) return EXIT_BAD_INPUT;
    if (load_scene(o->scene, &classes, spec, &err) != TCH_OK) {
        cli_print_error("cannot load the scene", &err);
        return EXIT_BAD_INPUT;
    }
    for (int i = 0; i < tch_spec_warning_count(*spec); ++i) {
        fprintf(stderr, "touche: warning: %s\n", tch_spec_warning(*spec, i));
    }
    if (o->contact) {
        tch_contact_model m = TCH_CONTACT_INHERIT;
        tch_contact_model_parse(o->contact, &m);
        tch_spec_force_contact_model(*spec, m);
    }
    int code = cli_apply_sets(o, *spec);
    if (code != EXIT_OK) {
        tch_spec_destroy(*spec);
        *spec = NULL;
        return code;
    }
    if (o->spec_hook && !o->spec_hook(*spec, o->spec_hook_user)) {
        tch_spec_destroy(*spec);
        *spec = NULL;
        return EXIT_BAD_INPUT;
    }
    tch_option_def opt = *tch_spec_option(*spec);
    if (o->dt > 0) opt.timestep = o->dt;
    if (o->integrator) tch_integrator_parse(o->integrator, &opt.integrator);
    tch_spec_set_option(*spec, &opt, NULL);
    if (tch_compile(*spec, model, &err) != TCH_OK) {
        cli_print_error("cannot compile the scene", &err);
        if (strstr(err.message, "integrator") && !o->integrator) {
            fprintf(stderr, "touche: (--integrator NAME overrides the scene's integrator)\n");
        }
        tch_spec_destroy(*spec);
        *spec = NULL;
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

static int make_data(const cli_options* o, const tch_model* model, tch_data** data) {
    tch_error err = {0};
    if (tch_data_create(model, data, &err) != TCH_OK) {
        cli_print_error("cannot create the simulation data", &err);
        return EXIT_FAILURE_GENERIC;
    }
    (*data)->contact_energy = o->contact_energy;
    (*data)->thread_count = o->threads;
    if (o->key) {
        int key = tch_model_key_index(model, o->key);
        if (key < 0) {
            fprintf(stderr, "touche: the scene has no keyframe named '%s'\n", o->key);
            tch_data_destroy(*data);
            *data = NULL;
            return EXIT_BAD_INPUT;
        }
        tch_data_reset_key(model, *data, key, &err);
    }
    return EXIT_OK;
}

int cli_open_session(const cli_options* o, int with_data, cli_session* session) {
    *session = (cli_session){NULL, NULL, NULL};
    int code = load_model(o, &session->spec, &session->model);
    if (code == EXIT_OK && with_data) {
        code = make_data(o, session->model, &session->data);
    }
    if (code != EXIT_OK) {
        cli_close_session(session);
    }
    return code;
}

void cli_close_session(cli_session* session) {
    tch_data_destroy(session->data);
    tch_model_destroy(session->model);
    tch_spec_destroy(session->spec);
    *session = (cli_session){NULL, NULL, NULL};
}

double cli_now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void cli_json_vec3(FILE* f, tch_vec3 v) {
    fprintf(f, "[%.17g,%.17g,%.17g]", v.x, v.y, v.z);
}

void cli_json_string(FILE* f, const char* s) {
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void json_geom_name(FILE* f, const tch_model* model, int g) {
    char fallback[32];
    const char* name = model->geom_name[g];
    if (!name[0]) {
        snprintf(fallback, sizeof fallback, "geom%d", g);
        name = fallback;
    }
    cli_json_string(f, name);
}

/* The patch of a patch model: its summary and its polygons (world vertices, pressures). */
static void json_patch(FILE* f, const tch_data* data, const tch_pair_result* p) {
    fprintf(f, ",\"area\":%.17g,\"volume\":%.17g,\"max_pressure\":%.17g,"
               "\"elastic_energy\":%.17g,\"polygon_count\":%d,\"polygons\":[",
            p->area, p->volume, p->max_pressure, p->elastic_energy, p->polygon_count);
    for (int i = 0; i < p->polygon_count; ++i) {
        const tch_contact_polygon* poly = &data->polygons[p->polygon_start + i];
        fprintf(f, "%s{\"n\":", i ? "," : "");
        cli_json_vec3(f, poly->n_W);
        fprintf(f, ",\"vertices\":[");
        for (int v = 0; v < poly->vertex_count; ++v) {
            if (v) fprintf(f, ",");
            cli_json_vec3(f, data->polygon_vertices_W[poly->vertex_start + v]);
        }
        fprintf(f, "],\"pressure\":[");
        for (int v = 0; v < poly->vertex_count; ++v) {
            fprintf(f, "%s%.17g", v ? "," : "", data->polygon_vertex_pressure[poly->vertex_start + v]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "]");
}

/* ,"peg":{"U":..,"I":..,"X":..,"cases":{..},"traps":..}: the pair's peg constraints by type
 * and feature-pair case, and the standard model's trap count (docs/peg.md). */
static void json_peg_summary(FILE* f, const tch_model* model, const tch_data* data,
                             const tch_pair_result* p) {
    static const char* const types[3] = {"U", "I", "X"};
    static const char* const cases[6] = {"vertex-face", "face-vertex", "edge-edge",
                                         "vertex-edge", "edge-vertex", "vertex-vertex"};
    int by_type[3] = {0}, by_case[6] = {0}, traps = 0;
    for (int i = 0; i < p->contact_count; ++i) {
        tch_peg_constraint_info peg;
        if (tch_data_peg_constraint(model, data, p->contact_start + i, &peg, NULL) != TCH_OK) {
            continue;
        }
        for (int t = 0; t < 3; ++t) by_type[t] += strcmp(peg.type, types[t]) == 0;
        for (int k = 0; k < 6; ++k) by_case[k] += strcmp(peg.feature_pair, cases[k]) == 0;
        traps += peg.trapped;
    }
    fprintf(f, ",\"peg\":{\"U\":%d,\"I\":%d,\"X\":%d,\"cases\":{", by_type[0], by_type[1],
            by_type[2]);
    for (int k = 0; k < 6; ++k) fprintf(f, "%s\"%s\":%d", k ? "," : "", cases[k], by_case[k]);
    fprintf(f, "},\"traps\":%d}", traps);
}

static void json_pair(FILE* f, const tch_model* model, const tch_data* data,
                      const tch_pair_result* p) {
    fprintf(f, "{\"geom_a\":");
    json_geom_name(f, model, p->geom_a);
    fprintf(f, ",\"geom_b\":");
    json_geom_name(f, model, p->geom_b);
    fprintf(f, ",\"model\":\"%s\",\"force\":", tch_contact_model_name(p->model));
    cli_json_vec3(f, p->f_W);
    fprintf(f, ",\"torque\":");
    cli_json_vec3(f, p->tau_Wo_W);
    if (p->polygon_count > 0) {
        json_patch(f, data, p);
    }
    if (p->model == TCH_CONTACT_PEG) {
        json_peg_summary(f, model, data, p);
    }
    fprintf(f, ",\"points\":[");
    for (int i = 0; i < p->contact_count; ++i) {
        const tch_contact* c = &data->contacts[p->contact_start + i];
        fprintf(f, "%s{\"p\":", i ? "," : "");
        cli_json_vec3(f, c->p_W);
        fprintf(f, ",\"n\":");
        cli_json_vec3(f, c->n_W);
        fprintf(f, ",\"depth\":%.17g,\"f\":", c->depth);
        cli_json_vec3(f, c->f_W);
        tch_peg_constraint_info peg;
        if (p->model == TCH_CONTACT_PEG &&
            tch_data_peg_constraint(model, data, p->contact_start + i, &peg, NULL) == TCH_OK) {
            fprintf(f, ",\"peg\":{\"type\":\"%s\",\"case\":\"%s\",\"contacts\":%d,"
                       "\"trapped\":%d}", peg.type, peg.feature_pair, peg.contacts, peg.trapped);
        }
        fprintf(f, "}");
    }
    fprintf(f, "]}");
}

void cli_json_pairs(FILE* f, const tch_model* model, const tch_data* data) {
    fprintf(f, "[");
    for (int i = 0; i < data->pair_result_count; ++i) {
        if (i) fprintf(f, ",");
        json_pair(f, model, data, &data->pair_results[i]);
    }
    fprintf(f, "]");
}

int cli_open_output(cli_output_file* o, const char* path, const char* command) {
    snprintf(o->final_path, sizeof o->final_path, "%s", path);
    snprintf(o->temp_path, sizeof o->temp_path, "%s.tmp%ld", o->final_path, (long)getpid());
    o->f = fopen(o->temp_path, "w");
    if (!o->f) {
        fprintf(stderr, "touche %s: cannot write %s: %s\n", command, o->temp_path,
                strerror(errno));
        return 0;
    }
    return 1;
}

void cli_partial_path(const char* path, char* out, size_t size) {
    const char* slash = strrchr(path, '/');
    const char* dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash)) dot = path + strlen(path);
    snprintf(out, size, "%.*s.partial%s", (int)(dot - path), path, dot);
}

int cli_finish_output(cli_output_file* o, int how, const char* command) {
    if (!o->f) return 1;
    int ok = !ferror(o->f);
    ok &= fclose(o->f) == 0;
    o->f = NULL;
    char partial[1100];
    cli_partial_path(o->final_path, partial, sizeof partial);
    const char* target = how == CLI_KEEP_PARTIAL ? partial : o->final_path;
    if (how != CLI_DISCARD && ok && rename(o->temp_path, target) == 0) {
        remove(how == CLI_KEEP_PARTIAL ? o->final_path : partial); /* the stale other one */
        return 1;
    }
    remove(o->temp_path);
    if (how != CLI_DISCARD) fprintf(stderr, "touche %s: could not complete %s\n", command, target);
    return how == CLI_DISCARD;
}
