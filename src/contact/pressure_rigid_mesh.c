/* A rigid mesh geom's own triangle surface for the pressure model (pressure_rigid_mesh.h). */
#include "contact/pressure_rigid_mesh.h"

#include <math.h>

#include "math/vec.h"

tch_status tch_pressure_rigid_mesh_read(const char* file, tch_vec3 scale, tch_transform X_MI,
                                        tch_real hull_volume, tch_mesh_surface* out, int* convex,
                                        tch_error* err) {
    *convex = 0;
    tch_status status = tch_mesh_surface_read(file, out, err);
    if (status != TCH_OK || out->triangle_count == 0) {
        return status;
    }
    /* checked in the file's frame, so that a message's coordinates are the file's */
    status = tch_mesh_surface_make_closed(out, file, err);
    if (status != TCH_OK) {
        tch_mesh_surface_free(out);
        return status;
    }
    for (int v = 0; v < out->vertex_count; ++v) {
        out->vertices[v] = tch_x_apply_inverse(X_MI, tch_v3_mul(out->vertices[v], scale));
    }
    if (scale.x * scale.y * scale.z < 0) {
        tch_mesh_surface_flip(out); /* a mirroring scale turns the surface inside out */
    }
    tch_real volume = tch_mesh_surface_volume(out);
    *convex = fabs(volume - hull_volume) <= TCH_PRESSURE_CONVEX_VOLUME_TOLERANCE * hull_volume;
    return TCH_OK;
}
