/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_free_answers.c: MPI_Win_free releases every request the window
 * still tracks, the answers a target sent from inside MPI_Win_free's own
 * wait included (MPI 4.1 §12.2.5: free waits until every rank is done).
 *
 * Rank 1 (the target, Win_create memory: active messages, CMA off:
 * LOCUS_CMA=0) calls MPI_Win_free at once; rank 0 meanwhile, in
 * lock_all, starts K MPI_Get_accumulate (MPI_NO_OP) with 16 KiB results
 * (answers larger than one eager packet: sends the target tracks, with a
 * buffer of their own), flushes and frees.  So the target serves them
 * and tracks their answers while it waits in MPI_Win_free.  Rank 1
 * measures its heap in use (mallinfo2) before the window and after its
 * free, on the second of two rounds (the first warms the library's
 * caches and pools up): it must not have grown by LEAK_MAX.  The library
 * that freed the queues without releasing their requests left all K
 * answers' buffers behind (K x 16 KiB; LeakSanitizer reports them under
 * ASan) and their requests in the pool for good. */
#include "lc_test.h"

#include <malloc.h>
#include <time.h>

#define NL 2048 /* longs per result: 16 KiB */
#define K 16
#define LEAK_MAX (64 * 1024)

static size_t heap_used(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/* One window's life; rank 1's heap growth over it, in bytes (rank 0: 0). */
static long round_trip(int rank, long (*res)[NL])
{
    size_t before = rank == 1 ? heap_used() : 0;
    long *mem = lc_malloc(NL * sizeof(long));
    for (int i = 0; i < NL; i++) mem[i] = 5L * i + 1;
    MPI_Win win;
    LC_MPI(MPI_Win_create(mem, NL * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        /* Let rank 1 get into MPI_Win_free first: it serves from there. */
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        LC_MPI(MPI_Win_lock_all(0, win));
        for (int k = 0; k < K; k++) {
            for (int i = 0; i < NL; i++) res[k][i] = -1;
            LC_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG, res[k], NL, MPI_LONG, 1, 0, NL, MPI_LONG, MPI_NO_OP, win));
        }
        LC_MPI(MPI_Win_flush(1, win));
        LC_MPI(MPI_Win_unlock_all(win));
        for (int k = 0; k < K; k++)
            for (int i = 0; i < NL; i++)
                LC_CHECK(res[k][i] == 5L * i + 1, "result %d, element %d is %ld, not %ld", k, i, res[k][i], 5L * i + 1);
    }
    LC_MPI(MPI_Win_free(&win));
    free(mem);
    return rank == 1 ? (long)(heap_used() - before) : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    if (size < 2) LC_FATAL("run with 2 ranks or more");
    long(*res)[NL] = lc_malloc(K * sizeof *res);
    round_trip(rank, res); /* warm-up */
    long grew = round_trip(rank, res);
    if (rank == 1) {
        printf("rma_free_answers: the target's heap grew by %ld bytes over a window's life\n", grew);
        LC_CHECK(grew < LEAK_MAX, "the target's heap grew by %ld bytes over a window's life (%d answers of %zu bytes)",
                 grew, K, NL * sizeof(long));
    }
    free(res);
    return lc_finish();
}
