/* MJCF body attributes for haptics: MuJoCo's mocap and touche's haptic settings (docs/mjcf.md,
 * "Haptic bodies"). */
#include <string.h>

#include "io/mjcf_internal.h"

static const char* const HAPTIC_ATTRIBUTES[] = {
    "haptic", "tool", "linear_stiffness", "linear_damping", "angular_stiffness",
    "angular_damping", "proxy_radius", NULL};

static bool is_haptic_attribute(const char* name) {
    for (int i = 0; HAPTIC_ATTRIBUTES[i]; ++i) {
        if (strcmp(name, HAPTIC_ATTRIBUTES[i]) == 0) {
            return true;
        }
    }
    return false;
}

static void warn_unknown_touche_attributes(tch_mjcf_loader* L, const xmlNode* node) {
    for (const xmlAttr* attr = node->properties; attr; attr = attr->next) {
        if (attr->ns && strcmp((const char*)attr->ns->href, TCH_MJCF_NAMESPACE) == 0 &&
            !is_haptic_attribute((const char*)attr->name)) {
            tch_mjcf_warn(L, node, "attribute touche:%s is not supported on <body>; ignored",
                          (const char*)attr->name);
        }
    }
}

/* The coupling gains and the proxy radius: stiffness and radius > 0, damping >= 0. */
static tch_status read_gains(tch_mjcf_loader* L, const xmlNode* node, tch_haptic_def* h) {
    struct {
        const char* name;
        bool strict;
        tch_real* out;
    } gains[] = {{"touche:linear_stiffness", true, &h->linear_stiffness},
                 {"touche:linear_damping", false, &h->linear_damping},
                 {"touche:angular_stiffness", true, &h->angular_stiffness},
                 {"touche:angular_damping", false, &h->angular_damping},
                 {"touche:proxy_radius", true, &h->proxy_radius}};
    tch_status status = TCH_OK;
    for (size_t i = 0; status == TCH_OK && i < sizeof gains / sizeof gains[0]; ++i) {
        status = tch_mjcf_read_nonnegative(L, node, gains[i].name, gains[i].strict, gains[i].out);
    }
    return status;
}

tch_status tch_mjcf_read_body_haptic(tch_mjcf_loader* L, const xmlNode* node, tch_body_def* def) {
    static const char* const booleans[] = {"false", "true", NULL};
    static const char* const renderers[] = {"proxy", "coupling", "pointer", NULL};
    warn_unknown_touche_attributes(L, node);
    int mocap = 0, renderer = -1;
    tch_status status = tch_mjcf_read_keyword(L, node, "mocap", booleans, &mocap);
    if (status == TCH_OK) {
        status = tch_mjcf_read_keyword(L, node, "touche:haptic", renderers, &renderer);
    }
    if (status == TCH_OK) {
        status = tch_mjcf_read_string(L, node, "touche:tool", def->haptic.tool,
                                      sizeof def->haptic.tool);
    }
    if (status == TCH_OK) {
        status = read_gains(L, node, &def->haptic);
    }
    def->mocap = mocap == 1;
    def->haptic.renderer = (tch_haptic_renderer)(renderer + 1); /* -1: TCH_HAPTIC_NONE */
    if (status == TCH_OK && def->haptic.renderer == TCH_HAPTIC_COUPLING &&
        def->haptic.tool[0] == '\0') {
        return tch_mjcf_fail(L, node, TCH_ERR_PARSE,
                             "touche:haptic=\"coupling\" needs touche:tool, the name of the free "
                             "body the device drives");
    }
    return status;
}
