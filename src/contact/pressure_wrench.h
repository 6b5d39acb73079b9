/* Tractions, quadrature, net wrench and elastic energy of the pressure field model
 * (Elandt et al. 2019, secs. III, V, VI-B3, eqs. 1-3, 5-8; docs/contact-pressure.md).
 *
 * Conventions as in pressure_surface.h: everything in A's frame, n from A into B, and the
 * wrench is the one acting on B (A receives the opposite). The motion is that of B relative
 * to A: B's material point at x moves at v(x) = v_A + w_A × (x - point_A) as seen from A.
 *
 * Traction at a point x of the surface with static pressure p₀ (from the surface), normal n
 * and relative velocity v:
 *
 *     v_n = v · n                     separation speed (> 0: B leaves A)        (eq. 5)
 *     v_t = v - v_n n                 slip of B over A                          (eq. 6)
 *     p   = p₀ max(0, 1 - χ v_n)      Hunt-Crossley dissipation (eqs. 2-3), χ in s/m;
 *                                     clamped so that contact never pulls
 *     T   = p n - μ p v_t / √(|v_t|² + v_s²)
 *                                     Coulomb friction (eq. 7) regularized by the stiction
 *                                     speed v_s: smooth, |friction| -> μ p once |v_t| >> v_s
 *
 * Net wrench (eq. 8): F = ∫ T dA, M = ∫ x × T dA (about A's origin), by a quadrature rule on
 * each triangle of the polygons' fans. Two materials combine their dissipation as springs in
 * series (tch_pressure_combine_dissipation).
 *
 * Elastic energy (eq. 1, Theorem 1): U = ∫_{A∩B} min(p_A, p_B) dV. In the overlap, B's
 * material is displaced where p_A < p_B (there U_A = ∫ p_A) and A's where p_B < p_A; the
 * surface between the two parts is the contact surface. With a rigid B, U = ∫_{A∩B} p_A dV.
 * Its gradient is exactly minus the pressure wrench of the same discrete geometry (p is linear
 * per tet and continuous, so the divergence theorem applies piece by piece).
 */
#pragma once

#include "contact/pressure_surface.h"
#include "contact/volume_integrals.h"

typedef enum tch_pressure_quadrature {
    TCH_PRESSURE_QUADRATURE_CENTROID = 0, /* 1 point per triangle: exact for linear integrands
                                             (the force without friction or dissipation) */
    TCH_PRESSURE_QUADRATURE_THREE_POINT = 1, /* 3 points (2/3, 1/6, 1/6), weights 1/3: exact
                                                for quadratics (also the moment x × p n) */
} tch_pressure_quadrature;

typedef struct tch_pressure_traction_params {
    tch_real dissipation;     /* χ, s/m, >= 0 (combined for the pair) */
    tch_real friction;        /* μ >= 0 */
    tch_real stiction_speed;  /* v_s, m/s, > 0 */
    tch_pressure_quadrature quadrature;
} tch_pressure_traction_params;

/* The velocity field of B relative to A, expressed in A. */
typedef struct tch_pressure_motion {
    tch_vec3 point_A;   /* a point, m */
    tch_vec3 v_A;       /* velocity of B's material point at point_A relative to A, m/s */
    tch_vec3 w_A;       /* angular velocity of B relative to A, rad/s */
} tch_pressure_motion;

/* Defaults: χ = 0, μ = 0, v_s = 1e-3 m/s, centroid rule. */
tch_pressure_traction_params tch_pressure_traction_params_default(void);
/* TCH_ERR_INVALID_ARGUMENT naming the bad field unless χ >= 0, μ >= 0, v_s > 0 (all finite)
 * and the quadrature is one of the enum. */
tch_status tch_pressure_traction_params_check(const tch_pressure_traction_params* params,
                                              tch_error* err);
/* χ of a pair: χ = (E_B χ_A + E_A χ_B) / (E_A + E_B), the deformation rate splitting between
 * the two materials as between springs in series; χ_A when E_B is infinite (rigid B). */
tch_real tch_pressure_combine_dissipation(tch_real modulus_a, tch_real dissipation_a,
                                          tch_real modulus_b, tch_real dissipation_b);

/* The traction on B at a point (formulas above). @pre params checked, n unit. */
tch_vec3 tch_pressure_traction(tch_real p0, tch_vec3 normal, tch_vec3 velocity,
                               const tch_pressure_traction_params* params);

/* Net wrench on B about A's origin, in A, over the whole surface. `motion` NULL: at rest
 * (p = p₀, no friction). Errors: bad params. */
tch_status tch_pressure_wrench(const tch_pressure_surface* surface,
                               const tch_pressure_traction_params* params,
                               const tch_pressure_motion* motion, tch_wrench* out,
                               tch_error* err);
/* The same wrench with its moment taken about point o instead of the origin:
 * M_o = M - o × F. */
tch_wrench tch_pressure_wrench_about(tch_wrench wrench, tch_vec3 o);
/* A wrench expressed in B about B's origin, re-expressed in A about A's origin:
 * F_A = R_AB F_B, M_A = R_AB M_B + p_AB × F_A. */
tch_wrench tch_pressure_wrench_to_frame(tch_wrench wrench_B, tch_transform X_AB);

/* How fast the pressure on `polygon` (of the surface of A against B, in A) rises as B
 * approaches A, Pa/m: A's pressure rises into A at g_A = E_A |∇ε_A| and B's into B at
 * g_B = E_B |∇ε_B| (the polygon's tets, constant per tet); an approach δ along the fields'
 * gradients moves the surface of equal pressure by δ g_A / (g_A + g_B) into A and raises its
 * pressure by k δ with k = g_A g_B / (g_A + g_B), the two materials in series; k = g_A for a
 * rigid B (b NULL). The rise along the polygon's normal n is k times the cosines of the
 * gradients to n: equal for a flat contact, where the fields rise along n; the steepest rise
 * is taken so that every polygon stiffens the implicit step (at an edge of a coarse mesh a
 * field rises across n). 0 for a rigid core (∇ε = 0). */
tch_real tch_pressure_polygon_stiffness(const tch_pressure_body* a, const tch_pressure_body* b,
                                        const tch_pressure_polygon* polygon);

/* The deepest overlap of the two bodies under the surface, m: the largest over the polygons'
 * vertices of p / (E_A |∇ε_A|) + p / (E_B |∇ε_B|) (the polygon's tets; no B term for a rigid
 * B, b NULL). With a field linear in the depth below the surface, ε = depth |∇ε|, each term is
 * the depth of the point inside that body, so the sum is how far the two bodies overlap
 * there (for a rigid B, how far B's surface is inside A). A rigid core (∇ε = 0) adds 0. 0 when
 * the surface is empty. */
tch_real tch_pressure_surface_depth(const tch_pressure_surface* surface,
                                    const tch_pressure_body* a, const tch_pressure_body* b);

/* The pressure wrench linearized about the current pose and motion (docs/contact-pressure.md,
 * "Implicit integration"), in A's axes: with u the displacement of B's material point at o
 * relative to A's and φ B's rotation relative to A, and J(x) = (n, (x - o) × n),
 *
 *     K = ∂(F, M_o) / ∂(u, φ) = -∫ k (1 - χ v_n)⁺ J Jᵀ dA    (each polygon's k)
 *     D = ∂(F, M_o) / ∂(v, ω) = -∫ χ p₀ J Jᵀ dA               (where 1 - χ v_n > 0)
 *
 * (the normal tractions only; the surface's change of shape and of normal, of the order of the
 * force times the lever arms, is left out). Both symmetric negative semidefinite. Three
 * points per fan triangle (exact for the second moments of area). motion NULL: at rest. */
typedef struct tch_pressure_jacobian {
    tch_real K[6][6];
    tch_real D[6][6];
} tch_pressure_jacobian;
void tch_pressure_surface_jacobian(const tch_pressure_surface* surface,
                                   const tch_pressure_body* a, const tch_pressure_body* b,
                                   tch_real dissipation,
                                   const tch_pressure_motion* motion, tch_vec3 o,
                                   tch_pressure_jacobian* out);

/* A half-space n · x <= offset of a rigid body's frame (n unit, outward). */
typedef struct tch_rigid_plane {
    tch_vec3 normal;
    tch_real offset;
} tch_rigid_plane;

/* The six planes of the box [-h, h] (half sizes h > 0) centred at its frame's origin. */
void tch_rigid_box_planes(tch_vec3 half_size, tch_rigid_plane planes[6]);

/* Elastic energy (eq. 1) of two compliant bodies, J: ∫ min(p_A, p_B) over the overlap of
 * every pair of tets the BVHs report. Errors: bad bodies. */
tch_status tch_pressure_energy_compliant(const tch_pressure_body* a, const tch_pressure_body* b,
                                         tch_transform X_AB, tch_real* energy, tch_error* err);
/* The same on a worker pool (NULL: the calling thread). The sum is split at a BVH frontier of
 * about TCH_PRESSURE_ENERGY_TASKS node pairs whatever the pool (tch_bvh_query_frontier), one
 * partial sum per frontier pair added in order, so the result is bit-identical for every
 * thread count. Allocates nothing (about 24 KB of stack). */
#define TCH_PRESSURE_ENERGY_TASKS 64
tch_status tch_pressure_energy_compliant_on(const tch_pressure_body* a, const tch_pressure_body* b,
                                            tch_transform X_AB, tch_workers* workers,
                                            tch_real* energy, tch_error* err);
/* Elastic energy of compliant A against a rigid convex B given as the intersection of
 * plane_count half-spaces in B's frame (a half-space: 1 plane; a box: tch_rigid_box_planes),
 * J: ∫ p_A over A ∩ B. Errors: bad body, no planes, more than TCH_PRESSURE_MAX_PLANES, or a
 * plane normal not of unit length. */
#define TCH_PRESSURE_MAX_PLANES 32
tch_status tch_pressure_energy_rigid_convex(const tch_pressure_body* a,
                                            const tch_rigid_plane* planes_B, int plane_count,
                                            tch_transform X_AB, tch_real* energy,
                                            tch_error* err);
