/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lat_cost.c - the instructions of one 8 B ping-pong iteration on rank 0
 * (MPI_Send + MPI_Recv), counted by callgrind rather than timed: on a
 * shared 2-core machine a 0.2 µs latency moves with the load, a count
 * does not (scripts/lat_cost.sh runs it).
 *
 * Rank 0 runs under `valgrind --tool=callgrind --collect-atstart=no` and
 * collects only inside its two calls.  It enters MPI_Recv only once the
 * reply is in its ring: rank 1 stores the iteration's number in a shared
 * window (MPI_Win_allocate_shared) after its MPI_Send returned, and rank
 * 0 waits for it outside the collected region.  Every iteration then
 * takes one progress pass, the one that finds the reply, whatever the
 * load — the path of a ping-pong without its fruitless passes, which
 * depend on how the two processes are scheduled.  Rank 1 runs natively.
 *
 * Usage: lat_cost [iters [nb]]  (2 ranks; default 5000 iterations, 8
 * bytes).  With "nb" the calls are MPI_Isend + MPI_Wait and MPI_Irecv +
 * MPI_Wait (the nonblocking path's cost), in a loop of their own: the
 * blocking loop's instructions stay what they were.
 * Standard MPI calls only: it builds with any mpicc; without valgrind's
 * header the collection toggles are no-ops.
 */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iters = argc > 1 ? atol(argv[1]) : 5000;
    int nb = argc > 2 && strcmp(argv[2], "nb") == 0;
    if (size != 2 || iters < 1) {
        if (rank == 0) fprintf(stderr, "lat_cost: run 2 ranks; iterations must be positive\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The flag lives in rank 0's part of a shared window: rank 1 stores,
     * rank 0 loads (release/acquire: the reply's cell was published
     * before the flag). */
    MPI_Win win;
    _Atomic long *flag;
    MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)sizeof(long) : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &flag, &win);
    MPI_Aint len;
    int unit;
    MPI_Win_shared_query(win, 0, &len, &unit, &flag);
    if (rank == 0) atomic_store(flag, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    char buf[8] = { 0 };
    for (long i = 1; nb && i <= iters; i++) {
        MPI_Request r;
        if (rank == 0) {
            CALLGRIND_TOGGLE_COLLECT;
            MPI_Isend(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            CALLGRIND_TOGGLE_COLLECT;
            while (atomic_load_explicit(flag, memory_order_acquire) != i) {}
            CALLGRIND_TOGGLE_COLLECT;
            MPI_Irecv(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            CALLGRIND_TOGGLE_COLLECT;
        } else {
            MPI_Recv(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            atomic_store_explicit(flag, i, memory_order_release);
        }
    }
    for (long i = 1; !nb && i <= iters; i++) {
        if (rank == 0) {
            CALLGRIND_TOGGLE_COLLECT;
            MPI_Send(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            CALLGRIND_TOGGLE_COLLECT;
            while (atomic_load_explicit(flag, memory_order_acquire) != i) {}
            CALLGRIND_TOGGLE_COLLECT;
            MPI_Recv(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CALLGRIND_TOGGLE_COLLECT;
        } else {
            MPI_Recv(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            atomic_store_explicit(flag, i, memory_order_release);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
