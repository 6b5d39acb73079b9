/* The scene's geometry as JSON, for the viewer (docs/viewer.md): `touche run` writes it as
 * OUT/scene.json and the live mode serves it. Shapes are given in their body frames; the body
 * poses over time are in trajectory.csv (or the live frames):
 *
 *   {"format":"touche-scene","version":1,"source":PATH,"timestep":S,"gravity":[x,y,z],
 *    "bodies":[{"name":N,"root":R,"mass":KG}, ...],            body 0 is the world
 *    "geoms":[{"name":N,"body":B,"type":"box","size":[a,b,c],"pos":[x,y,z],"quat":[w,x,y,z],
 *              "hull":{"vertices":[x,y,z,...],"faces":[[i,j,k,...],...]},   mesh geoms
 *              "tets":{"modulus":E,"vertices":[...],"triangles":[i,j,k,...]}}, ...]}
 *
 * "hull" is the convex hull the mesh geom collides with; "tets" the boundary of the pressure
 * model's tet mesh of a compliant geom (its surface triangles, outward), in the geom frame. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "viewer.h"

/* One face of a tet: its vertices sorted (the key) and in outward order. */
typedef struct tet_face {
    int key[3];
    int outward[3];
} tet_face;

static int compare_faces(const void* a, const void* b) {
    const int* x = ((const tet_face*)a)->key;
    const int* y = ((const tet_face*)b)->key;
    for (int i = 0; i < 3; ++i) {
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}

static void sort3(int k[3]) {
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2 - i; ++j) {
            if (k[j] > k[j + 1]) {
                int t = k[j];
                k[j] = k[j + 1];
                k[j + 1] = t;
            }
        }
    }
}

/* The boundary triangles of a positively oriented tet mesh: the faces that belong to one tet
 * only. For a tet (v0, v1, v2, v3) with det[v1 - v0, v2 - v0, v3 - v0] > 0 the outward faces
 * are (0 2 1), (0 1 3), (0 3 2) and (1 2 3). Returns 0 when out of memory. */
static int write_tet_surface(FILE* f, const tch_tetmesh* mesh) {
    static const int FACES[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    int tet_count = tch_tetmesh_tet_count(mesh);
    const int* tets = tch_tetmesh_tets(mesh);
    tet_face* faces = malloc((size_t)tet_count * 4 * sizeof *faces);
    if (!faces) return 0;
    for (int t = 0; t < tet_count; ++t) {
        for (int k = 0; k < 4; ++k) {
            tet_face* face = &faces[4 * t + k];
            for (int i = 0; i < 3; ++i) face->outward[i] = face->key[i] = tets[4 * t + FACES[k][i]];
            sort3(face->key);
        }
    }
    int n = 4 * tet_count, written = 0;
    qsort(faces, (size_t)n, sizeof *faces, compare_faces);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && compare_faces(&faces[i], &faces[j]) == 0) ++j;
        if (j == i + 1) {
            fprintf(f, "%s%d,%d,%d", written++ ? "," : "", faces[i].outward[0],
                    faces[i].outward[1], faces[i].outward[2]);
        }
        i = j;
    }
    free(faces);
    return 1;
}

static void write_points(FILE* f, const tch_vec3* points, int count) {
    for (int i = 0; i < count; ++i) {
        fprintf(f, "%s%.9g,%.9g,%.9g", i ? "," : "", points[i].x, points[i].y, points[i].z);
    }
}

static void write_hull(FILE* f, const tch_convex_hull* hull) {
    fprintf(f, ",\"hull\":{\"vertices\":[");
    write_points(f, hull->vertices_G, hull->vertex_count);
    fprintf(f, "],\"faces\":[");
    for (int k = 0; k < hull->face_count; ++k) {
        fprintf(f, "%s[", k ? "," : "");
        for (int i = hull->face_start[k]; i < hull->face_start[k + 1]; ++i) {
            fprintf(f, "%s%d", i > hull->face_start[k] ? "," : "", hull->face_vertices[i]);
        }
        fprintf(f, "]");
    }
    fprintf(f, "]}");
}

static int write_geom(FILE* f, const tch_model* m, int g) {
    const tch_transform* X = &m->geom_X_BG[g];
    fprintf(f, "{\"name\":");
    cli_json_string(f, m->geom_name[g]);
    fprintf(f, ",\"body\":%d,\"type\":\"%s\",\"size\":", m->geom_body[g],
            tch_geom_type_name((tch_geom_type)m->geom_type[g]));
    cli_json_vec3(f, (tch_vec3){m->geom_size[g][0], m->geom_size[g][1], m->geom_size[g][2]});
    fprintf(f, ",\"pos\":");
    cli_json_vec3(f, X->p);
    fprintf(f, ",\"quat\":[%.17g,%.17g,%.17g,%.17g]", X->q.w, X->q.x, X->q.y, X->q.z);
    if (m->geom_type[g] == TCH_GEOM_MESH && m->geom_mesh[g] >= 0) {
        write_hull(f, &m->mesh_hull[m->geom_mesh[g]]);
    }
    tch_real modulus = 0;
    const tch_tetmesh* mesh = tch_model_geom_tetmesh(m, g, &modulus);
    if (mesh) {
        fprintf(f, ",\"tets\":{\"modulus\":%.9g,\"vertices\":[", modulus);
        write_points(f, tch_tetmesh_vertices(mesh), tch_tetmesh_vertex_count(mesh));
        fprintf(f, "],\"triangles\":[");
        if (!write_tet_surface(f, mesh)) return 0;
        fprintf(f, "]}");
    }
    fprintf(f, "}");
    return 1;
}

int cli_json_scene(FILE* f, const char* source, const tch_model* m) {
    fprintf(f, "{\"format\":\"touche-scene\",\"version\":1,\"source\":");
    cli_json_string(f, source);
    fprintf(f, ",\"timestep\":%.17g,\"gravity\":", m->timestep);
    cli_json_vec3(f, m->gravity);
    fprintf(f, ",\"bodies\":[");
    for (int b = 0; b < m->body_count; ++b) {
        fprintf(f, "%s{\"name\":", b ? "," : "");
        cli_json_string(f, b == 0 ? "world" : m->body_name[b]);
        fprintf(f, ",\"root\":%d,\"mass\":%.17g}", m->body_root[b], m->body_mass[b]);
    }
    fprintf(f, "],\"geoms\":[");
    for (int g = 0; g < m->geom_count; ++g) {
        if (g) fprintf(f, ",");
        if (!write_geom(f, m, g)) return 0;
    }
    fprintf(f, "]}\n");
    return !ferror(f);
}
