/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_alltoallw: MPI_Alltoallw and MPI_Alltoallw_c on intracommunicators
 * with a different count, byte displacement and predefined datatype per
 * peer (ints to even ranks, doubles to odd ones, count 1 + (i+j) % 3),
 * blocks in reverse order in the buffers; zero-count blocks; MPI_IN_PLACE;
 * MPI_BOTTOM with absolute addresses; and the same on a split communicator. */
#include "lc_test.h"

#include <stdlib.h>

#define SLOT 48 /* bytes per block slot: room for 3 doubles + a gap */

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
        if (wide)
            LC_MPI(MPI_Alltoallw_c(MPI_IN_PLACE, NULL, NULL, NULL, rb, wrc, wrd, rt, comm));
        else
            LC_MPI(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rb, rc, rd, rt, comm));
    } else if (wide) {
        LC_MPI(MPI_Alltoallw_c(sb, wsc, wsd, st, rb, wrc, wrd, rt, comm));
    } else {
        LC_MPI(MPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm));
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
        LC_MPI(MPI_Alltoallw(MPI_BOTTOM, cnt, sa, t, d, cnt, ra, t, comm));
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
    LC_MPI(MPI_Alltoallw_c(MPI_BOTTOM, wc, ws, t, d, wc, wr, t, comm));
    for (int i = 0; i < p; i++) LC_CHECK(d[i] == i + 100 * r, "Alltoallw_c(MPI_BOTTOM): from %d got %d", i, d[i]);
    free(s), free(d), free(cnt), free(sa), free(ra), free(t), free(wc), free(ws), free(wr);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int rank, size;
    LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm half;
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    for (int wide = 0; wide < 2; wide++)
        for (int in_place = 0; in_place < 2; in_place++) {
            one(MPI_COMM_WORLD, wide, in_place);
            one(half, wide, in_place);
        }
    bottom(MPI_COMM_WORLD);
    bottom(half);
    LC_MPI(MPI_Comm_free(&half));
    return lc_finish();
}
