/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_cma_acc.c: accumulates on MPI_Win_create windows (arg "dynamic":
 * MPI_Win_create_dynamic) between co-resident ranks.
 *  1. Without the target's progress (not with arg "queue"): every rank
 *     opens lock_all, then rank 1 computes without any MPI call while the
 *     others add to a counter in its memory (Accumulate), take tickets
 *     (Fetch_and_op: each origin's strictly increasing), increment a
 *     second counter with a Compare_and_swap retry loop and read with
 *     Get_accumulate(MPI_NO_OP); then each adds 1 to a flag.  Rank 1
 *     fails after LIMIT s without every flag (an implementation whose
 *     accumulates need the target's progress fails here), then checks
 *     the totals (atomicity among origins).
 *  2. With everyone inside MPI: every rank, rank 0 included on itself,
 *     adds to the same elements at rank 0 with contiguous accumulates
 *     and with a strided derived type (those go to rank 0's queue): the
 *     totals must be exact (the two ways never interleave), and a
 *     derived accumulate followed by a contiguous one to the same element
 *     from one origin must apply in that order.
 * Arg "queue": without part 1 (run with LOCUS_RMA_CMA_ACC=0). */
#include "lc_test.h"

#include <sched.h>
#include <time.h>

#define N 300
#define LIMIT 20 /* s */
#define M 64     /* part 2: elements */

static long mem[16 + M + 3 * 64]; /* [0] sum, [1] tickets, [2] cas counter, [3] flags; [16..16+M) part 2; then slots */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size(), queue = 0, dynamic = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "queue")) queue = 1;
        if (!strcmp(argv[i], "dynamic")) dynamic = 1;
    }
    LC_CHECK(size >= 2 && size <= 64, "run with 2 to 64 ranks");
    MPI_Win win;
    MPI_Aint *at = malloc((size_t)size * sizeof(MPI_Aint)); /* each rank's mem as a displacement */
    if (dynamic) {
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_attach(win, mem, sizeof mem);
        MPI_Aint mine;
        MPI_Get_address(mem, &mine);
        MPI_Allgather(&mine, 1, MPI_AINT, at, 1, MPI_AINT, MPI_COMM_WORLD);
    } else {
        MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        for (int r = 0; r < size; r++) at[r] = 0;
    }
#define D(r, i) (at[r] + (MPI_Aint)(i) * (MPI_Aint)sizeof(long))
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);

    if (!queue && rank == 1) {
        double t0 = now(), acc = 0;
        while (__atomic_load_n(&mem[3], __ATOMIC_ACQUIRE) < size - 1 && now() - t0 < LIMIT) {
            for (int i = 0; i < 10000; i++) acc += 1e-9 * (double)i;
            sched_yield();
        }
        LC_CHECK(mem[3] == size - 1, "%ld of %d flags in %d s while rank 1 made no MPI call (acc %g)", mem[3], size - 1,
                 LIMIT, acc);
        LC_CHECK(mem[0] == (long)(size - 1) * N * 3, "sum %ld, expected %ld", mem[0], (long)(size - 1) * N * 3);
        LC_CHECK(mem[1] == (long)(size - 1) * N, "tickets %ld, expected %ld", mem[1], (long)(size - 1) * N);
        LC_CHECK(mem[2] == (long)(size - 1) * N, "cas counter %ld, expected %ld", mem[2], (long)(size - 1) * N);
    } else if (!queue && rank != 1) {
        long three = 3, one = 1, prev = -1, last = -1, got;
        for (int i = 0; i < N; i++) {
            MPI_Accumulate(&three, 1, MPI_LONG, 1, D(1, 0), 1, MPI_LONG, MPI_SUM, win);
            MPI_Fetch_and_op(&one, &prev, MPI_LONG, 1, D(1, 1), MPI_SUM, win);
            MPI_Win_flush(1, win);
            LC_CHECK(prev > last, "ticket %ld after %ld", prev, last);
            last = prev;
            long seen = 0, want;
            MPI_Get_accumulate(NULL, 0, MPI_LONG, &seen, 1, MPI_LONG, 1, D(1, 2), 1, MPI_LONG, MPI_NO_OP, win);
            MPI_Win_flush(1, win);
            for (int tries = 0;; tries++) {
                want = seen + 1;
                MPI_Compare_and_swap(&want, &seen, &got, MPI_LONG, 1, D(1, 2), win);
                MPI_Win_flush(1, win);
                if (got == seen) break;
                seen = got;
                LC_CHECK(tries < 1000000, "compare_and_swap never succeeded");
                if (tries >= 1000000) break;
            }
        }
        MPI_Accumulate(&one, 1, MPI_LONG, 1, D(1, 3), 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2: contiguous and derived accumulates on the same elements of rank 0. */
    MPI_Datatype every2;
    MPI_Type_vector(M / 2, 1, 2, MPI_LONG, &every2);
    MPI_Type_commit(&every2);
    long ones[M];
    for (int i = 0; i < M; i++) ones[i] = 1;
    for (int x = 0; x < 20; x++) {
        MPI_Accumulate(ones, M, MPI_LONG, 0, D(0, 16), M, MPI_LONG, MPI_SUM, win);
        MPI_Accumulate(ones, M / 2, MPI_LONG, 0, D(0, 16), 1, every2, MPI_SUM, win);
        /* order: derived REPLACE, then contiguous REPLACE, on our slot */
        long a[2] = { 1000 + x, 1000 + x }, b = 2000 + x;
        MPI_Datatype two_strided; /* elements 0 and 2 of our slot: two blocks, a request to the target */
        MPI_Type_vector(2, 1, 2, MPI_LONG, &two_strided);
        MPI_Type_commit(&two_strided);
        MPI_Accumulate(a, 2, MPI_LONG, 0, D(0, 16 + M + 3 * rank), 1, two_strided, MPI_REPLACE, win);
        MPI_Accumulate(&b, 1, MPI_LONG, 0, D(0, 16 + M + 3 * rank), 1, MPI_LONG, MPI_REPLACE, win);
        MPI_Type_free(&two_strided);
        MPI_Win_flush(0, win); /* both applied: in order, the contiguous one last */
        long r = -1;
        MPI_Fetch_and_op(NULL, &r, MPI_LONG, 0, D(0, 16 + M + 3 * rank), MPI_NO_OP, win);
        MPI_Win_flush(0, win);
        LC_CHECK(r == b, "round %d: derived then contiguous REPLACE left %ld, expected %ld", x, r, b);
    }
    MPI_Type_free(&every2);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < M; i++) {
            long want = (long)size * 20 * (i % 2 == 0 ? 2 : 1);
            LC_CHECK(mem[16 + i] == want, "element %d: %ld, expected %ld", i, mem[16 + i], want);
        }
    if (dynamic) MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    free(at);
    return lc_finish();
}
