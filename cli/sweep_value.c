/* JSON and TOML-subset readers into one tree with line numbers (sweep_value.h). */
#define _POSIX_C_SOURCE 200809L
#include "sweep_value.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deepest nesting of arrays and tables accepted (keeps the recursion bounded). */
enum { MAX_DEPTH = 64 };

typedef struct reader {
    const char* name;
    const char* p;
    int line;
    int depth;
    char* err;
    size_t err_size;
    int failed;
} reader;

static int fail(reader* r, const char* format, ...) {
    if (r->failed) return 0;
    r->failed = 1;
    int n = snprintf(r->err, r->err_size, "%s:%d: ", r->name, r->line);
    va_list args;
    va_start(args, format);
    if (n >= 0 && (size_t)n < r->err_size) vsnprintf(r->err + n, r->err_size - (size_t)n, format, args);
    va_end(args);
    return 0;
}

static sweep_value* new_value(reader* r, sweep_value_kind kind) {
    sweep_value* v = calloc(1, sizeof *v);
    if (!v) {
        fail(r, "out of memory");
        return NULL;
    }
    v->kind = kind;
    v->line = r->line;
    return v;
}

void sweep_value_free(sweep_value* v) {
    if (!v) return;
    for (int i = 0; i < v->count; ++i) {
        sweep_value_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}

/* Appends `item` (under `key` in a table; the key is copied). Frees item on failure. */
static int append(reader* r, sweep_value* v, const char* key, sweep_value* item) {
    if (v->count == v->capacity) {
        int cap = v->capacity ? 2 * v->capacity : 4;
        sweep_value** items = realloc(v->items, (size_t)cap * sizeof *items);
        if (items) v->items = items;
        char** keys = v->kind == SWEEP_VALUE_TABLE ? realloc(v->keys, (size_t)cap * sizeof *keys) : NULL;
        if (keys) v->keys = keys;
        if (!items || (v->kind == SWEEP_VALUE_TABLE && !keys)) {
            sweep_value_free(item);
            return fail(r, "out of memory");
        }
        v->capacity = cap;
    }
    if (v->kind == SWEEP_VALUE_TABLE) {
        v->keys[v->count] = strdup(key);
        if (!v->keys[v->count]) {
            sweep_value_free(item);
            return fail(r, "out of memory");
        }
    }
    v->items[v->count++] = item;
    return 1;
}

const sweep_value* sweep_value_get(const sweep_value* table, const char* key) {
    if (!table || table->kind != SWEEP_VALUE_TABLE) return NULL;
    for (int i = 0; i < table->count; ++i) {
        if (strcmp(table->keys[i], key) == 0) return table->items[i];
    }
    return NULL;
}

const char* sweep_value_kind_name(sweep_value_kind kind) {
    static const char* const names[] = {"a boolean", "a number", "a string", "an array",
                                        "a table"};
    return names[kind];
}

/* ---- shared lexing ---- */

static void skip_blanks(reader* r) {
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\r') r->p++;
}

static int append_utf8(char** out, size_t* n, unsigned code) {
    char* s = *out;
    if (code < 0x80) {
        s[(*n)++] = (char)code;
    } else if (code < 0x800) {
        s[(*n)++] = (char)(0xC0 | (code >> 6));
        s[(*n)++] = (char)(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        s[(*n)++] = (char)(0xE0 | (code >> 12));
        s[(*n)++] = (char)(0x80 | ((code >> 6) & 0x3F));
        s[(*n)++] = (char)(0x80 | (code & 0x3F));
    } else {
        s[(*n)++] = (char)(0xF0 | (code >> 18));
        s[(*n)++] = (char)(0x80 | ((code >> 12) & 0x3F));
        s[(*n)++] = (char)(0x80 | ((code >> 6) & 0x3F));
        s[(*n)++] = (char)(0x80 | (code & 0x3F));
    }
    return 1;
}

static int read_hex(reader* r, int digits, unsigned* code) {
    *code = 0;
    for (int i = 0; i < digits; ++i) {
        char c = r->p[i];
        if (!isxdigit((unsigned char)c)) return fail(r, "bad \\u escape");
        *code = *code * 16 + (unsigned)(isdigit((unsigned char)c) ? c - '0' : (tolower(c) - 'a' + 10));
    }
    r->p += digits;
    return 1;
}

/* A double-quoted string with JSON's escapes (TOML's basic strings add \U); r->p at the quote.
 * Returns a new string or NULL. */
static char* read_quoted(reader* r, int toml) {
    if (toml && strncmp(r->p, "\"\"\"", 3) == 0) {
        fail(r, "multi-line strings are not supported");
        return NULL;
    }
    r->p++;
    size_t cap = strlen(r->p) * 4 + 1, n = 0; /* an escape never grows past 4 bytes per char */
    char* s = malloc(cap);
    if (!s) {
        fail(r, "out of memory");
        return NULL;
    }
    while (*r->p != '"') {
        unsigned char c = (unsigned char)*r->p;
        if (c == '\0' || c == '\n') {
            free(s);
            fail(r, "unterminated string");
            return NULL;
        }
        if (c < 0x20 && c != '\t') {
            free(s);
            fail(r, "control character in a string");
            return NULL;
        }
        if (c != '\\') {
            s[n++] = (char)c;
            r->p++;
            continue;
        }
        char e = r->p[1];
        r->p += 2;
        unsigned code = 0;
        const char* from = "\"\\/bfnrt";
        const char* to = "\"\\/\b\f\n\r\t";
        const char* k = e ? strchr(from, e) : NULL;
        if (k && !(toml && e == '/')) {
            s[n++] = to[k - from];
        } else if ((e == 'u' && read_hex(r, 4, &code)) || (toml && e == 'U' && read_hex(r, 8, &code))) {
            if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF && toml)) {
                free(s);
                fail(r, "bad unicode escape");
                return NULL;
            }
            append_utf8(&s, &n, code);
        } else {
            free(s);
            if (!r->failed) fail(r, "bad escape '\\%c' in a string", e ? e : ' ');
            return NULL;
        }
    }
    r->p++;
    s[n] = '\0';
    return s;
}

/* ---- JSON ---- */

static sweep_value* json_value(reader* r);

static void json_space(reader* r) {
    for (;;) {
        skip_blanks(r);
        if (*r->p != '\n') return;
        r->line++;
        r->p++;
    }
}

static sweep_value* json_number(reader* r) {
    const char* s = r->p;
    const char* q = s;
    if (*q == '-') q++;
    if (*q == '0') {
        q++;
    } else if (isdigit((unsigned char)*q)) {
        while (isdigit((unsigned char)*q)) q++;
    } else {
        fail(r, "expected a value");
        return NULL;
    }
    if (*q == '.') {
        if (!isdigit((unsigned char)*++q)) return fail(r, "bad number"), NULL;
        while (isdigit((unsigned char)*q)) q++;
    }
    if (*q == 'e' || *q == 'E') {
        q++;
        if (*q == '+' || *q == '-') q++;
        if (!isdigit((unsigned char)*q)) return fail(r, "bad number"), NULL;
        while (isdigit((unsigned char)*q)) q++;
    }
    sweep_value* v = new_value(r, SWEEP_VALUE_NUMBER);
    if (!v) return NULL;
    v->number = strtod(s, NULL);
    if (!isfinite(v->number)) {
        sweep_value_free(v);
        fail(r, "number out of range");
        return NULL;
    }
    r->p = q;
    return v;
}

static int json_word(reader* r, const char* word) {
    size_t n = strlen(word);
    if (strncmp(r->p, word, n) != 0 || isalnum((unsigned char)r->p[n])) return 0;
    r->p += n;
    return 1;
}

/* An array or an object: r->p at '[' or '{'. */
static sweep_value* json_container(reader* r, int object) {
    sweep_value* v = new_value(r, object ? SWEEP_VALUE_TABLE : SWEEP_VALUE_ARRAY);
    if (!v) return NULL;
    if (++r->depth > MAX_DEPTH) {
        fail(r, "nested deeper than %d", MAX_DEPTH);
        sweep_value_free(v);
        return NULL;
    }
    char close = object ? '}' : ']';
    r->p++;
    json_space(r);
    if (*r->p == close) {
        r->p++;
        r->depth--;
        return v;
    }
    for (;;) {
        char* key = NULL;
        json_space(r);
        if (object) {
            if (*r->p != '"') break;
            int key_line = r->line;
            key = read_quoted(r, 0);
            if (!key) break;
            if (sweep_value_get(v, key)) {
                r->line = key_line;
                fail(r, "duplicate key \"%s\"", key);
                free(key);
                break;
            }
            json_space(r);
            if (*r->p != ':') {
                free(key);
                break;
            }
            r->p++;
            json_space(r);
        }
        sweep_value* item = json_value(r);
        int ok = item && append(r, v, key, item);
        free(key);
        if (!ok) break;
        json_space(r);
        if (*r->p == ',') {
            r->p++;
            json_space(r);
            if (*r->p == close) {
                fail(r, "a trailing comma before '%c'", close);
                break;
            }
            continue;
        }
        if (*r->p == close) {
            r->p++;
            r->depth--;
            return v;
        }
        break;
    }
    if (!r->failed) {
        fail(r, object ? "expected \"key\": value, ',' or '}' in an object"
                       : "expected a value, ',' or ']' in an array");
    }
    sweep_value_free(v);
    return NULL;
}

static sweep_value* json_value(reader* r) {
    char c = *r->p;
    if (c == '{' || c == '[') return json_container(r, c == '{');
    if (c == '"') {
        sweep_value* v = new_value(r, SWEEP_VALUE_STRING);
        if (v && !(v->string = read_quoted(r, 0))) {
            sweep_value_free(v);
            return NULL;
        }
        return v;
    }
    int truth = json_word(r, "true");
    if (truth || json_word(r, "false")) {
        sweep_value* v = new_value(r, SWEEP_VALUE_BOOL);
        if (v) v->boolean = truth;
        return v;
    }
    if (json_word(r, "null")) {
        fail(r, "null is not a value here");
        return NULL;
    }
    return json_number(r);
}

static sweep_value* json_document(reader* r) {
    json_space(r);
    if (*r->p != '{') {
        fail(r, "expected a JSON object ('{')");
        return NULL;
    }
    sweep_value* root = json_value(r);
    if (!root) return NULL;
    json_space(r);
    if (*r->p) {
        fail(r, "unexpected text after the JSON object");
        sweep_value_free(root);
        return NULL;
    }
    return root;
}

/* ---- TOML subset ---- */

static sweep_value* toml_value(reader* r);

/* Blanks, comments and (inside arrays) line ends. */
static void toml_space(reader* r, int newlines) {
    for (;;) {
        skip_blanks(r);
        if (*r->p == '#') {
            while (*r->p && *r->p != '\n') r->p++;
        }
        if (!newlines || *r->p != '\n') return;
        r->line++;
        r->p++;
    }
}

static int bare_key_char(char c) {
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* One key part (bare, "basic" or 'literal'); returns a new string or NULL. */
static char* toml_key_part(reader* r) {
    if (*r->p == '"') return read_quoted(r, 1);
    const char* s = r->p;
    if (*r->p == '\'') {
        const char* end = strchr(++s, '\'');
        const char* nl = strchr(s, '\n');
        if (!end || (nl && nl < end)) {
            fail(r, "unterminated string");
            return NULL;
        }
        r->p = end + 1;
        return strndup(s, (size_t)(end - s));
    }
    while (bare_key_char(*r->p)) r->p++;
    if (r->p == s) {
        fail(r, "expected a key");
        return NULL;
    }
    return strndup(s, (size_t)(r->p - s));
}

/* A dotted key into parts (at most 16); returns how many, 0 on failure. */
static int toml_key(reader* r, char* parts[16]) {
    int n = 0;
    for (;;) {
        skip_blanks(r);
        if (n == 16) {
            fail(r, "key with more than 16 parts");
            break;
        }
        if (!(parts[n] = toml_key_part(r))) break;
        n++;
        skip_blanks(r);
        if (*r->p != '.') return n;
        r->p++;
    }
    while (n > 0) free(parts[--n]);
    return 0;
}

static void free_parts(char* parts[16], int n) {
    while (n > 0) free(parts[--n]);
}

/* The table `key` of `table`, created when missing; NULL (after failing) when `key` holds
 * something else. For [[array]] headers the last table of the array. */
static sweep_value* toml_subtable(reader* r, sweep_value* table, const char* key) {
    sweep_value* v = (sweep_value*)sweep_value_get(table, key);
    if (v && v->kind == SWEEP_VALUE_ARRAY && v->count > 0 &&
        v->items[v->count - 1]->kind == SWEEP_VALUE_TABLE) {
        return v->items[v->count - 1];
    }
    if (v) {
        if (v->kind == SWEEP_VALUE_TABLE) return v;
        fail(r, "key \"%s\" is already %s", key, sweep_value_kind_name(v->kind));
        return NULL;
    }
    v = new_value(r, SWEEP_VALUE_TABLE);
    return v && append(r, table, key, v) ? v : NULL;
}

/* key = value into `table`. */
static int toml_key_value(reader* r, sweep_value* table) {
    char* parts[16];
    int line = r->line;
    int n = toml_key(r, parts);
    if (!n) return 0;
    sweep_value* t = table;
    for (int i = 0; t && i + 1 < n; ++i) t = toml_subtable(r, t, parts[i]);
    int ok = 0;
    if (t && sweep_value_get(t, parts[n - 1])) {
        fail(r, "duplicate key \"%s\"", parts[n - 1]);
    } else if (t) {
        skip_blanks(r);
        if (*r->p != '=') {
            fail(r, "expected '=' after the key \"%s\"", parts[n - 1]);
        } else {
            r->p++;
            skip_blanks(r);
            sweep_value* v = toml_value(r);
            if (v) v->line = line;
            ok = v && append(r, t, parts[n - 1], v);
        }
    }
    free_parts(parts, n);
    return ok;
}

static sweep_value* toml_inline_table(reader* r) {
    sweep_value* v = new_value(r, SWEEP_VALUE_TABLE);
    if (!v) return NULL;
    r->p++;
    skip_blanks(r);
    if (*r->p == '}') {
        r->p++;
        return v;
    }
    for (;;) {
        if (!toml_key_value(r, v)) break;
        skip_blanks(r);
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        if (*r->p == '}') {
            r->p++;
            return v;
        }
        fail(r, "expected ',' or '}' in an inline table (on one line)");
        break;
    }
    sweep_value_free(v);
    return NULL;
}

static sweep_value* toml_array(reader* r) {
    sweep_value* v = new_value(r, SWEEP_VALUE_ARRAY);
    if (!v) return NULL;
    r->p++;
    for (;;) {
        toml_space(r, 1);
        if (*r->p == ']') {
            r->p++;
            return v;
        }
        sweep_value* item = toml_value(r);
        if (!item || !append(r, v, NULL, item)) break;
        toml_space(r, 1);
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        if (*r->p == ']') {
            r->p++;
            return v;
        }
        fail(r, "expected ',' or ']' in an array");
        break;
    }
    sweep_value_free(v);
    return NULL;
}

/* A TOML number: optional sign, digits with single '_' between them, fraction, exponent;
 * inf and nan are refused. */
static sweep_value* toml_number(reader* r) {
    char text[128];
    size_t n = 0;
    const char* q = r->p;
    while (*q && (isalnum((unsigned char)*q) || strchr("+-._:", *q))) {
        int after_digit = n > 0 && isdigit((unsigned char)text[n - 1]);
        if (*q == ':' || (*q == '-' && after_digit)) {
            fail(r, "dates and times are not supported");
            return NULL;
        }
        if (*q == '_') {
            if (n == 0 || !isdigit((unsigned char)text[n - 1]) || !isdigit((unsigned char)q[1])) {
                fail(r, "bad number");
                return NULL;
            }
        } else if (n + 1 < sizeof text) {
            text[n++] = *q;
        }
        q++;
    }
    text[n] = '\0';
    char* end = NULL;
    errno = 0;
    double x = strtod(text, &end);
    int digits = n > 0 && (isdigit((unsigned char)text[n > 1 && (text[0] == '+' || text[0] == '-')]));
    if (n == 0 || !digits || *end || errno || !isfinite(x) || strpbrk(text, "xXnN")) {
        fail(r, n == 0 ? "expected a value" : "bad value '%s'", text);
        return NULL;
    }
    sweep_value* v = new_value(r, SWEEP_VALUE_NUMBER);
    if (v) v->number = x;
    r->p = q;
    return v;
}

static sweep_value* toml_value(reader* r) {
    if (++r->depth > MAX_DEPTH) {
        fail(r, "nested deeper than %d", MAX_DEPTH);
        return NULL;
    }
    sweep_value* v = NULL;
    char c = *r->p;
    if (c == '[') {
        v = toml_array(r);
    } else if (c == '{') {
        v = toml_inline_table(r);
    } else if (c == '"' || c == '\'') {
        if (strncmp(r->p, "'''", 3) == 0) {
            fail(r, "multi-line strings are not supported");
        } else {
            v = new_value(r, SWEEP_VALUE_STRING);
            if (v && !(v->string = toml_key_part(r))) {
                sweep_value_free(v);
                v = NULL;
            }
        }
    } else if (strncmp(r->p, "true", 4) == 0 && !bare_key_char(r->p[4])) {
        v = new_value(r, SWEEP_VALUE_BOOL);
        if (v) v->boolean = 1;
        r->p += 4;
    } else if (strncmp(r->p, "false", 5) == 0 && !bare_key_char(r->p[5])) {
        v = new_value(r, SWEEP_VALUE_BOOL);
        r->p += 5;
    } else {
        v = toml_number(r);
    }
    r->depth--;
    return v;
}

/* A [table] or [[array of tables]] header: returns the table that later keys fill. */
static sweep_value* toml_header(reader* r, sweep_value* root) {
    int array = r->p[1] == '[';
    r->p += array ? 2 : 1;
    char* parts[16];
    int n = toml_key(r, parts);
    if (!n) return NULL;
    sweep_value* t = root;
    for (int i = 0; t && i + 1 < n; ++i) t = toml_subtable(r, t, parts[i]);
    skip_blanks(r);
    if (t && strncmp(r->p, array ? "]]" : "]", array ? 2 : 1) != 0) {
        fail(r, array ? "expected ']]'" : "expected ']'");
        t = NULL;
    }
    r->p += array ? 2 : 1;
    const char* key = parts[n - 1];
    sweep_value* existing = t ? (sweep_value*)sweep_value_get(t, key) : NULL;
    sweep_value* result = NULL;
    if (!t) {
        /* failed above */
    } else if (array) {
        if (existing && existing->kind != SWEEP_VALUE_ARRAY) {
            fail(r, "key \"%s\" is already %s", key, sweep_value_kind_name(existing->kind));
        } else if (existing || ((existing = new_value(r, SWEEP_VALUE_ARRAY)) &&
                                append(r, t, key, existing))) {
            result = new_value(r, SWEEP_VALUE_TABLE);
            if (result && !append(r, existing, NULL, result)) result = NULL;
        }
    } else if (existing && (existing->kind != SWEEP_VALUE_TABLE || existing->defined)) {
        fail(r, "table [%s] defined twice", key);
    } else {
        result = existing ? existing : toml_subtable(r, t, key);
    }
    if (result) {
        result->defined = 1;
        result->line = r->line;
    }
    free_parts(parts, n);
    return result;
}

static sweep_value* toml_document(reader* r) {
    sweep_value* root = new_value(r, SWEEP_VALUE_TABLE);
    sweep_value* current = root;
    while (root && current) {
        toml_space(r, 1);
        if (!*r->p) return root;
        int ok = *r->p == '[' ? (current = toml_header(r, root)) != NULL
                              : toml_key_value(r, current);
        if (!ok) break;
        toml_space(r, 0);
        if (*r->p && *r->p != '\n') {
            fail(r, "expected the end of the line after a value");
            break;
        }
    }
    sweep_value_free(root);
    return NULL;
}

int sweep_value_parse(const char* name, const char* text, int toml, sweep_value** root,
                      char* err, size_t err_size) {
    reader r = {name, text, 1, 0, err, err_size, 0};
    *root = toml ? toml_document(&r) : json_document(&r);
    return *root != NULL;
}

char* sweep_read_text_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0, got;
    char* text = malloc(cap);
    while (text && (got = fread(text + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char* bigger = realloc(text, cap *= 2);
            if (!bigger) free(text);
            text = bigger;
        }
    }
    fclose(f);
    if (text) text[n] = '\0';
    if (size) *size = n;
    return text;
}

int sweep_value_read_file(const char* path, sweep_value** root, char* err, size_t err_size) {
    *root = NULL;
    size_t n = 0;
    char* text = sweep_read_text_file(path, &n);
    if (!text) {
        snprintf(err, err_size, "%s: cannot read: %s", path, errno ? strerror(errno) : "out of memory");
        return 0;
    }
    int ok = 0;
    const char* nul = memchr(text, '\0', n);
    if (nul) {
        int line = 1;
        for (const char* c = text; c < nul; ++c) line += *c == '\n';
        snprintf(err, err_size, "%s:%d: a NUL byte in the text", path, line);
    } else {
        size_t len = strlen(path);
        int toml = len >= 5 && strcmp(path + len - 5, ".toml") == 0;
        ok = sweep_value_parse(path, text, toml, root, err, err_size);
    }
    free(text);
    return ok;
}
