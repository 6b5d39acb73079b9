/* touche query --derivatives: the step's transition derivatives at the queried state
 * (touche/derivatives.h, docs/derivatives.md) as JSON. */
#include <stdlib.h>

#include "cli.h"

static void json_matrix(FILE* f, const tch_real* a, int rows, int columns) {
    fprintf(f, "[");
    for (int i = 0; i < rows; ++i) {
        fprintf(f, "%s[", i ? "," : "");
        for (int j = 0; j < columns; ++j) fprintf(f, "%s%.17g", j ? "," : "", a[i * columns + j]);
        fprintf(f, "]");
    }
    fprintf(f, "]");
}

int cli_json_derivatives(FILE* f, const tch_model* m, tch_data* d) {
    int nx = 2 * m->nv, nu = m->actuator_count;
    tch_real* A = malloc(((size_t)nx * (size_t)nx + (size_t)nx * (size_t)nu + 1) * sizeof *A);
    if (!A) return EXIT_FAILURE_GENERIC;
    tch_real* B = A + (size_t)nx * (size_t)nx;
    tch_error err = {0};
    if (tch_transition_fd(m, d, TCH_FD_DEFAULT_EPS, TCH_FD_CENTERED, A, B, &err) != TCH_OK) {
        cli_print_error("cannot take the derivatives", &err);
        free(A);
        return err.status == TCH_ERR_UNSUPPORTED ? EXIT_BAD_INPUT : EXIT_FAILURE_GENERIC;
    }
    fprintf(f, ",\"derivatives\":{\"scheme\":\"centered\",\"eps\":%g,\"nx\":%d,\"nu\":%d,\"A\":",
            TCH_FD_DEFAULT_EPS, nx, nu);
    json_matrix(f, A, nx, nx);
    fprintf(f, ",\"B\":");
    json_matrix(f, B, nx, nu);
    fprintf(f, "}");
    free(A);
    return EXIT_OK;
}
