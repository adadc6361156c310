/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_pingpong.c — ping-pong of derived datatypes between two ranks on
 * one host: the layouts of lc_dt_pack.c, now sent and received with the
 * type on both sides (MPI_Send / MPI_Recv):
 *   - a vector of 64-byte blocks at a 128-byte stride, 4 KiB to 16 MiB;
 *   - the faces of a 256^3 array of doubles (512 KiB each): x (8-byte
 *     elements 2 KiB apart), y (2 KiB rows 512 KiB apart), z (one run);
 *   - 8 bytes of MPI_DOUBLE and the same bytes as one contiguous run, for
 *     reference.
 * Builds with any MPI, so Locus, MPICH and Open MPI run the same source:
 *
 *   mpicc -O2 -o lc_dt_pingpong bench/lc_dt_pingpong.c && mpiexec -n 2 ./lc_dt_pingpong [--quick]
 *
 * Each figure is the fastest of many round trips (shared machine): one-way
 * time = round trip / 2, bandwidth = packed bytes / one-way time.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rounds = 7, rank;

/* Best one-way time of count items of t at buf: the fastest of many
 * single round trips (on a loaded machine the fastest is the one no other
 * job interrupted). */
static double pingpong(void *buf, int count, MPI_Datatype t, double bytes)
{
    int iters = (int)(4e8 / (bytes + 4096) * rounds / 7);
    if (iters < 4 * rounds) iters = 4 * rounds;
    if (iters > 1000) iters = 1000;
    double best = 1e30;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, count, t, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, count, t, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, count, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, count, t, 0, 0, MPI_COMM_WORLD);
        }
        double dt = (MPI_Wtime() - t0) / 2;
        if (dt < best) best = dt;
    }
    MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return best;
}

static void measure(const char *name, void *buf, int count, MPI_Datatype t)
{
    int size;
    MPI_Type_size(t, &size);
    double bytes = (double)size * count, s = pingpong(buf, count, t, bytes);
    if (rank == 0) printf("%-28s %9.0f %10.2f %9.3f\n", name, bytes, s * 1e6, bytes / s / 1e9);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "--quick") == 0) rounds = 3;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl) *nl = '\0';
    if (rank == 0) {
        printf("# %s\n# one-way time (us) and bandwidth (GB/s of packed data), fastest round trip\n", lib);
        printf("%-28s %9s %10s %9s\n", "layout", "bytes", "us", "GB/s");
    }
    double small[2] = { 1, 2 };
    measure("8 B MPI_DOUBLE", small, 1, MPI_DOUBLE);

    static const int sizes[] = { 4 << 10, 64 << 10, 1 << 20, 16 << 20 };
    double *vec = malloc((size_t)2 * (16 << 20) + 128);
    memset(vec, 3, (size_t)2 * (16 << 20));
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        MPI_Datatype t;
        char name[64];
        MPI_Type_vector(sizes[i] / 64, 8, 16, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        snprintf(name, sizeof name, "vector 64B/128B %dK", sizes[i] >> 10);
        measure(name, vec, 1, t);
        MPI_Type_free(&t);
        snprintf(name, sizeof name, "contiguous %dK", sizes[i] >> 10);
        measure(name, vec, sizes[i], MPI_BYTE);
    }
    free(vec);

    const int n = 256;
    double *cube = malloc((size_t)n * n * n * sizeof(double));
    memset(cube, 4, (size_t)n * n * n * sizeof(double));
    int sz[3] = { n, n, n }, st[3] = { 0, 0, 0 };
    struct {
        const char *name;
        int sub[3];
    } faces[] = { { "256^3 face x (8B/2KiB)", { n, n, 1 } },
                  { "256^3 face y (2KiB/512KiB)", { n, 1, n } },
                  { "256^3 face z (contiguous)", { 1, n, n } } };
    for (int f = 0; f < 3; f++) {
        MPI_Datatype t;
        MPI_Type_create_subarray(3, sz, faces[f].sub, st, MPI_ORDER_C, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        measure(faces[f].name, cube, 1, t);
        MPI_Type_free(&t);
    }
    free(cube);
    MPI_Finalize();
    return 0;
}
