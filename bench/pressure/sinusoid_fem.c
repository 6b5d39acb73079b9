/* An FEM reference for Elandt et al. 2019, sec. VIII-A and Fig. 6 (sinusoid_fem_layer.h): the
 * rigid sinusoid y = -d + η (1 - cos(2π x / λ)), λ = 2π/3, pressed d = 0.4 past first contact
 * (the geometry of bench_pressure_sinusoid) into a frictionless layer of unit thickness bonded
 * at its base, plane strain, linear elasticity, ν = 0.3 as the paper states (also 0 and 0.45 for
 * the sensitivity), the base bonded (also sliding without friction). The force per period is
 * normalized by the flat surface's (η = 0, same d, same mesh), as the paper's Fig. 6. The paper's
 * FEM (ANSYS) is finite-strain with an unstated material law; this one is small-strain, with the
 * contact either vertical (the linear Signorini condition) or along the sinusoid's normal
 * (linearized normal gap), and, as one finite-strain law, compressible neo-Hookean (normal contact
 * at the nodes' current positions, 8 load steps, on all but the finest level).
 *
 *     bench_pressure_sinusoid_fem [max_level]    (levels 0-3: 24, 48, 96, 192 cells per period,
 *                                                 square cells; default 3)
 *
 * stdout: the validation on closed forms (flat punch: F = E' d λ / h with the plane-strain
 * constrained modulus, and the neo-Hookean uniaxial stretch; a prescribed surface mode u_y = A
 * cos kx: the energy of the layer's Fourier-mode solution), then CSV of the mesh convergence, the
 * mean-line reading and a summary of PFC / FEM. Exits 1 when a validation fails. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "pressure_bench.h"
#include "sinusoid_fem_layer.h"

static const double wavelength = 2 * 3.14159265358979323846 / 3, depth = 0.4;
static const double etas[3] = {0, 0.166, 0.333};
static const double poissons[3] = {0.3, 0, 0.45};
enum { level_count = 4, finite_load_steps = 8 };

static sfem_layer layer_at(int level, double poisson) {
    int cells_x = 24 << level;
    int cells_y = (int)lround(cells_x / wavelength); /* square cells, unit thickness */
    return (sfem_layer){wavelength, 1, 1, poisson, cells_x, cells_y, false, 0};
}

static void check(int status) {
    if (status) {
        fprintf(stderr, "bench_pressure_sinusoid_fem: a linear solve failed\n");
        exit(1);
    }
}

static int validate(int max_level) {
    int failed = 0;
    printf("# validation 1, flat punch (eta 0, whole top held): F / (E' d lambda / h) - 1\n");
    printf("poisson,base,cells_x,relative_error\n");
    for (int k = 0; k < 6; ++k) {
        sfem_layer l = layer_at(0, poissons[k % 3]);
        l.sliding_base = k >= 3;
        sfem_result r;
        check(sfem_press_sinusoid(&l, 0, depth, SFEM_GAP_VERTICAL, &r));
        double exact = sfem_constrained_modulus(&l) * depth * l.period / l.thickness;
        double error = r.force / exact - 1;
        failed |= !(fabs(error) < 1e-10) || r.contact_fraction != 1;
        printf("%.2f,%s,%d,%.2e\n", poissons[k % 3], l.sliding_base ? "sliding" : "bonded",
               l.cells_x, error);
    }
    printf("# validation 1b, flat punch with finite strain (neo-Hookean, %d load steps): F / "
           "(-P_yy lambda) - 1\n",
           finite_load_steps);
    printf("poisson,cells_x,relative_error\n");
    for (int p = 0; p < 3; ++p) {
        sfem_layer l = layer_at(0, poissons[p]);
        l.load_steps = finite_load_steps;
        sfem_result r;
        check(sfem_press_sinusoid(&l, 0, depth, SFEM_GAP_NORMAL, &r));
        double error = r.force / sfem_neo_hookean_punch_force(&l, depth) - 1;
        failed |= !(fabs(error) < 1e-10);
        printf("%.2f,%d,%.2e\n", poissons[p], l.cells_x, error);
    }
    printf("# validation 2, top u_y = A cos(kx) shear-free, bottom bonded: FEM energy against the "
           "Fourier-mode closed form\n");
    printf("poisson,cells_x,dofs,energy_fem,energy_closed_form,relative_error\n");
    for (int p = 0; p < 3; ++p) {
        for (int level = 0; level <= max_level && level < 3; ++level) {
            sfem_layer l = layer_at(level, poissons[p]);
            sfem_result r;
            check(sfem_prescribe_mode(&l, 0.1, &r));
            double exact = sfem_mode_energy(&l, 0.1);
            printf("%.2f,%d,%d,%.10e,%.10e,%.2e\n", poissons[p], l.cells_x, r.dofs, r.energy, exact,
                   r.energy / exact - 1);
            failed |= level == 2 && !(fabs(r.energy / exact - 1) < 1e-6);
        }
    }
    return failed;
}

/* One FEM setting of the comparison; the paper's (ν = 0.3, bonded base) on every level. */
typedef struct variant {
    sfem_gap gap;
    double poisson;
    bool sliding_base;
    int load_steps; /* 0: linear; > 0: finite strain (neo-Hookean) */
} variant;

static const variant variants[] = {
    {SFEM_GAP_VERTICAL, 0.3, false, 0},
    {SFEM_GAP_NORMAL, 0.3, false, 0},
    {SFEM_GAP_VERTICAL, 0, false, 0},
    {SFEM_GAP_NORMAL, 0, false, 0},
    {SFEM_GAP_VERTICAL, 0.45, false, 0},
    {SFEM_GAP_NORMAL, 0.45, false, 0},
    {SFEM_GAP_VERTICAL, 0.3, true, 0},
    {SFEM_GAP_NORMAL, 0.3, true, 0},
    {SFEM_GAP_NORMAL, 0.3, false, finite_load_steps},
};
enum { variant_count = sizeof variants / sizeof variants[0] };
static const char* const gap_names[2] = {"vertical", "normal"};

static void print_variant(const variant* v) {
    printf("%s,%.2f,%s,%s", gap_names[v->gap], v->poisson, v->sliding_base ? "sliding" : "bonded",
           v->load_steps ? "neo-Hookean" : "linear");
}

/* The other reading of "pressed d" (bench_pressure_sinusoid prints its PFC value, 1 for every
 * η <= d): the sinusoid's mean line at depth d, its lowest points d + η in; ν = 0.3, bonded. */
static void print_mean_line_reading(int level) {
    printf("# the mean line of the sinusoid at depth d: F / F(eta = 0), PFC gives 1\n");
    printf("gap,eta,fem_normalized,contact_fraction\n");
    for (int gap = 0; gap < 2; ++gap) {
        sfem_layer l = layer_at(level < 2 ? level : 2, 0.3);
        sfem_result flat, r;
        check(sfem_press_sinusoid(&l, 0, depth, (sfem_gap)gap, &flat));
        for (int e = 1; e < 3; ++e) {
            check(sfem_press_sinusoid(&l, etas[e], depth + etas[e], (sfem_gap)gap, &r));
            printf("%s,%.3f,%.5f,%.4f\n", gap_names[gap], etas[e], r.force / flat.force,
                   r.contact_fraction);
        }
    }
}

int main(int argc, char** argv) {
    int max_level = argc > 1 ? atoi(argv[1]) : level_count - 1;
    pb_print_run_header("bench_pressure_sinusoid_fem");
    if (validate(max_level)) {
        printf("# VALIDATION FAILED\n");
        return 1;
    }
    printf("# sinusoid pressed d = %.1f past first contact, F / F(eta = 0)\n", depth);
    printf("gap,poisson,base,material,cells_x,cells_y,dofs,eta,fem_normalized,contact_fraction,"
           "linear_solves,pfc_closed_form,pfc_over_fem\n");
    double finest[variant_count][3] = {{0}};
    for (int k = 0; k < variant_count; ++k) {
        const variant* v = &variants[k];
        int top_level = k < 2 ? max_level : max_level - 1;
        for (int level = 0; level <= top_level && level < level_count; ++level) {
            sfem_layer l = layer_at(level, v->poisson);
            l.sliding_base = v->sliding_base;
            l.load_steps = v->load_steps;
            sfem_result flat, r;
            check(sfem_press_sinusoid(&l, 0, depth, v->gap, &flat));
            for (int e = 0; e < 3; ++e) {
                if (sfem_press_sinusoid(&l, etas[e], depth, v->gap, &r)) { /* finite strain */
                    print_variant(v);
                    printf(",%d,%d,,%.3f,failed\n", l.cells_x, l.cells_y, etas[e]);
                    finest[k][e] = NAN;
                    continue;
                }
                double fem = r.force / flat.force;
                double pfc = sfem_pfc_normalized_force(etas[e], depth);
                print_variant(v);
                printf(",%d,%d,%d,%.3f,%.5f,%.4f,%d%s,%.5f,%.4f\n", l.cells_x, l.cells_y, r.dofs,
                       etas[e], fem, r.contact_fraction, r.iterations,
                       r.converged ? "" : " (not converged)", pfc, pfc / fem);
                finest[k][e] = fem;
            }
            fflush(stdout);
        }
    }
    print_mean_line_reading(max_level);
    printf("# finest meshes; the paper: PFC = FEM at eta 0, PFC 23%% under FEM at eta 0.333 "
           "(PFC / FEM = 0.77)\n");
    printf("gap,poisson,base,material,eta,fem_normalized,pfc_closed_form,pfc_over_fem\n");
    for (int k = 0; k < variant_count; ++k) {
        for (int e = 0; e < 3; ++e) {
            double pfc = sfem_pfc_normalized_force(etas[e], depth);
            print_variant(&variants[k]);
            printf(",%.3f,%.4f,%.4f,%.3f\n", etas[e], finest[k][e], pfc, pfc / finest[k][e]);
        }
    }
    return 0;
}
