/* The virtual proxy's data, shared by its update (proxy.c) and its scene (proxy_scene.c). */
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

/* A constraint on the proxy's centre: normal . x >= offset. `shade` is the normal force shading
 * uses (the interpolated one on a mesh, else the normal itself). */
typedef struct proxy_plane {
    tch_vec3 normal;
    tch_real offset;
    tch_real friction;
    tch_vec3 shade;
} proxy_plane;

struct tch_haptic_proxy {
    tch_haptic_proxy_params params;
    proxy_triangle* triangles;
    int triangle_count;
    tch_bvh bvh;
    proxy_ball* balls;
    int ball_count;
    proxy_plane* halfspaces; /* static planes: normal . x >= offset outside */
    int halfspace_count;
    tch_vec3 position;
    proxy_plane contacts[3]; /* the planes the proxy rests on, pressed by the device */
    int contact_count;
};
