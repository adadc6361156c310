/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_ofi.c — puts and gets to targets on other hosts with libfabric
 * RMA (fi_write / fi_read) instead of active messages, for windows with
 * memory (Win_create, Win_allocate on the active-message path).
 *
 * At creation every rank registers its window memory for remote read and
 * write (one registration per window: the provider's key bounds every
 * access to exactly that range, the key is random where the provider lets
 * us choose it) and the ranks exchange (address, key).  A target is
 * reached this way when it is an ofi peer and both ends registered.  At
 * MPI_Win_free the registration is closed after the barrier: no peer
 * addresses it any more, and a late or forged access finds no key.
 *
 * What stays on active messages, and why (decided for the whole window,
 * never per operation, so atomicity holds):
 *  - accumulates, fetch-and-op and compare-and-swap: MPI 4.1 §12.7
 *    requires same-op/same-type atomicity between all origins, and the
 *    target's own (self) accumulates are applied in place by its progress
 *    engine.  Mixing provider atomics with those would break it, and the
 *    TCP providers here do not all offer FI_ATOMIC (tcp;ofi_rxm does not,
 *    net does).  So every accumulate of every window goes through the
 *    target's engine; puts and gets, which MPI does not order with
 *    accumulates nor make atomic, may take the provider path.
 *  - locks: passive-target lock requests are messages to the target.
 *  - dynamic windows: regions come and go without a collective.
 *
 * Completion (flush, unlock, fence, complete): a write is posted with
 * FI_DELIVERY_COMPLETE, so its completion says the data is in the
 * target's memory.  If the provider refuses the flag, a flush first reads
 * one byte of each target written since the last flush: with FI_ORDER_RAW
 * that read is served after the writes, so its completion says they
 * landed.  A get is complete when its fi_read completes.
 */
#include "coll/lc_coll.h"
#include "rma/lc_rma_impl.h"
#include "util/lc_params.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct lc_rma_ofi_info {
    uint64_t addr;
    uint64_t key;
    uint64_t ok; /* 1: registered */
} lc_rma_ofi_info_t;

int lc_rma_ofi_setup(lc_rma_win_t *win)
{
    lc_comm_t *comm = win->comm;
    int n = comm->size, me = comm->rank;
    lc_rma_ofi_info_t mine = { 0, 0, 0 };
    if (win->base && win->size > 0 && lc_ofi_rma_usable()) {
        int frc = lc_ofi_rma_reg(win->base, win->size, &win->ofi_mr, &mine.key, &mine.addr);
        if (frc == 0)
            mine.ok = 1;
        else /* the other ranks reach us by active messages */
            lc_log_warn("one-sided: cannot register %zu bytes of window memory for libfabric RMA (%s); peers on "
                        "other hosts reach it through this rank's progress engine",
                        win->size, lc_ofi_strerror(frc));
    }
    lc_rma_ofi_info_t *all = malloc((size_t)n * sizeof *all);
    if (!all) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a window of %d ranks", n);
    int rc = lc_coll_allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, comm);
    int reached = 0;
    if (rc == MPI_SUCCESS && lc_ofi_rma_usable()) {
        for (int r = 0; r < n; r++)
            if (r != me && all[r].ok && comm->peers[r]->kind == LC_CHANNEL_OFI) reached++;
    }
    if (reached) {
        win->ofi = calloc((size_t)n, 1);
        win->ofi_wrote = calloc((size_t)n, 1);
        win->ofi_addr = malloc((size_t)n * sizeof(uint64_t));
        win->ofi_key = malloc((size_t)n * sizeof(uint64_t));
        if (!win->ofi || !win->ofi_wrote || !win->ofi_addr || !win->ofi_key) {
            free(all);
            return lc_error(MPI_ERR_NO_MEM, "out of memory creating a window of %d ranks", n);
        }
        for (int r = 0; r < n; r++) {
            win->ofi[r] = r != me && all[r].ok && comm->peers[r]->kind == LC_CHANNEL_OFI;
            win->ofi_addr[r] = all[r].addr;
            win->ofi_key[r] = all[r].key;
        }
    }
    free(all);
    if (lc_params.show_channels && rc == MPI_SUCCESS)
        fprintf(stderr,
                "locus[%d]: window of %d ranks: %d target(s) by libfabric RMA (fi_write/fi_read, %s, provider says %s "
                "progress)%s\n",
                lc_log_rank, n, reached, lc_ofi_rma_delivery_complete() ? "delivery complete" : "read fence",
                lc_ofi_rma_auto_progress() ? "auto" : "manual", mine.ok ? ", ours registered" : "");
    return rc;
}

void lc_rma_ofi_teardown(lc_rma_win_t *win)
{
    if (lc_params.show_channels && win->ofi)
        fprintf(stderr, "locus[%d]: window freed: %llu put/get(s) went by libfabric RMA\n", lc_log_rank,
                (unsigned long long)win->ofi_ops);
    /* Only after the window's closing barrier (or a failed creation):
     * nothing of ours is in flight (flush waited), no peer still uses the
     * key. */
    lc_ofi_rma_dereg(win->ofi_mr);
    win->ofi_mr = NULL;
    free(win->ofi);
    free(win->ofi_wrote);
    free(win->ofi_addr);
    free(win->ofi_key);
    win->ofi = win->ofi_wrote = NULL;
    win->ofi_addr = win->ofi_key = NULL;
}

static int lc_rma_ofi_failed(lc_rma_win_t *win)
{
    lc_ofi_rma_track_t *t = &win->ofi_track;
    int rc = lc_error(MPI_ERR_OTHER,
                      "a one-sided operation over libfabric RMA failed: %s (the target or its host may have died; "
                      "LOCUS_OFI_RMA=0 sends one-sided operations as messages instead)",
                      t->why);
    t->err = 0;
    return rc;
}

int lc_rma_ofi_op(lc_rma_win_t *win, bool put, int target, uint64_t off, void *local, size_t bytes)
{
    if (!bytes) return MPI_SUCCESS;
    lc_peer_t *peer = win->comm->peers[target];
    uint64_t remote = win->ofi_addr[target] + off, key = win->ofi_key[target];
    for (;;) {
        int st = put ? lc_ofi_rma_write(peer, local, bytes, remote, key, &win->ofi_track)
                     : lc_ofi_rma_read(peer, local, bytes, remote, key, &win->ofi_track);
        if (st == LC_OK) break;
        if (st != LC_AGAIN)
            return lc_error(MPI_ERR_OTHER, "cannot post a one-sided %s of %zu bytes to rank %d over libfabric RMA",
                            put ? "write" : "read", bytes, target);
        lc_rma_idle(); /* the provider's queue is full: completions free it */
    }
    if (put) win->ofi_wrote[target] = 1;
    win->ofi_ops++;
    return MPI_SUCCESS;
}

int lc_rma_ofi_flush(lc_rma_win_t *win, int target)
{
    if (!win->ofi) return MPI_SUCCESS;
    int n = win->comm->size;
    for (int r = target < 0 ? 0 : target; r < (target < 0 ? n : target + 1); r++) {
        if (!win->ofi_wrote[r]) continue;
        win->ofi_wrote[r] = 0;
        if (lc_ofi_rma_delivery_complete()) continue;
        /* The read fence (see the top of the file). */
        int rc = lc_rma_ofi_op(win, false, r, 0, win->ofi_scratch, 1);
        if (rc != MPI_SUCCESS) return rc;
    }
    /* All operations of the window, not just the target's: simpler, and a
     * flush of one target is rarely issued with others' in flight. */
    while (win->ofi_track.pending) lc_rma_idle();
    return win->ofi_track.err ? lc_rma_ofi_failed(win) : MPI_SUCCESS;
}
