/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_check.c — argument checks and the error-handler dispatch shared
 * by every MPI function.
 */
#include "mpi/lc_mpi.h"
#include "coll/lc_op.h"
#include "datatype/lc_dt.h"
#include "mpi/lc_mpi_errhandler.h"
#include "pmi/lc_pmi.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int lc_mpi_state;

int lc_mpi_error(lc_comm_t *comm, const char *func, int code)
{
    if (!comm) comm = lc_comm_builtin[0];
    MPI_Errhandler eh = comm ? comm->errhandler : MPI_ERRORS_ARE_FATAL;
    return lc_mpi_error_handler(eh, comm ? (int)comm->handle : (int)MPI_COMM_NULL, "communicator", func, code);
}

int lc_mpi_error_handler(MPI_Errhandler eh, int handle, const char *kind, const char *func, int code)
{
    if (eh == MPI_ERRORS_RETURN) return code;
    MPI_Comm_errhandler_function *fn = lc_errhandler_fn(eh);
    if (fn) {
        /* A user handler gets copies: it may free the object, and the
         * code it sees is the one the call returns afterwards.  The
         * variadic part: Locus passes the function's name (char *).
         * Communicator, window (and file) handles are all ints in
         * MPICH's ABI, so one function type serves every kind. */
        int h = handle;
        int arg = code;
        fn(&h, &arg, func);
        return code;
    }
    char text[MPI_MAX_ERROR_STRING];
    lc_mpi_error_text(code, text, sizeof(text));
    lc_log_error("%s: %s", func, text);
    if (eh == MPI_ERRORS_ABORT && handle != (int)MPI_COMM_WORLD)
        lc_log_error("MPI_ERRORS_ABORT on %s %#x: aborting the job", kind, (unsigned)handle);
    int exit_code = lc_error_class_of(code) & 0xff;
    char msg[MPI_MAX_ERROR_STRING + 64];
    snprintf(msg, sizeof(msg), "%s: %s", func, text);
    if (lc_mpi_state == LC_MPI_STATE_INIT) lc_pmi_abort(exit_code, msg);
    _exit(exit_code ? exit_code : 1);
}

int lc_check_initialized(void)
{
    if (lc_likely(lc_mpi_state == LC_MPI_STATE_INIT)) return MPI_SUCCESS;
    if (lc_mpi_state == LC_MPI_STATE_NONE)
        return lc_error(MPI_ERR_OTHER, "MPI is not initialized: call MPI_Init first");
    return lc_error(MPI_ERR_OTHER, "MPI has been finalized: no MPI call is allowed after MPI_Finalize");
}

int lc_check_comm(MPI_Comm handle, lc_comm_t **comm_p)
{
    int rc = lc_check_initialized();
    if (lc_unlikely(rc)) return rc;
    lc_comm_t *c = lc_comm_lookup(handle);
    if (lc_unlikely(!c)) {
        if (handle == MPI_COMM_NULL)
            return lc_error(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
        return lc_error(MPI_ERR_COMM, "%#x is not a valid communicator (freed, or not a communicator)",
                        (unsigned)handle);
    }
    *comm_p = c;
    return MPI_SUCCESS;
}

int lc_check_p2p_each(const void *buf, MPI_Count count, MPI_Datatype dt, int rank, int tag, MPI_Comm comm, bool any_ok,
                      lc_comm_t **comm_p)
{
    *comm_p = NULL;
    int rc = lc_check_comm(comm, comm_p);
    if (!rc) rc = lc_check_count(count);
    if (!rc) rc = lc_check_dtype(dt);
    if (!rc) rc = lc_check_rank(*comm_p, rank, any_ok);
    if (!rc) rc = lc_check_tag(tag, any_ok);
    if (!rc) rc = lc_check_buf(buf, count, dt);
    return rc;
}

int lc_check_count(MPI_Count count)
{
    if (lc_unlikely(count < 0)) return lc_error(MPI_ERR_COUNT, "count %lld is negative", (long long)count);
    return MPI_SUCCESS;
}

/* Point-to-point and collectives move predefined types as bytes and
 * committed derived types through the datatype engine; the datatype layer
 * says what is wrong with anything else (null, freed, uncommitted, a
 * bound marker). */
int lc_check_dtype(MPI_Datatype dt)
{
    if (lc_likely(lc_dtype_valid(dt))) return MPI_SUCCESS;
    lc_dt_t *t;
    return lc_dt_check_comm(dt, &t);
}

/* MPI_IN_PLACE ((void *)-1) is a marker, never memory: every caller that
 * accepts it (a collective's sendbuf, a scatter root's recvbuf) tests for
 * it before asking here, so here it is an error (issue 12, point 5: a
 * send from it was a SIGSEGV). */
int lc_check_buf(const void *buf, MPI_Count count, MPI_Datatype dt)
{
    size_t size = lc_dtype_size(dt), bytes;
    if (lc_unlikely(buf == MPI_IN_PLACE))
        return lc_error(MPI_ERR_BUFFER, "the buffer is MPI_IN_PLACE, which only some collective operations accept");
    if (lc_unlikely(size == 0) && !lc_dtype_valid(dt)) {
        /* A derived type: its data may sit at absolute addresses from
         * MPI_BOTTOM (NULL), so a NULL buffer is not an error. */
        const lc_dt_t *t = lc_dt_get(dt);
        size = t ? (size_t)t->size : 0;
        buf = (const void *)1;
    }
    if (lc_unlikely(buf == NULL && count > 0 && size > 0))
        return lc_error(MPI_ERR_BUFFER, "buffer is NULL but count is %lld", (long long)count);
    if (lc_unlikely(__builtin_mul_overflow((size_t)count, size, &bytes) || bytes > PTRDIFF_MAX))
        return lc_error(MPI_ERR_COUNT, "count %lld of %zu-byte items exceeds the address space", (long long)count,
                        size);
    return MPI_SUCCESS;
}

int lc_check_rank(const lc_comm_t *comm, int rank, bool any_ok)
{
    if (lc_likely(rank >= 0 && rank < comm->peer_count)) return MPI_SUCCESS;
    if (rank == MPI_PROC_NULL || (any_ok && rank == MPI_ANY_SOURCE)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_RANK, "rank %d is out of range for a communicator of size %d%s", rank,
                    comm->peer_count, comm->remote_world ? " (the remote group of an intercommunicator)" : "");
}

int lc_check_intra(const lc_comm_t *comm, const char *what)
{
    if (lc_likely(!comm->remote_world)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_COMM, "%s is not defined on an intercommunicator", what);
}

int lc_check_tag(int tag, bool any_ok)
{
    if (lc_likely(tag >= 0 && tag <= LC_TAG_UB)) return MPI_SUCCESS;
    if (any_ok && tag == MPI_ANY_TAG) return MPI_SUCCESS;
    return lc_error(MPI_ERR_TAG, "tag %d is invalid: tags go from 0 to MPI_TAG_UB (%d)%s", tag, LC_TAG_UB,
                    any_ok ? " or are MPI_ANY_TAG" : "");
}

int lc_check_root(const lc_comm_t *comm, int root)
{
    if (lc_likely(root >= 0 && root < comm->size)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_ROOT, "root %d is out of range for a communicator of size %d", root,
                    comm->size);
}

int lc_check_op(MPI_Op op, MPI_Datatype dt)
{
    return lc_op_check(op, dt);
}

int lc_check_ptr(const void *p, const char *name)
{
    if (lc_likely(p != NULL)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_ARG, "%s is NULL", name);
}
