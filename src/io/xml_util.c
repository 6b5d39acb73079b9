/* Reading MJCF attributes: numbers, keywords, orientations, touche attributes; errors and
 * warnings located at the element's line (see mjcf_internal.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "io/mjcf_internal.h"
#include "io/spec_internal.h"
#include "math/vec.h"

/* ---- elements ---- */

const xmlNode* tch_mjcf_first_element(const xmlNode* node) {
    const xmlNode* child = node->children;
    while (child && child->type != XML_ELEMENT_NODE) {
        child = child->next;
    }
    return child;
}

const xmlNode* tch_mjcf_next_element(const xmlNode* node) {
    const xmlNode* next = node->next;
    while (next && next->type != XML_ELEMENT_NODE) {
        next = next->next;
    }
    return next;
}

bool tch_mjcf_is(const xmlNode* node, const char* name) {
    return strcmp((const char*)node->name, name) == 0;
}

int tch_mjcf_line(const xmlNode* node) {
    long line = xmlGetLineNo(node);
    return line > 0 && line < INT_MAX ? (int)line : 0;
}

/* ---- errors and warnings ---- */

tch_status tch_mjcf_fail(tch_mjcf_loader* L, const xmlNode* node, tch_status status,
                         const char* format, ...) {
    char text[480];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    const char* element = node ? (const char*)node->name : "";
    if (node) {
        tch_fail(L->err, status, L->file, tch_mjcf_line(node), "<%s> %s", element, text);
    } else {
        tch_fail(L->err, status, L->file, 0, "%s", text);
    }
    tch_error_set_element(L->err, element);
    return status;
}

void tch_mjcf_warn(tch_mjcf_loader* L, const xmlNode* node, const char* format, ...) {
    char text[400];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    tch_spec_add_warning(L->spec, L->file, node ? tch_mjcf_line(node) : 0, text);
}

void tch_mjcf_warn_once(tch_mjcf_loader* L, const xmlNode* node, const char* key,
                        const char* message) {
    for (int i = 0; i < L->warned_count; ++i) {
        if (strcmp(L->warned[i], key) == 0) {
            return;
        }
    }
    if (L->warned_count == L->warned_capacity) {
        int capacity = L->warned_capacity ? 2 * L->warned_capacity : 16;
        void* grown = realloc(L->warned, (size_t)capacity * sizeof *L->warned);
        if (!grown) {
            return;
        }
        L->warned = grown;
        L->warned_capacity = capacity;
    }
    tch_copy_string(L->warned[L->warned_count++], sizeof *L->warned, key);
    tch_mjcf_warn(L, node, "%s", message);
}

/* Elements of MuJoCo's schema that touche reads past with a warning. */
static const char* const mujoco_elements[] = {
    "size",     "visual",    "statistic", "custom",    "extension", "tendon",      "equality",
    "actuator", "sensor",    "plugin",    "site",      "camera",    "light",       "composite",
    "flexcomp", "replicate", "texture",   "material",  "hfield",    "skin",        "model",
    "flag",     "general",   "motor",     "position",  "velocity",  "intvelocity", "damper",
    "cylinder", "muscle",    "adhesion",  "attach",    "frame",     "numeric",     "text",
    "tuple",    "global",    "quality",   "headlight", "map",       "scale",       "rgba",
    "weld",     "connect",   "distance",  "spatial",   "fixed",     "default",     "joint",
    "pair",     "exclude",   NULL};

static bool in_list(const char* const* list, const char* name) {
    for (; *list; ++list) {
        if (strcmp(*list, name) == 0) {
            return true;
        }
    }
    return false;
}

tch_status tch_mjcf_skip_element(tch_mjcf_loader* L, const xmlNode* node) {
    const char* name = (const char*)node->name;
    const char* parent = node->parent ? (const char*)node->parent->name : "";
    if (strcmp(name, "include") == 0) {
        return tch_mjcf_fail(L, node, TCH_ERR_UNSUPPORTED,
                             "is not supported yet (merge the included file into the scene)");
    }
    if (in_list(mujoco_elements, name)) {
        char key[96], message[200];
        snprintf(key, sizeof key, "element %s/%s", parent, name);
        snprintf(message, sizeof message,
                 "<%s> in <%s> is ignored: touche does not support it yet (warned once)", name,
                 parent);
        tch_mjcf_warn_once(L, node, key, message);
    } else {
        tch_mjcf_warn(L, node, "unknown element <%s> in <%s> ignored", name, parent);
    }
    return TCH_OK;
}

/* ---- attribute text ---- */

static const char touche_prefix[] = "touche:";

/* The attribute's value (xmlFree it), or NULL when absent. Names with the "touche:" prefix
 * are looked up in the touche namespace. */
static char* attr_text(const xmlNode* node, const char* name) {
    size_t n = sizeof touche_prefix - 1;
    xmlChar* value =
        strncmp(name, touche_prefix, n) == 0
            ? xmlGetNsProp(node, (const xmlChar*)name + n, (const xmlChar*)TCH_MJCF_NAMESPACE)
            : xmlGetNoNsProp(node, (const xmlChar*)name);
    return (char*)value;
}

bool tch_mjcf_has_attr(const xmlNode* node, const char* name) {
    char* text = attr_text(node, name);
    xmlFree(text);
    return text != NULL;
}

/* Quotes at most 60 characters of text for a message. */
static void quote_for_message(const char* text, char* out, size_t size) {
    if (!text) {
        snprintf(out, size, "nothing");
    } else if (strlen(text) > 60) {
        snprintf(out, size, "\"%.60s...\"", text);
    } else {
        snprintf(out, size, "\"%s\"", text);
    }
}

static tch_status fail_with_text(tch_mjcf_loader* L, const xmlNode* node, const char* attr,
                                 const char* expected, const char* text, const char* why) {
    char got[80];
    quote_for_message(text, got, sizeof got);
    return tch_mjcf_fail(L, node, TCH_ERR_PARSE, "%s: expected %s, got %s%s", attr, expected, got,
                         why);
}

tch_status tch_mjcf_fail_attr(tch_mjcf_loader* L, const xmlNode* node, const char* attr,
                              const char* expected) {
    char* text = attr_text(node, attr);
    tch_status status = fail_with_text(L, node, attr, expected, text, "");
    xmlFree(text);
    return status;
}

static const char* const cosmetic_attributes[] = {
    "rgba",   "material", "group",        "user",         "texture",
    "hfield", "name",     "content_type", "smoothnormal", NULL};

static tch_status check_one_attribute(tch_mjcf_loader* L, const xmlNode* node, const xmlAttr* attr,
                                      const char* const* known, bool touche_contact) {
    const char* name = (const char*)attr->name;
    const char* element = (const char*)node->name;
    char key[96], message[200];
    if (attr->ns) {
        if (strcmp((const char*)attr->ns->href, TCH_MJCF_NAMESPACE) == 0 && !touche_contact) {
            tch_mjcf_warn(L, node, "attribute touche:%s is not supported on <%s>; ignored", name,
                          element);
        }
        return TCH_OK;
    }
    const char* colon = strchr(name, ':');
    if (colon) {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "attribute '%s' uses the undeclared prefix '%.*s' (expected "
                             "xmlns:%.*s=\"%s\" on <mujoco>)",
                             name, (int)(colon - name), name, (int)(colon - name), name,
                             TCH_MJCF_NAMESPACE);
    }
    if (in_list(known, name) || in_list(cosmetic_attributes, name)) {
        return TCH_OK;
    }
    snprintf(key, sizeof key, "attribute %s/%s", element, name);
    snprintf(message, sizeof message,
             "attribute '%s' of <%s> is ignored: touche does not support it yet (warned once)",
             name, element);
    tch_mjcf_warn_once(L, node, key, message);
    return TCH_OK;
}

tch_status tch_mjcf_check_attributes(tch_mjcf_loader* L, const xmlNode* node,
                                     const char* const* known, bool touche_contact) {
    for (const xmlAttr* attr = node->properties; attr; attr = attr->next) {
        tch_status status = check_one_attribute(L, node, attr, known, touche_contact);
        if (status != TCH_OK) {
            return status;
        }
    }
    return TCH_OK;
}

tch_status tch_mjcf_read_string(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                char* out, size_t size) {
    char* text = attr_text(node, name);
    if (!text) {
        return TCH_OK;
    }
    tch_status status = TCH_OK;
    if (strlen(text) >= size) {
        char expected[64];
        snprintf(expected, sizeof expected, "at most %zu characters", size - 1);
        status = fail_with_text(L, node, name, expected, text, "");
    } else {
        tch_copy_string(out, size, text);
    }
    xmlFree(text);
    return status;
}

/* ---- numbers ---- */

typedef enum number_result { NUMBERS_OK, NUMBERS_MALFORMED, NUMBERS_NOT_FINITE } number_result;

static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Parses whitespace-separated numbers; stores the first `max` in out (may be NULL) and counts
 * all of them in *count. The caller has set the C numeric locale. */
static number_result parse_numbers(const char* text, tch_real* out, int max, int* count) {
    *count = 0;
    const char* p = text;
    for (;;) {
        while (is_space(*p)) {
            ++p;
        }
        if (*p == '\0') {
            return NUMBERS_OK;
        }
        char* end;
        double value = strtod(p, &end);
        if (end == p || !(is_space(*end) || *end == '\0')) {
            return NUMBERS_MALFORMED;
        }
        if (!isfinite(value)) {
            return NUMBERS_NOT_FINITE;
        }
        if (out && *count < max) {
            out[*count] = value;
        }
        ++*count;
        p = end;
    }
}

static tch_status fail_numbers(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                               const char* expected, const char* text, number_result result) {
    return fail_with_text(L, node, name, expected, text,
                          result == NUMBERS_NOT_FINITE ? " (NaN and infinity are not allowed)"
                                                       : "");
}

tch_status tch_mjcf_read_reals(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                               tch_real* out, int min_count, int max_count, int* count,
                               const char* expected) {
    int local_count = 0;
    int* n = count ? count : &local_count;
    *n = 0;
    char* text = attr_text(node, name);
    if (!text) {
        return TCH_OK;
    }
    tch_real values[16];
    int max = max_count < 16 ? max_count : 16;
    number_result result = parse_numbers(text, values, max, n);
    tch_status status = TCH_OK;
    if (result != NUMBERS_OK || *n < min_count || *n > max_count) {
        status = fail_numbers(L, node, name, expected, text, result);
        *n = 0;
    } else {
        memcpy(out, values, (size_t)*n * sizeof *out);
    }
    xmlFree(text);
    return status;
}

tch_status tch_mjcf_read_real_array(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                    tch_real** out, int* count) {
    *out = NULL;
    *count = 0;
    char* text = attr_text(node, name);
    if (!text) {
        return TCH_OK;
    }
    int n = 0;
    number_result result = parse_numbers(text, NULL, 0, &n);
    tch_status status = TCH_OK;
    if (result != NUMBERS_OK) {
        status = fail_numbers(L, node, name, "a list of numbers", text, result);
    } else if (n > 0) {
        *out = malloc((size_t)n * sizeof **out);
        if (!*out) {
            status = tch_mjcf_fail(L, node, TCH_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
        } else {
            parse_numbers(text, *out, n, count);
        }
    }
    xmlFree(text);
    return status;
}

tch_status tch_mjcf_read_nonnegative(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                     bool strict, tch_real* out) {
    const char* expected = strict ? "a number > 0" : "a number >= 0";
    tch_real value;
    int count = 0;
    tch_status status = tch_mjcf_read_reals(L, node, name, &value, 1, 1, &count, expected);
    if (status != TCH_OK || count == 0) {
        return status;
    }
    if (strict ? !(value > 0) : !(value >= 0)) {
        return tch_mjcf_fail_attr(L, node, name, expected);
    }
    *out = value;
    return TCH_OK;
}

tch_status tch_mjcf_read_solref(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                tch_real out[2]) {
    static const char* const expected = "a positive time constant and damping ratio";
    tch_real value[2];
    int count = 0;
    tch_status status = tch_mjcf_read_reals(L, node, name, value, 2, 2, &count,
                                            "2 numbers (time constant, damping ratio)");
    if (status != TCH_OK || count == 0) {
        return status;
    }
    if (!(value[0] > 0 && value[1] > 0)) {
        return tch_mjcf_fail_attr(L, node, name, expected);
    }
    out[0] = value[0];
    out[1] = value[1];
    return TCH_OK;
}

tch_status tch_mjcf_read_bitmask(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                 int* out) {
    char* text = attr_text(node, name);
    if (!text) {
        return TCH_OK;
    }
    char* end;
    errno = 0;
    long value = strtol(text, &end, 10);
    while (is_space(*end)) {
        ++end;
    }
    bool ok = end != text && *end == '\0' && errno == 0 && value >= 0 && value <= INT_MAX;
    tch_status status = ok ? TCH_OK : fail_with_text(L, node, name, "an integer >= 0", text, "");
    if (ok) {
        *out = (int)value;
    }
    xmlFree(text);
    return status;
}

tch_status tch_mjcf_read_keyword(tch_mjcf_loader* L, const xmlNode* node, const char* name,
                                 const char* const* choices, int* index) {
    char* text = attr_text(node, name);
    if (!text) {
        return TCH_OK;
    }
    char expected[200] = "one of";
    for (int i = 0; choices[i]; ++i) {
        if (strcmp(text, choices[i]) == 0) {
            *index = i;
            xmlFree(text);
            return TCH_OK;
        }
        size_t used = strlen(expected);
        snprintf(expected + used, sizeof expected - used, "%s %s", i ? "," : "", choices[i]);
    }
    tch_status status = fail_with_text(L, node, name, expected, text, "");
    xmlFree(text);
    return status;
}

/* ---- orientations ---- */

tch_quat tch_mjcf_quat_z_to(tch_vec3 v) {
    tch_vec3 d = tch_v3_normalize(v);
    tch_vec3 axis = {-d.y, d.x, 0}; /* z x d */
    tch_real s = tch_v3_norm(axis);
    if (s < 1e-12) {
        return d.z > 0 ? tch_q_identity() : (tch_quat){0, 1, 0, 0};
    }
    return tch_q_axis_angle(tch_v3_scale(axis, 1 / s), atan2(s, d.z));
}

static tch_real to_radians(const tch_mjcf_loader* L, tch_real angle) {
    return L->angle_degrees ? angle * (TCH_PI / 180.0) : angle;
}

/* Composes elementary rotations in the compiler's eulerseq: a lower-case axis rotates with the
 * frame (intrinsic, q = q r), an upper-case one is fixed (extrinsic, q = r q), as in MuJoCo. */
static tch_quat quat_from_euler(const tch_mjcf_loader* L, const tch_real angles[3]) {
    tch_quat q = tch_q_identity();
    for (int i = 0; i < 3; ++i) {
        char axis_name = L->euler_seq[i];
        char lower = (char)(axis_name | 0x20);
        tch_vec3 axis = {lower == 'x', lower == 'y', lower == 'z'};
        tch_quat r = tch_q_axis_angle(axis, to_radians(L, angles[i]));
        q = axis_name == lower ? tch_q_mul(q, r) : tch_q_mul(r, q);
    }
    return q;
}

/* Frame whose x axis is along x and whose y axis is y made orthogonal to x (Gram-Schmidt). */
static bool quat_from_xyaxes(const tch_real v[6], tch_quat* q) {
    tch_vec3 x = {v[0], v[1], v[2]}, y = {v[3], v[4], v[5]};
    tch_real nx = tch_v3_norm(x);
    if (!(nx > 1e-12)) {
        return false;
    }
    x = tch_v3_scale(x, 1 / nx);
    y = tch_v3_madd(y, -tch_v3_dot(x, y), x);
    tch_real ny = tch_v3_norm(y);
    if (!(ny > 1e-12)) {
        return false;
    }
    y = tch_v3_scale(y, 1 / ny);
    tch_vec3 z = tch_v3_cross(x, y);
    tch_mat3 R = {{{x.x, y.x, z.x}, {x.y, y.y, z.y}, {x.z, y.z, z.z}}};
    *q = tch_q_from_mat3(R);
    return true;
}

typedef enum orientation_kind {
    ORIENT_QUAT,
    ORIENT_AXISANGLE,
    ORIENT_EULER,
    ORIENT_XYAXES,
    ORIENT_ZAXIS,
    ORIENT_COUNT
} orientation_kind;

static const struct {
    const char* name;
    int count;
    const char* expected;
} orientation_formats[ORIENT_COUNT] = {
    [ORIENT_QUAT] = {"quat", 4, "4 numbers (w x y z), not all zero"},
    [ORIENT_AXISANGLE] = {"axisangle", 4, "4 numbers (axis x y z, angle) with a non-zero axis"},
    [ORIENT_EULER] = {"euler", 3, "3 angles"},
    [ORIENT_XYAXES] = {"xyaxes", 6, "6 numbers (x axis, y axis), not parallel"},
    [ORIENT_ZAXIS] = {"zaxis", 3, "3 numbers (z axis), not all zero"},
};

/* Converts the numbers of one orientation attribute; false when they are degenerate. */
static bool orientation_from(const tch_mjcf_loader* L, orientation_kind kind, const tch_real* v,
                             tch_quat* q) {
    tch_vec3 axis = {v[0], v[1], v[2]};
    switch (kind) {
    case ORIENT_QUAT:
        *q = (tch_quat){v[0], v[1], v[2], v[3]};
        return tch_q_norm(*q) > 1e-12;
    case ORIENT_AXISANGLE:
        if (!(tch_v3_norm(axis) > 1e-12)) {
            return false;
        }
        *q = tch_q_axis_angle(tch_v3_normalize(axis), to_radians(L, v[3]));
        return true;
    case ORIENT_EULER:
        *q = quat_from_euler(L, v);
        return true;
    case ORIENT_XYAXES:
        return quat_from_xyaxes(v, q);
    case ORIENT_ZAXIS:
        *q = tch_mjcf_quat_z_to(axis);
        return tch_v3_norm(axis) > 1e-12;
    case ORIENT_COUNT:
        break;
    }
    return false;
}

tch_status tch_mjcf_read_orientation(tch_mjcf_loader* L, const xmlNode* node, tch_quat* q) {
    int given = -1;
    for (int k = 0; k < ORIENT_COUNT; ++k) {
        if (!tch_mjcf_has_attr(node, orientation_formats[k].name)) {
            continue;
        }
        if (given >= 0) {
            return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                                 "has both %s and %s: expected at most one orientation",
                                 orientation_formats[given].name, orientation_formats[k].name);
        }
        given = k;
    }
    if (given < 0) {
        return TCH_OK;
    }
    const char* name = orientation_formats[given].name;
    const char* expected = orientation_formats[given].expected;
    int n = orientation_formats[given].count;
    tch_real v[6];
    tch_status status = tch_mjcf_read_reals(L, node, name, v, n, n, NULL, expected);
    if (status != TCH_OK) {
        return status;
    }
    if (!orientation_from(L, (orientation_kind)given, v, q)) {
        return tch_mjcf_fail_attr(L, node, name, expected);
    }
    return TCH_OK;
}

/* ---- touche contact attributes ---- */

typedef struct touche_real_attr {
    const char* name;
    size_t offset; /* in tch_contact_params */
    bool strict;   /* > 0 rather than >= 0 */
} touche_real_attr;

/* MJCF has its own geom and pair attributes for these (friction, margin): the touche ones are
 * accepted only on <option>, which has none. */
static const touche_real_attr touche_reals[] = {
#define TOUCHE_ATTR(field, positive, combine, doc) \
    {"touche:" #field, offsetof(tch_contact_params, field), positive},
    TCH_CONTACT_REAL_PARAMS(TOUCHE_ATTR)
#undef TOUCHE_ATTR
};

static bool scene_level_only(const touche_real_attr* a) {
    const char* field = a->name + sizeof "touche:" - 1;
    return strcmp(field, "friction") == 0 || strcmp(field, "margin") == 0;
}

static const char* const point_law_choices[] = {"linear", "hunt-crossley", NULL};

/* Attributes of <option> alone that are not contact parameters (read by load_option). */
static const char* const touche_option_attrs[] = {"solver", "iterations", "tolerance",
                                                   "rtol", "atol", "planar", NULL};

static bool is_known_touche_attr(const char* local_name, bool scene_level) {
    if (strcmp(local_name, "contact") == 0 || strcmp(local_name, "law") == 0 ||
        strcmp(local_name, "rigid") == 0 || strcmp(local_name, "tetmesh") == 0) {
        return true;
    }
    for (int i = 0; scene_level && touche_option_attrs[i]; ++i) {
        if (strcmp(local_name, touche_option_attrs[i]) == 0) {
            return true;
        }
    }
    for (size_t i = 0; i < sizeof touche_reals / sizeof touche_reals[0]; ++i) {
        const touche_real_attr* a = &touche_reals[i];
        if (strcmp(a->name + sizeof touche_prefix - 1, local_name) == 0) {
            return scene_level || !scene_level_only(a);
        }
    }
    return false;
}

static tch_status read_touche_enums(tch_mjcf_loader* L, const xmlNode* node,
                                    tch_contact_params* params) {
    enum { MODEL_COUNT = TCH_CONTACT_MODEL_END - TCH_CONTACT_POINT };
    const char* model_choices[MODEL_COUNT + 1] = {NULL}; /* the models' names, NULL last */
    for (int i = 0; i < MODEL_COUNT; ++i) {
        model_choices[i] = tch_contact_model_name((tch_contact_model)(TCH_CONTACT_POINT + i));
    }
    int index = -1;
    tch_status status =
        tch_mjcf_read_keyword(L, node, "touche:contact", model_choices, &index);
    if (status == TCH_OK && index >= 0) {
        params->model = (tch_contact_model)(TCH_CONTACT_POINT + index);
    }
    index = -1;
    if (status == TCH_OK) {
        status = tch_mjcf_read_keyword(L, node, "touche:law", point_law_choices, &index);
    }
    if (status == TCH_OK && index >= 0) {
        tch_point_law_parse(point_law_choices[index], &params->law);
    }
    static const char* const rigid_choices[] = {"false", "true", NULL};
    index = -1;
    if (status == TCH_OK) {
        status = tch_mjcf_read_keyword(L, node, "touche:rigid", rigid_choices, &index);
    }
    if (status == TCH_OK && index >= 0) {
        params->rigid = index == 1 ? TCH_RIGIDITY_RIGID : TCH_RIGIDITY_COMPLIANT;
    }
    return status;
}

tch_status tch_mjcf_read_touche_contact(tch_mjcf_loader* L, const xmlNode* node, bool scene_level,
                                        tch_contact_params* params) {
    tch_status status = read_touche_enums(L, node, params);
    for (size_t i = 0; status == TCH_OK && i < sizeof touche_reals / sizeof touche_reals[0]; ++i) {
        const touche_real_attr* a = &touche_reals[i];
        if (scene_level || !scene_level_only(a)) {
            tch_real* field = (tch_real*)((char*)params + a->offset);
            status = tch_mjcf_read_nonnegative(L, node, a->name, a->strict, field);
        }
    }
    for (const xmlAttr* attr = node->properties; status == TCH_OK && attr; attr = attr->next) {
        if (attr->ns && strcmp((const char*)attr->ns->href, TCH_MJCF_NAMESPACE) == 0 &&
            !is_known_touche_attr((const char*)attr->name, scene_level)) {
            tch_mjcf_warn(L, node, "unknown attribute touche:%s of <%s> ignored",
                          (const char*)attr->name, (const char*)node->name);
        }
    }
    return status;
}

/* ---- spec calls ---- */

tch_status tch_mjcf_spec_status(tch_mjcf_loader* L, const xmlNode* node, tch_status status) {
    if (status != TCH_OK) {
        tch_error_set_element(L->err, (const char*)node->name);
    }
    return status;
}

tch_source tch_mjcf_source(const tch_mjcf_loader* L, const xmlNode* node) {
    tch_source source;
    tch_copy_string(source.file, sizeof source.file, L->file);
    source.line = tch_mjcf_line(node);
    return source;
}
