/* Projected Gauss-Seidel with subspace minimization over an island's Jacobian rows
 * (engine/constraint_pgs.h).
 *
 * PGS: row i's velocity w_i = J_i ν + rhs_i reads the row's two bodies; its update
 * z_i ← P(z_i − w_i / A_ii) moves them by M⁻¹ J_iᵀ Δz_i. A sweep costs O(rows) and needs no
 * Delassus matrix A = J M⁻¹ Jᵀ, only its diagonal. Its error along the smooth modes of a long
 * chain of bodies (a stack, a settling pile) decays by a factor close to 1 per sweep.
 *
 * Subspace minimization (the PGS-SM scheme of Silcowski, Andrews, Kry and Teichmann's
 * "interactive rigid body simulation with subspace minimization"): the rows strictly inside
 * their bounds (z_n > 0; |z_f| < μ z_n) are the free set F, the others stay where they are.
 * Solving A_FF Δz_F = −w_F makes every free row's velocity zero at once; the impulses are then
 * projected back onto their bounds and PGS goes on from there, which lets the active set
 * change. A_FF is sparse: rows couple only through a shared body, and A_FF is the sum over the
 * bodies of their blocks' products. It is singular when a body pair has more rows than relative
 * degrees of freedom (four corners of a face), so the solve regularizes it by a small multiple
 * of its diagonal, and the next sweeps take the regularization's error out.
 */
#include "engine/constraint_pgs.h"

#include <math.h>
#include <string.h>

static tch_real larger(tch_real a, tch_real b) {
    return a > b ? a : b;
}

/* |(a, b)|. Not libm's hypot, which guards against overflow at many times the cost (it was a
 * third of a settling pile's step); impulses and velocities are far from overflowing. */
static tch_real length2(tch_real a, tch_real b) {
    return sqrt(a * a + b * b);
}

/* Contact i's row bounds: [0, inf) for a contact's normal row, [-b, b] for a bounded one. */
static tch_real row_lower(const tch_row_problem* p, int i) {
    return p->bound && p->bound[i] > 0 ? -p->bound[i] : 0;
}

static tch_real row_upper(const tch_row_problem* p, int i) {
    return p->bound && p->bound[i] > 0 ? p->bound[i] : INFINITY;
}

/* x projected onto contact i's row bounds. */
static tch_real onto_row_bounds(const tch_row_problem* p, int i, tch_real x) {
    tch_real lower = row_lower(p, i), upper = row_upper(p, i);
    return x > lower ? (x < upper ? x : upper) : lower; /* NaN: lower */
}

/* Is x strictly inside contact i's row bounds (a normal row: x > 0)? */
static bool inside_row_bounds(const tch_row_problem* p, int i, tch_real x) {
    return x > row_lower(p, i) && x < row_upper(p, i);
}

/* The radius μ max(z_n, 0) of contact i's friction disc. */
static tch_real friction_bound(const tch_row_problem* p, int i, const tch_real* z) {
    return p->mu[i] * (z[i] > 0 ? z[i] : 0);
}

/* (t0, t1) moved onto the disc of radius `bound` about zero when outside it. */
static void onto_disc(tch_real* t0, tch_real* t1, tch_real bound) {
    tch_real square = *t0 * *t0 + *t1 * *t1; /* no square root for a point inside */
    if (square > bound * bound) {
        tch_real scale = square > 0 ? bound / sqrt(square) : 0;
        *t0 *= scale;
        *t1 *= scale;
    }
}

/* The square of the natural-map component |z_t − P_disc(z_t − w_t)| of a contact's friction
 * pair (a sweep takes one square root of the largest). */
static tch_real disc_residual_squared(tch_real z0, tch_real z1, tch_real w0, tch_real w1,
                                      tch_real bound) {
    tch_real y0 = z0 - w0, y1 = z1 - w1;
    onto_disc(&y0, &y1, bound);
    return (z0 - y0) * (z0 - y0) + (z1 - y1) * (z1 - y1);
}

/* The natural-map component |z_t − P_disc(z_t − w_t)| of a contact's friction pair. */
static tch_real disc_residual(tch_real z0, tch_real z1, tch_real w0, tch_real w1,
                              tch_real bound) {
    return sqrt(disc_residual_squared(z0, z1, w0, w1, bound));
}

/* Row r's velocity J_r ν + rhs_r. */
static tch_real row_velocity(const tch_row_problem* p, int r, const tch_vec3* v,
                             const tch_vec3* w) {
    return tch_row_dot(&p->rows[r], v, w) + p->rhs[r];
}

/* The normal row's part of a sweep; returns its natural-map component before the update. */
static tch_real update_normal(const tch_row_problem* p, int i, tch_real inverse_diagonal,
                              tch_vec3* v, tch_vec3* w, tch_real* z) {
    tch_real velocity = row_velocity(p, i, v, w);
    tch_real estimate = fabs(z[i] - onto_row_bounds(p, i, z[i] - velocity));
    tch_real next = onto_row_bounds(p, i, z[i] - velocity * inverse_diagonal);
    tch_row_add_impulse(&p->rows[i], next - z[i], v, w);
    z[i] = next;
    return estimate;
}

/* The friction pair's block of A, [a, b; b, c]: its inverse (upper triangle), its eigenvalues
 * l0, l1 with the eigenbasis turned by (cs, sn) from the tangents (formed once per solve), and
 * the last multiplier ν of its disc solve, the next solve's start. */
typedef struct tangent_block {
    tch_real inverse[3];
    tch_real cs, sn, l0, l1;
    tch_real nu;
} tangent_block;

/* The eigenbasis without trigonometry: with half = (a − c) / 2 and radius = |(half, b)|, the
 * eigenvalues are (a + c) / 2 ± radius, and the first eigenvector turns the tangents by θ with
 * cos 2θ = half / radius, sin 2θ = b / radius, θ in (−π/2, π/2] (cs >= 0, sn of b's sign). */
static tangent_block tangent_block_of(tch_real a, tch_real b, tch_real c) {
    tch_real half = 0.5 * (a - c), radius = length2(half, b);
    tch_real cos_2theta = radius > 0 ? half / radius : 1;
    tch_real cs = sqrt(fmax(0.5 * (1 + cos_2theta), 0));
    tch_real sn = copysign(sqrt(fmax(0.5 * (1 - cos_2theta), 0)), b);
    tch_real mean = 0.5 * (a + c);
    tch_real det = a * c - b * b;
    return (tangent_block){{c / det, -b / det, a / det}, cs, sn, mean + radius, mean - radius, 0};
}

/* Iterations of the secular equation's Newton solve (friction_block_solve); it converges
 * quadratically, monotonically from below the root, in 3 to 6 iterations to rounding from zero
 * and in 1 to 3 from the last solve's ν on a sliding contact. */
enum { DISC_NEWTON_STEPS = 12 };
/* A Newton change within this share of the block's size ends the solve: ν's error after it is
 * about its square (1e-8 of the block's size), so the friction's direction is off by at most
 * that share of the block's anisotropy, and the sweep's next update starts from that ν. At the
 * sweep's fixed point the first change is zero: the solution does not depend on it. (1e-6
 * took 2.5 iterations per solve on haptic_100's settling pile, this 2.1.) */
static const tch_real NEWTON_CONVERGED = 1e-4;

/* The exact minimizer y of ½ (y − u)ᵀ A (y − u) over the disc |y| <= R, u = z_t − A⁻¹ w_t the
 * unconstrained one: u itself when inside; else y = (A + ν I)⁻¹ A u with ν >= 0 such that
 * |y| = R, found by Newton's method on 1/|y(ν)| − 1/R in A's eigenbasis (Moré and Sorensen's
 * trust-region subproblem, "Computing a trust region step", SIAM J. Sci. Stat. Comput. 1983).
 * Newton's iterates rise monotonically to the root from any ν below it (1/|y(ν)| is concave
 * and rising), and a step from above lands below, so it starts from the block's last ν.
 * At a fixed point y = z_t this gives w_t = −ν z_t: friction opposes the sliding velocity
 * (maximal dissipation), the disc's complementarity. */
static void friction_block_solve(tangent_block* A, tch_real u0, tch_real u1, tch_real R,
                                 tch_real* y0, tch_real* y1) {
    if (u0 * u0 + u1 * u1 <= R * R) {
        *y0 = u0, *y1 = u1;
        return;
    }
    if (!(R > 0)) {
        *y0 = *y1 = 0;
        return;
    }
    tch_real cs = A->cs, sn = A->sn, l0 = A->l0, l1 = A->l1;
    tch_real b0 = l0 * (cs * u0 + sn * u1), b1 = l1 * (-sn * u0 + cs * u1);
    tch_real nu = A->nu, i0 = 1 / (l0 + nu), i1 = 1 / (l1 + nu); /* (λ + ν)⁻¹ */
    tch_real e0 = b0 * i0, e1 = b1 * i1, inverse_R = 1 / R;
    for (int k = 0; k < DISC_NEWTON_STEPS; ++k) {
        /* the Newton step (1/R − 1/|e|) / (d(1/|e|)/dν) with d(1/|e|)/dν = Σ e_k² i_k / |e|³,
         * as |e|² / Σ e_k² i_k times (|e| / R − 1): the division runs beside the root, which
         * then takes only a multiplication (a settling pile's sweeps wait on this chain). From
         * a ν past the root (the last ν), the step lands at or below it (1/|e| is concave), and
         * not below ν = 0, which is below it (|e(0)| = |u| > R) */
        tch_real square = e0 * e0 + e1 * e1;
        tch_real slope = e0 * e0 * i0 + e1 * e1 * i1; /* |e|³ d(1/|e|)/dν */
        tch_real change = square / slope * (sqrt(square) * inverse_R - 1);
        if (!(slope > 0) || !(fabs(change) > 1e-15 * (l0 + l1 + nu))) {
            break;
        }
        nu = larger(nu + change, 0);
        i0 = 1 / (l0 + nu), i1 = 1 / (l1 + nu);
        e0 = b0 * i0, e1 = b1 * i1;
        if (fabs(change) <= NEWTON_CONVERGED * (l0 + l1 + nu)) {
            break; /* quadratic convergence: the next change would be at rounding */
        }
    }
    A->nu = nu;
    tch_real scale = R / length2(e0, e1);
    *y0 = scale * (cs * e0 - sn * e1);
    *y1 = scale * (sn * e0 + cs * e1);
}

/* Do rows a and b move the same free bodies (or the world) on each side, and no tree? */
static bool same_free_sides(const tch_jacobian_row* a, const tch_jacobian_row* b) {
    for (int k = 0; k < 2; ++k) {
        const tch_row_side *sa = &a->side[k], *sb = &b->side[k];
        if (sa->body != sb->body || sa->kind == TCH_ROW_SIDE_TREE ||
            sb->kind == TCH_ROW_SIDE_TREE) {
            return false;
        }
    }
    return true;
}

/* The velocities of a contact's friction rows f and f + 1 (row_velocity of each, the same sums
 * in the same order), reading their bodies' velocities once when they share them. */
static void pair_velocities(const tch_row_problem* p, int f, const tch_vec3* v, const tch_vec3* w,
                            tch_real* w0, tch_real* w1) {
    const tch_jacobian_row *a = &p->rows[f], *b = &p->rows[f + 1];
    if (!same_free_sides(a, b)) {
        *w0 = row_velocity(p, f, v, w), *w1 = row_velocity(p, f + 1, v, w);
        return;
    }
    tch_real sum0 = 0, sum1 = 0;
    for (int k = 0; k < 2; ++k) {
        int body = a->side[k].body;
        if (body != 0) {
            tch_vec3 vb = v[body], wb = w[body];
            sum0 += tch_v3_dot(a->side[k].lin, vb) + tch_v3_dot(a->side[k].ang, wb);
            sum1 += tch_v3_dot(b->side[k].lin, vb) + tch_v3_dot(b->side[k].ang, wb);
        }
    }
    *w0 = sum0 + p->rhs[f], *w1 = sum1 + p->rhs[f + 1];
}

/* ν += M⁻¹ (J_fᵀ dz0 + J_{f+1}ᵀ dz1), as tch_row_add_impulse of each in turn (the same sums),
 * with one read and write of their bodies' velocities when they share them. */
static void add_pair_impulse(const tch_row_problem* p, int f, tch_real dz0, tch_real dz1,
                             tch_vec3* v, tch_vec3* w) {
    const tch_jacobian_row *a = &p->rows[f], *b = &p->rows[f + 1];
    if (!same_free_sides(a, b) || dz0 == 0 || dz1 == 0) {
        tch_row_add_impulse(a, dz0, v, w);
        tch_row_add_impulse(b, dz1, v, w);
        return;
    }
    for (int k = 0; k < 2; ++k) {
        int body = a->side[k].body;
        if (body != 0) {
            v[body] = tch_v3_madd(tch_v3_madd(v[body], dz0, a->side[k].inv_lin), dz1,
                                  b->side[k].inv_lin);
            w[body] = tch_v3_madd(tch_v3_madd(w[body], dz0, a->side[k].inv_ang), dz1,
                                  b->side[k].inv_ang);
        }
    }
}

/* The friction pair's part of a sweep: the exact block solve over the disc of radius μ z_n
 * (friction_block_solve); returns the square of its natural-map component before the update
 * when `measured`, else 0. */
static tch_real update_friction(const tch_row_problem* p, int i, tangent_block* A, bool measured,
                                tch_vec3* v, tch_vec3* w, tch_real* z) {
    int f = p->friction_start[i];
    tch_real w0, w1;
    pair_velocities(p, f, v, w, &w0, &w1);
    tch_real bound = friction_bound(p, i, z);
    tch_real estimate = measured ? disc_residual_squared(z[f], z[f + 1], w0, w1, bound) : 0;
    tch_real u0 = z[f] - (A->inverse[0] * w0 + A->inverse[1] * w1);
    tch_real u1 = z[f + 1] - (A->inverse[1] * w0 + A->inverse[2] * w1);
    tch_real y0, y1;
    friction_block_solve(A, u0, u1, bound, &y0, &y1);
    add_pair_impulse(p, f, y0 - z[f], y1 - z[f + 1], v, w);
    z[f] = y0, z[f + 1] = y1;
    return estimate;
}

/* Does contact i's friction pair sit at zero in a disc of radius zero (a contact whose normal
 * impulse is zero: a separating or speculative one)? Its update then leaves it at zero and its
 * natural-map component is zero, whatever its rows' velocities, which need not be read: a
 * settling pile's island has a third of its contacts so. */
static bool friction_idle(const tch_row_problem* p, int i, const tch_real* z) {
    int f = p->friction_start[i];
    return !(friction_bound(p, i, z) > 0) && z[f] == 0 && z[f + 1] == 0;
}

/* One sweep over the contacts, each normal row then its friction pair (bounded by μ times the
 * normal impulse just updated; not touched when idle, friction_idle). Returns the largest natural-map component met, which the solve
 * only compares with `tolerance`: once a component is above it, the friction pairs' (a
 * projection onto the disc, with a root and a division, for every sliding contact) are no
 * longer measured. */
static tch_real sweep(const tch_row_problem* p, const tch_real* normal_inverse,
                      tangent_block* blocks, tch_real tolerance, tch_vec3* v, tch_vec3* w,
                      tch_real* z) {
    tch_real normal = 0, friction_squared = 0;
    for (int i = 0; i < p->nc; ++i) {
        normal = larger(normal, update_normal(p, i, normal_inverse[i], v, w, z));
        if (p->edges[i] == 2 && !friction_idle(p, i, z)) {
            bool measured = normal <= tolerance && friction_squared <= tolerance * tolerance;
            friction_squared =
                larger(friction_squared, update_friction(p, i, &blocks[i], measured, v, w, z));
        }
    }
    return larger(normal, sqrt(friction_squared));
}

/* Contact i's natural-map component: its normal row's and its friction pair's. */
static tch_real contact_residual(const tch_row_problem* p, int i, const tch_vec3* v,
                                 const tch_vec3* w, const tch_real* z) {
    tch_real residual = fabs(z[i] - onto_row_bounds(p, i, z[i] - row_velocity(p, i, v, w)));
    if (p->edges[i] == 2 && !friction_idle(p, i, z)) {
        int f = p->friction_start[i];
        residual = larger(residual, disc_residual(z[f], z[f + 1], row_velocity(p, f, v, w),
                                                  row_velocity(p, f + 1, v, w),
                                                  friction_bound(p, i, z)));
    }
    return residual;
}

tch_real tch_row_residual(const tch_row_problem* p, const tch_vec3* v, const tch_vec3* w,
                          const tch_real* z) {
    tch_real residual = 0;
    for (int i = 0; i < p->nc; ++i) {
        residual = larger(residual, contact_residual(p, i, v, w, z));
    }
    return residual;
}

/* Is contact i's friction strictly inside its disc, shrunk by `share`? */
static bool friction_inside(const tch_row_problem* p, int i, const tch_real* z, tch_real share) {
    int f = p->friction_start[i];
    return z[i] > 0 && length2(z[f], z[f + 1]) < share * p->mu[i] * z[i];
}

void tch_row_errors(const tch_row_problem* p, const tch_vec3* v, const tch_vec3* w,
                    const tch_real* z, tch_real* errors) {
    for (int i = 0; i < p->nc; ++i) {
        errors[i] = inside_row_bounds(p, i, z[i]) ? row_velocity(p, i, v, w) : 0;
        bool inside = p->edges[i] == 2 && friction_inside(p, i, z, 1);
        for (int f = p->friction_start[i]; f < p->friction_start[i] + p->edges[i]; ++f) {
            errors[f] = inside ? row_velocity(p, f, v, w) : 0;
        }
    }
}

/* ---- subspace minimization ---- */

/* The regularization of A_FF, relative to its diagonal. */
static const tch_real SUBSPACE_REGULARIZATION = 1e-9;
/* A contact's friction pair is free when |z_t| is below this share of its disc's radius. */
static const tch_real FREE_FRICTION_SHARE = 1 - 1e-9;

/* The free rows: index[r] is row r's place in F, or -1. Returns |F|. */
static int free_rows(const tch_row_problem* p, const tch_real* z, int* index) {
    int count = 0;
    for (int r = 0; r < p->nr; ++r) {
        index[r] = -1;
    }
    for (int i = 0; i < p->nc; ++i) {
        if (!inside_row_bounds(p, i, z[i])) {
            continue;
        }
        index[i] = count++;
        bool inside = p->edges[i] == 2 && friction_inside(p, i, z, FREE_FRICTION_SHARE);
        for (int f = p->friction_start[i]; f < p->friction_start[i] + p->edges[i]; ++f) {
            index[f] = inside ? count++ : -1;
        }
    }
    return count;
}

/* The body a side moves for A_FF's assembly: a free body, or a tree (its rows couple through
 * its generalized velocities, contact/rows.h; a tree's index is a body that no BODY side
 * names), 0 for none. */
static int side_node(const tch_row_side* side) {
    return side->body != 0 ? side->body : side->kind == TCH_ROW_SIDE_TREE ? side->tree : 0;
}

/* Two sides' contribution to J_i M⁻¹ J_jᵀ when they move the same node. */
static tch_real side_coupling(const tch_row_side* a, const tch_row_side* b) {
    return a->kind == TCH_ROW_SIDE_TREE ? tch_row_tree_coupling(a, b)
                                        : tch_row_side_coupling(a, b);
}

/* The free rows that touch each body, as (row, side) entries: body b's are
 * entries[start[b] .. start[b + 1]). */
typedef struct body_rows {
    int* start;     /* [body_count + 1] */
    int* entries;   /* row * 2 + side */
} body_rows;

static int list_body_rows(const tch_row_problem* p, const int* index, tch_arena* arena,
                          body_rows* out) {
    out->start = tch_arena_alloc(arena, (size_t)(p->body_count + 1) * sizeof(int), "sm bodies");
    out->entries = tch_arena_alloc(arena, (size_t)p->nr * 2 * sizeof(int), "sm body rows");
    if (!out->start || !out->entries) {
        return -1;
    }
    int* start = out->start;
    memset(start, 0, (size_t)(p->body_count + 1) * sizeof(int));
    for (int r = 0; r < p->nr; ++r) {
        for (int k = 0; k < 2 && index[r] >= 0; ++k) {
            start[side_node(&p->rows[r].side[k]) + 1] += side_node(&p->rows[r].side[k]) != 0;
        }
    }
    for (int b = 0; b < p->body_count; ++b) {
        start[b + 1] += start[b];
    }
    for (int r = 0; r < p->nr; ++r) {
        for (int k = 0; k < 2 && index[r] >= 0; ++k) {
            int body = side_node(&p->rows[r].side[k]);
            if (body != 0) {
                out->entries[start[body]++] = r * 2 + k;
            }
        }
    }
    for (int b = p->body_count; b > 0; --b) {
        start[b] = start[b - 1];
    }
    start[0] = 0;
    return 0;
}

typedef struct triplet_builder {
    int* row;
    int* col;
    tch_real* value;
    int count;
} triplet_builder;

/* The upper triangle of A_FF = Σ_b J_Fb M_b⁻¹ J_Fbᵀ, body by body (duplicates are summed by
 * the sparse solve), then the regularization on the diagonal. */
static int build_free_matrix(const tch_row_problem* p, const int* index, int free_count,
                             const body_rows* bodies, tch_arena* arena, triplet_builder* t) {
    size_t capacity = (size_t)free_count;
    for (int b = 1; b < p->body_count; ++b) {
        size_t degree = (size_t)(bodies->start[b + 1] - bodies->start[b]);
        capacity += degree * (degree + 1) / 2;
    }
    t->row = tch_arena_alloc(arena, capacity * sizeof(int), "sm rows");
    t->col = tch_arena_alloc(arena, capacity * sizeof(int), "sm cols");
    t->value = tch_arena_alloc(arena, capacity * sizeof(tch_real), "sm values");
    tch_real* diagonal = tch_arena_alloc(arena, (size_t)free_count * sizeof(tch_real), "sm diag");
    if (!t->row || !t->col || !t->value || !diagonal) {
        return -1;
    }
    memset(diagonal, 0, (size_t)free_count * sizeof *diagonal);
    t->count = 0;
    for (int b = 1; b < p->body_count; ++b) {
        for (int e = bodies->start[b]; e < bodies->start[b + 1]; ++e) {
            const int ra = bodies->entries[e] / 2, sa = bodies->entries[e] % 2;
            for (int g = e; g < bodies->start[b + 1]; ++g) {
                const int rb = bodies->entries[g] / 2, sb = bodies->entries[g] % 2;
                int i = index[ra], j = index[rb];
                tch_real value = side_coupling(&p->rows[ra].side[sa], &p->rows[rb].side[sb]);
                t->row[t->count] = i < j ? i : j;
                t->col[t->count] = i < j ? j : i;
                t->value[t->count++] = value;
                diagonal[i] += i == j ? value : 0;
            }
        }
    }
    for (int i = 0; i < free_count; ++i) {
        t->row[t->count] = t->col[t->count] = i;
        /* a row that moves nothing (a friction row about a planar body's normal axis) */
        t->value[t->count++] = diagonal[i] > 0 ? SUBSPACE_REGULARIZATION * diagonal[i] : 1;
    }
    return 0;
}

/* Moves every impulse back onto its bounds (z_n >= 0, z_t in its disc), applying the change to
 * (v, w). */
static void project(const tch_row_problem* p, tch_vec3* v, tch_vec3* w, tch_real* z) {
    for (int i = 0; i < p->nc; ++i) {
        tch_real bounded = onto_row_bounds(p, i, z[i]);
        if (bounded != z[i]) {
            tch_row_add_impulse(&p->rows[i], bounded - z[i], v, w);
            z[i] = bounded;
        }
        if (p->edges[i] == 2) {
            int f = p->friction_start[i];
            tch_real t0 = z[f], t1 = z[f + 1];
            onto_disc(&t0, &t1, p->mu[i] * z[i]);
            tch_row_add_impulse(&p->rows[f], t0 - z[f], v, w);
            tch_row_add_impulse(&p->rows[f + 1], t1 - z[f + 1], v, w);
            z[f] = t0, z[f + 1] = t1;
        }
    }
}

/* The name of A_FF's factor: each free row's two bodies, in the order of F. Two islands'
 * matrices of one name have the same pattern and differ only as far as their bodies have moved
 * or turned. */
static int* free_matrix_key(const tch_row_problem* p, const int* index, int free_count,
                            tch_arena* arena) {
    int* key = tch_arena_alloc(arena, (size_t)free_count * 2 * sizeof *key, "sm key");
    for (int r = 0; r < p->nr && key; ++r) {
        if (index[r] >= 0) {
            key[2 * index[r]] = side_node(&p->rows[r].side[0]);
            key[2 * index[r] + 1] = side_node(&p->rows[r].side[1]);
        }
    }
    return key;
}

/* Which factor of A_FF a subspace step may use. */
typedef enum factor_use {
    FACTOR_KEPT_ONLY,   /* the context's factor when it was made for a matrix of A_FF's name,
                         * else none: no factorization */
    FACTOR_KEPT_FIRST,  /* that factor, else a new factorization */
    FACTOR_NEW,         /* a new factorization */
} factor_use;

/* Solves A_FF x = b in place (b: free_count reals) with the factor `use` allows: the context's
 * (*reused; A_FF is then not built), or a new factorization named for later steps.
 * TCH_ERR_NUMERICAL when `use` allows neither. */
static tch_status solve_free_system(const tch_row_problem* p, tch_sparse_spd* context,
                                    tch_arena* arena, factor_use use, const int* index,
                                    int free_count, tch_real* b, bool* reused) {
    int* key = free_matrix_key(p, index, free_count, arena);
    if (!key) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    *reused = use != FACTOR_NEW && tch_sparse_spd_has_key(context, key, 2 * free_count);
    if (*reused) {
        return tch_sparse_spd_solve_with_factor(context, free_count, b, b);
    }
    if (use == FACTOR_KEPT_ONLY) {
        return TCH_ERR_NUMERICAL;
    }
    body_rows bodies;
    triplet_builder t;
    if (list_body_rows(p, index, arena, &bodies) != 0 ||
        build_free_matrix(p, index, free_count, &bodies, arena, &t) != 0) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    tch_sparse_triplets a = {free_count, t.count, t.row, t.col, t.value};
    tch_status status = tch_sparse_spd_solve(context, &a, b, b);
    return status == TCH_OK ? tch_sparse_spd_set_key(context, key, 2 * free_count) : status;
}

/* The subspace direction Δ (every row; zero off the free set): Δz_F = −A_FF⁻¹ w_F, with the
 * factor `use` allows (solve_free_system; *reused when the context's). Returns 0, or -1 when
 * there is none (no free row, no factor allowed, out of memory, A_FF not numerically positive
 * definite). */
static int subspace_direction(const tch_row_problem* p, tch_sparse_spd* context,
                              tch_arena* arena, factor_use use, const tch_vec3* v, const tch_vec3* w,
                              const tch_real* z, tch_real* step, bool* reused) {
    *reused = false;
    int* index = tch_arena_alloc(arena, (size_t)p->nr * sizeof *index, "sm index");
    int free_count = index ? free_rows(p, z, index) : 0;
    tch_real* delta = tch_arena_alloc(arena, (size_t)p->nr * sizeof *delta, "sm delta");
    if (free_count == 0 || !delta) {
        return -1;
    }
    for (int r = 0; r < p->nr; ++r) {
        if (index[r] >= 0) {
            delta[index[r]] = -(tch_row_dot(&p->rows[r], v, w) + p->rhs[r]);
        }
    }
    if (solve_free_system(p, context, arena, use, index, free_count, delta, reused) != TCH_OK) {
        return -1;
    }
    for (int r = 0; r < p->nr; ++r) {
        step[r] = index[r] >= 0 ? delta[index[r]] : 0;
    }
    return 0;
}

/* Bisections of the ratio test on a friction disc: α to 2⁻³⁰. */
enum { RATIO_BISECTIONS = 30 };

/* Is contact i's z + α Δ within its bounds (z_n >= 0, |z_t| <= μ z_n)? */
static bool feasible_at(const tch_row_problem* p, int i, const tch_real* z, const tch_real* step,
                        tch_real alpha) {
    tch_real normal = z[i] + alpha * step[i];
    if (p->edges[i] != 2) {
        return normal >= row_lower(p, i) && normal <= row_upper(p, i);
    }
    int f = p->friction_start[i];
    return normal >= 0 && length2(z[f] + alpha * step[f], z[f + 1] + alpha * step[f + 1]) <=
                              p->mu[i] * normal;
}

/* The ratio test: the largest α in [0, 1] for which z + α Δ keeps every contact within its
 * bounds. A contact's bounds are a convex cone that holds z, so the feasible α are an interval
 * from 0; its end is found by bisection (z may already sit on a disc's rim). */
static tch_real feasible_fraction(const tch_row_problem* p, const tch_real* z,
                                  const tch_real* step) {
    tch_real alpha = 1;
    for (int i = 0; i < p->nc; ++i) {
        if (feasible_at(p, i, z, step, alpha)) {
            continue;
        }
        tch_real lo = 0, hi = alpha;
        for (int k = 0; k < RATIO_BISECTIONS; ++k) {
            tch_real mid = 0.5 * (lo + hi);
            *(feasible_at(p, i, z, step, mid) ? &lo : &hi) = mid;
        }
        alpha = lo;
    }
    return alpha;
}

/* z += α Δ, applied to (v, w), then projected onto the bounds when `projected`. */
static void move_along(const tch_row_problem* p, const tch_real* step, tch_real alpha,
                       bool projected, tch_vec3* v, tch_vec3* w, tch_real* z) {
    for (int r = 0; r < p->nr; ++r) {
        if (step[r] != 0) {
            z[r] += alpha * step[r];
            tch_row_add_impulse(&p->rows[r], alpha * step[r], v, w);
        }
    }
    if (projected) {
        project(p, v, w, z);
    }
}

/* Sets the impulses back to `saved`, applying the change to (v, w). */
static void restore(const tch_row_problem* p, const tch_real* saved, tch_vec3* v, tch_vec3* w,
                    tch_real* z) {
    for (int r = 0; r < p->nr; ++r) {
        tch_row_add_impulse(&p->rows[r], saved[r] - z[r], v, w);
        z[r] = saved[r];
    }
}

/* Moves along Δ by α (projected or not) and keeps the move only when it lowers the natural-map
 * residual from *residual, which it then updates. */
static int keep_if_better(const tch_row_problem* p, const tch_real* step, tch_real alpha,
                          bool projected, const tch_real* saved, tch_vec3* v, tch_vec3* w,
                          tch_real* z, tch_real* residual) {
    move_along(p, step, alpha, projected, v, w, z);
    tch_real after = tch_row_residual(p, v, w, z);
    if (after < *residual) {
        *residual = after;
        return 1;
    }
    restore(p, saved, v, w, z);
    return 0;
}

/* A projected subspace step from z with the factor `use` allows: returns 1 and updates
 * *residual when it lowers the natural-map residual below it; z and (v, w) are then that step's,
 * else anywhere. Its direction is left in `first` (*has_first). (Until session 5, up to two
 * more steps were solved from the active set the projection left, each with a new
 * factorization: on pile_100's settling islands they cost 16% of the CPU and seldom helped.) */
static int projected_step(const tch_row_problem* p, tch_sparse_spd* context, tch_arena* arena,
                          factor_use use, tch_real* first, bool* has_first, tch_vec3* v,
                          tch_vec3* w, tch_real* z, tch_real* residual, bool* reused) {
    *has_first = subspace_direction(p, context, arena, use, v, w, z, first, reused) == 0;
    if (!*has_first) {
        return 0;
    }
    move_along(p, first, 1, true, v, w, z);
    tch_real after = tch_row_residual(p, v, w, z);
    if (after < *residual) {
        *residual = after;
        return 1;
    }
    return 0;
}

/* A subspace move: a projected step (projected_step), else the same step stopped where the
 * first bound is met (ratio test), kept only when it lowers the natural-map residual from
 * `residual`. The projection of a whole step can raise the residual: with friction, free rows
 * near ±μ z_n overshoot their moved bounds; and A_FF may be inconsistent with w_F (two rows at
 * one point with different targets), when the regularized solve makes large impulses that cancel
 * in ν until the projection breaks them apart. Returns the residual after the move (`residual`
 * when nothing was kept). */
static tch_real try_subspace_move(const tch_row_problem* p, tch_sparse_spd* context,
                                  tch_arena* arena, tch_real residual, factor_use use,
                                  tch_vec3* v, tch_vec3* w, tch_real* z, bool* reused) {
    size_t mark = tch_arena_mark(arena);
    tch_real* saved = tch_arena_alloc(arena, (size_t)p->nr * 2 * sizeof *saved, "sm saved");
    *reused = false;
    if (saved) {
        tch_real* first = saved + p->nr;
        bool has_first;
        memcpy(saved, z, (size_t)p->nr * sizeof *saved);
        if (!projected_step(p, context, arena, use, first, &has_first, v, w, z, &residual,
                            reused)) {
            restore(p, saved, v, w, z);
            tch_real alpha = has_first ? feasible_fraction(p, z, first) : 0;
            if (alpha > 0) {
                keep_if_better(p, first, alpha, false, saved, v, w, z, &residual);
            }
        }
    }
    tch_arena_release(arena, mark);
    return residual;
}

/* A subspace step: first with the last factor when it was made for a matrix of A_FF's name (a
 * resting island's A_FF barely changes from step to step, and is then not even built), and,
 * when `factorize`, with a new factorization when there was none or it did not halve the
 * residual. */
static tch_real subspace_step(const tch_row_problem* p, tch_sparse_spd* context,
                              tch_arena* arena, tch_real residual, bool factorize, tch_vec3* v,
                              tch_vec3* w, tch_real* z) {
    bool reused;
    factor_use use = factorize ? FACTOR_KEPT_FIRST : FACTOR_KEPT_ONLY;
    tch_real after = try_subspace_move(p, context, arena, residual, use, v, w, z, &reused);
    if (factorize && reused && !(after <= 0.5 * residual)) {
        after = try_subspace_move(p, context, arena, after, FACTOR_NEW, v, w, z, &reused);
    }
    return after;
}

/* ---- the next step's warm start ---- */

/* The warm start's two-step cycle (docs/contact-lcp.md): a step that ends exact by a subspace
 * step has z = z* − A_FF⁻¹ e, z* the steady impulse and e the velocity error the last step left
 * (p->carried), since its free rows' velocities w(z) = e + A_FF (z − z*) are zero. Warm-starting
 * the next step with z would bring −e back; z + A_FF⁻¹ e does not. The correction is solved with
 * the kept factor when every row of the island is free and the factor fits that free set (a
 * resting stack), and kept only when it is small beside z
 * (STEADY_SHARE) and leaves every row inside its bounds: A_FF is regularized, and on an island
 * whose rows are nearly dependent (a settling pile's) A_FF⁻¹ e can be large along directions
 * that do not move the bodies, which would spoil the warm start instead. */
static const tch_real STEADY_SHARE = 1e-3;

/* Does z + c (c on the free rows, c[index[r]]) keep every row inside its bounds, with c small? */
static bool correction_fits(const tch_row_problem* p, const int* index, const tch_real* c,
                            const tch_real* z) {
    tch_real largest_z = 0, largest_c = 0;
    for (int r = 0; r < p->nr; ++r) {
        largest_z = larger(largest_z, fabs(z[r]));
        largest_c = larger(largest_c, index[r] >= 0 ? fabs(c[index[r]]) : 0);
    }
    bool fits = largest_c <= STEADY_SHARE * largest_z;
    for (int i = 0; i < p->nc && fits; ++i) {
        tch_real normal = z[i] + (index[i] >= 0 ? c[index[i]] : 0);
        fits = index[i] < 0 || inside_row_bounds(p, i, normal);
        int f = p->friction_start[i];
        if (fits && p->edges[i] == 2 && index[f] >= 0) {
            fits = length2(z[f] + c[index[f]], z[f + 1] + c[index[f + 1]]) < p->mu[i] * normal;
        }
    }
    return fits;
}

static void correct_steady(const tch_row_problem* p, tch_sparse_spd* context, tch_arena* arena) {
    size_t mark = tch_arena_mark(arena);
    int* index = tch_arena_alloc(arena, (size_t)p->nr * sizeof *index, "steady index");
    int free_count = index ? free_rows(p, p->steady, index) : 0;
    int* key = free_count > 0 ? free_matrix_key(p, index, free_count, arena) : NULL;
    tch_real* c = tch_arena_alloc(arena, (size_t)free_count * sizeof *c + 1, "steady c");
    if (free_count == p->nr && key && c && tch_sparse_spd_has_key(context, key, 2 * free_count)) {
        for (int r = 0; r < p->nr; ++r) {
            if (index[r] >= 0) {
                c[index[r]] = p->carried[r];
            }
        }
        if (tch_sparse_spd_solve_with_factor(context, free_count, c, c) == TCH_OK &&
            correction_fits(p, index, c, p->steady)) {
            for (int r = 0; r < p->nr; ++r) {
                p->steady[r] += index[r] >= 0 ? c[index[r]] : 0;
            }
        }
    }
    tch_arena_release(arena, mark);
}

/* problem->steady: z, corrected when the solve ended within the tolerance by a kept subspace
 * step (only then are the free rows' velocities zero, which the correction assumes). */
static void steady_impulses(const tch_row_problem* p, tch_sparse_spd* context, tch_arena* arena,
                            const tch_real* z, bool subspace_last) {
    memcpy(p->steady, z, (size_t)p->nr * sizeof *z);
    if (subspace_last && p->carried && context) {
        correct_steady(p, context, arena);
    }
}

/* ---- the solve ---- */

/* The residual is checked every CHECK_EVERY sweeps. A subspace step is tried when the residual
 * has not halved since the check before and either the solve would stop on a stall (below) or
 * SUBSPACE_AFTER_SLOW_CHECKS checks in a row found it so (a cold stack or a settling pile needs
 * thousands of sweeps). Finishing a stall exactly matters in a resting stack: the velocity error
 * an inexact step leaves comes back in the next step's warm start, about doubled, so accepting
 * residuals near the acceptance makes every later step work, while after an exact step the
 * warm start stays within the tolerance for tens of steps. After a step that was undone, the
 * next waits twice as many checks as the last wait, and after SUBSPACE_MAX_UNDONE undone steps
 * the solve takes no more: on a settling pile's islands of sliding and tilting boxes the steps
 * are undone nearly every time (pile100: 109 290 tried in 2 s), each at the cost of a
 * factorization, while a cold stack without friction has several undone before one succeeds.
 * The solve stops short of the tolerance when the residual is acceptable and has not halved
 * since the last check (a degenerate island, such as a resting pile's, would spend its whole
 * sweep limit between the acceptance and the tolerance), and, when the options say so, gives
 * up when SLOW_CHECKS checks in a row have not halved it; it then reports TCH_LCP_STALLED when
 * the last FLAT_CHECKS checks each kept the residual within a factor FLAT_SHARE of the check
 * before (neither falling nor rising: a rising residual is PGS changing its active set): on
 * a box resting on its four corners or sliding on another box, PGS can sit at a residual of
 * 1e-6 to 1e-4 for hundreds of sweeps (haptic_100, pile_100), and going on from there, as the
 * solver chain's second PGS attempt would, seldom ends the solve. */
enum { CHECK_EVERY = 8, SLOW_CHECKS = 8, SUBSPACE_AFTER_SLOW_CHECKS = 2, SUBSPACE_MAX_UNDONE = 6 };
enum { FLAT_CHECKS = 4 };
static const tch_real FLAT_SHARE = 0.95;

typedef struct progress {
    int sweeps;
    tch_real residual;
    tch_real checked;       /* the residual at the last check */
    int slow_checks;        /* checks in a row that have not halved the residual */
    int flat_checks;        /* checks in a row that have kept it within FLAT_SHARE */
    int stalled;
    int subspace_undone;    /* subspace steps undone */
    int subspace_wait;      /* checks to pass before the next subspace step */
    int subspace_backoff;   /* the wait after the next undone step */
    bool subspace_last;     /* the last move was a kept subspace step */
} progress;

static void check_progress(const tch_row_problem* p, const tch_row_solve_options* o,
                           tch_arena* arena, tch_vec3* v, tch_vec3* w, tch_real* z,
                           progress* g) {
    int halved = g->residual <= 0.5 * g->checked;
    int would_stall = g->residual <= o->accept;
    bool slow = o->budget || g->slow_checks + 1 >= SUBSPACE_AFTER_SLOW_CHECKS;
    if (!halved && (would_stall || slow) && g->residual > o->tolerance && o->subspace &&
        g->subspace_undone < SUBSPACE_MAX_UNDONE && g->subspace_wait-- <= 0) {
        tch_real before = g->residual;
        g->residual = subspace_step(p, o->subspace, arena, g->residual,
                                    !would_stall && !o->kept_factor_only, v, w, z);
        g->subspace_last = g->residual < before;
        if (g->residual == before) {
            g->subspace_undone++;
            g->subspace_wait = g->subspace_backoff;
            g->subspace_backoff *= 2;
        }
        halved = g->residual <= 0.5 * g->checked;
    }
    g->stalled = g->residual <= o->accept && !halved;
    g->slow_checks = halved ? 0 : g->slow_checks + 1;
    bool flat = g->residual >= FLAT_SHARE * g->checked && FLAT_SHARE * g->residual <= g->checked;
    g->flat_checks = flat ? g->flat_checks + 1 : 0;
    g->checked = g->residual;
}

static bool gave_up(const tch_row_solve_options* o, const progress* g) {
    return o->give_up_when_slow && g->slow_checks >= SLOW_CHECKS;
}

static int keeps_going(const tch_row_solve_options* o, const progress* g) {
    return g->residual > o->tolerance && g->sweeps < o->sweeps && !g->stalled && !gave_up(o, g);
}

/* Why the solve ended (tch_lcp_result.reason). */
static tch_lcp_reason end_reason(const tch_row_solve_options* o, const progress* g) {
    if (g->residual <= o->tolerance) {
        return TCH_LCP_SOLVED;
    }
    return gave_up(o, g) && g->flat_checks >= FLAT_CHECKS ? TCH_LCP_STALLED
                                                          : TCH_LCP_MAX_ITERATIONS;
}

/* What a sweep needs of A = J M⁻¹ Jᵀ: 1 / A_ii of every normal row (a multiplication in the
 * sweep's chain of dependent updates instead of a division) and each contact's friction block. */
typedef struct sweep_matrix {
    tch_real* normal_inverse; /* [nc] */
    tangent_block* blocks;    /* [nc] (set for the contacts with a friction pair) */
} sweep_matrix;

/* A tree's rows can depend on each other (a pad on a hinge has one direction of motion for its
 * three rows), so a friction block can be singular: its diagonal is then raised by
 * SINGULAR_BLOCK of its size, which keeps the block solve's exact minimizer finite and moves
 * the rows' velocities only along what the tree can do. A row that moves nothing (A_ii = 0)
 * takes a unit diagonal. Free bodies' blocks are positive definite: untouched. */
static const tch_real SINGULAR_BLOCK = 1e-9;

/* The friction block [a b; b c], its diagonal raised when it is singular. */
static tangent_block regularized_block(tch_real a, tch_real b, tch_real c) {
    tch_real size = a + c;
    if (!(a * c - b * b > SINGULAR_BLOCK * SINGULAR_BLOCK * size * size)) {
        a += SINGULAR_BLOCK * size + (size > 0 ? 0 : 1);
        c += SINGULAR_BLOCK * size + (size > 0 ? 0 : 1);
    }
    return tangent_block_of(a, b, c);
}

static int sweep_matrix_init(const tch_row_problem* p, tch_arena* arena, sweep_matrix* out) {
    tch_real* diagonal = tch_arena_alloc(arena, (size_t)p->nr * sizeof *diagonal, "pgs A_ii");
    out->blocks = tch_arena_alloc(arena, (size_t)p->nc * sizeof *out->blocks + 1, "pgs A_tt");
    if (!diagonal || !out->blocks) {
        return -1;
    }
    for (int r = 0; r < p->nr; ++r) {
        diagonal[r] = tch_row_coupling(&p->rows[r], &p->rows[r]);
        diagonal[r] = diagonal[r] > 0 ? diagonal[r] : 1;
    }
    for (int i = 0; i < p->nc; ++i) {
        int f = p->friction_start[i];
        if (p->edges[i] == 2) {
            out->blocks[i] = regularized_block(
                diagonal[f], tch_row_coupling(&p->rows[f], &p->rows[f + 1]), diagonal[f + 1]);
        }
        diagonal[i] = 1 / diagonal[i]; /* the normal rows come first */
    }
    out->normal_inverse = diagonal;
    return 0;
}

tch_status tch_row_solve(const tch_row_problem* p, const tch_row_solve_options* o,
                         tch_arena* arena, tch_vec3* v, tch_vec3* w, tch_real* z,
                         tch_lcp_result* result) {
    for (int r = 0; r < p->nr; ++r) {
        tch_row_add_impulse(&p->rows[r], z[r], v, w);
    }
    /* Within a budget and without new factorizations the warm start's residual is not
     * measured (a pass over the rows, which could only stop the solve before its first sweep or
     * allow a kept factor's step): the first sweep's estimate stops it at the tolerance. */
    bool unmeasured = (o->budget && o->kept_factor_only) || o->iterate_only;
    progress g = {0, unmeasured ? INFINITY : tch_row_residual(p, v, w, z), 0, 0, 0, 0, 0, 0, 1,
                  false};
    g.checked = g.residual;
    if (g.residual > o->tolerance && g.residual <= o->accept && o->subspace) {
        tch_real before = g.residual;
        g.residual = subspace_step(p, o->subspace, arena, g.residual, false, v, w, z);
        g.subspace_last = g.residual < before;
    }
    /* formed for the first sweep: a warm start often needs none */
    sweep_matrix A = {NULL, NULL};
    while (keeps_going(o, &g)) {
        if (!A.normal_inverse && sweep_matrix_init(p, arena, &A) != 0) {
            return TCH_ERR_OUT_OF_MEMORY;
        }
        tch_real estimate = sweep(p, A.normal_inverse, A.blocks, o->tolerance, v, w, z);
        if (o->iterate_only) {
            ++g.sweeps;
            g.stalled = estimate <= o->tolerance;
            continue;
        }
        g.subspace_last = false;
        /* within a budget, the last sweep is a check too (its subspace step can finish), and
         * the only one when no new factorization is allowed (its residual pass would buy only
         * a kept factor's step, which seldom fits a settling pile's free set) */
        ++g.sweeps;
        int check = (g.sweeps % CHECK_EVERY == 0 && !(o->budget && o->kept_factor_only)) ||
                    (o->budget && g.sweeps == o->sweeps);
        if (estimate <= o->tolerance || g.sweeps == o->sweeps || check) {
            g.residual = tch_row_residual(p, v, w, z);
        }
        if (check) {
            check_progress(p, o, arena, v, w, z, &g);
        }
    }
    if (p->steady) {
        steady_impulses(p, o->subspace, arena, z, g.subspace_last && g.residual <= o->tolerance);
    }
    tch_lcp_reason reason = end_reason(o, &g);
    *result = (tch_lcp_result){reason == TCH_LCP_SOLVED ? TCH_OK : TCH_ERR_NUMERICAL, reason,
                               g.sweeps, g.residual};
    return result->status;
}
