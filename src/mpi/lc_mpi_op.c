/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_op.c — user-defined reduction operations (MPI_Op_create(_c),
 * MPI_Op_free, MPI_Op_commutative) and MPI_Reduce_local(_c).  The
 * operations themselves live in the collective layer (src/coll/lc_op.h),
 * which applies them.
 */
#include "coll/lc_op.h"
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_coll.h"
#include "mpi/lc_mpi_stage.h"

static int lc_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *op, const char *func)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(fn ? (const void *)fn : (const void *)fn_c, "user_fn"));
    LC_TRY(lc_check_ptr(op, "op"));
    LC_TRY(lc_op_user_create(fn, fn_c, commute != 0, op));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return lc_op_create(user_fn, NULL, commute, op, "MPI_Op_create");
}
LC_MPI_ALIAS(Op_create);

LC_API int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return lc_op_create(NULL, user_fn, commute, op, "MPI_Op_create_c");
}
LC_MPI_ALIAS(Op_create_c);

LC_API int PMPI_Op_free(MPI_Op *op)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(op, "op"));
    if (lc_op_is_predefined(*op)) LC_TRY(lc_error(MPI_ERR_OP, "%#x is a predefined operation: it cannot be freed",
                                                  (unsigned)*op));
    LC_TRY(lc_op_user_check(*op));
    lc_op_user_free(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Op_free", rc);
}
LC_MPI_ALIAS(Op_free);

LC_API int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(commute, "commute"));
    if (!lc_op_is_predefined(op)) LC_TRY(lc_op_user_check(op));
    *commute = lc_op_commutative(op);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Op_commutative", rc);
}
LC_MPI_ALIAS(Op_commutative);

/* inoutbuf = inbuf op inoutbuf, locally.  A derived type (an f90 type
 * too) is a predefined operation's when made of one predefined type
 * (lc_check_reduction); a user operation takes it as it is. */
static int lc_reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                           const char *func)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_reduction(count, datatype, op));
    LC_TRY(lc_check_buf(inbuf, count, datatype));
    LC_TRY(lc_check_buf(inoutbuf, count, datatype));
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        LC_TRY(lc_error(MPI_ERR_BUFFER, "MPI_Reduce_local takes no MPI_IN_PLACE"));
    if (count > 0 && lc_unlikely(lc_mpi_derived(datatype) != NULL) && lc_op_is_predefined(op))
        LC_TRY(lc_stage_reduce_local(inbuf, inoutbuf, count, datatype, op));
    else if (count > 0)
        lc_op_apply(op, datatype, inbuf, inoutbuf, (size_t)count);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, func, rc);
}

LC_API int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    return lc_reduce_local(inbuf, inoutbuf, count, datatype, op, "MPI_Reduce_local");
}
LC_MPI_ALIAS(Reduce_local);

LC_API int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op)
{
    return lc_reduce_local(inbuf, inoutbuf, count, datatype, op, "MPI_Reduce_local_c");
}
LC_MPI_ALIAS(Reduce_local_c);
