/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_walk.c — walks that need the types of the data, not just its
 * bytes: the typed walk (runs of one predefined type, in typemap order,
 * for external32) and the element count of a partial message
 * (MPI_Get_elements).  Both follow the layout, not the loop program,
 * which merges runs of different types.
 */
#include "datatype/lc_dt_impl.h"

static inline const lc_dt_t *lc_dt_block_child(const lc_dt_t *t, MPI_Count j)
{
    return t->types ? t->types[j] : t->child;
}

static inline MPI_Count lc_dt_block_reps(const lc_dt_t *t, MPI_Count j)
{
    return t->blens ? t->blens[j] : t->blocklen;
}

int lc_dt_walk(const lc_dt_t *t, uintptr_t origin, MPI_Count count, lc_dt_visit_fn_t *fn, void *ctx)
{
    if (t->size == 0 || count <= 0) return 0;
    MPI_Aint ext = lc_dt_extent(t);
    int rc = 0;
    switch (t->layout) {
    case LC_DT_L_BASIC: /* extent == size: count consecutive elements */
        return fn(ctx, t->info, origin, count);
    case LC_DT_L_RESIZED:
        if (ext == lc_dt_extent(t->child)) return lc_dt_walk(t->child, origin, count, fn, ctx);
        for (MPI_Count k = 0; k < count && !rc; k++)
            rc = lc_dt_walk(t->child, origin + (uintptr_t)(k * ext), 1, fn, ctx);
        return rc;
    case LC_DT_L_VECTOR:
        for (MPI_Count k = 0; k < count; k++)
            for (MPI_Count j = 0; j < t->count && !rc; j++)
                rc = lc_dt_walk(t->child, origin + (uintptr_t)(k * ext + j * t->stride), t->blocklen, fn, ctx);
        return rc;
    default: /* LC_DT_L_BLOCKS */
        for (MPI_Count k = 0; k < count; k++)
            for (MPI_Count j = 0; j < t->count && !rc; j++)
                rc = lc_dt_walk(lc_dt_block_child(t, j), origin + (uintptr_t)(k * ext + t->displs[j]),
                                lc_dt_block_reps(t, j), fn, ctx);
        return rc;
    }
}

/* Whole basic elements in the first r packed bytes of one item,
 * 0 < r < t->size.  A basic element cut by r does not count: that is
 * what MPICH does, and the standard only defines whole elements. */
static MPI_Count lc_dt_prefix_elements(const lc_dt_t *t, MPI_Count r)
{
    switch (t->layout) {
    case LC_DT_L_BASIC:
        return 0;
    case LC_DT_L_RESIZED:
        return lc_dt_prefix_elements(t->child, r);
    case LC_DT_L_VECTOR: { /* the packed stream is count * blocklen items of the child */
        const lc_dt_t *c = t->child;
        MPI_Count rest = r % c->size;
        return (r / c->size) * c->n_elements + (rest ? lc_dt_prefix_elements(c, rest) : 0);
    }
    default: {
        MPI_Count e = 0;
        for (MPI_Count j = 0; j < t->count && r > 0; j++) {
            const lc_dt_t *c = lc_dt_block_child(t, j);
            MPI_Count n = lc_dt_block_reps(t, j);
            if (n <= 0 || c->size == 0) continue;
            if (r >= n * c->size) {
                e += n * c->n_elements;
                r -= n * c->size;
                continue;
            }
            MPI_Count rest = r % c->size;
            return e + (r / c->size) * c->n_elements + (rest ? lc_dt_prefix_elements(c, rest) : 0);
        }
        return e;
    }
    }
}

MPI_Count lc_dt_elements(const lc_dt_t *t, MPI_Count bytes)
{
    if (t->size == 0) return 0;
    /* n_elements <= size, so this cannot overflow */
    MPI_Count e = (bytes / t->size) * t->n_elements, rest = bytes % t->size;
    return rest ? e + lc_dt_prefix_elements(t, rest) : e;
}
