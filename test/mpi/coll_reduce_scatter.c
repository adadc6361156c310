/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_reduce_scatter: MPI_Reduce_scatter_block and MPI_Reduce_scatter
 * with every predefined op on every C type it applies to, on world,
 * reversed world and odd-sized split communicators.  Rank i gets block i
 * of the element-wise reduction; Reduce_scatter uses uneven counts
 * (some 0); half of the calls use MPI_IN_PLACE (input in the receive
 * buffer, result at its start). */
#include "lc_types.h"

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int quick = lc_quick_arg(argc, argv);
    MPI_Comm comms[4];
    const char *cnames[4];
    int ncomms = lc_test_comms(comms, cnames, quick);
    char what[160];

    for (int ci = 0; ci < ncomms; ci++) {
        MPI_Comm comm = comms[ci];
        int r, n;
        LC_MPI(MPI_Comm_rank(comm, &r));
        LC_MPI(MPI_Comm_size(comm, &n));
        int *counts = lc_malloc(sizeof(int) * (size_t)n);
        int q = 0;
        for (int ti = 0; ti < LC_NTYPES; ti++)
            for (int op = 0; op < LC_NOPS; op++) {
                const lc_type *t = &lc_types[ti];
                if (!lc_op_applies(op, t->kind))
                    continue;
                q++;
                int block = (q + ci) % 2, inplace = (q / 2 + ci) % 2;
                int total = 0, first = 0;
                for (int i = 0; i < n; i++) {
                    counts[i] = block ? (q % 4 == 0 ? 100 : 3) : (i + q) % 4 == 0 ? 0 : (i + q) % 4 + (q % 7 == 0 ? 200 : 0);
                    if (i < r)
                        first += counts[i];
                    total += counts[i];
                }
                size_t bytes = t->extent * (size_t)(total ? total : 1);
                unsigned char *in = lc_malloc(bytes), *out = lc_malloc(bytes);
                memset(out, 0, bytes);
                lc_red_fill(t, op, in, total, r, 0);
                const void *sbuf = in;
                if (inplace) {
                    memcpy(out, in, bytes);
                    sbuf = MPI_IN_PLACE;
                }
                snprintf(what, sizeof what, "%s%s on %s rank %d (my count %d)",
                         block ? "MPI_Reduce_scatter_block" : "MPI_Reduce_scatter",
                         inplace ? " in place" : "", cnames[ci], r, counts[r]);
                if (block)
                    LC_MPI(MPI_Reduce_scatter_block(sbuf, out, counts[0], t->dt, lc_ops[op].op,
                                                    comm));
                else
                    LC_MPI(MPI_Reduce_scatter(sbuf, out, counts, t->dt, lc_ops[op].op, comm));
                LC_RED_CHECK(t, op, out, counts[r], 0, n, first, what);
                free(in);
                free(out);
            }
        free(counts);
    }
    lc_free_comms(comms, ncomms);
    return lc_finish();
}
