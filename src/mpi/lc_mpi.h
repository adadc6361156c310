/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi.h — shared by the files of the MPI API layer (src/mpi).
 *
 * Every MPI function is defined as PMPI_<name> (exported with LC_API) and
 * MPI_<name> is a weak alias of it (LC_MPI_ALIAS), so a profiling library
 * can interpose MPI_<name> and call PMPI_<name>.
 *
 * The one argument-check idiom of an API function (docs/style.md):
 *
 *     LC_API int PMPI_Foo(MPI_Comm comm, int count, int *result)
 *     {
 *         lc_comm_t *c = NULL;                  // error handler: c's, else WORLD's
 *         int rc;
 *         LC_TRY(lc_check_comm(comm, &c));      // each check: MPI_SUCCESS or a code
 *         LC_TRY(lc_check_count(count));        //   made by lc_error() with a message
 *         LC_TRY(lc_check_ptr(result, "result"));
 *         LC_TRY(lc_foo(c, count, result));     // the work, below the MPI layer
 *         return MPI_SUCCESS;
 *     err:
 *         return lc_mpi_error(c, "MPI_Foo", rc);
 *     }
 *     LC_MPI_ALIAS(Foo);
 *
 * lc_mpi_error runs the communicator's error handler (fatal by default:
 * print the message and abort the job; MPI_ERRORS_RETURN: return the
 * code).  Outputs are written only on success.  Checks that several
 * functions share are functions (lc_check_*), not copies.
 */
#ifndef LC_MPI_H
#define LC_MPI_H

#include <mpi.h>

#include "datatype/lc_dt.h"
#include "pt2pt/lc_pt2pt.h"
#include "util/lc_dtype.h"
#include "util/lc_error.h"
#include "util/lc_util.h"

#include <stdbool.h>

#define LC_API __attribute__((visibility("default")))
#define LC_MPI_ALIAS(name) \
    extern __typeof__(PMPI_##name) MPI_##name __attribute__((weak, alias("PMPI_" #name), visibility("default")))

/* Run one check or step of an API function; on failure jump to its `err:`
 * label with the code in `rc` (see the idiom above). */
#define LC_TRY(expr)                                           \
    do {                                                       \
        if (lc_unlikely((rc = (expr)) != MPI_SUCCESS)) goto err; \
    } while (0)

enum { LC_MPI_STATE_NONE = 0, LC_MPI_STATE_INIT, LC_MPI_STATE_FINALIZED };
extern int lc_mpi_state; /* the runtime's, see lc_mpi_init.c */
/* Start the runtime or count one more user (MPI_Init, each session);
 * release: one user fewer, shut down after the last.  MPI error code. */
int lc_mpi_runtime_start(void);
int lc_mpi_runtime_release(void);
/* The thread level Locus provides for `required`. */
int lc_mpi_thread_level(int required);

/* Run the error handler of `comm` (MPI_COMM_WORLD's when comm is NULL)
 * for `code` raised in `func`.  Returns `code` when the handler returns. */
int lc_mpi_error(lc_comm_t *comm, const char *func, int code);
/* The same for the handler `eh` of any object (`kind` names it in the
 * abort message; `handle` is what a user handler receives). */
int lc_mpi_error_handler(MPI_Errhandler eh, int handle, const char *kind, const char *func, int code);

/* Argument checks: MPI_SUCCESS or an error code with its message. */
int lc_check_initialized(void);
int lc_check_comm(MPI_Comm handle, lc_comm_t **comm_p);  /* also checks initialization */
int lc_check_count(MPI_Count count);
/* A predefined communication type, or a live committed derived one. */
int lc_check_dtype(MPI_Datatype dt);
/* Also MPI_ERR_COUNT when count items of dt would not fit the address
 * space (large-count calls). */
int lc_check_buf(const void *buf, MPI_Count count, MPI_Datatype dt);
/* rank within comm; PROC_NULL allowed; ANY_SOURCE when `any_ok`. */
int lc_check_rank(const lc_comm_t *comm, int rank, bool any_ok);
/* MPI_ERR_COMM when comm is an intercommunicator: `what` needs an intra. */
int lc_check_intra(const lc_comm_t *comm, const char *what);
int lc_check_tag(int tag, bool any_ok);
int lc_check_root(const lc_comm_t *comm, int root);
int lc_check_op(MPI_Op op, MPI_Datatype dt);
/* An output or input pointer that must not be NULL: MPI_ERR_ARG naming it. */
int lc_check_ptr(const void *p, const char *name);

/* Checks shared by every send-like (receive-like) call: communicator,
 * count, datatype, peer rank, tag, buffer.  *comm_p is NULL when the
 * communicator itself is bad.  Inline: they are on the message path. */
static inline int lc_check_send(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                                lc_comm_t **comm_p)
{
    *comm_p = NULL;
    int rc = lc_check_comm(comm, comm_p);
    if (!rc) rc = lc_check_count(count);
    if (!rc) rc = lc_check_dtype(dt);
    if (!rc) rc = lc_check_rank(*comm_p, dest, false);
    if (!rc) rc = lc_check_tag(tag, false);
    if (!rc) rc = lc_check_buf(buf, count, dt);
    return rc;
}

static inline int lc_check_recv(const void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                                lc_comm_t **comm_p)
{
    *comm_p = NULL;
    int rc = lc_check_comm(comm, comm_p);
    if (!rc) rc = lc_check_count(count);
    if (!rc) rc = lc_check_dtype(dt);
    if (!rc) rc = lc_check_rank(*comm_p, source, true);
    if (!rc) rc = lc_check_tag(tag, true);
    if (!rc) rc = lc_check_buf(buf, count, dt);
    return rc;
}

/* The derived type behind a (validated) datatype handle, or NULL for a
 * predefined one: NULL keeps the byte path. */
static inline lc_dt_t *lc_mpi_derived(MPI_Datatype dt)
{
    return lc_likely(lc_dtype_valid(dt)) ? NULL : lc_dt_get(dt);
}

/* Size in bytes of count elements of a (validated) datatype: what a
 * message of them carries (packed bytes for a derived type); lc_check_buf
 * has ruled out overflow. */
static inline size_t lc_bytes(MPI_Count count, MPI_Datatype dt)
{
    size_t size = lc_dtype_size(dt);
    if (lc_unlikely(size == 0) && !lc_dtype_valid(dt)) {
        const lc_dt_t *t = lc_dt_get(dt);
        size = t ? (size_t)t->size : 0;
    }
    return (size_t)count * size;
}

/* The largest tag (MPI_TAG_UB attribute). */
#define LC_TAG_UB 0x7fffffff

#endif
