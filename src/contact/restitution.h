/* Restitution of the force models `point` and `volume` (docs/contact-point.md, "Restitution"):
 * a contact remembers the normal speed at which it closed and, while it is in its impact
 * phase, is a stiff damper that drives its separation speed to e times that speed, instead of
 * the spring-damper law.
 *
 * Why not a damping ratio: a linear spring-damper's restitution exp(-zeta pi / sqrt(1 - zeta^2))
 * (the classical relation, e.g. Marhefka and Orin 1999, eq. 4) holds for the continuous
 * oscillator only. Integrated by the linearly implicit Euler step at h omega ~ 1 (the default
 * material, 1e6 N/m per point, against a 0.5 kg body), the step's own damping and the
 * contact's first step, taken explicitly, decide the rebound: e = 0.5 gave 0.40, 0.17 and 0.58
 * at dt 0.5, 1 and 2 ms. Walton and Braun's loading/unloading springs (1986; unloading
 * stiffness k / e^2) and Hunt and Crossley's dissipation (lambda = 3/2 alpha k, alpha from e by
 * Marhefka and Orin's eq. 8) share the problem: their e is a property of the continuous
 * impact, which a step of the order of its duration does not resolve.
 *
 * The law here is a velocity target, Newton's restitution as the lcp model applies it (Stewart
 * and Trinkle's velocity-level step: J_n v+ >= -e v_n-), carried into a force model:
 *
 *   onset   a contact that appears approaching faster than the threshold (max(1e-3 m/s,
 *           4 |g| h), the lcp model's) records its approach speed v_in; a slower one is a
 *           resting contact and keeps the plain law for its life;
 *   impact  while it lasts, the normal force is f = max(0, c (e v_in - v_n)) with v_n the
 *           separation speed (relative normal velocity, positive apart) and c = GAIN m / h
 *           (m the pair's translational mass), linearized as the damper D = -c n n^T and no
 *           spring. The implicit step solves (M + h c J^T J) dv = ..., so it brings the
 *           contact to v_n = e v_in within 1/GAIN in one step, whatever the stiffness, the step
 *           and the other contacts of the bodies (the system couples them, as an LCP's
 *           Delassus matrix does), and holds it there until the contact has left: then the
 *           bodies part at e v_in;
 *   end     the phase ends when the contact separates (its slot or record is dropped), or after
 *           2 / e + 2 steps: a free impact leaves within 1 / e + 1 steps (the depth at onset
 *           is at most v_in h, left at e v_in h per step), so a contact still there is held by
 *           a load, and it becomes a resting contact with the plain law.
 *
 * The target is a lower bound of the separation, never an upper one: the force only pushes, so
 * a contact that another load pulls apart faster simply leaves. Energy: the phase returns at
 * most e^2 of the approach's normal kinetic energy (at e <= 1, never more than came in), so a
 * ball dropped on the floor rebounds to e^2 of its drop height, never higher.
 *
 * Friction sees the mean force over the step, not the damper's force at the step's start
 * (which is GAIN times the impulse / h): tch_impact_load, the force that brings the contact's
 * effective mass to the target within the step, so that an impact's friction impulse is
 * bounded by mu times its normal impulse, as Coulomb's law of impacts has it.
 *
 * Only with the linearly implicit integrator, whose one evaluation per step commits the memory:
 * Euler and RK4 cannot carry the damper, and the adaptive integrator's internal stages would
 * see an impact begin at every stage (the memory advances on committing evaluations only);
 * the compiler refuses a restitution on a force model under them (io/compile.c).
 */
#pragma once

#include "contact/contact.h"

/* A contact's impact memory: its approach speed at onset (> 0 for an impact; 0 for a resting
 * contact, which has the plain law) and the time of the onset. */
typedef struct tch_impact {
    tch_real approach; /* m/s */
    tch_real onset;    /* s, tch_data.time */
} tch_impact;

/* The approach speed above which a contact's restitution acts, m/s: max(1e-3, 4 |g| h). Slower
 * contacts (a body settling under gravity) are plastic. Shared with the lcp model. */
tch_real tch_restitution_threshold(const tch_model* model);

/* Whether the force model's restitution acts on a pair with these parameters: a restitution
 * above 0 under the linearly implicit integrator. */
int tch_restitution_acts(const tch_model* model, const tch_pair_params* params);

/* The memory of a contact that appears at `time` with separation speed v_n (negative
 * approaching). */
tch_impact tch_impact_begin(const tch_model* model, tch_real time, tch_real v_n);

/* Whether the contact is in its impact phase at `time`: an impact whose onset is at most
 * 2 / e + 2 steps ago. */
int tch_impact_active(const tch_model* model, const tch_pair_params* params,
                      const tch_impact* impact, tch_real time);

/* The impact's damper coefficient c (N s/m) for a pair of translational mass `mass`
 * (tch_contact_pair_mass), and its target separation speed e v_in (m/s). */
tch_real tch_impact_damping(const tch_model* model, tch_real mass);
tch_real tch_impact_target(const tch_impact* impact, const tch_pair_params* params);

/* The impact's normal force at separation speed v_n: max(0, c (target - v_n) + load), `load`
 * from tch_impact_load: the damper's lag, 1 / (1 + h c / m_eff) of the way, is so made up for a
 * single contact, which reaches the target in one step, and what is left for several contacts
 * of a body (each load assumes it is alone) is the damper's share again. Its derivative with
 * respect to v_n is -c while it pushes, 0 once it is clamped. */
tch_real tch_impact_force(tch_real damping, tch_real target, tch_real v_n, tch_real load);

/* The mean normal force over the step that friction takes as its load (see above): the one
 * that brings the contact's effective mass at p_W along n_W (both bodies, translation and
 * rotation) from v_n to the target against the normal part of gravity, at least 0. */
tch_real tch_impact_load(const tch_model* model, const tch_data* data,
                         const tch_pair_result* pair, tch_vec3 p_W, tch_vec3 n_W, tch_real v_n,
                         tch_real target);

/* ---- the point model's memory, one record per contact point (in the pair's state slot) ---- */

enum { TCH_POINT_IMPACT_RECORDS = 8 };

/* A remembered point: where it was at the last committed step (world) and its impact. */
typedef struct tch_point_impact_record {
    tch_vec3 p_W;
    tch_impact impact;
} tch_point_impact_record;

typedef struct tch_point_impacts {
    int count;
    tch_point_impact_record records[TCH_POINT_IMPACT_RECORDS];
} tch_point_impacts;

/* Whether a point pair keeps a state slot: when its restitution acts (tch_contact_ops'
 * pair_uses_state of the point model). */
int tch_point_pair_uses_state(const tch_model* model, const tch_pair_params* params);

/* The impact of the pair's k-th contact in this evaluation, 0 when it has none (a resting
 * contact, or no restitution): the nearest remembered point within reach (a quarter of the
 * smaller geom's bounding radius plus what the points' relative motion covers in a step),
 * or a new memory from the contact's separation speed v_n. The same in every evaluation of a
 * step (the linearization finds what the forces found). */
int tch_point_impact_of(const tch_model* model, const tch_data* data,
                        const tch_pair_context* context, int k, tch_real v_n,
                        tch_impact* impact);

/* In a committing evaluation, replaces the pair's memory by its contacts' impacts of this
 * evaluation (tch_point_impact_of), so that points that no longer touch are forgotten. */
void tch_point_impacts_commit(const tch_model* model, const tch_data* data,
                              const tch_pair_context* context);

/* The point model's normal force on the pair's k-th contact c, at separation speed v_n, when
 * it is in an impact: applies the impact's force to the bodies, sets c->f_W to the load
 * friction sees (tch_impact_load) and returns 1; 0 (nothing done) otherwise. */
int tch_point_impact_force(const tch_model* model, tch_data* data,
                           const tch_pair_context* context, int k, tch_real v_n);

/* The derivatives (k', b') of the point model's normal force on the pair's k-th contact when
 * it is in an impact (no spring; the damper while it pushes): 1, or 0 when it is not. */
int tch_point_impact_derivatives(const tch_model* model, const tch_data* data,
                                 const tch_pair_context* context, int k, tch_real v_n,
                                 tch_real* stiffness, tch_real* damping);

/* ---- the volume model's memory, one per pair (in its volume_state) ---- */

/* The impact of a volume pair in this evaluation from its memory: a fresh pair (first touching
 * evaluation) begins one from its separation speed v_n at the centroid of its contact area,
 * kept when the evaluation commits. 1 when in an impact. */
int tch_volume_impact_of(const tch_model* model, const tch_data* data,
                         const tch_pair_context* context, tch_impact* memory, tch_real v_n,
                         tch_impact* impact);
