/// touche: reading and writing scenes and meshes.
#pragma once

#include "touche/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Loads an MJCF file (the subset in docs/mjcf.md, plus attributes in the urn:touche
/// namespace) into a new spec. Mesh files are read relative to the scene's directory (or its
/// compiler meshdir). Unknown elements become spec warnings. On failure returns the status,
/// fills `err` with file, line and element, and sets *out to NULL.
TCH_API tch_status tch_mjcf_load(const char* path, tch_spec** out, tch_error* err);
/// Contact parameters given to a default class from outside its file (the command line's
/// `--set class:NAME.PARAM=VALUE`): set fields are applied as if the class's `<geom>` default
/// in the file gave them, so they reach the class's geoms and the classes nested in it, but not
/// a geom or nested class that sets the parameter itself. Unset fields are those of
/// tch_contact_params_unset().
typedef struct tch_mjcf_class_params {
    char class_name[64]; ///< "main" is the top-level <default>
    tch_contact_params contact;
} tch_mjcf_class_params;

/// tch_mjcf_load, with `count` classes' contact parameters set from outside the file. A class
/// name the file does not define is an error (TCH_ERR_INVALID_ARGUMENT, naming it).
TCH_API tch_status tch_mjcf_load_with_classes(const char* path,
                                              const tch_mjcf_class_params* classes, int count,
                                              tch_spec** out, tch_error* err);
/// Same, from a string; `base_dir` resolves relative mesh paths (may be NULL: current dir);
/// `name` is used as the file name in errors (may be NULL).
TCH_API tch_status tch_mjcf_load_string(const char* xml, const char* base_dir, const char* name,
                                        tch_spec** out, tch_error* err);
/// Writes the spec as MJCF. With `touche_attributes` false the touche namespace is left out
/// so that MuJoCo loads the file. The file is written to a temporary name and renamed when
/// complete.
TCH_API tch_status tch_mjcf_save(const tch_spec* spec, const char* path, bool touche_attributes,
                                 tch_error* err);

/// Loads a URDF robot (links, inertials, collision box, cylinder, sphere and mesh, joints
/// revolute, continuous, prismatic, fixed and floating, limits, dynamics damping and friction)
/// into a new spec; docs/articulated.md, "URDF". `package_path` lists the directories
/// (separated by ':') in which package://NAME/... is looked up as DIR/NAME/...; may be NULL.
/// The root link is welded to the world, unless it is named "world" (the world itself).
TCH_API tch_status tch_urdf_load(const char* path, const char* package_path, tch_spec** out,
                                 tch_error* err);

/// Reads the vertices of a surface mesh: Wavefront OBJ, or binary or ASCII STL (chosen by
/// content). *vertices is allocated with malloc and owned by the caller.
TCH_API tch_status tch_mesh_read_vertices(const char* path, tch_vec3** vertices, int* count,
                                          tch_error* err);

#ifdef __cplusplus
}
#endif
