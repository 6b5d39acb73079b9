/* The FEM reference of the pressure model's sec. VIII-A experiment (bench/pressure/
 * sinusoid_fem_layer.c) on closed forms: a plane-strain layer, periodic in x (λ = 2π/3), unit
 * thickness, bonded at its base, E = 1.
 *
 * - Flat punch: the whole top pressed d down without friction is uniaxial strain, u_y = -d (y +
 *   h)/h, so the force per period is E' d λ / h, E' = E (1 - ν)/((1 + ν)(1 - 2ν)); the quadratic
 *   elements hold the linear field exactly.
 * - Surface mode: the top's u_y = A cos kx prescribed, no shear: the Fourier-mode solution of the
 *   Navier equations gives the energy; quadratic elements converge as h⁴ in energy.
 * - Full contact: by linearity the force of a surface -d + η (1 - cos kx) that stays in contact
 *   is the flat punch's at depth d - η (the cosine carries no net force): F/F(0) = (d - η)/d.
 * - Partial contact: the active set converges and holds less than the undeformed overlap.
 * - Finite strain: the neo-Hookean flat punch's closed form, and the linear limit. */
#include <math.h>

#include "sinusoid_fem_layer.h"
#include "test.h"

static const double wavelength = 2 * 3.14159265358979323846 / 3, depth = 0.4;

static sfem_layer layer(int cells_x, double poisson) {
    sfem_layer l = {wavelength, 1, 1, poisson, cells_x, 0, false, 0};
    l.cells_y = (int)lround(cells_x / wavelength); /* square cells */
    return l;
}

static void test_flat_punch_gives_the_constrained_modulus(void) {
    static const double poissons[3] = {0, 0.3, 0.45};
    for (int p = 0; p < 3; ++p) {
        sfem_layer l = layer(12, poissons[p]);
        sfem_result r;
        ENSURE(sfem_press_sinusoid(&l, 0, depth, SFEM_GAP_VERTICAL, &r) == 0);
        double exact =
            (1 - poissons[p]) / ((1 + poissons[p]) * (1 - 2 * poissons[p])) * depth * wavelength;
        printf("  flat punch nu %.2f: F %.15g, E' d lambda / h %.15g\n", poissons[p], r.force,
               exact);
        ENSURE_REL(r.force, exact, 1e-10);
        ENSURE(r.converged && r.contact_fraction == 1);
        ENSURE_REL(sfem_constrained_modulus(&l), exact / (depth * wavelength), 1e-14);
    }
}

static void test_surface_mode_energy_converges_to_the_fourier_solution(void) {
    static const double poissons[2] = {0, 0.3};
    for (int p = 0; p < 2; ++p) {
        sfem_layer coarse = layer(12, poissons[p]);
        double exact = sfem_mode_energy(&coarse, 0.1), error[2];
        for (int level = 0; level < 2; ++level) {
            sfem_layer l = layer(12 << level, poissons[p]);
            sfem_result r;
            ENSURE(sfem_prescribe_mode(&l, 0.1, &r) == 0);
            error[level] = fabs(r.energy / exact - 1);
            printf("  mode nu %.2f, %d cells: energy %.10e, closed form %.10e, error %.2e\n",
                   poissons[p], l.cells_x, r.energy, exact, error[level]);
        }
        ENSURE(error[1] < 1e-4);
        ENSURE(error[0] / error[1] > 10); /* fourth order: 16 */
    }
}

static void test_full_contact_force_is_the_mean_depth(void) {
    sfem_layer l = layer(12, 0.3);
    sfem_result flat, r;
    ENSURE(sfem_press_sinusoid(&l, 0, depth, SFEM_GAP_VERTICAL, &flat) == 0);
    ENSURE(sfem_press_sinusoid(&l, 0.166, depth, SFEM_GAP_VERTICAL, &r) == 0);
    ENSURE(r.converged && r.contact_fraction == 1);
    ENSURE_REL(r.force / flat.force, (depth - 0.166) / depth, 1e-10);
    ENSURE_REL(sfem_pfc_normalized_force(0.166, depth), (depth - 0.166) / depth, 1e-14);
}

static void test_partial_contact_converges_inside_the_overlap(void) {
    sfem_layer l = layer(24, 0.3);
    sfem_result flat, r;
    ENSURE(sfem_press_sinusoid(&l, 0, depth, SFEM_GAP_NORMAL, &flat) == 0);
    ENSURE(sfem_press_sinusoid(&l, 0.333, depth, SFEM_GAP_NORMAL, &r) == 0);
    double overlap = acos(1 - depth / 0.333) / 3.14159265358979323846; /* cos kx > 1 - d/η */
    printf("  eta 0.333: F/F(0) %.5f in %d solves, contact %.3f of the period (overlap %.3f)\n",
           r.force / flat.force, r.iterations, r.contact_fraction, overlap);
    ENSURE(r.converged && r.iterations > 1);
    ENSURE(r.contact_fraction > 0.2 && r.contact_fraction < overlap);
    ENSURE(r.force > 0 && r.force < flat.force * sfem_pfc_normalized_force(0.333, depth) * 1.2);
}

/* Finite strain (neo-Hookean): the flat punch is homogeneous uniaxial stretch λ = 1 - d/h with
 * the closed-form nominal stress; pressed a thousandth as far, the sinusoid gives the linear
 * solution's normalized force (linear elasticity is homogeneous of degree one in (η, d)). */
static void test_finite_strain_punch_and_small_load_limit(void) {
    sfem_layer l = layer(12, 0.3);
    l.load_steps = 4;
    sfem_result flat, r, linear_flat, linear;
    ENSURE(sfem_press_sinusoid(&l, 0, depth, SFEM_GAP_NORMAL, &flat) == 0);
    printf("  neo-Hookean flat punch: F %.15g, closed form %.15g (linear %.6g)\n", flat.force,
           sfem_neo_hookean_punch_force(&l, depth),
           sfem_constrained_modulus(&l) * depth * wavelength);
    ENSURE_REL(flat.force, sfem_neo_hookean_punch_force(&l, depth), 1e-10);
    double scale = 1e-3;
    ENSURE(sfem_press_sinusoid(&l, 0, scale * depth, SFEM_GAP_NORMAL, &flat) == 0);
    ENSURE(sfem_press_sinusoid(&l, scale * 0.333, scale * depth, SFEM_GAP_NORMAL, &r) == 0);
    l.load_steps = 0;
    ENSURE(sfem_press_sinusoid(&l, 0, depth, SFEM_GAP_VERTICAL, &linear_flat) == 0);
    ENSURE(sfem_press_sinusoid(&l, 0.333, depth, SFEM_GAP_VERTICAL, &linear) == 0);
    printf("  eta 0.333 at 1e-3 of the load: neo-Hookean %.6f, linear %.6f\n", r.force / flat.force,
           linear.force / linear_flat.force);
    ENSURE(r.converged);
    ENSURE_REL(r.force / flat.force, linear.force / linear_flat.force, 3e-3);
}

int main(void) {
    RUN_TEST(test_flat_punch_gives_the_constrained_modulus);
    RUN_TEST(test_surface_mode_energy_converges_to_the_fourier_solution);
    RUN_TEST(test_full_contact_force_is_the_mean_depth);
    RUN_TEST(test_partial_contact_converges_inside_the_overlap);
    RUN_TEST(test_finite_strain_punch_and_small_load_limit);
    return TEST_RESULT();
}
