/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_sync.c — synchronisation: fence, passive-target locks and
 * flushes, post/start/complete/wait.  MPI_WIN_UNIFIED: window memory is
 * one copy, so "making operations visible" is completing them (answers
 * on the active-message path) plus a full memory fence on the direct
 * path, where other processes' stores reach our memory directly.
 */
#include "coll/lc_coll.h"
#include "rma/lc_rma_impl.h"

#include <stdlib.h>
#include <string.h>

/* Orders every load and store of this process's one-sided operations and
 * of the user's own accesses to window memory before what follows (the
 * barrier or message that tells others, or the lock release). */
static inline void lc_rma_mfence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int lc_rma_flush(lc_rma_win_t *win, int target)
{
    lc_rma_mfence();
    if (win->direct) return MPI_SUCCESS;
    int rc = lc_rma_ofi_flush(win, target);
    int rc2 = lc_rma_am_flush(win, target);
    return rc != MPI_SUCCESS ? rc : rc2;
}

int lc_rma_flush_user(lc_rma_win_t *win, int target)
{
    if (!win->lock_all && (target >= 0 ? !win->locked[target] : win->nlocked == 0))
        return target >= 0 ? lc_error(MPI_ERR_RMA_SYNC,
                                      "flush of rank %d outside a passive-target epoch: rank %d of this window is "
                                      "not locked by this process (MPI_Win_lock or MPI_Win_lock_all first)",
                                      target, target)
                           : lc_error(MPI_ERR_RMA_SYNC, "flush of all ranks outside a passive-target epoch: this "
                                                        "process holds no lock on this window (MPI_Win_lock or "
                                                        "MPI_Win_lock_all first)");
    return lc_rma_flush(win, target);
}

void lc_rma_sync(lc_rma_win_t *win)
{
    lc_rma_mfence();
    /* Win_sync in a loop is how a rank polls its own window memory: on the
     * active-message path what it waits for may be a request queued here,
     * so serve the queue (as flush does, lc_rma_am_flush).  Direct windows
     * need no pass: other ranks store into our memory themselves. */
    if (!win->direct) lc_progress();
}

int lc_rma_fence(lc_rma_win_t *win, int assert_)
{
    int rc = lc_rma_flush(win, -1);
    /* After the barrier every rank has completed its operations (answers
     * for those it sent us came after we applied them). */
    if (rc == MPI_SUCCESS) rc = lc_coll_barrier(win->comm);
    lc_rma_mfence();
    win->fence_open = !(assert_ & MPI_MODE_NOSUCCEED);
    return rc;
}

/* ---- passive target ---------------------------------------------------- */

static void lc_rma_direct_lock(lc_rma_win_t *win, int target, bool excl)
{
    uint32_t *w = &win->lines[target].lock;
    for (;;) {
        if (excl) {
            uint32_t z = 0;
            /* Acquire: the holder's stores, released at its unlock, are
             * visible to us from here. */
            if (__atomic_compare_exchange_n(w, &z, LC_RMA_EXCL, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
        } else {
            uint32_t v = __atomic_add_fetch(w, 1, __ATOMIC_ACQUIRE);
            if (!(v & LC_RMA_EXCL)) return;
            __atomic_sub_fetch(w, 1, __ATOMIC_RELAXED);
        }
        while (__atomic_load_n(w, __ATOMIC_RELAXED) & (excl ? ~0u : LC_RMA_EXCL)) lc_rma_idle();
    }
}

static void lc_rma_direct_unlock(lc_rma_win_t *win, int target, bool excl)
{
    /* Release: our stores to the target's memory before the next holder's.
     * Exclusive unlock subtracts its bit rather than storing 0: a shared
     * acquirer may have added 1 (and will take it back) while we held the
     * lock; a store of 0 would lose that 1 and its later subtraction would
     * wrap the word to ~0, locking everyone out for good. */
    if (excl)
        __atomic_sub_fetch(&win->lines[target].lock, LC_RMA_EXCL, __ATOMIC_RELEASE);
    else
        __atomic_sub_fetch(&win->lines[target].lock, 1, __ATOMIC_RELEASE);
}

static int lc_rma_acquire(lc_rma_win_t *win, int target, bool excl)
{
    if (win->direct) {
        lc_rma_direct_lock(win, target, excl);
        return MPI_SUCCESS;
    }
    if (target == win->comm->rank) {
        if (lc_rma_am_try_lock(win, target, excl)) return MPI_SUCCESS;
        lc_rma_waiter_t *w = malloc(sizeof *w);
        if (!w) return lc_error(MPI_ERR_NO_MEM, "out of memory queueing a lock request");
        w->source = target;
        w->exclusive = excl;
        win->self_granted = false;
        lc_list_push_back(&win->waiters, &w->link);
        while (!win->self_granted) lc_rma_idle();
        return MPI_SUCCESS;
    }
    lc_rma_pkt_t pkt = { .kind = LC_RMA_LOCK,
                         .lock_type = (uint8_t)((excl ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED) - 234) };
    int rc = lc_rma_am_send(win, &pkt, target, NULL, 0, NULL, 0, NULL, 0, NULL, NULL);
    if (rc == MPI_SUCCESS) rc = lc_rma_am_flush(win, target); /* the grant */
    return rc;
}

/* The lock is released even when the flush reports a failed operation
 * (the epoch ends either way, MPI_Win_unlock returns the error): before,
 * the error returned first and the target's lock stayed held for good. */
static int lc_rma_release(lc_rma_win_t *win, int target, bool excl)
{
    int err = lc_rma_flush(win, target);
    if (win->direct) {
        lc_rma_direct_unlock(win, target, excl);
        return err;
    }
    if (target == win->comm->rank) {
        lc_rma_am_unlock_local(win, target);
        return err;
    }
    lc_rma_pkt_t pkt = { .kind = LC_RMA_UNLOCK };
    int rc = lc_rma_am_send(win, &pkt, target, NULL, 0, NULL, 0, NULL, 0, NULL, NULL);
    /* Wait for the acknowledgement: the window's traffic is over when
     * MPI_Win_free's barrier comes. */
    if (rc == MPI_SUCCESS) rc = lc_rma_am_flush(win, target);
    return err != MPI_SUCCESS ? err : rc;
}

int lc_rma_lock(lc_rma_win_t *win, int lock_type, int target)
{
    if (win->locked[target] || win->lock_all)
        return lc_error(MPI_ERR_RMA_SYNC, "rank %d of this window is already locked by this process", target);
    int rc = lc_rma_acquire(win, target, lock_type == MPI_LOCK_EXCLUSIVE);
    if (rc == MPI_SUCCESS) {
        win->locked[target] = (uint8_t)(lock_type - 233);
        win->nlocked++;
    }
    return rc;
}

int lc_rma_unlock(lc_rma_win_t *win, int target)
{
    if (!win->locked[target])
        return lc_error(MPI_ERR_RMA_SYNC, "rank %d of this window is not locked by this process (MPI_Win_lock)",
                        target);
    int rc = lc_rma_release(win, target, win->locked[target] == MPI_LOCK_EXCLUSIVE - 233);
    win->locked[target] = 0;
    win->nlocked--;
    return rc;
}

/* MPI_Win_lock_all failed at some target (no memory there, or a send):
 * the others may have granted their shared lock, and nothing would ever
 * release it.  Every one that may hold it gets an unlock (a target that
 * holds nothing for us answers it as failed and keeps its state, see
 * lc_rma_serve), its answers waited for; the epoch was not opened and
 * the first error is returned. */
static int lc_rma_lock_all_undo(lc_rma_win_t *win, int err)
{
    int me = win->comm->rank;
    /* Every grant (or failure) first: a target answers in arrival order,
     * and a lock still queued there would be answered after our unlock. */
    (void)lc_rma_am_flush(win, -1);
    lc_rma_pkt_t pkt = { .kind = LC_RMA_UNLOCK, .flags = LC_RMA_F_UNDO };
    for (int r = 0; r < win->comm->size; r++)
        if (r != me) (void)lc_rma_am_send(win, &pkt, r, NULL, 0, NULL, 0, NULL, 0, NULL, NULL);
    if (win->holds[me]) lc_rma_am_unlock_local(win, me);
    (void)lc_rma_am_flush(win, -1); /* the failed undos' errors are not the user's */
    return err;
}

int lc_rma_lock_all(lc_rma_win_t *win)
{
    if (win->lock_all) return lc_error(MPI_ERR_RMA_SYNC, "MPI_Win_lock_all: this window is already locked");
    for (int r = 0; r < win->comm->size; r++)
        if (win->locked[r])
            return lc_error(MPI_ERR_RMA_SYNC, "MPI_Win_lock_all: rank %d is already locked by MPI_Win_lock", r);
    int rc = MPI_SUCCESS, me = win->comm->rank;
    if (win->direct) {
        for (int r = 0; r < win->comm->size; r++) lc_rma_direct_lock(win, r, false);
    } else {
        /* All requests first, then the grants: one round trip, not n. */
        lc_rma_pkt_t pkt = { .kind = LC_RMA_LOCK, .lock_type = (uint8_t)(MPI_LOCK_SHARED - 234) };
        for (int r = 0; r < win->comm->size && rc == MPI_SUCCESS; r++)
            if (r != me) rc = lc_rma_am_send(win, &pkt, r, NULL, 0, NULL, 0, NULL, 0, NULL, NULL);
        if (rc == MPI_SUCCESS) rc = lc_rma_acquire(win, me, false);
        if (rc == MPI_SUCCESS) rc = lc_rma_am_flush(win, -1);
        if (rc != MPI_SUCCESS) return lc_rma_lock_all_undo(win, rc);
    }
    win->lock_all = 1;
    return MPI_SUCCESS;
}

int lc_rma_unlock_all(lc_rma_win_t *win)
{
    if (!win->lock_all) return lc_error(MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all without MPI_Win_lock_all on this window");
    /* As lc_rma_release: the locks go even when an operation failed. */
    int err = lc_rma_flush(win, -1), rc = MPI_SUCCESS, me = win->comm->rank;
    win->lock_all = 0;
    if (win->direct) {
        for (int r = 0; r < win->comm->size; r++) lc_rma_direct_unlock(win, r, false);
        return err;
    }
    /* Every operation is complete: all unlocks, then their acknowledgements. */
    lc_rma_pkt_t pkt = { .kind = LC_RMA_UNLOCK };
    for (int r = 0; r < win->comm->size && rc == MPI_SUCCESS; r++)
        if (r != me) rc = lc_rma_am_send(win, &pkt, r, NULL, 0, NULL, 0, NULL, 0, NULL, NULL);
    lc_rma_am_unlock_local(win, me);
    int rc2 = lc_rma_am_flush(win, -1);
    if (rc == MPI_SUCCESS) rc = rc2;
    return err != MPI_SUCCESS ? err : rc;
}

/* ---- generalized active target ----------------------------------------- */

static int *lc_rma_copy_ranks(int n, const int *ranks)
{
    int *c = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (c && n) memcpy(c, ranks, (size_t)n * sizeof(int));
    return c;
}

int lc_rma_post(lc_rma_win_t *win, int n, const int *ranks)
{
    if (win->post_ranks) return lc_error(MPI_ERR_RMA_SYNC, "MPI_Win_post: an exposure epoch is already open");
    lc_rma_mfence();
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = lc_pt2pt_send(NULL, 0, ranks[i], LC_RMA_TAG_POST, win->comm, LC_CTX_PT2PT, LC_MODE_STANDARD);
    if (rc != MPI_SUCCESS) return rc;
    if (!(win->post_ranks = lc_rma_copy_ranks(n, ranks))) return lc_error(MPI_ERR_NO_MEM, "out of memory");
    win->npost = n;
    return MPI_SUCCESS;
}

int lc_rma_start(lc_rma_win_t *win, int n, const int *ranks)
{
    if (win->start_ranks) return lc_error(MPI_ERR_RMA_SYNC, "MPI_Win_start: an access epoch is already open");
    /* Wait for every target's post: from then on its memory is ours to
     * access (the standard also allows delaying this to the first
     * operation; waiting here is simpler and as correct). */
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = lc_pt2pt_recv(NULL, 0, ranks[i], LC_RMA_TAG_POST, win->comm, LC_CTX_PT2PT, MPI_STATUS_IGNORE);
    lc_rma_mfence();
    if (rc != MPI_SUCCESS) return rc;
    if (!(win->start_ranks = lc_rma_copy_ranks(n, ranks))) return lc_error(MPI_ERR_NO_MEM, "out of memory");
    win->nstart = n;
    return MPI_SUCCESS;
}

int lc_rma_complete(lc_rma_win_t *win)
{
    if (!win->start_ranks) return lc_error(MPI_ERR_RMA_SYNC, "MPI_Win_complete without MPI_Win_start");
    int rc = lc_rma_flush(win, -1);
    for (int i = 0; i < win->nstart && rc == MPI_SUCCESS; i++)
        rc = lc_pt2pt_send(NULL, 0, win->start_ranks[i], LC_RMA_TAG_DONE, win->comm, LC_CTX_PT2PT, LC_MODE_STANDARD);
    free(win->start_ranks);
    win->start_ranks = NULL;
    win->nstart = 0;
    return rc;
}

int lc_rma_wait(lc_rma_win_t *win, bool block, bool *done_p)
{
    if (!win->post_ranks) return lc_error(MPI_ERR_RMA_SYNC, "MPI_Win_wait/test without MPI_Win_post");
    if (!block) { /* MPI_Win_test: done only when every origin completed */
        for (int i = 0; i < win->npost; i++) {
            int flag = 0;
            lc_pt2pt_iprobe(win->post_ranks[i], LC_RMA_TAG_DONE, win->comm, &flag, MPI_STATUS_IGNORE, NULL);
            if (!flag) {
                *done_p = false;
                return MPI_SUCCESS;
            }
        }
    }
    int rc = MPI_SUCCESS;
    for (int i = 0; i < win->npost && rc == MPI_SUCCESS; i++)
        rc = lc_pt2pt_recv(NULL, 0, win->post_ranks[i], LC_RMA_TAG_DONE, win->comm, LC_CTX_PT2PT, MPI_STATUS_IGNORE);
    lc_rma_mfence();
    free(win->post_ranks);
    win->post_ranks = NULL;
    win->npost = 0;
    if (done_p) *done_p = true;
    return rc;
}
