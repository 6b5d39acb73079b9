/* `touche run --ctrl FILE.csv`: actuator controls over time (docs/cli.md).
 *
 * The file is CSV: a header `time,NAME,...` naming actuators of the scene (each at most once),
 * then rows of numbers, time strictly increasing; blank lines and lines starting with '#' are
 * skipped. Before each step the named actuators' ctrl is interpolated linearly in time between
 * the rows around the step's start (held at the first row's values before it and at the last
 * row's after it); the others keep theirs (a keyframe's, or 0). Errors name the file and line.
 */
#pragma once

#include "touche/touche.h"

typedef struct cli_ctrl_file {
    int columns;    /* actuator columns */
    int* actuator;  /* [columns] the model's actuator of each column */
    int rows, capacity;
    double* values; /* [rows][columns + 1]: time, then the controls */
    int cursor;     /* the first row at or after the last time applied */
} cli_ctrl_file;

/* Reads and checks the file against the model's actuators. Returns 1, or 0 after printing
 * "touche: FILE:LINE: what is wrong" on stderr. */
int cli_ctrl_file_load(cli_ctrl_file* c, const char* path, const tch_model* m);
/* ctrl[actuator] of the file's columns at time t (linear interpolation). */
void cli_ctrl_file_apply(cli_ctrl_file* c, double t, tch_real* ctrl);
void cli_ctrl_file_free(cli_ctrl_file* c);
