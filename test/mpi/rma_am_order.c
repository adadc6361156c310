/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_am_order.c: accumulates from one origin to the same target
 * elements apply in issue order (MPI 4.1 §12.7.2, default
 * accumulate_ordering) when large and small ones alternate.  On a
 * Win_create window Locus answers a small request in the target's packet
 * handler and a large one (rendezvous) from a queue: a small one that
 * arrives while a large one waits must wait too.  Every rank but 0, in
 * turn, issues under a shared lock on rank 0: Accumulate(REPLACE) of B
 * longs of value v, then Fetch_and_op(REPLACE) of -v on element 0 (its
 * old value must be v), then a small Put/Get pair (puts are not ordered
 * with accumulates, so only checked after a flush).  Exact values.
 * Argument "allocate": MPI_Win_allocate instead. */
#include "lc_test.h"

#define B 4096 /* longs: 32 KiB, a rendezvous message */
#define ROUNDS 40

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    int allocate = argc > 1 && !strcmp(argv[1], "allocate");
    long *mem = NULL;
    MPI_Win win;
    size_t n = B + 8;
    if (allocate) {
        MPI_Win_allocate((MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    } else {
        mem = malloc(n * sizeof(long));
        LC_CHECK(mem != NULL, "malloc");
        MPI_Win_create(mem, (MPI_Aint)(n * sizeof(long)), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    for (size_t i = 0; i < n; i++) mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    long *big = malloc(B * sizeof(long));
    LC_CHECK(big != NULL, "malloc");
    for (int turn = 1; turn < size; turn++) {
        if (rank == turn) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            for (int r = 0; r < ROUNDS; r++) {
                long v = (long)turn * 1000 + r + 1, neg = -v, old = 0, got = 0;
                for (int i = 0; i < B; i++) big[i] = v;
                MPI_Accumulate(big, B, MPI_LONG, 0, 0, B, MPI_LONG, MPI_REPLACE, win);
                MPI_Fetch_and_op(&neg, &old, MPI_LONG, 0, 0, MPI_REPLACE, win);
                MPI_Accumulate(&v, 1, MPI_LONG, 0, B + 1, 1, MPI_LONG, MPI_SUM, win);
                MPI_Put(&v, 1, MPI_LONG, 0, B + 2, 1, MPI_LONG, win);
                MPI_Win_flush(0, win);
                MPI_Get(&got, 1, MPI_LONG, 0, B + 2, 1, MPI_LONG, win);
                MPI_Win_flush(0, win);
                LC_CHECK(old == v, "rank %d round %d: fetch_and_op after a %d-long accumulate saw %ld, expected %ld",
                         rank, r, B, old, v);
                LC_CHECK(got == v, "rank %d round %d: get after put and flush saw %ld, expected %ld", rank, r, got, v);
                MPI_Get(&got, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
                MPI_Win_flush(0, win);
                LC_CHECK(got == -v, "rank %d round %d: element 0 is %ld, expected %ld", rank, r, got, -v);
            }
            MPI_Win_unlock(0, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        long want = 0;
        for (int t = 1; t < size; t++)
            for (int r = 0; r < ROUNDS; r++) want += (long)t * 1000 + r + 1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        LC_CHECK(mem[B + 1] == want, "sum of the small accumulates %ld, expected %ld", mem[B + 1], want);
        if (size > 1) {
            long last = (long)(size - 1) * 1000 + ROUNDS;
            LC_CHECK(mem[0] == -last && mem[1] == last && mem[B - 1] == last,
                     "final elements %ld %ld %ld, expected %ld %ld %ld", mem[0], mem[1], mem[B - 1], -last, last,
                     last);
        }
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    if (!allocate) free(mem);
    free(big);
    return lc_finish();
}
