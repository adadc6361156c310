/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_reduce: MPI_Reduce and MPI_Allreduce with every predefined op on
 * every predefined C type it applies to (MAXLOC/MINLOC on the pair
 * types), on world, reversed world and odd-sized split communicators.
 * Each (type, op) runs as Reduce on some communicators and Allreduce on
 * the others, in place (MPI_IN_PLACE) on half of them, with the root
 * rotating and counts 0, 1, 7 and 1000.  Results are checked exactly. */
#include "lc_types.h"

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int quick = lc_quick_arg(argc, argv);
    MPI_Comm comms[4];
    const char *cnames[4];
    int ncomms = lc_test_comms(comms, cnames, quick);
    char what[160];
    /* MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at a non-zero
     * root for large counts (its reduce-scatter/gather algorithm): that
     * combination is run without MPI_IN_PLACE when validating on MPICH */
    int mpich = lc_library_is_mpich();

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
                int count = q % 5 == 0 ? 1000 : q % 5 == 1 ? 1 : q % 11 == 3 ? 0 : 7;
                int all = (q + ci) % 2, inplace = (q / 2 + ci) % 2, root = q % n;
                if (mpich && !all && root != 0 && count >= 1000)
                    inplace = 0;
                size_t bytes = t->extent * (size_t)(count ? count : 1);
                unsigned char *in = lc_malloc(bytes), *out = lc_malloc(bytes);
                memset(out, 0, bytes);
                lc_red_fill(t, op, in, count, r, 0);
                snprintf(what, sizeof what, "%s%s on %s (root %d, count %d)",
                         all ? "MPI_Allreduce" : "MPI_Reduce", inplace ? " in place" : "",
                         cnames[ci], root, count);
                if (all) {
                    if (inplace) {
                        memcpy(out, in, bytes);
                        LC_MPI(MPI_Allreduce(MPI_IN_PLACE, out, count, t->dt, lc_ops[op].op, comm));
                    } else {
                        LC_MPI(MPI_Allreduce(in, out, count, t->dt, lc_ops[op].op, comm));
                    }
                    LC_RED_CHECK(t, op, out, count, 0, n, 0, what);
                } else {
                    if (inplace && r == root) {
                        memcpy(out, in, bytes);
                        LC_MPI(MPI_Reduce(MPI_IN_PLACE, out, count, t->dt, lc_ops[op].op, root,
                                          comm));
                    } else {
                        LC_MPI(MPI_Reduce(in, out, count, t->dt, lc_ops[op].op, root, comm));
                    }
                    if (r == root)
                        LC_RED_CHECK(t, op, out, count, 0, n, 0, what);
                }
                /* the send buffer is input only */
                if (!inplace || (!all && r != root)) {
                    unsigned char *chk = lc_malloc(bytes);
                    lc_red_fill(t, op, chk, count, r, 0);
                    for (int j = 0; j < count; j++)
                        if (!lc_val_eq(t->get(chk, j), t->get(in, j))) {
                            LC_CHECK(0, "%s %s %s modified the send buffer", what,
                                     lc_ops[op].name, t->name);
                            break;
                        }
                    free(chk);
                }
                free(in);
                free(out);
            }
    }
    lc_free_comms(comms, ncomms);
    return lc_finish();
}
