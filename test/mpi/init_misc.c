/* SPDX-License-Identifier: BSD-3-Clause */
/* init_misc: environment queries around MPI_Init/MPI_Finalize.
 * Initialized/Finalized before, during and after; Get_version and
 * Get_library_version (both callable before Init); Query_thread and
 * Is_thread_main after MPI_Init; Get_processor_name; Comm_rank/size of
 * WORLD and SELF; Wtime (monotonic, agrees with the OS clock) and Wtick. */
#include "lc_test.h"
#include <time.h>

static double os_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check_version_queries(const char *when)
{
    int version = -1, subversion = -1, len = -1;
    LC_MPI(MPI_Get_version(&version, &subversion));
#ifdef LOCUS_MPI
    LC_CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
             "%s: MPI_Get_version gave %d.%d, mpi.h says %d.%d", when, version, subversion,
             MPI_VERSION, MPI_SUBVERSION);
#else
    /* Built against another MPI's mpi.h (ABI test): the library running
     * may implement a later version of the standard than the header. */
    LC_CHECK(version > MPI_VERSION || (version == MPI_VERSION && subversion >= MPI_SUBVERSION),
             "%s: MPI_Get_version gave %d.%d, older than mpi.h's %d.%d", when, version, subversion,
             MPI_VERSION, MPI_SUBVERSION);
#endif

    static char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    memset(lib, 'x', sizeof lib);
    LC_MPI(MPI_Get_library_version(lib, &len));
    LC_CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING,
             "%s: MPI_Get_library_version length %d not in (0, %d)", when, len,
             MPI_MAX_LIBRARY_VERSION_STRING);
    if (len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING)
        LC_CHECK(lib[len] == '\0' && (int)strlen(lib) == len,
                 "%s: MPI_Get_library_version string not terminated at its length %d", when, len);
}

int main(int argc, char **argv)
{
    int flag = -1;

    LC_MPI(MPI_Initialized(&flag));
    LC_CHECK(flag == 0, "MPI_Initialized before MPI_Init gave %d", flag);
    flag = -1;
    LC_MPI(MPI_Finalized(&flag));
    LC_CHECK(flag == 0, "MPI_Finalized before MPI_Init gave %d", flag);
    check_version_queries("before MPI_Init");

    LC_MPI(MPI_Init(&argc, &argv));

    flag = -1;
    LC_MPI(MPI_Initialized(&flag));
    LC_CHECK(flag == 1, "MPI_Initialized after MPI_Init gave %d", flag);
    flag = -1;
    LC_MPI(MPI_Finalized(&flag));
    LC_CHECK(flag == 0, "MPI_Finalized after MPI_Init gave %d", flag);
    check_version_queries("after MPI_Init");

    int rank = -1, size = -1;
    LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    LC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    LC_CHECK(size >= 1 && rank >= 0 && rank < size, "world rank %d size %d", rank, size);
    int srank = -1, ssize = -1;
    LC_MPI(MPI_Comm_rank(MPI_COMM_SELF, &srank));
    LC_MPI(MPI_Comm_size(MPI_COMM_SELF, &ssize));
    LC_CHECK(srank == 0 && ssize == 1, "MPI_COMM_SELF rank %d size %d", srank, ssize);

    /* every rank has a distinct world rank: sum of ranks is known */
    int sum = -1;
    LC_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    LC_CHECK(sum == size * (size - 1) / 2, "sum of world ranks %d, expected %d", sum,
             size * (size - 1) / 2);

    int provided = -1;
    LC_MPI(MPI_Query_thread(&provided));
    LC_CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE &&
             (provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
              provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE),
             "MPI_Query_thread after MPI_Init gave %d", provided);
    flag = -1;
    LC_MPI(MPI_Is_thread_main(&flag));
    LC_CHECK(flag == 1, "MPI_Is_thread_main in the main thread gave %d", flag);

    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len = -1;
    memset(name, 'x', sizeof name);
    LC_MPI(MPI_Get_processor_name(name, &len));
    LC_CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "processor name length %d", len);
    if (len > 0 && len < MPI_MAX_PROCESSOR_NAME)
        LC_CHECK(name[len] == '\0' && (int)strlen(name) == len,
                 "processor name not terminated at its length %d", len);

    double tick = MPI_Wtick();
    LC_CHECK(tick > 0.0 && tick <= 0.01, "MPI_Wtick %g not in (0, 0.01]", tick);
    double prev = MPI_Wtime();
    for (int i = 0; i < 100000; i++) {
        double t = MPI_Wtime();
        if (t < prev) {
            LC_CHECK(0, "MPI_Wtime went backwards: %.9f after %.9f", t, prev);
            break;
        }
        prev = t;
    }
    /* Wtime measures seconds: compare a 50 ms sleep against the OS clock */
    /* the Wtime reads sit inside the OS-clock reads, so the Wtime interval
     * lies between the sleep and the OS interval whatever the load */
    double o0 = os_now(), w0 = MPI_Wtime();
    struct timespec nap = {0, 50 * 1000 * 1000};
    while (nanosleep(&nap, &nap) != 0) {
    }
    double w1 = MPI_Wtime(), o1 = os_now();
    double dw = w1 - w0, dos = o1 - o0;
    LC_CHECK(dw >= 0.05 * 0.999 && dw <= dos * 1.001 + 1e-4,
             "MPI_Wtime advanced %.6f s over a 0.05 s sleep that the OS clock timed at %.6f s",
             dw, dos);

    /* Finalize by hand to check the post-Finalize queries. */
    int total = 0;
    LC_MPI(MPI_Allreduce(&lc_errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    LC_MPI(MPI_Finalize());
    flag = -1;
    LC_MPI(MPI_Finalized(&flag));
    LC_CHECK(flag == 1, "MPI_Finalized after MPI_Finalize gave %d", flag);
    flag = -1;
    LC_MPI(MPI_Initialized(&flag));
    LC_CHECK(flag == 1, "MPI_Initialized after MPI_Finalize gave %d", flag);
    check_version_queries("after MPI_Finalize");
    total += lc_errs; /* this rank's post-Finalize failures */
    if (rank == 0)
        printf(total == 0 ? "No Errors\n" : "Found %d errors\n", total);
    return lc_errs == 0 && total == 0 ? 0 : 1;
}
