/* ODE anchor: builds the scene that touche compiles (anchor_scene.h) with ODE's C API and its
 * usual settings, and times one step = dSpaceCollide + dWorldQuickStep + emptying the contact
 * group. See bench_common.h for the figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ode/ode.h>

#include "anchor_scene.h"
#include "bench_common.h"
#include "math/vec.h"

enum { max_contacts_per_pair = 4, quickstep_iterations = 20 };

typedef struct ode_scene {
    const anchor_scene* scene;
    dWorldID world;
    dSpaceID space;
    dJointGroupID contacts;
    dBodyID* bodies;   /* [scene->body_count] */
    int* geom_index;   /* [scene->geom_count] geom data: pointer to its own index */
    double step_max_depth;
} ode_scene;

static bool quat_is_identity(tch_quat q) {
    return q.w == 1 && q.x == 0 && q.y == 0 && q.z == 0;
}

static dBodyID make_body(dWorldID world, const anchor_body* b) {
    dBodyID body = dBodyCreate(world);
    dMass mass;
    const tch_mat3* I = &b->I_C;
    dMassSetParameters(&mass, b->mass, 0, 0, 0, I->m[0][0], I->m[1][1], I->m[2][2], I->m[0][1],
                       I->m[0][2], I->m[1][2]);
    dBodySetMass(body, &mass);
    dBodySetPosition(body, b->X_WC.p.x, b->X_WC.p.y, b->X_WC.p.z);
    dQuaternion q = {b->X_WC.q.w, b->X_WC.q.x, b->X_WC.q.y, b->X_WC.q.z};
    dBodySetQuaternion(body, q);
    return body;
}

/* A plane of touche (the half-space below the geom's z = 0) is ODE's n . x = d with
 * n = R_WG e_z and d = n . p_WG. */
static dGeomID make_plane(dSpaceID space, tch_transform X_WG) {
    tch_vec3 n = tch_q_rotate(X_WG.q, (tch_vec3){0, 0, 1});
    return dCreatePlane(space, n.x, n.y, n.z, tch_v3_dot(n, X_WG.p));
}

static dGeomID make_shape(dSpaceID space, const anchor_geom* g) {
    switch (g->type) {
    case ANCHOR_GEOM_SPHERE:
        return dCreateSphere(space, g->size[0]);
    case ANCHOR_GEOM_CAPSULE:
        return dCreateCapsule(space, g->size[0], 2 * g->size[1]);
    case ANCHOR_GEOM_CYLINDER:
        return dCreateCylinder(space, g->size[0], 2 * g->size[1]);
    case ANCHOR_GEOM_BOX:
        return dCreateBox(space, 2 * g->size[0], 2 * g->size[1], 2 * g->size[2]);
    case ANCHOR_GEOM_PLANE:
        break;
    }
    return make_plane(space, g->X_CG);
}

static void place_geom(dGeomID geom, const anchor_geom* g, dBodyID body) {
    const tch_transform* X = &g->X_CG;
    dQuaternion q = {X->q.w, X->q.x, X->q.y, X->q.z};
    if (!body) {
        dGeomSetPosition(geom, X->p.x, X->p.y, X->p.z);
        dGeomSetQuaternion(geom, q);
        return;
    }
    dGeomSetBody(geom, body);
    if (tch_v3_norm2(X->p) > 0) {
        dGeomSetOffsetPosition(geom, X->p.x, X->p.y, X->p.z);
    }
    if (!quat_is_identity(X->q)) {
        dGeomSetOffsetQuaternion(geom, q);
    }
}

static bool build(ode_scene* ode, const anchor_scene* scene) {
    *ode = (ode_scene){.scene = scene};
    ode->world = dWorldCreate();
    ode->space = dHashSpaceCreate(0);
    ode->contacts = dJointGroupCreate(0);
    ode->bodies = calloc((size_t)scene->body_count + 1, sizeof *ode->bodies);
    ode->geom_index = calloc((size_t)scene->geom_count + 1, sizeof *ode->geom_index);
    if (!ode->bodies || !ode->geom_index) {
        return false;
    }
    dWorldSetGravity(ode->world, scene->gravity.x, scene->gravity.y, scene->gravity.z);
    dWorldSetQuickStepNumIterations(ode->world, quickstep_iterations);
    for (int b = 0; b < scene->body_count; ++b) {
        ode->bodies[b] = make_body(ode->world, &scene->bodies[b]);
    }
    for (int i = 0; i < scene->geom_count; ++i) {
        const anchor_geom* g = &scene->geoms[i];
        dGeomID geom = make_shape(ode->space, g);
        ode->geom_index[i] = i;
        dGeomSetData(geom, &ode->geom_index[i]);
        if (g->type != ANCHOR_GEOM_PLANE) {
            place_geom(geom, g, g->body >= 0 ? ode->bodies[g->body] : NULL);
        }
    }
    return true;
}

static void destroy(ode_scene* ode) {
    dJointGroupDestroy(ode->contacts);
    dSpaceDestroy(ode->space);
    dWorldDestroy(ode->world);
    free(ode->bodies);
    free(ode->geom_index);
}

/* Contact joints with the usual settings: friction pyramid (dContactApprox1) with the pair's
 * mu, the world's ERP and CFM (no per-contact soft ERP/CFM), no bounce. */
static void near_callback(void* user, dGeomID o1, dGeomID o2) {
    ode_scene* ode = user;
    dBodyID b1 = dGeomGetBody(o1), b2 = dGeomGetBody(o2);
    if (b1 && b2 && dAreConnectedExcluding(b1, b2, dJointTypeContact)) {
        return;
    }
    dContact contact[max_contacts_per_pair];
    int n = dCollide(o1, o2, max_contacts_per_pair, &contact[0].geom, sizeof contact[0]);
    if (n == 0) {
        return;
    }
    int g1 = *(const int*)dGeomGetData(o1), g2 = *(const int*)dGeomGetData(o2);
    double mu = anchor_pair_friction(ode->scene, g1, g2);
    for (int i = 0; i < n; ++i) {
        memset(&contact[i].surface, 0, sizeof contact[i].surface);
        contact[i].surface.mode = dContactApprox1;
        contact[i].surface.mu = mu;
        if (contact[i].geom.depth > ode->step_max_depth) {
            ode->step_max_depth = contact[i].geom.depth;
        }
        dJointID joint = dJointCreateContact(ode->world, ode->contacts, &contact[i]);
        dJointAttach(joint, b1, b2);
    }
}

static void step(ode_scene* ode, double dt) {
    dSpaceCollide(ode->space, ode, near_callback);
    dWorldQuickStep(ode->world, dt);
    dJointGroupEmpty(ode->contacts);
}

static tch_vec3 vec_of(const dReal* v) {
    return (tch_vec3){v[0], v[1], v[2]};
}

/* ODE bodies sit at their centre of mass; L_Cm = R I_C R^T w_W with I_C from the body's mass. */
static void read_state(const ode_scene* ode, bench_run* run) {
    for (int b = 0; b < ode->scene->body_count; ++b) {
        dBodyID body = ode->bodies[b];
        bench_body_state* s = &run->current[b];
        const dReal* q = dBodyGetQuaternion(body);
        const dReal* R = dBodyGetRotation(body);
        dMass mass;
        dBodyGetMass(body, &mass);
        tch_mat3 R_WC = {{{R[0], R[1], R[2]}, {R[4], R[5], R[6]}, {R[8], R[9], R[10]}}};
        tch_mat3 I_C = {{{mass.I[0], mass.I[1], mass.I[2]},
                         {mass.I[4], mass.I[5], mass.I[6]},
                         {mass.I[8], mass.I[9], mass.I[10]}}};
        s->p_WCm = vec_of(dBodyGetPosition(body));
        s->q_WB = (tch_quat){q[0], q[1], q[2], q[3]};
        s->v_WCm = vec_of(dBodyGetLinearVel(body));
        s->w_W = vec_of(dBodyGetAngularVel(body));
        s->L_Cm_W = tch_m3_mul_v3(tch_m3_rotate_tensor(R_WC, I_C), s->w_W);
        s->mass = mass.mass;
    }
}

static void simulate(ode_scene* ode, bench_run* run) {
    for (int i = 0; i < run->steps; ++i) {
        ode->step_max_depth = 0;
        long long t0 = bench_now_ns();
        step(ode, run->dt);
        long long t1 = bench_now_ns();
        bench_record_step(run, i, t0, t1);
        bench_note_penetration(run, ode->step_max_depth);
        if (run->lz_file) {
            read_state(ode, run);
            bench_record_momentum(run, (i + 1) * run->dt);
        }
    }
    read_state(ode, run);
    if (!bench_state_finite(run)) {
        snprintf(run->status, sizeof run->status, "diverged (non-finite state)");
    }
}

static void describe_settings(const ode_scene* ode, char* out, size_t size) {
    snprintf(out, size,
             "ODE (%s): dWorldQuickStep %d iterations; world ERP %g CFM %g (defaults; no "
             "per-contact soft ERP/CFM); dContactApprox1 pyramid mu = max of the two geoms; up "
             "to %d contacts per pair (dCollide); hash space; no auto-disable",
             dGetConfiguration(), quickstep_iterations, dWorldGetERP(ode->world),
             dWorldGetCFM(ode->world), max_contacts_per_pair);
}

int main(int argc, char** argv) {
    bench_options options;
    if (!bench_parse_args(argc, argv, "bench_ode", &options)) {
        return 2;
    }
    anchor_scene scene;
    char why[512];
    if (!anchor_scene_load(options.loader, options.scene_path, false, &scene, why, sizeof why)) {
        bench_report_failure(&options, "ode", why);
        return 1;
    }
    dInitODE2(0);
    dAllocateODEDataForThread(dAllocateMaskAll);
    ode_scene ode;
    bench_run run;
    if (!build(&ode, &scene) ||
        !bench_run_begin(&run, &options, scene.timestep, scene.body_count)) {
        return 1;
    }
    read_state(&ode, &run);
    bench_run_set_initial(&run, scene.gravity);
    bench_record_momentum(&run, 0);
    simulate(&ode, &run);
    char settings[512];
    describe_settings(&ode, settings, sizeof settings);
    bench_run_finish(&run, "ode", settings);
    destroy(&ode);
    dCloseODE();
    anchor_scene_free(&scene);
    return 0;
}
