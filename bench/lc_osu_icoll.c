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
 * Usage: lc_osu_icoll [-i iters] [-s bytes] [-t tests] [-c] [-f table|csv]
 * Output: one "name value unit" line per metric on rank 0; with -f csv
 * (bench/compare.py) a "# MPI library:" line, then "test,size,value,unit"
 * rows.  -c checks the results of the 8 B Iallreduce/Allreduce and of one
 * Iallreduce of SIZE bytes (exit 2 and "VALIDATION FAILED" if wrong).
 */
#include "lc_bench_util.h"

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

static int csv;

static void metric(const char *name, long size, double value, const char *unit)
{
    if (csv)
        printf("%s,%ld,%.2f,%s\n", name, size, value, unit);
    else if (size > 0)
        printf("%s_%ldB %.2f %s\n", name, size, value, unit);
    else
        printf("%s %.2f %s\n", name, value, unit);
}

/* Every rank's contribution is 1.0 + rank at each position: the sum is
 * exact in floats for any reasonable size. */
static long check_sum(const float *rb, int count, int p)
{
    long bad = 0;
    float want = (float)p + (float)p * (float)(p - 1) / 2;
    for (int i = 0; i < count; i++) bad += rb[i] != want;
    return bad;
}

static int validate(float *sb, float *rb, int count, int rank, int p)
{
    MPI_Request req;
    long bad = 0;
    for (int i = 0; i < count; i++) sb[i] = 1.0f + (float)rank;
    for (int k = 0; k < 3; k++) {
        int n = k == 2 ? count : 2;
        memset(rb, 0, (size_t)n * sizeof(float));
        if (k == 1) {
            MPI_Allreduce(sb, rb, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        } else {
            MPI_Iallreduce(sb, rb, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        bad += check_sum(rb, n, p);
    }
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all && rank == 0) fprintf(stderr, "VALIDATION FAILED: %ld wrong sums\n", all);
    return all == 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = 1000, tests = 16, rank, p, check = 0;
    long bytes = 1 << 20;
    int c;
    while ((c = getopt(argc, argv, "i:s:t:cf:")) != -1) {
        if (c == 'i') iters = atoi(optarg);
        else if (c == 's') bytes = atol(optarg);
        else if (c == 't') tests = atoi(optarg);
        else if (c == 'c') check = 1;
        else if (c == 'f') csv = strcmp(optarg, "csv") == 0;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int count = (int)(bytes / sizeof(float));
    float *sb = calloc((size_t)count + 2, sizeof(float)), *rb = calloc((size_t)count + 2, sizeof(float));
    if (csv && rank == 0) {
        lc_bench_print_library("lc_osu_icoll");
        printf("test,size,value,unit\n");
    }
    if (check && !validate(sb, rb, count, rank, p)) {
        MPI_Finalize();
        return 2;
    }
    if (check && csv && rank == 0) printf("# validation passed\n");

    double lat[4];
    lat[0] = timed(OP_IBARRIER, sb, rb, 2, iters, 0, 0);
    lat[1] = timed(OP_BARRIER, sb, rb, 2, iters, 0, 0);
    lat[2] = timed(OP_IALLREDUCE, sb, rb, 2, iters, 0, 0);
    lat[3] = timed(OP_ALLREDUCE, sb, rb, 2, iters, 0, 0);
    if (rank == 0) {
        metric("ibarrier_latency", 0, lat[0] * 1e6, "us");
        metric("barrier_latency", 0, lat[1] * 1e6, "us");
        metric("iallreduce_latency", 8, lat[2] * 1e6, "us");
        metric("allreduce_latency", 8, lat[3] * 1e6, "us");
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
                char name[64];
                if (t == 0) {
                    snprintf(name, sizeof(name), "%s_pure", names[k]);
                    metric(name, bytes, pure * 1e6, "us");
                }
                snprintf(name, sizeof(name), "%s_total_tests%d", names[k], nt);
                metric(name, bytes, total * 1e6, "us");
                snprintf(name, sizeof(name), "%s_overlap_tests%d", names[k], nt);
                metric(name, bytes, ov, "%");
            }
        }
    }
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
