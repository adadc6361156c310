/* SPDX-License-Identifier: BSD-3-Clause */
/* ineighbor: the nonblocking (MPI_Ineighbor_*) and persistent
 * (MPI_Neighbor_*_init) neighbourhood collectives, int and _c forms, on a
 * 1-D periodic ring (one rank is both neighbours on 1 or 2 ranks), a 2-D
 * grid periodic in one dimension (MPI_PROC_NULL neighbours: their blocks
 * stay untouched), a graph (ring with chords) and a distributed graph
 * (r -> r+1, r+2).  The five collectives of a round are all outstanding
 * at once and completed in mixed order; a persistent round is started
 * twice.  Derived datatypes on most sides: a resized vector, an indexed
 * type, a struct and a resized int (holes must stay untouched).  The
 * expected sender block follows the standard's neighbour order (block s
 * of a Cartesian sender lands in block s^1). */
#include "lc_test.h"

#include <stdlib.h>
#include <string.h>

#define K 3 /* elements per block */
#define MAXN 16
#define SENTINEL -7

enum { T_CART, T_GRAPH, T_DIST };

typedef struct {
    MPI_Comm comm;
    int kind, rank, size, in, out;
    int src[MAXN], dst[MAXN];
} topo_t;

static const char *kind_name[] = { "cart", "graph", "dist_graph" };
static MPI_Datatype vecr, idx, st, rsz;
static int idx_pos[K] = { 0, 2, 3 }; /* where idx puts its K ints; extent K + 1 ints */

static void make_types(void)
{
    MPI_Datatype v;
    LC_MPI(MPI_Type_vector(K, 1, 2, MPI_INT, &v)); /* ints 0, 2, 4 */
    LC_MPI(MPI_Type_create_resized(v, 0, 2 * K * (MPI_Aint)sizeof(int), &vecr));
    LC_MPI(MPI_Type_free(&v));
    int bl[2] = { 1, K - 1 }, dp[2] = { 0, 2 };
    LC_MPI(MPI_Type_indexed(2, bl, dp, MPI_INT, &idx));
    int sbl[2] = { 1, K - 1 };
    MPI_Aint sdp[2] = { 0, 8 };
    MPI_Datatype sty[2] = { MPI_INT, MPI_INT };
    LC_MPI(MPI_Type_create_struct(2, sbl, sdp, sty, &st)); /* ints at bytes 0, 8, 12 */
    LC_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &rsz));
    LC_MPI(MPI_Type_commit(&vecr));
    LC_MPI(MPI_Type_commit(&idx));
    LC_MPI(MPI_Type_commit(&st));
    LC_MPI(MPI_Type_commit(&rsz));
}

static void topo_lists(topo_t *t)
{
    MPI_Comm_rank(t->comm, &t->rank);
    MPI_Comm_size(t->comm, &t->size);
    if (t->kind == T_CART) {
        int nd;
        LC_MPI(MPI_Cartdim_get(t->comm, &nd));
        for (int d = 0; d < nd; d++) LC_MPI(MPI_Cart_shift(t->comm, d, 1, &t->src[2 * d], &t->src[2 * d + 1]));
        t->in = t->out = 2 * nd;
        memcpy(t->dst, t->src, sizeof(t->src));
    } else if (t->kind == T_GRAPH) {
        LC_MPI(MPI_Graph_neighbors_count(t->comm, t->rank, &t->in));
        LC_MPI(MPI_Graph_neighbors(t->comm, t->rank, MAXN, t->src));
        t->out = t->in;
        memcpy(t->dst, t->src, sizeof(t->src));
    } else {
        int w;
        LC_MPI(MPI_Dist_graph_neighbors_count(t->comm, &t->in, &t->out, &w));
        LC_MPI(MPI_Dist_graph_neighbors(t->comm, MAXN, t->src, MPI_UNWEIGHTED, MAXN, t->dst, MPI_UNWEIGHTED));
    }
}

/* Which block of sender s (my in-neighbour i) comes to my block i. */
static int sender_block(const topo_t *t, int i)
{
    if (t->src[i] == MPI_PROC_NULL) return 0;
    if (t->kind == T_CART) return i ^ 1;
    int s = t->src[i], k = 0, out[MAXN], n;
    for (int a = 0; a < i; a++) k += t->src[a] == s;
    if (t->kind == T_GRAPH) {
        LC_MPI(MPI_Graph_neighbors_count(t->comm, s, &n));
        LC_MPI(MPI_Graph_neighbors(t->comm, s, MAXN, out));
    } else {
        n = 2;
        out[0] = (s + 1) % t->size;
        out[1] = (s + 2) % t->size;
    }
    for (int j = 0; j < n; j++)
        if (out[j] == t->rank && k-- == 0) return j;
    LC_FATAL("rank %d: no edge from %d for in-block %d", t->rank, s, i);
    return -1;
}

/* MPICH 4.0.2 pairs the blocks of repeated edges differently (see
 * coll_neighbor.c): on MPICH such blocks are not checked. */
static int mpich_repeated(const topo_t *t, int i)
{
    if (!lc_library_is_mpich()) return 0;
    for (int k = 0; k < t->in; k++)
        if (k != i && t->src[k] == t->src[i] && t->src[i] != MPI_PROC_NULL) return 1;
    return 0;
}

static int val(int s, int j, int e)
{
    return s * 10000 + j * 100 + e;
}

/* Block i: element e at base[pos[e]] (pos NULL: e * stride), from sender
 * block j (-1: allgather, block 0); holes between must be SENTINEL. */
static void check_block(const topo_t *t, const char *what, int i, const int *base, const int *pos, int stride, int j,
                        int span)
{
    if (j >= 0 && mpich_repeated(t, i)) return;
    int want_hole = SENTINEL;
    for (int x = 0; x < span; x++) {
        int e = -1;
        for (int k = 0; k < K; k++)
            if ((pos ? pos[k] : k * stride) == x) e = k;
        int want = e < 0 || t->src[i] == MPI_PROC_NULL ? want_hole : val(t->src[i], j < 0 ? 0 : j, e);
        if (base[x] != want) {
            LC_CHECK(0, "%s on %s (%d ranks): rank %d block %d int %d = %d, expected %d", what, kind_name[t->kind],
                     t->size, t->rank, i, x, base[x], want);
            return;
        }
    }
}

#define NOPS 5

typedef struct {
    int ag_s[2 * K], ag_r[MAXN * K];            /* allgather: vecr -> ints */
    int agv_s[K], agv_r[MAXN * (K + 1)];        /* allgatherv: ints -> idx, reversed */
    int a_s[MAXN * 2 * K], a_r[MAXN * (K + 1)]; /* alltoall: vecr -> idx */
    int av_s[MAXN * K], av_r[MAXN * K];         /* alltoallv: ints, reversed send slots */
    char aw_s[MAXN * 32], aw_r[MAXN * 32];      /* alltoallw: st -> rsz */
    int agv_c[MAXN], agv_d[MAXN], av_sc[MAXN], av_sd[MAXN], av_rc[MAXN], av_rd[MAXN], aw_sc[MAXN], aw_rc[MAXN];
    MPI_Count w_agv_c[MAXN], w_av_sc[MAXN], w_av_rc[MAXN], w_aw_sc[MAXN], w_aw_rc[MAXN];
    MPI_Aint w_agv_d[MAXN], w_av_sd[MAXN], w_av_rd[MAXN], aw_sd[MAXN], aw_rd[MAXN];
    MPI_Datatype aw_st[MAXN], aw_rt[MAXN];
} bufs_t;

static void fill(const topo_t *t, bufs_t *b)
{
    for (int i = 0; i < (int)(sizeof(b->ag_r) / sizeof(int)); i++) b->ag_r[i] = SENTINEL;
    for (int i = 0; i < (int)(sizeof(b->agv_r) / sizeof(int)); i++) b->agv_r[i] = SENTINEL;
    for (int i = 0; i < (int)(sizeof(b->a_r) / sizeof(int)); i++) b->a_r[i] = SENTINEL;
    for (int i = 0; i < (int)(sizeof(b->av_r) / sizeof(int)); i++) b->av_r[i] = SENTINEL;
    for (int i = 0; i < (int)(sizeof(b->aw_r) / sizeof(int)); i++) ((int *)b->aw_r)[i] = SENTINEL;
    for (int e = 0; e < 2 * K; e++) b->ag_s[e] = e % 2 ? SENTINEL : val(t->rank, 0, e / 2);
    for (int e = 0; e < K; e++) b->agv_s[e] = val(t->rank, 0, e);
    for (int j = 0; j < t->out; j++)
        for (int e = 0; e < K; e++) {
            b->a_s[2 * K * j + 2 * e] = val(t->rank, j, e);
            b->a_s[2 * K * j + 2 * e + 1] = SENTINEL;
            b->av_s[K * (t->out - 1 - j) + e] = val(t->rank, j, e);
            int *w = (int *)(b->aw_s + 32 * j);
            w[0] = val(t->rank, j, 0);
            w[2] = val(t->rank, j, 1);
            w[3] = val(t->rank, j, 2);
        }
}

static void counts(const topo_t *t, bufs_t *b)
{
    for (int i = 0; i < t->in; i++) {
        b->agv_c[i] = 1;
        b->agv_d[i] = t->in - 1 - i; /* in extents of idx */
        b->av_rc[i] = K;
        b->av_rd[i] = K * i;
        b->aw_rc[i] = K;
        b->aw_rd[i] = 32 * i;
        b->aw_rt[i] = rsz;
    }
    for (int j = 0; j < t->out; j++) {
        b->av_sc[j] = K;
        b->av_sd[j] = K * (t->out - 1 - j);
        b->aw_sc[j] = 1;
        b->aw_sd[j] = 32 * j;
        b->aw_st[j] = st;
    }
    for (int i = 0; i < MAXN; i++) {
        b->w_agv_c[i] = b->agv_c[i];
        b->w_agv_d[i] = b->agv_d[i];
        b->w_av_sc[i] = b->av_sc[i];
        b->w_av_sd[i] = b->av_sd[i];
        b->w_av_rc[i] = b->av_rc[i];
        b->w_av_rd[i] = b->av_rd[i];
        b->w_aw_sc[i] = b->aw_sc[i];
        b->w_aw_rc[i] = b->aw_rc[i];
    }
}

static void check(const topo_t *t, const bufs_t *b, const char *how)
{
    char what[64];
    for (int i = 0; i < t->in; i++) {
        int j = sender_block(t, i);
        snprintf(what, sizeof(what), "%s allgather", how);
        check_block(t, what, i, b->ag_r + K * i, NULL, 1, -1, K);
        snprintf(what, sizeof(what), "%s allgatherv", how);
        check_block(t, what, i, b->agv_r + (K + 1) * (t->in - 1 - i), idx_pos, 0, -1, K + 1);
        snprintf(what, sizeof(what), "%s alltoall", how);
        check_block(t, what, i, b->a_r + (K + 1) * i, idx_pos, 0, j, K + 1);
        snprintf(what, sizeof(what), "%s alltoallv", how);
        check_block(t, what, i, b->av_r + K * i, NULL, 1, j, K);
        snprintf(what, sizeof(what), "%s alltoallw", how);
        check_block(t, what, i, (const int *)(b->aw_r + 32 * i), NULL, 2, j, 8);
    }
}

/* Start the five; the _c forms when wide; MPI_BOTTOM and addresses for alltoallw_c. */
static void start(const topo_t *t, bufs_t *b, int persistent, int wide, MPI_Request *q)
{
    MPI_Comm c = t->comm;
    MPI_Info in = MPI_INFO_NULL;
    if (!wide && !persistent) {
        LC_MPI(MPI_Ineighbor_allgather(b->ag_s, 1, vecr, b->ag_r, K, MPI_INT, c, &q[0]));
        LC_MPI(MPI_Ineighbor_allgatherv(b->agv_s, K, MPI_INT, b->agv_r, b->agv_c, b->agv_d, idx, c, &q[1]));
        LC_MPI(MPI_Ineighbor_alltoall(b->a_s, 1, vecr, b->a_r, 1, idx, c, &q[2]));
        LC_MPI(MPI_Ineighbor_alltoallv(b->av_s, b->av_sc, b->av_sd, MPI_INT, b->av_r, b->av_rc, b->av_rd, MPI_INT, c,
                                       &q[3]));
        LC_MPI(MPI_Ineighbor_alltoallw(b->aw_s, b->aw_sc, b->aw_sd, b->aw_st, b->aw_r, b->aw_rc, b->aw_rd, b->aw_rt, c,
                                       &q[4]));
    } else if (!persistent) {
        MPI_Aint sabs[MAXN], rabs[MAXN];
        for (int j = 0; j < t->out; j++) MPI_Get_address(b->aw_s + b->aw_sd[j], &sabs[j]);
        for (int i = 0; i < t->in; i++) MPI_Get_address(b->aw_r + b->aw_rd[i], &rabs[i]);
        LC_MPI(MPI_Ineighbor_allgather_c(b->ag_s, 1, vecr, b->ag_r, K, MPI_INT, c, &q[0]));
        LC_MPI(MPI_Ineighbor_allgatherv_c(b->agv_s, K, MPI_INT, b->agv_r, b->w_agv_c, b->w_agv_d, idx, c, &q[1]));
        LC_MPI(MPI_Ineighbor_alltoall_c(b->a_s, 1, vecr, b->a_r, 1, idx, c, &q[2]));
        LC_MPI(MPI_Ineighbor_alltoallv_c(b->av_s, b->w_av_sc, b->w_av_sd, MPI_INT, b->av_r, b->w_av_rc, b->w_av_rd,
                                         MPI_INT, c, &q[3]));
        LC_MPI(MPI_Ineighbor_alltoallw_c(MPI_BOTTOM, b->w_aw_sc, sabs, b->aw_st, MPI_BOTTOM, b->w_aw_rc, rabs, b->aw_rt,
                                         c, &q[4]));
    } else if (!wide) {
        LC_MPI(MPI_Neighbor_allgather_init(b->ag_s, 1, vecr, b->ag_r, K, MPI_INT, c, in, &q[0]));
        LC_MPI(MPI_Neighbor_allgatherv_init(b->agv_s, K, MPI_INT, b->agv_r, b->agv_c, b->agv_d, idx, c, in, &q[1]));
        LC_MPI(MPI_Neighbor_alltoall_init(b->a_s, 1, vecr, b->a_r, 1, idx, c, in, &q[2]));
        LC_MPI(MPI_Neighbor_alltoallv_init(b->av_s, b->av_sc, b->av_sd, MPI_INT, b->av_r, b->av_rc, b->av_rd, MPI_INT,
                                           c, in, &q[3]));
        LC_MPI(MPI_Neighbor_alltoallw_init(b->aw_s, b->aw_sc, b->aw_sd, b->aw_st, b->aw_r, b->aw_rc, b->aw_rd, b->aw_rt,
                                           c, in, &q[4]));
    } else {
        LC_MPI(MPI_Neighbor_allgather_init_c(b->ag_s, 1, vecr, b->ag_r, K, MPI_INT, c, in, &q[0]));
        LC_MPI(
            MPI_Neighbor_allgatherv_init_c(b->agv_s, K, MPI_INT, b->agv_r, b->w_agv_c, b->w_agv_d, idx, c, in, &q[1]));
        LC_MPI(MPI_Neighbor_alltoall_init_c(b->a_s, 1, vecr, b->a_r, 1, idx, c, in, &q[2]));
        LC_MPI(MPI_Neighbor_alltoallv_init_c(b->av_s, b->w_av_sc, b->w_av_sd, MPI_INT, b->av_r, b->w_av_rc, b->w_av_rd,
                                             MPI_INT, c, in, &q[3]));
        LC_MPI(MPI_Neighbor_alltoallw_init_c(b->aw_s, b->w_aw_sc, b->aw_sd, b->aw_st, b->aw_r, b->w_aw_rc, b->aw_rd,
                                             b->aw_rt, c, in, &q[4]));
    }
}

static void run(const topo_t *t, int wide)
{
    bufs_t *b = lc_malloc(sizeof(*b));
    memset(b, 0, sizeof(*b));
    counts(t, b);
    MPI_Request q[NOPS];
    /* nonblocking: all five outstanding, completed in the order 3, 0, 4, 2, 1 */
    fill(t, b);
    start(t, b, 0, wide, q);
    static const int order[NOPS] = { 3, 0, 4, 2, 1 };
    for (int k = 0; k < NOPS; k++) LC_MPI(MPI_Wait(&q[order[k]], MPI_STATUS_IGNORE));
    check(t, b, wide ? "Ineighbor_*_c" : "Ineighbor_*");
    /* persistent: built once, started twice with Startall, Waitall */
    start(t, b, 1, wide, q);
    for (int rep = 0; rep < 2; rep++) {
        fill(t, b);
        LC_MPI(MPI_Startall(NOPS, q));
        LC_MPI(MPI_Waitall(NOPS, q, MPI_STATUSES_IGNORE));
        check(t, b, wide ? "Neighbor_*_init_c" : "Neighbor_*_init");
    }
    for (int k = 0; k < NOPS; k++) LC_MPI(MPI_Request_free(&q[k]));
    free(b);
}

static void run_all(MPI_Comm comm, int kind)
{
    topo_t t = { .comm = comm, .kind = kind };
    topo_lists(&t);
    if (t.in > MAXN || t.out > MAXN) LC_FATAL("too many neighbours (%d, %d)", t.in, t.out);
    for (int wide = 0; wide < 2; wide++) run(&t, wide);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    make_types();
    MPI_Comm c;

    int dims1[1] = { size }, per1[1] = { 1 };
    LC_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, per1, 0, &c));
    run_all(c, T_CART);
    LC_MPI(MPI_Comm_free(&c));

    int dims2[2] = { 0, 0 }, per2[2] = { 0, 1 };
    LC_MPI(MPI_Dims_create(size, 2, dims2));
    LC_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, per2, 0, &c));
    run_all(c, T_CART);
    LC_MPI(MPI_Comm_free(&c));

    int index[64], edges[192], e = 0;
    for (int i = 0; i < size; i++) {
        edges[e++] = (i + 1) % size;
        edges[e++] = (i + size - 1) % size;
        if (size > 3) edges[e++] = (i + size / 2) % size;
        index[i] = e;
    }
    LC_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c));
    run_all(c, T_GRAPH);
    LC_MPI(MPI_Comm_free(&c));

    int srcs[2] = { (rank + size - 1) % size, (rank + 2 * size - 2) % size };
    int dsts[2] = { (rank + 1) % size, (rank + 2) % size };
    LC_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, dsts, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &c));
    run_all(c, T_DIST);
    LC_MPI(MPI_Comm_free(&c));

    /* no topology: MPI_ERR_TOPOLOGY from the starting call */
    int x = 0, y[2];
    MPI_Request r;
    LC_CHECK(lc_class_of(MPI_Ineighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &r)) ==
                 MPI_ERR_TOPOLOGY,
             "Ineighbor_allgather on MPI_COMM_WORLD is not MPI_ERR_TOPOLOGY");
    LC_MPI(MPI_Type_free(&vecr));
    LC_MPI(MPI_Type_free(&idx));
    LC_MPI(MPI_Type_free(&st));
    LC_MPI(MPI_Type_free(&rsz));
    return lc_finish();
}
