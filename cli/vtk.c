/* Contact patches as VTK legacy PolyData files, one per written step, for ParaView: the
 * polygons of every patch pair with a point field "pressure" (Pa). Each file is written to a
 * temporary name and renamed when complete. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void write_polydata(FILE* f, const tch_data* d, double t) {
    fprintf(f, "# vtk DataFile Version 3.0\ntouche contact patches at t = %.17g s\nASCII\n"
               "DATASET POLYDATA\nPOINTS %d double\n",
            t, d->polygon_vertex_count);
    for (int v = 0; v < d->polygon_vertex_count; ++v) {
        tch_vec3 p = d->polygon_vertices_W[v];
        fprintf(f, "%.17g %.17g %.17g\n", p.x, p.y, p.z);
    }
    fprintf(f, "POLYGONS %d %d\n", d->polygon_count, d->polygon_count + d->polygon_vertex_count);
    for (int i = 0; i < d->polygon_count; ++i) {
        const tch_contact_polygon* poly = &d->polygons[i];
        fprintf(f, "%d", poly->vertex_count);
        for (int v = 0; v < poly->vertex_count; ++v) {
            fprintf(f, " %d", poly->vertex_start + v);
        }
        fputc('\n', f);
    }
    fprintf(f, "POINT_DATA %d\nSCALARS pressure double 1\nLOOKUP_TABLE default\n",
            d->polygon_vertex_count);
    for (int v = 0; v < d->polygon_vertex_count; ++v) {
        fprintf(f, "%.17g\n", d->polygon_vertex_pressure[v]);
    }
}

int cli_write_vtk_patches(const char* dir, long index, const tch_data* d, double t) {
    char path[1024], temp[1100];
    snprintf(path, sizeof path, "%s/patches_%06ld.vtk", dir, index);
    snprintf(temp, sizeof temp, "%s.tmp%ld", path, (long)getpid());
    FILE* f = fopen(temp, "w");
    if (!f) {
        fprintf(stderr, "touche run: cannot write %s: %s\n", temp, strerror(errno));
        return 0;
    }
    write_polydata(f, d, t);
    int ok = !ferror(f);
    ok &= fclose(f) == 0;
    if (!ok || rename(temp, path) != 0) {
        remove(temp);
        fprintf(stderr, "touche run: could not complete %s\n", path);
        return 0;
    }
    return 1;
}
