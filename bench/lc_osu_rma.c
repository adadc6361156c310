/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_osu_rma.c: one-sided latency and bandwidth between ranks 0 and 1,
 * the OSU method (osu_put_latency / osu_get_latency / osu_put_bw /
 * osu_get_bw with MPI_Win_lock + MPI_Win_flush), plus Fetch_and_op
 * latency.  Window from MPI_Win_allocate; rank 1 waits in a barrier
 * (passive target).  Prints CSV for bench/compare.py: a header
 * "test,size,value", then "op,size,us_or_MBps".  Any MPI builds it.
 * usage: lc_osu_rma [iterations] [create]   "create": MPI_Win_create on
 * malloc'd memory instead (Locus: the active-message path). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB (1 << 22)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    char *buf = malloc(MAXB), *mem;
    memset(buf, 1, MAXB);
    MPI_Win win;
    if (argc > 2 && strcmp(argv[2], "create") == 0) {
        mem = malloc(MAXB);
        MPI_Win_create(mem, MAXB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(MAXB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    }
    size_t lat[] = { 8, 1024, 65536 }, bw[] = { 65536, 1 << 20 };
    if (rank == 0) printf("test,size,value\n");
    for (int op = 0; op < 2; op++) {
        for (int k = 0; k < 3; k++) {
            size_t n = lat[k];
            int it = n > 4096 ? iters / 10 : iters;
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                double t = 0;
                for (int i = -it / 10; i < it; i++) {
                    if (i == 0) t = MPI_Wtime();
                    if (op == 0)
                        MPI_Put(buf, (int)n, MPI_CHAR, 1, 0, (int)n, MPI_CHAR, win);
                    else
                        MPI_Get(buf, (int)n, MPI_CHAR, 1, 0, (int)n, MPI_CHAR, win);
                    MPI_Win_flush(1, win);
                }
                t = MPI_Wtime() - t;
                MPI_Win_unlock(1, win);
                printf("%s_latency,%zu,%.2f\n", op == 0 ? "put" : "get", n, t / it * 1e6);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        for (int k = 0; k < 2; k++) {
            size_t n = bw[k];
            int it = iters / 20, window = 32;
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                double t = MPI_Wtime();
                for (int i = 0; i < it; i++) {
                    for (int w = 0; w < window; w++) {
                        if (op == 0)
                            MPI_Put(buf, (int)n, MPI_CHAR, 1, 0, (int)n, MPI_CHAR, win);
                        else
                            MPI_Get(buf, (int)n, MPI_CHAR, 1, 0, (int)n, MPI_CHAR, win);
                    }
                    MPI_Win_flush(1, win);
                }
                t = MPI_Wtime() - t;
                MPI_Win_unlock(1, win);
                printf("%s_bw,%zu,%.0f\n", op == 0 ? "put" : "get", n, (double)n * window * it / t / 1e6);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long one = 1, old;
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        double t = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            MPI_Fetch_and_op(&one, &old, MPI_LONG, 1, 0, MPI_SUM, win);
            MPI_Win_flush(1, win);
        }
        t = MPI_Wtime() - t;
        MPI_Win_unlock(1, win);
        printf("fetch_and_op_latency,8,%.2f\n", t / iters * 1e6);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(buf);
    MPI_Finalize();
    return 0;
}
