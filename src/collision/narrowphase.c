/* Narrow phase dispatch: one kernel per unordered pair of geom types, held under the pair
 * ordered by type (see collide.h for the kernels and docs/collision.md for the table). */
#include "collision/narrowphase.h"

#include "collision/collide.h"
#include "math/vec.h"

enum {
    PLANE = TCH_GEOM_PLANE,
    SPHERE = TCH_GEOM_SPHERE,
    CAPSULE = TCH_GEOM_CAPSULE,
    ELLIPSOID = TCH_GEOM_ELLIPSOID,
    CYLINDER = TCH_GEOM_CYLINDER,
    BOX = TCH_GEOM_BOX,
    MESH = TCH_GEOM_MESH,
};

/* [type_a][type_b] with type_a <= type_b; NULL below the diagonal, for plane-plane and for
 * the unused type 1 (height fields are not supported). */
static const tch_collide_fn collide_table[TCH_GEOM_TYPE_END][TCH_GEOM_TYPE_END] = {
    [PLANE] = {[SPHERE] = tch_collide_plane_rounded,
               [CAPSULE] = tch_collide_plane_rounded,
               [ELLIPSOID] = tch_collide_plane_ellipsoid,
               [CYLINDER] = tch_collide_plane_cylinder,
               [BOX] = tch_collide_plane_box,
               [MESH] = tch_collide_plane_mesh},
    [SPHERE] = {[SPHERE] = tch_collide_rounded_rounded,
                [CAPSULE] = tch_collide_rounded_rounded,
                [ELLIPSOID] = tch_collide_convex,
                [CYLINDER] = tch_collide_convex,
                [BOX] = tch_collide_rounded_box,
                [MESH] = tch_collide_convex},
    [CAPSULE] = {[CAPSULE] = tch_collide_rounded_rounded,
                 [ELLIPSOID] = tch_collide_convex,
                 [CYLINDER] = tch_collide_convex,
                 [BOX] = tch_collide_rounded_box,
                 [MESH] = tch_collide_convex},
    [ELLIPSOID] = {[ELLIPSOID] = tch_collide_convex,
                   [CYLINDER] = tch_collide_convex,
                   [BOX] = tch_collide_convex,
                   [MESH] = tch_collide_convex},
    [CYLINDER] = {[CYLINDER] = tch_collide_convex,
                  [BOX] = tch_collide_convex,
                  [MESH] = tch_collide_convex},
    [BOX] = {[BOX] = tch_collide_box_box, [MESH] = tch_collide_convex},
    [MESH] = {[MESH] = tch_collide_convex},
};

static int valid_type(tch_geom_type type) {
    return type >= 0 && type < TCH_GEOM_TYPE_END;
}

int tch_collide(const tch_shape* a, const tch_shape* b, tch_transform X_AB, tch_real margin,
                tch_manifold_point out[TCH_MANIFOLD_CAPACITY]) {
    if (!valid_type(a->type) || !valid_type(b->type)) {
        return 0;
    }
    const tch_collide_fn direct = collide_table[a->type][b->type];
    if (direct) {
        return direct(a, b, X_AB, margin, out);
    }
    const tch_collide_fn swapped = collide_table[b->type][a->type];
    if (!swapped) {
        return 0;
    }
    /* run as (b, a) and express B's points in A, with the normal turned to point into B */
    const int count = swapped(b, a, tch_x_inverse(X_AB), margin, out);
    tch_manifold_flip(out, count, X_AB);
    return count;
}
