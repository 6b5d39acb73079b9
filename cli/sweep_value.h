/* A document tree read from a JSON file or a TOML file, each value with the line it starts on,
 * so that what reads the tree can name the file and line of a value it refuses.
 *
 * JSON is RFC 8259, strictly (no comments, no trailing commas, no duplicate keys). TOML is the
 * subset a configuration needs: comments, `key = value` with bare, quoted and dotted keys,
 * [table] and [[array of tables]] headers, basic and literal strings, integers and floats
 * (with _ separators), booleans, arrays (over several lines, trailing comma allowed) and
 * inline tables. Dates and multi-line strings are refused with a message that says so. */
#pragma once

#include <stddef.h>

typedef enum sweep_value_kind {
    SWEEP_VALUE_BOOL,
    SWEEP_VALUE_NUMBER,
    SWEEP_VALUE_STRING,
    SWEEP_VALUE_ARRAY,
    SWEEP_VALUE_TABLE,
} sweep_value_kind;

typedef struct sweep_value {
    sweep_value_kind kind;
    int line;                    /* 1-based line of the value's first character */
    int boolean;
    double number;
    char* string;
    int count;                   /* array items or table entries */
    int capacity;
    struct sweep_value** items;  /* [count] */
    char** keys;                 /* tables: [count] */
    int defined;                 /* TOML: a table its own [header] defined */
} sweep_value;

/* Reads PATH (TOML when its name ends in .toml, else JSON) into *root, a table. Returns 1, or
 * 0 with "PATH:LINE: what is wrong" in err. */
int sweep_value_read_file(const char* path, sweep_value** root, char* err, size_t err_size);
/* The same from text in memory; `name` stands for the file in messages. */
int sweep_value_parse(const char* name, const char* text, int toml, sweep_value** root,
                      char* err, size_t err_size);
void sweep_value_free(sweep_value* v);
/* A whole file as a NUL-terminated string (its length in *size, if not NULL); NULL when it
 * cannot be read. */
char* sweep_read_text_file(const char* path, size_t* size);

/* The value of `key` in a table, or NULL. */
const sweep_value* sweep_value_get(const sweep_value* table, const char* key);
/* "a boolean", "a number", ...: for messages. */
const char* sweep_value_kind_name(sweep_value_kind kind);
