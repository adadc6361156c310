/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_answer_nomem.c: a target with no request to spare (its request pool
 * used up and realloc failing, so the pool cannot grow) neither ends the
 * job nor applies anything it cannot answer:
 *   phase A: a 16 KiB MPI_Rget and a 16 KiB MPI_Rget_accumulate(MPI_NO_OP)
 *     need a send request for their answers (larger than one packet):
 *     each fails with MPI_ERR_NO_MEM and writes nothing;
 *   phase B: a 32 KiB MPI_Get_accumulate(MPI_SUM) arrives as a rendezvous,
 *     whose receive the target cannot post: it waits, is served once the
 *     target has requests again, and is applied exactly once.
 * Rank 1 (the target, Win_create memory: active messages, CMA off:
 * LOCUS_CMA=0) makes persistent sends (never started) until
 * MPI_Send_init fails,
 * and serves with MPI_Iprobe (which needs no request) until rank 0 says
 * phase A is over, then a while longer (phase B's request is in by then),
 * then frees them and gets realloc back.  On the library that
 * allocated the answer's send request after applying, the target ended
 * the job in phase A ("cannot allocate the request answering a one-sided
 * request"); with phase A passed, at phase B's receive ("cannot receive a
 * one-sided request"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include "lc_test.h"

#include "lc_test_realloc.h"

#include <time.h>

#define NL 2048         /* longs of phase A: 16 KiB */
#define NB 4096         /* longs of phase B: 32 KiB */
#define MAX_REQS 200000 /* more than the pool could hold without growing */

static int cls(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

static MPI_Request *held;
static int nheld;

/* Rank 1: take every request the pool has left (persistent sends, never
 * started), up to MAX_REQS: how the last call ended. */
static int grab(void)
{
    int dummy = 0, rc = MPI_SUCCESS;
    while (nheld < MAX_REQS &&
           (rc = MPI_Send_init(&dummy, 1, MPI_INT, 0, 999, MPI_COMM_WORLD, &held[nheld])) == MPI_SUCCESS)
        nheld++;
    return rc;
}

/* Rank 1: serve (one progress pass per MPI_Iprobe) for `ms` milliseconds,
 * taking back every request the engine releases meanwhile (the answers
 * it sent before, once complete), so none is there for an answer. */
static void serve_for(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        int flag;
        MPI_Iprobe(0, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        grab();
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void target(long *mem)
{
    held = lc_malloc(MAX_REQS * sizeof *held);
    fail_realloc = 1;
    int rc = grab();
    LC_CHECK(nheld < MAX_REQS && cls(rc) == MPI_ERR_NO_MEM,
             "%d sends made, the last returned %s (the pool did not run out)", nheld, lc_err_str(rc));
    serve_for(100); /* the warm-up's answer released, and taken */
    LC_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD));
    /* Phase A: serve until rank 0 says it is over (probe only: a receive
     * needs a request), then phase B's request comes and must wait. */
    for (int flag = 0; !flag;) {
        MPI_Iprobe(0, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        grab();
    }
    serve_for(300);
    for (int i = 0; i < nheld; i++) MPI_Request_free(&held[i]); /* never started */
    fail_realloc = 0;
    LC_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < NL; i++) LC_CHECK(mem[i] == 3L * i, "element %d is %ld, not %ld", i, mem[i], 3L * i);
    free(held);
}

static void origin(MPI_Win win, long *buf, long *res)
{
    MPI_Request req[2];
    for (int i = 0; i < NB; i++) buf[i] = res[i] = -1;
    LC_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* its pool is empty */
    LC_MPI(MPI_Rget(buf, NL, MPI_LONG, 1, 0, NL, MPI_LONG, win, &req[0]));
    LC_MPI(MPI_Rget_accumulate(NULL, 0, MPI_LONG, res, NL, MPI_LONG, 1, 0, NL, MPI_LONG, MPI_NO_OP, win, &req[1]));
    int rc = MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    LC_CHECK(cls(rc) == MPI_ERR_NO_MEM, "phase A: MPI_Rget returned %s, not MPI_ERR_NO_MEM", lc_err_str(rc));
    rc = MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    LC_CHECK(cls(rc) == MPI_ERR_NO_MEM, "phase A: MPI_Rget_accumulate returned %s, not MPI_ERR_NO_MEM", lc_err_str(rc));
    for (int i = 0; i < NL; i++) {
        LC_CHECK(buf[i] == -1, "phase A: the failed get wrote element %d (%ld)", i, buf[i]);
        LC_CHECK(res[i] == -1, "phase A: the failed get_accumulate wrote element %d (%ld)", i, res[i]);
    }
    LC_MPI(MPI_Send(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
    /* Phase B: add 1 to NB longs from NL on; the target serves it once it
     * has requests again (the flush's error is the phase A failures'). */
    for (int i = 0; i < NB; i++) buf[i] = 1;
    LC_MPI(MPI_Get_accumulate(buf, NB, MPI_LONG, res, NB, MPI_LONG, 1, NL, NB, MPI_LONG, MPI_SUM, win));
    rc = MPI_Win_flush(1, win);
    LC_CHECK(rc == MPI_SUCCESS || cls(rc) == MPI_ERR_NO_MEM, "phase B: flush returned %s", lc_err_str(rc));
    for (int i = 0; i < NB; i++)
        LC_CHECK(res[i] == 5L * i, "phase B: old element %d is %ld, not %ld", i, res[i], 5L * i);
    LC_MPI(MPI_Get(res, NB, MPI_LONG, 1, NL, NB, MPI_LONG, win));
    LC_MPI(MPI_Win_flush(1, win));
    for (int i = 0; i < NB; i++)
        LC_CHECK(res[i] == 5L * i + 1, "phase B: element %d is %ld, not %ld (applied once)", i, res[i], 5L * i + 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    if (size != 2) LC_FATAL("run with 2 ranks");
    if (lc_library_is_mpich()) { /* the test needs a library that grows its request pool with realloc */
        if (rank == 0) printf("No Errors\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long *mem = lc_malloc((NL + NB) * sizeof(long));
    for (int i = 0; i < NL; i++) mem[i] = 3L * i;
    for (int i = 0; i < NB; i++) mem[NL + i] = 5L * i;
    long *buf = lc_malloc(NB * sizeof(long)), *res = lc_malloc(NB * sizeof(long));
    MPI_Win win;
    LC_MPI(MPI_Win_create(mem, (NL + NB) * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 0) { /* granted from the barrier */
        LC_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        /* An answer sent with a request of its own first: the target's
         * queue of answers has room from here, and the request the lock's
         * grant had in hand (unused) is spent. */
        LC_MPI(MPI_Get(buf, NL, MPI_LONG, 1, 0, NL, MPI_LONG, win));
        LC_MPI(MPI_Win_flush(1, win));
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1)
        target(mem);
    else
        origin(win, buf, res);
    if (rank == 0) LC_MPI(MPI_Win_unlock(1, win));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    LC_MPI(MPI_Win_free(&win));
    free(buf);
    free(res);
    free(mem);
    return lc_finish();
}
