/*
 * lc_op.h — the predefined reduction operations (MPI 4.1 §6.9.2).
 *
 * An operation is applied element by element, `inout[i] = in[i] op
 * inout[i]`, with one loop per (operation, C type) so the compiler can
 * vectorise it.  Every predefined operation Locus offers to collectives
 * is commutative; MINLOC/MAXLOC break ties with the lower index, so the
 * result does not depend on the order the operands arrive in either.
 */
#ifndef LC_OP_H
#define LC_OP_H

#include <mpi.h>
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

#endif
