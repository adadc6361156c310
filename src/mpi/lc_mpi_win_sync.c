/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_win_sync.c — synchronisation calls (MPI 4.1 §12.5): fence,
 * post/start/complete/wait/test, lock/unlock (+ _all), flushes, sync.
 */
#include "mpi/lc_mpi_group.h"
#include "mpi/lc_mpi_win.h"

#include <stdlib.h>

#define LC_MODE_ALL (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

static int lc_check_assert(int assert_)
{
    if (assert_ & ~LC_MODE_ALL) return lc_error(MPI_ERR_ASSERT, "assert %#x has bits no MPI_MODE_* defines", assert_);
    return MPI_SUCCESS;
}

LC_API int PMPI_Win_fence(int assert, MPI_Win win)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_assert(assert));
    LC_TRY(lc_rma_fence(w->rma, assert));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_fence", rc);
}
LC_MPI_ALIAS(Win_fence);

/* The group's members as ranks of the window (MPI_ERR_GROUP when one is
 * not in it).  *ranks_p is malloc'd. */
static int lc_win_group_ranks(lc_win_t *w, MPI_Group group, int **ranks_p, int *n_p)
{
    lc_group_t *g;
    int rc = lc_check_group(group, &g);
    if (rc) return rc;
    int *ranks = malloc((size_t)(g->size ? g->size : 1) * sizeof(int));
    if (!ranks) return lc_error(MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < g->size; i++) {
        ranks[i] = -1;
        for (int r = 0; r < w->comm->size; r++)
            if (w->comm->world_ranks[r] == g->world[i]) ranks[i] = r;
        if (ranks[i] < 0) {
            free(ranks);
            return lc_error(MPI_ERR_GROUP, "member %d of the group (world rank %d) is not in the window", i,
                            g->world[i]);
        }
    }
    *ranks_p = ranks;
    *n_p = g->size;
    return MPI_SUCCESS;
}

static int lc_win_pscw_open(const char *func, bool post, MPI_Group group, int assert_, MPI_Win win)
{
    lc_win_t *w = NULL;
    int *ranks = NULL, n = 0, rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_assert(assert_));
    LC_TRY(lc_win_group_ranks(w, group, &ranks, &n));
    rc = post ? lc_rma_post(w->rma, n, ranks) : lc_rma_start(w->rma, n, ranks);
    free(ranks);
    if (rc) goto err;
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, func, rc);
}

LC_API int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    return lc_win_pscw_open("MPI_Win_post", true, group, assert, win);
}
LC_MPI_ALIAS(Win_post);

LC_API int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    return lc_win_pscw_open("MPI_Win_start", false, group, assert, win);
}
LC_MPI_ALIAS(Win_start);

LC_API int PMPI_Win_complete(MPI_Win win)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_rma_complete(w->rma));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_complete", rc);
}
LC_MPI_ALIAS(Win_complete);

LC_API int PMPI_Win_wait(MPI_Win win)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_rma_wait(w->rma, true, NULL));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_wait", rc);
}
LC_MPI_ALIAS(Win_wait);

LC_API int PMPI_Win_test(MPI_Win win, int *flag)
{
    lc_win_t *w = NULL;
    bool done = false;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_ptr(flag, "flag"));
    LC_TRY(lc_rma_wait(w->rma, false, &done));
    *flag = done;
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_test", rc);
}
LC_MPI_ALIAS(Win_test);

LC_API int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        LC_TRY(lc_error(MPI_ERR_LOCKTYPE, "lock type %d is neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED", lock_type));
    LC_TRY(lc_check_assert(assert));
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    LC_TRY(lc_check_rank(w->comm, rank, false));
    LC_TRY(lc_rma_lock(w->rma, lock_type, rank));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_lock", rc);
}
LC_MPI_ALIAS(Win_lock);

LC_API int PMPI_Win_unlock(int rank, MPI_Win win)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    LC_TRY(lc_check_rank(w->comm, rank, false));
    LC_TRY(lc_rma_unlock(w->rma, rank));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_unlock", rc);
}
LC_MPI_ALIAS(Win_unlock);

LC_API int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_check_assert(assert));
    LC_TRY(lc_rma_lock_all(w->rma));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_lock_all", rc);
}
LC_MPI_ALIAS(Win_lock_all);

LC_API int PMPI_Win_unlock_all(MPI_Win win)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    LC_TRY(lc_rma_unlock_all(w->rma));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_unlock_all", rc);
}
LC_MPI_ALIAS(Win_unlock_all);

/* Flush and flush_local do the same: an operation is complete at the
 * origin only once the target has answered it (local completion of a put
 * could come earlier; not worth a second path yet). */
static int lc_win_flush(const char *func, int rank, bool all, MPI_Win win)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    if (!all) {
        if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
        LC_TRY(lc_check_rank(w->comm, rank, false));
    }
    LC_TRY(lc_rma_flush_user(w->rma, all ? -1 : rank));
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, func, rc);
}

LC_API int PMPI_Win_flush(int rank, MPI_Win win)
{
    return lc_win_flush("MPI_Win_flush", rank, false, win);
}
LC_MPI_ALIAS(Win_flush);
LC_API int PMPI_Win_flush_all(MPI_Win win)
{
    return lc_win_flush("MPI_Win_flush_all", 0, true, win);
}
LC_MPI_ALIAS(Win_flush_all);
LC_API int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return lc_win_flush("MPI_Win_flush_local", rank, false, win);
}
LC_MPI_ALIAS(Win_flush_local);
LC_API int PMPI_Win_flush_local_all(MPI_Win win)
{
    return lc_win_flush("MPI_Win_flush_local_all", 0, true, win);
}
LC_MPI_ALIAS(Win_flush_local_all);

LC_API int PMPI_Win_sync(MPI_Win win)
{
    lc_win_t *w = NULL;
    int rc;
    LC_TRY(lc_check_win(win, &w));
    lc_rma_sync(w->rma);
    return MPI_SUCCESS;
err:
    return lc_mpi_win_error(w, "MPI_Win_sync", rc);
}
LC_MPI_ALIAS(Win_sync);
