/*
 * lc_mpi.h — shared by the files of the MPI API layer (src/mpi).
 *
 * Every MPI function is defined as PMPI_<name> (exported with LC_API) and
 * MPI_<name> is a weak alias of it (LC_MPI_ALIAS), so a profiling library
 * can interpose MPI_<name> and call PMPI_<name>.
 *
 * Error handling pattern of an API function:
 *   - each check returns MPI_SUCCESS or an error code made by lc_error()
 *     with a message that says what was wrong;
 *   - the function returns lc_mpi_error(comm, "MPI_Xxx", code), which
 *     runs the communicator's error handler (fatal by default: print the
 *     message and abort the job; MPI_ERRORS_RETURN: return the code).
 */
#ifndef LC_MPI_H
#define LC_MPI_H

#include <mpi.h>

#include "pt2pt/lc_pt2pt.h"
#include "util/lc_dtype.h"
#include "util/lc_error.h"
#include "util/lc_util.h"

#include <stdbool.h>

#define LC_API __attribute__((visibility("default")))
#define LC_MPI_ALIAS(name) \
    extern __typeof__(PMPI_##name) MPI_##name __attribute__((weak, alias("PMPI_" #name), visibility("default")))

enum { LC_MPI_STATE_NONE = 0, LC_MPI_STATE_INIT, LC_MPI_STATE_FINALIZED };
extern int lc_mpi_state;

/* Run the error handler of `comm` (MPI_COMM_WORLD's when comm is NULL)
 * for `code` raised in `func`.  Returns `code` when the handler returns. */
int lc_mpi_error(lc_comm_t *comm, const char *func, int code);

/* Argument checks: MPI_SUCCESS or an error code with its message. */
int lc_check_initialized(void);
int lc_check_comm(MPI_Comm handle, lc_comm_t **comm_p);  /* also checks initialization */
int lc_check_count(int count);
int lc_check_dtype(MPI_Datatype dt);
int lc_check_buf(const void *buf, int count, MPI_Datatype dt);
/* rank within comm; PROC_NULL allowed; ANY_SOURCE when `any_ok`. */
int lc_check_rank(const lc_comm_t *comm, int rank, bool any_ok);
int lc_check_tag(int tag, bool any_ok);
int lc_check_root(const lc_comm_t *comm, int root);
int lc_check_op(MPI_Op op, MPI_Datatype dt);

/* Size in bytes of count elements of a (validated) predefined type. */
static inline size_t lc_bytes(int count, MPI_Datatype dt)
{
    return (size_t)count * lc_dtype_size(dt);
}

/* The largest tag (MPI_TAG_UB attribute). */
#define LC_TAG_UB 0x7fffffff

#endif
