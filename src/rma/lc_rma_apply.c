/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_apply.c — one one-sided operation applied to target memory, the
 * same code for the direct path (origin applies it under the target's
 * accumulate lock) and the active-message path (target applies it in its
 * progress engine, one operation at a time).  Reductions reuse the
 * collective layer's kernels: accumulate is `target = origin op target`,
 * which is lc_op_apply(in = origin, inout = target) for the commutative
 * predefined operations; MPI_REPLACE and MPI_NO_OP are handled here.
 */
#include "coll/lc_op.h"
#include "rma/lc_rma_impl.h"
#include "util/lc_dtype.h"

#include <string.h>

void lc_rma_apply(lc_rma_kind_t kind, MPI_Datatype dt, MPI_Op op, size_t count, void *at, const void *origin,
                  const void *compare, void *result)
{
    size_t bytes = count * lc_dtype_size(dt);
    switch (kind) {
    case LC_RMA_PUT:
        memcpy(at, origin, bytes);
        return;
    case LC_RMA_GET:
        memcpy(result, at, bytes);
        return;
    case LC_RMA_CAS:
        if (result) memcpy(result, at, bytes);
        /* Compared as bytes: MPI 4.1 §12.3.4 allows integer, logical and
         * byte types only, for which equality is bitwise. */
        if (memcmp(at, compare, bytes) == 0) memcpy(at, origin, bytes);
        return;
    case LC_RMA_ACC:
    case LC_RMA_GACC:
        if (kind == LC_RMA_GACC && result) memcpy(result, at, bytes);
        if (op == MPI_NO_OP) return;
        if (op == MPI_REPLACE)
            memcpy(at, origin, bytes);
        else
            lc_op_apply(op, dt, origin, at, count);
        return;
    default:
        return;
    }
}
