/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_scatter: MPI_Scatter and MPI_Scatterv of every predefined C
 * datatype from a rotating root on world, reversed world and odd-sized
 * split communicators.  Scatter: c elements per rank (c = 0, 1, 5, 300);
 * Scatterv: uneven counts (some 0) taken from displacements with gaps;
 * receive buffers larger than needed are not written past the block.
 * Half of the calls use MPI_IN_PLACE as the root's receive buffer. */
#include "lc_types.h"

#define GAP 3

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
        int *counts = lc_malloc(sizeof(int) * (size_t)n), *displs = lc_malloc(sizeof(int) * (size_t)n);
        for (int ti = 0; ti < LC_NTYPES; ti++) {
            const lc_type *t = &lc_types[ti];
            size_t ext = t->extent;
            int root = (ti + 1 + ci) % n, inplace = (ti / 2 + ci) % 2;

            /* Scatter: block i is rank i's data */
            int c = cs[(ti + ci) % 4];
            unsigned char *sb = lc_malloc(ext * (size_t)(n * c + 1));
            unsigned char *rb = lc_malloc(ext * (size_t)(c + 2));
            if (r == root)
                for (int i = 0; i < n; i++)
                    lc_fill(t, sb + ext * (size_t)(i * c), c, i, 10);
            memset(rb, 0xEE, ext * (size_t)(c + 2));
            snprintf(what, sizeof what, "MPI_Scatter%s on %s from root %d (count %d) at rank %d",
                     inplace ? " in place" : "", cnames[ci], root, c, r);
            if (r == root && inplace) {
                LC_MPI(MPI_Scatter(sb, c, t->dt, MPI_IN_PLACE, c, t->dt, root, comm));
                /* the root's own block stays where it was */
                LC_CHECK_BLOCK(t, sb + ext * (size_t)(r * c), c, r, 10, what);
            } else {
                LC_MPI(MPI_Scatter(sb, c, t->dt, rb, c, t->dt, root, comm));
                LC_CHECK_BLOCK(t, rb, c, r, 10, what);
                for (size_t b = ext * (size_t)c; b < ext * (size_t)(c + 2); b++)
                    if (rb[b] != 0xEE) {
                        LC_CHECK(0, "%s %s wrote past the block", what, t->name);
                        break;
                    }
            }
            free(sb);
            free(rb);

            /* Scatterv */
            int total = 0;
            for (int i = 0; i < n; i++) {
                counts[i] = (i + 2 * ti) % 4 + (ti % 5 == 1 ? 200 : 0);
                if ((i + ti) % 3 == 0)
                    counts[i] = 0;
                displs[i] = total + GAP;
                total = displs[i] + counts[i];
            }
            sb = lc_malloc(ext * (size_t)(total + 1));
            rb = lc_malloc(ext * (size_t)(counts[r] + 2));
            if (r == root) {
                memset(sb, 0xEE, ext * (size_t)(total + 1));
                for (int i = 0; i < n; i++)
                    lc_fill(t, sb + ext * (size_t)displs[i], counts[i], i, 60);
            }
            memset(rb, 0xEE, ext * (size_t)(counts[r] + 2));
            snprintf(what, sizeof what, "MPI_Scatterv%s on %s from root %d (my count %d) at rank %d",
                     inplace ? " in place" : "", cnames[ci], root, counts[r], r);
            if (r == root && inplace) {
                LC_MPI(MPI_Scatterv(sb, counts, displs, t->dt, MPI_IN_PLACE, counts[r], t->dt, root,
                                    comm));
            } else {
                LC_MPI(MPI_Scatterv(sb, counts, displs, t->dt, rb, counts[r], t->dt, root, comm));
                LC_CHECK_BLOCK(t, rb, counts[r], r, 60, what);
                for (size_t b = ext * (size_t)counts[r]; b < ext * (size_t)(counts[r] + 2); b++)
                    if (rb[b] != 0xEE) {
                        LC_CHECK(0, "%s %s wrote past the block", what, t->name);
                        break;
                    }
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
