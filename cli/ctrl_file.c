/* `touche run --ctrl FILE.csv`: actuator controls from a CSV file (cli/ctrl_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "ctrl_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CTRL_LINE_SIZE = 8192 };

static int fail(const char* path, int line, const char* message, const char* detail) {
    fprintf(stderr, "touche: %s:%d: %s%s\n", path, line, message, detail ? detail : "");
    return 0;
}

/* Trims the line's end (newline, carriage return, spaces). */
static void trim_end(char* s) {
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t')) {
        s[--n] = '\0';
    }
}

static int is_blank_or_comment(const char* s) {
    s += strspn(s, " \t");
    return *s == '\0' || *s == '#';
}

/* The header: time, then actuator names, each an actuator of the model once. */
static int read_header(cli_ctrl_file* c, const tch_model* m, char* line, const char* path,
                       int number) {
    char* save = NULL;
    char* field = strtok_r(line, ",", &save);
    if (!field || strcmp(field + strspn(field, " \t"), "time") != 0) {
        return fail(path, number, "the header must start with 'time' (expected time,<actuator "
                                  "names...>)", NULL);
    }
    c->actuator = calloc((size_t)m->actuator_count + 1, sizeof *c->actuator);
    if (!c->actuator) {
        return fail(path, number, "out of memory", NULL);
    }
    while ((field = strtok_r(NULL, ",", &save)) != NULL) {
        field += strspn(field, " \t");
        trim_end(field);
        int a = tch_model_actuator_index(m, field);
        if (a < 0) {
            char detail[160];
            snprintf(detail, sizeof detail, "'%s' (expected the name of an actuator)", field);
            return fail(path, number, "no actuator named ", detail);
        }
        for (int k = 0; k < c->columns; ++k) {
            if (c->actuator[k] == a) {
                return fail(path, number, "actuator named twice: ", field);
            }
        }
        if (c->columns == m->actuator_count) {
            return fail(path, number, "more columns than actuators", NULL);
        }
        c->actuator[c->columns++] = a;
    }
    if (c->columns == 0) {
        return fail(path, number, "no actuator column (expected time,<actuator names...>)",
                    NULL);
    }
    return 1;
}

/* One row: time and a value per column, finite, the time after the last row's. */
static int read_row(cli_ctrl_file* c, char* line, const char* path, int number) {
    size_t width = (size_t)c->columns + 1;
    if (c->rows == c->capacity) {
        int capacity = 2 * c->capacity + 16;
        double* grown = realloc(c->values, (size_t)capacity * width * sizeof *grown);
        if (!grown) {
            return fail(path, number, "out of memory", NULL);
        }
        c->values = grown;
        c->capacity = capacity;
    }
    double* row = c->values + (size_t)c->rows * width;
    char* cursor = line;
    for (size_t k = 0; k < width; ++k) {
        char* end = NULL;
        errno = 0;
        row[k] = strtod(cursor, &end);
        if (end == cursor || errno != 0 || !isfinite(row[k])) {
            return fail(path, number, "expected a finite number in column ",
                        k == 0 ? "time" : "of an actuator");
        }
        end += strspn(end, " \t");
        if (k + 1 < width && *end != ',') {
            return fail(path, number, "too few columns (expected one value per header name)",
                        NULL);
        }
        if (k + 1 == width && *end != '\0') {
            return fail(path, number, "too many columns (expected one value per header name)",
                        NULL);
        }
        cursor = end + 1;
    }
    if (c->rows > 0 && !(row[0] > c->values[(size_t)(c->rows - 1) * width])) {
        return fail(path, number, "time must increase from row to row", NULL);
    }
    c->rows++;
    return 1;
}

int cli_ctrl_file_load(cli_ctrl_file* c, const char* path, const tch_model* m) {
    memset(c, 0, sizeof *c);
    FILE* f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "touche: cannot open the control file %s: %s\n", path, strerror(errno));
        return 0;
    }
    char line[CTRL_LINE_SIZE];
    int number = 0, ok = 1, header = 0;
    while (ok && fgets(line, sizeof line, f)) {
        number++;
        if (strlen(line) == sizeof line - 1 && line[sizeof line - 2] != '\n') {
            ok = fail(path, number, "line too long", NULL);
            break;
        }
        trim_end(line);
        if (is_blank_or_comment(line)) {
            continue;
        }
        ok = header ? read_row(c, line, path, number) : read_header(c, m, line, path, number);
        header = 1;
    }
    fclose(f);
    if (ok && c->rows == 0) {
        ok = fail(path, number, "no rows (expected time,<actuator names...> then rows of "
                                "numbers)", NULL);
    }
    if (!ok) {
        cli_ctrl_file_free(c);
    }
    return ok;
}

void cli_ctrl_file_apply(cli_ctrl_file* c, double t, tch_real* ctrl) {
    size_t width = (size_t)c->columns + 1;
    int hi = c->cursor; /* steps go forward in time: search from the last step's row */
    while (hi > 0 && c->values[(size_t)(hi - 1) * width] >= t) {
        hi--;
    }
    while (hi < c->rows && c->values[(size_t)hi * width] < t) {
        hi++;
    }
    c->cursor = hi;
    const double* b = c->values + (size_t)(hi < c->rows ? hi : c->rows - 1) * width;
    const double* a = hi > 0 && hi < c->rows ? b - width : b;
    double s = b[0] > a[0] ? (t - a[0]) / (b[0] - a[0]) : 0;
    for (int k = 0; k < c->columns; ++k) {
        ctrl[c->actuator[k]] = a[k + 1] + s * (b[k + 1] - a[k + 1]);
    }
}

void cli_ctrl_file_free(cli_ctrl_file* c) {
    free(c->actuator);
    free(c->values);
    memset(c, 0, sizeof *c);
}
