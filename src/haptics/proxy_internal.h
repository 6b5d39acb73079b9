/* The virtual proxy's data, shared by its update (proxy.c), its sweeps (proxy_sweep.c) and its
 * scene (proxy_scene.c). */
#pragma once

#include "geometry/bvh.h"
#include "touche/haptics.h"

typedef struct proxy_triangle {
    tch_vec3 v[3];
    tch_vec3 normal; /* outward, unit */
    tch_vec3 vertex_normal[3];
    tch_real friction;
} proxy_triangle;

typedef struct proxy_ball {
    tch_vec3 centre;
    tch_real radius;
    tch_real friction;
} proxy_ball;

/* A capsule: the points within `radius` of the segment a-b. */
typedef struct proxy_capsule {
    tch_vec3 a, b;
    tch_real radius;
    tch_real friction;
} proxy_capsule;

/* A solid cylinder about `axis` (unit) through `centre`, `half_height` along it each way. */
typedef struct proxy_cylinder {
    tch_vec3 centre, axis;
    tch_real radius, half_height;
    tch_real friction;
} proxy_cylinder;

/* A solid ellipsoid: the points whose coordinates u in its axes (orientation q about `centre`)
 * have sum (u_i / semi_axes_i)^2 <= 1. */
typedef struct proxy_ellipsoid {
    tch_vec3 centre;
    tch_quat q;
    tch_vec3 semi_axes;
    tch_real friction;
} proxy_ellipsoid;

/* A constraint on the proxy's centre: normal . x >= offset. `shade` is the normal force shading
 * uses (the interpolated one on a mesh, else the normal itself); `part` the part whose surface
 * it is (its motion carries the plane). */
typedef struct proxy_plane {
    tch_vec3 normal;
    tch_real offset;
    tch_real friction;
    tch_vec3 shade;
    int part;
} proxy_plane;

/* A rigid group of surfaces: part 0 the static scene (world frame), the others one free body
 * each, their surfaces in the body frame. Ranges index the proxy's shared arrays. */
typedef struct proxy_part {
    int body;                    /* the model's body, or -1 */
    int first_triangle, triangle_count;
    tch_bvh bvh;                 /* over the part's triangles, part frame */
    int first_ball, ball_count;
    int first_capsule, capsule_count;
    int first_cylinder, cylinder_count;
    int first_ellipsoid, ellipsoid_count;
    tch_transform X_WP;          /* the pose for the coming update */
    tch_transform X_WP_last;     /* the pose at the last update */
    tch_real reaction_share;     /* the part's share of the last update's force, reversed */
    tch_vec3 reaction_point;     /* where it acts, world */
} proxy_part;

struct tch_haptic_proxy {
    tch_haptic_proxy_params params;
    proxy_triangle* triangles;
    int triangle_count;
    proxy_ball* balls;
    int ball_count;
    proxy_capsule* capsules;
    int capsule_count;
    proxy_cylinder* cylinders;
    int cylinder_count;
    proxy_ellipsoid* ellipsoids;
    int ellipsoid_count;
    proxy_plane* halfspaces; /* static planes: normal . x >= offset outside */
    int halfspace_count;
    proxy_part* parts;
    int part_count;
    tch_vec3 position;
    proxy_plane contacts[3]; /* the planes the proxy rests on, pressed by the device */
    int contact_count;
};

/* The earliest surface a swept proxy meets. */
typedef struct proxy_hit {
    tch_real t; /* fraction of the move, in [0, 1]; > 1: none */
    proxy_plane plane;
} proxy_hit;

/* m: how far a motion must go into a surface to count as entering it, and the slack of the
 * inside-triangle test: far above rounding at metre scale, far below any rendered depth. */
#define TCH_PROXY_SKIN 1e-9

/* The earliest hit of the proxy moving from `from` by `move` (world frame) against every part
 * but `skip` (-1: none) at its pose X_WP; t > 1: none. */
proxy_hit tch_proxy_sweep(const tch_haptic_proxy* proxy, tch_vec3 from, tch_vec3 move, int skip);
/* The earliest hit against part `part` alone, if before `before`; t > 1: none. */
proxy_hit tch_proxy_sweep_part(const tch_haptic_proxy* proxy, int part, tch_vec3 from,
                               tch_vec3 move, tch_real before);
