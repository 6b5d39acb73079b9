/* Islands of the constraints stage (engine/constraint_stage.h): the connected components of
 * the free bodies through the constraint contacts (static bodies do not connect), by union-find,
 * and islands that sleep at rest.
 */
#include "engine/constraint_stage.h"

#include <math.h>
#include <string.h>

/* ---- islands (union-find over free roots, path halving) ---- */

static int find_island(int* parent, int b) {
    while (parent[b] != b) {
        parent[b] = parent[parent[b]];
        b = parent[b];
    }
    return b;
}

static void join_islands(int* parent, int a, int b) {
    a = find_island(parent, a);
    b = find_island(parent, b);
    if (a != b) {
        parent[a > b ? a : b] = a < b ? a : b;
    }
}

/* The free bodies of each island (island_of_root[r]: the island of union-find root r, or -1),
 * in body order. Returns 0, -1 when out of memory. */
static int list_island_bodies(tch_constraint_run* s, int* parent, const int* island_of_root) {
    const tch_model* m = s->m;
    s->island_body_start = tch_arena_alloc(s->arena, (size_t)(s->island_count + 1) * sizeof(int),
                                           "island body starts");
    s->island_bodies =
        tch_arena_alloc(s->arena, (size_t)m->body_count * sizeof(int), "island bodies");
    if (!s->island_body_start || !s->island_bodies) {
        return -1;
    }
    int* start = s->island_body_start;
    memset(start, 0, (size_t)(s->island_count + 1) * sizeof *start);
    for (int b = 1; b < m->body_count; ++b) {
        int k = island_of_root[find_island(parent, b)];
        start[k + 1] += k >= 0;
    }
    for (int k = 0; k < s->island_count; ++k) {
        start[k + 1] += start[k];
    }
    for (int b = 1; b < m->body_count; ++b) {
        int k = island_of_root[find_island(parent, b)];
        if (k >= 0) {
            s->island_bodies[start[k]++] = b;
        }
    }
    for (int k = s->island_count; k > 0; --k) {
        start[k] = start[k - 1];
    }
    start[0] = 0;
    return 0;
}

/* The bodies that join contact cr's island (0: the world), tch_constraint_island_node's. */
static void contact_nodes(const tch_model* m, const tch_constraint_contact* cr, int* a, int* b) {
    if (cr->given) {
        *a = cr->given_body, *b = 0;
        return;
    }
    *a = tch_constraint_island_node(m, tch_constraint_root(m, cr->row.geom_a));
    *b = tch_constraint_island_node(m, tch_constraint_root(m, cr->row.geom_b));
}

/* The island of every contact (numbered in order of first appearance) and the contacts sorted
 * by island, stably. Returns 0, -1 when out of memory. */
int tch_constraint_group_islands(tch_constraint_run* s, int* parent) {
    const tch_model* m = s->m;
    for (int b = 0; b < m->body_count; ++b) {
        parent[b] = b;
    }
    for (int i = 0; i < s->contact_count; ++i) {
        int ra, rb;
        contact_nodes(m, &s->contacts[i], &ra, &rb);
        if (ra > 0 && rb > 0) {
            join_islands(parent, ra, rb);
        }
    }
    int* index = tch_arena_alloc(s->arena, (size_t)m->body_count * sizeof *index, "islands");
    s->island_start =
        tch_arena_alloc(s->arena, (size_t)(s->contact_count + 1) * sizeof(int), "island starts");
    if (!index || !s->island_start) {
        return -1;
    }
    memset(index, -1, (size_t)m->body_count * sizeof *index);
    s->island_count = 0;
    for (int i = 0; i < s->contact_count; ++i) {
        int ra, rb;
        contact_nodes(m, &s->contacts[i], &ra, &rb);
        int rep = find_island(parent, ra > 0 ? ra : rb);
        if (index[rep] < 0) {
            index[rep] = s->island_count++;
        }
        s->contacts[i].island = index[rep];
    }
    memset(s->island_start, 0, (size_t)(s->island_count + 1) * sizeof(int));
    bool in_order = true; /* the contacts of each island already follow each other */
    for (int i = 0; i < s->contact_count; ++i) {
        s->island_start[s->contacts[i].island + 1]++;
        in_order = in_order && (i == 0 || s->contacts[i].island >= s->contacts[i - 1].island);
    }
    for (int k = 0; k < s->island_count; ++k) {
        s->island_start[k + 1] += s->island_start[k];
    }
    if (list_island_bodies(s, parent, index) != 0) {
        return -1;
    }
    if (in_order) {
        return 0; /* (a stack: one island) copying them would change nothing */
    }
    tch_constraint_contact* sorted =
        tch_arena_alloc(s->arena, (size_t)s->contact_count * sizeof *sorted, "sorted contacts");
    if (!sorted) {
        return -1;
    }
    int* fill = index; /* reused: next free slot per island */
    memcpy(fill, s->island_start, (size_t)s->island_count * sizeof *fill);
    for (int i = 0; i < s->contact_count; ++i) {
        sorted[fill[s->contacts[i].island]++] = s->contacts[i];
    }
    s->contacts = sorted;
    return 0;
}

/* ---- sleeping islands ---- */

/* An island sleeps once every body in it has ended SLEEP_TIME of steps in a row at rest: no
 * point of the body (within its reach, the largest bounding radius of its geoms) faster than
 * REST_SPEED. While it sleeps its bodies keep zero velocity and its contacts the impulses of
 * the last solve; it wakes when a body of it starts a step moving (the user set a velocity),
 * when a force other than gravity changes a body's velocity by more than WAKE_SPEED (an applied
 * force or torque, a force model's contact), or when it has a contact whose warm start is not
 * the last step's (tch_row_contact.remembered: a new contact, an awake body joining it). Both limits are times and speeds, so the rule
 * does not depend on the time step (docs/contact-lcp.md, "Sleeping islands"). */
static const tch_real SLEEP_TIME = 0.5;
static const tch_real REST_SPEED = 1e-3;
static const tch_real WAKE_SPEED = 1e-9;

static int sleep_steps(const tch_constraint_run* s) {
    return (int)ceil(SLEEP_TIME / s->h - 1e-9);
}

/* Is free body b's every point slower than `speed` at the velocities (v, w)? */
static bool body_slower_than(const tch_constraint_run* s, int b, tch_vec3 v, tch_vec3 w,
                             tch_real speed) {
    tch_real reach = s->d->internal->constraint.reach[b];
    return tch_v3_norm(v) + tch_v3_norm(w) * reach <= speed;
}

/* Did something other than gravity change body b's velocity in this step, or did it start the
 * step moving though it slept (the user set its velocity)? */
static bool body_disturbed(const tch_constraint_run* s, int b, bool asleep) {
    const tch_data* d = s->d;
    tch_vec3 kick = tch_v3_madd(tch_v3_sub(s->v[b], d->body_v_WCm[b]), -s->h, s->m->gravity);
    tch_vec3 turn = tch_v3_sub(s->w[b], d->body_w_W[b]);
    bool moving = tch_v3_norm2(d->body_v_WCm[b]) > 0 || tch_v3_norm2(d->body_w_W[b]) > 0;
    return (asleep && moving) || !body_slower_than(s, b, kick, turn, WAKE_SPEED);
}

/* Does island k sleep this step (see SLEEP_TIME)? A body's rest count is sleep_steps + 1 while
 * its island sleeps. */
bool tch_constraint_island_sleeps(const tch_constraint_run* s, int k) {
    const int* rest = s->d->internal->constraint.rest_steps;
    int needed = sleep_steps(s);
    if (tch_constraint_island_has_tree(s, k)) {
        return false; /* a tree's velocities are not held (hold_island knows free bodies) */
    }
    for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1]; ++i) {
        int b = s->island_bodies[i];
        if (rest[b] < needed || body_disturbed(s, b, rest[b] > needed)) {
            return false;
        }
    }
    for (int i = s->island_start[k]; i < s->island_start[k + 1]; ++i) {
        if (!s->contacts[i].row.remembered) {
            return false;
        }
    }
    return true;
}

/* Holds a sleeping island: its bodies at zero velocity, its contacts at their warm starts
 * (which their models report as forces and keep for the next step). */
void tch_constraint_hold_island(tch_constraint_run* s, int k) {
    for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1]; ++i) {
        int b = s->island_bodies[i];
        s->v[b] = s->w[b] = tch_v3_zero();
        s->moved[b] = 1;
    }
    for (int i = s->island_start[k]; i < s->island_start[k + 1]; ++i) {
        const tch_constraint_contact* cr = &s->contacts[i];
        tch_vec3 impulse = tch_v3_scale(cr->row.n_W, cr->row.warm[0]);
        impulse = tch_v3_madd(impulse, cr->row.warm[1], cr->row.t1_W);
        impulse = tch_v3_madd(impulse, cr->row.warm[2], cr->row.t2_W);
        tch_constraint_keep_impulse(s, cr, impulse, impulse, cr->row.carried);
    }
    s->d->constraint_sleeping_islands++;
}

/* The rest counts after the step: a body of a solved island counts one more step at rest (up
 * to sleep_steps) when it ends the step at rest, and starts over otherwise or when its island
 * was woken (it was due to sleep but was disturbed); a sleeping island's bodies are marked
 * asleep (sleep_steps + 1); a body in no island has none. */
void tch_constraint_count_rest_steps(const tch_constraint_run* s, const bool* held) {
    int* rest = s->d->internal->constraint.rest_steps;
    unsigned char* in_island = tch_arena_alloc(s->arena, (size_t)s->m->body_count, "rest");
    if (!in_island) {
        memset(rest, 0, (size_t)s->m->body_count * sizeof *rest);
        return;
    }
    memset(in_island, 0, (size_t)s->m->body_count);
    int needed = sleep_steps(s);
    for (int k = 0; k < s->island_count; ++k) {
        bool woken = !held[k];
        for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1] && woken; ++i) {
            woken = rest[s->island_bodies[i]] >= needed;
        }
        for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1]; ++i) {
            int b = s->island_bodies[i];
            in_island[b] = 1;
            bool still = !woken && body_slower_than(s, b, s->v[b], s->w[b], REST_SPEED);
            rest[b] = held[k] ? needed + 1 : still ? (rest[b] < needed ? rest[b] + 1 : needed) : 0;
        }
    }
    for (int b = 0; b < s->m->body_count; ++b) {
        rest[b] = in_island[b] ? rest[b] : 0;
    }
}
