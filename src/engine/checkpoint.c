/* Checkpoints of tch_data (touche/checkpoint.h, docs/checkpoints.md).
 *
 *     header   magic "TCHCKPT\0", format version, architecture word (sizeof tch_real, long,
 *              the pair state and the byte order), payload size, CRC-32 of the payload
 *     payload  the model's fingerprint, then the data's sections in a fixed order
 *
 * A load checks the header, the size, the checksum and the fingerprint before it changes the
 * data, so that a corrupt, truncated or foreign checkpoint leaves it as it was.
 */
#define _POSIX_C_SOURCE 200809L
#include "touche/checkpoint.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "engine/checkpoint_stream.h"
#include "engine/engine_internal.h"
#include "engine/implicit.h"
#include "engine/watch.h"
#include "solver/sparse_spd.h"
#include "touche/step.h"

enum { FORMAT_VERSION = 4, HEADER_BYTES = 8 + 4 + 4 + 8 + 4 };
static const char MAGIC[8] = "TCHCKPT";

/* ---- the stream ---- */

void tch_stream_put(tch_stream* s, const void* bytes, size_t n) {
    if (s->failed || n == 0) {
        return;
    }
    if (s->size + n > s->capacity) {
        size_t capacity = 2 * (s->size + n) + 4096;
        unsigned char* grown = realloc(s->bytes, capacity);
        if (!grown) {
            s->failed = 1;
            return;
        }
        s->bytes = grown;
        s->capacity = capacity;
    }
    memcpy(s->bytes + s->size, bytes, n);
    s->size += n;
}

int tch_stream_get(tch_stream* s, void* out, size_t n) {
    if (s->failed || s->at > s->size || n > s->size - s->at) {
        s->failed = 1;
        if (n > 0) {
            memset(out, 0, n);
        }
        return 0;
    }
    if (n == 0) {
        return 1; /* an empty array: out and the bytes may be NULL */
    }
    memcpy(out, s->bytes + s->at, n);
    s->at += n;
    return 1;
}

void tch_stream_put_count(tch_stream* s, long count) {
    TCH_PUT(s, count);
}

long tch_stream_get_count(tch_stream* s, long most) {
    long count = 0;
    if (!TCH_GET(s, count) || count < 0 || count > most) {
        s->failed = 1;
        return 0;
    }
    return count;
}

/* An array of `count` elements of `size` bytes, with its count. */
static void put_array(tch_stream* s, const void* array, long count, size_t size) {
    tch_stream_put_count(s, count);
    tch_stream_put(s, array, (size_t)count * size);
}

/* Reads an array written by put_array whose count must be exactly `count`. */
static void get_array(tch_stream* s, void* array, long count, size_t size) {
    if (tch_stream_get_count(s, count) != count) {
        s->failed = 1;
        return;
    }
    tch_stream_get(s, array, (size_t)count * size);
}

void tch_stream_transfer(tch_stream* s, void* bytes, size_t n) {
    if (s->reading) {
        tch_stream_get(s, bytes, n);
    } else {
        tch_stream_put(s, bytes, n);
    }
}

static void transfer_array(tch_stream* s, void* array, long count, size_t size) {
    if (s->reading) {
        get_array(s, array, count, size);
    } else {
        put_array(s, array, count, size);
    }
}

/* ---- checksum and fingerprint ---- */

/* CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), bit by bit. */
static uint32_t crc32(const unsigned char* bytes, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        crc ^= bytes[i];
        for (int bit = 0; bit < 8; ++bit) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

/* FNV-1a, 64 bits, continued from `hash`. */
static uint64_t fnv1a(uint64_t hash, const void* bytes, size_t n) {
    const unsigned char* p = bytes;
    for (size_t i = 0; i < n; ++i) {
        hash = (hash ^ p[i]) * 0x100000001b3ull;
    }
    return hash;
}

/* What identifies the compiled scene: its sizes and a hash of the arrays that define it. */
typedef struct fingerprint {
    int body_count, geom_count, nq, nv, actuator_count, mocap_count, integrator;
    tch_real timestep;
    uint64_t hash;
} fingerprint;

#define HASH_ARRAY(h, array, count) fnv1a((h), (array), (size_t)(count) * sizeof *(array))

static fingerprint model_fingerprint(const tch_model* m) {
    fingerprint f;
    memset(&f, 0, sizeof f); /* the padding too: it is hashed and written */
    f.body_count = m->body_count, f.geom_count = m->geom_count, f.nq = m->nq, f.nv = m->nv;
    f.actuator_count = m->actuator_count, f.mocap_count = m->mocap_count;
    f.integrator = (int)m->integrator, f.timestep = m->timestep;
    uint64_t h = 0xcbf29ce484222325ull;
    h = HASH_ARRAY(h, m->body_parent, m->body_count);
    h = HASH_ARRAY(h, m->body_X_PB, m->body_count);
    h = HASH_ARRAY(h, m->body_mass, m->body_count);
    h = HASH_ARRAY(h, m->geom_type, m->geom_count);
    h = HASH_ARRAY(h, m->geom_body, m->geom_count);
    h = HASH_ARRAY(h, m->geom_size, m->geom_count);
    h = HASH_ARRAY(h, m->geom_X_BG, m->geom_count);
    h = HASH_ARRAY(h, m->qpos0, m->nq);
    h = fnv1a(h, &m->gravity, sizeof m->gravity);
    f.hash = h;
    return f;
}

static uint32_t architecture_word(void) {
    const uint16_t one = 1;
    unsigned char little;
    memcpy(&little, &one, 1);
    return (uint32_t)sizeof(tch_real) | (uint32_t)sizeof(long) << 8 |
           (uint32_t)(TCH_PAIR_STATE_BYTES / 16) << 16 | (uint32_t)little << 31;
}

/* ---- the data's sections ---- */

static void put_pair_states(tch_stream* s, const tch_pair_state_table* t) {
    tch_stream_put_count(s, t->count);
    for (int i = 0; i < t->count; ++i) {
        const tch_pair_state* slot = &t->slots[i];
        TCH_PUT(s, slot->geom_a), TCH_PUT(s, slot->geom_b), TCH_PUT(s, slot->last_seen);
        TCH_PUT(s, slot->fresh), TCH_PUT(s, slot->initialised), TCH_PUT(s, slot->bytes);
    }
}

/* Recreates the slots in their order (tch_pair_state_touch rebuilds the index). */
static void get_pair_states(tch_stream* s, const tch_model* m, tch_pair_state_table* t) {
    tch_pair_state_clear(t);
    long count = tch_stream_get_count(s, (long)m->geom_count * m->geom_count);
    for (long i = 0; i < count && !s->failed; ++i) {
        tch_pair_state read;
        TCH_GET(s, read.geom_a), TCH_GET(s, read.geom_b), TCH_GET(s, read.last_seen);
        TCH_GET(s, read.fresh), TCH_GET(s, read.initialised), TCH_GET(s, read.bytes);
        if (read.geom_a < 0 || read.geom_b < 0 || read.geom_a >= m->geom_count ||
            read.geom_b >= m->geom_count) {
            s->failed = 1;
            return;
        }
        tch_pair_state* slot = tch_pair_state_touch(t, read.geom_a, read.geom_b, read.last_seen);
        if (!slot) {
            s->failed = 1;
            return;
        }
        slot->fresh = read.fresh, slot->initialised = read.initialised;
        memcpy(slot->bytes, read.bytes, sizeof read.bytes);
    }
}

/* The contacts, pair results and polygons of the last step (what a sleeping island keeps and
 * what the caller reads before the next step). */
static void put_contacts(tch_stream* s, const tch_data* d) {
    put_array(s, d->contacts, d->contact_count, sizeof *d->contacts);
    put_array(s, d->pair_results, d->pair_result_count, sizeof *d->pair_results);
    put_array(s, d->polygons, d->polygon_count, sizeof *d->polygons);
    put_array(s, d->polygon_vertices_W, d->polygon_vertex_count, sizeof *d->polygon_vertices_W);
    put_array(s, d->polygon_vertex_pressure, d->polygon_vertex_count,
              sizeof *d->polygon_vertex_pressure);
}

static void get_contacts(tch_stream* s, tch_data* d) {
    const long most = 1L << 28;
    size_t at = s->at;
    long contacts = tch_stream_get_count(s, most);
    s->at += (size_t)contacts * sizeof *d->contacts;
    long pairs = tch_stream_get_count(s, most);
    s->at += (size_t)pairs * sizeof *d->pair_results;
    long polygons = tch_stream_get_count(s, most);
    s->at += (size_t)polygons * sizeof *d->polygons;
    long vertices = tch_stream_get_count(s, most);
    if (s->failed || s->at > s->size) {
        s->failed = 1;
        return;
    }
    s->at = at;
    d->contact_count = d->polygon_count = d->polygon_vertex_count = 0;
    d->pair_result_count = pairs > 0 ? (int)pairs - 1 : 0; /* reserve makes room for one more */
    if (tch_contact_reserve(d, (int)contacts, (int)polygons, (int)vertices) != 0) {
        s->failed = 1;
        return;
    }
    d->contact_count = (int)contacts, d->pair_result_count = (int)pairs;
    d->polygon_count = (int)polygons, d->polygon_vertex_count = (int)vertices;
    get_array(s, d->contacts, contacts, sizeof *d->contacts);
    get_array(s, d->pair_results, pairs, sizeof *d->pair_results);
    get_array(s, d->polygons, polygons, sizeof *d->polygons);
    get_array(s, d->polygon_vertices_W, vertices, sizeof *d->polygon_vertices_W);
    get_array(s, d->polygon_vertex_pressure, vertices, sizeof *d->polygon_vertex_pressure);
}

/* The row solver's kept factor (engine/constraint_pgs.c reuses it for a resting island): the
 * matrix it factors, refactored on reading, and its key. */
static void put_subspace(tch_stream* s, const tch_sparse_spd* context) {
    tch_sparse_triplets a;
    const int* key;
    int key_count;
    int kept = tch_sparse_spd_keyed_matrix(context, &a, &key, &key_count);
    TCH_PUT(s, kept);
    if (kept) {
        TCH_PUT(s, a.n);
        put_array(s, a.row, a.count, sizeof *a.row);
        put_array(s, a.col, a.count, sizeof *a.col);
        put_array(s, a.value, a.count, sizeof *a.value);
        put_array(s, key, key_count, sizeof *key);
    }
}

/* Reads a counted array into a new block (freed by the caller); NULL when empty or failed. */
static void* get_new_array(tch_stream* s, long* count, size_t size) {
    *count = tch_stream_get_count(s, (long)((s->size - s->at) / size));
    void* array = s->failed || *count == 0 ? NULL : malloc((size_t)*count * size);
    if (array) {
        tch_stream_get(s, array, (size_t)*count * size);
    } else if (*count > 0) {
        s->failed = 1;
    }
    return array;
}

static void get_subspace(tch_stream* s, tch_sparse_spd* context) {
    int kept = 0, n = 0;
    TCH_GET(s, kept);
    if (!kept) {
        return;
    }
    TCH_GET(s, n);
    long rows, cols, values, key_count;
    int* row = get_new_array(s, &rows, sizeof(int));
    int* col = get_new_array(s, &cols, sizeof(int));
    tch_real* value = get_new_array(s, &values, sizeof(tch_real));
    int* key = get_new_array(s, &key_count, sizeof(int));
    tch_sparse_triplets a = {n, (int)rows, row, col, value};
    if (s->failed || rows != cols || rows != values ||
        tch_sparse_spd_restore_keyed(context, &a, key, (int)key_count) != TCH_OK) {
        s->failed = 1;
    }
    free(row), free(col), free(value), free(key);
}

/* The fixed-size arrays of the data (sized by the model), written or read as s->reading
 * says: one list, so that the two directions cannot drift apart. */
static void transfer_arrays(tch_stream* s, const tch_model* m, tch_data* d) {
    int nb = m->body_count, na = m->actuator_count, nm = m->mocap_count;
    TCH_TRANSFER(s, d->time), TCH_TRANSFER(s, d->contact_energy);
    transfer_array(s, d->qpos, m->nq, sizeof *d->qpos);
    transfer_array(s, d->qvel, m->nv, sizeof *d->qvel);
    transfer_array(s, d->qacc, m->nv, sizeof *d->qacc);
    transfer_array(s, d->ctrl, na, sizeof *d->ctrl);
    transfer_array(s, d->body_force_applied_W, nb, sizeof *d->body_force_applied_W);
    transfer_array(s, d->body_torque_applied_W, nb, sizeof *d->body_torque_applied_W);
    TCH_TRANSFER(s, d->applied_spring.body), TCH_TRANSFER(s, d->applied_spring.stiffness);
    TCH_TRANSFER(s, d->applied_spring.damping);
    TCH_TRANSFER(s, d->applied_spring.angular_stiffness);
    TCH_TRANSFER(s, d->applied_spring.angular_damping);
    transfer_array(s, d->mocap_X_WB, nm, sizeof *d->mocap_X_WB);
    transfer_array(s, d->mocap_v_W, nm, sizeof *d->mocap_v_W);
    transfer_array(s, d->mocap_w_W, nm, sizeof *d->mocap_w_W);
    transfer_array(s, d->body_force_W, nb, sizeof *d->body_force_W);
    transfer_array(s, d->body_torque_W, nb, sizeof *d->body_torque_W);
    transfer_array(s, d->actuator_force, na, sizeof *d->actuator_force);
    TCH_TRANSFER(s, d->warning_count), TCH_TRANSFER(s, d->warning_time);
    TCH_TRANSFER(s, d->warning_body), TCH_TRANSFER(s, d->internal->step_count);
    transfer_array(s, d->internal->constraint.rest_steps, nb,
                   sizeof *d->internal->constraint.rest_steps);
    tch_watch_transfer(s, d->internal->watch);
}

/* Everything the next step reads, in the order get_state reads it. The data is only read
 * (transfer_arrays writes when s->reading is 0). */
static void put_state(tch_stream* s, const tch_model* m, const tch_data* d) {
    transfer_arrays(s, m, (tch_data*)d);
    put_contacts(s, d);
    put_pair_states(s, &d->internal->pair_states);
    put_subspace(s, d->internal->constraint.subspace);
    tch_implicit_cache_put(s, m, d->internal->implicit);
}

static void get_state(tch_stream* s, const tch_model* m, tch_data* d) {
    transfer_arrays(s, m, d);
    get_contacts(s, d);
    get_pair_states(s, m, &d->internal->pair_states);
    get_subspace(s, d->internal->constraint.subspace);
    tch_implicit_cache_get(s, m, d);
}

int tch_snapshot_save(const tch_model* m, const tch_data* d, tch_stream* s) {
    s->size = 0, s->at = 0, s->reading = 0, s->failed = 0;
    put_state(s, m, d);
    return !s->failed;
}

int tch_snapshot_restore(const tch_model* m, tch_data* d, tch_stream* s) {
    s->at = 0, s->reading = 1, s->failed = 0;
    get_state(s, m, d);
    d->internal->kinematics_current = 0;
    tch_stage_kinematics(m, d);
    tch_stage_velocities(m, d);
    return !s->failed && s->at == s->size;
}

/* ---- files ---- */

static void put_u32(unsigned char* at, uint32_t v) {
    memcpy(at, &v, sizeof v);
}

static tch_status write_file(const char* path, const tch_stream* payload, tch_error* err) {
    unsigned char header[HEADER_BYTES];
    memcpy(header, MAGIC, 8);
    put_u32(header + 8, FORMAT_VERSION);
    put_u32(header + 12, architecture_word());
    uint64_t size = payload->size;
    memcpy(header + 16, &size, 8);
    put_u32(header + 24, crc32(payload->bytes, payload->size));
    char temporary[4096];
    if (snprintf(temporary, sizeof temporary, "%s.tmp%ld", path, (long)getpid()) >=
        (int)sizeof temporary) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, path, 0, "checkpoint path is too long");
    }
    FILE* f = fopen(temporary, "wb");
    if (!f) {
        return tch_fail(err, TCH_ERR_IO, path, 0, "cannot write the checkpoint: %s",
                        strerror(errno));
    }
    int failed = fwrite(header, 1, sizeof header, f) != sizeof header ||
                 fwrite(payload->bytes, 1, payload->size, f) != payload->size;
    failed |= fclose(f) != 0;
    if (failed || rename(temporary, path) != 0) {
        int error = errno;
        remove(temporary);
        return tch_fail(err, TCH_ERR_IO, path, 0, "cannot write the checkpoint: %s",
                        strerror(error));
    }
    return TCH_OK;
}

tch_status tch_data_save_checkpoint(const tch_model* m, const tch_data* d, const char* path,
                                    tch_error* err) {
    if (m->integrator == TCH_INTEGRATOR_ADAPTIVE) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, path, 0,
                        "checkpoints of the adaptive integrator are not supported yet (its "
                        "ARKODE history is not saved); use the implicit or an explicit one");
    }
    tch_stream s = {0};
    fingerprint f = model_fingerprint(m);
    TCH_PUT(&s, f);
    put_state(&s, m, d);
    tch_status status = s.failed ? tch_fail(err, TCH_ERR_OUT_OF_MEMORY, path, 0,
                                            "out of memory for the checkpoint")
                                 : write_file(path, &s, err);
    free(s.bytes);
    return status;
}

/* Reads the whole file into s->bytes. */
static tch_status read_file(const char* path, tch_stream* s, tch_error* err) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return tch_fail(err, TCH_ERR_IO, path, 0, "cannot open the checkpoint: %s",
                        strerror(errno));
    }
    unsigned char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        tch_stream_put(s, chunk, n);
    }
    int failed = ferror(f);
    fclose(f);
    if (failed || s->failed) {
        return tch_fail(err, failed ? TCH_ERR_IO : TCH_ERR_OUT_OF_MEMORY, path, 0,
                        "cannot read the checkpoint");
    }
    return TCH_OK;
}

/* Checks the header, the size and the checksum; the payload then starts at s->at. */
static tch_status check_header(const char* path, tch_stream* s, tch_error* err) {
    unsigned char header[HEADER_BYTES];
    if (s->size < 8 || memcmp(s->bytes, MAGIC, 8) != 0) {
        return tch_fail(err, TCH_ERR_PARSE, path, 0,
                        "not a touche checkpoint (expected the magic \"TCHCKPT\")");
    }
    if (!TCH_GET(s, header)) {
        return tch_fail(err, TCH_ERR_PARSE, path, 0,
                        "truncated checkpoint: %zu bytes, shorter than its %d-byte header",
                        s->size, HEADER_BYTES);
    }
    uint32_t version, architecture, crc;
    uint64_t size;
    memcpy(&version, header + 8, 4), memcpy(&architecture, header + 12, 4);
    memcpy(&size, header + 16, 8), memcpy(&crc, header + 24, 4);
    if (version != FORMAT_VERSION) {
        return tch_fail(err, TCH_ERR_PARSE, path, 0,
                        "checkpoint format version %u; this build reads version %d", version,
                        FORMAT_VERSION);
    }
    if (architecture != architecture_word()) {
        return tch_fail(err, TCH_ERR_PARSE, path, 0,
                        "checkpoint written by another build or architecture (word 0x%08x, "
                        "expected 0x%08x)", architecture, architecture_word());
    }
    if (size != s->size - HEADER_BYTES) {
        return tch_fail(err, TCH_ERR_PARSE, path, 0,
                        "%s checkpoint: the payload has %zu bytes, the header says %llu",
                        size > s->size - HEADER_BYTES ? "truncated" : "oversized",
                        s->size - HEADER_BYTES, (unsigned long long)size);
    }
    if (crc32(s->bytes + HEADER_BYTES, (size_t)size) != crc) {
        return tch_fail(err, TCH_ERR_PARSE, path, 0,
                        "corrupt checkpoint: the CRC-32 of its payload does not match its "
                        "header");
    }
    return TCH_OK;
}

static tch_status check_fingerprint(const tch_model* m, const char* path, tch_stream* s,
                                    tch_error* err) {
    fingerprint read, expected = model_fingerprint(m);
    TCH_GET(s, read);
    if (memcmp(&read, &expected, sizeof read) != 0) {
        return tch_fail(err, TCH_ERR_PARSE, path, 0,
                        "checkpoint of another scene: %d bodies, %d geoms, nq %d, nv %d, model "
                        "hash %016llx; expected %d bodies, %d geoms, nq %d, nv %d, hash %016llx",
                        read.body_count, read.geom_count, read.nq, read.nv,
                        (unsigned long long)read.hash, expected.body_count, expected.geom_count,
                        expected.nq, expected.nv, (unsigned long long)expected.hash);
    }
    return TCH_OK;
}

tch_status tch_data_load_checkpoint(const tch_model* m, tch_data* d, const char* path,
                                    tch_error* err) {
    tch_stream s = {.reading = 1};
    tch_status status = read_file(path, &s, err);
    if (status == TCH_OK) {
        status = check_header(path, &s, err);
    }
    if (status == TCH_OK) {
        status = check_fingerprint(m, path, &s, err);
    }
    if (status == TCH_OK) {
        get_state(&s, m, d);
        if (s.failed || s.at != s.size) {
            status = tch_fail(err, TCH_ERR_PARSE, path, 0,
                              "checkpoint payload inconsistent with its model at byte %zu",
                              s.at);
        } else {
            d->internal->kinematics_current = 0;
            tch_stage_kinematics(m, d);
            tch_stage_velocities(m, d);
        }
    }
    free(s.bytes);
    return status;
}
