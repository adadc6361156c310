/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_passive.c: passive target while the target computes.  Every rank
 * opens a lock_all epoch, then rank 0 computes without calling MPI while
 * every other rank puts its block into rank 0's window, flushes, gets it
 * back (and rank 0's own pattern) and checks it, then puts a flag.  Rank 0
 * watches its own memory for the flags.
 * Argument "strict": rank 0 makes no MPI call at all until every flag has
 * arrived (fails after LIMIT s): one-sided operations must complete
 * without the target's MPI progress.  Without it, rank 0 starts calling
 * MPI_Iprobe after 2 s (an implementation may need target progress; MPI
 * allows that) and the test checks the data only.  Argument "create":
 * MPI_Win_create on malloc'd memory instead of MPI_Win_allocate. */
#include "lc_test.h"

#include <sched.h>
#include <time.h>

#define K 64     /* longs per origin */
#define LIMIT 20 /* s */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, strict = 0, create = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "strict")) strict = 1;
        if (!strcmp(argv[i], "create")) create = 1;
    }
    /* rank 0's layout: [own pattern K][block of rank r at r*K]...[flags size] */
    size_t n = (size_t)(size + 1) * K + (size_t)size;
    long *mem = NULL;
    MPI_Win win;
    if (create) {
        mem = malloc(n * sizeof(long));
        LC_CHECK(mem != NULL, "malloc");
        MPI_Win_create(mem, (MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate((MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    }
    for (size_t i = 0; i < n; i++) mem[i] = 0;
    for (int i = 0; i < K; i++) mem[i] = 1000000L + i;
    long *flags = mem + (size_t)(size + 1) * K;
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        /* compute, watching the flags in our own memory */
        double t0 = now(), acc = 0;
        int seen = 0, probed = 0;
        while (seen < size - 1) {
            for (int i = 0; i < 10000; i++) acc += 1e-9 * (double)i;
            seen = 0;
            for (int r = 1; r < size; r++) seen += __atomic_load_n(&flags[r], __ATOMIC_ACQUIRE) == r;
            double t = now() - t0;
            if (t > LIMIT) break;
            if (!strict && t > 2) {
                int flag;
                MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                probed = 1;
            }
            sched_yield(); /* oversubscribed runs: the origins need the core */
        }
        LC_CHECK(seen == size - 1, "after %d s only %d of %d origins' flags arrived (%s)", LIMIT, seen, size - 1,
                 strict ? "without MPI calls on the target" : "with MPI_Iprobe after 2 s");
        if (strict) LC_CHECK(!probed, "strict run called MPI");
        MPI_Win_sync(win);
        for (int r = 1; r < size && seen == size - 1; r++)
            for (int i = 0; i < K; i++)
                LC_CHECK(mem[(size_t)r * K + i] == r * 100000L + i, "block of rank %d [%d]: %ld", r, i,
                         mem[(size_t)r * K + i]);
        if (acc < 0) printf("%g\n", acc);
    } else {
        long out[K], back[K], pat[K];
        for (int i = 0; i < K; i++) out[i] = rank * 100000L + i, back[i] = pat[i] = -1;
        MPI_Put(out, K, MPI_LONG, 0, (MPI_Aint)rank * K, K, MPI_LONG, win);
        MPI_Win_flush(0, win);
        MPI_Get(back, K, MPI_LONG, 0, (MPI_Aint)rank * K, K, MPI_LONG, win);
        MPI_Get(pat, K, MPI_LONG, 0, 0, K, MPI_LONG, win);
        MPI_Win_flush(0, win);
        for (int i = 0; i < K; i++) {
            LC_CHECK(back[i] == out[i], "read back [%d]: %ld, want %ld", i, back[i], out[i]);
            LC_CHECK(pat[i] == 1000000L + i, "rank 0's pattern [%d]: %ld", i, pat[i]);
        }
        /* a strided put (derived type): every other long of the block, then flag */
        MPI_Datatype vec;
        MPI_Type_vector(K / 2, 1, 2, MPI_LONG, &vec);
        MPI_Type_commit(&vec);
        for (int i = 0; i < K; i += 2) out[i / 2] = rank * 100000L + i;
        MPI_Put(out, K / 2, MPI_LONG, 0, (MPI_Aint)rank * K, 1, vec, win);
        MPI_Type_free(&vec);
        MPI_Win_flush(0, win);
        long f = rank;
        MPI_Put(&f, 1, MPI_LONG, 0, (MPI_Aint)(size + 1) * K + rank, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (create) free(mem);
    lc_finish();
    return 0;
}
