/* The viewer page: one self-contained HTML file, the run's data in <script type="text/plain">
 * blocks and the bundled viewer (docs/viewer.md). */
#include <string.h>

#include "viewer.h"

/* Writes `text` so that it cannot end its script block: "</" becomes "<\/" and "<\" becomes
 * "<\\" (viewer/src/data.js reverses both, exactly). */
static void write_escaped(FILE* f, const char* text, size_t size) {
    size_t start = 0;
    for (size_t i = 0; i + 1 < size; ++i) {
        if (text[i] == '<' && (text[i + 1] == '/' || text[i + 1] == '\\')) {
            fwrite(text + start, 1, i + 1 - start, f);
            fputc('\\', f);
            start = i + 1;
        }
    }
    fwrite(text + start, 1, size - start, f);
}

int cli_write_viewer_page(FILE* f, const char* title, const cli_page_part* parts, int count) {
    size_t bundle_size = 0;
    const char* bundle = cli_viewer_bundle(&bundle_size);
    if (!bundle) return 0;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>");
    for (const char* c = title; *c; ++c) {
        if (*c == '<') fputs("&lt;", f);
        else if (*c == '&') fputs("&amp;", f);
        else fputc(*c, f);
    }
    fprintf(f, "</title>\n</head>\n<body>\n");
    for (int i = 0; i < count; ++i) {
        fprintf(f, "<script type=\"text/plain\" id=\"%s\">", parts[i].id);
        write_escaped(f, parts[i].text, parts[i].size);
        fprintf(f, "</script>\n");
    }
    fprintf(f, "<script>\n");
    fwrite(bundle, 1, bundle_size, f);
    fprintf(f, "\n</script>\n</body>\n</html>\n");
    return !ferror(f);
}
