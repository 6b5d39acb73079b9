/* The virtual proxy (god-object) against closed meshes and primitives: it never crosses a
 * surface on a path through it, rests on the 3 planes of a corner, renders k times the depth
 * on a plane, sticks inside the friction cone and slides outside it. */
#include <math.h>
#include <stdlib.h>

#include "math/vec.h"
#include "test.h"
#include "touche/touche.h"

/* The closed box [lo, hi] as 8 vertices and 12 outward triangles. */
typedef struct box_mesh {
    tch_vec3 vertices[8];
    int triangles[12][3];
} box_mesh;

static box_mesh make_box(tch_vec3 lo, tch_vec3 hi) {
    static const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                    {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    box_mesh b;
    for (int i = 0; i < 8; ++i) {
        b.vertices[i] = tch_v3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z);
    }
    for (int f = 0; f < 6; ++f) {
        const int* q = faces[f];
        b.triangles[2 * f][0] = q[0], b.triangles[2 * f][1] = q[1], b.triangles[2 * f][2] = q[2];
        b.triangles[2 * f + 1][0] = q[0], b.triangles[2 * f + 1][1] = q[2],
                            b.triangles[2 * f + 1][2] = q[3];
    }
    return b;
}

static tch_haptic_proxy* box_proxy(const box_mesh* b, tch_real radius, tch_real friction,
                                   tch_real stiffness) {
    tch_haptic_proxy_mesh mesh = {b->vertices, 8, (const int(*)[3])b->triangles, 12, friction};
    tch_haptic_proxy_params params = {.radius = radius, .stiffness = stiffness, .period = 1e-3};
    tch_haptic_proxy* proxy = NULL;
    tch_error err;
    return tch_haptic_proxy_create(&mesh, 1, &params, &proxy, &err) == TCH_OK ? proxy : NULL;
}

/* How far the proxy's centre is inside the box grown by r (> 0: inside), the distance of a
 * point to the box less r, negated. */
static tch_real depth_in_box(tch_vec3 x, tch_vec3 lo, tch_vec3 hi, tch_real r) {
    tch_vec3 outside = tch_v3_max(tch_v3_sub(lo, x), tch_v3_sub(x, hi));
    tch_vec3 gap = tch_v3_max(outside, tch_v3_zero());
    tch_real inside = fmin(0, fmax(outside.x, fmax(outside.y, outside.z)));
    return r - (tch_v3_norm(gap) + inside);
}

/* A path that goes through the box and out the other side, in steps much longer than the
 * thin plate is thick: the proxy stays on the side it entered, never inside. */
static void sweep_through(tch_vec3 lo, tch_vec3 hi, tch_real radius, tch_real step) {
    box_mesh b = make_box(lo, hi);
    tch_haptic_proxy* proxy = box_proxy(&b, radius, 0, 1000);
    ENSURE(proxy);
    tch_vec3 start = tch_v3(0.3, 0.2, hi.z + radius + 0.5), end = tch_v3(-0.2, 0.1, lo.z - 1);
    tch_haptic_proxy_reset(proxy, start);
    int steps = (int)ceil(tch_v3_dist(start, end) / step);
    tch_real deepest = -INFINITY;
    for (int k = 0; k <= 2 * steps; ++k) { /* through, then back out */
        tch_real s = k <= steps ? (tch_real)k / steps : (tch_real)(2 * steps - k) / steps;
        tch_haptic_proxy_update(proxy, tch_v3_lerp(start, end, s), tch_v3_zero());
        deepest = fmax(deepest, depth_in_box(tch_haptic_proxy_position(proxy), lo, hi, radius));
        if (k == steps) { /* the device is below: the proxy rests on the top face */
            ENSURE_NEAR(tch_haptic_proxy_position(proxy).z, hi.z + radius, 1e-9);
        }
    }
    ENSURE(deepest <= 1e-9);
    ENSURE(tch_v3_dist(tch_haptic_proxy_position(proxy), start) < 1e-12); /* back out, free */
    tch_haptic_proxy_destroy(proxy);
}

static void test_proxy_never_crosses_a_box_or_a_thin_plate(void) {
    for (int r = 0; r < 2; ++r) {
        tch_real radius = r ? 0.05 : 0;
        sweep_through(tch_v3(-1, -1, -1), tch_v3(1, 1, 1), radius, 0.01);
        sweep_through(tch_v3(-1, -1, -1e-4), tch_v3(1, 1, 1e-4), radius, 0.1);
    }
}

/* Pushed into a corner from outside, the proxy stops at the corner on its 3 faces. */
static void test_proxy_rests_in_a_corner_on_three_planes(void) {
    /* the inside corner of an L: two boxes meeting at the floor make a corner with three
     * planes (floor, wall x, wall y) */
    box_mesh floor = make_box(tch_v3(-1, -1, -1), tch_v3(1, 1, 0));
    box_mesh wall_x = make_box(tch_v3(-1, -1, 0), tch_v3(-0.5, 1, 1));
    box_mesh wall_y = make_box(tch_v3(-0.5, -1, 0), tch_v3(1, -0.5, 1));
    tch_haptic_proxy_mesh meshes[3] = {
        {floor.vertices, 8, (const int(*)[3])floor.triangles, 12, 0},
        {wall_x.vertices, 8, (const int(*)[3])wall_x.triangles, 12, 0},
        {wall_y.vertices, 8, (const int(*)[3])wall_y.triangles, 12, 0}};
    for (int r = 0; r < 2; ++r) {
        tch_real radius = r ? 0.02 : 0;
        tch_haptic_proxy_params params = {.radius = radius, .stiffness = 500, .period = 1e-3};
        tch_haptic_proxy* proxy = NULL;
        tch_error err;
        ENSURE(tch_haptic_proxy_create(meshes, 3, &params, &proxy, &err) == TCH_OK);
        tch_haptic_proxy_reset(proxy, tch_v3(0.2, 0.2, 0.5));
        tch_vec3 goal = tch_v3(-0.7, -0.7, -0.3), corner = tch_v3(-0.5, -0.5, 0);
        for (int k = 0; k <= 100; ++k) {
            tch_haptic_proxy_update(proxy, tch_v3_lerp(tch_v3(0.2, 0.2, 0.5), goal, k / 100.0),
                                    tch_v3_zero());
        }
        tch_vec3 expected = tch_v3_add(corner, tch_v3(radius, radius, radius));
        ENSURE(tch_v3_dist(tch_haptic_proxy_position(proxy), expected) < 1e-9);
        tch_vec3 normals[3];
        ENSURE(tch_haptic_proxy_contacts(proxy, normals) == 3);
        tch_haptic_proxy_destroy(proxy);
    }
}

/* On a flat face, f = k (proxy - device) is k times the depth along the normal, and the proxy
 * sits right above the device. */
static void test_proxy_force_on_a_plane_is_k_times_depth(void) {
    box_mesh b = make_box(tch_v3(-1, -1, -1), tch_v3(1, 1, 0));
    for (int r = 0; r < 2; ++r) {
        tch_real radius = r ? 0.01 : 0, k = 2000, depth = 0.003;
        tch_haptic_proxy* proxy = box_proxy(&b, radius, 0, k);
        ENSURE(proxy);
        tch_haptic_proxy_reset(proxy, tch_v3(0.1, 0.2, 0.1));
        tch_vec3 device = tch_v3(0.15, 0.25, radius - depth);
        tch_vec3 force = tch_v3_zero();
        for (int i = 0; i <= 10; ++i) {
            force = tch_haptic_proxy_update(
                proxy, tch_v3_lerp(tch_v3(0.1, 0.2, 0.1), device, i / 10.0), tch_v3_zero());
        }
        ENSURE_NEAR(force.x, 0, 1e-9);
        ENSURE_NEAR(force.y, 0, 1e-9);
        ENSURE_NEAR(force.z, k * depth, 1e-6);
        tch_haptic_proxy_destroy(proxy);
    }
}

/* Pressed to depth h and dragged sideways by l: the proxy sticks while l <= mu h (lateral
 * force k l), and slides beyond, trailing by mu h (lateral force mu times the normal force). */
static void test_proxy_friction_sticks_inside_the_cone_and_slides_outside(void) {
    box_mesh b = make_box(tch_v3(-1, -1, -1), tch_v3(1, 1, 0));
    tch_real mu = 0.5, k = 1000, h = 0.01;
    for (int slide = 0; slide < 2; ++slide) {
        tch_haptic_proxy* proxy = box_proxy(&b, 0, mu, k);
        ENSURE(proxy);
        tch_haptic_proxy_reset(proxy, tch_v3(0, 0, 0.01));
        tch_haptic_proxy_update(proxy, tch_v3(0, 0, -h), tch_v3_zero()); /* press */
        ENSURE_NEAR(tch_haptic_proxy_position(proxy).x, 0, 1e-12);
        tch_real lateral = slide ? 0.03 : 0.8 * mu * h;
        tch_vec3 force = tch_v3_zero();
        for (int i = 1; i <= 20; ++i) {
            force = tch_haptic_proxy_update(proxy, tch_v3(lateral * i / 20, 0, -h), tch_v3_zero());
        }
        ENSURE_NEAR(force.z, k * h, 1e-6);
        if (slide) {
            ENSURE_NEAR(tch_haptic_proxy_position(proxy).x, lateral - mu * h, 1e-9);
            ENSURE_NEAR(-force.x, mu * force.z, 1e-6);
        } else {
            ENSURE_NEAR(tch_haptic_proxy_position(proxy).x, 0, 1e-12);
            ENSURE_NEAR(-force.x, k * lateral, 1e-9);
        }
        tch_haptic_proxy_destroy(proxy);
    }
}

/* Force shading on an octahedron (vertex normals radial): pressing into a face near a vertex,
 * the force tilts from the face normal toward the radial direction there, and the proxy stays
 * outside. */
static void test_proxy_force_shading_tilts_toward_the_vertex_normal(void) {
    static const tch_vec3 vertices[6] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                         {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
    static const int triangles[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                        {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    tch_haptic_proxy_mesh mesh = {vertices, 6, triangles, 8, 0};
    tch_vec3 face = tch_v3_normalize(tch_v3(1, 1, 1));
    tch_vec3 near_vertex = tch_v3(0.8, 0.1, 0.1); /* on the face x + y + z = 1 */
    tch_vec3 start = tch_v3_madd(near_vertex, 0.2, face);
    tch_vec3 device = tch_v3_madd(near_vertex, -0.02, face);
    tch_real tilt[2];
    for (int shading = 0; shading < 2; ++shading) {
        tch_haptic_proxy_params params = {
            .stiffness = 100, .period = 1e-3, .force_shading = shading};
        tch_haptic_proxy* proxy = NULL;
        tch_error err;
        ENSURE(tch_haptic_proxy_create(&mesh, 1, &params, &proxy, &err) == TCH_OK);
        tch_haptic_proxy_reset(proxy, start);
        tch_vec3 force = tch_v3_zero();
        for (int i = 0; i <= 20; ++i) { /* in, then held */
            force = tch_haptic_proxy_update(proxy, tch_v3_lerp(start, device, fmin(i / 10.0, 1)),
                                            tch_v3_zero());
        }
        tch_vec3 p = tch_haptic_proxy_position(proxy);
        ENSURE(p.x + p.y + p.z >= 1 - 1e-9);
        tilt[shading] = tch_v3_dot(tch_v3_normalize(force), tch_v3(1, 0, 0));
        tch_haptic_proxy_destroy(proxy);
    }
    ENSURE_NEAR(tilt[0], face.x, 1e-9);
    ENSURE(tilt[1] > tilt[0] + 0.05);
}

/* A sphere and a plane of a scene: the proxy rests on the sphere along its radius and on the
 * plane at depth. */
static void test_proxy_on_scene_primitives(void) {
    tch_spec* spec = NULL;
    tch_model* model = NULL;
    tch_data* data = NULL;
    tch_error err;
    ENSURE(tch_mjcf_load_string("<mujoco><worldbody><geom type='plane' size='1 1 0.1'/>"
                                "<geom type='sphere' pos='0 0 1' size='0.25'/>"
                                "</worldbody></mujoco>",
                                ".", "scene.xml", &spec, &err) == TCH_OK);
    ENSURE(tch_compile(spec, &model, &err) == TCH_OK);
    ENSURE(tch_data_create(model, &data, &err) == TCH_OK);
    tch_haptic_proxy_params params = {.radius = 0.01, .stiffness = 100, .period = 1e-3};
    tch_haptic_proxy* proxy = NULL;
    ENSURE(tch_haptic_proxy_create_from_model(model, data, &params, &proxy, &err) == TCH_OK);
    tch_haptic_proxy_reset(proxy, tch_v3(0.6, 0, 1));
    for (int i = 0; i <= 50; ++i) { /* into the sphere's side, toward its centre */
        tch_haptic_proxy_update(proxy, tch_v3(0.6 - 0.5 * i / 50, 0, 1), tch_v3_zero());
    }
    ENSURE(tch_v3_dist(tch_haptic_proxy_position(proxy), tch_v3(0.26, 0, 1)) < 1e-9);
    tch_haptic_proxy_reset(proxy, tch_v3(0.5, 0.5, 0.1));
    tch_vec3 force = tch_haptic_proxy_update(proxy, tch_v3(0.5, 0.5, -0.02), tch_v3_zero());
    ENSURE_NEAR(force.z, 100 * 0.03, 1e-9);
    tch_haptic_proxy_destroy(proxy);
    tch_data_destroy(data);
    tch_model_destroy(model);
    tch_spec_destroy(spec);
}

static const tch_real PI = 3.14159265358979323846;

typedef struct scene {
    tch_spec* spec;
    tch_model* model;
    tch_data* data;
    tch_haptic_proxy* proxy;
} scene;

/* A proxy over a scene's geoms (its kinematics computed first). */
static void scene_proxy(const char* xml, const tch_haptic_proxy_params* params, scene* s) {
    tch_error err;
    *s = (scene){0};
    ENSURE(tch_mjcf_load_string(xml, ".", "scene.xml", &s->spec, &err) == TCH_OK);
    ENSURE(tch_compile(s->spec, &s->model, &err) == TCH_OK);
    ENSURE(tch_data_create(s->model, &s->data, &err) == TCH_OK);
    tch_stage_kinematics(s->model, s->data);
    ENSURE(tch_haptic_proxy_create_from_model(s->model, s->data, params, &s->proxy, &err) ==
           TCH_OK);
}

static void scene_free(scene* s) {
    tch_haptic_proxy_destroy(s->proxy);
    tch_data_destroy(s->data);
    tch_model_destroy(s->model);
    tch_spec_destroy(s->spec);
}

/* The plate's pose along a closed path at phase u in [0, 1]: up 3 cm, across 5 cm, tilted 0.3
 * rad about x and turned 0.5 rad about z, each by sin^2(pi u) (back where it began at u = 1). */
static tch_transform plate_pose(tch_real u) {
    tch_real s = sin(PI * u) * sin(PI * u);
    tch_quat q = tch_q_mul(tch_q_axis_angle(tch_v3(0, 0, 1), 0.5 * s),
                           tch_q_axis_angle(tch_v3(1, 0, 0), 0.3 * sin(2 * PI * u)));
    return (tch_transform){q, tch_v3(0.05 * s, 0, 0.03 * s)};
}

/* A proxy of radius r (k = 1000 N/m, 1 kHz) over a free plate, 0.4 x 0.4 x 0.02 m about the
 * origin (its top face at z = 0.01), of friction mu; gravity off. */
static void plate_proxy(tch_real mu, tch_real r, scene* s) {
    char xml[512];
    snprintf(xml, sizeof xml,
             "<mujoco><option gravity='0 0 0'/><worldbody><body name='plate'><freejoint/>"
             "<geom type='box' size='0.2 0.2 0.01' friction='%g'/></body></worldbody></mujoco>",
             mu);
    tch_haptic_proxy_params params = {.radius = r, .stiffness = 1000, .period = 1e-3};
    scene_proxy(xml, &params, s);
}

/* A hand pressing 2 mm into a plate (mu 0.5) that moves along a closed path, the hand moving
 * with it (its point fixed in the plate's frame): the 1 cm sphere is carried by the surface at
 * every tick (its place and the force constant in the plate's frame, to 1e-9). Energy: the
 * plate is driven, so it may do work on the hand over a closed path (a force turning with it
 * along a loop); the proxy must add none. The work on the hand, sum F_k . (x_{k+1} - x_k),
 * equals the plate's on the proxy, sum F_k . (D_k p_k - p_k) (D_k the plate's motion over the
 * tick), but for the sampled spring's turn over each tick, k |u|^2 (1 - cos) of the angle u =
 * p - x turns through, at most the plate's turn dtheta_k. */
static void test_proxy_rides_a_moving_plate(void) {
    scene s;
    plate_proxy(0.5, 0.01, &s);
    ENSURE(tch_haptic_proxy_body_count(s.proxy) == 1);
    tch_vec3 rest_B = tch_v3(0.03, -0.02, 0.02), hand_B = tch_v3(0.03, -0.02, 0.018);
    tch_haptic_proxy_reset(s.proxy, tch_v3(0.03, -0.02, 0.05));
    for (int k = 0; k < 20; ++k) { /* down onto the plate at rest */
        tch_haptic_proxy_update(s.proxy, tch_v3_lerp(tch_v3(0.03, -0.02, 0.05), hand_B, k / 19.0),
                                tch_v3_zero());
    }
    ENSURE(tch_v3_dist(tch_haptic_proxy_position(s.proxy), rest_B) < 1e-12);
    const int ticks = 2000;
    tch_real worst_place = 0, worst_force = 0, on_hand = 0, by_plate = 0, zoh = 0;
    tch_vec3 last_force = tch_v3_zero(), last_hand = hand_B, last_proxy = rest_B;
    tch_transform last_X = plate_pose(0);
    for (int k = 0; k <= ticks; ++k) {
        tch_transform X = plate_pose((tch_real)k / ticks);
        tch_transform motion = tch_x_mul(X, tch_x_inverse(last_X));
        tch_vec3 hand = tch_x_apply(X, hand_B);
        on_hand += tch_v3_dot(last_force, tch_v3_sub(hand, last_hand));
        by_plate += tch_v3_dot(last_force, tch_v3_sub(tch_x_apply(motion, last_proxy), last_proxy));
        tch_real turn = 2 * atan2(tch_v3_norm(tch_v3(motion.q.x, motion.q.y, motion.q.z)),
                                  fabs(motion.q.w));
        zoh += 1000 * 0.002 * 0.002 * (1 - cos(turn));
        tch_haptic_proxy_set_body_pose(s.proxy, 0, X);
        tch_vec3 force = tch_haptic_proxy_update(s.proxy, hand, tch_v3_zero());
        tch_vec3 place_B = tch_x_apply_inverse(X, tch_haptic_proxy_position(s.proxy));
        worst_place = fmax(worst_place, tch_v3_dist(place_B, rest_B));
        worst_force = fmax(worst_force,
                           tch_v3_dist(tch_q_inv_rotate(X.q, force), tch_v3(0, 0, 1000 * 0.002)));
        last_force = force;
        last_hand = hand;
        last_proxy = tch_haptic_proxy_position(s.proxy);
        last_X = X;
    }
    printf("  plate: place off by %.3g m, force off by %.3g N; work on the hand %.6g J, by the "
           "plate %.6g J, the sampled spring's turn bound %.3g J\n",
           worst_place, worst_force, on_hand, by_plate, zoh);
    ENSURE(worst_place < 1e-9);
    ENSURE(worst_force < 1e-6);
    ENSURE(fabs(by_plate) > 1e-4);
    ENSURE(on_hand - by_plate <= zoh + 1e-15);
    /* the plate takes all of the force on the hand, reversed, at the contact point */
    tch_vec3 point;
    ENSURE(tch_haptic_proxy_body_reaction(s.proxy, 0, &point) == 1);
    ENSURE(tch_v3_dist(point, tch_x_apply(plate_pose(1), tch_v3(0.03, -0.02, 0.01))) < 1e-12);
    scene_free(&s);
}

/* A frictionless plate rising into a proxy that floats free at the hand: the plate pushes it
 * up (never through, a 1 mm step per tick), then slides sideways under the pressing hand
 * without carrying it. */
static void test_proxy_is_pushed_by_a_rising_plate(void) {
    scene s;
    plate_proxy(0, 0.005, &s);
    tch_vec3 hand = tch_v3(0.01, 0.02, 0.03);
    tch_haptic_proxy_reset(s.proxy, hand);
    tch_real lowest = INFINITY;
    for (int k = 0; k <= 40; ++k) { /* the top face from z = 0.01 to 0.05 */
        tch_transform X = {tch_q_identity(), tch_v3(0, 0, 1e-3 * k)};
        tch_haptic_proxy_set_body_pose(s.proxy, 0, X);
        tch_vec3 force = tch_haptic_proxy_update(s.proxy, hand, tch_v3_zero());
        tch_real gap = tch_haptic_proxy_position(s.proxy).z - (X.p.z + 0.01 + 0.005);
        lowest = fmin(lowest, gap);
        if (X.p.z + 0.015 > hand.z) {
            ENSURE(fabs(gap) < 1e-9);
            ENSURE_NEAR(force.z, 1000 * (X.p.z + 0.015 - hand.z), 1e-9);
        }
    }
    ENSURE(lowest > -1e-9);
    tch_vec3 before = tch_haptic_proxy_position(s.proxy);
    for (int k = 1; k <= 20; ++k) {
        tch_haptic_proxy_set_body_pose(s.proxy, 0,
                                       (tch_transform){tch_q_identity(), tch_v3(2e-3 * k, 0, 0.04)});
        tch_haptic_proxy_update(s.proxy, hand, tch_v3_zero());
    }
    ENSURE(tch_v3_dist(tch_haptic_proxy_position(s.proxy), before) < 1e-9);
    scene_free(&s);
}

/* Capsules and cylinders (static and on a body), against their closed forms: the proxy
 * pressed toward a capsule's axis, or onto a cylinder's side, cap or rim, rests at R + r from
 * the axis (the normal radial), r above the cap (the normal the axis), r from the rim circle
 * (the normal from its nearest rim point), and the force is k times the depth along it. */
/* A point of the ellipsoid of semi-axes a and its outward normal, along the direction d. */
static void ellipsoid_point(tch_vec3 a, tch_vec3 d, tch_vec3* point, tch_vec3* normal) {
    tch_real s = 1 / sqrt(d.x * d.x / (a.x * a.x) + d.y * d.y / (a.y * a.y) + d.z * d.z / (a.z * a.z));
    *point = tch_v3_scale(d, s);
    *normal = tch_v3_normalize(
        tch_v3(point->x / (a.x * a.x), point->y / (a.y * a.y), point->z / (a.z * a.z)));
}

/* A probe pressed along -n onto the point p of a surface (normal n): from 0.3 m out to 0.04 m
 * in, resting at p + r n. */
typedef struct probe {
    tch_vec3 start, hand; /* the path, in the frame below */
    tch_vec3 rest, normal;
    const char* geom; /* the frame: that geom's pose; NULL the world */
} probe;

static probe pressed_probe(tch_vec3 p, tch_vec3 n, tch_real r, const char* geom) {
    return (probe){tch_v3_madd(p, 0.3, n), tch_v3_madd(p, -0.04, n), tch_v3_madd(p, r, n), n, geom};
}

static void test_proxy_on_capsules_cylinders_and_ellipsoids(void) {
    tch_haptic_proxy_params params = {.radius = 0.01, .stiffness = 100, .period = 1e-3};
    scene s;
    scene_proxy("<mujoco><worldbody>"
                "<geom type='capsule' pos='0 0 0' euler='0 90 0' size='0.05 0.2'/>"
                "<body pos='0 1 0' euler='30 0 0'><freejoint/>"
                "<geom name='cylinder' type='cylinder' size='0.1 0.05'/></body>"
                "<geom name='fixed' type='ellipsoid' pos='0 -1 0' euler='20 -35 50' "
                "size='0.15 0.08 0.05'/>"
                "<body pos='1 0 0' euler='-10 40 5'><freejoint/>"
                "<geom name='free' type='ellipsoid' size='0.04 0.12 0.06'/></body>"
                "</worldbody></mujoco>",
                &params, &s);
    ENSURE(tch_haptic_proxy_body_count(s.proxy) == 2);
    /* directions from a capsule's end-ball centre, a cylinder's axis, its rim */
    tch_vec3 end = tch_v3(cos(0.5), 0, sin(0.5)), side = tch_v3(cos(0.3), sin(0.3), 0);
    tch_vec3 ball = tch_v3(0.2, 0, 0), rim = tch_v3(0.1, 0, 0.05);
    tch_vec3 diagonal = tch_v3(sqrt(0.5), 0, sqrt(0.5));
    /* ellipsoids: a tip of an axis, and two points off the axes, on each */
    tch_vec3 e_point[6], e_normal[6];
    const tch_vec3 semi[2] = {{0.15, 0.08, 0.05}, {0.04, 0.12, 0.06}};
    const tch_vec3 along[3] = {{0, 0, 1}, {1, 2, -0.5}, {-0.3, -0.2, 1}};
    for (int k = 0; k < 6; ++k) {
        ellipsoid_point(semi[k / 3], along[k % 3], &e_point[k], &e_normal[k]);
    }
    const probe probes[] = {
        /* capsule along x, R 0.05, half-length 0.2: its side twice, an end ball */
        {{0.1, 0, 0.3}, {0.1, 0, 0.04}, {0.1, 0, 0.06}, {0, 0, 1}, NULL},
        {{-0.1, 0.3, 0}, {-0.1, 0.04, 0}, {-0.1, 0.06, 0}, {0, 1, 0}, NULL},
        {tch_v3_madd(ball, 0.3, end), tch_v3_madd(ball, 0.04, end), tch_v3_madd(ball, 0.06, end),
         end, NULL},
        /* cylinder about z, R 0.1, half-height 0.05: side, cap, rim */
        {tch_v3_scale(side, 0.3), tch_v3_scale(side, 0.08), tch_v3_scale(side, 0.11), side, "cylinder"},
        {{0.03, -0.04, 0.2}, {0.03, -0.04, 0.045}, {0.03, -0.04, 0.06}, {0, 0, 1}, "cylinder"},
        {tch_v3_madd(rim, 0.3, diagonal), tch_v3_madd(rim, -0.005, diagonal),
         tch_v3_madd(rim, 0.01, diagonal), diagonal, "cylinder"},
        pressed_probe(e_point[0], e_normal[0], 0.01, "fixed"),
        pressed_probe(e_point[1], e_normal[1], 0.01, "fixed"),
        pressed_probe(e_point[2], e_normal[2], 0.01, "fixed"),
        pressed_probe(e_point[3], e_normal[3], 0.01, "free"),
        pressed_probe(e_point[4], e_normal[4], 0.01, "free"),
        pressed_probe(e_point[5], e_normal[5], 0.01, "free"),
    };
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; ++i) {
        const probe* p = &probes[i];
        tch_transform X = p->geom ? s.data->geom_X_WG[tch_model_geom_index(s.model, p->geom)]
                                  : (tch_transform){tch_q_identity(), tch_v3_zero()};
        tch_haptic_proxy_reset(s.proxy, tch_x_apply(X, p->start));
        tch_vec3 hand = tch_x_apply(X, p->hand), force = tch_v3_zero();
        for (int k = 1; k <= 30; ++k) {
            force = tch_haptic_proxy_update(
                s.proxy, tch_v3_lerp(tch_x_apply(X, p->start), hand, fmin(1, k / 20.0)),
                tch_v3_zero());
        }
        tch_vec3 rest = tch_x_apply(X, p->rest), n = tch_q_rotate(X.q, p->normal);
        tch_vec3 normals[3];
        int contacts = tch_haptic_proxy_contacts(s.proxy, normals);
        printf("  probe %zu: rest off by %.3g m, normal off by %.3g\n", i,
               tch_v3_dist(tch_haptic_proxy_position(s.proxy), rest),
               contacts ? tch_v3_dist(normals[0], n) : 1.0);
        ENSURE(tch_v3_dist(tch_haptic_proxy_position(s.proxy), rest) < 1e-8);
        ENSURE(contacts == 1 && tch_v3_dist(normals[0], n) < 1e-6);
        ENSURE(tch_v3_dist(force, tch_v3_scale(tch_v3_sub(rest, hand), 100)) < 1e-6);
    }
    scene_free(&s);
}

int main(void) {
    RUN_TEST(test_proxy_never_crosses_a_box_or_a_thin_plate);
    RUN_TEST(test_proxy_rests_in_a_corner_on_three_planes);
    RUN_TEST(test_proxy_force_on_a_plane_is_k_times_depth);
    RUN_TEST(test_proxy_friction_sticks_inside_the_cone_and_slides_outside);
    RUN_TEST(test_proxy_force_shading_tilts_toward_the_vertex_normal);
    RUN_TEST(test_proxy_on_scene_primitives);
    RUN_TEST(test_proxy_rides_a_moving_plate);
    RUN_TEST(test_proxy_is_pushed_by_a_rising_plate);
    RUN_TEST(test_proxy_on_capsules_cylinders_and_ellipsoids);
    return TEST_RESULT();
}
