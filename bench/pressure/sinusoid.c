/* Elandt et al. 2019, sec. VIII-A and Fig. 6: a rigid sinusoidal surface of amplitude η and
 * wavelength λ = 2π/3 pressed d = 0.4 into a frictionless compliant layer of unit thickness;
 * the normal force per period, normalized to 1 for the flat surface (η = 0) at d = 0.4.
 *
 * The plane problem is a slab of two periods in x, 0.5 deep in y: the layer [-λ, λ] x
 * [-0.25, 0.25] x [-1, 0] (tch_tetmesh_make_slab, ε = -z, E = 1) and the rigid surface
 *     z = s(x) = -d + η (1 - cos(2π x / λ))      (its lowest points touch first, then go d in)
 * triangulated with n segments per period and extruded past the slab in x and y, its triangles
 * facing down (the rigid body lies above). The pressure-field force is F_z of
 * tch_pressure_wrench on the rigid surface; per unit area of the layer it is the mean of
 * E ε over the surface, so with ε linear in depth the continuum value is the closed form
 *     F / F(η = 0) = (1/π d) ∫₀^π max(0, d - η (1 - cos θ)) dθ
 *                  = (d - η)/d                        when d >= 2η (full contact)
 *                  = η (sin θ₀ - c θ₀) / (π d)         otherwise, c = 1 - d/η, θ₀ = acos c.
 * (sfem_pfc_normalized_force; bench_pressure_sinusoid_fem compares it with an FEM solution).
 * Also printed: the other reading of "pressed d", the mean line of the sinusoid at depth d
 * (then F / F(0) = 1 for every η <= d, the surface staying in full contact).
 *
 *     bench_pressure_sinusoid
 *
 * stdout: CSV of the convergence (resolution of the layer, segments per period, tets,
 * triangles, η, F/F(0) from PFC, closed form, relative error) and a summary against the paper:
 * PFC is 23% under FEM at η = 0.333 and equal at η = 0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "contact/pressure_wrench.h"
#include "pressure_bench.h"
#include "sinusoid_fem_layer.h"

static const double wavelength = 2 * TCH_PI / 3, depth = 0.4, half_y = 0.25;

/* The rigid sinusoid z = offset + η (1 - cos(k x)) over x in [-2λ, 2λ], y in [-2 h_y, 2 h_y],
 * with n segments per period, triangles counter-clockwise seen from below. */
static void make_sinusoid(double eta, double offset, int n, pb_surface* s) {
    int columns = 4 * n, rows = 2;
    s->vertex_count = (columns + 1) * (rows + 1);
    s->triangle_count = 2 * columns * rows;
    s->vertices = malloc((size_t)s->vertex_count * sizeof *s->vertices);
    s->triangles = malloc((size_t)s->triangle_count * sizeof *s->triangles);
    for (int i = 0; i <= columns; ++i) {
        double x = -2 * wavelength + wavelength * i / n;
        double z = offset + eta * (1 - cos(2 * TCH_PI * x / wavelength));
        for (int j = 0; j <= rows; ++j) {
            s->vertices[i * (rows + 1) + j] = (tch_vec3){x, -2 * half_y + 4 * half_y * j / rows, z};
        }
    }
    int t = 0;
    for (int i = 0; i < columns; ++i) {
        for (int j = 0; j < rows; ++j) {
            int a = i * (rows + 1) + j, b = a + rows + 1, c = b + 1, e = a + 1;
            /* seen from below (-z) counter-clockwise: a, e, c then a, c, b */
            s->triangles[t][0] = a, s->triangles[t][1] = e, s->triangles[t][2] = c, ++t;
            s->triangles[t][0] = a, s->triangles[t][1] = c, s->triangles[t][2] = b, ++t;
        }
    }
    pb_finish_surface(s);
}

/* F_z on the rigid surface over the layer's area (E = 1, unit thickness). */
static double mean_pressure(const pb_body* layer, double eta, double offset, int n,
                            int* triangles) {
    pb_surface s = {0};
    make_sinusoid(eta, offset, n, &s);
    tch_pressure_surface surface;
    tch_pressure_surface_init(&surface);
    tch_pressure_traction_params params = tch_pressure_traction_params_default();
    tch_wrench w = {0};
    tch_error err = {0};
    if (tch_pressure_surface_rigid(&layer->pressure, &s.rigid, tch_x_identity(), &surface, &err) !=
            TCH_OK ||
        tch_pressure_wrench(&surface, &params, NULL, &w, &err) != TCH_OK) {
        fprintf(stderr, "sinusoid: %s\n", err.message);
        exit(1);
    }
    *triangles = s.triangle_count;
    tch_pressure_surface_free(&surface);
    pb_free_surface(&s);
    return w.force.z / (2 * wavelength * 2 * half_y);
}

int main(void) {
    pb_print_run_header("bench_pressure_sinusoid");
    printf("layer_resolution,segments_per_period,tets,triangles,eta,pfc_normalized,closed_form,"
           "relative_error,mean_line_normalized\n");
    static const double etas[3] = {0, 0.166, 0.333};
    static const double resolutions[4] = {0.2, 0.1, 0.05, 0.025};
    static const int segments[4] = {8, 16, 32, 64};
    double finest[3] = {0}, finest_mean_line[3] = {0};
    for (int r = 0; r < 4; ++r) {
        pb_body layer = {0};
        tch_error err = {0};
        if (tch_tetmesh_make_slab(wavelength, half_y, 1, resolutions[r], &layer.mesh, &err) !=
            TCH_OK) {
            fprintf(stderr, "slab: %s\n", err.message);
            return 1;
        }
        pb_finish_body(&layer, 1);
        int triangles = 0;
        double flat = mean_pressure(&layer, 0, -depth, segments[r], &triangles);
        for (int e = 0; e < 3; ++e) {
            double pfc = mean_pressure(&layer, etas[e], -depth, segments[r], &triangles) / flat;
            /* mean line at depth d: the sinusoid -d - η cos(k x) */
            double mean_line =
                mean_pressure(&layer, etas[e], -depth - etas[e], segments[r], &triangles) / flat;
            double exact = sfem_pfc_normalized_force(etas[e], depth);
            printf("%.3f,%d,%d,%d,%.3f,%.5f,%.5f,%.2e,%.5f\n", resolutions[r], segments[r],
                   layer.mesh.tet_count, triangles, etas[e], pfc, exact, (pfc - exact) / exact,
                   mean_line);
            finest[e] = pfc, finest_mean_line[e] = mean_line;
        }
        pb_free_body(&layer);
    }
    printf("# paper: PFC = FEM at eta 0; PFC 23%% under FEM at eta 0.333 (FEM = PFC / 0.77)\n");
    printf("eta,pfc_normalized,fem_implied_by_23_percent,mean_line_pfc\n");
    for (int e = 0; e < 3; ++e) {
        printf("%.3f,%.4f,%s,%.4f\n", etas[e], finest[e],
               e == 2 ? "" : (e == 0 ? "1 (paper: equal)" : "(not given)"), finest_mean_line[e]);
    }
    printf("# eta 0.333: PFC %.4f implies FEM %.4f\n", finest[2], finest[2] / 0.77);
    printf("# an FEM solution of our own: bench_pressure_sinusoid_fem\n");
    return 0;
}
