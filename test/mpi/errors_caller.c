/* SPDX-License-Identifier: BSD-3-Clause */
/* errors_caller: a function whose int and _c (large-count) forms, or
 * whose nonblocking and persistent forms, share one body reports its
 * errors under its own name: the name Locus passes a user error handler
 * (the handler's variadic argument, see src/mpi/lc_mpi_check.c) is the
 * called function's, "MPI_Put_c" for MPI_Put_c and never "MPI_Put".
 * Each call below fails on purpose (a null communicator, a rank out of
 * range, a predefined datatype that has no contents) on every rank alone;
 * nothing is left waiting.  Locus only: MPICH passes no name. */
#include "lc_test.h"

#include <stdarg.h>
#include <string.h>

static char lc_seen[64]; /* the name the last error handler call got */

static void lc_record(const char *name)
{
    snprintf(lc_seen, sizeof lc_seen, "%s", name ? name : "(none)");
}

static void lc_comm_eh(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    va_list ap;
    va_start(ap, code);
    lc_record(va_arg(ap, const char *));
    va_end(ap);
}

static void lc_win_eh(MPI_Win *win, int *code, ...)
{
    (void)win;
    (void)code;
    va_list ap;
    va_start(ap, code);
    lc_record(va_arg(ap, const char *));
    va_end(ap);
}

static void lc_expect(int rc, const char *name, int line)
{
    if (rc == MPI_SUCCESS) {
        lc_fail_at(__FILE__, line, "%s succeeded; the test wants it to fail", name);
    } else if (strcmp(lc_seen, name) != 0) {
        lc_fail_at(__FILE__, line, "%s reported its error as %s", name, lc_seen);
    }
    lc_seen[0] = '\0';
}
/* `fn` is the function called: its name is what the handler must see. */
#define EXPECT(fn, ...) lc_expect(fn(__VA_ARGS__), #fn, __LINE__)

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int size = lc_world_size();
    MPI_Errhandler ceh, weh;
    LC_MPI(MPI_Comm_create_errhandler(lc_comm_eh, &ceh));
    LC_MPI(MPI_Win_create_errhandler(lc_win_eh, &weh));
    /* Errors on no communicator (a null one, a datatype query) go to
     * MPI_COMM_WORLD's handler. */
    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, ceh));

    enum { N = 4 };
    int a[N] = { 0 }, b[N * 64] = { 0 };
    int ic[64], id[64];
    MPI_Count wc[64];
    MPI_Aint wd[64];
    MPI_Datatype ty[64];
    for (int i = 0; i < 64; i++) {
        ic[i] = 1;
        id[i] = i;
        wc[i] = 1;
        wd[i] = i;
        ty[i] = MPI_INT;
    }
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Comm nc = MPI_COMM_NULL;
    MPI_Info ni = MPI_INFO_NULL;

    /* Nonblocking collectives and their _c forms (lc_mpi_icoll.c). */
    EXPECT(MPI_Igather, a, N, MPI_INT, b, N, MPI_INT, 0, nc, &r);
    EXPECT(MPI_Igather_c, a, N, MPI_INT, b, N, MPI_INT, 0, nc, &r);
    EXPECT(MPI_Iscatter, b, N, MPI_INT, a, N, MPI_INT, 0, nc, &r);
    EXPECT(MPI_Iscatter_c, b, N, MPI_INT, a, N, MPI_INT, 0, nc, &r);
    EXPECT(MPI_Iallgather, a, N, MPI_INT, b, N, MPI_INT, nc, &r);
    EXPECT(MPI_Iallgather_c, a, N, MPI_INT, b, N, MPI_INT, nc, &r);
    EXPECT(MPI_Ialltoall, b, 1, MPI_INT, b + 64, 1, MPI_INT, nc, &r);
    EXPECT(MPI_Ialltoall_c, b, 1, MPI_INT, b + 64, 1, MPI_INT, nc, &r);
    EXPECT(MPI_Ireduce_scatter_block, b, a, 1, MPI_INT, MPI_SUM, nc, &r);
    EXPECT(MPI_Ireduce_scatter_block_c, b, a, 1, MPI_INT, MPI_SUM, nc, &r);
    EXPECT(MPI_Iscan, a, b, N, MPI_INT, MPI_SUM, nc, &r);
    EXPECT(MPI_Iscan_c, a, b, N, MPI_INT, MPI_SUM, nc, &r);
    EXPECT(MPI_Iexscan, a, b, N, MPI_INT, MPI_SUM, nc, &r);
    EXPECT(MPI_Iexscan_c, a, b, N, MPI_INT, MPI_SUM, nc, &r);
    EXPECT(MPI_Igatherv, a, 1, MPI_INT, b, ic, id, MPI_INT, 0, nc, &r);
    EXPECT(MPI_Igatherv_c, a, 1, MPI_INT, b, wc, wd, MPI_INT, 0, nc, &r);
    EXPECT(MPI_Iscatterv, b, ic, id, MPI_INT, a, 1, MPI_INT, 0, nc, &r);
    EXPECT(MPI_Iscatterv_c, b, wc, wd, MPI_INT, a, 1, MPI_INT, 0, nc, &r);
    EXPECT(MPI_Iallgatherv, a, 1, MPI_INT, b, ic, id, MPI_INT, nc, &r);
    EXPECT(MPI_Iallgatherv_c, a, 1, MPI_INT, b, wc, wd, MPI_INT, nc, &r);
    EXPECT(MPI_Ialltoallv, b, ic, id, MPI_INT, b + 64, ic, id, MPI_INT, nc, &r);
    EXPECT(MPI_Ialltoallv_c, b, wc, wd, MPI_INT, b + 64, wc, wd, MPI_INT, nc, &r);
    EXPECT(MPI_Ireduce_scatter, b, a, ic, MPI_INT, MPI_SUM, nc, &r);
    EXPECT(MPI_Ireduce_scatter_c, b, a, wc, MPI_INT, MPI_SUM, nc, &r);
    EXPECT(MPI_Ialltoallw, b, ic, id, ty, b + 64, ic, id, ty, nc, &r);
    EXPECT(MPI_Ialltoallw_c, b, wc, wd, ty, b + 64, wc, wd, ty, nc, &r);

    /* Persistent collectives (lc_mpi_coll_init.c). */
    EXPECT(MPI_Bcast_init, a, N, MPI_INT, 0, nc, ni, &r);
    EXPECT(MPI_Bcast_init_c, a, N, MPI_INT, 0, nc, ni, &r);
    EXPECT(MPI_Reduce_init, a, b, N, MPI_INT, MPI_SUM, 0, nc, ni, &r);
    EXPECT(MPI_Reduce_init_c, a, b, N, MPI_INT, MPI_SUM, 0, nc, ni, &r);
    EXPECT(MPI_Allreduce_init, a, b, N, MPI_INT, MPI_SUM, nc, ni, &r);
    EXPECT(MPI_Allreduce_init_c, a, b, N, MPI_INT, MPI_SUM, nc, ni, &r);
    EXPECT(MPI_Gather_init, a, N, MPI_INT, b, N, MPI_INT, 0, nc, ni, &r);
    EXPECT(MPI_Gather_init_c, a, N, MPI_INT, b, N, MPI_INT, 0, nc, ni, &r);
    EXPECT(MPI_Scatter_init, b, N, MPI_INT, a, N, MPI_INT, 0, nc, ni, &r);
    EXPECT(MPI_Scatter_init_c, b, N, MPI_INT, a, N, MPI_INT, 0, nc, ni, &r);
    EXPECT(MPI_Allgather_init, a, N, MPI_INT, b, N, MPI_INT, nc, ni, &r);
    EXPECT(MPI_Allgather_init_c, a, N, MPI_INT, b, N, MPI_INT, nc, ni, &r);
    EXPECT(MPI_Alltoall_init, b, 1, MPI_INT, b + 64, 1, MPI_INT, nc, ni, &r);
    EXPECT(MPI_Alltoall_init_c, b, 1, MPI_INT, b + 64, 1, MPI_INT, nc, ni, &r);
    EXPECT(MPI_Reduce_scatter_block_init, b, a, 1, MPI_INT, MPI_SUM, nc, ni, &r);
    EXPECT(MPI_Reduce_scatter_block_init_c, b, a, 1, MPI_INT, MPI_SUM, nc, ni, &r);
    EXPECT(MPI_Scan_init, a, b, N, MPI_INT, MPI_SUM, nc, ni, &r);
    EXPECT(MPI_Scan_init_c, a, b, N, MPI_INT, MPI_SUM, nc, ni, &r);
    EXPECT(MPI_Exscan_init, a, b, N, MPI_INT, MPI_SUM, nc, ni, &r);
    EXPECT(MPI_Exscan_init_c, a, b, N, MPI_INT, MPI_SUM, nc, ni, &r);
    EXPECT(MPI_Gatherv_init, a, 1, MPI_INT, b, ic, id, MPI_INT, 0, nc, ni, &r);
    EXPECT(MPI_Gatherv_init_c, a, 1, MPI_INT, b, wc, wd, MPI_INT, 0, nc, ni, &r);
    EXPECT(MPI_Scatterv_init, b, ic, id, MPI_INT, a, 1, MPI_INT, 0, nc, ni, &r);
    EXPECT(MPI_Scatterv_init_c, b, wc, wd, MPI_INT, a, 1, MPI_INT, 0, nc, ni, &r);
    EXPECT(MPI_Allgatherv_init, a, 1, MPI_INT, b, ic, id, MPI_INT, nc, ni, &r);
    EXPECT(MPI_Allgatherv_init_c, a, 1, MPI_INT, b, wc, wd, MPI_INT, nc, ni, &r);
    EXPECT(MPI_Alltoallv_init, b, ic, id, MPI_INT, b + 64, ic, id, MPI_INT, nc, ni, &r);
    EXPECT(MPI_Alltoallv_init_c, b, wc, wd, MPI_INT, b + 64, wc, wd, MPI_INT, nc, ni, &r);
    EXPECT(MPI_Reduce_scatter_init, b, a, ic, MPI_INT, MPI_SUM, nc, ni, &r);
    EXPECT(MPI_Reduce_scatter_init_c, b, a, wc, MPI_INT, MPI_SUM, nc, ni, &r);

    /* Blocking alltoallw and the neighbourhood collectives
     * (lc_mpi_alltoallw.c, lc_mpi_neighbor.c). */
    EXPECT(MPI_Alltoallw, b, ic, id, ty, b + 64, ic, id, ty, nc);
    EXPECT(MPI_Alltoallw_c, b, wc, wd, ty, b + 64, wc, wd, ty, nc);
    EXPECT(MPI_Neighbor_allgatherv, a, 1, MPI_INT, b, ic, id, MPI_INT, nc);
    EXPECT(MPI_Neighbor_allgatherv_c, a, 1, MPI_INT, b, wc, wd, MPI_INT, nc);
    EXPECT(MPI_Neighbor_alltoallv, b, ic, id, MPI_INT, b + 64, ic, id, MPI_INT, nc);
    EXPECT(MPI_Neighbor_alltoallv_c, b, wc, wd, MPI_INT, b + 64, wc, wd, MPI_INT, nc);
    EXPECT(MPI_Neighbor_alltoallw, b, ic, wd, ty, b + 64, ic, wd, ty, nc);
    EXPECT(MPI_Neighbor_alltoallw_c, b, wc, wd, ty, b + 64, wc, wd, ty, nc);

    /* Datatype contents (lc_mpi_type_contents.c): a predefined type has none. */
    {
        int ints[1];
        MPI_Aint aints[1];
        MPI_Count cnts[1];
        MPI_Datatype types[1];
        EXPECT(MPI_Type_get_contents, MPI_INT, 1, 1, 1, ints, aints, types);
        EXPECT(MPI_Type_get_contents_c, MPI_INT, 1, 1, 1, 1, ints, aints, cnts, types);
    }

    /* One-sided calls (lc_mpi_win_ops.c): a target rank out of range. */
    {
        MPI_Win win;
        LC_MPI(MPI_Win_create(b, sizeof b, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        LC_MPI(MPI_Win_set_errhandler(win, weh));
        LC_MPI(MPI_Win_lock_all(0, win));
        int t = size + 3, res[N];
        EXPECT(MPI_Put, a, N, MPI_INT, t, 0, N, MPI_INT, win);
        EXPECT(MPI_Put_c, a, N, MPI_INT, t, 0, N, MPI_INT, win);
        EXPECT(MPI_Get, res, N, MPI_INT, t, 0, N, MPI_INT, win);
        EXPECT(MPI_Get_c, res, N, MPI_INT, t, 0, N, MPI_INT, win);
        EXPECT(MPI_Rput, a, N, MPI_INT, t, 0, N, MPI_INT, win, &r);
        EXPECT(MPI_Rput_c, a, N, MPI_INT, t, 0, N, MPI_INT, win, &r);
        EXPECT(MPI_Rget, res, N, MPI_INT, t, 0, N, MPI_INT, win, &r);
        EXPECT(MPI_Rget_c, res, N, MPI_INT, t, 0, N, MPI_INT, win, &r);
        EXPECT(MPI_Accumulate, a, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win);
        EXPECT(MPI_Accumulate_c, a, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win);
        EXPECT(MPI_Raccumulate, a, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win, &r);
        EXPECT(MPI_Raccumulate_c, a, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win, &r);
        EXPECT(MPI_Get_accumulate, a, N, MPI_INT, res, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win);
        EXPECT(MPI_Get_accumulate_c, a, N, MPI_INT, res, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win);
        EXPECT(MPI_Rget_accumulate, a, N, MPI_INT, res, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win, &r);
        EXPECT(MPI_Rget_accumulate_c, a, N, MPI_INT, res, N, MPI_INT, t, 0, N, MPI_INT, MPI_SUM, win, &r);
        LC_MPI(MPI_Win_unlock_all(win));
        LC_MPI(MPI_Win_free(&win));
    }

    LC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    LC_MPI(MPI_Errhandler_free(&ceh));
    LC_MPI(MPI_Errhandler_free(&weh));
    return lc_finish();
}
