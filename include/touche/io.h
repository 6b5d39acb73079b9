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
