/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_op.h — the predefined reduction operations (MPI 4.1 §6.9.2).
 *
 * An operation is applied element by element, `inout[i] = in[i] op
 * inout[i]`, with one loop per (operation, C type) so the compiler can
 * vectorise it.  Every predefined operation Locus offers to collectives
 * is commutative; MINLOC/MAXLOC break ties with the lower index, so the
 * result does not depend on the order the operands arrive in either.
 *
 * User-defined operations (MPI_Op_create, lc_op_user.c) are the user's
 * function, called on `in` and `inout` in the same roles: `in` holds the
 * operand of the lower ranks.  One that is not commutative must only meet
 * algorithms that keep rank order (lc_coll_select.c picks them).
 */
#ifndef LC_OP_H
#define LC_OP_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

/* One reduction kernel: inout[i] = in[i] op inout[i] for i < count.
 * `in` and `inout` must not overlap. */
typedef void lc_op_fn_t(const void *restrict in, void *restrict inout, size_t count);

/* MPI_SUCCESS if `op` may be used in a collective reduction on `dt`;
 * otherwise an error code (MPI_ERR_OP, or MPI_ERR_TYPE for a datatype
 * that is not a valid predefined type) whose message says why. */
int lc_op_check(MPI_Op op, MPI_Datatype dt);

/* The kernel for (op, dt), or NULL when lc_op_check would fail. */
lc_op_fn_t *lc_op_kernel(MPI_Op op, MPI_Datatype dt);

/* inout[i] = in[i] op inout[i]; (op, dt) must have passed lc_op_check. */
void lc_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, size_t count);

/* A predefined operation (MPI_MAX ... MPI_NO_OP)? */
bool lc_op_is_predefined(MPI_Op op);
/* Whether a valid operation is commutative (MPI_Op_commutative): every
 * predefined reduction is, MPI_REPLACE and MPI_NO_OP are not (MPICH's
 * answer). */
bool lc_op_commutative(MPI_Op op);

/* ---- user-defined operations (lc_op_user.c) ----------------------------- */
/* Handles 0x98000000 | index (MPICH's direct operations). */

/* A new operation calling `fn` (or, for MPI_Op_create_c, `fn_c`, which
 * takes an MPI_Count *).  MPI error code. */
int lc_op_user_create(MPI_User_function *fn, MPI_User_function_c *fn_c, bool commute, MPI_Op *op_p);
/* MPI_ERR_OP unless `op` names a live user operation. */
int lc_op_user_check(MPI_Op op);
/* Free a user operation (lc_op_user_check first). */
void lc_op_user_free(MPI_Op op);
/* A schedule step that applies a user operation holds it (no-op for a
 * predefined one): MPI_Op_free leaves it alive until the last release. */
void lc_op_user_retain(MPI_Op op);
void lc_op_user_release(MPI_Op op);
/* Call the user function on count elements (in chunks of INT_MAX for a
 * function that takes an int count). */
void lc_op_user_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, size_t count);
bool lc_op_user_commutative(MPI_Op op);
/* Free every user operation (MPI_Finalize). */
void lc_op_fini(void);

#endif
