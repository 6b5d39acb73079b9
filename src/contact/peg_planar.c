/* peg in the planar mode (contact/peg_planar.h, docs/planar.md). */
#include "contact/peg_planar.h"

#include <stdlib.h>

#include "base/error.h"
#include "math/vec.h"

/* R: world -> the 2D cases' frame (x, y, z) -> (x, z, -y); Rᵀ back. */
static tch_vec3 to_plane(tch_vec3 p) {
    return tch_v3(p.x, p.z, -p.y);
}

static tch_vec3 from_plane(tch_vec3 p) {
    return tch_v3(p.x, -p.z, p.y);
}

static tch_real turn(tch_vec3 o, tch_vec3 a, tch_vec3 b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

static int by_x_then_y(const void* pa, const void* pb) {
    const tch_vec3 *a = pa, *b = pb;
    return a->x < b->x ? -1 : a->x > b->x ? 1 : a->y < b->y ? -1 : a->y > b->y;
}

/* Andrew's monotone chain over points[0 .. n) (sorted in place), counter-clockwise into hull
 * (room for 2 n); drops repeated and collinear points (a turn below `tolerance`, area
 * units): the two faces of a prism project onto the same points. */
static int convex_hull_2d(tch_vec3* points, int n, tch_real tolerance, tch_vec3* hull) {
    qsort(points, (size_t)n, sizeof *points, by_x_then_y);
    int k = 0;
    for (int i = 0; i < n; ++i) {
        while (k >= 2 && turn(hull[k - 2], hull[k - 1], points[i]) <= tolerance) {
            --k;
        }
        hull[k++] = points[i];
    }
    for (int i = n - 2, lower = k + 1; i >= 0; --i) {
        while (k >= lower && turn(hull[k - 2], hull[k - 1], points[i]) <= tolerance) {
            --k;
        }
        hull[k++] = points[i];
    }
    return k > 1 ? k - 1 : k; /* the last point repeats the first */
}

/* Sorted projected points in work[0 .. n), the hull after them. */
static int section(const tch_features* f, tch_transform pose, tch_vec3* work, tch_vec3* hull) {
    for (int v = 0; v < f->vertex_count; ++v) {
        work[v] = to_plane(tch_x_apply(pose, f->vertices[v]));
        work[v].z = 0;
    }
    const tch_real size = f->radius > 0 ? f->radius : 1;
    return convex_hull_2d(work, f->vertex_count, 1e-12 * size * size, hull);
}

static int reserve(tch_peg_planar_scratch* s, int needed) {
    if (needed <= s->capacity) {
        return 0;
    }
    tch_vec3* grown = realloc(s->points, (size_t)needed * sizeof *grown);
    if (!grown) {
        return -1;
    }
    s->points = grown;
    s->capacity = needed;
    return 0;
}

static void contact_to_world(tch_peg_contact* c, tch_real world_y) {
    c->point_a = from_plane(c->point_a);
    c->point_a.y = world_y;
    c->normal = from_plane(c->normal);
    for (int s = 0; s < 2; ++s) {
        c->jacobian.lin[s] = from_plane(c->jacobian.lin[s]);
        c->jacobian.ang[s] = from_plane(c->jacobian.ang[s]);
    }
}

tch_status tch_peg_constraints_build_planar(const tch_features* a, tch_transform pose_a,
                                            tch_vec3 com_a, const tch_features* b,
                                            tch_transform pose_b, tch_vec3 com_b,
                                            const tch_peg_params* params,
                                            tch_peg_planar_scratch* scratch,
                                            tch_peg_constraints* out, tch_error* err) {
    const int na = a->vertex_count, nb = b->vertex_count;
    if (reserve(scratch, 3 * (na + nb)) != 0) { /* the projected points, then the hulls */
        out->count = out->contact_count = 0;
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory (peg planar)");
    }
    tch_vec3* hull_a = scratch->points + na + nb;
    tch_vec3* hull_b = hull_a + 2 * na;
    int count_a = section(a, pose_a, scratch->points, hull_a);
    int count_b = section(b, pose_b, scratch->points + na, hull_b);
    tch_vec3 centre_a = to_plane(com_a), centre_b = to_plane(com_b);
    centre_a.z = centre_b.z = 0;
    tch_status s = tch_peg_constraints_build_2d(hull_a, count_a, centre_a, hull_b, count_b,
                                                centre_b, params, out, err);
    for (int k = 0; s == TCH_OK && k < out->contact_count; ++k) {
        contact_to_world(&out->contacts[k], com_a.y);
    }
    return s;
}
