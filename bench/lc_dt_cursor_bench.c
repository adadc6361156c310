/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_cursor_bench.c — the datatype layer's cursor on its own: packing
 * and unpacking a whole message at once, or 8 KiB at a time with one
 * resumable cursor (as a sender fills ring cells and a receiver drains
 * them), against memcpy of the same bytes; and how fast it describes the
 * message as iovecs (for process_vm_readv).  Built with the layer
 * archives (no MPI job):
 *
 *   cmake --build build --target lc_dt_cursor_bench && build/bench/lc_dt_cursor_bench
 *
 * Layouts: a vector of 64-byte blocks at a 128-byte stride (1 MiB of
 * data) and the x and y faces of a 256^3 array of doubles (512 KiB).
 * Best of several rounds of at least 50 ms each.
 */
#include "datatype/lc_dt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK 8192

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

enum { OP_WHOLE_PACK, OP_CHUNK_PACK, OP_CHUNK_UNPACK, OP_IOV, OP_MEMCPY, OP_COUNT };
static const char *op_names[OP_COUNT] = { "pack", "pack 8K", "unpack 8K", "iovecs", "memcpy" };

static void run_op(int op, const lc_dt_t *t, char *mem, char *packed, char *copy, size_t bytes)
{
    lc_dt_cursor_t cur;
    struct iovec iov[64];
    int n;
    switch (op) {
    case OP_WHOLE_PACK: lc_dt_pack(t, 1, mem, 0, packed, bytes); break;
    case OP_CHUNK_PACK:
    case OP_CHUNK_UNPACK:
        lc_dt_cursor_init(&cur, t, 1, mem);
        for (size_t off = 0; off < bytes; off += CHUNK) {
            size_t len = bytes - off < CHUNK ? bytes - off : CHUNK;
            if (op == OP_CHUNK_PACK) lc_dt_cursor_pack(&cur, packed + off, len);
            else lc_dt_cursor_unpack(&cur, packed + off, len);
        }
        lc_dt_cursor_fini(&cur);
        break;
    case OP_IOV:
        lc_dt_cursor_init(&cur, t, 1, mem);
        while (lc_dt_cursor_iov(&cur, iov, 64, bytes, &n) > 0) {
        }
        lc_dt_cursor_fini(&cur);
        break;
    default: memcpy(copy, packed, bytes); break;
    }
}

static void measure(const char *name, lc_dt_t *t, char *mem)
{
    size_t bytes = (size_t)t->size;
    char *packed = malloc(bytes), *copy = malloc(bytes);
    memset(packed, 1, bytes);
    memset(copy, 2, bytes);
    printf("%-24s %8zu", name, bytes);
    double gb[OP_COUNT];
    for (int op = 0; op < OP_COUNT; op++) {
        double best = 1e30;
        for (int r = 0; r < 7; r++) {
            long iters = 0;
            double t0 = now(), t1;
            do {
                run_op(op, t, mem, packed, copy, bytes);
                iters++;
                t1 = now();
            } while (t1 - t0 < 0.05);
            if ((t1 - t0) / iters < best) best = (t1 - t0) / iters;
        }
        gb[op] = bytes / best / 1e9;
        printf(" %9.2f", gb[op]);
    }
    printf(" %9.2f\n", gb[OP_CHUNK_PACK] / gb[OP_MEMCPY]);
    free(packed);
    free(copy);
}

int main(void)
{
    printf("# GB/s of packed data (iovecs: bytes described per second)\n%-24s %8s", "layout", "bytes");
    for (int op = 0; op < OP_COUNT; op++) printf(" %9s", op_names[op]);
    printf(" %9s\n", "8K/mcpy");
    lc_dt_t *t;
    char *vec = malloc(2u << 20);
    memset(vec, 3, 2u << 20);
    lc_dt_create_vector(16384, 8, 128, lc_dt_get(MPI_DOUBLE), &t);
    lc_dt_commit(t);
    measure("vector 64B/128B 1M", t, vec);
    lc_dt_release(t);
    free(vec);
    const MPI_Count n = 256, sz[3] = { n, n, n }, st[3] = { 0, 0, 0 }, fx[3] = { n, n, 1 }, fy[3] = { n, 1, n };
    char *cube = malloc((size_t)(n * n * n) * sizeof(double));
    memset(cube, 4, (size_t)(n * n * n) * sizeof(double));
    lc_dt_create_subarray(3, sz, fx, st, MPI_ORDER_C, lc_dt_get(MPI_DOUBLE), &t);
    lc_dt_commit(t);
    measure("256^3 face x", t, cube);
    lc_dt_release(t);
    lc_dt_create_subarray(3, sz, fy, st, MPI_ORDER_C, lc_dt_get(MPI_DOUBLE), &t);
    lc_dt_commit(t);
    measure("256^3 face y", t, cube);
    lc_dt_release(t);
    free(cube);
    return 0;
}
