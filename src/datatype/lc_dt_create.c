/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_create.c — the basic constructors of the datatype layer: vector
 * (contiguous, vector, hvector), block lists (indexed, hindexed, block
 * forms, struct), resized and alias (dup, f90).  Displacements and
 * strides arrive in bytes; the MPI layer converts element units.
 */
#include "datatype/lc_dt_impl.h"

#include <stdlib.h>
#include <string.h>

static int lc_dt_no_mem(void)
{
    return lc_error(MPI_ERR_NO_MEM, "out of memory building a datatype");
}

int lc_dt_create_vector(MPI_Count count, MPI_Count blocklen, MPI_Aint stride, lc_dt_t *child, lc_dt_t **t_p)
{
    lc_dt_t *t = lc_dt_alloc(LC_DT_L_VECTOR);
    if (!t) return lc_dt_no_mem();
    t->count = count;
    t->blocklen = blocklen;
    t->stride = stride;
    t->child = child;
    lc_dt_retain(child);
    int rc = lc_dt_summarize(t, false);
    if (rc) {
        lc_dt_release(t);
        return rc;
    }
    *t_p = t;
    return MPI_SUCCESS;
}

int lc_dt_create_blocks(MPI_Count count, const MPI_Count *blens, MPI_Count blocklen, const MPI_Aint *displs,
                        lc_dt_t *const *types, lc_dt_t *child, bool is_struct, lc_dt_t **t_p)
{
    lc_dt_t *t = lc_dt_alloc(LC_DT_L_BLOCKS);
    if (!t) return lc_dt_no_mem();
    size_t n = count > 0 ? (size_t)count : 1;
    t->count = count;
    t->blocklen = blocklen;
    t->displs = malloc(n * sizeof(MPI_Aint));
    if (blens) t->blens = malloc(n * sizeof(MPI_Count));
    if (types) t->types = calloc(n, sizeof(lc_dt_t *));
    if (!t->displs || (blens && !t->blens) || (types && !t->types)) {
        t->count = 0; /* nothing retained yet */
        lc_dt_release(t);
        return lc_dt_no_mem();
    }
    if (count > 0) {
        memcpy(t->displs, displs, (size_t)count * sizeof(MPI_Aint));
        if (blens) memcpy(t->blens, blens, (size_t)count * sizeof(MPI_Count));
    }
    if (types) {
        for (MPI_Count i = 0; i < count; i++) {
            t->types[i] = types[i];
            lc_dt_retain(types[i]);
        }
    } else {
        t->child = child;
        lc_dt_retain(child);
    }
    int rc = lc_dt_summarize(t, is_struct);
    if (rc) {
        lc_dt_release(t);
        return rc;
    }
    if (is_struct) t->flags |= LC_DT_F_STRUCT_PAD;
    *t_p = t;
    return MPI_SUCCESS;
}

/* Copy the typemap summary of c into t (resized and alias share it). */
static void lc_dt_copy_summary(lc_dt_t *t, const lc_dt_t *c)
{
    t->size = c->size;
    t->n_elements = c->n_elements;
    t->ext32_size = c->ext32_size;
    t->lb = c->lb;
    t->ub = c->ub;
    t->true_lb = c->true_lb;
    t->true_ub = c->true_ub;
    t->align = c->align;
    t->basic = c->basic;
    t->flags |= c->flags & (LC_DT_F_DENSE | LC_DT_F_LB_MARKER | LC_DT_F_UB_MARKER);
}

int lc_dt_create_resized(lc_dt_t *child, MPI_Aint lb, MPI_Aint extent, lc_dt_t **t_p)
{
    MPI_Aint ub;
    if (__builtin_add_overflow(lb, extent, &ub))
        return lc_error(MPI_ERR_ARG, "lb %ld + extent %ld overflows the address range", (long)lb, (long)extent);
    lc_dt_t *t = lc_dt_alloc(LC_DT_L_RESIZED);
    if (!t) return lc_dt_no_mem();
    t->child = child;
    lc_dt_retain(child);
    lc_dt_copy_summary(t, child);
    /* MPI 4.1 §5.1.7: the old markers are erased and new ones set */
    t->lb = lb;
    t->ub = ub;
    t->flags |= LC_DT_F_LB_MARKER | LC_DT_F_UB_MARKER;
    *t_p = t;
    return MPI_SUCCESS;
}

int lc_dt_create_alias(lc_dt_t *child, lc_dt_t **t_p)
{
    lc_dt_t *t = lc_dt_alloc(LC_DT_L_RESIZED);
    if (!t) return lc_dt_no_mem();
    t->child = child;
    lc_dt_retain(child);
    lc_dt_copy_summary(t, child);
    *t_p = t;
    return MPI_SUCCESS;
}
