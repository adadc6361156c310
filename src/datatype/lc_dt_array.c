/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_dt_array.c — array-section constructors: subarray and darray
 * (MPI 4.1 §5.1.3, §5.1.4).
 *
 * Both are built the same way, from the fastest-varying dimension out
 * (the last one in C order, the first in Fortran order): the type so far
 * is resized to the byte step of one index of the current dimension,
 * then taken in the blocks of indices this dimension keeps.  The result
 * is resized to the whole array: lb 0, extent = product of the sizes x
 * extent(oldtype).  The layer's own constructors do the work, so the
 * loop program merges these nests like any other (a face of a 3-D array
 * becomes one strided vector).
 */
#include "datatype/lc_dt_impl.h"

#include <stdlib.h>

/* Blocks of indices one dimension keeps: [starts[i], starts[i] + lens[i]). */
typedef struct lc_dt_dim {
    MPI_Count n;
    MPI_Count *starts, *lens;
    MPI_Count one_start, one_len; /* storage when n <= 1 */
} lc_dt_dim_t;

static void lc_dt_dim_free(lc_dt_dim_t *d)
{
    if (d->starts != &d->one_start) free(d->starts);
    if (d->lens != &d->one_len) free(d->lens);
}

/* cur (one reference, consumed) := the blocks of `dim`, each index one
 * copy of cur placed `step` bytes apart. */
static int lc_dt_dim_apply(lc_dt_t **cur, const lc_dt_dim_t *dim, MPI_Aint step)
{
    lc_dt_t *spaced = NULL, *next = NULL;
    MPI_Aint *displs = malloc((dim->n ? (size_t)dim->n : 1) * sizeof(MPI_Aint));
    int rc = displs ? MPI_SUCCESS : lc_error(MPI_ERR_NO_MEM, "out of memory building an array datatype");
    if (!rc) rc = lc_dt_create_resized(*cur, 0, step, &spaced);
    for (MPI_Count i = 0; !rc && i < dim->n; i++)
        if (__builtin_mul_overflow((MPI_Aint)dim->starts[i], step, &displs[i]))
            rc = lc_error(MPI_ERR_ARG, "the array is larger than the address range");
    if (!rc) rc = lc_dt_create_blocks(dim->n, dim->lens, 0, displs, NULL, spaced, false, &next);
    free(displs);
    lc_dt_release(spaced);
    lc_dt_release(*cur);
    *cur = next;
    return rc;
}

/* Apply the dimensions from the fastest out; dims[k] describes array
 * dimension k.  *t_p: resized to the whole array. */
static int lc_dt_array_build(int ndims, const MPI_Count *sizes, const lc_dt_dim_t *dims, int order, lc_dt_t *old,
                             lc_dt_t **t_p)
{
    lc_dt_t *cur = old;
    lc_dt_retain(old);
    MPI_Aint step = lc_dt_extent(old);
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && !rc; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        rc = lc_dt_dim_apply(&cur, &dims[d], step);
        if (!rc && __builtin_mul_overflow(step, (MPI_Aint)sizes[d], &step))
            rc = lc_error(MPI_ERR_ARG, "the array is larger than the address range");
    }
    if (!rc) rc = lc_dt_create_resized(cur, 0, step, t_p);
    lc_dt_release(cur);
    return rc;
}

static int lc_dt_check_order(int order)
{
    if (order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN) return MPI_SUCCESS;
    return lc_error(MPI_ERR_ARG, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
}

int lc_dt_create_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes, const MPI_Count *starts,
                          int order, lc_dt_t *old, lc_dt_t **t_p)
{
    if (ndims <= 0) return lc_error(MPI_ERR_ARG, "ndims %d must be positive", ndims);
    int rc = lc_dt_check_order(order);
    if (rc) return rc;
    lc_dt_dim_t *dims = calloc((size_t)ndims, sizeof(*dims));
    if (!dims) return lc_error(MPI_ERR_NO_MEM, "out of memory building a subarray datatype");
    for (int d = 0; d < ndims && !rc; d++) {
        if (sizes[d] <= 0 || subsizes[d] <= 0 || subsizes[d] > sizes[d] || starts[d] < 0 ||
            starts[d] > sizes[d] - subsizes[d])
            rc = lc_error(MPI_ERR_ARG,
                          "dimension %d: size %lld, subsize %lld, start %lld: need size > 0, "
                          "0 < subsize <= size and 0 <= start <= size - subsize",
                          d, (long long)sizes[d], (long long)subsizes[d], (long long)starts[d]);
        dims[d].n = 1;
        dims[d].one_start = starts[d];
        dims[d].one_len = subsizes[d];
        dims[d].starts = &dims[d].one_start;
        dims[d].lens = &dims[d].one_len;
    }
    if (!rc) rc = lc_dt_array_build(ndims, sizes, dims, order, old, t_p);
    free(dims);
    return rc;
}

/* The indices of dimension d a process at grid coordinate c keeps. */
static int lc_dt_darray_dim(int d, MPI_Count g, int distrib, int darg, int p, int c, lc_dt_dim_t *dim)
{
    dim->starts = &dim->one_start;
    dim->lens = &dim->one_len;
    if (g <= 0) return lc_error(MPI_ERR_ARG, "dimension %d: gsize %lld must be positive", d, (long long)g);
    if (distrib == MPI_DISTRIBUTE_NONE) {
        if (p != 1) return lc_error(MPI_ERR_ARG, "dimension %d is MPI_DISTRIBUTE_NONE: its psize must be 1", d);
        dim->n = 1;
        dim->one_start = 0;
        dim->one_len = g;
        return MPI_SUCCESS;
    }
    if (distrib != MPI_DISTRIBUTE_BLOCK && distrib != MPI_DISTRIBUTE_CYCLIC)
        return lc_error(MPI_ERR_ARG, "dimension %d: distribution %d is not MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE",
                        d, distrib);
    if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0)
        return lc_error(MPI_ERR_ARG, "dimension %d: darg %d must be positive or MPI_DISTRIBUTE_DFLT_DARG", d, darg);
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        MPI_Count b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        if (b * p < g)
            return lc_error(MPI_ERR_ARG, "dimension %d: %d blocks of %lld do not cover gsize %lld", d, p,
                            (long long)b, (long long)g);
        MPI_Count start = b * c, len = g - start < b ? g - start : b;
        dim->n = len > 0 ? 1 : 0;
        dim->one_start = start;
        dim->one_len = len;
        return MPI_SUCCESS;
    }
    MPI_Count b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg, first = b * c, period = b * p;
    MPI_Count n = first < g ? (g - first + period - 1) / period : 0;
    dim->n = n;
    if (n > 1) {
        dim->starts = malloc((size_t)n * sizeof(MPI_Count));
        dim->lens = malloc((size_t)n * sizeof(MPI_Count));
        if (!dim->starts || !dim->lens) return lc_error(MPI_ERR_NO_MEM, "out of memory building a darray datatype");
    }
    for (MPI_Count i = 0; i < n; i++) {
        MPI_Count start = first + i * period;
        dim->starts[i] = start;
        dim->lens[i] = g - start < b ? g - start : b;
    }
    return MPI_SUCCESS;
}

int lc_dt_create_darray(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                        const int *dargs, const int *psizes, int order, lc_dt_t *old, lc_dt_t **t_p)
{
    if (size <= 0 || rank < 0 || rank >= size)
        return lc_error(MPI_ERR_ARG, "rank %d is not within a group of size %d", rank, size);
    if (ndims <= 0) return lc_error(MPI_ERR_ARG, "ndims %d must be positive", ndims);
    int rc = lc_dt_check_order(order);
    if (rc) return rc;
    long long procs = 1;
    for (int d = 0; d < ndims; d++) {
        if (psizes[d] <= 0) return lc_error(MPI_ERR_ARG, "psizes[%d] = %d must be positive", d, psizes[d]);
        procs *= psizes[d];
        if (procs > size) break;
    }
    if (procs != size)
        return lc_error(MPI_ERR_ARG, "the process grid (product of psizes) must have exactly size = %d processes",
                        size);
    lc_dt_dim_t *dims = calloc((size_t)ndims, sizeof(*dims));
    if (!dims) return lc_error(MPI_ERR_NO_MEM, "out of memory building a darray datatype");
    /* the process grid is row-major whatever the array order (MPI 4.1 §5.1.4) */
    int r = rank;
    for (int d = ndims - 1; d >= 0 && !rc; d--) {
        int c = r % psizes[d];
        r /= psizes[d];
        rc = lc_dt_darray_dim(d, gsizes[d], distribs[d], dargs[d], psizes[d], c, &dims[d]);
    }
    if (!rc) rc = lc_dt_array_build(ndims, gsizes, dims, order, old, t_p);
    for (int d = 0; d < ndims; d++) lc_dt_dim_free(&dims[d]);
    free(dims);
    return rc;
}
