/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_bsend_comm.c — MPI 4.1's buffers per communicator and the
 * flush calls: MPI_Comm_attach_buffer/detach_buffer (and `_c`),
 * MPI_Comm_flush_buffer, MPI_Buffer_flush, and their nonblocking forms
 * MPI_Comm_iflush_buffer, MPI_Buffer_iflush.
 *
 * A communicator's pool record is made at its first attach and kept until
 * the communicator goes (lc_comm_t's `bsend_pool`; a detach empties it):
 * at MPI_THREAD_MULTIPLE a buffered send runs outside the section and
 * loads the pointer with acquire, so the record must not move or go while
 * the communicator can be used.  It hangs on the communicator as an
 * attribute of an internal keyval too, whose delete callback (run when
 * the communicator is freed; not copied by MPI_Comm_dup) waits for the
 * pool's messages and frees the record, never the user's memory.  A
 * buffered send uses its communicator's pool when one is attached, else
 * its session's (a communicator made from a session's group, or derived
 * from one, carries the session's id), else the process's (MPI 4.1
 * §3.6.1).
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
    (void)keyval, (void)extra;
    void *buffer;
    MPI_Count size;
    lc_bsend_pool_detach(value, &buffer, &size);
    /* The communicator is being freed: no buffered send may use it any
     * more (its handle is no longer valid to the user). */
    lc_comm_t *c = lc_comm_lookup((MPI_Comm)handle);
    if (c && c->bsend_pool == value) __atomic_store_n((lc_bsend_pool_t **)&c->bsend_pool, NULL, __ATOMIC_RELAXED);
    free(value);
    return MPI_SUCCESS;
}

/* The communicator's pool when a buffer is attached to it, from the
 * section (attach, detach and the flushes are section calls: no lock). */
static lc_bsend_pool_t *lc_bsend_comm_pool(lc_comm_t *c)
{
    lc_bsend_pool_t *p = c->bsend_pool;
    return p && lc_bsend_pool_attached(p) ? p : NULL;
}

lc_bsend_pool_t *lc_bsend_pool_of(lc_comm_t *c)
{
    /* Acquire: pairs with the release store of the first attach, so the
     * record's zeroed lock and fields are seen (any thread). */
    lc_bsend_pool_t *p = __atomic_load_n((lc_bsend_pool_t **)&c->bsend_pool, __ATOMIC_ACQUIRE);
    if (p && lc_bsend_pool_live(p)) return p;
    if (c->session && (p = lc_session_pool(c->session))) return p;
    return &lc_bsend_proc;
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
    if ((p = c->bsend_pool)) { /* attached before: the record stays (see the head) */
        LC_TRY(lc_bsend_pool_attach(p, buffer, size));
        return MPI_SUCCESS;
    }
    if (lc_bsend_keyval == MPI_KEYVAL_INVALID)
        LC_TRY(lc_keyval_create(LC_ATTR_COMM, NULL, lc_bsend_comm_delete, NULL, &lc_bsend_keyval));
    if (!(p = calloc(1, sizeof(*p)))) LC_TRY(lc_error(MPI_ERR_NO_MEM, "out of memory for a buffer record"));
    if ((rc = lc_bsend_pool_attach(p, buffer, size)) != MPI_SUCCESS ||
        (rc = lc_attr_set(LC_ATTR_COMM, c->handle, &c->attrs, lc_bsend_keyval, p, LC_ATTR_PTR)) != MPI_SUCCESS) {
        free(p);
        goto err;
    }
    /* Release: a buffered send that loads it (acquire, any thread) sees
     * the record filled. */
    __atomic_store_n((lc_bsend_pool_t **)&c->bsend_pool, p, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
err:
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
    /* The record stays on the communicator, empty (see the head). */
    lc_bsend_pool_detach(p, (void **)buffer_addr, size_p);
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
