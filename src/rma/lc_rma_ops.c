/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_ops.c — one one-sided operation: on the direct path a load,
 * store or locked update of the target's memory in our own mapping; on
 * the active-message path applied in place when the target is this
 * process, a put or get by CMA, an accumulate by CMA under the target's
 * lock (lc_rma_cmaacc.c), else one request to the target (lc_rma_am.c).
 */
#include "channel/lc_cma.h"
#include "rma/lc_rma_impl.h"
#include "util/lc_dtype.h"
#include "util/lc_params.h"

#include <string.h>

/* MPI_SUCCESS when the operation is done (in place, by CMA), LC_AGAIN when
 * an answer from the target will complete it, else an error code. */
static int lc_rma_op_now(lc_rma_win_t *win, lc_rma_kind_t kind, int target, MPI_Aint disp, MPI_Datatype dt,
                         size_t count, MPI_Op op, const void *origin, const void *compare, void *result,
                         lc_request_t *user)
{
    size_t bytes = count * lc_dtype_size(dt);
    if (win->direct) {
        char *at = win->bases[target] + (size_t)disp * (size_t)win->disp_units[target];
        if (kind == LC_RMA_PUT || kind == LC_RMA_GET) {
            /* Plain copies: concurrent conflicting puts are erroneous, and
             * the memory model makes them visible at the next
             * synchronisation (whose fences order them). */
            lc_rma_apply(kind, dt, op, count, at, origin, compare, result);
        } else {
            lc_rma_acc_lock(&win->lines[target].acc);
            lc_rma_apply(kind, dt, op, count, at, origin, compare, result);
            lc_rma_acc_unlock(&win->lines[target].acc);
        }
        return MPI_SUCCESS;
    }
    uint64_t off = win->flavor == LC_RMA_DYNAMIC ? (uint64_t)disp : (uint64_t)disp * (uint64_t)win->disp_units[target];
    if (target == win->comm->rank) {
        /* Our own memory: this process also applies everyone else's
         * requests, one at a time, so applying it here is as atomic. */
        char *at = lc_rma_am_addr(win, off, bytes);
        if (!at)
            return lc_error(MPI_ERR_RMA_RANGE, "%zu bytes at address %#llx are not in memory attached to the window",
                            bytes, (unsigned long long)off);
        bool lock = win->cma_acc && kind != LC_RMA_PUT && kind != LC_RMA_GET; /* origins apply theirs too */
        if (lock) lc_rma_cmaacc_lock(win, target);
        lc_rma_apply(kind, dt, op, count, at, origin, compare, result);
        if (lock) lc_rma_cmaacc_unlock(win, target);
        return MPI_SUCCESS;
    }
    if (win->cma_acc && kind != LC_RMA_PUT && kind != LC_RMA_GET) {
        int rc;
        if (lc_rma_cmaacc_try(win, kind, target, off, dt, count, op, origin, compare, result, &rc)) return rc;
    }
    int sample = 0;
    /* A dynamic window's address must be in the target's attached
     * regions as its table says (lc_rma_dyn.c); else the target decides,
     * as it always did. */
    if ((kind == LC_RMA_PUT || kind == LC_RMA_GET) && win->cma && win->cma[target] &&
        (!win->dyn || lc_rma_dyn_reach(win, target, off, bytes)) && !lc_rma_pick_am(win, target, bytes, &sample)) {
        /* One system call, complete at the target when it returns; puts
         * are not ordered with other operations (MPI 4.1 §12.7.2), so
         * bypassing the target's request queue is allowed.  Smaller ones
         * may be active messages instead (lc_rma_pick.c): the target's
         * packet handler answers them in less time than the system call
         * takes, when the target is inside MPI. */
        lc_peer_t *peer = win->comm->peers[target];
        uint64_t remote = win->remote_bases[target] + off;
        double t0 = sample ? lc_time_now() : 0;
        int st =
            kind == LC_RMA_PUT ? lc_cma_push(peer, remote, origin, bytes) : lc_cma_pull(peer, result, remote, 0, bytes);
        if (st == LC_OK) {
            if (sample) lc_rma_pick_sample(win, target, sample, false, lc_time_now() - t0);
            return MPI_SUCCESS;
        }
        win->cma[target] = 0; /* logged; the request path still works */
        sample = 0;
    }
    if ((kind == LC_RMA_PUT || kind == LC_RMA_GET) && win->ofi && win->ofi[target]) {
        /* fi_write / fi_read: served by the target's provider, complete at
         * the next flush.  A request form (MPI_Rput, MPI_Rget) waits for
         * it here: its request is then complete when returned. */
        int rc = lc_rma_ofi_op(win, kind == LC_RMA_PUT, target, off,
                               kind == LC_RMA_PUT ? (void *)(uintptr_t)origin : result, bytes);
        if (rc == MPI_SUCCESS && user) rc = lc_rma_ofi_flush(win, target);
        return rc;
    }
    lc_rma_pkt_t pkt = { .kind = (uint8_t)kind, .dt = dt, .op = op, .disp = off, .count = count };
    if (kind == LC_RMA_PUT && sizeof pkt + bytes > LC_RMA_AM_INLINE) {
        /* Larger than one request packet: the data streams into the
         * target's window (a GET's answer streams out of it likewise,
         * lc_rma_am.c), as point-to-point's rendezvous would move it. */
        win->sample_next = sample;
        int rc = lc_rma_am_put_stream(win, &pkt, target, origin, bytes, user);
        win->sample_next = 0;
        return rc == MPI_SUCCESS ? LC_AGAIN : rc;
    }
    bool sends = kind != LC_RMA_GET && !(kind == LC_RMA_GACC && op == MPI_NO_OP);
    bool fetch = kind == LC_RMA_GET || kind == LC_RMA_GACC || kind == LC_RMA_CAS;
    win->sample_next = sample;
    int rc = lc_rma_am_send(win, &pkt, target, origin, sends ? bytes : 0, compare, kind == LC_RMA_CAS ? bytes : 0,
                            result, fetch ? bytes : 0, user, NULL);
    win->sample_next = 0;
    return rc == MPI_SUCCESS ? LC_AGAIN : rc;
}

int lc_rma_op(lc_rma_win_t *win, lc_rma_kind_t kind, int target, MPI_Aint disp, MPI_Datatype dt, size_t count,
              MPI_Op op, const void *origin, const void *compare, void *result, lc_request_t *user)
{
    int rc = lc_rma_op_now(win, kind, target, disp, dt, count, op, origin, compare, result, user);
    if (rc == LC_AGAIN) return MPI_SUCCESS; /* `user` completes with the answer */
    if (rc == MPI_SUCCESS && user) lc_request_complete(user);
    return rc;
}

/* Where `bytes` at `disp` of `target`'s memory are in our mapping, when
 * the window is direct, an epoch to `target` is open by fence, lock or
 * lock_all, and the bytes fit; else NULL (the general path decides). */
static inline char *lc_rma_direct_at(lc_rma_win_t *win, int target, MPI_Aint disp, size_t bytes)
{
    if (!win->direct || disp < 0 || !(win->fence_open || win->lock_all || win->locked[target])) return NULL;
    size_t off, size = win->sizes[target];
    if (__builtin_mul_overflow((size_t)disp, (size_t)win->disp_units[target], &off) || off > size || bytes > size - off)
        return NULL;
    return win->bases[target] + off;
}

bool lc_rma_direct_copy(lc_rma_win_t *win, bool put, int target, MPI_Aint disp, void *buf, size_t bytes)
{
    char *at = lc_rma_direct_at(win, target, disp, bytes);
    if (!at) return false;
    /* Plain copies, as in lc_rma_op_now: the next synchronisation orders them. */
    if (put)
        memcpy(at, buf, bytes);
    else
        memcpy(buf, at, bytes);
    return true;
}

bool lc_rma_direct_atomic(lc_rma_win_t *win, lc_rma_kind_t kind, int target, MPI_Aint disp, MPI_Datatype dt, size_t esz,
                          size_t count, MPI_Op op, const void *origin, const void *compare, void *result)
{
    char *at = lc_rma_direct_at(win, target, disp, esz * count);
    if (!at) return false;
    lc_rma_acc_lock(&win->lines[target].acc);
    lc_rma_apply(kind, dt, op, count, at, origin, compare, result);
    lc_rma_acc_unlock(&win->lines[target].acc);
    return true;
}
