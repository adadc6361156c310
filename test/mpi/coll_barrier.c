/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_barrier: no rank leaves MPI_Barrier before every rank of the
 * communicator entered it.  Ranks enter at staggered times (rank r waits
 * 15*r ms); each records its entry and exit on CLOCK_MONOTONIC (one
 * system-wide clock: all ranks run on this host) and after an Allgather
 * of the entry times checks exit >= the latest entry.  On world,
 * reversed world, odd-sized splits and MPI_COMM_SELF, repeatedly. */
#include "lc_types.h"
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int quick = lc_quick_arg(argc, argv);
    MPI_Comm comms[5];
    const char *cnames[5];
    int ncomms = lc_test_comms(comms, cnames, quick);
    comms[ncomms] = MPI_COMM_SELF; /* after the ones lc_free_comms frees */
    cnames[ncomms] = "MPI_COMM_SELF";

    for (int ci = 0; ci <= ncomms; ci++) {
        MPI_Comm comm = comms[ci];
        int r, n;
        LC_MPI(MPI_Comm_rank(comm, &r));
        LC_MPI(MPI_Comm_size(comm, &n));
        double *enter = lc_malloc(sizeof(double) * (size_t)n);
        for (int rep = 0; rep < 3; rep++) {
            /* the late rank differs each repetition */
            nap_ms(15 * ((r + rep) % n));
            double t_in = now();
            LC_MPI(MPI_Barrier(comm));
            double t_out = now();
            LC_MPI(MPI_Allgather(&t_in, 1, MPI_DOUBLE, enter, 1, MPI_DOUBLE, comm));
            double last = enter[0];
            for (int i = 1; i < n; i++)
                if (enter[i] > last)
                    last = enter[i];
            LC_CHECK(t_out >= last, "%s repetition %d: rank %d left MPI_Barrier %.6f s before "
                     "the last rank entered", cnames[ci], rep, r, last - t_out);
        }
        /* many in a row */
        for (int k = 0; k < (quick ? 10 : 50); k++)
            LC_MPI(MPI_Barrier(comm));
        free(enter);
    }
    lc_free_comms(comms, ncomms);
    return lc_finish();
}
