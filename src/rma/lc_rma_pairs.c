/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_pairs.c — accumulates on data in the datatype layer's packed
 * form, where a padded value+index pair (MPI_DOUBLE_INT: 12 data bytes in
 * a 16-byte extent; MPI_SHORT_INT: 6 in 8) has no padding.
 *
 * The derived-datatype paths (lc_rma_dtype.c) combine packed streams: the
 * target's elements gathered by the pack engine or from the blocks of an
 * active message, and the origin packed likewise.  For every basic type
 * but the padded pairs the packed element is the predefined element and
 * lc_rma_apply takes the stream as it is.  A padded pair is widened here
 * into its C struct (value at 0, index at the int's aligned offset), a
 * batch at a time on the stack, combined by the collective layer's
 * MAXLOC / MINLOC kernels (MPI 4.1 §6.9.4: on equal values the smaller
 * index wins) and narrowed back.  MPI_REPLACE and MPI_NO_OP move bytes
 * and need no widening.
 */
#include "coll/lc_op.h"
#include "rma/lc_rma_impl.h"
#include "util/lc_dtype.h"

#include <stddef.h>
#include <string.h>

/* Batch slots: the widest pair's C struct fits one. */
#define LC_RMA_PAIR_MAX 32
#define LC_RMA_PAIR_BATCH 32
typedef struct {
    long double v;
    int i;
} lc_rma_widest_pair_t;
_Static_assert(sizeof(lc_rma_widest_pair_t) <= LC_RMA_PAIR_MAX, "the widest pair fits a batch slot");

size_t lc_rma_packed_size(MPI_Datatype dt)
{
    return lc_dtype_type_size(dt);
}

size_t lc_rma_block_unit(MPI_Datatype dt)
{
    return lc_dtype_padded(dt) ? 1 : lc_dtype_size(dt);
}

/* Widen k packed pairs at `src` into structs at `dst` (or narrow, !wide):
 * value bytes vs, the index (an int) at io in the struct, vs in the
 * packed pair. */
static void lc_rma_pair_move(bool wide, char *dst, const char *src, size_t k, size_t ts, size_t es, size_t vs,
                             size_t io)
{
    for (size_t j = 0; j < k; j++) {
        char *d = dst + j * (wide ? es : ts);
        const char *s = src + j * (wide ? ts : es);
        memcpy(d, s, vs);
        memcpy(d + (wide ? io : vs), s + (wide ? vs : io), sizeof(int));
    }
}

void lc_rma_apply_packed(lc_rma_kind_t kind, MPI_Datatype dt, MPI_Op op, size_t bytes, char *at, const char *origin,
                         char *result)
{
    const lc_dtype_info_t *info = lc_dtype_lookup(dt);
    size_t es = info ? info->size : 0, ts = info ? info->type_size : 0;
    if (!ts) return; /* (the callers checked the type) */
    if (es == ts) {
        lc_rma_apply(kind, dt, op, bytes / es, at, origin, NULL, result);
        return;
    }
    if (kind == LC_RMA_GACC && result) memcpy(result, at, bytes);
    if (op == MPI_NO_OP) return;
    if (op == MPI_REPLACE) {
        memcpy(at, origin, bytes);
        return;
    }
    /* MAXLOC / MINLOC (lc_check_op refused every other operation on a
     * pair).  The struct's index follows the value at the int's
     * alignment: struct { short v; int i; } has it at 4. */
    size_t vs = ts - sizeof(int), io = (vs + _Alignof(int) - 1) / _Alignof(int) * _Alignof(int);
    _Alignas(max_align_t) char in[LC_RMA_PAIR_BATCH * LC_RMA_PAIR_MAX];
    _Alignas(max_align_t) char inout[LC_RMA_PAIR_BATCH * LC_RMA_PAIR_MAX];
    /* The padding is copied by a tie's whole-struct copy, never narrowed
     * back: zero it once so nothing uninitialized is read. */
    memset(in, 0, sizeof in);
    memset(inout, 0, sizeof inout);
    size_t n = bytes / ts;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < LC_RMA_PAIR_BATCH ? n - done : LC_RMA_PAIR_BATCH;
        lc_rma_pair_move(true, in, origin + done * ts, k, ts, es, vs, io);
        lc_rma_pair_move(true, inout, at + done * ts, k, ts, es, vs, io);
        lc_op_apply(op, dt, in, inout, k);
        lc_rma_pair_move(false, at + done * ts, inout, k, ts, es, vs, io);
        done += k;
    }
}
