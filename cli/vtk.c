/* touche run --vtk DIR: ParaView files of a run, VTK XML (ASCII), per written step index N:
 *
 *     bodies_N.vtp    every geom's surface in the world (cell data: geom, body)
 *     tets_N.vtu      the pressure model's compliant geoms: their tet meshes in the world with
 *                     the penetration extent ε and the pressure field p₀ = E ε (point data)
 *     patches_N.vtp   the contact patches with the pressure at each vertex (Pa)
 *     run.pvd         the time series of all three (parts 0, 1, 2), written when the run ends
 *
 * Bodies and tet meshes are the state at the start of the step, patches the contacts of that
 * step, all under the step's start time. Surfaces of curved primitives are drawn as surfaces of
 * revolution and planes as a square (cli/surface.c). Each file is written under a temporary
 * name and renamed when complete. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "cli.h"
#include "cli_math.h"


/* X_WG = X_WB X_BG at the data's current state. */
static tch_transform geom_pose(const tch_model* m, const tch_data* d, int g) {
    tch_transform X_WB;
    tch_vec3 v, w;
    tch_data_body_state(m, d, m->geom_body[g], &X_WB, &v, &w);
    const tch_transform* X_BG = &m->geom_X_BG[g];
    return (tch_transform){cli_quat_multiply(X_WB.q, X_BG->q), cli_apply(&X_WB, X_BG->p)};
}

/* ---- surfaces through a sink ----
 * A geom's surface is emitted as points (in the geom frame) and polygons over them. The same
 * emission runs once per section of the file: the sink counts, or writes points, connectivity,
 * offsets or the polygons' geom and body. */

typedef enum { SINK_COUNT, SINK_POINTS, SINK_CONNECTIVITY, SINK_OFFSETS, SINK_GEOM,
               SINK_BODY } sink_mode;

typedef struct surface_sink {
    sink_mode mode;
    FILE* f;
    tch_transform X_WG;
    int geom, body;
    int point_count;   /* points emitted so far (all geoms) */
    int point_base;    /* first point of the current geom */
    int polygon_count;
    int offset;        /* running end offset of the connectivity */
} surface_sink;

static void sink_point(void* context, tch_vec3 p_G) {
    surface_sink* s = context;
    if (s->mode == SINK_POINTS) {
        tch_vec3 p = cli_apply(&s->X_WG, p_G);
        fprintf(s->f, "%.9g %.9g %.9g\n", p.x, p.y, p.z);
    }
    s->point_count++;
}

static void sink_polygon(void* context, const int* local, int n) {
    surface_sink* s = context;
    s->polygon_count++;
    s->offset += n;
    switch (s->mode) {
    case SINK_CONNECTIVITY:
        for (int i = 0; i < n; ++i) fprintf(s->f, "%d ", s->point_base + local[i]);
        fputc('\n', s->f);
        break;
    case SINK_OFFSETS: fprintf(s->f, "%d\n", s->offset); break;
    case SINK_GEOM: fprintf(s->f, "%d\n", s->geom); break;
    case SINK_BODY: fprintf(s->f, "%d\n", s->body); break;
    default: break;
    }
}

/* Runs the emission of every geom's surface in one mode. */
static void emit_all(surface_sink* s, sink_mode mode, const tch_model* m, const tch_data* d) {
    s->mode = mode;
    s->point_count = s->polygon_count = s->offset = 0;
    for (int g = 0; g < m->geom_count; ++g) {
        s->X_WG = geom_pose(m, d, g);
        s->geom = g;
        s->body = m->geom_body[g];
        s->point_base = s->point_count;
        cli_geom_surface(m, g, &(cli_surface_visitor){sink_point, sink_polygon, s});
    }
}

/* ---- VTK XML pieces ---- */

static void begin_file(FILE* f, const char* type) {
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"%s\" version=\"0.1\" "
               "byte_order=\"LittleEndian\">\n<%s>\n", type, type);
}

static void end_file(FILE* f, const char* type) {
    fprintf(f, "</Piece>\n</%s>\n</VTKFile>\n", type);
}

static void begin_array(FILE* f, const char* type, const char* name, int components) {
    fprintf(f, "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n",
            type, name, components);
}

static void end_array(FILE* f) { fputs("</DataArray>\n", f); }

/* One data array of the bodies' file: the emission in `mode`. */
static void emit_array(surface_sink* s, sink_mode mode, const char* type, const char* name,
                       int components, const tch_model* m, const tch_data* d) {
    begin_array(s->f, type, name, components);
    emit_all(s, mode, m, d);
    end_array(s->f);
}

static void write_bodies(FILE* f, const tch_model* m, const tch_data* d) {
    surface_sink s = {.f = f};
    emit_all(&s, SINK_COUNT, m, d);
    begin_file(f, "PolyData");
    fprintf(f, "<Piece NumberOfPoints=\"%d\" NumberOfVerts=\"0\" NumberOfLines=\"0\" "
               "NumberOfStrips=\"0\" NumberOfPolys=\"%d\">\n", s.point_count, s.polygon_count);
    fputs("<CellData Scalars=\"body\">\n", f);
    emit_array(&s, SINK_BODY, "Int32", "body", 1, m, d);
    emit_array(&s, SINK_GEOM, "Int32", "geom", 1, m, d);
    fputs("</CellData>\n<Points>\n", f);
    emit_array(&s, SINK_POINTS, "Float64", "points", 3, m, d);
    fputs("</Points>\n<Polys>\n", f);
    emit_array(&s, SINK_CONNECTIVITY, "Int32", "connectivity", 1, m, d);
    emit_array(&s, SINK_OFFSETS, "Int32", "offsets", 1, m, d);
    fputs("</Polys>\n", f);
    end_file(f, "PolyData");
}

/* The tet meshes of the compliant geoms; each geom's vertices follow the previous geom's. */
static void write_tets(FILE* f, const tch_model* m, const tch_data* d) {
    int points = 0, cells = 0;
    for (int g = 0; g < m->geom_count; ++g) {
        const tch_tetmesh* mesh = tch_model_geom_tetmesh(m, g, NULL);
        if (mesh) {
            points += tch_tetmesh_vertex_count(mesh);
            cells += tch_tetmesh_tet_count(mesh);
        }
    }
    begin_file(f, "UnstructuredGrid");
    fprintf(f, "<Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", points, cells);
    fputs("<PointData Scalars=\"pressure\">\n", f);
    begin_array(f, "Float64", "pressure", 1);
    for (int g = 0; g < m->geom_count; ++g) {
        double modulus = 0;
        const tch_tetmesh* mesh = tch_model_geom_tetmesh(m, g, &modulus);
        for (int v = 0; mesh && v < tch_tetmesh_vertex_count(mesh); ++v) {
            fprintf(f, "%.9g\n", modulus * tch_tetmesh_epsilon(mesh)[v]);
        }
    }
    end_array(f);
    begin_array(f, "Float64", "epsilon", 1);
    for (int g = 0; g < m->geom_count; ++g) {
        const tch_tetmesh* mesh = tch_model_geom_tetmesh(m, g, NULL);
        for (int v = 0; mesh && v < tch_tetmesh_vertex_count(mesh); ++v) {
            fprintf(f, "%.9g\n", tch_tetmesh_epsilon(mesh)[v]);
        }
    }
    end_array(f);
    fputs("</PointData>\n<CellData>\n", f);
    begin_array(f, "Int32", "geom", 1);
    for (int g = 0; g < m->geom_count; ++g) {
        const tch_tetmesh* mesh = tch_model_geom_tetmesh(m, g, NULL);
        for (int t = 0; mesh && t < tch_tetmesh_tet_count(mesh); ++t) fprintf(f, "%d\n", g);
    }
    end_array(f);
    fputs("</CellData>\n<Points>\n", f);
    begin_array(f, "Float64", "points", 3);
    for (int g = 0; g < m->geom_count; ++g) {
        const tch_tetmesh* mesh = tch_model_geom_tetmesh(m, g, NULL);
        tch_transform X_WG = geom_pose(m, d, g);
        for (int v = 0; mesh && v < tch_tetmesh_vertex_count(mesh); ++v) {
            tch_vec3 p = cli_apply(&X_WG, tch_tetmesh_vertices(mesh)[v]);
            fprintf(f, "%.9g %.9g %.9g\n", p.x, p.y, p.z);
        }
    }
    end_array(f);
    fputs("</Points>\n<Cells>\n", f);
    begin_array(f, "Int32", "connectivity", 1);
    for (int g = 0, base = 0; g < m->geom_count; ++g) {
        const tch_tetmesh* mesh = tch_model_geom_tetmesh(m, g, NULL);
        if (!mesh) continue;
        const int* tets = tch_tetmesh_tets(mesh);
        for (int t = 0; t < tch_tetmesh_tet_count(mesh); ++t) {
            fprintf(f, "%d %d %d %d\n", base + tets[4 * t], base + tets[4 * t + 1],
                    base + tets[4 * t + 2], base + tets[4 * t + 3]);
        }
        base += tch_tetmesh_vertex_count(mesh);
    }
    end_array(f);
    begin_array(f, "Int32", "offsets", 1);
    for (int c = 1; c <= cells; ++c) fprintf(f, "%d\n", 4 * c);
    end_array(f);
    begin_array(f, "UInt8", "types", 1);
    for (int c = 0; c < cells; ++c) fputs("10\n", f); /* VTK_TETRA */
    end_array(f);
    fputs("</Cells>\n", f);
    end_file(f, "UnstructuredGrid");
}

static void write_patches(FILE* f, const tch_data* d) {
    begin_file(f, "PolyData");
    fprintf(f, "<Piece NumberOfPoints=\"%d\" NumberOfVerts=\"0\" NumberOfLines=\"0\" "
               "NumberOfStrips=\"0\" NumberOfPolys=\"%d\">\n",
            d->polygon_vertex_count, d->polygon_count);
    fputs("<PointData Scalars=\"pressure\">\n", f);
    begin_array(f, "Float64", "pressure", 1);
    for (int v = 0; v < d->polygon_vertex_count; ++v) {
        fprintf(f, "%.9g\n", d->polygon_vertex_pressure[v]);
    }
    end_array(f);
    fputs("</PointData>\n<Points>\n", f);
    begin_array(f, "Float64", "points", 3);
    for (int v = 0; v < d->polygon_vertex_count; ++v) {
        tch_vec3 p = d->polygon_vertices_W[v];
        fprintf(f, "%.17g %.17g %.17g\n", p.x, p.y, p.z);
    }
    end_array(f);
    fputs("</Points>\n<Polys>\n", f);
    begin_array(f, "Int32", "connectivity", 1);
    for (int i = 0; i < d->polygon_count; ++i) {
        const tch_contact_polygon* poly = &d->polygons[i];
        for (int v = 0; v < poly->vertex_count; ++v) fprintf(f, "%d ", poly->vertex_start + v);
        fputc('\n', f);
    }
    end_array(f);
    begin_array(f, "Int32", "offsets", 1);
    for (int i = 0; i < d->polygon_count; ++i) {
        fprintf(f, "%d\n", d->polygons[i].vertex_start + d->polygons[i].vertex_count);
    }
    end_array(f);
    fputs("</Polys>\n", f);
    end_file(f, "PolyData");
}

/* ---- files and the series ---- */

/* DIR/<prefix>_<index>.<extension>; adds its entry to the series. Returns 0 after printing. */
static int write_step_file(cli_vtk* vtk, const char* prefix, const char* extension, long index,
                           double t, int part, void (*write)(FILE*, const void*, const void*),
                           const void* a, const void* b) {
    char name[128], path[1024];
    snprintf(name, sizeof name, "%s_%06ld.%s", prefix, index, extension);
    snprintf(path, sizeof path, "%s/%s", vtk->dir, name);
    cli_output_file out;
    if (!cli_open_output(&out, path, "run")) return 0;
    write(out.f, a, b);
    if (!cli_finish_output(&out, 1, "run")) return 0;
    fprintf(vtk->pvd.f, "<DataSet timestep=\"%.17g\" part=\"%d\" file=\"%s\"/>\n", t, part, name);
    return 1;
}

static void bodies_writer(FILE* f, const void* model, const void* data) {
    write_bodies(f, model, data);
}

static void tets_writer(FILE* f, const void* model, const void* data) {
    write_tets(f, model, data);
}

static void patches_writer(FILE* f, const void* data, const void* unused) {
    (void)unused;
    write_patches(f, data);
}

int cli_vtk_start(cli_vtk* vtk, const char* dir, const tch_model* model) {
    vtk->dir = dir;
    vtk->has_tets = 0;
    for (int g = 0; g < model->geom_count; ++g) {
        vtk->has_tets |= tch_model_geom_tetmesh(model, g, NULL) != NULL;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/run.pvd", dir);
    if (!cli_open_output(&vtk->pvd, path, "run")) return 0;
    fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
          "byte_order=\"LittleEndian\">\n<Collection>\n",
          vtk->pvd.f);
    return 1;
}

int cli_vtk_write_state(cli_vtk* vtk, long index, const tch_model* model, const tch_data* data) {
    double t = data->time;
    return write_step_file(vtk, "bodies", "vtp", index, t, 0, bodies_writer, model, data) &&
           (!vtk->has_tets ||
            write_step_file(vtk, "tets", "vtu", index, t, 1, tets_writer, model, data));
}

int cli_vtk_write_patches(cli_vtk* vtk, long index, const tch_data* data, double t) {
    return write_step_file(vtk, "patches", "vtp", index, t, 2, patches_writer, data, NULL);
}

int cli_vtk_finish(cli_vtk* vtk, int how) {
    if (!vtk->pvd.f) return 1;
    fputs("</Collection>\n</VTKFile>\n", vtk->pvd.f);
    return cli_finish_output(&vtk->pvd, how, "run");
}
