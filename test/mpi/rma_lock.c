/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_lock.c: passive-target epochs.  An exclusive-lock read-modify-write
 * counter (lost updates show mutual exclusion failing), Fetch_and_op and
 * Compare_and_swap counters from every rank under shared locks and
 * lock_all, flush inside an epoch; on Win_create and Win_allocate
 * windows. */
#include "lc_test.h"

#define ITERS 20

static void run(MPI_Win win, long *mem, int rank, int size, const char *what)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < 4; i++) mem[i] = 0;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    /* exclusive get-increment-put on rank 0's mem[0] */
    for (int i = 0; i < ITERS; i++) {
        long v = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
    }
    /* Fetch_and_op on the last rank's mem[1], shared lock */
    int last = size - 1;
    long one = 1, prev, maxprev = -1;
    for (int i = 0; i < ITERS; i++) {
        MPI_Win_lock(MPI_LOCK_SHARED, last, 0, win);
        MPI_Fetch_and_op(&one, &prev, MPI_LONG, last, 1, MPI_SUM, win);
        MPI_Win_unlock(last, win);
        LC_CHECK(prev > maxprev, "%s fetch_and_op went back: %ld after %ld", what, prev, maxprev);
        maxprev = prev;
    }
    /* Compare_and_swap increments of mem[2] on rank 0 under lock_all */
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < ITERS; i++) {
        long cur = 0, res;
        MPI_Fetch_and_op(NULL, &cur, MPI_LONG, 0, 2, MPI_NO_OP, win);
        MPI_Win_flush(0, win);
        for (;;) {
            long next = cur + 1;
            MPI_Compare_and_swap(&next, &cur, &res, MPI_LONG, 0, 2, win);
            MPI_Win_flush(0, win);
            if (res == cur) break;
            cur = res;
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    long want = (long)size * ITERS;
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    if (rank == 0) {
        LC_CHECK(mem[0] == want, "%s exclusive counter %ld, expected %ld", what, mem[0], want);
        LC_CHECK(mem[2] == want, "%s compare_and_swap counter %ld, expected %ld", what, mem[2], want);
    }
    if (rank == last) LC_CHECK(mem[1] == want, "%s fetch_and_op counter %ld, expected %ld", what, mem[1], want);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Request forms under lock_all: Rput to the right neighbour's mem[3],
     * Raccumulate into rank 0's mem[0], then Rget / Rget_accumulate, and
     * the large-count forms. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request req[2];
    long val = 1000 + rank, got = -1, got2 = -1, inc = 1;
    MPI_Win_lock_all(0, win);
    MPI_Rput(&val, 1, MPI_LONG, right, 3, 1, MPI_LONG, win, &req[0]);
    MPI_Raccumulate(&inc, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rget(&got, 1, MPI_LONG, left, 3, 1, MPI_LONG, win, &req[0]);
    MPI_Rget_accumulate(NULL, 0, MPI_LONG, &got2, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_NO_OP, win, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    LC_CHECK(got == 1000 + (left + size - 1) % size, "%s rget: %ld, expected %ld", what, got,
             1000L + (left + size - 1) % size);
    LC_CHECK(got2 == want + size, "%s rget_accumulate: %ld, expected %ld", what, got2, want + size);
    long c_val = 7, c_got = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Put_c(&c_val, 1, MPI_LONG, right, 3, 1, MPI_LONG, win);
    MPI_Win_flush(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Get_c(&c_got, 1, MPI_LONG, left, 3, 1, MPI_LONG, win);
    MPI_Win_flush(left, win);
    LC_CHECK(c_got == 7, "%s put_c/get_c: %ld", what, c_got);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    long *mem = malloc(4 * sizeof(long));
    MPI_Win win;
    MPI_Win_create(mem, 4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    run(win, mem, rank, size, "create");
    MPI_Win_free(&win);
    free(mem);
    MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    run(win, mem, rank, size, "allocate");
    MPI_Win_free(&win);
    return lc_finish();
}
