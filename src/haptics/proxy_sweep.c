/* The virtual proxy's swept test (touche/haptics.h): the first surface a point or a sphere meets
 * on a straight move, against triangles, spheres, capsules, cylinders, ellipsoids and planes,
 * each part
 * (the static scene, a moving body) in its own frame at its pose. */
#include <math.h>

#include "haptics/proxy_internal.h"
#include "math/vec.h"

static const tch_real SKIN = TCH_PROXY_SKIN;
/* Conservative-advancement iterations on a cylinder or an ellipsoid before its nearest point is
 * taken as the contact (the proxy then stops short of the surface, never inside). */
enum { MAX_ADVANCES = 64 };
/* Newton iterations for an ellipsoid's nearest point (monotone: 5 to 20 in practice). */
enum { MAX_NEWTON = 100 };

typedef struct sweep_query {
    const tch_haptic_proxy* proxy;
    const proxy_part* part;
    tch_vec3 from, move; /* part frame */
    proxy_hit hit;       /* part frame */
} sweep_query;

static void record_hit(proxy_hit* hit, tch_real t, tch_vec3 normal, tch_real offset,
                       tch_real friction, tch_vec3 shade) {
    if (t < hit->t) {
        *hit = (proxy_hit){t, {normal, offset, friction, shade, 0}};
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

/* The segment a-b thickened by r (its cylindrical part; the ends are sweep_vertex's). */
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
    sweep_triangle(q, &q->proxy->triangles[q->part->first_triangle + primitive]);
    return 0;
}

/* A capsule is its segment thickened by R + r: the segment's cylinder and its two end balls. */
static void sweep_capsule(sweep_query* q, const proxy_capsule* c) {
    tch_real r = c->radius + q->proxy->params.radius;
    sweep_edge(q, c->a, c->b, r, c->friction);
    sweep_vertex(q, c->a, r, c->friction);
    sweep_vertex(q, c->b, r, c->friction);
}

/* The distance from x to the solid cylinder (negative inside) and the outward normal at its
 * nearest point: along the radius beside the side, along the axis above a cap, from the rim
 * circle's nearest point outside both. */
static tch_real cylinder_distance(const void* shape, tch_vec3 x, tch_vec3* normal) {
    const proxy_cylinder* c = shape;
    tch_vec3 rel = tch_v3_sub(x, c->centre);
    tch_real z = tch_v3_dot(rel, c->axis);
    tch_vec3 radial = tch_v3_madd(rel, -z, c->axis);
    tch_real rho = tch_v3_norm(radial);
    tch_vec3 out = rho > 0 ? tch_v3_scale(radial, 1 / rho) : tch_v3_normalize(tch_v3_cross(
                                 c->axis, fabs(c->axis.x) < 0.9 ? tch_v3(1, 0, 0) : tch_v3(0, 1, 0)));
    tch_vec3 up = tch_v3_scale(c->axis, z >= 0 ? 1 : -1);
    tch_real side = rho - c->radius, cap = fabs(z) - c->half_height;
    if (side > 0 && cap > 0) {
        tch_real d = hypot(side, cap);
        *normal = tch_v3_add(tch_v3_scale(out, side / d), tch_v3_scale(up, cap / d));
        return d;
    }
    *normal = side > cap ? out : up;
    return fmax(side, cap);
}

/* f(t) = sum (a_i u_i / (a_i^2 + t))^2 - 1 and its derivative, for the ellipsoid's nearest
 * point y_i = a_i^2 u_i / (a_i^2 + t) to u (the Lagrange condition of min |u - y|). */
static tch_real nearest_point_condition(const tch_real a[3], const tch_real u[3], tch_real t,
                                        tch_real* derivative) {
    tch_real f = -1, df = 0;
    for (int i = 0; i < 3; ++i) {
        tch_real w = a[i] * a[i] + t, y = a[i] * u[i] / w;
        f += y * y;
        df -= 2 * y * y / w;
    }
    *derivative = df;
    return f;
}

/* The distance from x to the solid ellipsoid and the outward normal at its nearest point;
 * inside, a negative number (only its sign is read) and the gradient's direction. Outside, f
 * above is convex and decreasing in t >= 0 with f(0) > 0, so Newton's method from t = 0 climbs
 * to its root without passing it. */
static tch_real ellipsoid_distance(const void* shape, tch_vec3 x, tch_vec3* normal) {
    const proxy_ellipsoid* e = shape;
    tch_vec3 local = tch_q_inv_rotate(e->q, tch_v3_sub(x, e->centre));
    const tch_real a[3] = {e->semi_axes.x, e->semi_axes.y, e->semi_axes.z};
    const tch_real u[3] = {local.x, local.y, local.z};
    tch_real scaled = 0;
    for (int i = 0; i < 3; ++i) {
        scaled += (u[i] / a[i]) * (u[i] / a[i]);
    }
    if (scaled <= 1) {
        tch_vec3 gradient = tch_v3(u[0] / (a[0] * a[0]), u[1] / (a[1] * a[1]), u[2] / (a[2] * a[2]));
        *normal = tch_q_rotate(e->q, tch_v3_normalize(gradient));
        return sqrt(scaled) - 1;
    }
    tch_real t = 0, df = 0;
    for (int k = 0; k < MAX_NEWTON; ++k) {
        tch_real step = -nearest_point_condition(a, u, t, &df) / df;
        t += step;
        if (!(step > 1e-15 * (t + a[0] * a[0]))) {
            break;
        }
    }
    tch_vec3 away = tch_v3(u[0] * t / (a[0] * a[0] + t), u[1] * t / (a[1] * a[1] + t),
                           u[2] * t / (a[2] * a[2] + t)); /* u - y */
    tch_real distance = tch_v3_norm(away);
    *normal = tch_q_rotate(e->q, tch_v3_scale(away, 1 / distance));
    return distance;
}

typedef tch_real (*distance_fn)(const void* shape, tch_vec3 x, tch_vec3* normal);

/* A convex solid given by its distance function (cylinders, ellipsoids). The distance to a
 * convex set is convex along a line, so conservative advancement (each step the remaining
 * clearance over the speed) reaches the first contact from below, never past it. The motion
 * enters when it goes in at the contact by more than SKIN over what is left of the move. */
static void sweep_convex(sweep_query* q, distance_fn distance, const void* shape,
                         tch_real friction) {
    tch_real r = q->proxy->params.radius, speed = tch_v3_norm(q->move);
    tch_vec3 n;
    if (!(speed > 0) || distance(shape, q->from, &n) < r - SKIN) {
        return; /* not moving, or starting inside */
    }
    tch_real t = 0;
    for (int i = 0; i < MAX_ADVANCES && t < q->hit.t && t <= 1; ++i) {
        tch_real gap = distance(shape, tch_v3_madd(q->from, t, q->move), &n) - r;
        if (gap <= SKIN / 4 || i + 1 == MAX_ADVANCES) {
            break;
        }
        t += gap / speed;
    }
    if (t > 1 || t >= q->hit.t || tch_v3_dot(n, q->move) * (1 - t) >= -SKIN) {
        return;
    }
    tch_vec3 centre = tch_v3_madd(q->from, t, q->move);
    tch_real gap = distance(shape, centre, &n) - r;
    record_hit(&q->hit, t, n, tch_v3_dot(n, centre) - gap, friction, n);
}

static void sweep_primitives(sweep_query* q) {
    const tch_haptic_proxy* proxy = q->proxy;
    const proxy_part* part = q->part;
    tch_real r = proxy->params.radius;
    if (part->triangle_count > 0) {
        tch_vec3 to = tch_v3_add(q->from, q->move);
        tch_vec3 pad = tch_v3(r + SKIN, r + SKIN, r + SKIN);
        tch_aabb box = {tch_v3_sub(tch_v3_min(q->from, to), pad),
                        tch_v3_add(tch_v3_max(q->from, to), pad)};
        tch_bvh_query_box(&part->bvh, box, sweep_triangle_callback, q);
    }
    for (int i = 0; i < part->ball_count; ++i) {
        const proxy_ball* ball = &proxy->balls[part->first_ball + i];
        sweep_vertex(q, ball->centre, ball->radius + r, ball->friction);
    }
    for (int i = 0; i < part->capsule_count; ++i) {
        sweep_capsule(q, &proxy->capsules[part->first_capsule + i]);
    }
    for (int i = 0; i < part->cylinder_count; ++i) {
        const proxy_cylinder* c = &proxy->cylinders[part->first_cylinder + i];
        sweep_convex(q, cylinder_distance, c, c->friction);
    }
    for (int i = 0; i < part->ellipsoid_count; ++i) {
        const proxy_ellipsoid* e = &proxy->ellipsoids[part->first_ellipsoid + i];
        sweep_convex(q, ellipsoid_distance, e, e->friction);
    }
}

static void sweep_halfspaces(sweep_query* q) {
    const tch_haptic_proxy* proxy = q->proxy;
    tch_real r = proxy->params.radius;
    for (int i = 0; i < proxy->halfspace_count; ++i) {
        const proxy_plane* h = &proxy->halfspaces[i];
        tch_real s0 = tch_v3_dot(h->normal, q->from) - h->offset - r;
        tch_real s1 = s0 + tch_v3_dot(h->normal, q->move);
        if (s0 >= -SKIN && s1 < -SKIN) {
            record_hit(&q->hit, fmax(0, s0 / (s0 - s1)), h->normal, h->offset + r, h->friction,
                       h->normal);
        }
    }
}

proxy_hit tch_proxy_sweep_part(const tch_haptic_proxy* proxy, int index, tch_vec3 from,
                               tch_vec3 move, tch_real before) {
    const proxy_part* part = &proxy->parts[index];
    if (index == 0) { /* static: the part frame is the world's */
        sweep_query q = {proxy, part, from, move, {.t = before}};
        sweep_primitives(&q);
        sweep_halfspaces(&q);
        return q.hit.t < before ? q.hit : (proxy_hit){.t = 2};
    }
    tch_transform X = part->X_WP;
    sweep_query q = {proxy, part, tch_x_apply_inverse(X, from), tch_q_inv_rotate(X.q, move),
                     {.t = before}};
    sweep_primitives(&q);
    if (!(q.hit.t < before)) {
        return (proxy_hit){.t = 2};
    }
    tch_vec3 n = tch_q_rotate(X.q, q.hit.plane.normal);
    return (proxy_hit){q.hit.t,
                       {n, q.hit.plane.offset + tch_v3_dot(n, X.p), q.hit.plane.friction,
                        tch_q_rotate(X.q, q.hit.plane.shade), index}};
}

proxy_hit tch_proxy_sweep(const tch_haptic_proxy* proxy, tch_vec3 from, tch_vec3 move, int skip) {
    proxy_hit best = {.t = 2};
    for (int p = 0; p < proxy->part_count; ++p) {
        if (p != skip) {
            proxy_hit hit = tch_proxy_sweep_part(proxy, p, from, move, best.t);
            best = hit.t < best.t ? hit : best;
        }
    }
    return best;
}
