/* A finite-element reference for Elandt et al. 2019, sec. VIII-A: plane-strain elasticity
 * (linear, or finite-strain neo-Hookean) of a compliant layer, periodic in x (period λ), y in
 * [-h, 0], bonded at y = -h (or sliding on it), its top pressed by a rigid surface without
 * friction. Six-node (quadratic) triangles on a structured grid, factored with CHOLMOD; the
 * unilateral contact is solved by an active-set iteration on the top nodes, with Newton's method
 * and load steps for finite strain (sinusoid_fem_layer.c says how). */
#pragma once

#include <stdbool.h>

typedef struct sfem_layer {
    double period, thickness; /* λ (x, periodic) and h */
    double modulus, poisson;  /* Young's modulus E and Poisson's ratio ν (plane strain) */
    int cells_x, cells_y;     /* grid cells, each split into two 6-node triangles */
    bool sliding_base;        /* the base slides without friction (u_y = 0; one node holds
                                 u_x = 0 against the rigid drift) instead of being bonded */
    int load_steps;           /* 0: linear elasticity (small strain); n > 0: finite strain,
                                 compressible neo-Hookean with the same small-strain E and ν,
                                 the depth reached in n equal steps */
} sfem_layer;

/* How the rigid surface constrains a top node: its vertical displacement (small slopes, the
 * classical linear Signorini condition) or its displacement along the surface's normal at the
 * node's x (the linearized normal gap; the node slides freely along the tangent). With finite
 * strain the surface's height and normal are taken at the node's current x, and the node ends
 * on the surface. */
typedef enum sfem_gap { SFEM_GAP_VERTICAL, SFEM_GAP_NORMAL } sfem_gap;

typedef struct sfem_result {
    double force;            /* per period, pressing the layer down (> 0 in compression) */
    double energy;           /* elastic energy per period */
    double contact_fraction; /* of the top nodes held by the surface */
    int iterations;          /* linear solves (active-set updates × Newton iterations) */
    bool converged;          /* the active set stopped changing (and Newton converged) */
    int dofs;
} sfem_result;

/* Frictionless unilateral contact with the rigid surface y = s(x) = -depth + amplitude (1 -
 * cos(2π x / λ)) (the lowest points go depth into the layer). Returns 0, or -1 when CHOLMOD
 * fails (a message on stderr). */
int sfem_press_sinusoid(const sfem_layer* layer, double amplitude, double depth, sfem_gap gap,
                        sfem_result* result);

/* Every top node's vertical displacement prescribed to amplitude cos(2π x / λ), the top free
 * of shear: the bilateral problem that sfem_mode_energy solves in closed form. */
int sfem_prescribe_mode(const sfem_layer* layer, double amplitude, sfem_result* result);

/* Closed form of that problem's elastic energy per period: the Fourier-mode solution of the
 * Navier equations in the layer (sinusoid_fem_layer.c derives it). */
double sfem_mode_energy(const sfem_layer* layer, double amplitude);

/* The pressure field model's normalized force for the same surface (ε linear in depth through
 * the layer): the mean penetration depth over a period divided by d,
 *     (d - η)/d                         when d >= 2η (full contact)
 *     η (sin θ₀ - c θ₀) / (π d)          otherwise, c = 1 - d/η, θ₀ = acos c. */
double sfem_pfc_normalized_force(double amplitude, double depth);

/* The flat punch with finite strain: uniaxial stretch λ = 1 - d/h, the neo-Hookean nominal
 * stress P_yy = μ (λ - 1/λ) + Λ ln(λ) / λ, the force per period -P_yy times the period. */
double sfem_neo_hookean_punch_force(const sfem_layer* layer, double depth);

/* The plane-strain constrained modulus E' = E (1 - ν) / ((1 + ν)(1 - 2ν)): a flat punch
 * pressed d into the whole top carries E' d λ / h per period. */
double sfem_constrained_modulus(const sfem_layer* layer);
