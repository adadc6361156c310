/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_coll_check.c — argument checks shared by the collective
 * operations of the MPI API (lc_mpi_coll.c, lc_mpi_coll_vector.c).
 */
#include "mpi/lc_mpi_coll.h"
#include "coll/lc_op.h"

/* count, datatype and buffer of one side of a transfer */
int lc_check_side(const void *buf, MPI_Count count, MPI_Datatype dt)
{
    int rc = lc_check_count(count);
    if (rc == MPI_SUCCESS) rc = lc_check_dtype(dt);
    if (rc == MPI_SUCCESS) rc = lc_check_buf(buf, count, dt);
    return rc;
}

/* `where` completes the message: "" or " on a rank other than the root" */
int lc_check_not_in_place(const void *buf, const char *what, const char *where)
{
    if (lc_likely(buf != MPI_IN_PLACE)) return MPI_SUCCESS;
    return lc_error(MPI_ERR_BUFFER, "%s cannot be MPI_IN_PLACE%s", what, where);
}

/* counts[size] (and displs[size] unless `displs_name` is NULL) of a vector
 * collective, and the buffer they describe. */
int lc_check_vector(const lc_comm_t *comm, const void *buf, const lc_vec_t *v, const char *counts_name,
                    const char *displs_name, MPI_Datatype dt)
{
    if (!v->counts) return lc_error(MPI_ERR_ARG, "%s is NULL", counts_name);
    if (displs_name && !v->displs) return lc_error(MPI_ERR_ARG, "%s is NULL", displs_name);
    int rc = lc_check_dtype(dt);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < comm->peer_count; i++) { /* an intercommunicator's vectors: the remote group */
        MPI_Count n = v->wide ? ((const MPI_Count *)v->counts)[i] : ((const int *)v->counts)[i];
        if (n < 0) return lc_error(MPI_ERR_COUNT, "%s[%d] = %lld is negative", counts_name, i, (long long)n);
        rc = lc_check_buf(buf, n, dt);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* count, datatype and operation of a reduction */
int lc_check_reduction(MPI_Count count, MPI_Datatype dt, MPI_Op op)
{
    int rc = lc_check_count(count);
    if (rc == MPI_SUCCESS) rc = lc_check_dtype(dt);
    if (rc != MPI_SUCCESS) return rc;
    lc_dt_t *t = lc_mpi_derived(dt);
    if (lc_likely(!t) || !lc_op_is_predefined(op)) return lc_check_op(op, dt); /* user operations take any type */
    /* A predefined operation on a derived type: on its one basic type (MPI 4.1 §6.9.1).
     * A type of several is one the operation is not defined for: MPI_ERR_OP,
     * as MPICH and Open MPI say.  MINLOC/MAXLOC are defined on the pair
     * types only (§6.9.4), not on a struct of the same signature (both
     * refuse it too): the message says which type to pass instead. */
    if (t->basic == MPI_DATATYPE_NULL) {
        if (op == MPI_MINLOC || op == MPI_MAXLOC)
            return lc_error(MPI_ERR_OP,
                            "%s is defined on the value-index pair types only: datatype %#x is built of several "
                            "predefined types; a struct of {double, int} is not MPI_DOUBLE_INT, pass MPI_DOUBLE_INT "
                            "(MPI_2INT, MPI_LONG_INT, ...) or a type built of it",
                            op == MPI_MINLOC ? "MPI_MINLOC" : "MPI_MAXLOC", (unsigned)dt);
        return lc_error(MPI_ERR_OP,
                        "a predefined reduction operation is not defined for datatype %#x: it is built of several "
                        "predefined types, and needs one (or use MPI_Op_create)",
                        (unsigned)dt);
    }
    return lc_check_op(op, t->basic);
}
