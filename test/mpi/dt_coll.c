/* SPDX-License-Identifier: BSD-3-Clause */
/* dt_coll: derived datatypes through every collective: blocking, or (argument
 * "nb", "pers") nonblocking and persistent.
 *
 * Data movers (bcast, gather, scatter, allgather, alltoall and the v forms)
 * with a derived type on one side and plain ints on the other (same type
 * signature, different typemaps), with derived types on both, in place,
 * small and above 1 MiB.  Reductions on derived types made of one
 * predefined type (a vector of doubles, a vector of ints, a contiguous of
 * MPI_DOUBLE_INT with MINLOC), in place and not, and a user operation
 * (non-commutative: composition of affine maps) that must receive the
 * user's datatype handle and buffers laid out as that type says.  Every
 * receive buffer is checked whole: data at the typemap, holes untouched. */
#include "lc_test.h"

#include <string.h>

static int rank, size;

/* How each collective runs (program argument): blocking (none), "nb"
 * (MPI_I<coll>, then MPI_Wait), "pers" (MPI_<Coll>_init, MPI_Start,
 * MPI_Wait, a second MPI_Start on the same buffers, MPI_Wait,
 * MPI_Request_free; every call of this program gives the same result
 * when run twice: in-place ones are not persistent here), so
 * that the staging of derived types as schedule steps sees every check. */
static int mode;
static int twice = 1;

#define COLL(B, I, P, ...)                                                                                             \
    do {                                                                                                               \
        MPI_Request q_;                                                                                                \
        if (mode == 0) {                                                                                               \
            LC_MPI(MPI_##B(__VA_ARGS__, MPI_COMM_WORLD));                                                              \
        } else if (mode == 1) {                                                                                        \
            LC_MPI(MPI_##I(__VA_ARGS__, MPI_COMM_WORLD, &q_));                                                         \
            LC_MPI(MPI_Wait(&q_, MPI_STATUS_IGNORE));                                                                  \
        } else {                                                                                                       \
            LC_MPI(MPI_##P(__VA_ARGS__, MPI_COMM_WORLD, MPI_INFO_NULL, &q_));                                          \
            for (int k_ = 0; k_ < 1 + twice; k_++) {                                                                   \
                LC_MPI(MPI_Start(&q_));                                                                                \
                LC_MPI(MPI_Wait(&q_, MPI_STATUS_IGNORE));                                                              \
            }                                                                                                          \
            LC_MPI(MPI_Request_free(&q_));                                                                             \
        }                                                                                                              \
    } while (0)

/* vec: 2 ints at int offsets 0 and 2, extent 3 ints (a hole in the middle) */
static MPI_Datatype vec, rsz, vdbl, dint2;
/* idx: 3 ints at int offsets 0, 2, 3 (extent 4 ints); sti: a struct of 3
 * ints at bytes 0, 8, 12 (extent 16); sdbl: a struct of 2 doubles at
 * bytes 0, 16 (extent 24) */
static MPI_Datatype idx, sti, sdbl;
static const int idx_at[3] = { 0, 2, 3 }, sti_at[3] = { 0, 2, 3 };

static void make_types(void)
{
    LC_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));                    /* extent 3 ints */
    LC_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &rsz)); /* one int in every 2 */
    /* 3 doubles at stride 2, extent 5 doubles (MPICH 4.0.2 refuses MPI_SUM on a resized type) */
    LC_MPI(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vdbl));
    LC_MPI(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &dint2));
    int bl[2] = { 1, 2 }, dp[2] = { 0, 2 };
    LC_MPI(MPI_Type_indexed(2, bl, dp, MPI_INT, &idx));
    MPI_Aint sd[2] = { 0, 8 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT };
    LC_MPI(MPI_Type_create_struct(2, bl, sd, ty, &sti));
    int one[2] = { 1, 1 };
    MPI_Aint dd[2] = { 0, 16 };
    MPI_Datatype dty[2] = { MPI_DOUBLE, MPI_DOUBLE };
    MPI_Datatype s0;
    LC_MPI(MPI_Type_create_struct(2, one, dd, dty, &s0));
    LC_MPI(MPI_Type_create_resized(s0, 0, 24, &sdbl));
    LC_MPI(MPI_Type_free(&s0));
    LC_MPI(MPI_Type_commit(&idx));
    LC_MPI(MPI_Type_commit(&sti));
    LC_MPI(MPI_Type_commit(&sdbl));
    LC_MPI(MPI_Type_commit(&vec));
    LC_MPI(MPI_Type_commit(&rsz));
    LC_MPI(MPI_Type_commit(&vdbl));
    LC_MPI(MPI_Type_commit(&dint2));
}

#define HOLE (-7)

static int *ints(size_t n, int v)
{
    int *p = lc_malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++) p[i] = v;
    return p;
}

/* value number k of rank r's contribution */
static int val(int r, long k)
{
    return r * 100000 + (int)k + 1;
}

/* n items of vec (2 ints each) in 3n ints, holes HOLE, values f(k) */
static int *vec_buf(long n, int r)
{
    int *p = ints((size_t)(3 * n + 1), HOLE);
    for (long k = 0; k < n; k++) {
        p[3 * k] = val(r, 2 * k);
        p[3 * k + 2] = val(r, 2 * k + 1);
    }
    return p;
}

static void check_vec_items(const int *p, long n, int r, long first, const char *what)
{
    /* items [0, n) hold values 2*(first+k) .. of rank r */
    for (long k = 0; k < n; k++) {
        int a = p[3 * k], h = p[3 * k + 1], b = p[3 * k + 2];
        if (a != val(r, 2 * (first + k)) || b != val(r, 2 * (first + k) + 1) || h != HOLE) {
            LC_CHECK(0, "%s: item %ld is (%d %d %d), expected (%d %d %d)", what, k, a, h, b, val(r, 2 * (first + k)),
                     HOLE, val(r, 2 * (first + k) + 1));
            return;
        }
    }
}

/* and the int after the last item is untouched */
static void check_vec_buf(const int *p, long n, int r, long first, const char *what)
{
    check_vec_items(p, n, r, first, what);
    LC_CHECK(p[3 * n] == HOLE, "%s: the int after the last item was written", what);
}

static void check_ints(const int *p, long n, int r, long first, const char *what)
{
    for (long k = 0; k < n; k++)
        if (p[k] != val(r, first + k)) {
            LC_CHECK(0, "%s: int %ld is %d, expected %d", what, k, p[k], val(r, first + k));
            return;
        }
}

static void movers(long n) /* n items of vec per rank */
{
    char what[96];
    /* bcast: vec at every rank */
    for (int root = 0; root<size; root += size> 2 ? size - 1 : 1) {
        int *b = rank == root ? vec_buf(n, root) : ints((size_t)(3 * n + 1), HOLE);
        COLL(Bcast, Ibcast, Bcast_init, b, (int)n, vec, root);
        snprintf(what, sizeof(what), "bcast %ld vec from %d", n, root);
        check_vec_buf(b, n, root, 0, what);
        free(b);
    }
    /* gather: vec sent, ints received; then ints sent, vec received */
    int root = size - 1;
    int *s = vec_buf(n, rank), *r = ints((size_t)(2 * n * size), HOLE);
    COLL(Gather, Igather, Gather_init, s, (int)n, vec, r, (int)(2 * n), MPI_INT, root);
    if (rank == root)
        for (int i = 0; i < size; i++) {
            snprintf(what, sizeof(what), "gather %ld vec -> ints, block %d", n, i);
            check_ints(r + 2 * n * i, 2 * n, i, 0, what);
        }
    free(r);
    int *si = ints((size_t)(2 * n), 0);
    for (long k = 0; k < 2 * n; k++) si[k] = val(rank, k);
    int *rv = ints((size_t)(3 * n * size + 1), HOLE);
    COLL(Gather, Igather, Gather_init, si, (int)(2 * n), MPI_INT, rv, (int)n, vec, root);
    if (rank == root)
        for (int i = 0; i < size; i++) {
            snprintf(what, sizeof(what), "gather %ld ints -> vec, block %d", n, i);
            check_vec_items(rv + 3 * n * i, n, i, 0, what);
        }
    if (rank == root) LC_CHECK(rv[3 * n * size] == HOLE, "gather ints -> vec wrote past the last block");
    /* allgather vec -> vec, in place */
    free(rv);
    rv = ints((size_t)(3 * n * size + 1), HOLE);
    int *mine = vec_buf(n, rank);
    memcpy(rv + 3 * n * rank, mine, sizeof(int) * (size_t)(3 * n));
    COLL(Allgather, Iallgather, Allgather_init, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rv, (int)n, vec);
    for (int i = 0; i < size; i++) {
        snprintf(what, sizeof(what), "allgather in place %ld vec, block %d", n, i);
        check_vec_items(rv + 3 * n * i, n, i, 0, what);
    }
    LC_CHECK(rv[3 * n * size] == HOLE, "allgather in place wrote past the last block");
    free(rv);
    free(mine);
    /* scatter: vec at root, ints received */
    int *sv = NULL;
    if (rank == root) {
        sv = ints((size_t)(3 * n * size + 1), HOLE);
        for (int i = 0; i < size; i++) {
            int *b = vec_buf(n, i);
            memcpy(sv + 3 * n * i, b, sizeof(int) * (size_t)(3 * n));
            free(b);
        }
    }
    int *ri = ints((size_t)(2 * n), HOLE);
    COLL(Scatter, Iscatter, Scatter_init, sv, (int)n, vec, ri, (int)(2 * n), MPI_INT, root);
    snprintf(what, sizeof(what), "scatter %ld vec -> ints", n);
    check_ints(ri, 2 * n, rank, 0, what);
    free(sv);
    /* alltoall: ints sent, rsz (one int in two) received */
    int *sa = ints((size_t)(n * size), 0);
    for (int i = 0; i < size; i++)
        for (long k = 0; k < n; k++) sa[n * i + k] = val(rank, n * i + k);
    int *ra = ints((size_t)(2 * n * size), HOLE);
    COLL(Alltoall, Ialltoall, Alltoall_init, sa, (int)n, MPI_INT, ra, (int)n, rsz);
    for (int i = 0; i < size; i++)
        for (long k = 0; k < n; k++) {
            int want = val(i, n * rank + k);
            if (ra[2 * (n * i + k)] != want || ra[2 * (n * i + k) + 1] != HOLE) {
                LC_CHECK(0, "alltoall %ld ints -> rsz: from %d item %ld is %d/%d, expected %d/hole", n, i, k,
                         ra[2 * (n * i + k)], ra[2 * (n * i + k) + 1], want);
                break;
            }
        }
    /* the v forms: rank i's block of i+1 .. items, at reversed displacements */
    int *counts = ints((size_t)size, 0), *displs = ints((size_t)size, 0), tot = 0;
    for (int i = 0; i < size; i++) counts[i] = (int)(n / 2 + 1 + i);
    for (int i = size - 1; i >= 0; i--) {
        displs[i] = tot;
        tot += counts[i] + 1; /* a gap of one item */
    }
    int *g = ints((size_t)(3 * tot + 1), HOLE);
    int *mv = vec_buf(counts[rank], rank);
    COLL(Gatherv, Igatherv, Gatherv_init, mv, counts[rank], vec, g, counts, displs, vec, 0);
    if (rank == 0)
        for (int i = 0; i < size; i++) {
            snprintf(what, sizeof(what), "gatherv %ld vec, block %d", n, i);
            check_vec_buf(g + 3 * displs[i], counts[i], i, 0, what);
        }
    free(g);
    g = ints((size_t)(3 * tot + 1), HOLE);
    int *mi = ints((size_t)(2 * counts[rank]), 0);
    for (long k = 0; k < 2 * counts[rank]; k++) mi[k] = val(rank, k);
    COLL(Allgatherv, Iallgatherv, Allgatherv_init, mi, 2 * counts[rank], MPI_INT, g, counts, displs, vec);
    free(mi);
    for (int i = 0; i < size; i++) {
        snprintf(what, sizeof(what), "allgatherv %ld ints -> vec, block %d", n, i);
        check_vec_buf(g + 3 * displs[i], counts[i], i, 0, what);
    }
    /* scatterv from that layout back to each rank */
    int *back = ints((size_t)(3 * counts[rank] + 1), HOLE);
    COLL(Scatterv, Iscatterv, Scatterv_init, g, counts, displs, vec, back, counts[rank], vec, size - 1);
    snprintf(what, sizeof(what), "scatterv %ld vec", n);
    check_vec_buf(back, counts[rank], rank, 0, what);
    /* alltoallv: send counts[j] ints... every rank sends c items of vec to each */
    int c = (int)(n / 2 + 1);
    int *sc = ints((size_t)size, c), *sd = ints((size_t)size, 0), *rc = ints((size_t)size, 2 * c),
        *rd = ints((size_t)size, 0);
    for (int i = 0; i < size; i++) {
        sd[i] = (size - 1 - i) * (c + 1);
        rd[i] = i * 2 * c;
    }
    int *avs = ints((size_t)(3 * (c + 1) * size + 1), HOLE);
    for (int i = 0; i < size; i++)
        for (int k = 0; k < c; k++) {
            avs[3 * (sd[i] + k)] = val(rank, 2 * (i * c + k));
            avs[3 * (sd[i] + k) + 2] = val(rank, 2 * (i * c + k) + 1);
        }
    int *avr = ints((size_t)(2 * c * size), HOLE);
    COLL(Alltoallv, Ialltoallv, Alltoallv_init, avs, sc, sd, vec, avr, rc, rd, MPI_INT);
    for (int i = 0; i < size; i++) {
        snprintf(what, sizeof(what), "alltoallv %ld vec -> ints from %d", n, i);
        check_ints(avr + 2 * c * i, 2 * c, i, 2L * rank * c, what);
    }
    free(avs);
    free(avr);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(back);
    free(g);
    free(mv);
    free(counts);
    free(displs);
    free(sa);
    free(ra);
    free(ri);
    free(si);
    free(s);
}

/* Indexed and struct types: n items, item k of rank r holding values
 * 3k, 3k+1, 3k+2 at the type's int positions `at` within 4 ints. */
static int *items(long n, int r, const int *at)
{
    int *p = ints((size_t)(4 * n + 1), HOLE);
    for (long k = 0; k < n; k++)
        for (int e = 0; e < 3; e++) p[4 * k + at[e]] = r < 0 ? HOLE : val(r, 3 * k + e);
    return p;
}

static void check_items(const int *p, long n, int r, const int *at, const char *what)
{
    for (long k = 0; k < n; k++)
        for (int x = 0; x < 4; x++) {
            int e = -1;
            for (int i = 0; i < 3; i++)
                if (at[i] == x) e = i;
            int want = e < 0 ? HOLE : val(r, 3 * k + e);
            if (p[4 * k + x] != want) {
                LC_CHECK(0, "%s: item %ld int %d is %d, expected %d", what, k, x, p[4 * k + x], want);
                return;
            }
        }
}

static void more_types(long n)
{
    char what[96];
    int root = size > 1 ? 1 : 0;
    int *b = items(n, rank == root ? root : -1, idx_at);
    COLL(Bcast, Ibcast, Bcast_init, b, (int)n, idx, root);
    snprintf(what, sizeof(what), "bcast %ld idx", n);
    check_items(b, n, root, idx_at, what);
    free(b);
    /* allgather: sti sent, idx received */
    int *s = items(n, rank, sti_at), *r = ints((size_t)(4 * n * size + 1), HOLE);
    COLL(Allgather, Iallgather, Allgather_init, s, (int)n, sti, r, (int)n, idx);
    for (int i = 0; i < size; i++) {
        snprintf(what, sizeof(what), "allgather %ld sti -> idx, block %d", n, i);
        check_items(r + 4 * n * i, n, i, idx_at, what);
    }
    free(r);
    /* alltoall: idx sent (block j: items of j's values), sti received */
    int *sa = ints((size_t)(4 * n * size + 1), HOLE), *ra = ints((size_t)(4 * n * size + 1), HOLE);
    for (int j = 0; j < size; j++) {
        int *blk = items(n, rank * 100 + j, idx_at);
        memcpy(sa + 4 * n * j, blk, sizeof(int) * (size_t)(4 * n));
        free(blk);
    }
    COLL(Alltoall, Ialltoall, Alltoall_init, sa, (int)n, idx, ra, (int)n, sti);
    for (int i = 0; i < size; i++) {
        snprintf(what, sizeof(what), "alltoall %ld idx -> sti, from %d", n, i);
        check_items(ra + 4 * n * i, n, i * 100 + rank, sti_at, what);
    }
    free(sa);
    free(ra);
    /* gather of sti to idx at the root, scatter back as idx -> sti */
    int *g = ints((size_t)(4 * n * size + 1), HOLE);
    COLL(Gather, Igather, Gather_init, s, (int)n, sti, g, (int)n, idx, root);
    if (rank == root)
        for (int i = 0; i < size; i++) {
            snprintf(what, sizeof(what), "gather %ld sti -> idx, block %d", n, i);
            check_items(g + 4 * n * i, n, i, idx_at, what);
        }
    int *back = ints((size_t)(4 * n + 1), HOLE);
    COLL(Scatter, Iscatter, Scatter_init, g, (int)n, idx, back, (int)n, sti, root);
    snprintf(what, sizeof(what), "scatter %ld idx -> sti", n);
    check_items(back, n, rank, sti_at, what);
    free(back);
    free(g);
    free(s);
    if (lc_library_is_mpich()) return; /* predefined operations on derived types: see main */
    /* allreduce SUM and reduce MAX on a struct of two doubles */
    long nd = 3 * n + 1;
    double *d = lc_malloc(sizeof(double) * (size_t)nd), *e = lc_malloc(sizeof(double) * (size_t)nd);
    for (long i = 0; i < nd; i++) {
        d[i] = i % 3 == 1 || i == nd - 1 ? -1.0 : (double)(rank + 1) * (double)(i % 977);
        e[i] = -2.0;
    }
    COLL(Allreduce, Iallreduce, Allreduce_init, d, e, (int)n, sdbl, MPI_SUM);
    double f = (double)size * (size + 1) / 2;
    for (long i = 0; i < nd; i++) {
        double want = i % 3 == 1 || i == nd - 1 ? -2.0 : f * (double)(i % 977);
        if (e[i] != want) {
            LC_CHECK(0, "allreduce %ld sdbl: double %ld is %g, expected %g", n, i, e[i], want);
            break;
        }
    }
    for (long i = 0; i < nd; i++) e[i] = -2.0;
    COLL(Reduce, Ireduce, Reduce_init, d, e, (int)n, sdbl, MPI_MAX, root);
    if (rank == root)
        for (long i = 0; i < nd; i++) {
            double want = i % 3 == 1 || i == nd - 1 ? -2.0 : (double)size * (double)(i % 977);
            if (e[i] != want) {
                LC_CHECK(0, "reduce MAX %ld sdbl: double %ld is %g, expected %g", n, i, e[i], want);
                break;
            }
        }
    free(d);
    free(e);
}

/* ---- reductions ---- */

#define HOLED(i) ((i) == nd - 1 || ((i) % 5) % 2)

static void reductions(long n)
{
    char what[96];
    /* allreduce SUM on n items of vdbl (3 doubles each, stride 2) */
    long nd = 5 * n + 1; /* item k: doubles 5k, 5k+2, 5k+4; the rest holes */
    double *d = lc_malloc(sizeof(double) * (size_t)nd), *e = lc_malloc(sizeof(double) * (size_t)nd);
    for (long i = 0; i < nd; i++) {
        d[i] = HOLED(i) ? -1.0 : (double)(rank + 1) * (double)(i % 1000);
        e[i] = -2.0;
    }
    COLL(Allreduce, Iallreduce, Allreduce_init, d, e, (int)n, vdbl, MPI_SUM);
    double f = (double)size * (size + 1) / 2;
    for (long i = 0; i < nd; i++) {
        double want = HOLED(i) ? -2.0 : f * (double)(i % 1000);
        if (e[i] != want) {
            LC_CHECK(0, "allreduce %ld vdbl: double %ld is %g, expected %g", n, i, e[i], want);
            break;
        }
    }
    /* in place */
    twice = 0; /* the result feeds the next run */
    COLL(Allreduce, Iallreduce, Allreduce_init, MPI_IN_PLACE, d, (int)n, vdbl, MPI_SUM);
    twice = !lc_library_is_mpich();
    for (long i = 0; i < nd; i++) {
        double want = HOLED(i) ? -1.0 : f * (double)(i % 1000);
        if (d[i] != want) {
            LC_CHECK(0, "allreduce in place %ld vdbl: double %ld is %g, expected %g", n, i, d[i], want);
            break;
        }
    }
    free(d);
    free(e);
    /* reduce MAX, scan SUM, exscan SUM, reduce_scatter_block SUM on vec (ints) */
    int *s = vec_buf(n * size, rank), *r = ints((size_t)(3 * n * size + 1), HOLE);
    COLL(Reduce, Ireduce, Reduce_init, s, r, (int)(n * size), vec, MPI_MAX, 0);
    if (rank == 0) check_vec_buf(r, n * size, size - 1, 0, "reduce MAX vec");
    free(r);
    r = ints((size_t)(3 * n * size + 1), HOLE);
    COLL(Scan, Iscan, Scan_init, s, r, (int)(n * size), vec, MPI_SUM);
    long tri = (long)rank * (rank + 1) / 2;
    for (long k = 0; k < 2 * n * size; k++) {
        long want = tri * 100000 + (long)(rank + 1) * (k + 1);
        long at = 3 * (k / 2) + 2 * (k % 2);
        if (r[at] != want) {
            LC_CHECK(0, "scan vec: value %ld is %d, expected %ld", k, r[at], want);
            break;
        }
    }
    free(r);
    r = ints((size_t)(3 * n * size + 1), HOLE);
    COLL(Exscan, Iexscan, Exscan_init, s, r, (int)(n * size), vec, MPI_SUM);
    if (rank > 0)
        for (long k = 0; k < 2 * n * size; k++) {
            long want = (tri - rank) * 100000 + (long)rank * (k + 1);
            long at = 3 * (k / 2) + 2 * (k % 2);
            if (r[at] != want || r[3 * (k / 2) + 1] != HOLE) {
                LC_CHECK(0, "exscan vec: value %ld is %d, expected %ld", k, r[at], want);
                break;
            }
        }
    free(r);
    r = ints((size_t)(3 * n + 1), HOLE);
    COLL(Reduce_scatter_block, Ireduce_scatter_block, Reduce_scatter_block_init, s, r, (int)n, vec, MPI_SUM);
    long all = (long)size * (size - 1) / 2;
    for (long k = 0; k < 2 * n; k++) {
        long kk = 2 * n * rank + k;
        long want = all * 100000 + (long)size * (kk + 1);
        long at = 3 * (k / 2) + 2 * (k % 2);
        if (r[at] != want || r[3 * (k / 2) + 1] != HOLE) {
            LC_CHECK(0, "reduce_scatter_block vec: value %ld is %d, expected %ld", k, r[at], want);
            break;
        }
    }
    free(r);
    int *rcounts = ints((size_t)size, (int)n);
    r = ints((size_t)(3 * n + 1), HOLE);
    COLL(Reduce_scatter, Ireduce_scatter, Reduce_scatter_init, s, r, rcounts, vec, MPI_SUM);
    for (long k = 0; k < 2 * n; k++) {
        long kk = 2 * n * rank + k;
        long want = all * 100000 + (long)size * (kk + 1);
        long at = 3 * (k / 2) + 2 * (k % 2);
        if (r[at] != want) {
            LC_CHECK(0, "reduce_scatter vec: value %ld is %d, expected %ld", k, r[at], want);
            break;
        }
    }
    free(r);
    free(rcounts);
    free(s);
    /* MINLOC on a contiguous of two MPI_DOUBLE_INT */
    struct {
        double v;
        int i;
    } in[4], out[4];
    for (int k = 0; k < 4; k++) {
        in[k].v = (double)((rank + k) % size);
        in[k].i = rank;
        out[k].v = -1;
        out[k].i = -1;
    }
    COLL(Allreduce, Iallreduce, Allreduce_init, in, out, 2, dint2, MPI_MINLOC);
    for (int k = 0; k < 4; k++) {
        int who = (size - k % size) % size; /* (who + k) % size == 0 */
        LC_CHECK(out[k].v == 0.0 && out[k].i == who, "MINLOC dint2 %d: (%g, %d), expected (0, %d)", k, out[k].v,
                 out[k].i, who);
    }
    (void)what;
}

/* A user operation: items of vec hold an affine map x -> a x + b (a at int
 * 0, b at int 2, the middle int a hole nobody may touch); inout = in o inout. */
static MPI_Datatype seen_type;
static void compose(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    if (*dt != vec) seen_type = *dt;
    int *in = invec, *io = inoutvec;
    for (int k = 0; k < *len; k++) {
        long a = in[3 * k], b = in[3 * k + 2], c = io[3 * k], d = io[3 * k + 2];
        io[3 * k] = (int)((a * c) % 1000003);
        io[3 * k + 2] = (int)((a * d + b) % 1000003);
    }
}

static void user_op(long n)
{
    MPI_Op op;
    LC_MPI(MPI_Op_create(compose, 0, &op));
    seen_type = vec;
    int *s = ints((size_t)(3 * n + 1), 12345), *r = ints((size_t)(3 * n + 1), HOLE);
    for (long k = 0; k < n; k++) {
        s[3 * k] = rank + 2 + (int)(k % 5);
        s[3 * k + 2] = rank + 1;
    }
    COLL(Allreduce, Iallreduce, Allreduce_init, s, r, (int)n, vec, op);
    for (long k = 0; k < n; k++) {
        long a = 1, b = 0; /* compose f_0 o f_1 o ... o f_{size-1} */
        for (int i = size - 1; i >= 0; i--) {
            long ai = i + 2 + k % 5, bi = i + 1;
            b = (ai * b + bi) % 1000003;
            a = (ai * a) % 1000003;
        }
        if (r[3 * k] != a || r[3 * k + 2] != b || r[3 * k + 1] != HOLE) {
            LC_CHECK(0, "user op allreduce %ld: item %ld is (%d %d %d), expected (%ld hole %ld)", n, k, r[3 * k],
                     r[3 * k + 1], r[3 * k + 2], a, b);
            break;
        }
    }
    free(r);
    r = ints((size_t)(3 * n + 1), HOLE);
    COLL(Scan, Iscan, Scan_init, s, r, (int)n, vec, op);
    for (long k = 0; k < n; k++) {
        long a = 1, b = 0;
        for (int i = rank; i >= 0; i--) {
            long ai = i + 2 + k % 5, bi = i + 1;
            b = (ai * b + bi) % 1000003;
            a = (ai * a) % 1000003;
        }
        if (r[3 * k] != a || r[3 * k + 2] != b) {
            LC_CHECK(0, "user op scan %ld: item %ld is (%d %d), expected (%ld %ld)", n, k, r[3 * k], r[3 * k + 2], a,
                     b);
            break;
        }
    }
    LC_CHECK(seen_type == vec, "the user function saw datatype %#x, not the user's %#x", (unsigned)seen_type,
             (unsigned)vec);
    free(r);
    free(s);
    LC_MPI(MPI_Op_free(&op));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rank = lc_world_rank();
    size = lc_world_size();
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "nb") == 0) mode = 1;
        if (strcmp(argv[i], "pers") == 0) mode = 2;
        if (strcmp(argv[i], "quick") == 0) quick = 1;
    }
    /* MPICH 4.0.2 aborts in yaksa (handle pool assertion) when a persistent
     * collective on a derived type is started a second time */
    twice = !lc_library_is_mpich();
    make_types();
    long ns[] = { 0, 1, 5, 700, 70000 }; /* 70000 items of vec: 560 KB per rank, > 1 MiB gathered */
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]) - (size_t)quick; i++) {
        movers(ns[i]);
        more_types(ns[i]);
        /* MPICH 4.0.2 refuses predefined operations on derived types ("MPI_SUM operation
         * not defined for this datatype"), which MPI 4.1 §6.9.1 allows */
        if (!lc_library_is_mpich()) reductions(ns[i] ? ns[i] : 1);
        user_op(ns[i] ? ns[i] : 1);
    }
    LC_MPI(MPI_Type_free(&vec));
    LC_MPI(MPI_Type_free(&rsz));
    LC_MPI(MPI_Type_free(&vdbl));
    LC_MPI(MPI_Type_free(&dint2));
    LC_MPI(MPI_Type_free(&idx));
    LC_MPI(MPI_Type_free(&sti));
    LC_MPI(MPI_Type_free(&sdbl));
    return lc_finish();
}
