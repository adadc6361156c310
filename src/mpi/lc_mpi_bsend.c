/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_bsend.c — buffered sends: Buffer_attach/detach, Bsend, Ibsend
 * (each with its `_c` large-count twin).
 *
 * The message is copied into the attached buffer and sent from there by
 * an internal request; the user's call returns at once.  Each message
 * occupies its size plus MPI_BSEND_OVERHEAD bytes of the buffer, as users
 * are told to reserve.  Space is reclaimed when the internal sends
 * complete (checked at each Bsend and at detach).  The state of one
 * attached buffer is a pool (lc_mpi_bsend_pool.c, with the flushes): the
 * process's here; lc_mpi_bsend_comm.c hangs others on communicators and
 * lc_mpi_session.c on sessions.
 * MPI_BUFFER_AUTOMATIC: each message gets its own allocation instead.
 *
 * At MPI_THREAD_MULTIPLE, Bsend and Ibsend run outside the process-wide
 * section (lc_mpi_fast.h), on whichever pool: a pool has its own lock,
 * and this file touches its fields only through the pool's calls.
 */
#include "mpi/lc_mpi_bsend.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int lc_bsend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    const char *func)
{
    lc_comm_t *c = NULL;
    lc_request_t *req;
    char *copy = NULL;
    int rc;
    LC_TRY(lc_check_send(buf, count, dt, dest, tag, comm, &c));
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    lc_dt_t *t = lc_mpi_p2p_type(dt);
    size_t bytes = lc_mpi_p2p_bytes(count, dt, t);
    /* Exactly what MPI tells users to reserve per message; the block
     * records live outside the user's buffer. */
    size_t len = bytes + MPI_BSEND_OVERHEAD;
    lc_bsend_pool_t *p = lc_bsend_pool_of(c);
    /* The request is made before its block is placed and started after
     * the copy: its hook is in place before it can complete, so every
     * block's hook runs (lc_mpi_bsend_pool.c). */
    if (!(req = lc_pt2pt_send_request(NULL, bytes, dest, tag, c, LC_CTX_PT2PT, LC_MODE_STANDARD)))
        LC_TRY(lc_error(MPI_ERR_NO_MEM, "cannot allocate a send request"));
    req->ext = p;
    req->on_complete = lc_bsend_sent;
    req->hook_anywhere = 1; /* not deferred to the section's holder: lc_bsend_sent */
    if ((rc = lc_bsend_pool_reserve(p, req, len, bytes, &copy)) != MPI_SUCCESS) {
        lc_request_release(req);
        goto err;
    }
    /* The block is ours until its send completes: no lock for the copy. */
    if (t)
        rc = lc_dt_pack(t, count, buf, 0, copy, bytes); /* the message is the packed bytes */
    else if (bytes)
        memcpy(copy, buf, bytes);
    if (rc) {
        lc_bsend_pool_unreserve(p, req);
        lc_request_release(req);
        goto err;
    }
    req->buf = copy;
    lc_request_hold_comm(req); /* the user may free the communicator before it leaves */
    lc_pt2pt_send_start(req);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

int lc_mpi_bsend_start(lc_request_t *preq)
{
    MPI_Comm comm = preq->comm->handle;
    int rc = lc_bsend(preq->buf, preq->count, preq->dtype, preq->rank, preq->tag, comm, "MPI_Start");
    if (rc) return rc; /* lc_bsend ran the error handler */
    if (!(preq->active = lc_mpi_request_done())) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of requests"));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(preq->comm, "MPI_Start", rc);
}

static int lc_ibsend(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request *request, const char *func)
{
    lc_request_t *req;
    int rc;
    if (!request) LC_TRY(lc_error(MPI_ERR_REQUEST, "request is NULL"));
    rc = lc_bsend(buf, count, datatype, dest, tag, comm, func);
    if (rc) return rc; /* lc_bsend ran the error handler */
    /* The data is in the attached buffer: the user's request is done. */
    if (!(req = lc_mpi_request_done())) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of requests"));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

static int lc_buffer_attach(void *buffer, MPI_Count size, const char *func)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_bsend_pool_attach(&lc_bsend_proc, buffer, size));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

/* Detach and return the buffer; `max` is the largest size the caller's
 * size argument can hold (INT_MAX for MPI_Buffer_detach). */
static int lc_buffer_detach(void *buffer_addr, MPI_Count *size_p, MPI_Count max, const char *func)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(buffer_addr, "buffer_addr"));
    if ((MPI_Count)lc_bsend_proc.size > max)
        LC_TRY(lc_error(MPI_ERR_VALUE_TOO_LARGE,
                        "the attached buffer has %zu bytes, more than an int holds: "
                        "detach it with MPI_Buffer_detach_c",
                        lc_bsend_proc.size));
    lc_bsend_pool_detach(&lc_bsend_proc, (void **)buffer_addr, size_p);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_bsend(buf, count, datatype, dest, tag, comm, "MPI_Bsend");
}
LC_MPI_ALIAS(Bsend);

LC_API int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return lc_bsend(buf, count, datatype, dest, tag, comm, "MPI_Bsend_c");
}
LC_MPI_ALIAS(Bsend_c);

LC_API int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request)
{
    return lc_ibsend(buf, count, datatype, dest, tag, comm, request, "MPI_Ibsend");
}
LC_MPI_ALIAS(Ibsend);

LC_API int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request)
{
    return lc_ibsend(buf, count, datatype, dest, tag, comm, request, "MPI_Ibsend_c");
}
LC_MPI_ALIAS(Ibsend_c);

LC_API int PMPI_Buffer_attach(void *buffer, int size)
{
    return lc_buffer_attach(buffer, size, "MPI_Buffer_attach");
}
LC_MPI_ALIAS(Buffer_attach);

LC_API int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return lc_buffer_attach(buffer, size, "MPI_Buffer_attach_c");
}
LC_MPI_ALIAS(Buffer_attach_c);

LC_API int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count n;
    int rc;
    LC_TRY(lc_check_ptr(size, "size"));
    rc = lc_buffer_detach(buffer_addr, &n, INT_MAX, "MPI_Buffer_detach");
    if (!rc) *size = (int)n;
    return rc; /* lc_buffer_detach ran the error handler */
err:
    return lc_mpi_error(NULL, "MPI_Buffer_detach", rc);
}
LC_MPI_ALIAS(Buffer_detach);

LC_API int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    int rc;
    LC_TRY(lc_check_ptr(size, "size"));
    return lc_buffer_detach(buffer_addr, size, INT64_MAX, "MPI_Buffer_detach_c");
err:
    return lc_mpi_error(NULL, "MPI_Buffer_detach_c", rc);
}
LC_MPI_ALIAS(Buffer_detach_c);
