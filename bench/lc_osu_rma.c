/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_osu_rma.c: one-sided latency and bandwidth between ranks 0 and 1,
 * the OSU method (osu_put_latency / osu_get_latency / osu_put_bw /
 * osu_get_bw with MPI_Win_lock + MPI_Win_flush; osu_acc_latency,
 * osu_fop_latency, osu_cas_latency with lock + flush), plus 8 B put and
 * get latency with MPI_Win_fence (OSU's fence mode: rank 0 operates on
 * rank 1, both fence, rank 1 operates on rank 0, both fence; time per
 * operation = loop time / 2 per iteration).  Window from MPI_Win_allocate;
 * in the lock modes rank 1 waits in a barrier (passive target).  Also
 * 8 B puts and accumulates with 20,000 per flush (time per operation).
 * Prints CSV for bench/compare.py: a header "test,size,value", then
 * "op,size,us_or_MBps".  Any MPI builds it.
 * usage: lc_osu_rma [iterations] [create|allocate|dynamic] [cas|nocas|busy]
 * "create": MPI_Win_create on malloc'd memory instead (Locus: CMA or
 * libfabric RMA for puts and gets, active messages for the rest);
 * "dynamic": MPI_Win_create_dynamic with that memory attached (every
 * displacement is then the target's address plus the offset);
 * "busy": only 8 B put, get, accumulate and fetch_and_op latency with
 * lock + flush while rank 1
 * computes without any MPI call (not in a barrier) for as long as rank 0
 * runs (5 s at most): an implementation that needs the target's
 * progress shows it as latency (rank 0 puts a flag into rank 1's memory
 * when done);
 * "cas": only Compare_and_swap, "nocas": all but it (Open MPI 4.1.4
 * crashes in Compare_and_swap on Win_allocate windows on one host, so
 * compare.py runs it apart and keeps the other figures).  Every line is
 * flushed at once: a later crash keeps the figures printed.  Latencies
 * in microseconds with three decimals: on one host they are tens of ns. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB (1 << 22)

/* "busy": rank 0 times 8 B puts and gets with lock + flush while rank 1
 * computes, watching the last byte of its memory for rank 0's flag
 * without calling MPI (the lock is taken while rank 1 is still inside
 * MPI: a lock needs the target on some paths, and this times the
 * operations).  Prints rank 1's compute time too. */
static void busy_target(int rank, int iters, char *buf, char *mem, MPI_Aint tbase, MPI_Win win)
{
    volatile char *flag = mem + MAXB - 1;
    *flag = 0;
    if (rank == 0) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        double t = MPI_Wtime(), x = 0;        /* (MPI_Wtime makes no progress) */
        while (!*flag && MPI_Wtime() - t < 5) /* 5 s at most: a path that needs us waits until then */
            for (int i = 0; i < 1000; i++) x += 1e-9 * i;
        printf("busy_target_s,0,%.3f\n", MPI_Wtime() - t + (x < 0 ? 1 : 0));
    } else {
        static const char *name[] = { "put", "get", "acc", "fetch_and_op" };
        long one = 1, old;
        for (int op = 0; op < 4; op++) {
            double t = MPI_Wtime(); /* no warm-up: a first operation that waits for rank 1 counts */
            for (int i = 0; i < iters; i++) {
                if (op == 0)
                    MPI_Put(buf, 8, MPI_CHAR, 1, tbase, 8, MPI_CHAR, win);
                else if (op == 1)
                    MPI_Get(buf, 8, MPI_CHAR, 1, tbase, 8, MPI_CHAR, win);
                else if (op == 2)
                    MPI_Accumulate(&one, 1, MPI_LONG, 1, tbase + 8, 1, MPI_LONG, MPI_SUM, win);
                else
                    MPI_Fetch_and_op(&one, &old, MPI_LONG, 1, tbase + 8, MPI_SUM, win);
                MPI_Win_flush(1, win);
            }
            t = MPI_Wtime() - t;
            printf("%s_busy_latency,8,%.3f\n", name[op], t / iters * 1e6);
        }
        char flagv = 1;
        MPI_Put(&flagv, 1, MPI_CHAR, 1, tbase + MAXB - 1, 1, MPI_CHAR, win);
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    const char *part = argc > 3 ? argv[3] : "all";
    int cas_only = strcmp(part, "cas") == 0, with_cas = strcmp(part, "nocas") != 0, busy = strcmp(part, "busy") == 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    char *buf = malloc(MAXB), *mem;
    memset(buf, 1, MAXB);
    MPI_Win win;
    MPI_Aint base[2] = { 0, 0 }; /* dynamic: each rank's memory's address, added to displacements */
    if (argc > 2 && strcmp(argv[2], "dynamic") == 0) {
        mem = malloc(MAXB);
        memset(mem, 0, MAXB);
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_attach(win, mem, MAXB);
        MPI_Aint mine;
        MPI_Get_address(mem, &mine);
        MPI_Allgather(&mine, 1, MPI_AINT, base, 1, MPI_AINT, MPI_COMM_WORLD);
    } else if (argc > 2 && strcmp(argv[2], "create") == 0) {
        mem = malloc(MAXB);
        MPI_Win_create(mem, MAXB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(MAXB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    }
    size_t lat[] = { 8, 1024, 65536 }, bw[] = { 65536, 1 << 20 };
    if (rank == 0) printf("test,size,value\n");
    if (busy) {
        busy_target(rank, iters, buf, mem, base[1], win); /* 8 B put, get, accumulate, fetch_and_op */
        cas_only = 1, with_cas = 0;                       /* nothing else */
    }
    for (int op = 0; op < 2 && !cas_only; op++) {
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
                        MPI_Put(buf, (int)n, MPI_CHAR, 1, base[1], (int)n, MPI_CHAR, win);
                    else
                        MPI_Get(buf, (int)n, MPI_CHAR, 1, base[1], (int)n, MPI_CHAR, win);
                    MPI_Win_flush(1, win);
                }
                t = MPI_Wtime() - t;
                MPI_Win_unlock(1, win);
                printf("%s_latency,%zu,%.3f\n", op == 0 ? "put" : "get", n, t / it * 1e6);
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
                            MPI_Put(buf, (int)n, MPI_CHAR, 1, base[1], (int)n, MPI_CHAR, win);
                        else
                            MPI_Get(buf, (int)n, MPI_CHAR, 1, base[1], (int)n, MPI_CHAR, win);
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
    /* 8 B atomics with lock + flush: Accumulate (MPI_SUM), Fetch_and_op
     * (MPI_SUM), Compare_and_swap, on one long at displacement 0. */
    static const char *atom[] = { "acc_latency", "fetch_and_op_latency", "cas_latency" };
    for (int op = cas_only ? 2 : 0; op < (with_cas ? 3 : 2); op++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            long one = 1, old, cmp = 0;
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            double t = 0;
            for (int i = -iters / 10; i < iters; i++) {
                if (i == 0) t = MPI_Wtime();
                if (op == 0)
                    MPI_Accumulate(&one, 1, MPI_LONG, 1, base[1], 1, MPI_LONG, MPI_SUM, win);
                else if (op == 1)
                    MPI_Fetch_and_op(&one, &old, MPI_LONG, 1, base[1], MPI_SUM, win);
                else
                    MPI_Compare_and_swap(&one, &cmp, &old, MPI_LONG, 1, base[1], win);
                MPI_Win_flush(1, win);
            }
            t = MPI_Wtime() - t;
            MPI_Win_unlock(1, win);
            printf("%s,8,%.3f\n", atom[op], t / iters * 1e6);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* Many operations in one epoch: EPOCH_OPS 8 B puts, then as many 8 B
     * accumulates, each to a place of its own, and one flush after them
     * (graph codes issue thousands between flushes); time per operation.
     * Locus once scanned every operation in flight at each progress pass
     * here: quadratic, 96 % of the origin's time at 100,000 puts. */
    enum { EPOCH_OPS = 20000 };
    static const char *epoch[] = { "put_epoch", "acc_epoch" };
    for (int op = 0; op < 2 && !cas_only; op++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            long one = 1;
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            double t = MPI_Wtime();
            for (int i = 0; i < EPOCH_OPS; i++) {
                MPI_Aint disp = base[1] + (MPI_Aint)i * 8;
                if (op == 0)
                    MPI_Put(&one, 1, MPI_LONG, 1, disp, 1, MPI_LONG, win);
                else
                    MPI_Accumulate(&one, 1, MPI_LONG, 1, disp, 1, MPI_LONG, MPI_SUM, win);
            }
            MPI_Win_flush(1, win);
            t = MPI_Wtime() - t;
            MPI_Win_unlock(1, win);
            printf("%s,8,%.3f\n", epoch[op], t / EPOCH_OPS * 1e6);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* 8 B put and get with fence (active target, both ranks time). */
    for (int op = 0; op < 2 && !cas_only; op++) {
        int it = iters;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_fence(0, win);
        double t = 0;
        for (int i = -it / 10; i < it; i++) {
            if (i == 0) t = MPI_Wtime();
            for (int r = 0; r < 2; r++) { /* rank 0 accesses rank 1, then the other way */
                if (rank == r) {
                    if (op == 0)
                        MPI_Put(buf, 8, MPI_CHAR, 1 - r, base[1 - r], 8, MPI_CHAR, win);
                    else
                        MPI_Get(buf, 8, MPI_CHAR, 1 - r, base[1 - r], 8, MPI_CHAR, win);
                }
                MPI_Win_fence(0, win);
            }
        }
        t = MPI_Wtime() - t;
        if (rank == 0) printf("%s_fence_latency,8,%.3f\n", op == 0 ? "put" : "get", t / (2.0 * it) * 1e6);
    }
    if (!cas_only) MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(buf);
    MPI_Finalize();
    return 0;
}
