/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_pingpong.c — ping-pong of derived datatypes between two ranks on
 * one host: the layouts of lc_bench_dt_layouts (vectors of 64-byte blocks
 * at a 128-byte stride, 4 KiB to 16 MiB; the faces of N^3 arrays of
 * doubles, 8 KiB to 2 MiB), sent and received with the type on both sides (MPI_Send /
 * MPI_Recv); for reference 8 bytes of MPI_DOUBLE, and each vector's and
 * each z face's bytes as one contiguous run of MPI_BYTE ("contig").
 * Builds with any MPI, so Locus, MPICH and Open MPI run the same source:
 *
 *   mpicc -O2 -o lc_dt_pingpong bench/lc_dt_pingpong.c bench/lc_bench_util.c
 *   mpiexec -n 2 ./lc_dt_pingpong [--quick] [-f csv]
 *
 * Each figure is the fastest of many round trips (shared machine; their
 * number is bounded by bytes and by time, see pingpong()): one-way
 * time = round trip / 2, bandwidth = packed bytes / one-way time.  -c
 * checks each layout's data once, outside the timed loop; exit status 2
 * (and "VALIDATION FAILED" on stderr) when it arrived wrong.
 */
#include "lc_bench_util.h"

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rounds = 7, rank;

static void round_trip(void *buf, int count, MPI_Datatype t)
{
    if (rank == 0) {
        MPI_Send(buf, count, t, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, count, t, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buf, count, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, count, t, 0, 0, MPI_COMM_WORLD);
    }
}

/* Best one-way time of count items of t at buf: the fastest of many
 * single round trips (on a loaded machine the fastest is the one no other
 * job interrupted).  As many as move about 0.4 GB (x rounds/7), at most
 * 1000, but no more than a time budget of 50 ms x rounds allows (a layout
 * an MPI moves at 50 MB/s, or round trips that each wait for a time slice
 * on a loaded host, would otherwise take seconds), and at least
 * 2 x rounds.  Rank 0 judges the budget every 8 round trips and tells
 * rank 1 (untimed). */
static double pingpong(void *buf, int count, MPI_Datatype t, double bytes)
{
    int iters = (int)(4e8 / (bytes + 4096) * rounds / 7);
    if (iters > 1000) iters = 1000;
    if (iters < 2 * rounds) iters = 2 * rounds;
    double best = 1e30, budget = 0.05 * rounds;
    MPI_Barrier(MPI_COMM_WORLD);
    round_trip(buf, count, t); /* warm-up */
    double start = MPI_Wtime();
    for (int i = 0; i < iters;) {
        double t0 = MPI_Wtime();
        round_trip(buf, count, t);
        double dt = (MPI_Wtime() - t0) / 2;
        if (dt < best) best = dt;
        if (++i % 8 == 0 && i < iters) {
            int stop = rank == 0 && i >= 2 * rounds && MPI_Wtime() - start > budget;
            MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (stop) break;
        }
    }
    MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return best;
}

static int csv, validate;
static unsigned long long bad; /* layouts whose data arrived wrong */

/* One checked exchange outside the timed loop: rank 0 unpacks a pattern
 * into what the type selects and sends it through the type; rank 1
 * unpacks the pattern's complement into the same places, receives, and
 * compares what the type selects (packed) with the pattern.  Only the
 * selected bytes are touched (a face of a 512^3 array selects 2 MiB of
 * its 1 GiB). */
static void check(const char *key, void *buf, int count, MPI_Datatype t, int bytes)
{
    char *expect = malloc((size_t)bytes + 1), *got = malloc((size_t)bytes + 1);
    int pos = 0;
    lc_bench_pattern_fill(expect, (size_t)bytes, 11, rank == 1);
    MPI_Unpack(expect, bytes, &pos, buf, count, t, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Send(buf, count, t, 1, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(buf, count, t, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pos = 0;
        MPI_Pack(buf, count, t, got, bytes, &pos, MPI_COMM_WORLD);
        lc_bench_pattern_fill(expect, (size_t)bytes, 11, 0);
        if (memcmp(expect, got, (size_t)bytes) != 0) {
            fprintf(stderr, "rank 1: layout %s (%d bytes) arrived wrong\n", key, bytes);
            bad++;
        }
    }
    free(expect);
    free(got);
}

static void measure(const char *key, const char *name, void *buf, int count, MPI_Datatype t)
{
    int size;
    MPI_Type_size(t, &size);
    if (validate) check(key, buf, count, t, size * count);
    double bytes = (double)size * count, s = pingpong(buf, count, t, bytes);
    if (rank == 0) {
        if (csv) printf("%s,%.0f,%.3f,%.1f\n", key, bytes, s * 1e6, bytes / s / 1e6);
        else printf("%-28s %9.0f %10.2f %9.3f\n", name, bytes, s * 1e6, bytes / s / 1e9);
    }
    fflush(stdout);
}

/* Each layout, and for vectors and z faces the same bytes as MPI_BYTE. */
static void measure_layout(const lc_bench_layout *l, void *arg)
{
    (void)arg;
    measure(l->key, l->name, l->buf, 1, l->type);
    if (strcmp(l->key, "vector") == 0 || strcmp(l->key, "face_z") == 0) {
        char name[64];
        snprintf(name, sizeof name, "contiguous %dK", l->bytes >> 10);
        measure("contig", name, l->buf, l->bytes, MPI_BYTE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) rounds = 3;
        else if (strcmp(argv[i], "-c") == 0) validate = 1;
        else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc && strcmp(argv[i + 1], "csv") == 0) csv = 1, i++;
        else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc && strcmp(argv[i + 1], "table") == 0) csv = 0, i++;
        else {
            if (rank == 0) fprintf(stderr, "usage: lc_dt_pingpong [--quick] [-c] [-f table|csv]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (rank == 0) {
        lc_bench_print_library("derived-datatype ping-pong");
        if (csv) {
            printf("test,size,latency_us,bandwidth_MBps\n");
        } else {
            printf("# one-way time (us) and bandwidth (GB/s of packed data), fastest round trip\n");
            printf("%-28s %9s %10s %9s\n", "layout", "bytes", "us", "GB/s");
        }
    }
    double small[2] = { 1, 2 };
    measure("double", "8 B MPI_DOUBLE", small, 1, MPI_DOUBLE);
    int rc = lc_bench_dt_layouts(measure_layout, NULL) == 0 ? 0 : 1;
    /* Every rank learns the validation outcome so all exit alike. */
    unsigned long long bad_total = 0;
    MPI_Allreduce(&bad, &bad_total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (bad_total != 0) {
        if (rank == 0) fprintf(stderr, "VALIDATION FAILED: %llu layouts\n", bad_total);
        rc = 2;
    } else if (validate && rank == 0) {
        printf("# validation passed\n");
    }
    MPI_Finalize();
    return rc;
}
