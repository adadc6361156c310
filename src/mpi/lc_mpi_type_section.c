/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_type_section.c — a datatype that lays a user's datatype over a
 * Fortran array section (mpi_f08's TYPE(*), DIMENSION(..) buffers,
 * src/fortran/lc_f_cdesc.c; MPI 4.1 §19.1.12).
 *
 * MPI reads a section as the sequence of its elements in array element
 * order, as if contiguous: COUNT x DATATYPE is laid over that virtual
 * buffer of nelem * elem_len bytes.  A byte at virtual offset v lies in
 * element e = floor(v / elem_len), at r = v - e * elem_len inside it, and
 * that element is at off(e) in memory (the section's strides).  So the
 * datatype wanted is the user's typemap with every basic element moved
 * from v to off(e) + r: this file walks the typemap (lc_dt_walk, which
 * splits pair types into their members) and builds a struct of the
 * moved elements, merging neighbours of one type into blocks.  A basic
 * element that would straddle two array elements has no place (its bytes
 * are not adjacent in memory): MPI_ERR_TYPE, as is data outside the
 * section.
 *
 * Two forms:
 *   - linear (a section of one strided dimension, stride s > 0, and a
 *     datatype whose extent X is k whole elements): item i starts at
 *     virtual i * X, that is element i * k, at i * k * s in memory — the
 *     same move for every item.  One item is built and resized to extent
 *     k * s, so COUNT, per-rank counts and displacements (in units of the
 *     extent, MPI 4.1 §6.5.2) keep their meaning over the section: a
 *     gather's rank j at j * count items, a Gatherv's displs[j] items;
 *   - enumerated (anything else): all `count` items, one type used once
 *     (count 1); only for calls that read `count` items from the start.
 */
#include "datatype/lc_dt.h"
#include "mpi/lc_mpi_dt.h"

#include <stdlib.h>

typedef struct lc_sec_build {
    /* the section */
    int rank;
    const MPI_Aint *extent, *sm;
    MPI_Aint elem_len, nelem;
    /* the blocks so far */
    MPI_Count n, cap;
    int *blens;
    MPI_Aint *displs;
    MPI_Datatype *types;
    MPI_Aint last_end; /* memory end of the last block */
    int err;           /* an lc_error code, or 0 */
} lc_sec_build_t;

/* memory offset of element e of the section (array element order:
 * dimension 0 fastest) */
static MPI_Aint lc_sec_offset(const lc_sec_build_t *b, MPI_Aint e)
{
    MPI_Aint off = 0;
    for (int i = 0; i < b->rank; i++) {
        MPI_Aint n = b->extent[i] > 0 ? b->extent[i] : 1;
        off += (e % n) * b->sm[i];
        e /= n;
    }
    return off;
}

static int lc_sec_add(lc_sec_build_t *b, MPI_Datatype type, MPI_Aint at, unsigned size)
{
    if (b->n > 0 && b->types[b->n - 1] == type && b->last_end == at && b->blens[b->n - 1] < INT32_MAX) {
        b->blens[b->n - 1]++;
        b->last_end = at + (MPI_Aint)size;
        return 0;
    }
    if (b->n == b->cap) {
        MPI_Count cap = b->cap ? 2 * b->cap : 64;
        int *bl = realloc(b->blens, sizeof *bl * (size_t)cap);
        if (bl) b->blens = bl;
        MPI_Aint *d = realloc(b->displs, sizeof *d * (size_t)cap);
        if (d) b->displs = d;
        MPI_Datatype *t = realloc(b->types, sizeof *t * (size_t)cap);
        if (t) b->types = t;
        if (!bl || !d || !t)
            return b->err = lc_error(MPI_ERR_NO_MEM,
                                     "no memory for the datatype of an mpi_f08 array section "
                                     "(%lld blocks)",
                                     (long long)cap);
        b->cap = cap;
    }
    b->types[b->n] = type;
    b->displs[b->n] = at;
    b->blens[b->n] = 1;
    b->n++;
    b->last_end = at + (MPI_Aint)size;
    return 0;
}

/* lc_dt_walk's visitor: n basic elements at virtual offset `addr` */
static int lc_sec_visit(void *ctx, const lc_dtype_info_t *basic, uintptr_t addr, MPI_Count n)
{
    lc_sec_build_t *b = ctx;
    for (MPI_Count j = 0; j < n; j++) {
        MPI_Aint v = (MPI_Aint)addr + j * (MPI_Aint)basic->size;
        MPI_Aint e = v >= 0 ? v / b->elem_len : -((-v + b->elem_len - 1) / b->elem_len);
        MPI_Aint r = v - e * b->elem_len;
        if (e < 0 || e >= b->nelem)
            return b->err = lc_error(MPI_ERR_BUFFER,
                                     "the datatype reaches byte %lld of an mpi_f08 array section "
                                     "of %lld elements of %lld bytes: past its end; pass a "
                                     "smaller count or a larger section",
                                     (long long)v, (long long)b->nelem, (long long)b->elem_len);
        if (r + (MPI_Aint)basic->type_size > b->elem_len)
            return b->err = lc_error(MPI_ERR_TYPE,
                                     "a %s of the datatype would straddle two elements (%lld bytes "
                                     "each) of an mpi_f08 array section, which are not adjacent in "
                                     "memory; pass a contiguous array",
                                     basic->name, (long long)b->elem_len);
        if (lc_sec_add(b, basic->handle, lc_sec_offset(b, e) + r, basic->size)) return b->err;
    }
    return 0;
}

LC_API int lc_mpi_type_section(MPI_Datatype datatype, MPI_Count count, int rank, const MPI_Aint *extent,
                               const MPI_Aint *sm, MPI_Aint elem_len, int linear, MPI_Datatype *newtype_p);

/* datatype, count: the user's; the section: rank dimensions of extent[i]
 * elements, sm[i] bytes apart, elem_len bytes each.  linear: one item
 * resized (the caller has checked the conditions above: rank 1, sm > 0,
 * the extent k whole elements); else `count` items.  *newtype_p: a new
 * committed type the caller frees. */
LC_API int lc_mpi_type_section(MPI_Datatype datatype, MPI_Count count, int rank, const MPI_Aint *extent,
                               const MPI_Aint *sm, MPI_Aint elem_len, int linear, MPI_Datatype *newtype_p)
{
    lc_dt_t *t = NULL;
    int rc = lc_dt_check(datatype, &t);
    if (rc != MPI_SUCCESS) return rc;
    if (elem_len <= 0) return lc_error(MPI_ERR_BUFFER, "an mpi_f08 array section of zero-sized elements");
    lc_sec_build_t b = { .rank = rank, .extent = extent, .sm = sm, .elem_len = elem_len, .nelem = 1 };
    for (int i = 0; i < rank; i++) b.nelem *= extent[i];
    rc = lc_dt_walk(t, 0, linear ? 1 : count, lc_sec_visit, &b);
    if (rc == 0 && b.n > INT32_MAX)
        rc = lc_error(MPI_ERR_COUNT,
                      "an mpi_f08 array section's datatype needs %lld blocks; pass a contiguous "
                      "array",
                      (long long)b.n);
    MPI_Datatype st = MPI_DATATYPE_NULL, out = MPI_DATATYPE_NULL;
    if (rc == 0) rc = PMPI_Type_create_struct((int)b.n, b.blens, b.displs, b.types, &st);
    if (rc == 0 && linear) {
        /* one item: k elements, so k strides of memory to the next */
        MPI_Aint x = lc_dt_extent(t);
        rc = PMPI_Type_create_resized(st, 0, (x / elem_len) * sm[0], &out);
        PMPI_Type_free(&st);
    } else {
        out = st;
    }
    if (rc == 0) rc = PMPI_Type_commit(&out);
    if (rc != 0 && out != MPI_DATATYPE_NULL) PMPI_Type_free(&out);
    free(b.blens);
    free(b.displs);
    free(b.types);
    if (rc == 0) *newtype_p = out;
    return rc;
}
