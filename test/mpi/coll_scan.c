/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_scan: MPI_Scan (inclusive) and MPI_Exscan (exclusive prefix
 * reduction) with every predefined op on every C type it applies to, on
 * world, reversed world and odd-sized split communicators, counts 0, 1,
 * 7 and 500, with and without MPI_IN_PLACE.  Rank r of the communicator
 * must get the reduction over ranks 0..r (Scan) or 0..r-1 (Exscan; rank
 * 0's result is undefined and not checked). */
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
        int q = 0;
        for (int ti = 0; ti < LC_NTYPES; ti++)
            for (int op = 0; op < LC_NOPS; op++) {
                const lc_type *t = &lc_types[ti];
                if (!lc_op_applies(op, t->kind))
                    continue;
                q++;
                int count = q % 5 == 0 ? 500 : q % 5 == 1 ? 1 : q % 11 == 3 ? 0 : 7;
                int ex = (q + ci) % 2, inplace = (q / 2 + ci) % 2;
                size_t bytes = t->extent * (size_t)(count ? count : 1);
                unsigned char *in = lc_malloc(bytes), *out = lc_malloc(bytes);
                memset(out, 0, bytes);
                lc_red_fill(t, op, in, count, r, 0);
                const void *sbuf = in;
                if (inplace) {
                    memcpy(out, in, bytes);
                    sbuf = MPI_IN_PLACE;
                }
                snprintf(what, sizeof what, "%s%s on %s rank %d (count %d)",
                         ex ? "MPI_Exscan" : "MPI_Scan", inplace ? " in place" : "", cnames[ci], r,
                         count);
                if (ex) {
                    LC_MPI(MPI_Exscan(sbuf, out, count, t->dt, lc_ops[op].op, comm));
                    if (r > 0)
                        LC_RED_CHECK(t, op, out, count, 0, r, 0, what);
                } else {
                    LC_MPI(MPI_Scan(sbuf, out, count, t->dt, lc_ops[op].op, comm));
                    LC_RED_CHECK(t, op, out, count, 0, r + 1, 0, what);
                }
                free(in);
                free(out);
            }
    }
    lc_free_comms(comms, ncomms);
    return lc_finish();
}
