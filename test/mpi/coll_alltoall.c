/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_alltoall: MPI_Alltoall and MPI_Alltoallv of every predefined C
 * datatype on world, reversed world and odd-sized split communicators.
 * Rank r's block for rank j carries (owner r, positions starting at
 * 1000*j), so a block delivered to the wrong rank or from the wrong
 * sender is caught.  Alltoall: c = 0, 1, 5 or 300 per pair; Alltoallv:
 * counts depending on both ranks (some 0), displacements with gaps that
 * must stay untouched.  Half of the calls use MPI_IN_PLACE (Alltoallv
 * in place with symmetric counts, as MPI requires). */
#include "lc_types.h"

#define GAP 2

/* elements rank a sends to rank b in round ti; symmetric when sym */
static int vcount(int a, int b, int ti, int sym)
{
    int x = sym ? (a + b + ti) % 4 : (a + 2 * b + ti) % 4;
    return x == 3 ? 0 : x + (ti % 5 == 3 ? 100 : 0);
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int quick = lc_quick_arg(argc, argv);
    MPI_Comm comms[4];
    const char *cnames[4];
    int ncomms = lc_test_comms(comms, cnames, quick);
    char what[200];
    static const int cs[] = {0, 1, 5, 300};

    for (int ci = 0; ci < ncomms; ci++) {
        MPI_Comm comm = comms[ci];
        int r, n;
        LC_MPI(MPI_Comm_rank(comm, &r));
        LC_MPI(MPI_Comm_size(comm, &n));
        size_t ns = (size_t)n;
        int *scounts = lc_malloc(sizeof(int) * ns), *sdispls = lc_malloc(sizeof(int) * ns);
        int *rcounts = lc_malloc(sizeof(int) * ns), *rdispls = lc_malloc(sizeof(int) * ns);
        for (int ti = 0; ti < LC_NTYPES; ti++) {
            const lc_type *t = &lc_types[ti];
            size_t ext = t->extent;
            int inplace = (ti / 2 + ci) % 2;

            int c = cs[(ti + ci) % 4];
            unsigned char *sb = lc_malloc(ext * (size_t)(n * c + 1));
            unsigned char *rb = lc_malloc(ext * (size_t)(n * c + 1));
            for (int j = 0; j < n; j++)
                lc_fill(t, (inplace ? rb : sb) + ext * (size_t)(j * c), c, r, 1000L * j);
            if (!inplace)
                memset(rb, 0xEE, ext * (size_t)(n * c + 1));
            snprintf(what, sizeof what, "MPI_Alltoall%s on %s (count %d) at rank %d",
                     inplace ? " in place" : "", cnames[ci], c, r);
            if (inplace)
                LC_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, c, t->dt, comm));
            else
                LC_MPI(MPI_Alltoall(sb, c, t->dt, rb, c, t->dt, comm));
            for (int i = 0; i < n; i++)
                LC_CHECK_BLOCK(t, rb + ext * (size_t)(i * c), c, i, 1000L * r, what);
            free(sb);
            free(rb);

            int stotal = 0, rtotal = 0;
            for (int j = 0; j < n; j++) {
                scounts[j] = vcount(r, j, ti, inplace);
                sdispls[j] = stotal + GAP;
                stotal = sdispls[j] + scounts[j];
                rcounts[j] = vcount(j, r, ti, inplace);
                rdispls[j] = rtotal + GAP;
                rtotal = rdispls[j] + rcounts[j];
            }
            rtotal += GAP;
            sb = lc_malloc(ext * (size_t)(stotal + 1));
            rb = lc_malloc(ext * (size_t)(rtotal + 1));
            memset(rb, 0xEE, ext * (size_t)(rtotal + 1));
            for (int j = 0; j < n; j++) {
                if (inplace) /* data for j sits where j's data will arrive */
                    lc_fill(t, rb + ext * (size_t)rdispls[j], rcounts[j], r, 1000L * j + 5);
                else
                    lc_fill(t, sb + ext * (size_t)sdispls[j], scounts[j], r, 1000L * j + 5);
            }
            snprintf(what, sizeof what, "MPI_Alltoallv%s on %s at rank %d",
                     inplace ? " in place" : "", cnames[ci], r);
            if (inplace)
                LC_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb, rcounts,
                                     rdispls, t->dt, comm));
            else
                LC_MPI(MPI_Alltoallv(sb, scounts, sdispls, t->dt, rb, rcounts, rdispls, t->dt,
                                     comm));
            for (int i = 0; i < n; i++)
                LC_CHECK_BLOCK(t, rb + ext * (size_t)rdispls[i], rcounts[i], i, 1000L * r + 5,
                               what);
            lc_check_gaps(rb, rcounts, rdispls, n, ext, (size_t)rtotal, what);
            free(sb);
            free(rb);
        }
        free(scounts);
        free(sdispls);
        free(rcounts);
        free(rdispls);
    }
    lc_free_comms(comms, ncomms);
    return lc_finish();
}
