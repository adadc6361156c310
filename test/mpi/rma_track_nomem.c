/* SPDX-License-Identifier: BSD-3-Clause */
/* rma_track_nomem.c: a one-sided operation that cannot be tracked fails
 * cleanly: MPI_ERR_NO_MEM, nothing leaked, the window still right.
 *
 * The program defines realloc (which the library's calls bind to: the
 * executable comes first in the symbol search) and makes it fail while
 * `fail_realloc` is set; the library grows the list of its requests in
 * flight with realloc, so the first operations of the epoch, on the
 * active-message path (CMA off: LOCUS_CMA=0) on a new window, meet the
 * failure.  For Get
 * and Get_accumulate into a strided result type (the answer lands in a
 * packed buffer the library allocates), Fetch_and_op and
 * Compare_and_swap, rank 0 calls each with realloc failing until one
 * fails (up to TRIES calls, no flush between them: the list grows when
 * full), flushes, checks those that succeeded, then calls once more with
 * realloc working and checks that one.  A library
 * that posts the answer's receive before it tracks it leaks the packed
 * result buffer and the receive's request on that failure (AddressSanitizer's
 * leak check fails the run) and leaves a receive no flush waits for.
 * Argument: the kinds to run, digits 0-3 in the order above (default
 * all: "01" shows the leak alone under ASan, without the Fetch_and_op's
 * failure ending the job first).
 * The test needs a library that grows that list with realloc (Locus):
 * it fails when no call ever fails. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT, sched_setaffinity (also set by the build) */
#endif
#include "lc_test.h"

#include "lc_test_realloc.h"

#define NV 4 /* elements of the strided result */
#define TRIES 256

static long value(int i)
{
    return 1000L + 7L * i;
}

/* One call of kind `kind` to rank 1's memory; its result lands in res. */
static int call(int kind, MPI_Win win, MPI_Datatype vec, long *res)
{
    long one = 1, cmp = value(NV), neu = value(NV);
    switch (kind) {
    case 0:
        return MPI_Get(res, 1, vec, 1, 0, NV, MPI_LONG, win);
    case 1:
        return MPI_Get_accumulate(NULL, 0, MPI_LONG, res, 1, vec, 1, 0, NV, MPI_LONG, MPI_NO_OP, win);
    case 2:
        return MPI_Fetch_and_op(&one, res, MPI_LONG, 1, NV + 1, MPI_SUM, win);
    default:
        return MPI_Compare_and_swap(&neu, &cmp, res, MPI_LONG, 1, NV, win);
    }
}

static const char *names[] = { "MPI_Get", "MPI_Get_accumulate", "MPI_Fetch_and_op", "MPI_Compare_and_swap" };

/* The result of call(kind) that came `nth` of its window's calls. */
static void check(int kind, const long *res, int nth)
{
    if (kind == 2) {
        LC_CHECK(res[0] == nth, "%s number %d fetched %ld", names[kind], nth, res[0]);
    } else if (kind == 3) {
        LC_CHECK(res[0] == value(NV), "%s fetched %ld, not %ld", names[kind], res[0], value(NV));
    } else {
        for (int i = 0; i < NV; i++)
            LC_CHECK(res[2 * i] == value(i) && res[2 * i + 1] == -1, "%s: element %d is %ld (gap %ld)", names[kind], i,
                     res[2 * i], res[2 * i + 1]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank(), size = lc_world_size();
    if (size < 2) LC_FATAL("run with 2 ranks or more");
    MPI_Datatype vec; /* NV longs, every other one */
    LC_MPI(MPI_Type_vector(NV, 1, 2, MPI_LONG, &vec));
    LC_MPI(MPI_Type_commit(&vec));
    /* A window per kind: each starts with an empty list of requests, which
     * its first operation has to grow. */
    const char *kinds = argc > 1 ? argv[1] : "0123";
    for (int kind = 0; kind < 4; kind++) {
        if (!strchr(kinds, '0' + kind)) continue;
        long mem[NV + 2];
        for (int i = 0; i < NV; i++) mem[i] = value(i);
        mem[NV] = value(NV);
        mem[NV + 1] = 0;
        MPI_Win win;
        LC_MPI(MPI_Win_create(mem, sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        long adds = 0; /* Fetch_and_op calls that succeeded */
        if (rank == 0) {
            LC_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
            /* No flush between the calls: the list only grows when full. */
            int failed = 0, ok = 0;
            static long many[TRIES][2 * NV];
            for (int t = 0; t < TRIES && !failed; t++) {
                for (int i = 0; i < 2 * NV; i++) many[t][i] = -1;
                fail_realloc = 1;
                int rc = call(kind, win, vec, many[t]);
                fail_realloc = 0;
                if (rc != MPI_SUCCESS) {
                    int cls = 0;
                    MPI_Error_class(rc, &cls);
                    LC_CHECK(cls == MPI_ERR_NO_MEM, "%s failed with %s, not MPI_ERR_NO_MEM", names[kind],
                             lc_err_str(rc));
                    failed = 1;
                } else {
                    ok++;
                }
            }
            LC_CHECK(failed, "%s never failed in %d calls with realloc failing", names[kind], TRIES);
            LC_MPI(MPI_Win_flush(1, win));
            for (int t = 0; t < ok; t++) check(kind, many[t], t);
            if (kind == 2) adds = ok;
            /* Now it must work, whether or not realloc ever mattered. */
            long res[2 * NV];
            for (int i = 0; i < 2 * NV; i++) res[i] = -1;
            LC_MPI(call(kind, win, vec, res));
            LC_MPI(MPI_Win_flush(1, win));
            check(kind, res, (int)adds);
            if (kind == 2) adds++;
            LC_MPI(MPI_Win_unlock(1, win));
        }
        LC_MPI(MPI_Bcast(&adds, 1, MPI_LONG, 0, MPI_COMM_WORLD));
        LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 1)
            LC_CHECK(mem[NV + 1] == adds, "%s: the target's counter is %ld, not %ld", names[kind], mem[NV + 1], adds);
        LC_MPI(MPI_Win_free(&win));
    }
    MPI_Type_free(&vec);
    return lc_finish();
}
