/* Tet mesh files: VTK legacy ASCII unstructured grids and Gmsh .msh ASCII v2 / v4.1.
 *
 * Both readers walk the bytes (not NUL-terminated: files and fuzzers hand over raw bytes) as
 * whitespace-separated tokens that remember their line, so numbers may be spread over lines as
 * both formats allow; Gmsh element records, whose length depends on the element type, are read
 * as whole lines. Each reader fills a `raw_mesh` (vertices, tets, the chosen field), which goes
 * through tch_tetmesh_build for validation.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "geometry/tetmesh.h"
#include "math/vec.h"

enum { vtk_tetra = 10, gmsh_tet4 = 4, max_token = 128, max_record = 64 };

/* ---- tokens ---- */

typedef struct text_reader {
    const char* bytes;
    size_t size, pos;
    int line;           /* 1-based line of the position */
    const char* name;   /* file name for errors */
    int token_line;     /* line of the last token read (where end-of-file errors point) */
} text_reader;

typedef struct token {
    const char* text;
    size_t length;
    int line;
} token;

static int is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Skips blanks, and newlines too when `cross_lines`; returns 0 at a newline it may not cross
 * or at the end of the text. */
static int skip_blanks(text_reader* r, int cross_lines) {
    while (r->pos < r->size) {
        char c = r->bytes[r->pos];
        if (c == '\n') {
            if (!cross_lines) {
                return 0;
            }
            r->line++;
        } else if (!is_blank(c) && c != '\0') {
            return 1;
        }
        r->pos++;
    }
    return 0;
}

static int next_token_in(text_reader* r, token* t, int cross_lines) {
    if (!skip_blanks(r, cross_lines)) {
        return 0;
    }
    t->text = r->bytes + r->pos;
    t->line = r->line;
    r->token_line = r->line;
    while (r->pos < r->size && !is_blank(r->bytes[r->pos]) && r->bytes[r->pos] != '\n' &&
           r->bytes[r->pos] != '\0') {
        r->pos++;
    }
    t->length = (size_t)(r->bytes + r->pos - t->text);
    return 1;
}

static tch_status parse_error(const text_reader* r, int line, tch_error* err, const char* format,
                              ...) __attribute__((format(printf, 4, 5)));

static tch_status parse_error(const text_reader* r, int line, tch_error* err, const char* format,
                              ...) {
    char message[sizeof err->message];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return tch_fail(err, TCH_ERR_PARSE, r->name, line, "%s", message);
}

/* A printable copy of the token for messages. */
static void shown(const token* t, char* out, size_t size) {
    size_t n = t->length < size - 1 ? t->length : size - 1;
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)t->text[i];
        out[i] = c >= 32 && c < 127 ? (char)c : '?';
    }
    out[n] = '\0';
}

/* The next token, or an "unexpected end of file; expected <what>" error. */
static tch_status expect_token(text_reader* r, token* t, const char* what, tch_error* err) {
    if (!next_token_in(r, t, 1)) {
        return parse_error(r, r->token_line, err, "unexpected end of file; expected %s", what);
    }
    return TCH_OK;
}

static int token_is(const token* t, const char* word) {
    size_t n = strlen(word);
    if (t->length != n) {
        return 0;
    }
    for (size_t i = 0; i < n; ++i) {
        if (tolower((unsigned char)t->text[i]) != tolower((unsigned char)word[i])) {
            return 0;
        }
    }
    return 1;
}

static tch_status expect_word(text_reader* r, const char* word, tch_error* err) {
    token t;
    tch_status status = expect_token(r, &t, word, err);
    if (status == TCH_OK && !token_is(&t, word)) {
        char s[64];
        shown(&t, s, sizeof s);
        status = parse_error(r, t.line, err, "found '%s'; expected %s", s, word);
    }
    return status;
}

/* Copies the token into a NUL-terminated buffer; 0 when it is too long. */
static int token_string(const token* t, char* out) {
    if (t->length >= max_token) {
        return 0;
    }
    memcpy(out, t->text, t->length);
    out[t->length] = '\0';
    return 1;
}

static tch_status token_long(const text_reader* r, const token* t, const char* what, long min,
                             long max, long* out, tch_error* err) {
    char text[max_token], s[64];
    shown(t, s, sizeof s);
    char* end = NULL;
    errno = 0;
    long value = token_string(t, text) ? strtol(text, &end, 10) : 0;
    if (!end || *end != '\0' || end == text || errno != 0) {
        return parse_error(r, t->line, err, "found '%s'; expected %s (an integer)", s, what);
    }
    if (value < min || value > max) {
        return parse_error(r, t->line, err, "%s is %ld; expected %ld to %ld", what, value, min,
                           max);
    }
    *out = value;
    return TCH_OK;
}

static tch_status read_long(text_reader* r, const char* what, long min, long max, long* out,
                            tch_error* err) {
    token t;
    tch_status status = expect_token(r, &t, what, err);
    return status == TCH_OK ? token_long(r, &t, what, min, max, out, err) : status;
}

/* A count of items that follow in the text. Each item takes at least two bytes (a digit and a
 * separator), so a count larger than half the bytes left cannot be right: refusing it before
 * anything is allocated keeps a corrupt header from asking for gigabytes. */
static tch_status read_count(text_reader* r, const char* what, int* out, tch_error* err) {
    long value;
    tch_status status = read_long(r, what, 0, INT_MAX / 8, &value, err);
    *out = (int)value;
    if (status == TCH_OK && (size_t)value > (r->size - r->pos) / 2) {
        return parse_error(r, r->token_line, err,
                           "%s is %ld, more than the %zu bytes left in the file can hold", what,
                           value, r->size - r->pos);
    }
    return status;
}

static tch_status read_real(text_reader* r, const char* what, tch_real* out, tch_error* err) {
    token t;
    tch_status status = expect_token(r, &t, what, err);
    if (status != TCH_OK) {
        return status;
    }
    char text[max_token], s[64];
    shown(&t, s, sizeof s);
    char* end = NULL;
    *out = token_string(&t, text) ? strtod(text, &end) : 0;
    if (!end || *end != '\0' || end == text) {
        return parse_error(r, t.line, err, "found '%s'; expected %s (a number)", s, what);
    }
    if (!isfinite(*out)) {
        return parse_error(r, t.line, err, "%s is '%s'; expected a finite number", what, s);
    }
    return TCH_OK;
}

static tch_status skip_values(text_reader* r, long count, const char* what, tch_error* err) {
    token t;
    tch_status status = TCH_OK;
    for (long i = 0; i < count && status == TCH_OK; ++i) {
        status = expect_token(r, &t, what, err);
    }
    return status;
}

/* The rest of the current line (after the last token), blanks trimmed, into out[size]. */
static void rest_of_line(text_reader* r, char* out, size_t size) {
    token t;
    size_t used = 0;
    out[0] = '\0';
    while (next_token_in(r, &t, 0)) {
        size_t n = t.length < size - used - 1 ? t.length : size - used - 1;
        if (used > 0 && used < size - 1) {
            out[used++] = ' ';
            n = n < size - used - 1 ? n : size - used - 1;
        }
        memcpy(out + used, t.text, n);
        used += n;
        out[used] = '\0';
    }
}

/* Moves past the end of the current line. */
static void skip_line(text_reader* r) {
    while (r->pos < r->size && r->bytes[r->pos] != '\n') {
        r->pos++;
    }
    if (r->pos < r->size) {
        r->pos++;
        r->line++;
    }
}

/* ---- what a reader collects ---- */

typedef struct field_choice {
    char name[64];
    int rank;           /* 3: "epsilon", 2: "pressure", 1: another name, 0: none yet */
    tch_real* values;   /* [vertex_count] */
} field_choice;

typedef struct raw_mesh {
    tch_vec3* vertices;
    int vertex_count;
    int (*tets)[4];
    int tet_count;
    field_choice field;
} raw_mesh;

static void free_raw(raw_mesh* m) {
    free(m->vertices);
    free(m->tets);
    free(m->field.values);
}

static int contains_ignoring_case(const char* text, const char* word) {
    size_t n = strlen(word);
    for (const char* p = text; *p; ++p) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == word[i]) {
            ++i;
        }
        if (i == n) {
            return 1;
        }
    }
    return 0;
}

static int field_rank(const char* name) {
    return contains_ignoring_case(name, "epsilon") ? 3
                                                   : (contains_ignoring_case(name, "pressure") ? 2 : 1);
}

/* Keeps `values` (taking ownership) when its name ranks above the current choice. */
static void offer_field(field_choice* choice, const char* name, tch_real* values) {
    int rank = field_rank(name);
    if (rank <= choice->rank) {
        free(values);
        return;
    }
    free(choice->values);
    tch_copy_string(choice->name, sizeof choice->name, name);
    choice->rank = rank;
    choice->values = values;
}

static tch_status no_memory(const text_reader* r, tch_error* err) {
    return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, r->name, 0, "out of memory while reading a tet mesh");
}

static void* allocate(size_t count, size_t size) {
    return malloc(count > 0 ? count * size : 1);
}

/* Reads `count` reals into a new array *out. */
static tch_status read_reals(text_reader* r, long count, const char* what, tch_real** out,
                             tch_error* err) {
    *out = allocate((size_t)count, sizeof **out);
    if (!*out) {
        return no_memory(r, err);
    }
    tch_status status = TCH_OK;
    for (long i = 0; i < count && status == TCH_OK; ++i) {
        status = read_real(r, what, &(*out)[i], err);
    }
    if (status != TCH_OK) {
        free(*out);
        *out = NULL;
    }
    return status;
}

/* ---- VTK legacy ---- */

static tch_status vtk_header(text_reader* r, tch_error* err) {
    token t;
    skip_line(r); /* "# vtk DataFile Version x.x", checked by the caller */
    skip_line(r); /* the title */
    tch_status status = expect_token(r, &t, "ASCII", err);
    if (status == TCH_OK && token_is(&t, "BINARY")) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, r->name, t.line,
                        "binary VTK files are not supported yet; expected ASCII (save the file "
                        "as ASCII)");
    }
    if (status == TCH_OK && !token_is(&t, "ASCII")) {
        status = parse_error(r, t.line, err, "expected ASCII on line 3 of a VTK legacy file");
    }
    if (status == TCH_OK) {
        status = expect_word(r, "DATASET", err);
    }
    if (status == TCH_OK) {
        status = expect_token(r, &t, "UNSTRUCTURED_GRID", err);
    }
    if (status == TCH_OK && !token_is(&t, "UNSTRUCTURED_GRID")) {
        char s[64];
        shown(&t, s, sizeof s);
        status = parse_error(r, t.line, err,
                             "dataset is '%s'; expected UNSTRUCTURED_GRID (a tetrahedral mesh)", s);
    }
    return status;
}

static tch_status vtk_points(text_reader* r, raw_mesh* m, tch_error* err) {
    int count = 0;
    tch_status status = read_count(r, "the number of points after POINTS", &count, err);
    token type;
    if (status == TCH_OK) {
        status = expect_token(r, &type, "the point data type (float or double)", err);
    }
    tch_real* xyz = NULL;
    if (status == TCH_OK) {
        status = read_reals(r, 3L * count, "a point coordinate", &xyz, err);
    }
    if (status != TCH_OK) {
        return status;
    }
    free(m->vertices);
    m->vertices = allocate((size_t)count, sizeof *m->vertices);
    if (!m->vertices) {
        free(xyz);
        return no_memory(r, err);
    }
    for (int i = 0; i < count; ++i) {
        m->vertices[i] = tch_v3(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
    }
    m->vertex_count = count;
    free(xyz);
    return TCH_OK;
}

static tch_status read_vertex_index(text_reader* r, const raw_mesh* m, int* out, tch_error* err) {
    long value = 0;
    tch_status status = read_long(r, "a point index of a cell", 0, (long)m->vertex_count - 1,
                                  &value, err);
    *out = (int)value;
    return status;
}

/* Legacy layout: per cell, "4 a b c d". */
static tch_status vtk_cells_legacy(text_reader* r, raw_mesh* m, tch_error* err) {
    tch_status status = TCH_OK;
    for (int c = 0; c < m->tet_count && status == TCH_OK; ++c) {
        token t;
        long n = 0;
        status = expect_token(r, &t, "the point count of a cell", err);
        if (status == TCH_OK) {
            status = token_long(r, &t, "the point count of a cell", 0, LONG_MAX, &n, err);
        }
        if (status == TCH_OK && n != 4) {
            status = parse_error(r, t.line, err,
                                 "cell %d has %ld points; expected 4 (a tetrahedron)", c, n);
        }
        for (int k = 0; k < 4 && status == TCH_OK; ++k) {
            status = read_vertex_index(r, m, &m->tets[c][k], err);
        }
    }
    return status;
}

/* VTK 5.1 layout: "OFFSETS type" with cells + 1 offsets, "CONNECTIVITY type" with the
 * indices; every offset step must be 4. */
static tch_status vtk_cells_offsets(text_reader* r, raw_mesh* m, int offset_count,
                                    tch_error* err) {
    token t;
    tch_status status = expect_token(r, &t, "the offset type", err);
    long previous = 0, offset = 0;
    for (int i = 0; i < offset_count && status == TCH_OK; ++i) {
        status = read_long(r, "a cell offset", 0, LONG_MAX, &offset, err);
        if (status == TCH_OK && i > 0 && offset - previous != 4) {
            status = parse_error(r, r->line, err,
                                 "cell %d has %ld points; expected 4 (a tetrahedron)", i - 1,
                                 offset - previous);
        }
        previous = offset;
    }
    if (status == TCH_OK) {
        status = expect_word(r, "CONNECTIVITY", err);
    }
    if (status == TCH_OK) {
        status = expect_token(r, &t, "the connectivity type", err);
    }
    for (int c = 0; c < m->tet_count && status == TCH_OK; ++c) {
        for (int k = 0; k < 4 && status == TCH_OK; ++k) {
            status = read_vertex_index(r, m, &m->tets[c][k], err);
        }
    }
    return status;
}

static tch_status vtk_cells(text_reader* r, raw_mesh* m, tch_error* err) {
    int line = r->line;
    if (!m->vertices) {
        return parse_error(r, line, err, "CELLS comes before POINTS; expected POINTS first");
    }
    int count = 0, size = 0;
    tch_status status = read_count(r, "the number of cells after CELLS", &count, err);
    if (status == TCH_OK) {
        status = read_count(r, "the size of the cell list after CELLS", &size, err);
    }
    if (status != TCH_OK) {
        return status;
    }
    size_t saved_pos = r->pos;
    int saved_line = r->line;
    token t;
    int offsets = next_token_in(r, &t, 1) && token_is(&t, "OFFSETS");
    if (!offsets) {
        r->pos = saved_pos;
        r->line = saved_line;
    }
    free(m->tets);
    m->tet_count = offsets ? (count > 0 ? count - 1 : 0) : count;
    m->tets = allocate((size_t)m->tet_count, sizeof *m->tets);
    if (!m->tets) {
        return no_memory(r, err);
    }
    return offsets ? vtk_cells_offsets(r, m, count, err) : vtk_cells_legacy(r, m, err);
}

static tch_status vtk_cell_types(text_reader* r, const raw_mesh* m, tch_error* err) {
    int count = 0;
    tch_status status = read_count(r, "the number of cell types", &count, err);
    if (status == TCH_OK && count != m->tet_count) {
        status = parse_error(r, r->line, err,
                             "CELL_TYPES lists %d cells; expected %d as in CELLS", count,
                             m->tet_count);
    }
    for (int c = 0; c < count && status == TCH_OK; ++c) {
        long type;
        status = read_long(r, "a cell type", LONG_MIN, LONG_MAX, &type, err);
        if (status == TCH_OK && type != vtk_tetra) {
            status = parse_error(r, r->line, err,
                                 "cell %d has type %ld; expected 10 (VTK_TETRA): touche reads "
                                 "tetrahedral meshes only",
                                 c, type);
        }
    }
    return status;
}

/* SCALARS name type [components], optional LOOKUP_TABLE name, then the values. */
static tch_status vtk_scalars(text_reader* r, long count, int is_points, raw_mesh* m,
                              tch_error* err) {
    token name_token, t;
    char name[max_token] = "";
    tch_status status = expect_token(r, &name_token, "the SCALARS name", err);
    if (status == TCH_OK) {
        token_string(&name_token, name);
        status = expect_token(r, &t, "the SCALARS data type", err);
    }
    long components = 1;
    if (status == TCH_OK && next_token_in(r, &t, 0)) {
        status = token_long(r, &t, "the SCALARS component count", 1, 4, &components, err);
    }
    size_t saved_pos = r->pos;
    int saved_line = r->line;
    if (status == TCH_OK && next_token_in(r, &t, 1) && token_is(&t, "LOOKUP_TABLE")) {
        status = expect_token(r, &t, "the lookup table name", err);
    } else {
        r->pos = saved_pos;
        r->line = saved_line;
    }
    if (status != TCH_OK) {
        return status;
    }
    if (!is_points || components != 1) {
        return skip_values(r, count * components, "a SCALARS value", err);
    }
    tch_real* values;
    status = read_reals(r, count, "a SCALARS value", &values, err);
    if (status == TCH_OK) {
        offer_field(&m->field, name, values);
    }
    return status;
}

/* FIELD name n, then n arrays "name components tuples type" and their values. */
static tch_status vtk_field(text_reader* r, long count, int is_points, raw_mesh* m,
                            tch_error* err) {
    token t;
    int arrays = 0;
    tch_status status = expect_token(r, &t, "the FIELD name", err);
    if (status == TCH_OK) {
        status = read_count(r, "the number of FIELD arrays", &arrays, err);
    }
    for (int a = 0; a < arrays && status == TCH_OK; ++a) {
        char name[max_token] = "";
        long components, tuples;
        status = expect_token(r, &t, "a FIELD array name", err);
        if (status == TCH_OK) {
            token_string(&t, name);
            status = read_long(r, "the array's component count", 1, 1 << 20, &components, err);
        }
        if (status == TCH_OK) {
            status = read_long(r, "the array's tuple count", 0, INT_MAX, &tuples, err);
        }
        if (status == TCH_OK) {
            status = expect_token(r, &t, "the array's data type", err);
        }
        if (status != TCH_OK) {
            break;
        }
        if (!is_points || components != 1 || tuples != count) {
            status = skip_values(r, components * tuples, "a FIELD value", err);
            continue;
        }
        tch_real* values;
        status = read_reals(r, count, "a FIELD value", &values, err);
        if (status == TCH_OK) {
            offer_field(&m->field, name, values);
        }
    }
    return status;
}

/* Skips "METADATA" blocks, which end at an empty line. */
static void vtk_skip_metadata(text_reader* r) {
    skip_line(r);
    while (r->pos < r->size) {
        size_t start = r->pos;
        skip_line(r);
        int blank = 1;
        for (size_t i = start; i < r->pos; ++i) {
            blank = blank && (is_blank(r->bytes[i]) || r->bytes[i] == '\n');
        }
        if (blank) {
            return;
        }
    }
}

/* The attributes after POINT_DATA / CELL_DATA, until the next section keyword. */
static tch_status vtk_attribute(text_reader* r, const token* t, long count, int is_points,
                                raw_mesh* m, tch_error* err) {
    if (token_is(t, "SCALARS")) {
        return vtk_scalars(r, count, is_points, m, err);
    }
    if (token_is(t, "FIELD")) {
        return vtk_field(r, count, is_points, m, err);
    }
    static const struct { const char* keyword; long per_item; } sized[] = {
        {"VECTORS", 3}, {"NORMALS", 3}, {"TENSORS", 9}};
    for (size_t i = 0; i < sizeof sized / sizeof sized[0]; ++i) {
        if (token_is(t, sized[i].keyword)) {
            token skip;
            tch_status status = expect_token(r, &skip, "the attribute name", err);
            if (status == TCH_OK) {
                status = expect_token(r, &skip, "the attribute data type", err);
            }
            return status == TCH_OK
                       ? skip_values(r, count * sized[i].per_item, sized[i].keyword, err)
                       : status;
        }
    }
    char s[64];
    shown(t, s, sizeof s);
    return parse_error(r, t->line, err,
                       "unexpected '%s'; expected a VTK section (POINTS, CELLS, CELL_TYPES, "
                       "POINT_DATA, CELL_DATA) or attribute (SCALARS, FIELD, VECTORS, NORMALS, "
                       "TENSORS, METADATA)",
                       s);
}

static tch_status vtk_body(text_reader* r, raw_mesh* m, tch_error* err) {
    token t;
    long data_count = 0;
    int is_points = 0, have_types = 0;
    tch_status status = TCH_OK;
    while (status == TCH_OK && next_token_in(r, &t, 1)) {
        if (token_is(&t, "POINTS")) {
            status = vtk_points(r, m, err);
        } else if (token_is(&t, "CELLS")) {
            status = vtk_cells(r, m, err);
        } else if (token_is(&t, "CELL_TYPES")) {
            status = vtk_cell_types(r, m, err);
            have_types = 1;
        } else if (token_is(&t, "POINT_DATA") || token_is(&t, "CELL_DATA")) {
            is_points = token_is(&t, "POINT_DATA");
            status = read_long(r, "the number of data values", 0, INT_MAX, &data_count, err);
            if (status == TCH_OK && is_points && data_count != m->vertex_count) {
                status = parse_error(r, t.line, err,
                                     "POINT_DATA has %ld values; expected %d, one per point",
                                     data_count, m->vertex_count);
            }
        } else if (token_is(&t, "METADATA")) {
            vtk_skip_metadata(r);
        } else {
            status = vtk_attribute(r, &t, data_count, is_points, m, err);
        }
    }
    if (status == TCH_OK && (!m->vertices || !m->tets || !have_types)) {
        status = parse_error(r, r->token_line, err,
                             "VTK file ends without %s; expected POINTS, CELLS and CELL_TYPES",
                             !m->vertices ? "POINTS" : (!m->tets ? "CELLS" : "CELL_TYPES"));
    }
    return status;
}

static tch_status read_vtk(text_reader* r, raw_mesh* m, tch_error* err) {
    tch_status status = vtk_header(r, err);
    return status == TCH_OK ? vtk_body(r, m, err) : status;
}

/* ---- Gmsh ---- */

typedef struct node_tag {
    long tag;
    int index;
} node_tag;

typedef struct gmsh_mesh {
    int version;       /* 2 or 4 */
    node_tag* tags;    /* [node_count] sorted by tag after $Nodes */
    tch_vec3* nodes;   /* [node_count] in file order */
    int node_count;
    long (*tets)[4];   /* node tags */
    int tet_count, tet_capacity;
    tch_real* node_field; /* [node_count] of the chosen $NodeData, by node index */
} gmsh_mesh;

static int compare_tags(const void* pa, const void* pb) {
    const node_tag *a = pa, *b = pb;
    return (a->tag > b->tag) - (a->tag < b->tag);
}

static int find_node(const gmsh_mesh* g, long tag) {
    node_tag key = {tag, 0};
    const node_tag* hit = bsearch(&key, g->tags, (size_t)g->node_count, sizeof key, compare_tags);
    return hit ? hit->index : -1;
}

/* Reads tokens up to "$End<section>". */
static tch_status skip_section(text_reader* r, const token* start, tch_error* err) {
    char end[max_token + 8] = "$End";
    char name[max_token];
    if (!token_string(start, name)) {
        return parse_error(r, start->line, err, "section name is longer than %d characters",
                           max_token - 1);
    }
    strncat(end, name + 1, max_token);
    token t;
    while (next_token_in(r, &t, 1)) {
        if (token_is(&t, end)) {
            return TCH_OK;
        }
    }
    return parse_error(r, r->token_line, err, "unexpected end of file; expected %s", end);
}

static tch_status gmsh_format(text_reader* r, gmsh_mesh* g, tch_error* err) {
    token t;
    tch_real version;
    long file_type;
    tch_status status = expect_token(r, &t, "the format version", err);
    if (status != TCH_OK) {
        return status;
    }
    int line = t.line;
    char text[max_token];
    version = token_string(&t, text) ? strtod(text, NULL) : 0;
    status = read_long(r, "the file type (0 for ASCII)", 0, 1, &file_type, err);
    if (status == TCH_OK && file_type == 1) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, r->name, line,
                        "binary .msh files are not supported yet; expected ASCII (file type 0)");
    }
    if (status == TCH_OK && !(version >= 2 && version < 3) && version != 4.1) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, r->name, line,
                        ".msh version %g is not supported yet; expected 2.x or 4.1 (ASCII)",
                        version);
    }
    g->version = version < 3 ? 2 : 4;
    token skip;
    if (status == TCH_OK) {
        status = expect_token(r, &skip, "the data size", err);
    }
    return status == TCH_OK ? expect_word(r, "$EndMeshFormat", err) : status;
}

static tch_status read_node(text_reader* r, gmsh_mesh* g, int i, tch_error* err) {
    tch_real xyz[3];
    tch_status status = TCH_OK;
    for (int k = 0; k < 3 && status == TCH_OK; ++k) {
        status = read_real(r, "a node coordinate", &xyz[k], err);
    }
    g->nodes[i] = tch_v3(xyz[0], xyz[1], xyz[2]);
    return status;
}

static tch_status allocate_nodes(text_reader* r, gmsh_mesh* g, int count, tch_error* err) {
    if (g->nodes) {
        return parse_error(r, r->line, err, "a second $Nodes section; expected one");
    }
    g->node_count = count;
    g->nodes = allocate((size_t)count, sizeof *g->nodes);
    g->tags = allocate((size_t)count, sizeof *g->tags);
    return g->nodes && g->tags ? TCH_OK : no_memory(r, err);
}

static tch_status gmsh_nodes_v2(text_reader* r, gmsh_mesh* g, tch_error* err) {
    int count = 0;
    tch_status status = read_count(r, "the number of nodes", &count, err);
    if (status == TCH_OK) {
        status = allocate_nodes(r, g, count, err);
    }
    for (int i = 0; i < count && status == TCH_OK; ++i) {
        status = read_long(r, "a node tag", 1, LONG_MAX, &g->tags[i].tag, err);
        g->tags[i].index = i;
        if (status == TCH_OK) {
            status = read_node(r, g, i, err);
        }
    }
    return status;
}

/* v4.1: blocks of "dim entity parametric n", n tags, then n coordinate lines. */
static tch_status gmsh_nodes_v4(text_reader* r, gmsh_mesh* g, tch_error* err) {
    int blocks = 0, count = 0;
    long skip = 0;
    tch_status status = read_count(r, "the number of node blocks", &blocks, err);
    if (status == TCH_OK) {
        status = read_count(r, "the number of nodes", &count, err);
    }
    for (int k = 0; k < 2 && status == TCH_OK; ++k) {
        status = read_long(r, "the node tag range", 0, LONG_MAX, &skip, err);
    }
    if (status == TCH_OK) {
        status = allocate_nodes(r, g, count, err);
    }
    int next = 0;
    for (int b = 0; b < blocks && status == TCH_OK; ++b) {
        long dim = 0, parametric = 0, n = 0;
        status = read_long(r, "the entity dimension of a node block", 0, 3, &dim, err);
        if (status == TCH_OK) {
            status = read_long(r, "the entity tag of a node block", LONG_MIN, LONG_MAX, &skip, err);
        }
        if (status == TCH_OK) {
            status = read_long(r, "the parametric flag (0 or 1)", 0, 1, &parametric, err);
        }
        if (status == TCH_OK) {
            status = read_long(r, "the number of nodes in the block", 0, count - next, &n, err);
        }
        for (long i = 0; i < n && status == TCH_OK; ++i) {
            status = read_long(r, "a node tag", 1, LONG_MAX, &g->tags[next + i].tag, err);
            g->tags[next + i].index = next + (int)i;
        }
        for (long i = 0; i < n && status == TCH_OK; ++i) {
            status = read_node(r, g, next + (int)i, err);
            if (status == TCH_OK && parametric) {
                status = skip_values(r, dim, "a parametric coordinate", err);
            }
        }
        next += (int)n;
    }
    if (status == TCH_OK && next != count) {
        status = parse_error(r, r->line, err, "node blocks hold %d nodes; expected %d", next, count);
    }
    return status;
}

static tch_status gmsh_nodes(text_reader* r, gmsh_mesh* g, tch_error* err) {
    tch_status status = g->version == 2 ? gmsh_nodes_v2(r, g, err) : gmsh_nodes_v4(r, g, err);
    if (status != TCH_OK) {
        return status;
    }
    qsort(g->tags, (size_t)g->node_count, sizeof *g->tags, compare_tags);
    for (int i = 1; i < g->node_count; ++i) {
        if (g->tags[i].tag == g->tags[i - 1].tag) {
            return parse_error(r, r->line, err, "node tag %ld appears twice; expected unique tags",
                               g->tags[i].tag);
        }
    }
    return expect_word(r, "$EndNodes", err);
}

/* The integers of one record line (an element), at most max_record. */
static tch_status read_record(text_reader* r, long* values, int* count, int* line,
                              tch_error* err) {
    token t;
    tch_status status = expect_token(r, &t, "an element record", err);
    *line = t.line;
    *count = 0;
    while (status == TCH_OK) {
        if (*count == max_record) {
            return parse_error(r, *line, err, "element record has more than %d numbers",
                               max_record);
        }
        status = token_long(r, &t, "an element record number", LONG_MIN, LONG_MAX,
                            &values[(*count)++], err);
        if (!next_token_in(r, &t, 0)) {
            break;
        }
    }
    return status;
}

static tch_status add_tet(text_reader* r, gmsh_mesh* g, const long* tags, tch_error* err) {
    if (g->tet_count == g->tet_capacity) {
        if (g->tet_capacity > INT_MAX / 4) {
            return no_memory(r, err);
        }
        int capacity = 2 * g->tet_capacity + 64;
        long(*grown)[4] = realloc(g->tets, (size_t)capacity * sizeof *grown);
        if (!grown) {
            return no_memory(r, err);
        }
        g->tets = grown;
        g->tet_capacity = capacity;
    }
    memcpy(g->tets[g->tet_count++], tags, sizeof *g->tets);
    return TCH_OK;
}

/* An element record: v2 "tag type ntags tags... nodes...", v4 "tag nodes..." of `type`. */
static tch_status gmsh_element(text_reader* r, gmsh_mesh* g, long type, tch_error* err) {
    long v[max_record];
    int n, line;
    tch_status status = read_record(r, v, &n, &line, err);
    if (status != TCH_OK) {
        return status;
    }
    int first_node = 1;
    if (g->version == 2) {
        if (n < 3 || v[2] < 0 || 3 + v[2] > n) {
            return parse_error(r, line, err,
                               "malformed element record; expected 'tag type tag-count tags... "
                               "nodes...'");
        }
        type = v[1];
        first_node = 3 + (int)v[2];
    }
    if (type != gmsh_tet4) {
        return TCH_OK;
    }
    if (n - first_node != 4) {
        return parse_error(r, line, err,
                           "tetrahedron element %ld has %d nodes; expected 4 (element type 4)",
                           v[0], n - first_node);
    }
    for (int k = 0; k < 4; ++k) {
        if (find_node(g, v[first_node + k]) < 0) {
            return parse_error(r, line, err,
                               "element %ld uses node %ld, which is not in $Nodes; expected a "
                               "node tag listed there",
                               v[0], v[first_node + k]);
        }
    }
    return add_tet(r, g, v + first_node, err);
}

static tch_status gmsh_elements(text_reader* r, gmsh_mesh* g, tch_error* err) {
    if (!g->nodes) {
        return parse_error(r, r->line, err, "$Elements comes before $Nodes; expected $Nodes first");
    }
    int blocks = 1, count = 0;
    long skip = 0, type = 0;
    tch_status status = TCH_OK;
    if (g->version == 4) {
        status = read_count(r, "the number of element blocks", &blocks, err);
    }
    if (status == TCH_OK) {
        status = read_count(r, "the number of elements", &count, err);
    }
    for (int k = 0; k < 2 && g->version == 4 && status == TCH_OK; ++k) {
        status = read_long(r, "the element tag range", 0, LONG_MAX, &skip, err);
    }
    for (int b = 0; b < blocks && status == TCH_OK; ++b) {
        long n = count;
        if (g->version == 4) {
            for (int k = 0; k < 2 && status == TCH_OK; ++k) {
                status = read_long(r, "the entity of an element block", LONG_MIN, LONG_MAX, &skip,
                                   err);
            }
            if (status == TCH_OK) {
                status = read_long(r, "the element type of a block", 1, LONG_MAX, &type, err);
            }
            if (status == TCH_OK) {
                status = read_long(r, "the number of elements in the block", 0, count, &n, err);
            }
        }
        for (long i = 0; i < n && status == TCH_OK; ++i) {
            status = gmsh_element(r, g, type, err);
        }
    }
    return status == TCH_OK ? expect_word(r, "$EndElements", err) : status;
}

/* The name in a quoted string tag line (quotes removed). */
static void unquote(char* text) {
    size_t n = strlen(text);
    if (n >= 2 && text[0] == '"' && text[n - 1] == '"') {
        memmove(text, text + 1, n - 2);
        text[n - 2] = '\0';
    }
}

/* $NodeData: string tags (the first is the name), real tags, integer tags (time step,
 * components, count), then "tag value" lines. */
static tch_status gmsh_node_data(text_reader* r, gmsh_mesh* g, field_choice* choice,
                                 tch_error* err) {
    char name[64] = "";
    long strings = 0, reals = 0, integers = 0, tag_values[3] = {0, 1, 0};
    tch_status status = read_long(r, "the number of string tags", 0, 64, &strings, err);
    for (long i = 0; i < strings && status == TCH_OK; ++i) {
        char line[256];
        skip_blanks(r, 1);
        rest_of_line(r, line, sizeof line);
        if (i == 0) {
            unquote(line);
            tch_copy_string(name, sizeof name, line);
        }
    }
    if (status == TCH_OK) {
        status = read_long(r, "the number of real tags", 0, 64, &reals, err);
    }
    if (status == TCH_OK) {
        status = skip_values(r, reals, "a real tag", err);
    }
    if (status == TCH_OK) {
        status = read_long(r, "the number of integer tags", 3, 64, &integers, err);
    }
    for (long i = 0; i < integers && status == TCH_OK; ++i) {
        long value = 0;
        status = read_long(r, "an integer tag", LONG_MIN, LONG_MAX, &value, err);
        if (i < 3) {
            tag_values[i] = value;
        }
    }
    if (status != TCH_OK || !g->nodes) {
        return status == TCH_OK ? parse_error(r, r->line, err,
                                              "$NodeData comes before $Nodes; expected $Nodes first")
                                : status;
    }
    long components = tag_values[1], count = tag_values[2];
    if (components < 1 || count < 0 || count > g->node_count) {
        return parse_error(r, r->line, err,
                           "$NodeData has %ld components and %ld values; expected 1 or more "
                           "components and at most %d values",
                           components, count, g->node_count);
    }
    tch_real* values = allocate((size_t)g->node_count, sizeof *values);
    if (!values) {
        return no_memory(r, err);
    }
    for (int i = 0; i < g->node_count; ++i) {
        values[i] = NAN;
    }
    for (long i = 0; i < count && status == TCH_OK; ++i) {
        long tag;
        status = read_long(r, "a node tag", LONG_MIN, LONG_MAX, &tag, err);
        int node = status == TCH_OK ? find_node(g, tag) : 0;
        if (status == TCH_OK && node < 0) {
            status = parse_error(r, r->line, err,
                                 "$NodeData names node %ld, which is not in $Nodes", tag);
        }
        if (status == TCH_OK) {
            status = read_real(r, "a node value", &values[node], err);
        }
        if (status == TCH_OK) {
            status = skip_values(r, components - 1, "a node value", err);
        }
    }
    if (status == TCH_OK) {
        status = expect_word(r, "$EndNodeData", err);
    }
    if (status != TCH_OK || components != 1) {
        free(values);
        return status;
    }
    offer_field(choice, name, values);
    return TCH_OK;
}

static tch_status gmsh_sections(text_reader* r, gmsh_mesh* g, field_choice* field,
                                tch_error* err) {
    token t;
    int have_format = 0;
    tch_status status = TCH_OK;
    while (status == TCH_OK && next_token_in(r, &t, 1)) {
        if (!have_format && !token_is(&t, "$MeshFormat")) {
            return parse_error(r, t.line, err, "expected $MeshFormat at the start of a .msh file");
        }
        if (token_is(&t, "$MeshFormat")) {
            status = gmsh_format(r, g, err);
            have_format = 1;
        } else if (token_is(&t, "$Nodes")) {
            status = gmsh_nodes(r, g, err);
        } else if (token_is(&t, "$Elements")) {
            status = gmsh_elements(r, g, err);
        } else if (token_is(&t, "$NodeData")) {
            status = gmsh_node_data(r, g, field, err);
        } else if (t.length > 1 && t.text[0] == '$') {
            status = skip_section(r, &t, err);
        } else {
            char s[64];
            shown(&t, s, sizeof s);
            status = parse_error(r, t.line, err, "unexpected '%s'; expected a section such as "
                                 "$Nodes or $Elements", s);
        }
    }
    if (status == TCH_OK && (!g->nodes || g->tet_count == 0)) {
        status = parse_error(r, r->token_line, err,
                             ".msh file has %s; expected $Nodes and tetrahedra (element type 4) "
                             "in $Elements",
                             !g->nodes ? "no $Nodes" : "no tetrahedra");
    }
    return status;
}

/* The tets' nodes, numbered densely in file order (nodes only other elements use are
 * dropped), with the field carried along. */
static tch_status gmsh_compact(const text_reader* r, const gmsh_mesh* g, raw_mesh* m,
                               tch_error* err) {
    int* new_index = allocate((size_t)g->node_count, sizeof *new_index);
    m->tets = allocate((size_t)g->tet_count, sizeof *m->tets);
    m->vertices = allocate((size_t)g->node_count, sizeof *m->vertices);
    tch_real* field = m->field.values;
    m->field.values = field ? allocate((size_t)g->node_count, sizeof *field) : NULL;
    if (!new_index || !m->tets || !m->vertices || (field && !m->field.values)) {
        free(new_index);
        free(field);
        return no_memory(r, err);
    }
    for (int i = 0; i < g->node_count; ++i) {
        new_index[i] = -1;
    }
    for (int t = 0; t < g->tet_count; ++t) {
        for (int k = 0; k < 4; ++k) {
            new_index[find_node(g, g->tets[t][k])] = 0;
        }
    }
    m->vertex_count = 0;
    for (int i = 0; i < g->node_count; ++i) {
        if (new_index[i] == 0) {
            new_index[i] = m->vertex_count;
            m->vertices[m->vertex_count] = g->nodes[i];
            if (field) {
                m->field.values[m->vertex_count] = field[i];
            }
            m->vertex_count++;
        }
    }
    for (int t = 0; t < g->tet_count; ++t) {
        for (int k = 0; k < 4; ++k) {
            m->tets[t][k] = new_index[find_node(g, g->tets[t][k])];
        }
    }
    m->tet_count = g->tet_count;
    free(new_index);
    free(field);
    return TCH_OK;
}

static tch_status read_gmsh(text_reader* r, raw_mesh* m, tch_tetmesh_format* format,
                            tch_error* err) {
    gmsh_mesh g = {0};
    tch_status status = gmsh_sections(r, &g, &m->field, err);
    *format = g.version == 4 ? TCH_TETMESH_FORMAT_GMSH4 : TCH_TETMESH_FORMAT_GMSH2;
    if (status == TCH_OK) {
        status = gmsh_compact(r, &g, m, err);
    }
    for (int i = 0; status == TCH_OK && m->field.values && i < m->vertex_count; ++i) {
        if (isnan(m->field.values[i])) {
            status = parse_error(r, 0, err,
                                 "$NodeData '%s' has no value for vertex %d; expected one value "
                                 "per node of the tetrahedra",
                                 m->field.name, i);
        }
    }
    free(g.tags);
    free(g.nodes);
    free(g.tets);
    return status;
}

/* ---- entry points ---- */

/* Divides a pressure field by its largest value (see tetmesh.h). */
static tch_real normalize_field(raw_mesh* m) {
    if (m->field.rank != 2) {
        return 1;
    }
    tch_real largest = 0;
    for (int i = 0; i < m->vertex_count; ++i) {
        largest = fmax(largest, m->field.values[i]);
    }
    if (largest > 0) {
        for (int i = 0; i < m->vertex_count; ++i) {
            m->field.values[i] /= largest;
        }
    }
    return largest > 0 ? largest : 1;
}

static tch_status build_from_raw(raw_mesh* m, const char* name, tch_tetmesh* out,
                                 tch_tetmesh_file_info* info, tch_error* err) {
    tch_real scale = normalize_field(m);
    tch_status status =
        tch_tetmesh_build(TCH_TETMESH_SOLID, m->vertices, m->vertex_count,
                          (const int(*)[4])m->tets, m->tet_count, m->field.values, out, err);
    if (status != TCH_OK && err) {
        tch_copy_string(err->file, sizeof err->file, name);
    }
    if (info) {
        tch_copy_string(info->field_name, sizeof info->field_name, m->field.name);
        info->field_scale = scale;
    }
    return status;
}

static int starts_with(const char* bytes, size_t size, const char* prefix) {
    size_t n = strlen(prefix);
    return size >= n && memcmp(bytes, prefix, n) == 0;
}

tch_status tch_tetmesh_read_buffer(const char* bytes, size_t size, const char* name,
                                   tch_tetmesh* out, tch_tetmesh_file_info* info,
                                   tch_error* err) {
    memset(out, 0, sizeof *out);
    name = name ? name : "";
    text_reader r = {bytes, size, 0, 1, name, 1};
    skip_blanks(&r, 1);
    const char* start = bytes + r.pos;
    size_t rest = size - r.pos;
    tch_tetmesh_format format = TCH_TETMESH_FORMAT_VTK;
    raw_mesh m = {0};
    tch_status status;
    if (starts_with(start, rest, "# vtk") || starts_with(start, rest, "# VTK")) {
        status = read_vtk(&r, &m, err);
    } else if (starts_with(start, rest, "$")) {
        status = read_gmsh(&r, &m, &format, err);
    } else {
        status = tch_fail(err, TCH_ERR_PARSE, name, r.line,
                          "not a tet mesh file; expected a VTK legacy file ('# vtk DataFile "
                          "Version ...') or a Gmsh .msh file ('$MeshFormat')");
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->format = format;
        info->field_scale = 1;
    }
    if (status == TCH_OK) {
        status = build_from_raw(&m, name, out, info, err);
    }
    free_raw(&m);
    return status;
}

/* Reads a whole file into a malloc'ed buffer; NULL with errno set on failure. */
static char* slurp(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    char* data = NULL;
    long length = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (length >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc((size_t)length + 1);
        if (data && fread(data, 1, (size_t)length, f) != (size_t)length) {
            free(data);
            data = NULL;
            errno = EIO;
        }
    }
    fclose(f);
    *size = (size_t)(length > 0 ? length : 0);
    return data;
}

tch_status tch_tetmesh_read(const char* path, tch_tetmesh* out, tch_tetmesh_file_info* info,
                            tch_error* err) {
    size_t size = 0;
    char* bytes = slurp(path, &size);
    if (!bytes) {
        memset(out, 0, sizeof *out);
        return tch_fail(err, TCH_ERR_IO, path, 0, "cannot read tet mesh file: %s",
                        strerror(errno));
    }
    tch_status status = tch_tetmesh_read_buffer(bytes, size, path, out, info, err);
    free(bytes);
    return status;
}

/* ---- writers ---- */

typedef struct text_buffer {
    char* data;
    size_t size, capacity;
    int failed;
} text_buffer;

static void append(text_buffer* b, const char* format, ...) __attribute__((format(printf, 2, 3)));

static void append(text_buffer* b, const char* format, ...) {
    for (int attempt = 0; attempt < 2 && !b->failed; ++attempt) {
        va_list args;
        va_start(args, format);
        int n = vsnprintf(b->data + b->size, b->capacity - b->size, format, args);
        va_end(args);
        if (n < 0) {
            b->failed = 1;
        } else if ((size_t)n < b->capacity - b->size) {
            b->size += (size_t)n;
            return;
        } else {
            size_t capacity = 2 * b->capacity + (size_t)n + 4096;
            char* grown = realloc(b->data, capacity);
            b->failed = !grown;
            b->data = grown ? grown : b->data;
            b->capacity = grown ? capacity : b->capacity;
        }
    }
}

static void write_vtk(const tch_tetmesh* m, text_buffer* b) {
    append(b, "# vtk DataFile Version 3.0\ntouche tet mesh\nASCII\nDATASET UNSTRUCTURED_GRID\n");
    append(b, "POINTS %d double\n", m->vertex_count);
    for (int v = 0; v < m->vertex_count; ++v) {
        tch_vec3 p = m->vertices_G[v];
        append(b, "%.17g %.17g %.17g\n", p.x, p.y, p.z);
    }
    append(b, "CELLS %d %d\n", m->tet_count, 5 * m->tet_count);
    for (int t = 0; t < m->tet_count; ++t) {
        const int* q = m->tets[t];
        append(b, "4 %d %d %d %d\n", q[0], q[1], q[2], q[3]);
    }
    append(b, "CELL_TYPES %d\n", m->tet_count);
    for (int t = 0; t < m->tet_count; ++t) {
        append(b, "%d\n", vtk_tetra);
    }
    if (m->has_field) {
        append(b, "POINT_DATA %d\nSCALARS epsilon double 1\nLOOKUP_TABLE default\n",
               m->vertex_count);
        for (int v = 0; v < m->vertex_count; ++v) {
            append(b, "%.17g\n", m->epsilon[v]);
        }
    }
}

/* Gmsh sections shared by v2 and v4.1: nodes are tagged 1..n, tets 1..m. */
static void write_gmsh_node_data(const tch_tetmesh* m, text_buffer* b) {
    if (!m->has_field) {
        return;
    }
    append(b, "$NodeData\n1\n\"epsilon\"\n1\n0\n3\n0\n1\n%d\n", m->vertex_count);
    for (int v = 0; v < m->vertex_count; ++v) {
        append(b, "%d %.17g\n", v + 1, m->epsilon[v]);
    }
    append(b, "$EndNodeData\n");
}

static void write_gmsh2(const tch_tetmesh* m, text_buffer* b) {
    append(b, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", m->vertex_count);
    for (int v = 0; v < m->vertex_count; ++v) {
        tch_vec3 p = m->vertices_G[v];
        append(b, "%d %.17g %.17g %.17g\n", v + 1, p.x, p.y, p.z);
    }
    append(b, "$EndNodes\n$Elements\n%d\n", m->tet_count);
    for (int t = 0; t < m->tet_count; ++t) {
        const int* q = m->tets[t];
        append(b, "%d 4 2 1 1 %d %d %d %d\n", t + 1, q[0] + 1, q[1] + 1, q[2] + 1, q[3] + 1);
    }
    append(b, "$EndElements\n");
    write_gmsh_node_data(m, b);
}

/* v4.1 with one volume entity (tag 1) holding every node and tet. */
static void write_gmsh4(const tch_tetmesh* m, text_buffer* b) {
    tch_aabb box = m->bounds_G;
    append(b, "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n");
    append(b, "1 %.17g %.17g %.17g %.17g %.17g %.17g 0 0\n$EndEntities\n", box.lo.x, box.lo.y,
           box.lo.z, box.hi.x, box.hi.y, box.hi.z);
    int n = m->vertex_count;
    append(b, "$Nodes\n1 %d 1 %d\n3 1 0 %d\n", n, n, n);
    for (int v = 0; v < n; ++v) {
        append(b, "%d\n", v + 1);
    }
    for (int v = 0; v < n; ++v) {
        tch_vec3 p = m->vertices_G[v];
        append(b, "%.17g %.17g %.17g\n", p.x, p.y, p.z);
    }
    int t_count = m->tet_count;
    append(b, "$EndNodes\n$Elements\n1 %d 1 %d\n3 1 4 %d\n", t_count, t_count, t_count);
    for (int t = 0; t < t_count; ++t) {
        const int* q = m->tets[t];
        append(b, "%d %d %d %d %d\n", t + 1, q[0] + 1, q[1] + 1, q[2] + 1, q[3] + 1);
    }
    append(b, "$EndElements\n");
    write_gmsh_node_data(m, b);
}

tch_status tch_tetmesh_format_text(const tch_tetmesh* mesh, tch_tetmesh_format format,
                                   char** text, size_t* size, tch_error* err) {
    *text = NULL;
    *size = 0;
    text_buffer b = {malloc(4096), 0, 4096, 0};
    b.failed = !b.data;
    if (format == TCH_TETMESH_FORMAT_VTK) {
        write_vtk(mesh, &b);
    } else if (format == TCH_TETMESH_FORMAT_GMSH2) {
        write_gmsh2(mesh, &b);
    } else if (format == TCH_TETMESH_FORMAT_GMSH4) {
        write_gmsh4(mesh, &b);
    } else {
        free(b.data);
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "tet mesh format %d is unknown; expected VTK, GMSH2 or GMSH4",
                        (int)format);
    }
    if (b.failed) {
        free(b.data);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                        "out of memory while formatting a tet mesh");
    }
    *text = b.data;
    *size = b.size;
    return TCH_OK;
}

tch_status tch_tetmesh_write(const tch_tetmesh* mesh, tch_tetmesh_format format, const char* path,
                             tch_error* err) {
    char* text;
    size_t size;
    tch_status status = tch_tetmesh_format_text(mesh, format, &text, &size, err);
    if (status != TCH_OK) {
        return status;
    }
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE* f = n > 0 && (size_t)n < sizeof tmp ? fopen(tmp, "wb") : NULL;
    int ok = f && fwrite(text, 1, size, f) == size;
    ok = f && fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    free(text);
    if (!ok) {
        status = tch_fail(err, TCH_ERR_IO, path, 0, "cannot write tet mesh file: %s",
                          strerror(errno));
        remove(tmp);
    }
    return status;
}
