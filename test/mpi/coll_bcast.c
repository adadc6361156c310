/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_bcast: MPI_Bcast of every predefined C datatype from a rotating
 * root on world, reversed world and odd-sized split communicators,
 * counts 0, 1, 7 and 1000; then every root in turn with a 1 MiB message
 * (pipelined/large algorithms; quick beyond 8 ranks: four roots), and back-to-back broadcasts from
 * different roots without synchronisation in between. */
#include "lc_types.h"

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int quick = lc_quick_arg(argc, argv);
    MPI_Comm comms[4];
    const char *cnames[4];
    int ncomms = lc_test_comms(comms, cnames, quick);
    char what[160];
    static const int counts[] = {0, 1, 7, 1000};

    for (int ci = 0; ci < ncomms; ci++) {
        MPI_Comm comm = comms[ci];
        int r, n;
        LC_MPI(MPI_Comm_rank(comm, &r));
        LC_MPI(MPI_Comm_size(comm, &n));
        for (int ti = 0; ti < LC_NTYPES; ti++) {
            const lc_type *t = &lc_types[ti];
            int count = counts[(ti + ci) % 4], root = (ti + ci) % n;
            size_t bytes = t->extent * (size_t)(count + 1);
            unsigned char *buf = lc_malloc(bytes);
            memset(buf, 0xEE, bytes);
            if (r == root)
                lc_fill(t, buf, count, root, ti);
            LC_MPI(MPI_Bcast(buf, count, t->dt, root, comm));
            snprintf(what, sizeof what, "MPI_Bcast on %s from root %d (count %d) at rank %d",
                     cnames[ci], root, count, r);
            LC_CHECK_BLOCK(t, buf, count, root, ti, what);
            /* nothing written past count elements */
            for (size_t b = (size_t)count * t->extent; b < bytes; b++)
                if (buf[b] != 0xEE) {
                    LC_CHECK(0, "%s %s wrote past the buffer", what, t->name);
                    break;
                }
            free(buf);
        }

        /* 1 MiB from every root; quick, beyond 8 ranks: from four (first,
         * second, middle, last).  Every root is n x 1 MiB to move and to
         * check, n^2 MiB in all: 4 GiB at 64 ranks on 2 cores (most of
         * this program's 87 s there), 64 GiB at 256. */
        enum { BIG = 1 << 20 };
        unsigned char *big = lc_malloc(BIG);
        for (int root = 0; root < n; root++) {
            if (quick && n > 8 && root > 1 && root != n / 2 && root != n - 1) continue;
            const lc_type *t = lc_find_type(MPI_INT);
            int cnt = BIG / (int)sizeof(int);
            if (r == root)
                lc_fill(t, big, cnt, root, 7);
            else
                memset(big, 0, BIG);
            LC_MPI(MPI_Bcast(big, cnt, MPI_INT, root, comm));
            snprintf(what, sizeof what, "1 MiB MPI_Bcast on %s from root %d at rank %d",
                     cnames[ci], root, r);
            LC_CHECK_BLOCK(t, big, cnt, root, 7, what);
        }
        free(big);

        /* several broadcasts in flight from different roots */
        int vals[8];
        for (int k = 0; k < 8; k++)
            vals[k] = r == k % n ? lc_pattern(k % n, k, 0) : -1;
        for (int k = 0; k < 8; k++)
            LC_MPI(MPI_Bcast(&vals[k], 1, MPI_INT, k % n, comm));
        for (int k = 0; k < 8; k++)
            LC_CHECK(vals[k] == lc_pattern(k % n, k, 0), "back-to-back MPI_Bcast %d on %s: got %d, "
                     "expected %d", k, cnames[ci], vals[k], lc_pattern(k % n, k, 0));
    }
    lc_free_comms(comms, ncomms);
    return lc_finish();
}
