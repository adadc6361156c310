/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt_typed.c — point-to-point with derived datatypes.
 *
 * The engine moves bytes.  A message of count items of a type is its
 * packed bytes (count * size, typemap order), so a vector sent matches a
 * contiguous receive of the same type signature, as MPI requires.
 *  - A dense type (lc_dt_is_contig: one run of bytes in typemap order)
 *    is already its packed form at buf + true_lb: the byte path, no copy.
 *  - Any other type is staged: the send packs into a buffer the request
 *    owns before the engine sees it, the receive lands in such a buffer
 *    and is unpacked when the request completes (lc_request_complete
 *    calls lc_pt2pt_typed_done).  The type is retained while pending, so
 *    the user may free its handle at once.
 * Staging costs one extra copy of the message on each side; the channels
 * packing straight into ring cells (and CMA reading the cursor's iovec)
 * is the next step (docs/architecture.md "Datatypes").
 */
#include "pt2pt/lc_pt2pt.h"
#include "datatype/lc_dt.h"

#include <stdint.h>
#include <stdlib.h>

/* The user's buffer at the type's first data byte (buf may be MPI_BOTTOM:
 * integer arithmetic, no offset applied to a null pointer). */
static inline void *lc_typed_at(const void *buf, const lc_dt_t *t)
{
    return (void *)((uintptr_t)buf + (uintptr_t)t->true_lb);
}

static inline size_t lc_typed_bytes(const lc_dt_t *t, MPI_Count count)
{
    return (size_t)count * (size_t)t->size; /* the MPI layer ruled out overflow */
}

static int lc_typed_stage_alloc(size_t bytes, void **stage_p)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte buffer to pack a derived datatype into",
                        bytes);
    *stage_p = p;
    return MPI_SUCCESS;
}

/* Give req the stage and the user's side; a request that completed while
 * it was being started (an eager send into free ring space, a receive that
 * matched an unexpected message) is finished here. */
static void lc_typed_attach(lc_request_t *req, lc_dt_t *t, const void *buf, MPI_Count count, void *stage)
{
    lc_dt_retain(t);
    req->udt = t;
    req->ubuf = (void *)buf;
    req->ucount = count;
    req->stage = stage;
    if (req->complete) lc_pt2pt_typed_done(req);
}

void lc_pt2pt_typed_done(lc_request_t *req)
{
    if (req->kind == LC_REQ_RECV && !req->cancelled && req->st_bytes > 0)
        lc_dt_unpack(req->udt, req->ucount, req->ubuf, 0, req->stage, req->st_bytes);
    free(req->stage);
    req->stage = NULL;
    lc_dt_release(req->udt);
    req->udt = NULL;
}

void lc_pt2pt_typed_drop(lc_request_t *req)
{
    free(req->stage);
    req->stage = NULL;
    lc_dt_release(req->udt);
    req->udt = NULL;
}

int lc_pt2pt_isend_dt(const void *buf, MPI_Count count, lc_dt_t *t, int dest, int tag, lc_comm_t *comm,
                      int ctx_kind, lc_send_mode_t mode, lc_request_t **req_p)
{
    size_t bytes = lc_typed_bytes(t, count);
    if (lc_dt_is_contig(t, count))
        return lc_pt2pt_isend(lc_typed_at(buf, t), bytes, dest, tag, comm, ctx_kind, mode, req_p);
    void *stage = NULL;
    lc_request_t *req = NULL;
    int rc = lc_typed_stage_alloc(bytes, &stage);
    if (rc) return rc;
    rc = lc_dt_pack(t, count, buf, 0, stage, bytes);
    if (!rc) rc = lc_pt2pt_isend(stage, bytes, dest, tag, comm, ctx_kind, mode, &req);
    if (rc) {
        free(stage);
        return rc;
    }
    lc_typed_attach(req, t, buf, count, stage);
    *req_p = req;
    return MPI_SUCCESS;
}

int lc_pt2pt_send_dt(const void *buf, MPI_Count count, lc_dt_t *t, int dest, int tag, lc_comm_t *comm,
                     int ctx_kind, lc_send_mode_t mode)
{
    if (lc_dt_is_contig(t, count))
        return lc_pt2pt_send(lc_typed_at(buf, t), lc_typed_bytes(t, count), dest, tag, comm, ctx_kind, mode);
    lc_request_t *req = NULL;
    int rc = lc_pt2pt_isend_dt(buf, count, t, dest, tag, comm, ctx_kind, mode, &req);
    return rc ? rc : lc_pt2pt_wait_release(req, MPI_STATUS_IGNORE);
}

int lc_pt2pt_irecv_dt(void *buf, MPI_Count count, lc_dt_t *t, int source, int tag, lc_comm_t *comm, int ctx_kind,
                      lc_request_t **req_p)
{
    size_t bytes = lc_typed_bytes(t, count);
    if (lc_dt_is_contig(t, count))
        return lc_pt2pt_irecv(lc_typed_at(buf, t), bytes, source, tag, comm, ctx_kind, req_p);
    void *stage = NULL;
    lc_request_t *req = NULL;
    int rc = lc_typed_stage_alloc(bytes, &stage);
    if (rc) return rc;
    rc = lc_pt2pt_irecv(stage, bytes, source, tag, comm, ctx_kind, &req);
    if (rc) {
        free(stage);
        return rc;
    }
    lc_typed_attach(req, t, buf, count, stage);
    *req_p = req;
    return MPI_SUCCESS;
}

int lc_pt2pt_recv_dt(void *buf, MPI_Count count, lc_dt_t *t, int source, int tag, lc_comm_t *comm, int ctx_kind,
                     MPI_Status *status)
{
    if (lc_dt_is_contig(t, count))
        return lc_pt2pt_recv(lc_typed_at(buf, t), lc_typed_bytes(t, count), source, tag, comm, ctx_kind, status);
    lc_request_t *req = NULL;
    int rc = lc_pt2pt_irecv_dt(buf, count, t, source, tag, comm, ctx_kind, &req);
    return rc ? rc : lc_pt2pt_wait_release(req, status);
}

int lc_pt2pt_imrecv_dt(void *buf, MPI_Count count, lc_dt_t *t, lc_request_t *msg, lc_request_t **req_p)
{
    size_t bytes = lc_typed_bytes(t, count);
    if (lc_dt_is_contig(t, count)) return lc_pt2pt_imrecv(lc_typed_at(buf, t), bytes, msg, req_p);
    void *stage = NULL;
    lc_request_t *req = NULL;
    int rc = lc_typed_stage_alloc(bytes, &stage);
    if (rc) return rc;
    rc = lc_pt2pt_imrecv(stage, bytes, msg, &req);
    if (rc) {
        free(stage);
        return rc;
    }
    lc_typed_attach(req, t, buf, count, stage);
    *req_p = req;
    return MPI_SUCCESS;
}
