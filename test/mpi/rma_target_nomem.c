/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_target_nomem.c: a target that cannot get the memory to serve a
 * one-sided request does not end the job: the origin's operation fails
 * with MPI_ERR_NO_MEM, was not applied, and the window stays usable.
 *
 * The program defines realloc (which the library's calls bind to: the
 * executable comes first in the symbol search), failing while
 * `fail_realloc` is set.  Rank 1 (the target, Win_create memory: active
 * messages, CMA off: LOCUS_CMA=0) sets it and serves from a barrier
 * while rank 0, in a shared lock (granted before), starts ROUNDS pairs of
 * a 16 KiB MPI_Rget (an answer larger than one eager packet: a send the
 * target tracks until rank 0 takes it) and an MPI_Rget_accumulate adding
 * 1 to a counter, then waits for each: the target's queue of answers in
 * flight has to grow past its first 8, which fails.  Each must
 * succeed with the right data or fail with MPI_ERR_NO_MEM having changed
 * nothing.  Then rank 0 unlocks (the target's lock must go: the next
 * phase locks exclusively), the target gets realloc back, and the same
 * operations must all succeed; the counter must hold the increments that
 * succeeded.  On the library that tracked the target's answers with
 * lc_fatal on failure, the job ended at the first GET ("cannot answer a
 * one-sided request"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include "lc_test.h"

#include "lc_test_realloc.h"

#define NL 2048   /* longs of the GET: 16 KiB */
#define ROUNDS 12 /* the target's queue of answers it sends has room for 8, then grows */

/* One phase: ROUNDS pairs of a GET of the target's NL longs and an
 * increment of its counter (mem[NL]), all in flight at once (the GETs'
 * answers stay in flight at the target until we take them: it tracks
 * them), then each waited for.  Returns the increments that succeeded
 * (their old values must be 0, 1, ... from `base` in order); *failed_p
 * counts the operations that failed (with MPI_ERR_NO_MEM, checked). */
static long phase(MPI_Win win, long (*buf)[NL], long base, int *failed_p)
{
    long done = 0, one = 1, old[ROUNDS];
    MPI_Request req[2 * ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < NL; i++) buf[r][i] = -1;
        old[r] = -1;
        LC_MPI(MPI_Rget(buf[r], NL, MPI_LONG, 1, 0, NL, MPI_LONG, win, &req[2 * r]));
        LC_MPI(MPI_Rget_accumulate(&one, 1, MPI_LONG, &old[r], 1, MPI_LONG, 1, NL, 1, MPI_LONG, MPI_SUM, win,
                                   &req[2 * r + 1]));
    }
    for (int r = 0; r < ROUNDS; r++) {
        int rc = MPI_Wait(&req[2 * r], MPI_STATUS_IGNORE), cls = 0;
        if (rc == MPI_SUCCESS) {
            for (int i = 0; i < NL; i++)
                LC_CHECK(buf[r][i] == 3L * i, "GET %d: element %d is %ld, not %ld", r, i, buf[r][i], 3L * i);
        } else {
            MPI_Error_class(rc, &cls);
            LC_CHECK(cls == MPI_ERR_NO_MEM, "MPI_Rget failed with %s, not MPI_ERR_NO_MEM", lc_err_str(rc));
            for (int i = 0; i < NL; i++) LC_CHECK(buf[r][i] == -1, "a failed GET wrote element %d (%ld)", i, buf[r][i]);
            ++*failed_p;
        }
        rc = MPI_Wait(&req[2 * r + 1], MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) {
            LC_CHECK(old[r] == base + done, "increment %d found %ld, not %ld", r, old[r], base + done);
            done++;
        } else {
            MPI_Error_class(rc, &cls);
            LC_CHECK(cls == MPI_ERR_NO_MEM, "MPI_Rget_accumulate failed with %s, not MPI_ERR_NO_MEM", lc_err_str(rc));
            ++*failed_p;
        }
    }
    return done;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    if (size < 2) LC_FATAL("run with 2 ranks or more");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long *mem = lc_malloc((NL + 1) * sizeof(long));
    for (int i = 0; i < NL; i++) mem[i] = 3L * i;
    mem[NL] = 0;
    long(*buf)[NL] = lc_malloc(ROUNDS * sizeof *buf);
    MPI_Win win;
    LC_MPI(MPI_Win_create(mem, (NL + 1) * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    long adds = 0;
    int failed = 0;
    if (rank == 0) LC_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win)); /* granted from the barrier */
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) fail_realloc = 1;
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* rank 1 serves phase 1 from the next one */
    if (rank == 0) {
        adds += phase(win, buf, adds, &failed);
        /* The failures are reported here again (the flush's), or not at
         * all: either way the lock must be released. */
        int rc = MPI_Win_unlock(1, win), cls = 0;
        MPI_Error_class(rc, &cls);
        LC_CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_NO_MEM, "MPI_Win_unlock failed with %s", lc_err_str(rc));
        printf("rma_target_nomem: %d of %d operations failed with the target's realloc failing\n", failed, 2 * ROUNDS);
        /* The test needs a library that grows that queue with realloc (Locus). */
        LC_CHECK(failed > 0, "no operation failed in %d with the target's realloc failing", 2 * ROUNDS);
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    fail_realloc = 0;
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* rank 1 has realloc again before phase 2 */
    if (rank == 0) {
        /* The window works as before, and the lock was released. */
        LC_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        int again = 0;
        adds += phase(win, buf, adds, &again);
        LC_CHECK(again == 0, "%d operations failed with the target's realloc working", again);
        LC_MPI(MPI_Win_unlock(1, win));
    }
    LC_MPI(MPI_Bcast(&adds, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1)
        LC_CHECK(mem[NL] == adds, "the counter is %ld, not the %ld increments that succeeded", mem[NL], adds);
    LC_MPI(MPI_Win_free(&win));
    free(buf);
    free(mem);
    return lc_finish();
}
