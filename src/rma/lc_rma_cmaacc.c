/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_cmaacc.c — accumulates by the origin on windows over user
 * memory (MPI_Win_create, MPI_Win_create_dynamic) whose ranks all reach
 * each other by CMA: Accumulate, Get_accumulate, Fetch_and_op and
 * Compare_and_swap of contiguous predefined elements take the target's
 * accumulate lock (a line of a segment every rank of the window maps,
 * lc_rma_line_t.acc), read the target's bytes with process_vm_readv,
 * apply the operation here and write the result back with
 * process_vm_writev, then drop the lock: no request waits for the
 * target to be scheduled and call MPI.
 *
 * Atomicity (MPI 4.1 §12.7.1: accumulates are atomic per element with
 * respect to each other) never mixes two schemes: the choice is made
 * once per window at creation, the same on every rank (an allreduce of
 * every rank's view), and in such a window EVERY accumulate into a
 * rank's memory holds that rank's line while it touches the memory —
 * the ones origins apply here, the target's own (lc_rma_ops.c,
 * lc_rma_dtype.c) and the ones still served from the queue (derived
 * target types, an address a dynamic window's table does not show:
 * lc_rma_am.c takes the line around applying them).
 *
 * Ordering (accumulates from one origin to one target apply in program
 * order): one done here is complete when it returns; one of ours still
 * queued at the target (a derived accumulate before it) is flushed
 * first, so a later one cannot overtake it.
 *
 * The lock is a spin word; every holder only copies and computes while
 * holding it (two system calls at most, never a wait for anything), so
 * a waiter yields the core and tries again, and never runs the progress
 * engine (a target waiting inside its packet handler must not re-enter
 * it).
 */
#include "channel/lc_cma.h"
#include "coll/lc_coll.h"
#include "rma/lc_rma_impl.h"
#include "util/lc_dtype.h"
#include "util/lc_params.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

int lc_rma_cmaacc_setup(lc_rma_win_t *win)
{
    lc_comm_t *comm = win->comm;
    int n = comm->size;
    /* Win_create has no segment yet: one of the lock lines only, mapped
     * when every rank votes for it (memory for the call included, so no
     * rank leaves the collective alone). */
    size_t *sizes = win->seg ? NULL : calloc((size_t)n, sizeof *sizes);
    char **bases = win->seg ? NULL : calloc((size_t)n, sizeof *bases);
    int want = n > 1 && lc_params.rma_cma_acc && win->cma && (win->flavor != LC_RMA_DYNAMIC || win->dyn) &&
               (win->seg || (sizes && bases)),
        all = 0;
    for (int r = 0; want && r < n; r++) want = r == comm->rank || win->cma[r];
    int rc = lc_coll_allreduce(&want, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc == MPI_SUCCESS && all && !win->seg) rc = lc_rma_seg_map(win, sizes, false, bases);
    free(sizes);
    free(bases);
    if (rc == MPI_SUCCESS && all) win->cma_acc = true;
    return rc;
}

void lc_rma_cmaacc_lock(lc_rma_win_t *win, int rank)
{
    uint32_t *w = &win->lines[rank].acc;
    /* Acquire, paired with the release of the previous holder's unlock:
     * its writes to the memory (its own, or by CMA before it dropped the
     * lock) are visible to what we read next. */
    while (__atomic_exchange_n(w, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(w, __ATOMIC_RELAXED)) sched_yield();
    }
}

void lc_rma_cmaacc_unlock(lc_rma_win_t *win, int rank)
{
    __atomic_store_n(&win->lines[rank].acc, 0, __ATOMIC_RELEASE);
}

bool lc_rma_cmaacc_try(lc_rma_win_t *win, lc_rma_kind_t kind, int target, uint64_t off, MPI_Datatype dt, size_t count,
                       MPI_Op op, const void *origin, const void *compare, void *result, int *rc_p)
{
    size_t bytes = count * lc_dtype_size(dt);
    if (win->dyn) {
        int in;
        /* Wait for a consistent read of the table (not the queue: that
         * could reorder this one before a later direct one). */
        while ((in = lc_rma_dyn_check(win, target, off, bytes)) < 0) sched_yield();
        if (!in) return false; /* the target refuses it, as before (nothing applied) */
    }
    int rc = win->outq[target].n ? lc_rma_am_flush(win, target) : MPI_SUCCESS; /* ordering, see the head */
    if (rc != MPI_SUCCESS) {
        *rc_p = rc;
        return true;
    }
    char stack[256], *tmp = bytes <= sizeof stack ? stack : malloc(bytes);
    if (!tmp) {
        *rc_p = lc_error(MPI_ERR_NO_MEM, "out of memory for an accumulate of %zu bytes", bytes);
        return true;
    }
    lc_peer_t *peer = win->comm->peers[target];
    uint64_t remote = win->remote_bases[target] + off;
    bool writes = !(kind == LC_RMA_GACC && op == MPI_NO_OP);
    lc_rma_cmaacc_lock(win, target);
    int st = lc_cma_pull(peer, tmp, remote, 0, bytes);
    if (st == LC_OK) {
        char old[16]; /* CAS: one element, written back only when it changed */
        if (kind == LC_RMA_CAS) memcpy(old, tmp, bytes <= sizeof old ? bytes : sizeof old);
        lc_rma_apply(kind, dt, op, count, tmp, origin, compare, result);
        if (kind == LC_RMA_CAS && bytes <= sizeof old && !memcmp(old, tmp, bytes)) writes = false;
        if (writes) st = lc_cma_push(peer, remote, tmp, bytes);
    }
    lc_rma_cmaacc_unlock(win, target);
    if (tmp != stack) free(tmp);
    *rc_p = st == LC_OK ? MPI_SUCCESS
                        : lc_error(MPI_ERR_OTHER, "CMA to rank %d failed during an accumulate of %zu bytes at %#llx",
                                   target, bytes, (unsigned long long)remote);
    return true;
}
