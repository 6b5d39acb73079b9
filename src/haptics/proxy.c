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
/* m: how far a motion must go into a surface to count as entering it, and the slack of the
 * inside-triangle test: far above rounding at metre scale, far below any rendered depth. */
static const tch_real SKIN = 1e-9;

/* The earliest surface a swept sphere meets, as a sweep finds it. */
typedef struct proxy_hit {
    tch_real t; /* fraction of the move, in [0, 1]; > 1: none */
    proxy_plane plane;
} proxy_hit;

typedef struct sweep_query {
    const tch_haptic_proxy* proxy;
    tch_vec3 from, move;
    proxy_hit hit;
} sweep_query;

static void record_hit(proxy_hit* hit, tch_real t, tch_vec3 normal, tch_real offset,
                       tch_real friction, tch_vec3 shade) {
    if (t < hit->t) {
        *hit = (proxy_hit){t, {normal, offset, friction, shade}};
    }
}

/* When a sphere of radius r whose centre moves w + t u (t in [0, 1], relative to a point or
 * perpendicular to a line) first comes within r of it, entering by more than SKIN; -1 if not. */
static tch_real swept_distance_hit(tch_vec3 w, tch_vec3 u, tch_real r) {
    tch_real a = tch_v3_dot(u, u), b = tch_v3_dot(w, u);
    if (!(a > 0) || b >= 0 || tch_v3_norm(w) < r - SKIN) {
        return -1; /* not moving closer, or starting inside (behind the surface) */
    }
    tch_real t_closest = fmin(-b / a, 1);
    if (tch_v3_norm(tch_v3_madd(w, t_closest, u)) >= r - SKIN) {
        return -1;
    }
    tch_real c = tch_v3_dot(w, w) - r * r;
    return fmax(0, (-b - sqrt(fmax(0, b * b - a * c))) / a);
}

/* The plane tangent to the sphere of radius r about `point` at the centre `centre`. */
static void record_point_hit(proxy_hit* hit, tch_real t, tch_vec3 centre, tch_vec3 point,
                             tch_real r, tch_real friction) {
    tch_vec3 n = tch_v3_normalize(tch_v3_sub(centre, point));
    record_hit(hit, t, n, tch_v3_dot(n, point) + r, friction, n);
}

static void sweep_edge(sweep_query* q, tch_vec3 a, tch_vec3 b, tch_real r, tch_real friction) {
    tch_vec3 e = tch_v3_sub(b, a);
    tch_real ee = tch_v3_dot(e, e);
    tch_vec3 w = tch_v3_sub(q->from, a);
    tch_vec3 w_perp = tch_v3_madd(w, -tch_v3_dot(w, e) / ee, e);
    tch_vec3 u_perp = tch_v3_madd(q->move, -tch_v3_dot(q->move, e) / ee, e);
    tch_real t = swept_distance_hit(w_perp, u_perp, r);
    if (t < 0 || t >= q->hit.t) {
        return;
    }
    tch_vec3 centre = tch_v3_madd(q->from, t, q->move);
    tch_real s = tch_v3_dot(tch_v3_sub(centre, a), e) / ee;
    if (s >= 0 && s <= 1) {
        record_point_hit(&q->hit, t, centre, tch_v3_madd(a, s, e), r, friction);
    }
}

static void sweep_vertex(sweep_query* q, tch_vec3 v, tch_real r, tch_real friction) {
    tch_real t = swept_distance_hit(tch_v3_sub(q->from, v), q->move, r);
    if (t >= 0 && t < q->hit.t) {
        record_point_hit(&q->hit, t, tch_v3_madd(q->from, t, q->move), v, r, friction);
    }
}

/* Barycentric weights of x (on the triangle's plane), or false when x is outside by more than
 * SKIN. */
static bool barycentric(const proxy_triangle* tri, tch_vec3 x, tch_real w[3]) {
    tch_real total = 0;
    for (int i = 0; i < 3; ++i) {
        tch_vec3 a = tri->v[(i + 1) % 3], b = tri->v[(i + 2) % 3];
        tch_vec3 edge = tch_v3_sub(b, a);
        w[i] = tch_v3_dot(tch_v3_cross(edge, tch_v3_sub(x, a)), tri->normal);
        if (w[i] < -SKIN * tch_v3_norm(edge)) {
            return false;
        }
        total += w[i];
    }
    for (int i = 0; i < 3; ++i) {
        w[i] = total > 0 ? fmax(0, w[i]) / total : 1.0 / 3;
    }
    return true;
}

static tch_vec3 shaded_normal(const proxy_triangle* tri, const tch_real w[3]) {
    tch_vec3 n = tch_v3_zero();
    for (int i = 0; i < 3; ++i) {
        n = tch_v3_madd(n, w[i], tri->vertex_normal[i]);
    }
    return tch_v3_norm(n) > 0 ? tch_v3_normalize(n) : tri->normal;
}

/* The face from its outside (one-sided: a closed mesh is entered only through the front of a
 * face), then, for a sphere, the edges and corners its offset surface rounds. */
static void sweep_triangle(sweep_query* q, const proxy_triangle* tri) {
    tch_real r = q->proxy->params.radius;
    tch_vec3 n = tri->normal;
    tch_real offset = tch_v3_dot(n, tri->v[0]) + r;
    tch_real s0 = tch_v3_dot(n, q->from) - offset;
    tch_real s1 = s0 + tch_v3_dot(n, q->move);
    if (s0 >= -SKIN && s1 < -SKIN) {
        tch_real t = fmax(0, s0 / (s0 - s1));
        tch_vec3 centre = tch_v3_madd(q->from, t, q->move);
        tch_vec3 foot = tch_v3_madd(centre, -(tch_v3_dot(n, centre) - offset + r), n);
        tch_real w[3];
        if (t < q->hit.t && barycentric(tri, foot, w)) {
            record_hit(&q->hit, t, n, offset, tri->friction, shaded_normal(tri, w));
        }
    }
    if (r > 0) {
        for (int i = 0; i < 3; ++i) {
            sweep_edge(q, tri->v[i], tri->v[(i + 1) % 3], r, tri->friction);
            sweep_vertex(q, tri->v[i], r, tri->friction);
        }
    }
}

static int sweep_triangle_callback(int primitive, void* user) {
    sweep_query* q = user;
    sweep_triangle(q, &q->proxy->triangles[primitive]);
    return 0;
}

/* The earliest hit of the proxy moving from `from` by `move` (t > 1: none). */
static proxy_hit sweep(const tch_haptic_proxy* proxy, tch_vec3 from, tch_vec3 move) {
    sweep_query q = {proxy, from, move, {.t = 2}};
    tch_real r = proxy->params.radius;
    if (proxy->triangle_count > 0) {
        tch_vec3 to = tch_v3_add(from, move);
        tch_vec3 pad = tch_v3(r + SKIN, r + SKIN, r + SKIN);
        tch_aabb box = {tch_v3_sub(tch_v3_min(from, to), pad),
                        tch_v3_add(tch_v3_max(from, to), pad)};
        tch_bvh_query_box(&proxy->bvh, box, sweep_triangle_callback, &q);
    }
    for (int i = 0; i < proxy->ball_count; ++i) {
        const proxy_ball* ball = &proxy->balls[i];
        tch_real t = swept_distance_hit(tch_v3_sub(from, ball->centre), move, ball->radius + r);
        if (t >= 0 && t < q.hit.t) {
            record_point_hit(&q.hit, t, tch_v3_madd(from, t, move), ball->centre, ball->radius + r,
                             ball->friction);
        }
    }
    for (int i = 0; i < proxy->halfspace_count; ++i) {
        const proxy_plane* h = &proxy->halfspaces[i];
        tch_real s0 = tch_v3_dot(h->normal, from) - h->offset - r;
        tch_real s1 = s0 + tch_v3_dot(h->normal, move);
        if (s0 >= -SKIN && s1 < -SKIN) {
            record_hit(&q.hit, fmax(0, s0 / (s0 - s1)), h->normal, h->offset + r, h->friction,
                       h->normal);
        }
    }
    return q.hit;
}

/* The point of the planes `subset` (their equalities) nearest `goal`: goal - sum l_i n_i with
 * the Gram system G l = N goal - d; false when their normals are dependent. */
static bool project(tch_vec3 goal, const proxy_plane* const* subset, int count, tch_vec3* out) {
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
        if (!project(goal, subset, size, &x) || !satisfies(x, planes, count)) {
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
        proxy_hit hit = sweep(proxy, p, tch_v3_sub(target, p));
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

tch_vec3 tch_haptic_proxy_update(tch_haptic_proxy* proxy, tch_vec3 device, tch_vec3 velocity) {
    tch_vec3 before = proxy->position;
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
    return force;
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
        tch_bvh_free(&proxy->bvh);
        free(proxy->triangles);
        free(proxy->balls);
        free(proxy->halfspaces);
        free(proxy);
    }
}
