/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_gather: MPI_Gather and MPI_Gatherv of every predefined C datatype
 * to a rotating root on world, reversed world and odd-sized split
 * communicators.  Gather: c elements per rank (c = 0, 1, 5 or 300);
 * Gatherv: uneven counts (some 0) placed at displacements with gaps that
 * must stay untouched.  Half of the calls use MPI_IN_PLACE at the root. */
#include "lc_types.h"

#define GAP 2

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int quick = lc_quick_arg(argc, argv);
    MPI_Comm comms[4];
    const char *cnames[4];
    int ncomms = lc_test_comms(comms, cnames, quick);
    char what[200];
    static const int cs[] = {0, 1, 5, 300};
    /* MPICH 4.0.2's binomial MPI_Gather fails ("Message truncated") for
     * 300 elements of a padded pair type (e.g. MPI_LONG_INT) on 8 ranks:
     * when validating on MPICH those Gathers use 5 elements */
    int mpich = lc_library_is_mpich();

    for (int ci = 0; ci < ncomms; ci++) {
        MPI_Comm comm = comms[ci];
        int r, n;
        LC_MPI(MPI_Comm_rank(comm, &r));
        LC_MPI(MPI_Comm_size(comm, &n));
        int *counts = lc_malloc(sizeof(int) * (size_t)n), *displs = lc_malloc(sizeof(int) * (size_t)n);
        for (int ti = 0; ti < LC_NTYPES; ti++) {
            const lc_type *t = &lc_types[ti];
            size_t ext = t->extent;
            int root = (ti + ci) % n, inplace = (ti / 2 + ci) % 2;

            /* Gather */
            int c = cs[(ti + ci) % 4];
            if (mpich && t->kind == LC_K_PAIR && n > 4 && c > 5)
                c = 5;
            unsigned char *sb = lc_malloc(ext * (size_t)(c + 1));
            unsigned char *rb = lc_malloc(ext * (size_t)(n * c + 1));
            lc_fill(t, sb, c, r, 0);
            memset(rb, 0xEE, ext * (size_t)(n * c + 1));
            snprintf(what, sizeof what, "MPI_Gather%s on %s to root %d (count %d) %s",
                     inplace ? " in place" : "", cnames[ci], root, c, t->name);
            if (r == root && inplace) {
                lc_fill(t, rb + ext * (size_t)(r * c), c, r, 0);
                LC_MPI(MPI_Gather(MPI_IN_PLACE, c, t->dt, rb, c, t->dt, root, comm));
            } else {
                LC_MPI(MPI_Gather(sb, c, t->dt, rb, c, t->dt, root, comm));
            }
            if (r == root)
                for (int i = 0; i < n; i++)
                    LC_CHECK_BLOCK(t, rb + ext * (size_t)(i * c), c, i, 0, what);
            free(sb);
            free(rb);

            /* Gatherv: rank i contributes (i + ti) % 4 (+ 200 for some
             * types) elements at displacement sum(previous) + GAP*(i+1) */
            int total = 0;
            for (int i = 0; i < n; i++) {
                counts[i] = (i + ti) % 4 + (ti % 5 == 0 ? 200 : 0);
                if ((i + ti) % 4 == 0)
                    counts[i] = 0;
                displs[i] = total + GAP * (i + 1);
                total = displs[i] + counts[i];
            }
            total += GAP;
            sb = lc_malloc(ext * (size_t)(counts[r] + 1));
            rb = lc_malloc(ext * (size_t)total);
            lc_fill(t, sb, counts[r], r, 50);
            memset(rb, 0xEE, ext * (size_t)total);
            snprintf(what, sizeof what, "MPI_Gatherv%s on %s to root %d %s",
                     inplace ? " in place" : "", cnames[ci], root, t->name);
            if (r == root && inplace) {
                lc_fill(t, rb + ext * (size_t)displs[r], counts[r], r, 50);
                LC_MPI(MPI_Gatherv(MPI_IN_PLACE, counts[r], t->dt, rb, counts, displs, t->dt, root,
                                   comm));
            } else {
                LC_MPI(MPI_Gatherv(sb, counts[r], t->dt, rb, counts, displs, t->dt, root, comm));
            }
            if (r == root) {
                for (int i = 0; i < n; i++)
                    LC_CHECK_BLOCK(t, rb + ext * (size_t)displs[i], counts[i], i, 50, what);
                lc_check_gaps(rb, counts, displs, n, ext, (size_t)total, what);
            }
            free(sb);
            free(rb);
        }
        free(counts);
        free(displs);
    }
    lc_free_comms(comms, ncomms);
    return lc_finish();
}
