/* The web viewer's parts of the touche command (docs/viewer.md): the scene's geometry as JSON,
 * the page (the bundled viewer, cli/viewer_bundle.c, with the run's data in it), `touche view`
 * and the live mode of `touche run --live PORT` (cli/live.c). */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "cli.h"

/* The bundled viewer script (viewer/, built by esbuild), or NULL when touche was built without
 * it (node or npm missing at configure time). */
const char* cli_viewer_bundle(size_t* size);

/* Why cli_viewer_bundle is NULL, as a sentence for the user. */
extern const char* const CLI_VIEWER_NOT_BUILT;

/* Writes the scene's geometry (bodies, geoms, hulls, tet-mesh surfaces) as one JSON object;
 * returns 0 when out of memory or on a write error (cli/scene_json.c). */
int cli_json_scene(FILE* f, const char* source, const tch_model* model);

/* One block of data in the page: <script type="text/plain" id="ID">TEXT</script>. */
typedef struct cli_page_part {
    const char* id;
    const char* text;
    size_t size;
} cli_page_part;

/* Writes the viewer page: the parts, then the bundle. Returns 0 without the bundle. */
int cli_write_viewer_page(FILE* f, const char* title, const cli_page_part* parts, int count);

/* The live mode of `touche run` (cli/live.c): serves the viewer on a port and streams the
 * run to the pages that connect; a page may drag a body through a spring. */
typedef struct cli_live cli_live;

/* Starts the server on 127.0.0.1:port; prints why and returns NULL when it cannot. */
cli_live* cli_live_start(int port, int realtime, const char* scene_path, const tch_model* model);
/* Called before every step: applies the drag spring, sends a frame when one is due (60 Hz)
 * and a page is connected, and with realtime waits until the wall clock reaches the data's
 * time. */
void cli_live_before_step(cli_live* live, const tch_model* model, tch_data* data);
/* Stops the server; prints how many frames it sent. NULL is allowed. */
void cli_live_stop(cli_live* live);
