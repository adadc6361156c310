/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_alltoallw: MPI_Alltoallw and MPI_Alltoallw_c on intracommunicators
 * with a different count, byte displacement and predefined datatype per
 * peer (ints to even ranks, doubles to odd ones, count 1 + (i+j) % 3),
 * blocks in reverse order in the buffers; zero-count blocks; MPI_IN_PLACE;
 * MPI_BOTTOM with absolute addresses; and the same on a split communicator;
 * derived datatypes per peer (vector, struct, indexed sent, a resized int
 * received), also in place.  Argument "nb": every call as MPI_Ialltoallw
 * (+ MPI_Wait); "pers": as MPI_Alltoallw_init, started twice. */
#include "lc_test.h"

#include <stdlib.h>
#include <string.h>

#define SLOT 48 /* bytes per block slot: room for 3 doubles + a gap */

static int mode; /* 0 blocking, 1 nonblocking, 2 persistent */

/* MPI_<B>(args..., comm) as the mode says; a persistent one is started
 * twice (in-place calls once: their result is their next input). */
static int twice = 1;
#define AW(B, I, P, ...)                                                                                               \
    do {                                                                                                               \
        MPI_Request q_;                                                                                                \
        if (mode == 0) {                                                                                               \
            LC_MPI(MPI_##B(__VA_ARGS__));                                                                              \
        } else if (mode == 1) {                                                                                        \
            LC_MPI(MPI_##I(__VA_ARGS__, &q_));                                                                         \
            LC_MPI(MPI_Wait(&q_, MPI_STATUS_IGNORE));                                                                  \
        } else {                                                                                                       \
            LC_MPI(MPI_##P(__VA_ARGS__, MPI_INFO_NULL, &q_));                                                          \
            for (int k_ = 0; k_ < 1 + twice; k_++) {                                                                   \
                LC_MPI(MPI_Start(&q_));                                                                                \
                LC_MPI(MPI_Wait(&q_, MPI_STATUS_IGNORE));                                                              \
            }                                                                                                          \
            LC_MPI(MPI_Request_free(&q_));                                                                             \
        }                                                                                                              \
    } while (0)

static double val(int s, int d, int e)
{
    return s * 1000 + d * 10 + e;
}

static void one(MPI_Comm comm, int wide, int in_place)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    char *sb = lc_malloc((size_t)p * SLOT), *rb = lc_malloc((size_t)p * SLOT);
    int *sc = lc_malloc(sizeof(int) * (size_t)p), *rc = lc_malloc(sizeof(int) * (size_t)p);
    int *sd = lc_malloc(sizeof(int) * (size_t)p), *rd = lc_malloc(sizeof(int) * (size_t)p);
    MPI_Count *wsc = lc_malloc(sizeof(MPI_Count) * (size_t)p), *wrc = lc_malloc(sizeof(MPI_Count) * (size_t)p);
    MPI_Aint *wsd = lc_malloc(sizeof(MPI_Aint) * (size_t)p), *wrd = lc_malloc(sizeof(MPI_Aint) * (size_t)p);
    MPI_Datatype *st = lc_malloc(sizeof(MPI_Datatype) * (size_t)p), *rt = lc_malloc(sizeof(MPI_Datatype) * (size_t)p);
    memset(rb, 0xff, (size_t)p * SLOT);
    for (int j = 0; j < p; j++) {
        /* to j: type by j's parity; count (r + j) % 3 (0 allowed) */
        sc[j] = wsc[j] = in_place ? (r + j) % 3 : (r + j) % 3;
        sd[j] = wsd[j] = SLOT * (p - 1 - j);
        st[j] = j % 2 ? MPI_DOUBLE : MPI_INT;
        rc[j] = wrc[j] = (j + r) % 3;
        rd[j] = wrd[j] = SLOT * (p - 1 - j) + 8;
        rt[j] = r % 2 ? MPI_DOUBLE : MPI_INT;
        for (int e = 0; e < sc[j]; e++) {
            if (j % 2)
                ((double *)(sb + sd[j]))[e] = val(r, j, e);
            else
                ((int *)(sb + sd[j]))[e] = (int)val(r, j, e);
        }
    }
    if (in_place) {
        /* the send block for j is the receive block for j: same type
         * both ways only when r and j agree in parity, so use r's type */
        for (int j = 0; j < p; j++) {
            rt[j] = MPI_DOUBLE;
            for (int e = 0; e < rc[j]; e++) ((double *)(rb + rd[j]))[e] = val(r, j, e);
        }
        twice = 0;
        if (wide)
            AW(Alltoallw_c, Ialltoallw_c, Alltoallw_init_c, MPI_IN_PLACE, NULL, NULL, NULL, rb, wrc, wrd, rt, comm);
        else
            AW(Alltoallw, Ialltoallw, Alltoallw_init, MPI_IN_PLACE, NULL, NULL, NULL, rb, rc, rd, rt, comm);
        twice = 1;
    } else if (wide) {
        AW(Alltoallw_c, Ialltoallw_c, Alltoallw_init_c, sb, wsc, wsd, st, rb, wrc, wrd, rt, comm);
    } else {
        AW(Alltoallw, Ialltoallw, Alltoallw_init, sb, sc, sd, st, rb, rc, rd, rt, comm);
    }
    for (int i = 0; i < p; i++)
        for (int e = 0; e < rc[i]; e++) {
            double got = rt[i] == MPI_DOUBLE ? ((double *)(rb + rd[i]))[e] : ((int *)(rb + rd[i]))[e];
            LC_CHECK(got == val(i, r, e), "Alltoallw%s%s: rank %d from %d [%d] = %g, expected %g", wide ? "_c" : "",
                     in_place ? " in place" : "", r, i, e, got, val(i, r, e));
        }
    free(sb), free(rb), free(sc), free(rc), free(sd), free(rd);
    free(wsc), free(wrc), free(wsd), free(wrd), free(st), free(rt);
}

/* MPI_BOTTOM with absolute addresses as send displacements (the receive
 * side is a buffer: MPICH 4.0.2 calls two MPI_BOTTOM buffers aliased):
 * every rank sends its rank + 100 * dest to each. */
static void bottom(MPI_Comm comm)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int *s = lc_malloc(sizeof(int) * (size_t)p), *d = lc_malloc(sizeof(int) * (size_t)p);
    int *cnt = lc_malloc(sizeof(int) * (size_t)p), *sa = lc_malloc(sizeof(int) * (size_t)p);
    int *ra = lc_malloc(sizeof(int) * (size_t)p);
    MPI_Datatype *t = lc_malloc(sizeof(MPI_Datatype) * (size_t)p);
    for (int j = 0; j < p; j++) {
        MPI_Aint a;
        s[j] = r + 100 * j;
        d[j] = -1;
        cnt[j] = 1;
        t[j] = MPI_INT;
        MPI_Get_address(&s[j], &a);
        sa[j] = (int)a;
        ra[j] = (int)sizeof(int) * j;
        if ((MPI_Aint)sa[j] != a) sa[j] = -1; /* an address beyond int */
    }
    int fits = 1;
    for (int j = 0; j < p; j++) fits &= sa[j] != -1;
    int all_fit;
    MPI_Allreduce(&fits, &all_fit, 1, MPI_INT, MPI_MIN, comm);
    if (all_fit) { /* int displacements hold these addresses (the _c form below always does) */
        AW(Alltoallw, Ialltoallw, Alltoallw_init, MPI_BOTTOM, cnt, sa, t, d, cnt, ra, t, comm);
        for (int i = 0; i < p; i++) LC_CHECK(d[i] == i + 100 * r, "Alltoallw(MPI_BOTTOM): from %d got %d", i, d[i]);
    }
    MPI_Count *wc = lc_malloc(sizeof(MPI_Count) * (size_t)p);
    MPI_Aint *ws = lc_malloc(sizeof(MPI_Aint) * (size_t)p), *wr = lc_malloc(sizeof(MPI_Aint) * (size_t)p);
    for (int j = 0; j < p; j++) {
        d[j] = -1;
        wc[j] = 1;
        MPI_Get_address(&s[j], &ws[j]);
        wr[j] = (MPI_Aint)sizeof(int) * j;
    }
    AW(Alltoallw_c, Ialltoallw_c, Alltoallw_init_c, MPI_BOTTOM, wc, ws, t, d, wc, wr, t, comm);
    for (int i = 0; i < p; i++) LC_CHECK(d[i] == i + 100 * r, "Alltoallw_c(MPI_BOTTOM): from %d got %d", i, d[i]);
    free(s), free(d), free(cnt), free(sa), free(ra), free(t), free(wc), free(ws), free(wr);
}

/* Derived types: to peer j, 1 + (r + j) % 2 items of a type chosen by
 * j % 3 (a vector, a struct, an indexed type: 2 ints each, with holes),
 * from a slot of 64 bytes per peer in reverse order; received as 2 ints
 * per item of a resized int (one int in every two).  In place: the
 * receive blocks (resized ints) are also the send blocks. */
static MPI_Datatype dvec, dstruct, didx, drsz;

static void make_types(void)
{
    LC_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &dvec)); /* ints 0, 2 */
    int bl[2] = { 1, 1 };
    MPI_Aint dp[2] = { 0, 8 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT };
    LC_MPI(MPI_Type_create_struct(2, bl, dp, ty, &dstruct)); /* ints 0, 2 */
    int ibl[2] = { 1, 1 }, idp[2] = { 0, 3 };
    LC_MPI(MPI_Type_indexed(2, ibl, idp, MPI_INT, &didx)); /* ints 0, 3 */
    LC_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &drsz));
    LC_MPI(MPI_Type_commit(&dvec));
    LC_MPI(MPI_Type_commit(&dstruct));
    LC_MPI(MPI_Type_commit(&didx));
    LC_MPI(MPI_Type_commit(&drsz));
}

#define DSLOT 64
#define DHOLE (-5)

static void derived(MPI_Comm comm, int wide, int in_place)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int *sb = lc_malloc((size_t)p * DSLOT), *rb = lc_malloc((size_t)p * DSLOT);
    int *sc = lc_malloc(sizeof(int) * (size_t)p), *rc = lc_malloc(sizeof(int) * (size_t)p);
    int *sd = lc_malloc(sizeof(int) * (size_t)p), *rd = lc_malloc(sizeof(int) * (size_t)p);
    MPI_Count *wsc = lc_malloc(sizeof(MPI_Count) * (size_t)p), *wrc = lc_malloc(sizeof(MPI_Count) * (size_t)p);
    MPI_Aint *wsd = lc_malloc(sizeof(MPI_Aint) * (size_t)p), *wrd = lc_malloc(sizeof(MPI_Aint) * (size_t)p);
    MPI_Datatype *st = lc_malloc(sizeof(MPI_Datatype) * (size_t)p), *rt = lc_malloc(sizeof(MPI_Datatype) * (size_t)p);
    const int per = DSLOT / (int)sizeof(int);
    for (int k = 0; k < p * per; k++) sb[k] = rb[k] = DHOLE;
    static const int at[3][2] = { { 0, 2 }, { 0, 2 }, { 0, 3 } }; /* int positions of an item's 2 ints */
    static const int ext[3] = { 3, 3, 4 };                        /* extents in ints */
    for (int j = 0; j < p; j++) {
        int items = 1 + (r + j) % 2, kind = j % 3;
        sc[j] = wsc[j] = items;
        sd[j] = wsd[j] = DSLOT * (p - 1 - j);
        st[j] = kind == 0 ? dvec : kind == 1 ? dstruct : didx;
        for (int it = 0; it < items; it++)
            for (int e = 0; e < 2; e++)
                sb[per * (p - 1 - j) + ext[kind] * it + at[kind][e]] = (int)val(r, j, 2 * it + e);
        rc[j] = wrc[j] = 2 * items; /* from j: as many items as j sends to r */
        rd[j] = wrd[j] = DSLOT * j;
        rt[j] = drsz;
        if (in_place)
            for (int e = 0; e < 2 * items; e++) rb[per * j + 2 * e] = (int)val(r, j, e);
    }
    if (in_place) {
        twice = 0;
        if (wide)
            AW(Alltoallw_c, Ialltoallw_c, Alltoallw_init_c, MPI_IN_PLACE, NULL, NULL, NULL, rb, wrc, wrd, rt, comm);
        else
            AW(Alltoallw, Ialltoallw, Alltoallw_init, MPI_IN_PLACE, NULL, NULL, NULL, rb, rc, rd, rt, comm);
        twice = 1;
    } else if (wide) {
        AW(Alltoallw_c, Ialltoallw_c, Alltoallw_init_c, sb, wsc, wsd, st, rb, wrc, wrd, rt, comm);
    } else {
        AW(Alltoallw, Ialltoallw, Alltoallw_init, sb, sc, sd, st, rb, rc, rd, rt, comm);
    }
    for (int i = 0; i < p; i++)
        for (int k = 0; k < per; k++) {
            int e = k / 2, want = (k % 2 == 0 && e < rc[i]) ? (int)val(i, r, e) : DHOLE;
            if (rb[per * i + k] != want) {
                LC_CHECK(0, "Alltoallw%s%s derived: rank %d from %d int %d = %d, expected %d", wide ? "_c" : "",
                         in_place ? " in place" : "", r, i, k, rb[per * i + k], want);
                break;
            }
        }
    free(sb), free(rb), free(sc), free(rc), free(sd), free(rd);
    free(wsc), free(wrc), free(wsd), free(wrd), free(st), free(rt);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "nb") == 0) mode = 1;
        if (strcmp(argv[i], "pers") == 0) mode = 2;
    }
    make_types();
    MPI_Comm half;
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    for (int wide = 0; wide < 2; wide++)
        for (int in_place = 0; in_place < 2; in_place++) {
            one(MPI_COMM_WORLD, wide, in_place);
            one(half, wide, in_place);
            derived(MPI_COMM_WORLD, wide, in_place);
            derived(half, wide, in_place);
        }
    bottom(MPI_COMM_WORLD);
    bottom(half);
    LC_MPI(MPI_Comm_free(&half));
    LC_MPI(MPI_Type_free(&dvec));
    LC_MPI(MPI_Type_free(&dstruct));
    LC_MPI(MPI_Type_free(&didx));
    LC_MPI(MPI_Type_free(&drsz));
    return lc_finish();
}
