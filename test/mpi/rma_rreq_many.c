/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_rreq_many.c: many request-based one-sided operations in flight at
 * once (MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate), their
 * requests waited for in reverse order, under MPI_Win_lock_all on a
 * window over user memory (MPI_Win_create: active messages, or CMA where
 * LOCUS_RMA_AM_MAX lets it).  Every rank works on the next rank's memory:
 *  - N Rput of 8 B to consecutive elements, waited last to first, then a
 *    flush;
 *  - N Rget of the same elements, each checked right after its wait;
 *  - N/4 Raccumulate(SUM) and N/4 Rget_accumulate(SUM) over 64 elements
 *    each: the values fetched show that one origin's accumulates to one
 *    element apply in issue order (old value = number of earlier ones);
 *    the origin's CPU time for these three phases must stay under a
 *    bound (argument 2, seconds): a library that looks at every operation
 *    in flight in every progress pass takes time quadratic in N here;
 *  - Rget into a strided (vector) result type, checked after each wait
 *    (the answer arrives packed and is unpacked before completion);
 *  - after the epoch, the target checks what its neighbour put and added.
 * Arguments: N (default 20000), the CPU bound in seconds (default 4:
 * 2 ranks on 2 cores at load 32 took 0.5-1.7 s, the library before
 * request completion hooks 9.5-9.7 s). */
#include "lc_test.h"

#include <time.h>

#define ACC 64  /* elements the accumulates spread over */
#define VEC 200 /* Rgets into a vector type */

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long value(int rank, int i)
{
    return (long)rank * 1000003L + (long)i * 7L + 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    double bound = argc > 2 ? atof(argv[2]) : 4.0;
    if (n < 4 * ACC) n = 4 * ACC;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    /* [0, n): the puts; [n, n + ACC): Raccumulate; [n + ACC, n + 2 ACC):
     * Rget_accumulate. */
    size_t wlen = (size_t)n + 2 * ACC;
    long *mem = lc_malloc(wlen * sizeof(long)), *src = lc_malloc((size_t)n * sizeof(long));
    long *dst = lc_malloc((size_t)n * sizeof(long)), *old = lc_malloc((size_t)n * sizeof(long));
    MPI_Request *req = lc_malloc((size_t)n * sizeof(MPI_Request));
    for (size_t i = 0; i < wlen; i++) mem[i] = 0;
    for (int i = 0; i < n; i++) src[i] = value(rank, i);
    MPI_Win win;
    LC_MPI(MPI_Win_create(mem, (MPI_Aint)(wlen * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    LC_MPI(MPI_Win_lock_all(0, win));

    /* Rput, waited for in reverse order, then a flush. */
    double t0 = cpu_seconds();
    for (int i = 0; i < n; i++) LC_MPI(MPI_Rput(&src[i], 1, MPI_LONG, next, i, 1, MPI_LONG, win, &req[i]));
    for (int i = n - 1; i >= 0; i--) LC_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
    LC_MPI(MPI_Win_flush(next, win));
    double cpu_put = cpu_seconds() - t0;

    /* Rget of what we put, each result checked once its request is done. */
    for (int i = 0; i < n; i++) {
        dst[i] = -1;
        LC_MPI(MPI_Rget(&dst[i], 1, MPI_LONG, next, i, 1, MPI_LONG, win, &req[i]));
    }
    for (int i = n - 1; i >= 0; i--) {
        LC_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
        LC_CHECK(dst[i] == value(rank, i), "Rget %d from rank %d: %ld, expected %ld", i, next, dst[i], value(rank, i));
    }

    /* Accumulates: Raccumulate to element n + i % ACC, Rget_accumulate to
     * n + ACC + i % ACC, alternating; reverse waits. */
    int nacc = n / 4;
    long one = 1;
    for (int i = 0; i < nacc; i++) {
        old[i] = -1;
        LC_MPI(MPI_Raccumulate(&one, 1, MPI_LONG, next, n + i % ACC, 1, MPI_LONG, MPI_SUM, win, &req[2 * i]));
        LC_MPI(MPI_Rget_accumulate(&one, 1, MPI_LONG, &old[i], 1, MPI_LONG, next, n + ACC + i % ACC, 1, MPI_LONG,
                                   MPI_SUM, win, &req[2 * i + 1]));
    }
    for (int i = 2 * nacc - 1; i >= 0; i--) LC_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
    /* The CPU time of the three phases: bounded (the origin's, while all
     * ranks run the same phases). */
    double cpu[2] = { cpu_put, cpu_seconds() - t0 }, maxcpu[2] = { 0, 0 };
    LC_MPI(MPI_Allreduce(cpu, maxcpu, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    LC_CHECK(cpu[1] <= bound,
             "%d Rput, %d Rget, %d Raccumulate + Rget_accumulate, waited in reverse order, took %.2f s "
             "of CPU, bound %.2f s",
             n, n, nacc, cpu[1], bound);
    if (rank == 0)
        fprintf(stderr, "rma_rreq_many: max CPU %.3f s (of which %d Rput + waits + flush %.3f s)\n", maxcpu[1], n,
                maxcpu[0]);
    for (int i = 0; i < nacc; i++)
        LC_CHECK(old[i] == i / ACC, "Rget_accumulate %d fetched %ld, expected %d (earlier ones to its element)", i,
                 old[i], i / ACC);

    /* Rget of 4 longs into every other long of dst (a vector type). */
    MPI_Datatype vec;
    LC_MPI(MPI_Type_vector(4, 1, 2, MPI_LONG, &vec));
    LC_MPI(MPI_Type_commit(&vec));
    for (int k = 0; k < VEC; k++) {
        for (int j = 0; j < 8; j++) dst[8 * k + j] = -1;
        LC_MPI(MPI_Rget(&dst[8 * k], 1, vec, next, 4 * k, 4, MPI_LONG, win, &req[k]));
    }
    /* MPICH 4.0.2 completes such a request before its data is unpacked
     * (the values are there after a flush): checked on Locus only. */
    int early = lc_library_is_mpich();
    for (int k = VEC - 1; k >= 0; k--) {
        LC_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
        for (int j = 0; j < 8 && !early; j++) {
            long want = j % 2 ? -1 : value(rank, 4 * k + j / 2);
            LC_CHECK(dst[8 * k + j] == want, "Rget %d into a vector: long %d is %ld, expected %ld", k, j,
                     dst[8 * k + j], want);
        }
    }
    LC_MPI(MPI_Type_free(&vec));
    LC_MPI(MPI_Win_unlock_all(win));

    /* The target's view, after everyone's epoch. */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += mem[i] != value(prev, i);
    LC_CHECK(bad == 0, "%d of %d elements put by rank %d are wrong (element 0: %ld, expected %ld)", bad, n, prev,
             mem[0], value(prev, 0));
    for (int e = 0; e < ACC; e++) {
        long want = nacc / ACC + (e < nacc % ACC);
        LC_CHECK(mem[n + e] == want && mem[n + ACC + e] == want, "element %d: sums %ld and %ld, expected %ld", e,
                 mem[n + e], mem[n + ACC + e], want);
    }
    LC_MPI(MPI_Win_unlock(rank, win));
    LC_MPI(MPI_Win_free(&win));
    free(mem);
    free(src);
    free(dst);
    free(old);
    free(req);
    return lc_finish();
}
