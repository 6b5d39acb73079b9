#define _XOPEN_SOURCE 700
/* Checkpoints (touche/checkpoint.h): a data restored from a checkpoint continues bit-identically
 * to the run that wrote it, for each contact model (the implicit integrator's kept system, the
 * volume model's friction springs, the lcp model's warm starts and sleeping counters) and an
 * articulated robot; corrupt, truncated and foreign checkpoints are refused with a clear
 * error, leaving the data as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "touche/touche.h"

/* Two boxes resting on a third on the floor and a tilted box falling onto them, on `model`:
 * contacts that start, persist, slide and (lcp) come to rest. */
static const char* const STACK =
    "<mujoco xmlns:touche=\"urn:touche\"><option timestep=\"%s\" touche:contact=\"%s\"/>"
    "<worldbody><geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>"
    "<body name=\"a\" pos=\"0 0 0.1\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" "
    "mass=\"1\"/></body>"
    "<body name=\"b\" pos=\"0.02 0 0.3\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" "
    "mass=\"1\"/></body>"
    "<body name=\"c\" pos=\"0.3 0 0.1\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" "
    "mass=\"1\"/></body>"
    "<body name=\"d\" pos=\"0.25 0.05 0.45\" euler=\"0.3 0.2 0\"><freejoint/>"
    "<geom type=\"box\" size=\"0.08 0.08 0.08\" mass=\"0.5\"/></body>"
    "</worldbody></mujoco>";

/* Three boxes on the lcp model, the top one landing on the other two at 0.16 s: the island
 * then rests, its row solver reusing a kept factor, and falls asleep 0.5 s later. */
static const char* const LCP_TOWER =
    "<mujoco xmlns:touche=\"urn:touche\"><option touche:contact=\"lcp\"/><worldbody>"
    "<geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>"
    "<body name=\"a\" pos=\"0 0 0.1\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" "
    "mass=\"1\"/></body>"
    "<body name=\"b\" pos=\"0.02 0 0.3\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\" "
    "mass=\"1\"/></body>"
    "<body name=\"c\" pos=\"0.1 0.05 0.6\" euler=\"0.3 0.2 0\"><freejoint/>"
    "<geom type=\"box\" size=\"0.08 0.08 0.08\" mass=\"0.5\"/></body>"
    "</worldbody></mujoco>";

static tch_model* compile_xml(const char* xml) {
    tch_spec* spec = NULL;
    tch_model* m = NULL;
    tch_error err;
    if (tch_mjcf_load_string(xml, NULL, "checkpoint_scene", &spec, &err) != TCH_OK) {
        fprintf(stderr, "%s\n", err.message);
        return NULL;
    }
    if (tch_compile(spec, &m, &err) != TCH_OK) {
        fprintf(stderr, "%s\n", err.message);
    }
    tch_spec_destroy(spec);
    return m;
}

static tch_model* stack(const char* contact, const char* timestep) {
    char xml[2048];
    snprintf(xml, sizeof xml, STACK, timestep, contact);
    return compile_xml(xml);
}

static tch_model* load_file(const char* relative) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", TCH_SOURCE_DIR, relative);
    tch_spec* spec = NULL;
    tch_model* m = NULL;
    tch_error err;
    if (tch_mjcf_load(path, &spec, &err) == TCH_OK) {
        tch_compile(spec, &m, &err);
        tch_spec_destroy(spec);
    }
    return m;
}

static void checkpoint_path(char* path, size_t size, const char* name) {
    snprintf(path, size, "%s/test_checkpoint_%ld_%s.bin", TCH_BINARY_DIR, (long)getpid(), name);
}

static int step_n(const tch_model* m, tch_data* d, int steps) {
    for (int i = 0; i < steps; ++i) {
        if (tch_step(m, d, NULL) != TCH_OK) {
            return 0;
        }
    }
    return 1;
}

/* Do two data hold the same bits of state? */
static int same_state(const tch_model* m, const tch_data* a, const tch_data* b) {
    return memcmp(&a->time, &b->time, sizeof a->time) == 0 &&
           memcmp(a->qpos, b->qpos, (size_t)m->nq * sizeof *a->qpos) == 0 &&
           memcmp(a->qvel, b->qvel, (size_t)m->nv * sizeof *a->qvel) == 0 &&
           memcmp(a->body_force_W, b->body_force_W, (size_t)m->body_count * sizeof(tch_vec3)) == 0 &&
           a->contact_count == b->contact_count &&
           memcmp(a->warning_count, b->warning_count, sizeof a->warning_count) == 0;
}

/* Runs `before` steps, saves, and checks that a data restored from the save (one that has
 * stepped on its own first, so that stale state would show) follows the same `after` steps
 * bit for bit. Returns the steps that matched, -1 on a failed call. */
static int restored_matches(const tch_model* m, int before, int after, const char* name) {
    char path[1024];
    checkpoint_path(path, sizeof path, name);
    tch_data *run = NULL, *restored = NULL;
    tch_error err;
    int matched = -1;
    if (tch_data_create(m, &run, &err) != TCH_OK || tch_data_create(m, &restored, &err) != TCH_OK ||
        !step_n(m, run, before) || !step_n(m, restored, before / 3 + 1)) {
        goto done;
    }
    if (tch_data_save_checkpoint(m, run, path, &err) != TCH_OK ||
        tch_data_load_checkpoint(m, restored, path, &err) != TCH_OK) {
        fprintf(stderr, "%s\n", err.message);
        goto done;
    }
    for (matched = 0; matched < after && same_state(m, run, restored); ++matched) {
        if (tch_step(m, run, NULL) != TCH_OK || tch_step(m, restored, NULL) != TCH_OK) {
            matched = -1;
            break;
        }
    }
    if (matched == after && !same_state(m, run, restored)) {
        matched--;
    }
    tch_watch_report ra, rb;
    tch_data_watch_report(run, &ra);
    tch_data_watch_report(restored, &rb);
    if (memcmp(&ra, &rb, sizeof ra) != 0) {
        matched = -2;
    }
done:
    tch_data_destroy(run);
    tch_data_destroy(restored);
    remove(path);
    return matched;
}

static void test_point_implicit(void) {
    tch_model* m = stack("point", "0.002");
    ENSURE(m && m->integrator == TCH_INTEGRATOR_IMPLICIT);
    int matched = restored_matches(m, 1500, 150, "point");
    tch_model_destroy(m);
    ENSURE(matched == 150);
}

static void test_volume(void) {
    tch_model* m = stack("volume", "0.002");
    ENSURE(m);
    int matched = restored_matches(m, 150, 150, "volume");
    tch_model_destroy(m);
    ENSURE(matched == 150);
}

static void test_pressure(void) {
    tch_model* m = stack("pressure", "0.002");
    ENSURE(m);
    int matched = restored_matches(m, 100, 100, "pressure");
    tch_model_destroy(m);
    ENSURE(matched == 100);
}

/* Warm starts throughout; the row solver's kept factor (restored at 0.2 s, while the tower
 * settles); and sleeping: the tower falls asleep about 0.5 s after it comes to rest, after
 * the restore (its rest counts carried over). */
static void test_lcp_warm_start_kept_factor_and_sleep(void) {
    tch_model* m = compile_xml(LCP_TOWER);
    ENSURE(m);
    int matched = restored_matches(m, 100, 400, "lcp");
    tch_data* d = NULL;
    tch_error err;
    int asleep = 0;
    if (tch_data_create(m, &d, &err) == TCH_OK && step_n(m, d, 500)) {
        asleep = d->constraint_sleeping_islands;
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
    ENSURE(matched == 400);
    ENSURE(asleep > 0);
}

static void test_articulated_puma(void) {
    tch_model* m = load_file("examples/puma560.xml");
    ENSURE(m && m->joint_count > 0);
    int matched = restored_matches(m, 100, 100, "puma");
    tch_model_destroy(m);
    ENSURE(matched == 100);
}

/* A link carrying a ball rests on the floor beside a box, with volume and the implicit
 * integrator: at rest the implicit system with the tree's block is kept across steps
 * (engine/implicit.c, its signature holding the links' poses and the step matrix), and a
 * checkpoint carries it, the tree's group and the link's Jacobian, so the restored run takes
 * the same system. */
static void test_articulated_implicit_contact(void) {
    tch_model* m = compile_xml(
        "<mujoco xmlns:touche='urn:touche'><option touche:contact='volume'/>"
        "<worldbody><geom name='floor' type='plane' size='2 2 0.1'/>"
        "<body name='arm' pos='0 0 0.3'><joint name='hinge' axis='0 1 0' damping='0.5' "
        "stiffness='1' frictionloss='0.1'/>"
        "<geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.01' contype='0' conaffinity='0' "
        "mass='0.2'/><geom name='ball' type='sphere' pos='0.5 0 0' size='0.05' mass='1'/>"
        "</body><body name='box' pos='-0.5 0 0.1'><freejoint/>"
        "<geom type='box' size='0.1 0.1 0.1'/></body></worldbody></mujoco>");
    ENSURE(m && m->integrator == TCH_INTEGRATOR_IMPLICIT);
    int matched = restored_matches(m, 1000, 100, "tree_implicit");
    tch_model_destroy(m);
    ENSURE(matched == 100);
}

/* Loads `path` into a data of m that has stepped 5 times: the status, and whether the data was
 * left unchanged. */
static tch_status load_into_stepped(const tch_model* m, const char* path, tch_error* err,
                                    int* unchanged) {
    tch_data *d = NULL, *copy = NULL;
    tch_data_create(m, &d, err);
    tch_data_create(m, &copy, err);
    step_n(m, d, 5);
    step_n(m, copy, 5);
    tch_status status = tch_data_load_checkpoint(m, d, path, err);
    *unchanged = same_state(m, d, copy);
    tch_data_destroy(d);
    tch_data_destroy(copy);
    return status;
}

static long file_size(const char* path) {
    FILE* f = fopen(path, "rb");
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        size = ftell(f);
    }
    if (f) {
        fclose(f);
    }
    return size;
}

static void rewrite(const char* path, long size, long flip_at) {
    FILE* f = fopen(path, "r+b");
    if (!f) {
        return;
    }
    if (flip_at >= 0 && fseek(f, flip_at, SEEK_SET) == 0) {
        int c = fgetc(f);
        fseek(f, flip_at, SEEK_SET);
        fputc(c ^ 0x10, f);
    }
    fclose(f);
    if (size >= 0) {
        if (truncate(path, size) != 0) {
            remove(path);
        }
    }
}

static void test_bad_checkpoints_are_refused(void) {
    tch_model* m = stack("lcp", "0.005");
    tch_model* other = stack("point", "0.002");
    ENSURE(m && other);
    char path[1024];
    checkpoint_path(path, sizeof path, "bad");
    tch_data* d = NULL;
    tch_error err;
    ENSURE(tch_data_create(m, &d, &err) == TCH_OK && step_n(m, d, 20));
    int unchanged = 0;
    /* a flipped byte in the payload */
    ENSURE(tch_data_save_checkpoint(m, d, path, &err) == TCH_OK);
    long size = file_size(path);
    ENSURE(size > 100);
    rewrite(path, -1, size / 2);
    ENSURE(load_into_stepped(m, path, &err, &unchanged) == TCH_ERR_PARSE && unchanged);
    ENSURE(strstr(err.message, "corrupt") && strstr(err.message, "CRC-32"));
    ENSURE(strcmp(err.file, path) == 0);
    /* truncated */
    ENSURE(tch_data_save_checkpoint(m, d, path, &err) == TCH_OK);
    rewrite(path, size - 7, -1);
    ENSURE(load_into_stepped(m, path, &err, &unchanged) == TCH_ERR_PARSE && unchanged);
    ENSURE(strstr(err.message, "truncated"));
    rewrite(path, 12, -1);
    ENSURE(load_into_stepped(m, path, &err, &unchanged) == TCH_ERR_PARSE && unchanged);
    ENSURE(strstr(err.message, "truncated"));
    /* not a checkpoint, and a missing file */
    rewrite(path, -1, 0);
    ENSURE(load_into_stepped(m, path, &err, &unchanged) == TCH_ERR_PARSE && unchanged);
    ENSURE(strstr(err.message, "not a touche checkpoint"));
    remove(path);
    ENSURE(load_into_stepped(m, path, &err, &unchanged) == TCH_ERR_IO && unchanged);
    /* another scene: same sizes, another contact model and time step */
    ENSURE(tch_data_save_checkpoint(m, d, path, &err) == TCH_OK);
    ENSURE(load_into_stepped(other, path, &err, &unchanged) == TCH_ERR_PARSE && unchanged);
    ENSURE(strstr(err.message, "another scene"));
    remove(path);
    tch_data_destroy(d);
    tch_model_destroy(m);
    tch_model_destroy(other);
}

static unsigned crc32_of(const unsigned char* bytes, long n) {
    unsigned crc = 0xFFFFFFFFu;
    for (long i = 0; i < n; ++i) {
        crc ^= bytes[i];
        for (int bit = 0; bit < 8; ++bit) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

/* Payloads changed byte by byte with their checksum fixed (a forged or buggy file): the load
 * reads nothing out of bounds (ASan) and answers OK or a parse error. */
static void test_forged_payloads_are_read_safely(void) {
    tch_model* m = compile_xml(LCP_TOWER);
    ENSURE(m);
    char path[1024];
    checkpoint_path(path, sizeof path, "forged");
    tch_data* d = NULL;
    tch_error err;
    ENSURE(tch_data_create(m, &d, &err) == TCH_OK && step_n(m, d, 150));
    ENSURE(tch_data_save_checkpoint(m, d, path, &err) == TCH_OK);
    long size = file_size(path);
    unsigned char* good = malloc((size_t)size);
    FILE* f = fopen(path, "rb");
    ENSURE(good && f && fread(good, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    int refused = 0, tried = 0;
    for (long at = 28; at < size; at += size / 97 + 1, ++tried) {
        unsigned char* bytes = malloc((size_t)size);
        memcpy(bytes, good, (size_t)size);
        bytes[at] ^= 0xA5;
        unsigned crc = crc32_of(bytes + 28, size - 28);
        memcpy(bytes + 24, &crc, 4);
        f = fopen(path, "wb");
        fwrite(bytes, 1, (size_t)size, f);
        fclose(f);
        free(bytes);
        tch_data* e = NULL;
        tch_data_create(m, &e, &err);
        tch_status status = tch_data_load_checkpoint(m, e, path, &err);
        refused += status == TCH_ERR_PARSE;
        tch_data_destroy(e);
        if (status != TCH_OK && status != TCH_ERR_PARSE) {
            refused = -1000000;
        }
    }
    free(good);
    remove(path);
    tch_data_destroy(d);
    tch_model_destroy(m);
    ENSURE(refused >= 0 && tried > 90);
}

/* A save to a directory that does not exist fails cleanly and writes nothing. */
static void test_unwritable_path(void) {
    tch_model* m = stack("point", "0.002");
    ENSURE(m);
    tch_data* d = NULL;
    tch_error err;
    ENSURE(tch_data_create(m, &d, &err) == TCH_OK);
    tch_status status = tch_data_save_checkpoint(m, d, "/nonexistent-dir/ck.bin", &err);
    tch_data_destroy(d);
    tch_model_destroy(m);
    ENSURE(status == TCH_ERR_IO && strstr(err.message, "cannot write"));
}

int main(void) {
    RUN_TEST(test_point_implicit);
    RUN_TEST(test_volume);
    RUN_TEST(test_pressure);
    RUN_TEST(test_lcp_warm_start_kept_factor_and_sleep);
    RUN_TEST(test_articulated_puma);
    RUN_TEST(test_articulated_implicit_contact);
    RUN_TEST(test_bad_checkpoints_are_refused);
    RUN_TEST(test_unwritable_path);
    RUN_TEST(test_forged_payloads_are_read_safely);
    return TEST_RESULT();
}
