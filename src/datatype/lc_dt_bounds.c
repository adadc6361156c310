/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_bounds.c — the typemap summary of a vector or block-list type:
 * size, bounds, markers, alignment, element counts, basic type, density.
 *
 * Bounds follow MPI 4.1 §5.1.7: lb is the least lower bound of the
 * entries, unless some entry carries a sticky lb marker (MPI_LB, or a
 * type made by MPI_Type_create_resized): then it is the least of those
 * markers; ub likewise.  MPI_Type_create_struct without a ub marker
 * rounds the extent up to the largest alignment of its basic types (the
 * "epsilon" of §5.1.6), as C pads a struct.  Entries without data and
 * without markers (a contiguous of 0 items) do not count.
 */
#include "datatype/lc_dt_impl.h"

typedef struct lc_dt_acc {
    bool any, any_lbm, any_ubm, any_data, mixed;
    MPI_Aint lb, ub, lbm, ubm, tlb, tub;
    MPI_Datatype basic;
    unsigned align;
} lc_dt_acc_t;

/* Whether `c` contributes entries to a typemap. */
static bool lc_dt_has_entries(const lc_dt_t *c)
{
    return c->size > 0 || (c->flags & (LC_DT_F_LB_MARKER | LC_DT_F_UB_MARKER));
}

/* Account n > 0 copies of c at c's extent from displacement d. */
static int lc_dt_acc_block(lc_dt_acc_t *a, const lc_dt_t *c, MPI_Count n, MPI_Aint d)
{
    if (n <= 0 || !lc_dt_has_entries(c)) return MPI_SUCCESS;
    MPI_Aint span, lo, hi, blb, bub;
    if (__builtin_mul_overflow((MPI_Aint)(n - 1), lc_dt_extent(c), &span)) goto overflow;
    lo = span < 0 ? span : 0;
    hi = span > 0 ? span : 0;
    if (__builtin_add_overflow(d, lo, &lo) || __builtin_add_overflow(d, hi, &hi)) goto overflow;
    if (__builtin_add_overflow(c->lb, lo, &blb) || __builtin_add_overflow(c->ub, hi, &bub)) goto overflow;
    if (!a->any || blb < a->lb) a->lb = blb;
    if (!a->any || bub > a->ub) a->ub = bub;
    a->any = true;
    if (c->flags & LC_DT_F_LB_MARKER) {
        if (!a->any_lbm || blb < a->lbm) a->lbm = blb;
        a->any_lbm = true;
    }
    if (c->flags & LC_DT_F_UB_MARKER) {
        if (!a->any_ubm || bub > a->ubm) a->ubm = bub;
        a->any_ubm = true;
    }
    if (c->align > a->align) a->align = c->align;
    if (c->size > 0) {
        MPI_Aint tlb, tub;
        if (__builtin_add_overflow(c->true_lb, lo, &tlb) || __builtin_add_overflow(c->true_ub, hi, &tub))
            goto overflow;
        if (!a->any_data || tlb < a->tlb) a->tlb = tlb;
        if (!a->any_data || tub > a->tub) a->tub = tub;
        if (!a->any_data) a->basic = c->basic;
        else if (a->basic != c->basic) a->mixed = true;
        a->any_data = true;
    }
    return MPI_SUCCESS;
overflow:
    return lc_error(MPI_ERR_ARG, "the datatype's displacements overflow the address range (MPI_Aint)");
}

/* Totals over n copies of c: size, elements, external32 size. */
static int lc_dt_acc_totals(lc_dt_t *t, const lc_dt_t *c, MPI_Count n)
{
    MPI_Count s, e, x;
    if (n <= 0) return MPI_SUCCESS;
    if (!lc_dt_mul_ok(n, c->size, &s) || !lc_dt_add_ok(t->size, s, &t->size) ||
        !lc_dt_mul_ok(n, c->n_elements, &e) || !lc_dt_add_ok(t->n_elements, e, &t->n_elements) ||
        !lc_dt_mul_ok(n, c->ext32_size, &x) || !lc_dt_add_ok(t->ext32_size, x, &t->ext32_size))
        return lc_error(MPI_ERR_ARG, "the datatype would hold more than 2^63 bytes");
    return MPI_SUCCESS;
}

/* Density: the data of the blocks, taken in order, forms one run.
 * *end is where the run so far ends (valid once *started). */
static bool lc_dt_dense_block(const lc_dt_t *c, MPI_Count n, MPI_Aint d, bool *started, MPI_Aint *end)
{
    if (n <= 0 || c->size == 0) return true;
    if (!(c->flags & LC_DT_F_DENSE)) return false;
    if (n > 1 && lc_dt_extent(c) != c->size) return false;
    MPI_Aint start = d + c->true_lb;
    if (*started && start != *end) return false;
    *started = true;
    *end = start + (MPI_Aint)(n * c->size);
    return true;
}

static const lc_dt_t *lc_dt_block_type(const lc_dt_t *t, MPI_Count i)
{
    return t->types ? t->types[i] : t->child;
}

static MPI_Count lc_dt_block_len(const lc_dt_t *t, MPI_Count i)
{
    return t->blens ? t->blens[i] : t->blocklen;
}

static int lc_dt_summarize_blocks(lc_dt_t *t, lc_dt_acc_t *a, bool *dense)
{
    bool started = false;
    MPI_Aint end = 0;
    int rc;
    for (MPI_Count i = 0; i < t->count; i++) {
        const lc_dt_t *c = lc_dt_block_type(t, i);
        MPI_Count n = lc_dt_block_len(t, i);
        if ((rc = lc_dt_acc_block(a, c, n, t->displs[i])) || (rc = lc_dt_acc_totals(t, c, n))) return rc;
        if (*dense && !lc_dt_dense_block(c, n, t->displs[i], &started, &end)) *dense = false;
    }
    return MPI_SUCCESS;
}

static int lc_dt_summarize_vector(lc_dt_t *t, lc_dt_acc_t *a, bool *dense)
{
    const lc_dt_t *c = t->child;
    MPI_Aint last;
    MPI_Count n;
    int rc;
    if (t->count == 0 || t->blocklen == 0) return MPI_SUCCESS;
    if (__builtin_mul_overflow((MPI_Aint)(t->count - 1), t->stride, &last))
        return lc_error(MPI_ERR_ARG, "the vector's stride times its count overflows the address range");
    /* bounds are reached at the first or the last block */
    if ((rc = lc_dt_acc_block(a, c, t->blocklen, 0)) || (rc = lc_dt_acc_block(a, c, t->blocklen, last))) return rc;
    if (!lc_dt_mul_ok(t->count, t->blocklen, &n)) return lc_error(MPI_ERR_ARG, "the vector has more than 2^63 items");
    if ((rc = lc_dt_acc_totals(t, c, n))) return rc;
    bool started = false;
    MPI_Aint end = 0;
    if (!lc_dt_dense_block(c, t->blocklen, 0, &started, &end)) *dense = false;
    else if (t->count > 1 && c->size > 0 && !lc_dt_dense_block(c, t->blocklen, t->stride, &started, &end))
        *dense = false; /* block 1 must start where block 0 ends; then all do */
    return MPI_SUCCESS;
}

int lc_dt_summarize(lc_dt_t *t, bool is_struct)
{
    lc_dt_acc_t a = { .basic = MPI_DATATYPE_NULL, .align = 1 };
    bool dense = true;
    t->size = t->n_elements = t->ext32_size = 0;
    int rc = t->layout == LC_DT_L_VECTOR ? lc_dt_summarize_vector(t, &a, &dense)
                                         : lc_dt_summarize_blocks(t, &a, &dense);
    if (rc) return rc;
    t->lb = a.any_lbm ? a.lbm : (a.any ? a.lb : 0);
    t->ub = a.any_ubm ? a.ubm : (a.any ? a.ub : 0);
    t->true_lb = a.any_data ? a.tlb : 0;
    t->true_ub = a.any_data ? a.tub : 0;
    t->align = (uint8_t)a.align;
    t->basic = a.any_data && !a.mixed ? a.basic : MPI_DATATYPE_NULL;
    t->flags &= (uint16_t) ~(LC_DT_F_LB_MARKER | LC_DT_F_UB_MARKER | LC_DT_F_DENSE);
    if (a.any_lbm) t->flags |= LC_DT_F_LB_MARKER;
    if (a.any_ubm) t->flags |= LC_DT_F_UB_MARKER;
    if (dense) t->flags |= LC_DT_F_DENSE;
    if (is_struct && !a.any_ubm && a.align > 1) {
        MPI_Aint ext = t->ub - t->lb, pad = (MPI_Aint)(a.align - ext % a.align) % a.align;
        if (__builtin_add_overflow(t->ub, pad, &t->ub))
            return lc_error(MPI_ERR_ARG, "the struct's upper bound overflows the address range");
    }
    if (__builtin_sub_overflow(t->ub, t->lb, &(MPI_Aint){ 0 }))
        return lc_error(MPI_ERR_ARG, "the datatype's extent overflows the address range (MPI_Aint)");
    return MPI_SUCCESS;
}
