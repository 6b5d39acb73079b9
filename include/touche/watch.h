/// touche: the watch, a check made at every step that the simulation stays physical.
///
/// At the start of each step (tch_step_begin) the watch measures
///
///     E = kinetic + gravitational potential + the elastic energy the models report
///         (tch_pair_result.elastic_energy: the pressure model, when tch_data.contact_energy)
///
/// and the work W of the applied forces and torques (tch_data.body_force_applied_W,
/// body_torque_applied_W) since the first step. A passive scene can only lose energy, so the
/// gain G = E - (E_start + W) stays near zero or below; the watch records a warning when G
/// passes `energy_tolerance` times the scene's energy scale S = sum over free bodies of
/// m |g| L (L the body's diameter) + the largest kinetic energy seen + the absolute work put
/// in. It also records a warning when a pair penetrates deeper than `penetration_fraction`
/// of its thinner geom's thickness (the smallest width along the geom's axes): a body sinking
/// past half its size into another. Warnings are kept once per kind and pair, with the first
/// time, the body and the pair they name, and how often and how far they held since; the
/// library never prints them (the touche command does). docs/watch.md.
#pragma once

#include "touche/data.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What the watch checks; tch_data_create starts from the defaults below.
typedef struct tch_watch_settings {
    bool enabled;                  ///< default true
    tch_real energy_tolerance;     ///< fraction of the energy scale a gain may reach; 0.1
    tch_real penetration_fraction; ///< fraction of the thinner geom's thickness a pair may
                                   ///< penetrate; 0.5
} tch_watch_settings;

/// One warning: a kind and the pair (or, for an energy gain, the whole scene) it is about.
typedef struct tch_watch_warning {
    tch_warning kind;   ///< TCH_WARN_ENERGY_GAIN or TCH_WARN_DEEP_PENETRATION
    tch_real time;      ///< s, the start of the first step it held in
    int body;           ///< the body that sank, or that gained the most energy; -1 if none
    int geom_a, geom_b; ///< the pair (for an energy gain: the pair of that body putting the
                        ///< most power into the bodies then); -1 when none
    tch_real value;     ///< when first found: the depth (m) or the gain (J)
    tch_real limit;     ///< the threshold it passed then, m or J
    tch_real worst;     ///< the largest value since, m or J
    long steps;         ///< steps it held in
} tch_watch_warning;

/// The watch's account of a run since the first step after tch_data_create or a reset.
typedef struct tch_watch_report {
    long steps;              ///< steps watched
    tch_real energy_start;   ///< E at the first step watched, J
    tch_real energy;         ///< E at the last step watched, J
    tch_real work_applied;   ///< W: work of the applied forces and torques, J
    tch_real largest_gain;   ///< the largest G = E - (E_start + W) seen, J
    tch_real energy_scale;   ///< S at the last step watched, J
    tch_real deepest[TCH_CONTACT_MODEL_END]; ///< each contact model's deepest penetration
                                             ///< seen, m (0: none); for `pressure`, the
                                             ///< depth of the overlap of the two geoms' shapes
    int warning_count;       ///< warnings recorded (tch_data_watch_warning)
    int warnings_dropped;    ///< steps of warnings that found no record (64 are kept)
} tch_watch_report;

/// The watch's settings of `data`.
TCH_API tch_watch_settings tch_data_watch_settings(const tch_data* data);
/// Changes them; TCH_ERR_INVALID_ARGUMENT (nothing changed) unless both fractions are
/// positive and finite. Warnings already recorded stay; enabling a disabled watch starts a new
/// energy account at the next step.
TCH_API tch_status tch_data_set_watch_settings(tch_data* data,
                                               const tch_watch_settings* settings,
                                               tch_error* err);
/// The account so far.
TCH_API void tch_data_watch_report(const tch_data* data, tch_watch_report* out);
/// Warning i (0-based, in the order they were first found), or NULL out of range. The record
/// is updated by later steps and valid until `data` is destroyed.
TCH_API const tch_watch_warning* tch_data_watch_warning(const tch_data* data, int i);

#ifdef __cplusplus
}
#endif
