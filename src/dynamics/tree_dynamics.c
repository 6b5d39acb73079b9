/* Kinematic trees: RNEA, CRBA with the tree-sparse L^T D L factorization, ABA, and the
 * contact-space products (Featherstone 2008, chapters 5 to 7; seeds/003 eqs. 1, 4 and 17). */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "dynamics/tree.h"
#include "math/lanes.h"

/* a_0 = -a_g: gravity as an upward acceleration of the world (Featherstone sec. 5.3). */
static inline tch_spatial_vec world_acceleration(const tch_tree* t) {
    return tch_sv(tch_v3_zero(), tch_v3_neg(t->gravity));
}

static inline tch_spatial_vec parent_acceleration(const tch_tree* t, const tch_tree_data* d, int l) {
    int parent = t->links[l].parent;
    return parent >= 0 ? d->a[parent] : world_acceleration(t);
}

/* Adds link l's force, carried into its parent's frame, to the parent's. */
TCH_CLONE_AVX2 static void pass_force_to_parent(const tch_tree* t, tch_tree_data* d, int l, tch_spatial_vec f) {
    int parent = t->links[l].parent;
    if (parent >= 0) {
        d->f[parent] = tch_sv_add(d->f[parent], tch_sx_apply_force(d->X_up[l], f));
    }
}

/* Table 5.1: a_i = ^iX_lambda a_lambda + S qdd + c_i, f_i = I a_i + v_i x* I v_i (eq. 5.9),
 * then tau_i = S^T f_i and f_lambda += ^lambdaX_i^* f_i from the leaves in. Armature adds
 * its rotor torque a qdd to each dof. A link without inertia (a body's inner joint) has f = 0
 * before its children's forces arrive. */
TCH_CLONE_AVX2 void tch_tree_rnea(const tch_tree* t, tch_tree_data* d, const tch_real* qacc, tch_real* tau) {
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        tch_spatial_vec a = tch_sv_add(
            tch_sx_apply_inverse_motion(d->X_up[l], parent_acceleration(t, d, l)), d->c[l]);
        if (qacc) {
            a = tch_sv_add(a, tch_tree_link_motion(link, qacc));
        }
        d->a[l] = a;
        if (link->has_inertia) {
            tch_spatial_vec momentum = tch_rbi_apply(link->inertia, d->v[l]);
            d->f[l] =
                tch_sv_add(tch_rbi_apply(link->inertia, a), tch_sv_cross_force(d->v[l], momentum));
        } else {
            d->f[l] = tch_sv_zero();
        }
    }
    for (int l = t->link_count - 1; l >= 0; --l) {
        const tch_tree_link* link = &t->links[l];
        for (int k = 0; k < link->dof_count; ++k) {
            int dof = link->dof + k;
            tau[dof] = tch_tree_link_dof_force(link, k, d->f[l]) +
                       (qacc ? t->dof_armature[dof] * qacc[dof] : 0);
        }
        pass_force_to_parent(t, d, l, d->f[l]);
    }
}

/* The CRBA in the frame T_l of world axes at the origin of link l's top link (the root of its
 * subtree of the world; MuJoCo's mj_crb works likewise about the subtree's centre of mass):
 * every link of a subtree shares it, so composite inertias add entry by entry and
 * H_kj = S_j^T I^c_i S_k (table 6.2) is a 6-vector dot product for each ancestor dof j of k,
 * with no transform along the path. The link frame in T_l. */
static inline tch_spatial_transform link_in_top_frame(const tch_tree* t, const tch_tree_data* d, int l) {
    tch_spatial_transform X = d->X_world[l];
    X.p = tch_v3_sub(X.p, d->X_world[t->links[l].top].p);
    return X;
}

/* The RNEA's forward pass for link l in its top frame T_l (above), a fixed frame with world
 * axes, where the spatial algebra of table 5.1 holds as in any fixed frame (Featherstone sec.
 * 5.3, "in base coordinates"): v_i = v_lambda + S_i qd, a_i = a_lambda + v_i x S_i qd (S moves
 * with the link: its rate is v_i x S_i, eq. 2.31 and sec. 3.3), f_i = I_i a_i + v_i x* I_i v_i
 * with the link inertia I_i already in T_l. A link and its parent share T_l; a top link's parent
 * is the world, at rest with a_0 = -a_g. */
TCH_CLONE_AVX2 static void bias_forward_link(const tch_tree* t, tch_tree_data* d, int l, tch_spatial_rbi I,
                              const tch_real* qvel) {
    const tch_tree_link* link = &t->links[l];
    int parent = link->parent;
    tch_spatial_vec v = parent >= 0 ? d->v_top[parent] : tch_sv_zero();
    tch_spatial_vec vJ = tch_sv_zero();
    for (int k = link->dof; k < link->dof + link->dof_count; ++k) {
        vJ = tch_sv_add(vJ, tch_sv_scale(d->S_top[k], qvel[k]));
    }
    v = tch_sv_add(v, vJ);
    d->v_top[l] = v;
    d->a[l] = tch_sv_add(parent_acceleration(t, d, l), tch_sv_cross_motion(v, vJ));
    d->f[l] = link->has_inertia ? tch_sv_add(tch_rbi_apply(I, d->a[l]),
                                             tch_sv_cross_force(v, tch_rbi_apply(I, v)))
                                : tch_sv_zero();
}

/* Table 6.2 in the top frames (above): I^c_i = sum of the subtree's inertias, then
 * F = I^c_i S_k and H_kj = S_j . F for k and every dof j on its path to the root (lambda,
 * sec. 6.5). Entries of dofs on different branches are never written: zero from creation.
 * With qvel, the RNEA of the bias force (table 5.1 with qdd = 0) runs in the same frames on the
 * same link inertias and S columns: forward per link (bias_forward_link), then the forces add
 * toward the root with no transform, and bias_k = S_k . f. */
TCH_CLONE_AVX2 static void composite_rigid_body(const tch_tree* t, tch_tree_data* d, const tch_real* qvel,
                                 tch_real* bias) {
    tch_spatial_rbi* Ic = d->I_composite;
    tch_spatial_vec* S = d->S_top;
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        tch_spatial_transform X = link_in_top_frame(t, d, l);
        Ic[l] = link->has_inertia ? tch_rbi_transform(X, link->inertia) : (tch_spatial_rbi){0};
        for (int k = link->dof; k < link->dof + link->dof_count; ++k) {
            S[k] = tch_tree_link_dof_motion(link, k - link->dof, &X);
        }
        if (bias) {
            bias_forward_link(t, d, l, Ic[l], qvel);
        }
    }
    for (int l = t->link_count - 1; l >= 0; --l) {
        int parent = t->links[l].parent;
        if (parent >= 0) {
            Ic[parent] = tch_rbi_add(Ic[parent], Ic[l]);
            if (bias) {
                d->f[parent] = tch_sv_add(d->f[parent], d->f[l]);
            }
        }
    }
    int nv = t->nv;
    tch_sv_lanes* S_lanes = d->S_lanes;
    for (int k = 0; k < nv; ++k) {
        S_lanes[k] = tch_sv_to_lanes(S[k]);
    }
    for (int k = 0; k < nv; ++k) {
        tch_sv_lanes F = tch_sv_to_lanes(tch_rbi_apply(Ic[t->dof_link[k]], S[k]));
        const int* path = &t->dof_path[t->dof_row[k]]; /* k and its ancestors (lambda) */
        for (int m = 0; m <= t->dof_depth[k]; ++m) {
            int j = path[m];
            d->M[k * nv + j] = d->M[j * nv + k] = tch_sv_lanes_dot(S_lanes[j], F);
        }
        d->M[k * nv + k] += t->dof_armature[k];
        if (bias) {
            bias[k] = tch_sv_dot(S[k], d->f[t->dof_link[k]]);
        }
    }
}

void tch_tree_mass_matrix(const tch_tree* t, tch_tree_data* d) {
    composite_rigid_body(t, d, NULL, NULL);
}

void tch_tree_mass_matrix_bias(const tch_tree* t, tch_tree_data* d, const tch_real* qvel,
                               tch_real* bias) {
    composite_rigid_body(t, d, qvel, bias);
}

static tch_status not_positive(const tch_tree* t, int dof, const char* what, tch_error* err) {
    int joint = t->links[t->dof_link[dof]].joint;
    const char* name = joint >= 0 ? t->joints[joint].name : "";
    tch_fail(err, TCH_ERR_NUMERICAL, NULL, 0,
             "joint '%s' (dof %d): %s is not positive: the joint moves no mass and has no "
             "armature",
             name, dof, what);
    tch_error_set_element(err, name);
    return TCH_ERR_NUMERICAL;
}

/* y -= a x over n entries, y and x disjoint (rows of the factor, or of
 * the factor and of a scratch). */
static inline void subtract_scaled(tch_real* restrict y, const tch_real* restrict x, tch_real a, int n) {
    for (int k = 0; k < n; ++k) {
        y[k] -= x[k] * a;
    }
}

/* y1[0..n] -= x[0..n] a1 and y0[0..n) -= x[0..n) a0: the updates of two ancestors' rows by one
 * row of the factor, sharing its loads, two entries at a time (each entry takes the operations
 * it takes alone). */
static inline void subtract_scaled_pair(tch_real* restrict y1, tch_real* restrict y0,
                                 const tch_real* restrict x, tch_real a1, tch_real a0, int n) {
    tch_real2 a1_2 = tch_splat2(a1), a0_2 = tch_splat2(a0);
    int k = 0;
    for (; k + 1 < n; k += 2) {
        tch_real2 x2 = tch_load2(&x[k]);
        tch_store2(&y1[k], tch_load2(&y1[k]) - x2 * a1_2);
        tch_store2(&y0[k], tch_load2(&y0[k]) - x2 * a0_2);
    }
    for (; k < n; ++k) {
        y1[k] -= x[k] * a1;
        y0[k] -= x[k] * a0;
    }
    y1[n] -= x[n] * a1;
}

/* Table 6.3, the L^T D L factorization H = L^T D L over the expanded parent array lambda
 * (sec. 6.5): no fill-in, so the work is that of the nonzeros of a branch-induced sparse H.
 * In the packed rows (tch_tree.dof_row) the ancestors i of k have as their row the first
 * depth(i) + 1 entries of k's, so H_ij -= H_kj a runs over a contiguous stretch of both; the
 * ancestors are taken two at a time (rows of depth m and m - 1 share the stretch of k's row). */
TCH_CLONE_AVX2 tch_status tch_tree_factor(const tch_tree* t, tch_tree_data* d, tch_error* err) {
    int nv = t->nv;
    tch_real* LD = d->LD;
    for (int k = 0; k < nv; ++k) {
        const int* path = &t->dof_path[t->dof_row[k]];
        tch_real* row = &LD[t->dof_row[k]];
        const tch_real* M_k = &d->M[k * nv];
        for (int m = 0; m <= t->dof_depth[k]; ++m) {
            row[m] = M_k[path[m]];
        }
    }
    for (int k = nv - 1; k >= 0; --k) {
        int depth = t->dof_depth[k];
        tch_real* row_k = &LD[t->dof_row[k]];
        if (!(row_k[depth] > 0)) {
            return not_positive(t, k, "the mass matrix pivot", err);
        }
        tch_real inverse_pivot = 1 / row_k[depth];
        d->inverse_pivot[k] = inverse_pivot;
        const int* ancestor_row = &t->dof_path_row[t->dof_row[k]]; /* of depth m at m */
        int m = depth - 1;
        for (; m >= 1; m -= 2) { /* the ancestors of depths m and m - 1 */
            tch_real a1 = row_k[m] * inverse_pivot, a0 = row_k[m - 1] * inverse_pivot;
            subtract_scaled_pair(&LD[ancestor_row[m]], &LD[ancestor_row[m - 1]], row_k, a1, a0,
                                 m);
            row_k[m] = a1;
            row_k[m - 1] = a0;
        }
        if (m == 0) {
            tch_real a = row_k[0] * inverse_pivot;
            LD[ancestor_row[0]] -= row_k[0] * a;
            row_k[0] = a;
        }
    }
    return TCH_OK;
}

/* x = L^-T x (table 6.4) over the dofs first .. first + count (x[0] is dof first's; every
 * ancestor of a dof of the range is in it): with L unit lower over lambda, from the last dof
 * back. */
TCH_CLONE_AVX2 static void solve_LT(const tch_tree* t, const tch_real* LD, int first, int count, tch_real* x) {
    for (int k = first + count - 1; k >= first; --k) {
        tch_real xk = x[k - first];
        if (xk != 0) {
            const tch_real* row = &LD[t->dof_row[k]];
            const int* path = &t->dof_path[t->dof_row[k]];
            for (int m = 0; m < t->dof_depth[k]; ++m) {
                x[path[m] - first] -= row[m] * xk;
            }
        }
    }
}

/* x = L^-1 x (table 6.4) over the same range, from the root out. */
static void solve_L(const tch_tree* t, const tch_real* LD, int first, int count, tch_real* x) {
    for (int k = first; k < first + count; ++k) {
        const tch_real* row = &LD[t->dof_row[k]];
        const int* path = &t->dof_path[t->dof_row[k]];
        tch_real sum = 0;
        for (int m = 0; m < t->dof_depth[k]; ++m) {
            sum += row[m] * x[path[m] - first];
        }
        x[k - first] -= sum;
    }
}

/* H^-1 = L^-1 D^-1 L^-T */
TCH_CLONE_AVX2 void tch_tree_solve_range(const tch_tree* t, const tch_tree_data* d, int first, int count,
                          tch_real* x) {
    solve_LT(t, d->LD, first, count, x);
    for (int k = first; k < first + count; ++k) {
        x[k - first] *= d->inverse_pivot[k];
    }
    solve_L(t, d->LD, first, count, x);
}

void tch_tree_solve(const tch_tree* t, const tch_tree_data* d, tch_real* x) {
    tch_tree_solve_range(t, d, 0, t->nv, x);
}

void tch_tree_solve_rows(const tch_tree* t, const tch_tree_data* d, int m, tch_real* rows) {
    for (int r = 0; r < m; ++r) {
        tch_tree_solve(t, d, &rows[(size_t)r * t->nv]);
    }
}

/* The dof whose path (tch_tree.dof_path) holds every nonzero of the row J[0 .. nv): the last
 * nonzero's, as for a point Jacobian, which acts on the point's link and its ancestors. -1 for
 * a zero row, -2 when a nonzero lies off that path. */
static inline int row_path_dof(const tch_tree* t, const tch_real* J) {
    int last = t->nv - 1;
    while (last >= 0 && J[last] == 0) {
        --last;
    }
    if (last < 0) {
        return -1;
    }
    const int* path = &t->dof_path[t->dof_row[last]]; /* ascending, last at its end */
    for (int k = 0, m = 0; k < last; ++k) {
        if (path[m] == k) {
            ++m;
        } else if (J[k] != 0) {
            return -2;
        }
    }
    return last;
}

/* w = L^-T w along the path of dof k, w[m] being the entry of its m-th dof: the ancestor at
 * depth m has as its row the first m entries of k's, so this is a dense triangular solve. */
static void solve_LT_path(const tch_tree* t, const tch_real* LD, int k, tch_real* w) {
    const int* path = &t->dof_path[t->dof_row[k]];
    for (int m = t->dof_depth[k]; m > 0; --m) {
        subtract_scaled(w, &LD[t->dof_row[path[m]]], w[m], m);
    }
}

/* The number of dofs the paths of dofs a and b share from the root (0 if either is -1). */
static inline int common_path_length(const tch_tree* t, int a, int b) {
    if (a < 0 || b < 0) {
        return 0;
    }
    if (a == b) {
        return t->dof_depth[a] + 1;
    }
    const int* path_a = &t->dof_path[t->dof_row[a]];
    const int* path_b = &t->dof_path[t->dof_row[b]];
    int n = 1 + (t->dof_depth[a] < t->dof_depth[b] ? t->dof_depth[a] : t->dof_depth[b]), m = 0;
    while (m < n && path_a[m] == path_b[m]) {
        ++m;
    }
    return m;
}

/* The end of the run of rows from r on with row r's dof. */
static inline int run_end(const int* row_dof, int r, int m) {
    int end = r + 1;
    while (end < m && row_dof[end] == row_dof[r]) {
        ++end;
    }
    return end;
}

/* a . b over n entries, in two interleaved sums (independent chains of additions). */
static inline tch_real dot(const tch_real* a, const tch_real* b, int n) {
    tch_real even = 0, odd = 0;
    int k = 0;
    for (; k + 1 < n; k += 2) {
        even += a[k] * b[k];
        odd += a[k + 1] * b[k + 1];
    }
    if (k < n) {
        even += a[k] * b[k];
    }
    return even + odd;
}

/* J H^-1 J^T = W^T D^-1 W with W = L^-T J^T (tables 6.3, 6.4). A row of J whose nonzeros lie on
 * one dof's path (a point Jacobian) keeps them there through L^-T, so its column of W is
 * computed and multiplied in the path's own indices: an entry costs the dofs two paths share.
 * When a row is not of that kind, every column is computed over all nv dofs. */
void tch_tree_inverse_inertia(const tch_tree* t, tch_tree_data* d, int m, const tch_real* J,
                              tch_real* inverse_inertia) {
    TCH_ASSERT(m <= d->max_rows);
    int nv = t->nv;
    bool along_paths = true;
    for (int r = 0; r < m; ++r) {
        d->row_dof[r] = row_path_dof(t, &J[r * nv]);
        along_paths = along_paths && d->row_dof[r] != -2;
    }
    tch_real* W = d->rows;                  /* column r of W, in its path's indices */
    tch_real* Z = &d->rows[(size_t)m * nv]; /* D^-1 times it */
    for (int r = 0; r < m; ++r) {
        tch_real *w = &W[r * nv], *z = &Z[r * nv];
        const tch_real* J_r = &J[r * nv];
        int k = d->row_dof[r];
        if (!along_paths) {
            memcpy(w, J_r, (size_t)nv * sizeof *w);
            solve_LT(t, d->LD, 0, nv, w);
            for (int n = 0; n < nv; ++n) {
                z[n] = w[n] * d->inverse_pivot[n];
            }
        } else if (k >= 0) {
            const int* path = &t->dof_path[t->dof_row[k]];
            for (int n = 0; n <= t->dof_depth[k]; ++n) {
                w[n] = J_r[path[n]];
            }
            solve_LT_path(t, d->LD, k, w);
            for (int n = 0; n <= t->dof_depth[k]; ++n) {
                z[n] = w[n] * d->inverse_pivot[path[n]];
            }
        }
    }
    /* by runs of rows on one path (a point's three rows): one path comparison per pair of runs */
    for (int r = 0, r_end; r < m; r = r_end) {
        r_end = run_end(d->row_dof, r, m);
        for (int s = r, s_end; s < m; s = s_end) {
            s_end = run_end(d->row_dof, s, m);
            int shared = along_paths ? common_path_length(t, d->row_dof[r], d->row_dof[s]) : nv;
            for (int i = r; i < r_end; ++i) {
                for (int j = s == r ? i : s; j < s_end; ++j) {
                    inverse_inertia[i * m + j] = inverse_inertia[j * m + i] =
                        dot(&Z[i * nv], &W[j * nv], shared);
                }
            }
        }
    }
}

/* ---- articulated-body algorithm (table 7.1) ---- */

/* D = S^T U + armature for a link's n dofs (table 7.1), inverted into d->D_inverse; returns the
 * first dof whose pivot is not positive, or -1. */
static inline int invert_joint_inertia(const tch_tree* t, tch_tree_data* d, int l) {
    const tch_tree_link* link = &t->links[l];
    int n = link->dof_count, first = link->dof;
    tch_mat3 D = tch_m3_identity();
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            D.m[i][j] = tch_tree_link_dof_force(link, i, d->U[first + j]);
        }
        D.m[i][i] += t->dof_armature[first + i];
    }
    /* positive definite: the leading minors are positive (Sylvester) */
    tch_real minor2 = D.m[0][0] * D.m[1][1] - D.m[0][1] * D.m[1][0];
    if (!(D.m[0][0] > 0)) {
        return first;
    }
    if (n == 1) {
        d->D_inverse[l] = tch_m3_diag((tch_vec3){1 / D.m[0][0], 0, 0});
        return -1;
    }
    if (!(minor2 > 0)) {
        return first + 1;
    }
    if (!(tch_m3_det(D) > 0) || !tch_m3_inverse(D, &d->D_inverse[l])) {
        return first + 2;
    }
    return -1;
}

/* I^A S_k for a link's dof k: with S a unit column, a column of I^A = [A B; B^T C]. */
static inline tch_spatial_vec articulated_times_subspace(const tch_spatial_abi* I,
                                                  const tch_tree_link* link, int k) {
    const tch_mat3 *A = &I->A, *B = &I->B, *C = &I->C;
    switch (link->type) {
    case TCH_TREE_LINK_HINGE:
    case TCH_TREE_LINK_BALL: /* (A e_k, B^T e_k) */
        k = link->type == TCH_TREE_LINK_HINGE ? 2 : k;
        return tch_sv((tch_vec3){A->m[0][k], A->m[1][k], A->m[2][k]},
                      (tch_vec3){B->m[k][0], B->m[k][1], B->m[k][2]});
    case TCH_TREE_LINK_SLIDE:
    case TCH_TREE_LINK_TRANSLATION: /* (B e_k, C e_k) */
        k = link->type == TCH_TREE_LINK_SLIDE ? 2 : k;
        return tch_sv((tch_vec3){B->m[0][k], B->m[1][k], B->m[2][k]},
                      (tch_vec3){C->m[0][k], C->m[1][k], C->m[2][k]});
    case TCH_TREE_LINK_WELD:
        break;
    }
    return tch_sv_zero();
}

/* Pass 2 for link l: U = I^A S, D, u = tau - S^T p^A, and the articulated inertia and bias
 * force it hands to its parent, I^a = I^A - U D^-1 U^T and p^a = p^A + I^a c + U D^-1 u
 * (table 7.1, sec. 7.3). */
TCH_CLONE_AVX2 static int articulate_link(const tch_tree* t, tch_tree_data* d, int l, const tch_real* tau) {
    const tch_tree_link* link = &t->links[l];
    tch_spatial_abi Ia = d->I_articulated[l];
    tch_spatial_vec pa = d->f[l];
    int n = link->dof_count, first = link->dof;
    if (n > 0) {
        for (int k = 0; k < n; ++k) {
            d->U[first + k] = articulated_times_subspace(&Ia, link, k);
            d->u[first + k] = tau[first + k] - tch_tree_link_dof_force(link, k, pa);
        }
        int bad = invert_joint_inertia(t, d, l);
        if (bad >= 0) {
            return bad;
        }
        const tch_mat3* Dinv = &d->D_inverse[l];
        for (int i = 0; i < n; ++i) {
            tch_spatial_vec W = tch_sv_zero(); /* (U D^-1)_i */
            tch_real Dinv_u = 0;
            for (int j = 0; j < n; ++j) {
                W = tch_sv_add(W, tch_sv_scale(d->U[first + j], Dinv->m[j][i]));
                Dinv_u += Dinv->m[i][j] * d->u[first + j];
            }
            Ia = tch_abi_sub_outer(Ia, W, d->U[first + i]);
            pa = tch_sv_add(pa, tch_sv_scale(d->U[first + i], Dinv_u));
        }
    }
    int parent = link->parent;
    if (parent >= 0) {
        pa = tch_sv_add(pa, tch_abi_apply(Ia, d->c[l]));
        d->I_articulated[parent] =
            tch_abi_add(d->I_articulated[parent], tch_abi_transform(d->X_up[l], Ia));
        pass_force_to_parent(t, d, l, pa);
    }
    return -1;
}

/* Pass 3 for link l: a' = ^iX_lambda a_lambda + c, qdd = D^-1 (u - U^T a'), a = a' + S qdd. */
static inline void accelerate_link(const tch_tree* t, tch_tree_data* d, int l, tch_real* qacc) {
    const tch_tree_link* link = &t->links[l];
    tch_spatial_vec a =
        tch_sv_add(tch_sx_apply_inverse_motion(d->X_up[l], parent_acceleration(t, d, l)), d->c[l]);
    int n = link->dof_count, first = link->dof;
    tch_real rhs[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
        rhs[i] = d->u[first + i] - tch_sv_dot(a, d->U[first + i]);
    }
    for (int i = 0; i < n; ++i) {
        const tch_mat3* Dinv = &d->D_inverse[l];
        qacc[first + i] = Dinv->m[i][0] * rhs[0] + Dinv->m[i][1] * rhs[1] + Dinv->m[i][2] * rhs[2];
    }
    d->a[l] = tch_sv_add(a, tch_tree_link_motion(link, qacc));
}

TCH_CLONE_AVX2 tch_status tch_tree_aba(const tch_tree* t, tch_tree_data* d, const tch_real* tau, tch_real* qacc,
                        tch_error* err) {
    for (int l = 0; l < t->link_count; ++l) { /* pass 1: I^A = I, p^A = v x* I v */
        const tch_spatial_rbi I = t->links[l].inertia;
        d->I_articulated[l] = tch_abi_from_rbi(I);
        d->f[l] = tch_sv_cross_force(d->v[l], tch_rbi_apply(I, d->v[l]));
    }
    for (int l = t->link_count - 1; l >= 0; --l) {
        int bad = articulate_link(t, d, l, tau);
        if (bad >= 0) {
            return not_positive(t, bad, "the articulated inertia", err);
        }
    }
    for (int l = 0; l < t->link_count; ++l) {
        accelerate_link(t, d, l, qacc);
    }
    return TCH_OK;
}
