/* touche run SCENE --live PORT (docs/viewer.md): serves the viewer page on 127.0.0.1:PORT with
 * civetweb and streams the run over a WebSocket (/ws) to every page that connects, at 60 Hz of
 * wall-clock time while the simulation runs at its own rate. A page may grab a body: a spring
 * from the grabbed point to the mouse pulls it, through the library's applied force and torque
 * (tch_data.body_force_applied_W, body_torque_applied_W).
 *
 * Three kinds of thread meet here. The simulation thread copies a frame (poses, contacts,
 * patches) into `pending` when one is due and a page is connected, and reads the spring, both
 * under `frame_lock`, which is held only for those copies. The sender thread turns the frame
 * into JSON and writes it to the pages, under `clients_lock`. civetweb's threads serve the page
 * and add, remove (under `clients_lock`) and hear (under `frame_lock`) the pages. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "viewer.h"

#ifdef TCH_HAVE_CIVETWEB
#include <civetweb.h>
#include <errno.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

enum { MAX_PAGES = 16 };
static const double FRAME_PERIOD = 1.0 / 60.0; /* s of wall-clock time between frames */
/* The drag spring: a critically damped spring of this frequency on the grabbed body's mass,
 * its force capped at FORCE_CAP times the body's weight under 1 g. */
static const double SPRING_HZ = 5.0;
static const double FORCE_CAP = 20.0;
static const double STANDARD_GRAVITY = 9.80665;

/* What a frame holds: the state of the data at one instant. `view` is a tch_data whose contact
 * fields point into the frame's own arrays, so that cli_json_pairs writes it as contacts.jsonl
 * writes a step. */
typedef struct live_frame {
    double time, energy;
    double* poses; /* [7 * body_count] x y z qw qx qy qz; the world at the identity */
    tch_data view;
    int pressure_capacity; /* of view.polygon_vertex_pressure */
} live_frame;

/* The spring a page holds: body `body` grabbed at `local` (body frame), pulled to `target`. */
typedef struct live_spring {
    int body;        /* 0: none */
    tch_vec3 local, target;
} live_spring;

struct cli_live {
    struct mg_context* server;
    char* page;
    size_t page_size;
    const tch_model* model;
    int realtime;
    double wall_start, sim_start, next_frame;

    pthread_mutex_t frame_lock;
    pthread_cond_t frame_ready;
    live_frame pending;     /* under frame_lock */
    int has_pending;        /* under frame_lock */
    int stopping;           /* under frame_lock */
    live_spring spring;     /* under frame_lock */
    int pushed_body;        /* the simulation thread's: the body its applied force is on, or 0 */

    pthread_mutex_t clients_lock;
    struct mg_connection* pages[MAX_PAGES]; /* under clients_lock */
    atomic_int page_count;
    /* The simulation's pace, for the summary: steps, wall time and the simulation thread's
     * CPU time spent without ([0]) and with ([1]) a page connected, each step counted by the
     * state at its start; the times are read when the state changes. */
    long steps[2];
    double wall[2], cpu[2];
    double state_wall, state_cpu; /* when the current state began */
    int connected;                /* the current state */
    pthread_t sender;
    live_frame sending;     /* the sender thread's */
    long frames_sent;       /* the sender thread's */
};

/* Debian's civetweb gives its threads 100 KiB stacks (its USE_STACK_SIZE), and glibc takes
 * from every thread's stack the static thread-local storage of all the loaded libraries, of
 * which OpenBLAS alone holds 60 KiB: civetweb's workers overflowed their stacks on the first
 * request. The executable's definition of this function comes first in the symbol lookup of
 * every library, so each thread asked for gets at least MIN_THREAD_STACK. */
enum { MIN_THREAD_STACK = 1 << 20 };

int pthread_attr_setstacksize(pthread_attr_t* attr, size_t size) {
    int (*next)(pthread_attr_t*, size_t) = NULL;
    void* symbol = dlsym(RTLD_NEXT, "pthread_attr_setstacksize");
    if (!symbol) return EINVAL;
    memcpy(&next, &symbol, sizeof next);
    return next(attr, size < MIN_THREAD_STACK ? MIN_THREAD_STACK : size);
}

/* ---- frames ---- */

/* Grows *array to hold n items of `size` bytes; returns 0 when out of memory. */
static int reserve(void** array, int* capacity, int n, size_t size) {
    if (n <= *capacity) return 1;
    int wanted = n > 2 * *capacity ? n : 2 * *capacity;
    void* grown = realloc(*array, (size_t)wanted * size);
    if (!grown) return 0;
    *array = grown;
    *capacity = wanted;
    return 1;
}

static void free_frame(live_frame* f) {
    free(f->poses);
    free(f->view.pair_results);
    free(f->view.contacts);
    free(f->view.polygons);
    free(f->view.polygon_vertices_W);
    free(f->view.polygon_vertex_pressure);
}

/* Copies n items of `size` bytes from `from` into *to, grown as needed; returns 0 when out of
 * memory. */
static int copy_array(void* to, int* capacity, const void* from, int n, size_t size) {
    if (!reserve((void**)to, capacity, n, size)) return 0;
    if (n > 0) memcpy(*(void**)to, from, (size_t)n * size);
    return 1;
}

/* Copies the data's contacts into the frame's view; returns 0 when out of memory. */
static int copy_contacts(live_frame* f, const tch_data* d) {
    tch_data* v = &f->view;
    int vertices = d->polygon_vertex_count;
    if (!copy_array(&v->pair_results, &v->pair_result_capacity, d->pair_results,
                    d->pair_result_count, sizeof *v->pair_results) ||
        !copy_array(&v->contacts, &v->contact_capacity, d->contacts, d->contact_count,
                    sizeof *v->contacts) ||
        !copy_array(&v->polygons, &v->polygon_capacity, d->polygons, d->polygon_count,
                    sizeof *v->polygons) ||
        !copy_array(&v->polygon_vertices_W, &v->polygon_vertex_capacity, d->polygon_vertices_W,
                    vertices, sizeof *v->polygon_vertices_W) ||
        !copy_array(&v->polygon_vertex_pressure, &f->pressure_capacity,
                    d->polygon_vertex_pressure, vertices, sizeof *v->polygon_vertex_pressure)) {
        v->pair_result_count = 0; /* an empty frame rather than a torn one */
        return 0;
    }
    v->pair_result_count = d->pair_result_count;
    v->contact_count = d->contact_count;
    v->polygon_count = d->polygon_count;
    v->polygon_vertex_count = vertices;
    return 1;
}

/* The data's state into the frame (the poses array is allocated at start). */
static int copy_frame(live_frame* f, const tch_model* m, const tch_data* d) {
    f->time = d->time;
    f->energy = tch_data_energy(m, d);
    for (int b = 1; b < m->body_count; ++b) {
        tch_transform X;
        tch_vec3 v, w;
        tch_data_body_state(m, d, b, &X, &v, &w);
        double* p = f->poses + 7 * b;
        p[0] = X.p.x, p[1] = X.p.y, p[2] = X.p.z;
        p[3] = X.q.w, p[4] = X.q.x, p[5] = X.q.y, p[6] = X.q.z;
    }
    return copy_contacts(f, d);
}

static void swap_frames(live_frame* a, live_frame* b) {
    live_frame t = *a;
    *a = *b;
    *b = t;
}

static void write_frame_json(FILE* out, const live_frame* f, const tch_model* m) {
    fprintf(out, "{\"time\":%.17g,\"energy\":%.17g,\"poses\":[", f->time, f->energy);
    for (int i = 0; i < 7 * m->body_count; ++i) fprintf(out, "%s%.9g", i ? "," : "", f->poses[i]);
    fprintf(out, "],\"pairs\":");
    cli_json_pairs(out, m, &f->view);
    fprintf(out, "}");
}

/* Writes the frame to every page; a page that cannot take it is closed by civetweb. */
static void send_frame(cli_live* live) {
    char* text = NULL;
    size_t size = 0;
    FILE* out = open_memstream(&text, &size);
    if (!out) return;
    write_frame_json(out, &live->sending, live->model);
    if (fclose(out) != 0) {
        free(text);
        return;
    }
    pthread_mutex_lock(&live->clients_lock);
    for (int i = 0; i < atomic_load(&live->page_count); ++i) {
        mg_websocket_write(live->pages[i], MG_WEBSOCKET_OPCODE_TEXT, text, size);
    }
    pthread_mutex_unlock(&live->clients_lock);
    live->frames_sent++;
    free(text);
}

static void* sender_main(void* arg) {
    cli_live* live = arg;
    pthread_mutex_lock(&live->frame_lock);
    for (;;) {
        while (!live->has_pending && !live->stopping) {
            pthread_cond_wait(&live->frame_ready, &live->frame_lock);
        }
        if (live->stopping) break;
        swap_frames(&live->pending, &live->sending);
        live->has_pending = 0;
        pthread_mutex_unlock(&live->frame_lock);
        send_frame(live);
        pthread_mutex_lock(&live->frame_lock);
    }
    pthread_mutex_unlock(&live->frame_lock);
    return NULL;
}

/* ---- the drag spring ---- */

/* The body whose dofs carry body b (b itself, or the nearest ancestor with its own dofs); 0
 * when b is welded to the world. */
static int carrier(const tch_model* m, int b) {
    while (b > 0 && !m->body_free[b]) b = m->body_parent[b];
    return b;
}

static tch_vec3 add(tch_vec3 a, tch_vec3 b) { return (tch_vec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static tch_vec3 sub(tch_vec3 a, tch_vec3 b) { return (tch_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static tch_vec3 scale(double s, tch_vec3 a) { return (tch_vec3){s * a.x, s * a.y, s * a.z}; }
static tch_vec3 cross(tch_vec3 a, tch_vec3 b) {
    return (tch_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/* Sets the applied force and torque of the spring on its body's carrier: F = k (target - p)
 * - c v_p at the grabbed point p, k = M w^2 and c = 2 M w (critical damping) for the carrier's
 * mass M and w = 2 pi SPRING_HZ, |F| at most FORCE_CAP M g; the torque about the carrier's
 * centre of mass is (p - c_m) x F. */
static void apply_spring(cli_live* live, const tch_model* m, tch_data* d, const live_spring* s) {
    int c = s->body > 0 && s->body < m->body_count ? carrier(m, s->body) : 0;
    if (live->pushed_body && live->pushed_body != c) {
        d->body_force_applied_W[live->pushed_body] = (tch_vec3){0, 0, 0};
        d->body_torque_applied_W[live->pushed_body] = (tch_vec3){0, 0, 0};
    }
    live->pushed_body = c;
    if (c == 0) return;
    tch_transform X_WB, X_WC;
    tch_vec3 v, w, vc, wc;
    tch_data_body_state(m, d, s->body, &X_WB, &v, &w);
    tch_data_body_state(m, d, c, &X_WC, &vc, &wc);
    tch_vec3 r = cli_rotate(X_WB.q, s->local);
    tch_vec3 p = add(X_WB.p, r);
    tch_vec3 v_p = add(v, cross(w, r));
    double mass = m->body_total_mass[c], omega = 2 * 3.14159265358979323846 * SPRING_HZ;
    tch_vec3 f = sub(scale(mass * omega * omega, sub(s->target, p)), scale(2 * mass * omega, v_p));
    double norm = sqrt(f.x * f.x + f.y * f.y + f.z * f.z), cap = FORCE_CAP * mass * STANDARD_GRAVITY;
    if (norm > cap) f = scale(cap / norm, f);
    tch_vec3 com = add(X_WC.p, cli_rotate(X_WC.q, m->body_total_p_BCm[c]));
    d->body_force_applied_W[c] = f;
    d->body_torque_applied_W[c] = cross(sub(p, com), f);
}

/* A page's command (viewer/src/live.js): grab, move or release. */
static void hear(cli_live* live, const char* text) {
    live_spring s;
    int body = 0;
    pthread_mutex_lock(&live->frame_lock);
    s = live->spring;
    if (sscanf(text, "grab %d %lf %lf %lf %lf %lf %lf", &body, &s.local.x, &s.local.y,
               &s.local.z, &s.target.x, &s.target.y, &s.target.z) == 7) {
        s.body = body;
    } else if (sscanf(text, "move %lf %lf %lf", &s.target.x, &s.target.y, &s.target.z) != 3 &&
               strncmp(text, "release", 7) == 0) {
        s.body = 0;
    }
    live->spring = s;
    pthread_mutex_unlock(&live->frame_lock);
}

/* ---- civetweb's callbacks ---- */

static int serve_page(struct mg_connection* conn, void* arg) {
    cli_live* live = arg;
    mg_send_http_ok(conn, "text/html; charset=utf-8", (long long)live->page_size);
    mg_write(conn, live->page, live->page_size);
    return 200;
}

/* No icon: an empty answer instead of a 404 in the page's console. */
static int serve_no_icon(struct mg_connection* conn, void* arg) {
    mg_printf(conn, "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    return 204;
}

static int page_connecting(const struct mg_connection* conn, void* arg) {
    cli_live* live = arg;
    return atomic_load(&live->page_count) >= MAX_PAGES; /* 1: refused */
}

static void page_ready(struct mg_connection* conn, void* arg) {
    cli_live* live = arg;
    pthread_mutex_lock(&live->clients_lock);
    int n = atomic_load(&live->page_count);
    if (n < MAX_PAGES) {
        live->pages[n] = conn;
        atomic_store(&live->page_count, n + 1);
    }
    pthread_mutex_unlock(&live->clients_lock);
}

static int page_data(struct mg_connection* conn, int bits, char* data, size_t size, void* arg) {
    cli_live* live = arg;
    if ((bits & 0x0f) == MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE) return 0;
    if ((bits & 0x0f) == MG_WEBSOCKET_OPCODE_TEXT && size < 256) {
        char text[256];
        memcpy(text, data, size);
        text[size] = '\0';
        hear(live, text);
    }
    return 1;
}

static void page_closed(const struct mg_connection* conn, void* arg) {
    cli_live* live = arg;
    pthread_mutex_lock(&live->clients_lock);
    int n = atomic_load(&live->page_count);
    for (int i = 0; i < n; ++i) {
        if (live->pages[i] == conn) {
            live->pages[i] = live->pages[n - 1];
            atomic_store(&live->page_count, n - 1);
            break;
        }
    }
    pthread_mutex_unlock(&live->clients_lock);
}

static int log_message(const struct mg_connection* conn, const char* message) {
    fprintf(stderr, "touche run: live: %s\n", message);
    return 1;
}

/* ---- the live run ---- */

/* The page: the scene and a marker that tells the viewer to connect. */
static int build_page(cli_live* live, const char* scene_path, const tch_model* m) {
    char* scene = NULL;
    size_t scene_size = 0;
    FILE* f = open_memstream(&scene, &scene_size);
    if (!f) return 0;
    int ok = cli_json_scene(f, scene_path, m);
    ok &= fclose(f) == 0;
    FILE* page = ok ? open_memstream(&live->page, &live->page_size) : NULL;
    if (page) {
        cli_page_part parts[2] = {{"touche-scene", scene, scene_size}, {"touche-live", "/ws", 3}};
        ok = cli_write_viewer_page(page, scene_path, parts, 2);
        ok &= fclose(page) == 0;
    }
    free(scene);
    return ok && page;
}

static void free_live(cli_live* live) {
    free_frame(&live->pending);
    free_frame(&live->sending);
    free(live->page);
    pthread_mutex_destroy(&live->frame_lock);
    pthread_mutex_destroy(&live->clients_lock);
    pthread_cond_destroy(&live->frame_ready);
    free(live);
}

static double thread_cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Adds the time since the current state began to its account and starts the other state. */
static void end_state(cli_live* live, double now) {
    double cpu = thread_cpu_seconds();
    live->wall[live->connected] += now - live->state_wall;
    live->cpu[live->connected] += cpu - live->state_cpu;
    live->state_wall = now;
    live->state_cpu = cpu;
    live->connected = !live->connected;
}

cli_live* cli_live_start(int port, int realtime, const char* scene_path, const tch_model* m) {
    size_t bundle_size = 0;
    if (!cli_viewer_bundle(&bundle_size)) {
        fprintf(stderr, "touche run: --live: %s\n", CLI_VIEWER_NOT_BUILT);
        return NULL;
    }
    if (port > 65535) {
        fprintf(stderr, "touche run: --live needs a port from 1 to 65535, got %d\n", port);
        return NULL;
    }
    cli_live* live = calloc(1, sizeof *live);
    if (!live) return NULL;
    pthread_mutex_init(&live->frame_lock, NULL);
    pthread_mutex_init(&live->clients_lock, NULL);
    pthread_cond_init(&live->frame_ready, NULL);
    live->model = m;
    live->realtime = realtime;
    live->pending.poses = calloc((size_t)m->body_count * 7, sizeof(double));
    live->sending.poses = calloc((size_t)m->body_count * 7, sizeof(double));
    if (!live->pending.poses || !live->sending.poses || !build_page(live, scene_path, m)) {
        fprintf(stderr, "touche run: --live: out of memory\n");
        free_live(live);
        return NULL;
    }
    live->pending.poses[3] = live->sending.poses[3] = 1; /* the world's identity */
    signal(SIGPIPE, SIG_IGN); /* a page that goes away is a failed write, not the end */
    char listen[32];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
    const char* options[] = {"listening_ports", listen, "num_threads", "8",
                             "websocket_timeout_ms", "3600000", NULL};
    struct mg_callbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.log_message = log_message;
    mg_init_library(MG_FEATURES_WEBSOCKET);
    live->server = mg_start(&callbacks, live, options);
    if (!live->server) {
        fprintf(stderr, "touche run: --live: cannot serve on %s (is the port in use?)\n", listen);
        mg_exit_library();
        free_live(live);
        return NULL;
    }
    mg_set_request_handler(live->server, "/$", serve_page, live);
    mg_set_request_handler(live->server, "/favicon.ico$", serve_no_icon, live);
    mg_set_websocket_handler(live->server, "/ws", page_connecting, page_ready, page_data,
                             page_closed, live);
    if (pthread_create(&live->sender, NULL, sender_main, live) != 0) {
        mg_stop(live->server);
        mg_exit_library();
        free_live(live);
        return NULL;
    }
    live->wall_start = live->next_frame = live->state_wall = cli_now_seconds();
    live->state_cpu = thread_cpu_seconds();
    live->sim_start = -1;
    fprintf(stderr, "touche run: live at http://%s/ (a page that connects sees the run)\n",
            listen);
    return live;
}

/* With realtime: sleeps until the wall clock has caught up with the simulated time. */
static void pace(cli_live* live, const tch_data* d, double now) {
    double ahead = (d->time - live->sim_start) - (now - live->wall_start);
    if (ahead > 1e-3) {
        struct timespec t = {(time_t)ahead, (long)((ahead - floor(ahead)) * 1e9)};
        nanosleep(&t, NULL);
    }
}

void cli_live_before_step(cli_live* live, const tch_model* m, tch_data* d) {
    if (live->sim_start < 0) live->sim_start = d->time;
    live_spring spring;
    int due = 0;
    double now = cli_now_seconds();
    int pages = atomic_load(&live->page_count);
    if ((pages > 0) != live->connected) end_state(live, now);
    live->steps[live->connected]++;
    if (pages > 0 && now >= live->next_frame) {
        due = 1;
        live->next_frame = fmax(live->next_frame + FRAME_PERIOD, now);
    }
    pthread_mutex_lock(&live->frame_lock);
    spring = live->spring;
    if (due && copy_frame(&live->pending, m, d)) {
        live->has_pending = 1;
        pthread_cond_signal(&live->frame_ready);
    }
    pthread_mutex_unlock(&live->frame_lock);
    if (spring.body || live->pushed_body) apply_spring(live, m, d, &spring);
    if (live->realtime) pace(live, d, now);
}

void cli_live_stop(cli_live* live) {
    if (!live) return;
    pthread_mutex_lock(&live->frame_lock);
    live->stopping = 1;
    pthread_cond_signal(&live->frame_ready);
    pthread_mutex_unlock(&live->frame_lock);
    pthread_join(live->sender, NULL);
    mg_stop(live->server);
    mg_exit_library();
    end_state(live, cli_now_seconds());
    fprintf(stderr, "touche run: live: sent %ld frames", live->frames_sent);
    for (int k = 0; k < 2 && !live->realtime; ++k) {
        fprintf(stderr, "%s %s a page %ld steps, %.0f steps/s (%.0f per CPU second of the "
                "simulation thread)", k ? ";" : ",", k ? "with" : "without", live->steps[k],
                live->wall[k] > 0 ? (double)live->steps[k] / live->wall[k] : 0.0,
                live->cpu[k] > 0 ? (double)live->steps[k] / live->cpu[k] : 0.0);
    }
    fprintf(stderr, "\n");
    free_live(live);
}

#else /* built without civetweb */

cli_live* cli_live_start(int port, int realtime, const char* scene_path, const tch_model* m) {
    fprintf(stderr, "touche run: --live is not available: this touche was built without "
                    "civetweb (install libcivetweb-dev, then configure and build again)\n");
    return NULL;
}

void cli_live_before_step(cli_live* live, const tch_model* m, tch_data* d) {}

void cli_live_stop(cli_live* live) {}

#endif
