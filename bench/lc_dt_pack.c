/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_pack.c — MPI_Pack / MPI_Unpack bandwidth of the two layouts the
 * datatype work is measured on, against memcpy of the same bytes:
 *   - a vector of 64-byte blocks at a 128-byte stride (8 doubles of 16),
 *     4 KiB to 16 MiB of data;
 *   - the faces of a 256^3 array of doubles (512 KiB each): x (8-byte
 *     elements 2 KiB apart), y (2 KiB rows 512 KiB apart), z (one run).
 * One process, no communication: it measures the pack engine alone and
 * builds with any MPI (Locus, MPICH, Open MPI), so the engines compare.
 *
 *   mpicc -O2 -o lc_dt_pack bench/lc_dt_pack.c && mpiexec -n 1 ./lc_dt_pack [--quick]
 *
 * Each figure is the best of several timed rounds of at least 50 ms:
 * on a shared machine the best round is the one least disturbed.
 */
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "--quick") == 0) rounds = 3, min_round = 0.02;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl) *nl = '\0';
    printf("# %s\n", lib);
    printf("# GB/s of packed data; ratio = pack (unpack) / memcpy of the same bytes\n");
    printf("%-26s %9s %9s %9s %9s %7s %7s\n", "layout", "bytes", "pack", "unpack", "memcpy", "p/mcpy", "u/mcpy");

    /* vector of 64 B blocks, 128 B stride */
    static const int sizes[] = { 4 << 10, 64 << 10, 1 << 20, 16 << 20 };
    double *vec = malloc((size_t)2 * (16 << 20) + 128);
    memset(vec, 3, (size_t)2 * (16 << 20));
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        MPI_Datatype t;
        char name[64];
        MPI_Type_vector(sizes[i] / 64, 8, 16, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        snprintf(name, sizeof name, "vector 64B/128B %dK", sizes[i] >> 10);
        measure(name, t, vec);
        MPI_Type_free(&t);
    }
    free(vec);

    /* faces of a 256^3 double array */
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
        measure(faces[f].name, t, cube);
        MPI_Type_free(&t);
    }
    free(cube);
    MPI_Finalize();
    return 0;
}
