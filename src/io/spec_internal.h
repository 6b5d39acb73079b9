/* Internal access to the scene specification (touche/spec.h), for the compiler and loaders.
 *
 * The spec is a set of growable arrays of the public *_def structs, plus what the public
 * header has no field for: the CLI's contact-model override and the MJCF model name. Defs are
 * stored by value; mesh vertices and key arrays are copied into buffers the spec owns, and the
 * stored defs point into them. Ids are 1-based indices into those arrays (body 0 = world).
 *
 * Validation on add covers only what needs no compile: the def's cookie, references (parent
 * body, mesh, pair geoms) to earlier elements, unique non-empty names per kind, enum ranges
 * and array pointers. Values (sizes, masses, inertia) are checked by the loaders, which know
 * file and line, and again by tch_compile.
 */
#pragma once

#include "touche/spec.h"

/* Cookie of every def produced by a tch_*_def_default function. */
#define TCH_SPEC_DEF_COOKIE 0x70C4E

/* The model forced by tch_spec_force_contact_model, or TCH_CONTACT_INHERIT (scene decides). */
tch_contact_model tch_spec_forced_contact_model(const tch_spec* spec);

/* The MJCF model name (<mujoco model="...">), "" when none. */
const char* tch_spec_model_name(const tch_spec* spec);
/* Sets the model name; truncated to 63 characters. */
void tch_spec_set_model_name(tch_spec* spec, const char* name);

/* Parses a point law name ("linear", "hunt-crossley"); false when unknown. */
bool tch_point_law_parse(const char* name, tch_point_law* out);
/* Name of a point law as in scene files; "inherit" for TCH_POINT_LAW_INHERIT. */
const char* tch_point_law_name(tch_point_law law);
/* Parses a geom type name as in MJCF ("sphere", ...); false when unknown or "hfield". */
bool tch_geom_type_parse(const char* name, tch_geom_type* out);

/* Parses an LCP solver name ("lemke", "pgs"); false when unknown. */
bool tch_lcp_solver_parse(const char* name, tch_lcp_solver* out);
