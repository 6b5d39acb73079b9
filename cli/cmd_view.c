/* touche view OUT_DIR: writes OUT_DIR/view.html, one self-contained page (the bundled viewer,
 * docs/viewer.md) that plays back the run `touche run --out OUT_DIR` wrote there: its
 * scene.json, trajectory.csv and contacts.jsonl (or the .partial twins of a run that stopped
 * part-way), copied into the page so that it opens from file:// with no server. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "viewer.h"

/* The whole of DIR/name, or of its .partial twin when only that exists; NULL when neither can
 * be read (errno says why). *used names the file read. */
static char* read_run_file(const char* dir, const char* name, size_t* size, char* used,
                           size_t used_size) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "rb");
    if (!f) {
        cli_partial_path(path, used, used_size);
        f = fopen(used, "rb");
        if (!f) {
            snprintf(used, used_size, "%s", path);
            return NULL;
        }
    } else {
        snprintf(used, used_size, "%s", path);
    }
    char* text = NULL;
    size_t capacity = 0;
    int failed = 0;
    *size = 0;
    for (;;) {
        if (*size + 65536 > capacity) {
            capacity = 2 * capacity + 65536;
            char* grown = realloc(text, capacity);
            if (!grown) {
                failed = 1;
                break;
            }
            text = grown;
        }
        size_t n = fread(text + *size, 1, capacity - *size, f);
        *size += n;
        if (n == 0) break;
    }
    failed |= ferror(f);
    fclose(f);
    if (failed) {
        free(text);
        errno = EIO;
        return NULL;
    }
    return text;
}

int cli_cmd_view(const cli_options* o) {
    const char* dir = o->scene;
    size_t bundle_size = 0;
    if (!cli_viewer_bundle(&bundle_size)) {
        fprintf(stderr, "touche view: %s\n", CLI_VIEWER_NOT_BUILT);
        return EXIT_FAILURE_GENERIC;
    }
    static const char* const FILES[3] = {"scene.json", "trajectory.csv", "contacts.jsonl"};
    static const char* const IDS[3] = {"touche-scene", "touche-trajectory", "touche-contacts"};
    cli_page_part parts[3];
    int count = 0, code = EXIT_OK;
    char used[3][1100];
    for (int i = 0; i < 3 && code == EXIT_OK; ++i) {
        size_t size = 0;
        char* text = read_run_file(dir, FILES[i], &size, used[i], sizeof used[i]);
        if (text) {
            parts[count++] = (cli_page_part){IDS[i], text, size};
        } else if (i < 2) { /* contacts.jsonl is optional (run --no-contacts) */
            fprintf(stderr, "touche view: cannot read %s: %s%s\n", used[i], strerror(errno),
                    i == 0 ? " (touche run --out DIR writes it; a run from before the viewer "
                             "did not: run it again)" : "");
            code = EXIT_BAD_INPUT;
        }
    }
    cli_output_file out = {0};
    char path[1024];
    snprintf(path, sizeof path, "%s/view.html", dir);
    if (code == EXIT_OK && !cli_open_output(&out, path, "view")) code = EXIT_BAD_INPUT;
    int written = code == EXIT_OK && cli_write_viewer_page(out.f, dir, parts, count);
    if (!cli_finish_output(&out, written ? CLI_KEEP : CLI_DISCARD, "view") ||
        (code == EXIT_OK && !written)) {
        code = code == EXIT_OK ? EXIT_FAILURE_GENERIC : code;
    }
    if (code == EXIT_OK) {
        fprintf(stderr, "touche view: wrote %s from %s, %s%s%s; open it in a browser\n", path,
                used[0], used[1], count == 3 ? " and " : " (no contacts)",
                count == 3 ? used[2] : "");
    }
    for (int i = 0; i < count; ++i) free((void*)parts[i].text);
    return code;
}
