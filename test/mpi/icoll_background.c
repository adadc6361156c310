/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * icoll_background.c — a started MPI_Iallreduce completes while every
 * rank computes without any MPI call, when the library runs an
 * asynchronous progress thread (Locus: LOCUS_ASYNC_PROGRESS=1; MPICH:
 * MPICH_ASYNC_PROGRESS=1, for validating the test).  Issue 14.
 *
 * For 8 B, 1 KiB, 64 KiB and 1 MiB (recursive doubling, with the extra
 * pairing step at 3 ranks, and the ring from 32 KiB at 3+ ranks), three
 * times each: every rank starts the Iallreduce, then spins on the clock
 * (clock_gettime, not MPI_Wtime) watching its own receive buffer until
 * the sum shows in its first and last element, or DEADLINE seconds pass.
 * Every schedule ends with a local step of the rank itself (a reduction or
 * the last receive), so without such a thread the sum never shows; the
 * buffer is only read (the library writes it), with volatile loads.  Then
 * MARGIN more seconds without MPI (the last sends' acknowledgements come
 * in the background too) and MPI_Test must report completion on its first
 * call; MPI_Wait otherwise, and the whole buffer is checked.
 *
 * With the argument "calls" the watching loop also calls MPI_Comm_rank on
 * every look: an MPI call that makes no progress must not keep the thread
 * out as if the application drove progress itself (Locus's thread stays
 * out only while the application's calls make progress passes).
 *
 * Without the thread (the variable unset) the watching is skipped and only
 * the results are checked.  With it, rank 0 prints the median time the sum
 * took to show per size (informational; the machine may be loaded).
 */
#include "lc_test.h"

#include <time.h>

#define DEADLINE 20.0
#define MARGIN 0.2
#define REPS 3

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int is_locus(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    return strstr(lib, "Locus") != NULL;
}

static int async_on(void)
{
    const char *v = getenv(is_locus() ? "LOCUS_ASYNC_PROGRESS" : "MPICH_ASYNC_PROGRESS");
    return v && (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "on") == 0 || strcmp(v, "true") == 0);
}

static volatile double sink;
static int calls_in_loop; /* argument "calls" */

/* Seconds until out[0] holds `first` and out[n-1] `last`, computing
 * between looks; a negative value when DEADLINE passed first.  The looks
 * race with the progress thread's writes on purpose (a torn or stale
 * value only means another look): ThreadSanitizer is told not to report
 * them, the library's own accesses stay checked. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LC_RACY_READS __attribute__((no_sanitize("thread")))
#endif
#endif
#if !defined(LC_RACY_READS) && defined(__SANITIZE_THREAD__)
#define LC_RACY_READS __attribute__((no_sanitize("thread")))
#endif
#ifndef LC_RACY_READS
#define LC_RACY_READS
#endif
LC_RACY_READS static double watch(const int *out, int n, int first, int last)
{
    const volatile int *v = out;
    double t0 = now(), x = 1.0, t;
    while ((t = now() - t0) < DEADLINE) {
        if (v[0] == first && v[n - 1] == last) return t;
        for (int i = 0; i < 100; i++) x = x * 1.0000001 + 1e-9;
        if (calls_in_loop) {
            int r;
            LC_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &r));
        }
    }
    sink = x;
    return -1.0;
}

static void compute(double sec)
{
    double t0 = now(), x = 1.0;
    while (now() - t0 < sec)
        for (int i = 0; i < 100; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    calls_in_loop = argc > 1 && strcmp(argv[1], "calls") == 0;
    int rank = lc_world_rank(), size = lc_world_size();
    int check = async_on();
    static const int counts[] = { 2, 256, 16384, 262144 }; /* ints: 8 B .. 1 MiB */
    int *in = lc_malloc(262144 * sizeof(int)), *out = lc_malloc(262144 * sizeof(int));

    for (int k = 0; k < 4; k++) {
        int n = counts[k];
        double took[REPS];
        for (int rep = 0; rep < REPS; rep++) {
            /* Element i of rank r: r + i + rep; a different sum every time,
             * so an earlier result never passes for this one. */
            for (int i = 0; i < n; i++) {
                in[i] = rank + i + rep;
                out[i] = -1;
            }
            int base = size * (size - 1) / 2 + size * rep;
            MPI_Request req;
            LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
            LC_MPI(MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
            took[rep] = 0;
            if (check) {
                took[rep] = watch(out, n, base, base + size * (n - 1));
                LC_CHECK(took[rep] >= 0, "%d B, try %d: the sum did not show in %.0f s while the ranks computed "
                         "%s: no asynchronous progress", (int)(n * sizeof(int)), rep, DEADLINE,
                         calls_in_loop ? "calling only MPI_Comm_rank" : "without MPI calls");
                compute(MARGIN);
                int flag = 0;
                LC_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
                LC_CHECK(flag, "%d B, try %d: the first MPI_Test after the sum showed (and %.1f s more) reports "
                         "the Iallreduce incomplete", (int)(n * sizeof(int)), rep, MARGIN);
            }
            LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            long bad = 0;
            for (int i = 0; i < n; i++) bad += out[i] != base + size * i;
            LC_CHECK(bad == 0, "%d B, try %d: %ld of %d sums wrong", (int)(n * sizeof(int)), rep, bad, n);
        }
        if (check) {
            qsort(took, REPS, sizeof(double), cmp_double);
            double med = took[REPS / 2], worst;
            LC_MPI(MPI_Reduce(&med, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
            if (rank == 0)
                printf("%7d B: the sum showed after %.1f us (median of %d, slowest rank)\n", (int)(n * sizeof(int)),
                       worst * 1e6, REPS);
        }
    }
    free(in);
    free(out);
    return lc_finish();
}
