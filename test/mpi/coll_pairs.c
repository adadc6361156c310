/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_pairs: collectives match type signatures, not layouts, for the
 * predefined pair types too (MPI 4.1 §6.1, §6.9.4).  For every pair type
 * P = {V, int} (MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT,
 * MPI_LONG_DOUBLE_INT, MPI_FLOAT_INT, MPI_2INT) each rank declares its
 * items its own way, by rank % 3:
 *   0  P itself (the C struct {V v; int i;}, padding included);
 *   1  MPI_Type_create_struct {V at 0, int at sizeof(V)} resized to
 *      sizeof(V) + 4 (no padding at all);
 *   2  the same struct with the int at the end of P's extent and 8 more
 *      bytes (a hole after V, another after the int);
 * and every data-moving collective runs with those mixed declarations:
 * bcast, gather(v), scatter(v), allgather(v), alltoall(v,w), the
 * neighbourhood allgather/alltoall(v,w) on a ring, and bcast/allgather/
 * alltoall on an intercommunicator (even ranks against odd ranks).
 * Alltoallw also mixes the three declarations block by block.  Every item
 * received is checked against its sender and position.  Reduce and
 * Allreduce with MINLOC/MAXLOC mix P with a struct of one P resized to
 * twice P's extent.  Argument "nb": MPI_I<coll> + MPI_Wait; "pers":
 * MPI_<Coll>_init, two MPI_Start/MPI_Wait rounds.
 * Locus moved P in its memory form in collectives (16 bytes for each
 * 12-byte MPI_DOUBLE_INT) and the others' declarations as their packed
 * bytes, so a mixed job got shifted items or a truncation error. */
#include "lc_test.h"
#include "lc_test_pairs.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define N 5      /* items per block */
#define BIG 3000 /* items of the large bcast / allgather (36 KiB of MPI_DOUBLE_INT) */
#define MAXB 8   /* blocks per alltoallw peer at most */

static const pair_desc_t pairs[] = {
    PAIR(MPI_DOUBLE_INT, MPI_DOUBLE, double), PAIR(MPI_LONG_INT, MPI_LONG, long),
    PAIR(MPI_SHORT_INT, MPI_SHORT, short),    PAIR(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, long double),
    PAIR(MPI_FLOAT_INT, MPI_FLOAT, float),    PAIR(MPI_2INT, MPI_INT, int),
};

/* One declaration of items {V, int}: its handle and C layout. */
typedef struct lay {
    MPI_Datatype dt;
    size_t ioff, ext;
} lay_t;

static int rank, size, mode;
static bool open_mpi;
/* MPI_Start rounds of a persistent collective: MPICH 4.0.2 fails the
 * second (yaksa's handle pool, as in dt_coll) */
static int starts = 2;
static const pair_desc_t *P;
static lay_t lays[3]; /* the three declarations of P (header comment) */

/* Persistent collectives are MPI 4 (Open MPI 4.1, which validated this
 * test beside MPICH, has none: "pers" is refused there). */
#if MPI_VERSION >= 4
#define LC_PERSISTENT(PI) MPI_##PI
#else
#define LC_PERSISTENT(PI) lc_no_persistent
static int lc_no_persistent()
{
    LC_FATAL("no persistent collectives in this MPI (MPI_VERSION %d)", MPI_VERSION);
}
#endif

#define COLL(COMM, B, I, PI, ...)                                                                                      \
    do {                                                                                                               \
        MPI_Request q_;                                                                                                \
        if (mode == 0) {                                                                                               \
            LC_MPI(MPI_##B(__VA_ARGS__, COMM));                                                                        \
        } else if (mode == 1) {                                                                                        \
            LC_MPI(MPI_##I(__VA_ARGS__, COMM, &q_));                                                                   \
            LC_MPI(MPI_Wait(&q_, MPI_STATUS_IGNORE));                                                                  \
        } else {                                                                                                       \
            LC_MPI(LC_PERSISTENT(PI)(__VA_ARGS__, COMM, MPI_INFO_NULL, &q_));                                          \
            for (int k_ = 0; k_ < starts; k_++) {                                                                      \
                LC_MPI(MPI_Start(&q_));                                                                                \
                LC_MPI(MPI_Wait(&q_, MPI_STATUS_IGNORE));                                                              \
            }                                                                                                          \
            LC_MPI(MPI_Request_free(&q_));                                                                             \
        }                                                                                                              \
    } while (0)

static void make_lays(void)
{
    lays[0] = (lay_t){ P->pair, P->ioff, P->extent };
    int bl[2] = { 1, 1 };
    MPI_Datatype ty[2] = { P->value, MPI_INT };
    size_t at[2] = { P->vsize, P->extent };
    size_t ext[2] = { P->vsize + sizeof(int), P->extent + 8 };
    for (int k = 0; k < 2; k++) {
        MPI_Aint d[2] = { 0, (MPI_Aint)at[k] };
        MPI_Datatype s;
        LC_MPI(MPI_Type_create_struct(2, bl, d, ty, &s));
        LC_MPI(MPI_Type_create_resized(s, 0, (MPI_Aint)ext[k], &lays[1 + k].dt));
        LC_MPI(MPI_Type_commit(&lays[1 + k].dt));
        LC_MPI(MPI_Type_free(&s));
        lays[1 + k].ioff = at[k];
        lays[1 + k].ext = ext[k];
    }
}

static void free_lays(void)
{
    for (int k = 1; k < 3; k++) LC_MPI(MPI_Type_free(&lays[k].dt));
}

/* Item j of sender s's block b: V's bytes and the index. */
static void value_of(int s, int b, int j, unsigned char *v, int *idx)
{
    for (size_t k = 0; k < P->vsize; k++) v[k] = (unsigned char)(37 * s + 11 * j + 5 * k + 67 * b + 3);
    *idx = 100000 * s + 1000 * b + j;
}

static void put(const lay_t *l, void *buf, int at, int s, int b, int j)
{
    unsigned char *p = (unsigned char *)buf + (size_t)at * l->ext;
    int idx;
    value_of(s, b, j, p, &idx);
    memcpy(p + l->ioff, &idx, sizeof idx);
}

/* n items of sender s's block b (items from j0) at item `at` of buf. */
static void fill(const lay_t *l, void *buf, int at, int n, int s, int b, int j0)
{
    for (int j = 0; j < n; j++) put(l, buf, at + j, s, b, j0 + j);
}

static void check(const lay_t *l, const void *buf, int at, int n, int s, int b, int j0, const char *what)
{
    for (int j = 0; j < n; j++) {
        const unsigned char *p = (const unsigned char *)buf + (size_t)(at + j) * l->ext;
        unsigned char v[32];
        int idx, got;
        value_of(s, b, j0 + j, v, &idx);
        memcpy(&got, p + l->ioff, sizeof got);
        bool ok = memcmp(p, v, P->vsize) == 0 && got == idx;
        LC_CHECK(ok, "%s %s (declared %d here): item %d from rank %d block %d: index %d, want %d%s", P->name, what,
                 (int)(l - lays), at + j, s, b, got, idx, memcmp(p, v, P->vsize) ? ", value bytes differ" : "");
        if (!ok) return;
    }
}

static void *zalloc(size_t items, const lay_t *l)
{
    void *p = lc_malloc(items * l->ext + 1);
    memset(p, 0xa5, items * l->ext + 1);
    return p;
}

/* MPICH 4.0.2 moves pair types with their padding in collectives too
 * (MPI_Allgather of MPI_DOUBLE_INT against the packed struct: "Message
 * truncated"): there every rank declares P, which checks the rest. */
static bool mpich;

static const lay_t *decl(int k)
{
    return &lays[mpich ? 0 : k % 3];
}

static const lay_t *mine(void)
{
    return decl(rank);
}

static void test_rooted(void)
{
    const lay_t *l = mine();
    for (int root = 0; root<size; root += size> 1 ? size - 1 : 1) {
        /* bcast, small and large */
        for (int n = N; n <= BIG; n += BIG - N) {
            void *b = zalloc((size_t)n, l);
            if (rank == root) fill(l, b, 0, n, root, 0, 0);
            COLL(MPI_COMM_WORLD, Bcast, Ibcast, Bcast_init, b, n, l->dt, root);
            check(l, b, 0, n, root, 0, 0, "bcast");
            free(b);
        }
        /* gather / scatter */
        void *s = zalloc(N * (size_t)size, l), *r = zalloc(N * (size_t)size, l);
        fill(l, s, 0, N, rank, 1, 0);
        COLL(MPI_COMM_WORLD, Gather, Igather, Gather_init, s, N, l->dt, r, N, l->dt, root);
        for (int i = 0; rank == root && i < size; i++) check(l, r, i * N, N, i, 1, 0, "gather");
        for (int i = 0; i < size; i++) fill(l, s, i * N, N, rank, 2, i * N);
        memset(r, 0xa5, N * l->ext);
        COLL(MPI_COMM_WORLD, Scatter, Iscatter, Scatter_init, s, N, l->dt, r, N, l->dt, root);
        check(l, r, 0, N, root, 2, rank * N, "scatter");
        /* gatherv / scatterv: rank i has 1 + i % 3 items, blocks one item apart */
        int cnt[64], dsp[64], at = 0;
        for (int i = 0; i < size; i++) {
            cnt[i] = 1 + i % 3;
            dsp[i] = at;
            at += cnt[i] + 1;
        }
        void *vr = zalloc((size_t)at, l);
        fill(l, s, 0, cnt[rank], rank, 3, 0);
        COLL(MPI_COMM_WORLD, Gatherv, Igatherv, Gatherv_init, s, cnt[rank], l->dt, vr, cnt, dsp, l->dt, root);
        for (int i = 0; rank == root && i < size; i++) check(l, vr, dsp[i], cnt[i], i, 3, 0, "gatherv");
        for (int i = 0; i < size; i++) fill(l, vr, dsp[i], cnt[i], rank, 4, 10 * i);
        memset(r, 0xa5, N * l->ext);
        COLL(MPI_COMM_WORLD, Scatterv, Iscatterv, Scatterv_init, vr, cnt, dsp, l->dt, r, cnt[rank], l->dt, root);
        check(l, r, 0, cnt[rank], root, 4, 10 * rank, "scatterv");
        free(vr);
        free(s);
        free(r);
    }
}

static void test_all(void)
{
    const lay_t *l = mine();
    int cnt[64], dsp[64], at = 0;
    for (int i = 0; i < size; i++) {
        cnt[i] = 1 + (i + rank) % 3; /* alltoallv: what rank and i exchange, both ways */
        dsp[i] = at;
        at += cnt[i] + 1;
    }
    void *s = zalloc((size_t)BIG, l), *r = zalloc((size_t)BIG * (size_t)size, l);
    for (int n = N; n <= BIG; n += BIG - N) {
        fill(l, s, 0, n, rank, 5, 0);
        COLL(MPI_COMM_WORLD, Allgather, Iallgather, Allgather_init, s, n, l->dt, r, n, l->dt);
        for (int i = 0; i < size; i++) check(l, r, i * n, n, i, 5, 0, "allgather");
    }
    for (int i = 0; i < size; i++) fill(l, s, i * N, N, rank, 6, i);
    COLL(MPI_COMM_WORLD, Alltoall, Ialltoall, Alltoall_init, s, N, l->dt, r, N, l->dt);
    for (int i = 0; i < size; i++) check(l, r, i * N, N, i, 6, rank, "alltoall");
    /* allgatherv: rank i gives 1 + i % 3 items */
    int gc[64], gd[64], gat = 0;
    for (int i = 0; i < size; i++) {
        gc[i] = 1 + i % 3;
        gd[i] = gat;
        gat += gc[i] + 1;
    }
    fill(l, s, 0, gc[rank], rank, 7, 0);
    COLL(MPI_COMM_WORLD, Allgatherv, Iallgatherv, Allgatherv_init, s, gc[rank], l->dt, r, gc, gd, l->dt);
    for (int i = 0; i < size; i++) check(l, r, gd[i], gc[i], i, 7, 0, "allgatherv");
    for (int i = 0; i < size; i++) fill(l, s, dsp[i], cnt[i], rank, 8, 10 * i);
    COLL(MPI_COMM_WORLD, Alltoallv, Ialltoallv, Alltoallv_init, s, cnt, dsp, l->dt, r, cnt, dsp, l->dt);
    for (int i = 0; i < size; i++) check(l, r, dsp[i], cnt[i], i, 8, 10 * rank, "alltoallv");
    free(s);
    free(r);
}

/* Alltoallw: the block rank sends to i is declared lays[(rank + i) % 3]
 * there, received as lays[(2 * rank + i) % 3]; cnt items, byte
 * displacements one 32-byte gap apart. */
static void test_alltoallw(void)
{
    int sc[64], rc[64], sd[64], rd[64];
    MPI_Datatype st[64], rt[64];
    size_t sat = 0, rat = 0;
    for (int i = 0; i < size; i++) {
        const lay_t *ls = decl(rank + i), *lr = decl(2 * rank + i);
        sc[i] = rc[i] = 1 + (i + rank) % 3;
        st[i] = ls->dt;
        rt[i] = lr->dt;
        sd[i] = (int)sat;
        rd[i] = (int)rat;
        sat += (size_t)sc[i] * ls->ext + 32;
        rat += (size_t)rc[i] * lr->ext + 32;
    }
    unsigned char *s = lc_malloc(sat), *r = lc_malloc(rat);
    memset(r, 0xa5, rat);
    for (int i = 0; i < size; i++) fill(decl(rank + i), s + sd[i], 0, sc[i], rank, 9, 10 * i);
    COLL(MPI_COMM_WORLD, Alltoallw, Ialltoallw, Alltoallw_init, s, sc, sd, st, r, rc, rd, rt);
    for (int i = 0; i < size; i++) check(decl(2 * rank + i), r + rd[i], 0, rc[i], i, 9, 10 * rank, "alltoallw");
    free(s);
    free(r);
}

/* On a directed ring (in-neighbour rank-1, out-neighbour rank+1). */
static void test_neighbor(void)
{
    const lay_t *l = mine();
    int from = (rank + size - 1) % size, to = (rank + 1) % size, one = 1, z = 0;
    MPI_Comm ring;
    LC_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, MPI_UNWEIGHTED, 1, &to, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &ring));
    void *s = zalloc(N, l), *r = zalloc(N, l);
    fill(l, s, 0, N, rank, 10, 0);
    COLL(ring, Neighbor_allgather, Ineighbor_allgather, Neighbor_allgather_init, s, N, l->dt, r, N, l->dt);
    check(l, r, 0, N, from, 10, 0, "neighbor_allgather");
    fill(l, s, 0, N, rank, 11, 0);
    memset(r, 0xa5, N * l->ext);
    COLL(ring, Neighbor_alltoall, Ineighbor_alltoall, Neighbor_alltoall_init, s, N, l->dt, r, N, l->dt);
    check(l, r, 0, N, from, 11, 0, "neighbor_alltoall");
    int c = N - 1;
    fill(l, s, 1, c, rank, 12, 0);
    memset(r, 0xa5, N * l->ext);
    COLL(ring, Neighbor_alltoallv, Ineighbor_alltoallv, Neighbor_alltoallv_init, s, &c, &one, l->dt, r, &c, &z, l->dt);
    check(l, r, 0, c, from, 12, 0, "neighbor_alltoallv");
    /* w: sent as this rank's declaration, received as the next one's */
    const lay_t *lr = decl(rank + 1);
    void *rw = zalloc(N, lr);
    MPI_Aint sd = 0, rd = (MPI_Aint)lr->ext;
    int n = N - 1;
    fill(l, s, 0, N, rank, 13, 0);
    COLL(ring, Neighbor_alltoallw, Ineighbor_alltoallw, Neighbor_alltoallw_init, s, &n, &sd, &l->dt, rw, &n, &rd,
         &lr->dt);
    check(lr, rw, 1, n, from, 13, 0, "neighbor_alltoallw");
    free(rw);
    free(s);
    free(r);
    LC_MPI(MPI_Comm_free(&ring));
}

/* Even ranks against odd ranks. */
static void test_inter(void)
{
    if (size < 2) return;
    const lay_t *l = mine();
    MPI_Comm half, inter;
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    LC_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter));
    int lrank, rsize;
    LC_MPI(MPI_Comm_rank(half, &lrank));
    LC_MPI(MPI_Comm_remote_size(inter, &rsize));
    void *s = zalloc(N * (size_t)size, l), *r = zalloc(N * (size_t)size, l);
    /* bcast from world rank 0 (even group's rank 0) */
    int root = rank % 2 ? 0 : lrank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    if (root == MPI_ROOT) fill(l, s, 0, N, 0, 14, 0);
    COLL(inter, Bcast, Ibcast, Bcast_init, rank % 2 ? r : s, N, l->dt, root);
    if (rank % 2) check(l, r, 0, N, 0, 14, 0, "intercomm bcast");
    fill(l, s, 0, N, rank, 15, 0);
    COLL(inter, Allgather, Iallgather, Allgather_init, s, N, l->dt, r, N, l->dt);
    for (int i = 0; i < rsize; i++) check(l, r, i * N, N, 2 * i + (rank % 2 ? 0 : 1), 15, 0, "intercomm allgather");
    for (int i = 0; i < rsize; i++) fill(l, s, i * N, N, rank, 16, i);
    COLL(inter, Alltoall, Ialltoall, Alltoall_init, s, N, l->dt, r, N, l->dt);
    for (int i = 0; i < rsize; i++) check(l, r, i * N, N, 2 * i + (rank % 2 ? 0 : 1), 16, lrank, "intercomm alltoall");
    free(s);
    free(r);
    LC_MPI(MPI_Comm_free(&inter));
    LC_MPI(MPI_Comm_free(&half));
}

/* ---- MINLOC / MAXLOC: even ranks P, odd ranks a struct of one P of twice P's extent ---- */

static void set_value(void *at, double x)
{
    MPI_Datatype v = P->value;
    if (v == MPI_DOUBLE)
        *(double *)at = x;
    else if (v == MPI_FLOAT)
        *(float *)at = (float)x;
    else if (v == MPI_LONG)
        *(long *)at = (long)x;
    else if (v == MPI_SHORT)
        *(short *)at = (short)x;
    else if (v == MPI_INT)
        *(int *)at = (int)x;
    else
        *(long double *)at = (long double)x;
}

static double get_value(const void *at)
{
    MPI_Datatype v = P->value;
    if (v == MPI_DOUBLE) return *(const double *)at;
    if (v == MPI_FLOAT) return *(const float *)at;
    if (v == MPI_LONG) return (double)*(const long *)at;
    if (v == MPI_SHORT) return *(const short *)at;
    if (v == MPI_INT) return *(const int *)at;
    return (double)*(const long double *)at;
}

static double loc_value(int s, int j)
{
    return (double)((7 * j + 3 * s + j * s) % 11) - 4;
}

static void test_loc(void)
{
    MPI_Datatype wide, s1;
    int bl = 1;
    MPI_Aint d = 0;
    LC_MPI(MPI_Type_create_struct(1, &bl, &d, &P->pair, &s1));
    LC_MPI(MPI_Type_create_resized(s1, 0, 2 * (MPI_Aint)P->extent, &wide));
    LC_MPI(MPI_Type_commit(&wide));
    LC_MPI(MPI_Type_free(&s1));
    /* Open MPI 4.1 refuses predefined operations on derived types (it
     * validated the rest of this test): P on every rank there. */
    bool odd = rank % 2 && !open_mpi && !mpich;
    size_t ext = odd ? 2 * P->extent : P->extent;
    MPI_Datatype dt = odd ? wide : P->pair;
    unsigned char *in = lc_malloc(N * ext), *out = lc_malloc(N * ext);
    for (int j = 0; j < N; j++) {
        set_value(in + j * ext, loc_value(rank, j));
        memcpy(in + j * ext + P->ioff, &rank, sizeof rank);
    }
    MPI_Op ops[2] = { MPI_MINLOC, MPI_MAXLOC };
    for (int o = 0; o < 2; o++) {
        for (int all = 0; all < 2; all++) {
            memset(out, 0xa5, N * ext);
            if (all)
                COLL(MPI_COMM_WORLD, Allreduce, Iallreduce, Allreduce_init, in, out, N, dt, ops[o]);
            else
                COLL(MPI_COMM_WORLD, Reduce, Ireduce, Reduce_init, in, out, N, dt, ops[o], size - 1);
            if (!all && rank != size - 1) continue;
            for (int j = 0; j < N; j++) {
                double best = loc_value(0, j);
                int who = 0;
                for (int s = 1; s < size; s++) {
                    double x = loc_value(s, j);
                    if (o ? x > best : x < best) best = x, who = s;
                }
                int got;
                memcpy(&got, out + j * ext + P->ioff, sizeof got);
                double gv = get_value(out + j * ext);
                LC_CHECK(gv == best && got == who, "%s %s %s item %d: (%g, %d), want (%g, %d)", P->name,
                         all ? "allreduce" : "reduce", o ? "MAXLOC" : "MINLOC", j, gv, got, best, who);
            }
        }
    }
    free(in);
    free(out);
    LC_MPI(MPI_Type_free(&wide));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) LC_FATAL("at most 64 ranks");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    LC_MPI(MPI_Get_library_version(lib, &len));
    open_mpi = strstr(lib, "Open MPI") != NULL;
    mpich = lc_library_is_mpich();
    if (mpich) starts = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "nb"))
            mode = 1;
        else if (!strcmp(argv[i], "pers"))
            mode = 2;
        else
            LC_FATAL("unknown argument %s (nb, pers)", argv[i]);
    }
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        P = &pairs[k];
        make_lays();
        test_rooted();
        test_all();
        test_alltoallw();
        test_neighbor();
        test_inter();
        test_loc();
        free_lays();
    }
    return lc_finish();
}
