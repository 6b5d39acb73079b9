/* The contact-volume model (Hasegawa and Sato 2004; reference notes contact_volume.md).
 *
 * For each touching pair of convex pieces:
 *
 *     P = A ∩ B (collision/polyhedron)  ->  contact plane (n, o_c) by the separation search,
 *     warm-started from last step's normal (collision/contact_plane, notes §3)
 *       ->  normal spring and damper integrated in closed form over P (eqs. 5-12)
 *       ->  friction: distributed static springs and dampers with displacement state (r, θ)
 *           (eqs. 18-29), dynamic friction interpolated at triangle vertices (eqs. 13-17),
 *           the maximum static friction (sec. 4.6) and the static/dynamic state machine
 *           (Fig. 8, restored in notes §6.4)
 *       ->  one wrench on B (and its opposite on A) at o_c.
 *
 * Everything is computed in A's geom frame and turned into the world frame at the end. A
 * plane (half-space) is the one piece that is not a polytope: for each pair it is replaced by
 * the box of the half-space that holds the other piece (its top face on the plane), which has
 * the same intersection with the piece.
 *
 * The per-pair state (tch_pair_state bytes) holds the last normal, depth and GJK simplex of
 * the separation search, the friction mode and (r, θ), created on first contact and dropped
 * on separation; it advances only in a step's first evaluation (tch_pair_context.commit), so
 * RK4's intermediate evaluations and queries leave it alone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "collision/contact_plane.h"
#include "collision/narrowphase.h"
#include "contact/contact.h"
#include "contact/params.h"
#include "contact/planar.h"
#include "contact/restitution.h"
#include "contact/volume.h"
#include "contact/volume_integrals.h"
#include "geometry/hull.h"
#include "geometry/model_shape.h"
#include "math/vec.h"


enum { FRICTION_STATIC = 0, FRICTION_DYNAMIC = 1 };

/* The share of the stopping force one contact may apply as dynamic friction under the implicit
 * integrator (stopping_loads): a body's slip is stopped by all its contacts together, up to four
 * for a box lying on four others in a pile. Measured on pile_100 at 5 s: with the whole
 * stopping force per contact, boxes still moved at 0.25 m/s and 4.4 rad/s; with a quarter,
 * 1.7e-3 m/s and 0.017 rad/s (Bullet: 0.010 m/s, 0.14 rad/s). */
static const tch_real STOPPING_SHARE = 0.25;

/* What the model keeps per pair between steps and between its two callbacks. */
typedef struct volume_state {
    tch_vec3 n_prev_A;  /* last contact normal, A's frame */
    tch_real d_prev;    /* last depth, m */
    tch_vec3 r_A;       /* tangential displacement of B relative to A since sticking, at o_A, m */
    tch_real theta;     /* rotation about n since sticking, rad */
    tch_vec3 o_A;       /* the plane point (r, θ) refer to, A's frame */
    int mode;           /* FRICTION_STATIC or FRICTION_DYNAMIC */
    tch_contact_plane_warm warm; /* the last separation search's GJK simplex */
    /* this evaluation's wrench on B, world: force f_W at the pair's contact point (the centroid
     * of C) and moment m_W */
    tch_vec3 f_W, m_W;
    /* this evaluation's coefficients (contact_coefficients) and whether its static friction
     * springs hold (a committed STATIC contact): what the linearize op needs */
    tch_volume_params k;
    int sticking;
    int held;             /* the last committed step applied friction (it was not the first) */
    tch_vec3 held_A;      /* and its friction force on B when it slid, A's frame, N */
    tch_vec3 friction_W;  /* this evaluation's friction force on B, world */
    tch_real load;        /* and the load bounding it (friction_load), N */
    tch_real area;        /* S_c */
    tch_mat3 second_W;    /* ∫_C p p^T dS about the contact point, world axes */
    tch_impact impact;    /* the pair's impact memory (contact/restitution.h) */
    tch_real impact_damping; /* this evaluation's impact damper; NaN: no impact */
} volume_state;

_Static_assert(sizeof(volume_state) <= TCH_PAIR_STATE_BYTES, "volume state fits its slot");

/* A vertex of P as the contact plane sees it: its projection p on the plane relative to o_c
 * (A's axes, and (x, y) in the plane axes u1, u2), the face-flux pressure σ = (k^N h + b^N ḣ) /
 * S_c there for a face of each owner (by tch_face_owner: ḣ is the owner's normal velocity,
 * notes §5.3 (b)) and the unit traction (tx, ty) of the friction law being summed. */
typedef struct plane_vertex {
    tch_vec3 p;
    tch_real x, y;
    tch_real sigma[2];
    tch_real tx, ty;
} plane_vertex;

/* Working memory of one data: the overlap polyhedron, its vertices seen from the plane and the
 * half-space box of a plane. */
typedef struct volume_scratch {
    tch_polyhedron overlap;
    plane_vertex* vertices;
    int* order; /* [vertex_capacity] P's vertices sorted for the outline */
    int* chain; /* [2 vertex_capacity] the outline's hull chain */
    int vertex_capacity;
    tch_vec3 box_vertices[8];
    int box_face_start[7];
    int box_face_vertices[24];
    tch_vec3 box_normals[6];
    tch_real box_offsets[6];
    int box_edges[12][2];
    tch_convex_hull box;
} volume_scratch;

/* Makes the per-vertex arrays of s hold at least `count` vertices; 0 on success. */
static int reserve_vertices(volume_scratch* s, int count) {
    if (count <= s->vertex_capacity) {
        return 0;
    }
    int capacity = count + count / 2 + 8;
    plane_vertex* vertices = realloc(s->vertices, (size_t)capacity * sizeof *vertices);
    if (vertices) {
        s->vertices = vertices;
    }
    int* order = realloc(s->order, (size_t)capacity * sizeof *order);
    if (order) {
        s->order = order;
    }
    int* chain = realloc(s->chain, 2 * (size_t)capacity * sizeof *chain);
    if (chain) {
        s->chain = chain;
    }
    if (!vertices || !order || !chain) {
        return -1;
    }
    s->vertex_capacity = capacity;
    return 0;
}

/* ---- pieces ---- */

/* The scratch box hull [lo, hi] in its own frame: faces -x, +x, -y, +y, -z, +z, each CCW seen
 * from outside. */
static void make_box_hull(volume_scratch* s, tch_vec3 lo, tch_vec3 hi) {
    static const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                    {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    static const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                     {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (int i = 0; i < 8; ++i) {
        s->box_vertices[i] = (tch_vec3){i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y,
                                        i & 4 ? hi.z : lo.z};
    }
    for (int f = 0; f < 6; ++f) {
        s->box_face_start[f] = 4 * f;
        memcpy(&s->box_face_vertices[4 * f], faces[f], sizeof faces[f]);
        int axis = f / 2;
        tch_real sign = f % 2 ? 1 : -1;
        tch_vec3 n = tch_v3_zero();
        tch_v3_set(&n, axis, sign);
        s->box_normals[f] = n;
        s->box_offsets[f] = sign * tch_v3_get(f % 2 ? hi : lo, axis);
    }
    s->box_face_start[6] = 24;
    memcpy(s->box_edges, edges, sizeof edges);
    tch_vec3 size = tch_v3_sub(hi, lo);
    s->box = (tch_convex_hull){8, s->box_vertices, 6, s->box_face_start, s->box_face_vertices,
                               s->box_normals, s->box_offsets, 12, s->box_edges,
                               size.x * size.y * size.z, tch_v3_scale(tch_v3_add(lo, hi), 0.5)};
}

/* The part of the half-space z <= 0 (plane frame) that can hold a piece of bounding radius
 * `radius` centred at c: a box with its top face on the plane. */
static const tch_convex_hull* half_space_box(volume_scratch* s, tch_vec3 c, tch_real radius) {
    tch_real pad = radius + 1e-3;
    tch_real bottom = fmin(c.z, 0) - 2 * pad;
    make_box_hull(s, (tch_vec3){c.x - pad, c.y - pad, bottom}, (tch_vec3){c.x + pad, c.y + pad, 0});
    return &s->box;
}

/* ---- friction (sec. 4.6, notes §6) ---- */

/* What the friction of one evaluation needs to know about the contact. */
typedef struct contact_frame {
    tch_vec3 n, o_c;             /* plane, A's frame */
    tch_vec3 u1, u2;             /* plane axes, (u1, u2, n) right-handed */
    tch_contact_area area;       /* moments of C about o_c */
    tch_vec3 v_r, w_r;           /* B relative to A at o_c, A's axes */
    tch_vec3 v_A_o, w_A, v_B_o, w_B; /* each body's velocity at o_c and angular velocity */
    tch_real slip_x, slip_y;     /* tangential relative velocity at o_c, plane axes */
    tch_real spin;               /* relative angular velocity about n */
    const tch_polyhedron* P;
    plane_vertex* vertices;      /* P's, about o_c (see_vertices) */
    const tch_volume_params* k;
    tch_real load_stiffness;     /* the k^N and b^N of the pressure that bounds friction, */
    tch_real load_damping;       /* and the factor on that bound (friction_load, */
    tch_real load_scale;         /* impact_phase) */
    int implicit;                /* the implicit integrator's friction (stopping_loads) */
    tch_real stopping_force;     /* the force, N, and moment about n, N m, that stop the slip */
    tch_real stopping_moment;    /* and the spin within one step (stopping_loads) */
    tch_real stopping_share;     /* the share of them a sliding contact may apply */
} contact_frame;

/* Tangential relative velocity at plane point p (relative to o_c): v_T + ω_n n × p (eq. 27). */
static tch_vec3 slip_velocity(const contact_frame* c, tch_vec3 p) {
    tch_vec3 v = tch_v3_add(c->v_r, tch_v3_cross(c->w_r, p));
    return tch_v3_madd(v, -tch_v3_dot(v, c->n), c->n);
}

/* Normal velocity of the owner of a face at point q (relative to o_c): ḣ of notes §5.3 (b). */
static tch_real owner_normal_velocity(const contact_frame* c, int owner, tch_vec3 q) {
    tch_vec3 v = owner == TCH_FACE_OWNER_A ? tch_v3_add(c->v_A_o, tch_v3_cross(c->w_A, q))
                                          : tch_v3_add(c->v_B_o, tch_v3_cross(c->w_B, q));
    return tch_v3_dot(c->n, v);
}

/* Fills c->vertices with P's vertices seen from the plane (n, o_c) and the plane axes and slip
 * of c: once per evaluation (the triangles of P share each vertex between several faces), in
 * the plane's 2-D axes, where every friction traction and lever arm lies. */
static void see_vertices(contact_frame* c) {
    const tch_polyhedron* P = c->P;
    tch_v3_basis(c->n, &c->u1, &c->u2);
    tch_vec3 slip = slip_velocity(c, tch_v3_zero());
    c->slip_x = tch_v3_dot(slip, c->u1);
    c->slip_y = tch_v3_dot(slip, c->u2);
    c->spin = tch_v3_dot(c->w_r, c->n);
    for (int i = 0; i < P->vertex_count; ++i) {
        const tch_vec3 q = tch_v3_sub(P->vertices_A[i], c->o_c);
        plane_vertex* v = &c->vertices[i];
        const tch_real h = tch_v3_dot(c->n, q);
        v->p = tch_v3_madd(q, -h, c->n);
        v->x = tch_v3_dot(q, c->u1);
        v->y = tch_v3_dot(q, c->u2);
        for (int owner = TCH_FACE_OWNER_A; owner <= TCH_FACE_OWNER_B; ++owner) {
            v->sigma[owner] = tch_volume_pressure(c->load_stiffness, c->load_damping, h,
                                                  owner_normal_velocity(c, owner, q),
                                                  c->area.area);
        }
    }
}

/* The unit traction (tx, ty) of a friction law at a vertex: the traction for the bound mu σ is
 * mu σ (tx, ty) (plane axes), opposite the law's direction there or zero. */
typedef void (*traction_law)(const contact_frame* c, plane_vertex* v);

/* Dynamic friction opposes the local slip v_T + ω_n n × p, n × p = (-y, x) (eqs. 13, 27), none
 * below TCH_VOLUME_SLIP_EPSILON. */
static void dynamic_traction(const contact_frame* c, plane_vertex* v) {
    tch_vec3 slip = {c->slip_x - c->spin * v->y, c->slip_y + c->spin * v->x, 0};
    tch_vec3 t = tch_volume_dynamic_traction(1, 1, slip);
    v->tx = t.x;
    v->ty = t.y;
}

/* A traction circling o_c (the centroid of C): -unit(n × p) = (y, -x) / |p|, the pattern of a
 * pure spin, whose moment is the friction torque the contact can carry about n. */
static void spin_traction(const contact_frame* c, plane_vertex* v) {
    (void)c;
    tch_real length = sqrt(v->x * v->x + v->y * v->y);
    v->tx = length > 0 ? v->y / length : 0;
    v->ty = length > 0 ? -v->x / length : 0;
}

/* ∫_C mu σ(p) (-unit(direction(p))) dS over P's face triangles with the face-flux pressure
 * σ_i (eqs. 13-17), the vertex tractions τ_i = mu σ_i (tx, ty)_i interpolated over each
 * triangle (eq. 14): f = S_t τ̄ (eq. 15) and m = S_t [(3/4) p̄ × τ̄ + (1/12) Σ p_i × τ_i] (eq. 16),
 * as tch_volume_traction_triangle, in the plane axes, where the moment is along n. */
static tch_wrench traction_wrench(const contact_frame* c, tch_real mu, traction_law law) {
    const tch_polyhedron* P = c->P;
    mu *= c->load_scale;
    plane_vertex* V = c->vertices;
    for (int i = 0; i < P->vertex_count; ++i) {
        law(c, &V[i]);
    }
    tch_real fx = 0, fy = 0, m = 0;
    for (int f = 0; f < P->face_count; ++f) {
        const int* v = P->face_vertices + P->face_start[f];
        int count = P->face_start[f + 1] - P->face_start[f];
        int owner = P->face_owner[f];
        for (int k = 1; k + 1 < count; ++k) {
            const plane_vertex* t[3] = {&V[v[0]], &V[v[k]], &V[v[k + 1]]};
            tch_real area = 0.5 * ((t[1]->x - t[0]->x) * (t[2]->y - t[0]->y) -
                                   (t[1]->y - t[0]->y) * (t[2]->x - t[0]->x));
            tch_real px = 0, py = 0, tau_x = 0, tau_y = 0, corners = 0;
            for (int i = 0; i < 3; ++i) {
                tch_real bound = mu * t[i]->sigma[owner];
                tch_real ax = bound * t[i]->tx, ay = bound * t[i]->ty;
                px += t[i]->x;
                py += t[i]->y;
                tau_x += ax;
                tau_y += ay;
                corners += t[i]->x * ay - t[i]->y * ax;
            }
            fx += area * tau_x / 3;
            fy += area * tau_y / 3;
            m += area * (0.75 * (px * tau_y - py * tau_x) / 9 + corners / 12);
        }
    }
    return (tch_wrench){tch_v3_add(tch_v3_scale(c->u1, fx), tch_v3_scale(c->u2, fy)),
                        tch_v3_scale(c->n, m)};
}

/* Static friction: distributed springs at extension (r, θ) plus dampers (eqs. 23-24, 28-29). */
static tch_wrench static_wrench(const contact_frame* c, tch_vec3 r, tch_real theta) {
    tch_vec3 v_T = slip_velocity(c, tch_v3_zero());
    tch_real w_n = tch_v3_dot(c->w_r, c->n);
    return tch_wrench_add(
        tch_volume_static_total(&c->area, c->n, r, theta, c->k->static_stiffness),
        tch_volume_static_total(&c->area, c->n, v_T, w_n, c->k->static_damping));
}

/* (r, θ) such that the static springs alone give the wrench `spring` (notes §6.4 step 6: the
 * 3x3 system solved in the plane axes u1, u2). */
static void match_springs(const contact_frame* c, tch_wrench spring, tch_vec3* r,
                          tch_real* theta) {
    tch_vec3 u1 = c->u1, u2 = c->u2;
    tch_vec3 F = spring.force;
    tch_real T = tch_v3_dot(spring.moment, c->n);
    tch_real F1 = tch_v3_dot(F, u1), F2 = tch_v3_dot(F, u2);
    tch_real c1 = tch_v3_dot(c->area.centroid, u1), c2 = tch_v3_dot(c->area.centroid, u2);
    tch_real k_S = c->k->static_stiffness;
    tch_real spread = c->area.polar / c->area.area - c1 * c1 - c2 * c2;
    *theta = spread > 1e-12 ? (c1 * F2 - c2 * F1 - T) / (k_S * spread) : 0;
    tch_real r1 = -F1 / k_S + *theta * c2, r2 = -F2 / k_S - *theta * c1;
    *r = tch_v3_add(tch_v3_scale(u1, r1), tch_v3_scale(u2, r2));
}

/* (r, θ) such that the static springs and dampers give the dynamic friction wrench (notes §6.4
 * step 6). */
static void match_dynamic_friction(const contact_frame* c, tch_wrench dynamic, tch_vec3* r,
                                   tch_real* theta) {
    tch_vec3 v_T = slip_velocity(c, tch_v3_zero());
    tch_real w_n = tch_v3_dot(c->w_r, c->n);
    tch_wrench damper = tch_volume_static_total(&c->area, c->n, v_T, w_n, c->k->static_damping);
    match_springs(c, tch_wrench_add(dynamic, tch_wrench_scale(damper, -1)), r, theta);
}

/* value / capacity, infinite for a positive value against no capacity. */
static tch_real load_ratio(tch_real value, tch_real capacity) {
    return capacity > 0 ? value / capacity : (value > 0 ? INFINITY : 0);
}

/* The next friction mode for the static friction's share lambda of what the mode's
 * coefficient carries: a STATIC contact slips past 1 (plus a 1e-9 round-off margin), a DYNAMIC
 * one sticks again below 1. */
static int mode_at_load_ratio(int mode, tch_real lambda) {
    if (mode == FRICTION_STATIC && lambda > 1 + 1e-9) {
        return FRICTION_DYNAMIC;
    }
    if (mode == FRICTION_DYNAMIC && lambda < 1) {
        return FRICTION_STATIC;
    }
    return mode;
}

/* The next friction mode (notes §6.4 step 4). The static wrench (force f, moment t about n at
 * the centroid of C) is compared with what friction of coefficient mu can carry, as a whole:
 * the ellipsoidal limit surface (f / F)^2 + (t / T)^2 <= 1 (Goyal, Ruina and Papadopoulos
 * 1991; Howe and Cutkosky 1996), with F = mu times the normal load (pure sliding) and T the
 * torque of mu σ circling the centroid (pure spinning, eqs. 14-16). A STATIC contact slips
 * outside the surface of mu_0 (with a 1e-9 round-off margin); a DYNAMIC one sticks again inside
 * the surface of mu, which its matched springs reach exactly while the slip goes on and leave
 * inwards when it reverses or stops (the dynamic friction itself vanishes with the slip, so it
 * would never be exceeded). The paper compares |f| and |t| separately with the wrench of the
 * maximum static traction along the static traction's directions; its torque is then a
 * difference of small moments whose balance depends on how the pressure is spread, and a
 * rocking contact crossed it at a third of the force bound, slipped and was reset to the
 * dynamic friction: the cube drop gained energy and spin that way (docs/contact-volume.md). */
static int next_mode(const contact_frame* c, int mode, tch_wrench stat, tch_real load,
                     tch_real* torque_capacity) {
    tch_real mu = mode == FRICTION_STATIC ? c->k->static_friction : c->k->friction;
    *torque_capacity = fabs(tch_v3_dot(traction_wrench(c, mu, spin_traction).moment, c->n));
    tch_real force = load_ratio(tch_v3_norm(stat.force), mu * load);
    tch_real torque = load_ratio(fabs(tch_v3_dot(stat.moment, c->n)), *torque_capacity);
    return mode_at_load_ratio(mode, hypot(force, torque));
}

/* The friction force the contact applied over the last step, with the implicit integrator:
 * a sticking contact's springs and dampers at this step's start (stat), which is what the
 * linearized step integrated (the springs' stretch at its end, the dampers' slip there), a
 * sliding contact's dynamic friction (kept when committed); none after the contact's first
 * step, which applies none. */
static tch_vec3 held_friction(const volume_state* state, tch_wrench stat) {
    if (!state->held) {
        return tch_v3_zero();
    }
    return state->mode == FRICTION_STATIC ? stat.force : state->held_A;
}

/* The part of a friction force on B that opposes the slip, N (none of it along the slip). */
static tch_real against_slip(const contact_frame* c, tch_vec3 force) {
    tch_real speed = hypot(c->slip_x, c->slip_y);
    if (!(speed > 0)) {
        return 0;
    }
    tch_real along = c->slip_x * tch_v3_dot(force, c->u1) + c->slip_y * tch_v3_dot(force, c->u2);
    return fmax(0, -along / speed);
}

/* Whether a sliding contact sticks again with the implicit integrator: when friction inside the
 * limit surface of mu (next_mode) can stop the slip and the spin within the step while it goes
 * on carrying what it held (held_friction). A stiff sticking contact stops them within the step
 * (the implicit step integrates its springs), with the force that stops them plus the load,
 * which this compares with the bound. The paper's test (the springs matched to the dynamic
 * friction, stretched by the step's slip, inside the surface) alone let a box on a slope below
 * the friction angle slide for ever: stretched by h v, the springs of k^S = k_f S_c crossed the
 * bound at a slip of (mu N - f) / (k^S h), 6e-5 m/s for a 1 kg box at 5 ms, which the capped
 * dynamic friction never reached (docs/contact-volume.md, "Defaults (issue 12)"). */
static int stops_within_step(const contact_frame* c, tch_real held, tch_real load,
                             tch_real torque_capacity) {
    if (!c->implicit) {
        return 0;
    }
    tch_real force = load_ratio(c->stopping_force + held, c->k->friction * load);
    tch_real torque = load_ratio(c->stopping_moment, torque_capacity);
    return hypot(force, torque) <= 1;
}

/* Caps a sliding contact's dynamic friction with the implicit integrator: each part at a share
 * of what stops the slip, and the spin, within one step (stopping_loads), each on its own (a
 * sliding contact's round-off spin must not cap its force); then the force may regain, along
 * the friction it held (held_friction), up to that held force. The share keeps several contacts
 * of one body from stopping it several times over, and a slow slip's friction from turning
 * with it (dynamic friction follows the slip's direction: at full strength and a slip under
 * mu N h a it overshoots sideways, a the mobility); the held part lets friction carry a steady
 * load (a box on a slope) at a slow slip, where the share alone allowed a force in proportion
 * to the slip, which balanced the load at a steady slip of load h a / share. Along a fixed
 * direction, it does not turn with the slip. */
static void cap_dynamic_friction(const contact_frame* c, tch_vec3 held, tch_wrench* applied) {
    if (!c->implicit) {
        return;
    }
    const tch_vec3 dynamic = applied->force;
    tch_real force = tch_v3_norm(dynamic), force_cap = c->stopping_share * c->stopping_force;
    tch_real moment = fabs(tch_v3_dot(applied->moment, c->n));
    tch_real moment_cap = c->stopping_share * c->stopping_moment;
    if (force > force_cap) {
        applied->force = tch_v3_scale(dynamic, force_cap / force);
    }
    if (moment > moment_cap) {
        applied->moment = tch_v3_scale(applied->moment, moment_cap / moment);
    }
    tch_real held_norm = tch_v3_norm(held);
    if (!(held_norm > 0)) {
        return;
    }
    tch_vec3 along = tch_v3_scale(held, 1 / held_norm);
    tch_real missing = tch_v3_dot(tch_v3_sub(dynamic, applied->force), along);
    applied->force = tch_v3_madd(applied->force, fmin(fmax(missing, 0), held_norm), along);
    tch_real capped = tch_v3_norm(applied->force);
    if (capped > force) {
        applied->force = tch_v3_scale(applied->force, force / capped);
    }
}

/* What a sliding contact keeps as the friction it held (held_friction) for the next step: its
 * friction force along what it held, so that the direction stays put while it slides (the
 * force's part across it follows the slip), or the whole force when it held none. */
static tch_vec3 kept_friction(tch_vec3 held, tch_vec3 applied) {
    tch_real held_norm2 = tch_v3_norm2(held);
    if (!(held_norm2 > 0)) {
        return applied;
    }
    return tch_v3_scale(held, tch_v3_dot(applied, held) / held_norm2);
}

/* With the implicit integrator, the friction force of a contact that slips at less than
 * TCH_VOLUME_SLIP_EPSILON (dynamic friction has no direction there, eq. 13, and is none): the
 * force it held, bounded by mu times the load. A stiff sticking contact breaks loose at such a
 * slip, its springs having stopped it over the last step; with no friction for that step a box
 * just past the friction angle (27 degrees, mu 0.5) was thrown into a free step, stuck again,
 * and crept at 3.6 mm/s at 5 ms instead of sliding at g (sin - mu cos). */
static void breaking_friction(const contact_frame* c, tch_vec3 held, tch_real load,
                              tch_wrench* applied) {
    tch_real held_norm = tch_v3_norm(held);
    if (!c->implicit || hypot(c->slip_x, c->slip_y) >= TCH_VOLUME_SLIP_EPSILON ||
        !(held_norm > 0)) {
        return;
    }
    applied->force = tch_v3_scale(held, fmin(1, c->k->friction * load / held_norm));
}

/* The friction wrench of this evaluation and, when committing, the next (mode, r, θ).
 * `load` is the normal force's magnitude; *sticking says whether the static springs act.
 * In an impact (`impact`) the contact slides: dynamic friction bounded by the impact's load
 * and by the force that stops the slip (stopping_loads), Coulomb's law of impacts. The static
 * springs, whose stiffness grows with the contact area, cannot carry it: a contact found as a
 * sliver in its first step (depth below v h) stayed STATIC with a spring of k_f S_c ~ 1 N/m
 * while the whole normal impulse passed in that step, and the impact had almost no friction
 * (a ball with backspin bounced with 2% of its Coulomb friction impulse at dt 1e-4 s, with
 * anything from 2% to all of it at 2 ms depending on where in a step it landed). */
static tch_wrench friction(const contact_frame* c, volume_state* state, int fresh, int impact,
                           int commit, tch_real h, tch_real load, int* sticking) {
    tch_wrench none = {tch_v3_zero(), tch_v3_zero()};
    *sticking = 0;
    if (fresh) {
        if (commit) {
            state->r_A = tch_v3_zero();
            state->theta = 0;
            state->mode = FRICTION_STATIC;
            state->o_A = c->o_c;
            state->held = 0;
        }
        return none; /* a new contact carries no friction in its first step (notes §6.4) */
    }
    /* The plane point o_c may move across a flat patch from step to step; the spring field
     * l(p) = r + θ n × p is the same field about the new point when r gains θ n × (o' - o). */
    tch_vec3 moved = tch_v3_sub(c->o_c, state->o_A);
    const tch_vec3 r_old = tch_v3_madd(state->r_A, state->theta, tch_v3_cross(c->n, moved));
    /* Accumulate the displacement and keep r in the current plane (notes §6.4 step 2). */
    tch_vec3 r = tch_v3_madd(r_old, h, slip_velocity(c, tch_v3_zero()));
    r = tch_v3_madd(r, -tch_v3_dot(r, c->n), c->n);
    tch_real theta = state->theta + h * tch_v3_dot(c->w_r, c->n);
    tch_wrench stat = static_wrench(c, r, theta);
    tch_real torque_capacity;
    int mode = next_mode(c, state->mode, stat, load, &torque_capacity);
    mode = impact ? FRICTION_DYNAMIC : mode;
    const tch_vec3 held = held_friction(state, stat);
    if (!impact && mode == FRICTION_DYNAMIC && state->mode == FRICTION_DYNAMIC &&
        stops_within_step(c, against_slip(c, held), load, torque_capacity)) {
        /* sticks again, its springs holding the last step's friction force and their twist */
        mode = FRICTION_STATIC;
        tch_wrench spring = {tch_v3_madd(held, -tch_v3_dot(held, c->n), c->n),
                             tch_volume_static_total(&c->area, c->n, tch_v3_zero(), state->theta,
                                                     c->k->static_stiffness)
                                 .moment};
        match_springs(c, spring, &r, &theta);
        stat = static_wrench(c, r, theta);
    }
    tch_wrench applied = stat;
    *sticking = mode == FRICTION_STATIC;
    if (mode == FRICTION_DYNAMIC) {
        applied = traction_wrench(c, c->k->friction, dynamic_traction);
        cap_dynamic_friction(c, held, &applied);
        breaking_friction(c, held, load, &applied);
        match_dynamic_friction(c, applied, &r, &theta);
    }
    if (commit) {
        state->held = 1;
        state->held_A = kept_friction(held, applied.force);
        state->mode = mode;
        state->r_A = r;
        state->theta = theta;
        state->o_A = c->o_c;
    }
    return applied;
}

/* ---- the pair ---- */

/* Velocity (world) of geom g's body at world point p and its angular velocity. */
static void body_motion(const tch_model* m, const tch_data* d, int geom, tch_vec3 p_W,
                        tch_vec3* v_W, tch_vec3* w_W) {
    int root = m->body_root[m->geom_body[geom]];
    *v_W = tch_contact_point_velocity(m, d, geom, p_W);
    *w_W = root ? d->body_w_W[root] : tch_v3_zero();
}

/* The normal pressure per unit depth of the default material when the springs are integrated
 * implicitly, N/m^3. The distributed spring of eqs. 5-8 is an elastic foundation, a bed of
 * springs with the pressure k_f d at depth d (Elandt et al. 2019, "Relation to elastic
 * foundations"); a layer of thickness l and modulus E has k_f of about E / l, and 1e8 is
 * E = 1 MPa (rubber) over 1 cm. The force is then k_f V (V the overlap volume) and
 * k^N = k_f S_c: the stiffness grows with the contact area, so a wide face resists tilting with
 * k_f ∫ x^2 dS whatever the masses or the step. */
static const tch_real DEFAULT_FOUNDATION_MODULUS = 1e8;

/* The relaxation time of the default material (Kelvin-Voigt, pressure k_f (d + τ ḋ)) when the
 * springs are integrated implicitly, s. */
static const tch_real DEFAULT_RELAXATION_TIME = 0.02;

/* The pair's coefficients in this evaluation, for a contact area S_c (docs/contact-volume.md,
 * "Defaults"). What the scene sets is kept. Unset stiffness: with the implicit integrator the
 * default material, k^N = k_f S_c; with the explicit ones the derived value of contact/params.h
 * (a period of 25 steps for the pair's mass), which they can integrate. Unset damping: with the
 * implicit integrator b^N = τ k^N (DEFAULT_RELAXATION_TIME), with the explicit ones critical
 * damping 2 sqrt(k^N m) for the pair's mass m. Unset static-friction spring: k^N; unset
 * static-friction damper: with the implicit integrator the critical damping of that spring,
 * 2 sqrt(k^S m) (b^N would hold a slip of 1e-4 m/s above the Coulomb bound of a 1 kg block
 * and the contact would never stick), else b^N. */
static tch_volume_params contact_coefficients(const tch_model* m, const tch_pair_result* pair,
                                              tch_real area) {
    const tch_pair_params* p = &pair->params;
    tch_volume_params k = {p->stiffness, p->damping, p->tangential_stiffness,
                           p->tangential_damping, p->friction, p->static_friction};
    if (p->stiffness_derived && tch_integrator_takes_physical_defaults(m->integrator)) {
        k.stiffness = DEFAULT_FOUNDATION_MODULUS * area;
    }
    if (p->damping_derived && tch_integrator_takes_physical_defaults(m->integrator)) {
        k.damping = DEFAULT_RELAXATION_TIME * k.stiffness;
    } else if (p->damping_derived) {
        k.damping = 2 * sqrt(k.stiffness * tch_contact_pair_mass(m, pair->geom_a, pair->geom_b));
    }
    if (p->tangential_stiffness_derived) {
        k.static_stiffness = k.stiffness;
    }
    tch_real mass = tch_contact_pair_mass(m, pair->geom_a, pair->geom_b);
    if (p->tangential_damping_derived && tch_integrator_takes_physical_defaults(m->integrator) &&
        isfinite(mass)) {
        k.static_damping = 2 * sqrt(k.static_stiffness * mass);
    } else if (p->tangential_damping_derived) { /* also two immobile bodies (mocap, static) */
        k.static_damping = k.damping;
    }
    return k;
}

/* The load that bounds friction (its magnitude) and how the pressure σ of the friction laws is
 * taken (c->load_damping, c->load_scale). With the explicit integrators, the paper's: the whole
 * normal force, σ = (k^N h + b^N ḣ) / S_c. With the implicit one, the elastic pressure k^N h /
 * S_c scaled to the normal force clamped to [0, elastic force]: the damper's share at the
 * step's start is mostly undone by the implicit step (D), which explicit friction cannot see,
 * so it may lower the load (a contact relaxing an initial overlap, whose damper pulls back
 * almost all of its elastic push) but not raise it (a landing box's damper pushes orders of
 * magnitude harder at the step's start than over the step, and friction bounded by that push
 * threw a settling pile apart) -- except up to the weight of the pair's mass while the contact
 * settles, approaching no faster than gravity moves it in a step (|g| h), and its spring does
 * not carry that weight yet: a contact born touching carries the weight on its damper while
 * its spring takes over (about one relaxation time), and a box set down at zero gap and pushed
 * along the floor then slides the Coulomb distance of its weight, not of the growing elastic
 * force (issue 12). The load is at most max(elastic force, weight), not the elastic force plus
 * the weight: with the weight added to every settling contact's elastic force, a pile's loaded
 * contacts had their friction bound raised by the damper's push and pile_100 took 8 s instead
 * of 4 to come to rest (with the allowance for landing contacts too, 21 of 100 boxes still
 * moved at 5 s). */
static tch_real friction_load(const tch_model* m, const tch_pair_result* pair,
                              const tch_volume_overlap* overlap, contact_frame* c) {
    tch_real elastic = tch_v3_dot(overlap->spring.force, c->n);
    tch_real total = elastic + tch_v3_dot(overlap->damper.force, c->n);
    c->load_stiffness = c->k->stiffness;
    if (m->integrator != TCH_INTEGRATOR_IMPLICIT) {
        c->load_damping = c->k->damping;
        c->load_scale = 1;
        return fabs(total);
    }
    tch_real g = tch_v3_norm(m->gravity);
    tch_real weight = tch_contact_pair_mass(m, pair->geom_a, pair->geom_b) * g;
    int settling = -tch_v3_dot(c->v_r, c->n) <= g * m->timestep && isfinite(weight);
    tch_real load = fmax(0, fmin(total, settling ? fmax(elastic, weight) : elastic));
    c->load_damping = 0;
    c->load_scale = elastic > 0 ? load / elastic : 0;
    return load;
}

/* Adds geom g's body's mobility at p_W: 1/m + (r x t).I^-1 (r x t) for a unit force along t_W
 * and n.I^-1 n for a unit moment about n_W (nothing for a static body). */
static void add_mobility(const tch_model* m, const tch_data* d, int geom, tch_vec3 p_W,
                         tch_vec3 t_W, tch_vec3 n_W, tch_real* along, tch_real* about) {
    int root = m->body_root[m->geom_body[geom]];
    if (root == 0) {
        return;
    }
    /* a free body's is the kinematics' (the same product), but in the planar mode, where that
     * is the constrained system's */
    tch_mat3 I_inv_W = m->body_free[root] && !tch_is_planar(m)
                           ? d->body_I_inv_W[root]
                           : tch_m3_rotate_tensor(d->body_R_WB[root], m->body_total_I_inv[root]);
    tch_vec3 u = tch_v3_cross(tch_v3_sub(p_W, d->body_p_WCm[root]), t_W);
    *along += 1 / m->body_total_mass[root] + tch_v3_dot(u, tch_m3_mul_v3(I_inv_W, u));
    *about += tch_v3_dot(n_W, tch_m3_mul_v3(I_inv_W, n_W));
}

/* The force and the moment about n that stop the slip at o_c, and the spin, within one step
 * (the effective mass and inertia of the two bodies there, times the slip speed or spin over h)
 * with the implicit integrator, which caps a sliding contact's friction at a share
 * (STOPPING_SHARE) of them (cap_dynamic_friction); none with the explicit integrators, which
 * keep the paper's friction. Dynamic friction stays explicit,
 * bounded by the normal load at the step's start; a stiff contact that appeared during the
 * last step pushes there far harder than over the step, which the implicit step corrects and
 * friction cannot see: a box landing on an edge was thrown sideways at 60 m/s without the
 * cap, and capped with the pair's mass alone (no rotation) the boxes of a pile kept spinning. */
static void stopping_loads(const tch_model* m, const tch_data* d, const tch_pair_result* pair,
                           tch_transform X_WA, contact_frame* c) {
    c->stopping_force = c->stopping_moment = INFINITY;
    c->stopping_share = STOPPING_SHARE;
    c->implicit = m->integrator == TCH_INTEGRATOR_IMPLICIT;
    if (!c->implicit) {
        return;
    }
    tch_real speed = hypot(c->slip_x, c->slip_y);
    tch_vec3 t_A = speed > 0 ? tch_v3_scale(tch_v3_add(tch_v3_scale(c->u1, c->slip_x),
                                                       tch_v3_scale(c->u2, c->slip_y)),
                                            1 / speed)
                             : c->u1;
    tch_vec3 o_W = tch_x_apply(X_WA, c->o_c), t_W = tch_q_rotate(X_WA.q, t_A),
             n_W = tch_q_rotate(X_WA.q, c->n);
    tch_real along = 0, about = 0;
    add_mobility(m, d, pair->geom_a, o_W, t_W, n_W, &along, &about);
    add_mobility(m, d, pair->geom_b, o_W, t_W, n_W, &along, &about);
    c->stopping_force = along > 0 ? speed / (m->timestep * along) : INFINITY;
    c->stopping_moment = about > 0 ? fabs(c->spin) / (m->timestep * about) : INFINITY;
}

/* The contact frame's velocities, in A's axes, of both bodies at o_c. */
static void fill_motion(const tch_model* m, const tch_data* d, int a, int b, tch_vec3 o_W,
                        contact_frame* c) {
    tch_quat q_WA = d->geom_X_WG[a].q;
    tch_vec3 v, w;
    body_motion(m, d, a, o_W, &v, &w);
    c->v_A_o = tch_q_inv_rotate(q_WA, v);
    c->w_A = tch_q_inv_rotate(q_WA, w);
    body_motion(m, d, b, o_W, &v, &w);
    c->v_B_o = tch_q_inv_rotate(q_WA, v);
    c->w_B = tch_q_inv_rotate(q_WA, w);
    c->v_r = tch_v3_sub(c->v_B_o, c->v_A_o);
    c->w_r = tch_v3_sub(c->w_B, c->w_A);
}

/* The plane's 2-D cross product (k - i) x (j - i) of seen vertices: positive when j lies to
 * the left of the line from i to k. */
static tch_real turn(const plane_vertex* V, int i, int k, int j) {
    return (V[k].x - V[i].x) * (V[j].y - V[i].y) - (V[k].y - V[i].y) * (V[j].x - V[i].x);
}

/* Whether seen vertex a comes before b from left to right: by x, then by y where the x differ
 * by no more than `tie` (round-off). Without the tie, the corners along an edge parallel to y
 * came in the order of their round-off in x, the chain could end on a point inside that edge,
 * and the upper chain dropped the edge's far corner as collinear (an edge contact's outline
 * had half its area). */
static int left_of(const plane_vertex* V, int a, int b, tch_real tie) {
    if (fabs(V[a].x - V[b].x) <= tie) {
        return V[a].y < V[b].y;
    }
    return V[a].x < V[b].x;
}

/* The convex hull of the n seen vertices, counter-clockwise from the leftmost, as indices in
 * chain (room for 2n); returns its size. Andrew's monotone chain: the points sorted from left
 * to right (insertion sort into order, x equal to round-off counting as equal), the lower
 * chain left to right, then the upper chain back (from the rightmost point, which ends the
 * lower one), each dropping the points where the chain does not turn left by more than
 * round-off (1e-12 of the squared extent): the collinear and the repeated points, such as P's top and bottom corners of a flat contact,
 * which project onto each other. */
static int outline_hull(const plane_vertex* V, int n, int* order, int* chain) {
    tch_real extent = 0;
    for (int i = 0; i < n; ++i) {
        const tch_real x = fabs(V[i].x), y = fabs(V[i].y); /* finite: fmax without its call */
        extent = x > extent ? x : extent;
        extent = y > extent ? y : extent;
    }
    for (int i = 0; i < n; ++i) {
        int j = i;
        for (; j > 0 && left_of(V, i, order[j - 1], 1e-12 * extent); --j) {
            order[j] = order[j - 1];
        }
        order[j] = i;
    }
    const tch_real straight = 1e-12 * extent * extent;
    int k = 0;
    for (int a = 0; a < n; ++a) {
        while (k >= 2 && turn(V, chain[k - 2], chain[k - 1], order[a]) <= straight) {
            --k;
        }
        chain[k++] = order[a];
    }
    for (int a = n - 2, lower = k + 1; a >= 0; --a) {
        while (k >= lower && turn(V, chain[k - 2], chain[k - 1], order[a]) <= straight) {
            --k;
        }
        chain[k++] = order[a];
    }
    return n == 1 ? 1 : k - 1; /* the upper chain ends on the first point again */
}

/* The outline of C (the convex hull of P's seen vertices in the plane's axes) appended to data
 * as one polygon, world frame. */
static int append_outline(tch_data* d, tch_transform X_WA, const contact_frame* c,
                          volume_scratch* s) {
    int n = c->P->vertex_count;
    if (tch_contact_reserve(d, 1, 1, n) != 0) {
        return -1;
    }
    const plane_vertex* V = c->vertices;
    int start = d->polygon_vertex_count;
    int count = outline_hull(V, n, s->order, s->chain);
    for (int k = 0; k < count; ++k) {
        d->polygon_vertices_W[start + k] = tch_x_apply(X_WA, tch_v3_add(c->o_c, V[s->chain[k]].p));
        d->polygon_vertex_pressure[start + k] = 0;
    }
    d->polygons[d->polygon_count++] =
        (tch_contact_polygon){start, count, tch_q_rotate(X_WA.q, c->n)};
    d->polygon_vertex_count += count;
    return 0;
}

/* The model's per-geom data: each geom's convex piece (planes zeroed) and its bounding radius
 * about its centroid, so that a pair's size (tch_polyhedron_pair_size) costs no pass over the
 * pieces' vertices. */
typedef struct volume_pieces {
    tch_convex_hull* hulls; /* [geom_count] */
    tch_real* radius;       /* [geom_count] */
} volume_pieces;

static const volume_pieces* pieces_of(const tch_model* m) {
    return tch_contact_model_geoms(m, TCH_CONTACT_VOLUME);
}

/* The piece of geom g: its compiled hull, or a plane's half-space box around the other piece. */
static const tch_convex_hull* piece(const tch_model* m, int g, int other, tch_transform X_GO,
                                    volume_scratch* s) {
    if (m->geom_type[g] == TCH_GEOM_PLANE) {
        return half_space_box(s, X_GO.p, m->geom_rbound[other]);
    }
    return &pieces_of(m)->hulls[g];
}

/* The bounding radius of geom g's piece (`hull`, from `piece`). */
static tch_real piece_radius(const tch_model* m, int g, const tch_convex_hull* hull) {
    return m->geom_type[g] == TCH_GEOM_PLANE ? tch_polyhedron_hull_radius(hull)
                                             : pieces_of(m)->radius[g];
}

/* Moves the contact point to the centroid of the contact area (on the plane): the separation
 * search may leave o_c anywhere on a flat patch, the centroid moves continuously, and the
 * friction state and mode transitions compare moments about it. Shifts the overlap's moments
 * and area moments accordingly (parallel-axis for the polar and second moments). */
static void recentre(contact_frame* c, tch_volume_overlap* overlap) {
    tch_vec3 shift = overlap->area.centroid;
    c->o_c = tch_v3_add(c->o_c, shift);
    c->v_A_o = tch_v3_add(c->v_A_o, tch_v3_cross(c->w_A, shift));
    c->v_B_o = tch_v3_add(c->v_B_o, tch_v3_cross(c->w_B, shift));
    c->v_r = tch_v3_sub(c->v_B_o, c->v_A_o);
    tch_wrench* parts[2] = {&overlap->spring, &overlap->damper};
    for (int i = 0; i < 2; ++i) {
        parts[i]->moment = tch_v3_sub(parts[i]->moment, tch_v3_cross(shift, parts[i]->force));
    }
    overlap->area.polar -= overlap->area.area * tch_v3_norm2(shift);
    tch_real shift_v[3] = {shift.x, shift.y, shift.z};
    for (int r = 0; r < 3; ++r) {
        for (int k = 0; k < 3; ++k) {
            overlap->area.second.m[r][k] -= overlap->area.area * shift_v[r] * shift_v[k];
        }
    }
    overlap->area.centroid = tch_v3_zero();
    c->area = overlap->area;
}

/* The contact plane by the separation search, warm-started from the pair's last normal and
 * GJK simplex, or from the notes' initial normal on a new contact (the simplex is then
 * empty); `warm` starts as the pair's and receives the search's. Pieces that touch (depth 0
 * to the clipping's tolerance, P flat: tch_polyhedron_clip_touching) make a contact of depth
 * 0: no spring force, but its stiffness enters the implicit integrator's system from the
 * start, so that a stack placed at zero gap is coupled whole in its first step rather than
 * one contact further per step (each block falling freely until the one below has depth). */
static int find_plane(const tch_convex_hull* hull_a, const tch_convex_hull* hull_b,
                      tch_transform X_AB, tch_real size, const tch_polyhedron* overlap,
                      const volume_state* state, int fresh, tch_contact_plane_warm* warm,
                      tch_contact_plane* plane) {
    if (fresh) {
        warm->count = 0;
    }
    tch_vec3 n_prev = fresh ? tch_contact_initial_normal(overlap, hull_a->centroid_G,
                                                         tch_x_apply(X_AB, hull_b->centroid_G))
                            : tch_v3_normalize(state->n_prev_A);
    if (tch_contact_plane_search(hull_a, hull_b, X_AB, n_prev, fresh ? NAN : state->d_prev,
                                 size, warm, plane) != 0 ||
        !(plane->depth > -TCH_POLYHEDRON_TOLERANCE * size)) {
        return 0;
    }
    plane->depth = fmax(plane->depth, 0); /* touching: depth 0 to round-off */
    return 1;
}

/* In an impact (contact/restitution.h), the normal force of the pair's wrench *total becomes
 * the impact's damper along n at the centroid of C (its moment stays the distributed spring's
 * and damper's, which keep a landing face level and let a ball roll) and friction's *load the
 * impact's mean force. The friction tractions take the shape of the damper's pressure (the
 * approach speed over C, uniform for a body that does not turn), scaled to it: the impact is a
 * damper. With the elastic pressure's shape (the depth), a 10 cm cube landing flat at 2.3 m/s
 * while sliding and spinning at 4 rad/s about the vertical left with 1.7 rad/s, and tilted by
 * 0.2 degrees with 0.1 rad/s: found 0.45 mm deep, its tilt (0.35 mm across the face) put most
 * of the pressure, and of the impact's friction, on one edge, whose moment about the vertical
 * depended on the tilt and on the step's phase; returns the damper's coefficient while it
 * pushes (0 once the contact separates faster than its target), NaN outside an impact. */
static tch_real impact_phase(const tch_model* m, const tch_data* d, const tch_pair_context* ctx,
                             tch_transform X_WA, const tch_volume_overlap* overlap,
                             contact_frame* c, tch_wrench* total, tch_real* load) {
    volume_state* state = (volume_state*)ctx->state->bytes;
    const tch_pair_result* pair = ctx->pair;
    tch_impact impact;
    tch_real v_n = tch_v3_dot(c->v_r, c->n);
    if (!tch_volume_impact_of(m, d, ctx, &state->impact, v_n, &impact)) {
        return NAN;
    }
    tch_real target = tch_impact_target(&impact, &pair->params);
    tch_real damping =
        tch_impact_damping(m, tch_contact_pair_mass(m, pair->geom_a, pair->geom_b));
    tch_real mean = tch_impact_load(m, d, pair, tch_x_apply(X_WA, c->o_c),
                                    tch_q_rotate(X_WA.q, c->n), v_n, target);
    total->force = tch_v3_scale(c->n, tch_impact_force(damping, target, v_n, mean));
    tch_real elastic = tch_v3_dot(overlap->spring.force, c->n);
    tch_real damper = tch_v3_dot(overlap->damper.force, c->n);
    *load = fmin(tch_v3_dot(total->force, c->n), mean);
    if (damper > 0) { /* the damper's shape, b^N times the approach speed over C */
        c->load_stiffness = 0;
        c->load_damping = c->k->damping;
        c->load_scale = *load / damper;
    } else { /* pulled apart: the elastic shape */
        c->load_damping = 0;
        c->load_scale = elastic > 0 ? *load / elastic : 0;
    }
    return tch_v3_dot(total->force, c->n) > 0 ? damping : 0;
}

/* Within this many times the clipping's tolerance (times the pair's size) of each other,
 * pieces are clipped; farther apart along an axis that separates them, they are not. */
#define APART_TOLERANCES 1e3

/* The lowest height of a piece's vertices above a plane, the piece at pose X_PG in the
 * plane's frame. */
static tch_real lowest_height(const tch_convex_hull* hull, tch_transform X_PG) {
    tch_vec3 up_G = tch_q_inv_rotate(X_PG.q, tch_v3(0, 0, 1)); /* the plane's z, G's frame */
    tch_real lowest = INFINITY;
    for (int v = 0; v < hull->vertex_count; ++v) {
        lowest = fmin(lowest, tch_v3_dot(up_G, hull->vertices_G[v]));
    }
    return X_PG.p.z + lowest;
}

/* Whether the pieces of geoms a and b (b at X_AB in a's frame) are apart by more than
 * `margin` along an axis that separates them: a plane's normal for a plane and any piece, the
 * 15 axes of two boxes (tch_boxes_apart). The clipping keeps only what lies within its
 * tolerance of both pieces, so such pieces give the empty P and skipping the clipping changes
 * no result: the broad phase's boxes overlap for about one pair of a pile in ten whose pieces
 * do not (the boxes' axes are the world's, and grown by a step's reach). Other pairs: 0. */
static int pieces_apart(const tch_model* m, int a, int b, tch_transform X_AB, tch_real margin) {
    const tch_convex_hull* hulls = pieces_of(m)->hulls;
    if (m->geom_type[a] == TCH_GEOM_PLANE) {
        return lowest_height(&hulls[b], X_AB) > margin;
    }
    if (m->geom_type[b] == TCH_GEOM_PLANE) {
        return lowest_height(&hulls[a], tch_x_inverse(X_AB)) > margin;
    }
    if (m->geom_type[a] == TCH_GEOM_BOX && m->geom_type[b] == TCH_GEOM_BOX) {
        const tch_real* ha = m->geom_size[a];
        const tch_real* hb = m->geom_size[b];
        return tch_boxes_apart(tch_v3(ha[0], ha[1], ha[2]), tch_v3(hb[0], hb[1], hb[2]), X_AB,
                               margin);
    }
    return 0;
}

static int volume_geometry(const tch_model* m, tch_data* d, tch_pair_context* ctx) {
    tch_pair_result* pair = ctx->pair;
    int a = pair->geom_a, b = pair->geom_b;
    volume_scratch* s = ctx->scratch;
    volume_state* state = (volume_state*)ctx->state->bytes;
    tch_transform X_WA = d->geom_X_WG[a];
    tch_transform X_AB = tch_x_relative(X_WA, d->geom_X_WG[b]);
    if (!tch_v3_isfinite(X_AB.p) || !isfinite(tch_q_norm(X_AB.q))) {
        return 0;
    }
    X_AB.q = tch_q_normalize(X_AB.q);
    const tch_convex_hull* hull_a = piece(m, a, b, X_AB, s);
    const tch_convex_hull* hull_b = piece(m, b, a, tch_x_inverse(X_AB), s);
    tch_real size = fmax(piece_radius(m, a, hull_a), piece_radius(m, b, hull_b));
    /* a pair that touched at the last step mostly still does: the test is for the others */
    if ((ctx->state->fresh &&
         pieces_apart(m, a, b, X_AB, APART_TOLERANCES * TCH_POLYHEDRON_TOLERANCE * size)) ||
        tch_polyhedron_clip_touching(hull_a, hull_b, X_AB, size, &s->overlap, NULL) != TCH_OK ||
        s->overlap.face_count == 0) {
        return 0;
    }
    tch_contact_plane plane;
    int fresh = ctx->state->fresh;
    tch_contact_plane_warm warm = state->warm;
    if (!find_plane(hull_a, hull_b, X_AB, size, &s->overlap, state, fresh, &warm, &plane)) {
        return 0;
    }
    /* the spring and the damper are linear in k^N and b^N, whose defaults need the area:
     * integrated for unit coefficients, then scaled */
    tch_volume_params unit = {1, 1, 1, 1, pair->params.friction, pair->params.static_friction};
    contact_frame c = {.n = plane.n_A, .o_c = plane.o_A, .P = &s->overlap};
    tch_vec3 o_W = tch_x_apply(X_WA, plane.o_A);
    fill_motion(m, d, a, b, o_W, &c);
    tch_volume_overlap overlap;
    if (tch_volume_integrate(&s->overlap, c.n, c.o_c, &unit, c.v_r, c.w_r, &overlap, NULL) !=
            TCH_OK ||
        !(overlap.area.area > 0)) {
        return 0;
    }
    state->k = contact_coefficients(m, pair, overlap.area.area);
    c.k = &state->k;
    overlap.spring = tch_wrench_scale(overlap.spring, state->k.stiffness);
    overlap.damper = tch_wrench_scale(overlap.damper, state->k.damping);
    recentre(&c, &overlap);
    state->area = overlap.area.area;
    state->second_W = tch_m3_rotate_tensor(tch_q_to_mat3(X_WA.q), overlap.area.second);
    if (reserve_vertices(s, s->overlap.vertex_count) != 0) {
        return -1;
    }
    c.vertices = s->vertices;
    tch_real load = friction_load(m, pair, &overlap, &c);
    tch_wrench total = tch_wrench_add(overlap.spring, overlap.damper);
    tch_real impact_damping = impact_phase(m, d, ctx, X_WA, &overlap, &c, &total, &load);
    see_vertices(&c);
    stopping_loads(m, d, pair, X_WA, &c);
    if (!isnan(impact_damping)) { /* an impact may stop the whole slip: it may last a step */
        c.stopping_share = 1;
    }
    /* an impact's friction acts from its first step: the whole impact may last one */
    tch_wrench friction_wrench = friction(&c, state, fresh && isnan(impact_damping),
                                          !isnan(impact_damping), ctx->commit, m->timestep, load,
                                          &state->sticking);
    state->impact_damping = impact_damping;
    total = tch_wrench_add(total, friction_wrench);
    state->friction_W = tch_q_rotate(X_WA.q, friction_wrench.force);
    state->load = load;
    if (ctx->commit) {
        state->n_prev_A = plane.n_A;
        state->d_prev = plane.depth;
        state->warm = warm;
    }
    state->f_W = tch_q_rotate(X_WA.q, total.force);
    state->m_W = tch_q_rotate(X_WA.q, total.moment);
    if (append_outline(d, X_WA, &c, s) != 0) {
        return -1;
    }
    /* the reported point is where the wrench acts: the centroid of C */
    d->contacts[d->contact_count++] = (tch_contact){a, b, pair->model,
                                                     tch_x_apply(X_WA, c.o_c),
                                                     tch_q_rotate(X_WA.q, plane.n_A),
                                                     plane.depth, tch_v3_zero()};
    pair->contact_count = 1;
    pair->polygon_count = 1;
    pair->area = overlap.area.area;
    pair->volume = overlap.volume;
    return 1;
}

static void volume_forces(const tch_model* m, tch_data* d, tch_pair_context* ctx) {
    const volume_state* state = (const volume_state*)ctx->state->bytes;
    tch_pair_result* pair = ctx->pair;
    d->contacts[pair->contact_start].f_W = state->f_W;
    tch_contact_apply_force(m, d, pair, d->contacts[pair->contact_start].p_W, state->f_W);
    tch_contact_apply_moment(m, d, pair, state->m_W);
}

static void* volume_scratch_create(void) {
    volume_scratch* s = calloc(1, sizeof *s);
    if (s) {
        tch_polyhedron_init(&s->overlap);
    }
    return s;
}

static void volume_scratch_destroy(void* scratch) {
    volume_scratch* s = scratch;
    if (s) {
        tch_polyhedron_free(&s->overlap);
        free(s->vertices);
        free(s->order);
        free(s->chain);
        free(s);
    }
}

static tch_status volume_build_geoms(const tch_model* m, const tch_geom_sources* sources,
                                     void** geoms, tch_error* err);
static void volume_free_geoms(const tch_model* m, void* geoms);
int tch_volume_pair_coefficients(const tch_pair_state* state, tch_volume_params* k,
                                 tch_real* area, tch_mat3* second_W) {
    const volume_state* v = (const volume_state*)state->bytes;
    *k = v->k;
    *area = v->area;
    *second_W = v->second_W;
    return v->sticking;
}

tch_real tch_volume_pair_impact_damping(const tch_pair_state* state) {
    return ((const volume_state*)state->bytes)->impact_damping;
}

int tch_volume_lump_friction(const tch_data* d, const tch_pair_result* pair,
                             const tch_pair_state* state, tch_volume_friction_lump* out) {
    if (pair->model != TCH_CONTACT_VOLUME || pair->contact_count < 1 || !state) {
        return 0;
    }
    const volume_state* v = (const volume_state*)state->bytes;
    tch_quat q_WA = d->geom_X_WG[pair->geom_a].q;
    *out = (tch_volume_friction_lump){.centre = d->contacts[pair->contact_start].p_W,
                                      .normal = d->contacts[pair->contact_start].n_W,
                                      .spring = tch_q_rotate(q_WA, v->r_A),
                                      .force = v->friction_W,
                                      .load = v->load,
                                      .sliding = v->mode == FRICTION_DYNAMIC,
                                      .linearized = v->sticking,
                                      .k = v->k};
    return v->load > 0;
}

tch_vec3 tch_volume_point_friction(const tch_volume_params* k, tch_real load, tch_vec3 slip,
                                   tch_vec3* spring, int* sliding) {
    const tch_contact_area point = {.area = 1};
    tch_vec3 n = tch_v3_zero(); /* a point carries no spin */
    tch_vec3 stat =
        tch_v3_add(tch_volume_static_total(&point, n, *spring, 0, k->static_stiffness).force,
                   tch_volume_static_total(&point, n, slip, 0, k->static_damping).force);
    int mode = *sliding ? FRICTION_DYNAMIC : FRICTION_STATIC;
    tch_real mu = mode == FRICTION_STATIC ? k->static_friction : k->friction;
    mode = mode_at_load_ratio(mode, load_ratio(tch_v3_norm(stat), mu * load));
    *sliding = mode == FRICTION_DYNAMIC;
    if (mode == FRICTION_STATIC) {
        return stat;
    }
    /* the springs matched to the dynamic friction (notes §6.4 step 6, at one point) */
    tch_vec3 dynamic = tch_volume_dynamic_traction(k->friction, load, slip);
    *spring =
        tch_v3_scale(tch_v3_madd(dynamic, k->static_damping, slip), -1 / k->static_stiffness);
    return dynamic;
}

const tch_contact_ops tch_volume_ops = {
    .name = "volume",
    .kind = TCH_CONTACT_KIND_FORCE,
    .uses_state = 1,
    .build_geoms = volume_build_geoms,
    .free_geoms = volume_free_geoms,
    .pair_geometry = volume_geometry,
    .normal_forces = volume_forces,
    .friction_forces = NULL,
    .scratch_create = volume_scratch_create,
    .scratch_destroy = volume_scratch_destroy,
    .linearize = tch_volume_linearize,
    .physical_defaults = 1,
};

/* ---- compile-time pieces ---- */

/* Segments around a curved primitive for a target edge length (16 when unset). */
static int segments_for(const tch_shape* shape, tch_real resolution) {
    if (isnan(resolution)) {
        return 16;
    }
    tch_real radius = fmax(shape->size[0], fmax(shape->size[1], shape->size[2]));
    tch_real n = ceil(2 * TCH_PI * radius / resolution);
    return (int)fmin(fmax(n, 8), 128);
}

tch_status tch_volume_build_pieces(const tch_model* m, tch_convex_hull* hulls, tch_error* err) {
    for (int g = 0; g < m->geom_count; ++g) {
        if (m->geom_type[g] == TCH_GEOM_PLANE) {
            continue;
        }
        tch_shape shape = tch_model_geom_shape(m, g);
        tch_real resolution = m->geom_contact[g].resolution;
        if (isnan(resolution)) {
            resolution = m->contact_default.resolution;
        }
        tch_status s =
            tch_polyhedron_approximate_shape(&shape, segments_for(&shape, resolution), &hulls[g], err);
        /* checked once here: the per-pair clipping and plane search take the pieces as valid */
        if (s == TCH_OK) {
            s = tch_polyhedron_check_hull(&hulls[g], m->geom_name ? m->geom_name[g] : NULL, err);
        }
        if (s != TCH_OK) {
            return s;
        }
    }
    return TCH_OK;
}

/* The convex pieces of every geom and their radii as the model's per-geom data. */
static tch_status volume_build_geoms(const tch_model* m, const tch_geom_sources* sources,
                                     void** geoms, tch_error* err) {
    (void)sources;
    size_t count = (size_t)(m->geom_count > 0 ? m->geom_count : 1);
    volume_pieces* pieces = calloc(1, sizeof *pieces);
    *geoms = pieces;
    if (pieces) {
        pieces->hulls = calloc(count, sizeof *pieces->hulls);
        pieces->radius = calloc(count, sizeof *pieces->radius);
    }
    if (!pieces || !pieces->hulls || !pieces->radius) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the pieces");
    }
    tch_error piece_err;
    tch_status s = tch_volume_build_pieces(m, pieces->hulls, &piece_err);
    if (s != TCH_OK) {
        return tch_fail(err, s, NULL, 0, "the contact-volume model needs a convex piece per "
                        "geom: %s", piece_err.message);
    }
    for (int g = 0; g < m->geom_count; ++g) {
        pieces->radius[g] = tch_polyhedron_hull_radius(&pieces->hulls[g]);
    }
    return TCH_OK;
}

static void volume_free_geoms(const tch_model* m, void* geoms) {
    volume_pieces* pieces = geoms;
    if (!pieces) {
        return;
    }
    for (int g = 0; pieces->hulls && g < m->geom_count; ++g) {
        tch_hull_free(&pieces->hulls[g]);
    }
    free(pieces->hulls);
    free(pieces->radius);
    free(pieces);
}
