#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Most threads --threads accepts (the library's worker pools hold at most 64). */
#define TCH_CLI_MAX_THREADS 64

static int bad_usage(const cli_command* command, const char* format, const char* value) {
    fprintf(stderr, "touche %s: ", command->name);
    fprintf(stderr, format, value);
    fprintf(stderr, "\nusage: %s\n", command->usage);
    return EXIT_BAD_INPUT;
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

static int parse_count(const char* text, long* out) {
    char* end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v <= 0) {
        return 0;
    }
    *out = v;
    return 1;
}

/* Applies one "--flag value" pair; returns EXIT_OK or EXIT_BAD_INPUT. */
static int apply_flag(const cli_command* command, const char* flag, const char* value,
                      cli_options* o) {
    long count = 0;
    if (strcmp(flag, "--duration") == 0) {
        return parse_positive(value, &o->duration)
                   ? EXIT_OK
                   : bad_usage(command, "--duration needs a positive number of seconds, got '%s'", value);
    }
    if (strcmp(flag, "--dt") == 0) {
        return parse_positive(value, &o->dt)
                   ? EXIT_OK
                   : bad_usage(command, "--dt needs a positive number of seconds, got '%s'", value);
    }
    if (strcmp(flag, "--every") == 0 || strcmp(flag, "--steps") == 0) {
        if (!parse_count(value, &count) || count > 1000000000L) {
            return bad_usage(command, "expected a positive whole number, got '%s'", value);
        }
        if (flag[2] == 'e') o->every = (int)count; else o->steps = count;
        return EXIT_OK;
    }
    if (strcmp(flag, "--threads") == 0) {
        if (!parse_count(value, &count) || count > TCH_CLI_MAX_THREADS) {
            return bad_usage(command,
                             "--threads needs a whole number of threads from 1 to 64 (the "
                             "pressure model computes large contact surfaces on them, with the "
                             "same results for every count), got '%s'",
                             value);
        }
        o->threads = (int)count;
        return EXIT_OK;
    }
    if (strcmp(flag, "--rate") == 0) {
        return parse_positive(value, &o->rate)
                   ? EXIT_OK
                   : bad_usage(command, "--rate needs a positive number of ticks per second, got '%s'", value);
    }
    if (strcmp(flag, "--checkpoint-every") == 0) {
        return parse_positive(value, &o->checkpoint_every) ? EXIT_OK : bad_usage(command, "--checkpoint-every needs a positive number of seconds, got '%s'", value);
    }
    if (strcmp(flag, "--restore") == 0) { o->restore = value; return EXIT_OK; }
    if (strcmp(flag, "--device") == 0) { o->device = value; return EXIT_OK; }
    if (strcmp(flag, "--out") == 0) { o->out_dir = value; return EXIT_OK; }
    if (strcmp(flag, "--vtk") == 0) { o->vtk_dir = value; return EXIT_OK; }
    if (strcmp(flag, "--key") == 0) { o->key = value; return EXIT_OK; }
    if (strcmp(flag, "--contact") == 0) {
        tch_contact_model m;
        if (!tch_contact_model_parse(value, &m)) {
            return bad_usage(command,
                             "unknown contact model '%s'; expected point, volume, pressure, lcp or peg",
                             value);
        }
        o->contact = value;
        return EXIT_OK;
    }
    return bad_usage(command, "unknown option '%s'", flag);
}

static int takes_value(const char* flag) {
    static const char* const flags[] = {"--duration", "--dt", "--every", "--out",
                                        "--key", "--contact", "--steps", "--vtk",
                                        "--threads", "--device", "--rate",
                                        "--checkpoint-every", "--restore"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; ++i) {
        if (strcmp(flag, flags[i]) == 0) return 1;
    }
    return 0;
}

int cli_parse_options(const cli_command* command, int argc, char** argv, cli_options* o,
                      int* help) {
    memset(o, 0, sizeof *o);
    *help = 0;
    const char* positional[2] = {NULL, NULL};
    int npositional = 0;
    for (int i = 0; i < argc; ++i) {
        const char* arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            *help = 1;
            return EXIT_OK;
        }
        if (strcmp(arg, "--keep-touche") == 0) {
            o->touche_attributes = 1;
        } else if (strcmp(arg, "--strict") == 0) {
            o->strict = 1;
        } else if (strcmp(arg, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(arg, "--no-passivity") == 0) {
            o->no_passivity = 1;
        } else if (strcmp(arg, "--realtime") == 0) {
            o->realtime = 1;
        } else if (takes_value(arg)) {
            if (i + 1 >= argc) return bad_usage(command, "option '%s' needs a value", arg);
            int code = apply_flag(command, arg, argv[++i], o);
            if (code != EXIT_OK) return code;
        } else if (arg[0] == '-' && arg[1] == '-') {
            return bad_usage(command, "unknown option '%s'", arg);
        } else if (npositional < 2) {
            positional[npositional++] = arg;
        } else {
            return bad_usage(command, "unexpected argument '%s'", arg);
        }
    }
    if (!positional[0]) return bad_usage(command, "missing the scene file%s", "");
    o->scene = positional[0];
    o->output = positional[1];
    return EXIT_OK;
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
    if (err->element[0]) fprintf(stderr, "<%s> ", err->element);
    fprintf(stderr, "%s\n", err->message);
}

/* A scene file ending in .urdf is a URDF robot; package:// paths are looked up in the
 * directories of ROS_PACKAGE_PATH (ROS's convention), else in the robot's own directory's
 * parent. Anything else is MJCF. */
static tch_status load_scene(const char* path, tch_spec** spec, tch_error* err) {
    size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 5, ".urdf") != 0) {
        return tch_mjcf_load(path, spec, err);
    }
    const char* packages = getenv("ROS_PACKAGE_PATH");
    return tch_urdf_load(path, packages && packages[0] ? packages : "..", spec, err);
}

static int load_model(const cli_options* o, tch_spec** spec, tch_model** model) {
    tch_error err = {0};
    *model = NULL;
    if (load_scene(o->scene, spec, &err) != TCH_OK) {
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
    if (o->dt > 0) {
        tch_option_def opt = *tch_spec_option(*spec);
        opt.timestep = o->dt;
        tch_spec_set_option(*spec, &opt, NULL);
    }
    if (tch_compile(*spec, model, &err) != TCH_OK) {
        cli_print_error("cannot compile the scene", &err);
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
    fprintf(f, ",\"points\":[");
    for (int i = 0; i < p->contact_count; ++i) {
        const tch_contact* c = &data->contacts[p->contact_start + i];
        fprintf(f, "%s{\"p\":", i ? "," : "");
        cli_json_vec3(f, c->p_W);
        fprintf(f, ",\"n\":");
        cli_json_vec3(f, c->n_W);
        fprintf(f, ",\"depth\":%.17g,\"f\":", c->depth);
        cli_json_vec3(f, c->f_W);
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

int cli_finish_output(cli_output_file* o, int keep, const char* command) {
    if (!o->f) return 1;
    int ok = !ferror(o->f);
    ok &= fclose(o->f) == 0;
    o->f = NULL;
    if (keep && ok && rename(o->temp_path, o->final_path) == 0) return 1;
    remove(o->temp_path);
    if (keep) fprintf(stderr, "touche %s: could not complete %s\n", command, o->final_path);
    return !keep;
}
