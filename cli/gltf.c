/* touche run --gltf FILE: a glTF 2.0 animation of the run's bodies (Khronos glTF 2.0
 * specification). FILE.gltf is JSON with its binary buffer embedded as a base64 data URI;
 * FILE.glb is the binary container (a JSON chunk and a BIN chunk).
 *
 * The scene: one node per body, animated by a translation and a rotation channel sampled at
 * the run's written states (LINEAR: slerp between rotations), with a child node per geom at its
 * pose in the body (X_BG) carrying the geom's surface (cli/surface.c) as a triangle mesh; the
 * world's geoms are static nodes. touche's z is up and glTF's y: a root node turns the scene by
 * -90 degrees about x. Each body has its colour; materials are double-sided (planes are single
 * polygons). The poses are kept in memory while the run goes (28 bytes per body and written
 * state) and the file is written when the run ends, under a temporary name. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* glTF's constants: component types and buffer view targets. */
enum { GLTF_FLOAT = 5126, GLTF_UNSIGNED_INT = 5125, GLTF_ARRAY_BUFFER = 34962,
       GLTF_ELEMENT_ARRAY_BUFFER = 34963 };

/* The body colours, cycled (linear RGB). */
static const float PALETTE[][3] = {{0.80f, 0.33f, 0.20f}, {0.20f, 0.45f, 0.80f},
                                   {0.30f, 0.70f, 0.35f}, {0.85f, 0.70f, 0.20f},
                                   {0.55f, 0.35f, 0.75f}, {0.25f, 0.70f, 0.70f}};
enum { PALETTE_SIZE = (int)(sizeof PALETTE / sizeof PALETTE[0]) };

/* ---- a growing byte buffer ---- */

typedef struct bytes {
    unsigned char* data;
    size_t size, capacity;
    int failed;
} bytes;

static void bytes_append(bytes* b, const void* data, size_t size) {
    if (b->failed) return;
    if (b->size + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->size + size) capacity *= 2;
        unsigned char* grown = realloc(b->data, capacity);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, data, size);
    b->size += size;
}

static void bytes_float(bytes* b, double x) {
    float f = (float)x;
    bytes_append(b, &f, sizeof f);
}

/* ---- the run's poses ---- */

int cli_gltf_start(cli_gltf* gltf, const char* path, const tch_model* model) {
    *gltf = (cli_gltf){.bodies = model->body_count - 1};
    snprintf(gltf->path, sizeof gltf->path, "%s", path);
    size_t length = strlen(path);
    gltf->binary = length > 4 && strcmp(path + length - 4, ".glb") == 0;
    if (!gltf->binary && !(length > 5 && strcmp(path + length - 5, ".gltf") == 0)) {
        fprintf(stderr, "touche run: --gltf %s: the file name must end in .gltf (JSON) or .glb "
                        "(binary)\n", path);
        return 0;
    }
    return 1;
}

int cli_gltf_write_state(cli_gltf* gltf, const tch_model* m, const tch_data* d) {
    bytes* poses = gltf->poses;
    if (!poses) {
        poses = gltf->poses = calloc(1, sizeof *poses);
        if (!poses) return 0;
    }
    bytes_float(poses, d->time);
    for (int b = 1; b < m->body_count; ++b) {
        tch_transform X;
        tch_vec3 v, w;
        tch_data_body_state(m, d, b, &X, &v, &w);
        const double pose[7] = {X.p.x, X.p.y, X.p.z, X.q.x, X.q.y, X.q.z, X.q.w};
        for (int k = 0; k < 7; ++k) bytes_float(poses, pose[k]);
    }
    gltf->states++;
    if (poses->failed) fprintf(stderr, "touche run: --gltf: out of memory for the poses\n");
    return !poses->failed;
}

/* The pose of body b (1-based) at state s: 7 floats (x y z qx qy qz qw). */
static const float* body_pose(const cli_gltf* gltf, long s, int b) {
    const float* state = (const float*)gltf->poses->data + s * (1 + 7 * gltf->bodies);
    return state + 1 + 7 * (b - 1);
}

/* ---- the geoms' triangle meshes ---- */

typedef struct mesh_builder {
    bytes positions, indices;
    int point_count;
    float low[3], high[3];
} mesh_builder;

static void mesh_point(void* context, tch_vec3 p_G) {
    mesh_builder* mb = context;
    const float p[3] = {(float)p_G.x, (float)p_G.y, (float)p_G.z};
    for (int k = 0; k < 3; ++k) {
        mb->low[k] = mb->point_count ? fminf(mb->low[k], p[k]) : p[k];
        mb->high[k] = mb->point_count ? fmaxf(mb->high[k], p[k]) : p[k];
    }
    bytes_append(&mb->positions, p, sizeof p);
    mb->point_count++;
}

/* A convex polygon as a fan of triangles. */
static void mesh_polygon(void* context, const int* points, int count) {
    mesh_builder* mb = context;
    for (int i = 1; i + 1 < count; ++i) {
        const uint32_t triangle[3] = {(uint32_t)points[0], (uint32_t)points[i],
                                      (uint32_t)points[i + 1]};
        bytes_append(&mb->indices, triangle, sizeof triangle);
    }
}

/* ---- the JSON ---- */

/* What the buffer holds, in order: per geom its positions and indices, then the times, then per
 * body its translations and rotations. Offsets and sizes in bytes. */
typedef struct geom_mesh {
    size_t position_offset, index_offset;
    int point_count, index_count;
    float low[3], high[3];
} geom_mesh;

typedef struct layout {
    geom_mesh* geoms;  /* [geom_count] */
    size_t times_offset, poses_offset;
} layout;

static void json_floats(FILE* f, const float* x, int n) {
    fputc('[', f);
    for (int i = 0; i < n; ++i) fprintf(f, "%s%.9g", i ? "," : "", (double)x[i]);
    fputc(']', f);
}

/* Appends every geom's mesh and the animation's samples to the buffer; fills the layout. */
static int build_buffer(const cli_gltf* gltf, const tch_model* m, bytes* buffer, layout* lay) {
    for (int g = 0; g < m->geom_count; ++g) {
        mesh_builder mb = {0};
        cli_geom_surface(m, g, &(cli_surface_visitor){mesh_point, mesh_polygon, &mb});
        geom_mesh* gm = &lay->geoms[g];
        gm->position_offset = buffer->size;
        bytes_append(buffer, mb.positions.data, mb.positions.size);
        gm->index_offset = buffer->size;
        bytes_append(buffer, mb.indices.data, mb.indices.size);
        gm->point_count = mb.point_count;
        gm->index_count = (int)(mb.indices.size / sizeof(uint32_t));
        memcpy(gm->low, mb.low, sizeof mb.low);
        memcpy(gm->high, mb.high, sizeof mb.high);
        int failed = mb.positions.failed || mb.indices.failed;
        free(mb.positions.data);
        free(mb.indices.data);
        if (failed) return 0;
    }
    lay->times_offset = buffer->size;
    for (long s = 0; s < gltf->states; ++s) {
        bytes_append(buffer, (const float*)gltf->poses->data + s * (1 + 7 * gltf->bodies),
                     sizeof(float));
    }
    lay->poses_offset = buffer->size;
    for (int b = 1; b <= gltf->bodies; ++b) {
        for (long s = 0; s < gltf->states; ++s) bytes_append(buffer, body_pose(gltf, s, b), 12);
        for (long s = 0; s < gltf->states; ++s) bytes_append(buffer, body_pose(gltf, s, b) + 3, 16);
    }
    return !buffer->failed;
}

/* The buffer views and accessors: per geom with a surface, 2 of each (positions, indices); then
 * the times; then per body 2 (translations, rotations). Accessor i uses buffer view i. */
static void write_accessors(FILE* f, const cli_gltf* gltf, const tch_model* m, const layout* lay) {
    int first = 1;
    fputs(",\"bufferViews\":[", f);
    for (int g = 0; g < m->geom_count; ++g) {
        const geom_mesh* gm = &lay->geoms[g];
        if (gm->index_count == 0) continue;
        fprintf(f, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%d,\"target\":%d},"
                   "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%d,\"target\":%d}",
                first ? "" : ",", gm->position_offset, 12 * gm->point_count, GLTF_ARRAY_BUFFER,
                gm->index_offset, 4 * gm->index_count, GLTF_ELEMENT_ARRAY_BUFFER);
        first = 0;
    }
    fprintf(f, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%ld}", first ? "" : ",",
            lay->times_offset, 4 * gltf->states);
    size_t offset = lay->poses_offset;
    for (int b = 1; b <= gltf->bodies; ++b) {
        fprintf(f, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%ld}", offset,
                12 * gltf->states);
        offset += (size_t)(12 * gltf->states);
        fprintf(f, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%ld}", offset,
                16 * gltf->states);
        offset += (size_t)(16 * gltf->states);
    }
    fputs("],\"accessors\":[", f);
    int view = 0;
    for (int g = 0; g < m->geom_count; ++g) {
        const geom_mesh* gm = &lay->geoms[g];
        if (gm->index_count == 0) continue;
        fprintf(f, "%s{\"bufferView\":%d,\"componentType\":%d,\"count\":%d,\"type\":\"VEC3\","
                   "\"min\":", view ? "," : "", view, GLTF_FLOAT, gm->point_count);
        json_floats(f, gm->low, 3);
        fputs(",\"max\":", f);
        json_floats(f, gm->high, 3);
        fprintf(f, "},{\"bufferView\":%d,\"componentType\":%d,\"count\":%d,\"type\":\"SCALAR\"}",
                view + 1, GLTF_UNSIGNED_INT, gm->index_count);
        view += 2;
    }
    const float* times = (const float*)gltf->poses->data;
    float t_first = times[0], t_last = times[(gltf->states - 1) * (1 + 7 * gltf->bodies)];
    fprintf(f, "%s{\"bufferView\":%d,\"componentType\":%d,\"count\":%ld,\"type\":\"SCALAR\","
               "\"min\":[%.9g],\"max\":[%.9g]}",
            view ? "," : "", view, GLTF_FLOAT, gltf->states, (double)t_first, (double)t_last);
    for (int b = 1; b <= gltf->bodies; ++b) {
        fprintf(f, ",{\"bufferView\":%d,\"componentType\":%d,\"count\":%ld,\"type\":\"VEC3\"}"
                   ",{\"bufferView\":%d,\"componentType\":%d,\"count\":%ld,\"type\":\"VEC4\"}",
                view + 2 * b - 1, GLTF_FLOAT, gltf->states, view + 2 * b, GLTF_FLOAT,
                gltf->states);
    }
    fputs("]", f);
}

static void write_materials_and_meshes(FILE* f, const tch_model* m, const layout* lay,
                                       int meshes) {
    if (meshes == 0) return; /* glTF has no empty arrays */
    fputs(",\"materials\":[", f);
    for (int c = 0; c < PALETTE_SIZE + 1; ++c) { /* the last: grey, for the world's geoms */
        const float grey[3] = {0.6f, 0.6f, 0.6f};
        const float* rgb = c < PALETTE_SIZE ? PALETTE[c] : grey;
        fprintf(f, "%s{\"pbrMetallicRoughness\":{\"baseColorFactor\":[%.3g,%.3g,%.3g,1],"
                   "\"metallicFactor\":0,\"roughnessFactor\":0.8},\"doubleSided\":true}",
                c ? "," : "", (double)rgb[0], (double)rgb[1], (double)rgb[2]);
    }
    fputs("],\"meshes\":[", f);
    int accessor = 0, first = 1;
    for (int g = 0; g < m->geom_count; ++g) {
        if (lay->geoms[g].index_count == 0) continue;
        int body = m->geom_body[g];
        int material = body == 0 ? PALETTE_SIZE : (body - 1) % PALETTE_SIZE;
        fprintf(f, "%s{\"name\":", first ? "" : ",");
        cli_json_string(f, m->geom_name[g][0] ? m->geom_name[g] : "geom");
        fprintf(f, ",\"primitives\":[{\"attributes\":{\"POSITION\":%d},\"indices\":%d,"
                   "\"material\":%d}]}", accessor, accessor + 1, material);
        accessor += 2;
        first = 0;
    }
    fputs("]", f);
}

static void json_transform(FILE* f, tch_vec3 p, tch_quat q) {
    fprintf(f, ",\"translation\":[%.9g,%.9g,%.9g],\"rotation\":[%.9g,%.9g,%.9g,%.9g]", p.x, p.y,
            p.z, q.x, q.y, q.z, q.w);
}

static int body_has_geoms(const tch_model* m, int b) {
    for (int g = 0; g < m->geom_count; ++g) {
        if (m->geom_body[g] == b) return 1;
    }
    return 0;
}

/* Nodes: 0 the root (z up to y up), 1..bodies the bodies, then one per geom. */
static void write_nodes(FILE* f, const cli_gltf* gltf, const tch_model* m, const layout* lay) {
    const int geom_node0 = 1 + gltf->bodies;
    fputs(",\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"touche (z up)\","
          "\"rotation\":[-0.70710678,0,0,0.70710678],\"children\":[", f);
    int first = 1;
    for (int b = 1; b <= gltf->bodies; ++b, first = 0) fprintf(f, "%s%d", first ? "" : ",", b);
    for (int g = 0; g < m->geom_count; ++g) {
        if (m->geom_body[g] == 0) fprintf(f, "%s%d", first ? "" : ",", geom_node0 + g), first = 0;
    }
    fputs("]}", f);
    for (int b = 1; b <= gltf->bodies; ++b) {
        const float* pose = body_pose(gltf, 0, b);
        fputs(",{\"name\":", f);
        cli_json_string(f, m->body_name[b][0] ? m->body_name[b] : "body");
        json_transform(f, (tch_vec3){pose[0], pose[1], pose[2]},
                       (tch_quat){pose[6], pose[3], pose[4], pose[5]});
        for (int g = 0, n = 0; g < m->geom_count; ++g) {
            if (m->geom_body[g] == b) {
                fprintf(f, "%s%d", n++ ? "," : ",\"children\":[", geom_node0 + g);
            }
        }
        fputs(body_has_geoms(m, b) ? "]}" : "}", f);
    }
    for (int g = 0, mesh = 0; g < m->geom_count; ++g) {
        fputs(",{\"name\":", f);
        cli_json_string(f, m->geom_name[g][0] ? m->geom_name[g] : "geom");
        json_transform(f, m->geom_X_BG[g].p, m->geom_X_BG[g].q);
        if (lay->geoms[g].index_count > 0) fprintf(f, ",\"mesh\":%d", mesh++);
        fputs("}", f);
    }
    fputs("]", f);
}

static void write_animation(FILE* f, const cli_gltf* gltf, int times_accessor) {
    if (gltf->bodies == 0) return;
    fputs(",\"animations\":[{\"name\":\"run\",\"samplers\":[", f);
    for (int b = 1; b <= gltf->bodies; ++b) {
        fprintf(f, "%s{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"},"
                   "{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"}",
                b > 1 ? "," : "", times_accessor, times_accessor + 2 * b - 1, times_accessor,
                times_accessor + 2 * b);
    }
    fputs("],\"channels\":[", f);
    for (int b = 1; b <= gltf->bodies; ++b) {
        fprintf(f, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"translation\"}},"
                   "{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"rotation\"}}",
                b > 1 ? "," : "", 2 * b - 2, b, 2 * b - 1, b);
    }
    fputs("]}]", f);
}

static void write_base64(FILE* f, const unsigned char* data, size_t size) {
    static const char DIGITS[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < size; i += 3) {
        uint32_t word = (uint32_t)data[i] << 16;
        if (i + 1 < size) word |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < size) word |= data[i + 2];
        fputc(DIGITS[(word >> 18) & 63], f);
        fputc(DIGITS[(word >> 12) & 63], f);
        fputc(i + 1 < size ? DIGITS[(word >> 6) & 63] : '=', f);
        fputc(i + 2 < size ? DIGITS[word & 63] : '=', f);
    }
}

/* The JSON document; the buffer is embedded (.gltf) or in the GLB's BIN chunk (no uri). */
static void write_json(FILE* f, const cli_gltf* gltf, const tch_model* m, const layout* lay,
                       const bytes* buffer) {
    fputs("{\"asset\":{\"version\":\"2.0\",\"generator\":\"touche run --gltf\"}", f);
    int meshes = 0;
    for (int g = 0; g < m->geom_count; ++g) meshes += lay->geoms[g].index_count > 0;
    fprintf(f, ",\"buffers\":[{\"byteLength\":%zu", buffer->size);
    if (!gltf->binary) {
        fputs(",\"uri\":\"data:application/octet-stream;base64,", f);
        write_base64(f, buffer->data, buffer->size);
        fputc('"', f);
    }
    fputs("}]", f);
    write_accessors(f, gltf, m, lay);
    write_materials_and_meshes(f, m, lay, meshes);
    write_nodes(f, gltf, m, lay);
    write_animation(f, gltf, 2 * meshes);
    fputs("}", f);
}

static void write_u32(FILE* f, uint32_t x) {
    const unsigned char le[4] = {x & 255, (x >> 8) & 255, (x >> 16) & 255, x >> 24};
    fwrite(le, 1, 4, f);
}

/* GLB: header, the JSON chunk padded with spaces, the BIN chunk padded with zeros. */
static int write_glb(FILE* f, const cli_gltf* gltf, const tch_model* m, const layout* lay,
                     const bytes* buffer) {
    char* json = NULL;
    size_t json_size = 0;
    FILE* memory = open_memstream(&json, &json_size);
    if (!memory) return 0;
    write_json(memory, gltf, m, lay, buffer);
    if (fclose(memory) != 0) {
        free(json);
        return 0;
    }
    size_t json_padded = (json_size + 3) & ~(size_t)3, bin_padded = (buffer->size + 3) & ~(size_t)3;
    write_u32(f, 0x46546C67); /* "glTF" */
    write_u32(f, 2);
    write_u32(f, (uint32_t)(12 + 8 + json_padded + 8 + bin_padded));
    write_u32(f, (uint32_t)json_padded);
    write_u32(f, 0x4E4F534A); /* "JSON" */
    fwrite(json, 1, json_size, f);
    for (size_t i = json_size; i < json_padded; ++i) fputc(' ', f);
    write_u32(f, (uint32_t)bin_padded);
    write_u32(f, 0x004E4942); /* "BIN\0" */
    fwrite(buffer->data, 1, buffer->size, f);
    for (size_t i = buffer->size; i < bin_padded; ++i) fputc(0, f);
    free(json);
    return 1;
}

static int write_file(cli_gltf* gltf, const tch_model* m, int how) {
    layout lay = {.geoms = calloc((size_t)m->geom_count + 1, sizeof(geom_mesh))};
    bytes buffer = {0};
    cli_output_file out = {0};
    int ok = lay.geoms && build_buffer(gltf, m, &buffer, &lay);
    if (!ok) fprintf(stderr, "touche run: --gltf %s: out of memory\n", gltf->path);
    ok = ok && cli_open_output(&out, gltf->path, "run");
    if (ok && gltf->binary) {
        ok = write_glb(out.f, gltf, m, &lay, &buffer);
    } else if (ok) {
        write_json(out.f, gltf, m, &lay, &buffer);
    }
    if (out.f && !cli_finish_output(&out, ok ? how : CLI_DISCARD, "run")) ok = 0;
    free(buffer.data);
    free(lay.geoms);
    return ok;
}

int cli_gltf_finish(cli_gltf* gltf, const tch_model* model, int how) {
    int ok = 1;
    if (gltf->poses && gltf->states > 0 && how != CLI_DISCARD) ok = write_file(gltf, model, how);
    if (gltf->poses) free(gltf->poses->data);
    free(gltf->poses);
    gltf->poses = NULL;
    return ok;
}
