/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_op_user.c — user-defined reduction operations (MPI_Op_create): the
 * user's function and its commutativity, behind a handle.
 *
 * The function gets the datatype handle the call was made with and a
 * count of its elements; `in` holds the lower ranks' operand, `inout` the
 * higher ranks' and the result (MPI 4.1 §6.9.5).
 */
#include "coll/lc_op.h"
#include "util/lc_error.h"
#include "util/lc_dtype.h"
#include "util/lc_handle.h"

#include <limits.h>
#include <stdlib.h>

typedef struct lc_op_user {
    MPI_User_function *fn;     /* int count */
    MPI_User_function_c *fn_c; /* MPI_Count count (MPI_Op_create_c) */
    bool commute;
    int refs;   /* 1 for the handle until MPI_Op_free, + 1 per schedule step using it */
    bool freed; /* MPI_Op_free was called: the handle names no operation for the user */
} lc_op_user_t;

static lc_handle_table_t lc_ops = LC_HANDLE_TABLE_INIT(0x98000000u, 0x03ffffffu);

int lc_op_user_create(MPI_User_function *fn, MPI_User_function_c *fn_c, bool commute, MPI_Op *op_p)
{
    lc_op_user_t *u = malloc(sizeof(*u));
    if (!u) return lc_error(MPI_ERR_NO_MEM, "out of memory creating an operation");
    *u = (lc_op_user_t){ .fn = fn, .fn_c = fn_c, .commute = commute, .refs = 1 };
    int rc = lc_handle_add(&lc_ops, u, op_p);
    if (rc != MPI_SUCCESS) free(u);
    return rc;
}

int lc_op_user_check(MPI_Op op)
{
    const lc_op_user_t *u = lc_handle_get(&lc_ops, op);
    if (lc_likely(u != NULL && !u->freed)) return MPI_SUCCESS;
    if (op == MPI_OP_NULL) return lc_error(MPI_ERR_OP, "the operation is MPI_OP_NULL");
    return lc_error(MPI_ERR_OP, "%#x is not a valid operation (freed, or not an operation)", (unsigned)op);
}

/* MPI_Op_free only marks the operation for deallocation (MPI 4.1 §6.9.5):
 * a nonblocking or persistent reduction started with it still applies it
 * (MPICH's coll/nonblocking3 frees it right after MPI_Ireduce).  The
 * handle stays in the table with the last reference, so it is not given
 * to a new operation meanwhile. */
void lc_op_user_retain(MPI_Op op)
{
    lc_op_user_t *u = lc_handle_get(&lc_ops, op);
    if (u) u->refs++;
}

void lc_op_user_release(MPI_Op op)
{
    lc_op_user_t *u = lc_handle_get(&lc_ops, op);
    if (!u || --u->refs > 0) return;
    lc_handle_remove(&lc_ops, op);
    free(u);
}

void lc_op_user_free(MPI_Op op)
{
    lc_op_user_t *u = lc_handle_get(&lc_ops, op);
    if (!u || u->freed) return;
    u->freed = true;
    lc_op_user_release(op);
}

bool lc_op_user_commutative(MPI_Op op)
{
    const lc_op_user_t *u = lc_handle_get(&lc_ops, op);
    return u && u->commute;
}

void lc_op_user_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, size_t count)
{
    const lc_op_user_t *u = lc_handle_get(&lc_ops, op);
    if (u->fn_c) {
        MPI_Count n = (MPI_Count)count;
        u->fn_c((void *)in, inout, &n, &dt);
        return;
    }
    /* An int count: chunks of at most INT_MAX elements, each at its place. */
    size_t esize = lc_dtype_size(dt);
    for (size_t done = 0; done < count;) {
        int n = count - done > INT_MAX ? INT_MAX : (int)(count - done);
        u->fn((char *)in + done * esize, (char *)inout + done * esize, &n, &dt);
        done += (size_t)n;
    }
}

void lc_op_fini(void)
{
    for (int i = 0; i < lc_ops.len; i++) free(lc_handle_slot(&lc_ops, i));
    lc_handle_table_reset(&lc_ops);
}
