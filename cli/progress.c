/* Progress of a long command on stderr (run, speed, islands): nothing for the first second,
 * then a bar redrawn in place on a terminal, or a line at each tenth of the work when stderr is
 * a file or a pipe (a log stays readable). --quiet turns it off. Never written into data files:
 * the commands write those to their own files and stdout. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

/* Nothing is shown before a command has run this long, s (the environment variable
 * TOUCHE_PROGRESS_DELAY changes it: the tests show the progress of short runs with 0). */
static const double PROGRESS_DELAY = 1.0;
/* Least time between two redraws of the bar, s. */
static const double PROGRESS_REDRAW = 0.1;

static double progress_delay(void) {
    const char* text = getenv("TOUCHE_PROGRESS_DELAY");
    char* end = NULL;
    double delay = text ? strtod(text, &end) : PROGRESS_DELAY;
    return text && end != text && *end == '\0' && delay >= 0 ? delay : PROGRESS_DELAY;
}

void cli_progress_start(cli_progress* p, const cli_options* o, const char* command, long total) {
    *p = (cli_progress){.enabled = !o->quiet && total > 0, .tty = isatty(fileno(stderr)),
                        .command = command, .total = total, .start = cli_now_seconds(),
                        .delay = progress_delay()};
}

static void draw_bar(cli_progress* p, long done, double elapsed) {
    enum { WIDTH = 40 };
    double fraction = (double)done / (double)p->total;
    int filled = (int)(fraction * WIDTH);
    double left = done > 0 ? elapsed * (double)(p->total - done) / (double)done : 0;
    fprintf(stderr, "\r[%.*s%*s] %3d%%  %.0f s left ", filled,
            "========================================", WIDTH - filled, "",
            (int)(100.0 * fraction), left);
    p->shown = 1;
}

static void write_line(cli_progress* p, long done, double elapsed) {
    int tenth = (int)(10 * done / p->total);
    if (tenth <= p->last_tenth) return;
    p->last_tenth = tenth;
    fprintf(stderr, "touche %s: %d%% (%ld of %ld steps, %.1f s wall)\n", p->command, 10 * tenth,
            done, p->total, elapsed);
}

void cli_progress_update(cli_progress* p, long done) {
    if (!p->enabled || (done % 64 != 0 && done != p->total)) return;
    double now = cli_now_seconds(), elapsed = now - p->start;
    if (elapsed < p->delay) return;
    if (!p->tty) {
        write_line(p, done, elapsed);
    } else if (now - p->drawn >= PROGRESS_REDRAW || done == p->total) {
        draw_bar(p, done, elapsed);
        p->drawn = now;
    }
}

void cli_progress_interrupt(cli_progress* p) {
    if (p->shown) fputc('\n', stderr); /* a message goes on a line of its own */
    p->shown = 0;
}

void cli_progress_end(cli_progress* p) { cli_progress_interrupt(p); }
