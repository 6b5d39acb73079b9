#include "math/spatial.h"

/* Writes block (bi, bj) (each 0 = angular or 1 = linear) of a 6x6 row-major matrix. */
static void set_block(tch_real out[36], int bi, int bj, tch_mat3 block) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            out[(3 * bi + i) * 6 + 3 * bj + j] = block.m[i][j];
        }
    }
}

static void set_blocks(tch_real out[36], tch_mat3 aa, tch_mat3 al, tch_mat3 la, tch_mat3 ll) {
    set_block(out, 0, 0, aa);
    set_block(out, 0, 1, al);
    set_block(out, 1, 0, la);
    set_block(out, 1, 1, ll);
}

void tch_sv_to_array(tch_spatial_vec a, tch_real out[6]) {
    out[0] = a.ang.x;
    out[1] = a.ang.y;
    out[2] = a.ang.z;
    out[3] = a.lin.x;
    out[4] = a.lin.y;
    out[5] = a.lin.z;
}

tch_spatial_vec tch_sv_from_array(const tch_real a[6]) {
    return (tch_spatial_vec){{a[0], a[1], a[2]}, {a[3], a[4], a[5]}};
}

void tch_sv_cross_motion_matrix(tch_spatial_vec v, tch_real out[36]) {
    tch_mat3 w = tch_m3_skew(v.ang);
    set_blocks(out, w, tch_m3_zero(), tch_m3_skew(v.lin), w);
}

void tch_sv_cross_force_matrix(tch_spatial_vec v, tch_real out[36]) {
    tch_mat3 w = tch_m3_skew(v.ang);
    set_blocks(out, w, tch_m3_skew(v.lin), tch_m3_zero(), w);
}

tch_spatial_transform tch_sx_identity(void) {
    return (tch_spatial_transform){tch_m3_identity(), {0, 0, 0}};
}

tch_spatial_transform tch_sx_from_transform(tch_transform X_AB) {
    return (tch_spatial_transform){tch_q_to_mat3(X_AB.q), X_AB.p};
}

/* R_BA = R_AB^T, p_BA = -R_AB^T p_AB */
tch_spatial_transform tch_sx_inverse(tch_spatial_transform X_AB) {
    return (tch_spatial_transform){tch_m3_transpose(X_AB.R),
                                   tch_v3_neg(tch_m3_tmul_v3(X_AB.R, X_AB.p))};
}

void tch_sx_motion_matrix(tch_spatial_transform X_AB, tch_real out[36]) {
    set_blocks(out, X_AB.R, tch_m3_zero(), tch_m3_mul(tch_m3_skew(X_AB.p), X_AB.R), X_AB.R);
}

void tch_sx_force_matrix(tch_spatial_transform X_AB, tch_real out[36]) {
    set_blocks(out, X_AB.R, tch_m3_mul(tch_m3_skew(X_AB.p), X_AB.R), tch_m3_zero(), X_AB.R);
}

/* Linear momentum m (v_o + w x c); angular momentum about the origin I_Cm w + c x linear. */
tch_spatial_vec tch_si_apply(tch_spatial_inertia I, tch_spatial_vec v) {
    tch_vec3 v_Cm = tch_v3_add(v.lin, tch_v3_cross(v.ang, I.p_Cm));
    tch_vec3 linear = tch_v3_scale(v_Cm, I.mass);
    return (tch_spatial_vec){tch_v3_add(tch_m3_mul_v3(I.I_Cm, v.ang), tch_v3_cross(I.p_Cm, linear)),
                             linear};
}

tch_spatial_inertia tch_si_transform(tch_spatial_transform X_AB, tch_spatial_inertia I_B) {
    return (tch_spatial_inertia){I_B.mass, tch_v3_add(tch_m3_mul_v3(X_AB.R, I_B.p_Cm), X_AB.p),
                                 tch_m3_rotate_tensor(X_AB.R, I_B.I_Cm)};
}

/* m [d]x [d]x^T = m (|d|^2 1 - d d^T): the parallel-axis term for an offset d. */
static tch_mat3 parallel_axis_term(tch_real mass, tch_vec3 d) {
    tch_mat3 skew = tch_m3_skew(d);
    return tch_m3_scale(tch_m3_mul(skew, tch_m3_transpose(skew)), mass);
}

tch_mat3 tch_si_inertia_about(tch_spatial_inertia I, tch_vec3 q) {
    return tch_m3_add(I.I_Cm, parallel_axis_term(I.mass, tch_v3_sub(I.p_Cm, q)));
}

tch_spatial_inertia tch_si_add(tch_spatial_inertia a, tch_spatial_inertia b) {
    tch_real mass = a.mass + b.mass;
    tch_vec3 c = tch_v3_zero();
    if (mass > 0) {
        c = tch_v3_scale(tch_v3_add(tch_v3_scale(a.p_Cm, a.mass), tch_v3_scale(b.p_Cm, b.mass)),
                         1 / mass);
    }
    return (tch_spatial_inertia){
        mass, c, tch_m3_add(tch_si_inertia_about(a, c), tch_si_inertia_about(b, c))};
}

/* Featherstone eq. 2.63 */
void tch_si_matrix(tch_spatial_inertia I, tch_real out[36]) {
    tch_mat3 mc = tch_m3_scale(tch_m3_skew(I.p_Cm), I.mass);
    set_blocks(out, tch_si_inertia_about(I, tch_v3_zero()), mc, tch_m3_transpose(mc),
               tch_m3_scale(tch_m3_identity(), I.mass));
}

tch_spatial_rbi tch_rbi_from_inertia(tch_spatial_inertia I) {
    return (tch_spatial_rbi){I.mass, tch_v3_scale(I.p_Cm, I.mass),
                             tch_si_inertia_about(I, tch_v3_zero())};
}
