/* A geom's surface as polygons, in the geom frame, for the files that draw bodies (cli/vtk.c,
 * cli/gltf.c): boxes and meshes (their convex hulls) exactly; spheres, ellipsoids, capsules and
 * cylinders as surfaces of revolution of 16 longitudes; planes as a square of their MJCF
 * half-sizes (1 m when 0). */
#include <math.h>

#include "cli.h"

enum { LONGITUDES = 16, PROFILE_MAX = 12 };
static const double PI = 3.14159265358979323846;

/* A surface of revolution about z: profile points (r, z) from bottom to top, scaled per axis. */
static void emit_revolution(const cli_surface_visitor* s, double (*profile)[2], int count,
                            tch_vec3 scale) {
    for (int j = 0; j < count; ++j) {
        for (int k = 0; k < LONGITUDES; ++k) {
            double phi = 2 * PI * k / LONGITUDES;
            s->point(s->context, (tch_vec3){scale.x * profile[j][0] * cos(phi),
                                     scale.y * profile[j][0] * sin(phi), scale.z * profile[j][1]});
        }
    }
    for (int j = 0; j + 1 < count; ++j) {
        for (int k = 0; k < LONGITUDES; ++k) {
            int k1 = (k + 1) % LONGITUDES;
            int quad[4] = {j * LONGITUDES + k, j * LONGITUDES + k1, (j + 1) * LONGITUDES + k1,
                           (j + 1) * LONGITUDES + k};
            if (profile[j][0] == 0) { /* a pole below: a triangle */
                int tri[3] = {quad[0], quad[2], quad[3]};
                s->polygon(s->context, tri, 3);
            } else if (profile[j + 1][0] == 0) { /* a pole above */
                s->polygon(s->context, quad, 3);
            } else {
                s->polygon(s->context, quad, 4);
            }
        }
    }
}

/* Profile of a sphere of radius r whose lower half is shifted by -half_length and upper half by
 * +half_length (a capsule; a sphere when half_length is 0). Returns the point count. */
static int rounded_profile(double r, double half_length, double (*profile)[2]) {
    int count = 0;
    for (int i = 0; i <= 8; ++i) {
        double theta = PI * i / 8;
        double z = -r * cos(theta);
        if (half_length > 0 && i == 4) { /* the equator twice: the cylinder between */
            profile[count][0] = r;
            profile[count++][1] = -half_length;
            profile[count][0] = r;
            profile[count++][1] = half_length;
            continue;
        }
        profile[count][0] = i == 0 || i == 8 ? 0 : r * sin(theta);
        profile[count++][1] = z + (i < 4 ? -half_length : half_length);
    }
    return count;
}

static void emit_box(const cli_surface_visitor* s, tch_vec3 h) {
    static const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                    {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int i = 0; i < 8; ++i) {
        s->point(s->context, (tch_vec3){i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z});
    }
    for (int f = 0; f < 6; ++f) s->polygon(s->context, faces[f], 4);
}

static void emit_hull(const cli_surface_visitor* s, const tch_convex_hull* hull) {
    for (int v = 0; v < hull->vertex_count; ++v) s->point(s->context, hull->vertices_G[v]);
    for (int f = 0; f < hull->face_count; ++f) {
        s->polygon(s->context, hull->face_vertices + hull->face_start[f],
                     hull->face_start[f + 1] - hull->face_start[f]);
    }
}

void cli_geom_surface(const tch_model* m, int g, const cli_surface_visitor* s) {
    const tch_real* size = m->geom_size[g];
    double profile[PROFILE_MAX][2];
    switch ((tch_geom_type)m->geom_type[g]) {
    case TCH_GEOM_PLANE: {
        double hx = size[0] > 0 ? size[0] : 1, hy = size[1] > 0 ? size[1] : 1;
        static const int square[4] = {0, 1, 2, 3};
        s->point(s->context, (tch_vec3){-hx, -hy, 0});
        s->point(s->context, (tch_vec3){hx, -hy, 0});
        s->point(s->context, (tch_vec3){hx, hy, 0});
        s->point(s->context, (tch_vec3){-hx, hy, 0});
        s->polygon(s->context, square, 4);
        break;
    }
    case TCH_GEOM_BOX: emit_box(s, (tch_vec3){size[0], size[1], size[2]}); break;
    case TCH_GEOM_SPHERE:
        emit_revolution(s, profile, rounded_profile(size[0], 0, profile), (tch_vec3){1, 1, 1});
        break;
    case TCH_GEOM_ELLIPSOID:
        emit_revolution(s, profile, rounded_profile(1, 0, profile),
                        (tch_vec3){size[0], size[1], size[2]});
        break;
    case TCH_GEOM_CAPSULE:
        emit_revolution(s, profile, rounded_profile(size[0], size[1], profile),
                        (tch_vec3){1, 1, 1});
        break;
    case TCH_GEOM_CYLINDER: {
        const double r = size[0], h = size[1];
        double sides[4][2] = {{0, -h}, {r, -h}, {r, h}, {0, h}};
        emit_revolution(s, sides, 4, (tch_vec3){1, 1, 1});
        break;
    }
    case TCH_GEOM_MESH: emit_hull(s, &m->mesh_hull[m->geom_mesh[g]]); break;
    default: break;
    }
}
