/* Driver `udp`: a device bridged over UDP (touche/haptics.h, docs/haptics.md "The udp wire
 * format"). Fixed-size little-endian datagrams, encoded byte by byte (any host order). */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "haptics/driver.h"
#include "touche/haptics.h"

enum { STATE_BYTES = 136, COMMAND_BYTES = 64, WIRE_VERSION = 1 };
static const uint32_t STATE_MAGIC = 0x44484354u;   /* "TCHD" */
static const uint32_t COMMAND_MAGIC = 0x43484354u; /* "TCHC" */

typedef struct udp {
    int socket;
    int port;
    tch_real timeout;
    bool have_state, have_sender;
    uint64_t sequence;     /* of the newest state */
    double received;       /* s, CLOCK_MONOTONIC, when it arrived */
    tch_haptic_state state;
    struct sockaddr_in sender;
    uint64_t rejected;     /* datagrams of the wrong size, magic or version */
} udp;

static double monotonic_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t get_u64(const unsigned char* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
    return v;
}

static uint32_t get_u32(const unsigned char* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static tch_real get_f64(const unsigned char* p) {
    uint64_t bits = get_u64(p);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static void put_u64(unsigned char* p, uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) p[i] = (unsigned char)v;
}

static void put_u32(unsigned char* p, uint32_t v) {
    for (int i = 0; i < 4; ++i, v >>= 8) p[i] = (unsigned char)v;
}

static void put_f64(unsigned char* p, tch_real v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_u64(p, bits);
}

/* A state datagram into `state` and its sequence; false when it is not one. */
static bool decode_state(const unsigned char* b, ssize_t size, tch_haptic_state* s,
                         uint64_t* sequence) {
    if (size != STATE_BYTES || get_u32(b) != STATE_MAGIC || get_u32(b + 4) != WIRE_VERSION) {
        return false;
    }
    tch_real v[13]; /* position, quaternion, velocity, angular velocity */
    for (int i = 0; i < 13; ++i) v[i] = get_f64(b + 24 + 8 * i);
    *sequence = get_u64(b + 8);
    *s = (tch_haptic_state){.time = get_f64(b + 16),
                            .pose = {{v[3], v[4], v[5], v[6]}, {v[0], v[1], v[2]}},
                            .velocity = {v[7], v[8], v[9]},
                            .angular = {v[10], v[11], v[12]},
                            .buttons = get_u32(b + 128)};
    return true;
}

/* Takes every waiting datagram; keeps the newest state (by sequence, or any once the kept one
 * is older than the timeout: a restarted bridge counts from 0 again) and its sender. */
static void drain(udp* d) {
    unsigned char buffer[STATE_BYTES + 1];
    for (;;) {
        struct sockaddr_in from;
        socklen_t length = sizeof from;
        ssize_t size = recvfrom(d->socket, buffer, sizeof buffer, MSG_DONTWAIT,
                                (struct sockaddr*)&from, &length);
        if (size < 0) {
            return; /* EAGAIN: nothing more */
        }
        tch_haptic_state s;
        uint64_t sequence;
        if (!decode_state(buffer, size, &s, &sequence)) {
            d->rejected++;
            continue;
        }
        double now = monotonic_seconds();
        if (!d->have_state || sequence > d->sequence || now - d->received > d->timeout) {
            d->state = s;
            d->sequence = sequence;
            d->have_state = true;
            d->received = now;
        }
        d->sender = from;
        d->have_sender = true;
    }
}

static tch_status udp_read(void* self, tch_haptic_state* state, tch_error* err) {
    udp* d = self;
    drain(d);
    double age = d->have_state ? monotonic_seconds() - d->received : INFINITY;
    if (!(age <= d->timeout)) {
        return tch_fail(err, TCH_ERR_IO, NULL, 0,
                        "udp haptic device: no state datagram on port %d for %g s", d->port,
                        d->timeout);
    }
    *state = d->state;
    return TCH_OK;
}

static tch_status udp_write(void* self, const tch_haptic_command* c, tch_error* err) {
    (void)err;
    udp* d = self;
    if (!d->have_sender) {
        return TCH_OK;
    }
    unsigned char b[COMMAND_BYTES];
    put_u32(b, COMMAND_MAGIC);
    put_u32(b + 4, WIRE_VERSION);
    put_u64(b + 8, d->sequence);
    const tch_real v[6] = {c->force.x, c->force.y, c->force.z,
                           c->torque.x, c->torque.y, c->torque.z};
    for (int i = 0; i < 6; ++i) put_f64(b + 16 + 8 * i, v[i]);
    /* a full socket buffer drops the command: the next tick sends a newer one */
    (void)sendto(d->socket, b, sizeof b, MSG_DONTWAIT, (struct sockaddr*)&d->sender,
                 sizeof d->sender);
    return TCH_OK;
}

static void udp_close(void* self) {
    udp* d = self;
    if (d) {
        close(d->socket);
        free(d);
    }
}

static tch_status udp_open(const void* config, void** self, tch_haptic_spec* spec,
                           tch_error* err) {
    const tch_haptic_udp_config* c = config;
    if (!c || c->port < 0 || c->port > 65535 || !(c->timeout > 0)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "udp haptic device: needs a port in [0, 65535] and a timeout > 0");
    }
    udp* d = calloc(1, sizeof *d);
    if (!d) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "udp haptic device: out of memory");
    }
    d->timeout = c->timeout;
    d->socket = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET,
                                  .sin_port = htons((uint16_t)c->port),
                                  .sin_addr.s_addr = htonl(c->any_address ? INADDR_ANY
                                                                          : INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    if (d->socket < 0 || bind(d->socket, (struct sockaddr*)&address, sizeof address) != 0 ||
        getsockname(d->socket, (struct sockaddr*)&address, &length) != 0) {
        int code = errno;
        if (d->socket >= 0) close(d->socket);
        free(d);
        return tch_fail(err, TCH_ERR_IO, NULL, 0, "udp haptic device: cannot bind port %d: %s",
                        c->port, strerror(code));
    }
    d->port = ntohs(address.sin_port);
    *spec = c->spec;
    *self = d;
    return TCH_OK;
}

static const tch_haptic_ops udp_ops = {"udp", udp_open, udp_read, udp_write, udp_close};

const tch_haptic_ops* tch_haptic_udp_driver(void) {
    return &udp_ops;
}

int tch_haptic_udp_port(tch_haptic_device* device) {
    const udp* d = tch_haptic_driver_self(device, &udp_ops);
    return d ? d->port : -1;
}
