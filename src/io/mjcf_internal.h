/* The MJCF loader's internals, shared by mjcf_load.c (document and sections), mjcf_body.c
 * (worldbody, bodies, geoms), mjcf_asset.c (meshes) and xml_util.c (attribute reading).
 *
 * Data flow: libxml2 parses the whole file into a DOM (no network, no entity loading, errors
 * collected in the parser context, never printed). The loader then walks the sections in
 * MuJoCo's order, whatever their order in the file: compiler, option, default, asset,
 * worldbody, contact, keyframe. Default classes are flattened as they are read: each class
 * holds a complete geom template (its parent's, overridden by its own attributes), so a geom
 * starts from its class template and applies its own attributes. Every value is checked where
 * it is read, so errors carry the file, line and element; the spec's own checks (references,
 * names) are mapped to the element too.
 *
 * Rejected options: a SAX parser (smaller memory, but defaults and the section order need
 * random access), and keeping default classes as attribute lists resolved per geom (simpler
 * to flatten once).
 */
#pragma once

#include <libxml/tree.h>

#include "touche/io.h"

#define TCH_MJCF_NAMESPACE "urn:touche"

/* Attributes of a geom that default classes can set, with what the MJCF adds to tch_geom_def. */
typedef struct tch_mjcf_geom_attrs {
    tch_geom_def def;
    int size_count;     /* numbers given in the last `size` attribute applied */
    char mesh_name[64]; /* `mesh` attribute, resolved when the geom is added */
    bool type_given;    /* a `type` attribute was applied (else a `mesh` implies mesh) */
    bool has_fromto;
    tch_real fromto[6]; /* from (x y z), to (x y z) in the body frame */
} tch_mjcf_geom_attrs;

/* Attributes of a joint that default classes can set: `limited` stays "auto" until the joint
 * is complete (compiler autolimits then decides from whether a range was given). */
typedef enum tch_mjcf_limited { TCH_MJCF_LIMITED_AUTO, TCH_MJCF_LIMITED_FALSE, TCH_MJCF_LIMITED_TRUE } tch_mjcf_limited;

typedef struct tch_mjcf_joint_attrs {
    tch_joint_def def;
    tch_mjcf_limited limited;
    bool range_given;
} tch_mjcf_joint_attrs;

/* A default class, flattened: its templates already include its ancestors' settings. */
typedef struct tch_mjcf_class {
    char name[64];
    tch_mjcf_geom_attrs geom;
    tch_mjcf_joint_attrs joint;
    tch_vec3 mesh_scale;
} tch_mjcf_class;

typedef struct tch_mjcf_loader {
    tch_spec* spec;
    const char* file;        /* scene name used in errors and warnings */
    char scene_dir[1024];    /* directory relative mesh paths start from */
    char mesh_dir[1024];     /* compiler meshdir (or assetdir), "" when none */
    bool angle_degrees;      /* compiler angle; MuJoCo's default is degree */
    char euler_seq[4];       /* compiler eulerseq, MuJoCo's default "xyz" */
    bool autolimits;         /* compiler autolimits, MuJoCo's default true */
    tch_mjcf_class* classes; /* [class_count] */
    int class_count, class_capacity;
    char (*warned)[96]; /* keys of warnings given once per load */
    int warned_count, warned_capacity;
    void* user;              /* the document loader's own state (URDF: the package path) */
    tch_error* err;
} tch_mjcf_loader;

/* Reads the XML file at path with the loader's machinery (C locale, errors with lines, no
 * network) and hands its root element to load_root, which fills L->spec (mjcf_load.c). */
typedef tch_status (*tch_xml_root_loader)(tch_mjcf_loader* L, const xmlNode* root);
tch_status tch_xml_load_path(const char* path, tch_xml_root_loader load_root, void* user,
                             tch_spec** out, tch_error* err);

/* ---- errors and warnings (xml_util.c) ---- */

/* Fills the loader's error with the node's line and element name and returns status. */
tch_status tch_mjcf_fail(tch_mjcf_loader* L, const xmlNode* node, tch_status status,
                         const char* format, ...) __attribute__((format(printf, 4, 5)));
/* "<elem> attr: expected <expected>, got "<text>"" for an attribute of node. */
tch_status tch_mjcf_fail_attr(tch_mjcf_loader* L, const xmlNode* node, const char* attr,
                              const char* expected);
/* Adds a spec warning at the node's line. */
void tch_mjcf_warn(tch_mjcf_loader* L, const xmlNode* node, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
/* Adds the warning only the first time `key` is seen in this load. */
void tch_mjcf_warn_once(tch_mjcf_loader* L, const xmlNode* node, const char* key,
                        const char* message);
/* Maps a failure of a tch_spec_add_* call (already filled from the def's source) to the
 * node's element name; returns status unchanged. */
tch_status tch_mjcf_spec_status(tch_mjcf_loader* L, const xmlNode* node, tch_status status);
/* The source location of node. */
tch_source tch_mjcf_source(const tch_mjcf_loader* L, const xmlNode* node);
/* Warns about a child element the caller does not handle: once per name for elements MuJoCo
 * knows, at every occurrence for unknown ones. Returns TCH_ERR_UNSUPPORTED for <include>. */
tch_status tch_mjcf_skip_element(tch_mjcf_loader* L, const xmlNode* node);

/* ---- attributes (xml_util.c) ---- */

/* Checks the attributes of node: names in `known` (NULL-terminated) are accepted, MuJoCo's
 * cosmetic ones (rgba, material, group, ...) silently ignored, others warned once per element
 * and name. Prefixed names whose prefix is not declared are an error. Attributes in the touche
 * namespace are left to tch_mjcf_read_touche_contact when `touche_contact`, else warned.
 *
 * Attribute names given to the readers below may carry the prefix "touche:", meaning the
 * attribute of that local name in the urn:touche namespace. */
tch_status tch_mjcf_check_attributes(tch_mjcf_loader* L, const xmlNode* node,
                                     const char* const* known, bool touche_contact);
bool tch_mjcf_has_attr(const xmlNode* node, const char* name);
/* Copies a string attribute; absent leaves `out` unchanged. Too long is an error. */
tch_status tch_mjcf_read_string(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                char* out, size_t size);
/* Reads between min_count and max_count finite numbers (absent: *count = 0, out untouched).
 * `expected` completes the error message ("3 numbers (x y z)"). `count` may be NULL. */
tch_status tch_mjcf_read_reals(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                               tch_real* out, int min_count, int max_count, int* count,
                               const char* expected);
/* Reads any number of finite numbers into a malloc'ed array (absent: NULL, 0). */
tch_status tch_mjcf_read_real_array(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                    tch_real** out, int* count);
/* One finite number that must be > 0 (strict) or >= 0. */
/* A MuJoCo solref pair (time constant, damping ratio), both > 0 (MuJoCo's negative "direct"
 * form is not supported); out is left as it was when the attribute is absent. */
tch_status tch_mjcf_read_solref(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                tch_real out[2]);
tch_status tch_mjcf_read_nonnegative(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                     bool strict, tch_real* out);
/* A non-negative integer (collision bitmasks). */
tch_status tch_mjcf_read_bitmask(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                 int* out);
/* A keyword among `choices` (NULL-terminated); *index gets its position. Absent: unchanged. */
tch_status tch_mjcf_read_keyword(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                 const char* const* choices, int* index);
/* The frame orientation from at most one of quat, axisangle, euler, xyaxes, zaxis (angles in
 * the compiler's unit). Absent: *q unchanged. */
tch_status tch_mjcf_read_orientation(tch_mjcf_loader* L, const xmlNode* node, tch_quat* q);
/* The unit quaternion rotating +z onto the direction of v (MuJoCo's fromto and zaxis
 * convention: the shortest arc; a half turn about x when v points along -z).
 * @pre v is not zero. */
tch_quat tch_mjcf_quat_z_to(tch_vec3 v);
/* touche:* contact attributes into params; `scene_level` also accepts touche:friction and
 * touche:margin (for <option>). Unknown touche attributes are warnings. */
tch_status tch_mjcf_read_touche_contact(tch_mjcf_loader* L, const xmlNode* node, bool scene_level,
                                        tch_contact_params* params);
/* Element children iteration. */
const xmlNode* tch_mjcf_first_element(const xmlNode* node);
const xmlNode* tch_mjcf_next_element(const xmlNode* node);
bool tch_mjcf_is(const xmlNode* node, const char* name);
int tch_mjcf_line(const xmlNode* node);

/* ---- default classes (mjcf_load.c) ---- */

/* Index of the class named `name`, or -1. */
int tch_mjcf_find_class(const tch_mjcf_loader* L, const char* name);
/* The class a node uses: its `class` attribute, else `inherited` (a childclass index or -1
 * for "main" when it exists). Fails on an unknown class. */
tch_status tch_mjcf_node_class(tch_mjcf_loader* L, const xmlNode* node, int inherited, int* index);
/* The geom template of a class; index -1 gives the built-in defaults. */
tch_mjcf_geom_attrs tch_mjcf_geom_template(const tch_mjcf_loader* L, int class_index);

/* The joint template of a class; index -1 gives the built-in defaults. */
tch_mjcf_joint_attrs tch_mjcf_joint_template(const tch_mjcf_loader* L, int class_index);

/* MJCF friction (1 to 3 numbers >= 0): *sliding gets the first, touche's coefficient. */
tch_status tch_mjcf_read_friction(tch_mjcf_loader* L, const xmlNode* node, tch_real* sliding);

/* ---- bodies and geoms (mjcf_body.c) ---- */

/* Applies the attributes of a <geom> (in a body or a default) over `attrs`. */
tch_status tch_mjcf_apply_geom_attrs(tch_mjcf_loader* L, const xmlNode* node,
                                     tch_mjcf_geom_attrs* attrs);
/* Applies the attributes of a <joint> (in a body or a default) over `attrs`. */
tch_status tch_mjcf_apply_joint_attrs(tch_mjcf_loader* L, const xmlNode* node,
                                      tch_mjcf_joint_attrs* attrs);
tch_status tch_mjcf_load_worldbody(tch_mjcf_loader* L, const xmlNode* node);
/* A body's mocap attribute and touche's haptic attributes (mjcf_haptic.c); other touche
 * attributes of the body are warned. */
tch_status tch_mjcf_read_body_haptic(tch_mjcf_loader* L, const xmlNode* node, tch_body_def* def);

/* ---- actuators (mjcf_actuator.c) ---- */

tch_status tch_mjcf_load_actuators(tch_mjcf_loader* L, const xmlNode* node);
/* <equality>: connect and weld (mjcf_equality.c). */
tch_status tch_mjcf_load_equalities(tch_mjcf_loader* L, const xmlNode* node);

/* ---- assets (mjcf_asset.c) ---- */

tch_status tch_mjcf_load_asset(tch_mjcf_loader* L, const xmlNode* node);
