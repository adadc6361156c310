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
 * attached buffer is a pool (lc_mpi_bsend.h): this file's is the
 * process's; lc_mpi_bsend_comm.c hangs others on communicators and
 * lc_mpi_session.c on sessions.
 * MPI_BUFFER_AUTOMATIC: each message gets its own allocation instead.
 *
 * Nonblocking flushes (MPI_Buffer_iflush & co.): each internal send has a
 * completion hook (lc_request_t.on_complete) that, while an iflush is
 * pending on its pool, counts the message off every iflush that waits for
 * it; the iflush request completes when its count reaches zero, from
 * whatever progress call completed the last send.  Messages sent after
 * the iflush call are not waited for (their seq is past its `upto`).
 */
#include "mpi/lc_mpi_bsend.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

lc_bsend_pool_t lc_bsend_proc;

static void lc_bsend_reap(lc_bsend_pool_t *p)
{
    int j = 0;
    for (int i = 0; i < p->nblocks; i++) {
        if (p->blocks[i].req->complete) {
            lc_request_release(p->blocks[i].req);
            free(p->blocks[i].own);
        } else {
            p->blocks[j++] = p->blocks[i];
        }
    }
    p->nblocks = j;
}

/* First fit; returns the index the new block must take, or -1.  An
 * automatic pool always has room: the block goes last. */
static int lc_bsend_find(lc_bsend_pool_t *p, size_t len, size_t *offset_p)
{
    size_t at = 0;
    if (p->automatic) {
        *offset_p = 0;
        return p->nblocks;
    }
    for (int i = 0; i <= p->nblocks; i++) {
        size_t end = i < p->nblocks ? p->blocks[i].offset : p->size;
        if (end >= at && end - at >= len) {
            *offset_p = at;
            return i;
        }
        if (i < p->nblocks) at = p->blocks[i].offset + p->blocks[i].len;
    }
    return -1;
}

/* Reserve `len` bytes of the pool: *offset_p, and the index at which its
 * block record goes (room for one more record is made). */
static int lc_bsend_reserve(lc_bsend_pool_t *p, size_t len, size_t bytes, size_t *offset_p, int *at_p)
{
    lc_bsend_reap(p);
    int at = lc_bsend_find(p, len, offset_p);
    if (at < 0) { /* give completed sends a chance to finish */
        lc_progress();
        lc_bsend_reap(p);
        at = lc_bsend_find(p, len, offset_p);
    }
    if (at < 0)
        return lc_error(MPI_ERR_BUFFER,
                        "no room in the attached buffer for a %zu-byte message (%s; each message needs its "
                        "size + MPI_BSEND_OVERHEAD = %d bytes): attach a larger buffer with MPI_Buffer_attach",
                        bytes, p->base ? "buffer full" : "no buffer attached", MPI_BSEND_OVERHEAD);
    if (p->nblocks == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        lc_bsend_block_t *b = realloc(p->blocks, sizeof(*b) * (size_t)cap);
        if (!b) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d buffered-send records", cap);
        p->blocks = b;
        p->cap = cap;
    }
    *at_p = at;
    return MPI_SUCCESS;
}

/* Completion hook of an internal send (runs inside lc_request_complete,
 * the block still in the pool: blocks leave it only at lc_bsend_reap). */
static void lc_bsend_sent(lc_request_t *req)
{
    lc_bsend_pool_t *p = req->ext;
    uint64_t seq = UINT64_MAX;
    if (!p->flushes) return;
    for (int i = 0; i < p->nblocks && seq == UINT64_MAX; i++)
        if (p->blocks[i].req == req) seq = p->blocks[i].seq;
    for (lc_bsend_flush_t **at = &p->flushes, *f; (f = *at) != NULL;) {
        if (seq < f->upto && --f->left == 0) {
            *at = f->next;
            lc_request_complete(f->req); /* no hook of its own: no recursion */
            free(f);
        } else {
            at = &f->next;
        }
    }
}

int lc_bsend_pool_iflush(lc_bsend_pool_t *p, lc_request_t **req_p)
{
    int left = 0;
    for (int i = 0; i < p->nblocks; i++) left += !p->blocks[i].req->complete;
    lc_request_t *req = lc_request_alloc(LC_REQ_DONE);
    if (!req) return lc_error(MPI_ERR_NO_MEM, "out of requests");
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    if (left == 0) {
        lc_request_complete(req);
        *req_p = req;
        return MPI_SUCCESS;
    }
    lc_bsend_flush_t *f = malloc(sizeof(*f));
    if (!f) {
        lc_request_release(req);
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a buffer flush");
    }
    *f = (lc_bsend_flush_t){ p->flushes, req, p->next_seq, left };
    p->flushes = f;
    *req_p = req;
    return MPI_SUCCESS;
}

static int lc_bsend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    const char *func)
{
    lc_comm_t *c = NULL;
    lc_request_t *req;
    size_t offset = 0;
    int rc, at = 0;
    LC_TRY(lc_check_send(buf, count, dt, dest, tag, comm, &c));
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    lc_dt_t *t = lc_mpi_p2p_type(dt);
    size_t bytes = lc_mpi_p2p_bytes(count, dt, t);
    /* Exactly what MPI tells users to reserve per message; the block
     * records live outside the user's buffer. */
    size_t len = bytes + MPI_BSEND_OVERHEAD;
    lc_bsend_pool_t *p = lc_bsend_pool_of(c);
    LC_TRY(lc_bsend_reserve(p, len, bytes, &offset, &at));
    char *own = NULL, *copy = p->base + offset;
    if (p->automatic && !(copy = own = malloc(len)))
        LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte buffered message", bytes));
    if (t)
        rc = lc_dt_pack(t, count, buf, 0, copy, bytes); /* the message is the packed bytes */
    else if (bytes)
        memcpy(copy, buf, bytes);
    if (rc == MPI_SUCCESS) rc = lc_pt2pt_isend(copy, bytes, dest, tag, c, LC_CTX_PT2PT, LC_MODE_STANDARD, &req);
    if (rc) free(own);
    LC_TRY(rc);
    lc_request_hold_comm(req); /* the user may free the communicator before it leaves */
    memmove(&p->blocks[at + 1], &p->blocks[at], sizeof(*p->blocks) * (size_t)(p->nblocks - at));
    p->blocks[at] = (lc_bsend_block_t){ offset, len, req, own, p->next_seq++ };
    p->nblocks++;
    /* Set after lc_pt2pt_isend returned: a send that completed inside it
     * was never in flight for an iflush to wait for. */
    req->ext = p;
    req->on_complete = lc_bsend_sent;
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

int lc_bsend_pool_attach(lc_bsend_pool_t *p, void *buffer, MPI_Count size)
{
    if (buffer == MPI_BUFFER_AUTOMATIC) {
        if (p->base || p->automatic)
            return lc_error(MPI_ERR_BUFFER, "a buffer is already attached: detach it first");
        p->automatic = 1;
        return MPI_SUCCESS;
    }
    if (size < 0) return lc_error(MPI_ERR_ARG, "buffer size %lld is negative", (long long)size);
    if (!buffer && size > 0) return lc_error(MPI_ERR_BUFFER, "buffer is NULL");
    if (p->base || p->automatic) return lc_error(MPI_ERR_BUFFER, "a buffer is already attached: detach it first");
    p->base = buffer;
    p->size = (size_t)size;
    return MPI_SUCCESS;
}

void lc_bsend_pool_flush(lc_bsend_pool_t *p)
{
    for (int i = 0; i < p->nblocks; i++) lc_pt2pt_wait(p->blocks[i].req);
    lc_bsend_reap(p); /* every hook ran: no iflush is left pending */
}

void lc_bsend_pool_detach(lc_bsend_pool_t *p, void **buffer_p, MPI_Count *size_p)
{
    lc_bsend_pool_flush(p); /* detach blocks until every buffered message has left */
    *buffer_p = p->automatic ? MPI_BUFFER_AUTOMATIC : p->base;
    *size_p = (MPI_Count)p->size;
    free(p->blocks);
    *p = (lc_bsend_pool_t){ 0 };
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
