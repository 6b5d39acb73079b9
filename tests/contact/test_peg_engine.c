/* The peg contact model in the engine (contact/peg.c, docs/peg.md): scenes stepped by tch_step
 * with touche:contact="peg", against the properties issue 15 asks for.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contact/peg.h"
#include "engine/engine_internal.h"
#include "scene_builder.h"
#include "test.h"
#include "touche/io.h"
#include "touche/step.h"

/* The deepest violation of the step's constraints (the reported depth is -max psi). */
static double deepest(const tch_data* d) {
    double depth = 0;
    for (int i = 0; i < d->contact_count; ++i) {
        depth = fmax(depth, d->contacts[i].depth);
    }
    return depth;
}

static const tch_peg_report* report(const tch_data* d) {
    return tch_peg_scratch_report(d->internal->model_scratch[TCH_CONTACT_PEG]);
}

/* The outputs' listing after the stack's first step: the floor pair's four face-vertex U and
 * one U per corner of the blocks' faces (the vertex-vertex case: each corner's two vertex-set
 * I and its X hold the same contact twice, so the X alone, with the force, implies them;
 * tch_peg_drop_implied). Returns 0 when it is not so. */
static int listing_is_the_stack(const tch_model* m, const tch_data* d) {
    int face_vertex = 0, vertex_vertex = 0;
    for (int i = 0; i < d->contact_count; ++i) {
        tch_peg_constraint_info info;
        if (tch_data_peg_constraint(m, d, i, &info, NULL) != TCH_OK || info.contacts != 1 ||
            strcmp(info.type, "U") != 0) {
            return 0;
        }
        face_vertex += strcmp(info.feature_pair, "face-vertex") == 0;
        vertex_vertex += strcmp(info.feature_pair, "vertex-vertex") == 0;
    }
    tch_peg_constraint_info none;
    return face_vertex == 4 && vertex_vertex == 4 &&
           tch_data_peg_constraint(m, d, d->contact_count, &none, NULL) ==
               TCH_ERR_INVALID_ARGUMENT;
}

/* Two blocks stacked exactly touching on the floor (the shared stack scenes' blocks), with
 * friction: at rest they stay at rest, without penetration, peg's LCP solving every step
 * without failure until the island sleeps. */
static void test_stack_stays_at_rest(void) {
    const char* xml =
        "<mujoco xmlns:touche='urn:touche'><option timestep='0.005' gravity='0 0 -9.8'/>"
        "<default><geom friction='0.5 0.005 0.0001' touche:contact='peg'/></default>"
        "<worldbody><geom name='floor' type='plane' size='50 50 1'/>"
        "<body name='b0' pos='0 0 1'><freejoint/><geom name='g0' type='box' size='0.5 0.5 1' "
        "mass='1'/></body>"
        "<body name='b1' pos='0 0 3'><freejoint/><geom name='g1' type='box' size='0.5 0.5 1' "
        "mass='1'/></body></worldbody></mujoco>";
    tch_error err = {0};
    tch_model* m = test_compile_xml(xml, &err);
    tch_data* d = NULL;
    ENSURE(m && tch_data_create(m, &d, &err) == TCH_OK);
    double worst = 0, depth = 0;
    for (int k = 0; k < 200; ++k) {
        ENSURE(tch_step(m, d, &err) == TCH_OK);
        ENSURE(k > 0 || listing_is_the_stack(m, d));
        depth = fmax(depth, deepest(d));
        worst = fmax(worst, fabs(d->qpos[2] - 1) + fabs(d->qpos[9] - 3));
        worst = fmax(worst, fabs(d->qpos[0]) + fabs(d->qpos[1]) + fabs(d->qpos[7]));
    }
    ENSURE(d->contact_count > 0);
    ENSURE(worst < 1e-9);
    ENSURE(depth < 1e-9);
    /* solved by peg's LCP until the island sleeps (0.5 s at rest: its rows remember their
     * impulses), then held */
    ENSURE(report(d)->solves >= 100 && report(d)->solves < 200);
    ENSURE(d->constraint_sleeping_islands == 1);
    ENSURE(report(d)->failures == 0);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* Three blocks stacked exactly aligned on the floor (the shared stack_3 scene): the coincident
 * corners reduce to one U each, so the LCP stays small (3 pairs x 4 corners x (1 force + 4
 * friction directions + 1 sliding speed) = 72 unknowns; it was 213, and the corners' copies
 * made Lemke fail and the stack move), the stack stands without a failure or a fallback and
 * its island sleeps. */
static void test_aligned_stack_small_lcp(void) {
    const char* xml =
        "<mujoco xmlns:touche='urn:touche'><option timestep='0.005' gravity='0 0 -9.8'/>"
        "<default><geom friction='0.5 0.005 0.0001' touche:contact='peg'/></default>"
        "<worldbody><geom name='floor' type='plane' size='50 50 1'/>"
        "<body pos='0 0 1'><freejoint/><geom type='box' size='0.5 0.5 1' mass='1'/></body>"
        "<body pos='0 0 3'><freejoint/><geom type='box' size='0.5 0.5 1' mass='1'/></body>"
        "<body pos='0 0 5'><freejoint/><geom type='box' size='0.5 0.5 1' mass='1'/></body>"
        "</worldbody></mujoco>";
    tch_error err = {0};
    tch_model* m = test_compile_xml(xml, &err);
    tch_data* d = NULL;
    ENSURE(m && tch_data_create(m, &d, &err) == TCH_OK);
    double drift = 0, depth = 0;
    for (int k = 0; k < 300; ++k) {
        ENSURE(tch_step(m, d, &err) == TCH_OK);
        depth = fmax(depth, deepest(d));
        for (int b = 0; b < 3; ++b) {
            const double* q = &d->qpos[7 * b];
            drift = fmax(drift, fabs(q[0]) + fabs(q[1]) + fabs(q[2] - (1 + 2 * b)));
        }
    }
    ENSURE(drift < 1e-9);
    ENSURE(depth < 1e-9);
    ENSURE(report(d)->largest_lcp == 72);
    ENSURE(report(d)->failures == 0 && report(d)->fallbacks == 0);
    ENSURE(d->constraint_sleeping_islands == 1);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A small cube sliding frictionless on a static block toward its corner (the diagonal: its
 * vertices meet the block's corner, figs. 2 and 5 of the paper): it passes the corner and
 * falls off, the constraints are never violated beyond rounding, the energy never grows. */
static void test_cube_passes_corner(void) {
    const char* xml =
        "<mujoco xmlns:touche='urn:touche'><option timestep='0.005' gravity='0 0 -9.8'/>"
        "<default><geom friction='0 0 0' touche:contact='peg'/></default>"
        "<worldbody><geom name='block' type='box' size='0.5 0.5 0.5' pos='0 0 0.5'/>"
        "<body name='cube' pos='0.3 0.3 1.1'><freejoint/><geom name='c' type='box' "
        "size='0.1 0.1 0.1' mass='0.5'/></body></worldbody></mujoco>";
    tch_error err = {0};
    tch_model* m = test_compile_xml(xml, &err);
    tch_data* d = NULL;
    ENSURE(m && tch_data_create(m, &d, &err) == TCH_OK);
    d->qvel[0] = d->qvel[1] = 0.5;
    double start = tch_data_energy(m, d), depth = 0, gain = 0;
    for (int k = 0; k < 200; ++k) {
        double before = tch_data_energy(m, d);
        ENSURE(tch_step(m, d, &err) == TCH_OK);
        gain = fmax(gain, tch_data_energy(m, d) - before);
        depth = fmax(depth, deepest(d));
    }
    ENSURE(d->qpos[0] > 0.65 && d->qpos[1] > 0.65); /* past the corner, x and y */
    ENSURE(d->qpos[2] < 1.0);                         /* and falling beside the block */
    ENSURE(depth < 1e-6);
    ENSURE(gain < 1e-9 * start);
    ENSURE(report(d)->failures == 0);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A cube set down on each of 12 separate static blocks in turn, three steps on each: every
 * pair touches and then separates; the pairs' warm-start memories are reused once a pair
 * separated, so they stay as few as the pairs touching in two consecutive steps (here 2),
 * not one per pair that ever touched. */
static void test_memories_bounded(void) {
    char xml[4096];
    int at = snprintf(xml, sizeof xml,
                      "<mujoco xmlns:touche='urn:touche'><option timestep='0.005' "
                      "gravity='0 0 -9.8'/><default><geom friction='0.5 0.005 0.0001' "
                      "touche:contact='peg'/></default><worldbody>");
    for (int k = 0; k < 12; ++k) {
        at += snprintf(xml + at, sizeof xml - (size_t)at,
                       "<geom type='box' size='0.2 0.5 0.5' pos='%g 0 0.5'/>", 0.5 * k);
    }
    snprintf(xml + at, sizeof xml - (size_t)at,
             "<body pos='0 0 1.1'><freejoint/><geom type='box' size='0.1 0.1 0.1' mass='1'/>"
             "</body></worldbody></mujoco>");
    tch_error err = {0};
    tch_model* m = test_compile_xml(xml, &err);
    tch_data* d = NULL;
    ENSURE(m && tch_data_create(m, &d, &err) == TCH_OK);
    int touched = 0;
    for (int k = 0; k < 12; ++k) {
        d->qpos[0] = 0.5 * k;
        d->qpos[2] = 1.1;
        memset(d->qvel, 0, 6 * sizeof *d->qvel);
        for (int step = 0; step < 3; ++step) {
            ENSURE(tch_step(m, d, &err) == TCH_OK);
        }
        touched += d->contact_count > 0;
    }
    ENSURE(touched == 12);
    ENSURE(report(d)->memories <= 2);
    ENSURE(report(d)->failures == 0);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A curved geom that may touch another under peg is refused, naming it. */
static void test_curved_geom_refused(void) {
    const char* xml = "<mujoco xmlns:touche='urn:touche'><worldbody><geom name='floor' type='plane' size='5 5 1'/>"
                      "<body name='ball' pos='0 0 1'><freejoint/><geom name='ballgeom' "
                      "type='sphere' size='0.1' touche:contact='peg'/></body></worldbody>"
                      "</mujoco>";
    tch_error err = {0};
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE(m == NULL);
    ENSURE(strstr(err.message, "ballgeom") != NULL);
    ENSURE(strstr(err.message, "sphere") != NULL);
}

/* A cube wedged between two static blocks tilted 0.05 rad apart into a V (both faces overlap it
 * by 2 cm): closing both within the step asks for an upward speed of about (0.02 / h) /
 * tan(0.05), 40 m/s, so peg's solution fails its energy guard (or Lemke fails) and the engine's
 * chain solves the rows that peg described. The chain goes through the same guard: a step never
 * adds more kinetic energy than closing the deepest violation within the step for the cube's
 * mass, 0.5 M (max(-psi) / h)^2 (docs/peg.md, "Fallback"). Before the guard, the chain's last
 * attempt added 2.6e6 J in the first step. */
static void test_fallback_within_energy_guard(void) {
    const char* xml =
        "<mujoco xmlns:touche='urn:touche'><option timestep='0.01' gravity='0 0 0'/>"
        "<default><geom friction='0.5 0.005 0.0001' touche:contact='peg'/></default>"
        "<worldbody><geom type='box' size='0.5 0.5 0.5' pos='-0.58 0 0' euler='0 0.05 0'/>"
        "<geom type='box' size='0.5 0.5 0.5' pos='0.58 0 0' euler='0 -0.05 0'/>"
        "<body pos='0 0 0'><freejoint/><geom type='box' size='0.1 0.1 0.1' mass='1'/>"
        "</body></worldbody></mujoco>";
    tch_error err = {0};
    tch_model* m = test_compile_xml(xml, &err);
    tch_data* d = NULL;
    ENSURE(m && tch_data_create(m, &d, &err) == TCH_OK);
    for (int k = 0; k < 20; ++k) {
        double before = tch_data_energy(m, d);
        ENSURE(tch_step(m, d, &err) == TCH_OK);
        double speed = deepest(d) / 0.01; /* the step's contacts: before its solve */
        ENSURE(tch_data_energy(m, d) - before <= 0.5 * speed * speed + 1e-9 * (1 + before));
    }
    ENSURE(report(d)->fallbacks > 0);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A fast body at the paper's defaults (docs/peg.md, "Proximity"): a 0.1 m square thrown down
 * at 6 m/s onto a 2 cm slab in the planar mode, h = 10 ms. The paper's 2D epsilon,
 * max(0.5 h, 0.0008) = 5 mm, covers 0.5 m/s: the square moves 6 cm per step and its first
 * step within 5 mm of the slab would come after it crossed (it fell through). The default
 * epsilon grows with the pair's closing speed, 2 h s = 12 cm here: the slab is listed a step
 * ahead and the square lands on it, never overlapping. */
static void test_fast_body_caught_at_default_proximity(void) {
    const char* xml =
        "<mujoco xmlns:touche='urn:touche'><option timestep='0.01' gravity='0 0 -9.81' "
        "touche:planar='xz' touche:contact='peg'/><default><geom friction='0'/></default>"
        "<worldbody><geom name='slab' type='box' size='1 0.5 0.01' pos='0 0 -0.01'/>"
        "<body name='square' pos='0 0 0.337'><freejoint/><geom type='box' size='0.05 0.05 0.05' "
        "mass='1'/></body></worldbody></mujoco>";
    tch_error err = {0};
    tch_model* m = test_compile_xml(xml, &err);
    tch_data* d = NULL;
    ENSURE(m && tch_data_create(m, &d, &err) == TCH_OK);
    d->qvel[2] = -6;
    double depth = 0;
    for (int k = 0; k < 50; ++k) {
        ENSURE(tch_step(m, d, &err) == TCH_OK);
        depth = fmax(depth, deepest(d));
    }
    ENSURE(d->qpos[2] > 0.05 - 1e-6); /* on the slab */
    ENSURE(depth < 1e-6);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

int main(void) {
    RUN_TEST(test_fast_body_caught_at_default_proximity);
    RUN_TEST(test_stack_stays_at_rest);
    RUN_TEST(test_aligned_stack_small_lcp);
    RUN_TEST(test_cube_passes_corner);
    RUN_TEST(test_memories_bounded);
    RUN_TEST(test_curved_geom_refused);
    RUN_TEST(test_fallback_within_energy_guard);
    return TEST_RESULT();
}
