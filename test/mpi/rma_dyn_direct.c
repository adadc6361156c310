/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_dyn_direct.c: MPI_Win_create_dynamic between co-resident ranks.
 *  1. Without the target's progress (not with arg "queue"): every rank
 *     opens lock_all, then rank 1 computes without any MPI call, watching
 *     a flag in its attached memory, while rank 0 puts a block, gets a
 *     pattern back and checks it, then puts the flag; rank 1 fails after
 *     LIMIT s without the flag (an implementation that needs the target's
 *     progress for puts and gets on dynamic windows fails here).
 *  2. Wrong addresses: a put to memory next to an attached region, one
 *     that runs past a region's end, and one over a hole between two
 *     regions write nothing there (the target refuses them, as before).
 *  3. Attach and detach racing with accesses: rank 1 attaches and
 *     detaches a scratch array over and over while the other ranks put
 *     and get in a region that stays attached; every value must land.
 * Arg "queue": the same without part 1 (run with LOCUS_RMA_DYN_DIRECT=0,
 * every operation an active message: the results must be the same). */
#include "lc_test.h"

#include <sched.h>
#include <time.h>

#define K 512 /* longs in the block of part 1 */
#define R 256 /* longs per rank in part 3 */
#define ROUNDS 200
#define LIMIT 20 /* s */

static long mem[K + 8];    /* rank 1: block, then [K] the flag */
static long near[2][16];   /* [0] attached, [1] not: the bytes after [0] */
static long holed[3][16];  /* [0] and [2] attached, [1] not */
static long stay[64 * R];  /* part 3, rank r's slice at r * R */
static long scratch[4096]; /* part 3: attached and detached by rank 1 */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size(), queue = argc > 1 && !strcmp(argv[1], "queue");
    LC_CHECK(size >= 2 && size <= 64, "run with 2 to 64 ranks");
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (int i = 0; i < K; i++) mem[i] = 7000000L + i;
    mem[K] = 0;
    MPI_Win_attach(win, mem, sizeof mem);
    MPI_Win_attach(win, near[0], sizeof near[0]);
    MPI_Win_attach(win, holed[0], sizeof holed[0]);
    MPI_Win_attach(win, holed[2], sizeof holed[2]);
    MPI_Win_attach(win, stay, sizeof stay);
    MPI_Aint mine[5], *all = malloc(5 * (size_t)size * sizeof(MPI_Aint));
    MPI_Get_address(mem, &mine[0]);
    MPI_Get_address(near[0], &mine[1]);
    MPI_Get_address(holed[0], &mine[2]);
    MPI_Get_address(stay, &mine[3]);
    MPI_Get_address(scratch, &mine[4]);
    MPI_Allgather(mine, 5, MPI_AINT, all, 5, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1: rank 1 makes no MPI call until the flag is in. */
    if (!queue && rank == 1) {
        double t0 = now(), acc = 0;
        while (__atomic_load_n(&mem[K], __ATOMIC_ACQUIRE) == 0 && now() - t0 < LIMIT) {
            for (int i = 0; i < 10000; i++) acc += 1e-9 * (double)i;
            sched_yield(); /* oversubscribed: let the origin run */
        }
        LC_CHECK(mem[K] == 1, "the flag did not arrive in %d s while rank 1 made no MPI call (acc %g)", LIMIT, acc);
        for (int i = 0; i < K; i++)
            if (mem[i] != 100L * i + 1) {
                LC_CHECK(0, "block[%d] = %ld, expected %ld", i, mem[i], 100L * i + 1);
                break;
            }
    } else if (!queue && rank == 0) {
        static long v[K], got[K];
        for (int i = 0; i < K; i++) got[i] = -1;
        MPI_Get(got, K, MPI_LONG, 1, all[5 * 1 + 0], K, MPI_LONG, win);
        MPI_Win_flush(1, win);
        for (int i = 0; i < K; i++)
            LC_CHECK(got[i] == 7000000L + i, "got[%d] = %ld, expected %ld", i, got[i], 7000000L + i);
        for (int i = 0; i < K; i++) v[i] = 100L * i + 1;
        MPI_Put(v, K, MPI_LONG, 1, all[5 * 1 + 0], K, MPI_LONG, win);
        MPI_Win_flush(1, win);
        long one = 1;
        MPI_Put(&one, 1, MPI_LONG, 1, all[5 * 1 + 0] + K * (MPI_Aint)sizeof(long), 1, MPI_LONG, win);
        MPI_Win_flush(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2: wrong addresses at the right neighbour: nothing written. */
    int right = (rank + 1) % size;
    long bad[16];
    for (int i = 0; i < 16; i++) bad[i] = -5;
    MPI_Aint after = all[5 * right + 1] + (MPI_Aint)sizeof near[0];
    MPI_Put(bad, 4, MPI_LONG, right, after, 4, MPI_LONG, win);                              /* next to it */
    MPI_Put(bad, 4, MPI_LONG, right, after - 2 * (MPI_Aint)sizeof(long), 4, MPI_LONG, win); /* past its end */
    MPI_Put(bad, 4, MPI_LONG, right, all[5 * right + 2] + 14 * (MPI_Aint)sizeof(long), 4, MPI_LONG, win); /* hole */
    MPI_Win_flush(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int i = 0; i < 16; i++) {
        LC_CHECK(near[0][i] == 0 && near[1][i] == 0, "a put outside the region wrote near[%d][%d] / near[1][%d]", 0, i,
                 i);
        LC_CHECK(holed[0][i] == 0 && holed[1][i] == 0 && holed[2][i] == 0, "a put over a hole wrote holed[.][%d]", i);
    }

    /* 3: rank 1 attaches and detaches `scratch` while the others work in `stay`. */
    if (rank == 1) {
        for (int i = 0; i < ROUNDS * 4; i++) {
            MPI_Win_attach(win, scratch, sizeof scratch);
            MPI_Win_detach(win, scratch);
        }
    } else {
        static long v[R], got[R];
        for (int x = 0; x < ROUNDS; x++) {
            for (int i = 0; i < R; i++) v[i] = (long)rank * 1000000L + x * 1000L + i;
            MPI_Put(v, R, MPI_LONG, 1, all[5 * 1 + 3] + (MPI_Aint)rank * R * (MPI_Aint)sizeof(long), R, MPI_LONG, win);
            MPI_Win_flush(1, win);
            for (int i = 0; i < R; i++) got[i] = -1;
            MPI_Get(got, R, MPI_LONG, 1, all[5 * 1 + 3] + (MPI_Aint)rank * R * (MPI_Aint)sizeof(long), R, MPI_LONG,
                    win);
            MPI_Win_flush(1, win);
            for (int i = 0; i < R; i++)
                if (got[i] != v[i]) {
                    LC_CHECK(0, "round %d: got[%d] = %ld, expected %ld", x, i, got[i], v[i]);
                    break;
                }
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        for (int r = 0; r < size; r++)
            if (r != 1)
                LC_CHECK(stay[r * R + R - 1] == (long)r * 1000000L + (ROUNDS - 1) * 1000L + R - 1,
                         "rank %d's last put: %ld", r, stay[r * R + R - 1]);
    MPI_Win_detach(win, mem);
    MPI_Win_detach(win, near[0]);
    MPI_Win_detach(win, holed[0]);
    MPI_Win_detach(win, holed[2]);
    MPI_Win_detach(win, stay);
    MPI_Win_free(&win);
    free(all);
    return lc_finish();
}
