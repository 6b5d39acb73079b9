/* touche islands: the contact problems the lcp model solves in a run, one JSON line per island
 * (tch_data_observe_islands; docs/contact-lcp.md, "Island problems"), for solver research:
 *
 *   {"step":k,"time":t,"island":i,"path":"pgs","n":n,"residual":r,
 *    "M":[n*n, row-major],"q":[n],"z":[n],            the problem w = M z + q, the impulses
 *    "lo":[n],"hi":[n],"normal_index":[n]}             box form only; null: an infinite bound
 *
 * Steps 1 .. --steps (default 1); with --every N only every N-th step's islands are written.
 * The file is written under a temporary name and renamed when the run completes. */
#include <math.h>
#include <stdlib.h>

#include "cli.h"
#include "constraint_output.h"

typedef struct island_writer {
    FILE* f;
    long step;
    double time;
    int island;       /* islands written in this step */
    int writing;      /* this step's islands are written */
    long written;
} island_writer;

/* "name":[x0,x1,...] with round-trip precision; non-finite values (infinite bounds) as null. */
static void write_reals(FILE* f, const char* name, const tch_real* x, long count) {
    fprintf(f, ",\"%s\":[", name);
    for (long i = 0; i < count; ++i) {
        if (isfinite(x[i])) {
            fprintf(f, "%s%.17g", i ? "," : "", x[i]);
        } else {
            fprintf(f, "%snull", i ? "," : "");
        }
    }
    fputc(']', f);
}

static void write_ints(FILE* f, const char* name, const int* x, long count) {
    fprintf(f, ",\"%s\":[", name);
    for (long i = 0; i < count; ++i) {
        fprintf(f, "%s%d", i ? "," : "", x[i]);
    }
    fputc(']', f);
}

static void write_island(const tch_island_problem* p, void* user) {
    island_writer* w = user;
    if (!w->writing) {
        return;
    }
    long n = p->n;
    fprintf(w->f, "{\"step\":%ld,\"time\":%.17g,\"island\":%d,\"path\":\"%s\",\"n\":%ld,"
                  "\"residual\":%.17g",
            w->step, w->time, w->island++, cli_constraint_path_name(p->path), n, p->residual);
    write_reals(w->f, "M", p->matrix, n * n);
    write_reals(w->f, "q", p->q, n);
    write_reals(w->f, "z", p->z, n);
    if (p->lo) {
        write_reals(w->f, "lo", p->lo, n);
        write_reals(w->f, "hi", p->hi, n);
        write_ints(w->f, "normal_index", p->normal_index, n);
    }
    fputs("}\n", w->f);
    w->written++;
}

/* Steps the session's scene and writes the islands of the steps asked for; returns the exit
 * code. */
static int write_islands(const cli_options* o, cli_session* session, FILE* f) {
    island_writer w = {f, 0, 0, 0, 0, 0};
    const long steps = o->steps > 0 ? o->steps : 1, every = o->every > 0 ? o->every : 1;
    tch_data_observe_islands(session->data, write_island, &w);
    cli_progress progress;
    cli_progress_start(&progress, o, "islands", steps);
    for (long k = 1; k <= steps; ++k) {
        tch_error err = {0};
        w.step = k;
        w.time = session->data->time;
        w.island = 0;
        w.writing = k % every == 0;
        if (tch_step(session->model, session->data, &err) != TCH_OK) {
            cli_progress_interrupt(&progress);
            cli_print_error("the simulation failed", &err);
            return EXIT_DIVERGED;
        }
        cli_progress_update(&progress, k);
    }
    cli_progress_end(&progress);
    fprintf(stderr, "touche islands: %ld island problems of %ld steps\n", w.written, steps);
    return EXIT_OK;
}

static int has_lcp_pairs(const tch_model* m) {
    int used[TCH_CONTACT_MODEL_END] = {0};
    cli_count_pair_models(m, used);
    return used[TCH_CONTACT_LCP] > 0;
}

int cli_cmd_islands(const cli_options* o) {
    cli_session session;
    int code = cli_open_session(o, 1, &session);
    if (code == EXIT_OK && !has_lcp_pairs(session.model)) {
        fprintf(stderr, "touche islands: %s has no pair that uses the lcp model, so there are no "
                        "island problems (--contact lcp makes every pair use it)\n", o->scene);
        code = EXIT_BAD_INPUT;
    }
    cli_output_file out = {0};
    if (code == EXIT_OK && !cli_open_output(&out, o->output, "islands")) {
        code = EXIT_BAD_INPUT;
    }
    if (code == EXIT_OK) {
        code = write_islands(o, &session, out.f);
    }
    if (!cli_finish_output(&out, code == EXIT_OK, "islands") && code == EXIT_OK) {
        code = EXIT_FAILURE_GENERIC;
    }
    if (code == EXIT_OK) {
        fprintf(stderr, "touche islands: wrote %s\n", o->output);
    }
    cli_close_session(&session);
    return code;
}
