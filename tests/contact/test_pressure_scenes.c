/* Scenes of issue 3 for the pressure model: non-convex tet meshes read from files (a peg in a
 * hole, a mug on a table) and the Hunt-Crossley restitution of a bouncing ball. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "geometry/tetmesh.h"
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

/* ---- non-convex meshes: structured grids with cells removed ---- */

/* A grid of n[0] x n[1] x n[2] cubes of edge h from `lo`; cell (i, j, k) is kept when
 * keep[(k n[1] + j) n[0] + i]. Each cube is cut into the six Kuhn tets around a main diagonal,
 * mirrored in each axis across the grid's middle, so the mesh (and its Laplace field) has the
 * grid's three mirror symmetries; the cuts match on shared faces (also across the middle
 * planes, where a face's diagonal is its own mirror image). Only used vertices are kept. */
typedef struct grid_spec {
    int n[3];
    double h;
    tch_vec3 lo;
    const unsigned char* keep;
} grid_spec;

static int grid_vertex(const grid_spec* g, int i, int j, int k) {
    return (k * (g->n[1] + 1) + j) * (g->n[0] + 1) + i;
}

/* Writes the grid's tet mesh, without a field (the engine solves the Laplace field), to path. */
static int write_grid_mesh(const grid_spec* g, const char* path) {
    static const int axes[6][3] = {{1, 2, 4}, {1, 4, 2}, {2, 1, 4}, {2, 4, 1}, {4, 1, 2}, {4, 2, 1}};
    int nv = (g->n[0] + 1) * (g->n[1] + 1) * (g->n[2] + 1), cells = g->n[0] * g->n[1] * g->n[2];
    tch_vec3* vertices = malloc((size_t)nv * sizeof *vertices);
    int* index = malloc((size_t)nv * sizeof *index);
    int (*tets)[4] = malloc((size_t)cells * 6 * sizeof *tets);
    int tet_count = 0, used = 0;
    for (int v = 0; v < nv; ++v) index[v] = -1;
    for (int c = 0; c < cells; ++c) {
        if (!g->keep[c]) continue;
        int i = c % g->n[0], j = (c / g->n[0]) % g->n[1], k = c / (g->n[0] * g->n[1]);
        int mirror = (2 * i < g->n[0]) | (2 * j < g->n[1]) << 1 | (2 * k < g->n[2]) << 2;
        for (int t = 0; t < 6; ++t) {
            int walk = 0, ids[4];
            for (int s = 0; s < 4; ++s) {
                if (s > 0) walk |= axes[t][s - 1];
                int corner = walk ^ mirror;
                int v = grid_vertex(g, i + (corner & 1), j + !!(corner & 2), k + !!(corner & 4));
                if (index[v] < 0) {
                    index[v] = used;
                    int vi = v % (g->n[0] + 1), vj = (v / (g->n[0] + 1)) % (g->n[1] + 1),
                        vk = v / ((g->n[0] + 1) * (g->n[1] + 1));
                    vertices[used++] = (tch_vec3){g->lo.x + vi * g->h, g->lo.y + vj * g->h,
                                                  g->lo.z + vk * g->h};
                }
                ids[s] = index[v];
            }
            if (tch_tet_volume6(vertices[ids[0]], vertices[ids[1]], vertices[ids[2]],
                                vertices[ids[3]]) < 0) {
                int swap = ids[2];
                ids[2] = ids[3], ids[3] = swap;
            }
            memcpy(tets[tet_count++], ids, sizeof ids);
        }
    }
    tch_tetmesh mesh;
    tch_error err;
    tch_status s = tch_tetmesh_build(TCH_TETMESH_SOLID, vertices, used, (const int(*)[4])tets,
                                     tet_count, NULL, &mesh, &err);
    if (s == TCH_OK) s = tch_tetmesh_write(&mesh, TCH_TETMESH_FORMAT_VTK, path, &err);
    if (s != TCH_OK) fprintf(stderr, "grid mesh: %s\n", err.message);
    tch_tetmesh_free(&mesh);
    free(vertices);
    free(index);
    free(tets);
    return s == TCH_OK;
}

/* A temporary directory for the meshes, removed by cleanup_dir. */
static char temp_dir[64];

static const char* temp_path(const char* name, char* buffer, size_t size) {
    snprintf(buffer, size, "%s/%s", temp_dir, name);
    return buffer;
}

/* ---- patches: connected components of a pair's polygons ---- */

static int find_root(int* parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

typedef struct vertex_ref {
    tch_vec3 p;
    int polygon;
} vertex_ref;

static int by_x(const void* a, const void* b) {
    double d = ((const vertex_ref*)a)->p.x - ((const vertex_ref*)b)->p.x;
    return (d > 0) - (d < 0);
}

/* Number of connected components of pair r's polygons, two polygons being connected when they
 * share a vertex (within `tol`, m). The component of each polygon goes to label[]. */
static int patch_components(const tch_data* d, const tch_pair_result* r, double tol, int* label) {
    int n = r->polygon_count, total = 0;
    for (int i = 0; i < n; ++i) total += d->polygons[r->polygon_start + i].vertex_count;
    vertex_ref* refs = malloc((size_t)total * sizeof *refs);
    int* parent = malloc((size_t)n * sizeof *parent);
    for (int i = 0, k = 0; i < n; ++i) {
        const tch_contact_polygon* poly = &d->polygons[r->polygon_start + i];
        parent[i] = i;
        for (int v = 0; v < poly->vertex_count; ++v, ++k) {
            refs[k] = (vertex_ref){d->polygon_vertices_W[poly->vertex_start + v], i};
        }
    }
    qsort(refs, (size_t)total, sizeof *refs, by_x);
    for (int a = 0; a < total; ++a) {
        for (int b = a + 1; b < total && refs[b].p.x - refs[a].p.x <= tol; ++b) {
            if (tch_v3_norm(tch_v3_sub(refs[a].p, refs[b].p)) <= tol) {
                parent[find_root(parent, refs[a].polygon)] = find_root(parent, refs[b].polygon);
            }
        }
    }
    int components = 0;
    for (int i = 0; i < n; ++i) {
        if (find_root(parent, i) == i) label[i] = components++;
    }
    for (int i = 0; i < n; ++i) label[i] = label[find_root(parent, i)];
    free(refs);
    free(parent);
    return components;
}

/* Area-weighted centroid and pressure force of polygon i (pressure linear on it: the fan
 * about the vertex mean integrates it exactly). */
static void polygon_force(const tch_data* d, int i, tch_vec3* centroid, tch_vec3* force) {
    const tch_contact_polygon* poly = &d->polygons[i];
    const tch_vec3* v = d->polygon_vertices_W + poly->vertex_start;
    const tch_real* p = d->polygon_vertex_pressure + poly->vertex_start;
    tch_vec3 c = tch_v3_zero();
    double pc = 0;
    for (int k = 0; k < poly->vertex_count; ++k) {
        c = tch_v3_madd(c, 1.0 / poly->vertex_count, v[k]);
        pc += p[k] / poly->vertex_count;
    }
    tch_vec3 moment_sum = tch_v3_zero(), f = tch_v3_zero();
    double area = 0;
    for (int k = 0; k < poly->vertex_count; ++k) {
        int l = (k + 1) % poly->vertex_count;
        double a = tch_v3_norm(tch_v3_cross(tch_v3_sub(v[k], c), tch_v3_sub(v[l], c))) / 2;
        tch_vec3 tri_c = tch_v3_scale(tch_v3_add(c, tch_v3_add(v[k], v[l])), 1.0 / 3);
        area += a;
        moment_sum = tch_v3_madd(moment_sum, a, tri_c);
        f = tch_v3_madd(f, a * (pc + p[k] + p[l]) / 3, poly->n_W);
    }
    *centroid = area > 0 ? tch_v3_scale(moment_sum, 1 / area) : c;
    *force = f;
}

/* ---- a peg in a hole ---- */

/* A compliant block 6 cm x 6 cm x 4 cm (cells of 5 mm) with a 2 cm square hole through it; a
 * rigid peg 2.2 cm x 1.2 cm pressed into the hole (1 mm interference on each x wall, clear of
 * the y walls). The patch is two disconnected strips on the two x walls whose forces cancel:
 * with the mesh's mirror symmetry the net wrench on the peg vanishes. */
static void test_peg_in_hole_gives_two_patches_with_no_net_force(void) {
    static unsigned char keep[12 * 12 * 8];
    grid_spec g = {{12, 12, 8}, 0.005, {-0.03, -0.03, -0.02}, keep};
    for (int c = 0; c < 12 * 12 * 8; ++c) {
        int i = c % 12, j = (c / 12) % 12;
        keep[c] = !(i >= 4 && i < 8 && j >= 4 && j < 8);
    }
    char path[128];
    ENSURE(write_grid_mesh(&g, temp_path("block_with_hole.vtk", path, sizeof path)));

    tch_spec* spec = test_spec(0, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_PRESSURE;
    opt.contact.friction = 0;
    opt.contact.rigid = TCH_RIGIDITY_RIGID;
    tch_spec_set_option(spec, &opt, NULL);
    tch_geom_def block = tch_geom_def_default();
    snprintf(block.name, sizeof block.name, "block");
    block.type = TCH_GEOM_BOX;
    block.size[0] = 0.03, block.size[1] = 0.03, block.size[2] = 0.02;
    block.contact.modulus = 1e6;
    block.contact.rigid = TCH_RIGIDITY_COMPLIANT;
    snprintf(block.tetmesh, sizeof block.tetmesh, "%s", path);
    ENSURE(tch_spec_add_geom(spec, TCH_WORLD_BODY, &block, NULL, NULL) == TCH_OK);
    tch_body_id peg = test_add_body(spec, "peg", TCH_GEOM_BOX, (tch_vec3){0.011, 0.006, 0.03},
                                    0.05, (tch_vec3){0, 0, 0.005}, tch_q_identity());
    (void)peg;
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    if (!m) return;
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    /* the peg is rigid */
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    ENSURE(d->pair_result_count == 1);
    const tch_pair_result* r = &d->pair_results[0];
    ENSURE(r->model == TCH_CONTACT_PRESSURE && r->polygon_count > 0);
    int* label = malloc((size_t)r->polygon_count * sizeof *label);
    int components = patch_components(d, r, 1e-9, label);
    printf("  peg in hole: %d polygons in %d components, area %.4g m^2 (x faces 2 x %.4g)\n",
           r->polygon_count, components, r->area, 0.012 * 0.04);
    ENSURE(components == 2);
    /* Each strip lies on its wall, the force on the peg pushes it away from that wall, and
     * the two cancel. */
    tch_vec3 side_force[2] = {tch_v3_zero(), tch_v3_zero()};
    double side_x[2] = {0, 0};
    for (int i = 0; i < r->polygon_count && components == 2; ++i) {
        tch_vec3 c, f;
        polygon_force(d, r->polygon_start + i, &c, &f);
        double sign = r->geom_b == 0 ? -1 : 1; /* force on the peg */
        side_force[label[i]] = tch_v3_madd(side_force[label[i]], sign, f);
        side_x[label[i]] = c.x; /* every polygon of a strip is inside its wall */
        ENSURE(fabs(c.x) >= 0.01 - 1e-9 && fabs(c.x) <= 0.011 + 1e-9);
    }
    ENSURE(side_x[0] * side_x[1] < 0);
    for (int s = 0; s < 2; ++s) {
        ENSURE(side_force[s].x * side_x[s] < 0);
        ENSURE(fabs(side_force[s].y) + fabs(side_force[s].z) < 0.05 * fabs(side_force[s].x));
    }
    double fx = fabs(side_force[0].x);
    printf("  side forces %.6g N and %.6g N; net force on the peg (%.3g, %.3g, %.3g) N\n",
           side_force[0].x, side_force[1].x, r->f_W.x, r->f_W.y, r->f_W.z);
    ENSURE(fx > 0);
    /* no net force, and no net moment about the peg's centre (0, 0, 0.005) beyond the centroid
     * rule's moment error (about 1e-4 of |F| times the patch size, docs/contact-pressure.md) */
    ENSURE(tch_v3_norm(r->f_W) < 1e-9 * fx);
    tch_vec3 moment = tch_v3_sub(r->tau_Wo_W, tch_v3_cross((tch_vec3){0, 0, 0.005}, r->f_W));
    printf("  net moment about the peg's centre (%.3g, %.3g, %.3g) N m\n", moment.x, moment.y,
           moment.z);
    ENSURE(tch_v3_norm(moment) < 1e-5 * fx * 0.04);
    ENSURE_NEAR(side_force[0].x + side_force[1].x, r->f_W.x * (r->geom_b == 0 ? -1 : 1),
                1e-9 * fx);
    free(label);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* ---- a mug on a table ---- */

/* A cup (8 cm square, 8 cm tall, walls and bottom 1 cm: a box with a cavity open at the top,
 * read from a file) and a handle (a compliant box beside it, a separate geom of the same body,
 * resting on the table too), left to settle on a rigid table. At rest the two geoms carry the
 * weight between them, each on its own patch, and the centre of pressure is under the centre
 * of mass (no net moment). */
static void test_mug_on_table_carries_its_weight_on_two_patches(void) {
    enum { N = 16, H = 16, WALL = 2 };
    static unsigned char keep[N * N * H];
    grid_spec g = {{N, N, H}, 0.005, {-0.04, -0.04, -0.04}, keep};
    for (int c = 0; c < N * N * H; ++c) {
        int i = c % N, j = (c / N) % N, k = c / (N * N);
        keep[c] = !(i >= WALL && i < N - WALL && j >= WALL && j < N - WALL && k >= WALL);
    }
    char path[128];
    ENSURE(write_grid_mesh(&g, temp_path("cup.vtk", path, sizeof path)));

    double mass = 0.3, handle_mass = 0.05, weight = 9.81 * (mass + handle_mass);
    tch_spec* spec = test_spec(9.81, 2e-4, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_PRESSURE;
    opt.contact.friction = 0;
    opt.contact.dissipation = 50;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0);
    tch_body_def b = tch_body_def_default();
    snprintf(b.name, sizeof b.name, "mug");
    b.free_joint = true;
    b.p_PB = (tch_vec3){0, 0, 0.04 + 1e-4};
    tch_body_id mug;
    ENSURE(tch_spec_add_body(spec, &b, &mug, NULL) == TCH_OK);
    tch_geom_def cup = tch_geom_def_default();
    snprintf(cup.name, sizeof cup.name, "cup");
    cup.type = TCH_GEOM_BOX;
    cup.size[0] = cup.size[1] = cup.size[2] = 0.04;
    cup.mass = mass;
    cup.contact.modulus = 1e6;
    snprintf(cup.tetmesh, sizeof cup.tetmesh, "%s", path);
    ENSURE(tch_spec_add_geom(spec, mug, &cup, NULL, NULL) == TCH_OK);
    tch_geom_def handle = tch_geom_def_default();
    snprintf(handle.name, sizeof handle.name, "handle");
    handle.type = TCH_GEOM_BOX;
    handle.size[0] = 0.01, handle.size[1] = 0.005, handle.size[2] = 0.03;
    handle.p_BG = (tch_vec3){0.055, 0, -0.01};
    handle.mass = handle_mass;
    handle.contact.modulus = 1e6;
    handle.contact.resolution = 0.005;
    ENSURE(tch_spec_add_geom(spec, mug, &handle, NULL, NULL) == TCH_OK);
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    if (!m) return;
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    for (int i = 0; i < 3000; ++i) ENSURE(tch_step(m, d, NULL) == TCH_OK);
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    ENSURE(d->pair_result_count == 2);
    tch_vec3 total = tch_v3_zero(), moment = tch_v3_zero(), moment_o = tch_v3_zero();
    tch_vec3 com = d->body_p_WCm[1];
    int components = 0;
    for (int k = 0; k < d->pair_result_count; ++k) {
        const tch_pair_result* r = &d->pair_results[k];
        int* label = malloc((size_t)(r->polygon_count > 0 ? r->polygon_count : 1) * sizeof *label);
        int c = patch_components(d, r, 1e-9, label);
        free(label);
        ENSURE(c == 1);
        components += c;
        double sign = r->geom_b == 0 ? -1 : 1; /* force on the mug */
        total = tch_v3_madd(total, sign, r->f_W);
        moment_o = tch_v3_madd(moment_o, sign, r->tau_Wo_W);
        /* moment about the centre of mass: tau_o - com x f */
        moment = tch_v3_madd(moment, sign,
                             tch_v3_sub(r->tau_Wo_W, tch_v3_cross(com, r->f_W)));
        printf("  mug pair %d-%d: %d polygons, area %.4g m^2, force z %.5g N\n", r->geom_a,
               r->geom_b, r->polygon_count, r->area, sign * r->f_W.z);
    }
    double cop_x = -moment_o.y / total.z; /* M_o,y = z F_x - x F_z with F_x ~ 0 */
    printf("  mug: %d patches, net force (%.3g, %.3g, %.6g) N against weight %.6g N; centre "
           "of pressure x %.5g m, centre of mass x %.5g m\n",
           components, total.x, total.y, total.z, weight, cop_x, com.x);
    printf("  mug velocity (%.3g %.3g %.3g) m/s, (%.3g %.3g %.3g) rad/s\n", d->qvel[0], d->qvel[1],
           d->qvel[2], d->qvel[3], d->qvel[4], d->qvel[5]);
    ENSURE(components == 2);
    ENSURE_REL(total.z, weight, 1e-6);
    ENSURE(fabs(total.x) + fabs(total.y) < 1e-9 * weight);
    ENSURE(fabs(moment.x) + fabs(moment.y) < 1e-6 * weight * 0.04);
    ENSURE_NEAR(cop_x, com.x, 1e-6);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* ---- dissipation: Hunt-Crossley restitution ---- */

/* Restitution of the ball of radius 0.1 m, modulus E, dissipation chi thrown at the rigid floor
 * at speed v0 without gravity: the ratio of its rebound speed to v0. */
static double restitution(double chi, double v0) {
    tch_spec* spec = test_spec(0, 1e-4, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_PRESSURE;
    opt.contact.friction = 0;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0);
    tch_body_def b = tch_body_def_default();
    snprintf(b.name, sizeof b.name, "ball");
    b.free_joint = true;
    b.p_PB = (tch_vec3){0, 0, 0.1 + 1e-4};
    tch_body_id id;
    tch_spec_add_body(spec, &b, &id, NULL);
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_SPHERE;
    g.size[0] = 0.1;
    g.mass = 1;
    g.contact.modulus = 1e5;
    g.contact.dissipation = chi;
    g.contact.resolution = 0.025;
    tch_spec_add_geom(spec, id, &g, NULL, NULL);
    tch_model* m = test_compile(spec);
    tch_data* d = NULL;
    tch_data_create(m, &d, NULL);
    d->qvel[2] = -v0;
    int touched = 0;
    for (int i = 0; i < 20000; ++i) {
        tch_step(m, d, NULL);
        touched |= d->pair_result_count > 0;
        if (touched && d->pair_result_count == 0 && d->qvel[2] > 0) break;
    }
    double e = d->qvel[2] / v0;
    tch_data_destroy(d);
    tch_model_destroy(m);
    return e;
}

/* With the traction p = p0 (1 + χ v) for an approach speed v (our eqs. 2-3 with v_n = -v), a
 * contact of any elastic force law K f(x) loses on the way in and out, to first order in χ v0,
 *     ΔE = 2 χ ∫ K f(x) v(x) dx = 2 χ ∫₀^{m v0²/2} √(v0² − 2U/m) dU = (2/3) χ m v0³
 * (dU = K f dx), so e² = 1 − (4/3) χ v0 and e ≈ 1 − (2/3) χ v0: Hunt and Crossley's
 * e = 1 − α v0 with α = (2/3) χ (their λ = (3/2) α k). Restitution falls linearly with
 * impact speed, whatever the stiffness and the mesh. */
static void test_restitution_follows_hunt_crossley(void) {
    static const double speeds[] = {0.05, 0.1, 0.2, 0.4};
    double chi = 0.25, previous = 2;
    printf("  v0 (m/s)   e (chi = 0)   e (chi = %.2g)   1 - (2/3) chi v0   sqrt(1 - (4/3) chi v0)\n",
           chi);
    for (int i = 0; i < 4; ++i) {
        double v0 = speeds[i];
        double e0 = restitution(0, v0), e = restitution(chi, v0);
        double linear = 1 - 2.0 / 3 * chi * v0, energy = sqrt(1 - 4.0 / 3 * chi * v0);
        printf("  %-10.3g %-13.6f %-16.6f %-18.6f %.6f\n", v0, e0, e, linear, energy);
        ENSURE_NEAR(e0, 1, 0.01);
        ENSURE(e < previous);
        /* the loss 1 - e, against (2/3) χ v0, within 10% */
        ENSURE_REL(1 - e, 1 - linear, 0.1);
        previous = e;
    }
}

/* A 0.1 m, 1 kg ball (defaults: compliant, its mesh fitted through the sphere) launched at
 * 2 m/s along a table; the table is a compliant box when `table` is set, else the rigid floor
 * plane. Returns the ball's speed and height after 0.5 s at step h (rolling since 0.19 s). */
static void roll_ball(int table, double h, double* speed, double* height) {
    char xml[768];
    snprintf(xml, sizeof xml,
             "<mujoco xmlns:touche='urn:touche'><option timestep='%g' integrator='implicit' "
             "touche:contact='pressure'/><worldbody>%s<body pos='0 0 0.1'><freejoint/>"
             "<geom type='sphere' size='0.1' mass='1' friction='0.3'/></body></worldbody>"
             "</mujoco>",
             h,
             table ? "<geom type='box' size='2 2 0.1' pos='0 0 -0.1' friction='0.3'/>"
                   : "<geom type='plane' size='2 2 0.1' friction='0.3'/>");
    tch_error err;
    tch_model* m = test_compile_xml(xml, &err);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    d->qvel[0] = 2;
    for (long n = 0; n < lround(0.5 / h); ++n) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
    }
    *speed = d->body_v_WCm[1].x;
    *height = d->body_p_WCm[1].z;
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* The ball rolls at 5/7 of its launch speed once it stops slipping, less a rolling resistance
 * of the compliant contact's dissipation that does not depend on the step (dt 1 and 5 ms), on the rigid floor
 * and on a compliant table alike, and it rides at its radius (the coarsest sphere mesh, an
 * inscribed cube, sat R / sqrt(3) high and stopped within 0.4 m; on the table the contact
 * patch, placed with the table, put the ball's weight h v ahead of its centre: 0.2 m/s lost
 * over these 0.5 s at dt 5 ms). */
static void test_ball_rolls_alike_at_every_step(void) {
    const double steps[2] = {1e-3, 5e-3};
    for (int table = 0; table < 2; ++table) {
        double first = 0;
        for (int s = 0; s < 2; ++s) {
            double speed = 0, height = 0;
            roll_ball(table, steps[s], &speed, &height);
            printf("     %s, dt %g: speed %.4f m/s (5/7 v0 = %.4f), height %.5f m\n",
                   table ? "compliant table" : "rigid floor", steps[s], speed, 10.0 / 7, height);
            first = s == 0 ? speed : first;
            ENSURE(speed > 0.97 * 10.0 / 7 && speed < 10.0 / 7);
            ENSURE_NEAR(speed, first, 0.002 * first);
            ENSURE_NEAR(height, 0.1, 1e-3);
        }
    }
}

int main(void) {
    snprintf(temp_dir, sizeof temp_dir, "/tmp/touche_scenes_XXXXXX");
    if (!mkdtemp(temp_dir)) {
        fprintf(stderr, "cannot make a temporary directory\n");
        return 1;
    }
    RUN_TEST(test_peg_in_hole_gives_two_patches_with_no_net_force);
    RUN_TEST(test_mug_on_table_carries_its_weight_on_two_patches);
    RUN_TEST(test_restitution_follows_hunt_crossley);
    RUN_TEST(test_ball_rolls_alike_at_every_step);
    char path[128];
    unlink(temp_path("block_with_hole.vtk", path, sizeof path));
    unlink(temp_path("cup.vtk", path, sizeof path));
    rmdir(temp_dir);
    return TEST_RESULT();
}
