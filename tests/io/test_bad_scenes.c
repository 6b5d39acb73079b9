/* The bad-input corpus (tests/scenes/bad/MANIFEST): every scene fails at its stage with a
 * status, a message, the scene's file name and a line > 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "touche/touche.h"

#define BAD_DIR TCH_SOURCE_DIR "/tests/scenes/bad/"

static int checked_count;

static void check_error_names_scene(const tch_error* err, tch_status status, const char* name) {
    if (status == TCH_OK || strstr(err->file, name) == NULL || err->line <= 0 ||
        err->message[0] == '\0') {
        fprintf(stderr, "%s: status %s, error %s:%d: %s\n", name, tch_status_name(status),
                err->file, err->line, err->message);
    }
    ENSURE(status != TCH_OK && err->status == status);
    ENSURE(strstr(err->file, name) != NULL);
    ENSURE(err->line > 0);
    ENSURE(err->message[0] != '\0');
}

static void check_scene(const char* name, const char* stage) {
    char path[512];
    snprintf(path, sizeof path, BAD_DIR "%s", name);
    tch_spec* spec = NULL;
    tch_error err;
    tch_status status = tch_mjcf_load(path, &spec, &err);
    if (strcmp(stage, "load") == 0) {
        ENSURE(spec == NULL);
        check_error_names_scene(&err, status, name);
    } else {
        ENSURE(strcmp(stage, "compile") == 0);
        if (status != TCH_OK) {
            fprintf(stderr, "%s: load failed: %s\n", name, err.message);
        }
        ENSURE(status == TCH_OK);
        tch_model* model = NULL;
        status = tch_compile(spec, &model, &err);
        tch_spec_destroy(spec);
        tch_model_destroy(model);
        ENSURE(model == NULL || status != TCH_OK);
        check_error_names_scene(&err, status, name);
    }
    ++checked_count;
}

static void test_every_manifest_scene_fails_at_its_stage(void) {
    FILE* manifest = fopen(BAD_DIR "MANIFEST", "r");
    ENSURE(manifest != NULL);
    char line[512];
    int failures_before = 0;
    while (fgets(line, sizeof line, manifest)) {
        char name[256], stage[32];
        if (line[0] == '#' || sscanf(line, "%255s %31s", name, stage) != 2) {
            continue;
        }
        int before = tch_test_current_failed;
        check_scene(name, stage);
        if (tch_test_current_failed && !before) {
            fprintf(stderr, "  scene %s (stage %s) failed the check\n", name, stage);
            ++failures_before;
            tch_test_current_failed = 0; /* report every scene, fail at the end */
        }
    }
    fclose(manifest);
    ENSURE(failures_before == 0);
    ENSURE(checked_count >= 30);
}

int main(void) {
    RUN_TEST(test_every_manifest_scene_fails_at_its_stage);
    return TEST_RESULT();
}
