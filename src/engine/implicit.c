/* The linearly implicit Euler integrator (engine/implicit.h, docs/integrators.md). */
#include "engine/implicit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "contact/contact.h"
#include "dynamics/articulation.h"
#include "dynamics/free_body.h"
#include "engine/engine_internal.h"
#include "math/lanes.h"
#include "math/vec.h"
#include "solver/block_cholesky.h"

/* One side of a linearized pair: its root's unknowns 6 node .. 6 node + width (node -1: a
 * static root), whose twist (v_WCm, w_W) is T times them. A free body's unknowns are its twist
 * (T NULL, width 6); a link's are its tree's generalized velocities (tree_group), T its
 * Jacobian at its centre of mass (6 x width, row-major). */
typedef struct pair_side {
    int node, width;
    tch_real* T;
} pair_side;

/* One linearized pair: its two roots' sides and either the blocks of its symmetrized K and D
 * that the system reads, those between two sides that are not static: for each such block
 * (a, b), in the order (0, 0), (0, 1), (1, 0), (1, 1), K_ab then D_ab, 6 x 6 row-major
 * (pair_block; a pair with a static side keeps its free side's block alone); or, for a model
 * with linearize_terms between free bodies, its rank-one terms (K = -sum k u u^T,
 * D = -sum b u u^T: symmetric as they stand), blocks NULL. */
typedef struct linear_pair {
    pair_side side[2];
    tch_real* blocks;
    tch_rank_one_term* terms;
    int term_count;
} linear_pair;

enum { BLOCK_REALS = 2 * 36 }; /* a block's K_ab and D_ab */

/* The terms a pair may keep (a point pair's points: the narrow phase's manifold holds 8); a
 * model with more linearizes into blocks. */
enum { TERM_CAPACITY = 8 };

/* A tree in the system (docs/articulated.md, "Implicit contact on links"): the generalized
 * velocities first .. first + count of a subtree of the world (A is block diagonal over such
 * subtrees) are the unknowns of the nodes node .. node + ceil(count / 6) - 1; the last node's
 * spare unknowns are held at zero by a unit diagonal. */
typedef struct tree_group {
    int first, count, node;
} tree_group;

/* The system over the free bodies (the first free_count nodes) and the trees that touch
 * something (tree groups, the nodes after them), unknowns by node. */
struct tch_implicit_system {
    tch_real h;
    int node_count, pair_count;
    int free_count;       /* nodes of free bodies (0 .. free_count - 1) */
    int group_count;
    int friction_forces;  /* whether a pair's model takes friction from the prediction */
    int* node_of_body;    /* [model body_count] node of a free root, else -1 */
    int* body_of_node;    /* [node_count] the free body, or a tree node's top body */
    int* group_at_dof;    /* [model nv] the group whose dofs start there, else -1 */
    tree_group* groups;   /* [group_count] */
    linear_pair* pairs;   /* [pair_count] */
    tch_real* kv;         /* [6 node_count] h^2 v* by node, v = (v_WCm, w_W) */
    tch_real* dv;         /* [6 node_count] h (v* - v0), v0 the velocities at the step's start */
    int n;                /* 6 node_count unknowns */
    tch_block_cholesky* matrix; /* M - h D - h^2 K and its factor (the cache's) */
    tch_real* rhs;        /* [n] by node, then the solution */
};

typedef struct tch_implicit_system implicit_system;

/* The system of the last build, kept with its factor across evaluations in memory of its own
 * (a block grown to the largest build, like the arena), and what it was built at: each pair's
 * contacts and net wrench, each free body's orientation, each link's pose and each tree's block
 * of the step matrix (`signature`). An evaluation at the
 * same signature, to 1e-9, reuses it: the linearization is a function of those, and the
 * linearly implicit step with a Jacobian from an earlier state is still a W-method (Hairer and
 * Wanner, sec. IV.7); a resting stack then skips its linearization and factorization. */
struct tch_implicit_cache {
    unsigned char* memory;
    size_t capacity, used;
    int overflow;                 /* a take() of this build did not fit */
    tch_real* signature;          /* [signature_capacity]: the kept system's */
    int signature_count, signature_capacity;
    tch_real* taken;              /* [taken_capacity]: this evaluation's (swapped with the kept
                                   * one when the system is rebuilt: no copy) */
    int taken_capacity;
    int valid;                    /* the kept system is factored and matches its signature */
    long allocation_count;
    tch_block_cholesky* matrix;   /* the system's matrix, its analysis kept across builds */
    tch_pair_linearization linearization; /* one pair's, as its model writes it */
    implicit_system system;
};

typedef struct tch_implicit_cache implicit_cache;

/* An array of count elements of `size` bytes from the cache's block, 16-byte aligned; NULL when
 * it does not fit (the build is then retried in a larger block). Count 0 gives a valid empty
 * block. */
static void* take(tch_data* d, size_t count, size_t size, const char* tag) {
    (void)tag;
    implicit_cache* c = d->internal->implicit;
    size_t bytes = ((count > 0 ? count * size : 1) + 15) & ~(size_t)15;
    if (c->used + bytes > c->capacity) {
        c->overflow = 1;
        c->used += bytes;
        return NULL;
    }
    void* block = c->memory + c->used;
    c->used += bytes;
    return block;
}

void tch_implicit_cache_destroy(tch_implicit_cache* c) {
    if (c) {
        free(c->memory);
        free(c->signature);
        free(c->taken);
        tch_block_cholesky_destroy(c->matrix);
        free(c);
    }
}

long tch_implicit_cache_allocations(const tch_implicit_cache* c) {
    return c ? c->allocation_count + tch_block_cholesky_allocations(c->matrix) : 0;
}

/* ---- nodes and pairs ---- */

static int nodes_of_width(int width) {
    return (width + 5) / 6;
}

/* The free bodies' nodes, and room for the trees' (a tree's nodes are at most its dofs). */
static int index_bodies(const tch_model* m, tch_data* d, implicit_system* s) {
    int nv = m->articulation ? m->nv : 0;
    s->node_of_body = take(d, (size_t)m->body_count, sizeof(int), "implicit node of body");
    s->body_of_node = take(d, (size_t)(m->body_count + nv), sizeof(int), "implicit body of node");
    s->group_at_dof = take(d, (size_t)nv, sizeof(int), "implicit group at dof");
    s->groups = take(d, (size_t)m->body_count, sizeof *s->groups, "implicit tree groups");
    if (!s->node_of_body || !s->body_of_node || !s->group_at_dof || !s->groups) {
        return -1;
    }
    s->node_count = 0;
    s->group_count = 0;
    for (int k = 0; k < nv; ++k) {
        s->group_at_dof[k] = -1;
    }
    for (int b = 0; b < m->body_count; ++b) {
        int free_root = b > 0 && m->body_free[b] && m->body_root[b] == b &&
                        (!m->articulation || m->articulation->body_lone[b]); /* not a link */
        s->node_of_body[b] = free_root ? s->node_count : -1;
        if (free_root) {
            s->body_of_node[s->node_count++] = b;
        }
    }
    s->free_count = s->node_count;
    return 0;
}

/* Is model body `root` a link (a body with joints that carries its welded children)? */
static int is_link(const tch_model* m, int root) {
    return root > 0 && m->body_free[root] && m->articulation &&
           !m->articulation->body_lone[root];
}

/* The group of link `root`'s subtree, made at its first pair (its nodes after the others). */
static const tree_group* group_of_link(const tch_model* m, implicit_system* s, int root) {
    const tch_articulation* a = m->articulation;
    int first = a->body_dof_first[root];
    if (s->group_at_dof[first] < 0) {
        tree_group* g = &s->groups[s->group_count];
        *g = (tree_group){.first = first, .count = a->body_dof_count[root],
                          .node = s->node_count};
        for (int k = 0; k < nodes_of_width(g->count); ++k) {
            s->body_of_node[s->node_count++] = a->body_top[root];
        }
        s->group_at_dof[first] = s->group_count++;
    }
    return &s->groups[s->group_at_dof[first]];
}

/* The side of model root `root`: its node, or its tree's group and the link's Jacobian, or
 * none (static). 0, or -1 when out of memory. */
static int root_side(const tch_model* m, tch_data* d, implicit_system* s, int root,
                     pair_side* side) {
    *side = (pair_side){.node = s->node_of_body[root], .width = 6, .T = NULL};
    if (side->node >= 0 || !is_link(m, root)) {
        return 0;
    }
    const tree_group* g = group_of_link(m, s, root);
    side->node = g->node;
    side->width = g->count;
    side->T = take(d, 6 * (size_t)g->count, sizeof(tch_real), "implicit link Jacobian");
    if (!side->T) {
        return -1;
    }
    tch_articulation_link_twist_jacobian(m, d, d->internal->articulation, root, g->first,
                                         g->count, side->T);
    return 0;
}

/* Gives back the last `bytes` (a multiple of 16) that take() handed out. */
static void give_back(tch_data* d, size_t bytes) {
    d->internal->implicit->used -= bytes;
}

/* The number of blocks a pair keeps: 4 between two moving sides, 1 with a static side (none
 * for a pair of terms). */
static int pair_block_count(const linear_pair* p) {
    int moving = (p->side[0].node >= 0) + (p->side[1].node >= 0);
    return moving * moving;
}

/* The kept K_ab of a pair (D_ab follows it), a and b sides that are not static. */
static const tch_real* pair_block(const linear_pair* p, int a, int b) {
    int both = p->side[0].node >= 0 && p->side[1].node >= 0;
    return p->blocks + (both ? 2 * a + b : 0) * BLOCK_REALS;
}

/* a = (a + a^T) / 2 on the rows and columns first .. last - 1 of a 12x12 matrix. */
static void symmetrize(tch_real a[12][12], int first, int last) {
    for (int i = first; i < last; ++i) {
        for (int j = first; j < i; ++j) {
            tch_real mean = 0.5 * (a[i][j] + a[j][i]);
            a[i][j] = a[j][i] = mean;
        }
    }
}

/* The 6x6 block of a 12x12 row-major matrix whose first entry is at `corner`, into out. */
static void copy_block(const tch_real* corner, tch_real* out) {
    for (int i = 0; i < 6; ++i) {
        memcpy(out + 6 * i, corner + 12 * i, 6 * sizeof *out);
    }
}

/* Keeps the blocks of the symmetrized K and D of `lin` (symmetrized in place where they are
 * read) that the system reads, in the cache's block. 0, or -1 when out of memory. */
static int keep_blocks(tch_data* d, linear_pair* p, tch_pair_linearization* lin) {
    int count = pair_block_count(p);
    tch_real* blocks = take(d, (size_t)count * BLOCK_REALS, sizeof(tch_real),
                            "implicit pair blocks");
    if (!blocks) {
        return -1;
    }
    int first = count == 1 && p->side[0].node < 0 ? 6 : 0;
    int last = count == 1 && p->side[1].node < 0 ? 6 : 12;
    symmetrize(lin->K, first, last);
    symmetrize(lin->D, first, last);
    tch_real* out = blocks; /* (0, 0), (0, 1), (1, 0), (1, 1) of those that move */
    for (int r0 = first; r0 < last; r0 += 6) {
        for (int c0 = first; c0 < last; c0 += 6) {
            copy_block(&lin->K[r0][c0], out);
            copy_block(&lin->D[r0][c0], out + 36);
            out += BLOCK_REALS;
        }
    }
    p->blocks = blocks;
    p->terms = NULL;
    p->term_count = 0;
    return 0;
}

/* Keeps the pair's rank-one terms (its model's linearize_terms) in the cache's block: 0, 1 when
 * the model gives none for this pair (it needs blocks), or -1 when out of memory. */
static int keep_terms(const tch_model* m, tch_data* d, linear_pair* p, const tch_contact_ops* ops,
                      const tch_pair_context* context) {
    tch_rank_one_term* terms = take(d, TERM_CAPACITY, sizeof *terms, "implicit pair terms");
    if (!terms) {
        return -1;
    }
    int count = ops->linearize_terms(m, d, context, terms, TERM_CAPACITY);
    give_back(d, (size_t)(TERM_CAPACITY - (count > 0 ? count : 0)) * sizeof *terms);
    p->blocks = NULL;
    p->terms = terms;
    p->term_count = count;
    return count < 0 ? 1 : 0;
}

static const tch_contact_ops* linearizable(const tch_data* d, int i) {
    const tch_contact_ops* ops = tch_contact_model_ops(d->pair_results[i].model);
    return ops->kind == TCH_CONTACT_KIND_FORCE && ops->linearize ? ops : NULL;
}

/* Every pair whose model linearizes and that moves a free body, linearized into the cache's
 * one linearization and its blocks kept with K and D symmetrized (a model's local stiffness
 * need not be symmetric, engine/implicit.h). */
static int linearize_pairs(const tch_model* m, tch_data* d, implicit_system* s) {
    int equalities = m->articulation ? m->articulation->equality_count : 0;
    s->pairs = take(d, (size_t)(d->pair_result_count + 1 + equalities), /* + the spring */
                    sizeof *s->pairs, "implicit pairs");
    if (!s->pairs) {
        return -1;
    }
    s->pair_count = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_contact_ops* ops = linearizable(d, i);
        tch_pair_result* result = &d->pair_results[i];
        s->friction_forces |= tch_contact_model_ops(result->model)->friction_forces != NULL;
        linear_pair* p = &s->pairs[s->pair_count];
        if (!ops) {
            continue;
        }
        if (root_side(m, d, s, m->body_root[m->geom_body[result->geom_a]], &p->side[0]) != 0 ||
            root_side(m, d, s, m->body_root[m->geom_body[result->geom_b]], &p->side[1]) != 0) {
            return -1;
        }

        if (p->side[0].node < 0 && p->side[1].node < 0) {
            continue;
        }
        tch_pair_state* state =
            tch_contact_pair_uses_state(m, ops, &result->params)
                ? tch_pair_state_find(&d->internal->pair_states, result->geom_a, result->geom_b)
                : NULL;
        tch_pair_context context = {result, state, 0, d->internal->model_scratch[result->model]};
        int kept = ops->linearize_terms && !p->side[0].T && !p->side[1].T
                       ? keep_terms(m, d, p, ops, &context)
                       : 1;
        if (kept < 0) {
            return -1;
        }
        if (kept == 0) {
            s->pair_count += p->term_count > 0; /* a pair without terms couples nothing */
            continue;
        }
        tch_pair_linearization* lin = &d->internal->implicit->linearization;
        lin->geometric = 0; /* the system leaves G out (not filled, not zeroed) */
        memset(lin->K, 0, sizeof lin->K);
        memset(lin->D, 0, sizeof lin->D);
        ops->linearize(m, d, &context, lin);
        if (keep_blocks(d, p, lin) != 0) {
            return -1;
        }
        s->pair_count++;
    }
    return 0;
}

/* ---- equality springs ---- */

/* Every equality constraint's spring-damper (dynamics/articulation.h: connect and weld) as
 * one more pair between the roots of its two bodies, its K and D from
 * tch_articulation_linearize_equality (docs/articulated.md, "Equality constraints"). 0, or
 * -1 when out of memory. */
static int append_equalities(const tch_model* m, tch_data* d, implicit_system* s) {
    int count = m->articulation ? m->articulation->equality_count : 0;
    for (int i = 0; i < count; ++i) {
        linear_pair* p = &s->pairs[s->pair_count];
        tch_pair_linearization* lin = &d->internal->implicit->linearization;
        int root[2];
        tch_articulation_linearize_equality(m, d, d->internal->articulation, i, root, lin);
        if (root_side(m, d, s, root[0], &p->side[0]) != 0 ||
            root_side(m, d, s, root[1], &p->side[1]) != 0) {
            return -1;
        }
        if (p->side[0].node < 0 && p->side[1].node < 0) {
            continue;
        }
        if (keep_blocks(d, p, lin) != 0) { /* K and D symmetric: the same values */
            return -1;
        }
        s->pair_count++;
    }
    return 0;
}

/* ---- the applied spring (tch_data.applied_spring) ---- */

/* The applied spring as one more element of the system, between its body and a frame that the
 * caller moves (a haptic device's pose; the caller's force at the step's start carries that
 * motion): K = -diag(k 1, k_r 1) and D = -diag(b 1, b_r 1) on the body's node, the linear part
 * on the centre of mass (Otaduy and Lin 2006: the virtual coupling integrated implicitly with
 * the tool's contacts). Appended to s->pairs, sized one beyond the pair results for it. 0, or
 * -1 when out of memory. */
static int append_applied_spring(const tch_model* m, tch_data* d, implicit_system* s) {
    const tch_applied_spring* spring = &d->applied_spring;
    int body = spring->body;
    int node = body > 0 && body < m->body_count ? s->node_of_body[body] : -1;
    if (node < 0) {
        return 0;
    }
    linear_pair* p = &s->pairs[s->pair_count++];
    *p = (linear_pair){.side = {{.node = node, .width = 6}, {.node = -1, .width = 6}}};
    p->blocks = take(d, BLOCK_REALS, sizeof(tch_real), "implicit applied spring");
    if (!p->blocks) {
        return -1;
    }
    tch_real* K = p->blocks;
    tch_real* D = p->blocks + 36;
    for (int i = 0; i < 36; ++i) {
        K[i] = D[i] = 0;
    }
    for (int i = 0; i < 3; ++i) {
        K[7 * i] = -spring->stiffness;
        K[7 * (3 + i)] = -spring->angular_stiffness;
        D[7 * i] = -spring->damping;
        D[7 * (3 + i)] = -spring->angular_damping;
    }
    return 0;
}

/* ---- the block matrix ---- */

/* Appends an edge between every node of the unknowns of side a and every other node of side
 * b's (edges NULL: counts them). */
static int add_edges(const pair_side* a, const pair_side* b, int* edges, int count) {
    if (a->node < 0 || b->node < 0) {
        return count;
    }
    for (int i = a->node; i < a->node + nodes_of_width(a->width); ++i) {
        for (int j = b->node; j < b->node + nodes_of_width(b->width); ++j) {
            if (i != j && edges) {
                edges[2 * count] = i;
                edges[2 * count + 1] = j;
            }
            count += i != j;
        }
    }
    return count;
}

/* The edges of the pairs and of each tree's nodes among themselves (edges NULL: counts them). */
static int list_edges(const implicit_system* s, int* edges) {
    int count = 0;
    for (int p = 0; p < s->pair_count; ++p) {
        count = add_edges(&s->pairs[p].side[0], &s->pairs[p].side[1], edges, count);
    }
    for (int g = 0; g < s->group_count; ++g) {
        pair_side tree = {.node = s->groups[g].node, .width = s->groups[g].count};
        count = add_edges(&tree, &tree, edges, count);
    }
    return count;
}

/* The graph of the bodies coupled by pairs, analysed by s->matrix (its elimination order and
 * pattern are kept while the same pairs couple the same bodies), the matrix zeroed; and the
 * right-hand side. */
static int build_matrix(tch_data* d, implicit_system* s) {
    int* edges = take(d, 2 * (size_t)list_edges(s, NULL), sizeof(int), "implicit edges");
    s->rhs = take(d, (size_t)s->n, sizeof(tch_real), "implicit rhs");
    if (!edges || !s->rhs) {
        return -1;
    }
    int edge_count = list_edges(s, edges);
    return tch_block_cholesky_analyze(s->matrix, s->node_count, edge_count, edges);
}

/* A(row, col) += value, where the matrix stores it (the lower block triangle's transposes
 * are skipped: the symmetric entry is added there). */
static void add_entry(tch_block_cholesky* matrix, int row, int col, tch_real value) {
    tch_real* block = tch_block_cholesky_block(matrix, row / 6, col / 6);
    if (block) {
        block[6 * (row % 6) + col % 6] += value;
    }
}

static void write_twist(tch_real* x, tch_vec3 v, tch_vec3 w) {
    for (int i = 0; i < 3; ++i) {
        x[i] = tch_v3_get(v, i);
        x[3 + i] = tch_v3_get(w, i);
    }
}

/* The mass blocks diag(m 1, I_W) of the free bodies, and each tree's step matrix
 * A + h D_J + h^2 K_J over its dofs (tch_articulation_predict_links built it this
 * evaluation). */
static void assemble_bodies(const tch_model* m, const tch_data* d, implicit_system* s) {
    for (int g = 0; g < s->group_count; ++g) {
        const tree_group* group = &s->groups[g];
        const tch_real* A = tch_articulation_step_matrix(d->internal->articulation);
        int u = 6 * group->node;
        for (int i = 0; i < group->count; ++i) {
            for (int j = 0; j < group->count; ++j) {
                add_entry(s->matrix, u + i, u + j,
                          A[(size_t)(group->first + i) * (size_t)m->nv + group->first + j]);
            }
        }
        for (int i = group->count; i < 6 * nodes_of_width(group->count); ++i) {
            add_entry(s->matrix, u + i, u + i, 1);
        }
    }
    for (int node = 0; node < s->free_count; ++node) {
        int b = s->body_of_node[node];
        tch_real* M = tch_block_cholesky_block(s->matrix, node, node);
        const tch_mat3 I_W = d->body_I_W[b];
        for (int i = 0; i < 3; ++i) {
            M[7 * i] += m->body_total_mass[b];
            for (int j = 0; j < 3; ++j) {
                M[6 * (3 + i) + 3 + j] += I_W.m[i][j];
            }
        }
    }
}

/* T[row][col] of a side, the identity for a free body. */
static tch_real side_map(const pair_side* side, int row, int col) {
    return side->T ? side->T[row * side->width + col] : (tch_real)(row == col);
}

/* The block C = -(h D_ab + h^2 K_ab) of a pair carried to the unknowns of a link's side:
 * T_a^T C T_b (K_q = J^T K J on the tree's generalized velocities; J's own change with q, a
 * geometric term, is left out as G is). */
static void assemble_mapped_block(implicit_system* s, const linear_pair* p, int a, int b) {
    tch_real h = s->h;
    const pair_side* sa = &p->side[a];
    const pair_side* sb = &p->side[b];
    const tch_real* K = pair_block(p, a, b);
    const tch_real* D = K + 36;
    tch_real C[6][6];
    for (int i = 0; i < 6; ++i) {
        for (int k = 0; k < 6; ++k) {
            C[i][k] = -(h * D[6 * i + k] + h * h * K[6 * i + k]);
        }
    }
    for (int j = 0; j < sb->width; ++j) {
        tch_real column[6]; /* column j of C T_b */
        for (int i = 0; i < 6; ++i) {
            column[i] = 0;
            for (int k = 0; k < 6; ++k) {
                column[i] += C[i][k] * side_map(sb, k, j);
            }
        }
        for (int r = 0; r < sa->width; ++r) {
            tch_real sum = 0;
            for (int i = 0; i < 6; ++i) {
                sum += side_map(sa, i, r) * column[i];
            }
            add_entry(s->matrix, 6 * sa->node + r, 6 * sb->node + j, sum);
        }
    }
}

/* A pair of terms' blocks of -(h D + h^2 K) = sum (h b + h^2 k) u_a u_b^T (those of the lower
 * block triangle, diagonal blocks whole; free bodies only), two rows of a block at a time in
 * registers, summed over the terms in order. */
static void assemble_terms(implicit_system* s, const linear_pair* p) {
    const tch_real h = s->h;
    tch_real2 w[TERM_CAPACITY][2][3]; /* (h b + h^2 k) u by side, in pairs of components */
    for (int t = 0; t < p->term_count; ++t) {
        const tch_real c = h * p->terms[t].b + h * h * p->terms[t].k;
        for (int k = 0; k < 6; ++k) {
            w[t][k / 3][k % 3] = c * tch_load2(p->terms[t].u + 2 * k);
        }
    }
    for (int a = 0; a < 2; ++a) {
        for (int b = 0; b < 2 && p->side[a].node >= 0; ++b) {
            tch_real* A = p->side[b].node >= 0 ? tch_block_cholesky_block(
                                                     s->matrix, p->side[a].node, p->side[b].node)
                                               : NULL;
            for (int q = 0; A && q < 3; ++q) { /* rows 2q, 2q + 1 */
                tch_real2 upper[3], lower[3];
                for (int j = 0; j < 3; ++j) {
                    upper[j] = tch_load2(A + 12 * q + 2 * j);
                    lower[j] = tch_load2(A + 12 * q + 6 + 2 * j);
                }
                for (int t = 0; t < p->term_count; ++t) {
                    const tch_real2 along = w[t][a][q];
                    const tch_real* u_b = p->terms[t].u + 6 * b;
                    for (int j = 0; j < 3; ++j) {
                        const tch_real2 column = tch_load2(u_b + 2 * j);
                        upper[j] += TCH_LANE2(along, 0) * column;
                        lower[j] += TCH_LANE2(along, 1) * column;
                    }
                }
                for (int j = 0; j < 3; ++j) {
                    tch_store2(A + 12 * q + 2 * j, upper[j]);
                    tch_store2(A + 12 * q + 6 + 2 * j, lower[j]);
                }
            }
        }
    }
}

/* One pair's blocks of -(h D + h^2 K) (those of the lower triangle, diagonal blocks whole). */
static void assemble_pair(implicit_system* s, const linear_pair* p) {
    if (p->terms) {
        assemble_terms(s, p);
        return;
    }
    tch_real h = s->h;
    for (int a = 0; a < 2; ++a) {
        for (int b = 0; b < 2 && p->side[a].node >= 0; ++b) {
            if (p->side[b].node < 0) {
                continue;
            }
            if (p->side[a].T || p->side[b].T) {
                assemble_mapped_block(s, p, a, b);
                continue;
            }
            tch_real* A = tch_block_cholesky_block(s->matrix, p->side[a].node, p->side[b].node);
            if (!A) {
                continue; /* the (b, a) block holds it, transposed */
            }
            const tch_real* K = pair_block(p, a, b);
            const tch_real* D = K + 36;
            for (int i = 0; i < 36; ++i) {
                A[i] -= h * D[i] + h * h * K[i];
            }
        }
    }
}

/* The twist T x of a side's unknowns x (by node) into twist. */
static void side_twist(const pair_side* side, const tch_real* x, tch_real twist[6]) {
    const tch_real* u = x + 6 * side->node;
    for (int i = 0; i < 6; ++i) {
        tch_real sum = 0;
        for (int k = 0; k < side->width; ++k) {
            sum += side_map(side, i, k) * u[k];
        }
        twist[i] = side->T ? sum : u[i];
    }
}

/* rhs of a side's unknowns += T^T f for the generalized force f on its twist. */
static void add_side_force(const pair_side* side, const tch_real f[6], tch_real* rhs) {
    tch_real* u = rhs + 6 * side->node;
    for (int k = 0; k < side->width; ++k) {
        tch_real sum = 0;
        for (int i = 0; i < 6 && side->T; ++i) {
            sum += side->T[i * side->width + k] * f[i];
        }
        u[k] += side->T ? sum : f[k];
    }
}

/* A pair of terms' part of the right-hand side h^2 K v* + h D (v* - v0): for each term,
 * -u (k u . h^2 v* + b u . h (v* - v0)) over the free bodies' twists. */
static void terms_right_hand_side(implicit_system* s, const linear_pair* p) {
    const int node[2] = {p->side[0].node, p->side[1].node};
    for (int t = 0; t < p->term_count; ++t) {
        const tch_rank_one_term* term = &p->terms[t];
        tch_real along_kv = 0, along_dv = 0;
        for (int b = 0; b < 2; ++b) {
            if (node[b] < 0) {
                continue;
            }
            const tch_real* kv = s->kv + 6 * node[b];
            const tch_real* dv = s->dv + 6 * node[b];
            for (int j = 0; j < 6; ++j) {
                along_kv += term->u[6 * b + j] * kv[j];
                along_dv += term->u[6 * b + j] * dv[j];
            }
        }
        const tch_real f = -(term->k * along_kv + term->b * along_dv);
        for (int a = 0; a < 2; ++a) {
            if (node[a] < 0) {
                continue;
            }
            tch_real* rhs = s->rhs + 6 * node[a];
            for (int i = 0; i < 6; ++i) {
                rhs[i] += f * term->u[6 * a + i];
            }
        }
    }
}

/* One pair's part of the right-hand side h^2 K v* + h D (v* - v0), from s->kv = h^2 v* and
 * s->dv = h (v* - v0) by node, on the twists (T_b times a link's unknowns), carried back by
 * T_a^T. Row i of a block K_ab is read as column i of K_ba (K and D are symmetrized exactly),
 * so that the six rows' sums run side by side along contiguous rows of 6 (vectorized), each
 * still summed over j in order. */
static void pair_right_hand_side(implicit_system* s, const linear_pair* p) {
    if (p->terms) {
        terms_right_hand_side(s, p);
        return;
    }
    for (int a = 0; a < 2; ++a) {
        if (p->side[a].node < 0) {
            continue;
        }
        for (int b = 0; b < 2; ++b) {
            if (p->side[b].node < 0) {
                continue;
            }
            tch_real kv[6], dv[6];
            side_twist(&p->side[b], s->kv, kv);
            side_twist(&p->side[b], s->dv, dv);
            tch_real sum[6] = {0, 0, 0, 0, 0, 0};
            const tch_real* K_ba = pair_block(p, b, a);
            for (int j = 0; j < 6; ++j) {
                const tch_real* K = K_ba + 6 * j;
                const tch_real* D = K_ba + 36 + 6 * j;
                for (int i = 0; i < 6; ++i) {
                    sum[i] += K[i] * kv[j] + D[i] * dv[j];
                }
            }
            add_side_force(&p->side[a], sum, s->rhs);
        }
    }
}

/* The system, when some pair is linearized (s->pair_count > 0). -1 when out of memory. */
static int prepare(const tch_model* m, tch_data* d, implicit_system* s) {
    if (index_bodies(m, d, s) != 0 || linearize_pairs(m, d, s) != 0 ||
        append_equalities(m, d, s) != 0 || append_applied_spring(m, d, s) != 0) {
        return -1;
    }
    s->n = 6 * s->node_count;
    if (s->pair_count == 0) {
        return 0;
    }
    s->kv = take(d, (size_t)s->n, sizeof(tch_real), "implicit h^2 v*");
    s->dv = take(d, (size_t)s->n, sizeof(tch_real), "implicit h (v* - v0)");
    if (!s->kv || !s->dv || build_matrix(d, s) != 0) {
        return -1;
    }
    assemble_bodies(m, d, s);
    for (int p = 0; p < s->pair_count; ++p) {
        assemble_pair(s, &s->pairs[p]);
    }
    return 0;
}

/* ---- the kept system ---- */

/* Appends one value and the size it is compared at (sign_scaled) to the signature being
 * taken; 0, or -1 when out of memory. */
static int sign_scaled(implicit_cache* c, int* count, tch_real value, tch_real scale) {
    int at = *count;
    if (at + 1 >= c->taken_capacity) {
        int capacity = 2 * at + 64;
        tch_real* grown = realloc(c->taken, (size_t)capacity * sizeof *grown);
        if (!grown) {
            return -1;
        }
        c->taken = grown;
        c->taken_capacity = capacity;
        c->allocation_count++;
    }
    c->taken[at] = value;
    c->taken[at + 1] = scale;
    *count += 2;
    return 0;
}

/* A value compared at its own size, at least 1 (metres, unit vectors, ids). */
static int sign(implicit_cache* c, int* count, tch_real value) {
    return sign_scaled(c, count, value, 1);
}

static int sign_vec3(implicit_cache* c, int* count, tch_vec3 v, tch_real scale) {
    return sign_scaled(c, count, v.x, scale) | sign_scaled(c, count, v.y, scale) |
           sign_scaled(c, count, v.z, scale);
}

/* The applied spring's part of the signature (its body and gains; nothing when there is none). */
static int sign_applied_spring(implicit_cache* c, int* count, const tch_applied_spring* spring) {
    if (spring->body <= 0) {
        return 0;
    }
    return sign(c, count, spring->body) | sign(c, count, spring->stiffness) |
           sign(c, count, spring->damping) | sign(c, count, spring->angular_stiffness) |
           sign(c, count, spring->angular_damping);
}

/* The trees' part of the signature: every link's pose (its Jacobian's and the equality
 * springs' lever arms are functions of them) and each subtree's block of the step matrix
 * (the configuration's inertia and the joints' velocity-dependent terms), each entry at the
 * size of the block's largest diagonal entry. */
static int sign_trees(const tch_model* m, const tch_data* d, implicit_cache* c, int* count) {
    const tch_articulation* a = m->articulation;
    int failed = 0;
    for (int b = 1; a && b < m->body_count; ++b) {
        if (!is_link(m, b)) {
            continue;
        }
        failed |= sign_vec3(c, count, d->body_p_WCm[b], 1);
        for (int i = 0; i < 9; ++i) {
            failed |= sign(c, count, d->body_R_WB[b].m[i / 3][i % 3]);
        }
        if (a->body_top[b] != b) {
            continue;
        }
        const tch_real* A = tch_articulation_step_matrix(d->internal->articulation);
        size_t nv = (size_t)m->nv, first = (size_t)a->body_dof_first[b];
        int n = a->body_dof_count[b];
        tch_real scale = 0;
        for (int i = 0; i < n; ++i) {
            scale = fmax(scale, A[(first + i) * nv + first + i]);
        }
        for (int i = 0; i < n * n; ++i) {
            failed |= sign_scaled(c, count, A[(first + i / n) * nv + first + i % n], scale);
        }
    }
    return failed;
}

/* This evaluation's signature (c->taken): the pairs that the system linearizes (geoms,
 * contacts, net wrench), the free bodies' orientations and the trees' state (sign_trees). Its
 * length, or -1 when out of memory. */
static int take_signature(const tch_model* m, const tch_data* d, implicit_cache* c) {
    int count = 0, failed = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* pair = &d->pair_results[i];
        if (!linearizable(d, i)) {
            continue;
        }
        /* the wrench at the size of the whole wrench: its round-off components chatter */
        tch_real wrench = tch_v3_norm(pair->f_W) + tch_v3_norm(pair->tau_Wo_W);
        failed |= sign(c, &count, pair->geom_a) | sign(c, &count, pair->geom_b) |
                  sign(c, &count, pair->contact_count) |
                  sign_vec3(c, &count, pair->f_W, wrench) |
                  sign_vec3(c, &count, pair->tau_Wo_W, wrench);
        for (int k = 0; k < pair->contact_count; ++k) {
            const tch_contact* contact = &d->contacts[pair->contact_start + k];
            failed |= sign_vec3(c, &count, contact->p_W, 1) |
                      sign_vec3(c, &count, contact->n_W, 1) | sign(c, &count, contact->depth);
        }
    }
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b] && m->body_root[b] == b) {
            for (int i = 0; i < 9; ++i) {
                failed |= sign(c, &count, d->body_R_WB[b].m[i / 3][i % 3]);
            }
        }
    }
    failed |= sign_applied_spring(c, &count, &d->applied_spring);
    failed |= sign_trees(m, d, c, &count);
    return failed ? -1 : count;
}

/* Does the signature just taken (count reals: value, size) match the kept one to 1e-9 of each
 * value's size? */
static int same_signature(const implicit_cache* c, int count) {
    if (!c->valid || count != c->signature_count || count == 0) {
        return count == 0 && c->valid && c->signature_count == 0; /* no free body in contact */
    }
    const tch_real* kept = c->signature;
    const tch_real* now = c->taken;
    for (int i = 0; i < count; i += 2) {
        tch_real size = fmax(now[i + 1], fmax(fabs(now[i]), fabs(kept[i])));
        if (!(fabs(now[i] - kept[i]) <= 1e-9 * size)) {
            return 0;
        }
    }
    return 1;
}

/* Builds the system in the cache's block, growing it until the build fits. 0, or -1 when out
 * of memory. */
static int build(const tch_model* m, tch_data* d, implicit_cache* c) {
    for (;;) {
        c->used = 0;
        c->overflow = 0;
        c->system = (implicit_system){.h = m->timestep, .matrix = c->matrix};
        if (prepare(m, d, &c->system) == 0) {
            return 0;
        }
        if (!c->overflow) {
            return -1;
        }
        size_t capacity = c->used + c->used / 2 + 4096;
        unsigned char* grown = realloc(c->memory, capacity);
        if (!grown) {
            return -1;
        }
        c->memory = grown;
        c->capacity = capacity;
        c->allocation_count++;
    }
}

/* The data's cache, created with its matrix at the first call; NULL when out of memory. */
static implicit_cache* existing_cache(tch_data* d) {
    if (!d->internal->implicit && !(d->internal->implicit = calloc(1, sizeof(implicit_cache)))) {
        return NULL;
    }
    implicit_cache* c = d->internal->implicit;
    return c->matrix || (c->matrix = tch_block_cholesky_create()) ? c : NULL;
}

tch_status tch_implicit_prepare(const tch_model* m, tch_data* d, tch_implicit_system** out,
                                tch_error* err) {
    *out = NULL;
    implicit_cache* c = existing_cache(d);
    if (!c) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                        "out of memory for the implicit integrator's system");
    }
    int count = take_signature(m, d, c);
    if (count >= 0 && same_signature(c, count) && c->system.h == m->timestep) {
        *out = &c->system;
        return TCH_OK;
    }
    c->valid = 0;
    if (count < 0 || build(m, d, c) != 0) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                        "out of memory for the implicit integrator's system");
    }
    tch_real* kept = c->signature; /* the one taken is kept */
    int kept_capacity = c->signature_capacity;
    c->signature = c->taken, c->signature_capacity = c->taken_capacity;
    c->taken = kept, c->taken_capacity = kept_capacity;
    c->signature_count = count;
    implicit_system* s = &c->system;
    *out = s;
    int failed = s->pair_count > 0 ? tch_block_cholesky_factor(s->matrix) : 0;
    if (failed) {
        s->pair_count = 0;
        return tch_fail(err, TCH_ERR_DIVERGED, NULL, 0,
                        "implicit integrator at t = %.6g s: the system M - h D - h^2 K is not "
                        "positive definite at body '%s' (expected passive contact springs and "
                        "dampers; reduce the time step)",
                        d->time, m->body_name[s->body_of_node[failed - 1]]);
    }
    c->valid = 1;
    return TCH_OK;
}

/* A tree group's v* (generalized velocities, from qvel_star) into s->kv, its spare unknowns
 * zero. */
static void write_group_velocities(implicit_system* s, const tree_group* g,
                                   const tch_real* qvel_star) {
    tch_real* kv = s->kv + 6 * g->node;
    for (int i = 0; i < 6 * nodes_of_width(g->count); ++i) {
        kv[i] = i < g->count ? qvel_star[g->first + i] : 0;
    }
}

/* Solves for the correction x of the velocities v* (by node in s->kv as given: free bodies'
 * centre-of-mass twists, trees' generalized velocities) into s->rhs: kv becomes h^2 v* and dv
 * h (v* - v0). */
static void solve_correction(const tch_data* d, implicit_system* s) {
    tch_real h = s->h;
    for (int g = 0; g < s->group_count; ++g) {
        const tree_group* group = &s->groups[g];
        tch_real* v = s->kv + 6 * group->node;
        tch_real* dv = s->dv + 6 * group->node;
        for (int i = 0; i < 6 * nodes_of_width(group->count); ++i) {
            dv[i] = i < group->count ? h * (v[i] - d->qvel[group->first + i]) : 0;
            v[i] *= h * h;
        }
    }
    for (int node = 0; node < s->free_count; ++node) {
        int b = s->body_of_node[node];
        tch_real* v = s->kv + 6 * node;
        tch_vec3 v0[2] = {d->body_v_WCm[b], d->body_w_W[b]};
        for (int i = 0; i < 6; ++i) {
            s->dv[6 * node + i] = h * (v[i] - tch_v3_get(v0[i / 3], i % 3));
            v[i] *= h * h;
        }
    }
    memset(s->rhs, 0, (size_t)s->n * sizeof(tch_real));
    for (int p = 0; p < s->pair_count; ++p) {
        pair_right_hand_side(s, &s->pairs[p]);
    }
    tch_block_cholesky_solve(s->matrix, s->rhs);
}

/* Body b's correction (dv_WCm, dw_W). */
static void correction(const implicit_system* s, int node, tch_vec3* dv, tch_vec3* dw) {
    const tch_real* x = s->rhs + 6 * node;
    *dv = (tch_vec3){x[0], x[1], x[2]};
    *dw = (tch_vec3){x[3], x[4], x[5]};
}

void tch_implicit_correct_prediction(tch_implicit_system* s, const tch_model* m,
                                     const tch_data* d, tch_velocity_prediction* prediction) {
    if (s->pair_count == 0 || !s->friction_forces) {
        return; /* nothing reads the prediction (the volume model's friction is its own) */
    }
    tch_articulation_work* w = d->internal->articulation;
    for (int g = 0; g < s->group_count; ++g) { /* the trees' prediction: w->qvel_next */
        write_group_velocities(s, &s->groups[g], w->qvel_next);
    }
    for (int node = 0; node < s->free_count; ++node) {
        int b = s->body_of_node[node];
        write_twist(s->kv + 6 * node, prediction->v_WCm[b], prediction->w_W[b]);
    }
    solve_correction(d, s);
    for (int g = 0; g < s->group_count; ++g) {
        const tree_group* group = &s->groups[g];
        for (int i = 0; i < group->count; ++i) {
            w->qvel_next[group->first + i] += s->rhs[6 * group->node + i];
        }
    }
    if (s->group_count > 0) {
        tch_articulation_predict_link_velocities(m, d, w, prediction);
    }
    for (int node = 0; node < s->free_count; ++node) {
        int b = s->body_of_node[node];
        tch_vec3 dv, dw;
        correction(s, node, &dv, &dw);
        prediction->v_WCm[b] = tch_v3_add(prediction->v_WCm[b], dv);
        prediction->w_W[b] = tch_v3_add(prediction->w_W[b], dw);
    }
}

/* The velocities v* = v + h qacc in centre-of-mass coordinates into s->kv (the map from qvel
 * is linear for the current pose, so qacc maps the same way). */
static void step_velocities(const tch_model* m, const tch_data* d, implicit_system* s) {
    for (int g = 0; g < s->group_count; ++g) {
        const tree_group* group = &s->groups[g];
        tch_real* kv = s->kv + 6 * group->node;
        for (int i = 0; i < 6 * nodes_of_width(group->count); ++i) {
            int k = group->first + i;
            kv[i] = i < group->count ? d->qvel[k] + s->h * d->qacc[k] : 0;
        }
    }
    for (int node = 0; node < s->free_count; ++node) {
        int b = s->body_of_node[node];
        tch_vec3 v, w, a, alpha;
        tch_free_body_com_velocity(m, d->qpos, d->qvel, b, &v, &w);
        tch_free_body_com_velocity(m, d->qpos, d->qacc, b, &a, &alpha);
        write_twist(s->kv + 6 * node, tch_v3_madd(v, s->h, a), tch_v3_madd(w, s->h, alpha));
    }
}

void tch_implicit_correct_accelerations(tch_implicit_system* s, const tch_model* m,
                                        tch_data* d) {
    if (s->pair_count == 0) {
        return;
    }
    step_velocities(m, d, s);
    solve_correction(d, s);
    for (int g = 0; g < s->group_count; ++g) { /* qacc += x / h on a tree's dofs */
        const tree_group* group = &s->groups[g];
        for (int i = 0; i < group->count; ++i) {
            d->qacc[group->first + i] += s->rhs[6 * group->node + i] / s->h;
        }
    }
    /* qacc += x / h in the free-joint coordinates: the origin's part dv - dw x r (r = R p_BCm),
     * the body-axes part R^T dw */
    for (int node = 0; node < s->free_count; ++node) {
        int b = s->body_of_node[node];
        tch_vec3 dv, dw;
        correction(s, node, &dv, &dw);
        tch_quat q = tch_free_body_pose(m, d->qpos, b).q;
        tch_vec3 r = tch_q_rotate(q, m->body_total_p_BCm[b]);
        tch_vec3 a_o = tch_v3_scale(tch_v3_sub(dv, tch_v3_cross(dw, r)), 1 / s->h);
        tch_vec3 alpha_B = tch_v3_scale(tch_q_inv_rotate(q, dw), 1 / s->h);
        tch_real* qacc = d->qacc + m->body_qvel_adr[b];
        for (int i = 0; i < 3; ++i) {
            qacc[i] += tch_v3_get(a_o, i);
            qacc[3 + i] += tch_v3_get(alpha_B, i);
        }
    }
}

/* ---- checkpoints ---- */

/* The reals of the kept system's link Jacobians (its pairs' sides on trees). */
static long jacobian_reals(const implicit_system* s) {
    long count = 0;
    for (int p = 0; p < s->pair_count; ++p) {
        for (int k = 0; k < 2; ++k) {
            count += s->pairs[p].side[k].T ? 6L * s->pairs[p].side[k].width : 0;
        }
    }
    return count;
}

/* The reals of the kept system's pairs' blocks of K and D. */
static long block_reals(const implicit_system* s) {
    long count = 0;
    for (int p = 0; p < s->pair_count; ++p) {
        count += s->pairs[p].blocks ? (long)pair_block_count(&s->pairs[p]) * BLOCK_REALS : 0;
    }
    return count;
}

/* The terms of the kept system's pairs of terms. */
static long term_total(const implicit_system* s) {
    long count = 0;
    for (int p = 0; p < s->pair_count; ++p) {
        count += s->pairs[p].terms ? s->pairs[p].term_count : 0;
    }
    return count;
}

/* What a kept system reuses (the signature it was built at, its nodes, trees and pairs, its
 * links' Jacobians, its pairs' blocks and terms and its factor); the per-evaluation vectors are not kept.
 * `valid` is 0 when there is none, 1 for free bodies only (the layout before trees were kept),
 * 2 with trees: then the trees' sizes follow it, and their groups and Jacobians the pairs. */
void tch_implicit_cache_put(tch_stream* st, const tch_model* m, const tch_implicit_cache* c) {
    int valid = c && c->valid ? 1 + (c->system.group_count > 0) : 0;
    TCH_PUT(st, valid);
    if (!valid) {
        return;
    }
    const implicit_system* s = &c->system;
    if (valid == 2) {
        tch_stream_put_count(st, s->free_count);
        tch_stream_put_count(st, s->group_count);
        tch_stream_put_count(st, jacobian_reals(s));
    }
    tch_stream_put_count(st, block_reals(s));
    tch_stream_put_count(st, term_total(s));
    tch_stream_put_count(st, c->signature_count);
    tch_stream_put(st, c->signature, (size_t)c->signature_count * sizeof *c->signature);
    TCH_PUT(st, s->h), TCH_PUT(st, s->friction_forces);
    tch_stream_put_count(st, s->node_count);
    tch_stream_put_count(st, s->pair_count);
    tch_stream_put(st, s->node_of_body, (size_t)m->body_count * sizeof *s->node_of_body);
    tch_stream_put(st, s->body_of_node, (size_t)s->node_count * sizeof *s->body_of_node);
    tch_stream_put(st, s->pairs, (size_t)s->pair_count * sizeof *s->pairs);
    if (valid == 2) {
        tch_stream_put(st, s->groups, (size_t)s->group_count * sizeof *s->groups);
        tch_stream_put(st, s->group_at_dof, (size_t)m->nv * sizeof *s->group_at_dof);
        for (int p = 0; p < s->pair_count; ++p) {
            for (int k = 0; k < 2; ++k) {
                const pair_side* side = &s->pairs[p].side[k];
                if (side->T) {
                    tch_stream_put(st, side->T, 6 * (size_t)side->width * sizeof *side->T);
                }
            }
        }
    }
    for (int p = 0; p < s->pair_count; ++p) {
        const linear_pair* pair = &s->pairs[p];
        if (pair->blocks) {
            tch_stream_put(st, pair->blocks, (size_t)pair_block_count(pair) * BLOCK_REALS *
                                                 sizeof *pair->blocks);
        }
    }
    for (int p = 0; p < s->pair_count; ++p) { /* after all blocks, as read_system reads them */
        const linear_pair* pair = &s->pairs[p];
        if (pair->terms) {
            tch_stream_put(st, pair->terms, (size_t)pair->term_count * sizeof *pair->terms);
        }
    }
    if (s->pair_count > 0) {
        tch_real *values, *inverse;
        size_t value_count, inverse_count;
        tch_block_cholesky_factor_arrays(s->matrix, &values, &value_count, &inverse,
                                         &inverse_count);
        tch_stream_put(st, values, value_count * sizeof *values);
        tch_stream_put(st, inverse, inverse_count * sizeof *inverse);
    }
}

/* Is the read tree group g consistent with the system's nodes and the model's dofs? */
static int bad_group(const tch_model* m, const implicit_system* s, const tree_group* g) {
    return g->count < 1 || g->first < 0 || g->first + g->count > m->nv ||
           g->node < s->free_count || g->node + nodes_of_width(g->count) > s->node_count;
}

/* Is a read pair side consistent: static, a free body's node, or a tree group's (its Jacobian
 * over the group's dofs)? `has_T` is whether the stored side had one. */
static int bad_side(const tch_model* m, const implicit_system* s, const pair_side* side,
                    int has_T) {
    if (side->node < -1 || side->node >= s->node_count) {
        return 1;
    }
    if (!has_T) {
        return side->width != 6 || side->node >= s->free_count;
    }
    for (int g = 0; g < s->group_count; ++g) {
        if (s->groups[g].node == side->node && s->groups[g].count == side->width) {
            return side->width > m->nv;
        }
    }
    return 1;
}

/* The trees' groups and the pairs' Jacobians read into the cache's block (after the pairs);
 * 0, or -1 when inconsistent. */
static int read_trees(tch_stream* st, const tch_model* m, tch_data* d, long reals) {
    implicit_system* s = &d->internal->implicit->system;
    s->groups = take(d, (size_t)s->group_count, sizeof *s->groups, "implicit tree groups");
    s->group_at_dof = take(d, (size_t)m->nv, sizeof(int), "implicit group at dof");
    tch_real* T = take(d, (size_t)reals, sizeof(tch_real), "implicit link Jacobians");
    tch_stream_get(st, s->groups, (size_t)s->group_count * sizeof *s->groups);
    tch_stream_get(st, s->group_at_dof, (size_t)m->nv * sizeof *s->group_at_dof);
    int bad = st->failed || !s->groups || !s->group_at_dof || !T;
    for (int g = 0; !bad && g < s->group_count; ++g) {
        bad |= bad_group(m, s, &s->groups[g]);
    }
    for (int k = 0; !bad && k < m->nv; ++k) {
        bad |= s->group_at_dof[k] < -1 || s->group_at_dof[k] >= s->group_count;
    }
    long used = 0;
    for (int p = 0; !bad && p < s->pair_count; ++p) {
        for (int k = 0; k < 2 && !bad; ++k) {
            pair_side* side = &s->pairs[p].side[k];
            int has_T = side->T != NULL; /* the stored pointer says only whether it had one */
            side->T = NULL;
            bad |= bad_side(m, s, side, has_T) || (has_T && used + 6L * side->width > reals);
            if (!bad && has_T) {
                side->T = T + used;
                tch_stream_get(st, side->T, 6 * (size_t)side->width * sizeof *side->T);
                used += 6L * side->width;
            }
        }
    }
    return bad || st->failed || used != reals ? -1 : 0;
}

/* The pairs' blocks (`reals` in all) read into the cache's block; 0, or -1 when inconsistent. */
static int read_blocks(tch_stream* st, tch_data* d, implicit_system* s, long reals) {
    tch_real* blocks = take(d, (size_t)reals, sizeof(tch_real), "implicit pair blocks");
    long used = 0;
    int bad = !blocks;
    for (int p = 0; p < s->pair_count; ++p) {
        linear_pair* pair = &s->pairs[p];
        long count = (long)pair_block_count(pair) * BLOCK_REALS;
        int had = pair->blocks != NULL; /* the stored pointer says only whether it had some */
        pair->blocks = NULL;
        bad |= had && (count == 0 || used + count > reals);
        if (!bad && had) {
            pair->blocks = blocks + used;
            tch_stream_get(st, pair->blocks, (size_t)count * sizeof *pair->blocks);
            used += count;
        }
    }
    return bad || st->failed || used != reals ? -1 : 0;
}

/* The pairs' terms (`total` in all) read into the cache's block; 0, or -1 when inconsistent (a
 * pair of terms has between 1 and TERM_CAPACITY of them, no blocks and no link side). */
static int read_terms(tch_stream* st, tch_data* d, implicit_system* s, long total) {
    tch_rank_one_term* terms = take(d, (size_t)total, sizeof *terms, "implicit pair terms");
    long used = 0;
    int bad = !terms;
    for (int p = 0; p < s->pair_count && !bad; ++p) {
        linear_pair* pair = &s->pairs[p];
        int had = pair->terms != NULL; /* the stored pointer says only whether it had some */
        int count = pair->term_count;
        pair->terms = NULL;
        bad |= had ? count < 1 || count > TERM_CAPACITY || used + count > total ||
                         pair->blocks || pair->side[0].T || pair->side[1].T
                   : count != 0;
        if (!bad && had) {
            pair->terms = terms + used;
            tch_stream_get(st, pair->terms, (size_t)count * sizeof *pair->terms);
            used += count;
        }
    }
    return bad || st->failed || used != total ? -1 : 0;
}

/* The nodes, trees, pairs and their blocks and terms read into the cache's block (laid out as prepare
 * lays them) and checked: 0, or -1 when out of memory or inconsistent. */
static int read_system(tch_stream* st, const tch_model* m, tch_data* d, implicit_cache* c,
                       long reals, long block_reals, long terms) {
    implicit_system* s = &c->system;
    int nv = m->articulation ? m->nv : 0;
    size_t bytes = ((size_t)m->body_count * sizeof(int) + 16) +
                   ((size_t)s->node_count * sizeof(int) + 16) +
                   ((size_t)s->pair_count * sizeof *s->pairs + 16) +
                   ((size_t)s->group_count * sizeof *s->groups + 16) +
                   ((size_t)nv * sizeof(int) + 16) + ((size_t)reals * sizeof(tch_real) + 16) +
                   ((size_t)block_reals * sizeof(tch_real) + 16) +
                   ((size_t)terms * sizeof(tch_rank_one_term) + 16) +
                   3 * ((size_t)s->n * sizeof(tch_real) + 16) +
                   2 * (size_t)s->pair_count * sizeof(int) + 64;
    if (bytes > c->capacity) {
        unsigned char* grown = realloc(c->memory, bytes);
        if (!grown) {
            return -1;
        }
        c->memory = grown, c->capacity = bytes;
    }
    c->used = 0, c->overflow = 0;
    s->node_of_body = take(d, (size_t)m->body_count, sizeof(int), "implicit node of body");
    s->body_of_node = take(d, (size_t)s->node_count, sizeof(int), "implicit body of node");
    s->pairs = take(d, (size_t)s->pair_count, sizeof *s->pairs, "implicit pairs");
    s->kv = take(d, (size_t)s->n, sizeof(tch_real), "implicit h^2 v*");
    s->dv = take(d, (size_t)s->n, sizeof(tch_real), "implicit h (v* - v0)");
    tch_stream_get(st, s->node_of_body, (size_t)m->body_count * sizeof *s->node_of_body);
    tch_stream_get(st, s->body_of_node, (size_t)s->node_count * sizeof *s->body_of_node);
    tch_stream_get(st, s->pairs, (size_t)s->pair_count * sizeof *s->pairs);
    int bad = st->failed || (s->group_count > 0 && (nv == 0 || read_trees(st, m, d, reals) != 0));
    for (int b = 0; b < m->body_count; ++b) {
        bad |= s->node_of_body[b] < -1 || s->node_of_body[b] >= s->free_count;
    }
    for (int n = 0; n < s->node_count; ++n) {
        bad |= s->body_of_node[n] <= 0 || s->body_of_node[n] >= m->body_count;
    }
    for (int p = 0; p < s->pair_count && s->group_count == 0; ++p) {
        for (int k = 0; k < 2; ++k) { /* free bodies only */
            bad |= bad_side(m, s, &s->pairs[p].side[k], s->pairs[p].side[k].T != NULL);
        }
    }
    bad = bad || read_blocks(st, d, s, block_reals) != 0 || read_terms(st, d, s, terms) != 0;
    return bad || (s->pair_count > 0 && build_matrix(d, s) != 0) ? -1 : 0;
}

/* The factor read into the analysed matrix; 0, or -1 when its size differs. */
static int read_factor(tch_stream* st, implicit_system* s) {
    tch_real *values, *inverse;
    size_t value_count, inverse_count;
    tch_block_cholesky_factor_arrays(s->matrix, &values, &value_count, &inverse, &inverse_count);
    tch_stream_get(st, values, value_count * sizeof *values);
    tch_stream_get(st, inverse, inverse_count * sizeof *inverse);
    return st->failed ? -1 : 0;
}

void tch_implicit_cache_get(tch_stream* st, const tch_model* m, tch_data* d) {
    int valid = 0;
    TCH_GET(st, valid);
    if (d->internal->implicit) {
        d->internal->implicit->valid = 0;
    }
    if (!valid) {
        return;
    }
    implicit_cache* c = existing_cache(d);
    long free_count = -1, group_count = 0, reals = 0;
    if (valid == 2) {
        free_count = tch_stream_get_count(st, m->body_count);
        group_count = tch_stream_get_count(st, m->body_count);
        reals = tch_stream_get_count(st, 1L << 40);
    }
    long block_count = tch_stream_get_count(st, 1L << 40);
    long term_count = tch_stream_get_count(st, 1L << 40);
    long count = tch_stream_get_count(st, 1L << 28);
    if (!c || st->failed || (valid != 1 && valid != 2)) {
        st->failed = 1;
        return;
    }
    if (count > c->signature_capacity) {
        tch_real* grown = realloc(c->signature, (size_t)count * sizeof *grown);
        if (!grown) {
            st->failed = 1;
            return;
        }
        c->signature = grown, c->signature_capacity = (int)count;
    }
    tch_stream_get(st, c->signature, (size_t)count * sizeof *c->signature);
    c->signature_count = (int)count;
    implicit_system* s = &c->system;
    *s = (implicit_system){.matrix = c->matrix};
    TCH_GET(st, s->h), TCH_GET(st, s->friction_forces);
    s->node_count = (int)tch_stream_get_count(st, (long)m->body_count + m->nv);
    s->pair_count = (int)tch_stream_get_count(st, (long)m->geom_count * m->geom_count + 1 +
                                                      (m->articulation
                                                           ? m->articulation->equality_count
                                                           : 0));
    s->n = 6 * s->node_count;
    s->free_count = valid == 2 ? (int)free_count : s->node_count;
    s->group_count = (int)group_count;
    if (st->failed || s->free_count > s->node_count ||
        read_system(st, m, d, c, reals, block_count, term_count) != 0 ||
        (s->pair_count > 0 && read_factor(st, s) != 0)) {
        st->failed = 1;
        return;
    }
    c->valid = 1;
}
