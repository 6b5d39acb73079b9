/* An engine-neutral description of a scene of free rigid bodies and primitive geoms, from
 * which the ODE and Bullet programs build the same scene that touche simulates.
 *
 * ODE and Bullet both put a body's frame at its centre of mass, and Bullet also wants the
 * body axes along the principal axes of inertia. So every free body here is described in such
 * a frame C: its pose X_WC, its mass and its inertia about Cm in C's axes, and each of its geoms
 * by its pose X_CG in that frame. With `principal_axes` the frame C is turned so that I_C is
 * diagonal; otherwise C keeps the axes of the touche body frame B.
 *
 * Geoms welded to the world (directly or through welded bodies) are static, posed in the world.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "touche/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Geom kinds the anchors build, numbered as tch_geom_type.
typedef enum anchor_geom_type {
    ANCHOR_GEOM_PLANE = 0,
    ANCHOR_GEOM_SPHERE = 2,
    ANCHOR_GEOM_CAPSULE = 3,
    ANCHOR_GEOM_CYLINDER = 5,
    ANCHOR_GEOM_BOX = 6,
} anchor_geom_type;

/// A free body, in its centre-of-mass frame C.
typedef struct anchor_body {
    tch_transform X_WC;  ///< initial pose of C (origin at the centre of mass)
    tch_real mass;       ///< kg
    tch_mat3 I_C;        ///< inertia about the centre of mass in C's axes, kg m^2
} anchor_body;

/// A geom; sizes follow tch_geom_type (half-extents, radius, half-length).
typedef struct anchor_geom {
    anchor_geom_type type;
    int body;              ///< index into anchor_scene.bodies, or -1 for a static geom
    tch_real size[3];      ///< m
    tch_transform X_CG;    ///< pose in the body's frame C, or in the world when static
    tch_real friction;     ///< Coulomb coefficient of this geom
} anchor_geom;

typedef struct anchor_scene {
    tch_real timestep;     ///< s
    tch_vec3 gravity;      ///< m/s^2, world
    int body_count;
    anchor_body* bodies;   ///< [body_count]
    int geom_count;
    anchor_geom* geoms;    ///< [geom_count]
} anchor_scene;

/// Loads `path` with touche's MJCF loader and compiler and describes it. On failure (file,
/// unsupported geom type or joint) returns false with the reason in `why`.
bool anchor_scene_load_touche(const char* path, bool principal_axes, anchor_scene* out,
                              char* why, size_t why_size);
/// Same with MuJoCo's compiler (mj_loadXML) on a file without touche attributes: a cross-check
/// of the touche path, and a way to run the anchors while touche's loader is unavailable.
bool anchor_scene_load_mujoco(const char* path, bool principal_axes, anchor_scene* out,
                              char* why, size_t why_size);
/// Loads with the loader named "touche" or "mujoco".
bool anchor_scene_load(const char* loader, const char* path, bool principal_axes,
                       anchor_scene* out, char* why, size_t why_size);
/// Frees the arrays. NULL members are allowed.
void anchor_scene_free(anchor_scene* scene);

/// For the loaders: allocates `body_count` bodies and `geom_count` geoms (zeroed); false when
/// out of memory.
bool anchor_scene_alloc(anchor_scene* scene, int body_count, int geom_count);
/// For the loaders: describes a body of pose X_WB, mass, centre of mass p_BCm and inertia I_BCm
/// (about Cm, B's axes) in its frame C, and returns X_BC to re-express its geoms.
tch_transform anchor_body_describe(anchor_body* out, tch_transform X_WB, tch_real mass,
                                   tch_vec3 p_BCm, tch_mat3 I_BCm, bool principal_axes);
/// For the loaders: true for the geom types above (a tch_geom_type / mjtGeom value).
bool anchor_geom_type_supported(int type);

/// Pair friction used by the anchors: the larger of the two geoms' coefficients (MuJoCo's rule).
tch_real anchor_pair_friction(const anchor_scene* scene, int geom_a, int geom_b);

#ifdef __cplusplus
}
#endif
