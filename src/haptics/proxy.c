/* The virtual proxy (god-object) of touche/haptics.h: Zilles and Salisbury 1995, "A
 * constraint-based god-object method for haptic display"; Ruspini, Kolarov and Khatib 1997,
 * "The haptic display of complex graphical environments" (seed 003 sec. 2). The proxy moves
 * toward the device point; a swept test stops it at the first surface on its way, that surface
 * becomes a constraint plane n . x >= d, and the proxy moves on toward the point nearest the
 * device that satisfies every plane met so far (a projection onto at most 3 of them). */
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "haptics/proxy_internal.h"
#include "math/vec.h"

/* Constraint planes met in one tick, and moves tried: a corner needs 3, more covers the
 * planes met and then left behind in a crease. */
enum { MAX_PLANES = 8, MAX_MOVES = 8 };
static const tch_real SKIN = TCH_PROXY_SKIN;

/* The point of the planes `subset` (their equalities) nearest `goal`: goal - sum l_i n_i with
 * the Gram system G l = N goal - d (l into *lambda when not NULL); false when their normals are
 * dependent. */
static bool project(tch_vec3 goal, const proxy_plane* const* subset, int count, tch_vec3* out,
                    tch_vec3* lambda_out) {
    tch_mat3 gram = tch_m3_identity();
    tch_vec3 rhs = tch_v3_zero();
    for (int i = 0; i < count; ++i) {
        for (int j = 0; j < count; ++j) {
            gram.m[i][j] = tch_v3_dot(subset[i]->normal, subset[j]->normal);
        }
        tch_v3_set(&rhs, i, tch_v3_dot(subset[i]->normal, goal) - subset[i]->offset);
    }
    tch_mat3 inverse;
    if (fabs(tch_m3_det(gram)) < 1e-12 || !tch_m3_inverse(gram, &inverse)) {
        return false;
    }
    tch_vec3 lambda = tch_m3_mul_v3(inverse, rhs);
    *out = goal;
    for (int i = 0; i < count; ++i) {
        *out = tch_v3_madd(*out, -tch_v3_get(lambda, i), subset[i]->normal);
    }
    if (lambda_out) {
        *lambda_out = lambda;
    }
    return true;
}

static bool satisfies(tch_vec3 x, const proxy_plane* planes, int count) {
    for (int i = 0; i < count; ++i) {
        if (tch_v3_dot(planes[i].normal, x) < planes[i].offset - SKIN) {
            return false;
        }
    }
    return true;
}

/* The point nearest `goal` that satisfies every plane (a small quadratic program, solved by
 * trying each set of at most 3 planes as the active set: the nearest feasible candidate is the
 * optimum). False when none is feasible. */
static bool nearest_feasible(tch_vec3 goal, const proxy_plane* planes, int count, tch_vec3* out) {
    tch_real best = INFINITY;
    for (int mask = 0; mask < (1 << count); ++mask) {
        if (__builtin_popcount((unsigned)mask) > 3) {
            continue;
        }
        const proxy_plane* subset[3];
        int size = 0;
        for (int i = 0; i < count; ++i) {
            if (mask & (1 << i)) {
                subset[size++] = &planes[i];
            }
        }
        tch_vec3 x = goal;
        if (!project(goal, subset, size, &x, NULL) || !satisfies(x, planes, count)) {
            continue;
        }
        tch_real distance = tch_v3_dist(x, goal);
        if (distance < best) {
            best = distance;
            *out = x;
        }
    }
    return best < INFINITY;
}

/* Friction by proxy motion (Ruspini, Kolarov and Khatib 1997; the friction cone): the device's
 * offset from the proxy at depth h below the contact plane has a lateral part l; the proxy
 * sticks while |l| <= mu h, else the goal is drawn back so the proxy trails the device by
 * mu h laterally (kinetic = static mu). Then force shading (Morgenbesser and Srinivasan 1996,
 * as Ruspini et al. 1997 use it): the goal is first held to the plane through the proxy of the
 * interpolated normal. */
static tch_vec3 shape_goal(const tch_haptic_proxy* proxy, tch_vec3 device) {
    if (proxy->contact_count == 0) {
        return device;
    }
    tch_vec3 n = tch_v3_zero();
    tch_real mu = 0;
    for (int i = 0; i < proxy->contact_count; ++i) {
        n = tch_v3_add(n, proxy->contacts[i].normal);
        mu += proxy->contacts[i].friction / proxy->contact_count;
    }
    n = tch_v3_normalize(n);
    tch_vec3 offset = tch_v3_sub(device, proxy->position);
    tch_real depth = -tch_v3_dot(n, offset);
    tch_vec3 goal = device;
    if (depth > 0 && mu > 0) {
        tch_vec3 lateral = tch_v3_madd(offset, depth, n);
        tch_real slip = tch_v3_norm(lateral);
        goal = slip <= mu * depth ? tch_v3_madd(proxy->position, -depth, n)
                                  : tch_v3_madd(device, -mu * depth / slip, lateral);
    }
    if (proxy->params.force_shading && proxy->contact_count == 1) {
        tch_vec3 shade = proxy->contacts[0].shade;
        tch_real below = tch_v3_dot(shade, tch_v3_sub(goal, proxy->position));
        if (below < 0) {
            goal = tch_v3_madd(goal, -below, shade);
        }
    }
    return goal;
}

/* The constrained motion toward `goal`: each move is swept, stops at the first surface, which
 * joins the planes; the proxy is only ever placed at a swept-free end or a hit. */
static void move_toward(tch_haptic_proxy* proxy, tch_vec3 goal, proxy_plane* planes, int* count) {
    tch_vec3 p = proxy->position;
    *count = 0;
    for (int move = 0; move < MAX_MOVES; ++move) {
        tch_vec3 target = p;
        if (!nearest_feasible(goal, planes, *count, &target)) {
            break;
        }
        proxy_hit hit = tch_proxy_sweep(proxy, p, tch_v3_sub(target, p), -1);
        if (hit.t > 1) {
            p = target;
            break;
        }
        p = tch_v3_lerp(p, target, hit.t);
        if (*count == MAX_PLANES) {
            break;
        }
        planes[(*count)++] = hit.plane;
    }
    proxy->position = p;
}

/* The planes the proxy rests on and the device presses into (at most 3). */
static void find_contacts(tch_haptic_proxy* proxy, tch_vec3 device, const proxy_plane* planes,
                          int count) {
    proxy->contact_count = 0;
    for (int i = 0; i < count && proxy->contact_count < 3; ++i) {
        tch_real gap = tch_v3_dot(planes[i].normal, proxy->position) - planes[i].offset;
        if (fabs(gap) <= 2 * SKIN &&
            tch_v3_dot(planes[i].normal, tch_v3_sub(device, proxy->position)) < 0) {
            proxy->contacts[proxy->contact_count++] = planes[i];
        }
    }
}

/* A plane n . x >= d carried by the rigid motion x -> R x + t. */
static proxy_plane moved_plane(proxy_plane plane, tch_transform motion) {
    plane.normal = tch_q_rotate(motion.q, plane.normal);
    plane.shade = tch_q_rotate(motion.q, plane.shade);
    plane.offset += tch_v3_dot(plane.normal, motion.p);
    return plane;
}

static bool rests_on(const tch_haptic_proxy* proxy, int part) {
    for (int i = 0; i < proxy->contact_count; ++i) {
        if (proxy->contacts[i].part == part) {
            return true;
        }
    }
    return false;
}

/* The moving parts' motion since the last update, D = X_WP X_WP_last^-1. A part the proxy rests
 * on carries it (the proxy keeps its place on the surface, so friction acts relative to the
 * surface) as far as the other parts let it; a part moving into the proxy pushes it: the
 * proxy's motion relative to the part, from D p back to p, is swept against the part at its
 * new pose and the proxy stops at the surface. The contact planes move with their parts. */
static void follow_moving_parts(tch_haptic_proxy* proxy) {
    for (int part = 1; part < proxy->part_count; ++part) {
        proxy_part* moving = &proxy->parts[part];
        tch_transform motion = tch_x_mul(moving->X_WP, tch_x_inverse(moving->X_WP_last));
        moving->X_WP_last = moving->X_WP;
        tch_vec3 p = proxy->position;
        tch_vec3 carried = tch_x_apply(motion, p);
        if (rests_on(proxy, part)) {
            proxy_hit hit = tch_proxy_sweep(proxy, p, tch_v3_sub(carried, p), part);
            proxy->position = tch_v3_lerp(p, carried, fmin(hit.t, 1));
        } else {
            proxy_hit hit = tch_proxy_sweep_part(proxy, part, carried, tch_v3_sub(p, carried), 2);
            if (hit.t <= 1) {
                proxy->position = tch_v3_lerp(carried, p, hit.t);
            }
        }
        for (int i = 0; i < proxy->contact_count; ++i) {
            if (proxy->contacts[i].part == part) {
                proxy->contacts[i] = moved_plane(proxy->contacts[i], motion);
            }
        }
    }
}

/* Minus the force on the handle goes to the parts the proxy rests on, at its contact points,
 * shared in proportion to the contacts' normal loads (the least-squares split of the force on
 * their normals, negative loads dropped). */
static void share_reaction(tch_haptic_proxy* proxy, tch_vec3 force) {
    for (int part = 0; part < proxy->part_count; ++part) {
        proxy->parts[part].reaction_share = 0;
        proxy->parts[part].reaction_point = tch_v3_zero();
    }
    int count = proxy->contact_count;
    tch_real load[3] = {1, 1, 1}, total = 0;
    if (count > 1) {
        proxy_plane through_origin[3];
        const proxy_plane* subset[3] = {&through_origin[0], &through_origin[1],
                                        &through_origin[2]};
        for (int i = 0; i < count; ++i) {
            through_origin[i] = (proxy_plane){.normal = proxy->contacts[i].normal};
        }
        tch_vec3 rest, lambda;
        if (project(force, subset, count, &rest, &lambda)) { /* force = rest + sum l_i n_i */
            for (int i = 0; i < count; ++i) {
                load[i] = fmax(0, tch_v3_get(lambda, i));
            }
        }
    }
    for (int i = 0; i < count; ++i) {
        total += load[i];
    }
    for (int i = 0; i < count && total > 0; ++i) {
        const proxy_plane* c = &proxy->contacts[i];
        proxy_part* part = &proxy->parts[c->part];
        tch_vec3 point = tch_v3_madd(proxy->position, -proxy->params.radius, c->normal);
        part->reaction_share += load[i] / total;
        part->reaction_point = tch_v3_madd(part->reaction_point, load[i] / total, point);
    }
    for (int part = 0; part < proxy->part_count; ++part) {
        proxy_part* p = &proxy->parts[part];
        if (p->reaction_share > 0) {
            p->reaction_point = tch_v3_scale(p->reaction_point, 1 / p->reaction_share);
        }
    }
}

tch_vec3 tch_haptic_proxy_update(tch_haptic_proxy* proxy, tch_vec3 device, tch_vec3 velocity) {
    tch_vec3 before = proxy->position;
    follow_moving_parts(proxy);
    proxy_plane planes[MAX_PLANES];
    int count;
    move_toward(proxy, shape_goal(proxy, device), planes, &count);
    find_contacts(proxy, device, planes, count);
    const tch_haptic_proxy_params* k = &proxy->params;
    tch_vec3 force = tch_v3_scale(tch_v3_sub(proxy->position, device), k->stiffness);
    if (proxy->contact_count > 0 && k->damping > 0 && k->period > 0) {
        tch_vec3 proxy_velocity = tch_v3_scale(tch_v3_sub(proxy->position, before), 1 / k->period);
        force = tch_v3_madd(force, k->damping, tch_v3_sub(proxy_velocity, velocity));
    }
    share_reaction(proxy, force);
    return force;
}

int tch_haptic_proxy_body_count(const tch_haptic_proxy* proxy) {
    return proxy->part_count - 1;
}

int tch_haptic_proxy_body(const tch_haptic_proxy* proxy, int i) {
    return proxy->parts[i + 1].body;
}

void tch_haptic_proxy_set_body_pose(tch_haptic_proxy* proxy, int i, tch_transform X_WB) {
    proxy->parts[i + 1].X_WP = X_WB;
}

tch_real tch_haptic_proxy_body_reaction(const tch_haptic_proxy* proxy, int i,
                                        tch_vec3* point_W) {
    *point_W = proxy->parts[i + 1].reaction_point;
    return proxy->parts[i + 1].reaction_share;
}

void tch_haptic_proxy_reset(tch_haptic_proxy* proxy, tch_vec3 position) {
    proxy->position = position;
    proxy->contact_count = 0;
}

tch_vec3 tch_haptic_proxy_position(const tch_haptic_proxy* proxy) {
    return proxy->position;
}

int tch_haptic_proxy_contacts(const tch_haptic_proxy* proxy, tch_vec3 normals[3]) {
    for (int i = 0; i < proxy->contact_count; ++i) {
        normals[i] = proxy->contacts[i].normal;
    }
    return proxy->contact_count;
}

void tch_haptic_proxy_destroy(tch_haptic_proxy* proxy) {
    if (proxy) {
        for (int i = 0; i < proxy->part_count; ++i) {
            tch_bvh_free(&proxy->parts[i].bvh);
        }
        free(proxy->parts);
        free(proxy->triangles);
        free(proxy->balls);
        free(proxy->capsules);
        free(proxy->cylinders);
        free(proxy->ellipsoids);
        free(proxy->halfspaces);
        free(proxy);
    }
}
