/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_osu_icoll.c - nonblocking collectives: latency and overlap, measured
 * the way the OSU micro-benchmarks (osu_iallreduce, osu_ibarrier) do, so
 * the same source built with each MPI's mpicc compares them.
 *
 *   latency  Ibarrier + Wait, Iallreduce(8 B) + Wait, next to the blocking
 *            Barrier and Allreduce(8 B): mean us per operation (max over
 *            ranks).
 *   overlap  for Iallreduce and Ialltoall of SIZE bytes: t_pure = start +
 *            wait alone; t_cpu = a compute phase as long as t_pure; t_total
 *            = start, compute, wait.  overlap % = 100 * (1 - (t_total -
 *            t_cpu) / t_pure), clipped to [0, 100].  Run twice: compute
 *            without any MPI call (only an asynchronous progress thread
 *            could overlap), and with TESTS MPI_Test calls spread over the
 *            compute phase (what an application without such a thread
 *            does).
 *
 * Usage: lc_osu_icoll [-i iters] [-s bytes] [-t tests]
 * Output: one "name value unit" line per metric on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;

/* Busy compute for `sec` seconds, calling MPI_Test `tests` times along
 * the way (req may be MPI_REQUEST_NULL). */
static void compute(double sec, int tests, MPI_Request *req)
{
    double t0 = MPI_Wtime(), slice = tests > 0 ? sec / tests : sec;
    double next = t0 + slice, x = 1.0;
    int done = 0;
    while (MPI_Wtime() - t0 < sec) {
        for (int i = 0; i < 200; i++) x = x * 1.0000001 + 1e-9;
        if (tests > 0 && MPI_Wtime() >= next) {
            if (!done && *req != MPI_REQUEST_NULL) MPI_Test(req, &done, MPI_STATUS_IGNORE);
            next += slice;
        }
    }
    sink = x;
}

static double max_over_ranks(double v)
{
    double m;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

enum { OP_IBARRIER, OP_BARRIER, OP_IALLREDUCE, OP_ALLREDUCE, OP_IALLTOALL };

static void one(int op, void *sb, void *rb, int count, MPI_Request *req)
{
    switch (op) {
    case OP_IBARRIER: MPI_Ibarrier(MPI_COMM_WORLD, req); break;
    case OP_BARRIER: MPI_Barrier(MPI_COMM_WORLD); *req = MPI_REQUEST_NULL; break;
    case OP_IALLREDUCE: MPI_Iallreduce(sb, rb, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, req); break;
    case OP_ALLREDUCE: MPI_Allreduce(sb, rb, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); *req = MPI_REQUEST_NULL; break;
    case OP_IALLTOALL: {
        int p;
        MPI_Comm_size(MPI_COMM_WORLD, &p);
        MPI_Ialltoall(sb, count / p, MPI_FLOAT, rb, count / p, MPI_FLOAT, MPI_COMM_WORLD, req);
        break;
    }
    }
}

/* Mean seconds of op + wait (with a compute phase of `cpu` seconds and
 * `tests` MPI_Test calls in it when cpu > 0). */
static double timed(int op, void *sb, void *rb, int count, int iters, double cpu, int tests)
{
    MPI_Request req;
    for (int i = 0; i < iters / 10 + 1; i++) { /* warm-up */
        one(op, sb, rb, count, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        one(op, sb, rb, count, &req);
        if (cpu > 0) compute(cpu, tests, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    return max_over_ranks((MPI_Wtime() - t0) / iters);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = 1000, tests = 16, rank;
    long bytes = 1 << 20;
    int c;
    while ((c = getopt(argc, argv, "i:s:t:")) != -1) {
        if (c == 'i') iters = atoi(optarg);
        else if (c == 's') bytes = atol(optarg);
        else if (c == 't') tests = atoi(optarg);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int count = (int)(bytes / sizeof(float));
    float *sb = calloc((size_t)count + 2, sizeof(float)), *rb = calloc((size_t)count + 2, sizeof(float));

    double lat[4];
    lat[0] = timed(OP_IBARRIER, sb, rb, 2, iters, 0, 0);
    lat[1] = timed(OP_BARRIER, sb, rb, 2, iters, 0, 0);
    lat[2] = timed(OP_IALLREDUCE, sb, rb, 2, iters, 0, 0);
    lat[3] = timed(OP_ALLREDUCE, sb, rb, 2, iters, 0, 0);
    if (rank == 0) {
        printf("ibarrier_latency %.2f us\n", lat[0] * 1e6);
        printf("barrier_latency %.2f us\n", lat[1] * 1e6);
        printf("iallreduce_8B_latency %.2f us\n", lat[2] * 1e6);
        printf("allreduce_8B_latency %.2f us\n", lat[3] * 1e6);
    }
    int big_iters = iters / 20 > 10 ? iters / 20 : 10;
    const char *names[2] = { "iallreduce", "ialltoall" };
    int ops[2] = { OP_IALLREDUCE, OP_IALLTOALL };
    for (int k = 0; k < 2; k++) {
        double pure = timed(ops[k], sb, rb, count, big_iters, 0, 0);
        for (int t = 0; t < 2; t++) {
            int nt = t ? tests : 0;
            double total = timed(ops[k], sb, rb, count, big_iters, pure, nt);
            double ov = 100.0 * (1.0 - (total - pure) / pure);
            if (ov < 0) ov = 0;
            if (ov > 100) ov = 100;
            if (rank == 0) {
                printf("%s_%ldB_pure %.1f us\n", names[k], bytes, pure * 1e6);
                printf("%s_%ldB_total_tests%d %.1f us\n", names[k], bytes, nt, total * 1e6);
                printf("%s_%ldB_overlap_tests%d %.1f %%\n", names[k], bytes, nt, ov);
            }
        }
    }
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
