/* Vertex readers for OBJ and STL. The input buffer is not NUL-terminated (files and fuzzers
 * hand over raw bytes), so lines are copied into a bounded local buffer before strtod sees
 * them. Vertices are sorted and deduplicated exactly at the end, which makes the result
 * independent of the order of the triangles and collapses the corners that STL repeats.
 */
#include "geometry/mesh_io.h"
#include "geometry/mesh_surface.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "math/vec.h"

enum { max_line_length = 512, stl_header_size = 84, stl_triangle_size = 50 };

/* ---- growing vertex list ---- */

typedef struct vertex_list {
    tch_vec3* data;
    int count, capacity;
} vertex_list;

/* Makes room for one more element in *data [count] of *capacity elements of `size` bytes
 * (doubling). Returns -1 when out of memory or past INT_MAX elements. */
static int reserve_one(void** data, int count, int* capacity, size_t size) {
    if (count < *capacity) {
        return 0;
    }
    if (*capacity > INT_MAX / 2 - 8) {
        return -1;
    }
    int grown_capacity = 2 * *capacity + 64;
    void* grown = realloc(*data, (size_t)grown_capacity * size);
    if (!grown) {
        return -1;
    }
    *data = grown;
    *capacity = grown_capacity;
    return 0;
}

/* Appends v with -0 turned into +0 (so that exact deduplication merges them).
 * Returns -1 when out of memory or past INT_MAX vertices. */
static int push_vertex(vertex_list* list, tch_vec3 v) {
    void* data = list->data;
    if (reserve_one(&data, list->count, &list->capacity, sizeof *list->data) < 0) {
        return -1;
    }
    list->data = data;
    list->data[list->count++] = tch_v3(v.x + 0.0, v.y + 0.0, v.z + 0.0);
    return 0;
}

static tch_status too_many_vertices(const char* name, tch_error* err) {
    return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, name, 0,
                    "out of memory (or more than %d vertices) while reading the mesh", INT_MAX);
}

static int compare_vertices(const void* pa, const void* pb) {
    const tch_vec3* a = pa;
    const tch_vec3* b = pb;
    for (int i = 0; i < 3; ++i) {
        tch_real x = tch_v3_get(*a, i), y = tch_v3_get(*b, i);
        if (x != y) {
            return x < y ? -1 : 1;
        }
    }
    return 0;
}

static void sort_unique(vertex_list* list) {
    qsort(list->data, (size_t)list->count, sizeof *list->data, compare_vertices);
    int unique = 0;
    for (int i = 0; i < list->count; ++i) {
        if (unique == 0 || compare_vertices(&list->data[unique - 1], &list->data[i]) != 0) {
            list->data[unique++] = list->data[i];
        }
    }
    list->count = unique;
}

/* ---- lines and numbers ---- */

typedef struct line_reader {
    const char* bytes;
    size_t size, pos;
    int number; /* 1-based number of the line last returned */
} line_reader;

/* The next line (without its '\n'); returns 0 at the end of the buffer. */
static int next_line(line_reader* r, const char** start, size_t* length) {
    if (r->pos >= r->size) {
        return 0;
    }
    const char* begin = r->bytes + r->pos;
    const char* newline = memchr(begin, '\n', r->size - r->pos);
    size_t n = newline ? (size_t)(newline - begin) : r->size - r->pos;
    r->pos += n + 1;
    r->number++;
    *start = begin;
    *length = n;
    return 1;
}

static int is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Length of the first word of the line after leading blanks; *word points at it. */
static size_t first_word(const char* line, size_t length, const char** word) {
    size_t i = 0;
    while (i < length && is_space(line[i])) {
        ++i;
    }
    size_t j = i;
    while (j < length && !is_space(line[j])) {
        ++j;
    }
    *word = line + i;
    return j - i;
}

static int word_is(const char* word, size_t length, const char* keyword) {
    return length == strlen(keyword) && memcmp(word, keyword, length) == 0;
}

/* A printable excerpt of a line for messages (non-printable bytes become '?'). */
static void excerpt(const char* line, size_t length, char* out, size_t size) {
    size_t n = length < size - 1 ? length : size - 1;
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)line[i];
        out[i] = c >= 32 && c < 127 ? (char)c : '?';
    }
    out[n] = '\0';
}

/* Parses the whitespace-separated numbers after the line's keyword into values[max].
 * Returns how many were read, or -1 when a word is not a number or there are more than max. */
static int parse_numbers(const char* text, tch_real* values, int max) {
    int count = 0;
    const char* p = text;
    for (;;) {
        while (is_space(*p)) {
            ++p;
        }
        if (*p == '\0') {
            return count;
        }
        char* end;
        tch_real value = strtod(p, &end);
        if (end == p || (*end != '\0' && !is_space(*end)) || count == max) {
            return -1;
        }
        values[count++] = value;
        p = end;
    }
}

/* Reads "<keyword> x y z [more numbers]" into *v. `max_numbers` bounds the numbers allowed
 * (OBJ permits w or colours after x y z). */
static tch_status parse_vertex_line(const char* line, size_t length, int line_number,
                                    int max_numbers, const char* expected, const char* name,
                                    tch_vec3* v, tch_error* err) {
    char text[max_line_length], shown[64];
    excerpt(line, length, shown, sizeof shown);
    if (length >= sizeof text || memchr(line, '\0', length)) {
        return tch_fail(err, TCH_ERR_PARSE, name, line_number,
                        "vertex line is longer than %d characters or holds a NUL byte; "
                        "expected '%s'",
                        max_line_length - 1, expected);
    }
    memcpy(text, line, length);
    text[length] = '\0';
    const char* word;
    size_t word_length = first_word(text, length, &word);
    tch_real values[7];
    int count = parse_numbers(word + word_length, values, max_numbers);
    if (count < 3) {
        return tch_fail(err, TCH_ERR_PARSE, name, line_number,
                        "malformed vertex line '%s'; expected '%s'", shown, expected);
    }
    *v = tch_v3(values[0], values[1], values[2]);
    if (!tch_v3_isfinite(*v)) {
        return tch_fail(err, TCH_ERR_PARSE, name, line_number,
                        "vertex '%s' is not finite; expected finite coordinates", shown);
    }
    return TCH_OK;
}

/* Parses a vertex line and appends the vertex to `out`. */
static tch_status read_vertex_line(const char* line, size_t length, int line_number,
                                   int max_numbers, const char* expected, const char* name,
                                   vertex_list* out, tch_error* err) {
    tch_vec3 v;
    tch_status status =
        parse_vertex_line(line, length, line_number, max_numbers, expected, name, &v, err);
    if (status == TCH_OK && push_vertex(out, v) < 0) {
        status = too_many_vertices(name, err);
    }
    return status;
}

static tch_status no_vertices(const char* name, const char* what, tch_error* err) {
    return tch_fail(err, TCH_ERR_PARSE, name, 0, "%s has no vertices", what);
}

/* What a reader collects: the vertices, and when `faces` is set, the OBJ faces' triangles as
 * corner indices into the vertices (three per triangle). */
typedef struct mesh_lists {
    vertex_list vertices;
    int* corners;
    int corner_count, corner_capacity;
    int faces;
} mesh_lists;

/* One line of a text format: appends its vertex (or face), skips the line, or fails. */
typedef tch_status (*line_handler)(const char* line, size_t length, int line_number,
                                   const char* name, mesh_lists* out, tch_error* err);

/* Feeds every line to `handle`; fails when no vertex was found (`what` names the format). */
static tch_status read_text(const char* bytes, size_t size, const char* name, line_handler handle,
                            const char* what, mesh_lists* out, tch_error* err) {
    line_reader r = {bytes, size, 0, 0};
    const char* line;
    size_t length;
    while (next_line(&r, &line, &length)) {
        tch_status status = handle(line, length, r.number, name, out, err);
        if (status != TCH_OK) {
            return status;
        }
    }
    return out->vertices.count > 0 ? TCH_OK : no_vertices(name, what, err);
}

static int push_corner(mesh_lists* out, int corner) {
    void* data = out->corners;
    if (reserve_one(&data, out->corner_count, &out->corner_capacity, sizeof *out->corners) < 0) {
        return -1;
    }
    out->corners = data;
    out->corners[out->corner_count++] = corner;
    return 0;
}

/* The vertex index of an OBJ face corner "i", "i/t", "i//n" or "i/t/n" (1-based, or negative:
 * counted back from the last vertex read), 0-based; -1 when malformed or out of range. */
static int obj_corner(const char* token, int vertex_count) {
    char* end;
    long index = strtol(token, &end, 10);
    if (end == token || (*end != '\0' && *end != '/')) {
        return -1;
    }
    long zero_based = index > 0 ? index - 1 : vertex_count + index;
    return index != 0 && zero_based >= 0 && zero_based < vertex_count ? (int)zero_based : -1;
}

/* "f c1 c2 c3 ...": the face fanned about its first corner into triangles. */
static tch_status read_face_line(const char* line, size_t length, int line_number,
                                 const char* name, mesh_lists* out, tch_error* err) {
    char text[max_line_length], shown[64];
    excerpt(line, length, shown, sizeof shown);
    if (length >= sizeof text || memchr(line, '\0', length)) {
        return tch_fail(err, TCH_ERR_PARSE, name, line_number,
                        "face line is longer than %d characters or holds a NUL byte",
                        max_line_length - 1);
    }
    memcpy(text, line, length);
    text[length] = '\0';
    const char* word;
    size_t word_length = first_word(text, length, &word);
    size_t i = (size_t)(word - text) + word_length;
    int first = -1, previous = -1, count = 0;
    while (i < length) {
        while (i < length && is_space(text[i])) {
            ++i;
        }
        if (i == length) {
            break;
        }
        const char* token = text + i;
        while (i < length && !is_space(text[i])) {
            ++i;
        }
        text[i++] = '\0'; /* the token's end (text[length] is already '\0') */
        int corner = obj_corner(token, out->vertices.count);
        if (corner < 0) {
            return tch_fail(err, TCH_ERR_PARSE, name, line_number,
                            "malformed face line '%s': corner '%s' is not the index of a vertex "
                            "read so far (1 to %d, or -1 to -%d)",
                            shown, token, out->vertices.count, out->vertices.count);
        }
        if (count >= 2 && (push_corner(out, first) < 0 || push_corner(out, previous) < 0 ||
                           push_corner(out, corner) < 0)) {
            return too_many_vertices(name, err);
        }
        first = count == 0 ? corner : first;
        previous = corner;
        ++count;
    }
    if (count < 3) {
        return tch_fail(err, TCH_ERR_PARSE, name, line_number,
                        "malformed face line '%s'; expected 'f' and at least three corners",
                        shown);
    }
    return TCH_OK;
}

/* OBJ: "v x y z [w | r g b]" lines give vertices, "f" lines faces (when collected); every
 * other line is ignored. */
static tch_status obj_line(const char* line, size_t length, int line_number, const char* name,
                           mesh_lists* out, tch_error* err) {
    const char* word;
    size_t word_length = first_word(line, length, &word);
    if (out->faces && word_is(word, word_length, "f")) {
        return read_face_line(line, length, line_number, name, out, err);
    }
    if (!word_is(word, word_length, "v")) {
        return TCH_OK;
    }
    return read_vertex_line(line, length, line_number, 7, "v x y z", name, &out->vertices, err);
}

static int is_stl_keyword(const char* word, size_t length) {
    static const char* const keywords[] = {"solid",   "facet",    "outer",
                                           "endloop", "endfacet", "endsolid"};
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; ++i) {
        if (word_is(word, length, keywords[i])) {
            return 1;
        }
    }
    return length == 0;
}

/* ASCII STL: "vertex x y z" lines give vertices; the other keywords are skipped (their
 * nesting is not checked: only the vertices matter for a hull). */
static tch_status ascii_stl_line(const char* line, size_t length, int line_number, const char* name,
                                 mesh_lists* out, tch_error* err) {
    const char* word;
    size_t word_length = first_word(line, length, &word);
    if (is_stl_keyword(word, word_length)) {
        return TCH_OK;
    }
    if (!word_is(word, word_length, "vertex")) {
        char shown[64];
        excerpt(line, length, shown, sizeof shown);
        return tch_fail(err, TCH_ERR_PARSE, name, line_number,
                        "unexpected line '%s' in ASCII STL; expected solid, facet normal, "
                        "outer loop, vertex, endloop, endfacet or endsolid",
                        shown);
    }
    return read_vertex_line(line, length, line_number, 3, "vertex x y z", name, &out->vertices,
                            err);
}

/* ---- binary STL: 80-byte header, uint32 n, n records of 12 little-endian floats + 2 ---- */

static uint32_t read_u32_le(const unsigned char* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static tch_real read_f32_le(const unsigned char* p) {
    uint32_t bits = read_u32_le(p);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static uint32_t stl_triangle_count(const char* bytes) {
    return read_u32_le((const unsigned char*)bytes + 80);
}

static int is_binary_stl_size(const char* bytes, size_t size) {
    return size >= stl_header_size &&
           (uint64_t)stl_header_size + (uint64_t)stl_triangle_size * stl_triangle_count(bytes) ==
               (uint64_t)size;
}

static tch_status read_binary_stl(const char* bytes, size_t size, const char* name,
                                  vertex_list* out, tch_error* err) {
    if (size < stl_header_size) {
        return tch_fail(err, TCH_ERR_PARSE, name, 0,
                        "file of %zu bytes is too short for a binary STL (84 bytes at least) and "
                        "does not start with 'solid' as an ASCII STL does",
                        size);
    }
    uint32_t n = stl_triangle_count(bytes);
    uint64_t expected = (uint64_t)stl_header_size + (uint64_t)stl_triangle_size * n;
    if (expected != (uint64_t)size) {
        return tch_fail(err, TCH_ERR_PARSE, name, 0,
                        "binary STL announces %lu triangles, so it should be %llu bytes "
                        "(84 + 50 x %lu), but it is %zu bytes (truncated or not an STL)",
                        (unsigned long)n, (unsigned long long)expected, (unsigned long)n, size);
    }
    if (n == 0) {
        return no_vertices(name, "binary STL file (0 triangles)", err);
    }
    for (uint32_t t = 0; t < n; ++t) {
        const unsigned char* record =
            (const unsigned char*)bytes + stl_header_size + (size_t)t * stl_triangle_size;
        for (int k = 0; k < 3; ++k) {
            const unsigned char* p = record + 12 * (k + 1);
            tch_vec3 v = tch_v3(read_f32_le(p), read_f32_le(p + 4), read_f32_le(p + 8));
            if (!tch_v3_isfinite(v)) {
                char element[64];
                snprintf(element, sizeof element, "triangle %lu", (unsigned long)t);
                tch_fail(err, TCH_ERR_PARSE, name, 0,
                         "binary STL triangle %lu, vertex %d is not finite (%g %g %g)",
                         (unsigned long)t, k, v.x, v.y, v.z);
                tch_error_set_element(err, element);
                return TCH_ERR_PARSE;
            }
            if (push_vertex(out, v) < 0) {
                return too_many_vertices(name, err);
            }
        }
    }
    return TCH_OK;
}

/* ASCII when it starts with "solid" and holds no NUL byte: binary files that start with
 * "solid" (some exporters write it in the header) almost always hold zeros. */
static int is_ascii_stl(const char* bytes, size_t size) {
    const char* word;
    size_t length = first_word(bytes, size < 64 ? size : 64, &word);
    return word_is(word, length, "solid") && !memchr(bytes, '\0', size);
}

/* Every triangle's three corners in order into out->vertices. */
static tch_status read_stl(const char* bytes, size_t size, const char* name, mesh_lists* out,
                           tch_error* err) {
    if (!is_binary_stl_size(bytes, size) && is_ascii_stl(bytes, size)) {
        return read_text(bytes, size, name, ascii_stl_line, "ASCII STL file", out, err);
    }
    return read_binary_stl(bytes, size, name, &out->vertices, err);
}

/* ---- entry points ---- */

static int equals_ignoring_case(const char* a, const char* b) {
    for (; *a && *b; ++a, ++b) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b) {
            return 0;
        }
    }
    return *a == *b;
}

/* Reads the file's vertices (for STL every triangle's corners in order; for OBJ its "v" lines)
 * and, when out->faces, an OBJ's face triangles. *stl receives the format. */
static tch_status read_lists(const char* bytes, size_t size, const char* name,
                             const char* format_hint, mesh_lists* out, int* stl, tch_error* err) {
    if (size == 0) {
        return tch_fail(err, TCH_ERR_PARSE, name, 0, "mesh file is empty");
    }
    if (!format_hint) {
        *stl = is_binary_stl_size(bytes, size) || is_ascii_stl(bytes, size);
    } else if (equals_ignoring_case(format_hint, "stl") ||
               equals_ignoring_case(format_hint, "obj")) {
        *stl = equals_ignoring_case(format_hint, "stl");
    } else {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, name, 0,
                        "mesh format '%s' is not supported yet; touche reads .obj and .stl",
                        format_hint);
    }
    return *stl ? read_stl(bytes, size, name, out, err)
                : read_text(bytes, size, name, obj_line, "OBJ file (no 'v x y z' line)", out, err);
}

tch_status tch_mesh_read_vertices_buffer(const char* bytes, size_t size, const char* name,
                                         const char* format_hint, tch_vec3** vertices, int* count,
                                         tch_error* err) {
    *vertices = NULL;
    *count = 0;
    name = name ? name : "";
    mesh_lists lists = {{NULL, 0, 0}, NULL, 0, 0, 0};
    int stl;
    tch_status status = read_lists(bytes, size, name, format_hint, &lists, &stl, err);
    if (status != TCH_OK) {
        free(lists.vertices.data);
        return status;
    }
    sort_unique(&lists.vertices);
    *vertices = lists.vertices.data;
    *count = lists.vertices.count;
    return TCH_OK;
}

/* Index of v in the sorted, unique vertices [count] (v is there). */
static int welded_index(const tch_vec3* unique, int count, tch_vec3 v) {
    const tch_vec3* hit = bsearch(&v, unique, (size_t)count, sizeof v, compare_vertices);
    return (int)(hit - unique);
}

/* The surface from what read_lists collected: corners[i] indexes read[], or (corners NULL)
 * read[] holds the triangles' corners in order. Vertices welded exactly (sort_unique);
 * collapsed triangles dropped. Takes ownership of read's data. */
static tch_status weld_surface(vertex_list read, const int* corners, int corner_count,
                               const char* name, tch_mesh_surface* out, tch_error* err) {
    vertex_list unique = {malloc((size_t)(read.count > 0 ? read.count : 1) * sizeof(tch_vec3)),
                          read.count, read.count};
    out->triangles = malloc((size_t)(corner_count / 3 + 1) * sizeof *out->triangles);
    if (!unique.data || !out->triangles) {
        free(unique.data);
        free(read.data);
        return too_many_vertices(name, err);
    }
    memcpy(unique.data, read.data, (size_t)read.count * sizeof *read.data);
    sort_unique(&unique);
    for (int c = 0; c + 2 < corner_count; c += 3) {
        int* t = out->triangles[out->triangle_count];
        for (int k = 0; k < 3; ++k) {
            tch_vec3 v = read.data[corners ? corners[c + k] : c + k];
            t[k] = welded_index(unique.data, unique.count, v);
        }
        out->triangle_count += t[0] != t[1] && t[1] != t[2] && t[2] != t[0];
    }
    free(read.data);
    out->vertices = unique.data;
    out->vertex_count = unique.count;
    return TCH_OK;
}

tch_status tch_mesh_surface_read_buffer(const char* bytes, size_t size, const char* name,
                                        const char* format_hint, tch_mesh_surface* out,
                                        tch_error* err) {
    *out = (tch_mesh_surface){0};
    name = name ? name : "";
    mesh_lists lists = {{NULL, 0, 0}, NULL, 0, 0, 1};
    int stl;
    tch_status status = read_lists(bytes, size, name, format_hint, &lists, &stl, err);
    if (status == TCH_OK) {
        status = stl ? weld_surface(lists.vertices, NULL, lists.vertices.count, name, out, err)
                     : weld_surface(lists.vertices, lists.corners, lists.corner_count, name, out,
                                    err);
    } else {
        free(lists.vertices.data);
    }
    free(lists.corners);
    return status;
}

/* Reads a whole file; *size is its length. Returns NULL on failure with errno set. */
static char* read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t capacity = 1 << 16, used = 0;
    char* data = malloc(capacity);
    while (data) {
        used += fread(data + used, 1, capacity - used, f);
        if (used < capacity) {
            break;
        }
        char* grown = capacity <= SIZE_MAX / 2 ? realloc(data, capacity * 2) : NULL;
        if (!grown) {
            free(data);
            data = NULL;
            errno = ENOMEM;
            break;
        }
        data = grown;
        capacity *= 2;
    }
    if (data && ferror(f)) {
        int error = errno ? errno : EIO; /* e.g. EISDIR for a directory */
        free(data);
        data = NULL;
        errno = error;
    }
    fclose(f);
    *size = used;
    return data;
}

/* The extension after the last '.' of the file name, or NULL. */
static const char* extension(const char* path) {
    const char* slash = strrchr(path, '/');
    const char* dot = strrchr(slash ? slash : path, '.');
    return dot && dot[1] ? dot + 1 : NULL;
}

/* The whole file, or TCH_ERR_IO naming it. */
static tch_status read_mesh_file(const char* path, char** bytes, size_t* size, tch_error* err) {
    errno = 0;
    *bytes = read_file(path, size);
    return *bytes ? TCH_OK
                  : tch_fail(err, TCH_ERR_IO, path, 0, "cannot read mesh file: %s",
                             strerror(errno));
}

tch_status tch_mesh_read_vertices(const char* path, tch_vec3** vertices, int* count,
                                  tch_error* err) {
    *vertices = NULL;
    *count = 0;
    size_t size = 0;
    char* bytes;
    tch_status status = read_mesh_file(path, &bytes, &size, err);
    if (status == TCH_OK) {
        status =
            tch_mesh_read_vertices_buffer(bytes, size, path, extension(path), vertices, count, err);
    }
    free(bytes);
    return status;
}

tch_status tch_mesh_surface_read(const char* path, tch_mesh_surface* out, tch_error* err) {
    *out = (tch_mesh_surface){0};
    size_t size = 0;
    char* bytes;
    tch_status status = read_mesh_file(path, &bytes, &size, err);
    if (status == TCH_OK) {
        status = tch_mesh_surface_read_buffer(bytes, size, path, extension(path), out, err);
    }
    free(bytes);
    return status;
}
