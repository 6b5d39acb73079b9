/* Sparse block Cholesky over a graph (solver/block_cholesky.h). Nodes are renumbered by their
 * place in the elimination order ("positions"); the factor is stored by block rows, each row's
 * block columns sorted and ending with its diagonal.
 *
 * Layout: the slot of an off-diagonal block (r, c), r placed after c, holds L_rc^T row-major
 * (before the factorization A_rc^T = A_cr, A being symmetric); a diagonal slot holds L_rr in
 * its lower triangle. Every product and triangular solve below then runs along contiguous rows
 * of 6 (vectorized) and never transposes a block, and the divisions by L's diagonal are
 * products with its inverse (kept per row). */
#include "solver/block_cholesky.h"

#include <amd.h>
#include <stdlib.h>
#include <string.h>

#include "math/dense.h"

enum { B = 6, BB = 36 };

struct tch_block_cholesky {
    long allocations;
    int wide;               /* the factor and solve run the AVX-512 kernels (wide_kernels) */
    int analysed;           /* the arrays below describe kept_edges */
    int node_count;
    int kept_edge_count;
    int* kept_edges;        /* [2 kept_edge_count]: the graph of the analysis */
    /* the graph without repeats, by node (CSR) */
    int* adjacency_start;   /* [node_count + 1] */
    int* adjacency;         /* [2 edge_count] */
    /* the elimination order */
    int* position;          /* [node_count]: a node's place in the order */
    int* node_at;           /* [node_count]: the node at a place */
    /* the factor's pattern and values, by block row of positions */
    int* row_start;         /* [node_count + 1] into cols */
    int* cols;              /* [block_count]: block columns (positions), sorted, diagonal last */
    tch_real* values;       /* [36 block_count], laid out as the file's header says */
    /* the same pattern by block column: column t's blocks below its diagonal, rows ascending */
    int* column_start;      /* [node_count + 1] into below_row, below_block */
    int* below_row;         /* [block_count - node_count]: the row c of each block (c, t) */
    int* below_block;       /* [block_count - node_count]: the block's index in cols */
    int* block_in_row;      /* [node_count]: the factorization's current row, its block by
                             * column */
    tch_real* inverse;      /* [6 node_count]: 1 / the diagonal of each L_rr, by position */
    tch_real* work;         /* [6 node_count]: the solve's right-hand side by position */
    /* AMD's and the elimination tree's integer workspace */
    int* amd[9];            /* Pe, Len, Nv, Next, Last, Head, Elen, Degree, W: [node_count] */
    int* amd_iw;            /* [amd_iw_capacity] */
    int* parent;            /* [node_count] */
    int* mark;              /* [node_count] */
    size_t capacity[32];    /* of each array above, by slot (capacity_of) */
};

/* Grows *array to hold `count` elements of `size` bytes (kept when it does already). */
static int grow(tch_block_cholesky* c, void** array, size_t* capacity, size_t count,
                size_t size) {
    if (count <= *capacity) {
        return 0;
    }
    size_t next = count + count / 2 + 8;
    void* grown = realloc(*array, next * size);
    if (!grown) {
        return -1;
    }
    *array = grown;
    *capacity = next;
    c->allocations++;
    return 0;
}

/* The slots of capacity[] (one per array). */
enum {
    SLOT_KEPT_EDGES, SLOT_ADJACENCY_START, SLOT_ADJACENCY, SLOT_POSITION, SLOT_NODE_AT,
    SLOT_ROW_START, SLOT_COLS, SLOT_VALUES, SLOT_INVERSE, SLOT_WORK, SLOT_AMD_IW, SLOT_PARENT,
    SLOT_MARK, SLOT_COLUMN_START, SLOT_BELOW_ROW, SLOT_BELOW_BLOCK, SLOT_BLOCK_IN_ROW,
    SLOT_AMD /* 9 slots from here */
};

static int grow_ints(tch_block_cholesky* c, int** array, int slot, size_t count) {
    return grow(c, (void**)array, &c->capacity[slot], count, sizeof(int));
}

static int wide_kernels_run(void);

tch_block_cholesky* tch_block_cholesky_create(void) {
    tch_block_cholesky* c = calloc(1, sizeof(tch_block_cholesky));
    if (c) {
        tch_block_cholesky_use_wide_kernels(c, 1);
    }
    return c;
}

int tch_block_cholesky_use_wide_kernels(tch_block_cholesky* c, int wide) {
    c->wide = wide && wide_kernels_run();
    return c->wide;
}

void tch_block_cholesky_destroy(tch_block_cholesky* c) {
    if (!c) {
        return;
    }
    int* arrays[] = {c->kept_edges, c->adjacency_start, c->adjacency, c->position, c->node_at,
                     c->row_start, c->cols, c->amd_iw, c->parent, c->mark, c->column_start,
                     c->below_row, c->below_block, c->block_in_row};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) {
        free(arrays[i]);
    }
    for (int i = 0; i < 9; ++i) {
        free(c->amd[i]);
    }
    free(c->values);
    free(c->inverse);
    free(c->work);
    free(c);
}

long tch_block_cholesky_allocations(const tch_block_cholesky* c) {
    return c ? c->allocations : 0;
}

/* ---- analysis ---- */

static int same_graph(const tch_block_cholesky* c, int node_count, int edge_count,
                      const int* edges) {
    return c->analysed && c->node_count == node_count && c->kept_edge_count == edge_count &&
           (edge_count == 0 ||
            memcmp(c->kept_edges, edges, 2 * (size_t)edge_count * sizeof *edges) == 0);
}

/* Sorts a short list of ints in place (insertion sort: a node has a few neighbours). */
static void sort_ints(int* a, int count) {
    for (int i = 1; i < count; ++i) {
        int key = a[i], j = i - 1;
        for (; j >= 0 && a[j] > key; --j) {
            a[j + 1] = a[j];
        }
        a[j + 1] = key;
    }
}

/* The graph by node without repeated edges (CSR in adjacency_start, adjacency). */
static void build_adjacency(tch_block_cholesky* c, int edge_count, const int* edges) {
    int n = c->node_count;
    int* start = c->adjacency_start;
    int* fill = c->mark; /* the insertion count per node */
    memset(start, 0, ((size_t)n + 1) * sizeof *start);
    for (int e = 0; e < 2 * edge_count; ++e) {
        start[edges[e] + 1]++;
    }
    for (int i = 0; i < n; ++i) {
        start[i + 1] += start[i];
        fill[i] = 0;
    }
    for (int e = 0; e < edge_count; ++e) {
        int u = edges[2 * e], w = edges[2 * e + 1];
        c->adjacency[start[u] + fill[u]++] = w;
        c->adjacency[start[w] + fill[w]++] = u;
    }
    /* sort each list and drop its repeats, compacting in place */
    int write = 0;
    for (int i = 0; i < n; ++i) {
        int begin = start[i], end = start[i + 1];
        sort_ints(c->adjacency + begin, end - begin);
        start[i] = write;
        for (int k = begin; k < end; ++k) {
            if (k == begin || c->adjacency[k] != c->adjacency[k - 1]) {
                c->adjacency[write++] = c->adjacency[k];
            }
        }
    }
    start[n] = write;
}

/* c->position and c->node_at by approximate minimum degree (amd_2 on a copy of the graph,
 * which it destroys; no allocation: every workspace is ours). */
static void order_nodes(tch_block_cholesky* c) {
    int n = c->node_count, nonzeros = c->adjacency_start[n];
    if (nonzeros == 0) { /* no edge: any order, and amd_2 is not needed */
        for (int k = 0; k < n; ++k) {
            c->node_at[k] = c->position[k] = k;
        }
        return;
    }
    int *Pe = c->amd[0], *Len = c->amd[1], *Nv = c->amd[2], *Next = c->amd[3],
        *Last = c->amd[4], *Head = c->amd[5], *Elen = c->amd[6], *Degree = c->amd[7],
        *W = c->amd[8];
    for (int i = 0; i < n; ++i) {
        Pe[i] = c->adjacency_start[i];
        Len[i] = c->adjacency_start[i + 1] - c->adjacency_start[i];
    }
    memcpy(c->amd_iw, c->adjacency, (size_t)nonzeros * sizeof *c->amd_iw);
    double control[AMD_CONTROL], info[AMD_INFO];
    amd_defaults(control);
    int iwlen = (int)c->capacity[SLOT_AMD_IW];
    amd_2(n, Pe, c->amd_iw, Len, iwlen, nonzeros, Nv, Next, Last, Head, Elen, Degree, W, control,
          info);
    for (int k = 0; k < n; ++k) { /* Last: the node eliminated k-th */
        c->node_at[k] = Last[k];
        c->position[Last[k]] = k;
    }
}

/* The elimination tree of the ordered graph (parent by position, -1 at a root), by Liu's
 * algorithm with path compression (Davis, sec. 4.1); c->mark is the ancestor workspace. */
static void elimination_tree(tch_block_cholesky* c) {
    int* ancestor = c->mark;
    for (int k = 0; k < c->node_count; ++k) {
        c->parent[k] = -1;
        ancestor[k] = -1;
        int node = c->node_at[k];
        for (int a = c->adjacency_start[node]; a < c->adjacency_start[node + 1]; ++a) {
            for (int i = c->position[c->adjacency[a]]; i != -1 && i < k;) {
                int next = ancestor[i];
                ancestor[i] = k;
                if (next == -1) {
                    c->parent[i] = k;
                }
                i = next;
            }
        }
    }
}

/* Visits the block columns of row k of L but its diagonal: the nodes on the tree paths from
 * the row's neighbours placed before k up to k (Davis, sec. 4.2). With `cols` NULL counts
 * them, else writes them there unsorted. c->mark holds the last row that visited a node. */
static int row_pattern(tch_block_cholesky* c, int k, int* cols) {
    int count = 0, node = c->node_at[k];
    c->mark[k] = k;
    for (int a = c->adjacency_start[node]; a < c->adjacency_start[node + 1]; ++a) {
        for (int i = c->position[c->adjacency[a]]; i < k && c->mark[i] != k; i = c->parent[i]) {
            c->mark[i] = k;
            if (cols) {
                cols[count] = i;
            }
            count++;
        }
    }
    return count;
}

/* c->column_start, c->below_row and c->below_block: the rows' pattern by column, each
 * column's rows ascending. 0, or -1 when out of memory. */
static int column_pattern(tch_block_cholesky* c) {
    int n = c->node_count;
    size_t below = (size_t)(c->row_start[n] - n) + 1;
    if (grow_ints(c, &c->below_row, SLOT_BELOW_ROW, below) ||
        grow_ints(c, &c->below_block, SLOT_BELOW_BLOCK, below)) {
        return -1;
    }
    int* fill = c->mark;
    memset(c->column_start, 0, ((size_t)n + 1) * sizeof *c->column_start);
    for (int at = 0; at < c->row_start[n]; ++at) {
        c->column_start[c->cols[at] + 1]++;
    }
    for (int t = 0; t < n; ++t) {
        c->column_start[t + 1] += c->column_start[t] - 1; /* less the diagonal */
        fill[t] = 0;
    }
    for (int r = 0; r < n; ++r) {
        for (int at = c->row_start[r]; at < c->row_start[r + 1] - 1; ++at) {
            int t = c->cols[at], k = c->column_start[t] + fill[t]++;
            c->below_row[k] = r;
            c->below_block[k] = at;
        }
    }
    return 0;
}

/* c->row_start and c->cols: each row's pattern sorted, then its diagonal; and the pattern by
 * column. 0, or -1 when out of memory. */
static int block_pattern(tch_block_cholesky* c) {
    int n = c->node_count;
    for (int k = 0; k < n; ++k) {
        c->mark[k] = -1;
    }
    c->row_start[0] = 0;
    for (int k = 0; k < n; ++k) {
        c->row_start[k + 1] = c->row_start[k] + row_pattern(c, k, NULL) + 1;
    }
    size_t blocks = (size_t)c->row_start[n];
    if (grow_ints(c, &c->cols, SLOT_COLS, blocks) ||
        grow(c, (void**)&c->values, &c->capacity[SLOT_VALUES], BB * blocks, sizeof(tch_real))) {
        return -1;
    }
    for (int k = 0; k < n; ++k) {
        c->mark[k] = -1;
    }
    for (int k = 0; k < n; ++k) {
        int* row = c->cols + c->row_start[k];
        int count = row_pattern(c, k, row);
        sort_ints(row, count);
        row[count] = k;
    }
    return column_pattern(c);
}

static int reserve(tch_block_cholesky* c, int n, int edge_count) {
    /* one spare edge end: an empty graph still gets arrays (no offsets from NULL) */
    size_t nodes = (size_t)n, ends = 2 * (size_t)edge_count + 1;
    /* AMD's Iw: the graph and room to work, 1.2 of it plus n as amd_2's notes recommend */
    size_t iw = ends + ends / 5 + nodes + 16;
    int failed = grow_ints(c, &c->kept_edges, SLOT_KEPT_EDGES, ends) ||
                 grow_ints(c, &c->adjacency_start, SLOT_ADJACENCY_START, nodes + 1) ||
                 grow_ints(c, &c->adjacency, SLOT_ADJACENCY, ends) ||
                 grow_ints(c, &c->position, SLOT_POSITION, nodes) ||
                 grow_ints(c, &c->node_at, SLOT_NODE_AT, nodes) ||
                 grow_ints(c, &c->row_start, SLOT_ROW_START, nodes + 1) ||
                 grow_ints(c, &c->amd_iw, SLOT_AMD_IW, iw) ||
                 grow_ints(c, &c->parent, SLOT_PARENT, nodes) ||
                 grow_ints(c, &c->mark, SLOT_MARK, nodes) ||
                 grow_ints(c, &c->column_start, SLOT_COLUMN_START, nodes + 1) ||
                 grow_ints(c, &c->block_in_row, SLOT_BLOCK_IN_ROW, nodes) ||
                 grow(c, (void**)&c->work, &c->capacity[SLOT_WORK], B * nodes, sizeof(tch_real)) ||
                 grow(c, (void**)&c->inverse, &c->capacity[SLOT_INVERSE], B * nodes,
                      sizeof(tch_real));
    for (int i = 0; i < 9 && !failed; ++i) {
        failed = grow_ints(c, &c->amd[i], SLOT_AMD + i, nodes);
    }
    return failed ? -1 : 0;
}

int tch_block_cholesky_analyze(tch_block_cholesky* c, int node_count, int edge_count,
                               const int* edges) {
    if (!same_graph(c, node_count, edge_count, edges)) {
        c->analysed = 0;
        if (reserve(c, node_count, edge_count) != 0) {
            return -1;
        }
        c->node_count = node_count;
        build_adjacency(c, edge_count, edges);
        order_nodes(c);
        elimination_tree(c);
        if (block_pattern(c) != 0) {
            return -1;
        }
        memcpy(c->kept_edges, edges, 2 * (size_t)edge_count * sizeof *edges);
        c->kept_edge_count = edge_count;
        c->analysed = 1;
    }
    memset(c->values, 0, BB * (size_t)c->row_start[node_count] * sizeof *c->values);
    return 0;
}

void tch_block_cholesky_factor_arrays(tch_block_cholesky* c, tch_real** values,
                                      size_t* value_count, tch_real** inverse,
                                      size_t* inverse_count) {
    int analysed = c->analysed && c->row_start;
    *values = c->values, *inverse = c->inverse;
    *value_count = analysed ? BB * (size_t)c->row_start[c->node_count] : 0;
    *inverse_count = analysed ? 6 * (size_t)c->node_count : 0;
}

/* ---- blocks ---- */

/* Index of block (row, col) of positions, col <= row, or -1 when not stored. */
static int find_block(const tch_block_cholesky* c, int row, int col) {
    int lo = c->row_start[row], hi = c->row_start[row + 1] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c->cols[mid] == col) {
            return mid;
        }
        if (c->cols[mid] < col) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

tch_real* tch_block_cholesky_block(tch_block_cholesky* c, int row, int col) {
    int k = c->position[row], r = c->position[col];
    int at = k <= r ? find_block(c, r, k) : -1;
    return at >= 0 ? c->values + BB * (size_t)at : NULL;
}

/* ---- factorization and solve ---- */

/* The factorization, by block rows (Davis, sec. 4.2, by blocks): row r's blocks are taken in
 * column order; when block t comes, every term of it is in (the blocks of row r before t
 * have been spread, below), so it is finished, L_rt = (A_rt - Σ_{s<t} L_rs L_ts^T) L_tt^-T,
 * and is spread at once over the later blocks of the row it meets: L_rc -= L_rt L_ct^T for
 * each block (c, t) of column t with t < c <= r (c = r: the diagonal block). Each such c is
 * in row r's pattern (r and c both reach t's subtree's root through t: fill), and the terms
 * reach each block in the order of t, as in the row-merge form. Last, L_rr = chol(A_rr - Σ_t
 * L_rt L_rt^T). Every product is one that counts: no merge of two rows' columns. */

static tch_real* block_at(const tch_block_cholesky* c, int index) {
    return c->values + BB * (size_t)index;
}

/* C -= X^T Y for 6x6 blocks: row j of C loses Σ_k X_kj (row k of Y). With X = L_ct^T and
 * Y = L_rt^T (their slots) this is L_rc^T -= (L_rt L_ct^T)^T; with X = Y = L_rt^T it is
 * L_rr -= L_rt L_rt^T (symmetric: either layout). */
static void subtract_product(const tch_real* restrict X, const tch_real* restrict Y,
                             tch_real* restrict C) {
    for (int j = 0; j < B; ++j) {
        /* six named sums: GCC vectorizes these, not a loop over a local row[6] */
        tch_real r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0, r5 = 0;
        for (int k = 0; k < B; ++k) {
            const tch_real x = X[B * k + j];
            const tch_real* y = Y + B * k;
            r0 += x * y[0];
            r1 += x * y[1];
            r2 += x * y[2];
            r3 += x * y[3];
            r4 += x * y[4];
            r5 += x * y[5];
        }
        tch_real* c = C + B * j;
        c[0] -= r0;
        c[1] -= r1;
        c[2] -= r2;
        c[3] -= r3;
        c[4] -= r4;
        c[5] -= r5;
    }
}

/* T = L^-1 T in place, by rows (forward substitution on the rows of a 6x6 T), for the lower
 * triangle L of a diagonal slot and its inverse diagonal: L_rc^T = L_cc^-1 (A_rc - ...)^T. */
static void forward_rows(const tch_real* L, const tch_real* inverse, tch_real* T) {
    for (int i = 0; i < B; ++i) {
        tch_real* row = T + B * i;
        tch_real r0 = row[0], r1 = row[1], r2 = row[2], r3 = row[3], r4 = row[4], r5 = row[5];
        for (int k = 0; k < i; ++k) {
            const tch_real l = L[B * i + k];
            const tch_real* done = T + B * k;
            r0 -= l * done[0];
            r1 -= l * done[1];
            r2 -= l * done[2];
            r3 -= l * done[3];
            r4 -= l * done[4];
            r5 -= l * done[5];
        }
        const tch_real d = inverse[i];
        row[0] = r0 * d;
        row[1] = r1 * d;
        row[2] = r2 * d;
        row[3] = r3 * d;
        row[4] = r4 * d;
        row[5] = r5 * d;
    }
}

/* Solves L x = b in place for the lower triangle L of a 6x6 block (row-major). */
static void forward_6(const tch_real* L, const tch_real* inverse, tch_real* b) {
    for (int i = 0; i < B; ++i) {
        for (int k = 0; k < i; ++k) {
            b[i] -= L[B * i + k] * b[k];
        }
        b[i] *= inverse[i];
    }
}

/* Solves L^T x = b in place. */
static void backward_6(const tch_real* L, const tch_real* inverse, tch_real* b) {
    for (int i = B - 1; i >= 0; --i) {
        for (int k = i + 1; k < B; ++k) {
            b[i] -= L[B * k + i] * b[k];
        }
        b[i] *= inverse[i];
    }
}

/* Finishes row r's block `at` (column t: L_rt^T = L_tt^-1 (its sums)^T) and spreads it over
 * the blocks (r, c) of column t's rows t < c <= r. */
static void finish_and_spread(const tch_block_cholesky* c, int r, int at) {
    int t = c->cols[at];
    tch_real* L_rt = block_at(c, at);
    forward_rows(block_at(c, c->row_start[t + 1] - 1), c->inverse + B * t, L_rt);
    for (int k = c->column_start[t];; ++k) {
        int row = c->below_row[k];
        subtract_product(block_at(c, c->below_block[k]), L_rt,
                         block_at(c, c->block_in_row[row]));
        if (row == r) {
            return;
        }
    }
}

/* ---- wide kernels ----
 *
 * The portable kernels' sums in the same order, each row of a block (6 reals) in one AVX-512
 * register of which 6 lanes count: every element takes the same roundings (products and sums
 * are separate operations, never fused: the build's -ffp-contract=off), so the factor and the
 * solution are bit for bit the portable kernels' on any machine. The CPU is asked at create.
 * A row goes to and from memory as 4 + 2 reals: a 64-byte access (masked to 6 lanes) would
 * overlap the next row's, and a load that overlaps an earlier masked store waits for it to
 * reach the cache (no store forwarding): that stall made these kernels slower than the
 * portable ones. They run on systems of WIDE_NODES nodes or more only: on a small one (a stack
 * of 13 blocks) they saved nothing and the step ran ~3% slower (the core's AVX-512 clock). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define WIDE __attribute__((target("avx512f")))
#define SIX ((__mmask8)0x3f)
#define HAVE_WIDE_KERNELS 1
enum { WIDE_NODES = 64 };

static int wide_kernels_run(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

WIDE static inline __m512d wide_load(const tch_real* row) {
    __m256d high = _mm256_castpd128_pd256(_mm_loadu_pd(row + 4));
    return _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(row)), high, 1);
}

WIDE static inline void wide_store(tch_real* row, __m512d v) {
    _mm256_storeu_pd(row, _mm512_castpd512_pd256(v));
    _mm_storeu_pd(row + 4, _mm256_castpd256_pd128(_mm512_extractf64x4_pd(v, 1)));
}

/* finish_and_spread with L_rt held in registers. */
WIDE static void wide_finish_and_spread(const tch_block_cholesky* c, int r, int at) {
    int t = c->cols[at];
    tch_real* L_rt = block_at(c, at);
    const tch_real* L = block_at(c, c->row_start[t + 1] - 1);
    const tch_real* inverse = c->inverse + B * t;
    __m512d y0, y1, y2, y3, y4, y5; /* forward_rows in registers */
#define WIDE_LOAD(k) wide_load(L_rt + B * (k))
#define WIDE_TERM(v, l) _mm512_mul_pd(_mm512_set1_pd(l), v)
    y0 = _mm512_mul_pd(WIDE_LOAD(0), _mm512_set1_pd(inverse[0]));
    y1 = _mm512_sub_pd(WIDE_LOAD(1), WIDE_TERM(y0, L[B * 1 + 0]));
    y1 = _mm512_mul_pd(y1, _mm512_set1_pd(inverse[1]));
    y2 = _mm512_sub_pd(WIDE_LOAD(2), WIDE_TERM(y0, L[B * 2 + 0]));
    y2 = _mm512_sub_pd(y2, WIDE_TERM(y1, L[B * 2 + 1]));
    y2 = _mm512_mul_pd(y2, _mm512_set1_pd(inverse[2]));
    y3 = _mm512_sub_pd(WIDE_LOAD(3), WIDE_TERM(y0, L[B * 3 + 0]));
    y3 = _mm512_sub_pd(y3, WIDE_TERM(y1, L[B * 3 + 1]));
    y3 = _mm512_sub_pd(y3, WIDE_TERM(y2, L[B * 3 + 2]));
    y3 = _mm512_mul_pd(y3, _mm512_set1_pd(inverse[3]));
    y4 = _mm512_sub_pd(WIDE_LOAD(4), WIDE_TERM(y0, L[B * 4 + 0]));
    y4 = _mm512_sub_pd(y4, WIDE_TERM(y1, L[B * 4 + 1]));
    y4 = _mm512_sub_pd(y4, WIDE_TERM(y2, L[B * 4 + 2]));
    y4 = _mm512_sub_pd(y4, WIDE_TERM(y3, L[B * 4 + 3]));
    y4 = _mm512_mul_pd(y4, _mm512_set1_pd(inverse[4]));
    y5 = _mm512_sub_pd(WIDE_LOAD(5), WIDE_TERM(y0, L[B * 5 + 0]));
    y5 = _mm512_sub_pd(y5, WIDE_TERM(y1, L[B * 5 + 1]));
    y5 = _mm512_sub_pd(y5, WIDE_TERM(y2, L[B * 5 + 2]));
    y5 = _mm512_sub_pd(y5, WIDE_TERM(y3, L[B * 5 + 3]));
    y5 = _mm512_sub_pd(y5, WIDE_TERM(y4, L[B * 5 + 4]));
    y5 = _mm512_mul_pd(y5, _mm512_set1_pd(inverse[5]));
    wide_store(L_rt, y0);
    wide_store(L_rt + B, y1);
    wide_store(L_rt + 2 * B, y2);
    wide_store(L_rt + 3 * B, y3);
    wide_store(L_rt + 4 * B, y4);
    wide_store(L_rt + 5 * B, y5);
    for (int k = c->column_start[t];; ++k) { /* subtract_product, Y = L_rt in registers */
        int row = c->below_row[k];
        const tch_real* X = block_at(c, c->below_block[k]);
        tch_real* C = block_at(c, c->block_in_row[row]);
        for (int j = 0; j < B; ++j) {
            __m512d sum = _mm512_add_pd(_mm512_setzero_pd(), WIDE_TERM(y0, X[j]));
            sum = _mm512_add_pd(sum, WIDE_TERM(y1, X[B + j]));
            sum = _mm512_add_pd(sum, WIDE_TERM(y2, X[2 * B + j]));
            sum = _mm512_add_pd(sum, WIDE_TERM(y3, X[3 * B + j]));
            sum = _mm512_add_pd(sum, WIDE_TERM(y4, X[4 * B + j]));
            sum = _mm512_add_pd(sum, WIDE_TERM(y5, X[5 * B + j]));
            wide_store(C + B * j, _mm512_sub_pd(wide_load(C + B * j), sum));
        }
        if (row == r) {
            break;
        }
    }
#undef WIDE_LOAD
#undef WIDE_TERM
}

/* y -= Σ L_rc y_c over row r's blocks below the diagonal (the forward solve's sums). */
WIDE static void wide_forward_row(const tch_block_cholesky* c, int r, const tch_real* w,
                                  tch_real* y) {
    __m512d sum = wide_load(y);
    for (int at = c->row_start[r]; at < c->row_start[r + 1] - 1; ++at) {
        const tch_real* T = block_at(c, at);
        const tch_real* y_c = w + B * c->cols[at];
        for (int k = 0; k < B; ++k) {
            __m512d term = _mm512_mul_pd(_mm512_set1_pd(y_c[k]), wide_load(T + B * k));
            sum = _mm512_sub_pd(sum, term);
        }
    }
    wide_store(y, sum);
}

/* y_c -= L_rc^T x_r for row r's blocks below the diagonal (the backward solve's sums), the
 * columns of each slot gathered. */
WIDE static void wide_backward_row(const tch_block_cholesky* c, int r, const tch_real* x_r,
                                   tch_real* w) {
    const __m512i column = _mm512_set_epi64(0, 0, 5 * B, 4 * B, 3 * B, 2 * B, B, 0);
    for (int at = c->row_start[r]; at < c->row_start[r + 1] - 1; ++at) {
        const tch_real* T = block_at(c, at);
        tch_real* y_c = w + B * c->cols[at];
        __m512d sum = wide_load(y_c);
        for (int i = 0; i < B; ++i) {
            __m512d t = _mm512_mask_i64gather_pd(_mm512_setzero_pd(), SIX, column, T + i, 8);
            sum = _mm512_sub_pd(sum, _mm512_mul_pd(t, _mm512_set1_pd(x_r[i])));
        }
        wide_store(y_c, sum);
    }
}
#else
#define HAVE_WIDE_KERNELS 0

static int wide_kernels_run(void) {
    return 0;
}
#endif

/* Whether this system runs the wide kernels. */
static int runs_wide(const tch_block_cholesky* c) {
#if HAVE_WIDE_KERNELS
    return c->wide && c->node_count >= WIDE_NODES;
#else
    (void)c;
    return 0;
#endif
}

int tch_block_cholesky_factor(tch_block_cholesky* c) {
    int wide = runs_wide(c);
    for (int r = 0; r < c->node_count; ++r) {
        int begin = c->row_start[r], diagonal = c->row_start[r + 1] - 1;
        for (int at = begin; at <= diagonal; ++at) {
            c->block_in_row[c->cols[at]] = at;
        }
        for (int at = begin; at < diagonal; ++at) {
#if HAVE_WIDE_KERNELS
            if (wide) {
                wide_finish_and_spread(c, r, at);
                continue;
            }
#endif
            finish_and_spread(c, r, at);
        }
        tch_real* L_rr = block_at(c, diagonal);
        if (tch_dense_cholesky_6(L_rr) != 0) {
            return c->node_at[r] + 1;
        }
        for (int i = 0; i < B; ++i) {
            c->inverse[B * r + i] = 1 / L_rr[(B + 1) * i];
        }
    }
    return 0;
}

void tch_block_cholesky_solve(tch_block_cholesky* c, tch_real* x) {
    int n = c->node_count, wide = runs_wide(c);
    tch_real* w = c->work;
    for (int k = 0; k < n; ++k) {
        memcpy(w + B * k, x + B * c->node_at[k], B * sizeof *w);
    }
    for (int r = 0; r < n; ++r) { /* L y = b: y_r -= L_rc y_c, the slot holding L_rc^T */
        tch_real* y = w + B * r;
        int diagonal = c->row_start[r + 1] - 1;
#if HAVE_WIDE_KERNELS
        if (wide) {
            wide_forward_row(c, r, w, y);
        } else
#endif
        for (int at = c->row_start[r]; at < diagonal; ++at) {
            const tch_real* T = block_at(c, at);
            const tch_real* y_c = w + B * c->cols[at];
            for (int k = 0; k < B; ++k) {
                for (int i = 0; i < B; ++i) {
                    y[i] -= y_c[k] * T[B * k + i];
                }
            }
        }
        forward_6(block_at(c, diagonal), c->inverse + B * r, y);
    }
    for (int r = n - 1; r >= 0; --r) { /* L^T x = y: y_c -= L_rc^T x_r */
        tch_real* x_r = w + B * r;
        int diagonal = c->row_start[r + 1] - 1;
        backward_6(block_at(c, diagonal), c->inverse + B * r, x_r);
#if HAVE_WIDE_KERNELS
        if (wide) {
            wide_backward_row(c, r, x_r, w);
            continue;
        }
#endif
        for (int at = c->row_start[r]; at < diagonal; ++at) {
            const tch_real* T = block_at(c, at);
            tch_real* y_c = w + B * c->cols[at];
            for (int k = 0; k < B; ++k) {
                for (int i = 0; i < B; ++i) {
                    y_c[k] -= T[B * k + i] * x_r[i];
                }
            }
        }
    }
    for (int k = 0; k < n; ++k) {
        memcpy(x + B * c->node_at[k], w + B * k, B * sizeof *w);
    }
}
