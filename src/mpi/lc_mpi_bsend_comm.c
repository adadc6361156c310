/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_bsend_comm.c — MPI 4.1's buffers per communicator and the
 * flush calls: MPI_Comm_attach_buffer/detach_buffer (and `_c`),
 * MPI_Comm_flush_buffer, MPI_Buffer_flush, and their nonblocking forms
 * MPI_Comm_iflush_buffer, MPI_Buffer_iflush.
 *
 * A communicator's pool hangs on it as an attribute of an internal keyval
 * (not copied by MPI_Comm_dup; its delete callback, run by MPI_Comm_free,
 * waits for the pool's messages and frees the record, never the user's
 * memory).  A buffered send uses its communicator's pool when it has one,
 * else its session's (a communicator made from a session's group, or
 * derived from one, carries the session's id), else the process's
 * (MPI 4.1 §3.6.1).
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_attr.h"
#include "mpi/lc_mpi_bsend.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* Created at the first MPI_Comm_attach_buffer; keyvals die at Finalize. */
static int lc_bsend_keyval = MPI_KEYVAL_INVALID;

static int lc_bsend_comm_delete(int handle, int keyval, void *value, void *extra)
{
    (void)handle, (void)keyval, (void)extra;
    void *buffer;
    MPI_Count size;
    lc_bsend_pool_detach(value, &buffer, &size);
    free(value);
    return MPI_SUCCESS;
}

static lc_bsend_pool_t *lc_bsend_comm_pool(lc_comm_t *c)
{
    void *value = NULL;
    int flag = 0;
    if (lc_bsend_keyval == MPI_KEYVAL_INVALID || !c->attrs) return NULL;
    if (lc_attr_get(LC_ATTR_COMM, &c->attrs, lc_bsend_keyval, false, &value, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return value;
}

lc_bsend_pool_t *lc_bsend_pool_of(lc_comm_t *c)
{
    lc_bsend_pool_t *p = lc_bsend_comm_pool(c);
    if (!p && c->session) p = lc_session_pool(c->session);
    return p ? p : &lc_bsend_proc;
}

static int lc_comm_attach(MPI_Comm comm, void *buffer, MPI_Count size, const char *func)
{
    lc_comm_t *c = NULL;
    lc_bsend_pool_t *p = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if (lc_bsend_comm_pool(c))
        LC_TRY(lc_error(MPI_ERR_BUFFER, "the communicator already has a buffer: detach it first with "
                                        "MPI_Comm_detach_buffer"));
    if (lc_bsend_keyval == MPI_KEYVAL_INVALID)
        LC_TRY(lc_keyval_create(LC_ATTR_COMM, NULL, lc_bsend_comm_delete, NULL, &lc_bsend_keyval));
    if (!(p = calloc(1, sizeof(*p)))) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for a buffer record"));
    /* Before the pool can take a message: from here buffered sends take
     * the section, which looks up their communicator's pool (relaxed: a
     * send that races this call may use either pool, as MPI allows). */
    __atomic_store_n(&lc_bsend_pools_any, 1, __ATOMIC_RELAXED);
    LC_TRY(lc_bsend_pool_attach(p, buffer, size));
    LC_TRY(lc_attr_set(LC_ATTR_COMM, c->handle, &c->attrs, lc_bsend_keyval, p, LC_ATTR_PTR));
    return MPI_SUCCESS;
err:
    free(p);
    return lc_mpi_error(c, func, rc);
}

/* `max`: the largest size the caller's size argument holds. */
static int lc_comm_detach(MPI_Comm comm, void *buffer_addr, MPI_Count *size_p, MPI_Count max, const char *func)
{
    lc_comm_t *c = NULL;
    lc_bsend_pool_t *p;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(buffer_addr, "buffer_addr"));
    LC_TRY(lc_check_ptr(size_p, "size"));
    if (!(p = lc_bsend_comm_pool(c)))
        LC_TRY(lc_error(MPI_ERR_BUFFER, "no buffer is attached to the communicator"));
    if ((MPI_Count)p->size > max)
        LC_TRY(lc_error(MPI_ERR_VALUE_TOO_LARGE, "the attached buffer has %zu bytes, more than an int holds: "
                                                 "detach it with MPI_Comm_detach_buffer_c",
                        p->size));
    lc_bsend_pool_detach(p, (void **)buffer_addr, size_p);
    /* The pool is empty now: deleting the attribute only frees the record. */
    LC_TRY(lc_attr_delete(LC_ATTR_COMM, c->handle, &c->attrs, lc_bsend_keyval));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, func, rc);
}

LC_API int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    return lc_comm_attach(comm, buffer, size, "MPI_Comm_attach_buffer");
}
LC_MPI_ALIAS(Comm_attach_buffer);

LC_API int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    return lc_comm_attach(comm, buffer, size, "MPI_Comm_attach_buffer_c");
}
LC_MPI_ALIAS(Comm_attach_buffer_c);

LC_API int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = lc_comm_detach(comm, buffer_addr, size ? &n : NULL, INT_MAX, "MPI_Comm_detach_buffer");
    if (!rc) *size = (int)n;
    return rc;
}
LC_MPI_ALIAS(Comm_detach_buffer);

LC_API int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    return lc_comm_detach(comm, buffer_addr, size, INT64_MAX, "MPI_Comm_detach_buffer_c");
}
LC_MPI_ALIAS(Comm_detach_buffer_c);

/* Waits until the communicator's buffered messages have left its buffer
 * (none attached: nothing to wait for). */
LC_API int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    lc_comm_t *c = NULL;
    lc_bsend_pool_t *p;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    if ((p = lc_bsend_comm_pool(c))) lc_bsend_pool_flush(p);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_flush_buffer", rc);
}
LC_MPI_ALIAS(Comm_flush_buffer);

LC_API int PMPI_Buffer_flush(void)
{
    int rc;
    LC_TRY(lc_check_initialized());
    lc_bsend_pool_flush(&lc_bsend_proc);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Buffer_flush", rc);
}
LC_MPI_ALIAS(Buffer_flush);

/* Starts a flush of the communicator's buffer: the request completes when
 * the messages pending now have left it (at once when it has none). */
LC_API int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    lc_comm_t *c = NULL;
    lc_bsend_pool_t *p, none = { 0 };
    lc_request_t *req;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_request_out(request));
    p = lc_bsend_comm_pool(c);
    LC_TRY(lc_bsend_pool_iflush(p ? p : &none, &req));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_iflush_buffer", rc);
}
LC_MPI_ALIAS(Comm_iflush_buffer);

LC_API int PMPI_Buffer_iflush(MPI_Request *request)
{
    lc_request_t *req;
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_request_out(request));
    LC_TRY(lc_bsend_pool_iflush(&lc_bsend_proc, &req));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Buffer_iflush", rc);
}
LC_MPI_ALIAS(Buffer_iflush);
