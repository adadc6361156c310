/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_allgather: MPI_Allgather and MPI_Allgatherv of every predefined C
 * datatype on world, reversed world and odd-sized split communicators.
 * Allgather: c elements per rank (0, 1, 5, 300); Allgatherv: uneven
 * counts (some 0) at displacements with gaps that must stay untouched.
 * Half of the calls use MPI_IN_PLACE (own block already in place). */
#include "lc_types.h"

#define GAP 1

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int quick = lc_quick_arg(argc, argv);
    MPI_Comm comms[4];
    const char *cnames[4];
    int ncomms = lc_test_comms(comms, cnames, quick);
    char what[200];
    static const int cs[] = {0, 1, 5, 300};
    /* MPICH 4.0.2's MPI_Allgatherv on a 1-process communicator ignores
     * the displacement: no gaps there when validating on MPICH */
    int mpich = lc_library_is_mpich();

    for (int ci = 0; ci < ncomms; ci++) {
        MPI_Comm comm = comms[ci];
        int r, n;
        LC_MPI(MPI_Comm_rank(comm, &r));
        LC_MPI(MPI_Comm_size(comm, &n));
        int *counts = lc_malloc(sizeof(int) * (size_t)n), *displs = lc_malloc(sizeof(int) * (size_t)n);
        int gap = mpich && n == 1 ? 0 : GAP;
        for (int ti = 0; ti < LC_NTYPES; ti++) {
            const lc_type *t = &lc_types[ti];
            size_t ext = t->extent;
            int inplace = (ti / 2 + ci) % 2;

            int c = cs[(ti + ci) % 4];
            unsigned char *sb = lc_malloc(ext * (size_t)(c + 1));
            unsigned char *rb = lc_malloc(ext * (size_t)(n * c + 1));
            lc_fill(t, sb, c, r, 20);
            memset(rb, 0xEE, ext * (size_t)(n * c + 1));
            snprintf(what, sizeof what, "MPI_Allgather%s on %s (count %d) at rank %d",
                     inplace ? " in place" : "", cnames[ci], c, r);
            if (inplace) {
                lc_fill(t, rb + ext * (size_t)(r * c), c, r, 20);
                LC_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, c, t->dt, comm));
            } else {
                LC_MPI(MPI_Allgather(sb, c, t->dt, rb, c, t->dt, comm));
            }
            for (int i = 0; i < n; i++)
                LC_CHECK_BLOCK(t, rb + ext * (size_t)(i * c), c, i, 20, what);
            free(sb);
            free(rb);

            int total = 0;
            for (int i = 0; i < n; i++) {
                counts[i] = (3 * i + ti) % 5 + (ti % 5 == 2 ? 150 : 0);
                if ((i + ti) % 4 == 1)
                    counts[i] = 0;
                displs[i] = total + gap;
                total = displs[i] + counts[i];
            }
            total += gap;
            sb = lc_malloc(ext * (size_t)(counts[r] + 1));
            rb = lc_malloc(ext * (size_t)total);
            lc_fill(t, sb, counts[r], r, 70);
            memset(rb, 0xEE, ext * (size_t)total);
            snprintf(what, sizeof what, "MPI_Allgatherv%s on %s at rank %d",
                     inplace ? " in place" : "", cnames[ci], r);
            if (inplace) {
                lc_fill(t, rb + ext * (size_t)displs[r], counts[r], r, 70);
                LC_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, counts, displs, t->dt,
                                      comm));
            } else {
                LC_MPI(MPI_Allgatherv(sb, counts[r], t->dt, rb, counts, displs, t->dt, comm));
            }
            for (int i = 0; i < n; i++)
                LC_CHECK_BLOCK(t, rb + ext * (size_t)displs[i], counts[i], i, 70, what);
            lc_check_gaps(rb, counts, displs, n, ext, (size_t)total, what);
            free(sb);
            free(rb);
        }
        free(counts);
        free(displs);
    }
    lc_free_comms(comms, ncomms);
    return lc_finish();
}
