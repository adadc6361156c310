/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_pack.c — MPI_Pack / MPI_Unpack bandwidth of the layouts the
 * datatype work is measured on (lc_bench_dt_layouts: vectors of 64-byte
 * blocks, the faces of a 256^3 array), against memcpy of the same bytes.
 * One process, no communication:
 * it measures the pack engine alone and builds with any MPI (Locus, MPICH,
 * Open MPI), so the engines compare.
 *
 *   mpicc -O2 -o lc_dt_pack bench/lc_dt_pack.c bench/lc_bench_util.c && mpiexec -n 1 ./lc_dt_pack [--quick]
 *
 * Each figure is the best of several timed rounds of at least 50 ms:
 * on a shared machine the best round is the one least disturbed.
 */
#include "lc_bench_util.h"

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int rounds = 7;
static double min_round = 0.05;

enum { OP_PACK, OP_UNPACK, OP_MEMCPY };

/* Seconds per operation (best round). */
static double time_op(int op, MPI_Datatype t, void *mem, void *packed, void *copy, int bytes)
{
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        long iters = 0;
        double t0 = now(), t1;
        do {
            int pos = 0;
            if (op == OP_PACK) MPI_Pack(mem, 1, t, packed, bytes, &pos, MPI_COMM_SELF);
            else if (op == OP_UNPACK) MPI_Unpack(packed, bytes, &pos, mem, 1, t, MPI_COMM_SELF);
            else memcpy(copy, packed, (size_t)bytes);
            iters++;
            t1 = now();
        } while (t1 - t0 < min_round);
        double per = (t1 - t0) / iters;
        if (per < best) best = per;
    }
    return best;
}

static void measure(const char *name, MPI_Datatype t, void *mem)
{
    int bytes;
    MPI_Type_size(t, &bytes);
    char *packed = malloc((size_t)bytes), *copy = malloc((size_t)bytes);
    memset(packed, 1, (size_t)bytes);
    memset(copy, 2, (size_t)bytes);
    double tp = time_op(OP_PACK, t, mem, packed, copy, bytes);
    double tu = time_op(OP_UNPACK, t, mem, packed, copy, bytes);
    double tm = time_op(OP_MEMCPY, t, mem, packed, copy, bytes);
    double gp = bytes / tp / 1e9, gu = bytes / tu / 1e9, gm = bytes / tm / 1e9;
    printf("%-26s %9d %9.2f %9.2f %9.2f %7.2f %7.2f\n", name, bytes, gp, gu, gm, gp / gm, gu / gm);
    fflush(stdout);
    free(packed);
    free(copy);
}

static void measure_layout(const lc_bench_layout *l, void *arg)
{
    (void)arg;
    measure(l->name, l->type, l->buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "--quick") == 0) rounds = 3, min_round = 0.02;
    lc_bench_print_library("MPI_Pack / MPI_Unpack bandwidth");
    printf("# GB/s of packed data; ratio = pack (unpack) / memcpy of the same bytes\n");
    printf("%-26s %9s %9s %9s %9s %7s %7s\n", "layout", "bytes", "pack", "unpack", "memcpy", "p/mcpy", "u/mcpy");
    int rc = lc_bench_dt_layouts(measure_layout, NULL);
    MPI_Finalize();
    return rc == 0 ? 0 : 1;
}
