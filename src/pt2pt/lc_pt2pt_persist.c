/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_persist.c — persistent requests (MPI_Send_init, MPI_Recv_init
 * and the other modes).  The persistent request (LC_REQ_PSEND,
 * LC_REQ_PRECV) only holds the arguments; each start makes a fresh send or
 * receive, its `active` instance, which completes like any other.
 */
#include "pt2pt/lc_pt2pt_impl.h"

int lc_pt2pt_start(lc_request_t *preq)
{
    if (preq->udt) { /* a derived type (lc_pt2pt_typed.c) */
        if (preq->kind == LC_REQ_PSEND)
            return lc_pt2pt_isend_dt(preq->buf, preq->count, preq->udt, preq->rank, preq->tag, preq->comm, LC_CTX_PT2PT,
                                     (lc_send_mode_t)preq->mode, &preq->active);
        return lc_pt2pt_irecv_dt(preq->buf, preq->count, preq->udt, preq->rank, preq->tag, preq->comm, LC_CTX_PT2PT,
                                 &preq->active);
    }
    if (preq->kind == LC_REQ_PSEND)
        return lc_pt2pt_isend(preq->buf, preq->bytes, preq->rank, preq->tag, preq->comm, LC_CTX_PT2PT,
                              (lc_send_mode_t)preq->mode, &preq->active);
    return lc_pt2pt_irecv(preq->buf, preq->bytes, preq->rank, preq->tag, preq->comm, LC_CTX_PT2PT,
                          &preq->active);
}
