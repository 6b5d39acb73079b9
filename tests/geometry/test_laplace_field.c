/* Laplace pressure fields (Elandt et al., eq. 4) solved with CHOLMOD. */
#include <stdlib.h>

#include "geometry/laplace_field.h"
#include "math/vec.h"
#include "test.h"

/* A unit cube [0,1]^3 cut into n^3 cells of 6 tets each (Kuhn triangulation, all positively
 * oriented). Returns the vertex and tet counts; arrays are malloc'ed. */
static void cube_grid(int n, tch_vec3** vertices, int* vertex_count, int (**tets)[4],
                      int* tet_count) {
    int m = n + 1;
    *vertex_count = m * m * m;
    *vertices = malloc((size_t)*vertex_count * sizeof **vertices);
    for (int k = 0; k < m; ++k)
        for (int j = 0; j < m; ++j)
            for (int i = 0; i < m; ++i)
                (*vertices)[(k * m + j) * m + i] = (tch_vec3){(double)i / n, (double)j / n, (double)k / n};
    /* The six paths from corner 0 to corner 7 of a cell, each a tet. */
    static const int paths[6][3] = {{1, 2, 4}, {1, 4, 2}, {2, 1, 4}, {2, 4, 1}, {4, 1, 2}, {4, 2, 1}};
    *tet_count = 6 * n * n * n;
    *tets = malloc((size_t)*tet_count * sizeof **tets);
    int t = 0;
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
                for (int p = 0; p < 6; ++p) {
                    int corner = 0, ids[4];
                    for (int s = 0; s <= 3; ++s) {
                        if (s > 0) corner |= paths[p][s - 1];
                        ids[s] = ((k + (corner >> 2 & 1)) * m + (j + (corner >> 1 & 1))) * m +
                                 (i + (corner & 1));
                    }
                    tch_vec3 a = (*vertices)[ids[0]], b = (*vertices)[ids[1]],
                             c = (*vertices)[ids[2]], d = (*vertices)[ids[3]];
                    double six_v = tch_v3_dot(tch_v3_sub(b, a),
                                              tch_v3_cross(tch_v3_sub(c, a), tch_v3_sub(d, a)));
                    if (six_v < 0) {
                        int tmp = ids[2];
                        ids[2] = ids[3];
                        ids[3] = tmp;
                    }
                    for (int s = 0; s < 4; ++s) (*tets)[t][s] = ids[s];
                    t++;
                }
}

/* ε = 0 on z = 0 and 1 on z = 1, free elsewhere: the exact solution ε = z is linear, which P1
 * elements reproduce to round-off. */
static void test_linear_field_is_exact(void) {
    tch_vec3* v;
    int (*tets)[4];
    int nv, nt;
    cube_grid(4, &v, &nv, &tets, &nt);
    tch_real* fixed = malloc((size_t)nv * sizeof *fixed);
    tch_real* values = malloc((size_t)nv * sizeof *values);
    for (int i = 0; i < nv; ++i) {
        fixed[i] = v[i].z == 0 ? 0 : (v[i].z == 1 ? 1 : NAN);
    }
    tch_error err;
    tch_status s = tch_laplace_field_solve(v, nv, (const int(*)[4])tets, nt, fixed, values, &err);
    double worst = 0;
    for (int i = 0; i < nv; ++i) worst = fmax(worst, fabs(values[i] - v[i].z));
    free(v), free(tets), free(fixed), free(values);
    ENSURE(s == TCH_OK);
    ENSURE(worst < 1e-12);
}

/* ε = 0 on the cube's surface and 1 at its centre vertex: values lie in [0, 1], are symmetric,
 * and fall from the centre outwards (maximum principle). */
static void test_centre_peak_obeys_maximum_principle(void) {
    tch_vec3* v;
    int (*tets)[4];
    int nv, nt;
    cube_grid(6, &v, &nv, &tets, &nt);
    tch_real* fixed = malloc((size_t)nv * sizeof *fixed);
    tch_real* values = malloc((size_t)nv * sizeof *values);
    int centre = -1;
    for (int i = 0; i < nv; ++i) {
        int boundary = v[i].x == 0 || v[i].x == 1 || v[i].y == 0 || v[i].y == 1 ||
                       v[i].z == 0 || v[i].z == 1;
        fixed[i] = boundary ? 0 : NAN;
        if (tch_v3_dist(v[i], (tch_vec3){0.5, 0.5, 0.5}) < 1e-12) centre = i;
    }
    fixed[centre] = 1;
    tch_status s = tch_laplace_field_solve(v, nv, (const int(*)[4])tets, nt, fixed, values, NULL);
    int in_range = 1;
    for (int i = 0; i < nv; ++i) in_range &= values[i] >= -1e-12 && values[i] <= 1 + 1e-12;
    /* two vertices mirrored through the centre plane x = 0.5 */
    double left = values[(3 * 7 + 3) * 7 + 1], right = values[(3 * 7 + 3) * 7 + 5];
    double nearer = values[(3 * 7 + 3) * 7 + 2];
    free(v), free(tets), free(fixed), free(values);
    ENSURE(s == TCH_OK);
    ENSURE(in_range);
    ENSURE_NEAR(left, right, 1e-12);
    ENSURE(nearer > left && left > 0);
}

static void test_bad_input_is_reported(void) {
    tch_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    int tet[1][4] = {{0, 1, 2, 3}};
    int inverted[1][4] = {{0, 2, 1, 3}};
    int out_of_range[1][4] = {{0, 1, 2, 7}};
    tch_real none[4] = {NAN, NAN, NAN, NAN}, one[4] = {0, NAN, NAN, NAN}, values[4];
    tch_error err;
    ENSURE(tch_laplace_field_solve(v, 4, (const int(*)[4])tet, 1, none, values, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_laplace_field_solve(v, 4, (const int(*)[4])inverted, 1, one, values, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "inverted") != NULL);
    ENSURE(tch_laplace_field_solve(v, 4, (const int(*)[4])out_of_range, 1, one, values, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
}

int main(void) {
    RUN_TEST(test_linear_field_is_exact);
    RUN_TEST(test_centre_peak_obeys_maximum_principle);
    RUN_TEST(test_bad_input_is_reported);
    return TEST_RESULT();
}
