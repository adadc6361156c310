/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_session_buffer.c — MPI 4.1's buffers per session (§3.6.1):
 * MPI_Session_attach_buffer/detach_buffer (and `_c`),
 * MPI_Session_flush_buffer, MPI_Session_iflush_buffer.
 *
 * A session's pool lives in its record (lc_mpi_session.c).  A buffered
 * send on a communicator that derives from the session (made from one of
 * its groups, or dup/split/create of such a communicator) uses it when the
 * communicator has no buffer of its own (lc_bsend_pool_of).
 * MPI_Session_finalize detaches it.  Errors go to the session's handler.
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_bsend.h"

#include <limits.h>
#include <stdint.h>

static int lc_session_attach(MPI_Session session, void *buffer, MPI_Count size, const char *func)
{
    lc_bsend_pool_t *p;
    int rc;
    LC_TRY(lc_session_buffer(session, &p));
    if (lc_bsend_pool_attached(p))
        LC_TRY(lc_error(MPI_ERR_BUFFER, "the session already has a buffer: detach it first with "
                                        "MPI_Session_detach_buffer"));
    LC_TRY(lc_bsend_pool_attach(p, buffer, size));
    return MPI_SUCCESS;
err:
    return lc_session_fail(session, func, rc);
}

/* `max`: the largest size the caller's size argument holds. */
static int lc_session_detach(MPI_Session session, void *buffer_addr, MPI_Count *size_p, MPI_Count max, const char *func)
{
    lc_bsend_pool_t *p;
    int rc;
    LC_TRY(lc_session_buffer(session, &p));
    LC_TRY(lc_check_ptr(buffer_addr, "buffer_addr"));
    LC_TRY(lc_check_ptr(size_p, "size"));
    if (!lc_bsend_pool_attached(p)) LC_TRY(lc_error(MPI_ERR_BUFFER, "no buffer is attached to the session"));
    if ((MPI_Count)p->size > max)
        LC_TRY(lc_error(MPI_ERR_VALUE_TOO_LARGE,
                        "the attached buffer has %zu bytes, more than an int holds: "
                        "detach it with MPI_Session_detach_buffer_c",
                        p->size));
    lc_bsend_pool_detach(p, (void **)buffer_addr, size_p); /* blocks until its messages have left */
    return MPI_SUCCESS;
err:
    return lc_session_fail(session, func, rc);
}

LC_API int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    return lc_session_attach(session, buffer, size, "MPI_Session_attach_buffer");
}
LC_MPI_ALIAS(Session_attach_buffer);

LC_API int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    return lc_session_attach(session, buffer, size, "MPI_Session_attach_buffer_c");
}
LC_MPI_ALIAS(Session_attach_buffer_c);

LC_API int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = lc_session_detach(session, buffer_addr, size ? &n : NULL, INT_MAX, "MPI_Session_detach_buffer");
    if (!rc) *size = (int)n;
    return rc;
}
LC_MPI_ALIAS(Session_detach_buffer);

LC_API int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    return lc_session_detach(session, buffer_addr, size, INT64_MAX, "MPI_Session_detach_buffer_c");
}
LC_MPI_ALIAS(Session_detach_buffer_c);

/* Waits until the session's buffered messages have left its buffer (none
 * attached: nothing to wait for). */
LC_API int PMPI_Session_flush_buffer(MPI_Session session)
{
    lc_bsend_pool_t *p;
    int rc;
    LC_TRY(lc_session_buffer(session, &p));
    lc_bsend_pool_flush(p);
    return MPI_SUCCESS;
err:
    return lc_session_fail(session, "MPI_Session_flush_buffer", rc);
}
LC_MPI_ALIAS(Session_flush_buffer);

LC_API int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    lc_bsend_pool_t *p;
    lc_request_t *req;
    int rc;
    LC_TRY(lc_session_buffer(session, &p));
    LC_TRY(lc_check_request_out(request));
    LC_TRY(lc_bsend_pool_iflush(p, &req));
    lc_mpi_request_out(req, request);
    return MPI_SUCCESS;
err:
    return lc_session_fail(session, "MPI_Session_iflush_buffer", rc);
}
LC_MPI_ALIAS(Session_iflush_buffer);
