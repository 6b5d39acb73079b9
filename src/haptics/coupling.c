/* The virtual coupling (Colgate, Stanley and Brown 1995; Adams and Hannaford 1999): a linear and
 * a rotational spring-damper between the device pose and a simulated tool body, integrated
 * implicitly (touche/haptics.h). */
#include <math.h>

#include "haptics/render.h"
#include "haptics/rotation.h"
#include "math/vec.h"
#include "touche/haptics.h"

/* The rated stiffness when a device spec gives none, N/m (a desktop device's, haptics.md). */
static const tch_real FALLBACK_STIFFNESS = 500;

static tch_real or_default(tch_real value, tch_real fallback) {
    return isnan(value) ? fallback : value;
}

tch_haptic_coupling_gains tch_haptic_coupling_gains_of(const tch_model* m, int body,
                                                       const tch_haptic_spec* spec) {
    const tch_haptic_def* def = &m->body_haptic[body];
    int tool = m->body_haptic_tool[body];
    tch_real mass = m->body_total_mass[tool];
    const tch_mat3* I = &m->body_total_I_BCm[tool];
    tch_real inertia = (I->m[0][0] + I->m[1][1] + I->m[2][2]) / 3;
    tch_haptic_coupling_gains g;
    g.linear_stiffness = or_default(
        def->linear_stiffness,
        spec && spec->max_stiffness > 0 ? spec->max_stiffness : FALLBACK_STIFFNESS);
    g.linear_damping = or_default(def->linear_damping, 2 * sqrt(g.linear_stiffness * mass));
    g.angular_stiffness = or_default(def->angular_stiffness, g.linear_stiffness * inertia / mass);
    g.angular_damping = or_default(def->angular_damping, 2 * sqrt(g.angular_stiffness * inertia));
    return g;
}

/* Where the device wants the tool's centre of mass, and that point's velocity. */
static void target_of(const tch_model* m, int tool, const tch_haptic_state* device,
                      tch_vec3* p_W, tch_vec3* v_W) {
    *p_W = tch_x_apply(device->pose, m->body_total_p_BCm[tool]);
    *v_W = tch_v3_add(device->velocity,
                      tch_v3_cross(device->angular, tch_v3_sub(*p_W, device->pose.p)));
}

void tch_haptic_snapshot_tool(const tch_data* d, int tool, tch_haptic_snapshot* snapshot) {
    snapshot->tool_p_WCm = d->body_p_WCm[tool];
    snapshot->tool_v_WCm = d->body_v_WCm[tool];
    snapshot->tool_w_W = d->body_w_W[tool];
    snapshot->tool_q_WB = d->body_X_WB[tool].q;
    snapshot->tool_I_inv_W = d->body_I_inv_W[tool];
}

/* theta = log(q_T q_D*): the tool's rotation away from the device's, world frame. */
static tch_vec3 rotation_error(const tch_haptic_snapshot* s, const tch_haptic_state* device) {
    return tch_haptic_rotvec_of(tch_q_mul(s->tool_q_WB, tch_q_conj(device->pose.q)));
}

void tch_haptic_coupling_wrench_of(const tch_model* m, int tool, const tch_haptic_snapshot* s,
                                   const tch_haptic_state* device,
                                   const tch_haptic_coupling_gains* g, tch_real h,
                                   tch_vec3* force_W, tch_vec3* torque_W) {
    tch_vec3 target, target_v;
    target_of(m, tool, device, &target, &target_v);
    tch_real mass = m->body_total_mass[tool];
    /* linear: backward Euler of m v' = f + m g, f = -k e - b (v - v_d), e' = v - v_d */
    tch_real c = g->linear_damping + h * g->linear_stiffness;
    tch_vec3 e = tch_v3_sub(s->tool_p_WCm, target);
    tch_vec3 slip = tch_v3_madd(tch_v3_sub(s->tool_v_WCm, target_v), h, m->gravity);
    tch_vec3 pull = tch_v3_add(tch_v3_scale(e, g->linear_stiffness), tch_v3_scale(slip, c));
    *force_W = tch_v3_scale(pull, -1 / (1 + h * c / mass));
    /* rotational: backward Euler of I w' = tau, tau = -k_r theta - b_r (w - w_d) */
    tch_real c_r = g->angular_damping + h * g->angular_stiffness;
    tch_vec3 spin = tch_v3_sub(s->tool_w_W, device->angular);
    tch_vec3 twist = tch_v3_add(tch_v3_scale(rotation_error(s, device), g->angular_stiffness),
                                tch_v3_scale(spin, c_r));
    tch_mat3 A = tch_m3_add(tch_m3_identity(), tch_m3_scale(s->tool_I_inv_W, h * c_r));
    tch_mat3 A_inv;
    *torque_W = tch_m3_inverse(A, &A_inv) ? tch_m3_mul_v3(A_inv, tch_v3_scale(twist, -1))
                                          : tch_v3_scale(twist, -1);
}

void tch_haptic_coupling_spring_of(const tch_model* m, int tool, const tch_haptic_snapshot* s,
                                   const tch_haptic_state* device,
                                   const tch_haptic_coupling_gains* g, tch_real lead,
                                   tch_vec3* force_W, tch_vec3* torque_W) {
    tch_vec3 target, target_v;
    target_of(m, tool, device, &target, &target_v);
    /* f = -k (e - lead v_d) - b (v - v_d): the spring stretched to where the device goes */
    tch_vec3 e = tch_v3_madd(tch_v3_sub(s->tool_p_WCm, target), -lead, target_v);
    tch_vec3 slip = tch_v3_sub(s->tool_v_WCm, target_v);
    *force_W = tch_v3_scale(tch_v3_add(tch_v3_scale(e, g->linear_stiffness),
                                       tch_v3_scale(slip, g->linear_damping)),
                            -1);
    tch_vec3 theta = tch_v3_madd(rotation_error(s, device), -lead, device->angular);
    tch_vec3 spin = tch_v3_sub(s->tool_w_W, device->angular);
    *torque_W = tch_v3_scale(tch_v3_add(tch_v3_scale(theta, g->angular_stiffness),
                                        tch_v3_scale(spin, g->angular_damping)),
                             -1);
}

tch_applied_spring tch_haptic_coupling_applied_spring(int tool,
                                                      const tch_haptic_coupling_gains* g) {
    return (tch_applied_spring){.body = tool,
                                .stiffness = g->linear_stiffness,
                                .damping = g->linear_damping,
                                .angular_stiffness = g->angular_stiffness,
                                .angular_damping = g->angular_damping};
}

void tch_haptic_coupling_wrench(const tch_model* m, const tch_data* d, int tool,
                                const tch_haptic_state* device,
                                const tch_haptic_coupling_gains* g, tch_real h,
                                tch_vec3* force_W, tch_vec3* torque_W) {
    tch_haptic_snapshot s;
    tch_haptic_snapshot_tool(d, tool, &s);
    tch_haptic_coupling_wrench_of(m, tool, &s, device, g, h, force_W, torque_W);
}

tch_real tch_haptic_coupling_energy(const tch_model* m, int tool, const tch_haptic_snapshot* s,
                                    const tch_haptic_state* device,
                                    const tch_haptic_coupling_gains* g) {
    tch_vec3 target = tch_x_apply(device->pose, m->body_total_p_BCm[tool]);
    tch_real stretch = tch_v3_norm2(tch_v3_sub(s->tool_p_WCm, target));
    tch_real twist = tch_v3_norm2(rotation_error(s, device));
    return 0.5 * g->linear_stiffness * stretch + 0.5 * g->angular_stiffness * twist;
}
