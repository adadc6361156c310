/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ofi_rma.c — the ofi channel's part of one-sided windows: registering
 * window memory for peers, and fi_write / fi_read into a peer's
 * registered window (src/rma/lc_rma_ofi.c decides when).
 *
 * Completion: a write is posted with FI_DELIVERY_COMPLETE, so its
 * completion means the data is in the target's memory — what
 * MPI_Win_flush promises.  A provider that refuses the flag gets plain
 * writes (transmit completion only) and the window layer orders a read
 * after them before it calls the writes done (lc_ofi_rma_delivery_complete).
 * Each operation carries a small context (malloc'd, freed at its
 * completion) that points at the tracker to count down.
 */
#include "channel/lc_ofi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lc_ofi_rma_op {
    lc_ofi_ctx_t ctx;
    lc_ofi_rma_track_t *track;
    struct fid_mr *local_mr; /* FI_MR_LOCAL providers: the local buffer's registration */
} lc_ofi_rma_op_t;

static int lc_ofi_no_dc; /* the provider refused FI_DELIVERY_COMPLETE once */

bool lc_ofi_rma_usable(void)
{
    if (!lc_ofi_active || !lc_ofi.can_write) return false;
    /* Without delivery completion the read fence needs read-after-write
     * order; a provider with neither is not used for windows. */
    return !lc_ofi_no_dc || (lc_ofi.info->tx_attr->msg_order & FI_ORDER_RAW);
}

bool lc_ofi_rma_delivery_complete(void)
{
    return !lc_ofi_no_dc;
}

bool lc_ofi_rma_auto_progress(void)
{
    return lc_ofi.info && lc_ofi.info->domain_attr->data_progress == FI_PROGRESS_AUTO;
}

int lc_ofi_rma_reg(void *buf, size_t len, void **mr_p, uint64_t *key_p, uint64_t *addr_p)
{
    struct fid_mr *mr = NULL;
    int rc = lc_ofi_mr_reg(buf, len, FI_REMOTE_READ | FI_REMOTE_WRITE, &mr);
    if (rc) return rc;
    *mr_p = mr;
    *key_p = fi_mr_key(mr);
    *addr_p = lc_ofi.mr_virt_addr ? (uint64_t)(uintptr_t)buf : 0;
    return 0;
}

void lc_ofi_rma_dereg(void *mr)
{
    if (mr) fi_close(&((struct fid_mr *)mr)->fid);
}

void lc_ofi_rma_done(lc_ofi_ctx_t *ctx, int err, const char *why)
{
    lc_ofi_rma_op_t *op = (lc_ofi_rma_op_t *)ctx;
    lc_ofi_rma_track_t *t = op->track;
    if (err && !t->err) {
        t->err = err;
        snprintf(t->why, sizeof(t->why), "%s%s%s", fi_strerror(err), why && why[0] ? ": " : "", why ? why : "");
    }
    t->pending--;
    if (op->local_mr) fi_close(&op->local_mr->fid);
    free(op);
}

static int lc_ofi_rma_post(lc_peer_t *peer, bool write, void *local, size_t len, uint64_t remote, uint64_t key,
                           lc_ofi_rma_track_t *t)
{
    lc_ofi_rma_op_t *op = calloc(1, sizeof *op);
    if (!op) {
        lc_log_error("network channel: out of memory posting a one-sided %s", write ? "write" : "read");
        return LC_ERROR;
    }
    op->ctx.type = LC_OFI_CTX_RMA;
    op->track = t;
    void *desc = NULL;
    if (lc_ofi.mr_local) {
        int rc = lc_ofi_mr_reg(local, len, write ? FI_WRITE : FI_READ, &op->local_mr);
        if (rc) {
            free(op);
            lc_log_error("network channel: cannot register %zu bytes of origin buffer for a one-sided %s to rank "
                         "%d (fi_mr_reg: %s)",
                         len, write ? "write" : "read", peer->world_rank, lc_ofi_strerror(rc));
            return LC_ERROR;
        }
        desc = fi_mr_desc(op->local_mr);
    }
    struct iovec iov = { .iov_base = local, .iov_len = len };
    struct fi_rma_iov riov = { .addr = remote, .len = len, .key = key };
    struct fi_msg_rma msg = { .msg_iov = &iov,
                              .desc = &desc,
                              .iov_count = 1,
                              .addr = peer->ofi.addr,
                              .rma_iov = &riov,
                              .rma_iov_count = 1,
                              .context = &op->ctx.fi };
    ssize_t rc;
    if (write) {
        uint64_t flags = FI_COMPLETION | (lc_ofi_no_dc ? 0 : FI_DELIVERY_COMPLETE);
        rc = fi_writemsg(lc_ofi.ep, &msg, flags);
        if (rc == -FI_EBADFLAGS || rc == -FI_ENOSYS || (rc == -FI_EINVAL && !lc_ofi_no_dc)) {
            lc_ofi_no_dc = 1; /* the window layer now fences writes with a read */
            rc = fi_writemsg(lc_ofi.ep, &msg, FI_COMPLETION);
        }
    } else {
        rc = fi_readmsg(lc_ofi.ep, &msg, FI_COMPLETION);
    }
    if (rc == 0) {
        t->pending++;
        return LC_OK;
    }
    if (op->local_mr) fi_close(&op->local_mr->fid);
    free(op);
    if (rc == -FI_EAGAIN) return LC_AGAIN;
    lc_log_error("network channel: one-sided %s of %zu bytes to rank %d (host %s) failed: %s (%s)",
                 write ? "write" : "read", len, peer->world_rank, peer->ofi.state ? peer->ofi.state->host : "?",
                 lc_ofi_strerror(rc), lc_ofi.describe);
    return LC_ERROR;
}

int lc_ofi_rma_write(lc_peer_t *peer, const void *local, size_t len, uint64_t remote, uint64_t key,
                     lc_ofi_rma_track_t *t)
{
    return lc_ofi_rma_post(peer, true, (void *)(uintptr_t)local, len, remote, key, t);
}

int lc_ofi_rma_read(lc_peer_t *peer, void *local, size_t len, uint64_t remote, uint64_t key, lc_ofi_rma_track_t *t)
{
    return lc_ofi_rma_post(peer, false, local, len, remote, key, t);
}
